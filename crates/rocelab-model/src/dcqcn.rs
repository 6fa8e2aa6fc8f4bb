//! DCQCN (Zhu et al., SIGCOMM 2015): the notification point at the receiver and the reaction
//! point at the sender, every parameter with the profile it defaults from (the paper, NVIDIA
//! ConnectX firmware, or the ns-3 HPCC simulator's mlx DCQCN) and where each resolved value
//! came from. Re-exported from [`crate::qos`], where the fabric's `qos.dcqcn` lives.

use crate::units::{Rate, Size, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// The ns-3 HPCC simulator's "Mellanox version of DCQCN" (rdma-hw.cc, `CC_MODE 1`) with the
    /// values of its published DCQCN configuration (`EWMA_GAIN 0.00390625`, `RP_TIMER 300`,
    /// `RATE_AI 20Mb/s`, … as in `data/hpcc-reference/*/config.txt`), for comparing with it.
    HpccCompat,
}

/// When alpha, the reaction point's congestion estimate, is updated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlphaUpdate {
    /// On every CNP α ← (1−g)α + g; after `alpha_update_interval` without one α ← (1−g)α
    /// (Zhu et al. SIGCOMM 2015, §3.1).
    OnCnp,
    /// Once per `alpha_update_interval`: up if a CNP came in that period, else down. NVIDIA
    /// "DCQCN CC Parameters": "Every DcQcnDceAlphaUpdatePeriod α is updated. If the CNP is
    /// received during this period, alpha is incremented. Otherwise, it is decremented." (the
    /// ns-3 HPCC simulator's rdma-hw.cc `UpdateAlphaMlx` does the same).
    Periodic,
}

/// When the rate is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RateReduce {
    /// On a CNP, at most once per `rate_reduce_interval` (0: every CNP) (Zhu et al. §3.1).
    OnCnp,
    /// At the end of every `rate_reduce_interval` in which CNPs arrived, once. NVIDIA "DCQCN CC
    /// Parameters": `rate_reduce_monitor_period` "The time period between rate reductions"; the
    /// ns-3 HPCC simulator's rdma-hw.cc `CheckRateDecreaseMlx` does the same.
    Periodic,
}

/// How the rate grows back between cuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RateIncrease {
    /// Stages from the timer and the byte counter; fast recovery, additive increase, then hyper
    /// increase of i·R_HAI at stage i past F (Zhu et al. §3.1, Algorithm 1).
    Paper,
    /// The same stages; hyper increase adds R_HAI per step. NVIDIA `rpg_hai_rate`: "used to
    /// increase rpTargetRate in the RPR_HYPER_INCREASE state".
    Connectx,
    /// The ns-3 HPCC simulator's `RateIncEventMlx`: the timer alone (byte counter unused); F fast
    /// recoveries, one additive increase, then hyper increase by R_HAI per timer event.
    TimerOnly,
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
    /// `on-cnp` or `periodic` (see [`AlphaUpdate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha_update: Option<AlphaUpdate>,
    /// `on-cnp` or `periodic` (see [`RateReduce`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_reduce: Option<RateReduce>,
    /// `paper`, `connectx` or `timer-only` (see [`RateIncrease`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_increase: Option<RateIncrease>,
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
    /// When alpha is updated.
    pub alpha_update: AlphaUpdate,
    /// When the rate is cut.
    pub rate_reduce: RateReduce,
    /// How the rate increases.
    pub rate_increase: RateIncrease,
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

/// Where the hpcc-compat profile's values come from.
pub const DCQCN_HPCC_SOURCE: &str = "the ns-3 HPCC simulator's mlx DCQCN (rdma-hw.cc, CC_MODE 1) with its published \
     DCQCN config (third.cc keys)";

/// The ns-3 HPCC simulator's configuration key (third.cc) behind each parameter of the
/// hpcc-compat profile.
fn hpcc_key(name: &str) -> &'static str {
    match name {
        "g" => "EWMA_GAIN 0.00390625",
        "alpha_update_interval" => "ALPHA_RESUME_INTERVAL 1 (us)",
        "initial_alpha" => "alpha 1 on the first CNP (rdma-hw.cc cnp_received_mlx)",
        "rate_increase_timer" => "RP_TIMER 300 (us)",
        "byte_counter" => "no byte counter (RateIncEventMlx is timer-driven); kept at the paper's 10MB",
        "fast_recovery_steps" => "FAST_RECOVERY_TIMES 1",
        "additive_increase" => "RATE_AI 20Mb/s",
        "hyper_increase" => "RATE_HAI 200Mb/s",
        "cnp_interval" => "a CNP flag on the ACK of every marked packet (rdma-hw.cc ReceiveUdp)",
        "min_rate" => "MIN_RATE 1000Mb/s",
        "rate_reduce_interval" => "RATE_DECREASE_INTERVAL 4 (us)",
        "clamp_target_rate" => "CLAMP_TARGET_RATE 0",
        "clamp_target_rate_after_time_increase" => "clamps when the timer stage is not 0 (CheckRateDecreaseMlx)",
        "max_decrease" => "no bound on a cut but alpha/2",
        "rate_on_first_cnp" => "RATE_ON_FIRST_CNP 1.0 (the rate is left as it is)",
        "alpha_update" => "UpdateAlphaMlx every ALPHA_RESUME_INTERVAL",
        "rate_reduce" => "CheckRateDecreaseMlx every RATE_DECREASE_INTERVAL",
        "rate_increase" => "RateIncEventMlx on RP_TIMER alone",
        _ => "",
    }
}

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
        "alpha_update" => "dce_tcp_rtt period (\"Every DcQcnDceAlphaUpdatePeriod α is updated\")",
        "rate_reduce" => "rate_reduce_monitor_period (\"The time period between rate reductions\")",
        "rate_increase" => "rpg_hai_rate added per hyper-increase step",
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
    alpha_update: AlphaUpdate,
    rate_reduce: RateReduce,
    rate_increase: RateIncrease,
}

impl DcqcnProfile {
    /// Where this profile's values come from.
    pub fn source(self) -> &'static str {
        match self {
            DcqcnProfile::Paper => DCQCN_PAPER_SOURCE,
            DcqcnProfile::NvidiaConnectx => DCQCN_CONNECTX_SOURCE,
            DcqcnProfile::HpccCompat => DCQCN_HPCC_SOURCE,
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
                alpha_update: AlphaUpdate::OnCnp,
                rate_reduce: RateReduce::OnCnp,
                rate_increase: RateIncrease::Paper,
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
                alpha_update: AlphaUpdate::Periodic,
                rate_reduce: RateReduce::Periodic,
                rate_increase: RateIncrease::Connectx,
            },
            // The values of the simulator's published DCQCN config (see `hpcc_key`). A CNP is a
            // flag on the ACK of a marked packet, so there is no NP interval (0).
            DcqcnProfile::HpccCompat => DcqcnDefaults {
                g: 1.0 / 256.0,
                alpha_update_interval: Time::us(1),
                initial_alpha: 1.0,
                rate_increase_timer: Time::us(300),
                byte_counter: Size::mb(10),
                fast_recovery_steps: 1,
                additive_increase: Rate::mbps(20),
                hyper_increase: Rate::mbps(200),
                cnp_interval: Time::ZERO,
                min_rate: Rate::mbps(1000),
                rate_reduce_interval: Time::us(4),
                clamp_target_rate: false,
                clamp_target_rate_after_time_increase: true,
                max_decrease: 1.0,
                alpha_update: AlphaUpdate::Periodic,
                rate_reduce: RateReduce::Periodic,
                rate_increase: RateIncrease::TimerOnly,
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
                (false, DcqcnProfile::HpccCompat) => format!("{}: {DCQCN_HPCC_SOURCE}", hpcc_key(name)),
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
        pick("alpha_update", self.alpha_update.is_some());
        pick("rate_reduce", self.rate_reduce.is_some());
        pick("rate_increase", self.rate_increase.is_some());
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
            alpha_update: self.alpha_update.unwrap_or(d.alpha_update),
            rate_reduce: self.rate_reduce.unwrap_or(d.rate_reduce),
            rate_increase: self.rate_increase.unwrap_or(d.rate_increase),
            sources,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hpcc_compat_profile_has_the_simulators_published_values() {
        let p = Dcqcn { enabled: true, profile: DcqcnProfile::HpccCompat, ..Default::default() }.resolve();
        assert_eq!((p.g, p.alpha_update_interval, p.rate_increase_timer), (0.00390625, Time::us(1), Time::us(300)));
        assert_eq!(
            (p.additive_increase, p.hyper_increase, p.min_rate),
            (Rate::mbps(20), Rate::mbps(200), Rate::mbps(1000))
        );
        assert_eq!((p.cnp_interval, p.rate_reduce_interval, p.fast_recovery_steps), (Time::ZERO, Time::us(4), 1));
        assert_eq!((p.clamp_target_rate, p.clamp_target_rate_after_time_increase), (false, true));
        assert_eq!(
            (p.alpha_update, p.rate_reduce, p.rate_increase),
            (AlphaUpdate::Periodic, RateReduce::Periodic, RateIncrease::TimerOnly)
        );
        assert!(p.sources["g"].starts_with("EWMA_GAIN 0.00390625: the ns-3 HPCC simulator"), "{}", p.sources["g"]);
        assert_eq!(p.sources.len(), 18, "every parameter has a source");
    }

    #[test]
    fn each_profile_picks_its_dcqcn_variant_and_a_setting_wins() {
        let pick = |profile| {
            let p = Dcqcn { profile, ..Default::default() }.resolve();
            (p.alpha_update, p.rate_reduce, p.rate_increase)
        };
        assert_eq!(pick(DcqcnProfile::Paper), (AlphaUpdate::OnCnp, RateReduce::OnCnp, RateIncrease::Paper));
        assert_eq!(
            pick(DcqcnProfile::NvidiaConnectx),
            (AlphaUpdate::Periodic, RateReduce::Periodic, RateIncrease::Connectx)
        );
        let d = Dcqcn { rate_increase: Some(RateIncrease::TimerOnly), ..Default::default() }.resolve();
        assert_eq!(
            (d.rate_increase, d.sources["rate_increase"].as_str()),
            (RateIncrease::TimerOnly, "set in the fabric")
        );
        assert_eq!(d.sources["alpha_update"], DCQCN_PAPER_SOURCE);
    }
}
