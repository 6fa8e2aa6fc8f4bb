//! One endpoint of an established connection: a [`Sender`] and a [`Receiver`] sharing segments
//! (data carries ACKs) and one timer.

use super::cc::CcKind;
use super::receiver::{EceMode, Receiver};
use super::sender::Sender;
use super::{Actions, Flags, Segment, TcpConfig, TcpStats, MAX_UNSCALED_WINDOW};
use crate::packet::Ecn;
use crate::time::Time;

/// One end of a TCP connection (see the [module documentation](super)).
#[derive(Clone, Debug)]
pub struct TcpEndpoint {
    snd: Sender,
    rcv: Receiver,
    ecn: bool,
    /// ECT on pure ACKs too (Linux with DCTCP marks every packet ECT).
    ect_on_acks: bool,
    timestamps: bool,
    stats: TcpStats,
}

impl TcpEndpoint {
    /// Both ends of a connection as the handshake leaves them (RFC 7323 §2.2: scaling only when
    /// both offer it; RFC 3168 §6.1.1: ECN only when both offer it; the SYN's unscaled window
    /// is the first window each side sees).
    pub fn pair(a: &TcpConfig, b: &TcpConfig) -> (TcpEndpoint, TcpEndpoint) {
        let scaling = a.window_scaling && b.window_scaling;
        let ecn = a.ecn && b.ecn;
        let timestamps = a.timestamps && b.timestamps;
        // RFC 2018 §2: SACK only when both offer it on their SYNs.
        let sack = a.sack && b.sack;
        (Self::one(a, b, scaling, ecn, timestamps, sack), Self::one(b, a, scaling, ecn, timestamps, sack))
    }

    fn one(me: &TcpConfig, peer: &TcpConfig, scaling: bool, ecn: bool, timestamps: bool, sack: bool) -> TcpEndpoint {
        let peer_window = if scaling {
            peer.receive_buffer as u64
        } else {
            (peer.receive_buffer as u64).min(MAX_UNSCALED_WINDOW as u64)
        };
        let mode = match (ecn, me.congestion_control) {
            (false, _) => EceMode::Off,
            (true, CcKind::Dctcp) => EceMode::Dctcp,
            (true, _) => EceMode::Latch,
        };
        let wscale = scaling.then(|| me.window_scale());
        TcpEndpoint {
            snd: Sender::new(me, ecn, peer_window, sack),
            rcv: Receiver::new(me, wscale, mode, peer.mss, sack),
            ecn,
            ect_on_acks: ecn && me.congestion_control == CcKind::Dctcp,
            timestamps,
            stats: TcpStats::default(),
        }
    }

    /// The application writes `bytes` more to the stream.
    pub fn send(&mut self, bytes: u64) {
        self.snd.app_end += bytes;
    }

    /// Bytes written by the application and not yet acknowledged by the peer.
    pub fn unacked(&self) -> u64 {
        self.snd.app_end - self.snd.snd_una
    }

    /// Whether [`poll_transmit`](Self::poll_transmit) would return a segment now (with a full
    /// segment's room).
    pub fn wants_transmit(&self) -> bool {
        self.rcv.ack_due() || self.snd.next_data(u32::MAX).is_some()
    }

    /// The next segment to send at `now`, carrying at most `max_payload` bytes of data (0: only
    /// an ACK may go). DCTCP's forced ACK first, then retransmissions and new data (each
    /// carrying the current ACK), then a pure ACK when one is due.
    pub fn poll_transmit(&mut self, now: Time, max_payload: u32) -> Option<Segment> {
        if let Some(f) = self.rcv.forced.take() {
            let mut flags = Flags::empty();
            if f.ece {
                flags.insert(Flags::ECE);
            }
            self.stats.pure_acks += 1;
            return Some(self.segment(f.ack, 0, 0, flags, false, false));
        }
        // SACK blocks take option space from the payload (as Linux's `tcp_current_mss` does).
        let sack_room = self.rcv.sack_blocks(self.max_sack_blocks()).option_bytes();
        let room =
            if max_payload == 0 { 0 } else { max_payload.min(self.snd.mss as u32).saturating_sub(sack_room).max(1) };
        if let Some(d) = self.snd.next_data(room) {
            self.snd.sent(now, &d, &mut self.stats);
            let mut flags = self.ack_flags();
            if d.cwr {
                flags.insert(Flags::CWR);
            }
            if d.push {
                flags.insert(Flags::PSH);
            }
            let seg = self.segment(self.rcv.rcv_nxt, d.seq, d.len, flags, true, d.retransmission);
            self.rcv.acked();
            return Some(seg);
        }
        if self.rcv.ack_now {
            self.stats.pure_acks += 1;
            let seg = self.segment(self.rcv.rcv_nxt, self.snd.snd_nxt, 0, self.ack_flags(), false, false);
            self.rcv.acked();
            return Some(seg);
        }
        None
    }

    /// SACK blocks an ACK can carry: four, three beside the timestamps option (40 bytes of
    /// options at most, RFC 2018 §3).
    fn max_sack_blocks(&self) -> usize {
        if self.timestamps {
            3
        } else {
            4
        }
    }

    fn ack_flags(&self) -> Flags {
        let mut f = Flags::empty();
        if self.rcv.ece() {
            f.insert(Flags::ECE);
        }
        f
    }

    fn segment(&mut self, ack: u64, seq: u64, len: u32, flags: Flags, data: bool, rtx: bool) -> Segment {
        // RFC 3168 §6.1.4-6.1.5: ECT on new data; not on pure ACKs or retransmissions (DCTCP
        // stacks mark ACKs too).
        let ect = self.ecn && ((data && !rtx) || (!data && self.ect_on_acks));
        let window = self.rcv.window();
        self.rcv.advertised(window);
        let sack = self.rcv.sack_blocks(self.max_sack_blocks());
        let ecn = if ect { Ecn::Ect0 } else { Ecn::NotEct };
        Segment { seq, ack, len, window, flags, ecn, retransmission: rtx, sack }
    }

    /// A segment from the peer arrives at `now`.
    pub fn on_segment(&mut self, now: Time, seg: &Segment) -> Actions {
        let delivered =
            self.rcv.on_segment(now, seg.seq, seg.len, seg.ecn, seg.flags.contains(Flags::CWR), &mut self.stats);
        let ece = self.ecn && seg.flags.contains(Flags::ECE);
        let acked = self.snd.on_ack(now, seg.ack, seg.window as u64, ece, seg.len == 0, &seg.sack, &mut self.stats);
        Actions { delivered, acked, transmit: self.wants_transmit() }
    }

    /// The endpoint's timer fired at `now`: loss probe, retransmission timeout and/or delayed
    /// ACK.
    pub fn on_timer(&mut self, now: Time) -> Actions {
        // The probe first: when it falls due it restarts the retransmission timer (Linux has one
        // timer for both, and its first expiry is the probe).
        self.snd.on_probe_timer(now);
        self.snd.on_reorder_timer(now, &mut self.stats);
        self.snd.on_rto(now, &mut self.stats);
        self.rcv.on_timer(now);
        Actions { delivered: 0, acked: 0, transmit: self.wants_transmit() }
    }

    /// The earliest time [`on_timer`](Self::on_timer) has work: the engine keeps one timer
    /// event per endpoint at this time.
    pub fn next_deadline(&self) -> Option<Time> {
        [self.snd.rto_at, self.rcv.delack_at, self.snd.tlp.at, self.snd.rack.at].into_iter().flatten().min()
    }

    /// Counters.
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.snd.st.cwnd
    }
    /// Slow-start threshold, bytes.
    pub fn ssthresh(&self) -> u64 {
        self.snd.st.ssthresh
    }
    /// Bytes in flight (sent, not acknowledged).
    pub fn flight(&self) -> u64 {
        self.snd.flight()
    }
    /// The peer's advertised window, bytes.
    pub fn peer_window(&self) -> u64 {
        self.snd.rwnd
    }
    /// The current retransmission timeout.
    pub fn rto(&self) -> Time {
        self.snd.rtt.rto()
    }
    /// Smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Time> {
        self.snd.rtt.srtt()
    }
    /// Whether NewReno fast recovery is in progress.
    pub fn in_recovery(&self) -> bool {
        self.snd.recovery.is_some()
    }
    /// Whether the sender is in CWR: reducing its window after an ECN echo, for one round trip.
    pub fn in_cwr(&self) -> bool {
        self.snd.in_cwr()
    }
    /// Next offset expected from the peer.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv.rcv_nxt
    }
    /// The highest offset of this endpoint's stream sent so far.
    pub fn snd_max(&self) -> u64 {
        self.snd.snd_max
    }
    /// The stream offset the next data segment would start at (a pending retransmission's, else
    /// the next new byte's): where a framing layer such as iWARP's MPA cuts segments.
    pub fn next_send_offset(&self) -> u64 {
        self.snd.next_send_offset()
    }
    /// Bytes the application has written so far (the end of the stream).
    pub fn written(&self) -> u64 {
        self.snd.app_end
    }
    /// Whether ECN was negotiated.
    pub fn ecn(&self) -> bool {
        self.ecn
    }
    /// Offset of the first unacknowledged byte of this endpoint's stream.
    pub fn snd_una(&self) -> u64 {
        self.snd.snd_una
    }
    /// DCTCP's α (1/1024 units), for DCTCP senders.
    pub fn dctcp_alpha(&self) -> Option<u32> {
        match &self.snd.cc {
            super::cc::Cc::Dctcp(d) => Some(d.alpha),
            _ => None,
        }
    }
    /// Header bytes (IPv4 + TCP + options) of this connection's segments without SACK blocks
    /// (see [`Segment::sack`] for theirs).
    pub fn header_bytes(&self) -> u32 {
        super::header_bytes(self.timestamps)
    }
    /// Whether SACK was negotiated.
    pub fn sack(&self) -> bool {
        self.snd.sack_enabled()
    }
    /// Bytes of this endpoint's stream the peer has SACKed above its cumulative ACK.
    pub fn sacked_bytes(&self) -> u64 {
        self.snd.sacked_bytes()
    }
}
