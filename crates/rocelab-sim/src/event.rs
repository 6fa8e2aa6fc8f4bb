//! The event queue: pending `(time, sequence, event)` entries, popped in `(time, sequence)` order.
//!
//! Ties in time break by insertion order (the sequence number), so a run is a pure function of
//! scenario and seed. Events are small `Copy` values naming arena indices (ports, packets,
//! flows); no event owns memory.
//!
//! **Structure.** Keys are unique, so every correct priority queue pops the same sequence; this
//! one is chosen for the engine's pattern, where nearly every event is scheduled a few
//! nanoseconds to a few microseconds ahead (a frame's serialization, the head frame of a link):
//! a two-level bucket queue in the manner of a timing wheel (Varghese & Lauck, SOSP 1987) and of
//! the ladder queue (Tang, Goh & Thng, ACM TOMACS 2005), keyed on integer picoseconds.
//!
//! * **now**: the entries of the current *slot* (a [`SLOT_PS`]-wide span of time), sorted, popped
//!   from the end — popping is O(1).
//! * **wheel**: [`SLOTS`] buckets for the slots after it (a horizon of about 4 µs); a push
//!   links the entry into its slot's bucket unsorted, and a bitmap finds the next non-empty
//!   one. A bucket is sorted once, when its slot becomes current; it holds a few to a few dozen
//!   entries, so that sort is short and in cache. All buckets share one slab with a free list,
//!   so the memory touched is that of the pending entries, recently freed slots first.
//! * **far**: a binary heap for what lies beyond the horizon (PFC pause timers, flow starts);
//!   its entries move to the wheel as the horizon reaches them.
//!
//! The exact `(time, sequence)` order is kept at every level: the current slot is sorted on the
//! full key, and an entry is never popped while an earlier key is elsewhere (every wheel entry
//! belongs to a later slot than every current entry, every far entry to a later slot than every
//! wheel entry). The binary heap it replaces spent a third of the engine's time in `pop`,
//! walking a chain of dependent compares down ~11 levels.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Something that happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port finished serializing its current frame (one pending per busy port, htsim style).
    TxDone { port: u32 },
    /// The first data frame on the wire of `port`'s outgoing link arrives, fully received, at
    /// the peer port. A link is a FIFO pipe (constant delay), so only its head frame has an
    /// event; this keeps the queue as small as the number of busy links, not of frames in flight.
    /// `pkt` names that head frame, so the engine can fetch it into cache ahead of time.
    WireArrive { port: u32, pkt: u32 },
    /// A PFC frame arrives at `port`: priorities in `enable` are set to `quanta` when their bit
    /// is in `xoff`, else to 0 (resume).
    PfcArrive { port: u32, enable: u8, xoff: u8, quanta: u16 },
    /// The pause of `prio` received on `port` runs out (stale unless `gen` matches).
    PauseExpire { port: u32, prio: u8, gen: u32 },
    /// The XOFF side of `port` re-sends its pause for `prio` before it expires.
    PfcRefresh { port: u32, prio: u8, gen: u32 },
    /// A paced host source on `port` may be ready.
    NicWake { port: u32 },
    /// The host receive buffer behind `port` may have drained below its XON level.
    HostRxCheck { port: u32, gen: u32 },
    /// A flow starts.
    FlowStart { flow: u32 },
    /// The timer of RDMA queue pair `qp` (its retransmit timer and its congestion control's
    /// timer, merged: one pending event per QP); stale unless `gen` matches.
    QpTimer { qp: u32, gen: u32 },
    /// Take a queue-depth sample.
    Sample,
    /// The timer of TCP endpoint `ep` (`connection << 1 | side`): its retransmission and
    /// delayed-ACK timers and its application's, merged (one pending per endpoint); stale
    /// unless `gen` matches.
    TcpTimer { ep: u32, gen: u32 },
    /// An IEEE 802.3x PAUSE frame of `quanta` (0: resume) arrives at `port`.
    LinkPauseArrive { port: u32, quanta: u16 },
    /// The link-level pause received on `port` runs out (stale unless `gen` matches).
    LinkPauseExpire { port: u32, gen: u32 },
    /// `port` re-sends its PAUSE before it expires.
    LinkPauseRefresh { port: u32, gen: u32 },
    /// A storage job clone starts issuing IOs.
    CloneStart { clone: u32 },
    /// Storage: the CPU work before step `step` of IO slot `io` is done (for the issue of the
    /// IO, `step` is `u16::MAX`): the step goes ahead.
    StepReady { io: u32, step: u16 },
    /// Storage: step `step` of IO slot `io` is complete (its message is in the receiver's
    /// memory, or the target's service and the CPU work after it are done).
    StepDone { io: u32, step: u16 },
    /// Storage: the target's service of step `step` of IO slot `io` ends.
    TargetDone { io: u32, step: u16 },
    /// Storage: IO slot `io` is complete at its initiator (the completion work is done).
    IoDone { io: u32 },
}

/// Width of a slot of the wheel: 1,024 ps (about the serialization of 13 bytes at 100 Gb/s).
/// A power of two, so that a time's slot is a shift.
pub const SLOT_PS: Time = 1 << SLOT_SHIFT;
const SLOT_SHIFT: u32 = 10;
/// Number of slots of the wheel: with [`SLOT_PS`], a horizon of 4.2 µs, beyond the
/// serialization of any frame at 10 Gb/s and more than a kilometre of cable.
pub const SLOTS: usize = 4096;
const MASK: u64 = SLOTS as u64 - 1;
const WORDS: usize = SLOTS / 64;
/// End of a list.
const NIL: u32 = u32::MAX;

/// A wheel entry in the slab: no sequence number is stored, because a bucket's list keeps
/// insertion order (newest first), and so does the current slot's array among equal times.
#[derive(Clone, Copy, Debug)]
struct Node {
    time: Time,
    event: Event,
    /// Next (older) entry of the same bucket, or next free slot.
    next: u32,
}

/// A far entry: its key packs time (high 64 bits) and a sequence number (low 64 bits), so one
/// 128-bit comparison orders far entries, ties by insertion. Reversed, so that `BinaryHeap` (a
/// max-heap) pops the earliest.
#[derive(Clone, Copy, Debug)]
struct Far {
    key: u128,
    event: Event,
}

impl Far {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
}

impl PartialEq for Far {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Far {}
impl PartialOrd for Far {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Far {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

fn slot_of(time: Time) -> u64 {
    time >> SLOT_SHIFT
}

/// Priority queue of events ordered by time, then by insertion (see the module documentation).
///
/// Order invariant, which makes time-only comparisons enough below the far heap: among entries
/// of equal time, one inserted later sits later in its bucket's list order and pops later from
/// `now`. Pushes have the newest sequence; far entries are handed down in `(time, sequence)`
/// order, before any push can reach the slots they land in.
#[derive(Debug)]
pub struct EventQueue {
    /// Entries of slot `now_slot`, by descending time and, among equal times, descending
    /// insertion: the earliest is last.
    now: Vec<(Time, Event)>,
    now_slot: u64,
    /// Head (newest entry) of the list of bucket `s & MASK`, which holds the entries of slot `s`
    /// for `now_slot < s < now_slot + SLOTS`.
    heads: Box<[u32; SLOTS]>,
    /// The wheel's entries, all buckets in one slab with a free list, so that a push writes to
    /// a recently freed (cached) node rather than to the tail of one of thousands of vectors.
    slab: Vec<Node>,
    free: u32,
    /// Bit `b` of word `b / 64`: bucket `b` is not empty.
    bits: [u64; WORDS],
    /// Bit `w`: word `w` of `bits` is not zero.
    summary: u64,
    /// Entries of slots from `now_slot + SLOTS` on.
    far: BinaryHeap<Far>,
    far_seq: u64,
    len: usize,
    peak: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            now: Vec::new(),
            now_slot: 0,
            heads: Box::new([NIL; SLOTS]),
            slab: Vec::new(),
            free: NIL,
            bits: [0; WORDS],
            summary: 0,
            far: BinaryHeap::new(),
            far_seq: 0,
            len: 0,
            peak: 0,
        }
    }
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `event` at `time`. `time` must not be before the last popped event's time
    /// (the engine never schedules into the past).
    #[inline]
    pub fn push(&mut self, time: Time, event: Event) {
        self.len += 1;
        if self.len > self.peak {
            self.peak = self.len;
        }
        let ahead = slot_of(time).wrapping_sub(self.now_slot);
        if ahead.wrapping_sub(1) < MASK {
            self.link(time, event);
        } else if ahead as i64 <= 0 {
            // The current slot, or an empty one between the last event popped and the current
            // slot (`pop` makes the next non-empty slot current at once).
            self.insert_now(time, event);
        } else {
            self.push_far(time, event);
        }
    }

    /// Into the bucket of `time`'s slot, which is on the wheel.
    fn link(&mut self, time: Time, event: Event) {
        let b = (slot_of(time) & MASK) as usize;
        let i = if self.free != NIL { self.free } else { self.grow() };
        let n = &mut self.slab[i as usize];
        self.free = n.next;
        *n = Node { time, event, next: self.heads[b] };
        self.heads[b] = i;
        self.bits[b / 64] |= 1 << (b % 64);
        self.summary |= 1 << (b / 64);
    }

    /// A new free node (the slab grows to the most entries ever on the wheel at once).
    #[cold]
    fn grow(&mut self) -> u32 {
        self.slab.push(Node { time: 0, event: Event::Sample, next: NIL });
        (self.slab.len() - 1) as u32
    }

    /// Into the current slot, after every entry of equal or earlier time (it is the newest).
    /// Rare (a push less than a slot ahead), so kept out of `push`.
    #[cold]
    fn insert_now(&mut self, time: Time, event: Event) {
        let at = self.now.partition_point(|x| x.0 > time);
        self.now.insert(at, (time, event));
    }

    #[cold]
    fn push_far(&mut self, time: Time, event: Event) {
        let key = ((time as u128) << 64) | self.far_seq as u128;
        self.far_seq += 1;
        self.far.push(Far { key, event });
    }

    /// Most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time::MAX)
    }

    /// Remove and return the earliest event if it is at or before `limit`; otherwise leave the
    /// queue as it is (so that a run can stop at any time and go on later, event for event as
    /// if it had not stopped).
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, Event)> {
        if self.now.is_empty() {
            self.refill();
        }
        if self.now.last()?.0 > limit {
            return None;
        }
        let e = self.now.pop()?;
        self.len -= 1;
        if self.now.is_empty() {
            // Make the next event current now, so that `peek` sees it while this one is handled.
            self.refill();
        }
        Some(e)
    }

    /// The earliest event, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        if let Some((_, e)) = self.now.last() {
            return Some(e);
        }
        self.peek_slow().map(|(_, e)| e)
    }

    /// The event `n` places after the earliest, when it is in the current slot (a hint for
    /// prefetching: `None` does not mean there is no such event).
    pub fn ahead(&self, n: usize) -> Option<&Event> {
        let len = self.now.len();
        if n < len {
            Some(&self.now[len - 1 - n].1)
        } else {
            None
        }
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(&(t, _)) = self.now.last() {
            return Some(t);
        }
        self.peek_slow().map(|(t, _)| t)
    }

    /// Only after pushes into an empty queue: look where `refill` would.
    fn peek_slow(&self) -> Option<(Time, &Event)> {
        if self.summary != 0 {
            // The earliest time of the next bucket; among equal times the oldest, i.e. the last
            // in list order.
            let mut i = self.heads[self.next_bucket()];
            let mut min: Option<&Node> = None;
            while i != NIL {
                let n = &self.slab[i as usize];
                if min.is_none_or(|m| n.time <= m.time) {
                    min = Some(n);
                }
                i = n.next;
            }
            return min.map(|n| (n.time, &n.event));
        }
        self.far.peek().map(|f| (f.time(), &f.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first non-empty bucket after the current slot, in wheel order (`summary != 0`).
    fn next_bucket(&self) -> usize {
        let from = ((self.now_slot + 1) & MASK) as usize;
        let w = from / 64;
        let m = self.bits[w] & (!0u64 << (from % 64));
        if m != 0 {
            return w * 64 + m.trailing_zeros() as usize;
        }
        let later = if w + 1 < WORDS { self.summary & (!0u64 << (w + 1)) } else { 0 };
        // Past the end of the wheel, wrap around to its lowest non-empty word.
        let w = if later != 0 { later.trailing_zeros() } else { self.summary.trailing_zeros() } as usize;
        w * 64 + self.bits[w].trailing_zeros() as usize
    }

    /// The current slot is exhausted: make the next non-empty slot current.
    fn refill(&mut self) {
        debug_assert!(self.now.is_empty());
        if self.summary != 0 {
            let b = self.next_bucket();
            let ahead = (b as u64).wrapping_sub(self.now_slot + 1) & MASK;
            self.now_slot += 1 + ahead;
            // Newest first: the list order is the `now` order among equal times.
            let mut i = std::mem::replace(&mut self.heads[b], NIL);
            while i != NIL {
                let n = &mut self.slab[i as usize];
                self.now.push((n.time, n.event));
                let next = n.next;
                n.next = self.free;
                self.free = i;
                i = next;
            }
            self.bits[b / 64] &= !(1 << (b % 64));
            if self.bits[b / 64] == 0 {
                self.summary &= !(1 << (b / 64));
            }
            if self.now.len() > 1 {
                // Stable: equal times keep their (insertion) order.
                self.now.sort_by_key(|e| std::cmp::Reverse(e.0));
            }
        } else if let Some(f) = self.far.peek() {
            self.now_slot = slot_of(f.time());
        } else {
            return;
        }
        // The horizon moved: hand down what it now covers from the far heap, earliest first.
        while let Some(f) = self.far.peek() {
            let ahead = slot_of(f.time()) - self.now_slot;
            if ahead >= SLOTS as u64 {
                break;
            }
            let Some(Far { key, event }) = self.far.pop() else { break };
            let time = (key >> 64) as Time;
            if ahead == 0 {
                self.insert_now(time, event);
            } else {
                self.link(time, event);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(30, Event::TxDone { port: 3 });
        q.push(10, Event::TxDone { port: 1 });
        q.push(20, Event::WireArrive { port: 20, pkt: 0 });
        q.push(10, Event::TxDone { port: 2 });
        q.push(10, Event::Sample);
        assert_eq!(q.len(), 5);
        assert_eq!(q.peek_time(), Some(10));
        let order: Vec<(Time, Event)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (10, Event::TxDone { port: 1 }),
                (10, Event::TxDone { port: 2 }),
                (10, Event::Sample),
                (20, Event::WireArrive { port: 20, pkt: 0 }),
                (30, Event::TxDone { port: 3 }),
            ]
        );
        assert!(q.is_empty());
    }

    /// Push and pop at random against a sorted reference; delays are drawn from `scales`
    /// (picoseconds), pushes are never in the past, as in the engine.
    fn check_against_reference(seed: u64, scales: &[Time], rounds: u32) {
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut rng = crate::rng::Rng::new(seed);
        let mut now = 0;
        let mut seq = 0u64;
        for round in 0..rounds {
            for _ in 0..rng.below(3) {
                let scale = scales[rng.below(scales.len() as u64) as usize];
                let t = now + rng.below(4) * rng.below(scale.max(1));
                q.push(t, Event::TxDone { port: round });
                reference.insert((t, seq, round));
                seq += 1;
            }
            if rng.below(2) == 0 {
                let Some(first) = reference.pop_first() else {
                    assert!(q.pop().is_none());
                    continue;
                };
                assert_eq!(q.peek(), Some(&Event::TxDone { port: first.2 }), "peek");
                assert_eq!(q.peek_time(), Some(first.0));
                assert_eq!(q.pop(), Some((first.0, Event::TxDone { port: first.2 })), "pop");
                now = first.0;
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(first) = reference.pop_first() {
            assert_eq!(q.pop(), Some((first.0, Event::TxDone { port: first.2 })));
        }
        assert!(q.is_empty() && q.pop().is_none());
    }

    #[test]
    fn matches_a_sorted_reference_under_interleaved_pushes_and_pops() {
        // Within one slot, across the wheel, beyond its horizon, and all mixed.
        check_against_reference(9, &[1000], 20_000);
        check_against_reference(10, &[SLOT_PS / 4], 20_000);
        check_against_reference(11, &[100_000], 20_000);
        check_against_reference(12, &[SLOT_PS * SLOTS as Time * 3], 20_000);
        check_against_reference(13, &[1, 1_000, 100_000, 3_000_000, 400_000_000, 10_000_000_000], 50_000);
    }

    #[test]
    fn far_events_come_back_in_order_and_ties_keep_insertion_order() {
        let mut q = EventQueue::new();
        let far = 10 * SLOT_PS * SLOTS as Time + 7;
        q.push(far, Event::Sample);
        q.push(5, Event::TxDone { port: 1 });
        q.push(far, Event::TxDone { port: 2 });
        q.push(far - 1, Event::TxDone { port: 3 });
        assert_eq!(q.pop(), Some((5, Event::TxDone { port: 1 })));
        // Pushed while the far ones are current: a tie goes after them.
        assert_eq!(q.pop(), Some((far - 1, Event::TxDone { port: 3 })));
        q.push(far, Event::TxDone { port: 4 });
        q.push(far + SLOT_PS, Event::TxDone { port: 5 });
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            rest,
            vec![
                (far, Event::Sample),
                (far, Event::TxDone { port: 2 }),
                (far, Event::TxDone { port: 4 }),
                (far + SLOT_PS, Event::TxDone { port: 5 }),
            ]
        );
        assert_eq!(q.peak_len(), 4);
    }

    #[test]
    fn events_are_small() {
        assert!(std::mem::size_of::<Event>() <= 16);
    }

    #[test]
    fn pop_until_stops_before_later_events_and_resumes_in_order() {
        let mut q = EventQueue::new();
        for (i, t) in [5, 5_000, 5_000, 9_000_000, 40].into_iter().enumerate() {
            q.push(t, Event::TxDone { port: i as u32 });
        }
        assert_eq!(q.pop_until(4), None);
        assert_eq!(q.len(), 5);
        assert_eq!(q.pop_until(40), Some((5, Event::TxDone { port: 0 })));
        assert_eq!(q.pop_until(40), Some((40, Event::TxDone { port: 4 })));
        assert_eq!(q.pop_until(4_999), None);
        q.push(5_000, Event::Sample);
        let rest: Vec<_> = std::iter::from_fn(|| q.pop_until(5_000)).collect();
        assert_eq!(
            rest,
            vec![(5_000, Event::TxDone { port: 1 }), (5_000, Event::TxDone { port: 2 }), (5_000, Event::Sample)]
        );
        assert_eq!(q.pop_until(Time::MAX), Some((9_000_000, Event::TxDone { port: 3 })));
        assert!(q.is_empty());
    }
}
