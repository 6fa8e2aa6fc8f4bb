//! The policy of an imported fabric whose links file states none, inferred from the devices:
//! for each part (the lossless priorities, the RDMA DSCP, the CNP priority, the trust mode
//! between switches) the value most devices hold. The checks then judge every device against
//! that majority, and each device holding another value is named ([`Inference`], shown at the
//! top of `check`'s output and reported as `POLICY-DISSENT`).
//!
//! Each device casts one vote per part, whatever its port count: a spine with 64 ports does not
//! outvote four leaves. A device's own view is what most of its cabled ports hold.

use crate::state::{DeviceState, Inference, InferredPart, Policy, PortQos, State};
use rocelab_model::fabric::Role;
use rocelab_model::qos::Marking;
use rocelab_model::units::Time;
use std::collections::BTreeMap;

/// The RoCE convention for RDMA traffic: DSCP 26 (ToS 106), preferred where a device maps
/// several code points to the RDMA priority or votes are tied (NVIDIA "RoCE Configuration for
/// NVIDIA Switches and Adapters").
const ROCE_DSCP: u8 = 26;
/// The DSCP ConnectX adapters send CNPs with by default, on priority 6 (same guide).
const CNP_DSCP: u8 = 48;

/// The profiles of a device's cabled ports whose configuration is known.
fn cabled<'a>(s: &'a State, d: &DeviceState) -> Vec<&'a PortQos> {
    d.ports.iter().filter(|p| p.link.is_some()).map(|p| &s.profiles[p.qos as usize]).filter(|q| !q.unknown).collect()
}

/// The value most of `items` hold (ties to the smallest by `Ord`, so that results are stable).
fn most<T: Ord + Clone>(items: impl IntoIterator<Item = T>) -> Option<T> {
    let mut n: BTreeMap<T, usize> = BTreeMap::new();
    for i in items {
        *n.entry(i).or_default() += 1;
    }
    let best = n.values().copied().max()?;
    n.into_iter().find(|(_, c)| *c == best).map(|(v, _)| v)
}

/// The majority of `votes` (device, value), with `prefer` winning ties, and the devices that hold
/// another value. Devices without a value (`None`) dissent when a majority exists.
fn tally<T: Ord + Clone>(
    what: &'static str,
    votes: &[(String, Option<T>)],
    prefer: Option<T>,
    show: impl Fn(&T) -> String,
) -> (Option<T>, InferredPart) {
    let mut n: BTreeMap<T, usize> = BTreeMap::new();
    for v in votes.iter().filter_map(|(_, v)| v.clone()) {
        *n.entry(v).or_default() += 1;
    }
    let best = n.values().copied().max().unwrap_or(0);
    let winner = match prefer.filter(|p| n.get(p) == Some(&best)) {
        Some(p) => Some(p),
        None => n.iter().find(|(_, c)| **c == best).map(|(v, _)| v.clone()),
    };
    let dissent = match &winner {
        Some(w) => votes
            .iter()
            .filter(|(_, v)| v.as_ref() != Some(w))
            .map(|(d, v)| (d.clone(), v.as_ref().map(&show).unwrap_or_else(|| "none".into())))
            .collect(),
        None => Vec::new(),
    };
    let part = InferredPart {
        what,
        value: winner.as_ref().map(&show),
        agree: if winner.is_some() { best } else { 0 },
        voters: votes.len(),
        dissent,
    };
    (winner, part)
}

fn priorities(mask: &u8) -> String {
    let v: Vec<String> = (0..8).filter(|p| mask & (1 << p) != 0).map(|p| p.to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
    }
}

/// The DSCP a DSCP-trusting port maps to `priority`: 26 if among them, else the lowest.
fn dscp_to(q: &PortQos, priority: u8) -> Option<u8> {
    if q.trust != Marking::Dscp {
        return None;
    }
    let all: Vec<u8> = (0..64u8).filter(|d| q.dscp_to_priority[*d as usize] == priority).collect();
    if all.contains(&ROCE_DSCP) {
        Some(ROCE_DSCP)
    } else {
        all.first().copied()
    }
}

/// The policy most of the imported devices agree on, with how it was reached.
pub fn policy(s: &State) -> Policy {
    let mut parts = Vec::new();
    let known: Vec<(&DeviceState, Vec<&PortQos>)> =
        s.devices.iter().map(|d| (d, cabled(s, d))).filter(|(_, q)| !q.is_empty()).collect();

    // Lossless priorities: the PFC set of each device's ports, switches and hosts alike.
    let votes: Vec<(String, Option<u8>)> =
        known.iter().map(|(d, qs)| (d.name.clone(), most(qs.iter().map(|q| q.pfc)))).collect();
    let (lossless, part) = tally("lossless priorities", &votes, None, priorities);
    let lossless = lossless.unwrap_or(0);
    parts.push(part);
    let rdma_priority = (0..8u8).find(|p| lossless & (1 << p) != 0);

    // The RDMA DSCP: what the hosts' adapters mark RoCE with, and what the switches trusting
    // DSCP map to the RDMA priority.
    let mut rdma_dscp = None;
    if let Some(rp) = rdma_priority {
        let votes: Vec<(String, Option<u8>)> = known
            .iter()
            .filter_map(|(d, qs)| {
                if d.role == Role::Switch {
                    qs.iter()
                        .any(|q| q.trust == Marking::Dscp)
                        .then(|| (d.name.clone(), most(qs.iter().filter_map(|q| dscp_to(q, rp)))))
                } else {
                    let marks = qs.iter().filter_map(|q| q.host.as_ref()).filter(|h| h.rdma_visible);
                    let tos: Vec<u8> = marks.map(|h| h.roce_tos.unwrap_or(0) >> 2).collect();
                    (!tos.is_empty()).then(|| (d.name.clone(), most(tos)))
                }
            })
            .collect();
        let (dscp, part) = tally("RDMA DSCP", &votes, Some(ROCE_DSCP), u8::to_string);
        rdma_dscp = dscp;
        parts.push(part);
    }

    // The CNP priority: what the hosts' adapters send CNPs on, and where DSCP-trusting switches
    // put the adapters' default CNP code point.
    let votes: Vec<(String, Option<u8>)> = known
        .iter()
        .filter_map(|(d, qs)| {
            if d.role == Role::Switch {
                let on: Vec<u8> = qs
                    .iter()
                    .filter(|q| q.trust == Marking::Dscp && q.dscp_to_priority[CNP_DSCP as usize] != 0)
                    .map(|q| q.dscp_to_priority[CNP_DSCP as usize])
                    .collect();
                (!on.is_empty()).then(|| (d.name.clone(), most(on)))
            } else {
                let cnp: Vec<Option<u8>> = qs
                    .iter()
                    .filter_map(|q| q.host.as_ref())
                    .filter(|h| h.rdma_visible)
                    .map(|h| h.cnp_priority)
                    .collect();
                (!cnp.is_empty()).then(|| (d.name.clone(), most(cnp).flatten()))
            }
        })
        .collect();
    let (cnp_priority, part) = tally("CNP priority", &votes, None, u8::to_string);
    if !votes.is_empty() {
        parts.push(part);
    }
    // The switches' own CNP DSCP, when they map it to the CNP priority.
    let cnp_dscp = cnp_priority.filter(|c| {
        known
            .iter()
            .filter(|(d, _)| d.role == Role::Switch)
            .any(|(_, qs)| qs.iter().any(|q| q.trust == Marking::Dscp && q.dscp_to_priority[CNP_DSCP as usize] == *c))
    });
    let cnp_dscp = cnp_dscp.map(|_| CNP_DSCP);

    // Trust between switches: the ports facing other switches carry what the fabric marks; a
    // switch's host ports may trust another field (a DSCP access port behind PCP trunks).
    let votes: Vec<(String, Option<bool>)> = s
        .devices
        .iter()
        .enumerate()
        .filter(|(_, d)| d.role == Role::Switch)
        .filter_map(|(di, d)| {
            let mut trunk = Vec::new();
            let mut all = Vec::new();
            for (pi, p) in d.ports.iter().enumerate() {
                let Some(l) = p.link else { continue };
                let q = &s.profiles[p.qos as usize];
                if q.unknown {
                    continue;
                }
                let here = crate::state::End { device: di as u32, port: pi as u32 };
                all.push(q.trust == Marking::Dscp);
                if s.is_switch(s.peer(l, here).device) {
                    trunk.push(q.trust == Marking::Dscp);
                }
            }
            let view = if trunk.is_empty() { most(all) } else { most(trunk) };
            view.map(|v| (d.name.clone(), Some(v)))
        })
        .collect();
    let (dscp_trust, part) =
        tally("trust", &votes, Some(true), |t| if *t { "DSCP".to_string() } else { "PCP".to_string() });
    parts.push(part);

    let mut class_names: [Option<String>; 8] = Default::default();
    if let Some(r) = rdma_priority {
        class_names[r as usize] = Some("rdma".into());
    }
    if let Some(c) = cnp_priority {
        class_names[c as usize & 7].get_or_insert_with(|| "cnp".into());
    }
    Policy {
        lossless,
        rdma_priority,
        rdma_dscp,
        cnp_priority,
        cnp_dscp,
        trust: if dscp_trust.unwrap_or(true) { Marking::Dscp } else { Marking::Pcp },
        roce_mtu: 1024,
        roce_mtu_stated: false,
        dcqcn: false,
        response_time: Time::ns(1500),
        alpha: 0.125,
        class_names,
        inferred: Some(Inference { parts }),
    }
}
