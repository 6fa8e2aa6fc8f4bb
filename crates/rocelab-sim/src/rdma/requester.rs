//! The requester side of an RC queue pair.
//!
//! Work requests are posted with the time the NIC may start on them (after its doorbell and
//! DMA latencies); each takes a range of PSNs at post time — one per packet for WRITE and SEND,
//! one per *response* packet for READ (IBA §9.7.1.1). The requester sends new packets while
//! fewer than the window are outstanding, counts an ACK as acknowledging every PSN up to its
//! own, a NAK (PSN sequence error) as acknowledging every PSN before its own and asking for
//! that one again (go-back-N, IBA §9.7.5.2.1), READ responses as implicit ACKs, and retransmits
//! from the oldest unacknowledged PSN when the local ACK timer runs out, up to the retry count,
//! after which the QP is in error. Completions come out in posting order (IBA §10.8.1).

use super::wire::{self, request_opcode};
use super::{packets_of, psn_add, psn_diff, RcConfig, RdmaOp};
use crate::time::Time;
use std::collections::VecDeque;

/// A posted work request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wqe {
    id: u64,
    op: RdmaOp,
    len: u64,
    first_psn: u32,
    npkts: u32,
    ready_at: Time,
    /// WRITE/SEND: every packet acknowledged.
    acked: bool,
    /// READ: response packets received in order.
    read_done: u32,
}

impl Wqe {
    fn complete(&self) -> bool {
        match self.op {
            RdmaOp::Read => self.read_done == self.npkts,
            _ => self.acked,
        }
    }

    fn contains(&self, psn: u32) -> bool {
        let d = psn_diff(psn, self.first_psn);
        d >= 0 && (d as u32) < self.npkts
    }
}

/// A request packet to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxRequest {
    /// BTH opcode.
    pub opcode: u8,
    /// BTH PSN.
    pub psn: u32,
    /// Payload bytes (0 for a READ request).
    pub payload: u32,
    /// RETH DMA length, on the first packet of a WRITE and on a READ request.
    pub reth_len: Option<u32>,
    /// Id of the work request.
    pub wqe: u64,
    /// Whether this PSN was sent before.
    pub retransmission: bool,
}

/// A completed work request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Id given at post.
    pub id: u64,
    /// Operation.
    pub op: RdmaOp,
    /// Message bytes.
    pub len: u64,
}

/// What an ACK, NAK, READ response or timer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequesterEvent {
    /// New PSNs were acknowledged (or a READ response accepted).
    Progress,
    /// A NAK acknowledged what came before its PSN and rewound the send point to it.
    Nak,
    /// A READ response was accepted: its payload is the requester's data.
    ReadData,
    /// A READ response came out of order: discarded, and the READ asked for again from the
    /// missing PSN (once per episode).
    ReadGap,
    /// Stale, duplicate or not for an outstanding PSN: ignored.
    Ignored,
    /// The timer ran out: the send point went back to the oldest unacknowledged PSN.
    Timeout,
    /// The timer ran out past the retry count: the QP is in error and sends nothing more.
    Failed,
}

/// Retransmission counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequesterStats {
    /// Packets sent again.
    pub retransmitted_packets: u64,
    /// Payload bytes sent again.
    pub retransmitted_bytes: u64,
    /// NAKs received.
    pub naks: u64,
    /// Local ACK timeouts.
    pub timeouts: u64,
}

/// What the requester can send now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxPoll {
    /// Send this packet.
    Send(TxRequest),
    /// The next request is not ready before this time (NIC latency of its work request).
    Wait(Time),
    /// Nothing to send until an ACK opens the window or a request is posted.
    Idle,
}

/// Requester state of one RC QP. Laid out by use (`repr(C)`, from a cache-line boundary):
/// what a poll reads in the first two lines, the request being sent among it, so that a poll
/// reads no line of the requests' ring (a cache miss of its own on most packets of the k = 32
/// fat tree, where the QPs are many).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Requester {
    /// A copy of `wqes[send_idx]` while `send_idx < wqes.len()` (stale otherwise), as posted:
    /// its `acked` and `read_done`, which change in the ring, are not read here.
    sending: Wqe,
    /// Index in `wqes` of the request holding `next_psn` (`wqes.len()` when all is sent).
    send_idx: usize,
    next_psn: u32,
    /// One past the highest PSN ever sent.
    high_psn: u32,
    /// Oldest unacknowledged PSN.
    una_psn: u32,
    read_gap: bool,
    failed: bool,
    wqes: VecDeque<Wqe>,
    cfg: RcConfig,
    /// The retransmit timer's deadline ([`NO_DEADLINE`]: not running), in the second line,
    /// which a poll reads and the look ahead fetches: an `Option` here took 16 bytes across
    /// the end of that line, and every re-arm of the queue pair's timer missed on the third
    /// (k = 32 fat tree, late in the run).
    deadline: Time,
    /// PSN the next posted request starts at.
    tail_psn: u32,
    retries: u32,
    /// Counters.
    pub stats: RequesterStats,
}

/// [`Requester::deadline`]'s value when the timer is not running (no deadline is that late:
/// a run ends before `Time::MAX`).
const NO_DEADLINE: Time = Time::MAX;

const _: () = assert!(std::mem::offset_of!(Requester, deadline) + 8 <= 128);

impl Requester {
    /// A requester starting at PSN `initial_psn`.
    pub fn new(cfg: RcConfig, initial_psn: u32) -> Self {
        let p = initial_psn & super::PSN_MASK;
        Requester {
            sending: Wqe {
                id: 0,
                op: RdmaOp::Write,
                len: 0,
                first_psn: p,
                npkts: 0,
                ready_at: 0,
                acked: false,
                read_done: 0,
            },
            cfg,
            wqes: VecDeque::new(),
            send_idx: 0,
            next_psn: p,
            high_psn: p,
            una_psn: p,
            tail_psn: p,
            retries: 0,
            deadline: NO_DEADLINE,
            read_gap: false,
            failed: false,
            stats: RequesterStats::default(),
        }
    }

    /// Post a work request of `len` bytes (at most [`super::MAX_MESSAGE_BYTES`]) that the NIC
    /// may start at `ready_at`. Returns its first PSN.
    pub fn post(&mut self, id: u64, op: RdmaOp, len: u64, ready_at: Time) -> u32 {
        debug_assert!(len <= super::MAX_MESSAGE_BYTES);
        let npkts = packets_of(len, self.cfg.path_mtu);
        let first_psn = self.tail_psn;
        self.tail_psn = psn_add(self.tail_psn, npkts);
        let w = Wqe { id, op, len, first_psn, npkts, ready_at, acked: false, read_done: 0 };
        if self.send_idx == self.wqes.len() {
            self.sending = w;
        }
        self.wqes.push_back(w);
        first_psn
    }

    /// Work requests posted and not completed.
    pub fn outstanding_requests(&self) -> usize {
        self.wqes.len()
    }

    /// Whether the QP went to the error state (retries exhausted).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The retransmit timer's deadline, if running.
    pub fn deadline(&self) -> Option<Time> {
        (self.deadline != NO_DEADLINE).then_some(self.deadline)
    }

    /// PSN of the next new or retransmitted packet.
    pub fn next_psn(&self) -> u32 {
        self.next_psn
    }

    /// Oldest unacknowledged PSN.
    pub fn una_psn(&self) -> u32 {
        self.una_psn
    }

    /// Whether a packet waits to be sent and the window lets it go (its work request may not be
    /// ready yet).
    pub fn has_packet(&self) -> bool {
        !self.failed
            && self.send_idx < self.wqes.len()
            && psn_diff(self.next_psn, self.una_psn) < self.cfg.window_packets as i32
    }

    /// The next packet to send at `now`, if any; sending it is the caller's commitment.
    pub fn poll(&mut self, now: Time) -> TxPoll {
        if self.failed || self.send_idx >= self.wqes.len() {
            return TxPoll::Idle;
        }
        if psn_diff(self.next_psn, self.una_psn) >= self.cfg.window_packets as i32 {
            return TxPoll::Idle;
        }
        let w = self.sending;
        debug_assert_eq!((w.id, w.first_psn), (self.wqes[self.send_idx].id, self.wqes[self.send_idx].first_psn));
        if w.ready_at > now {
            return TxPoll::Wait(w.ready_at);
        }
        let mtu = self.cfg.path_mtu as u64;
        let i = psn_diff(self.next_psn, w.first_psn).max(0) as u32;
        let psn = self.next_psn;
        let req = match w.op {
            RdmaOp::Read => {
                let remaining = w.len - (i as u64 * mtu).min(w.len);
                self.next_psn = psn_add(w.first_psn, w.npkts);
                self.advance();
                TxRequest {
                    opcode: wire::READ_REQUEST,
                    psn,
                    payload: 0,
                    reth_len: Some(remaining as u32),
                    wqe: w.id,
                    retransmission: false,
                }
            }
            op => {
                let write = op == RdmaOp::Write;
                let payload = (w.len - i as u64 * mtu).min(mtu) as u32;
                self.next_psn = psn_add(psn, 1);
                if i + 1 == w.npkts {
                    self.advance();
                }
                TxRequest {
                    opcode: request_opcode(write, i, w.npkts),
                    psn,
                    payload,
                    reth_len: (write && i == 0).then_some(w.len as u32),
                    wqe: w.id,
                    retransmission: false,
                }
            }
        };
        let retransmission = psn_diff(psn, self.high_psn) < 0;
        if retransmission {
            self.stats.retransmitted_packets += 1;
            self.stats.retransmitted_bytes += req.payload as u64;
        }
        if psn_diff(self.next_psn, self.high_psn) > 0 {
            self.high_psn = self.next_psn;
        }
        if self.deadline == NO_DEADLINE {
            self.deadline = now + self.cfg.timeout_ps;
        }
        TxPoll::Send(TxRequest { retransmission, ..req })
    }

    /// An ACK or NAK (AETH `syndrome`, BTH `psn`) arrived at `now`.
    pub fn on_ack(&mut self, now: Time, psn: u32, syndrome: u8) -> RequesterEvent {
        if self.failed {
            return RequesterEvent::Ignored;
        }
        if wire::syndrome_is_ack(syndrome) {
            // Acknowledges every PSN up to `psn`; valid if una <= psn < high.
            if psn_diff(psn, self.una_psn) < 0 || psn_diff(psn, self.high_psn) >= 0 {
                return RequesterEvent::Ignored;
            }
            self.acknowledge_before(psn_add(psn, 1));
            self.progress(now);
            RequesterEvent::Progress
        } else if syndrome == wire::SYNDROME_NAK_PSN_SEQUENCE {
            // The responder expects `psn`: everything before is acknowledged, send from it.
            if psn_diff(psn, self.una_psn) < 0 || psn_diff(psn, self.high_psn) >= 0 {
                return RequesterEvent::Ignored;
            }
            self.acknowledge_before(psn);
            self.stats.naks += 1;
            if psn_diff(psn, self.next_psn) < 0 {
                self.rewind(psn);
            }
            self.progress(now);
            RequesterEvent::Nak
        } else {
            RequesterEvent::Ignored
        }
    }

    /// A READ response packet (`psn`) arrived at `now`.
    pub fn on_read_response(&mut self, now: Time, psn: u32) -> RequesterEvent {
        if self.failed {
            return RequesterEvent::Ignored;
        }
        let Some(k) = self.wqes.iter().position(|w| w.op == RdmaOp::Read && w.contains(psn)) else {
            return RequesterEvent::Ignored;
        };
        let w = self.wqes[k];
        if psn_diff(w.first_psn, self.high_psn) >= 0 {
            // Never requested.
            return RequesterEvent::Ignored;
        }
        let expected = psn_add(w.first_psn, w.read_done);
        match psn_diff(psn, expected) {
            0 => {
                self.wqes[k].read_done += 1;
                self.read_gap = false;
                // A response acknowledges every request before it (IBA §9.7.5.1.3).
                self.acknowledge_before(psn_add(psn, 1));
                self.progress(now);
                RequesterEvent::ReadData
            }
            d if d > 0 => {
                if !self.read_gap {
                    self.read_gap = true;
                    if psn_diff(expected, self.next_psn) < 0 {
                        self.rewind(expected);
                    }
                }
                RequesterEvent::ReadGap
            }
            _ => RequesterEvent::Ignored,
        }
    }

    /// The retransmit timer (see [`Self::deadline`]) at `now`.
    pub fn on_timer(&mut self, now: Time) -> RequesterEvent {
        match self.deadline() {
            Some(d) if d <= now && !self.failed => {}
            _ => return RequesterEvent::Ignored,
        }
        self.stats.timeouts += 1;
        self.retries += 1;
        if self.retries > self.cfg.retry_count {
            self.failed = true;
            self.deadline = NO_DEADLINE;
            return RequesterEvent::Failed;
        }
        let resume = self.resume_psn();
        self.rewind(resume);
        self.read_gap = false;
        self.deadline = now + self.cfg.timeout_ps;
        RequesterEvent::Timeout
    }

    /// The oldest completed request, in posting order.
    pub fn take_completion(&mut self) -> Option<Completion> {
        let w = self.wqes.front()?;
        if !w.complete() {
            return None;
        }
        let w = self.wqes.pop_front()?;
        if self.send_idx == 0 {
            // The request being sent was the one completed: the next is.
            self.copy_sending();
        }
        self.send_idx = self.send_idx.saturating_sub(1);
        Some(Completion { id: w.id, op: w.op, len: w.len })
    }

    /// Mark every PSN before `psn` acknowledged.
    fn acknowledge_before(&mut self, psn: u32) {
        if psn_diff(psn, self.una_psn) > 0 {
            self.una_psn = psn;
        }
        for w in self.wqes.iter_mut() {
            if psn_diff(psn_add(w.first_psn, w.npkts), self.una_psn) > 0 {
                break;
            }
            if w.op != RdmaOp::Read {
                w.acked = true;
            }
        }
    }

    /// Where a timeout restarts: the missing part of the oldest incomplete request.
    fn resume_psn(&self) -> u32 {
        match self.wqes.iter().find(|w| !w.complete()) {
            Some(w) if w.op == RdmaOp::Read => psn_add(w.first_psn, w.read_done),
            Some(w) if psn_diff(self.una_psn, w.first_psn) < 0 => w.first_psn,
            _ => self.una_psn,
        }
    }

    /// Send again from `psn` (go-back-N).
    fn rewind(&mut self, psn: u32) {
        self.next_psn = psn;
        self.send_idx = self.wqes.iter().position(|w| w.contains(psn)).unwrap_or(self.wqes.len());
        self.copy_sending();
    }

    /// The next request is the one to send.
    fn advance(&mut self) {
        self.send_idx += 1;
        self.copy_sending();
    }

    /// `sending` from the ring, after `send_idx` moved to another request.
    fn copy_sending(&mut self) {
        if let Some(&w) = self.wqes.get(self.send_idx) {
            self.sending = w;
        }
    }

    /// Something was acknowledged: the retries start over and the timer restarts while anything
    /// is outstanding.
    fn progress(&mut self, now: Time) {
        self.retries = 0;
        let outstanding = self.una_psn != self.high_psn
            || self.wqes.iter().take(self.send_idx).any(|w| w.op == RdmaOp::Read && !w.complete());
        self.deadline = if outstanding { now + self.cfg.timeout_ps } else { NO_DEADLINE };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdma::wire::*;
    use crate::rdma::PSN_MASK;
    use crate::time::US;

    fn cfg(mtu: u32, window: u32) -> RcConfig {
        RcConfig { path_mtu: mtu, window_packets: window, ack_every_packets: 16, timeout_ps: 100 * US, retry_count: 2 }
    }

    fn send(r: &mut Requester, now: Time) -> TxRequest {
        match r.poll(now) {
            TxPoll::Send(t) => t,
            other => panic!("expected a packet, got {other:?}"),
        }
    }

    #[test]
    fn segments_a_write_by_the_path_mtu() {
        let mut r = Requester::new(cfg(1024, 128), 0);
        r.post(1, RdmaOp::Write, 2500, 0);
        let pkts: Vec<TxRequest> = (0..3).map(|_| send(&mut r, 0)).collect();
        assert_eq!(pkts.iter().map(|p| p.opcode).collect::<Vec<_>>(), [WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST]);
        assert_eq!(pkts.iter().map(|p| p.payload).collect::<Vec<_>>(), [1024, 1024, 452]);
        assert_eq!(pkts.iter().map(|p| p.psn).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(pkts[0].reth_len, Some(2500), "RETH on the first packet only");
        assert_eq!(pkts[1].reth_len, None);
        assert_eq!(r.poll(0), TxPoll::Idle);
        // One packet: ONLY. SEND has no RETH.
        r.post(2, RdmaOp::Send, 10, 0);
        let p = send(&mut r, 0);
        assert_eq!((p.opcode, p.psn, p.reth_len), (SEND_ONLY, 3, None));
        // Every MTU: 256 .. 4096.
        for mtu in super::super::wire::PATH_MTUS {
            let mut r = Requester::new(cfg(mtu, 1 << 20), 0);
            r.post(1, RdmaOp::Write, 65536, 0);
            let mut n = 0;
            while let TxPoll::Send(p) = r.poll(0) {
                assert!(p.payload <= mtu);
                n += 1;
            }
            assert_eq!(n, 65536 / mtu);
        }
    }

    #[test]
    fn waits_for_the_nic_and_the_window() {
        let mut r = Requester::new(cfg(1024, 2), 0);
        r.post(1, RdmaOp::Write, 4096, 5 * US);
        assert_eq!(r.poll(0), TxPoll::Wait(5 * US));
        send(&mut r, 5 * US);
        send(&mut r, 5 * US);
        assert_eq!(r.poll(5 * US), TxPoll::Idle, "window of 2 full");
        assert_eq!(r.on_ack(6 * US, 0, SYNDROME_ACK), RequesterEvent::Progress);
        assert_eq!(send(&mut r, 6 * US).psn, 2);
    }

    #[test]
    fn psn_wraps_around_2_to_the_24() {
        let mut r = Requester::new(cfg(1024, 128), PSN_MASK - 1);
        r.post(1, RdmaOp::Write, 4096, 0);
        let psns: Vec<u32> = (0..4).map(|_| send(&mut r, 0).psn).collect();
        assert_eq!(psns, [PSN_MASK - 1, PSN_MASK, 0, 1]);
        // ACK of PSN 0 covers the three before it.
        assert_eq!(r.on_ack(0, 0, SYNDROME_ACK), RequesterEvent::Progress);
        assert_eq!(r.una_psn(), 1);
        assert_eq!(r.take_completion(), None);
        assert_eq!(r.on_ack(0, 1, SYNDROME_ACK), RequesterEvent::Progress);
        assert_eq!(r.take_completion(), Some(Completion { id: 1, op: RdmaOp::Write, len: 4096 }));
        assert_eq!(r.deadline(), None, "nothing outstanding");
    }

    #[test]
    fn go_back_n_after_a_nak() {
        let mut r = Requester::new(cfg(1024, 128), 100);
        r.post(1, RdmaOp::Write, 8 * 1024, 0);
        for _ in 0..8 {
            send(&mut r, 0);
        }
        // PSN 103 was lost: the responder NAKs it (acknowledging 100..=102).
        assert_eq!(r.on_ack(10 * US, 103, SYNDROME_NAK_PSN_SEQUENCE), RequesterEvent::Nak);
        assert_eq!(r.una_psn(), 103);
        let again: Vec<TxRequest> = (0..5).map(|_| send(&mut r, 10 * US)).collect();
        assert_eq!(again.iter().map(|p| p.psn).collect::<Vec<_>>(), [103, 104, 105, 106, 107]);
        assert!(again.iter().all(|p| p.retransmission));
        assert_eq!(again[4].opcode, WRITE_LAST);
        assert_eq!(r.stats.retransmitted_packets, 5);
        assert_eq!(r.stats.retransmitted_bytes, 5 * 1024);
        assert_eq!(r.stats.naks, 1);
        // A stale NAK (before una) and an ACK for an unsent PSN are ignored.
        assert_eq!(r.on_ack(11 * US, 101, SYNDROME_NAK_PSN_SEQUENCE), RequesterEvent::Ignored);
        assert_eq!(r.on_ack(11 * US, 200, SYNDROME_ACK), RequesterEvent::Ignored);
        assert_eq!(r.on_ack(12 * US, 107, SYNDROME_ACK), RequesterEvent::Progress);
        assert!(r.take_completion().is_some());
    }

    #[test]
    fn timeout_retransmits_then_fails_after_the_retry_count() {
        let mut r = Requester::new(cfg(1024, 128), 0);
        r.post(1, RdmaOp::Write, 2048, 0);
        send(&mut r, 0);
        send(&mut r, 0);
        assert_eq!(r.deadline(), Some(100 * US));
        assert_eq!(r.on_timer(50 * US), RequesterEvent::Ignored, "not due");
        r.on_ack(10 * US, 0, SYNDROME_ACK);
        assert_eq!(r.deadline(), Some(110 * US), "progress restarts the timer");
        assert_eq!(r.on_timer(110 * US), RequesterEvent::Timeout);
        let p = send(&mut r, 110 * US);
        assert_eq!((p.psn, p.retransmission, p.opcode), (1, true, WRITE_LAST));
        assert_eq!(r.on_timer(210 * US), RequesterEvent::Timeout);
        send(&mut r, 210 * US);
        assert_eq!(r.on_timer(310 * US), RequesterEvent::Failed, "retry count 2 exhausted");
        assert!(r.failed());
        assert_eq!(r.poll(400 * US), TxPoll::Idle);
        assert_eq!(r.stats.timeouts, 3);
    }

    #[test]
    fn read_requests_take_a_psn_per_response_and_complete_on_the_last() {
        let mut r = Requester::new(cfg(1024, 128), 0);
        r.post(1, RdmaOp::Read, 3000, 0);
        r.post(2, RdmaOp::Write, 100, 0);
        let q = send(&mut r, 0);
        assert_eq!((q.opcode, q.psn, q.reth_len, q.payload), (READ_REQUEST, 0, Some(3000), 0));
        let w = send(&mut r, 0);
        assert_eq!((w.opcode, w.psn), (WRITE_ONLY, 3), "the READ took PSNs 0..=2");
        // The WRITE is acknowledged first, but completions keep posting order.
        assert_eq!(r.on_ack(1, 3, SYNDROME_ACK), RequesterEvent::Progress);
        assert_eq!(r.take_completion(), None, "the READ before it is not complete");
        assert!(r.deadline().is_some(), "the timer runs while a READ is incomplete");
        assert_eq!(r.on_read_response(2, 0), RequesterEvent::ReadData);
        // Response 2 before 1: a gap, the READ is asked for again from PSN 1 (once).
        assert_eq!(r.on_read_response(3, 2), RequesterEvent::ReadGap);
        assert_eq!(r.on_read_response(3, 2), RequesterEvent::ReadGap);
        let q = send(&mut r, 3);
        assert_eq!((q.opcode, q.psn, q.reth_len), (READ_REQUEST, 1, Some(3000 - 1024)));
        assert!(q.retransmission);
        assert_eq!(r.on_read_response(4, 1), RequesterEvent::ReadData);
        assert_eq!(r.on_read_response(4, 1), RequesterEvent::Ignored, "duplicate");
        assert_eq!(r.on_read_response(5, 2), RequesterEvent::ReadData);
        assert_eq!(r.take_completion().map(|c| c.op), Some(RdmaOp::Read));
        assert_eq!(r.take_completion().map(|c| c.id), Some(2), "then the WRITE acknowledged earlier");
        assert_eq!(r.poll(5), TxPoll::Idle, "a completed request is not sent again");
        assert_eq!(r.deadline(), None);
    }
}
