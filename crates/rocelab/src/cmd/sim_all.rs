//! `rocelab sim --all --out DIR`: the base scenario and every variant, each at every sweep
//! point, one run folder each (the same as `sim --out`'s), then `DIR/index.json` and one report
//! with the runs side by side. A point with several seeds (`simulation.seeds`, `--seeds N`) runs
//! once per seed, in `.../seed=<S>/`; without seeds the folders are as they always were. With
//! `--ray`, the same runs as Ray tasks ([`super::sim_ray`]), into the same folder.

use super::sim::{simulate, SimArgs};
use crate::failure::{Failure, OrFail, BAD_INPUT, REFUSED};
use crate::input::open;
use crate::out::{out, outln};
use crate::rundir;
use rocelab_model::{Loaded, ResolvedFabric, Scenario};
use rocelab_report::run::{run_dir, run_label, Index, IndexEntry, INDEX_SCHEMA_VERSION};
use rocelab_report::{FailedRun, Report, RunFile, SweepPoint};
use rocelab_sim::from_model::build;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One run of the batch, planned before any runs.
pub struct Planned {
    pub variant: Option<String>,
    /// The sweep point's index and value.
    pub point: Option<(usize, SweepPoint)>,
    /// Its seed when its point runs under several (its folder `seed=<S>`), else `None`.
    pub seed: Option<u64>,
    /// The seed it is built with: `seed`, else `--seed`, else the file's.
    pub build_seed: Option<u64>,
    pub label: String,
    /// Its folder under DIR, `runs/<variant>[/<field=value>][/seed=<S>]`.
    pub rel: PathBuf,
    scenario: Scenario,
    fabric: ResolvedFabric,
}

/// What became of a run: its results, or why it has none.
pub type Outcome = Result<RunFile, String>;

/// `--all`: the base scenario and every variant, each at every sweep point and seed, into
/// `DIR/runs/<variant>[/<field=value>][/seed=<S>]/`, with `DIR/index.json` and one report over
/// all runs. `--variant` and `--pcap` are refused by clap with `--all`; `--out` is `dir`. With
/// `--ray`, the runs are Ray tasks ([`super::sim_ray`]); the folder is the same.
pub fn run(a: &SimArgs, dir: &Path) -> Result<ExitCode, Failure> {
    let (loaded, _) = open(a.file, a.example, None, BAD_INPUT)?;
    let plan = plan(a, &loaded, dir)?;
    crate::outdir::prepare(dir).or_fail(BAD_INPUT)?;
    let outcomes = match a.ray {
        Some(address) => super::sim_ray::run(a, &loaded, &plan, dir, address)?,
        None => serial(a, &plan, dir)?,
    };
    finish(a, &loaded, &plan, outcomes, dir)
}

/// Every run of the batch in order: variant (the base first), sweep point, seed. Every point is
/// built before anything runs, so that a bad one stops the batch at once.
fn plan(a: &SimArgs, loaded: &Loaded, dir: &Path) -> Result<Vec<Planned>, Failure> {
    let variants: Vec<Option<String>> =
        std::iter::once(None).chain(loaded.variant_names().into_iter().map(|v| Some(v.to_string()))).collect();
    let sweep = loaded.sweep_values();
    let points: Vec<Option<usize>> = match &sweep {
        Some((_, values)) => (0..values.len()).map(Some).collect(),
        None => vec![None],
    };
    let mut plan = Vec::new();
    for v in &variants {
        for p in &points {
            let point =
                p.and_then(|i| sweep.as_ref().map(|(f, vals)| SweepPoint { field: f.clone(), value: vals[i].clone() }));
            let (scenario, fabric) =
                loaded.run_point(v.as_deref(), *p).map_err(|d| Failure::diagnostics(BAD_INPUT, &d))?;
            let label = run_label(v.as_deref(), point.as_ref(), None);
            if scenario.workloads.is_empty() {
                return Err(Failure::new(BAD_INPUT, format!("{}: no `workloads` to simulate in {label}", loaded.file)));
            }
            for seed in seeds_of(a, &scenario.simulation, &label)? {
                // The run's folder, from the variant's name, the sweep value and the seed, stays under DIR.
                let rel = Path::new("runs").join(run_dir(v.as_deref(), point.as_ref(), seed));
                crate::outdir::path_in(dir, &rel).or_fail(REFUSED)?;
                plan.push(Planned {
                    variant: v.clone(),
                    point: p.zip(point.clone()),
                    seed,
                    build_seed: seed.or(a.seed),
                    label: run_label(v.as_deref(), point.as_ref(), seed),
                    rel,
                    scenario: scenario.clone(),
                    fabric: fabric.clone(),
                });
            }
        }
    }
    Ok(plan)
}

/// The runs one after the other in this process; the first that cannot run stops the batch.
fn serial(a: &SimArgs, plan: &[Planned], dir: &Path) -> Result<Vec<Outcome>, Failure> {
    let mut outcomes = Vec::new();
    for (k, p) in plan.iter().enumerate() {
        let label = &p.label;
        rocelab_sim::from_model::check_size(&p.fabric)
            .map_err(|e| Failure::error(REFUSED, format!("{label}: the run was refused: {e}")))?;
        let built = build(&p.scenario, &p.fabric, p.build_seed);
        for w in &built.warnings {
            eprintln!("{label}: {w}");
        }
        let what = format!("{label} ({} of {})", k + 1, plan.len());
        let run_path = crate::outdir::path_in(dir, &p.rel).or_fail(REFUSED)?;
        let mut trace = rundir::start(&run_path, &built)?;
        let results = simulate(&built, &what, a.quiet, &mut trace)
            .map_err(|e| Failure::error(REFUSED, format!("{label}: the run was refused: {e}")))?;
        let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
        let run = RunFile {
            scenario: p.fabric.name.clone(),
            variant: p.variant.clone(),
            sweep: p.point.as_ref().map(|(_, s)| s.clone()),
            seeded: p.seed.is_some(),
            names: (&built.names).into(),
            warnings: built.warnings.clone(),
            results,
        };
        rundir::write_run(&run_path, Some(trace), &built, &run, &text)?;
        outcomes.push(Ok(run));
    }
    Ok(outcomes)
}

/// `DIR/index.json` and the report over the runs that ran, listing those that failed; exit 2
/// when one failed.
fn finish(
    a: &SimArgs,
    loaded: &Loaded,
    plan: &[Planned],
    outcomes: Vec<Outcome>,
    dir: &Path,
) -> Result<ExitCode, Failure> {
    let mut index = Index {
        schema_version: INDEX_SCHEMA_VERSION,
        scenario: loaded.fabric.name.clone(),
        source: loaded.file.clone(),
        runs: Vec::new(),
    };
    let (mut runs, mut failed) = (Vec::new(), Vec::new());
    for (p, outcome) in plan.iter().zip(outcomes) {
        let error = outcome.as_ref().err().cloned();
        index.runs.push(IndexEntry {
            label: p.label.clone(),
            variant: p.variant.clone(),
            sweep: p.point.as_ref().map(|(_, s)| s.clone()),
            seed: p.seed,
            results: p.rel.join("results.json").to_string_lossy().replace('\\', "/"),
            error,
        });
        match outcome {
            Ok(run) => runs.push(run),
            Err(error) => failed.push(FailedRun { label: p.label.clone(), error }),
        }
    }
    let index_text = serde_json::to_string_pretty(&index).or_fail(REFUSED)?;
    rundir::write_text(&dir.join("index.json"), &index_text)?;
    let ran = runs.len();
    let report = Report::new(runs, Some(loaded.file.clone())).with_failed(failed.clone());
    let csvs = rundir::write_report(dir, &report)?;
    if a.json {
        outln!("{index_text}");
    } else {
        if let Some(t) = report.tables().first() {
            out!("{}", t.to_text());
        }
        outln!("\nwrote {ran} runs, index.json, report.html and {csvs} CSV files to {}", dir.display());
    }
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for f in &failed {
        eprintln!("{}: {}", f.label, f.error);
    }
    Err(Failure::error(
        REFUSED,
        format!(
            "{} of {} runs failed; the others ran (index.json and report.html list the failed ones)",
            failed.len(),
            plan.len()
        ),
    ))
}

/// The seeds a point runs under: `--seeds N` (N from `--seed` or `simulation.seed` up), else
/// `--seed` alone, else `simulation.seeds`; `[None]`, one run in the point's own folder, when
/// none of these asks for several.
fn seeds_of(a: &SimArgs, sim: &rocelab_model::workload::Simulation, label: &str) -> Result<Vec<Option<u64>>, Failure> {
    if let Some(n) = a.seeds {
        let first = a.seed.unwrap_or(sim.seed);
        return (0..n)
            .map(|i| {
                first.checked_add(i).map(Some).ok_or_else(|| {
                    Failure::error(
                        BAD_INPUT,
                        format!(
                            "{label}: --seeds {n} from seed {first} goes past {}; start from a lower --seed",
                            u64::MAX
                        ),
                    )
                })
            })
            .collect();
    }
    if a.seed.is_some() || sim.seeds.is_empty() {
        return Ok(vec![None]);
    }
    Ok(sim.seeds.iter().copied().map(Some).collect())
}
