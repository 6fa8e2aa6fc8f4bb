//! `rocelab check` from fabric files and imported configurations: the example fabrics under
//! `tests/fabrics/` each trigger what their comments say, and the healthy ones trigger nothing.

use rocelab_verify::{check, from_intent, Severity};
use std::path::{Path, PathBuf};

fn fabrics() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fabrics")
}

fn findings(name: &str) -> Vec<rocelab_verify::Finding> {
    let loaded = rocelab_model::load_file(&fabrics().join(name)).expect("fabric loads");
    check(&from_intent(&loaded.fabric))
}

fn ids(f: &[rocelab_verify::Finding], s: Severity) -> Vec<&'static str> {
    f.iter().filter(|f| f.severity == s).map(|f| f.id).collect()
}

#[test]
fn a_healthy_leaf_spine_is_clean() {
    let f = findings("healthy-leaf-spine.yaml");
    assert!(f.is_empty(), "{f:#?}");
}

/// The seed examples model each guide as it is configured, so the errors `check` finds in them
/// are the guides' own: exactly these, and nothing else.
#[test]
fn the_seed_examples_have_only_the_errors_of_their_guides() {
    // (example, rule, device:port of the first finding): why the guide's configuration has it.
    let expected: &[(&str, &str, &str)] = &[
        // "For this topology, only PFC is used as the congestion control mechanism", while every
        // adapter runs DCQCN ("configured for lossless transport using PFC and ECN").
        ("arista-pure-single-hop-25g", "ECN-OFF", "sw1:Ethernet49/1"),
        ("arista-pure-single-hop-100g", "ECN-OFF", "sw1:Ethernet49/1"),
        // The base of the leaf-spine files is the paper's "PFC alone" mode, adapters with DCQCN.
        ("arista-pure-leaf-spine-25g", "ECN-OFF", "leaf1:Ethernet49/1"),
        ("arista-pure-leaf-spine-100g", "ECN-OFF", "leaf1:Ethernet49/1"),
        // Demartek's HPE 5900 steps put the WRED/ECN table on queue 5, but map RoCE (dot1p 5) to
        // local precedence 1: the HPE never marks RoCE, though DCQCN is on.
        ("demartek-config5-linux-iser-nfs", "ECN-OFF", "hpe5900:FortyGigE1/0/49"),
        // The tuning example runs configuration 4's "Congestion 2 Switch with DCQCN and ETS" test
        // as its base: the same HPE 5900 queue mapping.
        ("tune-demartek-congestion", "ECN-OFF", "hpe5900:FortyGigE1/0/49"),
    ];
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut seen = 0;
    for e in std::fs::read_dir(ex).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue; // e.g. examples/hpcc-import/, files in the HPCC simulator's formats
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let loaded = rocelab_model::load_file(&path).unwrap();
        let f = check(&from_intent(&loaded.fabric));
        let got: Vec<(&str, String)> = f
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| (f.id, format!("{}:{}", f.device, f.port.as_deref().unwrap_or(""))))
            .collect();
        let want: Vec<(&str, String)> =
            expected.iter().filter(|e| e.0 == name).map(|e| (e.1, e.2.to_string())).collect();
        seen += want.len();
        assert_eq!(got, want, "{}: {f:#?}", path.display());
    }
    assert_eq!(seen, expected.len(), "an expected example is missing from examples/");
}

#[test]
fn a_ring_is_caught_with_the_cycle_that_closes_it() {
    let f = findings("ring-deadlock.yaml");
    assert_eq!(ids(&f, Severity::Error), ["DEADLOCK-CYCLE"]);
    let c = &f[0];
    assert_eq!(c.class.as_deref(), Some("roce (priority 3)"));
    assert!(
        c.what.starts_with("cyclic buffer dependency on lossless priority 3: s1:p2 → s2:p3, s2:p2 → s3:p3, s3:p2 → s4:p3, s4:p2 → s1:p3, then back to the first"),
        "{}",
        c.what
    );
}

#[test]
fn every_deviation_of_the_misconfigured_fabric_is_found_where_it_is() {
    let f = findings("misconfigured.yaml");
    let at = |id: &str| -> Vec<String> {
        f.iter()
            .filter(|x| x.id == id && x.severity != Severity::Note)
            .map(|x| format!("{}{}", x.device, x.port.as_ref().map(|p| format!(":{p}")).unwrap_or_default()))
            .collect()
    };
    assert_eq!(at("MAP-TOS"), ["h1:p0"]);
    assert_eq!(at("MAP-DSCP"), ["leaf2:Ethernet3"]);
    assert_eq!(at("PFC-MISSING"), ["spine:Ethernet0"]);
    assert_eq!(at("PFC-LINK-PAUSE"), ["h2:p0"]);
    assert_eq!(at("HEADROOM-SHORT"), ["leaf1:Ethernet4"]);
    assert_eq!(at("ECN-ABOVE-XOFF"), ["leaf2:Ethernet0"]);
    assert_eq!(at("DCQCN-OFF"), ["h3:p0"]);
    assert_eq!(at("DCQCN-CNP"), ["h3:p0"]);
    assert_eq!(at("MTU-MISMATCH"), ["leaf2:Ethernet1"]);
    assert_eq!(at("MTU-SMALL"), ["leaf2:Ethernet1"]);
    assert_eq!(at("DCBX-WILLING"), ["leaf1:Ethernet4"]);
    assert_eq!(at("VXLAN-ECN"), ["leaf1"]);
    assert_eq!(at("BOND-RDMA"), ["h2"]);
    assert_eq!(at("BOND-MLAG-PAIR"), ["h2"], "an MLAG bond with one link, to one switch");
    let h = f.iter().find(|x| x.id == "HEADROOM-SHORT").unwrap();
    // 100 m at 100G: 2 × 500 ns is 100,000 bits, 12,500 bytes of the required figure.
    assert!(h.what.contains("12500 cable round trip (2 × 500ns (100m) × 100G)"), "{}", h.what);
}

#[test]
fn imported_arista_and_sonic_configs_are_checked_and_unread_lines_reported() {
    let imp = rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&fabrics().join("import-links.yaml")))
        .unwrap();
    let nu: Vec<String> = imp
        .not_understood
        .iter()
        .map(|u| format!("{}:{} {}", Path::new(&u.file).file_name().unwrap().to_string_lossy(), u.line, u.text))
        .collect();
    assert_eq!(nu, ["leaf1.cfg:30 service-policy type qos input pm-RoCE", "leaf1.cfg:32 ip routing"]);
    // SYSLOG_SERVER does not bear on QoS: counted, not listed.
    assert!(imp.ignored >= 1, "{}", imp.ignored);
    assert!(imp.findings.is_empty(), "{:?}", imp.findings);
    let f = check(&imp.state);
    let got: Vec<(&str, &str, Option<&str>)> = f.iter().map(|f| (f.id, f.device.as_str(), f.port.as_deref())).collect();
    // EOS 9214 (layer-3 MTU) against SONiC 9100 (IP MTU): both carry RoCE 4096, no mismatch.
    assert_eq!(got, [("PFC-MISSING", "leaf2", Some("Ethernet4"))]);
    let pfc = &f[0];
    let loc = pfc.location.as_ref().unwrap();
    assert!(loc.file.ends_with("leaf2.json") && loc.line == 5, "{loc:?}");
}

#[test]
fn a_bad_links_file_is_a_located_error() {
    let dir = std::env::temp_dir().join(format!("rocelab-verify-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let links = dir.join("links.yaml");
    std::fs::write(&links, "links:\n  - {a: \"leaf1:Ethernet1/1\", b: \"leaf3:Ethernet0\"}\n").unwrap();
    let e = rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&links)).unwrap_err();
    assert!(e.0.ends_with("links.yaml:2:33: links[0].b: no device `leaf3`; did you mean \"leaf1\"?"), "{e}");
    std::fs::write(&links, "links:\n  - {a: \"leaf1:Ethernet9\", b: \"leaf2:Ethernet0\"}\n").unwrap();
    let e = rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&links)).unwrap_err();
    assert!(e.0.ends_with("links.yaml:2:9: links[0].a: device `leaf1` has no port `Ethernet9` in its configuration; did you mean \"Ethernet1/1\"?"), "{e}");
    std::fs::write(&links, "linx: []\n").unwrap();
    let e = rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&links)).unwrap_err();
    assert!(e.0.contains("unknown field `linx`"), "{e}");
    // A links file past the size limit (sparse: nothing is written or read) is refused.
    std::fs::File::create(&links).unwrap().set_len(rocelab_model::input::MAX_DEVICE_OUTPUT_BYTES + 1).unwrap();
    let e = rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&links)).unwrap_err();
    assert!(e.0.contains("is 16777217 bytes, more than the 16777216 bytes rocelab reads for an imported file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sarif_has_rules_results_levels_and_locations() {
    let f = findings("misconfigured.yaml");
    let s = rocelab_verify::render::sarif(&f, "misconfigured.yaml");
    assert_eq!(s["version"], "2.1.0");
    let run = &s["runs"][0];
    assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), rocelab_verify::RULES.len());
    let r = &run["results"][0];
    assert_eq!(r["level"], "error");
    assert!(r["ruleId"].as_str().is_some());
    assert_eq!(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "misconfigured.yaml");
    let idx = r["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(run["tool"]["driver"]["rules"][idx]["id"], r["ruleId"]);
}

/// Onyx, EOS, `mlnx_qos` and Windows captures in one directory, cabled by EOS LLDP output and a
/// links file for the one cable LLDP does not see. Each finding is one the captures were written
/// to have: Onyx's uplink group reserves 20480 B with XOFF at 18432 (2 KB of headroom); EOS's
/// maximum MTU 9214 meets Onyx's 9216; node1's adapter has PFC off; Windows classifies by 802.1p
/// on a DSCP fabric.
#[test]
fn onyx_mlnx_qos_and_windows_captures_cabled_by_lldp_are_checked() {
    let dir = fabrics().join("import-mixed");
    let imp = rocelab_verify::import::import_dir(&dir, Some(&fabrics().join("import-mixed-links.yaml"))).unwrap();
    let nu: Vec<String> = imp
        .not_understood
        .iter()
        .map(|u| format!("{}:{} {}", Path::new(&u.file).file_name().unwrap().to_string_lossy(), u.line, u.text))
        .collect();
    // leaf1's `Management1` row is its management port and sn2410's `clock timezone` is system
    // management: counted as ignored, not listed.
    assert!(nu.is_empty(), "{nu:?}");
    assert!(imp.ignored >= 1, "{}", imp.ignored);
    assert!(imp.findings.is_empty(), "{:?}", imp.findings);
    let s = &imp.state;
    let names: Vec<(&str, Option<&str>, usize)> =
        s.devices.iter().map(|d| (d.name.as_str(), d.platform.as_deref(), d.ports.len())).collect();
    assert_eq!(
        names,
        [
            ("leaf1", Some("arista-eos"), 2),
            ("node1", Some("linux"), 1),
            ("node2", Some("windows"), 1),
            ("sn2410", Some("nvidia-onyx"), 2)
        ]
    );
    // Three cables: two from LLDP (node1 by its FQDN, sn2410 by EOS's `Eth1/49`), one from YAML.
    assert_eq!(s.links.len(), 3);
    let f = check(s);
    let got: Vec<(&str, &str, Option<&str>)> = f.iter().map(|f| (f.id, f.device.as_str(), f.port.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("HEADROOM-SHORT", "sn2410", Some("eth1/49")),
            ("MAP-TRUST", "node2", Some("SLOT 2 Port 1")),
            ("PFC-MISSING", "node1", Some("ens1f0np0")),
            // node2.txt shows `Get-NetQosDcbxSetting` Willing True: its NetQos settings are
            // not sent to the adapter.
            ("DCBX-WILLING", "node2", Some("SLOT 2 Port 1")),
        ]
    );
    assert!(f[0].what.starts_with("priority group 3 has 2048 B of headroom; leaf1:Ethernet49/1 at 100G over 3m needs"));
    let loc = f[2].location.as_ref().unwrap();
    assert!(loc.file.ends_with("node1.txt") && loc.line == 1, "{loc:?}");
}

#[test]
fn lldp_alone_cables_the_fabric_and_unconfigured_neighbours_become_hosts() {
    // Without a links file: leaf1's LLDP table cables node1 and sn2410; node2 is not cabled.
    let imp = rocelab_verify::import::import_dir(&fabrics().join("import-mixed"), None).unwrap();
    assert_eq!(imp.state.links.len(), 2);
    // node2, imported but not cabled, is a finding rather than silently unchecked.
    let f: Vec<(&str, &str)> = imp.findings.iter().map(|f| (f.id, f.device.as_str())).collect();
    assert_eq!(f, [("IMPORT-UNCABLED", "node2")]);
    // An LLDP table as --links: SONiC's view of a host with no configuration file.
    let dir = std::env::temp_dir().join(format!("rocelab-verify-lldp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lldp = dir.join("leaf2.lldp.txt");
    std::fs::write(
        &lldp,
        "admin@leaf2:~$ show lldp table\nCapability codes: (R) Router, (B) Bridge, (O) Other\nLocalPort    RemoteDevice    RemotePortID    Capability    RemotePortDescr\n-----------  --------------  --------------  ------------  -----------------\nEthernet4    host7           ens2f0          R\nEthernet8    host8           ens2f0          R\n--------------------------------------------------\nTotal entries displayed:  2\n",
    )
    .unwrap();
    let imp = rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&lldp)).unwrap();
    let host7 = imp.state.devices.iter().find(|d| d.name == "host7").expect("host7 added from LLDP");
    assert!(host7.rdma && host7.ports[0].link.is_some());
    assert!(imp.not_understood.iter().any(
        |u| u.line == 6 && u.text == "Ethernet8 host8 ens2f0: `leaf2` has no port `Ethernet8` in its configuration"
    ));
    // No cabling at all is an error that says what to give.
    let e = rocelab_verify::import::import_dir(&fabrics().join("import"), None).unwrap_err();
    assert!(
        e.0.contains(
            "no cabling: no LLDP neighbour output among its 2 files: leaf1.cfg (a configuration), leaf2.json (a \
             configuration); give --links LINKS.yaml"
        ),
        "{e}"
    );
}

/// A class's switch traffic class (`queue`) carries its ETS share and ECN, as `rocelab config`
/// renders them (Demartek's Onyx steps: priority 5 on traffic class 2), also where a port moves
/// the class to another queue (HPE local precedence 1).
#[test]
fn the_class_queue_carries_ets_and_ecn() {
    let yaml = r#"
fabric:
  name: queues
  topology:
    devices:
      - {name: sw1, role: switch, platform: nvidia-onyx, model: SN2410}
      - {name: sw2, role: switch, platform: nvidia-onyx, model: SN2410}
      - {name: h1, role: host, nic: {vendor: nvidia, model: ConnectX-5, speed: 25G}}
      - {name: h2, role: host, nic: {vendor: nvidia, model: ConnectX-5, speed: 25G}}
    links:
      - {a: "sw1:eth1/1", b: "h1:p0"}
      - {a: "sw2:eth1/1", b: "h2:p0"}
      - {a: "sw1:eth1/49", b: "sw2:eth1/49"}
  qos:
    marking: pcp
    vlan: 2
    mtu: 9000
    classes:
      - {name: roce, priority: 5, queue: 2, lossless: true, ets: 90, ecn: {kmin: 150KB, kmax: 1500KB, pmax: 0.01}}
      - {name: default, priority: 0, ets: 10}
    dcqcn: {enabled: true}
"#;
    let loaded = rocelab_model::load_str(yaml, "queues.yaml", &fabrics()).expect("fabric loads");
    let s = from_intent(&loaded.fabric);
    let q = &s.profiles[s.devices[0].ports[0].qos as usize];
    assert_eq!(
        (q.priority_to_queue[5], q.sched[2], q.ecn[2].map(|e| e.kmin)),
        (2, rocelab_verify::state::Sched::Ets(90), Some(150_000))
    );
    assert!(check(&s).is_empty(), "{:#?}", check(&s));
    let moved = yaml.replace(
        "dcqcn: {enabled: true}",
        "dcqcn: {enabled: true}\n    ports: [{ports: [\"sw2:eth1/49\"], queue: {roce: 1}}]",
    );
    let loaded = rocelab_model::load_str(&moved, "queues.yaml", &fabrics()).expect("fabric loads");
    let s = from_intent(&loaded.fabric);
    let q = &s.profiles[s.devices[1].ports.iter().find(|p| p.name == "eth1/49").unwrap().qos as usize];
    assert_eq!(
        (q.priority_to_queue[5], q.sched[1], q.ecn[1].is_some(), q.ecn[2].is_some()),
        (1, rocelab_verify::state::Sched::Ets(90), true, false)
    );
    assert!(check(&s).is_empty(), "{:#?}", check(&s));
}

/// A leaf-spine of 100G host ports and 400G uplinks whose ECN thresholds, alpha, headroom and
/// reserve are given per link speed (`tests/fabrics/two-speed-ecn.yaml` works the figures out):
/// each port is judged with its own ECN thresholds against the XOFF point of its own alpha and
/// reserve, so the 100G Kmax above its XOFF point is a note on the host ports only, and the 400G
/// Kmax, below its port's (higher) XOFF point, is none. The 25G entries of the maps, a speed no
/// port runs at, are no finding either.
#[test]
fn each_port_of_a_two_speed_switch_is_judged_with_its_own_ecn_alpha_and_reserve() {
    let f = findings("two-speed-ecn.yaml");
    assert_eq!(f.len(), 1, "{f:#?}");
    let n = &f[0];
    assert_eq!((n.id, n.severity), ("ECN-ABOVE-XOFF", Severity::Note));
    assert_eq!((n.device.as_str(), n.port.as_deref()), ("leaf1", Some("Ethernet0")));
    assert_eq!(
        n.what,
        "ECN Kmax 4000000 B is above the XOFF point of about 3490254 B of one congested ingress (this port's alpha 0.125, reserve 4096 B) (also on 3 other ports: leaf1:Ethernet4, leaf2:Ethernet0, leaf2:Ethernet4)"
    );
}

/// The same fabric with one alpha for every speed: the 400G ports' XOFF point falls to what a
/// 1/8 share of the pool gives, below their 6.4 MB Kmax, and the uplinks are reported too, each
/// with its own switch's figure (the spine's pool holds two 400G ports' headroom).
#[test]
fn one_alpha_for_both_speeds_moves_the_400g_xoff_point_below_its_kmax() {
    let path = fabrics().join("two-speed-ecn.yaml");
    let yaml =
        std::fs::read_to_string(&path).unwrap().replace("alpha: {25G: 0.0625, 100G: 0.125, 400G: 0.5}", "alpha: 0.125");
    let loaded = rocelab_model::load_str(&yaml, "two-speed-ecn.yaml", &fabrics()).unwrap_or_else(|d| panic!("{d:?}"));
    let f = check(&from_intent(&loaded.fabric));
    let got: Vec<(String, &str)> = f
        .iter()
        .map(|x| {
            assert_eq!((x.id, x.severity), ("ECN-ABOVE-XOFF", Severity::Note), "{x:#?}");
            (format!("{}:{}", x.device, x.port.as_deref().unwrap_or("")), x.what.as_str())
        })
        .collect();
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(got.iter().any(|(p, w)| p == "leaf1:Ethernet0" && w.contains("about 3490254 B")), "{got:#?}");
    // Leaf uplinks: 16,384 + 0.125 × 31,375,424 / 1.125; spine ports: 16,384 + 0.125 ×
    // (32,000,000 − 800,000 − 32,768) / 1.125.
    assert!(
        got.iter().any(|(_, w)| w.starts_with("ECN Kmax 6400000 B is above the XOFF point of about 3502542 B")
            && w.contains("(this port's alpha 0.125, reserve 16384 B)")),
        "{got:#?}"
    );
    assert!(got.iter().any(|(p, w)| p.starts_with("spine1:") && w.contains("about 3479409 B")), "{got:#?}");
}

/// Headroom given per speed is judged per port: 50 KB is short at 400G (the 1.5 µs response
/// alone is 75,000 bytes there) and ample at 100G, so only the 400G ports are reported.
#[test]
fn headroom_given_per_speed_is_short_on_the_400g_ports_only() {
    let path = fabrics().join("two-speed-ecn.yaml");
    let yaml = std::fs::read_to_string(&path)
        .unwrap()
        .replace("headroom: {100G: 100KB, 400G: 400KB}", "headroom: {100G: 100KB, 400G: 50KB}");
    let loaded = rocelab_model::load_str(&yaml, "two-speed-ecn.yaml", &fabrics()).unwrap_or_else(|d| panic!("{d:?}"));
    let f = check(&from_intent(&loaded.fabric));
    let short: Vec<&rocelab_verify::Finding> = f.iter().filter(|x| x.id == "HEADROOM-SHORT").collect();
    assert!(!short.is_empty(), "{f:#?}");
    for x in &short {
        assert!(x.what.starts_with("priority group 3 has 50000 B of headroom"), "{}", x.what);
        assert!(x.what.contains(" at 400G over "), "{}", x.what);
    }
    // Every 400G port (two leaf uplinks, two spine ports), and no 100G port.
    assert_eq!(short.len(), 4, "{short:#?}");
}

/// A folder as engineers capture it: SONiC's `config_db.json` (with aliases and NTP/syslog
/// tables), its `show lldp neighbors` naming a ConnectX host by MAC, an EOS switch whose
/// `show lldp neighbors detail` names SONiC's port by its alias, and a host captured but cabled
/// by no table. Every link is placed, the management rows and tables are counted, and the
/// uncabled host is the one import finding.
#[test]
fn lldp_as_devices_print_it_cables_by_alias_and_mac_and_reports_the_uncabled() {
    let dir = std::env::temp_dir().join(format!("rocelab-verify-lldp-real-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        (
            "leaf2.json",
            r#"{
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}},
    "PORT": {
        "Ethernet0": {"alias": "etp1", "lanes": "0,1,2,3", "mtu": "9100", "speed": "100000"},
        "Ethernet4": {"alias": "etp2", "lanes": "4,5,6,7", "mtu": "9100", "speed": "100000"}
    },
    "NTP_SERVER": {"10.0.0.1": {}},
    "SYSLOG_SERVER": {"10.0.0.5": {}}
}"#,
        ),
        (
            "leaf2.lldp.txt",
            "admin@leaf2:~$ show lldp neighbors
-------------------------------------------------------------------------------
LLDP neighbors:
-------------------------------------------------------------------------------
Interface:    eth0, via: LLDP, RID: 1, Time: 3 days, 01:02:03
  Chassis:
    ChassisID:    mac 00:1c:73:00:00:99
    SysName:      oob-sw
  Port:
    PortID:       ifname Ethernet12
-------------------------------------------------------------------------------
Interface:    Ethernet4, via: LLDP, RID: 2, Time: 0 days, 00:20:00
  Chassis:
    ChassisID:    mac 0c:42:a1:12:34:00
    SysName:      node3
  Port:
    PortID:       mac 0c:42:a1:12:34:56
    PortDescr:    ens1f0np0
-------------------------------------------------------------------------------
",
        ),
        (
            "spine1.cfg",
            "hostname spine1\nntp server 10.0.0.1\ninterface Ethernet7\n   mtu 9214\n   speed forced 100gfull\n",
        ),
        (
            "spine1.lldp.txt",
            "spine1#show lldp neighbors detail
Interface Ethernet7 detected 1 LLDP neighbors:

  Neighbor 0c42.a100.0002/etp1, age 5 seconds
  Discovered 1 day, 2:03:04 ago; Last changed 1 day, 2:03:04 ago
    - Chassis ID type: MAC address (4)
      Chassis ID     : 0c42.a100.0002
    - Port ID type: Locally assigned (7)
      Port ID     : \"etp1\"
    - Time To Live: 120 seconds
    - Port Description: \"to spine1\"
    - System Name: \"leaf2\"
",
        ),
        (
            "node3.txt",
            "[root@node3 ~]# ip link show ens1f0np0
4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:12:34:56 brd ff:ff:ff:ff:ff:ff
[root@node3 ~]# mlnx_qos -i ens1f0np0
DCBX mode: OS controlled
Priority trust state: dscp
PFC configuration:
\tpriority    0   1   2   3   4   5   6   7
\tenabled     0   0   0   1   0   0   0   0
",
        ),
        (
            "node4.txt",
            "[root@node4 ~]# mlnx_qos -i ens1f0np0
DCBX mode: OS controlled
Priority trust state: dscp
PFC configuration:
\tpriority    0   1   2   3   4   5   6   7
\tenabled     0   0   0   1   0   0   0   0
",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let imp = rocelab_verify::import::import_dir(&dir, None).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(imp.not_understood.is_empty(), "{:?}", imp.not_understood);
    let s = &imp.state;
    let mut links: Vec<String> = s
        .links
        .iter()
        .map(|l| format!("{}:{} - {}:{}", s.device(l.a).name, s.port(l.a).name, s.device(l.b).name, s.port(l.b).name))
        .collect();
    links.sort();
    assert_eq!(links, ["leaf2:Ethernet4 - node3:ens1f0np0", "spine1:Ethernet7 - leaf2:Ethernet0"]);
    // SONiC's eth0 is its management port: no link to Ethernet0, no device `oob-sw`.
    assert!(s.devices.iter().all(|d| d.name != "oob-sw"));
    let f: Vec<(&str, &str)> = imp.findings.iter().map(|f| (f.id, f.device.as_str())).collect();
    assert_eq!(f, [("IMPORT-UNCABLED", "node4")]);
    // NTP_SERVER, SYSLOG_SERVER, spine1's `ntp server`, and leaf2's eth0 row.
    assert_eq!(imp.ignored, 4);
}

#[test]
fn a_sonic_lossless_queue_without_a_scheduler_is_found() {
    let dir = std::env::temp_dir().join(format!("rocelab-verify-noscheduler-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fabrics().join("import/leaf1.cfg"), dir.join("leaf1.cfg")).unwrap();
    let leaf2 = std::fs::read_to_string(fabrics().join("import/leaf2.json")).unwrap();
    // Ethernet0's queues lose their schedulers (no ETS on the port at all); the lossless one
    // keeps its WRED profile.
    let unbound = leaf2
        .replace(
            r#""Ethernet0|3": {"scheduler": "scheduler.0", "wred_profile": "AZURE_LOSSLESS"}"#,
            r#""Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}"#,
        )
        .replace(r#""Ethernet0|0": {"scheduler": "scheduler.0"},"#, "");
    assert_ne!(unbound, leaf2);
    std::fs::write(dir.join("leaf2.json"), unbound).unwrap();
    let imp = rocelab_verify::import::import_dir(&dir, Some(&fabrics().join("import-links.yaml"))).unwrap();
    let f = check(&imp.state);
    std::fs::remove_dir_all(&dir).unwrap();
    let e = f.iter().find(|f| f.id == "ETS-LOSSLESS").unwrap_or_else(|| panic!("{f:#?}"));
    assert_eq!((e.device.as_str(), e.port.as_deref()), ("leaf2", Some("Ethernet0")));
    assert!(e.what.contains("queue 3 of lossless priority 3 has no scheduler"), "{}", e.what);
}

/// A host's MTU is its own, read from the `ip link` output in its capture, not assumed to be
/// its switch port's: node1 at 1500 behind leaf1's 9214 cannot carry RoCE 4096 frames and is
/// found; at 9000 (an IP MTU, as EOS's 9214 is) it is clean.
#[test]
fn a_hosts_mtu_comes_from_its_own_ip_link_output() {
    let run = |mtu: u32| {
        let dir = std::env::temp_dir().join(format!("rocelab-verify-host-mtu-{mtu}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(fabrics().join("import-mixed")).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
        let capture = std::fs::read_to_string(dir.join("node1.txt")).unwrap();
        let ip_link = format!(
            "[root@node1 ~]# ip link show ens1f0np0\n4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu {mtu} qdisc mq state UP mode DEFAULT group default qlen 1000\n    link/ether 0c:42:a1:12:34:56 brd ff:ff:ff:ff:ff:ff\n"
        );
        std::fs::write(dir.join("node1.txt"), ip_link + &capture).unwrap();
        let imp = rocelab_verify::import::import_dir(&dir, Some(&fabrics().join("import-mixed-links.yaml"))).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let node1 = imp.state.devices.iter().position(|d| d.name == "node1").unwrap();
        let port = &imp.state.devices[node1].ports[0];
        assert_eq!(imp.state.profiles[port.qos as usize].mtu, mtu);
        check(&imp.state).into_iter().filter(|f| f.id.starts_with("MTU-")).map(|f| (f.id, f.device)).collect::<Vec<_>>()
    };
    let small = run(1500);
    assert!(small.iter().any(|(_, d)| d == "node1"), "{small:?}");
    assert_eq!(run(9000), []);
}
