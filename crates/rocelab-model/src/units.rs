//! Units in the notation network and storage engineers write: link rates (`25G`, `100Gbps`,
//! `40Gb/s`), sizes (`150KB` is 150 000 bytes, `4KiB` is 4 096 bytes; the two are kept apart and
//! printed as written), times (`500ns`, `5us`, `5µs`, `1ms`, `4s`) and cable lengths (`3m`).
//!
//! Every quantity needs its unit but zero: a bare `150` for an ECN threshold is as likely meant
//! as 150 KB (the unit switch CLIs print) as 150 bytes, and was silently read as bytes. The
//! fields that are byte counts by definition (a frame's or packet's size, perftest's `--size`,
//! fio's `bs`) take a bare number as bytes ([`bare_bytes`]).
//!
//! Every quantity is an integer in its smallest unit (bit/s, byte, picosecond, millimetre) so that
//! arithmetic is exact and a simulation is a pure function of its input. Parsing accepts decimals
//! (`0.001ms`, `2.5m`) as long as they land on a whole number of the base unit.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Why a unit-bearing value did not parse; the loader adds the file position and field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError {
    pub message: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn err<T>(message: String) -> Result<T, UnitError> {
    Err(UnitError { message })
}

/// Splits `"25.5Gbps"` into the number and the unit suffix, and parses the number exactly as a
/// decimal fraction `mantissa / 10^scale`.
fn split_number(text: &str) -> Option<(u128, u32, &str)> {
    let text = text.trim();
    let end = text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(text.len());
    let (num, unit) = text.split_at(end);
    let num = num.replace('_', "");
    if num.is_empty() || num.starts_with('.') || num.ends_with('.') {
        return None;
    }
    let mut parts = num.splitn(2, '.');
    let int = parts.next()?;
    let frac = parts.next().unwrap_or("");
    if frac.contains('.') || int.len() + frac.len() > 30 {
        return None;
    }
    let mantissa: u128 = format!("{int}{frac}").parse().ok()?;
    Some((mantissa, frac.len() as u32, unit.trim()))
}

/// `mantissa / 10^scale × factor`, only if it is a whole number that fits in a `u64`.
fn scale_exact(mantissa: u128, scale: u32, factor: u128) -> Option<u64> {
    let num = mantissa.checked_mul(factor)?;
    let div = 10u128.checked_pow(scale)?;
    if num % div != 0 {
        return None;
    }
    u64::try_from(num / div).ok()
}

fn parse_with_units(
    text: &str,
    what: &str,
    units: &[(&str, u128)],
    bare: Option<u128>,
    examples: &str,
) -> Result<u64, UnitError> {
    let Some((mantissa, scale, unit)) = split_number(text) else {
        return err(format!("`{text}` is not a {what}; expected a number with a unit, e.g. {examples}"));
    };
    let factor = if unit.is_empty() {
        match bare {
            Some(f) => f,
            None => return err(format!("`{text}` has no unit; a {what} needs one, e.g. {examples}")),
        }
    } else if let Some((_, f)) = units.iter().find(|(u, _)| *u == unit) {
        *f
    } else {
        let known: Vec<&str> = units.iter().map(|(u, _)| *u).collect();
        let hint = units
            .iter()
            .find(|(u, _)| u.eq_ignore_ascii_case(unit))
            .map(|(u, _)| format!("; did you mean `{u}`?"))
            .unwrap_or_default();
        return err(format!("unknown {what} unit `{unit}` in `{text}`{hint} (known units: {})", known.join(", ")));
    };
    scale_exact(mantissa, scale, factor).ok_or_else(|| UnitError {
        message: format!("`{text}` is not a whole number of the {what}'s smallest unit, or is too large"),
    })
}

macro_rules! serde_via_str {
    ($ty:ident, $expecting:expr, $from_int:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        v.parse().map_err(|e: UnitError| E::custom(e.message))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        let f: fn(u64) -> Result<$ty, UnitError> = $from_int;
                        f(v).map_err(|e| E::custom(e.message))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        match u64::try_from(v) {
                            Ok(u) => self.visit_u64(u),
                            Err(_) => Err(E::custom(format!("{v} is negative; expected {}", $expecting))),
                        }
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        self.visit_str(&v.to_string())
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Rate

/// A link or traffic rate in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rate(pub u64);

const RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("b/s", 1),
    ("K", 1_000),
    ("Kbps", 1_000),
    ("Kb/s", 1_000),
    ("kbps", 1_000),
    ("kb/s", 1_000),
    ("M", 1_000_000),
    ("Mbps", 1_000_000),
    ("Mb/s", 1_000_000),
    ("G", 1_000_000_000),
    ("Gbps", 1_000_000_000),
    ("Gb/s", 1_000_000_000),
    ("GbE", 1_000_000_000),
    ("T", 1_000_000_000_000),
    ("Tbps", 1_000_000_000_000),
    ("Tb/s", 1_000_000_000_000),
];

impl Rate {
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub fn bits_per_second(self) -> u64 {
        self.0
    }
    /// Bytes per second as a float, for reporting.
    pub fn bytes_per_second(self) -> f64 {
        self.0 as f64 / 8.0
    }
    /// Time to serialize `bytes` at this rate, in picoseconds, rounded up: a frame is not on the
    /// wire until its last bit is.
    pub fn serialization_ps(self, bytes: u64) -> u64 {
        if self.0 == 0 {
            return u64::MAX;
        }
        let bits = bytes as u128 * 8 * 1_000_000_000_000;
        bits.div_ceil(self.0 as u128) as u64
    }
}

impl std::str::FromStr for Rate {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        parse_with_units(s, "rate", RATE_UNITS, None, "`25G`, `100Gbps`, `40Gb/s`, `50Mbps`").map(Rate)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_scaled(
            f,
            self.0 as u128,
            &[(1_000_000_000_000, "T"), (1_000_000_000, "G"), (1_000_000, "M"), (1_000, "K")],
            "bps",
        )
    }
}

serde_via_str!(Rate, "a rate such as `25G` or `100Gbps`", |v| if v == 0 {
    Ok(Rate(0))
} else {
    err(format!("`{v}` has no unit; a rate needs one, e.g. `{v}G` or `{v}Mbps`"))
});

// ---------------------------------------------------------------------------------------------
// Size

/// The unit a size was written in, kept so that `150KB` prints as `150KB` and `4KiB` as `4KiB`:
/// vendors mean different things (ECN thresholds in KB, block sizes in KiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SizeUnit {
    #[default]
    B,
    KB,
    MB,
    GB,
    KiB,
    MiB,
    GiB,
}

impl SizeUnit {
    fn factor(self) -> u64 {
        match self {
            SizeUnit::B => 1,
            SizeUnit::KB => 1_000,
            SizeUnit::MB => 1_000_000,
            SizeUnit::GB => 1_000_000_000,
            SizeUnit::KiB => 1 << 10,
            SizeUnit::MiB => 1 << 20,
            SizeUnit::GiB => 1 << 30,
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            SizeUnit::B => "B",
            SizeUnit::KB => "KB",
            SizeUnit::MB => "MB",
            SizeUnit::GB => "GB",
            SizeUnit::KiB => "KiB",
            SizeUnit::MiB => "MiB",
            SizeUnit::GiB => "GiB",
        }
    }
}

/// A size in bytes, remembering whether it was written in decimal (KB) or binary (KiB) units.
/// Two sizes compare equal when they hold the same number of bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Size {
    bytes: u64,
    unit: SizeUnit,
}

impl PartialEq for Size {
    fn eq(&self, o: &Self) -> bool {
        self.bytes == o.bytes
    }
}
impl Eq for Size {}
impl PartialOrd for Size {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Size {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.bytes.cmp(&o.bytes)
    }
}
impl std::hash::Hash for Size {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.bytes.hash(h)
    }
}

const SIZE_UNITS: &[(&str, SizeUnit)] = &[
    ("B", SizeUnit::B),
    ("KB", SizeUnit::KB),
    ("kB", SizeUnit::KB),
    ("MB", SizeUnit::MB),
    ("GB", SizeUnit::GB),
    ("KiB", SizeUnit::KiB),
    ("MiB", SizeUnit::MiB),
    ("GiB", SizeUnit::GiB),
];

impl Size {
    pub const fn bytes(n: u64) -> Size {
        Size { bytes: n, unit: SizeUnit::B }
    }
    pub const fn kb(n: u64) -> Size {
        Size { bytes: n * 1_000, unit: SizeUnit::KB }
    }
    pub const fn kib(n: u64) -> Size {
        Size { bytes: n * 1024, unit: SizeUnit::KiB }
    }
    pub const fn mb(n: u64) -> Size {
        Size { bytes: n * 1_000_000, unit: SizeUnit::MB }
    }
    pub const fn mib(n: u64) -> Size {
        Size { bytes: n << 20, unit: SizeUnit::MiB }
    }
    pub fn as_bytes(self) -> u64 {
        self.bytes
    }
    pub fn unit(self) -> SizeUnit {
        self.unit
    }
    /// The same number of bytes, printed in `unit` when it divides evenly.
    pub fn with_unit(self, unit: SizeUnit) -> Size {
        Size { bytes: self.bytes, unit }
    }
}

impl std::str::FromStr for Size {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let units: Vec<(&str, u128)> = SIZE_UNITS.iter().map(|(n, u)| (*n, u.factor() as u128)).collect();
        match split_number(s) {
            Some((0, _, "")) => return Ok(Size::bytes(0)),
            Some((_, _, "")) => return err(bare_size(s.trim())),
            _ => {}
        }
        let bytes = parse_with_units(s, "size", &units, None, "`4KiB`, `150KB`, `16MB`, `9216B`")?;
        let unit = split_number(s)
            .and_then(|(_, _, u)| SIZE_UNITS.iter().find(|(n, _)| *n == u).map(|(_, su)| *su))
            .unwrap_or(SizeUnit::B);
        Ok(Size { bytes, unit })
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let factor = self.unit.factor();
        if self.bytes % factor == 0 {
            if self.unit == SizeUnit::B {
                write!(f, "{}B", self.bytes)
            } else {
                write!(f, "{}{}", self.bytes / factor, self.unit.suffix())
            }
        } else {
            let v = self.bytes as f64 / factor as f64;
            write!(f, "{}{}", trim_float(v), self.unit.suffix())
        }
    }
}

/// The error for a size written without its unit, suggesting the two readings that differ most.
fn bare_size(n: &str) -> String {
    format!("`{n}` has no unit; a size needs one: did you mean `{n}KB` ({n}000 bytes), `{n}KiB` or `{n}B` ({n} bytes)?")
}

serde_via_str!(Size, "a size with its unit such as `4KiB`, `150KB` or `9216B`", |v| if v == 0 {
    Ok(Size::bytes(0))
} else {
    err(bare_size(&v.to_string()))
});

/// A size in a field that is a byte count by definition: a frame's or packet's size, perftest's
/// `--size`, and fio's `bs` and `size`, which fio reads as bytes without a suffix (fio HOWTO,
/// "int": "if you want to specify 4096, you could either write out '4096' or just give 4k"). A
/// bare number is bytes there; with a unit it is any size. For
/// `#[serde(deserialize_with = "crate::units::bare_bytes")]`.
pub fn bare_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
    d.deserialize_any(BareBytes)
}

/// [`bare_bytes`] for an optional field (`#[serde(default, deserialize_with = …)]`).
pub fn bare_bytes_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Size>, D::Error> {
    struct Opt(Size);
    impl<'de> Deserialize<'de> for Opt {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Opt, D::Error> {
            bare_bytes(d).map(Opt)
        }
    }
    Ok(Option::<Opt>::deserialize(d)?.map(|o| o.0))
}

struct BareBytes;

impl<'de> Visitor<'de> for BareBytes {
    type Value = Size;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number of bytes, or a size such as `4KiB` or `1000B`")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
        Ok(Size::bytes(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
        u64::try_from(v).map(Size::bytes).map_err(|_| E::custom(format!("{v} is negative; expected a number of bytes")))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Size, E> {
        self.visit_str(&v.to_string())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
        match split_number(v) {
            Some((m, 0, "")) => {
                u64::try_from(m).map(Size::bytes).map_err(|_| E::custom(format!("`{v}` bytes is too large")))
            }
            _ => v.parse().map_err(|e: UnitError| E::custom(e.message)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Time

/// A duration or point in simulated time, in picoseconds (the simulator's clock unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

const TIME_UNITS: &[(&str, u128)] = &[
    ("ps", 1),
    ("ns", 1_000),
    ("us", 1_000_000),
    ("µs", 1_000_000),
    ("μs", 1_000_000),
    ("ms", 1_000_000_000),
    ("s", 1_000_000_000_000),
];

impl Time {
    pub const ZERO: Time = Time(0);
    pub const fn ps(v: u64) -> Time {
        Time(v)
    }
    pub const fn ns(v: u64) -> Time {
        Time(v * 1_000)
    }
    pub const fn us(v: u64) -> Time {
        Time(v * 1_000_000)
    }
    pub const fn ms(v: u64) -> Time {
        Time(v * 1_000_000_000)
    }
    pub fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
}

impl std::str::FromStr for Time {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        parse_with_units(s, "time", TIME_UNITS, None, "`500ns`, `5us`, `55µs`, `1ms`").map(Time)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_scaled(
            f,
            self.0 as u128,
            &[(1_000_000_000_000, "s"), (1_000_000_000, "ms"), (1_000_000, "us"), (1_000, "ns")],
            "ps",
        )
    }
}

serde_via_str!(Time, "a time such as `5us` or `1ms`", |v| if v == 0 {
    Ok(Time(0))
} else {
    err(format!("`{v}` has no unit; a time needs one, e.g. `{v}us` or `{v}ns`"))
});

// ---------------------------------------------------------------------------------------------
// Length

/// A cable length in millimetres.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Length(pub u64);

const LENGTH_UNITS: &[(&str, u128)] = &[("mm", 1), ("cm", 10), ("m", 1_000), ("km", 1_000_000)];

/// Signal propagation in copper and fibre is about two thirds of c, i.e. about 5 ns per metre
/// (the figure the PFC headroom guidance of IEEE 802.1Qbb Annex and switch vendors use).
pub const PROPAGATION_PS_PER_METRE: u64 = 5_000;

/// The longest cable a file may give: 1000 km. The longest standard Ethernet optics reach 80 to
/// 120 km (IEEE 802.3ct 100GBASE-ZR, OIF 400ZR), and a lossless link of this length would need
/// hundreds of megabytes of PFC headroom; the bound keeps every delay computed from a length
/// (5 ms here) far from overflow.
pub const MAX_LENGTH: Length = Length(1_000_000_000);

/// The longest one-way delay a link may be given instead of its length: that of [`MAX_LENGTH`],
/// 5 ms. A delay is the same quantity as a length (5 ns per metre), so it has the same bound:
/// without it a delay of hours stood for a cable of billions of kilometres.
pub const MAX_DELAY: Time = Time(MAX_LENGTH.0 * PROPAGATION_PS_PER_METRE / 1_000);

/// Why `delay` is too long for a link, if it is: the message for the error where it is written.
pub fn check_delay(delay: Time) -> Result<(), UnitError> {
    if delay <= MAX_DELAY {
        return Ok(());
    }
    err(format!(
        "a link delay of {delay} is that of a {} km cable, longer than the longest cable rocelab models: 1000 km, \
         {MAX_DELAY} at 5 ns per metre; a fabric's links have delays of nanoseconds to microseconds",
        trim_float(Length::from_propagation(delay).as_metres_f64() / 1_000.0)
    ))
}

impl Length {
    pub const fn metres(m: u64) -> Length {
        Length(m * 1_000)
    }
    pub fn as_mm(self) -> u64 {
        self.0
    }
    pub fn as_metres_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
    /// One-way propagation delay over this cable at 5 ns per metre.
    pub fn propagation(self) -> Time {
        // Lengths parsed from a file are at most `MAX_LENGTH`; saturating keeps a length made
        // another way from wrapping round to a short delay.
        Time(self.0.saturating_mul(PROPAGATION_PS_PER_METRE) / 1_000)
    }
    /// The cable length whose propagation delay is `t` (used for imported topologies that give
    /// delays instead of lengths).
    pub fn from_propagation(t: Time) -> Length {
        Length(t.0.saturating_mul(1_000) / PROPAGATION_PS_PER_METRE)
    }
}

impl std::str::FromStr for Length {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let mm = parse_with_units(s, "length", LENGTH_UNITS, None, "`3m`, `0.5m`, `100m`")?;
        if mm > MAX_LENGTH.0 {
            return err(format!(
                "`{s}` is longer than the longest cable rocelab models, 1000 km; a fabric's links are metres to \
                 tens of kilometres long"
            ));
        }
        Ok(Length(mm))
    }
}

impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 1_000 == 0 || self.0 >= 1_000 {
            write!(f, "{}m", trim_float(self.0 as f64 / 1_000.0))
        } else {
            write!(f, "{}mm", self.0)
        }
    }
}

serde_via_str!(Length, "a length such as `3m`", |v| if v == 0 {
    Ok(Length(0))
} else {
    err(format!("`{v}` has no unit; a cable length needs one, e.g. `{v}m`"))
});

// ---------------------------------------------------------------------------------------------

fn trim_float(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Writes `value` in the largest unit it reaches, with up to three decimals when that is exact
/// (`2.5G`, `1.5us`), else in the next smaller unit that is exact.
fn write_scaled(f: &mut fmt::Formatter<'_>, value: u128, units: &[(u128, &str)], base: &str) -> fmt::Result {
    for (factor, suffix) in units {
        if value >= *factor && (value * 1000) % factor == 0 {
            return write!(f, "{}{}", trim_float(value as f64 / *factor as f64), suffix);
        }
    }
    write!(f, "{value}{base}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_in_vendor_notation() {
        for (text, bps) in [
            ("25G", 25_000_000_000u64),
            ("25Gbps", 25_000_000_000),
            ("40Gb/s", 40_000_000_000),
            ("800G", 800_000_000_000),
            ("50Mb/s", 50_000_000),
            ("2.5G", 2_500_000_000),
            ("10GbE", 10_000_000_000),
        ] {
            assert_eq!(text.parse::<Rate>().unwrap(), Rate(bps), "{text}");
        }
        assert_eq!(Rate::gbps(100).to_string(), "100G");
        assert_eq!(Rate(2_500_000_000).to_string(), "2.5G");
        assert_eq!(Rate::mbps(40).to_string(), "40M");
    }

    #[test]
    fn rate_errors_say_what_is_expected() {
        let e = "25".parse::<Rate>().unwrap_err();
        assert!(e.message.contains("has no unit"), "{}", e.message);
        let e = "25gbps".parse::<Rate>().unwrap_err();
        assert!(e.message.contains("did you mean `Gbps`"), "{}", e.message);
        let e = "fast".parse::<Rate>().unwrap_err();
        assert!(e.message.contains("expected a number with a unit"), "{}", e.message);
    }

    #[test]
    fn cable_lengths_are_bounded_and_delays_never_wrap() {
        assert_eq!("1000km".parse::<Length>().unwrap(), MAX_LENGTH);
        assert_eq!(MAX_LENGTH.propagation(), Time::ms(5));
        let e = "9999999999999m".parse::<Length>().unwrap_err();
        assert!(e.message.contains("longer than the longest cable rocelab models, 1000 km"), "{}", e.message);
        assert!("1001km".parse::<Length>().is_err());
        assert_eq!(Length(u64::MAX).propagation(), Time(u64::MAX / 1_000));
    }

    #[test]
    fn link_delays_are_bounded_as_lengths_are() {
        assert_eq!(MAX_DELAY, MAX_LENGTH.propagation());
        assert!(check_delay(Time::ms(5)).is_ok());
        let e = check_delay(Time(Time::ms(5).0 + 1)).unwrap_err();
        assert!(e.message.contains("longer than the longest cable rocelab models: 1000 km, 5ms"), "{}", e.message);
        // Hours of delay: the length it stands for is named, not wrapped or saturated.
        let e = check_delay("18000s".parse().unwrap()).unwrap_err();
        assert!(e.message.starts_with("a link delay of 18000s is that of a 3600000000 km cable"), "{}", e.message);
    }

    /// `kmin: 150` was read as 150 bytes; it is an error suggesting the unit, but for zero.
    #[test]
    fn a_size_without_its_unit_is_refused_with_the_readings() {
        let e = "150".parse::<Size>().unwrap_err();
        assert_eq!(
            e.message,
            "`150` has no unit; a size needs one: did you mean `150KB` (150000 bytes), `150KiB` or `150B` (150 bytes)?"
        );
        assert!("1.5".parse::<Size>().unwrap_err().message.starts_with("`1.5` has no unit"));
        assert_eq!("0".parse::<Size>().unwrap(), Size::bytes(0));
        assert_eq!("150B".parse::<Size>().unwrap(), Size::bytes(150));
    }

    #[test]
    fn kb_and_kib_are_distinct_and_kept() {
        let kb: Size = "150KB".parse().unwrap();
        let kib: Size = "4KiB".parse().unwrap();
        assert_eq!(kb.as_bytes(), 150_000);
        assert_eq!(kib.as_bytes(), 4_096);
        assert_eq!(kb.to_string(), "150KB");
        assert_eq!(kib.to_string(), "4KiB");
        assert_ne!("1KB".parse::<Size>().unwrap(), "1KiB".parse::<Size>().unwrap());
        assert_eq!("9216B".parse::<Size>().unwrap().as_bytes(), 9216);
        assert_eq!("1.5KiB".parse::<Size>().unwrap().as_bytes(), 1536);
        assert!("0.5B".parse::<Size>().is_err());
    }

    #[test]
    fn times_in_every_notation() {
        assert_eq!("500ns".parse::<Time>().unwrap(), Time::ns(500));
        assert_eq!("5us".parse::<Time>().unwrap(), Time::us(5));
        assert_eq!("55µs".parse::<Time>().unwrap(), Time::us(55));
        assert_eq!("0.001ms".parse::<Time>().unwrap(), Time::us(1));
        assert_eq!("4s".parse::<Time>().unwrap(), Time::ms(4000));
        assert_eq!(Time::ns(1500).to_string(), "1.5us");
        assert_eq!(Time::us(55).to_string(), "55us");
    }

    #[test]
    fn cable_propagation_is_five_ns_per_metre() {
        let l: Length = "3m".parse().unwrap();
        assert_eq!(l.propagation(), Time::ns(15));
        assert_eq!("0.5m".parse::<Length>().unwrap().as_mm(), 500);
        assert_eq!(Length::from_propagation(Time::ns(1000)), Length::metres(200));
        assert_eq!(Length::metres(100).to_string(), "100m");
    }

    #[test]
    fn serialization_time_rounds_up() {
        // 1500 bytes at 100G: 120 ns exactly.
        assert_eq!(Rate::gbps(100).serialization_ps(1500), 120_000);
        // 1 byte at 3 bit/s does not divide: rounded up.
        assert_eq!(Rate(3).serialization_ps(1), 2_666_666_666_667);
    }

    #[test]
    fn display_round_trips() {
        for s in ["25G", "100G", "40M", "150KB", "4KiB", "16MB", "5us", "1ms", "3m", "2.5m"] {
            let shown = match s {
                _ if s.ends_with('G') || s.ends_with('M') && !s.ends_with("MB") => {
                    s.parse::<Rate>().unwrap().to_string()
                }
                _ if s.ends_with('B') => s.parse::<Size>().unwrap().to_string(),
                _ if s.ends_with('s') => s.parse::<Time>().unwrap().to_string(),
                _ => s.parse::<Length>().unwrap().to_string(),
            };
            assert_eq!(shown, s);
        }
    }
}
