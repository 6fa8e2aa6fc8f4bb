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

/// The time, in whole nanoseconds, that the ns-3 HPCC simulator gives `bytes` at `rate_bps`:
/// `Seconds(DataRate::CalculateTxTime(bytes))`, the double `bytes × 8 / rate` turned into its
/// 64.64 fixed-point time and truncated to its 1 ns resolution. The double is taken exactly as
/// it is (so that a duration the double holds just below a whole nanosecond loses that
/// nanosecond, as there).
pub fn ns3_tx_time_ns(bytes: u64, rate_bps: u64) -> u64 {
    ns3_seconds_ns((bytes as f64 * 8.0) / rate_bps.max(1) as f64)
}

/// The ns-3 HPCC simulator's `Seconds(seconds)`: the double taken exactly, truncated to whole
/// nanoseconds (a flow file's start `2.001` is the double just below 2.001 s, 2000999999 ns
/// there).
pub fn ns3_seconds_ns(seconds: f64) -> u64 {
    if !(seconds.is_finite() && seconds > 0.0) {
        return 0;
    }
    let bits = seconds.to_bits();
    let exp = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1 << 52) - 1);
    // seconds = mantissa × 2^shift exactly.
    let (mantissa, shift) = if exp == 0 { (frac, -1074) } else { (frac | 1 << 52, exp - 1075) };
    let scaled = mantissa as u128 * 1_000_000_000;
    let ns = if shift >= 0 {
        scaled.checked_shl(shift as u32).unwrap_or(u128::MAX)
    } else if -shift >= 128 {
        0
    } else {
        scaled >> (-shift)
    };
    ns.min(u64::MAX as u128) as u64
}

/// Time to serialize `bytes` at `rate_bps` (see the module's rounding rule).
pub fn serialization_time(bytes: u64, rate_bps: u64) -> Time {
    bits_time(bytes.saturating_mul(8), rate_bps)
}

/// A link rate with its per-byte time cached when it is a whole number of picoseconds, so the
/// hot path multiplies instead of dividing; and, for a port's frames, the bytes each frame takes
/// on the wire beyond itself and the rounding of its duration ([`LinkRate::frame_time`]).
/// 16 bytes: it leads the port's hottest cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRate {
    bps: u64,
    /// Picoseconds per byte when `8·10¹² / bps` is exact and below 2³² and durations are not
    /// truncated, else 0 (one test on the hot path tells the product from the slow path).
    ps_per_byte: u32,
    /// Bytes each frame takes on the wire beyond itself (preamble, SFD and inter-frame gap).
    overhead: u16,
    /// Frame durations truncated to whole nanoseconds.
    truncate_ns: bool,
}

/// How the duration of a frame on a link is rounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Serialization {
    /// To the picosecond, rounded up (see the module's rounding rule).
    #[default]
    Exact,
    /// Down to a whole nanosecond, as the ns-3 HPCC simulator does: its `DataRate::
    /// CalculateTxTime` gives seconds as a double, and `Seconds()` keeps whole steps of its
    /// 1 ns resolution (a 1048-byte packet takes 83 ns at 100 Gb/s, not 83.84).
    TruncateNs,
}

impl LinkRate {
    /// A rate of `bps` bits per second (must be > 0; validated by the spec).
    pub fn new(bps: u64) -> Self {
        let bps = bps.max(1);
        let per_byte = 8 * SECOND;
        let exact = per_byte % bps == 0 && per_byte / bps <= u32::MAX as u64;
        let ps_per_byte = if exact { (per_byte / bps) as u32 } else { 0 };
        LinkRate { bps, ps_per_byte, overhead: 0, truncate_ns: false }
    }

    /// The rate of a port whose frames each take `overhead` more bytes on the wire (preamble,
    /// SFD and inter-frame gap: 20 bytes on Ethernet), their durations rounded by `rounding`.
    pub fn with_framing(self, overhead: u16, rounding: Serialization) -> Self {
        let truncate_ns = rounding == Serialization::TruncateNs;
        let exact = LinkRate::new(self.bps);
        LinkRate { overhead, truncate_ns, ps_per_byte: if truncate_ns { 0 } else { exact.ps_per_byte }, ..self }
    }

    /// Time on the wire of a frame of `frame` bytes: its bytes and the per-frame overhead,
    /// rounded as the port's [`Serialization`] says.
    #[inline]
    pub fn frame_time(&self, frame: u64) -> Time {
        let bytes = frame + self.overhead as u64;
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte as u64
        } else {
            self.frame_time_slow(bytes)
        }
    }

    /// [`LinkRate::frame_time`] of `bytes` on the wire where a product does not give it: a
    /// rate that does not divide 8·10¹² ps, or truncation to whole nanoseconds.
    #[inline(never)]
    fn frame_time_slow(&self, bytes: u64) -> Time {
        if self.truncate_ns {
            ns3_tx_time_ns(bytes, self.bps).saturating_mul(NS)
        } else {
            serialization_time(bytes, self.bps)
        }
    }

    /// The per-frame overhead bytes.
    pub fn overhead(&self) -> u32 {
        self.overhead as u32
    }

    /// Whether durations are truncated to whole nanoseconds.
    pub fn truncates_ns(&self) -> bool {
        self.truncate_ns
    }

    /// The rate in bits per second.
    pub fn bps(&self) -> u64 {
        self.bps
    }

    /// Serialization time of `bytes`, identical to [`serialization_time`].
    #[inline]
    pub fn bytes_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte as u64
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
    fn frame_time_adds_the_overhead_and_rounds_as_asked() {
        let r = LinkRate::new(100_000_000_000);
        assert_eq!(r.frame_time(1084), 86_720, "no overhead by default");
        let eth = r.with_framing(20, Serialization::Exact);
        assert_eq!(eth.frame_time(1064), 86_720);
        // ns-3 HPCC: 1048 bytes at 100 Gb/s are 83.84 ns, kept as 83 ns; 400 Gb/s: 20.96 -> 20.
        let ns3 = r.with_framing(0, Serialization::TruncateNs);
        assert_eq!(ns3.frame_time(1048), 83_000);
        assert_eq!(LinkRate::new(400_000_000_000).with_framing(0, Serialization::TruncateNs).frame_time(1048), 20_000);
        assert_eq!(ns3.frame_time(60), 4_000);
        assert_eq!((ns3.overhead(), ns3.truncates_ns(), eth.overhead()), (0, true, 20));
    }

    #[test]
    fn ns3_durations_keep_whole_nanoseconds_of_the_double() {
        assert_eq!(ns3_tx_time_ns(1048, 100_000_000_000), 83);
        assert_eq!(ns3_tx_time_ns(1048, 400_000_000_000), 20);
        assert_eq!(ns3_tx_time_ns(43, 100_000_000_000), 3);
        // 1048 bytes at 50 Gb/s: 167.68 ns.
        assert_eq!(ns3_tx_time_ns(1048, 50_000_000_000), 167);
        // 75 bytes at 100 Gb/s are 6 ns exactly, but the double 600 / 1e11 is just below
        // 6e-9 s, so the simulator keeps 5 ns; 125 bytes give a double just above 1e-8 s: 10.
        assert_eq!(ns3_tx_time_ns(75, 100_000_000_000), 5);
        assert_eq!(ns3_tx_time_ns(125, 100_000_000_000), 10);
        assert_eq!(ns3_tx_time_ns(0, 100_000_000_000), 0);
        assert_eq!(ns3_seconds_ns(2.001), 2_000_999_999);
        assert_eq!(ns3_seconds_ns(2.0), 2_000_000_000);
    }

    #[test]
    fn pause_quanta_do_not_overflow() {
        // 65535 quanta x 512 bit times at 1 bit/s: far beyond u64 in intermediate math.
        let t = bits_time(65_535 * 512, 100_000_000_000);
        assert_eq!(t, 335_539_200); // 335.5 us at 100G
        assert_eq!(LinkRate::new(8_000_000_000).bytes_in(US), 1000);
    }
}
