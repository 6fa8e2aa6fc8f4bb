//! ECN on the lossless queues: on, Kmin below Kmax, and marking before the PFC XOFF point of
//! the port's lossless priority group.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_DCQCN};
use crate::state::End;
use std::collections::HashMap;

/// The XOFF point of one congested lossless priority group of a port under a dynamic threshold:
/// its reserved bytes, then its share of the shared pool, T = alpha × (shared − T), so
/// T = alpha × shared / (1 + alpha) (Choudhury & Hahne), with the port's own alpha.
fn dynamic_xoff(alpha: f64, reserve: u64, shared: f64) -> u64 {
    reserve + (alpha * shared / (1.0 + alpha)) as u64
}

/// Each port is judged with its own settings: the ECN thresholds of its egress queue
/// (its speed's, where the policy gives them per speed) against the XOFF point of its own
/// lossless priority group (its static XOFF, else its alpha and reserved bytes on the switch's
/// shared pool), the point at which a port of its speed pauses its upstream when it is the one
/// congested ingress.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let shared = &cx.budget().shared;
    let pol = &s.policy;
    let mut out = Vec::new();
    // Whether alpha or reserve differ by port (per speed, or a port override): then the findings
    // say which the port has.
    let per_port = s
        .profiles
        .iter()
        .any(|q| q.alpha.is_some_and(|a| a != pol.alpha) || q.reserve.iter().flatten().any(|r| *r > 0));
    for (pi, q) in s.profiles.iter().enumerate() {
        let ports: Vec<End> = cx.egress[pi].iter().copied().filter(|e| cx.is_switch_port(*e)).collect();
        if ports.is_empty() {
            continue;
        }
        for p in pol.lossless_priorities() {
            let queue = q.priority_to_queue[p as usize] as usize & 7;
            let Some(e) = q.ecn[queue] else {
                out.push(Draft {
                    id: "ECN-OFF",
                    severity: if pol.dcqcn { Severity::Error } else { Severity::Warning },
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("no ECN marking on egress queue {queue} of lossless priority {p}"),
                    why: if pol.dcqcn {
                        "DCQCN senders slow down only on ECN marks; without them congestion is handled by PFC alone, which spreads it".into()
                    } else {
                        "PFC alone pushes congestion back hop by hop (congestion spreading, victim flows); ECN lets DCQCN slow the senders first".into()
                    },
                    fix: "configure ECN (RED) on the lossless queue with Kmin below the PFC XOFF point".into(),
                    source: SRC_DCQCN,
                    others: Vec::new(),
                });
                continue;
            };
            // Kmin = Kmax is step marking: every packet above the one threshold is marked, the
            // DCTCP setting (Alizadeh et al., Data Center TCP, SIGCOMM 2010: "a single
            // parameter, the marking threshold K"), which DCQCN tolerates. Only an inverted
            // ramp is a fault.
            if e.kmin > e.kmax {
                out.push(Draft {
                    id: "ECN-ORDER",
                    severity: Severity::Error,
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("ECN Kmin {} B is above Kmax {} B", e.kmin, e.kmax),
                    why: "the marking probability ramp between Kmin and Kmax is inverted: devices reject the profile or mark from Kmax on with no ramp, not at the thresholds intended".into(),
                    fix: "set Kmin below Kmax (or equal to it for step marking)".into(),
                    source: SRC_DCQCN,
                    others: Vec::new(),
                });
            }
            // The XOFF point: per port, static if configured, else its dynamic one.
            let pg = q.priority_to_pg[p as usize] as usize & 7;
            let alpha = q.alpha.unwrap_or(pol.alpha);
            let reserve = q.reserve[pg].unwrap_or(0);
            let mut by_xoff: HashMap<u64, Vec<End>> = HashMap::new();
            for port in &ports {
                let x = q.xoff[pg].or_else(|| shared.get(&port.device).map(|sh| dynamic_xoff(alpha, reserve, *sh)));
                if let Some(x) = x {
                    by_xoff.entry(x).or_default().push(*port);
                }
            }
            let of_port = if per_port && q.xoff[pg].is_none() {
                format!(" (this port's alpha {alpha}, reserve {reserve} B)")
            } else {
                String::new()
            };
            let mut groups: Vec<(u64, Vec<End>)> = by_xoff.into_iter().collect();
            groups.sort_by_key(|(x, _)| *x);
            for (x, ports) in groups {
                if e.kmin >= x {
                    out.push(Draft {
                        id: "ECN-ABOVE-XOFF",
                        severity: Severity::Error,
                        ports,
                        device: None,
                        class: Some(pol.class_label(p)),
                        what: format!("ECN Kmin {} B is not below the PFC XOFF point of about {x} B{of_port}", e.kmin),
                        why: "PFC pauses the upstream before any packet is marked, so DCQCN never sees congestion and PFC does all the work".into(),
                        fix: format!("lower Kmin below {x} B, or raise the XOFF threshold"),
                        source: SRC_DCQCN,
                        others: Vec::new(),
                    });
                } else if e.kmax > x {
                    out.push(Draft {
                        id: "ECN-ABOVE-XOFF",
                        severity: Severity::Note,
                        ports,
                        device: None,
                        class: Some(pol.class_label(p)),
                        what: format!(
                            "ECN Kmax {} B is above the XOFF point of about {x} B of one congested ingress{of_port}",
                            e.kmax
                        ),
                        why: "with a single congested ingress, PFC triggers before marking reaches Pmax; with many ingresses feeding the queue it does not".into(),
                        fix: "consider Kmax below the XOFF point".into(),
                        source: SRC_DCQCN,
                        others: Vec::new(),
                    });
                }
            }
        }
    }
    out
}
