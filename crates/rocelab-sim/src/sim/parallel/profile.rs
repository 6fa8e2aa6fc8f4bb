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
    /// Wall seconds of the busy time taking in the other parts' messages (their packets into
    /// this pool, their events into this queue), and posting this part's own into the slots
    /// (their packets first copied out of this pool: `Sim::pack_outbox`).
    pub deliver_seconds: f64,
    pub post_seconds: f64,
    /// Each window's busy time, wall and the thread's CPU, in nanoseconds, by window: the
    /// parts meet at one barrier a window, so a window lasts as long as its slowest part, and
    /// the others wait out the difference ([`ThreadsProfile::window_lines`]).
    pub window_busy_ns: Vec<u64>,
    pub window_busy_cpu_ns: Vec<u64>,
    /// The thread's own counts while it built its part and while it ran its windows
    /// (`getrusage(2)`, `RUSAGE_THREAD`; `None` outside Linux).
    pub build_usage: Option<ThreadUsage>,
    pub run_usage: Option<ThreadUsage>,
}

/// What the kernel counted of one thread: page faults served without disk (a page touched for
/// the first time: memory growing), and switches off its core, asked for (a sleep, a yield
/// that gave the core away) or not (preempted by other work on the machine).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadUsage {
    pub minor_faults: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

impl ThreadUsage {
    /// The calling thread's counts so far.
    #[cfg(target_os = "linux")]
    pub(super) fn thread() -> Option<ThreadUsage> {
        // SAFETY: all-zero bytes are a valid `rusage` (a plain C struct of integers).
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `getrusage` writes only the `rusage` it is given.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) } != 0 {
            return None;
        }
        Some(ThreadUsage {
            minor_faults: u.ru_minflt as u64,
            voluntary_switches: u.ru_nvcsw as u64,
            involuntary_switches: u.ru_nivcsw as u64,
        })
    }

    /// The calling thread's counts (not read outside Linux).
    #[cfg(not(target_os = "linux"))]
    pub(super) fn thread() -> Option<ThreadUsage> {
        None
    }

    /// The counts from `earlier` to `self`.
    pub(super) fn since(self, earlier: ThreadUsage) -> ThreadUsage {
        ThreadUsage {
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
            voluntary_switches: self.voluntary_switches.saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self.involuntary_switches.saturating_sub(earlier.involuntary_switches),
        }
    }
}

/// The `q`-quantile (0 to 1) of `sorted`, nearest rank; 0 when it is empty.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The threads of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadsProfile {
    /// The cut's lookahead: a window's length at most.
    pub lookahead: Time,
    /// Windows run (the same for every part: they meet at one barrier a window); for a pair
    /// without a barrier ([`ThreadsProfile::paired`]), the steps both parts ran.
    pub windows: u64,
    /// Two parts that ran without a barrier, each as far ahead as the other's progress allowed
    /// (`sim/parallel/pair.rs`).
    pub paired: bool,
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
        let (windows, window) = if self.paired {
            ("steps without a barrier, each up to a lookahead past the other's earliest event:", "a step")
        } else {
            ("windows of at most", "a window")
        };
        let mut out = vec![format!(
            "threads: {} parts, {} {windows} {}, {:.0} events {window}, busy imbalance {:.3}, shared build {:.3} s, \
             merge {:.3} s",
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
            let usage = |u: Option<ThreadUsage>| {
                u.map_or("-".to_string(), |u| {
                    format!(
                        "{} page faults, {} voluntary and {} involuntary switches",
                        u.minor_faults, u.voluntary_switches, u.involuntary_switches
                    )
                })
            };
            out.push(format!(
                "    delivering {:.3} s, posting {:.3} s; build: {}; run: {}",
                p.deliver_seconds,
                p.post_seconds,
                usage(p.build_usage),
                usage(p.run_usage)
            ));
        }
        out.extend(self.window_lines());
        out
    }

    /// Each part's busy time a window, wall (`cpu` false) or the thread's CPU (true), against
    /// the other parts': `None` when there is one part or the windows were not recorded.
    pub fn window_stats(&self, cpu: bool) -> Option<Vec<WindowStats>> {
        let series: Vec<&Vec<u64>> =
            self.parts.iter().map(|p| if cpu { &p.window_busy_cpu_ns } else { &p.window_busy_ns }).collect();
        let windows = series.iter().map(|s| s.len()).min().unwrap_or(0);
        if windows == 0 || series.len() < 2 {
            return None;
        }
        let slowest: Vec<u64> = (0..windows).map(|w| series.iter().map(|s| s[w]).max().unwrap_or(0)).collect();
        let stats = series
            .iter()
            .map(|s| {
                let mut sorted = s[..windows].to_vec();
                sorted.sort_unstable();
                WindowStats {
                    median_ns: quantile(&sorted, 0.5),
                    p90_ns: quantile(&sorted, 0.9),
                    p99_ns: quantile(&sorted, 0.99),
                    longest_ns: sorted.last().copied().unwrap_or(0),
                    slowest_in: (0..windows).filter(|&w| s[w] == slowest[w] && s[w] > 0).count() as u64,
                    spread_ns: (0..windows).map(|w| slowest[w] - s[w]).sum(),
                }
            })
            .collect();
        Some(stats)
    }

    /// What the windows' busy times say of the waits, wall and CPU, a line a part
    /// ([`WindowStats`]): what is left of a part's wait past the spread is the barrier itself,
    /// and the time a thread spent off its core while the others had ended their window.
    pub fn window_lines(&self) -> Vec<String> {
        let us = |ns: u64| ns as f64 / 1e3;
        let mut out = Vec::new();
        for (what, cpu) in [("wall", false), ("CPU", true)] {
            for (i, w) in self.window_stats(cpu).into_iter().flatten().enumerate() {
                out.push(format!(
                    "  part {i}, busy {what} a window: median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, longest {:.1} µs; \
                     the slowest in {} windows ({:.1} %); the spread explains {:.3} s of its wait",
                    us(w.median_ns),
                    us(w.p90_ns),
                    us(w.p99_ns),
                    us(w.longest_ns),
                    w.slowest_in,
                    100.0 * w.slowest_in as f64 / self.windows.max(1) as f64,
                    w.spread_ns as f64 / 1e9,
                ));
            }
        }
        out
    }
}

/// One part's busy time a window against the other parts' ([`ThreadsProfile::window_stats`]).
/// The parts meet at one barrier a window, so a window lasts as long as its slowest part and
/// the others wait out the difference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowStats {
    /// Percentiles of the busy time a window (nearest rank), and the longest, in nanoseconds.
    pub median_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub longest_ns: u64,
    /// Windows in which this part was the slowest (ties count for each tied part): the others
    /// waited for it.
    pub slowest_in: u64,
    /// The wait the spread between the parts explains: the sum over the windows of the slowest
    /// part's busy time less this part's.
    pub spread_ns: u64,
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
    /// When the current window's busy time began, wall and the thread's CPU seconds.
    window_start: Option<(std::time::Instant, Option<f64>)>,
    /// Each ended window's busy time in nanoseconds, wall and CPU.
    pub windows_ns: Vec<u64>,
    pub windows_cpu_ns: Vec<u64>,
}

impl Clock {
    /// Wait at `barrier` (a closure), adding up the wall and CPU time it takes.
    pub fn wait(&mut self, barrier: impl FnOnce()) -> std::time::Instant {
        let (wall, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
        if let Some((start, start_cpu)) = self.window_start {
            self.windows_ns.push((wall - start).as_nanos() as u64);
            if let (Some(a), Some(b)) = (start_cpu, cpu) {
                self.windows_cpu_ns.push(((b - a).max(0.0) * 1e9) as u64);
            }
        }
        barrier();
        let ended = self.add_wait((wall, cpu));
        self.window_start = Some(ended);
        ended.0
    }

    /// A wait without a barrier that began at `since` (wall, and the thread's CPU seconds) has
    /// ended: its time added up. Returns now, when the busy time resumes.
    pub fn waited(&mut self, since: (std::time::Instant, Option<f64>)) -> std::time::Instant {
        self.add_wait(since).0
    }

    /// Add the wait that began at `since` and ends now (wall and CPU) to `wait` and `wait_cpu`;
    /// returns now, wall and CPU.
    fn add_wait(&mut self, since: (std::time::Instant, Option<f64>)) -> (std::time::Instant, Option<f64>) {
        let (now, cpu_now) = (std::time::Instant::now(), thread_cpu_seconds());
        self.wait += now - since.0;
        self.wait_cpu = match (since.1, cpu_now) {
            (Some(a), Some(b)) => Some(self.wait_cpu.unwrap_or(0.0) + (b - a)),
            _ => None,
        };
        (now, cpu_now)
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
        // The windows' line, then a part's two lines each (no windows recorded: no window lines).
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert!(lines[2].starts_with("    delivering 0.000 s, posting 0.000 s; build: -"), "{}", lines[2]);
        assert!(lines[0].contains("2 parts, 4 windows") && lines[0].contains("imbalance 1.500"), "{}", lines[0]);
        assert!(lines[1].starts_with("  part 0:") && lines[1].contains("busy 3.000 s"), "{}", lines[1]);
        // A pair without a barrier counts its steps.
        let paired = ThreadsProfile { paired: true, ..p.clone() }.lines();
        assert!(paired[0].contains("2 parts, 4 steps without a barrier") && paired[0].contains("events a step"));
        // No part busy: balanced, not a division by zero.
        assert_eq!(ThreadsProfile::default().imbalance(), 1.0);
    }

    #[test]
    fn the_windows_name_the_slower_part_and_the_wait_the_spread_explains() {
        // Window by window, part 0 busy 10, 30, 20 µs and part 1 20, 10, 20 µs: the slowest
        // part takes 20, 30, 20 µs, so part 0 waits 10 µs for part 1 in the first window and
        // part 1 waits 20 µs in the second; both are the slowest in the tied third.
        let part = |wall: Vec<u64>| PartProfile {
            window_busy_cpu_ns: wall.iter().map(|w| w / 2).collect(),
            window_busy_ns: wall,
            ..PartProfile::default()
        };
        let p = ThreadsProfile {
            parts: vec![part(vec![10_000, 30_000, 20_000]), part(vec![20_000, 10_000, 20_000])],
            windows: 3,
            ..ThreadsProfile::default()
        };
        let wall = p.window_stats(false).expect("two parts, three windows");
        let w0 = WindowStats {
            median_ns: 20_000,
            p90_ns: 30_000,
            p99_ns: 30_000,
            longest_ns: 30_000,
            slowest_in: 2,
            spread_ns: 10_000,
        };
        let w1 = WindowStats {
            median_ns: 20_000,
            p90_ns: 20_000,
            p99_ns: 20_000,
            longest_ns: 20_000,
            slowest_in: 2,
            spread_ns: 20_000,
        };
        assert_eq!(wall, vec![w0, w1]);
        // The CPU series, half the wall: the same windows, half the spread.
        let cpu = p.window_stats(true).expect("two parts, three windows");
        assert_eq!((cpu[0].spread_ns, cpu[1].spread_ns, cpu[0].longest_ns), (5_000, 10_000, 15_000));
        let lines = p.window_lines();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(lines[0].contains("part 0, busy wall") && lines[0].contains("median 20.0 µs"), "{}", lines[0]);
        assert!(lines[0].contains("slowest in 2 windows (66.7 %)"), "{}", lines[0]);
        assert!(lines[3].starts_with("  part 1, busy CPU"), "{}", lines[3]);
        // One part, or no windows recorded: nothing to compare.
        assert_eq!(
            ThreadsProfile { parts: vec![part(vec![1])], ..ThreadsProfile::default() }.window_stats(false),
            None
        );
        let unrecorded = ThreadsProfile { parts: vec![part(vec![]), part(vec![])], ..ThreadsProfile::default() };
        assert!(unrecorded.window_lines().is_empty());
    }

    #[test]
    fn the_quantile_is_the_nearest_rank() {
        assert_eq!(quantile(&[1, 2, 3, 4], 0.5), 2);
        assert_eq!(quantile(&[1, 2, 3, 4], 0.9), 4);
        assert_eq!(quantile(&[7], 0.99), 7);
        assert_eq!(quantile(&[], 0.5), 0);
    }
}
