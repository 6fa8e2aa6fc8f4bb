//! The sender's SACK scoreboard (RFC 6675): the SACKed ranges and their prefix sums, the loss
//! boundary (IsLost), the holes, `pipe`, and the marks that tell whether an ACK found a new loss.

use super::super::{insert_range, range_covers, remove_range, SackBlocks};
use super::Sender;

/// What marks a loss on the scoreboard, before an ACK, to tell whether the ACK marked a new one
/// (Linux's `newly_lost`, which withholds PRR's extra segment).
#[derive(Clone, Copy)]
pub(super) struct LossMarks {
    lost_limit: u64,
    relost: u64,
    high_rxt: u64,
}

impl Sender {
    /// Whether `[s, e)` is SACKed.
    pub(super) fn is_sacked(&self, s: u64, e: u64) -> bool {
        range_covers(&self.sacked, s, e)
    }

    /// Lost retransmissions without RACK: a retransmission neither acknowledged nor SACKed while
    /// data sent after it is SACKed was lost again (the paths are FIFO), as Linux's lost-retransmit
    /// detection reasons (`tcp_mark_lost_retrans`, in the kernels before RACK: a retransmitted
    /// segment sent when `snd_nxt` was below the highest SACKed byte is lost). HighRxt goes back
    /// to the lowest such one, so that rule 1 sends it again instead of leaving it to the
    /// retransmission timer. Linux dropped this rule in 4.4 for RACK, which finds each lost
    /// retransmission on its own, and so does the model: with RACK on it is not run. (Before the
    /// model had PRR, RACK alone lost to this rule in a deep-buffered 16-stream CUBIC test,
    /// `engine_bench tcp-iperf`: 43.2 against 69.8 MB delivered in order in 20 ms, so the rule
    /// ran beside RACK. With PRR, RACK alone delivers 83.4 MB and the rule beside it 82.0 MB, and
    /// across the examples at seeds 1 and 2 RACK alone retransmits 28 % fewer segments with no
    /// timeout either way.)
    pub(super) fn detect_lost_retransmissions(&mut self) {
        let top = self.sacked.last().map_or(0, |r| r.1);
        let mut lowest = u64::MAX;
        while let Some(&(s, e, sent_at_max)) = self.rtx_marks.front() {
            if top <= sent_at_max {
                break;
            }
            self.rtx_marks.pop_front();
            if e > self.snd_una && !self.is_sacked(s, e) {
                lowest = lowest.min(s);
            }
        }
        if lowest != u64::MAX {
            self.high_rxt = self.high_rxt.min(lowest);
        }
    }

    /// Whether SACK was negotiated.
    pub fn sack_enabled(&self) -> bool {
        self.sack
    }

    /// Whether RFC 6675 recovery is in progress.
    pub(super) fn sack_recovery(&self) -> bool {
        self.sack && self.recovery.is_some()
    }

    /// Bytes SACKed above `snd_una`.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_prefix.last().copied().unwrap_or(0)
    }

    /// Bytes SACKed below offset `x`.
    pub(super) fn sacked_below(&self, x: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, e)| e <= x);
        self.sacked_prefix[i] + self.sacked.get(i).map_or(0, |&(s, _)| x.saturating_sub(s))
    }

    /// Rebuild the prefix sums after the scoreboard changed.
    pub(super) fn index_sacks(&mut self) {
        self.sacked_prefix.clear();
        self.sacked_prefix.push(0);
        let mut total = 0;
        for &(s, e) in &self.sacked {
            total += e - s;
            self.sacked_prefix.push(total);
        }
    }

    /// Record the SACK blocks of an ACK: their part above `una` and at most `snd_max`, merged
    /// with the ranges they overlap or touch.
    pub(super) fn add_sacks(&mut self, blocks: &SackBlocks, una: u64) {
        for (s, e) in blocks.iter() {
            insert_range(&mut self.sacked, s.max(una), e.min(self.snd_max));
            remove_range(&mut self.relost, s, e);
        }
        self.index_sacks();
    }

    /// Forget the scoreboard below `una`.
    pub(super) fn prune_sacks(&mut self, una: u64) {
        remove_range(&mut self.relost, 0, una);
        self.sacked.retain(|&(_, e)| e > una);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(una);
        }
        self.index_sacks();
    }

    /// RFC 6675 IsLost as a boundary: an unSACKed byte below the returned offset has more than
    /// (DupThresh − 1)·SMSS bytes SACKed above it, and is deemed lost; none above it is.
    pub(super) fn lost_limit(&self) -> u64 {
        let k = (self.dupack_threshold as u64 - 1) * self.mss;
        let mut above = 0;
        for &(s, e) in self.sacked.iter().rev() {
            above += e - s;
            if above > k {
                return s.max(self.lost_below);
            }
        }
        self.snd_una.max(self.lost_below)
    }

    /// The first unSACKed byte at or after `from` below `snd_max`, and the end of its hole.
    pub(super) fn next_hole(&self, from: u64) -> Option<(u64, u64)> {
        let mut at = from.max(self.snd_una);
        let mut i = self.sacked.partition_point(|&(_, e)| e <= at);
        while let Some(&(s, e)) = self.sacked.get(i) {
            if at < s {
                return Some((at, s));
            }
            at = at.max(e);
            i += 1;
        }
        (at < self.snd_max).then_some((at, self.snd_max))
    }

    /// [`Self::pipe`], computed once per change of the state it depends on (the engine asks
    /// several times per ACK).
    pub(super) fn cached_pipe(&self) -> u64 {
        if self.pipe_cache.get() == u64::MAX {
            self.pipe_cache.set(self.pipe());
        }
        self.pipe_cache.get()
    }

    /// RFC 6675 SetPipe: the unSACKed bytes not deemed lost (from the loss boundary to
    /// `snd_max`), plus those retransmitted (from `snd_una` to HighRxt).
    pub fn pipe(&self) -> u64 {
        let lost = self.lost_limit();
        let hole = |a: u64, b: u64| b - b.min(a.max(lost)) + self.high_rxt.min(b).saturating_sub(a);
        let unsacked = |a: u64, b: u64| (b - a) - (self.sacked_below(b) - self.sacked_below(a));
        let clamp = |x: u64| x.clamp(self.snd_una, self.snd_max);
        let mut pipe = unsacked(clamp(lost), self.snd_max) + unsacked(self.snd_una, clamp(self.high_rxt));
        // A retransmission lost again is no longer in the network.
        for &(a, b) in &self.relost {
            pipe = pipe.saturating_sub(hole(a, b));
        }
        pipe
    }

    /// The scoreboard's loss marks now, for [`Self::marked_new_loss`].
    pub(super) fn loss_marks(&self) -> LossMarks {
        LossMarks {
            lost_limit: self.lost_limit(),
            relost: self.relost.iter().map(|(a, b)| b - a).sum(),
            high_rxt: self.high_rxt,
        }
    }

    /// Whether the ACK processed since `before` marked a loss: the boundary of lost bytes rose
    /// above SND.UNA and where it was, or a retransmission was found lost again (RACK's list, or
    /// HighRxt moved back by the rule of [`Self::detect_lost_retransmissions`]).
    pub(super) fn marked_new_loss(&self, before: LossMarks) -> bool {
        let now = self.loss_marks();
        now.lost_limit > before.lost_limit.max(self.snd_una)
            || now.relost > before.relost
            || (self.high_rxt != 0 && now.high_rxt < before.high_rxt)
    }
}
