//! MTU: large enough for the RoCE path MTU on RDMA routes, the two ends of a link agreeing where
//! it matters, and jumbo end to end where iSCSI or iSER endpoints use jumbo frames.
//!
//! Vendors count the MTU differently, so every port's MTU is first brought to one basis, the
//! largest IP packet the port passes ([`ip_mtu`]): an Arista switch at 9214, a SONiC switch at
//! 9100, an Onyx switch at 9216 and a host at 9000 all carry a 4096-byte RoCE payload, and a
//! link between two of them is not a fault. A difference is reported only where a packet of the
//! RoCE path MTU would not pass.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_JUMBO, SRC_MTU, SRC_ROCEV2};
use crate::state::{End, State};
use rocelab_model::fabric::StorageProtocol;

/// RoCEv2 headers around the payload of one packet: IPv4 20 + UDP 8 + BTH 12 + RETH 16 +
/// ICRC 4 (InfiniBand Architecture Specification, Annex A17).
pub const ROCE_HEADERS: u32 = 60;

/// The largest RoCE path MTU (InfiniBand MTU) an adapter negotiates: 4096.
const LARGEST_ROCE_MTU: u32 = 4096;

/// Bytes an MTU given as an Ethernet frame size counts beyond the IP packet: the 14-byte header,
/// a 4-byte 802.1Q tag and the 4-byte FCS (IEEE 802.3 clause 3; IEEE 802.1Q clause 9).
const FRAME_OVERHEAD: u32 = 22;

/// A port's MTU as the largest IP packet it passes, and how its platform counts it.
///
/// - Arista EOS: `mtu` is the layer-3 MTU; the frame on the wire adds the 14-byte Ethernet header
///   (18 tagged) to it (Arista EOS User Manual, "Ethernet Ports": MTU; "Arista EOS MTU
///   behavior": "the actual packet size is MTU size plus L2 header size").
/// - SONiC: `PORT|EthernetN mtu` in CONFIG_DB is the Linux host interface MTU, an IP MTU; orchagent
///   programs the ASIC with 22 bytes more for the L2 header, FCS and a VLAN tag (SONiC "MTU"
///   design document, PortsOrch).
/// - NVIDIA Onyx: `interface ethernet 1/1 mtu <framesize>` gives a frame size (NVIDIA Onyx User
///   Manual, "Ethernet Interface Commands": mtu). Which of the header, tag and FCS the frame
///   counts is not spelled out there, so the IP packet is taken [`FRAME_OVERHEAD`] smaller,
///   all three: Onyx's 9216 carries a 9194-byte packet. Counting too much can only make a
///   borderline MTU look short, never hide a short one.
/// - Hosts (Linux `ip link`, Windows NetAdapter `MtuSize`) and every other platform: the MTU is
///   the IP MTU, as the interface reports it.
pub fn ip_mtu(platform: Option<&str>, mtu: u32) -> (u32, Option<&'static str>) {
    match platform {
        Some("nvidia-onyx") => (mtu.saturating_sub(FRAME_OVERHEAD), Some("an Onyx frame size")),
        Some("arista-eos") => (mtu, Some("an EOS layer-3 MTU")),
        Some("sonic") => (mtu, Some("a SONiC IP MTU")),
        _ => (mtu, None),
    }
}

/// `MTU 9216 (an Onyx frame size: a 9194-byte IP packet)`.
fn shown(mtu: u32, ip: u32, basis: Option<&str>) -> String {
    match basis {
        Some(b) if ip != mtu => format!("MTU {mtu} ({b}: a {ip}-byte IP packet)"),
        _ => format!("MTU {mtu}"),
    }
}

/// MTU-SMALL, MTU-MISMATCH and MTU-JUMBO per cabled link.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s: &State = cx.s;
    let mut out = Vec::new();
    let need = s.policy.roce_mtu + ROCE_HEADERS;
    let ip = |e: End| ip_mtu(s.device(e).platform.as_deref(), s.qos(e).mtu);
    let jumbo_storage = s.devices.iter().enumerate().any(|(di, d)| {
        d.protocols.iter().any(|p| matches!(p, StorageProtocol::Iscsi | StorageProtocol::Iser))
            && (0..d.ports.len()).any(|pi| ip(End { device: di as u32, port: pi as u32 }).0 >= 9000)
    });
    for (li, l) in s.links.iter().enumerate() {
        let (qa, qb) = (s.qos(l.a), s.qos(l.b));
        if qa.unknown || qb.unknown {
            continue;
        }
        let on_path = cx.path_links.binary_search(&(li as u32)).is_ok();
        let ((ia, ba), (ib, bb)) = (ip(l.a), ip(l.b));
        // Ends that differ only matter where the smaller one drops a RoCE packet the larger
        // sends.
        if ia != ib && ia.min(ib) < need {
            out.push(Draft {
                id: "MTU-MISMATCH",
                severity: if on_path { Severity::Error } else { Severity::Warning },
                ports: vec![l.a],
                device: None,
                class: None,
                what: format!(
                    "{} here but {} at the other end, {}: a RoCE packet of path MTU {} ({need} bytes) passes one end and not the other",
                    shown(qa.mtu, ia, ba),
                    shown(qb.mtu, ib, bb),
                    cx.label(l.b),
                    s.policy.roce_mtu
                ),
                why: "frames larger than the smaller MTU are dropped by the receiver (or fragmented, which RoCE does not allow): large transfers stall while small ones pass".into(),
                fix: format!("give both ends an MTU that carries a {need}-byte IP packet (as each vendor counts it)"),
                source: SRC_MTU,
                others: Vec::new(),
            });
        }
        if !on_path {
            continue;
        }
        for (e, q, ipm, basis) in [(l.a, qa, ia, ba), (l.b, qb, ib, bb)] {
            // A packet routed into the port's VLAN meets the VLAN interface's IP MTU (EOS
            // `interface VlanN` / `mtu`) as well as the port's.
            if let Some(svi) = q.vlans.as_ref().and_then(|v| v.svi_mtu).filter(|m| *m < need) {
                out.push(Draft {
                    id: "MTU-SMALL",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: None,
                    what: format!("the VLAN interface (SVI) of this port's VLAN has MTU {svi}, below the {need} bytes a RoCE path MTU of {} needs", s.policy.roce_mtu),
                    why: "traffic routed into the VLAN is limited by the VLAN interface's MTU, not the port's: full-size RoCE packets are dropped there".into(),
                    fix: format!("raise the VLAN interface's MTU (EOS `interface VlanN` / `mtu`) to carry at least a {need}-byte IP packet"),
                    source: SRC_ROCEV2,
                    others: Vec::new(),
                });
            }
            if ipm < need {
                out.push(Draft {
                    id: "MTU-SMALL",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: None,
                    what: format!("{} is below the {} bytes a RoCE path MTU of {} needs (payload + 60 bytes of RoCEv2 headers)", shown(q.mtu, ipm, basis), need, s.policy.roce_mtu),
                    why: "full-size RoCE packets are dropped at this hop; the queue pairs time out or fall back to a smaller path MTU".into(),
                    fix: format!("raise the MTU to carry at least a {need}-byte IP packet, or lower the RoCE path MTU"),
                    source: SRC_ROCEV2,
                    others: Vec::new(),
                });
            } else if jumbo_storage && ipm < 9000 {
                out.push(Draft {
                    id: "MTU-JUMBO",
                    severity: Severity::Error,
                    ports: vec![e],
                    device: None,
                    class: None,
                    what: format!("{} on a path whose iSCSI/iSER endpoints use jumbo frames", shown(q.mtu, ipm, basis)),
                    why: "jumbo frames only help end to end; one hop with a standard MTU drops or fragments them and iSCSI throughput falls".into(),
                    fix: "set an MTU that carries 9000-byte IP packets on every hop between the storage endpoints".into(),
                    source: SRC_JUMBO,
                    others: Vec::new(),
                });
            } else if !s.policy.roce_mtu_stated && ipm < LARGEST_ROCE_MTU + ROCE_HEADERS {
                // Nobody said which RoCE path MTU the fabric runs: a standard MTU still caps it.
                out.push(Draft {
                    id: "MTU-SMALL",
                    severity: Severity::Warning,
                    ports: vec![e],
                    device: None,
                    class: None,
                    what: format!(
                        "{} on an RDMA path caps the RoCE path MTU at {}, below the {LARGEST_ROCE_MTU} adapters use on jumbo ports",
                        shown(q.mtu, ipm, basis),
                        largest_fitting(ipm)
                    ),
                    why: "RoCE messages are cut into path-MTU packets: a small path MTU costs throughput, and an adapter set for 4096 on the other side drops to this one's".into(),
                    fix: format!("raise the MTU to carry at least a {}-byte IP packet (a jumbo MTU), or state the RoCE MTU the fabric runs (`policy: {{roce_mtu: {}}}` in the links file)", LARGEST_ROCE_MTU + ROCE_HEADERS, largest_fitting(ipm)),
                    source: SRC_ROCEV2,
                    others: Vec::new(),
                });
            }
        }
    }
    out
}

/// The largest RoCE path MTU (256, 512, 1024, 2048 or 4096) whose packets fit an IP MTU.
fn largest_fitting(ip: u32) -> u32 {
    [4096, 2048, 1024, 512, 256].into_iter().find(|m| m + ROCE_HEADERS <= ip).unwrap_or(256)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_platform_counts_its_mtu_on_its_own_basis() {
        assert_eq!(ip_mtu(Some("nvidia-onyx"), 9216).0, 9194);
        assert_eq!(ip_mtu(Some("arista-eos"), 9214).0, 9214);
        assert_eq!(ip_mtu(Some("sonic"), 9100).0, 9100);
        assert_eq!(ip_mtu(Some("linux"), 9000).0, 9000);
        assert_eq!(ip_mtu(None, 4156).0, 4156);
        assert_eq!((largest_fitting(1500), largest_fitting(9000), largest_fitting(2107)), (1024, 4096, 1024));
    }
}
