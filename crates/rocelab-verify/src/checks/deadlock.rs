//! PFC deadlock: cyclic buffer dependencies of the lossless priorities along the routes, as
//! they are and after any single link failure ([`crate::routes::analyse`]), and a note when
//! the analysis was bounded.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_DEADLOCK};
use crate::routes::{Cycle, MAX_FULL_FAILURES};
use crate::state::End;

fn cycle_text(cx: &Ctx, c: &Cycle) -> (End, String) {
    let s = cx.s;
    let hops: Vec<String> = c
        .links
        .iter()
        .map(|dl| {
            let l = &s.links[(dl / 2) as usize];
            let (from, to) = if dl % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
            format!("{} → {}", cx.label(from), cx.label(to))
        })
        .collect();
    let first = c.links[0];
    let l = &s.links[(first / 2) as usize];
    let start = if first % 2 == 0 { l.a } else { l.b };
    (start, format!("{}, then back to the first", hops.join(", ")))
}

/// DEADLOCK-CYCLE, DEADLOCK-FAILURE and DEADLOCK-BOUND.
pub fn check(cx: &Ctx) -> Vec<Draft> {
    let r = &cx.routes;
    let pol = &cx.s.policy;
    let mut out = Vec::new();
    for c in &r.cycles {
        let (start, text) = cycle_text(cx, c);
        out.push(Draft {
            id: "DEADLOCK-CYCLE",
            severity: Severity::Error,
            ports: vec![start],
            device: None,
            class: Some(pol.class_label(c.priority)),
            what: format!("cyclic buffer dependency on lossless priority {}: {text}", c.priority),
            why: "when each buffer of the cycle fills, each pauses the one before it and none can drain: a PFC deadlock that stops the priority until a watchdog drops traffic".into(),
            fix: "route so that no lossless path turns from a down link back up (up*/down*), or break the cycle by disabling PFC on one of its links".into(),
            source: SRC_DEADLOCK,
            others: Vec::new(),
        });
    }
    for (failed, c) in &r.failure_cycles {
        let (start, text) = cycle_text(cx, c);
        let l = &cx.s.links[*failed as usize];
        out.push(Draft {
            id: "DEADLOCK-FAILURE",
            severity: Severity::Warning,
            ports: vec![start],
            device: None,
            class: Some(pol.class_label(c.priority)),
            what: format!(
                "if the link {} – {} fails, rerouting closes a buffer dependency cycle on priority {}: {text}",
                cx.label(l.a),
                cx.label(l.b),
                c.priority
            ),
            why: "after the failure traffic bounces through a lower tier and routes turn down then up; the cycle can deadlock the lossless priority".into(),
            fix: "add redundancy so the failure does not force a valley route, or use deadlock-free routing (up*/down*, Tagger)".into(),
            source: SRC_DEADLOCK,
            others: Vec::new(),
        });
    }
    if r.failures_not_analysed > 0 || r.graph_too_large {
        let mut what = Vec::new();
        if r.failures_not_analysed > 0 {
            what.push(format!(
                "{} single-link failures change routes in ways the quick screen cannot clear; the first {MAX_FULL_FAILURES} were analysed in full, the rest not",
                r.failures_not_analysed + r.failures_analysed_in_full
            ));
        }
        if r.graph_too_large {
            what.push("a buffer dependency graph exceeded the analysis bound and was not searched".into());
        }
        out.push(Draft {
            id: "DEADLOCK-BOUND",
            severity: Severity::Note,
            ports: Vec::new(),
            device: Some(cx.s.name.clone()),
            class: None,
            what: what.join("; "),
            why: "a deadlock risk in the cases not analysed is neither shown nor excluded".into(),
            fix: "analyse the remaining failures separately, or simplify the routing".into(),
            source: SRC_DEADLOCK,
            others: Vec::new(),
        });
    }
    out
}
