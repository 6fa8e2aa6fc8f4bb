//! `rocelab sim`: load, build the simulator's input, run with progress on stderr, print the
//! summary and, with `--out`, write the run's folder and its report; with `--pcap`, a capture.
//! Glue only: the mapping and the summary live in `rocelab-sim`, the report, the PFC trace and
//! the capture encoder in `rocelab-report`. `--all` is [`super::sim_all`].

use crate::failure::{Failure, OrFail, BAD_INPUT, REFUSED};
use crate::input::open;
use crate::out::{out, outln};
use crate::progress::run_with_progress;
use crate::rundir;
use rocelab_report::pcap::{resolve_filter, PcapObserver};
use rocelab_report::{Report, RunFile};
use rocelab_sim::from_model::{build, Built};
use rocelab_sim::{NoObserver, Observer, Results, SimError, Simulation};
use std::path::Path;
use std::process::ExitCode;

/// What `rocelab sim` was asked to do.
pub struct SimArgs<'a> {
    pub file: Option<&'a Path>,
    pub example: Option<&'a str>,
    pub variant: Option<&'a str>,
    pub seed: Option<u64>,
    /// `--seeds N` (with `--all`): every point under N seeds from `seed` (or `simulation.seed`) up.
    pub seeds: Option<u64>,
    pub out: Option<&'a Path>,
    pub json: bool,
    pub pcap: Option<&'a Path>,
    pub pcap_ports: &'a [String],
    pub pcap_flows: &'a [String],
    pub pcap_limit: Option<u64>,
    /// No progress on stderr (neither the bar nor the plain lines).
    pub quiet: bool,
    /// `--ray [ADDRESS]` (with `--all`): the runs as Ray tasks, `local` or a cluster's address.
    pub ray: Option<&'a str>,
    /// `--threads N`: the run on N threads (`rocelab_sim::run_threads`); `None`: the default
    /// ([`rocelab_sim::default_threads`]).
    pub threads: Option<usize>,
    /// `--threads-profile`: on several threads, what each did, on stderr.
    pub threads_profile: bool,
}

/// Runs one simulation, reporting its progress on stderr unless `quiet`.
pub(crate) fn simulate<O: Observer>(
    built: &Built,
    what: &str,
    quiet: bool,
    observer: &mut O,
) -> Result<Results, SimError> {
    let sim = Simulation::with_observer(&built.spec, &built.traffic, &built.config, observer)?;
    Ok(run_with_progress(sim, what, quiet))
}

/// One run: the scenario or one variant of it.
pub fn run(a: &SimArgs) -> Result<ExitCode, Failure> {
    let (loaded, fabric) = open(a.file, a.example, a.variant, BAD_INPUT)?;
    let scenario = match a.variant {
        None => loaded.scenario.clone(),
        Some(v) => loaded.variant_scenario(v).or_fail(REFUSED)?.0,
    };
    if scenario.workloads.is_empty() {
        return Err(Failure::new(
            BAD_INPUT,
            format!(
                "{}: no `workloads` to simulate; add flows, incast, permutation, all_to_all, poisson or hpcc_flows",
                loaded.file
            ),
        ));
    }
    // Records of every frame and pause (--out's traces, --pcap) need one order of events.
    let observed = [(a.out.is_some(), "--out"), (a.pcap.is_some(), "--pcap")].iter().find(|f| f.0).map(|f| f.1);
    if let (Some(threads), Some(flag)) = (a.threads.filter(|&t| t > 1), observed) {
        return Err(Failure::new(
            BAD_INPUT,
            format!(
                "--threads {threads} cannot be used with {flag} yet: its frame and PFC records need one order of \
                 events, which the threads do not share; run with --threads 1 (the same results)"
            ),
        ));
    }
    if let Some(dir) = a.out {
        crate::outdir::prepare(dir).or_fail(BAD_INPUT)?;
    }
    rocelab_sim::from_model::check_size(&fabric)
        .map_err(|e| Failure::error(REFUSED, format!("the run was refused: {e}")))?;
    let built = build(&scenario, &fabric, a.seed);
    for w in &built.warnings {
        eprintln!("{w}");
    }
    let what = fabric.name.clone();
    let threads = match a.threads {
        Some(t) => t,
        None => {
            let d = rocelab_sim::default_threads(&built.spec, &built.traffic, &built.config);
            let why = match observed {
                Some(flag) if d.threads > 1 => Some(format!("{flag}, whose records need one order of events,")),
                _ => d.why_one,
            };
            match why {
                Some(why) => {
                    if !a.quiet {
                        eprintln!("{what}: simulating on one thread, as {why} cannot run on several threads yet");
                    }
                    1
                }
                None => d.threads,
            }
        }
    };
    let mut trace = a.out.map(|dir| rundir::start(dir, &built)).transpose()?;
    let result = match (a.pcap, trace.take()) {
        (None, None) if threads > 1 => {
            if !a.quiet {
                eprintln!("{what}: simulating on {threads} threads");
            }
            let (spec, traffic, config) = (&built.spec, &built.traffic, &built.config);
            let on = |threads: usize| {
                crate::progress::with_threads_progress(&what, config.end_time_ps, a.quiet, |watch| {
                    rocelab_sim::run_threads_watched(spec, traffic, config, threads, Some(watch))
                })
            };
            let run = match on(threads) {
                // The default knows nothing of memory: where the copies would not fit, the most
                // threads whose copies do, which the refusal names, else one thread.
                Err(e) => match e.fewer_threads(threads).filter(|_| a.threads.is_none()) {
                    Some(fewer) => {
                        if !a.quiet {
                            let count = if fewer == 1 { "one thread".to_string() } else { format!("{fewer} threads") };
                            eprintln!(
                                "{what}: simulating on {count}, as {threads} copies of the run would not fit in memory"
                            );
                        }
                        if fewer > 1 {
                            on(fewer)
                        } else {
                            simulate(&built, &what, a.quiet, &mut NoObserver).map(|r| (r, None))
                        }
                    }
                    None => Err(e),
                },
                ok => ok,
            };
            run.map(|(r, p)| {
                for line in p.iter().filter(|_| a.threads_profile).flat_map(|p| p.lines()) {
                    eprintln!("{line}");
                }
                r
            })
        }
        (None, None) => simulate(&built, &what, a.quiet, &mut NoObserver),
        (None, Some(mut t)) => {
            let r = simulate(&built, &what, a.quiet, &mut t);
            trace = Some(t);
            r
        }
        (Some(path), t) => {
            let filter = resolve_filter(&built.spec, &built.names, a.pcap_ports, a.pcap_flows, a.pcap_limit)
                .or_fail(BAD_INPUT)?;
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))
                    .or_fail(REFUSED)?;
            }
            let file = std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))
                .or_fail(REFUSED)?;
            let at = |e: String| Failure::error(REFUSED, format!("{}: {e}", path.display()));
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
    let results = result.map_err(|e| Failure::error(REFUSED, format!("the run was refused: {e}")))?;
    let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
    let run = RunFile {
        scenario: fabric.name.clone(),
        variant: a.variant.map(str::to_string),
        sweep: None,
        seeded: false,
        names: (&built.names).into(),
        warnings: built.warnings.clone(),
        results,
    };
    if let Some(dir) = a.out {
        rundir::write_run(dir, trace, &built, &run, &text)?;
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&run).or_fail(REFUSED)?);
    } else {
        out!("{text}");
    }
    if let Some(dir) = a.out {
        rundir::write_report(dir, &Report::new(vec![run], Some(loaded.file.clone())))?;
    }
    Ok(ExitCode::SUCCESS)
}
