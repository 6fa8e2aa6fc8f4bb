//! The Oracle two-ports-to-one experiment (OFA workshop 2017, "Validating RoCEv2 in the Cloud
//! Datacenter"; seed `validating-rocev2-cloud-datacenter-oracle-ofa2017.txt`), run from the
//! example `examples/oracle-ofa2017-two-to-one.yaml` with its perftest workloads.
//!
//! Measured `ib_write_lat` latency: baseline 3.22 µs; `(lat, bw)` priorities `(4, 4)`: 5.67 µs
//! with ECN at the switch, 15.48 µs without; `(3, 4)`: 4.28 µs with ECN, 5.64 µs without.
//! rocelab compares perftest's t_avg (the slides do not say which column they report).
//!
//! What makes each figure in the simulation:
//! * baseline — the NIC and PCIe latencies of the `connectx-4` profile (calibrated on this
//!   figure) plus the wire;
//! * `(4, 4)` without ECN — the receiver's PCIe path drains below line rate, so its NIC buffer
//!   fills and pauses the switch port (PFC); the switch's egress queue grows until the
//!   bandwidth sender's priority group reaches XOFF and the switch pauses the sender. The ping
//!   shares that queue: it waits behind ~230 KB in the switch and ~70 KB in the NIC buffer.
//!   The XOFF point is inferred from this figure (see the example), so this case is a
//!   calibration too;
//! * `(3, 4)` without ECN — the ping has its own egress queue at the switch, but the receiver
//!   NIC's lossless buffer is shared by both priorities: when it fills, the NIC pauses both,
//!   and the ping waits behind the bandwidth test's data in it;
//! * with ECN — the switch marks above Kmin, the receiver's notification point sends CNPs and
//!   DCQCN cuts `ib_write_bw`'s rate below the receiver's drain rate: the queues empty most of
//!   the time and the ping mostly sees short ones.

use rocelab_sim::*;

/// Measured figures, µs.
const BASELINE: f64 = 3.22;
const SAME_ECN: f64 = 5.67;
const SAME_NO_ECN: f64 = 15.48;
const DIFF_ECN: f64 = 4.28;
const DIFF_NO_ECN: f64 = 5.64;

fn example() -> rocelab_model::Loaded {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/oracle-ofa2017-two-to-one.yaml");
    rocelab_model::load_file(&path).expect("the example loads")
}

/// Run one variant; returns the results and the indices of the perftest tests by name.
fn run_variant(l: &rocelab_model::Loaded, variant: &str) -> (Results, Vec<String>) {
    let (scenario, fabric) = l.variant_scenario(variant).expect("variant");
    let b = rocelab_sim::from_model::build(&scenario, &fabric, crate::example_seed());
    let r = run(&b.spec, &b.traffic, &b.config).expect("run");
    r.check_conservation().expect("conservation");
    (r, b.names.perftest)
}

fn lat_avg(r: &Results, names: &[String]) -> f64 {
    let i = names.iter().position(|n| n == "ib_write_lat").expect("ib_write_lat");
    let t = &r.perftest[i];
    assert!(t.complete, "ib_write_lat ran all its iterations");
    t.lat.expect("latency figures").t_avg_us
}

#[test]
fn oracle_baseline_write_lat_is_calibrated() {
    let l = example();
    let (r, names) = run_variant(&l, "baseline");
    let lat = lat_avg(&r, &names);
    // Calibration: the connectx-4 profile's latencies are chosen so that this is 3.22 µs;
    // tolerance 1%.
    assert!((lat - BASELINE).abs() / BASELINE < 0.01, "baseline write_lat {lat:.3} us, measured {BASELINE} us");
    let t = r.perftest[0].lat.unwrap();
    assert_eq!(t.iterations, 1000, "perftest's default iterations");
    assert!(t.t_max_us - t.t_min_us < 0.01, "an idle fabric gives the same latency every time");
}

#[test]
fn oracle_two_to_one_matches_the_measured_table() {
    let l = example();
    let mut got = Vec::new();
    for (variant, measured) in [
        ("same-priority-no-ecn", SAME_NO_ECN),
        ("same-priority-ecn", SAME_ECN),
        ("different-priority-no-ecn", DIFF_NO_ECN),
        ("different-priority-ecn", DIFF_ECN),
    ] {
        let (r, names) = run_variant(&l, variant);
        let lat = lat_avg(&r, &names);
        // Tolerance ±25% of the measured figure (the aim).
        let err = (lat - measured) / measured;
        assert!(err.abs() <= 0.25, "{variant}: simulated {lat:.2} us vs measured {measured} us ({:+.0}%)", err * 100.0);
        // ib_write_bw keeps Oracle's single-QP range, 92-96 Gb/s, beside the pings.
        let bw = r.perftest[names.iter().position(|n| n == "ib_write_bw").unwrap()].bw.unwrap();
        assert!((92.0..=96.0).contains(&bw.average_gbps), "{variant}: write_bw {:.2} Gb/s", bw.average_gbps);
        got.push(lat);
    }
    let [same_no, same_ecn, diff_no, diff_ecn] = got[..] else { unreachable!() };
    // The measured ordering: baseline < (3,4) ECN < (3,4) no ECN < (4,4) ECN < (4,4) no ECN.
    assert!(BASELINE < diff_ecn, "baseline below (3,4) with ECN: {diff_ecn:.2}");
    assert!(diff_ecn < diff_no, "(3,4): ECN {diff_ecn:.2} below no ECN {diff_no:.2}");
    assert!(diff_no < same_ecn, "(3,4) no ECN {diff_no:.2} below (4,4) ECN {same_ecn:.2}");
    assert!(same_ecn < same_no, "(4,4): ECN {same_ecn:.2} below no ECN {same_no:.2}");
}

/// Guard for engine optimisations on the perftest path (ping-pong latency tests beside a
/// bandwidth test, with and without ECN and DCQCN): every variant of the example gives exactly
/// the recorded results (see `engine_results_match_the_golden_digests`).
#[test]
fn oracle_variants_match_their_golden_digests() {
    let l = example();
    let mut lines = Vec::new();
    for variant in
        ["baseline", "same-priority-no-ecn", "same-priority-ecn", "different-priority-no-ecn", "different-priority-ecn"]
    {
        let (r, _) = run_variant(&l, variant);
        lines.push(super::golden_line(variant, &r));
    }
    insta::assert_snapshot!(lines.join("\n"));
}
