//! A run that stops when its flows are done ([`crate::SimConfig::stop_when_done`]) on several
//! threads, exactly as on one.
//!
//! **One thread.** Each sized flow's completion counts down; the last pushes `StopRun` at its
//! completion time (`at`, or now when that is earlier); the events of that instant still run,
//! none after, and the results are taken at that instant (`Sim::run_until`).
//!
//! **Why a part cannot stop by itself.** A part knows its own completions only; the others'
//! reach it at a window's end, and by then it may have run events past the stop instant, which
//! can be anywhere in the window (and later still, for a delivery draining into host memory).
//! Undoing them would need a copy of the state at every window.
//!
//! **Two passes.** The first runs with each part noting its completions ([`Done`]: when, the
//! canonical key of the event that made it, and its completion time) instead of counting them
//! down; the parts sum their counts with their earliest pending times before each window and
//! all end together once every flow has completed. The last completion in the one-thread order
//! (by time, then the key of its event, then its place among the part's notes of that event)
//! gives the stop instant `T`, as one thread would push it. The second pass runs the same
//! simulation with `T` as its end time and no counting: every part runs its events up to and
//! including `T`, none after, and the results are taken at `T`; `StopRun` itself, one event of
//! the one-thread run, is added to the count. A run whose flows do not all complete by the end
//! time is the first pass alone, run to the end.
//!
//! **The key of a completion.** Every completion is made by a frame arriving at a host port,
//! so its key is that arrival's: an open-loop flow's last byte, a TCP or iWARP flow's last
//! acknowledgement or byte in order, an RDMA queue pair's last ACK or READ response (its
//! requester's timer only resends; the completion comes with the ACK or response that
//! follows). An arrival's key names the port that sent the frame, and no port sends two frames
//! that arrive at one instant (a frame takes time to serialize), so no two arrivals share a key
//! at one instant: the order of equal keys (which the queue leaves to chance: `event/key.rs`)
//! never decides which completion is last. The completions one arrival makes keep their order
//! in its part's notes (`seq`).

use super::PartRt;
use crate::event::{Event, Key};
use crate::observer::{NoObserver, Observer};
use crate::sim::{Sim, Simulation};
use crate::time::Time;

/// A completion noted by a part in the first pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Done {
    /// When the event that made it ran.
    pub now: Time,
    /// That event's canonical key.
    pub key: Key,
    /// Its place among the part's notes of that instant and key.
    pub seq: u32,
    /// The flow's completion time.
    pub at: Time,
}

/// What the parts of a pass do about `stop_when_done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Note the completions, and end together once every sized flow has completed.
    Count,
    /// End at this instant, without counting.
    At(Time),
}

impl<O: Observer> Sim<'_, O> {
    /// Note a completion made by an arrival at host port `port` (see the module documentation).
    pub(in crate::sim) fn note_done(&mut self, at: Time, port: u32) {
        let (now, peer) = (self.now, self.ports[port as usize].peer);
        // An arrival is named by the port that sent the frame.
        let key = Event::WireArrive { port: peer, pkt: 0 }.key();
        let part: &mut PartRt = self.part.as_deref_mut().expect("a part");
        let seq = match part.done.last() {
            Some(d) if d.now == now && d.key == key => d.seq + 1,
            _ => 0,
        };
        part.done.push(Done { now, key, seq, at });
    }
}

/// How a part of the pass with `stop` starts: with its end at the stop instant and without
/// counting, or counting (the number of sized flows to wait for, the build's count).
pub(super) fn prepare(engine: &mut Sim<'_, NoObserver>, stop: Option<Stop>) -> Option<u64> {
    match stop {
        Some(Stop::At(t)) => {
            engine.end = engine.end.min(t);
            engine.open_flows = u64::MAX;
            None
        }
        Some(Stop::Count) | None => (engine.open_flows != u64::MAX).then_some(engine.open_flows),
    }
}

/// After a counting pass: the stop instant, when every flow completed, as one thread pushes it
/// (`at` of the last completion in the one-thread order, or its time when that is later).
pub(super) fn stop_instant(sims: &mut [Simulation<'_, NoObserver>], k: u64) -> Option<Time> {
    let notes: Vec<Done> =
        sims.iter_mut().flat_map(|s| s.engine().part.as_deref().map(|p| p.done.clone()).unwrap_or_default()).collect();
    last_of(&notes, k)
}

/// The stop instant of the parts' `notes` when they hold all `k` completions: the last
/// completion's in the one-thread order ([`Done`]'s order), its `at` or its time if later.
pub(super) fn last_of(notes: &[Done], k: u64) -> Option<Time> {
    if (notes.len() as u64) < k {
        return None;
    }
    notes.iter().max().map(|d| d.at.max(d.now))
}
