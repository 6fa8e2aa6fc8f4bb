//! Runs one benchmark scenario once and prints events, wall time, events per second and the
//! packet-pool high-water mark, as `rocelab bench` does for its scenarios (`bench::Scenario`, by
//! the same names), and also the scenarios that read the HPCC data (`fat-txt`, `websearch`,
//! `websearch-rdma`) and the storage runs. Then what the process used, on Linux
//! (`bench::ProcessUsage`): CPU seconds in user mode and in the kernel (mostly page faults of
//! memory touched for the first time), and the peak resident set in KiB (the figure
//! `/usr/bin/time -v` calls "Maximum resident set size (kbytes)"), which with one scenario per
//! process is the scenario's peak memory.
//!
//! ```text
//! cargo build --release -p rocelab-sim --example engine_bench
//! target/release/examples/engine_bench incast 10000
//! target/release/examples/engine_bench fat-tree 1000
//! target/release/examples/engine_bench fat-tree-30 1000
//! target/release/examples/engine_bench fat-txt 1000 ../shared/data/hpcc-formats/fat.txt
//! target/release/examples/engine_bench websearch 10000 ../shared/data/hpcc-formats
//! target/release/examples/engine_bench incast-rdma 10000
//! target/release/examples/engine_bench fat-tree-rdma 1000
//! target/release/examples/engine_bench websearch-rdma 5000 ../shared/data/hpcc-formats
//! target/release/examples/engine_bench tcp-iperf 20000
//! target/release/examples/engine_bench storage
//! ```
//! `storage` runs every storage benchmark run of `bench::storage_runs` (the Arista/Pure and
//! Demartek examples, each variant and sweep point, for its scenario's own duration; the
//! simulated-time argument is ignored) and prints one line per run.
//! Arguments: scenario (`incast`, `fat-tree`, `fat-tree-30`, `fat-txt`, `websearch`, and the RDMA
//! variants `incast-rdma`, `fat-tree-rdma`, `websearch-rdma`: RC queue pairs with DCQCN, see
//! `bench::with_rdma`; `tcp-iperf`: 16 TCP streams across a 40G link between two switches, see
//! `bench::tcp_two_switch`),
//! simulated microseconds, for `fat-txt` the path of the HPCC-format topology, and for
//! `websearch` the HPCC formats directory holding `fat.txt` and `WebSearch_distribution.txt`
//! (default: found through `$ROCELAB_HPCC_DATA` or `shared/data/hpcc-formats` above the current
//! directory). `--threads N` anywhere runs the scenario on N threads (`rocelab_sim::run_threads`).

use rocelab_model::cdf::FlowSizeCdf;
use rocelab_sim::bench::{
    fat_tree_defaults, fat_tree_permutation, fat_tree_websearch, hpcc_data_dir, measure, with_rdma, ProcessUsage,
    Scenario,
};
use rocelab_sim::topology::parse_hpcc_topology;
use rocelab_sim::{SimConfig, US};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    let threads = match args.iter().position(|a| a == "--threads") {
        None => 1,
        Some(i) => match args.get(i + 1).map(|s| s.parse::<usize>()) {
            Some(Ok(n)) if n >= 1 => {
                args.drain(i..i + 2);
                n
            }
            _ => {
                eprintln!("--threads needs a whole number of threads, 1 or more");
                return ExitCode::FAILURE;
            }
        },
    };
    let scenario = args.get(1).map(String::as_str).unwrap_or("incast");
    let micros: u64 = match args.get(2).map(|s| s.parse()) {
        None => 1000,
        Some(Ok(v)) => v,
        Some(Err(_)) => {
            eprintln!("simulated time must be a whole number of microseconds");
            return ExitCode::FAILURE;
        }
    };
    let cfg = SimConfig::new(1, micros * US);
    if scenario == "storage" {
        return storage();
    }
    let report = match (Scenario::from_name(scenario), scenario) {
        (Some(named), _) => named.measure(micros * US, threads),
        (None, "fat-txt") => {
            let Some(path) = args.get(3) else {
                eprintln!("fat-txt needs the path of fat.txt");
                return ExitCode::FAILURE;
            };
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("{path}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match parse_hpcc_topology(&text, &fat_tree_defaults()) {
                Ok(f) => measure("fat-txt-320-permutation", &f.spec, &fat_tree_permutation(&f, 1), &cfg, threads),
                Err(e) => Err(e),
            }
        }
        (None, "websearch" | "websearch-rdma") => {
            let dir = match args.get(3) {
                Some(d) => Some(std::path::PathBuf::from(d)),
                None => std::env::current_dir().ok().and_then(|c| hpcc_data_dir(&c)),
            };
            let Some(dir) = dir else {
                eprintln!("websearch needs the HPCC formats directory (argument or ROCELAB_HPCC_DATA)");
                return ExitCode::FAILURE;
            };
            let read = |name: &str| {
                std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
            };
            let (topo, cdf) = match (read("fat.txt"), read("WebSearch_distribution.txt")) {
                (Ok(t), Ok(c)) => (t, c),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let cdf = match FlowSizeCdf::parse(&cdf) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("WebSearch_distribution.txt: {e:?}");
                    return ExitCode::FAILURE;
                }
            };
            match parse_hpcc_topology(&topo, &fat_tree_defaults()) {
                Ok(mut f) => {
                    let mut t = fat_tree_websearch(&f, &cdf, 1);
                    let mut name = "fat-txt-websearch-30pct-incasts";
                    if scenario == "websearch-rdma" {
                        // RC queue pairs with DCQCN; the path MTU nearest HPCC's 1000-byte payload.
                        with_rdma(&mut f.spec, &mut t, 1024);
                        name = "fat-txt-websearch-30pct-incasts-rdma-dcqcn";
                    }
                    measure(name, &f.spec, &t, &cfg, threads)
                }
                Err(e) => Err(e),
            }
        }
        (None, other) => {
            eprintln!(
                "unknown scenario {other:?}: use incast, fat-tree, fat-tree-30, fat-txt, websearch, incast-rdma, \
                 fat-tree-rdma, websearch-rdma, tcp-iperf or storage"
            );
            return ExitCode::FAILURE;
        }
    };
    match report {
        Ok(r) => {
            println!(
                "{}: {} events in {:.3} s = {:.2} M events/s; simulated {} us; peak {} packets in flight, {} pending events; {:.1} GB delivered; results {:016x}",
                r.name,
                r.events,
                r.wall_seconds,
                r.events_per_second / 1e6,
                r.simulated_ps / US,
                r.peak_packets_in_flight,
                r.peak_pending_events,
                r.delivered_bytes as f64 / 1e9,
                r.digest
            );
            print_usage();
            if r.sized_flows > 0 {
                let sd = r.slowdown.map(|p| format!("{:.2} / {:.2} / {:.2}", p.p50, p.p95, p.p99));
                println!(
                    "  sized flows: {} of {} completed; slowdown p50 / p95 / p99: {}",
                    r.completed_flows,
                    r.sized_flows,
                    sd.unwrap_or_else(|| "-".into())
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Every storage benchmark run, one line each: events, wall time, events per second, IOs.
fn storage() -> ExitCode {
    let runs = match rocelab_sim::bench::storage_runs(&rocelab_sim::bench::examples_dir()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut total = 0.0;
    for r in &runs {
        let t0 = std::time::Instant::now();
        let res = match rocelab_sim::run(&r.spec, &r.traffic, &r.config) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{}: {e}", r.name);
                return ExitCode::FAILURE;
            }
        };
        let wall = t0.elapsed().as_secs_f64();
        total += wall;
        let ios: u64 = res.jobs.iter().map(|j| j.read.total_ios + j.write.total_ios).sum();
        println!(
            "{}: {} events in {:.3} s = {:.2} M events/s; simulated {} us; {} IOs measured; peak {} packets in flight",
            r.name,
            res.events,
            wall,
            res.events as f64 / wall.max(1e-9) / 1e6,
            res.end_time_ps / US,
            ios,
            res.peak_packets_in_flight
        );
    }
    println!("{} runs in {total:.2} s", runs.len());
    print_usage();
    ExitCode::SUCCESS
}

/// What the process used (where `ProcessUsage` is read): CPU time and the peak resident set.
fn print_usage() {
    if let Some(u) = ProcessUsage::now() {
        println!(
            "  process: {:.2} s user, {:.2} s system; peak RSS {} KiB",
            u.user_seconds,
            u.system_seconds,
            u.peak_rss_bytes / 1024
        );
    }
}
