//! `rocelab audit` without a fabric file (the intent from the devices' configuration beside the
//! counters, or from the counters), told the interval's length, and writing its HTML page.

use super::{check_page_in_chromium, fresh_dir, rocelab, text, workspace};
use std::path::Path;

const FABRIC: &str = "examples/arista-pure-single-hop-100g.yaml";
const AFTER: &str = "examples/counters/arista-pure-single-hop-100g/after";
const BEFORE: &str = "examples/counters/arista-pure-single-hop-100g/before";
const TWO_VENDOR: &str = "examples/device-outputs/two-vendor";

/// SONiC `show pfc counters` of `leaf2` (sonic-utilities `pfcstat`): pause on the lossless
/// priority 3 towards leaf1, and 5 pause frames sent on priority 0 towards host3.
const LEAF2_PFC: &str = "
  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0   1,204       0       0       0       0
Ethernet4       0       0       0       0       0       0       0       0

  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0      17       0       0       0       0
Ethernet4       5       0       0       0       0       0       0       0
";

/// A fresh folder holding copies of `files` of `from`.
fn copy(name: &str, from: &str, files: &[&str]) -> super::Scratch {
    let dir = fresh_dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in files {
        std::fs::copy(workspace().join(from).join(f), dir.join(f)).unwrap();
    }
    dir
}

fn all_files(of: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(workspace().join(of))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn without_a_fabric_file_the_intent_is_the_configuration_beside_the_counters() {
    let files = all_files(TWO_VENDOR);
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let dir = copy("audit-imported", TWO_VENDOR, &names);
    std::fs::write(dir.join("leaf2.pfc.txt"), LEAF2_PFC).unwrap();
    let d = dir.to_str().unwrap();
    let out = rocelab(&["audit", "--counters", d]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    // The configuration makes priority 3 lossless: its pause is no finding, priority 0's is.
    assert!(stdout.contains("error   AUDIT-PAUSE-LOSSY leaf2:Ethernet4  [priority 0]"), "{stdout}");
    assert!(stdout.contains("0 PFC pause frames received and 5 sent on priority 0"), "{stdout}");
    assert!(!stdout.contains("leaf2:Ethernet0"), "{stdout}");
    assert!(
        stdout.ends_with(&format!("{d} against the configuration in {d}: 1 error, 0 warnings, 0 notes\n")),
        "{stdout}"
    );
    // The configuration and LLDP files are the intent, not counter files that cannot be read.
    assert!(!text(&out.stderr).contains("not counter output"), "{}", text(&out.stderr));

    // The adapter's CNP settings against the configuration's CNP class (priority 6, DSCP 48).
    std::fs::write(
        dir.join("host3.cnp.txt"),
        "/sys/class/net/ens1f0np0/ecn/roce_np/cnp_802p_prio:3\n/sys/class/net/ens1f0np0/ecn/roce_np/cnp_dscp:48\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("host3.hw_counters.txt"),
        "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:40\n",
    )
    .unwrap();
    let stdout = text(&rocelab(&["audit", "--counters", d]).stdout);
    assert!(stdout.contains("error   AUDIT-CNP-PRIORITY host3:ens1f0np0"), "{stdout}");
    assert!(
        stdout.contains(
            "the adapter sends CNPs with priority 3, where the fabric's CNP class is on priority 6; 40 CNPs sent"
        ),
        "{stdout}"
    );
}

#[test]
fn configuration_without_cabling_is_a_clear_error() {
    let dir = copy("audit-uncabled", TWO_VENDOR, &["leaf1.cfg", "leaf2.json"]);
    std::fs::write(dir.join("leaf2.pfc.txt"), LEAF2_PFC).unwrap();
    let out = rocelab(&["audit", "--counters", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("no cabling: no LLDP neighbour output"), "{err}");
    assert!(err.contains("or give the fabric file: `rocelab audit FABRIC --counters"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn without_fabric_or_configuration_the_counters_show_the_intent() {
    let out = rocelab(&["audit", "--counters", AFTER, "--baseline", BEFORE]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    let err = text(&out.stderr);
    // Three of the four devices that pause do so on priority 3 only; init2 also on 0.
    assert!(err.contains("the intent is inferred from the counters: lossless priorities 3 (3 of 4 devices)"), "{err}");
    // The same findings as against the fabric file.
    let with_file = text(&rocelab(&["audit", FABRIC, "--counters", AFTER, "--baseline", BEFORE]).stdout);
    let ids = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("error ") || l.starts_with("note "))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&stdout), ids(&with_file));
    assert!(stdout.contains("AUDIT-PAUSE-LOSSY init2  [priority 0]"), "{stdout}");
}

#[test]
fn a_folder_with_neither_configuration_nor_pause_is_a_clear_error() {
    let dir = copy("audit-neither", AFTER, &["init3.hw_counters.txt"]);
    let out = rocelab(&["audit", "--counters", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "no fabric file, no device configuration in the folder, and no counter shows PFC pause on any priority"
        ),
        "{err}"
    );
    assert!(err.contains("help: give the fabric file (`rocelab audit FABRIC --counters"), "{err}");
    assert!(text(&out.stdout).is_empty());
}

#[test]
fn the_interval_judges_the_share_of_time_paused() {
    // init1's rx_prio3_pause_duration was cleared and counts 710 us since: 14.2% of 5 ms.
    let args = ["audit", FABRIC, "--counters", AFTER, "--baseline", BEFORE, "--interval", "0.005"];
    let stdout = text(&rocelab(&args).stdout);
    assert!(stdout.contains("warning AUDIT-PAUSE-STORM init1:eth1  [nvme-roce (priority 3)]"), "{stdout}");
    assert!(
        stdout.contains(
            "14.2% of the 0.005 s interval spent paused by its peer on priority 3 (710 us; the threshold is 10.0%)"
        ),
        "{stdout}"
    );
    // Near miss: a threshold above every port's share (the most is init2's 890 us, 17.8%).
    assert!(stdout.contains("17.8% of the 0.005 s interval"), "{stdout}");
    let mut lax = args.to_vec();
    lax.extend(["--pause-share", "18"]);
    assert!(!text(&rocelab(&lax).stdout).contains("AUDIT-PAUSE-STORM"));
    // An interval that is not a length of time.
    let out = rocelab(&["audit", FABRIC, "--counters", AFTER, "--interval", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--interval 0: expected the seconds the counters cover, above 0"),
        "{}",
        text(&out.stderr)
    );
}

/// The element of `html` from `start` to the end of its section.
fn section<'a>(html: &'a str, start: &str) -> &'a str {
    html.split(start).nth(1).unwrap_or_else(|| panic!("no {start}")).split("</section>").next().unwrap()
}

#[test]
fn the_audit_page_has_each_finding_beside_each_ports_counters_and_loads_in_chromium() {
    let dir = fresh_dir("audit-page");
    let out = rocelab(&[
        "audit",
        FABRIC,
        "--counters",
        AFTER,
        "--baseline",
        BEFORE,
        "--format",
        "json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("audit.html"), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["intent"], "the fabric file (`arista-pure-single-hop-100g`)");
    let html = std::fs::read_to_string(dir.join("audit.html")).unwrap();
    let esc = |s: &str| {
        s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
    };
    // Each finding, in the section of its port.
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 4);
    for f in findings {
        let place = format!("{}-{}", f["device"].as_str().unwrap(), f["port"].as_str().unwrap_or(""));
        let s = section(&html, &format!(r#"id="port-{}""#, place.trim_end_matches('-')));
        assert!(s.contains(f["id"].as_str().unwrap()), "{place}");
        assert!(s.contains(&esc(f["what"].as_str().unwrap())), "{place}: {}", f["what"]);
    }
    // Each port's counters: every counter read is in its port's table, by the name printed.
    let counters = v["counters"].as_array().unwrap();
    for c in counters {
        let place = format!("{}-{}", c["device"].as_str().unwrap(), c["port"].as_str().unwrap_or(""));
        let id = place.trim_end_matches('-').replace(['/', ':', '.'], "-");
        let s = section(&html, &format!(r#"id="port-{id}""#));
        assert!(s.contains(&format!("<td>{}</td>", esc(c["name"].as_str().unwrap()))), "{id}: {}", c["name"]);
        if c["value"].as_u64().unwrap() > 0 && !c["counter"].as_str().unwrap().ends_with("duration") {
            assert!(s.contains(r#"<figure class="chart""#), "{id}: a counter above 0 is charted");
        }
    }
    check_page_in_chromium(Path::new(&dir), "audit.html", &html, 5);
}
