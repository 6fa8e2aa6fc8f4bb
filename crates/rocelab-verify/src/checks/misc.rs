//! Check 6 (DCQCN at the endpoints, one CNP priority), 8 (VXLAN overlays), 9 (bonding of RDMA
//! storage hosts), 10 (PFC deadlock) and 11 (DCBX willingness).

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_DCQCN, SRC_DEADLOCK, SRC_NVIDIA_ROCE, SRC_PURE, SRC_QAZ, SRC_RFC3168};
use crate::routes::{Cycle, MAX_FULL_FAILURES};
use crate::state::End;
use rocelab_model::qos::Marking;

pub fn check(cx: &Ctx) -> Vec<Draft> {
    let mut out = dcqcn(cx);
    out.extend(overlay(cx));
    out.extend(super::bond::check(cx));
    out.extend(deadlock(cx));
    out.extend(dcbx(cx));
    out
}

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
fn switches_mark(cx: &Ctx) -> bool {
    let s = cx.s;
    s.profiles.iter().enumerate().any(|(pi, q)| {
        cx.egress[pi].iter().any(|e| cx.is_switch_port(*e))
            && s.policy.lossless_priorities().any(|p| q.ecn[q.priority_to_queue[p as usize] as usize & 7].is_some())
    })
}

/// Check 6.
fn dcqcn(cx: &Ctx) -> Vec<Draft> {
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

/// Check 8.
fn overlay(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = Vec::new();
    let on_path = |dev: usize| {
        cx.path_links.iter().any(|l| {
            let l = &s.links[*l as usize];
            l.a.device as usize == dev || l.b.device as usize == dev
        })
    };
    let ecn_used = s.policy.dcqcn || switches_mark(cx);
    for (di, d) in s.devices.iter().enumerate() {
        let Some(v) = d.vxlan else { continue };
        if !on_path(di) {
            continue;
        }
        if !v.ecn_propagation && ecn_used {
            out.push(Draft {
                id: "VXLAN-ECN",
                severity: Severity::Error,
                ports: Vec::new(),
                device: Some(d.name.clone()),
                class: None,
                what: "VXLAN tunnel endpoint does not propagate ECN between the inner and outer headers".into(),
                why: "a CE mark set by an underlay switch on the outer header is lost at decapsulation: the receiver sends no CNP and DCQCN never slows the sender".into(),
                fix: "enable ECN propagation on the VTEP (Arista: `vxlan qos ecn propagation` under interface Vxlan1)".into(),
                source: SRC_RFC3168,
                others: Vec::new(),
            });
        }
        if !v.dscp_preservation && s.policy.trust == Marking::Dscp {
            out.push(Draft {
                id: "VXLAN-DSCP",
                severity: Severity::Error,
                ports: Vec::new(),
                device: Some(d.name.clone()),
                class: None,
                what: "VXLAN tunnel endpoint does not copy the inner DSCP to the outer header".into(),
                why: "the underlay classifies the encapsulated RoCE by the outer DSCP: it lands in the default class, unpaused and unmarked".into(),
                fix: "copy the inner DSCP to the outer IP header at encapsulation (or re-mark to the RDMA DSCP on ingress)".into(),
                source: SRC_PURE,
                others: Vec::new(),
            });
        }
    }
    out
}

fn cycle_text(cx: &Ctx, c: &Cycle) -> (End, String) {
    let s = cx.s;
    let hops: Vec<String> = c
        .links
        .iter()
        .map(|dl| {
            let l = &s.links[(dl / 2) as usize];
            let (from, to) = if dl % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
            format!("{} → {}", cx.label(from), cx.label(to))
        })
        .collect();
    let first = c.links[0];
    let l = &s.links[(first / 2) as usize];
    let start = if first % 2 == 0 { l.a } else { l.b };
    (start, format!("{}, then back to the first", hops.join(", ")))
}

/// Check 10.
fn deadlock(cx: &Ctx) -> Vec<Draft> {
    let r = &cx.routes;
    let pol = &cx.s.policy;
    let mut out = Vec::new();
    for c in &r.cycles {
        let (start, text) = cycle_text(cx, c);
        out.push(Draft {
            id: "DEADLOCK-CYCLE",
            severity: Severity::Error,
            ports: vec![start],
            device: None,
            class: Some(pol.class_label(c.priority)),
            what: format!("cyclic buffer dependency on lossless priority {}: {text}", c.priority),
            why: "when each buffer of the cycle fills, each pauses the one before it and none can drain: a PFC deadlock that stops the priority until a watchdog drops traffic".into(),
            fix: "route so that no lossless path turns from a down link back up (up*/down*), or break the cycle by disabling PFC on one of its links".into(),
            source: SRC_DEADLOCK,
            others: Vec::new(),
        });
    }
    for (failed, c) in &r.failure_cycles {
        let (start, text) = cycle_text(cx, c);
        let l = &cx.s.links[*failed as usize];
        out.push(Draft {
            id: "DEADLOCK-FAILURE",
            severity: Severity::Warning,
            ports: vec![start],
            device: None,
            class: Some(pol.class_label(c.priority)),
            what: format!(
                "if the link {} – {} fails, rerouting closes a buffer dependency cycle on priority {}: {text}",
                cx.label(l.a),
                cx.label(l.b),
                c.priority
            ),
            why: "after the failure traffic bounces through a lower tier and routes turn down then up; the cycle can deadlock the lossless priority".into(),
            fix: "add redundancy so the failure does not force a valley route, or use deadlock-free routing (up*/down*, Tagger)".into(),
            source: SRC_DEADLOCK,
            others: Vec::new(),
        });
    }
    if r.failures_not_analysed > 0 || r.graph_too_large {
        let mut what = Vec::new();
        if r.failures_not_analysed > 0 {
            what.push(format!(
                "{} single-link failures change routes in ways the quick screen cannot clear; the first {MAX_FULL_FAILURES} were analysed in full, the rest not",
                r.failures_not_analysed + r.failures_analysed_in_full
            ));
        }
        if r.graph_too_large {
            what.push("a buffer dependency graph exceeded the analysis bound and was not searched".into());
        }
        out.push(Draft {
            id: "DEADLOCK-BOUND",
            severity: Severity::Note,
            ports: Vec::new(),
            device: Some(cx.s.name.clone()),
            class: None,
            what: what.join("; "),
            why: "a deadlock risk in the cases not analysed is neither shown nor excluded".into(),
            fix: "analyse the remaining failures separately, or simplify the routing".into(),
            source: SRC_DEADLOCK,
            others: Vec::new(),
        });
    }
    out
}

/// Check 11.
fn dcbx(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = Vec::new();
    for &li in &cx.path_links {
        let l = &s.links[li as usize];
        let (qa, qb) = (s.qos(l.a), s.qos(l.b));
        if qa.unknown || qb.unknown {
            continue;
        }
        let (Some(wa), Some(wb)) = (qa.dcbx_willing, qb.dcbx_willing) else { continue };
        let differ = qa.pfc != qb.pfc || qa.sched != qb.sched;
        let (what, port, sev) = match (wa, wb) {
            (true, true) => (
                "DCBX is willing at both ends: neither side is authoritative, and which settings win depends on the implementation".to_string(),
                l.a,
                Severity::Warning,
            ),
            (true, false) | (false, true) => {
                let (willing, other) = if wa { (l.a, l.b) } else { (l.b, l.a) };
                // A host taking the switch's settings is the intended use of willing.
                if !s.is_switch(willing.device) && s.is_switch(other.device) || !differ {
                    continue;
                }
                (
                    format!(
                        "DCBX is willing here and {} advertises different PFC/ETS settings, which this port will adopt",
                        cx.label(other)
                    ),
                    willing,
                    Severity::Warning,
                )
            }
            (false, false) => continue,
        };
        out.push(Draft {
            id: "DCBX-WILLING",
            severity: sev,
            ports: vec![port],
            device: None,
            class: None,
            what,
            why: "DCBX lets a willing port replace its configured PFC and ETS with its peer's: the intended lossless settings are silently overridden".into(),
            fix: "make switch ports non-willing (they advertise the intent) and hosts willing, or configure hosts statically with DCBX off".into(),
            source: SRC_QAZ,
            others: Vec::new(),
        });
    }
    out
}
