//! The workloads checked against the fabric: every host and class they name exists and can carry
//! them (RoCE or iWARP where RDMA is asked), rates and sizes are not zero, start and stop times
//! fall inside the run, and what each entry expands to stays within the bounds.

use crate::diag::{did_you_mean, problem, Problem};
use crate::resolve::ResolvedFabric;
use crate::select::{expand_hosts, host_index, host_iwarp, host_roce};
use crate::units::{Size, Time};
use crate::workload::*;
use std::path::Path;

/// A host named where iWARP is required has no iWARP adapter.
fn check_iwarp_host(fabric: &ResolvedFabric, name: &str, path: String, problems: &mut Vec<Problem>) {
    if let Ok(i) = host_index(fabric, name) {
        if !host_iwarp(fabric, i) {
            problems.push(problem(
                path,
                format!("`{name}` has no iWARP adapter (its NIC's `rdma` is not iwarp or roce-and-iwarp), so it cannot run an iWARP flow"),
            ));
        }
    }
}

/// A host named where RDMA is required has no RoCE adapter.
pub(crate) fn check_roce_host(
    fabric: &ResolvedFabric,
    name: &str,
    path: String,
    why: &str,
    problems: &mut Vec<Problem>,
) {
    if let Ok(i) = host_index(fabric, name) {
        if !host_roce(fabric, i) {
            problems.push(problem(
                path,
                format!("`{name}` has no RoCE adapter (its NIC's `rdma` is not roce-v2), so it cannot run {why}"),
            ));
        }
    }
}

pub(crate) fn check_class(fabric: &ResolvedFabric, class: &str, path: String, problems: &mut Vec<Problem>) {
    if fabric.qos.class(class).is_none() {
        let mut p = problem(path, format!("no class `{class}`"));
        p.diag.suggestion = did_you_mean(class, fabric.qos.classes.iter().map(|c| c.name.as_str()));
        problems.push(p);
    }
}

/// A flow at rate 0 never sends and one of 0 bytes never completes: both are refused where they
/// are written rather than by the simulator.
fn check_rate_size(rate: RateSpec, size: Option<Size>, path: &str, problems: &mut Vec<Problem>) {
    if rate == RateSpec::Rate(crate::units::Rate(0)) {
        problems.push(problem(
            format!("{path}.rate"),
            "the rate must be above 0; give a rate such as `10G`, or `line` for the port's speed".into(),
        ));
    }
    if size.is_some_and(|s| s.as_bytes() == 0) {
        problems.push(problem(
            format!("{path}.size"),
            "the size must be above 0 bytes; leave `size` out for a flow that sends until it stops".into(),
        ));
    }
}

fn check_window(start: Time, stop: Option<Time>, sim: &Simulation, path: &str, problems: &mut Vec<Problem>) {
    if let Some(stop) = stop {
        if stop <= start {
            problems.push(problem(format!("{path}.stop"), format!("stop {stop} is not after start {start}")));
        }
    }
    if start >= sim.duration {
        problems.push(problem(
            format!("{path}.start"),
            format!("start {start} is at or after the end of the run ({}); raise `simulation.duration`", sim.duration),
        ));
    }
}

/// Checks every host and class the workloads name, and their time windows, and reads the files
/// they name (relative to `base_dir`); problems inside those files go to `file_diags`.
pub(crate) fn check(
    w: &mut Workloads,
    sim: &Simulation,
    fabric: &ResolvedFabric,
    base_dir: &Path,
    problems: &mut Vec<Problem>,
    file_diags: &mut Vec<crate::Diagnostic>,
) {
    let mut names = std::collections::HashSet::new();
    let mut unique = |name: &str, path: String, problems: &mut Vec<Problem>| {
        if !names.insert(name.to_string()) {
            problems.push(problem(path, format!("duplicate workload name `{name}`")));
        }
    };
    for (i, f) in w.flows.iter().enumerate() {
        let p = format!("workloads.flows[{i}]");
        unique(&f.name, format!("{p}.name"), problems);
        for (field, host) in [("from", &f.from), ("to", &f.to)] {
            if let Err((msg, hint)) = host_index(fabric, host) {
                let mut pr = problem(format!("{p}.{field}"), msg);
                pr.diag.suggestion = hint;
                problems.push(pr);
            }
        }
        if f.from == f.to {
            problems.push(problem(format!("{p}.to"), format!("flow `{}` sends to its own sender", f.name)));
        }
        check_class(fabric, &f.class, format!("{p}.class"), problems);
        check_window(f.start, f.stop, sim, &p, problems);
        check_rate_size(f.rate, f.size, &p, problems);
        for (field, host) in [("from", &f.from), ("to", &f.to)] {
            match f.transport {
                Some(FlowTransport::Rc) => {
                    check_roce_host(fabric, host, format!("{p}.{field}"), "an RC queue pair", problems)
                }
                Some(FlowTransport::Iwarp) => check_iwarp_host(fabric, host, format!("{p}.{field}"), problems),
                _ => {}
            }
        }
        if matches!(f.transport, Some(FlowTransport::Tcp | FlowTransport::Iwarp)) && (f.on.is_some() || f.off.is_some())
        {
            problems.push(problem(
                format!("{p}.on"),
                "on/off applies to `rc` and `raw` flows; a TCP or iWARP flow sends until it stops".into(),
            ));
        }
        match (f.on, f.off) {
            (Some(_), None) | (None, Some(_)) => {
                problems.push(problem(format!("{p}.on"), "an on/off flow needs both `on` and `off`".into()))
            }
            (Some(on), Some(_)) if on == Time::ZERO => {
                problems.push(problem(format!("{p}.on"), "`on` must be above 0".into()))
            }
            _ => {}
        }
    }
    for (i, x) in w.incast.iter().enumerate() {
        let p = format!("workloads.incast[{i}]");
        unique(&x.name, format!("{p}.name"), problems);
        let senders = expand_hosts(&x.senders, fabric, &format!("{p}.senders"), problems);
        match host_index(fabric, &x.receiver) {
            Ok(r) => {
                if senders.contains(&r) {
                    problems
                        .push(problem(format!("{p}.receiver"), format!("receiver `{}` is also a sender", x.receiver)));
                }
            }
            Err((msg, hint)) => {
                let mut pr = problem(format!("{p}.receiver"), msg);
                pr.diag.suggestion = hint;
                problems.push(pr);
            }
        }
        if x.senders.is_empty() {
            problems.push(problem(format!("{p}.senders"), "an incast needs at least one sender".into()));
        }
        check_class(fabric, &x.class, format!("{p}.class"), problems);
        check_window(x.start, x.stop, sim, &p, problems);
        check_rate_size(x.rate, x.size, &p, problems);
        match (x.every, x.count) {
            (Some(e), _) if e == Time::ZERO => {
                problems.push(problem(format!("{p}.every"), "`every` must be above 0".into()))
            }
            (None, Some(_)) => problems
                .push(problem(format!("{p}.count"), "`count` repeats an incast: give the period with `every`".into())),
            (Some(_), _) if x.size.is_none() => problems.push(problem(
                format!("{p}.every"),
                "a repeated incast needs `size`: each round sends that many bytes from every sender".into(),
            )),
            (_, Some(0)) => problems.push(problem(format!("{p}.count"), "`count` must be at least 1".into())),
            _ => {}
        }
        if x.every.is_some_and(|e| e.0 > 0) {
            // Counted, not listed: `every: 1ns` over seconds is billions of rounds.
            let rounds = x.round_count(sim);
            let flows = rounds as f64 * senders.len() as f64;
            if rounds > MAX_INCAST_ROUNDS as u64 || flows > crate::workload::MAX_FLOWS {
                let field = if x.count.is_some_and(|c| u64::from(c) == rounds) { "count" } else { "every" };
                problems.push(problem(
                    format!("{p}.{field}"),
                    format!(
                        "{rounds} rounds of {} senders are {flows:.0} flows; rocelab simulates at most \
                         {MAX_INCAST_ROUNDS} rounds and {:.0} flows: raise `every` or lower `count`",
                        senders.len(),
                        crate::workload::MAX_FLOWS
                    ),
                ));
            }
        }
    }
    // Flows all the workloads expand to, bounded together as each entry is alone.
    let mut counts: Vec<(String, f64)> = vec![("workloads.flows".into(), w.flows.len() as f64)];
    for (i, x) in w.incast.iter().enumerate() {
        let senders = expand_hosts(&x.senders, fabric, "", &mut Vec::new()).len();
        counts.push((format!("workloads.incast[{i}]"), x.round_count(sim) as f64 * senders as f64));
    }
    let generated = super::flows::check(&mut w.poisson, &mut w.hpcc_flows, sim, fabric, base_dir, problems, file_diags);
    let paths = (0..w.poisson.len())
        .map(|i| format!("workloads.poisson[{i}]"))
        .chain((0..w.hpcc_flows.len()).map(|i| format!("workloads.hpcc_flows[{i}]")));
    counts.extend(paths.zip(generated));
    let groups = w
        .permutation
        .iter()
        .map(|x| ("permutation", "a permutation", &x.name, &x.hosts, &x.class, x.start, x.stop, x.rate, x.size));
    let groups = groups.chain(
        w.all_to_all
            .iter()
            .map(|x| ("all_to_all", "all-to-all", &x.name, &x.hosts, &x.class, x.start, x.stop, x.rate, x.size)),
    );
    let mut index = std::collections::HashMap::new();
    for (list, what, name, hosts, class, start, stop, rate, size) in groups {
        let i = index.entry(list).and_modify(|i| *i += 1).or_insert(0usize);
        let p = format!("workloads.{list}[{i}]");
        unique(name, format!("{p}.name"), problems);
        let n = expand_hosts(hosts, fabric, &format!("{p}.hosts"), problems).len();
        // A permutation is one flow per host, all-to-all one per ordered pair.
        let flows = if list == "all_to_all" { n as f64 * (n as f64 - 1.0) } else { n as f64 };
        if n < 2 {
            problems.push(problem(format!("{p}.hosts"), format!("{what} needs at least two hosts")));
        } else if flows > crate::workload::MAX_FLOWS {
            problems.push(problem(
                format!("{p}.hosts"),
                format!(
                    "{what} of {n} hosts is {flows:.0} flows; rocelab simulates at most {:.0}: list fewer hosts",
                    crate::workload::MAX_FLOWS
                ),
            ));
        }
        check_rate_size(rate, size, &p, problems);
        counts.push((p.clone(), flows));
        check_class(fabric, class, format!("{p}.class"), problems);
        check_window(start, stop, sim, &p, problems);
    }
    // An entry over the bound alone is already an error of its own; else the error is at the
    // entry that takes the sum over it.
    let max = crate::workload::MAX_FLOWS;
    if counts.iter().all(|(_, c)| *c <= max) {
        let mut total = 0.0;
        if let Some((path, _)) = counts.iter().find(|(_, c)| {
            total += c;
            total > max
        }) {
            problems.push(problem(
                path.clone(),
                format!(
                    "with the workloads before it, this one brings the run to about {total:.0} flows; rocelab \
                     simulates at most {max:.0} in one run: split the workloads over variants or runs"
                ),
            ));
        }
    }
    crate::validate::perftest::check(&w.perftest, fabric, sim.duration, &mut unique, problems);
    let windows = w.flows.iter().map(|x| ("flows", x.window)).chain(w.incast.iter().map(|x| ("incast", x.window)));
    let windows = windows
        .chain(w.permutation.iter().map(|x| ("permutation", x.window)))
        .chain(w.all_to_all.iter().map(|x| ("all_to_all", x.window)))
        .chain(w.hpcc_flows.iter().map(|x| ("hpcc_flows", x.window)));
    let mut index = std::collections::HashMap::new();
    for (list, window) in windows {
        let i = index.entry(list).and_modify(|i| *i += 1).or_insert(0usize);
        if let Some(win) = &window {
            crate::validate::transport::check_window(win, format!("workloads.{list}[{i}].window"), problems);
        }
    }
    for (i, x) in w.poisson.iter().enumerate() {
        unique(&x.name, format!("workloads.poisson[{i}].name"), problems);
    }
    for (i, x) in w.hpcc_flows.iter().enumerate() {
        unique(&x.name, format!("workloads.hpcc_flows[{i}].name"), problems);
    }
    if sim.sample_interval == Time::ZERO {
        problems.push(problem("simulation.sample_interval".into(), "the sampling interval must be above 0".into()));
    }
    if sim.duration == Time::ZERO {
        problems.push(problem("simulation.duration".into(), "the duration must be above 0".into()));
    }
    check_seeds(&sim.seeds, problems);
}

/// `simulation.seeds`: at most [`MAX_SEEDS`], each once (a repeated seed is the same run twice
/// and would weigh double in the spread).
fn check_seeds(seeds: &[u64], problems: &mut Vec<Problem>) {
    if seeds.len() > MAX_SEEDS {
        problems.push(problem(
            "simulation.seeds".into(),
            format!("{} seeds, more than the {MAX_SEEDS} rocelab runs a point under; keep fewer", seeds.len()),
        ));
    }
    for (i, s) in seeds.iter().enumerate() {
        if let Some(first) = seeds[..i].iter().position(|x| x == s) {
            problems.push(problem(
                format!("simulation.seeds[{i}]"),
                format!("seed {s} is already simulation.seeds[{first}]; each seed runs once, remove this one"),
            ));
        }
    }
}
