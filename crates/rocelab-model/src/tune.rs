//! The `tune:` section of a scenario file: which fields `rocelab tune` searches, over which
//! ranges, for which objective over the simulation's results, under which constraints.
//!
//! The search itself runs in Python (`python -m rocelab.tune`, Ray Tune with Optuna's sampler);
//! this module only describes what the file asks for, so that a mistake in it is a located error
//! when the file loads, not a failure half-way through a search. A parameter's `path` is a field
//! path from the top of the file, as a variant's `set:` writes it
//! (`fabric.qos.classes[roce].ecn.kmin`): each trial is the base fabric with the sampled values
//! set at those paths, exactly as a variant is applied.
//!
//! The parameters follow the search spaces of Optuna's distributions (`IntDistribution`,
//! `FloatDistribution` with `log`, `CategoricalDistribution`; Optuna documentation,
//! "optuna.distributions").

use crate::de::one_or_many;
use crate::units::Size;
use serde::{Deserialize, Serialize};

/// What `rocelab tune` searches and what for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tune {
    /// The fields searched, each with its range or choices.
    pub parameters: Vec<TuneParameter>,
    /// One objective, or two (the search then looks for their Pareto front).
    #[serde(deserialize_with = "one_or_many")]
    pub objective: Vec<Objective>,
    /// Bounds a trial must meet to be a candidate for the best configuration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<Constraint>,
    /// How many trials to run; `rocelab tune --trials N` overrides it.
    #[serde(default = "default_trials")]
    pub trials: u32,
    /// The variant to start from: every trial (and the starting configuration the report
    /// compares with) is this variant with the sampled values set on top. By default the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The sampler's seed; by default `simulation.seed`. Every trial simulates under the file's
    /// `simulation.seed`, so that trials differ only by their parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

fn default_trials() -> u32 {
    20
}

/// Most trials a file may ask for: a search that long is a job for a cluster and a file that
/// says so on purpose, not a typo's extra zero.
pub const MAX_TRIALS: u32 = 100_000;

/// Most parameters searched at once: the samplers lose their edge well before this.
pub const MAX_PARAMETERS: usize = 64;

/// One searched field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneParameter {
    /// Field path from the top of the file, as in a variant's `set:`.
    pub path: String,
    /// `int`, `float` or `choice`.
    #[serde(rename = "type")]
    pub kind: ParameterKind,
    /// Lowest value (`int` and `float`), inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Highest value (`int` and `float`), inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// Sample on a log scale (`int` and `float`; `low` must then be above zero).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub log: bool,
    /// For `int`: the unit written after the number (`KB`, `us`, `Mbps`), since a quantity in a
    /// fabric file needs its unit (see [`crate::units`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// For `choice`: the values, each as the field takes it (`300us`, `true`, `0.5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<serde_json::Value>>,
}

/// How a parameter is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterKind {
    Int,
    Float,
    Choice,
}

/// A figure of a run's results that an objective or a constraint is stated over.
///
/// The `fct_*` and `flow_throughput_gbps` figures are over the run's sized flows (its `fct`
/// table), narrowed by `flows_under` / `flows_over`; the others are the run's totals (its
/// `summary` table) or, for `storage_*`, its storage jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Median FCT slowdown (FCT over the flow's FCT alone on an empty network).
    FctSlowdownP50,
    /// 99th-percentile FCT slowdown.
    FctSlowdownP99,
    /// Median flow completion time, µs.
    FctP50Us,
    /// 99th-percentile flow completion time, µs.
    FctP99Us,
    /// Mean throughput of the flows (size over FCT), Gb/s.
    FlowThroughputGbps,
    /// The run's goodput, Gb/s.
    GoodputGbps,
    /// Time paused by PFC, summed over ports and priorities, µs.
    PausedUs,
    /// PFC frames sent.
    PfcFrames,
    /// Packets marked ECN-CE.
    EcnMarks,
    /// Packets dropped.
    Drops,
    /// The deepest queue, bytes.
    PeakQueueBytes,
    /// IOPS of every storage job, summed.
    StorageIops,
    /// The worst 99th-percentile completion latency of the storage jobs, µs.
    StorageClatP99Us,
}

impl Metric {
    /// Whether the figure is over sized flows, so that `flows_under` / `flows_over` apply.
    pub fn is_per_flow(self) -> bool {
        matches!(
            self,
            Metric::FctSlowdownP50
                | Metric::FctSlowdownP99
                | Metric::FctP50Us
                | Metric::FctP99Us
                | Metric::FlowThroughputGbps
        )
    }
}

/// Minimize or maximize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Minimize,
    Maximize,
}

/// What the search optimizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub metric: Metric,
    #[serde(default)]
    pub direction: Direction,
    /// Only flows smaller than this (per-flow metrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows_under: Option<Size>,
    /// Only flows of at least this size (per-flow metrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows_over: Option<Size>,
}

/// A bound on a figure: `max` (at most) or `min` (at least), one of the two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraint {
    pub metric: Metric,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows_under: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows_over: Option<Size>,
}

/// An integer parameter's value as the field takes it: the number, or with the unit after it.
pub fn int_value(v: i64, unit: Option<&str>) -> serde_json::Value {
    match unit {
        Some(u) => serde_json::Value::String(format!("{v}{u}")),
        None => serde_json::Value::from(v),
    }
}

impl Tune {
    /// The section as the Python driver reads it: as written, but with the flow-size filters
    /// in bytes, so that no second parser of units is needed there.
    pub fn plan(&self) -> serde_json::Value {
        let filter = |under: Option<Size>, over: Option<Size>| {
            serde_json::json!({
                "flows_under_bytes": under.map(Size::as_bytes),
                "flows_over_bytes": over.map(Size::as_bytes),
            })
        };
        let mut v = serde_json::to_value(self).unwrap_or_default();
        // `get_mut`, not `v["constraints"]`: indexing a missing key would add it as `null`.
        if let Some(list) = v.get_mut("objective").and_then(|l| l.as_array_mut()) {
            for (o, j) in self.objective.iter().zip(list) {
                j["filter"] = filter(o.flows_under, o.flows_over);
            }
        }
        if let Some(list) = v.get_mut("constraints").and_then(|l| l.as_array_mut()) {
            for (c, j) in self.constraints.iter().zip(list) {
                j["filter"] = filter(c.flows_under, c.flows_over);
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_gives_flow_sizes_in_bytes_and_keeps_the_rest() {
        let t: Tune = serde_json::from_value(serde_json::json!({
            "parameters": [{"path": "fabric.qos.mtu", "type": "int", "low": 1500, "high": 9000}],
            "objective": {"metric": "fct_slowdown_p99", "flows_under": "100KB"},
            "constraints": [{"metric": "flow_throughput_gbps", "min": 10, "flows_over": "1MiB"}],
        }))
        .unwrap();
        let p = t.plan();
        assert_eq!(p["objective"][0]["filter"]["flows_under_bytes"], 100_000);
        assert_eq!(p["objective"][0]["direction"], "minimize");
        assert_eq!(p["constraints"][0]["filter"]["flows_over_bytes"], 1_048_576);
        assert_eq!(p["trials"], 20);
        assert_eq!(p["parameters"][0]["type"], "int");
        let mut bare = t.clone();
        bare.constraints.clear();
        assert!(bare.plan().get("constraints").is_none(), "{}", bare.plan());
    }

    #[test]
    fn an_int_with_a_unit_is_written_with_it() {
        assert_eq!(int_value(300, Some("us")), serde_json::json!("300us"));
        assert_eq!(int_value(9000, None), serde_json::json!(9000));
    }
}
