use super::*;

/// `ethtool -S` of a ConnectX port, cut to the counters of one priority and the port's.
const ETHTOOL: &str = "NIC statistics:
     rx_packets: 1052310
     rx_prio3_bytes: 88120064
     rx_prio3_pause: 12
     rx_prio3_pause_duration: 340
     tx_prio3_pause: 7
     tx_prio3_pause_duration: 96
     rx_prio3_pause_transition: 12
     rx_discards_phy: 0
     tx_pause_storm_warning_events : 0
     tx_pause_storm_error_events: 0
";

#[test]
fn ethtool_counters_are_read_with_priority_and_line() {
    let p = parse(ETHTOOL, "h1.ethtool.txt");
    assert_eq!(p.format, Some(Format::Mlx5Ethtool));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let got: Vec<_> = p.rows.iter().map(|r| (r.name.as_str(), r.counter, r.priority, r.value, r.line)).collect();
    assert_eq!(
        got,
        [
            ("rx_prio3_pause", Counter::RxPause, Some(3), 12, 4),
            ("rx_prio3_pause_duration", Counter::RxPauseDuration, Some(3), 340, 5),
            ("tx_prio3_pause", Counter::TxPause, Some(3), 7, 6),
            ("tx_prio3_pause_duration", Counter::TxPauseDuration, Some(3), 96, 7),
            ("rx_prio3_pause_transition", Counter::RxPauseTransition, Some(3), 12, 8),
            ("rx_discards_phy", Counter::Discards, None, 0, 9),
            // The name the kernel pads with a space is read as the documented one.
            ("tx_pause_storm_warning_events", Counter::PauseStormWarning, None, 0, 10),
            ("tx_pause_storm_error_events", Counter::PauseStormError, None, 0, 11),
        ]
    );
}

#[test]
fn a_value_that_is_not_a_number_is_located_and_the_rest_is_kept() {
    let text = ETHTOOL.replace("tx_prio3_pause: 7", "tx_prio3_pause: 7x");
    let p = parse(&text, "h1.ethtool.txt");
    assert_eq!(p.problems.len(), 1);
    let e = p.problems[0].to_string();
    assert!(e.starts_with("h1.ethtool.txt:6:22: error: counter `tx_prio3_pause`: `7x` is not a number"), "{e}");
    assert!(e.contains("help: "), "{e}");
    assert_eq!(p.rows.len(), 7);
}

#[test]
fn a_cut_short_ethtool_output_is_located() {
    let text = "NIC statistics:\n     rx_prio3_pause: 12\n     tx_prio3_pa";
    let p = parse(text, "h1.txt");
    assert_eq!(p.rows.len(), 1);
    assert_eq!(p.problems.len(), 1);
    assert!(
        p.problems[0].to_string().starts_with("h1.txt:3: error: `tx_prio3_pa` is not `name: value`"),
        "{}",
        p.problems[0]
    );
    let p = parse("NIC statistics:\n     rx_prio3_pause:", "h1.txt");
    assert!(p.rows.is_empty());
    assert!(
        p.problems[0].to_string().starts_with("h1.txt:2: error: counter `rx_prio3_pause` has no value"),
        "{}",
        p.problems[0]
    );
}

#[test]
fn hw_counters_as_grep_prints_them() {
    let text = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/duplicate_request:0
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:3
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:4100
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets:4480
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:0
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/packet_seq_err:1
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_handled:3900
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_ignored:0
";
    let p = parse(text, "h1.hw.txt");
    assert_eq!(p.format, Some(Format::Mlx5HwCounters));
    assert!(p.problems.is_empty());
    let got: Vec<_> = p.rows.iter().map(|r| (r.counter, r.value, r.line)).collect();
    assert_eq!(
        got,
        [
            (Counter::LocalAckTimeout, 3, 2),
            (Counter::CnpSent, 4100, 3),
            (Counter::EcnMarked, 4480, 4),
            (Counter::OutOfSequence, 0, 5),
            (Counter::PacketSeqErr, 1, 6),
            (Counter::CnpHandled, 3900, 7),
            (Counter::CnpIgnored, 0, 8),
        ]
    );
    // `grep . *` inside the folder prints bare names.
    let p = parse("np_cnp_sent:5\nrp_cnp_handled:abc\n", "h1.hw.txt");
    assert_eq!(p.rows.len(), 1);
    assert!(
        p.problems[0].to_string().starts_with("h1.hw.txt:2:16: error: counter `rp_cnp_handled`: `abc`"),
        "{}",
        p.problems[0]
    );
}

const SONIC: &str = "
  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0   1,204       0       0       0       0
Ethernet4       0       0       0       0       0       0     N/A       0

  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0      17       0       0       0       0
Ethernet4       5       0       0       0       0       0       0       0
";

#[test]
fn sonic_pfc_counters_per_port_direction_and_priority() {
    let p = parse(SONIC, "leaf1.pfc.txt");
    assert_eq!(p.format, Some(Format::SonicPfc));
    assert!(p.problems.is_empty());
    // 8 + 7 (one N/A) + 8 + 8 values.
    assert_eq!(p.rows.len(), 31);
    let nonzero: Vec<_> = p
        .rows
        .iter()
        .filter(|r| r.value > 0)
        .map(|r| (r.port.as_deref().unwrap(), r.counter, r.priority, r.value, r.line))
        .collect();
    assert_eq!(
        nonzero,
        [
            ("Ethernet0", Counter::RxPause, Some(3), 1204, 4),
            ("Ethernet0", Counter::TxPause, Some(3), 17, 9),
            ("Ethernet4", Counter::TxPause, Some(0), 5, 10),
        ]
    );
}

#[test]
fn a_cut_short_sonic_table_loses_only_its_last_row() {
    let cut = &SONIC[..SONIC.find("Ethernet4       5").unwrap() + 33];
    let p = parse(cut, "leaf1.pfc.txt");
    assert_eq!(p.rows.len(), 23);
    assert_eq!(p.problems.len(), 1);
    assert!(
        p.problems[0]
            .to_string()
            .starts_with("leaf1.pfc.txt:10: error: port `Ethernet4` has 3 values where the header has 8"),
        "{}",
        p.problems[0]
    );
}

#[test]
fn eos_pfc_counters_per_interface() {
    let text = "Port        RxPfc       TxPfc\nEt49/1          0          25\nEt50/1         3x           0\n";
    let p = parse(text, "sw1.pfc.txt");
    assert_eq!(p.format, Some(Format::EosPfc));
    let got: Vec<_> = p.rows.iter().map(|r| (r.port.as_deref().unwrap(), r.counter, r.priority, r.value)).collect();
    assert_eq!(
        got,
        [
            ("Ethernet49/1", Counter::RxPause, None, 0),
            ("Ethernet49/1", Counter::TxPause, None, 25),
            ("Ethernet50/1", Counter::TxPause, None, 0)
        ]
    );
    assert!(
        p.problems[0].to_string().starts_with("sw1.pfc.txt:3:16: error: counter `RxPfc`: `3x`"),
        "{}",
        p.problems[0]
    );
}

#[test]
fn output_of_another_command_is_not_recognised() {
    let p = parse("Interface Ethernet0 is up\n  MTU 9100\n", "leaf1.txt");
    assert_eq!(p.format, None);
    assert!(
        p.problems[0].to_string().starts_with("leaf1.txt:1: error: not counter output rocelab reads"),
        "{}",
        p.problems[0]
    );
    assert_eq!(detect(""), None);
}

#[test]
fn sonic_queue_counters_per_port_and_queue() {
    let text = "For namespace :
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet0    UC0           1,100           90,210            0             0
Ethernet0    UC3          88,193        8,520,072           19         1,976
Ethernet0    MC8               4              512          N/A           N/A
Ethernet4    UC3          12,004          982,113           7x             0
Ethernet8    UC3          12,004
";
    let p = parse(text, "leaf1.queue.txt");
    assert_eq!(p.format, Some(Format::SonicQueue));
    let got: Vec<_> =
        p.rows.iter().map(|r| (r.port.as_deref().unwrap(), r.queue, r.counter, r.value, r.line)).collect();
    assert_eq!(
        got,
        [("Ethernet0", Some(0), Counter::QueueDrops, 0, 4), ("Ethernet0", Some(3), Counter::QueueDrops, 19, 5)]
    );
    assert_eq!(p.rows[1].name, "UC3 Drop/pkts");
    let problems: Vec<String> = p.problems.iter().map(ToString::to_string).collect();
    assert!(
        problems[0].starts_with("leaf1.queue.txt:7:61: error: counter `Drop/pkts`: `7x` is not a number"),
        "{problems:?}"
    );
    assert!(
        problems[1]
            .starts_with("leaf1.queue.txt:8: error: port `Ethernet8` queue `UC3` has 1 values where the header has 4"),
        "{problems:?}"
    );
}

#[test]
fn sonic_pfcwd_stats_per_port_and_queue() {
    let text = "      QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP
-----------  -----------  -------------------------  ------------  ------------  -----------------  -----------------
Ethernet0:3      stormed                        2/1      9120/310        88/0              0/200              0/0
Ethernet4:3  operational                        0/0           N/A       12/x
Ethernet8:3  operational
";
    let p = parse(text, "leaf1.pfcwd.txt");
    assert_eq!(p.format, Some(Format::SonicPfcwd));
    let got: Vec<_> =
        p.rows.iter().map(|r| (r.port.as_deref().unwrap(), r.queue, r.counter, r.value, r.name.as_str())).collect();
    assert_eq!(
        got,
        [
            ("Ethernet0", Some(3), Counter::WatchdogStorms, 2, "Ethernet0:3 STORM DETECTED"),
            ("Ethernet0", Some(3), Counter::QueueDrops, 310, "Ethernet0:3 TX DROP"),
            ("Ethernet0", Some(3), Counter::QueueDrops, 0, "Ethernet0:3 RX DROP"),
            ("Ethernet4", Some(3), Counter::WatchdogStorms, 0, "Ethernet4:3 STORM DETECTED"),
        ]
    );
    let problems: Vec<String> = p.problems.iter().map(ToString::to_string).collect();
    assert!(
        problems[0].starts_with("leaf1.pfcwd.txt:4:73: error: counter `RX DROP`: `12/x` is not a number"),
        "{problems:?}"
    );
    assert!(problems[1].starts_with("leaf1.pfcwd.txt:5: error: queue `Ethernet8:3` has 1 values"), "{problems:?}");
}

/// `ethtool -S` of a Broadcom NetXtreme-E port (bnxt_en): per-ring counters first, prefixed
/// `[ring]: `, then the port's, in the driver's order.
const BNXT_ETHTOOL: &str = "NIC statistics:
     [0]: rx_ucast_packets: 3187
     [0]: rx_discards: 0
     rx_total_discard_pkts: 0
     rx_pause_frames: 0
     rx_pfc_frames: 212
     rx_pfc_ena_frames_pri0: 0
     rx_pfc_ena_frames_pri3: 212
     tx_pause_frames: 0
     tx_pfc_frames: 40
     tx_pfc_ena_frames_pri3: 40
";

#[test]
fn bnxt_ethtool_is_told_from_its_names_and_read_through_its_table() {
    let p = parse(BNXT_ETHTOOL, "h1.ethtool.txt");
    assert_eq!(p.format, Some(Format::BnxtEthtool));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let got: Vec<_> = p.rows.iter().map(|r| (r.counter, r.priority, r.value, r.line)).collect();
    assert_eq!(
        got,
        [
            (Counter::RxLinkPause, None, 0, 5),
            (Counter::RxPause, Some(0), 0, 7),
            (Counter::RxPause, Some(3), 212, 8),
            (Counter::TxLinkPause, None, 0, 9),
            (Counter::TxPause, Some(3), 40, 11),
        ]
    );
}

#[test]
fn ice_ethtool_counts_xoff_as_pause_and_not_xon() {
    let text = "NIC statistics:
     rx_dropped.nic: 4
     link_xon_rx.nic: 0
     link_xoff_rx.nic: 0
     tx_priority_3_xon.nic: 80
     tx_priority_3_xoff.nic: 81
     rx_priority_3_xon.nic: 5
     rx_priority_3_xoff.nic: 6
";
    let p = parse(text, "h1.ethtool.txt");
    assert_eq!(p.format, Some(Format::IceEthtool));
    let got: Vec<_> = p.rows.iter().map(|r| (r.counter, r.priority, r.value)).collect();
    assert_eq!(
        got,
        [
            (Counter::Discards, None, 4),
            (Counter::RxLinkPause, None, 0),
            (Counter::TxPause, Some(3), 81),
            (Counter::RxPause, Some(3), 6),
        ]
    );
    // A value cut short is located, the other lines read.
    let p = parse(&text.replace("81", "8x"), "h1.ethtool.txt");
    assert_eq!(p.rows.len(), 3);
    assert_eq!((p.problems[0].line, p.problems[0].column), (6, 30));
}

#[test]
fn bnxt_re_and_irdma_hw_counters_are_told_apart_from_mlx5() {
    let bnxt = "/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/active_qps:4
/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/cnp_rx_pkts:310
/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/cnp_tx_pkts:0
/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/res_oos_drop_count:2
/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/rx_ecn_marked_pkts:512
/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/seq_err_naks_rcvd:1
/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/to_retransmits:0
";
    let p = parse(bnxt, "h1.hw_counters.txt");
    assert_eq!(p.format, Some(Format::BnxtReHwCounters));
    let got: Vec<_> = p.rows.iter().map(|r| (r.counter, r.value)).collect();
    assert_eq!(
        got,
        [
            (Counter::CnpHandled, 310),
            (Counter::CnpSent, 0),
            (Counter::OutOfSequence, 2),
            (Counter::EcnMarked, 512),
            (Counter::PacketSeqErr, 1),
            (Counter::LocalAckTimeout, 0),
        ]
    );
    let irdma = "/sys/class/infiniband/irdma0/ports/1/hw_counters/RxECNMrkd:77
/sys/class/infiniband/irdma0/ports/1/hw_counters/cnpHandled:0
/sys/class/infiniband/irdma0/ports/1/hw_counters/cnpIgnored:9
/sys/class/infiniband/irdma0/ports/1/hw_counters/cnpSent:70
/sys/class/infiniband/irdma0/ports/1/hw_counters/ip4InDiscards:0
";
    let p = parse(irdma, "h1.hw_counters.txt");
    assert_eq!(p.format, Some(Format::IrdmaHwCounters));
    let got: Vec<_> = p.rows.iter().map(|r| (r.counter, r.value, r.line)).collect();
    assert_eq!(
        got,
        [
            (Counter::EcnMarked, 77, 1),
            (Counter::CnpHandled, 0, 2),
            (Counter::CnpIgnored, 9, 3),
            (Counter::CnpSent, 70, 4)
        ]
    );
}
