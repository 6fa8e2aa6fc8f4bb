//! NVIDIA Cumulus NVUE counter output, shaped as the NVIDIA Cumulus Linux user guide and NVUE
//! command reference print it (the values are this test's own).

use super::super::parse::{parse, Format};
use super::super::{audit, read_text, Counter, Snapshot};
use super::port_in_name;

/// `nv show interface swp1 qos roce counters`: the layout of the Cumulus Linux 5.12 RoCE page.
const ROCE: &str = "                               operational   applied  description
-----------------------------  ------------  -------  ------------------------------------------------------
rx-stats
  rx-non-roce-stats
    buffer-max-usage           288 Bytes              Max Ingress Pool-buffer usage for non-RoCE traffic
    no-buffer-discard          12                     Rx buffer discards for non-RoCE traffic
    non-roce-bytes             10.50 MB               non-roce rx bytes
  rx-pfc-stats
    pause-duration             310                    Rx PFC pause duration for RoCE traffic
    pause-packets              21                     Rx PFC pause packets for RoCE traffic
  rx-roce-stats
    buffer-usage               0 Bytes                Current Ingress Pool-buffer usage for RoCE traffic
    no-buffer-discard          0                      Rx buffer discards for RoCE traffic
    roce-packets               90210                  Rx RoCE Packets
tx-stats
  tx-cnp-stats
    cnp-packets                17                     Tx CNP Packets
  tx-ecn-stats
    ecn-marked-packets         4410                   Tx ECN marked packets
  tx-pfc-stats
    pause-duration             0                      Tx PFC pause duration for RoCE traffic
    pause-packets              8                      Tx PFC pause packets for RoCE traffic
  tx-roce-stats
    roce-packets               80117                  Tx RoCE Packets
    unicast-no-buffer-discard  3                      Tx buffer discards for RoCE traffic
";

/// `nv show interface swp1 counters qos`: the NVUE command reference's sections, indented.
const QOS: &str = "Ingress Buffer Statistics
============================
    priority-group  rx-frames  rx-buffer-discards  rx-shared-buffer-discards
    --------------  ---------  ------------------  -------------------------
    0               5          0 Bytes             0 Bytes
    3               9          0 Bytes             0 Bytes

Egress Queue Statistics
==========================
    traffic-class  tx-frames  tx-bytes  tx-uc-buffer-discards  wred-discards
    -------------  ---------  --------  ---------------------  -------------
    0              70         9 Bytes   0 Bytes                4
    3              80         8 Bytes   0 Bytes                0

PFC Statistics
=================
    switch-priority  rx-pause-frames  rx-pause-duration  tx-pause-frames  tx-pause-duration
    ---------------  ---------------  -----------------  ---------------  -----------------
    0                6                40                 0                0
    3                2                10                 11               20

Qos Port Statistics
======================
    Counter             Receive  Transmit
    ------------------  -------  --------
    ecn-marked-packets  n/a      0
    pause-frames        8        11
";

type Got = Vec<(Counter, Option<u8>, Option<u8>, String, u64, usize)>;

fn rows(text: &str) -> (Option<Format>, Got, Vec<String>) {
    let p = parse(text, "leaf1.swp1.txt");
    let rows = p.rows.iter().map(|r| (r.counter, r.priority, r.queue, r.name.clone(), r.value, r.line)).collect();
    (p.format, rows, p.problems.iter().map(ToString::to_string).collect())
}

#[test]
fn roce_counters_are_read_by_section_with_their_line() {
    let (format, got, problems) = rows(ROCE);
    assert_eq!(format, Some(Format::CumulusRoce));
    assert!(problems.is_empty(), "{problems:?}");
    // Non-RoCE discards (line 6), byte counts and pause durations are left out.
    assert_eq!(
        got,
        [
            (Counter::RxPause, None, None, "rx-pfc-stats pause-packets".into(), 21, 10),
            (Counter::Discards, None, None, "rx-roce-stats no-buffer-discard".into(), 0, 13),
            (Counter::EcnMarkedEgress, None, None, "tx-ecn-stats ecn-marked-packets".into(), 4410, 19),
            (Counter::TxPause, None, None, "tx-pfc-stats pause-packets".into(), 8, 22),
            (Counter::QueueDrops, None, None, "tx-roce-stats unicast-no-buffer-discard".into(), 3, 25),
        ]
    );
}

#[test]
fn qos_tables_are_read_per_priority_and_per_traffic_class() {
    let (format, got, problems) = rows(QOS);
    assert_eq!(format, Some(Format::CumulusQos));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        got,
        [
            (Counter::WredDrops, None, Some(0), "wred-discards".into(), 4, 12),
            (Counter::WredDrops, None, Some(3), "wred-discards".into(), 0, 13),
            (Counter::RxPause, Some(0), None, "rx-pause-frames".into(), 6, 19),
            (Counter::TxPause, Some(0), None, "tx-pause-frames".into(), 0, 19),
            (Counter::RxPause, Some(3), None, "rx-pause-frames".into(), 2, 20),
            (Counter::TxPause, Some(3), None, "tx-pause-frames".into(), 11, 20),
        ]
    );
    // The `pfc-stats` part alone, unindented, as `nv show interface IF counters qos pfc-stats`.
    let alone: String = QOS.lines().skip(16).take(4).map(|l| format!("{}\n", l.trim_start())).collect();
    let (format, got, _) = rows(&alone);
    assert_eq!(format, Some(Format::CumulusQos));
    assert_eq!(
        got.iter().map(|g| (g.0, g.1, g.4)).collect::<Vec<_>>()[..2],
        [(Counter::RxPause, Some(0), 6), (Counter::TxPause, Some(0), 0)]
    );
}

#[test]
fn a_value_that_is_not_a_number_is_located_and_the_rest_is_kept() {
    let (_, got, problems) = rows(&ROCE.replace("pause-packets              8 ", "pause-packets              8x"));
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("leaf1.swp1.txt:22:32: error: counter `pause-packets`: `8x` is not a number"),
        "{}",
        problems[0]
    );
    let (_, got, problems) = rows(&QOS.replace("0                6   ", "0                six "));
    assert_eq!(got.len(), 5, "{got:?}");
    assert!(
        problems[0].starts_with("leaf1.swp1.txt:19:22: error: counter `rx-pause-frames`: `six` is not a number"),
        "{}",
        problems[0]
    );
}

#[test]
fn output_cut_short_is_located_and_the_rest_is_kept() {
    // Cut inside `tx-stats`: a counter with no value, the lines before it kept.
    let cut: String = ROCE.lines().take(21).map(|l| format!("{l}\n")).collect::<String>() + "    pause-packets\n";
    let (_, got, problems) = rows(&cut);
    assert_eq!(got.len(), 3);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("leaf1.swp1.txt:22: error: counter `tx-pfc-stats pause-packets` has no value"),
        "{}",
        problems[0]
    );
    // Cut before `tx-stats`.
    let cut: String = ROCE.lines().take(14).map(|l| format!("{l}\n")).collect();
    let (_, got, problems) = rows(&cut);
    assert_eq!(got.len(), 2);
    assert!(
        problems[0].starts_with("leaf1.swp1.txt:14: error: the output ends before its `tx-stats` section"),
        "{}",
        problems[0]
    );
    // A table row cut inside: reported, the rows before it kept.
    let cut: String = QOS.lines().take(19).map(|l| format!("{l}\n")).collect::<String>() + "    3                2\n";
    let (_, got, problems) = rows(&cut);
    assert_eq!(got.len(), 4);
    assert!(
        problems[0]
            .starts_with("leaf1.swp1.txt:20: error: switch-priority 3 has 2 values where the table has 5 columns"),
        "{}",
        problems[0]
    );
}

#[test]
fn the_port_is_the_file_name_field_after_the_device() {
    assert_eq!(port_in_name("leaf1.swp1.roce.txt", "leaf1"), Some("swp1".into()));
    assert_eq!(port_in_name("leaf.a.swp2s1.qos.txt", "leaf.a"), Some("swp2s1".into()));
    assert_eq!(port_in_name("leaf1.roce", "leaf1"), None);
    assert_eq!(port_in_name("leaf10.swp1.txt", "leaf1"), None);
}

const FABRIC: &str = r#"
fabric:
  name: cumulus-audit
  topology:
    devices:
      - {name: leaf1, role: switch, platform: nvidia-cumulus, ports: [{names: "swp1-2", speed: 100G}]}
      - {name: h1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-6 Dx, speed: 100G, port_names: [p0]}}
      - {name: h2, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-6 Dx, speed: 100G, port_names: [p0]}}
    links:
      - {a: "leaf1:swp1", b: "h1:p0", cable: 3m}
      - {a: "leaf1:swp2", b: "h2:p0", cable: 3m}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90}
      - {name: default, priority: 0, dscp: [0], ets: 10}
    dcqcn: {enabled: true}
"#;

#[test]
fn pause_on_a_lossy_priority_of_a_cumulus_port_is_a_finding() {
    let f = match rocelab_model::load_str(FABRIC, "cumulus-audit.yaml", std::path::Path::new(".")) {
        Ok(l) => l.fabric,
        Err(d) => panic!("{}", d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")),
    };
    let mut snap = Snapshot::default();
    read_text(QOS, "dir/leaf1.swp1.qos.txt", "leaf1.swp1.qos.txt", &f, &mut snap);
    assert!(snap.problems.is_empty(), "{:?}", snap.problems);
    assert!(snap.samples.iter().all(|s| s.device == "leaf1" && s.port.as_deref() == Some("swp1")));
    let findings = audit(&f, &snap.samples, &[], false);
    let lossy: Vec<_> = findings.iter().filter(|x| x.id == "AUDIT-PAUSE-LOSSY").collect();
    assert_eq!(lossy.len(), 1, "{findings:?}");
    assert!(lossy[0].what.starts_with("6 PFC pause frames received and 0 sent on priority 0"), "{}", lossy[0].what);
    assert_eq!(lossy[0].location.as_ref().map(|o| o.line), Some(19));
    // Near miss: the same table with pause on the lossless priority only.
    let mut snap = Snapshot::default();
    let healthy = QOS.replace("0                6   ", "0                0   ");
    read_text(&healthy, "dir/leaf1.swp1.qos.txt", "leaf1.swp1.qos.txt", &f, &mut snap);
    assert_eq!(audit(&f, &snap.samples, &[], false), []);
}

#[test]
fn a_cumulus_file_that_names_no_port_of_the_device_is_a_located_error() {
    let f = match rocelab_model::load_str(FABRIC, "cumulus-audit.yaml", std::path::Path::new(".")) {
        Ok(l) => l.fabric,
        Err(d) => panic!("{}", d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")),
    };
    let mut snap = Snapshot::default();
    read_text(ROCE, "dir/leaf1.roce.txt", "leaf1.roce.txt", &f, &mut snap);
    read_text(ROCE, "dir/leaf1.swp2.roce.txt", "leaf1.swp2.roce.txt", &f, &mut snap);
    assert_eq!(snap.samples.len(), 5);
    assert!(snap.samples.iter().all(|s| s.port.as_deref() == Some("swp2")));
    assert_eq!(snap.problems.len(), 1);
    let e = snap.problems[0].to_string();
    assert!(e.starts_with("dir/leaf1.roce.txt:1: error: `leaf1.roce.txt` names `roce`, not a port of `leaf1`"), "{e}");
    assert!(
        e.contains("help: name the file `<device>.<port>.<what>.txt`, e.g. `leaf1.swp1.roce.txt`; ports: swp1, swp2"),
        "{e}"
    );
    // The RoCE traffic's egress discards are port-wide: a warning on a port that runs PFC.
    let findings = audit(&f, &snap.samples, &[], false);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!((findings[0].id, findings[0].port.as_deref()), ("AUDIT-DROP-LOSSLESS", Some("swp2")));
    assert!(findings[0].what.starts_with("3 packets discarded"), "{}", findings[0].what);
}

#[test]
fn roce_status_and_configuration_output_are_not_taken_for_counters() {
    // `nv show interface swp1 qos roce status`: settings and a pool table, no counters.
    let status = "                    operational    applied  description
------------------  -------------  -------  ---------------------------
pfc
  pfc-priority      3                       switch-prio on which PFC is enabled
  rx-enabled        yes                     PFC Rx Enabled status

RoCE SP->TC mapping and ETS configurations
=============================================
          switch-prio  traffic-class  scheduler-weight
    ----  -----------  -------------  ----------------
    roce  3            3              dwrr-50%
";
    let p = parse(status, "leaf1.swp1.status.txt");
    assert_eq!(p.format, None);
    assert!(p.problems[0].to_string().contains("NVIDIA Cumulus `nv show interface IF qos roce counters`"));
}
