//! What `rocelab config` writes reads back through `rocelab check --import` with the settings the
//! fabric gave, port by port.

use super::{fresh_dir, rocelab, text};

/// The two-speed leaf-spine (`two-speed-ecn.yaml`: ECN, alpha, headroom and reserve by link
/// speed) rendered for SONiC and imported again: each port's ECN thresholds and alpha come back
/// (`WRED_PROFILE` per queue, `dynamic_th` per buffer profile), so the check finds what it finds
/// on the fabric file — the 100G Kmax above its XOFF point on the four host ports, nothing on
/// the 400G uplinks, whose alpha of 1/2 puts XOFF above their 6.4 MB Kmax.
#[test]
fn sonic_config_of_a_two_speed_fabric_reads_back_port_by_port() {
    let dir = fresh_dir("config-check-two-speed");
    let configs = dir.join("configs");
    let fabric = "crates/rocelab-verify/tests/fabrics/two-speed-ecn.yaml";
    let out = rocelab(&["config", fabric, "--out", configs.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Only the switches' config_db.json files: the hosts' scripts are not an import format.
    let import = dir.join("import");
    std::fs::create_dir_all(&import).unwrap();
    for sw in ["leaf1", "leaf2", "spine1"] {
        let f = format!("{sw}.config_db.json");
        std::fs::copy(configs.join(&f), import.join(&f)).unwrap();
    }
    let links = dir.join("links.yaml");
    let mut cabling = String::from("links:\n");
    for (leaf, spine_port) in [("leaf1", "Ethernet0"), ("leaf2", "Ethernet4")] {
        let hosts = if leaf == "leaf1" { ["host1", "host2"] } else { ["host3", "host4"] };
        for (port, host) in ["Ethernet0", "Ethernet4"].iter().zip(hosts) {
            cabling += &format!("  - {{a: \"{leaf}:{port}\", b: \"{host}:p0\", speed: 100G, cable: 3m}}\n");
        }
        cabling += &format!("  - {{a: \"{leaf}:Ethernet8\", b: \"spine1:{spine_port}\", speed: 400G, cable: 10m}}\n");
    }
    cabling += "hosts: [host1, host2, host3, host4]\npolicy: {lossless: [3], rdma_dscp: 26}\n";
    std::fs::write(&links, cabling).unwrap();
    let out = rocelab(&["check", "--import", import.to_str().unwrap(), "--links", links.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("0 errors, 0 warnings, 1 note"), "{stdout}");
    assert!(stdout.contains("ECN-ABOVE-XOFF   leaf1:Ethernet0"), "{stdout}");
    assert!(stdout.contains("ECN Kmax 4000000 B") && stdout.contains("this port's alpha 0.125"), "{stdout}");
    assert!(stdout.contains("also on 3 other ports: leaf1:Ethernet4, leaf2:Ethernet0, leaf2:Ethernet4"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Switch files end by saving the configuration unless `--no-save` is given; the runbook then
/// says how to save once the checks pass.
#[test]
fn no_save_leaves_out_the_final_save_and_the_runbook_says_so() {
    let fabric = "examples/arista-pure-single-hop-25g.yaml";
    let saved = rocelab(&["config", fabric, "--device", "sw1"]);
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    let saved = text(&saved.stdout);
    assert!(saved.trim_end().ends_with("copy running-config startup-config"), "{saved}");
    let unsaved = rocelab(&["config", fabric, "--device", "sw1", "--no-save"]);
    assert!(unsaved.status.success(), "{}", text(&unsaved.stderr));
    let unsaved = text(&unsaved.stdout);
    assert!(!unsaved.contains("copy running-config startup-config"), "{unsaved}");
    assert!(saved.starts_with(unsaved.trim_end_matches('\n')), "only the save step differs");
    let dir = fresh_dir("config-no-save");
    let out = rocelab(&["config", fabric, "--out", dir.to_str().unwrap(), "--no-save"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runbook = std::fs::read_to_string(dir.join("RUNBOOK.md")).unwrap();
    assert!(
        runbook.contains("not saved (`--no-save`): `copy running-config startup-config` once the checks pass"),
        "{runbook}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same configurations imported without a policy: the check infers it from the switches,
/// says so first, finds no error in them, and keeps JSON to the findings (the inferred policy
/// on stderr).
#[test]
fn a_policy_inferred_from_the_devices_is_stated_first() {
    let dir = fresh_dir("config-check-inferred");
    let configs = dir.join("configs");
    let fabric = "crates/rocelab-verify/tests/fabrics/two-speed-ecn.yaml";
    let out = rocelab(&["config", fabric, "--out", configs.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let import = dir.join("import");
    std::fs::create_dir_all(&import).unwrap();
    for sw in ["leaf1", "leaf2", "spine1"] {
        let f = format!("{sw}.config_db.json");
        std::fs::copy(configs.join(&f), import.join(&f)).unwrap();
    }
    let links = dir.join("links.yaml");
    let mut cabling = String::from("links:\n");
    for (leaf, spine_port) in [("leaf1", "Ethernet0"), ("leaf2", "Ethernet4")] {
        cabling += &format!("  - {{a: \"{leaf}:Ethernet8\", b: \"spine1:{spine_port}\", speed: 400G, cable: 10m}}\n");
    }
    std::fs::write(&links, cabling).unwrap();
    let args = ["check", "--import", import.to_str().unwrap(), "--links", links.to_str().unwrap()];
    let out = rocelab(&args);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.starts_with("policy inferred from the devices (no policy in the links file):\n"), "{stdout}");
    assert!(stdout.contains("  lossless priorities  3 (3 of 3 devices)\n"), "{stdout}");
    assert!(stdout.contains("  RDMA DSCP            26 (3 of 3 devices)\n"), "{stdout}");
    assert!(!stdout.contains("POLICY-DISSENT"), "{stdout}");
    let out = rocelab(&[&args[..], &["--format", "json"]].concat());
    let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert!(json.is_array(), "{json}");
    assert!(text(&out.stderr).contains("policy inferred from the devices"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
