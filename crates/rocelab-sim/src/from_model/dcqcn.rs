//! DCQCN's parameters from the model: the fabric's resolved `qos.dcqcn` and the profiles whose
//! figures, with their sources, the model keeps. The constructors are [`DcqcnParams`]'s own,
//! written here so that the reaction point ([`crate::cc::dcqcn`]) never names the model crate.

use crate::cc::dcqcn::{AlphaUpdate, RateIncrease, RateReduce};
use crate::cc::DcqcnParams;
use rocelab_model::qos;

impl DcqcnParams {
    /// Convert the fabric model's resolved parameters.
    pub fn from_model(p: &qos::DcqcnParams) -> Self {
        DcqcnParams {
            g: p.g,
            alpha_update_interval_ps: p.alpha_update_interval.as_ps(),
            initial_alpha: p.initial_alpha,
            rate_increase_timer_ps: p.rate_increase_timer.as_ps(),
            byte_counter_bytes: p.byte_counter.as_bytes(),
            fast_recovery_steps: p.fast_recovery_steps,
            additive_increase_bps: p.additive_increase.bits_per_second(),
            hyper_increase_bps: p.hyper_increase.bits_per_second(),
            min_rate_bps: p.min_rate.bits_per_second(),
            cnp_interval_ps: p.cnp_interval.as_ps(),
            rate_reduce_interval_ps: p.rate_reduce_interval.as_ps(),
            clamp_target_rate: p.clamp_target_rate,
            clamp_target_rate_after_time_increase: p.clamp_target_rate_after_time_increase,
            max_decrease: p.max_decrease,
            rate_on_first_cnp_bps: p.rate_on_first_cnp.map(|r| r.bits_per_second()),
            alpha_update: match p.alpha_update {
                qos::AlphaUpdate::OnCnp => AlphaUpdate::OnCnp,
                qos::AlphaUpdate::Periodic => AlphaUpdate::Periodic,
            },
            rate_reduce: match p.rate_reduce {
                qos::RateReduce::OnCnp => RateReduce::OnCnp,
                qos::RateReduce::Periodic => RateReduce::Periodic,
            },
            rate_increase: match p.rate_increase {
                qos::RateIncrease::Paper => RateIncrease::Paper,
                qos::RateIncrease::Connectx => RateIncrease::Connectx,
                qos::RateIncrease::TimerOnly => RateIncrease::TimerOnly,
            },
        }
    }

    /// The DCQCN paper's parameters (see [`qos::DcqcnProfile::Paper`]).
    pub fn paper() -> Self {
        Self::profile(qos::DcqcnProfile::Paper)
    }

    /// NVIDIA ConnectX firmware defaults (see
    /// [`qos::DcqcnProfile::NvidiaConnectx`]).
    pub fn nvidia_connectx() -> Self {
        Self::profile(qos::DcqcnProfile::NvidiaConnectx)
    }

    fn profile(profile: qos::DcqcnProfile) -> Self {
        let d = qos::Dcqcn { enabled: true, profile, ..Default::default() };
        Self::from_model(&d.resolve())
    }
}
