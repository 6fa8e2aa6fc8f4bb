//! The state of a run on several threads put together: each node's from its part, then the
//! results as one thread would give them.

use super::Partition;
use crate::observer::NoObserver;
use crate::sim::{Sim, Simulation};
use crate::spec::NetworkSpec;
use crate::stats::Results;
use crate::traffic::Traffic;

/// Element 0 and element `o` (`o > 0`) of `v`, both mutable.
pub(super) fn first_and<T>(v: &mut [T], o: usize) -> (&mut T, &mut T) {
    let (a, b) = v.split_at_mut(o);
    (&mut a[0], &mut b[0])
}

/// Gather the parts' state into part 0's engine and compute the results from it and from the
/// frames still in the network, which stay in their parts' pools and queues
/// ([`Sim::results_with`]).
///
/// The figures that describe the engine rather than what it simulated are the parts' sums:
/// `events` (each event runs in one part; the samples, which every part takes of its own
/// ports, are counted once), `peak_pending_events` and `peak_packets_in_flight` (each part's
/// peak, at its own moment: their sum bounds the one-thread figure from above). The last two
/// are left out of [`crate::bench::results_digest`], which is the same for every number of
/// threads.
pub(super) fn finish(
    mut sims: Vec<Simulation<'_, NoObserver>>,
    cut: &Partition,
    spec: &NetworkSpec,
    traffic: &Traffic,
) -> Results {
    let part_of = |node: u32| cut.part_of[node as usize] as usize;
    let mut engines: Vec<_> = sims.iter_mut().map(|s| s.engine()).collect();
    let peak_packets: usize = engines.iter().map(|e| e.pool.capacity_used()).sum();
    let peak_pending: usize = engines.iter().map(|e| e.queue.peak_len()).sum();
    let events: u64 = engines.iter().map(|e| e.events).sum();
    let mut conservation = crate::stats::Conservation::default();
    for e in &engines {
        let c = &e.conservation;
        conservation.injected_packets += c.injected_packets;
        conservation.injected_bytes += c.injected_bytes;
        conservation.delivered_packets += c.delivered_packets;
        conservation.delivered_bytes += c.delivered_bytes;
        conservation.dropped_packets += c.dropped_packets;
        conservation.dropped_bytes += c.dropped_bytes;
    }
    // Each port's cold state (its counters and pause states) and PFC timers stay with their
    // part, its own ports' (part 0's in the merged engine, at the places its `port_place`
    // gives): the results read the cold state there (`Sim::results_with`), and the timers
    // schedule events and reach no result; gathered here, they would hold the whole fabric's once
    // more, at the run's peak of memory.
    for port in 0..engines[0].ports.len() {
        let o = part_of(engines[0].ports[port].node);
        if o != 0 {
            let (base, from) = first_and(&mut engines, o);
            std::mem::swap(&mut base.ports[port], &mut from.ports[port]);
        }
    }
    for s in 0..engines[0].switches.len() {
        let o = part_of(engines[0].switches[s].node);
        if o != 0 {
            let (base, from) = first_and(&mut engines, o);
            std::mem::swap(&mut base.switches[s], &mut from.switches[s]);
        }
    }
    let nic_node: Vec<(usize, u32)> =
        engines[0].ports.iter().filter(|p| p.is_host).map(|p| (p.owner as usize, p.node)).collect();
    for (nic, node) in nic_node {
        let o = part_of(node);
        if o != 0 {
            let (base, from) = first_and(&mut engines, o);
            std::mem::swap(&mut base.nics[nic], &mut from.nics[nic]);
        }
    }
    super::merge_flows::merge_flows(&mut engines, &part_of);
    for t in 0..engines[0].tests.len() {
        // A perftest test's record is kept by its client, which posts and sees completions.
        let o = part_of(engines[0].tests[t].spec.client as u32);
        if o != 0 {
            let (base, from) = first_and(&mut engines, o);
            std::mem::swap(&mut base.tests[t], &mut from.tests[t]);
        }
    }
    crate::sim::tcp::parts::merge_conns(&mut engines, &part_of);
    crate::sim::storage::parts::merge_storage(&mut engines, &part_of);
    // Each part sampled its own switches' ports, at the same instants: their samples together,
    // in port order.
    let mut sampled: Vec<(usize, Vec<u32>)> = engines
        .iter_mut()
        .filter_map(|e| e.samples.as_mut())
        .flat_map(|s| s.ports.iter().copied().zip(std::mem::take(&mut s.depth)).collect::<Vec<_>>())
        .collect();
    sampled.sort_unstable_by_key(|&(port, _)| port);
    if let Some(s) = engines[0].samples.as_mut() {
        (s.ports, s.depth) = sampled.into_iter().unzip();
    }
    engines[0].conservation = conservation;
    engines[0].events = events;
    // The frames in the network stay in their parts' pools, and those on a wire in their
    // queues: the results read them there (moved into part 0's, they cost the merge a copy of
    // every packet in flight and the pages for it: 24-71 ms of the 320-host fat tree's 0.8 s).
    let engines: Vec<&Sim<'_, NoObserver>> = engines.into_iter().map(|e| &*e).collect();
    let mut results = engines[0].results_with(spec, &engines[1..]);
    results.peak_packets_in_flight = peak_packets as u64;
    results.peak_pending_events = peak_pending as u64;
    crate::sim::build::complete(results, spec, traffic)
}
