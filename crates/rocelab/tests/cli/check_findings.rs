//! `check` and `sim` speak of a fabric with the same findings: the simulator's build warnings
//! carry `check`'s rule IDs and wording; examples declare the findings they demonstrate
//! (`expect:`) and every shipped example passes `check`; `--format json|sarif` stay
//! machine-readable on load errors and point SARIF regions at the lines of the fabric file.

use super::{fresh_dir, rocelab, text, workspace};
use serde_json::Value;

/// One switch, three hosts, RoCE lossless on priority 3, and PFC off for it on host3's port.
const PFC_OFF_AT_HOST3: &str = r#"fabric:
  name: pfc-missing
  topology:
    generator:
      single-switch: {hosts: 3, speed: 100G, cable: 3m}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 60, ecn: {kmin: 100KB, kmax: 400KB, pmax: 0.2}}
      - {name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}
      - {name: default, priority: 0, dscp: [0], ets: 40}
    ports:
      - {ports: ["host3:p0"], pfc: {roce: false}}
simulation:
  duration: 200us
workloads:
  incast:
    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB}
"#;

/// The simulator's warning about a lossless hop without PFC is `check`'s `PFC-MISSING`: same
/// rule, place, class, what, why, fix and source (the simulator runs it, so it is a warning
/// there and an error in `check`).
#[test]
fn the_simulators_lossless_hop_without_pfc_is_checks_pfc_missing() {
    let dir = fresh_dir("sim-pfc-missing");
    std::fs::create_dir_all(&dir).unwrap();
    let fabric = dir.join("pfc.yaml");
    std::fs::write(&fabric, PFC_OFF_AT_HOST3).unwrap();
    let f = fabric.to_str().unwrap();

    let out = rocelab(&["check", "--format", "json", f]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check: Vec<&Value> = check.as_array().unwrap().iter().filter(|x| x["id"] == "PFC-MISSING").collect();
    assert_eq!(check.len(), 1, "{check:#?}");

    let out = rocelab(&["sim", "--format", "json", f]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sim = run["warnings"].as_array().unwrap();
    assert_eq!(sim.len(), 1, "{sim:#?}");
    for key in ["id", "device", "port", "class", "what", "why", "fix", "source"] {
        assert_eq!(sim[0][key], check[0][key], "{key}");
    }
    assert_eq!((sim[0]["severity"].as_str(), check[0]["severity"].as_str()), (Some("warning"), Some("error")));
    // The text run says it as check's table does: the rule, the port and class, then what, why
    // and fix.
    let out = rocelab(&["sim", f]);
    let err = text(&out.stderr);
    assert!(err.contains("warning: PFC-MISSING host3:p0  [roce (priority 3)]\n"), "{err}");
    assert!(err.contains("    fix    enable PFC for priority 3 on this port"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// "CI checks every example": each shipped example, and each of its variants, passes `check`
/// (exit 0). The examples that show a misconfiguration on purpose declare it with `expect:`.
#[test]
fn every_example_and_variant_passes_check() {
    let dir = workspace().join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() > 10, "the examples are found: {files:?}");
    let mut failed = Vec::new();
    let mut with_expect = 0;
    for f in &files {
        let loaded = rocelab_model::load_file(f).unwrap_or_else(|d| panic!("{} loads: {d}", f.display()));
        with_expect += usize::from(loaded.scenario.expect.is_some());
        let path = f.to_str().unwrap();
        let mut runs = vec![vec!["check", path]];
        for v in loaded.variant_names() {
            runs.push(vec!["check", path, "--variant", v]);
        }
        for args in runs {
            let out = rocelab(&args);
            if out.status.code() != Some(0) {
                failed.push(format!("{}: exit {:?}\n{}", args.join(" "), out.status.code(), text(&out.stderr)));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(with_expect >= 5, "the Arista/Pure PFC-only examples and Demartek configuration 5 declare `expect`");
}

/// A file declaring findings it does not have, or lacking one it has, fails with exit 2 and
/// says which; exactly the declared ones pass, marked expected in JSON and SARIF.
#[test]
fn expect_passes_exactly_the_declared_findings() {
    let dir = fresh_dir("check-expect");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, expect: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("{PFC_OFF_AT_HOST3}{expect}")).unwrap();
        p.to_str().unwrap().to_string()
    };
    // The fabric has PFC-MISSING and DCQCN-OFF (DCQCN is not enabled).
    let exact = write("exact.yaml", "expect: [PFC-MISSING, DCQCN-OFF]\n");
    let out = rocelab(&["check", &exact]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        text(&out.stdout).contains("as the file expects (expect: [PFC-MISSING, DCQCN-OFF])"),
        "{}",
        text(&out.stdout)
    );
    let out = rocelab(&["check", "--format", "json", &exact]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.as_array().unwrap().iter().all(|f| f["expected"] == true), "{v:#}");
    let out = rocelab(&["check", "--format", "sarif", &exact]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["runs"][0]["results"].as_array().unwrap().iter().all(|r| r["properties"]["expected"] == true));

    let missing = write("missing.yaml", "expect: [PFC-MISSING, DCQCN-OFF, ECN-OFF]\n");
    let out = rocelab(&["check", &missing]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("`expect` declares ECN-OFF, which the check did not find"), "{err}");

    let unexpected = write("unexpected.yaml", "expect: [PFC-MISSING]\n");
    let out = rocelab(&["check", &unexpected]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("the check found DCQCN-OFF, which `expect` does not declare"), "{err}");
    assert!(err.contains("make `expect` list exactly the rules it demonstrates"), "{err}");

    let typo = write("typo.yaml", "expect: [PFC-MISSNG]\n");
    let out = rocelab(&["check", &typo]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("typo.yaml:20:10: error: expect[0]: unknown rule ID `PFC-MISSNG`"), "{err}");
    assert!(err.contains("did you mean \"PFC-MISSING\"?"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fabric that does not load gives, with `--format json` or `sarif`, a document a tool can
/// read: the diagnostics with file, line, column and field path (JSON), or a failed invocation
/// with them as notifications (SARIF), on stdout; the text stays on stderr; exit 2.
#[test]
fn json_and_sarif_describe_a_load_error() {
    let dir = fresh_dir("check-load-error");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, PFC_OFF_AT_HOST3.replace("mtu: 9000", "mtu: 9000 bytes")).unwrap();
    let f = bad.to_str().unwrap();
    let out = rocelab(&["check", "--format", "json", f]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("a JSON document on stdout");
    assert_eq!(v["ok"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["file"].as_str(), d["line"].as_u64(), d["path"].as_str()),
        (Some(f), Some(8), Some("fabric.qos.mtu"))
    );
    assert_eq!(d["severity"], "error");
    assert!(text(&out.stderr).contains("bad.yaml:8:"), "{}", text(&out.stderr));

    let out = rocelab(&["check", "--format", "sarif", f]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("a SARIF log on stdout");
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["results"], serde_json::json!([]));
    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let n = &inv["toolExecutionNotifications"][0];
    assert_eq!(n["level"], "error");
    assert!(n["message"]["text"].as_str().unwrap().starts_with("fabric.qos.mtu: "), "{n:#}");
    let loc = &n["locations"][0]["physicalLocation"];
    assert_eq!((loc["artifactLocation"]["uri"].as_str(), loc["region"]["startLine"].as_u64()), (Some(f), Some(8)));

    // A folder that cannot be imported says so in the document too.
    let out = rocelab(&["check", "--format", "json", "--import", dir.join("nosuch").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("a JSON document on stdout");
    assert_eq!(v["ok"], false);
    assert!(v["diagnostics"][0]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SARIF regions of fabric-file findings are the lines of what they are about: the link that
/// cables a port, or the device's entry, not line 1.
#[test]
fn sarif_regions_point_at_the_device_port_or_link() {
    let dir = fresh_dir("check-sarif-lines");
    std::fs::create_dir_all(&dir).unwrap();
    let fabric = dir.join("listed.yaml");
    let text_ = "fabric:
  name: listed
  topology:
    devices:
      - {name: sw1, role: switch, model: SN2700}
      - {name: h1, role: host, nic: {vendor: nvidia, model: ConnectX-5, ports: 1, speed: 100G}}
      - {name: h2, role: host, nic: {vendor: nvidia, model: ConnectX-5, ports: 1, speed: 100G}}
    links:
      - {a: \"sw1:eth1/1\", b: \"h1:p0\"}
      - {a: \"sw1:eth1/2\", b: \"h2:p0\"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 60}
      - {name: default, priority: 0, dscp: [0], ets: 40}
    ports:
      - {ports: [\"h2:p0\"], pfc: {roce: false}}
";
    std::fs::write(&fabric, text_).unwrap();
    let out = rocelab(&["check", "--format", "sarif", fabric.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let pfc = results.iter().find(|r| r["ruleId"] == "PFC-MISSING").expect("PFC-MISSING at h2:p0");
    let loc = &pfc["locations"][0]["physicalLocation"];
    assert_eq!(pfc["properties"]["device"], "h2");
    assert_eq!(loc["region"]["startLine"], 10, "the link that cables h2:p0: {pfc:#}");
    assert!(loc["region"]["startColumn"].as_u64().is_some_and(|c| c > 0), "{pfc:#}");
    for r in results {
        let line = r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap();
        assert!((5..=10).contains(&line), "every finding is at its device or link: {r:#}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
