//! HyStart, the slow-start exit of Linux's CUBIC (`tcp_cubic.c`: `hystart_update`,
//! `cubictcp_acked`, `bictcp_hystart_reset`; on by default, module parameter `hystart=1`).
//!
//! Why: standard slow start doubles the window every round trip until a loss, so a bulk flow's
//! last round overshoots the path by up to a window and ends in a burst of drops (or, on a
//! lossless class, in pauses). HyStart (Ha and Rhee, "Taming the Elephants: New TCP Slow
//! Start", 2011) ends slow start earlier, setting ssthresh to the window, on either of two
//! signs that the pipe is full:
//! * **ACK train**: the ACKs of one round trip, each within `ACK_DELTA` of the one before, have
//!   been arriving for longer than half the minimum RTT (plus a cushion for TSO/GRO batching,
//!   `hystart_ack_delay`): the window already fills at least half the path;
//! * **delay**: the smallest of a round's first eight RTT samples exceeds the minimum RTT by
//!   an eighth of it, clamped to 4–16 ms: a queue has built.
//!
//! The numbers are those of Linux's current `tcp_cubic.c` (microsecond delays, the
//! `hystart_ack_delta_us = 2000` parameter, the cushion and the halving of the train's threshold
//! without `fq` pacing; older kernels measured in jiffies). HyStart
//! runs only in slow start, from a window of 16 segments (`hystart_low_window`), until it has
//! found its exit once; a retransmission timeout starts it afresh (`cubictcp_state` on
//! `TCP_CA_Loss`).
//!
//! The state machine takes the time, the RTT sample (if the ACK gives one) and the sender's
//! sequence variables, and says whether slow start should end; the caller (CUBIC) sets
//! ssthresh.

use super::cc::{AckSample, CcState};
use crate::time::{Time, MS, SECOND, US};

/// `hystart_low_window`: no exit below this window, segments.
pub const LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`: the longest gap between two ACKs of one train.
pub const ACK_DELTA: Time = 2 * MS;
/// `HYSTART_MIN_SAMPLES`: RTT samples of a round before the delay rule judges it.
pub const MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN`: the delay rule's margin is at least this.
pub const DELAY_MARGIN_MIN: Time = 4 * MS;
/// `HYSTART_DELAY_MAX`: and at most this.
pub const DELAY_MARGIN_MAX: Time = 16 * MS;
/// The largest TSO/GSO frame (`GSO_MAX_SIZE`, 64 KiB), four of which the train's cushion allows
/// at the pacing rate.
pub const GSO_MAX_SIZE: u64 = 65_536;
/// The cushion's cap (`USEC_PER_MSEC`).
pub const ACK_DELAY_MAX: Time = MS;

/// Which sign ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartExit {
    /// A round's ACK train lasted past its threshold (`LINUX_MIB_TCPHYSTARTTRAINDETECT`).
    AckTrain,
    /// A round's RTT rose past the minimum by the margin (`LINUX_MIB_TCPHYSTARTDELAYDETECT`).
    Delay,
}

/// One sender's HyStart state.
#[derive(Clone, Copy, Debug)]
pub struct HyStart {
    /// The exit was found (`found`); nothing more until a timeout resets it.
    pub found: Option<HyStartExit>,
    /// The smallest RTT sampled (`delay_min`).
    pub delay_min: Option<Time>,
    /// When the current round began (`round_start`).
    round_start: Time,
    /// The last ACK of the current train (`last_ack`).
    last_ack: Time,
    /// The round ends once the cumulative ACK passes this (`end_seq`: SND.NXT when it began).
    end_seq: u64,
    /// The smallest RTT of the round's samples (`curr_rtt`) and how many were taken.
    round_min_rtt: Time,
    samples: u8,
}

impl HyStart {
    /// A fresh state at `now` with SND.NXT at `snd_nxt` (`cubictcp_init`).
    pub fn new(now: Time, snd_nxt: u64) -> Self {
        let mut h = HyStart {
            found: None,
            delay_min: None,
            round_start: 0,
            last_ack: 0,
            end_seq: 0,
            round_min_rtt: Time::MAX,
            samples: 0,
        };
        h.new_round(now, snd_nxt);
        h
    }

    /// Start afresh after a retransmission timeout: Linux's `cubictcp_state` clears `found` and
    /// `delay_min` with the rest of CUBIC's state and begins a round.
    pub fn restart(&mut self, now: Time, snd_nxt: u64) {
        *self = HyStart::new(now, snd_nxt);
    }

    /// A new round (`bictcp_hystart_reset`).
    fn new_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.round_min_rtt = Time::MAX;
        self.samples = 0;
    }

    /// The TSO/GRO cushion of the train's threshold (`hystart_ack_delay`): four 64 KiB frames at
    /// the pacing rate, at most 1 ms.
    pub fn ack_delay(pacing_rate: u64) -> Time {
        if pacing_rate == 0 {
            return 0;
        }
        let t = (4 * GSO_MAX_SIZE as u128 * SECOND as u128 / pacing_rate as u128) as Time;
        t.min(ACK_DELAY_MAX)
    }

    /// Linux's pacing rate (`tcp_update_pacing_rate`), bytes per second: the window per SRTT,
    /// doubled while it is below half ssthresh (`tcp_pacing_ss_ratio = 200`), else 1.2 times
    /// (`tcp_pacing_ca_ratio = 120`); 0 before an RTT sample.
    pub fn pacing_rate(st: &CcState, srtt: Time) -> u64 {
        if srtt == 0 {
            return 0;
        }
        let percent: u128 = if st.cwnd < st.ssthresh / 2 { 200 } else { 120 };
        (st.cwnd as u128 * percent * SECOND as u128 / (100 * srtt as u128)) as u64
    }

    /// An ACK (`cubictcp_acked`), with the window `st` before the ACK grows it: takes its RTT
    /// sample and, in slow start from a window of [`LOW_WINDOW`] segments, looks for the exit
    /// (`hystart_update`). Returns the exit when this ACK finds it. The train rule runs on every
    /// ACK, the delay rule on those with a sample; Linux runs both only on ACKs with a sample,
    /// which every ACK of data never retransmitted has there (the model's senders without RACK
    /// sample once a round trip).
    pub fn on_ack(&mut self, a: &AckSample, st: &CcState) -> Option<HyStartExit> {
        // Linux counts a sample of 0 µs as 1 µs.
        let sample = a.rtt.map(|r| r.max(US));
        if let Some(rtt) = sample {
            self.delay_min = Some(self.delay_min.map_or(rtt, |m| m.min(rtt)));
        }
        if self.found.is_some() || !st.in_slow_start() || st.cwnd < LOW_WINDOW * st.mss {
            return None;
        }
        let delay_min = self.delay_min?;
        if a.snd_una > self.end_seq {
            self.new_round(a.now, a.snd_nxt);
        }
        if a.now - self.last_ack <= ACK_DELTA {
            self.last_ack = a.now;
            // Without `fq` pacing the threshold is halved: "Hystart ack train triggers if we
            // get ack past ca->delay_min/2".
            let threshold = (delay_min + Self::ack_delay(Self::pacing_rate(st, a.srtt))) / 2;
            if a.now - self.round_start > threshold {
                self.found = Some(HyStartExit::AckTrain);
                return self.found;
            }
        }
        if let Some(rtt) = sample {
            self.round_min_rtt = self.round_min_rtt.min(rtt);
            if self.samples < MIN_SAMPLES {
                self.samples += 1;
            } else {
                let margin = (delay_min / 8).clamp(DELAY_MARGIN_MIN, DELAY_MARGIN_MAX);
                if self.round_min_rtt > delay_min + margin {
                    self.found = Some(HyStartExit::Delay);
                    return self.found;
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;
    /// A 10 Gb/s link's time for one full frame's ACK spacing (1,538 bytes on the wire).
    const SPACING: Time = 1_230_400;

    /// A window of `segs` segments in slow start (ssthresh unset).
    fn window(segs: u64) -> CcState {
        CcState { cwnd: segs * MSS, ssthresh: u64::MAX, mss: MSS }
    }

    /// An ACK without SRTT (no pacing rate, so no cushion).
    fn ack(now: Time, rtt: Option<Time>, snd_una: u64, snd_nxt: u64) -> AckSample {
        AckSample { now, rtt, srtt: 0, snd_una, snd_nxt }
    }

    /// The index of the first of `n` ACKs, `SPACING` apart from 100 µs on with an RTT of
    /// 100 µs, that ends slow start.
    fn train(h: &mut HyStart, n: u64, srtt: Time, st: &CcState) -> Option<(u64, HyStartExit)> {
        (0..n).find_map(|i| {
            let a = AckSample { srtt, ..ack(100 * US + i * SPACING, Some(100 * US), (i + 1) * MSS, 1000 * MSS) };
            h.on_ack(&a, st).map(|e| (i, e))
        })
    }

    #[test]
    fn an_ack_train_longer_than_half_the_minimum_rtt_ends_slow_start() {
        let mut h = HyStart::new(0, 0);
        // The round begins at the first ACK (SND.UNA past end_seq = 0); the train passes
        // 50 µs on the 41st ACK after it (41 · 1.2304 µs = 50.45 µs).
        assert_eq!(train(&mut h, 100, 0, &window(32)), Some((41, HyStartExit::AckTrain)));
        assert_eq!(h.found, Some(HyStartExit::AckTrain));
        // Found once: nothing more.
        assert_eq!(h.on_ack(&ack(MS, Some(100 * US), 50 * MSS, 1000 * MSS), &window(32)), None);
    }

    #[test]
    fn below_sixteen_segments_or_with_gaps_over_two_ms_there_is_no_train() {
        let mut h = HyStart::new(0, 0);
        assert_eq!(train(&mut h, 100, 0, &window(15)), None);
        // The RTT was still taken below the low window.
        assert_eq!(h.delay_min, Some(100 * US));
        // ACKs 3 ms apart: each breaks the train, and the round's RTT does not rise.
        let mut h = HyStart::new(0, 0);
        for i in 0..20u64 {
            let a = ack(100 * US + i * 3 * MS, Some(100 * US), (i + 1) * MSS, 200 * MSS);
            assert_eq!(h.on_ack(&a, &window(32)), None);
        }
    }

    #[test]
    fn the_cushion_is_four_gso_frames_at_the_pacing_rate_at_most_a_millisecond() {
        // 2.5 GB/s: 262,144 bytes take 104.86 µs.
        assert_eq!(HyStart::ack_delay(2_500_000_000), 104_857_600);
        assert_eq!(HyStart::ack_delay(1_000_000), MS);
        assert_eq!(HyStart::ack_delay(0), 0);
        // 32 segments per 100 µs in slow start: twice 46,336 bytes per 100 µs, 926.72 MB/s;
        // 1.2 times once the window reaches half ssthresh.
        assert_eq!(HyStart::pacing_rate(&window(32), 100 * US), 926_720_000);
        let near = CcState { ssthresh: 60 * MSS, ..window(32) };
        assert_eq!(HyStart::pacing_rate(&near, 100 * US), 556_032_000);
        assert_eq!(HyStart::pacing_rate(&window(32), 0), 0);
        // The cushion, 282.87 µs, lets the same train run to (100 + 282.87) / 2 = 191.4 µs:
        // the 156th ACK (155 · 1.2304 = 190.7 µs, 156 · 1.2304 = 191.9 µs).
        let mut h = HyStart::new(0, 0);
        assert_eq!(train(&mut h, 300, 100 * US, &window(32)), Some((156, HyStartExit::AckTrain)));
    }

    #[test]
    fn a_round_whose_rtt_rises_by_the_margin_ends_slow_start_by_delay() {
        // A 1 ms path; ACKs 3 ms apart so the train never counts. Round 1 (to 10 segments) at
        // 1 ms; round 2's samples at 1 ms + 4 ms (the margin's floor, 1 ms / 8 being below it)
        // do not end it; above it, they do, once eight were taken.
        let mut h = HyStart::new(0, 0);
        let (mut now, mut una) = (0, 0);
        let mut step = |h: &mut HyStart, rtt: Time, snd_nxt: u64| {
            now += 3 * MS;
            una += MSS;
            h.on_ack(&ack(now, Some(rtt), una, snd_nxt), &window(16))
        };
        for _ in 0..10 {
            assert_eq!(step(&mut h, MS, 10 * MSS), None);
        }
        for _ in 0..12 {
            assert_eq!(step(&mut h, 5 * MS, 40 * MSS), None);
        }
        // Round 3 begins when SND.UNA passes 40 segments, 18 ACKs into this loop; its first
        // eight samples are taken, the ninth judges.
        let found = (0..30).find_map(|k| step(&mut h, 5 * MS + 1, 100 * MSS).map(|e| (k, e)));
        assert_eq!(found, Some((18 + 8, HyStartExit::Delay)));
    }

    #[test]
    fn a_timeout_starts_it_afresh() {
        let mut h = HyStart::new(0, 0);
        h.found = Some(HyStartExit::AckTrain);
        h.delay_min = Some(100 * US);
        h.restart(5 * MS, 1000 * MSS);
        assert_eq!(h.found, None);
        assert_eq!(h.delay_min, None);
        assert_eq!((h.round_start, h.end_seq), (5 * MS, 1000 * MSS));
    }
}
