//! Counter output as the devices print it, recognised from its content (not its file name):
//!
//! - NVIDIA ConnectX `ethtool -S <interface>`: `NIC statistics:` then one `name: value` a line
//!   (Linux `ethtool` prints each statistic indented, as `"     %s: %llu"`);
//! - Broadcom (bnxt_en) and Intel (ice) `ethtool -S`, and their RDMA drivers' (bnxt_re, irdma)
//!   `hw_counters` printed the same way: the driver is told by the names the file holds
//!   ([`aliases`] has one table per driver);
//! - NVIDIA ConnectX RDMA counters as `grep . /sys/class/infiniband/<dev>/ports/<n>/hw_counters/*`
//!   prints them (`<path>/<name>:<value>`), or `grep . *` inside that folder (`<name>:<value>`);
//! - SONiC `show pfc counters`: a `Port Rx` and a `Port Tx` table with the columns `PFC0` to
//!   `PFC7` (sonic-utilities `pfcstat`; values may carry thousands separators, `N/A` where a
//!   counter is not available);
//! - SONiC `show queue counters`: `Port`, `TxQ` (`UC3`: unicast queue 3), `Counter/pkts`, ...,
//!   `Drop/pkts`, ... per port and queue (sonic-utilities `queuestat`);
//! - SONiC `show pfcwd stats`: `QUEUE` (`Ethernet0:3`), `STATUS`, `STORM DETECTED/RESTORED`,
//!   `TX OK/DROP`, `RX OK/DROP`, ... with `a/b` pairs (sonic-utilities `pfcwd`);
//! - SONiC `show queue wredcounters`: the layout of `show queue counters` with the columns
//!   `WredDrp/pkts`, `WredDrp/bytes`, `EcnMarked/pkts`, `EcnMarked/bytes` (sonic-utilities
//!   `queuestat`, tests' `show_wred_queue_counters`);
//! - SONiC `show priority-group watermark headroom|shared` (`parse_switch.rs`);
//! - Arista EOS `show priority-flow-control counters`: `Port`, `RxPfc`, `TxPfc` per interface;
//! - NVIDIA Cumulus NVUE `nv show interface IF qos roce counters` and `nv show interface IF
//!   counters qos` (`parse_cumulus.rs`);
//! - JSON: EOS `| json` of the PFC, ECN and queue-drop counters, SONiC `show queue
//!   wredcounters -j`, iproute2 `rdma -j statistic show` (`parse_json.rs`).
//!
//! Each value keeps the line it was read from. A line that cannot be read (a value that is not a
//! number, a line cut short) is a located problem; the other lines are still read.

use super::aliases::{self, Alias};
use super::{Counter, Problem};

/// The formats, for messages and the JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Mlx5Ethtool,
    Mlx5HwCounters,
    BnxtEthtool,
    BnxtReHwCounters,
    IceEthtool,
    IrdmaHwCounters,
    SonicPfc,
    SonicQueue,
    SonicPfcwd,
    SonicWred,
    SonicPgWatermark,
    EosPfc,
    EosPfcJson,
    EosEcnJson,
    EosQueueDropsJson,
    SonicWredJson,
    Mlx5RdmaStat,
    BnxtReRdmaStat,
    IrdmaRdmaStat,
    CumulusRoce,
    CumulusQos,
}

impl Format {
    pub fn describe(self) -> &'static str {
        match self {
            Format::Mlx5Ethtool => "NVIDIA ConnectX `ethtool -S`",
            Format::Mlx5HwCounters => "NVIDIA ConnectX RDMA hw_counters",
            Format::BnxtEthtool => "Broadcom bnxt_en `ethtool -S`",
            Format::BnxtReHwCounters => "Broadcom bnxt_re RDMA hw_counters",
            Format::IceEthtool => "Intel ice `ethtool -S`",
            Format::IrdmaHwCounters => "Intel irdma RDMA hw_counters",
            Format::SonicPfc => "SONiC `show pfc counters`",
            Format::SonicQueue => "SONiC `show queue counters`",
            Format::SonicPfcwd => "SONiC `show pfcwd stats`",
            Format::SonicWred => "SONiC `show queue wredcounters`",
            Format::SonicPgWatermark => "SONiC `show priority-group watermark`",
            Format::EosPfc => "Arista EOS `show priority-flow-control counters`",
            Format::EosPfcJson => "Arista EOS `show priority-flow-control counters | json`",
            Format::EosEcnJson => "Arista EOS `show qos interfaces ecn counters queue | json`",
            Format::EosQueueDropsJson => "Arista EOS `show interfaces counters queue drops | json`",
            Format::SonicWredJson => "SONiC `show queue wredcounters -j`",
            Format::Mlx5RdmaStat => "NVIDIA ConnectX `rdma -j statistic show`",
            Format::BnxtReRdmaStat => "Broadcom bnxt_re `rdma -j statistic show`",
            Format::IrdmaRdmaStat => "Intel irdma `rdma -j statistic show`",
            Format::CumulusRoce => "NVIDIA Cumulus `nv show interface IF qos roce counters`",
            Format::CumulusQos => "NVIDIA Cumulus `nv show interface IF counters qos`",
        }
    }

    /// The command that prints the format, for hints.
    pub fn command(self) -> &'static str {
        match self {
            Format::Mlx5Ethtool | Format::BnxtEthtool | Format::IceEthtool => "ethtool -S IF",
            Format::Mlx5HwCounters | Format::BnxtReHwCounters | Format::IrdmaHwCounters => {
                "grep . /sys/class/infiniband/DEV/ports/1/hw_counters/*"
            }
            Format::SonicPfc => "show pfc counters",
            Format::SonicQueue => "show queue counters",
            Format::SonicPfcwd => "show pfcwd stats",
            Format::SonicWred => "show queue wredcounters",
            Format::SonicPgWatermark => "show priority-group watermark headroom",
            Format::EosPfc => "show priority-flow-control counters",
            Format::EosPfcJson => "show priority-flow-control counters | json",
            Format::EosEcnJson => "show qos interfaces ecn counters queue | json",
            Format::EosQueueDropsJson => "show interfaces counters queue drops | json",
            Format::SonicWredJson => "show queue wredcounters -j",
            Format::Mlx5RdmaStat | Format::BnxtReRdmaStat | Format::IrdmaRdmaStat => "rdma -j statistic show",
            Format::CumulusRoce => "nv show interface IF qos roce counters",
            Format::CumulusQos => "nv show interface IF counters qos",
        }
    }

    /// The names a `name: value` format reads.
    pub(super) fn table(self) -> &'static [Alias] {
        match self {
            Format::Mlx5Ethtool => aliases::MLX5_ETHTOOL,
            Format::Mlx5HwCounters | Format::Mlx5RdmaStat => aliases::MLX5_RDMA,
            Format::BnxtEthtool => aliases::BNXT_ETHTOOL,
            Format::BnxtReHwCounters | Format::BnxtReRdmaStat => aliases::BNXT_RE,
            Format::IceEthtool => aliases::ICE_ETHTOOL,
            Format::IrdmaHwCounters | Format::IrdmaRdmaStat => aliases::IRDMA,
            _ => &[],
        }
    }
}

/// `ethtool -S` and `hw_counters` print the same way for every driver: the driver is the one
/// whose table names the most of the file's counters (a tie, or none, is the first of
/// `candidates`).
fn by_names(text: &str, candidates: &[Format]) -> Format {
    let name = |l: &str| -> Option<String> {
        let (k, _) = l.rsplit_once(':')?;
        Some(k.trim().rsplit('/').next().unwrap_or(k).trim().to_string())
    };
    let names: Vec<String> = text.lines().filter_map(name).collect();
    let score = |f: &Format| names.iter().filter(|n| aliases::lookup(f.table(), n).is_some()).count();
    let best = candidates.iter().map(score).max().unwrap_or(0);
    *candidates.iter().find(|f| score(f) == best).unwrap_or(&candidates[0])
}

/// One value read from a file, before it is given a device.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The port the output names (switch tables); none where the output does not name one.
    pub port: Option<String>,
    pub priority: Option<u8>,
    /// The egress queue, for counters kept per queue.
    pub queue: Option<u8>,
    pub counter: Counter,
    /// The counter's name as printed.
    pub name: String,
    pub value: u64,
    pub line: usize,
}

/// What one file gave.
#[derive(Debug, Default)]
pub struct Parsed {
    pub format: Option<Format>,
    pub rows: Vec<Row>,
    pub problems: Vec<Problem>,
}

/// The format of `text`, from its content.
pub fn detect(text: &str) -> Option<Format> {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines().next()?;
    if let Some(f) = super::parse_json::detect(text) {
        return Some(f);
    }
    if first == "NIC statistics:" {
        return Some(by_names(text, &[Format::Mlx5Ethtool, Format::BnxtEthtool, Format::IceEthtool]));
    }
    if lines().any(|l| l.starts_with("Port Rx") && l.contains("PFC0")) {
        return Some(Format::SonicPfc);
    }
    if lines().any(|l| l.starts_with("QUEUE") && l.contains("STORM DETECTED/RESTORED")) {
        return Some(Format::SonicPfcwd);
    }
    if lines().any(|l| l.starts_with("Port") && l.contains("TxQ") && l.contains("Drop/pkts")) {
        return Some(Format::SonicQueue);
    }
    if lines().any(|l| l.starts_with("Port") && l.contains("TxQ") && l.contains("WredDrp/pkts")) {
        return Some(Format::SonicWred);
    }
    if super::parse_switch::is_pg_watermark(text) {
        return Some(Format::SonicPgWatermark);
    }
    if lines().any(|l| l.starts_with("Port") && l.contains("RxPfc") && l.contains("TxPfc")) {
        return Some(Format::EosPfc);
    }
    if let Some(f) = super::parse_cumulus::detect(text) {
        return Some(f);
    }
    const RDMA: [Format; 3] = [Format::Mlx5HwCounters, Format::BnxtReHwCounters, Format::IrdmaHwCounters];
    let rdma_name = |l: &str| {
        let name = l.rsplit_once(':').map(|(k, _)| k.rsplit('/').next().unwrap_or(k));
        name.is_some_and(|n| RDMA.iter().any(|f| aliases::lookup(f.table(), n).is_some()))
    };
    if lines().any(rdma_name) {
        return Some(by_names(text, &RDMA));
    }
    None
}

/// Reads `text` (the content of `file`).
pub fn parse(text: &str, file: &str) -> Parsed {
    let Some(format) = detect(text) else {
        return Parsed {
            format: None,
            rows: Vec::new(),
            problems: vec![Problem::error(
                file,
                1,
                0,
                "not counter output rocelab reads",
                "give `ethtool -S IF` or `grep . /sys/class/infiniband/DEV/ports/1/hw_counters/*` of an NVIDIA \
                 ConnectX, Broadcom bnxt or Intel ice/irdma host (or `rdma -j statistic show`), SONiC `show pfc counters`, \
                 `show queue counters|wredcounters`, `show priority-group watermark headroom`, `show pfcwd stats`, or Arista EOS \
                 `show priority-flow-control counters` (text or `| json`), `show qos interfaces ecn counters queue | json`, \
                 `show interfaces counters queue drops | json`, or NVIDIA Cumulus `nv show interface IF qos roce counters` \
                 or `nv show interface IF counters qos`, as the device prints it",
            )],
        };
    };
    let mut p = Parsed { format: Some(format), ..Parsed::default() };
    match format {
        Format::Mlx5Ethtool | Format::BnxtEthtool | Format::IceEthtool => {
            name_value(text, file, format.table(), ": ", &mut p)
        }
        Format::Mlx5HwCounters | Format::BnxtReHwCounters | Format::IrdmaHwCounters => {
            name_value(text, file, format.table(), ":", &mut p)
        }
        Format::SonicPfc => sonic_pfc(text, file, &mut p),
        Format::SonicQueue | Format::SonicWred => sonic_queue(text, file, format.command(), &mut p),
        Format::SonicPgWatermark => super::parse_switch::sonic_pg_watermark(text, file, &mut p),
        Format::SonicPfcwd => sonic_pfcwd(text, file, &mut p),
        Format::EosPfc => eos_pfc(text, file, &mut p),
        Format::CumulusRoce => super::parse_cumulus::roce(text, file, &mut p),
        Format::CumulusQos => super::parse_cumulus::qos(text, file, &mut p),
        Format::EosPfcJson
        | Format::EosEcnJson
        | Format::EosQueueDropsJson
        | Format::SonicWredJson
        | Format::Mlx5RdmaStat
        | Format::BnxtReRdmaStat
        | Format::IrdmaRdmaStat => super::parse_json::parse(text, file, format, &mut p),
    }
    p
}

/// A counter value: digits, with the thousands separators SONiC prints.
pub(super) fn number(s: &str) -> Option<u64> {
    let digits: String = s.chars().filter(|&c| c != ',').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A table row with more or fewer values than the table has columns: the output was cut (or
/// two tables run together); the row is reported and skipped, the other rows still read.
pub(super) fn cut_short(file: &str, line: usize, row: &str, got: usize, expected: &str, command: &str) -> Problem {
    Problem::error(
        file,
        line,
        0,
        &format!("{row} has {got} values where {expected}: the table is cut short"),
        &format!("collect the whole `{command}` output again"),
    )
}

pub(super) fn not_a_number(file: &str, line: usize, column: usize, name: &str, value: &str) -> Problem {
    Problem::error(
        file,
        line,
        column,
        &format!("counter `{name}`: `{value}` is not a number"),
        "counters are whole numbers as the device prints them; collect the output again",
    )
}

/// `name<sep>value` a line (`ethtool -S`, `grep . hw_counters/*`): names the table lacks are
/// skipped, lines that are not `name<sep>value` are problems (a line cut short).
fn name_value(text: &str, file: &str, table: &[Alias], sep: &str, p: &mut Parsed) {
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l == "NIC statistics:" {
            continue;
        }
        let Some((key, value)) = l.rsplit_once(sep.trim_end()) else {
            p.problems.push(Problem::error(
                file,
                line,
                0,
                &format!("`{l}` is not `name{sep}value`: the output is cut short or not one counter a line"),
                "collect the whole output again",
            ));
            continue;
        };
        // `grep . hw_counters/*` prints the counter's path; `ethtool` pads some names.
        let name = key.trim().rsplit('/').next().unwrap_or(key).trim();
        let Some((counter, priority)) = aliases::lookup(table, name) else { continue };
        let value = value.trim();
        if value.is_empty() {
            p.problems.push(Problem::error(
                file,
                line,
                0,
                &format!("counter `{name}` has no value: the output is cut short"),
                "collect the whole output again",
            ));
            continue;
        }
        match number(value) {
            Some(v) => {
                p.rows.push(Row { port: None, priority, queue: None, counter, name: name.to_string(), value: v, line })
            }
            None => {
                let column = raw.rfind(value).map_or(0, |c| c + 1);
                p.problems.push(not_a_number(file, line, column, name, value));
            }
        }
    }
}

/// `show pfc counters`: the direction comes from the table's header (`Port Rx` / `Port Tx`), the
/// priority from the column (`PFC3`).
fn sonic_pfc(text: &str, file: &str, p: &mut Parsed) {
    let mut header: Option<(&str, Vec<String>)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            header = None;
            continue;
        }
        if l.starts_with('-') {
            continue;
        }
        let cells: Vec<&str> = l.split_whitespace().collect();
        if cells.first() == Some(&"Port") && cells.len() > 2 && matches!(cells[1], "Rx" | "Tx") {
            header =
                Some((if cells[1] == "Rx" { "Rx" } else { "Tx" }, cells[2..].iter().map(|s| s.to_string()).collect()));
            continue;
        }
        let Some((dir, cols)) = &header else {
            // Lines outside a table: the namespace line of multi-ASIC systems, a prompt.
            continue;
        };
        if cells.len() != cols.len() + 1 {
            p.problems.push(cut_short(
                file,
                line,
                &format!("port `{}`", cells[0]),
                cells.len() - 1,
                &format!("the header has {}", cols.len()),
                "show pfc counters",
            ));
            continue;
        }
        for (col, value) in cols.iter().zip(&cells[1..]) {
            let name = format!("{dir} {col}");
            let Some((counter, priority)) = aliases::lookup(aliases::SONIC_PFC, &name) else { continue };
            if *value == "N/A" {
                continue;
            }
            match number(value) {
                Some(v) => p.rows.push(Row {
                    port: Some(cells[0].to_string()),
                    priority,
                    queue: None,
                    counter,
                    name,
                    value: v,
                    line,
                }),
                None => {
                    let column = raw.find(value).map_or(0, |c| c + 1);
                    p.problems.push(not_a_number(file, line, column, &name, value));
                }
            }
        }
    }
}

/// The queue of a `TxQ` label: `UC3`, `MC8`, `ALL3` (newer builds count unicast and multicast
/// together).
pub(super) fn queue_of(label: &str) -> Option<u8> {
    let digits = label.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    (digits.len() < label.len()).then_some(())?;
    digits.parse().ok()
}

/// `show queue counters` and `show queue wredcounters` (`command`): the columns by the header's
/// names; `N/A` where the platform does not count. Lines outside the table (`For namespace :`,
/// `Last cached time was ...`) are skipped.
fn sonic_queue(text: &str, file: &str, command: &str, p: &mut Parsed) {
    let mut cols: Option<Vec<String>> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let cells: Vec<&str> = raw.split_whitespace().collect();
        if cells.is_empty() || cells[0].starts_with('-') {
            continue;
        }
        if cells[0] == "Port" && cells.get(1) == Some(&"TxQ") {
            cols = Some(cells[2..].iter().map(|s| s.to_string()).collect());
            continue;
        }
        let Some(cols) = &cols else { continue };
        let Some(queue) = cells.get(1).and_then(|q| queue_of(q)) else { continue };
        if cells.len() != cols.len() + 2 {
            p.problems.push(cut_short(
                file,
                line,
                &format!("port `{}` queue `{}`", cells[0], cells[1]),
                cells.len() - 2,
                &format!("the header has {}", cols.len()),
                command,
            ));
            continue;
        }
        for (col, value) in cols.iter().zip(&cells[2..]) {
            let Some((counter, _)) = aliases::lookup(aliases::SONIC_QUEUE, col) else { continue };
            if *value == "N/A" {
                continue;
            }
            match number(value) {
                Some(v) => p.rows.push(Row {
                    port: Some(cells[0].to_string()),
                    priority: None,
                    queue: Some(queue),
                    counter,
                    name: format!("{} {col}", cells[1]),
                    value: v,
                    line,
                }),
                None => {
                    let column = raw.rfind(value).map_or(0, |c| c + 1);
                    p.problems.push(not_a_number(file, line, column, col, value));
                }
            }
        }
    }
}

/// `show pfcwd stats`: the header's column names hold spaces, so the row is read by position:
/// `port:queue`, the status, then `a/b` pairs in the order `STORM DETECTED/RESTORED`,
/// `TX OK/DROP`, `RX OK/DROP` (then the `LAST` pairs, not read).
fn sonic_pfcwd(text: &str, file: &str, p: &mut Parsed) {
    const PAIRS: [(&str, &str); 3] = [("STORM DETECTED", "RESTORED"), ("TX OK", "TX DROP"), ("RX OK", "RX DROP")];
    let mut in_table = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let cells: Vec<&str> = raw.split_whitespace().collect();
        if cells.is_empty() || cells[0].starts_with('-') {
            continue;
        }
        if cells[0] == "QUEUE" {
            in_table = true;
            continue;
        }
        let Some((port, queue)) = cells[0].rsplit_once(':').filter(|_| in_table) else { continue };
        let Ok(queue) = queue.parse::<u8>() else { continue };
        if cells.len() < 2 + PAIRS.len() {
            p.problems.push(cut_short(
                file,
                line,
                &format!("queue `{}`", cells[0]),
                cells.len() - 1,
                &format!("at least {} are expected", 1 + PAIRS.len()),
                "show pfcwd stats",
            ));
            continue;
        }
        for ((first, second), cell) in PAIRS.iter().zip(&cells[2..]) {
            if *cell == "N/A" {
                continue;
            }
            let Some((a, b)) = cell.split_once('/') else {
                let column = raw.find(cell).map_or(0, |c| c + 1);
                p.problems.push(not_a_number(file, line, column, &format!("{first}/{second}"), cell));
                continue;
            };
            for (name, value) in [(first, a), (second, b)] {
                let Some((counter, _)) = aliases::lookup(aliases::SONIC_PFCWD, name) else { continue };
                match number(value) {
                    Some(v) => p.rows.push(Row {
                        port: Some(port.to_string()),
                        priority: None,
                        queue: Some(queue),
                        counter,
                        name: format!("{}:{queue} {name}", port),
                        value: v,
                        line,
                    }),
                    None => {
                        let column = raw.find(cell).map_or(0, |c| c + 1);
                        p.problems.push(not_a_number(file, line, column, name, cell));
                    }
                }
            }
        }
    }
}

/// Arista interface names as `show` tables abbreviate them (`Et1/1`), spelt out as the
/// configuration and the fabric file name them (`Ethernet1/1`).
fn eos_interface(name: &str) -> String {
    match name.strip_prefix("Et") {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => format!("Ethernet{rest}"),
        _ => name.to_string(),
    }
}

/// `show priority-flow-control counters`: the columns by the header's names.
fn eos_pfc(text: &str, file: &str, p: &mut Parsed) {
    let mut cols: Option<Vec<String>> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let cells: Vec<&str> = raw.split_whitespace().collect();
        if cells.is_empty() || cells[0].starts_with('-') {
            continue;
        }
        if cells[0] == "Port" && cells.contains(&"RxPfc") {
            cols = Some(cells[1..].iter().map(|s| s.to_string()).collect());
            continue;
        }
        let Some(cols) = &cols else { continue };
        if cells.len() != cols.len() + 1 {
            p.problems.push(cut_short(
                file,
                line,
                &format!("interface `{}`", cells[0]),
                cells.len() - 1,
                &format!("the header has {}", cols.len()),
                "show priority-flow-control counters",
            ));
            continue;
        }
        for (col, value) in cols.iter().zip(&cells[1..]) {
            let Some((counter, priority)) = aliases::lookup(aliases::EOS_PFC, col) else { continue };
            match number(value) {
                Some(v) => p.rows.push(Row {
                    port: Some(eos_interface(cells[0])),
                    priority,
                    queue: None,
                    counter,
                    name: col.clone(),
                    value: v,
                    line,
                }),
                None => {
                    let column = raw.find(value).map_or(0, |c| c + 1);
                    p.problems.push(not_a_number(file, line, column, col, value));
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
