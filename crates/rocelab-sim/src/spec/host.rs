//! The host side of [`super::NetworkSpec`]: a host, its NIC's RDMA settings, its ports, its
//! receive buffer and how its ports are bonded, and their checks.

use super::{validate_pfc, PfcPortSpec};
use crate::cc::CcAlgorithm;
use crate::error::SimError;
use crate::nic::NicProfile;
use crate::rdma::RcConfig;
use crate::tcp::TcpStackSpec;
use crate::time::Time;
use crate::traffic::FlowClass;
use serde::{Deserialize, Serialize};

/// An end host.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostSpec {
    /// NIC ports.
    pub ports: Vec<HostPortSpec>,
    /// Receive-side buffer in front of the host (PCIe / memory).
    pub rx: HostRxSpec,
    /// Delay between the last bit arriving and the NIC handling the packet.
    pub latency_ps: Time,
    /// The RDMA side of the NIC (queue pairs, congestion control, CNPs).
    #[serde(default)]
    pub nic: NicSpec,
    /// The host's TCP stack (TCP flows, iperf, iWARP).
    #[serde(default)]
    pub tcp: TcpStackSpec,
    /// How its ports are bonded, if they are. Without a bond each port of a host with several
    /// has an address of its own, and traffic for it arrives there (see [`crate::routing`]).
    #[serde(default)]
    pub bond: Option<BondMode>,
}

/// A bond of a host's ports (Linux bonding's modes; Windows teams behave alike): one address
/// for all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BondMode {
    /// IEEE 802.3ad link aggregation (LACP, also across an MLAG pair): the host sends each flow
    /// on a member by hash, and a switch wired to several members spreads what it sends to the
    /// host over them by hash.
    Aggregate,
    /// Active-backup (Linux `mode=active-backup`): one member carries all traffic, the others
    /// stand by. The active member is port 0, the first enslaved interface, which Linux makes
    /// active when no `primary` is set; the standby ports carry nothing (no failover is
    /// simulated).
    ActiveBackup,
}

impl HostSpec {
    /// Whether port `local` stands by (no traffic either way): a port of an active-backup bond
    /// but the first, or a port marked [`HostPortSpec::standby`].
    pub fn is_standby(&self, local: usize) -> bool {
        (self.bond == Some(BondMode::ActiveBackup) && local != 0) || self.ports.get(local).is_some_and(|p| p.standby)
    }

    /// Apply a NIC profile: its timings, and its receive latency and buffer as `latency_ps` and
    /// `rx`.
    pub fn with_nic_profile(mut self, profile: NicProfile) -> Self {
        self.latency_ps = profile.rx_latency_ps;
        self.rx = profile.rx_spec();
        self.nic.profile = profile;
        self
    }
}

/// The RDMA side of a host's NIC, shared by its queue pairs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NicSpec {
    /// Timings. Its receive latency and buffer are applied through [`HostSpec::latency_ps`] and
    /// [`HostSpec::rx`] (set all three with [`HostSpec::with_nic_profile`]).
    pub profile: NicProfile,
    /// RC transport settings; the path MTU of each QP is its flow's `payload_bytes`.
    pub rc: RcConfig,
    /// Congestion control of the QPs this NIC sends data for.
    pub cc: CcAlgorithm,
    /// Notification point on: the NIC sends CNPs for CE-marked data it receives (DCQCN only).
    pub notification_point: bool,
    /// Reaction point on: the NIC's senders run `cc` (off: they ignore CNPs).
    pub reaction_point: bool,
    /// Marking of the CNPs it sends. Default priority 6 and DSCP 48, NVIDIA ConnectX's
    /// `cnp_802p_prio` and `cnp_dscp` defaults, not ECN-capable.
    pub cnp_class: FlowClass,
    /// Marking of the ACKs and NAKs it sends as a responder; `None`: its queue pair's own
    /// class, as RoCE adapters send them (the QP's traffic class and service level).
    #[serde(default)]
    pub ack_class: Option<FlowClass>,
    /// How its notification point signals congestion.
    #[serde(default)]
    pub cnp: CnpMode,
    /// How it chooses the next queue pair to send from.
    #[serde(default)]
    pub arbiter: NicArbiter,
}

/// How a NIC chooses the queue pair whose data packet goes next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NicArbiter {
    /// Round robin over the queue pairs that can send now: one that has sent, or has just
    /// become able to, goes behind the others.
    #[default]
    RoundRobin,
    /// The ns-3 HPCC simulator's (`RdmaEgressQueue::GetNextQindex`): its queue pairs in the
    /// order they were created, scanned from the one after the last that sent for the first
    /// that can send now; finished ones dropped from the list as the scan passes them. A new
    /// queue pair goes next when the last that sent is the last in the list.
    Ns3,
}

/// How a notification point tells the sender of CE-marked data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CnpMode {
    /// A congestion notification packet of its own (RoCEv2 annex A17: BTH opcode 0x81), at
    /// most one per `cnp_interval` per queue pair: what RoCE adapters send.
    #[default]
    Packet,
    /// A flag on the ACK of the marked packet, at most one per `cnp_interval`: the ns-3 HPCC
    /// simulator's (`RdmaHw::ReceiveUdp` sets `qbbHeader::FLAG_CNP` on the ACK of every packet
    /// that arrived with ECN bits). The ACK carries it as its ECN field set to CE (an echo of
    /// the mark; a switch never marks an ACK, which is not ECN-capable).
    AckFlag,
}

impl Default for NicSpec {
    fn default() -> Self {
        NicSpec {
            profile: NicProfile::default(),
            rc: RcConfig::default(),
            cc: CcAlgorithm::None,
            notification_point: true,
            reaction_point: true,
            cnp_class: FlowClass { priority: 6, dscp: 48, ecn_capable: false, tagged: true },
            ack_class: None,
            cnp: CnpMode::Packet,
            arbiter: NicArbiter::RoundRobin,
        }
    }
}

/// A NIC port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostPortSpec {
    /// PFC: priorities honoured when paused, and for which the NIC pauses its peer when the
    /// receive buffer fills.
    pub pfc: PfcPortSpec,
    /// IP MTU of the interface (TCP's MSS follows it); default 1500.
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// IEEE 802.3x link flow control: the port honours PAUSE frames (all priorities stop) and
    /// sends them when the host's receive buffer fills.
    #[serde(default)]
    pub link_pause: bool,
    /// The port's IPv4 address where the fabric gives one, which captures show. Without one the
    /// port has a made-up address in 10.0.0.0/8 ([`crate::addresses`]). The ECMP hash does not
    /// read it (see there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<std::net::Ipv4Addr>,
    /// A bond member that carries nothing: in an IEEE 802.3ad bond cabled to switches that are
    /// not an MLAG pair, each switch's links form an aggregator of their own (LACP aggregates
    /// the links between one pair of systems, IEEE 802.1AX) and the Linux bonding driver uses
    /// one of them; the ports of the others stand by (see [`crate::from_model`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub standby: bool,
}

fn default_mtu() -> u32 {
    1500
}

impl Default for HostPortSpec {
    fn default() -> Self {
        HostPortSpec { pfc: PfcPortSpec::default(), mtu: default_mtu(), link_pause: false, ipv4: None, standby: false }
    }
}

/// Receive buffer of a host: packets are accepted from the wire into it and drained towards
/// memory at `drain_bps`. When it reaches `xoff_bytes` the NIC sends PFC XOFF on every
/// PFC-enabled priority of the receiving port; below `xon_bytes` it sends XON. What does not fit
/// in `capacity_bytes` is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostRxSpec {
    /// Drain rate towards the host; `None` = never a bottleneck.
    pub drain_bps: Option<u64>,
    /// Buffer size.
    pub capacity_bytes: u64,
    /// XOFF level.
    pub xoff_bytes: u64,
    /// XON level.
    pub xon_bytes: u64,
}

impl Default for HostRxSpec {
    fn default() -> Self {
        HostRxSpec { drain_bps: None, capacity_bytes: 1 << 20, xoff_bytes: 512 << 10, xon_bytes: 256 << 10 }
    }
}

pub(super) fn validate_host(path: &str, h: &HostSpec) -> Result<(), SimError> {
    if h.ports.is_empty() {
        return Err(SimError::spec(path, "host has no port"));
    }
    if (0..h.ports.len()).all(|p| h.is_standby(p)) {
        return Err(SimError::spec(
            format!("{path}.ports"),
            "every port stands by, so the host sends and receives nothing; leave one port's `standby` false",
        ));
    }
    for (i, p) in h.ports.iter().enumerate() {
        validate_pfc(|| format!("{path}.ports[{i}].pfc"), &p.pfc)?;
        if !crate::tcp::stack::MTU_RANGE.contains(&p.mtu) {
            return Err(SimError::spec(
                format!("{path}.ports[{i}].mtu"),
                format!("the IP MTU {} is not in 576..=9216 bytes; use 1500 or 9000", p.mtu),
            ));
        }
    }
    h.tcp.validate().map_err(|(field, msg)| SimError::spec(format!("{path}.tcp.{field}"), msg))?;
    validate_nic(path, &h.nic)?;
    let rx = &h.rx;
    if rx.drain_bps == Some(0) {
        return Err(SimError::spec(
            format!("{path}.rx.drain_bps"),
            "drain rate 0 would never empty the buffer; use None for no host bottleneck",
        ));
    }
    if !(rx.xon_bytes <= rx.xoff_bytes && rx.xoff_bytes <= rx.capacity_bytes) {
        return Err(SimError::spec(
            format!("{path}.rx"),
            format!(
                "need xon_bytes <= xoff_bytes <= capacity_bytes, got {} / {} / {}",
                rx.xon_bytes, rx.xoff_bytes, rx.capacity_bytes
            ),
        ));
    }
    Ok(())
}

fn validate_nic(path: &str, n: &NicSpec) -> Result<(), SimError> {
    let rc = &n.rc;
    let p = |f: &str| format!("{path}.nic.{f}");
    if rc.window_packets == 0 {
        return Err(SimError::spec(p("rc.window_packets"), "a window of 0 packets sends nothing; use 128"));
    }
    if rc.window_packets >= 1 << 23 {
        return Err(SimError::spec(
            p("rc.window_packets"),
            "more than 2^23 outstanding PSNs makes the 24-bit PSN space ambiguous",
        ));
    }
    if rc.ack_every_packets == 0 {
        return Err(SimError::spec(p("rc.ack_every_packets"), "must be at least 1 (an ACK per packet)"));
    }
    if rc.timeout_ps == 0 {
        return Err(SimError::spec(p("rc.timeout_ps"), "a retransmit timeout of 0 would fire without end"));
    }
    if rc.retry_count > 7 {
        return Err(SimError::spec(p("rc.retry_count"), "the retry count is a 3-bit field: 0..=7"));
    }
    if n.cnp_class.priority > 7 || n.cnp_class.dscp > 63 {
        return Err(SimError::spec(p("cnp_class"), "priority is 0..=7 and DSCP 0..=63"));
    }
    if let crate::cc::CcAlgorithm::Dcqcn(d) = &n.cc {
        let ok = d.g > 0.0
            && d.g <= 1.0
            && d.initial_alpha > 0.0
            && d.initial_alpha <= 1.0
            && d.max_decrease > 0.0
            && d.max_decrease <= 1.0
            && d.alpha_update_interval_ps > 0
            && d.rate_increase_timer_ps > 0
            && d.byte_counter_bytes > 0
            && d.min_rate_bps > 0;
        if !ok {
            return Err(SimError::spec(
                p("cc"),
                format!(
                    "DCQCN needs 0 < g, initial_alpha, max_decrease <= 1 and positive timers, byte counter and \
                     minimum rate, got {d:?}"
                ),
            ));
        }
    }
    Ok(())
}
