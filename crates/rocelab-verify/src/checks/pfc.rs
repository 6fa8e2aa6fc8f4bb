//! Check 2: PFC on for exactly the lossless priorities at both ends of every link on an RDMA
//! route; no IEEE 802.3x link-level pause mixed in; lossy priorities never paused.
//! Check 7 (MTU) is here too: it is judged per link like PFC.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_8023, SRC_JUMBO, SRC_MTU, SRC_QBB, SRC_ROCEV2};
use crate::state::{End, State};

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
    out.extend(mtu(cx));
    out
}

/// Check 7: MTU equal at both ends of every link, large enough for the RoCE path MTU on RDMA
/// routes, and jumbo end to end where iSCSI or iSER endpoints use jumbo frames.
fn mtu(cx: &Ctx) -> Vec<Draft> {
    let s: &State = cx.s;
    let mut out = Vec::new();
    // RoCEv2 headers around the payload: IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4.
    let need = s.policy.roce_mtu + 60;
    let jumbo_storage = s.devices.iter().enumerate().any(|(di, d)| {
        d.protocols.iter().any(|p| {
            matches!(p, rocelab_model::fabric::StorageProtocol::Iscsi | rocelab_model::fabric::StorageProtocol::Iser)
        }) && d.ports.iter().enumerate().any(|(pi, _)| s.qos(End { device: di as u32, port: pi as u32 }).mtu >= 9000)
    });
    for (li, l) in s.links.iter().enumerate() {
        let (qa, qb) = (s.qos(l.a), s.qos(l.b));
        if qa.unknown || qb.unknown {
            continue;
        }
        let on_path = cx.path_links.binary_search(&(li as u32)).is_ok();
        if qa.mtu != qb.mtu {
            out.push(Draft {
                id: "MTU-MISMATCH",
                severity: if on_path { Severity::Error } else { Severity::Warning },
                ports: vec![l.a],
                device: None,
                class: None,
                what: format!("MTU {} here but {} at the other end, {}", qa.mtu, qb.mtu, cx.label(l.b)),
                why: "frames larger than the smaller MTU are dropped by the receiver (or fragmented, which RoCE does not allow): large transfers stall while small ones pass".into(),
                fix: format!("set the same MTU at both ends (at least {})", qa.mtu.max(qb.mtu)),
                source: SRC_MTU,
                others: Vec::new(),
            });
        }
        if !on_path {
            continue;
        }
        for (e, q) in [(l.a, qa), (l.b, qb)] {
            if q.mtu < need {
                out.push(Draft {
                    id: "MTU-SMALL",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: None,
                    what: format!("MTU {} is below the {} bytes a RoCE path MTU of {} needs (payload + 60 bytes of RoCEv2 headers)", q.mtu, need, s.policy.roce_mtu),
                    why: "full-size RoCE packets are dropped at this hop; the queue pairs time out or fall back to a smaller path MTU".into(),
                    fix: format!("raise the MTU to at least {need}, or lower the RoCE path MTU"),
                    source: SRC_ROCEV2,
                    others: Vec::new(),
                });
            } else if jumbo_storage && q.mtu < 9000 {
                out.push(Draft {
                    id: "MTU-JUMBO",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: None,
                    what: format!("MTU {} on a path whose iSCSI/iSER endpoints use jumbo frames", q.mtu),
                    why: "jumbo frames only help end to end; one hop with a standard MTU drops or fragments them and iSCSI throughput falls".into(),
                    fix: "set MTU 9000 or more on every hop between the storage endpoints".into(),
                    source: SRC_JUMBO,
                    others: Vec::new(),
                });
            }
        }
    }
    out
}
