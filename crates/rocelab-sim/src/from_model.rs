//! From a loaded rocelab scenario (the YAML fabric and its workloads) to the simulator's input:
//! a [`NetworkSpec`], a [`Traffic`] and a [`SimConfig`], with warnings as findings ([`BuildFinding`]).
//!
//! Device `i` of the resolved fabric is node `i`; only cabled ports become simulator ports (a
//! switch model's unused front-panel ports carry nothing). Buffer size, alpha, per-port PFC,
//! ETS, ECN and per-PG headroom come from the model; a lossless PG's headroom defaults to
//! [`rocelab_model::headroom::port_headroom`] for its link — the function `rocelab check` and the
//! vendor configurations use.
//!
//! Every mapping from the model to the simulator's own types lives here, so that the mechanism
//! modules (congestion control, storage, traffic, the engine) take plain simulator parameters
//! and never name the model crate: DCQCN's parameters and profiles (`dcqcn`), storage jobs,
//! targets and protocols (`storage`), flow-size CDFs as a [`SizeDistribution`], and whole
//! scenario files for callers that start from a path ([`build_points`]).

mod dcqcn;
mod findings;
mod points;
mod storage;

pub use findings::BuildFinding;
pub use points::build_points;

use crate::cc::{CcAlgorithm, DcqcnParams};
use crate::nic::NicProfile;
use crate::packet::wire;
use crate::perftest::{PerftestKind, PerftestLength, PerftestSpec};
use crate::rdma::{RcConfig, RdmaOp};
use crate::routing::Ecmp;
use crate::spec::{
    BondMode, BufferSpec, CnpMode, DscpMap, EcnMarking, EgressLossySpec, HostPortSpec, HostSpec, LinkSpec, NetworkSpec,
    NodeKind, NodeSpec, PfcPortSpec, PortRef, PriorityGroupSpec, PriorityMask, QosSpec, SwitchPortSpec, SwitchSpec,
    TrafficClassSpec, Trust, WireSpec, MAX_FRAME_BYTES,
};
use crate::tcp::{CcKind, TcpStackSpec};
use crate::time::Serialization;
use crate::traffic::{
    FlowClass, FlowSpec, OnOff, PoissonArrivals, SizeDistribution, TcpFlow, Traffic, Transport, IPERF_PORT,
};
use crate::{EcnSpec, Sampling, SimConfig, Tsa, XoffThreshold};
use rocelab_model::fabric::{Bonding, NicVendor};
use rocelab_model::headroom;
use rocelab_model::perftest::{Perftest, PerftestTest};
use rocelab_model::qos::{Marking, LOSSY_ALPHA, LOSSY_QUEUE_RESERVE};
use rocelab_model::select::{flow_transport, host_rate_bps as line_rate, resolve_hosts};
use rocelab_model::simmodel::{self, ResolvedSimModel};
use rocelab_model::storage::{CongestionControl, Iperf, TcpSettings};
use rocelab_model::transport::{self, Window};
use rocelab_model::units::Size;
use rocelab_model::workload::{FlowOp, FlowTransport, NicProfileName, RateSpec};
use rocelab_model::{PortId, ResolvedFabric, Role, Scenario};
use serde::Serialize;

/// The simulator's input built from a scenario, and the names to report results with.
#[derive(Debug, Clone)]
pub struct Built {
    pub spec: NetworkSpec,
    pub traffic: Traffic,
    pub config: SimConfig,
    pub names: Names,
    /// Things the run will do that the user may not expect (e.g. a lossless class crossing a
    /// hop with PFC off), as findings with `rocelab check`'s rule IDs.
    pub warnings: Vec<BuildFinding>,
}

/// Node and port names, indexed like the simulator's nodes and ports.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Names {
    pub nodes: Vec<String>,
    /// `ports[node][port]` is the model's port name.
    pub ports: Vec<Vec<String>>,
    /// Workload name of each flow, in `Traffic` order (perftest tests' flows last).
    pub flows: Vec<String>,
    /// Name of each perftest test.
    pub perftest: Vec<String>,
    /// Name of each iperf test.
    pub iperf: Vec<String>,
    /// Name of each storage job (`name@host` when a job runs on several initiators), in
    /// `Results::jobs` order.
    #[serde(default)]
    pub jobs: Vec<String>,
    /// The destination-port column of each flow in `fct.txt`, in `Traffic` order: HPCC's
    /// conventions — 100 for Poisson (background) flows as its traffic generator writes, 200
    /// for incast flows as its analysis scripts expect, the file's value for imported flows —
    /// and 4791 (RoCEv2) for the other workloads.
    pub dports: Vec<u16>,
}

/// `fct.txt` destination port of Poisson (background) flows, as HPCC's traffic generator writes.
pub const DPORT_BACKGROUND: u16 = 100;
/// `fct.txt` destination port of incast flows, as HPCC's `fct_analysis.py` selects them.
pub const DPORT_INCAST: u16 = 200;

/// The first source port of the flows between a pair of hosts in the HPCC simulator
/// (`portNumder[i][j] = 10000` in its `scratch/third.cc`).
pub const HPCC_FIRST_PORT: u16 = 10000;

impl Names {
    /// Name of flow `i`.
    pub fn flow(&self, i: usize) -> String {
        self.flows.get(i).cloned().unwrap_or_else(|| format!("#{i}"))
    }

    /// `fct.txt` destination port of flow `i`.
    pub fn dport(&self, i: usize) -> u16 {
        self.dports.get(i).copied().unwrap_or(crate::packet::wire::ROCEV2_UDP_PORT)
    }
}

/// Refuses a fabric whose nodes and ports alone would pass the memory limit of a run
/// ([`crate::sim::MAX_RUN_BYTES`]), from its device counts, before its simulation spec is
/// built; the engine estimates the whole run (routes, flows, packets, samples) when it builds.
pub fn check_size(f: &ResolvedFabric) -> Result<(), crate::SimError> {
    let ports = f.devices.iter().map(|d| d.ports.iter().filter(|p| p.link.is_some()).count()).sum();
    crate::sim::check_least(f.devices.len(), ports)
}

/// Builds the simulator's input. `seed` overrides `simulation.seed`.
pub fn build(scenario: &Scenario, f: &ResolvedFabric, seed: Option<u64>) -> Built {
    // Simulator port index of each cabled model port.
    let mut sim_port: Vec<Vec<Option<usize>>> = f.devices.iter().map(|d| vec![None; d.ports.len()]).collect();
    let mut names = Names::default();
    for (di, d) in f.devices.iter().enumerate() {
        let mut ports = Vec::new();
        for (pi, p) in d.ports.iter().enumerate() {
            if p.link.is_some() {
                sim_port[di][pi] = Some(ports.len());
                ports.push(p.name.clone());
            }
        }
        names.nodes.push(d.name.clone());
        names.ports.push(ports);
    }
    let links: Vec<LinkSpec> = f
        .links
        .iter()
        .map(|l| LinkSpec {
            a: port_ref(&sim_port, l.a),
            b: port_ref(&sim_port, l.b),
            rate_bps: l.speed.bits_per_second(),
            delay_ps: l.propagation.as_ps(),
        })
        .collect();
    let mut nodes = Vec::with_capacity(f.devices.len());
    for (di, d) in f.devices.iter().enumerate() {
        let cabled: Vec<usize> = (0..d.ports.len()).filter(|pi| sim_port[di][*pi].is_some()).collect();
        let kind = if d.role == Role::Switch {
            NodeKind::Switch(switch(f, di, &cabled, seed.unwrap_or(scenario.simulation.seed)))
        } else {
            NodeKind::Host(host(scenario, f, di, &cabled))
        };
        nodes.push(NodeSpec { name: d.name.clone(), kind });
    }
    let warnings = findings::lossless_hops_without_pfc(f);
    let spec = NetworkSpec { nodes, links, wire: wire_spec(&f.sim_model), ecmp: ecmp(&f.sim_model) };
    let seed = seed.unwrap_or(scenario.simulation.seed);
    let mut traffic = traffic(scenario, f, seed, &mut names);
    names.dports.resize(names.flows.len(), crate::packet::wire::ROCEV2_UDP_PORT);
    // Each flow's destination port in the HPCC simulator's terms (`fct.txt`, and that
    // simulator's ECMP key under `ecmp: hpcc`).
    for (flow, &dport) in traffic.flows.iter_mut().zip(&names.dports) {
        flow.hpcc_dport = Some(dport);
    }
    let config = SimConfig {
        seed,
        end_time_ps: scenario.simulation.duration.as_ps(),
        sampling: Sampling {
            queue_interval_ps: Some(scenario.simulation.sample_interval.as_ps()),
            ..Default::default()
        },
        stop_when_done: f.sim_model.stop_when_done,
        ecn_draws: match f.sim_model.ecn_random {
            simmodel::EcnRandom::Rocelab => crate::EcnDraws::Rocelab,
            // That simulator's set-up takes six streams per node and two more before its first
            // draw (measured: the first ECN draw of each run in ../shared/data/hpcc-reference,
            // 18 nodes -> stream 110, 376 nodes -> 2258; see `rng::ns3`). Its nodes are the
            // topology file's, which an imported fabric keeps as its devices, in order.
            simmodel::EcnRandom::Hpcc => {
                crate::EcnDraws::Ns3 { first_stream: 6 * f.devices.len() as u64 + 2, run: seed }
            }
        },
        // Replaying that simulator's draws takes its order of simultaneous events too.
        event_order: match f.sim_model.ecn_random {
            simmodel::EcnRandom::Rocelab => crate::EventOrder::Canonical,
            simmodel::EcnRandom::Hpcc => crate::EventOrder::PushOrder,
        },
    };
    Built { spec, traffic, config, names, warnings }
}

/// The frames on the wire as the simulator model says ([`WireSpec`]).
fn wire_spec(m: &ResolvedSimModel) -> WireSpec {
    let bytes = |s: Size| s.as_bytes().min(u32::MAX as u64) as u32;
    WireSpec {
        overhead_bytes: if m.preamble_and_gap { wire::WIRE_OVERHEAD as u16 } else { 0 },
        serialization: match m.serialization {
            simmodel::Serialization::Exact => Serialization::Exact,
            simmodel::Serialization::TruncateNs => Serialization::TruncateNs,
        },
        pfc_frame_bytes: bytes(m.pfc_frame),
        header_bytes: m.header.map(bytes),
        ack_frame_bytes: m.ack_frame.map(bytes),
        ib_path_mtu: m.payload.is_none() && m.header.is_none(),
    }
}

fn ecmp(m: &ResolvedSimModel) -> Ecmp {
    match m.ecmp {
        simmodel::EcmpHash::Rocelab => Ecmp::Rocelab,
        simmodel::EcmpHash::Hpcc => Ecmp::Hpcc,
    }
}

/// Payload bytes per RDMA (and open-loop) packet: the simulator model's, else the RoCE path MTU.
fn payload(f: &ResolvedFabric) -> u32 {
    f.sim_model.payload.map_or(f.roce_mtu, |p| p.as_bytes().min(u32::MAX as u64) as u32)
}

/// A window in packets of `payload` bytes.
fn window_packets(w: Window, payload: u32) -> u32 {
    match w {
        Window::None => RcConfig::NO_WINDOW,
        Window::Packets(n) => n.clamp(1, RcConfig::NO_WINDOW),
        Window::Bytes(b) => b.as_bytes().div_ceil(payload.max(1) as u64).clamp(1, RcConfig::NO_WINDOW as u64) as u32,
    }
}

fn port_ref(sim_port: &[Vec<Option<usize>>], id: PortId) -> PortRef {
    PortRef { node: id.device, port: sim_port[id.device][id.port].expect("links join cabled ports") }
}

/// The NIC profile of device `di`: the scenario's `simulation.nic_profile`, else `connectx-4`
/// for an NVIDIA (Mellanox) ConnectX adapter — the one calibrated profile, used for every
/// ConnectX generation — and `ideal` for the others.
pub fn nic_profile(scenario: &Scenario, f: &ResolvedFabric, di: usize) -> NicProfile {
    match scenario.simulation.nic_profile {
        Some(NicProfileName::Ideal) => NicProfile::ideal(),
        Some(NicProfileName::Connectx4) => NicProfile::connectx4(),
        None => {
            let connectx = f.devices[di]
                .nics
                .iter()
                .any(|n| n.vendor == NicVendor::Nvidia && n.model.to_ascii_lowercase().contains("connectx"));
            if connectx {
                NicProfile::connectx4()
            } else {
                NicProfile::ideal()
            }
        }
    }
}

/// Per cabled port of LACP-bonded host `di`: whether it stands by because its switch is not
/// the first member's. LACP aggregates the links between one pair of systems (IEEE 802.1AX),
/// so towards switches that are not an MLAG pair the bond forms one aggregator per switch, and
/// the Linux bonding driver carries traffic on one: taken here as the first member's, the
/// aggregator it makes first (the model does not know which one `ad_select` would prefer among
/// equals). `rocelab check` reports such cabling (`BOND-LACP-SPLIT`).
fn split_lacp_standby(f: &ResolvedFabric, di: usize, cabled: &[usize]) -> Vec<bool> {
    let peer_device = |pi: usize| f.peer(PortId { device: di, port: pi }).map(|p| p.device);
    let first = cabled.first().and_then(|&pi| peer_device(pi));
    cabled.iter().map(|&pi| peer_device(pi) != first).collect()
}

/// The IPv4 address the fabric gives port `id` of a host (its adapter's `addresses`, in port
/// order; the prefix length dropped), if any; an IPv6 address gives none, as the simulator's
/// frames are IPv4.
fn port_ipv4(f: &ResolvedFabric, id: PortId) -> Option<std::net::Ipv4Addr> {
    match rocelab_model::fabric::parse_cidr(f.port_address(id)?) {
        Ok((std::net::IpAddr::V4(ip), _)) => Some(ip),
        _ => None,
    }
}

/// The host at device `di` with its cabled ports: PFC per port, the NIC profile, DCQCN (the
/// fabric's parameters; notification and reaction point per the host's first port's settings)
/// and the CNP marking of the fabric's CNP class (NVIDIA's defaults, priority 6 / DSCP 48,
/// without one).
fn host(scenario: &Scenario, f: &ResolvedFabric, di: usize, cabled: &[usize]) -> HostSpec {
    let ports = cabled
        .iter()
        .map(|pi| {
            let id = PortId { device: di, port: *pi };
            let s = f.port_settings(id);
            HostPortSpec {
                pfc: pfc_port(f, id),
                mtu: s.mtu.clamp(*crate::tcp::stack::MTU_RANGE.start(), *crate::tcp::stack::MTU_RANGE.end()),
                link_pause: s.link_pause,
                ipv4: port_ipv4(f, id),
                standby: false,
            }
        })
        .collect();
    let mut h = HostSpec { ports, ..Default::default() }.with_nic_profile(nic_profile(scenario, f, di));
    h.tcp = tcp_stack(f.devices[di].tcp.as_ref());
    // A bond is one address over its member links; without one, each port is addressed.
    h.bond = f.devices[di].bonding.map(|b| match b {
        Bonding::Lacp | Bonding::Mlag => BondMode::Aggregate,
        Bonding::ActiveBackup => BondMode::ActiveBackup,
    });
    // An MLAG pair is one LACP partner, and a Windows host's team runs no LACP (`runs_lacp`).
    if f.devices[di].bonding == Some(Bonding::Lacp) && f.devices[di].runs_lacp() {
        for (port, peer) in h.ports.iter_mut().zip(split_lacp_standby(f, di, cabled)) {
            port.standby = peer;
        }
    }
    let settings = cabled.first().map(|pi| f.port_settings(PortId { device: di, port: *pi }));
    let (np, rp) = settings.as_ref().map(|s| (s.dcqcn_np, s.dcqcn_rp)).unwrap_or((false, false));
    if f.qos.dcqcn.enabled || np || rp {
        h.nic.cc = CcAlgorithm::Dcqcn(DcqcnParams::from_model(&f.dcqcn));
    }
    h.nic.notification_point = np;
    h.nic.reaction_point = rp;
    // The RDMA transport: the adapter's, over the fabric's, over the simulator model's defaults.
    let t = f.rdma_transport(di);
    h.nic.rc.window_packets = window_packets(t.window, payload(f));
    h.nic.rc.ack_every_packets = t.ack_every.max(1);
    h.nic.rc.timeout_ps = t.timeout.duration().map_or(NO_TIMEOUT, |d| d.as_ps().max(1));
    h.nic.rc.retry_count = t.retry_count.min(7) as u32;
    h.nic.arbiter = match f.sim_model.nic_arbiter {
        simmodel::NicArbiter::RoundRobin => crate::spec::NicArbiter::RoundRobin,
        simmodel::NicArbiter::Hpcc => crate::spec::NicArbiter::Ns3,
    };
    h.nic.cnp = match t.cnp {
        transport::CnpMode::Packet => CnpMode::Packet,
        transport::CnpMode::AckFlag => CnpMode::AckFlag,
    };
    h.nic.ack_class =
        t.ack_class.as_deref().and_then(|name| f.qos.class(name)).map(|c| marking(f, c, c.priority, false));
    if let Some(c) = f.qos.cnp_class() {
        let priority = settings.as_ref().and_then(|s| s.cnp_priority).unwrap_or(c.priority);
        h.nic.cnp_class = marking(f, c, priority, false);
    } else {
        h.nic.cnp_class.tagged = f.qos.marking == Marking::Pcp;
    }
    h
}

/// A local ACK timeout of exponent 0 disables the timer (IBA §9.7.6.1.3): a timeout no run
/// reaches.
const NO_TIMEOUT: crate::Time = crate::MAX_END_TIME + 1;

/// PFC at a port: its priorities, and pauses as the simulator model has them.
fn pfc_port(f: &ResolvedFabric, id: PortId) -> PfcPortSpec {
    PfcPortSpec {
        enabled: pfc_mask(f, id),
        until_resume: f.sim_model.pause == simmodel::PauseModel::UntilResume,
        ..Default::default()
    }
}

/// Priorities with PFC on at a port.
fn pfc_mask(f: &ResolvedFabric, id: PortId) -> PriorityMask {
    let s = f.port_settings(id);
    let prios: Vec<u8> = s.classes.iter().filter(|c| c.pfc).map(|c| c.priority).collect();
    PriorityMask::of(&prios)
}

/// The switch at device `di` with its cabled ports `cabled` (model port indices).
///
/// Lossy priority groups are limited as the platforms limit them (see [`crate::mmu`]): at
/// ingress with alpha [`LOSSY_ALPHA`] rather than the lossless one, and at their egress queue in
/// the egress lossy pool (`qos.buffer.pools.egress_lossy`, else a third of the buffer, as
/// `rocelab config` renders SONiC's). Under the ns-3 HPCC simulator's admission
/// (`simulation.model.mmu_admission: hpcc`) every priority group is admitted alike, with the
/// switch's alpha and no egress limit, as its `SwitchMmu` does.
fn switch(f: &ResolvedFabric, di: usize, cabled: &[usize], seed: u64) -> SwitchSpec {
    let d = &f.devices[di];
    let platform_lossy = f.sim_model.mmu_admission == simmodel::MmuAdmission::Rocelab;
    let size_bytes = d.buffer.map(|b| b.as_bytes()).unwrap_or(BufferSpec::default().size_bytes);
    let buffer = BufferSpec {
        size_bytes,
        alpha: f.qos.buffer.alpha(),
        egress_lossy: platform_lossy.then(|| EgressLossySpec {
            pool_bytes: f.qos.buffer.egress_lossy_pool(size_bytes).clamp(1, size_bytes),
            alpha: LOSSY_ALPHA,
            reserved_bytes: LOSSY_QUEUE_RESERVE,
        }),
        ..Default::default()
    };
    let lossy_pg = PriorityGroupSpec {
        threshold: if platform_lossy { XoffThreshold::DynamicAlpha(LOSSY_ALPHA) } else { XoffThreshold::Dynamic },
        ..PriorityGroupSpec::lossy()
    };
    let mut dscp = DscpMap::default();
    let mut priority_to_tc = [0, 1, 2, 3, 4, 5, 6, 7];
    for c in &f.qos.classes {
        for v in &c.dscp {
            dscp.0[*v as usize] = c.priority;
        }
        priority_to_tc[c.priority as usize & 7] = queue_of(c);
    }
    let qos = QosSpec {
        trust: match f.qos.marking {
            Marking::Pcp => Trust::Pcp,
            Marking::Dscp => Trust::Dscp,
        },
        default_priority: 0,
        dscp_to_priority: dscp,
        priority_to_tc,
        priority_to_pg: [0, 1, 2, 3, 4, 5, 6, 7],
    };
    let xon_offset = f.qos.buffer.xon_offset.map(|s| s.as_bytes()).unwrap_or(2 * MAX_FRAME_BYTES as u64);
    let ports = cabled
        .iter()
        .map(|pi| {
            let id = PortId { device: di, port: *pi };
            let s = f.port_settings(id);
            let mut port = SwitchPortSpec { link_pause: s.link_pause, pgs: [lossy_pg; 8], ..Default::default() };
            port.pfc = pfc_port(f, id);
            for (c, pc) in f.qos.classes.iter().zip(&s.classes) {
                let prio = pc.priority as usize & 7;
                // 802.3x protects every class of the port that PFC does not: its PG holds back
                // with headroom, and its XOFF sends PAUSE.
                if (c.lossless && pc.pfc) || (s.link_pause && !pc.pfc) {
                    let headroom = headroom::port_headroom(f, id, s.headroom);
                    port.pgs[prio] = PriorityGroupSpec {
                        threshold: s
                            .xoff
                            .map(|x| XoffThreshold::Static(x.as_bytes()))
                            .unwrap_or(XoffThreshold::DynamicAlpha(s.alpha)),
                        xon_offset_bytes: xon_offset,
                        reserved_bytes: s.reserve.as_bytes(),
                        ..PriorityGroupSpec::lossless(headroom)
                    };
                }
                let tc = queue_of(c) as usize;
                port.tcs[tc] = TrafficClassSpec {
                    tsa: if c.strict { Tsa::Strict } else { Tsa::Ets(pc.ets.unwrap_or(1).max(1)) },
                    ecn: pc.ecn.as_ref().map(|e| EcnSpec {
                        kmin_bytes: e.kmin.as_bytes(),
                        kmax_bytes: e.kmax.as_bytes(),
                        pmax: e.pmax,
                    }),
                };
            }
            port
        })
        .collect();
    SwitchSpec {
        buffer,
        qos,
        ports,
        ecmp_seed: seed ^ (di as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        ecn_marking: match f.sim_model.ecn_marking {
            simmodel::EcnMarking::Enqueue => EcnMarking::Enqueue,
            simmodel::EcnMarking::Dequeue => EcnMarking::Dequeue,
        },
        control_in_buffer: f.sim_model.control_in_buffer,
        admission: match f.sim_model.mmu_admission {
            simmodel::MmuAdmission::Rocelab => crate::Admission::Headroom,
            simmodel::MmuAdmission::Hpcc => crate::Admission::Ns3,
        },
        ..Default::default()
    }
}

fn class_of(f: &ResolvedFabric, name: &str) -> FlowClass {
    let c = f.qos.class(name).expect("workload classes are checked when the scenario loads");
    marking(f, c, c.priority, f.qos.dcqcn.enabled || c.ecn.is_some())
}

/// How frames of class `c` are marked at `priority`: its first DSCP value (else the priority's
/// class selector), tagged when the fabric marks by PCP.
fn marking(f: &ResolvedFabric, c: &rocelab_model::qos::TrafficClass, priority: u8, ecn_capable: bool) -> FlowClass {
    FlowClass {
        priority,
        dscp: c.dscp.first().copied().unwrap_or(priority << 3),
        ecn_capable,
        tagged: f.qos.marking == Marking::Pcp,
    }
}

/// The flow every workload entry starts from: greedy, at the RoCE path MTU, capped at `rate`,
/// carried as `transport` says (an RC queue pair between RoCE hosts by default).
struct Template<'a> {
    class: &'a str,
    rate: RateSpec,
    transport: Option<FlowTransport>,
    op: Option<FlowOp>,
    size: Option<u64>,
    window: Option<Window>,
}

fn template(f: &ResolvedFabric, src: usize, dst: usize, t: &Template) -> FlowSpec {
    let mut flow = FlowSpec::greedy(src, dst, class_of(f, t.class));
    flow.payload_bytes = payload(f);
    flow.size_bytes = t.size;
    if let RateSpec::Rate(r) = t.rate {
        flow.rate_bps = Some(r.bits_per_second().min(line_rate(f, src)));
    }
    let op = match t.op.unwrap_or_default() {
        FlowOp::Write => RdmaOp::Write,
        FlowOp::Read => RdmaOp::Read,
        FlowOp::Send => RdmaOp::Send,
    };
    match flow_transport(t.transport, f, src, dst) {
        FlowTransport::Rc => {
            let mut flow = flow.rc(op);
            if let (Transport::Rc(rc), Some(w)) = (&mut flow.transport, t.window) {
                rc.window_packets = Some(window_packets(w, flow.payload_bytes));
            }
            flow
        }
        FlowTransport::Iwarp => flow.iwarp(op),
        FlowTransport::Tcp => flow.tcp(TcpFlow::default()),
        FlowTransport::Raw => flow,
    }
}

fn cc_kind(c: CongestionControl) -> CcKind {
    match c {
        CongestionControl::NewReno => CcKind::NewReno,
        CongestionControl::Cubic => CcKind::Cubic,
        CongestionControl::Dctcp => CcKind::Dctcp,
    }
}

/// A host's TCP stack from its `tcp:` settings; what they leave unset keeps Linux's defaults
/// ([`TcpStackSpec::default`]).
pub fn tcp_stack(t: Option<&TcpSettings>) -> TcpStackSpec {
    let mut s = TcpStackSpec::default();
    let Some(t) = t else { return s };
    if let Some(c) = t.congestion_control {
        s.congestion_control = cc_kind(c);
    }
    s.window_scaling = t.window_scaling.unwrap_or(s.window_scaling);
    s.delayed_ack = t.delayed_ack.unwrap_or(s.delayed_ack);
    s.delayed_ack_timeout_ps = t.delayed_ack_timeout.map_or(s.delayed_ack_timeout_ps, |x| x.as_ps());
    s.nagle = t.nagle.unwrap_or(s.nagle);
    s.min_rto_ps = t.min_rto.map_or(s.min_rto_ps, |x| x.as_ps());
    s.ecn = t.ecn.unwrap_or(s.ecn);
    s.receive_buffer_bytes =
        t.receive_buffer.map_or(s.receive_buffer_bytes, |b| b.as_bytes().min(u32::MAX as u64) as u32);
    s.initial_window = t.initial_window.unwrap_or(s.initial_window);
    s.timestamps = t.timestamps.unwrap_or(s.timestamps);
    s.sack = t.sack.unwrap_or(s.sack);
    s.tail_loss_probe = t.tail_loss_probe.unwrap_or(s.tail_loss_probe);
    s.rack = t.rack.unwrap_or(s.rack);
    s.prr = t.prr.unwrap_or(s.prr);
    s.hystart = t.hystart.unwrap_or(s.hystart);
    s
}

/// Source port of the first stream of iperf test `i`: from Linux's ephemeral range (32768-60999,
/// `net.ipv4.ip_local_port_range`), 128 ports per test.
fn iperf_client_port(i: usize) -> u16 {
    32_768u16.wrapping_add((i as u16 % 220).wrapping_mul(128))
}

/// The TCP flow template of an iperf workload: the class given or the first lossy one, its
/// socket options, size, bitrate and time window.
fn iperf_template(f: &ResolvedFabric, x: &Iperf, client: usize, server: usize, index: usize) -> FlowSpec {
    let class = x
        .class
        .clone()
        .or_else(|| f.qos.classes.iter().find(|c| !c.lossless).or(f.qos.classes.first()).map(|c| c.name.clone()))
        .expect("a scenario with iperf has a traffic class (checked when it loads)");
    let mut flow = FlowSpec::greedy(client, server, class_of(f, &class)).tcp(TcpFlow {
        congestion_control: x.congestion_control.map(cc_kind),
        nodelay: x.nodelay,
        window_bytes: x.window.map(|w| w.as_bytes().min(u32::MAX as u64) as u32),
        server_port: IPERF_PORT,
    });
    flow.udp_src_port = iperf_client_port(index);
    flow.size_bytes = x.bytes.map(|b| b.as_bytes());
    flow.rate_bps = x.bitrate.map(|r| r.bits_per_second());
    flow.start_ps = x.start.as_ps();
    flow.stop_ps = x.stop.map(|s| s.as_ps());
    flow
}

/// A perftest workload as the simulator runs it; `index` spreads UDP source ports.
fn perftest(f: &ResolvedFabric, t: &Perftest, index: usize, host: &dyn Fn(&str) -> usize) -> PerftestSpec {
    let kind = match t.test {
        PerftestTest::WriteBw => PerftestKind::WriteBw,
        PerftestTest::ReadBw => PerftestKind::ReadBw,
        PerftestTest::SendBw => PerftestKind::SendBw,
        PerftestTest::WriteLat => PerftestKind::WriteLat,
        PerftestTest::ReadLat => PerftestKind::ReadLat,
        PerftestTest::SendLat => PerftestKind::SendLat,
    };
    let mut p = PerftestSpec::new(kind, host(&t.client), host(&t.server), class_of(f, &t.class));
    p.size = t.size_bytes();
    p.qps = t.qps.unwrap_or(1);
    if let Some(n) = t.iterations {
        p.length = PerftestLength::Iterations(n);
    }
    if let Some(d) = t.duration {
        p.length = PerftestLength::Duration(d.as_ps());
    }
    p.tx_depth = t.tx_depth.unwrap_or(p.tx_depth);
    p.path_mtu = t.mtu.unwrap_or(f.roce_mtu);
    p.start_ps = t.start.as_ps();
    // perftest's QPs get their own UDP source ports (ECMP entropy), apart from the flows'.
    p.udp_src_port = 50000u16.wrapping_add((index as u16).wrapping_mul(256));
    p
}

fn traffic(s: &Scenario, f: &ResolvedFabric, seed: u64, names: &mut Names) -> Traffic {
    let w = &s.workloads;
    let mut t = Traffic::new();
    let roce = crate::packet::wire::ROCEV2_UDP_PORT;
    let name_new = |t: &Traffic, names: &mut Names, label: &str, dport: u16| {
        while names.flows.len() < t.flows.len() {
            let k = names.flows.len();
            names.flows.push(format!("{label}#{k}"));
            names.dports.push(dport);
        }
    };
    let host = |n: &str| f.devices.iter().position(|d| d.name == n).expect("hosts are checked when the scenario loads");
    let tmpl =
        |class, rate, transport, op, size: Option<u64>, window| Template { class, rate, transport, op, size, window };
    for x in &w.flows {
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()), x.window);
        let mut flow = template(f, host(&x.from), host(&x.to), &tm);
        flow.start_ps = x.start.as_ps();
        flow.stop_ps = x.stop.map(|s| s.as_ps());
        if let (Some(on), Some(off)) = (x.on, x.off) {
            flow.on_off = Some(OnOff { on_ps: on.as_ps(), off_ps: off.as_ps() });
        }
        t.push(flow);
        names.flows.push(x.name.clone());
        names.dports.push(roce);
    }
    for x in &w.incast {
        let senders = resolve_hosts(&x.senders, f);
        let dst = host(&x.receiver);
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()), x.window);
        let mut flow = template(f, senders.first().copied().unwrap_or(dst), dst, &tm);
        flow.stop_ps = x.stop.map(|s| s.as_ps());
        let port = flow.udp_src_port;
        for (round, start) in x.rounds(&s.simulation).into_iter().enumerate() {
            // Each round's flows get source ports of their own (new QPs).
            flow.udp_src_port = port.wrapping_add((round * senders.len()) as u16);
            flow.start_ps = start.as_ps();
            t.incast(&senders, dst, &flow);
        }
        name_new(&t, names, &x.name, DPORT_INCAST);
    }
    for (i, x) in w.poisson.iter().enumerate() {
        let hosts = resolve_hosts(&x.hosts, f);
        let rates: Vec<u64> = hosts.iter().map(|&h| line_rate(f, h)).collect();
        let cdf = x.distribution.as_ref().expect("the distribution is read when the scenario loads");
        let flow = template(f, hosts[0], hosts[1], &tmpl(&x.class, RateSpec::Line, None, None, None, None));
        let arrivals = PoissonArrivals {
            hosts: &hosts,
            host_rate_bps: &rates,
            sizes: cdf,
            load: x.load,
            start_ps: x.start.as_ps(),
            end_ps: x.end(&s.simulation).as_ps(),
            // One stream per workload, all from the run's seed.
            seed: crate::rng::mix64(seed ^ (0x504F_4953_534F_4E00 + i as u64)),
        };
        t.poisson(&arrivals, &flow);
        name_new(&t, names, &x.name, DPORT_BACKGROUND);
    }
    for x in &w.hpcc_flows {
        // Source ports as the HPCC simulator numbers them: per (source, destination) pair from
        // 10000, in the file's order (`portNumder` in its `scratch/third.cc`).
        let mut next_port: std::collections::HashMap<(usize, usize), u16> = Default::default();
        for imp in &x.flows {
            let class = &f.qos.classes[imp.class].name;
            let tm = tmpl(class, RateSpec::Line, None, None, Some(imp.size), x.window);
            let mut flow = template(f, imp.src, imp.dst, &tm);
            let k = next_port.entry((imp.src, imp.dst)).or_insert(HPCC_FIRST_PORT);
            flow.udp_src_port = *k;
            *k = k.wrapping_add(1);
            flow.size_bytes = Some(imp.size);
            flow.start_ps = imp.start.as_ps();
            if f.sim_model.serialization == simmodel::Serialization::TruncateNs {
                // That simulator's start: the file's seconds as a double, in whole nanoseconds.
                let seconds = imp.start.as_ps() as f64 / crate::time::SECOND as f64;
                flow.start_ps = crate::time::ns3_seconds_ns(seconds) * crate::time::NS;
            }
            t.push(flow);
            name_new(&t, names, &x.name, imp.dport);
        }
    }
    for x in &w.permutation {
        let hosts = resolve_hosts(&x.hosts, f);
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()), x.window);
        let mut flow = template(f, hosts[0], hosts[1], &tm);
        flow.start_ps = x.start.as_ps();
        flow.stop_ps = x.stop.map(|s| s.as_ps());
        t.permutation(&hosts, seed, &flow);
        name_new(&t, names, &x.name, roce);
    }
    for x in &w.all_to_all {
        let hosts = resolve_hosts(&x.hosts, f);
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()), x.window);
        let mut flow = template(f, hosts[0], hosts[1], &tm);
        flow.start_ps = x.start.as_ps();
        flow.stop_ps = x.stop.map(|s| s.as_ps());
        t.all_to_all(&hosts, &flow);
        name_new(&t, names, &x.name, roce);
    }
    for (i, x) in w.iperf.iter().enumerate() {
        let (client, server) = (host(&x.client), host(&x.server));
        let flow = iperf_template(f, x, client, server, i);
        t.iperf(client, server, x.parallel, &flow);
        for k in 0..x.parallel {
            names.flows.push(if x.parallel == 1 { x.name.clone() } else { format!("{}#{k}", x.name) });
            names.dports.push(IPERF_PORT);
        }
        names.iperf.push(x.name.clone());
    }
    // Storage sessions' queue pairs are flows of `t.flows`: named before perftest's, which
    // follow all of them.
    let (jobs, flows) = storage::add_jobs(s, f, seed, &mut t);
    names.jobs = jobs;
    for n in flows {
        names.flows.push(n);
        names.dports.push(roce);
    }
    for (i, x) in w.perftest.iter().enumerate() {
        let p = perftest(f, x, i, &host);
        let n = p.flows().len();
        for k in 0..p.qps as usize {
            names.flows.push(if p.qps == 1 { x.name.clone() } else { format!("{}#qp{k}", x.name) });
            names.dports.push(roce);
        }
        if n > p.qps as usize {
            names.flows.push(format!("{}#pong", x.name));
            names.dports.push(roce);
        }
        names.perftest.push(x.name.clone());
        t.perftest.push(p);
    }
    t
}

/// The switch traffic class (egress queue) of a class: its `queue`, else its priority. The
/// simulator keeps one priority → queue map per switch, so per-port queue overrides are not
/// modelled.
fn queue_of(c: &rocelab_model::TrafficClass) -> u8 {
    c.queue.unwrap_or(c.priority) & 7
}

/// A workload's flow-size CDF (`workloads.poisson`, HPCC's traffic files) is what
/// [`Traffic::poisson`] draws sizes from.
impl SizeDistribution for rocelab_model::cdf::FlowSizeCdf {
    fn mean_bytes(&self) -> f64 {
        self.mean()
    }
    fn sample_bytes(&self, u: f64) -> u64 {
        self.sample(u)
    }
}

#[cfg(test)]
mod tests;
