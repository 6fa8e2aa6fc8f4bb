//! Diagnostics: what went wrong in a fabric file, where, and what to do about it. Returned as
//! data (never printed here) so that the CLI, an editor integration or a test can render them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How serious a diagnostic or finding is. One type for the whole workspace: the model's load
/// diagnostics, the configuration renderer's findings, `check`'s findings and the simulator's
/// build warnings all use it, so a tool reading their JSON sees one vocabulary. Ordered from the
/// least serious; serialized and printed in lower case (`note`, `warning`, `error`), the names
/// of SARIF 2.1.0's `result.level` values (OASIS SARIF 2.1.0, section 3.27.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; not a fault.
    Note,
    Warning,
    Error,
}

impl Severity {
    /// The lower-case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A position in a source file, 1-based as editors show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Mark {
    pub line: usize,
    pub column: usize,
}

/// One finding about an input file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The file the fabric was read from (empty for text given in memory).
    pub file: String,
    /// 1-based; 0 when the problem is the file's as a whole (it cannot be read, or the parser
    /// gave no position): printed as `file: error: …` and serialized as `null`, never as a
    /// position `0:0` that no editor can go to.
    #[serde(serialize_with = "position")]
    pub line: usize,
    #[serde(serialize_with = "position")]
    pub column: usize,
    /// The field's path, e.g. `fabric.topology.links[3].b`.
    pub path: String,
    pub message: String,
    /// What would have been accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// A close match or a fix, e.g. `did you mean "sw2"?`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// A line or column as JSON: the number, or `null` for 0 (no position).
fn position<S: serde::Serializer>(n: &usize, s: S) -> Result<S::Ok, S::Error> {
    match *n {
        0 => s.serialize_none(),
        n => s.serialize_u64(n as u64),
    }
}

impl Diagnostic {
    pub fn error(mark: Mark, path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            file: String::new(),
            line: mark.line,
            column: mark.column,
            path: path.into(),
            message: message.into(),
            expected: None,
            suggestion: None,
        }
    }
    pub fn warning(mark: Mark, path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(mark, path, message) }
    }
    pub fn expected(mut self, e: impl Into<String>) -> Diagnostic {
        self.expected = Some(e.into());
        self
    }
    pub fn suggest(mut self, s: Option<String>) -> Diagnostic {
        self.suggestion = s;
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = self.severity.as_str();
        let file = if self.file.is_empty() { "<input>" } else { &self.file };
        match (self.line, self.column) {
            (0, _) => write!(f, "{file}: {sev}: ")?,
            (line, 0) => write!(f, "{file}:{line}: {sev}: ")?,
            (line, column) => write!(f, "{file}:{line}:{column}: {sev}: ")?,
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)?;
        if let Some(e) = &self.expected {
            write!(f, " (expected {e})")?;
        }
        if let Some(s) = &self.suggestion {
            write!(f, "; {s}")?;
        }
        Ok(())
    }
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(&word.to_ascii_lowercase(), &c.to_ascii_lowercase());
        if score > 0.8 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| format!("did you mean \"{c}\"?"))
}

/// All diagnostics of one load, errors and warnings.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| !d.is_error())
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d)
    }
    pub fn set_file(&mut self, file: &str) {
        for d in &mut self.0 {
            if d.file.is_empty() {
                d.file = file.to_string();
            }
        }
    }
    /// Sorted by position so that a reader goes through the file once.
    pub fn sort(&mut self) {
        self.0.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        self.0.dedup();
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// A problem found while validating, with the field path it belongs to; the loader turns the
/// path into a file position (line and column of that field).
pub(crate) struct Problem {
    pub path: String,
    pub diag: Diagnostic,
}

/// An error at field `path`, its position still to be found.
pub(crate) fn problem(path: String, message: String) -> Problem {
    Problem { diag: Diagnostic::error(Default::default(), path.clone(), message), path }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestion_finds_close_names() {
        assert_eq!(did_you_mean("sw3", ["sw1", "sw2", "node1"]).as_deref(), Some("did you mean \"sw1\"?"));
        assert_eq!(did_you_mean("lossles", ["lossless", "ets"]).as_deref(), Some("did you mean \"lossless\"?"));
        assert_eq!(did_you_mean("zzzz", ["lossless", "ets"]), None);
    }

    #[test]
    fn display_has_file_line_column_path() {
        let mut d = Diagnostic::error(Mark { line: 3, column: 7 }, "fabric.qos.mtu", "bad")
            .expected("a number")
            .suggest(Some("did you mean \"x\"?".into()));
        d.file = "f.yaml".into();
        assert_eq!(d.to_string(), "f.yaml:3:7: error: fabric.qos.mtu: bad (expected a number); did you mean \"x\"?");
    }

    /// A problem of the whole file (it cannot be read) has no position: `file: error: …`, and
    /// `null` line and column in JSON, never `file:0:0`.
    #[test]
    fn a_file_level_error_has_no_position() {
        let mut d = Diagnostic::error(Mark::default(), "", "cannot read the file: No such file or directory");
        d.file = "f.yaml".into();
        assert_eq!(d.to_string(), "f.yaml: error: cannot read the file: No such file or directory");
        let v = serde_json::to_value(&d).unwrap();
        assert!(v["line"].is_null() && v["column"].is_null(), "{v}");
        d.line = 4;
        assert_eq!(d.to_string(), "f.yaml:4: error: cannot read the file: No such file or directory");
        assert_eq!(serde_json::to_value(&d).unwrap()["line"], 4);
    }

    /// The one severity keeps the names every output already used: serialized, printed and
    /// ordered the same.
    #[test]
    fn severity_names_and_order() {
        for (s, name) in [(Severity::Note, "note"), (Severity::Warning, "warning"), (Severity::Error, "error")] {
            assert_eq!(serde_json::to_value(s).unwrap(), name);
            assert_eq!(s.to_string(), name);
        }
        assert!(Severity::Note < Severity::Warning && Severity::Warning < Severity::Error);
        let w = Diagnostic::warning(Mark { line: 2, column: 1 }, "p", "m");
        assert!(w.to_string().contains(": warning: p: m"), "{w}");
    }
}
