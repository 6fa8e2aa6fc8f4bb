//! The devices that disagree with a policy inferred from the imported devices. With no policy
//! stated, every device is judged against what most of them hold ([`crate::infer`]); a device
//! holding another value is named, so that a fabric split half and half, or a majority that is
//! itself the mistake, is seen as such and not only through the findings that follow from it.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_QBB};

/// POLICY-DISSENT per device and part of the inferred policy it disagrees with.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let Some(inf) = &cx.s.policy.inferred else { return Vec::new() };
    let mut out = Vec::new();
    for part in &inf.parts {
        let Some(value) = &part.value else { continue };
        for (device, has) in &part.dissent {
            out.push(Draft {
                id: "POLICY-DISSENT",
                severity: Severity::Warning,
                ports: Vec::new(),
                device: Some(device.clone()),
                class: None,
                what: format!(
                    "{} {has}, where {} of the {} devices that show it hold {value}, the value the check judges by",
                    part.what, part.agree, part.voters
                ),
                why: "PFC and the classification of RDMA work only when every device along a path agrees; with no policy stated the majority is taken as the intent, so this device is judged against it (or the majority is the mistake)".into(),
                fix: "make the device agree with the others, or state the policy in the links file (`policy: {lossless: [3], rdma_dscp: 26, cnp_priority: 6}`)".into(),
                source: SRC_QBB,
                others: Vec::new(),
            });
        }
    }
    out
}
