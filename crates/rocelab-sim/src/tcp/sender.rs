//! The sending half of an endpoint: what may be sent, ACK processing, loss recovery and the
//! retransmission timer.

use super::cc::{AckSample, Cc, CcState, CongestionControl};
use super::hystart::HyStartExit;
use super::prr::{Prr, PrrAck};
use super::rack::Rack;
use super::rto::RttEstimator;
use super::tlp::{probe_timeout, TailLossProbe, TlpAck};
use super::{SackBlocks, TcpConfig, TcpStats};
use crate::time::Time;

mod scoreboard;

/// One data segment the sender decided to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DataOut {
    pub seq: u64,
    pub len: u32,
    pub retransmission: bool,
    pub cwr: bool,
    pub push: bool,
    /// The tail loss probe.
    pub probe: bool,
}

/// Sender state (RFC 9293 §3.3.1 names: SND.UNA, SND.NXT; `snd_max` is the highest offset ever
/// sent, which SND.NXT falls back from after a timeout).
#[derive(Clone, Debug)]
pub(super) struct Sender {
    pub mss: u64,
    nagle: bool,
    dupack_threshold: u32,
    ecn: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// End of the data the application has written.
    pub app_end: u64,
    /// The peer's receive window, bytes.
    pub rwnd: u64,
    pub cc: Cc,
    pub st: CcState,
    pub rtt: RttEstimator,
    /// RTT probe: (offset whose acknowledgement ends it, send time). Karn: cleared when any
    /// retransmission happens.
    rtt_probe: Option<(u64, Time)>,
    pub rto_at: Option<Time>,
    dupacks: u32,
    /// NewReno: `recover` while in fast recovery (RFC 6582 §3.2).
    pub recovery: Option<u64>,
    /// The highest offset sent when fast recovery or the last timeout began; a new fast
    /// retransmit needs the cumulative ACK beyond it (RFC 6582 §3.2 step 1, §4.1).
    recover_mark: Option<u64>,
    /// A segment at `snd_una` to retransmit first.
    rtx_pending: bool,
    /// ECN: no new reduction until an ACK covers data sent after the last one (one per window,
    /// RFC 3168 §6.1.2; Linux's `high_seq`).
    ecn_recover: Option<u64>,
    /// Send CWR on the next new data segment.
    cwr_pending: bool,
    /// Whether the window was full when new data last went out in this round trip (Linux's
    /// `is_cwnd_limited`, set by `tcp_cwnd_validate`): the window grows only if so, so that an
    /// application-limited sender's window does not grow without bound (RFC 7661's concern).
    cwnd_limited: bool,
    /// The most bytes in flight in this round trip (Linux's `max_packets_out`): in slow start
    /// the window may grow to twice it.
    max_out: u64,
    /// The round trip of `cwnd_limited` and `max_out` ends when the cumulative ACK reaches this
    /// (Linux's `cwnd_usage_seq`: SND.NXT when they were last set).
    cwnd_usage_end: u64,
    /// Linux's CWR state: an ECN echo reduced the window (at once, or over a round trip with
    /// PRR), and it does not grow until an ACK covers data sent after the echo
    /// (`ecn_recover`'s mark).
    cwr: bool,
    /// End of the last segment shorter than the MSS sent (Linux's `snd_sml`).
    snd_sml: u64,
    /// SACK negotiated: RFC 6675 loss recovery instead of NewReno's.
    sack: bool,
    /// The scoreboard: ranges above `snd_una` the peer SACKed, sorted and disjoint.
    sacked: Vec<(u64, u64)>,
    /// Bytes SACKed below each range of the scoreboard, and in all of it last: `pipe` counts the
    /// SACKed bytes of a stretch with two look-ups instead of a pass over the scoreboard.
    sacked_prefix: Vec<u64>,
    /// RFC 6675 HighRxt: the end of the highest retransmission of this recovery.
    high_rxt: u64,
    /// Retransmissions of this recovery not yet judged: `[start, end)` and `snd_max` when they
    /// left (non-decreasing, so the ones to judge are a prefix), to tell when one was lost again
    /// (RACK off only: see [`Self::detect_lost_retransmissions`]).
    rtx_marks: std::collections::VecDeque<(u64, u64, u64)>,
    /// `pipe()` as last computed (`u64::MAX`: stale); every change of the scoreboard, the
    /// sequence variables or HighRxt makes it stale.
    pipe_cache: std::cell::Cell<u64>,
    /// Tail loss probe (RFC 8985 §7).
    pub tlp: TailLossProbe,
    /// RFC 8985's WCDelAckT: the PTO of a single segment in flight waits this long for its
    /// delayed ACK (Linux uses `TCP_RTO_MIN`; here the stack's minimum RTO).
    worst_case_delack: Time,
    /// PTO before the first RTT sample (the initial RTO, Linux's `TCP_TIMEOUT_INIT`).
    initial_pto: Time,
    /// Every unSACKed byte below this offset is lost: RACK found it so (RFC 8985 §6.2; see
    /// [`super::rack`]), or, with RACK off, the SACK of a loss probe showed that what was sent
    /// before it, at least a PTO earlier, did not arrive (RACK's rule where it follows from the
    /// probe alone; see [`super::tlp`]).
    lost_below: u64,
    /// RACK loss detection (RFC 8985 §6).
    pub rack: Rack,
    /// Retransmissions RACK found lost again and not yet sent again (sorted, disjoint, unSACKed,
    /// above `snd_una`): recovery sends them first, and `pipe` does not count them.
    relost: Vec<(u64, u64)>,
    /// Proportional Rate Reduction paces SACK recovery (RFC 6937; see [`super::prr`]).
    prr_enabled: bool,
    /// PRR's state while a window reduction paced by PRR is in progress: a SACK recovery, or
    /// the CWR state of a SACK connection.
    prr: Option<Prr>,
}

impl Sender {
    pub fn new(cfg: &TcpConfig, ecn: bool, peer_window: u64, sack: bool) -> Self {
        let mss = cfg.mss as u64;
        Sender {
            mss,
            nagle: cfg.nagle,
            dupack_threshold: cfg.dupack_threshold.max(1),
            ecn,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            rwnd: peer_window,
            cc: Cc::new(cfg.congestion_control, cfg.hystart),
            st: CcState { cwnd: cfg.initial_window.max(1) as u64 * mss, ssthresh: u64::MAX, mss },
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.rto_policy),
            rtt_probe: None,
            rto_at: None,
            dupacks: 0,
            recovery: None,
            recover_mark: None,
            rtx_pending: false,
            ecn_recover: None,
            cwr_pending: false,
            cwr: false,
            cwnd_limited: false,
            max_out: 0,
            cwnd_usage_end: 0,
            snd_sml: 0,
            sack,
            sacked: Vec::new(),
            sacked_prefix: vec![0],
            high_rxt: 0,
            rtx_marks: std::collections::VecDeque::new(),
            pipe_cache: std::cell::Cell::new(u64::MAX),
            // Linux sends no probe without SACK (`tcp_schedule_loss_probe`).
            tlp: TailLossProbe::new(cfg.tail_loss_probe && sack),
            worst_case_delack: cfg.min_rto,
            initial_pto: cfg.initial_rto,
            lost_below: 0,
            // Linux runs RACK only with SACK (`tcp_is_rack`).
            rack: Rack::new(cfg.rack && sack),
            relost: Vec::new(),
            prr_enabled: cfg.prr,
            prr: None,
        }
    }

    /// Linux's CWR state (see the field `cwr`).
    pub fn in_cwr(&self) -> bool {
        self.cwr
    }

    /// Whether the cumulative ACK has left the last recovery behind, so that duplicate ACKs may
    /// start a new one. Without SACK it must cover more than `recover` (RFC 6582 §3.2 step 1,
    /// §4.1: duplicate ACKs of the old window would otherwise retransmit again); with SACK,
    /// reaching it is enough, since the SACK blocks tell a new loss from the old window's
    /// duplicates (RFC 6675 has no such guard; Linux holds the old state at `snd_una ==
    /// high_seq` for Reno only, "SACK TCP is safe", `tcp_try_undo_recovery`). Held back at
    /// equality, a loss of the first segment sent after a recovery began waited for the
    /// retransmission timer, 200 ms, whatever the duplicate ACKs said.
    fn past_recovery_point(&self) -> bool {
        self.recover_mark.is_none_or(|m| if self.sack { self.snd_una >= m } else { self.snd_una > m })
    }

    /// Neither fast recovery nor the recovery after a timeout is in progress (Linux's `Open` and
    /// `CWR` states, where a loss probe may be scheduled).
    fn open(&self) -> bool {
        self.recovery.is_none() && self.past_recovery_point()
    }

    /// (Re)start the probe timer at `now` (RFC 8985 §7.2).
    fn arm_probe(&mut self, now: Time) {
        let timeout =
            probe_timeout(self.rtt.srtt(), self.flight() <= self.mss, self.worst_case_delack, self.initial_pto);
        // Linux has one timer for the probe and RACK's reordering: while the reordering timer is
        // pending, no probe is (`tcp_identify_packet_loss` keeps the ACK from resetting it).
        let (open, in_flight) = (self.open() && self.rack.at.is_none(), self.snd_max > self.snd_una);
        self.tlp.arm(now, open, in_flight, timeout, self.rto_at);
    }

    /// The probe timer fired at `now`: the probe is due (sent by the next [`Self::next_data`]),
    /// and the retransmission timer restarts from now, as Linux rearms it behind a probe.
    pub fn on_probe_timer(&mut self, now: Time) {
        if self.tlp.on_timer(now) {
            if self.open() && self.snd_max > self.snd_una {
                self.rto_at = Some(now + self.rtt.rto());
            } else {
                self.tlp.reset();
            }
        }
    }

    /// The probe segment (`tcp_send_loss_probe`): one segment of new data if the peer's window
    /// takes it, whatever the congestion window and Nagle say; else the last segment sent, again.
    fn next_probe(&self, cap: u64) -> Option<DataOut> {
        if let Some(d) = self.data_in_peer_window(cap, true) {
            return Some(d);
        }
        let len = cap.min(self.snd_max - self.snd_una);
        (len > 0).then_some(DataOut {
            seq: self.snd_max - len,
            len: len as u32,
            retransmission: true,
            cwr: false,
            push: true,
            probe: true,
        })
    }

    /// The next segment of RFC 6675 recovery (NextSeg): the first retransmission after entering
    /// recovery, then a hole deemed lost beyond HighRxt (rule 1), then new data (rule 2), then any
    /// hole beyond HighRxt below the highest SACKed byte (rule 3); only while `cwnd − pipe`
    /// leaves a full segment. Rule 4's rescue retransmission is not modelled.
    fn next_sack_recovery(&self, cap: u64) -> Option<DataOut> {
        let rtx = |(a, b): (u64, u64)| DataOut {
            seq: a,
            len: cap.min(b - a) as u32,
            retransmission: true,
            cwr: false,
            push: false,
            probe: false,
        };
        if self.rtx_pending {
            return self.next_hole(self.snd_una).map(rtx);
        }
        if self.st.cwnd < self.cached_pipe() + self.mss {
            return None;
        }
        // Lost retransmissions first: they lie below HighRxt, lowest in the stream (Linux walks
        // its retransmission queue in order).
        if let Some(&r) = self.relost.first() {
            return Some(rtx(r));
        }
        // Rules 1 and 3 look at holes below the highest SACKed byte only (RFC 6675 §4, NextSeg
        // (1.b)): above it, data is in flight, not missing.
        let from = self.high_rxt.max(self.snd_una);
        let top = self.sacked.last().map_or(self.snd_una, |r| r.1);
        let hole = self.next_hole(from).filter(|h| h.0 < top).map(|(a, b)| (a, b.min(top)));
        if let Some(h) = hole.filter(|h| h.0 < self.lost_limit()) {
            return Some(rtx(h));
        }
        self.data_in_peer_window(cap, false).or_else(|| hole.map(rtx))
    }

    /// Up to `cap` bytes from SND.NXT that the peer's window takes, whatever the congestion
    /// window says (RFC 6675's NextSeg rule 2, where `pipe` has already allowed a segment, and
    /// the loss probe).
    fn data_in_peer_window(&self, cap: u64, probe: bool) -> Option<DataOut> {
        let queued = self.app_end.saturating_sub(self.snd_nxt);
        let room = (self.snd_una + self.rwnd).saturating_sub(self.snd_nxt);
        let len = cap.min(queued).min(room);
        (len > 0).then_some(DataOut {
            seq: self.snd_nxt,
            len: len as u32,
            retransmission: self.snd_nxt < self.snd_max,
            cwr: self.cwr_pending,
            push: len == queued,
            probe,
        })
    }

    /// Bytes sent and not acknowledged (FlightSize; without SACK every unacknowledged byte
    /// counts).
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The stream offset the next data segment starts at, so that a framing layer can size it
    /// (iWARP's FPDUs): in SACK recovery, where NextSeg puts it (a hole may lie anywhere below
    /// the highest SACKed byte; sized from `snd_nxt` instead, a hole's retransmission was cut to
    /// the few bytes left in the FPDU there); otherwise `snd_una` when a retransmission is
    /// pending, else `snd_nxt`.
    pub fn next_send_offset(&self) -> u64 {
        if self.sack_recovery() {
            if let Some(d) = self.next_sack_recovery(self.mss) {
                return d.seq;
            }
        }
        if self.rtx_pending && self.snd_max > self.snd_una {
            self.snd_una
        } else {
            self.snd_nxt
        }
    }

    /// The next data segment, if the windows, Nagle and silly-window avoidance allow one now.
    pub fn next_data(&self, max_payload: u32) -> Option<DataOut> {
        if max_payload == 0 {
            return None;
        }
        let cap = self.mss.min(max_payload as u64);
        if self.sack_recovery() {
            return self.next_sack_recovery(cap);
        }
        if self.rtx_pending && self.snd_max > self.snd_una {
            let len = cap.min(self.snd_max - self.snd_una) as u32;
            return Some(DataOut {
                seq: self.snd_una,
                len,
                retransmission: true,
                cwr: false,
                push: false,
                probe: false,
            });
        }
        match self.next_new_data(cap) {
            Some(d) => Some(DataOut { probe: self.tlp.due, ..d }),
            None if self.tlp.due => self.next_probe(cap),
            None => None,
        }
    }

    /// New data within the windows, Nagle and silly-window avoidance.
    fn next_new_data(&self, cap: u64) -> Option<DataOut> {
        let queued = self.app_end.saturating_sub(self.snd_nxt);
        if queued == 0 {
            return None;
        }
        let window = self.st.cwnd.min(self.rwnd);
        let in_flight = self.snd_nxt - self.snd_una;
        let usable = window.saturating_sub(in_flight);
        let len = cap.min(queued).min(usable);
        if len == 0 {
            return None;
        }
        let full = len == self.mss;
        let all_queued = len == queued;
        let idle = in_flight == 0;
        // RFC 1122 §4.2.3.4: send a full segment; or all that is queued, when Nagle is off or
        // nothing is unacknowledged; or anything when nothing is in flight (so a window smaller
        // than one segment cannot stall the connection). Nagle as Linux applies it, with
        // Minshall's modification (`tcp_minshall_check`): a partial segment waits only while an
        // earlier partial segment is unacknowledged, so the tail of a bulk write does not wait
        // for the peer's delayed ACK.
        let small_unacked = self.snd_sml > self.snd_una;
        let send =
            full || (all_queued && (!self.nagle || idle || !small_unacked)) || (idle && len == usable) || len == cap;
        if !send {
            return None;
        }
        let retransmission = self.snd_nxt < self.snd_max;
        Some(DataOut {
            seq: self.snd_nxt,
            len: len as u32,
            retransmission,
            cwr: self.cwr_pending && !retransmission,
            push: all_queued,
            probe: false,
        })
    }

    /// Record that `d` went out at `now`.
    pub fn sent(&mut self, now: Time, d: &DataOut, stats: &mut TcpStats) {
        self.pipe_cache.set(u64::MAX);
        self.rack.on_sent(now, d.seq, d.seq + d.len as u64);
        stats.data_segments += 1;
        stats.bytes_sent += d.len as u64;
        if let Some(p) = &mut self.prr {
            p.on_sent(d.len as u64);
        }
        if d.retransmission {
            stats.retransmissions += 1;
            self.rtt_probe = None;
            super::remove_range(&mut self.relost, d.seq, d.seq + d.len as u64);
        }
        if d.retransmission && self.sack_recovery() {
            self.high_rxt = self.high_rxt.max(d.seq + d.len as u64);
            if !self.rack.enabled() {
                self.rtx_marks.push_back((d.seq, d.seq + d.len as u64, self.snd_max));
            }
            if d.seq == self.snd_una {
                self.rtx_pending = false;
            }
        } else if self.rtx_pending && d.seq == self.snd_una && d.retransmission {
            self.rtx_pending = false;
        } else {
            self.snd_nxt = d.seq + d.len as u64;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            self.validate_cwnd();
        }
        if d.cwr {
            self.cwr_pending = false;
        }
        if (d.len as u64) < self.mss {
            self.snd_sml = self.snd_sml.max(d.seq + d.len as u64);
        }
        if !d.retransmission && self.rtt_probe.is_none() {
            self.rtt_probe = Some((d.seq + d.len as u64, now));
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if d.probe {
            stats.tail_loss_probes += 1;
            // The probe is the last segment sent (new data, or the last one again): SND.NXT is
            // its end.
            self.tlp.sent(d.seq, d.seq + d.len as u64, d.retransmission);
            self.rto_at = Some(now + self.rtt.rto());
        } else if !d.retransmission {
            self.arm_probe(now);
        }
    }

    /// After new data went out: note whether the window is now full (no full segment fits, as
    /// Linux's `tcp_packets_in_flight >= snd_cwnd` after `tcp_write_xmit`), and the most in
    /// flight, for this round trip (Linux's `tcp_cwnd_validate`, which keeps `is_cwnd_limited`
    /// and `max_packets_out` for a round trip unless the window fills or the flight grows).
    fn validate_cwnd(&mut self) {
        let flight = self.snd_nxt - self.snd_una;
        let full = flight + self.mss > self.st.cwnd;
        if self.snd_una >= self.cwnd_usage_end || full || (!self.cwnd_limited && flight > self.max_out) {
            self.cwnd_limited = full;
            self.max_out = flight;
            self.cwnd_usage_end = self.snd_nxt;
        }
    }

    /// Whether an ACK may grow the window (Linux's `tcp_is_cwnd_limited`): the window was full
    /// in this round trip, or, in slow start, it is less than twice the most in flight.
    fn cwnd_limited(&self) -> bool {
        self.cwnd_limited || (self.st.in_slow_start() && self.st.cwnd < 2 * self.max_out)
    }

    /// Process the acknowledgement fields of an arriving segment.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        window: u64,
        ece: bool,
        pure: bool,
        sacks: &SackBlocks,
        stats: &mut TcpStats,
    ) -> u64 {
        self.pipe_cache.set(u64::MAX);
        let ack = ack.min(self.snd_max);
        let window_changed = window != self.rwnd;
        self.rwnd = window;
        let sacked_before = self.sacked_bytes();
        let marks = self.loss_marks();
        let probe = self.tlp.probe_range().filter(|&(s, e)| !self.is_sacked(s, e));
        if self.sack {
            let una = ack.max(self.snd_una);
            self.prune_sacks(una);
            self.rack_on_sacks(now, sacks, una);
            self.add_sacks(sacks, una);
        }
        if let Some((s, _)) = probe.filter(|&(s, e)| self.is_sacked(s, e)) {
            // The probe arrived, and it left at least a PTO (2·SRTT + 2 ms) after everything
            // below it that is still unSACKed: longer ago than RACK's RTT plus its reordering
            // window (a quarter of the minimum RTT), so RACK deems all of that lost.
            self.lost_below = self.lost_below.max(s);
        }
        // Meaningful without a cumulative advance (nothing pruned): a duplicate ACK's new SACKs.
        let newly_sacked = self.sacked_bytes() > sacked_before;
        if self.sack_recovery() && !self.rack.enabled() {
            self.detect_lost_retransmissions();
        }
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            self.snd_una = ack;
            self.rack.on_cumulative_ack(now, ack);
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            let probe_rtt = self.rtt_probe.filter(|&(end, _)| ack >= end).map(|(_, at)| now - at);
            if let Some(rtt) = probe_rtt {
                self.rtt.sample(rtt);
                self.rack.rtt_sample(rtt);
                self.rtt_probe = None;
            }
            self.rtt.reset_backoff();
            self.rto_at = if self.snd_max > self.snd_una { Some(now + self.rtt.rto()) } else { None };
            self.ack_sample(now, probe_rtt, stats);
            self.cc.on_ack_ecn(acked, ece, self.snd_una, self.snd_max);
            self.dupacks = 0;
            // The states end first (Linux's `tcp_fastretrans_alert`, step D), so that an echo on
            // the ACK that ends one can begin the next reduction.
            let ended_recovery = self.recovery.is_some_and(|recover| ack >= recover);
            if ended_recovery {
                // Full ACK (RFC 6582 §3.2 step 6): leave recovery with cwnd = min(ssthresh,
                // flight + MSS); with PRR, at ssthresh (Linux's `tcp_end_cwnd_reduction`), which
                // PRR has brought `pipe` to.
                self.recovery = None;
                self.rtx_pending = false;
                self.high_rxt = 0;
                self.rtx_marks.clear();
                self.relost.clear();
                self.st.cwnd = if self.prr.take().is_some() {
                    self.st.ssthresh
                } else {
                    self.st.ssthresh.min(self.flight() + self.mss).max(self.mss)
                };
            }
            if self.cwr && self.ecn_recover.is_some_and(|m| self.snd_una > m) {
                // CWR ends once an ACK covers data sent after the echo, so that the CWR flag has
                // reached the receiver (`tcp_fastretrans_alert`), with the window at ssthresh.
                self.cwr = false;
                self.prr = None;
                self.st.cwnd = self.st.ssthresh;
            }
            if ece {
                self.on_ece(now, stats);
            }
            match self.recovery {
                Some(_) if self.sack => {
                    // A partial ACK: the new first hole goes again at once, as RFC 6582's NewReno
                    // does; RFC 6675's rules alone would leave a hole at the head with fewer than
                    // DupThresh segments SACKed above it (a loss near the end of the data) to the
                    // retransmission timer. Otherwise `pipe` paces the recovery.
                    let head_hole =
                        self.next_hole(self.snd_una).is_some_and(|h| h.0 == self.snd_una && h.0 >= self.high_rxt);
                    self.rtx_pending |= head_hole;
                }
                Some(_) => {
                    // Partial ACK (RFC 6582 §3.2 step 5): retransmit the next hole, deflate by
                    // the amount acknowledged, add back one MSS.
                    self.rtx_pending = true;
                    self.st.cwnd =
                        self.st.cwnd.saturating_sub(acked).max(self.mss) + if acked >= self.mss { self.mss } else { 0 };
                }
                // The window grows only in the open state (`tcp_may_raise_cwnd`): not on the
                // ACK that ends a recovery, nor in CWR (RFC 3168 §6.1.2: not on the echo); and
                // only while the window limits the sender (`tcp_is_cwnd_limited`).
                None if !ended_recovery && !self.cwr && self.cwnd_limited() => {
                    let srtt = self.rtt.srtt().unwrap_or(0);
                    self.cc.on_ack(&mut self.st, now, acked, srtt);
                }
                None => {}
            }
            if self.rack.advanced() {
                self.rack_detect(now);
                // RACK's "the loss is proven" (Linux's `tcp_time_to_recover`) on any ACK, not
                // only a duplicate one.
                if self.open() && self.loss_known() {
                    self.enter_recovery(now, stats);
                }
            }
            if self.tlp.on_ack(ack, false) == TlpAck::LossRepaired {
                self.on_probe_repaired_loss(now);
            }
            let delivered = (acked + self.sacked_bytes()).saturating_sub(sacked_before);
            // Only PRR asks whether the ACK marked a loss: the marks are not compared (a walk of
            // the scoreboard) on the open state's ACKs.
            let clean_advance = self.prr.is_some() && !self.marked_new_loss(marks);
            self.prr_on_ack(delivered, clean_advance);
            self.arm_probe(now);
            return acked;
        }
        if ece {
            self.on_ece(now, stats);
        }
        if self.rack.advanced() {
            self.rack_detect(now);
        }
        // RFC 5681 §2 duplicate ACK: no data, same ACK, same window, data outstanding. With
        // SACK, RFC 6675 §2's: one that SACKs data not SACKed before, whatever else it carries;
        // a duplicate ACK without new SACK information (a duplicate segment arrived, as after a
        // spurious retransmission) does not count, so it cannot start a recovery of its own.
        let outstanding = self.snd_max > self.snd_una;
        let dup = ack == self.snd_una && outstanding && if self.sack { newly_sacked } else { pure && !window_changed };
        if self.tlp.on_ack(ack, pure && !newly_sacked) == TlpAck::LossRepaired {
            self.on_probe_repaired_loss(now);
        }
        if dup {
            self.dupacks += 1;
            if self.recovery.is_some() {
                if !self.sack {
                    // Window inflation (RFC 6582 §3.2 step 4).
                    self.st.cwnd += self.mss;
                }
            } else if self.past_recovery_point()
                && (self.dupacks == self.dupack_threshold || (self.sack && self.loss_known()))
            {
                // RFC 6675 §5: DupThresh duplicate ACKs, or the first hole deemed lost.
                self.enter_recovery(now, stats);
            }
        }
        self.prr_on_ack(self.sacked_bytes().saturating_sub(sacked_before), false);
        0
    }

    /// Tell the congestion control what an ACK that advanced SND.UNA sampled, before the states
    /// change and the window grows on it (Linux's `pkts_acked` from `tcp_clean_rtx_queue`). The
    /// RTT is that of the most recently sent segment the ACK delivered, from RACK's log of send
    /// times; without RACK (no SACK, or RACK off) only the RTT probe's, once a round trip.
    fn ack_sample(&mut self, now: Time, probe_rtt: Option<Time>, stats: &mut TcpStats) {
        let sample = AckSample {
            now,
            rtt: self.rack.delivered_rtt().or(probe_rtt),
            srtt: self.rtt.srtt().unwrap_or(0),
            snd_una: self.snd_una,
            snd_nxt: self.snd_max,
        };
        match self.cc.on_ack_sample(&mut self.st, &sample) {
            Some(HyStartExit::AckTrain) => stats.hystart_train_detect += 1,
            Some(HyStartExit::Delay) => stats.hystart_delay_detect += 1,
            None => {}
        }
    }

    /// PRR (RFC 6937) after an ACK of a window reduction that delivered `delivered` bytes: the
    /// window becomes `pipe` plus what may be sent now (see [`super::prr`]). PRR's state exists
    /// only from the start of a SACK recovery or of CWR to its end (or a timeout). In CWR the
    /// open state's send rule counts what is in flight as FlightSize (from SND.UNA to SND.NXT),
    /// so PRR's `pipe` there is the same measure.
    fn prr_on_ack(&mut self, delivered: u64, clean_advance: bool) {
        if self.prr.is_none() {
            return;
        }
        let pipe = if self.recovery.is_some() { self.cached_pipe() } else { self.snd_nxt - self.snd_una };
        let ack = PrrAck { delivered, pipe, clean_advance };
        let (ssthresh, mss) = (self.st.ssthresh, self.mss);
        if let Some(cwnd) = self.prr.as_mut().and_then(|p| p.on_ack(ack, ssthresh, mss)) {
            self.st.cwnd = cwnd;
        }
    }

    /// Tell RACK what the SACK blocks of an ACK newly deliver: their parts above `una` and below
    /// `snd_max` not on the scoreboard yet (called before they are added to it), so that each
    /// segment is looked at once however often a block repeats it.
    fn rack_on_sacks(&mut self, now: Time, blocks: &SackBlocks, una: u64) {
        if !self.rack.enabled() {
            return;
        }
        for (s, e) in blocks.iter() {
            let (mut at, end) = (s.max(una), e.min(self.snd_max));
            while let Some((a, b)) = self.next_hole(at).filter(|h| h.0 < end) {
                self.rack.on_sacked(now, a, b.min(end));
                at = b;
            }
        }
    }

    /// Run RACK's loss detection at `now` and take what it found: the loss boundary rises, and
    /// retransmissions lost again are listed to be sent again.
    fn rack_detect(&mut self, now: Time) {
        self.pipe_cache.set(u64::MAX);
        let in_recovery = self.recovery.is_some() || !self.past_recovery_point();
        let dupthresh_sacked = self.sacked_bytes() >= self.dupack_threshold as u64 * self.mss;
        let reo_wnd = self.rack.reo_wnd(in_recovery, dupthresh_sacked, self.rtt.srtt());
        let found = self.rack.detect_loss(now, reo_wnd, &self.sacked, self.lost_below);
        self.lost_below = self.lost_below.max(found.lost_below);
        if self.rack.at.is_some() {
            // The reordering timer takes the one timer from the probe.
            self.tlp.at = None;
        }
        for (s, e) in found.lost_retransmissions {
            super::insert_range(&mut self.relost, s.max(self.snd_una), e);
        }
    }

    /// Whether a loss is known: an unSACKed byte deemed lost, or a retransmission lost again.
    fn loss_known(&self) -> bool {
        self.lost_limit() > self.snd_una || !self.relost.is_empty()
    }

    /// The reordering timer fired at `now` (`tcp_rack_reo_timeout`): what it waited for is lost
    /// now, and recovery begins if it has not.
    pub fn on_reorder_timer(&mut self, now: Time, stats: &mut TcpStats) {
        if !self.rack.on_timer(now) {
            return;
        }
        self.rack_detect(now);
        if self.open() && self.snd_max > self.snd_una && self.loss_known() {
            self.enter_recovery(now, stats);
            // Linux's `tcp_rack_reo_timeout` counts one segment delivered, so that PRR lets
            // the first retransmission out.
            self.prr_on_ack(self.mss, false);
        }
    }

    /// A retransmitted probe repaired a loss (RFC 8985 §7.4.2): one window reduction, at once.
    /// Linux's `tcp_process_tlp_ack` enters CWR, ends it on the same ACK and returns to the open
    /// state (`tcp_try_keep_open`), so an ECN echo on a later ACK may reduce the window again at
    /// once: no mark blocks it.
    fn on_probe_repaired_loss(&mut self, now: Time) {
        let flight = self.flight();
        self.cc.on_loss(&mut self.st, now, flight);
        self.st.cwnd = self.st.cwnd.min(self.st.ssthresh);
        self.ecn_recover = None;
        self.cwr = false;
        self.prr = None;
    }

    /// Fast recovery begins (RFC 6675 §5, RFC 6582 §3.2). In CWR the window is already coming
    /// down for this round trip: recovery takes over that reduction, its ssthresh and PRR's
    /// count, and does not cut again (Linux's `tcp_enter_recovery` inits a reduction only
    /// outside one), unless the congestion control reacts to every loss (DCTCP: see
    /// [`CongestionControl::cuts_again_on_loss_in_cwr`]).
    fn enter_recovery(&mut self, now: Time, stats: &mut TcpStats) {
        stats.fast_retransmits += 1;
        self.tlp.reset();
        let flight = self.flight();
        let prior_cwnd = self.st.cwnd;
        let in_cwr = std::mem::take(&mut self.cwr);
        if !in_cwr || self.cc.cuts_again_on_loss_in_cwr() {
            self.cc.on_loss(&mut self.st, now, flight);
        }
        self.recovery = Some(self.snd_max);
        self.recover_mark = Some(self.snd_max);
        self.rtx_pending = true;
        if self.sack {
            // RFC 6675 §5 step 4.2: cwnd = ssthresh; `pipe` then paces the recovery. With PRR
            // the ACK that began it sets the window instead.
            self.st.cwnd = self.st.ssthresh;
            self.high_rxt = self.snd_una;
            if !in_cwr {
                self.prr = self.prr_enabled.then(|| Prr::start(prior_cwnd));
            }
        } else {
            // RFC 6582 §3.2 step 2: cwnd = ssthresh + 3·SMSS.
            self.st.cwnd = self.st.ssthresh + self.dupack_threshold as u64 * self.mss;
        }
        // The ECN reduction for this window is the loss reduction.
        self.ecn_recover = Some(self.snd_max);
    }

    /// An ECN echo (RFC 3168 §6.1.2): one reduction per window, entering CWR (`tcp_enter_cwr`).
    /// The congestion control sets ssthresh; with PRR on a SACK connection the window then comes
    /// down to it over the round trip, as Linux paces CWR with `tcp_cwnd_reduction`; otherwise at
    /// once, as RFC 3168 has it.
    fn on_ece(&mut self, now: Time, stats: &mut TcpStats) {
        if !self.ecn || self.recovery.is_some() || self.ecn_recover.is_some_and(|m| self.snd_una <= m) {
            return;
        }
        stats.ecn_reductions += 1;
        let flight = self.flight();
        let prior_cwnd = self.st.cwnd;
        self.cc.on_ecn(&mut self.st, now, flight);
        if self.prr_enabled && self.sack {
            self.st.cwnd = prior_cwnd;
            self.prr = Some(Prr::start(prior_cwnd));
        }
        self.cwr = true;
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = true;
    }

    /// The retransmission timer fired at `now` (RFC 6298 §5.4-5.6, RFC 5681 §3.1 eq. 4-5).
    pub fn on_rto(&mut self, now: Time, stats: &mut TcpStats) -> bool {
        self.pipe_cache.set(u64::MAX);
        match self.rto_at {
            Some(t) if t <= now && self.snd_max > self.snd_una => {}
            _ => return false,
        }
        stats.timeouts += 1;
        self.tlp.reset();
        self.rack.on_timeout();
        self.lost_below = 0;
        let flight = self.flight();
        self.cc.on_loss(&mut self.st, now, flight);
        self.cc.on_timeout(&mut self.st, now, self.snd_max);
        self.st.cwnd = self.mss;
        self.recovery = None;
        self.recover_mark = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.dupacks = 0;
        self.rtt_probe = None;
        // Go back N: everything unacknowledged is presumed lost, the SACKed ranges too (RFC 6675
        // §5.1 lets a sender keep them; the model forgets them, so a timeout recovers as
        // NewReno's does).
        self.snd_nxt = self.snd_una;
        self.sacked.clear();
        self.index_sacks();
        self.high_rxt = 0;
        self.rtx_marks.clear();
        self.relost.clear();
        self.prr = None;
        self.cwr = false;
        self.rtx_pending = false;
        self.rtt.on_timeout();
        self.rto_at = Some(now + self.rtt.rto());
        true
    }
}
