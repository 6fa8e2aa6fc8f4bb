//! External programs the tests of rocelab's outputs use (headless Chromium for the report,
//! tshark for captures). A test whose tool is missing says why and passes, unless the
//! environment variable `ROCELAB_REQUIRE_TOOLS` is set (CI sets it), in which case it fails.

use std::path::{Path, PathBuf};

/// Name of the variable that makes missing tools an error.
pub const REQUIRE_TOOLS: &str = "ROCELAB_REQUIRE_TOOLS";

/// The first of `candidates` (absolute paths or names on `PATH`) that exists.
pub fn find(candidates: &[&str]) -> Option<PathBuf> {
    for c in candidates {
        let p = Path::new(c);
        if p.is_absolute() {
            if p.is_file() {
                return Some(p.to_path_buf());
            }
            continue;
        }
        let path = std::env::var_os("PATH")?;
        if let Some(found) = std::env::split_paths(&path).map(|d| d.join(c)).find(|f| f.is_file()) {
            return Some(found);
        }
    }
    None
}

/// The tool, or `None` after printing why the caller skips. Panics (fails the test) when the
/// tool is missing and [`REQUIRE_TOOLS`] is set.
pub fn require(what: &str, candidates: &[&str], install: &str) -> Option<PathBuf> {
    if let Some(p) = find(candidates) {
        return Some(p);
    }
    let msg = format!("{what} not found (looked for {}); install it with `{install}`", candidates.join(", "));
    if std::env::var_os(REQUIRE_TOOLS).is_some_and(|v| !v.is_empty()) {
        panic!("{msg}; {REQUIRE_TOOLS} is set, so this is an error");
    }
    eprintln!("skipped: {msg}");
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_programs_on_the_path_and_absolute_ones() {
        assert!(super::find(&["/nonexistent/tool", "sh"]).is_some());
        assert!(super::find(&["rocelab-no-such-tool-xyz"]).is_none());
    }
}
