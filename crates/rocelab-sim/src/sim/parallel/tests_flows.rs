//! A part holds the flows and queue pairs of its own hosts only (`sim/placed.rs`), where they
//! are at most a quarter of the flows: what each part holds, parts that hold every flow beside
//! parts that hold their own, and drops of flows a part does not hold, counted for their flows
//! all the same.

use super::tests::{leaf_spine_fabric, same_for_every_thread_count};
use super::*;
use crate::bench::results_digest;
use crate::rdma::RdmaOp;
use crate::time::{MS, NS, US};
use crate::topology::{leaf_spine, Fabric, FabricDefaults, LeafSpine};
use crate::traffic::{FlowClass, FlowSpec};

/// Eight leaves of two 100G hosts under two spines: cut into eight parts, a leaf each.
fn eight_leaves() -> Fabric {
    let shape = LeafSpine {
        leaves: 8,
        spines: 2,
        hosts_per_leaf: 2,
        host_rate_bps: 100_000_000_000,
        fabric_rate_bps: 100_000_000_000,
        host_delay_ps: 100 * NS,
        fabric_delay_ps: 500 * NS,
    };
    leaf_spine(&shape, &FabricDefaults::lossless(3, 100_000))
}

/// An RDMA WRITE and an open-loop flow from each host `i` to host `i + step`.
fn to_next(f: &Fabric, step: usize, bytes: impl Fn(usize) -> u64) -> Traffic {
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    let n = f.hosts.len();
    for (i, &h) in f.hosts.iter().enumerate() {
        let dst = f.hosts[(i + step) % n];
        t.push(FlowSpec::sized(h, dst, class, bytes(i)).rc(RdmaOp::Write));
        t.push(FlowSpec::sized(h, dst, class, bytes(i) / 2));
    }
    t
}

/// The results on `threads` threads are one thread's (the digest, and all but the two engine
/// peaks).
fn same_on(f: &Fabric, t: &Traffic, config: &SimConfig, threads: usize) {
    let one = crate::run(&f.spec, t, config).expect("one thread");
    let r = run_threads(&f.spec, t, config, threads).expect("threads");
    assert_eq!(results_digest(&r), results_digest(&one), "{threads} threads");
    let plain = |r: &Results| Results { peak_packets_in_flight: 0, peak_pending_events: 0, ..r.clone() };
    assert!(plain(&r) == plain(&one), "{threads} threads: results");
}

/// Whether each part of `t` cut into `parts` holds every flow, by index.
fn holding_all(f: &Fabric, t: &Traffic, config: &SimConfig, parts: usize) -> Vec<bool> {
    let shared = BuildShared::prepare(&f.spec, t, config, parts).expect("prepared");
    let c = cut(&f.spec, t, config, parts);
    (0..parts as u32)
        .map(|me| {
            let mut sim = Simulation::new_part(&f.spec, t, config, &shared, (&c.part_of, me)).expect("a part");
            sim.engine().flows.is_whole()
        })
        .collect()
}

#[test]
fn a_part_holds_the_flows_and_queue_pairs_of_its_own_hosts_only() {
    // Eight parts, a leaf each: a part's hosts are the ends of a quarter of the flows.
    let f = eight_leaves();
    let t = to_next(&f, 3, |_| 40_000);
    let config = SimConfig::new(3, 100 * US);
    let parts = 8;
    let shared = BuildShared::prepare(&f.spec, &t, &config, parts).expect("prepared");
    let cut8 = cut(&f.spec, &t, &config, parts);
    let mut held_somewhere = vec![0u32; t.flows.len()];
    for me in 0..parts as u32 {
        let mut sim = Simulation::new_part(&f.spec, &t, &config, &shared, (&cut8.part_of, me)).expect("a part");
        let e = sim.engine();
        assert_eq!((e.flows.len(), e.qps.len()), (32, 16), "every index is known");
        let own = |n: usize| cut8.part_of[n] == me;
        let mut qps = 0;
        for (i, spec) in t.flows.iter().enumerate() {
            assert_eq!(e.flows.get(i).is_some(), own(spec.src) || own(spec.dst), "part {me}, flow {i}");
            if let Some(fl) = e.flows.get(i) {
                held_somewhere[i] += 1;
                assert_eq!(fl.spec.src, spec.src);
                // Its queue pair too, by the same global index in every part.
                if spec.rc_flow().is_some() {
                    assert_eq!(e.qps[fl.qp as usize].flow, i as u32);
                    qps += 1;
                }
            }
        }
        assert_eq!((e.flows.held(), e.qps.held()), (8, qps), "part {me}");
    }
    // Each flow in one part or two: its source's and its destination's.
    for (i, spec) in t.flows.iter().enumerate() {
        let parts_of_ends = if cut8.part_of[spec.src] == cut8.part_of[spec.dst] { 1 } else { 2 };
        assert_eq!(held_somewhere[i], parts_of_ends, "flow {i}");
    }
    drop(shared);
    same_on(&f, &t, &config, 8);
    // On four threads a part's hosts are the ends of half the flows: it holds them all, by their
    // indices (`placed::holds_all`).
    assert_eq!(holding_all(&f, &t, &config, 4), [true; 4]);
}

#[test]
fn parts_that_hold_every_flow_and_parts_that_hold_their_own_merge_into_one_threads_results() {
    // A part whose hosts are the ends of more than a quarter of the flows holds them all: on
    // six threads, parts 0 and 1 (two leaves each) in the first traffic; on five, part 0 holds
    // its own beside parts that hold all.
    let f = eight_leaves();
    let config = SimConfig::new(3, 100 * US);
    let first = to_next(&f, 3, |_| 40_000);
    let second = to_next(&f, 5, |i| 20_000 * (1 + i as u64 % 3));
    let (six, five) = (holding_all(&f, &first, &config, 6), holding_all(&f, &second, &config, 5));
    assert!(six[0] && six.contains(&false), "{six:?}");
    assert!(!five[0] && five.contains(&true), "{five:?}");
    same_on(&f, &first, &config, 6);
    same_on(&f, &second, &config, 5);
}

#[test]
fn drops_at_a_switch_whose_part_holds_neither_end_count_for_their_flows() {
    // Leaf 0's hosts are idle: the cut by work puts the spines with them, so a spine's part
    // holds none of the flows that go through it. The other leaves' hosts send to leaf 3 over
    // the spines into small lossy buffers: the spines' downlinks to leaf 3 drop.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 200_000;
    let f = leaf_spine_fabric(&d);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    for (k, &h) in f.hosts[4..12].iter().enumerate() {
        let dst = f.hosts[12 + k % 4];
        t.push(FlowSpec::sized(h, dst, class, 400_000));
        let mut rc = FlowSpec::sized(h, dst, class, 400_000);
        rc.payload_bytes = 4096;
        t.push(rc.rc([RdmaOp::Write, RdmaOp::Read][k % 2]));
    }
    let config = SimConfig::new(5, MS);
    let one = same_for_every_thread_count(&f.spec, &t, &config);
    let spines: Vec<usize> = f.switches.iter().copied().filter(|&s| f.spec.port_count(s) == 4).collect();
    assert_eq!(spines.len(), 2, "two spines of four ports");
    let spine_drops: u64 = one.ports.iter().filter(|p| spines.contains(&p.node)).map(|p| p.total(|c| c.drops)).sum();
    assert!(spine_drops > 0, "the spines drop");
    // On four threads a spine's part holds no end of any flow: its drops are the transit drops
    // (`Sim::transit_drops`), and the results above are one thread's.
    let cut = cut(&f.spec, &t, &config, 4);
    for &s in &spines {
        let part = cut.part_of[s];
        assert!(
            t.flows.iter().all(|fl| cut.part_of[fl.src] != part && cut.part_of[fl.dst] != part),
            "spine {s} shares part {part} with a flow's end: {:?}",
            cut.part_of
        );
    }
    let flow_drops: u64 = one.flows.iter().map(|fl| fl.dropped_packets).sum();
    let ctrl_drops: u64 = one.flows.iter().filter_map(|fl| fl.rdma.as_ref()).map(|r| r.control.dropped).sum();
    assert_eq!(flow_drops + ctrl_drops, one.conservation.dropped_packets, "every drop counted for its flow");
}

#[test]
fn the_estimate_counts_the_flows_the_fullest_part_holds() {
    let f = eight_leaves();
    let t = to_next(&f, 3, |_| 10_000);
    let config = SimConfig::new(1, 10 * US);
    let text = |threads| {
        crate::sim::estimate::with_run_limit(1, || run_threads(&f.spec, &t, &config, threads).unwrap_err()).to_string()
    };
    let cut = cut(&f.spec, &t, &config, 8);
    let most = (0..8)
        .map(|p| t.flows.iter().filter(|fl| cut.part_of[fl.src] == p || cut.part_of[fl.dst] == p).count())
        .max()
        .expect("eight parts");
    assert_eq!(most, 8, "a part holds a quarter of the 32 flows");
    let eight = text(8);
    assert!(eight.contains("the most flows a part holds (8 of 32)"), "{eight}");
    // The fewer threads it names are counted as if each held every flow ("at most").
    assert!(eight.contains(" each at most), or "), "{eight}");
    // On one thread, and on four (a part's hosts the ends of half the flows), each holds all.
    for threads in [1, 4] {
        let all = text(threads);
        assert!(all.contains("32 flows: ") && !all.contains("a part holds"), "{all}");
    }
}
