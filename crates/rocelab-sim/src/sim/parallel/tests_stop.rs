//! Runs that stop when their flows are done, on several threads: the same results as one
//! thread's, the stop instant (the end time) and the count of events included.

use super::tests::same_for_every_thread_count;
use super::*;
use crate::rdma::RdmaOp;
use crate::time::{MS, NS, US};
use crate::topology::{leaf_spine, FabricDefaults, LeafSpine};
use crate::traffic::{FlowClass, FlowSpec, TcpFlow};

const G25: u64 = 25_000_000_000;
const G100: u64 = 100_000_000_000;

fn fabric(d: &FabricDefaults) -> crate::topology::Fabric {
    let shape = LeafSpine {
        leaves: 4,
        spines: 2,
        hosts_per_leaf: 4,
        host_rate_bps: G25,
        fabric_rate_bps: G100,
        host_delay_ps: 100 * NS,
        fabric_delay_ps: 500 * NS,
    };
    leaf_spine(&shape, d)
}

fn stopping(seed: u64, end: Time) -> SimConfig {
    SimConfig { stop_when_done: true, ..SimConfig::new(seed, end) }
}

/// The results stopped before `end`, at the last completion (or its time's drain).
fn assert_stopped_early(r: &Results, end: Time) {
    assert!(r.end_time_ps < end, "the run stopped early: {} ps", r.end_time_ps);
    let last = r.flows.iter().filter_map(|f| f.completion_ps).max().expect("flows completed");
    assert!(r.flows.iter().all(|f| f.completion_ps.is_some()), "every flow completed");
    assert!(last <= r.end_time_ps, "the last completion {last} ps is within the run");
}

#[test]
fn open_loop_flows_that_complete_in_every_part_stop_at_the_same_instant_on_every_thread_count() {
    let mut d = FabricDefaults::lossless(3, 40_000);
    d.switch.buffer.size_bytes = 1 << 20;
    let f = fabric(&d);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    for (i, &h) in f.hosts.iter().enumerate() {
        let mut flow = FlowSpec::sized(h, f.hosts[(i + 6) % 16], class, 50_000 + 7_000 * (i as u64 % 5));
        flow.start_ps = (i as u64 % 3) * US;
        t.push(flow);
    }
    let end = 10 * MS;
    let r = same_for_every_thread_count(&f.spec, &t, &stopping(3, end));
    assert_stopped_early(&r, end);
}

#[test]
fn mirrored_flows_that_complete_at_one_instant_in_two_parts_stop_as_one_thread_does() {
    // Two flows the same in every respect on mirrored leaves: each completes in its own part
    // at the same instant, and the one thread's order of those two events decides the stop.
    let f = fabric(&FabricDefaults::lossless(3, 40_000));
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    t.push(FlowSpec::sized(f.hosts[0], f.hosts[4], class, 100_000));
    t.push(FlowSpec::sized(f.hosts[8], f.hosts[12], class, 100_000));
    let end = 5 * MS;
    let r = same_for_every_thread_count(&f.spec, &t, &stopping(1, end));
    assert_stopped_early(&r, end);
    assert_eq!(r.flows[0].completion_ps, r.flows[1].completion_ps, "the two complete at one instant");
}

#[test]
fn tcp_and_iwarp_flows_with_drops_stop_at_the_same_instant_on_every_thread_count() {
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 256 << 10;
    let f = fabric(&d);
    let mut t = Traffic::new();
    let class = FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false };
    t.incast(&f.hosts[4..], f.hosts[0], &FlowSpec::sized(0, 0, class, 200_000).tcp(TcpFlow::default()));
    let mut read = FlowSpec::sized(f.hosts[1], f.hosts[13], class, 300_000).iwarp(RdmaOp::Read);
    read.udp_src_port = 40_000;
    t.push(read);
    let end = 500 * MS;
    let r = same_for_every_thread_count(&f.spec, &t, &stopping(4, end));
    assert_stopped_early(&r, end);
    assert!(r.conservation.dropped_packets > 0, "the incast drops");
}

#[test]
fn a_run_whose_flows_do_not_all_complete_runs_to_its_end_on_every_thread_count() {
    let f = fabric(&FabricDefaults::lossless(3, 40_000));
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    t.push(FlowSpec::sized(f.hosts[0], f.hosts[5], class, 10_000));
    t.push(FlowSpec::sized(f.hosts[9], f.hosts[2], class, 100_000_000));
    let end = 200 * US;
    let r = same_for_every_thread_count(&f.spec, &t, &stopping(2, end));
    assert_eq!(r.end_time_ps, end, "no stop");
    assert!(r.flows[0].completion_ps.is_some() && r.flows[1].completion_ps.is_none());
}

#[test]
fn the_stop_instant_is_that_of_the_last_completion_in_the_one_thread_order() {
    let d = |now, key, seq, at| stop::Done { now, key, seq, at };
    // Two completions at one instant in two parts: the later key's decides, though the other
    // drains into host memory later; a completion at an earlier instant drains later still.
    let notes = [d(10, 5, 0, 30), d(10, 7, 0, 12), d(8, 9, 0, 40)];
    assert_eq!(stop::last_of(&notes, 3), Some(12));
    // One event, two completions: the later one.
    assert_eq!(stop::last_of(&[d(10, 7, 0, 25), d(10, 7, 1, 11)], 2), Some(11));
    // A completion time before the time of its event: `StopRun` goes at the event's time.
    assert_eq!(stop::last_of(&[d(10, 7, 0, 3)], 1), Some(10));
    // Not every flow completed: no stop.
    assert_eq!(stop::last_of(&notes, 4), None);
}

/// Random sized flows, open-loop, over TCP and over iWARP, on random leaf-spine fabrics,
/// stopping when they are done: the same results and stop instant on 1 to 4 threads.
#[test]
fn random_sized_flows_stop_at_the_same_instant_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(5);
    for case in 0..4 {
        let shape = LeafSpine {
            leaves: 2 + rng.below(3) as usize,
            spines: 1 + rng.below(2) as usize,
            hosts_per_leaf: 1 + rng.below(3) as usize,
            host_rate_bps: G25,
            fabric_rate_bps: G100,
            host_delay_ps: (1 + rng.below(500)) * NS,
            fabric_delay_ps: (1 + rng.below(2000)) * NS,
        };
        let mut d = FabricDefaults::lossless(3, 40_000);
        d.switch.buffer.size_bytes = (1024 + rng.below(512)) << 10;
        let f = leaf_spine(&shape, &d);
        let n = f.hosts.len() as u64;
        let mut t = Traffic::new();
        for k in 0..1 + rng.below(2 * n) {
            let src = rng.below(n) as usize;
            let dst = (src + 1 + rng.below(n - 1) as usize) % n as usize;
            let size = 1_000 + rng.below(200_000);
            let tcp = FlowClass { priority: 3, dscp: 26, ecn_capable: false, tagged: true };
            let mut flow = match rng.below(3) {
                0 => FlowSpec::sized(f.hosts[src], f.hosts[dst], FlowClass::roce(3, 26), size),
                1 => FlowSpec::sized(f.hosts[src], f.hosts[dst], tcp, size).tcp(TcpFlow::default()),
                _ => FlowSpec::sized(f.hosts[src], f.hosts[dst], tcp, size).iwarp(RdmaOp::Write),
            };
            flow.udp_src_port = 20_000 + k as u16;
            flow.start_ps = rng.below(30) * US;
            t.push(flow);
        }
        let end = 50 * MS;
        let r = same_for_every_thread_count(&f.spec, &t, &stopping(case, end));
        assert_stopped_early(&r, end);
    }
}
