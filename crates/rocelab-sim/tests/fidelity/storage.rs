//! The seeds' storage experiments, run from the examples in `examples/`, against the findings
//! of the papers (each assertion states its tolerance):
//!
//! * Arista/Pure/Mellanox, "Deploying NVMe-oF for Enterprise Leaf-Spine Architecture" (2020;
//!   seed `nvme-of-leaf-spine-arista-pure.txt`): direct-connect, single-hop and BGP EVPN
//!   leaf-spine topologies at 25G and 100G, PFC, ECN and ECN with edge PFC; 4K QD1 latency
//!   ("Set 1") and 512K multi-job throughput ("Set 2").

use rocelab_sim::storage::results::StorageJobResults;
use rocelab_sim::*;

pub fn example(name: &str) -> rocelab_model::Loaded {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}.yaml"));
    rocelab_model::load_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Run `variant` (or the base) of example `name`; returns the results and the job names.
pub fn run_example(name: &str, variant: Option<&str>) -> (Results, Vec<String>) {
    run_example_seeded(name, variant, crate::example_seed())
}

/// [`run_example`] with the seed `seed` in place of the scenario's own (`rocelab sim --seed`).
pub fn run_example_seeded(name: &str, variant: Option<&str>, seed: Option<u64>) -> (Results, Vec<String>) {
    let l = example(name);
    let (scenario, fabric) = l.run_point(variant, None).unwrap_or_else(|e| panic!("{name} {variant:?}: {e}"));
    let b = rocelab_sim::from_model::build(&scenario, &fabric, seed);
    let r = run(&b.spec, &b.traffic, &b.config).unwrap_or_else(|e| panic!("{name} {variant:?}: {e}"));
    r.check_conservation().expect("conservation");
    (r, b.names.jobs)
}

/// The jobs whose name (before any `@host`) is `name`.
pub fn jobs<'a>(r: &'a Results, names: &[String], name: &str) -> Vec<&'a StorageJobResults> {
    r.jobs.iter().filter(|j| names[j.job].split('@').next() == Some(name)).collect()
}

/// Mean completion latency (µs) of the one job `name`, reads or writes.
pub fn mean_us(r: &Results, names: &[String], name: &str) -> f64 {
    let j = jobs(r, names, name);
    assert_eq!(j.len(), 1, "{name}");
    let d = if j[0].write.total_ios > 0 { &j[0].write } else { &j[0].read };
    assert!(d.total_ios > 50, "{name}: {} IOs measured", d.total_ios);
    d.clat_ns.mean_ns / 1e3
}

/// Total bandwidth (GB/s, 10⁹ bytes) of the jobs `name` on every initiator.
pub fn total_gbs(r: &Results, names: &[String], name: &str) -> f64 {
    jobs(r, names, name).iter().map(|j| j.bw_bytes()).sum::<f64>() / 1e9
}

/// One cell of the Arista/Pure test matrix.
struct Cell {
    topology: &'static str,
    speed: &'static str,
    variant: Option<&'static str>,
    write_4k_us: f64,
    write_512k: f64,
    read_512k: f64,
    pfc: u64,
    ecn: u64,
    drops: u64,
}

fn arista_pure(topology: &'static str, speed: &'static str, variant: Option<&'static str>) -> Cell {
    let (r, names) = run_example(&format!("arista-pure-{topology}-{speed}"), variant);
    let sum = |f: fn(&PriorityCounters) -> u64| r.ports.iter().map(|p| p.total(f)).sum::<u64>();
    Cell {
        topology,
        speed,
        variant,
        write_4k_us: mean_us(&r, &names, "write-4k"),
        write_512k: total_gbs(&r, &names, "write-512k"),
        read_512k: total_gbs(&r, &names, "read-512k"),
        pfc: sum(|c| c.pfc_sent),
        ecn: sum(|c| c.ecn_marked),
        drops: sum(|c| c.drops),
    }
}

/// Every topology at one speed, and the leaf-spine's congestion-control variants.
fn arista_pure_speed(speed: &'static str) -> Vec<Cell> {
    let mut cells = vec![
        arista_pure("direct", speed, None),
        arista_pure("single-hop", speed, None),
        arista_pure("leaf-spine", speed, Some("pfc")),
    ];
    for v in ["ecn", "ecn-edge-pfc"] {
        cells.push(arista_pure("leaf-spine", speed, Some(v)));
    }
    for c in &cells {
        eprintln!(
            "{}-{} {:?}: write 4K {:.1} us, 512K write {:.2} GB/s read {:.2} GB/s, pfc {} ecn {} drops {}",
            c.topology, c.speed, c.variant, c.write_4k_us, c.write_512k, c.read_512k, c.pfc, c.ecn, c.drops
        );
    }
    cells
}

/// "Set 1": the topology adds "on the order of tens of microseconds" to 4K write latency
/// ("a 10µs latency increase" from direct to leaf-spine at 25G); each hop adds some.
/// "Set 2": 512K throughput is the array's, "12GB/s to 13GB/s read throughput and a write
/// throughput close to 4GB/s to 4.5GB/s", whatever the topology, speed and congestion control.
fn check_arista_pure(cells: &[Cell]) {
    let lat = |t: &str| cells.iter().find(|c| c.topology == t).map(|c| c.write_4k_us).unwrap();
    let (direct, single, leaf) = (lat("direct"), lat("single-hop"), lat("leaf-spine"));
    // Ordering: each switch hop adds latency (the paper's figures show direct lowest). No
    // tolerance: same draws from the array in every topology, so only the network differs.
    assert!(direct < single && single < leaf, "direct {direct} < single-hop {single} < leaf-spine {leaf}");
    // Size: tens of µs at most. Tolerance: 20 µs, twice the paper's 10 µs figure (rocelab's
    // switches add store-and-forward only, no pipeline latency, so it finds less).
    let spread = cells.iter().map(|c| c.write_4k_us).fold(f64::MIN, f64::max)
        - cells.iter().map(|c| c.write_4k_us).fold(f64::MAX, f64::min);
    assert!(spread <= 20.0, "4K write latency spread {spread:.1} µs across topologies");
    // The congestion-control variant does not change a QD1 job's latency (no congestion).
    let leaf_all: Vec<f64> = cells.iter().filter(|c| c.topology == "leaf-spine").map(|c| c.write_4k_us).collect();
    assert!(leaf_all.iter().all(|l| (l - leaf).abs() < 1.0), "{leaf_all:?}");
    for c in cells {
        let what = format!("{}-{} {:?}", c.topology, c.speed, c.variant);
        // The paper's ranges, as printed.
        assert!((12.0..=13.0).contains(&c.read_512k), "{what}: 512K read {:.2} GB/s", c.read_512k);
        assert!((4.0..=4.5).contains(&c.write_512k), "{what}: 512K write {:.2} GB/s", c.write_512k);
        // Lossless in every mode: PFC, ECN with DCQCN, or both, and nothing dropped.
        assert_eq!(c.drops, 0, "{what}");
        if c.variant.is_some_and(|v| v.starts_with("ecn")) {
            assert!(c.ecn > 0, "{what}: the ECN variants mark");
        }
    }
    // "Nearly equal": within 3 % of each other (rocelab: the 25G links cap reads at 12.2 GB/s
    // of payload, a little under the array's 12.5).
    for f in [|c: &Cell| c.read_512k, |c: &Cell| c.write_512k] {
        let (lo, hi) = cells.iter().map(f).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
        assert!(hi / lo <= 1.03, "{lo:.2}..{hi:.2} GB/s");
    }
}

#[test]
fn arista_pure_25g_topologies_add_little_latency_and_keep_array_throughput() {
    let cells = arista_pure_speed("25g");
    check_arista_pure(&cells);
    // Not checked: the paper's pause frames. During a write job the array paused all four of
    // its leaf's ports alike ("RxPfc" on Et51/1-54/1 in "Show commands from Arista switches")
    // and the leaf paused the spines; "congestion is created on the endpoints". The model's
    // array pulls each write's data with an RDMA READ when the command arrives, and its write
    // ceiling holds back the completions (and so the initiators' next commands); its NIC
    // drains faster than the data arrives, so it never pauses, and with each array port its
    // own address no switch queue fills either: no pause frame at 25G (README's list of open
    // questions). Before the array's ports were addressed, the leaf hashed the initiators'
    // write data over the four ports unevenly and paused the spines, which this test took for
    // the paper's finding.
}

#[test]
fn arista_pure_100g_topologies_add_little_latency_and_keep_array_throughput() {
    let cells = arista_pure_speed("100g");
    check_arista_pure(&cells);
}

#[test]
fn arista_pure_nic_speed_does_not_change_latency() {
    // "As seen before, the NIC speed has no impact on latency": 25G against 100G, each
    // topology, within 5 µs (one 4 KiB frame's serialization at 25G is 1.3 µs per hop).
    for t in ["direct", "single-hop"] {
        let a = arista_pure(t, "25g", None).write_4k_us;
        let b = arista_pure(t, "100g", None).write_4k_us;
        assert!((a - b).abs() <= 5.0 && a >= b, "{t}: 25G {a:.1} µs, 100G {b:.1} µs");
    }
}

/// Run sweep point `point` of `variant` of example `name`.
pub fn run_point(name: &str, variant: Option<&str>, point: usize) -> (Results, Vec<String>) {
    let l = example(name);
    let (scenario, fabric) =
        l.run_point(variant, Some(point)).unwrap_or_else(|e| panic!("{name} {variant:?} {point}: {e}"));
    let b = rocelab_sim::from_model::build(&scenario, &fabric, crate::example_seed());
    let r = run(&b.spec, &b.traffic, &b.config).unwrap_or_else(|e| panic!("{name} {variant:?} {point}: {e}"));
    r.check_conservation().expect("conservation");
    (r, b.names.jobs)
}

/// Totals of the jobs whose name starts with `prefix`: GB/s, IOPS, and the IO-weighted mean
/// read latency (ms).
pub fn totals(r: &Results, prefix: &str) -> (f64, f64, f64) {
    let js: Vec<&StorageJobResults> = r.jobs.iter().filter(|j| j.name.starts_with(prefix)).collect();
    let gbs = js.iter().map(|j| j.bw_bytes()).sum::<f64>() / 1e9;
    let iops = js.iter().map(|j| j.iops()).sum::<f64>();
    let n: u64 = js.iter().map(|j| j.read.clat_ns.count).sum();
    let lat = js.iter().map(|j| j.read.clat_ns.mean_ns * j.read.clat_ns.count as f64).sum::<f64>() / n.max(1) as f64;
    (gbs, iops, lat / 1e6)
}

/// Microsoft's "Storage Spaces Direct with Cavium FastLinQ 41000" tables, per transport
/// (the example's variant) and queue depth 1, 2, 4, 8: the 512K read aggregate GB/s and read
/// latency (ms), and the 4K 90/10 IOPS and read latency (ms), as printed.
struct S2dColumn {
    variant: &'static str,
    r512k: [(f64, f64); 4],
    mix4k: [(f64, f64); 4],
}

const S2D_POST: [S2dColumn; 3] = [
    S2dColumn {
        variant: "iwarp",
        r512k: [(33.0, 1.1), (39.7, 1.9), (41.0, 3.7), (41.4, 7.4)],
        mix4k: [(272_588.0, 0.253), (484_532.0, 0.284), (748_090.0, 0.367), (1_177_243.0, 0.465)],
    },
    S2dColumn {
        variant: "roce",
        r512k: [(32.2, 1.2), (39.4, 1.9), (40.6, 3.7), (41.1, 7.4)],
        mix4k: [(268_107.0, 0.258), (481_493.0, 0.287), (729_442.0, 0.375), (1_161_534.0, 0.474)],
    },
    S2dColumn {
        variant: "iwarp-and-roce",
        r512k: [(33.2, 1.1), (40.1, 1.9), (41.0, 3.7), (41.6, 7.4)],
        mix4k: [(271_004.0, 0.256), (482_564.0, 0.284), (740_107.0, 0.372), (1_164_115.0, 0.472)],
    },
];

/// One run's figures in the post's units: 512K GB/s and ms, 4K IOPS and read ms.
#[derive(Debug)]
struct S2dRun {
    r512k: (f64, f64),
    mix4k: (f64, f64),
}

fn s2d_run(variant: &str, point: usize) -> (S2dRun, Results) {
    let (r, _) = run_point("microsoft-s2d-fastlinq-iwarp-roce", Some(variant), point);
    let (gbs, _, lat) = totals(&r, "r512");
    let (_, iops, lat4k) = totals(&r, "mix4k");
    let run = S2dRun { r512k: (gbs, lat), mix4k: (iops, lat4k) };
    eprintln!("{variant} QD {}: {run:?}", 1 << point);
    (run, r)
}

/// Each column against the model, at every queue depth. The device (`s2d-node`) was fitted to
/// these tables (`TargetProfile::s2d_node`); the tolerances are what that fit holds to:
/// * 512K: throughput within 10 % and latency within 15 % (the post rounds latency to 0.1 ms:
///   1.1 against 1.2 ms at QD 1 is 9 % by rounding alone);
/// * 4K: IOPS and read latency within 12 %: one line through the post's four latencies
///   misses QD 4 by 7-9 % (the post's latency climbs 29 % from QD 2 to 4, then 27 % from 4 to
///   8 for twice the IOs), and IOPS follow latency by Little's law.
fn check_s2d_column(c: &S2dColumn, runs: &[S2dRun]) {
    let within = |got: f64, want: f64, tol: f64, what: &str, point: usize| {
        assert!(
            (got / want - 1.0).abs() <= tol,
            "{} QD {}: {what} {got:.3} vs the post's {want} (±{:.0} %)",
            c.variant,
            1 << point,
            tol * 100.0
        );
    };
    for (point, run) in runs.iter().enumerate() {
        within(run.r512k.0, c.r512k[point].0, 0.10, "512K GB/s", point);
        within(run.r512k.1, c.r512k[point].1, 0.15, "512K read ms", point);
        within(run.mix4k.0, c.mix4k[point].0, 0.12, "4K IOPS", point);
        within(run.mix4k.1, c.mix4k[point].1, 0.12, "4K read ms", point);
    }
    // The post's shape: 512K throughput saturates from QD 2 ("very close to what's possible
    // with the cache devices"), +20 % from QD 1 to 2 and flat (within 5 %) after.
    let gb: Vec<f64> = runs.iter().map(|r| r.r512k.0).collect();
    assert!(gb[1] / gb[0] > 1.15 && gb[3] / gb[1] < 1.05, "{}: {gb:?}", c.variant);
}

/// The post's finding: "the aggregate throughput and latency is very consistent whether it is
/// with iWARP, RoCE or using both at the same time"; "very similar and consistent IOPS rates
/// and latency numbers". In its tables the three columns differ by at most 3.1 % (512K at
/// QD 1, 32.2 against 33.2 GB/s) on throughput and IOPS, and 2.2 % on 4K latency; 512K latency
/// is printed to 0.1 ms. Asserted: at every queue depth, the three variants' 512K GB/s and
/// latency and 4K IOPS and latency within 3 % of each other (max/min − 1), and each variant
/// against its own column as [`check_s2d_column`] states. And the variants really differ in
/// how the remote reads travel: RoCE alone opens no TCP connection and drops nothing (PFC);
/// iWARP runs its SMB Direct connections over TCP without PFC (at QD 8 the switch drops some
/// segments of the 512K reads' incast and TCP recovers them: the throughput holds, as the
/// post found without DCB); both at once do both.
#[test]
fn s2d_iwarp_roce_and_both_are_within_a_few_percent() {
    let mut all: Vec<Vec<S2dRun>> = Vec::new();
    for c in &S2D_POST {
        let mut runs = Vec::new();
        for point in 0..4 {
            let (run, r) = s2d_run(c.variant, point);
            let tcp = r.tcp_connections.len();
            let pfc: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
            let drops: u64 = r.ports.iter().map(|p| p.total(|c| c.drops)).sum();
            match c.variant {
                "roce" => assert!(tcp == 0 && drops == 0, "RoCE: {tcp} TCP connections, {drops} drops"),
                "iwarp" => assert!(tcp > 0 && pfc == 0, "iWARP: {tcp} TCP connections, {pfc} PFC frames"),
                _ => assert!(tcp > 0 && r.flows.iter().any(|f| f.tcp.is_none()), "both transports carry reads"),
            }
            eprintln!("  {tcp} TCP connections, {pfc} PFC frames, {drops} drops");
            runs.push(run);
        }
        check_s2d_column(c, &runs);
        all.push(runs);
    }
    type Metric = (&'static str, fn(&S2dRun) -> f64);
    let metrics: [Metric; 4] = [
        ("512K GB/s", |r| r.r512k.0),
        ("512K read ms", |r| r.r512k.1),
        ("4K IOPS", |r| r.mix4k.0),
        ("4K read ms", |r| r.mix4k.1),
    ];
    for point in 0..4 {
        for (what, f) in metrics {
            let v: Vec<f64> = all.iter().map(|runs| f(&runs[point])).collect();
            let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            assert!(hi / lo - 1.0 <= 0.03, "QD {}: {what} iWARP, RoCE, both: {v:?}", 1 << point);
        }
    }
}

/// Demartek RoCE Deployment Guide, "Windows Storage Spaces with Iometer" (configuration 3):
/// SMB Direct reads from ramdisk shares across the 40GbE link between the switches.
#[test]
fn demartek_iometer_reaches_line_rate_and_cpu_effectiveness_rises_with_block_size() {
    let l = example("demartek-config3-iometer-two-switch");
    let (_, values) = l.sweep_values().expect("a block-size sweep");
    let mut rows = Vec::new();
    for (point, bs) in values.iter().enumerate() {
        let (r, _) = run_point("demartek-config3-iometer-two-switch", None, point);
        let j = &r.jobs[0];
        let row = (j.bs, j.read.bw_bytes / 1e6, j.read.clat_ns.mean_ns / 1e3, j.initiator_cpu.effectiveness);
        eprintln!("{bs}: {:.0} MB/s, {:.1} us, {:.1} MB/s per % CPU", row.1, row.2, row.3);
        rows.push(row);
    }
    let at = |bs: u32| rows.iter().find(|r| r.0 == bs).copied().expect("swept");
    // The 40GbE link's payload rate at the fabric's 1500-byte MTU (1024-byte RoCE MTU): about
    // 4.6 GB/s. "Traffic gets close to 40Gbps line rate at a block size of 32KiB": within 5 %
    // of the largest block's throughput (the knee is where the assumed queue depth puts it).
    let line = at(512 * 1024).1;
    assert!(at(32 * 1024).1 >= 0.95 * line, "{rows:?}");
    assert!(at(4096).1 < 0.5 * line, "small blocks are far from line rate: {rows:?}");
    // "Larger block sizes show an increase in latency": from 32 KiB up, each doubling raises it.
    for w in rows.windows(2).filter(|w| w[0].0 >= 32 * 1024) {
        assert!(w[1].2 > w[0].2 * 1.5, "{rows:?}");
    }
    // "low processor effectiveness for 4KiB block sizes due to high IOPS"; "producing a
    // processor efficiency above 400 MBPS/%processor" with larger blocks. Effectiveness rises
    // with every block size.
    assert!(at(4096).3 < 50.0, "{rows:?}");
    assert!(at(64 * 1024).3 > 400.0 && at(128 * 1024).3 > 400.0, "{rows:?}");
    assert!(rows.windows(2).all(|w| w[1].3 > w[0].3), "{rows:?}");
}

/// Demartek RoCE Deployment Guide, "Congestion Testing" (configuration 4): mirrored SMB Direct
/// writes between two S2D nodes on different switches joined by 40GbE, with four iperf servers
/// sending TCP across the same link. The guide's findings: "Total throughput ... decreases
/// when congestion is introduced. Some throughput loss is recovered when DCQCN and ETS are
/// introduced"; "for most block sizes, the write workload saw a large jump in latency when
/// congestion was introduced. We also see a large reduction in latency when DCQCN and ETS are
/// introduced". Its charts carry no figures the model could be held to, so the test asserts
/// the ordering, with margins, at the block sizes where the writes load the 40GbE link (32 KiB
/// and up: below, 1-16 KiB, the mirrored writes are IOPS-bound and the link has room for both,
/// so the three runs stay within a few percent of each other in the model).
#[test]
fn demartek_congestion_cuts_write_throughput_and_dcqcn_with_ets_recovers_part_of_it() {
    let name = "demartek-config4-two-switch";
    let l = example(name);
    let (_, values) = l.sweep_values().expect("a block-size sweep");
    // Total write GB/s and IO-weighted mean write latency (µs) of every job of a run.
    let figures = |variant: &str, point: usize| {
        let (r, _) = run_point(name, Some(variant), point);
        let gbs = r.jobs.iter().map(|j| j.bw_bytes()).sum::<f64>() / 1e9;
        let n: u64 = r.jobs.iter().map(|j| j.write.clat_ns.count).sum();
        assert!(n > 100, "{variant} @ {}: {n} writes measured", values[point]);
        let lat = r.jobs.iter().map(|j| j.write.clat_ns.mean_ns * j.write.clat_ns.count as f64).sum::<f64>();
        (gbs, lat / n as f64 / 1e3)
    };
    for bs in ["32KiB", "64KiB", "128KiB"] {
        let point = values.iter().position(|v| v == bs).unwrap_or_else(|| panic!("{bs} in {values:?}"));
        let base = figures("baseline", point);
        let cong = figures("congestion", point);
        let both = figures("congestion-dcqcn-ets", point);
        eprintln!("{bs}: baseline {base:.2?}, congestion {cong:.2?}, with DCQCN and ETS {both:.2?} (GB/s, us)");
        // Throughput: congestion costs at least 10 %; DCQCN and ETS win back at least 10 % of
        // the congested figure without going past the baseline (partial recovery).
        assert!(cong.0 < 0.9 * base.0, "{bs}: congestion must cut throughput");
        assert!(both.0 > 1.1 * cong.0 && both.0 <= 1.02 * base.0, "{bs}: DCQCN and ETS recover part of it");
        // Latency: a jump of at least 20 % with congestion, then a fall of at least 10 %.
        assert!(cong.1 > 1.2 * base.1, "{bs}: congestion must raise write latency");
        assert!(both.1 < 0.9 * cong.1 && both.1 >= 0.98 * base.1, "{bs}: DCQCN and ETS bring it down");
    }
}

/// Median completion latency (µs) of the one job `name`, reads or writes: the QD1 4K runs are a
/// few hundred IOs of a long-tailed device, whose median is steadier than the mean.
fn p50_us(r: &Results, names: &[String], name: &str) -> f64 {
    let j = jobs(r, names, name);
    assert_eq!(j.len(), 1, "{name}");
    let d = if j[0].write.total_ios > 0 { &j[0].write } else { &j[0].read };
    assert!(d.total_ios > 50, "{name}: {} IOs measured", d.total_ios);
    d.clat_ns.p50_ns as f64 / 1e3
}

/// Arista/Pure, "iSCSI comparison": the 4K latency and 512K throughput sets over iSCSI (TCP,
/// the engine's PDU exchange) against NVMe/RoCE, leaf-spine at 25G and 100G. The paper: "a
/// ~40% decrease in the 4k write latency for NVMe/RoCE and ~25-30% decrease in read latency";
/// "NVMe/RoCE write throughput has an improvement of about 5% over iSCSI"; "the performance
/// difference of the 512k read IO is closer to 20%". The iSCSI CPU costs were calibrated on
/// these ratios (`storage::cpu`), so this checks that the calibration holds once the PDUs
/// cross the simulated TCP connections.
#[test]
fn arista_pure_nvme_roce_beats_iscsi_as_the_paper_measured() {
    for speed in ["25g", "100g"] {
        let name = format!("arista-pure-leaf-spine-{speed}");
        let (nvme, n) = run_example(&name, Some("pfc"));
        let (iscsi, m) = run_example(&name, Some("iscsi"));
        assert!(iscsi.jobs.iter().all(|j| j.protocol == rocelab_sim::storage::ProtocolKind::Iscsi));
        let gain = |a: f64, b: f64| 1.0 - a / b;
        let w = gain(p50_us(&nvme, &n, "write-4k"), p50_us(&iscsi, &m, "write-4k"));
        let r = gain(p50_us(&nvme, &n, "read-4k"), p50_us(&iscsi, &m, "read-4k"));
        let rd = total_gbs(&nvme, &n, "read-512k") / total_gbs(&iscsi, &m, "read-512k") - 1.0;
        let wr = total_gbs(&nvme, &n, "write-512k") / total_gbs(&iscsi, &m, "write-512k") - 1.0;
        eprintln!(
            "{speed}: 4K write -{:.0}%, 4K read -{:.0}%, 512K read +{:.0}%, 512K write +{:.0}%",
            w * 100.0,
            r * 100.0,
            rd * 100.0,
            wr * 100.0
        );
        // ~40 % lower write latency: 25-50 %; 25-30 % lower read latency: 15-35 %.
        assert!((0.25..=0.50).contains(&w), "{speed}: 4K write latency {w:.2}");
        assert!((0.15..=0.35).contains(&r), "{speed}: 4K read latency {r:.2}");
        // ~20 % more 512K reads: 10-35 %. ~5 % more writes, "muted by the fact that the limit
        // of the workload profile is ~4.4GB/s": both protocols reach the array's write limit in
        // the model, so equal within 2 % is allowed, up to 10 % more.
        assert!((0.10..=0.35).contains(&rd), "{speed}: 512K read {rd:.2}");
        assert!((-0.02..=0.10).contains(&wr), "{speed}: 512K write {wr:.2}");
    }
}

/// Retransmitted segments of every TCP connection of a run.
fn retransmissions(r: &Results) -> u64 {
    r.tcp_connections.iter().map(|c| c.ends[0].stats.retransmissions + c.ends[1].stats.retransmissions).sum()
}

/// Dell, "RHEL 6.3 NIC Optimization and Best Practices with EqualLogic SANs": the base SAN
/// (1:1, two host ports) and the congested SAN (4:1, four members into one host port), vdbench's
/// 8 KB random 67 % read, 256 KB sequential read and write over iSCSI. The paper's charts did not
/// survive; its text gives directions: 802.3x flow control "helps to prevent network congestion
/// and packet loss" and stays on in every test case; jumbo frames are recommended for the
/// "compelling difference" they make. Asserted:
/// * congested SAN with flow control: the host port at line rate on 256 KB reads (1.1-1.25 GB/s
///   of the 10GbE port), the switch pausing the members, (almost) no loss;
/// * without flow control: the four members' bursts overflow the switch and TCP retransmits at
///   least 100 times more segments, at every seed of 1-8. The paper gives no throughput for it.
///   In the model the 256 KB read throughput, on the mean of seeds 1-8, does not fall more than
///   3 % below the run with flow control: SACK's fast recovery (and the members' RACK and PRR) repairs
///   every loss without a timeout while the one host port, the bottleneck, stays busy. (Until
///   the TCP sender counted duplicate ACKs as RFC 6675 defines them with SACK, a loss of the
///   first segment sent after a recovery began waited for the 200 ms timer, and the mean fell
///   1.5 %; this test asserted that fall.) It may rise above it: the members then share the
///   port unevenly (seed 1: 24, 24, 28 and 27 reads), and a 20 ms window that counts reads
///   completed in it, with 40 reads of 256 KB (10 MB) outstanding, credits it with reads whose
///   data mostly arrived before it opened (1.298 against 1.214 GB/s on the mean since the iSCSI
///   initiator's receive cost was mended, seed 1 retransmitting 603 segments; 1.319 against
///   1.211 and 583 before that, since a window grows only while it limits its sender; 1.298
///   against 1.209 and 603 with PRR before that rule, 1.275 and 1,225 with RACK alone, 1.211
///   before either). A 20 ms run completes only about 93 reads of 256 KB, one
///   read more or less is 1.1 %, hence the mean over seeds;
/// * base SAN: twice the host ports, at least 1.8 times the congested SAN's 256 KB throughput,
///   nothing retransmitted.
#[test]
fn dell_equallogic_flow_control_keeps_the_congested_san_from_losing_packets() {
    const SEEDS: std::ops::RangeInclusive<u64> = 1..=8;
    let congested = |variant: &str| -> Vec<Results> {
        SEEDS.map(|seed| run_example_seeded("dell-equallogic-congested-san", Some(variant), Some(seed)).0).collect()
    };
    let (fc, nofc) = (congested("jumbo"), congested("no-flow-control"));
    let (base, _) = run_example("dell-equallogic-base-san", Some("jumbo"));
    let read = |r: &Results| totals(r, "seqread256k").0;
    let mean = |runs: &[Results]| runs.iter().map(read).sum::<f64>() / runs.len() as f64;
    let (fc_gbs, nofc_gbs, base_gbs) = (mean(&fc), mean(&nofc), read(&base));
    eprintln!(
        "256K read, mean of seeds {SEEDS:?}: congested {fc_gbs:.3} GB/s, without flow control {nofc_gbs:.3} GB/s; base {base_gbs:.2} GB/s"
    );
    for (seed, (fc, nofc)) in SEEDS.zip(fc.iter().zip(&nofc)) {
        let (fc_retx, nofc_retx) = (retransmissions(fc), retransmissions(nofc));
        eprintln!(
            "  seed {seed}: {:.4} GB/s ({fc_retx} retx), without flow control {:.4} GB/s ({nofc_retx} retx)",
            read(fc),
            read(nofc)
        );
        assert!((1.10..=1.25).contains(&read(fc)), "seed {seed}: {}", read(fc));
        let paused: u64 = fc.ports.iter().filter_map(|p| p.link_pause.as_ref()).map(|l| l.sent).sum();
        assert!(paused > 0, "seed {seed}: the switch paused the members");
        assert!(nofc_retx >= 100 * (fc_retx + 1), "seed {seed}: {nofc_retx} vs {fc_retx}");
    }
    assert!(nofc_gbs > 0.97 * fc_gbs, "{nofc_gbs} vs {fc_gbs}");
    assert!(base_gbs >= 1.8 * fc_gbs, "{base_gbs} vs {fc_gbs}");
    assert_eq!(retransmissions(&base), 0);
    // Every workload ran on every member.
    for r in fc.iter().chain([&base]) {
        assert!(r.jobs.iter().all(|j| j.read.total_ios + j.write.total_ios > 10), "{:?}", r.jobs);
    }
}

/// vdbench's figures of merit (3.2: "Vdbench IOPS results were used to evaluate 8 KB random
/// workload performance. Vdbench throughput results were used to evaluate 256 KB sequential
/// workload performance"): 8K random IOPS, 256K read and write GB/s.
fn vdbench(r: &Results) -> [f64; 3] {
    [totals(r, "rand8k").1, totals(r, "seqread256k").0, totals(r, "seqwrite256k").0]
}

const VDBENCH: [&str; 3] = ["8K random IOPS", "256K read GB/s", "256K write GB/s"];

/// Dell EqualLogic, 3.3 "Test case sequence": standard against jumbo frames (test cases 1-2),
/// then single TCP stack options toggled on the baseline — receive window scaling disabled
/// (test case 4) and Reno for Cubic (test case 5) — for each of the three vdbench workloads,
/// on the base and the congested SAN. The paper's charts did not survive; its text gives the
/// directions:
/// * 5 "Recommended configurations": non-default settings are recommended "only when a
///   compelling difference in performance for one or more workloads was observed", and jumbo
///   frames are recommended. Asserted: jumbo frames move more 256K data, reads and writes, by
///   at least 1 % (the header overhead of 1500-byte frames is about 5 %; on the congested SAN
///   the measured window's IO count rounds it to 1-3 %), and random 8K IOPS are no worse
///   (within 2 %: a PS6110XV's seeks, not frames, bound them).
/// * 6 "Conclusion": "Configuration changes beyond the baseline configuration were not
///   justified by an analysis of the performance data from either the base or the congested
///   SAN environments." Asserted: neither window scaling off nor Reno improves any workload's
///   figure by more than 5 % over the baseline (the threshold of a "compelling" difference;
///   the model finds them within 2.5 %: on a 10GbE LAN with a round trip of tens of µs a
///   64 KiB window covers the bandwidth-delay product, and with flow control on nothing is
///   lost for the congestion control to react to).
///
/// And the variants took effect: the host's iSCSI sessions run without window scaling
/// (negotiated off, RFC 7323 needs both ends) or with the host sending under NewReno.
#[test]
fn dell_equallogic_jumbo_frames_help_and_tcp_options_bring_no_compelling_improvement() {
    use rocelab_sim::tcp::CcKind;
    for san in ["base", "congested"] {
        let name = format!("dell-equallogic-{san}-san");
        let (baseline, _) = run_example(&name, Some("jumbo"));
        let (standard, _) = run_example(&name, Some("standard-frames"));
        let (no_wscale, _) = run_example(&name, Some("no-window-scaling"));
        let (reno, _) = run_example(&name, Some("reno"));
        let sessions = |r: &Results| r.tcp_connections.clone();
        assert!(sessions(&baseline).iter().all(|c| c.window_scaling && c.congestion_control == CcKind::Cubic));
        assert!(sessions(&no_wscale).iter().all(|c| !c.window_scaling));
        assert!(sessions(&reno).iter().all(|c| c.congestion_control == CcKind::NewReno));
        assert!(!sessions(&baseline).is_empty());
        let [b, s, w, n] = [&baseline, &standard, &no_wscale, &reno].map(vdbench);
        for (i, what) in VDBENCH.iter().enumerate() {
            eprintln!(
                "{san} {what}: baseline {:.3}, standard frames {:.3}, no window scaling {:.3}, reno {:.3}",
                b[i], s[i], w[i], n[i]
            );
            for (variant, v) in [("no-window-scaling", w[i]), ("reno", n[i])] {
                assert!(v <= 1.05 * b[i], "{san} {variant}: {what} {v:.3} against the baseline's {:.3}", b[i]);
            }
        }
        assert!(b[0] >= 0.98 * s[0], "{san}: 8K IOPS jumbo {} vs standard {}", b[0], s[0]);
        for i in [1, 2] {
            assert!(b[i] >= 1.01 * s[i], "{san}: {} jumbo {:.3} vs standard {:.3}", VDBENCH[i], b[i], s[i]);
        }
    }
}

/// Demartek RoCE Deployment Guide, configuration 5 ("Linux iSCSI with vdbench", "Linux
/// NFSoRDMA with vdbench"): two 25GbE clients read from a ramdisk target across the 40GbE link
/// between the switches, over iSER, iSCSI, NFS over RDMA and NFS over TCP. The guide's charts
/// did not survive; its text gives the read findings asserted here:
/// * "iSER and iSCSI both appear to easily reach line rate with our read workload";
///   "NFSoRDMA and NFS over TCP/IP both appear to easily reach line rate": at 512 KiB every
///   protocol moves at least 4.4 GB/s (88 % of the 5 GB/s of 40 Gb/s: what Ethernet, IP and
///   the transport's headers leave at the guide's MTU of 1500), within 5 % of each other;
/// * "processor consumption for iSCSI is consistantly higher than processor consuption for
///   iSER"; "read processor for NFS over TCP/IP is consistantly higher than read processor
///   for NFSoRDMA": at line rate (512 KiB) the clients' CPU utilisation over TCP is higher;
/// * "read processor effectiveness is clearly, consistantly higher for iSER"; "Processor
///   effectiveness for reads is clearly higher for NFSoRDMA RoCE than it is for NFS over
///   TCP/IP": MB/s per % CPU over RDMA above TCP's at every block size, by at least 5 %.
///
/// Not asserted: the writes. The guide found iSER's writes "struggle to reach line rate"
/// ("It is unclear what is causing this") and NFS writes below line rate ("It is likely
/// something in NFS requires tuning"), and its iSER/iSCSI latencies "overly high for the
/// workload and target" — setup problems it did not resolve, which a model of the protocols
/// does not reproduce.
#[test]
fn demartek_linux_reads_reach_line_rate_and_rdma_is_more_cpu_effective() {
    let name = "demartek-config5-linux-iser-nfs";
    let l = example(name);
    let (_, values) = l.sweep_values().expect("a block-size sweep");
    let largest = values.len() - 1;
    // Per protocol (variant) and block size: read GB/s, mean client CPU utilisation (%) and
    // effectiveness (MB/s per % CPU) of the read jobs.
    let read = |variant: &str, point: usize| {
        let (r, _) = run_point(name, Some(variant), point);
        let js: Vec<&StorageJobResults> = r.jobs.iter().filter(|j| j.name.starts_with("read")).collect();
        assert_eq!(js.len(), 2);
        let gbs = js.iter().map(|j| j.read.bw_bytes).sum::<f64>() / 1e9;
        let cpu = js.iter().map(|j| j.initiator_cpu.utilization * 100.0).sum::<f64>() / 2.0;
        let eff = js.iter().map(|j| j.initiator_cpu.effectiveness).sum::<f64>() / 2.0;
        eprintln!("{variant} @ {}: {gbs:.2} GB/s, client CPU {cpu:.2} %, {eff:.0} MB/s per % CPU", values[point]);
        (gbs, cpu, eff)
    };
    let pairs = [("iser", "iscsi"), ("nfs-rdma", "nfs-tcp")];
    let mut line = Vec::new();
    for (rdma, tcp) in pairs {
        for (point, bs) in values.iter().enumerate() {
            let (a, b) = (read(rdma, point), read(tcp, point));
            assert!(a.2 >= 1.05 * b.2, "{rdma} vs {tcp} @ {bs}: effectiveness {:.0} vs {:.0}", a.2, b.2);
            if point == largest {
                assert!(b.1 > a.1, "{tcp} uses more CPU than {rdma} at line rate: {:.2} vs {:.2} %", b.1, a.1);
                line.extend([a.0, b.0]);
            }
        }
    }
    let (lo, hi) = line.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(lo >= 4.4 && hi / lo <= 1.05, "512 KiB reads: {line:?} GB/s");
}
