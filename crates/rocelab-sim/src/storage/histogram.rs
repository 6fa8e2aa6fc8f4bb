//! A log-linear latency histogram in the manner of HdrHistogram (Gil Tene) and fio's own
//! `io_u_plat` buckets: bounded memory, constant-time recording, exact count, sum, minimum and
//! maximum, and percentiles with a stated relative error.
//!
//! Values are nanoseconds. Values below 2^[`SUB_BITS`] are stored exactly; above, each power of
//! two [2^k, 2^(k+1)) is split into 2^[`SUB_BITS`] equal buckets, so a bucket's width is at most
//! 2^−[`SUB_BITS`] of its lower bound. A percentile is reported as the midpoint of its bucket
//! (clamped to the exact minimum and maximum), which is within **2^−(SUB_BITS+1) = 1/256 ≈ 0.4 %**
//! of the true order statistic. Values up to 2^[`MAX_BITS`] ns (about 18 minutes) are
//! bucketed; larger ones land in the last bucket (the maximum stays exact).

use serde::{Deserialize, Serialize};

/// Sub-bucket bits: 128 buckets per power of two.
pub const SUB_BITS: u32 = 7;
/// Highest power of two bucketed.
pub const MAX_BITS: u32 = 40;
const SUB: usize = 1 << SUB_BITS;
/// Number of buckets: the exact range, then one group per power of two above it.
const BUCKETS: usize = SUB + (MAX_BITS - SUB_BITS) as usize * SUB;

/// The histogram (about 35 KiB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyHistogram {
    counts: Vec<u64>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

fn index(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let k = 63 - v.leading_zeros(); // v in [2^k, 2^(k+1)), k ≥ SUB_BITS
    if k >= MAX_BITS {
        return BUCKETS - 1;
    }
    let sub = ((v >> (k - SUB_BITS)) as usize) & (SUB - 1);
    SUB + (k - SUB_BITS) as usize * SUB + sub
}

/// [low, high) of bucket `i`.
fn bounds(i: usize) -> (u64, u64) {
    if i < SUB {
        return (i as u64, i as u64 + 1);
    }
    let group = (i - SUB) / SUB;
    let sub = ((i - SUB) % SUB) as u64;
    let k = group as u32 + SUB_BITS;
    let width = 1u64 << (k - SUB_BITS);
    let low = (1u64 << k) + sub * width;
    (low, low + width)
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        LatencyHistogram { counts: vec![0; BUCKETS], count: 0, sum: 0, min: u64::MAX, max: 0 }
    }

    /// Record one value (ns).
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts[index(ns)] += 1;
        self.count += 1;
        self.sum += ns as u128;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Add every value of `other` (fio's `group_reporting`).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// Exact minimum (0 when empty).
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min
        }
    }
    /// Exact maximum.
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Exact mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The `p`-th percentile (0 < p ≤ 100): the value of rank ⌈p/100·n⌉, within 1/256 relative
    /// (see the module documentation); exact for the first and last rank.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((p / 100.0 * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank == self.count {
            return self.max;
        }
        if rank == 1 {
            return self.min;
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                let mid = if hi - lo == 1 { lo } else { lo + (hi - lo) / 2 };
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// The summary fio prints for completion latency.
    pub fn summary(&self) -> LatencySummary {
        LatencySummary {
            count: self.count,
            min_ns: self.min(),
            mean_ns: self.mean(),
            p50_ns: self.percentile(50.0),
            p99_ns: self.percentile(99.0),
            p99_9_ns: self.percentile(99.9),
            max_ns: self.max,
        }
    }
}

/// Completion latency statistics of a job, in nanoseconds (fio's `clat_ns`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// IOs measured.
    pub count: u64,
    /// Minimum (exact).
    pub min_ns: u64,
    /// Mean (exact).
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p99_9_ns: u64,
    /// Maximum (exact).
    pub max_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn buckets_tile_the_range() {
        let mut prev_hi = 0;
        for i in 0..BUCKETS {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, prev_hi, "bucket {i}");
            assert!(hi > lo);
            assert_eq!(index(lo), i);
            assert_eq!(index(hi - 1), i);
            prev_hi = hi;
        }
        assert_eq!(prev_hi, 1 << MAX_BITS);
        assert_eq!(index(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn exact_extremes_and_mean() {
        let mut h = LatencyHistogram::new();
        for v in [5_000u64, 7, 1_234_567, 90] {
            h.record(v);
        }
        let s = h.summary();
        assert_eq!((s.count, s.min_ns, s.max_ns), (4, 7, 1_234_567));
        assert_eq!(s.mean_ns, (5_000.0 + 7.0 + 1_234_567.0 + 90.0) / 4.0);
        assert_eq!(h.percentile(100.0), 1_234_567);
        assert_eq!(LatencyHistogram::new().summary(), LatencySummary::default());
    }

    #[test]
    fn percentiles_within_the_stated_relative_error() {
        let mut rng = Rng::new(3);
        let mut h = LatencyHistogram::new();
        let mut all: Vec<u64> = (0..100_000).map(|_| 10_000 + rng.below(990_000_000)).collect();
        for &v in &all {
            h.record(v);
        }
        all.sort_unstable();
        for p in [50.0, 90.0, 99.0, 99.9, 99.99] {
            let rank = ((p / 100.0 * all.len() as f64).ceil() as usize).max(1);
            let exact = all[rank - 1] as f64;
            let got = h.percentile(p) as f64;
            assert!((got - exact).abs() / exact <= 1.0 / 256.0, "p{p}: {got} vs {exact}");
        }
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        let mut both = LatencyHistogram::new();
        for v in 0..5000u64 {
            let x = v * v % 100_003;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            both.record(x);
        }
        a.merge(&b);
        assert_eq!(a, both);
    }
}
