//! Congestion control of the RDMA transport, behind one trait.
//!
//! A [`CongestionControl`] lives at the side of a queue pair that sends the data (the
//! requester of a WRITE or SEND, the responder of a READ) and answers one question: how fast
//! may this QP send now? It is told what happens — a CNP arrived, an ACK acknowledged bytes,
//! the QP sent a packet, its timer fired — and says when it wants its timer. The engine merges
//! that timer with the QP's retransmit timer into one pending event per QP.
//!
//! Implemented: [`CcState::None`] (no end-to-end control: PFC alone keeps the fabric lossless)
//! and [`CcState::Dcqcn`] (DCQCN, Zhu et al. SIGCOMM 2015: a rate limiter driven by CNPs, see
//! [`dcqcn`]). Window- and delay-based schemes (HPCC, TIMELY, DCTCP for RDMA) fit the same
//! trait: they read [`CongestionControl::on_ack`]'s acknowledged bytes and round-trip time and
//! answer [`CongestionControl::rate_bps`] (a window is a rate over the RTT). Dispatch is by
//! `match` on the enum, so the hot path has no virtual calls.

pub mod dcqcn;

pub use dcqcn::{AlphaUpdate, DcqcnParams, NotificationPoint, RateIncrease, RateReduce, ReactionPoint};

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// What a sender's congestion control is told and what it answers.
pub trait CongestionControl {
    /// A congestion notification packet for this QP arrived at `now`.
    fn on_cnp(&mut self, now: Time);
    /// An ACK (or READ response) acknowledged `acked_bytes` of payload at `now`; `rtt` when the
    /// sender measured one.
    fn on_ack(&mut self, now: Time, acked_bytes: u64, rtt: Option<Time>);
    /// The QP put a frame of `frame_bytes` on the wire at `now`.
    fn on_sent(&mut self, now: Time, frame_bytes: u64);
    /// The timer asked for by [`Self::next_timer`] fired at `now`.
    fn on_timer(&mut self, now: Time);
    /// When the algorithm wants [`Self::on_timer`] called; `None`: never.
    fn next_timer(&self) -> Option<Time>;
    /// The sending rate allowed now, bit/s on the wire (frame plus preamble and gap), or `None`
    /// when the QP may send as fast as its port.
    fn rate_bps(&self) -> Option<f64>;
}

/// Which algorithm the senders run, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum CcAlgorithm {
    /// No end-to-end congestion control: PFC alone.
    #[default]
    None,
    /// DCQCN reaction point (and, at the receivers, notification point).
    Dcqcn(DcqcnParams),
}

/// Per-QP congestion-control state of a data sender. Kept inline (not boxed): QPs live in one
/// arena and in a DCQCN fabric every QP has the large variant, so a box would only add a
/// pointer chase per packet.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum CcState {
    /// Nothing to do.
    None,
    /// DCQCN reaction point.
    Dcqcn(ReactionPoint),
}

impl CcState {
    /// The state a new QP starts with, on a port of `line_bps`; `reaction_point` false means
    /// the sender ignores CNPs (DCQCN's RP switched off at this NIC).
    pub fn new(alg: &CcAlgorithm, line_bps: u64, reaction_point: bool) -> Self {
        match alg {
            CcAlgorithm::Dcqcn(p) if reaction_point => CcState::Dcqcn(ReactionPoint::new(*p, line_bps)),
            _ => CcState::None,
        }
    }

    /// The DCQCN reaction point, if that is the algorithm.
    pub fn dcqcn(&self) -> Option<&ReactionPoint> {
        match self {
            CcState::Dcqcn(rp) => Some(rp),
            CcState::None => None,
        }
    }
}

impl CongestionControl for CcState {
    #[inline]
    fn on_cnp(&mut self, now: Time) {
        if let CcState::Dcqcn(rp) = self {
            rp.on_cnp(now);
        }
    }
    #[inline]
    fn on_ack(&mut self, now: Time, acked_bytes: u64, rtt: Option<Time>) {
        if let CcState::Dcqcn(rp) = self {
            rp.on_ack(now, acked_bytes, rtt);
        }
    }
    #[inline]
    fn on_sent(&mut self, now: Time, frame_bytes: u64) {
        if let CcState::Dcqcn(rp) = self {
            rp.on_sent(now, frame_bytes);
        }
    }
    #[inline]
    fn on_timer(&mut self, now: Time) {
        if let CcState::Dcqcn(rp) = self {
            rp.on_timer(now);
        }
    }
    #[inline]
    fn next_timer(&self) -> Option<Time> {
        match self {
            CcState::Dcqcn(rp) => rp.next_timer(),
            CcState::None => None,
        }
    }
    #[inline]
    fn rate_bps(&self) -> Option<f64> {
        match self {
            CcState::Dcqcn(rp) => rp.rate_bps(),
            CcState::None => None,
        }
    }
}
