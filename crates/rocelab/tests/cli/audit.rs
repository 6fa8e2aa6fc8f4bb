//! `rocelab audit` on the sample counters shipped in examples/counters/ (two snapshots of the
//! single-hop Arista/Pure fabric, as the README shows it): findings, exit codes, JSON, and input
//! that cannot be read.

use super::{fresh_dir, rocelab, text};

const FABRIC: &str = "examples/arista-pure-single-hop-100g.yaml";
const AFTER: &str = "examples/counters/arista-pure-single-hop-100g/after";
const BEFORE: &str = "examples/counters/arista-pure-single-hop-100g/before";

#[test]
fn audit_over_an_interval_finds_what_the_sample_holds() {
    let out = rocelab(&["audit", FABRIC, "--counters", AFTER, "--baseline", BEFORE]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    assert!(stdout.contains("error   AUDIT-PAUSE-LOSSY init2:eth1  [default (priority 0)]"), "{stdout}");
    // 146 in the later snapshot, 0 in the baseline.
    assert!(
        stdout.contains("146 PFC pause frames received and 0 sent on priority 0 over the interval since the baseline"),
        "{stdout}"
    );
    // 5790 - 5010 marks, no CNP.
    assert!(stdout.contains("error   AUDIT-ECN-NO-CNP init3:eth1"), "{stdout}");
    assert!(stdout.contains("780 ECN-marked RoCE packets received and no CNP sent"), "{stdout}");
    assert!(stdout.contains("error   AUDIT-RDMA-LOSS  init4:eth1"), "{stdout}");
    assert!(
        stdout.contains("37 out-of-sequence packets, 12 packet sequence errors and 0 local ACK timeouts"),
        "{stdout}"
    );
    assert!(stdout.contains("note    AUDIT-COUNTER-RESET init1:eth1"), "{stdout}");
    assert!(stdout.contains(&format!("at     {AFTER}/init1.ethtool.txt:16")), "{stdout}");
    assert!(stdout.ends_with(&format!("{AFTER} against {FABRIC}: 3 errors, 0 warnings, 1 note\n")), "{stdout}");
    // The switch's pause is all on ports that run PFC: nothing about sw1.
    assert!(!stdout.contains("sw1"), "{stdout}");
}

#[test]
fn audit_without_a_baseline_reads_totals_and_json_has_the_counters() {
    let out = rocelab(&["audit", FABRIC, "--counters", AFTER, "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    // Without an interval the loss may be old: a warning; no reset can be seen.
    assert_eq!(ids, [("AUDIT-PAUSE-LOSSY", "error"), ("AUDIT-ECN-NO-CNP", "error"), ("AUDIT-RDMA-LOSS", "warning")]);
    let sw1_et53_rx = v["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["device"] == "sw1" && c["port"] == "Ethernet53/1" && c["counter"] == "rx_pause")
        .unwrap();
    assert_eq!(sw1_et53_rx["value"], 402);
    assert_eq!(sw1_et53_rx["at"]["line"], 6);
}

/// Copies the named files of the later snapshot into a fresh folder.
fn sample(name: &str, files: &[&str]) -> super::Scratch {
    let dir = fresh_dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in files {
        std::fs::copy(format!("{}/{AFTER}/{f}", super::workspace().display()), dir.join(f)).unwrap();
    }
    dir
}

#[test]
fn warnings_fail_the_audit_only_with_strict() {
    let dir = sample("audit-strict", &["init4.hw_counters.txt", "init1.ethtool.txt"]);
    let d = dir.to_str().unwrap();
    let out = rocelab(&["audit", FABRIC, "--counters", d]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("0 errors, 1 warning, 0 notes"), "{}", text(&out.stdout));
    let out = rocelab(&["audit", FABRIC, "--counters", d, "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_devices_and_bad_counters_are_located_and_lose_nothing_else() {
    let dir = sample("audit-bad", &["init2.ethtool.txt", "init3.hw_counters.txt"]);
    std::fs::write(dir.join("leaf9.pfc.txt"), "Port        RxPfc       TxPfc\nEt1          0          0\n").unwrap();
    let cut = std::fs::read_to_string(dir.join("init3.hw_counters.txt"))
        .unwrap()
        .replace("rp_cnp_handled:6890", "rp_cnp_handled:6,8x");
    std::fs::write(dir.join("init3.hw_counters.txt"), cut).unwrap();
    let d = dir.to_str().unwrap();
    let out = rocelab(&["audit", FABRIC, "--counters", d]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "{d}/leaf9.pfc.txt:1: error: `leaf9.pfc.txt` does not start with a device of the fabric"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("help: name counter files `<device>.<anything>.txt`"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{d}/init3.hw_counters.txt:10:65: error: counter `rp_cnp_handled`: `6,8x` is not a number"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("error: 2 problems in the counter files (above)"), "{stderr}");
    // The other files' findings are all there.
    assert!(
        stdout.contains("AUDIT-PAUSE-LOSSY init2:eth1") && stdout.contains("AUDIT-ECN-NO-CNP init3:eth1"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_counters_folder_that_does_not_exist_is_an_error() {
    let out = rocelab(&["audit", FABRIC, "--counters", "examples/counters/nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("examples/counters/nowhere: cannot read the folder"), "{}", text(&out.stderr));
}

#[test]
fn audit_as_sarif_places_each_finding_at_its_counter_line() {
    let out = rocelab(&["audit", FABRIC, "--counters", AFTER, "--baseline", BEFORE, "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["ruleId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["AUDIT-PAUSE-LOSSY", "AUDIT-ECN-NO-CNP", "AUDIT-RDMA-LOSS", "AUDIT-COUNTER-RESET"]);
    for r in results {
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"], r["ruleId"]);
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.starts_with(AFTER), "{uri}");
    }
    // The reset, as the text output places it.
    let reset = &results[3]["locations"][0]["physicalLocation"];
    assert_eq!(reset["artifactLocation"]["uri"], format!("{AFTER}/init1.ethtool.txt"));
    assert_eq!(reset["region"]["startLine"], 16);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn audit_as_sarif_reports_an_unreadable_file_as_a_located_notification() {
    let dir = sample("audit-sarif-bad", &["init2.ethtool.txt"]);
    std::fs::write(dir.join("leaf9.pfc.txt"), "Port        RxPfc       TxPfc\nEt1          0          0\n").unwrap();
    let d = dir.to_str().unwrap();
    let out = rocelab(&["audit", FABRIC, "--counters", d, "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inv = &v["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let n = &inv["toolExecutionNotifications"][0];
    assert_eq!(n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], format!("{d}/leaf9.pfc.txt"));
    assert!(n["message"]["text"].as_str().unwrap().contains("does not start with a device of the fabric"));
    // The readable file's finding is still there.
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "AUDIT-PAUSE-LOSSY");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small incast, simulated: two hosts send to a third at line rate on the lossless class,
/// so the switch pauses the senders on priority 3 and on no other.
const INCAST: &str = "fabric:\n  name: incast\n  topology:\n    generator:\n      single-switch: {hosts: 3, speed: 100G}\n  \
    qos:\n    marking: dscp\n    classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 50}\n      \
    - {name: default, priority: 0, dscp: [0], ets: 50}\nsimulation: {duration: 200us}\nworkloads:\n  flows:\n    \
    - {name: a, from: host1, to: host3, class: roce, rate: 100G}\n    \
    - {name: b, from: host2, to: host3, class: roce, rate: 100G}\n";

fn find_results(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(r) = find_results(&p) {
                return Some(r);
            }
        } else if p.file_name().is_some_and(|n| n == "results.json") {
            return Some(p);
        }
    }
    None
}

#[test]
fn expect_sets_each_counter_beside_the_simulation_and_flags_what_the_model_does_not_predict() {
    let dir = fresh_dir("audit-expect");
    std::fs::create_dir_all(dir.join("counters")).unwrap();
    let fabric = dir.join("incast.yaml");
    std::fs::write(&fabric, INCAST).unwrap();
    let f = fabric.to_str().unwrap();
    let out = rocelab(&["sim", f, "--out", dir.join("sim").to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let results = find_results(&dir.join("sim")).expect("rocelab sim --out wrote a results.json");
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    // host1's one port, and the pause frames the simulation says it received on priority 3.
    let host1 = run["names"]["nodes"].as_array().unwrap().iter().position(|n| n == "host1").unwrap();
    let port = run["results"]["ports"].as_array().unwrap().iter().find(|p| p["node"] == host1).unwrap();
    let predicted = port["priorities"][3]["pfc_received"].as_u64().unwrap();
    assert!(predicted > 0, "the incast pauses host1: {port}");
    assert_eq!(port["priorities"][0]["pfc_received"], 0);

    let counters = dir.join("counters");
    let audit = |prio0: u64| {
        std::fs::write(
            counters.join("host1.ethtool.txt"),
            format!("NIC statistics:\n     rx_prio0_pause: {prio0}\n     rx_prio3_pause: {predicted}\n"),
        )
        .unwrap();
        let args = ["audit", f, "--counters", counters.to_str().unwrap(), "--expect", results.to_str().unwrap()];
        let out = rocelab(&[&args[..], &["--format", "json"]].concat());
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
        (v, rocelab(&args))
    };

    // Pause on priority 0, which the model never pauses: a divergence, beside the pause on the
    // lossless priority, which agrees.
    let (v, text_out) = audit(146);
    let diverging: Vec<&serde_json::Value> =
        v["findings"].as_array().unwrap().iter().filter(|x| x["id"] == "AUDIT-SIM-DIVERGES").collect();
    assert_eq!(diverging.len(), 1, "{v}");
    assert!(
        diverging[0]["what"]
            .as_str()
            .unwrap()
            .starts_with("146 PFC pause frames received on priority 0 where the simulation predicts none"),
        "{v}"
    );
    let compared = v["expected"]["comparisons"].as_array().unwrap();
    let on3 = compared.iter().find(|c| c["priority"] == 3 && c["counter"] == "rx_pause").unwrap();
    assert_eq!(
        (on3["observed"].as_u64(), on3["predicted"].as_u64(), &on3["agrees"]),
        (Some(predicted), Some(predicted), &serde_json::json!(true))
    );
    assert_eq!(v["expected"]["tolerance"]["factor"], 2.0);
    let t = text(&text_out.stdout);
    assert!(t.contains("AUDIT-SIM-DIVERGES host1:"), "{t}");
    assert!(t.contains("beside the simulation: 2 counters compared, 1 agree"), "{t}");

    // Near miss: a few frames on priority 0 are within the tolerance (the pause on a lossy
    // priority is still AUDIT-PAUSE-LOSSY, a rule of the intent, not of the model).
    let (v, _) = audit(4);
    let ids: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap()).collect();
    assert!(!ids.contains(&"AUDIT-SIM-DIVERGES") && ids.contains(&"AUDIT-PAUSE-LOSSY"), "{ids:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expect_with_a_file_that_is_not_sim_results_is_a_located_error() {
    let dir = fresh_dir("audit-expect-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("results.json");
    std::fs::write(&bad, "{\"scenario\": \"x\"}\n").unwrap();
    let out = rocelab(&["audit", FABRIC, "--counters", AFTER, "--expect", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains(bad.to_str().unwrap()) && err.contains("rocelab sim --out"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
