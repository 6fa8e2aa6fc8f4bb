//! `rocelab sim --all --out DIR`: the base scenario and every variant, each at every sweep
//! point, one run folder each (the same as `sim --out`'s), then `DIR/index.json` and one report
//! with the runs side by side. A point with several seeds (`simulation.seeds`, `--seeds N`) runs
//! once per seed, in `.../seed=<S>/`; without seeds the folders are as they always were.

use super::sim::{simulate, SimArgs};
use crate::failure::{Failure, OrFail, BAD_INPUT, REFUSED};
use crate::input::open;
use crate::out::{out, outln};
use crate::rundir;
use rocelab_report::run::{run_dir, run_label, Index, IndexEntry, INDEX_SCHEMA_VERSION};
use rocelab_report::{Report, RunFile, SweepPoint};
use rocelab_sim::from_model::build;
use std::path::Path;
use std::process::ExitCode;

/// `--all`: the base scenario and every variant, each at every sweep point and seed, into
/// `DIR/runs/<variant>[/<field=value>][/seed=<S>]/`, with `DIR/index.json` and one report over
/// all runs. `--variant` and `--pcap` are refused by clap with `--all`; `--out` is `dir`.
pub fn run(a: &SimArgs, dir: &Path) -> Result<ExitCode, Failure> {
    let (loaded, _) = open(a.file, a.example, None, BAD_INPUT)?;
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
            let (scenario, fabric) =
                loaded.run_point(v.as_deref(), *p).map_err(|d| Failure::diagnostics(BAD_INPUT, &d))?;
            let label = run_label(v.as_deref(), point.as_ref(), None);
            if scenario.workloads.is_empty() {
                return Err(Failure::new(BAD_INPUT, format!("{}: no `workloads` to simulate in {label}", loaded.file)));
            }
            for seed in seeds_of(a, &scenario.simulation, &label)? {
                // The run's folder, from the variant's name, the sweep value and the seed, stays under DIR.
                crate::outdir::path_in(dir, &Path::new("runs").join(run_dir(v.as_deref(), point.as_ref(), seed)))
                    .or_fail(REFUSED)?;
                plan.push((v.clone(), point.clone(), seed, scenario.clone(), fabric.clone()));
            }
        }
    }
    crate::outdir::prepare(dir).or_fail(BAD_INPUT)?;
    let mut runs = Vec::new();
    let mut index = Index {
        schema_version: INDEX_SCHEMA_VERSION,
        scenario: loaded.fabric.name.clone(),
        source: loaded.file.clone(),
        runs: Vec::new(),
    };
    for (k, (variant, point, seed, scenario, fabric)) in plan.iter().enumerate() {
        let label = run_label(variant.as_deref(), point.as_ref(), *seed);
        rocelab_sim::from_model::check_size(fabric)
            .map_err(|e| Failure::error(REFUSED, format!("{label}: the run was refused: {e}")))?;
        let built = build(scenario, fabric, seed.or(a.seed));
        for w in &built.warnings {
            eprintln!("{label}: {w}");
        }
        let what = format!("{label} ({} of {})", k + 1, plan.len());
        let rel = Path::new("runs").join(run_dir(variant.as_deref(), point.as_ref(), *seed));
        let run_path = crate::outdir::path_in(dir, &rel).or_fail(REFUSED)?;
        let mut trace = rundir::start(&run_path, &built)?;
        let results = simulate(&built, &what, a.quiet, &mut trace)
            .map_err(|e| Failure::error(REFUSED, format!("{label}: the run was refused: {e}")))?;
        let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
        let run = RunFile {
            scenario: fabric.name.clone(),
            variant: variant.clone(),
            sweep: point.clone(),
            seeded: seed.is_some(),
            names: (&built.names).into(),
            warnings: built.warnings.clone(),
            results,
        };
        rundir::write_run(&run_path, Some(trace), &built, &run, &text)?;
        index.runs.push(IndexEntry {
            label: label.clone(),
            variant: variant.clone(),
            sweep: point.clone(),
            seed: *seed,
            results: rel.join("results.json").to_string_lossy().replace('\\', "/"),
        });
        runs.push(run);
    }
    let index_text = serde_json::to_string_pretty(&index).or_fail(REFUSED)?;
    rundir::write_text(&dir.join("index.json"), &index_text)?;
    let report = Report::new(runs, Some(loaded.file.clone()));
    let csvs = rundir::write_report(dir, &report)?;
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
