//! What the hosts send: flows with a class (priority, DSCP, ECN capability), a size or a rate,
//! start and stop times, and generators for the usual patterns (incast N:1, permutation,
//! all-to-all).
//!
//! A flow's [`Transport`] says how it is carried:
//!
//! * [`Transport::Raw`]: a RoCEv2 stream that the NIC sends open loop, without ACKs,
//!   retransmission or congestion control: a *sized* flow sends its bytes as fast as the NIC and
//!   PFC allow (or paced at `rate_bps`), a *CBR* flow sends at `rate_bps` until it stops, an
//!   *on/off* flow alternates.
//! * [`Transport::Rc`]: an RDMA Reliable Connected queue pair ([`crate::rdma`]): a sized flow is
//!   one RDMA WRITE (or READ, SEND) of its size (several of [`RcFlow::message_bytes`] when
//!   larger), complete when the requester has the last ACK — as perftest and the HPCC
//!   simulator count it; an unsized flow posts messages of `message_bytes` until it stops, at
//!   most [`RcFlow::tx_depth`] outstanding; `rate_bps` caps the QP's rate; an on/off flow sends
//!   nothing during its off periods. The NIC's congestion control (DCQCN) paces the QP below
//!   that.
//! * [`Transport::Tcp`]: a TCP connection with the hosts' stacks: a bulk transfer of the flow's
//!   size (or until it stops), `rate_bps` pacing the application's writes (iperf3's `-b`: a
//!   payload rate), complete when the last byte is in order at the receiver. [`Traffic::iperf`]
//!   groups such flows into an iperf test.
//! * [`Transport::Iwarp`]: an RC flow's messages carried by iWARP over a TCP connection,
//!   posted no faster than `rate_bps` of payload, complete when the last message completes at
//!   the requester.
//!
//! Rates count the whole frame on the wire (frame + preamble + IFG), so a 100 Gb/s CBR flow
//! exactly fills a 100 Gb/s link. The constructors ([`FlowSpec::sized`], [`FlowSpec::cbr`],
//! [`FlowSpec::greedy`]) make raw flows; [`FlowSpec::rc`] turns one into a queue pair.

use crate::error::SimError;
use crate::packet::{rocev2_frame_bytes, Ecn};
use crate::perftest::PerftestSpec;
use crate::rdma::{RdmaOp, MAX_MESSAGE_BYTES};
use crate::rng::Rng;
use crate::spec::{NetworkSpec, NodeId, MAX_FRAME_BYTES};
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// Marking of a flow's packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowClass {
    /// 802.1p priority (PCP when tagged; the NIC's PFC priority in any case).
    pub priority: u8,
    /// IP DSCP.
    pub dscp: u8,
    /// Send as ECT(0) (RoCEv2 NICs with DCQCN do) or Not-ECT.
    pub ecn_capable: bool,
    /// Send with an 802.1Q tag (needed for PCP trust).
    pub tagged: bool,
}

impl FlowClass {
    /// Tagged, ECN-capable RoCE class on `priority` with DSCP `dscp`.
    pub fn roce(priority: u8, dscp: u8) -> Self {
        FlowClass { priority, dscp, ecn_capable: true, tagged: true }
    }
}

/// Alternating on and off periods, starting with on at the flow's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OnOff {
    /// Length of an on period.
    pub on_ps: Time,
    /// Length of an off period.
    pub off_ps: Time,
}

/// How a flow is carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Transport {
    /// Open-loop RoCEv2 packets: no ACKs, no retransmission, no congestion control.
    #[default]
    Raw,
    /// An RDMA RC queue pair.
    Rc(RcFlow),
    /// A TCP connection from the source to the destination: a bulk transfer (iperf-like) with
    /// the hosts' TCP stacks ([`crate::tcp::TcpStackSpec`]).
    Tcp(TcpFlow),
    /// iWARP: RDMA messages (`op`, `message_bytes`, `tx_depth` as for [`Transport::Rc`]) over a
    /// TCP connection, framed by MPA/DDP/RDMAP ([`crate::storage::protocol::iwarp`]). No PFC,
    /// no DCQCN: TCP's congestion control.
    Iwarp(RcFlow),
}

/// The socket options of a TCP flow (iperf3's options in brackets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpFlow {
    /// Congestion control of the connection (`-C`); default the sending host's.
    pub congestion_control: Option<crate::tcp::CcKind>,
    /// `TCP_NODELAY` (`-N`): Nagle off.
    pub nodelay: bool,
    /// Socket buffer size (`-w`): the receiver's receive buffer and the sender's send buffer;
    /// default the hosts' settings.
    pub window_bytes: Option<u32>,
    /// The server's TCP port (the source port is the flow's `udp_src_port`).
    pub server_port: u16,
}

/// iperf3's default server port.
pub const IPERF_PORT: u16 = 5201;

impl Default for TcpFlow {
    fn default() -> Self {
        TcpFlow { congestion_control: None, nodelay: false, window_bytes: None, server_port: IPERF_PORT }
    }
}

/// An iperf3-like test: `streams` TCP flows (`-P`) from `client` to `server`, which are
/// [`Traffic::flows`] `first_flow..first_flow + streams`; the results add them up as iperf3
/// does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IperfSpec {
    /// Sending host (`iperf3 -c`).
    pub client: NodeId,
    /// Receiving host (`iperf3 -s`).
    pub server: NodeId,
    /// Index of its first flow.
    pub first_flow: usize,
    /// Parallel streams.
    pub streams: u32,
}

/// The queue pair of an RC flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RcFlow {
    /// RDMA operation of its messages.
    pub op: RdmaOp,
    /// Message size of an unsized flow (a sized flow is one message of its size, or messages of
    /// 2 GiB, the largest RDMA message, beyond).
    pub message_bytes: u64,
    /// Most messages posted and not completed (perftest's `--tx-depth`).
    pub tx_depth: u32,
    /// Most packets outstanding for this queue pair, in place of its NIC's
    /// ([`crate::rdma::RcConfig::window_packets`]); `None`: the NIC's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_packets: Option<u32>,
}

impl RcFlow {
    /// Messages of `op`: unsized flows in 64 KiB messages (perftest's default bandwidth-test
    /// size, `DEF_SIZE_BW`), 128 outstanding (perftest's `DEF_TX_BW`), the NIC's window.
    pub fn new(op: RdmaOp) -> Self {
        RcFlow { op, message_bytes: 65536, tx_depth: 128, window_packets: None }
    }
}

/// One flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowSpec {
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Marking.
    pub class: FlowClass,
    /// UDP source port (RoCEv2 picks one per QP; it feeds ECMP).
    pub udp_src_port: u16,
    /// Payload bytes per packet (the RoCE path MTU: 256, 512, 1024, 2048 or 4096 usually).
    pub payload_bytes: u32,
    /// Start time.
    pub start_ps: Time,
    /// Stop time (the flow sends nothing from then on); `None` = until done or end of run.
    pub stop_ps: Option<Time>,
    /// Bytes to send; `None` = unlimited.
    pub size_bytes: Option<u64>,
    /// Pacing rate in bit/s on the wire; `None` = as fast as the NIC port allows.
    pub rate_bps: Option<u64>,
    /// On/off pattern.
    pub on_off: Option<OnOff>,
    /// Open loop, or an RDMA queue pair.
    #[serde(default)]
    pub transport: Transport,
    /// The destination port the flow has in the ns-3 HPCC simulator's files: its flow file's
    /// `dport` (100 for background and 200 for incast flows, by its scripts' convention). It
    /// is the destination port of that simulator's ECMP key ([`crate::routing::Ecmp::Hpcc`]);
    /// `None`: RoCEv2's 4791. The packets themselves carry 4791.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hpcc_dport: Option<u16>,
}

impl FlowSpec {
    /// A sized flow sent at line rate.
    pub fn sized(src: NodeId, dst: NodeId, class: FlowClass, bytes: u64) -> Self {
        FlowSpec {
            src,
            dst,
            class,
            udp_src_port: 49152,
            payload_bytes: 1024,
            start_ps: 0,
            stop_ps: None,
            size_bytes: Some(bytes),
            rate_bps: None,
            on_off: None,
            transport: Transport::Raw,
            hpcc_dport: None,
        }
    }

    /// The same flow carried by an RC queue pair doing `op` (path MTU: `payload_bytes`). A
    /// sized flow is one message of its size when it is at most 2 GiB.
    pub fn rc(self, op: RdmaOp) -> Self {
        FlowSpec { transport: Transport::Rc(RcFlow::new(op)), ..self }
    }

    /// The RC queue pair, if the flow has one.
    pub fn rc_flow(&self) -> Option<&RcFlow> {
        match &self.transport {
            Transport::Rc(r) => Some(r),
            _ => None,
        }
    }

    /// The same flow over TCP with `tcp`'s socket options (`rate_bps` then paces the
    /// application's writes: iperf3's `-b`).
    pub fn tcp(self, tcp: TcpFlow) -> Self {
        FlowSpec { transport: Transport::Tcp(tcp), ..self }
    }

    /// The same flow as iWARP messages of `op` over TCP.
    pub fn iwarp(self, op: RdmaOp) -> Self {
        FlowSpec { transport: Transport::Iwarp(RcFlow::new(op)), ..self }
    }

    /// Whether the flow runs over a TCP connection (TCP or iWARP).
    pub fn over_tcp(&self) -> bool {
        matches!(self.transport, Transport::Tcp(_) | Transport::Iwarp(_))
    }

    /// Whether the flow completes when its sender has the last acknowledgement (an RC queue
    /// pair or iWARP), rather than when the last byte reaches the receiver.
    pub fn completes_at_sender(&self) -> bool {
        matches!(self.transport, Transport::Rc(_) | Transport::Iwarp(_))
    }

    /// A constant-bit-rate flow at `rate_bps` (wire rate) until the end of the run.
    pub fn cbr(src: NodeId, dst: NodeId, class: FlowClass, rate_bps: u64) -> Self {
        FlowSpec { size_bytes: None, rate_bps: Some(rate_bps), ..Self::sized(src, dst, class, 0) }
    }

    /// An unlimited flow at line rate (a saturating source).
    pub fn greedy(src: NodeId, dst: NodeId, class: FlowClass) -> Self {
        FlowSpec { size_bytes: None, ..Self::sized(src, dst, class, 0) }
    }

    /// Frame size of this flow's full-size packets.
    pub fn frame_bytes(&self) -> u32 {
        rocev2_frame_bytes(self.payload_bytes, self.class.tagged)
    }

    /// The ECN codepoint its packets carry.
    pub fn ecn(&self) -> Ecn {
        if self.class.ecn_capable {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        }
    }
}

/// A flow-size distribution for [`Traffic::poisson`].
pub trait SizeDistribution {
    /// Mean flow size in bytes (the load is divided by it).
    fn mean_bytes(&self) -> f64;
    /// A flow size drawn with the uniform variate `u` in [0, 1).
    fn sample_bytes(&self, u: f64) -> u64;
}

/// What [`Traffic::poisson`] generates.
#[derive(Clone, Copy, Debug)]
pub struct PoissonArrivals<'a, D: ?Sized> {
    /// Hosts that send and receive.
    pub hosts: &'a [NodeId],
    /// Line rate of each of `hosts` (bit/s): the load is a fraction of it.
    pub host_rate_bps: &'a [u64],
    /// Flow sizes.
    pub sizes: &'a D,
    /// Offered load per host, a fraction of its line rate.
    pub load: f64,
    /// First possible arrival.
    pub start_ps: Time,
    /// Arrivals at or after this time are dropped.
    pub end_ps: Time,
    /// Seed of arrivals, destinations and sizes.
    pub seed: u64,
}

/// All flows of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Traffic {
    /// Flows; a flow's index names it in the results.
    pub flows: Vec<FlowSpec>,
    /// perftest-style tests; each runs on queue pairs of its own, whose flows follow
    /// [`Self::flows`] in the results.
    #[serde(default)]
    pub perftest: Vec<PerftestSpec>,
    /// iperf-like tests, each a group of TCP flows of [`Self::flows`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iperf: Vec<IperfSpec>,
    /// Storage jobs, their sessions (whose queue pairs are flows of [`Self::flows`]), target
    /// devices and host cores.
    #[serde(skip)]
    pub storage: crate::storage::plan::StorageTraffic,
}

impl Traffic {
    /// No flow.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add `flow`, returning its index.
    pub fn push(&mut self, flow: FlowSpec) -> usize {
        self.flows.push(flow);
        self.flows.len() - 1
    }

    /// An iperf3-like test of `streams` parallel TCP flows, copies of `template` (a TCP flow)
    /// from `client` to `server`, with consecutive source ports; returns the test's index.
    pub fn iperf(&mut self, client: NodeId, server: NodeId, streams: u32, template: &FlowSpec) -> usize {
        let first_flow = self.flows.len();
        for k in 0..streams {
            self.push(FlowSpec {
                src: client,
                dst: server,
                udp_src_port: template.udp_src_port.wrapping_add(k as u16),
                ..*template
            });
        }
        self.iperf.push(IperfSpec { client, server, first_flow, streams });
        self.iperf.len() - 1
    }

    /// N:1 incast: every host in `senders` sends a copy of `template` to `dst`. UDP source
    /// ports are made distinct per sender.
    pub fn incast(&mut self, senders: &[NodeId], dst: NodeId, template: &FlowSpec) {
        for (i, &s) in senders.iter().enumerate() {
            self.push(FlowSpec {
                src: s,
                dst,
                udp_src_port: template.udp_src_port.wrapping_add(i as u16),
                ..*template
            });
        }
    }

    /// Random permutation: each host sends to exactly one other and receives from exactly one
    /// (a uniformly random derangement drawn from `seed`).
    pub fn permutation(&mut self, hosts: &[NodeId], seed: u64, template: &FlowSpec) {
        let n = hosts.len();
        if n < 2 {
            return;
        }
        let mut rng = Rng::new(seed);
        let mut perm: Vec<usize> = (0..n).collect();
        // Rejection sampling of a derangement: expected e ≈ 2.7 shuffles.
        loop {
            for i in (1..n).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                perm.swap(i, j);
            }
            if perm.iter().enumerate().all(|(i, &p)| i != p) {
                break;
            }
        }
        for (i, &p) in perm.iter().enumerate() {
            self.push(FlowSpec {
                src: hosts[i],
                dst: hosts[p],
                udp_src_port: template.udp_src_port.wrapping_add(i as u16),
                ..*template
            });
        }
    }

    /// All-to-all: every host sends `template` to every other host.
    pub fn all_to_all(&mut self, hosts: &[NodeId], template: &FlowSpec) {
        let mut k: u16 = 0;
        for &s in hosts {
            for &d in hosts {
                if s != d {
                    self.push(FlowSpec {
                        src: s,
                        dst: d,
                        udp_src_port: template.udp_src_port.wrapping_add(k),
                        ..*template
                    });
                    k = k.wrapping_add(1);
                }
            }
        }
    }

    /// Poisson arrivals of sized flows, as the HPCC simulator's traffic generator makes them
    /// (`traffic_gen/traffic_gen.py` of alibaba-edu/High-Precision-Congestion-Control): every
    /// host of `a.hosts` starts flows at exponentially distributed intervals whose mean makes
    /// the offered load `a.load` of its line rate — mean size × 8 / mean interval =
    /// load × rate — each to a host drawn uniformly from the others (redrawn while it is the
    /// sender), with a size drawn from `a.sizes`. One generator seeded with `a.seed` serves all
    /// hosts in arrival order (as the generator's heap of hosts does), and every flow's UDP
    /// source port is the next of its sender (`template.udp_src_port` onwards, like HPCC's
    /// per-host port counter), so a run is a pure function of the seed.
    ///
    /// Arrivals in `[a.start_ps, a.end_ps)` are kept. The HPCC generator drops each host's last
    /// arrival of the window (it tests the *next* arrival time against the end); rocelab keeps
    /// it, so the offered load is the stated one. Sizes are the CDF's quantile truncated to
    /// whole bytes, at least one, as there. Hosts with a zero rate start nothing. Flows are
    /// appended in start order; their index range is returned.
    pub fn poisson<D: SizeDistribution + ?Sized>(
        &mut self,
        a: &PoissonArrivals<'_, D>,
        template: &FlowSpec,
    ) -> std::ops::Range<usize> {
        use std::cmp::Reverse;
        let first = self.flows.len();
        let n = a.hosts.len();
        let mean = a.sizes.mean_bytes();
        if n < 2 || a.load.is_nan() || a.load <= 0.0 || mean.is_nan() || mean <= 0.0 {
            return first..first;
        }
        let mut rng = Rng::new(a.seed);
        // Mean interval between a host's arrivals, in picoseconds.
        let mean_gap: Vec<f64> = (0..n)
            .map(|i| {
                let rate = a.host_rate_bps.get(i).copied().unwrap_or(0) as f64;
                if rate > 0.0 {
                    mean * 8.0 / (rate * a.load) * crate::time::SECOND as f64
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        let gap = |rng: &mut Rng, i: usize| -> Option<Time> {
            let g = -(1.0 - rng.next_f64()).ln() * mean_gap[i];
            (g.is_finite() && g < (Time::MAX / 4) as f64).then(|| g.round() as Time)
        };
        let mut next_port = vec![0u16; n];
        let mut heap = std::collections::BinaryHeap::with_capacity(n);
        for i in 0..n {
            if let Some(g) = gap(&mut rng, i) {
                heap.push(Reverse((a.start_ps.saturating_add(g), i)));
            }
        }
        while let Some(Reverse((t, i))) = heap.pop() {
            if t >= a.end_ps {
                continue;
            }
            let next = gap(&mut rng, i);
            let mut j = rng.below(n as u64) as usize;
            while j == i {
                j = rng.below(n as u64) as usize;
            }
            let size = a.sizes.sample_bytes(rng.next_f64()).max(1);
            let port = template.udp_src_port.wrapping_add(next_port[i]);
            next_port[i] = next_port[i].wrapping_add(1);
            self.push(FlowSpec {
                src: a.hosts[i],
                dst: a.hosts[j],
                udp_src_port: port,
                start_ps: t,
                stop_ps: None,
                size_bytes: Some(size),
                ..*template
            });
            if let Some(g) = next {
                heap.push(Reverse((t.saturating_add(g), i)));
            }
        }
        first..self.flows.len()
    }

    /// Check every flow against the network.
    pub fn validate(&self, net: &NetworkSpec) -> Result<(), SimError> {
        for (i, f) in self.flows.iter().enumerate() {
            let path = format!("flows[{i}]");
            for (what, n) in [("src", f.src), ("dst", f.dst)] {
                if !net.is_host(n) {
                    return Err(SimError::traffic(
                        format!("{path}.{what}"),
                        format!("node {n} is not a host; flows run between hosts"),
                    ));
                }
            }
            if f.src == f.dst {
                return Err(SimError::traffic(path, "source and destination are the same host"));
            }
            if f.class.priority > 7 || f.class.dscp > 63 {
                return Err(SimError::traffic(format!("{path}.class"), "priority is 0..=7 and DSCP 0..=63"));
            }
            if f.payload_bytes == 0 || f.frame_bytes() > MAX_FRAME_BYTES {
                return Err(SimError::traffic(
                    format!("{path}.payload_bytes"),
                    format!(
                        "payload per packet must be 1..={} bytes, got {}",
                        MAX_FRAME_BYTES - crate::packet::rocev2_header_bytes(true),
                        f.payload_bytes
                    ),
                ));
            }
            if f.rate_bps == Some(0) {
                return Err(SimError::traffic(
                    format!("{path}.rate_bps"),
                    "rate 0 sends nothing; remove the flow or give a rate",
                ));
            }
            if f.size_bytes == Some(0) {
                return Err(SimError::traffic(
                    format!("{path}.size_bytes"),
                    "size 0 sends nothing; remove the flow or give a size",
                ));
            }
            if let Some(o) = f.on_off {
                if o.on_ps == 0 {
                    return Err(SimError::traffic(format!("{path}.on_off"), "on period 0 sends nothing"));
                }
            }
            if f.stop_ps.is_some_and(|s| s <= f.start_ps) {
                return Err(SimError::traffic(format!("{path}.stop_ps"), "stop is not after start"));
            }
            match f.transport {
                Transport::Rc(rc) => validate_rc(&path, f.payload_bytes, &rc, net.wire.ib_path_mtu)?,
                Transport::Iwarp(rc) => validate_message(&path, &rc)?,
                Transport::Raw | Transport::Tcp(_) => {}
            }
            if let Transport::Tcp(t) = f.transport {
                if t.window_bytes.is_some_and(|w| w < 2048) {
                    return Err(SimError::traffic(
                        format!("{path}.transport.window_bytes"),
                        "the socket buffer must hold a segment (2048 bytes or more)",
                    ));
                }
            }
            if f.over_tcp() && f.on_off.is_some() {
                return Err(SimError::traffic(
                    format!("{path}.on_off"),
                    "on/off applies to raw and RC flows; a TCP or iWARP flow sends until it stops",
                ));
            }
        }
        for (i, t) in self.iperf.iter().enumerate() {
            let flows = self.flows.get(t.first_flow..t.first_flow + t.streams as usize);
            let ok = t.streams > 0
                && flows.is_some_and(|fs| {
                    fs.iter()
                        .all(|f| matches!(f.transport, Transport::Tcp(_)) && f.src == t.client && f.dst == t.server)
                });
            if !ok {
                return Err(SimError::traffic(
                    format!("iperf[{i}]"),
                    "an iperf test names its TCP flows from client to server; build it with Traffic::iperf",
                ));
            }
        }
        for (i, t) in self.perftest.iter().enumerate() {
            t.validate(&format!("perftest[{i}]"), net)?;
        }
        self.storage.validate(net, self.flows.len())
    }
}

/// Check the queue pair of a flow (or of a perftest test) at `path`.
/// Unless `ib_path_mtu` is off ([`crate::spec::WireSpec::ib_path_mtu`]), its payload per packet
/// must be an InfiniBand path MTU.
pub(crate) fn validate_rc(path: &str, path_mtu: u32, rc: &RcFlow, ib_path_mtu: bool) -> Result<(), SimError> {
    if ib_path_mtu && !crate::rdma::wire::PATH_MTUS.contains(&path_mtu) {
        return Err(SimError::traffic(
            format!("{path}.payload_bytes"),
            format!("an RC queue pair's path MTU is 256, 512, 1024, 2048 or 4096 bytes, got {path_mtu}"),
        ));
    }
    validate_message(path, rc)
}

/// Check the message size and depth of an RC or iWARP flow.
fn validate_message(path: &str, rc: &RcFlow) -> Result<(), SimError> {
    if rc.message_bytes == 0 || rc.message_bytes > MAX_MESSAGE_BYTES {
        return Err(SimError::traffic(
            format!("{path}.transport.message_bytes"),
            format!("an RDMA message is 1 byte to 2 GiB ({MAX_MESSAGE_BYTES} bytes), got {}", rc.message_bytes),
        ));
    }
    if rc.tx_depth == 0 {
        return Err(SimError::traffic(format!("{path}.transport.tx_depth"), "tx_depth 0 posts nothing; use 1 or more"));
    }
    if rc.window_packets.is_some_and(|w| w == 0 || w > crate::rdma::RcConfig::NO_WINDOW) {
        return Err(SimError::traffic(
            format!("{path}.transport.window_packets"),
            format!(
                "a window is 1 to {} packets (half the 24-bit PSN space); use None for none",
                crate::rdma::RcConfig::NO_WINDOW
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incast_and_all_to_all_shapes() {
        let t0 = FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 1 << 20);
        let mut t = Traffic::new();
        t.incast(&[1, 2, 3], 9, &t0);
        assert_eq!(t.flows.len(), 3);
        assert!(t.flows.iter().all(|f| f.dst == 9));
        let ports: Vec<u16> = t.flows.iter().map(|f| f.udp_src_port).collect();
        assert_eq!(ports, vec![49152, 49153, 49154]);
        let mut a = Traffic::new();
        a.all_to_all(&[1, 2, 3, 4], &t0);
        assert_eq!(a.flows.len(), 12);
        assert!(a.flows.iter().all(|f| f.src != f.dst));
    }

    /// Sizes of a storage-like mix for the generator's tests: half the flows 4-8 KB blocks,
    /// most of the rest up to 64 KB, a tail to 1 MB (mean 70.6 KB).
    fn storage_like() -> rocelab_model::cdf::FlowSizeCdf {
        rocelab_model::cdf::FlowSizeCdf::new(vec![
            (4_000.0, 0.0),
            (8_000.0, 50.0),
            (64_000.0, 90.0),
            (1_000_000.0, 100.0),
        ])
        .unwrap()
    }

    fn arrivals(seed: u64, duration: Time) -> Traffic {
        let hosts: Vec<NodeId> = (0..16).collect();
        let rates = vec![100_000_000_000; 16];
        let cdf = storage_like();
        let a = PoissonArrivals {
            hosts: &hosts,
            host_rate_bps: &rates,
            sizes: &cdf,
            load: 0.3,
            start_ps: 0,
            end_ps: duration,
            seed,
        };
        let mut t = Traffic::new();
        t.poisson(&a, &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 1));
        t
    }

    #[test]
    fn poisson_offers_the_load_with_the_cdf_mean() {
        let duration = 40 * crate::time::MS;
        let t = arrivals(1, duration);
        let cdf = storage_like();
        assert_eq!(cdf.mean(), 70_600.0, "0.5 x 6 KB + 0.4 x 36 KB + 0.1 x 532 KB");
        // 16 hosts x 30 Gb/s for 40 ms of 70.6 KB flows: about 34,000 flows.
        let n = t.flows.len() as f64;
        let bytes: u64 = t.flows.iter().map(|f| f.size_bytes.unwrap()).sum();
        // Tolerances: the flow count is Poisson (sd 0.5 %); sizes have a coefficient of
        // variation of 2.5, so their mean over 34,000 flows has an sd of 1.4 %: 5 % is 3.5 sd.
        let mean = bytes as f64 / n;
        assert!((mean / cdf.mean() - 1.0).abs() < 0.05, "mean size {mean} vs {}", cdf.mean());
        let offered = bytes as f64 * 8.0 / (16.0 * 100e9 * 0.04);
        assert!((offered / 0.3 - 1.0).abs() < 0.05, "offered load {offered}");
        // Everything inside the window, in start order, between distinct hosts.
        assert!(t.flows.windows(2).all(|w| w[0].start_ps <= w[1].start_ps));
        assert!(t.flows.iter().all(|f| f.src != f.dst && f.start_ps < duration));
        // Every host sends, and destinations are spread: each receives within 20 % of 1/16.
        let mut recv = [0usize; 16];
        t.flows.iter().for_each(|f| recv[f.dst] += 1);
        assert!(recv.iter().all(|&r| (r as f64 / (n / 16.0) - 1.0).abs() < 0.2), "{recv:?}");
    }

    #[test]
    fn poisson_is_seeded() {
        let ms = crate::time::MS;
        assert_eq!(arrivals(7, ms), arrivals(7, ms));
        assert_ne!(arrivals(7, ms), arrivals(8, ms));
        // Each sender's ports count up from the template's.
        let t = arrivals(7, ms);
        let ports: Vec<u16> = t.flows.iter().filter(|f| f.src == 3).map(|f| f.udp_src_port).take(3).collect();
        assert_eq!(ports, [49152, 49153, 49154]);
    }

    #[test]
    fn rc_flows_and_perftest_runs_are_validated() {
        use crate::topology::{single_switch, FabricDefaults};
        let f = single_switch(2, 100_000_000_000, 1000, &FabricDefaults::lossless(3, 64_000));
        let class = FlowClass::roce(3, 26);
        let mut t = Traffic::new();
        t.push(FlowSpec {
            payload_bytes: 1500,
            ..FlowSpec::sized(f.hosts[0], f.hosts[1], class, 10).rc(RdmaOp::Write)
        });
        let e = t.validate(&f.spec).unwrap_err().to_string();
        assert!(e.contains("flows[0].payload_bytes") && e.contains("256, 512, 1024, 2048 or 4096"), "{e}");
        let mut t = Traffic::new();
        let mut big = FlowSpec::sized(f.hosts[0], f.hosts[1], class, 10).rc(RdmaOp::Send);
        if let Transport::Rc(r) = &mut big.transport {
            r.message_bytes = MAX_MESSAGE_BYTES + 1;
        }
        t.push(big);
        assert!(t.validate(&f.spec).unwrap_err().to_string().contains("message_bytes"));
        let unsized_flow = FlowSpec::greedy(f.hosts[0], f.hosts[1], class).rc(RdmaOp::Write);
        assert_eq!(unsized_flow.rc_flow().unwrap().message_bytes, 65536, "perftest's DEF_SIZE_BW");
        let mut t = Traffic::new();
        let mut p = PerftestSpec::new(crate::perftest::PerftestKind::WriteLat, f.hosts[0], f.hosts[1], class);
        p.qps = 2;
        t.perftest.push(p);
        assert!(t.validate(&f.spec).unwrap_err().to_string().contains("perftest[0].qps"));
        t.perftest[0].qps = 1;
        t.perftest[0].size = 0;
        assert!(t.validate(&f.spec).unwrap_err().to_string().contains("perftest[0].size"));
        t.perftest[0].size = 2;
        t.perftest[0].server = f.hosts[0];
        assert!(t.validate(&f.spec).unwrap_err().to_string().contains("same host"));
    }

    #[test]
    fn permutation_is_a_derangement_and_seeded() {
        let hosts: Vec<NodeId> = (10..42).collect();
        let t0 = FlowSpec::greedy(0, 0, FlowClass::roce(3, 26));
        let mut a = Traffic::new();
        a.permutation(&hosts, 5, &t0);
        let mut dsts: Vec<NodeId> = a.flows.iter().map(|f| f.dst).collect();
        assert!(a.flows.iter().all(|f| f.src != f.dst));
        dsts.sort();
        assert_eq!(dsts, hosts, "everyone receives exactly once");
        let mut b = Traffic::new();
        b.permutation(&hosts, 5, &t0);
        assert_eq!(a, b);
        let mut c = Traffic::new();
        c.permutation(&hosts, 6, &t0);
        assert_ne!(a, c);
    }
}
