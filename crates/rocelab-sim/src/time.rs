//! Simulated time and link rates.
//!
//! Time is an integer count of picoseconds ([`Time`] = `u64`), which covers about 213 days of
//! simulated time and represents every serialization time of the common Ethernet rates exactly
//! (one byte takes 80 ps at 100 Gb/s, 20 ps at 400 Gb/s, 320 ps at 25 Gb/s).
//!
//! **Rounding rule.** Serialization of `n` bytes at `r` bit/s takes `ceil(n·8·10¹² / r)` ps:
//! every duration derived from a rate is rounded *up* to the next picosecond, so a simulated link
//! never carries more than its nominal rate. The same rule is used for pause durations
//! (quanta × 512 bit times, IEEE 802.1Qbb) and for host drain times.

use serde::{Deserialize, Serialize};

/// Simulated time in picoseconds.
pub type Time = u64;

/// Picoseconds per nanosecond.
pub const NS: Time = 1_000;
/// Picoseconds per microsecond.
pub const US: Time = 1_000_000;
/// Picoseconds per millisecond.
pub const MS: Time = 1_000_000_000;
/// Picoseconds per second.
pub const SECOND: Time = 1_000_000_000_000;

/// A time as people write it: `4.8us`, `10ms`, `1ns`, `250ps` (the unit that keeps the number
/// at or above 1, up to three decimals, trailing zeros dropped) — the notation of the fabric
/// files, so that messages can be pasted back into one.
pub fn human(t: Time) -> String {
    let (unit, div) = match t {
        t if t >= SECOND => ("s", SECOND),
        t if t >= MS => ("ms", MS),
        t if t >= US => ("us", US),
        t if t >= NS => ("ns", NS),
        _ => ("ps", 1),
    };
    let v = format!("{:.3}", t as f64 / div as f64);
    let v = v.trim_end_matches('0').trim_end_matches('.');
    format!("{v}{unit}")
}

/// Time to put `bits` on a link of `rate_bps`, rounded up to a whole picosecond.
pub fn bits_time(bits: u64, rate_bps: u64) -> Time {
    debug_assert!(rate_bps > 0);
    let num = bits as u128 * SECOND as u128;
    let t = num.div_ceil(rate_bps as u128);
    t.min(u64::MAX as u128) as Time
}

/// Time to serialize `bytes` at `rate_bps` (see the module's rounding rule).
pub fn serialization_time(bytes: u64, rate_bps: u64) -> Time {
    bits_time(bytes.saturating_mul(8), rate_bps)
}

/// A link rate with its per-byte time cached when it is a whole number of picoseconds, so the
/// hot path multiplies instead of dividing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRate {
    bps: u64,
    /// Picoseconds per byte when `8·10¹² / bps` is exact, else 0.
    ps_per_byte: u64,
}

impl LinkRate {
    /// A rate of `bps` bits per second (must be > 0; validated by the spec).
    pub fn new(bps: u64) -> Self {
        let bps = bps.max(1);
        let per_byte = 8 * SECOND;
        let ps_per_byte = if per_byte % bps == 0 { per_byte / bps } else { 0 };
        LinkRate { bps, ps_per_byte }
    }

    /// The rate in bits per second.
    pub fn bps(&self) -> u64 {
        self.bps
    }

    /// Serialization time of `bytes`, identical to [`serialization_time`].
    #[inline]
    pub fn bytes_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte
        } else {
            serialization_time(bytes, self.bps)
        }
    }

    /// Bytes that drain in `t` picoseconds at this rate (rounded down).
    pub fn bytes_in(&self, t: Time) -> u64 {
        ((t as u128 * self.bps as u128) / (8 * SECOND as u128)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_times_use_the_fabric_files_notation() {
        assert_eq!(human(4_800_000), "4.8us");
        assert_eq!(human(10 * MS), "10ms");
        assert_eq!(human(NS), "1ns");
        assert_eq!(human(250), "250ps");
        assert_eq!(human(10 * SECOND), "10s");
        assert_eq!(human(1_234_567), "1.235us");
    }

    #[test]
    fn common_rates_are_exact() {
        assert_eq!(serialization_time(1, 100_000_000_000), 80);
        assert_eq!(serialization_time(1, 400_000_000_000), 20);
        assert_eq!(serialization_time(1, 25_000_000_000), 320);
        assert_eq!(serialization_time(1500, 10_000_000_000), 1_200_000);
        assert_eq!(LinkRate::new(100_000_000_000).bytes_time(1084), 86_720);
    }

    #[test]
    fn inexact_rates_round_up() {
        // 3 bytes at 7 bit/s: 24/7 s = 3.428571428571.. s -> rounded up.
        assert_eq!(serialization_time(3, 7), 3_428_571_428_572);
        let r = LinkRate::new(7);
        assert_eq!(r.bytes_time(3), 3_428_571_428_572);
        // Cached and uncached paths agree on a rate that is exact.
        let r = LinkRate::new(40_000_000_000);
        assert_eq!(r.bytes_time(9000), serialization_time(9000, 40_000_000_000));
    }

    #[test]
    fn pause_quanta_do_not_overflow() {
        // 65535 quanta x 512 bit times at 1 bit/s: far beyond u64 in intermediate math.
        let t = bits_time(65_535 * 512, 100_000_000_000);
        assert_eq!(t, 335_539_200); // 335.5 us at 100G
        assert_eq!(LinkRate::new(8_000_000_000).bytes_in(US), 1000);
    }
}
