//! The window reduction after an ECN echo (Linux's CWR state) on the pipe of the parent module.

use super::*;

/// What one transfer over a 10 Gb/s pipe of 100 µs RTT shows of its CWR state when the segment
/// at `marked` (in segments) is CE-marked and those at `dropped` are lost once.
struct Cwr {
    /// When the ACK with the echo arrived, and the data segments sent from then until CWR
    /// ended: (time, retransmission).
    began: Time,
    sent: Vec<(Time, bool)>,
    /// The window and ssthresh at every step while in CWR.
    windows: Vec<(u64, u64)>,
    /// ssthresh as CWR ended (or as the recovery it became began) and once all is delivered.
    ssthresh: [u64; 2],
    /// The window as CWR ended.
    cwnd_at_end: u64,
    stats: TcpStats,
}

fn cwr(cc: CcKind, prr: bool, marked: u64, dropped: Vec<u64>) -> Cwr {
    let c = TcpConfig { ecn: true, delayed_ack: None, prr, ..cfg(1500) }.with_cc(cc);
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(LinkRate::new(10_000_000_000));
    p.mark = Box::new(move |_, d, s| d == Dir::AtoB && s.seq == marked * mss && !s.retransmission);
    p.drop = drop_once(dropped.iter().map(|k| k * mss).collect());
    p.a.send(2000 * mss);
    // Step by 10 ns (a segment takes 1.2 µs) until CWR has begun and ended.
    let (mut t, mut began, mut windows) = (0, None, Vec::new());
    while began.is_none() || p.a.in_cwr() {
        if p.a.in_cwr() {
            began.get_or_insert(t);
            windows.push((p.a.cwnd(), p.a.ssthresh()));
        }
        t += 10_000;
        p.run(t);
        assert!(t < 100 * MS, "CWR did not end");
    }
    let began = began.unwrap();
    let (ssthresh_at_end, cwnd_at_end) = (p.a.ssthresh(), p.a.cwnd());
    p.run(SECOND);
    assert_eq!(p.delivered[1], 2000 * mss);
    assert!(p.sent(Dir::AtoB).any(|(_, _, s)| s.flags.contains(Flags::CWR)), "CWR sent");
    let sent = p
        .sent(Dir::AtoB)
        .map(|(t, _, s)| (*t, s.retransmission))
        .filter(|x| x.0 >= began && x.0 < t - 10_000)
        .collect();
    Cwr { began, sent, windows, ssthresh: [ssthresh_at_end, p.a.ssthresh()], cwnd_at_end, stats: *p.a.stats() }
}

/// The longest time in CWR without a data segment sent, from the echo's arrival on.
fn longest_gap(r: &Cwr) -> Time {
    let times: Vec<Time> = std::iter::once(r.began).chain(r.sent.iter().map(|x| x.0)).collect();
    times.windows(2).map(|w| w[1] - w[0]).max().unwrap()
}

#[test]
fn prr_paces_the_echos_reduction_where_rfc_3168_cuts_at_once_and_falls_silent() {
    let mss = cfg(1500).mss as u64;
    let with = cwr(CcKind::Cubic, true, 300, vec![]);
    let without = cwr(CcKind::Cubic, false, 300, vec![]);
    for (prr, r) in [(true, &with), (false, &without)] {
        assert_eq!((r.stats.ecn_reductions, r.stats.retransmissions), (1, 0), "PRR {prr}: {:?}", r.stats);
        // Linux's `tcp_end_cwnd_reduction`: CWR ends with the window at ssthresh (and the ACK
        // that ends it may grow it as any ACK in the open state does, by less than a segment).
        let (cwnd, ssthresh) = (r.cwnd_at_end, r.ssthresh[0]);
        assert!(cwnd >= ssthresh && cwnd < ssthresh + mss, "PRR {prr}: cwnd {cwnd}, ssthresh {ssthresh}");
    }
    // Cut at once to 0.7 of the window, the sender waits until three tenths of the flight are
    // acknowledged: 112 µs of CWR's 373 µs round trip (the sender's queue included).
    let (g_with, g_without) = (longest_gap(&with), longest_gap(&without));
    assert!(g_without >= 25 * US, "without PRR the longest gap is {} ns", g_without / 1000);
    // PRR: seven segments for every ten acknowledged, never more than a few segment times
    // (1.2 µs each at 10 Gb/s) without a send.
    assert!(g_with <= 5 * US, "with PRR the longest gap is {} ns", g_with / 1000);
    // Both send ssthresh's worth in CWR's round trip (PRR only spreads it), within two segments.
    for (prr, r) in [(true, &with), (false, &without)] {
        let sent = r.sent.len() as u64 * mss;
        assert!(
            sent.abs_diff(r.ssthresh[0]) <= 2 * mss,
            "PRR {prr}: {} sent, ssthresh {}",
            sent / mss,
            r.ssthresh[0] / mss
        );
    }
}

#[test]
fn the_window_does_not_grow_in_cwr() {
    // Cut at once (no PRR), the window stays at ssthresh for CWR's whole round trip, in which
    // NewReno's byte counting would otherwise have added a segment for the window's worth
    // acknowledged (Linux's `tcp_may_raise_cwnd`; RFC 3168 §6.1.2).
    let r = cwr(CcKind::NewReno, false, 300, vec![]);
    assert!(r.windows.len() > 100, "{} steps in CWR", r.windows.len());
    let grown = r.windows.iter().position(|&(cwnd, ssthresh)| cwnd != ssthresh);
    assert_eq!(grown, None, "(cwnd, ssthresh) {:?} at step {grown:?}", grown.map(|i| r.windows[i]));
    // With PRR the window is pipe plus the share, so above ssthresh while pipe is, and never
    // above the window PRR set on the echo's ACK.
    let r = cwr(CcKind::NewReno, true, 300, vec![]);
    let prior = r.windows[0].0;
    let above = r.windows.iter().position(|&(cwnd, _)| cwnd > prior);
    assert_eq!(above, None, "window {prior} on the echo's ACK, {:?} at step {above:?}", above.map(|i| r.windows[i]));
}

#[test]
fn a_loss_in_cwr_is_recovered_without_a_second_cut_except_by_dctcp() {
    // The segment 20 after the marked one is lost: its duplicate ACKs come 27 µs into CWR, while
    // the window is still coming down for the echo. Recovery takes that reduction over (Linux's
    // `tcp_enter_recovery` inits none inside one), so ssthresh stays 0.7 of the window the echo
    // found; a second cut would take 0.7 of the window then (with PRR 0.7 of a window still
    // near the old one, without it 0.49 of the old one).
    for prr in [true, false] {
        let r = cwr(CcKind::Cubic, prr, 300, vec![320]);
        assert_eq!(
            (r.stats.ecn_reductions, r.stats.fast_retransmits, r.stats.retransmissions, r.stats.timeouts),
            (1, 1, 1, 0),
            "PRR {prr}: {:?}",
            r.stats
        );
        let echo = r.windows[0].1;
        assert_eq!(r.ssthresh, [echo, echo], "PRR {prr}: one reduction");
        // DCTCP halves the window whenever recovery begins (Linux's `dctcp_react_to_loss`),
        // in CWR too: below what its echo set (a cut by α/2, α having decayed from 1 to about
        // 0.68 over the unmarked windows before).
        let r = cwr(CcKind::Dctcp, prr, 300, vec![320]);
        assert_eq!((r.stats.ecn_reductions, r.stats.fast_retransmits), (1, 1), "DCTCP, PRR {prr}: {:?}", r.stats);
        let echo = r.windows[0].1;
        assert!(r.ssthresh[0] < echo, "DCTCP, PRR {prr}: ssthresh {} after the echo's {echo}", r.ssthresh[0]);
    }
}
