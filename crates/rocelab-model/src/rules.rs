//! The rule IDs of `rocelab check`, for the fabric file's `expect:` list (the findings an
//! example demonstrates on purpose).
//!
//! The model cannot name rocelab-verify (it depends on the model), so the IDs are listed here;
//! rocelab-verify's tests require this list to equal its registry (`RULES`), ID for ID.

use crate::diag::{did_you_mean, problem, Problem};

/// Every rule ID `rocelab check` reports, in its registry's order.
pub const RULE_IDS: &[&str] = &[
    "MAP-TOS",
    "MAP-TRUST",
    "MAP-DSCP",
    "MAP-QUEUE",
    "PFC-MISSING",
    "PFC-LOSSY",
    "PFC-LINK-PAUSE",
    "PFC-EGRESS-POOL",
    "HEADROOM-SHORT",
    "HEADROOM-BUFFER",
    "ECN-OFF",
    "ECN-ORDER",
    "ECN-ABOVE-XOFF",
    "ETS-SUM",
    "ETS-LOSSLESS",
    "ETS-CNP",
    "DCQCN-OFF",
    "DCQCN-CNP",
    "MTU-MISMATCH",
    "MTU-SMALL",
    "MTU-JUMBO",
    "VXLAN-ECN",
    "VXLAN-DSCP",
    "BOND-RDMA",
    "BOND-LACP-SPLIT",
    "BOND-MLAG-PAIR",
    "DEADLOCK-CYCLE",
    "DEADLOCK-FAILURE",
    "DEADLOCK-BOUND",
    "DCBX-WILLING",
    "IMPORT-UNCABLED",
    "IMPORT-LLDP-PORT",
    "POLICY-DISSENT",
    "VLAN-UNTAGGED",
    "VLAN-UNDEFINED",
];

/// Each ID of `expect` must be a rule `rocelab check` has, listed once: a typo would otherwise
/// make an example's declared finding silently never match.
pub(crate) fn check_expect(expect: &[String], problems: &mut Vec<Problem>) {
    for (i, id) in expect.iter().enumerate() {
        let path = format!("expect[{i}]");
        if !RULE_IDS.contains(&id.as_str()) {
            let mut p = problem(path, format!("unknown rule ID `{id}`"));
            let near = did_you_mean(id, RULE_IDS.iter().copied())
                .unwrap_or_else(|| "`rocelab check --help` and its SARIF output's `rules` list them".into());
            p.diag = p.diag.expected("a rule ID of `rocelab check`, e.g. PFC-MISSING or ECN-OFF").suggest(Some(near));
            problems.push(p);
        } else if expect[..i].contains(id) {
            let p = problem(path, format!("rule ID `{id}` is listed twice"));
            problems.push(Problem { diag: p.diag.suggest(Some("list each rule once".into())), path: p.path });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Loaded;

    fn load(text: &str) -> Result<Loaded, crate::Diagnostics> {
        crate::load_str(text, "t.yaml", std::path::Path::new("."))
    }

    const FABRIC: &str = "fabric:
  name: t
  topology:
    devices:
      - {name: sw1, role: switch, model: SN2700}
      - {name: h1, role: host, nic: {vendor: nvidia, model: ConnectX-5, ports: 1, speed: 100G}}
    links:
      - {a: \"sw1:eth1/1\", b: \"h1:p0\"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
      - {name: default, priority: 0, dscp: [0]}
";

    #[test]
    fn expect_takes_known_rule_ids() {
        let l = load(&format!("{FABRIC}expect: [PFC-MISSING, ECN-OFF]\n")).expect("known IDs load");
        assert_eq!(l.scenario.expect.as_deref(), Some(&["PFC-MISSING".to_string(), "ECN-OFF".to_string()][..]));
        assert_eq!(load(FABRIC).unwrap().scenario.expect, None, "no `expect` is not an empty one");
    }

    #[test]
    fn an_unknown_or_repeated_rule_id_is_a_located_error_with_a_suggestion() {
        let e = load(&format!("{FABRIC}expect: [ECN-OF, PFC-MISSING, PFC-MISSING]\n")).unwrap_err();
        let e: Vec<String> = e.errors().map(ToString::to_string).collect();
        assert_eq!(
            e,
            [
                "t.yaml:14:10: error: expect[0]: unknown rule ID `ECN-OF` (expected a rule ID of `rocelab check`, e.g. PFC-MISSING or ECN-OFF); did you mean \"ECN-OFF\"?",
                "t.yaml:14:31: error: expect[2]: rule ID `PFC-MISSING` is listed twice; list each rule once",
            ]
        );
    }

    #[test]
    fn a_device_or_port_is_found_at_its_line() {
        let l = load(FABRIC).unwrap();
        assert_eq!(l.mark_of_device("h1", None).map(|m| m.line), Some(6));
        assert_eq!(l.mark_of_device("h1", Some("p0")).map(|m| m.line), Some(8), "the link naming the port");
        assert_eq!(l.mark_of_device("sw1", Some("eth1/2")).map(|m| m.line), Some(5), "an uncabled port: its device");
        assert_eq!(l.mark_of_device("nosuch", None), None);
        let g = load("fabric:\n  name: g\n  topology:\n    generator:\n      single-switch: {hosts: 2, speed: 100G}\n  qos:\n    marking: dscp\n    classes:\n      - {name: default, priority: 0, dscp: [0]}\n").unwrap();
        assert_eq!(g.mark_of_device("host1", Some("p0")).map(|m| m.line), Some(5), "the generator's settings");
    }
}
