//! HPE Comware text read back into [`ComwareConfig`], the type the renderer fills: `display
//! current-configuration` as a switch prints it (views opened by `interface …`, `vlan N`, `qos
//! map-table dot1p-lp`, `qos wred queue table NAME`, their commands indented one space, views
//! closed by a `#` line; `version …`, `sysname …`, `return`), and the commands as `rocelab
//! config` writes them (the same views closed by `quit`, `#` comments).
//!
//! Understood (HPE FlexFabric 5900 ACL and QoS Command Reference, Layer 2 LAN Switching Command
//! Reference; the Demartek "RoCE Deployment Guide" (2018), HPE 5900 section): `sysname`,
//! `version V, Release R`, `lldp global enable`, `vlan N`, `interface TYPE N/N/N` with `port
//! link-type access|trunk|hybrid`, `port trunk permit vlan LIST`, `lldp enable`, `lldp
//! tlv-enable dot1-tlv dcbx`, `priority-flow-control auto|enable`, `priority-flow-control
//! no-drop dot1p LIST`, `qos trust dot1p|dscp`, `qos wrr byte-count`, `qos wrr Q group 1
//! byte-count W`, `qos wrr Q group sp`, `qos wred apply NAME`, `jumboframe enable [SIZE]`;
//! `qos map-table dot1p-lp` with `import LIST export LP`; `qos wred queue table NAME` with
//! `queue Q [drop-level D] low-limit L high-limit H [discard-probability P]`, `queue Q ecn`,
//! `queue Q weighting-constant E`. Lines that do not bear on QoS (`description`, `shutdown`,
//! `port link-mode`, NTP, SNMP, users, SSH, `line` views, …) are counted, not listed; every
//! other line is returned with its number.
//!
//! What the text does not carry stays empty: an interface's `peer` (a cable, not a command),
//! and the release of a device that prints no `version` line and no rocelab header.

use super::{ComwareConfig, ComwareInterface, Map, WredQueue, WredTable, Wrr};
use crate::common::Release;

pub use crate::cli_tree::Unknown;

/// A Comware configuration read from text.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub config: ComwareConfig,
    /// The line each of `config.interfaces` was first named on.
    pub interface_lines: Vec<usize>,
    /// `jumboframe enable SIZE` per interface, in `config.interfaces` order (`None`: not set).
    pub jumboframe: Vec<Option<u32>>,
    /// The VLANs each interface's `port trunk permit vlan` lists (all, VLAN 1 included).
    pub permitted: Vec<Vec<u16>>,
    /// VLANs the switch defines (`vlan N`).
    pub vlans: Vec<u16>,
    pub unknown: Vec<Unknown>,
    /// Lines recognised as not bearing on QoS.
    pub ignored: usize,
}

/// Whether text is a Comware configuration: a Comware view command at the start of a line.
pub fn recognise(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim();
        t.starts_with("qos map-table dot1p-lp")
            || t.starts_with("priority-flow-control no-drop dot1p")
            || t.starts_with("qos wred queue table")
            || t.starts_with("sysname ")
            || t.starts_with("# rocelab:") && t.contains("HPE Comware")
    })
}

/// `Ten-GigabitEthernet1/0/1` or `Ten-GigabitEthernet 1/0/1` → `Ten-GigabitEthernet 1/0/1`, the
/// renderer's spelling.
fn interface_name(words: &[&str]) -> Option<String> {
    let joined = words.concat();
    let i = joined.find(|c: char| c.is_ascii_digit())?;
    let (kind, num) = joined.split_at(i);
    let ok = !kind.is_empty()
        && kind.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        && num.split('/').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok.then(|| format!("{kind} {num}"))
}

/// `2`, `1 2 10 to 12`: a Comware value list (`to` for a range), each at most `max`.
fn list(words: &[&str], max: u16) -> Option<Vec<u16>> {
    let mut out: Vec<u16> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let a: u16 = words[i].parse().ok().filter(|v| *v <= max)?;
        if words.get(i + 1) == Some(&"to") {
            let b: u16 = words.get(i + 2)?.parse().ok().filter(|v| *v <= max && *v >= a)?;
            out.extend(a..=b);
            i += 3;
        } else {
            out.push(a);
            i += 1;
        }
    }
    (!out.is_empty()).then_some(out)
}

fn prio(w: &str) -> Option<u8> {
    w.parse().ok().filter(|v: &u8| *v < 8)
}

/// Commands and views that do not bear on QoS: counted, not listed.
fn not_qos(w: &[&str]) -> bool {
    matches!(
        w,
        ["description", ..]
            | ["shutdown"]
            | ["undo", "shutdown"]
            | ["port", "link-mode", ..]
            | ["ntp-service", ..]
            | ["clock", ..]
            | ["info-center", ..]
            | ["snmp-agent", ..]
            | ["local-user", ..]
            | ["password", ..]
            | ["service-type", ..]
            | ["authorization-attribute", ..]
            | ["line", ..]
            | ["user-role", ..]
            | ["authentication-mode", ..]
            | ["ssh", ..]
            | ["telnet", ..]
            | ["domain", ..]
            | ["irf", ..]
            | ["stp", ..]
            | ["ip", ..]
            | ["ipv6", ..]
            | ["undo", "copyright-info", ..]
            | ["lldp", "global", "mode", ..]
    )
}

enum View {
    Top,
    Interface(usize),
    Vlan,
    Dot1pLp,
    Wred(usize),
    /// A view rocelab does not read (`line vty 0 63`, `local-user admin`): its lines are counted.
    Other,
}

/// Reads a Comware configuration; `stem` names the switch when the text has no `sysname`.
pub fn parse(text: &str, stem: &str) -> Parsed {
    let mut out = Parsed {
        config: ComwareConfig {
            hostname: stem.to_string(),
            release: Release { name: String::new(), default: false },
            vlan: None,
            dot1p_lp: Vec::new(),
            wred_table: None,
            more_wred_tables: Vec::new(),
            interfaces: Vec::new(),
            lldp_dcbx: false,
        },
        interface_lines: Vec::new(),
        jumboframe: Vec::new(),
        permitted: Vec::new(),
        vlans: Vec::new(),
        unknown: Vec::new(),
        ignored: 0,
    };
    let mut tables: Vec<(WredTable, Vec<u8>)> = Vec::new();
    let mut view = View::Top;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(comment) = t.strip_prefix('#') {
            header(comment.trim(), &mut out.config.release);
            view = View::Top;
            continue;
        }
        let w: Vec<&str> = t.split_whitespace().collect();
        let understood = match (&view, w.as_slice()) {
            (_, ["quit"] | ["return"] | ["system-view"]) => {
                view = View::Top;
                true
            }
            (_, ["interface", name @ ..]) => match interface_name(name) {
                Some(name) => {
                    let idx = match out.config.interfaces.iter().position(|i| i.name == name) {
                        Some(idx) => idx,
                        None => {
                            out.config.interfaces.push(ComwareInterface {
                                name,
                                peer: String::new(),
                                trunk_vlan: None,
                                pfc_mode: None,
                                no_drop: Vec::new(),
                                trust: String::new(),
                                wrr: Vec::new(),
                                wred_apply: None,
                            });
                            out.interface_lines.push(n);
                            out.jumboframe.push(None);
                            out.permitted.push(Vec::new());
                            out.config.interfaces.len() - 1
                        }
                    };
                    view = View::Interface(idx);
                    true
                }
                None => false,
            },
            (_, ["vlan", v]) => match v.parse::<u16>().ok().filter(|v| (1..=4094).contains(v)) {
                Some(v) => {
                    out.vlans.push(v);
                    view = View::Vlan;
                    true
                }
                None => false,
            },
            (_, ["qos", "map-table", "dot1p-lp"]) => {
                view = View::Dot1pLp;
                true
            }
            (_, ["qos", "wred", "queue", "table", name]) => {
                let idx = tables.iter().position(|(t, _)| t.name == *name).unwrap_or_else(|| {
                    tables.push((WredTable { name: name.to_string(), queues: Vec::new() }, Vec::new()));
                    tables.len() - 1
                });
                view = View::Wred(idx);
                true
            }
            (View::Interface(idx), cmd) => {
                interface_command(&mut out, *idx, cmd)
                    || not_qos(cmd) && {
                        out.ignored += 1;
                        true
                    }
            }
            (View::Dot1pLp, ["import", rest @ ..]) => match rest.iter().position(|x| *x == "export") {
                Some(e) => match (list(&rest[..e], 7), rest.get(e + 1).and_then(|x| prio(x)), rest.len() == e + 2) {
                    (Some(imports), Some(export), true) => {
                        for p in imports {
                            let p = p as u8;
                            out.config.dot1p_lp.retain(|m| m.import != p);
                            out.config.dot1p_lp.push(Map { import: p, export });
                        }
                        true
                    }
                    _ => false,
                },
                None => false,
            },
            (View::Wred(idx), ["queue", q, rest @ ..]) => match prio(q) {
                Some(q) => wred_queue(&mut tables[*idx], q, rest),
                None => false,
            },
            (View::Vlan, ["name" | "description", ..]) | (View::Other, _) => {
                out.ignored += 1;
                true
            }
            (View::Top, ["sysname", name]) => {
                out.config.hostname = name.to_string();
                true
            }
            (View::Top, ["version", v, ..]) => {
                out.config.release = Release { name: v.trim_end_matches(',').to_string(), default: false };
                true
            }
            (View::Top, ["lldp", "global", "enable"]) => {
                out.config.lldp_dcbx = true;
                true
            }
            (View::Top, ["save", ..]) => true,
            (_, cmd) if not_qos(cmd) => {
                if matches!(cmd, ["line", ..] | ["local-user", ..] | ["domain", ..]) {
                    view = View::Other;
                }
                out.ignored += 1;
                true
            }
            _ => false,
        };
        if !understood {
            out.unknown.push(Unknown { line: n, text: raw.to_string() });
        }
    }
    out.config.dot1p_lp.sort_by_key(|m| m.import);
    out.config.vlan = out.vlans.iter().copied().find(|v| *v != 1);
    let mut tables = tables.into_iter().map(|(mut t, ecn)| {
        // A queue with limits but no `ecn` drops rather than marks: not a queue of the renderer's.
        t.queues.retain(|q| ecn.contains(&q.queue));
        t.queues.sort_by_key(|q| q.queue);
        t
    });
    out.config.wred_table = tables.next();
    out.config.more_wred_tables = tables.collect();
    out
}

/// The rocelab header: `rocelab: NAME (HPE Comware REL). …` and `Release REL is rocelab's
/// default …`.
fn header(comment: &str, release: &mut Release) {
    if let Some(rest) = comment.strip_prefix("rocelab:") {
        if let Some(rel) = rest.split("(HPE Comware ").nth(1).and_then(|r| r.split(')').next()) {
            release.name = rel.to_string();
        }
    } else if comment.starts_with("Release ") && comment.contains("is rocelab's default") {
        release.default = true;
    }
}

fn interface_command(out: &mut Parsed, idx: usize, w: &[&str]) -> bool {
    let i = &mut out.config.interfaces[idx];
    match w {
        ["port", "link-type", "access" | "trunk" | "hybrid"] => {}
        ["port", "trunk", "permit", "vlan", rest @ ..] => {
            let Some(vlans) = list(rest, 4094) else { return false };
            let p = &mut out.permitted[idx];
            p.extend(vlans);
            p.sort_unstable();
            p.dedup();
            i.trunk_vlan = p.iter().copied().find(|v| *v != 1).or(p.first().copied());
        }
        ["lldp", "enable"] | ["lldp", "tlv-enable", "dot1-tlv", "dcbx"] | ["qos", "wrr", "byte-count"] => {}
        ["priority-flow-control", m @ ("auto" | "enable")] => i.pfc_mode = Some(m.to_string()),
        ["priority-flow-control", "no-drop", "dot1p", rest @ ..] => {
            let Some(ps) = list(rest, 7) else { return false };
            for p in ps {
                if !i.no_drop.contains(&(p as u8)) {
                    i.no_drop.push(p as u8);
                }
            }
            i.no_drop.sort_unstable();
        }
        ["qos", "trust", t @ ("dot1p" | "dscp")] => i.trust = t.to_string(),
        ["qos", "wrr", q, "group", g, rest @ ..] => {
            let Some(q) = prio(q) else { return false };
            let byte_count = match (*g, rest) {
                ("sp", []) => None,
                ("1" | "2", ["byte-count", w]) => match w.parse::<u32>() {
                    Ok(w) if w > 0 => Some(w),
                    _ => return false,
                },
                _ => return false,
            };
            i.wrr.retain(|x| x.queue != q);
            i.wrr.push(Wrr { queue: q, byte_count });
            i.wrr.sort_by_key(|x| x.queue);
        }
        ["qos", "wred", "apply", name] => i.wred_apply = Some(name.to_string()),
        ["jumboframe", "enable"] => out.jumboframe[idx] = None,
        ["jumboframe", "enable", size] => match size.parse::<u32>() {
            Ok(s) => out.jumboframe[idx] = Some(s),
            Err(_) => return false,
        },
        _ => return false,
    }
    true
}

/// One `queue …` line of a WRED table; `ecn` collects the queues with `queue Q ecn`.
fn wred_queue((table, ecn): &mut (WredTable, Vec<u8>), q: u8, rest: &[&str]) -> bool {
    let rest = match rest {
        ["drop-level", d, rest @ ..] if d.parse::<u8>().is_ok_and(|d| d <= 2) => rest,
        _ => rest,
    };
    match rest {
        ["ecn"] => {
            if !ecn.contains(&q) {
                ecn.push(q);
            }
            true
        }
        ["weighting-constant", e] => e.parse::<u8>().is_ok(),
        ["low-limit", lo, "high-limit", hi, tail @ ..] => {
            let (Ok(lo), Ok(hi)) = (lo.parse::<u64>(), hi.parse::<u64>()) else { return false };
            let ok_tail = match tail {
                [] => true,
                ["discard-probability", p] => p.parse::<u8>().is_ok_and(|p| p <= 100),
                _ => false,
            };
            if !ok_tail || lo > hi {
                return false;
            }
            table.queues.retain(|x| x.queue != q);
            table.queues.push(WredQueue { queue: q, low_limit: lo, high_limit: hi });
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `display current-configuration` as a 5900 prints it: views under `#` separators,
    /// commands indented one space, VLAN 1 always listed.
    const DISPLAY: &str = "#
 version 7.1.045, Release 2422P01
#
 sysname hpe-a
#
 lldp global enable
#
vlan 1
#
vlan 2
 name roce
#
qos map-table dot1p-lp
 import 0 1 2 3 4 6 7 export 0
 import 5 export 5
#
qos wred queue table ROCE
 queue 5 drop-level 0 low-limit 16 high-limit 160 discard-probability 20
 queue 5 ecn
 queue 1 low-limit 100 high-limit 1000
#
interface Ten-GigabitEthernet1/0/1
 port link-mode bridge
 description to-h1
 port link-type trunk
 port trunk permit vlan 1 to 2
 lldp tlv-enable dot1-tlv dcbx
 priority-flow-control auto
 priority-flow-control no-drop dot1p 5
 qos trust dot1p
 qos wrr 5 group 1 byte-count 13
 qos wrr 0 group 1 byte-count 2
 qos wrr 6 group sp
 qos wred apply ROCE
 jumboframe enable 9216
 qos lr outbound cir 1000
#
 ntp-service unicast-server 192.0.2.1
#
line vty 0 63
 authentication-mode scheme
#
return
";

    #[test]
    fn reads_a_display_current_configuration() {
        let p = parse(DISPLAY, "stem");
        let c = &p.config;
        assert_eq!((c.hostname.as_str(), c.release.name.as_str(), c.release.default), ("hpe-a", "7.1.045", false));
        assert_eq!((c.vlan, c.lldp_dcbx, &p.vlans), (Some(2), true, &vec![1, 2]));
        let lp: Vec<(u8, u8)> = c.dot1p_lp.iter().map(|m| (m.import, m.export)).collect();
        assert_eq!(lp, [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 5), (6, 0), (7, 0)]);
        let t = c.wred_table.as_ref().unwrap();
        assert_eq!(
            (t.name.as_str(), &t.queues),
            ("ROCE", &vec![WredQueue { queue: 5, low_limit: 16, high_limit: 160 }])
        );
        let i = &c.interfaces[0];
        assert_eq!(i.name, "Ten-GigabitEthernet 1/0/1");
        assert_eq!(
            (i.trunk_vlan, i.pfc_mode.as_deref(), &i.no_drop, i.trust.as_str()),
            (Some(2), Some("auto"), &vec![5], "dot1p")
        );
        let wrr: Vec<(u8, Option<u32>)> = i.wrr.iter().map(|w| (w.queue, w.byte_count)).collect();
        assert_eq!(wrr, [(0, Some(2)), (5, Some(13)), (6, None)]);
        assert_eq!((i.wred_apply.as_deref(), p.jumboframe[0], p.interface_lines[0]), (Some("ROCE"), Some(9216), 22));
        // The rate limit is QoS rocelab does not read: listed. Link mode, description, NTP and
        // the vty view are counted.
        let unknown: Vec<usize> = p.unknown.iter().map(|u| u.line).collect();
        assert_eq!(unknown, [36]);
        assert_eq!(p.ignored, 6);
    }

    #[test]
    fn malformed_values_are_reported_not_guessed() {
        let text = "interface Ten-GigabitEthernet1/0/1\npriority-flow-control no-drop dot1p 9\nqos wrr 8 group sp\nqos wrr 1 group 1 byte-count x\nqos trust port\nquit\nqos map-table dot1p-lp\nimport 0 export 9\nquit\nvlan 5000\nqos wred queue table T\nqueue 1 low-limit 10 high-limit 5\n";
        let p = parse(text, "s");
        let lines: Vec<usize> = p.unknown.iter().map(|u| u.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 8, 10, 12]);
        assert!(p.config.interfaces[0].no_drop.is_empty() && p.config.dot1p_lp.is_empty());
        assert_eq!(p.config.hostname, "s");
    }

    #[test]
    fn recognises_comware_not_other_syntax() {
        assert!(recognise(DISPLAY));
        assert!(!recognise("interface Ethernet1\n   priority-flow-control on\n"));
    }
}
