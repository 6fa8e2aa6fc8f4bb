//! VLAN tagging on RDMA paths. A priority carried in PCP exists only in the 802.1Q tag (IEEE
//! 802.1Q-2018 clause 6.9.3, the priority code point of the tag): a port that sends a VLAN
//! untagged (an access port, a trunk's native VLAN) strips it, and a peer that classifies by
//! PCP then sees priority 0 and puts RDMA traffic in the lossy class. A VLAN a port is given
//! that the switch does not define is not forwarded at all (EOS `switchport trunk allowed vlan`
//! of a VLAN without a `vlan N` block; SONiC `VLAN_MEMBER` of a VLAN not in `VLAN`).

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_8021Q};
use crate::routes::dlink;
use crate::state::End;
use rocelab_model::qos::Marking;

/// VLAN-UNTAGGED and VLAN-UNDEFINED per sending port of an RDMA path whose VLANs are known
/// (imported EOS and SONiC switches; the intent and host captures do not say).
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = Vec::new();
    for &li in &cx.path_links {
        let l = &s.links[li as usize];
        for (from_a, tx, rx) in [(true, l.a, l.b), (false, l.b, l.a)] {
            if !cx.routes.on_route(dlink(li, from_a)) {
                continue;
            }
            let (qt, qr) = (s.qos(tx), s.qos(rx));
            let Some(v) = qt.vlans.as_ref().filter(|_| !qt.unknown) else { continue };
            if !v.undefined.is_empty() {
                let list: Vec<String> = v.undefined.iter().map(u16::to_string).collect();
                out.push(draft(
                    "VLAN-UNDEFINED",
                    tx,
                    format!("the port is given VLAN {} that the switch does not define", list.join(", ")),
                    "a switch forwards no frame of a VLAN it does not define: RDMA traffic in it is dropped at this port",
                    "define the VLAN on the switch (EOS `vlan N`; SONiC `config vlan add N`) or remove it from the port",
                ));
            }
            if v.tagged.is_empty() && qr.trust == Marking::Pcp && !qr.unknown {
                out.push(draft(
                    "VLAN-UNTAGGED",
                    tx,
                    format!(
                        "the port sends every frame untagged{} while {} classifies by PCP",
                        v.untagged.map(|u| format!(" (access VLAN {u})")).unwrap_or_default(),
                        cx.label(rx)
                    ),
                    "an untagged frame carries no PCP: the peer takes it as priority 0, so RDMA traffic leaves the lossless class and is dropped under congestion",
                    "carry the RDMA VLAN tagged on this link (a trunk: EOS `switchport mode trunk` and `switchport trunk allowed vlan N`; SONiC `VLAN_MEMBER` with `tagging_mode: tagged`), or classify by DSCP at the peer",
                ));
            }
        }
    }
    out
}

fn draft(id: &'static str, port: End, what: String, why: &str, fix: &str) -> Draft {
    Draft {
        id,
        severity: Severity::Error,
        ports: vec![port],
        device: None,
        class: None,
        what,
        why: why.into(),
        fix: fix.into(),
        source: SRC_8021Q,
        others: Vec::new(),
    }
}
