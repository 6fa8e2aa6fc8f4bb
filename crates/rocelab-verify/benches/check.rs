//! `rocelab check` on a 1,000-switch, 20,000-host leaf-spine (800 leaves, 200 spines, 180,000
//! links): configured state from the intent, every check, routes and the deadlock analysis
//! including every single link failure. Run with `cargo bench -p rocelab-verify --bench check`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn check_large_leaf_spine(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rocelab-model/benches/leaf-spine-1000-switches.yaml");
    let loaded = rocelab_model::load_file(&path).expect("benchmark fabric loads");
    assert_eq!(loaded.fabric.switches().count(), 1000);
    let state = rocelab_verify::from_intent(&loaded.fabric);
    let findings = rocelab_verify::check(&state);
    let r = rocelab_verify::routes::analyse(&state);
    // Every single failure is cleared by the screen: none needs (or escapes) a full analysis.
    assert_eq!((r.switch_links, r.failures_analysed_in_full, r.failures_not_analysed), (160_000, 0, 0));
    assert!(r.cycles.is_empty() && r.failure_cycles.is_empty());
    // The one error: 800 lossless 100G ports of a spine need more headroom than the default
    // 12 MB buffer of a switch of unknown model; reported once for all 200 spines.
    let errors: Vec<_> = findings.iter().filter(|f| f.severity == rocelab_verify::Severity::Error).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].id == "HEADROOM-BUFFER" && errors[0].what.contains("also on 199 other devices"));
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    group.bench_function("leaf-spine 1000 switches 20000 hosts: state from intent", |b| {
        b.iter(|| rocelab_verify::from_intent(&loaded.fabric).devices.len())
    });
    group.bench_function("leaf-spine 1000 switches 20000 hosts: routes and deadlock with every single failure", |b| {
        b.iter(|| rocelab_verify::routes::analyse(&state).switch_links)
    });
    group.bench_function("leaf-spine 1000 switches 20000 hosts: all checks", |b| {
        b.iter(|| rocelab_verify::check(&state).len())
    });
    group.finish();
}

criterion_group!(benches, check_large_leaf_spine);
criterion_main!(benches);
