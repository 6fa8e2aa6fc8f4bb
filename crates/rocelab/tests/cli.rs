//! The `rocelab` command as a user runs it: exit codes, what goes to stdout and stderr, and the
//! readable summary of the built-in example (a golden file reviewed as text).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rocelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocelab")).args(args).current_dir(workspace()).output().expect("runs rocelab")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn show_prints_the_builtin_example() {
    let out = rocelab(&["show"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    insta::assert_snapshot!("show_default", text(&out.stdout));
}

#[test]
fn show_with_a_variant_and_as_json() {
    let out = rocelab(&[
        "show",
        "examples/demartek-config4-two-switch.yaml",
        "--variant",
        "congestion-dcqcn-ets",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["qos"]["dcqcn"]["enabled"], true);
    assert_eq!(v["links"].as_array().unwrap().len(), 7);
    let out = rocelab(&["show", "examples/demartek-config4-two-switch.yaml", "--variant", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no variant `nope`"), "{}", text(&out.stderr));
}

#[test]
fn validate_reports_ok_and_every_error() {
    let out = rocelab(&["validate", "examples/demartek-config4-two-switch.yaml"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("OK examples/demartek-config4-two-switch.yaml"));

    let dir = std::env::temp_dir().join(format!("rocelab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    let good = std::fs::read_to_string(workspace().join("examples/demartek-config4-two-switch.yaml")).unwrap();
    std::fs::write(
        &bad,
        good.replace("priority: 5", "priority: 9")
            .replace("cable: 3m}\n      - {a: \"sn2410:eth1/1\"", "cable: 3meters}\n      - {a: \"sn2410:eth1/1\""),
    )
    .unwrap();
    let out = rocelab(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("bad.yaml:") && err.contains("unknown length unit `meters`"), "{err}");
    assert!(text(&out.stdout).contains("FAILED"), "{}", text(&out.stdout));

    let out = rocelab(&["validate", "--format", "json", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["ok"], false);
    assert!(v[0]["diagnostics"][0]["line"].as_u64().unwrap() > 0);
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let out = rocelab(&["validate", "no/such/file.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("no/such/file.yaml") && err.contains("cannot read the file"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn examples_are_listed_and_printed() {
    let out = rocelab(&["examples"]);
    assert!(text(&out.stdout).contains("demartek-config4-two-switch"));
    let out = rocelab(&["examples", "demartek-config4-two-switch"]);
    assert!(text(&out.stdout).starts_with("# Demartek"));
    let out = rocelab(&["examples", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_exit_codes_and_formats() {
    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/healthy-leaf-spine.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("healthy-leaf-spine.yaml: no findings\n"));

    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/ring-deadlock.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("error   DEADLOCK-CYCLE   s1:p2  [roce (priority 3)]"), "{}", text(&out.stdout));

    // Warnings only: 0, or 1 with --strict.
    let out = rocelab(&["check", "examples/demartek-config4-two-switch.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    let out = rocelab(&["check", "examples/demartek-config4-two-switch.yaml", "--strict"]);
    assert_eq!(out.status.code(), Some(1));

    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/misconfigured.yaml", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.as_array().unwrap().iter().any(|f| f["id"] == "MAP-TOS" && f["device"] == "h1"));

    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/misconfigured.yaml", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert!(!v["runs"][0]["results"].as_array().unwrap().is_empty());
}

#[test]
fn check_imports_running_configs_and_reports_unread_lines() {
    let out = rocelab(&[
        "check",
        "--import",
        "crates/rocelab-verify/tests/fabrics/import",
        "--links",
        "crates/rocelab-verify/tests/fabrics/import-links.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("import/leaf1.cfg:32: not understood: ip routing"), "{err}");
    assert!(text(&out.stdout).contains("PFC-MISSING      leaf2:Ethernet4"), "{}", text(&out.stdout));

    let out = rocelab(&["check", "--import", "no/such/dir", "--links", "x.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read the directory"));
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn check_of_a_broken_file_is_an_error_not_a_panic() {
    let out = rocelab(&["check", "no/such/file.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read the file"));
}

#[test]
fn config_writes_every_device_and_the_runbook() {
    let dir = std::env::temp_dir().join(format!("rocelab-cli-config-{}", std::process::id()));
    let out = rocelab(&[
        "config",
        "examples/demartek-config4-two-switch.yaml",
        "--variant",
        "congestion-dcqcn-ets",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wrote 8 device files and RUNBOOK.md"));
    let onyx = std::fs::read_to_string(dir.join("sn2410.onyx.txt")).unwrap();
    assert!(onyx.contains("dcb priority-flow-control priority 5 enable"));
    let runbook = std::fs::read_to_string(dir.join("RUNBOOK.md")).unwrap();
    assert!(runbook.contains("## 1. Switches") && runbook.contains("Get-NetQosFlowControl"));
    // Warnings go to stderr, naming device and port.
    assert!(text(&out.stderr).contains("warning: hpe5900:Ten-GigabitEthernet1/0/1:"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_prints_one_device_and_rejects_unknown_names() {
    let out = rocelab(&["config", "examples/demartek-config4-two-switch.yaml", "--device", "hpe5900"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("priority-flow-control no-drop dot1p 5"));
    let out = rocelab(&["config", "examples/demartek-config4-two-switch.yaml", "--device", "hpe590"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no device `hpe590` in the fabric; did you mean hpe5900"),
        "{}",
        text(&out.stderr)
    );
    let out = rocelab(&["config", "no/such/file.yaml", "--device", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn sim_runs_the_builtin_scenario_and_writes_results() {
    let dir = std::env::temp_dir().join(format!("rocelab-sim-{}", std::process::id()));
    let out = rocelab(&["sim", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("victim host9>host12"), "{}", text(&out.stdout));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(v["results"]["schema_version"], 2);
    assert_eq!(v["names"]["nodes"][0], "leaf1");
    assert_eq!(v["names"]["flows"][0], "victim");
    assert!(std::fs::read_to_string(dir.join("summary.txt")).unwrap().starts_with("simulated"));
}

#[test]
fn sim_bad_input_is_located_and_oversize_runs_are_refused() {
    let dir = std::env::temp_dir().join(format!("rocelab-sim-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(workspace().join("examples/sim-incast-two-tier.yaml")).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, good.replace("to: host12, class: roce", "to: host12, class: rdma")).unwrap();
    let out = rocelab(&["sim", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("workloads.flows[0].class: no class `rdma`"), "{err}");
    let huge = dir.join("huge.yaml");
    std::fs::write(
        &huge,
        good.replace("duration: 2ms", "duration: 10s").replace("sample_interval: 10us", "sample_interval: 1ns"),
    )
    .unwrap();
    let out = rocelab(&["sim", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("refused"), "{err}");
}
