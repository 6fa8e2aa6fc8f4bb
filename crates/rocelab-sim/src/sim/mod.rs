//! The engine: runtime state of ports, switches, NICs and flows, the event loop, and the
//! per-port transmit path shared by hosts and switches (data frames, PFC frames and pauses).
//!
//! Each port has at most one pending `TxDone` event (htsim style): when it fires the port picks
//! its next frame — a pending PFC frame first (PFC bypasses the data queues, IEEE 802.1Qbb), then
//! a data frame from an unpaused priority. A pause received mid-frame therefore takes effect
//! after the frame in flight, as the standard requires.

mod app;
mod build;
mod config;
mod host;
mod link_pause;
mod rdma;
mod sampling;
mod storage;
mod switch;
mod tcp;

use crate::ecn::EcnSpec;
use crate::event::{Event, EventQueue, TimerSlot};
use crate::mmu::Mmu;
use crate::nic::{FlowSource, RxBuffer};
use crate::observer::{Direction, Observer};
use crate::packet::{prefetch_at, PacketPool};
use crate::pfc::{PauseChange, PauseState, PfcFrame, XoffAction, XoffState};
use crate::ring::Ring;
use crate::rng::Rng;
use crate::routing::Routes;
use crate::sched::Scheduler;
use crate::spec::{PriorityMask, QosSpec};
use crate::stats::{Conservation, PriorityCounters};
use crate::time::{LinkRate, Time};
use crate::traffic::FlowSpec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use build::{run, run_with_observer, Simulation, MAX_END_TIME};
pub use config::{EcnDraws, Sampling, SimConfig};
pub(crate) use sampling::SampleState;

/// Runtime state of one port (both directions of a full-duplex link end), laid out by use:
/// the fields the packet path touches on every frame come first, in three cache lines (the
/// link and rate, the peer, the transmitter, identity and flags in the first, which is all an
/// arrival reads of the sending port and nearly all an enqueue reads of the egress port; the
/// queue depth and the scheduler after it); then one cache line per
/// egress traffic class; then the counters; pause state, ECN parameters and 802.3x last (the
/// PFC timer slots are apart, in `Sim::pfc_timers`). A frame's handling touches those few
/// lines only, so the ports of a large fabric fit in cache.
#[repr(C, align(64))]
pub(crate) struct PortRt {
    pub rate: LinkRate,
    /// Propagation plus the receiving node's latency: when a data frame is handled there.
    pub arrival_delay: Time,
    /// The port at the other end of the link.
    pub peer: u32,
    /// The peer's `aux`, `local` and `is_host`, copied here at build time: an arrival (handled
    /// at the peer) reads them from the sending port its event names, so the peer's own line
    /// is not on a switch arrival's path at all.
    pub peer_aux: u32,
    pub peer_local: u32,
    pub peer_is_host: bool,
    /// When the frame being sent (`busy`) has been serialized.
    pub tx_end: Time,
    /// Index of the port within its node.
    pub local: u32,
    /// Switch index (switch port) or NIC index (host port).
    pub aux: u32,
    /// A frame is on the transmitter, or was and its `TxDone` has not been handled.
    pub busy: bool,
    pub is_host: bool,
    pub pfc_pending: bool,
    /// The `TxDone` of the frame being sent is in the event queue. A switch port that starts a
    /// frame with nothing else to send (no backlog, no PFC frame) leaves it out: its handling
    /// would only find the port idle, and the port is free from `tx_end` on without an event.
    /// If something comes to send before `tx_end`, the event is pushed then ([`Sim::wire_free`]).
    /// At 30 % load a quarter of all events were such idle `TxDone`s.
    pub tx_event: bool,
    /// Bit `p`: priority `p` is paused by the peer (mirror of `pause[p].is_paused()`).
    pub paused: u8,
    /// Bit `tc`: ECN marking configured on traffic class `tc`.
    pub ecn_enabled: u8,
    /// Bit `tc`: egress queue `tc` is not empty.
    pub backlog: u8,
    pub pfc_pending_enable: u8,
    pub pfc_pending_xoff: u8,
    pub pfc_enabled: PriorityMask,
    pub total_queue_bytes: u64,
    pub sched: Scheduler,
    /// Egress queues per traffic class (switch ports).
    pub tcq: [TcQueue; 8],
    /// The counters, except that `tx_packets` and `tx_bytes` are kept in `tcq` and
    /// `rx_packets` and `rx_bytes` hold corrections only (wrapping): see [`Sim::port_counters`].
    pub counters: [PriorityCounters; 8],
    pub node: u32,
    pub pfc_quanta: u16,
    /// Pauses received last until the resume frame; XOFFs sent are not refreshed
    /// ([`crate::spec::PfcPortSpec::until_resume`]).
    pub pfc_until_resume: bool,
    /// Duration of `pfc_quanta` at this port's rate.
    pub pause_time: Time,
    /// Propagation delay of the link (PFC frames only).
    pub prop: Time,
    /// Pauses received: this port's transmitter per priority.
    pub pause: [PauseState; 8],
    /// Pauses this port sends to its peer, per priority.
    pub xoff: [XoffState; 8],
    pub ecn: [Option<EcnSpec>; 8],
    /// IEEE 802.3x link flow control.
    pub lp: link_pause::LinkPauseRt,
}

/// One egress queue of a switch port, with its depth and peak, in one cache line; and the
/// port's send counters of the priority of the same number. Where priority `p` maps to class
/// `p` (the default `QosSpec` map), a frame's dequeue and its count touch one line, where the
/// counters in `PortRt::counters` were one more per hop; other maps cost what that did.
#[derive(Default)]
#[repr(C, align(64))]
pub(crate) struct TcQueue {
    pub queue: Ring<Queued>,
    pub bytes: u64,
    pub peak: u64,
    /// Data frames sent under the priority of this queue's number (not from this queue).
    pub tx_packets: u64,
    /// Their frame bytes.
    pub tx_bytes: u64,
}

/// An entry of a switch egress queue: the packet id with what the scheduler and the MMU
/// release need, so that dequeuing touches no packet memory (and no ingress port). 12 bytes:
/// the bytes charged to the ingress PG are not stored but worked out again from the frame
/// ([`SwitchRt::charge`]), so that a cache line holds five entries of a long queue, not four.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Queued {
    pub id: u32,
    /// The ingress (port, PG) charged, as the switch MMU's index `local port × 8 + PG`.
    pub pg_slot: u32,
    pub frame: u16,
    pub priority: u8,
}

/// The PFC timer events of one port, per priority, one in the queue each (see [`TimerSlot`]).
/// Apart from `PortRt`, whose size (a stride through memory walked by every frame) they would
/// grow by a third.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PfcTimers {
    /// `PauseExpire`: the pause received runs out.
    pub expire: [TimerSlot; 8],
    /// `PfcRefresh`: the XOFF sent is refreshed.
    pub refresh: [TimerSlot; 8],
}

/// Laid out by use: what an arrival and a release read (the MMU's totals and slots, the ECMP
/// seed, the node, the cell size) in the first cache line, the priority maps and the trust
/// mode in the second.
#[repr(C, align(64))]
pub(crate) struct SwitchRt {
    pub mmu: Mmu,
    pub ecmp_seed: u64,
    pub node: u32,
    pub cell: u32,
    /// `qos.priority_to_pg`, here beside the trust mode (in `qos` they are past its DSCP map).
    pub priority_to_pg: [u8; 8],
    /// `qos.priority_to_tc`, likewise.
    pub priority_to_tc: [u8; 8],
    /// Per PG, the priorities mapped to it.
    pub pg_priorities: [u8; 8],
    /// Global index of the switch's port 0 (its ports are numbered contiguously).
    pub first_port: u32,
    /// ECN is decided as a packet leaves its egress queue, not as it joins it
    /// ([`crate::spec::EcnMarking::Dequeue`]).
    pub ecn_at_dequeue: bool,
    /// The MMU accounts RDMA control frames ([`crate::spec::SwitchSpec::control_in_buffer`]).
    pub control_in_buffer: bool,
    /// Next hops chosen by the ns-3 HPCC simulator's hash ([`crate::routing::Ecmp::Hpcc`]).
    pub hpcc_ecmp: bool,
    /// Lossless PGs admitted by the ns-3 HPCC simulator's rules ([`crate::mmu::Admission::Ns3`]).
    pub mmu_ns3: bool,
    /// Any of the four above, or the ns-3 simulator's ECN draws: the switch's frames take the
    /// path that reads them; without, a path that does not (`switch_arrive_as`).
    pub quirks: bool,
    pub qos: QosSpec,
    pub drops_lossy: u64,
    pub drops_headroom: u64,
    pub drops_no_route: u64,
}

const _: () = assert!(
    std::mem::offset_of!(PortRt, peer_is_host) < 64
        && std::mem::offset_of!(PortRt, tx_end) < 64
        && std::mem::offset_of!(PortRt, backlog) < 64
        && std::mem::offset_of!(PortRt, total_queue_bytes) < 128
);

const _: () = assert!(std::mem::offset_of!(SwitchRt, node) < 64 && std::mem::offset_of!(SwitchRt, cell) < 64);
const _: () = assert!(
    std::mem::offset_of!(SwitchRt, priority_to_pg) >= 64
        && std::mem::offset_of!(SwitchRt, qos.trust) < 128
        && std::mem::offset_of!(SwitchRt, qos.default_priority) < 128
);

pub(crate) struct NicRt {
    /// Endpoints (`flow << 1 | side`) with something to send now, in round-robin order.
    pub ready: Ring<u32>,
    /// Endpoints waiting on a pacing, rate-limiter, on/off or NIC-latency timer.
    pub pacing: BinaryHeap<Reverse<(Time, u32)>>,
    /// RDMA endpoints with an ACK, NAK or CNP to send (sent before data).
    pub ctrl: Ring<u32>,
    /// Time of the pending `NicWake`, `Time::MAX` if none.
    pub wake_at: Time,
    pub rx: RxBuffer,
    pub rx_gen: u32,
    pub rx_drops: u64,
    /// Under [`crate::spec::NicArbiter::Ns3`], the queue pairs that send data from this NIC (by
    /// QP index, in the order they were created) and the index of the last that sent; their
    /// data endpoints are then in neither `ready` nor `pacing`.
    pub ns3_qps: Option<(Vec<u32>, usize)>,
}

/// Laid out by use (`repr(C)`, from a cache-line boundary): what an open-loop flow's send
/// reads and writes besides its spec in the first two lines (the transport tests, the PSN, the
/// 5-tuple hash, the send counters and the source), what a delivery writes in the third (the
/// receive counters and the size that completes the flow), the rest after. A host's send and
/// a delivery each touched three to five lines of the flow's 328 bytes before.
#[repr(C, align(64))]
pub(crate) struct FlowRt {
    /// Index of its queue pair in `Sim::qps` (`rdma::NO_QP` for an open-loop flow).
    pub qp: u32,
    /// Index of its TCP connection in `Sim::tcp` (`tcp::NO_CONN` when not over TCP).
    pub conn: u32,
    pub psn: u32,
    pub port: u32,
    pub hash: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub source: FlowSource,
    /// Keeps the receive counters on a cache line of their own (see the layout note above).
    pub _pad: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub ce_packets: u64,
    pub last_delivery: Time,
    /// `spec.size_bytes`, or `u64::MAX` for an unsized flow (never delivered in full), here
    /// beside the receive counters.
    pub complete_bytes: u64,
    pub completed_at: Option<Time>,
    /// Set once the source has nothing more to send.
    pub finished_sending: bool,
    pub dropped_packets: u64,
    /// The address its packets come from: its source node's, or its port's where the host's
    /// ports are addressed one by one ([`crate::routing::port_address`]).
    pub src_addr: u32,
    /// The address its packets go to, likewise the destination node's or port's. Beside the
    /// spec, which a send reads.
    pub dst_addr: u32,
    pub spec: FlowSpec,
}

const _: () = assert!(
    std::mem::offset_of!(FlowRt, source) + std::mem::size_of::<FlowSource>() <= 128
        && std::mem::offset_of!(FlowRt, delivered_packets) >= 128
        && std::mem::offset_of!(FlowRt, finished_sending) < 192
);

/// Frame sizes that differ from RoCEv2's on the wire ([`crate::spec::WireSpec`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WireRt {
    /// Header bytes of every data packet, in place of the RoCEv2 headers by opcode.
    pub header: Option<u32>,
    /// Bytes of an ACK or NAK frame.
    pub ack: Option<u32>,
    /// Bytes of a PFC or PAUSE frame.
    pub pfc_frame: u32,
}

/// One simulation. Owns all its state: several can run in one process.
pub(crate) struct Sim<'o, O: Observer> {
    pub now: Time,
    pub end: Time,
    pub seed: u64,
    pub queue: EventQueue,
    pub pool: PacketPool,
    pub ports: Vec<PortRt>,
    /// Per port.
    pub pfc_timers: Vec<PfcTimers>,
    pub switches: Vec<SwitchRt>,
    pub nics: Vec<NicRt>,
    pub flows: Vec<FlowRt>,
    /// RDMA queue pairs (arena; `FlowRt::qp` indexes it).
    pub qps: Vec<rdma::QpRt>,
    /// perftest tests.
    pub tests: Vec<app::PerftestRt>,
    /// TCP connections (arena; `FlowRt::conn` indexes it).
    pub tcp: Vec<tcp::ConnRt>,
    /// The TCP segments in flight beside their packets, indexed by packet id.
    pub tcp_seg: Vec<tcp::SegInfo>,
    /// The hosts' TCP stacks and interface MTUs.
    pub tcp_hosts: tcp::TcpHosts,
    /// Storage jobs, sessions, IOs in flight, targets and host CPUs.
    pub storage: storage::StorageRt,
    pub routes: Routes,
    pub rng: Rng,
    /// The ns-3 HPCC simulator's ECN draws, when the run takes them ([`EcnDraws::Ns3`]).
    pub ns3: Option<crate::rng::ns3::Ns3Streams>,
    pub obs: &'o mut O,
    pub cons: Conservation,
    pub events: u64,
    pub samples: Option<SampleState>,
    pub wire: WireRt,
    /// Sized flows still to complete before the run may stop early (`SimConfig::stop_when_done`;
    /// `u64::MAX` when the run does not stop early).
    pub open_flows: u64,
}

/// How many events ahead the engine fetches the packet of an arrival and the hot cache lines of
/// the port an event names. Six while the packets sat on 4 KiB pages (a fetch began with a page
/// walk); five since they sit on huge pages (`crate::slots`): about 2 % faster on the line-rate
/// fat tree, no change on the other benchmarks.
const PREFETCH_AHEAD: usize = 5;
const _: () = assert!(PREFETCH_AHEAD < crate::event::WINDOW);

/// [`Sim::observe`] on the fields it needs (for callers holding other borrows of the `Sim`).
#[inline]
pub(crate) fn observe<O: Observer>(
    obs: &mut O,
    pool: &PacketPool,
    tcp_seg: &[tcp::SegInfo],
    now: Time,
    port: u32,
    id: u32,
    dir: Direction,
) {
    let pkt = pool.get(id);
    match (pkt.kind, tcp_seg.get(id as usize)) {
        (crate::packet::PacketKind::Tcp, Some(si)) => obs.on_tcp(now, port as usize, pkt, &si.hdr, dir),
        _ => obs.on_packet(now, port as usize, pkt, dir),
    }
}

/// The transmitter of port `port` (`p`) starts a frame that ends at `end`: push its `TxDone`
/// unless it would find nothing to do (a switch port with nothing else to send; see
/// `PortRt::tx_event`). Host ports always push it: their NIC looks at its sources and pacing
/// timers when the wire frees.
#[inline(always)]
fn start_tx_on(p: &mut PortRt, queue: &mut EventQueue, port: u32, end: Time) {
    p.busy = true;
    p.tx_end = end;
    p.tx_event = p.is_host || p.backlog != 0 || p.pfc_pending;
    if p.tx_event {
        queue.push(end, Event::TxDone { port });
    }
}

/// The packet the look ahead fetches for `ev`: that of a `WireArrive`, packet 0 for the other
/// kinds. The compiler makes a select of it, so the look ahead fetches the (usually cached)
/// line of packet 0 where a test of the kind, taken or not about half the time, mispredicted
/// about one time in five.
#[inline(always)]
fn arrival_packet(ev: Event) -> u32 {
    match ev {
        Event::WireArrive { pkt, .. } => pkt,
        _ => 0,
    }
}

impl<O: Observer> Sim<'_, O> {
    /// Process the events at or before `limit` (and before the end time).
    pub fn run_until(&mut self, limit: Time) {
        let mut limit = limit.min(self.end);
        while let Some((t, ev)) = self.queue.pop_until(limit) {
            self.now = t;
            self.events += 1;
            // Fetch what coming events will touch while this one is handled, so that a fetch
            // has several events' time to complete (software pipelining; no effect on results).
            // With the next events in the current slot (nearly always), one test for both looks
            // ahead, and when a slot has just become current, a look at each of its first events,
            // which no look ahead has seen; near the end of a slot, only the next packet (looking
            // further there cost the incast, where slots are short, more than it saved). The
            // nearer look ahead does not branch on the kind (see `arrival_packet`).
            if let Some(w) = self.queue.window() {
                self.pool.prefetch(arrival_packet(w.get(0)));
                self.prefetch_event(w.get(PREFETCH_AHEAD));
                if self.queue.slot_began() {
                    for n in 1..PREFETCH_AHEAD {
                        self.prefetch_event(w.get(n));
                    }
                }
            } else if let Some(&Event::WireArrive { pkt, .. }) = self.queue.peek() {
                self.pool.prefetch(pkt);
            }
            // The two hot kinds are tested one after the other ahead of the other kinds' `match`
            // (a jump table taken by every event before; see `handle_other`).
            if let Event::TxDone { port } = ev {
                let p = &mut self.ports[port as usize];
                p.busy = false;
                p.tx_event = false;
                // The port is free now (`wire_free` would say so): a switch port with no PFC
                // frame to send dequeues here, without the call into `try_transmit`.
                if p.is_host || p.pfc_pending {
                    self.try_transmit(port);
                } else {
                    self.switch_transmit(port);
                }
            } else if let Event::WireArrive { port, pkt } = ev {
                self.wire_arrive(port, pkt);
            } else if let Event::StopRun = ev {
                // The events of this instant still run; none after it.
                self.end = self.end.min(t);
                limit = limit.min(t);
            } else {
                self.handle_other(ev);
            }
        }
    }

    /// The events other than `TxDone` and `WireArrive` (inlined in the event loop by the
    /// compiler; out of line, the line-rate fat tree was slower again). The handlers of rare
    /// events (timers, flow starts, 802.3x, sampling, storage) are `#[inline(never)]`: inlined
    /// in the event loop they made the loop around the hot arms larger and slower (4 % more
    /// instructions on the line-rate fat tree).
    fn handle_other(&mut self, ev: Event) {
        match ev {
            Event::TxDone { .. } | Event::WireArrive { .. } | Event::StopRun => unreachable!(),
            Event::PfcArrive { port, enable, xoff, quanta } => self.pfc_arrive(port, enable, xoff, quanta),
            Event::PauseExpire { port, prio, gen } => {
                let now = self.now;
                let rearm = self.pfc_timers[port as usize].expire[prio as usize].fired(now);
                let p = &mut self.ports[port as usize];
                if p.pause[prio as usize].on_expire(now, gen) {
                    p.paused &= !(1 << prio);
                    if p.lp.paused {
                        p.paused = 0xFF;
                    }
                    self.try_transmit(port);
                } else if let Some((t, seq, gen)) = rearm {
                    self.queue.push_reserved(t, seq, Event::PauseExpire { port, prio, gen });
                }
            }
            Event::PfcRefresh { port, prio, gen } => self.pfc_refresh(port, prio, gen),
            Event::NicWake { port } => self.nic_wake(port),
            Event::HostRxCheck { port, gen } => self.host_rx_check(port, gen),
            Event::FlowStart { flow } => self.flow_start(flow),
            Event::QpTimer { qp, gen } => self.qp_timer(qp, gen),
            Event::Sample => self.sample(),
            Event::TcpTimer { ep, gen } => self.tcp_timer(ep, gen),
            Event::LinkPauseArrive { port, quanta } => self.link_pause_arrive(port, quanta),
            Event::LinkPauseExpire { port, gen } => self.link_pause_expire(port, gen),
            Event::LinkPauseRefresh { port, gen } => self.link_pause_refresh(port, gen),
            Event::CloneStart { clone } => self.clone_start(clone),
            Event::StepReady { io, step } => self.step_ready(io, step),
            Event::StepDone { io, step } => self.step_done(io, step),
            Event::TargetDone { io, step } => self.target_done(io, step),
            Event::IoDone { io } => self.io_done(io),
        }
    }

    /// Fetch the packet and the port lines that `ev` will touch (by address, without index
    /// checks: see [`prefetch_at`]). A branch on the kind, unlike the two nearer looks ahead: the
    /// same choices written as selects or masks were compiled into branches all the same.
    fn prefetch_event(&self, ev: Event) {
        use std::mem::offset_of;
        match ev {
            Event::TxDone { port } => {
                // The link, the transmitter and the flags; the queue depth and the scheduler.
                let port = port as usize;
                prefetch_at(&self.ports, port, 0);
                prefetch_at(&self.ports, port, offset_of!(PortRt, total_queue_bytes));
                prefetch_at(&self.ports, port, offset_of!(PortRt, sched) + Scheduler::DEFICITS_OFFSET);
            }
            Event::WireArrive { port, pkt } => {
                // The peer and its identity: in the first line of the sending port.
                prefetch_at(&self.ports, port as usize, 0);
                self.pool.prefetch(pkt);
            }
            _ => {}
        }
    }

    /// The counters of port `port` now, given the frames on each port's outgoing wire (the
    /// packets of the pending `WireArrive`s, by sending port: [`Sim::frames_on_wires`]).
    /// Frames sent are counted beside the egress queues ([`TcQueue`]). Frames received are not
    /// counted as they arrive (a cache line more per hop, of the receiving port): every data
    /// frame a port receives was sent by its peer, counted there under the priority it carries,
    /// and has left the peer's wire. So a port has received what its peer sent less what is
    /// still on the peer's wire, moved between priorities where the port classified a frame
    /// differently (`switch_arrive` records that in the `rx` fields, with wrapping arithmetic).
    pub(crate) fn port_counters(&self, port: usize, on_wire: &[Vec<u32>]) -> [PriorityCounters; 8] {
        let p = &self.ports[port];
        let peer = &self.ports[p.peer as usize];
        let mut c = p.counters;
        for (prio, c) in c.iter_mut().enumerate() {
            (c.tx_packets, c.tx_bytes) = (p.tcq[prio].tx_packets, p.tcq[prio].tx_bytes);
            let sent = &peer.tcq[prio];
            c.count_rx(sent.tx_packets, sent.tx_bytes);
        }
        for &id in &on_wire[p.peer as usize] {
            let pkt = self.pool.get(id);
            c[pkt.priority as usize].count_rx(u64::MAX, (pkt.frame_bytes as u64).wrapping_neg());
        }
        c
    }

    /// The packets on each port's outgoing wire (frames sent whose arrival is pending), by
    /// sending port, for [`Sim::port_counters`].
    pub(crate) fn frames_on_wires(&self) -> Vec<Vec<u32>> {
        let mut on_wire = vec![Vec::new(); self.ports.len()];
        for e in self.queue.pending() {
            if let Event::WireArrive { port, pkt } = e {
                on_wire[port as usize].push(pkt);
            }
        }
        on_wire
    }

    /// Whether the transmitter of `port` is free now. A port whose `TxDone` was left out is free
    /// from `tx_end` on: the last bit of its frame has left, and an event of that very instant
    /// finds it free (as the left-out event would have, had it come first among the events of
    /// the instant). Before, the caller has something to send, so the `TxDone` is pushed now.
    #[inline(always)]
    pub fn wire_free(&mut self, port: u32) -> bool {
        let p = &mut self.ports[port as usize];
        if !p.busy {
            return true;
        }
        if p.tx_event {
            return false;
        }
        if self.now >= p.tx_end {
            p.busy = false;
            return true;
        }
        p.tx_event = true;
        self.queue.push(p.tx_end, Event::TxDone { port });
        false
    }

    /// The port is free: send what comes next, if anything.
    #[inline]
    pub fn try_transmit(&mut self, port: u32) {
        if !self.wire_free(port) {
            return;
        }
        let p = &self.ports[port as usize];
        if p.pfc_pending {
            self.start_pfc_tx(port);
        } else if p.is_host {
            self.nic_transmit(port);
        } else {
            self.switch_transmit(port);
        }
    }

    /// Put data frame `id` (of `frame` bytes, counted under `priority`) on the wire of `port`.
    /// The port is borrowed once for the counters, the wire and the transmitter (as separate
    /// calls, each `self.ports[port]` reloaded the vector and checked the index again).
    #[inline(always)]
    pub fn start_data_tx(&mut self, port: u32, id: u32, frame: u32, priority: u8) {
        self.observe(port, id, Direction::Tx);
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let ser = p.rate.frame_time(frame as u64);
        let c = &mut p.tcq[priority as usize];
        c.tx_packets += 1;
        c.tx_bytes += frame as u64;
        let arrive = now + ser + p.arrival_delay;
        start_tx_on(p, &mut self.queue, port, now + ser);
        self.queue.push(arrive, Event::WireArrive { port, pkt: id });
    }

    /// Show data frame `id` at `port` to the observer (a TCP segment with its header). Without
    /// an observer this compiles to nothing: no packet memory is read.
    #[inline]
    pub(crate) fn observe(&mut self, port: u32, id: u32, dir: Direction) {
        observe(self.obs, &self.pool, &self.tcp_seg, self.now, port, id, dir);
    }

    /// Data frame `id`, sent on `port`, reaches the peer.
    #[inline(always)]
    fn wire_arrive(&mut self, port: u32, id: u32) {
        let p = &self.ports[port as usize];
        let (peer, aux, local) = (p.peer, p.peer_aux, p.peer_local);
        if p.peer_is_host {
            self.host_arrive(peer, aux, id);
        } else {
            self.switch_arrive(peer, aux, local, id);
        }
    }

    fn start_pfc_tx(&mut self, port: u32) {
        if self.ports[port as usize].lp.pending {
            self.start_link_pause_tx(port);
            return;
        }
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let ser = p.rate.frame_time(self.wire.pfc_frame as u64);
        let (enable, xoff, quanta) = (p.pfc_pending_enable, p.pfc_pending_xoff, p.pfc_quanta);
        p.pfc_pending = false;
        p.pfc_pending_enable = 0;
        p.pfc_pending_xoff = 0;
        for prio in 0..8 {
            if enable & (1 << prio) != 0 {
                p.counters[prio].pfc_sent += 1;
            }
        }
        let (peer, arrive) = (p.peer, now + ser + p.prop);
        let frame = PfcFrame::from_masks(enable, xoff, quanta);
        self.obs.on_pfc(now, port as usize, &frame, Direction::Tx);
        self.start_tx(port, now + ser);
        self.queue.push(arrive, Event::PfcArrive { port: peer, enable, xoff, quanta });
    }

    /// The transmitter of `port` starts a frame that ends at `end` (see [`start_tx_on`]).
    #[inline(always)]
    fn start_tx(&mut self, port: u32, end: Time) {
        start_tx_on(&mut self.ports[port as usize], &mut self.queue, port, end);
    }

    /// Queue a PFC timer for `prio` on `port` (merged with one already pending) and send it as
    /// soon as the wire is free.
    fn request_pfc(&mut self, port: u32, prio: u8, xoff: bool) {
        if let Some(s) = self.ns3.as_mut().filter(|_| !self.ports[port as usize].is_host) {
            // The IP identification of that simulator's PFC frame takes a stream.
            s.skip();
        }
        let p = &mut self.ports[port as usize];
        p.pfc_pending = true;
        p.pfc_pending_enable |= 1 << prio;
        if xoff {
            p.pfc_pending_xoff |= 1 << prio;
        } else {
            p.pfc_pending_xoff &= !(1 << prio);
        }
        if self.wire_free(port) {
            self.start_pfc_tx(port);
        }
    }

    /// The buffer condition for `prio` behind `port` begins: pause the peer (if PFC is enabled
    /// for `prio` on this port, or else 802.3x link pause; otherwise nothing is sent and the
    /// buffer overflows).
    pub fn pfc_assert(&mut self, port: u32, prio: u8) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if !p.pfc_enabled.contains(prio) {
            if p.lp.enabled {
                self.link_pause_assert(port, prio);
            }
            return;
        }
        if let XoffAction::SendXoff { refresh_at, gen } = p.xoff[prio as usize].assert(now, p.pause_time) {
            let refresh = !p.pfc_until_resume;
            self.request_pfc(port, prio, true);
            if refresh {
                self.arm_refresh(port, prio, refresh_at, gen);
            }
        }
    }

    /// Schedule the XOFF refresh of `prio` on `port` (see [`TimerSlot`]).
    fn arm_refresh(&mut self, port: u32, prio: u8, at: Time, gen: u32) {
        let seq = self.queue.reserve_seq();
        if self.pfc_timers[port as usize].refresh[prio as usize].arm(at, seq, gen) {
            self.queue.push_reserved(at, seq, Event::PfcRefresh { port, prio, gen });
        }
    }

    /// The buffer condition for `prio` behind `port` clears: resume the peer.
    pub fn pfc_deassert(&mut self, port: u32, prio: u8) {
        let p = &mut self.ports[port as usize];
        if !p.pfc_enabled.contains(prio) && p.lp.enabled {
            self.link_pause_deassert(port, prio);
            return;
        }
        if p.xoff[prio as usize].deassert() == XoffAction::SendXon {
            self.pfc_timers[port as usize].refresh[prio as usize].cancel();
            self.request_pfc(port, prio, false);
        }
    }

    #[inline(never)]
    fn pfc_refresh(&mut self, port: u32, prio: u8, gen: u32) {
        let now = self.now;
        let rearm = self.pfc_timers[port as usize].refresh[prio as usize].fired(now);
        let p = &mut self.ports[port as usize];
        if let XoffAction::SendXoff { refresh_at, gen } = p.xoff[prio as usize].on_refresh(now, gen, p.pause_time) {
            self.request_pfc(port, prio, true);
            self.arm_refresh(port, prio, refresh_at, gen);
        } else if let Some((t, seq, gen)) = rearm {
            self.queue.push_reserved(t, seq, Event::PfcRefresh { port, prio, gen });
        }
    }

    fn pfc_arrive(&mut self, port: u32, enable: u8, xoff: u8, quanta: u16) {
        let now = self.now;
        let frame = PfcFrame::from_masks(enable, xoff, quanta);
        self.obs.on_pfc(now, port as usize, &frame, Direction::Rx);
        let p = &mut self.ports[port as usize];
        let mut resumed = false;
        for prio in 0..8u8 {
            if enable & (1 << prio) == 0 {
                continue;
            }
            p.counters[prio as usize].pfc_received += 1;
            if !p.pfc_enabled.contains(prio) {
                continue;
            }
            let quanta = frame.quanta[prio as usize];
            let change = if p.pfc_until_resume {
                p.pause[prio as usize].on_frame_until_resume(now, quanta)
            } else {
                p.pause[prio as usize].on_frame(now, quanta, p.rate.bps())
            };
            match change {
                PauseChange::Paused { until: Time::MAX, .. } => p.paused |= 1 << prio,
                PauseChange::Paused { until, gen } => {
                    p.paused |= 1 << prio;
                    let seq = self.queue.reserve_seq();
                    if self.pfc_timers[port as usize].expire[prio as usize].arm(until, seq, gen) {
                        self.queue.push_reserved(until, seq, Event::PauseExpire { port, prio, gen });
                    }
                }
                PauseChange::Resumed => {
                    p.paused &= !(1 << prio);
                    self.pfc_timers[port as usize].expire[prio as usize].cancel();
                    resumed = true;
                }
                PauseChange::None => {}
            }
        }
        if p.lp.paused {
            p.paused = 0xFF;
        }
        if resumed {
            self.try_transmit(port);
        }
    }

    /// A sized flow completed at `at` (now or, for a delivery still draining into host memory,
    /// later): a run that stops as soon as its flows are done ends with the last of them.
    pub(crate) fn flow_done(&mut self, at: Time) {
        if self.open_flows == u64::MAX {
            return;
        }
        self.open_flows -= 1;
        if self.open_flows == 0 {
            self.queue.push(at.max(self.now), Event::StopRun);
        }
    }
}
