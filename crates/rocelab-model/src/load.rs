//! Loading a scenario file: parse, decode, generate, import, resolve, check; and the same for
//! each variant and sweep point. Everything found is returned at once, located.

use crate::de::decode;
use crate::diag::Problem;
use crate::diag::{Diagnostic, Diagnostics, Mark};
use crate::fabric::{Platform, Scenario};
use crate::node::{parse, Node, NodeKind};
use crate::paths::{mark_of, set_path};
use crate::resolve::{resolve, Origin, ResolvedFabric};
use crate::validate::qos::{apply_port_settings, check_policy, check_pools};
use std::path::{Path, PathBuf};

/// A scenario file as loaded: its node tree (for variants), the decoded scenario, and the
/// resolved base fabric.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: String,
    pub base_dir: PathBuf,
    pub root: Node,
    pub scenario: Scenario,
    pub fabric: ResolvedFabric,
    /// Warnings of the base fabric (errors make the load fail).
    pub warnings: Vec<Diagnostic>,
}

/// Reads and loads a scenario file.
pub fn load_file(path: &Path) -> Result<Loaded, Diagnostics> {
    let file = path.display().to_string();
    let text = crate::input::read_text_limited(path, crate::input::MAX_FABRIC_BYTES, "a fabric file").map_err(|e| {
        let message = match e.io {
            Some(io) => format!("cannot read the file: {io}"),
            None => e.message,
        };
        let mut d = Diagnostic::error(Mark { line: 0, column: 0 }, "", message);
        d.file = file.clone();
        Diagnostics(vec![d])
    })?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_str(&text, &file, &base)
}

/// Loads scenario text; `file` names it in diagnostics and `base_dir` resolves relative paths
/// (imported topology files).
pub fn load_str(text: &str, file: &str, base_dir: &Path) -> Result<Loaded, Diagnostics> {
    let root = parse(text).map_err(|mut d| {
        d.file = file.to_string();
        Diagnostics(vec![d])
    })?;
    let sweep = check_sweep(&root, file);
    let (scenario, fabric, warnings) = match build(&root, file, base_dir) {
        Ok(built) if sweep.is_empty() => built,
        Ok(_) => return Err(Diagnostics(sweep)),
        Err(mut all) => {
            all.0.extend(sweep);
            all.sort();
            return Err(all);
        }
    };
    Ok(Loaded { file: file.to_string(), base_dir: base_dir.to_path_buf(), root, scenario, fabric, warnings })
}

/// When the first field of `path` missing from `root` is one the scenario does not have, the
/// decoder's "unknown field" diagnostic for it (with the fields it expected and a "did you
/// mean"): setting `workloads.nosuch[x].class` fails on `nosuch`, not on what follows it. The
/// field is added to a copy at a mark no file has, and the decoder's diagnostic at that mark is
/// the one about it.
fn unknown_field(root: &Node, path: &str) -> Option<Diagnostic> {
    use crate::paths::{parse_path, Segment};
    let segs = parse_path(path).ok()?;
    let mut node = root;
    let mut walked = String::new();
    for seg in &segs {
        let next = match (seg, &node.kind) {
            (Segment::Key(k), NodeKind::Map(entries)) => {
                match entries.iter().find(|(key, _)| key.scalar_text().as_deref() == Some(k.as_str())) {
                    Some((_, v)) => v,
                    None => {
                        let field = if walked.is_empty() { k.clone() } else { format!("{walked}.{k}") };
                        let probe_mark = Mark { line: usize::MAX, column: usize::MAX };
                        let mut probe = root.clone();
                        set_path(&mut probe, &field, Node::new(NodeKind::Null, probe_mark), probe_mark, "").ok()?;
                        // The added key takes the mark of the override; find the diagnostic there.
                        let (_, diags) = decode::<Scenario>(&probe, "");
                        return diags
                            .into_iter()
                            .find(|d| d.line == usize::MAX && d.message.starts_with("unknown field"));
                    }
                }
            }
            (Segment::Index(i), NodeKind::Seq(items)) => items.get(*i)?,
            (Segment::Named(n), NodeKind::Seq(items)) => {
                items.iter().find(|it| it.get("name").and_then(Node::scalar_text).as_deref() == Some(n.as_str()))?
            }
            _ => return None,
        };
        walked = match seg {
            Segment::Key(k) if walked.is_empty() => k.clone(),
            Segment::Key(k) => format!("{walked}.{k}"),
            Segment::Index(i) => format!("{walked}[{i}]"),
            Segment::Named(n) => format!("{walked}[{n}]"),
            Segment::All => format!("{walked}[*]"),
        };
        node = next;
    }
    None
}

/// Most devices of one fabric, generated, imported and listed together: a million, the most
/// nodes the HPCC topology reader accepts; a generator builds at most
/// [`crate::generators::MAX_GENERATED_DEVICES`].
pub const MAX_DEVICES: usize = 1_000_000;

/// A sweep without values would run nothing, not even the base, and leave `report` nothing to
/// read: an error at `sweep.values`. Checked once for the file, not again for each variant.
fn check_sweep(root: &Node, file: &str) -> Vec<Diagnostic> {
    let Some(values) = root.get("sweep").and_then(|s| s.get("values")) else { return Vec::new() };
    match &values.kind {
        NodeKind::Seq(items) if items.is_empty() => {
            let mut d = Diagnostic::error(values.mark, "sweep.values", "the sweep has no values, so it runs nothing")
                .expected("a list of at least one value, e.g. `values: [1ms, 2ms]`")
                .suggest(Some("give the values, or remove `sweep`".into()));
            d.file = file.to_string();
            vec![d]
        }
        _ => Vec::new(),
    }
}

/// Decodes and resolves one node tree.
pub fn build(
    root: &Node,
    file: &str,
    base_dir: &Path,
) -> Result<(Scenario, ResolvedFabric, Vec<Diagnostic>), Diagnostics> {
    let (scenario, diags) = decode::<Scenario>(root, "");
    let mut all = Diagnostics(diags);
    let Some(mut scenario) = scenario.filter(|_| !all.has_errors()) else {
        all.set_file(file);
        all.sort();
        return Err(all);
    };
    let mut problems: Vec<Problem> = Vec::new();
    let fabric = &scenario.fabric;
    let topo = &fabric.topology;
    let mut devices = Vec::new();
    let mut links = Vec::new();
    let mut source_failed = false;
    if let Some(g) = &topo.generator {
        match g
            .check_size()
            .map_err(|(field, e)| (format!("fabric.topology.generator.{field}"), e))
            .and_then(|()| g.generate().map_err(|e| ("fabric.topology.generator".to_string(), e)))
        {
            Ok((d, l)) => {
                devices.extend(d.into_iter().map(|d| (d, Origin::Generated)));
                links.extend(l.into_iter().map(|l| (l, Origin::Generated)));
            }
            Err((path, e)) => {
                source_failed = true;
                problems.push(crate::diag::problem(path, e))
            }
        }
    }
    if let Some(imp) = &topo.import {
        let path = base_dir.join(&imp.hpcc);
        match crate::input::read_text_limited(&path, crate::input::MAX_TRACE_BYTES, "an HPCC topology file") {
            Err(e) => {
                source_failed = true;
                problems.push(crate::diag::problem(
                    "fabric.topology.import.hpcc".into(),
                    format!("cannot read the HPCC topology: {e}"),
                ))
            }
            Ok(text) => match crate::hpcc::parse_topology(
                &text,
                imp.switch_platform.unwrap_or(Platform::Generic),
                imp.switch_buffer,
            ) {
                Ok((d, l, warnings)) => {
                    devices.extend(d.into_iter().map(|d| (d, Origin::Imported)));
                    links.extend(l.into_iter().map(|l| (l, Origin::Imported)));
                    for mut w in warnings {
                        w.file = path.display().to_string();
                        all.push(w);
                    }
                }
                Err(ds) => {
                    source_failed = true;
                    for mut d in ds {
                        d.file = path.display().to_string();
                        all.push(d);
                    }
                }
            },
        }
    }
    devices.extend(topo.devices.iter().cloned().enumerate().map(|(i, d)| (d, Origin::Listed(i))));
    links.extend(topo.links.iter().cloned().enumerate().map(|(i, l)| (l, Origin::Listed(i))));
    if devices.len() > MAX_DEVICES {
        problems.push(crate::diag::problem(
            "fabric.topology".into(),
            format!(
                "the topology has {} devices (generated, imported and listed); rocelab models at most {MAX_DEVICES}",
                devices.len()
            ),
        ));
        devices.clear();
        links.clear();
        source_failed = true;
    }
    if devices.is_empty() && !source_failed && topo.generator.is_none() && topo.import.is_none() {
        problems.push(crate::diag::problem(
            "fabric.topology".into(),
            "the topology has no devices: list `devices` and `links`, or use a `generator` or an `import`".into(),
        ));
    }
    check_policy(&fabric.qos, &mut problems);
    crate::names::check_variants(&scenario.variants, &mut problems);
    if let Some(expect) = &scenario.expect {
        crate::rules::check_expect(expect, &mut problems);
    }
    if let Some(t) = &scenario.tune {
        crate::validate::tune::check(t, &scenario.variants, &mut problems);
    }
    let classes = &fabric.qos.classes;
    if let Some(t) = &fabric.rdma {
        crate::validate::transport::check(t, "fabric.rdma", classes, &mut problems);
    }
    for (di, d) in topo.devices.iter().enumerate() {
        for (ni, t) in d.nics.iter().enumerate().filter_map(|(ni, n)| Some((ni, n.transport.as_ref()?))) {
            let path = format!("fabric.topology.devices[{di}].nics[{ni}].transport");
            crate::validate::transport::check(t, &path, classes, &mut problems);
        }
    }
    if let Some(m) = &scenario.simulation.model {
        crate::validate::simmodel::check(m, &mut problems);
    }
    let (mut resolved, ports_cut) = resolve(fabric, devices, links, &mut problems);
    resolved.sim_model = scenario.simulation.resolved_model();
    apply_port_settings(&mut resolved, &mut problems);
    check_pools(&resolved, &mut problems);
    // Workloads name hosts of the topology: when a generator or an import failed, those hosts
    // are missing and every workload would say so, a cascade that hides the one real error.
    if !source_failed {
        let mut file_diags = Vec::new();
        crate::validate::workload::check(
            &mut scenario.workloads,
            &scenario.simulation,
            &resolved,
            base_dir,
            &mut problems,
            &mut file_diags,
        );
        for d in file_diags {
            all.push(d);
        }
        crate::validate::storage::check(&scenario, &resolved, &mut problems);
        // Links to the ports a bad range left out are not made: their hosts are not reported
        // again as uncabled.
        if !ports_cut {
            crate::validate::cabling::check(&scenario, &resolved, &mut problems);
        }
    }
    for p in problems {
        let mark = mark_of(root, &p.path);
        let mut d = p.diag;
        d.line = mark.line;
        d.column = mark.column;
        all.push(d);
    }
    all.set_file(file);
    all.sort();
    if all.has_errors() {
        return Err(all);
    }
    Ok((scenario, resolved, all.0))
}

/// A variant or sweep point's name and the overrides that make it.
struct Overrides<'a> {
    entries: Vec<(String, &'a Node, Mark)>,
}

impl Loaded {
    pub fn variant_names(&self) -> Vec<&str> {
        self.scenario.variants.iter().map(|v| v.name.as_str()).collect()
    }

    fn variant_overrides(&self, name: &str) -> Option<Overrides<'_>> {
        let NodeKind::Seq(items) = &self.root.get("variants")?.kind else { return None };
        let v = items.iter().find(|v| v.get("name").and_then(Node::scalar_text).as_deref() == Some(name))?;
        let NodeKind::Map(entries) = &v.get("set")?.kind else { return None };
        Some(Overrides {
            entries: entries.iter().map(|(k, val)| (k.scalar_text().unwrap_or_default(), val, k.mark)).collect(),
        })
    }

    fn apply(&self, o: &Overrides<'_>, what: &str) -> Result<Node, Diagnostics> {
        let mut root = self.root.clone();
        let mut diags = Diagnostics::default();
        for (path, value, mark) in &o.entries {
            if let Err(mut d) = set_path(&mut root, path, (*value).clone(), *mark, what) {
                if let Some(u) = unknown_field(&self.root, path) {
                    d.message = format!("cannot set `{path}`: {}", u.message);
                    d.expected = u.expected;
                    d.suggestion = u.suggestion;
                }
                d.file = self.file.clone();
                diags.push(d);
            }
        }
        if diags.has_errors() {
            return Err(diags);
        }
        Ok(root)
    }

    /// The base fabric, or the one with `variant` applied.
    pub fn select(&self, variant: Option<&str>) -> Result<ResolvedFabric, Diagnostics> {
        match variant {
            None => Ok(self.fabric.clone()),
            Some(v) => self.variant(v),
        }
    }

    /// The fabric with the named variant applied.
    pub fn variant(&self, name: &str) -> Result<ResolvedFabric, Diagnostics> {
        self.variant_scenario(name).map(|(_, f)| f)
    }

    /// The scenario and fabric with the named variant applied.
    pub fn variant_scenario(&self, name: &str) -> Result<(Scenario, ResolvedFabric), Diagnostics> {
        let Some(o) = self.variant_overrides(name) else {
            let names = self.variant_names();
            let mut d = Diagnostic::error(Mark::default(), "variants", format!("no variant `{name}`"));
            d.file = self.file.clone();
            d.expected = Some(if names.is_empty() {
                "no variants are declared".into()
            } else {
                format!("one of {}", names.join(", "))
            });
            d.suggestion = crate::diag::did_you_mean(name, names.iter().copied());
            return Err(Diagnostics(vec![d]));
        };
        let root = self.apply(&o, &format!("variants[{name}]"))?;
        build(&root, &self.file, &self.base_dir).map(|(s, f, _)| (s, f))
    }

    /// Every sweep point as (`field=value`, node tree with it applied).
    pub fn sweep_points(&self) -> Vec<(String, Result<Node, Diagnostics>)> {
        let Some(sweep) = self.root.get("sweep") else { return Vec::new() };
        let Some(field) = sweep.get("field").and_then(Node::scalar_text) else { return Vec::new() };
        let field_mark = sweep.get("field").map(|n| n.mark).unwrap_or_default();
        let Some(NodeKind::Seq(values)) = sweep.get("values").map(|n| &n.kind) else { return Vec::new() };
        values
            .iter()
            .map(|v| {
                let label = format!("{field}={}", v.scalar_text().unwrap_or_else(|| "…".into()));
                let o = Overrides { entries: vec![(field.clone(), v, field_mark)] };
                (label.clone(), self.apply(&o, &format!("sweep[{label}]")))
            })
            .collect()
    }

    /// The sweep as (field, values as written), if the file has one.
    pub fn sweep_values(&self) -> Option<(String, Vec<String>)> {
        let sweep = self.root.get("sweep")?;
        let field = sweep.get("field").and_then(Node::scalar_text)?;
        let NodeKind::Seq(values) = &sweep.get("values")?.kind else { return None };
        Some((field, values.iter().map(|v| v.scalar_text().unwrap_or_else(|| "…".into())).collect()))
    }

    /// The scenario and fabric of one run of a variant × sweep grid: the named variant (or the
    /// base) with sweep point `point` (an index into the sweep's values, or none) applied on
    /// top, so that `rocelab sim --all` can run every combination.
    pub fn run_point(
        &self,
        variant: Option<&str>,
        point: Option<usize>,
    ) -> Result<(Scenario, ResolvedFabric), Diagnostics> {
        let mut entries = Vec::new();
        let mut what = String::new();
        if let Some(name) = variant {
            let Some(o) = self.variant_overrides(name) else {
                return self.variant_scenario(name);
            };
            entries.extend(o.entries);
            what = format!("variants[{name}]");
        }
        if let Some(i) = point {
            let sweep = self.root.get("sweep");
            let field = sweep.and_then(|s| s.get("field"));
            let value = match sweep.and_then(|s| s.get("values")).map(|n| &n.kind) {
                Some(NodeKind::Seq(values)) => values.get(i),
                _ => None,
            };
            let (Some(field), Some(value)) = (field, value) else {
                let mut d = Diagnostic::error(Mark::default(), "sweep", format!("no sweep point {i}"));
                d.file = self.file.clone();
                return Err(Diagnostics(vec![d]));
            };
            let name = field.scalar_text().unwrap_or_default();
            let label = format!("{name}={}", value.scalar_text().unwrap_or_else(|| "…".into()));
            entries.push((name, value, field.mark));
            what = if what.is_empty() { format!("sweep[{label}]") } else { format!("{what} at sweep[{label}]") };
        }
        if entries.is_empty() && variant.is_none() {
            return Ok((self.scenario.clone(), self.fabric.clone()));
        }
        let root = self.apply(&Overrides { entries }, &what)?;
        build(&root, &self.file, &self.base_dir).map(|(s, f, _)| (s, f))
    }

    /// The `tune:` section tried on the fabric: each parameter's two ends (or each of its
    /// choices) set at its path, as a variant sets a field, and the fabric built with it. What
    /// fails is an error at the value in `tune:` (an unknown path at the parameter's `path`, with
    /// the fields the file has and a "did you mean"), so that a search never starts on a
    /// parameter it cannot apply. `validate_all` runs it; a load does not, since it builds the
    /// fabric twice per parameter.
    pub fn tune_problems(&self) -> Diagnostics {
        use crate::tune::ParameterKind;
        let mut all = Diagnostics::default();
        let Some(t) = &self.scenario.tune else { return all };
        let Some(NodeKind::Seq(items)) = self.root.get("tune").and_then(|n| n.get("parameters")).map(|n| &n.kind)
        else {
            return all;
        };
        for (i, (p, node)) in t.parameters.iter().zip(items).enumerate() {
            let path_mark = node.get("path").map(|n| n.mark).unwrap_or(node.mark);
            let probes: Vec<Node> = match p.kind {
                ParameterKind::Choice => match node.get("values").map(|n| &n.kind) {
                    Some(NodeKind::Seq(values)) => values.clone(),
                    _ => Vec::new(),
                },
                ParameterKind::Int | ParameterKind::Float => [("low", p.low), ("high", p.high)]
                    .into_iter()
                    .filter_map(|(f, v)| {
                        let mark = node.get(f)?.mark;
                        let kind = match (p.kind, crate::tune::int_value(v? as i64, p.unit.as_deref())) {
                            (ParameterKind::Float, _) => NodeKind::Float(v?),
                            (_, serde_json::Value::String(s)) => NodeKind::Str(s),
                            _ => NodeKind::Int(v? as i64),
                        };
                        Some(Node::new(kind, mark))
                    })
                    .collect(),
            };
            // The starting variant's overrides first, as every trial applies them.
            let start =
                t.variant.as_deref().and_then(|v| self.variant_overrides(v)).map(|o| o.entries).unwrap_or_default();
            for value in &probes {
                let shown = value.scalar_text().unwrap_or_else(|| "…".into());
                let what = format!("tune.parameters[{i}]");
                let mut entries = start.clone();
                entries.push((p.path.clone(), value, path_mark));
                let o = Overrides { entries };
                let r = self.apply(&o, &what).and_then(|root| build(&root, &self.file, &self.base_dir).map(|_| ()));
                if let Err(ds) = r {
                    for mut d in ds.0.into_iter().filter(Diagnostic::is_error) {
                        d.message = format!("in tune.parameters[{i}] with `{}: {shown}`: {}", p.path, d.message);
                        all.push(d);
                    }
                    // One failing value is enough: the other end fails the same way or is moot.
                    break;
                }
            }
        }
        all
    }

    /// Checks the base fabric, every variant and every sweep point; all diagnostics at once,
    /// each variant's and point's tagged with its name.
    pub fn validate_all(&self) -> Diagnostics {
        let mut all = Diagnostics(self.warnings.clone());
        all.0.extend(self.tune_problems().0);
        for name in self.variant_names() {
            if let Err(ds) = self.variant(name) {
                for mut d in ds.0 {
                    d.message = format!("in variant `{name}`: {}", d.message);
                    all.push(d);
                }
            }
        }
        for (label, point) in self.sweep_points() {
            let r = point.and_then(|root| build(&root, &self.file, &self.base_dir).map(|_| ()));
            if let Err(ds) = r {
                for mut d in ds.0 {
                    d.message = format!("at sweep point `{label}`: {}", d.message);
                    all.push(d);
                }
            }
        }
        all.sort();
        all
    }
}

impl Loaded {
    /// Where `device` (and `port`, when given) is written in the fabric file: for a port, the
    /// listed link that names it (`a: sw1:eth1/1`); else the device's entry in
    /// `fabric.topology.devices`; else the generator or the import that made it. `None` for a
    /// device the file does not have.
    pub fn mark_of_device(&self, device: &str, port: Option<&str>) -> Option<Mark> {
        let topo = &self.scenario.fabric.topology;
        if let Some(port) = port {
            let end = format!("{device}:{port}");
            if let Some(i) = topo.links.iter().position(|l| l.a.trim() == end || l.b.trim() == end) {
                return Some(mark_of(&self.root, &format!("fabric.topology.links[{i}]")));
            }
        }
        if let Some(i) = topo.devices.iter().position(|d| d.name == device) {
            return Some(mark_of(&self.root, &format!("fabric.topology.devices[{i}]")));
        }
        if !self.fabric.devices.iter().any(|d| d.name == device) {
            return None;
        }
        let from = if topo.generator.is_some() { "fabric.topology.generator" } else { "fabric.topology.import" };
        Some(mark_of(&self.root, from))
    }
}
