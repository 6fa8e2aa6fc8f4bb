//! Building a simulation from a [`NetworkSpec`] and [`Traffic`], running it, and collecting
//! [`Results`].

use super::build_flows::{build_flows, Flows};
use super::switch::Ingress;
use super::tcp::TcpHosts;
use super::{NicRt, PortCold, PortRt, SampleState, Sim, SimConfig, SwitchRt, WireRt};
use crate::error::SimError;
use crate::event::{Event, EventQueue};
use crate::mmu::{EgressLossy, Mmu, PgConfig};
use crate::nic::RxBuffer;
use crate::observer::{NoObserver, Observer};
use crate::packet::{five_tuple_hash, node_ipv4, wire, PacketPool};
use crate::pfc::pause_duration;
use crate::ring::Ring;
use crate::rng::{mix64, Rng};
use crate::routing::{Ecmp, Routes, Topology};
use crate::sched::{Scheduler, Tsa};
use crate::spec::{EcnMarking, NetworkSpec, NodeKind, PfcPortSpec, PortRef, MAX_FRAME_BYTES};
use crate::stats::{Conservation, Results};
use crate::time::{LinkRate, Time};
use crate::traffic::{FlowSpec, Traffic};
use std::sync::Arc;

/// Longest simulated time accepted (2⁶² ps ≈ 53 days), far from `u64` overflow.
pub const MAX_END_TIME: Time = 1 << 62;

/// Run `traffic` over `spec` as configured and return the results.
///
/// Everything is checked first; a bad description or a run whose outputs would not fit in memory
/// is refused with a [`SimError`] saying what to change. Same inputs, same results, byte for
/// byte.
pub fn run(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig) -> Result<Results, SimError> {
    Ok(Simulation::new(spec, traffic, config)?.finish())
}

/// [`run`] with an [`Observer`] that sees every frame sent, received and dropped.
pub fn run_with_observer<O: Observer>(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    observer: &mut O,
) -> Result<Results, SimError> {
    Ok(Simulation::with_observer(spec, traffic, config, observer)?.finish())
}

/// A simulation that runs in slices of simulated time, for a caller that wants to show
/// progress or stop early: [`Simulation::run_until`] processes the events up to a time and
/// returns; [`Simulation::finish`] runs to the end and returns the [`Results`]. However it is
/// sliced, a run processes the same events in the same order as one [`run`], so the results are
/// the same, byte for byte. Nothing is called back on the engine's hot path.
///
/// ```
/// use rocelab_sim::*;
/// use rocelab_sim::topology::{single_switch, FabricDefaults};
///
/// let fabric = single_switch(3, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 200_000));
/// let mut traffic = Traffic::new();
/// traffic.incast(&fabric.hosts[1..], fabric.hosts[0], &FlowSpec::greedy(0, 0, FlowClass::roce(3, 26)));
/// let config = SimConfig::new(1, MS);
/// let mut sim = Simulation::new(&fabric.spec, &traffic, &config).unwrap();
/// while !sim.is_finished() {
///     sim.run_until(sim.now() + 100 * US);
///     // report sim.now() of sim.end_time()
/// }
/// assert_eq!(sim.finish(), run(&fabric.spec, &traffic, &config).unwrap());
/// ```
pub struct Simulation<'a, O: Observer> {
    sim: Sim<'a, O>,
    spec: &'a NetworkSpec,
    traffic: &'a Traffic,
    /// Every event at or before this time has been processed.
    reached: Time,
}

impl<'a> Simulation<'a, NoObserver> {
    /// Check and build a simulation of `traffic` over `spec` (the same checks as [`run`]).
    pub fn new(spec: &'a NetworkSpec, traffic: &'a Traffic, config: &SimConfig) -> Result<Self, SimError> {
        // `NoObserver` has no size: leaking a box of it allocates nothing and yields a
        // reference that lives as long as needed.
        const _: () = assert!(std::mem::size_of::<NoObserver>() == 0);
        Simulation::with_observer(spec, traffic, config, Box::leak(Box::new(NoObserver)))
    }

    /// [`Simulation::new`] for one part of a run on several threads (`parallel`), over the
    /// tables that `shared` built once for every part (the checks done there too): `part` is
    /// the part of each node and this part.
    pub(super) fn new_part(
        spec: &'a NetworkSpec,
        traffic: &'a Traffic,
        config: &SimConfig,
        shared: &Shared,
        part: (&[u32], u32),
    ) -> Result<Self, SimError> {
        let sim = build(spec, traffic, config, Box::leak(Box::new(NoObserver)), shared, Some(part))?;
        Ok(Simulation { sim, spec, traffic, reached: 0 })
    }
}

impl<'a, O: Observer> Simulation<'a, O> {
    /// [`Simulation::new`] with an [`Observer`].
    pub fn with_observer(
        spec: &'a NetworkSpec,
        traffic: &'a Traffic,
        config: &SimConfig,
        observer: &'a mut O,
    ) -> Result<Self, SimError> {
        let shared = Shared::prepare(spec, traffic, config, 1)?;
        let sim = build(spec, traffic, config, observer, &shared, None)?;
        Ok(Simulation { sim, spec, traffic, reached: 0 })
    }

    /// Process every event at or before `time` (at most the end time). Going back in time does
    /// nothing.
    pub fn run_until(&mut self, time: Time) {
        let time = time.min(self.sim.end);
        if time < self.reached {
            return;
        }
        self.sim.run_until(time);
        // A run that stops when its flows are done may have ended before `time`.
        self.reached = time.min(self.sim.end);
    }

    /// Simulated time reached: every event at or before it has been processed.
    pub fn now(&self) -> Time {
        self.reached
    }

    /// The end time of the run.
    pub fn end_time(&self) -> Time {
        self.sim.end
    }

    /// Whether the end time has been reached.
    pub fn is_finished(&self) -> bool {
        self.reached >= self.sim.end
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.sim.events
    }

    /// The engine, for the threads of a run on several (`parallel`) and for tests that drive
    /// its internal APIs (e.g. opening TCP connections).
    pub(super) fn engine(&mut self) -> &mut Sim<'a, O> {
        &mut self.sim
    }

    /// Run to the end time and collect the results.
    pub fn finish(mut self) -> Results {
        let end = self.sim.end;
        self.run_until(end);
        let results = self.sim.results(self.spec);
        let (spec, traffic) = (self.spec, self.traffic);
        drop(self); // its routing tables and pools go before the FCT analysis builds its own routes
        complete(results, spec, traffic)
    }
}

/// The figures computed from a run's results: flow completion times and iperf's.
pub(super) fn complete(mut results: Results, spec: &NetworkSpec, traffic: &Traffic) -> Results {
    // An open-loop flow completes when its last byte is delivered; an RDMA flow when its
    // requester has the last ACK (see `FctReport::compute`).
    results.fct = crate::fct::FctReport::compute(spec, traffic, &results, crate::fct::Completion::LastByteDelivered);
    results.iperf = crate::sim::tcp::results::iperf_results(traffic, &results);
    results
}

/// An empty event queue in the run's order of simultaneous events.
pub(super) fn fresh_queue(config: &SimConfig) -> EventQueue {
    match config.event_order {
        super::EventOrder::Canonical => EventQueue::new(),
        super::EventOrder::PushOrder => EventQueue::with_push_order(),
    }
}

/// Refuse unusable configurations and outputs that would not fit in memory.
fn check_config(spec: &NetworkSpec, config: &SimConfig) -> Result<(), SimError> {
    if config.end_time_ps == 0 || config.end_time_ps > MAX_END_TIME {
        return Err(SimError::InvalidConfig {
            message: format!(
                "end_time_ps {} is not in 1..={MAX_END_TIME} (about 53 days); give the simulated time in picoseconds",
                config.end_time_ps
            ),
        });
    }
    if let Some(iv) = config.sampling.queue_interval_ps {
        if iv == 0 {
            return Err(SimError::InvalidConfig {
                message: "queue sampling interval is 0; give an interval or None".into(),
            });
        }
        let ports: u64 = (0..spec.nodes.len()).filter(|&n| !spec.is_host(n)).map(|n| spec.port_count(n) as u64).sum();
        let samples = config.sampling.kept_per_port(iv, config.end_time_ps);
        let values = samples.saturating_mul(ports);
        let limit = config.sampling.max_values;
        if values > limit {
            let min_iv = (config.end_time_ps as u128 * ports as u128).div_ceil(limit.max(1) as u128);
            return Err(SimError::OutputTooLarge {
                estimated: values,
                limit,
                hint: format!(
                    "queue sampling every {} for {} over {ports} switch ports ({samples} samples each, at most \
                     {}); sample at least every {} (simulation.sample_interval) or shorten the run \
                     (simulation.duration)",
                    crate::time::human(iv),
                    crate::time::human(config.end_time_ps),
                    config.sampling.max_samples_per_port,
                    crate::time::human(min_iv.min(u64::MAX as u128) as u64),
                ),
            });
        }
    }
    Ok(())
}

/// What every part of a run builds the same from its inputs and never writes, built once and
/// shared: the checks of the inputs, the wiring of the ports, the routing tables and the hosts'
/// TCP settings. A run on several threads prepares it before its threads start and each part
/// builds its own state over it (`parallel`), where each part built and checked all of it before
/// (on the k = 32 fat tree, the spec's checks and the routes were about two thirds of a part's
/// build CPU: see docs/benchmarks.md); a run on one thread prepares it for itself.
pub(super) struct Shared {
    /// Node → the global id of its port 0; one more entry, the ports' count.
    first_port: Vec<u32>,
    /// Global port → the port at the other end of its link, the link's rate with the run's
    /// framing (bytes per frame on the wire, rounding) and its delay.
    link_of: Vec<(u32, LinkRate, Time)>,
    /// Global port → its node.
    port_node: Vec<u32>,
    /// Node → its latency (a host's or a switch's).
    node_latency: Vec<Time>,
    /// Read by every part's switches and hosts; one copy whatever the threads.
    routes: Arc<Routes>,
    /// The hosts' TCP stacks, their ports' MTUs and the nodes' names, read when a connection
    /// opens.
    tcp_hosts: Arc<TcpHosts>,
}

impl Shared {
    /// Check the inputs and build the shared tables of a run of which `copies` parts will each
    /// build their own state (`RunEstimate::copies`). A fabric whose nodes and ports alone pass
    /// the limit is refused before the spec is validated or anything of the run is built; the
    /// whole run is estimated and refused before its routing tables are made.
    pub(super) fn prepare(
        spec: &NetworkSpec,
        traffic: &Traffic,
        config: &SimConfig,
        copies: usize,
    ) -> Result<Shared, SimError> {
        Shared::prepare_cut(spec, traffic, config, copies, None)
    }

    /// [`Shared::prepare`] for the parts of `part_of` (each node's part), which hold their
    /// own hosts' flows only: the estimate counts the most flows a part holds.
    pub(super) fn prepare_cut(
        spec: &NetworkSpec,
        traffic: &Traffic,
        config: &SimConfig,
        copies: usize,
        part_of: Option<&[u32]>,
    ) -> Result<Shared, SimError> {
        let ports: usize = (0..spec.nodes.len()).map(|n| spec.port_count(n)).sum();
        super::estimate::check_least(spec.nodes.len(), ports)?;
        spec.validate()?;
        traffic.validate(spec)?;
        check_config(spec, config)?;

        let n = spec.nodes.len();
        let first_port = spec.first_ports();
        let total = first_port[n];
        let gid = |node: usize, port: usize| first_port[node] + port as u32;
        let mut link_of: Vec<Option<(u32, LinkRate, Time)>> = vec![None; total as usize];
        for l in &spec.links {
            let (a, b) = (gid(l.a.node, l.a.port), gid(l.b.node, l.b.port));
            let rate = LinkRate::new(l.rate_bps).with_framing(spec.wire.overhead_bytes, spec.wire.serialization);
            link_of[a as usize] = Some((b, rate, l.delay_ps));
            link_of[b as usize] = Some((a, rate, l.delay_ps));
        }
        let link_of: Vec<(u32, LinkRate, Time)> =
            link_of.into_iter().map(|l| l.expect("validated: every port linked")).collect();
        let mut port_node = vec![0u32; total as usize];
        for node in 0..n {
            for g in first_port[node]..first_port[node + 1] {
                port_node[g as usize] = node as u32;
            }
        }
        let node_latency: Vec<Time> = spec
            .nodes
            .iter()
            .map(|nd| match &nd.kind {
                NodeKind::Host(h) => h.latency_ps,
                NodeKind::Switch(s) => s.latency_ps,
            })
            .collect();

        // The standby ports of an active-backup bond carry nothing: routing does not see them.
        let port_ref = |g: u32| PortRef {
            node: port_node[g as usize] as usize,
            port: (g - first_port[port_node[g as usize] as usize]) as usize,
        };
        let adjacency: Vec<Vec<(u32, u32)>> = (0..n)
            .map(|node| {
                (first_port[node]..first_port[node + 1])
                    .filter(|&g| spec.routes_over(port_ref(g), port_ref(link_of[g as usize].0)))
                    .map(|g| (g, port_node[link_of[g as usize].0 as usize]))
                    .collect()
            })
            .collect();
        let is_host: Vec<bool> = (0..n).map(|i| spec.is_host(i)).collect();
        let addressed_ports: Vec<bool> =
            spec.nodes.iter().map(|nd| matches!(&nd.kind, NodeKind::Host(h) if h.bond.is_none())).collect();
        let peer_port: Vec<u32> = link_of.iter().map(|l| l.0).collect();
        let topology = Topology {
            adjacency: &adjacency,
            is_host: &is_host,
            addressed_ports: &addressed_ports,
            peer_port: &peer_port,
            first_port: &first_port[..n],
            hpcc_order: spec.ecmp == Ecmp::Hpcc,
        };
        // The whole run is estimated and refused before its routing tables, flows and queue
        // pairs are made.
        super::estimate::of_run(spec, traffic, config, &topology, total as usize, part_of)
            .copies(copies)
            .check(super::estimate::run_limit(), crate::memory::room_bytes())?;
        let routes = Arc::new(Routes::compute(&topology));
        let mut tcp_hosts = TcpHosts { mtu: vec![0; total as usize], ..Default::default() };
        for (node, nd) in spec.nodes.iter().enumerate() {
            tcp_hosts.names.push(nd.name.clone());
            match &nd.kind {
                NodeKind::Host(h) => {
                    tcp_hosts.stack.push(h.tcp);
                    for (local, hp) in h.ports.iter().enumerate() {
                        tcp_hosts.mtu[gid(node, local) as usize] = hp.mtu;
                    }
                }
                NodeKind::Switch(_) => tcp_hosts.stack.push(Default::default()),
            }
        }
        let tcp_hosts = Arc::new(tcp_hosts);
        Ok(Shared { first_port, link_of, port_node, node_latency, routes, tcp_hosts })
    }
}

fn build<'o, O: Observer>(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    observer: &'o mut O,
    shared: &Shared,
    part: Option<(&[u32], u32)>,
) -> Result<Sim<'o, O>, SimError> {
    let Shared { first_port, link_of, port_node, node_latency, .. } = shared;
    let total = *first_port.last().unwrap_or(&0);
    let gid = |node: usize, port: usize| first_port[node] + port as u32;

    let mut ports = crate::slots::vec_on_huge_pages(total as usize);
    // Whether each port takes part in 802.3x link pause, for its cold state (`PortCold`).
    let mut link_pause_on: Vec<bool> = Vec::with_capacity(total as usize);
    let mut ecn_specs = Vec::new();
    let mut switches = Vec::new();
    let mut nics = Vec::new();
    // A part holds the buffer (MMU slots, egress-lossy queues) of its own switches only: a frame
    // is buffered by the part of its switch (21 MB for all switches on the k = 32 fat tree).
    let owns = |node: usize| part.is_none_or(|(part_of, me)| part_of[node] == me);
    for (node, nd) in spec.nodes.iter().enumerate() {
        match &nd.kind {
            NodeKind::Host(h) => {
                for (local, hp) in h.ports.iter().enumerate() {
                    let g = gid(node, local) as usize;
                    let (peer, rate, delay) = link_of[g];
                    let p = new_port(
                        node as u32,
                        local as u32,
                        nics.len() as u32,
                        true,
                        (peer, rate, delay, node_latency[port_node[peer as usize] as usize]),
                        hp.pfc,
                        &[Tsa::Ets(1); 8],
                    );
                    link_pause_on.push(hp.link_pause);
                    ports.push(p);
                    let rx = &h.rx;
                    nics.push(NicRt {
                        ready: Default::default(),
                        pacing: Default::default(),
                        ctrl: Ring::new(),
                        wake_at: Time::MAX,
                        rx: RxBuffer::new(rx.drain_bps, rx.capacity_bytes, rx.xoff_bytes, rx.xon_bytes),
                        rx_gen: 0,
                        rx_drops: 0,
                        ns3_qps: (h.nic.arbiter == crate::spec::NicArbiter::Ns3).then(|| Box::new((Vec::new(), 0))),
                    });
                }
            }
            NodeKind::Switch(s) => {
                let mut cfg = Vec::with_capacity(if owns(node) { s.ports.len() * 8 } else { 0 });
                for (local, sp) in s.ports.iter().enumerate() {
                    let g = gid(node, local) as usize;
                    let (peer, rate, delay) = link_of[g];
                    let mut tsa = [Tsa::Ets(1); 8];
                    for (tc, t) in sp.tcs.iter().enumerate() {
                        tsa[tc] = t.tsa;
                    }
                    let mut p = new_port(
                        node as u32,
                        local as u32,
                        switches.len() as u32,
                        false,
                        (peer, rate, delay, node_latency[port_node[peer as usize] as usize]),
                        sp.pfc,
                        &tsa,
                    );
                    link_pause_on.push(sp.link_pause);
                    for (tc, t) in sp.tcs.iter().enumerate() {
                        if let Some(e) = t.ecn {
                            p.egress_queues[tc].ecn = ecn_index(&mut ecn_specs, e);
                            p.ecn_enabled |= 1 << tc;
                        }
                    }
                    ports.push(p);
                    for pg in sp.pgs.iter().filter(|_| owns(node)) {
                        cfg.push(PgConfig {
                            lossless: pg.lossless,
                            reserved: pg.reserved_bytes,
                            headroom: pg.headroom_bytes,
                            threshold: pg.threshold,
                            xon_offset: pg.xon_offset_bytes,
                        });
                    }
                }
                let mut sw = SwitchRt::new(
                    node as u32,
                    gid(node, 0),
                    Mmu::new(cfg, s.shared_pool_bytes(), s.buffer.alpha),
                    s.qos,
                    mix64(s.ecmp_seed ^ (node as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)),
                    s.buffer.cell_bytes,
                );
                let buffered_ports = if owns(node) { s.ports.len() } else { 0 };
                sw.egress_lossy = s
                    .buffer
                    .egress_lossy
                    .map(|e| EgressLossy::new(buffered_ports, e.pool_bytes, e.reserved_bytes, e.alpha));
                sw.ecn_at_dequeue = s.ecn_marking == EcnMarking::Dequeue;
                sw.control_in_buffer = s.control_in_buffer;
                sw.hpcc_ecmp = spec.ecmp == Ecmp::Hpcc;
                sw.mmu_ns3 = s.admission == crate::mmu::Admission::Ns3;
                sw.quirks = sw.ecn_at_dequeue
                    || !sw.control_in_buffer
                    || sw.hpcc_ecmp
                    || sw.mmu_ns3
                    || matches!(config.ecn_draws, super::EcnDraws::Ns3 { .. });
                switches.push(sw);
            }
        }
    }

    // Each switch's arrival settings, shared by the switches with equal ones (`Ingress`).
    let mut ingress = Vec::new();
    let mut switch_ingress = Vec::with_capacity(switches.len());
    for sw in &switches {
        let Some(i) = Ingress::index_in(&mut ingress, Ingress::of(sw)) else {
            return Err(SimError::spec(
                "fabric.qos",
                format!("more than {} distinct switch QoS settings; give switches shared QoS profiles", u16::MAX),
            ));
        };
        switch_ingress.push(i);
    }
    // Each port's copy of its peer's identity (see `PortRt::peer_owner`) and of its switch's
    // `quirks`.
    for g in 0..ports.len() {
        let q = &ports[ports[g].peer as usize];
        let (owner, local, is_host) = (q.owner, q.local, q.is_host);
        let p = &mut ports[g];
        (p.peer_owner, p.peer_local, p.peer_is_host) = (owner, local, is_host);
        if !is_host {
            p.peer_ingress = switch_ingress[owner as usize];
        }
        if !p.is_host {
            p.quirks = switches[p.owner as usize].quirks;
        }
    }

    let routes = Arc::clone(&shared.routes);
    // An arrival looks its route up by its switch's index (`Routes::switch_next_hops`): both
    // number the switches in node order.
    debug_assert!(switches.iter().enumerate().all(|(i, sw)| routes.switch_row(sw.node) == Some(i as u32)));

    let mut queue = fresh_queue(config);
    // The traffic's flows, then the flows of each perftest test: named, not copied (every
    // thread of a run on several builds this list, and a copy of each flow's spec in each was
    // 168 bytes a flow a thread).
    let test_flows: Vec<Vec<FlowSpec>> = traffic.perftest.iter().map(|p| p.flows()).collect();
    let Flows { specs, flows, qps, tests, flow_qp } =
        build_flows(spec, traffic, config, (&routes, &ports), part, &test_flows, &mut queue)?;
    let storage = crate::sim::storage::build::build_storage(
        &traffic.storage,
        spec,
        &flow_qp,
        config.seed,
        config.end_time_ps,
        &mut queue,
    );

    // A part samples its own switches' ports only (the merge puts the parts' samples together
    // in port order): every part sampling every port held the samples of the whole fabric once a
    // thread, and spent each sample's time on them.
    let samples = config.sampling.queue_interval_ps.map(|interval| {
        let own = |p: &PortRt| part.is_none_or(|(part_of, me)| part_of[p.node as usize] == me);
        let sp: Vec<usize> = (0..ports.len()).filter(|&p| !ports[p].is_host && own(&ports[p])).collect();
        let cap = (config.sampling.max_samples_per_port.max(2) as usize + 1) & !1;
        let expected = ((config.end_time_ps / interval + 1) as usize).min(cap);
        SampleState {
            interval,
            depth: sp.iter().map(|_| Vec::with_capacity(expected)).collect(),
            ports: sp,
            cap,
            kept: 0,
        }
    });
    if samples.is_some() {
        queue.push(0, Event::Sample);
    }

    // A part keeps the cold state and the PFC timers of its own ports only (47 MB and 31 MB
    // for all on the k = 32 fat tree).
    let port_place: Vec<u32> = match part {
        None => Vec::new(),
        Some((part_of, me)) => {
            let mut own = 0u32;
            let mut place = |p: &PortRt| match part_of[p.node as usize] == me {
                true => (own, own += 1).0,
                false => u32::MAX,
            };
            ports.iter().map(&mut place).collect()
        }
    };
    let cold = |g: usize| {
        let mut c = PortCold::default();
        c.link_pause.enabled = link_pause_on[g];
        c
    };
    // Sized for the ports it holds at once (collected from a filter, a vector doubles its way
    // there: up to twice the bytes). The ECN draws of each port's egress queues, one stream a
    // port from its global index, are held like its cold state (a part marks at its own
    // switches' ports only).
    let n_ports = ports.len();
    let held = |g: &usize| port_place.get(*g).is_none_or(|&p| p != u32::MAX);
    let n_held = (0..n_ports).filter(held).count();
    let mut port_cold: Vec<PortCold> = Vec::with_capacity(n_held);
    port_cold.extend((0..n_ports).filter(held).map(cold));
    let mut ecn_rng = Vec::with_capacity(n_held);
    ecn_rng.extend((0..n_ports).filter(held).map(|g| Rng::stream(config.seed, g as u64)));
    let pfc_timers = vec![Default::default(); n_held];
    let mut sim = Sim {
        now: 0,
        end: config.end_time_ps,
        seed: config.seed,
        queue,
        pool: PacketPool::new(),
        ports,
        port_cold,
        pfc_timers,
        port_place,
        switches,
        nics,
        flows,
        qps,
        transit_drops: Default::default(),
        tests,
        tcp: Vec::new(),
        tcp_seg: Vec::new(),
        tcp_hosts: Arc::clone(&shared.tcp_hosts),
        storage,
        routes,
        ecn_rng,
        ns3: match config.ecn_draws {
            super::EcnDraws::Rocelab => None,
            super::EcnDraws::Ns3 { first_stream, run } => Some(crate::rng::ns3::Ns3Streams::new(first_stream, run)),
        },
        obs: observer,
        conservation: Conservation::default(),
        events: 0,
        samples,
        wire: WireRt {
            header: spec.wire.header_bytes,
            ack: spec.wire.ack_frame_bytes,
            pfc_frame: spec.wire.pfc_frame_bytes,
        },
        open_flows: stop_when_done_flows(traffic, config),
        part: None,
        deep_look_ahead: n_ports >= super::DEEP_LOOK_AHEAD_PORTS,
        egress_ahead: Default::default(),
        #[cfg(test)]
        egress_ahead_taken: Default::default(),
        tc_ahead: Default::default(),
        ecn_specs,
        ingress,
    };
    // TCP and iWARP flows: a connection each, opened as the storage protocols open theirs.
    for (i, (f, owner)) in specs.iter().enumerate() {
        if f.over_tcp() {
            sim.attach_flow_conn(i as u32, f).map_err(|m| SimError::traffic(owner.path(), m))?;
        }
    }
    // Storage sessions over TCP or iWARP: a connection each, after the flows' (whose
    // connection indices stay as they were).
    sim.open_storage_conns(&traffic.storage)?;
    Ok(sim)
}

/// The `flow_hash` of the packets of flow `f` from its source: the 5-tuple hash, or under
/// [`Ecmp::Hpcc`] the ns-3 HPCC simulator's port word (see `SwitchNode::GetOutDev`).
pub(super) fn flow_hash(ecmp: Ecmp, f: &FlowSpec) -> u64 {
    match ecmp {
        Ecmp::Rocelab => five_tuple_hash(
            node_ipv4(f.src as u32),
            node_ipv4(f.dst as u32),
            wire::IPPROTO_UDP,
            f.udp_src_port,
            wire::ROCEV2_UDP_PORT,
        ),
        Ecmp::Hpcc => crate::routing::hpcc_port_word(f.udp_src_port, f.hpcc_dport.unwrap_or(wire::ROCEV2_UDP_PORT)),
    }
}

/// The flows a run that stops when its flows are done waits for ([`SimConfig::stop_when_done`]):
/// every flow, when all of them are sized and nothing else runs; else `u64::MAX` (never done).
fn stop_when_done_flows(traffic: &Traffic, config: &SimConfig) -> u64 {
    let only_sized_flows = traffic.flows.iter().all(|f| f.size_bytes.is_some())
        && traffic.perftest.is_empty()
        && traffic.iperf.is_empty()
        && traffic.storage.is_empty();
    if config.stop_when_done && only_sized_flows && !traffic.flows.is_empty() {
        traffic.flows.len() as u64
    } else {
        u64::MAX
    }
}

/// The index of `e` in `specs`, added if it is not there yet: the egress queues name their
/// RED/ECN parameters by index ([`super::port::TcQueue`]), and a fabric has a few distinct ones,
/// so the search is short and the table stays in the first-level cache.
fn ecn_index(specs: &mut Vec<crate::ecn::EcnSpec>, e: crate::ecn::EcnSpec) -> u32 {
    match specs.iter().position(|s| *s == e) {
        Some(i) => i as u32,
        None => {
            specs.push(e);
            (specs.len() - 1) as u32
        }
    }
}

fn new_port(
    node: u32,
    local: u32,
    owner: u32,
    is_host: bool,
    (peer, rate, prop, peer_latency): (u32, LinkRate, Time, Time),
    pfc: PfcPortSpec,
    tsa: &[Tsa; 8],
) -> PortRt {
    PortRt {
        node,
        local,
        owner,
        is_host,
        peer,
        peer_owner: 0,
        peer_local: 0,
        peer_is_host: false,
        quirks: false,
        peer_ingress: 0,
        rate,
        prop,
        arrival_delay: prop + peer_latency,
        busy: false,
        tx_end: 0,
        tx_event: false,
        paused: 0,
        ecn_enabled: 0,
        pfc_enabled: pfc.enabled,
        last_tx_priority: 0,
        pfc_quanta: pfc.quanta,
        pfc_until_resume: pfc.until_resume,
        pause_time: pause_duration(pfc.quanta, rate.bps()),
        pfc_pending: false,
        pfc_pending_enable: 0,
        pfc_pending_xoff: 0,
        egress_queues: Default::default(),
        backlog: 0,
        total_queue_bytes: 0,
        sched: Scheduler::new(tsa, MAX_FRAME_BYTES),
    }
}
