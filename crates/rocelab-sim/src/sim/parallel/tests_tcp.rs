//! TCP, iWARP and iperf traffic on several threads: the whole results equal to one thread's.

use super::tests::{random_leaf_spine, same_for_every_thread_count, RandomShape};
use super::*;
use crate::rdma::RdmaOp;
use crate::time::{MS, NS, US};
use crate::topology::{leaf_spine, single_switch, FabricDefaults, LeafSpine};
use crate::traffic::{FlowClass, FlowSpec, TcpFlow};

const G25: u64 = 25_000_000_000;
const G100: u64 = 100_000_000_000;

/// Four leaves of four hosts under two spines: the threads cut it by leaf.
fn leaf_spine_fabric(d: &FabricDefaults, host_rate_bps: u64) -> crate::topology::Fabric {
    let shape = LeafSpine {
        leaves: 4,
        spines: 2,
        hosts_per_leaf: 4,
        host_rate_bps,
        fabric_rate_bps: G100,
        host_delay_ps: 100 * NS,
        fabric_delay_ps: 500 * NS,
    };
    leaf_spine(&shape, d)
}

/// TCP on `priority`: tagged with DSCP 26 on the lossless priority 3, else untagged.
fn tcp_class(priority: u8) -> FlowClass {
    let lossless = priority == 3;
    FlowClass { priority, dscp: if lossless { 26 } else { 0 }, ecn_capable: false, tagged: lossless }
}

#[test]
fn tcp_flows_through_an_incast_with_drops_give_the_same_results_on_every_thread_count() {
    // Twelve senders on three leaves into one host, lossy, a small buffer: the switch drops
    // and the senders retransmit.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 256 << 10;
    let f = leaf_spine_fabric(&d, G25);
    let mut t = Traffic::new();
    let template = FlowSpec::sized(0, 0, tcp_class(0), 400_000).tcp(TcpFlow::default());
    t.incast(&f.hosts[4..], f.hosts[0], &template);
    // And some traffic the other way, greedy, ending at a stop time.
    let mut back = FlowSpec::greedy(f.hosts[1], f.hosts[9], tcp_class(0)).tcp(TcpFlow::default());
    back.stop_ps = Some(MS);
    t.push(back);
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(5, 3 * MS));
    assert!(r.conservation.dropped_packets > 0, "the incast drops");
    let retransmitted: u64 =
        r.flows.iter().filter_map(|f| f.tcp.as_ref()).map(|c| c.ends[0].stats.retransmissions).sum();
    assert!(retransmitted > 0, "the senders retransmit");
    assert!(r.flows.iter().filter(|f| f.completion_ps.is_some()).count() >= 6, "flows complete");
}

#[test]
fn iperf_streams_under_pfc_give_the_same_results_on_every_thread_count() {
    // Two iperf tests of four streams each, across the spines into a lossless priority with a
    // small buffer: PFC pauses the fabric.
    let mut d = FabricDefaults::lossless(3, 40_000);
    d.switch.buffer.size_bytes = 512 << 10;
    let f = leaf_spine_fabric(&d, G25);
    let mut t = Traffic::new();
    let template = FlowSpec::greedy(0, 0, tcp_class(3)).tcp(TcpFlow::default());
    t.iperf(f.hosts[4], f.hosts[0], 4, &template);
    t.iperf(f.hosts[12], f.hosts[0], 4, &FlowSpec { udp_src_port: 51_000, ..template });
    t.iperf(f.hosts[8], f.hosts[0], 4, &FlowSpec { udp_src_port: 50_000, ..template });
    let paced = FlowSpec { rate_bps: Some(2_000_000_000), start_ps: 20 * US, ..template };
    t.iperf(f.hosts[13], f.hosts[2], 2, &paced);
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(2, 2 * MS));
    let pauses: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert!(pauses > 0, "the scenario pauses");
    assert_eq!(r.iperf.len(), 4);
    assert!(r.iperf.iter().all(|i| i.sum.receiver_bytes > 0), "every test moves data");
}

#[test]
fn iwarp_writes_sends_and_reads_give_the_same_results_on_every_thread_count() {
    // iWARP messages on streams whose readers are in other parts: each message crosses
    // as it is written; READ responses come back on the responder's own stream.
    let f = leaf_spine_fabric(&FabricDefaults::lossy(), G25);
    let mut t = Traffic::new();
    let ops = [RdmaOp::Write, RdmaOp::Send, RdmaOp::Read];
    for (i, &h) in f.hosts.iter().enumerate() {
        let dst = f.hosts[(i + 5) % 16];
        let op = ops[i % 3];
        let mut flow = FlowSpec::sized(h, dst, tcp_class(0), 100_000 + 20_000 * i as u64).iwarp(op);
        flow.udp_src_port = 40_000 + i as u16;
        flow.start_ps = (i as u64 % 4) * 5 * US;
        t.push(flow);
        let mut messages = FlowSpec::greedy(dst, h, tcp_class(0)).iwarp(op);
        if let crate::traffic::Transport::Iwarp(rc) = &mut messages.transport {
            rc.message_bytes = 8_192;
            rc.tx_depth = 4;
        }
        messages.udp_src_port = 41_000 + i as u16;
        t.push(messages);
    }
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(9, MS));
    let conns = r.flows.iter().filter_map(|f| f.tcp.as_ref());
    let completed: u64 = conns.filter_map(|c| c.iwarp.as_ref()).map(|w| w.messages_completed).sum();
    assert!(completed > 16, "messages complete");
    assert!(r.flows.iter().any(|f| f.completion_ps.is_some()), "sized flows complete");
}

/// Random TCP flows (sized, greedy, paced) on random leaf-spine fabrics, lossless or lossy:
/// the same results on 1 to 4 threads each time.
#[test]
fn random_tcp_traffic_gives_the_same_results_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(7);
    for case in 0..4 {
        let shape = RandomShape { hosts: (1, 3), headroom: 100_000, buffer_kib: (1024, 128) };
        let (f, lossless) = random_leaf_spine(&mut rng, &shape);
        let n = f.hosts.len() as u64;
        let mut t = Traffic::new();
        for k in 0..2 + rng.below(2 * n) {
            let src = rng.below(n) as usize;
            let dst = (src + 1 + rng.below(n - 1) as usize) % n as usize;
            let class = tcp_class(if lossless { 3 } else { 0 });
            let mut flow = match rng.below(3) {
                0 => FlowSpec::greedy(f.hosts[src], f.hosts[dst], class),
                1 => FlowSpec {
                    rate_bps: Some(1_000_000_000 + rng.below(5) * G25 / 10),
                    ..FlowSpec::greedy(0, 0, class)
                },
                _ => FlowSpec::sized(f.hosts[src], f.hosts[dst], class, 1_000 + rng.below(500_000)),
            };
            (flow.src, flow.dst) = (f.hosts[src], f.hosts[dst]);
            flow.udp_src_port = 30_000 + k as u16;
            flow.start_ps = rng.below(50) * US;
            t.push(flow.tcp(TcpFlow { nodelay: rng.below(2) == 0, ..TcpFlow::default() }));
        }
        let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(case, 500 * US));
        assert!(r.conservation.injected_packets > 0, "case {case}: traffic flows");
    }
}

#[test]
fn a_connection_inside_one_part_gives_the_same_results_as_across_parts() {
    // Two hosts on one switch: a fabric of one part, which runs as one thread; and the same
    // hosts' connection beside one across the cut.
    let f = single_switch(2, G25, 100 * NS, &FabricDefaults::lossy());
    let mut t = Traffic::new();
    t.push(FlowSpec::sized(f.hosts[0], f.hosts[1], tcp_class(0), 300_000).tcp(TcpFlow::default()));
    same_for_every_thread_count(&f.spec, &t, &SimConfig::new(1, MS));
    let g = leaf_spine_fabric(&FabricDefaults::lossy(), G25);
    let mut t = Traffic::new();
    t.push(FlowSpec::sized(g.hosts[0], g.hosts[1], tcp_class(0), 300_000).tcp(TcpFlow::default()));
    t.push(FlowSpec::sized(g.hosts[2], g.hosts[12], tcp_class(0), 300_000).iwarp(RdmaOp::Read));
    let r = same_for_every_thread_count(&g.spec, &t, &SimConfig::new(1, MS));
    assert!(r.flows.iter().all(|f| f.completion_ps.is_some()), "both complete");
}
