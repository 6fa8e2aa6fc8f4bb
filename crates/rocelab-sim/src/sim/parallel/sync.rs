//! What the threads of a run meet by: values alone on their cache lines, and a barrier that
//! spins before it sleeps.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// A value alone on its cache lines: 128 bytes, two of the 64-byte lines, as the adjacent-line
/// prefetcher of x86 cores fetches lines in pairs (Intel 64 and IA-32 Architectures
/// Optimization Reference Manual, "false sharing"; `crossbeam_utils::CachePadded` pads to 128
/// bytes on x86-64 for this reason). Each thread writes its own slots, earliest times and
/// counts every window while the others read theirs: packed together, every write would take
/// the line from the other core (false sharing).
#[repr(align(128))]
pub(super) struct Line<T>(pub T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A barrier that spins, then yields, and sleeps only after a long wait. A window of the
/// line-rate fat tree lasts about a millisecond of work, and the parts finish it tens to
/// hundreds of microseconds apart; a thread that sleeps (`std::sync::Barrier`, a futex) pays a
/// system call to be woken and, on a busy machine, its wait for a core again after the wake-up
/// (`bench --threads 2` measured both threads waiting 2.9 s of a 4.4 s run that way, under a
/// load average of 8). So a waiting thread polls a while, then polls between yields of its core
/// (`sched_yield(2)`: it stays runnable, and a thread it waits for that has no core gets one),
/// and sleeps only when the wait passes [`SpinBarrier::YIELD_FOR`], when something other than
/// the run holds the cores. The last thread to arrive resets the count and moves the
/// generation on (release, under the lock, so that a sleeper cannot miss it), which the others
/// wait to see (acquire): what each wrote before the barrier is visible to all after it. It
/// wakes the sleepers, if any (no system call otherwise). With more threads than the cores the
/// process may use, a waiting thread sleeps at once: its polling would hold a core that a thread
/// it waits for needs (three threads on two cores took 69 s for a storage example's many short
/// windows that one thread runs in 0.3 s).
pub(super) struct SpinBarrier {
    n: usize,
    /// More threads than cores: no polling.
    oversubscribed: bool,
    /// The threads arrived, and the generation the waiting ones poll, each on its own lines so
    /// that an arrival does not take the pollers' line.
    count: Line<AtomicUsize>,
    generation: Line<AtomicUsize>,
    /// Threads asleep on `wake` (changed under `lock`).
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    /// Polls of the generation between yields: a few microseconds.
    pub const SPINS: u32 = 2000;
    /// How long a thread polls and yields before it sleeps: a few windows' work.
    pub const YIELD_FOR: std::time::Duration = std::time::Duration::from_millis(5);

    pub fn new(n: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        SpinBarrier {
            n,
            oversubscribed: n > cores,
            count: Line(AtomicUsize::new(0)),
            generation: Line(AtomicUsize::new(0)),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            let sleepers = {
                let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.generation.fetch_add(1, Ordering::Release);
                self.sleepers.load(Ordering::Relaxed)
            };
            if sleepers > 0 {
                self.wake.notify_all();
            }
            return;
        }
        let started = Instant::now();
        if !self.oversubscribed {
            loop {
                for _ in 0..Self::SPINS {
                    if self.generation.load(Ordering::Acquire) != generation {
                        return;
                    }
                    std::hint::spin_loop();
                }
                if started.elapsed() > Self::YIELD_FOR {
                    break;
                }
                std::thread::yield_now();
            }
        }
        let mut held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        while self.generation.load(Ordering::Acquire) == generation {
            held = self.wake.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How a thread with nothing to run waits for another thread's progress, without a barrier to
/// be woken at: as [`SpinBarrier`] waits, it polls, then polls between yields of its core, and
/// after [`SpinBarrier::YIELD_FOR`] sleeps [`Backoff::NAP`] between polls (no one wakes it);
/// with more threads than cores it yields at once.
pub(super) struct Backoff {
    oversubscribed: bool,
    polls: u32,
    since: Option<Instant>,
}

impl Backoff {
    /// The sleep between polls of a thread that has waited long.
    pub const NAP: std::time::Duration = std::time::Duration::from_micros(50);

    pub fn new(threads: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        Backoff { oversubscribed: threads > cores, polls: 0, since: None }
    }

    /// One poll found nothing to do.
    pub fn snooze(&mut self) {
        let since = *self.since.get_or_insert_with(Instant::now);
        if self.oversubscribed {
            std::thread::yield_now();
        } else if self.polls < SpinBarrier::SPINS {
            self.polls += 1;
            std::hint::spin_loop();
        } else if since.elapsed() < SpinBarrier::YIELD_FOR {
            self.polls = 0;
            std::thread::yield_now();
        } else {
            std::thread::sleep(Self::NAP);
        }
    }

    /// Work was found: the next wait starts polling again.
    pub fn reset(&mut self) {
        self.polls = 0;
        self.since = None;
    }
}
