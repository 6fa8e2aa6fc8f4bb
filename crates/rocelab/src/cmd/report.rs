//! `rocelab report DIR`: the report of the runs `sim --out DIR` wrote, rendered again. Exit 1
//! when a results file is missing or unreadable.

use crate::failure::{Failure, OrFail, BAD_INPUT};
use crate::out::{out, outln};
use crate::rundir;
use rocelab_report::Report;
use std::path::Path;
use std::process::ExitCode;

/// `rocelab report DIR`: the report again from the results files in `DIR`.
pub fn run(dir: &Path) -> Result<ExitCode, Failure> {
    // A directory the report cannot be written into is said before the results are read; what
    // is not a directory is `load_dir`'s to explain.
    if dir.is_dir() {
        crate::outdir::prepare(dir).or_fail(BAD_INPUT)?;
    }
    let runs = rocelab_report::load_dir(dir).or_fail(BAD_INPUT)?;
    let source = rocelab_report::run::read_index(&dir.join("index.json")).ok().map(|i| i.source);
    let report = Report::new(runs, source);
    let csvs = rundir::write_report(dir, &report)?;
    if let Some(t) = report.tables().first() {
        out!("{}", t.to_text());
    }
    outln!("\nwrote report.html and {csvs} CSV files to {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
