//! The files a simulation writes and the report reads back: `results.json` (one run: the
//! scenario, variant and sweep point, the model's names, warnings and the simulator's
//! [`Results`]) and `index.json` (the runs of `rocelab sim --all`). Reading them reports any
//! problem with the file, line, column and field path.

use rocelab_sim::from_model::Names;
use rocelab_sim::{Results, SCHEMA_VERSION};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Version of the [`Index`] layout; bump on incompatible change.
pub const INDEX_SCHEMA_VERSION: u32 = 1;

/// A point of a sweep: the swept field and its value as written in the scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub field: String,
    pub value: String,
}

impl SweepPoint {
    /// `field=value`.
    pub fn label(&self) -> String {
        format!("{}={}", self.field, self.value)
    }
}

/// Node, port and flow names of a run, indexed like the simulator's (see
/// [`rocelab_sim::from_model::Names`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunNames {
    pub nodes: Vec<String>,
    /// `ports[node][port]`.
    pub ports: Vec<Vec<String>>,
    pub flows: Vec<String>,
    /// Name of each perftest test, in results order.
    #[serde(default)]
    pub perftest: Vec<String>,
    /// Storage jobs, in `results.jobs` order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<String>,
}

impl From<&Names> for RunNames {
    fn from(n: &Names) -> Self {
        RunNames {
            nodes: n.nodes.clone(),
            ports: n.ports.clone(),
            flows: n.flows.clone(),
            perftest: n.perftest.clone(),
            jobs: n.jobs.clone(),
        }
    }
}

impl RunNames {
    /// `device:port` of a node's port.
    pub fn port(&self, node: usize, port: usize) -> String {
        let d = self.nodes.get(node).map(String::as_str).unwrap_or("?");
        let p = self.ports.get(node).and_then(|v| v.get(port)).map(String::as_str).unwrap_or("?");
        format!("{d}:{p}")
    }

    /// A perftest test's name (`#k` when unnamed).
    pub fn perftest(&self, test: usize) -> String {
        self.perftest.get(test).cloned().unwrap_or_else(|| format!("#{test}"))
    }

    /// A flow's name (`#k` when unnamed).
    pub fn flow(&self, flow: usize) -> String {
        self.flows.get(flow).cloned().unwrap_or_else(|| format!("#{flow}"))
    }

    /// A storage job's name (`job#k` when unnamed).
    pub fn job(&self, job: usize) -> String {
        self.jobs.get(job).cloned().unwrap_or_else(|| format!("job#{job}"))
    }

    /// A node's name.
    pub fn node(&self, node: usize) -> &str {
        self.nodes.get(node).map(String::as_str).unwrap_or("?")
    }
}

/// One run's `results.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    /// The fabric's name.
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepPoint>,
    /// One of several seeds of its point (`simulation.seeds`, `sim --all --seeds N`): its label
    /// and folder name its seed, `results.seed`. Absent from a point's only run, whose files
    /// stay as they were before seeds existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seeded: bool,
    pub names: RunNames,
    /// What the run did that the user may not expect, as findings (`PFC-MISSING`, ...).
    #[serde(default)]
    pub warnings: Vec<rocelab_sim::from_model::BuildFinding>,
    pub results: Results,
}

impl RunFile {
    /// How the run is named in tables and legends: the variant (or "base"), with the sweep
    /// value when there is one and the seed when it is one of several.
    pub fn label(&self) -> String {
        run_label(self.variant.as_deref(), self.sweep.as_ref(), self.seed())
    }

    /// The label of the run's point, without its seed: the runs of one point under several
    /// seeds share it (see [`crate::spread`]).
    pub fn point_label(&self) -> String {
        run_label(self.variant.as_deref(), self.sweep.as_ref(), None)
    }

    /// The seed, when the run is one of several of its point.
    pub fn seed(&self) -> Option<u64> {
        self.seeded.then_some(self.results.seed)
    }
}

/// The label of a run of `variant` at `sweep` under `seed` (given when the point runs under
/// several): `base`, `ecn @ 64KiB`, `ecn @ 64KiB seed 2` (the swept field is named once, in the
/// report's header and the axis of its charts).
pub fn run_label(variant: Option<&str>, sweep: Option<&SweepPoint>, seed: Option<u64>) -> String {
    let mut l = variant.unwrap_or("base").to_string();
    if let Some(s) = sweep {
        l = format!("{l} @ {}", s.value);
    }
    if let Some(s) = seed {
        l = format!("{l} seed {s}");
    }
    l
}

/// The directory of a run under `runs/`: `<variant>[/<field=value>][/seed=<seed>]`, with
/// characters that do not belong in a file name replaced by `_`.
pub fn run_dir(variant: Option<&str>, sweep: Option<&SweepPoint>, seed: Option<u64>) -> PathBuf {
    let clean = rocelab_model::names::run_folder;
    let mut p = PathBuf::from(clean(variant.unwrap_or("base")));
    if let Some(s) = sweep {
        p.push(clean(&s.label()));
    }
    if let Some(s) = seed {
        p.push(format!("seed={s}"));
    }
    p
}

/// The runs of one `rocelab sim --all`, in the order they ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    /// [`INDEX_SCHEMA_VERSION`].
    pub schema_version: u32,
    pub scenario: String,
    /// The scenario file.
    pub source: String,
    pub runs: Vec<IndexEntry>,
}

/// One run of an [`Index`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepPoint>,
    /// Its seed, when its point runs under several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Its `results.json`, relative to the index's directory.
    pub results: String,
    /// Why the run has no results, when it failed (a run of `sim --all --ray` that failed while
    /// the others went on); its `results.json` was not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A run that failed while the others of its batch went on: its label and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedRun {
    pub label: String,
    pub error: String,
}

/// A results or index file that cannot be used, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    /// 1-based; 0 when not known.
    pub line: usize,
    pub column: usize,
    /// Path of the field in the JSON document (`results.flows[3].sent_bytes`), if any.
    pub path: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        write!(f, ": ")?;
        if !self.path.is_empty() && self.path != "." {
            write!(f, "{}: ", self.path)?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for LoadError {}

fn error(file: &Path, line: usize, column: usize, path: &str, message: String) -> LoadError {
    LoadError { file: file.to_path_buf(), line, column, path: path.to_string(), message }
}

/// Line and column (1-based) of byte `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// Decodes `text` as a `T`, naming the field of any mismatch.
fn decode<T: for<'de> Deserialize<'de>>(file: &Path, text: &str) -> Result<T, LoadError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.to_string();
        // serde_json appends " at line L column C"; the location is given separately.
        let msg = match msg.rfind(" at line ") {
            Some(i) => msg[..i].to_string(),
            None => msg,
        };
        error(file, inner.line(), inner.column(), &path, msg)
    })
}

fn read(file: &Path) -> Result<String, LoadError> {
    rocelab_model::input::read_text_limited(file, rocelab_model::input::MAX_RESULTS_BYTES, "a results file").map_err(
        |e| {
            let message = match e.io {
                Some(io) => format!("cannot read: {io}"),
                None => e.message,
            };
            error(file, 0, 0, "", message)
        },
    )
}

/// Checks a schema version field (`versions` is the JSON pointer to it), locating it in `text`.
fn check_version(file: &Path, text: &str, pointer: &str, field: &str, want: u32, what: &str) -> Result<(), LoadError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.rfind(" at line ").map_or(msg.clone(), |i| msg[..i].to_string());
        error(file, e.line(), e.column(), "", format!("not valid JSON: {msg}"))
    })?;
    let at = text.find(&format!("\"{}\"", field.rsplit('.').next().unwrap_or(field))).unwrap_or(0);
    let (line, column) = if at > 0 { line_col(text, at) } else { (0, 0) };
    match value.pointer(pointer) {
        None => Err(error(file, 0, 0, field, format!("missing: this is not {what}"))),
        Some(v) => match v.as_u64() {
            Some(n) if n == want as u64 => Ok(()),
            Some(n) => Err(error(
                file,
                line,
                column,
                field,
                format!("schema version {n}, but this rocelab reads version {want}; run the simulation again with this rocelab"),
            )),
            None => Err(error(file, line, column, field, format!("expected a schema version number, found {v}"))),
        },
    }
}

/// Reads one run's `results.json`.
pub fn read_run(file: &Path) -> Result<RunFile, LoadError> {
    let text = read(file)?;
    check_version(
        file,
        &text,
        "/results/schema_version",
        "results.schema_version",
        SCHEMA_VERSION,
        "a results.json written by `rocelab sim --out`",
    )?;
    decode(file, &text)
}

/// Reads an `index.json`.
pub fn read_index(file: &Path) -> Result<Index, LoadError> {
    let text = read(file)?;
    check_version(
        file,
        &text,
        "/schema_version",
        "schema_version",
        INDEX_SCHEMA_VERSION,
        "an index.json written by `rocelab sim --all`",
    )?;
    decode(file, &text)
}

/// Every run a report directory holds: those its `index.json` lists, else its one
/// `results.json`.
pub fn load_dir(dir: &Path) -> Result<Vec<RunFile>, LoadError> {
    let index = dir.join("index.json");
    if index.is_file() {
        let ix = read_index(&index)?;
        if ix.runs.is_empty() {
            return Err(error(&index, 0, 0, "runs", "lists no runs".into()));
        }
        // A run that failed has no results to read; the index says why.
        return ix.runs.iter().filter(|r| r.error.is_none()).map(|r| read_run(&dir.join(&r.results))).collect();
    }
    let results = dir.join("results.json");
    if results.is_file() {
        return Ok(vec![read_run(&results)?]);
    }
    let why = if dir.is_dir() { "has no results.json or index.json" } else { "is not a directory" };
    Err(error(dir, 0, 0, "", format!("{why}; write one with `rocelab sim FILE --out DIR` (or `--all`)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rocelab-report-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn run() -> RunFile {
        crate::testdata::run_file(Some("ecn"), None)
    }

    #[test]
    fn a_results_file_over_the_size_limit_is_refused_unread() {
        // A sparse file: its length is past the limit, its blocks are never written or read.
        let d = dir("big");
        let file = d.join("results.json");
        std::fs::File::create(&file).unwrap().set_len(rocelab_model::input::MAX_RESULTS_BYTES + 1).unwrap();
        let e = read_run(&file).unwrap_err();
        assert_eq!((e.line, e.column), (0, 0));
        assert!(
            e.message.ends_with(
                "is 1073741825 bytes, more than the 1073741824 bytes rocelab reads for a results file; give the \
                 path of the right file"
            ),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_results_file_round_trips() {
        let d = dir("roundtrip");
        let r = run();
        std::fs::write(d.join("results.json"), serde_json::to_string_pretty(&r).unwrap()).unwrap();
        assert_eq!(load_dir(&d).unwrap(), vec![r]);
    }

    #[test]
    fn labels_and_directories_of_runs() {
        let s = SweepPoint { field: "fabric.qos.mtu".into(), value: "9000".into() };
        assert_eq!(run_label(None, Some(&s), None), "base @ 9000");
        assert_eq!(run_label(None, Some(&s), Some(7)), "base @ 9000 seed 7");
        assert_eq!(run_dir(Some("a b/c"), Some(&s), None), Path::new("a_b_c").join("fabric.qos.mtu=9000"));
        assert_eq!(run_dir(None, None, None), Path::new("base"));
        assert_eq!(run_dir(None, Some(&s), Some(7)), Path::new("base").join("fabric.qos.mtu=9000").join("seed=7"));
    }

    #[test]
    fn bad_files_are_located_and_explained() {
        let d = dir("bad");
        let good = serde_json::to_string_pretty(&run()).unwrap();
        let file = d.join("results.json");
        // Truncated JSON: the line and column where it ends.
        std::fs::write(&file, &good[..good.len() / 2]).unwrap();
        let e = load_dir(&d).unwrap_err();
        assert!(e.message.starts_with("not valid JSON") && e.line > 1, "{e}");
        // A wrong type deep inside: the field's path.
        let bad = good.replacen("\"sent_bytes\": ", "\"sent_bytes\": \"many\", \"x\": ", 1);
        std::fs::write(&file, bad).unwrap();
        let e = load_dir(&d).unwrap_err();
        assert_eq!(e.path, "results.flows[0].sent_bytes", "{e}");
        assert!(e.message.contains("invalid type") && e.line > 1, "{e}");
        assert!(e.to_string().starts_with(&format!("{}:{}:", file.display(), e.line)));
        // Another schema version.
        let v = good.replacen(&format!("\"schema_version\": {SCHEMA_VERSION}"), "\"schema_version\": 99", 1);
        std::fs::write(&file, v).unwrap();
        let e = load_dir(&d).unwrap_err();
        assert_eq!(e.path, "results.schema_version");
        assert!(e.message.contains("schema version 99") && e.line > 0, "{e}");
        // Not a results file at all.
        std::fs::write(&file, "{\"hello\": 1}").unwrap();
        let e = load_dir(&d).unwrap_err();
        assert!(e.message.contains("not a results.json"), "{e}");
        // Nothing there.
        std::fs::remove_file(&file).unwrap();
        let e = load_dir(&d).unwrap_err();
        assert!(e.message.contains("has no results.json or index.json"), "{e}");
        assert!(load_dir(&d.join("nope")).unwrap_err().message.contains("is not a directory"));
    }

    #[test]
    fn an_index_lists_runs_and_its_errors_name_the_run() {
        let d = dir("index");
        let a = crate::testdata::run_file(None, None);
        std::fs::create_dir_all(d.join("runs/base")).unwrap();
        std::fs::write(d.join("runs/base/results.json"), serde_json::to_string(&a).unwrap()).unwrap();
        let mut ix = Index {
            schema_version: INDEX_SCHEMA_VERSION,
            scenario: "t".into(),
            source: "t.yaml".into(),
            runs: vec![IndexEntry {
                label: "base".into(),
                variant: None,
                sweep: None,
                seed: None,
                results: "runs/base/results.json".into(),
                error: None,
            }],
        };
        std::fs::write(d.join("index.json"), serde_json::to_string(&ix).unwrap()).unwrap();
        assert_eq!(load_dir(&d).unwrap().len(), 1);
        ix.runs.push(IndexEntry {
            label: "x".into(),
            variant: Some("x".into()),
            sweep: None,
            seed: None,
            results: "runs/x/results.json".into(),
            error: None,
        });
        std::fs::write(d.join("index.json"), serde_json::to_string(&ix).unwrap()).unwrap();
        let e = load_dir(&d).unwrap_err();
        assert!(e.file.ends_with("runs/x/results.json") && e.message.starts_with("cannot read"), "{e}");
        // A run recorded as failed has no results.json, and is not read.
        ix.runs[1].error = Some("the run was refused".into());
        std::fs::write(d.join("index.json"), serde_json::to_string(&ix).unwrap()).unwrap();
        assert_eq!(load_dir(&d).unwrap().len(), 1);
        assert!(serde_json::to_string(&ix).unwrap().contains(r#""error":"the run was refused""#));
        ix.schema_version = 7;
        std::fs::write(d.join("index.json"), serde_json::to_string(&ix).unwrap()).unwrap();
        assert!(load_dir(&d).unwrap_err().message.contains("schema version 7"));
    }
}
