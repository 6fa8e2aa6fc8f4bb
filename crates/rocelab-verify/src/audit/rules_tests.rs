use super::super::testfabric::fabric;
use super::*;
use crate::finding::Severity;

fn s(device: &str, port: Option<&str>, priority: Option<u8>, counter: Counter, value: u64) -> Sample {
    Sample {
        device: device.into(),
        port: port.map(Into::into),
        priority,
        queue: None,
        counter,
        name: format!("{counter:?}"),
        value,
        at: Origin { file: format!("{device}.txt"), line: 7 },
    }
}

/// The findings of `samples`, as (rule, severity, device, port).
fn run(samples: &[Sample], with_baseline: bool) -> Vec<(&'static str, Severity, String, Option<String>)> {
    audit(&fabric(), samples, &[], with_baseline).into_iter().map(|f| (f.id, f.severity, f.device, f.port)).collect()
}

fn one(
    id: &'static str,
    sev: Severity,
    dev: &str,
    port: Option<&str>,
) -> Vec<(&'static str, Severity, String, Option<String>)> {
    vec![(id, sev, dev.to_string(), port.map(str::to_string))]
}

/// A fabric at work as designed: pause on the lossless priority where PFC runs, ECN marks
/// answered by CNPs that the senders handle, nothing lost.
fn healthy() -> Vec<Sample> {
    let e0 = Some("Ethernet0");
    let p0 = Some("p0");
    vec![
        s("sw1", e0, Some(3), Counter::RxPause, 120),
        s("sw1", e0, Some(3), Counter::TxPause, 4000),
        s("sw1", e0, Some(0), Counter::RxPause, 0),
        s("sw1", Some("Ethernet8"), Some(3), Counter::RxPause, 0),
        s("h1", p0, Some(3), Counter::RxPause, 4000),
        s("h1", p0, Some(3), Counter::RxPauseDuration, 5200),
        s("h1", p0, Some(3), Counter::Discards, 0),
        s("h1", p0, None, Counter::Discards, 0),
        s("h1", p0, None, Counter::RxLinkPause, 0),
        s("h1", p0, None, Counter::PauseStormWarning, 0),
        s("h1", p0, None, Counter::PauseStormError, 0),
        s("h1", p0, None, Counter::EcnMarked, 4480),
        s("h1", p0, None, Counter::CnpSent, 4100),
        s("h1", p0, None, Counter::CnpHandled, 0),
        s("h1", p0, None, Counter::CnpIgnored, 0),
        s("h1", p0, None, Counter::CnpPriority, 6),
        s("h1", p0, None, Counter::CnpDscp, 48),
        s("h1", p0, None, Counter::OutOfSequence, 0),
        s("h1", p0, None, Counter::PacketSeqErr, 0),
        s("h1", p0, None, Counter::LocalAckTimeout, 0),
        s("h2", p0, None, Counter::EcnMarked, 0),
        s("h2", p0, None, Counter::CnpSent, 0),
        s("h2", p0, None, Counter::CnpHandled, 3900),
        s("h2", p0, None, Counter::CnpIgnored, 0),
    ]
}

#[test]
fn a_healthy_fabric_gives_no_finding() {
    assert_eq!(run(&healthy(), false), []);
    assert_eq!(run(&healthy(), true), []);
    // Told the interval: 5200 us paused in one second is half a percent.
    let opts = Options { interval: Some(1.0), ..Options::default() };
    assert_eq!(audit_with(&fabric(), &healthy(), &[], true, &opts), []);
}

#[test]
fn pause_on_a_lossy_priority() {
    let e0 = Some("Ethernet0");
    let f = audit(&fabric(), &[s("sw1", e0, Some(0), Counter::RxPause, 5)], &[], false);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].id, f[0].severity), ("AUDIT-PAUSE-LOSSY", Severity::Error));
    assert_eq!(f[0].class.as_deref(), Some("default (priority 0)"));
    assert!(f[0].what.starts_with("5 PFC pause frames received and 0 sent on priority 0"), "{}", f[0].what);
    assert!(f[0].what.ends_with("lossless priorities are 3"), "{}", f[0].what);
    assert_eq!(f[0].location, Some(Origin { file: "sw1.txt".into(), line: 7 }));
    // Near miss: the same pause on the lossless priority.
    assert_eq!(run(&[s("sw1", e0, Some(3), Counter::RxPause, 5)], false), []);
}

#[test]
fn pause_where_the_intent_has_pfc_off() {
    let e8 = Some("Ethernet8");
    assert_eq!(
        run(&[s("sw1", e8, Some(3), Counter::TxPause, 9)], false),
        one("AUDIT-PAUSE-PFC-OFF", Severity::Error, "sw1", e8)
    );
    // A per-port total (EOS) on a port with PFC off on every priority.
    assert_eq!(
        run(&[s("sw1", e8, None, Counter::RxPause, 2)], false),
        one("AUDIT-PAUSE-PFC-OFF", Severity::Error, "sw1", e8)
    );
    // Near misses: the same total on a port that runs PFC; zero pause on the port with PFC off.
    assert_eq!(run(&[s("sw1", Some("Ethernet0"), None, Counter::RxPause, 2)], false), []);
    assert_eq!(run(&[s("sw1", e8, Some(3), Counter::TxPause, 0)], false), []);
}

#[test]
fn link_pause_where_the_intent_has_it_off() {
    let p0 = Some("p0");
    assert_eq!(
        run(&[s("h1", p0, None, Counter::TxLinkPause, 3)], false),
        one("AUDIT-LINK-PAUSE", Severity::Warning, "h1", p0)
    );
    assert_eq!(run(&[s("h1", p0, None, Counter::TxLinkPause, 0)], false), []);
}

#[test]
fn drops_on_a_lossless_priority() {
    let p0 = Some("p0");
    assert_eq!(
        run(&[s("h1", p0, Some(3), Counter::Discards, 4)], false),
        one("AUDIT-DROP-LOSSLESS", Severity::Error, "h1", p0)
    );
    // A port-wide counter on a port that runs PFC: a warning, it may be another priority's.
    assert_eq!(
        run(&[s("h1", p0, None, Counter::Discards, 4)], false),
        one("AUDIT-DROP-LOSSLESS", Severity::Warning, "h1", p0)
    );
    // Near misses: drops on the lossy priority, and port-wide drops where PFC is off.
    assert_eq!(run(&[s("h1", p0, Some(0), Counter::Discards, 4)], false), []);
    assert_eq!(run(&[s("h3", p0, None, Counter::Discards, 4)], false), []);
}

#[test]
fn drops_at_the_egress_queue_of_a_lossless_class() {
    let e0 = Some("Ethernet0");
    let q = |queue: u8, value: u64| Sample { queue: Some(queue), ..s("sw1", e0, None, Counter::QueueDrops, value) };
    let f = audit(&fabric(), &[q(3, 19)], &[], false);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].id, f[0].severity, f[0].class.as_deref()),
        ("AUDIT-DROP-LOSSLESS", Severity::Error, Some("roce (priority 3)"))
    );
    assert_eq!(f[0].what, "19 packets discarded on lossless priority 3 since the counters were last cleared");
    // Near misses: drops at the lossy class's queue, at a queue no class uses, and none at queue 3.
    assert_eq!(run(&[q(0, 19), q(5, 19), q(3, 0)], false), []);
}

#[test]
fn wred_drops_at_the_queue_of_a_lossless_class_add_to_its_tail_drops() {
    let e0 = Some("Ethernet0");
    let q =
        |counter: Counter, queue: u8, value: u64| Sample { queue: Some(queue), ..s("sw1", e0, None, counter, value) };
    let f = audit(&fabric(), &[q(Counter::QueueDrops, 3, 0), q(Counter::WredDrops, 3, 5)], &[], false);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].what, "5 packets discarded on lossless priority 3 since the counters were last cleared");
    assert_eq!(f[0].location.as_ref().map(|o| o.file.as_str()), Some("sw1.txt"));
    let f = audit(&fabric(), &[q(Counter::QueueDrops, 3, 2), q(Counter::WredDrops, 3, 5)], &[], false);
    assert!(f[0].what.starts_with("7 packets discarded"), "{}", f[0].what);
    // Near misses: WRED drops at the lossy class's queue, and none at the lossless one.
    assert_eq!(run(&[q(Counter::WredDrops, 0, 40), q(Counter::WredDrops, 3, 0)], false), []);
}

#[test]
fn pause_storms_by_their_watermark() {
    let p0 = Some("p0");
    assert_eq!(
        run(&[s("h1", p0, None, Counter::PauseStormError, 1)], false),
        one("AUDIT-PAUSE-STORM", Severity::Error, "h1", p0)
    );
    assert_eq!(
        run(&[s("h1", p0, None, Counter::PauseStormWarning, 2)], false),
        one("AUDIT-PAUSE-STORM", Severity::Warning, "h1", p0)
    );
    assert_eq!(
        run(&[s("h1", p0, None, Counter::PauseStormWarning, 0), s("h1", p0, None, Counter::PauseStormError, 0)], false),
        []
    );
    // The switch's PFC watchdog, on the lossless class's queue; none detected is no finding.
    let e0 = Some("Ethernet0");
    let wd = |v: u64| Sample { queue: Some(3), ..s("sw1", e0, None, Counter::WatchdogStorms, v) };
    assert_eq!(run(&[wd(2)], false), one("AUDIT-PAUSE-STORM", Severity::Warning, "sw1", e0));
    assert_eq!(run(&[wd(0)], false), []);
}

/// The share of the interval a priority was paused, from mlx5's microsecond durations.
#[test]
fn pause_storms_by_the_share_of_the_interval_paused() {
    let p0 = Some("p0");
    let at = |interval: f64| Options { interval: Some(interval), ..Options::default() };
    // 1.5 s of 10 s paused by the peer: 15%, over the 10% threshold.
    let paused = [s("h1", p0, Some(3), Counter::RxPauseDuration, 1_500_000)];
    let f = audit_with(&fabric(), &paused, &[], true, &at(10.0));
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].id, f[0].severity), ("AUDIT-PAUSE-STORM", Severity::Warning));
    assert_eq!(
        f[0].what,
        "15.0% of the 10 s interval spent paused by its peer on priority 3 (1500000 us; the threshold is 10.0%)"
    );
    assert_eq!(f[0].class.as_deref(), Some("roce (priority 3)"));
    // Asking the peer to pause for most of the interval: an error.
    let asking = [s("h1", p0, Some(3), Counter::TxPauseDuration, 6_000_000)];
    let f = audit_with(&fabric(), &asking, &[], true, &at(10.0));
    assert_eq!((f[0].severity, f[0].what.contains("asking its peer to pause")), (Severity::Error, true));
    // Near misses: just under the threshold (0.999 s of 10 s); no interval given; a threshold raised.
    let under = [s("h1", p0, Some(3), Counter::RxPauseDuration, 999_999)];
    assert_eq!(audit_with(&fabric(), &under, &[], true, &at(10.0)), []);
    assert_eq!(audit_with(&fabric(), &paused, &[], true, &Options::default()), []);
    let lax = Options { interval: Some(10.0), pause_share: 0.2 };
    assert_eq!(audit_with(&fabric(), &paused, &[], true, &lax), []);
}

#[test]
fn cnps_on_the_wrong_priority() {
    let p0 = Some("p0");
    let sent = s("h1", p0, None, Counter::CnpSent, 900);
    let f = audit(&fabric(), &[sent.clone(), s("h1", p0, None, Counter::CnpPriority, 3)], &[], false);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].id, f[0].severity), ("AUDIT-CNP-PRIORITY", Severity::Error));
    assert_eq!(
        f[0].what,
        "the adapter sends CNPs with priority 3, where the fabric's CNP class is on priority 6; 900 CNPs sent since the counters were last cleared"
    );
    // A DSCP off the class, with no CNP sent yet: a warning.
    assert_eq!(
        run(&[s("h2", p0, None, Counter::CnpDscp, 46)], false),
        one("AUDIT-CNP-PRIORITY", Severity::Warning, "h2", p0)
    );
    // Near misses: the class's priority and DSCP, CNPs sent; a CNP count without the settings.
    let right = [sent.clone(), s("h1", p0, None, Counter::CnpPriority, 6), s("h1", p0, None, Counter::CnpDscp, 48)];
    assert_eq!(run(&right, false), []);
    assert_eq!(run(&[sent], false), []);
}

#[test]
fn settings_are_not_deltas() {
    let now =
        super::super::Snapshot { samples: vec![s("h1", Some("p0"), None, Counter::CnpPriority, 3)], problems: vec![] };
    let (d, resets) = super::super::delta(&now, &now);
    assert_eq!((d[0].value, resets.len()), (3, 0));
}

#[test]
fn ecn_marks_without_cnps() {
    let p0 = Some("p0");
    let marked = s("h1", p0, None, Counter::EcnMarked, 4480);
    let f = audit(&fabric(), &[marked.clone(), s("h1", p0, None, Counter::CnpSent, 0)], &[], false);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].id, f[0].severity), ("AUDIT-ECN-NO-CNP", Severity::Error));
    assert_eq!(f[0].what, "4480 ECN-marked RoCE packets received and no CNP sent since the counters were last cleared");
    // Near misses: CNPs sent; no CNP counter read at all (nothing to say).
    assert_eq!(run(&[marked.clone(), s("h1", p0, None, Counter::CnpSent, 1)], false), []);
    assert_eq!(run(&[marked], false), []);
}

#[test]
fn cnps_ignored_or_handled_nowhere() {
    let p0 = Some("p0");
    assert_eq!(
        run(&[s("h2", p0, None, Counter::CnpIgnored, 3)], false),
        one("AUDIT-CNP-NOT-HANDLED", Severity::Warning, "h2", p0)
    );
    let sent = s("h1", p0, None, Counter::CnpSent, 100);
    assert_eq!(
        run(&[sent.clone(), s("h2", p0, None, Counter::CnpHandled, 0)], false),
        one("AUDIT-CNP-NOT-HANDLED", Severity::Error, "h2", p0)
    );
    // Near miss: one sender handled some; the others had none sent to them.
    assert_eq!(
        run(&[sent, s("h2", p0, None, Counter::CnpHandled, 50), s("h3", p0, None, Counter::CnpHandled, 0)], false),
        []
    );
}

#[test]
fn loss_on_the_rdma_path() {
    let p0 = Some("p0");
    let oos = [s("h1", p0, None, Counter::OutOfSequence, 2), s("h1", p0, None, Counter::LocalAckTimeout, 1)];
    assert_eq!(run(&oos, false), one("AUDIT-RDMA-LOSS", Severity::Warning, "h1", p0));
    // Over an interval the loss is current: an error.
    let f = audit(&fabric(), &oos, &[], true);
    assert_eq!((f[0].id, f[0].severity), ("AUDIT-RDMA-LOSS", Severity::Error));
    assert_eq!(
        f[0].what,
        "2 out-of-sequence packets, 0 packet sequence errors and 1 local ACK timeouts over the interval since the baseline"
    );
    assert_eq!(run(&[s("h1", p0, None, Counter::OutOfSequence, 0)], true), []);
}

#[test]
fn every_rule_id_found_is_listed() {
    let mut all = healthy();
    all.push(s("sw1", Some("Ethernet0"), Some(0), Counter::RxPause, 5));
    all.push(s("h3", Some("p0"), None, Counter::PacketSeqErr, 5));
    all.push(s("h2", Some("p0"), None, Counter::CnpPriority, 0));
    all.push(s("h2", Some("p0"), Some(3), Counter::RxPauseDuration, 9_000_000));
    let opts = Options { interval: Some(10.0), ..Options::default() };
    for f in audit_with(&fabric(), &all, &[], false, &opts) {
        assert!(RULES.iter().any(|(id, _)| *id == f.id), "{}", f.id);
    }
}
