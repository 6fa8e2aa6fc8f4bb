//! A port's state and its transmit path, shared by hosts and switches: data frames, the frame
//! that comes next when the wire frees, and the port's counters.
//!
//! Each port has at most one pending `TxDone` event (htsim style): when it fires the port picks
//! its next frame — a pending PFC frame first (PFC bypasses the data queues, IEEE 802.1Qbb), then
//! a data frame from an unpaused priority. A pause received mid-frame therefore takes effect
//! after the frame in flight, as the standard requires.

use super::pfc::LinkPauseRt;
use super::Sim;
use crate::event::{Event, EventQueue};
use crate::observer::{Direction, Observer};
use crate::pfc::{PauseState, XoffState};
use crate::ring::Ring;
use crate::sched::Scheduler;
use crate::spec::PriorityMask;
use crate::stats::PriorityCounters;
use crate::time::{LinkRate, Time};

/// Runtime state of one port (both directions of a full-duplex link end), laid out by use:
/// the fields the packet path touches on every frame come first, in three cache lines (the
/// link and rate, the peer, the transmitter, identity and flags in the first, which is all an
/// arrival reads of the sending port and nearly all an enqueue reads of the egress port; the
/// queue depth and the scheduler after it); then one cache line per egress traffic class; then
/// the PFC settings. A frame's handling touches those few lines only, so the ports of a large
/// fabric fit in cache. What only counting, pausing and being paused touch is apart, in
/// [`PortCold`] (and the PFC timer slots in `Sim::pfc_timers`), which a part of a run on
/// several threads holds for its own ports only, where it holds this state for every port.
#[repr(C, align(64))]
pub(crate) struct PortRt {
    pub rate: LinkRate,
    /// Propagation plus the receiving node's latency: when a data frame is handled there.
    pub arrival_delay: Time,
    /// The port at the other end of the link.
    pub peer: u32,
    /// The peer's `owner`, `local` and `is_host`, copied here at build time: an arrival (handled
    /// at the peer) reads them from the sending port its event names, so the peer's own line
    /// is not on a switch arrival's path at all.
    pub peer_owner: u32,
    pub peer_local: u32,
    pub peer_is_host: bool,
    /// A switch port: its switch's [`super::switch::SwitchRt::quirks`], copied here for the
    /// dequeue, which reads no other line of the switch but its first.
    pub quirks: bool,
    /// A switch peer: the index in `Sim::ingress` of its switch's arrival settings
    /// ([`super::switch::Ingress`]), which an arrival and its look ahead read instead of the
    /// switch's own maps (0 and unused for a host peer).
    pub peer_ingress: u16,
    /// When the frame being sent (`busy`) has been serialized.
    pub tx_end: Time,
    /// Index of the port within its node.
    pub local: u32,
    /// The device the port belongs to: its switch's index in `Sim::switches` (switch port) or its
    /// NIC's in `Sim::nics` (host port).
    pub owner: u32,
    /// A frame is on the transmitter, or was and its `TxDone` has not been handled.
    pub busy: bool,
    pub is_host: bool,
    /// A MAC-control frame (PFC, or an 802.3x PAUSE) waits for the wire: it goes before data.
    pub pfc_pending: bool,
    /// The `TxDone` of the frame being sent is in the event queue. A switch port that starts a
    /// frame with nothing else to send (no backlog, no PFC frame) leaves it out: its handling
    /// would only find the port idle, and the port is free from `tx_end` on without an event.
    /// If something comes to send before `tx_end`, the event is pushed then ([`Sim::wire_free`]).
    /// At 30 % load a quarter of all events were such idle `TxDone`s.
    pub tx_event: bool,
    /// Bit `p`: priority `p` is paused by the peer, by PFC (`pause[p].is_paused()`) or by link
    /// pause (all bits). A mirror of those states of [`PortCold`], written only by
    /// [`PortCold::update_paused`].
    pub paused: u8,
    /// Bit `tc`: ECN marking configured on traffic class `tc`.
    pub ecn_enabled: u8,
    /// Bit `tc`: egress queue `tc` is not empty.
    pub backlog: u8,
    /// The PFC frame waiting for the wire: bit `p`, priority `p`'s entry is enabled in it.
    pub pfc_pending_enable: u8,
    /// Bit `p`: that entry is an XOFF (the port's quanta), not an XON (0 quanta).
    pub pfc_pending_xoff: u8,
    pub pfc_enabled: PriorityMask,
    /// The priority of the last data frame the port started, for the look ahead of a host
    /// port's next `TxDone` to fetch that class's counters, which the next frame's sending
    /// writes (`Sim::prefetch_egress`; a host sends one class as a rule). A hint: a wrong one
    /// fetches another line.
    pub last_tx_priority: u8,
    pub total_queue_bytes: u64,
    pub sched: Scheduler,
    /// The egress queues of the port, one per traffic class, each with the send counters of the
    /// priority of its number (switch ports queue here; a host's NIC sends from its sources).
    pub egress_queues: [TcQueue; 8],
    pub node: u32,
    pub pfc_quanta: u16,
    /// Pauses received last until the resume frame; XOFFs sent are not refreshed
    /// ([`crate::spec::PfcPortSpec::until_resume`]).
    pub pfc_until_resume: bool,
    /// Duration of `pfc_quanta` at this port's rate.
    pub pause_time: Time,
    /// Propagation delay of the link (PFC frames only).
    pub prop: Time,
}

/// The state of a port that a frame's path does not read: its counters but the send counters
/// (those are beside the egress queues), the pauses it received and sends, and 802.3x. Apart
/// from [`PortRt`] so that a part of a run on several threads holds it for its own ports only
/// (`Sim::port_cold`, at the place `Sim::port_place` gives): 960 of the 1,728 bytes a port
/// took, which every thread held for every port.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PortCold {
    /// The counters, except that `tx_packets` and `tx_bytes` are kept in
    /// [`PortRt::egress_queues`] and `rx_packets` and `rx_bytes` hold corrections only
    /// (wrapping): see [`Sim::port_counters`].
    pub counters: [PriorityCounters; 8],
    /// Pauses received: this port's transmitter per priority.
    pub pause: [PauseState; 8],
    /// Pauses this port sends to its peer, per priority.
    pub xoff: [XoffState; 8],
    /// IEEE 802.3x link flow control: whether the port takes part, the PAUSE received and the
    /// PAUSE it sends.
    pub link_pause: LinkPauseRt,
}

const _: () = assert!(std::mem::size_of::<TcQueue>() == 64);
const _: () = assert!(
    std::mem::offset_of!(PortRt, peer_is_host) < 64
        && std::mem::offset_of!(PortRt, peer_ingress) < 64
        && std::mem::offset_of!(PortRt, quirks) < 64
        && std::mem::offset_of!(PortRt, tx_end) < 64
        && std::mem::offset_of!(PortRt, backlog) < 64
        && std::mem::offset_of!(PortRt, total_queue_bytes) < 128
        && std::mem::offset_of!(PortRt, last_tx_priority) < std::mem::offset_of!(PortRt, total_queue_bytes)
        && std::mem::offset_of!(PortRt, last_tx_priority) >= 64
);
// The queue depth and what a selection reads of the scheduler share the second line, which
// the look ahead fetches for an enqueue and a dequeue alike.
const _: () = assert!(
    std::mem::offset_of!(PortRt, total_queue_bytes) >= 64
        && std::mem::offset_of!(PortRt, sched) + Scheduler::HOT_BYTES <= 128
);

impl PortCold {
    /// Recompute the paused priorities of `port` (its `paused`), whose cold state this is, from
    /// PFC's pause states and the link-level pause: the one place that writes the mirror, so it
    /// cannot drift from the state machines.
    pub(crate) fn update_paused(&self, port: &mut PortRt) {
        port.paused = if self.link_pause.paused {
            0xFF
        } else {
            (0..8).filter(|&p| self.pause[p].is_paused()).fold(0u8, |m, p| m | (1 << p))
        };
    }
}

/// Where the state of `port` that a part keeps for its own ports only is in its vectors
/// (`Sim::port_cold`, `Sim::pfc_timers`): at the port's index, or, in a part of a run on several
/// threads, at the place `place` gives.
#[inline]
pub(crate) fn own_place(place: &[u32], port: u32) -> usize {
    place.get(port as usize).map_or(port, |&i| i) as usize
}

/// Port `port` and its cold state, both to write, from the engine's fields (borrowed apart, so
/// that the caller keeps the rest of the engine).
#[inline]
pub(crate) fn port_and_cold<'a>(
    ports: &'a mut [PortRt],
    cold: &'a mut [PortCold],
    place: &[u32],
    port: u32,
) -> (&'a mut PortRt, &'a mut PortCold) {
    (&mut ports[port as usize], &mut cold[own_place(place, port)])
}

/// One egress queue of a switch port, with its depth and peak, in one cache line; and the
/// port's send counters of the priority of the same number. Where priority `p` maps to class
/// `p` (the default `QosSpec` map), a frame's dequeue and its count touch one line, where the
/// counters in `PortRt::counters` were one more per hop; other maps cost what that did. The
/// queue's RED/ECN parameters are named here by their index in `Sim::ecn_specs` (a fabric has
/// a few distinct ones), so that marking at enqueue reads this line and that small table, where
/// the parameters in the port's cold part were one more cache line per hop.
#[derive(Default)]
#[repr(C, align(64))]
pub(crate) struct TcQueue {
    pub queue: Ring<Queued>,
    /// Index in `Sim::ecn_specs` of the queue's RED/ECN parameters, where the port's
    /// `ecn_enabled` has the queue's bit (0 and unused where not).
    pub ecn: u32,
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
/// ([`super::SwitchRt::charge`]), so that a cache line holds five entries of a long queue, not four.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Queued {
    pub id: u32,
    /// The ingress (port, PG) charged: its slot in the switch MMU ([`crate::mmu::Mmu::index`]).
    pub pg_slot: u32,
    pub frame: u16,
    pub priority: u8,
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

impl<O: Observer> Sim<'_, O> {
    /// The counters of port `port` now, given the frames on each port's outgoing wire (the
    /// priority and size of the pending `WireArrive`s' packets, by sending port:
    /// [`Sim::frames_on_wires`]).
    /// Frames sent are counted beside the egress queues ([`TcQueue`]). Frames received are not
    /// counted as they arrive (a cache line more per hop, of the receiving port): every data
    /// frame a port receives was sent by its peer, counted there under the priority it carries,
    /// and has left the peer's wire. So a port has received what its peer sent less what is
    /// still on the peer's wire, moved between priorities where the port classified a frame
    /// differently (`switch_arrive` records that in the `rx` fields, with wrapping arithmetic).
    pub(crate) fn port_counters(
        &self,
        port: usize,
        cold: &PortCold,
        on_wire: &[Vec<(u8, u32)>],
    ) -> [PriorityCounters; 8] {
        let p = &self.ports[port];
        let peer = &self.ports[p.peer as usize];
        let mut c = cold.counters;
        for (prio, c) in c.iter_mut().enumerate() {
            (c.tx_packets, c.tx_bytes) = (p.egress_queues[prio].tx_packets, p.egress_queues[prio].tx_bytes);
            let sent = &peer.egress_queues[prio];
            c.count_rx(sent.tx_packets, sent.tx_bytes);
        }
        for &(priority, frame_bytes) in &on_wire[p.peer as usize] {
            c[priority as usize].count_rx(u64::MAX, (frame_bytes as u64).wrapping_neg());
        }
        c
    }

    /// The cold state of `port` ([`PortCold`]), which this engine holds (its own port).
    #[inline]
    pub(crate) fn cold_mut(&mut self, port: u32) -> &mut PortCold {
        &mut self.port_cold[own_place(&self.port_place, port)]
    }

    /// The priority and size of the frames on each port's outgoing wire (frames sent whose
    /// arrival is pending in the queue of one of `engines`, its packet in that engine's pool),
    /// by sending port, for [`Sim::port_counters`].
    pub(crate) fn frames_on_wires(engines: &[&Self]) -> Vec<Vec<(u8, u32)>> {
        let mut on_wire = vec![Vec::new(); engines.first().map_or(0, |e| e.ports.len())];
        for e in engines {
            for ev in e.queue.pending() {
                if let Event::WireArrive { port, pkt } = ev {
                    let p = e.pool.get(pkt);
                    on_wire[port as usize].push((p.priority, p.frame_bytes));
                }
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
        p.last_tx_priority = priority;
        let c = &mut p.egress_queues[priority as usize];
        c.tx_packets += 1;
        c.tx_bytes += frame as u64;
        let arrive = now + ser + p.arrival_delay;
        start_tx_on(p, &mut self.queue, port, now + ser);
        self.push_arrival(port, arrive, Event::WireArrive { port, pkt: id });
    }

    /// The transmitter of `port` starts a frame that ends at `end` (see [`start_tx_on`]).
    #[inline(always)]
    pub(super) fn start_tx(&mut self, port: u32, end: Time) {
        start_tx_on(&mut self.ports[port as usize], &mut self.queue, port, end);
    }

    /// Data frame `id`, sent on `port`, reaches the peer.
    #[inline(always)]
    pub(super) fn wire_arrive(&mut self, port: u32, id: u32) {
        let p = &self.ports[port as usize];
        let (peer, owner, local, ingress) = (p.peer, p.peer_owner, p.peer_local, p.peer_ingress);
        if p.peer_is_host {
            self.host_arrive(peer, owner, id);
        } else {
            self.switch_arrive(peer, owner, local, ingress, id);
        }
    }
}
