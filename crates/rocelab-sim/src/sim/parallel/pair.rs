//! Two parts without a barrier: each runs ahead as far as the other's progress allows, read as
//! it goes, instead of both stopping at the end of every window.
//!
//! **Why.** With one barrier a window ([`super::run_part`]) a window lasts as long as its slower
//! part, and the other waits out the difference: on the k = 32 fat tree (10 ms of web search,
//! 198,297 windows of 50.42 ns, about 870 µs of work each) the two parts waited 7.6 and 11.0 s
//! of 170 s busy, nearly all of it the window-to-window spread of their work (the profile's
//! "the spread explains" lines), not an imbalance of the whole run. Without the barrier a part
//! waits only when it has run a lookahead past the other's earliest event, so a window's spread
//! is made up in the next ones. Measured (docs/benchmarks.md, "Two parts without a barrier"):
//! the waits of the k = 32 runs fell by a third to two fifths and those of the line-rate 320-host
//! fat tree by three quarters; what is left is the load moving from one part to the other over
//! many windows, more than a lookahead's slack makes up.
//!
//! **The bound.** Let `L` be the cut's lookahead (no frame sent at `t` arrives in the other
//! part before `t + L`). Part B's events from now on are its pending events (earliest `N_B`),
//! the messages on their way to it, and what A sends it from now on, which arrives at least `L`
//! after A's own events from now on (earliest `N_A`, A's pending with what it has taken in).
//! So the earliest event B can still run is at least `min(N_B*, N_A + L)`, `N_B*` the earliest
//! of B's pending and of A's messages B has not taken in, and nothing B sends reaches A before
//! that plus `L`: A runs every event before `min(N_B*, N_A + L) + L`. When both parts have
//! nothing for a while, the bound moves past the gap at once (a barrier's window does the
//! same, from the earliest pending event anywhere).
//!
//! **What each part publishes.** After taking in the other's messages and after each step, a
//! part stores its earliest pending event (`next`) and then how many of the other's batches it
//! has taken in (`taken`, release); the reader loads `taken` (acquire) and then `next`, so the
//! `next` it reads counts at least the batches it reads as taken. The batches it sent and the
//! other has not taken in are its own knowledge (`in_flight`), so `N_B*` is exact as of what it
//! reads. A part loads the other's publication before it takes in the other's batches: the
//! batches posted before that publication are taken in, and those posted after come from the
//! other's events from then on, which the bound counts.
//!
//! **Steps.** A part runs up to the bound in steps of a quarter lookahead of simulated time
//! ([`STEPS_A_LOOKAHEAD`]; a step of fewer than [`MIN_EVENTS_A_STEP`] events goes on to the
//! bound) and publishes after each, so that the other's bound moves while it runs. The events of one instant all run in one step (a step ends after an instant), as in a
//! window, and a message taken in is later than every event run (it arrives after the bound),
//! so the parts run their events in the order of one thread, and the results are the same.
//!
//! **The end.** A part stops when neither it nor the other has an event left before the end
//! time (by the bound); both then meet at a barrier and take in what is still on its way (a
//! frame on its way at the end is in the network, counted in the results).
//!
//! Two parts only: with more, a part's bound would need the messages on their way between two
//! other parts, which neither publishes consistently with the third's reading (they run with
//! one barrier a window). Not for the counting pass of a run that stops when its flows are
//! done, whose parts end together at a window (`stop`).

use super::profile::{thread_cpu_seconds, Clock};
use super::sync::{Backoff, Line, SpinBarrier};
use super::{start_part, Inputs, Message, PartProfile};
use crate::error::SimError;
use crate::observer::NoObserver;
use crate::sim::{Sim, Simulation};
use crate::time::Time;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Steps a part runs in a lookahead of simulated time, publishing after each.
pub(super) const STEPS_A_LOOKAHEAD: u64 = 4;

/// The fewest events a step that stops short of the bound runs: a step with fewer goes on to
/// the bound. Each step costs a publication, a look at the other's and a batch of messages
/// (a few hundred nanoseconds, and the cache lines the other part reads); a fabric of short
/// cables (nanoseconds of lookahead) holds a handful of events a quarter lookahead, where
/// publishing four times as often as a window would cost more than the waits it saves.
pub(super) const MIN_EVENTS_A_STEP: u64 = 64;

/// The messages one part sent the other and the other has not taken in yet, and the number of
/// the last batch among them (batches are numbered from 1 by their sender).
#[derive(Default)]
struct Slot {
    messages: Vec<Message>,
    through: u64,
}

/// What the two parts share, each field by part.
pub(super) struct PairShared<'a> {
    /// `slots[p]`: the messages the other part sent part `p`.
    slots: [Line<Mutex<Slot>>; 2],
    /// `posted[p]`: the last batch posted in `slots[p]`, read before locking it.
    posted: [Line<AtomicU64>; 2],
    /// `next[p]`: part `p`'s earliest pending event (`Time::MAX`: none) as it last published.
    next: [Line<AtomicU64>; 2],
    /// `taken[p]`: the other part's batches part `p` had taken in when it published `next[p]`.
    taken: [Line<AtomicU64>; 2],
    /// `reached[2 · p]`: the time up to which part `p` has run its events; `+ 1`: its events
    /// so far (for a [`super::Watch`]).
    reached: &'a [Line<AtomicU64>],
    end: SpinBarrier,
    lookahead: Time,
    /// The pass's end at a stop instant, if any (never the counting pass: the module
    /// documentation).
    stop: Option<super::Stop>,
}

impl<'a> PairShared<'a> {
    pub fn new(lookahead: Time, reached: &'a [Line<AtomicU64>], stop: Option<super::Stop>) -> Self {
        let line = || Line(AtomicU64::new(0));
        PairShared {
            slots: [Line(Mutex::new(Slot::default())), Line(Mutex::new(Slot::default()))],
            posted: [line(), line()],
            next: [line(), line()],
            taken: [line(), line()],
            reached,
            end: SpinBarrier::new(2),
            lookahead,
            stop,
        }
    }

    /// Part `me`'s earliest pending event and the other's batches it has taken in.
    fn publish(&self, me: usize, next: Time, taken: u64) {
        self.next[me].store(next, Ordering::Relaxed);
        self.taken[me].store(taken, Ordering::Release);
    }

    /// The other part's publication: its batches taken in, then its earliest pending event.
    fn read(&self, other: usize) -> (u64, Time) {
        let taken = self.taken[other].load(Ordering::Acquire);
        (taken, self.next[other].load(Ordering::Relaxed))
    }
}

/// The earliest event the other part can still run by what this one knows (the module
/// documentation): its published earliest pending event, this part's batches it has not taken
/// in, and what this part sends it, a lookahead after this part's own earliest event.
fn other_bound(published_next: Time, in_flight: Time, mine: Time, lookahead: Time) -> Time {
    published_next.min(in_flight).min(mine.saturating_add(lookahead))
}

/// The messages in `slot` taken into `engine`, in the sender's order (as the barrier's windows
/// take them in), through `delivered` (whose capacity the slot keeps); returns the number of
/// the last batch among them.
fn take_in(slot: &Mutex<Slot>, engine: &mut Sim<'_, NoObserver>, delivered: &mut Vec<Message>) -> u64 {
    let through = {
        let mut slot = slot.lock().expect("slot");
        std::mem::swap(delivered, &mut slot.messages);
        slot.through
    };
    for m in delivered.drain(..) {
        engine.receive(m);
    }
    through
}

/// The thread of part `me` of two (see the module documentation): as [`super::run_part`], with
/// the steps run (over both parts, for the profile) in place of the windows.
pub(super) fn run_part<'a>(
    inputs: Inputs<'a, '_>,
    me: u32,
    shared: &PairShared<'_>,
) -> Result<(Simulation<'a, NoObserver>, PartProfile, u64), SimError> {
    let mut started = start_part(inputs, me, shared.stop)?;
    let mut profile = std::mem::take(&mut started.profile);
    let engine = started.sim.engine();
    let (me, end, lookahead) = (me as usize, engine.end, shared.lookahead);
    let other = 1 - me;
    let step = (lookahead / STEPS_A_LOOKAHEAD).max(1);
    let mut clock = Clock::default();
    let mut backoff = Backoff::new(2);
    let (mut taken, mut sent, mut steps) = (0u64, 0u64, 0u64);
    // My batches the other has not taken in, by number, with their earliest arrival.
    let mut in_flight: VecDeque<(u64, Time)> = VecDeque::new();
    let mut delivered: Vec<Message> = Vec::new();
    shared.publish(me, engine.queue.peek_time().unwrap_or(Time::MAX), 0);
    let mut working = Instant::now();
    // When this part began to wait, wall and CPU, while it waits.
    let mut idle: Option<(Instant, Option<f64>)> = None;
    loop {
        let (their_taken, their_next) = shared.read(other);
        if shared.posted[me].load(Ordering::Acquire) > taken {
            let delivering = Instant::now();
            taken = take_in(&shared.slots[me], engine, &mut delivered);
            profile.deliver_seconds += delivering.elapsed().as_secs_f64();
        }
        let mine = engine.queue.peek_time().unwrap_or(Time::MAX);
        shared.publish(me, mine, taken);
        while in_flight.front().is_some_and(|&(batch, _)| batch <= their_taken) {
            in_flight.pop_front();
        }
        let unread = in_flight.iter().map(|&(_, t)| t).min().unwrap_or(Time::MAX);
        let theirs = other_bound(their_next, unread, mine, lookahead);
        let done = mine.min(theirs) > end;
        let limit = (theirs.saturating_add(lookahead) - 1).min(end);
        if !done && mine > limit {
            if idle.is_none() {
                let now = Instant::now();
                clock.busy += now - working;
                idle = Some((now, thread_cpu_seconds()));
            }
            backoff.snooze();
            continue;
        }
        if let Some(since) = idle.take() {
            working = clock.waited(since);
            backoff.reset();
        }
        if done {
            break;
        }
        steps += 1;
        let (before, mut reach) = (engine.events, limit.min(mine.saturating_add(step)));
        engine.run_until(reach);
        if engine.events - before < MIN_EVENTS_A_STEP && reach < limit {
            // Too little to publish alone: on to the bound.
            reach = limit;
            engine.run_until(reach);
        }
        let posting = Instant::now();
        engine.pack_outbox();
        let batch = &mut engine.part.as_deref_mut().expect("a part").outbox[other];
        if !batch.is_empty() {
            profile.messages_sent += batch.len() as u64;
            // A message without an event (a TCP stream's, an IO slot's note) runs nothing.
            let earliest = batch.iter().filter(|m| m.event.is_some()).map(|m| m.time).min().unwrap_or(Time::MAX);
            sent += 1;
            {
                let mut slot = shared.slots[other].lock().expect("slot");
                if slot.messages.is_empty() {
                    std::mem::swap(&mut slot.messages, batch);
                } else {
                    slot.messages.append(batch);
                }
                slot.through = sent;
            }
            shared.posted[other].store(sent, Ordering::Release);
            in_flight.push_back((sent, earliest));
        }
        shared.publish(me, engine.queue.peek_time().unwrap_or(Time::MAX), taken);
        shared.reached[2 * me].store(reach, Ordering::Relaxed);
        shared.reached[2 * me + 1].store(engine.events, Ordering::Relaxed);
        profile.post_seconds += posting.elapsed().as_secs_f64();
    }
    clock.busy += working.elapsed();
    // Both are done: what is on its way to this part is taken in.
    clock.wait(|| shared.end.wait());
    take_in(&shared.slots[me], engine, &mut delivered);
    started.finish(&mut profile, clock);
    // A step's busy time says nothing of the other part's (no barrier pairs them).
    profile.window_busy_ns.clear();
    profile.window_busy_cpu_ns.clear();
    Ok((started.sim, profile, steps))
}

#[cfg(test)]
mod tests {
    use super::super::{run_threads_profiled, tests::leaf_spine_fabric};
    use super::*;
    use crate::bench::results_digest;
    use crate::sim::SimConfig;
    use crate::time::{MS, NS, US};
    use crate::topology::FabricDefaults;
    use crate::traffic::{FlowClass, FlowSpec, Traffic};

    /// Each host of the four leaves sends 100 kB to the leaf after its own, the flows of the
    /// hosts of odd index starting at `later` (500 ns spine links: the cut's lookahead).
    fn flows_at(later: Time) -> (crate::topology::Fabric, Traffic) {
        let f = leaf_spine_fabric(&FabricDefaults::lossless(3, 100_000));
        let mut t = Traffic::new();
        for (i, &h) in f.hosts.iter().enumerate() {
            let mut flow = FlowSpec::sized(h, f.hosts[(i + 4) % 16], FlowClass::roce(3, 26), 100_000);
            flow.start_ps = if i % 2 == 1 { later } else { 0 };
            t.push(flow);
        }
        (f, t)
    }

    #[test]
    fn two_parts_run_without_a_barrier_and_more_with_one() {
        let (f, t) = flows_at(0);
        let config = SimConfig::new(1, 100 * US);
        let one = crate::run(&f.spec, &t, &config).expect("one thread");
        for (threads, paired) in [(2, true), (3, false)] {
            let (r, profile) = run_threads_profiled(&f.spec, &t, &config, threads).expect("threads");
            let profile = profile.expect("a profile");
            assert_eq!(profile.paired, paired, "{threads} threads");
            assert_eq!(results_digest(&r), results_digest(&one), "{threads} threads");
            assert!(profile.parts.iter().all(|p| p.messages_sent > 0), "{profile:?}");
        }
        // A run that stops when its flows are done counts on a barrier's windows, then runs to
        // the stop instant as a pair (the profile is the second pass's).
        let stop = SimConfig { stop_when_done: true, ..config };
        let (r, profile) = run_threads_profiled(&f.spec, &t, &stop, 2).expect("two threads");
        assert!(profile.expect("a profile").paired);
        assert_eq!(results_digest(&r), results_digest(&crate::run(&f.spec, &t, &stop).expect("one thread")));
    }

    #[test]
    fn a_long_quiet_gap_is_crossed_at_once_not_a_lookahead_at_a_time() {
        // Half the flows start 20 ms after the others, which are done within 100 µs: crossing
        // the quiet 20 ms a lookahead (500 ns) at a time would take 40,000 steps a part.
        let (f, t) = flows_at(20 * MS);
        let config = SimConfig::new(1, 21 * MS);
        let (r, profile) = run_threads_profiled(&f.spec, &t, &config, 2).expect("two threads");
        let profile = profile.expect("a profile");
        assert!(profile.paired && profile.lookahead >= 500 * NS, "{profile:?}");
        let (_, busy) = run_threads_profiled(&f.spec, &flows_at(0).1, &config, 2).expect("two threads");
        // The steps of the flows themselves, twice over, and a few to cross: about as many as
        // with every flow at once, far from the 80,000 a creep would take.
        let busy_steps = busy.expect("a profile").windows;
        assert!(profile.windows <= 2 * busy_steps + 100, "{} steps against {busy_steps}", profile.windows);
        assert!(profile.windows < 10_000, "{} steps", profile.windows);
        assert_eq!(results_digest(&r), results_digest(&crate::run(&f.spec, &t, &config).expect("one thread")));
    }

    #[test]
    fn the_bound_is_the_earliest_of_what_the_other_can_still_run() {
        let l = 50;
        // Both busy: the other's published event bounds it.
        assert_eq!(other_bound(1_000, Time::MAX, 1_020, l), 1_000);
        // A batch it has not taken in is earlier still.
        assert_eq!(other_bound(1_000, 990, 1_020, l), 990);
        // The other has nothing pending: what this part sends it, a lookahead after this part's
        // earliest event, is the earliest it can run.
        assert_eq!(other_bound(Time::MAX, Time::MAX, 1_020, l), 1_070);
        // Neither has anything: no bound, and no overflow.
        assert_eq!(other_bound(Time::MAX, Time::MAX, Time::MAX, l), Time::MAX);
    }
}
