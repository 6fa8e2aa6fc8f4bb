//! VXLAN overlays on RDMA paths: the tunnel endpoints carry ECN across encapsulation
//! (RFC 6040) and copy the inner DSCP to the outer header where the underlay classifies on DSCP.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_PURE, SRC_RFC3168};
use rocelab_model::qos::Marking;

/// VXLAN-ECN and VXLAN-DSCP per tunnel endpoint on an RDMA path.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = Vec::new();
    let on_path = |dev: usize| {
        cx.path_links.iter().any(|l| {
            let l = &s.links[*l as usize];
            l.a.device as usize == dev || l.b.device as usize == dev
        })
    };
    let ecn_used = s.policy.dcqcn || super::dcqcn::switches_mark(cx);
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
