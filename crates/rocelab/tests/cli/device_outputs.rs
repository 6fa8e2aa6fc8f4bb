//! `rocelab check --import` on the sample device outputs of `examples/device-outputs/`, as the
//! README tells a newcomer to try it: the correct two-vendor fabric gives no finding, and the
//! same captures with one port's PFC turned off give exactly that finding.

use super::{fresh_dir, rocelab, text, workspace};

const SAMPLE: &str = "examples/device-outputs/two-vendor";

/// Every file of the sample is read (nothing reported as not understood) and the fabric it
/// forms, two switches of two vendors and four hosts, is correct; the README's command is this
/// one and says so.
#[test]
fn the_two_vendor_sample_checks_clean() {
    let out = rocelab(&["check", "--import", SAMPLE]);
    // Lines that do not bear on QoS are counted, not listed.
    assert_eq!(text(&out.stderr), "3 lines not related to QoS ignored\n");
    // No policy is given: the one the devices agree on is stated first, with no dissent.
    let policy = "policy inferred from the devices (no policy in the links file):
  lossless priorities  3 (6 of 6 devices)
  RDMA DSCP            26 (2 of 2 devices)
  CNP priority         6 (2 of 2 devices)
  trust                DSCP (2 of 2 devices)
";
    assert_eq!(text(&out.stdout), format!("{policy}{SAMPLE}: no findings\n"));
    assert_eq!(out.status.code(), Some(0));
    let readme = std::fs::read_to_string(workspace().join("examples/device-outputs/README.md")).unwrap();
    assert!(readme.contains(&format!("rocelab check --import {SAMPLE}\n")), "{readme}");
    let top = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    assert!(top.contains(&format!("rocelab check --import {SAMPLE}")), "README.md does not show the sample");
}

/// The sample is checked, not skipped: turning PFC off on the SONiC leaf's port to host3 (an
/// empty `pfc_enable`) is the one finding, at that port.
#[test]
fn the_two_vendor_sample_with_pfc_off_on_one_port_gives_that_finding() {
    let dir = fresh_dir("device-outputs-pfc-off");
    std::fs::create_dir_all(&dir).unwrap();
    let sample = workspace().join(SAMPLE);
    for e in std::fs::read_dir(&sample).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    let json = std::fs::read_to_string(dir.join("leaf2.json")).unwrap();
    let qos = json.find("\"PORT_QOS_MAP\"").unwrap();
    let port = qos + json[qos..].find("\"Ethernet4\"").unwrap();
    let pfc = port + json[port..].find("\"pfc_enable\": \"3\"").unwrap();
    let broken = format!("{}\"pfc_enable\": \"\"{}", &json[..pfc], &json[pfc + "\"pfc_enable\": \"3\"".len()..]);
    std::fs::write(dir.join("leaf2.json"), broken).unwrap();
    let out = rocelab(&["check", "--import", dir.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    let findings: Vec<&str> = stdout.lines().filter(|l| !l.starts_with(' ') && l.contains("  ")).collect();
    assert_eq!(findings, ["error   PFC-MISSING      leaf2:Ethernet4  [rdma (priority 3)]"], "{stdout}");
    assert!(stdout.contains(&format!("at     {}:19\n", dir.join("leaf2.json").display())), "{stdout}");
    assert!(stdout.ends_with(": 1 error, 0 warnings, 0 notes\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
