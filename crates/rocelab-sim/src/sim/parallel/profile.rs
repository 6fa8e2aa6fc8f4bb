//! What each thread of a run on several threads did: how its time went (building, running its
//! events, waiting for the others), how much it ran and sent, so that a speed-up short of the
//! thread count can be traced to its cause (imbalance between the parts, windows too short for
//! their work, duplicated building) on a machine whose wall times are shared with other work.
//! Reported by `rocelab bench --threads N`; never part of the results.

use crate::time::Time;
use std::time::Duration;

/// One part's thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartProfile {
    /// Nodes of the part, and of them hosts.
    pub nodes: usize,
    pub hosts: usize,
    /// Events the part ran.
    pub events: u64,
    /// Windows in which the part ran no event of its own.
    pub idle_windows: u64,
    /// Frames and pause frames sent to other parts.
    pub messages_sent: u64,
    /// Wall seconds spent building the part's simulation.
    pub build_seconds: f64,
    /// Wall seconds running the part's events, taking in its messages and posting its own.
    pub busy_seconds: f64,
    /// Wall seconds at the barrier, waiting for the other parts to end their window.
    pub wait_seconds: f64,
    /// CPU seconds of the thread in user mode (`getrusage(2)`, `RUSAGE_THREAD`; `None` outside
    /// Linux): below its wall seconds when the thread waited for a core.
    pub cpu_seconds: Option<f64>,
}

/// The threads of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadsProfile {
    /// The cut's lookahead: a window's length at most.
    pub lookahead: Time,
    /// Windows run (the same for every part: they meet at one barrier a window).
    pub windows: u64,
    /// Each part's thread, by part.
    pub parts: Vec<PartProfile>,
    /// Wall seconds gathering the parts' state into one and computing the results.
    pub merge_seconds: f64,
}

impl ThreadsProfile {
    /// The busiest part's busy seconds over the parts' mean: 1 when the parts are balanced;
    /// the speed-up is at most the thread count over it.
    pub fn imbalance(&self) -> f64 {
        let busy: Vec<f64> = self.parts.iter().map(|p| p.busy_seconds).collect();
        let mean = busy.iter().sum::<f64>() / busy.len().max(1) as f64;
        let max = busy.iter().copied().fold(0.0, f64::max);
        if mean > 0.0 {
            max / mean
        } else {
            1.0
        }
    }

    /// Lines for a person: the windows, then one line a part.
    pub fn lines(&self) -> Vec<String> {
        let events: u64 = self.parts.iter().map(|p| p.events).sum();
        let mut out = vec![format!(
            "threads: {} parts, {} windows of at most {}, {:.0} events a window, busy imbalance {:.3}, merge {:.3} s",
            self.parts.len(),
            self.windows,
            crate::time::human(self.lookahead),
            events as f64 / self.windows.max(1) as f64,
            self.imbalance(),
            self.merge_seconds
        )];
        for (i, p) in self.parts.iter().enumerate() {
            out.push(format!(
                "  part {i}: {} nodes ({} hosts), {} events, {} idle windows, {} messages sent; build {:.3} s, busy \
                 {:.3} s, waiting {:.3} s, CPU {}",
                p.nodes,
                p.hosts,
                p.events,
                p.idle_windows,
                p.messages_sent,
                p.build_seconds,
                p.busy_seconds,
                p.wait_seconds,
                p.cpu_seconds.map_or("-".to_string(), |s| format!("{s:.3} s"))
            ));
        }
        out
    }
}

/// The calling thread's CPU seconds in user mode so far.
#[cfg(target_os = "linux")]
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    // SAFETY: `getrusage` writes only the `rusage` it is given, a plain C struct for which all
    // zeroes is a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable `rusage` for the call's duration.
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) } != 0 {
        return None;
    }
    Some(u.ru_utime.tv_sec as f64 + u.ru_utime.tv_usec as f64 / 1e6)
}

/// The calling thread's CPU seconds in user mode so far (not read outside Linux).
#[cfg(not(target_os = "linux"))]
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    None
}

/// Wall time added up by what a thread was doing.
#[derive(Default)]
pub(super) struct Clock {
    pub busy: Duration,
    pub wait: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_imbalance_is_the_busiest_part_over_the_mean() {
        let part = |busy: f64| PartProfile { busy_seconds: busy, ..PartProfile::default() };
        let p = ThreadsProfile { parts: vec![part(3.0), part(1.0)], windows: 4, ..ThreadsProfile::default() };
        assert!((p.imbalance() - 1.5).abs() < 1e-12);
        let lines = p.lines();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains("2 parts, 4 windows") && lines[0].contains("imbalance 1.500"), "{}", lines[0]);
        assert!(lines[1].starts_with("  part 0:") && lines[1].contains("busy 3.000 s"), "{}", lines[1]);
        // No part busy: balanced, not a division by zero.
        assert_eq!(ThreadsProfile::default().imbalance(), 1.0);
    }
}
