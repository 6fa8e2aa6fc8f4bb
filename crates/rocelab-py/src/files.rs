//! A run's folder from Python: the files `rocelab sim --all` writes for one run, made in memory
//! (what a Ray task of `rocelab sim --all --ray` sends back), and written into a run's folder
//! under the output folder. Both go through `rocelab_report::rundir` and
//! `rocelab_report::outdir`, the CLI's own code, so the folder is the CLI's byte for byte.

use crate::{fabric_error, Fabric};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rocelab_report::rundir::{self, Memory};
use rocelab_report::{RunFile, SweepPoint};
use std::path::PathBuf;

/// The files of one run of `rocelab sim --all` as `[(name, bytes)]`, in the order the CLI
/// writes them: the base scenario or a variant, at a sweep point (its index) or none, built with
/// `seed` (the file's `simulation.seed` when `None`); `seeded` when the point runs under several
/// seeds (the run's label and `results.json` then carry the seed, as the CLI's do).
#[pyfunction]
#[pyo3(signature = (fabric, variant = None, point = None, seed = None, seeded = false))]
pub fn run_files<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    variant: Option<&str>,
    point: Option<usize>,
    seed: Option<u64>,
    seeded: bool,
) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
    let loaded = &fabric.loaded;
    let (scenario, resolved) = loaded.run_point(variant, point).map_err(|d| fabric_error(py, &d))?;
    let sweep = point.and_then(|i| {
        loaded.sweep_values().and_then(|(field, values)| values.get(i).map(|v| SweepPoint { field, value: v.clone() }))
    });
    let refused = |e: &dyn std::fmt::Display| PyRuntimeError::new_err(format!("the run was refused: {e}"));
    rocelab_sim::from_model::check_size(&resolved).map_err(|e| refused(&e))?;
    let files = py.detach(|| -> Result<Vec<(String, Vec<u8>)>, String> {
        let built = rocelab_sim::from_model::build(&scenario, &resolved, seed);
        let mut sink = Memory::default();
        let mut trace = rundir::start(&mut sink, &built).map_err(|e| e.to_string())?;
        let results = {
            let sim = rocelab_sim::Simulation::with_observer(&built.spec, &built.traffic, &built.config, &mut trace);
            sim.map_err(|e| format!("the run was refused: {e}"))?.finish()
        };
        let text = rocelab_sim::summary::summary(&results, &built.names, &built.warnings);
        let run = RunFile {
            scenario: resolved.name.clone(),
            variant: variant.map(str::to_string),
            sweep,
            seeded,
            names: (&built.names).into(),
            warnings: built.warnings.clone(),
            results,
        };
        rundir::finish(&mut sink, Some(trace), &built, &run, &text).map_err(|e| e.to_string())?;
        Ok(sink.files)
    });
    let files = files.map_err(PyRuntimeError::new_err)?;
    Ok(files.into_iter().map(|(name, bytes)| (name, PyBytes::new(py, &bytes))).collect())
}

/// Writes a run's files (from [`run_files`], maybe made on another machine) into
/// `out_dir/run_dir`, under the CLI's folder rules: `run_dir` and every name must be plain
/// names, so nothing lands outside `out_dir`.
#[pyfunction]
pub fn write_run_files(
    py: Python<'_>,
    out_dir: PathBuf,
    run_dir: PathBuf,
    files: Vec<(String, Bound<'_, PyBytes>)>,
) -> PyResult<()> {
    let files: Vec<(String, Vec<u8>)> = files.into_iter().map(|(n, b)| (n, b.as_bytes().to_vec())).collect();
    py.detach(|| rundir::write_files(&out_dir, &run_dir, &files)).map_err(PyOSError::new_err)
}
