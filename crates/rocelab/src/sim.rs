//! `rocelab sim`: load, build the simulator's input, run with a progress indicator, write the
//! results. Glue only: the mapping and the summary live in `rocelab-sim`.

use indicatif::{ProgressBar, ProgressStyle};
use rocelab_sim::from_model::{build, Names};
use rocelab_sim::Results;
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

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
    // Storage jobs and iperf flows load and validate, but the engine does not run TCP or the
    // storage protocols yet: refuse rather than run the scenario without them.
    if !scenario.workloads.jobs.is_empty() || !scenario.workloads.iperf.is_empty() {
        eprintln!(
            "{}: `workloads.jobs` and `workloads.iperf` are checked but not simulated yet (TCP and the \
             storage protocols are not wired into the engine); the run is refused",
            loaded.file
        );
        return Ok(ExitCode::from(2));
    }
    let built = build(&scenario, &fabric, seed);
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    // The engine has no progress hook on its hot path; a spinner with the elapsed time shows
    // that a run longer than a second is alive.
    let bar = ProgressBar::hidden();
    bar.set_style(
        ProgressStyle::with_template("{spinner} simulating {msg} [{elapsed}]")
            .unwrap_or(ProgressStyle::default_spinner()),
    );
    bar.set_message(format!("{} of {}", scenario.simulation.duration, fabric.name));
    let spinner = bar.clone();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let shown = std::thread::spawn(move || {
        if finished.recv_timeout(Duration::from_secs(1)).is_err() {
            spinner.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            spinner.enable_steady_tick(Duration::from_millis(200));
            let _ = finished.recv();
        }
    });
    let result = rocelab_sim::run(&built.spec, &built.traffic, &built.config);
    let _ = done.send(());
    let _ = shown.join();
    bar.finish_and_clear();
    let results = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: the run was refused: {e}");
            return Ok(ExitCode::from(2));
        }
    };
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
