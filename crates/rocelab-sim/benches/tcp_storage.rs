//! Benchmarks of the engine-independent TCP and storage state machines (criterion), the per-event
//! costs the engine will pay once they are wired in:
//!
//! * `tcp/bulk-64MiB-10G`: one CUBIC connection moving 64 MiB over a 10 Gb/s, 50 µs pipe with
//!   delayed ACKs; the segments (data and ACKs) per second the two endpoints process.
//! * `exchange/<protocol>/<op>-<size>`: writing one IO's wire exchange.
//! * `histogram/record`: recording one latency.
//! * `target/submit-complete`: one IO through the FlashArray profile.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rocelab_sim::storage::protocol::{Exchange, Protocol, ProtocolKind};
use rocelab_sim::storage::target::{Target, TargetIo, TargetProfile};
use rocelab_sim::storage::{IoOp, LatencyHistogram};
use rocelab_sim::tcp::{TcpConfig, TcpEndpoint};
use rocelab_sim::time::{LinkRate, Time, US};
use std::collections::VecDeque;

/// Move `bytes` from a to b; returns the segments handled.
fn bulk(bytes: u64) -> u64 {
    let c = TcpConfig::linux(1500);
    let (mut a, mut b) = TcpEndpoint::pair(&c, &c);
    let rate = LinkRate::new(10_000_000_000);
    let delay: Time = 50 * US;
    let mut to_b: VecDeque<(Time, rocelab_sim::tcp::Segment)> = VecDeque::new();
    let mut to_a: VecDeque<(Time, rocelab_sim::tcp::Segment)> = VecDeque::new();
    let mut link_free = 0;
    let mut now = 0;
    let mut delivered = 0;
    let mut segments = 0;
    a.send(bytes);
    while delivered < bytes {
        while let Some(s) = a.poll_transmit(now, u32::MAX) {
            link_free = link_free.max(now) + rate.bytes_time(s.len as u64 + 78);
            to_b.push_back((link_free + delay, s));
        }
        while let Some(s) = b.poll_transmit(now, u32::MAX) {
            to_a.push_back((now + delay, s));
        }
        let next = [to_b.front().map(|x| x.0), to_a.front().map(|x| x.0), a.next_deadline(), b.next_deadline()]
            .into_iter()
            .flatten()
            .min()
            .expect("something pending");
        now = next;
        if to_b.front().is_some_and(|x| x.0 == now) {
            let (_, s) = to_b.pop_front().unwrap();
            delivered += b.on_segment(now, &s).delivered;
        } else if to_a.front().is_some_and(|x| x.0 == now) {
            let (_, s) = to_a.pop_front().unwrap();
            a.on_segment(now, &s);
        } else {
            a.on_timer(now);
            b.on_timer(now);
        }
        segments += 1;
    }
    segments
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("tcp");
    g.sample_size(10);
    let segs = bulk(64 << 20);
    println!("tcp/bulk-64MiB-10G: {segs} segments per run");
    g.throughput(Throughput::Elements(segs));
    g.bench_function("bulk-64MiB-10G", |b| b.iter(|| bulk(black_box(64 << 20))));
    g.finish();

    let mut g = c.benchmark_group("exchange");
    let mut x = Exchange::new();
    for kind in [
        ProtocolKind::NvmeRdma,
        ProtocolKind::NvmeTcp,
        ProtocolKind::Iscsi,
        ProtocolKind::SmbDirect,
        ProtocolKind::NfsRdma,
    ] {
        let p = Protocol::default_for(kind);
        for (op, bytes, name) in [(IoOp::Read, 4096, "read-4k"), (IoOp::Write, 524_288, "write-512k")] {
            g.bench_function(format!("{kind:?}/{name}"), |b| {
                b.iter(|| {
                    p.exchange(op, black_box(bytes), &mut x);
                    x.steps().len()
                })
            });
        }
    }
    g.finish();

    let mut h = LatencyHistogram::new();
    let mut v = 1u64;
    c.bench_function("histogram/record", |b| {
        b.iter(|| {
            v = v.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            h.record(black_box(v >> 40));
        })
    });

    let mut t = Target::new(TargetProfile::pure_flasharray_x(), 1);
    let mut now = 0;
    let mut id = 0;
    c.bench_function("target/submit-complete", |b| {
        b.iter(|| {
            id += 1;
            now += 10 * US;
            let s = t.submit(now, TargetIo { id, op: IoOp::Write, bytes: 4096, random: true });
            t.complete(s.map_or(now, |s| s.done_at))
        })
    });
}

criterion_group!(tcp_storage, benches);
criterion_main!(tcp_storage);
