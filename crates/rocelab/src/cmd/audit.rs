//! `rocelab audit`: a running fabric's counters read against the fabric file's intent. Exit 0
//! when clean, 2 on errors (in the findings, or input that could not be read), 1 on warnings
//! with `--strict`, as `check`.

use crate::failure::{Failure, OrFail};
use crate::input::open;
use crate::out::out;
use crate::CheckFormat as Format;
use rocelab_verify::audit::{self, Level, Snapshot};
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

pub fn run(
    file: &Path,
    variant: Option<&str>,
    counters: &Path,
    baseline: Option<&Path>,
    format: Format,
    strict: bool,
) -> Result<ExitCode, Failure> {
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
    let findings = audit::audit(&fabric, &samples, &resets, baseline.is_some());
    let subject = format!("{} against {}", counters.display(), file.display());
    let text = match format {
        Format::Text => rocelab_verify::render::table(&findings, &subject),
        Format::Json => {
            let v = serde_json::json!({
                "findings": rocelab_verify::render::json(&findings),
                "counters": samples,
                "baseline": baseline.is_some(),
            });
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
