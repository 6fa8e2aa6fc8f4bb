//! The fabric intent as written in YAML: devices, links, topology generators and imports, and
//! the scenario around it (variants and a sweep). `expand` turns it into the resolved fabric.

use crate::de::{one_or_many, recover_vec};
use crate::qos::Qos;
pub use crate::storage::StorageProtocol;
use crate::units::{Length, Rate, Size, Time};
use serde::{Deserialize, Serialize};

/// A scenario file: the fabric, and optionally named variants and a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub fabric: Fabric,
    /// Run settings for `rocelab sim`.
    #[serde(default)]
    pub simulation: crate::workload::Simulation,
    /// Traffic for `rocelab sim`.
    #[serde(default, skip_serializing_if = "crate::workload::Workloads::is_empty")]
    pub workloads: crate::workload::Workloads,
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
    /// The rule IDs of the findings `rocelab check` is expected to report on this fabric: an
    /// example that shows a misconfiguration on purpose declares it, and `check` then passes
    /// when it finds exactly these (see [`crate::rules::RULE_IDS`]). A variant may set its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<String>>,
    /// What `rocelab tune` searches (see [`crate::tune`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<crate::tune::Tune>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fabric {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub topology: Topology,
    pub qos: Qos,
    /// RDMA transport settings of every adapter's queue pairs (window, ACKs, timeout, CNP);
    /// an adapter's `transport` overrides them, and unset ones come from the simulation model's
    /// profile (see [`crate::transport`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdma: Option<crate::transport::RdmaTransport>,
}

/// Devices and links, listed, generated, imported, or a mix (a generator plus extra devices
/// such as a storage array and the links that attach them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<Generator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<Import>,
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
}

/// A topology read from another tool's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Import {
    /// An ns-3 HPCC simulator topology file (`nodes switches links`, switch ids, then
    /// `a b rate delay error_rate` per link), relative to the fabric file.
    pub hpcc: String,
    /// Platform given to the imported switches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_platform: Option<Platform>,
    /// Shared buffer of the imported switches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_buffer: Option<Size>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Switch,
    Host,
    Storage,
}

/// Switch operating systems rocelab knows the port naming (and, in `rocelab-config`, the
/// configuration syntax) of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Platform {
    /// NVIDIA (Mellanox) Onyx, formerly MLNX-OS: ports `ethernet 1/1` shown as `Eth1/1`.
    #[serde(alias = "mlnx-os")]
    NvidiaOnyx,
    /// NVIDIA Cumulus Linux: `swp1`.
    NvidiaCumulus,
    /// Arista EOS: `Ethernet1`, or `Ethernet49/1` on QSFP ports.
    AristaEos,
    /// HPE Comware 7 (5900/5940): `Ten-GigabitEthernet1/0/1`, `FortyGigE1/0/49`.
    HpeComware,
    /// SONiC: `Ethernet0`, `Ethernet4`, … (numbered by first SerDes lane).
    Sonic,
    /// Dell OS10: `ethernet1/1/1`.
    DellOs10,
    /// Dell Networking OS 9, formerly Force10 FTOS (S4810 and other S-series): ports
    /// `interface TenGigabitEthernet 0/0` and `interface fortyGigE 0/48`, written
    /// `TenGigabitEthernet0/0` and `fortyGigE0/48`, numbered from 0 ("FTOS Configuration Guide
    /// for the S4810 System, FTOS 9.2(0.0)"). The switch of the Dell EqualLogic iSCSI papers.
    #[serde(alias = "ftos", alias = "dell-ftos")]
    DellOs9,
    /// Cisco NX-OS: `Ethernet1/1`.
    CiscoNxos,
    /// A switch without a vendor OS (simulation only): `p1`, `p2`, …
    Generic,
}

pub const PLATFORMS: &[&str] = &[
    "nvidia-onyx",
    "nvidia-cumulus",
    "arista-eos",
    "hpe-comware",
    "sonic",
    "dell-os10",
    "dell-os9",
    "cisco-nxos",
    "generic",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Windows,
    Esxi,
    /// A storage array's own operating system (Purity, ONTAP, …).
    Appliance,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum NicVendor {
    #[serde(alias = "mellanox")]
    Nvidia,
    Broadcom,
    #[serde(alias = "cavium", alias = "qlogic")]
    Marvell,
    Intel,
    Chelsio,
    Other,
}

/// Which RDMA transport an adapter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum RdmaKind {
    RoceV2,
    RoceV1,
    Iwarp,
    /// RoCE and iWARP at the same time (e.g. Marvell FastLinQ 41000).
    RoceAndIwarp,
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nic {
    pub vendor: NicVendor,
    pub model: String,
    /// Number of ports.
    #[serde(default = "one")]
    pub ports: u32,
    pub speed: Rate,
    /// Other speeds the ports can run at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speeds: Vec<Rate>,
    /// RDMA transport; default by vendor (RoCEv2, iWARP for Chelsio, none for Intel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdma: Option<RdmaKind>,
    /// Port names as the host OS shows them; default `p0`, `p1`, … across the host's adapters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub port_names: Vec<String>,
    /// IP address with prefix length (`10.0.2.31/24`, `fd00::1/64`) of each port, in port order;
    /// `rocelab config` uses them for storage attach (NVMe-oF, iSCSI portals, NFS exports).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<String>,
    /// RDMA transport settings of this adapter's queue pairs, over `fabric.rdma` (see
    /// [`crate::transport`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<crate::transport::RdmaTransport>,
}

/// The address and prefix length of `address/prefix` (IPv4 prefix 0-32, IPv6 0-128); the
/// reason when it is not one.
pub fn parse_cidr(text: &str) -> Result<(std::net::IpAddr, u8), String> {
    let Some((addr, len)) = text.split_once('/') else {
        return Err(format!("`{text}` has no prefix length; write it as `10.0.2.31/24`"));
    };
    let ip: std::net::IpAddr = addr.parse().map_err(|_| format!("`{addr}` is not an IPv4 or IPv6 address"))?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    match len.parse::<u8>() {
        Ok(n) if n <= max => Ok((ip, n)),
        _ => Err(format!("prefix length `{len}` is not 0-{max}")),
    }
}

fn one() -> u32 {
    1
}

impl Nic {
    pub fn rdma_kind(&self) -> RdmaKind {
        self.rdma.unwrap_or(match self.vendor {
            NicVendor::Chelsio => RdmaKind::Iwarp,
            NicVendor::Intel | NicVendor::Other => RdmaKind::None,
            _ => RdmaKind::RoceV2,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum StorageKind {
    Array,
    Server,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageTarget {
    pub kind: StorageKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
    pub protocols: Vec<StorageProtocol>,
    /// The device model the simulator services IOs with (`rocelab sim`); default `nvme-ssd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::storage::StorageProfile>,
    /// Overrides of the profile's numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::storage::TargetModel>,
}

/// Ports of a switch: one name or a range over the last number (`eth1/1-48`, `Ethernet49/1-52/1`
/// is not a range; write `Ethernet49-52/1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortGroup {
    #[serde(alias = "name")]
    pub names: String,
    pub speed: Rate,
    /// Other speeds these ports can run at (e.g. 40G on a 100G QSFP28 port).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speeds: Vec<Rate>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub name: String,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<Os>,
    /// Switches: the software release the configuration is rendered for (one of
    /// `Platform::releases`); default: the platform's `default_release`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    #[serde(default, alias = "nic", deserialize_with = "one_or_many", skip_serializing_if = "Vec::is_empty")]
    pub nics: Vec<Nic>,
    /// Switch ports; default: the port layout of a known `model`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortGroup>,
    /// Shared packet buffer (switches); default: the known model's, else `qos.buffer.size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageTarget>,
    /// A VXLAN tunnel endpoint (EVPN leaf): how it carries QoS across the overlay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vxlan: Option<Vxlan>,
    /// Hosts and storage: how the adapter ports are aggregated, if at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bonding: Option<Bonding>,
    /// Hosts and storage: the TCP stack's settings (`rocelab sim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::storage::TcpSettings>,
    /// Hosts and storage: processors, for the CPU cost model (`rocelab sim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::storage::Cpu>,
}

/// QoS across a VXLAN overlay. Both fields must be stated: vendors' defaults differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vxlan {
    /// ECN copied from the inner to the outer header at encapsulation and a CE mark copied back
    /// at decapsulation (RFC 6040; Arista `vxlan qos ecn propagation`).
    pub ecn_propagation: bool,
    /// The inner DSCP copied to the outer header, so that the underlay classifies RoCE into
    /// its lossless class.
    pub dscp_preservation: bool,
}

/// Link aggregation of a host's or array's ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bonding {
    /// LACP bond across two switches in an MLAG pair.
    Mlag,
    /// LACP bond to one switch.
    Lacp,
    /// Active-backup bond (one port carries traffic).
    ActiveBackup,
}

/// A cable between two ports, `device:port` at each end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub a: String,
    pub b: String,
    /// Link speed; default: the ports' speed (both ends must agree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Rate>,
    /// Cable length; default 3 m (a typical in-rack DAC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cable: Option<Length>,
    /// One-way propagation delay, when known instead of the length (imported topologies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Time>,
}

/// Named overrides of any field, e.g. `qos.dcqcn.enabled: true` or `qos.classes[roce].ets: 95`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Field path from the top of the file (`fabric.qos.mtu`) → new value.
    pub set: serde_json::Map<String, serde_json::Value>,
}

/// One field and the values it takes, each giving a point of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// Field path from the top of the file, e.g. `fabric.qos.mtu`.
    pub field: String,
    pub values: Vec<serde_json::Value>,
}

// The topology generators' parameters as a fabric file writes them; `generators.rs` expands
// them into devices and links.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Generator {
    /// Initiators cabled straight to one target, no switch (the Arista/Pure baseline).
    Direct(Direct),
    /// Hosts (and optionally storage targets) on one switch.
    SingleSwitch(SingleSwitch),
    /// Two switches joined by a bottleneck link, hosts on each (Demartek configuration 4).
    TwoSwitch(TwoSwitch),
    /// Two-tier Clos: every leaf cabled to every spine.
    LeafSpine(LeafSpine),
    /// k-ary fat tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation
    /// switches, (k/2)² core switches, k³/4 hosts.
    FatTree(FatTree),
}

/// Settings given to every generated switch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SwitchTemplate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The switches' software release (see `Device::os_version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Size>,
}

/// Settings given to every generated host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HostTemplate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<Os>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_vendor: Option<NicVendor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_model: Option<String>,
    /// Name prefix; hosts are `host1`, `host2`, … by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
}

/// Storage targets a generator attaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetTemplate {
    #[serde(default = "one")]
    pub count: u32,
    /// Ports per target.
    #[serde(default = "one")]
    pub ports: u32,
    #[serde(default = "array")]
    pub kind: StorageKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
    pub protocols: Vec<StorageProtocol>,
    /// Device model for the simulator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::storage::StorageProfile>,
    /// Name prefix; targets are `array1`, … by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
}

fn array() -> StorageKind {
    StorageKind::Array
}
fn default_cable() -> Length {
    Length::metres(3)
}
fn default_fabric_cable() -> Length {
    Length::metres(10)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Direct {
    pub hosts: u32,
    pub speed: Rate,
    #[serde(default = "default_cable")]
    pub cable: Length,
    #[serde(default)]
    pub host: HostTemplate,
    /// The target every host is cabled to; it gets one port per host.
    pub target: TargetTemplate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SingleSwitch {
    pub hosts: u32,
    pub speed: Rate,
    #[serde(default = "default_cable")]
    pub cable: Length,
    #[serde(default)]
    pub switch: SwitchTemplate,
    #[serde(default)]
    pub host: HostTemplate,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<TargetTemplate>,
    /// Speed of the target ports; default `speed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_speed: Option<Rate>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoSwitch {
    /// Hosts on the first and on the second switch.
    pub hosts: [u32; 2],
    pub host_speed: Rate,
    /// Speed of the inter-switch link(s).
    pub bottleneck: Rate,
    #[serde(default = "one")]
    pub bottleneck_links: u32,
    #[serde(default = "default_cable")]
    pub cable: Length,
    #[serde(default = "default_fabric_cable")]
    pub bottleneck_cable: Length,
    /// The two switches; default both generic.
    #[serde(default)]
    pub switches: [SwitchTemplate; 2],
    #[serde(default)]
    pub host: HostTemplate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpine {
    pub leaves: u32,
    pub spines: u32,
    pub hosts_per_leaf: u32,
    pub host_speed: Rate,
    pub uplink_speed: Rate,
    /// Parallel links from each leaf to each spine; default from `oversubscription`, else 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links_per_spine: Option<u32>,
    /// Host bandwidth over uplink bandwidth per leaf (1 for non-blocking, 3 for 3:1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<f64>,
    #[serde(default = "default_cable")]
    pub host_cable: Length,
    #[serde(default = "default_fabric_cable")]
    pub fabric_cable: Length,
    #[serde(default)]
    pub leaf: SwitchTemplate,
    #[serde(default)]
    pub spine: SwitchTemplate,
    #[serde(default)]
    pub host: HostTemplate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    pub k: u32,
    pub host_speed: Rate,
    /// Speed of switch-to-switch links; default `host_speed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fabric_speed: Option<Rate>,
    #[serde(default = "default_cable")]
    pub host_cable: Length,
    #[serde(default = "default_fabric_cable")]
    pub fabric_cable: Length,
    #[serde(default)]
    pub switch: SwitchTemplate,
    #[serde(default)]
    pub host: HostTemplate,
}
