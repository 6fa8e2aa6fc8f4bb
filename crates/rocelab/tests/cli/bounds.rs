//! Runs the simulator cannot hold are refused before they allocate: exit 2 with the estimate.

use super::{rocelab, text};

/// A single switch with 32 768 hosts: its routing table (32 769 nodes × 32 768 hosts × 4 bytes)
/// is just over the 4 GiB limit. The fabric itself loads in a few hundred MB.
#[test]
fn a_routing_table_over_the_limit_is_refused_with_its_size() {
    let dir = std::env::temp_dir().join(format!("rocelab-cli-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.yaml");
    std::fs::write(
        &file,
        "fabric:\n  name: big\n  topology:\n    generator:\n      single-switch: {hosts: 32768, speed: 100G}\n  \
         qos:\n    marking: dscp\n    classes:\n      - {name: roce, priority: 3, dscp: [26], ets: 50}\n      \
         - {name: default, priority: 0, dscp: [0], ets: 50}\nsimulation: {duration: 10us}\nworkloads:\n  flows:\n    \
         - {name: f, from: host1, to: host2, class: roce, rate: 10G}\n",
    )
    .unwrap();
    let out = rocelab(&["sim", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "the run was refused: too large to simulate: the routing table (32769 nodes × 32768 hosts or more, \
             4 bytes each) would take 4295098368 bytes (4.0 GiB), more than the limit of 4294967296 bytes (4.0 GiB)"
        ),
        "{err}"
    );
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
