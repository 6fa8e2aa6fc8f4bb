//! The simulator's input: a vendor-independent description of a network.
//!
//! Nodes are hosts or switches; each has numbered ports; links join two ports full duplex at a
//! rate (bit/s) with a propagation delay (ps: the model layer converts cable length, ≈5 ns per
//! metre). Switch QoS follows the IEEE 802.1Q/802.1Qbb/802.1Qaz vocabulary: a *priority* (0..8)
//! is taken from the PCP or the DSCP (trust mode), mapped to a *priority group* (PG, the unit of
//! ingress buffer accounting and PFC) and to a *traffic class* (TC, an egress queue with its
//! scheduler and ECN settings).
//!
//! Everything here is plain data with `serde` derives; [`NetworkSpec::validate`] checks it and
//! reports the path of anything inconsistent.

use crate::ecn::EcnSpec;
use crate::error::SimError;
use crate::mmu::XoffThreshold;
use crate::packet::wire;
use crate::pfc::MAX_QUANTA;
use crate::sched::Tsa;
use crate::time::{Serialization, Time};
use serde::{Deserialize, Serialize};

mod host;
mod switch_checks;
use host::validate_host;
pub use host::{BondMode, CnpMode, HostPortSpec, HostRxSpec, HostSpec, NicArbiter, NicSpec};
use switch_checks::{validate_pfc, validate_switch};

/// Index of a node in [`NetworkSpec::nodes`].
pub type NodeId = usize;

/// Largest frame the simulator carries: a 9216-byte jumbo MTU plus Ethernet, tag and FCS.
pub const MAX_FRAME_BYTES: u32 = 9216 + wire::ETHERNET + wire::VLAN_TAG + wire::FCS;

/// Longest link delay accepted (10 s): anything longer is a unit mistake.
pub const MAX_LINK_DELAY: Time = 10 * crate::time::SECOND;

/// Largest buffer accounting cell accepted.
pub const MAX_CELL_BYTES: u32 = 4096;

/// A port of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortRef {
    /// The node.
    pub node: NodeId,
    /// Index into the node's `ports`.
    pub port: usize,
}

/// A set of priorities (bit `p` = priority `p`), e.g. those with PFC enabled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityMask(pub u8);

impl PriorityMask {
    /// No priority.
    pub const NONE: PriorityMask = PriorityMask(0);

    /// The set of `priorities` (each < 8).
    pub fn of(priorities: &[u8]) -> Self {
        PriorityMask(priorities.iter().fold(0u8, |m, &p| m | (1 << (p & 7))))
    }

    /// Whether `priority` is in the set.
    #[inline]
    pub fn contains(self, priority: u8) -> bool {
        self.0 & (1 << priority) != 0
    }
}

/// The whole network.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkSpec {
    /// Hosts and switches; a node's index is its [`NodeId`].
    pub nodes: Vec<NodeSpec>,
    /// Full-duplex links; every port is on exactly one link.
    pub links: Vec<LinkSpec>,
    /// How frames are sized and timed on every link.
    #[serde(default)]
    pub wire: WireSpec,
    /// How switches and hosts choose among equal-cost next hops.
    #[serde(default)]
    pub ecmp: crate::routing::Ecmp,
}

/// How frames are sized and timed on the wire, the same on every link. The default is
/// Ethernet's and RoCEv2's; the ns-3 HPCC simulator's choices ([`WireSpec::hpcc`]) differ in
/// each field, and a line-by-line comparison with it needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireSpec {
    /// Bytes each frame takes on the wire beyond itself: 20 on Ethernet, the preamble and
    /// start-of-frame delimiter (8) and the minimum inter-frame gap (12 bytes, IEEE 802.3
    /// clause 4.4.2).
    pub overhead_bytes: u16,
    /// How a frame's duration is rounded.
    pub serialization: Serialization,
    /// Bytes of a PFC (and IEEE 802.3x PAUSE) frame: 64, a minimum-size MAC control frame
    /// (IEEE 802.1Qbb clause 36).
    pub pfc_frame_bytes: u32,
    /// Header bytes of every RDMA and open-loop data packet, whatever its opcode, in place of
    /// the RoCEv2 headers (`None`, see [`crate::rdma::wire`]); its frames have no minimum size.
    pub header_bytes: Option<u32>,
    /// Bytes of every ACK and NAK frame, in place of the RoCEv2 size (`None`).
    pub ack_frame_bytes: Option<u32>,
    /// An RC queue pair's payload per packet must be an InfiniBand path MTU (256 to 4096
    /// bytes, IBA §9.7.1): true unless the framing is a simulator's own.
    pub ib_path_mtu: bool,
}

impl Default for WireSpec {
    fn default() -> Self {
        WireSpec {
            overhead_bytes: wire::WIRE_OVERHEAD as u16,
            serialization: Serialization::Exact,
            pfc_frame_bytes: wire::PFC_FRAME,
            header_bytes: None,
            ack_frame_bytes: None,
            ib_path_mtu: true,
        }
    }
}

impl WireSpec {
    /// The ns-3 HPCC simulator's framing (alibaba-edu/High-Precision-Congestion-Control): no
    /// preamble or gap; durations in whole nanoseconds; a data packet is its payload and 48
    /// bytes of headers (`CustomHeader::GetStaticWholeHeaderSize`: a 14-byte "PPP" header that
    /// stands for Ethernet, IPv4 20, UDP 8, its 6-byte sequence header); an ACK is 60 bytes
    /// (`RdmaHw::ReceiveUdp` pads it to 60); a PFC frame 43 (its 9-byte `PauseHeader`, IPv4 and
    /// the 14-byte header); payloads of any size (1000 bytes in its configurations).
    pub fn hpcc() -> Self {
        WireSpec {
            overhead_bytes: 0,
            serialization: Serialization::TruncateNs,
            pfc_frame_bytes: 43,
            header_bytes: Some(48),
            ack_frame_bytes: Some(60),
            ib_path_mtu: false,
        }
    }
}

/// A host or a switch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeSpec {
    /// Name, for results and messages.
    pub name: String,
    /// What it is.
    pub kind: NodeKind,
}

/// Kind of node. A host's spec is larger than a switch's; nodes are built once per run and read
/// at build time only, so the difference costs a few hundred bytes a switch and no time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(clippy::large_enum_variant)]
pub enum NodeKind {
    /// An end host with a NIC.
    Host(HostSpec),
    /// A shared-buffer switch.
    Switch(SwitchSpec),
}

/// A full-duplex link between two ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSpec {
    /// One end.
    pub a: PortRef,
    /// The other end.
    pub b: PortRef,
    /// Rate in bit/s, each direction.
    pub rate_bps: u64,
    /// One-way propagation delay in picoseconds.
    pub delay_ps: Time,
}

/// PFC settings of a port (IEEE 802.1Qbb).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PfcPortSpec {
    /// Priorities for which the port sends and honours PFC. A pause received for a priority
    /// not in the set is counted and ignored, as hardware does.
    pub enabled: PriorityMask,
    /// Pause time this port requests in XOFF frames, in quanta of 512 bit times.
    pub quanta: u16,
    /// A pause this port receives lasts until the resume frame, whatever its quanta, and the
    /// XOFF it sends is sent once, not refreshed: the ns-3 HPCC simulator's PFC
    /// (`QbbNetDevice::Receive` ignores the pause time). Off, as IEEE 802.1Qbb has it: a pause
    /// runs out after its quanta, and the sender refreshes it while the condition holds.
    #[serde(default)]
    pub until_resume: bool,
}

impl Default for PfcPortSpec {
    fn default() -> Self {
        PfcPortSpec { enabled: PriorityMask::NONE, quanta: MAX_QUANTA, until_resume: false }
    }
}

/// A shared-buffer switch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchSpec {
    /// Packet buffer.
    pub buffer: BufferSpec,
    /// Classification.
    pub qos: QosSpec,
    /// Ports.
    pub ports: Vec<SwitchPortSpec>,
    /// Forwarding latency added to every arrival.
    pub latency_ps: Time,
    /// Seed mixed into the ECMP hash, so that tiers do not polarise.
    pub ecmp_seed: u64,
    /// When an egress queue decides to mark ECN.
    #[serde(default)]
    pub ecn_marking: EcnMarking,
    /// RDMA control frames (ACKs, NAKs and CNPs) are charged to the buffer like any frame, as
    /// in a real switch. Off, the MMU does not account them: they take no buffer, are never
    /// dropped for it and never trigger PFC, as the ns-3 HPCC simulator treats them (its queue
    /// 0 in `SwitchNode::SendToDev`).
    #[serde(default = "yes")]
    pub control_in_buffer: bool,
    /// How the MMU admits a lossless PG's frames around XOFF.
    #[serde(default)]
    pub admission: crate::mmu::Admission,
}

fn yes() -> bool {
    true
}

impl Default for SwitchSpec {
    fn default() -> Self {
        SwitchSpec {
            buffer: BufferSpec::default(),
            qos: QosSpec::default(),
            ports: Vec::new(),
            latency_ps: 0,
            ecmp_seed: 0,
            ecn_marking: EcnMarking::Enqueue,
            control_in_buffer: true,
            admission: crate::mmu::Admission::Headroom,
        }
    }
}

/// When an egress queue decides whether to mark a packet CE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EcnMarking {
    /// As the packet joins the queue, against the queue ahead of it (RED as Floyd & Jacobson
    /// state it, deciding at queue admission as WRED/ECN profiles do).
    #[default]
    Enqueue,
    /// As the packet leaves, against the queue behind it (the ns-3 HPCC simulator's
    /// `SwitchNode::SwitchNotifyDequeue` with `SwitchMmu::ShouldSendCN`), which signals
    /// congestion one queue's delay sooner.
    Dequeue,
}

/// The packet buffer of a switch (one shared-buffer MMU; see [`crate::mmu`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferSpec {
    /// Total buffer bytes.
    pub size_bytes: u64,
    /// Dynamic-threshold factor: a PG may hold `alpha × free shared bytes`.
    pub alpha: f64,
    /// Accounting unit: a frame is charged its size rounded up to cells (1 = byte accurate).
    pub cell_bytes: u32,
    /// Shared pool size; `None` = total minus every port's reserved and headroom bytes.
    pub shared_bytes: Option<u64>,
    /// The egress limit of lossy frames; `None`: lossy frames are limited at their ingress PG
    /// only, as the ns-3 HPCC simulator's `SwitchMmu` does (its `CheckEgressAdmission` admits
    /// everything).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_lossy: Option<EgressLossySpec>,
}

impl Default for BufferSpec {
    /// 16 MiB, alpha 1, byte-accurate: in the range of 100G top-of-rack ASICs; no egress limit.
    fn default() -> Self {
        BufferSpec { size_bytes: 16 << 20, alpha: 1.0, cell_bytes: 1, shared_bytes: None, egress_lossy: None }
    }
}

/// The egress admission of lossy frames ([`crate::mmu::EgressLossy`]): the frames of lossy
/// priority groups are charged to their egress queue in an egress lossy pool, and dropped when
/// the queue passes `alpha × free pool bytes` beyond its reserve. SONiC's
/// `egress_lossy_profile` on `egress_lossy_pool` (`dynamic_th` = log2 alpha, `size` = reserve).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EgressLossySpec {
    /// Size of the egress lossy pool (at most the buffer).
    pub pool_bytes: u64,
    /// Dynamic-threshold factor of each egress queue.
    pub alpha: f64,
    /// Bytes of each queue outside the pool.
    pub reserved_bytes: u64,
}

/// Which header field gives a packet's priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Trust {
    /// The 802.1Q PCP (untagged frames get `default_priority`).
    Pcp,
    /// The IP DSCP through `dscp_to_priority`.
    Dscp,
}

/// DSCP (0..64) to priority map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<u8>", into = "Vec<u8>")]
pub struct DscpMap(pub [u8; 64]);

impl Default for DscpMap {
    /// The class-selector convention: priority = DSCP >> 3.
    fn default() -> Self {
        let mut m = [0u8; 64];
        for (d, p) in m.iter_mut().enumerate() {
            *p = (d >> 3) as u8;
        }
        DscpMap(m)
    }
}

impl TryFrom<Vec<u8>> for DscpMap {
    type Error = String;
    fn try_from(v: Vec<u8>) -> Result<Self, String> {
        let a: [u8; 64] = v.try_into().map_err(|v: Vec<u8>| format!("DSCP map needs 64 entries, got {}", v.len()))?;
        Ok(DscpMap(a))
    }
}

impl From<DscpMap> for Vec<u8> {
    fn from(m: DscpMap) -> Vec<u8> {
        m.0.to_vec()
    }
}

/// Classification of a switch: trust mode and the priority → PG / TC maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QosSpec {
    /// PCP or DSCP.
    pub trust: Trust,
    /// Priority of untagged frames when trusting PCP.
    pub default_priority: u8,
    /// DSCP → priority, used when trusting DSCP.
    pub dscp_to_priority: DscpMap,
    /// Priority → traffic class (egress queue).
    pub priority_to_tc: [u8; 8],
    /// Priority → priority group (ingress accounting).
    pub priority_to_pg: [u8; 8],
}

impl Default for QosSpec {
    /// Trust PCP; priority p uses TC p and PG p.
    fn default() -> Self {
        QosSpec {
            trust: Trust::Pcp,
            default_priority: 0,
            dscp_to_priority: DscpMap::default(),
            priority_to_tc: [0, 1, 2, 3, 4, 5, 6, 7],
            priority_to_pg: [0, 1, 2, 3, 4, 5, 6, 7],
        }
    }
}

/// Buffer settings of one priority group of an ingress port.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriorityGroupSpec {
    /// Lossless: XOFF and headroom instead of drops.
    pub lossless: bool,
    /// Guaranteed bytes.
    pub reserved_bytes: u64,
    /// Headroom bytes absorbing in-flight data after XOFF (lossless only). Size it with the
    /// verify crate's headroom function (cable, speed, MTU, response time).
    pub headroom_bytes: u64,
    /// Shared-pool limit / XOFF point.
    pub threshold: XoffThreshold,
    /// XON at threshold minus this many bytes.
    pub xon_offset_bytes: u64,
}

impl PriorityGroupSpec {
    /// A lossy PG with the switch's dynamic threshold and no reserve.
    pub fn lossy() -> Self {
        PriorityGroupSpec {
            lossless: false,
            reserved_bytes: 0,
            headroom_bytes: 0,
            threshold: XoffThreshold::Dynamic,
            xon_offset_bytes: 0,
        }
    }

    /// A lossless PG with `headroom_bytes` of headroom, the switch's dynamic threshold and an
    /// XON offset of two jumbo frames.
    pub fn lossless(headroom_bytes: u64) -> Self {
        PriorityGroupSpec {
            lossless: true,
            reserved_bytes: 0,
            headroom_bytes,
            threshold: XoffThreshold::Dynamic,
            xon_offset_bytes: 2 * MAX_FRAME_BYTES as u64,
        }
    }
}

impl Default for PriorityGroupSpec {
    fn default() -> Self {
        Self::lossy()
    }
}

/// Egress settings of one traffic class of a port.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrafficClassSpec {
    /// Strict or ETS with a weight (IEEE 802.1Qaz).
    pub tsa: Tsa,
    /// RED/ECN marking, if enabled.
    pub ecn: Option<EcnSpec>,
}

impl Default for TrafficClassSpec {
    fn default() -> Self {
        TrafficClassSpec { tsa: Tsa::Ets(1), ecn: None }
    }
}

/// One switch port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SwitchPortSpec {
    /// PFC.
    pub pfc: PfcPortSpec,
    /// Ingress buffer settings per priority group.
    pub pgs: [PriorityGroupSpec; 8],
    /// Egress settings per traffic class.
    pub tcs: [TrafficClassSpec; 8],
    /// IEEE 802.3x link flow control: the port honours PAUSE frames and sends one when a
    /// lossless PG of the port without PFC crosses its XOFF threshold (make the PGs lossless,
    /// see [`SwitchPortSpec::with_link_pause`]).
    #[serde(default)]
    pub link_pause: bool,
}

impl SwitchPortSpec {
    /// Make `priority` lossless on a switch with the default identity maps: PFC enabled and
    /// PG `priority` lossless with `headroom_bytes`.
    pub fn with_lossless(mut self, priority: u8, headroom_bytes: u64) -> Self {
        self.pfc.enabled.0 |= 1 << priority;
        self.pgs[priority as usize] = PriorityGroupSpec::lossless(headroom_bytes);
        self
    }

    /// IEEE 802.3x link flow control on the port, with the PGs of `priorities` lossless with
    /// `headroom_bytes` each (without PFC, their XOFF sends PAUSE, which stops the whole link).
    pub fn with_link_pause(mut self, priorities: &[u8], headroom_bytes: u64) -> Self {
        self.link_pause = true;
        for &p in priorities {
            self.pgs[p as usize & 7] = PriorityGroupSpec::lossless(headroom_bytes);
        }
        self
    }

    /// Set the ETS weight of `tc`.
    pub fn with_ets(mut self, tc: u8, weight: u8) -> Self {
        self.tcs[tc as usize].tsa = Tsa::Ets(weight);
        self
    }

    /// Make `tc` strict priority.
    pub fn with_strict(mut self, tc: u8) -> Self {
        self.tcs[tc as usize].tsa = Tsa::Strict;
        self
    }

    /// Enable ECN marking on `tc`.
    pub fn with_ecn(mut self, tc: u8, ecn: EcnSpec) -> Self {
        self.tcs[tc as usize].ecn = Some(ecn);
        self
    }
}

impl NetworkSpec {
    /// Ports of a node.
    pub fn port_count(&self, node: NodeId) -> usize {
        match &self.nodes[node].kind {
            NodeKind::Host(h) => h.ports.len(),
            NodeKind::Switch(s) => s.ports.len(),
        }
    }

    /// The global id of each node's port 0, the ports numbered node after node, and last the
    /// number of ports in all (`nodes.len() + 1` entries): port `p` of node `n` is
    /// `first_ports[n] + p`.
    pub fn first_ports(&self) -> Vec<u32> {
        let mut first = Vec::with_capacity(self.nodes.len() + 1);
        let mut total = 0u32;
        for node in 0..self.nodes.len() {
            first.push(total);
            total += self.port_count(node) as u32;
        }
        first.push(total);
        first
    }

    /// Whether `node` is a host.
    pub fn is_host(&self, node: NodeId) -> bool {
        matches!(self.nodes.get(node).map(|n| &n.kind), Some(NodeKind::Host(_)))
    }

    /// Whether traffic may be routed over the link between ports `a` and `b`: every link but
    /// those of the standby ports of an active-backup bond ([`HostSpec::is_standby`]).
    pub fn routes_over(&self, a: PortRef, b: PortRef) -> bool {
        let active = |p: PortRef| match &self.nodes[p.node].kind {
            NodeKind::Host(h) => !h.is_standby(p.port),
            NodeKind::Switch(_) => true,
        };
        active(a) && active(b)
    }

    /// Check the description; the first problem found is returned with its path.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.nodes.is_empty() {
            return Err(SimError::spec("nodes", "no node; add hosts and switches"));
        }
        let mut seen: Vec<Vec<bool>> = (0..self.nodes.len()).map(|n| vec![false; self.port_count(n)]).collect();
        for (i, l) in self.links.iter().enumerate() {
            let path = || format!("links[{i}]");
            if l.rate_bps == 0 {
                return Err(SimError::spec(path(), "rate_bps is 0; give the link speed in bit/s"));
            }
            if l.delay_ps > MAX_LINK_DELAY {
                return Err(SimError::spec(
                    path(),
                    format!(
                        "delay_ps {} is over {MAX_LINK_DELAY} (10 s); give the one-way delay in picoseconds",
                        l.delay_ps
                    ),
                ));
            }
            for (end, r) in [("a", l.a), ("b", l.b)] {
                let Some(ports) = seen.get_mut(r.node) else {
                    return Err(SimError::spec(
                        format!("{}.{end}", path()),
                        format!("no node {} (there are {})", r.node, self.nodes.len()),
                    ));
                };
                let Some(used) = ports.get_mut(r.port) else {
                    return Err(SimError::spec(
                        format!("{}.{end}", path()),
                        format!(
                            "node \"{}\" has no port {} (it has {}); add the port to its spec",
                            self.nodes[r.node].name,
                            r.port,
                            self.port_count(r.node)
                        ),
                    ));
                };
                if *used {
                    return Err(SimError::spec(
                        format!("{}.{end}", path()),
                        format!("port {} of \"{}\" is already on another link", r.port, self.nodes[r.node].name),
                    ));
                }
                *used = true;
            }
            if l.a.node == l.b.node {
                return Err(SimError::spec(path(), "link joins a node to itself"));
            }
        }
        for (n, node) in self.nodes.iter().enumerate() {
            let path = format!("nodes[{n}] (\"{}\")", node.name);
            if let Some(p) = seen[n].iter().position(|u| !u) {
                return Err(SimError::spec(
                    format!("{path}.ports[{p}]"),
                    "port is on no link; remove it or connect it",
                ));
            }
            match &node.kind {
                NodeKind::Host(h) => validate_host(&path, h)?,
                NodeKind::Switch(s) => validate_switch(&path, s)?,
            }
        }
        Ok(())
    }
}

impl SwitchSpec {
    /// Bytes of the shared pool (explicit, or what reserves and headroom leave).
    pub fn shared_pool_bytes(&self) -> u64 {
        let carved: u64 =
            self.ports.iter().flat_map(|p| p.pgs.iter()).map(|g| g.reserved_bytes + g.headroom_bytes).sum();
        self.buffer.shared_bytes.unwrap_or(self.buffer.size_bytes.saturating_sub(carved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcAlgorithm;

    fn two_hosts() -> NetworkSpec {
        let host = || NodeSpec {
            name: "h".into(),
            kind: NodeKind::Host(HostSpec { ports: vec![HostPortSpec::default()], ..Default::default() }),
        };
        NetworkSpec {
            nodes: vec![host(), host()],
            links: vec![LinkSpec {
                a: PortRef { node: 0, port: 0 },
                b: PortRef { node: 1, port: 0 },
                rate_bps: 100_000_000_000,
                delay_ps: 1000,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn valid_spec_passes_and_roundtrips_through_json() {
        let s = two_hosts();
        s.validate().unwrap();
        let j = serde_json::to_string(&s).unwrap();
        let back: NetworkSpec = serde_json::from_str(&j).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn errors_name_the_path() {
        let mut s = two_hosts();
        s.links[0].b.port = 3;
        let e = s.validate().unwrap_err();
        assert!(e.to_string().contains("links[0].b"), "{e}");
        let mut s = two_hosts();
        s.links[0].rate_bps = 0;
        assert!(s.validate().unwrap_err().to_string().contains("rate_bps"));
        let mut s = two_hosts();
        if let NodeKind::Host(h) = &mut s.nodes[1].kind {
            h.rx.xon_bytes = h.rx.xoff_bytes + 1;
        }
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("nodes[1]") && e.contains("xon_bytes"), "{e}");
        let mut s = two_hosts();
        if let NodeKind::Host(h) = &mut s.nodes[0].kind {
            h.ports[0].pfc = PfcPortSpec { enabled: PriorityMask::of(&[3]), quanta: 0, ..Default::default() };
        }
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("ports[0].pfc") && e.contains("0 quanta"), "{e}");
        let mut s = two_hosts();
        s.links[0].delay_ps = u64::MAX;
        assert!(s.validate().unwrap_err().to_string().contains("delay_ps"));
        // A host whose every port stands by would carry nothing.
        let mut s = two_hosts();
        if let NodeKind::Host(h) = &mut s.nodes[1].kind {
            h.ports[0].standby = true;
        }
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("nodes[1] (\"h\").ports") && e.contains("every port stands by"), "{e}");
    }

    #[test]
    fn rdma_nic_settings_are_checked() {
        let mut s = two_hosts();
        if let NodeKind::Host(h) = &mut s.nodes[1].kind {
            h.nic.rc.window_packets = 0;
        }
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("nodes[1]") && e.contains("nic.rc.window_packets"), "{e}");
        let mut s = two_hosts();
        if let NodeKind::Host(h) = &mut s.nodes[0].kind {
            let mut p = crate::cc::DcqcnParams::paper();
            p.g = 0.0;
            h.nic.cc = CcAlgorithm::Dcqcn(p);
        }
        assert!(s.validate().unwrap_err().to_string().contains("nic.cc"));
        let mut s = two_hosts();
        if let NodeKind::Host(h) = &mut s.nodes[0].kind {
            h.nic.rc.retry_count = 8;
        }
        assert!(s.validate().unwrap_err().to_string().contains("3-bit"));
    }

    #[test]
    fn headroom_larger_than_buffer_is_refused() {
        let sw = SwitchSpec {
            buffer: BufferSpec { size_bytes: 100_000, ..Default::default() },
            ports: vec![SwitchPortSpec::default().with_lossless(3, 200_000)],
            ..Default::default()
        };
        let e = validate_switch("nodes[0]", &sw).unwrap_err().to_string();
        assert!(e.contains("exceed the buffer"), "{e}");
    }

    #[test]
    fn an_egress_lossy_pool_outside_the_buffer_or_a_bad_alpha_is_refused() {
        let sw = |pool_bytes, alpha| {
            let mut s = SwitchSpec { ports: vec![SwitchPortSpec::default()], ..Default::default() };
            s.buffer.size_bytes = 100_000;
            s.buffer.egress_lossy = Some(EgressLossySpec { pool_bytes, alpha, reserved_bytes: 1518 });
            s
        };
        assert!(validate_switch("nodes[0]", &sw(100_000, 8.0)).is_ok());
        for pool in [0, 100_001] {
            let e = validate_switch("nodes[0]", &sw(pool, 8.0)).unwrap_err().to_string();
            assert!(e.contains("nodes[0].buffer.egress_lossy.pool_bytes") && e.contains("not in 1..=100000"), "{e}");
        }
        for alpha in [0.0, -1.0, f64::NAN] {
            let e = validate_switch("nodes[0]", &sw(50_000, alpha)).unwrap_err().to_string();
            assert!(e.contains("nodes[0].buffer.egress_lossy.alpha") && e.contains("positive number"), "{e}");
        }
    }

    #[test]
    fn priority_mask() {
        let m = PriorityMask::of(&[3, 4]);
        assert!(m.contains(3) && m.contains(4) && !m.contains(0));
        assert_eq!(m.0, 0b11000);
    }
}
