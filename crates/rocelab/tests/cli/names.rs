//! Names as an attack: a fabric file whose names would break out of the output folder
//! or into a root shell is refused at `validate`, located, and `config` writes nothing.

use super::{rocelab, text};

const HOSTILE: &str = r#"fabric:
  name: hostile
  topology:
    devices:
      - {name: sw1, role: switch, platform: nvidia-cumulus, ports: [{names: swp1-2, speed: 100G}]}
      - {name: ../escaped, role: host, os: linux, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G}}
      - {name: h2, role: host, os: linux, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G, port_names: ["eth0;reboot"]}}
    links:
      - {a: "sw1:swp1", b: "../escaped:p0"}
      - {a: "sw1:swp2", b: "h2:eth0;reboot"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
"#;

#[test]
fn names_that_escape_the_output_folder_or_reach_a_shell_are_refused() {
    let dir = super::fresh_dir("names");
    let out = dir.join("a").join("out");
    std::fs::create_dir_all(&out).unwrap();
    let file = dir.join("hostile.yaml");
    std::fs::write(&file, HOSTILE).unwrap();

    let v = rocelab(&["validate", file.to_str().unwrap()]);
    assert_eq!(v.status.code(), Some(1));
    let err = text(&v.stderr);
    assert!(
        err.contains(
            "hostile.yaml:6:16: error: fabric.topology.devices[1].name: device name `../escaped` contains `.`, `/`"
        ),
        "{err}"
    );
    assert!(err.contains("(expected a hostname: 1 to 63 letters, digits and `-`"), "{err}");
    assert!(err.contains("; write `escaped`"), "{err}");
    assert!(
        err.contains("hostile.yaml:7:110: error: fabric.topology.devices[2].nics[0].port_names[0]: interface name `eth0;reboot` contains `;`"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let c = rocelab(&["config", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_ne!(c.status.code(), Some(0), "{}", text(&c.stderr));
    assert!(text(&c.stderr).contains("device name `../escaped`"), "{}", text(&c.stderr));
    assert!(!dir.join("a").join("escaped.sh").exists(), "written outside --out");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0, "nothing written");
    std::fs::remove_dir_all(&dir).ok();
}
