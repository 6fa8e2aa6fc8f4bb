//! The target model alone: distributions, slots, ceilings, and each calibrated profile against
//! the figures it was fitted to.

use super::*;
use crate::time::SECOND;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[test]
fn lognormal_matches_its_mean_and_p99() {
    let d = ServiceTime::lognormal(100 * US, 300 * US).unwrap();
    let mut rng = Rng::new(9);
    let mut v: Vec<Time> = (0..200_000).map(|_| d.sample(&mut rng)).collect();
    let mean = v.iter().sum::<Time>() as f64 / v.len() as f64;
    v.sort_unstable();
    let p99 = v[v.len() * 99 / 100] as f64;
    assert!((mean / (100 * US) as f64 - 1.0).abs() < 0.02, "mean {mean}");
    assert!((p99 / (300 * US) as f64 - 1.0).abs() < 0.03, "p99 {p99}");
    assert!(ServiceTime::lognormal(100, 50).is_err(), "p99 below the mean");
    assert!(ServiceTime::lognormal(100, 2000).is_err(), "tail too heavy for a lognormal");
    assert_eq!(ServiceTime::lognormal(US, US).unwrap().sample(&mut rng), US, "σ = 0");
}

#[test]
fn uniform_and_fixed() {
    let mut rng = Rng::new(1);
    let u = ServiceTime::Uniform { min: 10, max: 20 };
    let draws: Vec<Time> = (0..1000).map(|_| u.sample(&mut rng)).collect();
    assert!(draws.iter().all(|&x| (10..=20).contains(&x)));
    assert!(draws.contains(&10) && draws.contains(&20));
    assert_eq!(u.mean(), 15);
    assert_eq!(ServiceTime::Fixed(7).sample(&mut rng), 7);
}

fn fixed_profile(lat: Time, concurrency: u32, ceiling: Option<u64>) -> TargetProfile {
    TargetProfile::fixed(lat, concurrency, ceiling)
}

fn io(id: u64, op: IoOp, bytes: u32) -> TargetIo {
    TargetIo { id, op, bytes, random: true }
}

#[test]
fn concurrency_queues_the_rest_in_order() {
    let mut t = Target::new(fixed_profile(100 * US, 3, None), 1);
    let started: Vec<Option<Started>> = (0..5).map(|i| t.submit(0, io(i, IoOp::Read, 4096))).collect();
    assert_eq!(started.iter().flatten().count(), 3);
    assert_eq!((t.in_service(), t.queued()), (3, 2));
    assert_eq!(started[0], Some(Started { id: 0, done_at: 100 * US }));
    assert_eq!(t.complete(100 * US), Some(Started { id: 3, done_at: 200 * US }));
    assert_eq!(t.complete(100 * US), Some(Started { id: 4, done_at: 200 * US }));
    assert_eq!(t.complete(100 * US), None);
    assert_eq!(t.stats().peak_queue, 2);
}

#[test]
fn a_ceiling_paces_bytes() {
    // 8 Gb/s = 1 GB/s: ten 1 MB writes at once finish 1 ms apart.
    let mut t = Target::new(fixed_profile(10 * US, 100, Some(8_000_000_000)), 1);
    let done: Vec<Time> = (0..10).map(|i| t.submit(0, io(i, IoOp::Write, 1_000_000)).unwrap().done_at).collect();
    assert_eq!(done, (1..=10).map(|k| k * MS).collect::<Vec<_>>());
    // Reads have their own pipe.
    assert_eq!(t.submit(0, io(99, IoOp::Read, 1_000_000)).unwrap().done_at, MS);
}

/// Closed loop: `n` IOs outstanding; each completion is followed after `rtt` (network and host
/// stack) by a new IO. Returns (mean latency seen by the host, bytes per second).
fn closed_loop(profile: TargetProfile, n: u64, op: IoOp, bytes: u32, rtt: Time, until: Time) -> (f64, f64) {
    let mut t = Target::new(profile, 5);
    let mut heap: BinaryHeap<Reverse<(Time, u8, u64)>> = BinaryHeap::new();
    let mut issued = vec![0; n as usize];
    for id in 0..n {
        heap.push(Reverse((rtt / 2, 0, id)));
    }
    let (mut count, mut sum, mut done_bytes) = (0u64, 0u128, 0u64);
    let warm = until / 5;
    while let Some(Reverse((now, kind, id))) = heap.pop() {
        if now > until {
            break;
        }
        if kind == 0 {
            // Arrival at the target.
            if let Some(s) = t.submit(now, TargetIo { id, op, bytes, random: true }) {
                heap.push(Reverse((s.done_at, 1, s.id)));
            }
        } else {
            if let Some(s) = t.complete(now) {
                heap.push(Reverse((s.done_at, 1, s.id)));
            }
            let seen = now + rtt / 2;
            if seen > warm && seen <= until {
                count += 1;
                sum += (seen - issued[id as usize]) as u128;
                done_bytes += bytes as u64;
            }
            issued[id as usize] = seen;
            heap.push(Reverse((seen + rtt / 2, 0, id)));
        }
    }
    let secs = (until - warm) as f64 / SECOND as f64;
    (sum as f64 / count as f64, done_bytes as f64 / secs)
}

#[test]
fn s2d_node_reproduces_the_posts_tables() {
    // 18 VMs per node at QD 1, 2, 4, 8; the post's iWARP column.
    let four_k = [(1, 0.253), (2, 0.284), (4, 0.367), (8, 0.465)];
    for (qd, ms) in four_k {
        let (lat, _) = closed_loop(TargetProfile::s2d_node(), 18 * qd, IoOp::Read, 4096, 15 * US, 200 * MS);
        let got = lat / MS as f64;
        assert!((got / ms - 1.0).abs() < 0.08, "4K QD{qd}: {got:.3} ms vs {ms}");
    }
    let big = [(1, 1.1, 33.0), (2, 1.9, 39.7), (4, 3.7, 41.0), (8, 7.4, 41.4)];
    for (qd, ms, gbs) in big {
        let (lat, bw) = closed_loop(TargetProfile::s2d_node(), 18 * qd, IoOp::Read, 524_288, 15 * US, 400 * MS);
        let got = lat / MS as f64;
        let four_nodes = 4.0 * bw / 1e9;
        assert!((got / ms - 1.0).abs() < 0.08, "512K QD{qd}: {got:.2} ms vs {ms}");
        assert!((four_nodes / gbs - 1.0).abs() < 0.08, "512K QD{qd}: {four_nodes:.1} GB/s vs {gbs}");
    }
}

#[test]
fn flasharray_is_limited_at_the_papers_ceilings() {
    let (_, read) = closed_loop(TargetProfile::pure_flasharray_x(), 64, IoOp::Read, 524_288, 20 * US, 200 * MS);
    let (_, write) = closed_loop(TargetProfile::pure_flasharray_x(), 64, IoOp::Write, 524_288, 20 * US, 200 * MS);
    assert!((read / 1e9 - 12.5).abs() < 0.2, "read {} GB/s", read / 1e9);
    assert!((write / 1e9 - 4.4).abs() < 0.1, "write {} GB/s", write / 1e9);
    // QD 1 4K: the service times (write more consistent than read).
    let (w, _) = closed_loop(TargetProfile::pure_flasharray_x(), 1, IoOp::Write, 4096, 0, 500 * MS);
    let (r, _) = closed_loop(TargetProfile::pure_flasharray_x(), 1, IoOp::Read, 4096, 0, 500 * MS);
    assert!((w / US as f64 - 60.0).abs() < 3.0, "write {w}");
    assert!((r / US as f64 - 120.0).abs() < 8.0, "read {r}");
}

#[test]
fn disks_seek_for_random_io_only() {
    let p = TargetProfile::dell_ps6110xv();
    let mut t = Target::new(p, 3);
    let mut random = 0;
    let mut seq = 0;
    // One IO at a time, 10 ms apart (below the ceiling).
    for i in 0..2000 {
        let now = i * 10 * MS;
        let r = t.submit(now, TargetIo { id: i, op: IoOp::Read, bytes: 8192, random: true }).unwrap().done_at;
        t.complete(r);
        random += r - now;
        let now = now + 5 * MS;
        let s = t.submit(now, TargetIo { id: i, op: IoOp::Read, bytes: 8192, random: false }).unwrap().done_at;
        t.complete(s);
        seq += s - now;
    }
    let (random, seq) = (random as f64 / 2000.0 / MS as f64, seq as f64 / 2000.0 / MS as f64);
    // 0.2 ms + 8 KiB at 150 MB/s (0.055 ms) + 2 ms rotation + 3.5 ms seek.
    assert!((random - 5.755).abs() < 0.1, "random {random} ms");
    assert!((seq - 0.255).abs() < 0.01, "sequential {seq} ms");
}

#[test]
fn profiles_by_name() {
    for n in TargetProfile::NAMES {
        assert_eq!(TargetProfile::by_name(n).unwrap().name, n);
    }
    assert!(TargetProfile::by_name("floppy").is_none());
}
