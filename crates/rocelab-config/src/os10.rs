//! Dell SmartFabric OS10 (S41xx, S52xx, Z9xxx).
//!
//! Command sources: the Dell SmartFabric OS10 user guide, "Quality of service" (trust-based
//! classification, PFC, ETS, WRED/ECN) and the OS10 command reference, and the Microsoft Azure
//! Local reference TOR QoS configuration for Dell OS10, which uses the same forms:
//! - `trust dot1p-map NAME` / `qos-group G dot1p 0-2,4-7` and `trust dscp-map NAME` /
//!   `qos-group G dscp 26` (unlisted values go to traffic class 0 unless mapped);
//! - `qos-map traffic-class NAME` / `queue Q qos-group G`;
//! - `class-map type network-qos NAME` / `match qos-group G`, `policy-map type network-qos NAME` /
//!   `class NAME` / `pause` / `pfc-cos P` (the guide: "Configure the same network-qos policy map on
//!   all PFC-enabled ports");
//! - `wred NAME` / `random-detect color green minimum-threshold N maximum-threshold N
//!   drop-probability P` (thresholds 1-12480) / `random-detect ecn`, applied with `random-detect
//!   NAME` in a queuing class;
//! - `class-map type queuing NAME` / `match queue Q`, `policy-map type queuing NAME` / `class NAME` /
//!   `bandwidth percent 1-100` or `priority` (strict; exclusive with bandwidth);
//! - `system qos` / `trust-map dot1p|dscp NAME` / `qos-map traffic-class NAME`;
//! - per interface: `mtu`, `flowcontrol receive off` / `flowcontrol transmit off` (PFC and 802.3x
//!   pause are exclusive), `priority-flow-control mode on`, `service-policy input type network-qos
//!   NAME`, `ets mode on`, `service-policy output type queuing NAME`;
//! - verification: `show qos interface ethernet 1/1/1`, `show interface ethernet 1/1/1
//!   priority-flow-control details`, `show policy-map`, `show class-map`, `show qos system`,
//!   `show queuing statistics interface ethernet 1/1/1`.
//!
//! Conventions: a class's qos-group (traffic class) is its switch queue. WRED thresholds are read
//! as KB of 1000 bytes (as rocelab reads Onyx's) and reported when rounded or out of range. The
//! interface MTU is the link MTU: the fabric's IP MTU plus the 22 bytes of a tagged frame's
//! header, Dell's Layer 2 overhead table, at most 9216.
//!
//! Per port: the queuing policy is applied per interface (`service-policy output type queuing`),
//! so ports whose ECN thresholds differ from the first port's (by link speed, or a `qos.ports`
//! override) get a queuing policy of their own (`ROCELAB-ETS-2`, …) with their own WRED
//! profiles (`ROCELAB-ECN3-2`, …); the trust map, qos-map and ETS shares stay switch-wide. The
//! lossless priority groups' dynamic-threshold alpha and reserved bytes are not rendered: OS10
//! sets them in the network-qos policy (`pause buffer-size … pause-threshold …`, `queue-limit
//! thresh-mode dynamic N`), whose units and threshold scale (0-10, not an alpha) rocelab does not
//! map; the ports that ask for them are reported.
//!
//! The device's running configuration is read back into [`Os10Config`] by [`parse`] (line numbers and
//! the lines not understood), which `rocelab check --import` converts.

pub mod parse;

use crate::common::{
    buffer_not_rendered, ecn_of, group_by, link_pause, percent, policy_port_ecn_apart, queues, ranges,
    same_policy_but_ecn, switch_ports, whole_units, PortView,
};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os10Config {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    /// `dot1p` or `dscp`.
    pub trust: String,
    pub trust_map: Vec<TrustEntry>,
    /// `queue Q qos-group G`.
    pub qos_map: Vec<u8>,
    pub pfc_classes: Vec<Os10Pfc>,
    pub wred: Vec<Os10Wred>,
    /// Egress queues, when the fabric gives ETS shares or ECN: the `ROCELAB-ETS` policy.
    pub queuing: Vec<Os10Queue>,
    /// Queuing policies of the ports whose ECN thresholds differ from the first port's.
    pub more_queuing: Vec<Os10QueuingPolicy>,
    /// Every queue a queuing policy names, ascending (`class-map type queuing ROCELAB-QN`).
    pub queue_classes: Vec<u8>,
    pub interfaces: Vec<Os10Interface>,
    /// `ets mode on` under `system qos`: OS10 applies a port's ETS only with ETS on globally
    /// too (Dell SmartFabric OS10 User Guide, "Configure ETS": `system qos`, `ets mode on`).
    pub ets_global: bool,
    /// PCP marking's VLAN: `interface vlan N`, and every port a trunk allowing it
    /// (`switchport mode trunk`, `switchport trunk allowed vlan N`; Dell SmartFabric OS10 User
    /// Guide, "VLANs", trunk mode).
    pub vlan: Option<u16>,
}

/// A queuing policy besides `ROCELAB-ETS`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os10QueuingPolicy {
    /// `ROCELAB-ETS-2`.
    pub name: String,
    pub queues: Vec<Os10Queue>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrustEntry {
    pub qos_group: u8,
    /// `3`, `0-2,4-7`, `26`.
    pub values: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os10Pfc {
    /// Class-map name, `ROCELAB-PFC3`.
    pub name: String,
    pub qos_group: u8,
    /// `pfc-cos` priorities.
    pub pfc_cos: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os10Wred {
    pub name: String,
    /// KB.
    pub min: u64,
    pub max: u64,
    pub drop_probability: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os10Queue {
    /// Class-map name, `ROCELAB-Q3`.
    pub name: String,
    pub queue: u8,
    pub strict: bool,
    pub bandwidth: Option<u8>,
    pub wred: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os10Interface {
    /// `ethernet1/1/1`.
    pub name: String,
    pub peer: String,
    /// Link MTU.
    pub mtu: u32,
    pub pfc: bool,
    pub ets: bool,
    /// The queuing policy of the port (`ROCELAB-ETS` or one of `more_queuing`), when `ets`.
    pub queuing: String,
    pub link_pause: bool,
}

/// OS10's WRED threshold range (`random-detect color`: 1 to 12480).
pub const WRED_MAX: u64 = 12480;
/// Largest OS10 link MTU.
pub const MTU_MAX: u32 = 9216;
/// Bytes between the IP MTU and the link MTU of a tagged frame (Dell's Layer 2 overhead table).
pub const TAGGED_OVERHEAD: u32 = 22;

pub fn build(f: &ResolvedFabric, device: usize) -> (Os10Config, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let (ports, pfc) = switch_ports(f, device, &mut findings);
    let policy = policy_port_ecn_apart(
        d,
        &ports,
        "rocelab applies OS10's trust map, qos-map and queuing policy switch-wide (`system qos`)",
        &mut findings,
    );
    buffer_not_rendered(
        f,
        d,
        &ports,
        "rocelab does not map them onto OS10's network-qos buffer settings (`pause buffer-size`, `queue-limit thresh-mode dynamic`)",
        &mut findings,
    );
    let mut trust = "dot1p";
    let mut trust_map = Vec::new();
    let mut qos_map = Vec::new();
    let mut pfc_classes = Vec::new();
    let mut wred = Vec::new();
    let mut queuing = Vec::new();
    let mut more_queuing: Vec<Os10QueuingPolicy> = Vec::new();
    // Ports with a queuing policy other than ROCELAB-ETS (none: no policy at all).
    let mut policy_of: std::collections::HashMap<String, Option<String>> = std::collections::HashMap::new();
    let has_ets = policy.is_some_and(|p| p.has_ets());
    if let Some(p) = policy {
        let dscp = p.marking() == Marking::Dscp;
        if dscp {
            trust = "dscp";
        }
        let default_queue = p.classes.iter().find(|c| c.priority == 0).map(|c| c.queue).unwrap_or(0);
        // Every value to the queue of its class; values no class lists to the default class's.
        let domain: u8 = if dscp { 64 } else { 8 };
        let mut groups: Vec<(u8, Vec<u8>)> = Vec::new();
        for v in 0..domain {
            let q = p
                .classes
                .iter()
                .find(|c| if dscp { c.dscp.contains(&v) } else { c.priority == v })
                .map(|c| c.queue)
                .unwrap_or(default_queue);
            match groups.iter_mut().find(|(g, _)| *g == q) {
                Some((_, vs)) => vs.push(v),
                None => groups.push((q, vec![v])),
            }
        }
        groups.sort_by_key(|(g, _)| *g);
        trust_map = groups.iter().map(|(g, vs)| TrustEntry { qos_group: *g, values: ranges(vs) }).collect();
        qos_map = groups.iter().map(|(g, _)| *g).collect();
        for q in queues(p) {
            let cos: Vec<u8> = q.priorities.iter().copied().filter(|pr| pfc.contains(pr)).collect();
            if !cos.is_empty() {
                pfc_classes.push(Os10Pfc {
                    name: format!("ROCELAB-PFC{}", q.queue),
                    qos_group: q.queue,
                    pfc_cos: ranges(&cos),
                });
            }
        }
        queuing = queuing_policy(d, p, &ecn_of(p), "", has_ets, &mut wred, &mut findings);
        // Ports whose ECN thresholds differ: a queuing policy each set of thresholds.
        let same: Vec<&PortView> = ports.iter().filter(|x| same_policy_but_ecn(p, x)).collect();
        for (set, group) in group_by(&same, ecn_of) {
            if set == ecn_of(p) {
                continue;
            }
            let suffix = format!("-{}", more_queuing.len() + 2);
            let name = format!("ROCELAB-ETS{suffix}");
            let queues = queuing_policy(d, p, &set, &suffix, has_ets, &mut wred, &mut findings);
            // No ETS and no ECN on these ports: no queuing policy at all.
            let name = (!queues.is_empty()).then_some(name);
            for x in &group {
                policy_of.insert(x.name.clone(), name.clone());
            }
            if let Some(name) = name {
                more_queuing.push(Os10QueuingPolicy { name, queues });
            }
        }
    }
    let mut queue_classes: Vec<u8> =
        queuing.iter().chain(more_queuing.iter().flat_map(|m| m.queues.iter())).map(|q| q.queue).collect();
    queue_classes.sort_unstable();
    queue_classes.dedup();
    let interfaces: Vec<Os10Interface> = ports
        .iter()
        .map(|p| {
            let pause = link_pause(d, p, "OS10", &mut findings);
            let want = p.settings.mtu + TAGGED_OVERHEAD;
            let mtu = if want > MTU_MAX {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "MTU {} needs a link MTU of {want}, above OS10's {MTU_MAX}; rendered {MTU_MAX}",
                        p.settings.mtu
                    ),
                ));
                MTU_MAX
            } else {
                want
            };
            Os10Interface {
                name: p.name.clone(),
                peer: p.peer(f),
                mtu,
                pfc: !p.pfc_priorities().is_empty(),
                ets: match policy_of.get(&p.name) {
                    Some(own) => own.is_some(),
                    None => !queuing.is_empty(),
                },
                queuing: policy_of.get(&p.name).cloned().flatten().unwrap_or_else(|| QUEUING.to_string()),
                link_pause: pause,
            }
        })
        .collect();
    let config = Os10Config {
        hostname: d.name.clone(),
        release: crate::common::release(d),
        trust: trust.into(),
        trust_map,
        qos_map,
        pfc_classes,
        wred,
        queuing,
        more_queuing,
        queue_classes,
        ets_global: interfaces.iter().any(|i| i.ets),
        vlan: crate::common::pcp_vlan(f),
        interfaces,
    };
    (config, findings)
}

/// The name of the queuing policy of the first port (and of every port with its ECN thresholds).
const QUEUING: &str = "ROCELAB-ETS";

/// The queues of a queuing policy: the policy port's ETS shares and strictness with the ECN
/// thresholds `ecn` (each queue's WRED profile named `ROCELAB-ECN{queue}{suffix}`). The ETS
/// findings are reported for the first policy (empty `suffix`) only.
fn queuing_policy(
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    ecn: &[(u8, Option<rocelab_model::qos::Ecn>)],
    suffix: &str,
    has_ets: bool,
    wred: &mut Vec<Os10Wred>,
    findings: &mut Findings,
) -> Vec<Os10Queue> {
    let first = suffix.is_empty();
    let mut queuing = Vec::new();
    for q in queues(p) {
        let e = ecn.iter().find(|(x, _)| *x == q.queue).and_then(|(_, e)| e.as_ref());
        let w = e.map(|e| {
            let name = format!("ROCELAB-ECN{}{suffix}", q.queue);
            let (min, r1) = whole_units(e.kmin.as_bytes(), 1000);
            let (max, r2) = whole_units(e.kmax.as_bytes(), 1000);
            let on = |what: &str| if first { what.to_string() } else { format!("{what} (policy ROCELAB-ETS{suffix})") };
            if r1 || r2 {
                findings.push(Finding::warning(
                    &d.name,
                    None,
                    format!(
                        "{}: OS10 WRED thresholds are whole KB; rendered {min}-{max} KB",
                        on(&format!("queue {}", q.queue))
                    ),
                ));
            }
            let (min, max) = if max > WRED_MAX {
                findings.push(Finding::warning(
                    &d.name,
                    None,
                    format!(
                        "{}: ECN maximum {max} KB is above OS10's WRED range of 1-{WRED_MAX}; rendered {WRED_MAX}",
                        on(&format!("queue {}", q.queue))
                    ),
                ));
                (min.min(WRED_MAX), WRED_MAX)
            } else {
                (min, max)
            };
            wred.push(Os10Wred { name: name.clone(), min, max, drop_probability: percent(e.pmax) });
            name
        });
        let bandwidth = if !has_ets || q.strict {
            None
        } else {
            match q.ets {
                Some(0) | None => {
                    if first {
                        findings.push(Finding::warning(
                            &d.name,
                            None,
                            format!(
                                "queue {} ({}) has no ETS share, which OS10's bandwidth percent (1-100) cannot express; rendered 1 %",
                                q.queue,
                                q.names()
                            ),
                        ));
                    }
                    Some(1)
                }
                Some(s) => Some(s.min(100) as u8),
            }
        };
        if q.strict || bandwidth.is_some() || w.is_some() {
            queuing.push(Os10Queue {
                name: format!("ROCELAB-Q{}", q.queue),
                queue: q.queue,
                strict: q.strict,
                bandwidth,
                wred: w,
            });
        }
    }
    queuing
}
