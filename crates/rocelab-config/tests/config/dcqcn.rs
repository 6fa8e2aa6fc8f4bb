//! DCQCN parameters on Linux hosts, in each adapter's own names and units: ConnectX's OFED sysfs
//! files, qed's module parameters, and Broadcom's configfs (which documents no scale to convert
//! to), each value with its conversion in a comment; a value the adapter cannot hold is a
//! warning with the nearest one it can.

use super::{assert_sequence, device_text, fabric};

/// A SONiC switch and one Linux host with `nic`, DSCP 26 lossless on priority 3, CNPs on DSCP 48
/// priority 6, DCQCN with `dcqcn` (YAML flow mapping entries after `enabled: true`).
fn host_fabric(nic: &str, dcqcn: &str) -> String {
    format!(
        r#"
fabric:
  name: dcqcn-units
  topology:
    devices:
      - {{name: sw, role: switch, platform: sonic, ports: [{{names: Ethernet0-1, speed: 100G}}]}}
      - {{name: h1, role: host, os: linux, nic: {nic}}}
    links:
      - {{a: "sw:Ethernet0", b: "h1:p0"}}
  qos:
    marking: dscp
    classes:
      - {{name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {{kmin: 150KB, kmax: 1500KB, pmax: 0.01}}}}
      - {{name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}}
      - {{name: default, priority: 0, dscp: [0], ets: 10}}
    dcqcn: {{enabled: true{dcqcn}}}
"#
    )
}

const CX: &str = "{vendor: nvidia, model: ConnectX-6 Dx, speed: 100G, port_names: [p0]}";

#[test]
fn connectx_gets_each_dcqcn_parameter_in_its_sysfs_unit_with_the_conversion() {
    let yaml =
        host_fabric(CX, ", g: 0.0078125, rate_increase_timer: 100us, byte_counter: 16KB, additive_increase: 100Mbps");
    let (text, findings) = device_text(&fabric(&yaml), "h1");
    assert_sequence(
        &text,
        &[
            "if [ -d /sys/class/net/p0/ecn/roce_np ]; then",
            "echo 1 > /sys/class/net/p0/ecn/roce_rp/enable/3",
            "# g 0.0078125 → 1016/1024 (alpha kept per update)",
            "echo 1016 > /sys/class/net/p0/ecn/roce_rp/dce_tcp_g",
            "# alpha_update_interval 55us → 55 us",
            "echo 55 > /sys/class/net/p0/ecn/roce_rp/dce_tcp_rtt",
            "echo 1023 > /sys/class/net/p0/ecn/roce_rp/initial_alpha_value",
            "# rate_increase_timer 100us → 100 us",
            "echo 100 > /sys/class/net/p0/ecn/roce_rp/rpg_time_reset",
            "# byte_counter 16KB → 16000 B",
            "echo 16000 > /sys/class/net/p0/ecn/roce_rp/rpg_byte_reset",
            "echo 5 > /sys/class/net/p0/ecn/roce_rp/rpg_threshold",
            "# additive_increase 100Mbps → 100 Mbps",
            "echo 100 > /sys/class/net/p0/ecn/roce_rp/rpg_ai_rate",
            "echo 200 > /sys/class/net/p0/ecn/roce_rp/rpg_hai_rate",
            "echo 10 > /sys/class/net/p0/ecn/roce_rp/rpg_min_rate",
            "echo 0 > /sys/class/net/p0/ecn/roce_rp/rpg_min_dec_fac",
            "echo 1 > /sys/class/net/p0/ecn/roce_rp/clamp_tgt_rate",
            "# cnp_interval 50us → 50 us",
            "echo 50 > /sys/class/net/p0/ecn/roce_np/min_time_between_cnps",
            "else",
        ],
    );
    assert!(text.contains("/sys/kernel/debug/mlx5/PCI/cc_params/"), "the inbox driver's branch names its debugfs");
    // The paper's `rate_reduce_interval` 0 (cut on every CNP) is below ConnectX's 1 us.
    let w: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
    assert!(
        w.iter().any(|m| m.contains("rate_reduce_interval 0 does not fit `rate_reduce_monitor_period`")
            && m.contains("nearest value it can hold is 1 us")),
        "{w:?}"
    );
    assert!(!w.iter().any(|m| m.contains("does not map parameter values")), "{w:?}");
}

#[test]
fn a_value_connectx_cannot_hold_is_a_warning_naming_adapter_parameter_and_nearest_value() {
    let yaml = host_fabric(CX, ", byte_counter: 10MB, min_rate: 200Gbps");
    let (text, findings) = device_text(&fabric(&yaml), "h1");
    assert!(text.contains("echo 32767 > /sys/class/net/p0/ecn/roce_rp/rpg_byte_reset"), "{text}");
    assert!(text.contains("# byte_counter 10MB → 32767 B"), "{text}");
    let byte =
        findings.iter().find(|f| f.message.contains("`rpg_byte_reset`")).expect("a warning for the byte counter");
    assert_eq!((byte.device.as_str(), byte.port.as_deref()), ("h1", Some("p0")));
    assert!(
        byte.message.starts_with("NVIDIA ConnectX (mlx5): byte_counter 10MB does not fit `rpg_byte_reset` (0…32767 B)"),
        "{}",
        byte.message
    );
    assert!(byte.message.contains("the nearest value it can hold is 32767 B (32767B)"), "{}", byte.message);
    let rate = findings.iter().find(|f| f.message.contains("`rpg_min_rate`")).expect("a warning for the minimum rate");
    assert!(rate.message.contains("nearest value it can hold is 131071 Mbps"), "{}", rate.message);
}

#[test]
fn marvell_qed_loads_with_the_dcqcn_parameters_in_its_units() {
    let nic = "{vendor: marvell, model: FastLinQ QL45611HLCU, speed: 100G, port_names: [p0]}";
    let yaml = host_fabric(nic, ", g: 0.03125, alpha_update_interval: 10us, cnp_interval: 20us");
    let (text, findings) = device_text(&fabric(&yaml), "h1");
    assert_sequence(
        &text,
        &[
            "#   dcqcn_cnp_send_timeout: cnp_interval 20us → 50 us",
            "#   dcqcn_gd: g 0.03125 → 32 (the gain's denominator)",
            "#   dcqcn_k_us: alpha_update_interval 10us → 10 us",
            "modprobe qed dcqcn_enable=1 dcqcn_notification_point=1 dcqcn_reaction_point=1 dcqcn_cnp_send_timeout=50 dcqcn_rl_bc_rate=10000000 dcqcn_rl_r_ai=40 dcqcn_rl_r_hai=200 dcqcn_gd=32 dcqcn_k_us=10 dcqcn_timeout_us=55 dcqcn_cnp_dscp=48 dcqcn_cnp_vlan_priority=6",
            "modprobe qedr",
        ],
    );
    let w = findings
        .iter()
        .find(|f| f.message.contains("`dcqcn_cnp_send_timeout`"))
        .expect("qed's CNP timer starts at 50 us");
    assert!(
        w.message.starts_with(
            "Marvell FastLinQ (qed): cnp_interval 20us does not fit `dcqcn_cnp_send_timeout` (50…500000 us)"
        ),
        "{}",
        w.message
    );
}

#[test]
fn broadcom_says_next_to_its_configfs_values_why_no_parameter_is_converted() {
    let nic = "{vendor: broadcom, model: BCM57508, speed: 100G, port_names: [p0]}";
    let yaml = host_fabric(nic, ", g: 0.0078125");
    let (text, findings) = device_text(&fabric(&yaml), "h1");
    assert_sequence(
        &text,
        &[
            "cd \"/sys/kernel/config/bnxt_re/$DEV/ports/1/cc/\"",
            "# model g 0.0078125 → no documented scale for configfs `g` (an 8-bit \"running avg. weight\"): the guide's value",
            "echo -n 0x1 > cc_mode",
            "echo -n 0x3 > g",
        ],
    );
    let w = findings.iter().find(|f| f.message.starts_with("Broadcom bnxt_re:")).expect("a warning");
    assert!(w.message.contains("the fabric sets DCQCN parameters (g)"), "{}", w.message);
}
