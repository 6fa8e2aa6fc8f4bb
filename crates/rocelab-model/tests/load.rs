//! Loading fabric files end to end: round trips, generators, the HPCC import, variants, sweeps,
//! and one test per class of bad input, each checking where the error points and what it says.

use proptest::prelude::*;
use rocelab_model::perftest::PerftestTest;
use rocelab_model::{load_str, Diagnostic, Diagnostics, Loaded, Role};
use std::path::{Path, PathBuf};

#[path = "load/bounds.rs"]
mod bounds;
#[path = "load/examples.rs"]
mod examples;
#[path = "load/flows.rs"]
mod flows;
#[path = "load/hosts.rs"]
mod hosts;
#[path = "load/layers.rs"]
mod layers;
#[path = "load/speeds.rs"]
mod speeds;
#[path = "load/storage.rs"]
mod storage;
#[path = "load/transport.rs"]
mod transport;
#[path = "load/tune.rs"]
mod tune;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(text: &str) -> Result<Loaded, Diagnostics> {
    load_str(text, "t.yaml", &workspace())
}

fn errors(text: &str) -> Vec<Diagnostic> {
    match load(text) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d.0.into_iter().filter(|d| d.is_error()).collect(),
    }
}

/// A small valid fabric whose parts the error tests break one at a time.
const BASE: &str = r#"fabric:
  name: base
  topology:
    devices:
      - {name: sw1, role: switch, platform: nvidia-onyx, model: SN2410}
      - {name: sw2, role: switch, platform: hpe-comware, model: "5900"}
      - {name: node1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G]}}
      - {name: node2, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G]}}
    links:
      - {a: "sw1:eth1/1", b: "node1:p0", cable: 3m}
      - {a: "sw2:Ten-GigabitEthernet1/0/1", b: "node2:p0", speed: 10G, cable: 3m}
      - {a: "sw1:eth1/49", b: "sw2:FortyGigE1/0/49", speed: 40G, cable: 10m}
  qos:
    marking: pcp
    vlan: 2
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 90}
      - {name: default, priority: 0, ets: 10}
"#;

#[test]
fn base_loads_and_resolves_links() {
    let l = load(BASE).unwrap();
    assert_eq!(l.fabric.devices.len(), 4);
    assert_eq!(l.fabric.links.len(), 3);
    let isl = &l.fabric.links[2];
    assert_eq!(isl.speed.to_string(), "40G");
    assert_eq!(isl.propagation.to_string(), "50ns");
    assert_eq!(l.fabric.device("sw1").unwrap().buffer.unwrap().to_string(), "16MB");
}

fn broken(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "BASE has no `{from}`");
    BASE.replacen(from, to, 1)
}

fn one_error(text: &str) -> Diagnostic {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:#?}");
    e.into_iter().next().unwrap()
}

#[test]
fn unknown_field_suggests_the_close_one() {
    let e = one_error(&broken("lossless: true, ets: 90", "lossles: true, ets: 90"));
    assert_eq!((e.line, e.column, e.path.as_str()), (17, 35, "fabric.qos.classes[0].lossles"));
    assert_eq!(e.message, "unknown field `lossles`");
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"lossless\"?"));
    assert!(e.to_string().starts_with("t.yaml:17:35: error: fabric.qos.classes[0].lossles: unknown field"));
}

#[test]
fn wrong_type_says_what_was_expected() {
    let e = one_error(&broken("priority: 5", "priority: high"));
    assert_eq!(e.path, "fabric.qos.classes[0].priority");
    assert_eq!(e.line, 17);
    assert!(e.message.contains("the string `high`"), "{}", e.message);
    assert_eq!(e.column, 32);
    assert!(e.expected.as_deref().unwrap().contains("integer"), "{e:?}");
}

#[test]
fn a_hosts_loss_recovery_settings_are_checked_where_they_are_written() {
    let host = "os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G]}}";
    let with = |tcp: &str| BASE.replacen(host, &host.replace("}}", &format!("}}, tcp: {{{tcp}}}}}")), 1);
    for (key, typo) in
        [("tail_loss_probe", "tail_loss_probes"), ("rack", "racks"), ("prr", "prrs"), ("hystart", "hystrat")]
    {
        let l = load(&with(&format!("{key}: false"))).unwrap();
        let t = l.fabric.devices[2].tcp.as_ref().unwrap();
        let read = match key {
            "rack" => t.rack,
            "prr" => t.prr,
            "hystart" => t.hystart,
            _ => t.tail_loss_probe,
        };
        assert_eq!(read, Some(false), "{key}");
        let e = one_error(&with(&format!("{typo}: false")));
        assert_eq!((e.line, e.path.as_str()), (7, format!("fabric.topology.devices[2].tcp.{typo}").as_str()));
        assert!(e.to_string().starts_with("t.yaml:7:"), "{e}");
        assert_eq!(e.suggestion, Some(format!("did you mean \"{key}\"?")));
        let e = one_error(&with(&format!("{key}: sometimes")));
        assert_eq!(e.path, format!("fabric.topology.devices[2].tcp.{key}"));
        assert_eq!((e.line, e.expected.as_deref()), (7, Some("`true` or `false`")), "{e:?}");
        assert!(e.message.contains("`sometimes`"), "{e:?}");
    }
}

#[test]
fn bad_unit_is_explained() {
    let e = one_error(&broken("cable: 10m", "cable: 10 meters"));
    assert_eq!(e.path, "fabric.topology.links[2].cable");
    assert!(e.message.contains("unknown length unit `meters`"), "{}", e.message);
    let e = one_error(&broken("speed: 10G,", "speed: 10gbps,"));
    assert!(e.message.contains("did you mean `Gbps`"), "{}", e.message);
}

#[test]
fn link_to_missing_device_suggests_one() {
    let e = one_error(&broken(r#"b: "sw2:FortyGigE1/0/49""#, r#"b: "sw3:FortyGigE1/0/49""#));
    assert_eq!(e.path, "fabric.topology.links[2].b");
    assert_eq!(e.line, 12);
    assert_eq!(e.message, "no device `sw3`");
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"sw1\"?"));
}

#[test]
fn link_to_missing_port() {
    let e = one_error(&broken(r#"a: "sw1:eth1/49""#, r#"a: "sw1:eth1/99""#));
    assert_eq!(e.path, "fabric.topology.links[2].a");
    assert_eq!(e.message, "device `sw1` has no port `eth1/99`");
    assert!(e.suggestion.is_some());
}

#[test]
fn duplicate_device_names() {
    let e = errors(&broken("{name: node2, role: host", "{name: node1, role: host"));
    assert_eq!(e[0].path, "fabric.topology.devices[3].name");
    assert_eq!(e[0].line, 8);
    assert_eq!(e[0].message, "duplicate device name `node1`");
    // The link to the device that is now gone is reported too.
    assert_eq!(e[1].message, "no device `node2`");
    assert_eq!(e.len(), 2);
}

#[test]
fn duplicate_class_names() {
    let e = one_error(&broken("{name: default, priority: 0", "{name: roce, priority: 0"));
    assert_eq!(e.path, "fabric.qos.classes[1].name");
    assert_eq!(e.message, "duplicate class name `roce`");
}

#[test]
fn port_used_twice() {
    let e = one_error(&broken(r#"a: "sw1:eth1/49""#, r#"a: "sw1:eth1/1""#));
    assert_eq!(e.path, "fabric.topology.links[2].a");
    assert!(e.message.contains("port `sw1:eth1/1` is used twice: it is already cabled to `node1:p0`"), "{}", e.message);
}

#[test]
fn different_speeds_at_the_two_ends() {
    let e = one_error(&broken(r#"b: "sw2:FortyGigE1/0/49", speed: 40G,"#, r#"b: "sw2:FortyGigE1/0/49","#));
    assert_eq!(e.path, "fabric.topology.links[2]");
    assert!(
        e.message.starts_with("different speeds at the two ends of a link: `sw1:eth1/49` runs at 100G"),
        "{}",
        e.message
    );
    assert_eq!(e.suggestion.as_deref(), Some("set `speed: 40G` on the link, a speed both ports support"));
    let e = one_error(&broken("speed: 40G, cable: 10m", "speed: 25G, cable: 10m"));
    assert!(e.message.contains("port `sw2:FortyGigE1/0/49` runs at 40G (also 10G)"), "{}", e.message);
}

#[test]
fn priority_outside_0_to_7() {
    let e = one_error(&broken("priority: 5", "priority: 9"));
    assert_eq!((e.path.as_str(), e.line), ("fabric.qos.classes[0].priority", 17));
    assert!(e.message.contains("outside 0-7"), "{}", e.message);
}

#[test]
fn dscp_above_63() {
    let e = one_error(&broken("priority: 5,", "priority: 5, dscp: [26, 64],"));
    assert_eq!(e.path, "fabric.qos.classes[0].dscp[1]");
    assert_eq!(e.message, "DSCP 64 is above 63 (six bits)");
}

#[test]
fn ets_must_sum_to_100_everywhere_and_per_port() {
    let e = one_error(&broken("ets: 10}", "ets: 5}"));
    assert_eq!(e.path, "fabric.qos.classes");
    assert!(e.message.contains("sum to 95 (roce 90 + default 5)"), "{}", e.message);
    let text = format!("{BASE}    ports:\n      - {{ports: [\"sw1:eth1/49\"], ets: {{roce: 50}}}}\n");
    let e = one_error(&text);
    assert_eq!((e.path.as_str(), e.line), ("fabric.qos.ports[0].ets", 20));
    assert!(e.message.contains("ETS weights on port sw1:eth1/49 sum to 60"), "{}", e.message);
}

#[test]
fn every_error_of_a_file_at_once() {
    let text = broken("lossless: true, ets: 90", "lossles: true, ets: 90")
        .replacen("speed: 10G,", "speed: 10Q,", 1)
        .replacen("os: linux, nic", "os: beos, nic", 1);
    let e = errors(&text);
    let paths: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        ["fabric.topology.devices[2].os", "fabric.topology.links[1].speed", "fabric.qos.classes[0].lossles"]
    );
    let text = broken(r#"a: "sw1:eth1/49""#, r#"a: "sw1:eth1/99""#).replacen("priority: 5", "priority: 8", 1);
    assert_eq!(errors(&text).len(), 2);
}

#[test]
fn yaml_syntax_errors_are_located() {
    let e = one_error("fabric:\n  name: [unclosed\n  qos: 1\n");
    assert!(e.message.starts_with("YAML syntax"), "{}", e.message);
    assert!(e.line >= 2);
}

#[test]
fn round_trip_through_json() {
    let l = load(BASE).unwrap();
    let json = serde_json::to_string(&l.scenario).unwrap();
    // JSON is YAML 1.2, so the loader reads it back.
    let again = load(&json).unwrap();
    assert_eq!(l.scenario, again.scenario);
    assert_eq!(serde_json::to_string(&again.scenario).unwrap(), json);
}

#[test]
fn every_example_round_trips() {
    for entry in std::fs::read_dir(workspace().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let l = rocelab_model::load_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!l.validate_all().has_errors(), "{}", path.display());
        let json = serde_json::to_string(&l.scenario).unwrap();
        let again = load_str(&json, "json", path.parent().unwrap()).unwrap();
        assert_eq!(l.scenario, again.scenario, "{}", path.display());
    }
}

fn generated(generator: &str) -> Loaded {
    let text = format!(
        "fabric:\n  name: g\n  topology:\n    generator:\n{generator}\n  qos:\n    marking: dscp\n    classes:\n      - {{name: roce, priority: 3, dscp: [26], lossless: true}}\n"
    );
    load(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn counts(l: &Loaded) -> (usize, usize, usize) {
    let f = &l.fabric;
    (f.hosts().count(), f.switches().count(), f.links.len())
}

#[test]
fn generator_counts() {
    let ft = generated("      fat-tree: {k: 4, host_speed: 100G, fabric_speed: 400G}");
    assert_eq!(counts(&ft), (16, 20, 48));
    let ls = generated(
        "      leaf-spine: {leaves: 4, spines: 2, hosts_per_leaf: 16, host_speed: 25G, uplink_speed: 100G, oversubscription: 2}",
    );
    assert_eq!(counts(&ls), (64, 6, 64 + 4 * 2));
    let ss = generated(
        "      single-switch: {hosts: 4, speed: 100G, switch: {model: 7050SX3-48YC12}, targets: {count: 1, ports: 2, protocols: [nvme-rdma]}}",
    );
    assert_eq!(counts(&ss), (5, 1, 6));
    assert_eq!(ss.fabric.hosts().filter(|d| d.role == Role::Storage).count(), 1);
    let d = generated("      direct: {hosts: 4, speed: 25G, target: {protocols: [nvme-rdma, iscsi]}}");
    assert_eq!(counts(&d), (5, 0, 4));
    let t = generated("      two-switch: {hosts: [3, 2], host_speed: 25G, bottleneck: 40G}");
    assert_eq!(counts(&t), (5, 2, 6));
}

#[test]
fn generator_errors_point_at_the_generator() {
    let text = "fabric:\n  name: g\n  topology:\n    generator:\n      fat-tree: {k: 5, host_speed: 100G}\n  qos:\n    classes: []\n";
    let e = one_error(text);
    // At the generator's field `k` itself.
    assert_eq!((e.path.as_str(), e.line), ("fabric.topology.generator.fat-tree.k", 5));
    assert!(e.message.contains("even"), "{}", e.message);
    let text = "fabric:\n  name: g\n  topology:\n    generator:\n      fat-tree: {k: 4, host_sped: 100G}\n  qos:\n    classes: []\n";
    let e = errors(text);
    assert!(e.iter().any(|d| d.suggestion.as_deref() == Some("did you mean \"host_speed\"?")), "{e:#?}");
}

fn hpcc(file: &str) -> Option<Loaded> {
    let path = workspace().join("../shared/data/hpcc-formats").join(file);
    if !path.exists() {
        skipped(&format!("{} not present: the HPCC import is tested on inline text only", path.display()));
        return None;
    }
    let text = format!(
        "fabric:\n  name: h\n  topology:\n    import: {{hpcc: \"{}\"}}\n  qos:\n    marking: dscp\n    classes:\n      - {{name: roce, priority: 3, dscp: [26], lossless: true}}\n",
        path.display()
    );
    Some(load(&text).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn hpcc_topologies_import_as_they_are() {
    if let Some(l) = hpcc("fat.txt") {
        assert_eq!(counts(&l), (320, 56, 480));
        let host_link = &l.fabric.links[0];
        assert_eq!((host_link.speed.to_string().as_str(), host_link.propagation.to_string().as_str()), ("100G", "1us"));
        assert!(l.fabric.links.iter().any(|k| k.speed.to_string() == "400G"));
    }
    if let Some(l) = hpcc("topology.txt") {
        // The header declares 65 links; like the HPCC simulator, the import reads that many
        // lines and ignores the rest of the file (with a warning).
        assert_eq!(counts(&l), (65, 1, 65));
        assert!(l.warnings.iter().any(|w| w.message.contains("ignored")), "{:?}", l.warnings);
    }
    if let Some(l) = hpcc("ali_32host_10rack.txt") {
        assert_eq!(l.fabric.switches().count(), 28);
        assert_eq!(l.fabric.links.len(), 800);
    }
}

#[test]
fn hpcc_errors_name_the_topology_file() {
    let dir = std::env::temp_dir().join(format!("rocelab-hpcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.txt"), "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 fast 1us 0\n").unwrap();
    let text = "fabric:\n  name: h\n  topology:\n    import: {hpcc: bad.txt}\n  qos:\n    classes: []\n";
    let e = load_str(text, "t.yaml", &dir).unwrap_err();
    let d = e.errors().next().unwrap();
    assert!(d.file.ends_with("bad.txt"), "{d}");
    assert_eq!((d.line, d.column), (4, 5));
    let e = load_str(&text.replace("bad.txt", "missing.txt"), "t.yaml", &dir).unwrap_err();
    assert_eq!(e.0[0].path, "fabric.topology.import.hpcc");
}

const WITH_VARIANTS: &str = r#"
variants:
  - name: dcqcn
    set:
      fabric.qos.dcqcn.enabled: true
      fabric.qos.classes[roce].ecn: {kmin: 150KB, kmax: 1500KB, pmax: 0.01}
  - name: broken
    set:
      fabric.qos.classes[rocee].ets: 95
  - name: bad-value
    set:
      fabric.qos.classes[roce].priority: 12
sweep:
  field: fabric.qos.mtu
  values: [1500, 9000, 100000]
"#;

#[test]
fn variants_and_sweeps_apply_and_check() {
    let l = load(&format!("{BASE}{WITH_VARIANTS}")).unwrap();
    assert_eq!(l.variant_names(), ["dcqcn", "broken", "bad-value"]);
    let v = l.variant("dcqcn").unwrap();
    assert!(v.qos.dcqcn.enabled && v.dcqcn.reaction_point);
    assert_eq!(v.qos.class("roce").unwrap().ecn.as_ref().unwrap().single().unwrap().kmax.to_string(), "1500KB");
    let e = l.variant("broken").unwrap_err();
    assert_eq!(e.0[0].suggestion.as_deref(), Some("did you mean \"roce\"?"));
    // The bad value is reported where the variant wrote it.
    let e = l.variant("bad-value").unwrap_err();
    assert_eq!((e.0[0].line, e.0[0].path.as_str()), (30, "fabric.qos.classes[0].priority"));
    let e = l.variant("nope").unwrap_err();
    assert!(e.0[0].expected.as_deref().unwrap().contains("dcqcn"));
    let points = l.sweep_points();
    assert_eq!(points.len(), 3);
    assert_eq!(points[1].0, "fabric.qos.mtu=9000");
    let all = l.validate_all();
    let msgs: Vec<&str> = all.errors().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 3, "{msgs:#?}");
    assert!(msgs.iter().any(|m| m.starts_with("at sweep point `fabric.qos.mtu=100000`")));
}

#[test]
fn a_variant_at_a_sweep_point_has_both_applied() {
    let l = load(&format!("{BASE}{WITH_VARIANTS}")).unwrap();
    assert_eq!(
        l.sweep_values(),
        Some(("fabric.qos.mtu".to_string(), vec!["1500".into(), "9000".into(), "100000".into()]))
    );
    let (_, f) = l.run_point(Some("dcqcn"), Some(0)).unwrap();
    assert!(f.qos.dcqcn.enabled);
    assert_eq!(f.qos.mtu, 1500);
    let (_, f) = l.run_point(None, Some(1)).unwrap();
    assert!(!f.qos.dcqcn.enabled);
    assert_eq!(f.qos.mtu, 9000);
    let (_, base) = l.run_point(None, None).unwrap();
    assert_eq!(base.qos.mtu, l.fabric.qos.mtu);
    // The bad point is reported with the variant and the point it was found at.
    let e = l.run_point(Some("dcqcn"), Some(2)).unwrap_err();
    assert!(e.has_errors());
    assert!(l.run_point(Some("nope"), None).unwrap_err().0[0].message.contains("no variant `nope`"));
    assert!(l.run_point(None, Some(7)).unwrap_err().0[0].message.contains("no sweep point 7"));
}

/// Valid documents with one byte changed, and arbitrary text: the loader answers with a fabric
/// or with diagnostics, never a panic.
fn mutate(base: &str, pos: usize, byte: u8, delete: bool) -> String {
    let mut bytes = base.as_bytes().to_vec();
    let pos = pos % bytes.len();
    if delete {
        bytes.remove(pos);
    } else {
        bytes.insert(pos, byte);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn mutated_fabrics_never_panic(pos in 0usize..2000, byte in prop::sample::select(b" :-[]{},\n#&*!|>'\"0aZ9.".to_vec()), delete: bool) {
        let text = mutate(&format!("{BASE}{WITH_VARIANTS}"), pos, byte, delete);
        if let Ok(l) = load(&text) {
            let _ = l.validate_all();
        }
    }

    #[test]
    fn random_yaml_never_panics(text in "[ a-z0-9:\\-\\[\\]{},\\n#&*!|>'\".]{0,300}") {
        let _ = load(&text);
        let _ = load(&format!("fabric:\n  {text}"));
    }
}

const WORKLOADS: &str = r#"simulation: {duration: 2ms, seed: 7, sample_interval: 5us}
workloads:
  flows:
    - {name: victim, from: node1, to: node2, class: roce, rate: 10G}
    - {name: burst, from: node2, to: node1, class: default, on: 100us, off: 300us, size: 1MB}
  incast:
    - {name: in, senders: [node1], receiver: node2, class: roce, size: 64KiB}
  permutation:
    - {name: perm, class: roce}
"#;

#[test]
fn workloads_load_and_name_real_hosts_and_classes() {
    let l = load(&format!("{BASE}{WORKLOADS}")).unwrap();
    assert_eq!(l.scenario.simulation.seed, 7);
    assert_eq!(l.scenario.workloads.flows.len(), 2);
    assert_eq!(l.scenario.workloads.incast[0].size.unwrap().to_string(), "64KiB");
    let bad = format!("{BASE}{WORKLOADS}")
        .replace("to: node2, class: roce, rate: 10G", "to: node3, class: rocee, rate: 10G")
        .replace("senders: [node1]", "senders: [node1-3]")
        .replace("on: 100us, off: 300us", "on: 100us");
    let e = errors(&bad);
    let got: Vec<(&str, &str)> = e.iter().map(|d| (d.path.as_str(), d.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("workloads.flows[0].to", "no host `node3`"),
            ("workloads.flows[0].class", "no class `rocee`"),
            ("workloads.flows[1].on", "an on/off flow needs both `on` and `off`"),
            ("workloads.incast[0].senders[0]", "no host `node3`"),
            ("workloads.incast[0].receiver", "receiver `node2` is also a sender"),
        ]
    );
    assert_eq!(e[0].suggestion.as_deref(), Some("did you mean \"node1\"?"));
    assert_eq!(e[0].line, 22);
}

const PERFTEST: &str = r#"simulation: {duration: 50ms}
workloads:
  perftest:
    - {name: bw, test: write_bw, client: node1, server: node2, class: roce, qps: 4, duration: 10ms}
    - {name: lat, test: read_lat, client: node2, server: node1, class: roce, iterations: 200}
"#;

#[test]
fn perftest_workloads_load_with_perftests_defaults() {
    let l = load(&format!("{BASE}{PERFTEST}")).unwrap();
    let p = &l.scenario.workloads.perftest;
    assert_eq!((p[0].test, p[0].qps, p[0].size_bytes()), (PerftestTest::WriteBw, Some(4), 65536));
    assert_eq!(p[0].duration.unwrap().to_string(), "10ms");
    assert_eq!((p[1].test, p[1].size_bytes(), p[1].iterations), (PerftestTest::ReadLat, 2, Some(200)));
}

#[test]
fn perftest_bad_input_is_located_with_suggestions() {
    let bad = format!("{BASE}{PERFTEST}")
        .replace(
            "client: node1, server: node2, class: roce, qps: 4",
            "client: node3, server: node2, class: rocee, qps: 0",
        )
        .replace("class: roce, iterations: 200}", "class: roce, iterations: 200, size: 3GiB, mtu: 1500, tx_depth: 0}");
    let e = errors(&bad);
    let got: Vec<(&str, &str)> = e.iter().map(|d| (d.path.as_str(), d.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("workloads.perftest[0].client", "no host `node3`"),
            ("workloads.perftest[0].class", "no class `rocee`"),
            ("workloads.perftest[0].qps", "qps must be at least 1"),
            ("workloads.perftest[1].size", "message size 3GiB is not 1 byte to 2GiB (the InfiniBand DMA length limit)"),
            ("workloads.perftest[1].mtu", "path MTU 1500 is not an InfiniBand MTU (256, 512, 1024, 2048, 4096)"),
            ("workloads.perftest[1].tx_depth", "tx_depth 0 is outside perftest's 1-15000"),
        ]
    );
    assert_eq!(e[0].suggestion.as_deref(), Some("did you mean \"node1\"?"));
    assert_eq!(e[1].suggestion.as_deref(), Some("did you mean \"roce\"?"));
    assert_eq!((e[0].line, e[0].column > 0), (22, true), "the line of the first test");
    // Size 0, both iterations and duration, several QPs on a latency test.
    let bad = format!("{BASE}{PERFTEST}")
        .replace("qps: 4, duration: 10ms", "qps: 4, duration: 10ms, iterations: 10, size: 0B")
        .replace("iterations: 200}", "iterations: 200, qps: 2}");
    let e = errors(&bad);
    let got: Vec<(&str, &str)> = e.iter().map(|d| (d.path.as_str(), d.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("workloads.perftest[0].duration", "give `iterations` or `duration`, not both"),
            ("workloads.perftest[0].size", "message size 0B is not 1 byte to 2GiB (the InfiniBand DMA length limit)"),
            ("workloads.perftest[1].qps", "latency tests run on one QP, not 2"),
        ]
    );
    // An unknown tool.
    let e = one_error(&format!("{BASE}{PERFTEST}").replace("test: read_lat", "test: read_latt"));
    assert_eq!((e.path.as_str(), e.message.as_str()), ("workloads.perftest[1].test", "unknown value `read_latt`"));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"read_lat\"?"));
}

#[test]
fn rc_flows_need_roce_hosts_and_an_ib_path_mtu() {
    // An Intel adapter has no RoCE: an explicit RC flow or a perftest there is an error; a
    // flow without `transport` runs open loop.
    let text = format!("{BASE}{WORKLOADS}").replace(
        "node2, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5",
        "node2, role: host, os: linux, nic: {vendor: intel, model: X710",
    );
    let l = load(&text).unwrap();
    assert_eq!(
        rocelab_model::select::flow_transport(None, &l.fabric, 2, 3),
        rocelab_model::workload::FlowTransport::Raw
    );
    let bad = text.replace("class: roce, rate: 10G}", "class: roce, rate: 10G, transport: rc}");
    let e = one_error(&bad);
    assert_eq!(e.path, "workloads.flows[0].to");
    assert!(e.message.contains("`node2` has no RoCE adapter"), "{}", e.message);
    let e = one_error(&broken("    vlan: 2\n", "    vlan: 2\n    roce_mtu: 1500\n"));
    assert_eq!(e.path, "fabric.qos.roce_mtu");
    assert!(e.message.contains("not an InfiniBand MTU"), "{}", e.message);
    let e = one_error(
        &format!("{BASE}{WORKLOADS}").replace("class: roce, rate: 10G}", "class: roce, rate: 10G, transport: rcc}"),
    );
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"rc\"?"));
}

#[test]
fn iwarp_flows_need_iwarp_hosts_and_tcp_flows_run_anywhere() {
    use rocelab_model::select::flow_transport;
    use rocelab_model::workload::FlowTransport;
    // ConnectX adapters are RoCE only: an explicit iWARP flow there is an error located on the
    // host; `transport: tcp` needs no RDMA adapter.
    let e = errors(
        &format!("{BASE}{WORKLOADS}").replace("class: roce, rate: 10G}", "class: roce, rate: 10G, transport: iwarp}"),
    );
    let paths: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["workloads.flows[0].from", "workloads.flows[0].to"]);
    assert!(e[0].message.contains("`node1` has no iWARP adapter"), "{}", e[0].message);
    let tcp =
        format!("{BASE}{WORKLOADS}").replace("class: roce, rate: 10G}", "class: roce, rate: 10G, transport: tcp}");
    load(&tcp).unwrap();
    // A TCP flow sends until it stops: on/off is refused.
    let e = one_error(&tcp.replace("transport: tcp}", "transport: tcp, on: 1ms, off: 1ms}"));
    assert_eq!(e.path, "workloads.flows[0].on");
    assert!(e.message.contains("a TCP or iWARP flow sends until it stops"), "{}", e.message);
    // Between two iWARP adapters (Chelsio's are iWARP by default) a flow runs over iWARP.
    let text = format!("{BASE}{WORKLOADS}")
        .replace("nic: {vendor: mellanox, model: ConnectX-5", "nic: {vendor: chelsio, model: T62100");
    let l = load(&text).unwrap();
    assert_eq!(flow_transport(None, &l.fabric, 2, 3), FlowTransport::Iwarp);
}

#[test]
fn dcqcn_parameters_out_of_range_are_located() {
    let text = broken(
        "      - {name: default, priority: 0, ets: 10}\n",
        "      - {name: default, priority: 0, ets: 10}\n    dcqcn: {enabled: true, g: 1.5, initial_alpha: 0, max_decrease: 2, rate_increase_timer: 0us, byte_counter: 0B, fast_recovery_steps: 40, additive_increase: 0G, cnp_interval: 5s}\n",
    );
    let e = errors(&text);
    let got: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        got,
        [
            "fabric.qos.dcqcn.g",
            "fabric.qos.dcqcn.initial_alpha",
            "fabric.qos.dcqcn.max_decrease",
            "fabric.qos.dcqcn.rate_increase_timer",
            "fabric.qos.dcqcn.byte_counter",
            "fabric.qos.dcqcn.fast_recovery_steps",
            "fabric.qos.dcqcn.additive_increase",
            "fabric.qos.dcqcn.cnp_interval",
        ]
    );
    assert!(e[0].message.contains("must be in (0, 1]"));
    assert!(
        e.iter().all(|d| d.line == 19),
        "located on the dcqcn line: {:?}",
        e.iter().map(|d| d.line).collect::<Vec<_>>()
    );
    let e = one_error(&broken(
        "      - {name: default, priority: 0, ets: 10}\n",
        "      - {name: default, priority: 0, ets: 10}\n    dcqcn: {enabled: true, profile: nvidia-conectx}\n",
    ));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"nvidia-connectx\"?"));
    // The vendor profile resolves with the knob behind each value named.
    let l = load(&broken(
        "      - {name: default, priority: 0, ets: 10}\n",
        "      - {name: default, priority: 0, ets: 10}\n    dcqcn: {enabled: true, profile: nvidia-connectx, min_rate: 10M}\n",
    ))
    .unwrap();
    let p = &l.fabric.dcqcn;
    assert_eq!(p.rate_increase_timer.to_string(), "300us");
    assert_eq!((p.fast_recovery_steps, p.byte_counter.as_bytes()), (1, 32767));
    assert!(p.sources["rate_increase_timer"].starts_with("rpg_time_reset 300 us"));
    assert_eq!(p.sources["min_rate"], "set in the fabric");
}

#[test]
fn port_overrides_express_deviations_for_the_checker() {
    let text = format!(
        "{BASE}    roce_tos: 106\n    dcbx: {{hosts_willing: true}}\n    ports:\n      - {{ports: [\"node1:p0\"], roce_tos: 96, cnp_priority: 7, dcqcn: {{reaction_point: false}}, dcbx_willing: false, link_pause: true}}\n      - {{ports: [\"sw1:eth1/1\"], dscp: {{roce: [24]}}, priority: {{roce: 4}}, xoff: 20KB}}\n"
    );
    let l = load(&text).unwrap();
    let f = &l.fabric;
    assert_eq!(f.qos.effective_roce_tos(), Some(106));
    assert!(f.qos.dcbx.unwrap().hosts_willing);
    let node = f.device("node1").unwrap();
    let s = node.ports[0].settings.as_ref().unwrap();
    assert_eq!(
        (s.roce_tos, s.cnp_priority, s.dcqcn_rp, s.dcbx_willing, s.link_pause),
        (Some(96), Some(7), false, Some(false), true)
    );
    let sw = f.device("sw1").unwrap();
    let s = sw.ports.iter().find(|p| p.name == "eth1/1").unwrap().settings.as_ref().unwrap();
    assert_eq!((s.classes[0].dscp.clone(), s.classes[0].priority), (vec![24], 4));
    assert_eq!(s.xoff.unwrap().to_string(), "20KB");

    let bad =
        format!("{BASE}    ports:\n      - {{ports: [\"sw1:eth1/1\"], priority: {{roce: 9}}, dscp: {{rocee: [1]}}}}\n");
    let e = errors(&bad);
    assert!(
        e.iter().any(|d| d.path == "fabric.qos.ports[0].priority.roce" && d.message.contains("outside 0-7")),
        "{e:?}"
    );
    assert!(
        e.iter().any(|d| d.message == "no class `rocee`" && d.suggestion.as_deref() == Some("did you mean \"roce\"?")),
        "{e:?}"
    );
}

#[test]
fn roce_tos_defaults_to_the_rdma_dscp_with_ect0() {
    let text = broken("marking: pcp\n    vlan: 2", "marking: dscp")
        .replace("priority: 5, lossless: true", "priority: 3, dscp: [26], lossless: true")
        .replace("priority: 0, ets: 10", "priority: 0, dscp: [0], ets: 10");
    let l = load(&text).unwrap();
    // DSCP 26 << 2 | ECT(0) = 106, the ToS the NVIDIA RoCE guides configure.
    assert_eq!(l.fabric.qos.effective_roce_tos(), Some(106));
}

#[test]
fn overlay_and_bonding_are_device_fields() {
    let text = BASE
        .replace("model: SN2410}", "model: SN2410, vxlan: {ecn_propagation: true, dscp_preservation: false}}")
        .replacen("os: linux, nic", "os: linux, bonding: mlag, nic", 1);
    let l = load(&text).unwrap();
    let sw = l.fabric.device("sw1").unwrap();
    assert_eq!(sw.vxlan.map(|v| (v.ecn_propagation, v.dscp_preservation)), Some((true, false)));
    assert_eq!(l.fabric.device("node1").unwrap().bonding, Some(rocelab_model::fabric::Bonding::Mlag));
    let e = errors(&BASE.replace("model: SN2410}", "model: SN2410, vxlan: {ecn_propagation: true}}"));
    assert!(e[0].message.contains("dscp_preservation"), "{:?}", e[0]);
}

// Fields added for `rocelab config`: the switch traffic class of a class (`queue`), its
// per-port override, buffer pool sizes and host addresses.

#[test]
fn queue_defaults_to_priority_and_port_override_changes_it() {
    let text = BASE
        .replace("lossless: true, ets: 90}", "lossless: true, ets: 90, queue: 2}")
        .replace(
            "      - {name: default, priority: 0, ets: 10}\n",
            "      - {name: default, priority: 0, ets: 10}\n    buffer: {pools: {ingress_lossless: 8604460B}}\n    ports:\n      - {ports: [\"sw2:*\"], queue: {roce: 1}}\n",
        );
    let loaded = load(&text).unwrap_or_else(|d| panic!("{d:?}"));
    let f = &loaded.fabric;
    let sw1 = f.devices.iter().position(|d| d.name == "sw1").unwrap();
    let sw2 = f.devices.iter().position(|d| d.name == "sw2").unwrap();
    let roce = 0;
    assert_eq!(f.port_settings(rocelab_model::PortId { device: sw1, port: 0 }).classes[roce].queue, 2);
    assert_eq!(f.port_settings(rocelab_model::PortId { device: sw2, port: 0 }).classes[roce].queue, 1);
    let default = f.qos.classes.iter().position(|c| c.name == "default").unwrap();
    assert_eq!(f.port_settings(rocelab_model::PortId { device: sw1, port: 0 }).classes[default].queue, 0);
    let pools = f.qos.buffer.pools.as_ref().unwrap();
    assert_eq!(pools.ingress_lossless.unwrap().as_bytes(), 8_604_460);
    assert!(pools.egress_lossy.is_none());
}

#[test]
fn queue_outside_0_7_is_an_error() {
    let text = BASE.replace(
        "{name: roce, priority: 5, lossless: true, ets: 90}",
        "{name: roce, priority: 5, lossless: true, ets: 90, queue: 9}",
    );
    let e = errors(&text);
    assert!(e.iter().any(|d| d.path == "fabric.qos.classes[0].queue" && d.message.contains("outside 0-7")), "{e:?}");
}

/// Says on the test output, past libtest's capture, that the running test skipped what needs
/// data this machine lacks.
fn skipped(why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(format!("SKIPPED {test}: {why}\n").as_bytes());
}
