//! Runs the simulator cannot hold are refused before they allocate: exit 2 with the estimate.

use super::{rocelab, text};

/// A switch with a 4,000 GB buffer: the packets it can hold (4 billion of 1,000 bytes) would take
/// far more than the run's memory limit. The run is refused with its estimate, part by part,
/// before anything of its size is allocated.
#[test]
fn a_run_over_the_memory_limit_is_refused_with_its_estimate() {
    let dir = super::fresh_dir("cli-bounds");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.yaml");
    std::fs::write(
        &file,
        "fabric:\n  name: big\n  topology:\n    generator:\n      single-switch: {hosts: 4, speed: 100G}\n  \
         qos:\n    marking: dscp\n    buffer: {size: 4000GB}\n    classes:\n      - {name: roce, priority: 3, dscp: [26], \
         ets: 50}\n      - {name: default, priority: 0, dscp: [0], ets: 50}\nsimulation: {duration: 10us}\nworkloads:\n  \
         flows:\n    - {name: f, from: host1, to: host2, class: roce, rate: 10G}\n",
    )
    .unwrap();
    let out = rocelab(&["sim", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("the run was refused: too large to simulate: the run (routing tables (1 destination group): "),
        "{err}"
    );
    assert!(err.contains("4000000000 packets the switch buffers hold: "), "{err}");
    assert!(err.contains("more than the limit of 21474836480 bytes (20.0 GiB)"), "{err}");
    assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `/dev/zero` as the fabric file is read to the limit and refused, not read until memory runs out.
#[test]
fn a_file_that_never_ends_is_refused() {
    let out = rocelab(&["validate", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains(
            "/dev/zero:0:0: error: `/dev/zero` goes on past the 16777216 bytes rocelab reads for a fabric file"
        ) || text(&out.stderr).contains("goes on past the 16777216 bytes"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}
