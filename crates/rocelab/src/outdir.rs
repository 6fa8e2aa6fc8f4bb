//! Output directories made and proven writable before the work that fills them: a simulation
//! can run for minutes, and a `--out` that is a file or a folder the user cannot write must be
//! said at once, not after the run (when its results are lost).

use std::io::ErrorKind;
use std::path::Path;

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
