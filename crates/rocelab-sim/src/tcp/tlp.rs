//! Tail loss probe (TLP, RFC 8985 §7) as Linux sends it: `net.ipv4.tcp_early_retrans = 3`, the
//! default since Linux 3.10 (`tcp_schedule_loss_probe`, `tcp_send_loss_probe` and
//! `tcp_process_tlp_ack` in `net/ipv4/tcp_output.c` and `tcp_input.c`).
//!
//! Why: a loss at the tail of a flight leaves too few segments behind it for three duplicate
//! ACKs, and without a probe only the retransmission timeout recovers it, at least 200 ms
//! (Linux's `TCP_RTO_MIN`) against a data-centre RTT of tens of microseconds. The probe timer
//! (PTO) fires after about two round trips instead, and the probe, one segment sent whatever the
//! congestion window, draws the ACK whose SACK information lets fast recovery repair the tail.
//!
//! The state machine here only decides *when* a probe is due and what its acknowledgement
//! means; the sender picks the segment (new data if the peer's window allows one, else the last
//! segment again) and applies the congestion response.
//!
//! When the probe is SACKed, everything still unSACKed below it left at least a PTO earlier,
//! longer ago than RACK's RTT plus its reordering window (a quarter of the minimum RTT), so RACK
//! deems it lost, and so does the sender (`Sender::lost_below`), with RACK on or off: recovery
//! repairs a whole window lost at once, or a hole behind one SACKed segment, one RTT after the
//! probe. (RACK itself does not take a retransmitted probe's delivery, see [`super::rack`]; this
//! rule follows from the probe's timing alone.) With RACK on, its reordering timer takes the one
//! timer Linux has for both while it is pending, and usually finds a hole below a SACKed segment
//! lost before a probe falls due.
//!
//! Not modelled: D-SACK (RFC 2883), with which Linux can tell that a retransmitted probe was
//! spurious; here a retransmitted probe whose episode ends with an ACK beyond it counts as a
//! repaired loss, as Linux counts it when no D-SACK arrives. A lost retransmission with nothing
//! sent after it waits for the retransmission timer (no probe during recovery, as in Linux).
//!
//! With one segment in flight the probe waits 200 ms more for a delayed ACK, about as long as
//! the retransmission timer, as in Linux.

use crate::time::{Time, MS};

/// What PTO adds to two smoothed RTTs while more than one segment is in flight: Linux's
/// `TCP_TIMEOUT_MIN_US` (2 ms; `TCP_TIMEOUT_MIN`, two jiffies, before it).
pub const PTO_SLACK: Time = 2 * MS;

/// The probe timer: `2·SRTT` plus [`PTO_SLACK`], or plus `worst_case_delack` (Linux adds
/// `TCP_RTO_MIN`, 200 ms: RFC 8985's WCDelAckT) when one segment is in flight, since its ACK
/// may be delayed; without an RTT sample, `initial` (1 s, Linux's `TCP_TIMEOUT_INIT`).
pub fn probe_timeout(srtt: Option<Time>, one_segment: bool, worst_case_delack: Time, initial: Time) -> Time {
    match srtt {
        Some(s) => 2 * s + if one_segment { worst_case_delack } else { PTO_SLACK },
        None => initial,
    }
}

/// What an ACK meant to the probe episode in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlpAck {
    /// No episode, or the ACK does not settle it.
    Pending,
    /// The episode is over and nothing was lost (a new-data probe acknowledged, or the original
    /// and the retransmitted probe both arrived).
    Done,
    /// The retransmitted probe repaired a loss: the sender reduces its window once, as for an
    /// ECN echo (Linux enters the CWR state).
    LossRepaired,
}

/// One sender's loss probe state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TailLossProbe {
    enabled: bool,
    /// When the probe timer fires.
    pub at: Option<Time>,
    /// The timer fired: the next segment the sender sends is the probe.
    pub due: bool,
    /// The episode in progress: the stream range `[start, end)` the probe carried, whose end is
    /// `TLP.end_seq` (the probe is the last segment sent, new or again), and whether it was a
    /// retransmission.
    episode: Option<(u64, u64, bool)>,
}

impl TailLossProbe {
    /// A sender's probe state; `enabled` is the stack's setting with SACK negotiated (Linux sends
    /// no probe without SACK).
    pub fn new(enabled: bool) -> Self {
        TailLossProbe { enabled, ..Default::default() }
    }

    /// Whether a probe episode is in progress.
    pub fn in_episode(&self) -> bool {
        self.episode.is_some()
    }

    /// Start or restart the timer at `now` (after new data went out, or an ACK acknowledged new
    /// data): `timeout` from now, but never after `rto_at` (Linux arms the probe at the earlier
    /// of the two, so the first expiry is a probe). Only while `open` (no loss recovery and no
    /// timeout recovery in progress), data is in flight and no episode is in progress;
    /// otherwise no probe is pending.
    pub fn arm(&mut self, now: Time, open: bool, in_flight: bool, timeout: Time, rto_at: Option<Time>) {
        if !self.enabled || !open || !in_flight || self.episode.is_some() {
            self.at = None;
            self.due = false;
            return;
        }
        let at = now + timeout;
        self.at = Some(rto_at.map_or(at, |r| at.min(r)));
    }

    /// The timer at `now`: whether the probe just became due.
    pub fn on_timer(&mut self, now: Time) -> bool {
        match self.at {
            Some(t) if t <= now => {
                self.at = None;
                self.due = true;
                true
            }
            _ => false,
        }
    }

    /// The probe `[start, end)` went out: SND.NXT is `end` after it.
    pub fn sent(&mut self, start: u64, end: u64, retransmission: bool) {
        self.due = false;
        self.at = None;
        self.episode = Some((start, end, retransmission));
    }

    /// The stream range of the probe of the episode in progress.
    pub fn probe_range(&self) -> Option<(u64, u64)> {
        self.episode.map(|(s, e, _)| (s, e))
    }

    /// An ACK of `ack` arrived during an episode (`tcp_process_tlp_ack`). `pure_duplicate`: it
    /// advanced nothing, carried no data and SACKed nothing new.
    pub fn on_ack(&mut self, ack: u64, pure_duplicate: bool) -> TlpAck {
        let Some((_, end, retransmission)) = self.episode else {
            return TlpAck::Pending;
        };
        if ack < end {
            return TlpAck::Pending;
        }
        let verdict = if !retransmission {
            TlpAck::Done
        } else if ack > end {
            TlpAck::LossRepaired
        } else if pure_duplicate {
            TlpAck::Done
        } else {
            return TlpAck::Pending;
        };
        self.episode = None;
        verdict
    }

    /// Loss recovery or a timeout began: no probe, and the episode is over (Linux clears
    /// `tlp_high_seq` when it reduces the window for a loss and on a timeout).
    pub fn reset(&mut self) {
        self.at = None;
        self.due = false;
        self.episode = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::US;

    #[test]
    fn the_probe_timeout_is_two_rtts_and_a_slack_or_the_delayed_ack_bound() {
        assert_eq!(probe_timeout(Some(25 * US), false, 200 * MS, 1000 * MS), 50 * US + 2 * MS);
        assert_eq!(probe_timeout(Some(25 * US), true, 200 * MS, 1000 * MS), 50 * US + 200 * MS);
        assert_eq!(probe_timeout(None, false, 200 * MS, 1000 * MS), 1000 * MS);
    }

    #[test]
    fn the_timer_is_armed_only_in_the_open_state_with_data_in_flight() {
        let mut t = TailLossProbe::new(true);
        t.arm(0, false, true, 5 * MS, None);
        assert_eq!(t.at, None);
        t.arm(0, true, false, 5 * MS, None);
        assert_eq!(t.at, None);
        t.arm(10, true, true, 5 * MS, None);
        assert_eq!(t.at, Some(10 + 5 * MS));
        let mut off = TailLossProbe::new(false);
        off.arm(10, true, true, 5 * MS, None);
        assert_eq!(off.at, None);
    }

    #[test]
    fn the_probe_never_waits_past_the_retransmission_timer() {
        let mut t = TailLossProbe::new(true);
        t.arm(0, true, true, 5 * MS, Some(3 * MS));
        assert_eq!(t.at, Some(3 * MS));
    }

    #[test]
    fn the_timer_makes_the_probe_due_once() {
        let mut t = TailLossProbe::new(true);
        t.arm(0, true, true, 5 * MS, None);
        assert!(!t.on_timer(5 * MS - 1));
        assert!(t.on_timer(5 * MS));
        assert!(t.due);
        assert!(!t.on_timer(6 * MS));
        t.sent(0, 1000, false);
        assert!(!t.due);
        assert!(t.in_episode());
        // No second probe while the episode is in progress.
        t.arm(7 * MS, true, true, 5 * MS, None);
        assert_eq!(t.at, None);
    }

    #[test]
    fn a_new_data_probe_ends_its_episode_when_acknowledged() {
        let mut t = TailLossProbe::new(true);
        t.sent(0, 9000, false);
        assert_eq!(t.on_ack(8999, false), TlpAck::Pending);
        assert_eq!(t.on_ack(9000, false), TlpAck::Done);
        assert!(!t.in_episode());
    }

    #[test]
    fn a_retransmitted_probe_acknowledged_beyond_it_repaired_a_loss() {
        let mut t = TailLossProbe::new(true);
        t.sent(0, 9000, true);
        // The ACK that reaches the probe's end says nothing yet: the original may have arrived.
        assert_eq!(t.on_ack(9000, false), TlpAck::Pending);
        assert_eq!(t.on_ack(12_000, false), TlpAck::LossRepaired);
        assert_eq!(t.on_ack(15_000, false), TlpAck::Pending);
    }

    #[test]
    fn a_duplicate_ack_at_the_probe_end_means_both_copies_arrived() {
        let mut t = TailLossProbe::new(true);
        t.sent(0, 9000, true);
        assert_eq!(t.on_ack(9000, true), TlpAck::Done);
        assert!(!t.in_episode());
    }

    #[test]
    fn recovery_ends_the_episode_and_cancels_the_probe() {
        let mut t = TailLossProbe::new(true);
        t.arm(0, true, true, 5 * MS, None);
        assert!(t.on_timer(5 * MS));
        t.reset();
        assert!(!t.due);
        assert_eq!(t.at, None);
        t.sent(0, 100, true);
        t.reset();
        assert!(!t.in_episode());
    }
}
