//! Arista EOS `show running-config`.
//!
//! Understood (syntax from the Arista EOS User Manual, chapter "Quality of Service", and the
//! Arista/Pure Storage NVMe-oF leaf-spine guide's appendix):
//! - `hostname NAME`
//! - `qos map dscp D... to traffic-class TC`, `qos map cos C... to traffic-class TC`
//! - `interface EthernetN` with `mtu N`, `speed [forced] 100g[full]`, `qos trust dscp|cos`,
//!   `priority-flow-control on` (or `mode on`), `priority-flow-control priority P no-drop|drop`,
//!   `flowcontrol send|receive on|off`, `dcbx mode ieee|cee`, and `tx-queue N` blocks with
//!   `random-detect ecn minimum-threshold X UNIT maximum-threshold Y UNIT
//!   max-mark-probability P [weight W]`, `random-detect ecn count`, `bandwidth percent N`,
//!   `priority strict`, `no priority`;
//! - lines that do not affect QoS: `description`, `shutdown`, `no shutdown`, `switchport …`,
//!   `no switchport`, `ip address`, `channel-group`, `load-interval`, `lldp …`;
//! - `interface Vxlan1` with `vxlan qos ecn propagation` (other `vxlan …` lines do not affect
//!   QoS). EOS derives the outer DSCP of a VXLAN packet from its traffic class, which keeps the
//!   class across the underlay (Arista TOI "VXLAN DSCP and ECN propagation").
//!
//! Assumptions, as EOS defaults them: traffic class N is tx-queue N and PFC priority N; a port
//! without `qos trust` trusts CoS (the switchport default); ECN thresholds in `kbytes` and
//! `mbytes` are 1024 and 1048576 bytes.
//!
//! Everything else is reported with its line; an unknown block is reported once, with how many
//! indented lines it holds.

use super::{DeviceConfig, NotUnderstood};
use crate::state::{EcnState, PortQos, Sched};
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

fn parse_list(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for part in text.split([',', ' ']).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u8, u8) = (a.parse().ok()?, b.parse().ok()?);
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

fn parse_speed(words: &[&str]) -> Option<Rate> {
    let w = words.iter().find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    let digits: String = w.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &w[digits.len()..];
    let n: u64 = digits.parse().ok()?;
    match rest.trim_end_matches("full") {
        "g" | "G" if n <= 1600 => Some(Rate::gbps(n)),
        "m" | "M" if n <= 1_600_000 => Some(Rate::mbps(n)),
        _ => None,
    }
}

fn bytes(v: &str, unit: &str) -> Option<u64> {
    let n: u64 = v.parse().ok()?;
    match unit {
        "bytes" => Some(n),
        "kbytes" => n.checked_mul(1024),
        "mbytes" => n.checked_mul(1024 * 1024),
        _ => None,
    }
}

/// `random-detect ecn minimum-threshold X U maximum-threshold Y U max-mark-probability P …`
fn parse_ecn(w: &[&str]) -> Option<EcnState> {
    if w.len() < 9 || w[..3] != ["random-detect", "ecn", "minimum-threshold"] || w[5] != "maximum-threshold" {
        return None;
    }
    let kmin = bytes(w[3], w[4])?;
    let kmax = bytes(w[6], w[7])?;
    let pmax = match (w.get(8), w.get(9)) {
        (Some(&"max-mark-probability"), Some(p)) => p.parse::<f64>().ok()? / 100.0,
        _ => return None,
    };
    match w.get(10..) {
        None | Some([]) | Some(["weight", _]) => Some(EcnState { kmin, kmax, pmax }),
        _ => None,
    }
}

struct Port {
    name: String,
    line: usize,
    speed: Option<Rate>,
    qos: PortQos,
    trust: Option<Marking>,
}

/// Parses one running-config; `stem` names the device when it has no `hostname`.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    let mut name = stem.to_string();
    let mut dscp_map: Vec<(u8, u8)> = Vec::new();
    let mut cos_map: Vec<(u8, u8)> = Vec::new();
    let mut ports: Vec<Port> = Vec::new();
    let mut vxlan: Option<rocelab_model::fabric::Vxlan> = None;
    let mut bad: Vec<NotUnderstood> = Vec::new();
    let mut report = |line: usize, text: &str| bad.push(NotUnderstood { file: file.into(), line, text: text.into() });
    #[derive(PartialEq)]
    enum Ctx {
        Top,
        Eth,
        TxQueue(usize),
        Vxlan,
        /// An unknown block: (header line, indented lines seen).
        Skip(usize, usize),
    }
    let mut ctx = Ctx::Top;
    let lines: Vec<&str> = text.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        let n = i + 1;
        let indent = raw.len() - raw.trim_start().len();
        let line = raw.trim();
        if line.is_empty() || line.starts_with('!') {
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        if indent == 0 {
            if let Ctx::Skip(h, count) = ctx {
                if count > 0 {
                    let header = lines[h - 1].trim().to_string();
                    report(h, &format!("{header} (a block rocelab does not read, with {count} indented lines)"));
                } else {
                    report(h, lines[h - 1]);
                }
            }
            ctx = Ctx::Top;
        }
        match ctx {
            Ctx::Skip(h, count) => {
                ctx = Ctx::Skip(h, count + 1);
                continue;
            }
            Ctx::TxQueue(_) | Ctx::Eth if indent >= 6 && matches!(ctx, Ctx::TxQueue(_)) => {
                let Ctx::TxQueue(q) = ctx else { unreachable!("matched above") };
                let port = ports.last_mut().expect("a tx-queue is inside an interface");
                if let Some(e) = parse_ecn(&w) {
                    port.qos.ecn[q] = Some(e);
                } else if w == ["random-detect", "ecn", "count"] || w == ["no", "priority"] {
                    if w[0] == "no" {
                        port.qos.sched[q] = Sched::Unset;
                    }
                } else if w == ["priority", "strict"] {
                    port.qos.sched[q] = Sched::Strict;
                } else if w.len() == 3 && w[..2] == ["bandwidth", "percent"] && w[2].parse::<u8>().is_ok() {
                    port.qos.sched[q] = Sched::Ets(w[2].parse().unwrap_or(0));
                } else {
                    report(n, line);
                }
                continue;
            }
            Ctx::Eth | Ctx::TxQueue(_) if indent > 0 => {
                ctx = Ctx::Eth;
                let port = ports.last_mut().expect("inside an interface");
                match w.as_slice() {
                    ["tx-queue", q] if q.parse::<usize>().is_ok_and(|q| q < 8) => {
                        ctx = Ctx::TxQueue(q.parse().unwrap_or(0));
                    }
                    ["mtu", m] if m.parse::<u32>().is_ok() => port.qos.mtu = m.parse().unwrap_or(1500),
                    ["speed", rest @ ..] if parse_speed(rest).is_some() => port.speed = parse_speed(rest),
                    ["qos", "trust", "dscp"] => port.trust = Some(Marking::Dscp),
                    ["qos", "trust", "cos"] => port.trust = Some(Marking::Pcp),
                    ["priority-flow-control", "on"] | ["priority-flow-control", "mode", "on"] => {}
                    ["priority-flow-control", "priority", p, "no-drop"] if p.parse::<u8>().is_ok_and(|p| p < 8) => {
                        let p: u8 = p.parse().unwrap_or(0);
                        port.qos.pfc |= 1 << p;
                        port.qos.priority_to_pg[p as usize] = p;
                    }
                    ["priority-flow-control", "priority", p, "drop"] if p.parse::<u8>().is_ok_and(|p| p < 8) => {
                        port.qos.pfc &= !(1 << p.parse::<u8>().unwrap_or(0));
                    }
                    ["flowcontrol", "send" | "receive", "on"] => port.qos.link_pause = true,
                    ["flowcontrol", "send" | "receive", "off"] => {}
                    ["dcbx", "mode", "ieee" | "cee"] => {}
                    ["description", ..]
                    | ["shutdown"]
                    | ["no", "shutdown"]
                    | ["switchport", ..]
                    | ["no", "switchport"]
                    | ["ip", "address", ..]
                    | ["channel-group", ..]
                    | ["load-interval", ..]
                    | ["lldp", ..] => {}
                    _ => report(n, line),
                }
                continue;
            }
            Ctx::Vxlan if indent > 0 => {
                let v = vxlan
                    .get_or_insert(rocelab_model::fabric::Vxlan { ecn_propagation: false, dscp_preservation: true });
                match w.as_slice() {
                    ["vxlan", "qos", "ecn", "propagation"] => v.ecn_propagation = true,
                    ["vxlan", ..] => {}
                    _ => report(n, line),
                }
                continue;
            }
            _ => {}
        }
        // Top level.
        match w.as_slice() {
            ["hostname", h] => name = h.to_string(),
            ["interface", iface] if iface.starts_with("Ethernet") => {
                ports.push(Port {
                    name: iface.to_string(),
                    line: n,
                    speed: None,
                    qos: PortQos::unconfigured(1500),
                    trust: None,
                });
                ctx = Ctx::Eth;
            }
            ["interface", iface] if iface.starts_with("Vxlan") => {
                vxlan.get_or_insert(rocelab_model::fabric::Vxlan { ecn_propagation: false, dscp_preservation: true });
                ctx = Ctx::Vxlan;
            }
            ["qos", "map", "dscp", rest @ ..] | ["qos", "map", "cos", rest @ ..] => {
                let parsed = match rest {
                    [list @ .., "to", "traffic-class", tc] => {
                        parse_list(&list.join(" ")).zip(tc.parse::<u8>().ok().filter(|t| *t < 8))
                    }
                    _ => None,
                };
                match parsed {
                    Some((vals, tc)) if w[2] == "dscp" && vals.iter().all(|v| *v < 64) => {
                        dscp_map.extend(vals.into_iter().map(|v| (v, tc)))
                    }
                    Some((vals, tc)) if w[2] == "cos" && vals.iter().all(|v| *v < 8) => {
                        cos_map.extend(vals.into_iter().map(|v| (v, tc)))
                    }
                    _ => report(n, line),
                }
            }
            // Saving (`rocelab config` ends with it) configures nothing.
            ["end"] | ["copy", "running-config", "startup-config"] | ["write", "memory"] => {}
            _ => ctx = Ctx::Skip(n, 0),
        }
    }
    if let Ctx::Skip(h, count) = ctx {
        let header = lines[h - 1].trim();
        if count > 0 {
            report(h, &format!("{header} (a block rocelab does not read, with {count} indented lines)"));
        } else {
            report(h, header);
        }
    }
    let ports = ports
        .into_iter()
        .map(|mut p| {
            p.qos.trust = p.trust.unwrap_or(Marking::Pcp);
            for (d, tc) in &dscp_map {
                p.qos.dscp_to_priority[*d as usize] = *tc;
            }
            for (c, tc) in &cos_map {
                p.qos.priority_to_queue[*c as usize] = *tc;
            }
            (p.name, p.speed.unwrap_or(Rate::gbps(100)), p.qos, p.line)
        })
        .collect();
    DeviceConfig { ports, vxlan, not_understood: bad, ..DeviceConfig::switch(name, "arista-eos", file) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "! device: leaf1 (DCS-7050SX3-48YC12, EOS-4.24.2F)
hostname leaf1
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
interface Ethernet1
   description host1
   mtu 9214
   speed forced 100gfull
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0
      random-detect ecn count
      bandwidth percent 50
   tx-queue 6
      priority strict
   service-policy type qos input pm-RoCE
!
interface Vxlan1
   vxlan source-interface Loopback1
   vxlan qos ecn propagation
!
router bgp 65001
   neighbor 10.0.0.1 remote-as 65000
   neighbor 10.0.0.3 remote-as 65000
ip routing
end
";

    #[test]
    fn reads_qos_and_reports_every_line_not_understood() {
        let c = parse(CONFIG, "leaf1.cfg", "x");
        assert_eq!(c.name, "leaf1");
        let (name, speed, q, line) = &c.ports[0];
        assert_eq!((name.as_str(), *speed, *line), ("Ethernet1", Rate::gbps(100), 6));
        assert_eq!((q.mtu, q.trust, q.pfc, q.priority_to_pg[3]), (9214, Marking::Dscp, 1 << 3, 3));
        assert_eq!((q.dscp_to_priority[26], q.dscp_to_priority[48]), (3, 6));
        let e = q.ecn[3].unwrap();
        assert_eq!((e.kmin, e.kmax, e.pmax), (256 * 1024, 512 * 1024, 1.0));
        assert_eq!((q.sched[3], q.sched[6]), (Sched::Ets(50), Sched::Strict));
        assert_eq!(c.vxlan.map(|v| v.ecn_propagation), Some(true));
        let lines: Vec<(usize, &str)> = c.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(
            lines,
            [
                (19, "service-policy type qos input pm-RoCE"),
                (25, "router bgp 65001 (a block rocelab does not read, with 2 indented lines)"),
                (28, "ip routing"),
            ]
        );
        assert_eq!(
            c.not_understood[0].to_string(),
            "leaf1.cfg:19: not understood: service-policy type qos input pm-RoCE"
        );
    }

    #[test]
    fn malformed_values_are_reported_not_guessed() {
        let text = "hostname s\ninterface Ethernet2\n   mtu big\n   tx-queue 3\n      random-detect ecn minimum-threshold 10 segments maximum-threshold 20 segments max-mark-probability 5\nqos map dscp 99 to traffic-class 3\n";
        let c = parse(text, "s.cfg", "s");
        let lines: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(lines, [3, 5, 6]);
        assert_eq!(c.ports[0].2.mtu, 1500);
    }
}
