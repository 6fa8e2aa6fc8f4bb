//! The ns-3 HPCC simulator's `config.txt` (alibaba-edu/High-Precision-Congestion-Control;
//! every key documented in its `mix/config_doc.txt`), read into typed settings the way its
//! `scratch/third.cc` reads it: one `KEY value…` per line, the last setting of a key wins, and a
//! key that is not set keeps third.cc's default. Every problem is a located [`Diagnostic`]
//! (line and column in the config file; the caller names the file).
//!
//! [`crate::hpcc_import`] maps the settings onto a rocelab scenario.

use crate::columns::columns;
use crate::diag::{did_you_mean, Diagnostic, Mark};
use crate::units::{Rate, Time};
use std::collections::BTreeMap;

/// Most bytes of a config file rocelab reads (that simulator's own are about 1.5 KB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Most entries of one `KMAX_MAP`, `KMIN_MAP` or `PMAX_MAP`.
pub const MAX_MAP_ENTRIES: u64 = 64;

/// How a key's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An unsigned integer read as a switch: 0 off, anything else on.
    Flag,
    /// An unsigned integer.
    Uint,
    /// A decimal number (C++ `double`).
    Float,
    /// Seconds as a decimal number.
    Seconds,
    /// Microseconds as a decimal number.
    Micros,
    /// An ns-3 `DataRate` string (`20Mb/s`, `1Gbps`, `100MBps`).
    DataRate,
    /// A word (a file name).
    Text,
    /// `n rate1 k1 rate2 k2 …`: link rate in bit/s to a threshold in KB (1000 bytes).
    KMap,
    /// `n rate1 p1 …`: link rate in bit/s to a probability.
    PMap,
    /// `time a b`.
    LinkDown,
}

impl Kind {
    fn expected(self) -> &'static str {
        match self {
            Kind::Flag => "0 or 1",
            Kind::Uint => "a whole number, 0 or more",
            Kind::Float => "a number, e.g. `0.95`",
            Kind::Seconds => "seconds, e.g. `4.00`",
            Kind::Micros => "microseconds, e.g. `55`",
            Kind::DataRate => "an ns-3 data rate such as `20Mb/s`, `1Gbps` or `100MBps`",
            Kind::Text => "a file name",
            Kind::KMap => {
                "`<n> <rate in bit/s> <threshold in KB> …`, n pairs, e.g. `2 100000000000 400 400000000000 1600`"
            }
            Kind::PMap => "`<n> <rate in bit/s> <probability> …`, n pairs, e.g. `1 100000000000 0.2`",
            Kind::LinkDown => "`<microseconds after 2 s> <node> <node>`, e.g. `0 0 0` (no link down)",
        }
    }
}

/// Every key third.cc reads (the documented ones and `PAUSE_TIME`, `DATA_RATE`, `LINK_DELAY`).
const KEYS: &[(&str, Kind)] = &[
    ("ENABLE_QCN", Kind::Flag),
    ("USE_DYNAMIC_PFC_THRESHOLD", Kind::Flag),
    ("PACKET_PAYLOAD_SIZE", Kind::Uint),
    ("TOPOLOGY_FILE", Kind::Text),
    ("FLOW_FILE", Kind::Text),
    ("TRACE_FILE", Kind::Text),
    ("TRACE_OUTPUT_FILE", Kind::Text),
    ("FCT_OUTPUT_FILE", Kind::Text),
    ("PFC_OUTPUT_FILE", Kind::Text),
    ("SIMULATOR_STOP_TIME", Kind::Seconds),
    ("CC_MODE", Kind::Uint),
    ("ALPHA_RESUME_INTERVAL", Kind::Micros),
    ("RATE_DECREASE_INTERVAL", Kind::Micros),
    ("CLAMP_TARGET_RATE", Kind::Flag),
    ("RP_TIMER", Kind::Micros),
    ("EWMA_GAIN", Kind::Float),
    ("FAST_RECOVERY_TIMES", Kind::Uint),
    ("RATE_AI", Kind::DataRate),
    ("RATE_HAI", Kind::DataRate),
    ("MIN_RATE", Kind::DataRate),
    ("DCTCP_RATE_AI", Kind::DataRate),
    ("ERROR_RATE_PER_LINK", Kind::Float),
    ("L2_CHUNK_SIZE", Kind::Uint),
    ("L2_ACK_INTERVAL", Kind::Uint),
    ("L2_BACK_TO_ZERO", Kind::Flag),
    ("HAS_WIN", Kind::Flag),
    ("GLOBAL_T", Kind::Uint),
    ("VAR_WIN", Kind::Flag),
    ("FAST_REACT", Kind::Flag),
    ("U_TARGET", Kind::Float),
    ("MI_THRESH", Kind::Uint),
    ("INT_MULTI", Kind::Uint),
    ("MULTI_RATE", Kind::Flag),
    ("SAMPLE_FEEDBACK", Kind::Flag),
    ("PINT_LOG_BASE", Kind::Float),
    ("PINT_PROB", Kind::Float),
    ("RATE_BOUND", Kind::Flag),
    ("ACK_HIGH_PRIO", Kind::Flag),
    ("LINK_DOWN", Kind::LinkDown),
    ("ENABLE_TRACE", Kind::Flag),
    ("KMAX_MAP", Kind::KMap),
    ("KMIN_MAP", Kind::KMap),
    ("PMAX_MAP", Kind::PMap),
    ("BUFFER_SIZE", Kind::Uint),
    ("QLEN_MON_FILE", Kind::Text),
    ("QLEN_MON_START", Kind::Uint),
    ("QLEN_MON_END", Kind::Uint),
    ("PAUSE_TIME", Kind::Float),
    ("DATA_RATE", Kind::Text),
    ("LINK_DELAY", Kind::Text),
];

/// The keys third.cc reads.
pub fn known_keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter().map(|(k, _)| *k)
}

/// Where a key was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub line: usize,
    /// Column of the key.
    pub column: usize,
    /// Column of its first value.
    pub value_column: usize,
    /// The values as written, separated by single spaces.
    pub text: String,
}

impl Setting {
    pub fn mark(&self) -> Mark {
        Mark { line: self.line, column: self.value_column }
    }
}

/// One entry of a by-rate map, with the column of its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapEntry<T> {
    pub value: T,
    pub column: usize,
}

/// The settings of a config file; a key that is not set has third.cc's default.
#[derive(Debug, Clone, PartialEq)]
pub struct HpccConfig {
    pub enable_qcn: bool,
    pub use_dynamic_pfc_threshold: bool,
    /// PACKET_PAYLOAD_SIZE, bytes.
    pub payload: u32,
    pub topology_file: Option<String>,
    pub flow_file: Option<String>,
    pub simulator_stop_time: Time,
    pub cc_mode: u32,
    pub alpha_resume_interval: Time,
    pub rate_decrease_interval: Time,
    pub clamp_target_rate: bool,
    /// None: not set (third.cc's default, 0, would fire without end).
    pub rp_timer: Option<Time>,
    /// None: not set (third.cc's default `1 / 16` is an integer division: 0).
    pub ewma_gain: Option<f64>,
    pub fast_recovery_times: u32,
    /// None: not set (third.cc's default is an empty rate string).
    pub rate_ai: Option<Rate>,
    pub rate_hai: Option<Rate>,
    pub min_rate: Rate,
    pub error_rate_per_link: f64,
    pub l2_chunk_size: u64,
    pub l2_ack_interval: u64,
    pub l2_back_to_zero: bool,
    pub has_win: bool,
    pub global_t: u64,
    pub var_win: bool,
    pub rate_bound: bool,
    pub ack_high_prio: bool,
    /// LINK_DOWN: microseconds after 2 s, and the two nodes.
    pub link_down: [u64; 3],
    pub enable_trace: bool,
    /// KMAX_MAP: link rate to Kmax in KB (1000 bytes).
    pub kmax_map: BTreeMap<Rate, MapEntry<u64>>,
    pub kmin_map: BTreeMap<Rate, MapEntry<u64>>,
    pub pmax_map: BTreeMap<Rate, MapEntry<f64>>,
    /// BUFFER_SIZE, MiB per switch.
    pub buffer_size: u64,
    /// Where each key was last set.
    pub set: BTreeMap<&'static str, Setting>,
    /// Lines in the file.
    pub lines: usize,
}

impl Default for HpccConfig {
    /// third.cc's defaults (its global variables' initial values).
    fn default() -> Self {
        HpccConfig {
            enable_qcn: true,
            use_dynamic_pfc_threshold: true,
            payload: 1000,
            topology_file: None,
            flow_file: None,
            simulator_stop_time: Time::ms(3010),
            cc_mode: 1,
            alpha_resume_interval: Time::us(55),
            rate_decrease_interval: Time::us(4),
            clamp_target_rate: false,
            rp_timer: None,
            ewma_gain: None,
            fast_recovery_times: 5,
            rate_ai: None,
            rate_hai: None,
            min_rate: Rate::mbps(100),
            error_rate_per_link: 0.0,
            l2_chunk_size: 0,
            l2_ack_interval: 0,
            l2_back_to_zero: false,
            has_win: true,
            global_t: 1,
            var_win: false,
            rate_bound: true,
            ack_high_prio: false,
            link_down: [0; 3],
            enable_trace: true,
            kmax_map: BTreeMap::new(),
            kmin_map: BTreeMap::new(),
            pmax_map: BTreeMap::new(),
            buffer_size: 16,
            set: BTreeMap::new(),
            lines: 0,
        }
    }
}

impl HpccConfig {
    /// Where `key` was set, or line 1 when it was not (a diagnostic about a default).
    pub fn mark(&self, key: &str) -> Mark {
        self.set.get(key).map(Setting::mark).unwrap_or(Mark { line: 1, column: 1 })
    }
    /// `KEY value` as written, or `KEY (not set: that simulator's default <default>)`.
    pub fn shown(&self, key: &str, default: &str) -> String {
        match self.set.get(key) {
            Some(s) => format!("{key} {}", s.text),
            None => format!("{key} (not set: that simulator's default {default})"),
        }
    }
    pub fn is_set(&self, key: &str) -> bool {
        self.set.contains_key(key)
    }
}

/// Parses config text. The settings come back with every diagnostic (errors and warnings); the
/// settings are meaningful only when no diagnostic is an error.
pub fn parse_config(text: &str) -> (HpccConfig, Vec<Diagnostic>) {
    let mut cfg = HpccConfig::default();
    let mut diags = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        cfg.lines = ln;
        let cols: Vec<(usize, &str)> = columns(line).collect();
        let Some(&(kc, key)) = cols.first() else { continue };
        if key.starts_with('#') {
            continue;
        }
        let Some(&(name, kind)) = KEYS.iter().find(|(k, _)| *k == key) else {
            diags.push(
                Diagnostic::warning(
                    Mark { line: ln, column: kc },
                    "",
                    format!("unknown key `{key}` ignored (that simulator ignores it too)"),
                )
                .suggest(did_you_mean(key, known_keys())),
            );
            continue;
        };
        let vals = &cols[1..];
        let Some(&(vc, _)) = vals.first() else {
            diags.push(
                Diagnostic::error(Mark { line: ln, column: kc }, "", format!("{name} has no value"))
                    .expected(kind.expected()),
            );
            continue;
        };
        if let Some(prev) = cfg.set.get(name) {
            diags.push(Diagnostic::warning(
                Mark { line: ln, column: kc },
                "",
                format!(
                    "{name} is set again (first on line {}): this later value is used, as that simulator does",
                    prev.line
                ),
            ));
        }
        let used = match apply(&mut cfg, name, kind, ln, vals) {
            Ok(n) => n,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        if let Some(&(xc, _)) = vals.get(used) {
            let extra: Vec<&str> = vals[used..].iter().map(|(_, t)| *t).collect();
            diags.push(Diagnostic::warning(
                Mark { line: ln, column: xc },
                "",
                format!("`{}` after {name}'s value ignored", extra.join(" ")),
            ));
        }
        let text = vals[..used].iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" ");
        cfg.set.insert(name, Setting { line: ln, column: kc, value_column: vc, text });
    }
    (cfg, diags)
}

/// Reads `key`'s values into `cfg`; returns how many values it took.
fn apply(
    cfg: &mut HpccConfig,
    key: &'static str,
    kind: Kind,
    ln: usize,
    vals: &[(usize, &str)],
) -> Result<usize, Diagnostic> {
    let (vc, v) = vals[0];
    let at = Mark { line: ln, column: vc };
    let bad = |what: String| Diagnostic::error(at, "", what).expected(kind.expected());
    let uint = |t: &str| t.parse::<u64>().map_err(|_| bad(format!("{key} `{t}` is not a whole number")));
    let flag = |t: &str| uint(t).map(|n| n != 0).map_err(|_| bad(format!("{key} `{t}` is not 0 or 1")));
    let float = |t: &str| match t.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(f),
        _ => Err(bad(format!("{key} `{t}` is not a number"))),
    };
    match kind {
        Kind::KMap | Kind::PMap => return read_map(cfg, key, kind, ln, vals),
        Kind::LinkDown => {
            if vals.len() < 3 {
                return Err(bad(format!("{key} has {} of its 3 values", vals.len())));
            }
            for (i, (c, t)) in vals[..3].iter().enumerate() {
                cfg.link_down[i] = t.parse::<u64>().map_err(|_| {
                    Diagnostic::error(Mark { line: ln, column: *c }, "", format!("{key} `{t}` is not a whole number"))
                        .expected(kind.expected())
                })?;
            }
            return Ok(3);
        }
        _ => {}
    }
    match key {
        "ENABLE_QCN" => cfg.enable_qcn = flag(v)?,
        "USE_DYNAMIC_PFC_THRESHOLD" => cfg.use_dynamic_pfc_threshold = flag(v)?,
        "PACKET_PAYLOAD_SIZE" => {
            let n = uint(v)?;
            if !(64..=9000).contains(&n) {
                return Err(Diagnostic::error(
                    at,
                    "",
                    format!("PACKET_PAYLOAD_SIZE {n} is outside rocelab's payloads"),
                )
                .expected("64 to 9000 bytes"));
            }
            cfg.payload = n as u32;
        }
        "TOPOLOGY_FILE" => cfg.topology_file = Some(v.to_string()),
        "FLOW_FILE" => cfg.flow_file = Some(v.to_string()),
        "SIMULATOR_STOP_TIME" => {
            let t = time(v, "s", 1e12).ok_or_else(|| bad(format!("{key} `{v}` is not a time in seconds")))?;
            if t == Time::ZERO {
                return Err(bad(format!("{key} {v} ends the run before it starts")));
            }
            cfg.simulator_stop_time = t;
        }
        "CC_MODE" => {
            let n = uint(v).ok().filter(|n| [1, 3, 7, 8, 10].contains(n)).ok_or_else(|| {
                Diagnostic::error(at, "", format!("CC_MODE `{v}` is not a congestion control of that simulator"))
                    .expected("1 (DCQCN), 3 (HPCC), 7 (TIMELY), 8 (DCTCP) or 10 (HPCC-PINT)")
                    .suggest(Some("rocelab models DCQCN: `CC_MODE 1`".into()))
            })?;
            cfg.cc_mode = n as u32;
        }
        "ALPHA_RESUME_INTERVAL" | "RATE_DECREASE_INTERVAL" | "RP_TIMER" => {
            let t = time(v, "us", 1e6).ok_or_else(|| bad(format!("{key} `{v}` is not a time in microseconds")))?;
            match key {
                "ALPHA_RESUME_INTERVAL" => cfg.alpha_resume_interval = t,
                "RATE_DECREASE_INTERVAL" => cfg.rate_decrease_interval = t,
                _ => cfg.rp_timer = Some(t),
            }
        }
        "CLAMP_TARGET_RATE" => cfg.clamp_target_rate = flag(v)?,
        "EWMA_GAIN" => cfg.ewma_gain = Some(float(v)?),
        "FAST_RECOVERY_TIMES" => {
            cfg.fast_recovery_times = u32::try_from(uint(v)?).map_err(|_| bad(format!("{key} {v} is too large")))?
        }
        "RATE_AI" | "RATE_HAI" | "MIN_RATE" | "DCTCP_RATE_AI" => {
            let r = ns3_rate(v).map_err(|m| bad(format!("{key} {m}")))?;
            match key {
                "RATE_AI" => cfg.rate_ai = Some(r),
                "RATE_HAI" => cfg.rate_hai = Some(r),
                "MIN_RATE" => cfg.min_rate = r,
                _ => {}
            }
        }
        "ERROR_RATE_PER_LINK" => {
            let e = float(v)?;
            if !(0.0..=1.0).contains(&e) {
                return Err(Diagnostic::error(at, "", format!("{key} {v} is not a probability")).expected("0 to 1"));
            }
            cfg.error_rate_per_link = e;
        }
        "L2_CHUNK_SIZE" => cfg.l2_chunk_size = uint(v)?,
        "L2_ACK_INTERVAL" => cfg.l2_ack_interval = uint(v)?,
        "L2_BACK_TO_ZERO" => cfg.l2_back_to_zero = flag(v)?,
        "HAS_WIN" => cfg.has_win = flag(v)?,
        "GLOBAL_T" => cfg.global_t = uint(v)?,
        "VAR_WIN" => cfg.var_win = flag(v)?,
        "RATE_BOUND" => cfg.rate_bound = flag(v)?,
        "ACK_HIGH_PRIO" => cfg.ack_high_prio = flag(v)?,
        "ENABLE_TRACE" => cfg.enable_trace = flag(v)?,
        "BUFFER_SIZE" => {
            let n = uint(v)?;
            // third.cc multiplies by 1024 * 1024 in 32 bits.
            if !(1..4096).contains(&n) {
                return Err(Diagnostic::error(
                    at,
                    "",
                    format!("BUFFER_SIZE {n} is not a switch buffer that simulator can hold"),
                )
                .expected("1 to 4095 (MiB; third.cc computes the bytes in 32 bits)"));
            }
            cfg.buffer_size = n;
        }
        _ => match kind {
            // Read for their form only: rocelab does not use their values.
            Kind::Flag => drop(flag(v)?),
            Kind::Uint => drop(uint(v)?),
            Kind::Float => drop(float(v)?),
            _ => {}
        },
    }
    Ok(1)
}

/// `KMAX_MAP`, `KMIN_MAP`, `PMAX_MAP`: `n`, then `n` pairs of a rate in bit/s and a value.
fn read_map(
    cfg: &mut HpccConfig,
    key: &'static str,
    kind: Kind,
    ln: usize,
    vals: &[(usize, &str)],
) -> Result<usize, Diagnostic> {
    let (nc, nt) = vals[0];
    let err = |c: usize, m: String| Diagnostic::error(Mark { line: ln, column: c }, "", m).expected(kind.expected());
    let n = nt.parse::<u64>().map_err(|_| err(nc, format!("{key} count `{nt}` is not a whole number")))?;
    if n > MAX_MAP_ENTRIES {
        return Err(err(nc, format!("{key} count {n} is above the {MAX_MAP_ENTRIES} entries rocelab reads")));
    }
    let have = (vals.len() - 1) as u64;
    if have < 2 * n {
        return Err(err(
            nc,
            format!("{key} says {n} entries, the line has {have} values after the count (needs {})", 2 * n),
        )
        .suggest(Some(format!("write {} rate-value pairs, or a count of {}", n, have / 2))));
    }
    let mut entries = Vec::new();
    for pair in vals[1..1 + 2 * n as usize].chunks(2) {
        let ((rc, rt), (vc, vt)) = (pair[0], pair[1]);
        let rate = match rt.parse::<u64>() {
            Ok(r) if r > 0 => Rate(r),
            _ => return Err(err(rc, format!("{key} rate `{rt}` is not a link rate in bit/s"))),
        };
        entries.push((rate, vc, vt));
    }
    match kind {
        Kind::KMap => {
            let mut m = BTreeMap::new();
            for (rate, vc, vt) in entries {
                let k = vt
                    .parse::<u32>()
                    .map_err(|_| err(vc, format!("{key} threshold `{vt}` is not a whole number of KB")))?;
                m.insert(rate, MapEntry { value: k as u64, column: vc });
            }
            if key == "KMAX_MAP" {
                cfg.kmax_map = m;
            } else {
                cfg.kmin_map = m;
            }
        }
        _ => {
            let mut m = BTreeMap::new();
            for (rate, vc, vt) in entries {
                match vt.parse::<f64>() {
                    Ok(p) if (0.0..=1.0).contains(&p) => m.insert(rate, MapEntry { value: p, column: vc }),
                    _ => return Err(err(vc, format!("{key} value `{vt}` is not a probability from 0 to 1"))),
                };
            }
            cfg.pmax_map = m;
        }
    }
    Ok(1 + 2 * n as usize)
}

/// A decimal number of `unit` (`s`: seconds, `us`: microseconds) as a time; exact when written
/// in decimals, else (an exponent) rounded to the picosecond.
fn time(text: &str, unit: &str, ps_per_unit: f64) -> Option<Time> {
    if let Ok(t) = format!("{text}{unit}").parse::<Time>() {
        return Some(t);
    }
    let v = text.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)?;
    let ps = (v * ps_per_unit).round();
    (ps < u64::MAX as f64).then_some(Time(ps as u64))
}

/// The units of an ns-3 `DataRate` string (src/network/utils/data-rate.cc) in bit/s: `B` is a
/// byte, `Ki`/`Mi`/`Gi` binary prefixes.
const NS3_RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("b/s", 1),
    ("Bps", 8),
    ("B/s", 8),
    ("kbps", 1_000),
    ("kb/s", 1_000),
    ("Kbps", 1_000),
    ("Kb/s", 1_000),
    ("kBps", 8_000),
    ("kB/s", 8_000),
    ("KBps", 8_000),
    ("KB/s", 8_000),
    ("Kib/s", 1 << 10),
    ("KiB/s", 8 << 10),
    ("Mbps", 1_000_000),
    ("Mb/s", 1_000_000),
    ("MBps", 8_000_000),
    ("MB/s", 8_000_000),
    ("Mib/s", 1 << 20),
    ("MiB/s", 8 << 20),
    ("Gbps", 1_000_000_000),
    ("Gb/s", 1_000_000_000),
    ("GBps", 8_000_000_000),
    ("GB/s", 8_000_000_000),
    ("Gib/s", 1 << 30),
    ("GiB/s", 8 << 30),
];

/// Reads an ns-3 `DataRate` string as that simulator does: a decimal number and a unit, the
/// bit rate truncated to a whole bit/s; a bare whole number is bit/s.
pub fn ns3_rate(text: &str) -> Result<Rate, String> {
    let end = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (num, unit) = text.split_at(end);
    let mut parts = num.splitn(2, '.');
    let (int, frac) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let digits = format!("{int}{frac}");
    let bad = || format!("`{text}` is not a data rate");
    if digits.is_empty() || frac.contains('.') || digits.len() > 30 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let mantissa: u128 = digits.parse().map_err(|_| bad())?;
    let factor = if unit.is_empty() {
        if !frac.is_empty() {
            return Err(bad());
        }
        1
    } else {
        NS3_RATE_UNITS
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|(_, f)| *f)
            .ok_or_else(|| format!("`{text}`: unknown unit `{unit}`"))?
    };
    let bps = mantissa * factor / 10u128.pow(frac.len() as u32);
    u64::try_from(bps).map(Rate).map_err(|_| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(name: &str) -> String {
        std::fs::read_to_string(format!("/work/shared/data/hpcc-reference/{name}/config.txt")).unwrap()
    }

    #[test]
    fn the_reference_configs_read_without_diagnostics() {
        for name in ["fair2", "dcqcn_fat", "incast16_dcqcn", "incast16_pfconly", "incast16_4MB_pfconly"] {
            let (c, d) = parse_config(&reference(name));
            assert!(d.is_empty(), "{name}: {d:#?}");
            assert_eq!((c.cc_mode, c.payload, c.buffer_size, c.ack_high_prio), (1, 1000, 32, true));
        }
        let (c, d) = parse_config(&reference("fair2"));
        assert!(d.is_empty());
        assert_eq!(c.simulator_stop_time, Time::ms(4000));
        assert_eq!(
            (c.alpha_resume_interval, c.rate_decrease_interval, c.rp_timer),
            (Time::us(1), Time::us(4), Some(Time::us(300)))
        );
        assert_eq!((c.ewma_gain, c.fast_recovery_times), (Some(0.00390625), 1));
        assert_eq!(
            (c.rate_ai, c.rate_hai, c.min_rate),
            (Some(Rate::mbps(20)), Some(Rate::mbps(200)), Rate::mbps(1000))
        );
        assert_eq!(c.kmax_map[&Rate::gbps(400)].value, 6400);
        assert_eq!(c.kmin_map[&Rate::gbps(100)].value, 400);
        assert_eq!(c.pmax_map[&Rate::gbps(100)].value, 0.2);
        assert_eq!((c.l2_chunk_size, c.l2_ack_interval, c.has_win, c.global_t), (4000, 1, false, 1));
        assert_eq!(c.topology_file.as_deref(), Some("star17.txt"));
        assert_eq!(c.set["CC_MODE"], Setting { line: 15, column: 1, value_column: 9, text: "1".into() });
        let (c, _) = parse_config(&reference("incast16_pfconly"));
        assert_eq!(c.kmin_map[&Rate::gbps(400)].value, 1_000_000);
    }

    #[test]
    fn the_documented_example_reads_with_its_own_values() {
        let text = std::fs::read_to_string("/work/shared/data/hpcc-formats/config.txt").unwrap();
        let (c, d) = parse_config(&text);
        assert!(d.is_empty(), "{d:#?}");
        assert_eq!((c.cc_mode, c.has_win, c.var_win, c.ack_high_prio), (3, true, true, false));
        assert_eq!(c.kmax_map.len(), 3);
        assert_eq!(c.kmin_map[&Rate::gbps(25)].value, 100);
        assert_eq!(c.rp_timer, Some(Time::us(900)));
        // config_doc.txt: every value followed by its `{…}` documentation, read as extra words.
        let doc = std::fs::read_to_string("/work/shared/data/hpcc-formats/config_doc.txt").unwrap();
        let (_, d) = parse_config(&doc);
        assert!(d.iter().all(|d| !d.is_error()), "{d:#?}");
        assert!(
            d[0].message.contains("`{0: disable, 1: enable}` after ENABLE_QCN's value ignored"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn ns3_rates_read_as_that_simulator_reads_them() {
        for (text, bps) in [
            ("20Mb/s", 20_000_000u64),
            ("1000Mb/s", 1_000_000_000),
            ("100Gbps", 100_000_000_000),
            ("2.5Gb/s", 2_500_000_000),
            ("10MBps", 80_000_000),
            ("1Kib/s", 1024),
            ("5000", 5000),
        ] {
            assert_eq!(ns3_rate(text), Ok(Rate(bps)), "{text}");
        }
        assert!(ns3_rate("fast").is_err());
        assert!(ns3_rate("20mb/s").unwrap_err().contains("unknown unit `mb/s`"));
        assert!(ns3_rate("1.5").is_err());
    }

    #[test]
    fn errors_and_warnings_are_located() {
        let text = "CC_MODE 2\nRP_TIMER\nRATE_AI 20 Mb/s\nKMAX_MAP 2 100000000000 1600\nENABLE_QNC 1\nPMAX_MAP 1 100000000000 2\n\
                    BUFFER_SIZE 4096\nSIMULATOR_STOP_TIME soon\nENABLE_QCN 1 extra\nENABLE_QCN 0\n";
        let (c, d) = parse_config(text);
        let got: Vec<(usize, usize, bool)> = d.iter().map(|d| (d.line, d.column, d.is_error())).collect();
        assert_eq!(
            got,
            [
                (1, 9, true),
                (2, 1, true),
                (3, 12, false),
                (4, 10, true),
                (5, 1, false),
                (6, 25, true),
                (7, 13, true),
                (8, 21, true),
                (9, 14, false),
                (10, 1, false)
            ],
            "{d:#?}"
        );
        assert_eq!(d[0].expected.as_deref(), Some("1 (DCQCN), 3 (HPCC), 7 (TIMELY), 8 (DCTCP) or 10 (HPCC-PINT)"));
        assert_eq!(d[1].message, "RP_TIMER has no value");
        assert_eq!(d[1].expected.as_deref(), Some("microseconds, e.g. `55`"));
        // `RATE_AI 20 Mb/s`: the rate is `20` (bit/s), as that simulator reads it, and `Mb/s` an
        // ignored extra word.
        assert!(d[2].message.contains("`Mb/s` after RATE_AI's value ignored"), "{}", d[2].message);
        assert_eq!(c.rate_ai, Some(Rate(20)));
        assert!(d[3].message.contains("says 2 entries, the line has 2 values"), "{}", d[3].message);
        assert_eq!(d[3].suggestion.as_deref(), Some("write 2 rate-value pairs, or a count of 1"));
        assert_eq!(d[4].suggestion.as_deref(), Some("did you mean \"ENABLE_QCN\"?"));
        assert!(d[5].message.contains("not a probability"), "{}", d[5].message);
        assert!(d[8].message.contains("`extra` after ENABLE_QCN's value ignored"), "{}", d[8].message);
        assert!(d[9].message.contains("set again (first on line 9)"), "{}", d[9].message);
        assert!(!c.enable_qcn, "the last setting wins");
    }
}
