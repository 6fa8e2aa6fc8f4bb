//! The SARIF 2.1.0 log of an audit (OASIS Static Analysis Results Interchange Format 2.1.0):
//! `check`'s results ([`crate::render::sarif`]: each finding at the counter file and line it
//! was read from), with the audit's own rules as the tool's rules, and each counter file that
//! could not be read as a tool execution notification (§3.58), so that a code-scanning view
//! shows both what the counters say and what the audit could not read.

use super::{rules, Level, Problem};
use crate::finding::Finding;
use serde_json::{json, Value};

/// The log of `findings` (from the counters of `problems`' files, read against `fabric_file`).
/// The run is marked unsuccessful (`executionSuccessful: false`) when a file could not be read:
/// the audit is then of part of the fabric only.
pub fn sarif(findings: &[Finding], problems: &[Problem], fabric_file: &str) -> Value {
    let mut log = crate::render::sarif(findings, fabric_file);
    let run = &mut log["runs"][0];
    run["tool"]["driver"]["rules"] = rules::RULES
        .iter()
        .map(|(id, summary)| json!({"id": id, "name": id.replace('-', ""), "shortDescription": {"text": summary}}))
        .collect();
    if let Some(results) = run["results"].as_array_mut() {
        for r in results {
            let id = r["ruleId"].as_str().unwrap_or_default();
            // SARIF §3.27.6: -1 when the rule is not among the driver's.
            r["ruleIndex"] = json!(rules::RULES.iter().position(|(x, _)| *x == id).map_or(-1, |i| i as i64));
            if let Some(p) = r["properties"].as_object_mut() {
                p.remove("check");
            }
        }
    }
    let notifications: Vec<Value> = problems
        .iter()
        .map(|p| {
            let mut location = json!({"physicalLocation": {"artifactLocation": {"uri": p.file}}});
            if p.line > 0 {
                let mut region = json!({"startLine": p.line});
                if p.column > 0 {
                    region["startColumn"] = json!(p.column);
                }
                location["physicalLocation"]["region"] = region;
            }
            json!({
                "level": match p.level { Level::Error => "error", Level::Warning => "warning" },
                "message": {"text": format!("{} Fix: {}", p.message, p.hint)},
                "locations": [location],
            })
        })
        .collect();
    let unreadable = problems.iter().any(|p| p.level == Level::Error);
    run["invocations"] = json!([{
        "executionSuccessful": !unreadable,
        "toolExecutionNotifications": notifications,
    }]);
    log
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::testfabric::fabric;
    use crate::audit::{audit, Counter, Sample};
    use crate::state::Origin;

    fn pause_on_lossy() -> Vec<Finding> {
        let s = Sample {
            device: "h1".into(),
            port: Some("p0".into()),
            priority: Some(0),
            queue: None,
            counter: Counter::RxPause,
            name: "rx_prio0_pause".into(),
            value: 146,
            at: Origin { file: "c/h1.ethtool.txt".into(), line: 16 },
        };
        audit(&fabric(), &[s], &[], true)
    }

    #[test]
    fn a_finding_is_a_result_at_its_counter_line_under_an_audit_rule() {
        let findings = pause_on_lossy();
        assert_eq!(findings.len(), 1);
        let log = sarif(&findings, &[], "f.yaml");
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), rules::RULES.len());
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "AUDIT-PAUSE-LOSSY");
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], "AUDIT-PAUSE-LOSSY");
        assert_eq!(r["level"], "error");
        let at = &r["locations"][0]["physicalLocation"];
        assert_eq!(at["artifactLocation"]["uri"], "c/h1.ethtool.txt");
        assert_eq!(at["region"]["startLine"], 16);
        assert_eq!(r["locations"][0]["logicalLocations"][0]["name"], "h1:p0");
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    }

    /// A file that could not be read is a notification, located, and the run not successful; a
    /// warning alone (a port left out) keeps it successful.
    #[test]
    fn unreadable_input_is_a_notification_and_a_warning_is_not_a_failure() {
        let bad =
            Problem::error("c/h1.ethtool.txt", 9, 22, "counter `rx_prio3_pause`: `x` is not a number", "collect again");
        let log = sarif(&[], &[bad], "f.yaml");
        let inv = &log["runs"][0]["invocations"][0];
        assert_eq!(inv["executionSuccessful"], false);
        let n = &inv["toolExecutionNotifications"][0];
        assert_eq!(n["level"], "error");
        assert_eq!(n["locations"][0]["physicalLocation"]["region"]["startLine"], 9);
        assert_eq!(n["locations"][0]["physicalLocation"]["region"]["startColumn"], 22);
        assert!(n["message"]["text"].as_str().unwrap().contains("is not a number"));

        let left_out = Problem::warning("c/sw1.pfc.txt", 4, "`Ethernet99` is not a port", "add it");
        let log = sarif(&[], &[left_out], "f.yaml");
        let inv = &log["runs"][0]["invocations"][0];
        assert_eq!(inv["executionSuccessful"], true);
        assert_eq!(inv["toolExecutionNotifications"][0]["level"], "warning");
        assert!(inv["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["region"]
            .get("startColumn")
            .is_none());
    }
}
