//! The default number of threads, the memory estimate of several threads, and the one-barrier
//! windows' figures.

use super::*;
use crate::bench::results_digest;
use crate::time::{NS, US};
use crate::topology::FabricDefaults;
use crate::traffic::{FlowClass, FlowSpec};

const G100: u64 = 100_000_000_000;

/// Four leaves of four hosts under two spines (22 nodes), each host sending to a host of the
/// next leaf; spine links of 3 µs, so that a window of the threads holds enough work for the
/// default to take them ([`MIN_FRAMES_A_WINDOW`]).
fn fabric(buffer_bytes: u64) -> (crate::topology::Fabric, Traffic) {
    let mut d = FabricDefaults::lossless(3, 100_000);
    d.switch.buffer.size_bytes = buffer_bytes;
    let f = super::tests::leaf_spine_fabric_with(&d, 3 * US);
    let mut t = Traffic::new();
    for (i, &h) in f.hosts.iter().enumerate() {
        t.push(FlowSpec::sized(h, f.hosts[(i + 4) % 16], FlowClass::roce(3, 26), 100_000));
    }
    (f, t)
}

#[test]
fn the_default_is_every_core_up_to_the_parts_when_the_run_can_use_them() {
    let (f, t) = fabric(1 << 20);
    let config = SimConfig::new(1, 50 * US);
    let d = default_threads_on(&f.spec, &t, &config, 2);
    assert_eq!(d, DefaultThreads { threads: 2, why_one: None });
    // No more threads than nodes to cut the fabric into.
    let nodes = f.spec.nodes.len();
    assert_eq!(default_threads_on(&f.spec, &t, &config, 1024).threads, nodes);
    // One core: one thread, nothing to explain.
    assert_eq!(default_threads_on(&f.spec, &t, &config, 1), DefaultThreads { threads: 1, why_one: None });
    // The default gives the results of one thread.
    let one = run_threads(&f.spec, &t, &config, 1).expect("one thread");
    let default = run_threads(&f.spec, &t, &config, d.threads).expect("the default");
    assert_eq!(results_digest(&default), results_digest(&one));
}

#[test]
fn the_default_falls_back_to_one_thread_naming_what_cannot_run_on_more() {
    let (f, mut t) = fabric(1 << 20);
    let config = SimConfig::new(1, 50 * US);
    // The ns-3 simulator's ECN draws (one stream for the whole run): one thread by default,
    // the feature named; asked for explicitly, two threads are refused.
    let mut ns3 = config;
    ns3.ecn_draws = crate::sim::EcnDraws::Ns3 { first_stream: 0, run: 1 };
    let why = "the ns-3 simulator's ECN draws and event order (hpcc-compat's ecn_random: hpcc)";
    assert_eq!(default_threads_on(&f.spec, &t, &ns3, 2), DefaultThreads { threads: 1, why_one: Some(why.into()) });
    let refused = run_threads(&f.spec, &t, &ns3, 2).unwrap_err().to_string();
    assert!(refused.contains(why) && refused.contains("--threads 1"), "{refused}");
    // RDMA queue pairs in a run that stops when its flows are done take both cores.
    t.flows[0] = t.flows[0].rc(crate::rdma::RdmaOp::Write);
    let mut stop = config;
    stop.stop_when_done = true;
    assert_eq!(default_threads_on(&f.spec, &t, &stop, 2), DefaultThreads { threads: 2, why_one: None });
}

/// The estimate of a run on `threads` threads, from its refusal under a limit of one byte.
fn estimated(f: &crate::topology::Fabric, t: &Traffic, config: &SimConfig, threads: usize) -> u64 {
    let refused = crate::sim::estimate::with_run_limit(1, || run_threads(&f.spec, t, config, threads).unwrap_err());
    match refused {
        SimError::MemoryTooLarge { estimated_bytes, .. } => estimated_bytes,
        e => panic!("{e:?}"),
    }
}

#[test]
fn the_frames_the_switches_buffer_count_once_whatever_the_threads() {
    // Switch buffers of 8 GB each: the packets they could hold are estimated at about 4 GiB,
    // under the 20 GiB limit; a frame is held by the part whose switch buffers it, so sixteen
    // threads hold them once between them, not one copy each.
    let (f, t) = fabric(8_000_000_000);
    let config = SimConfig::new(1, 10 * US);
    let (one, sixteen) = (estimated(&f, &t, &config, 1), estimated(&f, &t, &config, 16));
    assert!(one > 4 << 30 && sixteen < 2 * one, "one thread {one} B, sixteen {sixteen} B");
    let text =
        crate::sim::estimate::with_run_limit(1, || run_threads(&f.spec, &t, &config, 16).unwrap_err()).to_string();
    assert!(
        text.contains("the run on 16 threads, holding once (routing tables (")
            && text.contains("PFC timers and ECN draws of "),
        "{text}"
    );
    let copies = &text[text.find(") and on each thread its own copy of (").expect("the copies named")..];
    assert!(copies.contains(" nodes and ") && !copies.contains("switch buffers hold"), "{text}");
    // The switches' buffer accounting, eight 64-byte MMU slots a switch port, is held once too.
    let switch_ports: usize =
        (0..f.spec.nodes.len()).filter(|&i| !f.spec.is_host(i)).map(|i| f.spec.port_count(i)).sum();
    let accounting =
        format!("buffer accounting of {switch_ports} switch ports: {:.1} KiB", (switch_ports * 512) as f64 / 1024.0);
    assert!(text.contains(&accounting) && !copies.contains("buffer accounting"), "{text}");
    let r = run_threads(&f.spec, &t, &config, 16).expect("sixteen threads fit");
    assert_eq!(results_digest(&r), results_digest(&crate::run(&f.spec, &t, &config).expect("one")));
}

#[test]
fn a_run_that_fits_on_one_thread_but_not_on_sixteen_is_refused_up_front() {
    // Under a limit that one thread's estimate just meets, sixteen copies of the nodes', ports'
    // and flows' state do not fit.
    let (f, t) = fabric(1 << 20);
    let config = SimConfig::new(1, 10 * US);
    let limit = estimated(&f, &t, &config, 1);
    crate::sim::estimate::with_run_limit(limit, || {
        assert!(Simulation::new(&f.spec, &t, &config).is_ok(), "one copy fits");
        let err = run_threads(&f.spec, &t, &config, 16).unwrap_err();
        assert!(matches!(err, SimError::MemoryTooLarge { .. }), "{err:?}");
        let text = err.to_string();
        // The routing tables are built once and shared, the PFC timers split between the
        // threads; the rest is each thread's.
        assert!(text.contains("the run on 16 threads, holding once (routing tables ("), "{text}");
        assert!(text.contains("PFC timers and ECN draws of "), "{text}");
        assert!(text.contains(") and on each thread its own copy of ("), "{text}");
        // Only one copy fits beside what the threads hold once.
        assert!(text.contains("run on fewer threads (--threads 1: the same results, "), "{text}");
        // The default, which does not know the memory, goes on one thread instead, with one
        // thread's results.
        let (r, profile, threads) = run_threads_or_fewer(&f.spec, &t, &config, 16).expect("one thread");
        assert_eq!((threads, profile), (1, None));
        assert_eq!(results_digest(&r), results_digest(&crate::run(&f.spec, &t, &config).expect("one")));
    });
    // Where the copies fit, the threads asked for.
    let (_, profile, threads) = run_threads_or_fewer(&f.spec, &t, &config, 2).expect("two threads");
    assert_eq!((threads, profile.map(|p| p.parts.len())), (2, Some(2)));
}

#[test]
fn a_default_whose_copies_do_not_fit_runs_on_the_most_threads_that_fit() {
    // Under a limit half a copy past three threads' estimate, sixteen threads are refused
    // naming three, and the default runs on three with one thread's results.
    let (f, t) = fabric(1 << 20);
    let config = SimConfig::new(1, 10 * US);
    let (one, two) = (estimated(&f, &t, &config, 1), estimated(&f, &t, &config, 2));
    let copy = two - one;
    let limit = one + 2 * copy + copy / 2;
    crate::sim::estimate::with_run_limit(limit, || {
        let err = run_threads(&f.spec, &t, &config, 16).unwrap_err();
        assert!(matches!(err, SimError::MemoryTooLarge { threads_that_fit: Some(3), .. }), "{err:?}");
        assert!(err.to_string().contains("run on fewer threads (--threads 3: the same results, "), "{err}");
        assert_eq!(err.fewer_threads(16), Some(3));
        assert_eq!(err.fewer_threads(1), None, "one thread has nothing fewer to go to");
        let (r, profile, threads) = run_threads_or_fewer(&f.spec, &t, &config, 16).expect("three threads");
        assert_eq!((threads, profile.map(|p| p.parts.len())), (3, Some(3)));
        assert_eq!(results_digest(&r), results_digest(&crate::run(&f.spec, &t, &config).expect("one")));
        // Three fit. (The count named is made as if each copy held every flow, a part's share
        // growing as the threads fall, so that it fits for sure: it may be fewer than would.)
        assert!(run_threads(&f.spec, &t, &config, 3).is_ok());
    });
    // Where one copy does not fit either, none is named and the refusal stands on one thread.
    crate::sim::estimate::with_run_limit(one - 1, || {
        let err = run_threads(&f.spec, &t, &config, 16).unwrap_err();
        assert!(matches!(err, SimError::MemoryTooLarge { threads_that_fit: None, .. }), "{err:?}");
        assert_eq!(err.fewer_threads(16), Some(1));
        let refused = run_threads_or_fewer(&f.spec, &t, &config, 16).unwrap_err();
        assert!(matches!(refused, SimError::MemoryTooLarge { .. }), "{refused:?}");
    });
}

#[test]
fn the_profile_counts_each_parts_events_windows_and_messages() {
    let (f, t) = fabric(1 << 20);
    let config = SimConfig::new(1, 50 * US);
    let (r, profile) = run_threads_profiled(&f.spec, &t, &config, 2).expect("two threads");
    let profile = profile.expect("a profile on two threads");
    assert_eq!(profile.parts.len(), 2);
    assert_eq!(profile.parts.iter().map(|p| p.events).sum::<u64>(), r.events);
    assert_eq!(profile.parts.iter().map(|p| p.nodes).sum::<usize>(), f.spec.nodes.len());
    assert_eq!(profile.parts.iter().map(|p| p.hosts).sum::<usize>(), 16);
    // Every flow crosses the spines, so both parts send frames to the other.
    assert!(profile.parts.iter().all(|p| p.messages_sent > 0), "{profile:?}");
    // A window is at most a lookahead long, and the flows send past the first half of the run
    // (they end near 33 µs), so it takes at least 25 µs / lookahead of them.
    let lookahead = profile.lookahead;
    assert!(lookahead > 500 * NS && profile.windows >= 25 * US / lookahead, "{profile:?}");
    assert!(profile.parts.iter().all(|p| p.idle_windows <= profile.windows), "{profile:?}");
    let (_, none) = run_threads_profiled(&f.spec, &t, &config, 1).expect("one thread");
    assert!(none.is_none());
}

#[test]
fn the_default_takes_one_thread_when_a_window_holds_too_little_work() {
    // The fabric's 24 links at 100G both ways over the cut's lookahead (its 3 µs spine links
    // and one byte's serialization), in full-size frames of 1,538 bytes.
    let (f, t) = fabric(1 << 20);
    let cut = partition(&f.spec, 2);
    let lookahead = cut.lookahead.expect("a cut");
    let expected = 2 * 24 * G100 as u128 * lookahead as u128 / crate::time::SECOND as u128 / (1_538 * 8);
    assert_eq!(frames_a_window(&f.spec, cut.lookahead) as u128, expected);
    assert!(expected >= MIN_FRAMES_A_WINDOW as u128, "{expected}");
    // The same fabric with 100 ns spine links: a tenth of the work a window, one thread, and no
    // feature to name.
    let mut short = f.spec.clone();
    for l in &mut short.links {
        l.delay_ps = l.delay_ps.min(100 * NS);
    }
    let config = SimConfig::new(1, 50 * US);
    assert!(frames_a_window(&short, partition(&short, 2).lookahead) < MIN_FRAMES_A_WINDOW);
    assert_eq!(default_threads_on(&short, &t, &config, 2), DefaultThreads { threads: 1, why_one: None });
    // Asked for, two threads still run it, with one thread's results.
    let one = run_threads(&short, &t, &config, 1).expect("one thread");
    let two = run_threads(&short, &t, &config, 2).expect("two threads");
    assert_eq!(results_digest(&two), results_digest(&one));
}
