//! Storage jobs and iperf runs checked against the fabric: every host, target, protocol and
//! class they name exists and fits (an RDMA protocol on RDMA adapters of the right kind), and
//! their sizes, depths and counts stay within the bounds.

use crate::diag::{problem, Problem};
use crate::fabric::{Device, RdmaKind, Role, Scenario};
use crate::resolve::{ResolvedDevice, ResolvedFabric};
use crate::select::{default_class, expand_hosts, host_index, rdma_fits, rdma_of};
use crate::storage::*;
use crate::units::{Rate, Time};
use std::collections::HashSet;

/// Checks the device-level settings (TCP stack, CPU, storage model) of listed devices.
fn check_devices(devices: &[Device], problems: &mut Vec<Problem>) {
    for (i, d) in devices.iter().enumerate() {
        let p = format!("fabric.topology.devices[{i}]");
        if d.role == Role::Switch {
            for (set, what) in [(d.tcp.is_some(), "tcp"), (d.cpu.is_some(), "cpu")] {
                if set {
                    problems.push(problem(
                        format!("{p}.{what}"),
                        format!("`{what}` is for hosts and storage, not switches"),
                    ));
                }
            }
        }
        if let Some(t) = &d.tcp {
            let tp = format!("{p}.tcp");
            if t.min_rto == Some(Time::ZERO) {
                problems.push(problem(format!("{tp}.min_rto"), "the minimum RTO must be above 0".into()));
            }
            if t.initial_window == Some(0) {
                problems
                    .push(problem(format!("{tp}.initial_window"), "the initial window is at least 1 segment".into()));
            }
            if t.receive_buffer.is_some_and(|b| b.as_bytes() < 2048) {
                problems.push(problem(
                    format!("{tp}.receive_buffer"),
                    "the receive buffer must hold a segment (2KiB or more)".into(),
                ));
            }
            if t.congestion_control == Some(CongestionControl::Dctcp) && t.ecn == Some(false) {
                problems.push(problem(format!("{tp}.ecn"), "DCTCP needs ECN: remove `ecn: false`".into()));
            }
            if t.delayed_ack_timeout == Some(Time::ZERO) {
                problems.push(problem(format!("{tp}.delayed_ack_timeout"), "the timeout must be above 0".into()));
            }
        }
        if d.cpu.as_ref().is_some_and(|c| c.cores == 0) {
            problems.push(problem(format!("{p}.cpu.cores"), "a host has at least one core".into()));
        } else if let Some(c) = d.cpu.as_ref().filter(|c| c.cores > MAX_CORES) {
            problems.push(problem(
                format!("{p}.cpu.cores"),
                format!("{} cores; rocelab models at most {MAX_CORES} on one host", c.cores),
            ));
        }
        if let Some(m) = d.storage.as_ref().and_then(|s| s.model.as_ref()) {
            m.check(&format!("{p}.storage.model"), problems);
        }
    }
}

/// The host named `name` (as workloads find theirs: [`crate::workload::host_index`]), or a
/// problem at `path`.
fn host(fabric: &ResolvedFabric, name: &str, path: String, problems: &mut Vec<Problem>) -> Option<usize> {
    match host_index(fabric, name) {
        Ok(i) => Some(i),
        Err((message, suggestion)) => {
            let mut p = problem(path, message);
            p.diag.suggestion = suggestion;
            problems.push(p);
            None
        }
    }
}

fn check_class(fabric: &ResolvedFabric, class: &Option<String>, path: String, problems: &mut Vec<Problem>) {
    if let Some(c) = class {
        crate::validate::workload::check_class(fabric, c, path, problems);
    }
}

fn check_job(j: &Job, p: &str, sim_end: Time, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    let initiators = expand_hosts(std::slice::from_ref(&j.initiator), fabric, &format!("{p}.initiator"), problems);
    let initiators: Vec<usize> = initiators.into_iter().filter(|&i| fabric.devices[i].role != Role::Switch).collect();
    let target = host(fabric, &j.target, format!("{p}.target"), problems);
    let rdma = is_rdma(j.protocol);
    if let Some(t) = target {
        let td = &fabric.devices[t];
        match &td.storage {
            None => problems.push(problem(
                format!("{p}.target"),
                format!("`{}` serves no storage: give it `storage: {{kind: …, protocols: […]}}`", td.name),
            )),
            Some(s) if !s.protocols.contains(&j.protocol) => {
                let offered: Vec<String> = s.protocols.iter().map(|x| protocol_name(*x)).collect();
                let mut pr = problem(
                    format!("{p}.protocol"),
                    format!("`{}` does not serve {}", td.name, protocol_name(j.protocol)),
                );
                pr.diag.expected = Some(if offered.is_empty() {
                    "none offered".into()
                } else {
                    format!("one of {}", offered.join(", "))
                });
                problems.push(pr);
            }
            Some(_) => {}
        }
        // A hyperconverged host (Storage Spaces Direct) reads its own copy: allowed for hosts,
        // which the simulator serves locally; an array is never its own initiator.
        if initiators.contains(&t) && td.role != Role::Host {
            problems.push(problem(format!("{p}.target"), format!("`{}` is also an initiator of this job", td.name)));
        }
        if rdma && !rdma_fits(rdma_of(td), j.rdma) {
            problems.push(problem(format!("{p}.target"), rdma_message(td, j)));
        }
    }
    if rdma {
        for &i in &initiators {
            let d = &fabric.devices[i];
            if !rdma_fits(rdma_of(d), j.rdma) {
                problems.push(problem(format!("{p}.initiator"), rdma_message(d, j)));
            }
        }
    } else if j.rdma.is_some() {
        problems.push(problem(
            format!("{p}.rdma"),
            format!("{} runs over TCP; `rdma` applies to RDMA protocols only", protocol_name(j.protocol)),
        ));
    }
    let bs = j.bs.as_bytes();
    if bs == 0 || bs % 512 != 0 || bs > u32::MAX as u64 {
        problems.push(problem(
            format!("{p}.bs"),
            format!("the block size {} must be a multiple of 512 bytes (a sector), below 4GiB", j.bs),
        ));
    }
    for (f, v, max) in [("iodepth", j.iodepth, MAX_IODEPTH), ("numjobs", j.numjobs, MAX_NUMJOBS)] {
        if v == 0 {
            problems.push(problem(format!("{p}.{f}"), format!("`{f}` must be at least 1")));
        } else if v > max {
            problems.push(problem(format!("{p}.{f}"), format!("`{f}` is {v}; rocelab runs at most {max}")));
        }
    }
    let outstanding = u64::from(j.iodepth) * u64::from(j.numjobs);
    if j.iodepth <= MAX_IODEPTH && j.numjobs <= MAX_NUMJOBS && outstanding > MAX_OUTSTANDING_IOS {
        problems.push(problem(
            format!("{p}.iodepth"),
            format!(
                "iodepth {} × numjobs {} is {outstanding} IOs outstanding; rocelab runs at most {MAX_OUTSTANDING_IOS} per initiator",
                j.iodepth, j.numjobs
            ),
        ));
    }
    for (f, v) in [("rwmixread", j.rwmixread), ("percentage_random", j.percentage_random)] {
        if v.is_some_and(|v| v > 100) {
            problems.push(problem(format!("{p}.{f}"), format!("`{f}` is a percentage, 0 to 100")));
        }
    }
    if j.rwmixread.is_some() && !j.rw.is_mixed() {
        problems
            .push(problem(format!("{p}.rwmixread"), "`rwmixread` applies to `rw: rw` and `rw: randrw` only".into()));
    }
    if j.size.is_some_and(|s| s.as_bytes() == 0) {
        problems.push(problem(format!("{p}.size"), "the region must be above 0 bytes".into()));
    } else if j.size.is_some_and(|s| s.as_bytes() < j.bs.as_bytes()) {
        problems.push(problem(format!("{p}.size"), format!("the region is smaller than one block ({})", j.bs)));
    }
    if j.runtime == Time::ZERO {
        problems.push(problem(format!("{p}.runtime"), "the runtime must be above 0".into()));
    }
    let end = Time(j.start.0.saturating_add(j.ramp_time.0).saturating_add(j.runtime.0));
    if end > sim_end {
        problems.push(problem(
            format!("{p}.runtime"),
            format!("start + ramp_time + runtime ends at {end}, after the end of the run ({sim_end}); raise `simulation.duration`"),
        ));
    }
    check_class(fabric, &j.class, format!("{p}.class"), problems);
    if j.class.is_none() && default_class(fabric, rdma).is_none() {
        problems.push(problem(
            format!("{p}.class"),
            "no traffic class to carry the job; declare one in `fabric.qos.classes`".into(),
        ));
    }
}

fn rdma_message(d: &ResolvedDevice, j: &Job) -> String {
    match j.rdma {
        Some(t) => format!(
            "{} over {} needs {} on `{}`'s adapter (it has `rdma: {}`)",
            protocol_name(j.protocol),
            if t == RdmaTransport::Roce { "RoCE" } else { "iWARP" },
            if t == RdmaTransport::Roce { "RoCE" } else { "iWARP" },
            d.name,
            rdma_kind_name(rdma_of(d)),
        ),
        None => format!(
            "{} needs RDMA, and `{}`'s adapter has none (`rdma: none`); use the TCP protocol or an RDMA adapter",
            protocol_name(j.protocol),
            d.name
        ),
    }
}

fn rdma_kind_name(k: RdmaKind) -> &'static str {
    match k {
        RdmaKind::RoceV2 => "roce-v2",
        RdmaKind::RoceV1 => "roce-v1",
        RdmaKind::Iwarp => "iwarp",
        RdmaKind::RoceAndIwarp => "roce-and-iwarp",
        RdmaKind::None => "none",
    }
}

fn check_iperf(x: &Iperf, p: &str, sim_end: Time, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    let c = host(fabric, &x.client, format!("{p}.client"), problems);
    let s = host(fabric, &x.server, format!("{p}.server"), problems);
    if c.is_some() && c == s {
        problems.push(problem(format!("{p}.server"), format!("iperf `{}` sends to its own client", x.name)));
    }
    check_class(fabric, &x.class, format!("{p}.class"), problems);
    if x.parallel == 0 {
        problems.push(problem(format!("{p}.parallel"), "at least one connection".into()));
    } else if x.parallel > MAX_IPERF_PARALLEL {
        let mut pr = problem(
            format!("{p}.parallel"),
            format!("{} connections; iperf3 runs at most {MAX_IPERF_PARALLEL} (`-P`)", x.parallel),
        );
        pr.diag.suggestion = Some("run several iperf entries between other hosts for more connections".into());
        problems.push(pr);
    }
    if x.bytes.is_some_and(|b| b.as_bytes() == 0) {
        problems.push(problem(
            format!("{p}.bytes"),
            "the bytes to send must be above 0; leave `bytes` out to send until the end".into(),
        ));
    }
    if x.stop.is_some_and(|s| s <= x.start) {
        problems.push(problem(format!("{p}.stop"), format!("stop is not after start {}", x.start)));
    }
    if x.start >= sim_end {
        problems.push(problem(
            format!("{p}.start"),
            format!("start {} is at or after the end of the run ({sim_end}); raise `simulation.duration`", x.start),
        ));
    }
    if x.bitrate == Some(Rate(0)) {
        problems.push(problem(format!("{p}.bitrate"), "the bitrate must be above 0".into()));
    }
    if x.window.is_some_and(|w| w.as_bytes() < 2048) {
        problems.push(problem(format!("{p}.window"), "the window must hold a segment (2KiB or more)".into()));
    }
}

/// Checks jobs, iperf flows and the devices' TCP, CPU and storage settings.
pub(crate) fn check(scenario: &Scenario, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    check_devices(&scenario.fabric.topology.devices, problems);
    let w = &scenario.workloads;
    let end = scenario.simulation.duration;
    let mut names: HashSet<&str> = w.flows.iter().map(|f| f.name.as_str()).collect();
    names.extend(w.incast.iter().map(|f| f.name.as_str()));
    names.extend(w.permutation.iter().map(|f| f.name.as_str()));
    names.extend(w.all_to_all.iter().map(|f| f.name.as_str()));
    let all = w.jobs.iter().map(|j| ("jobs", &j.name)).chain(w.iperf.iter().map(|x| ("iperf", &x.name)));
    let mut index = std::collections::HashMap::new();
    for (list, name) in all {
        let i = index.entry(list).and_modify(|i| *i += 1).or_insert(0usize);
        if !names.insert(name) {
            problems.push(problem(format!("workloads.{list}[{i}].name"), format!("duplicate workload name `{name}`")));
        }
    }
    for (i, j) in w.jobs.iter().enumerate() {
        check_job(j, &format!("workloads.jobs[{i}]"), end, fabric, problems);
    }
    for (i, x) in w.iperf.iter().enumerate() {
        check_iperf(x, &format!("workloads.iperf[{i}]"), end, fabric, problems);
    }
}

impl Latency {
    fn check(&self, path: &str, problems: &mut Vec<Problem>) {
        if self.mean == Time::ZERO {
            problems.push(problem(format!("{path}.mean"), "the mean must be above 0".into()));
        }
        if let Some(p99) = self.p99 {
            // A lognormal with this mean and p99 exists for mean ≤ p99 ≤ e^(z²/2)·mean ≈ 14.9·mean.
            if p99 < self.mean || p99.as_ps() as f64 > 14.9 * self.mean.as_ps() as f64 {
                problems.push(problem(
                    format!("{path}.p99"),
                    format!("p99 {p99} must be between the mean ({}) and 14.9 times it for a lognormal", self.mean),
                ));
            }
        }
    }
}

impl TargetModel {
    fn check(&self, path: &str, problems: &mut Vec<Problem>) {
        if let Some(l) = &self.read_latency {
            l.check(&format!("{path}.read_latency"), problems);
        }
        if let Some(l) = &self.write_latency {
            l.check(&format!("{path}.write_latency"), problems);
        }
        if self.concurrency == Some(0) {
            problems.push(problem(format!("{path}.concurrency"), "at least one IO must be serviced at a time".into()));
        }
        for (f, r) in [("read_limit", self.read_limit), ("write_limit", self.write_limit)] {
            if r == Some(Rate(0)) {
                problems.push(problem(format!("{path}.{f}"), "a throughput limit must be above 0".into()));
            }
        }
    }
}
