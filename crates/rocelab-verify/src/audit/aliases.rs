//! The counter names each driver and switch OS prints, mapped to rocelab's vendor-independent
//! [`Counter`]s: one table per source, so that a name is looked up in one place.
//!
//! `{p}` in a name stands for the 802.1p priority (0-7) the counter is kept for.

use super::Counter;

/// One name as the device prints it, and the counter it is.
#[derive(Debug, Clone, Copy)]
pub struct Alias {
    pub name: &'static str,
    pub counter: Counter,
}

const fn a(name: &'static str, counter: Counter) -> Alias {
    Alias { name, counter }
}

/// NVIDIA ConnectX (mlx5_core) `ethtool -S <interface>`: Linux kernel documentation
/// `networking/device_drivers/ethernet/mellanox/mlx5/counters.rst`, "Physical Port Counters"
/// and "Priority Port Counters" (pause durations in microseconds).
pub const MLX5_ETHTOOL: &[Alias] = &[
    a("rx_prio{p}_pause", Counter::RxPause),
    a("tx_prio{p}_pause", Counter::TxPause),
    a("rx_prio{p}_pause_duration", Counter::RxPauseDuration),
    a("tx_prio{p}_pause_duration", Counter::TxPauseDuration),
    a("rx_prio{p}_pause_transition", Counter::RxPauseTransition),
    a("rx_prio{p}_discards", Counter::Discards),
    a("rx_prio{p}_buf_discard", Counter::Discards),
    a("rx_prio{p}_cong_discard", Counter::Discards),
    a("rx_discards_phy", Counter::Discards),
    a("rx_pause_ctrl_phy", Counter::RxLinkPause),
    a("tx_pause_ctrl_phy", Counter::TxLinkPause),
    a("tx_pause_storm_warning_events", Counter::PauseStormWarning),
    a("tx_pause_storm_error_events", Counter::PauseStormError),
];

/// NVIDIA ConnectX (mlx5_ib) RDMA `hw_counters` (`/sys/class/infiniband/<dev>/ports/<n>/
/// hw_counters/`): Linux `drivers/infiniband/hw/mlx5/counters.c` (the congestion counters added
/// by "IB/mlx5: Support congestion related counters", the retransmission group of the
/// queue counters).
pub const MLX5_RDMA: &[Alias] = &[
    a("np_ecn_marked_roce_packets", Counter::EcnMarked),
    a("np_cnp_sent", Counter::CnpSent),
    a("rp_cnp_handled", Counter::CnpHandled),
    a("rp_cnp_ignored", Counter::CnpIgnored),
    a("out_of_sequence", Counter::OutOfSequence),
    a("packet_seq_err", Counter::PacketSeqErr),
    a("local_ack_timeout_err", Counter::LocalAckTimeout),
];

/// Broadcom NetXtreme-E (bnxt_en) `ethtool -S <interface>`: Linux
/// `drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c`, `bnxt_port_stats_arr` (the port's
/// `rx/tx_pfc_ena_frames_pri<p>`, PFC frames with priority `p` enabled; `rx/tx_pause_frames`,
/// 802.3x pause).
pub const BNXT_ETHTOOL: &[Alias] = &[
    a("rx_pfc_ena_frames_pri{p}", Counter::RxPause),
    a("tx_pfc_ena_frames_pri{p}", Counter::TxPause),
    a("rx_pause_frames", Counter::RxLinkPause),
    a("tx_pause_frames", Counter::TxLinkPause),
];

/// Broadcom (bnxt_re) RDMA `hw_counters`: the driver's `bnxt_re_stat_descs` (`hw_counters.c`).
/// The adapter counts CNPs received, not handled and ignored apart: `cnp_rx_pkts` is read as
/// handled (DCQCN's reaction point acts on each CNP it receives); `res_oos_drop_count` counts
/// out-of-sequence packets the responder dropped, `to_retransmits` retransmissions after a
/// timeout.
pub const BNXT_RE: &[Alias] = &[
    a("rx_ecn_marked_pkts", Counter::EcnMarked),
    a("cnp_tx_pkts", Counter::CnpSent),
    a("cnp_rx_pkts", Counter::CnpHandled),
    a("res_oos_drop_count", Counter::OutOfSequence),
    a("seq_err_naks_rcvd", Counter::PacketSeqErr),
    a("to_retransmits", Counter::LocalAckTimeout),
];

/// Intel E800 (ice) `ethtool -S <interface>`: Linux `drivers/net/ethernet/intel/ice/
/// ice_ethtool.c` (`ice_gstrings_pf_stats` and the per-priority strings of `ice_get_strings`).
/// A PFC XOFF frame is the pause; XON frames (`..._xon.nic`) resume and are not counted as
/// pause. `rx_dropped.nic` is the port's receive discards.
pub const ICE_ETHTOOL: &[Alias] = &[
    a("rx_priority_{p}_xoff.nic", Counter::RxPause),
    a("tx_priority_{p}_xoff.nic", Counter::TxPause),
    a("link_xoff_rx.nic", Counter::RxLinkPause),
    a("link_xoff_tx.nic", Counter::TxLinkPause),
    a("rx_dropped.nic", Counter::Discards),
];

/// Intel (irdma) RDMA `hw_counters`: the driver's `irdma_hw_stat_names` (`verbs.c`, the gen2
/// congestion counters).
pub const IRDMA: &[Alias] = &[
    a("RxECNMrkd", Counter::EcnMarked),
    a("cnpSent", Counter::CnpSent),
    a("cnpHandled", Counter::CnpHandled),
    a("cnpIgnored", Counter::CnpIgnored),
];

/// SONiC `show pfc counters` (sonic-utilities `pfcstat`): a "Port Rx" and a "Port Tx" table,
/// one column per priority.
pub const SONIC_PFC: &[Alias] = &[a("Rx PFC{p}", Counter::RxPause), a("Tx PFC{p}", Counter::TxPause)];

/// SONiC `show queue counters` and `show queue wredcounters` (sonic-utilities `queuestat`): one
/// row per port and queue (`UC3`, `MC8`, `ALL3`), the columns by name. WRED drops are counted
/// apart from `Drop/pkts` so that a file of each does not count a drop twice.
pub const SONIC_QUEUE: &[Alias] = &[
    a("Drop/pkts", Counter::QueueDrops),
    a("WredDrp/pkts", Counter::WredDrops),
    a("EcnMarked/pkts", Counter::EcnMarkedEgress),
];

/// SONiC `show pfcwd stats` (sonic-utilities `pfcwd`): per `port:queue`, `STORM
/// DETECTED/RESTORED`, `TX OK/DROP`, `RX OK/DROP` as `a/b` pairs; the parts read are named by
/// their column and half.
pub const SONIC_PFCWD: &[Alias] = &[
    a("STORM DETECTED", Counter::WatchdogStorms),
    a("TX DROP", Counter::QueueDrops),
    a("RX DROP", Counter::QueueDrops),
];

/// Arista EOS `show priority-flow-control counters`: PFC frames received and sent per
/// interface, all priorities together.
pub const EOS_PFC: &[Alias] = &[a("RxPfc", Counter::RxPause), a("TxPfc", Counter::TxPause)];

/// The counter `name` is in `table`, and the priority its `{p}` matched.
pub fn lookup(table: &[Alias], name: &str) -> Option<(Counter, Option<u8>)> {
    table.iter().find_map(|al| match al.name.split_once("{p}") {
        None => (al.name == name).then_some((al.counter, None)),
        Some((pre, post)) => {
            let digit = name.strip_prefix(pre)?.strip_suffix(post)?;
            match digit.as_bytes() {
                [d @ b'0'..=b'7'] => Some((al.counter, Some(d - b'0'))),
                _ => None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_names_give_their_priority_and_others_none() {
        assert_eq!(lookup(MLX5_ETHTOOL, "rx_prio3_pause"), Some((Counter::RxPause, Some(3))));
        assert_eq!(lookup(MLX5_ETHTOOL, "rx_prio3_pause_duration"), Some((Counter::RxPauseDuration, Some(3))));
        assert_eq!(lookup(MLX5_ETHTOOL, "rx_discards_phy"), Some((Counter::Discards, None)));
        // Priority 8 does not exist, nor does a name the table lacks.
        assert_eq!(lookup(MLX5_ETHTOOL, "rx_prio8_pause"), None);
        assert_eq!(lookup(MLX5_ETHTOOL, "rx_prio33_pause"), None);
        assert_eq!(lookup(MLX5_ETHTOOL, "rx_packets_phy"), None);
        assert_eq!(lookup(SONIC_PFC, "Tx PFC7"), Some((Counter::TxPause, Some(7))));
        assert_eq!(lookup(BNXT_ETHTOOL, "rx_pfc_ena_frames_pri3"), Some((Counter::RxPause, Some(3))));
        assert_eq!(lookup(ICE_ETHTOOL, "tx_priority_5_xoff.nic"), Some((Counter::TxPause, Some(5))));
        // XON resumes: not a pause.
        assert_eq!(lookup(ICE_ETHTOOL, "tx_priority_5_xon.nic"), None);
    }

    #[test]
    fn every_table_names_each_of_its_names_once() {
        for table in [
            MLX5_ETHTOOL,
            MLX5_RDMA,
            BNXT_ETHTOOL,
            BNXT_RE,
            ICE_ETHTOOL,
            IRDMA,
            SONIC_PFC,
            SONIC_QUEUE,
            SONIC_PFCWD,
            EOS_PFC,
        ] {
            let mut names: Vec<_> = table.iter().map(|a| a.name).collect();
            let n = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), n);
        }
    }
}
