//! The audit's rules: counters read against the intent of the fabric file. Each rule is stated
//! where it is checked, with the document it comes from.
//!
//! The intent is the fabric file's (a priority is lossless when a class of `qos.classes` on it
//! is, and a port runs PFC on the priorities its resolved settings say: the policy with the
//! `qos.ports` overrides), or the imported configuration's, or what the counters show: see
//! [`super::intent`].

use super::intent::Intent;
use super::{Counter, Reset, Sample};
use crate::finding::{Finding, Severity, SRC_8023, SRC_DCQCN, SRC_QBB};
use crate::state::Origin;
use std::collections::BTreeMap;

pub const SRC_MLX5_COUNTERS: &str =
    "Linux kernel documentation, networking/device_drivers/ethernet/mellanox/mlx5/counters.rst (tx_pause_storm_warning_events, tx_pause_storm_error_events, rx_prio[p]_discards)";
pub const SRC_IBA_RC: &str =
    "InfiniBand Architecture Specification vol. 1 §9.7 (reliable connection: PSN sequence errors, ACK timeout and retry) with Annex A17 (RoCEv2); mlx5 hw_counters out_of_sequence, packet_seq_err, local_ack_timeout_err";
pub const SRC_SONIC_PFCWD: &str = "SONiC PFC watchdog (sonic-utilities `pfcwd`; SONiC PFC Watchdog design: storm detection and restoration per queue)";
pub const SRC_MLX5_CNP: &str =
    "NVIDIA ConnectX (mlx5) notification point settings /sys/class/net/IF/ecn/roce_np/cnp_802p_prio and cnp_dscp (firmware CNP_802P_PRIO_P1, CNP_DSCP_P1: the priority and DSCP of the generated CNP); NVIDIA \"RoCE Configuration for NVIDIA Switches and Adapters\" (CNPs on their own strict-priority class)";
pub const SRC_PAUSE_SHARE: &str =
    "Linux kernel documentation, mlx5 counters.rst (rx/tx_prio[p]_pause_duration, in microseconds: the time the port did not send, or asked its peer not to send, on the priority); pause time as a share of the interval as Cisco IOS XR reports it (\"Priority Flow Control Watchdog and Monitoring Metrics\", traffic class queue pause duration); the threshold is rocelab's default, set with --pause-share";
pub const SRC_COUNTERS: &str =
    "Device counters are cumulative from the last clear or reboot (IETF RFC 2863, ifCounterDiscontinuityTime)";

/// The rule IDs of the audit, with what each checks.
pub const RULES: &[(&str, &str)] = &[
    ("AUDIT-PAUSE-LOSSY", "No PFC pause on a priority the fabric does not make lossless"),
    ("AUDIT-PAUSE-PFC-OFF", "No pause counted on a port, or a priority of it, where the intent has PFC off"),
    ("AUDIT-LINK-PAUSE", "No IEEE 802.3x link pause where the intent has it off"),
    ("AUDIT-DROP-LOSSLESS", "No discards on a port and priority that run PFC"),
    (
        "AUDIT-PAUSE-STORM",
        "No pause storm (the adapter's stall detection and the switch's PFC watchdog did not fire, no priority paused for more than the threshold's share of the interval)",
    ),
    ("AUDIT-ECN-NO-CNP", "A notification point that receives ECN-marked RoCE packets sends CNPs"),
    ("AUDIT-CNP-NOT-HANDLED", "Reaction points handle the CNPs sent and ignore none"),
    ("AUDIT-CNP-PRIORITY", "Adapters send CNPs with the priority and DSCP of the fabric's CNP class"),
    ("AUDIT-RDMA-LOSS", "No out-of-sequence packets, sequence errors or ACK timeouts on the RDMA path"),
    ("AUDIT-HEADROOM-NEAR", "A lossless priority group's headroom watermark stays below 90 % of its headroom"),
    ("AUDIT-COUNTER-RESET", "A counter that went down since the baseline was reset"),
    (
        "AUDIT-SIM-DIVERGES",
        "Counters agree, within the stated tolerance, with a simulation of the same fabric (--expect)",
    ),
];

/// Counters of one (device, port, priority), summed over the names that map to each.
#[derive(Default)]
struct Group<'s> {
    values: BTreeMap<Counter, (u64, &'s Sample)>,
}

impl<'s> Group<'s> {
    fn get(&self, c: Counter) -> u64 {
        self.values.get(&c).map_or(0, |v| v.0)
    }

    fn has(&self, c: Counter) -> bool {
        self.values.contains_key(&c)
    }

    fn at(&self, c: Counter) -> Option<Origin> {
        self.values.get(&c).map(|v| v.1.at.clone())
    }
}

type Key<'s> = (&'s str, Option<&'s str>, Option<u8>);

fn finding(
    id: &'static str,
    severity: Severity,
    key: Key<'_>,
    what: String,
    why: &str,
    fix: &str,
    source: &'static str,
) -> Finding {
    Finding {
        id,
        severity,
        device: key.0.to_string(),
        port: key.1.map(str::to_string),
        class: None,
        what,
        why: why.to_string(),
        fix: fix.to_string(),
        source,
        location: None,
    }
}

/// What the audit is told beyond the counters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The length of the interval the counters cover, in seconds: from the baseline to the
    /// snapshot, or (without a baseline) since the counters were cleared. None of the formats
    /// read carries a timestamp, so it is given (`--interval`); without it no share of paused
    /// time is judged.
    pub interval: Option<f64>,
    /// The share of the interval (0-1) a priority may be paused before it is a pause storm.
    pub pause_share: f64,
}

/// A priority paused a tenth of the time runs at most 90% of its line rate: far more than the
/// microsecond pauses of a fabric where DCQCN keeps queues short, and well short of the
/// watchdog's stuck queue.
pub const DEFAULT_PAUSE_SHARE: f64 = 0.10;

impl Default for Options {
    fn default() -> Options {
        Options { interval: None, pause_share: DEFAULT_PAUSE_SHARE }
    }
}

/// The findings of `samples` (with a baseline: increases over the interval, `resets` the
/// counters that went down) against the intent of `fabric`, with default [`Options`].
pub fn audit(fabric: &dyn Intent, samples: &[Sample], resets: &[Reset], with_baseline: bool) -> Vec<Finding> {
    audit_with(fabric, samples, resets, with_baseline, &Options::default())
}

/// [`audit`], told the interval's length and the pause-share threshold.
pub fn audit_with(
    intent: &dyn Intent,
    samples: &[Sample],
    resets: &[Reset],
    with_baseline: bool,
    opts: &Options,
) -> Vec<Finding> {
    let when =
        if with_baseline { "over the interval since the baseline" } else { "since the counters were last cleared" };
    // Counters kept per egress queue are read on the priority of the class on that queue;
    // those of queues no class uses are of no traffic of the fabric.
    let resolved: Vec<Sample> = samples
        .iter()
        .filter_map(|s| match (s.queue, s.priority) {
            (Some(q), None) => {
                let p = intent.queue_priority(&s.device, s.port.as_deref(), q)?;
                Some(Sample { priority: Some(p), ..s.clone() })
            }
            _ => Some(s.clone()),
        })
        .collect();
    let mut groups: BTreeMap<Key<'_>, Group<'_>> = BTreeMap::new();
    for s in &resolved {
        let g = groups.entry((s.device.as_str(), s.port.as_deref(), s.priority)).or_default();
        let e = g.values.entry(s.counter).or_insert((0, s));
        e.0 = e.0.saturating_add(s.value);
    }
    let mut out = Vec::new();
    for (&key, g) in &groups {
        pause(intent, key, g, when, &mut out);
        drops(intent, key, g, when, &mut out);
        storm(key, g, when, &mut out);
        pause_share(intent, key, g, opts, &mut out);
        cnp_priority(intent, key, g, when, &mut out);
        rdma(key, g, when, with_baseline, &mut out);
    }
    cnp(&groups, when, &mut out);
    // The headroom a port has is the fabric file's (given, or worked out from its cables and
    // speeds); configuration read back or an inferred intent does not say it.
    if let Some(fabric) = intent.fabric() {
        super::rules_buffers::headroom(fabric, samples, &mut out);
    }
    for r in resets {
        let s = &r.sample;
        let mut f = finding(
            "AUDIT-COUNTER-RESET",
            Severity::Note,
            (&s.device, s.port.as_deref(), s.priority),
            format!("`{}` went from {} in the baseline to {}: it was cleared in between", s.name, r.baseline, s.value),
            "a reset counter gives no rate over the interval; its value is what it counted since the reset, at least",
            "take the baseline again after the clear, or clear every counter together before the baseline",
            SRC_COUNTERS,
        );
        f.class = s.priority.map(|p| intent.class(p));
        f.location = Some(s.at.clone());
        out.push(f);
    }
    out.sort_by(|a, b| (b.severity, &a.device, &a.port, a.id).cmp(&(a.severity, &b.device, &b.port, b.id)));
    out
}

/// Pause where PFC is not meant to run. IEEE 802.1Qbb: a port sends PFC only for the priorities
/// PFC is enabled on, and a lossy class must never be paused (its traffic would stall the link
/// with no need); pause counted on a port whose intent has PFC off means the device runs a
/// different configuration than the fabric file (or its peer does).
fn pause(intent: &dyn Intent, key: Key<'_>, g: &Group<'_>, when: &str, out: &mut Vec<Finding>) {
    let (dev, port, prio) = key;
    let (rx, tx) = (g.get(Counter::RxPause), g.get(Counter::TxPause));
    let pfc = intent.pfc(dev, port);
    let at = || g.at(Counter::RxPause).or_else(|| g.at(Counter::TxPause));
    if rx + tx > 0 {
        match prio {
            Some(p) if intent.lossless() & (1 << p) == 0 => {
                let mut f = finding(
                    "AUDIT-PAUSE-LOSSY",
                    Severity::Error,
                    key,
                    format!("{rx} PFC pause frames received and {tx} sent on priority {p} {when}; the fabric's lossless priorities are {}", mask(intent.lossless())),
                    "pausing a lossy priority stalls traffic that should be dropped and retried instead, and spreads congestion (head-of-line blocking) to every port upstream",
                    &format!("turn PFC off for priority {p} on this port and on its peer, as the intent has it"),
                    SRC_QBB,
                );
                f.class = Some(intent.class(p));
                f.location = at();
                out.push(f);
            }
            Some(p) if pfc & (1 << p) == 0 => {
                let mut f = finding(
                    "AUDIT-PAUSE-PFC-OFF",
                    Severity::Error,
                    key,
                    format!("{rx} PFC pause frames received and {tx} sent on priority {p} {when}, where the intent has PFC off on this port"),
                    "the device runs PFC where the intent says it does not: its running configuration has drifted from the intent, or a peer pauses a port that cannot honour it",
                    "compare the port's running configuration with `rocelab check --import`, and apply the configuration `rocelab config` renders",
                    SRC_QBB,
                );
                f.class = Some(intent.class(p));
                f.location = at();
                out.push(f);
            }
            None if pfc == 0 => {
                let mut f = finding(
                    "AUDIT-PAUSE-PFC-OFF",
                    Severity::Error,
                    key,
                    format!("{rx} PFC pause frames received and {tx} sent {when} on a port where the intent has PFC off on every priority"),
                    "the device runs PFC where the intent says it does not: its running configuration has drifted from the intent, or a peer pauses a port that cannot honour it",
                    "compare the port's running configuration with `rocelab check --import`, and apply the configuration `rocelab config` renders",
                    SRC_QBB,
                );
                f.location = at();
                out.push(f);
            }
            _ => {}
        }
    }
    let (lrx, ltx) = (g.get(Counter::RxLinkPause), g.get(Counter::TxLinkPause));
    if lrx + ltx > 0 && !intent.link_pause(dev, port) {
        let mut f = finding(
            "AUDIT-LINK-PAUSE",
            Severity::Warning,
            key,
            format!("{lrx} IEEE 802.3x link pause frames received and {ltx} sent {when}, where the intent has link pause off"),
            "link-level pause stops every priority of the link, lossy and lossless alike, and cannot run together with PFC",
            "turn global pause off on the port and its peer (`ethtool -A IF rx off tx off` on Linux hosts)",
            SRC_8023,
        );
        f.location = g.at(Counter::RxLinkPause).or_else(|| g.at(Counter::TxLinkPause));
        out.push(f);
    }
}

/// Drops on a lossless priority. IEEE 802.1Qbb: PFC exists so that a priority it runs on loses
/// no frame to congestion; a discard there means the headroom did not absorb what was in flight
/// when pause was sent, or the traffic is not classified onto the priority that is paused.
fn drops(intent: &dyn Intent, key: Key<'_>, g: &Group<'_>, when: &str, out: &mut Vec<Finding>) {
    let (dev, port, prio) = key;
    // WRED drops are counted apart from the queue's tail drops (SONiC `show queue wredcounters`
    // beside `show queue counters`), so the two add up without counting a packet twice.
    const DROPS: [Counter; 3] = [Counter::Discards, Counter::QueueDrops, Counter::WredDrops];
    let n: u64 = DROPS.iter().map(|&c| g.get(c)).sum();
    if n == 0 {
        return;
    }
    let pfc = intent.pfc(dev, port);
    let (severity, what) = match prio {
        Some(p) if pfc & (1 << p) != 0 => {
            (Severity::Error, format!("{n} packets discarded on lossless priority {p} {when}"))
        }
        None if pfc != 0 => (
            Severity::Warning,
            format!(
                "{n} packets discarded {when} on a port with PFC on priorities {}; the counter is not per priority",
                mask(pfc)
            ),
        ),
        _ => return,
    };
    let mut f = finding(
        "AUDIT-DROP-LOSSLESS",
        severity,
        key,
        what,
        "a lossless priority must lose nothing to congestion: RoCE recovers a lost packet by go-back-N, so each drop costs a round of retransmission and collapses throughput",
        "check the headroom of the priority group (`rocelab check`, HEADROOM-SHORT), that the traffic is classified onto the lossless priority at every hop, and that the peer honours pause",
        SRC_MLX5_COUNTERS,
    );
    f.class = prio.map(|p| intent.class(p));
    f.location = DROPS.iter().find(|&&c| g.get(c) > 0).map_or_else(|| g.at(Counter::Discards), |&c| g.at(c));
    out.push(f);
}

/// A pause storm: the mlx5 stall detection counts each time the adapter kept sending pause for
/// a long time (warning) and each time it stopped sending pause at its timeout (error: drops may
/// follow). Kernel mlx5 counters documentation.
fn storm(key: Key<'_>, g: &Group<'_>, when: &str, out: &mut Vec<Finding>) {
    let (warn, err) = (g.get(Counter::PauseStormWarning), g.get(Counter::PauseStormError));
    let wd = g.get(Counter::WatchdogStorms);
    if wd > 0 {
        // SONiC PFC watchdog (sonic-utilities `pfcwd`): a queue paused past the detection time
        // is a storm; the watchdog then drops or forwards its traffic until restoration.
        let mut f = finding(
            "AUDIT-PAUSE-STORM",
            Severity::Warning,
            key,
            format!("{wd} PFC storms detected by the watchdog {when}"),
            "a queue paused for longer than the watchdog's detection time is stuck: a peer that keeps pausing (a PFC storm, or a deadlock) stalls the lossless class, and the watchdog's action drops its packets",
            "find the port that keeps sending pause (the peer's `show pfc counters`, the host's `tx_pause_storm_*` counters) and what keeps it congested",
            SRC_SONIC_PFCWD,
        );
        f.location = g.at(Counter::WatchdogStorms);
        out.push(f);
    }
    if warn + err == 0 {
        return;
    }
    let severity = if err > 0 { Severity::Error } else { Severity::Warning };
    let mut f = finding(
        "AUDIT-PAUSE-STORM",
        severity,
        key,
        format!("{warn} pause storm warnings and {err} pause storm errors {when}"),
        "an adapter that pauses its switch port for long stalls every flow of the paused priorities behind it, and may spread the pause through the fabric (a PFC storm); at the error watermark it stops sending pause and drops",
        "find what stops the host from draining its receive queues (a hung application, PCIe back-pressure) and keep the stall prevention on (`/sys/class/net/IF/settings/pfc_stall_prevention`)",
        SRC_MLX5_COUNTERS,
    );
    f.location = if err > 0 { g.at(Counter::PauseStormError) } else { g.at(Counter::PauseStormWarning) };
    out.push(f);
}

/// A priority paused for too large a share of the interval: mlx5 counts, per priority, the
/// microseconds the port was paused by its peer (`rx_prio[p]_pause_duration`) and asked its peer
/// to pause (`tx_prio[p]_pause_duration`) (kernel mlx5 `counters.rst`). Paused that long, the
/// priority's flows stall even when no watchdog fires: the congestion is persistent, not a
/// burst PFC absorbs.
fn pause_share(intent: &dyn Intent, key: Key<'_>, g: &Group<'_>, opts: &Options, out: &mut Vec<Finding>) {
    let Some(interval) = opts.interval.filter(|i| *i > 0.0) else { return };
    let interval_us = interval * 1e6;
    let (rx, tx) = (g.get(Counter::RxPauseDuration), g.get(Counter::TxPauseDuration));
    let (us, counter, whom) = if rx >= tx {
        (rx, Counter::RxPauseDuration, "paused by its peer")
    } else {
        (tx, Counter::TxPauseDuration, "asking its peer to pause")
    };
    let share = us as f64 / interval_us;
    if us == 0 || share < opts.pause_share {
        return;
    }
    let prio = key.2.map(|p| format!(" on priority {p}")).unwrap_or_default();
    let mut f = finding(
        "AUDIT-PAUSE-STORM",
        if share >= 0.5 { Severity::Error } else { Severity::Warning },
        key,
        format!(
            "{:.1}% of the {interval} s interval spent {whom}{prio} ({us} us; the threshold is {:.1}%)",
            (share * 100.0).min(100.0),
            opts.pause_share * 100.0
        ),
        "a priority paused for that share of the time runs at that much less than its line rate: the congestion behind the pause is persistent (a slow receiver, an incast DCQCN does not tame), and pause spreads it upstream",
        "find the receiver or the queue that keeps the port congested (ECN marks and CNPs on the path, the peer's counters); check that DCQCN runs and that ECN marks below the pause threshold",
        SRC_PAUSE_SHARE,
    );
    f.class = key.2.map(|p| intent.class(p));
    f.location = g.at(counter);
    out.push(f);
}

/// CNPs on the wrong priority: the adapter's notification point sends CNPs with the priority
/// and DSCP of its settings (`cnp_802p_prio`, `cnp_dscp`); the fabric carries them on its CNP
/// class, which the switches serve first so that the notification reaches the sender while
/// the congestion lasts. A CNP on another priority waits behind the data it is about, or is
/// paused with it. An error when the adapter's counters show CNPs sent, a warning otherwise.
fn cnp_priority(intent: &dyn Intent, key: Key<'_>, g: &Group<'_>, when: &str, out: &mut Vec<Finding>) {
    let (dev, port, _) = key;
    let sent = g.get(Counter::CnpSent);
    let mut wrong = Vec::new();
    if g.has(Counter::CnpPriority) {
        if let Some(want) = intent.cnp_priority(dev, port) {
            let got = g.get(Counter::CnpPriority);
            if got != u64::from(want) {
                wrong.push((
                    Counter::CnpPriority,
                    format!("priority {got}, where the fabric's CNP class is on priority {want}"),
                ));
            }
        }
    }
    let dscps = intent.cnp_dscp();
    if g.has(Counter::CnpDscp) && !dscps.is_empty() {
        let got = g.get(Counter::CnpDscp);
        if !dscps.iter().any(|&d| u64::from(d) == got) {
            let want: Vec<String> = dscps.iter().map(u8::to_string).collect();
            wrong.push((
                Counter::CnpDscp,
                format!("DSCP {got}, where the fabric's CNP class has DSCP {}", want.join(", ")),
            ));
        }
    }
    if wrong.is_empty() {
        return;
    }
    let what: Vec<&str> = wrong.iter().map(|(_, w)| w.as_str()).collect();
    let mut f = finding(
        "AUDIT-CNP-PRIORITY",
        if sent > 0 { Severity::Error } else { Severity::Warning },
        key,
        format!("the adapter sends CNPs with {}; {sent} CNPs sent {when}", what.join(" and ")),
        "a CNP off its class is queued behind the congested data it reports, or paused with it: the sender learns of the congestion late, and DCQCN reacts too slowly to keep PFC from pausing the fabric",
        "set the notification point's CNP priority and DSCP to the CNP class (mlx5: `echo PRIO > /sys/class/net/IF/ecn/roce_np/cnp_802p_prio`, `echo DSCP > /sys/class/net/IF/ecn/roce_np/cnp_dscp`, as `rocelab config` renders)",
        SRC_MLX5_CNP,
    );
    f.location = g.at(wrong[0].0);
    out.push(f);
}

/// Loss on the RDMA path: a reliable connection sees it as out-of-sequence packets at the
/// responder, sequence-error NAKs and ACK timeouts at the requester (IBA vol. 1 §9.7). On a
/// lossless fabric each is a packet lost somewhere. Without a baseline they may be old.
fn rdma(key: Key<'_>, g: &Group<'_>, when: &str, with_baseline: bool, out: &mut Vec<Finding>) {
    let (oos, seq, ack) =
        (g.get(Counter::OutOfSequence), g.get(Counter::PacketSeqErr), g.get(Counter::LocalAckTimeout));
    if oos + seq + ack == 0 {
        return;
    }
    let mut f = finding(
        "AUDIT-RDMA-LOSS",
        if with_baseline { Severity::Error } else { Severity::Warning },
        key,
        format!("{oos} out-of-sequence packets, {seq} packet sequence errors and {ack} local ACK timeouts {when}"),
        "each is a RoCE packet lost on the path: the queue pair goes back N packets (or waits for a timeout) and its throughput collapses; on a lossless fabric nothing should be lost",
        "find the drop: discards on the lossless priority along the path (`rocelab audit` on the switches' counters), PFC off at one hop, or traffic classified onto a lossy priority",
        SRC_IBA_RC,
    );
    f.location = [Counter::OutOfSequence, Counter::PacketSeqErr, Counter::LocalAckTimeout]
        .into_iter()
        .find(|&c| g.get(c) > 0)
        .and_then(|c| g.at(c));
    out.push(f);
}

/// DCQCN (Zhu et al., SIGCOMM 2015): the notification point answers ECN-marked RoCE packets
/// with CNPs, the reaction point cuts its rate for each CNP it handles. Marks without CNPs mean
/// the notification point is off; CNPs ignored, or sent in the fabric but handled nowhere, mean
/// the reaction point is off or throttled.
fn cnp(groups: &BTreeMap<Key<'_>, Group<'_>>, when: &str, out: &mut Vec<Finding>) {
    // Per device and port, over every priority.
    let mut dev: BTreeMap<(&str, Option<&str>), Group<'_>> = BTreeMap::new();
    for (&(d, p, _), g) in groups {
        let e = dev.entry((d, p)).or_default();
        for (&c, &(v, s)) in &g.values {
            let x = e.values.entry(c).or_insert((0, s));
            x.0 = x.0.saturating_add(v);
        }
    }
    let sent_total: u64 = dev.values().map(|g| g.get(Counter::CnpSent)).sum();
    let handled_total: u64 = dev.values().map(|g| g.get(Counter::CnpHandled)).sum();
    for (&(d, p), g) in &dev {
        let key = (d, p, None);
        let (marked, sent) = (g.get(Counter::EcnMarked), g.get(Counter::CnpSent));
        if marked > 0 && g.has(Counter::CnpSent) && sent == 0 {
            let mut f = finding(
                "AUDIT-ECN-NO-CNP",
                Severity::Error,
                key,
                format!("{marked} ECN-marked RoCE packets received and no CNP sent {when}"),
                "without CNPs the senders never learn of the congestion the switches marked: DCQCN does not slow them, queues grow until PFC pauses the fabric",
                "turn the DCQCN notification point on for the RDMA priority (mlx5: `echo 1 > /sys/class/net/IF/ecn/roce_np/enable/PRIO`)",
                SRC_DCQCN,
            );
            f.location = g.at(Counter::EcnMarked);
            out.push(f);
        }
        let ignored = g.get(Counter::CnpIgnored);
        if ignored > 0 {
            let mut f = finding(
                "AUDIT-CNP-NOT-HANDLED",
                Severity::Warning,
                key,
                format!("{ignored} CNPs ignored and {} handled {when}", g.get(Counter::CnpHandled)),
                "an ignored CNP is congestion the sender does not react to: the reaction point is off for the priority, or throttled",
                "turn the DCQCN reaction point on for the RDMA priority (mlx5: `echo 1 > /sys/class/net/IF/ecn/roce_rp/enable/PRIO`) and check its rate-limiting settings",
                SRC_DCQCN,
            );
            f.location = g.at(Counter::CnpIgnored);
            out.push(f);
        } else if sent_total > 0 && handled_total == 0 && g.has(Counter::CnpHandled) {
            let mut f = finding(
                "AUDIT-CNP-NOT-HANDLED",
                Severity::Error,
                key,
                format!("no CNP handled {when}, while the fabric's notification points sent {sent_total}"),
                "CNPs that no sender handles leave DCQCN without its reaction: senders keep their rate and congestion ends in pause",
                "turn the DCQCN reaction point on for the RDMA priority on every sender (mlx5: `echo 1 > /sys/class/net/IF/ecn/roce_rp/enable/PRIO`)",
                SRC_DCQCN,
            );
            f.location = g.at(Counter::CnpHandled);
            out.push(f);
        }
    }
}

/// `3, 4` for a mask with bits 3 and 4; `none` for 0.
pub(super) fn mask(m: u8) -> String {
    let v: Vec<String> = (0..8).filter(|p| m & (1 << p) != 0).map(|p| p.to_string()).collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
