//! The fabric's QoS intent: how RDMA and storage traffic is marked (PCP on a VLAN, or DSCP),
//! which traffic classes exist with their priority, DSCP values, losslessness (PFC), ETS share,
//! ECN thresholds, the CNP class, DCQCN parameters, MTU, buffer settings, and per-port
//! overrides. Vendor-independent; `rocelab-config` renders it per platform.

use crate::de::recover_vec;
use crate::units::{Rate, Size, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How switches and NICs classify traffic into priorities ("trust mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
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
    /// ECN marking (RED thresholds on the egress queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<Ecn>,
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
    /// after receiving it; feeds the headroom calculation (`rocelab_verify::headroom`).
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

/// Shared-buffer settings of the switches (Broadcom / Spectrum style MMU).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    /// Dynamic-threshold alpha: a queue may grow to alpha × the free shared buffer
    /// (Choudhury & Hahne 1998). Default 1/8 when not given, a common ASIC default for
    /// lossless pools (and the HPCC simulator's shift of 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// PFC headroom per lossless (port, priority group); default: computed from speed, cable
    /// length, MTU and response time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<Size>,
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

impl Buffer {
    pub fn alpha(&self) -> f64 {
        self.alpha.unwrap_or(0.125)
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

/// Where a set of DCQCN defaults comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DcqcnProfile {
    /// Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015.
    #[default]
    Paper,
    /// NVIDIA ConnectX-4 and later adapters' firmware defaults (what MLNX_OFED/DOCA hosts run
    /// unless `/sys/class/net/<if>/ecn/roce_rp|roce_np` or `mlxconfig` change them).
    NvidiaConnectx,
}

/// DCQCN: notification point (NP) at the receiver, reaction point (RP) at the sender.
/// Every parameter may be set; unset ones come from `profile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Dcqcn {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub profile: DcqcnProfile,
    /// Notification point on (default: `enabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification_point: Option<bool>,
    /// Reaction point on (default: `enabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_point: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub g: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha_update_interval: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_increase_timer: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_counter: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_recovery_steps: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additive_increase: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hyper_increase: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnp_interval: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_reduce_interval: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clamp_target_rate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clamp_target_rate_after_time_increase: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_decrease: Option<f64>,
    /// `0` (or unset in the profiles): cut as usual on the first CNP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_on_first_cnp: Option<Rate>,
}

/// Every DCQCN parameter, resolved, with where each value came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DcqcnParams {
    pub notification_point: bool,
    pub reaction_point: bool,
    /// EWMA gain of alpha.
    pub g: f64,
    /// K: alpha decays when no CNP arrived for this long.
    pub alpha_update_interval: Time,
    /// Alpha when a QP is first cut.
    pub initial_alpha: f64,
    /// T: the rate-increase timer.
    pub rate_increase_timer: Time,
    /// B: the rate-increase byte counter.
    pub byte_counter: Size,
    /// F: stages of fast recovery before additive increase.
    pub fast_recovery_steps: u32,
    /// R_AI.
    pub additive_increase: Rate,
    /// R_HAI.
    pub hyper_increase: Rate,
    /// N: at most one CNP per QP per interval at the notification point.
    pub cnp_interval: Time,
    pub min_rate: Rate,
    /// At most one rate cut per interval (0: every CNP cuts).
    pub rate_reduce_interval: Time,
    /// Target rate ← current rate on every cut.
    pub clamp_target_rate: bool,
    /// Target rate ← current rate on a cut if a timer increase happened since the last cut.
    pub clamp_target_rate_after_time_increase: bool,
    /// Largest fraction of the rate one cut takes (1: only alpha/2 bounds it).
    pub max_decrease: f64,
    /// Rate set on a QP's first CNP instead of a cut.
    pub rate_on_first_cnp: Option<Rate>,
    /// For each parameter name, `profile` (with the profile's source) or `set in the fabric`.
    pub sources: BTreeMap<&'static str, String>,
}

pub const DCQCN_PAPER_SOURCE: &str =
    "Zhu et al., Congestion Control for Large-Scale RDMA Deployments, SIGCOMM 2015 (§5, parameter table)";

/// Where the NVIDIA ConnectX profile's values are documented: NVIDIA's "DCQCN CC Parameters"
/// page (DOCA / MLNX_OFED documentation, ConnectX-4 and later) and the firmware configuration
/// as `mlxconfig -d <dev> query` prints it on ConnectX adapters.
pub const DCQCN_CONNECTX_SOURCE: &str = "NVIDIA ConnectX-4 and later firmware defaults (NVIDIA DOCA/MLNX_OFED \
     \"DCQCN CC Parameters\"; `mlxconfig query`)";

/// The ConnectX knob (sysfs `ecn/roce_rp|roce_np` name and default) behind each parameter.
fn connectx_knob(name: &str) -> &'static str {
    match name {
        "g" => "dce_tcp_g 1019 (alpha gain (1024-1019)/1024)",
        "alpha_update_interval" => "dce_tcp_rtt 1 us",
        "initial_alpha" => "initial_alpha_value 1023 (/1024)",
        "rate_increase_timer" => "rpg_time_reset 300 us",
        "byte_counter" => "rpg_byte_reset 32767 B",
        "fast_recovery_steps" => "rpg_threshold 1",
        "additive_increase" => "rpg_ai_rate 5 Mb/s",
        "hyper_increase" => "rpg_hai_rate 50 Mb/s",
        "cnp_interval" => "min_time_between_cnps 4 us",
        "min_rate" => "rpg_min_rate 1 Mb/s",
        "rate_reduce_interval" => "rate_reduce_monitor_period 4 us",
        "clamp_target_rate" => "clamp_tgt_rate 0",
        "clamp_target_rate_after_time_increase" => "clamp_tgt_rate_after_time_inc 1",
        "max_decrease" => "rpg_min_dec_fac 50 (%)",
        "rate_on_first_cnp" => "rate_to_set_on_first_cnp 0 (off)",
        _ => "",
    }
}

/// One profile's defaults.
struct DcqcnDefaults {
    g: f64,
    alpha_update_interval: Time,
    initial_alpha: f64,
    rate_increase_timer: Time,
    byte_counter: Size,
    fast_recovery_steps: u32,
    additive_increase: Rate,
    hyper_increase: Rate,
    cnp_interval: Time,
    min_rate: Rate,
    rate_reduce_interval: Time,
    clamp_target_rate: bool,
    clamp_target_rate_after_time_increase: bool,
    max_decrease: f64,
}

impl DcqcnProfile {
    /// Where this profile's values come from.
    pub fn source(self) -> &'static str {
        match self {
            DcqcnProfile::Paper => DCQCN_PAPER_SOURCE,
            DcqcnProfile::NvidiaConnectx => DCQCN_CONNECTX_SOURCE,
        }
    }

    fn defaults(self) -> DcqcnDefaults {
        match self {
            // The paper's table; alpha starts at 1; every CNP cuts, RT <- RC each time, the cut is
            // alpha/2 (at most half). The paper has no minimum rate: 10 Mb/s is rocelab's floor.
            DcqcnProfile::Paper => DcqcnDefaults {
                g: 1.0 / 256.0,
                alpha_update_interval: Time::us(55),
                initial_alpha: 1.0,
                rate_increase_timer: Time::us(55),
                byte_counter: Size::mb(10),
                fast_recovery_steps: 5,
                additive_increase: Rate::mbps(40),
                hyper_increase: Rate::mbps(200),
                cnp_interval: Time::us(50),
                min_rate: Rate::mbps(10),
                rate_reduce_interval: Time::ZERO,
                clamp_target_rate: true,
                clamp_target_rate_after_time_increase: false,
                max_decrease: 1.0,
            },
            // dce_tcp_g 1019 in 1/1024: alpha <- (1019/1024) alpha + (1 - 1019/1024), g = 5/1024.
            // rpg_gd 11 is 2.0 in the adapter's fixed point: the cut is alpha/2 as in the paper.
            // rpg_min_dec_fac 50: a cut keeps at least 50% of the rate.
            DcqcnProfile::NvidiaConnectx => DcqcnDefaults {
                g: 5.0 / 1024.0,
                alpha_update_interval: Time::us(1),
                initial_alpha: 1023.0 / 1024.0,
                rate_increase_timer: Time::us(300),
                byte_counter: Size::bytes(32767),
                fast_recovery_steps: 1,
                additive_increase: Rate::mbps(5),
                hyper_increase: Rate::mbps(50),
                cnp_interval: Time::us(4),
                min_rate: Rate::mbps(1),
                rate_reduce_interval: Time::us(4),
                clamp_target_rate: false,
                clamp_target_rate_after_time_increase: true,
                max_decrease: 0.5,
            },
        }
    }
}

impl Dcqcn {
    pub fn resolve(&self) -> DcqcnParams {
        let profile = self.profile;
        let d = profile.defaults();
        let mut sources = BTreeMap::new();
        let mut pick = |name: &'static str, set: bool| {
            let src = match (set, profile) {
                (true, _) => "set in the fabric".to_string(),
                (false, DcqcnProfile::Paper) => DCQCN_PAPER_SOURCE.to_string(),
                (false, DcqcnProfile::NvidiaConnectx) => format!("{}: {DCQCN_CONNECTX_SOURCE}", connectx_knob(name)),
            };
            sources.insert(name, src);
        };
        pick("g", self.g.is_some());
        pick("alpha_update_interval", self.alpha_update_interval.is_some());
        pick("initial_alpha", self.initial_alpha.is_some());
        pick("rate_increase_timer", self.rate_increase_timer.is_some());
        pick("byte_counter", self.byte_counter.is_some());
        pick("fast_recovery_steps", self.fast_recovery_steps.is_some());
        pick("additive_increase", self.additive_increase.is_some());
        pick("hyper_increase", self.hyper_increase.is_some());
        pick("cnp_interval", self.cnp_interval.is_some());
        pick("rate_reduce_interval", self.rate_reduce_interval.is_some());
        pick("clamp_target_rate", self.clamp_target_rate.is_some());
        pick("clamp_target_rate_after_time_increase", self.clamp_target_rate_after_time_increase.is_some());
        pick("max_decrease", self.max_decrease.is_some());
        pick("rate_on_first_cnp", self.rate_on_first_cnp.is_some());
        pick("min_rate", self.min_rate.is_some());
        if self.min_rate.is_none() && profile == DcqcnProfile::Paper {
            sources.insert("min_rate", "rocelab default: a floor so that a QP never stops".to_string());
        }
        DcqcnParams {
            notification_point: self.notification_point.unwrap_or(self.enabled),
            reaction_point: self.reaction_point.unwrap_or(self.enabled),
            g: self.g.unwrap_or(d.g),
            alpha_update_interval: self.alpha_update_interval.unwrap_or(d.alpha_update_interval),
            initial_alpha: self.initial_alpha.unwrap_or(d.initial_alpha),
            rate_increase_timer: self.rate_increase_timer.unwrap_or(d.rate_increase_timer),
            byte_counter: self.byte_counter.unwrap_or(d.byte_counter),
            fast_recovery_steps: self.fast_recovery_steps.unwrap_or(d.fast_recovery_steps),
            additive_increase: self.additive_increase.unwrap_or(d.additive_increase),
            hyper_increase: self.hyper_increase.unwrap_or(d.hyper_increase),
            cnp_interval: self.cnp_interval.unwrap_or(d.cnp_interval),
            min_rate: self.min_rate.unwrap_or(d.min_rate),
            rate_reduce_interval: self.rate_reduce_interval.unwrap_or(d.rate_reduce_interval),
            clamp_target_rate: self.clamp_target_rate.unwrap_or(d.clamp_target_rate),
            clamp_target_rate_after_time_increase: self
                .clamp_target_rate_after_time_increase
                .unwrap_or(d.clamp_target_rate_after_time_increase),
            max_decrease: self.max_decrease.unwrap_or(d.max_decrease),
            rate_on_first_cnp: self.rate_on_first_cnp.filter(|r| r.bits_per_second() > 0),
            sources,
        }
    }
}
