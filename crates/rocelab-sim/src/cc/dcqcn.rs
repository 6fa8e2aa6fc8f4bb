//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015), as
//! DESIGN.md's "DCQCN reference" states it:
//!
//! * switch (the congestion point, [`crate::ecn`]): RED marking on the egress queue;
//! * [`NotificationPoint`] at the receiver: on a CE-marked data packet, a CNP to the sender if
//!   at least `cnp_interval` passed since the last CNP of that QP;
//! * [`ReactionPoint`] at the sender, a per-QP rate limiter: on a CNP, target rate RT ← RC,
//!   current rate RC ← RC·(1 − α/2), α ← (1 − g)·α + g, and the timer and byte stages start
//!   over; without a CNP for `alpha_update_interval`, α ← (1 − g)·α; a timer of
//!   `rate_increase_timer` and a counter of `byte_counter` bytes each advance a stage, and after
//!   each: both stages ≤ F → fast recovery, RC ← (RT + RC)/2; both above F → hyper increase,
//!   RT += i·R_HAI with i = min(stages) − F; otherwise additive increase, RT += R_AI; then
//!   RC ← (RT + RC)/2, capped at line rate and floored at `min_rate`.
//!
//! NVIDIA ConnectX adds knobs the paper does not have; each is a parameter whose paper value
//! leaves the algorithm as above: at most one rate cut per `rate_reduce_interval`
//! (`rate_reduce_monitor_period`; CNPs in between are counted as ignored, like the adapter's
//! `rp_cnp_ignored` counter), RT ← RC on a cut only when `clamp_target_rate` or, with
//! `clamp_target_rate_after_time_increase`, when a timer increase happened since the last cut,
//! a cut keeps at least `1 − max_decrease` of the rate (`rpg_min_dec_fac`), α starts at
//! `initial_alpha` (`initial_alpha_value`), and `rate_on_first_cnp` (`rate_to_set_on_first_cnp`).
//!
//! α's decay is computed when it is needed (at a CNP) from the time since its last update,
//! which is exact and needs no timer event; the rate-increase timer is the only timer.

use super::CongestionControl;
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// Every DCQCN parameter, in simulator units. Build it from the fabric model
/// ([`Self::from_model`]) or take a profile ([`Self::paper`], [`Self::nvidia_connectx`]); the
/// model names each default's source.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DcqcnParams {
    /// g: EWMA gain of α.
    pub g: f64,
    /// K: α decays once per interval without a CNP.
    pub alpha_update_interval_ps: Time,
    /// α when a QP is first cut.
    pub initial_alpha: f64,
    /// T: the rate-increase timer.
    pub rate_increase_timer_ps: Time,
    /// B: the rate-increase byte counter (frame bytes sent).
    pub byte_counter_bytes: u64,
    /// F: stages of fast recovery.
    pub fast_recovery_steps: u32,
    /// R_AI.
    pub additive_increase_bps: u64,
    /// R_HAI.
    pub hyper_increase_bps: u64,
    /// The rate never goes below this.
    pub min_rate_bps: u64,
    /// N: the notification point sends at most one CNP per QP per interval.
    pub cnp_interval_ps: Time,
    /// At most one rate cut per interval (0: every CNP cuts).
    pub rate_reduce_interval_ps: Time,
    /// RT ← RC on every cut.
    pub clamp_target_rate: bool,
    /// RT ← RC on a cut if a timer increase happened since the previous cut.
    pub clamp_target_rate_after_time_increase: bool,
    /// A cut takes at most this fraction of the rate (1: unbounded, α/2 decides).
    pub max_decrease: f64,
    /// Rate (both RC and RT) set on a QP's first CNP instead of a cut; `None`: cut as usual.
    pub rate_on_first_cnp_bps: Option<u64>,
}

impl DcqcnParams {
    /// Convert the fabric model's resolved parameters.
    pub fn from_model(p: &rocelab_model::qos::DcqcnParams) -> Self {
        DcqcnParams {
            g: p.g,
            alpha_update_interval_ps: p.alpha_update_interval.as_ps(),
            initial_alpha: p.initial_alpha,
            rate_increase_timer_ps: p.rate_increase_timer.as_ps(),
            byte_counter_bytes: p.byte_counter.as_bytes(),
            fast_recovery_steps: p.fast_recovery_steps,
            additive_increase_bps: p.additive_increase.bits_per_second(),
            hyper_increase_bps: p.hyper_increase.bits_per_second(),
            min_rate_bps: p.min_rate.bits_per_second(),
            cnp_interval_ps: p.cnp_interval.as_ps(),
            rate_reduce_interval_ps: p.rate_reduce_interval.as_ps(),
            clamp_target_rate: p.clamp_target_rate,
            clamp_target_rate_after_time_increase: p.clamp_target_rate_after_time_increase,
            max_decrease: p.max_decrease,
            rate_on_first_cnp_bps: p.rate_on_first_cnp.map(|r| r.bits_per_second()),
        }
    }

    /// The DCQCN paper's parameters (see `rocelab_model::qos::DcqcnProfile::Paper`).
    pub fn paper() -> Self {
        Self::profile(rocelab_model::qos::DcqcnProfile::Paper)
    }

    /// NVIDIA ConnectX firmware defaults (see `rocelab_model::qos::DcqcnProfile::NvidiaConnectx`).
    pub fn nvidia_connectx() -> Self {
        Self::profile(rocelab_model::qos::DcqcnProfile::NvidiaConnectx)
    }

    fn profile(profile: rocelab_model::qos::DcqcnProfile) -> Self {
        let d = rocelab_model::qos::Dcqcn { enabled: true, profile, ..Default::default() };
        Self::from_model(&d.resolve())
    }
}

/// The DCQCN notification point of one QP (at the data receiver).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NotificationPoint {
    last_cnp: Option<Time>,
    /// CE-marked data packets seen.
    pub ce_packets: u64,
    /// CNPs generated.
    pub cnps_sent: u64,
}

impl NotificationPoint {
    /// A CE-marked data packet arrived at `now`: whether to send a CNP (at most one per
    /// `interval`).
    pub fn on_ce(&mut self, now: Time, interval: Time) -> bool {
        self.ce_packets += 1;
        if self.last_cnp.is_some_and(|t| now < t.saturating_add(interval)) {
            return false;
        }
        self.last_cnp = Some(now);
        self.cnps_sent += 1;
        true
    }
}

/// The DCQCN reaction point of one QP: its rate limiter.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactionPoint {
    p: DcqcnParams,
    line_bps: f64,
    /// Current rate RC.
    rc: f64,
    /// Target rate RT.
    rt: f64,
    alpha: f64,
    /// Reference time of α's lazy decay.
    alpha_at: Time,
    timer_stage: u32,
    byte_stage: u32,
    bytes: u64,
    timer_at: Option<Time>,
    last_cut: Option<Time>,
    time_increase_since_cut: bool,
    /// Rate limiting in force (from the first cut until RC is back at line rate).
    limited: bool,
    ever_cut: bool,
    /// CNPs received.
    pub cnps: u64,
    /// CNPs that did not cut (within `rate_reduce_interval` of the last cut).
    pub cnps_ignored: u64,
    /// Rate cuts.
    pub cuts: u64,
    /// Lowest rate reached (bit/s).
    pub min_rate_seen: f64,
}

impl ReactionPoint {
    /// A QP at line rate `line_bps`, unlimited until its first CNP.
    pub fn new(p: DcqcnParams, line_bps: u64) -> Self {
        let line = line_bps as f64;
        ReactionPoint {
            p,
            line_bps: line,
            rc: line,
            rt: line,
            alpha: p.initial_alpha,
            alpha_at: 0,
            timer_stage: 0,
            byte_stage: 0,
            bytes: 0,
            timer_at: None,
            last_cut: None,
            time_increase_since_cut: false,
            limited: false,
            ever_cut: false,
            cnps: 0,
            cnps_ignored: 0,
            cuts: 0,
            min_rate_seen: line,
        }
    }

    /// Current rate RC (bit/s).
    pub fn current_rate(&self) -> f64 {
        self.rc
    }

    /// Target rate RT (bit/s).
    pub fn target_rate(&self) -> f64 {
        self.rt
    }

    /// α at `now` (with the decay due by then).
    pub fn alpha_at(&self, now: Time) -> f64 {
        let (a, _) = self.decayed_alpha(now);
        a
    }

    /// The (timer, byte) stage counters.
    pub fn stages(&self) -> (u32, u32) {
        (self.timer_stage, self.byte_stage)
    }

    fn decayed_alpha(&self, now: Time) -> (f64, Time) {
        let k = self.p.alpha_update_interval_ps.max(1);
        let n = now.saturating_sub(self.alpha_at) / k;
        if n == 0 {
            return (self.alpha, self.alpha_at);
        }
        let factor = (1.0 - self.p.g).powi(n.min(i32::MAX as u64) as i32);
        (self.alpha * factor, self.alpha_at + n * k)
    }

    fn increase(&mut self) {
        let f = self.p.fast_recovery_steps;
        let (t, b) = (self.timer_stage, self.byte_stage);
        if t > f && b > f {
            let i = t.min(b) - f;
            self.rt += i as f64 * self.p.hyper_increase_bps as f64;
        } else if t > f || b > f {
            self.rt += self.p.additive_increase_bps as f64;
        }
        self.rt = self.rt.min(self.line_bps);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line_bps);
        // Released once within one part per million of line rate: fast recovery approaches RT
        // geometrically and would never reach it exactly.
        if self.rc >= self.line_bps * (1.0 - 1e-6) {
            self.rc = self.line_bps;
            self.rt = self.line_bps;
            self.limited = false;
            self.timer_at = None;
        }
    }
}

impl CongestionControl for ReactionPoint {
    fn on_cnp(&mut self, now: Time) {
        self.cnps += 1;
        if let (Some(last), iv) = (self.last_cut, self.p.rate_reduce_interval_ps) {
            if iv > 0 && now < last.saturating_add(iv) {
                self.cnps_ignored += 1;
                return;
            }
        }
        let (alpha, _) = self.decayed_alpha(now);
        let first = !self.ever_cut;
        if first {
            self.alpha = self.p.initial_alpha;
        } else {
            self.alpha = alpha;
        }
        match (first, self.p.rate_on_first_cnp_bps) {
            (true, Some(r)) => {
                self.rc = (r as f64).min(self.line_bps);
                self.rt = self.rc;
            }
            _ => {
                if first
                    || self.p.clamp_target_rate
                    || (self.p.clamp_target_rate_after_time_increase && self.time_increase_since_cut)
                {
                    self.rt = self.rc;
                }
                let cut = (self.alpha / 2.0).min(self.p.max_decrease);
                self.rc *= 1.0 - cut;
            }
        }
        self.rc = self.rc.max(self.p.min_rate_bps as f64).min(self.line_bps);
        self.rt = self.rt.max(self.rc);
        self.min_rate_seen = self.min_rate_seen.min(self.rc);
        self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g;
        self.alpha_at = now;
        self.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        self.timer_at = Some(now + self.p.rate_increase_timer_ps.max(1));
        self.last_cut = Some(now);
        self.time_increase_since_cut = false;
        self.limited = true;
        self.ever_cut = true;
        self.cuts += 1;
    }

    fn on_ack(&mut self, _now: Time, _acked_bytes: u64, _rtt: Option<Time>) {}

    #[inline]
    fn on_sent(&mut self, _now: Time, frame_bytes: u64) {
        if !self.limited {
            return;
        }
        self.bytes += frame_bytes;
        let b = self.p.byte_counter_bytes.max(1);
        while self.limited && self.bytes >= b {
            self.bytes -= b;
            self.byte_stage += 1;
            self.increase();
        }
    }

    fn on_timer(&mut self, now: Time) {
        let Some(at) = self.timer_at else {
            return;
        };
        if at > now || !self.limited {
            return;
        }
        self.timer_stage += 1;
        self.time_increase_since_cut = true;
        self.timer_at = Some(at + self.p.rate_increase_timer_ps.max(1));
        self.increase();
    }

    fn next_timer(&self) -> Option<Time> {
        if self.limited {
            self.timer_at
        } else {
            None
        }
    }

    #[inline]
    fn rate_bps(&self) -> Option<f64> {
        self.limited.then_some(self.rc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::US;

    const LINE: u64 = 100_000_000_000;

    fn params() -> DcqcnParams {
        DcqcnParams {
            g: 1.0 / 256.0,
            alpha_update_interval_ps: 55 * US,
            initial_alpha: 1.0,
            rate_increase_timer_ps: 55 * US,
            byte_counter_bytes: 10_000_000,
            fast_recovery_steps: 5,
            additive_increase_bps: 40_000_000,
            hyper_increase_bps: 200_000_000,
            min_rate_bps: 10_000_000,
            cnp_interval_ps: 50 * US,
            rate_reduce_interval_ps: 0,
            clamp_target_rate: true,
            clamp_target_rate_after_time_increase: false,
            max_decrease: 1.0,
            rate_on_first_cnp_bps: None,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn a_cnp_cuts_by_alpha_over_two_and_raises_alpha() {
        let mut rp = ReactionPoint::new(params(), LINE);
        assert_eq!(rp.rate_bps(), None, "unlimited before the first CNP");
        rp.on_cnp(0);
        // α = 1: RC halves; RT keeps the old rate; α ← (1 − g)·1 + g = 1.
        assert!(close(rp.current_rate(), 50e9));
        assert!(close(rp.target_rate(), 100e9));
        assert!(close(rp.alpha_at(0), 1.0));
        assert_eq!(rp.rate_bps(), Some(rp.current_rate()));
        assert_eq!(rp.next_timer(), Some(55 * US));
        // Second CNP 10 µs later (no decay yet): RT ← RC = 50G, RC ← 25G.
        rp.on_cnp(10 * US);
        assert!(close(rp.target_rate(), 50e9));
        assert!(close(rp.current_rate(), 25e9));
        assert_eq!(rp.cuts, 2);
    }

    #[test]
    fn alpha_decays_once_per_interval_without_cnp() {
        let mut rp = ReactionPoint::new(params(), LINE);
        rp.on_cnp(0);
        let g = 1.0 / 256.0;
        assert!(close(rp.alpha_at(54 * US), 1.0), "no decay within K");
        assert!(close(rp.alpha_at(55 * US), 1.0 - g));
        assert!(close(rp.alpha_at(3 * 55 * US + 1), (1.0 - g).powi(3)));
        // The next cut uses the decayed α, then raises it.
        rp.on_cnp(110 * US);
        let a = (1.0 - g) * (1.0 - g);
        assert!(close(rp.alpha_at(110 * US), (1.0 - g) * a + g));
    }

    #[test]
    fn fast_recovery_then_additive_then_hyper_increase() {
        let mut p = params();
        p.byte_counter_bytes = u64::MAX / 2; // timer stages only at first
        let mut rp = ReactionPoint::new(p, LINE);
        rp.on_cnp(0);
        rp.on_cnp(1); // RT = 50G, RC = 25G
        let (mut rt, mut rc) = (50e9, 25e9);
        // Timer stages 1..=5 (≤ F, byte stage 0 ≤ F): fast recovery, RT unchanged.
        for k in 1..=5u64 {
            rp.on_timer(1 + k * 55 * US);
            rc = (rt + rc) / 2.0;
            assert!(close(rp.target_rate(), rt), "stage {k}");
            assert!(close(rp.current_rate(), rc), "stage {k}");
        }
        // Stage 6: timer > F, bytes ≤ F: additive, RT += R_AI.
        rp.on_timer(1 + 6 * 55 * US);
        rt += 40e6;
        rc = (rt + rc) / 2.0;
        assert!(close(rp.target_rate(), rt) && close(rp.current_rate(), rc));
        // Six byte stages as well: both above F, hyper increase with i = min(7, 6) − 5 = 1.
        let mut rp2 = rp.clone();
        rp2.p.byte_counter_bytes = 1000;
        rp2.bytes = 0;
        for _ in 0..5 {
            rp2.on_sent(0, 1000); // byte stages 1..=5: additive (timer stage 6 > F)
        }
        let before = rp2.target_rate();
        assert!(close(before, rt + 5.0 * 40e6));
        rp2.on_sent(0, 1000); // byte stage 6 > F and timer stage 6 > F: hyper, i = 1
        assert!(close(rp2.target_rate(), before + 200e6));
        rp2.on_timer(1 + 7 * 55 * US); // timer stage 7: i = min(7, 6) − 5 = 1
        assert!(close(rp2.target_rate(), before + 400e6));
    }

    #[test]
    fn min_rate_floor_and_line_rate_cap() {
        let mut rp = ReactionPoint::new(params(), LINE);
        for k in 0..100 {
            rp.on_cnp(k * US);
        }
        assert!(close(rp.current_rate(), 10e6), "floored at min_rate: {}", rp.current_rate());
        assert!(rp.min_rate_seen >= 10e6);
        // Many timer increases bring it back to line rate and release the limiter, never above.
        let mut t = 100 * US;
        let mut guard = 0;
        while rp.rate_bps().is_some() {
            t = rp.next_timer().expect("timer runs while limited");
            rp.on_timer(t);
            assert!(rp.current_rate() <= LINE as f64 && rp.target_rate() <= LINE as f64);
            guard += 1;
            assert!(guard < 100_000, "never recovered");
        }
        assert_eq!(rp.current_rate(), LINE as f64);
        assert_eq!(rp.next_timer(), None);
        let _ = t;
    }

    #[test]
    fn connectx_knobs_rate_reduce_interval_and_clamping() {
        let mut p = params();
        p.rate_reduce_interval_ps = 4 * US;
        p.clamp_target_rate = false;
        p.clamp_target_rate_after_time_increase = true;
        p.initial_alpha = 1023.0 / 1024.0;
        let mut rp = ReactionPoint::new(p, LINE);
        rp.on_cnp(0);
        assert!(close(rp.current_rate(), 100e9 * (1.0 - 1023.0 / 2048.0)));
        rp.on_cnp(2 * US);
        assert_eq!((rp.cuts, rp.cnps_ignored), (1, 1), "within the 4 µs monitor period");
        // A cut without a timer increase since the last one leaves RT where it was.
        let rt = rp.target_rate();
        rp.on_cnp(5 * US);
        assert!(close(rp.target_rate(), rt));
        // After a timer increase, the next cut clamps RT to RC.
        rp.on_timer(5 * US + 55 * US);
        let rc = rp.current_rate();
        rp.on_cnp(70 * US);
        assert!(close(rp.target_rate(), rc));
        // max_decrease bounds a cut.
        let mut p2 = params();
        p2.max_decrease = 0.25;
        let mut rp = ReactionPoint::new(p2, LINE);
        rp.on_cnp(0);
        assert!(close(rp.current_rate(), 75e9));
        // rate_on_first_cnp sets both rates.
        let mut p3 = params();
        p3.rate_on_first_cnp_bps = Some(20_000_000_000);
        let mut rp = ReactionPoint::new(p3, LINE);
        rp.on_cnp(0);
        assert!(close(rp.current_rate(), 20e9) && close(rp.target_rate(), 20e9));
    }

    #[test]
    fn notification_point_spaces_cnps_per_qp() {
        let mut np = NotificationPoint::default();
        assert!(np.on_ce(0, 50 * US));
        assert!(!np.on_ce(10 * US, 50 * US));
        assert!(!np.on_ce(49 * US, 50 * US));
        assert!(np.on_ce(50 * US, 50 * US));
        assert!(!np.on_ce(60 * US, 50 * US));
        assert_eq!((np.ce_packets, np.cnps_sent), (5, 2));
    }
}
