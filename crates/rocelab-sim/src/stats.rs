//! Results of a run: per port and priority counters, per switch buffer figures, per flow
//! throughput and completion time, sampled queue depths, and the conservation balance.
//!
//! Byte counters count Ethernet frames including FCS (as switch counters do, see
//! [`crate::packet`]); flow byte counters count payload. PFC frames are counted in
//! `pfc_sent`/`pfc_received`, not in tx/rx.
//!
//! A flow's packet counters count its *data* frames (those carrying its payload: open-loop
//! packets, SEND/WRITE packets, READ responses); an RDMA flow's control frames (ACK, NAK, CNP,
//! READ request) are counted apart in [`RdmaFlowResults::control`]. Both balance on their own:
//! sent = delivered + dropped + in flight.

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// Version of the [`Results`] layout; bump on incompatible change. 2: flow completion times
/// and slowdowns ([`Results::fct`]). 3: RDMA flow figures, control frames, perftest results.
/// 4: TCP and iWARP flows ([`FlowResults::tcp`]), TCP connections without a flow, iperf
/// results, IEEE 802.3x link pause counters ([`PortResults::link_pause`]).
/// 5: storage jobs, host CPU and target devices ([`Results::jobs`], [`Results::cpu`],
/// [`Results::targets`]).
pub const SCHEMA_VERSION: u32 = 5;

/// Counters of one priority at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityCounters {
    /// Data frames transmitted.
    pub tx_packets: u64,
    /// Data frame bytes transmitted.
    pub tx_bytes: u64,
    /// Data frames received.
    pub rx_packets: u64,
    /// Data frame bytes received.
    pub rx_bytes: u64,
    /// PFC frames sent with this priority enabled (XOFF, refreshes and XON).
    pub pfc_sent: u64,
    /// PFC frames received with this priority enabled.
    pub pfc_received: u64,
    /// Time this port's transmitter had this priority paused (ps).
    pub paused_ps: Time,
    /// Packets marked CE at enqueue on this (egress) port.
    pub ecn_marked: u64,
    /// Frames dropped on arrival at this (ingress) port.
    pub drops: u64,
}

impl PriorityCounters {
    /// Add `packets` frames of `bytes` to the receive counters, wrapping (the engine adds
    /// corrections that may be negative, as two's complement; see `Sim::port_counters`).
    #[inline]
    pub(crate) fn count_rx(&mut self, packets: u64, bytes: u64) {
        self.rx_packets = self.rx_packets.wrapping_add(packets);
        self.rx_bytes = self.rx_bytes.wrapping_add(bytes);
    }
}

/// One port's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PortResults {
    /// Global port index (the index in [`Results::ports`]).
    pub index: usize,
    /// Node owning the port.
    pub node: usize,
    /// Name of that node.
    pub node_name: String,
    /// Port index within the node.
    pub port: usize,
    /// Node at the other end of the link.
    pub peer_node: usize,
    /// Port index at the other end.
    pub peer_port: usize,
    /// Global index of the port at the other end.
    pub peer_index: usize,
    /// Link rate.
    pub rate_bps: u64,
    /// Counters per priority 0..8.
    pub priorities: [PriorityCounters; 8],
    /// Highest egress queue depth per traffic class (bytes; switch ports).
    pub peak_queue_bytes: [u64; 8],
    /// IEEE 802.3x PAUSE frames, when link pause is on at this port or its peer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_pause: Option<LinkPauseCounters>,
}

/// IEEE 802.3x link flow control at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkPauseCounters {
    /// PAUSE frames sent (pauses, refreshes and resumes).
    pub sent: u64,
    /// PAUSE frames received.
    pub received: u64,
    /// Time this port's transmitter was paused by its peer (ps).
    pub paused_ps: Time,
}

impl PortResults {
    /// Sum of a counter over all priorities.
    pub fn total(&self, f: impl Fn(&PriorityCounters) -> u64) -> u64 {
        self.priorities.iter().map(f).sum()
    }
}

/// One switch's buffer results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchResults {
    /// Node index.
    pub node: usize,
    /// Node name.
    pub name: String,
    /// Size of the shared pool.
    pub shared_pool_bytes: u64,
    /// Highest shared-pool use.
    pub peak_shared_used_bytes: u64,
    /// Lossy frames dropped past their ingress PG's threshold.
    pub drops_lossy: u64,
    /// Lossy frames dropped past their egress queue's threshold (with
    /// [`crate::BufferSpec::egress_lossy`]; left out when 0, so that results without the egress
    /// limit read as before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub drops_egress_lossy: u64,
    /// Lossless frames dropped because headroom overflowed.
    pub drops_headroom: u64,
    /// Frames without a route.
    pub drops_no_route: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One host's receive-buffer results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostResults {
    /// Node index.
    pub node: usize,
    /// Node name.
    pub name: String,
    /// Highest receive-buffer occupancy over its ports.
    pub peak_rx_buffer_bytes: u64,
    /// Frames dropped because the receive buffer was full.
    pub drops_rx_overflow: u64,
}

/// One flow's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowResults {
    /// Index in [`crate::Traffic::flows`].
    pub flow: usize,
    /// Source host.
    pub src: usize,
    /// Destination host.
    pub dst: usize,
    /// Sender's priority.
    pub priority: u8,
    /// Packets sent.
    pub sent_packets: u64,
    /// Payload bytes sent.
    pub sent_bytes: u64,
    /// Packets delivered to the destination host.
    pub delivered_packets: u64,
    /// Payload bytes delivered.
    pub delivered_bytes: u64,
    /// Packets dropped anywhere.
    pub dropped_packets: u64,
    /// Packets still in the network at the end.
    pub in_flight_packets: u64,
    /// Delivered packets that carried CE.
    pub ce_packets: u64,
    /// Start time.
    pub start_ps: Time,
    /// Completion time of a sized flow: for an open-loop flow, when its last byte reached the
    /// destination host; for an RDMA flow, when the requester's NIC handled the ACK (or READ
    /// response) that completed its last message — as perftest and the HPCC simulator count it.
    pub completion_ps: Option<Time>,
    /// Flow completion time (completion − start).
    pub fct_ps: Option<Time>,
    /// Delivered payload bits per second over the flow's active time (start to completion,
    /// to its last delivery once it stopped sending, or to the end of the run).
    pub throughput_bps: f64,
    /// Queue-pair figures of an RDMA flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdma: Option<RdmaFlowResults>,
    /// The TCP connection of a TCP or iWARP flow. For these flows the packet counters count
    /// data segments (retransmissions included), `sent_bytes` the payload sent and
    /// `delivered_bytes` the payload the receiving application has in order (for iWARP, RDMA
    /// payload without the MPA/DDP framing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpConnResults>,
}

/// What a TCP connection did: its settings as negotiated, each end's counters, and its frames.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpConnResults {
    /// Index of the connection.
    pub connection: usize,
    /// The flow it carries.
    pub flow: Option<usize>,
    /// Congestion control of both ends.
    pub congestion_control: crate::tcp::CcKind,
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Window scaling negotiated.
    pub window_scaling: bool,
    /// ECN negotiated.
    pub ecn: bool,
    /// The end at the opener (a flow's source, iperf's client), then the other.
    pub ends: [TcpEndResults; 2],
    /// Segments carrying data, both directions.
    pub data: FrameCounts,
    /// Segments without data (pure ACKs), both directions.
    pub acks: FrameCounts,
    /// RDMA messages of an iWARP flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iwarp: Option<IwarpResults>,
}

/// One end of a TCP connection at the end of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpEndResults {
    /// Its host.
    pub node: usize,
    /// Its TCP port.
    pub port: u16,
    /// Payload bytes its application wrote.
    pub bytes_written: u64,
    /// Payload bytes sent for the first time (the highest stream offset sent).
    pub highest_sent: u64,
    /// Payload bytes the peer acknowledged.
    pub bytes_acked: u64,
    /// Payload bytes received in order from the peer.
    pub bytes_received: u64,
    /// The endpoint's counters: segments (data, pure ACKs, retransmitted — iperf3's "Retr"),
    /// fast retransmits, timeouts, ECN reductions, CE marks received, payload bytes sent with
    /// retransmissions.
    #[serde(flatten)]
    pub stats: crate::tcp::TcpStats,
    /// Congestion window at the end (iperf3's "Cwnd").
    pub cwnd_bytes: u64,
    /// Slow-start threshold, once set.
    pub ssthresh_bytes: Option<u64>,
    /// Smoothed RTT, once sampled.
    pub srtt_ps: Option<Time>,
    /// Retransmission timeout at the end.
    pub rto_ps: Time,
    /// The window the peer last advertised.
    pub peer_window_bytes: u64,
}

/// The RDMA side of an iWARP flow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IwarpResults {
    /// Operation of its messages.
    pub op: crate::rdma::RdmaOp,
    /// Messages completed at the requester.
    pub messages_completed: u64,
}

/// An iperf3-like test's results (see [`crate::traffic::IperfSpec`]), per stream and summed, as
/// iperf3 reports them at the end of a test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IperfResults {
    /// Index in [`crate::Traffic::iperf`].
    pub test: usize,
    /// Sending host.
    pub client: usize,
    /// Receiving host.
    pub server: usize,
    /// One per stream (`-P`).
    pub streams: Vec<IperfStream>,
    /// The streams added up (iperf3's `[SUM]`).
    pub sum: IperfStream,
}

/// One iperf3 stream (or their sum): the sender's and the receiver's view of the interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IperfStream {
    /// The stream's flow (`None` for the sum).
    pub flow: Option<usize>,
    /// Start of the interval.
    pub start_ps: Time,
    /// End of the interval: the stream's stop time (`-t`), its completion (`-n`), or the end
    /// of the run, whichever comes first.
    pub end_ps: Time,
    /// Payload bytes the sender put on the wire for the first time (its "Transfer").
    pub sender_bytes: u64,
    /// Payload bytes the receiver has in order.
    pub receiver_bytes: u64,
    /// `sender_bytes` over the interval, bit/s.
    pub sender_bitrate_bps: f64,
    /// `receiver_bytes` over the interval, bit/s.
    pub receiver_bitrate_bps: f64,
    /// Segments retransmitted ("Retr").
    pub retransmits: u64,
    /// The sender's congestion window at the end ("Cwnd"; `None` for the sum).
    pub cwnd_bytes: Option<u64>,
}

/// Frames of one kind of a flow, balanced: sent = delivered + dropped + in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameCounts {
    /// Put on the wire.
    pub sent: u64,
    /// Reached the destination host.
    pub delivered: u64,
    /// Dropped on the way.
    pub dropped: u64,
    /// Still in the network at the end.
    pub in_flight: u64,
}

/// What an RDMA flow's queue pair did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RdmaFlowResults {
    /// Operation of its messages.
    pub op: crate::rdma::RdmaOp,
    /// Messages completed at the requester.
    pub messages_completed: u64,
    /// Data packets sent again (go-back-N after a NAK or a timeout).
    pub retransmitted_packets: u64,
    /// Their payload bytes.
    pub retransmitted_bytes: u64,
    /// Data packets the receiver discarded: out of sequence.
    pub out_of_sequence_packets: u64,
    /// Data packets the receiver discarded: duplicates.
    pub duplicate_packets: u64,
    /// ACKs sent by the responder.
    pub acks_sent: u64,
    /// NAKs (PSN sequence error) sent by the responder.
    pub naks_sent: u64,
    /// Local ACK timeouts at the requester.
    pub timeouts: u64,
    /// The QP exhausted its retries and went to the error state.
    pub failed: bool,
    /// CE-marked data packets received.
    pub ce_packets: u64,
    /// CNPs the notification point sent.
    pub cnps_sent: u64,
    /// CNPs the data sender received.
    pub cnps_received: u64,
    /// Rate cuts of the congestion control.
    pub rate_cuts: u64,
    /// Lowest congestion-control rate reached (bit/s), if it ever limited the QP.
    pub min_rate_bps: Option<f64>,
    /// Control frames (ACK, NAK, CNP, READ request).
    pub control: FrameCounts,
}

/// Queue depths sampled at a fixed interval (like Arista LANZ or a telemetry poller).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueSamples {
    /// Sampling interval.
    pub interval_ps: Time,
    /// Global indices of the sampled (switch) ports.
    pub ports: Vec<usize>,
    /// Per sampled port, the total egress queue bytes at each sample (time = k × interval).
    pub depth_bytes: Vec<Vec<u32>>,
}

/// The conservation balance: every data frame injected by a host is delivered, dropped or
/// still in flight (queued or on a wire) at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conservation {
    /// Frames hosts put on the wire.
    pub injected_packets: u64,
    /// Their bytes.
    pub injected_bytes: u64,
    /// Frames accepted by destination hosts.
    pub delivered_packets: u64,
    /// Their bytes.
    pub delivered_bytes: u64,
    /// Frames dropped (switch MMU, no route, host receive buffer).
    pub dropped_packets: u64,
    /// Their bytes.
    pub dropped_bytes: u64,
    /// Frames still in the network (counted from the packet pool).
    pub in_flight_packets: u64,
    /// Their bytes.
    pub in_flight_bytes: u64,
}

/// Everything a run produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Seed of the run.
    pub seed: u64,
    /// Simulated time covered.
    pub end_time_ps: Time,
    /// Events processed.
    pub events: u64,
    /// Most packets alive at once (packet-pool high-water mark).
    pub peak_packets_in_flight: u64,
    /// Most events pending at once.
    pub peak_pending_events: u64,
    /// Per port, indexed by global port index.
    pub ports: Vec<PortResults>,
    /// Per switch.
    pub switches: Vec<SwitchResults>,
    /// Per host.
    pub hosts: Vec<HostResults>,
    /// Per flow.
    pub flows: Vec<FlowResults>,
    /// perftest results, in [`crate::Traffic::perftest`] order.
    #[serde(default)]
    pub perftest: Vec<crate::perftest::PerftestResults>,
    /// Sampled queue depths, if sampling was asked for.
    pub queue_samples: Option<QueueSamples>,
    /// TCP connections that carry no flow (those of storage protocols), with their frames.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tcp_connections: Vec<TcpConnResults>,
    /// iperf results, in [`crate::Traffic::iperf`] order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iperf: Vec<IperfResults>,
    /// Conservation balance.
    pub conservation: Conservation,
    /// Completion times and slowdowns of the sized flows, by flow size (see [`crate::fct`]);
    /// `None` when no flow has a size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fct: Option<crate::fct::FctReport>,
    /// Storage jobs, in [`crate::storage::plan::StorageTraffic::jobs`] order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<crate::storage::results::StorageJobResults>,
    /// CPU of the hosts that took part in storage jobs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu: Vec<crate::storage::results::HostCpuResults>,
    /// Storage devices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<crate::storage::results::TargetResults>,
}

impl Results {
    /// Check that data is conserved: injected = delivered + dropped + in flight (frames and
    /// bytes), and that flow, port and node counters add up to the same totals. Tests call it
    /// on every scenario.
    pub fn check_conservation(&self) -> Result<(), String> {
        let c = &self.conservation;
        if c.injected_packets != c.delivered_packets + c.dropped_packets + c.in_flight_packets {
            return Err(format!("packets not conserved: {c:?}"));
        }
        if c.injected_bytes != c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes {
            return Err(format!("bytes not conserved: {c:?}"));
        }
        let sum = |f: &dyn Fn(&FlowResults) -> u64| self.flows.iter().map(f).sum::<u64>();
        let flows = (
            sum(&|f| f.sent_packets),
            sum(&|f| f.delivered_packets),
            sum(&|f| f.dropped_packets),
            sum(&|f| f.in_flight_packets),
        );
        let ctrl = |f: &dyn Fn(&FrameCounts) -> u64| {
            self.flows.iter().filter_map(|fl| fl.rdma.as_ref()).map(|r| f(&r.control)).sum::<u64>()
        };
        // TCP: the pure ACKs of flows' connections, and every frame of connections without one.
        let tcp = |f: &dyn Fn(&FrameCounts) -> u64| {
            self.flows.iter().filter_map(|fl| fl.tcp.as_ref()).map(|t| f(&t.acks)).sum::<u64>()
                + self.tcp_connections.iter().map(|t| f(&t.acks) + f(&t.data)).sum::<u64>()
        };
        let flows = (
            flows.0 + ctrl(&|c| c.sent) + tcp(&|c| c.sent),
            flows.1 + ctrl(&|c| c.delivered) + tcp(&|c| c.delivered),
            flows.2 + ctrl(&|c| c.dropped) + tcp(&|c| c.dropped),
            flows.3 + ctrl(&|c| c.in_flight) + tcp(&|c| c.in_flight),
        );
        if flows != (c.injected_packets, c.delivered_packets, c.dropped_packets, c.in_flight_packets) {
            return Err(format!("flow counters (data + control) {flows:?} disagree with {c:?}"));
        }
        for f in &self.flows {
            if f.sent_packets != f.delivered_packets + f.dropped_packets + f.in_flight_packets {
                return Err(format!("flow {} not conserved: {f:?}", f.flow));
            }
            if let Some(r) = &f.rdma {
                let c = &r.control;
                if c.sent != c.delivered + c.dropped + c.in_flight {
                    return Err(format!("flow {} control frames not conserved: {c:?}", f.flow));
                }
            }
            if let Some(t) = &f.tcp {
                let d = &t.data;
                let same = (d.sent, d.delivered, d.dropped, d.in_flight)
                    == (f.sent_packets, f.delivered_packets, f.dropped_packets, f.in_flight_packets);
                if !same {
                    return Err(format!(
                        "flow {}: its connection's data segments {d:?} disagree with the flow's",
                        f.flow
                    ));
                }
            }
        }
        for t in self.flows.iter().filter_map(|f| f.tcp.as_ref()).chain(&self.tcp_connections) {
            for (what, c) in [("data segments", &t.data), ("ACKs", &t.acks)] {
                if c.sent != c.delivered + c.dropped + c.in_flight {
                    return Err(format!("TCP connection {} {what} not conserved: {c:?}", t.connection));
                }
            }
        }
        let port_drops: u64 = self.ports.iter().map(|p| p.total(|c| c.drops)).sum();
        let node_drops: u64 = self
            .switches
            .iter()
            .map(|s| s.drops_lossy + s.drops_egress_lossy + s.drops_headroom + s.drops_no_route)
            .chain(self.hosts.iter().map(|h| h.drops_rx_overflow))
            .sum();
        if port_drops != c.dropped_packets || node_drops != c.dropped_packets {
            return Err(format!("drops: ports {port_drops}, nodes {node_drops}, balance {}", c.dropped_packets));
        }
        // Every frame received on a link was transmitted on it.
        for p in &self.ports {
            let peer =
                self.ports.get(p.peer_index).ok_or_else(|| format!("port {} has no peer in results", p.index))?;
            let (tx, rx) = (p.total(|c| c.tx_packets), peer.total(|c| c.rx_packets));
            if rx > tx {
                return Err(format!("port {} received {rx} frames but its peer sent {tx}", peer.index));
            }
        }
        Ok(())
    }
}
