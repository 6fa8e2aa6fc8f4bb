//! Dell Networking OS 9 (FTOS) on Force10 S-series switches (S4810, S4820T, S6000, …).
//!
//! Command sources: the Dell Networking OS 9 configuration guides (S4810, S4048-ON, S6000;
//! "Data Center Bridging (DCB)" and "Interfaces"):
//! - `dcb enable`; a DCB map: `dcb-map NAME` / `priority-group N bandwidth P pfc on|off` or
//!   `priority-group N strict-priority pfc on|off` / `priority-pgid G0 … G7` (the priority group of
//!   each 802.1p priority), applied with `dcb-map NAME` on the interface. The guide: "You can
//!   enable PFC on a maximum of two priority queues on an interface", "The sum of all allocated
//!   bandwidth percentages in all groups in the DCB map must be 100%", and "All priorities that
//!   map to the same queue must be in the same priority group";
//! - on the S4810, S4820T and S5000 "you can configure only 4 QoS queues (0-3) to manage data
//!   traffic", with the dot1p → queue map `0 0 0 1 2 3 3 3` (`show qos dot1p-queue-mapping`);
//! - IEEE 802.3x pause: `flowcontrol rx on|off tx on|off` (INTERFACE mode); "DCB is not supported
//!   if you enable link-level flow control", so a fabric with link pause and no PFC gets
//!   `no dcb enable`;
//! - `mtu` is the link MTU: the IP MTU plus 18 bytes untagged or 22 tagged (the guide's Layer 2
//!   overhead table), 592-12000 on the S4810;
//! - verification: `show dcb`, `show interfaces TenGigabitEthernet 0/0 pfc detail`,
//!   `show interfaces TenGigabitEthernet 0/0 ets detail`, `show qos dot1p-queue-mapping`,
//!   `show interfaces TenGigabitEthernet 0/0` (flow control and MTU).
//!
//! ECN is not rendered: the FTOS WRED/ECN commands (`wred-profile`, `wred ecn`) are applied
//! through output QoS policies rocelab does not build, so a class with ECN is reported (with the
//! ports and their thresholds where they differ by port, e.g. by link speed). Nor are the
//! lossless priority groups' dynamic-threshold alpha and reserved bytes: FTOS sets buffers per
//! queue in a `qos-policy-buffer` (`buffer-size`, `pause-threshold`, `shared-threshold-weight`
//! 0-9, not an alpha) that rocelab does not map; the ports that ask for them are reported.

use crate::common::{
    buffer_not_rendered, ecn_label, ecn_of, group_by, policy_port_ecn_apart, ports_warning, same_policy_but_ecn,
    switch_ports, PortView,
};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os9Config {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    /// `dcb enable` (a DCB map is rendered), `no dcb enable` (link pause only), or neither.
    pub dcb: Option<bool>,
    pub dcb_map: Option<DcbMap>,
    pub interfaces: Vec<Os9Interface>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DcbMap {
    pub name: String,
    pub groups: Vec<PriorityGroup>,
    /// `priority-pgid`: the group of priorities 0-7.
    pub pgid: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriorityGroup {
    pub id: u8,
    /// Percent; none for strict priority.
    pub bandwidth: Option<u8>,
    pub pfc: bool,
    /// The fabric classes in the group, for the comment.
    pub classes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os9Interface {
    /// `TenGigabitEthernet 0/0`.
    pub name: String,
    pub peer: String,
    pub mtu: u32,
    /// `flowcontrol rx on tx on` when true, `rx off tx off` under a DCB map; none leaves the port alone.
    pub flowcontrol: Option<bool>,
    pub dcb_map: Option<String>,
}

/// Priority queues with PFC per interface.
pub const MAX_PFC_QUEUES: usize = 2;
/// S4810/S4820T/S5000 data queues of the 802.1p priorities 0-7.
pub const S4810_QUEUES: [u8; 8] = [0, 0, 0, 1, 2, 3, 3, 3];
pub const MTU_RANGE: (u32, u32) = (592, 12000);
const MAP: &str = "ROCELAB";

/// `TenGigabitEthernet0/0` → `TenGigabitEthernet 0/0`, as FTOS prints it.
fn interface(port: &str) -> String {
    match port.find(|c: char| c.is_ascii_digit()) {
        Some(i) => format!("{} {}", &port[..i], &port[i..]),
        None => port.to_string(),
    }
}

/// The hardware queue of each priority: the S4810 family's four data queues, else one per priority.
fn hardware_queues(model: Option<&str>) -> [u8; 8] {
    match model.map(|m| m.to_ascii_uppercase()) {
        Some(m) if ["S4810", "S4820T", "S5000"].iter().any(|k| m.contains(k)) => S4810_QUEUES,
        _ => [0, 1, 2, 3, 4, 5, 6, 7],
    }
}

pub fn build(f: &ResolvedFabric, device: usize) -> (Os9Config, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let (ports, pfc) = switch_ports(f, device, &mut findings);
    let policy = policy_port_ecn_apart(d, &ports, "rocelab renders one DCB map for the switch", &mut findings);
    buffer_not_rendered(
        f,
        d,
        &ports,
        "rocelab does not map them onto FTOS's qos-policy-buffer (buffer-size, pause-threshold, shared-threshold-weight)",
        &mut findings,
    );
    let hw = hardware_queues(d.model.as_deref());
    let dcb_map = policy.filter(|p| !pfc.is_empty() || p.has_ets()).map(|p| dcb_map(d, p, &pfc, &hw, &mut findings));
    if let Some(p) = policy {
        let same: Vec<&PortView> = ports.iter().filter(|x| same_policy_but_ecn(p, x)).collect();
        let sets = group_by(&same, ecn_of);
        if sets.len() <= 1 {
            for c in p.classes.iter().filter(|c| c.ecn.is_some()) {
                findings.push(Finding::warning(
                    &d.name,
                    None,
                    format!("class `{}`: rocelab does not render FTOS WRED/ECN; configure the ECN thresholds by hand or mark at the hosts only", c.name),
                ));
            }
        } else {
            // Thresholds that differ by port: each set with its ports.
            for (set, group) in sets.iter().filter(|(set, _)| set.iter().any(|(_, e)| e.is_some())) {
                findings.push(ports_warning(d, group, |which| {
                    format!(
                        "ECN of {which} ({}): rocelab does not render FTOS WRED/ECN; configure the ECN thresholds by hand or mark at the hosts only",
                        ecn_label(set)
                    )
                }));
            }
        }
        if p.marking() == Marking::Dscp {
            findings.push(Finding::warning(
                &d.name,
                None,
                "the fabric marks by DSCP but FTOS DCB maps act on 802.1p priorities; the hosts must also tag the priority (VLAN)".into(),
            ));
        }
    }
    let any_pause = ports.iter().any(|p| p.settings.link_pause && p.pfc_priorities().is_empty());
    let dcb = if dcb_map.is_some() {
        Some(true)
    } else if any_pause {
        Some(false)
    } else {
        None
    };
    let tagged = f.qos.marking == Marking::Pcp && f.qos.vlan.is_some();
    let interfaces =
        ports.iter().map(|p| interface_config(f, d, p, tagged, dcb_map.is_some(), &mut findings)).collect();
    (Os9Config { hostname: d.name.clone(), release: crate::common::release(d), dcb, dcb_map, interfaces }, findings)
}

fn dcb_map(
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    pfc: &[u8],
    hw: &[u8; 8],
    findings: &mut Findings,
) -> DcbMap {
    // A priority group per set of classes sharing a hardware queue (classes come first, in
    // their order, so group ids follow the fabric); a queue no class uses joins the default
    // class's group, whole, since FTOS keeps a queue's priorities in one group.
    let mut group_of_queue: Vec<(u8, u8)> = Vec::new(); // hardware queue → group id
    let mut groups: Vec<PriorityGroup> = Vec::new();
    for c in p.classes.iter() {
        let queue = hw[c.priority as usize];
        let gid = match group_of_queue.iter().find(|(q, _)| *q == queue) {
            Some((_, g)) => *g,
            None => {
                let g = groups.len() as u8;
                group_of_queue.push((queue, g));
                groups.push(PriorityGroup { id: g, bandwidth: None, pfc: false, classes: Vec::new() });
                g
            }
        };
        groups[gid as usize].classes.push(c.name.clone());
    }
    if groups.is_empty() {
        groups.push(PriorityGroup { id: 0, bandwidth: None, pfc: false, classes: Vec::new() });
    }
    let default_group = p
        .classes
        .iter()
        .find(|c| c.priority == 0)
        .and_then(|c| group_of_queue.iter().find(|(q, _)| *q == hw[c.priority as usize]))
        .map(|(_, g)| *g)
        .unwrap_or(0);
    let mut pgid = [0u8; 8];
    for pr in 0..8u8 {
        let queue = hw[pr as usize];
        pgid[pr as usize] = match group_of_queue.iter().find(|(q, _)| *q == queue) {
            Some((_, g)) => *g,
            None => {
                group_of_queue.push((queue, default_group));
                default_group
            }
        };
    }
    // PFC, strictness and shares per group.
    let mut shares = vec![0u32; groups.len()];
    let mut strict = vec![false; groups.len()];
    for c in p.classes.iter() {
        let g = pgid[c.priority as usize] as usize;
        strict[g] |= c.strict;
        shares[g] += c.ets.map(u32::from).unwrap_or(0);
    }
    for (pr, g) in pgid.iter().enumerate() {
        if pfc.contains(&(pr as u8)) {
            groups[*g as usize].pfc = true;
        }
    }
    for (i, g) in groups.iter().enumerate().filter(|(_, g)| g.pfc) {
        let dragged: Vec<u8> = (0..8u8).filter(|pr| pgid[*pr as usize] as usize == i && !pfc.contains(pr)).collect();
        if !dragged.is_empty() {
            findings.push(Finding::warning(
                &d.name,
                None,
                format!(
                    "priorities {} share a priority group with a lossless class ({}): FTOS keeps the priorities of a queue in one group and PFC is per group, so PFC covers them too",
                    dragged.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "),
                    g.classes.join(", ")
                ),
            ));
        }
    }
    let lossless_groups = groups.iter().filter(|g| g.pfc).count();
    if lossless_groups > MAX_PFC_QUEUES {
        findings.push(Finding::error(
            &d.name,
            None,
            format!(
                "{lossless_groups} lossless priority queues, but FTOS enables PFC on at most {MAX_PFC_QUEUES} priority queues of an interface"
            ),
        ));
    }
    let weighted: Vec<usize> = (0..groups.len()).filter(|i| !strict[*i]).collect();
    let total: u32 = weighted.iter().map(|i| shares[*i]).sum();
    // ETS shares sum to 100 (the loader checks it) or are absent: then split evenly.
    if !weighted.is_empty() && total == 0 {
        let each = 100 / weighted.len() as u32;
        for (k, i) in weighted.iter().enumerate() {
            shares[*i] = each + if k == 0 { 100 - each * weighted.len() as u32 } else { 0 };
        }
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "the fabric gives no ETS shares but an FTOS DCB map needs bandwidth summing to 100 %; rendered {}",
                weighted.iter().map(|i| format!("group {i} {} %", shares[*i])).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    for (i, g) in groups.iter_mut().enumerate() {
        g.bandwidth = (!strict[i]).then_some(shares[i].min(100) as u8);
    }
    DcbMap { name: MAP.into(), groups, pgid: pgid.to_vec() }
}

fn interface_config(
    f: &ResolvedFabric,
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    tagged: bool,
    dcb: bool,
    findings: &mut Findings,
) -> Os9Interface {
    if p.settings.link_pause && dcb {
        findings.push(Finding::warning(
            &d.name,
            Some(&p.name),
            "link pause on a switch with a DCB map, which FTOS does not support; rendered the DCB map (flow control off)".into(),
        ));
    }
    let want = p.settings.mtu + if tagged { 22 } else { 18 };
    let mtu = if want > MTU_RANGE.1 {
        findings.push(Finding::warning(
            &d.name,
            Some(&p.name),
            format!(
                "MTU {} needs a link MTU of {want}, above FTOS's {}; rendered {}",
                p.settings.mtu, MTU_RANGE.1, MTU_RANGE.1
            ),
        ));
        MTU_RANGE.1
    } else {
        want.max(MTU_RANGE.0)
    };
    let flowcontrol = if dcb {
        Some(false)
    } else if p.settings.link_pause {
        Some(true)
    } else {
        None
    };
    Os9Interface { name: interface(&p.name), peer: p.peer(f), mtu, flowcontrol, dcb_map: dcb.then(|| MAP.to_string()) }
}
