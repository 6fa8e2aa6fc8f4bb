//! Runs that stop when their RDMA queue pairs are done, on several threads: the same results
//! as one thread's, the stop instant (the end time) and the count of events included, under
//! DCQCN and PFC, and with drops, NAKs, timeouts and go-back-N retransmissions.

use super::tests::{leaf_spine_fabric, random_leaf_spine, same_for_every_thread_count, with_dcqcn, RandomShape};
use super::*;
use crate::rdma::RdmaOp;
use crate::time::{MS, NS, US};
use crate::topology::{single_switch, FabricDefaults};
use crate::traffic::{FlowClass, FlowSpec};

const G100: u64 = 100_000_000_000;
const OPS: [RdmaOp; 3] = [RdmaOp::Write, RdmaOp::Read, RdmaOp::Send];

fn stopping(seed: u64, end: Time) -> SimConfig {
    SimConfig { stop_when_done: true, ..SimConfig::new(seed, end) }
}

/// The run stopped before `end`, with every sized flow complete by its end time.
fn assert_stopped_early(r: &Results, t: &Traffic, end: Time) {
    assert!(r.end_time_ps < end, "the run stopped early: {} ps", r.end_time_ps);
    let sized: Vec<_> = r.flows.iter().zip(&t.flows).filter(|(_, s)| s.size_bytes.is_some()).map(|(f, _)| f).collect();
    assert!(sized.iter().all(|f| f.completion_ps.is_some()), "every sized flow completed");
    let last = sized.iter().filter_map(|f| f.completion_ps).max().expect("sized flows");
    assert!(last <= r.end_time_ps, "the last completion {last} ps is within the run");
}

fn qps_of(r: &Results, op: RdmaOp) -> impl Iterator<Item = &crate::stats::RdmaFlowResults> {
    r.flows.iter().filter_map(|f| f.rdma.as_ref()).filter(move |q| q.op == op)
}

#[test]
fn rdma_write_read_and_send_flows_under_dcqcn_and_pfc_stop_at_the_same_instant_on_every_thread_count() {
    // Sized WRITE, READ and SEND queue pairs between the leaves, two into each host, into a
    // small lossless buffer under DCQCN.
    let mut d = FabricDefaults::lossless(3, 100_000);
    d.switch.buffer.size_bytes = 1 << 20;
    let f = leaf_spine_fabric(&d);
    let spec = with_dcqcn(&f.spec);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    for (i, &h) in f.hosts.iter().enumerate() {
        let mut sized = FlowSpec::sized(h, f.hosts[(i + 9) % 16], class, 200_000 + 20_000 * (i as u64 % 4));
        sized.payload_bytes = 4096;
        sized.start_ps = (i as u64 % 3) * US;
        t.push(sized.rc(OPS[i % 3]));
        let mut other = FlowSpec::sized(h, f.hosts[(i + 5) % 16], class, 300_000);
        other.payload_bytes = 4096;
        t.push(other.rc(OPS[(i + 1) % 3]));
    }
    let end = 20 * MS;
    let r = same_for_every_thread_count(&spec, &t, &stopping(7, end));
    assert_stopped_early(&r, &t, end);
    let marked: u64 = r.ports.iter().map(|p| p.total(|c| c.ecn_marked)).sum();
    assert!(marked > 0, "the switches mark");
    for op in OPS {
        assert!(qps_of(&r, op).any(|q| q.cnps_received > 0), "{op:?}: CNPs reach the data sender");
    }
}

#[test]
fn rdma_flows_with_drops_and_retransmissions_stop_at_the_same_instant_on_every_thread_count() {
    // Incasts into a small lossy buffer: drops, NAKs and go-back-N resends (WRITE and SEND
    // from the requesters, READ responses again from the responders); the last completions
    // come after resends.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 256 << 10;
    let f = single_switch(9, G100, 50 * NS, &d);
    let mut t = Traffic::new();
    let class = FlowClass::roce(3, 26);
    for (k, &h) in f.hosts[1..].iter().enumerate() {
        let mut flow = FlowSpec::sized(h, f.hosts[0], class, 256 << 10);
        flow.payload_bytes = 4096;
        t.push(flow.rc([RdmaOp::Write, RdmaOp::Send][k % 2]));
        let mut read = FlowSpec::sized(f.hosts[0], h, class, 128 << 10);
        read.payload_bytes = 4096;
        t.push(read.rc(RdmaOp::Read));
    }
    let end = 500 * MS;
    let r = same_for_every_thread_count(&f.spec, &t, &stopping(2, end));
    assert_stopped_early(&r, &t, end);
    assert!(r.conservation.dropped_packets > 0, "the incast drops");
    for op in OPS {
        let resent: u64 = qps_of(&r, op).map(|q| q.retransmitted_packets).sum();
        assert!(resent > 0, "{op:?}: go-back-N resends");
    }
}

/// Random sized RDMA queue pairs (WRITE, READ, SEND, message sizes, starts) beside open-loop
/// flows, on random leaf-spine fabrics, lossless under DCQCN or lossy: the same results and
/// stop instant on 1 to 4 threads each time.
#[test]
fn random_rdma_flows_stop_at_the_same_instant_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(17);
    for case in 0..4 {
        let shape = RandomShape { hosts: (1, 3), headroom: 40_000, buffer_kib: (1024, 128) };
        let (f, lossless) = random_leaf_spine(&mut rng, &shape);
        let spec = if lossless { with_dcqcn(&f.spec) } else { f.spec.clone() };
        let n = f.hosts.len() as u64;
        let mut t = Traffic::new();
        for k in 0..1 + rng.below(2 * n) {
            let src = rng.below(n) as usize;
            let dst = (src + 1 + rng.below(n - 1) as usize) % n as usize;
            let size = 1_000 + rng.below(200_000);
            let mut flow = FlowSpec::sized(f.hosts[src], f.hosts[dst], FlowClass::roce(3, 26), size);
            flow.udp_src_port = 20_000 + k as u16;
            flow.start_ps = rng.below(30) * US;
            if rng.below(4) != 0 {
                flow.payload_bytes = [1024, 4096][rng.below(2) as usize];
                flow = flow.rc(OPS[rng.below(3) as usize]);
            }
            t.push(flow);
        }
        let end = 200 * MS;
        let r = same_for_every_thread_count(&spec, &t, &stopping(case, end));
        assert_stopped_early(&r, &t, end);
    }
}
