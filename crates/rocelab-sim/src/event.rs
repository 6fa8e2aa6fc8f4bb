//! The event queue: a binary heap of `(time, sequence, event)`.
//!
//! Ties in time break by insertion order (the sequence number), so a run is a pure function of
//! scenario and seed. Events are small `Copy` values naming arena indices (ports, packets,
//! flows); no event owns memory.

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
    /// event; this keeps the heap as small as the number of busy links, not of frames in flight.
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
}

/// A pending event. The key packs time (high 64 bits) and insertion sequence (low 64 bits), so
/// one 128-bit comparison — branch-free on x86-64 — orders entries, and keys are unique.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline]
    fn le(&self, other: &Self) -> bool {
        other.key <= self.key
    }
    #[inline]
    fn lt(&self, other: &Self) -> bool {
        other.key < self.key
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest, then first-inserted.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Priority queue of events ordered by time, then by insertion.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    peak: usize,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: Time, event: Event) {
        let key = ((time as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, event });
        self.peak = self.peak.max(self.heap.len());
    }

    /// Most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| ((e.key >> 64) as Time, e.event))
    }

    /// The earliest event, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        self.heap.peek().map(|e| &e.event)
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| (e.key >> 64) as Time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

    #[test]
    fn matches_a_sorted_reference_under_interleaved_pushes_and_pops() {
        // Pseudo-random times, pushes never in the past, as the engine does.
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64, u32)> = Vec::new();
        let mut rng = crate::rng::Rng::new(9);
        let mut now = 0;
        let mut seq = 0u64;
        let mut popped = Vec::new();
        let mut expected = Vec::new();
        for round in 0..20_000u32 {
            for _ in 0..(rng.below(3)) {
                let t = now + rng.below(4) * rng.below(1000);
                q.push(t, Event::TxDone { port: round });
                reference.push((t, seq, round));
                seq += 1;
            }
            if rng.below(2) == 0 {
                reference.sort();
                if !reference.is_empty() {
                    let (t, _, p) = reference.remove(0);
                    expected.push((t, p));
                    let (qt, ev) = q.pop().unwrap();
                    let Event::TxDone { port } = ev else { unreachable!() };
                    popped.push((qt, port));
                    now = qt;
                    assert!(q.peek_time().unwrap_or(Time::MAX) >= now);
                }
            }
        }
        assert_eq!(popped, expected);
        assert_eq!(q.len(), reference.len());
    }

    #[test]
    fn events_are_small() {
        assert!(std::mem::size_of::<Event>() <= 16);
    }
}
