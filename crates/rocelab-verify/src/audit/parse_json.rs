//! Counter output printed as JSON, each recognised from its keys:
//!
//! - Arista EOS `show priority-flow-control counters | json`: `interfaceCounters` → interface →
//!   `rxFrames`, `txFrames` (PFC frames of every priority together; the shape ANTA's
//!   `VerifyInterfacesPFCCounters` reads);
//! - Arista EOS `show qos interfaces ecn counters queue | json`: `intfQueueCounters` → interface
//!   → `queueCounters` → queue → ECN-marked packets as a string, `-` where ECN is not configured
//!   on the queue (ANTA `VerifyInterfacesECNCounters`);
//! - Arista EOS `show interfaces counters queue drops | json` (VOQ platforms): `interfaces` →
//!   interface → `trafficClasses` → `TC3` (or a range, `TC0-5`, counted together) →
//!   `ingressVoqCounters` / `egressQueueCounters` → `countersSum` → `droppedPackets` (ANTA
//!   `VerifyInterfacesVoqAndEgressQueueDrops`);
//! - SONiC `show queue wredcounters -j` (sonic-utilities `queuestat`): port → `UC3` →
//!   `wreddroppacket`, `ecnmarkedpacket` (strings, `N/A` where the platform does not count);
//! - iproute2 `rdma -j statistic show`: an array with one object per RDMA link, `ifname`,
//!   `port` and each hw counter by the driver's name (iproute2 `rdma/stat.c`,
//!   `stat_show_parse_cb`); the driver is told by the names, as for `hw_counters`.
//!
//! EOS documents no text layout for the ECN and queue-drop commands that we could confirm, so
//! only their `| json` forms are read.

use super::aliases;
use super::json::{self, Node, Value};
use super::parse::{not_a_number, number, queue_of, Format, Parsed, Row};
use super::{Counter, Problem};

const RDMA: [Format; 3] = [Format::Mlx5RdmaStat, Format::BnxtReRdmaStat, Format::IrdmaRdmaStat];

/// The format of a JSON document, from its keys (a document cut short is judged on what was
/// read of it).
pub(super) fn detect(text: &str) -> Option<Format> {
    let t = text.trim_start();
    if !t.starts_with('{') && !t.starts_with('[') {
        return None;
    }
    let root = json::read(text).root?;
    if root.get("interfaceCounters").is_some() {
        return Some(Format::EosPfcJson);
    }
    if root.get("intfQueueCounters").is_some() {
        return Some(Format::EosEcnJson);
    }
    if root.get("interfaces").is_some_and(|i| i.members().iter().any(|(_, _, n)| n.get("trafficClasses").is_some())) {
        return Some(Format::EosQueueDropsJson);
    }
    let wred = |n: &Node| n.members().iter().any(|(_, _, q)| q.get("wreddroppacket").is_some());
    if root.members().iter().any(|(_, _, port)| wred(port)) {
        return Some(Format::SonicWredJson);
    }
    let links = root.items();
    if links.iter().any(|l| l.get("ifname").is_some()) {
        let score = |f: &Format| {
            links.iter().flat_map(|l| l.members()).filter(|(k, _, _)| aliases::lookup(f.table(), k).is_some()).count()
        };
        let best = RDMA.iter().map(score).max().unwrap_or(0);
        return RDMA.iter().find(|f| score(f) == best).copied();
    }
    None
}

/// Reads `text` as `format` (one of the JSON formats) into `p`.
pub(super) fn parse(text: &str, file: &str, format: Format, p: &mut Parsed) {
    let doc = json::read(text);
    if let Some((at, what)) = &doc.error {
        p.problems.push(Problem::error(
            file,
            at.line,
            at.column,
            &format!("{what}; the counters before this point are read"),
            &format!("collect the whole `{}` output again", format.command()),
        ));
    }
    let Some(root) = doc.root else { return };
    let mut out = Out { file, p };
    match format {
        Format::EosPfcJson => {
            for (intf, _, c) in root.get("interfaceCounters").map(Node::members).unwrap_or_default() {
                out.value(intf, None, c.get("rxFrames"), Counter::RxPause, "rxFrames".into());
                out.value(intf, None, c.get("txFrames"), Counter::TxPause, "txFrames".into());
            }
        }
        Format::EosEcnJson => {
            for (intf, _, c) in root.get("intfQueueCounters").map(Node::members).unwrap_or_default() {
                for (queue, at, v) in c.get("queueCounters").map(Node::members).unwrap_or_default() {
                    let Ok(q) = queue.parse::<u8>() else {
                        out.p.problems.push(Problem::error(
                            file,
                            at.line,
                            at.column,
                            &format!("`{intf}`: queue `{queue}` is not a queue number"),
                            "EOS numbers transmit queues 0-7; collect the `| json` output again",
                        ));
                        continue;
                    };
                    // `-`: ECN is not configured on the queue, so nothing is counted.
                    if v.text() != "-" {
                        out.value(intf, Some(q), Some(v), Counter::EcnMarkedEgress, format!("queue {q} ecnMarked"));
                    }
                }
            }
        }
        Format::EosQueueDropsJson => {
            for (intf, _, i) in root.get("interfaces").map(Node::members).unwrap_or_default() {
                for (tc, _, c) in i.get("trafficClasses").map(Node::members).unwrap_or_default() {
                    // A range of traffic classes is counted together: not one queue's.
                    let queue = tc.strip_prefix("TC").and_then(|n| n.parse::<u8>().ok());
                    for (side, words) in [("egressQueueCounters", "egress"), ("ingressVoqCounters", "ingress VOQ")] {
                        let v = c.get(side).and_then(|s| s.get("countersSum")).and_then(|s| s.get("droppedPackets"));
                        out.value(intf, queue, v, Counter::QueueDrops, format!("{tc} {words} droppedPackets"));
                    }
                }
            }
        }
        Format::SonicWredJson => {
            for (port, _, queues) in root.members() {
                for (label, _, c) in queues.members() {
                    let Some(q) = queue_of(label) else { continue };
                    for (key, counter) in
                        [("wreddroppacket", Counter::WredDrops), ("ecnmarkedpacket", Counter::EcnMarkedEgress)]
                    {
                        let v = c.get(key).filter(|v| v.text() != "N/A");
                        out.value(port, Some(q), v, counter, format!("{label} {key}"));
                    }
                }
            }
        }
        Format::Mlx5RdmaStat | Format::BnxtReRdmaStat | Format::IrdmaRdmaStat => {
            for link in root.items() {
                let dev = link.get("ifname").map(Node::text).unwrap_or_default();
                let port = link.get("port").map(Node::text).unwrap_or_default();
                for (name, _, v) in link.members() {
                    let Some((counter, priority)) = aliases::lookup(format.table(), name) else { continue };
                    out.host(v, counter, priority, format!("{dev}/{port} {name}"), name);
                }
            }
        }
        _ => {}
    }
}

struct Out<'a> {
    file: &'a str,
    p: &'a mut Parsed,
}

impl Out<'_> {
    /// A switch counter of interface `port`; none when the document lacks it.
    fn value(&mut self, port: &str, queue: Option<u8>, v: Option<&Node>, counter: Counter, name: String) {
        let Some(v) = v else { return };
        if let Some(value) = self.number(v, &format!("{port} {name}")) {
            let row =
                Row { port: Some(port.to_string()), priority: None, queue, counter, name, value, line: v.at.line };
            self.p.rows.push(row);
        }
    }

    /// A host counter (the output names an RDMA link, not a port of the fabric).
    fn host(&mut self, v: &Node, counter: Counter, priority: Option<u8>, name: String, printed: &str) {
        if let Some(value) = self.number(v, printed) {
            self.p.rows.push(Row { port: None, priority, queue: None, counter, name, value, line: v.at.line });
        }
    }

    fn number(&mut self, v: &Node, name: &str) -> Option<u64> {
        let n = match &v.value {
            Value::Num(s) | Value::Str(s) => number(s),
            _ => None,
        };
        if n.is_none() {
            self.p.problems.push(not_a_number(self.file, v.at.line, v.at.column, name, &v.text()));
        }
        n
    }
}

#[cfg(test)]
#[path = "parse_json_tests.rs"]
mod tests;
