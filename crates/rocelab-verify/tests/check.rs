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
    ];
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut seen = 0;
    for e in std::fs::read_dir(ex).unwrap() {
        let path = e.unwrap().path();
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
    let h = f.iter().find(|x| x.id == "HEADROOM-SHORT").unwrap();
    // 100 m at 100G: 2 × 500 ns is 100,000 bits, 12,500 bytes of the required figure.
    assert!(h.what.contains("12500 cable round trip (2 × 500ns (100m) × 100G)"), "{}", h.what);
}

#[test]
fn imported_arista_and_sonic_configs_are_checked_and_unread_lines_reported() {
    let imp =
        rocelab_verify::import::import_dir(&fabrics().join("import"), Some(&fabrics().join("import-links.yaml")))
            .unwrap();
    let nu: Vec<String> = imp
        .not_understood
        .iter()
        .map(|u| format!("{}:{} {}", Path::new(&u.file).file_name().unwrap().to_string_lossy(), u.line, u.text))
        .collect();
    assert_eq!(
        nu,
        [
            "leaf1.cfg:30 service-policy type qos input pm-RoCE",
            "leaf1.cfg:32 ip routing",
            "leaf2.json:23 table SYSLOG_SERVER"
        ]
    );
    let f = check(&imp.state);
    let got: Vec<(&str, &str, Option<&str>)> = f.iter().map(|f| (f.id, f.device.as_str(), f.port.as_deref())).collect();
    assert_eq!(got, [("MTU-MISMATCH", "leaf1", Some("Ethernet1/1")), ("PFC-MISSING", "leaf2", Some("Ethernet4"))]);
    let pfc = &f[1];
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
