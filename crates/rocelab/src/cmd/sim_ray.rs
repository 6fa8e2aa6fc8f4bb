//! `rocelab sim --all --ray [ADDRESS]`: the runs of `sim --all` as Ray tasks. Ray is a Python
//! engine, so the CLI starts the `rocelab` Python package's driver (`python -m rocelab.sweep
//! --plan - --out DIR`), hands it the plan on stdin and follows its progress on stdout, one JSON
//! line per finished run. Each task simulates one run and sends its files back as bytes
//! (`rocelab_report::rundir`, the one list of a run's files, through the native module); the
//! driver writes them into the run's folder under the CLI's folder rules
//! (`rocelab_report::outdir`). The index and the report are then written here, by the code of
//! the serial path ([`super::sim_all`]), from the runs' `results.json` read back.

use super::sim::SimArgs;
use super::sim_all::{Outcome, Planned};
use crate::failure::{Failure, REFUSED};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rocelab_model::Loaded;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The version of the plan and of the lines the driver answers with; the driver refuses a plan
/// of another version (a CLI and a Python package from different releases).
const PROTOCOL: u32 = 1;

/// The Python that runs the driver, when set.
const PYTHON_VAR: &str = "ROCELAB_PYTHON";

/// What to install when the driver cannot start.
const INSTALL: &str = "pip install ./crates/rocelab-py 'ray>=2.9' (from the rocelab repository), then run again; or \
                       set ROCELAB_PYTHON to a Python that has both";

/// The Python interpreter for the driver: `$ROCELAB_PYTHON`, else the `.venv` of the current
/// folder or the nearest folder above it that has one (where `./test.sh` installs the package
/// and Ray), else `python3` on PATH.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os(PYTHON_VAR).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let venv = if cfg!(windows) { Path::new(".venv/Scripts/python.exe") } else { Path::new(".venv/bin/python") };
    if let Ok(cwd) = std::env::current_dir() {
        if let Some(p) = cwd.ancestors().map(|d| d.join(venv)).find(|p| p.is_file()) {
            return p;
        }
    }
    PathBuf::from(if cfg!(windows) { "python" } else { "python3" })
}

/// The plan as the driver reads it: where to load the fabric from, and every run with its
/// variant, sweep point index, seeds and folder.
fn plan_json(a: &SimArgs, loaded: &Loaded, plan: &[Planned], address: &str) -> Result<Value, Failure> {
    let source = match a.file {
        Some(f) => {
            let abs = std::fs::canonicalize(f)
                .map_err(|e| Failure::error(REFUSED, format!("{}: cannot resolve the path: {e}", f.display())))?;
            json!({ "file": abs.to_string_lossy() })
        }
        None => {
            let ex = crate::builtin::get(a.example.unwrap_or(crate::builtin::DEFAULT))
                .ok_or_else(|| Failure::error(REFUSED, crate::builtin::unknown(a.example.unwrap_or_default())))?;
            json!({ "text": ex.yaml, "name": loaded.file })
        }
    };
    let runs: Vec<Value> = plan
        .iter()
        .map(|p| {
            json!({
                "label": p.label,
                "variant": p.variant,
                "point": p.point.as_ref().map(|(i, _)| i),
                "seed": p.build_seed,
                "seeded": p.seed.is_some(),
                "dir": p.rel.to_string_lossy().replace('\\', "/"),
            })
        })
        .collect();
    Ok(
        json!({ "protocol": PROTOCOL, "version": env!("CARGO_PKG_VERSION"), "source": source, "ray": address, "runs": runs }),
    )
}

/// The progress bar of the runs, on stderr when it is a terminal (and not `--quiet`); hidden
/// elsewhere, where a redrawn bar would be garbage in a log.
fn bar(total: usize, quiet: bool) -> ProgressBar {
    let target = if !quiet && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total as u64), target);
    bar.set_style(
        ProgressStyle::with_template("ray: [{wide_bar}] {pos}/{len} runs, {elapsed}, ~{eta} left {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// One line of the driver's stdout.
#[derive(Debug, PartialEq)]
enum Line {
    /// The driver has imported the package and Ray and submitted the tasks.
    Ready,
    /// Run `k` of the plan finished: written, or failed with the error.
    Done(usize, Option<String>),
    /// Anything else (a library printing on stdout): ignored.
    Other,
}

fn parse_line(line: &str) -> Line {
    let Ok(v) = serde_json::from_str::<Value>(line) else { return Line::Other };
    if v.get("ready").is_some() {
        return Line::Ready;
    }
    match v.get("run").and_then(Value::as_u64) {
        Some(k) => Line::Done(k as usize, v.get("error").and_then(Value::as_str).map(str::to_string)),
        None => Line::Other,
    }
}

/// Runs `plan` as Ray tasks on a local Ray (`address` "local") or the cluster at `address`; what
/// became of each run, in the plan's order. The driver failing to start (no Python, no rocelab
/// package, no Ray) is exit 2 with what to install.
pub fn run(a: &SimArgs, loaded: &Loaded, plan: &[Planned], dir: &Path, address: &str) -> Result<Vec<Outcome>, Failure> {
    let python = python();
    let plan_text = plan_json(a, loaded, plan, address)?.to_string();
    let mut child = Command::new(&python)
        .args(["-m", "rocelab.sweep", "--plan", "-", "--out"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Failure::error(REFUSED, format!("cannot start {} for the Ray sweep: {e}; {INSTALL}", python.display()))
        })?;
    // Ray and the driver log on stderr; kept, and shown only if the driver fails.
    let (Some(mut stderr), Some(stdout)) = (child.stderr.take(), child.stdout.take()) else {
        return Err(Failure::error(REFUSED, "the Ray sweep driver started without its pipes"));
    };
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    if let Some(mut stdin) = child.stdin.take() {
        // A driver that died at once (no package) closes its stdin: said below, with its stderr.
        let _ = stdin.write_all(plan_text.as_bytes());
    }
    let bar = bar(plan.len(), a.quiet);
    let mut ready = false;
    let mut outcomes: Vec<Option<Option<String>>> = vec![None; plan.len()];
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        match parse_line(&line) {
            Line::Ready => ready = true,
            Line::Done(k, error) if k < plan.len() => {
                bar.set_message(plan[k].label.clone());
                outcomes[k] = Some(error);
                bar.inc(1);
            }
            Line::Done(..) | Line::Other => {}
        }
    }
    bar.finish_and_clear();
    let status = child.wait().map_err(|e| Failure::error(REFUSED, format!("the Ray sweep driver: {e}")))?;
    let log = errors.join().unwrap_or_default();
    if !ready || !status.success() {
        let tail: Vec<&str> = log.lines().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(Failure::error(
            REFUSED,
            format!(
                "the Ray sweep driver (`{} -m rocelab.sweep`) failed ({status}){}\n{}\nThe Ray sweep needs Python with the \
                 rocelab package and Ray: {INSTALL}",
                python.display(),
                if ready { " after it started" } else { " before it started" },
                tail.join("\n")
            ),
        ));
    }
    Ok(plan
        .iter()
        .zip(outcomes)
        .map(|(p, outcome)| match outcome {
            None => Err("the Ray sweep driver ended without reporting this run".to_string()),
            Some(Some(error)) => Err(error),
            Some(None) => read_back(p, dir),
        })
        .collect())
}

/// The run's `results.json`, which the driver wrote; its warnings printed as the serial path
/// prints them.
fn read_back(p: &Planned, dir: &Path) -> Outcome {
    let run = rocelab_report::read_run(&dir.join(&p.rel).join("results.json")).map_err(|e| e.to_string())?;
    for w in &run.warnings {
        eprintln!("{}: {w}", p.label);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::{bar, parse_line, Line};
    use std::io::IsTerminal;

    #[test]
    fn the_bar_counts_the_runs_and_shows_only_on_a_terminal() {
        let b = bar(32, true);
        assert!(b.is_hidden(), "--quiet hides it");
        assert_eq!(b.length(), Some(32));
        assert_eq!(bar(32, false).is_hidden(), !std::io::stderr().is_terminal());
    }

    #[test]
    fn the_drivers_lines_are_read_and_anything_else_is_ignored() {
        assert_eq!(parse_line(r#"{"ready": 4}"#), Line::Ready);
        assert_eq!(parse_line(r#"{"run": 2, "error": null}"#), Line::Done(2, None));
        assert_eq!(
            parse_line(r#"{"run": 0, "error": "base: the run was refused"}"#),
            Line::Done(0, Some("base: the run was refused".into()))
        );
        assert_eq!(parse_line("2026-01-01 INFO worker.py: started"), Line::Other);
        assert_eq!(parse_line(r#"{"run": "x"}"#), Line::Other);
    }
}
