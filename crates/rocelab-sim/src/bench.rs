//! The standard benchmark scenarios, public so that `rocelab bench` (through [`Scenario`]), the
//! `engine_bench` example and the criterion benches in `benches/engine.rs` measure the same thing.
//!
//! * [`incast_16`]: 16 hosts send line-rate RoCE to one host through one 100 Gb/s switch,
//!   lossless priority 3 with PFC — the switch pauses the senders continuously.
//! * [`fat_tree_permutation`]: the 320-host three-tier fat tree of the HPCC simulator's
//!   `fat.txt` (100 Gb/s hosts, 400 Gb/s fabric, 1 µs links) with random-permutation line-rate
//!   traffic on a lossless priority; ECMP collisions make PFC act in the fabric. A variant at
//!   30 Gb/s per host ([`fat_tree_permutation_at`]) keeps few packets in flight.
//! * [`fat_tree_websearch`]: the same fat tree with the workload of the HPCC paper's
//!   evaluation — flow sizes from the web-search CDF, Poisson arrivals at 30 % load for 5 ms —
//!   plus two 64-to-1 incasts of 500 KB per sender. The CDF and `fat.txt` are read from the
//!   HPCC formats directory ([`hpcc_data_dir`]); rocelab ships neither.
//! * [`tcp_two_switch`]: the Demartek guide's congestion test (configuration 4) as TCP: two
//!   switches joined by one 40 Gb/s link, four iperf clients at 25 Gb/s on one, four servers
//!   on the other, 16 CUBIC streams (iperf3 `-P 4` per pair) across the link on a lossy class.
//! * [`storage_runs`]: the storage examples as they run from `examples/` — every variant of the
//!   Arista/Pure leaf-spine at 25G and 100G and the direct and single-hop topologies (NVMe/RoCE
//!   4K QD1 latency and 512K throughput sets, 68 ms each), and every variant of Demartek
//!   configuration 4 at each block size of its sweep (mirrored SMB Direct writes, 14 ms).

use crate::error::SimError;
use crate::fct::Percentiles;
use crate::sim::SimConfig;
use crate::spec::{BufferSpec, NetworkSpec};
use crate::stats::Results;
use crate::time::{Time, MS, NS, US};
use crate::topology::{hpcc_fat_tree, single_switch, Fabric, FabricDefaults};
use crate::traffic::{FlowClass, FlowSpec, PoissonArrivals, SizeDistribution, Traffic};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What one benchmark run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Scenario name.
    pub name: String,
    /// Events processed.
    pub events: u64,
    /// Simulated time.
    pub simulated_ps: Time,
    /// Wall-clock seconds of the run (building included).
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Packet-pool high-water mark (memory follows packets in flight).
    pub peak_packets_in_flight: u64,
    /// Payload bytes delivered.
    pub delivered_bytes: u64,
    /// Most events pending at once.
    pub peak_pending_events: u64,
    /// Flows with a size.
    pub sized_flows: u64,
    /// Of which completed in the run.
    pub completed_flows: u64,
    /// Slowdown percentiles of the completed sized flows.
    pub slowdown: Option<Percentiles<f64>>,
    /// [`results_digest`] of the run: equal digests, equal simulated results.
    pub digest: u64,
    /// On several threads, what each did ([`crate::run_threads_profiled`]).
    pub threads: Option<crate::ThreadsProfile>,
}

/// A digest of what a run simulated: FNV-1a 64 of the results' JSON with `events`,
/// `peak_pending_events`, `peak_packets_in_flight` and `schema_version` cleared. Those
/// describe how the engine got there (an engine that skips superseded timers processes fewer
/// events for the same results; the packet pool's high-water mark, which a run on several
/// threads, one pool per part, cannot give exactly) and the layout's version, not a simulated
/// figure. Two engines that simulate the same thing give
/// the same digest; the golden tests and `engine_bench` compare engines with it.
pub fn results_digest(r: &Results) -> u64 {
    digest_of(r.clone())
}

/// [`results_digest`] of results the caller gives up: no copy, and the JSON is hashed as it is
/// written rather than held whole (on the web-search benchmark the string alone was a few
/// megabytes, counted in the peak RSS `engine_bench` is measured by).
fn digest_of(mut physics: Results) -> u64 {
    physics.events = 0;
    physics.peak_pending_events = 0;
    physics.peak_packets_in_flight = 0;
    physics.schema_version = 0;
    let mut h = Fnv1a(0xcbf2_9ce4_8422_2325);
    serde_json::to_writer(&mut h, &physics).expect("results serialize");
    h.0
}

/// FNV-1a 64 over the bytes written.
struct Fnv1a(u64);

impl std::io::Write for Fnv1a {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = buf.iter().fold(self.0, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Lossless priority used by the scenarios.
pub const BENCH_PRIORITY: u8 = 3;

fn defaults(headroom: u64) -> FabricDefaults {
    let mut d = FabricDefaults::lossless(BENCH_PRIORITY, headroom);
    d.switch.buffer = BufferSpec { size_bytes: 32 << 20, ..BufferSpec::default() };
    d
}

/// 16:1 incast at 100 Gb/s on one switch (17 hosts, 100 ns links), greedy flows.
pub fn incast_16() -> (NetworkSpec, Traffic) {
    let f = single_switch(17, 100_000_000_000, 100 * NS, &defaults(100_000));
    let mut t = Traffic::new();
    let tmpl = FlowSpec::greedy(0, 0, FlowClass::roce(BENCH_PRIORITY, 26));
    t.incast(&f.hosts[1..], f.hosts[0], &tmpl);
    (f.spec, t)
}

/// Defaults for the fat tree: 32 MB buffers, 200 KB headroom per lossless PG (1 µs links).
pub fn fat_tree_defaults() -> FabricDefaults {
    defaults(200_000)
}

/// The generated 320-host fat tree (see [`hpcc_fat_tree`]).
pub fn fat_tree() -> Fabric {
    hpcc_fat_tree(&fat_tree_defaults())
}

/// Random-permutation line-rate traffic over `fabric`'s hosts.
pub fn fat_tree_permutation(fabric: &Fabric, seed: u64) -> Traffic {
    fat_tree_permutation_at(fabric, seed, None)
}

/// Random-permutation traffic over `fabric`'s hosts, each flow at `rate_bps` (CBR) or at line
/// rate (`None`). At 30 Gb/s per 100 Gb/s host the fabric holds few packets in flight, which
/// measures the engine rather than the memory system.
pub fn fat_tree_permutation_at(fabric: &Fabric, seed: u64, rate_bps: Option<u64>) -> Traffic {
    let mut t = Traffic::new();
    let class = FlowClass::roce(BENCH_PRIORITY, 26);
    let tmpl = match rate_bps {
        Some(r) => FlowSpec::cbr(0, 0, class, r),
        None => FlowSpec::greedy(0, 0, class),
    };
    t.permutation(&fabric.hosts, seed, &tmpl);
    t
}

/// The RDMA variants of the scenarios: every flow an RC queue pair doing RDMA WRITEs at
/// `path_mtu`, DCQCN with the paper's parameters at every host and RED/ECN marking on the
/// lossless class (the paper's Kmin 5 KB, Kmax 200 KB, Pmax 1%). ACKs, CNPs and the QPs' timers
/// are events too, so events per second compare with the open-loop scenarios only roughly.
pub fn with_rdma(spec: &mut NetworkSpec, traffic: &mut Traffic, path_mtu: u32) {
    let ecn = crate::EcnSpec { kmin_bytes: 5_000, kmax_bytes: 200_000, pmax: 0.01 };
    for n in &mut spec.nodes {
        match &mut n.kind {
            crate::spec::NodeKind::Host(h) => h.nic.cc = crate::cc::CcAlgorithm::Dcqcn(crate::cc::DcqcnParams::paper()),
            crate::spec::NodeKind::Switch(s) => {
                for p in &mut s.ports {
                    p.tcs[BENCH_PRIORITY as usize].ecn = Some(ecn);
                }
            }
        }
    }
    for f in &mut traffic.flows {
        f.payload_bytes = path_mtu;
        *f = f.rc(crate::rdma::RdmaOp::Write);
    }
}

/// Run one scenario on `threads` threads ([`crate::run_threads`]) and time it.
pub fn measure(
    name: &str,
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    threads: usize,
) -> Result<BenchReport, SimError> {
    let t0 = Instant::now();
    let (r, profile) = crate::run_threads_profiled(spec, traffic, config, threads)?;
    let wall = t0.elapsed().as_secs_f64();
    let report = BenchReport {
        name: name.to_string(),
        events: r.events,
        simulated_ps: r.end_time_ps,
        wall_seconds: wall,
        events_per_second: r.events as f64 / wall.max(1e-9),
        peak_packets_in_flight: r.peak_packets_in_flight,
        delivered_bytes: r.flows.iter().map(|f| f.delivered_bytes).sum(),
        peak_pending_events: r.peak_pending_events,
        sized_flows: r.fct.as_ref().map(|f| f.overall.flows).unwrap_or(0),
        completed_flows: r.fct.as_ref().map(|f| f.overall.completed).unwrap_or(0),
        slowdown: r.fct.as_ref().and_then(|f| f.overall.slowdown),
        digest: 0,
        threads: profile,
    };
    Ok(BenchReport { digest: digest_of(r), ..report })
}

/// The HPCC simulator's formats directory (`fat.txt`, the flow-size CDFs): `$ROCELAB_HPCC_DATA`
/// when set, else the first `shared/data/hpcc-formats` found in `from` or an ancestor of it.
pub fn hpcc_data_dir(from: &Path) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ROCELAB_HPCC_DATA") {
        return Some(PathBuf::from(dir)).filter(|d| d.is_dir());
    }
    from.ancestors().map(|a| a.join("shared/data/hpcc-formats")).find(|d| d.is_dir())
}

/// Offered load of the web-search background (the HPCC paper's 30 %).
pub const WEBSEARCH_LOAD: f64 = 0.3;
/// How long web-search flows arrive.
pub const WEBSEARCH_ARRIVALS: Time = 5 * MS;
/// Payload per packet of the flow scenarios: the HPCC simulator's `PACKET_PAYLOAD_SIZE` (1000
/// bytes in its shipped `config.txt`), so that packet counts compare.
pub const HPCC_PAYLOAD: u32 = 1000;
/// Bytes per sender of the incasts.
pub const INCAST_BYTES: u64 = 500_000;

/// The flow-workload benchmark on the 320-host fat tree: `sizes` (the web-search CDF) with
/// Poisson arrivals at 30 % of every host's 100 Gb/s for 5 ms between all hosts, and two
/// 64-to-1 incasts of 500 KB per sender: at 1 ms the 64 hosts of pod 1 send to host 0 (pod 0),
/// at 3 ms the 64 hosts of pod 4 send to host 160 (pod 2). Lossless priority 3; open-loop RoCE
/// until the transport with DCQCN lands.
pub fn fat_tree_websearch<D: SizeDistribution + ?Sized>(fabric: &Fabric, sizes: &D, seed: u64) -> Traffic {
    let class = FlowClass::roce(BENCH_PRIORITY, 26);
    let mut tmpl = FlowSpec::sized(0, 0, class, 1);
    tmpl.payload_bytes = HPCC_PAYLOAD;
    let rates: Vec<u64> = vec![100_000_000_000; fabric.hosts.len()];
    let mut t = Traffic::new();
    t.poisson(
        &PoissonArrivals {
            hosts: &fabric.hosts,
            host_rate_bps: &rates,
            sizes,
            load: WEBSEARCH_LOAD,
            start_ps: 0,
            end_ps: WEBSEARCH_ARRIVALS,
            seed,
        },
        &tmpl,
    );
    let h = &fabric.hosts;
    let mut incast = FlowSpec { size_bytes: Some(INCAST_BYTES), start_ps: MS, ..tmpl };
    incast.udp_src_port = 60_000;
    t.incast(&h[64..128], h[0], &incast);
    incast.start_ps = 3 * MS;
    t.incast(&h[256..320], h[160], &incast);
    t
}

/// Streams per iperf pair of [`tcp_two_switch`] (iperf3 `-P 4`).
pub const TCP_STREAMS_PER_PAIR: u32 = 4;

/// Two switches joined by 40 Gb/s (1 µs), `pairs` iperf clients at 25 Gb/s on the first and as
/// many servers on the second (100 ns host links), Linux's TCP (CUBIC) on priority 0, lossy,
/// 16 MiB buffers; client `i` runs iperf3 `-P 4` to server `i`.
pub fn tcp_two_switch(pairs: usize) -> (NetworkSpec, Traffic) {
    use crate::topology::NetworkBuilder;
    let d = FabricDefaults::lossy();
    let mut b = NetworkBuilder::new();
    let sw =
        [b.add_switch("sw1", d.switch.clone(), d.switch_port), b.add_switch("sw2", d.switch.clone(), d.switch_port)];
    b.connect(sw[0], sw[1], 40_000_000_000, US);
    let mut hosts = [Vec::new(), Vec::new()];
    for (side, hs) in hosts.iter_mut().enumerate() {
        for i in 0..pairs {
            let h = b.add_host(format!("iperf{}-{i}", side + 1), d.host.clone(), d.host_port);
            b.connect(h, sw[side], 25_000_000_000, 100 * NS);
            hs.push(h);
        }
    }
    let class = FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false };
    let mut t = Traffic::new();
    for (i, (&client, &server)) in hosts[0].iter().zip(&hosts[1]).enumerate() {
        let mut tmpl = FlowSpec::greedy(0, 0, class).tcp(crate::traffic::TcpFlow::default());
        tmpl.udp_src_port = 33_000 + 16 * i as u16;
        t.iperf(client, server, TCP_STREAMS_PER_PAIR, &tmpl);
    }
    (b.build().spec, t)
}

/// One storage run: its label and the simulator's input.
pub struct StorageRun {
    /// `example variant @ sweep value`.
    pub name: String,
    pub spec: NetworkSpec,
    pub traffic: Traffic,
    pub config: SimConfig,
}

/// The storage benchmark runs built from the examples in `examples_dir` (see the module
/// documentation): the base and every variant of each example, at every sweep point (iperf
/// cross traffic, TCP protocols and iWARP included).
pub fn storage_runs(examples_dir: &Path) -> Result<Vec<StorageRun>, String> {
    let files = [
        "arista-pure-direct-25g",
        "arista-pure-single-hop-25g",
        "arista-pure-leaf-spine-25g",
        "arista-pure-leaf-spine-100g",
        "demartek-config4-two-switch",
        "demartek-config5-linux-iser-nfs",
        "dell-equallogic-base-san",
        "dell-equallogic-congested-san",
        "microsoft-s2d-fastlinq-iwarp-roce",
    ];
    let mut out = Vec::new();
    for f in files {
        for (label, b) in crate::from_model::build_points(&examples_dir.join(format!("{f}.yaml")))? {
            out.push(StorageRun { name: format!("{f} {label}"), spec: b.spec, traffic: b.traffic, config: b.config });
        }
    }
    Ok(out)
}

/// The repository's `examples/` directory, from the crate's (`crates/rocelab-sim`).
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A standard scenario of the simulator's benchmark, built entirely by rocelab's own
/// generators (no data file): what `rocelab bench` runs, and `engine_bench` by the same names.
/// The seed of every scenario is 1, so that a results digest names one run of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// [`incast_16`]: 16:1 incast at 100 Gb/s through one switch, PFC pausing the senders.
    Incast,
    /// [`fat_tree_permutation`]: the 320-host fat tree with line-rate permutation traffic, the
    /// scenario the engine's events-per-second target is set on.
    FatTree,
    /// [`fat_tree_permutation_at`] 30 Gb/s per host: few packets in flight.
    FatTree30,
    /// The incast as RC queue pairs doing RDMA WRITEs with DCQCN ([`with_rdma`], 4 KiB MTU).
    IncastRdma,
    /// The line-rate fat tree as RC queue pairs with DCQCN ([`with_rdma`], 4 KiB MTU).
    FatTreeRdma,
    /// [`tcp_two_switch`] with four iperf pairs: 16 CUBIC streams into a 40 Gb/s link.
    TcpIperf,
}

impl Scenario {
    /// Every scenario, in the order `rocelab bench` lists them.
    pub const ALL: [Scenario; 6] = [
        Scenario::Incast,
        Scenario::FatTree,
        Scenario::FatTree30,
        Scenario::IncastRdma,
        Scenario::FatTreeRdma,
        Scenario::TcpIperf,
    ];
    /// Their names on the command line, in the order of [`Scenario::ALL`].
    pub const NAMES: [&'static str; 6] =
        ["incast", "fat-tree", "fat-tree-30", "incast-rdma", "fat-tree-rdma", "tcp-iperf"];
    /// What `rocelab bench` runs when no scenario is named: the open-loop scenarios, whose figures
    /// are the engine's standing performance record.
    pub const DEFAULT: [Scenario; 3] = [Scenario::Incast, Scenario::FatTree, Scenario::FatTree30];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The scenario of a command-line name.
    pub fn from_name(name: &str) -> Option<Scenario> {
        Self::NAMES.iter().position(|&n| n == name).map(|i| Self::ALL[i])
    }

    /// The name its report carries (and `docs/benchmarks-history.md` uses).
    pub fn report_name(self) -> &'static str {
        match self {
            Scenario::Incast => "incast-16:1-100G",
            Scenario::FatTree => "fat-tree-320-permutation",
            Scenario::FatTree30 => "fat-tree-320-permutation-30pct",
            Scenario::IncastRdma => "incast-16:1-100G-rdma-dcqcn",
            Scenario::FatTreeRdma => "fat-tree-320-permutation-rdma-dcqcn",
            Scenario::TcpIperf => "tcp-iperf-16-streams-40G",
        }
    }

    /// The simulated time of the figures recorded in `docs/benchmarks.md`: long enough for the
    /// run to take a fraction of a second to a few seconds, where one run's timing means
    /// something.
    pub fn standard_time(self) -> Time {
        match self {
            Scenario::Incast | Scenario::IncastRdma => 100 * MS,
            Scenario::FatTree | Scenario::FatTree30 | Scenario::FatTreeRdma => MS,
            Scenario::TcpIperf => 20 * MS,
        }
    }

    /// The network and the traffic.
    pub fn build(self) -> (NetworkSpec, Traffic) {
        match self {
            Scenario::Incast => incast_16(),
            Scenario::IncastRdma => {
                let (mut spec, mut traffic) = incast_16();
                with_rdma(&mut spec, &mut traffic, 4096);
                (spec, traffic)
            }
            Scenario::FatTree | Scenario::FatTree30 | Scenario::FatTreeRdma => {
                let mut f = fat_tree();
                let rate = (self == Scenario::FatTree30).then_some(30_000_000_000);
                let mut traffic = fat_tree_permutation_at(&f, 1, rate);
                if self == Scenario::FatTreeRdma {
                    with_rdma(&mut f.spec, &mut traffic, 4096);
                }
                (f.spec, traffic)
            }
            Scenario::TcpIperf => tcp_two_switch(4),
        }
    }

    /// Build the scenario and run it for `simulated` picoseconds on `threads` threads, timed
    /// ([`measure`]; the building is timed too).
    pub fn measure(self, simulated: Time, threads: usize) -> Result<BenchReport, SimError> {
        let (spec, traffic) = self.build();
        measure(self.report_name(), &spec, &traffic, &SimConfig::new(1, simulated), threads)
    }
}

/// What this process has used so far: CPU time in user and in kernel mode, summed over its
/// threads (`getrusage(2)`, `RUSAGE_SELF`), and the peak resident set of its memory (`VmHWM` of
/// `/proc/self/status`, proc(5)). `engine_bench` runs one scenario per process, so there the
/// peak is the scenario's memory, measured by the benchmark itself rather than by
/// `/usr/bin/time -v` around it. (`getrusage`'s own `ru_maxrss` is not used: Linux carries it
/// across `execve`, so a benchmark started from a large parent, a Python script say, reports the
/// parent's size.) The kernel's share of the CPU time is mostly the page faults of memory touched
/// for the first time, the packet pool growing; it is kept apart because on a virtual machine it
/// can be the host's cost more than the engine's (`docs/benchmarks-history.md`, ninth session).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProcessUsage {
    /// CPU seconds in user mode.
    pub user_seconds: f64,
    /// CPU seconds in the kernel on the process's behalf (system calls, page faults).
    pub system_seconds: f64,
    /// Peak resident set size in bytes (`VmHWM`, which the kernel gives in kB of 1,024 bytes).
    pub peak_rss_bytes: u64,
}

impl ProcessUsage {
    /// The usage so far; `None` where this crate does not read it (outside Linux) or it cannot
    /// be read.
    #[cfg(target_os = "linux")]
    pub fn now() -> Option<ProcessUsage> {
        // SAFETY: `getrusage` writes only the `rusage` it is given, a plain C struct for which
        // all zeroes is a valid value.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `u` is a valid, writable `rusage` for the call's duration.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
            return None;
        }
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        Some(ProcessUsage {
            user_seconds: seconds(u.ru_utime),
            system_seconds: seconds(u.ru_stime),
            peak_rss_bytes: vm_hwm_bytes(&status)?,
        })
    }

    /// The usage so far; `None` where this crate does not read it (outside Linux) or it cannot
    /// be read.
    #[cfg(not(target_os = "linux"))]
    pub fn now() -> Option<ProcessUsage> {
        None
    }
}

/// The `VmHWM:` line of a `/proc/PID/status` text (`VmHWM:\t   76104 kB`) in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn vm_hwm_bytes(status: &str) -> Option<u64> {
    let rest = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::run;

    #[test]
    fn scenarios_run_and_conserve() {
        let (spec, traffic) = incast_16();
        let r = run(&spec, &traffic, &SimConfig::new(1, 20 * US)).unwrap();
        r.check_conservation().unwrap();
        assert!(r.events > 1_000, "events {}", r.events);
        for s in Scenario::ALL {
            let (spec, traffic) = s.build();
            let r = run(&spec, &traffic, &SimConfig::new(1, 5 * US)).unwrap();
            r.check_conservation().unwrap();
            assert!(r.events > 100, "{}: events {}", s.name(), r.events);
        }
    }

    #[test]
    fn scenario_names_round_trip_and_measure_names_its_report() {
        for (i, s) in Scenario::ALL.into_iter().enumerate() {
            assert_eq!(Scenario::from_name(Scenario::NAMES[i]), Some(s));
            assert_eq!(s.name(), Scenario::NAMES[i]);
        }
        assert_eq!(Scenario::from_name("fat-tree-31"), None);
        let a = Scenario::FatTree30.measure(3 * US, 1).unwrap();
        let b = Scenario::FatTree30.measure(3 * US, 1).unwrap();
        assert_eq!(a.name, "fat-tree-320-permutation-30pct");
        assert!(a.events > 0 && a.events_per_second > 0.0 && a.wall_seconds > 0.0);
        // A scenario is built the same way every time: same events, same results; on two
        // threads too.
        assert_eq!((a.events, a.digest), (b.events, b.digest));
        let c = Scenario::FatTree30.measure(3 * US, 2).unwrap();
        assert_eq!((a.events, a.digest), (c.events, c.digest));
    }

    #[test]
    fn the_tcp_scenario_fills_the_inter_switch_link() {
        let (spec, traffic) = tcp_two_switch(4);
        assert_eq!(traffic.flows.len(), 16);
        let r = run(&spec, &traffic, &SimConfig::new(1, 2 * MS)).unwrap();
        r.check_conservation().unwrap();
        // 40 Gb/s of 1518-byte frames carrying 1448 bytes: 37.7 Gb/s; slow start takes a part
        // of the first 2 ms.
        let bits: f64 = r.flows.iter().map(|f| f.delivered_bytes as f64 * 8.0).sum();
        assert!(bits / 2e-3 > 0.8 * 40e9 * 1448.0 / 1538.0, "{:.3e} b/s", bits / 2e-3);
        assert_eq!(r.iperf.len(), 4);
    }

    #[test]
    fn storage_runs_build_from_the_examples() {
        let runs = storage_runs(&examples_dir()).unwrap();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert!(names.contains(&"arista-pure-leaf-spine-25g ecn-edge-pfc"), "{names:?}");
        assert!(names.contains(&"demartek-config4-two-switch baseline @ 128KiB"), "{names:?}");
        // Runs over TCP are in: iperf congestion, iSCSI, iWARP.
        assert!(names.contains(&"demartek-config4-two-switch congestion @ 128KiB"), "{names:?}");
        assert!(names.contains(&"arista-pure-leaf-spine-25g iscsi"), "{names:?}");
        assert!(names.contains(&"dell-equallogic-congested-san no-flow-control"), "{names:?}");
        assert!(runs.iter().all(|r| !r.traffic.storage.jobs.is_empty()));
    }

    #[test]
    fn the_peak_resident_set_is_read_from_the_status_text() {
        let status = "Name:\tengine_bench\nVmPeak:\t  123456 kB\nVmHWM:\t   76104 kB\nVmRSS:\t   70000 kB\n";
        assert_eq!(vm_hwm_bytes(status), Some(76_104 * 1024));
        assert_eq!(vm_hwm_bytes("Name:\tx\nVmRSS:\t 1 kB\n"), None);
        assert_eq!(vm_hwm_bytes("VmHWM:\t 12 MB\n"), None);
    }

    /// The peak resident set counts memory the process has written (kilobytes scaled to
    /// bytes), and CPU time grows with work done, in seconds. (The kernel's resident counts are
    /// approximate by a few pages per CPU, so the test leaves slack and compares no two peaks.)
    #[cfg(target_os = "linux")]
    #[test]
    fn process_usage_counts_touched_memory_and_cpu_time() {
        const BYTES: usize = 32 << 20;
        let mut block = vec![0u8; BYTES];
        for page in block.chunks_mut(4096) {
            page[0] = 1;
        }
        std::hint::black_box(&block);
        let before = ProcessUsage::now().expect("getrusage and /proc/self/status work on Linux");
        assert!(before.peak_rss_bytes >= BYTES as u64, "peak RSS {} bytes", before.peak_rss_bytes);
        assert!(before.peak_rss_bytes < 1 << 40, "peak RSS {} bytes: not kilobytes scaled", before.peak_rss_bytes);
        drop(block);
        // Spin until 20 ms more CPU time is reported (other tests' threads count too); the wall
        // clock bounds the wait on a loaded machine.
        let cpu = |u: ProcessUsage| u.user_seconds + u.system_seconds;
        let start = std::time::Instant::now();
        let mut x = 1u64;
        let mut after = before;
        while cpu(after) < cpu(before) + 0.020 && start.elapsed().as_secs() < 20 {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            after = ProcessUsage::now().expect("getrusage and /proc/self/status work on Linux");
        }
        assert!(cpu(after) >= cpu(before) + 0.020, "CPU time {} s then {} s", cpu(before), cpu(after));
    }
}
