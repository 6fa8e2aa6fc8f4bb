//! RDMA transport settings of the RC queue pairs: the window of packets or bytes in flight, how
//! often the responder acknowledges, the class ACKs travel in, the local ACK timeout and retry
//! count, and how congestion is signalled back (a CNP packet or a flag on the ACK).
//!
//! They are written fabric-wide (`fabric.rdma`), per adapter (`nic: {…, transport: {…}}`) and,
//! the window alone, per workload entry; what is not written comes from the simulation model's
//! profile (`simulation.model.profile`, see [`crate::simmodel`]): `hardware` (NVIDIA ConnectX
//! queue pairs as perftest sets them up) or `hpcc-compat` (the ns-3 HPCC simulator's rdma-hw.cc).
//! [`crate::ResolvedFabric::rdma_transport`] merges them with the source of every value.

use crate::simmodel::SimProfile;
use crate::units::{Size, Time};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// Transport settings as written; every field optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RdmaTransport {
    /// Most data in flight (sent, not acknowledged) per queue pair: `none`, a number of packets
    /// or a size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// The responder acknowledges the end of every message and every this many packets (at
    /// least 1). The InfiniBand specification lets a responder coalesce ACKs (IBA vol. 1
    /// §9.7.5.1.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_every: Option<u32>,
    /// The class (of `qos.classes`) ACKs and NAKs travel in; default the queue pair's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_class: Option<String>,
    /// Local ACK timeout: the IBA exponent (0-31: 4.096 µs × 2ⁿ, 0 disables the timer) or a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<AckTimeout>,
    /// Retransmissions after timeouts before the queue pair fails: 0-7 (a 3-bit field, IBA vol. 1
    /// §9.7.6.1.3; `ibv_modify_qp` `retry_cnt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_count: Option<u8>,
    /// How the notification point signals congestion: `packet` or `ack-flag`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnp: Option<CnpMode>,
}

/// Most data a queue pair keeps in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// No window: the rate limiter alone paces the queue pair.
    None,
    /// At most this many packets (at least 1).
    Packets(u32),
    /// At most this many bytes (above 0).
    Bytes(Size),
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Window::None => f.write_str("none"),
            Window::Packets(n) => write!(f, "{n} packets"),
            Window::Bytes(s) => write!(f, "{s}"),
        }
    }
}

impl Serialize for Window {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Window::None => s.serialize_str("none"),
            Window::Packets(n) => s.serialize_u32(*n),
            Window::Bytes(b) => b.serialize(s),
        }
    }
}

pub(crate) const WINDOW_EXPECTED: &str =
    "`none`, a number of packets such as `16`, or a size with a unit such as `64KB`";

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Window;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(WINDOW_EXPECTED)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Window, E> {
                u32::try_from(v)
                    .map(Window::Packets)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &"a number of packets up to 4294967295"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Window, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Window, E> {
                let t = v.trim();
                if t == "none" {
                    return Ok(Window::None);
                }
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    return t
                        .parse::<u64>()
                        .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
                        .and_then(|n| self.visit_u64(n));
                }
                if t.starts_with(|c: char| c.is_ascii_digit()) {
                    return t.parse::<Size>().map(Window::Bytes).map_err(|e| E::custom(e.message));
                }
                Err(E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

/// The local ACK timeout of a queue pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckTimeout {
    /// The IBA exponent n (QP attribute `timeout`, 0-31): 4.096 µs × 2ⁿ; 0 disables the timer
    /// (IBA vol. 1 §9.7.6.1.3, `ibv_modify_qp(3)`).
    Exponent(u8),
    /// A time.
    Time(Time),
}

impl AckTimeout {
    /// The timeout, or none for exponent 0 (no timer).
    pub fn duration(self) -> Option<Time> {
        match self {
            AckTimeout::Exponent(0) => None,
            AckTimeout::Exponent(n) => Some(Time(Time::ns(4096).as_ps() << n.min(31))),
            AckTimeout::Time(t) => Some(t),
        }
    }
}

impl fmt::Display for AckTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, self.duration()) {
            (AckTimeout::Exponent(n), Some(t)) => write!(f, "{n} ({})", round_time(t)),
            (AckTimeout::Exponent(n), None) => write!(f, "{n} (no timer)"),
            (AckTimeout::Time(t), _) => write!(f, "{t}"),
        }
    }
}

/// `67.1ms` for 67.108864 ms: four significant digits are enough to read a timeout.
fn round_time(t: Time) -> String {
    let ps = t.as_ps();
    let digits = ps.checked_ilog10().unwrap_or(0);
    let keep = 10u64.pow(digits.saturating_sub(3));
    Time((ps / keep) * keep).to_string()
}

impl Serialize for AckTimeout {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AckTimeout::Exponent(n) => s.serialize_u8(*n),
            AckTimeout::Time(t) => t.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for AckTimeout {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AckTimeout;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the IBA local ACK timeout exponent 0-31 (4.096 µs × 2ⁿ), or a time such as `67ms`")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<AckTimeout, E> {
                u8::try_from(v)
                    .map(AckTimeout::Exponent)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<AckTimeout, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AckTimeout, E> {
                let t = v.trim();
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    return t
                        .parse::<u64>()
                        .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
                        .and_then(|n| self.visit_u64(n));
                }
                t.parse::<Time>().map(AckTimeout::Time).map_err(|e| E::custom(e.message))
            }
        }
        d.deserialize_any(V)
    }
}

/// How the notification point tells the sender about CE-marked packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CnpMode {
    /// A RoCEv2 CNP packet (BTH opcode 0x81, IBA Annex A17), at most one per `cnp_interval`.
    Packet,
    /// A flag on the ACK of a marked packet, as the ns-3 HPCC simulator does (rdma-hw.cc
    /// `ReceiveUdp`, qbbHeader `FLAG_CNP`).
    AckFlag,
}

/// Every transport setting of a queue pair, resolved, with where each value came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedTransport {
    pub window: Window,
    pub ack_every: u32,
    /// The class ACKs travel in, by name; none: the queue pair's own.
    pub ack_class: Option<String>,
    pub timeout: AckTimeout,
    pub retry_count: u8,
    pub cnp: CnpMode,
    /// For each field: `set on the adapter`, `set in fabric.rdma`, or the profile and its source.
    pub sources: BTreeMap<&'static str, String>,
}

impl ResolvedTransport {
    /// Equal settings, whatever their sources.
    pub fn same_values(&self, o: &ResolvedTransport) -> bool {
        (self.window, self.ack_every, &self.ack_class, self.timeout, self.retry_count, self.cnp)
            == (o.window, o.ack_every, &o.ack_class, o.timeout, o.retry_count, o.cnp)
    }
}

/// A profile's default of every transport field, each with its source.
struct Defaults {
    window: (Window, &'static str),
    ack_every: (u32, &'static str),
    ack_class: (Option<String>, &'static str),
    timeout: (AckTimeout, &'static str),
    retry_count: (u8, &'static str),
    cnp: (CnpMode, &'static str),
}

fn defaults(profile: SimProfile) -> Defaults {
    match profile {
        SimProfile::Hardware => Defaults {
            window: (
                Window::None,
                "hardware profile: NVIDIA ConnectX: an RC queue pair doing RDMA WRITE is paced by its rate limiter, not a window; the 24-bit PSN space bounds it (IBA vol. 1 §9.7)",
            ),
            ack_every: (
                16,
                "hardware profile: NVIDIA ConnectX coalesces ACKs by an undocumented rule (IBA vol. 1 §9.7.5.1.2 allows it); rocelab acknowledges every message end and every 16 packets",
            ),
            ack_class: (None, "hardware profile: NVIDIA ConnectX: ACKs travel in the queue pair's own class"),
            timeout: (
                AckTimeout::Exponent(14),
                "hardware profile: NVIDIA ConnectX with perftest's QP timeout exponent 14 (DEF_QP_TIME; IBA vol. 1 §9.7.6.1.3)",
            ),
            retry_count: (
                7,
                "hardware profile: NVIDIA ConnectX with perftest's retry_cnt 7, the most the 3-bit field allows (IBA vol. 1 §9.7.6.1.3)",
            ),
            cnp: (
                CnpMode::Packet,
                "hardware profile: NVIDIA ConnectX: the notification point sends a RoCEv2 CNP (IBA Annex A17)",
            ),
        },
        SimProfile::HpccCompat => Defaults {
            window: (Window::None, "hpcc-compat profile: ns-3 HPCC simulator HAS_WIN 0 (third.cc): no window"),
            ack_every: (
                1,
                "hpcc-compat profile: ns-3 HPCC simulator L2_ACK_INTERVAL 1 (rdma-hw.cc ReceiverCheckSeq): an ACK per packet",
            ),
            ack_class: (
                None,
                "hpcc-compat profile: ns-3 HPCC simulator: the queue pair's own class (its ACK_HIGH_PRIO 1 puts ACKs in the top-priority queue: name a strict class in `ack_class` for that)",
            ),
            timeout: (
                AckTimeout::Exponent(14),
                "hpcc-compat profile: ns-3 HPCC simulator recovers by NACK and go-back-N and sets no timer (rdma-hw.cc); rocelab keeps the exponent 14 of the hardware profile",
            ),
            retry_count: (
                7,
                "hpcc-compat profile: ns-3 HPCC simulator has no retry limit (rdma-hw.cc); rocelab keeps the 7 of the hardware profile",
            ),
            cnp: (
                CnpMode::AckFlag,
                "hpcc-compat profile: ns-3 HPCC simulator: a CNP flag on the ACK of a marked packet (rdma-hw.cc ReceiveUdp)",
            ),
        },
    }
}

/// Merges the adapter's settings over the fabric's over the profile's defaults.
pub fn resolve(
    adapter: Option<&RdmaTransport>,
    fabric: Option<&RdmaTransport>,
    profile: SimProfile,
) -> ResolvedTransport {
    let d = defaults(profile);
    let mut sources = BTreeMap::new();
    fn pick<T>(
        name: &'static str,
        adapter: Option<T>,
        fabric: Option<T>,
        default: (T, &'static str),
        sources: &mut BTreeMap<&'static str, String>,
    ) -> T {
        let (v, src) = match (adapter, fabric) {
            (Some(v), _) => (v, "set on the adapter"),
            (None, Some(v)) => (v, "set in fabric.rdma"),
            (None, None) => default,
        };
        sources.insert(name, src.to_string());
        v
    }
    let (a, f) = (adapter, fabric);
    let window = pick("window", a.and_then(|t| t.window), f.and_then(|t| t.window), d.window, &mut sources);
    let ack_every =
        pick("ack_every", a.and_then(|t| t.ack_every), f.and_then(|t| t.ack_every), d.ack_every, &mut sources);
    let class = |t: Option<&RdmaTransport>| t.and_then(|t| t.ack_class.clone()).map(Some);
    let ack_class = pick("ack_class", class(a), class(f), d.ack_class, &mut sources);
    let timeout = pick("timeout", a.and_then(|t| t.timeout), f.and_then(|t| t.timeout), d.timeout, &mut sources);
    let retry_count =
        pick("retry_count", a.and_then(|t| t.retry_count), f.and_then(|t| t.retry_count), d.retry_count, &mut sources);
    let cnp = pick("cnp", a.and_then(|t| t.cnp), f.and_then(|t| t.cnp), d.cnp, &mut sources);
    ResolvedTransport { window, ack_every, ack_class, timeout, retry_count, cnp, sources }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapter_over_fabric_over_profile() {
        let fabric = RdmaTransport { ack_every: Some(4), cnp: Some(CnpMode::AckFlag), ..Default::default() };
        let nic = RdmaTransport { ack_every: Some(2), window: Some(Window::Packets(64)), ..Default::default() };
        let r = resolve(Some(&nic), Some(&fabric), SimProfile::Hardware);
        assert_eq!((r.window, r.ack_every, r.cnp), (Window::Packets(64), 2, CnpMode::AckFlag));
        assert_eq!(r.sources["window"], "set on the adapter");
        assert_eq!(r.sources["cnp"], "set in fabric.rdma");
        assert!(r.sources["timeout"].starts_with("hardware profile: NVIDIA ConnectX"), "{}", r.sources["timeout"]);
        assert_eq!((r.timeout, r.retry_count, r.ack_class.as_deref()), (AckTimeout::Exponent(14), 7, None));
        let h = resolve(None, None, SimProfile::HpccCompat);
        assert_eq!((h.window, h.ack_every, h.cnp), (Window::None, 1, CnpMode::AckFlag));
        assert!(h.sources["ack_every"].starts_with("hpcc-compat profile: ns-3 HPCC"));
        assert!(!h.same_values(&r) && h.same_values(&h.clone()));
    }

    #[test]
    fn timeout_exponent_is_4096ns_times_two_to_the_n() {
        assert_eq!(AckTimeout::Exponent(14).duration(), Some(Time::ps(4_096_000 << 14)));
        assert_eq!(AckTimeout::Exponent(14).to_string(), "14 (67.1ms)");
        assert_eq!(AckTimeout::Exponent(0).duration(), None);
        assert_eq!(AckTimeout::Exponent(31).duration(), Some(Time(4_096_000u64 << 31)));
        assert_eq!(AckTimeout::Time(Time::ms(67)).to_string(), "67ms");
    }

    #[test]
    fn window_and_timeout_forms_round_trip_through_json() {
        for (text, w) in
            [("\"none\"", Window::None), ("16", Window::Packets(16)), ("\"64KB\"", Window::Bytes(Size::kb(64)))]
        {
            assert_eq!(serde_json::from_str::<Window>(text).unwrap(), w, "{text}");
            assert_eq!(serde_json::to_string(&w).unwrap(), text);
        }
        assert!(serde_json::from_str::<Window>("\"nope\"").is_err());
        assert!(serde_json::from_str::<Window>("\"64 parsecs\"").is_err());
        for (text, t) in [("14", AckTimeout::Exponent(14)), ("\"67ms\"", AckTimeout::Time(Time::ms(67)))] {
            assert_eq!(serde_json::from_str::<AckTimeout>(text).unwrap(), t);
            assert_eq!(serde_json::to_string(&t).unwrap(), text);
        }
    }
}
