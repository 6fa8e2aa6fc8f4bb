//! `check` and `sim` speak of a fabric with the same findings: the simulator's build warnings
//! carry `check`'s rule IDs and wording; examples declare the findings they demonstrate
//! (`expect:`) and every shipped example passes `check`; `--format json|sarif` stay
//! machine-readable on load errors and point SARIF regions at the lines of the fabric file.

use super::{fresh_dir, rocelab, text};
use serde_json::Value;

/// One switch, three hosts, RoCE lossless on priority 3, and PFC off for it on host3's port.
const PFC_OFF_AT_HOST3: &str = r#"fabric:
  name: pfc-missing
  topology:
    generator:
      single-switch: {hosts: 3, speed: 100G, cable: 3m}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 60, ecn: {kmin: 100KB, kmax: 400KB, pmax: 0.2}}
      - {name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}
      - {name: default, priority: 0, dscp: [0], ets: 40}
    ports:
      - {ports: ["host3:p0"], pfc: {roce: false}}
simulation:
  duration: 200us
workloads:
  incast:
    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB}
"#;

/// The simulator's warning about a lossless hop without PFC is `check`'s `PFC-MISSING`: same
/// rule, place, class, what, why, fix and source (the simulator runs it, so it is a warning
/// there and an error in `check`).
#[test]
fn the_simulators_lossless_hop_without_pfc_is_checks_pfc_missing() {
    let dir = fresh_dir("sim-pfc-missing");
    std::fs::create_dir_all(&dir).unwrap();
    let fabric = dir.join("pfc.yaml");
    std::fs::write(&fabric, PFC_OFF_AT_HOST3).unwrap();
    let f = fabric.to_str().unwrap();

    let out = rocelab(&["check", "--format", "json", f]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check: Vec<&Value> = check.as_array().unwrap().iter().filter(|x| x["id"] == "PFC-MISSING").collect();
    assert_eq!(check.len(), 1, "{check:#?}");

    let out = rocelab(&["sim", "--format", "json", f]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sim = run["warnings"].as_array().unwrap();
    assert_eq!(sim.len(), 1, "{sim:#?}");
    for key in ["id", "device", "port", "class", "what", "why", "fix", "source"] {
        assert_eq!(sim[0][key], check[0][key], "{key}");
    }
    assert_eq!((sim[0]["severity"].as_str(), check[0]["severity"].as_str()), (Some("warning"), Some("error")));
    // The text run says it as check's table does: the rule, the port and class, then what, why
    // and fix.
    let out = rocelab(&["sim", f]);
    let err = text(&out.stderr);
    assert!(err.contains("warning: PFC-MISSING host3:p0  [roce (priority 3)]\n"), "{err}");
    assert!(err.contains("    fix    enable PFC for priority 3 on this port"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
