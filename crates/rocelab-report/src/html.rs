//! The report: one HTML file holding everything (styles, SVG charts, a small script), needing
//! no network and no other file to be read; and the CSV files of its tables beside it.

use crate::chart::esc;
use crate::figures::{self, Figure};
use crate::run::{FailedRun, RunFile};
use crate::table::Table;
use crate::tables;
use std::fmt::Write;

/// A report over one or more runs of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub runs: Vec<RunFile>,
    /// The scenario file the runs came from, when known.
    pub source: Option<String>,
    /// Runs of the batch that failed while the others went on (`sim --all --ray`).
    pub failed: Vec<FailedRun>,
}

pub(crate) const STYLE: &str = r#"
body{font-family:'Liberation Sans',Arial,Helvetica,sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1280px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #ccc;padding-bottom:4px}
p.sub{color:#555;margin:0 0 12px}
nav a{margin-right:14px;font-size:14px}
figure.chart{margin:16px 0;padding:8px;background:#fff;border:1px solid #ddd;overflow-x:auto}
figure.chart svg{display:block}
figcaption{font-size:13px;color:#444;margin-top:6px;max-width:860px}
table{border-collapse:collapse;font-size:13px;background:#fff;margin:8px 0}
caption{text-align:left;font-weight:bold;padding:4px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;white-space:nowrap}
th{background:#eef3f8}td.n{text-align:right;font-variant-numeric:tabular-nums}
details{margin:8px 0}summary{cursor:pointer;font-weight:bold}
.tablewrap{overflow-x:auto}
ul.warnings li{color:#8a4b00}ul.failed li{color:#a00}
footer{font-size:12px;color:#777;margin-top:32px}
#report-chart-sizes{display:none}
"#;

/// Records script errors into the page (the headless-browser test reads them back).
pub(crate) const ERROR_HOOK: &str = r#"window.__rocelabErrors=[];window.onerror=function(m,s,l,c){window.__rocelabErrors.push(String(m)+' ('+(s||'')+':'+l+':'+c+')');var e=document.getElementById('report-errors');if(e){e.textContent=window.__rocelabErrors.join('\n');}return false;};"#;

/// After load: measures every chart and writes the outcome into `#report-status`.
pub(crate) const STATUS: &str = r#"(function(){var errs=window.__rocelabErrors||[];var figs=document.querySelectorAll('figure.chart');var list=document.getElementById('report-chart-sizes');var empty=0;for(var i=0;i<figs.length;i++){var f=figs[i];var s=f.querySelector('svg');var r=s?s.getBoundingClientRect():{width:0,height:0};var w=Math.round(r.width),h=Math.round(r.height);var li=document.createElement('li');li.setAttribute('data-chart',f.id);li.setAttribute('data-width',w);li.setAttribute('data-height',h);li.textContent=f.id+' '+w+'x'+h;list.appendChild(li);if(!(w>0&&h>0)){empty++;}}var ok=errs.length===0&&empty===0;var st=document.getElementById('report-status');st.setAttribute('data-status',ok?'ok':'error');st.setAttribute('data-charts',String(figs.length));st.textContent=(ok?'ok':'error')+': '+figs.length+' charts rendered'+(empty?', '+empty+' empty':'')+(errs.length?'; script errors: '+errs.join('; '):'');})();"#;

/// Tables longer than this are in their CSV file only.
const HTML_ROWS: usize = 2000;

impl Report {
    pub fn new(runs: Vec<RunFile>, source: Option<String>) -> Self {
        Report { runs, source, failed: Vec::new() }
    }

    /// The report, listing `failed` runs too (their label and error, in a section of their own).
    pub fn with_failed(mut self, failed: Vec<FailedRun>) -> Self {
        self.failed = failed;
        self
    }

    /// Every table (each is also a CSV file).
    pub fn tables(&self) -> Vec<Table> {
        tables::all(&self.runs)
    }

    /// Every chart.
    pub fn figures(&self) -> Vec<Figure> {
        figures::all(&self.runs)
    }

    /// The files of the report: `report.html` and one CSV per table, as (file name, content).
    /// [`Report::write_files`] writes them without holding the queue-depth samples as text.
    pub fn files(&self) -> Vec<(String, String)> {
        let tables = self.tables();
        let mut out = vec![("report.html".to_string(), self.html_with(&tables))];
        out.extend(tables.iter().map(|t| (t.file.clone(), t.to_csv())));
        let mut q = Vec::new();
        let _ = tables::write_queue_depth_csv(&self.runs, &mut q);
        out.push(("queue_depth.csv".to_string(), String::from_utf8(q).unwrap_or_default()));
        out
    }

    /// Write `report.html` and one CSV per table, each into the writer `open` gives for its file
    /// name: the tables a row at a time, so that a long run's queue-depth samples (millions of
    /// rows) never sit in memory as text. Returns the number of CSV files.
    pub fn write_files<W: std::io::Write>(
        &self,
        mut open: impl FnMut(&str) -> std::io::Result<W>,
    ) -> std::io::Result<usize> {
        let tables = self.tables();
        open("report.html")?.write_all(self.html_with(&tables).as_bytes())?;
        for t in &tables {
            open(&t.file)?.write_all(t.to_csv().as_bytes())?;
        }
        let mut q = open("queue_depth.csv")?;
        tables::write_queue_depth_csv(&self.runs, &mut q)?;
        q.flush()?;
        Ok(tables.len() + 1)
    }

    /// The HTML page.
    pub fn html(&self) -> String {
        self.html_with(&self.tables())
    }

    fn html_with(&self, tables: &[Table]) -> String {
        let scenario = self.runs.first().map(|r| r.scenario.as_str()).unwrap_or("(no runs)");
        let figures = self.figures();
        let mut h = String::new();
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>rocelab report: {}</title><style>{STYLE}</style><script>{ERROR_HOOK}</script></head><body><main>",
            esc(scenario)
        );
        let _ = write!(h, "<h1>rocelab report: {}</h1>", esc(scenario));
        h.push_str(&self.summary());
        h.push_str(r##"<nav><a href="#runs">Runs</a><a href="#charts">Charts</a><a href="#tables">Tables</a></nav>"##);
        h.push_str(r#"<h2 id="runs">Runs</h2><div class="tablewrap">"#);
        if let Some(t) = tables.first() {
            h.push_str(&t.to_html());
        }
        h.push_str("</div>");
        if !self.failed.is_empty() {
            h.push_str(r#"<h2 id="failed">Failed runs</h2><ul class="failed">"#);
            for f in &self.failed {
                let _ = write!(h, "<li><b>{}</b>: {}</li>", esc(&f.label), esc(&f.error));
            }
            h.push_str("</ul>");
        }
        let warnings = self.warnings();
        if !warnings.is_empty() {
            h.push_str(r#"<h2 id="warnings">Warnings</h2><ul class="warnings">"#);
            for w in warnings {
                let _ = write!(h, "<li>{}</li>", esc(&w));
            }
            h.push_str("</ul>");
        }
        h.push_str(r#"<h2 id="charts">Charts</h2>"#);
        for f in &figures {
            let _ = write!(
                h,
                r#"<figure class="chart" id="{}">{}<figcaption><b>{}.</b> {}</figcaption></figure>"#,
                esc(&f.id),
                f.svg,
                esc(&f.title),
                esc(&f.caption)
            );
        }
        h.push_str(
            r#"<h2 id="tables">Tables</h2><p class="sub">Each table is also a CSV file beside this report.</p>"#,
        );
        // The queue-depth samples are built as a table only when they are few enough to show.
        let samples = tables::queue_depth_rows(&self.runs);
        let queue = (samples <= HTML_ROWS).then(|| tables::queue_depth(&self.runs));
        for t in tables.iter().skip(1).chain(queue.as_ref()) {
            if t.rows.len() > HTML_ROWS {
                let _ = write!(
                    h,
                    r#"<p>{}: {} rows, in <a href="{}">{}</a> only.</p>"#,
                    esc(&t.title),
                    t.rows.len(),
                    esc(&t.file),
                    esc(&t.file)
                );
                continue;
            }
            let _ = write!(
                h,
                r#"<details><summary>{} ({} rows)</summary><div class="tablewrap">{}</div></details>"#,
                esc(&t.title),
                t.rows.len(),
                t.to_html()
            );
        }
        if queue.is_none() {
            let _ = write!(
                h,
                r#"<p>Queue depth samples: {samples} rows, in <a href="queue_depth.csv">queue_depth.csv</a> only.</p>"#
            );
        }
        let _ = write!(
            h,
            r#"<footer><pre id="report-errors"></pre><div id="report-status" data-status="loading">loading</div><ol id="report-chart-sizes"></ol>Written by rocelab {}.</footer></main><script>{STATUS}</script></body></html>"#,
            env!("CARGO_PKG_VERSION")
        );
        h
    }

    fn summary(&self) -> String {
        let mut s = String::from(r#"<p class="sub">"#);
        if let Some(src) = &self.source {
            let _ = write!(s, "From <code>{}</code>. ", esc(src));
        }
        let n = self.runs.len();
        let _ = write!(s, "{n} run{}", if n == 1 { "" } else { "s" });
        if !self.failed.is_empty() {
            let _ = write!(s, " ({} more failed)", self.failed.len());
        }
        let variants: Vec<String> = {
            let mut v: Vec<String> = Vec::new();
            for r in &self.runs {
                let name = r.variant.clone().unwrap_or_else(|| "base".into());
                if !v.contains(&name) {
                    v.push(name);
                }
            }
            v
        };
        let _ = write!(s, ": {}", esc(&variants.join(", ")));
        if let Some(sw) = self.runs.iter().find_map(|r| r.sweep.as_ref()) {
            let values: Vec<&str> = {
                let mut v: Vec<&str> = Vec::new();
                for r in &self.runs {
                    if let Some(p) = &r.sweep {
                        if !v.contains(&p.value.as_str()) {
                            v.push(&p.value);
                        }
                    }
                }
                v
            };
            let _ = write!(s, "; sweep of <code>{}</code> over {}", esc(&sw.field), esc(&values.join(", ")));
        }
        if let Some(r) = self.runs.first() {
            let _ = write!(
                s,
                ". Simulated {:.1} µs, seed {}; {} switches, {} hosts, {} flows.",
                r.results.end_time_ps as f64 / 1e6,
                r.results.seed,
                r.results.switches.len(),
                r.results.hosts.len(),
                r.results.flows.len()
            );
        }
        s.push_str("</p>");
        s
    }

    /// Warnings of all runs (the simulator's findings: rule ID, where, what and the fix), each
    /// once, with the runs it came from.
    fn warnings(&self) -> Vec<String> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for r in &self.runs {
            for f in &r.warnings {
                let w = format!("{} {} {}: {} Fix: {}", f.severity, f.id, f.place(), f.what, f.fix);
                match out.iter_mut().find(|(x, _)| *x == w) {
                    Some(e) => e.1.push(r.label()),
                    None => out.push((w, vec![r.label()])),
                }
            }
        }
        let all = self.runs.len();
        out.into_iter()
            .map(|(w, runs)| if runs.len() == all { w } else { format!("{w} (in {})", runs.join(", ")) })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_self_contained_and_holds_every_chart_and_table() {
        let mut a = crate::testdata::run_file(None, None);
        a.warnings = vec![rocelab_sim::from_model::BuildFinding {
            id: "PFC-MISSING".into(),
            severity: rocelab_model::Severity::Warning,
            device: "sw1".into(),
            port: Some("eth1/3".into()),
            class: Some("roce (priority 3)".into()),
            what: "lossless class crosses a hop <without> PFC".into(),
            why: "it is dropped there".into(),
            fix: "enable PFC for priority 3 on this port".into(),
            source: "IEEE 802.1Qbb".into(),
        }];
        let b = crate::testdata::run_file(Some("ecn"), None);
        let r = Report::new(vec![a, b], Some("t.yaml".into()));
        let files = r.files();
        let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["report.html", "runs.csv", "flows.csv", "ports.csv", "switches.csv", "queue_depth.csv"]);
        let html = &files[0].1;
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>"));
        for f in r.figures() {
            assert!(html.contains(&format!(r#"<figure class="chart" id="{}">"#, f.id)));
        }
        // Nothing is loaded from elsewhere: no external scripts, styles, images or fonts.
        for bad in ["<script src", "<link", "<img", "@import", "url(", "http://", "https://"] {
            let allowed =
                bad == "http://" && html.matches(bad).count() == html.matches("http://www.w3.org/2000/svg").count();
            assert!(!html.contains(bad) || allowed, "{bad}");
        }
        assert!(html.contains("&lt;without&gt;") && html.contains("(in base)"), "warnings escaped, with their runs");
        assert!(
            html.contains("warning PFC-MISSING sw1:eth1/3  [roce (priority 3)]: lossless class")
                && html.contains("Fix: enable PFC for priority 3 on this port"),
            "the simulator's findings with their rule, place and fix"
        );
        assert!(html.contains(r#"id="report-status" data-status="loading""#));
        assert!(html.contains("From <code>t.yaml</code>. 2 runs: base, ecn"));
        assert!(!html.contains("Failed runs"), "no section when every run ran");
    }

    #[test]
    fn failed_runs_are_listed_with_their_error() {
        let a = crate::testdata::run_file(None, None);
        let failed = vec![FailedRun { label: "big @ 9000".into(), error: "the run was refused: <too big>".into() }];
        let html = Report::new(vec![a], None).with_failed(failed).html();
        assert!(html.contains("1 run (1 more failed)"), "in the summary line");
        assert!(html.contains(r#"<h2 id="failed">Failed runs</h2><ul class="failed"><li><b>big @ 9000</b>: the run was refused: &lt;too big&gt;</li></ul>"#));
    }
}
