//! Hosts' addresses and bonds: what is checked at load, and what a bond of a ConnectX's two
//! ports is.

use super::*;

#[test]
fn host_addresses_are_checked() {
    let ok = BASE.replace(
        "speed: 25G, speeds: [10G]}}\n      - {name: node2",
        "speed: 25G, speeds: [10G], addresses: [10.0.2.31/24]}}\n      - {name: node2",
    );
    let loaded = load(&ok).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(loaded.fabric.devices.iter().find(|d| d.name == "node1").unwrap().nics[0].addresses, ["10.0.2.31/24"]);
    let bad = BASE.replace(
        "speed: 25G, speeds: [10G]}}\n      - {name: node2",
        "speed: 25G, speeds: [10G], addresses: [10.0.2.311/24]}}\n      - {name: node2",
    );
    let e = errors(&bad);
    assert!(e.iter().any(|d| d.path.ends_with("nics[0].addresses[0]") && d.message.contains("not an IPv4")), "{e:?}");
    let two = BASE.replace(
        "speed: 25G, speeds: [10G]}}\n      - {name: node2",
        "speed: 25G, speeds: [10G], addresses: [10.0.2.31/24, 10.0.2.32/24]}}\n      - {name: node2",
    );
    let e = errors(&two);
    assert!(e.iter().any(|d| d.message.contains("2 addresses for 1 ports")), "{e:?}");
    // One address on two ports: an error at the second, naming the first.
    let twice = ok.replace(
        "speed: 25G, speeds: [10G]}}\n    links",
        "speed: 25G, speeds: [10G], addresses: [10.0.2.31/16]}}\n    links",
    );
    assert_ne!(twice, ok);
    let e = errors(&twice);
    let d = e.iter().find(|d| d.message.contains("also")).unwrap_or_else(|| panic!("{e:?}"));
    assert_eq!(d.message, "address `10.0.2.31` of `node2:p0` is also `node1:p0`'s; give each port its own");
    assert!(d.path.ends_with("nics[0].addresses[0]") && d.path.contains("devices[3]"), "{}", d.path);
    assert!(d.line > 0 && d.column > 0, "{d:?}");
    // A bonded host's two ports given the bond's address each: the fix says where it goes.
    let bonded = BASE.replace(
        "{name: node1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G]}}",
        "{name: node1, role: host, os: linux, bonding: lacp, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G, addresses: [10.0.2.31/24, 10.0.2.31/24]}}",
    );
    assert_ne!(bonded, BASE);
    let e = errors(&bonded);
    let d = e.iter().find(|d| d.message.contains("also")).unwrap_or_else(|| panic!("{e:?}"));
    assert_eq!(
        d.message,
        "address `10.0.2.31` of `node1:p1` is also `node1:p0`'s; the bond holds one address: give it to the first member only"
    );
    assert!(d.path.ends_with("devices[2].nics[0].addresses[1]"), "{}", d.path);
}

#[test]
fn a_bond_of_one_connectx_two_ports_is_a_roce_lag() {
    let text = |h1: &str| {
        format!(
            r#"fabric:
  name: lag
  topology:
    devices:
      - {{name: sw, role: switch, platform: sonic, ports: [{{names: Ethernet0-3, speed: 100G}}]}}
      - {h1}
    links:
      - {{a: "sw:Ethernet0", b: "h1:p0"}}
      - {{a: "sw:Ethernet1", b: "h1:p1"}}
  qos:
    marking: dscp
    classes:
      - {{name: roce, priority: 3, dscp: [26], lossless: true}}
"#
        )
    };
    let lag = |h1: &str| {
        let l = load(&text(h1)).unwrap_or_else(|d| panic!("{d:?}"));
        l.fabric.device("h1").unwrap().is_roce_lag()
    };
    let cx = "nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G}";
    assert!(lag(&format!("{{name: h1, role: host, bonding: lacp, {cx}}}")));
    assert!(lag(&format!("{{name: h1, role: host, bonding: active-backup, {cx}}}")));
    assert!(!lag(&format!("{{name: h1, role: host, {cx}}}")), "not bonded");
    assert!(!lag(&format!("{{name: h1, role: host, os: windows, bonding: lacp, {cx}}}")), "a SET team");
    let two_adapters = "nics: [{vendor: mellanox, model: ConnectX-5, speed: 100G}, {vendor: mellanox, model: ConnectX-5, speed: 100G}]";
    assert!(
        !lag(&format!("{{name: h1, role: host, bonding: lacp, {two_adapters}}}")),
        "one port of each of two adapters"
    );
    let broadcom = "nic: {vendor: broadcom, model: BCM57508, ports: 2, speed: 100G}";
    assert!(!lag(&format!("{{name: h1, role: host, bonding: lacp, {broadcom}}}")), "not a ConnectX");
    let four = "nic: {vendor: mellanox, model: ConnectX-5, ports: 4, speed: 100G}";
    assert!(!lag(&format!("{{name: h1, role: host, bonding: lacp, {four}}}")), "not a dual-port card");
}

#[test]
fn show_names_a_hosts_bond_and_addresses() {
    let text = BASE.replace(
        "{name: node1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G]}}",
        "{name: node1, role: host, os: linux, bonding: lacp, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G, addresses: [10.0.2.31/24]}}",
    );
    assert_ne!(text, BASE);
    let l = load(&text.replace("      - {a: \"sw1:eth1/1\", b: \"node1:p0\", cable: 3m}", "      - {a: \"sw1:eth1/1\", b: \"node1:p0\", cable: 3m}\n      - {a: \"sw1:eth1/2\", b: \"node1:p1\", cable: 3m}")).unwrap_or_else(|d| panic!("{d:?}"));
    let s = rocelab_model::display::summary(&l.fabric);
    let line = s.lines().find(|l| l.trim_start().starts_with("node1")).unwrap();
    assert!(line.ends_with("  bond lacp (RoCE LAG)  addresses 10.0.2.31/24"), "{line}");
    let node2 = s.lines().find(|l| l.trim_start().starts_with("node2")).unwrap();
    assert!(!node2.contains("bond") && !node2.contains("addresses"), "{node2}");
}

/// A simulated scenario's hosts must be cabled: said at the device, not by the simulator.
#[test]
fn a_host_without_a_cable_is_an_error_only_where_something_is_simulated() {
    let uncabled = BASE.replace("      - {a: \"sw1:eth1/1\", b: \"node1:p0\", cable: 3m}\n", "");
    assert_ne!(uncabled, BASE);
    // Only configured and checked: a host not cabled yet is allowed.
    load(&uncabled).unwrap_or_else(|d| panic!("{d:?}"));
    let simulated =
        format!("{uncabled}workloads:\n  flows:\n    - {{name: f, from: node2, to: node2, class: roce, rate: 1G}}\n");
    let e = errors(&simulated);
    let d = e.iter().find(|d| d.message.contains("no cabled port")).unwrap_or_else(|| panic!("{e:?}"));
    assert_eq!(d.path, "fabric.topology.devices[2]");
    assert_eq!(d.message, "`node1` has no cabled port, and a simulation needs every host cabled");
    assert_eq!((d.line, d.column), (7, 9));
    assert_eq!(d.suggestion.as_deref(), Some("add a link to a port of `node1`, or remove the device"));
}
