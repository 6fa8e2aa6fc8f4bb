//! Congestion control: the window rules a TCP sender follows, behind one trait.
//!
//! The sender owns the shared state ([`CcState`]: cwnd and ssthresh in bytes) and runs loss
//! recovery itself (fast retransmit, NewReno recovery, RTO); an algorithm decides how the window
//! grows on ACKs and where it goes on a congestion signal:
//! * [`NewReno`]: RFC 5681 slow start and congestion avoidance with byte counting, RFC 3465
//!   appropriate byte counting (L = 2) in slow start, halving on loss and on ECN-Echo
//!   (RFC 3168 §6.1.2).
//! * [`Cubic`]: RFC 9438 (C = 0.4, β = 0.7, fast convergence, the Reno-friendly region), with
//!   Linux's HyStart ending slow start (see [`super::hystart`]); a timeout forgets W_max
//!   (RFC 9438 §4.8, Linux's `cubictcp_state` on `TCP_CA_Loss`).
//! * [`Dctcp`]: RFC 8257: Reno growth; α ← (1 − g)·α + g·F once per window of data, g = 1/16,
//!   F the fraction of acknowledged bytes that carried ECE; on ECE, cwnd ← cwnd·(1 − α/2)
//!   once per window; loss as Reno. α is kept in units of 1/1024 like Linux's `tcp_dctcp`.
//!
//! The algorithms are a closed set dispatched by `match` ([`Cc`]), so a sender holds its
//! algorithm inline and nothing is boxed.

use super::hystart::{HyStart, HyStartExit};
use crate::detmath;
use crate::time::{Time, SECOND};

/// Which algorithm a sender runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// RFC 5681 / RFC 6582 ("reno" in Linux).
    NewReno,
    /// RFC 9438, Linux's default.
    Cubic,
    /// RFC 8257; needs ECN at both ends and ECN marking in the switches.
    Dctcp,
}

/// The congestion window and slow-start threshold, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcState {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
    /// Sender MSS.
    pub mss: u64,
}

impl CcState {
    /// In slow start (RFC 5681 §3.1: cwnd < ssthresh).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start with appropriate byte counting, L = 2 (RFC 3465 §2.2); returns the bytes of
    /// `acked` left over once cwnd reaches ssthresh (to be counted in congestion avoidance).
    fn slow_start(&mut self, acked: u64) -> u64 {
        let room = self.ssthresh.saturating_sub(self.cwnd);
        let grow = acked.min(2 * self.mss);
        if grow <= room {
            self.cwnd += grow;
            0
        } else {
            self.cwnd += room;
            acked - room
        }
    }

    fn floor(&self) -> u64 {
        2 * self.mss
    }
}

/// What an ACK that advanced SND.UNA tells the congestion control before the window grows on
/// it (Linux's `struct ack_sample`, passed to `pkts_acked` from `tcp_clean_rtx_queue`, before
/// `cong_avoid`).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// The RTT of the most recently sent segment the ACK delivered, if that segment was never
    /// retransmitted (Linux's `ca_rtt_us`); `None` if the ACK gives no sample.
    pub rtt: Option<Time>,
    /// The sender's smoothed RTT (0 before a sample).
    pub srtt: Time,
    pub snd_una: u64,
    pub snd_nxt: u64,
}

/// A congestion control algorithm (see the module documentation).
pub trait CongestionControl {
    /// `acked` new bytes were acknowledged at `now` outside loss recovery; `srtt` is the
    /// sender's smoothed RTT.
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Time);

    /// Loss detected (fast retransmit or timeout) with `flight` bytes outstanding: set
    /// `st.ssthresh`. The sender then sets cwnd as its recovery rule says.
    fn on_loss(&mut self, st: &mut CcState, now: Time, flight: u64);

    /// ECN-Echo received (once per window): reduce `st.cwnd` and `st.ssthresh` (RFC 3168 §6.1.2).
    fn on_ecn(&mut self, st: &mut CcState, now: Time, flight: u64);

    /// Every ACK, before the others: `acked` bytes, whether it carried ECE, and the sender's
    /// `snd_una` (after the ACK) and `snd_max`. DCTCP estimates α here; others ignore it.
    fn on_ack_ecn(&mut self, _acked: u64, _ece: bool, _snd_una: u64, _snd_max: u64) {}

    /// An ACK advanced SND.UNA, before `on_ack` (Linux's `pkts_acked`): CUBIC's HyStart may end
    /// slow start here by setting `st.ssthresh`, and says so.
    fn on_ack_sample(&mut self, _st: &mut CcState, _a: &AckSample) -> Option<HyStartExit> {
        None
    }

    /// The retransmission timer fired at `now`, after `on_loss` (Linux's `TCP_CA_Loss`), with
    /// SND.NXT at `snd_nxt`.
    fn on_timeout(&mut self, _st: &mut CcState, _now: Time, _snd_nxt: u64) {}

    /// Whether a loss found while the window is coming down after an ECN echo (CWR) sets ssthresh
    /// again. Linux's recovery takes over CWR's reduction without a new one
    /// (`tcp_enter_recovery`), so NewReno and CUBIC do not; DCTCP halves the window on every entry
    /// into recovery (`dctcp_state` calls `dctcp_react_to_loss`).
    fn cuts_again_on_loss_in_cwr(&self) -> bool {
        false
    }
}

/// RFC 5681 congestion avoidance with byte counting (§3.1, "cwnd += SMSS per cwnd of bytes").
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno {
    bytes_acked: u64,
}

impl NewReno {
    fn grow(&mut self, st: &mut CcState, acked: u64) {
        let acked = if st.in_slow_start() { st.slow_start(acked) } else { acked };
        if acked == 0 || st.in_slow_start() {
            return;
        }
        self.bytes_acked += acked;
        while self.bytes_acked >= st.cwnd {
            self.bytes_acked -= st.cwnd;
            st.cwnd += st.mss;
        }
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, st: &mut CcState, _now: Time, acked: u64, _srtt: Time) {
        self.grow(st, acked);
    }
    fn on_loss(&mut self, st: &mut CcState, _now: Time, flight: u64) {
        // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
        st.ssthresh = (flight / 2).max(st.floor());
        self.bytes_acked = 0;
    }
    fn on_ecn(&mut self, st: &mut CcState, _now: Time, _flight: u64) {
        st.ssthresh = (st.cwnd / 2).max(st.floor());
        st.cwnd = st.ssthresh;
        self.bytes_acked = 0;
    }
}

/// CUBIC constant C (RFC 9438: 0.4), segments per second³.
pub const CUBIC_C: f64 = 0.4;
/// CUBIC multiplicative decrease factor β (RFC 9438 §4.6).
pub const CUBIC_BETA: f64 = 0.7;

/// CUBIC (RFC 9438). Windows in segments as `f64`; time in seconds since the epoch.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cubic {
    /// W_max: the window before the last reduction, in segments.
    pub w_max: f64,
    /// The window before the previous reduction (fast convergence).
    w_last_max: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Time>,
    /// K, seconds (RFC 9438 eq. 2).
    pub k: f64,
    /// The Reno-friendly estimate W_est, segments.
    w_est: f64,
    /// Bytes of cwnd growth not yet applied (sub-byte remainders).
    carry: f64,
    /// HyStart (`None`: off, slow start runs until a loss or an ECN echo).
    pub hystart: Option<HyStart>,
}

impl Cubic {
    /// CUBIC with HyStart on or off (Linux's `tcp_cubic` parameter `hystart`, default 1).
    pub fn new(hystart: bool) -> Self {
        Cubic { hystart: hystart.then(|| HyStart::new(0, 0)), ..Default::default() }
    }

    /// W_cubic(t) = C·(t − K)³ + W_max, segments (RFC 9438 eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        CUBIC_C * d * d * d + self.w_max
    }

    fn reduce(&mut self, st: &mut CcState) {
        let cwnd = st.cwnd as f64 / st.mss as f64;
        // Fast convergence (RFC 9438 §4.7).
        if cwnd < self.w_last_max {
            self.w_last_max = cwnd;
            self.w_max = cwnd * (1.0 + CUBIC_BETA) / 2.0;
        } else {
            self.w_last_max = cwnd;
            self.w_max = cwnd;
        }
        st.ssthresh = ((cwnd * CUBIC_BETA * st.mss as f64) as u64).max(st.floor());
        self.epoch_start = None;
        self.carry = 0.0;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Time) {
        let acked = if st.in_slow_start() { st.slow_start(acked) } else { acked };
        if acked == 0 || st.in_slow_start() {
            return;
        }
        let mss = st.mss as f64;
        let cwnd = st.cwnd as f64 / mss;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                // A new epoch (RFC 9438 §4.2): K from the window at its start.
                self.epoch_start = Some(now);
                self.w_est = cwnd;
                if cwnd < self.w_max {
                    self.k = detmath::cbrt((self.w_max - cwnd) / CUBIC_C);
                } else {
                    self.k = 0.0;
                    self.w_max = cwnd;
                }
                now
            }
        };
        let t = (now - epoch) as f64 / SECOND as f64;
        let rtt = srtt as f64 / SECOND as f64;
        let segs = acked as f64 / mss;
        // Reno-friendly estimate (RFC 9438 §4.3): α = 3(1 − β)/(1 + β) until W_max, then 1.
        let alpha = if self.w_est < self.w_max { 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA) } else { 1.0 };
        self.w_est += alpha * segs / cwnd;
        let mut grow = if self.w_cubic(t) < self.w_est {
            (self.w_est - cwnd).max(0.0)
        } else {
            // Concave/convex region (§4.4-4.5): target W_cubic(t + RTT) within [cwnd, 1.5·cwnd],
            // approached by (target − cwnd)/cwnd per acknowledged segment.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            (target - cwnd) / cwnd * segs
        };
        if self.w_last_max == 0.0 {
            // No reduction yet (slow start ended by HyStart, or a timeout cleared the state):
            // Linux grows at least 5 % a round trip, a segment per 20 acknowledged ("the
            // initial growth of cubic function may be too conservative when the available
            // bandwidth is still unknown": `bictcp_update` caps `cnt` at 20).
            grow = grow.max(segs / 20.0);
        }
        self.carry += grow * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        st.cwnd += whole as u64;
    }
    fn on_loss(&mut self, st: &mut CcState, _now: Time, _flight: u64) {
        self.reduce(st);
    }
    fn on_ecn(&mut self, st: &mut CcState, _now: Time, _flight: u64) {
        self.reduce(st);
        st.cwnd = st.ssthresh;
    }
    /// HyStart (`cubictcp_acked`): RTT samples are discarded for a second after a congestion
    /// avoidance epoch began ("right after fast recovery"); an exit sets ssthresh to the window,
    /// which ends slow start before this ACK grows the window. Like Linux, slow start here is
    /// only `cwnd < ssthresh`: a window PRR has brought below ssthresh in recovery counts too.
    fn on_ack_sample(&mut self, st: &mut CcState, a: &AckSample) -> Option<HyStartExit> {
        let h = self.hystart.as_mut()?;
        if self.epoch_start.is_some_and(|e| a.now - e < SECOND) {
            return None;
        }
        let exit = h.on_ack(a, st);
        if exit.is_some() {
            st.ssthresh = st.cwnd;
        }
        exit
    }
    /// Linux's `cubictcp_state` on `TCP_CA_Loss` clears CUBIC's state after `ssthresh` has
    /// used it: W_max is forgotten (RFC 9438 §4.8: after a timeout, K = 0 and W_max is the
    /// window when congestion avoidance begins) and HyStart starts afresh.
    fn on_timeout(&mut self, _st: &mut CcState, now: Time, snd_nxt: u64) {
        self.w_max = 0.0;
        self.w_last_max = 0.0;
        self.epoch_start = None;
        if let Some(h) = self.hystart.as_mut() {
            h.restart(now, snd_nxt);
        }
    }
}

/// DCTCP's estimation gain g = 1/2⁴ (RFC 8257 recommends 1/16; Linux `dctcp_shift_g` = 4).
pub const DCTCP_SHIFT_G: u32 = 4;
/// α = 1 in the fixed-point units of [`Dctcp::alpha`].
pub const DCTCP_ALPHA_ONE: u32 = 1024;

/// DCTCP (RFC 8257).
#[derive(Clone, Copy, Debug)]
pub struct Dctcp {
    reno: NewReno,
    /// α in units of 1/1024; starts at 1 (Linux `dctcp_alpha_on_init` = 1024).
    pub alpha: u32,
    window_end: u64,
    acked: u64,
    marked: u64,
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp { reno: NewReno::default(), alpha: DCTCP_ALPHA_ONE, window_end: 0, acked: 0, marked: 0 }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, st: &mut CcState, _now: Time, acked: u64, _srtt: Time) {
        self.reno.grow(st, acked);
    }
    fn on_loss(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.reno.on_loss(st, now, flight);
    }
    fn on_ecn(&mut self, st: &mut CcState, _now: Time, _flight: u64) {
        // RFC 8257 §3.3: cwnd = cwnd × (1 − α/2).
        let cut = st.cwnd * self.alpha as u64 / (2 * DCTCP_ALPHA_ONE as u64);
        st.cwnd = (st.cwnd - cut).max(st.floor());
        st.ssthresh = st.cwnd;
    }
    fn cuts_again_on_loss_in_cwr(&self) -> bool {
        true
    }
    fn on_ack_ecn(&mut self, acked: u64, ece: bool, snd_una: u64, snd_max: u64) {
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        // Once per window of data (RFC 8257 §3.3): when the ACK passes the window's end.
        if snd_una >= self.window_end {
            if let Some(f) = (self.marked * DCTCP_ALPHA_ONE as u64).checked_div(self.acked) {
                let a = self.alpha as u64;
                self.alpha = (a - (a >> DCTCP_SHIFT_G) + (f >> DCTCP_SHIFT_G)).min(DCTCP_ALPHA_ONE as u64) as u32;
            }
            self.window_end = snd_max;
            self.acked = 0;
            self.marked = 0;
        }
    }
}

/// The algorithm a sender runs, held inline.
#[derive(Clone, Copy, Debug)]
pub enum Cc {
    /// NewReno.
    NewReno(NewReno),
    /// CUBIC.
    Cubic(Cubic),
    /// DCTCP.
    Dctcp(Dctcp),
}

impl Cc {
    /// A fresh instance of `kind`; `hystart` applies to CUBIC only (Linux's Reno and DCTCP have
    /// none).
    pub fn new(kind: CcKind, hystart: bool) -> Self {
        match kind {
            CcKind::NewReno => Cc::NewReno(NewReno::default()),
            CcKind::Cubic => Cc::Cubic(Cubic::new(hystart)),
            CcKind::Dctcp => Cc::Dctcp(Dctcp::default()),
        }
    }

    fn inner(&mut self) -> &mut dyn CongestionControl {
        match self {
            Cc::NewReno(c) => c,
            Cc::Cubic(c) => c,
            Cc::Dctcp(c) => c,
        }
    }
}

impl CongestionControl for Cc {
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Time) {
        self.inner().on_ack(st, now, acked, srtt)
    }
    fn on_loss(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.inner().on_loss(st, now, flight)
    }
    fn on_ecn(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.inner().on_ecn(st, now, flight)
    }
    fn on_ack_ecn(&mut self, acked: u64, ece: bool, snd_una: u64, snd_max: u64) {
        self.inner().on_ack_ecn(acked, ece, snd_una, snd_max)
    }
    fn on_ack_sample(&mut self, st: &mut CcState, a: &AckSample) -> Option<HyStartExit> {
        self.inner().on_ack_sample(st, a)
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, snd_nxt: u64) {
        self.inner().on_timeout(st, now, snd_nxt)
    }
    fn cuts_again_on_loss_in_cwr(&self) -> bool {
        match self {
            Cc::NewReno(c) => c.cuts_again_on_loss_in_cwr(),
            Cc::Cubic(c) => c.cuts_again_on_loss_in_cwr(),
            Cc::Dctcp(c) => c.cuts_again_on_loss_in_cwr(),
        }
    }
}
