//! The configured state of a fabric, vendor-independent (Batfish style): what each device does
//! to a packet of each priority, whether that state came from the intent (every device follows
//! the policy and its per-port overrides) or from running configurations imported from the
//! devices. The checks are pure functions over this.
//!
//! Ports share their QoS through interned [`PortQos`] profiles, as real configurations share
//! named maps and policies: a 20,000-host fabric holds a handful of profiles, not 360,000
//! copies.

use rocelab_model::fabric::{Bonding, Role, StorageProtocol, Vxlan};
use rocelab_model::units::{Length, Rate, Time};
use serde::Serialize;

/// Where a piece of state was read from, for findings about imported devices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    pub file: String,
    pub line: usize,
}

/// Which header field a port classifies on: the fabric model's trust mode.
pub use rocelab_model::qos::Marking;

/// How the scheduler serves one egress queue (IEEE 802.1Qaz ETS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash, Default)]
#[serde(rename_all = "snake_case")]
pub enum Sched {
    /// Not configured (the device's default, usually a lossy share).
    #[default]
    Unset,
    Strict,
    /// ETS bandwidth share in percent.
    Ets(u8),
}

/// RED/ECN marking on an egress queue, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EcnState {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

/// RDMA adapter settings of a host or storage port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Hash, Default)]
pub struct HostRdma {
    /// ToS byte of RoCEv2 packets; `None` when the adapter is not told (DSCP 0).
    pub roce_tos: Option<u8>,
    /// Priority CNPs are sent with.
    pub cnp_priority: Option<u8>,
    /// Priorities with the DCQCN notification point on (bit per priority).
    pub np: u8,
    /// Priorities with the DCQCN reaction point on.
    pub rp: u8,
    /// The IEEE 802.1p priority the host tags RDMA with (Windows `PriorityValue8021Action` of
    /// its NetDirect policy, a VLAN egress map); judged where the switch trusts PCP.
    pub pcp: Option<u8>,
    /// Whether the source shows the adapter's RoCE ToS, CNP priority and DCQCN points. The
    /// intent does; QoS-only output of a host (`mlnx_qos -i`, `Get-NetQos*`) does not, and
    /// the checks of those settings then skip the port instead of reading defaults as faults.
    pub rdma_visible: bool,
}

/// The QoS of a port. Every array is indexed by priority (0-7) unless said otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortQos {
    pub mtu: u32,
    pub trust: Marking,
    /// DSCP → priority under DSCP trust (unmapped code points go to 0, as on most switches).
    #[serde(skip)]
    pub dscp_to_priority: [u8; 64],
    /// Priority → ingress priority group.
    pub priority_to_pg: [u8; 8],
    /// Priority → egress queue (traffic class).
    pub priority_to_queue: [u8; 8],
    /// Priorities with PFC on (bit per priority).
    pub pfc: u8,
    /// IEEE 802.3x link-level pause.
    pub link_pause: bool,
    /// Scheduling per egress queue.
    pub sched: [Sched; 8],
    /// Per egress queue: whether a scheduler serves it, where the source shows the binding
    /// (SONiC `QUEUE|Ethernet0|3 scheduler`): `Some(false)` is a queue the configuration leaves
    /// without one, `None` a source that does not say (an unset [`PortQos::sched`] is then the
    /// device's default, not a fault).
    pub ets_scheduled: [Option<bool>; 8],
    /// ECN per egress queue.
    pub ecn: [Option<EcnState>; 8],
    /// Configured headroom per priority group, bytes (`None`: computed by rocelab or the device).
    pub headroom: [Option<u64>; 8],
    /// Static XOFF threshold per priority group, bytes (`None`: dynamic threshold).
    pub xoff: [Option<u64>; 8],
    /// Dynamic-threshold alpha of the port's lossless priority groups (`None`: the policy's).
    /// Ports of different speeds may differ (`qos.buffer.alpha` by speed).
    pub alpha: Option<f64>,
    /// Bytes reserved to each priority group before it draws on the shared pool (`None`: none
    /// known, read as 0).
    pub reserve: [Option<u64>; 8],
    /// DCBX willing (`None`: DCBX off or unknown).
    pub dcbx_willing: Option<bool>,
    /// Host and storage ports only.
    pub host: Option<HostRdma>,
    /// Nothing is known of this port's configuration (an imported fabric's device without a
    /// configuration file): checks skip it rather than guess.
    pub unknown: bool,
    /// The VLANs the port carries and how (`None`: not shown, as from the intent or a host
    /// capture). An 802.1p priority travels only in a VLAN tag (IEEE 802.1Q clause 6.9), so
    /// a port whose RDMA class is told by PCP must carry that traffic tagged.
    pub vlans: Option<PortVlans>,
    /// Queues whose egress buffer draws on a lossless pool (SONiC `BUFFER_QUEUE` profile whose
    /// `pool` is an egress pool named lossless), bit per queue; `None` where not shown.
    pub egress_lossless: Option<u8>,
    /// The cable length the device was configured for (SONiC `CABLE_LENGTH`), which sizes its
    /// PFC headroom; `None` where not shown. The import takes it as the link's length unless
    /// the links file gives one.
    pub cable: Option<Length>,
}

/// How a switch port carries VLANs (EOS `switchport mode`/`switchport access vlan`/
/// `switchport trunk allowed vlan`/`switchport trunk native vlan`; SONiC `VLAN_MEMBER`
/// `tagging_mode`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PortVlans {
    /// The VLAN whose frames leave the port untagged (the access VLAN, a trunk's native VLAN).
    pub untagged: Option<u16>,
    /// VLANs carried tagged, as inclusive ranges (`1-4094` for an EOS trunk allowing all).
    pub tagged: Vec<(u16, u16)>,
    /// The smallest MTU of the switch's VLAN interfaces (`interface VlanN` SVIs) of VLANs the
    /// port carries: the IP MTU a packet routed into those VLANs meets.
    pub svi_mtu: Option<u32>,
    /// VLANs the port is given that the switch does not define (no `vlan N`): their frames are
    /// dropped.
    pub undefined: Vec<u16>,
}

impl PortVlans {
    /// Whether frames of VLAN `vid` leave the port tagged.
    pub fn is_tagged(&self, vid: u16) -> bool {
        self.tagged.iter().any(|(a, b)| (*a..=*b).contains(&vid)) && self.untagged != Some(vid)
    }
}

impl PortQos {
    /// A port with nothing configured: PCP trust, everything in priority group and queue 0,
    /// no PFC, no ECN. Importers start from this and fill in what they read.
    pub fn unconfigured(mtu: u32) -> PortQos {
        PortQos {
            mtu,
            trust: Marking::Pcp,
            dscp_to_priority: [0; 64],
            priority_to_pg: [0; 8],
            priority_to_queue: [0, 1, 2, 3, 4, 5, 6, 7],
            pfc: 0,
            link_pause: false,
            sched: [Sched::Unset; 8],
            ets_scheduled: [None; 8],
            ecn: [None; 8],
            headroom: [None; 8],
            xoff: [None; 8],
            alpha: None,
            reserve: [None; 8],
            dcbx_willing: None,
            host: None,
            unknown: false,
            vlans: None,
            egress_lossless: None,
            cable: None,
        }
    }
    pub fn pfc_on(&self, priority: u8) -> bool {
        self.pfc & (1 << priority) != 0
    }
    /// The priority a packet with this DSCP (or, under PCP trust, this PCP) is classified to.
    pub fn classify(&self, dscp: u8, pcp: u8) -> u8 {
        match self.trust {
            Marking::Dscp => self.dscp_to_priority[(dscp & 63) as usize],
            Marking::Pcp => pcp & 7,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PortState {
    pub name: String,
    pub speed: Rate,
    /// Index into [`State::links`].
    pub link: Option<u32>,
    /// Index into [`State::profiles`].
    pub qos: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeviceState {
    pub name: String,
    pub role: Role,
    /// Platform or OS, as text (`arista-eos`, `windows`, …).
    pub platform: Option<String>,
    /// Shared packet buffer, bytes.
    pub buffer: Option<u64>,
    pub ports: Vec<PortState>,
    /// An RDMA endpoint (host or storage with an RDMA adapter).
    pub rdma: bool,
    /// Storage protocols it serves or uses.
    pub protocols: Vec<StorageProtocol>,
    pub vxlan: Option<Vxlan>,
    pub bonding: Option<Bonding>,
    /// The bond is over both ports of one ConnectX and nothing else: one RDMA device for both
    /// (mlx5 RoCE LAG, [`rocelab_model::ResolvedDevice::is_roce_lag`]).
    pub roce_lag: bool,
    pub origin: Option<Origin>,
    /// Buffer pools configured on the switch (imported configurations), bytes.
    pub pools: Vec<Pool>,
}

/// A shared-buffer pool as a switch configures it (Onyx `pool iPool1 size N type dynamic`,
/// SONiC `BUFFER_POOL`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pool {
    pub name: String,
    pub size: u64,
    /// An ingress pool (priority groups draw on it); else egress.
    pub ingress: bool,
}

/// One end of a link: (device, port) indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
pub struct End {
    pub device: u32,
    pub port: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct LinkState {
    pub a: End,
    pub b: End,
    pub speed: Rate,
    pub cable: Length,
}

/// What the fabric is meant to do, against which the configured state is judged. From the
/// intent it is the policy; for imported devices it is inferred from what they agree on.
#[derive(Debug, Clone, Serialize)]
pub struct Policy {
    /// Lossless priorities (bit per priority).
    pub lossless: u8,
    /// The priority RDMA traffic should travel in.
    pub rdma_priority: Option<u8>,
    /// The DSCP RDMA traffic is marked with.
    pub rdma_dscp: Option<u8>,
    pub cnp_priority: Option<u8>,
    pub cnp_dscp: Option<u8>,
    pub trust: Marking,
    /// RoCE path MTU (InfiniBand MTU of the payload).
    pub roce_mtu: u32,
    /// Whether the RoCE path MTU was stated (the intent, a links file's `policy.roce_mtu`)
    /// rather than assumed: an assumed one does not excuse a port too small for 4096.
    pub roce_mtu_stated: bool,
    /// DCQCN meant to run.
    pub dcqcn: bool,
    /// PFC response time for the headroom calculation.
    pub response_time: Time,
    /// Dynamic threshold alpha of the lossless pools: the fabric-wide one (a port's own is
    /// [`PortQos::alpha`]).
    pub alpha: f64,
    /// Class names by priority, for findings.
    pub class_names: [Option<String>; 8],
    /// How the policy was inferred from imported devices; `None` when it was stated (the
    /// intent, a links file's `policy`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred: Option<Inference>,
}

/// The devices' votes behind an inferred [`Policy`] ([`crate::infer`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Inference {
    pub parts: Vec<InferredPart>,
}

/// One part of an inferred policy: the value most devices hold, and who holds another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InferredPart {
    /// `lossless priorities`, `RDMA DSCP`, `CNP priority`, `trust`.
    pub what: &'static str,
    /// The majority value as shown (`3`, `26`, `DSCP`); `None` when no device shows one.
    pub value: Option<String>,
    /// Devices holding the value.
    pub agree: usize,
    /// Devices that showed this part at all.
    pub voters: usize,
    /// Devices holding another value, with theirs (`none` for a device that shows none).
    pub dissent: Vec<(String, String)>,
}

impl Policy {
    pub fn is_lossless(&self, priority: u8) -> bool {
        self.lossless & (1 << priority) != 0
    }
    pub fn lossless_priorities(&self) -> impl Iterator<Item = u8> + '_ {
        (0..8).filter(|p| self.is_lossless(*p))
    }
    /// `roce (priority 3)` or `priority 3`.
    pub fn class_label(&self, priority: u8) -> String {
        match &self.class_names[priority as usize & 7] {
            Some(n) => format!("{n} (priority {priority})"),
            None => format!("priority {priority}"),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct State {
    pub name: String,
    pub devices: Vec<DeviceState>,
    pub links: Vec<LinkState>,
    pub profiles: Vec<PortQos>,
    pub policy: Policy,
}

impl State {
    pub fn port(&self, e: End) -> &PortState {
        &self.devices[e.device as usize].ports[e.port as usize]
    }
    pub fn qos(&self, e: End) -> &PortQos {
        &self.profiles[self.port(e).qos as usize]
    }
    pub fn device(&self, e: End) -> &DeviceState {
        &self.devices[e.device as usize]
    }
    pub fn is_switch(&self, device: u32) -> bool {
        self.devices[device as usize].role == Role::Switch
    }
    /// The far end of a link seen from one end.
    pub fn peer(&self, link: u32, from: End) -> End {
        let l = &self.links[link as usize];
        if l.a == from {
            l.b
        } else {
            l.a
        }
    }
    /// Adds a profile, reusing an equal one.
    pub fn intern(profiles: &mut Vec<PortQos>, q: PortQos) -> u32 {
        // Fabrics hold few distinct profiles; a linear scan over them is cheap and keeps
        // `PortQos` free of a `Hash` impl over its float.
        match profiles.iter().position(|p| *p == q) {
            Some(i) => i as u32,
            None => {
                profiles.push(q);
                (profiles.len() - 1) as u32
            }
        }
    }
}
