//! Loading and validating a 1,000-switch, 20,000-host leaf-spine (generation, resolution of
//! 180,000 links, QoS checks). Run with `cargo bench -p rocelab-model --bench validate`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn validate_large_leaf_spine(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/leaf-spine-1000-switches.yaml");
    let loaded = rocelab_model::load_file(&path).expect("benchmark fabric loads");
    assert_eq!(loaded.fabric.switches().count(), 1000);
    assert_eq!(loaded.fabric.hosts().count(), 20_000);
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.bench_function("leaf-spine 1000 switches 20000 hosts", |b| {
        b.iter(|| {
            let l = rocelab_model::load_file(&path).unwrap();
            assert!(!l.validate_all().has_errors());
            l.fabric.links.len()
        })
    });
    group.finish();
}

criterion_group!(benches, validate_large_leaf_spine);
criterion_main!(benches);
