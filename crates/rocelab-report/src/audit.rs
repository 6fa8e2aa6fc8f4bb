//! The audit page: a running fabric's counters (`rocelab audit --out DIR`), one section per
//! port with its counters as charts and the audit's findings about that port beside them, and
//! every finding in one table at the top. One self-contained HTML file, styled and checked
//! (script errors, every chart drawn) as the simulation report is.
//!
//! This crate does not know the audit's types: the caller hands the counters and findings over
//! as plain text and numbers ([`AuditPage`]).

use crate::chart::{bar_chart, esc, Axis, BarChart, Unit};
use crate::html::{ERROR_HOOK, STATUS, STYLE};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What the audit read and found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AuditPage {
    /// What was audited against what: `after/ against fabric.yaml`.
    pub subject: String,
    /// Where the intent came from (the fabric file, imported configuration, inference).
    pub intent: String,
    /// What the values are: the increase over the interval, or the counts since a clear.
    pub over: String,
    pub counters: Vec<CounterValue>,
    pub findings: Vec<AuditFinding>,
    /// Input that could not be read, each as the audit printed it (`file:line: error: …`).
    pub problems: Vec<String>,
}

/// One counter of one port.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterValue {
    pub device: String,
    pub port: Option<String>,
    pub priority: Option<u8>,
    /// The counter in words (`PFC pause frames received`).
    pub counter: String,
    /// The name the device printed.
    pub name: String,
    pub value: u64,
    pub kind: Kind,
    /// `file:line` it was read from.
    pub at: String,
}

/// How a value is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Events, frames or packets.
    Count,
    /// Microseconds (mlx5 pause durations).
    Microseconds,
    /// A setting read beside the counters (a CNP priority): listed, not charted.
    Setting,
}

/// One finding of the audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditFinding {
    pub id: String,
    /// `error`, `warning` or `note`.
    pub severity: String,
    pub device: String,
    pub port: Option<String>,
    pub class: Option<String>,
    pub what: String,
    pub why: String,
    pub fix: String,
    pub source: String,
    /// `file:line` of the counter it rests on.
    pub at: Option<String>,
}

const AUDIT_STYLE: &str = r#"
section.port{margin:20px 0;padding:8px 12px;background:#fff;border:1px solid #ddd}
section.port h3{margin:4px 0 8px;font-size:16px}
.side{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:16px;align-items:start}
.side>div.charts{min-width:0}
div.finding{border-left:4px solid #888;padding:4px 8px;margin:0 0 10px;font-size:13px;background:#fcfcfc}
div.finding.error{border-color:#b00020}div.finding.warning{border-color:#c77700}div.finding.note{border-color:#2b6cb0}
div.finding p{margin:3px 0}span.sev{font-weight:bold;text-transform:uppercase;font-size:11px}
p.clean{color:#2e7d32;font-size:13px}
"#;

/// A port, or a device as a whole (`port` none).
type Place = (String, Option<String>);

fn place(device: &str, port: Option<&str>) -> String {
    match port {
        Some(p) => format!("{device}:{p}"),
        None => device.to_string(),
    }
}

/// `port-leaf1-Ethernet0`: an element id from a place (characters other than letters, digits,
/// `-` and `_` become `-`).
fn anchor(p: &Place) -> String {
    let raw = format!("port-{}", place(&p.0, p.1.as_deref()));
    raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect()
}

/// The bar label of a counter: the name the device printed (short, and what an engineer looks
/// up), its priority added where the name does not hold it (switch tables).
fn label(c: &CounterValue) -> String {
    match c.priority {
        Some(p) if !c.name.contains(&p.to_string()) => format!("{} p{p}", c.name),
        _ => c.name.clone(),
    }
}

impl AuditPage {
    /// The ports and devices with counters or findings, in order, with theirs.
    fn places(&self) -> BTreeMap<Place, (Vec<&CounterValue>, Vec<&AuditFinding>)> {
        let mut out: BTreeMap<Place, (Vec<&CounterValue>, Vec<&AuditFinding>)> = BTreeMap::new();
        for c in &self.counters {
            out.entry((c.device.clone(), c.port.clone())).or_default().0.push(c);
        }
        for f in &self.findings {
            out.entry((f.device.clone(), f.port.clone())).or_default().1.push(f);
        }
        out
    }

    /// The page, `audit.html`.
    pub fn html(&self) -> String {
        let mut h = String::new();
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>rocelab audit: {}</title><style>{STYLE}{AUDIT_STYLE}</style><script>{ERROR_HOOK}</script></head><body><main>",
            esc(&self.subject)
        );
        let _ = write!(h, "<h1>rocelab audit: {}</h1>", esc(&self.subject));
        let places = self.places();
        let count = |s: &str| self.findings.iter().filter(|f| f.severity == s).count();
        let _ = write!(
            h,
            r#"<p class="sub">The intent: {}. Values: {}. {} counters of {} ports and devices; {} errors, {} warnings, {} notes.</p>"#,
            esc(&self.intent),
            esc(&self.over),
            self.counters.len(),
            places.len(),
            count("error"),
            count("warning"),
            count("note")
        );
        h.push_str(r##"<nav><a href="#findings">Findings</a><a href="#ports">Ports</a></nav>"##);
        self.findings_table(&mut h);
        if !self.problems.is_empty() {
            h.push_str(r#"<h2 id="problems">Input that could not be read</h2><ul class="warnings">"#);
            for p in &self.problems {
                let _ = write!(h, "<li><pre>{}</pre></li>", esc(p));
            }
            h.push_str("</ul>");
        }
        h.push_str(r#"<h2 id="ports">Ports</h2>"#);
        for (i, (p, (counters, findings))) in places.iter().enumerate() {
            port_section(&mut h, i, p, counters, findings);
        }
        let _ = write!(
            h,
            r#"<footer><pre id="report-errors"></pre><div id="report-status" data-status="loading">loading</div><ol id="report-chart-sizes"></ol>Written by rocelab {}.</footer></main><script>{STATUS}</script></body></html>"#,
            env!("CARGO_PKG_VERSION")
        );
        h
    }

    fn findings_table(&self, h: &mut String) {
        h.push_str(r#"<h2 id="findings">Findings</h2>"#);
        if self.findings.is_empty() {
            h.push_str(r#"<p class="clean">No finding: the counters agree with the intent.</p>"#);
            return;
        }
        h.push_str(r#"<div class="tablewrap"><table><tr><th>severity</th><th>rule</th><th>where</th><th>what</th><th>read at</th></tr>"#);
        for f in &self.findings {
            let p: Place = (f.device.clone(), f.port.clone());
            let _ = write!(
                h,
                r##"<tr><td>{}</td><td>{}</td><td><a href="#{}">{}</a></td><td>{}</td><td>{}</td></tr>"##,
                esc(&f.severity),
                esc(&f.id),
                anchor(&p),
                esc(&place(&f.device, f.port.as_deref())),
                esc(&f.what),
                esc(f.at.as_deref().unwrap_or(""))
            );
        }
        h.push_str("</table></div>");
    }
}

/// One port: its counters as charts (counts, and durations apart: they are of another unit),
/// its settings and every value in a table, and its findings beside the charts.
fn port_section(h: &mut String, i: usize, p: &Place, counters: &[&CounterValue], findings: &[&AuditFinding]) {
    let _ = write!(
        h,
        r#"<section class="port" id="{}"><h3>{}</h3><div class="side"><div class="charts">"#,
        anchor(p),
        esc(&place(&p.0, p.1.as_deref()))
    );
    let charts: [(Kind, &str, &str, Unit, f64); 2] = [
        (Kind::Count, "counts", "count", Unit::Count, 1.0),
        (Kind::Microseconds, "time paused", "time", Unit::Seconds, 1e-6),
    ];
    for (kind, what, axis, unit, scale) in charts {
        let all = counters.iter().filter(|c| c.kind == kind).count();
        // Bars of the counters that counted something; the zeros are in the table.
        let of: Vec<&&CounterValue> = counters.iter().filter(|c| c.kind == kind && c.value > 0).collect();
        if of.is_empty() {
            if all > 0 {
                let _ = write!(h, r#"<p class="clean">{}: all {all} counters are 0.</p>"#, esc(what));
            }
            continue;
        }
        let title = format!("{}: {what}", place(&p.0, p.1.as_deref()));
        let values = vec![of.iter().map(|c| c.value as f64 * scale).collect()];
        let mut c = BarChart::new(
            &title,
            "counter",
            of.iter().map(|c| label(c)).collect(),
            vec!["value".to_string()],
            values,
            Axis::new(axis, unit),
        );
        // Narrower than the report's charts: the findings stand beside it.
        (c.width, c.height) = (800.0, 340.0);
        let _ = write!(
            h,
            r#"<figure class="chart" id="chart-audit-{i}-{axis}">{}<figcaption><b>{}.</b> The {} counters above 0 of {all}, each by the name the device printed; every value is in the table below.</figcaption></figure>"#,
            bar_chart(&c),
            esc(&title),
            of.len()
        );
    }
    if !counters.is_empty() {
        let _ = write!(
            h,
            r#"<details><summary>Every value ({})</summary><div class="tablewrap"><table><tr><th>counter</th><th>name printed</th><th>priority</th><th>value</th><th>read at</th></tr>"#,
            counters.len()
        );
        for c in counters {
            let unit = match c.kind {
                Kind::Microseconds => " µs",
                _ => "",
            };
            let _ = write!(
                h,
                r#"<tr><td>{}</td><td>{}</td><td>{}</td><td class="n">{}{unit}</td><td>{}</td></tr>"#,
                esc(&c.counter),
                esc(&c.name),
                c.priority.map(|p| p.to_string()).unwrap_or_default(),
                c.value,
                esc(&c.at)
            );
        }
        h.push_str("</table></div></details>");
    }
    h.push_str(r#"</div><div class="findings">"#);
    if findings.is_empty() {
        h.push_str(r#"<p class="clean">No finding here.</p>"#);
    }
    for f in findings {
        let class = f.class.as_deref().map(|c| format!(" [{}]", esc(c))).unwrap_or_default();
        let _ = write!(
            h,
            r#"<div class="finding {}"><p><span class="sev">{}</span> <b>{}</b>{class}</p><p>{}</p><p><i>Why:</i> {}</p><p><i>Fix:</i> {}</p><p><i>Source:</i> {}</p>"#,
            esc(&f.severity),
            esc(&f.severity),
            esc(&f.id),
            esc(&f.what),
            esc(&f.why),
            esc(&f.fix),
            esc(&f.source)
        );
        if let Some(at) = &f.at {
            let _ = write!(h, "<p><i>Read at:</i> <code>{}</code></p>", esc(at));
        }
        h.push_str("</div>");
    }
    h.push_str("</div></div></section>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(device: &str, port: &str, priority: Option<u8>, counter: &str, value: u64, kind: Kind) -> CounterValue {
        CounterValue {
            device: device.into(),
            port: Some(port.into()),
            priority,
            counter: counter.into(),
            name: counter.replace(' ', "_"),
            value,
            kind,
            at: format!("{device}.txt:3"),
        }
    }

    fn page() -> AuditPage {
        AuditPage {
            subject: "after against f.yaml".into(),
            intent: "the fabric file f.yaml".into(),
            over: "the increase over the interval since the baseline".into(),
            counters: vec![
                counter("sw1", "Ethernet0", Some(0), "PFC pause frames received", 5, Kind::Count),
                counter("sw1", "Ethernet0", Some(3), "PFC pause frames received", 120, Kind::Count),
                counter("h1", "p0", Some(3), "time paused by received PFC (us)", 1_500_000, Kind::Microseconds),
                counter("h1", "p0", None, "priority CNPs are sent with (setting)", 3, Kind::Setting),
                counter("h1", "p0", None, "CNPs ignored", 0, Kind::Count),
            ],
            findings: vec![AuditFinding {
                id: "AUDIT-PAUSE-LOSSY".into(),
                severity: "error".into(),
                device: "sw1".into(),
                port: Some("Ethernet0".into()),
                class: Some("default (priority 0)".into()),
                what: "5 PFC pause frames <received> on priority 0".into(),
                why: "it stalls lossy traffic".into(),
                fix: "turn PFC off for priority 0".into(),
                source: "IEEE 802.1Qbb".into(),
                at: Some("sw1.txt:3".into()),
            }],
            problems: vec!["x.txt:1: error: not counter output".into()],
        }
    }

    #[test]
    fn the_page_holds_each_finding_beside_its_ports_counters() {
        let p = page();
        let html = p.html();
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>"));
        // The finding is in the table at the top, linked to its port, and in the port's section.
        let section =
            html.split(r#"<section class="port" id="port-sw1-Ethernet0">"#).nth(1).expect("the port's section");
        let section = section.split("</section>").next().unwrap();
        assert!(html.contains(r##"<a href="#port-sw1-Ethernet0">sw1:Ethernet0</a>"##));
        assert!(section.contains("AUDIT-PAUSE-LOSSY") && section.contains("&lt;received&gt;"), "{section}");
        assert!(section.contains(r#"<figure class="chart" id="chart-audit-"#));
        // Each counter is charted (its bar label) and listed with where it was read.
        for c in p.counters.iter().filter(|c| c.kind != Kind::Setting && c.value > 0) {
            assert!(html.contains(&esc(&label(c))), "{}", label(c));
        }
        let host = html.split(r#"id="port-h1-p0""#).nth(1).unwrap().split("</section>").next().unwrap();
        assert!(host.contains("time paused") && host.contains("1500000 µs") && host.contains("No finding here."));
        assert!(host.contains("priority CNPs are sent with (setting)"), "a setting is listed");
        assert!(host.contains("counts: all 1 counters are 0.") && host.contains("<td>CNPs ignored</td>"), "{host}");
        assert_eq!(html.matches(r#"<figure class="chart""#).count(), 2, "counts of sw1, time of h1");
        assert!(html.contains("x.txt:1: error: not counter output"));
        assert!(html.contains("1 errors, 0 warnings, 0 notes"));
        for bad in ["<script src", "<link", "<img", "https://"] {
            assert!(!html.contains(bad), "{bad}");
        }
    }

    #[test]
    fn a_finding_about_a_port_without_counters_has_its_own_section() {
        let mut p = page();
        p.findings[0].port = Some("Ethernet8".into());
        let html = p.html();
        let s = html.split(r#"id="port-sw1-Ethernet8""#).nth(1).unwrap().split("</section>").next().unwrap();
        assert!(s.contains("AUDIT-PAUSE-LOSSY") && !s.contains("<figure"));
    }

    #[test]
    fn a_clean_audit_says_so() {
        let p = AuditPage { findings: Vec::new(), ..page() };
        assert!(p.html().contains("No finding: the counters agree with the intent."));
    }
}
