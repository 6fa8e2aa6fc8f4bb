//! Two endpoints joined by a simple pipe (fixed one-way delay, optional rate, drop and CE-mark
//! rules), and the behaviours of the module documentation checked on it.

use super::cc::{Cc, CcState, CongestionControl, Cubic, Dctcp, CUBIC_BETA, CUBIC_C, DCTCP_ALPHA_ONE};
use super::*;
use crate::time::{LinkRate, MS, SECOND, US};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod cwnd_limited;
mod cwr;
mod hystart;
mod probes;
mod prr;
mod rack;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dir {
    AtoB,
    BtoA,
}

type Rule = Box<dyn FnMut(Time, Dir, &Segment) -> bool>;

struct Pipe {
    a: TcpEndpoint,
    b: TcpEndpoint,
    now: Time,
    delay: Time,
    rate: Option<LinkRate>,
    link_free: [Time; 2],
    queue: BinaryHeap<Reverse<(Time, u64, Dir, SegKey)>>,
    segs: Vec<Segment>,
    seq: u64,
    drop: Rule,
    mark: Rule,
    /// Every segment sent: (time, direction, segment).
    log: Vec<(Time, Dir, Segment)>,
    delivered: [u64; 2],
    max_flight: u64,
}

type SegKey = usize;

impl Pipe {
    fn new(a: &TcpConfig, b: &TcpConfig, delay: Time) -> Pipe {
        let (a, b) = TcpEndpoint::pair(a, b);
        Pipe {
            a,
            b,
            now: 0,
            delay,
            rate: None,
            link_free: [0; 2],
            queue: BinaryHeap::new(),
            segs: Vec::new(),
            seq: 0,
            drop: Box::new(|_, _, _| false),
            mark: Box::new(|_, _, _| false),
            log: Vec::new(),
            delivered: [0; 2],
            max_flight: 0,
        }
    }

    fn flush(&mut self) {
        for dir in [Dir::AtoB, Dir::BtoA] {
            loop {
                let ep = if dir == Dir::AtoB { &mut self.a } else { &mut self.b };
                let Some(mut seg) = ep.poll_transmit(self.now, u32::MAX) else { break };
                if dir == Dir::AtoB {
                    self.max_flight = self.max_flight.max(self.a.flight());
                }
                self.log.push((self.now, dir, seg));
                if (self.drop)(self.now, dir, &seg) {
                    continue;
                }
                if (self.mark)(self.now, dir, &seg) && seg.ecn != crate::packet::Ecn::NotEct {
                    seg.ecn = crate::packet::Ecn::Ce;
                }
                let i = dir as usize;
                let depart = match self.rate {
                    None => self.now,
                    Some(r) => {
                        let start = self.link_free[i].max(self.now);
                        self.link_free[i] = start + r.bytes_time(seg.len as u64 + 58);
                        self.link_free[i]
                    }
                };
                self.segs.push(seg);
                self.seq += 1;
                self.queue.push(Reverse((depart + self.delay, self.seq, dir, self.segs.len() - 1)));
            }
        }
    }

    /// Run events until `until` (or until nothing is pending).
    fn run(&mut self, until: Time) {
        self.flush();
        loop {
            let arrival = self.queue.peek().map(|Reverse((t, ..))| *t);
            let timers = [self.a.next_deadline(), self.b.next_deadline()];
            let next = [arrival, timers[0], timers[1]].into_iter().flatten().min();
            let Some(t) = next.filter(|&t| t <= until) else { break };
            self.now = t;
            if arrival == Some(t) {
                let Reverse((_, _, dir, k)) = self.queue.pop().unwrap();
                let seg = self.segs[k];
                let acts = match dir {
                    Dir::AtoB => self.b.on_segment(t, &seg),
                    Dir::BtoA => self.a.on_segment(t, &seg),
                };
                self.delivered[if dir == Dir::AtoB { 1 } else { 0 }] += acts.delivered;
            } else if timers[0] == Some(t) {
                self.a.on_timer(t);
            } else {
                self.b.on_timer(t);
            }
            self.flush();
        }
        self.now = until.max(self.now);
    }

    fn sent(&self, dir: Dir) -> impl Iterator<Item = &(Time, Dir, Segment)> {
        self.log.iter().filter(move |(_, d, _)| *d == dir)
    }
}

/// A segment without flags, ECN, SACK blocks or retransmission mark.
fn plain(seq: u64, ack: u64, len: u32, window: u32) -> Segment {
    Segment {
        seq,
        ack,
        len,
        window,
        flags: Flags::empty(),
        ecn: Ecn::NotEct,
        retransmission: false,
        sack: SackBlocks::EMPTY,
    }
}

#[test]
fn ranges_merge_on_insert_and_split_on_removal() {
    let mut r = vec![(10, 20), (30, 40)];
    insert_range(&mut r, 20, 25);
    assert_eq!(r, [(10, 25), (30, 40)]);
    remove_range(&mut r, 12, 15);
    assert_eq!(r, [(10, 12), (15, 25), (30, 40)]);
    remove_range(&mut r, 20, 35);
    assert_eq!(r, [(10, 12), (15, 20), (35, 40)]);
    remove_range(&mut r, 0, 100);
    assert!(r.is_empty());
    remove_range(&mut r, 5, 3);
    assert!(r.is_empty());
}

fn cfg(mtu: u32) -> TcpConfig {
    TcpConfig { rto_policy: RtoPolicy::Rfc6298, ..TcpConfig::linux(mtu) }
}

#[test]
fn mss_from_mtu() {
    assert_eq!(mss_for_mtu(1500, false), 1460);
    assert_eq!(mss_for_mtu(9000, false), 8960);
    assert_eq!(mss_for_mtu(1500, true), 1448);
    assert_eq!(mss_for_mtu(9000, true), 8948);
    assert_eq!(TcpConfig::linux(9000).mss, 8948);
    // Linux: a 6 MiB buffer needs shift 7 (6291456 >> 7 = 49152).
    assert_eq!(TcpConfig::linux(1500).window_scale(), 7);
}

#[test]
fn slow_start_doubles_the_window_every_round_trip() {
    // HyStart off: this pipe has no rate, so a round's ACKs come at one instant, and a round
    // that begins in the middle of one burst lasts into the next, a round trip later: an ACK
    // train of a whole RTT, which ends slow start (HyStart's tests use a pipe with a rate).
    for delack in [None, Some(DelayedAck { quickacks: 0, ..DelayedAck::default() })] {
        let c = TcpConfig { delayed_ack: delack, hystart: false, ..cfg(1500) };
        let mss = c.mss as u64;
        let rtt = 100 * US;
        let mut p = Pipe::new(&c, &c, rtt / 2);
        p.a.send(100 * 1024 * 1024);
        let mut seen = vec![];
        for k in 1..=5 {
            // Just after the k-th round trip's ACKs are in.
            p.run(k * rtt + US);
            seen.push(p.a.cwnd() / mss);
        }
        assert_eq!(seen, vec![20, 40, 80, 160, 320], "delayed ACK {delack:?}");
        assert_eq!(p.a.stats().retransmissions, 0);
    }
}

#[test]
fn fast_retransmit_after_three_duplicate_acks() {
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) };
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    let lost = 30 * mss;
    let mut dropped = false;
    p.drop = Box::new(move |_, d, s| {
        if d == Dir::AtoB && s.seq == lost && !dropped {
            dropped = true;
            return true;
        }
        false
    });
    p.a.send(200 * mss);
    p.run(20 * MS);
    assert_eq!(p.a.stats().fast_retransmits, 1);
    assert_eq!(p.a.stats().timeouts, 0);
    assert_eq!(p.a.stats().retransmissions, 1);
    assert_eq!(p.delivered[1], 200 * mss, "everything arrives");
    // The retransmission leaves right after the third duplicate ACK arrives.
    let dupacks: Vec<Time> = p.sent(Dir::BtoA).filter(|(_, _, s)| s.ack == lost && s.len == 0).map(|x| x.0).collect();
    let rtx = p.sent(Dir::AtoB).find(|(_, _, s)| s.retransmission).unwrap();
    assert_eq!(rtx.2.seq, lost);
    assert_eq!(rtx.0, dupacks[3] + 50 * US, "first ACK for `lost` is not a duplicate; the 4th one is the 3rd dup");
}

#[test]
fn entering_recovery_sets_ssthresh_and_inflates() {
    let c = TcpConfig { delayed_ack: None, sack: false, ..cfg(1500) }.with_cc(CcKind::NewReno);
    let mss = c.mss as u64;
    let (mut a, _b) = TcpEndpoint::pair(&c, &c);
    a.send(20 * mss);
    let mut segs = vec![];
    while let Some(s) = a.poll_transmit(0, u32::MAX) {
        segs.push(s);
    }
    assert_eq!(segs.len(), 10, "initial window of 10 segments");
    let ack = |n: u64| plain(0, n, 0, 1 << 20);
    a.on_segment(10, &ack(0));
    for i in 0..3 {
        a.on_segment(20 + i, &ack(0));
        assert_eq!(a.in_recovery(), i == 2, "dupack {}", i + 1);
    }
    // FlightSize 10 segments: ssthresh 5, cwnd ssthresh + 3.
    assert_eq!(a.ssthresh(), 5 * mss);
    assert_eq!(a.cwnd(), 8 * mss);
    let rtx = a.poll_transmit(30, u32::MAX).unwrap();
    assert!(rtx.retransmission && rtx.seq == 0);
    a.on_segment(40, &ack(0));
    assert_eq!(a.cwnd(), 9 * mss, "each further duplicate inflates by one MSS");
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_without_timeout() {
    let c = TcpConfig { delayed_ack: None, sack: false, ..cfg(1500) }.with_cc(CcKind::NewReno);
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    let holes = [40 * mss, 47 * mss];
    let mut first = [true, true];
    p.drop = Box::new(move |_, d, s| {
        for (i, h) in holes.iter().enumerate() {
            if d == Dir::AtoB && s.seq == *h && first[i] {
                first[i] = false;
                return true;
            }
        }
        false
    });
    p.a.send(300 * mss);
    p.run(50 * MS);
    let st = p.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts, st.retransmissions), (1, 0, 2), "{st:?}");
    let rtx: Vec<u64> = p.sent(Dir::AtoB).filter(|(_, _, s)| s.retransmission).map(|(_, _, s)| s.seq).collect();
    assert_eq!(rtx, holes.to_vec());
    // The partial ACK for the first hole points at the second.
    assert!(p.sent(Dir::BtoA).any(|(_, _, s)| s.ack == holes[1]));
    assert_eq!(p.delivered[1], 300 * mss);
}

/// 20 segments written on a pipe of 100 µs RTT with the given settings, the first transmission
/// of each segment at one of `lost` (segment numbers from 0) dropped: the sender's statistics
/// and when the receiver's last ACK left.
fn twenty_segments(rack: bool, tail_loss_probe: bool, lost: &[u64]) -> (TcpStats, Time) {
    let c = TcpConfig { delayed_ack: None, rack, tail_loss_probe, ..cfg(1500) };
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.drop = drop_once(lost.iter().map(|k| k * mss).collect());
    p.a.send(20 * mss);
    p.run(SECOND);
    assert_eq!(p.delivered[1], 20 * mss);
    (*p.a.stats(), p.sent(Dir::BtoA).last().unwrap().0)
}

/// Drops the first transmission of each segment starting at one of `holes` (A to B).
fn drop_once(holes: Vec<u64>) -> Rule {
    let mut first = vec![true; holes.len()];
    Box::new(move |_, d, s| {
        for (i, h) in holes.iter().enumerate() {
            if d == Dir::AtoB && s.seq == *h && first[i] {
                first[i] = false;
                return true;
            }
        }
        false
    })
}

#[test]
fn sack_recovers_several_holes_in_one_round_trip_where_newreno_takes_one_each() {
    // Eight segments of one window lost. NewReno repairs one hole per round trip (each partial
    // ACK reveals the next); with SACK (RFC 6675) the scoreboard shows them all: the first goes
    // at once, the other seven together one round trip later, when `pipe` has fallen to the
    // halved window. (RFC 6675's window rule alone: PRR, which spreads them over the first round
    // trip, is tested in `tests/prr.rs`.)
    let rtt = 100 * US;
    let finish = |sack: bool| {
        let c = TcpConfig { delayed_ack: None, sack, prr: false, ..cfg(1500) }.with_cc(CcKind::NewReno);
        let mss = c.mss as u64;
        let mut p = Pipe::new(&c, &c, rtt / 2);
        p.drop = drop_once((0..8).map(|k| (100 + 7 * k) * mss).collect());
        p.a.send(400 * mss);
        p.run(SECOND);
        let st = *p.a.stats();
        assert_eq!(p.delivered[1], 400 * mss);
        assert_eq!((st.fast_retransmits, st.timeouts, st.retransmissions), (1, 0, 8), "SACK {sack}: {st:?}");
        let rtx: Vec<Time> = p.sent(Dir::AtoB).filter(|(_, _, s)| s.retransmission).map(|x| x.0).collect();
        (rtx, p.sent(Dir::BtoA).last().unwrap().0)
    };
    let (with, done_sack) = finish(true);
    let (without, done_reno) = finish(false);
    assert!(with[7] - with[0] <= rtt && with[1] == with[7], "SACK: {with:?}");
    assert!(without[7] - without[0] >= 7 * rtt, "NewReno: one per round trip: {without:?}");
    assert!(done_reno >= done_sack + 3 * rtt, "SACK finishes {} us earlier", (done_reno - done_sack) / US);
}

/// A SACK sender with 20 segments out whose peer SACKed segments 2-3 and 6-9, after that ACK;
/// with the MSS, the SACK blocks and the statistics.
fn sender_with_two_sacked_ranges() -> (sender::Sender, u64, SackBlocks, TcpStats) {
    let c = TcpConfig { sack: true, ..cfg(1500) };
    let m = c.mss as u64;
    let mut s = sender::Sender::new(&c, false, 1 << 30, true);
    s.app_end = 20 * m;
    s.snd_nxt = 20 * m;
    s.snd_max = 20 * m;
    let mut b = SackBlocks::EMPTY;
    b.push(6 * m, 10 * m);
    b.push(2 * m, 4 * m);
    let mut stats = TcpStats::default();
    s.on_ack(0, 0, 1 << 30, false, true, &b, &mut stats);
    (s, m, b, stats)
}

#[test]
fn the_scoreboard_gives_pipe_and_the_lost_holes() {
    // 20 segments out; the peer SACKed 2-3 and 6-9 (in segments): with DupThresh 3, the holes
    // below 6 have more than 2 segments SACKed above them and are lost, 4-5 included; the hole
    // 10-19 is not.
    let (mut s, m, b, mut stats) = sender_with_two_sacked_ranges();
    assert_eq!(s.sacked_bytes(), 6 * m);
    // Not lost: 10-19 (10 segments). Lost and not retransmitted: 0-1, 4-5.
    assert_eq!(s.pipe(), 10 * m);
    // The ACK SACKed new data: a duplicate ACK, and the first hole is lost: recovery begins.
    assert!(s.recovery.is_some() && stats.fast_retransmits == 1);
    // The cumulative ACK to 3 segments (the first hole repaired): the scoreboard drops 2-3.
    s.on_ack(0, 3 * m, 1 << 30, false, true, &b, &mut stats);
    assert_eq!((s.snd_una, s.sacked_bytes()), (3 * m, 5 * m));
}

#[test]
fn the_next_send_offset_is_where_sack_recovery_sends() {
    // As in `the_scoreboard_gives_pipe_and_the_lost_holes`: 20 segments out, 2-3 and 6-9
    // SACKed, recovery begun.
    let (mut s, m, _, mut stats) = sender_with_two_sacked_ranges();
    // The first retransmission, at `snd_una`.
    let first = s.next_data(u32::MAX).unwrap();
    assert_eq!((first.seq, s.next_send_offset()), (0, 0));
    s.sent(0, &first, &mut stats);
    // With room in the window, rule 1 sends the rest of the first hole, below `snd_nxt`. A
    // framing layer (iWARP) sizes the segment from this offset, so it must be that one: sized
    // from `snd_nxt`, retransmissions were cut to the bytes left in an unrelated FPDU.
    s.st.cwnd = 20 * m;
    let next = s.next_data(u32::MAX).unwrap();
    assert!(next.retransmission && next.seq == m, "{next:?}");
    assert_eq!(s.next_send_offset(), next.seq);
}

#[test]
fn a_loss_at_the_recovery_point_is_fast_retransmitted_with_sack() {
    // The first segment sent after a recovery began is lost: the ACK that ends that recovery
    // stops at it, exactly at `recover`, and the segments behind it come back SACKed. With SACK
    // that is a new loss, repaired by fast retransmit, not by the 200 ms timer.
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) };
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    let (mut first_lost, mut rtx_seen, mut second_lost) = (false, false, None);
    p.drop = Box::new(move |_, d, s| {
        if d != Dir::AtoB || s.len == 0 {
            return false;
        }
        if !first_lost && s.seq == 30 * mss {
            first_lost = true;
            return true;
        }
        rtx_seen |= s.retransmission;
        if rtx_seen && !s.retransmission && second_lost.is_none() {
            second_lost = Some(s.seq);
            return true;
        }
        false
    });
    p.a.send(200 * mss);
    p.run(SECOND);
    let st = *p.a.stats();
    assert_eq!(p.delivered[1], 200 * mss);
    assert_eq!((st.fast_retransmits, st.timeouts), (2, 0), "{st:?}");
    let done = p.sent(Dir::BtoA).last().unwrap().0;
    assert!(done < 5 * MS, "done after {} us", done / US);
}

/// A sender (SACK on or off; Linux's defaults otherwise) with ten segments sent at time 0; with
/// the MSS and the statistics.
fn ten_segments_sent_at_zero(sack: bool) -> (sender::Sender, u64, TcpStats) {
    let c = TcpConfig { sack, ..cfg(1500) };
    let m = c.mss as u64;
    let mut s = sender::Sender::new(&c, false, 1 << 30, sack);
    let mut stats = TcpStats::default();
    s.app_end = 10 * m;
    while let Some(d) = s.next_data(u32::MAX) {
        s.sent(0, &d, &mut stats);
    }
    (s, m, stats)
}

#[test]
fn with_sack_only_new_sack_information_makes_a_duplicate_ack() {
    // RFC 6675 §2: with SACK, a duplicate ACK is one that SACKs new data. Three ACKs at
    // `snd_una` without SACK blocks (duplicate segments arriving, as after spurious
    // retransmissions) start no recovery; without SACK they are RFC 5681's three duplicates.
    for sack in [true, false] {
        let (mut s, _, mut stats) = ten_segments_sent_at_zero(sack);
        for k in 0..3 {
            s.on_ack(k, 0, 1 << 30, false, true, &SackBlocks::EMPTY, &mut stats);
        }
        assert_eq!(s.recovery.is_some(), !sack, "SACK {sack}");
    }
}

#[test]
fn receivers_report_the_latest_block_first() {
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) };
    let m = c.mss as u64;
    let (_a, mut b) = TcpEndpoint::pair(&c, &c);
    let seg = |seq: u64| plain(seq, 0, m as u32, 1 << 20);
    for k in [2, 6, 3, 9, 12] {
        b.on_segment(0, &seg(k * m));
    }
    let ack = b.poll_transmit(0, u32::MAX).unwrap();
    assert_eq!(ack.ack, 0);
    // Blocks 2-4, 6, 9 and 12; 12 arrived last; then the highest others, three in all beside
    // the timestamps option.
    let blocks: Vec<(u64, u64)> = ack.sack.iter().collect();
    assert_eq!(blocks, [(12 * m, 13 * m), (9 * m, 10 * m), (6 * m, 7 * m)]);
    assert_eq!(ack.sack.option_bytes(), 28);
    let no_ts = TcpConfig { timestamps: false, ..c };
    let (_a, mut b) = TcpEndpoint::pair(&no_ts, &no_ts);
    for k in [2, 6, 3, 9, 12] {
        b.on_segment(0, &seg(k * m));
    }
    assert_eq!(b.poll_transmit(0, u32::MAX).unwrap().sack.len(), 4, "four blocks without timestamps");
    let off = TcpConfig { sack: false, ..c };
    let (_a, mut b) = TcpEndpoint::pair(&c, &off);
    b.on_segment(0, &seg(2 * m));
    assert!(b.poll_transmit(0, u32::MAX).unwrap().sack.is_empty(), "not negotiated");
}

#[test]
fn rto_starts_at_one_second_backs_off_and_respects_the_minimum() {
    // The timer alone: a tail loss probe would take the first expiry.
    let c = TcpConfig { delayed_ack: None, tail_loss_probe: false, ..cfg(1500) };
    // Nothing ever arrives: the first RTO is the initial 1 s, then 2 s, 4 s.
    let mut p = Pipe::new(&c, &c, 10 * US);
    p.drop = Box::new(|_, d, _| d == Dir::AtoB);
    p.a.send(1000);
    p.run(7 * SECOND + MS);
    let times: Vec<Time> = p.sent(Dir::AtoB).map(|x| x.0).collect();
    assert_eq!(times, vec![0, SECOND, 3 * SECOND, 7 * SECOND]);
    assert_eq!(p.a.stats().timeouts, 3);

    // With RTT samples of 20 µs the RTO sits at the 200 ms minimum, then doubles.
    let mut p = Pipe::new(&c, &c, 10 * US);
    p.a.send(100_000);
    p.run(10 * MS);
    assert_eq!(p.a.rto(), 200 * MS);
    let t0 = p.now;
    p.drop = Box::new(|_, d, _| d == Dir::AtoB);
    p.a.send(1000);
    p.run(t0 + 2 * SECOND);
    let times: Vec<Time> = p.sent(Dir::AtoB).filter(|x| x.0 >= t0).map(|x| x.0 - t0).collect();
    assert_eq!(times, vec![0, 200 * MS, 600 * MS, 1400 * MS]);
    assert_eq!(p.a.cwnd(), c.mss as u64, "loss window after a timeout");

    // Linux's policy: the minimum floors 4·RTTVAR, so the RTO is SRTT + 200 ms.
    let lc = TcpConfig { delayed_ack: None, tail_loss_probe: false, ..TcpConfig::linux(1500) };
    let mut p = Pipe::new(&lc, &lc, 10 * US);
    p.a.send(100_000);
    p.run(10 * MS);
    assert_eq!(p.a.rto(), p.a.srtt().unwrap() + 200 * MS);
}

#[test]
fn window_scaling_off_caps_the_flight_at_64_kib() {
    let rtt = 500 * US;
    let run = |scaling: bool| {
        let c = TcpConfig { window_scaling: scaling, delayed_ack: None, ..cfg(9000) };
        let mut p = Pipe::new(&c, &c, rtt / 2);
        p.rate = Some(LinkRate::new(10_000_000_000));
        p.a.send(u64::MAX / 4);
        p.run(200 * MS);
        (p.max_flight, p.delivered[1] as f64 * 8.0 / 0.2)
    };
    let (flight, bps) = run(false);
    assert!(flight <= 65_535, "flight {flight}");
    // Throughput bound: one window per round trip, 65535·8/500 µs ≈ 1.05 Gb/s.
    let bound = 65_535.0 * 8.0 / (rtt as f64 / SECOND as f64);
    assert!(bps <= bound * 1.02 && bps > bound * 0.8, "{bps} vs bound {bound}");
    let (flight_ws, bps_ws) = run(true);
    assert!(flight_ws > 400_000, "scaling lets the window grow: {flight_ws}");
    assert!(bps_ws > 8e9, "10G link filled with scaling: {bps_ws}");
}

#[test]
fn delayed_acks_every_second_segment_after_quickacks_and_on_the_timer() {
    let c = cfg(1500);
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.a.send(216 * mss);
    p.run(50 * MS);
    let acks = p.sent(Dir::BtoA).filter(|(_, _, s)| s.len == 0).count();
    // 16 quick ACKs, then one per two full segments: 16 + 200/2.
    assert_eq!(acks, 116);
    assert_eq!(p.delivered[1], 216 * mss);

    // A lone small segment after the quick ACKs waits for the 40 ms timer.
    let t0 = p.now;
    p.a.send(100);
    p.run(t0 + 100 * MS);
    let last_ack = p.sent(Dir::BtoA).last().unwrap().0;
    assert_eq!(last_ack, t0 + 50 * US + 40 * MS);
}

#[test]
fn nagle_coalesces_small_writes() {
    let run = |nagle: bool| {
        let c = TcpConfig { nagle, ..cfg(1500) };
        let mut p = Pipe::new(&c, &c, 50 * US);
        for i in 0..1000 {
            p.run(i * US);
            p.a.send(100);
        }
        p.run(SECOND);
        let segs: Vec<u32> = p.sent(Dir::AtoB).map(|(_, _, s)| s.len).collect();
        assert_eq!(p.delivered[1], 100_000);
        segs
    };
    let off = run(false);
    assert_eq!(off.len(), 1000, "TCP_NODELAY: one segment per write");
    let on = run(true);
    assert!(on.len() < 150, "Nagle: {} segments", on.len());
    assert!(on.iter().all(|&l| l <= 1448));
    assert!(on.iter().filter(|&&l| l == 1448).count() > 40, "mostly full segments");
}

#[test]
fn nagle_sends_a_writes_tail_unless_a_small_segment_is_unacknowledged() {
    // Linux's Minshall variant: the partial tail of a bulk write goes at once, with full
    // segments still unacknowledged; a second partial segment waits for the first's ACK.
    let c = TcpConfig { delayed_ack: Some(DelayedAck { quickacks: 0, ..DelayedAck::default() }), ..cfg(1500) };
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.a.send(3 * mss + 100);
    p.run(US);
    let lens: Vec<u32> = p.sent(Dir::AtoB).map(|(_, _, s)| s.len).collect();
    assert_eq!(lens, [1448, 1448, 1448, 100], "the tail went with the full segments");
    p.a.send(10);
    p.run(2 * US);
    assert_eq!(p.sent(Dir::AtoB).count(), 4, "the 10 bytes wait behind the unacknowledged 100");
    // The receiver acknowledges every second full segment's worth: the third and the 100
    // bytes together, a round trip later; then the 10 bytes go.
    p.run(100 * MS);
    let (t, _, last) = *p.sent(Dir::AtoB).last().unwrap();
    assert_eq!((last.len, t), (10, 100 * US));
    assert_eq!(p.delivered[1], 3 * mss + 110);
}

#[test]
fn ecn_echo_reduces_once_per_window_and_cwr_clears_it() {
    let c = TcpConfig { ecn: true, delayed_ack: None, ..cfg(1500) }.with_cc(CcKind::NewReno);
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    let marked = 15 * mss;
    p.mark = Box::new(move |_, d, s| d == Dir::AtoB && s.seq == marked && !s.retransmission);
    p.a.send(100 * mss);
    p.run(50 * MS);
    assert_eq!(p.a.stats().ecn_reductions, 1);
    assert_eq!(p.a.stats().retransmissions, 0, "a mark is not a loss");
    assert!(p.sent(Dir::AtoB).all(|(_, _, s)| s.ecn == Ecn::Ect0), "ECT(0) on data");
    let cwr_at = p.sent(Dir::AtoB).position(|(_, _, s)| s.flags.contains(Flags::CWR));
    assert!(cwr_at.is_some(), "CWR sent");
    let ece: Vec<bool> = p.sent(Dir::BtoA).map(|(_, _, s)| s.flags.contains(Flags::ECE)).collect();
    let first = ece.iter().position(|&e| e).unwrap();
    let last = ece.iter().rposition(|&e| e).unwrap();
    assert!(ece[first..=last].iter().all(|&e| e), "ECE latched until CWR");
    assert!(last + 1 < ece.len() && !ece[last + 1], "and cleared after it");
}

#[test]
fn dctcp_alpha_tracks_the_marked_fraction() {
    let mut d = Dctcp::default();
    // One window of 100 kB per round, half the bytes marked: α → 1/2.
    let mut snd_una = 0;
    let mut expect = 1.0f64;
    // The first window [0, 100 kB); the next is always in flight behind it.
    d.on_ack_ecn(0, false, 0, 100_000);
    for round in 0..40 {
        let next_end = snd_una + 200_000;
        for i in 0..10 {
            snd_una += 10_000;
            d.on_ack_ecn(10_000, i % 2 == 0, snd_una, next_end);
        }
        expect = expect * 15.0 / 16.0 + 0.5 / 16.0;
        let got = d.alpha as f64 / DCTCP_ALPHA_ONE as f64;
        assert!((got - expect).abs() < 0.01, "round {round}: α {got} vs {expect}");
    }
    // The cut is proportional to α: cwnd·(1 − α/2).
    let mut st = CcState { cwnd: 1_000_000, ssthresh: u64::MAX, mss: 1000 };
    let alpha = d.alpha as u64;
    d.on_ecn(&mut st, 0, 0);
    assert_eq!(st.cwnd, 1_000_000 - 1_000_000 * alpha / 2048);
    assert!((st.cwnd as f64 / 1e6 - (1.0 - expect / 2.0)).abs() < 0.01, "α ≈ {expect} cuts α/2: {}", st.cwnd);
    let mut unmarked = Dctcp::default();
    unmarked.alpha = 0;
    let mut st2 = CcState { cwnd: 1_000_000, ssthresh: u64::MAX, mss: 1000 };
    unmarked.on_ecn(&mut st2, 0, 0);
    assert_eq!(st2.cwnd, 1_000_000, "α = 0: no cut");
}

#[test]
fn dctcp_end_to_end_marks_echo_exactly_and_cut_gently() {
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) }.with_cc(CcKind::Dctcp);
    let mss = c.mss as u64;
    let mut p = Pipe::new(&c, &c, 50 * US);
    p.rate = Some(LinkRate::new(10_000_000_000));
    // Mark every fourth segment.
    p.mark = Box::new(move |_, d, s| d == Dir::AtoB && (s.seq / mss) % 4 == 0);
    p.a.send(20_000 * mss);
    p.run(100 * MS);
    let alpha = p.a.dctcp_alpha().unwrap() as f64 / 1024.0;
    assert!((alpha - 0.25).abs() < 0.05, "α {alpha}");
    // ECE mirrors CE one to one: the ACK of every marked segment carries ECE.
    let echoed = p.sent(Dir::BtoA).filter(|(_, _, s)| s.flags.contains(Flags::ECE)).count() as u64;
    assert!(echoed >= p.b.stats().ce_received, "{echoed} ECE for {} CE", p.b.stats().ce_received);
    assert!(p.sent(Dir::BtoA).all(|(_, _, s)| s.ecn == Ecn::Ect0), "DCTCP ACKs are ECT");
    assert_eq!(p.a.stats().retransmissions, 0);
}

#[test]
fn cubic_window_follows_the_rfc_9438_curve() {
    let mss = 1000;
    let mut c = Cubic::default();
    let mut st = CcState { cwnd: 100 * mss, ssthresh: u64::MAX, mss };
    let flight = st.cwnd;
    c.on_loss(&mut st, 0, flight);
    st.cwnd = st.ssthresh;
    assert_eq!(st.cwnd, 70 * mss, "β = 0.7");
    // A long RTT keeps Reno's estimate (α/RTT segments per second) below the curve.
    let rtt = 250 * MS;
    let k = ((100.0 * (1.0 - CUBIC_BETA)) / CUBIC_C).cbrt();
    // ACK one segment at a time, cwnd segments per round trip.
    let mut now = 0;
    let mut checks = 0;
    let mut next_check = SECOND;
    while now < 8 * SECOND {
        let w = st.cwnd / mss;
        now += rtt / w;
        c.on_ack(&mut st, now, mss, rtt);
        if now >= next_check {
            let t = now as f64 / SECOND as f64;
            let want = CUBIC_C * (t - k).powi(3) + 100.0;
            let got = st.cwnd as f64 / mss as f64;
            // cwnd aims at W(t + RTT) and gets there within a round trip.
            let lead = CUBIC_C * (t + 0.25 - k).powi(3) + 100.0;
            let w_est = 70.0 + 3.0 * 0.3 / 1.7 * t / 0.25;
            assert!(w_est < want, "the cubic region, not Reno's");
            assert!(got >= want - 1.5 && got <= lead + 1.5, "t {t:.2}: cwnd {got:.1}, W(t) {want:.1}");
            checks += 1;
            next_check += SECOND;
        }
    }
    assert_eq!(checks, 8);
    assert!((c.k - k).abs() < 1e-9, "K = cbrt(W_max(1-β)/C)");
    // Plateau near W_max around t = K, and growth beyond it afterwards.
    assert!(st.cwnd > 100 * mss);
}

#[test]
fn cubic_fast_convergence_and_reno_friendly_region() {
    let mss = 1000;
    let mut c = Cubic::default();
    let mut st = CcState { cwnd: 100 * mss, ssthresh: u64::MAX, mss };
    c.on_loss(&mut st, 0, 0);
    st.cwnd = 80 * mss; // a second loss below the previous W_max
    c.on_loss(&mut st, 0, 0);
    assert!((c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9, "W_max = cwnd(1+β)/2: {}", c.w_max);
    // With a tiny RTT, Reno's estimate outgrows the cubic curve right after a reduction.
    let mut c2 = Cubic::default();
    let mut st2 = CcState { cwnd: 100 * mss, ssthresh: u64::MAX, mss };
    c2.on_loss(&mut st2, 0, 0);
    st2.cwnd = st2.ssthresh;
    let rtt = 10 * US;
    let mut now = 0;
    for _ in 0..(70 * 20) {
        now += rtt / 70;
        c2.on_ack(&mut st2, now, mss, rtt);
    }
    // 20 round trips at α = 3(1-β)/(1+β) ≈ 0.53 segments each.
    let grown = (st2.cwnd - 70 * mss) as f64 / mss as f64;
    assert!((grown - 20.0 * 0.529).abs() < 1.5, "{grown}");
}

#[test]
fn congestion_control_dispatch_matches_direct_calls() {
    let mut st1 = CcState { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
    let mut st2 = st1;
    let mut a = Cc::new(CcKind::NewReno, true);
    let mut b = super::cc::NewReno::default();
    for i in 0..100 {
        a.on_ack(&mut st1, i, 1000, 1);
        b.on_ack(&mut st2, i, 1000, 1);
    }
    assert_eq!(st1, st2);
    // 100 kB acknowledged in congestion avoidance from 10 kB: about 100/10..20 MSS.
    assert!(st1.cwnd > 14_000 && st1.cwnd < 20_000, "{}", st1.cwnd);
}

#[test]
fn out_of_order_data_is_held_and_delivered_when_the_hole_fills() {
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) };
    let (_, mut b) = TcpEndpoint::pair(&c, &c);
    let seg = |seq: u64, len: u32| plain(seq, 0, len, 65_535);
    assert_eq!(b.on_segment(0, &seg(1000, 1000)).delivered, 0);
    let w = b.poll_transmit(0, 0).unwrap();
    assert_eq!(w.ack, 0, "duplicate ACK for the hole");
    let full = (c.receive_buffer >> 7) << 7;
    assert_eq!(w.window, full, "the first window is the buffer");
    let w2 = b.poll_transmit(0, 0);
    assert!(w2.is_none(), "one ACK per arrival");
    assert_eq!(b.on_segment(1, &seg(3000, 500)).delivered, 0);
    assert_eq!(b.poll_transmit(1, 0).unwrap().window, full, "held bytes do not shrink the window's right edge");
    assert_eq!(b.on_segment(2, &seg(0, 1000)).delivered, 2000);
    assert_eq!(b.on_segment(3, &seg(2000, 1000)).delivered, 1500);
    assert_eq!(b.rcv_nxt(), 3500);
    assert_eq!(b.poll_transmit(3, 0).unwrap().ack, 3500);
}

#[test]
fn out_of_order_intervals_merge_in_place() {
    let c = TcpConfig { delayed_ack: None, ..cfg(1500) };
    let (_, mut b) = TcpEndpoint::pair(&c, &c);
    let seg = |seq: u64, len: u32| plain(seq, 0, len, 65_535);
    // Holes at [0,100), [200,300), [400,500); then fill the middle ones out of order.
    for (s, l) in [(100, 100), (300, 100), (500, 100), (250, 60), (200, 50), (450, 60)] {
        assert_eq!(b.on_segment(0, &seg(s, l)).delivered, 0);
    }
    // [100, 600) is one interval now, except [400, 450).
    assert_eq!(b.on_segment(1, &seg(0, 100)).delivered, 400);
    assert_eq!(b.on_segment(2, &seg(400, 50)).delivered, 200);
    assert_eq!(b.rcv_nxt(), 600);
}
