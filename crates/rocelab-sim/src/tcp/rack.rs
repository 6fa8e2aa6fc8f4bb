//! RACK loss detection (RFC 8985 §6) as Linux runs it with `net.ipv4.tcp_recovery = 1`, its
//! default since 4.10 (`tcp_rack_advance`, `tcp_rack_detect_loss`, `tcp_rack_reo_wnd` and
//! `tcp_rack_reo_timeout` in `net/ipv4/tcp_recovery.c`).
//!
//! Why: duplicate-ACK counting (RFC 6675's DupThresh) needs three segments delivered above a
//! hole. A hole with one or two segments above it, near the end of a transfer, waited for the
//! retransmission timer, 200 ms against a data-centre RTT of tens of microseconds. RACK reasons in
//! time instead: a segment is lost once a segment sent after it was delivered and a round trip
//! plus a reordering window has passed since it left. What cannot be decided at once arms the
//! reordering timer.
//!
//! The state machine keeps the send time of every segment in flight ([`SentSegment`], in stream
//! order), every transmission in the order it left, and RACK's variables: the send time and RTT
//! of the most recently sent segment that was delivered (`RACK.xmit_ts`, `RACK.rtt`; the order
//! of sending stands in for `RACK.end_seq`) and the minimum RTT. The sender reports what it sent
//! and what the peer delivered, and asks [`Rack::detect_loss`] what is lost, given its
//! scoreboard; the sender then repairs it.
//!
//! Where the model departs from Linux: a delivered retransmission never becomes the latest (see
//! `Rack::advance`: without timestamp values the ACK may be the original's). As in Linux since
//! 4.4, the pre-RACK rule for retransmissions lost again runs only with RACK off
//! (`tcp/sender.rs`).
//!
//! Reordering: the simulated paths keep each connection's segments in order (ECMP hashes the
//! 5-tuple, PFC pauses a queue, it does not reorder it), so reordering is never seen
//! (`RACK.reord` stays false) and the window is Linux's for that case: zero during recovery or
//! once DupThresh segments are SACKed, otherwise a quarter of the minimum RTT, at most SRTT.
//! D-SACK's widening of the window is not modelled.

use std::collections::VecDeque;

use crate::time::{Time, MS};

/// What the reordering timer adds to the longest wait, as Linux does (`TCP_TIMEOUT_MIN`, two
/// jiffies: 2 ms at `HZ = 1000`, the slack the probe timer adds too); the wait itself is rounded
/// up to whole jiffies.
pub const REO_TIMER_SLACK: Time = super::tlp::PTO_SLACK;

/// One segment in flight: its stream range, when it last left and whether that was a
/// retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    pub start: u64,
    pub end: u64,
    pub xmit: Time,
    /// The sender's count of transmissions when it left: orders segments that left at the same
    /// instant.
    pub order: u64,
    pub retransmitted: bool,
    /// A retransmission RACK found lost again, not yet sent again (Linux's `TCPCB_LOST` without
    /// `TCPCB_SACKED_RETRANS`, skipped by detection).
    lost: bool,
}

/// What one pass of loss detection found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// Every unSACKed byte below this offset that was never retransmitted is lost (RACK marks
    /// whole segments, and such segments leave in stream order, so the lost ones below the
    /// highest are all lost); 0 if none.
    pub lost_below: u64,
    /// Retransmissions found lost again: `[start, end)`, in stream order.
    pub lost_retransmissions: Vec<(u64, u64)>,
}

/// One sender's RACK state.
#[derive(Clone, Debug, Default)]
pub struct Rack {
    enabled: bool,
    /// Segments not yet cumulatively acknowledged, in stream order.
    sent: VecDeque<SentSegment>,
    /// Every transmission not yet judged, in the order they left (so in time order, as Linux's
    /// `tsorted_sent_queue`): when, its count, and its stream range. A transmission judged (its
    /// segments delivered, lost, or sent again since) has count 0 and leaves from the front.
    queue: VecDeque<(Time, u64, u64, u64)>,
    /// `RACK.xmit_ts` (with the transmission count, where RFC 8985 breaks ties with
    /// `RACK.end_seq`) and `RACK.rtt`: the most recently sent delivered segment.
    latest: Option<(Time, u64, Time)>,
    /// Transmissions so far.
    sends: u64,
    /// The minimum RTT seen (Linux's `tcp_min_rtt`, a windowed minimum over 5 minutes, longer
    /// than a simulation).
    min_rtt: Option<Time>,
    /// A delivery advanced `latest` since the last detection (`RACK.advanced`).
    advanced: bool,
    /// The reordering timer.
    pub at: Option<Time>,
}

/// RFC 8985's `RACK_sent_after`: sent later. Where the RFC breaks a tie of timestamps by the
/// segments' ends (a retransmission and new data can leave in the same microsecond), the
/// simulator knows the order they left in.
fn sent_after(t1: Time, order1: u64, t2: Time, order2: u64) -> bool {
    (t1, order1) > (t2, order2)
}

impl Rack {
    /// A sender's RACK state; `enabled` is the stack's setting with SACK negotiated (Linux runs
    /// RACK only with SACK).
    pub fn new(enabled: bool) -> Self {
        Rack { enabled, ..Default::default() }
    }

    /// Whether RACK runs on this connection.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// An RTT sample from the sender's estimator.
    pub fn rtt_sample(&mut self, rtt: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// `[start, end)` left at `now`. Beyond everything sent before, it is a new segment; below,
    /// the segments it overlaps left again (a retransmission; cut to whole segments, so a
    /// retransmission that covers part of one dates all of it).
    pub fn on_sent(&mut self, now: Time, start: u64, end: u64) {
        if !self.enabled || end <= start {
            return;
        }
        self.sends += 1;
        let order = self.sends;
        let top = self.sent.back().map_or(0, |s| s.end);
        let i = self.sent.partition_point(|s| s.end <= start);
        for s in self.sent.range_mut(i..) {
            if s.start >= end {
                break;
            }
            s.xmit = now;
            s.order = order;
            s.retransmitted = true;
            s.lost = false;
        }
        if end > top {
            let start = start.max(top);
            self.sent.push_back(SentSegment { start, end, xmit: now, order, retransmitted: false, lost: false });
        }
        self.queue.push_back((now, order, start, end));
    }

    /// The cumulative ACK reached `una` at `now`: the segments below it were delivered and are
    /// forgotten.
    pub fn on_cumulative_ack(&mut self, now: Time, una: u64) {
        while let Some(&s) = self.sent.front() {
            if s.end > una {
                break;
            }
            self.sent.pop_front();
            self.advance(now, &s);
        }
    }

    /// `[start, end)` was newly SACKed at `now`.
    pub fn on_sacked(&mut self, now: Time, start: u64, end: u64) {
        if !self.enabled {
            return;
        }
        let i = self.sent.partition_point(|s| s.end <= start);
        for k in i..self.sent.len() {
            let s = self.sent[k];
            if s.start >= end {
                break;
            }
            self.advance(now, &s);
        }
    }

    /// RFC 8985 §6.2 step 2 (`tcp_rack_advance`): a delivered segment sent after the latest one
    /// becomes the latest, with its RTT. A retransmission is skipped: the ACK may be the
    /// original's. RFC 8985 and Linux tell them apart by the ACK's timestamp echo
    /// (`tcp_skb_spurious_retrans`) and by an RTT below the minimum; the simulated segments carry
    /// no timestamp values, and the RTT rule alone is not enough in a queue deeper than the
    /// minimum RTT: the original's late ACK made the retransmissions sent before it look lost.
    /// With that rule alone (measured before the model had PRR), the Dell congested SAN without
    /// flow control (seed 1) retransmitted 1,575 segments against 1,225, and a lossy 8:1 TCP
    /// incast finished 7 % after the time its bytes take at line rate (its fidelity test allows
    /// 5 %).
    fn advance(&mut self, now: Time, s: &SentSegment) {
        if s.retransmitted {
            return;
        }
        if let Some((t, e, _)) = self.latest {
            if !sent_after(s.xmit, s.order, t, e) {
                return;
            }
        }
        let rtt = now - s.xmit;
        self.rtt_sample(rtt);
        self.latest = Some((s.xmit, s.order, rtt));
        self.advanced = true;
    }

    /// The RTT of the most recently sent segment delivered since the last detection, if a
    /// delivery advanced RACK: Linux's `ca_rtt_us`, the sample HyStart takes.
    pub fn delivered_rtt(&self) -> Option<Time> {
        self.latest.filter(|_| self.advanced).map(|l| l.2)
    }

    /// Whether a delivery advanced RACK since the last detection: detection has work.
    pub fn advanced(&self) -> bool {
        self.advanced
    }

    /// The reordering window (`tcp_rack_reo_wnd`, no reordering seen): zero in recovery or once
    /// `dupthresh_sacked` (DupThresh segments SACKed); otherwise a quarter of the minimum RTT, at
    /// most SRTT (zero before any sample; Linux always has SRTT from the handshake, which the
    /// simulator does not run, so without SRTT it is not capped).
    pub fn reo_wnd(&self, in_recovery: bool, dupthresh_sacked: bool, srtt: Option<Time>) -> Time {
        if in_recovery || dupthresh_sacked {
            return 0;
        }
        self.min_rtt.map_or(0, |m| srtt.map_or(m / 4, |s| (m / 4).min(s)))
    }

    /// RFC 8985 §6.2 step 5 (`tcp_rack_detect_loss`) at `now`: every segment in flight, not
    /// SACKed, sent before the latest delivered one, is lost once `RACK.rtt + reo_wnd` has passed
    /// since it left; the others it waits for arm the reordering timer at the longest wait (plus
    /// [`REO_TIMER_SLACK`]). `sacked` is the scoreboard (sorted, disjoint ranges); `lost_below`,
    /// the sender's loss boundary, whose segments never retransmitted are already lost.
    ///
    /// It walks the transmissions in the order they left and stops at the first sent after the
    /// latest delivered one; each transmission is judged once (delivered, lost or sent again),
    /// then dropped, so a long recovery costs no more than its segments.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Time, sacked: &[(u64, u64)], lost_below: u64) -> Detection {
        self.advanced = false;
        self.at = None;
        let mut found = Detection::default();
        let Some((xmit_ts, latest_order, rtt)) = self.latest else { return found };
        let mut wait: Time = 0;
        for q in 0..self.queue.len() {
            let (xmit, order, start, end) = self.queue[q];
            if order == 0 {
                continue;
            }
            if !sent_after(xmit_ts, latest_order, xmit, order) {
                break;
            }
            let mut pending = false;
            let mut k = self.sent.partition_point(|s| s.end <= start);
            while let Some(&s) = self.sent.get(k).filter(|s| s.start < end) {
                let known_lost = if s.retransmitted { s.lost } else { s.end <= lost_below };
                if s.order == order && !known_lost && !super::range_covers(sacked, s.start, s.end) {
                    let deadline = s.xmit + rtt + reo_wnd;
                    if deadline > now {
                        wait = wait.max(deadline - now);
                        pending = true;
                    } else if s.retransmitted {
                        self.sent[k].lost = true;
                        super::insert_range(&mut found.lost_retransmissions, s.start, s.end);
                    } else {
                        found.lost_below = found.lost_below.max(s.end);
                    }
                }
                k += 1;
            }
            if !pending {
                self.queue[q].1 = 0;
            }
        }
        while self.queue.front().is_some_and(|q| q.1 == 0) {
            self.queue.pop_front();
        }
        if wait > 0 {
            self.at = Some(now + wait.div_ceil(MS) * MS + REO_TIMER_SLACK);
        }
        found
    }

    /// The reordering timer at `now`: whether it fired (detection is due).
    pub fn on_timer(&mut self, now: Time) -> bool {
        match self.at {
            Some(t) if t <= now => {
                self.at = None;
                true
            }
            _ => false,
        }
    }

    /// A retransmission timeout: the reordering timer is moot (everything goes again), and so is
    /// every transmission not judged yet.
    pub fn on_timeout(&mut self) {
        self.at = None;
        self.advanced = false;
        self.queue.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::US;

    /// Ten 1000-byte segments sent 1 µs apart from t = 0.
    fn ten_sent() -> Rack {
        let mut r = Rack::new(true);
        for i in 0..10u64 {
            r.on_sent(i * US, i * 1000, (i + 1) * 1000);
        }
        r
    }

    #[test]
    fn a_delivery_sent_later_becomes_the_latest_with_its_rtt() {
        let mut r = ten_sent();
        r.on_sacked(40 * US, 5000, 6000);
        assert_eq!(r.latest, Some((5 * US, 6, 35 * US)));
        assert_eq!(r.min_rtt, Some(35 * US));
        assert!(r.advanced());
        // An earlier segment delivered later changes nothing.
        r.on_sacked(41 * US, 2000, 3000);
        assert_eq!(r.latest, Some((5 * US, 6, 35 * US)));
    }

    #[test]
    fn a_hole_below_one_sacked_segment_waits_the_reordering_window_then_is_lost() {
        let mut r = ten_sent();
        r.on_cumulative_ack(30 * US, 2000);
        r.on_sacked(33 * US, 3000, 4000);
        // The minimum RTT is the second segment's, 29 µs.
        let reo = r.reo_wnd(false, false, Some(40 * US));
        assert_eq!(reo, 29 * US / 4);
        let sacked = [(3000, 4000)];
        // The hole [2000, 3000) left at 2 µs; RACK.rtt is 30 µs: lost at 2 + 30 + 7.25 µs.
        let d = r.detect_loss(33 * US, reo, &sacked, 0);
        assert_eq!(d, Detection::default());
        assert_eq!(r.at, Some(33 * US + MS + REO_TIMER_SLACK));
        assert!(r.on_timer(33 * US + MS + REO_TIMER_SLACK));
        let d = r.detect_loss(33 * US + MS + REO_TIMER_SLACK, reo, &sacked, 0);
        assert_eq!(d.lost_below, 3000);
        assert!(d.lost_retransmissions.is_empty());
        // Segments sent after the latest delivered one are not judged.
        assert_eq!(r.at, None);
    }

    #[test]
    fn with_no_reordering_window_holes_below_the_latest_delivery_are_lost_at_once() {
        let mut r = ten_sent();
        r.on_sacked(30 * US, 4000, 7000);
        let sacked = [(4000, 7000)];
        assert_eq!(r.reo_wnd(false, true, Some(40 * US)), 0);
        let d = r.detect_loss(30 * US, 0, &sacked, 0);
        assert_eq!(d.lost_below, 4000);
    }

    #[test]
    fn a_retransmission_sent_before_a_delivered_later_segment_is_lost_again() {
        let mut r = ten_sent();
        r.on_sacked(30 * US, 1000, 9000);
        // [0, 1000) goes again at 31 µs, then [9000, 10000) is SACKed, sent at 9 µs: says nothing
        // about the retransmission.
        r.on_sent(31 * US, 0, 1000);
        r.on_sacked(32 * US, 9000, 10_000);
        let sacked = [(1000, 10_000)];
        assert!(r.detect_loss(32 * US, 0, &sacked, 1000).lost_retransmissions.is_empty());
        // New data sent at 35 µs and SACKed at 65 µs: the retransmission, sent before it, is
        // lost again.
        r.on_sent(35 * US, 10_000, 11_000);
        r.on_sacked(65 * US, 10_000, 11_000);
        let sacked = [(1000, 11_000)];
        let d = r.detect_loss(65 * US, 0, &sacked, 1000);
        assert_eq!(d.lost_retransmissions, vec![(0, 1000)]);
        assert_eq!(d.lost_below, 0);
        // Found once, until it goes again.
        assert!(r.detect_loss(66 * US, 0, &sacked, 1000).lost_retransmissions.is_empty());
    }

    #[test]
    fn a_delivered_retransmission_is_ambiguous_and_does_not_advance() {
        let mut r = ten_sent();
        r.on_sacked(30 * US, 1000, 2000);
        r.on_sent(31 * US, 0, 1000);
        r.on_cumulative_ack(80 * US, 2000);
        assert_eq!(r.latest, Some((US, 2, 29 * US)));
    }

    #[test]
    fn a_retransmission_dates_every_segment_it_overlaps_and_new_data_extends_the_log() {
        let mut r = ten_sent();
        r.on_sent(50 * US, 1500, 2500);
        assert!(r.sent[1].retransmitted && r.sent[2].retransmitted);
        assert_eq!(r.sent[1].xmit, 50 * US);
        assert!(!r.sent[0].retransmitted && !r.sent[3].retransmitted);
        // Straddling the end: the part beyond is new.
        r.on_sent(51 * US, 9500, 10_500);
        let top =
            SentSegment { start: 10_000, end: 10_500, xmit: 51 * US, order: 12, retransmitted: false, lost: false };
        assert_eq!(r.sent.back(), Some(&top));
        r.on_cumulative_ack(60 * US, 3000);
        assert_eq!(r.sent.front().map(|s| s.start), Some(3000));
    }

    #[test]
    fn off_it_keeps_nothing() {
        let mut r = Rack::new(false);
        r.on_sent(0, 0, 1000);
        r.on_sacked(10 * US, 0, 1000);
        assert!(r.sent.is_empty());
        assert!(!r.advanced());
    }

    #[test]
    fn the_window_is_a_quarter_of_the_minimum_rtt_at_most_srtt() {
        let mut r = Rack::new(true);
        assert_eq!(r.reo_wnd(false, false, None), 0);
        r.rtt_sample(100 * US);
        r.rtt_sample(80 * US);
        assert_eq!(r.reo_wnd(false, false, Some(90 * US)), 20 * US);
        assert_eq!(r.reo_wnd(false, false, Some(10 * US)), 10 * US);
        assert_eq!(r.reo_wnd(true, false, Some(90 * US)), 0);
    }
}
