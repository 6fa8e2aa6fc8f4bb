//! Cisco NX-OS on Nexus 9000 switches (8-queue mode).
//!
//! Command sources: the Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide
//! (chapters "Configuring Priority Flow Control" and "Configuring Queuing and Scheduling"), the
//! Cisco Data Center Networking Blueprint for AI/ML Applications (RoCEv2 on Nexus 9000), and the
//! Microsoft Azure Local reference TOR QoS policy for Nexus (`Reference-TOR-QOS-Policy-
//! Configuration`), which use the same forms:
//! - classification: `class-map type qos match-any NAME` with `match dscp D[,D]` or `match cos P`,
//!   `policy-map type qos NAME` / `class NAME` / `set qos-group Q` (and `class class-default`);
//! - no-drop: `policy-map type network-qos NAME` / `class type network-qos c-8q-nqQ` /
//!   `pause pfc-cos P` / `mtu M`, and `class type network-qos c-8q-nq-default`;
//! - egress: `policy-map type queuing NAME` / `class type queuing c-out-8q-qQ` (or
//!   `c-out-8q-q-default`) with `bandwidth remaining percent N`, `priority level 1`, and
//!   `random-detect minimum-threshold N kbytes maximum-threshold N kbytes drop-probability P
//!   weight 0 ecn`;
//! - `system qos` / `service-policy type network-qos NAME` / `service-policy type queuing output
//!   NAME`;
//! - per interface: `mtu M`, `priority-flow-control mode on`, `priority-flow-control
//!   watch-dog-interval on`, `service-policy type qos input NAME`, and for IEEE 802.3x pause
//!   `flowcontrol receive on` / `flowcontrol send on`;
//! - verification: `show interface priority-flow-control`, `show queuing interface ethernet 1/1`,
//!   `show policy-map system type network-qos`, `show policy-map interface ethernet 1/1`.
//!
//! Conventions: the qos-group of a class is its switch queue (the queue numbers of `c-8q-nqQ` and
//! `c-out-8q-qQ`). Cisco's PFC guidelines recommend that a no-drop class classified on CoS x use
//! qos-group x, so a lossless class whose queue differs from its priority is reported. rocelab
//! reads NX-OS `kbytes` as 1024 bytes (as EOS's) and reports a threshold that is not a whole number
//! of them; `weight 0` marks on the instantaneous queue, as DCQCN assumes (Zhu et al., SIGCOMM
//! 2015). Queues no class uses get `bandwidth remaining percent 0`, as the Cisco and Microsoft
//! examples do, when the fabric gives ETS shares.
//!
//! Per port: the queuing policy, and with it the WRED/ECN thresholds, is applied system-wide
//! (`system qos`), so ports whose thresholds differ from the first port's (by link speed, or a
//! `qos.ports` override) are reported with their values. The lossless priority groups'
//! dynamic-threshold alpha and reserved bytes are not rendered (rocelab has no documented NX-OS
//! command for them); the ports that ask for them are reported.
//!
//! The device's running configuration is read back into [`NxosConfig`] by [`parse`] (line numbers and
//! the lines not understood), which `rocelab check --import` converts.

pub mod parse;

use crate::common::{
    buffer_not_rendered, ecn_switch_wide, link_pause, percent, policy_port_ecn_apart, queues, switch_ports,
    whole_units, PortView,
};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NxosConfig {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    pub class_maps: Vec<NxosClassMap>,
    /// `class class-default` / `set qos-group Q` when the default class is not in queue 0.
    pub default_qos_group: Option<u8>,
    pub network_qos: Vec<NetworkQosClass>,
    /// Egress queues, when the fabric gives ETS shares or ECN; none leaves NX-OS's default policy.
    pub queuing: Vec<NxosQueue>,
    pub mtu: u32,
    /// PCP marking's VLAN: `vlan N`, and every port a trunk allowing it (`switchport`,
    /// `switchport mode trunk`, `switchport trunk allowed vlan N`; Cisco Nexus 9000 NX-OS Layer
    /// 2 Switching Configuration Guide, "Configuring Access and Trunk Interfaces").
    pub vlan: Option<u16>,
    pub interfaces: Vec<NxosInterface>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NxosClassMap {
    /// `ROCELAB-ROCE`.
    pub name: String,
    /// `dscp 26` or `cos 3`.
    pub matches: String,
    pub qos_group: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkQosClass {
    /// `c-8q-nq3` or `c-8q-nq-default`.
    pub class: String,
    /// `pause pfc-cos P …` priorities; empty for a drop class.
    pub pfc_cos: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NxosQueue {
    /// `c-out-8q-q3` or `c-out-8q-q-default`.
    pub class: String,
    /// `priority level N`.
    pub priority_level: Option<u8>,
    /// `bandwidth remaining percent N`.
    pub bandwidth_remaining: Option<u8>,
    pub ecn: Option<NxosEcn>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NxosEcn {
    /// kbytes.
    pub min: u64,
    pub max: u64,
    /// Percent.
    pub drop_probability: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NxosInterface {
    /// `Ethernet1/1`.
    pub name: String,
    pub peer: String,
    pub mtu: u32,
    pub pfc: bool,
    pub link_pause: bool,
}

fn nq_class(queue: u8) -> String {
    if queue == 0 {
        "c-8q-nq-default".into()
    } else {
        format!("c-8q-nq{queue}")
    }
}

fn out_class(queue: u8) -> String {
    if queue == 0 {
        "c-out-8q-q-default".into()
    } else {
        format!("c-out-8q-q{queue}")
    }
}

/// `ROCE` from `roce`, `my-class` → `MY-CLASS`.
fn class_map_name(class: &str) -> String {
    let n: String =
        class.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '-' }).collect();
    format!("ROCELAB-{n}")
}

pub fn build(f: &ResolvedFabric, device: usize) -> (NxosConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let (ports, pfc) = switch_ports(f, device, &mut findings);
    let why = "NX-OS applies the network-qos and queuing policies system-wide (`system qos`)";
    let policy = policy_port_ecn_apart(d, &ports, why, &mut findings);
    ecn_switch_wide(d, &ports, why, &mut findings);
    buffer_not_rendered(f, d, &ports, "rocelab knows no documented NX-OS command for it", &mut findings);
    let mut class_maps = Vec::new();
    let mut default_qos_group = None;
    let mut network_qos = Vec::new();
    let mut queuing = Vec::new();
    if let Some(p) = policy {
        for c in p.classes.iter() {
            if c.pfc && c.queue != c.priority {
                findings.push(Finding::warning(
                    &d.name,
                    None,
                    format!(
                        "class `{}`: no-drop on CoS {} in qos-group {}; Cisco's PFC guidelines recommend the qos-group equal the CoS of a no-drop class",
                        c.name, c.priority, c.queue
                    ),
                ));
            }
            let is_default = c.priority == 0 && (p.marking() == Marking::Pcp || c.dscp.iter().all(|v| *v == 0));
            if is_default {
                if c.queue != 0 {
                    default_qos_group = Some(c.queue);
                }
                continue;
            }
            let matches = match p.marking() {
                Marking::Dscp if c.dscp.is_empty() => continue,
                Marking::Dscp => {
                    format!("dscp {}", c.dscp.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(","))
                }
                Marking::Pcp => format!("cos {}", c.priority),
            };
            class_maps.push(NxosClassMap { name: class_map_name(&c.name), matches, qos_group: c.queue });
        }
        let qs = queues(p);
        for q in &qs {
            let pfc_cos: Vec<u8> = q.priorities.iter().copied().filter(|pr| pfc.contains(pr)).collect();
            network_qos.push(NetworkQosClass { class: nq_class(q.queue), pfc_cos });
        }
        if !qs.iter().any(|q| q.queue == 0) {
            network_qos.insert(0, NetworkQosClass { class: nq_class(0), pfc_cos: Vec::new() });
        }
        network_qos.sort_by_key(|n| n.class != "c-8q-nq-default");
        let has_ets = p.has_ets();
        if has_ets || qs.iter().any(|q| q.ecn.is_some()) {
            let mut strict: Vec<u8> = qs.iter().filter(|q| q.strict).map(|q| q.queue).collect();
            strict.sort_unstable_by(|a, b| b.cmp(a));
            for queue in 0..8u8 {
                let q = qs.iter().find(|q| q.queue == queue);
                let ecn = q.and_then(|q| q.ecn).map(|e| {
                    let (min, r1) = whole_units(e.kmin.as_bytes(), 1024);
                    let (max, r2) = whole_units(e.kmax.as_bytes(), 1024);
                    if r1 || r2 {
                        findings.push(Finding::warning(
                            &d.name,
                            None,
                            format!(
                                "queue {queue}: ECN thresholds {}-{} bytes are not whole kbytes (1024 bytes); rendered {min}-{max} kbytes",
                                e.kmin.as_bytes(),
                                e.kmax.as_bytes()
                            ),
                        ));
                    }
                    NxosEcn { min, max, drop_probability: percent(e.pmax) }
                });
                let level = strict.iter().position(|s| *s == queue).map(|i| i as u8 + 1);
                let bandwidth = if level.is_some() || !has_ets {
                    None
                } else {
                    Some(q.and_then(|q| q.ets).unwrap_or(0).min(100) as u8)
                };
                if ecn.is_some() || level.is_some() || bandwidth.is_some() {
                    queuing.push(NxosQueue {
                        class: out_class(queue),
                        priority_level: level,
                        bandwidth_remaining: bandwidth,
                        ecn,
                    });
                }
            }
        }
    }
    let interfaces: Vec<NxosInterface> = ports
        .iter()
        .map(|p| NxosInterface {
            name: p.name.clone(),
            peer: p.peer(f),
            mtu: p.settings.mtu,
            pfc: !p.pfc_priorities().is_empty(),
            link_pause: link_pause(d, p, "NX-OS", &mut findings),
        })
        .collect();
    let config = NxosConfig {
        hostname: d.name.clone(),
        release: crate::common::release(d),
        class_maps,
        default_qos_group,
        network_qos,
        queuing,
        mtu: max_mtu(&ports),
        vlan: crate::common::pcp_vlan(f),
        interfaces,
    };
    (config, findings)
}

/// The network-qos class MTU: the largest port MTU (at least 1500).
fn max_mtu(ports: &[PortView]) -> u32 {
    ports.iter().map(|p| p.settings.mtu).max().unwrap_or(1500).max(1500)
}
