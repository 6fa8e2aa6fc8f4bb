//! The event queue: pending `(time, sequence, event)` entries, popped in `(time, sequence)` order.
//!
//! Ties in time break by sequence number — the order of the pushes, or for an event pushed
//! late, the number it reserved when it became possible ([`EventQueue::reserve_seq`]) — so a run
//! is a pure function of scenario and seed. Events are small `Copy` values naming arena indices
//! (ports, packets, flows); no event owns memory.
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
//!   links the entry into its slot's bucket, and a bitmap finds the next non-empty one. A
//!   bucket has two lists: entries pushed with a fresh sequence number, newest first — already
//!   in `now`'s order when pushed in time order, as nearly all are (on the line-rate fat tree,
//!   about a hundred entries at one instant per busy slot) — and the few pushed late with an
//!   earlier reserved number, or handed down from `far`, which sort apart and merge in as the
//!   slot becomes current (mixed into one list they made two slots in three unsorted) — or,
//!   in a run of short slots whose entries come at different instants (RDMA with DCQCN), join
//!   the sort of the whole slot, which such a slot mostly needs anyway. All
//!   buckets share one slab with a free list, so the memory touched is that of the pending
//!   entries, recently freed slots first; the links of the lists are an array of their own,
//!   small enough to stay in the L1, so that walking a list waits on no node.
//! * **far**: a binary heap for what lies beyond the horizon (PFC pause timers, flow starts);
//!   its entries move to the wheel as the horizon reaches them.
//!
//! A wheel entry's key is one `u64`: the time's offset in its slot above the sequence number,
//! so sorting a slot is sorting integers. The exact `(time, sequence)` order is kept at every
//! level: an entry is never popped while an earlier key is elsewhere (every wheel entry belongs
//! to a later slot than every current entry, every far entry to a later slot than every wheel
//! entry). The binary heap it replaces spent a third of the engine's time in `pop`, walking a
//! chain of dependent compares down ~11 levels.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod sort;
mod timer;

use sort::{sort_descending, sort_slot, SHORT_SLOT};
pub(crate) use timer::TimerSlot;

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
/// Bits of a sequence number in a wheel key (the rest hold the time's offset in its slot).
const SEQ_BITS: u32 = 64 - SLOT_SHIFT;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// The place of an event among the events of its instant: events of equal time pop in `Seq`
/// order. Every push takes the next one; [`EventQueue::reserve_seq`] takes one for an event
/// that may be pushed later, in the place it would have had if pushed now.
pub type Seq = u64;

/// The key of a wheel entry: its time's offset within its slot (high bits) and its sequence
/// number (low [`SEQ_BITS`] bits), so that one `u64` comparison orders the entries of a slot by
/// `(time, sequence)`. 2⁵⁴ sequence numbers last for years of pushes at a billion per second.
#[inline]
fn wheel_key(time: Time, seq: Seq) -> u64 {
    debug_assert!(seq <= SEQ_MASK, "sequence numbers exhausted");
    ((time & (SLOT_PS - 1)) << SEQ_BITS) | seq
}

/// A wheel entry in the slab (its link is in `EventQueue::links`).
#[derive(Clone, Copy, Debug)]
struct Node {
    key: u64,
    event: Event,
}

/// A far entry: its key packs time (high 64 bits) and sequence number (low 64 bits), so one
/// 128-bit comparison orders far entries. Reversed, so that `BinaryHeap` (a max-heap) pops the
/// earliest.
#[derive(Clone, Copy, Debug)]
struct Far {
    key: u128,
    event: Event,
}

impl Far {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
    fn seq(&self) -> Seq {
        self.key as Seq
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

/// How many events [`EventQueue::window`] shows.
pub const WINDOW: usize = 7;

/// The next [`WINDOW`] events of the current slot (see [`EventQueue::window`]).
#[derive(Clone, Copy, Debug)]
pub struct Window<'a>(&'a [(u64, Event); WINDOW]);

impl Window<'_> {
    /// The event `n` places after the earliest (`n < WINDOW`; with `n` a constant, a load).
    #[inline]
    pub fn get(&self, n: usize) -> Event {
        self.0[WINDOW - 1 - n].1
    }
}

/// Priority queue of events ordered by time, then by sequence number (see the module
/// documentation).
#[derive(Debug)]
pub struct EventQueue {
    /// Entries of slot `now_slot` as `(wheel key, event)`, by descending key: the earliest is
    /// last.
    now: Vec<(u64, Event)>,
    now_slot: u64,
    /// Entries of slots before `now_slot` as `(time, sequence, event)`, by descending key. `pop`
    /// makes the next non-empty slot current as soon as the current one is exhausted (so that
    /// `peek` sees the next event), and an event may then be pushed into an empty slot before
    /// it; such entries wait here and pop before `now`'s. Rare and short.
    early: Vec<(Time, Seq, Event)>,
    /// Head of the list of bucket `s & MASK`, which holds the entries of slot `s` for
    /// `now_slot < s < now_slot + SLOTS` pushed with a fresh sequence number, newest first (so
    /// in key order, largest first, when they were pushed in time order: nearly always).
    heads: Box<[u32; SLOTS]>,
    /// Head of the list of the other entries of bucket `s & MASK`: pushed late with a sequence
    /// number reserved earlier ([`EventQueue::push_reserved`]), or handed down from `far`.
    /// Their keys are out of order with the first list's (they are smaller than those of the
    /// entries pushed since the reservation), so each slot's few are sorted apart and merged in
    /// as the slot becomes current, rather than sorted into the whole slot.
    late: Box<[u32; SLOTS]>,
    /// Bit `b` of word `b / 64`: bucket `b`'s late list is not empty (so that making a slot
    /// current reads `late` only when there is something there).
    late_bits: [u64; WORDS],
    /// The late entries of the slot being made current, by descending key, while they are
    /// merged in (kept for its capacity).
    scratch: Vec<(u64, Event)>,
    /// The last slot made current held more than [`LONG_SLOT`] entries: the next one likely
    /// does too (the line-rate fat tree: about a hundred at one instant), so its late entries
    /// are sorted apart and merged in while its list is copied ([`EventQueue::take_merging`]);
    /// otherwise (RDMA: a few, at different instants) they join the sort of the whole slot
    /// ([`EventQueue::append_late`]). Either way the order is the same; only the cost differs.
    long_slots: bool,
    /// The wheel's entries, all buckets in one slab with a free list, so that a push writes to
    /// a recently freed (cached) node rather than to the tail of one of thousands of vectors.
    slab: Vec<Node>,
    /// The link of each slab node: the next entry of the same bucket, or the next free node.
    /// Apart from the nodes (4 bytes a node, a few KB in all, so it stays in the L1), so that
    /// walking a list — a slot's copy into `now`, the free list at each push — is a chain of
    /// cache hits, and the nodes' own loads, independent of each other, overlap.
    links: Vec<u32>,
    free: u32,
    /// Bit `b` of word `b / 64`: bucket `b` is not empty.
    bits: [u64; WORDS],
    /// Bit `w`: word `w` of `bits` is not zero.
    summary: u64,
    /// Entries of slots from `now_slot + SLOTS` on.
    far: BinaryHeap<Far>,
    /// The next sequence number (from 1, so that every key comes after the initial `last`).
    seq: Seq,
    /// The sequence number of the last popped event in its low [`SEQ_BITS`] bits (its wheel
    /// key, stored as is: masked only when asked for); 0 before the first.
    last_key: u64,
    /// Time and sequence number of the last popped event (`(0, 0)` before the first), for the
    /// check that nothing is scheduled into the past.
    #[cfg(debug_assertions)]
    last: (Time, Seq),
    len: usize,
    peak: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            now: Vec::new(),
            now_slot: 0,
            early: Vec::new(),
            heads: Box::new([NIL; SLOTS]),
            late: Box::new([NIL; SLOTS]),
            late_bits: [0; WORDS],
            scratch: Vec::new(),
            long_slots: false,
            slab: Vec::new(),
            links: Vec::new(),
            free: NIL,
            bits: [0; WORDS],
            summary: 0,
            far: BinaryHeap::new(),
            seq: 1,
            last_key: 0,
            #[cfg(debug_assertions)]
            last: (0, 0),
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

    /// Schedule `event` at `time`, after every event already scheduled at `time`. `time` must
    /// not be before the last popped event's time (the engine never schedules into the past).
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: Event) {
        let seq = self.reserve_seq();
        self.push_reserved(time, seq, event);
    }

    /// Take the next sequence number without pushing: an event pushed later with it through
    /// [`EventQueue::push_reserved`] pops exactly where it would have popped had it been pushed
    /// now. The engine uses this to leave out events that turn out to have nothing to do.
    #[inline(always)]
    pub fn reserve_seq(&mut self) -> Seq {
        let s = self.seq;
        self.seq += 1;
        s
    }

    /// Schedule `event` at `time` with a sequence number from [`EventQueue::reserve_seq`]. The
    /// pair `(time, seq)` must come after the last popped event's.
    #[inline(always)]
    pub fn push_reserved(&mut self, time: Time, seq: Seq, event: Event) {
        #[cfg(debug_assertions)]
        assert!((time, seq) > self.last, "event scheduled into the past");
        self.len += 1;
        if self.len > self.peak {
            self.peak = self.len;
        }
        let ahead = slot_of(time).wrapping_sub(self.now_slot);
        if ahead.wrapping_sub(1) < MASK {
            if seq + 1 == self.seq {
                self.link(time, seq, event);
            } else {
                self.link_late(time, seq, event);
            }
        } else {
            self.push_rare(time, seq, event, ahead);
        }
    }

    /// Into the bucket of `time`'s slot, which is on the wheel.
    #[inline(always)]
    fn link(&mut self, time: Time, seq: Seq, event: Event) {
        let b = (slot_of(time) & MASK) as usize;
        let i = self.alloc();
        let head = self.heads[b];
        self.slab[i as usize] = Node { key: wheel_key(time, seq), event };
        self.links[i as usize] = head;
        self.heads[b] = i;
        // A bucket's bit is set exactly while its list is not empty: only its first entry sets it.
        if head == NIL {
            self.bits[b / 64] |= 1 << (b % 64);
            self.summary |= 1 << (b / 64);
        }
    }

    /// Into the late list of the bucket of `time`'s slot, which is on the wheel.
    #[inline(never)]
    fn link_late(&mut self, time: Time, seq: Seq, event: Event) {
        let b = (slot_of(time) & MASK) as usize;
        let i = self.alloc();
        self.slab[i as usize] = Node { key: wheel_key(time, seq), event };
        self.links[i as usize] = self.late[b];
        self.late[b] = i;
        self.late_bits[b / 64] |= 1 << (b % 64);
        self.bits[b / 64] |= 1 << (b % 64);
        self.summary |= 1 << (b / 64);
    }

    /// A free node, taken off the free list (to be written whole by the caller).
    #[inline(always)]
    fn alloc(&mut self) -> u32 {
        let i = if self.free != NIL { self.free } else { self.grow() };
        self.free = self.links[i as usize];
        i
    }

    /// A new free node (the slab grows to the most entries ever on the wheel at once).
    #[cold]
    fn grow(&mut self) -> u32 {
        self.slab.push(Node { key: 0, event: Event::Sample });
        self.links.push(NIL);
        (self.slab.len() - 1) as u32
    }

    /// A push that is not onto the wheel: into the current slot, before it, or beyond the
    /// horizon.
    #[inline(never)]
    fn push_rare(&mut self, time: Time, seq: Seq, event: Event, ahead: u64) {
        if ahead == 0 {
            self.insert_now(wheel_key(time, seq), event);
        } else if (ahead as i64) < 0 {
            let at = self.early.partition_point(|x| (x.0, x.1) > (time, seq));
            self.early.insert(at, (time, seq, event));
        } else {
            let key = ((time as u128) << 64) | seq as u128;
            self.far.push(Far { key, event });
        }
    }

    /// Into the current slot, in key order.
    fn insert_now(&mut self, key: u64, event: Event) {
        let at = self.now.partition_point(|x| x.0 > key);
        self.now.insert(at, (key, event));
    }

    /// Most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }

    /// Sequence number of the last popped event: with its time, where "now" is among the
    /// events of the current instant.
    #[inline]
    pub fn last_seq(&self) -> Seq {
        self.last_key & SEQ_MASK
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time::MAX)
    }

    /// Time of a key of the current slot.
    #[inline]
    fn now_time(&self, key: u64) -> Time {
        (self.now_slot << SLOT_SHIFT) | (key >> SEQ_BITS)
    }

    /// Remove and return the earliest event if it is at or before `limit`; otherwise leave the
    /// queue as it is (so that a run can stop at any time and go on later, event for event as
    /// if it had not stopped).
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, Event)> {
        if !self.early.is_empty() {
            return self.pop_early(limit);
        }
        if self.now.is_empty() {
            self.refill();
        }
        let &(key, event) = self.now.last()?;
        let time = self.now_time(key);
        if time > limit {
            return None;
        }
        self.now.pop();
        self.len -= 1;
        self.last_key = key;
        #[cfg(debug_assertions)]
        {
            self.last = (time, key & SEQ_MASK);
        }
        if self.now.is_empty() {
            // Make the next event current now, so that `peek` sees it while this one is handled.
            self.refill();
        }
        Some((time, event))
    }

    #[cold]
    fn pop_early(&mut self, limit: Time) -> Option<(Time, Event)> {
        let &(time, seq, event) = self.early.last()?;
        if time > limit {
            return None;
        }
        self.early.pop();
        self.len -= 1;
        self.last_key = seq;
        #[cfg(debug_assertions)]
        {
            self.last = (time, seq);
        }
        Some((time, event))
    }

    /// The earliest event, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        if let Some((_, _, e)) = self.early.last() {
            return Some(e);
        }
        if let Some((_, e)) = self.now.last() {
            return Some(e);
        }
        self.peek_slow().map(|(_, e)| e)
    }

    /// The next [`WINDOW`] events of the current slot, when it holds that many: a hint for
    /// prefetching what coming events will touch, several places ahead with one test. Not
    /// exact: an entry of `early` (rare) pops before them, and `None` does not mean there are
    /// fewer events.
    #[inline]
    pub fn window(&self) -> Option<Window<'_>> {
        self.now.last_chunk::<WINDOW>().map(Window)
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(&(t, _, _)) = self.early.last() {
            return Some(t);
        }
        if let Some(&(key, _)) = self.now.last() {
            return Some(self.now_time(key));
        }
        self.peek_slow().map(|(t, _)| t)
    }

    /// Only after pushes into an empty queue: look where `refill` would.
    fn peek_slow(&self) -> Option<(Time, &Event)> {
        if self.summary != 0 {
            // The smallest key of the next bucket.
            let b = self.next_bucket();
            let mut min: Option<&Node> = None;
            for mut i in [self.heads[b], self.late[b]] {
                while i != NIL {
                    let n = &self.slab[i as usize];
                    if min.is_none_or(|m| n.key < m.key) {
                        min = Some(n);
                    }
                    i = self.links[i as usize];
                }
            }
            let slot = self.now_slot + 1 + ((b as u64).wrapping_sub(self.now_slot + 1) & MASK);
            return min.map(|n| ((slot << SLOT_SHIFT) | (n.key >> SEQ_BITS), &n.event));
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
    #[inline]
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
            // The list is newest first, which is the `now` order when the slot's events were
            // pushed in time order (the common case): check while copying, sort only if not.
            let head = std::mem::replace(&mut self.heads[b], NIL);
            let sorted = if self.late_bits[b / 64] & (1 << (b % 64)) != 0 {
                self.late_bits[b / 64] &= !(1 << (b % 64));
                let late = std::mem::replace(&mut self.late[b], NIL);
                if self.long_slots {
                    self.take_late(late);
                    self.take_merging(head)
                } else {
                    let sorted = self.take(head);
                    self.append_late(late, sorted)
                }
            } else {
                self.take(head)
            };
            self.long_slots = self.now.len() > LONG_SLOT;
            self.bits[b / 64] &= !(1 << (b % 64));
            if self.bits[b / 64] == 0 {
                self.summary &= !(1 << (b / 64));
            }
            if !sorted {
                sort_slot(&mut self.now);
            }
        } else if let Some(f) = self.far.peek() {
            self.now_slot = slot_of(f.time());
        } else {
            return;
        }
        // The horizon moved: hand down what it now covers from the far heap.
        while let Some(f) = self.far.peek() {
            let ahead = slot_of(f.time()) - self.now_slot;
            if ahead >= SLOTS as u64 {
                break;
            }
            let Some(f) = self.far.pop() else { break };
            if ahead == 0 {
                self.insert_now(wheel_key(f.time(), f.seq()), f.event);
            } else {
                self.link_late(f.time(), f.seq(), f.event);
            }
        }
    }

    /// Copy the list from `head` into `now` and free its nodes; whether it was in `now`'s order.
    #[inline]
    fn take(&mut self, head: u32) -> bool {
        let mut i = head;
        let mut tail = NIL;
        let mut prev = u64::MAX;
        let mut sorted = true;
        while i != NIL {
            let n = &self.slab[i as usize];
            sorted &= n.key < prev;
            prev = n.key;
            self.now.push((n.key, n.event));
            tail = i;
            i = self.links[i as usize];
        }
        self.free_list(head, tail);
        sorted
    }

    /// [`EventQueue::take`], merging in the entries of `scratch` (which it empties).
    #[inline(never)]
    fn take_merging(&mut self, head: u32) -> bool {
        let mut i = head;
        let mut tail = NIL;
        let mut prev = u64::MAX;
        let mut sorted = true;
        let mut j = 0;
        // The key of the next late entry (0, below every key, when there is none: keys hold a
        // sequence number from 1).
        let mut late_key = self.scratch[0].0;
        while i != NIL {
            let n = &self.slab[i as usize];
            while late_key > n.key {
                self.now.push(self.scratch[j]);
                j += 1;
                late_key = self.scratch.get(j).map_or(0, |e| e.0);
            }
            sorted &= n.key < prev;
            prev = n.key;
            self.now.push((n.key, n.event));
            tail = i;
            i = self.links[i as usize];
        }
        self.now.extend_from_slice(&self.scratch[j..]);
        self.scratch.clear();
        self.free_list(head, tail);
        sorted
    }

    /// The late list from `head` into `scratch`, sorted, and its nodes freed.
    #[inline(never)]
    fn take_late(&mut self, head: u32) {
        let tail = copy_list(&self.slab, &self.links, head, &mut self.scratch);
        self.free_list(head, tail);
        sort_descending(&mut self.scratch);
    }

    /// Append the late list from `head` to `now` (holding the slot's other entries, in order
    /// if `sorted`) and free its nodes; whether `now` is then in order. For short slots
    /// (`long_slots` false): the late entries are left to the sort of the whole slot, which a
    /// short slot with late entries mostly needs anyway (RDMA). A long slot in order found
    /// here gets them sorted apart and merged in from the back, where they belong (their
    /// reserved numbers are below those of the entries pushed since).
    #[inline(never)]
    fn append_late(&mut self, head: u32, sorted: bool) -> bool {
        let start = self.now.len();
        let tail = copy_list(&self.slab, &self.links, head, &mut self.now);
        self.free_list(head, tail);
        if !sorted || self.now.len() <= SHORT_SLOT {
            return false;
        }
        sort_descending(&mut self.now[start..]);
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.now[start..]);
        let (mut i, mut w) = (start, self.now.len());
        for &late in self.scratch.iter().rev() {
            while i > 0 && self.now[i - 1].0 < late.0 {
                w -= 1;
                i -= 1;
                self.now[w] = self.now[i];
            }
            w -= 1;
            self.now[w] = late;
        }
        self.scratch.clear();
        true
    }

    /// Put the list from `head` to `tail` onto the free list, all at once.
    #[inline]
    fn free_list(&mut self, head: u32, tail: u32) {
        if tail != NIL {
            self.links[tail as usize] = self.free;
            self.free = head;
        }
    }
}

/// Append the entries of the list from `head` to `out`; its last node (`NIL` if empty), for
/// [`EventQueue::free_list`].
#[inline(always)]
fn copy_list(slab: &[Node], links: &[u32], head: u32, out: &mut Vec<(u64, Event)>) -> u32 {
    let mut i = head;
    let mut tail = NIL;
    while i != NIL {
        let n = &slab[i as usize];
        out.push((n.key, n.event));
        tail = i;
        i = links[i as usize];
    }
    tail
}

/// A slot of more entries makes the next one's late entries merge in apart
/// (`EventQueue::long_slots`): far above the slots of a sparse run (RDMA: 6.8 on average, one
/// in seventy above 20), so that it seldom switches there, and below the line-rate fat tree's
/// hundred.
const LONG_SLOT: usize = 48;

#[cfg(test)]
mod tests;
