//! The fabric of the audit's tests: one switch, three ConnectX hosts, RoCE lossless on
//! priority 3 with DCQCN; PFC off on the switch port of `h3` and on `h3` itself (a `qos.ports`
//! override), so that pause there contradicts the intent; CNPs on priority 6, DSCP 48.

use rocelab_model::ResolvedFabric;

const FABRIC: &str = r#"
fabric:
  name: audit-test
  topology:
    devices:
      - {name: sw1, role: switch, platform: sonic, ports: [{names: Ethernet0, speed: 100G}, {names: Ethernet4, speed: 100G}, {names: Ethernet8, speed: 100G}]}
      - {name: h1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, ports: 1, speed: 100G, port_names: [p0]}}
      - {name: h2, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, ports: 1, speed: 100G, port_names: [p0]}}
      - {name: h3, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, ports: 1, speed: 100G, port_names: [p0]}}
    links:
      - {a: "sw1:Ethernet0", b: "h1:p0", cable: 3m}
      - {a: "sw1:Ethernet4", b: "h2:p0", cable: 3m}
      - {a: "sw1:Ethernet8", b: "h3:p0", cable: 3m}
  qos:
    marking: dscp
    mtu: 9100
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90}
      - {name: default, priority: 0, dscp: [0], ets: 10}
      - {name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}
    dcqcn: {enabled: true}
    ports:
      - {ports: ["sw1:Ethernet8", "h3:p0"], pfc: {roce: false}}
"#;

pub fn fabric() -> ResolvedFabric {
    match rocelab_model::load_str(FABRIC, "audit-test.yaml", std::path::Path::new(".")) {
        Ok(l) => l.fabric,
        Err(d) => panic!("{}", d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")),
    }
}
