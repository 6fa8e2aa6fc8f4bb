use super::*;
use crate::time::{MS, NS, US};

const LINE: u64 = 100_000_000_000;

fn params() -> DcqcnParams {
    DcqcnParams {
        g: 1.0 / 256.0,
        alpha_update_interval_ps: 55 * US,
        initial_alpha: 1.0,
        rate_increase_timer_ps: 55 * US,
        byte_counter_bytes: 10_000_000,
        fast_recovery_steps: 5,
        additive_increase_bps: 40_000_000,
        hyper_increase_bps: 200_000_000,
        min_rate_bps: 10_000_000,
        cnp_interval_ps: 50 * US,
        rate_reduce_interval_ps: 0,
        clamp_target_rate: true,
        clamp_target_rate_after_time_increase: false,
        max_decrease: 1.0,
        rate_on_first_cnp_bps: None,
        alpha_update: AlphaUpdate::OnCnp,
        rate_reduce: RateReduce::OnCnp,
        rate_increase: RateIncrease::Paper,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn a_cnp_cuts_by_alpha_over_two_and_raises_alpha() {
    let mut rp = ReactionPoint::new(params(), LINE);
    assert_eq!(rp.rate_bps(), None, "unlimited before the first CNP");
    rp.on_cnp(0);
    // α = 1: RC halves; RT keeps the old rate; α ← (1 − g)·1 + g = 1.
    assert!(close(rp.current_rate(), 50e9));
    assert!(close(rp.target_rate(), 100e9));
    assert!(close(rp.alpha_at(0), 1.0));
    assert_eq!(rp.rate_bps(), Some(rp.current_rate()));
    assert_eq!(rp.next_timer(), Some(55 * US));
    // Second CNP 10 µs later (no decay yet): RT ← RC = 50G, RC ← 25G.
    rp.on_cnp(10 * US);
    assert!(close(rp.target_rate(), 50e9));
    assert!(close(rp.current_rate(), 25e9));
    assert_eq!(rp.cuts, 2);
}

#[test]
fn alpha_decays_once_per_interval_without_cnp() {
    let mut rp = ReactionPoint::new(params(), LINE);
    rp.on_cnp(0);
    let g = 1.0 / 256.0;
    assert!(close(rp.alpha_at(54 * US), 1.0), "no decay within K");
    assert!(close(rp.alpha_at(55 * US), 1.0 - g));
    assert!(close(rp.alpha_at(3 * 55 * US + 1), (1.0 - g).powi(3)));
    // The next cut uses the decayed α, then raises it.
    rp.on_cnp(110 * US);
    let a = (1.0 - g) * (1.0 - g);
    assert!(close(rp.alpha_at(110 * US), (1.0 - g) * a + g));
}

#[test]
fn fast_recovery_then_additive_then_hyper_increase() {
    let mut p = params();
    p.byte_counter_bytes = u64::MAX / 2; // timer stages only at first
    let mut rp = ReactionPoint::new(p, LINE);
    rp.on_cnp(0);
    rp.on_cnp(1); // RT = 50G, RC = 25G
    let (mut rt, mut rc) = (50e9, 25e9);
    // Timer stages 1..=5 (≤ F, byte stage 0 ≤ F): fast recovery, RT unchanged.
    for k in 1..=5u64 {
        rp.on_timer(1 + k * 55 * US);
        rc = (rt + rc) / 2.0;
        assert!(close(rp.target_rate(), rt), "stage {k}");
        assert!(close(rp.current_rate(), rc), "stage {k}");
    }
    // Stage 6: timer > F, bytes ≤ F: additive, RT += R_AI.
    rp.on_timer(1 + 6 * 55 * US);
    rt += 40e6;
    rc = (rt + rc) / 2.0;
    assert!(close(rp.target_rate(), rt) && close(rp.current_rate(), rc));
    // Six byte stages as well: both above F, hyper increase with i = min(7, 6) − 5 = 1.
    let mut rp2 = rp.clone();
    rp2.p.byte_counter_bytes = 1000;
    rp2.byte_counter = 1000; // the copy `on_sent` reads
    rp2.bytes = 0;
    for _ in 0..5 {
        rp2.on_sent(0, 1000); // byte stages 1..=5: additive (timer stage 6 > F)
    }
    let before = rp2.target_rate();
    assert!(close(before, rt + 5.0 * 40e6));
    rp2.on_sent(0, 1000); // byte stage 6 > F and timer stage 6 > F: hyper, i = 1
    assert!(close(rp2.target_rate(), before + 200e6));
    rp2.on_timer(1 + 7 * 55 * US); // timer stage 7: i = min(7, 6) − 5 = 1
    assert!(close(rp2.target_rate(), before + 400e6));
}

#[test]
fn min_rate_floor_and_line_rate_cap() {
    let mut rp = ReactionPoint::new(params(), LINE);
    for k in 0..100 {
        rp.on_cnp(k * US);
    }
    assert!(close(rp.current_rate(), 10e6), "floored at min_rate: {}", rp.current_rate());
    assert!(rp.min_rate_seen >= 10e6);
    // Many timer increases bring it back to line rate and release the limiter, never above.
    let mut t = 100 * US;
    let mut guard = 0;
    while rp.rate_bps().is_some() {
        t = rp.next_timer().expect("timer runs while limited");
        rp.on_timer(t);
        assert!(rp.current_rate() <= LINE as f64 && rp.target_rate() <= LINE as f64);
        guard += 1;
        assert!(guard < 100_000, "never recovered");
    }
    assert_eq!(rp.current_rate(), LINE as f64);
    assert_eq!(rp.next_timer(), None);
    let _ = t;
}

#[test]
fn connectx_knobs_rate_reduce_interval_and_clamping() {
    let mut p = params();
    p.rate_reduce_interval_ps = 4 * US;
    p.clamp_target_rate = false;
    p.clamp_target_rate_after_time_increase = true;
    p.initial_alpha = 1023.0 / 1024.0;
    let mut rp = ReactionPoint::new(p, LINE);
    rp.on_cnp(0);
    assert!(close(rp.current_rate(), 100e9 * (1.0 - 1023.0 / 2048.0)));
    rp.on_cnp(2 * US);
    assert_eq!((rp.cuts, rp.cnps_ignored), (1, 1), "within the 4 µs monitor period");
    // A cut without a timer increase since the last one leaves RT where it was.
    let rt = rp.target_rate();
    rp.on_cnp(5 * US);
    assert!(close(rp.target_rate(), rt));
    // After a timer increase, the next cut clamps RT to RC.
    rp.on_timer(5 * US + 55 * US);
    let rc = rp.current_rate();
    rp.on_cnp(70 * US);
    assert!(close(rp.target_rate(), rc));
    // max_decrease bounds a cut.
    let mut p2 = params();
    p2.max_decrease = 0.25;
    let mut rp = ReactionPoint::new(p2, LINE);
    rp.on_cnp(0);
    assert!(close(rp.current_rate(), 75e9));
    // rate_on_first_cnp sets both rates.
    let mut p3 = params();
    p3.rate_on_first_cnp_bps = Some(20_000_000_000);
    let mut rp = ReactionPoint::new(p3, LINE);
    rp.on_cnp(0);
    assert!(close(rp.current_rate(), 20e9) && close(rp.target_rate(), 20e9));
}

/// ConnectX timings: α every 1 µs, a cut at most every 4 µs, α per period.
fn connectx() -> DcqcnParams {
    DcqcnParams {
        g: 1.0 / 256.0,
        alpha_update_interval_ps: US,
        initial_alpha: 1.0,
        rate_increase_timer_ps: 300 * US,
        byte_counter_bytes: 10_000_000,
        fast_recovery_steps: 1,
        additive_increase_bps: 20_000_000,
        hyper_increase_bps: 200_000_000,
        min_rate_bps: 1_000_000_000,
        cnp_interval_ps: 0,
        rate_reduce_interval_ps: 4 * US,
        clamp_target_rate: false,
        clamp_target_rate_after_time_increase: true,
        max_decrease: 1.0,
        rate_on_first_cnp_bps: None,
        alpha_update: AlphaUpdate::Periodic,
        rate_reduce: RateReduce::Periodic,
        rate_increase: RateIncrease::TimerOnly,
    }
}

/// Deliver a CNP every `every` ps from 0 to `until`, firing the QP's timer when due.
fn drive(rp: &mut ReactionPoint, every: Time, until: Time) {
    let mut t = 0;
    while t <= until {
        while let Some(due) = rp.next_timer().filter(|&d| d <= t) {
            rp.on_timer(due);
        }
        rp.on_cnp(t);
        t += every;
    }
}

#[test]
fn alpha_stays_near_one_under_continuous_marking_with_connectx_timings() {
    // A CNP every 500 ns (every α period has one) for 2 ms, cuts at most every 4 µs: α
    // stays at 1 (the finding: α fell towards 0.2 when cuts decayed it over periods
    // that had CNPs). Within 5 % of 1.
    let mut rp = ReactionPoint::new(connectx(), LINE);
    drive(&mut rp, 500_000, 2 * MS);
    let a = rp.alpha_at(2 * MS);
    assert!((a - 1.0).abs() <= 0.05, "alpha {a}");
    // Every 4 µs period had CNPs: about 500 cuts over 2 ms, and the rate is at the floor.
    assert!((495..=501).contains(&rp.cuts), "{} cuts", rp.cuts);
    assert!(close(rp.current_rate(), 1e9), "{}", rp.current_rate());
    // A CNP every 3 µs: 2 of every 3 α periods have none, so α settles near g/3 per period
    // over 1 - (1 - g)^3: about 1/3, and each CNP's period is its own cut.
    let mut rp = ReactionPoint::new(connectx(), LINE);
    drive(&mut rp, 3 * US, 10 * MS);
    let a = rp.alpha_at(10 * MS);
    assert!((0.3..0.37).contains(&a), "alpha {a}");
}

#[test]
fn periodic_reduction_cuts_once_per_period_with_cnps() {
    let mut rp = ReactionPoint::new(connectx(), LINE);
    // The first CNP at 10 µs sets α to 1 and leaves the rate; the check at 14 µs + 1 ns cuts.
    rp.on_cnp(10 * US);
    assert_eq!(rp.rate_bps(), None);
    assert_eq!(rp.next_timer(), Some(14 * US + NS));
    rp.on_cnp(12 * US);
    rp.on_cnp(13 * US);
    assert_eq!(rp.cnps_ignored, 2, "one cut for the three");
    rp.on_timer(14 * US + NS);
    assert_eq!(rp.cuts, 1);
    // α at the cut: 1 at the first CNP, which does not count in its own period (to 11 µs);
    // the CNPs at 12 and 13 µs each count in the period that ends at their instant; none in
    // the period to 14 µs.
    let g = 1.0 / 256.0;
    let a = (((1.0 - g) * (1.0 - g) + g) * (1.0 - g) + g) * (1.0 - g);
    assert!(close(rp.current_rate(), 100e9 * (1.0 - a / 2.0)), "{}", rp.current_rate());
    assert!(close(rp.target_rate(), 100e9), "no timer increase yet: RT stays");
    // No CNP since: no check pending, only the rate-increase timer (300 µs after the cut).
    assert_eq!(rp.next_timer(), Some(314 * US + NS));
    // A CNP at 20 µs: the next check on the grid 10 µs + 1 ns + k·4 µs, 22 µs + 1 ns.
    rp.on_cnp(20 * US);
    assert_eq!(rp.next_timer(), Some(22 * US + NS));
}

#[test]
fn timer_only_increase_is_fast_recovery_then_one_additive_then_hyper() {
    let mut rp = ReactionPoint::new(connectx(), LINE);
    rp.on_cnp(0);
    rp.on_timer(4 * US + NS);
    let (rt, rc0) = (rp.target_rate(), rp.current_rate());
    assert!(close(rt, 100e9));
    let mut t = 4 * US + NS;
    // F = 1: one fast recovery...
    t += 300 * US;
    rp.on_timer(t);
    let rc1 = (rt + rc0) / 2.0;
    assert!(close(rp.current_rate(), rc1) && close(rp.target_rate(), rt));
    // ... the byte counter does nothing ...
    rp.on_sent(t, 100_000_000);
    assert_eq!(rp.stages(), (1, 0));
    // ... a cut clamps RT now that the timer has increased the rate ...
    rp.on_cnp(t + US);
    rp.on_timer(rp.next_timer().unwrap());
    assert!(close(rp.target_rate(), rc1));
    let (rt, mut rc) = (rp.target_rate(), rp.current_rate());
    let mut t = rp.next_timer().unwrap() - 300 * US;
    let mut expected_rt = rt;
    for (k, step) in [0.0, 20e6, 200e6, 200e6].into_iter().enumerate() {
        t += 300 * US;
        rp.on_timer(t);
        expected_rt = (expected_rt + step).min(100e9);
        rc = (expected_rt + rc) / 2.0;
        assert!(close(rp.target_rate(), expected_rt), "event {k}");
        assert!(close(rp.current_rate(), rc), "event {k}");
    }
}

#[test]
fn connectx_hyper_increase_is_one_step_of_r_hai() {
    let mut p = params();
    p.rate_increase = RateIncrease::Connectx;
    p.byte_counter_bytes = 1000;
    let mut rp = ReactionPoint::new(p, LINE);
    rp.on_cnp(0);
    rp.on_cnp(1);
    for k in 1..=8u64 {
        rp.on_timer(1 + k * 55 * US);
    }
    for _ in 0..8 {
        rp.on_sent(0, 1000);
    }
    // Both stages past F: each further event adds R_HAI once, not i·R_HAI.
    let before = rp.target_rate();
    rp.on_sent(0, 1000);
    assert!(close(rp.target_rate(), before + 200e6));
    rp.on_timer(1 + 9 * 55 * US);
    assert!(close(rp.target_rate(), before + 400e6));
}

#[test]
fn notification_point_spaces_cnps_per_qp() {
    let mut np = NotificationPoint::default();
    assert!(np.on_ce(0, 50 * US));
    assert!(!np.on_ce(10 * US, 50 * US));
    assert!(!np.on_ce(49 * US, 50 * US));
    assert!(np.on_ce(50 * US, 50 * US));
    assert!(!np.on_ce(60 * US, 50 * US));
    assert_eq!((np.ce_packets, np.cnps_sent), (5, 2));
}
