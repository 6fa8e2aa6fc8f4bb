//! The queue in push order ([`EventQueue::with_push_order`]): ties in time pop in the order of
//! the pushes, or of the sequence numbers reserved for them.

use super::tests::{assert_pending_as_reference, drain_as_reference, pop_as_reference, Reference};
use super::*;

#[test]
fn pops_in_time_order_then_insertion_order() {
    let mut q = EventQueue::with_push_order();
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
    let mut q = EventQueue::with_push_order();
    let mut reference = Reference::new();
    let mut rng = crate::rng::Rng::new(seed);
    let mut now = 0;
    let mut last = (0, 0);
    // Sequence numbers reserved and not pushed yet, with the time they were taken at.
    let mut reserved: Vec<(Time, Seq)> = Vec::new();
    for round in 0..rounds {
        for _ in 0..rng.below(3) {
            let scale = scales[rng.below(scales.len() as u64) as usize];
            let t = now + rng.below(4) * rng.below(scale.max(1));
            let ev = Event::TxDone { port: round };
            match rng.below(8) {
                // Reserve a place now, push later (or never).
                0 => reserved.push((t, q.reserve_seq())),
                // Push a reserved one, if it is still in the future.
                1 if !reserved.is_empty() => {
                    let (t, s) = reserved.swap_remove(rng.below(reserved.len() as u64) as usize);
                    if (t, s) > last {
                        q.push_reserved(t, s, ev);
                        reference.insert((t, s, round));
                    }
                }
                _ => {
                    let s = q.seq;
                    q.push(t, ev);
                    reference.insert((t, s, round));
                }
            }
        }
        if rng.below(2) == 0 {
            let Some(first) = pop_as_reference(&mut q, &mut reference) else { continue };
            now = first.0;
            last = (first.0, first.1);
        }
        assert_eq!(q.len(), reference.len());
        if round % 1000 == 0 {
            assert_pending_as_reference(&q, &reference);
        }
    }
    drain_as_reference(q, reference);
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
    let mut q = EventQueue::with_push_order();
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
fn a_reserved_sequence_number_keeps_the_place_of_its_reservation() {
    let mut q = EventQueue::with_push_order();
    q.push(100, Event::TxDone { port: 0 });
    let r = q.reserve_seq();
    q.push(100, Event::TxDone { port: 2 });
    q.push(50, Event::TxDone { port: 3 });
    assert_eq!(q.pop(), Some((50, Event::TxDone { port: 3 })));
    q.push_reserved(100, r, Event::TxDone { port: 1 });
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
    assert_eq!(order, [0, 1, 2].map(|port| Event::TxDone { port }));
}

#[test]
fn a_push_before_the_next_slot_made_current_pops_first() {
    let mut q = EventQueue::with_push_order();
    q.push(0, Event::TxDone { port: 0 });
    q.push(100 * SLOT_PS, Event::TxDone { port: 2 });
    // Popping the only entry of slot 0 makes slot 100 current at once.
    assert_eq!(q.pop(), Some((0, Event::TxDone { port: 0 })));
    assert!(q.slot_began());
    q.push(3 * SLOT_PS + 7, Event::TxDone { port: 1 });
    q.push(3 * SLOT_PS + 7, Event::Sample);
    assert_eq!(q.peek_time(), Some(3 * SLOT_PS + 7));
    assert_eq!(q.pop(), Some((3 * SLOT_PS + 7, Event::TxDone { port: 1 })));
    assert_eq!(q.pop(), Some((3 * SLOT_PS + 7, Event::Sample)));
    assert_eq!(q.pop(), Some((100 * SLOT_PS, Event::TxDone { port: 2 })));
    assert!(q.pop().is_none());
}

#[test]
fn a_timer_slot_keeps_one_event_and_rearms_in_the_reserved_place() {
    let mut q = EventQueue::with_push_order();
    let mut t = TimerSlot::default();
    let ev = |gen| Event::PauseExpire { port: 0, prio: 3, gen };
    // Armed for 100: pushed.
    let s1 = q.reserve_seq();
    assert!(t.arm(100, s1, 1));
    q.push_reserved(100, s1, ev(1));
    // Extended to 150 and to 200 while pending: recorded, not pushed.
    let s2 = q.reserve_seq();
    assert!(!t.arm(150, s2, 2));
    q.push(200, Event::Sample);
    let s3 = q.reserve_seq();
    assert!(!t.arm(200, s3, 3));
    assert_eq!(q.len(), 2);
    // The pending event fires: the last deadline is pushed in its reserved place, after the
    // Sample pushed before it was set.
    assert_eq!(q.pop(), Some((100, ev(1))));
    let (time, seq, gen) = t.fired(100).expect("re-arm");
    assert_eq!((time, seq, gen), (200, s3, 3));
    q.push_reserved(time, seq, ev(gen));
    assert_eq!(q.pop(), Some((200, Event::Sample)));
    assert_eq!(q.pop(), Some((200, ev(3))));
    assert_eq!(t.fired(200), None);
    // An earlier deadline is pushed at once; a cancelled one is not re-armed.
    let s4 = q.reserve_seq();
    assert!(t.arm(500, s4, 4));
    let s5 = q.reserve_seq();
    assert!(t.arm(400, s5, 5), "earlier than the pending event");
    t.cancel();
    assert_eq!(t.fired(400), None);
    assert_eq!(t.fired(500), None, "an older event of the timer");
}

#[test]
fn pop_until_stops_before_later_events_and_resumes_in_order() {
    let mut q = EventQueue::with_push_order();
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

/// A queue and a sorted reference of what it holds, `(time, sequence, port)`, so that a test
/// can push in any way and check every pop.
struct Checked {
    q: EventQueue,
    reference: std::collections::BTreeSet<(Time, Seq, u32)>,
}

impl Checked {
    fn new() -> Self {
        Checked { q: EventQueue::with_push_order(), reference: Default::default() }
    }

    fn push(&mut self, t: Time, port: u32) {
        let s = self.q.seq;
        self.q.push(t, Event::TxDone { port });
        self.reference.insert((t, s, port));
    }

    fn push_reserved(&mut self, t: Time, s: Seq, port: u32) {
        self.q.push_reserved(t, s, Event::TxDone { port });
        self.reference.insert((t, s, port));
    }

    /// Pop one event, as the reference says; the window, when there is one, shows the next
    /// events of the reference in order (no test here has early entries).
    fn pop(&mut self) -> (Time, u32) {
        assert!(self.q.early.is_empty());
        if let Some(w) = self.q.window() {
            let next: Vec<Event> =
                self.reference.iter().take(WINDOW).map(|&(_, _, port)| Event::TxDone { port }).collect();
            assert_eq!((0..WINDOW).map(|n| w.get(n)).collect::<Vec<_>>(), next, "window");
        }
        let (t, _, port) = self.reference.pop_first().expect("reference empty");
        assert_eq!(self.q.peek_time(), Some(t));
        assert_eq!(self.q.pop(), Some((t, Event::TxDone { port })));
        assert_eq!(self.q.len(), self.reference.len());
        (t, port)
    }

    fn pop_all(&mut self) -> Vec<(Time, u32)> {
        let out: Vec<_> = std::iter::from_fn(|| (!self.reference.is_empty()).then(|| self.pop())).collect();
        assert!(self.q.is_empty() && self.q.pop().is_none());
        out
    }

    /// Whether bucket `b` is marked unsorted.
    fn unsorted(&self, b: usize) -> bool {
        self.q.unsorted[b / 64] & (1 << (b % 64)) != 0
    }
}

#[test]
fn entries_pushed_out_of_order_mark_their_slot_which_is_sorted_as_it_becomes_current() {
    let mut c = Checked::new();
    let t = 5 * SLOT_PS + 10;
    c.push(t, 0);
    let r1 = c.q.reserve_seq();
    let r2 = c.q.reserve_seq();
    // Across several chunks, in order: not marked.
    for port in 1..20 {
        c.push(t, port);
    }
    c.push(9 * SLOT_PS, 20);
    assert!(!c.unsorted(5) && !c.unsorted(9));
    // Pushed with sequence numbers reserved before most of the slot's (a later reservation
    // first): marked.
    c.push_reserved(t, r2, 100);
    c.push_reserved(t, r1, 101);
    // A slot whose second entry comes at an earlier offset than its first.
    let r3 = c.q.reserve_seq();
    c.push(7 * SLOT_PS + 900, 30);
    c.push(7 * SLOT_PS + 3, 31);
    c.push_reserved(7 * SLOT_PS + 500, r3, 32);
    assert!(c.unsorted(5) && c.unsorted(7) && !c.unsorted(9));
    let order: Vec<u32> = c.pop_all().into_iter().map(|(_, port)| port).collect();
    let mut expected = vec![0, 101, 100];
    expected.extend(1..20);
    expected.extend([31, 32, 30, 20]);
    assert_eq!(order, expected);
    assert_eq!(c.q.unsorted, [0; WORDS]);
}

#[test]
fn a_slot_pushed_out_of_time_order_is_sorted_and_can_be_left_in_the_middle() {
    let mut c = Checked::new();
    let base = 40 * SLOT_PS;
    let r = c.q.reserve_seq();
    // Fresh sequence numbers, times falling within the slot.
    for (i, off) in [900, 700, 700, 500, 300, 100, 1000, 0].into_iter().enumerate() {
        c.push(base + off, i as u32);
    }
    c.push_reserved(base + 700, r, 50);
    // Stop in the middle of the slot and go on.
    assert_eq!(c.q.pop_until(base + 99), Some((base, Event::TxDone { port: 7 })));
    c.reference.pop_first();
    assert_eq!(c.q.pop_until(base + 99), None);
    // A push into the current slot takes its place among what is left of it.
    c.push(base + 600, 60);
    let order: Vec<(Time, u32)> = c.pop_all();
    let ports: Vec<u32> = order.iter().map(|&(_, p)| p).collect();
    assert_eq!(ports, [5, 4, 3, 60, 50, 1, 2, 0, 6]);
}

#[test]
fn buckets_wrap_around_the_end_of_the_wheel() {
    let mut c = Checked::new();
    let s = SLOTS as Time;
    // Make a slot near the end of the wheel current.
    c.push((s - 3) * SLOT_PS, 0);
    assert_eq!(c.pop(), ((s - 3) * SLOT_PS, 0));
    let r = c.q.reserve_seq();
    c.push((s + 2) * SLOT_PS + 1, 3);
    c.push(s * SLOT_PS, 2);
    c.push((s - 1) * SLOT_PS + 5, 1);
    c.push((s - 1) * SLOT_PS + 5, 4);
    c.push_reserved(s * SLOT_PS, r, 5);
    // The last of the horizon: slot now_slot + SLOTS - 1 is on the wheel, in bucket now_slot - 1.
    c.push((2 * s - 4) * SLOT_PS + 7, 6);
    assert!(c.unsorted(0));
    assert_eq!(c.q.far.len(), 0);
    let order: Vec<u32> = c.pop_all().into_iter().map(|(_, port)| port).collect();
    assert_eq!(order, [1, 4, 5, 2, 3, 6]);
}

#[test]
fn far_entries_come_down_to_the_wheel_and_merge_with_later_pushes() {
    let mut c = Checked::new();
    let s = SLOTS as Time;
    let t = 3 * s * SLOT_PS + 11;
    c.push(t, 0);
    c.push(t + SLOT_PS, 1);
    c.push(t + 2 * s * SLOT_PS, 2);
    assert_eq!(c.q.far.len(), 3);
    c.push(SLOT_PS, 3);
    // Popping slot 1 makes slot 3·SLOTS current (t's); the far entry at t + SLOT_PS comes
    // down into its bucket, the one past the new horizon stays far.
    assert_eq!(c.pop(), (SLOT_PS, 3));
    assert_eq!(c.q.far.len(), 1);
    let b = ((t + SLOT_PS) / SLOT_PS) as usize & MASK as usize;
    assert_eq!(c.q.bucket_entries(b).count(), 1);
    // Pushed now, at the time of a handed-down entry: after it (a later sequence number).
    c.push(t + SLOT_PS, 4);
    c.push(t, 5);
    let order: Vec<u32> = c.pop_all().into_iter().map(|(_, port)| port).collect();
    assert_eq!(order, [0, 5, 1, 4, 2]);
}

#[test]
fn an_entry_out_of_order_alone_in_an_empty_queue_is_seen_by_peek() {
    let mut q = EventQueue::with_push_order();
    let r = q.reserve_seq();
    q.push(2 * SLOT_PS, Event::Sample);
    q.push_reserved(2 * SLOT_PS, r, Event::TxDone { port: 1 });
    // Nothing is current yet: peek looks through the next bucket.
    assert_eq!(q.peek_time(), Some(2 * SLOT_PS));
    assert_eq!(q.peek(), Some(&Event::TxDone { port: 1 }));
    assert_eq!(q.pop(), Some((2 * SLOT_PS, Event::TxDone { port: 1 })));
    assert_eq!(q.pop(), Some((2 * SLOT_PS, Event::Sample)));
    assert!(q.pop().is_none());
}

/// Slots of many sizes, one or several chunks, pushed in order at one instant or at random
/// offsets, each with entries pushed late in reserved places: every pop as the reference says.
#[test]
fn slots_of_every_size_pop_in_order_with_their_late_entries() {
    let mut c = Checked::new();
    let mut rng = crate::rng::Rng::new(11);
    let sizes = [3usize, 20, 60, 5, 100, 10, 30, 2, 70, 70, 16, 17, 1, 8, 9];
    let mut port = 0;
    for (k, &n) in sizes.iter().enumerate() {
        let slot = 2 + k as u64 * 3;
        let base = slot * SLOT_PS;
        // One instant (in order, as on the line-rate fat tree) or random offsets.
        let one_instant = k % 3 != 1;
        let reserved: Vec<Seq> = (0..1 + rng.below(4)).map(|_| c.q.reserve_seq()).collect();
        for _ in 0..n {
            let off = if one_instant { 100 } else { rng.below(SLOT_PS) };
            c.push(base + off, port);
            port += 1;
        }
        for s in reserved.into_iter().rev() {
            let off = if one_instant { 100 } else { rng.below(SLOT_PS) };
            c.push_reserved(base + off, s, port);
            port += 1;
        }
    }
    c.pop_all();
}
