//! From a loaded rocelab scenario (the YAML fabric and its workloads) to the simulator's input:
//! a [`NetworkSpec`], a [`Traffic`] and a [`SimConfig`], with warnings as data.
//!
//! Device `i` of the resolved fabric is node `i`; only cabled ports become simulator ports (a
//! switch model's unused front-panel ports carry nothing). Buffer size, alpha, per-port PFC,
//! ETS, ECN and per-PG headroom come from the model; a lossless PG's headroom defaults to
//! [`rocelab_verify::headroom::required_headroom`] for its link — the same function
//! `rocelab check` uses.

use crate::cc::{CcAlgorithm, DcqcnParams};
use crate::nic::NicProfile;
use crate::perftest::{PerftestKind, PerftestLength, PerftestSpec};
use crate::rdma::RdmaOp;
use crate::spec::{
    BufferSpec, DscpMap, HostPortSpec, HostSpec, LinkSpec, NetworkSpec, NodeKind, NodeSpec, PfcPortSpec, PortRef,
    PriorityGroupSpec, PriorityMask, QosSpec, SwitchPortSpec, SwitchSpec, TrafficClassSpec, Trust, MAX_FRAME_BYTES,
};
use crate::tcp::{CcKind, TcpStackSpec};
use crate::traffic::{FlowClass, FlowSpec, OnOff, PoissonArrivals, TcpFlow, Traffic, IPERF_PORT};
use crate::{EcnSpec, Sampling, SimConfig, Tsa, XoffThreshold};
use rocelab_model::fabric::NicVendor;
use rocelab_model::flowgen::host_rate_bps as line_rate;
use rocelab_model::perftest::{Perftest, PerftestTest};
use rocelab_model::qos::Marking;
use rocelab_model::storage::{CongestionControl, Iperf, TcpSettings};
use rocelab_model::workload::{flow_transport, resolve_hosts, FlowOp, FlowTransport, NicProfileName, RateSpec};
use rocelab_model::{PortId, ResolvedFabric, Role, Scenario};
use rocelab_verify::headroom::{required_headroom, HeadroomInput, Response};
use serde::Serialize;

/// The simulator's input built from a scenario, and the names to report results with.
#[derive(Debug, Clone)]
pub struct Built {
    pub spec: NetworkSpec,
    pub traffic: Traffic,
    pub config: SimConfig,
    pub names: Names,
    /// Things the run will do that the user may not expect (e.g. a lossless class crossing a
    /// hop with PFC off).
    pub warnings: Vec<String>,
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

/// Builds the simulator's input. `seed` overrides `simulation.seed`.
pub fn build(scenario: &Scenario, f: &ResolvedFabric, seed: Option<u64>) -> Built {
    let mut warnings = Vec::new();
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
    lossless_hops_without_pfc(f, &mut warnings);
    let spec = NetworkSpec { nodes, links };
    let seed = seed.unwrap_or(scenario.simulation.seed);
    let traffic = traffic(scenario, f, seed, &mut names);
    names.dports.resize(names.flows.len(), crate::packet::wire::ROCEV2_UDP_PORT);
    let config = SimConfig {
        seed,
        end_time_ps: scenario.simulation.duration.as_ps(),
        sampling: Sampling {
            queue_interval_ps: Some(scenario.simulation.sample_interval.as_ps()),
            ..Default::default()
        },
    };
    Built { spec, traffic, config, names, warnings }
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
                pfc: PfcPortSpec { enabled: pfc_mask(f, id), ..Default::default() },
                mtu: s.mtu.clamp(*crate::tcp::stack::MTU_RANGE.start(), *crate::tcp::stack::MTU_RANGE.end()),
                link_pause: s.link_pause,
            }
        })
        .collect();
    let mut h = HostSpec { ports, ..Default::default() }.with_nic_profile(nic_profile(scenario, f, di));
    h.tcp = tcp_stack(f.devices[di].tcp.as_ref());
    let settings = cabled.first().map(|pi| f.port_settings(PortId { device: di, port: *pi }));
    let (np, rp) = settings.as_ref().map(|s| (s.dcqcn_np, s.dcqcn_rp)).unwrap_or((false, false));
    if f.qos.dcqcn.enabled || np || rp {
        h.nic.cc = CcAlgorithm::Dcqcn(DcqcnParams::from_model(&f.dcqcn));
    }
    h.nic.notification_point = np;
    h.nic.reaction_point = rp;
    if let Some(c) = f.qos.cnp_class() {
        let priority = settings.as_ref().and_then(|s| s.cnp_priority).unwrap_or(c.priority);
        h.nic.cnp_class = FlowClass {
            priority,
            dscp: c.dscp.first().copied().unwrap_or(priority << 3),
            ecn_capable: false,
            tagged: f.qos.marking == Marking::Pcp,
        };
    } else {
        h.nic.cnp_class.tagged = f.qos.marking == Marking::Pcp;
    }
    h
}

/// Priorities with PFC on at a port.
fn pfc_mask(f: &ResolvedFabric, id: PortId) -> PriorityMask {
    let s = f.port_settings(id);
    let prios: Vec<u8> = s.classes.iter().filter(|c| c.pfc).map(|c| c.priority).collect();
    PriorityMask::of(&prios)
}

/// The switch at device `di` with its cabled ports `cabled` (model port indices).
fn switch(f: &ResolvedFabric, di: usize, cabled: &[usize], seed: u64) -> SwitchSpec {
    let d = &f.devices[di];
    let buffer = BufferSpec {
        size_bytes: d.buffer.map(|b| b.as_bytes()).unwrap_or(BufferSpec::default().size_bytes),
        alpha: f.qos.buffer.alpha(),
        ..Default::default()
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
            let link = &f.links[f.port(id).link.expect("cabled")];
            let peer = if link.a == id { link.b } else { link.a };
            let mut port = SwitchPortSpec { link_pause: s.link_pause, ..Default::default() };
            port.pfc.enabled = pfc_mask(f, id);
            for (c, pc) in f.qos.classes.iter().zip(&s.classes) {
                let prio = pc.priority as usize & 7;
                // 802.3x protects every class of the port that PFC does not: its PG holds back
                // with headroom, and its XOFF sends PAUSE.
                if (c.lossless && pc.pfc) || (s.link_pause && !pc.pfc) {
                    let headroom = s.headroom.map(|h| h.as_bytes()).unwrap_or_else(|| {
                        required_headroom(&HeadroomInput {
                            speed: link.speed,
                            cable: link.cable,
                            receiver_mtu: s.mtu,
                            sender_mtu: f.port_settings(peer).mtu,
                            response: Response::Time(f.qos.pfc.response_time),
                        })
                        .bytes
                    });
                    port.pgs[prio] = PriorityGroupSpec {
                        threshold: s
                            .xoff
                            .map(|x| XoffThreshold::Static(x.as_bytes()))
                            .unwrap_or(XoffThreshold::Dynamic),
                        xon_offset_bytes: xon_offset,
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
        ..Default::default()
    }
}

/// A lossless class crossing a link where PFC is off at one end may be dropped there: allowed
/// (that is how ECN-only fabrics run), with a warning per link.
fn lossless_hops_without_pfc(f: &ResolvedFabric, warnings: &mut Vec<String>) {
    if !f.qos.pfc.enabled {
        if f.qos.lossless_classes().next().is_some() {
            warnings.push("PFC is off fabric-wide: lossless classes are dropped under congestion".into());
        }
        return;
    }
    for l in &f.links {
        let (a, b) = (f.port_settings(l.a), f.port_settings(l.b));
        for (i, c) in f.qos.classes.iter().enumerate() {
            if c.lossless && (!a.classes[i].pfc || !b.classes[i].pfc) {
                warnings.push(format!(
                    "lossless class `{}` crosses {} -- {} with PFC off at {}: it can be dropped there",
                    c.name,
                    f.port_label(l.a),
                    f.port_label(l.b),
                    if a.classes[i].pfc { "the second end" } else { "the first end" }
                ));
            }
        }
    }
}

fn class_of(f: &ResolvedFabric, name: &str) -> FlowClass {
    let c = f.qos.class(name).expect("workload classes are checked when the scenario loads");
    FlowClass {
        priority: c.priority,
        dscp: c.dscp.first().copied().unwrap_or(c.priority << 3),
        ecn_capable: f.qos.dcqcn.enabled || c.ecn.is_some(),
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
}

fn template(f: &ResolvedFabric, src: usize, dst: usize, t: &Template) -> FlowSpec {
    let mut flow = FlowSpec::greedy(src, dst, class_of(f, t.class));
    flow.payload_bytes = f.roce_mtu;
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
        FlowTransport::Rc => flow.rc(op),
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
    let tmpl = |class, rate, transport, op, size: Option<u64>| Template { class, rate, transport, op, size };
    for x in &w.flows {
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()));
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
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()));
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
        let flow = template(f, hosts[0], hosts[1], &tmpl(&x.class, RateSpec::Line, None, None, None));
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
        // Source ports count up per sender, like the HPCC simulator's per-host port counter.
        let mut next_port: std::collections::HashMap<usize, u16> = Default::default();
        for imp in &x.flows {
            let class = &f.qos.classes[imp.class].name;
            let mut flow = template(f, imp.src, imp.dst, &tmpl(class, RateSpec::Line, None, None, Some(imp.size)));
            let k = next_port.entry(imp.src).or_insert(0);
            flow.udp_src_port = flow.udp_src_port.wrapping_add(*k);
            *k = k.wrapping_add(1);
            flow.size_bytes = Some(imp.size);
            flow.start_ps = imp.start.as_ps();
            t.push(flow);
            name_new(&t, names, &x.name, imp.dport);
        }
    }
    for x in &w.permutation {
        let hosts = resolve_hosts(&x.hosts, f);
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()));
        let mut flow = template(f, hosts[0], hosts[1], &tm);
        flow.start_ps = x.start.as_ps();
        flow.stop_ps = x.stop.map(|s| s.as_ps());
        t.permutation(&hosts, seed, &flow);
        name_new(&t, names, &x.name, roce);
    }
    for x in &w.all_to_all {
        let hosts = resolve_hosts(&x.hosts, f);
        let tm = tmpl(&x.class, x.rate, x.transport, x.op, x.size.map(|s| s.as_bytes()));
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
    let (jobs, flows) = crate::storage::scenario::add_jobs(s, f, seed, &mut t);
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

#[cfg(test)]
mod tests {
    use super::*;

    const FABRIC: &str = r#"fabric:
  name: t
  topology:
    generator:
      single-switch: {hosts: 3, speed: 100G, cable: 100m, switch: {model: SN2700}}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 60, ecn: {kmin: 100KB, kmax: 400KB, pmax: 0.2}}
      - {name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}
      - {name: default, priority: 0, dscp: [0], ets: 40}
    ports:
      - {ports: ["host3:p0", "sw1:eth1/3"], pfc: {roce: false}}
workloads:
  incast:
    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB}
"#;

    fn built() -> (Built, ResolvedFabric) {
        let l = rocelab_model::load_str(FABRIC, "t.yaml", std::path::Path::new(".")).unwrap();
        (build(&l.scenario, &l.fabric, Some(9)), l.fabric)
    }

    #[test]
    fn switch_follows_the_model() {
        let (b, f) = built();
        let NodeKind::Switch(sw) = &b.spec.nodes[0].kind else { panic!("sw1 first") };
        assert_eq!(sw.buffer.size_bytes, 16_000_000, "SN2700's buffer from the catalog");
        assert_eq!(sw.qos.trust, Trust::Dscp);
        assert_eq!(sw.qos.dscp_to_priority.0[26], 3);
        assert_eq!(sw.qos.dscp_to_priority.0[48], 6);
        assert_eq!(sw.ports.len(), 3, "only cabled ports");
        let p0 = &sw.ports[0];
        assert!(p0.pfc.enabled.contains(3) && !p0.pfc.enabled.contains(0));
        assert_eq!(p0.tcs[3].tsa, Tsa::Ets(60));
        assert_eq!(p0.tcs[6].tsa, Tsa::Strict);
        assert_eq!(p0.tcs[3].ecn.unwrap().kmax_bytes, 400_000);
        // The headroom is the verifier's figure for a 100 m, 100G, 9000-byte link.
        let link = &f.links[0];
        let want = required_headroom(&HeadroomInput {
            speed: link.speed,
            cable: link.cable,
            receiver_mtu: 9000,
            sender_mtu: 9000,
            response: Response::Time(f.qos.pfc.response_time),
        })
        .bytes;
        assert_eq!(p0.pgs[3].headroom_bytes, want);
        assert!(p0.pgs[3].lossless && !p0.pgs[0].lossless);
        // PFC off on the override.
        assert!(!sw.ports[2].pfc.enabled.contains(3));
    }

    #[test]
    fn rdma_workloads_become_queue_pairs_and_perftest_runs() {
        let text = FABRIC.replace("    ports:\n", "    dcqcn: {enabled: true, profile: nvidia-connectx}\n    ports:\n")
            + "  flows:\n    - {name: r, from: host1, to: host3, class: roce, op: read, size: 1MB}\n    - {name: o, from: host2, to: host3, class: default, transport: raw}\n  perftest:\n    - {name: lat, test: write_lat, client: host1, server: host2, class: roce}\n    - {name: bw, test: send_bw, client: host2, server: host1, class: roce, qps: 2, size: 4KiB}\n";
        let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap();
        let b = build(&l.scenario, &l.fabric, None);
        let t = &b.traffic;
        // The incast and the flow between RoCE hosts run over RC; `transport: raw` stays open loop.
        assert_eq!((t.flows[0].rc_flow().unwrap().op, t.flows[0].size_bytes), (RdmaOp::Read, Some(1_000_000)));
        assert!(t.flows[1].rc_flow().is_none());
        assert!(t.flows[2].rc_flow().is_some_and(|r| r.op == RdmaOp::Write));
        assert_eq!(t.flows[0].payload_bytes, 4096, "the RoCE path MTU of a 9000-byte port MTU");
        // perftest: defaults and names of the QP flows.
        let (lat, bw) = (&t.perftest[0], &t.perftest[1]);
        assert_eq!((lat.test, lat.size, lat.length), (PerftestKind::WriteLat, 2, PerftestLength::Iterations(1000)));
        assert_eq!((bw.test, bw.size, bw.qps, bw.tx_depth), (PerftestKind::SendBw, 4096, 2, 128));
        assert_eq!(&b.names.flows[4..], ["lat", "lat#pong", "bw#qp0", "bw#qp1"]);
        assert_eq!(b.names.perftest, ["lat", "bw"]);
        // Hosts: the generated ConnectX adapters get the calibrated profile, DCQCN the
        // ConnectX parameters, CNPs the fabric's CNP class.
        let NodeKind::Host(h) = &b.spec.nodes[1].kind else { panic!("host1") };
        assert_eq!(h.nic.profile.name, "connectx-4");
        assert_eq!(h.latency_ps, NicProfile::connectx4().rx_latency_ps);
        let crate::cc::CcAlgorithm::Dcqcn(p) = h.nic.cc else { panic!("DCQCN on") };
        assert_eq!(p.rate_increase_timer_ps, 300 * crate::US);
        assert_eq!((h.nic.cnp_class.priority, h.nic.cnp_class.dscp, h.nic.cnp_class.tagged), (6, 48, false));
        assert!(h.nic.notification_point && h.nic.reaction_point);
        let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 2 * crate::MS, ..b.config }).unwrap();
        r.check_conservation().unwrap();
        assert_eq!(r.perftest.len(), 2);
    }

    #[test]
    fn poisson_and_repeated_incasts_become_flows() {
        let text = FABRIC.replace(
            "    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB}\n",
            "    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB, every: 100us, count: 3}\npoisson:\n    - {name: bg, class: roce, load: 0.5, cdf: [[1000, 0], [3000, 100]], duration: 1ms}\n",
        )
        .replace("poisson:", "  poisson:");
        let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let b = build(&l.scenario, &l.fabric, Some(3));
        let incast: Vec<&FlowSpec> = b.traffic.flows[..6].iter().collect();
        let starts: Vec<u64> = incast.iter().map(|f| f.start_ps).collect();
        assert_eq!(starts, [0, 0, 100_000_000, 100_000_000, 200_000_000, 200_000_000]);
        let ports: Vec<u16> = incast.iter().map(|f| f.udp_src_port).collect();
        assert_eq!(ports, [49152, 49153, 49154, 49155, 49156, 49157], "a QP per sender and round");
        assert!(b.names.dports[..6].iter().all(|&p| p == DPORT_INCAST));
        // 3 hosts at 100G, half load, 2 KB mean, 1 ms: about 9,375 flows.
        let bg = &b.traffic.flows[6..];
        assert!((8_800..10_000).contains(&bg.len()), "{}", bg.len());
        assert!(bg.iter().all(|f| f.start_ps < 1_000_000_000 && (1000..=3000).contains(&f.size_bytes.unwrap())));
        assert!(bg.iter().all(|f| f.payload_bytes == 4096 && f.class.priority == 3));
        assert_eq!(b.names.flow(6), "bg#6");
        assert_eq!(b.names.dport(6), DPORT_BACKGROUND);
        assert_eq!(b.names.dports.len(), b.traffic.flows.len());
        // Same seed, same flows; the scenario seed is used without an override.
        assert_eq!(build(&l.scenario, &l.fabric, Some(3)).traffic, b.traffic);
        assert_ne!(build(&l.scenario, &l.fabric, Some(4)).traffic, b.traffic);
    }

    #[test]
    fn jobs_become_sessions_named_flows_and_results() {
        let text = FABRIC.replace(
            "      single-switch: {hosts: 3, speed: 100G, cable: 100m, switch: {model: SN2700}}\n",
            "      single-switch: {hosts: 3, speed: 100G, cable: 100m, switch: {model: SN2700}}\n    devices:\n      - name: array\n        role: storage\n        nic: {vendor: mellanox, model: ConnectX-5, speed: 100G}\n        storage: {kind: array, protocols: [nvme-rdma, iscsi], profile: ramdisk, model: {write_limit: 8G}}\n        cpu: {cores: 4}\n    links:\n      - {a: \"sw1:eth1/4\", b: \"array:p0\"}\n",
        ) + "  jobs:\n    - {name: w, rw: randwrite, bs: 4KiB, iodepth: 2, numjobs: 3, runtime: 100us, protocol: nvme-rdma, initiator: host1-2, target: array}\n";
        let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let b = build(&l.scenario, &l.fabric, None);
        let st = &b.traffic.storage;
        assert_eq!(b.names.jobs, ["w@host1", "w@host2"]);
        // NVMe/RDMA: a queue per CPU (16 by default on the hosts), three clones each: three
        // sessions per host, each with its SEND and response queue pairs (4 KiB: no READ).
        assert_eq!(st.sessions.len(), 6);
        assert_eq!(b.traffic.flows.len(), 2 + 12, "the incast's flows, then the sessions'");
        assert_eq!(b.names.flows[2], "nvme-rdma host1>array s0 send");
        assert_eq!(b.names.flows[3], "nvme-rdma host1>array s0 respond");
        assert_eq!(b.names.flows.len(), b.traffic.flows.len());
        let array = l.fabric.devices.iter().position(|d| d.name == "array").unwrap();
        assert_eq!(st.cores_of(array), 4);
        let dev = st.target_of(array).unwrap();
        assert_eq!((dev.name, dev.write_ceiling_bps), ("ramdisk", Some(8_000_000_000)));
        // Sessions take the array's cores in turn.
        let cores: Vec<u32> = st.sessions.iter().map(|s| s.target_core).collect();
        assert_eq!(cores, [0, 1, 2, 3, 0, 1]);
        let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 200 * crate::US, ..b.config }).unwrap();
        r.check_conservation().unwrap();
        assert_eq!(r.jobs.len(), 2);
        assert!(r.jobs.iter().all(|j| j.write.total_ios > 0 && j.numjobs == 3 && j.sessions == 3));
        assert_eq!(r.targets[0].profile, "ramdisk");
        // A TCP protocol: one iSCSI session per host (open-iscsi's one session), each a TCP
        // connection to the array's port 3260 instead of queue pairs.
        // (The target's 36 µs of iSCSI work per IO on the session's core makes an IO take
        // longer than 100 µs: a 1 ms run.)
        let tcp = text.replace("protocol: nvme-rdma", "protocol: iscsi").replace("runtime: 100us", "runtime: 1ms");
        let l = rocelab_model::load_str(&tcp, "t.yaml", std::path::Path::new(".")).unwrap();
        let b = build(&l.scenario, &l.fabric, None);
        assert_eq!(b.traffic.flows.len(), 2, "the incast's flows only");
        let st = &b.traffic.storage;
        assert_eq!(st.sessions.len(), 2);
        assert!(st.sessions.iter().all(|s| s.transport == crate::storage::plan::StorageTransport::Tcp));
        let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 1200 * crate::US, ..b.config }).unwrap();
        r.check_conservation().unwrap();
        assert!(r.jobs.iter().all(|j| j.write.total_ios > 10 && j.sessions == 1), "{:?}", r.jobs);
        assert_eq!(r.tcp_connections.len(), 2);
        assert!(r.tcp_connections.iter().all(|c| c.ends[1].port == 3260 && c.ends[1].node == array));
    }

    #[test]
    fn traffic_and_warnings_follow_the_workloads() {
        let (b, _) = built();
        assert_eq!(b.traffic.flows.len(), 2);
        assert_eq!(b.names.flows, ["in#0", "in#1"]);
        let flow = &b.traffic.flows[0];
        assert_eq!((flow.class.priority, flow.class.dscp, flow.size_bytes), (3, 26, Some(65536)));
        assert_eq!(b.config.seed, 9);
        assert!(
            b.warnings.iter().any(|w| w.contains("crosses sw1:eth1/3 -- host3:p0 with PFC off")),
            "{:?}",
            b.warnings
        );
    }

    #[test]
    fn iperf_tcp_settings_link_pause_and_iwarp_follow_the_model() {
        let text = r#"fabric:
  name: t
  topology:
    devices:
      - {name: sw1, role: switch, platform: generic, ports: [{names: p1-4, speed: 10G}]}
      - name: client
        role: host
        nic: {vendor: intel, model: X520, ports: 1, speed: 10G, rdma: none}
        tcp: {congestion_control: reno, window_scaling: false, min_rto: 10ms, receive_buffer: 1MiB, nagle: false, sack: false}
      - {name: server, role: host, nic: {vendor: intel, model: X520, ports: 1, speed: 10G, rdma: none}}
      - {name: iw1, role: host, nic: {vendor: chelsio, model: T62100, ports: 1, speed: 10G}}
      - {name: iw2, role: host, nic: {vendor: chelsio, model: T62100, ports: 1, speed: 10G}}
    links:
      - {a: "sw1:p1", b: "client:p0"}
      - {a: "sw1:p2", b: "server:p0"}
      - {a: "sw1:p3", b: "iw1:p0"}
      - {a: "sw1:p4", b: "iw2:p0"}
  qos:
    marking: pcp
    mtu: 9000
    classes:
      - {name: iscsi, priority: 0}
    pfc: {enabled: false, link_pause: true}
workloads:
  flows:
    - {name: rdma, from: iw1, to: iw2, class: iscsi, size: 1MB}
  iperf:
    - {name: cross, client: client, server: server, parallel: 3, window: 256KiB, congestion_control: dctcp, bitrate: 2G, bytes: 2MB, nodelay: true}
"#;
        let l = rocelab_model::load_str(text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let b = build(&l.scenario, &l.fabric, None);
        // The client's stack from its `tcp:` settings; the server keeps Linux's defaults.
        let NodeKind::Host(c) = &b.spec.nodes[1].kind else { panic!("client") };
        assert_eq!(c.tcp.congestion_control, CcKind::NewReno);
        assert!(!c.tcp.window_scaling && !c.tcp.nagle && !c.tcp.sack);
        assert_eq!((c.tcp.min_rto_ps, c.tcp.receive_buffer_bytes), (10 * crate::MS, 1 << 20));
        assert_eq!(c.ports[0].mtu, 9000);
        assert!(c.ports[0].link_pause);
        let NodeKind::Host(s) = &b.spec.nodes[2].kind else { panic!("server") };
        assert_eq!(s.tcp, TcpStackSpec::default());
        // Between two iWARP (Chelsio) hosts a flow runs over iWARP by default.
        let t = &b.traffic;
        assert!(matches!(t.flows[0].transport, crate::Transport::Iwarp(r) if r.op == RdmaOp::Write));
        // The iperf test: three TCP streams with the socket options, ports 32768.. -> 5201.
        assert_eq!(t.iperf.len(), 1);
        assert_eq!((t.iperf[0].first_flow, t.iperf[0].streams), (1, 3));
        let s0 = &t.flows[1];
        let crate::Transport::Tcp(opts) = s0.transport else { panic!("a TCP flow") };
        assert_eq!(opts.congestion_control, Some(CcKind::Dctcp));
        assert_eq!((opts.window_bytes, opts.nodelay, opts.server_port), (Some(256 * 1024), true, IPERF_PORT));
        assert_eq!((s0.size_bytes, s0.rate_bps), (Some(2_000_000), Some(2_000_000_000)));
        assert_eq!(t.flows[1..].iter().map(|f| f.udp_src_port).collect::<Vec<_>>(), [32768, 32769, 32770]);
        assert_eq!(&b.names.flows[1..], ["cross#0", "cross#1", "cross#2"]);
        assert_eq!(b.names.iperf, ["cross"]);
        assert_eq!(b.names.dports[1], IPERF_PORT);
        // 802.3x on the switch ports: the class's PG holds back with headroom, PFC stays off.
        let NodeKind::Switch(sw) = &b.spec.nodes[0].kind else { panic!("sw1") };
        assert!(sw.ports.iter().all(|p| p.link_pause && p.pfc.enabled == PriorityMask::NONE));
        assert!(sw.ports[0].pgs[0].lossless && sw.ports[0].pgs[0].headroom_bytes > 9000);
        let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 20 * crate::MS, ..b.config }).unwrap();
        r.check_conservation().unwrap();
        assert_eq!(r.iperf[0].streams.len(), 3);
        assert!(r.iperf[0].streams.iter().all(|s| s.receiver_bytes == 2_000_000), "{:?}", r.iperf[0]);
        assert_eq!(r.flows[0].delivered_bytes, 1_000_000);
        let summary = crate::summary::summary(&r, &b.names, &b.warnings);
        assert!(summary.contains("iperf cross: client -> server, 3 stream(s)"), "{summary}");
        assert!(summary.contains("[SUM]"), "{summary}");
    }
}
