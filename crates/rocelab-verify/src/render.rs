//! Findings as text: a readable table, JSON, and SARIF 2.1.0 (OASIS Static Analysis Results
//! Interchange Format: `runs[].tool.driver.rules`, `runs[].results[]` with `ruleId`, `level`,
//! `message.text` and `locations`), which code-scanning tools and editors read.

use crate::finding::{counts, rule, Finding, Severity, RULES};
use crate::state::Policy;
use rocelab_model::Diagnostic;
use serde_json::{json, Value};
use std::fmt::Write;

/// `text` safe to print on a terminal: control characters other than line feeds and tabs are
/// shown escaped (`\u{1b}`). Findings of `check --import` quote device output and LLDP
/// names, which may carry escape sequences that would otherwise act on the user's terminal.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return text.into();
    }
    text.chars()
        .map(|c| if c.is_control() && c != '\n' && c != '\t' { c.escape_default().to_string() } else { c.to_string() })
        .collect::<String>()
        .into()
}

/// The readable report: one block per finding, then a count, printable on a terminal
/// ([`printable`]).
pub fn table(findings: &[Finding], subject: &str) -> String {
    let mut s = String::new();
    for f in findings {
        let mut at = f.device.clone();
        if let Some(p) = &f.port {
            at.push(':');
            at.push_str(p);
        }
        let class = f.class.as_deref().map(|c| format!("  [{c}]")).unwrap_or_default();
        let _ = writeln!(s, "{:7} {:16} {at}{class}", f.severity.as_str(), f.id);
        if let Some(o) = &f.location {
            let _ = writeln!(s, "        at     {}:{}", o.file, o.line);
        }
        let _ = writeln!(s, "        what   {}", f.what);
        let _ = writeln!(s, "        why    {}", f.why);
        let _ = writeln!(s, "        fix    {}", f.fix);
        let _ = writeln!(s, "        source {}", f.source);
    }
    let (e, w, n) = counts(findings);
    if findings.is_empty() {
        let _ = writeln!(s, "{subject}: no findings");
    } else {
        let _ = writeln!(s, "{subject}: {e} error{}, {w} warning{}, {n} note{}", plural(e), plural(w), plural(n));
    }
    printable(&s).into_owned()
}

/// The policy `check` judged an imported fabric by, when it was inferred from the devices
/// (no `policy` in the links file): each part with the value most devices hold, how many do,
/// and who differs. `None` for a stated policy. Shown before the findings, printable on a
/// terminal ([`printable`]).
pub fn inferred_policy(p: &Policy) -> Option<String> {
    let inf = p.inferred.as_ref()?;
    let mut s = String::from("policy inferred from the devices (no policy in the links file):\n");
    for part in &inf.parts {
        let value = part.value.as_deref().unwrap_or("not shown by any device");
        let mut line = format!("  {:20} {value}", part.what);
        if part.value.is_some() {
            let _ = write!(line, " ({} of {} device{})", part.agree, part.voters, plural(part.voters));
        }
        if !part.dissent.is_empty() {
            let d: Vec<String> = part.dissent.iter().map(|(dev, has)| format!("{dev} has {has}")).collect();
            let _ = write!(line, "; {}", d.join(", "));
        }
        let _ = writeln!(s, "{line}");
    }
    Some(printable(&s).into_owned())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Findings as a JSON array.
pub fn json(findings: &[Finding]) -> Value {
    json!(findings)
}

/// Findings as a JSON array, those whose rule is in `expected` (the fabric file's `expect:`)
/// marked `"expected": true`.
pub fn json_expected(findings: &[Finding], expected: &[String]) -> Value {
    Value::Array(
        findings
            .iter()
            .map(|f| {
                let mut v = json!(f);
                if expected.iter().any(|id| id == f.id) {
                    v["expected"] = Value::Bool(true);
                }
                v
            })
            .collect(),
    )
}

/// The JSON document of a check that could not run because its input did not load: `ok` false
/// and the loader's diagnostics (file, line, column, field path, message, expected,
/// suggestion), in the shape `rocelab validate --format json` gives them.
pub fn json_load_error(diagnostics: &[Diagnostic]) -> Value {
    json!({"ok": false, "diagnostics": diagnostics})
}

/// A SARIF region: the line, and the column when known.
fn region(line: usize, column: usize) -> Value {
    match column {
        0 => json!({"startLine": line.max(1)}),
        c => json!({"startLine": line.max(1), "startColumn": c}),
    }
}

/// The SARIF 2.1.0 log of a check that could not run because its input did not load: no
/// results, and one invocation with `executionSuccessful: false` whose
/// `toolExecutionNotifications` are the loader's diagnostics, each at its file, line and
/// column (OASIS SARIF 2.1.0, sections 3.20.14, 3.20.21 and 3.58: how a consumer tells a failed
/// run from a clean one).
pub fn sarif_load_error(diagnostics: &[Diagnostic]) -> Value {
    let notifications: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let mut text = String::new();
            if !d.path.is_empty() {
                text.push_str(&format!("{}: ", d.path));
            }
            text.push_str(&d.message);
            if let Some(e) = &d.expected {
                text.push_str(&format!(" (expected {e})"));
            }
            if let Some(s) = &d.suggestion {
                text.push_str(&format!("; {s}"));
            }
            let mut location = json!({"artifactLocation": {"uri": d.file}});
            if d.line > 0 {
                location["region"] = region(d.line, d.column);
            }
            json!({
                "level": d.severity.as_str(),
                "message": {"text": text},
                "locations": [{"physicalLocation": location}],
            })
        })
        .collect();
    let mut log = sarif(&[], "");
    log["runs"][0]["invocations"] =
        json!([{"executionSuccessful": false, "toolExecutionNotifications": notifications}]);
    log
}

/// SARIF 2.1.0 `result.level`: the severity's own name (`note`, `warning`, `error`).
fn level(s: Severity) -> &'static str {
    s.as_str()
}

/// A SARIF 2.1.0 log. `artifact` is the file the findings are about (the fabric file) for
/// findings without a configuration line of their own; their region is its first line.
pub fn sarif(findings: &[Finding], artifact: &str) -> Value {
    sarif_at(findings, artifact, &|_| None, &[])
}

/// A SARIF 2.1.0 log whose findings without a configuration line of their own are placed by
/// `at` (the line and column of their device, port or link in the fabric file; line 1 where it
/// gives none), and whose findings of a rule in `expected` (the file's `expect:`) carry
/// `properties.expected: true`.
pub fn sarif_at(
    findings: &[Finding],
    artifact: &str,
    at: &dyn Fn(&Finding) -> Option<(usize, usize)>,
    expected: &[String],
) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id.replace('-', ""),
                "shortDescription": {"text": r.summary},
                "properties": {"check": r.check, "source": r.source},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let (uri, (line, column)) = match &f.location {
                Some(o) => (o.file.clone(), (o.line, 0)),
                None => (artifact.to_string(), at(f).unwrap_or((1, 0))),
            };
            let logical = match &f.port {
                Some(p) => format!("{}:{p}", f.device),
                None => f.device.clone(),
            };
            let text = format!("{} Why: {} Fix: {}", f.what, f.why, f.fix);
            let mut result = json!({
                "ruleId": f.id,
                "ruleIndex": RULES.iter().position(|r| r.id == f.id),
                "level": level(f.severity),
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": region(line, column),
                    },
                    "logicalLocations": [{"name": logical, "kind": if f.port.is_some() { "port" } else { "device" }}],
                }],
                "properties": {
                    "device": f.device,
                    "port": f.port,
                    "class": f.class,
                    "source": f.source,
                    "check": rule(f.id).map(|r| r.check),
                },
            });
            if expected.iter().any(|id| id == f.id) {
                result["properties"]["expected"] = Value::Bool(true);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "rocelab",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::{printable, sarif_load_error};
    use rocelab_model::diag::{Diagnostic, Mark};

    /// A file that cannot be read has no position: its notification names the file without a
    /// region, never line 0 (SARIF lines start at 1); a located one has line and column.
    #[test]
    fn a_load_error_without_a_position_has_no_region() {
        let mut unreadable = Diagnostic::error(Mark::default(), "", "cannot read the file: No such file or directory");
        unreadable.file = "f.yaml".into();
        let mut located = Diagnostic::error(Mark { line: 3, column: 7 }, "fabric.qos.mtu", "bad").expected("a size");
        located.file = "f.yaml".into();
        let log = sarif_load_error(&[unreadable, located]);
        let n = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
        let first = &n[0]["locations"][0]["physicalLocation"];
        assert_eq!(first["artifactLocation"]["uri"], "f.yaml");
        assert!(first.get("region").is_none(), "{first}");
        assert_eq!(
            n[1]["locations"][0]["physicalLocation"]["region"],
            serde_json::json!({"startLine": 3, "startColumn": 7})
        );
        assert_eq!(n[1]["message"]["text"], "fabric.qos.mtu: bad (expected a size)");
    }

    #[test]
    fn escape_sequences_from_device_output_are_shown_not_obeyed() {
        assert_eq!(printable("leaf1:Ethernet0\n\tok"), "leaf1:Ethernet0\n\tok");
        assert_eq!(printable("port \u{1b}[2Jeth0\r"), "port \\u{1b}[2Jeth0\\r");
    }
}
