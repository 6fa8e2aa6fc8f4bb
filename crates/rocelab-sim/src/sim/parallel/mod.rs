//! Several threads on one run: the fabric cut into parts ([`partition`]), each part simulated
//! by its own thread, synchronized conservatively in windows of the cut's lookahead, with the
//! same results as one thread (the same [`crate::bench::results_digest`]).
//!
//! **Why the results do not depend on the number of threads.** The events of one instant pop
//! by a key of their own ([`crate::event::Key`]), not by push order, so a part pops its events
//! in the order the whole run gives them; every random draw that reaches results comes from a
//! stream of its own entity (ECN marking: one per port); and what one part does reaches
//! another only through a link, a lookahead later, in a message delivered before that part
//! runs the window of its arrival.
//!
//! **Windows.** Each thread runs its events up to a lookahead past the earliest event the
//! other parts can run (a frame sent at `t` arrives at `t + lookahead` or later, in a later
//! window), posts the frames and pause frames that cross to their part with their earliest
//! time and its own next event, and waits at a barrier: one barrier a window (see
//! [`run_part`]), each part's messages in a slot of their own (no lock is contended). Two
//! parts (two threads) meet at no barrier: each runs up to a lookahead past the earliest event
//! the other can still run, which it reads as the other goes ([`pair`]), so that the spread of
//! the parts' work from one window to the next is made up in the next ones instead of waited
//! out at every window's end.
//!
//! **State.** Each thread builds its own engine over the whole fabric and runs only the events
//! of the nodes of its part: the initial events of other parts' nodes are dropped, and the
//! arrivals at other parts' ports are sent rather than queued (at the window's end the packet
//! is copied into the message, and out of the sender's pool). At the end the state of each node is taken from its
//! part ([`merge`]): ports, switches and NICs from their node's part (a port's cold state, its
//! counters and pause states, stays in its part, where the results read it, and so do its PFC
//! timers, which reach no result), a flow's state from its source's and what it counts
//! summed over the parts (each counts its own events), each endpoint of an RDMA queue pair from
//! its host's part (its handlers touch only its own side's state: see the `sim::rdma` module),
//! a perftest test's record from its client's.
//! What no part writes is built once, before the threads start, and shared (`build::Shared`):
//! the checks of the inputs, the ports' wiring, the routing tables and the hosts' TCP settings;
//! on the k = 32 fat tree these were most of each part's build. A part keeps the cold state
//! ([`super::PortCold`]), PFC timers and ECN draws of its own ports only (no other part's
//! events touch them) and the buffer accounting (MMU slots, egress-lossy queues) of its own
//! switches only, samples its own switches' ports, and its packet pool holds the frames its own
//! switches buffer and its ports send. It holds the flows and queue pairs of its own hosts only
//! (at either end: `sim/placed.rs`, by global flow index through a map of 4 bytes a flow) where
//! they are at most a quarter of the flows (about eight threads or more; fewer hold every flow,
//! the map's load costing more than it saves), so that a flow's 1.4 KiB is held by the one or
//! two parts of its ends; a frame dropped at a switch whose part holds neither end is counted
//! there by flow (`Sim::transit_drops`) and added to its flow's count by the merge. Each part's
//! engine still holds its own copy of the rest of
//! the state that the run writes, for every node of the fabric (the ports' frame path state and
//! places, and the switches and NICs: 38 MiB on the k = 32 fat tree, 303 MiB on k = 64), since
//! that state is indexed by global port and node id and a part reads the ports on the far side
//! of its cut (an arrival names the sending port): memory grows with the threads by one such
//! copy each, which the up-front estimate counts (`RunEstimate`, with the most flows a part
//! holds). A part that held only its own ports' frame path state, by part-local ids, would take
//! k = 64 to 64 threads within this machine's 24 GiB (a design note, not done).
//!
//! **TCP.** A connection's handlers at one host touch only that host's end; a segment's header
//! crosses with its frame, and a message written on a stream crosses to its reader's part as it
//! is written (`sim/tcp/parts.rs`, which also merges the ends).
//!
//! **Stopping when the flows are done** takes two passes: one to find the instant, one to run
//! to it ([`stop`]).
//!
//! **Storage.** Clones, storage owners and cores live at their nodes; an IO slot has a copy at
//! each end of its session, kept by messages. Over RDMA a READ gate lives at its requester, a
//! RoCE queue pair's list of messages in flight at their receiver (each entry sent there as it
//! is posted), an SMB Direct sender's credits at the sender, granted back by message
//! (`sim/storage/parts.rs`).
//!
//! **RDMA queue pairs and perftest.** Each endpoint of a queue pair (its transport, its
//! congestion control or notification point, its timer) lives at its host; a perftest test's
//! record at its client (`sim/rdma/mod.rs`).
//!
//! **What runs on one thread only** (refused with a message naming it): SMB Direct sessions
//! whose send credits may run out (a grant is made at once at the receiver, with no frame, so
//! a sender in another part would learn of it a window late), the ns-3 draws and push order of
//! `hpcc-compat` (one global stream and order by nature), and observers (pcap, traces: they
//! need one total order of frames).

#[cfg(test)]
mod default_tests;
mod merge;
mod merge_flows;
mod pair;
mod partition;
mod profile;
mod stop;
mod sync;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_flows;
#[cfg(test)]
mod tests_stop;
#[cfg(test)]
mod tests_stop_rdma;
#[cfg(test)]
mod tests_storage;
#[cfg(test)]
mod tests_storage_rdma;
#[cfg(test)]
mod tests_tcp;

pub use partition::{flow_work, partition, partition_by_work, FlowWork, Partition};
pub use profile::{PartProfile, ThreadUsage, ThreadsProfile, WindowStats};
use stop::{Done, Stop};

use super::build::{Shared as BuildShared, MAX_END_TIME};
use super::{EventOrder, Sim, SimConfig, Simulation};
use crate::error::SimError;
use crate::event::Event;
use crate::observer::NoObserver;
use crate::packet::Packet;
use crate::spec::NetworkSpec;
use crate::stats::Results;
use crate::time::Time;
use crate::traffic::Traffic;
use profile::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use sync::{Line, SpinBarrier};

/// A frame or pause frame crossing to another part: its arrival event and, for a data frame,
/// the packet (and a TCP segment's header beside it), moved in at the end of the window that
/// sent it ([`Sim::pack_outbox`]; until then the event names it in the sender's pool); or,
/// without an event, a message written on a TCP stream for its reader in that part
/// (`sim/tcp/parts.rs`).
#[derive(Clone, Debug)]
pub(crate) struct Message {
    pub time: Time,
    pub event: Option<Event>,
    pub packet: Option<Packet>,
    pub tcp: Option<Box<crate::sim::tcp::parts::TcpCargo>>,
}

/// A part's view of the cut, in its engine.
pub(crate) struct PartRt {
    /// This part.
    pub me: u32,
    /// The part of each node.
    pub part_of: Vec<u32>,
    /// By port: its peer is in another part.
    pub remote_peer: Vec<bool>,
    /// Arrivals at other parts sent during the current window, by the part each is for.
    pub outbox: Vec<Vec<Message>>,
    /// The sized flows' completions noted in a run that stops when they are done (`stop`).
    pub done: Vec<Done>,
}

impl<O: crate::observer::Observer> Sim<'_, O> {
    /// Schedule `event`, the arrival at the peer of `port` of what `port` sends, at `time`: in
    /// this queue, or, when the peer is in another part, in a message to it. A data frame's
    /// packet stays in this pool until the window's end, when [`Sim::pack_outbox`] moves it
    /// into the message.
    #[inline(always)]
    pub(crate) fn push_arrival(&mut self, port: u32, time: Time, event: Event) {
        if let Some(part) = self.part.as_deref_mut() {
            if part.remote_peer[port as usize] {
                let peer_node = self.ports[self.ports[port as usize].peer as usize].node;
                let to = part.part_of[peer_node as usize] as usize;
                part.outbox[to].push(Message { time, event: Some(event), packet: None, tcp: None });
                return;
            }
        }
        self.queue.push(time, event);
    }

    /// Make this engine part `me` of `cut`: the ports whose peers are in other parts found, and
    /// of the initial events, only those it runs kept.
    fn join_part(&mut self, cut: &Partition, me: u32, config: &SimConfig) {
        let remote_peer = self
            .ports
            .iter()
            .map(|p| cut.part_of[self.ports[p.peer as usize].node as usize] != cut.part_of[p.node as usize])
            .collect();
        let part = PartRt {
            me,
            part_of: cut.part_of.clone(),
            remote_peer,
            outbox: vec![Vec::new(); cut.parts],
            done: Vec::new(),
        };
        let mut initial = Vec::new();
        while let Some((t, ev)) = self.queue.pop() {
            if self.owns_initial(&part, ev) {
                initial.push((t, ev));
            }
        }
        self.queue = super::build::fresh_queue(config);
        for (t, ev) in initial {
            self.queue.push(t, ev);
        }
        self.part = Some(Box::new(part));
    }

    /// The data frames sent to other parts this window, moved out of this pool into their
    /// messages (with a TCP segment's header), their slots freed. Done once a window for the
    /// whole batch, so that each packet is fetched a few messages before its copy: a frame's
    /// packet is cold when its transmission starts (nothing on a switch reads it until the
    /// arrival), and copied there, each copy waited for its packet (on the 320-host fat tree
    /// the copy was a tenth of a part's time on two threads). The ids freed at the window's end
    /// rather than at each frame's start reach no result (the packets' ids do not).
    fn pack_outbox(&mut self) {
        /// How many messages ahead of its copy a packet is fetched.
        const FETCH_AHEAD: usize = 8;
        let Some(part) = self.part.as_deref_mut() else { return };
        let mut outbox = std::mem::take(&mut part.outbox);
        for batch in &mut outbox {
            for i in 0..batch.len() {
                if let Some(Message { event: Some(Event::WireArrive { pkt, .. }), .. }) = batch.get(i + FETCH_AHEAD) {
                    self.pool.prefetch(*pkt);
                }
                let m = &mut batch[i];
                if let (Some(Event::WireArrive { pkt, .. }), None) = (m.event, &m.packet) {
                    m.packet = Some(*self.pool.get(pkt));
                    m.tcp = self.tcp_cargo_out(pkt);
                    self.pool.free(pkt);
                }
            }
        }
        self.part.as_deref_mut().expect("a part").outbox = outbox;
    }

    /// A message from another part: its packet into this pool (a TCP segment's header beside
    /// it), its event into this queue; a message without an event is a TCP stream's.
    fn receive(&mut self, m: Message) {
        let (event, id) = match (m.event, m.packet) {
            (Some(Event::WireArrive { port, .. }), Some(p)) => {
                let pkt = self.pool.alloc(p);
                (Some(Event::WireArrive { port, pkt }), Some(pkt))
            }
            (e, _) => (e, None),
        };
        if let Some(cargo) = m.tcp {
            self.tcp_cargo_in(id, *cargo);
        }
        if let Some(event) = event {
            self.queue.push(m.time, event);
        }
    }

    /// Whether this part runs `event`, an event of the initial queue: a flow's start at its
    /// source's part; sampling everywhere (each part samples its own ports).
    fn owns_initial(&self, part: &PartRt, event: Event) -> bool {
        match event {
            Event::FlowStart { flow } => {
                self.flows.get(flow as usize).is_some_and(|f| part.part_of[f.spec.src] == part.me)
            }
            // A storage job clone starts at its initiator.
            Event::CloneStart { clone } => {
                let session = self.storage.clones[clone as usize].session as usize;
                part.part_of[self.storage.sessions[session].initiator as usize] == part.me
            }
            _ => true,
        }
    }
}

/// The cut of a run of `traffic` over `spec` into `parts`, balanced by the work its flows bring
/// each part ([`flow_work`]).
fn cut(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig, parts: usize) -> Partition {
    partition_by_work(spec, parts, &flow_work(spec, traffic, config.end_time_ps))
}

/// What a run on several threads cannot do yet, or `None`.
fn unsupported(traffic: &Traffic, config: &SimConfig) -> Option<&'static str> {
    if crate::sim::storage::parts::credits_may_run_out(&traffic.storage) {
        // A credit returns at once, with no frame to cross with (`sim/storage/parts.rs`).
        return Some("SMB Direct sessions whose send credits may run out (fewer credits than SENDs in flight)");
    }
    if config.event_order == EventOrder::PushOrder || config.ecn_draws != super::EcnDraws::Rocelab {
        return Some("the ns-3 simulator's ECN draws and event order (hpcc-compat's ecn_random: hpcc)");
    }
    None
}

/// Why `cut` of this run cannot run on its threads (the feature or the link that stops it), or
/// `None`.
fn refusal(cut: &Partition, traffic: &Traffic, config: &SimConfig) -> Option<String> {
    if let Some(what) = unsupported(traffic, config) {
        return Some(what.to_string());
    }
    (cut.lookahead == Some(0)).then(|| "a link between two parts of the fabric that has no delay".to_string())
}

/// How many threads a run takes when none is asked for, and why only one when it cannot use
/// more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultThreads {
    /// Threads to run on.
    pub threads: usize,
    /// What keeps a run that could have more threads on one (the feature named), or `None`.
    pub why_one: Option<String>,
}

/// The threads a run of `traffic` over `spec` takes by default: every core the process may use
/// ([`std::thread::available_parallelism`]), no more than the parts the fabric is cut into;
/// one, with the reason, when what the run simulates cannot run on threads yet. The results are
/// the same on any number (the module documentation), so the default changes the wall time only.
pub fn default_threads(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig) -> DefaultThreads {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    default_threads_on(spec, traffic, config, cores)
}

/// [`default_threads`] on a machine of `cores` cores.
pub fn default_threads_on(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig, cores: usize) -> DefaultThreads {
    if cores <= 1 {
        return DefaultThreads { threads: 1, why_one: None };
    }
    let cut = cut(spec, traffic, config, cores);
    if cut.parts <= 1 {
        return DefaultThreads { threads: 1, why_one: None };
    }
    match refusal(&cut, traffic, config) {
        Some(why) => DefaultThreads { threads: 1, why_one: Some(why) },
        None if frames_a_window(spec, cut.lookahead) < MIN_FRAMES_A_WINDOW => {
            DefaultThreads { threads: 1, why_one: None }
        }
        None => DefaultThreads { threads: cut.parts, why_one: None },
    }
}

/// The least work a window must be able to hold for the default to take several threads, in
/// full-size frames ([`frames_a_window`]). Every window costs a barrier (a few microseconds, and
/// a wake-up when a thread sleeps) and the messages of the frames that cross; a fabric of a few
/// switches with metres of cable gives windows of tens of nanoseconds, a handful of frames each,
/// and runs several times slower on two threads than on one (the examples, 100 to 200 frames a
/// window: 0.01-0.05 s against 0.04-0.5 s), while the 320-host fat tree of `rocelab bench`
/// (15,611 frames a window of 1 µs) and the k = 32 fat tree (8,192 links at 100G and 16,384 at
/// 400G over 50.42 ns: about 60,000) gain 1.5 to 2 times on two (docs/benchmarks.md; the k = 32
/// web search for 10 ms 1.73 times). A k = 8 fat tree (about 940 frames a window) with two
/// pods busy ran as fast on two threads as on one. An explicit `--threads N` is not bound by
/// it.
pub const MIN_FRAMES_A_WINDOW: u64 = 1_000;

/// The full-size (1,538 bytes on the wire) frames all the links of `spec` carry, both ways,
/// in one window of `lookahead` (`None`: the whole run, any number): an upper bound on a
/// window's work, which the traffic fills only in part.
pub fn frames_a_window(spec: &NetworkSpec, lookahead: Option<Time>) -> u64 {
    const FRAME_BITS: u128 = 1_538 * 8;
    let Some(lookahead) = lookahead else { return u64::MAX };
    let bits: u128 =
        spec.links.iter().map(|l| 2 * l.rate_bps as u128 * lookahead as u128 / crate::time::SECOND as u128).sum();
    u64::try_from(bits / FRAME_BITS).unwrap_or(u64::MAX)
}

/// [`crate::run`] on `threads` threads (see the module documentation): the same results, the
/// fabric cut into `threads` parts. One thread, or a fabric of one node, is [`crate::run`].
/// What the threads cannot run yet is refused with [`SimError::InvalidConfig`] naming it.
pub fn run_threads(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    threads: usize,
) -> Result<Results, SimError> {
    run_threads_profiled(spec, traffic, config, threads).map(|(r, _)| r)
}

/// [`run_threads_profiled`] on the [`default_threads`]' count, which takes every core without
/// knowing the run's memory: when the copies that many threads hold would not fit
/// ([`SimError::MemoryTooLarge`], refused before anything large is built), the run goes on the
/// most threads whose copies fit, which the refusal names, or on one thread where none is
/// named. Returns the results, the profile and the threads the run took.
pub fn run_threads_or_fewer(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    threads: usize,
) -> Result<(Results, Option<ThreadsProfile>, usize), SimError> {
    match run_threads_profiled(spec, traffic, config, threads) {
        Err(e) => match e.fewer_threads(threads) {
            Some(fewer) => run_threads_profiled(spec, traffic, config, fewer).map(|(r, p)| (r, p, fewer)),
            None => Err(e),
        },
        Ok((r, p)) => Ok((r, p, threads)),
    }
}

/// What the caller of a run on several threads sees of it while it goes, about every
/// [`WATCH_EVERY`] of wall time: the simulated time every part has reached and the events run
/// so far (a progress bar's). Called on the caller's thread, which otherwise waits for the parts;
/// a run that stops when its flows are done shows its two passes one after the other.
pub type Watch<'a> = &'a (dyn Fn(Time, u64) + Sync);

/// How often a [`Watch`] is called.
pub const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// [`run_threads`], with what each thread did (`None` on one thread).
pub fn run_threads_profiled(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    threads: usize,
) -> Result<(Results, Option<ThreadsProfile>), SimError> {
    run_threads_watched(spec, traffic, config, threads, None)
}

/// [`run_threads_profiled`], showing its progress to `watch` (a run on one thread shows none).
pub fn run_threads_watched(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    threads: usize,
    watch: Option<Watch<'_>>,
) -> Result<(Results, Option<ThreadsProfile>), SimError> {
    if threads == 0 {
        return Err(SimError::InvalidConfig { message: "threads must be at least 1".into() });
    }
    let cut = cut(spec, traffic, config, threads);
    if cut.parts <= 1 {
        return crate::run(spec, traffic, config).map(|r| (r, None));
    }
    if let Some(what) = refusal(&cut, traffic, config) {
        let message = if cut.lookahead == Some(0) {
            "a link between two parts of the fabric has no delay, so the threads cannot run ahead of each other: \
             run with --threads 1, or give the links a delay"
                .to_string()
        } else {
            format!("{what}: not yet simulated on more than one thread; run with --threads 1 (the same results)")
        };
        return Err(SimError::InvalidConfig { message });
    }
    let lookahead = cut.lookahead.unwrap_or(MAX_END_TIME);
    // Checked and built once for every part of both passes.
    let preparing = Instant::now();
    let shared = BuildShared::prepare_cut(spec, traffic, config, cut.parts, Some(&cut.part_of))?;
    let shared_build_seconds = preparing.elapsed().as_secs_f64();
    let pass = |stop| {
        run_pass(spec, traffic, config, &cut, &shared, lookahead, stop, watch).map(|(sims, mut profile)| {
            profile.shared_build_seconds = shared_build_seconds;
            (sims, profile)
        })
    };
    if !config.stop_when_done {
        let (sims, mut profile) = pass(None)?;
        let merging = Instant::now();
        let results = merge::finish(sims, &cut, spec, traffic);
        profile.merge_seconds = merging.elapsed().as_secs_f64();
        return Ok((results, Some(profile)));
    }
    // Two passes: the stop instant, then the run to it (see `stop`).
    let (mut sims, profile) = pass(Some(Stop::Count))?;
    let k = sims[0].engine().open_flows;
    let Some(t) = stop::stop_instant(&mut sims, k) else {
        return Ok((merge::finish(sims, &cut, spec, traffic), Some(profile)));
    };
    let end = sims[0].engine().end;
    drop(sims);
    let (sims, mut profile) = pass(Some(Stop::At(t)))?;
    let merging = Instant::now();
    let mut results = merge::finish(sims, &cut, spec, traffic);
    profile.merge_seconds = merging.elapsed().as_secs_f64();
    if t <= end {
        // The one-thread run's `StopRun`.
        results.events += 1;
    }
    Ok((results, Some(profile)))
}

/// One pass of the parts over the run, each on its thread: their engines at its end, and the
/// profile of each thread (the merge's time left to the caller).
#[allow(clippy::too_many_arguments)]
fn run_pass<'a>(
    spec: &'a NetworkSpec,
    traffic: &'a Traffic,
    config: &SimConfig,
    cut: &Partition,
    tables: &BuildShared,
    lookahead: Time,
    stop: Option<Stop>,
    watch: Option<Watch<'_>>,
) -> Result<(Vec<Simulation<'a, NoObserver>>, ThreadsProfile), SimError> {
    let parts = cut.parts;
    let slots: Vec<Line<Mutex<Vec<Message>>>> = (0..2 * parts * parts).map(|_| Line(Mutex::new(Vec::new()))).collect();
    let next: Vec<Line<AtomicU64>> = (0..2 * parts * parts).map(|_| Line(AtomicU64::new(Time::MAX))).collect();
    let done: Vec<Line<AtomicU64>> = (0..2 * parts).map(|_| Line(AtomicU64::new(0))).collect();
    let reached: Vec<Line<AtomicU64>> = (0..2 * parts).map(|_| Line(AtomicU64::new(0))).collect();
    let barrier = SpinBarrier::new(parts);
    // Two parts run without a barrier, but for a counting pass (`pair`).
    let paired = parts == 2 && stop != Some(Stop::Count);
    let pair = pair::PairShared::new(lookahead, &reached, stop);
    let shared = Shared {
        parts,
        slots: &slots,
        next: &next,
        done: &done,
        reached: &reached,
        barrier: &barrier,
        lookahead,
        stop,
    };
    type Part<'s> = Result<(Simulation<'s, NoObserver>, PartProfile, u64), SimError>;
    let finished: Vec<Part<'a>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..parts as u32)
            .map(|me| {
                let (shared, pair) = (&shared, &pair);
                let inputs = Inputs { spec, traffic, config, cut, tables };
                s.spawn(move || if paired { pair::run_part(inputs, me, pair) } else { run_part(inputs, me, shared) })
            })
            .collect();
        if let Some(watch) = watch {
            let mut last = Instant::now();
            while !handles.iter().all(|h| h.is_finished()) {
                std::thread::sleep(std::time::Duration::from_millis(5));
                if last.elapsed() >= WATCH_EVERY {
                    last = Instant::now();
                    let now = (0..parts).map(|p| reached[2 * p].load(Ordering::Relaxed)).min().unwrap_or(0);
                    watch(now, (0..parts).map(|p| reached[2 * p + 1].load(Ordering::Relaxed)).sum());
                }
            }
        }
        handles.into_iter().map(|h| h.join().expect("a simulation thread panicked")).collect()
    });
    let mut sims = Vec::with_capacity(parts);
    let mut profile = ThreadsProfile { lookahead, paired, ..ThreadsProfile::default() };
    for part in finished {
        let (sim, p, windows) = part?;
        sims.push(sim);
        profile.parts.push(p);
        // A pair's steps are each part's own.
        profile.windows = if paired { profile.windows + windows } else { windows };
    }
    Ok((sims, profile))
}

/// What the threads share: the messages' slots and the earliest times, both in two halves by
/// the parity of the window they were posted in (see [`run_part`]), and the barrier.
struct Shared<'a> {
    parts: usize,
    /// `slots[half · parts² + to · parts + from]`: the messages `from` sent `to`.
    slots: &'a [Line<Mutex<Vec<Message>>>],
    /// `next[half · parts² + to · parts + from]`: the earliest time among them, and at
    /// `to == from` the earliest pending event of the part itself (`Time::MAX`: none).
    next: &'a [Line<AtomicU64>],
    /// `done[half · parts + part]`: the completions the part noted (`stop`).
    done: &'a [Line<AtomicU64>],
    /// `reached[2 · part]`: the time up to which the part has run its events; `+ 1`: its
    /// events so far (for a [`Watch`]).
    reached: &'a [Line<AtomicU64>],
    barrier: &'a SpinBarrier,
    lookahead: Time,
    stop: Option<Stop>,
}

impl Shared<'_> {
    fn at(&self, half: usize, to: usize, from: usize) -> usize {
        (half * self.parts + to) * self.parts + from
    }
}

/// The thread of part `me`: build, keep its own initial events, run window by window, and
/// return its simulation, what it did and the windows run. A build is a function of the inputs
/// alone, so either every thread's fails, with the same error, before any waits at the barrier,
/// or none does.
///
/// **One barrier a window.** At the end of a window each part posts, in the half of the slots
/// of the window's parity, the messages it sent each other part with their earliest time, and its
/// own earliest pending event; then it waits at the barrier. After it, each part reads that half
/// alone: every part's earliest pending event is the least of its own and of the messages to it,
/// and no part writes that half again before everyone has passed the next barrier, by which time
/// everyone has read it. **The window** is the same for every part: it ends a lookahead after
/// the earliest pending event anywhere (less a picosecond), before which nothing that event or
/// any later one sends can arrive. A part whose next event is past the window's end runs
/// nothing in it. The run ends when no part has an event left before the end time.
///
/// Each part could run further, to a lookahead after the earliest event any *other* part can
/// run (up to two lookaheads where it is ahead of the others); but a part that does so once
/// leads by the same offset in every window after it, and the parts then take turns to run the
/// longer window: on the k = 32 fat tree (500 µs of web search, the pods cut by their flows'
/// bytes) each part waited 1.35-1.83 s against 2.97-3.61 s busy, and 0.17-0.47 s with one
/// window for all (docs/benchmarks.md, "One window for every part"). Two parts run without
/// the barrier instead ([`pair`]): a part that leads there does not make the other run a
/// longer window, it only waits when it is a lookahead ahead of the other's earliest event.
fn run_part<'a>(
    inputs: Inputs<'a, '_>,
    me: u32,
    shared: &Shared<'_>,
) -> Result<(Simulation<'a, NoObserver>, PartProfile, u64), SimError> {
    let mut started = start_part(inputs, me, shared.stop)?;
    let (count, mut profile) = (started.count, std::mem::take(&mut started.profile));
    let engine = started.sim.engine();
    let (me, parts, end) = (me as usize, shared.parts, engine.end);
    let mut clock = Clock::default();
    let mut delivered: Vec<Message> = Vec::new();
    let mut half = 0;
    shared.next[shared.at(half, me, me)].store(engine.queue.peek_time().unwrap_or(Time::MAX), Ordering::Relaxed);
    let mut windows = 0u64;
    loop {
        let working = clock.wait(|| shared.barrier.wait());
        // The earliest pending event anywhere: a part's own, or a message to it.
        let all = (0..parts * parts).map(|i| shared.next[half * parts * parts + i].load(Ordering::Relaxed)).min();
        let all = all.unwrap_or(Time::MAX);
        // In the senders' order: the queue orders the events by their keys, and the packets'
        // ids in this pool reach no result. After the last window too: a frame on its way at
        // the end is in the network, counted in the results.
        let delivering = Instant::now();
        for from in (0..parts).filter(|&f| f != me) {
            std::mem::swap(&mut delivered, &mut shared.slots[shared.at(half, me, from)].lock().expect("slot"));
            for m in delivered.drain(..) {
                engine.receive(m);
            }
        }
        profile.deliver_seconds += delivering.elapsed().as_secs_f64();
        let noted = || (0..parts).map(|p| shared.done[half * parts + p].load(Ordering::Relaxed)).sum::<u64>();
        if all > end || count.is_some_and(|k| noted() >= k) {
            clock.busy += working.elapsed();
            break;
        }
        windows += 1;
        let limit = all.saturating_add(shared.lookahead) - 1;
        let before = engine.events;
        engine.run_until(limit.min(end));
        if engine.events == before {
            profile.idle_windows += 1;
        }
        half ^= 1;
        let posting = Instant::now();
        engine.pack_outbox();
        let part = engine.part.as_deref_mut().expect("a part");
        for (to, batch) in part.outbox.iter_mut().enumerate().filter(|&(to, _)| to != me) {
            // A message without an event (a TCP stream's, an IO slot's note) runs nothing.
            let earliest = batch.iter().filter(|m| m.event.is_some()).map(|m| m.time).min().unwrap_or(Time::MAX);
            shared.next[shared.at(half, to, me)].store(earliest, Ordering::Relaxed);
            profile.messages_sent += batch.len() as u64;
            if !batch.is_empty() {
                // The slot was emptied by its reader a window ago (above): the batch moves in
                // whole, and the slot's empty vector, with its capacity, becomes the outbox (on
                // the k = 32 fat tree, a copy of 400 messages a window cost a part 0.2 s a ms).
                let mut slot = shared.slots[shared.at(half, to, me)].lock().expect("slot");
                if slot.is_empty() {
                    std::mem::swap(&mut *slot, batch);
                } else {
                    slot.append(batch);
                }
            }
        }
        shared.next[shared.at(half, me, me)].store(engine.queue.peek_time().unwrap_or(Time::MAX), Ordering::Relaxed);
        let noted = engine.part.as_deref().map_or(0, |p| p.done.len() as u64);
        shared.done[half * parts + me].store(noted, Ordering::Relaxed);
        shared.reached[2 * me].store(limit.min(end), Ordering::Relaxed);
        shared.reached[2 * me + 1].store(engine.events, Ordering::Relaxed);
        profile.post_seconds += posting.elapsed().as_secs_f64();
        clock.busy += working.elapsed();
    }
    started.finish(&mut profile, clock);
    Ok((started.sim, profile, windows))
}

/// A part's engine built and joined to its part, before its first event: what both ways of
/// running the parts ([`run_part`], [`pair::run_part`]) start from.
struct Started<'a> {
    sim: Simulation<'a, NoObserver>,
    /// The flows to count in a counting pass (`stop`).
    count: Option<u64>,
    /// The part's profile, its building filled in.
    profile: PartProfile,
    /// The thread's CPU seconds and counts when the building ended.
    build_cpu: Option<f64>,
    build_usage: Option<ThreadUsage>,
}

/// What every part of a pass is built from: the inputs, the cut and the tables built once.
#[derive(Clone, Copy)]
struct Inputs<'a, 'b> {
    spec: &'a NetworkSpec,
    traffic: &'a Traffic,
    config: &'b SimConfig,
    cut: &'b Partition,
    tables: &'b BuildShared,
}

/// Build part `me` of the cut on the calling thread (see [`run_part`]), timing its building.
fn start_part<'a>(inputs: Inputs<'a, '_>, me: u32, stop: Option<Stop>) -> Result<Started<'a>, SimError> {
    let Inputs { spec, traffic, config, cut, tables } = inputs;
    let (building, building_cpu, building_usage) =
        (Instant::now(), profile::thread_cpu_seconds(), profile::ThreadUsage::thread());
    let mut sim = Simulation::new_part(spec, traffic, config, tables, (&cut.part_of, me))?;
    let engine = sim.engine();
    engine.join_part(cut, me, config);
    let count = stop::prepare(engine, stop);
    let mut profile = PartProfile {
        nodes: cut.part_of.iter().filter(|&&p| p == me).count(),
        hosts: (0..spec.nodes.len()).filter(|&n| cut.part_of[n] == me && spec.is_host(n)).count(),
        build_seconds: building.elapsed().as_secs_f64(),
        ..PartProfile::default()
    };
    let build_cpu = profile::thread_cpu_seconds();
    profile.build_cpu_seconds = build_cpu.zip(building_cpu).map(|(b, a)| b - a);
    let build_usage = profile::ThreadUsage::thread();
    profile.build_usage = build_usage.zip(building_usage).map(|(b, a)| b.since(a));
    Ok(Started { sim, count, profile, build_cpu, build_usage })
}

impl Started<'_> {
    /// `profile` at the end of the run, from what `clock` added up.
    fn finish(&mut self, profile: &mut PartProfile, mut clock: Clock) {
        profile.events = self.sim.engine().events;
        profile.busy_seconds = clock.busy.as_secs_f64();
        profile.wait_seconds = clock.wait.as_secs_f64();
        profile.run_usage = profile::ThreadUsage::thread().zip(self.build_usage).map(|(b, a)| b.since(a));
        profile.window_busy_ns = std::mem::take(&mut clock.windows_ns);
        profile.window_busy_cpu_ns = std::mem::take(&mut clock.windows_cpu_ns);
        // The thread's CPU time but for its building and its waits.
        if let (Some(total), Some(build), Some(wait)) = (profile::thread_cpu_seconds(), self.build_cpu, clock.wait_cpu)
        {
            profile.busy_cpu_seconds = Some(total - build - wait);
            profile.wait_cpu_seconds = Some(wait);
        }
    }
}
