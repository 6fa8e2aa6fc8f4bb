//! The switch data path: classification (PCP or DSCP trust), routing with ECMP, ingress
//! admission through the shared-buffer MMU (with PFC XOFF/XON), RED/ECN marking at enqueue,
//! and egress scheduling (strict + DWRR) with the MMU release at dequeue.

use super::port::{own_place, TcQueue};
use super::rdma::QpRt;
use super::{FlowRt, NicRt, PortRt, Queued, Sim};
use crate::event::Event;
use crate::mmu::{DropReason, EgressLossy, Mmu, Verdict};
use crate::observer::{Direction, DropCause, Observer};
use crate::packet::{prefetch, prefetch_at, Ecn, Packet, PacketKind};
use crate::routing::{address_node, ecmp_select, hpcc_ecmp_hash, hpcc_ip};
use crate::spec::{QosSpec, Trust};
use std::mem::{offset_of, size_of};

/// Laid out by use: what an arrival and a release read (the MMU's totals and slots, the ECMP
/// seed, the node, the cell size) in the first cache line. The classification an arrival
/// needs is not read here but from a copy, [`Ingress`], named by the sending port.
#[repr(C, align(64))]
pub(crate) struct SwitchRt {
    pub mmu: Mmu,
    pub ecmp_seed: u64,
    pub node: u32,
    pub cell: u32,
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
    /// The egress limit of lossy frames ([`crate::spec::BufferSpec::egress_lossy`]), if any.
    pub egress_lossy: Option<EgressLossy>,
    pub drops_lossy: u64,
    /// Lossy frames dropped at their egress queue.
    pub drops_egress_lossy: u64,
    pub drops_headroom: u64,
    pub drops_no_route: u64,
}

const _: () = assert!(std::mem::offset_of!(SwitchRt, node) < 64 && std::mem::offset_of!(SwitchRt, cell) < 64);

/// The egress port of a frame at a switch, as the look ahead's last step works it out for the
/// arrival a few events later ([`Sim::prefetch_egress`]), which takes it from here rather than
/// looking up its next hops and hashing its flow again (`switch_arrive_as`). The port is a
/// function of the switch, the destination and the flow's hash (the routes do not change
/// during a run; not for a switch with simulator-model settings, whose hash reads more), so an
/// entry that is stale, or was written for another event, names another key or the same
/// port. Kept by the number of the event an entry is for (`Sim::egress_ahead`). On the k = 32
/// fat tree (callgrind, 150 µs) 790 instructions an event with the second lookup and hash, 775
/// with the entry found by a third of the arrivals, 789 against 804 when 93 % found theirs
/// instead of 36 % (`docs/benchmarks.md`, "The look ahead's egress port, and its distances");
/// the line-rate fat tree, where the look ahead does not run, pays the test (0.13 % more).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EgressAhead {
    /// The switch's index (`u32::MAX`: none).
    sw: u32,
    dst: u32,
    flow_hash: u64,
    egress: u32,
}

impl Default for EgressAhead {
    fn default() -> Self {
        EgressAhead { sw: u32::MAX, dst: 0, flow_hash: 0, egress: 0 }
    }
}

/// What an arrival reads of its switch's settings besides the first line of [`SwitchRt`]: the
/// classification of a frame (trust mode, default priority, DSCP map, as in [`QosSpec`]), its
/// priority's PG and traffic class, and [`SwitchRt::quirks`]. A fabric has a few distinct ones
/// (one on a generated fat tree), kept in `Sim::ingress` and named by the sending port
/// (`PortRt::peer_ingress`): that small table stays cached, where each switch's own maps were a
/// second cache line per switch, read by every arrival and by the look ahead that works out its
/// MMU slot and egress queue (on the k = 32 fat tree, 1,280 switches: 0.4 of the 9.5 L2 misses
/// per event, by cachegrind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ingress {
    pub trust: Trust,
    pub default_priority: u8,
    pub quirks: bool,
    pub dscp_to_priority: [u8; 64],
    pub priority_to_pg: [u8; 8],
    pub priority_to_tc: [u8; 8],
}

impl Ingress {
    /// The arrival settings of `sw`.
    pub(crate) fn of(sw: &SwitchRt) -> Ingress {
        Ingress {
            trust: sw.qos.trust,
            default_priority: sw.qos.default_priority,
            quirks: sw.quirks,
            dscp_to_priority: sw.qos.dscp_to_priority.0,
            priority_to_pg: sw.qos.priority_to_pg,
            priority_to_tc: sw.qos.priority_to_tc,
        }
    }

    /// The index of `ingress` in `table`, added if it is not there yet; `None` past `u16::MAX`
    /// distinct ones (the width of `PortRt::peer_ingress`).
    pub(crate) fn index_in(table: &mut Vec<Ingress>, ingress: Ingress) -> Option<u16> {
        let i = match table.iter().position(|t| *t == ingress) {
            Some(i) => i,
            None => {
                table.push(ingress);
                table.len() - 1
            }
        };
        u16::try_from(i).ok()
    }

    /// Priority of a packet arriving at the switch, per its trust mode (IEEE 802.1Q PCP, or
    /// the DSCP of RFC 2474 through the switch's map).
    #[inline]
    pub(crate) fn classify(&self, pkt: &Packet) -> u8 {
        match self.trust {
            Trust::Pcp => {
                if pkt.tagged {
                    pkt.pcp
                } else {
                    self.default_priority
                }
            }
            Trust::Dscp => self.dscp_to_priority[(pkt.dscp & 63) as usize],
        }
    }
}

/// How many entries ahead of its head a dequeue fetches an egress queue (two cache lines).
const QUEUE_PREFETCH_AHEAD: usize = 8;

/// `Queued::pg_slot` of a frame the MMU does not account (`SwitchRt::control_in_buffer`).
const UNACCOUNTED: u32 = u32::MAX;

impl SwitchRt {
    /// A switch with its counters at zero; `qos`'s priority-to-PG map is inverted into the
    /// priorities of each PG. ECN marking at enqueue, every PG accounted, rocelab's ECMP: set
    /// the fields to change them.
    pub(crate) fn new(node: u32, first_port: u32, mmu: Mmu, qos: QosSpec, ecmp_seed: u64, cell: u32) -> SwitchRt {
        let mut pg_priorities = [0u8; 8];
        for (prio, &pg) in qos.priority_to_pg.iter().enumerate() {
            pg_priorities[pg as usize] |= 1 << prio;
        }
        SwitchRt {
            mmu,
            ecmp_seed,
            node,
            cell,
            pg_priorities,
            first_port,
            ecn_at_dequeue: false,
            control_in_buffer: true,
            hpcc_ecmp: false,
            mmu_ns3: false,
            quirks: false,
            qos,
            egress_lossy: None,
            drops_lossy: 0,
            drops_egress_lossy: 0,
            drops_headroom: 0,
            drops_no_route: 0,
        }
    }

    /// Bytes a frame of `frame` bytes takes in the buffer: the frame rounded up to whole cells.
    #[inline(always)]
    pub(crate) fn charge(&self, frame: u32) -> u64 {
        let cell = self.cell as u64;
        if cell == 1 {
            frame as u64
        } else {
            (frame as u64).div_ceil(cell) * cell
        }
    }

    /// Which of `n` equal-cost next hops `pkt` takes (the ns-3 hash read only where `QUIRKS`).
    #[inline(always)]
    pub(crate) fn next_hop<const QUIRKS: bool>(&self, pkt: &Packet, n: usize) -> usize {
        if QUIRKS && self.hpcc_ecmp && n > 1 {
            // The ns-3 HPCC simulator's `SwitchNode::GetOutDev`: its addresses, the packet's
            // port word (`Packet::flow_hash` under `Ecmp::Hpcc`), the switch's node id as seed.
            let (sip, dip) = (hpcc_ip(address_node(pkt.src)), hpcc_ip(address_node(pkt.dst)));
            (hpcc_ecmp_hash(sip, dip, pkt.flow_hash as u32, self.node) % n as u32) as usize
        } else {
            ecmp_select(pkt.flow_hash, self.ecmp_seed, n)
        }
    }
}

/// The offset in a [`PortRt`] of the line of egress queue `tc` ([`TcQueue`], one line each),
/// for the looks ahead.
const fn queue_line(tc: usize) -> usize {
    offset_of!(PortRt, egress_queues) + (tc & 7) * size_of::<TcQueue>()
}

/// The lines of a [`QpRt`] that a requester's data poll reads (`Sim::rc_poll`): the rate
/// limiter's and the class's, the gate's and the rate's (and DCQCN's byte counter, which the
/// packet's sending advances), and the requester's first two (the request being sent among
/// them, see [`crate::rdma::Requester`]).
const QP_POLL_LINES: [usize; 6] =
    [0, 64, offset_of!(QpRt, on_off), offset_of!(QpRt, on_off) + 64, offset_of!(QpRt, req), offset_of!(QpRt, req) + 64];
/// The lines of a queue pair that the arrival of a request (a WRITE's or SEND's data, a READ
/// request) reads at its responder: the flags, the responder (two lines) and the responder's
/// timing ([`super::rdma::SideTiming`]). On the k = 32 fat tree late in the run, the second
/// line of the responder and the timing were each a miss of their own on most arrivals.
const REQUEST_LINES: [usize; 4] = [
    64,
    offset_of!(QpRt, resp),
    offset_of!(QpRt, resp) + 64,
    offset_of!(QpRt, timing) + super::rdma::RESPONDER as usize * size_of::<super::rdma::SideTiming>(),
];
/// The lines of a queue pair that an ACK's arrival reads at its requester: the control frames'
/// counters and the requester's first two lines (its timer's deadline among them, which the
/// re-arm after the ACK reads).
const ACK_LINES: [usize; 3] = [
    offset_of!(QpRt, ctrl) + offset_of!(crate::stats::FrameCounts, delivered),
    offset_of!(QpRt, req),
    offset_of!(QpRt, req) + 64,
];

impl<O: Observer> Sim<'_, O> {
    /// A data frame has arrived at switch port `port`, port `local` of switch `sw_idx`, whose
    /// arrival settings are `self.ingress[ingress]` (the port's `local` and `owner` and the
    /// switch's [`Ingress`], passed by the caller from the sending port's copy).
    pub(super) fn switch_arrive(&mut self, port: u32, sw_idx: u32, local: u32, ingress: u16, id: u32) {
        if self.ingress[ingress as usize].quirks {
            self.switch_arrive_quirks(port, sw_idx, local, ingress, id)
        } else {
            self.switch_arrive_as::<false>(port, sw_idx, local, ingress, id)
        }
    }

    /// The arrival at a switch with simulator-model settings, out of the event loop.
    #[inline(never)]
    fn switch_arrive_quirks(&mut self, port: u32, sw_idx: u32, local: u32, ingress: u16, id: u32) {
        self.switch_arrive_as::<true>(port, sw_idx, local, ingress, id)
    }

    /// [`Sim::switch_arrive`], with the switch's simulator-model settings read where `QUIRKS`
    /// (see [`SwitchRt::quirks`]), left out of the common path where not.
    #[inline(always)]
    fn switch_arrive_as<const QUIRKS: bool>(&mut self, port: u32, sw_idx: u32, local: u32, ingress: u16, id: u32) {
        let now = self.now;
        let (sw_idx, local) = (sw_idx as usize, local as usize);
        // Read in place (a copy of the 83-byte entry cost 0.8 instructions per event).
        let ing = &self.ingress[ingress as usize];
        let pkt = self.pool.get_mut(id);
        let prio = ing.classify(pkt);
        let frame = pkt.frame_bytes;
        if pkt.priority != prio {
            // Written only on a change, so that a packet's cache line stays clean. The frame
            // was sent under the old priority and is received under the new one: the receive
            // counters, which follow from the peer's send counters, are corrected.
            let c = &mut self.port_cold[own_place(&self.port_place, port)].counters;
            c[pkt.priority as usize].count_rx(u64::MAX, (frame as u64).wrapping_neg());
            c[prio as usize].count_rx(1, frame as u64);
            pkt.priority = prio;
        }
        let pg = ing.priority_to_pg[prio as usize];
        let tc = ing.priority_to_tc[prio as usize];
        super::observe(self.obs, &self.pool, &self.tcp_seg, now, port, id, Direction::Rx);

        let sw = &self.switches[sw_idx];
        let pkt = self.pool.get(id);
        let ahead = self.egress_ahead[super::egress_ahead_slot(self.events)].get();
        let taken = !QUIRKS && ahead.sw == sw_idx as u32 && ahead.dst == pkt.dst && ahead.flow_hash == pkt.flow_hash;
        #[cfg(test)]
        {
            let (t, n) = self.egress_ahead_taken.get();
            self.egress_ahead_taken.set((t + taken as u64, n + 1));
        }
        let egress = if taken {
            ahead.egress
        } else {
            let hops = self.routes.switch_next_hops(sw_idx as u32, sw.node, pkt.dst);
            let Some(egress) = hops.choose(|n| sw.next_hop::<QUIRKS>(pkt, n)) else {
                self.switches[sw_idx].drops_no_route += 1;
                self.drop_packet(port, id, prio, DropCause::NoRoute);
                return;
            };
            egress
        };
        let charge = sw.charge(frame);

        let sw = &mut self.switches[sw_idx];
        if QUIRKS && !sw.control_in_buffer && matches!(pkt.kind, PacketKind::Ack | PacketKind::Cnp) {
            self.enqueue::<QUIRKS>(egress, tc, id, UNACCOUNTED, frame, prio);
            return;
        }
        let pg_slot = sw.mmu.index(local, pg);
        let adm =
            if QUIRKS && sw.mmu_ns3 { sw.mmu.admit_ns3_at(pg_slot, charge) } else { sw.mmu.admit_at(pg_slot, charge) };
        if adm.xoff {
            let prios = sw.pg_priorities[pg as usize];
            for pr in 0..8u8 {
                if prios & (1 << pr) != 0 {
                    self.pfc_assert(port, pr);
                }
            }
        }
        if let Verdict::Drop(reason) = adm.verdict {
            let sw = &mut self.switches[sw_idx];
            match reason {
                DropReason::LossyThreshold => sw.drops_lossy += 1,
                DropReason::EgressLossy => sw.drops_egress_lossy += 1,
                DropReason::HeadroomOverflow => sw.drops_headroom += 1,
            }
            self.drop_packet(port, id, prio, DropCause::Mmu(reason));
            return;
        }
        let sw = &self.switches[sw_idx];
        if !sw.mmu.is_lossless(pg_slot)
            && sw.egress_lossy.is_some()
            && !self.admit_egress_lossy(sw_idx, pg_slot, egress, tc, charge)
        {
            // Dropped at its egress queue: counted on the egress port.
            self.drop_packet(egress, id, prio, DropCause::Mmu(DropReason::EgressLossy));
            return;
        }
        if !(QUIRKS && self.switches[sw_idx].ecn_at_dequeue) {
            self.mark_ecn::<QUIRKS>(egress, tc, id, prio, None);
        }
        self.enqueue::<QUIRKS>(egress, tc, id, pg_slot as u32, frame, prio);
    }

    /// Charge a lossy frame admitted at ingress PG `pg_slot` to its egress queue `tc` of port
    /// `egress`; when the queue refuses it, take back the ingress charge and count the drop
    /// (false: drop the frame).
    #[inline(never)]
    fn admit_egress_lossy(&mut self, sw_idx: usize, pg_slot: usize, egress: u32, tc: u8, charge: u64) -> bool {
        let sw = &mut self.switches[sw_idx];
        let q = EgressLossy::index((egress - sw.first_port) as usize, tc);
        let e = sw.egress_lossy.as_mut().expect("checked by the caller");
        if e.admit(q, charge) {
            return true;
        }
        // A lossy PG never pauses, so taking its bytes back never resumes anything.
        let xon = sw.mmu.release_at(pg_slot, charge);
        debug_assert!(!xon);
        sw.drops_egress_lossy += 1;
        false
    }

    /// RED/ECN on egress queue `tc` of port `egress` for packet `id`: against the queue ahead of
    /// it (at enqueue), or against `behind` bytes (at dequeue, the queue it leaves behind).
    #[inline(always)]
    fn mark_ecn<const QUIRKS: bool>(&mut self, egress: u32, tc: u8, id: u32, prio: u8, behind: Option<u64>) {
        let e = &mut self.ports[egress as usize];
        if e.ecn_enabled & (1 << tc) == 0 {
            return;
        }
        let q = &e.egress_queues[tc as usize];
        let depth = behind.unwrap_or(q.bytes);
        let ecn = self.ecn_specs[q.ecn as usize];
        let pkt = self.pool.get_mut(id);
        let mark = match &mut self.ns3 {
            // That simulator decides for every packet of the queue (ACKs too, marked or not),
            // and so draws for each: the same draws, in the same order.
            Some(s) if QUIRKS => {
                ecn.should_mark_with(depth, || s.next_uniform()) && pkt.ecn.is_capable() && pkt.ecn != Ecn::Ce
            }
            _ => {
                let rng = &mut self.ecn_rng;
                let place = &self.port_place;
                pkt.ecn.is_capable()
                    && pkt.ecn != Ecn::Ce
                    && ecn.should_mark_with(depth, || rng[own_place(place, egress)].next_f64())
            }
        };
        if mark {
            pkt.ecn = Ecn::Ce;
            self.cold_mut(egress).counters[prio as usize].ecn_marked += 1;
        }
    }

    /// Queue frame `id` (charged to `pg_slot`) on class `tc` of port `egress`, or send it at
    /// once when the port is idle with nothing queued.
    #[inline(always)]
    fn enqueue<const QUIRKS: bool>(&mut self, egress: u32, tc: u8, id: u32, pg_slot: u32, frame: u32, prio: u8) {
        let e = &mut self.ports[egress as usize];
        // An idle port with nothing queued sends the frame at once: the frame would go through
        // its empty queue and out, the scheduler choosing the only eligible class. (Marking at
        // dequeue would measure an empty queue behind it: never above Kmin.)
        if e.backlog == 0 && !e.pfc_pending && e.paused & (1 << prio) == 0 && self.wire_free(egress) {
            self.send_through::<QUIRKS>(egress, tc, id, pg_slot, frame, prio);
            return;
        }
        let e = &mut self.ports[egress as usize];
        let q = &mut e.egress_queues[tc as usize];
        q.queue.push_back(Queued { id, pg_slot, frame: frame as u16, priority: prio });
        q.bytes += frame as u64;
        if q.bytes > q.peak {
            q.peak = q.bytes;
        }
        e.total_queue_bytes += frame as u64;
        e.backlog |= 1 << tc;
        // An idle port sends; a busy one with its `TxDone` left out sends if its frame has
        // ended, else gets its `TxDone` now (see `Sim::wire_free`).
        if !e.busy || !e.tx_event {
            self.try_transmit(egress);
        }
    }

    /// Send frame `id` on the free port `egress`, whose queues are empty, as if it went through
    /// queue `tc`: its depth peaks at the frame, the scheduler picks `tc` (the DWRR deficits
    /// move as in a dequeue), and the buffer is released as the frame leaves. Inlined in the
    /// arrival: as a call (half the k = 32 fat tree's events make one) its register saves and
    /// restores cost 27 instructions; inlined, 1.2 fewer an event there and 0.5 % fewer
    /// instructions on the line-rate fat tree (callgrind).
    #[inline(always)]
    fn send_through<const QUIRKS: bool>(&mut self, egress: u32, tc: u8, id: u32, pg_slot: u32, frame: u32, prio: u8) {
        let p = &mut self.ports[egress as usize];
        let q = &mut p.egress_queues[tc as usize];
        debug_assert!(q.queue.is_empty() && q.bytes == 0);
        q.peak = q.peak.max(frame as u64);
        let chosen = p.sched.select_eligible(1 << tc, |_| frame);
        debug_assert_eq!(chosen, Some(tc));
        let sw_idx = p.owner as usize;
        self.start_data_tx(egress, id, frame, prio);
        self.release::<QUIRKS>(sw_idx, pg_slot, frame, egress, tc);
    }

    /// Return the charge of a frame of `frame` bytes to ingress PG `pg_slot` of switch
    /// `sw_idx` (and, for a lossy frame under an egress limit, to queue `tc` of port `egress`),
    /// which may resume the upstream (XON). Inlined in its two callers, the XON apart: as a
    /// call, saving and restoring registers cost more than the release itself.
    #[inline(always)]
    fn release<const QUIRKS: bool>(&mut self, sw_idx: usize, pg_slot: u32, frame: u32, egress: u32, tc: u8) {
        if QUIRKS && pg_slot == UNACCOUNTED {
            return;
        }
        let sw = &mut self.switches[sw_idx];
        let charge = sw.charge(frame);
        if !sw.mmu.is_lossless(pg_slot as usize) {
            if let Some(e) = sw.egress_lossy.as_mut() {
                e.release(EgressLossy::index((egress - sw.first_port) as usize, tc), charge);
            }
        }
        if sw.mmu.release_at(pg_slot as usize, charge) {
            self.release_xon(sw_idx, pg_slot);
        }
    }

    /// The release of PG `pg_slot` of switch `sw_idx` cleared its XOFF: resume the upstream.
    #[cold]
    #[inline(never)]
    fn release_xon(&mut self, sw_idx: usize, pg_slot: u32) {
        let sw = &self.switches[sw_idx];
        let (local, pg) = sw.mmu.port_pg(pg_slot as usize);
        let ingress = sw.first_port + local as u32;
        let prios = sw.pg_priorities[pg as usize];
        for pr in 0..8u8 {
            if prios & (1 << pr) != 0 {
                self.pfc_deassert(ingress, pr);
            }
        }
    }

    /// Account and free a dropped data frame; `port` is where it was dropped.
    pub(super) fn drop_packet(&mut self, port: u32, id: u32, prio: u8, cause: DropCause) {
        let pkt = *self.pool.get(id);
        self.obs.on_drop(self.now, port as usize, &pkt, cause);
        self.cold_mut(port).counters[prio as usize].drops += 1;
        self.conservation.dropped_packets += 1;
        self.conservation.dropped_bytes += pkt.frame_bytes as u64;
        if pkt.kind == crate::packet::PacketKind::Tcp {
            self.tcp_dropped(&pkt);
        } else if let Some(flow) = self.flows.get_mut(pkt.flow as usize) {
            if pkt.is_control() {
                let q = flow.qp;
                self.qps[q as usize].ctrl.dropped += 1;
            } else {
                flow.dropped_packets += 1;
            }
        } else {
            // Another part's flow, on its way through this part's switch (`placed`).
            self.transit_drops.entry(pkt.flow).or_default()[pkt.is_control() as usize] += 1;
        }
        self.pool.free(id);
    }

    /// The look ahead's second step for event `ev` (no effect on results), a few events after
    /// its packet and port were fetched ([`Sim::prefetch_event`]) and so, as a rule, cached:
    /// for an arrival at a switch, the routing entry it will read (a table of every
    /// (destination group, switch) pair, megabytes on a large fabric) and the MMU slot of its
    /// ingress port and priority group ([`Mmu::prefetch`]), leaving the frame's traffic class
    /// for the last step (`Sim::tc_ahead`); for one at a host, the
    /// NIC's receive state and the flow's first line and delivery counters; for a host port's
    /// `TxDone` and a `NicWake`, the two lines of its NIC that a transmit reads first; for a
    /// switch port's `TxDone`, the queue line of the class it will serve when only one is
    /// backlogged.
    #[inline(always)]
    pub(super) fn prefetch_route(&self, ev: Event) {
        match ev {
            Event::WireArrive { port, pkt } => {
                let Some(p) = self.ports.get(port as usize) else { return };
                let pkt = self.pool.get(pkt);
                if p.peer_is_host {
                    prefetch_at(&self.nics, p.peer_owner as usize, offset_of!(NicRt, rx));
                    self.flows.prefetch(pkt.flow as usize, 0);
                    self.flows.prefetch(pkt.flow as usize, offset_of!(FlowRt, delivered_packets));
                } else if let Some(sw) = self.switches.get(p.peer_owner as usize) {
                    self.routes.prefetch_entry(p.peer_owner, pkt.dst);
                    // The MMU slot the arrival charges, found as `switch_arrive_as` finds it, and
                    // the traffic class, for the last step (the frame classified once for both).
                    let Some(ing) = self.ingress.get(p.peer_ingress as usize) else { return };
                    let prio = (ing.classify(pkt) & 7) as usize;
                    sw.mmu.prefetch(sw.mmu.index(p.peer_local as usize, ing.priority_to_pg[prio]));
                    self.tc_ahead[(self.events & 1) as usize].set(ing.priority_to_tc[prio]);
                }
            }
            // A `NicWake`'s port is a host's: its NIC's first two lines (the pacing heap's
            // earliest entry among them).
            Event::TxDone { port } | Event::NicWake { port } => {
                let Some(p) = self.ports.get(port as usize) else { return };
                if p.is_host {
                    prefetch_at(&self.nics, p.owner as usize, 0);
                    prefetch_at(&self.nics, p.owner as usize, 64);
                } else if p.backlog.is_power_of_two() {
                    // The queue line of the one backlogged class, for the last step to read its
                    // ring's head there.
                    prefetch_at(&self.ports, port as usize, queue_line(p.backlog.trailing_zeros() as usize));
                }
            }
            _ => {}
        }
    }

    /// The look ahead's last step for event `ev` (no effect on results), a few events after
    /// [`Sim::prefetch_route`]: for an arrival at a switch, the egress port the frame will take
    /// (its first line, which the enqueue tests, and its class's queue line), worked out as
    /// `switch_arrive_as` will (not for a switch with simulator-model settings); for a switch
    /// port's `TxDone`, the ring entry of the head frame of the class it will serve when only one
    /// is backlogged (that queue's line fetched by the step before); for a host port's, the lines
    /// of the queue pair its NIC will ask first ([`QP_POLL_LINES`]: on the k = 32 fat tree with
    /// DCQCN, 7 % less time) and the ready list's entry behind it
    /// ([`super::host::ReadyList::prefetch_next`]); for a `NicWake`, those of the queue pair
    /// whose pacing timer fires.
    /// On the k = 32 fat tree the egress port's first line was the largest stall of an arrival:
    /// its index is known only once the route is, so the first look ahead cannot fetch it.
    #[inline(always)]
    pub(super) fn prefetch_egress(&self, ev: Event) {
        match ev {
            Event::WireArrive { port, pkt } => {
                let Some(p) = self.ports.get(port as usize) else { return };
                if p.peer_is_host {
                    // A queue pair's packet: the lines of its QP that the receive path of its
                    // kind reads.
                    let pkt = self.pool.get(pkt);
                    if let Some(q) = self.flows.get(pkt.flow as usize).map(|f| f.qp as usize) {
                        let lines: &[usize] = match pkt.kind {
                            PacketKind::Ack => &ACK_LINES,
                            // A READ response goes to its requester too, but counts no control
                            // frame.
                            PacketKind::ReadResponse => &ACK_LINES[1..],
                            // At most one a queue pair each CNP interval of its notification point.
                            PacketKind::Cnp => &[],
                            _ => &REQUEST_LINES,
                        };
                        for &offset in lines {
                            self.qps.prefetch(q, offset);
                        }
                    }
                    return;
                }
                let Some(ing) = self.ingress.get(p.peer_ingress as usize) else { return };
                let Some(sw) = self.switches.get(p.peer_owner as usize) else { return };
                if ing.quirks {
                    return;
                }
                let pkt = self.pool.get(pkt);
                // The route by the switch's index, its row in the tables: not by its node (on the
                // switch's line) and then the node's row, two loads before the route's own.
                let hops = self.routes.switch_next_hops(p.peer_owner, sw.node, pkt.dst);
                let Some(egress) = hops.choose(|n| sw.next_hop::<false>(pkt, n)) else { return };
                let entry = EgressAhead { sw: p.peer_owner, dst: pkt.dst, flow_hash: pkt.flow_hash, egress };
                self.egress_ahead[super::egress_ahead_slot(self.events + super::EGRESS_AHEAD as u64 + 1)].set(entry);
                let egress = egress as usize;
                // Classified by `prefetch_route` two events before (another frame's where the
                // queue changed since: a line fetched in vain).
                let tc = self.tc_ahead[(self.events & 1) as usize].get() as usize;
                prefetch_at(&self.ports, egress, 0);
                // The queue depth and the scheduler, which the enqueue, or the frame's sending
                // at once where the port is idle, reads.
                prefetch_at(&self.ports, egress, offset_of!(PortRt, total_queue_bytes));
                prefetch_at(&self.ports, egress, queue_line(tc));
            }
            Event::TxDone { port } => {
                let Some(p) = self.ports.get(port as usize) else { return };
                if p.is_host {
                    // The endpoint the NIC's round robin will ask first (its copy in the NIC's
                    // first line, fetched by `prefetch_route`) and the earliest timer.
                    let Some(nic) = self.nics.get(p.owner as usize) else { return };
                    if let Some(ep) = nic.ready.front() {
                        nic.ready.prefetch_next();
                        self.prefetch_sender(port, p, ep);
                    }
                    // The earliest timer's endpoint, which leaves the heap when it is due: the
                    // line of its QP that says whether the entry is its valid one.
                    if let Some((_, ep)) = nic.pacing.peek().filter(|(_, ep)| ep.qp != super::rdma::NO_QP) {
                        self.qps.prefetch(ep.qp as usize, offset_of!(QpRt, parked_until));
                    }
                } else if p.backlog.is_power_of_two() {
                    // The head frame's entry in the ring of the one backlogged class (its queue
                    // line fetched by `prefetch_route`), which the scheduler reads for its size:
                    // written long before, when the frame arrived, and out of cache since.
                    let tc = p.backlog.trailing_zeros() as usize;
                    p.egress_queues[tc].queue.prefetch_entry(0);
                }
            }
            Event::NicWake { port } => {
                // A pacing timer fires (DCQCN's rate limiter, as a rule): the earliest entry's
                // endpoint leaves the heap and, the port being free, is asked at once (on the
                // k = 32 fat tree late in the run, the line of its QP that says whether the entry
                // is its valid one was a fifth of the NIC's transmit).
                let Some(p) = self.ports.get(port as usize) else { return };
                let Some(nic) = self.nics.get(p.owner as usize) else { return };
                if let Some((_, ep)) = nic.pacing.peek() {
                    self.prefetch_sender(port, p, ep);
                }
            }
            _ => {}
        }
    }

    /// What host port `port` (`p`) touches when endpoint `ep` sends on it: a queue pair's lines
    /// that a data poll reads ([`QP_POLL_LINES`]), the flow's send counters (and an open-loop
    /// flow's source: a paced one's too), and the port's counters of the class it sent last.
    #[inline(always)]
    fn prefetch_sender(&self, port: u32, p: &PortRt, ep: super::host::Ep) {
        if ep.qp != super::rdma::NO_QP {
            for offset in QP_POLL_LINES {
                self.qps.prefetch(ep.qp as usize, offset);
            }
        }
        if ep.name & super::tcp::TCP_EP == 0 {
            self.flows.prefetch((ep.name >> 1) as usize, 0);
        }
        prefetch_at(&self.ports, port as usize, queue_line(p.last_tx_priority as usize));
    }

    /// The switch port `port` is free and has no PFC frame pending: dequeue and send.
    pub(super) fn switch_transmit(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if p.backlog == 0 {
            return;
        }
        // A class is eligible when backlogged and its head frame's priority is not paused.
        let mut eligible = p.backlog;
        if p.paused != 0 {
            let mut m = eligible;
            while m != 0 {
                let tc = m.trailing_zeros() as usize;
                m &= m - 1;
                let head = p.egress_queues[tc].queue.front().expect("backlog mirrors the queues");
                if p.paused & (1 << head.priority) != 0 {
                    eligible &= !(1 << tc);
                }
            }
        }
        let egress_queues = &p.egress_queues;
        let Some(tc) = p
            .sched
            .select_eligible(eligible, |tc| egress_queues[tc as usize].queue.front().map_or(0, |q| q.frame as u32))
        else {
            return;
        };
        let tq = &mut p.egress_queues[tc as usize];
        // A long queue's head entries were written long ago: fetch the coming ones.
        let (q, coming) = tq.queue.pop_front_get(QUEUE_PREFETCH_AHEAD).expect("scheduler chose a non-empty class");
        if let Some(coming) = coming {
            prefetch(coming);
        }
        tq.bytes -= q.frame as u64;
        if tq.queue.is_empty() {
            p.backlog &= !(1 << tc);
        }
        p.total_queue_bytes -= q.frame as u64;
        let (sw_idx, quirks) = (p.owner as usize, p.quirks);
        if quirks && self.switches[sw_idx].ecn_at_dequeue {
            let behind = self.ports[port as usize].egress_queues[tc as usize].bytes;
            self.mark_ecn::<true>(port, tc, q.id, q.priority, Some(behind));
        }
        self.start_data_tx(port, q.id, q.frame as u32, q.priority);
        // The buffer is freed as the frame leaves; this may resume the upstream (XON).
        if quirks {
            self.release::<true>(sw_idx, q.pg_slot, q.frame as u32, port, tc);
        } else {
            self.release::<false>(sw_idx, q.pg_slot, q.frame as u32, port, tc);
        }
    }
}

#[cfg(test)]
mod tests;
