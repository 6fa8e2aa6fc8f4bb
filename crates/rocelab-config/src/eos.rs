//! Arista EOS (7050X3 and kin).
//!
//! Command sources: the Arista/Pure Storage "Deploying NVMe-oF for Enterprise Leaf-Spine
//! Architecture" guide, appendix "Arista Configuration Overview": `policy-map type
//! quality-of-service pm-RoCE` / `class class-default` / `set dscp 24`, `service-policy type qos
//! input pm-RoCE`, `switchport access vlan 111`, `tx-queue 3` with `random-detect ecn
//! minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0` and
//! `random-detect ecn count`, `priority-flow-control on`, `priority-flow-control priority 3
//! no-drop`, `interface Vxlan1` / `vxlan qos ecn propagation` (the text's `vxlan gos` is an
//! extraction error), and `show priority-flow-control counters`; the Arista EOS User Manual,
//! "Quality of Service": `qos trust dscp|cos`, `qos map dscp D to traffic-class TC`, tx-queue
//! `bandwidth percent N`, `priority strict`, `no priority`, `vxlan qos dscp propagation
//! encapsulation` (the same forms Arista AVD renders).
//!
//! Conventions: EOS sends traffic class N to tx-queue N and pauses priority N for it, so a class
//! whose switch queue differs from its priority is reported. ECN thresholds take `kbytes`
//! (1024 bytes) or `mbytes`, else `bytes`; `weight 0` marks on the instantaneous queue, as DCQCN
//! assumes (Zhu et al., SIGCOMM 2015). Where hosts mark RoCE with a DSCP the class does not list
//! (the guide's hosts send ToS 106, DSCP 26, and the leaves keep DSCP 24), edge ports re-mark with
//! the guide's `pm-RoCE` policy, which sets the DSCP of every packet on the port, as the guide does.
//!
//! Per port: ECN thresholds are set per interface (`tx-queue N` / `random-detect ecn …`), so
//! each port gets its own where the fabric gives them per link speed or per port. The lossless
//! priority groups' dynamic-threshold alpha and reserved bytes are not rendered: EOS sets them in
//! a Trident MMU queue profile (`platform trident mmu queue profile NAME` / `ingress
//! priority-group N threshold …`, `… reserved …`, as Arista AVD renders it) that is applied to
//! the whole switch, and rocelab has not confirmed the form of its values in Arista's
//! documentation; the ports that ask for them are reported.

use crate::common::{cabled_ports, no_ports_finding, percent, PortView};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use rocelab_model::Role;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EosConfig {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    /// `qos map dscp … to traffic-class TC`.
    pub dscp_maps: Vec<DscpMap>,
    /// Re-marking policies, by name.
    pub policy_maps: Vec<PolicyMap>,
    pub interfaces: Vec<EosInterface>,
    pub vxlan: Option<EosVxlan>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DscpMap {
    pub dscp: Vec<u8>,
    pub traffic_class: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyMap {
    pub name: String,
    pub set_dscp: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EosInterface {
    /// `Ethernet51/1`.
    pub name: String,
    pub peer: String,
    pub access_vlan: Option<u16>,
    pub trunk_vlan: Option<u16>,
    /// `dscp` or `cos`.
    pub trust: String,
    pub service_policy: Option<String>,
    pub pfc: bool,
    pub no_drop: Vec<u8>,
    pub tx_queues: Vec<TxQueue>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TxQueue {
    pub queue: u8,
    pub ecn: Option<EosEcn>,
    pub bandwidth_percent: Option<u8>,
    pub strict: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EosEcn {
    pub min: u64,
    pub max: u64,
    /// `bytes`, `kbytes` or `mbytes`.
    pub unit: String,
    pub max_mark_probability: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EosVxlan {
    pub ecn_propagation: bool,
    pub dscp_propagation: bool,
}

/// The guide's policy name.
pub const REMARK_POLICY: &str = "pm-RoCE";

fn unit_for(a: u64, b: u64) -> (u64, u64, &'static str) {
    const M: u64 = 1024 * 1024;
    if a % M == 0 && b % M == 0 {
        (a / M, b / M, "mbytes")
    } else if a % 1024 == 0 && b % 1024 == 0 {
        (a / 1024, b / 1024, "kbytes")
    } else {
        (a, b, "bytes")
    }
}

pub fn build(f: &ResolvedFabric, device: usize) -> (EosConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let mut dscp_maps: Vec<DscpMap> = Vec::new();
    let mut remark: Option<u8> = None;
    let mut interfaces = Vec::new();
    for p in &ports {
        for c in p.classes.iter() {
            if c.queue != c.priority {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "class `{}`: EOS pauses priority N for traffic class N, so queue {} cannot carry priority {}; rendered traffic class {}",
                        c.name, c.queue, c.priority, c.priority
                    ),
                ));
            }
        }
        if p.marking() == Marking::Dscp {
            for c in p.classes.iter().filter(|c| !c.dscp.is_empty()) {
                let m = DscpMap { dscp: c.dscp.clone(), traffic_class: c.priority };
                if !dscp_maps.contains(&m) {
                    dscp_maps.push(m);
                }
            }
        }
        let policy = edge_remark(f, p).map(|dscp| {
            remark = Some(dscp);
            findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "the host at {} marks RoCE with DSCP {} which class `{}` does not list; `{REMARK_POLICY}` re-marks every packet on this port to DSCP {dscp}, as the Arista/Pure guide does",
                    p.peer(f),
                    p.settings.roce_tos.unwrap_or(0) >> 2,
                    p.rdma_class().map(|c| c.name.as_str()).unwrap_or("")
                ),
            ));
            REMARK_POLICY.to_string()
        });
        interfaces.push(interface_config(f, p, policy));
    }
    crate::common::buffer_not_rendered(
        f,
        d,
        &ports,
        "rocelab does not render the EOS MMU queue profile (`platform trident mmu queue profile`) that holds them for the whole switch",
        &mut findings,
    );
    dscp_maps.sort_by_key(|m| m.traffic_class);
    let vxlan = d.vxlan.map(|v| EosVxlan { ecn_propagation: v.ecn_propagation, dscp_propagation: v.dscp_preservation });
    let config = EosConfig {
        hostname: d.name.clone(),
        release: crate::common::release(d),
        dscp_maps,
        policy_maps: remark.map(|s| vec![PolicyMap { name: REMARK_POLICY.into(), set_dscp: s }]).unwrap_or_default(),
        interfaces,
        vxlan,
    };
    (config, findings)
}

/// The DSCP an edge port must re-mark to: the RDMA class's first DSCP, when the host at the other
/// end sends RoCE with a DSCP the class does not list.
fn edge_remark(f: &ResolvedFabric, p: &PortView) -> Option<u8> {
    if p.marking() != Marking::Dscp || p.peer_role == Role::Switch {
        return None;
    }
    let class = p.rdma_class()?;
    let tos = f.port_settings(p.peer_id).roce_tos?;
    let host_dscp = tos >> 2;
    (!class.dscp.contains(&host_dscp)).then(|| class.dscp.first().copied()).flatten()
}

fn interface_config(f: &ResolvedFabric, p: &PortView, policy: Option<String>) -> EosInterface {
    let dscp = p.marking() == Marking::Dscp;
    let mut tx_queues = Vec::new();
    for q in 0..8u8 {
        let in_q: Vec<_> = p.classes.iter().filter(|c| c.priority == q).collect();
        if in_q.is_empty() {
            continue;
        }
        let ecn = in_q.iter().find_map(|c| c.ecn.as_ref()).map(|e| {
            let (min, max, unit) = unit_for(e.kmin.as_bytes(), e.kmax.as_bytes());
            EosEcn { min, max, unit: unit.into(), max_mark_probability: percent(e.pmax) }
        });
        let strict = in_q.iter().any(|c| c.strict);
        let bandwidth: Option<u8> = if strict { None } else { in_q.iter().filter_map(|c| c.ets).reduce(|a, b| a + b) };
        if ecn.is_some() || strict || bandwidth.is_some() {
            tx_queues.push(TxQueue { queue: q, ecn, bandwidth_percent: bandwidth, strict });
        }
    }
    let edge = p.peer_role != Role::Switch;
    EosInterface {
        name: p.name.clone(),
        peer: p.peer(f),
        access_vlan: if dscp && edge { f.qos.vlan } else { None },
        trunk_vlan: if !dscp { f.qos.vlan } else { None },
        trust: if dscp { "dscp" } else { "cos" }.into(),
        service_policy: policy,
        pfc: !p.pfc_priorities().is_empty(),
        no_drop: p.pfc_priorities(),
        tx_queues,
    }
}
