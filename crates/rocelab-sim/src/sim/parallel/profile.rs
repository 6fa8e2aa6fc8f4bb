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
    /// Wall seconds spent building the part's own state, over the shared tables.
    pub build_seconds: f64,
    /// CPU seconds of the same (the thread's CPU clock, so valid on a loaded machine).
    pub build_cpu_seconds: Option<f64>,
    /// Wall seconds running the part's events, taking in its messages and posting its own.
    pub busy_seconds: f64,
    /// Wall seconds at the barrier, waiting for the other parts to end their window.
    pub wait_seconds: f64,
    /// CPU seconds of the thread while busy, and while at the barrier (polling before it
    /// yields or sleeps), from its CPU-time clock (`clock_gettime(2)`,
    /// `CLOCK_THREAD_CPUTIME_ID`; `None` outside Linux): below the wall seconds when the thread
    /// waited for a core. The busy CPU seconds are the part's work whatever else the machine
    /// runs; the parts' sum against one thread's CPU time is the work the threads add.
    pub busy_cpu_seconds: Option<f64>,
    pub wait_cpu_seconds: Option<f64>,
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
    /// Wall seconds checking the inputs and building the tables every part shares (the
    /// routes among them), once, before the threads start.
    pub shared_build_seconds: f64,
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
            "threads: {} parts, {} windows of at most {}, {:.0} events a window, busy imbalance {:.3}, shared build \
             {:.3} s, merge {:.3} s",
            self.parts.len(),
            self.windows,
            crate::time::human(self.lookahead),
            events as f64 / self.windows.max(1) as f64,
            self.imbalance(),
            self.shared_build_seconds,
            self.merge_seconds
        )];
        let cpu = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{s:.3} s"));
        for (i, p) in self.parts.iter().enumerate() {
            out.push(format!(
                "  part {i}: {} nodes ({} hosts), {} events, {} idle windows, {} messages sent; build {:.3} s (CPU {}), \
                 busy {:.3} s (CPU {}), waiting {:.3} s (CPU {})",
                p.nodes,
                p.hosts,
                p.events,
                p.idle_windows,
                p.messages_sent,
                p.build_seconds,
                cpu(p.build_cpu_seconds),
                p.busy_seconds,
                cpu(p.busy_cpu_seconds),
                p.wait_seconds,
                cpu(p.wait_cpu_seconds),
            ));
        }
        out
    }
}

/// The calling thread's CPU seconds so far (user and kernel).
#[cfg(target_os = "linux")]
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable `timespec` for the call's duration.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return None;
    }
    Some(t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

/// The calling thread's CPU seconds so far (not read outside Linux).
#[cfg(not(target_os = "linux"))]
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    None
}

/// Wall time added up by what a thread was doing.
#[derive(Default)]
pub(super) struct Clock {
    pub busy: Duration,
    pub wait: Duration,
    /// CPU seconds at the barrier.
    pub wait_cpu: Option<f64>,
}

impl Clock {
    /// Wait at `barrier` (a closure), adding up the wall and CPU time it takes.
    pub fn wait(&mut self, barrier: impl FnOnce()) -> std::time::Instant {
        let (wall, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
        barrier();
        let (now, cpu_now) = (std::time::Instant::now(), thread_cpu_seconds());
        self.wait += now - wall;
        self.wait_cpu = match (cpu, cpu_now) {
            (Some(a), Some(b)) => Some(self.wait_cpu.unwrap_or(0.0) + (b - a)),
            _ => None,
        };
        now
    }
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
