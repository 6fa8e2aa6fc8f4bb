//! DCQCN parameters in each adapter's own names and units: the model's values
//! ([`DcqcnParams`], SI units and fractions) become the integers an adapter's driver takes, each
//! with the conversion written out for the script's comment, and a warning where the adapter
//! cannot hold the value (naming adapter, parameter and the nearest value it can hold).
//!
//! Sources, by adapter:
//! - NVIDIA ConnectX-4 and later under MLNX_OFED or DOCA-OFED: the files of
//!   `/sys/class/net/IF/ecn/roce_rp/` and `roce_np/` as the OFED driver creates them
//!   (`en_sysfs.c`: `rpg_time_reset`, `rpg_byte_reset`, `rpg_threshold`, `rpg_ai_rate`,
//!   `rpg_hai_rate`, `rpg_min_rate`, `rpg_min_dec_fac`, `rate_to_set_on_first_cnp`,
//!   `dce_tcp_g`, `dce_tcp_rtt`, `rate_reduce_monitor_period`, `initial_alpha_value`,
//!   `clamp_tgt_rate`, `clamp_tgt_rate_after_time_inc`; `min_time_between_cnps`, `cnp_dscp`,
//!   `cnp_802p_prio`). Units and ranges from NVIDIA's "DCQCN CC Parameters" (DOCA SDK
//!   documentation; MLNX_OFED column): `dce_tcp_g` and `initial_alpha_value` fixed point with 10
//!   fraction bits (0…1023, 1…1023), alpha updated as α ← (G/1024)·α + (1 − G/1024) on a CNP,
//!   so the model's gain g is (1024 − G)/1024; `dce_tcp_rtt` µs 1…131071;
//!   `rate_to_set_on_first_cnp`, `rpg_min_rate` Mb/s; `rpg_min_dec_fac` % 0…100, the largest
//!   cut; `rate_reduce_monitor_period` µs from 1. The firmware register's field widths
//!   (mstflint's `tools_open_roce_cc_ecn`) bound the rest: `rpg_time_reset` µs and
//!   `rpg_ai_rate`, `rpg_hai_rate` Mb/s in 17 bits, `rpg_byte_reset` bytes in 15 bits (0
//!   disables it), `rpg_threshold` in 5 bits, `min_time_between_cnps` µs in 17 bits. (That
//!   register's older description states `dce_tcp_g` the other way round, as the gain itself;
//!   the OFED sysfs file follows the DOCA page, default 1019 for g = 5/1024.)
//! - The inbox mlx5 driver has no `ecn/` tree. It exposes the same firmware parameters only
//!   in debugfs, `/sys/kernel/debug/mlx5/PCI/cc_params/` (`rp_time_reset`, `rp_dce_tcp_g`, …,
//!   `np_min_time_between_cnps`, `np_cnp_dscp`, `np_cnp_prio`; the kernel's
//!   `drivers/infiniband/hw/mlx5/cong.c`), a debugging interface the script names but does not
//!   write.
//! - Marvell FastLinQ: the out-of-tree qed driver's module parameters (`qed_main.c` under
//!   `CONFIG_DCQCN`, with their `MODULE_PARM_DESC`): `dcqcn_cnp_send_timeout` µs 50…500000,
//!   `dcqcn_cnp_dscp` 0…63, `dcqcn_cnp_vlan_priority` 0…7, `dcqcn_rl_bc_rate` the byte
//!   counter in bytes, `dcqcn_rl_r_ai` and `dcqcn_rl_r_hai` Mb/s, `dcqcn_gd` the gain's
//!   denominator ("Set to 32 for 1/32"), `dcqcn_k_us` the alpha update interval in µs and
//!   `dcqcn_timeout_us` the rate-increase timer in µs (its default, 55, is the paper's T).
//! - Broadcom bnxt_re: the configfs `cc/` directory (`cc_mode`, `g`, `rtt`, `inact_th`,
//!   `init_cr`, `init_tr`, `nph_per_state`, `tcp_cp`, …) takes hexadecimal values whose unit
//!   no source documents, so no model parameter is converted and the script keeps the
//!   Demartek guide's values (see [`bnxt_notes`]). Searched: the bnxt_re README (the copies found
//!   name a "Congestion Control" section; none showed a unit); the driver's
//!   `configfs.c` (each store parses hex and masks it: `g` to 8 bits, `init_cr`, `init_tr` and
//!   `inact_th` to 16 bits, widths but no scale); the driver's `debugfs.c`, which maps each
//!   value onto a modify-mask bit of the firmware's `cmdq_modify_roce_cc` command (names
//!   only); the Broadcom NetXtreme-E User Guide's RoCE congestion control section (the
//!   algorithm's steps, no parameter table); and Juniper's Thor2 DCQCN guide (it sets the
//!   values through Broadcom's `niccli` and `bnxt_setupcc.sh`, not in configfs units).

use crate::finding::{Finding, Findings};
use rocelab_model::qos::DcqcnParams;
use serde::Serialize;

/// One parameter as an adapter takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdapterParam {
    /// The adapter's name for it: a sysfs file or a module parameter.
    pub name: String,
    /// The value written.
    pub value: String,
    /// How it was obtained: `model value unit → adapter value unit`.
    pub conversion: String,
}

/// What the conversion of one value needs to know about the adapter's parameter.
struct Knob {
    /// Adapter name for the warning (`NVIDIA ConnectX (mlx5)`).
    adapter: &'static str,
    /// The adapter's parameter name.
    name: &'static str,
    /// The adapter's unit, as written after a value (`" us"`, `"/1024"`; empty for a count).
    unit: &'static str,
    min: f64,
    max: f64,
}

/// Where the warnings of one port go.
pub struct Ctx<'a> {
    pub device: &'a str,
    pub port: &'a str,
    pub findings: &'a mut Findings,
}

/// A relative difference above which the adapter's nearest value is said not to hold the model's
/// (1 %): finer differences are the adapter's resolution (1023/1024 for an alpha of 1).
const TOLERANCE: f64 = 0.01;

impl Ctx<'_> {
    /// `exact` is the model's value in the adapter's unit; `shown` the model's value as the
    /// fabric writes it; `back` turns an adapter value into the model's unit for the warning.
    fn convert(
        &mut self,
        k: &Knob,
        model: &str,
        shown: String,
        exact: f64,
        back: &dyn Fn(f64) -> String,
    ) -> AdapterParam {
        let v = exact.round().clamp(k.min, k.max);
        let unit = k.unit;
        if (v - exact).abs() > TOLERANCE * exact.abs().max(1.0) {
            self.findings.push(Finding::warning(
                self.device,
                Some(self.port),
                format!(
                    "{}: {model} {shown} does not fit `{}` ({}…{}{unit}); the nearest value it can hold is {v}{unit} ({}): set {model} to that in the fabric to make the simulation match",
                    k.adapter,
                    k.name,
                    k.min,
                    k.max,
                    back(v)
                ),
            ));
        }
        AdapterParam {
            name: k.name.into(), value: format!("{v}"), conversion: format!("{model} {shown} → {v}{unit}")
        }
    }

    fn flag(&mut self, name: &str, model: &str, b: bool) -> AdapterParam {
        AdapterParam { name: name.into(), value: flag(b), conversion: format!("{model} {b} → {}", flag(b)) }
    }
}

fn flag(b: bool) -> String {
    if b { "1" } else { "0" }.to_string()
}

/// A time as the fabric writes it (`55us`), zero as `0`.
fn time(t: rocelab_model::units::Time) -> String {
    if t.as_ps() == 0 {
        "0".into()
    } else {
        t.to_string()
    }
}

/// A rate in Mb/s, the unit every adapter here takes (`40Mbps`).
fn rate(r: rocelab_model::units::Rate) -> String {
    format!("{}Mbps", mbps(r))
}

fn us(t: rocelab_model::units::Time) -> f64 {
    t.as_ps() as f64 / 1e6
}

fn mbps(r: rocelab_model::units::Rate) -> f64 {
    r.bits_per_second() as f64 / 1e6
}

/// The largest value of an unsigned field `bits` wide.
fn bits(n: u32) -> f64 {
    ((1u64 << n) - 1) as f64
}

const CX: &str = "NVIDIA ConnectX (mlx5)";

fn cx(name: &'static str, unit: &'static str, min: f64, max: f64) -> Knob {
    Knob { adapter: CX, name, unit, min, max }
}

/// ConnectX reaction-point parameters (`ecn/roce_rp/NAME`) and the notification point's CNP
/// pacing (`ecn/roce_np/min_time_between_cnps`); the CNP's DSCP and priority stay with the
/// port's CNP class.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ConnectxDcqcn {
    pub rp: Vec<AdapterParam>,
    pub np: Vec<AdapterParam>,
}

/// The model's DCQCN parameters as ConnectX's OFED sysfs files take them.
pub fn connectx(p: &DcqcnParams, ctx: &mut Ctx) -> ConnectxDcqcn {
    let usf = |v: f64| format!("{v}us");
    let mbf = |v: f64| format!("{v}Mbps");
    let mut rp = vec![
        ctx.convert(
            &cx("dce_tcp_g", "/1024 (alpha kept per update)", 0.0, 1023.0),
            "g",
            format!("{}", p.g),
            1024.0 * (1.0 - p.g),
            &|v| format!("g {}", (1024.0 - v) / 1024.0),
        ),
        ctx.convert(
            &cx("dce_tcp_rtt", " us", 1.0, 131071.0),
            "alpha_update_interval",
            time(p.alpha_update_interval),
            us(p.alpha_update_interval),
            &usf,
        ),
        ctx.convert(
            &cx("initial_alpha_value", "/1024", 1.0, 1023.0),
            "initial_alpha",
            format!("{}", p.initial_alpha),
            1024.0 * p.initial_alpha,
            &|v| format!("alpha {}", v / 1024.0),
        ),
        ctx.convert(
            &cx("rpg_time_reset", " us", 0.0, bits(17)),
            "rate_increase_timer",
            time(p.rate_increase_timer),
            us(p.rate_increase_timer),
            &usf,
        ),
        ctx.convert(
            &cx("rpg_byte_reset", " B", 0.0, bits(15)),
            "byte_counter",
            p.byte_counter.to_string(),
            p.byte_counter.as_bytes() as f64,
            &|v| format!("{v}B"),
        ),
        ctx.convert(
            &cx("rpg_threshold", "", 0.0, bits(5)),
            "fast_recovery_steps",
            p.fast_recovery_steps.to_string(),
            p.fast_recovery_steps as f64,
            &|v| format!("{v} steps"),
        ),
        ctx.convert(
            &cx("rpg_ai_rate", " Mbps", 1.0, bits(17)),
            "additive_increase",
            rate(p.additive_increase),
            mbps(p.additive_increase),
            &mbf,
        ),
        ctx.convert(
            &cx("rpg_hai_rate", " Mbps", 1.0, bits(17)),
            "hyper_increase",
            rate(p.hyper_increase),
            mbps(p.hyper_increase),
            &mbf,
        ),
        ctx.convert(&cx("rpg_min_rate", " Mbps", 1.0, bits(17)), "min_rate", rate(p.min_rate), mbps(p.min_rate), &mbf),
        ctx.convert(
            &cx("rate_reduce_monitor_period", " us", 1.0, u32::MAX as f64),
            "rate_reduce_interval",
            time(p.rate_reduce_interval),
            us(p.rate_reduce_interval),
            &usf,
        ),
        ctx.convert(
            &cx("rpg_min_dec_fac", " % (the least share of the rate a cut keeps)", 0.0, 100.0),
            "max_decrease",
            format!("{}", p.max_decrease),
            100.0 * (1.0 - p.max_decrease),
            &|v| format!("max_decrease {}", 1.0 - v / 100.0),
        ),
    ];
    let first = p.rate_on_first_cnp.map_or(0.0, mbps);
    rp.push(ctx.convert(
        &cx("rate_to_set_on_first_cnp", " Mbps (0: off)", 0.0, bits(17)),
        "rate_on_first_cnp",
        p.rate_on_first_cnp.map_or("off".to_string(), rate),
        first,
        &mbf,
    ));
    rp.push(ctx.flag("clamp_tgt_rate", "clamp_target_rate", p.clamp_target_rate));
    rp.push(ctx.flag(
        "clamp_tgt_rate_after_time_inc",
        "clamp_target_rate_after_time_increase",
        p.clamp_target_rate_after_time_increase,
    ));
    let np = vec![ctx.convert(
        &cx("min_time_between_cnps", " us", 0.0, bits(17)),
        "cnp_interval",
        time(p.cnp_interval),
        us(p.cnp_interval),
        &usf,
    )];
    ConnectxDcqcn { rp, np }
}

const QED: &str = "Marvell FastLinQ (qed)";

fn qed_knob(name: &'static str, unit: &'static str, min: f64, max: f64) -> Knob {
    Knob { adapter: QED, name, unit, min, max }
}

/// The model's DCQCN parameters as the qed module's load-time parameters, with the CNP's DSCP
/// and priority (the port's CNP class) where it has one.
pub fn qed(p: &DcqcnParams, cnp_dscp: Option<u8>, cnp_priority: Option<u8>, ctx: &mut Ctx) -> Vec<AdapterParam> {
    let usf = |v: f64| format!("{v}us");
    let mbf = |v: f64| format!("{v}Mbps");
    let u32max = u32::MAX as f64;
    let mut out = vec![
        ctx.convert(
            &qed_knob("dcqcn_cnp_send_timeout", " us", 50.0, 500000.0),
            "cnp_interval",
            time(p.cnp_interval),
            us(p.cnp_interval),
            &usf,
        ),
        ctx.convert(
            &qed_knob("dcqcn_rl_bc_rate", " B", 0.0, u32max),
            "byte_counter",
            p.byte_counter.to_string(),
            p.byte_counter.as_bytes() as f64,
            &|v| format!("{v}B"),
        ),
        ctx.convert(
            &qed_knob("dcqcn_rl_r_ai", " Mbps", 1.0, u32max),
            "additive_increase",
            rate(p.additive_increase),
            mbps(p.additive_increase),
            &mbf,
        ),
        ctx.convert(
            &qed_knob("dcqcn_rl_r_hai", " Mbps", 1.0, u32max),
            "hyper_increase",
            rate(p.hyper_increase),
            mbps(p.hyper_increase),
            &mbf,
        ),
        ctx.convert(
            &qed_knob("dcqcn_gd", " (the gain's denominator)", 1.0, u32max),
            "g",
            format!("{}", p.g),
            if p.g > 0.0 { 1.0 / p.g } else { u32max },
            &|v| format!("g 1/{v}"),
        ),
        ctx.convert(
            &qed_knob("dcqcn_k_us", " us", 0.0, u32max),
            "alpha_update_interval",
            time(p.alpha_update_interval),
            us(p.alpha_update_interval),
            &usf,
        ),
        ctx.convert(
            &qed_knob("dcqcn_timeout_us", " us", 0.0, u32max),
            "rate_increase_timer",
            time(p.rate_increase_timer),
            us(p.rate_increase_timer),
            &usf,
        ),
    ];
    if let Some(d) = cnp_dscp {
        out.push(AdapterParam {
            name: "dcqcn_cnp_dscp".into(),
            value: d.to_string(),
            conversion: format!("CNP class DSCP {d} → {d}"),
        });
    }
    if let Some(pr) = cnp_priority {
        out.push(AdapterParam {
            name: "dcqcn_cnp_vlan_priority".into(),
            value: pr.to_string(),
            conversion: format!("CNP priority {pr} → {pr}"),
        });
    }
    out
}

/// What the script says next to Broadcom's configfs values: each model parameter and why it
/// is not converted, and a warning where the fabric sets one (so the adapter runs other values
/// than the simulation).
pub fn bnxt_notes(p: &DcqcnParams, ctx: &mut Ctx) -> Vec<String> {
    let set: Vec<&str> = p.sources.iter().filter(|(_, v)| v.as_str() == "set in the fabric").map(|(k, _)| *k).collect();
    if !set.is_empty() {
        ctx.findings.push(Finding::warning(
            ctx.device,
            Some(ctx.port),
            format!(
                "Broadcom bnxt_re: the fabric sets DCQCN parameters ({}), but the adapter's configfs `cc/` values (`g`, `init_cr`, `init_tr`, …) have no documented scale to convert them to; the script writes the Demartek guide's values: set these with Broadcom's tools (niccli, bnxt_setupcc.sh)",
                set.join(", ")
            ),
        ));
    }
    vec![
        format!("model g {} → no documented scale for configfs `g` (an 8-bit \"running avg. weight\"): the guide's value", p.g),
        format!(
            "model alpha_update_interval {}, rate_increase_timer {}, additive_increase {}, hyper_increase {}, byte_counter {}: no configfs equivalent with a documented unit",
            p.alpha_update_interval, p.rate_increase_timer, p.additive_increase, p.hyper_increase, p.byte_counter
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocelab_model::qos::{Dcqcn, DcqcnProfile};
    use rocelab_model::units::Time;

    fn run<T>(f: impl FnOnce(&mut Ctx) -> T) -> (T, Findings) {
        let mut findings = Findings::new();
        let out = f(&mut Ctx { device: "h1", port: "p0", findings: &mut findings });
        (out, findings)
    }

    fn value<'a>(v: &'a [AdapterParam], name: &str) -> &'a str {
        &v.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no {name} in {v:?}")).value
    }

    #[test]
    fn the_connectx_profile_converts_back_to_the_firmware_defaults() {
        // NVIDIA's documented defaults: dce_tcp_g 1019, dce_tcp_rtt 1, initial_alpha_value 1023,
        // rpg_time_reset 300, rpg_byte_reset 32767, rpg_threshold 1, rpg_ai_rate 5, rpg_hai_rate 50,
        // rpg_min_rate 1, rate_reduce_monitor_period 4, rpg_min_dec_fac 50, min_time_between_cnps 4.
        let p = Dcqcn { enabled: true, profile: DcqcnProfile::NvidiaConnectx, ..Default::default() }.resolve();
        let (c, w) = run(|ctx| connectx(&p, ctx));
        let got: Vec<(&str, &str)> = c.rp.iter().chain(&c.np).map(|a| (a.name.as_str(), a.value.as_str())).collect();
        assert_eq!(
            got,
            [
                ("dce_tcp_g", "1019"),
                ("dce_tcp_rtt", "1"),
                ("initial_alpha_value", "1023"),
                ("rpg_time_reset", "300"),
                ("rpg_byte_reset", "32767"),
                ("rpg_threshold", "1"),
                ("rpg_ai_rate", "5"),
                ("rpg_hai_rate", "50"),
                ("rpg_min_rate", "1"),
                ("rate_reduce_monitor_period", "4"),
                ("rpg_min_dec_fac", "50"),
                ("rate_to_set_on_first_cnp", "0"),
                ("clamp_tgt_rate", "0"),
                ("clamp_tgt_rate_after_time_inc", "1"),
                ("min_time_between_cnps", "4"),
            ]
        );
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_value_out_of_the_adapters_range_is_a_warning_with_the_nearest_value() {
        let p = Dcqcn { enabled: true, rate_increase_timer: Some(Time::ms(200)), ..Default::default() }.resolve();
        let (c, w) = run(|ctx| connectx(&p, ctx));
        assert_eq!(value(&c.rp, "rpg_time_reset"), "131071");
        let m = w.iter().find(|f| f.message.contains("rpg_time_reset")).expect("a warning");
        assert!(m.message.starts_with("NVIDIA ConnectX (mlx5): rate_increase_timer 200ms"), "{}", m.message);
        assert!(m.message.contains("the nearest value it can hold is 131071 us (131071us)"), "{}", m.message);
        assert_eq!(m.port.as_deref(), Some("p0"));
    }

    #[test]
    fn qed_takes_the_gain_as_its_denominator_and_bounds_the_cnp_timer() {
        let p = Dcqcn { enabled: true, profile: DcqcnProfile::HpccCompat, ..Default::default() }.resolve();
        let (q, w) = run(|ctx| qed(&p, Some(48), Some(6), ctx));
        assert_eq!(value(&q, "dcqcn_gd"), "256");
        assert_eq!(value(&q, "dcqcn_timeout_us"), "300");
        assert_eq!(value(&q, "dcqcn_rl_r_ai"), "20");
        // hpcc-compat has no NP interval (0); qed's timeout starts at 50 us.
        assert_eq!(value(&q, "dcqcn_cnp_send_timeout"), "50");
        assert!(
            w.iter().any(|f| f.message.contains("`dcqcn_cnp_send_timeout`") && f.message.contains("50 us")),
            "{w:?}"
        );
        assert_eq!((value(&q, "dcqcn_cnp_dscp"), value(&q, "dcqcn_cnp_vlan_priority")), ("48", "6"));
    }
}
