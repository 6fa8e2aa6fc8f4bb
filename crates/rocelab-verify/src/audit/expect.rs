//! The counters read beside what a simulation of the same fabric and workload predicts
//! (`rocelab audit --expect results.json`): where reality and the model disagree, either the
//! fabric does not run as configured or the model misses something, and both are worth knowing.
//!
//! The simulation's per-port counters ([`Prediction`]s, built by the CLI from `results.json`)
//! are compared with the counters read for the same device, port, priority and counter. They
//! agree within [`Tolerance`]: the counter between the prediction divided and multiplied by
//! `factor`, give or take `absolute` events. The default is loose (a factor of two either way,
//! and 10 events of slack) because a
//! simulation covers milliseconds and a counter interval seconds or more: what it catches is a
//! counter that is zero where the model predicts activity, or active where the model predicts
//! none (pause frames on a port the model never pauses, drops where it predicts none).

use super::{Counter, Sample};
use crate::finding::{Finding, Severity};
use serde::Serialize;
use std::collections::BTreeMap;

/// The source of the audit's simulation comparisons.
pub const SRC_SIM: &str = "rocelab sim results.json of the same fabric (per port and priority: PFC frames sent and received, drops, ECN marks)";

/// What the simulation predicts for one counter of one port (and priority).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    pub device: String,
    pub port: String,
    /// None for a counter of the port as a whole (summed over priorities).
    pub priority: Option<u8>,
    pub counter: Counter,
    pub value: u64,
}

/// When a counter and its prediction agree.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tolerance {
    /// Slack in events, so that a handful of frames is never a divergence.
    pub absolute: u64,
    /// How many times more, or fewer, events than predicted still agree (at least 1).
    pub factor: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { absolute: 10, factor: 2.0 }
    }
}

impl Tolerance {
    pub fn agrees(&self, observed: u64, predicted: u64) -> bool {
        let (o, p, slack, f) = (observed as f64, predicted as f64, self.absolute as f64, self.factor.max(1.0));
        o >= p / f - slack && o <= p * f + slack
    }
}

/// One counter beside its prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub device: String,
    pub port: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    pub counter: Counter,
    pub observed: u64,
    pub predicted: u64,
    pub agrees: bool,
}

/// Each counter of `samples` that `predictions` has a value for, beside it, and an
/// `AUDIT-SIM-DIVERGES` warning for each that disagrees beyond `tol`. Counters of the same
/// device, port, priority and kind under several names are summed first, as the rules do.
pub fn compare(samples: &[Sample], predictions: &[Prediction], tol: Tolerance) -> (Vec<Comparison>, Vec<Finding>) {
    type Key<'a> = (&'a str, &'a str, Option<u8>, Counter);
    let mut observed: BTreeMap<Key<'_>, (u64, &Sample)> = BTreeMap::new();
    for s in samples {
        let Some(port) = s.port.as_deref() else { continue };
        if s.queue.is_some() && s.priority.is_none() {
            // Per-queue switch counters have no priority of their own to set beside the model's.
            continue;
        }
        let e = observed.entry((s.device.as_str(), port, s.priority, s.counter)).or_insert((0, s));
        e.0 += s.value;
    }
    let predicted: BTreeMap<Key<'_>, u64> =
        predictions.iter().map(|p| ((p.device.as_str(), p.port.as_str(), p.priority, p.counter), p.value)).collect();
    let mut comparisons = Vec::new();
    let mut findings = Vec::new();
    for (key, (value, sample)) in &observed {
        let Some(&expected) = predicted.get(key) else { continue };
        let (device, port, priority, counter) = *key;
        let agrees = tol.agrees(*value, expected);
        comparisons.push(Comparison {
            device: device.to_string(),
            port: port.to_string(),
            priority,
            counter,
            observed: *value,
            predicted: expected,
            agrees,
        });
        if agrees {
            continue;
        }
        let on = priority.map(|p| format!(" on priority {p}")).unwrap_or_default();
        let what = if expected == 0 {
            format!("{value} {}{on} where the simulation predicts none", counter.words())
        } else if *value == 0 {
            format!("no {}{on} where the simulation predicts {expected}", counter.words())
        } else {
            format!("{value} {}{on} where the simulation predicts {expected}", counter.words())
        };
        findings.push(Finding {
            id: "AUDIT-SIM-DIVERGES",
            severity: Severity::Warning,
            device: device.to_string(),
            port: Some(port.to_string()),
            class: None,
            what: format!(
                "{what} (agreement: within a factor of {} of the prediction, give or take {} events)",
                tol.factor, tol.absolute
            ),
            why: "the fabric does not behave as its model does: either it does not run as configured (a \
                  classifier, a PFC or ECN setting, a cable the model does not have) or the workload differs \
                  from the simulated one"
                .into(),
            fix: "compare the port's configuration with the fabric file (`rocelab check --import`), and the \
                  traffic with the simulated workload; simulate the workload that ran"
                .into(),
            source: SRC_SIM,
            location: Some(sample.at.clone()),
        });
    }
    (comparisons, findings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Origin;

    fn sample(port: &str, priority: Option<u8>, counter: Counter, value: u64) -> Sample {
        Sample {
            device: "h1".into(),
            port: Some(port.into()),
            priority,
            queue: None,
            counter,
            name: format!("{counter:?}"),
            value,
            at: Origin { file: "h1.ethtool.txt".into(), line: 4 },
        }
    }

    fn predict(priority: Option<u8>, counter: Counter, value: u64) -> Prediction {
        Prediction { device: "h1".into(), port: "p0".into(), priority, counter, value }
    }

    #[test]
    fn pause_where_the_model_has_none_diverges_and_a_few_frames_do_not() {
        let tol = Tolerance::default();
        let preds = [predict(Some(0), Counter::RxPause, 0), predict(Some(3), Counter::RxPause, 400)];
        // 146 pause frames on priority 0, none predicted: a divergence.
        let (cmp, f) = compare(&[sample("p0", Some(0), Counter::RxPause, 146)], &preds, tol);
        assert_eq!(cmp.len(), 1);
        assert!(!cmp[0].agrees);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].id, "AUDIT-SIM-DIVERGES");
        assert!(f[0]
            .what
            .starts_with("146 PFC pause frames received on priority 0 where the simulation predicts none"));
        assert_eq!(f[0].location.as_ref().unwrap().line, 4);
        // Near miss: the absolute slack (10) covers a handful of frames.
        let (cmp, f) = compare(&[sample("p0", Some(0), Counter::RxPause, 10)], &preds, tol);
        assert!(cmp[0].agrees && f.is_empty());
    }

    #[test]
    fn a_counter_within_the_factor_agrees_and_none_where_activity_is_predicted_does_not() {
        let tol = Tolerance::default();
        let preds = [predict(Some(3), Counter::RxPause, 400)];
        // 400 predicted, a factor of two and 10 events: 190 to 810 agree.
        for (observed, agrees) in [(810, true), (811, false), (190, true), (189, false)] {
            let (cmp, f) = compare(&[sample("p0", Some(3), Counter::RxPause, observed)], &preds, tol);
            assert_eq!((cmp[0].agrees, f.is_empty()), (agrees, agrees), "{observed}");
        }
        let (_, f) = compare(&[sample("p0", Some(3), Counter::RxPause, 0)], &preds, tol);
        assert!(f[0].what.starts_with("no PFC pause frames received on priority 3 where the simulation predicts 400"));
        assert!(f[0].what.ends_with("(agreement: within a factor of 2 of the prediction, give or take 10 events)"));
    }

    #[test]
    fn names_of_one_counter_are_summed_and_counters_the_model_lacks_are_left_out() {
        let preds = [predict(None, Counter::Discards, 0)];
        let samples = [
            sample("p0", None, Counter::Discards, 3),
            sample("p0", None, Counter::Discards, 9),
            // No prediction for the port's CNPs: not compared.
            sample("p0", None, Counter::CnpSent, 5000),
        ];
        let (cmp, f) = compare(&samples, &preds, Tolerance::default());
        assert_eq!(cmp.len(), 1);
        assert_eq!((cmp[0].observed, cmp[0].predicted), (12, 0));
        assert_eq!(f.len(), 1);
    }
}
