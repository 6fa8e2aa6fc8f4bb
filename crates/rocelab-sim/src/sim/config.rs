//! What a run is asked for: how long, with which seed, what it samples, when it stops, and where
//! the random numbers of ECN marking come from.

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// How long to run and what to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimConfig {
    /// Seed of the run's random choices (ECN marking).
    pub seed: u64,
    /// Simulated time to stop at (events at exactly this time are processed).
    pub end_time_ps: Time,
    /// Queue sampling.
    pub sampling: Sampling,
    /// End the run as soon as every flow has completed, before `end_time_ps` (when all the
    /// traffic is sized flows; perftest, iperf and storage workloads run to the end time).
    #[serde(default)]
    pub stop_when_done: bool,
    /// Where the random numbers of ECN marking come from.
    #[serde(default)]
    pub ecn_draws: EcnDraws,
    /// The order of events that share an instant.
    #[serde(default)]
    pub event_order: EventOrder,
}

/// The order in which the events of one instant are handled. No standard fixes it: a switch's
/// pipeline and a NIC's take simultaneous events in an order of their own, and simulators each
/// in theirs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventOrder {
    /// By a key of each event, its kind and the entity it names ([`crate::event::Key`]): an
    /// order that does not depend on the order of the pushes, so that the parts of a fabric
    /// simulated by several threads keep it ([`crate::run_threads`]).
    #[default]
    Canonical,
    /// In the order the events were scheduled, as the ns-3 simulator's scheduler takes them (its
    /// events' `uid`): what a run that replays that simulator's ECN draws ([`EcnDraws::Ns3`])
    /// needs to take them in its order and match it to the nanosecond. One thread only.
    PushOrder,
}

/// Where the uniform variates of ECN marking (in the linear region between Kmin and Kmax) come
/// from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EcnDraws {
    /// rocelab's generator, seeded with the run's seed.
    #[default]
    Rocelab,
    /// The ns-3 HPCC simulator's: the first value of a new MRG32k3a stream per decision, the
    /// first of them stream `first_stream`, of run `run` ([`crate::rng::ns3`]); each PFC frame a
    /// switch sends uses up a stream too, as there. With the same topology, flows and order of
    /// events, the same packets are marked.
    Ns3 {
        /// Streams that simulator's set-up takes before the first draw.
        first_stream: u64,
        /// Its `RngRun`.
        run: u64,
    },
}

impl SimConfig {
    /// Run until `end_time_ps` with `seed` and no sampling.
    pub fn new(seed: u64, end_time_ps: Time) -> Self {
        SimConfig {
            seed,
            end_time_ps,
            sampling: Sampling::default(),
            stop_when_done: false,
            ecn_draws: EcnDraws::Rocelab,
            event_order: EventOrder::Canonical,
        }
    }
}

/// Periodic queue-depth sampling and the caps on recorded values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sampling {
    /// Sample every switch port's egress queue depth at this interval; `None` = no sampling.
    pub queue_interval_ps: Option<Time>,
    /// Refuse runs that would record more values than this (4 bytes each).
    pub max_values: u64,
    /// Samples kept per port: when a port's series reaches it, every series keeps the larger of
    /// each pair of neighbouring samples and the interval doubles, so that a long run's
    /// samples take bounded memory and its peaks stay in the series.
    #[serde(default = "default_samples_per_port")]
    pub max_samples_per_port: u32,
}

fn default_samples_per_port() -> u32 {
    Sampling::SAMPLES_PER_PORT
}

impl Sampling {
    /// The default of `max_samples_per_port`: 2048 (about a thousand points per chart, whose
    /// line has fewer pixels than that, after a halving).
    pub const SAMPLES_PER_PORT: u32 = 2048;

    /// The samples a port keeps over `end_ps` at `interval_ps`, after halvings.
    pub fn kept_per_port(&self, interval_ps: Time, end_ps: Time) -> u64 {
        let mut iv = interval_ps.max(1);
        let cap = self.max_samples_per_port.max(2) as u64;
        while end_ps / iv + 1 >= cap {
            iv = iv.saturating_mul(2);
        }
        end_ps / iv + 1
    }
}

impl Default for Sampling {
    /// No sampling; at most 50 million recorded values (200 MB), 2048 per port.
    fn default() -> Self {
        Sampling { queue_interval_ps: None, max_values: 50_000_000, max_samples_per_port: Self::SAMPLES_PER_PORT }
    }
}
