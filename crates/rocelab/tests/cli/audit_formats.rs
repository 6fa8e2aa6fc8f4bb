//! `rocelab audit` on the SONiC and `rdma -j` sample counters in examples/counters/ (the
//! two-tier incast fabric with DCQCN, as the README shows it): the buffer watermarks, the WRED
//! and ECN queue counters and the RDMA link counters read from their files, and the headroom
//! watermark read against the headroom the model gives the port.

use super::{rocelab, text, workspace};

const FABRIC: &str = "examples/sim-incast-two-tier.yaml";
const COUNTERS: &str = "examples/counters/sim-incast-two-tier";

#[test]
fn a_headroom_watermark_near_the_ports_headroom_is_found_with_its_numbers() {
    let out = rocelab(&["audit", FABRIC, "--variant", "dcqcn", "--counters", COUNTERS, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "a warning alone passes without --strict: {}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counters = v["counters"].as_array().unwrap();
    let find = |device: &str, port: &str, counter: &str| {
        counters
            .iter()
            .find(|c| c["device"] == device && c["port"] == port && c["counter"] == counter && c["value"] != 0)
    };
    // The watermark as read from the file, and the headroom the model computes for the port.
    let wm = find("leaf2", "Ethernet40", "headroom_watermark").expect("leaf2's uplink watermark");
    assert_eq!((wm["queue"].as_u64(), wm["at"]["line"].as_u64()), (Some(3), Some(14)));
    let loaded = rocelab_model::load_file(&workspace().join(FABRIC)).unwrap();
    let f = loaded.select(Some("dcqcn")).unwrap();
    let d = f.devices.iter().position(|d| d.name == "leaf2").unwrap();
    let p = f.devices[d].ports.iter().position(|p| p.name == "Ethernet40").unwrap();
    let id = rocelab_model::resolve::PortId { device: d, port: p };
    let h = rocelab_model::headroom::port_headroom(&f, id, f.port_settings(id).headroom);

    let findings = v["findings"].as_array().unwrap();
    let ids: Vec<_> = findings.iter().map(|f| (f["id"].as_str().unwrap(), f["port"].as_str().unwrap())).collect();
    assert_eq!(ids, [("AUDIT-HEADROOM-NEAR", "Ethernet40")]);
    let what = findings[0]["what"].as_str().unwrap();
    assert!(what.contains(&format!("{} B of {h} B", wm["value"])), "{what}");

    // The other formats of the folder are read, each at its line.
    let ecn = find("leaf2", "Ethernet0", "ecn_marked_egress").expect("the receiver port's ECN marks");
    assert_eq!(
        (ecn["queue"].as_u64(), ecn["value"].as_u64(), ecn["at"]["line"].as_u64()),
        (Some(3), Some(18204), Some(6))
    );
    let cnp = counters.iter().find(|c| c["device"] == "host11" && c["counter"] == "cnp_sent").unwrap();
    assert_eq!(cnp["name"], "mlx5_0/1 np_cnp_sent");
}

#[test]
fn with_strict_the_headroom_warning_fails_the_audit() {
    let out = rocelab(&["audit", FABRIC, "--variant", "dcqcn", "--counters", COUNTERS, "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("warning AUDIT-HEADROOM-NEAR leaf2:Ethernet40"), "{}", text(&out.stdout));
}
