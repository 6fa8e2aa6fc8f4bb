//! perftest-style RDMA tests (the `ib_write_bw`, `ib_read_bw`, `ib_send_bw`, `ib_write_lat`,
//! `ib_read_lat`, `ib_send_lat` tools of linux-rdma/perftest) on the simulated fabric, and their
//! reports computed the way perftest computes them.
//!
//! * **Bandwidth tests** post `size`-byte messages on each of `qps` queue pairs, keeping
//!   `tx_depth` outstanding per QP (READ: at most [`MAX_OUTSTANDING_READS`]), until `iterations`
//!   messages per QP were posted or `duration` passed. perftest's `print_report_bw`: the average
//!   bandwidth is all bytes over the time from the first post to the last completion; the peak
//!   is the size over the smallest average time per message over runs of consecutive messages
//!   that end at a completion-moderation point (`cq_mod` = 100, `DEF_CQ_MOD`); the message rate
//!   is messages over the same time as the average. Reported in Gb/s (10⁹ bit/s, perftest's
//!   `--report_gbits`) and Mpps.
//! * **Latency tests** run `iterations` exchanges. `ib_write_lat` and `ib_send_lat` are
//!   ping-pongs: the client sends, the server answers when it sees the message (polling its
//!   memory, or its receive queue for SEND), and the client sends again when it sees the
//!   answer; `ib_read_lat` reads, and reads again at the completion. A sample is the time
//!   between consecutive posts, halved for the ping-pongs (perftest's `rtt_factor`: 1 for READ,
//!   2 otherwise), `iterations − 1` samples. Reported like `print_report_lat`: t_min, t_max,
//!   t_typical (the median), t_avg, t_stdev, the 99% and 99.9% percentiles (sorted sample at
//!   index ⌊n·0.99⌋, ⌊n·0.999⌋), in µs.
//!
//! Defaults are perftest's (`src/perftest_parameters.h`): size 65,536 bytes for bandwidth tests
//! and 2 for latency tests (`DEF_SIZE_BW`, `DEF_SIZE_LAT`), 5,000 iterations for bandwidth and
//! 1,000 for latency (`DEF_ITERS_WB`, `DEF_ITERS`), tx depth 128 for bandwidth and 1 for latency
//! (`DEF_TX_BW`, `DEF_TX_LAT`), one QP (`DEF_NUM_QPS`), inline sends up to 220 bytes for WRITE
//! and 236 for SEND (`DEF_INLINE_WRITE`, `DEF_INLINE_SEND_RC_UC`); iterations are 5 to 10⁸
//! (`MIN_ITER`, `MAX_ITER`), the tx depth 1 to 15,000 (`MIN_TX`, `MAX_TX`).

use crate::error::SimError;
use crate::rdma::{RdmaOp, MAX_MESSAGE_BYTES};
use crate::spec::{NetworkSpec, NodeId};
use crate::time::{Time, SECOND, US};
use crate::traffic::{FlowClass, FlowSpec, RcFlow, Transport};
use serde::{Deserialize, Serialize};

/// perftest's `DEF_SIZE_BW`.
pub const DEFAULT_SIZE_BW: u64 = 65536;
/// perftest's `DEF_SIZE_LAT`.
pub const DEFAULT_SIZE_LAT: u64 = 2;
/// perftest's `DEF_ITERS_WB` (bandwidth tests).
pub const DEFAULT_ITERS_BW: u64 = 5000;
/// perftest's `DEF_ITERS` (latency tests).
pub const DEFAULT_ITERS_LAT: u64 = 1000;
/// perftest's `DEF_TX_BW`.
pub const DEFAULT_TX_DEPTH_BW: u32 = 128;
/// perftest's `DEF_TX_LAT`.
pub const DEFAULT_TX_DEPTH_LAT: u32 = 1;
/// perftest's `MIN_ITER`.
pub const MIN_ITERS: u64 = 5;
/// perftest's `MAX_ITER`.
pub const MAX_ITERS: u64 = 100_000_000;
/// perftest's `MAX_TX`.
pub const MAX_TX_DEPTH: u32 = 15_000;
/// perftest's completion moderation, `DEF_CQ_MOD`: the peak bandwidth is measured between
/// moderation points.
pub const CQ_MOD: usize = 100;
/// RDMA READs outstanding per QP: perftest uses the device's `max_qp_rd_atom`, 16 on ConnectX
/// (`MAX_OUT_READ_HERMON`).
pub const MAX_OUTSTANDING_READS: u32 = 16;
/// perftest's `DEF_INLINE_WRITE`.
pub const INLINE_WRITE_BYTES: u64 = 220;
/// perftest's `DEF_INLINE_SEND_RC_UC`.
pub const INLINE_SEND_BYTES: u64 = 236;

/// Which perftest tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerftestKind {
    /// `ib_write_bw`.
    WriteBw,
    /// `ib_read_bw`.
    ReadBw,
    /// `ib_send_bw`.
    SendBw,
    /// `ib_write_lat`.
    WriteLat,
    /// `ib_read_lat`.
    ReadLat,
    /// `ib_send_lat`.
    SendLat,
}

impl PerftestKind {
    /// The RDMA operation it uses.
    pub fn op(self) -> RdmaOp {
        match self {
            PerftestKind::WriteBw | PerftestKind::WriteLat => RdmaOp::Write,
            PerftestKind::ReadBw | PerftestKind::ReadLat => RdmaOp::Read,
            PerftestKind::SendBw | PerftestKind::SendLat => RdmaOp::Send,
        }
    }

    /// Whether it is a bandwidth test.
    pub fn is_bw(self) -> bool {
        matches!(self, PerftestKind::WriteBw | PerftestKind::ReadBw | PerftestKind::SendBw)
    }

    /// The tool's name (`ib_write_bw`, ...).
    pub fn tool(self) -> &'static str {
        match self {
            PerftestKind::WriteBw => "ib_write_bw",
            PerftestKind::ReadBw => "ib_read_bw",
            PerftestKind::SendBw => "ib_send_bw",
            PerftestKind::WriteLat => "ib_write_lat",
            PerftestKind::ReadLat => "ib_read_lat",
            PerftestKind::SendLat => "ib_send_lat",
        }
    }

    /// perftest's `rtt_factor`: latency samples are divided by it.
    pub fn rtt_factor(self) -> u64 {
        if self.op() == RdmaOp::Read {
            1
        } else {
            2
        }
    }

    /// Default message size.
    pub fn default_size(self) -> u64 {
        if self.is_bw() {
            DEFAULT_SIZE_BW
        } else {
            DEFAULT_SIZE_LAT
        }
    }

    /// Default iterations.
    pub fn default_iterations(self) -> u64 {
        if self.is_bw() {
            DEFAULT_ITERS_BW
        } else {
            DEFAULT_ITERS_LAT
        }
    }

    /// Default tx depth.
    pub fn default_tx_depth(self) -> u32 {
        if self.is_bw() {
            DEFAULT_TX_DEPTH_BW
        } else {
            DEFAULT_TX_DEPTH_LAT
        }
    }
}

/// How long a test runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PerftestLength {
    /// Messages per QP (perftest `--iters`).
    Iterations(u64),
    /// Post messages for this long (perftest `--duration`).
    Duration(Time),
}

/// One perftest run between a client and a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerftestSpec {
    /// The tool.
    pub test: PerftestKind,
    /// Where the tool runs as client (it posts the WRITEs, READs or SENDs).
    pub client: NodeId,
    /// The server.
    pub server: NodeId,
    /// Marking of its packets.
    pub class: FlowClass,
    /// Message size (perftest `--size`).
    pub size: u64,
    /// Queue pairs (perftest `--qp`).
    pub qps: u32,
    /// Iterations or duration.
    pub length: PerftestLength,
    /// Messages outstanding per QP (perftest `--tx-depth`).
    pub tx_depth: u32,
    /// Path MTU.
    pub path_mtu: u32,
    /// When the client starts.
    pub start_ps: Time,
    /// UDP source port of the first QP; QP `i` uses this plus `i`.
    pub udp_src_port: u16,
}

impl PerftestSpec {
    /// A test with perftest's defaults.
    pub fn new(test: PerftestKind, client: NodeId, server: NodeId, class: FlowClass) -> Self {
        PerftestSpec {
            test,
            client,
            server,
            class,
            size: test.default_size(),
            qps: 1,
            length: PerftestLength::Iterations(test.default_iterations()),
            tx_depth: test.default_tx_depth(),
            path_mtu: 4096,
            start_ps: 0,
            udp_src_port: 50000,
        }
    }

    /// Messages outstanding per QP.
    pub fn depth(&self) -> u32 {
        if self.test.op() == RdmaOp::Read {
            self.tx_depth.min(MAX_OUTSTANDING_READS)
        } else {
            self.tx_depth
        }
    }

    /// Whether perftest posts the messages inline (written by the CPU into the NIC).
    pub fn inline(&self) -> bool {
        match self.test.op() {
            RdmaOp::Write => self.size <= INLINE_WRITE_BYTES,
            RdmaOp::Send => self.size <= INLINE_SEND_BYTES,
            RdmaOp::Read => false,
        }
    }

    /// The queue pair settings of its flows.
    pub fn rc_flow(&self) -> RcFlow {
        RcFlow { op: self.test.op(), message_bytes: self.size, tx_depth: self.depth(), window_packets: None }
    }

    /// Whether the server answers each message (`ib_write_lat`, `ib_send_lat`).
    pub fn ping_pong(&self) -> bool {
        matches!(self.test, PerftestKind::WriteLat | PerftestKind::SendLat)
    }

    /// The flows its queue pairs run on: QP `i` of `qps` from client to server, then, for a
    /// ping-pong, the server's answering QP.
    pub fn flows(&self) -> Vec<FlowSpec> {
        let qp = |src, dst, i: u16| FlowSpec {
            src,
            dst,
            class: self.class,
            udp_src_port: self.udp_src_port.wrapping_add(i),
            payload_bytes: self.path_mtu,
            start_ps: self.start_ps,
            stop_ps: None,
            size_bytes: None,
            rate_bps: None,
            on_off: None,
            transport: Transport::Rc(self.rc_flow()),
            hpcc_dport: None,
        };
        let mut v: Vec<FlowSpec> = (0..self.qps).map(|i| qp(self.client, self.server, i as u16)).collect();
        if self.ping_pong() {
            v.push(qp(self.server, self.client, self.qps as u16));
        }
        v
    }

    /// Check it against the network.
    pub fn validate(&self, path: &str, net: &NetworkSpec) -> Result<(), SimError> {
        for (what, n) in [("client", self.client), ("server", self.server)] {
            if !net.is_host(n) {
                return Err(SimError::traffic(format!("{path}.{what}"), format!("node {n} is not a host")));
            }
        }
        if self.client == self.server {
            return Err(SimError::traffic(path, "client and server are the same host"));
        }
        if self.class.priority > 7 || self.class.dscp > 63 {
            return Err(SimError::traffic(format!("{path}.class"), "priority is 0..=7 and DSCP 0..=63"));
        }
        if self.size == 0 || self.size > MAX_MESSAGE_BYTES {
            return Err(SimError::traffic(
                format!("{path}.size"),
                format!("message size must be 1 byte to 2 GiB, got {}", self.size),
            ));
        }
        if self.qps == 0 {
            return Err(SimError::traffic(format!("{path}.qps"), "qps 0 runs nothing; use 1 or more"));
        }
        if self.qps > 1 && !self.test.is_bw() {
            return Err(SimError::traffic(format!("{path}.qps"), "latency tests run on one QP"));
        }
        if self.tx_depth == 0 || self.tx_depth > MAX_TX_DEPTH {
            return Err(SimError::traffic(
                format!("{path}.tx_depth"),
                format!("tx_depth must be 1..={MAX_TX_DEPTH}, got {}", self.tx_depth),
            ));
        }
        match self.length {
            PerftestLength::Iterations(n) if !(MIN_ITERS..=MAX_ITERS).contains(&n) => {
                return Err(SimError::traffic(
                    format!("{path}.iterations"),
                    format!("iterations must be {MIN_ITERS}..={MAX_ITERS}, got {n}"),
                ))
            }
            PerftestLength::Duration(0) => {
                return Err(SimError::traffic(format!("{path}.duration"), "a duration of 0 runs nothing"))
            }
            _ => {}
        }
        crate::traffic::validate_rc(path, self.path_mtu, &self.rc_flow(), net.wire.ib_path_mtu)
    }
}

/// Bandwidth results, as `ib_*_bw --report_gbits` prints them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BwReport {
    /// Messages completed.
    pub messages: u64,
    /// Bytes per message.
    pub size: u64,
    /// BW peak in Gb/s; `None` when not computed (more than [`PEAK_LIMIT`] messages).
    pub peak_gbps: Option<f64>,
    /// BW average in Gb/s.
    pub average_gbps: f64,
    /// Message rate in millions per second.
    pub msg_rate_mpps: f64,
}

/// Latency results, as `ib_*_lat` prints them (µs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatReport {
    /// Bytes per message.
    pub size: u64,
    /// Iterations run (samples + 1).
    pub iterations: u64,
    /// Smallest sample.
    pub t_min_us: f64,
    /// Largest sample.
    pub t_max_us: f64,
    /// Median.
    pub t_typical_us: f64,
    /// Mean.
    pub t_avg_us: f64,
    /// Standard deviation.
    pub t_stdev_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p99_9_us: f64,
}

/// One test's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerftestResults {
    /// Index in [`crate::Traffic::perftest`].
    pub test: usize,
    /// The tool.
    pub kind: PerftestKind,
    /// Client host.
    pub client: usize,
    /// Server host.
    pub server: usize,
    /// Flow indices (in [`crate::Results::flows`]) of its queue pairs.
    pub flows: Vec<usize>,
    /// Messages (bandwidth) or exchanges (latency) the test was to run, if counted.
    pub planned: Option<u64>,
    /// Whether it ran to the end before the simulation stopped.
    pub complete: bool,
    /// Bandwidth figures (bandwidth tests).
    pub bw: Option<BwReport>,
    /// Latency figures (latency tests with at least two iterations).
    pub lat: Option<LatReport>,
}

/// The peak bandwidth is computed over at most this many messages (the computation is
/// quadratic over `cq_mod` windows); above, it is left out.
pub const PEAK_LIMIT: usize = 50_000;

/// Bandwidth report from the post and completion times of `n` messages of `size` bytes, in
/// posting order (perftest's `print_report_bw`).
pub fn bw_report(size: u64, posted: &[Time], completed: &[Time]) -> Option<BwReport> {
    let n = posted.len().min(completed.len());
    if n == 0 {
        return None;
    }
    let first = posted[0];
    let last = completed[..n].iter().copied().max().unwrap_or(first);
    let span = last.saturating_sub(first).max(1) as f64 / SECOND as f64;
    let bytes = size as f64 * n as f64;
    let peak_gbps = (n <= PEAK_LIMIT).then(|| {
        let mut best = f64::INFINITY;
        for (i, &p) in posted[..n].iter().enumerate() {
            let mut j = (i + 1).div_ceil(CQ_MOD) * CQ_MOD - 1;
            while j < n {
                best = best.min(completed[j].saturating_sub(p) as f64 / (j - i + 1) as f64);
                j += CQ_MOD;
            }
            if n % CQ_MOD != 0 {
                let j = n - 1;
                best = best.min(completed[j].saturating_sub(p) as f64 / (j - i + 1) as f64);
            }
        }
        size as f64 * 8.0 / (best.max(1.0) / SECOND as f64) / 1e9
    });
    Some(BwReport {
        messages: n as u64,
        size,
        peak_gbps,
        average_gbps: bytes * 8.0 / span / 1e9,
        msg_rate_mpps: n as f64 / span / 1e6,
    })
}

/// Latency report from the post times of the iterations (perftest's `print_report_lat`).
pub fn lat_report(size: u64, posted: &[Time], rtt_factor: u64) -> Option<LatReport> {
    if posted.len() < 2 {
        return None;
    }
    let us = |ps: f64| ps / rtt_factor as f64 / US as f64;
    let mut d: Vec<u64> = posted.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    d.sort_unstable();
    let n = d.len();
    let median = if (n - 1) % 2 == 1 { (d[n / 2] + d[n / 2 - 1]) as f64 / 2.0 } else { d[n / 2] as f64 };
    let mean = d.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    let var = d.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n as f64;
    let at = |q: f64| d[((n as f64 * q) as usize).min(n - 1)] as f64;
    Some(LatReport {
        size,
        iterations: posted.len() as u64,
        t_min_us: us(d[0] as f64),
        t_max_us: us(d[n - 1] as f64),
        t_typical_us: us(median),
        t_avg_us: us(mean),
        t_stdev_us: us(var.sqrt()),
        p99_us: us(at(0.99)),
        p99_9_us: us(at(0.999)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_perftests() {
        let t = PerftestSpec::new(PerftestKind::WriteBw, 1, 2, FlowClass::roce(3, 26));
        assert_eq!((t.size, t.tx_depth, t.qps, t.length), (65536, 128, 1, PerftestLength::Iterations(5000)));
        let l = PerftestSpec::new(PerftestKind::WriteLat, 1, 2, FlowClass::roce(3, 26));
        assert_eq!((l.size, l.tx_depth, l.length), (2, 1, PerftestLength::Iterations(1000)));
        assert!(l.inline() && !t.inline());
        let r = PerftestSpec::new(PerftestKind::ReadBw, 1, 2, FlowClass::roce(3, 26));
        assert_eq!(r.depth(), 16, "outstanding READs are bounded by max_qp_rd_atom");
        assert_eq!(PerftestKind::ReadLat.rtt_factor(), 1);
        assert_eq!(PerftestKind::SendLat.rtt_factor(), 2);
    }

    #[test]
    fn bw_report_average_peak_and_rate() {
        // 200 messages of 1 MB, one posted every 100 us and completed 100 us later.
        let size = 1_000_000;
        let posted: Vec<Time> = (0..200u64).map(|i| i * 100 * US).collect();
        let completed: Vec<Time> = posted.iter().map(|p| p + 100 * US).collect();
        let r = bw_report(size, &posted, &completed).unwrap();
        // 200 MB over 20 ms = 80 Gb/s; 10,000 messages per second.
        assert!((r.average_gbps - 80.0).abs() < 1e-9, "{r:?}");
        assert!((r.msg_rate_mpps - 0.01).abs() < 1e-12);
        // Peak: the best run ending at a moderation point: i = 0, j = 199: 20 ms / 200 = 100 us
        // per message; i = 99, j = 99: 100 us. 1 MB per 100 us = 80 Gb/s.
        assert!((r.peak_gbps.unwrap() - 80.0).abs() < 1e-9);
        // A burst completing faster shows as a higher peak than average.
        let mut c2 = completed.clone();
        for c in c2.iter_mut().skip(100) {
            *c -= 50 * US;
        }
        let r2 = bw_report(size, &posted, &c2).unwrap();
        assert!(r2.peak_gbps.unwrap() > r2.average_gbps);
    }

    #[test]
    fn lat_report_like_perftest() {
        // Ping-pong posts 6 us apart, one 16 us gap: samples are half the gaps.
        let mut posted = vec![0u64];
        for i in 1..=100u64 {
            let gap = if i == 50 { 16 * US } else { 6 * US };
            posted.push(posted[i as usize - 1] + gap);
        }
        let r = lat_report(2, &posted, 2).unwrap();
        assert_eq!(r.iterations, 101);
        assert!((r.t_min_us - 3.0).abs() < 1e-12);
        assert!((r.t_max_us - 8.0).abs() < 1e-12);
        assert!((r.t_typical_us - 3.0).abs() < 1e-12);
        assert!((r.t_avg_us - (99.0 * 3.0 + 8.0) / 100.0).abs() < 1e-12);
        assert!((r.p99_us - 8.0).abs() < 1e-12, "index floor(100 * 0.99) = 99 is the largest");
        assert!(r.t_stdev_us > 0.0);
        assert!(lat_report(2, &posted[..1], 2).is_none());
        // READ latency is not halved.
        let r = lat_report(2, &posted, 1).unwrap();
        assert!((r.t_min_us - 6.0).abs() < 1e-12);
    }
}
