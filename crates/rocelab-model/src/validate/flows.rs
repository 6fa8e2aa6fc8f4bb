//! Checks of the flow workloads the way transport research runs them: flows whose sizes follow
//! an empirical CDF, arriving as a Poisson process at a given load (the HPCC simulator's traffic
//! generator, `traffic_gen/traffic_gen.py` of alibaba-edu/High-Precision-Congestion-Control),
//! and flow lists imported from that simulator's flow files. Both read files: a CDF file or a
//! flow file is resolved against the scenario file's directory when the scenario loads, and its
//! problems are reported with the file's own line and column.

use crate::cdf::{CdfField, CdfSource, FlowSizeCdf};
use crate::diag::{problem, Problem};
use crate::diag::{Diagnostic, Severity};
use crate::hpcc_flows::{parse_flows, DST, PRIORITY, SRC};
use crate::resolve::ResolvedFabric;
use crate::select::{expand_hosts, host_rate_bps};
use crate::units::Time;
use crate::workload::{HpccFlows, ImportedFlow, Poisson, Simulation, MAX_FLOWS};
use std::path::Path;

/// Checks the Poisson and HPCC-flow workloads and reads their files. Problems in the scenario
/// go to `problems` (located by path), problems in the files read go to `file_diags`.
/// Checks the Poisson and HPCC workloads; the flows each expands to (estimated for Poisson
/// arrivals), for the bound on all workloads together.
pub(crate) fn check(
    poisson: &mut [Poisson],
    hpcc: &mut [HpccFlows],
    sim: &Simulation,
    fabric: &ResolvedFabric,
    base_dir: &Path,
    problems: &mut Vec<Problem>,
    file_diags: &mut Vec<Diagnostic>,
) -> Vec<f64> {
    let mut flows = Vec::new();
    for (i, x) in poisson.iter_mut().enumerate() {
        flows.push(check_poisson(x, &format!("workloads.poisson[{i}]"), sim, fabric, base_dir, problems, file_diags));
    }
    for (i, x) in hpcc.iter_mut().enumerate() {
        check_hpcc(x, &format!("workloads.hpcc_flows[{i}]"), sim, fabric, base_dir, problems, file_diags);
        flows.push(x.flows.len() as f64);
    }
    flows
}

fn read_cdf(
    source: &CdfSource,
    path: &str,
    base_dir: &Path,
    problems: &mut Vec<Problem>,
    file_diags: &mut Vec<Diagnostic>,
) -> Option<FlowSizeCdf> {
    match source {
        CdfSource::File(f) => {
            let file = base_dir.join(f);
            let text = match crate::input::read_text_limited(&file, crate::input::MAX_CDF_BYTES, "a CDF file") {
                Ok(t) => t,
                Err(e) => {
                    problems.push(problem(path.into(), format!("cannot read the CDF file: {e}")));
                    return None;
                }
            };
            FlowSizeCdf::parse(&text)
                .map_err(|ds| {
                    for mut d in ds {
                        d.file = file.display().to_string();
                        d.path = path.to_string();
                        file_diags.push(d);
                    }
                })
                .ok()
        }
        CdfSource::Points(points) => FlowSizeCdf::new(points.iter().map(|(s, p)| (s.0, *p)).collect())
            .map_err(|ps| {
                for p in ps {
                    let at = match p.field {
                        CdfField::Size => format!("{path}[{}][0]", p.index),
                        CdfField::Percent => format!("{path}[{}][1]", p.index),
                        CdfField::Point if points.is_empty() => path.to_string(),
                        CdfField::Point => format!("{path}[{}]", p.index),
                    };
                    problems.push(problem(at, p.message));
                }
            })
            .ok(),
    }
}

fn check_poisson(
    x: &mut Poisson,
    p: &str,
    sim: &Simulation,
    fabric: &ResolvedFabric,
    base_dir: &Path,
    problems: &mut Vec<Problem>,
    file_diags: &mut Vec<Diagnostic>,
) -> f64 {
    let hosts = expand_hosts(&x.hosts, fabric, &format!("{p}.hosts"), problems);
    if hosts.len() < 2 {
        problems.push(problem(format!("{p}.hosts"), "Poisson arrivals need at least two hosts".into()));
    }
    crate::validate::workload::check_class(fabric, &x.class, format!("{p}.class"), problems);
    if !(x.load > 0.0 && x.load <= 1.0) {
        problems.push(problem(
            format!("{p}.load"),
            format!(
                "load {} is not above 0 and at most 1: it is the fraction of each host's link rate the flows offer",
                x.load
            ),
        ));
    }
    if x.start >= sim.duration {
        problems.push(problem(
            format!("{p}.start"),
            format!(
                "start {} is at or after the end of the run ({}); raise `simulation.duration`",
                x.start, sim.duration
            ),
        ));
    }
    if x.duration == Some(Time::ZERO) {
        problems.push(problem(format!("{p}.duration"), "the duration must be above 0".into()));
    }
    for &h in &hosts {
        if host_rate_bps(fabric, h) == 0 {
            problems.push(problem(format!("{p}.hosts"), format!("host `{}` has no link", fabric.devices[h].name)));
        }
    }
    x.distribution = read_cdf(&x.cdf, &format!("{p}.cdf"), base_dir, problems, file_diags);
    if let Some(cdf) = &x.distribution {
        if cdf.mean() < 1.0 {
            problems.push(problem(
                format!("{p}.cdf"),
                format!("the mean flow size is {:.3} bytes; flows are at least one byte", cdf.mean()),
            ));
        } else if x.load > 0.0 && x.load <= 1.0 {
            let window = x.end(sim).0.saturating_sub(x.start.0) as f64 / 1e12;
            let flows: f64 =
                hosts.iter().map(|&h| x.load * host_rate_bps(fabric, h) as f64 / 8.0 / cdf.mean() * window).sum();
            if flows > MAX_FLOWS {
                problems.push(problem(
                    p.to_string(),
                    format!(
                        "about {flows:.0} flows would arrive (mean size {:.0} B over {} s), more than {MAX_FLOWS:.0}; \
                         shorten `duration`, lower `load` or use fewer hosts",
                        cdf.mean(),
                        window
                    ),
                ));
            }
            return flows;
        }
    }
    0.0
}

fn check_hpcc(
    x: &mut HpccFlows,
    p: &str,
    sim: &Simulation,
    fabric: &ResolvedFabric,
    base_dir: &Path,
    problems: &mut Vec<Problem>,
    file_diags: &mut Vec<Diagnostic>,
) {
    let file = base_dir.join(&x.file);
    let shown = file.display().to_string();
    let text = match crate::input::read_text_limited(&file, crate::input::MAX_TRACE_BYTES, "an HPCC flow file") {
        Ok(t) => t,
        Err(e) => {
            problems.push(problem(format!("{p}.file"), format!("cannot read the HPCC flow file: {e}")));
            return;
        }
    };
    let mut in_file = |mut d: Diagnostic| {
        d.file = shown.clone();
        d.path = format!("{p}.file");
        file_diags.push(d);
    };
    let lines = match parse_flows(&text) {
        Ok((lines, warnings)) => {
            warnings.into_iter().for_each(&mut in_file);
            lines
        }
        Err(ds) => {
            ds.into_iter().for_each(&mut in_file);
            return;
        }
    };
    // `Some(None)`: a class is given and unknown (reported once, at the field).
    let fixed_class = x.class.as_ref().map(|c| {
        crate::validate::workload::check_class(fabric, c, format!("{p}.class"), problems);
        fabric.qos.classes.iter().position(|k| &k.name == c)
    });
    // HPCC node id → device, through the import's names (`h<id>` hosts, `s<id>` switches).
    let mut by_name = std::collections::HashMap::new();
    let mut nodes = 0;
    for (i, d) in fabric.devices.iter().enumerate() {
        by_name.insert(d.name.as_str(), i);
        if let Some(id) = d.name.strip_prefix(['h', 's']).and_then(|n| n.parse::<usize>().ok()) {
            nodes = nodes.max(id + 1);
        }
    }
    if nodes == 0 && !lines.is_empty() {
        problems.push(problem(
            format!("{p}.file"),
            "the fabric has no HPCC-numbered hosts (`h<id>`) for the flow file's node ids; import the HPCC \
             topology with `topology: {import: {hpcc: <file>}}`"
                .into(),
        ));
        return;
    }
    let shift = x.start.map(|s| (s, lines.iter().map(|l| l.start).min().unwrap_or(Time::ZERO)));
    let mut flows = Vec::with_capacity(lines.len());
    for l in &lines {
        let at = |field: usize| crate::diag::Mark { line: l.line, column: l.columns[field] };
        let mut node = |id: usize, field: usize| -> Option<usize> {
            if let Some(&i) = by_name.get(crate::hpcc::host_name(id).as_str()) {
                if fabric.devices[i].role != crate::Role::Switch {
                    return Some(i);
                }
            }
            let msg = if by_name.contains_key(crate::hpcc::switch_name(id).as_str()) {
                format!("node {id} is a switch in the topology; flows run between hosts")
            } else {
                format!("node {id} is not in the topology (its node ids run from 0 to {})", nodes - 1)
            };
            in_file(Diagnostic::error(at(field), "", msg));
            None
        };
        let (src, dst) = (node(l.src, SRC), node(l.dst, DST));
        let class = match fixed_class {
            Some(c) => c,
            None => {
                let c = fabric.qos.classes.iter().position(|c| c.priority == l.priority);
                if c.is_none() {
                    let known: Vec<String> =
                        fabric.qos.classes.iter().map(|c| format!("{} ({})", c.name, c.priority)).collect();
                    in_file(
                        Diagnostic::error(
                            at(PRIORITY),
                            "",
                            format!("no class of the fabric has priority {}", l.priority),
                        )
                        .expected(format!("a priority of a class: {}", known.join(", ")))
                        .suggest(Some(format!("or set `class:` on {p} to put every flow in one class"))),
                    );
                }
                c
            }
        };
        if let (Some(src), Some(dst), Some(class)) = (src, dst, class) {
            let start = match shift {
                Some((to, first)) => Time(to.0 + (l.start.0 - first.0)),
                None => l.start,
            };
            flows.push(ImportedFlow { line: l.line, src, dst, class, dport: l.dport, size: l.size, start });
        }
    }
    if flows.len() == lines.len() {
        let late = flows.iter().filter(|f| f.start >= sim.duration).count();
        if late == flows.len() && late > 0 {
            let first = flows.iter().map(|f| f.start).min().unwrap_or_default();
            problems.push(problem(
                format!("{p}.file"),
                format!(
                    "every flow starts at or after the end of the run (the first at {first}, the run ends at {}); \
                     set `start: 0` to shift them, or raise `simulation.duration`",
                    sim.duration
                ),
            ));
        } else if late > 0 {
            let mut w = problem(
                format!("{p}.file"),
                format!(
                    "{late} of {} flows start at or after the end of the run ({}) and will not run",
                    flows.len(),
                    sim.duration
                ),
            );
            w.diag.severity = Severity::Warning;
            problems.push(w);
        }
    }
    if flows.len() as f64 > MAX_FLOWS {
        problems.push(problem(format!("{p}.file"), format!("{} flows, more than {MAX_FLOWS:.0}", flows.len())));
    }
    x.flows = flows;
}
