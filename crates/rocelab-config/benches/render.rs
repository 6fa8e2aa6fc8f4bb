//! `rocelab config` on a 1,000-switch (SONiC), 20,000-host (Linux, ConnectX) leaf-spine: every
//! switch's config_db.json, every host script and RUNBOOK.md, in memory (no file I/O). Run with
//! `cargo bench -p rocelab-config --bench render`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn render_large_leaf_spine(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rocelab-model/benches/leaf-spine-1000-switches.yaml");
    let loaded = rocelab_model::load_file(&path).expect("benchmark fabric loads");
    assert_eq!(loaded.fabric.switches().count(), 1000);
    let t = rocelab_config::Templates::builtin();
    let r = rocelab_config::render(&loaded.fabric, &t).expect("renders");
    assert_eq!(r.files.len(), 21_000);
    let bytes: usize = r.files.iter().map(|f| f.text.len()).sum::<usize>() + r.runbook.len();
    eprintln!("rendered {} files and a {} byte runbook, {} bytes in all", r.files.len(), r.runbook.len(), bytes);
    let mut group = c.benchmark_group("config");
    group.sample_size(10);
    group.bench_function("leaf-spine 1000 switches 20000 hosts: every file and the runbook", |b| {
        b.iter(|| rocelab_config::render(&loaded.fabric, &t).expect("renders").files.len())
    });
    group.finish();
}

criterion_group!(benches, render_large_leaf_spine);
criterion_main!(benches);
