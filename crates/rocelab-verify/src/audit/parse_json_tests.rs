use super::super::parse::parse;
use super::*;

/// `show priority-flow-control counters | json`, in the shape of ANTA's test inputs for
/// `VerifyInterfacesPFCCounters`.
const EOS_PFC: &str = r#"{
    "interfaceCounters": {
        "Ethernet1/1": {"rxFrames": 0, "txFrames": 12},
        "Ethernet2/1": {"rxFrames": 7, "txFrames": 0}
    }
}
"#;

#[test]
fn eos_pfc_json_gives_rx_and_tx_pfc_frames_per_interface() {
    let p = parse(EOS_PFC, "leaf1.pfc.json");
    assert_eq!(p.format, Some(Format::EosPfcJson));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let got: Vec<_> = p.rows.iter().map(|r| (r.port.as_deref().unwrap(), r.counter, r.value, r.line)).collect();
    assert_eq!(
        got,
        [
            ("Ethernet1/1", Counter::RxPause, 0, 3),
            ("Ethernet1/1", Counter::TxPause, 12, 3),
            ("Ethernet2/1", Counter::RxPause, 7, 4),
            ("Ethernet2/1", Counter::TxPause, 0, 4),
        ]
    );
}

#[test]
fn eos_ecn_json_gives_marks_per_queue_and_skips_queues_without_ecn() {
    // The shape of ANTA's inputs for `VerifyInterfacesECNCounters`: strings, `-` where ECN is
    // not configured on the queue.
    let text = r#"{
    "intfQueueCounters": {
        "Ethernet1/1": {"queueCounters": {"0": "-", "3": "1520", "6": "0"}}
    }
}"#;
    let p = parse(text, "leaf1.ecn.json");
    assert_eq!(p.format, Some(Format::EosEcnJson));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let got: Vec<_> = p.rows.iter().map(|r| (r.queue, r.counter, r.value)).collect();
    assert_eq!(got, [(Some(3), Counter::EcnMarkedEgress, 1520), (Some(6), Counter::EcnMarkedEgress, 0)]);
}

#[test]
fn eos_queue_drops_json_reads_egress_and_voq_drops_per_traffic_class() {
    // ANTA `VerifyInterfacesVoqAndEgressQueueDrops`: a traffic class may be a range.
    let text = r#"{
  "interfaces": {
    "Ethernet1/1": {
      "trafficClasses": {
        "TC3": {
          "ingressVoqCounters": {"countersSum": {"droppedPackets": 4}},
          "egressQueueCounters": {"countersSum": {"droppedPackets": 9}}
        },
        "TC0-2": {
          "ingressVoqCounters": {"countersSum": {"droppedPackets": 0}},
          "egressQueueCounters": {"countersSum": {"droppedPackets": 2}}
        }
      }
    }
  }
}"#;
    let p = parse(text, "leaf1.drops.json");
    assert_eq!(p.format, Some(Format::EosQueueDropsJson));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let got: Vec<_> = p.rows.iter().map(|r| (r.queue, r.name.as_str(), r.value)).collect();
    assert_eq!(
        got,
        [
            (Some(3), "TC3 egress droppedPackets", 9),
            (Some(3), "TC3 ingress VOQ droppedPackets", 4),
            // A range is not one queue's: read for the port as a whole.
            (None, "TC0-2 egress droppedPackets", 2),
            (None, "TC0-2 ingress VOQ droppedPackets", 0),
        ]
    );
    assert!(p.rows.iter().all(|r| r.counter == Counter::QueueDrops));
}

#[test]
fn sonic_wredcounters_json_gives_wred_drops_and_ecn_marks_per_queue() {
    // sonic-utilities' `show_queue_counters_json` of `queue wredcounters --json`.
    let text = r#"{
  "Ethernet0": {
    "ALL20": {"ecnmarkedbytes": "N/A", "ecnmarkedpacket": "N/A", "wreddropbytes": "N/A", "wreddroppacket": "N/A"},
    "UC3": {"ecnmarkedbytes": "76", "ecnmarkedpacket": "19", "wreddropbytes": "70", "wreddroppacket": "52"}
  }
}"#;
    let p = parse(text, "sw1.wred.json");
    assert_eq!(p.format, Some(Format::SonicWredJson));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let got: Vec<_> = p.rows.iter().map(|r| (r.queue, r.counter, r.value)).collect();
    assert_eq!(got, [(Some(3), Counter::WredDrops, 52), (Some(3), Counter::EcnMarkedEgress, 19)]);
}

/// `rdma -j statistic show` of one ConnectX link: iproute2 prints an array of one object per
/// link, `ifname`, `port`, then each hw counter.
const RDMA_MLX5: &str = r#"[{"ifname":"mlx5_0","port":1,"rx_write_requests":0,"out_of_sequence":3,"packet_seq_err":1,"local_ack_timeout_err":0,"np_ecn_marked_roce_packets":1200,"np_cnp_sent":1100,"rp_cnp_handled":900,"rp_cnp_ignored":0}]
"#;

#[test]
fn rdma_statistic_json_is_read_through_the_drivers_alias_table() {
    let p = parse(RDMA_MLX5, "h1.rdma.json");
    assert_eq!(p.format, Some(Format::Mlx5RdmaStat));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let get = |c: Counter| p.rows.iter().find(|r| r.counter == c).map(|r| (r.name.as_str(), r.value));
    assert_eq!(get(Counter::CnpSent), Some(("mlx5_0/1 np_cnp_sent", 1100)));
    assert_eq!(get(Counter::EcnMarked), Some(("mlx5_0/1 np_ecn_marked_roce_packets", 1200)));
    assert_eq!(get(Counter::OutOfSequence), Some(("mlx5_0/1 out_of_sequence", 3)));
    // `rx_write_requests` is no counter of the audit.
    assert_eq!(p.rows.len(), 7);

    // bnxt_re names the same counters its own way (its `bnxt_re_stat_descs`).
    let bnxt = r#"[{"ifname":"bnxt_re0","port":1,"cnp_tx_pkts":40,"cnp_rx_pkts":38,"rx_ecn_marked_pkts":41}]"#;
    let p = parse(bnxt, "h2.rdma.json");
    assert_eq!(p.format, Some(Format::BnxtReRdmaStat));
    assert_eq!(p.rows.iter().map(|r| r.value).sum::<u64>(), 40 + 38 + 41);
}

#[test]
fn a_json_counter_that_is_not_a_number_is_located_and_the_rest_is_kept() {
    let text = EOS_PFC.replace("\"txFrames\": 12", "\"txFrames\": \"twelve\"");
    let p = parse(&text, "leaf1.pfc.json");
    assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
    let e = &p.problems[0];
    assert_eq!((e.line, e.column), (3, 52));
    assert!(e.message.contains("`twelve` is not a number"), "{}", e.message);
    assert_eq!(p.rows.len(), 3);
}

#[test]
fn json_cut_short_is_located_and_what_precedes_the_cut_is_kept() {
    let cut = &EOS_PFC[..EOS_PFC.find("\"txFrames\": 0}").unwrap() + 13];
    let p = parse(cut, "leaf1.pfc.json");
    assert_eq!(p.format, Some(Format::EosPfcJson));
    assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
    assert_eq!(p.problems[0].line, 4);
    assert!(p.problems[0].message.contains("cut short"), "{}", p.problems[0].message);
    assert!(p.problems[0].hint.contains("show priority-flow-control counters | json"));
    // Ethernet1/1 whole, Ethernet2/1's rxFrames; its txFrames (`0` may be `0...`) is left out.
    let got: Vec<_> = p.rows.iter().map(|r| (r.port.as_deref().unwrap(), r.counter)).collect();
    assert_eq!(
        got,
        [("Ethernet1/1", Counter::RxPause), ("Ethernet1/1", Counter::TxPause), ("Ethernet2/1", Counter::RxPause)]
    );
}

#[test]
fn rdma_json_cut_short_keeps_the_counters_before_the_cut() {
    let cut = &RDMA_MLX5[..RDMA_MLX5.find("\"rp_cnp_handled\"").unwrap()];
    let p = parse(cut, "h1.rdma.json");
    assert_eq!(p.format, Some(Format::Mlx5RdmaStat));
    assert_eq!(p.problems.len(), 1);
    assert!(p.rows.iter().any(|r| r.counter == Counter::CnpSent));
    assert!(!p.rows.iter().any(|r| r.counter == Counter::CnpHandled));
}

#[test]
fn an_ecn_queue_that_is_no_number_and_a_mark_count_that_is_no_number_are_each_located() {
    let text = r#"{"intfQueueCounters": {"Ethernet1/1": {"queueCounters": {"q3": "5", "4": "many", "6": "2"}}}}"#;
    let p = parse(text, "leaf1.ecn.json");
    let at: Vec<_> = p.problems.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(at, [(1, 58), (1, 74)], "{:?}", p.problems);
    assert!(p.problems[0].message.contains("`q3` is not a queue number"));
    assert!(p.problems[1].message.contains("`many` is not a number"));
    // Queue 6 is still read.
    assert_eq!(p.rows.iter().map(|r| (r.queue, r.value)).collect::<Vec<_>>(), [(Some(6), 2)]);
}

#[test]
fn json_of_no_shape_the_audit_knows_is_not_counter_output() {
    let p = parse(r#"{"version": "4.31.2F", "uptime": 3600}"#, "leaf1.version.json");
    assert_eq!(p.format, None);
    assert_eq!(p.problems.len(), 1);
    assert!(p.problems[0].message.contains("not counter output"), "{}", p.problems[0].message);
    assert!(p.problems[0].hint.contains("| json"), "{}", p.problems[0].hint);
}
