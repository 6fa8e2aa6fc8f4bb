//! Proportional Rate Reduction (RFC 6937): how much a sender reducing its window may send on each
//! ACK, so that the window comes down to `ssthresh` over the reduction's round trip instead of all
//! at once. The model runs it, as Linux does, in SACK loss recovery and in the CWR state that an
//! ECN echo begins on a SACK connection.
//!
//! Without it (RFC 6675 §5 alone) the window drops to `ssthresh` when recovery begins, and since
//! `pipe` is then still about the old window, the sender is silent for half a round trip and
//! sends the rest of the recovery's segments in one burst as `pipe` falls below `ssthresh`. With
//! PRR, while `pipe` is above `ssthresh`, every ACK lets out `ssthresh / prior_cwnd` of what it
//! delivered (for CUBIC's β of 0.7, seven segments for every ten delivered); once `pipe` is at or
//! below `ssthresh` (more was lost than the reduction), the slow-start reduction bound
//! (PRR-SSRB) lets it climb back, at most one segment more than was delivered per ACK.
//!
//! The rules are Linux's (`tcp_cwnd_reduction` in `net/ipv4/tcp_input.c`, PRR since 3.2, in this
//! form since 5.19), in bytes instead of segments, with the proportional share rounded up to
//! whole segments as Linux's count of packets rounds it:
//! - the proportional part divides by the congestion window when recovery began (Linux's
//!   `prior_cwnd`), where RFC 6937 divides by the flight (RecoverFS);
//! - the bound's extra segment needs an ACK that advanced SND.UNA and found no new loss;
//! - an ACK that delivered nothing leaves the window alone;
//! - the first ACK of a recovery lets at least one segment out (the fast retransmit);
//! - the window is `pipe` plus what may be sent, and at the end of recovery it is `ssthresh`
//!   (`tcp_end_cwnd_reduction`).
//!
//! In CWR nothing is lost, and recovery may begin inside it: recovery then takes over the
//! reduction with its state (Linux's `tcp_enter_recovery` inits none inside one).
//!
//! Linux also runs PRR without SACK (each duplicate ACK delivering a segment), and ends the CWR
//! that a loss repaired by a probe begins on the same ACK; the model reduces at once there, and
//! uses RFC 6582's window inflation in recovery without SACK.

/// PRR's state for one recovery: a state machine fed the bytes each ACK delivered and each
/// segment sent, with no I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    /// The congestion window when recovery began (Linux's `prior_cwnd`), bytes.
    prior_cwnd: u64,
    /// Bytes delivered to the receiver since recovery began, cumulatively acknowledged or
    /// SACKed, each once (RFC 6937's `prr_delivered`).
    delivered: u64,
    /// Bytes sent since recovery began, new data and retransmissions (`prr_out`).
    out: u64,
}

/// What an ACK in recovery tells PRR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrrAck {
    /// Bytes newly delivered: the cumulative ACK's advance plus the change in SACKed bytes
    /// (RFC 6937's DeliveredData).
    pub delivered: u64,
    /// RFC 6675's `pipe` after the ACK was processed.
    pub pipe: u64,
    /// The ACK advanced SND.UNA and marked nothing newly lost.
    pub clean_advance: bool,
}

impl Prr {
    /// Recovery begins with the congestion window at `prior_cwnd` bytes.
    pub fn start(prior_cwnd: u64) -> Self {
        Prr { prior_cwnd: prior_cwnd.max(1), delivered: 0, out: 0 }
    }

    /// `bytes` left in a segment (new data or a retransmission).
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// The congestion window after an ACK, with `ssthresh` and segments of `mss` bytes; `None`
    /// when the ACK delivered nothing (the window stays as it is).
    pub fn on_ack(&mut self, ack: PrrAck, ssthresh: u64, mss: u64) -> Option<u64> {
        if ack.delivered == 0 {
            return None;
        }
        self.delivered += ack.delivered;
        let sndcnt = if ack.pipe > ssthresh {
            // Proportional: of everything delivered since recovery began, the share
            // `ssthresh / prior_cwnd` may have been sent, rounded up to whole segments as Linux
            // counts them (in bytes, half a segment allowed would send nothing).
            let allowed = (ssthresh as u128 * self.delivered as u128).div_ceil(self.prior_cwnd as u128) as u64;
            allowed.div_ceil(mss).saturating_mul(mss).saturating_sub(self.out)
        } else {
            // Slow-start reduction bound: what the ACK delivered (or the backlog of delivered
            // over sent, if larger), one segment more on a clean advance, up to `ssthresh`.
            // Rounded up to whole segments: Linux counts a short segment delivered as one, and in
            // bytes the 352 delivered by a short one would let nothing out; with nothing else in
            // flight, no ACK would come to let more out, and the sender would wait for its
            // retransmission timer.
            let owed = (self.delivered.saturating_sub(self.out)).max(ack.delivered);
            let bound = owed.div_ceil(mss) * mss + if ack.clean_advance { mss } else { 0 };
            bound.min(ssthresh - ack.pipe)
        };
        // The fast retransmit goes out on the first ACK of a recovery whatever the share says.
        let sndcnt = if self.out == 0 { sndcnt.max(mss) } else { sndcnt };
        Some(ack.pipe + sndcnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(delivered: u64, pipe: u64, clean_advance: bool) -> PrrAck {
        PrrAck { delivered: delivered * MSS, pipe: pipe * MSS, clean_advance }
    }

    #[test]
    fn one_segment_in_two_while_pipe_is_above_half_the_old_window() {
        // RFC 6937 §5's example, Reno's halving: a window of 20 segments, one lost, ssthresh
        // 10. Each duplicate ACK delivers a segment; PRR sends one for every two, so pipe falls
        // from 19 towards 10 over the round trip instead of the sender waiting out 9 ACKs.
        let mut p = Prr::start(20 * MSS);
        let mut pipe = 19;
        let mut sent = Vec::new();
        for _ in 0..18 {
            pipe -= 1;
            let cwnd = p.on_ack(ack(1, pipe, false), 10 * MSS, MSS).unwrap();
            let n = cwnd.saturating_sub(pipe * MSS) / MSS;
            for _ in 0..n {
                p.on_sent(MSS);
                pipe += 1;
            }
            sent.push(n);
        }
        // The first ACK sends the retransmission; then one every second ACK. The 17th ACK
        // brings pipe down to ssthresh, where the reduction bound takes over and holds it there:
        // nothing then, one for the 18th.
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1]);
        assert_eq!(pipe, 10, "pipe reaches ssthresh as the recovery's round trip ends");
    }

    #[test]
    fn the_share_is_ssthresh_over_the_window_when_recovery_began_rounded_up_to_segments() {
        // CUBIC's β = 0.7: 7 of every 10 segments delivered.
        let mut p = Prr::start(10 * MSS);
        assert_eq!(p.on_ack(ack(1, 20, false), 7 * MSS, MSS), Some(21 * MSS), "the fast retransmit");
        p.on_sent(MSS);
        // 2 delivered in all: 1.4 segments allowed, rounded up to 2; 1 sent.
        assert_eq!(p.on_ack(ack(1, 19, false), 7 * MSS, MSS), Some(20 * MSS));
        p.on_sent(MSS);
        // 3 delivered: 2.1, so 3 segments; 2 sent.
        assert_eq!(p.on_ack(ack(1, 19, false), 7 * MSS, MSS), Some(20 * MSS));
        p.on_sent(MSS);
        // 4 delivered: 2.8, so 3; 3 sent: nothing now.
        assert_eq!(p.on_ack(ack(1, 19, false), 7 * MSS, MSS), Some(19 * MSS));
        // A segment shorter than the MSS counts its bytes: 5 delivered allow 4 segments' worth.
        p.on_sent(MSS / 2);
        assert_eq!(p.on_ack(ack(1, 18, false), 7 * MSS, MSS), Some(18 * MSS + MSS / 2));
    }

    #[test]
    fn below_ssthresh_the_bound_allows_what_was_delivered_and_one_more_on_a_clean_advance() {
        let mut p = Prr::start(20 * MSS);
        p.on_sent(MSS);
        // Heavy loss: pipe 4 segments against ssthresh 10. Two segments delivered, one sent:
        // what this ACK delivered (2) is more than the backlog (1).
        assert_eq!(p.on_ack(ack(2, 4, false), 10 * MSS, MSS), Some(6 * MSS));
        // Nothing sent since: the backlog (3 delivered − 1 sent) is now the larger, and a clean
        // advance adds a segment.
        let mut q = p;
        assert_eq!(q.on_ack(ack(1, 4, true), 10 * MSS, MSS), Some(7 * MSS));
        assert_eq!(p.on_ack(ack(1, 4, false), 10 * MSS, MSS), Some(6 * MSS));
        // Never beyond ssthresh.
        assert_eq!(p.on_ack(ack(30, 9, true), 10 * MSS, MSS), Some(10 * MSS));
    }

    #[test]
    fn a_short_segment_delivered_below_ssthresh_lets_a_full_one_out() {
        // A request of 352 bytes, the last thing in flight, acknowledged: Linux counts it as one
        // packet delivered, so one full segment may follow; in bytes that would be 352, less
        // than a segment, and the sender would stall with nothing in flight to clock it.
        let mut p = Prr::start(16 * MSS);
        p.on_sent(4 * MSS);
        let short = PrrAck { delivered: 352, pipe: 0, clean_advance: false };
        assert_eq!(p.on_ack(short, 8 * MSS, MSS), Some(MSS));
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_the_window() {
        let mut p = Prr::start(20 * MSS);
        assert_eq!(p.on_ack(ack(0, 19, false), 10 * MSS, MSS), None);
        assert_eq!(p, Prr::start(20 * MSS));
    }

    #[test]
    fn the_first_ack_lets_the_fast_retransmit_out_even_with_a_tiny_share() {
        // A window of 100 segments halved: the first delivered segment is worth half a segment,
        // and the retransmission still goes; once something was sent the share rules alone.
        let mut p = Prr::start(100 * MSS);
        assert_eq!(p.on_ack(ack(1, 90, false), 50 * MSS, MSS), Some(91 * MSS));
        p.on_sent(MSS);
        assert_eq!(p.on_ack(ack(1, 89, false), 50 * MSS, MSS), Some(89 * MSS), "1 of 2 allowed, 1 sent");
    }
}
