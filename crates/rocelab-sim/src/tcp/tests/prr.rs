//! Proportional Rate Reduction (RFC 6937, [`crate::tcp::prr`]) on the pipe of the parent module.

use super::*;

/// One CUBIC transfer over a 10 Gb/s pipe of 100 µs RTT with one segment of the window lost:
/// the times and kinds (retransmission or not) of the data segments sent from the fast
/// retransmit to the end of recovery; the sender's window, ssthresh and flight as recovery ends;
/// and its statistics once all is delivered. HyStart is off so that the loss falls in slow
/// start, where the window is largest and the reduction deepest.
fn recovery(prr: bool) -> (Vec<(Time, bool)>, [u64; 3], TcpStats) {
    let c = TcpConfig { delayed_ack: None, prr, hystart: false, ..cfg(1500) };
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(LinkRate::new(10_000_000_000));
    p.drop = drop_once(vec![300 * mss]);
    p.a.send(2000 * mss);
    // Step by 10 ns (a segment takes 1.2 µs) until recovery has begun and ended, to see the
    // window as it ends.
    let (mut t, mut began) = (0, false);
    while !began || p.a.in_recovery() {
        began |= p.a.in_recovery();
        t += 10_000;
        p.run(t);
        assert!(t < 100 * MS, "recovery did not end");
    }
    let end = [p.a.cwnd(), p.a.ssthresh(), p.a.flight()];
    p.run(SECOND);
    assert_eq!(p.delivered[1], 2000 * mss);
    let log: Vec<(Time, bool)> = p.sent(Dir::AtoB).map(|(t, _, s)| (*t, s.retransmission)).collect();
    let first = log.iter().position(|x| x.1).unwrap();
    let during = log[first..].iter().copied().filter(|x| x.0 < t - 10_000).collect();
    (during, end, *p.a.stats())
}

#[test]
fn prr_spreads_the_recovery_over_its_round_trip_where_rfc_6675_falls_silent() {
    let (with, ..) = recovery(true);
    let (without, ..) = recovery(false);
    // The longest silence after the fast retransmit, within the recovery's round trip.
    let gap = |v: &[(Time, bool)]| v.windows(2).map(|w| w[1].0 - w[0].0).max().unwrap();
    // RFC 6675: the window drops to ssthresh (0.7 of it for CUBIC) and nothing goes until pipe
    // has fallen below it: 110 µs of the recovery's 370 µs round trip (the queue included).
    assert!(gap(&without) >= 25 * US, "without PRR the longest gap is {} ns", gap(&without) / 1000);
    // PRR: seven segments for every ten delivered, so never more than a few segment times
    // (1.2 µs each at 10 Gb/s) without a send.
    assert!(gap(&with) <= 5 * US, "with PRR the longest gap is {} ns", gap(&with) / 1000);
    // Both send about the same in that round trip (PRR only spreads it): within 10 %.
    let (a, b) = (with.len() as f64, without.len() as f64);
    assert!((a / b - 1.0).abs() < 0.10, "{a} segments with PRR, {b} without");
}

#[test]
fn prr_leaves_recovery_at_ssthresh_having_sent_its_share() {
    let mss = cfg(1500).mss as u64;
    for prr in [true, false] {
        let (during, [cwnd, ssthresh, flight], st) = recovery(prr);
        assert_eq!((st.fast_retransmits, st.timeouts, st.retransmissions), (1, 0, 1), "PRR {prr}: {st:?}");
        // Either way, what was sent in the recovery is ssthresh's worth (pipe came down to it),
        // within two segments.
        let sent = during.len() as u64 * mss;
        assert!(
            sent.abs_diff(ssthresh) <= 2 * mss,
            "PRR {prr}: {} segments sent, ssthresh {}",
            during.len(),
            ssthresh / mss
        );
        if prr {
            // Linux's `tcp_end_cwnd_reduction`: the window is ssthresh as recovery ends.
            assert_eq!(cwnd, ssthresh, "flight {flight}");
        } else {
            // RFC 6582 step 6, as the model has it without PRR: min(ssthresh, flight + MSS).
            assert_eq!(cwnd, ssthresh.min(flight + mss));
        }
    }
}
