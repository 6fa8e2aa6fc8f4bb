use crate::templates::Templates;
use std::path::Path;

fn runbook(example: &str) -> (rocelab_model::ResolvedFabric, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(example);
    let f = rocelab_model::load_file(&path).unwrap().select(None).unwrap();
    let r = crate::render(&f, &Templates::builtin()).unwrap();
    (f, r.runbook)
}

/// The rows of the runbook's collect section: (device, command, file name).
fn collect_rows(runbook: &str) -> Vec<(String, String, String)> {
    let section = runbook.split("## 5. Collect counters for `rocelab audit`").nth(1).expect("a collect section");
    section
        .lines()
        .filter(|l| l.starts_with("| ") && l.ends_with("` |"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(|c| c.trim().trim_matches('`')).collect();
            // A pipe in a command is escaped so as not to end its table cell (GFM tables).
            (cells[0].to_string(), cells[1].replace("\\|", "|"), cells[2].to_string())
        })
        .collect()
}

#[test]
fn the_collect_section_names_each_command_audit_reads_and_its_file() {
    let (f, text) = runbook("arista-pure-single-hop-100g.yaml");
    let rows = collect_rows(&text);
    assert!(rows.contains(&("sw1".into(), "show priority-flow-control counters".into(), "sw1.pfc.txt".into())));
    // The ECN and queue-drop counters in the `| json` form audit reads, saved as `.json`.
    for (cmd, file) in [
        ("show qos interfaces ecn counters queue | json", "sw1.ecn.json"),
        ("show interfaces counters queue drops | json", "sw1.queue-drops.json"),
    ] {
        assert!(rows.contains(&("sw1".into(), cmd.into(), file.into())), "{cmd}");
    }
    // Each initiator with its one ConnectX port: `ethtool -S` and the RDMA hw_counters of
    // that port, saved under the names `audit` takes the device from.
    for host in ["init1", "init2", "init3", "init4"] {
        let d = f.device(host).unwrap();
        let port = d.ports.iter().find(|p| p.link.is_some()).unwrap();
        assert!(rows.contains(&(host.into(), format!("ethtool -S {}", port.name), format!("{host}.ethtool.txt"))));
        assert!(rows.contains(&(
            host.into(),
            format!("grep . /sys/class/net/{}/device/infiniband/*/ports/1/hw_counters/*", port.name),
            format!("{host}.hw_counters.txt")
        )));
    }
    // Every file the section names starts with a device of the fabric.
    for (device, _, file) in &rows {
        assert!(f.device(device).is_some() && file.starts_with(&format!("{device}.")), "{file}");
    }
}

#[test]
fn sonic_switches_collect_pfc_queue_and_watchdog_counters() {
    let (f, text) = runbook("sim-incast-two-tier.yaml");
    let rows = collect_rows(&text);
    let sonic: Vec<&str> = f
        .devices
        .iter()
        .filter(|d| d.platform == Some(rocelab_model::Platform::Sonic))
        .map(|d| d.name.as_str())
        .collect();
    assert!(!sonic.is_empty());
    for sw in sonic {
        for (cmd, what) in [
            ("show pfc counters", "pfc"),
            ("show queue counters", "queue"),
            ("show queue wredcounters", "wred"),
            ("show pfcwd stats", "pfcwd"),
            ("show priority-group watermark headroom", "pg-headroom"),
            ("show priority-group watermark shared", "pg-shared"),
        ] {
            assert!(rows.contains(&(sw.into(), cmd.into(), format!("{sw}.{what}.txt"))), "{sw} {cmd}");
        }
    }
}

/// A fabric with a Broadcom (bnxt_re) and an Intel (irdma) RoCE host and one without RDMA.
const HOSTS: &str = r#"
fabric:
  name: collect-hosts
  topology:
    devices:
      - {name: sw1, role: switch, platform: sonic, ports: [{names: Ethernet0, speed: 25G}, {names: Ethernet4, speed: 25G}, {names: Ethernet8, speed: 25G}]}
      - {name: b1, role: host, os: linux, nic: {vendor: broadcom, model: BCM957414A4142CC, ports: 1, speed: 25G, rdma: roce-v2, port_names: [ens1f0np0]}}
      - {name: i1, role: host, os: linux, nic: {vendor: intel, model: E810-XXVDA2, ports: 1, speed: 25G, rdma: roce-v2, port_names: [ens2f0]}}
      - {name: t1, role: host, os: linux, nic: {vendor: intel, model: XXV710, ports: 1, speed: 25G, rdma: none, port_names: [ens3f0]}}
    links:
      - {a: "sw1:Ethernet0", b: "b1:ens1f0np0", cable: 3m}
      - {a: "sw1:Ethernet4", b: "i1:ens2f0", cable: 3m}
      - {a: "sw1:Ethernet8", b: "t1:ens3f0", cable: 3m}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90}
      - {name: default, priority: 0, dscp: [0], ets: 10}
"#;

#[test]
fn broadcom_and_intel_rdma_hosts_collect_ethtool_and_hw_counters() {
    let f = match rocelab_model::load_str(HOSTS, "collect-hosts.yaml", Path::new(".")) {
        Ok(l) => l.fabric,
        Err(d) => panic!("{}", d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")),
    };
    let r = crate::render(&f, &Templates::builtin()).unwrap();
    let rows = collect_rows(&r.runbook);
    for (host, port) in [("b1", "ens1f0np0"), ("i1", "ens2f0")] {
        assert!(rows.contains(&(host.into(), format!("ethtool -S {port}"), format!("{host}.ethtool.txt"))), "{rows:?}");
        assert!(rows.contains(&(
            host.into(),
            format!("grep . /sys/class/net/{port}/device/infiniband/*/ports/1/hw_counters/*"),
            format!("{host}.hw_counters.txt")
        )));
    }
    // A host without RDMA has no RDMA counters for the audit.
    assert!(!rows.iter().any(|(d, _, _)| d == "t1"), "{rows:?}");
}

/// Two hosts on an NVIDIA Cumulus switch of `release`.
fn cumulus(release: &str) -> String {
    format!(
        r#"
fabric:
  name: collect-cumulus
  topology:
    devices:
      - {{name: leaf1, role: switch, platform: nvidia-cumulus, os_version: "{release}", ports: [{{names: "swp1-2", speed: 100G}}]}}
      - {{name: h1, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-6 Dx, speed: 100G}}}}
      - {{name: h2, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-6 Dx, speed: 100G}}}}
    links:
      - {{a: "leaf1:swp1", b: "h1:p0", cable: 3m}}
      - {{a: "leaf1:swp2", b: "h2:p0", cable: 3m}}
  qos:
    marking: dscp
    classes:
      - {{name: roce, priority: 3, dscp: [26], lossless: true, ets: 90}}
      - {{name: default, priority: 0, dscp: [0], ets: 10}}
"#
    )
}

#[test]
fn cumulus_switches_collect_roce_and_qos_counters_per_port() {
    for (release, qos) in [("5.9", "counters qos"), ("5.4", "qos counters")] {
        let f = match rocelab_model::load_str(&cumulus(release), "collect-cumulus.yaml", Path::new(".")) {
            Ok(l) => l.fabric,
            Err(d) => panic!("{}", d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")),
        };
        let r = crate::render(&f, &Templates::builtin()).unwrap();
        let rows = collect_rows(&r.runbook);
        let leaf: Vec<_> = rows.iter().filter(|(d, _, _)| d == "leaf1").cloned().collect();
        // Per port, the file name carries the port the output does not name.
        let want: Vec<(String, String, String)> = ["swp1", "swp2"]
            .iter()
            .flat_map(|p| {
                [
                    ("leaf1".into(), format!("nv show interface {p} qos roce counters"), format!("leaf1.{p}.roce.txt")),
                    ("leaf1".into(), format!("nv show interface {p} {qos}"), format!("leaf1.{p}.qos.txt")),
                ]
            })
            .collect();
        assert_eq!(leaf, want, "{release}");
    }
}
