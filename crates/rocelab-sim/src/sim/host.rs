//! The host NIC: a round-robin scheduler over sources that skips paused priorities — RDMA
//! control packets (ACK, NAK, CNP) first, then data of open-loop flows and queue pairs, and TCP
//! endpoints (`tcp/`) —,
//! pacing timers, and the receive path into the host receive buffer (which sends PFC when it
//! fills).

use super::Sim;
use crate::event::Event;
use crate::nic::{RxArrival, RxBuffer, RxCheck, SourcePoll};
use crate::observer::{Direction, DropCause, Observer};
use crate::packet::{wire, Packet, PacketKind};
use crate::ring::Ring;
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A host NIC: the endpoints it sends for, its pacing timers and its receive buffer. Laid out
/// by use (`repr(C)`, from a cache-line boundary): what a transmit reads (the ready list, the
/// pacing heap, the control list, the ns-3 arbiter's list) in the first two lines, which the
/// look ahead fetches ([`Sim::prefetch_route`]); the receive buffer after them.
#[repr(C, align(64))]
pub(crate) struct NicRt {
    /// Endpoints with something to send now, in round-robin order.
    pub ready: ReadyList,
    /// Endpoints waiting on a pacing, rate-limiter, on/off or NIC-latency timer.
    pub pacing: PacingHeap,
    /// RDMA endpoints with an ACK, NAK or CNP to send (sent before data).
    pub ctrl: Ring<u32>,
    /// Time of the pending `NicWake`, `Time::MAX` if none.
    pub wake_at: Time,
    /// Under [`crate::spec::NicArbiter::Ns3`], the queue pairs that send data from this NIC (by
    /// QP index, in the order they were created) and the index of the last that sent; their
    /// data endpoints are then in neither `ready` nor `pacing`.
    pub ns3_qps: Option<Box<(Vec<u32>, usize)>>,
    pub rx_gen: u32,
    pub rx_drops: u64,
    /// The receive buffer, which every data frame arriving at the host reads and writes: the
    /// third line, whole, which the look ahead fetches (on the k = 32 fat tree it began 8 bytes
    /// before that line, and the arrival missed on what lay in the next; 3 % of a late run).
    pub rx: RxBuffer,
}

/// An endpoint in a NIC's ready list or pacing heap: its name (`flow << 1 | side`, or a TCP
/// endpoint's, see [`super::tcp::TCP_EP`]), which orders the heap's entries of one instant, and
/// its queue pair ([`super::rdma::NO_QP`]: none), so that the round robin reaches a queue pair
/// without reading its flow first. On the k = 32 fat tree the flow's line, read only for its QP
/// index, was a cache miss of its own ahead of the QP's on most transmits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Ep {
    pub name: u32,
    pub qp: u32,
}

impl Ep {
    /// An endpoint that is not a queue pair's: an open-loop flow's or a TCP endpoint's.
    pub(crate) fn plain(name: u32) -> Self {
        Ep { name, qp: super::rdma::NO_QP }
    }
}

/// A NIC's ready list: a ring of endpoints, and a copy of the first beside it, in the NIC's
/// first line. The look ahead reads the first endpoint of a NIC whose transmitter is about to
/// be free, to fetch its queue pair ([`Sim::prefetch_egress`]); in the ring, on a line of its
/// own, that read was the look ahead's largest stall on the k = 32 fat tree (a tenth of the
/// event loop's time in the second millisecond).
#[derive(Clone, Debug, Default)]
pub(crate) struct ReadyList {
    ring: Ring<Ep>,
    /// `ring`'s oldest entry (any value while it is empty).
    first: Ep,
}

impl ReadyList {
    /// Number of endpoints.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.ring.len()
    }

    /// The first endpoint, without reading the ring.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<Ep> {
        (!self.ring.is_empty()).then_some(self.first)
    }

    /// Append `ep` behind the last endpoint.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, ep: Ep) {
        if self.ring.is_empty() {
            self.first = ep;
        }
        self.ring.push_back(ep);
    }

    /// Take the first endpoint (its copy: the ring's entry is not read); the next one's copy is
    /// read from the ring, on the line [`ReadyList::prefetch_next`] fetched.
    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<Ep> {
        let ep = self.front()?;
        self.ring.skip_front();
        if let Some(&next) = self.ring.front() {
            self.first = next;
        }
        Some(ep)
    }

    /// Fetch the ring's line of the endpoint behind the first, which the next `pop_front` reads
    /// for its copy (the look ahead of a host's `TxDone`; no effect on results). On the k = 32
    /// fat tree that read was nearly half of the NIC's transmit time late in a 10 ms run: a
    /// NIC's ring is touched once in thousands of events, long out of cache by then.
    #[inline(always)]
    pub(crate) fn prefetch_next(&self) {
        self.ring.prefetch_entry(1);
    }
}

/// A NIC's pacing timers: a heap of (time, endpoint), earliest first, and a copy of the
/// earliest in the NIC's first line, which every transmit reads (whether a timer is due) and the
/// look ahead too, where the heap's first entry, on a line of its own, was a stall of its own.
#[derive(Clone, Debug)]
pub(crate) struct PacingHeap {
    heap: BinaryHeap<Reverse<(Time, Ep)>>,
    /// The heap's earliest entry (any value while it is empty).
    first: (Time, Ep),
}

impl Default for PacingHeap {
    fn default() -> Self {
        PacingHeap { heap: BinaryHeap::new(), first: (Time::MAX, Ep::default()) }
    }
}

impl PacingHeap {
    /// The earliest entry, without reading the heap.
    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<(Time, Ep)> {
        (!self.heap.is_empty()).then_some(self.first)
    }

    /// Add endpoint `ep`'s timer at `t`.
    pub(crate) fn push(&mut self, t: Time, ep: Ep) {
        if self.heap.is_empty() || (t, ep) < self.first {
            self.first = (t, ep);
        }
        self.heap.push(Reverse((t, ep)));
    }

    /// Remove the earliest entry.
    pub(crate) fn pop(&mut self) {
        self.heap.pop();
        self.first = self.heap.peek().map_or((Time::MAX, Ep::default()), |r| r.0);
    }
}

const _: () = assert!(
    std::mem::offset_of!(NicRt, wake_at) + 8 <= 128
        && std::mem::offset_of!(NicRt, ns3_qps) + std::mem::size_of::<Option<Box<(Vec<u32>, usize)>>>() <= 128
);
const _: () = assert!(std::mem::offset_of!(NicRt, rx) == 128 && std::mem::size_of::<RxBuffer>() <= 64);

/// BTH opcode RC SEND Only (InfiniBand Architecture Specification, Vol. 1, §9.2).
const BTH_RC_SEND_ONLY: u8 = 0x04;

impl<O: Observer> Sim<'_, O> {
    /// A flow starts: an open-loop source joins its NIC's ready list; a queue pair's
    /// application posts its first messages.
    #[inline(never)]
    pub(super) fn flow_start(&mut self, flow: u32) {
        let c = self.flows[flow as usize].conn;
        if c != super::tcp::NO_CONN {
            self.tcp_flow_start(c);
            return;
        }
        let q = self.flows[flow as usize].qp;
        if q != super::rdma::NO_QP {
            self.app_start(q);
            return;
        }
        let port = self.flows[flow as usize].port;
        let nic = self.ports[port as usize].owner as usize;
        self.nics[nic].ready.push_back(Ep::plain(flow << 1));
        self.try_transmit(port);
    }

    /// A pacing timer of the NIC behind `port` fires.
    pub(super) fn nic_wake(&mut self, port: u32) {
        let nic = self.ports[port as usize].owner as usize;
        if self.nics[nic].wake_at == self.now {
            self.nics[nic].wake_at = u64::MAX;
        }
        self.try_transmit(port);
    }

    /// The host port `port` is free and has no PFC frame pending: send the next packet of the
    /// next ready source whose priority is not paused.
    pub(super) fn nic_transmit(&mut self, port: u32) {
        let now = self.now;
        let nic_idx = self.ports[port as usize].owner as usize;
        while let Some((t, ep)) = self.nics[nic_idx].pacing.peek() {
            if t > now {
                break;
            }
            self.nics[nic_idx].pacing.pop();
            if ep.qp != super::rdma::NO_QP && !self.rc_unpark(ep, t) {
                continue; // a stale entry of a re-parked queue-pair endpoint
            }
            self.nics[nic_idx].ready.push_back(ep);
        }
        let nic = &mut self.nics[nic_idx];
        if !nic.ctrl.is_empty() && self.rc_send_control(port) {
            return;
        }
        if self.nics[nic_idx].ns3_qps.is_some() && self.ns3_transmit(port) {
            return;
        }
        let mut tries = self.nics[nic_idx].ready.len();
        while tries > 0 {
            tries -= 1;
            let nic = &mut self.nics[nic_idx];
            let Some(ep) = nic.ready.pop_front() else {
                break;
            };
            if ep.name & super::tcp::TCP_EP != 0 {
                let r = self.tcp_poll(port, ep.name & !super::tcp::TCP_EP);
                let sent = matches!(r, super::rdma::EpPoll::Sent);
                self.tcp_after_poll(nic_idx, ep.name, &r);
                if sent {
                    return;
                }
                continue;
            }
            let f = ep.name >> 1;
            if ep.qp != super::rdma::NO_QP {
                let r = self.rc_poll(port, ep.qp, ep.name & 1);
                let sent = matches!(r, super::rdma::EpPoll::Sent);
                self.rc_after_poll(nic_idx, ep, &r);
                if sent {
                    return;
                }
                continue;
            }
            let flow = &mut self.flows[f as usize];
            let prio = flow.spec.class.priority;
            if self.ports[port as usize].paused & (1 << prio) != 0 {
                nic.ready.push_back(ep);
                continue;
            }
            match flow.source.poll(now) {
                SourcePoll::Finished => {
                    flow.finished_sending = true;
                }
                SourcePoll::WaitUntil(t) => {
                    nic.pacing.push(t, ep);
                }
                SourcePoll::Send { payload } => {
                    let spec = &flow.spec;
                    let (header, frame) = match self.wire.header {
                        Some(h) => (h, h + payload),
                        None => {
                            let h = crate::packet::rocev2_header_bytes(spec.class.tagged);
                            (h, (h + payload).max(wire::MIN_FRAME))
                        }
                    };
                    let pkt = Packet {
                        kind: PacketKind::Data,
                        flow: f,
                        src: flow.src_addr,
                        dst: flow.dst_addr,
                        udp_src_port: spec.udp_src_port,
                        udp_dst_port: wire::ROCEV2_UDP_PORT,
                        tagged: spec.class.tagged,
                        pcp: prio,
                        dscp: spec.class.dscp,
                        ecn: spec.ecn(),
                        bth_opcode: BTH_RC_SEND_ONLY,
                        dest_qp: f + 1,
                        psn: flow.psn,
                        payload_bytes: payload,
                        header_bytes: header,
                        frame_bytes: frame,
                        sent_at: now,
                        flow_hash: flow.hash,
                        priority: prio,
                        ext: 0,
                    };
                    flow.psn = (flow.psn + 1) & 0x00FF_FFFF;
                    flow.sent_packets += 1;
                    flow.sent_bytes += payload as u64;
                    flow.source.sent(now, payload, frame);
                    if flow.source.has_more(now) {
                        if flow.source.is_timed() {
                            nic.pacing.push(flow.source.next_time.max(now), ep);
                        } else {
                            nic.ready.push_back(ep);
                        }
                    } else {
                        flow.finished_sending = true;
                    }
                    self.conservation.injected_packets += 1;
                    self.conservation.injected_bytes += frame as u64;
                    let id = self.pool.alloc(pkt);
                    self.start_data_tx(port, id, frame, prio);
                    return;
                }
            }
        }
        // Nothing sent: wake up for the earliest paced source.
        let nic = &mut self.nics[nic_idx];
        if let Some((t, _)) = nic.pacing.peek() {
            if t < nic.wake_at {
                nic.wake_at = t;
                self.queue.push(t, Event::NicWake { port });
            }
        }
    }

    /// A data frame has arrived at host port `port`, whose NIC is `nic_idx` (the port's `owner`,
    /// passed by the caller from the sending port's copy).
    pub(super) fn host_arrive(&mut self, port: u32, nic_idx: u32, id: u32) {
        let now = self.now;
        let pkt = *self.pool.get(id);
        if pkt.kind != PacketKind::Data {
            if pkt.kind == PacketKind::Tcp {
                self.tcp_arrive(port, nic_idx, id);
            } else {
                self.rc_arrive(port, nic_idx, id);
            }
            return;
        }
        let nic_idx = nic_idx as usize;
        self.obs.on_packet(now, port as usize, &pkt, Direction::Rx);
        let nic = &mut self.nics[nic_idx];
        match nic.rx.on_arrival(now, pkt.frame_bytes as u64) {
            RxArrival::Dropped => {
                nic.rx_drops += 1;
                self.drop_packet(port, id, pkt.priority, DropCause::HostRxOverflow);
            }
            RxArrival::Accepted { delivered_at, xoff, check_at } => {
                self.conservation.delivered_packets += 1;
                self.conservation.delivered_bytes += pkt.frame_bytes as u64;
                let flow = &mut self.flows[pkt.flow as usize];
                flow.delivered_packets += 1;
                flow.delivered_bytes += pkt.payload_bytes as u64;
                if pkt.ecn == crate::packet::Ecn::Ce {
                    flow.ce_packets += 1;
                }
                flow.last_delivery = flow.last_delivery.max(delivered_at);
                if flow.completed_at.is_none() && flow.complete_bytes == flow.delivered_bytes {
                    flow.completed_at = Some(delivered_at);
                    self.flow_done_on(delivered_at, port);
                }
                self.pool.free(id);
                if xoff {
                    self.host_rx_xoff(port, check_at);
                }
            }
        }
    }

    /// The receive buffer behind `port` may have drained to its XON level.
    #[inline(never)]
    pub(super) fn host_rx_check(&mut self, port: u32, gen: u32) {
        let now = self.now;
        let nic_idx = self.ports[port as usize].owner as usize;
        let nic = &mut self.nics[nic_idx];
        if gen != nic.rx_gen {
            return;
        }
        match nic.rx.on_check(now) {
            RxCheck::Xon => {
                let enabled = self.ports[port as usize].pfc_enabled;
                for prio in 0..8u8 {
                    if enabled.contains(prio) {
                        self.pfc_deassert(port, prio);
                    }
                }
                if self.cold_mut(port).link_pause.enabled {
                    self.link_pause_deassert(port, 0);
                }
            }
            RxCheck::Recheck(t) => self.queue.push(t, Event::HostRxCheck { port, gen }),
            RxCheck::Idle => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copies of the first endpoint and the earliest timer that the NIC keeps beside its
    /// ring and heap are theirs after every push and pop, in any order of them.
    #[test]
    fn the_ready_list_and_the_pacing_heap_keep_their_first_entries_beside_them() {
        let mut rng = crate::rng::Rng::new(11);
        let (mut ready, mut ring) = (ReadyList::default(), std::collections::VecDeque::new());
        let (mut pacing, mut heap) = (PacingHeap::default(), BinaryHeap::new());
        assert_eq!((ready.front(), pacing.peek()), (None, None));
        for _ in 0..5_000 {
            let ep = Ep { name: rng.below(64) as u32, qp: rng.below(64) as u32 };
            if rng.below(2) == 0 {
                ready.push_back(ep);
                ring.push_back(ep);
            } else {
                assert_eq!(ready.pop_front(), ring.pop_front());
            }
            if rng.below(2) == 0 {
                let t = rng.below(1_000);
                pacing.push(t, ep);
                heap.push(Reverse((t, ep)));
            } else if pacing.peek().is_some() {
                pacing.pop();
                heap.pop();
            }
            assert_eq!(ready.front(), ring.front().copied());
            assert_eq!(ready.len(), ring.len());
            assert_eq!(pacing.peek(), heap.peek().map(|r| r.0));
        }
    }

    /// The pacing heap pops its entries in the order of their times and names, as when it held
    /// names alone: the queue pair beside a name changes no endpoint's turn.
    #[test]
    fn endpoints_with_their_queue_pairs_leave_the_pacing_heap_in_the_order_of_their_names() {
        let mut rng = crate::rng::Rng::new(7);
        let (mut with, mut names) = (BinaryHeap::new(), BinaryHeap::new());
        for _ in 0..2_000 {
            let (t, name) = (rng.below(50), rng.below(400) as u32);
            // A name's queue pair is a function of the name, as in the engine; some have none.
            let qp = if name % 3 == 0 { crate::sim::rdma::NO_QP } else { 1_000 - name };
            with.push(Reverse((t, Ep { name, qp })));
            names.push(Reverse((t, name)));
        }
        while let Some(Reverse((t, ep))) = with.pop() {
            assert_eq!(names.pop(), Some(Reverse((t, ep.name))));
        }
        assert!(names.is_empty());
    }
}
