//! `rocelab audit`: a running fabric's counters read against the intent (the fabric file's, the
//! devices' configuration beside the counters, or what the counters show). Exit 0 when clean, 2
//! on errors (in the findings, or input that could not be read), 1 on warnings with `--strict`,
//! as `check`.

use crate::failure::{Failure, OrFail};
use crate::input::open;
use crate::out::out;
use crate::CheckFormat as Format;
use rocelab_verify::audit::expect::{Prediction, Tolerance};
use rocelab_verify::audit::{self, Counter, Inferred, Intent, Level, Options, Snapshot};
use rocelab_verify::render::printable;
use std::path::Path;
use std::process::ExitCode;

/// The exit code of errors, as `check`'s.
const ERRORS: u8 = 2;

/// Reads one folder of counters and says each problem of its files on stderr; the number of
/// errors among them.
fn read(dir: &Path, intent: &dyn Intent, skip: &[String]) -> Result<(Snapshot, usize), Failure> {
    let snap = audit::read_dir_except(dir, intent, skip).or_fail(ERRORS)?;
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
    /// Seconds the counters cover.
    pub interval: Option<f64>,
    /// Percent of the interval a priority may be paused.
    pub pause_share: Option<f64>,
    /// Where to write `audit.html`.
    pub out: Option<&'a Path>,
    pub format: Format,
    pub strict: bool,
}

/// The intent, and the files of the counters' folder it was read from (not counters).
struct Source {
    intent: Box<dyn Intent>,
    skip: Vec<String>,
    /// What the counters are read against, for the summary line.
    against: String,
    /// The file SARIF places findings without a counter line of their own at.
    artifact: String,
    name: String,
}

/// The intent without a fabric file: the devices' configuration in `dir` (imported as `check
/// --import` does, LLDP output in the folder giving the cabling) when there is some; else
/// `None`, and the counters show it.
fn from_folder(dir: &Path) -> Result<Option<Source>, Failure> {
    use rocelab_verify::import;
    let files = import::read_dir(dir).map_err(|e| Failure::error(ERRORS, e.to_string()))?;
    if !files.has_configuration() {
        return Ok(None);
    }
    let skip = files.taken();
    let imported = import::import_files(files, dir, None).map_err(|e| {
        Failure::error(
            ERRORS,
            format!("{e}\n  help: the audit takes its intent from the configuration in the counters' folder; or give the fabric file: `rocelab audit FABRIC --counters {}`", dir.display()),
        )
    })?;
    for e in &imported.errors {
        eprintln!("{}", printable(&e.to_string()));
    }
    let state = imported.state;
    Ok(Some(Source {
        against: format!("the configuration in {}", dir.display()),
        artifact: dir.display().to_string(),
        name: state.name.clone(),
        intent: Box::new(state),
        skip,
    }))
}

pub fn run(file: Option<&Path>, variant: Option<&str>, args: Args<'_>) -> Result<ExitCode, Failure> {
    let Args { counters, baseline, expect, interval, pause_share, out, format, strict } = args;
    if let Some(i) = interval.filter(|i| !(i.is_finite() && *i > 0.0)) {
        return Err(Failure::error(
            ERRORS,
            format!("--interval {i}: expected the seconds the counters cover, above 0 (e.g. `--interval 60`)"),
        ));
    }
    if let Some(p) = pause_share.filter(|p| !(p.is_finite() && *p > 0.0 && *p <= 100.0)) {
        return Err(Failure::error(
            ERRORS,
            format!("--pause-share {p}: expected a percentage above 0 and at most 100 (e.g. `--pause-share 10`)"),
        ));
    }
    let opts = Options { interval, pause_share: pause_share.map_or(audit::rules::DEFAULT_PAUSE_SHARE, |p| p / 100.0) };
    let source = match file {
        Some(f) => {
            let (_, fabric) = open(Some(f), None, variant, ERRORS)?;
            Some(Source {
                against: f.display().to_string(),
                artifact: f.display().to_string(),
                name: fabric.name.clone(),
                intent: Box::new(fabric),
                skip: Vec::new(),
            })
        }
        None => from_folder(counters)?,
    };
    let open_intent = Inferred::open();
    let reading: &dyn Intent = source.as_ref().map_or(&open_intent, |s| s.intent.as_ref());
    let skip = source.as_ref().map(|s| s.skip.clone()).unwrap_or_default();
    let (mut now, mut unreadable) = read(counters, reading, &skip)?;
    let mut problems = std::mem::take(&mut now.problems);
    let (samples, resets) = match baseline {
        Some(b) => {
            let (mut before, errors) = read(b, reading, &skip)?;
            unreadable += errors;
            problems.append(&mut before.problems);
            audit::delta(&now, &before)
        }
        None => (now.samples, Vec::new()),
    };
    let source = match source {
        Some(s) => s,
        None => {
            let inferred = Inferred::from_samples(&samples).map_err(|why| {
                Failure::error(
                    ERRORS,
                    format!(
                        "{}: no fabric file, no device configuration in the folder, and {why}\n  help: give the fabric file (`rocelab audit FABRIC --counters {}`), or add the devices' configuration and LLDP output to the folder (the `rocelab check --import` formats)",
                        counters.display(),
                        counters.display()
                    ),
                )
            })?;
            eprintln!("note: no fabric file and no configuration: the intent is {}", inferred.source());
            Source {
                against: "the intent the counters show".into(),
                artifact: counters.display().to_string(),
                name: String::new(),
                intent: Box::new(inferred),
                skip,
            }
        }
    };
    let intent = source.intent.as_ref();
    let mut findings = audit::audit_with(intent, &samples, &resets, baseline.is_some(), &opts);
    let tolerance = Tolerance::default();
    let comparisons = match expect {
        Some(results) => {
            let run = rocelab_report::run::read_run(results).map_err(|e| Failure::error(ERRORS, e.to_string()))?;
            if !source.name.is_empty() && run.scenario != source.name {
                eprintln!(
                    "warning: {} simulates `{}`, not `{}`: only the ports of the same names are compared",
                    results.display(),
                    printable(&run.scenario),
                    printable(&source.name)
                );
            }
            let (comparisons, diverging) = audit::expect::compare(&samples, &predictions(&run), tolerance);
            findings.extend(diverging);
            Some(comparisons)
        }
        None => None,
    };
    let subject = format!("{} against {}", counters.display(), source.against);
    if let Some(dir) = out {
        let over = if baseline.is_some() {
            "the increase over the interval since the baseline"
        } else {
            "the counts since the counters were last cleared"
        };
        let page = super::audit_page::page(&subject, &intent.source(), over, &samples, &findings, &problems);
        crate::outdir::prepare(dir).or_fail(ERRORS)?;
        let path = crate::outdir::file_in(dir, "audit.html").or_fail(ERRORS)?;
        std::fs::write(&path, page.html()).map_err(|e| format!("{}: {e}", path.display())).or_fail(ERRORS)?;
        eprintln!("wrote {}", path.display());
    }
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
                "intent": intent.source(),
            });
            if let Some(c) = &comparisons {
                v["expected"] = serde_json::json!({"tolerance": tolerance, "comparisons": c});
            }
            serde_json::to_string_pretty(&v).or_fail(ERRORS)? + "\n"
        }
        Format::Sarif => {
            let log = audit::sarif::sarif(&findings, &problems, &source.artifact);
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
