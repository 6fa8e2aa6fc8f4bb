//! perftest workloads: `ib_write_bw`, `ib_read_bw`, `ib_send_bw`, `ib_write_lat`,
//! `ib_read_lat` and `ib_send_lat` runs between two hosts, as a scenario's
//! `workloads.perftest` list:
//!
//! ```yaml
//! workloads:
//!   perftest:
//!     - {name: lat, test: write_lat, client: sender-lat, server: receiver, class: roce}
//!     - {name: bw, test: write_bw, client: sender-bw, server: receiver, class: roce, qps: 2, duration: 5ms}
//! ```
//!
//! Unset fields take perftest's own defaults (linux-rdma/perftest `perftest_parameters.h`):
//! `size` 65536 bytes for bandwidth tests and 2 for latency tests, `iterations` 5000 and 1000,
//! `tx_depth` 128 and 1, `qps` 1; `mtu` is the fabric's RoCE path MTU.

use crate::diag::{problem, Problem};
use crate::resolve::ResolvedFabric;
use crate::units::{Size, Time};
use crate::validate::workload::{check_class, check_roce_host};
use crate::workload::host_index;
use serde::{Deserialize, Serialize};

/// Which perftest tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerftestTest {
    WriteBw,
    ReadBw,
    SendBw,
    WriteLat,
    ReadLat,
    SendLat,
}

impl PerftestTest {
    pub fn is_bw(self) -> bool {
        matches!(self, PerftestTest::WriteBw | PerftestTest::ReadBw | PerftestTest::SendBw)
    }
}

/// Largest RDMA message (2³¹ bytes, the InfiniBand DMA length limit).
pub const MAX_MESSAGE: u64 = 1 << 31;

/// One perftest run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Perftest {
    pub name: String,
    pub test: PerftestTest,
    /// Host running the client (`ib_write_bw <server>`): it posts the operations.
    pub client: String,
    /// Host running the server.
    pub server: String,
    /// Traffic class (by name) its packets are marked with.
    pub class: String,
    /// Message size (`--size`); default 65536 (bandwidth) or 2 (latency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Queue pairs (`--qp`); default 1; latency tests run one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qps: Option<u32>,
    /// Iterations (`--iters`); default 5000 (bandwidth) or 1000 (latency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// Run for this long instead of a number of iterations (`--duration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Time>,
    /// Outstanding messages per QP (`--tx-depth`); default 128 (bandwidth) or 1 (latency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_depth: Option<u32>,
    /// Path MTU (`--mtu`): 256, 512, 1024, 2048 or 4096; default the fabric's RoCE MTU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// When the client starts.
    #[serde(default)]
    pub start: Time,
}

impl Perftest {
    /// Message size in force.
    pub fn size_bytes(&self) -> u64 {
        self.size.map(|s| s.as_bytes()).unwrap_or(if self.test.is_bw() { 65536 } else { 2 })
    }
}

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
