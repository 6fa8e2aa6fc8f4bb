//! `rocelab sim`: load, build the simulator's input, run with a progress bar, write the
//! results. Glue only: the mapping and the summary live in `rocelab-sim`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rocelab_sim::from_model::{build, Names};
use rocelab_sim::{Observer, Results, Simulation};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What `results.json` holds: the run's results with the model's names around them.
#[derive(Serialize)]
struct Output<'a> {
    scenario: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'a str>,
    names: &'a Names,
    warnings: &'a [String],
    results: &'a Results,
}

pub fn run(
    file: Option<&Path>,
    example: Option<&str>,
    variant: Option<&str>,
    seed: Option<u64>,
    out: Option<&Path>,
    json: bool,
) -> Result<ExitCode, String> {
    let (loaded, fabric) = match crate::open(file, example, variant, 1) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let scenario = match variant {
        None => loaded.scenario.clone(),
        Some(v) => loaded.variant_scenario(v).map_err(|d| d.to_string())?.0,
    };
    if scenario.workloads.is_empty() {
        eprintln!("{}: no `workloads` to simulate; add flows, incast, permutation or all_to_all", loaded.file);
        return Ok(ExitCode::from(1));
    }
    let built = build(&scenario, &fabric, seed);
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    let sim = match Simulation::new(&built.spec, &built.traffic, &built.config) {
        Ok(sim) => sim,
        Err(e) => {
            eprintln!("error: the run was refused: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let results = run_with_progress(sim, &fabric.name);
    let output =
        Output { scenario: &fabric.name, variant, names: &built.names, warnings: &built.warnings, results: &results };
    let json_text = serde_json::to_string_pretty(&output).map_err(|e| e.to_string())?;
    let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        std::fs::write(dir.join("results.json"), &json_text).map_err(|e| format!("cannot write results.json: {e}"))?;
        std::fs::write(dir.join("summary.txt"), &text).map_err(|e| format!("cannot write summary.txt: {e}"))?;
    }
    if json {
        println!("{json_text}");
    } else {
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A slice of the run should take about this long, so that the bar moves smoothly and the
/// slicing costs nothing measurable.
const SLICE_WALL: Duration = Duration::from_millis(50);
/// The bar appears once a run has taken this long (short runs print nothing).
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Run `sim` to its end in slices of simulated time, showing on stderr a bar of simulated over
/// total time once the run has taken [`SHOW_AFTER`] (never when stderr is not a terminal), and
/// return the results. The slices adapt to the engine's speed; the engine itself has no
/// callback on its hot path, and slicing does not change the results.
fn run_with_progress<O: Observer>(mut sim: Simulation<'_, O>, name: &str) -> Results {
    let end = sim.end_time();
    let bar = ProgressBar::with_draw_target(Some(end), ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("simulating {prefix}: {msg} [{wide_bar}] {elapsed}, ~{eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(name.to_string());
    let terminal = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut shown = false;
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
        if !shown && terminal && started.elapsed() >= SHOW_AFTER {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
        bar.set_position(sim.now());
        bar.set_message(simulated_time(sim.now(), end));
    }
    bar.finish_and_clear();
    sim.finish()
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
    use super::simulated_time;

    #[test]
    fn simulated_time_uses_the_unit_of_the_end() {
        assert_eq!(simulated_time(1_250_000_000, 10_000_000_000), "1.25 ms of 10.00 ms");
        assert_eq!(simulated_time(0, 3_000_000_000_000), "0.00 s of 3.00 s");
        assert_eq!(simulated_time(500_000, 800_000), "500.00 ns of 800.00 ns");
    }
}
