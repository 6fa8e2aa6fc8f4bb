//! RACK loss detection (RFC 8985 §6, [`crate::tcp::rack`]) on the pipe of the parent module and
//! on the sender alone.

use super::*;

#[test]
fn a_hole_below_the_last_two_segments_is_repaired_by_the_reordering_timer() {
    // The 18th of 20 segments is lost; the 19th and 20th are SACKed: two duplicate ACKs, one
    // short of fast retransmit, and nothing new to send. The loss probe sends the 20th again,
    // which draws no new SACK, so without RACK only the retransmission timer repairs the hole,
    // 200 ms on. RACK marks the hole lost once a quarter of the minimum RTT has passed since the
    // SACKs (its timer rounds up to 1 ms and adds 2 ms, as Linux's does): fast recovery, no probe,
    // no timeout.
    // The probe would be due 2·SRTT + 2 ms after the last segment left, before the reordering
    // timer; Linux has one timer for both, and the reordering timer takes it.
    let (st, done) = twenty_segments(true, true, &[17]);
    assert_eq!((st.fast_retransmits, st.timeouts, st.tail_loss_probes, st.retransmissions), (1, 0, 0, 1), "{st:?}");
    assert!((3 * MS..4 * MS).contains(&done), "done after {} us", done / US);
    let (st, done) = twenty_segments(false, true, &[17]);
    assert_eq!((st.fast_retransmits, st.timeouts, st.tail_loss_probes), (0, 1, 1), "{st:?}");
    assert!(done > 200 * MS, "done after {} us", done / US);
}

#[test]
fn with_rack_a_tail_loss_needs_no_probe_when_a_later_segment_arrives() {
    // The 18th and 20th are lost: one segment (the 19th) SACKed. Without probes, RACK finds the
    // 18th lost by its timer, and the partial ACK of its retransmission sends the 20th: no
    // timeout. Without RACK either, the retransmission timer repairs both.
    let (st, done) = twenty_segments(true, false, &[17, 19]);
    assert_eq!((st.fast_retransmits, st.timeouts, st.tail_loss_probes, st.retransmissions), (1, 0, 0, 2), "{st:?}");
    assert!(done < 4 * MS, "done after {} us", done / US);
    let (st, done) = twenty_segments(false, false, &[17, 19]);
    assert_eq!((st.timeouts, st.tail_loss_probes), (1, 0), "{st:?}");
    assert!(done > 200 * MS, "done after {} us", done / US);
}

/// SACK blocks of one range, `[a, b)` in segments of `m` bytes.
fn sack_of(a: u64, b: u64, m: u64) -> SackBlocks {
    let mut blocks = SackBlocks::EMPTY;
    blocks.push(a * m, b * m);
    blocks
}

#[test]
fn the_reordering_timer_starts_recovery_on_the_sender_alone() {
    // Ten segments at 0; the first is lost, the second SACKed 100 µs later (the first RTT
    // sample, so the window is 25 µs). Not yet lost: the timer is armed, 1 ms (the wait rounded
    // up) and 2 ms later. When it fires the hole is lost and recovery resends it.
    let (mut s, m, mut stats) = ten_segments_sent_at_zero(true);
    s.on_ack(100 * US, 0, 1 << 30, false, true, &sack_of(1, 2, m), &mut stats);
    assert!(s.recovery.is_none());
    assert_eq!(s.rack.at, Some(100 * US + 3 * MS));
    s.on_reorder_timer(100 * US + 3 * MS - 1, &mut stats);
    assert!(s.recovery.is_none(), "not before its time");
    s.on_reorder_timer(100 * US + 3 * MS, &mut stats);
    assert!(s.recovery.is_some() && stats.fast_retransmits == 1);
    let rtx = s.next_data(u32::MAX).unwrap();
    assert!(rtx.retransmission && rtx.seq == 0, "{rtx:?}");
}

#[test]
fn a_retransmission_lost_again_goes_first_and_leaves_the_pipe() {
    // Ten segments at 0; the first is lost and four above it are SACKed at 100 µs: lost at once
    // (DupThresh SACKed, no reordering window), recovery resends it at 100 µs, and new data
    // (the 11th) leaves at 101 µs. At 201 µs the 6th to 11th are SACKed but not the
    // retransmission, sent before the 11th: it was lost again. It is not in flight any more
    // (`pipe` is 0: everything else is SACKed) and goes again first.
    let (mut s, m, mut stats) = ten_segments_sent_at_zero(true);
    s.on_ack(100 * US, 0, 1 << 30, false, true, &sack_of(1, 5, m), &mut stats);
    assert!(s.recovery.is_some());
    s.st.cwnd = 100 * m;
    let rtx = s.next_data(u32::MAX).unwrap();
    assert!(rtx.retransmission && rtx.seq == 0, "{rtx:?}");
    s.sent(100 * US, &rtx, &mut stats);
    s.app_end = 11 * m;
    let new = s.next_data(u32::MAX).unwrap();
    assert!(!new.retransmission && new.seq == 10 * m, "{new:?}");
    s.sent(101 * US, &new, &mut stats);
    s.on_ack(201 * US, 0, 1 << 30, false, true, &sack_of(1, 11, m), &mut stats);
    assert_eq!(s.pipe(), 0);
    let again = s.next_data(u32::MAX).unwrap();
    assert!(again.retransmission && again.seq == 0 && again.len as u64 == m, "{again:?}");
    s.sent(201 * US, &again, &mut stats);
    assert_eq!(s.pipe(), m, "the new retransmission is in flight");
    assert_eq!(stats.fast_retransmits, 1, "one recovery");
}

#[test]
fn a_retransmission_lost_again_is_repaired_without_the_timer_by_rack_or_without_it_by_the_old_rule() {
    // 400 segments; the 101st is lost, and so is its first retransmission. New data sent after
    // that retransmission is SACKed a round trip later: RACK (Linux since 4.4) finds it lost
    // then; with RACK off, the rule of the kernels before it (`tcp_mark_lost_retrans`) does. In
    // neither case does the retransmission timer fire.
    for rack in [true, false] {
        let c = TcpConfig { delayed_ack: None, rack, tail_loss_probe: false, ..cfg(1500) };
        let mss = c.mss as u64;
        let mut p = Pipe::new(&c, &c, 50 * US);
        let mut drops = 0;
        p.drop = Box::new(move |_, d, s| {
            let hit = d == Dir::AtoB && s.seq == 100 * mss && drops < 2;
            drops += hit as u32;
            hit
        });
        p.a.send(400 * mss);
        p.run(SECOND);
        assert_eq!(p.delivered[1], 400 * mss, "RACK {rack}");
        let st = *p.a.stats();
        assert_eq!((st.timeouts, st.retransmissions), (0, 2), "RACK {rack}: {st:?}");
        let done = p.sent(Dir::BtoA).last().unwrap().0;
        assert!(done < 5 * MS, "RACK {rack}: done after {} us", done / US);
    }
}
