use super::*;
use crate::bench::results_digest;
use crate::ecn::EcnSpec;
use crate::perftest::{PerftestKind, PerftestLength, PerftestSpec};
use crate::rdma::RdmaOp;
use crate::time::{MS, NS, US};
use crate::topology::{leaf_spine, single_switch, FabricDefaults, LeafSpine};
use crate::traffic::{FlowClass, FlowSpec};

const G100: u64 = 100_000_000_000;

/// The results of `run_threads` at 1 to 4 threads, each checked against one thread's: the
/// same digest, and the same results but for the two engine peaks (see `merge::finish`).
pub(super) fn same_for_every_thread_count(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig) -> Results {
    let one = crate::run(spec, traffic, config).expect("one thread");
    one.check_conservation().expect("conservation");
    let plain = |r: &Results| Results { peak_packets_in_flight: 0, peak_pending_events: 0, ..r.clone() };
    for threads in 1..=4 {
        let r = run_threads(spec, traffic, config, threads).expect("threads");
        r.check_conservation().expect("conservation");
        assert_eq!(results_digest(&r), results_digest(&one), "{threads} threads: digest");
        assert!(plain(&r) == plain(&one), "{threads} threads: results");
        assert_eq!(r.events, one.events, "{threads} threads: events");
    }
    one
}

/// Four leaves of four 100G hosts under two spines (22 nodes), host links of 100 ns and spine
/// links of 500 ns.
pub(super) fn leaf_spine_fabric(d: &FabricDefaults) -> crate::topology::Fabric {
    leaf_spine_fabric_with(d, 500 * NS)
}

/// [`leaf_spine_fabric`] with spine links of `fabric_delay_ps`.
pub(super) fn leaf_spine_fabric_with(d: &FabricDefaults, fabric_delay_ps: Time) -> crate::topology::Fabric {
    let shape = LeafSpine {
        leaves: 4,
        spines: 2,
        hosts_per_leaf: 4,
        host_rate_bps: G100,
        fabric_rate_bps: G100,
        host_delay_ps: 100 * NS,
        fabric_delay_ps,
    };
    leaf_spine(&shape, d)
}

#[test]
fn a_leaf_spine_under_pfc_gives_the_same_results_on_every_thread_count() {
    // Two senders per destination across the spines, greedy, into a small buffer: PFC pauses
    // the spines and the senders' leaves.
    let mut d = FabricDefaults::lossless(3, 100_000);
    d.switch.buffer.size_bytes = 1 << 20;
    let f = leaf_spine_fabric(&d);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    for (i, &h) in f.hosts.iter().enumerate() {
        let dst = f.hosts[(i + 4) % 16];
        let other = f.hosts[(i + 9) % 16];
        t.push(FlowSpec::greedy(h, dst, class));
        t.push(FlowSpec::sized(h, other, class, 200_000));
    }
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(7, 200 * US));
    let pauses: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert!(pauses > 0, "the scenario pauses");
    // Frames still in the network at the end, which the results read in every part's pool.
    assert!(r.conservation.in_flight_packets > 0, "frames in flight at the end");
}

#[test]
fn an_incast_with_drops_gives_the_same_results_on_every_thread_count() {
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 1 << 20;
    let f = single_switch(9, G100, 50 * NS, &d);
    let mut t = Traffic::new();
    t.incast(&f.hosts[1..], f.hosts[0], &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 1 << 20));
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(1, MS));
    assert!(r.conservation.dropped_packets > 0, "the incast drops");
}

#[test]
fn ecn_marks_and_queue_samples_are_the_same_on_every_thread_count() {
    let mut d = FabricDefaults::lossless(3, 64_000);
    d.switch.buffer.size_bytes = 4 << 20;
    d.switch_port = d.switch_port.with_ecn(3, EcnSpec { kmin_bytes: 20_000, kmax_bytes: 400_000, pmax: 0.2 });
    let f = leaf_spine_fabric(&d);
    let mut t = Traffic::new();
    t.incast(&f.hosts[4..12], f.hosts[0], &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 256 << 10));
    let mut config = SimConfig::new(3, 400 * US);
    config.sampling.queue_interval_ps = Some(US);
    // A sample every µs for 400 µs, at most 64 kept a port: halved three times, 51 samples 8 µs
    // apart; each part halves its own ports' samples at the same instants.
    config.sampling.max_samples_per_port = 64;
    let r = same_for_every_thread_count(&f.spec, &t, &config);
    let marked: u64 = r.ports.iter().map(|p| p.total(|c| c.ecn_marked)).sum();
    assert!(marked > 0, "the scenario marks");
    let samples = r.queue_samples.as_ref().expect("samples");
    assert!(samples.depth_bytes.iter().flatten().any(|&d| d > 0));
    assert_eq!(samples.interval_ps, 8 * US);
    assert!(samples.depth_bytes.iter().all(|d| d.len() == 51), "{:?}", samples.depth_bytes[0].len());
    // Every switch port, in order, though each part sampled its own.
    let switch_ports: Vec<usize> = (0..r.ports.len()).filter(|&p| !f.spec.is_host(r.ports[p].node)).collect();
    assert_eq!(samples.ports, switch_ports);

    // A part samples its own switches' ports only.
    let cut = partition(&f.spec, 2);
    let shared = BuildShared::prepare(&f.spec, &t, &config, 2).expect("shared");
    let mut part = Simulation::new_part(&f.spec, &t, &config, &shared, (&cut.part_of, 1)).expect("part 1");
    let sampled = &part.engine().samples.as_ref().expect("samples").ports;
    let own: Vec<usize> = switch_ports.iter().copied().filter(|&p| cut.part_of[r.ports[p].node] == 1).collect();
    assert!(!own.is_empty() && own.len() < switch_ports.len());
    assert_eq!(*sampled, own);
}

#[test]
fn link_pause_and_its_counters_are_the_same_on_every_thread_count() {
    // 802.3x on every port, no PFC: two incasts' XOFFs pause whole links, from the leaves of
    // the receivers (the first leaf and the last) back to the spines and the senders' leaves,
    // each port's pause state and counters held by its own part and read from there for the
    // results.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 2 << 20;
    d.switch_port = d.switch_port.with_link_pause(&[3], 64_000);
    d.host_port.link_pause = true;
    let f = leaf_spine_fabric(&d);
    let mut t = Traffic::new();
    t.incast(&f.hosts[4..16], f.hosts[0], &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 256 << 10));
    t.incast(&f.hosts[0..12], f.hosts[15], &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 256 << 10));
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(1, 300 * US));
    let pauses = |node: usize| {
        r.ports.iter().filter(|p| p.node == node).filter_map(|p| p.link_pause).map(|l| l.sent).sum::<u64>()
    };
    let cut = partition(&f.spec, 2);
    let sent_in = |part: u32| (0..f.spec.nodes.len()).filter(|&n| cut.part_of[n] == part).map(pauses).sum::<u64>();
    assert!(sent_in(0) > 0 && sent_in(1) > 0, "PAUSE frames sent in both parts: {} and {}", sent_in(0), sent_in(1));
    assert!(r.ports.iter().filter_map(|p| p.link_pause).any(|l| l.paused_ps > 0));
}

#[test]
fn what_threads_cannot_run_yet_is_refused_by_name() {
    let f = single_switch(3, G100, 100 * NS, &FabricDefaults::lossless(3, 100_000));
    let mut t = Traffic::new();
    t.push(FlowSpec::sized(f.hosts[0], f.hosts[1], FlowClass::roce(3, 26), 10_000));
    let config = SimConfig::new(1, 10 * US);
    let err = |t: &Traffic, c: &SimConfig, n| match run_threads(&f.spec, t, c, n) {
        Err(SimError::InvalidConfig { message }) => message,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(err(&t, &config, 0), "threads must be at least 1");
    let stop = SimConfig { stop_when_done: true, ..config };
    let mut spec = f.spec.clone();
    let mut rdma = t.clone();
    crate::bench::with_rdma(&mut spec, &mut rdma, 4096);
    // The queue pairs run on two threads, stopping when they are done or not.
    let one = crate::run(&spec, &rdma, &stop).expect("one thread");
    assert_eq!(results_digest(&run_threads(&spec, &rdma, &stop, 2).expect("two threads")), results_digest(&one));
    assert!(run_threads(&spec, &rdma, &config, 2).is_ok());
    // The ns-3 simulator's order of an instant's events is one thread's.
    let ns3 = SimConfig { event_order: EventOrder::PushOrder, ..config };
    let message = err(&t, &ns3, 2);
    assert!(message.starts_with("the ns-3 simulator's ECN draws and event order"), "{message}");
    assert!(message.ends_with("run with --threads 1 (the same results)"), "{message}");
    // What one thread runs, it still runs with one.
    assert!(run_threads(&f.spec, &t, &stop, 1).is_ok());
}

/// Random leaf-spine fabrics (shape, cable lengths, lossless or lossy small buffers) under
/// random open-loop flows, sized and greedy: the same results on 1 to 4 threads each time.
#[test]
fn random_fabrics_and_flows_give_the_same_results_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(42);
    for case in 0..6 {
        let f = random_fast_leaf_spine(&mut rng);
        let n = f.hosts.len() as u64;
        let mut t = Traffic::new();
        for _ in 0..2 + rng.below(3 * n) {
            let src = rng.below(n) as usize;
            let dst = (src + 1 + rng.below(n - 1) as usize) % n as usize;
            let class = FlowClass::roce(3, 26);
            let mut flow = match rng.below(3) {
                0 => FlowSpec::greedy(f.hosts[src], f.hosts[dst], class),
                _ => FlowSpec::sized(f.hosts[src], f.hosts[dst], class, 1_000 + rng.below(300_000)),
            };
            flow.start_ps = rng.below(20) * US;
            t.push(flow);
        }
        let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(case, 100 * US));
        assert!(r.conservation.injected_packets > 0, "case {case}: traffic flows");
    }
}

/// DCQCN at every host and RED/ECN marking on priority 3 at every switch (the DCQCN paper's
/// parameters, as in [`crate::bench::with_rdma`]).
pub(super) fn with_dcqcn(spec: &NetworkSpec) -> NetworkSpec {
    let mut spec = spec.clone();
    crate::bench::with_rdma(&mut spec, &mut Traffic::new(), 4096);
    spec
}

/// The RDMA results of the flows doing `op`.
fn rdma_of(r: &Results, op: RdmaOp) -> Vec<&crate::stats::RdmaFlowResults> {
    r.flows.iter().filter_map(|f| f.rdma.as_ref()).filter(|q| q.op == op).collect()
}

/// WRITE, READ and SEND queue pairs between the leaves, greedy and sized, under DCQCN into a
/// small lossless buffer: PFC pauses, ECN marks, CNPs and rate cuts at the data senders (for
/// READ the responders), all the same on 1 to 4 threads.
#[test]
fn rdma_write_read_and_send_under_dcqcn_and_pfc_on_a_leaf_spine_give_the_same_results_on_every_thread_count() {
    let mut d = FabricDefaults::lossless(3, 100_000);
    d.switch.buffer.size_bytes = 1 << 20;
    let f = leaf_spine_fabric(&d);
    let spec = with_dcqcn(&f.spec);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    let ops = [RdmaOp::Write, RdmaOp::Read, RdmaOp::Send];
    for (i, &h) in f.hosts.iter().enumerate() {
        let op = ops[i % 3];
        let mut greedy = FlowSpec::greedy(h, f.hosts[(i + 4) % 16], class);
        greedy.payload_bytes = 4096;
        t.push(greedy.rc(op));
        let mut sized = FlowSpec::sized(h, f.hosts[(i + 9) % 16], class, 300_000);
        sized.payload_bytes = 4096;
        t.push(sized.rc(ops[(i + 1) % 3]));
    }
    let r = same_for_every_thread_count(&spec, &t, &SimConfig::new(5, 300 * US));
    let pauses: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    let marked: u64 = r.ports.iter().map(|p| p.total(|c| c.ecn_marked)).sum();
    assert!(pauses > 0 && marked > 0, "the scenario pauses ({pauses}) and marks ({marked})");
    for op in ops {
        let qps = rdma_of(&r, op);
        assert!(qps.iter().any(|q| q.rate_cuts > 0 && q.cnps_received > 0), "{op:?}: DCQCN cuts a rate");
        assert!(qps.iter().any(|q| q.messages_completed > 0), "{op:?}: messages complete");
    }
}

/// The 320-host three-tier fat tree cut by pods (by the work of the flows), RDMA WRITE, READ and SEND between pods under
/// DCQCN: the same results on 1 to 4 threads.
#[test]
fn rdma_flows_across_the_pods_of_a_fat_tree_give_the_same_results_on_every_thread_count() {
    let f = crate::topology::hpcc_fat_tree(&crate::bench::fat_tree_defaults());
    let spec = with_dcqcn(&f.spec);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    let ops = [RdmaOp::Write, RdmaOp::Read, RdmaOp::Send];
    // Eight hosts of pod 0 and eight of pod 2 each to one host of pod 4 (two incasts across the
    // cores), and a few flows back.
    for i in 0..16 {
        let src = f.hosts[if i < 8 { i * 3 } else { 128 + i * 3 }];
        let dst = f.hosts[256 + (i % 2) * 17];
        let mut flow = FlowSpec::sized(src, dst, class, 200_000 + 10_000 * i as u64);
        flow.payload_bytes = 4096;
        flow.start_ps = i as u64 * 300 * NS;
        t.push(flow.rc(ops[i % 3]));
        if i % 4 == 0 {
            let mut back = FlowSpec::greedy(dst, f.hosts[70 + i], class);
            back.payload_bytes = 4096;
            t.push(back.rc(ops[(i / 4) % 3]));
        }
    }
    let config = SimConfig::new(11, 200 * US);
    // The parts are cut by the flows' work (pods 0, 1, 2 and 4 busy, pod 3 idle), not by ports.
    assert_ne!(cut(&spec, &t, &config, 2).part_of, partition(&spec, 2).part_of);
    let r = same_for_every_thread_count(&spec, &t, &config);
    let marked: u64 = r.ports.iter().map(|p| p.total(|c| c.ecn_marked)).sum();
    assert!(marked > 0, "the incasts mark");
    for op in ops {
        assert!(rdma_of(&r, op).iter().any(|q| q.cnps_received > 0), "{op:?}: CNPs reach the data sender");
    }
}

/// RDMA incasts into a small lossy buffer: drops, NAKs and go-back-N retransmissions (WRITE
/// and SEND from the requesters, READ responses again from the responders), the same on 1 to
/// 4 threads.
#[test]
fn rdma_incasts_with_drops_and_retransmissions_give_the_same_results_on_every_thread_count() {
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 1 << 20;
    let f = single_switch(9, G100, 50 * NS, &d);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    for (k, &h) in f.hosts[1..].iter().enumerate() {
        let mut flow = FlowSpec::sized(h, f.hosts[0], class, 1 << 20);
        flow.payload_bytes = 4096;
        t.push(flow.rc([RdmaOp::Write, RdmaOp::Send][k % 2]));
        // Host 0 reads from every other host: the responses converge on host 0 too.
        let mut read = FlowSpec::sized(f.hosts[0], h, class, 1 << 19);
        read.payload_bytes = 4096;
        t.push(read.rc(RdmaOp::Read));
    }
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(2, 2 * MS));
    assert!(r.conservation.dropped_packets > 0, "the incast drops");
    for op in [RdmaOp::Write, RdmaOp::Read, RdmaOp::Send] {
        let resent: u64 = rdma_of(&r, op).iter().map(|q| q.retransmitted_packets).sum();
        assert!(resent > 0, "{op:?}: go-back-N resends");
    }
}

/// perftest bandwidth and latency tests between leaves (client and server in different parts),
/// beside RDMA background traffic under DCQCN: the same results, perftest reports among them,
/// on 1 to 4 threads.
#[test]
fn perftest_tests_give_the_same_results_on_every_thread_count() {
    let mut d = FabricDefaults::lossless(3, 100_000);
    d.switch.buffer.size_bytes = 1 << 20;
    let f = leaf_spine_fabric(&d);
    let spec = with_dcqcn(&f.spec);
    let class = FlowClass::roce(3, 26);
    let mut t = Traffic::new();
    let kinds = [
        PerftestKind::WriteBw,
        PerftestKind::ReadBw,
        PerftestKind::SendBw,
        PerftestKind::WriteLat,
        PerftestKind::ReadLat,
        PerftestKind::SendLat,
    ];
    for (i, kind) in kinds.into_iter().enumerate() {
        let mut p = PerftestSpec::new(kind, f.hosts[i], f.hosts[15 - i], class);
        p.size = 8192;
        p.length = if kind.is_bw() { PerftestLength::Duration(100 * US) } else { PerftestLength::Iterations(20) };
        if kind.is_bw() {
            p.qps = 2;
        }
        t.perftest.push(p);
    }
    for i in 0..4 {
        let mut flow = FlowSpec::greedy(f.hosts[6 + i], f.hosts[12 + i % 2], class);
        flow.payload_bytes = 4096;
        t.push(flow.rc(RdmaOp::Write));
    }
    let r = same_for_every_thread_count(&spec, &t, &SimConfig::new(9, 200 * US));
    assert_eq!(r.perftest.len(), kinds.len());
    for p in &r.perftest {
        let done = p.bw.as_ref().map(|b| b.messages).or(p.lat.as_ref().map(|l| l.iterations));
        assert!(done.is_some_and(|n| n > 0), "{:?} reports: {p:?}", p.kind);
    }
}

/// Random leaf-spine fabrics under random RDMA queue pairs (WRITE, READ or SEND, sized or
/// greedy, DCQCN or not, lossless or lossy): the same results on 1 to 4 threads each time.
#[test]
fn random_fabrics_and_rdma_flows_give_the_same_results_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(4242);
    let ops = [RdmaOp::Write, RdmaOp::Read, RdmaOp::Send];
    for case in 0..5 {
        let f = random_fast_leaf_spine(&mut rng);
        let spec = if rng.below(3) == 0 { f.spec.clone() } else { with_dcqcn(&f.spec) };
        let n = f.hosts.len() as u64;
        let mut t = Traffic::new();
        for _ in 0..2 + rng.below(3 * n) {
            let src = rng.below(n) as usize;
            let dst = (src + 1 + rng.below(n - 1) as usize) % n as usize;
            let class = FlowClass::roce(3, 26);
            let mut flow = match rng.below(3) {
                0 => FlowSpec::greedy(f.hosts[src], f.hosts[dst], class),
                _ => FlowSpec::sized(f.hosts[src], f.hosts[dst], class, 1_000 + rng.below(300_000)),
            };
            flow.payload_bytes = [1024, 4096][rng.below(2) as usize];
            flow.start_ps = rng.below(20) * US;
            t.push(flow.rc(ops[rng.below(3) as usize]));
        }
        let r = same_for_every_thread_count(&spec, &t, &SimConfig::new(case, 100 * US));
        assert!(r.flows.iter().any(|f| f.rdma.as_ref().is_some_and(|q| q.messages_completed > 0)), "case {case}");
    }
}

/// A random leaf-spine of the random tests: 2-4 leaves, 1-3 spines, 1-4 hosts a leaf at 100G,
/// spine links of 100G or 400G, host and spine cables of 1-500 ns and 1-2000 ns, lossless
/// (100 KB of headroom) or lossy, a buffer of 256 KiB to 2.25 MiB.
fn random_fast_leaf_spine(rng: &mut crate::rng::Rng) -> crate::topology::Fabric {
    let shape = LeafSpine {
        leaves: 2 + rng.below(3) as usize,
        spines: 1 + rng.below(3) as usize,
        hosts_per_leaf: 1 + rng.below(4) as usize,
        host_rate_bps: G100,
        fabric_rate_bps: [G100, 4 * G100][rng.below(2) as usize],
        host_delay_ps: (1 + rng.below(500)) * NS,
        fabric_delay_ps: (1 + rng.below(2000)) * NS,
    };
    let mut d = if rng.below(2) == 0 { FabricDefaults::lossless(3, 100_000) } else { FabricDefaults::lossy() };
    d.switch.buffer.size_bytes = (256 + rng.below(2048)) << 10;
    leaf_spine(&shape, &d)
}

/// What a random 25G leaf-spine ([`random_leaf_spine`]) may be: `hosts.0` to `hosts.0 +
/// hosts.1 - 1` hosts a leaf, the headroom of a lossless fabric, and the switch buffer's base
/// in KiB when lossless and when lossy (up to 511 KiB more).
pub(super) struct RandomShape {
    pub hosts: (u64, u64),
    pub headroom: u64,
    pub buffer_kib: (u64, u64),
}

/// A random leaf-spine of `shape` with 25G hosts and 100G spine links: 2-4 leaves, 1-2 spines,
/// cables of 1-500 ns and 1-2000 ns, lossless or lossy one time in two. Returns the fabric and
/// whether it is lossless.
pub(super) fn random_leaf_spine(rng: &mut crate::rng::Rng, shape: &RandomShape) -> (crate::topology::Fabric, bool) {
    const G25: u64 = 25_000_000_000;
    let ls = LeafSpine {
        leaves: 2 + rng.below(3) as usize,
        spines: 1 + rng.below(2) as usize,
        hosts_per_leaf: (shape.hosts.0 + rng.below(shape.hosts.1)) as usize,
        host_rate_bps: G25,
        fabric_rate_bps: G100,
        host_delay_ps: (1 + rng.below(500)) * NS,
        fabric_delay_ps: (1 + rng.below(2000)) * NS,
    };
    let lossless = rng.below(2) == 0;
    let mut d = if lossless { FabricDefaults::lossless(3, shape.headroom) } else { FabricDefaults::lossy() };
    let base = if lossless { shape.buffer_kib.0 } else { shape.buffer_kib.1 };
    d.switch.buffer.size_bytes = (base + rng.below(512)) << 10;
    (leaf_spine(&ls, &d), lossless)
}

#[test]
fn the_parts_share_one_copy_of_the_routes_and_tcp_settings_built_before_them() {
    let f = leaf_spine_fabric(&FabricDefaults::lossless(3, 100_000));
    let mut t = Traffic::new();
    t.push(FlowSpec::sized(f.hosts[0], f.hosts[15], FlowClass::roce(3, 26), 100_000));
    let config = SimConfig::new(1, 100 * US);
    let shared = BuildShared::prepare(&f.spec, &t, &config, 2).expect("prepared");
    let cut = partition(&f.spec, 2);
    let mut a = Simulation::new_part(&f.spec, &t, &config, &shared, (&cut.part_of, 0)).expect("part 0");
    let mut b = Simulation::new_part(&f.spec, &t, &config, &shared, (&cut.part_of, 1)).expect("part 1");
    let (ra, rb) = (std::sync::Arc::clone(&a.engine().routes), std::sync::Arc::clone(&b.engine().routes));
    assert!(std::sync::Arc::ptr_eq(&ra, &rb), "one routing table for both parts");
    assert!(std::sync::Arc::ptr_eq(&a.engine().tcp_hosts, &b.engine().tcp_hosts), "one copy of the TCP settings");
    // The parts' engines, the shared tables and the two clones above: nothing else holds it.
    assert_eq!(std::sync::Arc::strong_count(&ra), 5);
    // What the parts write is their own; of the ports' cold state and PFC timers, each holds
    // its own ports' only.
    assert!(!std::ptr::eq(a.engine().ports.as_ptr(), b.engine().ports.as_ptr()));
    let ports = a.engine().ports.len();
    let own = |sim: &mut Simulation<'_, NoObserver>, me: u32| {
        let e = sim.engine();
        let own: Vec<usize> = (0..ports).filter(|&g| cut.part_of[e.ports[g].node as usize] == me).collect();
        assert_eq!((e.pfc_timers.len(), e.port_cold.len()), (own.len(), own.len()));
        // Each own port has a place of its own, in port order; the others have none.
        let places: Vec<u32> = own.iter().map(|&g| e.port_place[g]).collect();
        assert_eq!(places, (0..own.len() as u32).collect::<Vec<_>>());
        assert_eq!(e.port_place.iter().filter(|&&i| i == u32::MAX).count(), ports - own.len());
        assert_eq!(e.port_cold.capacity(), own.len(), "sized at once for the own ports");
        assert_eq!(e.ecn_rng.len(), own.len(), "the ECN draws of the own ports");
        // Of the switches' buffer accounting, each holds its own switches' only.
        for sw in &e.switches {
            let n = f.spec.port_count(sw.node as usize);
            let held = if cut.part_of[sw.node as usize] == me { n * 8 } else { 0 };
            assert_eq!(sw.mmu.slot_count(), held, "switch {}", sw.node);
        }
        own.len()
    };
    assert_eq!(own(&mut a, 0) + own(&mut b, 1), ports);
    drop((a, b, ra, rb, shared));
    // The profile shows the shared build apart from each part's.
    let (r, profile) = run_threads_profiled(&f.spec, &t, &config, 2).expect("two threads");
    let profile = profile.expect("a profile");
    assert!(profile.shared_build_seconds > 0.0);
    #[cfg(target_os = "linux")]
    assert!(profile.parts.iter().all(|p| p.build_cpu_seconds.is_some_and(|s| s >= 0.0)), "{profile:?}");
    assert_eq!(results_digest(&r), results_digest(&crate::run(&f.spec, &t, &config).expect("one")));
}

#[test]
fn bad_inputs_are_refused_once_before_any_part_is_built() {
    let f = leaf_spine_fabric(&FabricDefaults::lossless(3, 100_000));
    let mut t = Traffic::new();
    // A flow from a host to a node that does not exist.
    t.push(FlowSpec::sized(f.hosts[0], f.spec.nodes.len() + 5, FlowClass::roce(3, 26), 100_000));
    let config = SimConfig::new(1, 100 * US);
    let one = crate::run(&f.spec, &t, &config).unwrap_err().to_string();
    let two = run_threads(&f.spec, &t, &config, 2).unwrap_err().to_string();
    assert_eq!(two, one, "the same refusal as one thread's");
    assert!(BuildShared::prepare(&f.spec, &t, &config, 2).is_err());
}

/// A frame sent to another part stays in the sender's pool through the window, its message
/// holding its id; at the window's end `pack_outbox` moves each packet into its message, in
/// order, and frees its slot.
#[test]
fn the_packets_of_frames_sent_to_another_part_move_into_their_messages_at_the_window_end() {
    let f = leaf_spine_fabric(&FabricDefaults::lossless(3, 100_000));
    let (src, dst) = (f.hosts[0], f.hosts[15]);
    let mut t = Traffic::new();
    t.push(FlowSpec::sized(src, dst, FlowClass::roce(3, 26), 100_000));
    let config = SimConfig::new(1, 100 * US);
    let shared = BuildShared::prepare(&f.spec, &t, &config, 2).expect("prepared");
    let cut = partition(&f.spec, 2);
    let me = cut.part_of[src];
    assert_ne!(me, cut.part_of[dst], "the flow crosses the cut");
    let mut sim = Simulation::new_part(&f.spec, &t, &config, &shared, (&cut.part_of, me)).expect("the part");
    let e = sim.engine();
    e.join_part(&cut, me, &config);
    e.run_until(5 * US);
    let to = 1 - me as usize;
    let sent: Vec<(u32, crate::packet::Packet)> = e.part.as_deref().expect("a part").outbox[to]
        .iter()
        .map(|m| {
            assert!(m.packet.is_none(), "packed only at the window's end");
            match m.event {
                Some(Event::WireArrive { pkt, .. }) => (pkt, *e.pool.get(pkt)),
                other => panic!("a data frame's arrival, not {other:?}"),
            }
        })
        .collect();
    assert!(sent.len() > 10, "frames crossed in the window: {}", sent.len());
    let live = e.pool.in_use();
    e.pack_outbox();
    assert_eq!(e.pool.in_use(), live - sent.len(), "their slots freed");
    let batch = &e.part.as_deref().expect("a part").outbox[to];
    assert_eq!(batch.len(), sent.len());
    for (m, (_, packet)) in batch.iter().zip(&sent) {
        let held = m.packet.as_ref().map(|p| format!("{p:?}"));
        assert_eq!(held, Some(format!("{packet:?}")), "each message holds its own packet");
    }
    // Packed twice, nothing moves again.
    e.pack_outbox();
    assert_eq!(e.pool.in_use(), live - sent.len());
}
