//! DCQCN at the RDMA endpoints: notification and reaction points on for the RDMA priority
//! wherever switches mark ECN or the policy runs DCQCN, and CNPs sent on the fabric's one CNP
//! priority.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_DCQCN, SRC_NVIDIA_ROCE};
use crate::state::End;

/// The RDMA endpoint ports that are cabled.
fn endpoint_ports(cx: &Ctx) -> Vec<End> {
    let s = cx.s;
    let mut v = Vec::new();
    for (di, d) in s.devices.iter().enumerate() {
        if !d.rdma {
            continue;
        }
        for (pi, p) in d.ports.iter().enumerate() {
            if p.link.is_some() {
                v.push(End { device: di as u32, port: pi as u32 });
            }
        }
    }
    v
}

/// Switches mark ECN on the lossless queues somewhere on the routes.
pub(super) fn switches_mark(cx: &Ctx) -> bool {
    let s = cx.s;
    s.profiles.iter().enumerate().any(|(pi, q)| {
        cx.egress[pi].iter().any(|e| cx.is_switch_port(*e))
            && s.policy.lossless_priorities().any(|p| q.ecn[q.priority_to_queue[p as usize] as usize & 7].is_some())
    })
}

/// DCQCN-OFF and DCQCN-CNP per cabled RDMA endpoint port.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    let Some(rp) = pol.rdma_priority else { return out };
    let wanted = pol.dcqcn || switches_mark(cx);
    for e in endpoint_ports(cx) {
        let Some(h) = s.qos(e).host.as_ref().filter(|h| h.rdma_visible) else { continue };
        let bit = 1u8 << rp;
        if wanted {
            let missing: Vec<&str> = [(h.np & bit == 0, "notification point"), (h.rp & bit == 0, "reaction point")]
                .into_iter()
                .filter_map(|(off, n)| off.then_some(n))
                .collect();
            if !missing.is_empty() {
                out.push(Draft {
                    id: "DCQCN-OFF",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: Some(pol.class_label(rp)),
                    what: format!("DCQCN {} off for priority {rp}", missing.join(" and ")),
                    why: "without the notification point ECN marks are never turned into CNPs; without the reaction point CNPs are ignored: either way this endpoint's flows are controlled by PFC alone".into(),
                    fix: format!("enable DCQCN notification and reaction points for priority {rp} on the adapter"),
                    source: SRC_DCQCN,
                    others: Vec::new(),
                });
            }
        }
        if let Some(want) = pol.cnp_priority {
            if h.cnp_priority != Some(want) && wanted {
                out.push(Draft {
                    id: "DCQCN-CNP",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: Some(pol.class_label(want)),
                    what: match h.cnp_priority {
                        Some(p) => format!("sends CNPs on priority {p}, the fabric's CNP class is priority {want}"),
                        None => format!("sends CNPs without a priority, the fabric's CNP class is priority {want}"),
                    },
                    why: "CNPs in another class queue behind data (or get paused and dropped): senders learn of congestion late".into(),
                    fix: format!("set the adapter's CNP priority to {want}"),
                    source: SRC_NVIDIA_ROCE,
                    others: Vec::new(),
                });
            }
        }
    }
    out
}
