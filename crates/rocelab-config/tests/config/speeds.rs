//! Settings given per link speed on a switch with two port speeds: ECN thresholds
//! (`qos.classes[].ecn` by speed), and the lossless priority groups' dynamic-threshold alpha and
//! reserved bytes (`qos.buffer.alpha`, `qos.buffer.reserve` by speed). Each platform renders
//! each port's own values where it can set them per port or per profile, and reports the ports
//! whose values it cannot. The snapshots hold the leaf's whole file and, after it, the findings
//! `rocelab config` prints.

use super::{assert_sequence, device_text, fabric, typed};
use rocelab_config::{Finding, Typed};

/// A leaf of `platform` with host ports `h` at `lo` and uplinks `u` at `hi` to a spine (ports
/// `s`); `lo_range`, `hi_range` and `s_range` declare them. DSCP 26 on priority 3 lossless, ETS
/// 90/10, CNPs strict on DSCP 48, MTU 9000; 3 m host cables, 10 m uplinks. The maps give every
/// speed the tests use, so each platform picks its own pair: ECN at 10G 40/160 KB, 40G 160/640
/// KB, 100G 400/1600 KB, 400G 1600/6400 KB (Pmax 0.2); alpha 1 at the lower speeds and 4 at the
/// higher; reserve 20 KiB and 40 KiB.
fn two_speed(
    platform: &str,
    (lo_range, lo, h): (&str, &str, [&str; 2]),
    (hi_range, hi, u): (&str, &str, [&str; 2]),
    (s_range, s): (&str, [&str; 2]),
) -> String {
    format!(
        r#"
fabric:
  name: two-speed
  topology:
    devices:
      - {{name: leaf, role: switch, platform: {platform}, ports: [{{names: "{lo_range}", speed: {lo}}}, {{names: "{hi_range}", speed: {hi}}}]}}
      - {{name: spine, role: switch, platform: {platform}, ports: [{{names: "{s_range}", speed: {hi}}}]}}
      - {{name: h1, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-6, speed: {lo}}}}}
      - {{name: h2, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-6, speed: {lo}}}}}
    links:
      - {{a: "leaf:{h0}", b: "h1:p0", cable: 3m}}
      - {{a: "leaf:{h1}", b: "h2:p0", cable: 3m}}
      - {{a: "leaf:{u0}", b: "spine:{s0}", cable: 10m}}
      - {{a: "leaf:{u1}", b: "spine:{s1}", cable: 10m}}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - name: roce
        priority: 3
        dscp: [26]
        lossless: true
        ets: 90
        ecn:
          10G: {{kmin: 40KB, kmax: 160KB, pmax: 0.2}}
          40G: {{kmin: 160KB, kmax: 640KB, pmax: 0.2}}
          100G: {{kmin: 400KB, kmax: 1600KB, pmax: 0.2}}
          400G: {{kmin: 1600KB, kmax: 6400KB, pmax: 0.2}}
      - {{name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}}
      - {{name: default, priority: 0, dscp: [0], ets: 10}}
    buffer:
      alpha: {{10G: 1, 40G: 4, 100G: 1, 400G: 4}}
      reserve: {{10G: 20KiB, 40G: 40KiB, 100G: 20KiB, 400G: 40KiB}}
    dcqcn: {{enabled: true}}
"#,
        h0 = h[0],
        h1 = h[1],
        u0 = u[0],
        u1 = u[1],
        s0 = s[0],
        s1 = s[1],
    )
}

fn onyx() -> String {
    two_speed(
        "nvidia-onyx",
        ("eth1/1-2", "100G", ["eth1/1", "eth1/2"]),
        ("eth1/31-32", "400G", ["eth1/31", "eth1/32"]),
        ("eth1/1-2", ["eth1/1", "eth1/2"]),
    )
}
fn cumulus() -> String {
    two_speed(
        "nvidia-cumulus",
        ("swp1-2", "100G", ["swp1", "swp2"]),
        ("swp31-32", "400G", ["swp31", "swp32"]),
        ("swp1-2", ["swp1", "swp2"]),
    )
}
fn eos() -> String {
    two_speed(
        "arista-eos",
        ("Ethernet1-2", "100G", ["Ethernet1", "Ethernet2"]),
        ("Ethernet31-32", "400G", ["Ethernet31", "Ethernet32"]),
        ("Ethernet1-2", ["Ethernet1", "Ethernet2"]),
    )
}
fn sonic() -> String {
    two_speed(
        "sonic",
        ("Ethernet0-4", "100G", ["Ethernet0", "Ethernet4"]),
        ("Ethernet248-252", "400G", ["Ethernet248", "Ethernet252"]),
        ("Ethernet0-4", ["Ethernet0", "Ethernet4"]),
    )
}
fn nxos() -> String {
    two_speed(
        "cisco-nxos",
        ("Ethernet1/1-2", "100G", ["Ethernet1/1", "Ethernet1/2"]),
        ("Ethernet1/31-32", "400G", ["Ethernet1/31", "Ethernet1/32"]),
        ("Ethernet1/1-2", ["Ethernet1/1", "Ethernet1/2"]),
    )
}
fn os10() -> String {
    two_speed(
        "dell-os10",
        ("ethernet1/1/1-2", "100G", ["ethernet1/1/1", "ethernet1/1/2"]),
        ("ethernet1/1/31-32", "400G", ["ethernet1/1/31", "ethernet1/1/32"]),
        ("ethernet1/1/1-2", ["ethernet1/1/1", "ethernet1/1/2"]),
    )
}
/// The S4810 generation: 10G ports and 40G uplinks.
fn os9() -> String {
    two_speed(
        "dell-os9",
        ("TenGigabitEthernet0/0-1", "10G", ["TenGigabitEthernet0/0", "TenGigabitEthernet0/1"]),
        ("fortyGigE0/48-52", "40G", ["fortyGigE0/48", "fortyGigE0/52"]),
        ("fortyGigE0/48-52", ["fortyGigE0/48", "fortyGigE0/52"]),
    )
}
/// The HPE 5900 of the Demartek guide: 10G ports and 40G uplinks.
fn comware() -> String {
    two_speed(
        "hpe-comware",
        ("Ten-GigabitEthernet1/0/1-2", "10G", ["Ten-GigabitEthernet1/0/1", "Ten-GigabitEthernet1/0/2"]),
        ("FortyGigE1/0/49-50", "40G", ["FortyGigE1/0/49", "FortyGigE1/0/50"]),
        ("FortyGigE1/0/49-50", ["FortyGigE1/0/49", "FortyGigE1/0/50"]),
    )
}

/// The leaf's file and findings, as `rocelab config --device leaf` prints them.
fn leaf(yaml: &str) -> (String, Vec<Finding>) {
    device_text(&fabric(yaml), "leaf")
}

/// What a snapshot holds: the file, then the findings one per line.
fn with_findings(text: &str, findings: &[Finding]) -> String {
    let mut out = text.to_string();
    out.push_str("\n==== findings ====\n");
    for f in findings {
        out.push_str(&f.to_string());
        out.push('\n');
    }
    out
}

fn messages(findings: &[Finding]) -> String {
    findings.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn onyx_sets_ecn_alpha_and_reserve_on_each_port() {
    let (text, findings) = leaf(&onyx());
    assert_sequence(
        &text,
        &[
            "interface ethernet 1/1",
            "speed 100G force",
            "ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 57773 xoff 20480 xon 20480 shared alpha 1",
            "interface ethernet 1/31",
            "speed 400G force",
            "ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 139128 xoff 40960 xon 40960 shared alpha 4",
            "interface ethernet 1/1",
            "traffic-class 3 congestion-control ecn minimum-absolute 400 maximum-absolute 1600",
            "interface ethernet 1/31",
            "traffic-class 3 congestion-control ecn minimum-absolute 1600 maximum-absolute 6400",
        ],
    );
    // The only findings: Onyx's ECN takes no Pmax, on each port.
    assert_eq!(findings.len(), 4, "{}", messages(&findings));
    assert!(findings.iter().all(|f| f.message.contains("pmax 0.2 is not expressible")));
    insta::assert_snapshot!("leaf.two-speed.onyx.txt", with_findings(&text, &findings));
}

#[test]
fn onyx_reports_an_alpha_it_has_no_form_for_once_with_its_ports_and_a_reserve_under_a_static_xoff() {
    let yaml = onyx()
        .replace("alpha: {10G: 1, 40G: 4, 100G: 1, 400G: 4}", "alpha: {10G: 1, 40G: 4, 100G: 0.125, 400G: 4}")
        .replace(
            "    dcqcn: {enabled: true}",
            "    ports:\n      - {ports: [\"leaf:eth1/32\"], xoff: 30000B}\n    dcqcn: {enabled: true}",
        );
    let (text, findings) = leaf(&yaml);
    let m = messages(&findings);
    assert!(
        m.contains("warning: leaf: qos.buffer.alpha 0.125 (ports eth1/1, eth1/2): the Onyx forms rocelab knows are whole powers of two and inf; rendered the NVIDIA examples' alpha 2"),
        "{m}"
    );
    assert!(m.contains("warning: leaf:eth1/32: qos.buffer.reserve 40KiB not rendered: this port's static xoff 30000B takes Onyx's `xoff`"), "{m}");
    assert_sequence(
        &text,
        &[
            "interface ethernet 1/1",
            "ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 57773 xoff 20480 xon 20480 shared alpha 2",
            "interface ethernet 1/31",
            "ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 139128 xoff 40960 xon 40960 shared alpha 4",
            "interface ethernet 1/32",
            "ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 128168 xoff 30000 xon 30000 shared alpha 4",
        ],
    );
}

/// Before Cumulus Linux 5.4 NVUE has neither per-port congestion-control profiles nor advanced
/// buffer settings: the other speed's ECN and the alpha are reported, not rendered.
#[test]
fn cumulus_before_5_4_reports_the_per_port_ecn_and_the_alpha() {
    let yaml = cumulus().replace("platform: nvidia-cumulus,", "platform: nvidia-cumulus, os_version: \"5.3\",");
    assert!(yaml.contains("os_version"), "{yaml}");
    let (text, findings) = leaf(&yaml);
    assert!(!text.contains("rocelab-ecn-2") && !text.contains("advance-buffer-config"), "{text}");
    assert!(text.contains("nv set qos congestion-control default-global traffic-class 3 min-threshold 400000"));
    let m = messages(&findings);
    assert!(
        m.contains("per-port ECN thresholds not rendered") && m.contains("swp31, swp32 keep default-global's"),
        "{m}"
    );
    assert!(m.contains("lossless buffer alpha alpha_1 not rendered"), "{m}");
}

#[test]
fn cumulus_puts_the_other_speeds_ecn_in_a_congestion_control_profile() {
    let f = fabric(&cumulus());
    let Typed::NvidiaCumulus(c) = typed(&f, "leaf") else { panic!("not cumulus") };
    assert_eq!((c.ecn[0].traffic_class, c.ecn[0].min, c.ecn[0].max, c.ecn[0].probability), (3, 400_000, 1_600_000, 20));
    assert_eq!(c.ecn_profiles.len(), 1);
    let p = &c.ecn_profiles[0];
    assert_eq!((p.name.as_str(), p.ecn[0].min, p.ecn[0].max), ("rocelab-ecn-2", 1_600_000, 6_400_000));
    assert_eq!(p.ecn_off, vec![0], "the RoCE profile's ECN on traffic class 0 is off in the profile too");
    let applied: Vec<(&str, Option<&str>)> =
        c.interfaces.iter().map(|i| (i.name.as_str(), i.congestion_control.as_deref())).collect();
    assert_eq!(
        applied,
        [("swp1", None), ("swp2", None), ("swp31", Some("rocelab-ecn-2")), ("swp32", Some("rocelab-ecn-2"))]
    );
    assert_eq!(c.lossless_alpha.as_deref(), Some("alpha_1"));

    let (text, findings) = leaf(&cumulus());
    assert_sequence(
        &text,
        &[
            "nv set qos congestion-control default-global traffic-class 3 min-threshold 400000",
            "nv set qos congestion-control default-global traffic-class 3 max-threshold 1600000",
            "nv set qos congestion-control rocelab-ecn-2 traffic-class 3 min-threshold 1600000",
            "nv set qos congestion-control rocelab-ecn-2 traffic-class 3 max-threshold 6400000",
            "nv set qos congestion-control rocelab-ecn-2 traffic-class 3 probability 20",
            "nv set qos congestion-control rocelab-ecn-2 traffic-class 3 ecn enable",
            "nv set qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha alpha_1",
            "nv set interface swp31 qos congestion-control profile rocelab-ecn-2",
            "nv set interface swp32 qos congestion-control profile rocelab-ecn-2",
        ],
    );
    // One alpha for the switch: the uplinks' 4 is reported; no reserve setting at all.
    let m = messages(&findings);
    assert_eq!(findings.len(), 2, "{m}");
    assert!(m.contains("warning: leaf: the dynamic-threshold alpha 4 of the lossless priority groups of ports swp31, swp32 is not rendered"), "{m}");
    assert!(m.contains("warning: leaf: the bytes reserved to the lossless priority groups are not rendered (reserve 20KiB on swp1, swp2; reserve 40KiB on swp31, swp32)"), "{m}");
    insta::assert_snapshot!("leaf.two-speed.nvue.sh", with_findings(&text, &findings));
}

#[test]
fn cumulus_alpha_names_and_rounding() {
    assert_eq!(rocelab_config::cumulus::nvue_alpha(0.125), ("alpha_1_8".to_string(), false));
    assert_eq!(rocelab_config::cumulus::nvue_alpha(2.0), ("alpha_2".to_string(), false));
    assert_eq!(rocelab_config::cumulus::nvue_alpha(1.0), ("alpha_1".to_string(), false));
    assert_eq!(rocelab_config::cumulus::nvue_alpha(0.2), ("alpha_1_4".to_string(), true));
    // No alpha, no reserve in the fabric: nothing rendered, nothing reported (the RoCE
    // profile's own buffers stay).
    let yaml = cumulus()
        .replace("      alpha: {10G: 1, 40G: 4, 100G: 1, 400G: 4}\n", "")
        .replace("      reserve: {10G: 20KiB, 40G: 40KiB, 100G: 20KiB, 400G: 40KiB}\n", "")
        .replace("    buffer:\n", "");
    let (text, findings) = leaf(&yaml);
    assert!(!text.contains("advance-buffer-config"), "{text}");
    assert!(findings.is_empty(), "{}", messages(&findings));
}

#[test]
fn eos_sets_ecn_per_port_and_reports_alpha_and_reserve() {
    let (text, findings) = leaf(&eos());
    assert_sequence(
        &text,
        &[
            "interface Ethernet1",
            "   tx-queue 3",
            "      random-detect ecn minimum-threshold 400000 bytes maximum-threshold 1600000 bytes max-mark-probability 20 weight 0",
            "interface Ethernet31",
            "   tx-queue 3",
            "      random-detect ecn minimum-threshold 1600000 bytes maximum-threshold 6400000 bytes max-mark-probability 20 weight 0",
        ],
    );
    let m = messages(&findings);
    assert_eq!(findings.len(), 2, "{m}");
    assert!(m.contains("warning: leaf: the dynamic-threshold alpha of the lossless priority groups is not rendered (alpha 1 on Ethernet1, Ethernet2; alpha 4 on Ethernet31, Ethernet32)"), "{m}");
    assert!(m.contains("warning: leaf: the bytes reserved to the lossless priority groups are not rendered (reserve 20KiB on Ethernet1, Ethernet2; reserve 40KiB on Ethernet31, Ethernet32)"), "{m}");
    insta::assert_snapshot!("leaf.two-speed.eos.txt", with_findings(&text, &findings));
}

#[test]
fn sonic_gives_each_speed_its_profile_wred_dynamic_th_and_size() {
    let f = fabric(&sonic());
    let Typed::Sonic(s) = typed(&f, "leaf") else { panic!("not sonic") };
    let c = &s.config_db;
    let p100 = &c.buffer_profile["pg_lossless_100000_3m_9000_profile"];
    assert_eq!((p100["dynamic_th"].as_str(), p100["size"].as_str()), ("0", "20480"));
    let p400 = &c.buffer_profile["pg_lossless_400000_10m_9000_profile"];
    assert_eq!((p400["dynamic_th"].as_str(), p400["size"].as_str()), ("2", "40960"));
    let pg = |k: &str| c.buffer_pg.iter().find(|(i, _)| i.to_string() == k).map(|(_, r)| r.profile.to_string());
    assert_eq!(pg("Ethernet0|3").as_deref(), Some("pg_lossless_100000_3m_9000_profile"));
    assert_eq!(pg("Ethernet248|3").as_deref(), Some("pg_lossless_400000_10m_9000_profile"));
    let wred = |k: &str| {
        c.queue.iter().find(|(i, _)| i.to_string() == k).and_then(|(_, r)| r.wred_profile).map(|w| w.to_string())
    };
    assert_eq!(wred("Ethernet4|3").as_deref(), Some("ROCELAB_ECN_400000_1600000_20"));
    assert_eq!(wred("Ethernet252|3").as_deref(), Some("ROCELAB_ECN_1600000_6400000_20"));

    let (text, findings) = leaf(&sonic());
    assert!(findings.is_empty(), "{}", messages(&findings));
    insta::assert_snapshot!("leaf.two-speed.config_db.json", with_findings(&text, &findings));
}

#[test]
fn sonic_a_port_override_of_alpha_or_reserve_gets_a_profile_of_its_own() {
    let yaml = sonic().replace(
        "    dcqcn: {enabled: true}",
        "    ports:\n      - {ports: [\"leaf:Ethernet4\"], alpha: 0.25, reserve: 8KiB}\n      - {ports: [\"leaf:Ethernet252\"], alpha: 0.3}\n    dcqcn: {enabled: true}",
    );
    let f = fabric(&yaml);
    let Typed::Sonic(s) = typed(&f, "leaf") else { panic!("not sonic") };
    let c = &s.config_db;
    let names: Vec<&str> =
        c.buffer_profile.keys().map(String::as_str).filter(|k| k.starts_with("pg_lossless")).collect();
    assert_eq!(
        names,
        [
            "pg_lossless_100000_3m_9000_profile",
            "pg_lossless_100000_3m_9000_th-2_size8192_profile",
            "pg_lossless_400000_10m_9000_profile",
            "pg_lossless_400000_10m_9000_th-2_profile",
        ]
    );
    let p = &c.buffer_profile["pg_lossless_100000_3m_9000_th-2_size8192_profile"];
    assert_eq!((p["dynamic_th"].as_str(), p["size"].as_str()), ("-2", "8192"));
    let (_, findings) = leaf(&yaml);
    let m = messages(&findings);
    assert!(
        m.contains("warning: leaf:Ethernet252: alpha 0.3 of this port is not a power of two; SONiC's dynamic_th takes log2(alpha), rendered -2 (alpha 0.25)"),
        "{m}"
    );
}

#[test]
fn nxos_renders_one_ecn_and_reports_the_other_speed() {
    let (text, findings) = leaf(&nxos());
    assert_sequence(
        &text,
        &[
            "  class type queuing c-out-8q-q3",
            "    random-detect minimum-threshold 391 kbytes maximum-threshold 1563 kbytes drop-probability 20 weight 0 ecn",
        ],
    );
    let m = messages(&findings);
    assert!(
        m.contains("warning: leaf: ECN of ports Ethernet1/31, Ethernet1/32 (queue 3 Kmin 1600000 B, Kmax 6400000 B, Pmax 0.2) differs from port Ethernet1/1's (queue 3 Kmin 400000 B, Kmax 1600000 B, Pmax 0.2) but NX-OS applies the network-qos and queuing policies system-wide (`system qos`); rendered port Ethernet1/1's for the whole switch"),
        "{m}"
    );
    assert!(m.contains("the dynamic-threshold alpha of the lossless priority groups is not rendered (alpha 1 on Ethernet1/1, Ethernet1/2; alpha 4 on Ethernet1/31, Ethernet1/32)"), "{m}");
    assert!(m.contains("the bytes reserved to the lossless priority groups are not rendered"), "{m}");
    insta::assert_snapshot!("leaf.two-speed.nxos.txt", with_findings(&text, &findings));
}

#[test]
fn os10_gives_the_other_speed_a_queuing_policy_of_its_own() {
    let f = fabric(&os10());
    let Typed::DellOs10(c) = typed(&f, "leaf") else { panic!("not os10") };
    let wred: Vec<(&str, u64, u64, u8)> =
        c.wred.iter().map(|w| (w.name.as_str(), w.min, w.max, w.drop_probability)).collect();
    assert_eq!(wred, [("ROCELAB-ECN3", 400, 1600, 20), ("ROCELAB-ECN3-2", 1600, 6400, 20)]);
    assert_eq!(c.more_queuing.len(), 1);
    let policies: Vec<(&str, bool, &str)> =
        c.interfaces.iter().map(|i| (i.name.as_str(), i.ets, i.queuing.as_str())).collect();
    assert_eq!(
        policies,
        [
            ("ethernet1/1/1", true, "ROCELAB-ETS"),
            ("ethernet1/1/2", true, "ROCELAB-ETS"),
            ("ethernet1/1/31", true, "ROCELAB-ETS-2"),
            ("ethernet1/1/32", true, "ROCELAB-ETS-2"),
        ]
    );
    let (text, findings) = leaf(&os10());
    assert_sequence(
        &text,
        &[
            "wred ROCELAB-ECN3",
            " random-detect color green minimum-threshold 400 maximum-threshold 1600 drop-probability 20",
            "wred ROCELAB-ECN3-2",
            " random-detect color green minimum-threshold 1600 maximum-threshold 6400 drop-probability 20",
            "policy-map type queuing ROCELAB-ETS",
            "  random-detect ROCELAB-ECN3",
            "policy-map type queuing ROCELAB-ETS-2",
            "  random-detect ROCELAB-ECN3-2",
            "interface ethernet1/1/1",
            " service-policy output type queuing ROCELAB-ETS",
            "interface ethernet1/1/31",
            " service-policy output type queuing ROCELAB-ETS-2",
        ],
    );
    let m = messages(&findings);
    assert_eq!(findings.len(), 2, "alpha and reserve only: {m}");
    insta::assert_snapshot!("leaf.two-speed.os10.txt", with_findings(&text, &findings));
}

#[test]
fn os9_reports_each_speeds_ecn_alpha_and_reserve() {
    let (text, findings) = leaf(&os9());
    let m = messages(&findings);
    assert!(
        m.contains("warning: leaf: ECN of ports TenGigabitEthernet0/0, TenGigabitEthernet0/1 (queue 3 Kmin 40000 B, Kmax 160000 B, Pmax 0.2): rocelab does not render FTOS WRED/ECN"),
        "{m}"
    );
    assert!(
        m.contains("warning: leaf: ECN of ports fortyGigE0/48, fortyGigE0/52 (queue 3 Kmin 160000 B, Kmax 640000 B, Pmax 0.2): rocelab does not render FTOS WRED/ECN"),
        "{m}"
    );
    assert!(m.contains("the dynamic-threshold alpha of the lossless priority groups is not rendered (alpha 1 on TenGigabitEthernet0/0, TenGigabitEthernet0/1; alpha 4 on fortyGigE0/48, fortyGigE0/52)"), "{m}");
    assert!(m.contains("the bytes reserved to the lossless priority groups are not rendered"), "{m}");
    assert!(!m.contains("differ from port"), "ECN alone is not a different DCB map: {m}");
    insta::assert_snapshot!("leaf.two-speed.os9.txt", with_findings(&text, &findings));
}

#[test]
fn comware_applies_a_wred_table_per_speed() {
    let f = fabric(&comware());
    let Typed::HpeComware(c) = typed(&f, "leaf") else { panic!("not comware") };
    let t = c.wred_table.as_ref().unwrap();
    assert_eq!((t.name.as_str(), t.queues[0].low_limit, t.queues[0].high_limit), ("ROCELAB", 4, 18));
    let t2 = &c.more_wred_tables[0];
    assert_eq!((t2.name.as_str(), t2.queues[0].low_limit, t2.queues[0].high_limit), ("ROCELAB-2", 18, 71));
    let applied: Vec<Option<&str>> = c.interfaces.iter().map(|i| i.wred_apply.as_deref()).collect();
    assert_eq!(applied, [Some("ROCELAB"), Some("ROCELAB"), Some("ROCELAB-2"), Some("ROCELAB-2")]);
    let (text, findings) = leaf(&comware());
    assert_sequence(
        &text,
        &[
            "qos wred queue table ROCELAB",
            "queue 3 low-limit 4 high-limit 18",
            "queue 3 ecn",
            "quit",
            "qos wred queue table ROCELAB-2",
            "queue 3 low-limit 18 high-limit 71",
            "queue 3 ecn",
            "quit",
            "interface Ten-GigabitEthernet 1/0/1",
            "qos wred apply ROCELAB",
            "interface FortyGigE 1/0/49",
            "qos wred apply ROCELAB-2",
        ],
    );
    let m = messages(&findings);
    assert!(m.contains("the dynamic-threshold alpha of the lossless priority groups is not rendered"), "{m}");
    assert!(m.contains("the bytes reserved to the lossless priority groups are not rendered"), "{m}");
    insta::assert_snapshot!("leaf.two-speed.comware.txt", with_findings(&text, &findings));
}
