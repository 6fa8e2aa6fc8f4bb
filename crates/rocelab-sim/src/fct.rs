//! Flow completion time (FCT) statistics: for every sized flow its completion time and its
//! slowdown — the FCT over the same flow's FCT alone on an empty network — percentiles by flow
//! size, and the HPCC simulator's `fct.txt` so that the two simulators can be compared line by
//! line.
//!
//! **Standalone FCT.** The HPCC simulator computes it in `qp_finish` (`simulation/scratch/
//! third.cc` of alibaba-edu/High-Precision-Congestion-Control) as the base RTT of the pair of
//! hosts plus the flow's bytes with their headers at the bottleneck rate of the path:
//!
//! ```text
//! standalone = base_rtt + (size + packets × headers) × 8 / bottleneck
//! base_rtt   = 2 × Σ link delays + Σ one payload-sized packet's serialization per hop
//! ```
//!
//! Its flows complete when the sender has the last ACK, hence a round trip. rocelab computes
//! the same two terms from its own routes, link rates and delays (propagation plus each
//! receiving node's forwarding latency), with frames sized as on the wire (headers, padding,
//! preamble and inter-frame gap), for the completion its flows have ([`Completion`]):
//!
//! * [`Completion::LastAckAtSender`] — HPCC's formula as above, its base RTT over the path's
//!   links. Where the receiving host drains into memory more slowly than the links bring the
//!   bytes, that drain is the bottleneck, and its bytes carry no link's preamble and gap. The
//!   formula counts a full payload's serialization on every link, the bottleneck's included,
//!   and leaves out the NICs' latencies. So it is not a strict lower bound of what the engine
//!   gives an RDMA flow alone, but close: over seeds 1-10 of `examples/sim-flows-leaf-spine.yaml`
//!   the smallest slowdown is 1.0013.
//! * [`Completion::LastByteDelivered`] — the open-loop flows of this engine complete when their
//!   last byte reaches the receiving host, so the base term is one way: the delays of the path,
//!   plus the store-and-forward of the first frame on the hops before the bottleneck and of the
//!   last frame on the hops after it (the bytes term already counts the bottleneck; HPCC's
//!   round-trip base counts one packet on every hop instead). The bottleneck is the hop that
//!   makes this largest, and a host receive buffer with a drain rate is one more hop. The result
//!   is what the engine takes for a flow alone, up to rounding of one frame time at most, and
//!   never more, so slowdowns are ≥ 1.
//!
//! The path is the one that takes the first equal-cost next hop everywhere, as HPCC takes its
//! breadth-first tree's; on fabrics whose equal-cost paths differ in rate or delay the
//! standalone FCT is that path's.

#[cfg(test)]
use crate::packet::rocev2_frame_bytes;
use crate::packet::{rocev2_header_bytes, wire};
use crate::routing::{Routes, Topology};
use crate::spec::{NetworkSpec, NodeKind};
use crate::stats::Results;
use crate::time::{Time, SECOND};
use crate::traffic::{FlowSpec, Traffic, Transport};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// What completes a sized flow, i.e. what [`crate::FlowResults::completion_ps`] measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Completion {
    /// The last byte reached the receiving host (open-loop flows, no transport).
    LastByteDelivered,
    /// The sender received the acknowledgement of the last byte (a reliable transport; the
    /// HPCC simulator's `qp_finish`).
    LastAckAtSender,
}

/// One hop of a path as the standalone FCT sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Rate (bit/s).
    pub rate_bps: u64,
    /// From the end of a frame's serialization to its handling at the next node: propagation
    /// plus that node's latency.
    pub delay_ps: Time,
    /// Bytes serialized per frame beyond the frame itself (preamble and gap on a link, none
    /// into host memory).
    pub overhead_bytes: u32,
    /// A link, or else the receiving host's drain into memory (which HPCC's base RTT, a sum
    /// over links, does not have).
    pub link: bool,
}

/// The paths of a network: its routes and what each port's link is.
pub struct Paths {
    routes: Routes,
    /// Bytes each frame takes on the wire beyond itself.
    overhead: u32,
    /// Per global port: (peer node, rate, propagation + the peer node's latency).
    link: Vec<(u32, u64, Time)>,
    /// Per node: a host's receive drain rate, if it has one.
    drain: Vec<Option<u64>>,
}

impl Paths {
    /// Routes of `spec`, computed as the engine computes them.
    pub fn new(spec: &NetworkSpec) -> Paths {
        let n = spec.nodes.len();
        let first = spec.first_ports();
        let total = first[n];
        let latency = |node: usize| match &spec.nodes[node].kind {
            NodeKind::Host(h) => h.latency_ps,
            NodeKind::Switch(s) => s.latency_ps,
        };
        let mut link = vec![(u32::MAX, 0, 0); total as usize];
        let mut adjacency: Vec<Vec<(u32, u32)>> = (0..n).map(|_| Vec::new()).collect();
        // The standby links of an active-backup bond carry nothing: routing does not see them.
        for l in spec.links.iter().filter(|l| spec.routes_over(l.a, l.b)) {
            let (ga, gb) = (first[l.a.node] + l.a.port as u32, first[l.b.node] + l.b.port as u32);
            link[ga as usize] = (l.b.node as u32, l.rate_bps, l.delay_ps + latency(l.b.node));
            link[gb as usize] = (l.a.node as u32, l.rate_bps, l.delay_ps + latency(l.a.node));
        }
        for (node, adj) in adjacency.iter_mut().enumerate() {
            for g in first[node]..first[node + 1] {
                if link[g as usize].0 != u32::MAX {
                    adj.push((g, link[g as usize].0));
                }
            }
        }
        let is_host: Vec<bool> = (0..n).map(|i| spec.is_host(i)).collect();
        let routes = Routes::compute(&Topology::nodes(&adjacency, &is_host));
        let drain = spec
            .nodes
            .iter()
            .map(|nd| match &nd.kind {
                NodeKind::Host(h) => h.rx.drain_bps,
                NodeKind::Switch(_) => None,
            })
            .collect();
        Paths { routes, link, drain, overhead: spec.wire.overhead_bytes as u32 }
    }

    /// The hops from host `src` to host `dst` (see the module's note on equal-cost paths), the
    /// receiving host's drain last when it has one.
    pub fn hops(&self, src: usize, dst: usize) -> Option<Vec<Hop>> {
        let ports = self.routes.first_path(src as u32, dst as u32, |p| self.link[p as usize].0)?;
        let mut hops: Vec<Hop> = ports
            .iter()
            .map(|&p| {
                let (_, rate_bps, delay_ps) = self.link[p as usize];
                Hop { rate_bps, delay_ps, overhead_bytes: self.overhead, link: true }
            })
            .collect();
        if let Some(rate_bps) = self.drain.get(dst).copied().flatten() {
            hops.push(Hop { rate_bps, delay_ps: 0, overhead_bytes: 0, link: false });
        }
        Some(hops)
    }
}

/// Serialization of `bytes` at `rate_bps`, rounded up (one frame, as the engine does).
fn ser_up(bytes: u64, rate_bps: u64) -> Time {
    crate::time::serialization_time(bytes, rate_bps.max(1))
}

/// Serialization of `bytes` at `rate_bps`, rounded down (a sum of frames the engine rounds up
/// one by one, so that the standalone FCT never exceeds the engine's).
fn ser_down(bytes: u64, rate_bps: u64) -> Time {
    ((bytes as u128 * 8 * SECOND as u128) / rate_bps.max(1) as u128).min(Time::MAX as u128) as Time
}

/// How a flow's bytes are cut into frames: payload bytes per full packet, and the bytes of
/// header (and trailer) around each packet's payload; frames are at least 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    /// Payload per full packet.
    pub payload: u32,
    /// Header and trailer bytes of a packet.
    pub header: u32,
    /// Smallest frame: 64 bytes on Ethernet, none under a simulator's own framing.
    pub min_frame: u32,
}

impl Framing {
    /// RoCEv2 packets of the flow's `payload_bytes`.
    pub fn rocev2(flow: &FlowSpec) -> Framing {
        Framing {
            payload: flow.payload_bytes.max(1),
            header: rocev2_header_bytes(flow.class.tagged),
            min_frame: wire::MIN_FRAME,
        }
    }

    /// The framing of `flow` over `spec`'s hosts: RoCEv2 packets; TCP segments of the
    /// connection's MSS; for iWARP, FPDUs of RDMA WRITE payload, one per segment, whose MPA/DDP
    /// header and CRC count as header.
    pub fn of(spec: &NetworkSpec, flow: &FlowSpec) -> Framing {
        let (mss, timestamps) = crate::tcp::stack::flow_mss(spec, flow.src, flow.dst);
        let tcp = crate::tcp::tcp_header_bytes(flow.class.tagged, timestamps);
        let min_frame = wire::MIN_FRAME;
        match flow.transport {
            // The network's own framing of RDMA packets, where it has one (`WireSpec`).
            Transport::Raw | Transport::Rc(_) => match spec.wire.header_bytes {
                Some(header) => Framing { payload: flow.payload_bytes.max(1), header, min_frame: 0 },
                None => Framing::rocev2(flow),
            },
            Transport::Tcp(_) => Framing { payload: mss, header: tcp, min_frame },
            Transport::Iwarp(_) => {
                use crate::storage::protocol::iwarp::{max_payload, stream_bytes};
                let per = max_payload(mss, true);
                let fpdu = stream_bytes(per, mss, true).1 as u32;
                Framing { payload: per, header: tcp + fpdu - per, min_frame }
            }
        }
    }

    fn frame(&self, payload: u64) -> u64 {
        (self.header as u64 + payload).max(self.min_frame as u64)
    }
}

/// The standalone FCT of `flow` (its size, packet payload and RoCEv2 framing) over `hops`, for
/// the given completion (see the module documentation). `None` for a flow without a size or path.
pub fn standalone_fct_ps(hops: &[Hop], flow: &FlowSpec, completion: Completion) -> Option<Time> {
    standalone_fct_framed(hops, flow.size_bytes?, Framing::rocev2(flow), completion)
}

/// [`standalone_fct_ps`] for `size` bytes cut by `framing`.
pub fn standalone_fct_framed(hops: &[Hop], size: u64, framing: Framing, completion: Completion) -> Option<Time> {
    if size == 0 || hops.is_empty() {
        return None;
    }
    let payload = framing.payload.max(1) as u64;
    let packets = size.div_ceil(payload);
    let last_payload = size - (packets - 1) * payload;
    let frame = |p: u64| framing.frame(p);
    let (first_frame, last_frame) = (frame(payload.min(size)), frame(last_payload));
    let frame_bytes = (packets - 1) * frame(payload) + last_frame;
    let bytes_on = |h: &Hop| frame_bytes + packets * h.overhead_bytes as u64;
    let delays: Time = hops.iter().map(|h| h.delay_ps).sum();
    match completion {
        Completion::LastAckAtSender => {
            // HPCC's base RTT: one payload's serialization per link of the path.
            let links = hops.iter().filter(|h| h.link);
            let base_rtt = 2 * delays + links.map(|h| ser_down(payload, h.rate_bps)).sum::<Time>();
            // HPCC's bytes at the bottleneck rate, here at the hop where the bytes take longest,
            // each hop with its own overhead: on links (HPCC's only hops) the lowest rate, as in
            // HPCC; a host drain slower than the links is the bottleneck without a link's
            // preamble and gap.
            let bottleneck = hops.iter().map(|h| ser_down(bytes_on(h), h.rate_bps)).max()?;
            Some(base_rtt + bottleneck)
        }
        Completion::LastByteDelivered => {
            let before: Vec<Time> =
                hops.iter().map(|h| ser_up(first_frame + h.overhead_bytes as u64, h.rate_bps)).collect();
            let after: Vec<Time> =
                hops.iter().map(|h| ser_up(last_frame + h.overhead_bytes as u64, h.rate_bps)).collect();
            let through = (0..hops.len()).map(|k| {
                before[..k].iter().sum::<Time>()
                    + ser_down(bytes_on(&hops[k]), hops[k].rate_bps)
                    + after[k + 1..].iter().sum::<Time>()
            });
            Some(delays + through.max()?)
        }
    }
}

/// p50, p95 and p99 of a set of values, by nearest rank (the smallest value with at least that
/// share of the set at or below it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Percentiles<T> {
    pub p50: T,
    pub p95: T,
    pub p99: T,
}

impl<T: Copy + PartialOrd> Percentiles<T> {
    /// Of `values` (sorted here); `None` when empty.
    pub fn of(values: &mut [T]) -> Option<Self> {
        values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let rank = |per_mille| nearest_rank(values, per_mille);
        Some(Percentiles { p50: rank(500)?, p95: rank(950)?, p99: rank(990)? })
    }
}

/// The `per_mille` / 1000 percentile of `sorted` (ascending) by nearest rank: the smallest value
/// with at least that share of the set at or below it. Integer arithmetic, so that p99 of 100
/// values is the 99th whatever floating point makes of 0.99 × 100. `None` when empty.
pub fn nearest_rank<T: Copy>(sorted: &[T], per_mille: usize) -> Option<T> {
    let n = sorted.len();
    (n > 0).then(|| sorted[(n * per_mille).div_ceil(1000).clamp(1, n) - 1])
}

/// One sized flow's completion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowFct {
    /// Index in [`crate::Traffic::flows`].
    pub flow: usize,
    pub size_bytes: u64,
    pub start_ps: Time,
    /// Completion time, if the flow completed in the run.
    pub fct_ps: Option<Time>,
    /// FCT alone on an empty network.
    pub standalone_fct_ps: Time,
    /// `fct / standalone`, if completed.
    pub slowdown: Option<f64>,
}

/// FCT and slowdown percentiles of the flows in a size range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FctBucket {
    /// E.g. `10KB-100KB`.
    pub label: String,
    /// Smallest size in the bucket (bytes).
    pub min_bytes: u64,
    /// Sizes are below this; `None` for the last bucket.
    pub max_bytes: Option<u64>,
    /// Sized flows in the range.
    pub flows: u64,
    /// Of which completed in the run (only these enter the percentiles).
    pub completed: u64,
    pub fct_ps: Option<Percentiles<Time>>,
    pub slowdown: Option<Percentiles<f64>>,
}

/// Upper bounds of the flow-size buckets, bytes (decimal): decades from 1 KB to 10 MB. They
/// span the published workloads, from RPCs of a few hundred bytes (Google's RPC sizes) to the
/// 30 MB tail of web search, and refine the small (< 100 KB) / large split of the HPCC and
/// pFabric evaluations.
pub const BUCKET_EDGES: [u64; 5] = [1_000, 10_000, 100_000, 1_000_000, 10_000_000];

fn bucket_label(lo: u64, hi: Option<u64>) -> String {
    let s = |b: u64| match b {
        b if b >= 1_000_000 => format!("{}MB", b / 1_000_000),
        b if b >= 1_000 => format!("{}KB", b / 1_000),
        b => format!("{b}B"),
    };
    match (lo, hi) {
        (0, Some(h)) => format!("<{}", s(h)),
        (l, Some(h)) => format!("{}-{}", s(l), s(h)),
        (l, None) => format!(">={}", s(l)),
    }
}

/// FCT results of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FctReport {
    /// What completes a flow in this run, and so how the standalone FCT was computed.
    pub completion: Completion,
    /// Every sized flow with a path, in flow order.
    pub flows: Vec<FlowFct>,
    /// Flow-size buckets that have flows (see [`BUCKET_EDGES`]).
    pub buckets: Vec<FctBucket>,
    /// All sized flows.
    pub overall: FctBucket,
}

impl FctReport {
    /// The FCT report of a run of `traffic` over `spec`; `None` when no flow has a size.
    /// `completion` is what completes an open-loop flow; an RDMA flow (a queue pair) always
    /// completes at the last ACK ([`Completion::LastAckAtSender`]), and the report says so when
    /// every sized flow is one.
    pub fn compute(spec: &NetworkSpec, traffic: &Traffic, results: &Results, completion: Completion) -> Option<Self> {
        if traffic.flows.iter().all(|f| f.size_bytes.is_none()) {
            return None;
        }
        let paths = Paths::new(spec);
        let mut cache: std::collections::HashMap<(usize, usize), Option<Vec<Hop>>> = Default::default();
        let mut flows = Vec::new();
        for (i, f) in traffic.flows.iter().enumerate() {
            let Some(size) = f.size_bytes else { continue };
            let hops = cache.entry((f.src, f.dst)).or_insert_with(|| paths.hops(f.src, f.dst));
            let c = if f.completes_at_sender() { Completion::LastAckAtSender } else { completion };
            let framing = Framing::of(spec, f);
            let Some(standalone) = hops.as_deref().and_then(|h| standalone_fct_framed(h, size, framing, c)) else {
                continue;
            };
            let fct = results.flows.get(i).and_then(|r| r.fct_ps);
            flows.push(FlowFct {
                flow: i,
                size_bytes: size,
                start_ps: f.start_ps,
                fct_ps: fct,
                standalone_fct_ps: standalone,
                slowdown: fct.map(|t| t as f64 / standalone.max(1) as f64),
            });
        }
        let bucket = |lo: u64, hi: Option<u64>| -> FctBucket {
            let members = flows.iter().filter(|f| f.size_bytes >= lo && hi.is_none_or(|h| f.size_bytes < h));
            let (mut n, mut fcts, mut slow) = (0, Vec::new(), Vec::new());
            for f in members {
                n += 1;
                if let (Some(t), Some(s)) = (f.fct_ps, f.slowdown) {
                    fcts.push(t);
                    slow.push(s);
                }
            }
            FctBucket {
                label: if lo == 0 && hi.is_none() { "all".into() } else { bucket_label(lo, hi) },
                min_bytes: lo,
                max_bytes: hi,
                flows: n,
                completed: fcts.len() as u64,
                fct_ps: Percentiles::of(&mut fcts),
                slowdown: Percentiles::of(&mut slow),
            }
        };
        let mut lows = vec![0];
        lows.extend(BUCKET_EDGES);
        let buckets = lows
            .iter()
            .enumerate()
            .map(|(k, &lo)| bucket(lo, BUCKET_EDGES.get(k).copied()))
            .filter(|b| b.flows > 0)
            .collect();
        let overall = bucket(0, None);
        let all_rc = traffic.flows.iter().filter(|f| f.size_bytes.is_some()).all(|f| f.completes_at_sender());
        let completion = if all_rc { Completion::LastAckAtSender } else { completion };
        Some(FctReport { completion, flows, buckets, overall })
    }

    /// The HPCC simulator's `fct.txt`: one line per completed flow, in completion order, as its
    /// `qp_finish` prints them —
    /// `sip dip sport dport size start_ns fct_ns standalone_fct_ns` — with addresses as 8 hex
    /// digits as that simulator gives them ([`crate::routing::hpcc_ip`] of the node index, so
    /// that an imported topology's node ids are that simulator's). `dport` gives the
    /// destination-port column of each flow (HPCC's analysis scripts tell background flows
    /// (100) from incast flows (200) by it).
    pub fn hpcc_fct_txt(&self, traffic: &Traffic, dport: impl Fn(usize) -> u16) -> String {
        let mut done: Vec<&FlowFct> = self.flows.iter().filter(|f| f.fct_ps.is_some()).collect();
        done.sort_by_key(|f| (f.start_ps + f.fct_ps.unwrap_or(0), f.flow));
        let mut out = String::with_capacity(done.len() * 64);
        for f in done {
            let spec = &traffic.flows[f.flow];
            let _ = writeln!(
                out,
                "{:08x} {:08x} {} {} {} {} {} {}",
                crate::routing::hpcc_ip(spec.src as u32),
                crate::routing::hpcc_ip(spec.dst as u32),
                spec.udp_src_port,
                dport(f.flow),
                f.size_bytes,
                f.start_ps / 1000,
                f.fct_ps.unwrap_or(0) / 1000,
                f.standalone_fct_ps / 1000
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::FlowClass;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = Percentiles::of(&mut v).unwrap();
        assert_eq!((p.p50, p.p95, p.p99), (50.0, 95.0, 99.0));
        let mut v: Vec<Time> = vec![7, 3, 5];
        let p = Percentiles::of(&mut v).unwrap();
        assert_eq!((p.p50, p.p95, p.p99), (5, 7, 7));
        let mut one = vec![4u64];
        assert_eq!(Percentiles::of(&mut one).unwrap().p50, 4);
        assert_eq!(Percentiles::<Time>::of(&mut []), None);
    }

    #[test]
    fn bucket_labels() {
        assert_eq!(bucket_label(0, Some(1_000)), "<1KB");
        assert_eq!(bucket_label(10_000, Some(100_000)), "10KB-100KB");
        assert_eq!(bucket_label(10_000_000, None), ">=10MB");
    }

    /// Two hops: a 100G host link with 1 µs, then a 25G link with 2 µs and a 100 ns receiving
    /// host; untagged 1000-byte payloads (frame 1062 B, 1082 B on the wire).
    fn two_hops() -> (Vec<Hop>, FlowSpec) {
        let hops = vec![
            Hop { rate_bps: 100_000_000_000, delay_ps: 1_000_000, overhead_bytes: 20, link: true },
            Hop { rate_bps: 25_000_000_000, delay_ps: 2_100_000, overhead_bytes: 20, link: true },
        ];
        let mut f = FlowSpec::sized(0, 1, FlowClass { tagged: false, ..FlowClass::roce(3, 26) }, 2_500);
        f.payload_bytes = 1000;
        (hops, f)
    }

    #[test]
    fn standalone_by_hand() {
        let (hops, f) = two_hops();
        // 2,500 bytes: frames of 1000, 1000 and 500 payload bytes = 1062 + 1062 + 562 = 2686 B,
        // 2746 B with preamble and gap.
        assert_eq!(rocev2_frame_bytes(1000, false), 1062);
        // One way: delays 3.1 µs; the 25G hop is the bottleneck: the first frame crosses the
        // 100G hop (1082 B = 86.56 ns), then all 2746 B cross 25G (878.72 ns).
        let one_way = standalone_fct_ps(&hops, &f, Completion::LastByteDelivered).unwrap();
        assert_eq!(one_way, 3_100_000 + 86_560 + 878_720);
        // HPCC's qp_finish: base RTT 2 x 3.1 µs + one 1000-byte payload per hop (80 ns at 100G,
        // 320 ns at 25G), plus the 2746 wire bytes at the 25G bottleneck.
        let rtt = standalone_fct_ps(&hops, &f, Completion::LastAckAtSender).unwrap();
        assert_eq!(rtt, 6_200_000 + 80_000 + 320_000 + 878_720);
        // A flow without a size has no standalone time.
        let mut g = f;
        g.size_bytes = None;
        assert_eq!(standalone_fct_ps(&hops, &g, Completion::LastByteDelivered), None);
    }

    #[test]
    fn paths_and_standalone_on_a_small_topology_by_hand() {
        use crate::topology::{FabricDefaults, NetworkBuilder};
        // a --100G, 1 µs-- sw --25G, 2 µs-- z, with a 100 ns forwarding latency at sw and a
        // 100 ns receive latency at z.
        let mut d = FabricDefaults::lossless(3, 100_000);
        d.switch.latency_ps = 100_000;
        let mut b = NetworkBuilder::new();
        let a = b.add_host("a", d.host.clone(), d.host_port);
        let mut zh = d.host.clone();
        zh.latency_ps = 100_000;
        let z = b.add_host("z", zh, d.host_port);
        let sw = b.add_switch("sw", d.switch.clone(), d.switch_port);
        b.connect(a, sw, 100_000_000_000, 1_000_000);
        b.connect(z, sw, 25_000_000_000, 2_000_000);
        let spec = b.build().spec;
        let hops = Paths::new(&spec).hops(a, z).unwrap();
        assert_eq!(
            hops,
            [
                Hop { rate_bps: 100_000_000_000, delay_ps: 1_100_000, overhead_bytes: 20, link: true },
                Hop { rate_bps: 25_000_000_000, delay_ps: 2_100_000, overhead_bytes: 20, link: true },
            ]
        );
        assert!(Paths::new(&spec).hops(a, sw).is_none(), "switches are not destinations");
        // 2,500 bytes in 1000-byte untagged payloads, as in `standalone_by_hand`, with 100 ns
        // more delay on the first hop.
        let (_, f) = two_hops();
        assert_eq!(standalone_fct_ps(&hops, &f, Completion::LastByteDelivered), Some(3_200_000 + 86_560 + 878_720));
    }

    #[test]
    fn a_host_drain_is_a_bottleneck_but_not_a_link() {
        // The two hops into a host whose memory drains at 20 Gb/s, below the 25G link.
        let (mut hops, f) = two_hops();
        hops.push(Hop { rate_bps: 20_000_000_000, delay_ps: 0, overhead_bytes: 0, link: false });
        // HPCC's formula: the base RTT of the two links as in `standalone_by_hand`, then the
        // 2,686 frame bytes (no preamble or gap into memory) at 20 Gb/s: 1,074.4 ns.
        let rtt = standalone_fct_ps(&hops, &f, Completion::LastAckAtSender).unwrap();
        assert_eq!(rtt, 6_200_000 + 80_000 + 320_000 + 1_074_400);
        // One way: the first frame crosses both links (86.56 + 346.24 ns), then the frame bytes
        // drain at 20 Gb/s.
        let one_way = standalone_fct_ps(&hops, &f, Completion::LastByteDelivered).unwrap();
        assert_eq!(one_way, 3_100_000 + 86_560 + 346_240 + 1_074_400);
    }

    #[test]
    fn standalone_picks_the_bottleneck_that_dominates() {
        // A fast hop after the slow one: the last frame's store-and-forward there counts.
        let (mut hops, f) = two_hops();
        hops.push(Hop { rate_bps: 100_000_000_000, delay_ps: 0, overhead_bytes: 20, link: true });
        let t = standalone_fct_ps(&hops, &f, Completion::LastByteDelivered).unwrap();
        // + the last frame (562 + 20 B) at 100G: 46.56 ns.
        assert_eq!(t, 3_100_000 + 86_560 + 878_720 + 46_560);
    }
}
