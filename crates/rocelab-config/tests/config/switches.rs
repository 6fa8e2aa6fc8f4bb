//! The switch platforms beyond the seeds' (NVIDIA Cumulus NVUE, Cisco NX-OS, Dell OS10, Dell
//! OS9): each typed representation as data, a golden file of its text, and the bad input it
//! reports (what the platform cannot express, more lossless priorities than it has, a rounded
//! value).

use super::{assert_sequence, device_text, fabric, typed};
use rocelab_config::{render, Templates, Typed};

/// Two hosts on one switch of `platform` (ports named by `ports`, a range, and `p1`, `p2`):
/// DSCP 26 on priority 3 lossless with ECN 150/1500 KB at 1 % and ETS 90/10, CNPs on DSCP 48
/// strict, MTU 9000, cables of 3 and 5 m.
pub(crate) fn dscp_fabric(platform: &str, ports: &str, p1: &str, p2: &str) -> String {
    format!(
        r#"
fabric:
  name: dscp-pair
  topology:
    devices:
      - {{name: sw, role: switch, platform: {platform}, ports: [{{names: "{ports}", speed: 100G}}]}}
      - {{name: h1, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-5, speed: 100G}}}}
      - {{name: h2, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-5, speed: 100G}}}}
    links:
      - {{a: "sw:{p1}", b: "h1:p0", cable: 3m}}
      - {{a: "sw:{p2}", b: "h2:p0", cable: 5m}}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {{name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {{kmin: 150KB, kmax: 1500KB, pmax: 0.01}}}}
      - {{name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}}
      - {{name: default, priority: 0, dscp: [0], ets: 10}}
    dcqcn: {{enabled: true}}
"#
    )
}

fn cumulus() -> String {
    dscp_fabric("nvidia-cumulus", "swp1-2", "swp1", "swp2")
}
fn nxos() -> String {
    dscp_fabric("cisco-nxos", "Ethernet1/1-2", "Ethernet1/1", "Ethernet1/2")
}
fn os10() -> String {
    dscp_fabric("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2")
}

fn messages(findings: &[rocelab_config::Finding]) -> String {
    findings.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
}

// ---- NVIDIA Cumulus Linux (NVUE) ----

#[test]
fn cumulus_representation_as_data() {
    let f = fabric(&cumulus());
    let Typed::NvidiaCumulus(c) = typed(&f, "sw") else { panic!("not cumulus") };
    assert_eq!(c.roce_mode.as_deref(), Some("lossless"));
    assert_eq!(c.cable_length, 5, "the longest cable");
    assert_eq!(c.trust, "l3");
    assert_eq!((c.dscp_map[0].dscp.as_str(), c.dscp_map[0].switch_priority), ("26", 3));
    // Every DSCP no class lists goes to switch priority 0, not to d/8 (24-31 would be RoCE's).
    let rest = c.dscp_map.last().unwrap();
    assert!(rest.dscp.split(',').any(|v| v == "24") && !rest.dscp.split(',').any(|v| v == "26"));
    assert_eq!(rest.switch_priority, 0);
    assert_eq!(c.pfc_priorities, vec![3]);
    let tcs: Vec<u8> = c.egress_queue_map.iter().map(|m| m.traffic_class).collect();
    assert_eq!(tcs, vec![0, 0, 0, 3, 0, 0, 6, 0]);
    assert_eq!(c.ecn.len(), 1);
    assert_eq!((c.ecn[0].traffic_class, c.ecn[0].min, c.ecn[0].max, c.ecn[0].probability), (3, 150_000, 1_500_000, 1));
    assert_eq!(c.ecn_off, vec![0], "the RoCE profile's ECN on traffic class 0 is switched off");
    let sched: Vec<(u8, &str, Option<u8>)> =
        c.scheduler.iter().map(|s| (s.traffic_class, s.mode.as_str(), s.bw_percent)).collect();
    assert_eq!(sched, vec![(0, "dwrr", Some(10)), (3, "dwrr", Some(90)), (6, "strict", None)]);
    assert!(c.interfaces.iter().all(|i| i.mtu == 9000 && i.pfc_watchdog && !i.link_pause));
    assert!(c.link_pause.is_none());
}

#[test]
fn golden_cumulus() {
    let (text, findings) = device_text(&fabric(&cumulus()), "sw");
    assert!(findings.is_empty(), "{findings:?}");
    assert_sequence(
        &text,
        &[
            "nv set qos roce mode lossless",
            "nv set qos pfc default-global switch-priority 3",
            "nv set qos congestion-control default-global traffic-class 3 ecn enable",
            "nv config apply --assume-yes",
        ],
    );
    insta::assert_snapshot!("sw.nvue.sh", text);
}

#[test]
fn cumulus_bad_input_is_reported() {
    // Two lossless classes, a 0 % ETS share and an MTU above NVUE's 9216.
    let yaml = cumulus()
        .replace("mtu: 9000", "mtu: 9300")
        .replace(
            "{name: default, priority: 0, dscp: [0], ets: 10}",
            "{name: storage, priority: 4, dscp: [34], lossless: true, ets: 10}\n      - {name: default, priority: 0, dscp: [0], ets: 0}",
        );
    let f = fabric(&yaml);
    let (text, findings) = device_text(&f, "sw");
    let m = messages(&findings);
    assert!(m.contains("2 lossless priorities (3, 4)"), "{m}");
    assert!(m.contains("ETS share of 0 %") && m.contains("rendered 1 %"), "{m}");
    assert!(m.contains("MTU 9300 is outside NVUE's 552-9216; rendered 9216"), "{m}");
    assert!(text.contains("nv set qos egress-scheduler default-global traffic-class 0 bw-percent 1"));
    assert!(text.contains("nv set interface swp1 link mtu 9216"));
    assert!(findings.iter().all(|w| w.device == "sw"));
}

#[test]
fn cumulus_link_pause_and_ecn_only() {
    // No PFC, ECN only: RoCE lossy mode; link pause on the host ports with a profile.
    let yaml = cumulus().replace("lossless: true, ", "").replace(
        "    dcqcn: {enabled: true}",
        "    pfc: {enabled: false, link_pause: true}\n    dcqcn: {enabled: true}",
    );
    let f = fabric(&yaml);
    let Typed::NvidiaCumulus(c) = typed(&f, "sw") else { panic!("not cumulus") };
    assert_eq!(c.roce_mode.as_deref(), Some("lossy"));
    assert!(c.pfc_priorities.is_empty());
    assert_eq!(c.link_pause.as_ref().map(|l| l.cable_length), Some(5));
    let (text, _) = device_text(&f, "sw");
    assert_sequence(
        &text,
        &[
            "nv set qos roce mode lossy",
            "nv set qos link-pause rocelab-pause tx enable",
            "nv set qos link-pause rocelab-pause rx enable",
            "nv set interface swp1 qos link-pause profile rocelab-pause",
        ],
    );
    assert!(!text.contains("pfc default-global"));
}

// ---- Cisco NX-OS ----

#[test]
fn nxos_representation_as_data() {
    let f = fabric(&nxos());
    let Typed::CiscoNxos(c) = typed(&f, "sw") else { panic!("not nx-os") };
    let maps: Vec<(&str, &str, u8)> =
        c.class_maps.iter().map(|m| (m.name.as_str(), m.matches.as_str(), m.qos_group)).collect();
    assert_eq!(maps, vec![("ROCELAB-ROCE", "dscp 26", 3), ("ROCELAB-CNP", "dscp 48", 6)]);
    assert_eq!(c.default_qos_group, None);
    let nq: Vec<(&str, &[u8])> = c.network_qos.iter().map(|n| (n.class.as_str(), n.pfc_cos.as_slice())).collect();
    assert_eq!(nq, vec![("c-8q-nq-default", &[][..]), ("c-8q-nq3", &[3][..]), ("c-8q-nq6", &[][..])]);
    let q3 = c.queuing.iter().find(|q| q.class == "c-out-8q-q3").unwrap();
    assert_eq!(q3.bandwidth_remaining, Some(90));
    let e = q3.ecn.as_ref().unwrap();
    // 150 000 and 1 500 000 bytes in kbytes of 1024.
    assert_eq!((e.min, e.max, e.drop_probability), (146, 1465, 1));
    let q6 = c.queuing.iter().find(|q| q.class == "c-out-8q-q6").unwrap();
    assert_eq!((q6.priority_level, q6.bandwidth_remaining), (Some(1), None));
    assert_eq!(c.queuing.len(), 8, "every queue named, unused ones at 0 %");
    assert!(c.interfaces.iter().all(|i| i.pfc && i.mtu == 9000));
}

#[test]
fn golden_nxos() {
    let (text, findings) = device_text(&fabric(&nxos()), "sw");
    // The only finding: the KB thresholds are not whole kbytes of 1024.
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].message.contains("rendered 146-1465 kbytes"));
    assert_sequence(
        &text,
        &[
            "policy-map type network-qos ROCELAB-NQ",
            "  class type network-qos c-8q-nq3",
            "    pause pfc-cos 3",
            "system qos",
            "  service-policy type network-qos ROCELAB-NQ",
            "interface Ethernet1/1",
            "  priority-flow-control mode on",
            "  service-policy type qos input ROCELAB-IN",
        ],
    );
    insta::assert_snapshot!("sw.nxos.txt", text);
}

#[test]
fn nxos_pcp_marking_and_bad_input() {
    // PCP marking: classes match CoS. RoCE on priority 5 in queue 2 (not qos-group 5, which
    // Cisco's PFC guidelines recommend), the default class in queue 1.
    let yaml = nxos()
        .replace("marking: dscp", "marking: pcp\n    vlan: 10")
        .replace("priority: 3, dscp: [26], lossless: true,", "priority: 5, queue: 2, lossless: true,")
        .replace("{name: default, priority: 0, dscp: [0], ets: 10}", "{name: default, priority: 0, queue: 1, ets: 10}")
        .replace(
            "{name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}",
            "{name: cnp, priority: 6, strict: true, cnp: true}",
        )
        .replace("kmin: 150KB, kmax: 1500KB", "kmin: 150KiB, kmax: 1500KiB");
    let f = fabric(&yaml);
    let (text, findings) = device_text(&f, "sw");
    let m = messages(&findings);
    assert!(m.contains("no-drop on CoS 5 in qos-group 2"), "{m}");
    assert!(!m.contains("kbytes"), "KiB thresholds are whole kbytes: {m}");
    assert_sequence(
        &text,
        &[
            "class-map type qos match-any ROCELAB-ROCE",
            "  match cos 5",
            "  class ROCELAB-ROCE",
            "    set qos-group 2",
            "  class class-default",
            "    set qos-group 1",
            "  class type network-qos c-8q-nq2",
            "    pause pfc-cos 5",
            "    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 1 weight 0 ecn",
        ],
    );
}

// ---- Dell SmartFabric OS10 ----

#[test]
fn os10_representation_as_data() {
    let f = fabric(&os10());
    let Typed::DellOs10(c) = typed(&f, "sw") else { panic!("not os10") };
    assert_eq!(c.trust, "dscp");
    let tm: Vec<(u8, &str)> = c.trust_map.iter().map(|t| (t.qos_group, t.values.as_str())).collect();
    assert_eq!(tm, vec![(0, "0-25,27-47,49-63"), (3, "26"), (6, "48")]);
    assert_eq!(c.qos_map, vec![0, 3, 6]);
    assert_eq!(c.pfc_classes.len(), 1);
    assert_eq!((c.pfc_classes[0].qos_group, c.pfc_classes[0].pfc_cos.as_str()), (3, "3"));
    assert_eq!(c.wred.len(), 1);
    assert_eq!((c.wred[0].min, c.wred[0].max, c.wred[0].drop_probability), (150, 1500, 1));
    let q: Vec<(u8, bool, Option<u8>, bool)> =
        c.queuing.iter().map(|q| (q.queue, q.strict, q.bandwidth, q.wred.is_some())).collect();
    assert_eq!(q, vec![(0, false, Some(10), false), (3, false, Some(90), true), (6, true, None, false)]);
    assert!(c.interfaces.iter().all(|i| i.mtu == 9022 && i.pfc && i.ets));
}

#[test]
fn golden_os10() {
    let (text, findings) = device_text(&fabric(&os10()), "sw");
    assert!(findings.is_empty(), "{findings:?}");
    assert_sequence(
        &text,
        &[
            "trust dscp-map ROCELAB",
            " qos-group 3 dscp 26",
            "policy-map type network-qos ROCELAB-PFC",
            "  pause",
            "  pfc-cos 3",
            "wred ROCELAB-ECN3",
            " random-detect ecn",
            " trust-map dscp ROCELAB",
            "interface ethernet1/1/1",
            " priority-flow-control mode on",
            " service-policy input type network-qos ROCELAB-PFC",
            " ets mode on",
        ],
    );
    insta::assert_snapshot!("sw.os10.txt", text);
}

#[test]
fn os10_bad_input_is_reported() {
    // A 0 % ETS share, an ECN maximum beyond OS10's WRED range and an MTU whose link MTU is
    // above 9216.
    let yaml = os10()
        .replace("ets: 90, ecn: {kmin: 150KB, kmax: 1500KB", "ets: 100, ecn: {kmin: 150KB, kmax: 20MB")
        .replace("dscp: [0], ets: 10", "dscp: [0], ets: 0")
        .replace("mtu: 9000", "mtu: 9200");
    let f = fabric(&yaml);
    let (text, findings) = device_text(&f, "sw");
    let m = messages(&findings);
    assert!(m.contains("queue 0 (`default`) has no ETS share") && m.contains("rendered 1 %"), "{m}");
    assert!(m.contains("ECN maximum 20000 KB is above OS10's WRED range of 1-12480; rendered 12480"), "{m}");
    assert!(m.contains("MTU 9200 needs a link MTU of 9222, above OS10's 9216"), "{m}");
    assert!(text.contains("maximum-threshold 12480"));
    assert!(text.contains(" mtu 9216"));
}

// ---- Dell Networking OS 9 (FTOS) ----

/// Demartek-style PCP policy (RoCE on priority 5, ETS 90/10) on an S4810.
const OS9_PCP: &str = r#"
fabric:
  name: os9-pcp
  topology:
    devices:
      - {name: s4810, role: switch, platform: dell-os9, model: S4810}
      - {name: h1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-4 Lx, speed: 10G}}
    links:
      - {a: "s4810:TenGigabitEthernet0/0", b: "h1:p0"}
  qos:
    marking: pcp
    vlan: 2
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 90}
      - {name: default, priority: 0, ets: 10}
"#;

#[test]
fn os9_representation_as_data() {
    let f = fabric(OS9_PCP);
    let Typed::DellOs9(c) = typed(&f, "s4810") else { panic!("not os9") };
    assert_eq!(c.dcb, Some(true));
    let m = c.dcb_map.as_ref().unwrap();
    let groups: Vec<(u8, Option<u8>, bool)> = m.groups.iter().map(|g| (g.id, g.bandwidth, g.pfc)).collect();
    assert_eq!(groups, vec![(0, Some(90), true), (1, Some(10), false)]);
    // The S4810's dot1p → queue map 0 0 0 1 2 3 3 3: priorities 6 and 7 share RoCE's queue 3.
    assert_eq!(m.pgid, vec![1, 1, 1, 1, 1, 0, 0, 0]);
    let i = &c.interfaces[0];
    assert_eq!(
        (i.name.as_str(), i.mtu, i.flowcontrol, i.dcb_map.as_deref()),
        ("TenGigabitEthernet 0/0", 1522, Some(false), Some("ROCELAB"))
    );
}

#[test]
fn os9_queue_sharing_and_too_many_lossless_queues() {
    let (text, findings) = device_text(&fabric(OS9_PCP), "s4810");
    let m = messages(&findings);
    assert!(m.contains("priorities 6, 7 share a priority group with a lossless class (roce)"), "{m}");
    assert_sequence(
        &text,
        &[
            "dcb enable",
            "dcb-map ROCELAB",
            " priority-group 0 bandwidth 90 pfc on",
            " priority-group 1 bandwidth 10 pfc off",
            " priority-pgid 1 1 1 1 1 0 0 0",
            "interface TenGigabitEthernet 0/0",
            " flowcontrol rx off tx off",
            " dcb-map ROCELAB",
        ],
    );
    // Three lossless classes in three queues: more than FTOS's two PFC queues per interface, an
    // error; and no ETS at all: an even split, said.
    let yaml = OS9_PCP
        .replace("model: S4810}", "model: S6000, ports: [{names: TenGigabitEthernet0/0-3, speed: 10G}]}")
        .replace(
            "      - {name: roce, priority: 5, lossless: true, ets: 90}\n      - {name: default, priority: 0, ets: 10}",
            "      - {name: roce, priority: 5, lossless: true}\n      - {name: fcoe, priority: 3, lossless: true}\n      - {name: iscsi, priority: 4, lossless: true}\n      - {name: default, priority: 0}",
        );
    let f = fabric(&yaml);
    let (_, findings) = device_text(&f, "s4810");
    let err = findings.iter().find(|w| w.is_error()).expect("an error");
    assert!(err.message.contains("3 lossless priority queues, but FTOS enables PFC on at most 2"), "{}", err.message);
    assert!(messages(&findings).contains("the fabric gives no ETS shares"), "{findings:?}");
}

#[test]
fn golden_os9_equallogic_link_pause() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dell-equallogic-base-san.yaml");
    let loaded = rocelab_model::load_file(&path).unwrap();
    let r = render(&loaded.fabric, &Templates::builtin()).unwrap();
    let sw = r.files.iter().find(|f| f.file_name == "san-sw1.os9.txt").expect("the S4810 is rendered now");
    assert_sequence(
        &sw.text,
        &["no dcb enable", "interface TenGigabitEthernet 0/0", " mtu 9018", " flowcontrol rx on tx on"],
    );
    assert!(!r.findings.iter().any(|w| w.device.starts_with("san-sw")), "{:?}", r.findings);
    insta::assert_snapshot!("san-sw1.os9.txt", sw.text);
}

#[test]
fn new_platforms_in_the_runbook() {
    for (yaml, file, check) in [
        (cumulus(), "sw.nvue.sh", "`nv show qos roce`"),
        (nxos(), "sw.nxos.txt", "`show interface priority-flow-control`"),
        (os10(), "sw.os10.txt", "`show interface ethernet 1/1/1 priority-flow-control details`"),
        (OS9_PCP.to_string(), "s4810.os9.txt", "`show interfaces TenGigabitEthernet 0/0 pfc detail`"),
    ] {
        let r = render(&fabric(&yaml), &Templates::builtin()).unwrap();
        assert!(r.files.iter().any(|f| f.file_name == file), "{file}");
        assert!(r.runbook.contains(&format!("`{file}`")), "{file} in the runbook");
        assert!(r.runbook.contains(check), "{check} in:\n{}", r.runbook);
    }
}

/// Bonded hosts on five switches: `h1` (LACP) on SONiC `s1`, `h2` (MLAG) across SONiC `s1` and
/// `s2`, `h3` (MLAG) across Cumulus `c1` and `c2`, `h4` (LACP) and `h5` (active-backup) on
/// Arista `a1`, and Windows `w1` (LACP, rendered as a switch-independent SET team) on `c1`.
const LAGS: &str = r#"
fabric:
  name: lags
  topology:
    devices:
      - {name: s1, role: switch, platform: sonic, ports: [{names: Ethernet0-3, speed: 100G}]}
      - {name: s2, role: switch, platform: sonic, ports: [{names: Ethernet0-3, speed: 100G}]}
      - {name: c1, role: switch, platform: nvidia-cumulus, ports: [{names: swp1-4, speed: 100G}]}
      - {name: c2, role: switch, platform: nvidia-cumulus, ports: [{names: swp1-4, speed: 100G}]}
      - {name: a1, role: switch, platform: arista-eos, ports: [{names: Ethernet1-4, speed: 100G}]}
      - {name: h1, role: host, os: linux, bonding: lacp, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}}
      - {name: h2, role: host, os: linux, bonding: mlag, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}}
      - {name: h3, role: host, os: linux, bonding: mlag, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}}
      - {name: h4, role: host, os: linux, bonding: lacp, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}}
      - {name: h5, role: host, os: linux, bonding: active-backup, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}}
      - {name: w1, role: host, os: windows, bonding: lacp, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}}
    links:
      - {a: "s1:Ethernet0", b: "h1:p0"}
      - {a: "s1:Ethernet1", b: "h1:p1"}
      - {a: "s1:Ethernet2", b: "h2:p0"}
      - {a: "s2:Ethernet2", b: "h2:p1"}
      - {a: "c1:swp1", b: "h3:p0"}
      - {a: "c2:swp1", b: "h3:p1"}
      - {a: "a1:Ethernet1", b: "h4:p0"}
      - {a: "a1:Ethernet2", b: "h4:p1"}
      - {a: "a1:Ethernet3", b: "h5:p0"}
      - {a: "a1:Ethernet4", b: "h5:p1"}
      - {a: "c1:swp3", b: "w1:p0"}
      - {a: "c1:swp4", b: "w1:p1"}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
"#;

#[test]
fn switches_facing_an_lacp_bond_run_a_port_channel_over_their_ports() {
    let f = fabric(LAGS);
    // SONiC: PORTCHANNEL and PORTCHANNEL_MEMBER rows, numbered by the bond (h1 1, h2 2), the
    // MLAG's number the same on both switches of the pair.
    let (text, findings) = device_text(&f, "s1");
    let db: serde_json::Value = serde_json::from_str(&text).unwrap();
    let channels = &db["PORTCHANNEL"];
    assert_eq!(channels["PortChannel1"], serde_json::json!({"admin_status": "up", "min_links": "1", "mtu": "9000"}));
    assert_eq!(channels.as_object().unwrap().len(), 2, "{channels}");
    let members: Vec<&String> = db["PORTCHANNEL_MEMBER"].as_object().unwrap().keys().collect();
    assert_eq!(members, ["PortChannel1|Ethernet0", "PortChannel1|Ethernet1", "PortChannel2|Ethernet2"]);
    // QoS stays on the member ports.
    assert_eq!(db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"], "3", "{}", db["PORT_QOS_MAP"]);
    let (text2, findings2) = device_text(&f, "s2");
    let db2: serde_json::Value = serde_json::from_str(&text2).unwrap();
    let members2: Vec<&String> = db2["PORTCHANNEL_MEMBER"].as_object().unwrap().keys().collect();
    assert_eq!(members2, ["PortChannel2|Ethernet2"]);
    for (sw, w) in [("s1", &findings), ("s2", &findings2)] {
        let m: Vec<_> = w.iter().filter(|x| x.message.contains("MLAG pair")).collect();
        assert_eq!(m.len(), 1, "{sw}: {w:?}");
        assert!(
            m[0].message.starts_with("h2's bond spans an MLAG pair: rendered its port-channel with MLAG id 2;"),
            "{}",
            m[0].message
        );
        assert!(m[0].message.contains("`MCLAG_DOMAIN`"));
    }
    // Cumulus: a bond with its members and MLAG id; Windows' SET team needs none.
    let (text, findings) = device_text(&f, "c1");
    assert_sequence(
        &text,
        &[
            "nv set interface bond3 bond member swp1",
            "nv set interface bond3 link mtu 9000",
            "nv set interface bond3 bond mlag id 3",
            "nv config apply --assume-yes",
        ],
    );
    assert!(!text.contains("bond member swp3"), "w1 gets no bond: {text}");
    assert!(findings.iter().any(|w| w.message.contains("`peerlink` bond")), "{findings:?}");
    // A platform that does not render port-channels says what to configure; active-backup
    // needs nothing.
    let (_, findings) = device_text(&f, "a1");
    let w: Vec<_> = findings.iter().filter(|w| w.message.contains("port-channels")).collect();
    assert_eq!(w.len(), 1, "{findings:?}");
    assert_eq!(
        w[0].message,
        "h4's bond runs LACP on Ethernet1, Ethernet2: rocelab does not render port-channels on arista-eos; configure one over them with LACP active (rocelab numbers it 4), the QoS staying as rendered on each member"
    );
    // The runbook checks the port-channels.
    let runbook = render(&f, &Templates::builtin()).unwrap().runbook;
    assert!(
        runbook.contains("| `show interfaces portchannel` | PortChannel1 LACP(A)(Up) with Ethernet0(S) Ethernet1(S); PortChannel2 LACP(A)(Up) with Ethernet2(S) |"),
        "{runbook}"
    );
    assert!(
        runbook.contains("| `nv show interface bond3 bond` | member swp1; mlag id 3; LACP up with h3 |"),
        "{runbook}"
    );
}
