//! Fidelity tests: each builds a small fabric, runs it, checks conservation, and asserts the
//! behaviour the standards and the deployment guides describe, with stated tolerances.

#[path = "fidelity/oracle.rs"]
mod oracle;
#[path = "fidelity/rdma.rs"]
mod rdma;
#[path = "fidelity/storage.rs"]
mod storage;

use rocelab_sim::bench;
use rocelab_sim::packet::wire;
use rocelab_sim::pfc::PfcFrame;
use rocelab_sim::topology::{single_switch, FabricDefaults, NetworkBuilder};
use rocelab_sim::*;

#[path = "fidelity/flows.rs"]
mod flows;
#[path = "fidelity/tcp.rs"]
mod tcp;

const G100: u64 = 100_000_000_000;
const G400: u64 = 400_000_000_000;
const ROCE: u8 = 3;

/// One metre of cable: about 5 ns of propagation.
fn cable_m(m: u64) -> Time {
    m * 5 * NS
}

/// The seed the examples' scenarios run with: their own (`None`), or `ROCELAB_FIDELITY_SEED`
/// when it is set, to see whether a finding rests on one seed's draws (ECMP hashing, ECN
/// marking, initial PSNs, arrivals). Under another seed the examples' golden digests (Oracle's) fail;
/// README ("Simulating storage") lists the findings known to fail too.
pub fn example_seed() -> Option<u64> {
    let s = std::env::var("ROCELAB_FIDELITY_SEED").ok()?;
    Some(fidelity_seed(&s).unwrap_or_else(|e| panic!("{e}")))
}

/// The value of `ROCELAB_FIDELITY_SEED`, or what is wrong with it.
fn fidelity_seed(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("ROCELAB_FIDELITY_SEED={s}: expected an unsigned integer"))
}

#[test]
fn a_fidelity_seed_is_an_unsigned_integer() {
    assert_eq!(fidelity_seed("2"), Ok(2));
    for bad in ["x", "-1", "2.5", ""] {
        assert_eq!(fidelity_seed(bad), Err(format!("ROCELAB_FIDELITY_SEED={bad}: expected an unsigned integer")));
    }
}

/// Run and check conservation (every test goes through here).
fn run_checked(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig) -> Results {
    let r = run(spec, traffic, config).expect("run");
    r.check_conservation().expect("conservation");
    r
}

/// Payload rate of a stream that fills `rate_bps` on the wire with 1024-byte payloads.
fn payload_rate(rate_bps: u64, tagged: bool) -> f64 {
    let frame = packet::rocev2_frame_bytes(1024, tagged) as f64;
    rate_bps as f64 * 1024.0 / (frame + wire::WIRE_OVERHEAD as f64)
}

fn total_drops(r: &Results) -> u64 {
    r.conservation.dropped_packets
}

fn incast_defaults(buffer: u64, headroom: u64) -> FabricDefaults {
    let mut d = FabricDefaults::lossless(ROCE, headroom);
    d.switch.buffer.size_bytes = buffer;
    d
}

/// N:1 incast of `size` bytes per sender through one 100G switch over `metres` of cable.
fn incast(n: usize, metres: u64, d: &FabricDefaults, size: u64) -> (NetworkSpec, Traffic) {
    let f = single_switch(n + 1, G100, cable_m(metres), d);
    let mut t = Traffic::new();
    let tmpl = FlowSpec::sized(0, 0, FlowClass::roce(ROCE, 26), size);
    t.incast(&f.hosts[1..], f.hosts[0], &tmpl);
    (f.spec, t)
}

#[test]
fn lossless_incast_with_enough_headroom_drops_nothing() {
    for n in [8usize, 16] {
        // 100 m at 100G: 2 x 500 ns x 12.5 B/ns = 12.5 KB in flight plus two frames and the
        // pause frame; 32 KB is ample. A 2 MB buffer makes PFC work hard.
        let d = incast_defaults(2 << 20, 32_000);
        let size = 1 << 20;
        let (spec, traffic) = incast(n, 100, &d, size);
        let r = run_checked(&spec, &traffic, &SimConfig::new(1, 5 * MS));
        assert_eq!(total_drops(&r), 0, "{n}:1 dropped");
        let pfc: u64 = r.ports.iter().map(|p| p.priorities[ROCE as usize].pfc_sent).sum();
        assert!(pfc > 0, "{n}:1 never paused: the test would prove nothing");
        // All flows complete, and the receiver link stayed busy: the last completion is within
        // 2% of the ideal time to push n x size through one 100G link.
        let last = r.flows.iter().map(|f| f.completion_ps.expect("completes")).max().unwrap();
        let ideal = (n as f64 * size as f64 * 8.0 / payload_rate(G100, true) * 1e12) as u64;
        assert!(last >= ideal, "faster than the link?");
        assert!((last as f64) < ideal as f64 * 1.02, "{n}:1 finished at {last} ps, ideal {ideal} ps");
    }
}

#[test]
fn headroom_too_small_for_the_cable_drops() {
    // 300 m at 100G: about 37.5 KB are in flight when XOFF is sent. 4 KB of headroom is far too
    // little; 64 KB is enough.
    let small = incast_defaults(2 << 20, 4_000);
    let (spec, traffic) = incast(8, 300, &small, 1 << 20);
    let r = run_checked(&spec, &traffic, &SimConfig::new(1, 3 * MS));
    let headroom_drops: u64 = r.switches.iter().map(|s| s.drops_headroom).sum();
    assert!(headroom_drops > 100, "only {headroom_drops} headroom drops");
    assert_eq!(headroom_drops, total_drops(&r), "all drops are headroom overflow");
    assert!(r.flows.iter().any(|f| f.completion_ps.is_none()));

    let enough = incast_defaults(2 << 20, 64_000);
    let (spec, traffic) = incast(8, 300, &enough, 1 << 20);
    let r = run_checked(&spec, &traffic, &SimConfig::new(1, 3 * MS));
    assert_eq!(total_drops(&r), 0);
    assert!(r.flows.iter().all(|f| f.completion_ps.is_some()));
}

#[test]
fn pfc_disabled_on_a_hop_overflows_the_lossless_pg() {
    // The PG is lossless but nobody sends PFC: headroom fills and drops (the "PFC missing on a
    // hop" misconfiguration).
    let mut d = incast_defaults(2 << 20, 64_000);
    d.switch_port.pfc.enabled = PriorityMask::NONE;
    let (spec, traffic) = incast(8, 10, &d, 1 << 20);
    let r = run_checked(&spec, &traffic, &SimConfig::new(1, 2 * MS));
    let pfc: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert_eq!(pfc, 0);
    assert!(r.switches[0].drops_headroom > 0);
}

#[test]
fn lossy_incast_drops_at_the_dynamic_threshold() {
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 1 << 20;
    let (spec, traffic) = incast(8, 10, &d, 1 << 20);
    let r = run_checked(&spec, &traffic, &SimConfig::new(1, 2 * MS));
    assert!(r.switches[0].drops_lossy > 0);
    assert_eq!(r.switches[0].drops_headroom, 0);
    assert!(r.switches[0].peak_shared_used_bytes <= r.switches[0].shared_pool_bytes);
    let pfc: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert_eq!(pfc, 0, "lossy traffic never pauses");
}

/// The platforms' lossy profile (`rocelab_sim::mmu::EgressLossy`): with the ingress alpha of 8
/// and an egress lossy pool of 256 KiB, the same lossy incast drops at the receiver's queue, not
/// at the senders' PGs, and that queue never holds more than the pool and its reserve. A lossless
/// incast through the same buffer runs exactly as without the egress limit.
#[test]
fn lossy_incast_drops_at_the_egress_queue_under_the_lossy_profile() {
    let pool = 256 << 10;
    let egress = EgressLossySpec { pool_bytes: pool, alpha: 8.0, reserved_bytes: 1518 };
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 1 << 20;
    d.switch.buffer.egress_lossy = Some(egress);
    d.switch_port.pgs =
        [PriorityGroupSpec { threshold: XoffThreshold::DynamicAlpha(8.0), ..PriorityGroupSpec::lossy() }; 8];
    let (spec, traffic) = incast(8, 10, &d, 1 << 20);
    let r = run_checked(&spec, &traffic, &SimConfig::new(1, 2 * MS));
    let sw = &r.switches[0];
    assert!(sw.drops_egress_lossy > 0);
    assert_eq!((sw.drops_lossy, sw.drops_headroom), (0, 0), "nothing dropped at ingress");
    // Counted on the receiver's port, where the queue is.
    let (receiver, _) = r.ports.iter().enumerate().max_by_key(|(_, p)| p.peak_queue_bytes[ROCE as usize]).unwrap();
    assert_eq!(r.ports[receiver].total(|c| c.drops), sw.drops_egress_lossy);
    let peak = r.ports[receiver].peak_queue_bytes[ROCE as usize];
    assert!(peak > pool / 2 && peak <= pool + 1518, "peak queue {peak} against a pool of {pool}");

    let lossless = |egress_lossy| {
        let mut d = incast_defaults(1 << 20, 32_000);
        d.switch.buffer.egress_lossy = egress_lossy;
        let (spec, traffic) = incast(8, 10, &d, 1 << 20);
        serde_json::to_string(&run_checked(&spec, &traffic, &SimConfig::new(1, 2 * MS))).unwrap()
    };
    assert_eq!(lossless(Some(egress)), lossless(None));
}

/// Two leaves and one spine. Leaf A: 8 incast senders and a victim sender; leaf B: the incast
/// target T and the victim receiver R. Hosts at 100G, uplinks at 400G, 10 m cables, priorities
/// 3 and 4 lossless everywhere.
struct TwoTier {
    spec: NetworkSpec,
    senders: Vec<NodeId>,
    victim_src: NodeId,
    target: NodeId,
    victim_dst: NodeId,
    uplink_a: usize,
}

fn two_tier() -> TwoTier {
    let mut d = FabricDefaults::lossless(3, 64_000);
    d.host_port.pfc.enabled = PriorityMask::of(&[3, 4]);
    d.switch_port = d.switch_port.with_lossless(4, 64_000);
    d.switch.buffer.size_bytes = 4 << 20;
    let mut b = NetworkBuilder::new();
    let senders: Vec<NodeId> = (0..8).map(|i| b.add_host(format!("a{i}"), d.host.clone(), d.host_port)).collect();
    let victim_src = b.add_host("victim-src", d.host.clone(), d.host_port);
    let target = b.add_host("target", d.host.clone(), d.host_port);
    let victim_dst = b.add_host("victim-dst", d.host.clone(), d.host_port);
    let leaf_a = b.add_switch("leafA", d.switch.clone(), d.switch_port);
    let leaf_b = b.add_switch("leafB", d.switch.clone(), d.switch_port);
    let spine = b.add_switch("spine", d.switch.clone(), d.switch_port);
    let c = cable_m(10);
    for &h in senders.iter().chain([&victim_src]) {
        b.connect(h, leaf_a, G100, c);
    }
    b.connect(target, leaf_b, G100, c);
    b.connect(victim_dst, leaf_b, G100, c);
    let (up_a, _) = b.connect(leaf_a, spine, G400, c);
    b.connect(leaf_b, spine, G400, c);
    let f = b.build();
    // Global port index of leaf A's uplink: ports are numbered node by node.
    let uplink_a = (0..up_a.node).map(|n| f.spec.port_count(n)).sum::<usize>() + up_a.port;
    TwoTier { spec: f.spec, senders, victim_src, target, victim_dst, uplink_a }
}

/// Victim at 50G CBR, plus (optionally) 8 x 40G CBR incast on `incast_priority`: 370G fits the
/// 400G uplink, so the only bottleneck is the target's 100G link.
fn spreading_traffic(t: &TwoTier, incast_priority: Option<u8>) -> Traffic {
    let mut tr = Traffic::new();
    tr.push(FlowSpec {
        udp_src_port: 40000,
        ..FlowSpec::cbr(t.victim_src, t.victim_dst, FlowClass::roce(3, 26), 50_000_000_000)
    });
    if let Some(p) = incast_priority {
        let tmpl = FlowSpec::cbr(0, 0, FlowClass::roce(p, 26), 40_000_000_000);
        tr.incast(&t.senders, t.target, &tmpl);
    }
    tr
}

#[test]
fn congestion_spreading_hits_a_victim_on_the_same_priority_only() {
    let t = two_tier();
    let cfg = SimConfig::new(1, 2 * MS);
    let alone = run_checked(&t.spec, &spreading_traffic(&t, None), &cfg);
    let base = alone.flows[0].throughput_bps;
    let expected = payload_rate(50_000_000_000, true);
    assert!((base - expected).abs() / expected < 0.01, "victim alone {base} vs {expected}");

    // Same priority: the target's port pauses leaf B's ingress, the spine, and leaf A's
    // uplink; the victim, which never goes near the target, collapses.
    let same = run_checked(&t.spec, &spreading_traffic(&t, Some(3)), &cfg);
    assert_eq!(total_drops(&same), 0);
    let v = same.flows[0].throughput_bps;
    assert!(v < 0.5 * base, "victim kept {v} of {base} bit/s");
    let up = &same.ports[t.uplink_a].priorities[3];
    assert!(up.pfc_received > 0, "spine never paused leaf A");
    assert!(up.paused_ps > cfg.end_time_ps / 4, "leaf A uplink paused only {} ps", up.paused_ps);

    // Incast on its own lossless priority 4: pauses stay on priority 4, victim untouched
    // (within 1% of running alone).
    let other = run_checked(&t.spec, &spreading_traffic(&t, Some(4)), &cfg);
    assert_eq!(total_drops(&other), 0);
    let v = other.flows[0].throughput_bps;
    assert!((v - base).abs() / base < 0.01, "victim {v} vs alone {base}");
    let up = &other.ports[t.uplink_a].priorities;
    assert!(up[4].paused_ps > 0, "incast priority still spreads");
    assert_eq!(up[3].paused_ps, 0, "victim priority never paused");
    let _ = (t.target, t.victim_dst);
}

/// h1 sends on priority 3 (ETS 90) and h2 on priority 4 (ETS 10), both greedy, to h0.
fn ets_run(h1_active: bool) -> Results {
    let mut d = FabricDefaults::lossless(3, 64_000);
    d.host_port.pfc.enabled = PriorityMask::of(&[3, 4]);
    d.switch_port = d.switch_port.with_lossless(4, 64_000).with_ets(3, 90).with_ets(4, 10);
    let f = single_switch(3, G100, cable_m(5), &d);
    let mut t = Traffic::new();
    if h1_active {
        t.push(FlowSpec::greedy(f.hosts[1], f.hosts[0], FlowClass::roce(3, 26)));
    }
    t.push(FlowSpec::greedy(f.hosts[2], f.hosts[0], FlowClass::roce(4, 34)));
    run_checked(&f.spec, &t, &SimConfig::new(1, 2 * MS))
}

#[test]
fn ets_shares_90_10_and_gives_an_idle_share_away() {
    let r = ets_run(true);
    let (a, b) = (r.flows[0].delivered_bytes as f64, r.flows[1].delivered_bytes as f64);
    let share = a / (a + b);
    assert!((share - 0.9).abs() < 0.01, "share {share}");
    let total = r.flows[0].throughput_bps + r.flows[1].throughput_bps;
    assert!(total > 0.99 * payload_rate(G100, true), "link not full: {total}");

    // The 90% class idle: the 10% class takes the whole link.
    let r = ets_run(false);
    let alone = r.flows[0].throughput_bps;
    assert!(alone > 0.99 * payload_rate(G100, true), "idle share not reused: {alone}");
}

/// One greedy sender into a host whose receive buffer drains at 50G (256 KB, XOFF at 128 KB,
/// XON at 64 KB).
fn host_rx_scenario() -> (NetworkSpec, Traffic) {
    let mut d = FabricDefaults::lossless(ROCE, 64_000);
    d.host.rx = HostRxSpec {
        drain_bps: Some(50_000_000_000),
        capacity_bytes: 256 << 10,
        xoff_bytes: 128 << 10,
        xon_bytes: 64 << 10,
    };
    let f = single_switch(2, G100, cable_m(5), &d);
    let mut t = Traffic::new();
    t.push(FlowSpec::greedy(f.hosts[1], f.hosts[0], FlowClass::roce(ROCE, 26)));
    (f.spec, t)
}

#[test]
fn host_receive_buffer_pauses_the_switch_and_drains_at_its_rate() {
    let (spec, t) = host_rx_scenario();
    let r = run_checked(&spec, &t, &SimConfig::new(1, 2 * MS));
    assert_eq!(total_drops(&r), 0);
    let host0 = &r.ports[0].priorities[ROCE as usize];
    assert!(host0.pfc_sent > 0, "host never paused the switch");
    assert!(r.hosts[0].peak_rx_buffer_bytes <= 256 << 10);
    // Delivery follows the 50G drain (counted in frame bytes).
    let frame = packet::rocev2_frame_bytes(1024, true) as f64;
    let expected = 50e9 * 1024.0 / frame;
    let got = r.flows[0].throughput_bps;
    assert!((got - expected).abs() / expected < 0.02, "{got} vs {expected}");
}

fn ecn_incast() -> (NetworkSpec, Traffic) {
    let mut d = incast_defaults(4 << 20, 64_000);
    d.switch_port = d.switch_port.with_ecn(ROCE, EcnSpec { kmin_bytes: 20_000, kmax_bytes: 400_000, pmax: 0.2 });
    incast(4, 10, &d, 256 << 10)
}

#[test]
fn ecn_marks_reach_the_receivers() {
    let (spec, traffic) = ecn_incast();
    let r = run_checked(&spec, &traffic, &SimConfig::new(3, 2 * MS));
    let marked: u64 = r.ports.iter().map(|p| p.total(|c| c.ecn_marked)).sum();
    let ce: u64 = r.flows.iter().map(|f| f.ce_packets).sum();
    assert!(marked > 0);
    assert_eq!(r.conservation.in_flight_packets, 0, "all delivered");
    assert_eq!(marked, ce, "every mark arrives");
}

#[test]
fn same_scenario_and_seed_give_byte_identical_results() {
    let (spec, traffic) = ecn_incast();
    let cfg = SimConfig::new(11, MS);
    let a = serde_json::to_string(&run_checked(&spec, &traffic, &cfg)).unwrap();
    let b = serde_json::to_string(&run_checked(&spec, &traffic, &cfg)).unwrap();
    assert_eq!(a, b);
    // The seed matters (ECN draws), so identical output is not an accident.
    let c = serde_json::to_string(&run_checked(&spec, &traffic, &SimConfig::new(12, MS))).unwrap();
    assert_ne!(a, c);
    let back: Results = serde_json::from_str(&a).unwrap();
    assert_eq!(back.schema_version, SCHEMA_VERSION);
}

#[test]
fn two_simulations_in_one_process() {
    let (s1, t1) = ecn_incast();
    let t = two_tier();
    let t2 = spreading_traffic(&t, Some(3));
    let c = SimConfig::new(5, 500 * US);
    let seq1 = serde_json::to_string(&run_checked(&s1, &t1, &c)).unwrap();
    let seq2 = serde_json::to_string(&run_checked(&t.spec, &t2, &c)).unwrap();
    let (par1, par2) = std::thread::scope(|s| {
        let h1 = s.spawn(|| serde_json::to_string(&run_checked(&s1, &t1, &c)).unwrap());
        let h2 = s.spawn(|| serde_json::to_string(&run_checked(&t.spec, &t2, &c)).unwrap());
        (h1.join().unwrap(), h2.join().unwrap())
    });
    assert_eq!(seq1, par1);
    assert_eq!(seq2, par2);
}

#[test]
fn queue_sampling_and_refusal_of_oversized_outputs() {
    let (spec, traffic) = ecn_incast();
    let mut cfg = SimConfig::new(1, MS);
    cfg.sampling.queue_interval_ps = Some(US);
    let r = run_checked(&spec, &traffic, &cfg);
    let s = r.queue_samples.as_ref().expect("samples");
    assert_eq!(s.ports.len(), 5, "every switch port");
    assert!(s.depth_bytes.iter().all(|d| d.len() == 1001));
    let k = s.ports.iter().position(|&p| p == r.ports.len() - 5).unwrap();
    let max_sampled = *s.depth_bytes[k].iter().max().unwrap() as u64;
    let peak: u64 = r.ports[s.ports[k]].peak_queue_bytes.iter().sum();
    assert!(max_sampled > 0 && max_sampled <= peak);

    // At most 64 samples per port: the 1001 samples halve four times (every 16 µs, 63 of them),
    // each the larger of its pair, so the series keeps its peak.
    cfg.sampling.max_samples_per_port = 64;
    let r2 = run_checked(&spec, &traffic, &cfg);
    let s2 = r2.queue_samples.as_ref().expect("samples");
    assert_eq!(s2.interval_ps, 16 * US);
    assert!(s2.depth_bytes.iter().all(|d| d.len() == 63), "{:?}", s2.depth_bytes[0].len());
    assert_eq!(*s2.depth_bytes[k].iter().max().unwrap() as u64, max_sampled, "the peak is kept");
    for (a, b) in s.depth_bytes[k].chunks(16).zip(&s2.depth_bytes[k]) {
        assert_eq!(*a.iter().max().unwrap(), *b, "each kept sample is the peak of the 16 it stands for");
    }

    // Every nanosecond for ten seconds: each series halves down to 2048 samples or fewer; over
    // more ports than `max_values` allows at that many, the run is refused before it starts.
    cfg.sampling.max_samples_per_port = rocelab_sim::Sampling::SAMPLES_PER_PORT;
    cfg.end_time_ps = 10 * SECOND;
    cfg.sampling.queue_interval_ps = Some(NS);
    cfg.sampling.max_values = 5_000;
    match run(&spec, &traffic, &cfg) {
        Err(SimError::OutputTooLarge { estimated, limit, hint }) => {
            assert!(estimated > limit);
            assert!(hint.contains("sample at least every"), "{hint}");
            // Only fields of the fabric file are suggested (`sampling.max_values` is not one).
            assert!(hint.ends_with("(simulation.sample_interval) or shorten the run (simulation.duration)"), "{hint}");
        }
        other => panic!("expected OutputTooLarge, got {:?}", other.map(|r| r.events)),
    }
}

#[test]
fn invalid_inputs_are_errors_not_panics() {
    let (spec, mut traffic) = ecn_incast();
    traffic.flows[0].dst = 999;
    let e = run(&spec, &traffic, &SimConfig::new(1, MS)).unwrap_err();
    assert!(e.to_string().contains("flows[0].dst"), "{e}");
    let (spec, traffic) = ecn_incast();
    let e = run(&spec, &traffic, &SimConfig::new(1, 0)).unwrap_err();
    assert!(matches!(e, SimError::InvalidConfig { .. }));
}

/// Records PFC frames and packet directions, and checks that no data frame of a paused
/// priority starts on a port between an XOFF and the following XON it received.
#[derive(Default)]
struct Recorder {
    pfc_tx: Vec<PfcFrame>,
    data_tx: u64,
    data_rx: u64,
    /// Per port: priorities currently paused by received PFC.
    paused: std::collections::HashMap<usize, u8>,
    sent_while_paused: u64,
    sent_after_resume: u64,
    resumed: std::collections::HashMap<usize, bool>,
}

impl Observer for Recorder {
    fn on_packet(&mut self, _t: Time, port: usize, p: &Packet, dir: Direction) {
        match dir {
            Direction::Tx => {
                self.data_tx += 1;
                if self.paused.get(&port).copied().unwrap_or(0) & (1 << p.priority) != 0 {
                    self.sent_while_paused += 1;
                }
                if self.resumed.get(&port).copied().unwrap_or(false) {
                    self.sent_after_resume += 1;
                }
            }
            Direction::Rx => self.data_rx += 1,
        }
    }
    fn on_pfc(&mut self, _t: Time, port: usize, f: &PfcFrame, dir: Direction) {
        match dir {
            Direction::Tx => self.pfc_tx.push(*f),
            Direction::Rx => {
                let m = self.paused.entry(port).or_default();
                for p in 0..8 {
                    if f.class_enable & (1 << p) != 0 {
                        if f.quanta[p] > 0 {
                            *m |= 1 << p;
                        } else {
                            *m &= !(1 << p);
                            self.resumed.insert(port, true);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn observer_sees_what_the_counters_count() {
    let d = incast_defaults(1 << 20, 32_000);
    let (spec, traffic) = incast(8, 10, &d, 256 << 10);
    let mut rec = Recorder::default();
    let r = run_with_observer(&spec, &traffic, &SimConfig::new(1, MS), &mut rec).unwrap();
    r.check_conservation().unwrap();
    let pfc_sent: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert!(pfc_sent > 0);
    assert_eq!(rec.pfc_tx.len() as u64, pfc_sent, "one priority per frame here");
    assert!(rec.pfc_tx.iter().all(|f| f.class_enable == 1 << ROCE && matches!(f.quanta[ROCE as usize], 0 | 0xFFFF)));
    assert!(rec.pfc_tx.iter().any(|f| f.quanta[ROCE as usize] == 0), "XON sent");
    let tx: u64 = r.ports.iter().map(|p| p.total(|c| c.tx_packets)).sum();
    let rx: u64 = r.ports.iter().map(|p| p.total(|c| c.rx_packets)).sum();
    assert_eq!((rec.data_tx, rec.data_rx), (tx, rx));
    // Same results with and without an observer.
    let plain = run(&spec, &traffic, &SimConfig::new(1, MS)).unwrap();
    assert_eq!(plain, r);
}

/// One 40G CBR flow, on for 100 us and off for 300 us, stopping at 800 us.
fn on_off_scenario() -> (NetworkSpec, Traffic) {
    let f = single_switch(2, G100, cable_m(5), &FabricDefaults::lossless(ROCE, 64_000));
    let mut t = Traffic::new();
    t.push(FlowSpec {
        on_off: Some(OnOff { on_ps: 100 * US, off_ps: 300 * US }),
        stop_ps: Some(800 * US),
        ..FlowSpec::cbr(f.hosts[1], f.hosts[0], FlowClass::roce(ROCE, 26), 40_000_000_000)
    });
    (f.spec, t)
}

#[test]
fn on_off_and_stop_times_bound_the_traffic() {
    let (spec, t) = on_off_scenario();
    let r = run_checked(&spec, &t, &SimConfig::new(1, MS));
    // Two on periods of 100 us at 40G before the stop at 800 us.
    let expected = 2.0 * 100e-6 * payload_rate(40_000_000_000, true) / 8.0;
    let got = r.flows[0].delivered_bytes as f64;
    assert!((got - expected).abs() / expected < 0.01, "{got} vs {expected}");
}

#[test]
fn dscp_trust_classifies_untagged_roce_into_the_lossless_class() {
    // Switches trust DSCP with DSCP 26 -> priority 3 (lossless); flows are untagged.
    let mut d = incast_defaults(1 << 20, 64_000);
    d.switch.qos.trust = Trust::Dscp;
    d.switch.qos.dscp_to_priority.0[26] = ROCE;
    let f = single_switch(9, G100, cable_m(10), &d);
    let class = |dscp| FlowClass { priority: ROCE, dscp, ecn_capable: true, tagged: false };
    let traffic = |dscp| {
        let mut t = Traffic::new();
        t.incast(&f.hosts[1..], f.hosts[0], &FlowSpec::sized(0, 0, class(dscp), 512 << 10));
        t
    };
    let ok = run_checked(&f.spec, &traffic(26), &SimConfig::new(1, 2 * MS));
    assert_eq!(total_drops(&ok), 0);
    let sw_in = &ok.ports[f.hosts.len()..];
    assert!(sw_in.iter().all(|p| p.priorities[0].rx_packets == 0));
    assert!(sw_in.iter().any(|p| p.priorities[ROCE as usize].pfc_sent > 0));
    // Mismarked (DSCP 0 -> priority 0, lossy): the same incast now drops.
    let bad = run_checked(&f.spec, &traffic(0), &SimConfig::new(1, 2 * MS));
    assert!(bad.switches[0].drops_lossy > 0);
    // The hosts sent under priority 3, the switch received under priority 0: the receive
    // counters follow its classification, and every frame sent has been received.
    for h in &bad.ports[1..f.hosts.len()] {
        let s = bad.ports.iter().find(|p| (p.node, p.port) == (h.peer_node, h.peer_port)).expect("peer port");
        assert_eq!((h.priorities[0].tx_packets, s.priorities[ROCE as usize].rx_packets), (0, 0));
        let sent = h.priorities[ROCE as usize];
        assert!(sent.tx_packets > 0);
        assert_eq!((s.priorities[0].rx_packets, s.priorities[0].rx_bytes), (sent.tx_packets, sent.tx_bytes));
    }
}

#[test]
fn memory_follows_packets_in_flight_not_simulated_time() {
    // A saturated lossless incast reaches a steady state within a millisecond; running four
    // times longer must not grow the packet pool or the event queue.
    let d = incast_defaults(2 << 20, 32_000);
    let f = single_switch(9, G100, cable_m(10), &d);
    let mut t = Traffic::new();
    t.incast(&f.hosts[1..], f.hosts[0], &FlowSpec::greedy(0, 0, FlowClass::roce(ROCE, 26)));
    let short = run_checked(&f.spec, &t, &SimConfig::new(1, 2 * MS));
    let long = run_checked(&f.spec, &t, &SimConfig::new(1, 8 * MS));
    assert!(long.events > 3 * short.events);
    assert!(
        long.peak_packets_in_flight as f64 <= short.peak_packets_in_flight as f64 * 1.05,
        "pool grew from {} to {}",
        short.peak_packets_in_flight,
        long.peak_packets_in_flight
    );
    assert!(long.peak_pending_events <= short.peak_pending_events + 16);
}

#[test]
fn ecmp_spreads_flows_over_equal_cost_spines() {
    use rocelab_sim::topology::{leaf_spine, LeafSpine};
    let f = leaf_spine(
        &LeafSpine {
            leaves: 2,
            spines: 2,
            hosts_per_leaf: 8,
            host_rate_bps: 25_000_000_000,
            fabric_rate_bps: G100,
            host_delay_ps: cable_m(3),
            fabric_delay_ps: cable_m(20),
        },
        &FabricDefaults::lossless(ROCE, 64_000),
    );
    // 8 x 8 flows from leaf 0 to leaf 1, each with its own UDP source port.
    let mut t = Traffic::new();
    let mut sport = 50_000u16;
    for &s in &f.hosts[..8] {
        for &d in &f.hosts[8..] {
            t.push(FlowSpec { udp_src_port: sport, ..FlowSpec::sized(s, d, FlowClass::roce(ROCE, 26), 64 << 10) });
            sport += 1;
        }
    }
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, 2 * MS));
    assert!(r.flows.iter().all(|fl| fl.completion_ps.is_some()));
    // Leaf 0's two uplinks are its last two ports.
    let leaf0 = f.switches[0];
    let up: Vec<u64> = r
        .ports
        .iter()
        .filter(|p| p.node == leaf0 && f.switches.contains(&p.peer_node))
        .map(|p| p.total(|c| c.tx_packets))
        .collect();
    assert_eq!(up.len(), 2);
    let share = up[0] as f64 / (up[0] + up[1]) as f64;
    assert!((0.3..=0.7).contains(&share), "uplink share {share} ({up:?})");
}

/// The whole pipeline from YAML: the built-in two-tier scenario spreads congestion from an 8:1
/// incast to a victim flow on the same priority, and moving the incast to its own lossless
/// priority gives the victim its rate back. Same seed, same results.
#[test]
fn yaml_scenario_spreads_congestion_and_the_variant_isolates_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sim-incast-two-tier.yaml");
    let loaded = rocelab_model::load_file(&path).unwrap();
    let run = |variant: Option<&str>| {
        let (scenario, fabric) = match variant {
            None => (loaded.scenario.clone(), loaded.fabric.clone()),
            Some(v) => loaded.variant_scenario(v).unwrap(),
        };
        let b = rocelab_sim::from_model::build(&scenario, &fabric, example_seed());
        let r = rocelab_sim::run(&b.spec, &b.traffic, &b.config).unwrap();
        r.check_conservation().unwrap();
        let victim = b.names.flows.iter().position(|n| n == "victim").unwrap();
        (r.flows[victim].throughput_bps, serde_json::to_string(&r).unwrap())
    };
    let (shared, json1) = run(None);
    let (_, json2) = run(None);
    assert_eq!(json1, json2, "same scenario and seed, same bytes");
    let (isolated, _) = run(Some("incast-on-priority-4"));
    // The victim asks for 20 Gb/s of wire rate; its payload throughput alone is ~19.6 Gb/s.
    assert!(isolated > 19.0e9, "isolated victim {isolated}");
    assert!(shared < 0.5 * isolated, "victim sharing the incast's priority: {shared} vs {isolated}");
}

/// One line per scenario: the event count, the queue and pool high-water marks, and the digest
/// of what was simulated ([`bench::results_digest`]: the results without `events`,
/// `peak_pending_events`, `peak_packets_in_flight` and `schema_version`; the three counters
/// describe how the engine got there and are listed on their own).
fn golden_line(name: &str, r: &Results) -> String {
    format!(
        "{name}: events {} peak_pending {} peak_packets {} results {:016x}",
        r.events,
        r.peak_pending_events,
        r.peak_packets_in_flight,
        bench::results_digest(r)
    )
}

/// Guard for engine optimisations: the benchmark scenarios (at short durations) and the
/// fidelity scenarios above must give exactly the results recorded in the snapshot. An
/// optimisation that changes any simulated figure, or the order of events, shows here.
#[test]
fn engine_results_match_the_golden_digests() {
    let mut lines = Vec::new();
    let (spec, traffic) = bench::incast_16();
    lines.push(golden_line("incast-16:1-100G 300us", &run_checked(&spec, &traffic, &SimConfig::new(1, 300 * US))));
    let f = bench::fat_tree();
    let t = bench::fat_tree_permutation(&f, 1);
    lines.push(golden_line("fat-tree-320-permutation 20us", &run_checked(&f.spec, &t, &SimConfig::new(1, 20 * US))));
    let t = bench::fat_tree_permutation_at(&f, 1, Some(30_000_000_000));
    lines.push(golden_line(
        "fat-tree-320-permutation-30pct 20us",
        &run_checked(&f.spec, &t, &SimConfig::new(1, 20 * US)),
    ));

    let (spec, traffic) = ecn_incast();
    let mut cfg = SimConfig::new(3, MS);
    cfg.sampling.queue_interval_ps = Some(US);
    lines.push(golden_line("ecn-incast sampled", &run_checked(&spec, &traffic, &cfg)));
    let t = two_tier();
    let cfg = SimConfig::new(1, 500 * US);
    for (name, prio) in [("spreading-alone", None), ("spreading-same", Some(3)), ("spreading-other", Some(4))] {
        lines.push(golden_line(name, &run_checked(&t.spec, &spreading_traffic(&t, prio), &cfg)));
    }
    lines.push(golden_line("ets-90-10", &ets_run(true)));
    let small = incast_defaults(2 << 20, 4_000);
    let (spec, traffic) = incast(8, 300, &small, 1 << 20);
    lines.push(golden_line("headroom-too-small", &run_checked(&spec, &traffic, &SimConfig::new(1, MS))));
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 1 << 20;
    let (spec, traffic) = incast(8, 10, &d, 1 << 20);
    lines.push(golden_line("lossy-incast", &run_checked(&spec, &traffic, &SimConfig::new(1, MS))));
    let (spec, t) = host_rx_scenario();
    lines.push(golden_line("host-rx-pfc", &run_checked(&spec, &t, &SimConfig::new(1, MS))));
    let (spec, t) = on_off_scenario();
    lines.push(golden_line("on-off-cbr", &run_checked(&spec, &t, &SimConfig::new(1, MS))));
    // The RDMA variants of the benchmarks: RC queue pairs, ACKs, CNPs, DCQCN's timers, pacing.
    let (mut spec, mut traffic) = bench::incast_16();
    bench::with_rdma(&mut spec, &mut traffic, 4096);
    lines.push(golden_line(
        "incast-16:1-100G-rdma-dcqcn 10ms",
        &run_checked(&spec, &traffic, &SimConfig::new(1, 10 * MS)),
    ));
    let mut f = bench::fat_tree();
    let mut t = bench::fat_tree_permutation(&f, 1);
    bench::with_rdma(&mut f.spec, &mut t, 4096);
    lines.push(golden_line(
        "fat-tree-320-permutation-rdma-dcqcn 40us",
        &run_checked(&f.spec, &t, &SimConfig::new(1, 40 * US)),
    ));
    for (name, r) in tcp::golden_runs() {
        lines.push(golden_line(name, &r));
    }
    insta::assert_snapshot!(lines.join("\n"));
}

/// Run `traffic` in slices ending at the times `cuts` yields, then to the end.
fn run_sliced(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig, cuts: impl Iterator<Item = Time>) -> Results {
    let mut sim = Simulation::new(spec, traffic, config).unwrap();
    for t in cuts {
        sim.run_until(t);
        assert!(sim.now() <= config.end_time_ps);
    }
    let r = sim.finish();
    r.check_conservation().unwrap();
    r
}

#[test]
fn a_run_in_slices_gives_byte_identical_results() {
    // ECN draws, queue sampling, PFC timers, pacing: every kind of event, cut everywhere.
    let (spec, traffic) = ecn_incast();
    let mut cfg = SimConfig::new(3, MS);
    cfg.sampling.queue_interval_ps = Some(US);
    let whole = serde_json::to_string(&run_checked(&spec, &traffic, &cfg)).unwrap();
    // Regular slices, slices ending exactly on event times (multiples of a 1090-byte frame's
    // serialization at 100G, and of the sampling interval), and irregular ones.
    let regular = run_sliced(&spec, &traffic, &cfg, (1..100).map(|k| k * 10 * US));
    assert_eq!(serde_json::to_string(&regular).unwrap(), whole);
    let on_events = run_sliced(&spec, &traffic, &cfg, (1..2000).map(|k| k * 88_800 / 2 + k % 3));
    assert_eq!(serde_json::to_string(&on_events).unwrap(), whole);
    let mut rng = rocelab_sim::rng::Rng::new(8);
    let mut t = 0;
    let irregular = run_sliced(
        &spec,
        &traffic,
        &cfg,
        std::iter::from_fn(|| {
            t += rng.below(20 * US);
            (t < 2 * MS).then_some(t)
        }),
    );
    assert_eq!(serde_json::to_string(&irregular).unwrap(), whole);

    // Congestion spreading (pauses, refreshes, XON) with an observer, in slices.
    let tt = two_tier();
    let traffic = spreading_traffic(&tt, Some(3));
    let cfg = SimConfig::new(1, 500 * US);
    let mut rec_whole = Recorder::default();
    let whole = run_with_observer(&tt.spec, &traffic, &cfg, &mut rec_whole).unwrap();
    let mut rec_sliced = Recorder::default();
    let mut sim = Simulation::with_observer(&tt.spec, &traffic, &cfg, &mut rec_sliced).unwrap();
    assert_eq!(sim.end_time(), 500 * US);
    let mut slices = 0;
    while !sim.is_finished() {
        sim.run_until(sim.now() + 7 * US + 1);
        slices += 1;
    }
    assert!(slices > 70 && sim.events() == whole.events);
    let sliced = sim.finish();
    assert_eq!(serde_json::to_string(&sliced).unwrap(), serde_json::to_string(&whole).unwrap());
    assert_eq!(rec_sliced.pfc_tx, rec_whole.pfc_tx);
    assert_eq!((rec_sliced.data_tx, rec_sliced.data_rx), (rec_whole.data_tx, rec_whole.data_rx));
    assert!(!rec_whole.pfc_tx.is_empty());
}
