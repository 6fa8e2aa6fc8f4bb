//! `sim --threads N`: the same results on every number of threads, and what is refused.

use super::{fresh_dir, rocelab, text};
use std::path::{Path, PathBuf};

/// Two leaves of four hosts under two spines, open-loop (`transport: raw`) RoCE traffic on the
/// lossless class with ECN: an incast across the spines, which pauses and marks, and a flow
/// back the other way.
const SCENARIO: &str = r#"fabric:
  name: threads
  topology:
    generator:
      leaf-spine: {leaves: 2, spines: 2, hosts_per_leaf: 4, host_speed: 100G, uplink_speed: 100G, fabric_cable: 100m}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {kmin: 5KB, kmax: 200KB, pmax: 0.5}}
      - {name: default, priority: 0, dscp: [0], ets: 10}
simulation: {duration: 200us, sample_interval: 10us}
workloads:
  incast:
    - {name: incast, senders: [host1-4], receiver: host5, class: roce, size: 1MB, transport: raw}
  flows:
    - {name: back, from: host6, to: host2, class: roce, size: 500KB, transport: raw}
"#;

fn scenario(dir: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("threads.yaml");
    std::fs::write(&file, text).unwrap();
    file
}

/// The run's JSON without the two engine peaks, which are per part on several threads.
fn results(file: &Path, threads: &str) -> serde_json::Value {
    let out = rocelab(&["sim", file.to_str().unwrap(), "--format", "json", "-q", "--threads", threads]);
    assert!(out.status.success(), "--threads {threads}: {}", text(&out.stderr));
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    for k in ["peak_packets_in_flight", "peak_pending_events"] {
        v["results"][k] = serde_json::Value::Null;
    }
    v
}

#[test]
fn sim_gives_the_same_results_on_every_number_of_threads() {
    let dir = fresh_dir("threads-same");
    let file = scenario(&dir, SCENARIO);
    let one = results(&file, "1");
    let ports = one["results"]["ports"].as_array().expect("ports");
    let total = |what: &str| -> u64 {
        ports
            .iter()
            .flat_map(|p| p["priorities"].as_array().unwrap().iter())
            .map(|c| c[what].as_u64().unwrap_or(0))
            .sum()
    };
    assert!(total("pfc_sent") > 0 && total("ecn_marked") > 0, "the scenario pauses and marks");
    for threads in ["2", "3"] {
        assert!(results(&file, threads) == one, "--threads {threads}: results differ from one thread's");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_threads_refuses_bad_counts_and_what_it_cannot_run() {
    let dir = fresh_dir("threads-refused");
    let file = scenario(&dir, SCENARIO);
    let f = file.to_str().unwrap();
    for bad in ["0", "two", "1.5"] {
        let out = rocelab(&["sim", f, "--threads", bad]);
        assert_eq!(out.status.code(), Some(2), "--threads {bad}");
        let err = text(&out.stderr);
        assert!(err.contains(&format!("invalid value '{bad}' for '--threads <N>'")), "{err}");
    }
    let out_dir = dir.join("out");
    let out = rocelab(&["sim", f, "--threads", "2", "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--threads 2 cannot be used with --out yet"), "{}", text(&out.stderr));
    // The ns-3 simulator's ECN draws (one global stream by nature): refused by name, exit 2.
    let ns3 = scenario(
        &dir.join("ns3"),
        &SCENARIO.replace("sample_interval: 10us}", "sample_interval: 10us, model: {ecn_random: hpcc}}"),
    );
    let out = rocelab(&["sim", ns3.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("the ns-3 simulator's ECN draws") && err.contains("run with --threads 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The results digest (`rocelab_sim::bench::results_digest`, which leaves out the two engine
/// peaks) of a run of `file` on `threads` threads, and its results.
fn digest(file: &Path, threads: &str) -> (u64, rocelab_sim::Results) {
    let out = rocelab(&["sim", file.to_str().unwrap(), "--format", "json", "-q", "--threads", threads]);
    assert!(out.status.success(), "--threads {threads}: {}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let r: rocelab_sim::Results = serde_json::from_value(v["results"].clone()).expect("results");
    (rocelab_sim::bench::results_digest(&r), r)
}

/// The `sim-flows-leaf-spine` example (RDMA RC queue pairs under DCQCN: Poisson flows between
/// the two leaves and a repeated incast), cut to 300 us: the same digest on one and two
/// threads, and the same results (but for the two engine peaks, which are per part).
#[test]
fn an_rdma_example_has_the_same_digest_on_one_and_two_threads() {
    let dir = fresh_dir("threads-rdma");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sim-flows-leaf-spine.yaml");
    let example = std::fs::read_to_string(&path).expect("the example");
    assert!(example.contains("  duration: 1ms\n"), "the example's duration moved");
    let file = scenario(&dir, &example.replace("  duration: 1ms\n", "  duration: 300us\n"));
    let (one, r) = digest(&file, "1");
    let rdma: Vec<_> = r.flows.iter().filter_map(|f| f.rdma.as_ref()).collect();
    assert!(!rdma.is_empty() && rdma.iter().any(|q| q.cnps_received > 0), "RDMA queue pairs under DCQCN");
    let (two, r2) = digest(&file, "2");
    assert_eq!(format!("{two:016x}"), format!("{one:016x}"), "--threads 2: digest");
    assert!(r2.flows == r.flows && r2.ports == r.ports, "--threads 2: results");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_threads_gives_the_same_results_for_iperf_tcp_flows_and_a_run_that_stops_when_done() {
    let dir = fresh_dir("threads-tcp");
    // iperf streams and a TCP flow across the spines beside the incast, on the default class.
    let tcp = SCENARIO.replace(
        "  flows:\n    - {name: back, from: host6, to: host2, class: roce, size: 500KB, transport: raw}\n",
        "  flows:\n    - {name: back, from: host6, to: host2, class: default, size: 500KB, transport: tcp}\n  \
         iperf:\n    - {name: pair, client: host7, server: host3, parallel: 3, class: default}\n",
    );
    let file = scenario(&dir.join("tcp"), &tcp);
    let one = results(&file, "1");
    assert_eq!(one["results"]["iperf"].as_array().map(|a| a.len()), Some(1), "the iperf test ran");
    for threads in ["2", "3"] {
        assert!(results(&file, threads) == one, "--threads {threads}: TCP results differ from one thread's");
    }
    // Sized flows only, a long duration: the run ends when the last completes.
    let stop = SCENARIO.replace(
        "simulation: {duration: 200us, sample_interval: 10us}",
        "simulation: {duration: 20ms, sample_interval: 10us, model: {stop_when_done: true}}",
    );
    let file = scenario(&dir.join("stop"), &stop);
    let one = results(&file, "1");
    let end = one["results"]["end_time_ps"].as_u64().expect("end time");
    assert!(end < 20_000_000_000, "the run stopped when its flows were done, at {end} ps");
    assert!(results(&file, "2") == one, "--threads 2: a run that stops when done differs from one thread's");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The threads a run takes by default on this machine: every core, up to the fabric's 12 nodes.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(12)
}

/// [`SCENARIO`] with 2 km between leaves and spines (10 µs): windows long enough for the default
/// to take every core (`rocelab_sim::MIN_FRAMES_A_WINDOW`), which the 100 m of `SCENARIO` are not.
fn long_cables() -> String {
    SCENARIO.replace("fabric_cable: 100m", "fabric_cable: 2km")
}

#[test]
fn sim_runs_on_every_core_by_default_with_one_threads_results() {
    let dir = fresh_dir("threads-default");
    // Metres of cable: one thread, without a word (nothing the threads cannot run).
    let short = scenario(&dir.join("short"), SCENARIO);
    let out = rocelab(&["sim", short.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("simulating on"), "{}", text(&out.stderr));
    let file = scenario(&dir, &long_cables());
    let out = rocelab(&["sim", file.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let threads = default_threads();
    if threads > 1 {
        assert!(err.contains(&format!("threads: simulating on {threads} threads")), "{err}");
    }
    assert!(!err.contains("one thread, as"), "{err}");
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    for k in ["peak_packets_in_flight", "peak_pending_events"] {
        v["results"][k] = serde_json::Value::Null;
    }
    assert!(v == results(&file, "1"), "the default's results differ from one thread's");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_falls_back_to_one_thread_by_default_saying_why_once() {
    let dir = fresh_dir("threads-default-one");
    // The ns-3 simulator's ECN draws (one stream for the whole run) cannot run on several
    // threads.
    let rc = scenario(
        &dir,
        &SCENARIO.replace("sample_interval: 10us}", "sample_interval: 10us, model: {ecn_random: hpcc}}"),
    );
    let out = rocelab(&["sim", rc.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let why = "threads: simulating on one thread, as the ns-3 simulator's ECN draws and event order \
               (hpcc-compat's ecn_random: hpcc) cannot run on several threads yet";
    if default_threads() > 1 {
        assert_eq!(err.matches(why).count(), 1, "{err}");
    } else {
        assert!(!err.contains(why), "{err}");
    }
    // --quiet: nothing on stderr.
    let out = rocelab(&["sim", rc.to_str().unwrap(), "-q"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{}", text(&out.stderr));
    // --out's records need one order of events: the default is one thread there too.
    let file = scenario(&dir.join("raw"), &long_cables());
    let out_dir = dir.join("out");
    let out = rocelab(&["sim", file.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    if default_threads() > 1 {
        assert!(err.contains("simulating on one thread, as --out, whose records need one order of events,"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Storage over RDMA examples: the Demartek iSER and NFS over RDMA runs (RoCE) and the Storage
/// Spaces Direct nodes' SMB Direct reads over RoCE and iWARP (local and remote jobs): the same
/// results on one and two threads.
#[test]
fn storage_over_rdma_examples_give_the_same_results_on_one_and_two_threads() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let runs = [
        ("demartek-config5-linux-iser-nfs.yaml", "iser"),
        ("demartek-config5-linux-iser-nfs.yaml", "nfs-rdma"),
        ("microsoft-s2d-fastlinq-iwarp-roce.yaml", "iwarp"),
        ("microsoft-s2d-fastlinq-iwarp-roce.yaml", "iwarp-and-roce"),
    ];
    for (example, variant) in runs {
        let file = examples.join(example);
        let run = |threads: &str| {
            let args =
                ["sim", file.to_str().unwrap(), "--variant", variant, "--format", "json", "-q", "--threads", threads];
            let out = rocelab(&args);
            assert!(out.status.success(), "{example} {variant} --threads {threads}: {}", text(&out.stderr));
            let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
            for k in ["peak_packets_in_flight", "peak_pending_events"] {
                v["results"].as_object_mut().expect("results").remove(k);
            }
            v
        };
        let one = run("1");
        let jobs = one["results"]["jobs"].as_array().expect("jobs");
        let ios = |j: &serde_json::Value| {
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap()
        };
        assert!(!jobs.is_empty() && jobs.iter().all(|j| ios(j) > 0), "{example} {variant}: every job completes IOs");
        // Two threads: more than the machine's cores would spend minutes at the barrier of
        // these short-cabled fabrics' many windows (the library's tests cover 1 to 4).
        assert!(run("2") == one, "{example} {variant} --threads 2: results differ from one thread's");
    }
}
