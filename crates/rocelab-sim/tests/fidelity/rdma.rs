//! Fidelity of the RDMA transport, DCQCN and perftest tests.

use rocelab_sim::topology::{single_switch, Fabric, FabricDefaults};
use rocelab_sim::*;

const G100: u64 = 100_000_000_000;
const ROCE: u8 = 3;

fn run_checked(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig) -> Results {
    let r = run(spec, traffic, config).expect("run");
    r.check_conservation().expect("conservation");
    r
}

/// DCQCN with `params` at every host (notification and reaction point on).
fn with_dcqcn(spec: &mut NetworkSpec, params: DcqcnParams) {
    for n in &mut spec.nodes {
        if let NodeKind::Host(h) = &mut n.kind {
            h.nic.cc = CcAlgorithm::Dcqcn(params);
        }
    }
}

/// The DCQCN paper's switch marking (Zhu et al. 2015, §5: Kmin 5 KB, Kmax 200 KB, Pmax 1%).
fn paper_ecn() -> EcnSpec {
    EcnSpec { kmin_bytes: 5_000, kmax_bytes: 200_000, pmax: 0.01 }
}

fn greedy_rc(src: NodeId, dst: NodeId, port: u16) -> FlowSpec {
    let mut f = FlowSpec::greedy(src, dst, FlowClass::roce(ROCE, 26)).rc(RdmaOp::Write);
    f.payload_bytes = 4096;
    f.udp_src_port = port;
    f
}

fn dcqcn_single_switch(hosts: usize) -> Fabric {
    let mut d = FabricDefaults::lossless(ROCE, 64_000);
    d.switch_port = d.switch_port.with_ecn(ROCE, paper_ecn());
    let mut f = single_switch(hosts, G100, 10 * NS, &d);
    with_dcqcn(&mut f.spec, DcqcnParams::paper());
    f
}

/// Payload bytes per second of a 100G link carrying `msg`-byte RDMA WRITEs at a 4096-byte
/// path MTU, tagged: every packet carries Ethernet 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 +
/// ICRC 4 + FCS 4 = 66 bytes of headers and 20 of preamble and gap; the first of each message
/// a RETH of 16 more.
fn write_goodput_bps(msg: u64) -> f64 {
    let pkts = msg.div_ceil(4096);
    let wire = msg + pkts * (66 + 20) + 16;
    G100 as f64 * msg as f64 / wire as f64
}

/// Payload delivered per flow between `from` and `to` (two runs: results are a pure function
/// of the end time, so the difference is the window).
fn window_rates(spec: &NetworkSpec, t: &Traffic, from: Time, to: Time) -> (Vec<f64>, Results, Results) {
    let a = run_checked(spec, t, &SimConfig::new(1, from));
    let b = run_checked(spec, t, &SimConfig::new(1, to));
    let secs = (to - from) as f64 / 1e12;
    let rates = a
        .flows
        .iter()
        .zip(&b.flows)
        .map(|(x, y)| (y.delivered_bytes - x.delivered_bytes) as f64 * 8.0 / secs)
        .collect();
    (rates, a, b)
}

fn pfc_frames(r: &Results) -> u64 {
    r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum()
}

#[test]
fn rc_write_carries_a_sized_flow_and_counts_acks() {
    let d = FabricDefaults::lossless(ROCE, 64_000);
    let f = single_switch(2, G100, 25 * NS, &d);
    let mut t = Traffic::new();
    let mut fl = FlowSpec::sized(f.hosts[1], f.hosts[0], FlowClass::roce(ROCE, 26), 1 << 20).rc(RdmaOp::Write);
    fl.payload_bytes = 4096;
    t.push(fl);
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, MS));
    let fr = &r.flows[0];
    let q = fr.rdma.as_ref().expect("an RC flow");
    assert_eq!((fr.sent_packets, fr.delivered_bytes), (256, 1 << 20), "1 MiB in 256 packets of 4096");
    assert_eq!(q.messages_completed, 1, "one RDMA WRITE");
    // ACKs: every 16 packets (coalescing), the last one also the end of the message.
    assert_eq!(q.acks_sent, 16);
    assert_eq!(q.control.sent, 16);
    // Completion = the last ACK at the requester: after the last byte is delivered.
    let fct = fr.fct_ps.unwrap() as f64;
    let ideal = (1u64 << 20) as f64 * 8.0 / write_goodput_bps(1 << 20) * 1e12;
    assert!(fct > ideal && fct < ideal * 1.01, "fct {fct} ps vs serialization {ideal} ps (1%)");
}

#[test]
fn write_bw_on_one_100g_link_reaches_line_rate_less_headers() {
    // perftest's ib_write_bw defaults (65536-byte messages, tx depth 128, 5000 iterations),
    // one QP, through one switch, on an ideal NIC (no PCIe bottleneck).
    let d = FabricDefaults::lossless(ROCE, 64_000);
    let f = single_switch(2, G100, 15 * NS, &d);
    let mut t = Traffic::new();
    let mut p = PerftestSpec::new(PerftestKind::WriteBw, f.hosts[1], f.hosts[0], FlowClass::roce(ROCE, 26));
    p.path_mtu = 4096;
    t.perftest.push(p);
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, 40 * MS));
    let res = &r.perftest[0];
    assert!(res.complete);
    let bw = res.bw.unwrap();
    assert_eq!(bw.messages, 5000);
    let expected = write_goodput_bps(65536) / 1e9; // 97.92 Gb/s
                                                   // Tolerance 0.5%: the start (first packet after the NIC's latency) and the last ACK's
                                                   // return are the only time not spent serializing.
    assert!(
        (bw.average_gbps - expected).abs() / expected < 0.005,
        "write_bw average {:.3} Gb/s, expected {expected:.3} from the header sizes",
        bw.average_gbps
    );
    let peak = bw.peak_gbps.unwrap();
    assert!(peak >= bw.average_gbps && peak < expected * 1.005, "peak {peak:.3}");
    assert!((bw.msg_rate_mpps - bw.average_gbps / (65536.0 * 8.0) * 1e3).abs() < 1e-9);
}

#[test]
fn dcqcn_two_flows_converge_to_fair_shares() {
    // Two greedy WRITEs into one 100G port, the second 2 ms after the first; DCQCN with the
    // paper's parameters and marking. After convergence, in the window 40-60 ms, each flow
    // gets its fair share within 10% (a share of 0.5 ± 0.05) and the link stays full (95% of
    // the payload rate).
    let f = dcqcn_single_switch(3);
    let mut t = Traffic::new();
    t.push(greedy_rc(f.hosts[1], f.hosts[0], 49152));
    let mut b = greedy_rc(f.hosts[2], f.hosts[0], 49153);
    b.start_ps = 2 * MS;
    t.push(b);
    let (rates, _, end) = window_rates(&f.spec, &t, 40 * MS, 60 * MS);
    let total: f64 = rates.iter().sum();
    for (i, r) in rates.iter().enumerate() {
        let share = r / total;
        assert!((share - 0.5).abs() < 0.05, "flow {i}: {:.2} Gb/s, share {share:.3} of {:.2}", r / 1e9, total / 1e9);
    }
    assert!(total > 0.95 * write_goodput_bps(65536), "link not full: {:.2} Gb/s", total / 1e9);
    // DCQCN, not PFC, shares the link: no pause, CNPs flowed, and the notification point sent
    // at most one CNP per QP per 50 us.
    assert_eq!(pfc_frames(&end), 0, "PFC never fired");
    for fl in &end.flows {
        let q = fl.rdma.as_ref().unwrap();
        assert!(q.cnps_received > 0 && q.rate_cuts > 0);
        assert!(q.cnps_sent <= 60 * MS / (50 * US) + 1, "CNP spacing: {} CNPs", q.cnps_sent);
    }
}

/// 16:1 incast of greedy WRITEs through one 100G switch with a 2 MiB buffer.
fn incast_16(dcqcn: bool) -> (NetworkSpec, Traffic) {
    let mut d = FabricDefaults::lossless(ROCE, 64_000);
    d.switch_port = d.switch_port.with_ecn(ROCE, paper_ecn());
    d.switch.buffer.size_bytes = 2 << 20;
    let mut f = single_switch(17, G100, 10 * NS, &d);
    if dcqcn {
        with_dcqcn(&mut f.spec, DcqcnParams::paper());
    }
    let mut t = Traffic::new();
    for (i, &h) in f.hosts[1..].iter().enumerate() {
        t.push(greedy_rc(h, f.hosts[0], 49152 + i as u16));
    }
    (f.spec, t)
}

#[test]
fn dcqcn_incast_sends_far_fewer_pause_frames_than_pfc_alone() {
    let (spec, t) = incast_16(false);
    let pfc_only = run_checked(&spec, &t, &SimConfig::new(1, 20 * MS));
    let (spec, t) = incast_16(true);
    let (rates, _, with_dcqcn) = window_rates(&spec, &t, 10 * MS, 20 * MS);
    let (a, b) = (pfc_frames(&pfc_only), pfc_frames(&with_dcqcn));
    // PFC alone pauses the senders all along; DCQCN only in the first burst. Asserted ratio:
    // at least 10x fewer pause frames over 20 ms.
    assert!(a > 1000, "PFC alone paused only {a} times: the incast is too light to prove anything");
    assert!(b * 10 <= a, "pause frames: {b} with DCQCN vs {a} with PFC alone");
    // And DCQCN keeps the receiver's link full once it has converged (10-20 ms, 95%).
    let total: f64 = rates.iter().sum();
    assert!(total > 0.95 * write_goodput_bps(65536), "incast goodput {:.2} Gb/s", total / 1e9);
    assert_eq!(with_dcqcn.conservation.dropped_packets, 0);
}

#[test]
fn dcqcn_gives_the_congestion_spreading_victim_its_throughput_back() {
    // examples/sim-incast-two-tier.yaml: an 8:1 incast on the victim's priority spreads
    // through PFC and takes most of the victim's 20 Gb/s (Simulator I's
    // congestion_spreading_hits_a_victim_on_the_same_priority_only). With DCQCN and ECN (the
    // `dcqcn` variant) the incast senders slow down, PFC stops after the first burst, and the
    // victim is back at its rate once DCQCN has recovered from that burst (30-40 ms).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sim-incast-two-tier.yaml");
    let loaded = rocelab_model::load_file(&path).unwrap();
    let victim_rate = |variant: Option<&str>| {
        let (scenario, fabric) = match variant {
            Some(v) => loaded.variant_scenario(v).unwrap(),
            None => (loaded.scenario.clone(), loaded.fabric.clone()),
        };
        let b = rocelab_sim::from_model::build(&scenario, &fabric, crate::example_seed());
        let victim = b.names.flows.iter().position(|n| n == "victim").unwrap();
        let (rates, early, late) = window_rates(&b.spec, &b.traffic, 30 * MS, 40 * MS);
        (rates[victim], pfc_frames(&early), pfc_frames(&late))
    };
    let (isolated, _, _) = victim_rate(Some("incast-on-priority-4"));
    let (shared, _, _) = victim_rate(None);
    let (recovered, pfc_30, pfc_40) = victim_rate(Some("dcqcn"));
    assert!(isolated > 19.0e9, "isolated victim {isolated}");
    assert!(shared < 0.5 * isolated, "without DCQCN the victim keeps {shared} of {isolated}");
    // Tolerance: 90% of the isolated victim's throughput.
    assert!(recovered > 0.9 * isolated, "with DCQCN the victim gets {recovered} of {isolated}");
    assert_eq!(pfc_30, pfc_40, "no pause frame after DCQCN converged");
}

#[test]
fn lossy_rc_incast_retransmits_and_completes() {
    // Lossy class, no PFC, no congestion control: an 8:1 incast of 1 MiB WRITEs overflows the
    // 1 MiB buffer; go-back-N (a NAK at the first gap, the timer for lost tails) recovers every
    // byte. A short local ACK timeout (200 us) lets tail losses recover within the run.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 1 << 20;
    d.host.nic.rc.timeout_ps = 200 * US;
    let f = single_switch(9, G100, 10 * NS, &d);
    let mut t = Traffic::new();
    let mut tmpl = FlowSpec::sized(0, 0, FlowClass::roce(ROCE, 26), 1 << 20).rc(RdmaOp::Write);
    tmpl.payload_bytes = 4096;
    t.incast(&f.hosts[1..], f.hosts[0], &tmpl);
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, 20 * MS));
    assert!(r.switches[0].drops_lossy > 0, "the incast must drop for the test to mean anything");
    let retx: u64 = r.flows.iter().map(|f| f.rdma.as_ref().unwrap().retransmitted_bytes).sum();
    let naks: u64 = r.flows.iter().map(|f| f.rdma.as_ref().unwrap().naks_sent).sum();
    assert!(retx > 0 && naks > 0, "retransmitted {retx} B after {naks} NAKs");
    for fl in &r.flows {
        assert!(fl.completion_ps.is_some(), "flow {} completes despite drops", fl.flow);
        assert_eq!(fl.delivered_bytes, 1 << 20, "every byte delivered once, in order");
        let q = fl.rdma.as_ref().unwrap();
        assert_eq!(fl.sent_bytes, (1 << 20) + q.retransmitted_bytes, "sent = new + retransmitted");
    }
}

#[test]
fn rdma_runs_are_deterministic_and_seeded() {
    let (spec, t) = incast_16(true);
    let cfg = SimConfig::new(7, 2 * MS);
    let a = serde_json::to_string(&run_checked(&spec, &t, &cfg)).unwrap();
    let b = serde_json::to_string(&run_checked(&spec, &t, &cfg)).unwrap();
    assert_eq!(a, b, "same scenario and seed, same bytes");
    let c = serde_json::to_string(&run_checked(&spec, &t, &SimConfig::new(8, 2 * MS))).unwrap();
    assert_ne!(a, c, "the seed matters (ECN draws, initial PSNs)");
}

#[test]
fn read_and_send_perftests_run_and_report() {
    // Every perftest tool on the ConnectX-4 profile between two hosts of one switch, one after
    // the other.
    let d = FabricDefaults::lossless(ROCE, 64_000);
    let mut f = single_switch(2, G100, 15 * NS, &d);
    for n in &mut f.spec.nodes {
        if let NodeKind::Host(h) = &mut n.kind {
            *h = h.clone().with_nic_profile(NicProfile::connectx4());
        }
    }
    let mut t = Traffic::new();
    let kinds = [
        PerftestKind::WriteLat,
        PerftestKind::ReadLat,
        PerftestKind::SendLat,
        PerftestKind::WriteBw,
        PerftestKind::ReadBw,
        PerftestKind::SendBw,
    ];
    for (i, kind) in kinds.into_iter().enumerate() {
        let mut p = PerftestSpec::new(kind, f.hosts[1], f.hosts[0], FlowClass::roce(ROCE, 26));
        p.length = PerftestLength::Iterations(if kind.is_bw() { 500 } else { 100 });
        p.start_ps = i as u64 * 10 * MS;
        t.perftest.push(p);
    }
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, 60 * MS));
    let lat = |i: usize| r.perftest[i].lat.unwrap().t_avg_us;
    let bw = |i: usize| r.perftest[i].bw.unwrap().average_gbps;
    assert!(r.perftest.iter().all(|p| p.complete));
    // A READ waits for the responder's DMA read and is a whole round trip (not halved).
    assert!(lat(1) > lat(0) * 1.5, "read_lat {} vs write_lat {}", lat(1), lat(0));
    assert!((lat(2) - lat(0)).abs() < 0.05, "send_lat {} ~ write_lat {}", lat(2), lat(0));
    for i in 3..6 {
        assert!((92.0..=96.0).contains(&bw(i)), "{:?}: {:.2} Gb/s", r.perftest[i].kind, bw(i));
    }
    let reads = r.flows.iter().filter(|f| f.rdma.as_ref().is_some_and(|q| q.op == RdmaOp::Read)).count();
    assert_eq!(reads, 2);
}
