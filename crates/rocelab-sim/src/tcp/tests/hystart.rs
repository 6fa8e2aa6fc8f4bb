//! HyStart ([`crate::tcp::hystart`]) in CUBIC's slow start, on the pipe of the parent module.

use super::*;

/// A drop rule for the A-to-B direction of a pipe of `rate`: a tail-drop queue that holds at
/// most `limit` of waiting time (the pipe's own departure rule, repeated).
fn tail_drop(rate: LinkRate, limit: Time) -> Rule {
    let mut free: Time = 0;
    Box::new(move |now, dir, seg| {
        if dir != Dir::AtoB {
            return false;
        }
        let start = free.max(now);
        if start - now > limit {
            return true;
        }
        free = start + rate.bytes_time(seg.len as u64 + 58);
        false
    })
}

/// A 10 Gb/s pipe of 100 µs RTT (a bandwidth-delay product of 125,000 bytes, 86 segments) whose
/// queue holds 100 µs (another 125,000 bytes); `segments` sent with HyStart on or off, SACK on
/// or off. The sender's ssthresh when all is delivered, and its statistics.
fn bulk(segments: u64, hystart: bool, sack: bool) -> (u64, TcpStats) {
    let c = TcpConfig { delayed_ack: None, hystart, sack, ..cfg(1500) };
    let mss = c.mss as u64;
    let rate = LinkRate::new(10_000_000_000);
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(rate);
    p.drop = tail_drop(rate, 100 * US);
    p.a.send(segments * mss);
    p.run(SECOND);
    assert_eq!(p.delivered[1], segments * mss);
    (p.a.ssthresh(), *p.a.stats())
}

#[test]
fn hystart_ends_slow_start_before_the_queue_overflows() {
    const N: u64 = 1500;
    for sack in [true, false] {
        // Standard slow start doubles the window until the queue overflows.
        let (_, st) = bulk(N, false, sack);
        assert!(st.retransmissions > 0 && st.fast_retransmits > 0, "SACK {sack}, HyStart off: {st:?}");
        assert_eq!(st.hystart_train_detect + st.hystart_delay_detect, 0);
        // HyStart sees the round's ACK train pass half the minimum RTT (plus its TSO cushion)
        // and sets ssthresh to the window then: nothing is lost. Without SACK (no RACK log of
        // send times) the train rule works the same; RTT samples come once a round trip.
        let (ssthresh, st) = bulk(N, true, sack);
        assert_eq!((st.retransmissions, st.timeouts), (0, 0), "SACK {sack}, HyStart on: {st:?}");
        assert_eq!((st.hystart_train_detect, st.hystart_delay_detect), (1, 0), "SACK {sack}");
        // The exit: at least half the bandwidth-delay product (the train is at least half an
        // RTT of ACKs at the bottleneck's rate), at most what the path holds (pipe and queue).
        let mss = cfg(1500).mss as u64;
        assert!((62_500..=250_000).contains(&ssthresh), "SACK {sack}: exit at {} segments", ssthresh / mss);
    }
}

#[test]
fn hystart_does_not_run_in_reno_or_below_sixteen_segments() {
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) }.with_cc(CcKind::NewReno);
    let rate = LinkRate::new(10_000_000_000);
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(rate);
    p.drop = tail_drop(rate, 100 * US);
    p.a.send(10_000 * c.mss as u64);
    p.run(SECOND);
    let st = p.a.stats();
    assert!(st.retransmissions > 0 && st.hystart_train_detect + st.hystart_delay_detect == 0, "{st:?}");
    // A window that never reaches 16 segments: 15 at a time on a CUBIC connection.
    let c = TcpConfig { delayed_ack: None, initial_window: 15, ..cfg(1500) };
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(rate);
    for k in 1..=50 {
        p.a.send(15 * c.mss as u64);
        p.run(k * MS);
    }
    let st = p.a.stats();
    assert_eq!(st.hystart_train_detect + st.hystart_delay_detect, 0, "{st:?}");
    assert_eq!(p.a.ssthresh(), u64::MAX);
}

#[test]
fn a_timeout_forgets_w_max_and_restarts_hystart() {
    let mss = 1448;
    let mut c = Cubic::new(true);
    let mut st = CcState { cwnd: 100 * mss, ssthresh: u64::MAX, mss };
    c.hystart.as_mut().unwrap().found = Some(crate::tcp::hystart::HyStartExit::AckTrain);
    c.on_loss(&mut st, MS, 100 * mss);
    assert_eq!(c.w_max, 100.0);
    c.on_timeout(&mut st, MS, 500 * mss);
    // RFC 9438 §4.8: the first congestion avoidance after a timeout starts from K = 0 with W_max
    // the window then, as Linux's `cubictcp_state` clearing its state gives.
    assert_eq!(c.w_max, 0.0);
    assert_eq!(c.hystart.unwrap().found, None);
    st.cwnd = st.ssthresh;
    c.on_ack(&mut st, 2 * MS, mss, 100 * US);
    assert_eq!(c.k, 0.0);
    assert_eq!(c.w_max, 70.0);
}
