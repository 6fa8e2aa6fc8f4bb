//! The files of one run's folder, the same wherever the run happened: `rocelab sim --out DIR`
//! (DIR itself), each run of `rocelab sim --all --out DIR` (DIR/runs/...), serially in the CLI
//! or as a Ray task in the Python package, whose worker sends the files back as bytes. This
//! module is the one list of those files and their order; where they go is the [`RunSink`]'s
//! business (files in a folder, or buffers in memory).
//!
//! The files: `pfc.txt`, the HPCC simulator's PFC trace, written as the run goes ([`start`]);
//! then ([`finish`]) `fct.txt` (the HPCC simulator's flow-completion format) when the run had
//! sized flows, `fio.json` (fio's `--output-format=json` layout) when it had storage jobs,
//! `results.json` and `summary.txt`.

use crate::hpcc::PfcTrace;
use crate::run::RunFile;
use rocelab_sim::from_model::Built;
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The PFC trace's file name; [`start`] opens it before the run.
pub const PFC_TRACE: &str = "pfc.txt";

/// Where a run's files go: opened one at a time by name, written, then closed.
pub trait RunSink {
    type W: Write;
    /// Opens the file `name` of the run's folder for writing.
    fn create(&mut self, name: &str) -> io::Result<Self::W>;
    /// Closes `name`, written through `w`: flushes it, or keeps its bytes.
    fn close(&mut self, name: &str, w: Self::W) -> io::Result<()>;
}

/// A file of the run that could not be written, and why.
#[derive(Debug)]
pub struct WriteError {
    /// The file's name in the run's folder.
    pub file: String,
    pub error: io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.file, self.error)
    }
}

impl std::error::Error for WriteError {}

fn at(file: &str) -> impl Fn(io::Error) -> WriteError + '_ {
    move |error| WriteError { file: file.to_string(), error }
}

/// Opens `pfc.txt` and gives the observer that writes the run's PFC trace into it (created
/// empty: a run without PFC frames has an empty trace, as in the HPCC simulator).
pub fn start<S: RunSink>(sink: &mut S, built: &Built) -> Result<PfcTrace<S::W>, WriteError> {
    let w = sink.create(PFC_TRACE).map_err(at(PFC_TRACE))?;
    Ok(PfcTrace::new(w, &built.spec))
}

/// Writes a finished run: the end of `trace` (the one [`start`] gave, if any), then `fct.txt`
/// and `fio.json` when the run had sized flows or storage jobs, `results.json` and
/// `summary.txt` (`summary`, the text `rocelab sim` prints).
pub fn finish<S: RunSink>(
    sink: &mut S,
    trace: Option<PfcTrace<S::W>>,
    built: &Built,
    run: &RunFile,
    summary: &str,
) -> Result<(), WriteError> {
    if let Some(t) = trace {
        let w = t.into_inner().map_err(at(PFC_TRACE))?;
        sink.close(PFC_TRACE, w).map_err(at(PFC_TRACE))?;
    }
    if let Some(fct) = &run.results.fct {
        let text = fct.hpcc_fct_txt(&built.traffic, |i| built.names.dport(i));
        put(sink, "fct.txt", |w| w.write_all(text.as_bytes()))?;
    }
    if !run.results.jobs.is_empty() {
        let mut jobs = run.results.jobs.clone();
        for j in &mut jobs {
            j.name = built.names.jobs.get(j.job).cloned().unwrap_or_else(|| j.name.clone());
        }
        let node = |n: usize| built.names.nodes.get(n).cloned().unwrap_or_default();
        let v = rocelab_sim::storage::results::fio_json(&jobs, node);
        put(sink, "fio.json", |w| serde_json::to_writer_pretty(w, &v).map_err(io::Error::from))?;
    }
    // Streamed: a long run's results are tens of MB.
    put(sink, "results.json", |w| serde_json::to_writer_pretty(w, run).map_err(io::Error::from))?;
    put(sink, "summary.txt", |w| w.write_all(summary.as_bytes()))
}

fn put<S: RunSink>(
    sink: &mut S,
    name: &str,
    write: impl FnOnce(&mut S::W) -> io::Result<()>,
) -> Result<(), WriteError> {
    let mut w = sink.create(name).map_err(at(name))?;
    write(&mut w).map_err(at(name))?;
    sink.close(name, w).map_err(at(name))
}

/// A run's folder on disk, made when its first file is opened.
pub struct Folder {
    dir: PathBuf,
}

impl Folder {
    pub fn new(dir: &Path) -> Folder {
        Folder { dir: dir.to_path_buf() }
    }

    /// The folder's path.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl RunSink for Folder {
    type W = BufWriter<std::fs::File>;

    fn create(&mut self, name: &str) -> io::Result<Self::W> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", self.dir.display())))?;
        std::fs::File::create(self.dir.join(name)).map(BufWriter::new)
    }

    fn close(&mut self, _name: &str, mut w: Self::W) -> io::Result<()> {
        w.flush()
    }
}

/// A run's files kept in memory, `(name, bytes)` in the order they were written: what a Ray
/// task sends back to the machine that writes the folder.
#[derive(Default)]
pub struct Memory {
    pub files: Vec<(String, Vec<u8>)>,
}

impl RunSink for Memory {
    type W = Vec<u8>;

    fn create(&mut self, _name: &str) -> io::Result<Vec<u8>> {
        Ok(Vec::new())
    }

    fn close(&mut self, name: &str, w: Vec<u8>) -> io::Result<()> {
        self.files.push((name.to_string(), w));
        Ok(())
    }
}

/// Writes files a run produced elsewhere ([`Memory`]'s) into `dir/rel`, a run's folder under
/// the output folder `dir`; `rel` and every name must be plain names
/// ([`crate::outdir::path_in`], [`crate::outdir::file_in`]): nothing lands outside `dir`.
pub fn write_files(dir: &Path, rel: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    let run = crate::outdir::path_in(dir, rel)?;
    std::fs::create_dir_all(&run).map_err(|e| format!("cannot create {}: {e}", run.display()))?;
    for (name, bytes) in files {
        let path = crate::outdir::file_in(&run, name)?;
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that fails on one file, to see the error name it.
    struct FailOn(&'static str, Memory);

    impl RunSink for FailOn {
        type W = Vec<u8>;
        fn create(&mut self, name: &str) -> io::Result<Vec<u8>> {
            if name == self.0 {
                return Err(io::Error::new(io::ErrorKind::PermissionDenied, "denied"));
            }
            self.1.create(name)
        }
        fn close(&mut self, name: &str, w: Vec<u8>) -> io::Result<()> {
            self.1.close(name, w)
        }
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rocelab-rundir-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn files_made_elsewhere_land_in_the_run_folder_and_nowhere_else() {
        let d = scratch("write");
        let files = vec![("results.json".to_string(), b"{}".to_vec()), ("pfc.txt".to_string(), Vec::new())];
        write_files(&d, Path::new("runs/base/seed=3"), &files).unwrap();
        assert_eq!(std::fs::read(d.join("runs/base/seed=3/results.json")).unwrap(), b"{}");
        assert_eq!(std::fs::read(d.join("runs/base/seed=3/pfc.txt")).unwrap(), b"");
        let e = write_files(&d, Path::new("runs/../x"), &files).unwrap_err();
        assert!(e.contains("refusing to write"), "{e}");
        let bad = vec![("../escaped".to_string(), b"x".to_vec())];
        let e = write_files(&d, Path::new("runs/base"), &bad).unwrap_err();
        assert!(e.contains("path separator"), "{e}");
        assert!(!d.join("runs/escaped").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A small run of a shipped example (sized flows, so `fct.txt` too): its files in memory.
    fn example_run(sink: &mut impl RunSink) -> Result<RunFile, WriteError> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sim-flows-leaf-spine.yaml");
        let loaded = rocelab_model::load_file(&path).unwrap();
        let mut scenario = loaded.scenario.clone();
        scenario.simulation.duration = "50us".parse().unwrap();
        let built = rocelab_sim::from_model::build(&scenario, &loaded.fabric, None);
        let mut trace = start(sink, &built)?;
        let results = {
            let sim = rocelab_sim::Simulation::with_observer(&built.spec, &built.traffic, &built.config, &mut trace);
            sim.unwrap().finish()
        };
        let run = RunFile {
            scenario: loaded.fabric.name.clone(),
            variant: None,
            sweep: None,
            seeded: false,
            names: (&built.names).into(),
            warnings: built.warnings.clone(),
            results,
        };
        finish(sink, Some(trace), &built, &run, "the summary\n")?;
        Ok(run)
    }

    #[test]
    fn a_run_writes_its_files_in_order_and_its_results_read_back_equal() {
        let mut sink = Memory::default();
        let run = example_run(&mut sink).unwrap();
        let names: Vec<&str> = sink.files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["pfc.txt", "fct.txt", "results.json", "summary.txt"]);
        let back: RunFile = serde_json::from_slice(&sink.files[2].1).unwrap();
        assert_eq!(back, run);
        assert_eq!(sink.files[3].1, b"the summary\n");
    }

    #[test]
    fn a_file_that_cannot_be_written_is_named() {
        for name in ["pfc.txt", "results.json"] {
            let mut sink = FailOn(name, Memory::default());
            let e = example_run(&mut sink).unwrap_err();
            assert_eq!(e.to_string(), format!("cannot write {name}: denied"));
        }
    }
}
