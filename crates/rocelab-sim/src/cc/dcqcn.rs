//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015), as
//! this simulator implements it:
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
    /// How α moves.
    #[serde(default)]
    pub alpha_update: AlphaUpdate,
    /// When the rate is cut.
    #[serde(default)]
    pub rate_reduce: RateReduce,
    /// How the rate climbs back.
    #[serde(default)]
    pub rate_increase: RateIncrease,
}

/// How the reaction point's α moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AlphaUpdate {
    /// The paper: α ← (1 − g)·α + g at every cut, and α ← (1 − g)·α for every
    /// `alpha_update_interval` without a CNP.
    #[default]
    OnCnp,
    /// ConnectX: once per `alpha_update_interval`, α ← (1 − g)·α + g if a CNP arrived in that
    /// period, else α ← (1 − g)·α (NVIDIA "DCQCN CC Parameters": "Every
    /// DcQcnDceAlphaUpdatePeriod α is updated. If the CNP is received during this period, alpha
    /// is incremented. Otherwise, it is decremented."; the ns-3 HPCC simulator's
    /// `RdmaHw::UpdateAlphaMlx`).
    Periodic,
}

/// When the reaction point cuts its rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RateReduce {
    /// At the CNP, unless within `rate_reduce_interval` of the last cut (a CNP then cuts
    /// nothing): the paper, where every CNP cuts (`rate_reduce_interval` 0).
    #[default]
    OnCnp,
    /// Once per `rate_reduce_interval` from the first CNP, at the end of a period in which CNPs
    /// arrived (NVIDIA `rate_reduce_monitor_period`, "the time period between rate reductions";
    /// the ns-3 HPCC simulator's `RdmaHw::CheckRateDecreaseMlx`).
    Periodic,
}

/// How the reaction point's rate climbs back after a cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RateIncrease {
    /// The paper: the timer and the byte counter each advance a stage; fast recovery while both
    /// are at most F, hyper increase (RT += i·R_HAI, i = min(stages) − F) when both are past
    /// it, additive increase otherwise.
    #[default]
    Paper,
    /// ConnectX: the paper's stages, hyper increase by R_HAI per step (`rpg_hai_rate`, "used
    /// to increase rpTargetRate in the RPR_HYPER_INCREASE state").
    Connectx,
    /// The ns-3 HPCC simulator's `RdmaHw::RateIncEventMlx`: the timer alone, F fast
    /// recoveries, one additive increase, then hyper increase by R_HAI per timer event; the
    /// byte counter plays no part.
    TimerOnly,
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

/// The DCQCN reaction point of one QP: its rate limiter. Laid out by use (`repr(C)`): what a
/// QP's every poll, packet and timer re-arm read (whether it is limited, its rate, its timers
/// and its byte counter) in its first 64 bytes, which sit in two cache lines of the queue pair
/// (`sim::rdma::QpRt`); the rest of the state, the parameters (read on a cut or an increase)
/// and the counters after.
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct ReactionPoint {
    /// Rate limiting in force (from the first cut until RC is back at line rate).
    limited: bool,
    /// Rates kept in whole bit/s, each step truncated as the ns-3 HPCC simulator's `DataRate`
    /// arithmetic does ([`ReactionPoint::with_whole_bps`]).
    whole_bps: bool,
    /// A CNP has arrived (the first one sets α to `initial_alpha`).
    ever_cnp: bool,
    /// A CNP arrived in the current α period ([`AlphaUpdate::Periodic`]).
    cnp_in_period: bool,
    time_increase_since_cut: bool,
    /// The byte counter raises the rate (`p.rate_increase` is not [`RateIncrease::TimerOnly`]),
    /// here among the flags that every packet's [`CongestionControl::on_sent`] reads, with
    /// `byte_counter` after `bytes`: in the parameters, two lines further, they were one more
    /// cache miss per packet on the k = 32 fat tree.
    counts_bytes: bool,
    byte_stage: u32,
    timer_stage: u32,
    /// Current rate RC.
    rc: f64,
    timer_at: Option<Time>,
    /// [`RateReduce::Periodic`]: the check that will cut the rate for the CNPs since the last
    /// one, if any (and `reduce_origin`, the first CNP's time: the periods count from it).
    reduce_at: Option<Time>,
    bytes: u64,
    /// `p.byte_counter_bytes`, at least 1.
    byte_counter: u64,
    /// Target rate RT.
    rt: f64,
    alpha: f64,
    line_bps: f64,
    /// [`AlphaUpdate::OnCnp`]: reference time of α's lazy decay. [`AlphaUpdate::Periodic`]: the
    /// start of the current α period.
    alpha_at: Time,
    reduce_origin: Time,
    last_cut: Option<Time>,
    p: DcqcnParams,
    /// CNPs received.
    pub cnps: u64,
    /// CNPs that did not cut: within `rate_reduce_interval` of the last cut ([`RateReduce::
    /// OnCnp`]), or after another in the same period ([`RateReduce::Periodic`]).
    pub cnps_ignored: u64,
    /// Rate cuts.
    pub cuts: u64,
    /// Lowest rate reached (bit/s).
    pub min_rate_seen: f64,
}

const _: () = assert!(std::mem::offset_of!(ReactionPoint, bytes) + 8 <= 64);

/// What a rate-increase event does.
enum Increase {
    FastRecovery,
    Additive,
    Hyper(u32),
}

impl ReactionPoint {
    /// A QP at line rate `line_bps`, unlimited until its first CNP.
    pub fn new(p: DcqcnParams, line_bps: u64) -> Self {
        let line = line_bps as f64;
        ReactionPoint {
            p,
            counts_bytes: p.rate_increase != RateIncrease::TimerOnly,
            byte_counter: p.byte_counter_bytes.max(1),
            line_bps: line,
            rc: line,
            rt: line,
            alpha: p.initial_alpha,
            alpha_at: 0,
            cnp_in_period: false,
            reduce_origin: 0,
            reduce_at: None,
            timer_stage: 0,
            byte_stage: 0,
            bytes: 0,
            timer_at: None,
            last_cut: None,
            time_increase_since_cut: false,
            limited: false,
            ever_cnp: false,
            whole_bps: false,
            cnps: 0,
            cnps_ignored: 0,
            cuts: 0,
            min_rate_seen: line,
        }
    }

    /// The same with its rates in whole bit/s, truncated at every step as the ns-3 HPCC
    /// simulator's `DataRate` holds them (a cut `DataRate(rate × (1 − α/2))`, a recovery
    /// `rate / 2 + target / 2`, each half truncated), so that its rates are that simulator's to
    /// the bit.
    pub fn with_whole_bps(mut self) -> Self {
        self.whole_bps = true;
        self
    }

    /// `r`, truncated to a whole bit/s when rates are kept so.
    fn bps(&self, r: f64) -> f64 {
        if self.whole_bps {
            r.trunc()
        } else {
            r
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

    /// α at `now` (with the updates due by then).
    pub fn alpha_at(&self, now: Time) -> f64 {
        let mut rp = self.clone();
        rp.advance_alpha(now);
        rp.alpha
    }

    /// The (timer, byte) stage counters.
    pub fn stages(&self) -> (u32, u32) {
        (self.timer_stage, self.byte_stage)
    }

    /// Bring α up to `now`. [`AlphaUpdate::OnCnp`]: the decay of every whole interval since
    /// the last update (exact, and no timer event). [`AlphaUpdate::Periodic`]: the update at the
    /// end of each period passed, α ← (1 − g)·α + g after a period with a CNP, (1 − g)·α after
    /// one without; a period ending exactly at `now` is over.
    fn advance_alpha(&mut self, now: Time) {
        self.advance_alpha_to(now, true);
    }

    /// [`Self::advance_alpha`] over the period ends before `now`, or at or before it
    /// (`inclusive`). A CNP that arrives at the very end of a periodic α period counts in that
    /// period: the ns-3 HPCC simulator schedules the arrival of an ACK (a link's delay and its
    /// serialization before it) ahead of the update (one interval before), and runs events of
    /// one instant in the order they were scheduled.
    fn advance_alpha_to(&mut self, now: Time, inclusive: bool) {
        if !self.ever_cnp {
            return;
        }
        let k = self.p.alpha_update_interval_ps.max(1);
        let passed = now.saturating_sub(self.alpha_at);
        let n = if inclusive { passed / k } else { passed.saturating_sub(1) / k };
        if n == 0 {
            return;
        }
        let g = self.p.g;
        let mut rest = n;
        if self.p.alpha_update == AlphaUpdate::Periodic {
            self.alpha = (1.0 - g) * self.alpha + if self.cnp_in_period { g } else { 0.0 };
            self.cnp_in_period = false;
            rest -= 1;
        }
        self.alpha *= (1.0 - g).powi(rest.min(i32::MAX as u64) as i32);
        self.alpha_at += n * k;
    }

    /// The rate cut: RT ← RC when clamping says so, RC ← RC·(1 − min(α/2, max_decrease)),
    /// floored at the minimum rate; the increase stages start over.
    fn cut(&mut self, now: Time) {
        if self.p.clamp_target_rate || (self.p.clamp_target_rate_after_time_increase && self.time_increase_since_cut) {
            self.rt = self.rc;
        }
        let cut = (self.alpha / 2.0).min(self.p.max_decrease);
        self.rc = self.bps(self.rc * (1.0 - cut)).max(self.p.min_rate_bps as f64).min(self.line_bps);
        self.rt = self.rt.max(self.rc);
        self.min_rate_seen = self.min_rate_seen.min(self.rc);
        self.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        self.timer_at = Some(now + self.p.rate_increase_timer_ps.max(1));
        self.last_cut = Some(now);
        self.time_increase_since_cut = false;
        self.limited = true;
        self.cuts += 1;
    }

    /// [`RateReduce::Periodic`]: the check due now cuts the rate for the CNPs since the last.
    fn check(&mut self, now: Time) {
        self.reduce_at = None;
        self.advance_alpha(now);
        self.cut(now);
    }

    /// [`RateReduce::Periodic`]: the next check after `now`, at the first CNP's time plus a whole
    /// number of periods and 1 ns (the ns-3 HPCC simulator's `ScheduleDecreaseRateMlx` puts its
    /// checks 1 ns after the α updates of the same instant).
    fn next_check(&self, now: Time) -> Time {
        let iv = self.p.rate_reduce_interval_ps.max(1);
        let first = self.reduce_origin + iv + crate::time::NS;
        if now < first {
            return first;
        }
        first + ((now - first) / iv + 1) * iv
    }

    fn increase(&mut self) {
        let f = self.p.fast_recovery_steps;
        let (t, b) = (self.timer_stage, self.byte_stage);
        let step = match self.p.rate_increase {
            // The stage before this event (t − 1) below F: fast recovery; at F: additive; past it:
            // hyper, R_HAI each (`RdmaHw::RateIncEventMlx`).
            RateIncrease::TimerOnly if t <= f => Increase::FastRecovery,
            RateIncrease::TimerOnly if t == f + 1 => Increase::Additive,
            RateIncrease::TimerOnly => Increase::Hyper(1),
            RateIncrease::Paper if t > f && b > f => Increase::Hyper(t.min(b) - f),
            RateIncrease::Connectx if t > f && b > f => Increase::Hyper(1),
            _ if t > f || b > f => Increase::Additive,
            _ => Increase::FastRecovery,
        };
        match step {
            Increase::Hyper(i) => self.rt += i as f64 * self.p.hyper_increase_bps as f64,
            Increase::Additive => self.rt += self.p.additive_increase_bps as f64,
            Increase::FastRecovery => {}
        }
        self.rt = self.rt.min(self.line_bps);
        self.rc = (self.bps(self.rt / 2.0) + self.bps(self.rc / 2.0)).min(self.line_bps);
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
        let first = !self.ever_cnp;
        if first {
            // α starts at `initial_alpha` (ConnectX `initial_alpha_value`; 1 in the paper and in
            // the ns-3 HPCC simulator, whose first CNP does not count in its first α period).
            self.ever_cnp = true;
            self.alpha = self.p.initial_alpha;
            self.alpha_at = now;
            self.reduce_origin = now;
            if let Some(r) = self.p.rate_on_first_cnp_bps {
                self.rc = (r as f64).min(self.line_bps).max(self.p.min_rate_bps as f64);
                self.rt = self.rc;
                self.min_rate_seen = self.min_rate_seen.min(self.rc);
                self.limited = true;
            }
        } else {
            if self.reduce_at.is_some_and(|t| t <= now) {
                // A check due at this instant runs before this CNP, which belongs to the next
                // period: that simulator scheduled the check a period ago, ahead of the CNP.
                self.check(now);
            }
            // A periodic α counts a CNP at a period's last instant in that period (the ns-3
            // simulator's update event at that instant runs after it); the paper's decay timer
            // runs out first.
            self.advance_alpha_to(now, self.p.alpha_update == AlphaUpdate::OnCnp);
            if self.p.alpha_update == AlphaUpdate::Periodic {
                self.cnp_in_period = true;
            }
        }
        if self.p.rate_reduce == RateReduce::Periodic {
            // One cut at the next check for every CNP since the last.
            if self.reduce_at.is_some() {
                self.cnps_ignored += 1;
            } else {
                self.reduce_at = Some(self.next_check(now));
            }
            return;
        }
        if first && self.p.rate_on_first_cnp_bps.is_some() {
            self.timer_stage = 0;
            self.byte_stage = 0;
            self.bytes = 0;
            self.timer_at = Some(now + self.p.rate_increase_timer_ps.max(1));
            self.last_cut = Some(now);
            return;
        }
        if let (Some(last), iv) = (self.last_cut, self.p.rate_reduce_interval_ps) {
            if iv > 0 && now < last.saturating_add(iv) {
                self.cnps_ignored += 1;
                return;
            }
        }
        if first {
            // The paper cuts from RC with RT ← RC on the first CNP.
            self.rt = self.rc;
        }
        self.cut(now);
        if self.p.alpha_update == AlphaUpdate::OnCnp {
            self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g;
            self.alpha_at = now;
        }
    }

    fn on_ack(&mut self, _now: Time, _acked_bytes: u64, _rtt: Option<Time>) {}

    #[inline]
    fn on_sent(&mut self, _now: Time, frame_bytes: u64) {
        if !self.limited || !self.counts_bytes {
            return;
        }
        self.bytes += frame_bytes;
        let b = self.byte_counter;
        while self.limited && self.bytes >= b {
            self.bytes -= b;
            self.byte_stage += 1;
            self.increase();
        }
    }

    fn on_timer(&mut self, now: Time) {
        if self.reduce_at.is_some_and(|t| t <= now) {
            self.check(now);
        }
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
        let increase = if self.limited { self.timer_at } else { None };
        match (increase, self.reduce_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    #[inline]
    fn rate_bps(&self) -> Option<f64> {
        self.limited.then_some(self.rc)
    }
}

#[cfg(test)]
mod tests;
