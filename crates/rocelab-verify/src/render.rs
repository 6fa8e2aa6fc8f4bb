//! Findings as text: a readable table, JSON, and SARIF 2.1.0 (OASIS Static Analysis Results
//! Interchange Format: `runs[].tool.driver.rules`, `runs[].results[]` with `ruleId`, `level`,
//! `message.text` and `locations`), which code-scanning tools and editors read.

use crate::finding::{counts, rule, Finding, Severity, RULES};
use crate::state::Policy;
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

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A SARIF 2.1.0 log. `artifact` is the file the findings are about (the fabric file) for
/// findings without a configuration line of their own.
pub fn sarif(findings: &[Finding], artifact: &str) -> Value {
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
            let (uri, line) = match &f.location {
                Some(o) => (o.file.clone(), o.line.max(1)),
                None => (artifact.to_string(), 1),
            };
            let logical = match &f.port {
                Some(p) => format!("{}:{p}", f.device),
                None => f.device.clone(),
            };
            let text = format!("{} Why: {} Fix: {}", f.what, f.why, f.fix);
            json!({
                "ruleId": f.id,
                "ruleIndex": RULES.iter().position(|r| r.id == f.id),
                "level": level(f.severity),
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {"startLine": line},
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
            })
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
    use super::printable;

    #[test]
    fn escape_sequences_from_device_output_are_shown_not_obeyed() {
        assert_eq!(printable("leaf1:Ethernet0\n\tok"), "leaf1:Ethernet0\n\tok");
        assert_eq!(printable("port \u{1b}[2Jeth0\r"), "port \\u{1b}[2Jeth0\\r");
    }
}
