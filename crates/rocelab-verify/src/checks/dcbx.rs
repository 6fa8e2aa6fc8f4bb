//! DCBX willingness (IEEE 802.1Qaz clause 38): on a link of an RDMA path at most one end
//! willing, and never a switch adopting a host's settings.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_QAZ};

/// DCBX-WILLING per link of an RDMA path, and per Windows RDMA host that is willing.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = windows(cx);
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

/// A Windows host willing to take DCBX settings. Windows does not implement DCBX; with
/// `Willing $True` it does not send its own PFC and traffic-class settings (`New-NetQosPolicy`,
/// `Enable-NetQosFlowControl`, `New-NetQosTrafficClass`) to the adapter, which runs whatever
/// the adapter's firmware negotiates instead (Microsoft, `Set-NetQosDcbxSetting`); Microsoft's
/// RDMA deployments (Azure Local, Storage Spaces Direct) require `-Willing $false`. Judged on
/// its own: the switch advertising the same settings does not make the host's configuration
/// the one in force.
fn windows(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = Vec::new();
    for &li in &cx.path_links {
        let l = &s.links[li as usize];
        for e in [l.a, l.b] {
            let d = s.device(e);
            let q = s.qos(e);
            if !d.rdma || d.platform.as_deref() != Some("windows") || q.unknown || q.dcbx_willing != Some(true) {
                continue;
            }
            out.push(Draft {
                id: "DCBX-WILLING",
                severity: Severity::Warning,
                ports: vec![e],
                device: None,
                class: None,
                what: "Windows DCBX is willing: the host's NetQos PFC and traffic classes are not sent to the adapter".into(),
                why: "with Willing $True Windows leaves the adapter's PFC and ETS to what the adapter's firmware negotiates with the switch; the host's configured lossless settings are not in force".into(),
                fix: "Set-NetQosDcbxSetting -Willing $false (Microsoft's setting for RDMA hosts)".into(),
                source: SRC_QAZ,
                others: Vec::new(),
            });
        }
    }
    out
}
