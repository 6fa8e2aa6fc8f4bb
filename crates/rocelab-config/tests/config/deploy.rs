//! What a network engineer pasting the files would still trip on: each platform's release syntax
//! (`os_version`), the final save (and `--no-save`), DCBX for Comware's PFC `auto`, OS10's global
//! ETS, and the VLAN of PCP marking on every switch and host.

use super::switches::dscp_fabric;
use super::{assert_sequence, device_text, fabric};
use rocelab_config::{render_device, Templates};

/// The DSCP pair of `switches.rs` on `platform`, its switch given `os_version: release`.
fn with_release(platform: &str, ports: &str, p1: &str, p2: &str, release: &str) -> String {
    dscp_fabric(platform, ports, p1, p2)
        .replace(&format!("platform: {platform},"), &format!("platform: {platform}, os_version: \"{release}\","))
}

fn cumulus(release: Option<&str>) -> String {
    match release {
        Some(r) => with_release("nvidia-cumulus", "swp1-2", "swp1", "swp2", r),
        None => dscp_fabric("nvidia-cumulus", "swp1-2", "swp1", "swp2"),
    }
}

#[test]
fn cumulus_5_3_takes_the_cable_length_under_roce_and_has_no_pfc_watchdog() {
    let (text, findings) = device_text(&fabric(&cumulus(Some("5.3"))), "sw");
    assert!(text.contains("(NVIDIA Cumulus Linux 5.3, NVUE)"), "{text}");
    assert!(!text.contains("rocelab's default"), "a release the device names is not the default");
    assert!(text.contains("nv set qos roce cable-length 5\n"), "{text}");
    assert!(!text.contains("qos pfc default-global cable-length"), "{text}");
    assert!(!text.contains("pfc-watchdog"), "{text}");
    assert!(
        findings.iter().any(|f| f.message.contains("PFC watchdog not rendered") && f.message.contains("5.3")),
        "{findings:?}"
    );
}

#[test]
fn cumulus_from_5_4_takes_the_cable_length_under_pfc_and_from_5_6_the_watchdog_state() {
    let (text, findings) = device_text(&fabric(&cumulus(Some("5.4"))), "sw");
    assert!(text.contains("nv set qos pfc default-global cable-length 5\n"), "{text}");
    assert!(!text.contains("qos roce cable-length"), "{text}");
    assert!(!text.contains("pfc-watchdog"), "5.4 has no watchdog command: {text}");
    assert!(findings.iter().any(|f| f.message.contains("PFC watchdog not rendered")));
    let (text, findings) = device_text(&fabric(&cumulus(Some("5.6"))), "sw");
    assert!(text.contains("nv set interface swp1 qos pfc-watchdog state enable\n"), "{text}");
    assert!(!findings.iter().any(|f| f.message.contains("PFC watchdog")), "{findings:?}");
}

#[test]
fn cumulus_default_release_is_named_and_applies_without_a_prompt() {
    let (text, _) = device_text(&fabric(&cumulus(None)), "sw");
    let default = rocelab_model::fabric::Platform::NvidiaCumulus.default_release().unwrap();
    assert!(text.contains(&format!("(NVIDIA Cumulus Linux {default}, NVUE)")), "{text}");
    assert!(text.contains(&format!("# Release {default} is rocelab's default for this platform")), "{text}");
    assert_sequence(&text, &["nv config apply --assume-yes", "nv config save"]);
    assert!(!text.lines().any(|l| l == "nv config apply"), "a bare apply prompts: {text}");
}

/// Every switch file ends by saving, in its platform's own words; `without_save` leaves exactly
/// that out.
#[test]
fn every_switch_file_ends_by_saving_unless_told_not_to() {
    let cases = [
        ("arista-eos", "Ethernet1-2", "Ethernet1", "Ethernet2", "copy running-config startup-config"),
        ("cisco-nxos", "Ethernet1/1-2", "Ethernet1/1", "Ethernet1/2", "copy running-config startup-config"),
        ("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2", "write memory"),
        (
            "dell-os9",
            "TenGigabitEthernet0/0-1",
            "TenGigabitEthernet0/0",
            "TenGigabitEthernet0/1",
            "copy running-config startup-config",
        ),
        ("nvidia-cumulus", "swp1-2", "swp1", "swp2", "nv config save"),
        ("nvidia-onyx", "eth1/1-2", "eth1/1", "eth1/2", "config write to rocelab"),
        (
            "hpe-comware",
            "Ten-GigabitEthernet1/0/1-2",
            "Ten-GigabitEthernet1/0/1",
            "Ten-GigabitEthernet1/0/2",
            "save force",
        ),
    ];
    for (platform, ports, p1, p2, save) in cases {
        let f = fabric(&dscp_fabric(platform, ports, p1, p2));
        let (text, _) = device_text(&f, "sw");
        assert_eq!(text.trim_end().lines().last(), Some(save), "{platform}:\n{text}");
        let (file, _) = render_device(&f, "sw", &Templates::builtin().without_save()).unwrap();
        let unsaved = file.unwrap().text;
        assert!(!unsaved.contains(save), "{platform} --no-save:\n{unsaved}");
    }
}

#[test]
fn comware_pfc_auto_enables_lldp_and_its_dcbx_tlvs() {
    let yaml = dscp_fabric(
        "hpe-comware",
        "Ten-GigabitEthernet1/0/1-2",
        "Ten-GigabitEthernet1/0/1",
        "Ten-GigabitEthernet1/0/2",
    )
    .replace(
        "    dcqcn: {enabled: true}",
        "    dcbx: {switches_willing: false, hosts_willing: true}\n    dcqcn: {enabled: true}",
    );
    let (text, _) = device_text(&fabric(&yaml), "sw");
    assert_sequence(
        &text,
        &[
            "lldp global enable",
            "interface Ten-GigabitEthernet 1/0/1",
            "lldp enable",
            "lldp tlv-enable dot1-tlv dcbx",
            "priority-flow-control auto",
            "interface Ten-GigabitEthernet 1/0/2",
            "lldp enable",
            "lldp tlv-enable dot1-tlv dcbx",
            "priority-flow-control auto",
        ],
    );
    // Without DCBX PFC is `enable`, negotiated by nobody: no LLDP lines.
    let plain = dscp_fabric(
        "hpe-comware",
        "Ten-GigabitEthernet1/0/1-2",
        "Ten-GigabitEthernet1/0/1",
        "Ten-GigabitEthernet1/0/2",
    );
    let (text, _) = device_text(&fabric(&plain), "sw");
    assert!(text.contains("priority-flow-control enable") && !text.contains("lldp"), "{text}");
}

#[test]
fn os10_turns_ets_on_globally_as_well_as_on_the_ports() {
    let (text, _) =
        device_text(&fabric(&dscp_fabric("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2")), "sw");
    assert_sequence(
        &text,
        &[
            "system qos",
            " ets mode on",
            "interface ethernet1/1/1",
            " ets mode on",
            "interface ethernet1/1/2",
            " ets mode on",
        ],
    );
}

#[test]
fn every_switch_header_names_its_release() {
    for (platform, ports, p1, p2, label) in [
        ("arista-eos", "Ethernet1-2", "Ethernet1", "Ethernet2", "Arista EOS"),
        ("cisco-nxos", "Ethernet1/1-2", "Ethernet1/1", "Ethernet1/2", "Cisco NX-OS"),
        ("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2", "Dell SmartFabric OS10"),
        ("nvidia-onyx", "eth1/1-2", "eth1/1", "eth1/2", "NVIDIA Onyx"),
    ] {
        let p: rocelab_model::fabric::Platform = match platform {
            "arista-eos" => rocelab_model::fabric::Platform::AristaEos,
            "cisco-nxos" => rocelab_model::fabric::Platform::CiscoNxos,
            "dell-os10" => rocelab_model::fabric::Platform::DellOs10,
            _ => rocelab_model::fabric::Platform::NvidiaOnyx,
        };
        let (text, _) = device_text(&fabric(&dscp_fabric(platform, ports, p1, p2)), "sw");
        let first = text.lines().next().unwrap();
        assert!(first.contains(&format!("({label} {}", p.default_release().unwrap())), "{first}");
        let older = p.releases()[0];
        let (text, _) = device_text(&fabric(&with_release(platform, ports, p1, p2, older)), "sw");
        assert!(text.lines().next().unwrap().contains(&format!("({label} {older}")), "{text}");
    }
}

/// Two hosts on one switch of `platform` under PCP marking in VLAN 100: RoCE on priority 3
/// lossless with DCQCN; `nic` is the hosts' adapter.
fn pcp_fabric(platform: &str, model: &str, ports: &str, p1: &str, p2: &str, nic: &str, os: &str) -> String {
    format!(
        r#"
fabric:
  name: pcp-pair
  topology:
    devices:
      - {{name: sw, role: switch, platform: {platform},{model} ports: [{{names: "{ports}", speed: 100G}}]}}
      - {{name: h1, role: host, os: {os}, nic: {nic}}}
      - {{name: h2, role: host, os: {os}, nic: {nic}}}
    links:
      - {{a: "sw:{p1}", b: "h1:p0"}}
      - {{a: "sw:{p2}", b: "h2:p0"}}
  qos:
    marking: pcp
    vlan: 100
    classes:
      - {{name: roce, priority: 3, lossless: true, ets: 90}}
      - {{name: default, priority: 0, ets: 10}}
    dcqcn: {{enabled: true}}
"#
    )
}

const CX5: &str = "{vendor: nvidia, model: ConnectX-5, speed: 100G}";

fn pcp_switch(platform: &str, ports: &str, p1: &str, p2: &str) -> String {
    device_text(&fabric(&pcp_fabric(platform, "", ports, p1, p2, CX5, "linux")), "sw").0
}

#[test]
fn pcp_marking_puts_the_vlan_on_nxos_trunks() {
    let text = pcp_switch("cisco-nxos", "Ethernet1/1-2", "Ethernet1/1", "Ethernet1/2");
    assert_sequence(
        &text,
        &[
            "vlan 100",
            "interface Ethernet1/1",
            "  switchport",
            "  switchport mode trunk",
            "  switchport trunk allowed vlan 100",
            "interface Ethernet1/2",
            "  switchport mode trunk",
            "  switchport trunk allowed vlan 100",
        ],
    );
}

#[test]
fn pcp_marking_puts_the_vlan_on_os10_trunks() {
    let text = pcp_switch("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2");
    assert_sequence(
        &text,
        &[
            "interface vlan 100",
            "interface ethernet1/1/1",
            " switchport mode trunk",
            " switchport trunk allowed vlan 100",
            "interface ethernet1/1/2",
            " switchport mode trunk",
            " switchport trunk allowed vlan 100",
        ],
    );
}

#[test]
fn pcp_marking_puts_the_vlan_on_the_cumulus_bridge() {
    let text = pcp_switch("nvidia-cumulus", "swp1-2", "swp1", "swp2");
    assert_sequence(
        &text,
        &[
            "nv set bridge domain br_default vlan 100",
            "nv set interface swp1 bridge domain br_default",
            "nv set interface swp2 bridge domain br_default",
            "nv config apply --assume-yes",
        ],
    );
}

#[test]
fn pcp_marking_puts_the_vlan_and_tagged_members_in_sonics_config_db() {
    let text = pcp_switch("sonic", "Ethernet0-1", "Ethernet0", "Ethernet1");
    let db: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(db["VLAN"]["Vlan100"]["vlanid"], "100", "{text}");
    for p in ["Ethernet0", "Ethernet1"] {
        assert_eq!(db["VLAN_MEMBER"][format!("Vlan100|{p}")]["tagging_mode"], "tagged", "{text}");
    }
    // DSCP marking: no VLAN.
    let dscp = device_text(&fabric(&dscp_fabric("sonic", "Ethernet0-1", "Ethernet0", "Ethernet1")), "sw").0;
    assert!(!dscp.contains("VLAN"), "{dscp}");
}

/// SONiC's QoS template gives NVIDIA Spectrum (and Barefoot) ASICs a PFC priority to priority
/// group map; other ASICs get none.
#[test]
fn sonic_on_spectrum_gets_a_pfc_to_pg_map() {
    let spectrum = pcp_fabric("sonic", " model: SN2700,", "Ethernet0-1", "Ethernet0", "Ethernet1", CX5, "linux");
    let db: serde_json::Value = serde_json::from_str(&device_text(&fabric(&spectrum), "sw").0).unwrap();
    assert_eq!(db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["ROCELAB"], serde_json::json!({"3": "3"}));
    assert_eq!(db["PORT_QOS_MAP"]["Ethernet0"]["pfc_to_pg_map"], "ROCELAB");
    let plain = pcp_fabric("sonic", "", "Ethernet0-1", "Ethernet0", "Ethernet1", CX5, "linux");
    let db: serde_json::Value = serde_json::from_str(&device_text(&fabric(&plain), "sw").0).unwrap();
    assert!(db.get("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP").is_none());
    assert!(db["PORT_QOS_MAP"]["Ethernet0"].get("pfc_to_pg_map").is_none());
}

#[test]
fn windows_adapters_tag_their_frames_under_pcp_marking() {
    let yaml = pcp_fabric("arista-eos", "", "Ethernet1-2", "Ethernet1", "Ethernet2", CX5, "windows");
    let (text, _) = device_text(&fabric(&yaml), "h1");
    assert_sequence(
        &text,
        &[
            "New-NetQosPolicy \"SMB\" -SMB -PriorityValue8021Action 3",
            "Set-NetAdapterAdvancedProperty -Name \"p0\" -RegistryKeyword \"VlanID\" -RegistryValue 100",
        ],
    );
}

/// Reloading qed deletes qede's interfaces with their VLAN interface and egress QoS map: the
/// reload comes first.
#[test]
fn marvell_qed_is_reloaded_before_the_vlan_interface_is_made() {
    let nic = "{vendor: marvell, model: FastLinQ QL45611HLCU, speed: 100G}";
    let yaml = pcp_fabric("arista-eos", "", "Ethernet1-2", "Ethernet1", "Ethernet2", nic, "linux");
    let (text, _) = device_text(&fabric(&yaml), "h1");
    assert_sequence(
        &text,
        &[
            "modprobe -r qedr qede qed 2>/dev/null || true",
            "modprobe qed dcqcn_enable=1 dcqcn_notification_point=1 dcqcn_reaction_point=1 dcqcn_cnp_send_timeout=50 dcqcn_rl_bc_rate=10000000 dcqcn_rl_r_ai=40 dcqcn_rl_r_hai=200 dcqcn_gd=256 dcqcn_k_us=55 dcqcn_timeout_us=55",
            "modprobe qedr",
            "ip link set dev p0 mtu 1500",
            "ip link show p0.100 >/dev/null 2>&1 || ip link add link p0 name p0.100 type vlan id 100",
            "ip link set dev p0.100 type vlan egress-qos-map 0:3 1:3 2:3 3:3 4:3 5:3 6:3 7:3 8:3 9:3 10:3 11:3 12:3 13:3 14:3 15:3",
        ],
    );
    assert_eq!(text.matches("modprobe -r qedr").count(), 1, "{text}");
}

/// The mlx5 script checks what the host has before changing anything, and takes the inbox
/// driver's branch (no ECN sysfs tree) instead of stopping under `set -e`.
#[test]
fn mlx5_script_checks_the_host_first_and_branches_on_the_ecn_tree() {
    let yaml = dscp_fabric("arista-eos", "Ethernet1-2", "Ethernet1", "Ethernet2");
    let (text, _) = device_text(&fabric(&yaml), "h1");
    let first_change = text.find("modprobe rdma_cm").unwrap();
    let check = text.find("ip link show dev p0 >/dev/null 2>&1 || MISSING+=").unwrap();
    let stop = text.find("left unchanged; missing:$MISSING").unwrap();
    assert!(check < stop && stop < first_change, "{text}");
    assert!(text.contains("command -v mlnx_qos >/dev/null 2>&1 || MISSING+="), "{text}");
    assert_sequence(
        &text,
        &[
            "if [ -d /sys/class/net/p0/ecn/roce_np ]; then",
            "echo 1 > /sys/class/net/p0/ecn/roce_np/enable/3",
            "echo 1 > /sys/class/net/p0/ecn/roce_rp/enable/3",
            "else",
            "fi",
            "# ---- host tuning ----",
        ],
    );
    // Nothing in the ECN tree is written outside the branch.
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| l.contains("/ecn/roce_") && l.starts_with("echo")) {
        let opened = lines[..i].iter().rposition(|l| l.starts_with("if [ -d /sys/class/net/"));
        let closed = lines[..i].iter().rposition(|l| *l == "fi");
        assert!(opened > closed, "line {i} `{l}` outside the branch");
    }
}

/// Run twice, a host script changes nothing the second time: what it creates it creates only
/// when absent, what it appends it appends only when missing, and the rest sets values.
#[test]
fn host_scripts_create_and_append_only_what_is_missing() {
    let nics = [
        CX5,
        "{vendor: marvell, model: FastLinQ QL45611HLCU, speed: 100G}",
        "{vendor: broadcom, model: BCM57508, speed: 100G}",
        "{vendor: intel, model: E810-CQDA2, speed: 100G, rdma: roce-v2}",
    ];
    for nic in nics {
        let yaml = pcp_fabric("arista-eos", "", "Ethernet1-2", "Ethernet1", "Ethernet2", nic, "linux");
        let (text, _) = device_text(&fabric(&yaml), "h1");
        for l in text.lines() {
            if l.contains("ip link add") {
                assert!(l.starts_with("ip link show ") && l.contains(" || ip link add"), "{nic}: `{l}`");
            }
            if l.contains(">>") {
                assert!(l.contains("grep -q"), "{nic}: `{l}`");
            }
            if l.starts_with("mkdir ") {
                assert!(l.starts_with("mkdir -p "), "{nic}: `{l}`");
            }
            if l.starts_with("ip rule add") {
                assert!(text.contains(&l.replace("ip rule add", "ip rule del")), "{nic}: `{l}`");
            }
        }
    }
}
