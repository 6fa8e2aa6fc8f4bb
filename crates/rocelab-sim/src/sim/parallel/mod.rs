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
//! **Windows.** Each thread delivers the messages sent to it, then all agree on the earliest
//! pending time `t0`; each runs its events before `t0 + lookahead` (a frame sent at `t ≥ t0`
//! arrives at `t + lookahead` or later, in a later window), posts the frames and pause frames
//! that cross to their part, and waits at a barrier. Two barriers a window.
//!
//! **State.** Each thread builds the whole simulation and runs only the events of the nodes
//! of its part: the initial events of other parts' nodes are dropped, and the arrivals at
//! other parts' ports are sent rather than queued (the packet copied into the message, and out
//! of the sender's pool). At the end the state of each node is taken from its part
//! ([`merge`]): ports, PFC timers, switches and NICs from their node's part, a flow's state
//! from its source's and what it counts summed over the parts (each counts its own events),
//! each endpoint of an RDMA queue pair from its host's part (its handlers touch only its own
//! side's state: see the `sim::rdma` module), a perftest test's record from its client's.
//! Every thread holds a copy of every structure (routes among them): memory grows with
//! the threads, acceptable at 2-8; at 64 threads each part should build only its nodes'
//! state and its routes (a design note, not done).
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

mod merge;
mod partition;
mod stop;
#[cfg(test)]
mod tests;
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

pub use partition::{partition, Partition};
use stop::{Done, Stop};

use super::build::MAX_END_TIME;
use super::{EventOrder, Sim, SimConfig, Simulation};
use crate::error::SimError;
use crate::event::Event;
use crate::observer::NoObserver;
use crate::packet::Packet;
use crate::spec::NetworkSpec;
use crate::stats::Results;
use crate::time::Time;
use crate::traffic::Traffic;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// A frame or pause frame crossing to another part: its arrival event and, for a data frame,
/// the packet (and a TCP segment's header beside it); or, without an event, a message written
/// on a TCP stream for its reader in that part (`sim/tcp/parts.rs`).
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
    /// this queue, or, when the peer is in another part, in a message to it (a data frame's
    /// packet moves into the message).
    #[inline(always)]
    pub(crate) fn push_arrival(&mut self, port: u32, time: Time, event: Event) {
        if let Some(part) = self.part.as_deref_mut() {
            if part.remote_peer[port as usize] {
                let peer_node = self.ports[self.ports[port as usize].peer as usize].node;
                let (packet, tcp) = match event {
                    Event::WireArrive { pkt, .. } => {
                        let p = *self.pool.get(pkt);
                        let tcp = self.tcp_cargo_out(pkt);
                        self.pool.free(pkt);
                        (Some(p), tcp)
                    }
                    _ => (None, None),
                };
                let event = Some(event);
                let part = self.part.as_deref_mut().expect("a part");
                part.outbox[part.part_of[peer_node as usize] as usize].push(Message { time, event, packet, tcp });
                return;
            }
        }
        self.queue.push(time, event);
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
            Event::FlowStart { flow } => part.part_of[self.flows[flow as usize].spec.src] == part.me,
            // A storage job clone starts at its initiator.
            Event::CloneStart { clone } => {
                let session = self.storage.clones[clone as usize].session as usize;
                part.part_of[self.storage.sessions[session].initiator as usize] == part.me
            }
            _ => true,
        }
    }
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

/// [`crate::run`] on `threads` threads (see the module documentation): the same results, the
/// fabric cut into `threads` parts. One thread, or a fabric of one node, is [`crate::run`].
/// What the threads cannot run yet is refused with [`SimError::InvalidConfig`] naming it.
pub fn run_threads(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    threads: usize,
) -> Result<Results, SimError> {
    if threads == 0 {
        return Err(SimError::InvalidConfig { message: "threads must be at least 1".into() });
    }
    let cut = partition(spec, threads);
    if cut.parts <= 1 {
        return crate::run(spec, traffic, config);
    }
    if let Some(what) = unsupported(traffic, config) {
        return Err(SimError::InvalidConfig {
            message: format!(
                "{what}: not yet simulated on more than one thread; run with --threads 1 (the same results)"
            ),
        });
    }
    let lookahead = match cut.lookahead {
        Some(0) => {
            return Err(SimError::InvalidConfig {
                message: "a link between two parts of the fabric has no delay, so the threads cannot run ahead of \
                          each other: run with --threads 1, or give the links a delay"
                    .into(),
            })
        }
        Some(l) => l,
        None => MAX_END_TIME,
    };
    if !config.stop_when_done {
        let sims = run_pass(spec, traffic, config, &cut, lookahead, None)?;
        return Ok(merge::finish(sims, &cut, spec, traffic));
    }
    // Two passes: the stop instant, then the run to it (see `stop`).
    let mut sims = run_pass(spec, traffic, config, &cut, lookahead, Some(Stop::Count))?;
    let k = sims[0].engine().open_flows;
    let Some(t) = stop::stop_instant(&mut sims, k) else {
        return Ok(merge::finish(sims, &cut, spec, traffic));
    };
    let end = sims[0].engine().end;
    drop(sims);
    let sims = run_pass(spec, traffic, config, &cut, lookahead, Some(Stop::At(t)))?;
    let mut results = merge::finish(sims, &cut, spec, traffic);
    if t <= end {
        // The one-thread run's `StopRun`.
        results.events += 1;
    }
    Ok(results)
}

/// One pass of the parts over the run, each on its thread; their engines at its end.
fn run_pass<'a>(
    spec: &'a NetworkSpec,
    traffic: &'a Traffic,
    config: &SimConfig,
    cut: &Partition,
    lookahead: Time,
    stop: Option<Stop>,
) -> Result<Vec<Simulation<'a, NoObserver>>, SimError> {
    let parts = cut.parts;
    let inbox: Vec<Mutex<Vec<Message>>> = (0..parts).map(|_| Mutex::new(Vec::new())).collect();
    let next: Vec<AtomicU64> = (0..parts).map(|_| AtomicU64::new(Time::MAX)).collect();
    let done: Vec<AtomicU64> = (0..parts).map(|_| AtomicU64::new(0)).collect();
    let barrier = SpinBarrier::new(parts);
    let shared = Shared { inbox: &inbox, next: &next, done: &done, barrier: &barrier, lookahead, stop };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..parts as u32)
            .map(|me| {
                let shared = &shared;
                s.spawn(move || run_part(spec, traffic, config, cut, me, shared))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a simulation thread panicked")).collect()
    })
}

/// What the threads share: an inbox per part, each part's earliest pending time and
/// completions noted (`stop`), the barrier.
struct Shared<'a> {
    inbox: &'a [Mutex<Vec<Message>>],
    next: &'a [AtomicU64],
    done: &'a [AtomicU64],
    barrier: &'a SpinBarrier,
    lookahead: Time,
    stop: Option<Stop>,
}

/// A barrier that spins a while before it sleeps: a window of the line-rate fat tree lasts tens
/// of microseconds, about the time a futex sleep and wake-up take, so a barrier that always
/// sleeps (`std::sync::Barrier`) would cost each window that much; one that only spins starves
/// the working threads when there are more threads than free cores. The last thread to arrive
/// resets the count and moves the generation on (release, under the lock, so that a sleeper
/// cannot miss it), which the others wait to see (acquire): what each wrote before the barrier
/// is visible to all after it.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    /// Polls of the generation before sleeping: a few microseconds.
    const SPINS: u32 = 2000;

    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            {
                let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.generation.fetch_add(1, Ordering::Release);
            }
            self.wake.notify_all();
            return;
        }
        for _ in 0..Self::SPINS {
            if self.generation.load(Ordering::Acquire) != generation {
                return;
            }
            std::hint::spin_loop();
        }
        let mut held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.generation.load(Ordering::Acquire) == generation {
            held = self.wake.wait(held).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The thread of part `me`: build, keep its own initial events, run window by window. A build
/// is a function of the inputs alone, so either every thread's fails, with the same error, before
/// any waits at the barrier, or none does.
fn run_part<'a>(
    spec: &'a NetworkSpec,
    traffic: &'a Traffic,
    config: &SimConfig,
    cut: &Partition,
    me: u32,
    shared: &Shared<'_>,
) -> Result<Simulation<'a, NoObserver>, SimError> {
    let mut sim = Simulation::new(spec, traffic, config)?;
    let engine = sim.engine();
    let remote_peer = engine
        .ports
        .iter()
        .map(|p| cut.part_of[engine.ports[p.peer as usize].node as usize] != cut.part_of[p.node as usize])
        .collect();
    let part =
        PartRt { me, part_of: cut.part_of.clone(), remote_peer, outbox: vec![Vec::new(); cut.parts], done: Vec::new() };
    let mut initial = Vec::new();
    while let Some((t, ev)) = engine.queue.pop() {
        if engine.owns_initial(&part, ev) {
            initial.push((t, ev));
        }
    }
    engine.queue = super::build::fresh_queue(config);
    for (t, ev) in initial {
        engine.queue.push(t, ev);
    }
    engine.part = Some(Box::new(part));
    let count = stop::prepare(engine, shared.stop);
    let end = engine.end;
    let mut delivered: Vec<Message> = Vec::new();
    loop {
        // In the order the senders' batches came: the queue orders the events by their keys,
        // and the packets' ids in this pool reach no result.
        std::mem::swap(&mut delivered, &mut shared.inbox[me as usize].lock().expect("inbox"));
        for m in delivered.drain(..) {
            engine.receive(m);
        }
        shared.next[me as usize].store(engine.queue.peek_time().unwrap_or(Time::MAX), Ordering::Relaxed);
        let noted = engine.part.as_deref().map_or(0, |p| p.done.len() as u64);
        shared.done[me as usize].store(noted, Ordering::Relaxed);
        shared.barrier.wait();
        let t0 = shared.next.iter().map(|n| n.load(Ordering::Relaxed)).min().unwrap_or(Time::MAX);
        if t0 > end || count.is_some_and(|k| shared.done.iter().map(|d| d.load(Ordering::Relaxed)).sum::<u64>() >= k) {
            break;
        }
        let limit = t0.saturating_add(shared.lookahead) - 1;
        engine.run_until(limit.min(end));
        let part = engine.part.as_deref_mut().expect("a part");
        for (to, batch) in part.outbox.iter_mut().enumerate().filter(|(_, b)| !b.is_empty()) {
            shared.inbox[to].lock().expect("inbox").append(batch);
        }
        shared.barrier.wait();
    }
    Ok(sim)
}
