//! HPE Comware 7 (FlexFabric 5900/5940).
//!
//! Command sources: the Demartek "RoCE Deployment Guide" (2018), section "Deploying RoCE on a HPE
//! 5900 Series Switch": `vlan 2`, `port link-type trunk`, `port trunk permit vlan 2`,
//! `priority-flow-control auto`, `priority-flow-control no-drop dot1p 5`, `qos trust dot1p`,
//! `qos map-table dot1p-lp` with `import P export LP`, `qos wred queue table NAME` with
//! `queue Q low-limit L high-limit H` and `queue Q ecn`, `qos wrr Q group 1 byte-count W`,
//! `qos wrr Q group sp`, `qos wred apply NAME`, `save NAME.cfg` and the `display` commands. The
//! guide's text lost hyphens (`port linktype`, `priorityflow-control`); the hyphenated forms are
//! Comware's. `priority-flow-control enable` (PFC without DCBX negotiation) and `qos trust dscp`
//! are the other documented values of the same two commands (HPE FlexFabric 5900 ACL and QoS
//! Command Reference).
//!
//! Deviations from the guide, on purpose:
//! - The guide marks ECN on queue 5 after mapping priority 5 to local precedence 1, so nothing
//!   it marks carries RoCE; rocelab puts the WRED/ECN entry on the queue the class uses.
//! - WRED limits are average queue lengths in packets; rocelab converts the fabric's byte
//!   thresholds at one frame of the port MTU per packet and says so.
//! - Comware schedules WRR group 1 by byte-count weights of 1 to 15, not percentages: ETS shares
//!   become the closest weights (87/13 % → 13:2, the guide's numbers) and a share that moves
//!   at all is reported.
//! - PFC is `auto` (negotiated by DCBX) when the fabric states a DCBX policy, `enable` otherwise.
//!
//! Per port: a WRED table is applied per interface (`qos wred apply NAME`), so ports whose ECN
//! limits differ (by link speed, MTU or a `qos.ports` override) get a table of their own
//! (`ROCELAB-2`, …) beside the first port's `ROCELAB`. The lossless priority groups'
//! dynamic-threshold alpha and reserved bytes are not rendered (rocelab has no documented HPE
//! 5900 command for them); the ports that ask for them are reported.

pub mod parse;

use crate::common::{cabled_ports, device_wide, no_ports_finding, weights_for, PortView};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComwareConfig {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    pub vlan: Option<u16>,
    /// `qos map-table dot1p-lp`: 802.1p priority → local precedence (queue), all eight.
    pub dot1p_lp: Vec<Map>,
    /// The first port's WRED table, `ROCELAB`.
    pub wred_table: Option<WredTable>,
    /// The tables of the ports whose ECN limits differ from the first port's.
    pub more_wred_tables: Vec<WredTable>,
    pub interfaces: Vec<ComwareInterface>,
    /// `lldp global enable`: a port with `priority-flow-control auto` negotiates PFC by DCBX,
    /// which LLDP carries (the port then gets `lldp enable` and `lldp tlv-enable dot1-tlv
    /// dcbx`; HPE 5700/5900 Layer 2 LAN Switching Configuration Guide, "Enabling LLDP and DCBX
    /// TLV advertising").
    pub lldp_dcbx: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Map {
    pub import: u8,
    pub export: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WredTable {
    pub name: String,
    pub queues: Vec<WredQueue>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WredQueue {
    pub queue: u8,
    /// Average queue length, packets.
    pub low_limit: u64,
    pub high_limit: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComwareInterface {
    /// `Ten-GigabitEthernet 1/0/1`.
    pub name: String,
    pub peer: String,
    pub trunk_vlan: Option<u16>,
    /// `auto`, `enable`, or none when no priority is lossless here.
    pub pfc_mode: Option<String>,
    pub no_drop: Vec<u8>,
    /// `dot1p` or `dscp`.
    pub trust: String,
    /// WRR per queue 0-7 when the fabric gives ETS shares: a weight, or none for the SP group.
    pub wrr: Vec<Wrr>,
    pub wred_apply: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wrr {
    pub queue: u8,
    pub byte_count: Option<u32>,
}

/// Largest WRR weight of the 5900's `qos wrr … byte-count`.
pub const MAX_WRR_WEIGHT: u32 = 15;
const TABLE: &str = "ROCELAB";

/// `Ten-GigabitEthernet1/0/1` → `Ten-GigabitEthernet 1/0/1`, as the guide types it.
fn interface(port: &str) -> String {
    match port.find(|c: char| c.is_ascii_digit()) {
        Some(i) => format!("{} {}", &port[..i], &port[i..]),
        None => port.to_string(),
    }
}

pub fn build(f: &ResolvedFabric, device: usize) -> (ComwareConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let why_global = "Comware's dot1p-lp map is one table for the whole switch";
    let queues = device_wide(
        d,
        &ports,
        "the priority → queue mapping",
        why_global,
        |p| p.classes.iter().map(|c| (c.priority, c.queue)).collect::<Vec<_>>(),
        &mut findings,
    )
    .unwrap_or_default();
    let default_queue = queues.iter().find(|(p, _)| *p == 0).map(|(_, q)| *q).unwrap_or(0);
    let dot1p_lp: Vec<Map> = (0..8u8)
        .map(|p| Map {
            import: p,
            export: queues.iter().find(|(pp, _)| *pp == p).map(|(_, q)| *q).unwrap_or(default_queue),
        })
        .collect();

    // A WRED table per set of ECN limits, applied on the ports that have it; the first port's is
    // `ROCELAB`.
    let mut tables: Vec<WredTable> = Vec::new();
    let mut table_of: Vec<Option<String>> = Vec::with_capacity(ports.len());
    for p in &ports {
        let queues = wred_queues(d, p, &mut findings);
        if queues.is_empty() {
            table_of.push(None);
            continue;
        }
        let name = match tables.iter().find(|t| t.queues == queues) {
            Some(t) => t.name.clone(),
            None => {
                let name = if tables.is_empty() { TABLE.to_string() } else { format!("{TABLE}-{}", tables.len() + 1) };
                let frame = p.settings.mtu as u64 + 22;
                for c in p.classes.iter() {
                    let (Some(e), Some(q)) = (&c.ecn, queues.iter().find(|q| q.queue == c.queue)) else { continue };
                    if tables.iter().any(|t| t.queues.contains(q)) {
                        continue;
                    }
                    findings.push(Finding::warning(
                        &d.name,
                        Some(&p.name),
                        format!(
                            "class `{}`: ECN {}-{} bytes rendered as WRED limits {}-{} packets of {frame} bytes (Comware WRED counts packets); the marking probability is the platform's",
                            c.name,
                            e.kmin.as_bytes(),
                            e.kmax.as_bytes(),
                            q.low_limit,
                            q.high_limit
                        ),
                    ));
                }
                tables.push(WredTable { name: name.clone(), queues });
                name
            }
        };
        table_of.push(Some(name));
    }
    let mut tables = tables.into_iter();
    let wred_table = tables.next();
    let more_wred_tables: Vec<WredTable> = tables.collect();
    crate::common::buffer_not_rendered(
        f,
        d,
        &ports,
        "rocelab knows no documented HPE 5900 command for it",
        &mut findings,
    );

    let interfaces: Vec<ComwareInterface> =
        ports.iter().zip(table_of).map(|(p, table)| interface_config(f, d, p, table, &mut findings)).collect();
    let lldp_dcbx = interfaces.iter().any(|i| i.pfc_mode.as_deref() == Some("auto"));
    let config = ComwareConfig {
        hostname: d.name.clone(),
        release: crate::common::release(d),
        vlan: if f.qos.marking == Marking::Pcp { f.qos.vlan } else { None },
        dot1p_lp,
        wred_table,
        more_wred_tables,
        interfaces,
        lldp_dcbx,
    };
    (config, findings)
}

fn interface_config(
    f: &ResolvedFabric,
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    wred: Option<String>,
    findings: &mut Findings,
) -> ComwareInterface {
    let no_drop = p.pfc_priorities();
    let trust = match p.marking() {
        Marking::Pcp => "dot1p",
        Marking::Dscp => {
            for c in p.classes.iter() {
                if c.dscp.iter().any(|v| v >> 3 != c.priority) {
                    findings.push(Finding::warning(
                        &d.name,
                        Some(&p.name),
                        format!(
                            "class `{}`: Comware's default DSCP map sends DSCP d to 802.1p d/8, not to priority {}; rocelab renders `qos trust dscp` with the default map",
                            c.name, c.priority
                        ),
                    ));
                }
            }
            "dscp"
        }
    };
    let mut wrr = Vec::new();
    if p.has_ets() {
        let shares: Vec<u8> = (0..8u8)
            .map(|q| p.classes.iter().filter(|c| c.queue == q && !c.strict).filter_map(|c| c.ets).sum::<u8>())
            .collect();
        let (weights, err) = weights_for(&shares, MAX_WRR_WEIGHT);
        let total: u32 = weights.iter().sum();
        if err > 1e-9 {
            let got: Vec<String> = weights
                .iter()
                .enumerate()
                .filter(|(_, w)| **w > 0)
                .map(|(q, w)| format!("queue {q} {:.1} %", *w as f64 * 100.0 / total as f64))
                .collect();
            findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "ETS shares rounded to WRR byte-count weights of 1-{MAX_WRR_WEIGHT}: {} (off by up to {err:.1} points)",
                    got.join(", ")
                ),
            ));
        }
        for q in 0..8u8 {
            let w = weights[q as usize];
            wrr.push(Wrr { queue: q, byte_count: (w > 0).then_some(w) });
        }
    }
    ComwareInterface {
        name: interface(&p.name),
        peer: p.peer(f),
        trunk_vlan: if p.marking() == Marking::Pcp { f.qos.vlan } else { None },
        pfc_mode: (!no_drop.is_empty()).then(|| if f.qos.dcbx.is_some() { "auto" } else { "enable" }.to_string()),
        no_drop,
        trust: trust.into(),
        wrr,
        wred_apply: wred,
    }
}

/// The WRED queues of a port, ascending: each queue's limits from the first of its classes with
/// ECN, in packets of one frame of the port MTU; a second class in the queue asking for other
/// limits is reported.
fn wred_queues(d: &rocelab_model::ResolvedDevice, p: &PortView, findings: &mut Findings) -> Vec<WredQueue> {
    let frame = p.settings.mtu as u64 + 22;
    let mut wred: Vec<WredQueue> = Vec::new();
    for c in p.classes.iter() {
        let Some(e) = &c.ecn else { continue };
        let q = WredQueue {
            queue: c.queue,
            low_limit: (e.kmin.as_bytes() + frame / 2) / frame,
            high_limit: (e.kmax.as_bytes() + frame / 2) / frame,
        };
        match wred.iter().find(|w| w.queue == q.queue) {
            Some(w) if *w != q => findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "queue {} ECN limits {}-{} packets of class `{}` differ from another class's {}-{} in the same queue; rendered the first",
                    q.queue, q.low_limit, q.high_limit, c.name, w.low_limit, w.high_limit
                ),
            )),
            Some(_) => {}
            None => wred.push(q),
        }
    }
    wred.sort_by_key(|w| w.queue);
    wred
}
