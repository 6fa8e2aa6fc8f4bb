//! NVIDIA Cumulus Linux (NVUE) counter output, as the NVIDIA Cumulus Linux user guide prints it:
//!
//! - `nv show interface IF qos roce counters`: a tree of `rx-stats` and `tx-stats`, each with
//!   sections (`rx-pfc-stats`, `rx-roce-stats`, `tx-ecn-stats`, `tx-pfc-stats`,
//!   `tx-roce-stats`, ...) of `name  value  description` lines under an `operational  applied
//!   description` header ("RDMA over Converged Ethernet - RoCE", Cumulus Linux 5.12,
//!   <https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-512/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/>);
//! - `nv show interface IF counters qos` (and its `pfc-stats` and `egress-queue-stats` parts):
//!   tables under a header and a line of dashes, `switch-priority  rx-pause-frames
//!   rx-pause-duration  tx-pause-frames  tx-pause-duration` and `traffic-class  tx-frames
//!   tx-bytes  tx-uc-buffer-discards  wred-discards`, one row per priority or traffic class
//!   (NVUE command reference, `nv show interface <interface-id> counters qos`; in Cumulus Linux
//!   5.4 and earlier the command is `nv show interface IF qos counters`).
//!
//! Neither output names the port: the file name does (`<device>.<port>.<what>.txt`, see
//! [`port_in_name`]). The RoCE counters are those of the port's RoCE traffic, on whichever switch
//! priority `nv set qos roce` put it: they are read as the port's, with no priority. Pause
//! durations are left out: NVIDIA documents no unit for them. Values in bytes (`56.52 MB`, the
//! tables' `... Bytes` columns) are not packet counts, and are left out too.
//!
//! A `-o json` form exists, but NVIDIA documents none of its output: it is not read.

use super::parse::{cut_short, not_a_number, number, Format, Parsed, Row};
use super::{Counter, Problem};

/// Lines of `qos roce counters` that name a section of its tree.
const ROCE_SECTIONS: [&str; 2] = ["rx-stats", "tx-stats"];

/// The counters of `qos roce counters` that `audit` reads: (section, name) to what it counts.
/// The switch's `tx-ecn-stats` are packets it marked CE on egress; `rx-roce-stats
/// no-buffer-discard` are RoCE packets dropped at ingress for lack of buffer, `tx-roce-stats
/// unicast-no-buffer-discard` those dropped at the egress queue. The non-RoCE (lossy) and CNP
/// traffic's discards are left out: a lossy class may drop.
const ROCE: [(&str, &str, Counter); 5] = [
    ("rx-pfc-stats", "pause-packets", Counter::RxPause),
    ("tx-pfc-stats", "pause-packets", Counter::TxPause),
    ("rx-roce-stats", "no-buffer-discard", Counter::Discards),
    ("tx-roce-stats", "unicast-no-buffer-discard", Counter::QueueDrops),
    ("tx-ecn-stats", "ecn-marked-packets", Counter::EcnMarkedEgress),
];

/// The format of `text`, when it is Cumulus NVUE counter output.
pub(super) fn detect(text: &str) -> Option<Format> {
    let trimmed = || text.lines().map(str::trim);
    if trimmed().any(|l| ROCE.iter().any(|r| l == r.0)) && trimmed().any(|l| ROCE_SECTIONS.contains(&l)) {
        return Some(Format::CumulusRoce);
    }
    let header = |l: &str| {
        (l.starts_with("switch-priority") && l.contains("rx-pause-frames"))
            || (l.starts_with("traffic-class") && l.contains("wred-discards"))
    };
    trimmed().any(header).then_some(Format::CumulusQos)
}

/// The port a Cumulus counter file is of: the field of its name after the device's
/// (`leaf1.swp1.roce.txt` of `leaf1`: `swp1`), when a further field follows it.
pub fn port_in_name(name: &str, device: &str) -> Option<String> {
    let rest = name.strip_prefix(device)?.strip_prefix('.')?;
    let (port, after) = rest.split_once('.')?;
    (!port.is_empty() && !after.is_empty()).then(|| port.to_string())
}

/// `nv show interface IF qos roce counters`: the section of each value is the last line of the
/// tree that holds a name and no value; a counter `audit` reads that has no value, or an output
/// that ends before its `tx-stats`, was cut short.
pub(super) fn roce(text: &str, file: &str, p: &mut Parsed) {
    let command = Format::CumulusRoce.command();
    let mut section = "";
    let mut seen_tx = false;
    let mut last = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let mut cells = raw.split_whitespace();
        let Some(name) = cells.next() else { continue };
        last = line;
        let value = cells.next();
        let known = ROCE.iter().find(|r| r.0 == section && r.1 == name);
        match (value, known) {
            (None, Some(_)) => p.problems.push(Problem::error(
                file,
                line,
                0,
                &format!("counter `{section} {name}` has no value: the output is cut short"),
                &format!("collect the whole `{command}` output again"),
            )),
            (None, None) => {
                section = name;
                seen_tx |= name == "tx-stats";
            }
            (Some(v), Some(&(_, _, counter))) => match number(v) {
                Some(value) => p.rows.push(Row {
                    port: None,
                    priority: None,
                    queue: None,
                    counter,
                    name: format!("{section} {name}"),
                    value,
                    line,
                }),
                None => {
                    let column =
                        raw.find(name).and_then(|at| raw[at + name.len()..].find(v).map(|c| at + name.len() + c + 1));
                    p.problems.push(not_a_number(file, line, column.unwrap_or(0), name, v));
                }
            },
            (Some(_), None) => {}
        }
    }
    if !seen_tx && last > 0 {
        p.problems.push(Problem::error(
            file,
            last,
            0,
            "the output ends before its `tx-stats` section: it is cut short",
            &format!("collect the whole `{command}` output again"),
        ));
    }
}

/// The columns of a table, from its line of dashes: each run of `-` starts one.
fn columns(dashes: &str) -> Vec<usize> {
    let b = dashes.as_bytes();
    (0..b.len()).filter(|&i| b[i] == b'-' && (i == 0 || b[i - 1] == b' ')).collect()
}

/// `nv show interface IF counters qos` (or its `pfc-stats` or `egress-queue-stats` part): the
/// cells of each row are cut at the columns the dashes under the header give (a cell may hold
/// a space: `0 Bytes`); a row that stops before its last column was cut short.
pub(super) fn qos(text: &str, file: &str, p: &mut Parsed) {
    let command = Format::CumulusQos.command();
    // The table being read: its header's names and their columns.
    let mut table: Option<(Vec<String>, Vec<usize>)> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.starts_with("---") {
            let header = if i > 0 { lines[i - 1] } else { "" };
            let cols = columns(raw);
            let names: Vec<String> = cols
                .iter()
                .map(|&c| header.get(c..).unwrap_or("").split_whitespace().next().unwrap_or("").to_string())
                .collect();
            table = matches!(names.first().map(String::as_str), Some("switch-priority" | "traffic-class"))
                .then_some((names, cols));
            continue;
        }
        let Some((names, cols)) = &table else { continue };
        let Some(index) = l.split_whitespace().next().and_then(|c| c.parse::<u8>().ok()).filter(|&n| n < 8) else {
            table = None;
            continue;
        };
        let last = *cols.last().unwrap_or(&0);
        if raw.get(last..).is_none_or(|s| s.trim().is_empty()) {
            let got = cols.iter().filter(|&&c| raw.get(c..).is_some_and(|s| !s.trim().is_empty())).count();
            let row = format!("{} {index}", names[0]);
            p.problems.push(cut_short(
                file,
                line,
                &row,
                got,
                &format!("the table has {} columns", cols.len()),
                command,
            ));
            continue;
        }
        for (k, name) in names.iter().enumerate().skip(1) {
            let (counter, priority, queue) = match (names[0].as_str(), name.as_str()) {
                ("switch-priority", "rx-pause-frames") => (Counter::RxPause, Some(index), None),
                ("switch-priority", "tx-pause-frames") => (Counter::TxPause, Some(index), None),
                ("traffic-class", "wred-discards") => (Counter::WredDrops, None, Some(index)),
                _ => continue,
            };
            let end = cols.get(k + 1).copied().unwrap_or(raw.len()).min(raw.len());
            let cell = raw.get(cols[k]..end).unwrap_or("").trim();
            match number(cell) {
                Some(value) => {
                    p.rows.push(Row { port: None, priority, queue, counter, name: name.clone(), value, line })
                }
                None => p.problems.push(not_a_number(file, line, cols[k] + 1, name, cell)),
            }
        }
    }
}

#[cfg(test)]
#[path = "parse_cumulus_tests.rs"]
mod tests;
