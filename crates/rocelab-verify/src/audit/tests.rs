use super::testfabric::fabric;
use super::*;

const SONIC: &str = "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0      40       0       0       0       0
Ethernet96      0       0       0       9       0       0       0       0
";

#[test]
fn the_file_name_gives_the_device_and_host_output_its_one_port() {
    let f = fabric();
    let mut snap = Snapshot::default();
    read_text("np_cnp_sent:5\n", "dir/h1.hw_counters.txt", "h1.hw_counters.txt", &f, &mut snap);
    read_text(SONIC, "dir/sw1.pfc.txt", "sw1.pfc.txt", &f, &mut snap);
    let got: Vec<_> =
        snap.samples.iter().filter(|s| s.value > 0).map(|s| (s.device.as_str(), s.port.as_deref(), s.value)).collect();
    assert_eq!(got, [("h1", Some("p0"), 5), ("sw1", Some("Ethernet0"), 40)]);
    assert_eq!(snap.samples[0].at, Origin { file: "dir/h1.hw_counters.txt".into(), line: 1 });
    // A port the fabric does not have: its counters left out, said once with its first line.
    assert_eq!(snap.problems.len(), 1);
    assert_eq!(snap.problems[0].level, Level::Warning);
    assert!(
        snap.problems[0].to_string().starts_with("dir/sw1.pfc.txt:4: warning: `Ethernet96` is not a port of `sw1`"),
        "{}",
        snap.problems[0]
    );
}

#[test]
fn a_device_unknown_to_the_fabric_is_a_located_error_and_loses_nothing_else() {
    let f = fabric();
    let mut snap = Snapshot::default();
    read_text("np_cnp_sent:5\n", "dir/h9.hw.txt", "h9.hw.txt", &f, &mut snap);
    read_text("np_cnp_sent:7\n", "dir/h2.hw.txt", "h2.hw.txt", &f, &mut snap);
    assert_eq!(snap.samples.len(), 1);
    assert_eq!(snap.samples[0].device, "h2");
    let e = snap.problems[0].to_string();
    assert!(e.starts_with("dir/h9.hw.txt:1: error: `h9.hw.txt` does not start with a device of the fabric"), "{e}");
    assert!(
        e.contains("help: name counter files `<device>.<anything>.txt`, e.g. `sw1.pfc.txt`; devices: sw1, h1, h2, h3"),
        "{e}"
    );
}

#[test]
fn deltas_over_the_interval_and_resets() {
    let f = fabric();
    let read = |text: &str| {
        let mut snap = Snapshot::default();
        read_text(text, "h1.hw.txt", "h1.hw.txt", &f, &mut snap);
        snap
    };
    let before = read("np_cnp_sent:100\nrp_cnp_handled:50\n");
    let after = read("np_cnp_sent:130\nrp_cnp_handled:20\nnp_ecn_marked_roce_packets:9\n");
    let (d, resets) = delta(&after, &before);
    let got: Vec<_> = d.iter().map(|s| (s.name.as_str(), s.value)).collect();
    // 130 - 100; handled went down (a reset: 20 counted since); marks not in the baseline.
    assert_eq!(got, [("np_cnp_sent", 30), ("rp_cnp_handled", 20), ("np_ecn_marked_roce_packets", 9)]);
    assert_eq!(resets.len(), 1);
    assert_eq!(
        (resets[0].sample.name.as_str(), resets[0].baseline, resets[0].sample.value),
        ("rp_cnp_handled", 50, 20)
    );
    let findings = audit(&f, &d, &resets, true);
    let reset: Vec<_> = findings.iter().filter(|f| f.id == "AUDIT-COUNTER-RESET").collect();
    assert_eq!(reset.len(), 1);
    assert_eq!(reset[0].what, "`rp_cnp_handled` went from 50 in the baseline to 20: it was cleared in between");
}

#[test]
fn a_folder_is_read_file_by_file() {
    let dir = std::env::temp_dir().join(format!("rocelab-audit-read-dir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("h1.hw.txt"), "np_cnp_sent:5\n").unwrap();
    std::fs::write(dir.join("h2.ethtool.txt"), "NIC statistics:\n     rx_prio3_pause: x\n     tx_prio3_pause: 4\n")
        .unwrap();
    std::fs::write(dir.join("NOTES.md"), "not counters").unwrap();
    let snap = read_dir(&dir, &fabric()).unwrap();
    assert_eq!(snap.samples.iter().map(|s| (s.device.as_str(), s.value)).collect::<Vec<_>>(), [("h1", 5), ("h2", 4)]);
    assert_eq!(snap.problems.len(), 1, "{:?}", snap.problems);
    assert!(snap.problems[0].message.contains("`x` is not a number"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(read_dir(&dir, &fabric()).unwrap_err().contains("cannot read the folder"));
}
