//! `sim --all --ray`: what the CLI says before any Ray runs. The Ray sweep itself (the same
//! folder as the serial run, byte for byte; a failed run recorded while the others go on) is
//! tested with the Python package and Ray installed, in `crates/rocelab-py/tests/test_cli_ray.py`.

use super::{fresh_dir, text, workspace};
use std::process::Command;

#[test]
fn ray_needs_all() {
    let out = super::rocelab(&["sim", "examples/sim-incast-two-tier.yaml", "--ray"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("--all"), "{err}");
}

#[test]
fn a_python_that_cannot_start_is_named_with_what_to_install() {
    let dir = fresh_dir("ray-no-python");
    let python = dir.join("no-such-python");
    let out = Command::new(env!("CARGO_BIN_EXE_rocelab"))
        .args(["sim", "examples/sim-incast-two-tier.yaml", "--all", "--ray", "--quiet", "--out"])
        .arg(dir.join("out"))
        .env("ROCELAB_PYTHON", &python)
        .current_dir(workspace())
        .output()
        .expect("runs rocelab");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("cannot start {} for the Ray sweep", python.display())), "{err}");
    assert!(err.contains("pip install ./crates/rocelab-py 'ray>=2.9'") && err.contains("ROCELAB_PYTHON"), "{err}");
    assert!(!dir.join("out/index.json").exists(), "nothing is written");
    let _ = std::fs::remove_dir_all(&dir);
}
