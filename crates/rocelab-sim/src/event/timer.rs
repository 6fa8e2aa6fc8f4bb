//! A timer whose deadline moves, kept to one event in the queue (see [`TimerSlot`]).

use super::Seq;
use crate::time::Time;

/// One queued event for a timer whose deadline is set again and again, usually later (a PFC
/// pause extended by each refresh, the XOFF side's refresh re-armed by each assertion), and
/// whose superseded events used to stay queued and fire for nothing. While an event of the
/// timer is pending at `at`, a later deadline is only recorded, with the sequence number it
/// reserved; when the pending event fires, the engine pushes the recorded deadline in that
/// reserved place ([`super::EventQueue::push_reserved`]), so the live event pops exactly where it
/// would have. (In a queue ordered by the events' keys the event's place is its key, whenever it
/// is pushed, and the reserved number is not used.) An earlier deadline is pushed at once. The
/// payload `u32` is the generation the event carries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimerSlot {
    /// Time of the timer's event in the queue (`Time::MAX`: none).
    at: Time,
    /// The deadline to push when that event fires: time, reserved sequence number, generation.
    then: Option<(Time, Seq, u32)>,
}

impl Default for TimerSlot {
    fn default() -> Self {
        TimerSlot { at: Time::MAX, then: None }
    }
}

impl TimerSlot {
    /// Set the deadline to `time`, with `seq` reserved now and generation `gen`. True when the
    /// caller must push the event now (no event of this timer is pending at or before `time`).
    pub fn arm(&mut self, time: Time, seq: Seq, gen: u32) -> bool {
        if self.at <= time {
            self.then = Some((time, seq, gen));
            false
        } else {
            self.at = time;
            self.then = None;
            true
        }
    }

    /// The timer no longer wants an event (the pending one, if any, will find nothing to do).
    pub fn cancel(&mut self) {
        self.then = None;
    }

    /// An event of this timer fired at `now`: the deadline to push now, if one was recorded
    /// while it was pending.
    pub fn fired(&mut self, now: Time) -> Option<(Time, Seq, u32)> {
        if now != self.at {
            return None;
        }
        self.at = Time::MAX;
        let next = self.then.take();
        if let Some((t, _, _)) = next {
            self.at = t;
        }
        next
    }
}
