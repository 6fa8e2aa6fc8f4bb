//! The window grows only while it limits the sender (Linux's `tcp_is_cwnd_limited`), on the pipe
//! of the parent module.

use super::*;

/// A sender with an initial window of 10 segments that writes `segments` every millisecond
/// (each write acknowledged long before the next: the pipe's RTT is 100 µs), `writes` times;
/// its window at the end, in segments.
fn window_after_writes(segments: u64, writes: u64) -> u64 {
    let c = TcpConfig { delayed_ack: None, initial_window: 10, ..cfg(1500) };
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(LinkRate::new(10_000_000_000));
    for k in 1..=writes {
        p.a.send(segments * mss);
        p.run(k * MS);
    }
    assert_eq!(p.delivered[1], segments * writes * mss);
    assert_eq!(p.a.stats().retransmissions, 0);
    p.a.cwnd() / mss
}

#[test]
fn an_application_limited_senders_window_does_not_grow() {
    // Two segments a millisecond never fill 10: the window stays at 10 (before, slow start
    // added every segment acknowledged, 200 over the run).
    assert_eq!(window_after_writes(2, 100), 10);
}

#[test]
fn in_slow_start_the_window_grows_to_twice_the_most_in_flight() {
    // Eight segments at a time do not fill 10 either, but slow start may take the window to
    // twice what was in flight (16), so that it can serve a flight that doubles, and no further.
    assert_eq!(window_after_writes(8, 100), 16);
    // Twelve fill 10: the window grows while full, to 2 × 12 once no longer full.
    assert_eq!(window_after_writes(12, 100), 24);
}
