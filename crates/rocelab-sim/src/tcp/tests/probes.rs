//! Tail loss probes (RFC 8985 §7, [`crate::tcp::tlp`]) on the pipe of the parent module and on
//! the sender alone.

use super::*;

#[test]
fn a_tail_loss_is_probed_instead_of_waiting_for_the_timer() {
    // One segment acknowledged (an RTT sample; the window stays at its initial 3 segments, which
    // one segment did not fill), then 4 written: 3 go, the first of them is lost, and the 2
    // behind it give 2 duplicate ACKs, one short of fast retransmit, while the window holds the
    // 4th back. The probe sends the 4th past the
    // window 2·SRTT + 2 ms later, its SACK shows the hole lost, and fast recovery repairs it;
    // without probes the retransmission timer (200 ms) does. RACK is off: it would find the hole
    // lost before the probe (see `rack.rs`).
    let finish = |tail_loss_probe: bool| {
        let c = TcpConfig { delayed_ack: None, initial_window: 3, tail_loss_probe, rack: false, ..cfg(1500) };
        let mss = c.mss as u64;
        let mut p = Pipe::new(&c, &c, 50 * US);
        p.a.send(mss);
        p.run(MS);
        assert_eq!(p.a.cwnd(), 3 * mss);
        p.drop = drop_once(vec![mss]);
        p.a.send(4 * mss);
        p.run(SECOND);
        assert_eq!(p.delivered[1], 5 * mss);
        (*p.a.stats(), p.sent(Dir::BtoA).last().unwrap().0)
    };
    let (st, done) = finish(true);
    assert_eq!((st.tail_loss_probes, st.fast_retransmits, st.timeouts), (1, 1, 0), "{st:?}");
    assert!(done < 4 * MS, "done after {} us", done / US);
    let (st, done) = finish(false);
    assert_eq!((st.tail_loss_probes, st.fast_retransmits, st.timeouts), (0, 0, 1), "{st:?}");
    assert!(done > 200 * MS, "done after {} us", done / US);
}

#[test]
fn a_probe_that_arrives_shows_the_holes_sent_before_it_lost() {
    // 20 segments written; the 18th and the 20th are lost, so one segment (the 19th) is SACKed:
    // one duplicate ACK. The probe sends the 20th again; its SACK shows that the 18th, sent a
    // PTO before it, is lost (RACK's rule), and fast recovery repairs it at once. Without
    // probes the retransmission timer does, 200 ms on. RACK itself is off, as above.
    let finish = |tail_loss_probe: bool| twenty_segments(false, tail_loss_probe, &[17, 19]);
    let (st, done) = finish(true);
    assert_eq!((st.tail_loss_probes, st.fast_retransmits, st.timeouts), (1, 1, 0), "{st:?}");
    assert_eq!(st.retransmissions, 2, "the probe and the 18th: {st:?}");
    assert!(done < 4 * MS, "done after {} us", done / US);
    let (st, done) = finish(false);
    assert_eq!((st.tail_loss_probes, st.timeouts), (0, 1), "{st:?}");
    assert!(done > 200 * MS, "done after {} us", done / US);
}

/// A SACK sender at time 0 with 10 segments written and a window of 3, all 3 sent (none of
/// them a probe); with the MSS and the statistics.
fn sender_with_a_full_window_of_three() -> (sender::Sender, u64, TcpStats) {
    let c = TcpConfig { sack: true, rack: false, ..cfg(1500) };
    let m = c.mss as u64;
    let mut s = sender::Sender::new(&c, false, 1 << 30, true);
    let mut stats = TcpStats::default();
    s.st.cwnd = 3 * m;
    s.app_end = 10 * m;
    while let Some(d) = s.next_data(u32::MAX) {
        assert!(!d.probe);
        s.sent(0, &d, &mut stats);
    }
    assert_eq!(s.snd_nxt, 3 * m);
    (s, m, stats)
}

#[test]
fn a_probe_past_a_window_lost_whole_starts_recovery_of_all_of_it() {
    // The whole window (3 segments) is lost, nothing comes back. The probe sends the 4th past
    // the window; when it is SACKed, the 3 before it are lost and recovery resends the first.
    let (mut s, m, mut stats) = sender_with_a_full_window_of_three();
    s.on_probe_timer(SECOND);
    let probe = s.next_data(u32::MAX).unwrap();
    assert!(probe.probe && probe.seq == 3 * m, "{probe:?}");
    s.sent(SECOND, &probe, &mut stats);
    let mut b = SackBlocks::EMPTY;
    b.push(3 * m, 4 * m);
    s.on_ack(SECOND + 100 * US, 0, 1 << 30, false, true, &b, &mut stats);
    assert!(s.recovery.is_some() && stats.fast_retransmits == 1);
    // Nothing of the first three is in flight any more: `pipe` counts the retransmissions only.
    assert_eq!(s.pipe(), 0);
    let rtx = s.next_data(u32::MAX).unwrap();
    assert!(rtx.retransmission && rtx.seq == 0);
}

#[test]
fn the_probe_sends_new_data_past_a_full_congestion_window() {
    // Three segments fill the window; the first is lost and the other two are SACKed: too few
    // for recovery. The probe sends the fourth whatever the window says, and its SACK makes the
    // first hole lost (more than two segments SACKed above it): recovery begins.
    let (mut s, m, mut stats) = sender_with_a_full_window_of_three();
    let mut b = SackBlocks::EMPTY;
    b.push(m, 3 * m);
    s.on_ack(100 * US, 0, 1 << 30, false, true, &b, &mut stats);
    assert!(s.recovery.is_none() && s.next_data(u32::MAX).is_none());
    // No RTT sample yet: the probe timer is the initial 1 s, armed when the data went out.
    assert_eq!(s.tlp.at, Some(SECOND));
    s.on_probe_timer(SECOND);
    let probe = s.next_data(u32::MAX).unwrap();
    assert!(probe.probe && !probe.retransmission && probe.seq == 3 * m, "{probe:?}");
    s.sent(SECOND, &probe, &mut stats);
    assert_eq!(stats.tail_loss_probes, 1);
    let mut b = SackBlocks::EMPTY;
    b.push(m, 4 * m);
    s.on_ack(SECOND + 100 * US, 0, 1 << 30, false, true, &b, &mut stats);
    assert!(s.recovery.is_some() && stats.fast_retransmits == 1);
    let rtx = s.next_data(u32::MAX).unwrap();
    assert!(rtx.retransmission && rtx.seq == 0);
}

#[test]
fn after_a_loss_repaired_by_a_probe_an_echo_reduces_the_window_at_once() {
    // Ten segments sent, the tenth lost; the probe sends it again, then ten new segments go.
    // The ACK beyond the probe shows the loss repaired: one reduction, and the sender is back in
    // the open state (Linux's `tcp_process_tlp_ack`), so the echo on the next ACK, for a segment
    // sent before that repair, reduces the window again (it used to wait for a window).
    let c = TcpConfig { sack: true, rack: false, ecn: true, ..cfg(1500) };
    let m = c.mss as u64;
    let mut s = sender::Sender::new(&c, true, 1 << 30, true);
    let mut stats = TcpStats::default();
    let send_all = |s: &mut sender::Sender, now: Time, stats: &mut TcpStats| {
        while let Some(d) = s.next_data(u32::MAX) {
            s.sent(now, &d, stats);
        }
    };
    s.app_end = 10 * m;
    send_all(&mut s, 0, &mut stats);
    s.on_ack(100 * US, 9 * m, 1 << 30, false, true, &SackBlocks::EMPTY, &mut stats);
    let t = s.tlp.at.expect("a probe is armed");
    s.on_probe_timer(t);
    let probe = s.next_data(u32::MAX).unwrap();
    assert!(probe.probe && probe.retransmission && probe.seq == 9 * m, "{probe:?}");
    s.sent(t, &probe, &mut stats);
    s.app_end = 20 * m;
    send_all(&mut s, t, &mut stats);
    assert_eq!(s.snd_nxt, 20 * m);
    s.on_ack(t + 100 * US, 11 * m, 1 << 30, false, true, &SackBlocks::EMPTY, &mut stats);
    let after_repair = s.st;
    assert!(after_repair.ssthresh < u64::MAX && !s.in_cwr(), "{after_repair:?}");
    assert_eq!(stats.ecn_reductions, 0);
    s.on_ack(t + 101 * US, 12 * m, 1 << 30, true, true, &SackBlocks::EMPTY, &mut stats);
    assert_eq!(stats.ecn_reductions, 1, "the echo reduces the window");
    assert!(s.in_cwr());
    assert!(s.st.ssthresh < after_repair.ssthresh, "{:?} after {after_repair:?}", s.st);
}
