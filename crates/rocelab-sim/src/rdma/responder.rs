//! The responder side of an RC queue pair.
//!
//! It accepts request packets in PSN order only (IBA §9.7.5.1.1). In order: the payload is the
//! application's, the expected PSN advances (by the number of response packets for a READ), the
//! MSN advances at the end of each message, and an ACK is scheduled at the end of every message
//! and every [`RcConfig::ack_every_packets`] packets (coalescing, IBA §9.7.5.1.2; see that field
//! for the rule's source). Ahead of the expected PSN: discarded, and a NAK (PSN sequence error)
//! is scheduled once for the episode, until the expected packet arrives (IBA §9.7.5.2.1).
//! Behind it (a duplicate): discarded and acknowledged again; a duplicate READ request is
//! executed again from its PSN (IBA §9.7.5.1.4), which is how a requester recovers lost READ
//! responses. READ responses go out in PSN order, segmented by the path MTU, with an AETH on the
//! first, last and only packet.
//!
//! At most one ACK/NAK is pending: a newer one replaces it (a NAK for PSN `p` acknowledges
//! everything before `p`, an ACK for `p` everything up to it, so the newer one says all the
//! older one did). A responder made with [`Responder::queueing_acks`] keeps each one instead and
//! sends them all, in order, as the ns-3 HPCC simulator's NIC does with its ACK queue.

use super::wire::{self, read_response_opcode};
use super::{packets_of, psn_add, psn_diff, RcConfig};
use crate::time::Time;
use std::collections::VecDeque;

/// What the responder made of a request packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxVerdict {
    /// In order: `payload` bytes are the application's; `message_end` when this packet ended a
    /// SEND or WRITE message (or was a READ request).
    Accepted {
        /// Payload bytes placed.
        payload: u32,
        /// This packet ends a message.
        message_end: bool,
    },
    /// Already received: discarded (and acknowledged again).
    Duplicate,
    /// Ahead of the expected PSN: discarded (a NAK is sent once per episode).
    OutOfSequence,
}

/// An ACK or NAK to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlAck {
    /// BTH PSN: the last PSN acknowledged (ACK) or the expected one (NAK).
    pub psn: u32,
    /// AETH syndrome.
    pub syndrome: u8,
    /// AETH MSN.
    pub msn: u32,
    /// It carries a congestion notification (see [`crate::spec::CnpMode::AckFlag`]).
    pub cnp: bool,
}

/// A READ response packet to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadResponse {
    /// BTH opcode.
    pub opcode: u8,
    /// BTH PSN.
    pub psn: u32,
    /// Payload bytes.
    pub payload: u32,
    /// AETH (packed), on the first, last and only response.
    pub aeth: Option<u32>,
    /// Sent again for a duplicate READ request.
    pub retransmission: bool,
}

#[derive(Clone, Copy, Debug)]
struct ReadJob {
    psn: u32,
    len: u64,
    npkts: u32,
    sent: u32,
    msn: u32,
    ready_at: Time,
    again: bool,
}

/// Responder state of one RC QP.
#[derive(Clone, Debug)]
pub struct Responder {
    cfg: RcConfig,
    epsn: u32,
    msn: u32,
    nak_sent: bool,
    since_ack: u32,
    pending: VecDeque<ControlAck>,
    /// Keep every ACK and NAK made, none replacing another.
    queue_acks: bool,
    reads: VecDeque<ReadJob>,
    /// NAKs sent.
    pub naks: u64,
    /// Duplicate packets received.
    pub duplicates: u64,
    /// Out-of-sequence packets discarded.
    pub out_of_sequence: u64,
}

impl Responder {
    /// A responder expecting PSN `initial_psn` first.
    pub fn new(cfg: RcConfig, initial_psn: u32) -> Self {
        Responder {
            cfg,
            epsn: initial_psn & super::PSN_MASK,
            msn: 0,
            nak_sent: false,
            since_ack: 0,
            pending: VecDeque::new(),
            queue_acks: false,
            reads: VecDeque::new(),
            naks: 0,
            duplicates: 0,
            out_of_sequence: 0,
        }
    }

    /// The expected PSN.
    pub fn expected_psn(&self) -> u32 {
        self.epsn
    }

    /// Messages completed (24-bit MSN).
    pub fn msn(&self) -> u32 {
        self.msn
    }

    /// A request packet arrived. `reth_len` is the RETH DMA length of a READ request; READ
    /// responses may start at `read_ready_at` (after the NIC has fetched the data).
    pub fn on_request(&mut self, opcode: u8, psn: u32, payload: u32, reth_len: u32, read_ready_at: Time) -> RxVerdict {
        let d = psn_diff(psn, self.epsn);
        if d > 0 {
            self.out_of_sequence += 1;
            if !self.nak_sent {
                self.nak_sent = true;
                self.naks += 1;
                self.since_ack = 0;
                let nak =
                    ControlAck { psn: self.epsn, syndrome: wire::SYNDROME_NAK_PSN_SEQUENCE, msn: self.msn, cnp: false };
                self.push_control(nak);
            }
            return RxVerdict::OutOfSequence;
        }
        if d < 0 {
            self.duplicates += 1;
            if opcode == wire::READ_REQUEST {
                self.queue_read(psn, reth_len, read_ready_at, true);
            } else {
                self.ack(psn_add(self.epsn, super::PSN_MASK));
            }
            return RxVerdict::Duplicate;
        }
        self.nak_sent = false;
        if opcode == wire::READ_REQUEST {
            let npkts = packets_of(reth_len as u64, self.cfg.path_mtu);
            self.epsn = psn_add(self.epsn, npkts);
            self.msn = psn_add(self.msn, 1);
            self.queue_read(psn, reth_len, read_ready_at, false);
            // The responses acknowledge what came before.
            self.since_ack = 0;
            return RxVerdict::Accepted { payload: 0, message_end: true };
        }
        self.epsn = psn_add(self.epsn, 1);
        self.since_ack += 1;
        let message_end = wire::ends_message(opcode);
        if message_end {
            self.msn = psn_add(self.msn, 1);
        }
        if message_end || self.since_ack >= self.cfg.ack_every_packets {
            self.ack(psn);
        }
        RxVerdict::Accepted { payload, message_end }
    }

    fn ack(&mut self, psn: u32) {
        self.since_ack = 0;
        self.push_control(ControlAck { psn, syndrome: wire::SYNDROME_ACK, msn: self.msn, cnp: false });
    }

    fn push_control(&mut self, a: ControlAck) {
        if !self.queue_acks {
            self.pending.clear();
        }
        self.pending.push_back(a);
    }

    /// The same responder, keeping every ACK and NAK it makes until sent, in order, instead of
    /// the newest alone.
    pub fn queueing_acks(mut self) -> Self {
        self.queue_acks = true;
        self
    }

    /// Flag the newest pending ACK or NAK as carrying a congestion notification; false when
    /// none is pending.
    pub fn flag_cnp(&mut self) -> bool {
        match self.pending.back_mut() {
            Some(a) => {
                a.cnp = true;
                true
            }
            None => false,
        }
    }

    fn queue_read(&mut self, psn: u32, len: u32, ready_at: Time, again: bool) {
        let npkts = packets_of(len as u64, self.cfg.path_mtu);
        self.reads.push_back(ReadJob { psn, len: len as u64, npkts, sent: 0, msn: self.msn, ready_at, again });
    }

    /// Whether an ACK or NAK is waiting to be sent.
    pub fn has_control(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The pending ACK or NAK, to be sent now.
    pub fn take_control(&mut self) -> Option<ControlAck> {
        self.pending.pop_front()
    }

    /// When the next READ response can go: `Some(t)` (maybe in the past), `None` if none queued.
    pub fn read_ready_at(&self) -> Option<Time> {
        self.reads.front().map(|j| j.ready_at)
    }

    /// The next READ response packet, if one is queued and ready at `now`.
    pub fn next_read_response(&mut self, now: Time) -> Option<ReadResponse> {
        let j = self.reads.front_mut()?;
        if j.ready_at > now {
            return None;
        }
        let mtu = self.cfg.path_mtu as u64;
        let i = j.sent;
        let payload = (j.len - (i as u64 * mtu).min(j.len)).min(mtu) as u32;
        let opcode = read_response_opcode(i, j.npkts);
        let aeth = wire::has_aeth(opcode).then(|| wire::pack_aeth(wire::SYNDROME_ACK, j.msn));
        let psn = psn_add(j.psn, i);
        let retransmission = j.again;
        j.sent += 1;
        if j.sent == j.npkts {
            self.reads.pop_front();
        }
        Some(ReadResponse { opcode, psn, payload, aeth, retransmission })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdma::wire::*;
    use crate::rdma::PSN_MASK;

    fn resp(ack_every: u32) -> Responder {
        let cfg = RcConfig { path_mtu: 1024, ack_every_packets: ack_every, ..RcConfig::default() };
        Responder::new(cfg, 0)
    }

    #[test]
    fn acks_are_coalesced_per_message_and_every_n_packets() {
        let mut r = resp(4);
        // A 10-packet WRITE: ACKs after packets 4 and 8 (every 4) and 10 (end of message).
        let mut acks = vec![];
        for i in 0..10u32 {
            let op = request_opcode(true, i, 10);
            let v = r.on_request(op, i, 1024, 0, 0);
            assert_eq!(v, RxVerdict::Accepted { payload: 1024, message_end: i == 9 });
            if let Some(a) = r.take_control() {
                acks.push(a);
            }
        }
        assert_eq!(acks.iter().map(|a| a.psn).collect::<Vec<_>>(), [3, 7, 9]);
        assert!(acks.iter().all(|a| a.syndrome == SYNDROME_ACK));
        assert_eq!(acks.iter().map(|a| a.msn).collect::<Vec<_>>(), [0, 0, 1], "MSN counts messages");
        // Unsent ACKs coalesce: two messages, one ACK (the newer) pending.
        r.on_request(SEND_ONLY, 10, 8, 0, 0);
        r.on_request(SEND_ONLY, 11, 8, 0, 0);
        assert_eq!(r.take_control(), Some(ControlAck { psn: 11, syndrome: SYNDROME_ACK, msn: 3, cnp: false }));
        assert!(!r.has_control());
    }

    #[test]
    fn a_queueing_responder_keeps_every_ack_and_its_flag() {
        let mut r = resp(1).queueing_acks();
        r.on_request(WRITE_FIRST, 0, 1024, 0, 0);
        assert!(r.flag_cnp(), "the ACK of packet 0 carries the flag");
        r.on_request(WRITE_LAST, 1, 1024, 0, 0);
        let a: Vec<(u32, bool)> = std::iter::from_fn(|| r.take_control()).map(|a| (a.psn, a.cnp)).collect();
        assert_eq!(a, [(0, true), (1, false)], "both sent, in order");
        assert!(!r.flag_cnp(), "nothing pending");
    }

    #[test]
    fn one_nak_per_out_of_sequence_episode() {
        let mut r = resp(16);
        r.on_request(WRITE_FIRST, 0, 1024, 0, 0);
        // PSN 1 lost: 2, 3, 4 arrive.
        assert_eq!(r.on_request(WRITE_MIDDLE, 2, 1024, 0, 0), RxVerdict::OutOfSequence);
        assert_eq!(
            r.take_control(),
            Some(ControlAck { psn: 1, syndrome: SYNDROME_NAK_PSN_SEQUENCE, msn: 0, cnp: false })
        );
        assert_eq!(r.on_request(WRITE_MIDDLE, 3, 1024, 0, 0), RxVerdict::OutOfSequence);
        assert_eq!(r.on_request(WRITE_LAST, 4, 1024, 0, 0), RxVerdict::OutOfSequence);
        assert_eq!(r.take_control(), None, "NAK once per episode");
        assert_eq!((r.naks, r.out_of_sequence), (1, 3));
        // The retransmission arrives: in order again; a later gap NAKs again.
        assert!(matches!(r.on_request(WRITE_MIDDLE, 1, 1024, 0, 0), RxVerdict::Accepted { .. }));
        assert_eq!(r.expected_psn(), 2);
        assert_eq!(r.on_request(WRITE_LAST, 4, 1024, 0, 0), RxVerdict::OutOfSequence);
        assert_eq!(r.take_control().map(|a| (a.psn, a.syndrome)), Some((2, SYNDROME_NAK_PSN_SEQUENCE)));
        // A duplicate is acknowledged again (up to the last in-order PSN).
        assert_eq!(r.on_request(WRITE_FIRST, 0, 1024, 0, 0), RxVerdict::Duplicate);
        assert_eq!(r.take_control().map(|a| (a.psn, a.syndrome)), Some((1, SYNDROME_ACK)));
    }

    #[test]
    fn read_responses_are_segmented_with_aeth_on_first_last_only() {
        let mut r = resp(16);
        assert_eq!(r.on_request(READ_REQUEST, 0, 0, 2500, 7), RxVerdict::Accepted { payload: 0, message_end: true });
        assert_eq!(r.expected_psn(), 3, "a READ takes a PSN per response packet");
        assert_eq!(r.read_ready_at(), Some(7));
        assert_eq!(r.next_read_response(6), None, "not fetched yet");
        let out: Vec<ReadResponse> = std::iter::from_fn(|| r.next_read_response(7)).collect();
        assert_eq!(
            out.iter().map(|p| (p.opcode, p.psn, p.payload)).collect::<Vec<_>>(),
            [(READ_RESPONSE_FIRST, 0, 1024), (READ_RESPONSE_MIDDLE, 1, 1024), (READ_RESPONSE_LAST, 2, 452)]
        );
        assert_eq!(out[0].aeth.map(unpack_aeth), Some((SYNDROME_ACK, 1)));
        assert_eq!(out[1].aeth, None);
        assert!(out[2].aeth.is_some());
        // A small READ: one ONLY response.
        r.on_request(READ_REQUEST, 3, 0, 8, 0);
        assert_eq!(r.next_read_response(0).map(|p| p.opcode), Some(READ_RESPONSE_ONLY));
        // A duplicate READ request (the requester lost responses) is executed again from its PSN.
        assert_eq!(r.on_request(READ_REQUEST, 1, 0, 2500 - 1024, 9), RxVerdict::Duplicate);
        let again: Vec<ReadResponse> = std::iter::from_fn(|| r.next_read_response(9)).collect();
        assert_eq!(again.iter().map(|p| p.psn).collect::<Vec<_>>(), [1, 2]);
        assert!(again.iter().all(|p| p.retransmission) && !out[0].retransmission);
    }

    #[test]
    fn expected_psn_wraps() {
        let cfg = RcConfig { path_mtu: 1024, ..RcConfig::default() };
        let mut r = Responder::new(cfg, PSN_MASK);
        assert!(matches!(r.on_request(WRITE_FIRST, PSN_MASK, 1024, 0, 0), RxVerdict::Accepted { .. }));
        assert!(matches!(r.on_request(WRITE_LAST, 0, 1024, 0, 0), RxVerdict::Accepted { message_end: true, .. }));
        assert_eq!(r.expected_psn(), 1);
        assert_eq!(r.on_request(WRITE_ONLY, PSN_MASK, 1024, 0, 0), RxVerdict::Duplicate);
    }
}
