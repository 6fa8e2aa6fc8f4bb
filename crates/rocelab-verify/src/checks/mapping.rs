//! The lossless priority and the DSCP → priority → priority group and queue mapping
//! agree along every route between RDMA endpoints, both directions, CNPs included; the RoCE
//! ToS the hosts set (or, under PCP trust, the 802.1p priority they tag RDMA with) classifies
//! into the lossless priority at the switch they are cabled to.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_NVIDIA_ROCE, SRC_QBB};
use crate::state::PortQos;
use rocelab_model::qos::Marking;

fn trust_name(t: Marking) -> &'static str {
    match t {
        Marking::Pcp => "PCP (802.1p)",
        Marking::Dscp => "DSCP",
    }
}

pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    for (pi, q) in s.profiles.iter().enumerate() {
        let ports = cx.path_ports(pi);
        if ports.is_empty() {
            continue;
        }
        // DSCP travels in the IP header end to end, so a port that trusts DSCP classifies RDMA
        // correctly whenever its DSCP map does, which MAP-DSCP (and MAP-TOS for the hosts'
        // ToS) judge: a DSCP-marking host on an access port that trusts DSCP, behind trunks
        // that trust the PCP the switch writes into the 802.1Q tag (IEEE 802.1Q 6.9.3), is
        // correct. PCP exists only in a tag, which the state cannot see on a link, so a port
        // trusting PCP against a DSCP policy stays a finding.
        let dscp_judged = q.trust == Marking::Dscp && pol.rdma_dscp.is_some();
        if q.trust != pol.trust && !dscp_judged {
            out.push(Draft {
                id: "MAP-TRUST",
                severity: Severity::Error,
                ports: ports.clone(),
                device: None,
                class: None,
                what: format!("trusts {} but the fabric marks RDMA with {}", trust_name(q.trust), trust_name(pol.trust)),
                why: "a port that classifies on the other field puts RDMA into the default priority, where it is neither paused nor marked as intended".into(),
                fix: format!("set the port's trust mode to {}", trust_name(pol.trust)),
                source: SRC_NVIDIA_ROCE,
                others: Vec::new(),
            });
        }
        if q.trust == Marking::Dscp {
            for (dscp, want, what) in
                [(pol.rdma_dscp, pol.rdma_priority, "RDMA"), (pol.cnp_dscp, pol.cnp_priority, "CNP")]
            {
                let (Some(d), Some(want)) = (dscp, want) else { continue };
                let got = q.dscp_to_priority[d as usize & 63];
                if got != want {
                    out.push(Draft {
                        id: "MAP-DSCP",
                        severity: Severity::Error,
                        ports: ports.clone(),
                        device: None,
                        class: Some(pol.class_label(want)),
                        what: format!("maps DSCP {d} ({what}) to priority {got}, not {want}"),
                        why: format!(
                            "{what} packets change priority at this hop: {}",
                            if pol.is_lossless(want) {
                                "they leave the lossless class and can be dropped"
                            } else {
                                "they lose the treatment their class is given"
                            }
                        ),
                        fix: format!("map DSCP {d} to priority {want} in the port's DSCP map"),
                        source: SRC_NVIDIA_ROCE,
                        others: Vec::new(),
                    });
                }
            }
        }
        out.extend(queue_sharing(cx, q, ports));
    }
    out.extend(host_tos(cx));
    out
}

/// A lossless priority shares its priority group or egress queue with a lossy one.
fn queue_sharing(cx: &Ctx, q: &PortQos, ports: Vec<super::End>) -> Vec<Draft> {
    let pol = &cx.s.policy;
    let mut out = Vec::new();
    // A switch whose configuration shows no priority-group map (every priority in group 0) runs
    // its platform's default, which gives the PFC priorities lossless groups of their own: Onyx
    // allocates a lossless ingress buffer to each priority PFC is enabled for, and SONiC's
    // buffer manager a lossless `BUFFER_PG` (`Ethernet0|3-4`) for the `pfc_enable` priorities
    // of `PORT_QOS_MAP`. The lossy priorities then share group 0 among themselves only.
    let platform_default = q.priority_to_pg == [0; 8] && ports.iter().all(|e| cx.is_switch_port(*e));
    for p in pol.lossless_priorities() {
        for other in (0..8u8).filter(|o| !pol.is_lossless(*o)) {
            let shared_pg =
                !platform_default && q.pfc_on(p) && q.priority_to_pg[p as usize] == q.priority_to_pg[other as usize];
            let shared_q = q.priority_to_queue[p as usize] == q.priority_to_queue[other as usize];
            if !(shared_pg || shared_q) || !used_priority(cx, other) {
                continue;
            }
            let (what, why) = if shared_pg {
                (
                    format!("lossy priority {other} shares priority group {} with lossless priority {p}", q.priority_to_pg[p as usize]),
                    "PFC pauses per priority group: lossy traffic in it is paused too and can fill the lossless headroom",
                )
            } else {
                (
                    format!("lossy priority {other} shares egress queue {} with lossless priority {p}", q.priority_to_queue[p as usize]),
                    "a pause for the lossless priority stops the shared queue, and lossy bursts in it delay or crowd out RDMA",
                )
            };
            out.push(Draft {
                id: "MAP-QUEUE",
                severity: if shared_pg { Severity::Error } else { Severity::Warning },
                ports: ports.clone(),
                device: None,
                class: Some(pol.class_label(p)),
                what,
                why: why.into(),
                fix: format!("give priority {p} a priority group and queue of its own"),
                source: SRC_QBB,
                others: Vec::new(),
            });
        }
    }
    out
}

/// Priorities some class of the policy uses (others carry no traffic worth judging).
fn used_priority(cx: &Ctx, p: u8) -> bool {
    cx.s.policy.class_names[p as usize].is_some() || p == 0
}

/// The ToS of each RDMA endpoint, classified at the switch port it is cabled to.
fn host_tos(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let Some(want) = pol.rdma_priority else { return Vec::new() };
    let mut out = Vec::new();
    for (di, d) in s.devices.iter().enumerate() {
        if !d.rdma {
            continue;
        }
        for (pi, p) in d.ports.iter().enumerate() {
            let Some(link) = p.link else { continue };
            let here = super::End { device: di as u32, port: pi as u32 };
            let peer = s.peer(link, here);
            if !s.is_switch(peer.device) {
                continue;
            }
            let hq = s.qos(here);
            let Some(h) = &hq.host else { continue };
            let sw = s.qos(peer);
            let (what, fix) = match sw.trust {
                // The switch classifies on the DSCP the adapter's RoCE ToS carries.
                Marking::Dscp if h.rdma_visible => {
                    let dscp = h.roce_tos.map(|t| t >> 2).unwrap_or(0);
                    let got = sw.dscp_to_priority[dscp as usize];
                    if got == want {
                        continue;
                    }
                    let tos = match h.roce_tos {
                        Some(t) => format!("RoCE ToS {t} is DSCP {dscp}"),
                        None => "the adapter sets no RoCE ToS, so RoCE leaves with DSCP 0".into(),
                    };
                    (
                        format!("{tos}, which {} maps to priority {got}, not {want}", cx.label(peer)),
                        match pol.rdma_dscp {
                            Some(d) => format!("set the adapter's RoCE ToS to {} (DSCP {d} with ECT(0))", (d << 2) | 2),
                            None => format!("map DSCP {dscp} to priority {want} on {}", cx.label(peer)),
                        },
                    )
                }
                // The switch classifies on the 802.1p priority the host tags RDMA with.
                Marking::Pcp => match h.pcp {
                    Some(p) if p != want => (
                        format!("tags RDMA with 802.1p priority {p}, which {} trusts; the lossless priority is {want}", cx.label(peer)),
                        format!("tag RDMA with priority {want} (Windows: New-NetQosPolicy -NetDirectPortMatchCondition 445 -PriorityValue8021Action {want})"),
                    ),
                    _ => continue,
                },
                Marking::Dscp => continue,
            };
            out.push(Draft {
                id: "MAP-TOS",
                severity: Severity::Error,
                ports: vec![here],
                device: None,
                class: Some(pol.class_label(want)),
                what,
                why: "the switch classifies this host's RDMA into another priority: no PFC, no ECN for it".into(),
                fix,
                source: SRC_NVIDIA_ROCE,
                others: Vec::new(),
            });
        }
    }
    out
}
