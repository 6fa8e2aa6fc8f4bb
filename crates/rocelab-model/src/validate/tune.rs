//! The `tune:` section checked where it is written: each parameter's range or choices, the
//! objectives and the constraints. Whether each path names a field of the file, and whether
//! the ends of each range are values that field takes, is checked by applying them
//! (`Loaded::tune_problems`), as a variant is applied.

use crate::diag::{problem, Problem};
use crate::paths::parse_path;
use crate::tune::{Constraint, Metric, ParameterKind, Tune, MAX_PARAMETERS, MAX_TRIALS};
use crate::units::Size;

/// Top-level sections a parameter may not set: they are the search's own or the runs' list.
const NOT_TUNABLE: [&str; 3] = ["tune", "variants", "sweep"];

pub(crate) fn check(t: &Tune, variants: &[crate::fabric::Variant], problems: &mut Vec<Problem>) {
    if let Some(name) = &t.variant {
        if !variants.iter().any(|v| &v.name == name) {
            let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
            let mut p = problem("tune.variant".into(), format!("no variant `{name}` to start from"));
            p.diag.expected = Some(if names.is_empty() {
                "a variant the file declares (it declares none)".into()
            } else {
                format!("one of {}", names.join(", "))
            });
            p.diag.suggestion = crate::diag::did_you_mean(name, names.iter().copied());
            problems.push(p);
        }
    }
    let mut push = |path: String, message: String, expected: &str| {
        let mut p = problem(path, message);
        p.diag.expected = Some(expected.into());
        problems.push(p);
    };
    if t.parameters.is_empty() {
        push("tune.parameters".into(), "no parameters to search".into(), "a list of at least one parameter");
    }
    if t.parameters.len() > MAX_PARAMETERS {
        push(
            "tune.parameters".into(),
            format!("{} parameters; rocelab tunes at most {MAX_PARAMETERS} at once", t.parameters.len()),
            "fewer parameters",
        );
    }
    if !(1..=MAX_TRIALS).contains(&t.trials) {
        push("tune.trials".into(), format!("{} trials", t.trials), &format!("1 to {MAX_TRIALS}"));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, p) in t.parameters.iter().enumerate() {
        let at = |f: &str| format!("tune.parameters[{i}].{f}");
        match parse_path(&p.path) {
            Err(e) => push(
                at("path"),
                format!("`{}` is not a field path: {e}", p.path),
                "a path such as `fabric.qos.classes[roce].ecn.kmin`",
            ),
            Ok(_) => {
                let top = p.path.split(['.', '[']).next().unwrap_or_default();
                if NOT_TUNABLE.contains(&top) {
                    push(
                        at("path"),
                        format!("`{}` is not a field a trial can set", p.path),
                        "a path under `fabric`, `simulation` or `workloads`",
                    );
                }
            }
        }
        if seen.contains(&p.path.as_str()) {
            push(at("path"), format!("`{}` is searched twice", p.path), "each path once");
        }
        seen.push(&p.path);
        match p.kind {
            ParameterKind::Choice => {
                for (set, f) in
                    [(p.low.is_some(), "low"), (p.high.is_some(), "high"), (p.log, "log"), (p.unit.is_some(), "unit")]
                {
                    if set {
                        push(at(f), format!("`{f}` is for `int` and `float` parameters"), "`values` for a `choice`");
                    }
                }
                match &p.values {
                    None => push(
                        at("values"),
                        "a `choice` parameter needs `values`".into(),
                        "a list of at least two values, e.g. `values: [50us, 300us]`",
                    ),
                    Some(v) if v.len() < 2 => {
                        push(at("values"), format!("{} value(s): nothing to choose", v.len()), "at least two values")
                    }
                    Some(v) => {
                        if let Some(bad) = v.iter().position(|x| x.is_array() || x.is_object() || x.is_null()) {
                            push(
                                format!("tune.parameters[{i}].values[{bad}]"),
                                "a choice must be one value".into(),
                                "a number, a string such as `300us`, or true/false",
                            );
                        }
                        if let Some(dup) = (1..v.len()).find(|&j| v[..j].contains(&v[j])) {
                            push(
                                format!("tune.parameters[{i}].values[{dup}]"),
                                format!("{} is listed twice", v[dup]),
                                "each value once",
                            );
                        }
                    }
                }
            }
            ParameterKind::Int | ParameterKind::Float => {
                let kind = if p.kind == ParameterKind::Int { "int" } else { "float" };
                if p.values.is_some() {
                    push(
                        at("values"),
                        format!("`values` is for `choice` parameters, not `{kind}`"),
                        "`low` and `high`",
                    );
                }
                if p.unit.is_some() && p.kind == ParameterKind::Float {
                    push(
                        at("unit"),
                        "`unit` is for `int` parameters".into(),
                        "an `int` parameter with a unit, e.g. `low: 20, high: 800, unit: KB`",
                    );
                }
                let (Some(low), Some(high)) = (p.low, p.high) else {
                    let f = if p.low.is_none() { "low" } else { "high" };
                    push(at(f), format!("a `{kind}` parameter needs `low` and `high`"), "both ends of the range");
                    continue;
                };
                for (f, v) in [("low", low), ("high", high)] {
                    if !v.is_finite() || (p.kind == ParameterKind::Int && (v.fract() != 0.0 || v.abs() > 1e15)) {
                        push(
                            at(f),
                            format!("{v} is not a{} number", if kind == "int" { "n integer" } else { " finite" }),
                            &format!("a{} {kind}", if kind == "int" { "n" } else { "" }),
                        );
                    }
                }
                if low >= high {
                    push(at("high"), format!("the range {low} to {high} is empty"), "`high` above `low`");
                }
                if p.log && low <= 0.0 {
                    push(at("low"), format!("a log scale cannot start at {low}"), "`low` above zero with `log: true`");
                }
            }
        }
    }
    if t.objective.is_empty() || t.objective.len() > 2 {
        push(
            "tune.objective".into(),
            format!("{} objectives", t.objective.len()),
            "one objective, or a list of two (their Pareto front is searched)",
        );
    }
    for (i, o) in t.objective.iter().enumerate() {
        let at = if t.objective.len() == 1 { "tune.objective".to_string() } else { format!("tune.objective[{i}]") };
        check_filter(&at, o.metric, o.flows_under, o.flows_over, &mut push);
    }
    for (i, c) in t.constraints.iter().enumerate() {
        let at = format!("tune.constraints[{i}]");
        check_constraint(&at, c, &mut push);
        check_filter(&at, c.metric, c.flows_under, c.flows_over, &mut push);
    }
}

fn check_constraint(at: &str, c: &Constraint, push: &mut impl FnMut(String, String, &str)) {
    match (c.min, c.max) {
        (None, None) => {
            push(at.into(), "a constraint needs `max` or `min`".into(), "`max: X` (at most) or `min: Y` (at least)")
        }
        (Some(_), Some(_)) => {
            push(format!("{at}.min"), "a constraint has `max` or `min`, not both".into(), "two constraints for a band")
        }
        (Some(v), None) | (None, Some(v)) if !v.is_finite() => {
            push(at.into(), format!("{v} is not a finite bound"), "a number")
        }
        _ => {}
    }
}

fn check_filter(
    at: &str,
    metric: Metric,
    under: Option<Size>,
    over: Option<Size>,
    push: &mut impl FnMut(String, String, &str),
) {
    let name = serde_json::to_value(metric).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    for (f, set) in [("flows_under", under.is_some()), ("flows_over", over.is_some())] {
        if set && !metric.is_per_flow() {
            push(
                format!("{at}.{f}"),
                format!("`{f}` narrows the flows of a per-flow metric; `{name}` is the run's"),
                "a metric `fct_*` or `flow_throughput_gbps`",
            );
        }
    }
    if let (Some(u), Some(o)) = (under, over) {
        if o.as_bytes() >= u.as_bytes() {
            push(
                format!("{at}.flows_over"),
                format!("no flow is at least {o} and under {u}"),
                "`flows_over` below `flows_under`",
            );
        }
    }
}
