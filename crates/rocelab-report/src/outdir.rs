//! Output directories made and proven writable before the work that fills them: a simulation
//! can run for minutes, and a `--out` that is a file or a folder the user cannot write must be
//! said at once, not after the run (when its results are lost).
//!
//! Paths of the files written under an output folder (`config --out`, `sim --all --out`,
//! `import hpcc --out`) whose names come from the fabric: device names, variant names, sweep
//! values, imported file names. The loader already refuses names that are no hostname or that
//! hold a path separator; this is the second line of defence: whatever a name holds, the file
//! lands inside the output folder or nothing is written.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// Makes `dir` (and its parents) and creates and removes a file in it. The error names the path
/// at fault: a file where a directory is wanted (`out: not a directory`, also for a parent), or
/// the directory that cannot be made or written, with the system's reason.
pub fn prepare(dir: &Path) -> Result<(), String> {
    // The nearest existing ancestor (or `dir` itself) must be a directory; `create_dir_all`
    // would say "File exists" or "Not a directory" without naming which path is the file.
    if let Some(file) = dir.ancestors().find(|a| !a.as_os_str().is_empty() && a.exists()).filter(|a| !a.is_dir()) {
        return Err(format!(
            "{}: not a directory (it is a file; give --out a directory, or remove the file)",
            file.display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create the directory: {e}", dir.display()))?;
    // A file of our own that nobody else would use; `create_new` never clobbers one.
    let probe = dir.join(format!(".rocelab-write-test-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        // Left behind by a run of the same process id that was killed: writable after all.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("{}: cannot write in the directory: {e}", dir.display())),
    }
}

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
    use super::prepare;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("rocelab-outdir-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn makes_the_directory_and_leaves_nothing_behind() {
        let d = scratch("new");
        prepare(&d.join("a/b")).unwrap();
        assert!(d.join("a/b").is_dir());
        assert_eq!(std::fs::read_dir(d.join("a/b")).unwrap().count(), 0, "the probe is removed");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_file_in_the_way_is_named() {
        let d = scratch("file");
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("results");
        std::fs::write(&f, "x").unwrap();
        let e = prepare(&f).unwrap_err();
        assert!(e.starts_with(&format!("{}: not a directory", f.display())), "{e}");
        // Also when the file is a parent of the directory asked for.
        let e = prepare(&f.join("run1")).unwrap_err();
        assert!(e.starts_with(&format!("{}: not a directory", f.display())), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[cfg(test)]
mod name_tests {
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
