//! A run's folder, the same for `sim --out DIR` (DIR itself) and each run of `sim --all --out
//! DIR` (DIR/runs/...): `pfc.txt` written as the run goes, then `results.json`, `summary.txt`
//! and, where the run had them, `fct.txt` and `fio.json`. The report over one or more runs is
//! written beside them by [`write_report`]. Every failure here is a file that cannot be written:
//! exit 2.

use crate::failure::{Failure, OrFail, REFUSED};
use rocelab_report::hpcc::PfcTrace;
use rocelab_report::{Report, RunFile};
use rocelab_sim::from_model::Built;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// The PFC trace of a run, written into its folder as the run goes.
pub type Trace = PfcTrace<BufWriter<File>>;

/// Makes the run's folder and starts its `pfc.txt`, the HPCC simulator's PFC trace (created
/// empty: a run without PFC frames has an empty trace, as there).
pub fn start(dir: &Path, built: &Built) -> Result<Trace, Failure> {
    create_dir(dir)?;
    let path = dir.join("pfc.txt");
    let file = File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display())).or_fail(REFUSED)?;
    Ok(PfcTrace::new(BufWriter::new(file), &built.spec))
}

/// Writes a finished run into its folder: the end of `trace` (the one [`start`] gave, if any),
/// `fct.txt` and `fio.json` when the run had sized flows or storage jobs, `results.json` and
/// `summary.txt`.
pub fn write_run(dir: &Path, trace: Option<Trace>, built: &Built, run: &RunFile, summary: &str) -> Result<(), Failure> {
    create_dir(dir)?;
    if let Some(t) = trace {
        t.finish()
            .map(|_| ())
            .map_err(|e| format!("cannot write {}: {e}", dir.join("pfc.txt").display()))
            .or_fail(REFUSED)?;
    }
    write_fct(dir, built, run)?;
    write_fio(dir, built, run)?;
    write_json(&dir.join("results.json"), run)?;
    write_text(&dir.join("summary.txt"), summary)
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

fn create_dir(dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display())).or_fail(REFUSED)
}

/// Writes `dir/fct.txt` (the HPCC simulator's format) when the run had sized flows.
fn write_fct(dir: &Path, built: &Built, run: &RunFile) -> Result<(), Failure> {
    match &run.results.fct {
        Some(fct) => write_text(&dir.join("fct.txt"), &fct.hpcc_fct_txt(&built.traffic, |i| built.names.dport(i))),
        None => Ok(()),
    }
}

/// Writes `dir/fio.json` (fio's `--output-format=json` layout) when the run had storage jobs.
fn write_fio(dir: &Path, built: &Built, run: &RunFile) -> Result<(), Failure> {
    if run.results.jobs.is_empty() {
        return Ok(());
    }
    let mut jobs = run.results.jobs.clone();
    for j in &mut jobs {
        j.name = built.names.jobs.get(j.job).cloned().unwrap_or_else(|| j.name.clone());
    }
    let node = |n: usize| built.names.nodes.get(n).cloned().unwrap_or_default();
    let v = rocelab_sim::storage::results::fio_json(&jobs, node);
    write_text(&dir.join("fio.json"), &serde_json::to_string_pretty(&v).or_fail(REFUSED)?)
}

/// Writes `value` as pretty JSON into `path`, streamed (a long run's results are tens of MB).
fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Failure> {
    use std::io::Write as _;
    let err = |e: &dyn std::fmt::Display| Failure::error(REFUSED, format!("cannot write {}: {e}", path.display()));
    let mut w = BufWriter::new(File::create(path).map_err(|e| err(&e))?);
    serde_json::to_writer_pretty(&mut w, value).map_err(|e| err(&e))?;
    w.flush().map_err(|e| err(&e))
}
