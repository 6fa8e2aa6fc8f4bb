//! ETS (IEEE 802.1Qaz): weights that sum to 100, a share or strict priority for the lossless
//! queues, and CNPs strict or guaranteed.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_NVIDIA_ROCE, SRC_QAZ};
use crate::state::Sched;

/// ETS-SUM, ETS-LOSSLESS and ETS-CNP per egress profile on RDMA routes.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    for (pi, q) in s.profiles.iter().enumerate() {
        let ports = cx.egress[pi].clone();
        if ports.is_empty() {
            continue;
        }
        let weights: Vec<(usize, u8)> = q
            .sched
            .iter()
            .enumerate()
            .filter_map(|(i, x)| if let Sched::Ets(w) = x { Some((i, *w)) } else { None })
            .collect();
        // A lossless queue the configuration shows without a scheduler: the device serves it
        // by its default, with no share reserved (IEEE 802.1Qaz clause 37: ETS guarantees
        // bandwidth only to the traffic classes given a share).
        for p in pol.lossless_priorities() {
            let queue = q.priority_to_queue[p as usize] as usize & 7;
            if q.ets_scheduled[queue] == Some(false) {
                out.push(Draft {
                    id: "ETS-LOSSLESS",
                    severity: Severity::Error,
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("queue {queue} of lossless priority {p} has no scheduler (no ETS share, not strict)"),
                    why: "the queue is served by the device's default with no bandwidth guaranteed: under load the lossless class is starved, its queue grows until PFC pauses the fabric".into(),
                    fix: format!("bind queue {queue} to a scheduler with an ETS share (SONiC: `QUEUE|<port>|{queue}` `scheduler`), as the other queues are"),
                    source: SRC_QAZ,
                    others: Vec::new(),
                });
            }
        }
        // No weights and no bindings shown: the device's default scheduling, not judged.
        let bindings_shown = q.ets_scheduled.iter().any(Option::is_some);
        if weights.is_empty() && !bindings_shown {
            continue;
        }
        let sum: u32 = weights.iter().map(|(_, w)| *w as u32).sum();
        if !weights.is_empty() && sum != 100 {
            let terms: Vec<String> = weights.iter().map(|(i, w)| format!("queue {i} {w}")).collect();
            out.push(Draft {
                id: "ETS-SUM",
                severity: Severity::Error,
                ports: ports.clone(),
                device: None,
                class: None,
                what: format!("ETS weights sum to {sum} ({})", terms.join(" + ")),
                why: "IEEE 802.1Qaz bandwidth shares are percentages of the link: devices reject the set or rescale it, so no class gets the share intended".into(),
                fix: "make the ETS weights of the port sum to 100".into(),
                source: SRC_QAZ,
                others: Vec::new(),
            });
        }
        for p in pol.lossless_priorities() {
            let queue = q.priority_to_queue[p as usize] as usize & 7;
            if matches!(q.sched[queue], Sched::Unset | Sched::Ets(0)) && q.ets_scheduled[queue] != Some(false) {
                out.push(Draft {
                    id: "ETS-LOSSLESS",
                    severity: Severity::Error,
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("queue {queue} of lossless priority {p} has no ETS share and is not strict"),
                    why: "under load the lossless class is starved by the weighted classes; its queue grows until PFC pauses the fabric".into(),
                    fix: format!("give queue {queue} an ETS share (the RDMA guides use 50-90%)"),
                    source: SRC_QAZ,
                    others: Vec::new(),
                });
            }
        }
        if let Some(c) = pol.cnp_priority {
            let queue = q.priority_to_queue[c as usize] as usize & 7;
            if matches!(q.sched[queue], Sched::Unset | Sched::Ets(0)) {
                out.push(Draft {
                    id: "ETS-CNP",
                    severity: Severity::Warning,
                    ports,
                    device: None,
                    class: Some(pol.class_label(c)),
                    what: format!("CNP queue {queue} is neither strict priority nor given an ETS share"),
                    why:
                        "CNPs delayed behind data arrive late; DCQCN senders react after the queue has already built up"
                            .into(),
                    fix: format!(
                        "make queue {queue} strict priority (NVIDIA's RoCE recommendation) or give it a share"
                    ),
                    source: SRC_NVIDIA_ROCE,
                    others: Vec::new(),
                });
            }
        }
    }
    out
}
