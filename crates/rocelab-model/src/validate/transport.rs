//! The RDMA transport settings checked where they are written (`fabric.rdma`, an adapter's
//! `transport`, a workload's `window`): windows, ACK rates, timeouts and classes that exist.

use crate::diag::{did_you_mean, problem, Problem};
use crate::transport::*;
use crate::units::Time;

/// A window of 0 packets or 0 bytes stops the queue pair for good.
pub(crate) fn check_window(w: &Window, path: String, problems: &mut Vec<Problem>) {
    let bad = match w {
        Window::Packets(0) => Some("a window of 0 packets never lets a packet out"),
        Window::Bytes(b) if b.as_bytes() == 0 => Some("a window of 0 bytes never lets a packet out"),
        _ => None,
    };
    if let Some(msg) = bad {
        let mut p = problem(path, msg.into());
        p.diag.expected = Some(WINDOW_EXPECTED.into());
        problems.push(p);
    }
}

/// Out-of-range values and unknown class names of one `RdmaTransport` written at `path`.
pub(crate) fn check(t: &RdmaTransport, path: &str, classes: &[crate::TrafficClass], problems: &mut Vec<Problem>) {
    let at = |f: &str| format!("{path}.{f}");
    if let Some(w) = &t.window {
        check_window(w, at("window"), problems);
    }
    if t.ack_every == Some(0) {
        let mut p = problem(at("ack_every"), "ack_every 0 would never acknowledge".into());
        p.diag.expected = Some("an integer of at least 1 (packets per ACK)".into());
        problems.push(p);
    }
    if let Some(c) = &t.ack_class {
        if !classes.iter().any(|k| &k.name == c) {
            let mut p = problem(at("ack_class"), format!("no class `{c}`"));
            p.diag.expected = Some(format!(
                "one of {}",
                classes.iter().map(|k| format!("`{}`", k.name)).collect::<Vec<_>>().join(", ")
            ));
            p.diag.suggestion = did_you_mean(c, classes.iter().map(|k| k.name.as_str()));
            problems.push(p);
        }
    }
    match t.timeout {
        Some(AckTimeout::Exponent(n)) if n > 31 => {
            let mut p = problem(at("timeout"), format!("timeout exponent {n} is above 31 (a 5-bit field)"));
            p.diag.expected = Some("an exponent 0-31 (4.096 µs × 2ⁿ; 0: no timer), or a time such as `67ms`".into());
            problems.push(p);
        }
        Some(AckTimeout::Time(t)) if t == Time::ZERO => {
            let mut p = problem(at("timeout"), "a timeout of 0 fires at once".into());
            p.diag.expected = Some("a time above 0, or the exponent 0 for no timer".into());
            problems.push(p);
        }
        _ => {}
    }
    if let Some(r) = t.retry_count.filter(|r| *r > 7) {
        let mut p = problem(at("retry_count"), format!("retry_count {r} is above 7 (a 3-bit field)"));
        p.diag.expected = Some("an integer 0-7".into());
        problems.push(p);
    }
}
