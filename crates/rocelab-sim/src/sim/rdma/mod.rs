//! The RDMA queue pairs in the engine: per-QP runtime state in a `Vec` arena, the NIC's
//! transmit side for them (control packets first, then data, rate-limited by congestion
//! control), and the one timer per endpoint that merges its deadlines: the requester's
//! retransmit timer and the data sender's congestion control timer (DCQCN's α decay needs none:
//! it is computed when a CNP arrives). An endpoint has one live `QpTimer` event at the earliest
//! of its deadlines; a deadline that moves later leaves the event in place (it fires, finds
//! nothing due and re-arms), one that moves earlier schedules a new event and the old one,
//! superseded by generation, is dropped when it fires. For WRITE and SEND both deadlines are the
//! requester's; for READ the data sender is the responder, whose timer runs at its own host.
//!
//! A QP has two *endpoints*, named `flow << 1 | side` in the NICs' lists: side 0 is the
//! requester at the flow's source host, side 1 the responder at its destination. The data
//! sender is the requester for WRITE and SEND and the responder for READ; its congestion
//! control ([`CcState`]) paces the data packets, the other side's notification point sends
//! CNPs. An endpoint is in its NIC's ready list or pacing heap at most once (`sched`), and in
//! its control list at most once (`ctrl_queued`).
//!
//! **Sides.** A handler that runs at one host reads and writes only the state of that host's
//! endpoint: the requester's (`req`, the application, `messages_completed`), the responder's
//! (`resp`, `acks_sent`, the READ responses resent), the data sender's (`cc`, the rate limiter,
//! `cnps_received`) or the data receiver's (`np`, the CNP due); the control frame counts are
//! added to by both. So a run on several threads, where each part holds a copy of every QP and
//! runs only its own hosts' endpoints, puts a QP together from its two hosts' copies
//! ([`QpRt::take_side`]).

use super::app::App;
use super::host::Ep;
use super::Sim;
use crate::cc::{CcState, CongestionControl, NotificationPoint};
use crate::event::Event;
use crate::observer::Observer;
use crate::packet::{Ecn, Packet, PacketKind};
use crate::rdma::wire;
use crate::rdma::{RdmaOp, Requester, Responder, TxPoll};
use crate::stats::FrameCounts;
use crate::time::Time;
use crate::traffic::FlowClass;

pub(super) mod build;
mod rx;

/// `FlowRt::qp` of an open-loop flow.
pub(crate) const NO_QP: u32 = u32::MAX;

/// Side of a queue pair: the requester, at the flow's source.
pub(crate) const REQUESTER: u32 = 0;
/// Side of a queue pair: the responder, at the flow's destination.
pub(crate) const RESPONDER: u32 = 1;

/// Timings of one side's NIC that the QP needs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SideTiming {
    /// Post → ready, inline or not.
    pub tx_latency: Time,
    /// Out of the receive buffer → visible in memory.
    pub rx_pcie: Time,
    /// READ request → first response.
    pub read_latency: Time,
    /// Final ACK → completion seen.
    pub completion: Time,
}

/// A queue pair's runtime state, laid out by use (`repr(C)`, from a cache-line boundary): the
/// data sender's rate limiter, pacing and timer in the first line, which every poll of the
/// endpoint and every return from the pacing heap read; its identity, addresses and flags in
/// the second, which every packet it makes reads; the on/off schedule and the congestion
/// control's state after them (its hot fields first, see [`crate::cc::ReactionPoint`]); then
/// the transport state machines, the timings and the counters. Laid out by the compiler, a
/// poll, its packet and the re-arm of the timer read seven to eight of its fifteen lines, the
/// hot fields being spread over the whole.
#[repr(C, align(64))]
pub(crate) struct QpRt {
    /// Rate limiter of the data sender: when its last data packet started and its wire bytes;
    /// the next may start `wire bytes / rate` later, at the rate in force when it is asked (a
    /// token bucket follows rate changes at once).
    pub last_tx_at: Time,
    /// When the next data packet may go, under `pace_ns3`.
    pub next_avail: Time,
    /// Per side: the time of the endpoint's valid entry in its NIC's pacing heap (`Time::MAX`:
    /// none); other entries of the endpoint there are stale.
    pub parked_until: [Time; 2],
    /// The requester's timer: the time of its pending `QpTimer` event (`Time::MAX`: none).
    pub timer_at: Time,
    /// Fixed rate cap (bit/s on the wire).
    pub cap_bps: Option<f64>,
    pub flow: u32,
    pub last_tx_wire: u32,
    pub port: [u32; 2],
    /// The address each side is reached at: its node's, or its port's where the host's ports
    /// are addressed one by one ([`crate::routing::port_address`]).
    pub addr: [u32; 2],
    pub hash: [u64; 2],
    pub udp: [u16; 2],
    /// The generation of the requester's timer event.
    pub timer_gen: u32,
    pub op: RdmaOp,
    /// The rate limiter as the ns-3 HPCC simulator's (the data port's
    /// [`crate::time::Serialization::TruncateNs`]): each data packet sets when the next may go,
    /// its size at the rate of that moment in whole nanoseconds (`RdmaHw::UpdateNextAvail`), and
    /// a later rate change leaves that time as it is (its DCQCN does not call `ChangeRate`).
    pub pace_ns3: bool,
    pub sched: [bool; 2],
    pub ctrl_queued: [bool; 2],
    pub np_on: bool,
    pub cnp_pending: bool,
    /// The notification point flags the responder's ACKs instead of sending a CNP
    /// ([`crate::spec::CnpMode::AckFlag`]); `cnp_on_ack`: a flag is due, for the next ACK the
    /// responder makes.
    pub cnp_flag: bool,
    pub cnp_on_ack: bool,
    pub cnp_class: FlowClass,
    /// Marking of the responder's ACKs and NAKs (`None`: the flow's class).
    pub ack_class: Option<FlowClass>,
    /// The flow's class (`FlowSpec::class`), here in the line a poll reads: at the end of the
    /// flow's state it was one more cache line per packet.
    pub class: FlowClass,
    /// (start, on, off) of an on/off flow.
    pub on_off: Option<(Time, Time, Time)>,
    /// Congestion control of the data sender.
    pub cc: CcState,
    pub req: Requester,
    pub resp: Responder,
    /// Notification point of the data receiver.
    pub np: NotificationPoint,
    pub cnp_interval: Time,
    pub timing: [SideTiming; 2],
    /// The responder's timer, as `timer_at` and `timer_gen` are the requester's. Only a READ's
    /// responder has deadlines (its congestion control's, as the data sender), so it is kept out
    /// of the first two lines, which WRITE and SEND read on every packet.
    pub resp_timer: (Time, u32),
    pub app: App,
    pub messages_completed: u64,
    pub acks_sent: u64,
    pub cnps_received: u64,
    pub ctrl: FrameCounts,
    pub read_resent_packets: u64,
    pub read_resent_bytes: u64,
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(QpRt, last_tx_wire) + 4 <= 64 && offset_of!(QpRt, port) == 64);
    assert!(offset_of!(QpRt, class) + size_of::<FlowClass>() <= 128);
    assert!(offset_of!(QpRt, on_off) == 128);
};

impl QpRt {
    /// The side that sends the data.
    #[inline]
    pub fn data_side(&self) -> u32 {
        if self.op == RdmaOp::Read {
            RESPONDER
        } else {
            REQUESTER
        }
    }

    /// The earliest deadline of endpoint `side`: the requester's retransmit timer and the data
    /// sender's congestion control timer.
    #[inline]
    fn deadline(&self, side: u32) -> Option<Time> {
        let req = if side == REQUESTER { self.req.deadline() } else { None };
        let cc = if side == self.data_side() { self.cc.next_timer() } else { None };
        match (req, cc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Endpoint `side`'s timer: the time of its pending event and its generation.
    #[inline]
    fn timer(&mut self, side: u32) -> (&mut Time, &mut u32) {
        if side == REQUESTER {
            (&mut self.timer_at, &mut self.timer_gen)
        } else {
            (&mut self.resp_timer.0, &mut self.resp_timer.1)
        }
    }

    /// Take from `from`, the copy of this QP in another part of a run on several threads, the
    /// state of endpoint `side` (see the module documentation): that of its side, and that of
    /// the data sender or receiver it is. The control frame counts, which both sides add to,
    /// are left to the caller to sum.
    pub(crate) fn take_side(&mut self, from: &mut QpRt, side: u32) {
        use std::mem::swap;
        let s = side as usize;
        swap(&mut self.parked_until[s], &mut from.parked_until[s]);
        swap(&mut self.sched[s], &mut from.sched[s]);
        swap(&mut self.ctrl_queued[s], &mut from.ctrl_queued[s]);
        if side == REQUESTER {
            swap(&mut self.timer_at, &mut from.timer_at);
            swap(&mut self.timer_gen, &mut from.timer_gen);
            swap(&mut self.req, &mut from.req);
            swap(&mut self.app, &mut from.app);
            swap(&mut self.messages_completed, &mut from.messages_completed);
        } else {
            swap(&mut self.resp_timer, &mut from.resp_timer);
            swap(&mut self.resp, &mut from.resp);
            swap(&mut self.acks_sent, &mut from.acks_sent);
            swap(&mut self.read_resent_packets, &mut from.read_resent_packets);
            swap(&mut self.read_resent_bytes, &mut from.read_resent_bytes);
        }
        if side == self.data_side() {
            swap(&mut self.last_tx_at, &mut from.last_tx_at);
            swap(&mut self.last_tx_wire, &mut from.last_tx_wire);
            swap(&mut self.next_avail, &mut from.next_avail);
            swap(&mut self.cc, &mut from.cc);
            swap(&mut self.cnps_received, &mut from.cnps_received);
        } else {
            swap(&mut self.np, &mut from.np);
            swap(&mut self.cnp_pending, &mut from.cnp_pending);
            swap(&mut self.cnp_on_ack, &mut from.cnp_on_ack);
        }
    }

    /// The rate the data sender may send at (bit/s on the wire), if limited.
    #[inline]
    fn rate_limit(&self) -> Option<f64> {
        match (self.cc.rate_bps(), self.cap_bps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The earliest time the data sender may send its next data packet, if later than `now`.
    #[inline]
    pub fn data_gate(&self, now: Time) -> Option<Time> {
        let mut t = match self.rate_limit() {
            _ if self.pace_ns3 => self.next_avail,
            Some(r) => self.last_tx_at + (self.last_tx_wire as f64 * 8e12 / r).ceil() as Time,
            None => 0,
        };
        if let Some((start, on, off)) = self.on_off {
            let period = on + off;
            let phase = now.saturating_sub(start) % period;
            if phase >= on {
                t = t.max(now - phase + period);
            }
        }
        (t > now).then_some(t)
    }
}

/// The QP number of a side (24 bits).
pub(crate) fn qpn(flow: u32, side: u32) -> u32 {
    (0x100 + 2 * flow + side) & crate::rdma::PSN_MASK
}

/// What an endpoint did when asked for a data packet.
pub(crate) enum EpPoll {
    Sent,
    /// Its priority is paused: try the next endpoint.
    Paused,
    Wait(Time),
    Idle,
}

impl<O: Observer> Sim<'_, O> {
    /// Put `ep` in its NIC's ready list (if it is not scheduled) and try to send. Under the
    /// ns-3 arbiter a requester sending data joins its NIC's list of queue pairs once, at its
    /// first kick (when the flow starts), as that simulator adds a queue pair as it creates it.
    pub(super) fn rc_kick(&mut self, q: u32, side: u32) {
        let qp = &mut self.qps[q as usize];
        let port = qp.port[side as usize];
        let nic = self.ports[port as usize].owner as usize;
        if side == REQUESTER && qp.op.data_from_requester() {
            if let Some((list, _)) = self.nics[nic].ns3_qps.as_deref_mut() {
                if !qp.sched[side as usize] {
                    qp.sched[side as usize] = true;
                    list.push(q);
                }
                self.try_transmit(port);
                return;
            }
        }
        if qp.sched[side as usize] {
            return;
        }
        qp.sched[side as usize] = true;
        let ep = Ep { name: qp.flow << 1 | side, qp: q };
        self.nics[nic].ready.push_back(ep);
        self.try_transmit(port);
    }

    /// The ns-3 HPCC simulator's choice of the next queue pair of the NIC behind `port`
    /// (`RdmaEgressQueue::GetNextQindex`, see [`crate::spec::NicArbiter::Ns3`]): scanning from
    /// the one after the last that sent, the first that is not paused, has a packet and may
    /// send now (its rate limiter); the finished ones the scan passed leave the list. Sends its
    /// packet and returns true; or, when none can send now, asks for a wake-up at the earliest
    /// time one can and returns false.
    #[inline(never)]
    pub(super) fn ns3_transmit(&mut self, port: u32) -> bool {
        let now = self.now;
        let nic_idx = self.ports[port as usize].owner as usize;
        // Out of the NIC while the QPs are asked, back (the same box) after.
        let Some(mut held) = self.nics[nic_idx].ns3_qps.take() else { return false };
        let (list, last) = &mut *held;
        let paused = self.ports[port as usize].paused;
        let n = list.len();
        let (mut res, mut min_finished) = (None, None);
        for k in 1..=n {
            let idx = (k + *last) % n;
            let qp = &self.qps[list[idx] as usize];
            let flow = &self.flows[qp.flow as usize];
            if paused & (1 << flow.spec.class.priority) == 0 && qp.req.has_packet() {
                if qp.data_gate(now).is_some() {
                    continue;
                }
                res = Some(idx);
                break;
            } else if flow.completed_at.is_some() {
                min_finished = Some(min_finished.map_or(idx, |m: usize| m.min(idx)));
            }
        }
        if let Some(m) = min_finished {
            let mut next = m;
            for i in m + 1..n {
                let q = list[i];
                if self.flows[self.qps[q as usize].flow as usize].completed_at.is_none() {
                    if res == Some(i) {
                        res = Some(next);
                    }
                    list[next] = q;
                    next += 1;
                }
            }
            for &q in &list[next..] {
                self.qps[q as usize].sched[REQUESTER as usize] = false;
            }
            list.truncate(next);
        }
        let chosen = res.map(|r| {
            *last = r;
            list[r]
        });
        let wake = if chosen.is_none() {
            list.iter()
                .filter(|&&q| self.qps[q as usize].req.has_packet())
                .filter_map(|&q| self.qps[q as usize].data_gate(now))
                .min()
        } else {
            None
        };
        self.nics[nic_idx].ns3_qps = Some(held);
        if let Some(q) = chosen {
            return matches!(self.rc_poll(port, q, REQUESTER), EpPoll::Sent);
        }
        if let Some(t) = wake {
            let nic = &mut self.nics[nic_idx];
            if t < nic.wake_at {
                nic.wake_at = t;
                self.queue.push(t, crate::event::Event::NicWake { port });
            }
        }
        false
    }

    /// Put `ep` in its NIC's control list (ACK, NAK or CNP pending) and try to send.
    pub(super) fn rc_ctrl_kick(&mut self, q: u32, side: u32) {
        let qp = &mut self.qps[q as usize];
        if qp.ctrl_queued[side as usize] {
            return;
        }
        qp.ctrl_queued[side as usize] = true;
        let port = qp.port[side as usize];
        let ep = qp.flow << 1 | side;
        let nic = self.ports[port as usize].owner as usize;
        self.nics[nic].ctrl.push_back(ep);
        self.try_transmit(port);
    }

    /// Arm endpoint `side`'s one timer event at the earliest of its deadlines, unless one is
    /// pending earlier (it fires, finds nothing due, and re-arms).
    pub(super) fn rc_rearm(&mut self, q: u32, side: u32) {
        let now = self.now;
        let qp = &mut self.qps[q as usize];
        let Some(d) = qp.deadline(side) else { return };
        let (at, gen) = qp.timer(side);
        if d < *at {
            *gen = gen.wrapping_add(1);
            *at = d.max(now);
            self.queue.push(*at, Event::QpTimer { qp: q, side: side as u8, gen: *gen });
        }
    }

    /// The timer event of endpoint `side` of QP `q`.
    pub(super) fn qp_timer(&mut self, q: u32, side: u32, gen: u32) {
        let now = self.now;
        let qp = &mut self.qps[q as usize];
        let (at, current) = qp.timer(side);
        if gen != *current || *at == Time::MAX {
            return;
        }
        *at = Time::MAX;
        let ev = if side == REQUESTER { qp.req.on_timer(now) } else { crate::rdma::RequesterEvent::Ignored };
        if side == qp.data_side() {
            qp.cc.on_timer(now);
            // A rate increase may let a parked data sender go earlier.
            if qp.parked_until[side as usize] != Time::MAX {
                let gate = qp.data_gate(now).unwrap_or(now);
                if gate < qp.parked_until[side as usize] {
                    self.rc_park(q, side, gate);
                }
            }
        }
        if ev == crate::rdma::RequesterEvent::Timeout {
            self.rc_kick(q, REQUESTER);
        }
        self.rc_rearm(q, side);
    }

    /// Park endpoint `side` of QP `q` in its NIC's pacing heap until `t` (replacing an entry
    /// there) and make sure the NIC wakes up for it.
    fn rc_park(&mut self, q: u32, side: u32, t: Time) {
        let qp = &mut self.qps[q as usize];
        qp.parked_until[side as usize] = t;
        let (port, ep) = (qp.port[side as usize], Ep { name: qp.flow << 1 | side, qp: q });
        let nic = self.ports[port as usize].owner as usize;
        self.nics[nic].pacing.push(t, ep);
        self.try_transmit(port);
    }

    /// Whether a pacing entry `(t, ep)` of an RC endpoint is its valid one; if so the endpoint
    /// leaves the heap.
    pub(super) fn rc_unpark(&mut self, ep: Ep, t: Time) -> bool {
        let slot = &mut self.qps[ep.qp as usize].parked_until[(ep.name & 1) as usize];
        if *slot != t {
            return false;
        }
        *slot = Time::MAX;
        true
    }

    /// Send the first pending control packet of the NIC behind `port` whose priority is not
    /// paused. Returns whether one was sent.
    pub(super) fn rc_send_control(&mut self, port: u32) -> bool {
        let nic_idx = self.ports[port as usize].owner as usize;
        let mut tries = self.nics[nic_idx].ctrl.len();
        while tries > 0 {
            tries -= 1;
            let Some(ep) = self.nics[nic_idx].ctrl.pop_front() else {
                break;
            };
            let (f, side) = (ep >> 1, ep & 1);
            let q = self.flows[f as usize].qp;
            let qp = &self.qps[q as usize];
            let cnp = qp.cnp_pending && qp.data_side() != side;
            let ack = side == RESPONDER && qp.resp.has_control();
            if !cnp && !ack {
                self.qps[q as usize].ctrl_queued[side as usize] = false;
                continue;
            }
            let class = if cnp { qp.cnp_class } else { qp.ack_class.unwrap_or(qp.class) };
            if self.ports[port as usize].paused & (1 << class.priority) != 0 {
                self.nics[nic_idx].ctrl.push_back(ep);
                continue;
            }
            let qp = &mut self.qps[q as usize];
            if cnp {
                qp.cnp_pending = false;
                self.rc_emit(q, side, PacketKind::Cnp, wire::CNP, 0, 0, 0, class, Ecn::NotEct);
            } else {
                let a = qp.resp.take_control().expect("checked above");
                if wire::syndrome_is_ack(a.syndrome) {
                    qp.acks_sent += 1;
                }
                // A congestion flag rides on the ACK as an echoed CE (`CnpMode::AckFlag`).
                let ecn = if a.cnp {
                    qp.np.cnps_sent += 1;
                    Ecn::Ce
                } else {
                    Ecn::NotEct
                };
                let aeth = wire::pack_aeth(a.syndrome, a.msn);
                self.rc_emit(q, side, PacketKind::Ack, wire::ACKNOWLEDGE, a.psn, 0, aeth, class, ecn);
            }
            let qp = &mut self.qps[q as usize];
            let more = (qp.cnp_pending && qp.data_side() != side) || (side == RESPONDER && qp.resp.has_control());
            if more {
                self.nics[nic_idx].ctrl.push_back(ep);
            } else {
                qp.ctrl_queued[side as usize] = false;
            }
            return true;
        }
        false
    }

    /// Ask endpoint `side` of QP `q` for a data packet on `port`.
    pub(super) fn rc_poll(&mut self, port: u32, q: u32, side: u32) -> EpPoll {
        let now = self.now;
        let qp = &mut self.qps[q as usize];
        let class = qp.class;
        if self.ports[port as usize].paused & (1 << class.priority) != 0 {
            return EpPoll::Paused;
        }
        let ecn = if class.ecn_capable { Ecn::Ect0 } else { Ecn::NotEct };
        let is_data_side = qp.data_side() == side;
        if side == REQUESTER {
            if is_data_side {
                if let Some(t) = qp.data_gate(now) {
                    return EpPoll::Wait(t);
                }
            }
            match qp.req.poll(now) {
                TxPoll::Send(r) => {
                    let ext = r.reth_len.unwrap_or(0);
                    self.rc_emit(q, side, PacketKind::Request, r.opcode, r.psn, r.payload, ext, class, ecn);
                    self.rc_rearm(q, REQUESTER);
                    EpPoll::Sent
                }
                TxPoll::Wait(t) => EpPoll::Wait(t),
                TxPoll::Idle => EpPoll::Idle,
            }
        } else {
            if let Some(t) = qp.data_gate(now) {
                return EpPoll::Wait(t);
            }
            match qp.resp.next_read_response(now) {
                Some(r) => {
                    if r.retransmission {
                        qp.read_resent_packets += 1;
                        qp.read_resent_bytes += r.payload as u64;
                    }
                    let ext = r.aeth.unwrap_or(0);
                    self.rc_emit(q, side, PacketKind::ReadResponse, r.opcode, r.psn, r.payload, ext, class, ecn);
                    EpPoll::Sent
                }
                None => match qp.resp.read_ready_at() {
                    Some(t) if t > now => EpPoll::Wait(t),
                    _ => EpPoll::Idle,
                },
            }
        }
    }

    /// Build a packet of QP `q` from `side` and start it on that side's port; count it.
    #[allow(clippy::too_many_arguments)]
    fn rc_emit(
        &mut self,
        q: u32,
        side: u32,
        kind: PacketKind,
        opcode: u8,
        psn: u32,
        payload: u32,
        ext: u32,
        class: FlowClass,
        ecn: Ecn,
    ) {
        let now = self.now;
        let qp = &mut self.qps[q as usize];
        let f = qp.flow;
        // RoCEv2's headers by opcode, or the network's own framing (`WireSpec`).
        let header = match (kind, self.wire.header, self.wire.ack) {
            (PacketKind::Ack, _, Some(ack)) => ack,
            (PacketKind::Request | PacketKind::ReadResponse, Some(h), _) => h,
            _ => wire::header_bytes(opcode, payload, class.tagged),
        };
        let frame = header + payload;
        let pkt = Packet {
            kind,
            flow: f,
            src: qp.addr[side as usize],
            dst: qp.addr[side as usize ^ 1],
            udp_src_port: qp.udp[side as usize],
            udp_dst_port: crate::packet::wire::ROCEV2_UDP_PORT,
            tagged: class.tagged,
            pcp: class.priority,
            dscp: class.dscp,
            ecn,
            bth_opcode: opcode,
            dest_qp: qpn(f, side ^ 1),
            psn,
            payload_bytes: payload,
            header_bytes: header,
            frame_bytes: frame,
            sent_at: now,
            flow_hash: qp.hash[side as usize],
            priority: class.priority,
            ext,
        };
        let port = qp.port[side as usize];
        if pkt.is_control() {
            qp.ctrl.sent += 1;
        } else {
            // Data: the rate limiter and the congestion control's byte counter.
            qp.last_tx_at = now;
            qp.last_tx_wire = frame + self.ports[qp.port[side as usize] as usize].rate.overhead();
            if qp.pace_ns3 {
                // A `DataRate` is whole bit/s; the gap whole nanoseconds of the double.
                if let Some(r) = qp.rate_limit() {
                    qp.next_avail =
                        now + crate::time::ns3_tx_time_ns(qp.last_tx_wire as u64, r as u64) * crate::time::NS;
                }
            }
            qp.cc.on_sent(now, frame as u64);
            let fl = &mut self.flows[f as usize];
            fl.sent_packets += 1;
            fl.sent_bytes += payload as u64;
        }
        self.conservation.injected_packets += 1;
        self.conservation.injected_bytes += frame as u64;
        let id = self.pool.alloc(pkt);
        self.start_data_tx(port, id, frame, class.priority);
    }

    /// After an endpoint was polled in the NIC's round robin: keep it, park it until `t`, or
    /// drop it from the lists.
    pub(super) fn rc_after_poll(&mut self, nic_idx: usize, ep: Ep, r: &EpPoll) {
        let (q, side) = (ep.qp as usize, (ep.name & 1) as usize);
        match r {
            EpPoll::Sent | EpPoll::Paused => self.nics[nic_idx].ready.push_back(ep),
            EpPoll::Wait(t) => {
                self.qps[q].parked_until[side] = *t;
                self.nics[nic_idx].pacing.push(*t, ep)
            }
            EpPoll::Idle => self.qps[q].sched[side] = false,
        }
    }
}
