//! Cisco NX-OS `show running-config` (Nexus 9000) read back into [`NxosConfig`], the type the
//! renderer fills, with the line of each interface and the lines not understood: rendering and
//! importing meet in one type, so a round trip compares typed values. rocelab-verify's importer
//! turns the result into the checker's port state.
//!
//! Forms read (Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, chapters
//! "Configuring Classification", "Configuring Priority Flow Control" and "Configuring Queuing
//! and Scheduling"; the Layer 2 Switching Configuration Guide for VLANs and trunks):
//! `class-map type qos match-any|match-all NAME` / `match dscp D[,D]` or `match cos P`;
//! `policy-map type qos NAME` / `class NAME` / `set qos-group Q`; `policy-map type network-qos
//! NAME` / `class type network-qos c-8q-nqQ` / `pause pfc-cos P[,P]` / `mtu M`; `policy-map type
//! queuing NAME` / `class type queuing c-out-8q-qQ` / `priority level N`, `bandwidth remaining
//! percent N`, `random-detect minimum-threshold N kbytes maximum-threshold N kbytes
//! drop-probability P weight W ecn`; `system qos` / `service-policy type network-qos|queuing
//! [output] NAME`; `vlan N`; `interface EthernetX/Y` / `mtu`, `switchport …` (kept as written for the
//! checker, which reads the same lines from EOS),
//! `priority-flow-control mode on`, `priority-flow-control watch-dog-interval on`, `flowcontrol
//! receive|send on`, `service-policy type qos input NAME`. The device's own header lines
//! (`!Command: show running-config`, `!Time: …`, `version 10.3(4a) Bios:…`) and the commands that
//! do not bear on QoS (`feature`, `username`, `ntp`, `logging`, …) are skipped.
//!
//! Conventions, as the renderer's: a qos-group is its queue (`c-8q-nqQ`, `c-out-8q-qQ`) and,
//! under DSCP classification, the priority its packets are classified to (Cisco's PFC guidelines:
//! the qos-group of a no-drop class equals its CoS); `kbytes` are 1024 bytes.

use super::{NetworkQosClass, NxosClassMap, NxosConfig, NxosEcn, NxosInterface, NxosQueue};
use crate::cli_tree::{self, priority_list, vlan_list, Reader};

pub use crate::cli_tree::Unknown;

/// A running-config read into the typed configuration.
pub type Parsed = cli_tree::Parsed<NxosConfig>;

/// Whether `text` is an NX-OS running-config: the device's own header or NX-OS's QoS policy
/// types, which no other platform rocelab reads prints.
pub fn recognise(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l.starts_with("!Command: show running-config")
            || l.starts_with("class type network-qos ")
            || l.starts_with("class type queuing c-out-")
            || (l.starts_with("! rocelab: ") && l.contains("(Cisco NX-OS "))
    })
}

/// Top-level commands that do not bear on QoS (the NX-OS Fundamentals, System Management and
/// Security configuration guides' features, users, AAA, NTP, logging, SNMP, boot and line
/// settings), with their blocks.
fn not_qos(w: &[&str]) -> bool {
    matches!(
        w,
        ["feature", ..]
            | ["no", "feature", ..]
            | ["username", ..]
            | ["aaa", ..]
            | ["ntp", ..]
            | ["logging", ..]
            | ["snmp-server", ..]
            | ["boot", ..]
            | ["line", ..]
            | ["banner", ..]
            | ["clock", ..]
            | ["ssh", ..]
            | ["vrf", "context", ..]
            | ["cfs", ..]
            | ["copp", ..]
            | ["rmon", ..]
            | ["spanning-tree", ..]
            | ["ip", "domain-lookup" | "domain-name" | "name-server" | "route", ..]
            | ["no", "ip", "domain-lookup"]
            | ["tacacs-server", ..]
            | ["radius-server", ..]
            | ["license", ..]
            | ["power", ..]
            | ["hardware", "access-list", ..]
            | ["icam", ..]
    ) || matches!(w, ["interface", m] if m.starts_with("mgmt") || m.starts_with("loopback"))
}

/// `c-8q-nq3` → 3, `c-8q-nq-default` → 0 (and the queuing classes' `c-out-8q-q…`).
pub fn queue_of(class: &str, prefix: &str) -> Option<u8> {
    let rest = class.strip_prefix(prefix)?;
    if rest == "-default" {
        return Some(0);
    }
    rest.parse::<u8>().ok().filter(|q| *q < 8)
}

/// `3,4` or `3`: CoS values 0-7.
fn cos_list(text: &str) -> Option<Vec<u8>> {
    priority_list(text)
}

/// Parses one running-config into the typed configuration; `stem` names the device when the
/// text has no `hostname`.
pub fn parse(text: &str, stem: &str) -> Parsed {
    let (roots, comments) = cli_tree::parse(text);
    let mut r = Reader::default();
    // rocelab's own header: `! rocelab: leaf1 (Cisco NX-OS 10.3, Nexus 9000). …`.
    let (mut hostname, mut release) = cli_tree::rocelab_header(&comments, "Cisco NX-OS");
    // Class maps by name: (line, matches).
    let mut class_defs: Vec<(String, String)> = Vec::new();
    // Type-qos policies: name → [(class, qos-group)].
    let mut qos_policies: Vec<(String, Vec<(String, u8)>)> = Vec::new();
    let mut nq_policies: Vec<(String, Vec<NetworkQosClass>, Option<u32>)> = Vec::new();
    let mut queuing_policies: Vec<(String, Vec<NxosQueue>)> = Vec::new();
    let (mut system_nq, mut system_queuing) = (None, None);
    let mut vlan = None;
    let mut defined: Vec<(u16, u16)> = Vec::new();
    let mut interfaces = Vec::new();
    let (mut interface_lines, mut switchport) = (Vec::new(), Vec::new());
    let mut input_policy: Option<String> = None;
    for node in &roots {
        let w = node.words();
        match w.as_slice() {
            ["hostname" | "switchname", h] => hostname = Some(h.to_string()),
            ["version", v, ..] => {
                if release.name.is_empty() {
                    release.name = v.to_string();
                }
            }
            ["class-map", "type", "qos", "match-any" | "match-all", name] => {
                let mut matches = Vec::new();
                for c in &node.children {
                    match c.words().as_slice() {
                        ["match", "dscp", list] => matches.push(format!("dscp {list}")),
                        ["match", "cos", list] if cos_list(list).is_some() => matches.push(format!("cos {list}")),
                        _ => r.report(c),
                    }
                }
                class_defs.push((name.to_string(), matches.join(" ")));
            }
            ["policy-map", "type", "qos", name] => {
                let mut classes = Vec::new();
                for c in &node.children {
                    match c.words().as_slice() {
                        ["class", cname] => {
                            let mut group = None;
                            for a in &c.children {
                                match a.words().as_slice() {
                                    ["set", "qos-group", g] if g.parse::<u8>().is_ok_and(|g| g < 8) => {
                                        group = g.parse().ok()
                                    }
                                    _ => r.report(a),
                                }
                            }
                            match group {
                                Some(g) => classes.push((cname.to_string(), g)),
                                None => r.report(c),
                            }
                        }
                        _ => r.report(c),
                    }
                }
                qos_policies.push((name.to_string(), classes));
            }
            ["policy-map", "type", "network-qos", name] => {
                let (mut classes, mut mtu) = (Vec::new(), None);
                for c in &node.children {
                    match c.words().as_slice() {
                        ["class", "type", "network-qos", class] if queue_of(class, "c-8q-nq").is_some() => {
                            let mut pfc_cos = Vec::new();
                            for a in &c.children {
                                match a.words().as_slice() {
                                    ["pause", "pfc-cos", list] if cos_list(list).is_some() => {
                                        pfc_cos.extend(cos_list(list).unwrap_or_default())
                                    }
                                    ["mtu", m] if m.parse::<u32>().is_ok() => {
                                        mtu.get_or_insert(m.parse().unwrap_or(1500));
                                    }
                                    _ => r.report(a),
                                }
                            }
                            classes.push(NetworkQosClass { class: class.to_string(), pfc_cos });
                        }
                        _ => r.report(c),
                    }
                }
                nq_policies.push((name.to_string(), classes, mtu));
            }
            ["policy-map", "type", "queuing", name] => {
                let mut queues = Vec::new();
                for c in &node.children {
                    match c.words().as_slice() {
                        ["class", "type", "queuing", class] if queue_of(class, "c-out-8q-q").is_some() => {
                            let mut q = NxosQueue {
                                class: class.to_string(),
                                priority_level: None,
                                bandwidth_remaining: None,
                                ecn: None,
                            };
                            for a in &c.children {
                                match a.words().as_slice() {
                                    ["priority", "level", l] if l.parse::<u8>().is_ok() => {
                                        q.priority_level = l.parse().ok()
                                    }
                                    ["priority"] => q.priority_level = Some(1),
                                    ["bandwidth", "remaining", "percent", p] if p.parse::<u8>().is_ok() => {
                                        q.bandwidth_remaining = p.parse().ok()
                                    }
                                    ["random-detect", "minimum-threshold", min, "kbytes", "maximum-threshold", max, "kbytes", "drop-probability", p, "weight", _, "ecn"]
                                        if min.parse::<u64>().is_ok()
                                            && max.parse::<u64>().is_ok()
                                            && p.parse::<u8>().is_ok() =>
                                    {
                                        q.ecn = Some(NxosEcn {
                                            min: min.parse().unwrap_or(0),
                                            max: max.parse().unwrap_or(0),
                                            drop_probability: p.parse().unwrap_or(0),
                                        })
                                    }
                                    _ => r.report(a),
                                }
                            }
                            queues.push(q);
                        }
                        _ => r.report(c),
                    }
                }
                queuing_policies.push((name.to_string(), queues));
            }
            ["system", "qos"] => {
                for c in &node.children {
                    match c.words().as_slice() {
                        ["service-policy", "type", "network-qos", p] => system_nq = Some(p.to_string()),
                        ["service-policy", "type", "queuing", "output", p] => system_queuing = Some(p.to_string()),
                        ["service-policy", "type", "queuing", "input", _] => r.ignored += 1,
                        _ => r.report(c),
                    }
                }
            }
            ["vlan", list] => match vlan_list(list) {
                Some(l) => {
                    if let Some((a, _)) = l.iter().find(|(a, _)| *a != 1) {
                        vlan.get_or_insert(*a);
                    }
                    defined.extend(l);
                    r.ignored += node.descendants();
                }
                None => r.report(node),
            },
            // A port: NX-OS's `Ethernet1/1` and `port-channel10`, or a name the fabric gave it.
            ["interface", name] if !not_qos(&w) && !name.starts_with("Vlan") && !name.starts_with("nve") => {
                let mut i = NxosInterface {
                    name: name.to_string(),
                    peer: String::new(),
                    mtu: 1500,
                    pfc: false,
                    link_pause: false,
                };
                let mut sw = Vec::new();
                for c in &node.children {
                    let cw = c.words();
                    match cw.as_slice() {
                        ["description", ..] => {
                            let d = c.text["description".len()..].trim();
                            i.peer = d.strip_prefix("rocelab: to ").unwrap_or(d).to_string();
                        }
                        ["mtu", m] if m.parse::<u32>().is_ok() => i.mtu = m.parse().unwrap_or(1500),
                        ["priority-flow-control", "mode", "on"] => i.pfc = true,
                        ["priority-flow-control", "mode", "off" | "auto"] => i.pfc = false,
                        ["priority-flow-control", "watch-dog-interval", "on" | "off"] => {}
                        ["flowcontrol", "receive" | "send", "on"] => i.link_pause = true,
                        ["flowcontrol", "receive" | "send", "off"] => {}
                        ["service-policy", "type", "qos", "input", p] => {
                            input_policy.get_or_insert_with(|| p.to_string());
                        }
                        ["switchport", ..] | ["no", "switchport"] => sw.push((c.line, c.text.clone())),
                        ["shutdown"] | ["no", "shutdown"] | ["speed", ..] | ["duplex", ..] | ["ip", ..] => {
                            r.ignored += 1
                        }
                        _ => r.report(c),
                    }
                }
                interface_lines.push(node.line);
                switchport.push(sw);
                interfaces.push(i);
            }
            ["end"] | ["copy", "running-config", "startup-config"] => {}
            _ if not_qos(&w) => r.ignored += 1 + node.descendants(),
            _ => r.report(node),
        }
    }
    // The applied policies (the interfaces' input policy, `system qos`), else the only one.
    let pick = |applied: &Option<String>, names: Vec<&String>| -> Option<usize> {
        match applied {
            Some(a) => names.iter().position(|n| *n == a),
            None => (names.len() == 1).then_some(0),
        }
    };
    let mut class_maps = Vec::new();
    let mut default_qos_group = None;
    if let Some(k) = pick(&input_policy, qos_policies.iter().map(|p| &p.0).collect()) {
        for (cname, group) in &qos_policies[k].1 {
            if cname == "class-default" {
                default_qos_group = Some(*group);
                continue;
            }
            let matches = class_defs.iter().find(|(n, _)| n == cname).map(|(_, m)| m.clone()).unwrap_or_default();
            class_maps.push(NxosClassMap { name: cname.clone(), matches, qos_group: *group });
        }
    }
    let (network_qos, mtu) = match pick(&system_nq, nq_policies.iter().map(|p| &p.0).collect()) {
        Some(k) => (nq_policies[k].1.clone(), nq_policies[k].2.unwrap_or(1500)),
        None => (Vec::new(), 1500),
    };
    let queuing =
        pick(&system_queuing, queuing_policies.iter().map(|p| &p.0).collect()).map(|k| queuing_policies[k].1.clone());
    let config = NxosConfig {
        hostname: hostname.unwrap_or_else(|| stem.to_string()),
        release,
        class_maps,
        default_qos_group,
        network_qos,
        queuing: queuing.unwrap_or_default(),
        mtu,
        vlan,
        interfaces,
    };
    Parsed { config, interface_lines, switchport, defined, unknown: r.unknown, ignored: r.ignored }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Nexus 9000's own output: its header, features, users, a management interface and a
    /// BGP block, around the QoS forms of Cisco's RoCEv2 blueprint for Nexus 9000.
    const DEVICE: &str = "!Command: show running-config
!Running configuration last done at: Mon Mar  4 10:12:01 2024
!Time: Mon Mar  4 10:20:44 2024

version 10.3(4a) Bios:version 05.47
hostname leaf7
feature lldp
feature interface-vlan

username admin password 5 $5$XYZ  role network-admin
class-map type qos match-all RDMA
  match dscp 24-26
class-map type qos match-all CNP
  match dscp 48
policy-map type qos QOS_CLASSIFICATION
  class RDMA
    set qos-group 3
  class CNP
    set qos-group 7
policy-map type queuing QOS_EGRESS_PORT
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold 150 kbytes maximum-threshold 3000 kbytes drop-probability 7 weight 0 ecn
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 50
  class type queuing c-out-8q-q7
    priority level 1
policy-map type network-qos qos_network
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 3
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type network-qos qos_network
  service-policy type queuing output QOS_EGRESS_PORT

vlan 1,20

interface Ethernet1/1
  description host1
  switchport mode trunk
  switchport trunk allowed vlan 20
  mtu 9216
  priority-flow-control mode on
  priority-flow-control watch-dog-interval on
  service-policy type qos input QOS_CLASSIFICATION
  no shutdown

interface mgmt0
  vrf member management
  ip address 10.0.0.5/24

router bgp 65001
  router-id 10.0.0.1
line console
boot nxos bootflash:/nxos64-cs.10.3.4a.M.bin
";

    #[test]
    fn a_devices_running_config_becomes_the_typed_configuration() {
        assert!(recognise(DEVICE));
        let p = parse(DEVICE, "x");
        let c = &p.config;
        assert_eq!(
            (c.hostname.as_str(), c.release.name.as_str(), c.mtu, c.vlan),
            ("leaf7", "10.3(4a)", 9216, Some(20))
        );
        assert_eq!(
            c.class_maps.iter().map(|m| (m.matches.as_str(), m.qos_group)).collect::<Vec<_>>(),
            [("dscp 24-26", 3), ("dscp 48", 7)]
        );
        assert_eq!(c.network_qos[0].pfc_cos, [3]);
        assert_eq!(
            c.queuing.iter().map(|q| q.class.as_str()).collect::<Vec<_>>(),
            ["c-out-8q-q3", "c-out-8q-q-default", "c-out-8q-q7"]
        );
        assert_eq!(c.queuing[0].ecn.as_ref().map(|e| (e.min, e.max, e.drop_probability)), Some((150, 3000, 7)));
        assert_eq!((c.interfaces.len(), c.interfaces[0].pfc, c.interfaces[0].peer.as_str()), (1, true, "host1"));
        let line_of = |start: &str| DEVICE.lines().position(|l| l.starts_with(start)).map(|i| i + 1);
        assert_eq!(p.interface_lines.iter().map(|l| Some(*l)).collect::<Vec<_>>(), [line_of("interface Ethernet1/1")]);
        let sw: Vec<&str> = p.switchport[0].iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(sw, ["switchport mode trunk", "switchport trunk allowed vlan 20"]);
        assert_eq!(p.defined, [(1, 1), (20, 20)]);
        // Only the block rocelab does not read is listed, with its line and size.
        let nu: Vec<_> = p.unknown.iter().map(|n| (Some(n.line), n.text.as_str())).collect();
        assert_eq!(
            nu,
            [(line_of("router bgp"), "router bgp 65001 (a block rocelab does not read, with 1 indented lines)")]
        );
    }

    #[test]
    fn a_bad_interface_line_is_reported_with_its_number_and_the_stem_names_the_switch() {
        let text = "interface Ethernet1/2\n  mtu 9216\n  priority-flow-control mode bogus\n";
        let p = parse(text, "s1");
        assert_eq!((p.config.hostname.as_str(), p.config.interfaces[0].pfc), ("s1", false));
        assert_eq!(p.unknown.iter().map(|n| n.line).collect::<Vec<_>>(), [3]);
    }
}
