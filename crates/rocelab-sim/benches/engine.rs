//! Engine benchmarks (criterion): the standard scenarios of `rocelab_sim::bench`.
//!
//! * `incast-16:1-100G`: 16 greedy senders to one host through one 100G switch, 1 ms simulated.
//! * `fat-tree-320-permutation`: the generated 320-host fat tree, permutation traffic, 100 µs.
//! * `fat-tree-320-permutation-30pct`: the same at 30 Gb/s per host (few packets in flight).
//! * `fat-txt-320-permutation`: the same from the HPCC simulator's `fat.txt`, read in place
//!   (from `$ROCELAB_FAT_TXT`, or `shared/data/hpcc-formats/fat.txt` in an ancestor of this
//!   crate); skipped with a message when absent.
//! * `storage/*`: two storage runs from the examples (`rocelab_sim::bench::storage_runs`).
//! * `fat-txt-websearch`: `fat.txt` with web-search flows (`WebSearch_distribution.txt`, read in
//!   place from the same directory) at 30 % load and two 64-to-1 incasts of 500 KB
//!   ([`rocelab_sim::bench::fat_tree_websearch`]), 1 ms simulated; skipped when absent.
//!
//! * `tcp-iperf-16-streams-40G`: 16 TCP (CUBIC) streams across a 40G link between two switches,
//!   the Demartek congestion test's shape ([`rocelab_sim::bench::tcp_two_switch`]), 5 ms
//!   simulated.
//!
//! Before the criterion runs, each scenario is run once and its events per second printed, the
//! figure `rocelab bench` shows (for the simulated times above, shorter than its standard ones).

use criterion::{criterion_group, criterion_main, Criterion};
use rocelab_model::cdf::FlowSizeCdf;
use rocelab_sim::bench::{
    fat_tree, fat_tree_defaults, fat_tree_permutation, fat_tree_permutation_at, fat_tree_websearch, hpcc_data_dir,
    incast_16, measure, tcp_two_switch,
};
use rocelab_sim::topology::parse_hpcc_topology;
use rocelab_sim::{run, SimConfig, MS, US};
use std::path::{Path, PathBuf};

fn fat_txt() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ROCELAB_FAT_TXT") {
        return Some(PathBuf::from(p)).filter(|p| p.exists());
    }
    hpcc_data_dir(Path::new(env!("CARGO_MANIFEST_DIR"))).map(|d| d.join("fat.txt")).filter(|p| p.exists())
}

fn websearch_cdf() -> Option<FlowSizeCdf> {
    let dir = hpcc_data_dir(Path::new(env!("CARGO_MANIFEST_DIR")))?;
    let text = std::fs::read_to_string(dir.join("WebSearch_distribution.txt")).ok()?;
    Some(FlowSizeCdf::parse(&text).expect("WebSearch_distribution.txt is a valid CDF"))
}

fn report(name: &str, r: &rocelab_sim::bench::BenchReport) {
    println!(
        "{name}: {} events in {:.3} s = {:.2} M events/s (simulated {} us, peak {} packets in flight)",
        r.events,
        r.wall_seconds,
        r.events_per_second / 1e6,
        r.simulated_ps / US,
        r.peak_packets_in_flight
    );
}

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);

    let (spec, traffic) = incast_16();
    let cfg = SimConfig::new(1, MS);
    report("incast-16:1-100G", &measure("incast", &spec, &traffic, &cfg, 1).expect("incast runs"));
    g.bench_function("incast-16:1-100G", |b| b.iter(|| run(&spec, &traffic, &cfg).expect("incast runs")));

    let f = fat_tree();
    let t = fat_tree_permutation(&f, 1);
    let cfg = SimConfig::new(1, 100 * US);
    report("fat-tree-320-permutation", &measure("fat", &f.spec, &t, &cfg, 1).expect("fat tree runs"));
    g.bench_function("fat-tree-320-permutation", |b| b.iter(|| run(&f.spec, &t, &cfg).expect("fat tree runs")));

    let t30 = fat_tree_permutation_at(&f, 1, Some(30_000_000_000));
    report("fat-tree-320-permutation-30pct", &measure("fat 30%", &f.spec, &t30, &cfg, 1).expect("fat tree runs"));
    g.bench_function("fat-tree-320-permutation-30pct", |b| b.iter(|| run(&f.spec, &t30, &cfg).expect("fat tree runs")));

    let (spec, t) = tcp_two_switch(4);
    let cfg5 = SimConfig::new(1, 5 * MS);
    report("tcp-iperf-16-streams-40G", &measure("tcp", &spec, &t, &cfg5, 1).expect("tcp runs"));
    g.bench_function("tcp-iperf-16-streams-40G", |b| b.iter(|| run(&spec, &t, &cfg5).expect("tcp runs")));

    match fat_txt() {
        Some(path) => {
            let text = std::fs::read_to_string(&path).expect("read fat.txt");
            let f = parse_hpcc_topology(&text, &fat_tree_defaults()).expect("parse fat.txt");
            let t = fat_tree_permutation(&f, 1);
            report("fat-txt-320-permutation", &measure("fat.txt", &f.spec, &t, &cfg, 1).expect("fat.txt runs"));
            g.bench_function("fat-txt-320-permutation", |b| b.iter(|| run(&f.spec, &t, &cfg).expect("fat.txt runs")));
            match websearch_cdf() {
                Some(cdf) => {
                    let t = fat_tree_websearch(&f, &cdf, 1);
                    let cfg = SimConfig::new(1, MS);
                    let r = measure("websearch", &f.spec, &t, &cfg, 1).expect("websearch runs");
                    report("fat-txt-websearch (1 ms)", &r);
                    g.bench_function("fat-txt-websearch", |b| {
                        b.iter(|| run(&f.spec, &t, &cfg).expect("websearch runs"))
                    });
                }
                None => println!("fat-txt-websearch: skipped, no WebSearch_distribution.txt beside fat.txt"),
            }
        }
        None => println!(
            "fat-txt-320-permutation: skipped, no fat.txt (set ROCELAB_FAT_TXT or put \
             shared/data/hpcc-formats/fat.txt beside the repository)"
        ),
    }
    g.finish();
}

/// Two storage runs from the examples: the Arista/Pure leaf-spine at 25G with ECN and edge PFC
/// (both test sets, 68 ms) and Demartek configuration 4's baseline at 128 KiB (14 ms).
fn storage(c: &mut Criterion) {
    let mut g = c.benchmark_group("storage");
    g.sample_size(10);
    let runs = rocelab_sim::bench::storage_runs(&rocelab_sim::bench::examples_dir()).expect("the examples load");
    for name in ["arista-pure-leaf-spine-25g ecn-edge-pfc", "demartek-config4-two-switch baseline @ 128KiB"] {
        let r = runs.iter().find(|r| r.name == name).expect("a storage benchmark run");
        report(name, &measure(name, &r.spec, &r.traffic, &r.config, 1).expect("runs"));
        g.bench_function(name, |b| b.iter(|| run(&r.spec, &r.traffic, &r.config).expect("runs")));
    }
    g.finish();
}

criterion_group!(benches, engine, storage);
criterion_main!(benches);
