//! From the fabric as written to the fabric as it is: generators run, imports read, port ranges
//! and known models expanded, every link resolved to two ports with one speed, a cable and a
//! propagation delay, per-port QoS overrides applied. Every reference is checked on the way;
//! problems are collected (never the first one only) and located.

use crate::catalog::{expand_port_range, switch_model, DEFAULT_SWITCH_BUFFER};
use crate::diag::{did_you_mean, problem, Problem};
use crate::fabric::{Bonding, Device, Fabric, Link, Nic, Os, Platform, Role, StorageTarget, Vxlan};
use crate::qos::{DcqcnParams, Ecn, Marking, Qos, DEFAULT_ALPHA};
use crate::simmodel::ResolvedSimModel;
use crate::transport::{RdmaTransport, ResolvedTransport};
use crate::units::{Length, Rate, Size, Time};
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

mod device;
use device::resolve_device;

/// The fabric with everything expanded and resolved; what `show` prints and what the
/// configuration renderer, the checker and the simulator consume.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedFabric {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub devices: Vec<ResolvedDevice>,
    pub links: Vec<ResolvedLink>,
    pub qos: Qos,
    pub dcqcn: DcqcnParams,
    /// The RoCE path MTU in use.
    pub roce_mtu: u32,
    /// `fabric.rdma` as written (see [`ResolvedFabric::rdma_transport`] for what a host runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rdma: Option<RdmaTransport>,
    /// The scenario's `simulation.model`, resolved (the `hardware` profile when not given): the
    /// RDMA transport defaults depend on its profile.
    pub sim_model: ResolvedSimModel,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResolvedDevice {
    pub name: String,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os: Option<Os>,
    /// Switches: the software release rendered for, as the fabric file names it (validated
    /// against `Platform::releases`); `None` for the platform's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nics: Vec<Nic>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageTarget>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vxlan: Option<Vxlan>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bonding: Option<Bonding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::storage::TcpSettings>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::storage::Cpu>,
    /// Shared packet buffer (switches) and where the figure comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Size>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_source: Option<String>,
    pub ports: Vec<ResolvedPort>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResolvedPort {
    pub name: String,
    pub speed: Rate,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub speeds: Vec<Rate>,
    /// Index of the NIC (hosts and storage) this port belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic: Option<usize>,
    /// Index into `links` of the cable plugged in here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<usize>,
    /// QoS of this port where a `qos.ports` override changes it, or, when the policy gives a
    /// setting per link speed, on every port (with its speed's values); read it through
    /// [`ResolvedFabric::port_settings`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<PortSettings>,
}

/// One end of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PortId {
    pub device: usize,
    pub port: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResolvedLink {
    pub a: PortId,
    pub b: PortId,
    pub speed: Rate,
    pub cable: Length,
    /// One-way propagation delay.
    pub propagation: Time,
}

/// The QoS a port applies: the fabric policy at the port's speed (its link's when cabled, else
/// its nominal speed) with any `qos.ports` overrides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortSettings {
    pub mtu: u32,
    pub marking: Marking,
    /// PFC headroom of each lossless priority group (none: computed from speed, cable, MTU and
    /// response time).
    pub headroom: Option<Size>,
    /// Dynamic-threshold alpha of the lossless priority groups (`qos.buffer.alpha`; default 1/8).
    pub alpha: f64,
    /// Bytes reserved to each lossless priority group (`qos.buffer.reserve`; default 0).
    pub reserve: Size,
    /// Per class of `qos.classes`, in the same order.
    pub classes: Vec<PortClass>,
    /// IEEE 802.3x link-level pause.
    pub link_pause: bool,
    /// Static XOFF threshold of the lossless priority groups (none: dynamic threshold).
    pub xoff: Option<Size>,
    /// Host ports: ToS byte of RoCEv2 packets.
    pub roce_tos: Option<u8>,
    /// Host ports: priority of the CNPs the adapter sends (none: no CNP class).
    pub cnp_priority: Option<u8>,
    /// Host ports: DCQCN notification point.
    pub dcqcn_np: bool,
    /// Host ports: DCQCN reaction point.
    pub dcqcn_rp: bool,
    /// DCBX willing, where set on the port (else `qos.dcbx` by role).
    pub dcbx_willing: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortClass {
    pub pfc: bool,
    pub ets: Option<u8>,
    /// ECN thresholds of the class on this port: its speed's when the class gives them per speed.
    pub ecn: Option<Ecn>,
    /// 802.1p priority of the class on this port.
    pub priority: u8,
    /// DSCP values this port maps to the class.
    pub dscp: Vec<u8>,
    /// Switch traffic class (egress queue) of the class on this port.
    pub queue: u8,
}

impl PortSettings {
    /// The policy at no particular speed: settings given per speed are left out (no ECN, the
    /// default alpha, computed headroom, no reserve). Ports use [`PortSettings::for_speed`],
    /// which [`ResolvedFabric::port_settings`] applies.
    pub fn from_policy(q: &Qos) -> PortSettings {
        Self::at(q, None)
    }

    /// The policy on a port running at `speed`: each by-speed setting takes that speed's value,
    /// or none (default alpha, computed headroom, no reserve, no ECN) if the map lacks it.
    pub fn for_speed(q: &Qos, speed: Rate) -> PortSettings {
        Self::at(q, Some(speed))
    }

    fn at(q: &Qos, speed: Option<Rate>) -> PortSettings {
        fn pick<T: Clone>(v: Option<&crate::speed::BySpeed<T>>, speed: Option<Rate>) -> Option<T> {
            let v = v?;
            match speed {
                Some(s) => v.at(s).cloned(),
                None => v.single().cloned(),
            }
        }
        let b = &q.buffer;
        PortSettings {
            mtu: q.mtu,
            marking: q.marking,
            headroom: pick(b.headroom.as_ref(), speed),
            alpha: pick(b.alpha.as_ref(), speed).unwrap_or(DEFAULT_ALPHA),
            reserve: pick(b.reserve.as_ref(), speed).unwrap_or_default(),
            classes: q
                .classes
                .iter()
                .map(|c| PortClass {
                    pfc: q.pfc.enabled && c.pfc_enabled(),
                    ets: c.ets,
                    ecn: pick(c.ecn.as_ref(), speed),
                    priority: c.priority,
                    dscp: c.dscp.clone(),
                    queue: c.queue.unwrap_or(c.priority),
                })
                .collect(),
            link_pause: q.pfc.link_pause,
            xoff: None,
            roce_tos: q.effective_roce_tos(),
            cnp_priority: q.cnp_class().map(|c| c.priority),
            dcqcn_np: q.dcqcn.notification_point.unwrap_or(q.dcqcn.enabled),
            dcqcn_rp: q.dcqcn.reaction_point.unwrap_or(q.dcqcn.enabled),
            dcbx_willing: None,
        }
    }
}

impl ResolvedDevice {
    /// Whether the device's bond runs LACP towards its switches (`lacp` or `mlag`): not on a
    /// Windows host, whose team `rocelab config` renders as a switch-independent SET switch.
    pub fn runs_lacp(&self) -> bool {
        matches!(self.bonding, Some(Bonding::Lacp | Bonding::Mlag)) && self.os != Some(Os::Windows)
    }

    /// Whether the device is bonded over exactly the two ports of one NVIDIA ConnectX with RDMA
    /// on, and cabled on those two alone: the case in which the mlx5 driver's RoCE LAG makes
    /// one RDMA device of the bond (`mlx5_bond_0`) and moves queue pairs to the other port when
    /// a link fails (Linux commit "net/mlx5: Implement RoCE LAG feature": both PF netdevs of a
    /// dual-port card, and only them, enslaved to one bond). A feature of the Linux driver: a
    /// Windows host's team is a SET switch, whose vNICs map to the adapters one by one.
    pub fn is_roce_lag(&self) -> bool {
        if self.bonding.is_none() || matches!(self.os, Some(Os::Windows | Os::Esxi)) {
            return false;
        }
        let cabled: Vec<Option<usize>> = self.ports.iter().filter(|p| p.link.is_some()).map(|p| p.nic).collect();
        let [Some(a), Some(b)] = cabled[..] else { return false };
        let Some(nic) = self.nics.get(a) else { return false };
        a == b
            && nic.vendor == crate::fabric::NicVendor::Nvidia
            && nic.ports == 2
            && nic.rdma_kind() != crate::fabric::RdmaKind::None
    }
}

impl ResolvedFabric {
    pub fn device(&self, name: &str) -> Option<&ResolvedDevice> {
        self.devices.iter().find(|d| d.name == name)
    }
    pub fn port(&self, id: PortId) -> &ResolvedPort {
        &self.devices[id.device].ports[id.port]
    }
    /// `device:port`.
    pub fn port_label(&self, id: PortId) -> String {
        format!("{}:{}", self.devices[id.device].name, self.devices[id.device].ports[id.port].name)
    }
    /// The port at the other end of the cable plugged into `id`, if one is.
    pub fn peer(&self, id: PortId) -> Option<PortId> {
        let l = &self.links[self.port(id).link?];
        Some(if l.a == id { l.b } else { l.a })
    }
    /// The speed a port runs at: its link's when cabled, else its nominal speed.
    pub fn port_speed(&self, id: PortId) -> Rate {
        match self.port(id).link {
            Some(l) => self.links[l].speed,
            None => self.port(id).speed,
        }
    }
    /// The QoS in force on a port: the policy at the port's speed with its overrides.
    pub fn port_settings(&self, id: PortId) -> PortSettings {
        match &self.port(id).settings {
            Some(s) => s.clone(),
            None if self.qos.has_speed_maps() => PortSettings::for_speed(&self.qos, self.port_speed(id)),
            None => PortSettings::from_policy(&self.qos),
        }
    }
    /// The RDMA transport of a host's queue pairs: its RDMA adapter's `transport` (the first
    /// adapter that runs RDMA, else its first adapter) over `fabric.rdma` over the defaults of
    /// the simulation model's profile, each value with its source. A workload's `window`, where
    /// given, replaces `window` for its flows. For a host with adapters set differently, see
    /// [`ResolvedFabric::port_rdma_transport`].
    pub fn rdma_transport(&self, device: usize) -> ResolvedTransport {
        let nics = self.devices.get(device).map(|d| d.nics.as_slice()).unwrap_or_default();
        let nic = nics.iter().find(|n| n.rdma_kind() != crate::fabric::RdmaKind::None).or(nics.first());
        crate::transport::resolve(nic.and_then(|n| n.transport.as_ref()), self.rdma.as_ref(), self.sim_model.profile)
    }
    /// The RDMA transport of the queue pairs sent from port `id`: its adapter's settings over
    /// `fabric.rdma` over the profile's defaults.
    pub fn port_rdma_transport(&self, id: PortId) -> ResolvedTransport {
        let d = &self.devices[id.device];
        match d.ports.get(id.port).and_then(|p| p.nic).and_then(|n| d.nics.get(n)) {
            Some(nic) => crate::transport::resolve(nic.transport.as_ref(), self.rdma.as_ref(), self.sim_model.profile),
            None => self.rdma_transport(id.device),
        }
    }
    /// The hosts that run RDMA, grouped by equal transport settings (values and sources), in
    /// device order: one group when every host runs the same.
    pub fn rdma_transport_groups(&self) -> Vec<(Vec<usize>, ResolvedTransport)> {
        let mut groups: Vec<(Vec<usize>, ResolvedTransport)> = Vec::new();
        for (i, d) in self.devices.iter().enumerate() {
            if d.role == Role::Switch || d.nics.iter().all(|n| n.rdma_kind() == crate::fabric::RdmaKind::None) {
                continue;
            }
            let t = self.rdma_transport(i);
            match groups.iter_mut().find(|(_, g)| *g == t) {
                Some((hosts, _)) => hosts.push(i),
                None => groups.push((vec![i], t)),
            }
        }
        groups
    }
    /// The address (`10.0.2.31/24`, `fd00::1/64`: checked at load) the fabric gives a host's
    /// port: its adapter's `addresses`, in the adapter's port order.
    pub fn port_address(&self, id: PortId) -> Option<&str> {
        let d = &self.devices[id.device];
        let ni = d.ports.get(id.port)?.nic?;
        let on_nic = d.ports[..id.port].iter().filter(|p| p.nic == Some(ni)).count();
        d.nics.get(ni)?.addresses.get(on_nic).map(String::as_str)
    }
    pub fn hosts(&self) -> impl Iterator<Item = &ResolvedDevice> {
        self.devices.iter().filter(|d| d.role != Role::Switch)
    }
    pub fn switches(&self) -> impl Iterator<Item = &ResolvedDevice> {
        self.devices.iter().filter(|d| d.role == Role::Switch)
    }
}

/// Where a device or link came from, to locate errors about it.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    Listed(usize),
    Generated,
    Imported,
}

impl Origin {
    pub(crate) fn path(&self, list: &str, field: &str) -> String {
        match self {
            Origin::Listed(i) if field.is_empty() => format!("fabric.topology.{list}[{i}]"),
            Origin::Listed(i) => format!("fabric.topology.{list}[{i}].{field}"),
            Origin::Generated => "fabric.topology.generator".into(),
            Origin::Imported => "fabric.topology.import.hpcc".into(),
        }
    }
}

/// Resolves devices and links (already generated/imported and tagged with their origin). The
/// flag says that a switch's port list was cut short by an error, so that links were left out
/// and what follows from them (hosts without a cable) is not reported again.
pub(crate) fn resolve(
    fabric: &Fabric,
    devices: Vec<(Device, Origin)>,
    links: Vec<(Link, Origin)>,
    problems: &mut Vec<Problem>,
) -> (ResolvedFabric, bool) {
    let mut by_name: HashMap<String, usize> = HashMap::with_capacity_and_hasher(devices.len(), Default::default());
    let mut out_devices: Vec<ResolvedDevice> = Vec::with_capacity(devices.len());
    let mut port_index: Vec<HashMap<String, usize>> = Vec::with_capacity(devices.len());
    // Per device: its port list is cut short by an error already reported (a range over the
    // limit), so a link to a port it lacks is a consequence of that error, not one of its own.
    let mut ports_cut: Vec<bool> = Vec::with_capacity(devices.len());
    let mut addresses: HashMap<std::net::IpAddr, String> = HashMap::default();
    for (d, origin) in &devices {
        if let Err(e) = crate::names::device(&d.name) {
            problems.push(crate::names::located(origin.path("devices", "name"), e));
        }
        if by_name.contains_key(&d.name) {
            problems.push(problem(origin.path("devices", "name"), format!("duplicate device name `{}`", d.name)));
            continue;
        }
        let (rd, ports, cut) = resolve_device(fabric, d, origin, problems);
        check_unique_addresses(&rd, origin, &mut addresses, problems);
        by_name.insert(d.name.clone(), out_devices.len());
        out_devices.push(rd);
        port_index.push(ports);
        ports_cut.push(cut);
    }

    let mut out_links: Vec<ResolvedLink> = Vec::with_capacity(links.len());
    let any_cut = ports_cut.iter().any(|c| *c);
    for (l, origin) in &links {
        let on_cut = |text: &str| {
            any_cut
                && text.split_once(':').is_some_and(|(d, p)| {
                    by_name.get(d).is_some_and(|&di| ports_cut[di] && !port_index[di].contains_key(p))
                })
        };
        if on_cut(&l.a) || on_cut(&l.b) {
            continue;
        }
        let ends = [("a", &l.a), ("b", &l.b)].map(|(field, text)| {
            resolve_port_ref(text, &by_name, &out_devices, &port_index).map_err(|(msg, hint)| {
                let mut p = problem(origin.path("links", field), msg);
                p.diag.suggestion = hint;
                p
            })
        });
        let [a, b] = ends;
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                problems.extend(a.err());
                problems.extend(b.err());
                continue;
            }
        };
        if a.device == b.device {
            problems.push(problem(origin.path("links", "b"), format!("link from `{}` to its own device", l.a)));
            continue;
        }
        if let Some(Err(e)) = l.delay.map(crate::units::check_delay) {
            problems.push(problem(origin.path("links", "delay"), e.message));
            continue;
        }
        if l.speed.is_some_and(|s| s.0 == 0) && matches!(origin, Origin::Listed(_)) {
            problems.push(problem(origin.path("links", "speed"), "the speed must be above 0 (e.g. `100G`)".into()));
            continue;
        }
        let mut used = false;
        for (id, field) in [(a, "a"), (b, "b")] {
            if let Some(prev) = out_devices[id.device].ports[id.port].link {
                let other = &out_links[prev];
                let label =
                    |p: PortId| format!("{}:{}", out_devices[p.device].name, out_devices[p.device].ports[p.port].name);
                problems.push(problem(
                    origin.path("links", field),
                    format!(
                        "port `{}` is used twice: it is already cabled to `{}`",
                        label(id),
                        label(if other.a == id { other.b } else { other.a })
                    ),
                ));
                used = true;
            }
        }
        if used {
            continue;
        }
        let pa = &out_devices[a.device].ports[a.port];
        let pb = &out_devices[b.device].ports[b.port];
        // A port of speed 0 is already an error where its speed is written.
        if pa.speed.0 == 0 || pb.speed.0 == 0 {
            continue;
        }
        let speed = match l.speed {
            Some(s) => {
                let mut ok = true;
                for (p, text) in [(pa, &l.a), (pb, &l.b)] {
                    if p.speed != s && !p.speeds.contains(&s) {
                        problems.push(problem(
                            origin.path("links", "speed"),
                            format!("link speed {s} but port `{text}` runs at {}{}", p.speed, other_speeds(p)),
                        ));
                        ok = false;
                    }
                }
                if !ok {
                    continue;
                }
                s
            }
            None if pa.speed == pb.speed => pa.speed,
            None => {
                let common = [pa.speed, pb.speed]
                    .into_iter()
                    .chain(pa.speeds.iter().copied())
                    .filter(|s| (pa.speed == *s || pa.speeds.contains(s)) && (pb.speed == *s || pb.speeds.contains(s)))
                    .max();
                let mut p = problem(
                    origin.path("links", ""),
                    format!(
                        "different speeds at the two ends of a link: `{}` runs at {}, `{}` at {}",
                        l.a, pa.speed, l.b, pb.speed
                    ),
                );
                p.diag.suggestion = Some(match common {
                    Some(c) => format!("set `speed: {c}` on the link, a speed both ports support"),
                    None => "the two ports share no speed; cable different ports".into(),
                });
                problems.push(p);
                continue;
            }
        };
        let cable = l.cable.unwrap_or(Length::metres(3));
        let propagation = l.delay.unwrap_or_else(|| cable.propagation());
        let idx = out_links.len();
        out_devices[a.device].ports[a.port].link = Some(idx);
        out_devices[b.device].ports[b.port].link = Some(idx);
        out_links.push(ResolvedLink { a, b, speed, cable, propagation });
    }

    let resolved = ResolvedFabric {
        name: fabric.name.clone(),
        description: fabric.description.clone(),
        devices: out_devices,
        links: out_links,
        qos: fabric.qos.clone(),
        dcqcn: fabric.qos.dcqcn.resolve(),
        roce_mtu: fabric.qos.effective_roce_mtu(),
        rdma: fabric.rdma.clone(),
        sim_model: ResolvedSimModel::default(),
    };
    (resolved, any_cut)
}

/// An address given to two ports (`nics[].addresses`, the prefix length aside) is an error: ARP,
/// RDMA-CM and the storage protocols' portals each find one port by it. `seen` holds the
/// addresses of the devices before `d`, with the port that has each; on a bonded device, the
/// address goes on the bond, so it is given once, to one member (malformed addresses were
/// reported by `resolve_device` and are skipped).
fn check_unique_addresses(
    d: &ResolvedDevice,
    origin: &Origin,
    seen: &mut HashMap<std::net::IpAddr, String>,
    problems: &mut Vec<Problem>,
) {
    // This device's own addresses so far: on a bonded device one of them given again is the
    // bond's address written on a second member.
    let mut own: Vec<std::net::IpAddr> = Vec::new();
    for (ni, nic) in d.nics.iter().enumerate() {
        let mut ports = d.ports.iter().filter(|p| p.nic == Some(ni));
        for (ai, text) in nic.addresses.iter().enumerate() {
            let port = ports.next().map_or_else(|| format!("{}:?", d.name), |p| format!("{}:{}", d.name, p.name));
            let Ok((ip, _)) = crate::fabric::parse_cidr(text) else { continue };
            match seen.get(&ip) {
                Some(other) => {
                    // The ports of a bond share its one address, which the fabric gives once.
                    let fix = if d.bonding.is_some() && own.contains(&ip) {
                        "the bond holds one address: give it to the first member only"
                    } else {
                        "give each port its own"
                    };
                    problems.push(problem(
                        origin.path("devices", &format!("nics[{ni}].addresses[{ai}]")),
                        format!("address `{ip}` of `{port}` is also `{other}`'s; {fix}"),
                    ))
                }
                None => {
                    seen.insert(ip, port);
                    own.push(ip);
                }
            }
        }
    }
}

fn other_speeds(p: &ResolvedPort) -> String {
    if p.speeds.is_empty() {
        String::new()
    } else {
        format!(" (also {})", p.speeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "))
    }
}

/// Most ports of one adapter. Real RDMA adapters have one to four (ConnectX dual-port, Broadcom
/// and Marvell quad-port); 16 leaves room for breakout and multi-host adapters while a typo
/// (`ports: 2147483647`) is an error before anything is built.
pub const MAX_NIC_PORTS: u32 = 16;

/// Most ports of one switch, after its port ranges are expanded: 4096, above the largest modular
/// chassis (576 400G ports on an Arista 7800R3, each broken out to four).
pub const MAX_SWITCH_PORTS: usize = 4096;

type RefError = (String, Option<String>);

fn resolve_port_ref(
    text: &str,
    by_name: &HashMap<String, usize>,
    devices: &[ResolvedDevice],
    ports: &[HashMap<String, usize>],
) -> Result<PortId, RefError> {
    let Some((dev, port)) = text.split_once(':') else {
        return Err((
            format!("`{text}` is not a port reference"),
            Some("write `device:port`, e.g. `sw1:eth1/1`".into()),
        ));
    };
    let Some(&di) = by_name.get(dev) else {
        return Err((format!("no device `{dev}`"), did_you_mean(dev, devices.iter().map(|d| d.name.as_str()))));
    };
    match ports[di].get(port) {
        Some(&pi) => Ok(PortId { device: di, port: pi }),
        None => Err((
            format!("device `{dev}` has no port `{port}`"),
            did_you_mean(port, devices[di].ports.iter().map(|p| p.name.as_str())).or_else(|| {
                let names = &devices[di].ports;
                (!names.is_empty())
                    .then(|| format!("its ports are {} … {}", names[0].name, names[names.len() - 1].name))
            }),
        )),
    }
}
