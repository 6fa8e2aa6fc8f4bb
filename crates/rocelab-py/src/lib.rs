//! # rocelab-py
//!
//! The `rocelab._rocelab` extension module behind the `rocelab` Python package
//! (`python/rocelab/__init__.py` wraps it and builds the pandas DataFrames). It is glue over the
//! library crates, as the CLI is: loading with located diagnostics (`rocelab-model`), `check`
//! (`rocelab-verify`), configurations (`rocelab-config`), simulation (`rocelab-sim`) and the
//! report's tables (`rocelab-report`), so that a figure read from Python is the one the CLI
//! prints or writes for the same file, variant and seed.
//!
//! The interpreter's lock is released while a simulation or a rendering runs
//! ([`Python::detach`]): other Python threads go on, and several simulations may run at once in
//! threads of one process (the engine holds no global state).

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rocelab_model::{Diagnostics, Loaded};
use rocelab_report::{RunFile, SweepPoint};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

mod convert;
mod files;
mod run;

/// The CLI's rules for output folders (made and proven writable before anything is rendered;
/// file names from the fabric kept inside the folder), from the library both use.
use rocelab_report::outdir;

/// `rocelab.FabricError` (defined in Python, a `ValueError`) with the diagnostics as data and,
/// as its text, every diagnostic one per line: what `rocelab validate` prints.
fn fabric_error(py: Python<'_>, d: &Diagnostics) -> PyErr {
    let text = d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    let made = (|| -> PyResult<PyErr> {
        let class = py.import("rocelab")?.getattr("FabricError")?;
        let list = convert::diagnostics(py, d)?;
        Ok(PyErr::from_value(class.call1((text.clone(), list))?))
    })();
    made.unwrap_or_else(|e| e)
}

/// Findings of a rendering as `(is_error, text)`, the text as the CLI prints it.
type Findings = Vec<(bool, String)>;

/// A fabric file, loaded and validated (the base fabric; variants and sweep points are applied
/// on request).
#[pyclass(module = "rocelab._rocelab", frozen)]
struct Fabric {
    loaded: Loaded,
}

/// Reads and validates a fabric file; relative paths in it (flow-size CDFs, HPCC files) are
/// taken from the file's folder.
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<Fabric> {
    let r = py.detach(|| rocelab_model::load_file(&path));
    r.map(|loaded| Fabric { loaded }).map_err(|d| fabric_error(py, &d))
}

/// Loads a fabric from YAML (or JSON) text, named `name` in diagnostics; relative paths in it
/// are taken from the current folder.
#[pyfunction]
#[pyo3(signature = (text, name = "<string>"))]
fn loads(py: Python<'_>, text: &str, name: &str) -> PyResult<Fabric> {
    let r = py.detach(|| rocelab_model::load_str(text, name, Path::new(".")));
    r.map(|loaded| Fabric { loaded }).map_err(|d| fabric_error(py, &d))
}

/// The results digest (16 hex digits) of a run's JSON as `rocelab sim --format json` prints it
/// or `rocelab sim --out` writes it (`results.json`): equal digests, equal simulated results.
#[pyfunction]
fn digest(run_json: &str) -> PyResult<String> {
    let run: RunFile = serde_json::from_str(run_json)
        .map_err(|e| PyValueError::new_err(format!("not a run's JSON (`rocelab sim --format json`): {e}")))?;
    Ok(format!("{:016x}", rocelab_sim::bench::results_digest(&run.results)))
}

impl Fabric {
    fn select(&self, py: Python<'_>, variant: Option<&str>) -> PyResult<rocelab_model::ResolvedFabric> {
        self.loaded.select(variant).map_err(|d| fabric_error(py, &d))
    }

    /// The sweep's labels, `field=value`, as `sim --all` names its runs' folders.
    fn sweep_labels(&self) -> Vec<String> {
        match self.loaded.sweep_values() {
            Some((field, values)) => values.iter().map(|v| format!("{field}={v}")).collect(),
            None => Vec::new(),
        }
    }

    /// A sweep point given by index or by label, as an index.
    fn point_index(&self, point: &Bound<'_, PyAny>) -> PyResult<usize> {
        let labels = self.sweep_labels();
        let expected = || {
            if labels.is_empty() {
                "the fabric has no `sweep`".to_string()
            } else {
                format!("an index below {} or one of {}", labels.len(), labels.join(", "))
            }
        };
        if let Ok(i) = point.extract::<usize>() {
            return if i < labels.len() {
                Ok(i)
            } else {
                Err(PyValueError::new_err(format!("no sweep point {i} (expected {})", expected())))
            };
        }
        let label: String =
            point.extract().map_err(|_| PyValueError::new_err(format!("point: expected {}", expected())))?;
        labels.iter().position(|l| *l == label).ok_or_else(|| {
            let close = rocelab_model::diag::did_you_mean(&label, labels.iter().map(String::as_str));
            let hint = close.map(|c| format!("; {c}")).unwrap_or_default();
            PyValueError::new_err(format!("no sweep point `{label}` (expected {}){hint}", expected()))
        })
    }
}

#[pymethods]
impl Fabric {
    /// The fabric's name.
    #[getter]
    fn name(&self) -> String {
        self.loaded.fabric.name.clone()
    }

    /// The file it was read from (the `name` given to `loads`).
    #[getter]
    fn file(&self) -> String {
        self.loaded.file.clone()
    }

    /// The variants' names, in the file's order.
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.loaded.variant_names().into_iter().map(str::to_string).collect()
    }

    /// The seed of a run by default, `simulation.seed`.
    #[getter]
    fn seed(&self) -> u64 {
        self.loaded.scenario.simulation.seed
    }

    /// The seeds `sim --all` runs every point under, `simulation.seeds` (empty: `seed` alone).
    #[getter]
    fn seeds(&self) -> Vec<u64> {
        self.loaded.scenario.simulation.seeds.clone()
    }

    /// The file's `tune:` section as JSON (flow-size filters in bytes), for `rocelab.tune`;
    /// `None` without one.
    #[getter]
    fn tune_plan(&self) -> Option<String> {
        self.loaded.scenario.tune.as_ref().map(|t| t.plan().to_string())
    }

    /// The sweep points' labels, `field=value`, in the file's order.
    #[getter]
    fn sweep_points(&self) -> Vec<String> {
        self.sweep_labels()
    }

    /// What loading warned of (as dicts, the fields of `rocelab validate --format json`): the
    /// lines every command prints on stderr before its work.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        convert::diagnostics(py, &Diagnostics(self.loaded.warnings.clone()))
    }

    /// The loader's warnings and every variant's and sweep point's diagnostics, as dicts (the
    /// fields of `rocelab validate --format json`).
    fn validate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let d = py.detach(|| self.loaded.validate_all());
        convert::diagnostics(py, &d)
    }

    /// The findings of `rocelab check` on the fabric (or a variant), as the dicts of
    /// `rocelab check --format json`.
    #[pyo3(signature = (variant = None))]
    fn check<'py>(&self, py: Python<'py>, variant: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        // The findings the file (or the variant) declares with `expect:` are marked
        // `"expected": true`, as `rocelab check --format json` marks them.
        let (expect, fabric) = match variant {
            None => (self.loaded.scenario.expect.clone(), self.loaded.fabric.clone()),
            Some(v) => {
                let (scenario, fabric) = self.loaded.variant_scenario(v).map_err(|d| fabric_error(py, &d))?;
                (scenario.expect, fabric)
            }
        };
        let value = py.detach(|| {
            let findings = rocelab_verify::check(&rocelab_verify::from_intent(&fabric));
            rocelab_verify::render::json_expected(&findings, expect.as_deref().unwrap_or_default())
        });
        convert::to_py(py, &value)
    }

    /// Every device's configuration and the runbook, as `rocelab config` renders them:
    /// (`{file name: text}` in device order with `RUNBOOK.md` last, the findings as
    /// `(is_error, text)`). With `output_dir`, also written there under the CLI's rules.
    #[pyo3(signature = (output_dir = None, variant = None, templates = None))]
    fn render_config<'py>(
        &self,
        py: Python<'py>,
        output_dir: Option<PathBuf>,
        variant: Option<&str>,
        templates: Option<PathBuf>,
    ) -> PyResult<(Bound<'py, PyDict>, Findings)> {
        let fabric = self.select(py, variant)?;
        if let Some(dir) = &output_dir {
            outdir::prepare(dir).map_err(PyOSError::new_err)?;
        }
        let t = match &templates {
            Some(dir) => {
                rocelab_config::Templates::with_overrides(dir).map_err(|e| PyValueError::new_err(e.to_string()))?
            }
            None => rocelab_config::Templates::builtin(),
        };
        let files = Mutex::new(Vec::new());
        let put = |i: usize, f: rocelab_config::DeviceFile| -> Result<(), String> {
            if let Some(dir) = &output_dir {
                let path = outdir::file_in(dir, &f.file_name)?;
                std::fs::write(&path, &f.text).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            files.lock().map_err(|e| e.to_string())?.push((i, f.file_name, f.text));
            Ok(())
        };
        let r = py.detach(|| rocelab_config::render_into(&fabric, &t, &put));
        let r = r.map_err(|e| PyOSError::new_err(e.to_string()))?;
        if let Some(dir) = &output_dir {
            let path = dir.join("RUNBOOK.md");
            std::fs::write(&path, &r.runbook).map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        }
        let mut files = files.into_inner().map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        files.sort_by_key(|(i, _, _)| *i);
        let out = PyDict::new(py);
        for (_, name, text) in files {
            out.set_item(name, text)?;
        }
        out.set_item("RUNBOOK.md", r.runbook)?;
        let findings = r.findings.iter().map(|f| (f.is_error(), f.to_string())).collect();
        Ok((out, findings))
    }

    /// Simulates the base scenario or a variant, at a sweep point (index or `field=value`) or
    /// none, with a seed (the file's `simulation.seed` by default), as `rocelab sim` does.
    #[pyo3(signature = (variant = None, point = None, seed = None))]
    fn simulate(
        &self,
        py: Python<'_>,
        variant: Option<&str>,
        point: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<run::Run> {
        let index = point.map(|p| self.point_index(p)).transpose()?;
        let (scenario, fabric) = self.loaded.run_point(variant, index).map_err(|d| fabric_error(py, &d))?;
        let sweep = index.and_then(|i| {
            self.loaded.sweep_values().map(|(field, values)| SweepPoint { field, value: values[i].clone() })
        });
        if scenario.workloads.is_empty() {
            return Err(PyValueError::new_err(format!(
                "{}: no `workloads` to simulate in {}; add flows, incast, permutation, all_to_all, poisson or hpcc_flows",
                self.loaded.file,
                rocelab_report::run::run_label(variant, sweep.as_ref(), None)
            )));
        }
        let refused = |e: &dyn std::fmt::Display| PyRuntimeError::new_err(format!("the run was refused: {e}"));
        rocelab_sim::from_model::check_size(&fabric).map_err(|e| refused(&e))?;
        let built = py.detach(|| rocelab_sim::from_model::build(&scenario, &fabric, seed));
        let results =
            py.detach(|| rocelab_sim::run(&built.spec, &built.traffic, &built.config)).map_err(|e| refused(&e))?;
        let file = RunFile {
            scenario: fabric.name.clone(),
            variant: variant.map(str::to_string),
            sweep,
            seeded: false,
            names: (&built.names).into(),
            warnings: built.warnings.clone(),
            results,
        };
        Ok(py.detach(|| run::Run::new(file, &built)))
    }

    fn __repr__(&self) -> String {
        format!(
            "Fabric(name={:?}, file={:?}, devices={}, links={}, variants={}, sweep_points={})",
            self.loaded.fabric.name,
            self.loaded.file,
            self.loaded.fabric.devices.len(),
            self.loaded.fabric.links.len(),
            self.loaded.scenario.variants.len(),
            self.sweep_labels().len()
        )
    }
}

/// The extension module: [`Fabric`], [`run::Run`], `load`, `loads`, `digest`, and a run's folder
/// (`run_files`, `write_run_files`).
#[pymodule]
fn _rocelab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Fabric>()?;
    m.add_class::<run::Run>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(digest, m)?)?;
    m.add_function(wrap_pyfunction!(files::run_files, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_run_files, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
