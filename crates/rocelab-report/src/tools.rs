//! External programs the tests of rocelab's outputs use (headless Chromium for the report,
//! tshark for captures). A test whose tool is missing says why and passes, unless the
//! environment variable `ROCELAB_REQUIRE_TOOLS` is set (CI sets it), in which case it fails.
//!
//! The "why" is a `SKIPPED` line written straight to the process's stderr: libtest captures
//! `eprintln!` of a passing test, so a skip said that way would show as a plain `ok` and a user
//! could not tell that the test checked nothing.

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

/// The tool, or `None` after printing why the caller skips (see the module). Panics (fails the
/// test) when the tool is missing and [`REQUIRE_TOOLS`] is set.
pub fn require(what: &str, candidates: &[&str], install: &str) -> Option<PathBuf> {
    if let Some(p) = find(candidates) {
        return Some(p);
    }
    let msg = format!("{what} is not installed (looked for {} on PATH; `{install}`)", candidates.join(", "));
    if std::env::var_os(REQUIRE_TOOLS).is_some_and(|v| !v.is_empty()) {
        panic!("{msg}; {REQUIRE_TOOLS} is set, so this is an error");
    }
    skip(&tool_missing(&msg));
    None
}

/// Says on the test output, past libtest's capture, that the running test skipped what needs
/// something this machine lacks (`why`): data files read in place, for instance.
pub fn skip(why: &str) {
    // libtest names a test's thread after the test.
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(skipped_line(&test, why).as_bytes());
}

/// Why a test skipped for a missing tool, with the way to make that an error.
fn tool_missing(msg: &str) -> String {
    format!("{msg}; set {REQUIRE_TOOLS}=1 to make this an error")
}

/// The line that says a test skipped.
fn skipped_line(test: &str, why: &str) -> String {
    format!("SKIPPED {test}: {why}\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_programs_on_the_path_and_absolute_ones() {
        assert!(super::find(&["/nonexistent/tool", "sh"]).is_some());
        assert!(super::find(&["rocelab-no-such-tool-xyz"]).is_none());
    }

    #[test]
    fn a_skip_names_the_test_the_tool_and_the_way_out() {
        let l = super::skipped_line(
            "report_opens",
            &super::tool_missing("tshark is not installed (looked for tshark on PATH; `apt-get install tshark`)"),
        );
        assert_eq!(
            l,
            "SKIPPED report_opens: tshark is not installed (looked for tshark on PATH; `apt-get install tshark`); \
             set ROCELAB_REQUIRE_TOOLS=1 to make this an error\n"
        );
    }
}
