//! Dell SmartFabric OS10 `show running-configuration` read back into [`Os10Config`], the type
//! the renderer fills, with the line of each interface and the lines not understood: rendering
//! and importing meet in one type, so a round trip compares typed values. rocelab-verify's
//! importer turns the result into the checker's port state.
//!
//! Forms read (Dell SmartFabric OS10 User Guide, "Quality of service": trust-based
//! classification, PFC, ETS, WRED/ECN; "VLANs" for trunk ports): `trust dot1p-map|dscp-map NAME`
//! / `qos-group G dot1p|dscp VALUES`; `qos-map traffic-class NAME` / `queue Q qos-group G`;
//! `class-map type network-qos NAME` / `match qos-group G`; `policy-map type network-qos NAME` /
//! `class NAME` / `pause` / `pfc-cos P`; `wred NAME` / `random-detect color green
//! minimum-threshold N maximum-threshold N drop-probability P` / `random-detect ecn`;
//! `class-map type queuing NAME` / `match queue Q`; `policy-map type queuing NAME` / `class NAME`
//! / `priority` or `bandwidth percent N` / `random-detect NAME`; `system qos` / `trust-map
//! dot1p|dscp NAME` / `qos-map traffic-class NAME` / `ets mode on`; `interface vlan N`;
//! `interface ethernetX/Y/Z` / `mtu`, `switchport …` (kept as written for the checker), `flowcontrol receive|transmit on|off`,
//! `priority-flow-control mode on`, `service-policy input type network-qos NAME`, `ets mode on`,
//! `service-policy output type queuing NAME`. OS10 prints `!` between blocks and a `! Version`
//! header line; commands that do not bear on QoS (`username`, `aaa`, `ntp`, `logging`,
//! `interface mgmt1/1/1`, …) are skipped.
//!
//! Conventions, as the renderer's: a qos-group is its queue and, under DSCP trust, the priority
//! its packets are classified to; WRED thresholds are KB of 1000 bytes; the interface MTU is the
//! link MTU, the IP MTU plus [`TAGGED_OVERHEAD`](super::TAGGED_OVERHEAD) (Dell's Layer 2 overhead table).

use super::{Os10Config, Os10Interface, Os10Pfc, Os10Queue, Os10QueuingPolicy, Os10Wred, TrustEntry};
use crate::cli_tree::{self, priority_list, Node, Reader};

pub use crate::cli_tree::Unknown;

/// The queuing policy the renderer names first, and the one a port without its own is given.
pub const QUEUING: &str = "ROCELAB-ETS";

/// A running-configuration read into the typed configuration.
pub type Parsed = cli_tree::Parsed<Os10Config>;

/// Whether `text` is an OS10 running-configuration: OS10's three-part port names
/// (`interface ethernet1/1/1`) or its trust maps, which no other platform rocelab reads prints.
pub fn recognise(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_end();
        (l.starts_with("interface ethernet") && l.matches('/').count() >= 2)
            || l.starts_with("trust dot1p-map ")
            || l.starts_with("trust dscp-map ")
            || l.starts_with("qos-map traffic-class ")
    })
}

/// Top-level commands that do not bear on QoS (the OS10 user guide's system management, user,
/// AAA, NTP, logging, SNMP and spanning-tree settings), with their blocks.
fn not_qos(w: &[&str]) -> bool {
    matches!(
        w,
        ["username", ..]
            | ["aaa", ..]
            | ["ntp", ..]
            | ["logging", ..]
            | ["snmp-server", ..]
            | ["spanning-tree", ..]
            | ["ip", "vrf", ..]
            | ["ip", "domain-name" | "name-server" | "route", ..]
            | ["system-user", ..]
            | ["login", ..]
            | ["management", ..]
            | ["banner", ..]
            | ["clock", ..]
            | ["iscsi", ..]
            | ["support-assist", ..]
            | ["telemetry", ..]
            | ["lldp", ..]
            | ["license", ..]
    ) || matches!(w, ["interface", m, ..] if m.starts_with("mgmt") || m.starts_with("loopback"))
}

fn u8_of(s: &str, max: u8) -> Option<u8> {
    s.parse::<u8>().ok().filter(|v| *v <= max)
}

/// A queuing policy's classes; `queue_of` gives a class map's queue.
fn queuing_classes(r: &mut Reader, node: &Node, queue_of: &[(String, u8)]) -> Vec<Os10Queue> {
    let mut queues = Vec::new();
    for c in &node.children {
        let cw = c.words();
        let ["class", name] = cw.as_slice() else {
            r.report(c);
            continue;
        };
        let queue = queue_of.iter().find(|(n, _)| n == name).map(|(_, q)| *q).unwrap_or(0);
        let mut q = Os10Queue { name: name.to_string(), queue, strict: false, bandwidth: None, wred: None };
        for a in &c.children {
            match a.words().as_slice() {
                ["priority"] => q.strict = true,
                ["bandwidth", "percent", p] if u8_of(p, 100).is_some() => q.bandwidth = u8_of(p, 100),
                ["random-detect", w] => q.wred = Some(w.to_string()),
                _ => r.report(a),
            }
        }
        queues.push(q);
    }
    queues
}

/// Parses one running-configuration into the typed configuration; `stem` names the device when
/// the text has no `hostname`.
pub fn parse(text: &str, stem: &str) -> Parsed {
    let (roots, comments) = cli_tree::parse(text);
    let mut r = Reader::default();
    // rocelab's header, `! rocelab: leaf1 (Dell SmartFabric OS10 10.5). …`, or OS10's own
    // `! Version 10.5.4.0`.
    let (mut hostname, mut release) = cli_tree::rocelab_header(&comments, "Dell SmartFabric OS10");
    if release.name.is_empty() {
        if let Some(v) = comments.iter().find_map(|(_, c)| c.strip_prefix("! Version ")) {
            release.name = v.trim().to_string();
        }
    }
    let (mut trust, mut trust_map, mut qos_map) = (None::<String>, Vec::new(), Vec::new());
    let mut nq_classes: Vec<(String, u8)> = Vec::new();
    let mut pfc_classes = Vec::new();
    let mut wred = Vec::new();
    let mut queue_classes: Vec<(String, u8)> = Vec::new();
    let mut policies: Vec<(String, Vec<Os10Queue>)> = Vec::new();
    let mut ets_global = false;
    let (mut vlan, mut defined) = (None, Vec::new());
    let (mut interfaces, mut interface_lines, mut switchport) = (Vec::new(), Vec::new(), Vec::new());
    for node in &roots {
        let w = node.words();
        match w.as_slice() {
            ["hostname", h] => hostname = Some(h.to_string()),
            ["trust", kind @ ("dot1p-map" | "dscp-map"), _] => {
                let kind = kind.trim_end_matches("-map");
                trust.get_or_insert_with(|| kind.to_string());
                for c in &node.children {
                    match c.words().as_slice() {
                        ["qos-group", g, k, values] if *k == kind && u8_of(g, 7).is_some() => trust_map
                            .push(TrustEntry { qos_group: u8_of(g, 7).unwrap_or(0), values: values.to_string() }),
                        _ => r.report(c),
                    }
                }
            }
            ["qos-map", "traffic-class", _] => {
                for c in &node.children {
                    match c.words().as_slice() {
                        ["queue", q, "qos-group", g] if u8_of(q, 7).is_some() && u8_of(g, 7).is_some() => {
                            qos_map.push(u8_of(g, 7).unwrap_or(0))
                        }
                        _ => r.report(c),
                    }
                }
            }
            ["class-map", "type", kind @ ("network-qos" | "queuing"), name] => {
                let want = if *kind == "queuing" { "queue" } else { "qos-group" };
                let mut value = None;
                for c in &node.children {
                    match c.words().as_slice() {
                        ["match", k, v] if k == &want && u8_of(v, 7).is_some() => value = u8_of(v, 7),
                        _ => r.report(c),
                    }
                }
                match (value, *kind) {
                    (Some(v), "queuing") => queue_classes.push((name.to_string(), v)),
                    (Some(v), _) => nq_classes.push((name.to_string(), v)),
                    (None, _) => r.report(node),
                }
            }
            ["policy-map", "type", "network-qos", _] => {
                for c in &node.children {
                    let cw = c.words();
                    let ["class", name] = cw.as_slice() else {
                        r.report(c);
                        continue;
                    };
                    let mut pfc_cos = None;
                    for a in &c.children {
                        match a.words().as_slice() {
                            ["pause"] => {}
                            ["pfc-cos", list] if priority_list(list).is_some() => pfc_cos = Some(list.to_string()),
                            _ => r.report(a),
                        }
                    }
                    let qos_group = nq_classes.iter().find(|(n, _)| n == name).map(|(_, g)| *g).unwrap_or(0);
                    match pfc_cos {
                        Some(pfc_cos) => pfc_classes.push(Os10Pfc { name: name.to_string(), qos_group, pfc_cos }),
                        None => r.report(c),
                    }
                }
            }
            ["wred", name] => {
                let mut w = Os10Wred { name: name.to_string(), min: 0, max: 0, drop_probability: 0 };
                let mut ecn = false;
                for c in &node.children {
                    match c.words().as_slice() {
                        ["random-detect", "color", "green", "minimum-threshold", min, "maximum-threshold", max, "drop-probability", p]
                            if min.parse::<u64>().is_ok() && max.parse::<u64>().is_ok() && u8_of(p, 100).is_some() =>
                        {
                            (w.min, w.max) = (min.parse().unwrap_or(0), max.parse().unwrap_or(0));
                            w.drop_probability = u8_of(p, 100).unwrap_or(0);
                        }
                        ["random-detect", "ecn"] => ecn = true,
                        _ => r.report(c),
                    }
                }
                // A WRED profile without `random-detect ecn` drops rather than marks.
                if ecn {
                    wred.push(w);
                } else {
                    r.report(node);
                }
            }
            ["policy-map", "type", "queuing", name] => {
                policies.push((name.to_string(), queuing_classes(&mut r, node, &queue_classes)));
            }
            ["system", "qos"] => {
                for c in &node.children {
                    match c.words().as_slice() {
                        ["trust-map", k @ ("dot1p" | "dscp"), _] => trust = Some(k.to_string()),
                        ["qos-map", "traffic-class", _] => {}
                        ["ets", "mode", "on"] => ets_global = true,
                        _ => r.report(c),
                    }
                }
            }
            _ if svi(&w).is_some() => {
                let id = svi(&w).unwrap_or(1);
                if id != 1 {
                    vlan.get_or_insert(id);
                }
                defined.push((id, id));
                r.ignored += node.descendants();
            }
            // A port: OS10's `ethernet1/1/1` and `port-channel10`, or a name the fabric gave it.
            ["interface", name] if !not_qos(&w) && !name.starts_with("vlan") => {
                let mut i = Os10Interface {
                    name: name.to_string(),
                    peer: String::new(),
                    mtu: 1532,
                    pfc: false,
                    ets: false,
                    queuing: QUEUING.to_string(),
                    link_pause: false,
                };
                let mut sw = Vec::new();
                for c in &node.children {
                    let cw = c.words();
                    match cw.as_slice() {
                        ["description", ..] => {
                            let d = c.text["description".len()..].trim();
                            i.peer = d.strip_prefix("rocelab:").unwrap_or(d).to_string();
                        }
                        ["mtu", m] if m.parse::<u32>().is_ok() => i.mtu = m.parse().unwrap_or(1532),
                        ["priority-flow-control", "mode", "on"] => i.pfc = true,
                        ["flowcontrol", "receive" | "transmit", "on"] => i.link_pause = true,
                        ["flowcontrol", "receive" | "transmit", "off"] => {}
                        ["service-policy", "input", "type", "network-qos", _] => {}
                        ["ets", "mode", "on"] => i.ets = true,
                        ["service-policy", "output", "type", "queuing", p] => i.queuing = p.to_string(),
                        ["switchport", ..] | ["no", "switchport"] => sw.push((c.line, c.text.clone())),
                        ["shutdown"] | ["no", "shutdown"] | ["speed", ..] | ["ip", ..] => r.ignored += 1,
                        _ => r.report(c),
                    }
                }
                interface_lines.push(node.line);
                switchport.push(sw);
                interfaces.push(i);
            }
            ["end"] | ["write", "memory"] | ["copy", "running-configuration", "startup-configuration"] => {}
            _ if not_qos(&w) => r.ignored += 1 + node.descendants(),
            _ => r.report(node),
        }
    }
    let queuing = policies.iter().find(|(n, _)| n == QUEUING).map(|(_, q)| q.clone()).unwrap_or_default();
    let more_queuing = policies
        .into_iter()
        .filter(|(n, _)| n != QUEUING)
        .map(|(name, queues)| Os10QueuingPolicy { name, queues })
        .collect();
    let mut queue_numbers: Vec<u8> = queue_classes.iter().map(|(_, q)| *q).collect();
    queue_numbers.sort_unstable();
    queue_numbers.dedup();
    let config = Os10Config {
        hostname: hostname.unwrap_or_else(|| stem.to_string()),
        release,
        trust: trust.unwrap_or_else(|| "dot1p".to_string()),
        trust_map,
        qos_map,
        pfc_classes,
        wred,
        queuing,
        more_queuing,
        queue_classes: queue_numbers,
        interfaces,
        ets_global,
        vlan,
    };
    Parsed { config, interface_lines, switchport, defined, unknown: r.unknown, ignored: r.ignored }
}

/// The VLAN of a VLAN interface: `interface vlan 10` or, as OS10 prints it, `interface vlan10`.
fn svi(w: &[&str]) -> Option<u16> {
    let v = match w {
        ["interface", "vlan", v] => v,
        ["interface", v] => v.strip_prefix("vlan")?,
        _ => return None,
    };
    v.parse().ok().filter(|v| (1..=4094).contains(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An OS10 switch's own output: its `! Version` header, `!` between blocks, users, AAA,
    /// iSCSI, a management interface and a BGP block, around the QoS forms of Dell's user guide
    /// (policy names of the device's choosing).
    const DEVICE: &str = "! Version 10.5.4.0
! Last configuration change at Mar  04 10:11:42 2024
!
ip vrf default
!
hostname s5248-leaf1
system-user linuxadmin password ****
iscsi target port 3260
username admin password **** role sysadmin priv-lvl 15
aaa authentication login default local
!
class-map type network-qos pfc3
 match qos-group 3
!
class-map type queuing q3
 match queue 3
!
trust dot1p-map map_dot1p
 qos-group 0 dot1p 0-2,4-7
 qos-group 3 dot1p 3
!
qos-map traffic-class tc-q
 queue 0 qos-group 0
 queue 3 qos-group 3
!
wred roce-wred
 random-detect color green minimum-threshold 150 maximum-threshold 1500 drop-probability 10
 random-detect ecn
!
policy-map type network-qos pfc-policy
 class pfc3
  pause
  pfc-cos 3
!
policy-map type queuing ets-policy
 class q3
  bandwidth percent 50
  random-detect roce-wred
!
system qos
 trust-map dot1p map_dot1p
 qos-map traffic-class tc-q
 ets mode on
!
interface vlan20
 no shutdown
!
interface ethernet1/1/1
 no shutdown
 switchport mode trunk
 switchport trunk allowed vlan 20
 mtu 9216
 flowcontrol receive off
 priority-flow-control mode on
 service-policy input type network-qos pfc-policy
 ets mode on
 service-policy output type queuing ets-policy
!
interface mgmt1/1/1
 no shutdown
 ip address 10.0.0.4/24
 ipv6 address autoconfig
!
router bgp 65001
 router-id 10.0.0.1
";

    #[test]
    fn a_devices_running_configuration_becomes_the_typed_configuration() {
        assert!(recognise(DEVICE));
        let p = parse(DEVICE, "x");
        let c = &p.config;
        assert_eq!(
            (c.hostname.as_str(), c.release.name.as_str(), c.trust.as_str()),
            ("s5248-leaf1", "10.5.4.0", "dot1p")
        );
        assert_eq!(
            (c.qos_map.as_slice(), c.queue_classes.as_slice(), c.ets_global, c.vlan),
            (&[0, 3][..], &[3][..], true, Some(20))
        );
        assert_eq!((c.pfc_classes[0].qos_group, c.pfc_classes[0].pfc_cos.as_str()), (3, "3"));
        assert_eq!((c.more_queuing.len(), c.interfaces[0].queuing.as_str()), (1, "ets-policy"));
        assert_eq!((c.wred[0].min, c.wred[0].max, c.wred[0].drop_probability), (150, 1500, 10));
        let i = &c.interfaces[0];
        assert_eq!((i.name.as_str(), i.mtu, i.pfc, i.ets, i.link_pause), ("ethernet1/1/1", 9216, true, true, false));
        let line_of = |start: &str| DEVICE.lines().position(|l| l.starts_with(start)).map(|i| i + 1);
        assert_eq!(
            p.interface_lines.iter().map(|l| Some(*l)).collect::<Vec<_>>(),
            [line_of("interface ethernet1/1/1")]
        );
        let sw: Vec<&str> = p.switchport[0].iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(sw, ["switchport mode trunk", "switchport trunk allowed vlan 20"]);
        assert_eq!(p.defined, [(20, 20)]);
        let nu: Vec<_> = p.unknown.iter().map(|n| (Some(n.line), n.text.as_str())).collect();
        assert_eq!(
            nu,
            [(line_of("router bgp"), "router bgp 65001 (a block rocelab does not read, with 1 indented lines)")]
        );
    }

    #[test]
    fn a_bad_interface_line_is_reported_with_its_number_and_the_stem_names_the_switch() {
        let text = "interface ethernet1/1/2\n ets mode on\n mtu 99999999999\n";
        let p = parse(text, "s1");
        assert_eq!((p.config.hostname.as_str(), p.config.interfaces[0].ets), ("s1", true));
        assert_eq!(p.unknown.iter().map(|n| n.line).collect::<Vec<_>>(), [3]);
    }
}
