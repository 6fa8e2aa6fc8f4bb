//! A run's folder, the same for `sim --out DIR` (DIR itself) and each run of `sim --all --out
//! DIR` (DIR/runs/...): the files [`rocelab_report::rundir`] lists (`pfc.txt` written as the run
//! goes, then `fct.txt`, `fio.json`, `results.json` and `summary.txt`), written into the folder.
//! The report over one or more runs is written beside them by [`write_report`]. Every failure
//! here is a file that cannot be written: exit 2.

use crate::failure::{Failure, OrFail, REFUSED};
use rocelab_report::hpcc::PfcTrace;
use rocelab_report::rundir::{self as files, Folder, RunSink};
use rocelab_report::{Report, RunFile};
use rocelab_sim::from_model::Built;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// The PFC trace of a run, written into its folder as the run goes.
pub type Trace = PfcTrace<<Folder as RunSink>::W>;

/// Makes the run's folder and starts its `pfc.txt` ([`files::start`]).
pub fn start(dir: &Path, built: &Built) -> Result<Trace, Failure> {
    files::start(&mut Folder::new(dir), built).map_err(|e| failed(dir, e))
}

/// Writes a finished run into its folder ([`files::finish`]): the end of `trace` (the one
/// [`start`] gave, if any), then the run's other files.
pub fn write_run(dir: &Path, trace: Option<Trace>, built: &Built, run: &RunFile, summary: &str) -> Result<(), Failure> {
    files::finish(&mut Folder::new(dir), trace, built, run, summary).map_err(|e| failed(dir, e))
}

/// A run's file that could not be written, with its path.
fn failed(dir: &Path, e: files::WriteError) -> Failure {
    Failure::error(REFUSED, format!("cannot write {}: {}", dir.join(&e.file).display(), e.error))
}

/// Writes `report.html` and the CSV files of the report into `dir`, a row at a time; the number
/// of CSV files.
pub fn write_report(dir: &Path, report: &Report) -> Result<usize, Failure> {
    let mut last = dir.to_path_buf();
    report
        .write_files(|name| {
            last = dir.join(name);
            File::create(&last).map(BufWriter::new)
        })
        .map_err(|e| format!("cannot write {}: {e}", last.display()))
        .or_fail(REFUSED)
}

/// Writes `text` into `path`.
pub fn write_text(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display())).or_fail(REFUSED)
}
