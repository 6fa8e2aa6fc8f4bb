//! Paths of the files written under an output folder (`config --out`, `sim --all --out`,
//! `import hpcc --out`) whose names come from the fabric: device names, variant names, sweep
//! values, imported file names. The loader already refuses names that are no hostname or that
//! hold a path separator; this is the second line of defence: whatever a name holds, the file
//! lands inside the output folder or nothing is written.

use std::path::{Component, Path, PathBuf};

/// Why `name` cannot be a file name directly inside the output folder, if it cannot.
fn refusal(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name == "." || name == ".." {
        return Some("it names a folder, not a file in it");
    }
    if name.contains(['/', '\\']) {
        return Some("it holds a path separator");
    }
    if name.chars().any(char::is_control) {
        return Some("it holds a control character");
    }
    // What the platform makes of it: one plain component (not a root, a drive prefix such as
    // `C:x` on Windows, or `..`).
    let mut parts = Path::new(name).components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(c)), None) if c == name => None,
        _ => Some("it is not a plain file name"),
    }
}

/// `dir/name`, if `name` is one plain file name (no separator, not `.` or `..`, not absolute, no
/// control character); else an error naming it and the folder.
pub fn file_in(dir: &Path, name: &str) -> Result<PathBuf, String> {
    match refusal(name) {
        None => Ok(dir.join(name)),
        Some(why) => Err(format!(
            "refusing to write `{}`: {why}, and files written under {} stay directly inside it",
            name.escape_debug(),
            dir.display()
        )),
    }
}

/// `dir/rel` for a relative path made of plain names ([`file_in`] for each of its parts), such as
/// a run's `runs/VARIANT/FIELD=VALUE`.
pub fn path_in(dir: &Path, rel: &Path) -> Result<PathBuf, String> {
    let mut out = dir.to_path_buf();
    let mut any = false;
    for c in rel.components() {
        let part = match c {
            Component::Normal(p) => p.to_string_lossy().into_owned(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        };
        out = file_in(&out, &part).map_err(|e| format!("{e} (in {})", rel.display()))?;
        any = true;
    }
    if any {
        Ok(out)
    } else {
        Err(format!("refusing to write into `{}`: it names no folder under {}", rel.display(), dir.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_joined() {
        let dir = Path::new("out");
        for name in ["h1.sh", "sw1.config_db.json", "RUNBOOK.md", "s2d-node1.ps1", "a b.txt", "..x", "x.."] {
            assert_eq!(file_in(dir, name).unwrap(), dir.join(name), "{name}");
        }
    }

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        let dir = Path::new("out");
        for name in ["../escaped.sh", "..", ".", "", "/etc/passwd", "a/b", "a\\b", "x\n.sh", "sub/../../x"] {
            let e = file_in(dir, name).unwrap_err();
            assert!(e.contains("refusing to write") && e.contains("out"), "{name}: {e}");
        }
        assert!(file_in(dir, "../escaped.sh").unwrap_err().contains("path separator"));
        assert!(file_in(dir, "..").unwrap_err().contains("names a folder"));
    }

    #[test]
    fn relative_run_paths_must_be_plain_all_the_way() {
        let dir = Path::new("out");
        assert_eq!(path_in(dir, Path::new("runs/base/qos.mtu=9000")).unwrap(), dir.join("runs/base/qos.mtu=9000"));
        for rel in ["runs/../../x", "/abs", "runs/..", "", "."] {
            assert!(path_in(dir, Path::new(rel)).is_err(), "{rel}");
        }
    }
}
