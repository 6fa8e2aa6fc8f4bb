//! PFC on for exactly the lossless priorities at both ends of every link on an RDMA route; no
//! IEEE 802.3x link-level pause mixed in; lossy priorities never paused; a lossless queue's
//! egress buffer from a lossless pool.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_8023, SRC_QBB, SRC_SONIC_BUFFERS};

fn bits(mask: u8) -> String {
    let v: Vec<String> = (0..8).filter(|p| mask & (1 << p) != 0).map(|p| p.to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
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
        let missing = pol.lossless & !q.pfc;
        if missing != 0 {
            for p in (0..8u8).filter(|p| missing & (1 << p) != 0) {
                out.push(Draft {
                    id: "PFC-MISSING",
                    severity: Severity::Error,
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("PFC is off for lossless priority {p} (PFC on: {})", bits(q.pfc)),
                    why: "without PFC this hop drops lossless traffic under congestion instead of pausing the sender; RDMA go-back-N retransmission then collapses throughput".into(),
                    fix: format!("enable PFC for priority {p} on this port"),
                    source: SRC_QBB,
                    others: Vec::new(),
                });
            }
        }
        let extra = q.pfc & !pol.lossless;
        for p in (0..8u8).filter(|p| extra & (1 << p) != 0) {
            out.push(Draft {
                id: "PFC-LOSSY",
                severity: Severity::Warning,
                ports: ports.clone(),
                device: None,
                class: Some(pol.class_label(p)),
                what: format!("PFC is on for priority {p}, which the policy does not make lossless"),
                why: "pausing a lossy class spreads its congestion to other ports and flows (head-of-line blocking, pause storms) and needs headroom it was not given".into(),
                fix: format!("disable PFC for priority {p}, or make its class lossless"),
                source: SRC_QBB,
                others: Vec::new(),
            });
        }
        // A lossless priority's egress queue whose buffer comes from a lossy pool (SONiC
        // `BUFFER_QUEUE` on `egress_lossy_pool`): PFC holds the ingress, but that queue may still
        // drop at its egress limit. Only on egress ports, where the queue is the one leaving.
        if let Some(egress_lossless) = q.egress_lossless.filter(|_| !cx.egress[pi].is_empty()) {
            for p in (0..8u8).filter(|p| pol.lossless & (1 << p) != 0) {
                let queue = q.priority_to_queue[p as usize];
                if egress_lossless & (1 << queue) != 0 {
                    continue;
                }
                out.push(Draft {
                    id: "PFC-EGRESS-POOL",
                    severity: Severity::Error,
                    ports: cx.egress[pi].clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("queue {queue} of lossless priority {p} takes its egress buffer from a lossy pool"),
                    why: "PFC stops the upstream sender by the ingress buffer; a queue drawing on a lossy egress pool is still dropped at that pool's limit, so the lossless class loses packets".into(),
                    fix: format!("bind queue {queue} to the egress lossless profile (SONiC `BUFFER_QUEUE|<port>|{queue}` → `egress_lossless_profile`, whose pool is `egress_lossless_pool`)"),
                    source: SRC_SONIC_BUFFERS,
                    others: Vec::new(),
                });
            }
        }
        if q.link_pause {
            out.push(Draft {
                id: "PFC-LINK-PAUSE",
                severity: Severity::Error,
                ports,
                device: None,
                class: None,
                what: "IEEE 802.3x link-level pause is on".into(),
                why: "global pause stops every priority of the link, lossy and lossless alike, and devices that honour it ignore PFC or mix the two unpredictably".into(),
                fix: "disable 802.3x flow control (flowcontrol send/receive off) and use PFC for the lossless priorities".into(),
                source: SRC_8023,
                others: Vec::new(),
            });
        }
    }
    out
}
