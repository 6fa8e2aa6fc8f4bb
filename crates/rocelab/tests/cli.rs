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
