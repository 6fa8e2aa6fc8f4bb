//! `rocelab sim`: load, build the simulator's input, run with a progress bar, write the
//! results, the report, the HPCC simulator's `fct.txt` (when flows have sizes) and `pfc.txt`, and
//! a capture. Glue only: the mapping and the summary live in `rocelab-sim`, the report, the PFC
//! trace and the capture encoder in `rocelab-report`.

use crate::out::{out, outln};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rocelab_report::hpcc::PfcTrace;
use rocelab_report::pcap::{resolve_filter, PcapObserver};
use rocelab_report::run::{run_dir, run_label, Index, IndexEntry, INDEX_SCHEMA_VERSION};
use rocelab_report::{Report, RunFile, SweepPoint};
use rocelab_sim::from_model::{build, Built};
use rocelab_sim::{NoObserver, Observer, Results, SimError, Simulation};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What `rocelab sim` was asked to do.
pub struct SimArgs<'a> {
    pub file: Option<&'a Path>,
    pub example: Option<&'a str>,
    pub variant: Option<&'a str>,
    pub seed: Option<u64>,
    pub out: Option<&'a Path>,
    pub json: bool,
    /// Run the base and every variant at every sweep point.
    pub all: bool,
    pub pcap: Option<&'a Path>,
    pub pcap_ports: &'a [String],
    pub pcap_flows: &'a [String],
    pub pcap_limit: Option<u64>,
    /// No progress on stderr (neither the bar nor the plain lines).
    pub quiet: bool,
}

/// Runs one simulation, reporting its progress on stderr (see [`run_with_progress`]) unless
/// `quiet`.
fn simulate<O: Observer>(built: &Built, what: &str, quiet: bool, observer: &mut O) -> Result<Results, SimError> {
    let sim = Simulation::with_observer(&built.spec, &built.traffic, &built.config, observer)?;
    Ok(run_with_progress(sim, what, quiet))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes `dir/fio.json` (fio's `--output-format=json` layout) when the run had storage jobs.
fn write_fio(dir: &Path, built: &Built, results: &Results) -> Result<(), String> {
    if results.jobs.is_empty() {
        return Ok(());
    }
    let mut jobs = results.jobs.clone();
    for j in &mut jobs {
        j.name = built.names.jobs.get(j.job).cloned().unwrap_or_else(|| j.name.clone());
    }
    let node = |n: usize| built.names.nodes.get(n).cloned().unwrap_or_default();
    let v = rocelab_sim::storage::results::fio_json(&jobs, node);
    write(&dir.join("fio.json"), &serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?)
}

/// Writes `dir/fct.txt` (the HPCC simulator's format) when the run had sized flows.
fn write_fct(dir: &Path, built: &Built, results: &Results) -> Result<(), String> {
    match &results.fct {
        Some(fct) => write(&dir.join("fct.txt"), &fct.hpcc_fct_txt(&built.traffic, |i| built.names.dport(i))),
        None => Ok(()),
    }
}

/// `dir/pfc.txt`, the HPCC simulator's PFC trace, written as the run goes (created empty: a run
/// without PFC frames has an empty trace, as there).
fn pfc_trace(dir: &Path, built: &Built) -> Result<PfcTrace<std::io::BufWriter<std::fs::File>>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join("pfc.txt");
    let file = std::fs::File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    Ok(PfcTrace::new(std::io::BufWriter::new(file), &built.spec))
}

/// Finish the PFC trace of `dir`.
fn finish_trace<W: std::io::Write>(dir: &Path, trace: PfcTrace<W>) -> Result<(), String> {
    trace.finish().map(|_| ()).map_err(|e| format!("cannot write {}: {e}", dir.join("pfc.txt").display()))
}

/// Writes `report.html` and the CSV files of the report into `dir`, a row at a time.
pub fn write_report(dir: &Path, report: &Report) -> Result<usize, String> {
    let mut last = dir.to_path_buf();
    report
        .write_files(|name| {
            last = dir.join(name);
            std::fs::File::create(&last).map(std::io::BufWriter::new)
        })
        .map_err(|e| format!("cannot write {}: {e}", last.display()))
}

/// Writes `value` as pretty JSON into `path`, streamed (a long run's results are tens of MB).
fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), String> {
    use std::io::Write as _;
    let err = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| err(&e))?);
    serde_json::to_writer_pretty(&mut w, value).map_err(|e| err(&e))?;
    w.flush().map_err(|e| err(&e))
}

pub fn run(a: &SimArgs) -> Result<ExitCode, String> {
    if a.all {
        return run_all(a);
    }
    let (loaded, fabric) = match crate::open(a.file, a.example, a.variant, 1) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let scenario = match a.variant {
        None => loaded.scenario.clone(),
        Some(v) => loaded.variant_scenario(v).map_err(|d| d.to_string())?.0,
    };
    if scenario.workloads.is_empty() {
        eprintln!(
            "{}: no `workloads` to simulate; add flows, incast, permutation, all_to_all, poisson or hpcc_flows",
            loaded.file
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(Err(e)) = a.out.map(crate::outdir::prepare) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(1));
    }
    let built = build(&scenario, &fabric, a.seed);
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    let what = fabric.name.clone();
    let mut trace = a.out.map(|dir| pfc_trace(dir, &built)).transpose()?;
    let result = match (a.pcap, trace.take()) {
        (None, None) => simulate(&built, &what, a.quiet, &mut NoObserver),
        (None, Some(mut t)) => {
            let r = simulate(&built, &what, a.quiet, &mut t);
            trace = Some(t);
            r
        }
        (Some(path), t) => {
            let filter = match resolve_filter(&built.spec, &built.names, a.pcap_ports, a.pcap_flows, a.pcap_limit) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            let file = std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            let at = |e: String| format!("{}: {e}", path.display());
            let capture =
                PcapObserver::new(std::io::BufWriter::new(file), &built.spec, fabric.qos.vlan, &filter).map_err(at)?;
            let (r, capture) = match t {
                Some(t) => {
                    let mut both = (capture, t);
                    let r = simulate(&built, &what, a.quiet, &mut both);
                    trace = Some(both.1);
                    (r, both.0)
                }
                None => {
                    let mut capture = capture;
                    (simulate(&built, &what, a.quiet, &mut capture), capture)
                }
            };
            let (stats, _) = capture.finish().map_err(at)?;
            eprintln!(
                "captured {} frames ({} bytes) to {}{}",
                stats.frames,
                stats.bytes,
                path.display(),
                if stats.over_limit > 0 {
                    format!("; {} more past --pcap-limit", stats.over_limit)
                } else {
                    String::new()
                }
            );
            r
        }
    };
    let results = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: the run was refused: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
    if let Some(dir) = a.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        if let Some(t) = trace {
            finish_trace(dir, t)?;
        }
        write_fct(dir, &built, &results)?;
        write_fio(dir, &built, &results)?;
    }
    let run = RunFile {
        scenario: fabric.name.clone(),
        variant: a.variant.map(str::to_string),
        sweep: None,
        names: (&built.names).into(),
        warnings: built.warnings.clone(),
        results,
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&run).map_err(|e| e.to_string())?);
    } else {
        out!("{text}");
    }
    if let Some(dir) = a.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        write_json(&dir.join("results.json"), &run)?;
        write(&dir.join("summary.txt"), &text)?;
        write_report(dir, &Report::new(vec![run], Some(loaded.file.clone())))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--all`: the base scenario and every variant, each at every sweep point, into
/// `DIR/runs/<variant>[/<field=value>]/`, with `DIR/index.json` and one report over all runs.
fn run_all(a: &SimArgs) -> Result<ExitCode, String> {
    let dir = a.out.ok_or("--all needs --out DIR")?;
    let (loaded, _) = match crate::open(a.file, a.example, None, 1) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let variants: Vec<Option<String>> =
        std::iter::once(None).chain(loaded.variant_names().into_iter().map(|v| Some(v.to_string()))).collect();
    let sweep = loaded.sweep_values();
    let points: Vec<Option<usize>> = match &sweep {
        Some((_, values)) => (0..values.len()).map(Some).collect(),
        None => vec![None],
    };
    // Every point is built before anything runs, so that a bad one stops the batch at once.
    let mut plan = Vec::new();
    for v in &variants {
        for p in &points {
            let point =
                p.and_then(|i| sweep.as_ref().map(|(f, vals)| SweepPoint { field: f.clone(), value: vals[i].clone() }));
            // The run's folder, from the variant's name and the sweep value, stays under DIR.
            crate::outpath::path_in(dir, &Path::new("runs").join(run_dir(v.as_deref(), point.as_ref())))?;
            match loaded.run_point(v.as_deref(), *p) {
                Ok((scenario, fabric)) => {
                    if scenario.workloads.is_empty() {
                        eprintln!(
                            "{}: no `workloads` to simulate in {}",
                            loaded.file,
                            run_label(v.as_deref(), point.as_ref())
                        );
                        return Ok(ExitCode::from(1));
                    }
                    plan.push((v.clone(), point, scenario, fabric));
                }
                Err(d) => {
                    crate::print_diagnostics(&d);
                    return Ok(ExitCode::from(1));
                }
            }
        }
    }
    if let Err(e) = crate::outdir::prepare(dir) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(1));
    }
    let mut runs = Vec::new();
    let mut index = Index {
        schema_version: INDEX_SCHEMA_VERSION,
        scenario: loaded.fabric.name.clone(),
        source: loaded.file.clone(),
        runs: Vec::new(),
    };
    for (k, (variant, point, scenario, fabric)) in plan.iter().enumerate() {
        let label = run_label(variant.as_deref(), point.as_ref());
        let built = build(scenario, fabric, a.seed);
        for w in &built.warnings {
            eprintln!("warning: {label}: {w}");
        }
        let what = format!("{label} ({} of {})", k + 1, plan.len());
        let rel = Path::new("runs").join(run_dir(variant.as_deref(), point.as_ref()));
        let run_path = crate::outpath::path_in(dir, &rel)?;
        let mut trace = pfc_trace(&run_path, &built)?;
        let results = match simulate(&built, &what, a.quiet, &mut trace) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {label}: the run was refused: {e}");
                return Ok(ExitCode::from(2));
            }
        };
        finish_trace(&run_path, trace)?;
        let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
        write_fct(&run_path, &built, &results)?;
        write_fio(&run_path, &built, &results)?;
        let run = RunFile {
            scenario: fabric.name.clone(),
            variant: variant.clone(),
            sweep: point.clone(),
            names: (&built.names).into(),
            warnings: built.warnings.clone(),
            results,
        };
        write_json(&run_path.join("results.json"), &run)?;
        write(&run_path.join("summary.txt"), &text)?;
        index.runs.push(IndexEntry {
            label: label.clone(),
            variant: variant.clone(),
            sweep: point.clone(),
            results: rel.join("results.json").to_string_lossy().replace('\\', "/"),
        });
        runs.push(run);
    }
    let index_text = serde_json::to_string_pretty(&index).map_err(|e| e.to_string())?;
    write(&dir.join("index.json"), &index_text)?;
    let report = Report::new(runs, Some(loaded.file.clone()));
    let csvs = write_report(dir, &report)?;
    if a.json {
        outln!("{index_text}");
    } else {
        if let Some(t) = report.tables().first() {
            out!("{}", t.to_text());
        }
        outln!("\nwrote {} runs, index.json, report.html and {csvs} CSV files to {}", plan.len(), dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `rocelab report DIR`: the report again from the results files in `DIR`.
pub fn report(dir: &Path) -> Result<ExitCode, String> {
    // A directory the report cannot be written into is said before the results are read; what
    // is not a directory is `load_dir`'s to explain.
    if let Some(Err(e)) = dir.is_dir().then(|| crate::outdir::prepare(dir)) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(1));
    }
    let runs = match rocelab_report::load_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let source = rocelab_report::run::read_index(&dir.join("index.json")).ok().map(|i| i.source);
    let report = Report::new(runs, source);
    let csvs = write_report(dir, &report)?;
    if let Some(t) = report.tables().first() {
        out!("{}", t.to_text());
    }
    outln!("\nwrote report.html and {csvs} CSV files to {}", dir.display());
    Ok(ExitCode::SUCCESS)
}

/// A slice of the run should take about this long, so that the bar moves smoothly and the
/// slicing costs nothing measurable.
const SLICE_WALL: Duration = Duration::from_millis(50);
/// The bar appears once a run has taken this long (short runs print nothing).
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Wall time between two plain progress lines when stderr is not a terminal (a log, a CI job):
/// often enough to show the run is alive, seldom enough not to fill the log.
const LINE_EVERY: Duration = Duration::from_secs(5);
/// Overrides [`LINE_EVERY`] in milliseconds. For tests, which cannot afford a run of several
/// seconds in a debug build; not a user setting.
const LINE_EVERY_VAR: &str = "ROCELAB_PROGRESS_INTERVAL_MS";

/// How progress is shown on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    /// A bar redrawn in place, on a terminal.
    Bar,
    /// A line every so often, where a bar's redrawing would be garbage (a file, a pipe).
    Lines(Duration),
    /// Nothing (`--quiet`).
    Off,
}

impl Progress {
    fn new(quiet: bool, terminal: bool, interval_ms: Option<&str>) -> Progress {
        match (quiet, terminal) {
            (true, _) => Progress::Off,
            (false, true) => Progress::Bar,
            (false, false) => Progress::Lines(
                interval_ms.and_then(|v| v.trim().parse().ok()).map_or(LINE_EVERY, Duration::from_millis),
            ),
        }
    }
}

/// Run `sim` to its end in slices of simulated time and return the results, showing its
/// progress on stderr: on a terminal, a bar of simulated over total time once the run has taken
/// [`SHOW_AFTER`]; elsewhere a plain line every [`LINE_EVERY`] of wall time (a short run prints
/// none); with `quiet`, nothing. The slices adapt to the engine's speed; the engine itself has
/// no callback on its hot path, and slicing does not change the results.
fn run_with_progress<O: Observer>(mut sim: Simulation<'_, O>, name: &str, quiet: bool) -> Results {
    let mode = Progress::new(quiet, std::io::stderr().is_terminal(), std::env::var(LINE_EVERY_VAR).ok().as_deref());
    let end = sim.end_time();
    let bar = ProgressBar::with_draw_target(Some(end), ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("simulating {prefix}: {msg} [{wide_bar}] {elapsed}, ~{eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(name.to_string());
    let started = Instant::now();
    let mut shown = false;
    let mut last_line = started;
    let mut slice = (end / 1000).max(1);
    while !sim.is_finished() {
        let t0 = Instant::now();
        sim.run_until(sim.now().saturating_add(slice));
        let took = t0.elapsed();
        if took < SLICE_WALL / 2 {
            slice = slice.saturating_mul(2);
        } else if took > SLICE_WALL * 2 {
            slice = (slice / 2).max(1);
        }
        match mode {
            Progress::Bar => {
                if !shown && started.elapsed() >= SHOW_AFTER {
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                    shown = true;
                }
                bar.set_position(sim.now());
                bar.set_message(simulated_time(sim.now(), end));
            }
            Progress::Lines(every) if last_line.elapsed() >= every && !sim.is_finished() => {
                last_line = Instant::now();
                eprintln!("{}", progress_line(name, sim.now(), end, sim.events(), started.elapsed()));
            }
            Progress::Lines(_) | Progress::Off => {}
        }
    }
    bar.finish_and_clear();
    sim.finish()
}

/// `sim: NAME: 1.20 ms of 10.00 ms simulated, 48.1 M events, 12 s`.
fn progress_line(name: &str, now: u64, end: u64, events: u64, wall: Duration) -> String {
    let events = if events >= 1_000_000 { format!("{:.1} M", events as f64 / 1e6) } else { events.to_string() };
    format!("sim: {name}: {} simulated, {events} events, {} s", simulated_time(now, end), wall.as_secs())
}

/// "1.25 ms of 10.00 ms", in the unit that suits the end time.
fn simulated_time(now: u64, end: u64) -> String {
    let (unit, ps) = match end {
        e if e >= rocelab_sim::SECOND => ("s", rocelab_sim::SECOND),
        e if e >= rocelab_sim::MS => ("ms", rocelab_sim::MS),
        e if e >= rocelab_sim::US => ("us", rocelab_sim::US),
        _ => ("ns", rocelab_sim::NS),
    };
    format!("{:.2} {unit} of {:.2} {unit}", now as f64 / ps as f64, end as f64 / ps as f64)
}

#[cfg(test)]
mod tests {
    use super::{progress_line, simulated_time, Progress, LINE_EVERY};
    use std::time::Duration;

    #[test]
    fn progress_is_a_bar_on_a_terminal_lines_elsewhere_and_off_when_quiet() {
        assert_eq!(Progress::new(false, true, None), Progress::Bar);
        assert_eq!(Progress::new(false, false, None), Progress::Lines(LINE_EVERY));
        assert_eq!(Progress::new(false, false, Some("250")), Progress::Lines(Duration::from_millis(250)));
        assert_eq!(Progress::new(false, false, Some("soon")), Progress::Lines(LINE_EVERY), "ignored");
        assert_eq!(Progress::new(true, true, Some("0")), Progress::Off);
        assert_eq!(Progress::new(true, false, None), Progress::Off);
    }

    #[test]
    fn a_progress_line_says_simulated_time_events_and_wall_time() {
        let l = progress_line("incast", 1_200_000_000, 10_000_000_000, 48_123_456, Duration::from_millis(12_400));
        assert_eq!(l, "sim: incast: 1.20 ms of 10.00 ms simulated, 48.1 M events, 12 s");
        assert_eq!(
            progress_line("x", 0, 1_000_000, 950, Duration::ZERO),
            "sim: x: 0.00 us of 1.00 us simulated, 950 events, 0 s"
        );
    }

    #[test]
    fn simulated_time_uses_the_unit_of_the_end() {
        assert_eq!(simulated_time(1_250_000_000, 10_000_000_000), "1.25 ms of 10.00 ms");
        assert_eq!(simulated_time(0, 3_000_000_000_000), "0.00 s of 3.00 s");
        assert_eq!(simulated_time(500_000, 800_000), "500.00 ns of 800.00 ns");
    }
}
