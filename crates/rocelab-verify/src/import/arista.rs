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
//! - VLANs (EOS User Manual, "Virtual LANs"): `switchport mode access|trunk`,
//!   `switchport access vlan V`, `switchport trunk allowed vlan LIST|add LIST|remove LIST|all|none`,
//!   `switchport trunk native vlan V|tag`, `no switchport` (a routed port); `vlan LIST` blocks
//!   (`name`, `state`, `trunk group`) defining the VLANs; `interface VlanN` SVIs with `mtu N`
//!   (and `ip address …`, `vrf`, `description`, … that do not bear on QoS). They become the
//!   port's [`PortVlans`]: a trunk carries its allowed VLANs tagged (all, 1-4094, by default)
//!   and its native VLAN (1 by default) untagged unless `native vlan tag`; an access port its
//!   VLAN (1 by default) untagged. A port with no VLAN line is left unknown;
//! - lines that do not affect QoS: `description`, `shutdown`, `no shutdown`, `ip address`,
//!   `channel-group`, `load-interval`, `lldp …`, and at the top level AAA, NTP, logging, SNMP,
//!   `management …` blocks and `interface Management…`, spanning tree, `banner … EOF`,
//!   `username`, `enable`, DNS, `clock`, TACACS+/RADIUS: counted, not listed;
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
use crate::state::{EcnState, PortQos, PortVlans, Sched};
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
    sw: Switchport,
}

/// What a port's `switchport` lines say.
#[derive(Debug, Clone, Default)]
pub(crate) struct Switchport {
    /// Any VLAN line seen (else the port's VLANs are left unknown).
    said: bool,
    pub(crate) routed: bool,
    trunk: bool,
    access: Option<u16>,
    /// `None`: all VLANs (EOS's default for a trunk).
    allowed: Option<Vec<(u16, u16)>>,
    native: Option<u16>,
    native_tag: bool,
}

/// `10,20-30`: VLAN ranges 1-4094.
pub(crate) use rocelab_config::cli_tree::vlan_list;

/// Removes the VLANs of `rm` from the ranges.
fn without(ranges: &[(u16, u16)], rm: &[(u16, u16)]) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    for &(a, b) in ranges {
        let mut start = a;
        for v in a..=b {
            if rm.iter().any(|(x, y)| (*x..=*y).contains(&v)) {
                if start < v {
                    out.push((start, v - 1));
                }
                start = v.saturating_add(1);
            }
        }
        if start <= b {
            out.push((start, b));
        }
    }
    out
}

impl Switchport {
    /// One `switchport …` line; `false` when not understood.
    pub(crate) fn line(&mut self, w: &[&str]) -> bool {
        let before = self.said;
        self.said = true;
        match w {
            ["switchport"] => self.routed = false,
            ["switchport", "mode", "trunk"] => self.trunk = true,
            ["switchport", "mode", "access"] => self.trunk = false,
            ["switchport", "access", "vlan", v] => match vlan_list(v) {
                Some(l) if l.len() == 1 && l[0].0 == l[0].1 => self.access = Some(l[0].0),
                _ => return false,
            },
            ["switchport", "trunk", "allowed", "vlan", "all"] => self.allowed = None,
            ["switchport", "trunk", "allowed", "vlan", "none"] => self.allowed = Some(Vec::new()),
            ["switchport", "trunk", "allowed", "vlan", op @ ("add" | "remove" | "except"), list] => {
                let Some(l) = vlan_list(list) else { return false };
                let cur = self.allowed.take().unwrap_or_else(|| vec![(1, 4094)]);
                self.allowed = Some(match *op {
                    "add" => cur.into_iter().chain(l).collect(),
                    "remove" => without(&cur, &l),
                    _ => without(&[(1, 4094)], &l),
                });
            }
            ["switchport", "trunk", "allowed", "vlan", list] => match vlan_list(list) {
                Some(l) => self.allowed = Some(l),
                None => return false,
            },
            ["switchport", "trunk", "native", "vlan", "tag"] => self.native_tag = true,
            ["switchport", "trunk", "native", "vlan", v] => match v.parse::<u16>() {
                Ok(v) if (1..=4094).contains(&v) => self.native = Some(v),
                _ => return false,
            },
            // Trunk groups, port security, backup links: no bearing on QoS.
            ["switchport", ..] => self.said = before,
            _ => return false,
        }
        true
    }

    /// The VLANs the port carries, against the switch's defined VLANs and SVIs.
    pub(crate) fn vlans(&self, defined: &[(u16, u16)], svis: &[(u16, Option<u32>)]) -> Option<PortVlans> {
        if !self.said || self.routed {
            return None;
        }
        let (untagged, tagged) = if self.trunk {
            let native = (!self.native_tag).then(|| self.native.unwrap_or(1));
            (native, self.allowed.clone().unwrap_or_else(|| vec![(1, 4094)]))
        } else {
            (Some(self.access.unwrap_or(1)), Vec::new())
        };
        let carried = |v: u16| untagged == Some(v) || tagged.iter().any(|(a, b)| (*a..=*b).contains(&v));
        let svi_mtu = svis.iter().filter(|(v, _)| carried(*v)).filter_map(|(_, m)| *m).min();
        // VLANs named one by one (not a trunk's default of all) that no `vlan` block defines;
        // VLAN 1 exists by default.
        let named: Vec<u16> = untagged
            .into_iter()
            .chain(if self.allowed.is_some() { tagged.iter().flat_map(|(a, b)| *a..=*b).collect() } else { Vec::new() })
            .collect();
        let mut undefined: Vec<u16> =
            named.into_iter().filter(|v| *v != 1 && !defined.iter().any(|(a, b)| (*a..=*b).contains(v))).collect();
        undefined.sort_unstable();
        undefined.dedup();
        Some(PortVlans { untagged, tagged, svi_mtu, undefined })
    }
}

/// Top-level commands that do not bear on QoS (the EOS User Manual's AAA, NTP, logging, SNMP,
/// management, spanning tree, banner, user account, DNS and clock commands), with their blocks.
fn not_qos(w: &[&str]) -> bool {
    matches!(
        w,
        ["aaa", ..]
            | ["ntp", ..]
            | ["logging", ..]
            | ["snmp-server", ..]
            | ["management", ..]
            | ["spanning-tree", ..]
            | ["no", "spanning-tree", ..]
            | ["username", ..]
            | ["enable", "password" | "secret", ..]
            | ["ip", "name-server", ..]
            | ["ip", "domain-name", ..]
            | ["ip", "domain", "lookup", ..]
            | ["dns", "domain", ..]
            | ["clock", "timezone", ..]
            | ["tacacs-server", ..]
            | ["radius-server", ..]
            | ["no", "aaa", ..]
    ) || matches!(w, ["interface", m] if m.starts_with("Management"))
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
        /// A block that does not bear on QoS: its lines are counted.
        Ignore,
        /// `banner …` text, up to its `EOF` line.
        Banner,
        Vlan,
        Svi,
    }
    let mut ctx = Ctx::Top;
    let mut ignored = 0;
    // `vlan LIST` blocks and `interface VlanN` SVIs (VLAN, MTU).
    let mut defined: Vec<(u16, u16)> = Vec::new();
    let mut svis: Vec<(u16, Option<u32>)> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        let n = i + 1;
        let indent = raw.len() - raw.trim_start().len();
        let line = raw.trim();
        if ctx == Ctx::Banner {
            ignored += 1;
            if line == "EOF" {
                ctx = Ctx::Top;
            }
            continue;
        }
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
            Ctx::Ignore => {
                ignored += 1;
                continue;
            }
            Ctx::Vlan => {
                match w.as_slice() {
                    ["name", ..] | ["state", "active" | "suspend"] | ["trunk", "group", ..] => ignored += 1,
                    _ => report(n, line),
                }
                continue;
            }
            Ctx::Svi => {
                match w.as_slice() {
                    ["mtu", m] if m.parse::<u32>().is_ok() => {
                        if let Some(s) = svis.last_mut() {
                            s.1 = m.parse().ok();
                        }
                    }
                    ["ip", "address" | "virtual-router" | "helper-address", ..]
                    | ["ipv6", ..]
                    | ["vrf", ..]
                    | ["description", ..]
                    | ["shutdown"]
                    | ["no", "shutdown" | "autostate"]
                    | ["arp", ..] => ignored += 1,
                    _ => report(n, line),
                }
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
                    ["switchport", ..] => {
                        if !port.sw.line(&w) {
                            report(n, line);
                        }
                    }
                    ["no", "switchport"] => {
                        port.sw.routed = true;
                        port.sw.said = true;
                    }
                    ["description", ..]
                    | ["shutdown"]
                    | ["no", "shutdown"]
                    | ["ip", "address", ..]
                    | ["channel-group", ..]
                    | ["load-interval", ..]
                    | ["lldp", ..] => ignored += 1,
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
                    sw: Switchport::default(),
                });
                ctx = Ctx::Eth;
            }
            ["interface", iface] if iface.strip_prefix("Vlan").is_some_and(|v| v.parse::<u16>().is_ok()) => {
                svis.push((iface[4..].parse().unwrap_or(0), None));
                ctx = Ctx::Svi;
            }
            ["vlan", list] if vlan_list(list).is_some() => {
                defined.extend(vlan_list(list).unwrap_or_default());
                ctx = Ctx::Vlan;
            }
            ["banner", ..] => {
                ignored += 1;
                ctx = Ctx::Banner;
            }
            _ if not_qos(&w) => {
                ignored += 1;
                ctx = Ctx::Ignore;
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
            p.qos.vlans = p.sw.vlans(&defined, &svis);
            for (d, tc) in &dscp_map {
                p.qos.dscp_to_priority[*d as usize] = *tc;
            }
            for (c, tc) in &cos_map {
                p.qos.priority_to_queue[*c as usize] = *tc;
            }
            (p.name, p.speed.unwrap_or(Rate::gbps(100)), p.qos, p.line)
        })
        .collect();
    DeviceConfig { ports, vxlan, not_understood: bad, ignored, ..DeviceConfig::switch(name, "arista-eos", file) }
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

    /// VLAN blocks, SVIs and switchport lines become the ports' VLANs; management, AAA, NTP,
    /// logging, SNMP, spanning tree, banner and user lines are counted, not listed.
    const VLANS: &str = "! device: leaf3 (DCS-7050CX3-32S, EOS-4.28.3M)
hostname leaf3
aaa authorization exec default local
ntp server 10.0.0.1
logging host 10.0.0.5
snmp-server community public ro
spanning-tree mode mstp
username admin privilege 15 role network-admin secret sha512 $6$abc
banner login
Authorised use only.
EOF
management api http-commands
   no shutdown
!
vlan 10
   name rdma
vlan 20,30
   state active
!
interface Ethernet1
   description host1
   switchport mode trunk
   switchport trunk allowed vlan 10,20
   switchport trunk native vlan 30
!
interface Ethernet2
   switchport access vlan 10
!
interface Ethernet3
   switchport mode trunk
   switchport trunk allowed vlan 10,40
   switchport trunk native vlan tag
!
interface Ethernet4
   no switchport
   ip address 10.1.0.1/31
!
interface Ethernet5
   mtu 9214
!
interface Management1
   ip address 192.0.2.3/24
!
interface Vlan10
   mtu 9000
   ip address 10.10.0.1/24
!
interface Vlan20
   mtu 1500
end
";

    #[test]
    fn vlans_svis_and_switchport_lines_become_the_ports_vlans() {
        let c = parse(VLANS, "leaf3.cfg", "x");
        assert!(c.not_understood.is_empty(), "{:?}", c.not_understood);
        let v = |i: usize| c.ports[i].2.vlans.clone();
        let e1 = v(0).unwrap();
        assert_eq!((e1.untagged, e1.tagged.as_slice(), e1.svi_mtu), (Some(30), &[(10, 10), (20, 20)][..], Some(1500)));
        assert!(e1.is_tagged(10) && !e1.is_tagged(30) && e1.undefined.is_empty());
        let e2 = v(1).unwrap();
        assert_eq!((e2.untagged, e2.tagged.len(), e2.svi_mtu), (Some(10), 0, Some(9000)));
        // A trunk tagging its native VLAN, allowed a VLAN no `vlan` block defines.
        let e3 = v(2).unwrap();
        assert_eq!((e3.untagged, e3.undefined.as_slice()), (None, &[40][..]));
        assert!(e3.is_tagged(10));
        // A routed port and a port with no VLAN line: not known to carry VLANs.
        assert_eq!((v(3), v(4)), (None, None));
        // aaa, ntp, logging, snmp-server, spanning-tree, username (6), the banner and its text
        // to EOF (3), the management block (2), description (1), vlan block lines (2), Ethernet4's
        // ip address (1), interface Management1 and its line (2), the SVIs' ip address (1).
        assert_eq!(c.ignored, 18);
    }

    #[test]
    fn switchport_allowed_lists_add_and_remove() {
        let mut s = Switchport::default();
        for l in [
            "switchport mode trunk",
            "switchport trunk allowed vlan remove 2-4094",
            "switchport trunk allowed vlan add 10",
        ] {
            assert!(s.line(&l.split_whitespace().collect::<Vec<_>>()), "{l}");
        }
        assert_eq!(s.allowed, Some(vec![(1, 1), (10, 10)]));
        assert!(!s.line(&["switchport", "access", "vlan", "5000"]));
        assert!(!s.line(&["switchport", "trunk", "allowed", "vlan", "10,x"]));
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
