//! `rocelab tune FILE --out DIR [--trials N] [--ray ADDRESS]`: the file's `tune:` section is
//! checked here (located errors, exit 1, no Python needed), then the search runs in the Python
//! package (`python -m rocelab.tune`: Ray Tune with Optuna's sampler), whose exit code is this
//! command's. The search lives in Python because Ray Tune and Optuna are Python libraries; this
//! command is the glue that finds an interpreter with them.

use crate::failure::{Failure, BAD_INPUT, REFUSED};
use crate::input;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The arguments of `rocelab tune`.
pub struct Args {
    pub file: PathBuf,
    pub out: PathBuf,
    pub trials: Option<u32>,
    pub ray: Option<String>,
    pub concurrency: u32,
    pub cpus: Option<u32>,
}

/// What installs the Python side: the package from this repository, Ray Tune, Optuna, PyYAML.
const PIP: &str = "pip install ./crates/rocelab-py \"ray[tune]>=2.9\" \"optuna>=3.4\" pyyaml";

pub fn run(a: &Args) -> Result<ExitCode, Failure> {
    let (loaded, _) = input::open(Some(&a.file), None, None, BAD_INPUT)?;
    if loaded.scenario.tune.is_none() {
        return Err(Failure::error(
            BAD_INPUT,
            format!(
                "{}: no `tune:` section to search; add one with `parameters` (field paths and ranges) and an `objective` (README, \"rocelab tune\")",
                a.file.display()
            ),
        ));
    }
    let problems = loaded.tune_problems();
    if problems.has_errors() {
        return Err(Failure::diagnostics(BAD_INPUT, &problems));
    }
    let python = interpreter().ok_or_else(|| {
        Failure::error(
            REFUSED,
            format!("rocelab tune runs its search in Python and found none: no .venv/bin/python here or above, and no python3 on PATH (set ROCELAB_PYTHON, or install: {PIP})"),
        )
    })?;
    let probe = Command::new(&python).args(["-c", "import rocelab.tune, ray.tune, optuna, yaml"]).output();
    match probe {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            let why = String::from_utf8_lossy(&o.stderr);
            let last = why.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("it exited with an error");
            return Err(Failure::error(
                REFUSED,
                format!("{} cannot run the search ({last}); install what it needs: {PIP}", python.display()),
            ));
        }
        Err(e) => return Err(Failure::error(REFUSED, format!("cannot start {}: {e}", python.display()))),
    }
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "rocelab.tune"]).arg(&a.file).arg("--out").arg(&a.out);
    cmd.arg("--concurrency").arg(a.concurrency.to_string());
    if let Some(n) = a.trials {
        cmd.arg("--trials").arg(n.to_string());
    }
    if let Some(addr) = &a.ray {
        cmd.arg("--ray").arg(addr);
    }
    if let Some(c) = a.cpus {
        cmd.arg("--cpus").arg(c.to_string());
    }
    let status =
        cmd.status().map_err(|e| Failure::error(REFUSED, format!("cannot start {}: {e}", python.display())))?;
    // A search killed by a signal has no code: it did not finish.
    Ok(ExitCode::from(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(REFUSED)))
}

/// The interpreter to run the search with: `ROCELAB_PYTHON`; else a `.venv/bin/python` in the
/// current folder or one above it, or above this executable (a checkout's `target/`); else
/// `python3` on `PATH`.
fn interpreter() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ROCELAB_PYTHON").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let starts = [std::env::current_dir().ok(), std::env::current_exe().ok()];
    for start in starts.iter().flatten() {
        if let Some(found) = start.ancestors().map(|d| d.join(".venv/bin/python")).find(|p| p.is_file()) {
            return Some(found);
        }
    }
    on_path("python3")
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_executable_on_path_is_found_and_a_plain_file_is_not() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("rocelab-tune-path-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("runme");
        let plain = dir.join("readme");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::write(&plain, "text").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(is_executable(&exe));
        assert!(!is_executable(&plain));
        assert!(!is_executable(&dir.join("missing")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
