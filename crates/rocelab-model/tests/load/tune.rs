//! The `tune:` section: a good one loads with its parameters typed, and each kind of mistake is
//! one error at the field that makes it, with what was expected (and a close match for a path
//! that names no field).

use super::{errors, load, BASE};
use rocelab_model::tune::{Direction, Metric, ParameterKind};
use rocelab_model::Diagnostic;

/// BASE with `tune:` set to `body` (indented under it).
fn with_tune(body: &str) -> String {
    format!("{BASE}tune:\n{body}")
}

/// The 1-based line and column where `needle` starts in `text`.
fn at(text: &str, needle: &str) -> (usize, usize) {
    let (i, line) = text.lines().enumerate().find(|(_, l)| l.contains(needle)).expect("needle in text");
    (i + 1, line.find(needle).unwrap() + 1)
}

/// Where the value of the first `key: value` written as `needle` starts (a value's mark).
fn value_at(text: &str, needle: &str) -> (usize, usize) {
    let (line, column) = at(text, needle);
    (line, column + needle.find(": ").expect("a `key: value` needle") + 2)
}

const GOOD: &str = "  parameters:
    - path: fabric.qos.mtu
      type: int
      low: 1500
      high: 9000
    - path: fabric.qos.vlan
      type: choice
      values: [2, 3]
  objective:
    - {metric: fct_slowdown_p99, flows_under: 100KB}
    - {metric: goodput_gbps, direction: maximize}
  constraints:
    - {metric: paused_us, max: 500}
  trials: 8
  seed: 3
";

#[test]
fn a_tune_section_loads_typed_and_every_value_applies() {
    let l = load(&with_tune(GOOD)).unwrap();
    let t = l.scenario.tune.as_ref().unwrap();
    assert_eq!(t.parameters.len(), 2);
    assert_eq!(
        (t.parameters[0].kind, t.parameters[0].low, t.parameters[0].high),
        (ParameterKind::Int, Some(1500.0), Some(9000.0))
    );
    assert_eq!(t.parameters[1].values.as_ref().unwrap().len(), 2);
    assert_eq!(
        t.objective.iter().map(|o| (o.metric, o.direction)).collect::<Vec<_>>(),
        [(Metric::FctSlowdownP99, Direction::Minimize), (Metric::GoodputGbps, Direction::Maximize)]
    );
    assert_eq!(t.objective[0].flows_under.unwrap().as_bytes(), 100_000);
    assert_eq!((t.trials, t.seed, t.constraints[0].max), (8, Some(3), Some(500.0)));
    assert!(l.tune_problems().0.is_empty(), "{:#?}", l.tune_problems());
    assert!(l.validate_all().0.iter().all(|d| !d.is_error()));
}

fn tune_errors(text: &str) -> Vec<Diagnostic> {
    load(text).unwrap().tune_problems().0
}

#[test]
fn a_path_that_names_no_field_is_an_error_at_the_path_with_a_close_match() {
    let text = with_tune(&GOOD.replace("path: fabric.qos.mtu", "path: fabric.qos.mtus"));
    let e = tune_errors(&text);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!((e[0].line, e[0].column), value_at(&text, "path: fabric.qos.mtus"));
    assert!(
        e[0].message.starts_with("in tune.parameters[0] with `fabric.qos.mtus: 1500`: unknown field `mtus`"),
        "{}",
        e[0].message
    );
    assert!(e[0].message.contains("unknown field `mtus`"), "{}", e[0].message);
    assert_eq!(e[0].suggestion.as_deref(), Some("did you mean \"mtu\"?"));
    // validate_all reports it too, and the file name is there.
    let all = load(&text).unwrap().validate_all();
    assert!(all.0.iter().any(|d| d.is_error() && d.file == "t.yaml" && d.message.contains("mtus")));
}

#[test]
fn an_end_of_a_range_the_field_refuses_is_an_error_at_that_end() {
    // The fabric's own check refuses an MTU past 16384 bytes, at the `high:` written in tune.
    let text = with_tune(&GOOD.replace("high: 9000", "high: 20000"));
    let e = tune_errors(&text);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!((e[0].line, e[0].column), value_at(&text, "high: 20000"));
    assert!(
        e[0].message.starts_with("in tune.parameters[0] with `fabric.qos.mtu: 20000`: MTU 20000 is outside"),
        "{}",
        e[0].message
    );
}

#[test]
fn a_unit_the_field_cannot_take_is_an_error_at_the_low_end() {
    let text = with_tune(&GOOD.replace("high: 9000", "high: 9000\n      unit: KX"));
    let e = tune_errors(&text);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!((e[0].line, e[0].column), value_at(&text, "low: 1500"));
    assert!(e[0].message.contains("`fabric.qos.mtu: 1500KX`"), "{}", e[0].message);
}

/// The one error of `text`, checked to be at `path` and at where `needle` is written.
fn one_at(text: &str, path: &str, position: (usize, usize)) -> Diagnostic {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(e[0].path, path);
    assert_eq!((e[0].line, e[0].column), position, "{:#?}", e[0]);
    assert!(e[0].expected.is_some(), "{:#?}", e[0]);
    e.into_iter().next().unwrap()
}

#[test]
fn an_empty_range_is_an_error_at_high() {
    let text = with_tune(&GOOD.replace("low: 1500", "low: 9000").replace("high: 9000", "high: 1500"));
    let e = one_at(&text, "tune.parameters[0].high", value_at(&text, "high: 1500"));
    assert_eq!(e.message, "the range 9000 to 1500 is empty");
}

#[test]
fn a_log_scale_from_zero_is_an_error_at_low() {
    let text = with_tune(&GOOD.replace("low: 1500", "low: 0\n      log: true"));
    let e = one_at(&text, "tune.parameters[0].low", value_at(&text, "low: 0"));
    assert_eq!(e.message, "a log scale cannot start at 0");
}

#[test]
fn a_fractional_end_of_an_int_range_is_an_error() {
    let text = with_tune(&GOOD.replace("low: 1500", "low: 1500.5"));
    let e = one_at(&text, "tune.parameters[0].low", value_at(&text, "low: 1500.5"));
    assert_eq!(e.message, "1500.5 is not an integer number");
}

#[test]
fn a_choice_of_one_value_is_an_error_at_values() {
    let text = with_tune(&GOOD.replace("values: [2, 3]", "values: [2]"));
    let e = one_at(&text, "tune.parameters[1].values", value_at(&text, "values: [2]"));
    assert_eq!(e.message, "1 value(s): nothing to choose");
}

#[test]
fn a_range_on_a_choice_is_an_error_at_the_range() {
    let text = with_tune(&GOOD.replace("type: choice", "type: choice\n      low: 7"));
    let e = one_at(&text, "tune.parameters[1].low", value_at(&text, "low: 7"));
    assert_eq!(e.message, "`low` is for `int` and `float` parameters");
}

#[test]
fn an_unknown_metric_lists_the_metrics() {
    let text = with_tune(&GOOD.replace("metric: goodput_gbps", "metric: goodput"));
    let e = one_at(&text, "tune.objective[1].metric", value_at(&text, "metric: goodput,"));
    assert!(e.expected.as_deref().unwrap().contains("goodput_gbps"), "{e:#?}");
}

#[test]
fn a_flow_size_filter_on_a_run_total_is_an_error() {
    let text =
        with_tune(&GOOD.replace("{metric: paused_us, max: 500}", "{metric: paused_us, max: 500, flows_under: 1MB}"));
    let e = one_at(&text, "tune.constraints[0].flows_under", value_at(&text, "flows_under: 1MB"));
    assert!(e.message.contains("`paused_us` is the run's"), "{}", e.message);
}

#[test]
fn a_constraint_without_a_bound_is_an_error() {
    let text = with_tune(&GOOD.replace("{metric: paused_us, max: 500}", "{metric: paused_us}"));
    let e = one_at(&text, "tune.constraints[0]", at(&text, "{metric: paused_us}"));
    assert_eq!(e.message, "a constraint needs `max` or `min`");
}

#[test]
fn three_objectives_are_refused() {
    let text = with_tune(&GOOD.replace("  constraints:", "    - {metric: drops}\n  constraints:"));
    let e = one_at(&text, "tune.objective", at(&text, "- {metric: fct_slowdown_p99"));
    assert_eq!(e.message, "3 objectives");
}

#[test]
fn a_parameter_on_the_variants_is_refused() {
    let text = with_tune(&GOOD.replace("path: fabric.qos.mtu", "path: variants[0].name"));
    let e = one_at(&text, "tune.parameters[0].path", value_at(&text, "path: variants[0]"));
    assert_eq!(e.message, "`variants[0].name` is not a field a trial can set");
}

#[test]
fn zero_trials_are_refused() {
    let text = with_tune(&GOOD.replace("trials: 8", "trials: 0"));
    let e = one_at(&text, "tune.trials", value_at(&text, "trials: 0"));
    assert_eq!(e.message, "0 trials");
}

/// BASE with a variant that turns ECN on, and a search of its threshold from that variant.
fn from_variant(variant: &str) -> String {
    format!(
        "{BASE}variants:\n  - name: with-ecn\n    set:\n      fabric.qos.classes[roce].ecn: {{kmin: 50KB, kmax: 500KB, pmax: 0.1}}\n\
         tune:\n  variant: {variant}\n  parameters:\n    - path: fabric.qos.classes[roce].ecn.kmin\n      type: int\n      \
         low: 10\n      high: 400\n      unit: KB\n  objective: {{metric: fct_slowdown_p99}}\n"
    )
}

#[test]
fn a_search_from_a_variant_applies_the_variant_first() {
    // The base has no ECN, so `ecn.kmin` alone would not make a whole ECN setting: the probe
    // works only because the variant's ECN is applied first.
    let l = load(&from_variant("with-ecn")).unwrap();
    assert_eq!(l.scenario.tune.as_ref().unwrap().variant.as_deref(), Some("with-ecn"));
    assert!(l.tune_problems().0.is_empty(), "{:#?}", l.tune_problems());
    let text = from_variant("with-ecn").replace("  variant: with-ecn\n", "");
    assert!(!load(&text).unwrap().tune_problems().0.is_empty());
}

#[test]
fn an_unknown_starting_variant_is_an_error_with_a_close_match() {
    let text = from_variant("with-ec");
    let e = one_at(&text, "tune.variant", value_at(&text, "variant: with-ec"));
    assert_eq!(e.message, "no variant `with-ec` to start from");
    assert_eq!(e.expected.as_deref(), Some("one of with-ecn"));
    assert!(e.suggestion.as_deref().unwrap_or_default().contains("with-ecn"), "{e:#?}");
}
