//! MTU: equal at both ends of every link, large enough for the RoCE path MTU on RDMA routes,
//! and jumbo end to end where iSCSI or iSER endpoints use jumbo frames.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_JUMBO, SRC_MTU, SRC_ROCEV2};
use crate::state::{End, State};

/// MTU equal at both ends of every link, large enough for the RoCE path MTU on RDMA
/// routes, and jumbo end to end where iSCSI or iSER endpoints use jumbo frames.
pub fn check(cx: &Ctx) -> Vec<Draft> {
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
