//! The engine: the simulation's state ([`Sim`]: switches, NICs, flows and the arenas of the
//! transports) and the event loop. A port's state and transmit path are in [`port`], pausing
//! (PFC and 802.3x) in [`pfc`], a host's NIC in `host`, a switch's in `switch`, and the transports
//! in `rdma/`, `tcp/` and `storage/`.

mod app;
mod build;
mod build_flows;
mod config;
mod estimate;
mod host;
mod parallel;
mod pfc;
pub(crate) mod placed;
pub(crate) mod port;
mod rdma;
mod results;
mod sampling;
mod storage;
mod switch;
mod tcp;

use crate::event::{Event, EventQueue};
use crate::nic::FlowSource;
use crate::observer::{Direction, Observer};
use crate::packet::{prefetch_at, PacketPool};
use crate::rng::Rng;
use crate::routing::Routes;
use crate::stats::Conservation;
use crate::time::Time;
use crate::traffic::FlowSpec;

pub use build::{run, run_with_observer, Simulation, MAX_END_TIME};
pub use config::{EcnDraws, EventOrder, Sampling, SimConfig};
pub use estimate::{check_least, least_bytes, RunEstimate, MAX_RUN_BYTES};
pub(crate) use host::NicRt;
pub use parallel::{
    default_threads, default_threads_on, flow_work, frames_a_window, partition, partition_by_work, run_threads,
    run_threads_or_fewer, run_threads_profiled, run_threads_watched, DefaultThreads, FlowWork, PartProfile, Partition,
    ThreadUsage, ThreadsProfile, Watch, WindowStats, MIN_FRAMES_A_WINDOW, WATCH_EVERY,
};
pub(crate) use pfc::PfcTimers;
pub(crate) use port::{PortCold, PortRt, Queued};
pub(crate) use sampling::SampleState;
pub(crate) use switch::SwitchRt;

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
    /// Per port, what only counting and pausing touch; in a part of a run on several threads,
    /// per port of the part, at the place `port_place` gives ([`port::own_place`]).
    pub port_cold: Vec<PortCold>,
    /// Per port, as `port_cold`.
    pub pfc_timers: Vec<PfcTimers>,
    /// Global port → its place in `port_cold` and `pfc_timers` in a part of a run on several
    /// threads (`u32::MAX`: another part's port); empty otherwise (the port's index).
    pub port_place: Vec<u32>,
    /// Every switch of the fabric, in node order: a switch's index here is its row in the
    /// routing tables ([`Routes::switch_row`]), by which an arrival looks its route up.
    pub switches: Vec<SwitchRt>,
    pub nics: Vec<NicRt>,
    /// The flows, by global index; in a part of a run on several threads, those of its own
    /// hosts only ([`placed`]).
    pub flows: placed::Placed<FlowRt>,
    /// RDMA queue pairs (`FlowRt::qp` indexes them), held like `flows`.
    pub qps: placed::Placed<rdma::QpRt>,
    /// Frames of flows this part does not hold ([`placed`]) dropped at its switches, by flow:
    /// data frames and control frames (the merge adds them to the flows' counts).
    pub transit_drops: std::collections::BTreeMap<u32, [u64; 2]>,
    /// perftest tests.
    pub tests: Vec<app::PerftestRt>,
    /// TCP connections (arena; `FlowRt::conn` indexes it).
    pub tcp: Vec<tcp::ConnRt>,
    /// The TCP segments in flight beside their packets, indexed by packet id.
    pub tcp_seg: Vec<tcp::SegInfo>,
    /// The hosts' TCP stacks and interface MTUs (shared by the parts of a run on several
    /// threads, as `routes`).
    pub tcp_hosts: std::sync::Arc<tcp::TcpHosts>,
    /// Storage jobs, sessions, IOs in flight, targets and host CPUs.
    pub storage: storage::StorageRt,
    /// Built once and shared by the parts of a run on several threads (`build::Shared`).
    pub routes: std::sync::Arc<Routes>,
    /// The ECN marking draws of each port's egress queues: one stream per port
    /// ([`Rng::stream`] of the seed and the port), so that a port's draws do not depend on
    /// the order of other ports' events. Held like `port_cold`: for every port, or in a part for
    /// its own ports only, at the place `port_place` gives.
    pub ecn_rng: Vec<Rng>,
    /// The ns-3 HPCC simulator's ECN draws, when the run takes them ([`EcnDraws::Ns3`]).
    pub ns3: Option<crate::rng::ns3::Ns3Streams>,
    pub obs: &'o mut O,
    /// The packet balance: data frames injected by hosts, delivered and dropped (those still in
    /// flight are counted at the end).
    pub conservation: Conservation,
    pub events: u64,
    pub samples: Option<SampleState>,
    pub wire: WireRt,
    /// Sized flows still to complete before the run may stop early (`SimConfig::stop_when_done`;
    /// `u64::MAX` when the run does not stop early).
    pub open_flows: u64,
    /// This engine's part of a run on several threads (`None`: the whole run).
    pub part: Option<Box<parallel::PartRt>>,
    /// The distinct RED/ECN parameters of the egress queues, which name theirs by index
    /// ([`port::TcQueue`]'s `ecn`).
    pub ecn_specs: Vec<crate::ecn::EcnSpec>,
    /// The distinct arrival settings of the switches, which the ports name by index
    /// ([`port::PortRt`]'s `peer_ingress`).
    pub ingress: Vec<switch::Ingress>,
    /// The look ahead's further steps run ([`ROUTE_AHEAD`], [`EGRESS_AHEAD`]): the fabric's
    /// fabric has [`DEEP_LOOK_AHEAD_PORTS`] ports or more.
    pub deep_look_ahead: bool,
    /// The egress ports the look ahead's last step worked out ([`Sim::prefetch_egress`]), for
    /// the arrivals to read instead of routing their frames again (`switch.rs`,
    /// [`EgressAhead`]), by the number of the event each is for ([`egress_ahead_slot`]).
    pub egress_ahead: [std::cell::Cell<switch::EgressAhead>; EGRESS_AHEAD_SLOTS],
    /// Switch arrivals that took their egress port from `egress_ahead`, and all switch arrivals
    /// (for the test that the look ahead's entries reach their events).
    #[cfg(test)]
    pub egress_ahead_taken: std::cell::Cell<(u64, u64)>,
    /// The traffic class of the frame whose arrival [`Sim::prefetch_route`] looked at, for
    /// [`Sim::prefetch_egress`] to fetch its queue two events later without classifying the
    /// frame again (by the parity of the event count; a hint: a stale one fetches another
    /// line).
    pub tc_ahead: [std::cell::Cell<u8>; 2],
}

/// How many events ahead the engine fetches the packet of an arrival and the hot cache lines of
/// the port an event names. Six while the packets sat on 4 KiB pages (a fetch began with a page
/// walk); five since they sit on huge pages (`crate::slots`): about 2 % faster on the line-rate
/// fat tree, no change on the other benchmarks. Six again since the look ahead's egress port
/// reached its arrival (`EGRESS_AHEAD_SLOTS`), with the two further steps a place further
/// each: on the k = 32 fat tree's 3 ms on two threads 37.1–40.8 s against 37.8–46.9 s
/// (alternating rounds), the line-rate fat tree unchanged (`docs/benchmarks.md`, "The look
/// ahead's egress port, and its distances").
const PREFETCH_AHEAD: usize = 6;
const _: () = assert!(PREFETCH_AHEAD < crate::event::WINDOW);

/// How many events ahead the engine fetches what an event's packet and port lead to, once
/// those are cached: the routing entry of a switch arrival ([`Sim::prefetch_route`]), then the
/// egress port and queue its route gives ([`Sim::prefetch_egress`]). On the k = 32 fat tree
/// (49,152 ports of 2 KB, a 2.6 MB routing table) these were the largest stalls of an arrival;
/// on the 320-host fat trees they are mostly cached already.
const ROUTE_AHEAD: usize = 4;
const EGRESS_AHEAD: usize = 2;
const _: () = assert!(EGRESS_AHEAD < ROUTE_AHEAD && ROUTE_AHEAD < PREFETCH_AHEAD);
// An event reaches `prefetch_egress` an even number of events after `prefetch_route`, so that
// both name its slot of `Sim::tc_ahead` by the parity of the event count.
const _: () = assert!((ROUTE_AHEAD - EGRESS_AHEAD) % 2 == 0);

/// Entries of [`Sim::egress_ahead`]. The entry for event `n` is written while event
/// `n - EGRESS_AHEAD - 1` is handled, and each event after it writes the entry of the event as
/// far ahead of itself, before it is handled: with as many entries as that distance or fewer,
/// event `n` itself (with two entries, the event between) overwrote its entry before reading
/// it, and an arrival found its entry only where the event after it was no switch arrival
/// (on the k = 32 fat tree 36 % of its switch arrivals, against 93 % with four).
const EGRESS_AHEAD_SLOTS: usize = 4;
const _: () = assert!(EGRESS_AHEAD_SLOTS.is_power_of_two() && EGRESS_AHEAD + 1 < EGRESS_AHEAD_SLOTS);

/// The entry of [`Sim::egress_ahead`] for the event numbered `event` (`Sim::events` as it is
/// handled).
#[inline(always)]
fn egress_ahead_slot(event: u64) -> usize {
    (event & (EGRESS_AHEAD_SLOTS as u64 - 1)) as usize
}

/// The number of ports from which those further steps run. They read the packet and the port
/// that the first look ahead fetched two events before; where the fabric is small that costs
/// more than it saves: on the 320-host line-rate fat tree (960 ports, 1.7 MB of port state
/// when measured, its routes and ports cached, its 52 MB of packets not) they cost 10-15 %
/// more CPU time, while on the k = 32 fat tree (49,152 ports, 85 MB) they save more than that.
/// The threshold was 8 MiB of the 1,728 bytes a port took then (before its cold state moved
/// to [`PortCold`]), which this keeps.
pub(crate) const DEEP_LOOK_AHEAD_PORTS: usize = (8 << 20) / 1728 + 1;

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
                if self.deep_look_ahead {
                    self.prefetch_egress(w.get(EGRESS_AHEAD));
                    self.prefetch_route(w.get(ROUTE_AHEAD));
                }
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
            Event::PauseExpire { port, prio, gen } => self.pause_expire(port, prio, gen),
            Event::PfcRefresh { port, prio, gen } => self.pfc_refresh(port, prio, gen),
            Event::NicWake { port } => self.nic_wake(port),
            Event::HostRxCheck { port, gen } => self.host_rx_check(port, gen),
            Event::FlowStart { flow } => self.flow_start(flow),
            Event::QpTimer { qp, side, gen } => self.qp_timer(qp, side as u32, gen),
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
                // The link, the transmitter and the flags; the queue depth and the scheduler (one
                // line but for the quanta, read once per visit: see `PortRt`'s layout).
                let port = port as usize;
                prefetch_at(&self.ports, port, 0);
                prefetch_at(&self.ports, port, offset_of!(PortRt, total_queue_bytes));
            }
            Event::WireArrive { port, pkt } => {
                // The peer and its identity: in the first line of the sending port.
                prefetch_at(&self.ports, port as usize, 0);
                self.pool.prefetch(pkt);
            }
            // The NIC's index, for the steps after.
            Event::NicWake { port } => prefetch_at(&self.ports, port as usize, 0),
            _ => {}
        }
    }

    /// Show data frame `id` at `port` to the observer (a TCP segment with its header). Without
    /// an observer this compiles to nothing: no packet memory is read.
    #[inline]
    pub(crate) fn observe(&mut self, port: u32, id: u32, dir: Direction) {
        observe(self.obs, &self.pool, &self.tcp_seg, self.now, port, id, dir);
    }

    /// A sized flow completed at `at` (now or, for a delivery still draining into host memory,
    /// later), made by a frame's arrival at host port `port` (every completion is): a run that
    /// stops as soon as its flows are done ends with the last of them. A part of a run on
    /// several threads notes it instead (`parallel::stop`).
    pub(crate) fn flow_done_on(&mut self, at: Time, port: u32) {
        if self.open_flows == u64::MAX {
            return;
        }
        if self.part.is_some() {
            self.note_done(at, port);
            return;
        }
        self.open_flows -= 1;
        if self.open_flows == 0 {
            self.queue.push(at.max(self.now), Event::StopRun);
        }
    }
}
