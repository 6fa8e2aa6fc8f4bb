//! The receiving half of an endpoint: reassembly, the advertised window, when to acknowledge,
//! and the ECN-Echo state.

use super::{DelayedAck, SackBlocks, TcpConfig, TcpStats, MAX_UNSCALED_WINDOW};
use crate::packet::Ecn;
use crate::time::Time;

/// How the receiver echoes CE marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EceMode {
    /// ECN not negotiated.
    Off,
    /// RFC 3168 §6.1.3: set ECE on every ACK from a CE arrival until a CWR arrives.
    Latch,
    /// RFC 8257 §3.2: ECE mirrors the CE bit of the data being acknowledged; when it changes,
    /// the ACK for the data before the change goes out at once with the old value.
    Dctcp,
}

/// An ACK the receiver owes with a given ECE value (DCTCP's immediate ACK on a CE change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ForcedAck {
    pub ack: u64,
    pub ece: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Receiver {
    pub rcv_nxt: u64,
    /// Out-of-order intervals [start, end) beyond `rcv_nxt`, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    buffer: u64,
    /// Shift applied to advertised windows; `None` without window scaling.
    wscale: Option<u8>,
    delack: Option<DelayedAck>,
    mss: u64,
    /// Segments received since the last ACK went out.
    unacked_segments: u32,
    /// `rcv_nxt` when the last ACK went out (RFC 9293's RCV.WUP as Linux keeps it).
    last_acked: u64,
    /// Right edge of the last advertised window, which never moves left (RFC 9293 §3.8.6).
    right_edge: u64,
    quick: u32,
    pub ack_now: bool,
    pub delack_at: Option<Time>,
    mode: EceMode,
    ece: bool,
    pub forced: Option<ForcedAck>,
    /// SACK negotiated.
    sack: bool,
    /// Start of the latest out-of-order segment (its block goes first, RFC 2018 §4).
    last_ooo: Option<u64>,
}

impl Receiver {
    /// `peer_mss`: the MSS the peer sends with (what counts as a full-sized segment).
    pub fn new(cfg: &TcpConfig, wscale: Option<u8>, mode: EceMode, peer_mss: u32, sack: bool) -> Self {
        let delack = cfg.delayed_ack;
        // The window the handshake announced: the whole buffer, within 16 bits when unscaled.
        let initial = match wscale {
            None => (cfg.receive_buffer as u64).min(MAX_UNSCALED_WINDOW as u64),
            Some(_) => cfg.receive_buffer as u64,
        };
        Receiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            buffer: cfg.receive_buffer as u64,
            wscale,
            delack,
            mss: peer_mss as u64,
            unacked_segments: 0,
            last_acked: 0,
            right_edge: initial,
            quick: delack.map_or(0, |d| d.quickacks),
            ack_now: false,
            delack_at: None,
            mode,
            ece: false,
            forced: None,
            sack,
            last_ooo: None,
        }
    }

    /// The SACK blocks for the next ACK, at most `max`: the range holding the latest
    /// out-of-order segment, then the other ranges from the highest down (RFC 2018 §4 wants the
    /// most recent ones; the sender keeps what earlier ACKs told it).
    pub fn sack_blocks(&self, max: usize) -> SackBlocks {
        let mut b = SackBlocks::EMPTY;
        if !self.sack || self.ooo.is_empty() {
            return b;
        }
        let first = self.last_ooo.and_then(|s| self.ooo.iter().position(|&(a, e)| a <= s && s < e));
        if let Some(i) = first {
            b.push(self.ooo[i].0, self.ooo[i].1);
        }
        for (i, &(a, e)) in self.ooo.iter().enumerate().rev() {
            if b.len() >= max {
                break;
            }
            if Some(i) != first {
                b.push(a, e);
            }
        }
        b
    }

    fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    /// The window to advertise: the free buffer (the application reads in-order data at once,
    /// so only out-of-order data occupies it), at most 65,535 without scaling, rounded down to
    /// a multiple of 2^shift with it (RFC 7323 §2.3), and never so small that the right edge
    /// of the window would move left (RFC 9293 §3.8.6: a receiver should not shrink the window).
    pub fn window(&self) -> u32 {
        let free = self.buffer.saturating_sub(self.ooo_bytes());
        let w = match self.wscale {
            None => free.min(MAX_UNSCALED_WINDOW as u64),
            Some(s) => (free >> s).min(MAX_UNSCALED_WINDOW as u64) << s,
        };
        w.max(self.right_edge.saturating_sub(self.rcv_nxt)) as u32
    }

    /// Record the window advertised on a segment that went out.
    pub fn advertised(&mut self, window: u32) {
        self.right_edge = self.right_edge.max(self.rcv_nxt + window as u64);
    }

    /// The ECE flag for the next ACK.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// A segment arrived; returns the bytes newly deliverable in order.
    pub fn on_segment(&mut self, now: Time, seq: u64, len: u32, ecn: Ecn, cwr: bool, stats: &mut TcpStats) -> u64 {
        let ce = ecn == Ecn::Ce;
        if ce {
            stats.ce_received += 1;
        }
        match self.mode {
            EceMode::Off => {}
            EceMode::Latch => {
                if cwr {
                    self.ece = false;
                }
                if ce {
                    self.ece = true;
                }
            }
            EceMode::Dctcp => {
                if len > 0 && ce != self.ece {
                    if self.unacked_segments > 0 {
                        self.forced = Some(ForcedAck { ack: self.rcv_nxt, ece: self.ece });
                    }
                    self.ece = ce;
                    self.ack_now = true;
                }
            }
        }
        if len == 0 {
            return 0;
        }
        let end = seq + len as u64;
        if end <= self.rcv_nxt {
            // All old: the peer retransmitted what we have; tell it at once.
            self.ack_now = true;
            return 0;
        }
        let limit = self.rcv_nxt + self.buffer;
        if seq > self.rcv_nxt {
            // Out of order: keep what fits in the window, send a duplicate ACK now, and ACK every
            // segment for a while (Linux enters quick-ACK mode on out-of-order data).
            self.insert(seq, end.min(limit));
            self.last_ooo = Some(seq);
            self.ack_now = true;
            self.quick = self.delack.map_or(0, |d| d.quickacks);
            return 0;
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        let had_hole = !self.ooo.is_empty();
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
        self.unacked_segments += 1;
        match self.delack {
            None => self.ack_now = true,
            Some(d) => {
                // Linux `__tcp_ack_snd_check`: more than one full segment's worth unacknowledged
                // (generalised: more than `segments − 1`).
                let full = self.rcv_nxt - self.last_acked > (d.segments.max(1) as u64 - 1) * self.mss;
                if had_hole || full || self.quick > 0 {
                    self.ack_now = true;
                } else if self.delack_at.is_none() {
                    self.delack_at = Some(now + d.timeout);
                }
            }
        }
        self.rcv_nxt - before
    }

    /// Add [s, e) to the out-of-order set.
    fn insert(&mut self, s: u64, e: u64) {
        super::insert_range(&mut self.ooo, s, e);
    }

    /// Whether an ACK is due now.
    pub fn ack_due(&self) -> bool {
        self.ack_now || self.forced.is_some()
    }

    /// An ACK (pure or piggybacked) went out.
    pub fn acked(&mut self) {
        self.ack_now = false;
        self.unacked_segments = 0;
        self.last_acked = self.rcv_nxt;
        self.delack_at = None;
        self.quick = self.quick.saturating_sub(1);
    }

    /// The delayed-ACK timer fired at `now`.
    pub fn on_timer(&mut self, now: Time) -> bool {
        match self.delack_at {
            Some(t) if t <= now => {
                self.delack_at = None;
                self.ack_now = true;
                true
            }
            _ => false,
        }
    }
}
