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

use crate::units::{Size, Time};
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
    #[serde(default, deserialize_with = "crate::units::bare_bytes_opt", skip_serializing_if = "Option::is_none")]
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
