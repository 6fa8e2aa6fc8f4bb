use super::*;

#[test]
fn pops_in_time_order_then_key_order_whatever_the_push_order() {
    let pushes = [
        (30, Event::TxDone { port: 3 }),
        (10, Event::Sample),
        (10, Event::TxDone { port: 2 }),
        (20, Event::WireArrive { port: 20, pkt: 0 }),
        (10, Event::WireArrive { port: 9, pkt: 5 }),
        (10, Event::TxDone { port: 1 }),
    ];
    let expected = vec![
        (10, Event::TxDone { port: 1 }),
        (10, Event::TxDone { port: 2 }),
        (10, Event::WireArrive { port: 9, pkt: 5 }),
        (10, Event::Sample),
        (20, Event::WireArrive { port: 20, pkt: 0 }),
        (30, Event::TxDone { port: 3 }),
    ];
    // Every rotation of the pushes pops the one order.
    for r in 0..pushes.len() {
        let mut q = EventQueue::new();
        for &(t, ev) in pushes.iter().cycle().skip(r).take(pushes.len()) {
            q.push(t, ev);
        }
        assert_eq!(q.len(), 6);
        assert_eq!(q.peek_time(), Some(10));
        let order: Vec<(Time, Event)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, expected, "rotation {r}");
        assert!(q.is_empty());
    }
}

/// A port number for the `n`th push that is unique and scattered (an odd multiplier is a
/// bijection of `u32`), so that keys come in no particular order.
fn scattered(n: u32) -> u32 {
    n.wrapping_mul(0x9E37_79B1)
}

/// A sorted reference of pending `TxDone`s: `(time, tie-break, port)`, the tie-break being the
/// queue's (a key, or a sequence number under push order).
pub(super) type Reference = std::collections::BTreeSet<(Time, u64, u32)>;

/// Pop the reference's first entry and check that the queue peeks and pops the same (or that
/// both are empty): that entry.
pub(super) fn pop_as_reference(q: &mut EventQueue, reference: &mut Reference) -> Option<(Time, u64, u32)> {
    let Some(first) = reference.pop_first() else {
        assert!(q.pop().is_none());
        return None;
    };
    assert_eq!(q.peek(), Some(&Event::TxDone { port: first.2 }), "peek");
    assert_eq!(q.peek_time(), Some(first.0));
    assert_eq!(q.pop(), Some((first.0, Event::TxDone { port: first.2 })), "pop");
    Some(first)
}

/// The queue holds the reference's entries (`pending` in any order).
pub(super) fn assert_pending_as_reference(q: &EventQueue, reference: &Reference) {
    let mut pending: Vec<u32> =
        q.pending().map(|e| if let Event::TxDone { port } = e { port } else { u32::MAX }).collect();
    let mut expected: Vec<u32> = reference.iter().map(|&(_, _, port)| port).collect();
    pending.sort_unstable();
    expected.sort_unstable();
    assert_eq!(pending, expected, "pending");
}

/// Pop what is left in reference order; then the queue is empty and every chunk is free again.
pub(super) fn drain_as_reference(mut q: EventQueue, mut reference: Reference) {
    while let Some(first) = reference.pop_first() {
        assert_eq!(q.pop(), Some((first.0, Event::TxDone { port: first.2 })));
    }
    assert!(q.is_empty() && q.pop().is_none());
    assert_eq!(q.next.len(), q.chunks.len());
    let mut free = 0;
    let mut c = q.free;
    while c != NIL {
        free += 1;
        c = q.next[c as usize];
    }
    assert_eq!(free, q.chunks.len(), "chunks lost from the free list");
    assert!(q.buckets.iter().all(|b| b.head == NIL) && q.bits == [0; WORDS] && q.unsorted == [0; WORDS]);
}

/// Push and pop at random against a sorted reference of `(time, key, port)`; delays are drawn
/// from `scales` (picoseconds), pushes are never in the past, as in the engine, but may be at
/// the instant just popped with a lower key (they pop next, as the least pending entry).
fn check_against_reference(seed: u64, scales: &[Time], rounds: u32) {
    let mut q = EventQueue::new();
    let mut reference = Reference::new();
    let mut rng = crate::rng::Rng::new(seed);
    let mut now = 0;
    let mut pushes = 0;
    for _ in 0..rounds {
        for _ in 0..rng.below(3) {
            let scale = scales[rng.below(scales.len() as u64) as usize];
            let t = now + rng.below(4) * rng.below(scale.max(1));
            let port = scattered(pushes);
            pushes += 1;
            let ev = Event::TxDone { port };
            q.push(t, ev);
            reference.insert((t, ev.key(), port));
        }
        if rng.below(2) == 0 {
            let Some(first) = pop_as_reference(&mut q, &mut reference) else { continue };
            now = first.0;
        }
        assert_eq!(q.len(), reference.len());
        if pushes % 1000 == 0 {
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
fn freed_chunks_are_taken_again_before_the_pool_grows() {
    let mut q = EventQueue::new();
    for round in 0..3 {
        // 50 entries in one slot: seven chunks.
        for port in 0..50 {
            q.push(round * 10 * SLOT_PS + SLOT_PS + port as Time % 3, Event::TxDone { port });
        }
        for port in 0..50 {
            let (_, ev) = q.pop().expect("pushed");
            assert!(matches!(ev, Event::TxDone { .. }), "{port}");
        }
        assert_eq!(
            q.chunks.len(),
            50_usize.div_ceil(CHUNK),
            "round {round}: the pool grows only to the most chunks at once"
        );
    }
}

#[test]
fn far_events_come_back_in_order_and_ties_pop_by_key() {
    let mut q = EventQueue::new();
    let far = 10 * SLOT_PS * SLOTS as Time + 7;
    q.push(far, Event::Sample);
    q.push(5, Event::TxDone { port: 1 });
    q.push(far, Event::TxDone { port: 2 });
    q.push(far - 1, Event::TxDone { port: 3 });
    assert_eq!(q.pop(), Some((5, Event::TxDone { port: 1 })));
    // Pushed while the far ones are current: a tie takes its place by key, before the
    // Sample and between the ports.
    assert_eq!(q.pop(), Some((far - 1, Event::TxDone { port: 3 })));
    q.push(far, Event::TxDone { port: 4 });
    q.push(far, Event::TxDone { port: 1 });
    q.push(far + SLOT_PS, Event::TxDone { port: 5 });
    let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(
        rest,
        vec![
            (far, Event::TxDone { port: 1 }),
            (far, Event::TxDone { port: 2 }),
            (far, Event::TxDone { port: 4 }),
            (far, Event::Sample),
            (far + SLOT_PS, Event::TxDone { port: 5 }),
        ]
    );
    assert_eq!(q.peak_len(), 5);
}

#[test]
fn a_push_at_the_current_instant_below_the_last_key_pops_next() {
    let mut q = EventQueue::new();
    for port in [10, 20, 30] {
        q.push(100, Event::NicWake { port });
    }
    q.push(100, Event::Sample);
    assert_eq!(q.pop(), Some((100, Event::NicWake { port: 10 })));
    assert_eq!(q.pop(), Some((100, Event::NicWake { port: 20 })));
    // Pushed by the event at port 20 for this instant: the least pending entries, by key.
    q.push(100, Event::NicWake { port: 15 });
    q.push(100, Event::TxDone { port: 99 });
    q.push(100, Event::NicWake { port: 25 });
    let rest: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
    assert_eq!(
        rest,
        [
            Event::TxDone { port: 99 },
            Event::NicWake { port: 15 },
            Event::NicWake { port: 25 },
            Event::NicWake { port: 30 },
            Event::Sample
        ]
    );
}

#[test]
fn equal_keys_all_pop() {
    // A NIC woken twice for one instant, and stale timers beside a live one: all pop.
    let mut q = EventQueue::new();
    let evs = [
        Event::NicWake { port: 4 },
        Event::QpTimer { qp: 2, side: 0, gen: 7 },
        Event::NicWake { port: 4 },
        Event::QpTimer { qp: 2, side: 0, gen: 8 },
        Event::NicWake { port: 3 },
    ];
    for ev in evs {
        q.push(3 * SLOT_PS + 1, ev);
        q.push(5, ev);
    }
    q.push(9 * SLOT_PS, Event::Sample);
    let mut popped: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(popped.pop(), Some((9 * SLOT_PS, Event::Sample)));
    for t in [5, 3 * SLOT_PS + 1] {
        let at: Vec<Event> = popped.iter().filter(|e| e.0 == t).map(|e| e.1).collect();
        assert_eq!(at.len(), 5, "at {t}");
        assert_eq!(&at[..3], [Event::NicWake { port: 3 }, Event::NicWake { port: 4 }, Event::NicWake { port: 4 }]);
        let mut timers = at[3..].to_vec();
        timers.sort_by_key(|e| if let Event::QpTimer { gen, .. } = e { *gen } else { 0 });
        assert_eq!(timers, [Event::QpTimer { qp: 2, side: 0, gen: 7 }, Event::QpTimer { qp: 2, side: 0, gen: 8 }]);
    }
}

#[test]
fn a_push_before_the_next_slot_made_current_pops_first() {
    let mut q = EventQueue::new();
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
fn a_timer_slot_keeps_one_event_and_rearms_in_the_place_of_its_key() {
    let mut q = EventQueue::new();
    let mut t = TimerSlot::default();
    let ev = |gen| Event::PauseExpire { port: 0, prio: 3, gen };
    // Armed for 100: pushed.
    assert!(t.arm(100, q.reserve_seq(), 1));
    q.push(100, ev(1));
    // Extended to 150 and to 200 while pending: recorded, not pushed.
    assert!(!t.arm(150, q.reserve_seq(), 2));
    q.push(200, Event::Sample);
    q.push(200, Event::PauseExpire { port: 0, prio: 4, gen: 1 });
    assert!(!t.arm(200, q.reserve_seq(), 3));
    assert_eq!(q.len(), 3);
    // The pending event fires: the last deadline is pushed, and pops where its key puts it
    // (before the Sample and the pause of priority 4 pushed before it).
    assert_eq!(q.pop(), Some((100, ev(1))));
    let (time, seq, gen) = t.fired(100).expect("re-arm");
    assert_eq!((time, gen), (200, 3));
    q.push_reserved(time, seq, ev(gen));
    assert_eq!(q.pop(), Some((200, ev(3))));
    assert_eq!(q.pop(), Some((200, Event::PauseExpire { port: 0, prio: 4, gen: 1 })));
    assert_eq!(q.pop(), Some((200, Event::Sample)));
    assert_eq!(t.fired(200), None);
    // An earlier deadline is pushed at once; a cancelled one is not re-armed.
    assert!(t.arm(500, 0, 4));
    assert!(t.arm(400, 0, 5), "earlier than the pending event");
    t.cancel();
    assert_eq!(t.fired(400), None);
    assert_eq!(t.fired(500), None, "an older event of the timer");
}

#[test]
fn events_are_small() {
    assert!(std::mem::size_of::<Event>() <= 16);
    assert_eq!(std::mem::size_of::<Chunk>(), 192, "three cache lines");
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

/// A queue and a sorted reference of what it holds, `(time, key, port)`, so that a test can
/// push in any way and check every pop.
struct Checked {
    q: EventQueue,
    reference: std::collections::BTreeSet<(Time, Key, u32)>,
}

impl Checked {
    fn new() -> Self {
        Checked { q: EventQueue::new(), reference: Default::default() }
    }

    fn push(&mut self, t: Time, port: u32) {
        let ev = Event::TxDone { port };
        self.q.push(t, ev);
        self.reference.insert((t, ev.key(), port));
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
    // Across several chunks, in key order: not marked.
    for port in 2..20 {
        c.push(t, port);
    }
    c.push(9 * SLOT_PS, 20);
    assert!(!c.unsorted(5) && !c.unsorted(9));
    // Keys below the slot's last (the higher first): marked.
    c.push(t, 1);
    c.push(t, 100);
    c.push(t, 50);
    // A slot whose second entry comes at an earlier offset than its first.
    c.push(7 * SLOT_PS + 900, 30);
    c.push(7 * SLOT_PS + 3, 31);
    c.push(7 * SLOT_PS + 500, 32);
    assert!(c.unsorted(5) && c.unsorted(7) && !c.unsorted(9));
    let order: Vec<u32> = c.pop_all().into_iter().map(|(_, port)| port).collect();
    let mut expected: Vec<u32> = (0..20).collect();
    expected.extend([50, 100, 31, 32, 30, 20]);
    assert_eq!(order, expected);
    assert_eq!(c.q.unsorted, [0; WORDS]);
}

#[test]
fn a_slot_pushed_out_of_time_order_is_sorted_and_can_be_left_in_the_middle() {
    let mut c = Checked::new();
    let base = 40 * SLOT_PS;
    // Times falling within the slot in no order.
    for (i, off) in [900, 700, 700, 500, 300, 100, 1000, 0].into_iter().enumerate() {
        c.push(base + off, i as u32);
    }
    c.push(base + 700, 0xff);
    // Stop in the middle of the slot and go on.
    assert_eq!(c.q.pop_until(base + 99), Some((base, Event::TxDone { port: 7 })));
    c.reference.pop_first();
    assert_eq!(c.q.pop_until(base + 99), None);
    // A push into the current slot takes its place among what is left of it.
    c.push(base + 600, 60);
    let order: Vec<(Time, u32)> = c.pop_all();
    let ports: Vec<u32> = order.iter().map(|&(_, p)| p).collect();
    assert_eq!(ports, [5, 4, 3, 60, 1, 2, 0xff, 0, 6]);
}

#[test]
fn buckets_wrap_around_the_end_of_the_wheel() {
    let mut c = Checked::new();
    let s = SLOTS as Time;
    // Make a slot near the end of the wheel current.
    c.push((s - 3) * SLOT_PS, 0);
    assert_eq!(c.pop(), ((s - 3) * SLOT_PS, 0));
    c.push((s + 2) * SLOT_PS + 1, 3);
    c.push(s * SLOT_PS, 5);
    c.push((s - 1) * SLOT_PS + 5, 1);
    c.push((s - 1) * SLOT_PS + 5, 4);
    c.push(s * SLOT_PS, 2);
    // The last of the horizon: slot now_slot + SLOTS - 1 is on the wheel, in bucket now_slot - 1.
    c.push((2 * s - 4) * SLOT_PS + 7, 6);
    assert!(c.unsorted(0));
    assert_eq!(c.q.far.len(), 0);
    let order: Vec<u32> = c.pop_all().into_iter().map(|(_, port)| port).collect();
    assert_eq!(order, [1, 4, 2, 5, 3, 6]);
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
    // Pushed now, at the time of a handed-down entry: by key, after it.
    c.push(t + SLOT_PS, 4);
    c.push(t, 5);
    let order: Vec<u32> = c.pop_all().into_iter().map(|(_, port)| port).collect();
    assert_eq!(order, [0, 5, 1, 4, 2]);
}

#[test]
fn the_window_shows_the_next_events_of_the_current_slot() {
    let mut q = EventQueue::new();
    q.push(SLOT_PS, Event::Sample);
    for port in 0..9 {
        q.push(7 * SLOT_PS + port as Time, Event::TxDone { port });
    }
    q.push(8 * SLOT_PS, Event::Sample);
    // Nothing is current before the first pop; popping the last entry of a slot makes the next
    // one current at once, and says so.
    assert!(q.window().is_none());
    assert_eq!(q.pop(), Some((SLOT_PS, Event::Sample)));
    assert!(q.slot_began());
    // Nine in the current slot: the window while seven or more are left.
    for first in 0..9 {
        match q.window() {
            Some(w) => {
                assert!(first <= 2);
                for n in 0..WINDOW {
                    assert_eq!(w.get(n), Event::TxDone { port: first + n as u32 });
                }
            }
            None => assert!(first > 2),
        }
        assert_eq!(q.pop(), Some((7 * SLOT_PS + first as Time, Event::TxDone { port: first })));
        assert_eq!(q.slot_began(), first == 8, "only the pop that empties the slot begins the next");
    }
    assert!(q.window().is_none());
    assert_eq!(q.pop(), Some((8 * SLOT_PS, Event::Sample)));
}

#[test]
fn an_entry_out_of_order_alone_in_an_empty_queue_is_seen_by_peek() {
    let mut q = EventQueue::new();
    q.push(2 * SLOT_PS, Event::Sample);
    q.push(2 * SLOT_PS, Event::TxDone { port: 1 });
    // Nothing is current yet: peek looks through the next bucket.
    assert_eq!(q.peek_time(), Some(2 * SLOT_PS));
    assert_eq!(q.peek(), Some(&Event::TxDone { port: 1 }));
    assert_eq!(q.pop(), Some((2 * SLOT_PS, Event::TxDone { port: 1 })));
    assert_eq!(q.pop(), Some((2 * SLOT_PS, Event::Sample)));
    assert!(q.pop().is_none());
}

#[test]
fn slot_sort_matches_the_library_sort_at_every_length() {
    let mut rng = crate::rng::Rng::new(7);
    for len in 0..40usize {
        for round in 0..50 {
            // A random offset in the slot above an event's key, some with the top bit set
            // (offsets from 512 on); every other round, few offsets and ports, so that keys
            // repeat.
            let (offsets, ports) = if round % 2 == 0 { (SLOT_PS, 1 << 20) } else { (3, 4) };
            let mut v: Vec<Entry> = (0..len)
                .map(|i| {
                    let offset = rng.below(offsets);
                    let ev = Event::QpTimer { qp: rng.below(ports) as u32, side: 0, gen: i as u32 };
                    (wheel_key(offset, ev.key()), ev)
                })
                .collect();
            if round % 5 == 0 {
                v.sort_by_key(|e| std::cmp::Reverse(e.0)); // descending: the worst case
            }
            // The keys in order, and the same entries: equal keys hold interchangeable events
            // (here, timers of one queue pair), in any order.
            let mut expected = v.clone();
            expected.sort_by_key(|e| (e.0, format!("{:?}", e.1)));
            let canonical = |w: &[Entry]| {
                let mut w = w.to_vec();
                assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "length {len}: keys out of order");
                w.sort_by_key(|e| (e.0, format!("{:?}", e.1)));
                w
            };
            let mut w = v.clone();
            let mut buf = sort::SortBuf::default();
            sort::sort_ascending(&mut v, &mut buf);
            assert_eq!(canonical(&v), expected, "length {len}");
            sort_slot(&mut w, &mut buf);
            assert_eq!(canonical(&w), expected, "length {len}");
        }
    }
}

/// Long slots in no order, as the line-rate fat tree fills them (one instant or a few, two
/// kinds, ports of a dozen bits) and with keys that differ in too many bits to pack beside an
/// index: sorted by key, the same entries, whatever the path.
#[test]
fn long_slots_in_no_order_sort_through_packed_keys_or_as_entries() {
    let mut rng = crate::rng::Rng::new(42);
    let mut buf = sort::SortBuf::default();
    let mut paths = [0usize; 3];
    for len in [17usize, 32, 33, 64, 100, 101, 257, 600] {
        for round in 0..12u64 {
            // Offsets: one instant, three, or any (up to the top bit); ports: a dozen bits or
            // thirty; pause timers with a priority in the lowest bits, or none.
            let offsets = [1, 3, SLOT_PS][round as usize % 3];
            let ports = if round < 9 { 1 << 12 } else { 1 << 30 };
            let kinds = if round % 2 == 0 { 3 } else { 2 };
            let v: Vec<Entry> = (0..len)
                .map(|i| {
                    let port = rng.below(ports) as u32;
                    let ev = match rng.below(kinds) {
                        0 => Event::TxDone { port },
                        1 => Event::WireArrive { port, pkt: i as u32 },
                        _ => Event::PauseExpire { port, prio: rng.below(8) as u8, gen: i as u32 },
                    };
                    (wheel_key(rng.below(offsets) + offsets / 2, ev.key()), ev)
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_by_key(|e| (e.0, format!("{:?}", e.1)));
            paths[match sort::layout(&v) {
                sort::Layout::Equal => 0,
                sort::Layout::Packed { .. } => 1,
                sort::Layout::Wide => 2,
            }] += 1;
            let mut w = v.clone();
            sort::sort_packed(&mut w, &mut buf);
            assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "length {len}: keys out of order");
            w.sort_by_key(|e| (e.0, format!("{:?}", e.1)));
            assert_eq!(w, expected, "length {len}");
        }
    }
    // Packed and wide slots both came: the span of one instant, two kinds and 4,096 ports is
    // 46 bits; that of any offset and a priority, 64.
    assert!(paths[1] > 0 && paths[2] > 0, "{paths:?}");
    // One key, or none: nothing to sort.
    let one = (wheel_key(5, Event::Sample.key()), Event::Sample);
    assert_eq!(sort::layout(&[one, one, one]), sort::Layout::Equal);
    assert_eq!(sort::layout(&[]), sort::Layout::Equal);
}

/// Slots of many sizes, one or several chunks, pushed in key order at one instant or at random
/// offsets, each with entries of lower keys pushed late: every pop as the reference says.
#[test]
fn slots_of_every_size_pop_in_order_with_their_late_entries() {
    let mut c = Checked::new();
    let mut rng = crate::rng::Rng::new(11);
    let sizes = [3usize, 20, 60, 5, 100, 10, 30, 2, 70, 70, 16, 17, 1, 8, 9];
    let mut port = 1_000_000;
    for (k, &n) in sizes.iter().enumerate() {
        let slot = 2 + k as u64 * 3;
        let base = slot * SLOT_PS;
        // One instant (in key order) or random offsets.
        let one_instant = k % 3 != 1;
        for _ in 0..n {
            let off = if one_instant { 100 } else { rng.below(SLOT_PS) };
            c.push(base + off, port);
            port += 1;
        }
        for late in 0..1 + rng.below(4) as u32 {
            let off = if one_instant { 100 } else { rng.below(SLOT_PS) };
            c.push(base + off, 1000 * k as u32 + late);
        }
    }
    c.pop_all();
}

#[test]
fn keys_name_the_kind_and_entity_not_the_packet_or_generation() {
    let arrive = |port, pkt| Event::WireArrive { port, pkt }.key();
    assert_eq!(arrive(7, 1), arrive(7, 900), "a packet's pool index is not canonical");
    assert!(arrive(7, 1) < arrive(8, 0));
    let qp_timer = |qp, side, gen| Event::QpTimer { qp, side, gen }.key();
    assert_eq!(qp_timer(3, 0, 1), qp_timer(3, 0, 2));
    // The two endpoints of a queue pair are two timers, in queue-pair order first.
    assert!(qp_timer(3, 0, 9) < qp_timer(3, 1, 0) && qp_timer(3, 1, 0) < qp_timer(4, 0, 0));
    assert!(
        Event::PauseExpire { port: 1, prio: 7, gen: 0 }.key() < Event::PauseExpire { port: 2, prio: 0, gen: 0 }.key()
    );
    // Kinds apart, whatever the entity: every end of transmission before any arrival, the
    // run's end after everything.
    assert!(Event::TxDone { port: u32::MAX }.key() < arrive(0, 0));
    assert!(Event::Sample.key() < Event::StopRun.key());
    assert!(Event::FlowStart { flow: u32::MAX }.key() < Event::Sample.key());
    // The largest key fits the wheel's field.
    let max = Event::StepReady { io: u32::MAX, step: u16::MAX }.key().max(Event::StopRun.key());
    assert!(max < 1 << key::KEY_BITS);
}

/// Long slots at many instants, as the k = 32 fat tree fills them (entries at offsets all over
/// the slot, a few at one instant): sorted by distribution on the offset's high bits; crowded
/// into two instants, the insertion runs out of its budget, the slot is left as it was and
/// the packed sort orders it. Either way: sorted by key, the same entries.
#[test]
fn slots_at_many_instants_sort_by_their_offsets_or_fall_back_when_crowded() {
    let mut rng = crate::rng::Rng::new(11);
    let mut buf = sort::SortBuf::default();
    let mut outcomes = [0usize; 2];
    for len in [32usize, 44, 63, 64, 100, 257, 1000] {
        for round in 0..12u64 {
            // Offsets anywhere in the slot (every bit), in its upper half, or two instants.
            let (offsets, base) = [(SLOT_PS, 0), (SLOT_PS / 2, SLOT_PS / 2), (2, 700)][round as usize % 3];
            let v: Vec<Entry> = (0..len)
                .map(|i| {
                    let port = rng.below(1 << 16) as u32;
                    let ev = if rng.below(2) == 0 {
                        Event::TxDone { port }
                    } else {
                        Event::WireArrive { port, pkt: i as u32 }
                    };
                    (wheel_key(base + rng.below(offsets), ev.key()), ev)
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_by_key(|e| (e.0, format!("{:?}", e.1)));
            let differ = sort::differing_bits(&v);
            assert!(differ >> LOW_BITS != 0, "length {len}: the offsets differ");
            let mut w = v.clone();
            let sorted = sort::sort_by_offset(&mut w, &mut buf, differ);
            outcomes[sorted as usize] += 1;
            if !sorted {
                assert_eq!(w, v, "length {len}: a slot left to the packed sort is untouched");
            }
            let mut w = v.clone();
            sort::sort_ascending(&mut w, &mut buf);
            assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "length {len}: keys out of order");
            w.sort_by_key(|e| (e.0, format!("{:?}", e.1)));
            assert_eq!(w, expected, "length {len}");
        }
    }
    // Spread slots were sorted by their offsets, crowded ones fell back.
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}
