//! ECN marking on an egress queue, RED style (Floyd & Jacobson 1993; ECN per RFC 3168) with the
//! instantaneous queue in place of RED's average, as DCQCN switches do (Zhu et al., "Congestion
//! Control for Large-Scale RDMA Deployments", SIGCOMM 2015): the marking probability is 0 at or
//! below Kmin, rises linearly to Pmax at Kmax, and is 1 above Kmax. Marking happens at enqueue
//! and only for ECN-capable (ECT) packets; others pass unmarked (a lossless class is never
//! dropped for congestion).

use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// RED/ECN parameters of one egress queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EcnSpec {
    /// Queue depth (bytes) at and below which nothing is marked.
    pub kmin_bytes: u64,
    /// Queue depth (bytes) above which everything ECN-capable is marked.
    pub kmax_bytes: u64,
    /// Marking probability at Kmax (0..=1).
    pub pmax: f64,
}

impl EcnSpec {
    /// Marking probability for a queue of `queue_bytes`.
    pub fn mark_probability(&self, queue_bytes: u64) -> f64 {
        if queue_bytes <= self.kmin_bytes {
            0.0
        } else if queue_bytes > self.kmax_bytes {
            1.0
        } else {
            let span = (self.kmax_bytes - self.kmin_bytes).max(1) as f64;
            self.pmax * (queue_bytes - self.kmin_bytes) as f64 / span
        }
    }

    /// Decide whether to mark CE; draws a random number only in the linear region, so runs
    /// stay reproducible and cheap.
    #[inline]
    pub fn should_mark(&self, queue_bytes: u64, rng: &mut Rng) -> bool {
        self.should_mark_with(queue_bytes, || rng.next_f64())
    }

    /// [`EcnSpec::should_mark`] with the uniform variate from `draw`, called only in the linear
    /// region (the ns-3 HPCC simulator's draws, [`crate::rng::ns3`], follow the same rule).
    #[inline]
    pub fn should_mark_with(&self, queue_bytes: u64, draw: impl FnOnce() -> f64) -> bool {
        if queue_bytes <= self.kmin_bytes {
            false
        } else if queue_bytes > self.kmax_bytes {
            true
        } else {
            draw() < self.mark_probability(queue_bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probability_curve() {
        let e = EcnSpec { kmin_bytes: 100_000, kmax_bytes: 400_000, pmax: 0.2 };
        assert_eq!(e.mark_probability(0), 0.0);
        assert_eq!(e.mark_probability(100_000), 0.0);
        assert!((e.mark_probability(250_000) - 0.1).abs() < 1e-12);
        assert!((e.mark_probability(400_000) - 0.2).abs() < 1e-12);
        assert_eq!(e.mark_probability(400_001), 1.0);
    }

    #[test]
    fn empirical_marking_rate() {
        let e = EcnSpec { kmin_bytes: 0, kmax_bytes: 1000, pmax: 0.5 };
        let mut rng = Rng::new(1);
        let n = 200_000;
        let marked = (0..n).filter(|_| e.should_mark(500, &mut rng)).count();
        let rate = marked as f64 / n as f64;
        assert!((rate - 0.25).abs() < 0.005, "rate {rate}");
        assert!(!e.should_mark(0, &mut rng));
        assert!(e.should_mark(1001, &mut rng));
    }
}
