//! The fabric's QoS intent: how RDMA and storage traffic is marked (PCP on a VLAN, or DSCP),
//! which traffic classes exist with their priority, DSCP values, losslessness (PFC), ETS share,
//! ECN thresholds, the CNP class, DCQCN parameters, MTU, buffer settings, and per-port
//! overrides. Vendor-independent; `rocelab-config` renders it per platform.

pub use crate::dcqcn::*;
use crate::de::recover_vec;
pub use crate::speed::BySpeed;
use crate::units::{Size, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How switches and NICs classify traffic into priorities ("trust mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Marking {
    /// IEEE 802.1p priority code point in an 802.1Q VLAN tag (needs a VLAN).
    #[default]
    Pcp,
    /// DiffServ code point in the IP header (RFC 2474); survives routing, works untagged.
    Dscp,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qos {
    /// Trust mode: `pcp` (with `vlan`) or `dscp`.
    #[serde(default)]
    pub marking: Marking,
    /// The VLAN that carries the lossless traffic when marking is `pcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vlan: Option<u16>,
    #[serde(deserialize_with = "recover_vec")]
    pub classes: Vec<TrafficClass>,
    #[serde(default)]
    pub dcqcn: Dcqcn,
    /// Port MTU in bytes (layer-2 payload). Default 1500, the IEEE 802.3 default; RoCE and
    /// iSCSI fabrics usually raise it to 9000-9216 ("jumbo frames").
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// RoCE path MTU (the InfiniBand MTU: 256, 512, 1024, 2048 or 4096 bytes of payload).
    /// Default: the largest that fits in the port MTU, as `rdma_cm` chooses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roce_mtu: Option<u32>,
    #[serde(default)]
    pub pfc: Pfc,
    #[serde(default)]
    pub buffer: Buffer,
    /// Settings that differ on some ports.
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortOverride>,
    /// The IP ToS byte RDMA adapters put on RoCEv2 packets (mlx5 `cma_roce_tos`, Broadcom
    /// `bnxt_re` `cc_mode`/ToS, Windows `Set-NetQosPolicy -DSCPAction`). Default: the first
    /// lossless class's first DSCP in the upper six bits and ECT(0) in the ECN bits, so DSCP 26
    /// gives the ToS 106 the NVIDIA RoCE guides use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roce_tos: Option<u8>,
    /// DCBX (IEEE 802.1Qaz clause 38): who may take DCB settings from its peer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcbx: Option<Dcbx>,
}

/// DCBX willingness by role. The usual intent (NVIDIA and Microsoft RoCE guides): switches
/// advertise and are not willing, hosts either configure themselves and ignore DCBX or are
/// willing and take the switch's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dcbx {
    /// Switch ports accept their peer's settings.
    #[serde(default)]
    pub switches_willing: bool,
    /// Host and storage ports accept the switch's settings.
    #[serde(default)]
    pub hosts_willing: bool,
}

fn default_mtu() -> u32 {
    1500
}

impl Qos {
    pub fn class(&self, name: &str) -> Option<&TrafficClass> {
        self.classes.iter().find(|c| c.name == name)
    }
    /// The class that carries CNPs: the one marked `cnp: true`.
    pub fn cnp_class(&self) -> Option<&TrafficClass> {
        self.classes.iter().find(|c| c.cnp)
    }
    pub fn lossless_classes(&self) -> impl Iterator<Item = &TrafficClass> {
        self.classes.iter().filter(|c| c.lossless)
    }
    /// The class RDMA traffic travels in: the first lossless one.
    pub fn rdma_class(&self) -> Option<&TrafficClass> {
        self.classes.iter().find(|c| c.lossless)
    }
    /// The ToS byte hosts mark RoCE with: `roce_tos`, else the RDMA class's first DSCP with
    /// ECT(0) (RFC 3168: ECN field `10`), else none (PCP marking without DSCP).
    pub fn effective_roce_tos(&self) -> Option<u8> {
        self.roce_tos.or_else(|| self.rdma_class().and_then(|c| c.dscp.first()).map(|d| (d << 2) | 0b10))
    }
    /// Whether a setting of the policy is given per link speed (a class's `ecn`, the buffer's
    /// `alpha`, `headroom` or `reserve`), so that ports of different speeds differ.
    pub fn has_speed_maps(&self) -> bool {
        self.buffer.has_speed_maps() || self.classes.iter().any(|c| c.ecn.as_ref().is_some_and(BySpeed::is_by_speed))
    }
    /// The RoCE path MTU in use: the configured one, else the largest IB MTU that fits in the
    /// port MTU after the RoCEv2 headers (IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 = 60 bytes).
    pub fn effective_roce_mtu(&self) -> u32 {
        self.roce_mtu
            .unwrap_or_else(|| [4096, 2048, 1024, 512, 256].into_iter().find(|m| m + 60 <= self.mtu).unwrap_or(256))
    }
}

/// One traffic class of the policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficClass {
    pub name: String,
    /// IEEE 802.1p priority, 0-7.
    pub priority: u8,
    /// DSCP values (0-63) that map to this priority under DSCP trust.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dscp: Vec<u8>,
    /// Lossless: PFC pauses this priority instead of dropping (IEEE 802.1Qbb).
    #[serde(default)]
    pub lossless: bool,
    /// ETS bandwidth share in percent (IEEE 802.1Qaz); the non-strict classes sum to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ets: Option<u8>,
    /// Strict priority instead of an ETS share.
    #[serde(default)]
    pub strict: bool,
    /// ECN marking (RED thresholds on the egress queue): `{kmin, kmax, pmax}` for every port, or
    /// a map by link speed (`{100G: {kmin: 400KB, …}, 400G: {kmin: 1600KB, …}}`) as the ns-3 HPCC
    /// simulator's `KMIN_MAP`/`KMAX_MAP`/`PMAX_MAP` and SONiC's per-speed WRED profiles give them:
    /// a threshold in bytes is a queueing delay that depends on the rate. Each port takes its
    /// speed's (see [`crate::PortSettings`]); a cabled port whose speed the map lacks is a load
    /// error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<BySpeed<Ecn>>,
    /// PFC on this priority; defaults to `lossless`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfc: Option<bool>,
    /// This class carries DCQCN congestion notification packets.
    #[serde(default)]
    pub cnp: bool,
    /// Switch traffic class (egress queue) the class uses; default: its priority. Vendors' guides
    /// often pick another: the Demartek guide puts priority 5 in Onyx traffic class 2 and in
    /// Comware local precedence (queue) 1. `rocelab config` renders it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u8>,
}

impl TrafficClass {
    pub fn pfc_enabled(&self) -> bool {
        self.pfc.unwrap_or(self.lossless)
    }
}

/// RED-style ECN marking on an egress queue: no marks below `kmin`, probability rising linearly
/// to `pmax` at `kmax`, every packet above `kmax` (DCQCN, Zhu et al. SIGCOMM 2015, §3.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ecn {
    pub kmin: Size,
    pub kmax: Size,
    /// Marking probability at `kmax`, 0 to 1.
    pub pmax: f64,
}

/// PFC settings common to all lossless priorities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pfc {
    /// Global switch for PFC; off models a fabric that relies on ECN alone.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Time from a buffer crossing XOFF to the pause frame leaving, plus the peer's time to stop
    /// after receiving it; feeds the headroom calculation ([`crate::headroom`]).
    /// Default 1.5 µs, a figure for current switch and NIC silicon. The standards' upper bounds
    /// are larger: IEEE 802.1Qbb lets a 10G receiver take 60 pause quanta (30,720 bit times,
    /// i.e. 3,840 bytes, about 3 µs) to respond, plus IEEE 802.3 interface delays.
    #[serde(default = "default_response")]
    pub response_time: Time,
    /// IEEE 802.3x link-level (global) pause on host links instead of or beside PFC.
    #[serde(default)]
    pub link_pause: bool,
}

fn yes() -> bool {
    true
}
fn default_response() -> Time {
    Time::ns(1500)
}

impl Default for Pfc {
    fn default() -> Self {
        Pfc { enabled: true, response_time: default_response(), link_pause: false }
    }
}

/// Shared-buffer settings of the switches (Broadcom / Spectrum style MMU). `alpha`, `headroom`
/// and `reserve` may be given per link speed (`{100G: …, 400G: …}`): switch buffer profiles are
/// per speed (SONiC `pg_profile_lookup.ini`, NVIDIA Spectrum buffer tables), and the ns-3 HPCC
/// simulator's switch-mmu.cc uses a dynamic-threshold shift of 3 (α 1/8) at 100G and 1 (α 1/2)
/// at 400G. Each port takes its speed's value (see [`crate::PortSettings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    /// Dynamic-threshold alpha: a queue may grow to alpha × the free shared buffer
    /// (Choudhury & Hahne 1998). Default 1/8 when not given, a common ASIC default for
    /// lossless pools (and the HPCC simulator's shift of 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<BySpeed<f64>>,
    /// PFC headroom per lossless (port, priority group); default: computed from speed, cable
    /// length, MTU and response time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<BySpeed<Size>>,
    /// Bytes guaranteed to each lossless priority group of a port before it draws on the shared
    /// pool: Broadcom's "PG min" (`BUFFER_PG` profile `size` in SONiC), Spectrum's reserved
    /// buffer (Onyx `ingress-buffer … reserved`); the ns-3 HPCC simulator's switch-mmu.cc
    /// reserves 4 KiB per port. Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve: Option<BySpeed<Size>>,
    /// XON = XOFF threshold minus this offset. Default: two MTUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xon_offset: Option<Size>,
    /// Shared buffer of every switch that does not give its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Sizes of the shared-buffer pools of the switches (Spectrum/Onyx `pool iPool1 size …`,
    /// SONiC `BUFFER_POOL`); unset ones are derived by `rocelab config` from the buffer size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pools: Option<BufferPools>,
}

/// Shared-buffer pools: ingress accounting by priority group, egress by traffic class, each split
/// into a lossless pool (the PFC priorities) and a lossy one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BufferPools {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_lossless: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_lossy: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_lossless: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_lossy: Option<Size>,
}

/// The dynamic-threshold alpha of a port whose speed has none given: 1/8.
pub const DEFAULT_ALPHA: f64 = 0.125;

/// The dynamic-threshold alpha of lossy traffic, at its ingress priority group and at its egress
/// queue: 8. SONiC's Broadcom buffer templates (sonic-buildimage `device/*/buffers_defaults_t*.j2`,
/// e.g. the Arista 7050CX3-32S's, a Trident3) give `ingress_lossy_profile` and
/// `egress_lossy_profile` `dynamic_th 3`, and SAI (`saibuffer.h`,
/// `SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH`) sets the threshold to 2^dynamic_th of the pool's
/// free buffer; the same platform's lossless profiles (`pg_profile_lookup.ini`) use `-3`, the 1/8
/// of [`DEFAULT_ALPHA`]. Lossy traffic is so limited mainly at its egress queue, in the egress
/// lossy pool ([`Buffer::egress_lossy_pool`]), where it is dropped.
pub const LOSSY_ALPHA: f64 = 8.0;

/// Bytes reserved to each lossy egress queue outside the pool: one 1518-byte frame, the `size`
/// of those templates' `egress_lossy_profile`.
pub const LOSSY_QUEUE_RESERVE: u64 = 1518;

impl Buffer {
    /// The fabric-wide alpha: the one given for every speed, else [`DEFAULT_ALPHA`]. With a
    /// by-speed map there is no fabric-wide value: a port's is `PortSettings::alpha`.
    pub fn alpha(&self) -> f64 {
        self.alpha.as_ref().and_then(|a| a.single().copied()).unwrap_or(DEFAULT_ALPHA)
    }
    /// The egress lossy pool of a switch of `buffer` bytes: `pools.egress_lossy`, else a third
    /// of the buffer (SONiC's `egress_lossy_pool` as `rocelab config` renders it).
    pub fn egress_lossy_pool(&self, buffer: u64) -> u64 {
        self.pools.as_ref().and_then(|p| p.egress_lossy).map(|s| s.as_bytes()).unwrap_or(buffer / 3)
    }
    /// Whether any of `alpha`, `headroom` and `reserve` is given per speed.
    pub fn has_speed_maps(&self) -> bool {
        self.alpha.as_ref().is_some_and(BySpeed::is_by_speed)
            || self.headroom.as_ref().is_some_and(BySpeed::is_by_speed)
            || self.reserve.as_ref().is_some_and(BySpeed::is_by_speed)
    }
}

/// Settings that apply to some ports only, e.g. a different ETS split on an uplink, PFC off on
/// spine ports (the Arista/Pure "ECN with edge PFC" case), or a 1500-byte MTU on a host link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortOverride {
    /// `device:port` references; `device:*` selects every port of a device.
    pub ports: Vec<String>,
    /// ETS share per class name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ets: Option<BTreeMap<String, u8>>,
    /// PFC on or off per class name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfc: Option<BTreeMap<String, bool>>,
    /// ECN thresholds per class name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<BTreeMap<String, Ecn>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<Size>,
    /// Dynamic-threshold alpha of this port's lossless priority groups (see `qos.buffer.alpha`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Bytes reserved to each lossless priority group of this port (see `qos.buffer.reserve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marking: Option<Marking>,
    /// DSCP values per class name that this port maps to the class's priority (a trust map
    /// that differs from the policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dscp: Option<BTreeMap<String, Vec<u8>>>,
    /// 802.1p priority per class name on this port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<BTreeMap<String, u8>>,
    /// Switch traffic class (egress queue) per class name on this port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<BTreeMap<String, u8>>,
    /// IEEE 802.3x link-level pause on this port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_pause: Option<bool>,
    /// A static XOFF threshold for the lossless priority groups of this port, instead of the
    /// dynamic threshold (`qos.buffer.alpha`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xoff: Option<Size>,
    /// Host ports: the ToS byte the adapter puts on RoCEv2 packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roce_tos: Option<u8>,
    /// Host ports: the priority the adapter sends CNPs with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnp_priority: Option<u8>,
    /// Host ports: DCQCN notification and reaction point on or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcqcn: Option<PortDcqcn>,
    /// DCBX willing on this port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcbx_willing: Option<bool>,
}

/// DCQCN switched on or off at one adapter port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortDcqcn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification_point: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_point: Option<bool>,
}
