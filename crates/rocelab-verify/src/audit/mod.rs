//! `rocelab audit`: the counters of a running fabric read against its intent.
//!
//! Device output (one or more files per device, each format recognised from its content: see
//! [`parse`]) becomes [`Sample`]s of a vendor-independent model: per device, per port, per
//! priority, each counter named in the field's words ([`Counter`]) with the file and line it came
//! from. With a baseline (an earlier snapshot of the same counters), the samples become the
//! increase over the interval ([`delta`]); a counter that went down was reset, and is reported as
//! such. [`rules::audit`] then reads them against the fabric's intent (which priorities are
//! lossless, where PFC is on) and returns findings.
//!
//! File names give the device: `<device>.<anything>` (e.g. `leaf1.pfc.txt`,
//! `host1.ethtool.txt`), `<device>` being a device of the fabric. Switch tables name their ports;
//! host output (`ethtool -S`, `hw_counters`) does not, and is the device's one cabled port when it
//! has one, else the device as a whole.

pub mod aliases;
pub mod expect;
pub mod intent;
mod json;
pub mod parse;
mod parse_cumulus;
mod parse_json;
mod parse_switch;
pub mod rules;
pub mod rules_buffers;
pub mod sarif;
pub mod settings;

use crate::state::Origin;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

pub use intent::{Inferred, Intent};
pub use rules::{audit, audit_with, Options};

/// A counter, named as an engineer would name it; each driver's names map to these
/// ([`aliases`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    /// PFC pause frames received (IEEE 802.1Qbb).
    RxPause,
    /// PFC pause frames sent.
    TxPause,
    /// Time paused by received PFC frames, in microseconds (mlx5).
    RxPauseDuration,
    /// Time the port asked its peer to pause, in microseconds (mlx5).
    TxPauseDuration,
    /// XOFF to XON transitions of received pause (mlx5).
    RxPauseTransition,
    /// IEEE 802.3x link-level pause frames received.
    RxLinkPause,
    /// IEEE 802.3x link-level pause frames sent.
    TxLinkPause,
    /// Packets dropped for lack of buffer (per priority where the device counts so).
    Discards,
    /// Packets dropped at an egress queue (switch traffic class).
    QueueDrops,
    /// ECN-marked (CE) RoCE packets received by the notification point.
    EcnMarked,
    /// CNPs sent by the notification point.
    CnpSent,
    /// CNPs handled by the reaction point (rate reduced).
    CnpHandled,
    /// CNPs the reaction point ignored.
    CnpIgnored,
    /// Out-of-sequence packets received (a packet of the RDMA path was lost).
    OutOfSequence,
    /// Packet sequence error NAKs received.
    PacketSeqErr,
    /// Transport retries after a local ACK timeout.
    LocalAckTimeout,
    /// The adapter sent pause for a long time (mlx5 stall detection, minor watermark).
    PauseStormWarning,
    /// The adapter sent pause until its stall timeout stopped pause transmission (critical).
    PauseStormError,
    /// PFC storms the switch's PFC watchdog detected on a queue (SONiC `pfcwd`).
    WatchdogStorms,
    /// Packets the switch marked CE (ECN) at an egress queue.
    EcnMarkedEgress,
    /// Packets WRED dropped at an egress queue (ECN-capable packets are marked instead).
    WredDrops,
    /// The most bytes a priority group held in its PFC headroom (a watermark: a peak, not a
    /// count).
    HeadroomWatermark,
    /// The most bytes a priority group held in the shared pool (a watermark).
    SharedWatermark,
    /// Not a counter but a setting read beside them ([`settings`]): the 802.1p priority the
    /// adapter's notification point sends CNPs with.
    CnpPriority,
    /// A setting: the DSCP the adapter's notification point sends CNPs with.
    CnpDscp,
}

impl Counter {
    /// The counter in words, for findings.
    pub fn words(self) -> &'static str {
        match self {
            Counter::RxPause => "PFC pause frames received",
            Counter::TxPause => "PFC pause frames sent",
            Counter::RxPauseDuration => "time paused by received PFC (us)",
            Counter::TxPauseDuration => "time the peer was asked to pause (us)",
            Counter::RxPauseTransition => "pause XOFF-to-XON transitions",
            Counter::RxLinkPause => "802.3x link pause frames received",
            Counter::TxLinkPause => "802.3x link pause frames sent",
            Counter::Discards => "packets discarded for lack of buffer",
            Counter::QueueDrops => "packets dropped at the egress queue",
            Counter::EcnMarked => "ECN-marked RoCE packets received",
            Counter::CnpSent => "CNPs sent",
            Counter::CnpHandled => "CNPs handled",
            Counter::CnpIgnored => "CNPs ignored",
            Counter::OutOfSequence => "out-of-sequence packets",
            Counter::PacketSeqErr => "packet sequence error NAKs",
            Counter::LocalAckTimeout => "local ACK timeouts",
            Counter::PauseStormWarning => "pause storm warnings",
            Counter::PauseStormError => "pause storm errors (pause transmission stopped)",
            Counter::WatchdogStorms => "PFC watchdog storms detected",
            Counter::EcnMarkedEgress => "packets ECN-marked at the egress queue",
            Counter::WredDrops => "packets WRED dropped at the egress queue",
            Counter::HeadroomWatermark => "headroom watermark (bytes)",
            Counter::SharedWatermark => "shared pool watermark (bytes)",
            Counter::CnpPriority => "priority CNPs are sent with (setting)",
            Counter::CnpDscp => "DSCP CNPs are sent with (setting)",
        }
    }

    /// A watermark is the peak of a gauge since it was last cleared, not a count: over an
    /// interval it is read as it is, never as a difference (SONiC `watermarkstat`: "the maximum
    /// buffer occupancy since the last clear").
    pub fn is_watermark(self) -> bool {
        matches!(self, Counter::HeadroomWatermark | Counter::SharedWatermark)
    }

    /// A setting read beside the counters: its value is as read, not an amount that grows.
    pub fn is_setting(self) -> bool {
        matches!(self, Counter::CnpPriority | Counter::CnpDscp)
    }
}

/// One counter of one device, as read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    pub device: String,
    /// The port of the fabric it belongs to; none for counters of the device as a whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    /// The egress queue, for counters kept per queue (the audit reads them on the priorities
    /// whose class the intent puts on that queue).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<u8>,
    pub counter: Counter,
    /// The name the device printed.
    pub name: String,
    /// The value read, or with a baseline its increase over the interval.
    pub value: u64,
    pub at: Origin,
}

impl Sample {
    fn key(&self) -> (&str, Option<&str>, Option<u8>, Option<u8>, &str) {
        (&self.device, self.port.as_deref(), self.priority, self.queue, &self.name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The input lost something (the audit is incomplete).
    Error,
    /// Something was left out on purpose (a port the fabric does not have).
    Warning,
}

/// A located problem with the input: file, line (1-based), column (0: none), what and a
/// suggestion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    pub level: Level,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub hint: String,
}

impl Problem {
    pub fn error(file: &str, line: usize, column: usize, message: &str, hint: &str) -> Problem {
        Problem { level: Level::Error, file: file.into(), line, column, message: message.into(), hint: hint.into() }
    }

    pub fn warning(file: &str, line: usize, message: &str, hint: &str) -> Problem {
        Problem { level: Level::Warning, ..Problem::error(file, line, 0, message, hint) }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        match self.column {
            0 => write!(f, "{}:{}: {level}: {}", self.file, self.line, self.message)?,
            c => write!(f, "{}:{}:{c}: {level}: {}", self.file, self.line, self.message)?,
        }
        write!(f, "\n  help: {}", self.hint)
    }
}

/// The counters of a folder.
#[derive(Debug, Default, Serialize)]
pub struct Snapshot {
    pub samples: Vec<Sample>,
    pub problems: Vec<Problem>,
}

/// The most a counter file may hold: `ethtool -S` of a many-queue adapter is some hundred
/// kilobytes; anything far larger is not counter output.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// The device a file name gives: the longest run of its leading dot-separated fields that names
/// a device of the intent (device names may hold dots); its first field where the intent takes
/// any device.
fn device_of(intent: &dyn Intent, file_name: &str) -> Option<String> {
    let fields: Vec<&str> = file_name.split('.').collect();
    if intent.any_port() {
        return fields.first().filter(|f| !f.is_empty()).map(|f| f.to_string());
    }
    (1..=fields.len()).rev().map(|n| fields[..n].join(".")).find(|d| intent.ports_of(d).is_some())
}

/// Reads every file of `dir` (not its sub-folders; `*.md` files are notes and skipped). Err only
/// when the folder itself cannot be read.
pub fn read_dir(dir: &Path, intent: &dyn Intent) -> Result<Snapshot, String> {
    read_dir_except(dir, intent, &[])
}

/// [`read_dir`], leaving out the files named in `skip` (the devices' configuration and LLDP
/// output the intent was imported from).
pub fn read_dir_except(dir: &Path, intent: &dyn Intent, skip: &[String]) -> Result<Snapshot, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: cannot read the folder: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    paths.sort();
    let mut snap = Snapshot::default();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with('.') || name.ends_with(".md") || skip.contains(&name) {
            continue;
        }
        let file = path.display().to_string();
        let text = match std::fs::metadata(&path) {
            Ok(m) if m.len() > MAX_FILE_BYTES => Err(format!("{} bytes, more than counter output holds", m.len())),
            _ => std::fs::read(&path).map(|b| String::from_utf8_lossy(&b).into_owned()).map_err(|e| e.to_string()),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                snap.problems.push(Problem::error(
                    &file,
                    0,
                    0,
                    &format!("cannot read the file: {e}"),
                    "check the file",
                ));
                continue;
            }
        };
        read_text(&text, &file, &name, intent, &mut snap);
    }
    Ok(snap)
}

/// Adds what `text` (the file `file`, named `name`) holds to `snap`.
pub fn read_text(text: &str, file: &str, name: &str, intent: &dyn Intent, snap: &mut Snapshot) {
    let Some(device) = device_of(intent, name) else {
        let mut known = intent.device_names();
        known.truncate(8);
        snap.problems.push(Problem::error(
            file,
            1,
            0,
            &format!("`{name}` does not start with a device of the fabric"),
            &format!(
                "name counter files `<device>.<anything>.txt`, e.g. `{}.pfc.txt`; devices: {}",
                known.first().map_or("leaf1", String::as_str),
                known.join(", ")
            ),
        ));
        return;
    };
    let ports = intent.ports_of(&device).unwrap_or_default();
    let parsed = if settings::recognise(text) { settings::parse(text, file) } else { parse::parse(text, file) };
    snap.problems.extend(parsed.problems);
    // Host output names no port: its one cabled port, when it has exactly one.
    let mut cabled = ports.iter().filter(|p| p.1);
    let only_port = match (cabled.next(), cabled.next()) {
        (Some(p), None) => Some(p.0.clone()),
        _ => None,
    };
    // Cumulus NVUE output names no port: the file name does (`<device>.<port>.<what>.txt`).
    let named_port = match parsed.format {
        Some(parse::Format::CumulusRoce | parse::Format::CumulusQos) => {
            match parse_cumulus::port_in_name(name, &device) {
                Some(p) if intent.any_port() || ports.iter().any(|q| q.0 == p) => Some(p),
                got => {
                    let known: Vec<&str> = ports.iter().filter(|p| p.1).map(|p| p.0.as_str()).take(8).collect();
                    let what =
                        got.map_or("names no port".to_string(), |p| format!("names `{p}`, not a port of `{device}`"));
                    snap.problems.push(Problem::error(
                        file,
                        1,
                        0,
                        &format!("`{name}` {what}, and NVIDIA Cumulus counter output does not name its port"),
                        &format!(
                            "name the file `<device>.<port>.<what>.txt`, e.g. `{device}.{}.roce.txt`; ports: {}",
                            known.first().copied().unwrap_or("swp1"),
                            known.join(", ")
                        ),
                    ));
                    return;
                }
            }
        }
        _ => None,
    };
    let mut unknown_ports: BTreeMap<String, usize> = BTreeMap::new();
    for row in parsed.rows {
        let port = match row.port.or_else(|| named_port.clone()) {
            Some(p) if intent.any_port() || ports.iter().any(|q| q.0 == p) => Some(p),
            Some(p) => {
                unknown_ports.entry(p).or_insert(row.line);
                continue;
            }
            None => only_port.clone(),
        };
        snap.samples.push(Sample {
            device: device.clone(),
            port,
            priority: row.priority,
            queue: row.queue,
            counter: row.counter,
            name: row.name,
            value: row.value,
            at: Origin { file: file.to_string(), line: row.line },
        });
    }
    for (port, line) in unknown_ports {
        snap.problems.push(Problem::warning(
            file,
            line,
            &format!("`{port}` is not a port of `{device}` in the fabric; its counters are left out"),
            "add the port to the fabric file if it carries traffic of this fabric",
        ));
    }
}

/// A counter lower than in the baseline: the device or someone cleared it in between.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reset {
    pub sample: Sample,
    pub baseline: u64,
}

/// The increase of each counter since `baseline`: a counter that went down was reset, and its
/// value now is what it counted since (at least); a counter the baseline lacks, a watermark and a setting
/// are taken as they are.
pub fn delta(current: &Snapshot, baseline: &Snapshot) -> (Vec<Sample>, Vec<Reset>) {
    let before: BTreeMap<_, u64> = baseline.samples.iter().map(|s| (s.key(), s.value)).collect();
    let mut out = Vec::with_capacity(current.samples.len());
    let mut resets = Vec::new();
    for s in &current.samples {
        let mut d = s.clone();
        if s.counter.is_watermark() || s.counter.is_setting() {
            out.push(d);
            continue;
        }
        match before.get(&s.key()) {
            Some(&b) if s.value >= b => d.value = s.value - b,
            Some(&b) => resets.push(Reset { sample: s.clone(), baseline: b }),
            None => {}
        }
        out.push(d);
    }
    (out, resets)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod testfabric;
