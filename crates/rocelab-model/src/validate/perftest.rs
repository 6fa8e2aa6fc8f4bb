//! perftest runs checked against the fabric: RoCE hosts, classes that exist, sizes, iterations
//! and durations within perftest's own limits and the run.

use crate::diag::{problem, Problem};
use crate::perftest::*;
use crate::resolve::ResolvedFabric;
use crate::select::host_index;
use crate::units::Time;
use crate::validate::workload::{check_class, check_roce_host};

/// Checks a perftest list (every host, class, size and count), at `workloads.perftest[i]`.
pub(crate) fn check(
    tests: &[Perftest],
    fabric: &ResolvedFabric,
    duration: Time,
    unique: &mut dyn FnMut(&str, String, &mut Vec<Problem>),
    problems: &mut Vec<Problem>,
) {
    for (i, t) in tests.iter().enumerate() {
        let p = format!("workloads.perftest[{i}]");
        unique(&t.name, format!("{p}.name"), problems);
        for (field, host) in [("client", &t.client), ("server", &t.server)] {
            if let Err((msg, hint)) = host_index(fabric, host) {
                let mut pr = problem(format!("{p}.{field}"), msg);
                pr.diag.suggestion = hint;
                problems.push(pr);
            } else {
                check_roce_host(fabric, host, format!("{p}.{field}"), "perftest", problems);
            }
        }
        if t.client == t.server {
            problems.push(problem(format!("{p}.server"), format!("test `{}` runs against its own client", t.name)));
        }
        check_class(fabric, &t.class, format!("{p}.class"), problems);
        if let Some(s) = t.size {
            if s.as_bytes() == 0 || s.as_bytes() > MAX_MESSAGE {
                problems.push(problem(
                    format!("{p}.size"),
                    format!("message size {s} is not 1 byte to 2GiB (the InfiniBand DMA length limit)"),
                ));
            }
        }
        match t.qps {
            Some(0) => problems.push(problem(format!("{p}.qps"), "qps must be at least 1".into())),
            Some(n) if n > 1 && !t.test.is_bw() => {
                problems.push(problem(format!("{p}.qps"), format!("latency tests run on one QP, not {n}")))
            }
            Some(n) if n > 16384 => {
                problems.push(problem(format!("{p}.qps"), format!("{n} QPs is more than perftest's 16384")))
            }
            _ => {}
        }
        if t.iterations.is_some() && t.duration.is_some() {
            problems.push(problem(format!("{p}.duration"), "give `iterations` or `duration`, not both".into()));
        }
        if let Some(n) = t.iterations.filter(|n| !(5..=100_000_000).contains(n)) {
            problems
                .push(problem(format!("{p}.iterations"), format!("iterations {n} is outside perftest's 5-100000000")));
        }
        if t.duration == Some(Time::ZERO) {
            problems.push(problem(format!("{p}.duration"), "the duration must be above 0".into()));
        }
        if let Some(d) = t.tx_depth.filter(|d| !(1..=15_000).contains(d)) {
            problems.push(problem(format!("{p}.tx_depth"), format!("tx_depth {d} is outside perftest's 1-15000")));
        }
        if let Some(m) = t.mtu.filter(|m| !crate::validate::qos::IB_MTUS.contains(m)) {
            problems.push(problem(
                format!("{p}.mtu"),
                format!("path MTU {m} is not an InfiniBand MTU (256, 512, 1024, 2048, 4096)"),
            ));
        }
        if t.start >= duration {
            problems.push(problem(
                format!("{p}.start"),
                format!(
                    "start {} is at or after the end of the run ({duration}); raise `simulation.duration`",
                    t.start
                ),
            ));
        }
    }
}
