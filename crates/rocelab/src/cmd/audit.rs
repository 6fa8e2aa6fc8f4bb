//! `rocelab audit`: a running fabric's counters read against the fabric file's intent. Exit 0
//! when clean, 2 on errors (in the findings, or input that could not be read), 1 on warnings
//! with `--strict`, as `check`.

use crate::failure::{Failure, OrFail};
use crate::input::open;
use crate::out::out;
use crate::CheckFormat as Format;
use rocelab_verify::audit::expect::{Prediction, Tolerance};
use rocelab_verify::audit::{self, Counter, Level, Snapshot};
use rocelab_verify::render::printable;
use std::path::Path;
use std::process::ExitCode;

/// The exit code of errors, as `check`'s.
const ERRORS: u8 = 2;

/// Reads one folder of counters and says each problem of its files on stderr; the number of
/// errors among them.
fn read(dir: &Path, fabric: &rocelab_model::ResolvedFabric) -> Result<(Snapshot, usize), Failure> {
    let snap = audit::read_dir(dir, fabric).or_fail(ERRORS)?;
    for p in &snap.problems {
        eprintln!("{}", printable(&p.to_string()));
    }
    let errors = snap.problems.iter().filter(|p| p.level == Level::Error).count();
    Ok((snap, errors))
}

/// What the simulation of `run` predicts for each port of the fabric: per priority, PFC frames
/// received and sent and frames dropped on arrival, and the same summed over the priorities
/// (switch tables that count all priorities together); 802.3x pause where the run counted it;
/// and, for the ECN-marked packets a port receives, the marks its peer's egress queue made
/// (the simulator counts a mark where it is made, the notification point where it arrives).
fn predictions(run: &rocelab_report::run::RunFile) -> Vec<Prediction> {
    let r = &run.results;
    let mut out = Vec::new();
    for p in &r.ports {
        let device = run.names.node(p.node).to_string();
        let Some(port) = run.names.ports.get(p.node).and_then(|v| v.get(p.port)) else { continue };
        let mut add = |priority: Option<u8>, counter: Counter, value: u64| {
            out.push(Prediction { device: device.clone(), port: port.clone(), priority, counter, value })
        };
        for (prio, c) in p.priorities.iter().enumerate() {
            add(Some(prio as u8), Counter::RxPause, c.pfc_received);
            add(Some(prio as u8), Counter::TxPause, c.pfc_sent);
            add(Some(prio as u8), Counter::Discards, c.drops);
        }
        add(None, Counter::RxPause, p.total(|c| c.pfc_received));
        add(None, Counter::TxPause, p.total(|c| c.pfc_sent));
        add(None, Counter::Discards, p.total(|c| c.drops));
        let link = p.link_pause.unwrap_or_default();
        add(None, Counter::RxLinkPause, link.received);
        add(None, Counter::TxLinkPause, link.sent);
        if let Some(peer) = r.ports.get(p.peer_index) {
            add(None, Counter::EcnMarked, peer.total(|c| c.ecn_marked));
        }
    }
    out
}

/// The audit's inputs beyond the fabric file.
pub struct Args<'a> {
    pub counters: &'a Path,
    pub baseline: Option<&'a Path>,
    /// A `results.json` of `rocelab sim --out` of the same fabric and workload.
    pub expect: Option<&'a Path>,
    pub format: Format,
    pub strict: bool,
}

pub fn run(file: &Path, variant: Option<&str>, args: Args<'_>) -> Result<ExitCode, Failure> {
    let Args { counters, baseline, expect, format, strict } = args;
    let (_, fabric) = open(Some(file), None, variant, ERRORS)?;
    let (mut now, mut unreadable) = read(counters, &fabric)?;
    let mut problems = std::mem::take(&mut now.problems);
    let (samples, resets) = match baseline {
        Some(b) => {
            let (mut before, errors) = read(b, &fabric)?;
            unreadable += errors;
            problems.append(&mut before.problems);
            audit::delta(&now, &before)
        }
        None => (now.samples, Vec::new()),
    };
    let mut findings = audit::audit(&fabric, &samples, &resets, baseline.is_some());
    let tolerance = Tolerance::default();
    let comparisons = match expect {
        Some(results) => {
            let run = rocelab_report::run::read_run(results).map_err(|e| Failure::error(ERRORS, e.to_string()))?;
            if run.scenario != fabric.name {
                eprintln!(
                    "warning: {} simulates `{}`, not `{}`: only the ports of the same names are compared",
                    results.display(),
                    printable(&run.scenario),
                    printable(&fabric.name)
                );
            }
            let (comparisons, diverging) = audit::expect::compare(&samples, &predictions(&run), tolerance);
            findings.extend(diverging);
            Some(comparisons)
        }
        None => None,
    };
    let subject = format!("{} against {}", counters.display(), file.display());
    let text = match format {
        Format::Text => {
            let mut t = rocelab_verify::render::table(&findings, &subject);
            if let Some(c) = &comparisons {
                let agree = c.iter().filter(|c| c.agrees).count();
                t.push_str(&format!(
                    "beside the simulation: {} counters compared, {agree} agree (within a factor of {} of the prediction, give or take {} events)\n",
                    c.len(),
                    tolerance.factor,
                    tolerance.absolute
                ));
            }
            t
        }
        Format::Json => {
            let mut v = serde_json::json!({
                "findings": rocelab_verify::render::json(&findings),
                "counters": samples,
                "baseline": baseline.is_some(),
            });
            if let Some(c) = &comparisons {
                v["expected"] = serde_json::json!({"tolerance": tolerance, "comparisons": c});
            }
            serde_json::to_string_pretty(&v).or_fail(ERRORS)? + "\n"
        }
        Format::Sarif => {
            let log = audit::sarif::sarif(&findings, &problems, &file.display().to_string());
            serde_json::to_string_pretty(&log).or_fail(ERRORS)? + "\n"
        }
    };
    // A reader that stops early (`| head`) is not an error of the audit.
    out!("{text}");
    if unreadable > 0 {
        return Err(Failure::error(
            ERRORS,
            format!(
                "{unreadable} problem{} in the counter files (above); the audit is of the counters that could be read",
                if unreadable == 1 { "" } else { "s" }
            ),
        ));
    }
    let (errors, warnings, _) = rocelab_verify::finding::counts(&findings);
    Ok(if errors > 0 {
        ExitCode::from(ERRORS)
    } else if strict && warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
