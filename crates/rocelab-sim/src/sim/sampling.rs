//! Queue-depth sampling: every switch port's egress queue at an interval, in bounded memory
//! (see [`super::Sampling::max_samples_per_port`]).

use super::Sim;
use crate::event::Event;
use crate::observer::Observer;
use crate::time::Time;

pub(crate) struct SampleState {
    pub interval: Time,
    pub ports: Vec<usize>,
    pub depth: Vec<Vec<u32>>,
    /// Samples kept per port before a halving ([`super::Sampling::max_samples_per_port`], even).
    pub cap: usize,
    /// Samples kept per port now: the length of every `depth`, counted apart from them so that
    /// a part of a run on several threads with no switch port of its own halves its interval
    /// when the others do and schedules its samples at the same instants.
    pub kept: usize,
}

impl SampleState {
    /// Keep the larger of each pair of neighbouring samples, at twice the interval (sample `k`
    /// is now the peak of old samples `2k` and `2k + 1`, at time `2k × interval`).
    fn halve(&mut self) {
        self.kept = self.kept.div_ceil(2);
        for d in &mut self.depth {
            let n = d.len() / 2;
            for k in 0..n {
                d[k] = d[2 * k].max(d[2 * k + 1]);
            }
            if d.len() % 2 == 1 {
                d[n] = d[d.len() - 1];
                d.truncate(n + 1);
            } else {
                d.truncate(n);
            }
        }
        self.interval = self.interval.saturating_mul(2);
    }
}

impl<O: Observer> Sim<'_, O> {
    /// Take a sample of every sampled port and schedule the next one.
    #[inline(never)]
    pub(super) fn sample(&mut self) {
        let Some(s) = self.samples.as_mut() else {
            return;
        };
        // Every part of a run on several threads samples (its own ports): counted once.
        if self.part.as_ref().is_some_and(|p| p.me != 0) {
            self.events -= 1;
        }
        for (k, &p) in s.ports.iter().enumerate() {
            let d = self.ports[p].total_queue_bytes.min(u32::MAX as u64) as u32;
            s.depth[k].push(d);
        }
        s.kept += 1;
        if s.kept >= s.cap {
            s.halve();
        }
        // Sample `k` is at `k × interval` (the interval may just have doubled).
        let next = s.kept as Time * s.interval;
        if next <= self.end {
            self.queue.push(next, Event::Sample);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SampleState;

    #[test]
    fn a_halving_keeps_the_peak_of_each_pair_and_the_count_with_or_without_ports() {
        let mut s = SampleState {
            interval: 1,
            ports: vec![3, 9],
            depth: vec![vec![1, 5, 2, 2, 7], vec![0; 5]],
            cap: 4,
            kept: 5,
        };
        s.halve();
        assert_eq!((s.kept, s.interval), (3, 2));
        assert_eq!(s.depth, vec![vec![5, 2, 7], vec![0; 3]]);
        s.halve();
        assert_eq!((s.kept, s.interval, &s.depth[0]), (2, 4, &vec![5, 7]));
        // A part with no switch port of its own counts the same, so that its samples' instants
        // (`kept × interval`) stay those of the other parts.
        let mut none = SampleState { interval: 1, ports: Vec::new(), depth: Vec::new(), cap: 4, kept: 5 };
        none.halve();
        none.halve();
        assert_eq!((none.kept, none.interval), (2, 4));
    }
}
