//! Engine benchmarks (criterion): the standard scenarios of `rocelab_sim::bench`.
//!
//! * `incast-16:1-100G`: 16 greedy senders to one host through one 100G switch, 1 ms simulated.
//! * `fat-tree-320-permutation`: the generated 320-host fat tree, permutation traffic, 100 µs.
//! * `fat-tree-320-permutation-30pct`: the same at 30 Gb/s per host (few packets in flight).
//! * `fat-txt-320-permutation`: the same from the HPCC simulator's `fat.txt`, read in place
//!   (from `$ROCELAB_FAT_TXT`, or `shared/data/hpcc-formats/fat.txt` in an ancestor of this
//!   crate); skipped with a message when absent.
//!
//! Before the criterion runs, each scenario is run once and its events per second printed, the
//! figure `rocelab bench` will show.

use criterion::{criterion_group, criterion_main, Criterion};
use rocelab_sim::bench::{
    fat_tree, fat_tree_defaults, fat_tree_permutation, fat_tree_permutation_at, incast_16, measure,
};
use rocelab_sim::topology::parse_hpcc_topology;
use rocelab_sim::{run, SimConfig, MS, US};
use std::path::PathBuf;

fn fat_txt() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ROCELAB_FAT_TXT") {
        return Some(PathBuf::from(p)).filter(|p| p.exists());
    }
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let candidate = dir.join("shared/data/hpcc-formats/fat.txt");
        if candidate.exists() {
            return Some(candidate);
        }
        if !dir.pop() {
            return None;
        }
    }
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
    report("incast-16:1-100G", &measure("incast", &spec, &traffic, &cfg).expect("incast runs"));
    g.bench_function("incast-16:1-100G", |b| b.iter(|| run(&spec, &traffic, &cfg).expect("incast runs")));

    let f = fat_tree();
    let t = fat_tree_permutation(&f, 1);
    let cfg = SimConfig::new(1, 100 * US);
    report("fat-tree-320-permutation", &measure("fat", &f.spec, &t, &cfg).expect("fat tree runs"));
    g.bench_function("fat-tree-320-permutation", |b| b.iter(|| run(&f.spec, &t, &cfg).expect("fat tree runs")));

    let t30 = fat_tree_permutation_at(&f, 1, Some(30_000_000_000));
    report("fat-tree-320-permutation-30pct", &measure("fat 30%", &f.spec, &t30, &cfg).expect("fat tree runs"));
    g.bench_function("fat-tree-320-permutation-30pct", |b| b.iter(|| run(&f.spec, &t30, &cfg).expect("fat tree runs")));

    match fat_txt() {
        Some(path) => {
            let text = std::fs::read_to_string(&path).expect("read fat.txt");
            let f = parse_hpcc_topology(&text, &fat_tree_defaults()).expect("parse fat.txt");
            let t = fat_tree_permutation(&f, 1);
            report("fat-txt-320-permutation", &measure("fat.txt", &f.spec, &t, &cfg).expect("fat.txt runs"));
            g.bench_function("fat-txt-320-permutation", |b| b.iter(|| run(&f.spec, &t, &cfg).expect("fat.txt runs")));
        }
        None => println!(
            "fat-txt-320-permutation: skipped, no fat.txt (set ROCELAB_FAT_TXT or put \
             shared/data/hpcc-formats/fat.txt beside the repository)"
        ),
    }
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
