//! Cisco NX-OS `show running-config` (Nexus 9000): rocelab-config's parser
//! ([`rocelab_config::nxos::parse`]) reads the text into [`NxosConfig`](rocelab_config::nxos::NxosConfig), the typed configuration
//! the renderer fills, and this importer turns that into the checker's port state.
//!
//! Conventions, as the renderer's: a qos-group is its queue (`c-8q-nqQ`, `c-out-8q-qQ`) and,
//! under DSCP classification, the priority its packets are classified to (Cisco's PFC guidelines:
//! the qos-group of a no-drop class equals its CoS); `kbytes` are 1024 bytes. A port's
//! `switchport` lines are read as EOS's (the Layer 2 Switching Configuration Guide's forms).

use super::arista::Switchport;
use super::{unknown_lines, DeviceConfig, NotUnderstood};
use crate::state::{EcnState, PortQos, Sched};
use rocelab_config::cli_tree;
use rocelab_config::nxos::parse::{parse as parse_text, queue_of, Parsed};
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

/// Whether `text` is an NX-OS running-config.
pub fn recognise(text: &str) -> bool {
    rocelab_config::nxos::parse::recognise(text)
}

/// A port's `switchport` lines read as EOS's; those not understood go to `bad`.
fn switchport(lines: &[(usize, String)], file: &str, bad: &mut Vec<NotUnderstood>) -> Switchport {
    let mut sw = Switchport::default();
    for (line, text) in lines {
        let w: Vec<&str> = text.split_whitespace().collect();
        if w == ["no", "switchport"] {
            sw.routed = true;
        } else if !sw.line(&w) {
            bad.push(NotUnderstood { file: file.to_string(), line: *line, text: text.clone() });
        }
    }
    sw
}

/// The checker's device of a running-config that rocelab-config parsed into `p` (NX-OS's or
/// OS10's CLI tree): each of `interfaces` with the QoS `port` gives it and the VLANs of its
/// `switchport` lines, and every line not understood, in line order. Neither platform prints a
/// port's speed unless it is set: the link's is taken.
pub(crate) fn cli_switch<C, I>(
    p: &cli_tree::Parsed<C>,
    interfaces: &[I],
    (hostname, platform): (&str, &'static str),
    file: &str,
    mut port: impl FnMut(&I) -> (String, PortQos),
) -> DeviceConfig {
    let mut bad = Vec::new();
    let switchports: Vec<Switchport> = p.switchport.iter().map(|lines| switchport(lines, file, &mut bad)).collect();
    let ports = interfaces
        .iter()
        .zip(p.interface_lines.iter().zip(&switchports))
        .map(|(i, (line, sw))| {
            let (name, mut q) = port(i);
            q.vlans = sw.vlans(&p.defined, &[]);
            (name, Rate::gbps(0), q, *line)
        })
        .collect();
    let mut not_understood = unknown_lines(&p.unknown, file);
    not_understood.extend(bad);
    not_understood.sort_by_key(|n| n.line);
    DeviceConfig {
        ports,
        not_understood,
        ignored: p.ignored,
        ..DeviceConfig::switch(hostname.to_string(), platform, file)
    }
}

/// `24,26` or `24-26`: the values of a `match dscp|cos` list.
fn values(list: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for part in list.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u8>(), b.parse::<u8>()) {
            out.extend(a..=b.min(63));
        }
    }
    out
}

/// The checker's state of a typed configuration: each interface's QoS.
pub fn to_device(p: Parsed, file: &str) -> DeviceConfig {
    let c = &p.config;
    let dscp = c.class_maps.iter().any(|m| m.matches.starts_with("dscp"));
    let mut base = PortQos::unconfigured(1500);
    base.trust = if dscp { Marking::Dscp } else { Marking::Pcp };
    for m in &c.class_maps {
        let Some((kind, list)) = m.matches.split_once(' ') else { continue };
        for v in values(list) {
            match kind {
                "dscp" if v < 64 => base.dscp_to_priority[v as usize] = m.qos_group,
                "cos" if v < 8 => base.priority_to_queue[v as usize] = m.qos_group,
                _ => {}
            }
        }
    }
    let mut pfc = 0u8;
    for n in &c.network_qos {
        let q = queue_of(&n.class, "c-8q-nq").unwrap_or(0);
        for p in &n.pfc_cos {
            pfc |= 1 << p;
            base.priority_to_pg[*p as usize] = *p;
            base.priority_to_queue[*p as usize] = q;
        }
    }
    for q in &c.queuing {
        let i = queue_of(&q.class, "c-out-8q-q").unwrap_or(0) as usize;
        if q.priority_level.is_some() {
            base.sched[i] = Sched::Strict;
        } else if let Some(b) = q.bandwidth_remaining {
            base.sched[i] = Sched::Ets(b);
        }
        base.ecn[i] = q.ecn.as_ref().map(|e| EcnState {
            kmin: e.min * 1024,
            kmax: e.max * 1024,
            pmax: f64::from(e.drop_probability) / 100.0,
        });
    }
    cli_switch(&p, &c.interfaces, (&c.hostname, "cisco-nxos"), file, |i| {
        let mut q = base.clone();
        q.mtu = i.mtu;
        q.pfc = if i.pfc { pfc } else { 0 };
        q.link_pause = i.link_pause;
        (i.name.clone(), q)
    })
}

/// Parses one running-config into the checker's state (rocelab-config's parser, then
/// [`to_device`]).
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    to_device(parse_text(text, stem), file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{recognise as format_of, Format};

    /// The QoS forms of Cisco's RoCEv2 blueprint for Nexus 9000, behind the device's header.
    const DEVICE: &str = "!Command: show running-config
version 10.3(4a) Bios:version 05.47
hostname leaf7
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
system qos
  service-policy type network-qos qos_network
  service-policy type queuing output QOS_EGRESS_PORT

vlan 1,20

interface Ethernet1/1
  switchport mode trunk
  switchport trunk allowed vlan 20
  switchport access vlan 5000
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input QOS_CLASSIFICATION
";

    #[test]
    fn the_typed_configuration_becomes_the_ports_qos() {
        assert_eq!(format_of(DEVICE), Some(Format::Nxos), "recognised ahead of EOS's `interface Ethernet`");
        let d = parse(DEVICE, "leaf7.txt", "x");
        let line_of = |start: &str| DEVICE.lines().position(|l| l.starts_with(start)).map(|i| i + 1);
        let (name, _, q, line) = &d.ports[0];
        assert_eq!(
            (name.as_str(), Some(*line), d.name.as_str(), d.platform),
            ("Ethernet1/1", line_of("interface Ethernet1/1"), "leaf7", "cisco-nxos")
        );
        assert_eq!((q.trust, q.pfc, q.mtu), (Marking::Dscp, 1 << 3, 9216));
        assert_eq!((q.dscp_to_priority[24], q.dscp_to_priority[26], q.dscp_to_priority[48]), (3, 3, 7));
        assert_eq!((q.sched[3], q.sched[0], q.sched[7]), (Sched::Ets(50), Sched::Ets(50), Sched::Strict));
        let e = q.ecn[3].expect("ECN on queue 3");
        assert_eq!((e.kmin, e.kmax, e.pmax), (150 * 1024, 3000 * 1024, 0.07));
        let v = q.vlans.as_ref().expect("a trunk");
        assert!(v.is_tagged(20) && v.undefined.is_empty(), "{v:?}");
        // A switchport line the checker does not read is listed with its file and line.
        let nu: Vec<_> = d.not_understood.iter().map(|n| (n.file.as_str(), Some(n.line), n.text.as_str())).collect();
        assert_eq!(nu, [("leaf7.txt", line_of("  switchport access vlan 5000"), "switchport access vlan 5000")]);
    }

    #[test]
    fn a_port_without_pfc_mode_on_gets_no_pfc() {
        let text = "policy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n\
                    system qos\n  service-policy type network-qos NQ\n\
                    interface Ethernet1/2\n  mtu 9216\n  priority-flow-control mode bogus\n";
        let d = parse(text, "s.txt", "s1");
        assert_eq!((d.name.as_str(), d.ports[0].2.pfc), ("s1", 0));
        assert_eq!(d.not_understood.iter().map(|n| (n.file.as_str(), n.line)).collect::<Vec<_>>(), [("s.txt", 8)]);
    }
}
