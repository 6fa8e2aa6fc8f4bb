//! One simulation's results as Python sees them: the report's tables (the CSV files of
//! `rocelab sim --out`, one row per run, flow, port and priority, storage job and direction,
//! perftest test), a table of sized flows' completion times, the CLI's summary text and JSON,
//! and the results digest.

use crate::convert;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rocelab_report::{tables, Cell, RunFile, Table};
use rocelab_sim::from_model::Built;

/// The tables a run has, by the name Python asks for them.
pub const TABLES: [&str; 7] = ["summary", "flows", "ports", "switches", "storage_jobs", "perftest", "fct"];

/// A finished simulation.
#[pyclass(module = "rocelab._rocelab", frozen)]
pub struct Run {
    file: RunFile,
    /// What `rocelab sim` prints.
    text: String,
    digest: u64,
}

impl Run {
    pub fn new(file: RunFile, built: &Built) -> Run {
        let text = rocelab_sim::summary::summary(&file.results, &built.names, &built.warnings);
        let digest = rocelab_sim::bench::results_digest(&file.results);
        Run { file, text, digest }
    }

    fn table_of(&self, name: &str) -> Option<Table> {
        let runs = std::slice::from_ref(&self.file);
        Some(match name {
            "summary" => tables::runs(runs),
            "flows" => tables::flows(runs),
            "ports" => tables::ports(runs),
            "switches" => tables::switches(runs),
            "storage_jobs" => tables::jobs(runs),
            "perftest" => tables::perftest(runs),
            "fct" => fct(&self.file),
            _ => return None,
        })
    }
}

/// One row per sized flow with a path: its size, start, completion time, the same flow's
/// completion time alone on an empty network, and the slowdown (their ratio), as the run's FCT
/// report (`rocelab_sim::FctReport`, the figures behind `fct.txt`) has them.
fn fct(run: &RunFile) -> Table {
    let mut t = Table::new(
        "Flow completion",
        "fct.csv",
        &["run", "flow", "from", "to", "size (B)", "start (us)", "FCT (us)", "standalone FCT (us)", "slowdown"],
    );
    let r = &run.results;
    let Some(report) = &r.fct else { return t };
    let mut ends = vec![None; r.flows.iter().map(|f| f.flow + 1).max().unwrap_or(0)];
    for f in &r.flows {
        ends[f.flow] = Some((f.src, f.dst));
    }
    let us = |ps: u64| Cell::Num(ps as f64 / 1e6, 2);
    for f in &report.flows {
        let (from, to) = match ends.get(f.flow).copied().flatten() {
            Some((s, d)) => (run.names.node(s).into(), run.names.node(d).into()),
            None => (Cell::Empty, Cell::Empty),
        };
        t.push(vec![
            run.label().into(),
            run.names.flow(f.flow).into(),
            from,
            to,
            f.size_bytes.into(),
            us(f.start_ps),
            f.fct_ps.map_or(Cell::Empty, us),
            us(f.standalone_fct_ps),
            f.slowdown.map_or(Cell::Empty, |s| Cell::Num(s, 2)),
        ]);
    }
    t
}

#[pymethods]
impl Run {
    /// The results digest, 16 hex digits: equal digests, equal simulated results (the digest
    /// `rocelab bench` prints, and `rocelab.digest` gives for the CLI's JSON of a run).
    #[getter]
    fn digest(&self) -> String {
        format!("{:016x}", self.digest)
    }

    /// The run's label: the variant (or `base`), with the sweep value.
    #[getter]
    fn label(&self) -> String {
        self.file.label()
    }

    #[getter]
    fn variant(&self) -> Option<String> {
        self.file.variant.clone()
    }

    /// The sweep point, `field=value`.
    #[getter]
    fn point(&self) -> Option<String> {
        self.file.sweep.as_ref().map(|s| s.label())
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.file.results.seed
    }

    /// What the build of the run warned of, as findings (`rocelab check`'s fields: id,
    /// severity, device, port, class, what, why, fix, source).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(&self.file.warnings)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        convert::to_py(py, &v)
    }

    /// The summary `rocelab sim` prints.
    #[getter]
    fn text(&self) -> String {
        self.text.clone()
    }

    /// The run as `rocelab sim --format json` prints it (without the final line break).
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| serde_json::to_string_pretty(&self.file))
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
    }

    /// A table as `{column: [values]}`; `name` is one of `TABLES`.
    fn table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let t = py
            .detach(|| self.table_of(name))
            .ok_or_else(|| PyKeyError::new_err(format!("no table `{name}` (expected one of {})", TABLES.join(", "))))?;
        convert::columns(py, &t)
    }

    fn __repr__(&self) -> String {
        format!("Run(label={:?}, seed={}, digest={:?})", self.file.label(), self.file.results.seed, self.digest())
    }
}
