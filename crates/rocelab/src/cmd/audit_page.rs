//! The audit's counters and findings as the report's audit page ([`rocelab_report::audit`]).

use rocelab_report::audit::{AuditFinding, AuditPage, CounterValue, Kind};
use rocelab_verify::audit::{Counter, Problem, Sample};
use rocelab_verify::Finding;

/// How a counter is drawn: durations apart from counts, settings listed only.
fn kind(c: Counter) -> Kind {
    match c {
        Counter::RxPauseDuration | Counter::TxPauseDuration => Kind::Microseconds,
        c if c.is_setting() => Kind::Setting,
        _ => Kind::Count,
    }
}

/// The page of an audit of `subject` against the intent from `intent`.
pub fn page(
    subject: &str,
    intent: &str,
    over: &str,
    samples: &[Sample],
    findings: &[Finding],
    problems: &[Problem],
) -> AuditPage {
    let counters = samples
        .iter()
        .map(|s| CounterValue {
            device: s.device.clone(),
            port: s.port.clone(),
            priority: s.priority,
            counter: match s.queue {
                Some(q) => format!("{} (queue {q})", s.counter.words()),
                None => s.counter.words().to_string(),
            },
            name: s.name.clone(),
            value: s.value,
            kind: kind(s.counter),
            at: format!("{}:{}", s.at.file, s.at.line),
        })
        .collect();
    let findings = findings
        .iter()
        .map(|f| AuditFinding {
            id: f.id.to_string(),
            severity: f.severity.to_string(),
            device: f.device.clone(),
            port: f.port.clone(),
            class: f.class.clone(),
            what: f.what.clone(),
            why: f.why.clone(),
            fix: f.fix.clone(),
            source: f.source.to_string(),
            at: f.location.as_ref().map(|o| format!("{}:{}", o.file, o.line)),
        })
        .collect();
    AuditPage {
        subject: subject.to_string(),
        intent: intent.to_string(),
        over: over.to_string(),
        counters,
        findings,
        problems: problems.iter().map(ToString::to_string).collect(),
    }
}
