//! The event queue: pending `(time, key, event)` entries, popped in `(time, key)` order.
//!
//! Ties in time break by the event's canonical key ([`Key`], `key.rs`: its kind and the
//! entity it names), not by the order of the pushes, so that the events of one instant pop in
//! an order that does not depend on what else is queued: a run is a pure function of scenario
//! and seed, and a part of the fabric simulated on its own pops its events in the order the
//! whole run gives them. Events are small `Copy` values naming arena indices (ports, packets,
//! flows); no event owns memory.
//!
//! An event pushed at the current instant with a key below the last popped one pops next: the
//! queue always pops the least `(time, key)` it holds, so what an event schedules for its own
//! instant runs in the same order in every run.
//!
//! A queue made by [`EventQueue::with_push_order`] orders ties by push order instead, as the
//! ns-3 simulator's scheduler does (its events' `uid`, the order of `Simulator::Schedule`): the
//! order a run needs to replay that simulator's draws and match it to the nanosecond
//! ([`crate::EventOrder::PushOrder`]). There the key is a sequence number, taken by every push
//! or reserved ahead ([`EventQueue::reserve_seq`]).
//!
//! **Structure.** Every correct priority queue pops the same sequence (entries of equal keys
//! are interchangeable, `key.rs`); this
//! one is chosen for the engine's pattern, where nearly every event is scheduled a few
//! nanoseconds to a few microseconds ahead (a frame's serialization, its arrival over the
//! cable): a bucket queue in the manner of a timing wheel (Varghese & Lauck, SOSP 1987) and of
//! the calendar queue (Brown, CACM 1988), keyed on integer picoseconds.
//!
//! * **now**: the entries of the current *slot* (a [`SLOT_PS`]-wide span of time), sorted by
//!   key and read from a cursor — popping is O(1), and the next events are in sight for the
//!   engine's look ahead ([`EventQueue::window`]).
//! * **wheel**: [`SLOTS`] buckets for the slots after it (a horizon of about 4 µs). A push
//!   appends the entry to its slot's bucket, a list of *chunks* of [`CHUNK`] entries, and a
//!   bitmap finds the next non-empty bucket. Chunks come from one pool with a free list, so a
//!   push writes into a chunk freed moments before (in cache), and a slot made current is read
//!   a chunk at a time, a few adjacent lines whose loads overlap, into `now`. (A list of single
//!   entries scattered over the pool made that read a chain of dependent cache misses once a
//!   frame's arrival, a microsecond ahead, had its own entry: a quarter of the line-rate fat
//!   tree's misses of a 1 MB L2.) A bucket that received an entry after one with a larger key
//!   — an entry of an earlier instant or a lower key pushed after it, or one handed down from
//!   `far` — is marked, without a branch, and sorted as its slot becomes current (`sort.rs`).
//! * **far**: a binary heap for what lies beyond the horizon (PFC pause timers, flow starts);
//!   its entries move to the wheel as the horizon reaches them.
//!
//! A wheel entry's key is one `u64`: the time's offset in its slot above the event's key, so
//! sorting a slot is sorting integers. The exact `(time, key)` order is kept at every level: an
//! entry is never popped while an earlier one is elsewhere (every wheel entry belongs to a
//! later slot than every current entry, every far entry to a later slot than every wheel
//! entry). The binary heap this design replaced spent a third of the engine's time in `pop`,
//! walking a chain of dependent compares down ~11 levels.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod key;
mod sort;
mod timer;

pub use key::Key;
/// A sequence number of a queue in push order (see [`EventQueue::reserve_seq`]).
pub type Seq = u64;
use key::KEY_BITS;
use sort::{sort_slot, SortBuf};
pub(crate) use timer::TimerSlot;

/// Something that happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port finished serializing its current frame (one pending per busy port, htsim style).
    TxDone { port: u32 },
    /// Data frame `pkt`, sent on `port`'s outgoing link, arrives fully received at the peer
    /// port. Pushed when the frame starts (one pending per frame on a wire); `pkt` also lets
    /// the engine fetch the frame into cache a few events ahead.
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
    /// The timer of endpoint `side` of RDMA queue pair `qp` (0: the requester, 1: the
    /// responder), which merges that endpoint's deadlines: the requester's retransmit timer and
    /// the data sender's congestion control timer (one pending event per endpoint, so that each
    /// runs at its own host); stale unless `gen` matches.
    QpTimer { qp: u32, side: u8, gen: u32 },
    /// Take a queue-depth sample.
    Sample,
    /// Every sized flow has completed and the run stops as soon as they have
    /// ([`crate::SimConfig::stop_when_done`]): the end time becomes this instant.
    StopRun,
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
/// Bits of an event's key in a wheel key (the rest hold the time's offset in its slot).
const LOW_BITS: u32 = 64 - SLOT_SHIFT;
const _: () = assert!(KEY_BITS <= LOW_BITS);
/// No chunk: the end of a bucket's list and of the free list.
const NIL: u32 = u32::MAX;
/// Entries in a chunk: 192 bytes, three cache lines. Measured on the line-rate fat tree, 4
/// was slower (3 %) and 16 no faster.
pub const CHUNK: usize = 8;

/// The key of a wheel entry: its time's offset within its slot (high bits) and the event's
/// key (low [`LOW_BITS`] bits), so that one `u64` comparison orders the entries of a slot by
/// `(time, key)`.
#[inline(always)]
fn wheel_key(time: Time, key: Key) -> u64 {
    ((time & (SLOT_PS - 1)) << LOW_BITS) | key
}

/// An entry of the wheel: its key ([`wheel_key`]) and its event.
type Entry = (u64, Event);

/// A run of [`CHUNK`] entries of one bucket, in push order (the bucket's last chunk holds
/// `Bucket::fill` of them).
///
/// Aligned to a cache line: 192 bytes, three whole lines, which `take` fetches.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Chunk([Entry; CHUNK]);

const _: () = assert!(std::mem::size_of::<Chunk>() % 64 == 0);

/// The most chunks of a slot `take` fetches ahead of its copy: 96 KiB, well inside the L2 cache.
const TAKE_PREFETCH_CHUNKS: usize = 512;

/// A bucket of the wheel: its list of chunks, first and last, and the entries in the last.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    head: u32,
    tail: u32,
    fill: u32,
}

const EMPTY: Bucket = Bucket { head: NIL, tail: NIL, fill: 0 };

/// A far entry: its key packs time (high 64 bits) and the event's key (low 64 bits), so one
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
    fn event_key(&self) -> Key {
        self.key as Key
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
pub struct Window<'a>(&'a [Entry; WINDOW]);

impl Window<'_> {
    /// The event `n` places after the earliest (`n < WINDOW`; with `n` a constant, a load).
    #[inline]
    pub fn get(&self, n: usize) -> Event {
        self.0[n].1
    }
}

/// Priority queue of events ordered by time, then by their keys (see the module
/// documentation).
#[derive(Debug)]
pub struct EventQueue {
    /// Entries of slot `now_slot` by ascending key; those before `cursor` have been popped.
    now: Vec<Entry>,
    cursor: usize,
    now_slot: u64,
    /// The buffers of the sort of a long slot (`sort.rs`).
    sort_buf: SortBuf,
    /// Entries of slots before `now_slot` as `(time, key, event)`, by descending key. `pop`
    /// makes the next non-empty slot current as soon as the current one is exhausted (so that
    /// `peek` sees the next event), and an event may then be pushed into an empty slot before
    /// it; such entries wait here and pop before `now`'s. Rare and short.
    early: Vec<(Time, Key, Event)>,
    /// Bucket `s & MASK` holds the entries of slot `s` for `now_slot < s < now_slot + SLOTS`.
    buckets: Box<[Bucket; SLOTS]>,
    /// The chunks of all buckets.
    chunks: Vec<Chunk>,
    /// The next chunk of each chunk in its bucket's list, or in the free list.
    next: Vec<u32>,
    /// The free list of chunks, the most recently freed first.
    free: u32,
    /// Bit `b` of word `b / 64`: bucket `b` is not empty.
    bits: [u64; WORDS],
    /// Bit `w`: word `w` of `bits` is not zero.
    summary: u64,
    /// Bit `b` of word `b / 64`: an entry of bucket `b` came after one with a larger key, so
    /// the slot is sorted as it becomes current.
    unsorted: [u64; WORDS],
    /// Entries of slots from `now_slot + SLOTS` on.
    far: BinaryHeap<Far>,
    /// Ties pop in push order (sequence numbers as keys) rather than by the events' keys.
    push_order: bool,
    /// The next sequence number, in push order.
    seq: Seq,
    /// Time of the last popped event (0 before the first), for the check that nothing is
    /// scheduled into the past.
    #[cfg(debug_assertions)]
    last: Time,
    len: usize,
    peak: usize,
    /// The last pop made a new slot current (see [`EventQueue::slot_began`]).
    began: bool,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            now: Vec::new(),
            cursor: 0,
            now_slot: 0,
            sort_buf: SortBuf::default(),
            early: Vec::new(),
            buckets: Box::new([EMPTY; SLOTS]),
            chunks: Vec::new(),
            next: Vec::new(),
            free: NIL,
            bits: [0; WORDS],
            summary: 0,
            unsorted: [0; WORDS],
            far: BinaryHeap::new(),
            push_order: false,
            seq: 1,
            #[cfg(debug_assertions)]
            last: 0,
            len: 0,
            peak: 0,
            began: false,
        }
    }
}

impl EventQueue {
    /// An empty queue, ties by the events' keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty queue whose ties pop in push order (see the module documentation).
    pub fn with_push_order() -> Self {
        EventQueue { push_order: true, ..Self::default() }
    }

    /// Schedule `event` at `time`, in the place its key gives it among the events of `time`
    /// (in push order: after every event already scheduled at `time`). `time` must not be
    /// before the last popped event's time (the engine never schedules into the past); at that
    /// time, an event whose key is below the last popped one pops next.
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: Event) {
        let key = if self.push_order { self.reserve_seq() } else { event.key() };
        self.push_keyed(time, key, event);
    }

    /// Take a place for an event pushed later with it through [`EventQueue::push_reserved`]:
    /// in push order, the next sequence number, so that the event pops exactly where it would
    /// have popped had it been pushed now (the PFC timers use this to keep one event each while
    /// their deadline moves, `TimerSlot`); by the events' keys, nothing (an event's place is
    /// its key, whenever it is pushed).
    #[inline(always)]
    pub fn reserve_seq(&mut self) -> Seq {
        let s = self.seq;
        self.seq += self.push_order as u64;
        s
    }

    /// Schedule `event` at `time` in the place reserved by [`EventQueue::reserve_seq`].
    #[inline(always)]
    pub fn push_reserved(&mut self, time: Time, seq: Seq, event: Event) {
        let key = if self.push_order { seq } else { event.key() };
        self.push_keyed(time, key, event);
    }

    #[inline(always)]
    fn push_keyed(&mut self, time: Time, key: Key, event: Event) {
        #[cfg(debug_assertions)]
        assert!(time >= self.last, "event scheduled into the past");
        debug_assert!(key < 1 << KEY_BITS, "sequence numbers exhausted");
        self.len += 1;
        if self.len > self.peak {
            self.peak = self.len;
        }
        let ahead = slot_of(time).wrapping_sub(self.now_slot);
        if ahead.wrapping_sub(1) < MASK {
            self.append((slot_of(time) & MASK) as usize, wheel_key(time, key), event);
        } else {
            self.push_rare(time, key, event, ahead);
        }
    }

    /// At the end of bucket `b`, which is on the wheel; the bucket marked unsorted if the key
    /// comes before its last entry's (without a branch: in a sparse run a quarter of the
    /// pushes do, at random).
    #[inline(always)]
    fn append(&mut self, b: usize, key: u64, event: Event) {
        let Bucket { tail, fill, .. } = self.buckets[b];
        if tail == NIL {
            let c = self.alloc();
            self.chunks[c as usize].0[0] = (key, event);
            self.buckets[b] = Bucket { head: c, tail: c, fill: 1 };
            self.bits[b / 64] |= 1 << (b % 64);
            self.summary |= 1 << (b / 64);
            return;
        }
        let f = fill as usize;
        let chunk = &mut self.chunks[tail as usize].0;
        self.unsorted[b / 64] |= ((chunk[f - 1].0 > key) as u64) << (b % 64);
        if f < CHUNK {
            chunk[f] = (key, event);
            self.buckets[b].fill += 1;
        } else {
            let c = self.alloc();
            self.chunks[c as usize].0[0] = (key, event);
            self.next[tail as usize] = c;
            self.buckets[b].tail = c;
            self.buckets[b].fill = 1;
        }
    }

    /// A free chunk, taken off the free list (its `next` to be set by the list it joins, if it
    /// is not the last).
    #[inline(always)]
    fn alloc(&mut self) -> u32 {
        let c = if self.free != NIL { self.free } else { self.grow() };
        self.free = self.next[c as usize];
        c
    }

    /// A new free chunk (the pool grows to the most chunks ever in use at once).
    #[cold]
    fn grow(&mut self) -> u32 {
        self.chunks.push(Chunk([(0, Event::Sample); CHUNK]));
        self.next.push(NIL);
        (self.chunks.len() - 1) as u32
    }

    /// A push that is not onto the wheel: into the current slot, before it, or beyond the
    /// horizon.
    #[inline(never)]
    fn push_rare(&mut self, time: Time, key: Key, event: Event, ahead: u64) {
        if ahead == 0 {
            self.insert_now(wheel_key(time, key), event);
        } else if (ahead as i64) < 0 {
            let at = self.early.partition_point(|x| (x.0, x.1) > (time, key));
            self.early.insert(at, (time, key, event));
        } else {
            let key = ((time as u128) << 64) | key as u128;
            self.far.push(Far { key, event });
        }
    }

    /// Into the current slot, in key order (before the entries of an equal key, and at the
    /// cursor when the key is below every entry still to pop).
    fn insert_now(&mut self, key: u64, event: Event) {
        let at = self.cursor + self.now[self.cursor..].partition_point(|x| x.0 < key);
        self.now.insert(at, (key, event));
    }

    /// The entries of bucket `b`, in push order.
    fn bucket_entries(&self, b: usize) -> impl Iterator<Item = &Entry> + '_ {
        let Bucket { head, tail, fill } = self.buckets[b];
        let chunks =
            std::iter::successors((head != NIL).then_some(head), move |&c| (c != tail).then(|| self.next[c as usize]));
        chunks.flat_map(move |c| {
            let n = if c == tail { fill as usize } else { CHUNK };
            self.chunks[c as usize].0[..n].iter()
        })
    }

    /// Every pending event, in no particular order (for what is on the wires at the end of a
    /// run).
    pub fn pending(&self) -> impl Iterator<Item = Event> + '_ {
        let wheel = (0..SLOTS).flat_map(move |b| self.bucket_entries(b));
        self.now[self.cursor..]
            .iter()
            .chain(wheel)
            .map(|e| e.1)
            .chain(self.early.iter().map(|e| e.2))
            .chain(self.far.iter().map(|f| f.event))
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

    /// Time of a key of the current slot.
    #[inline]
    fn now_time(&self, key: u64) -> Time {
        (self.now_slot << SLOT_SHIFT) | (key >> LOW_BITS)
    }

    /// Remove and return the earliest event if it is at or before `limit`; otherwise leave the
    /// queue as it is (so that a run can stop at any time and go on later, event for event as
    /// if it had not stopped).
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, Event)> {
        self.began = false;
        if !self.early.is_empty() {
            return self.pop_early(limit);
        }
        if self.cursor == self.now.len() {
            self.refill();
        }
        let &(key, event) = self.now.get(self.cursor)?;
        let time = self.now_time(key);
        if time > limit {
            return None;
        }
        self.cursor += 1;
        self.len -= 1;
        #[cfg(debug_assertions)]
        {
            self.last = time;
        }
        if self.cursor == self.now.len() {
            // Make the next event current now, so that `peek` sees it while this one is handled.
            self.refill();
            self.began = true;
        }
        Some((time, event))
    }

    #[cold]
    fn pop_early(&mut self, limit: Time) -> Option<(Time, Event)> {
        let &(time, _, event) = self.early.last()?;
        if time > limit {
            return None;
        }
        self.early.pop();
        self.len -= 1;
        #[cfg(debug_assertions)]
        {
            self.last = time;
        }
        Some((time, event))
    }

    /// The earliest event, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        if let Some((_, _, e)) = self.early.last() {
            return Some(e);
        }
        if let Some((_, e)) = self.now.get(self.cursor) {
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
        self.now.get(self.cursor..)?.first_chunk::<WINDOW>().map(Window)
    }

    /// Whether the last pop made a new slot current: the events of the window were in no
    /// window before, so the engine's look ahead has fetched nothing for them yet.
    #[inline(always)]
    pub fn slot_began(&self) -> bool {
        self.began
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(&(t, _, _)) = self.early.last() {
            return Some(t);
        }
        if let Some(&(key, _)) = self.now.get(self.cursor) {
            return Some(self.now_time(key));
        }
        self.peek_slow().map(|(t, _)| t)
    }

    /// Only after pushes into an empty queue: look where `refill` would.
    fn peek_slow(&self) -> Option<(Time, &Event)> {
        if self.summary != 0 {
            // The smallest key of the next bucket.
            let b = self.next_bucket();
            let min = self.bucket_entries(b).min_by_key(|e| e.0);
            let slot = self.now_slot + 1 + ((b as u64).wrapping_sub(self.now_slot + 1) & MASK);
            return min.map(|e| ((slot << SLOT_SHIFT) | (e.0 >> LOW_BITS), &e.1));
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

    /// The current slot is exhausted: make the next non-empty slot current. Its bucket's
    /// chunks are copied into `now` and freed, and sorted if the bucket is marked unsorted;
    /// then what the new horizon covers comes down from `far`.
    fn refill(&mut self) {
        debug_assert!(self.cursor == self.now.len());
        self.now.clear();
        self.cursor = 0;
        if self.summary != 0 {
            let b = self.next_bucket();
            let ahead = (b as u64).wrapping_sub(self.now_slot + 1) & MASK;
            self.now_slot += 1 + ahead;
            self.take(b);
            self.bits[b / 64] &= !(1 << (b % 64));
            if self.bits[b / 64] == 0 {
                self.summary &= !(1 << (b / 64));
            }
            if self.unsorted[b / 64] & (1 << (b % 64)) != 0 {
                self.unsorted[b / 64] &= !(1 << (b % 64));
                sort_slot(&mut self.now, &mut self.sort_buf);
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
            let key = wheel_key(f.time(), f.event_key());
            if ahead == 0 {
                self.insert_now(key, f.event);
            } else {
                self.append((slot_of(f.time()) & MASK) as usize, key, f.event);
            }
        }
    }

    /// Copy the chunks of bucket `b` into `now`, empty the bucket and free its chunks.
    #[inline]
    fn take(&mut self, b: usize) {
        let Bucket { head, tail, fill } = std::mem::replace(&mut self.buckets[b], EMPTY);
        // Fetch every chunk first. They were written when their events were pushed, as a rule
        // thousands of events ago and out of cache since, and lie anywhere in the pool: one walk
        // of the (small, cached) `next` list starts all their fetches at once, where the copy
        // alone waited for one chunk after another (on the k = 32 fat tree, about 30 chunks a
        // slot). At most `TAKE_PREFETCH_CHUNKS` of them: a slot longer than that (a burst of
        // flow starts at one instant) would evict its first lines before the copy reached them.
        let mut c = head;
        for _ in 0..TAKE_PREFETCH_CHUNKS {
            for line in (0..std::mem::size_of::<Chunk>()).step_by(64) {
                crate::packet::prefetch_at(&self.chunks, c as usize, line);
            }
            if c == tail {
                break;
            }
            c = self.next[c as usize];
        }
        let mut c = head;
        while c != tail {
            self.now.extend_from_slice(&self.chunks[c as usize].0);
            c = self.next[c as usize];
        }
        self.now.extend_from_slice(&self.chunks[tail as usize].0[..fill as usize]);
        self.next[tail as usize] = self.free;
        self.free = head;
    }
}

#[cfg(test)]
mod push_order_tests;
#[cfg(test)]
mod tests;
