//! Building the storage runtime from [`StorageTraffic`], and collecting its results.

use crate::event::{Event, EventQueue};
use crate::observer::Observer;
use crate::rng::mix64;
use crate::routing::Routes;
use crate::sim::rdma::build::reaching;
use crate::sim::rdma::NO_QP;
use crate::sim::storage::{CloneRt, CpuRt, IoPlan, JobRt, SessionRt, StorageRt, TargetRt, NONE};
use crate::sim::{PortRt, Sim};
use crate::spec::NetworkSpec;
use crate::storage::cpu::{cpu_effectiveness, CpuResults};
use crate::storage::job::{IoOp, JobEngine, JobResults};
use crate::storage::plan::{role_requester, StorageTraffic, ROLES};
use crate::storage::protocol::smb::SmbdCredits;
use crate::storage::protocol::Protocol;
use crate::storage::results::{HostCpuResults, StorageJobResults, TargetResults};
use crate::storage::target::Target;
use crate::time::Time;
use std::collections::VecDeque;

/// FNV-1a 64 of a name.
pub(crate) fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The ports of a storage session's queue pair in `role` at its requester and responder: at
/// each end, the session's path among the ports that lead to the other end (a host's
/// sessions take its ports in turn, a target's sessions its ports). The target's port is one the
/// initiator's port reaches, so that every queue pair and connection of the session runs
/// between the same two ports.
pub(in crate::sim) fn session_ports(
    st: &StorageTraffic,
    session: u32,
    role: u8,
    routes: &Routes,
    ports: &[PortRt],
) -> Option<(u32, u32)> {
    let s = &st.sessions[session as usize];
    let (initiator, target) = session_port_pair(st, session, routes, ports)?;
    let (req, _) = role_requester(role as usize, s.initiator, s.target);
    Some(if req == s.initiator { (initiator, target) } else { (target, initiator) })
}

/// The (initiator, target) ports of storage session `session` (see [`session_ports`]).
pub(in crate::sim) fn session_port_pair(
    st: &StorageTraffic,
    session: u32,
    routes: &Routes,
    ports: &[PortRt],
) -> Option<(u32, u32)> {
    let s = &st.sessions[session as usize];
    let hops = routes.next_hops(s.initiator as u32, s.target as u32);
    let initiator = *hops.get(s.initiator_path as usize % hops.len().max(1))?;
    let hops = reaching(routes, ports, initiator, s.target, &routes.next_hops(s.target as u32, s.initiator as u32));
    let target = *hops.get(s.target_path as usize % hops.len().max(1))?;
    Some((initiator, target))
}

/// The storage runtime of `st` over the engine's flows (`flow_qp`: each one's queue pair), with
/// the clones' start events pushed into `queue`.
pub(in crate::sim) fn build_storage(
    st: &StorageTraffic,
    spec: &NetworkSpec,
    flow_qp: &[u32],
    seed: u64,
    end: Time,
    queue: &mut EventQueue,
) -> StorageRt {
    let mut rt = StorageRt::default();
    if st.is_empty() {
        return rt;
    }
    // A device's draws are seeded by its name, so that the same device in two topologies sees
    // the same service times (common random numbers: differences are the network's).
    for (node, profile) in &st.targets {
        let s = mix64(seed ^ 0x5441_5247_4554_0000 ^ name_hash(&spec.nodes[*node].name));
        rt.targets.push(TargetRt { node: *node as u32, target: Target::new(profile.clone(), s) });
    }
    // Each host's measured windows: the union of those of the jobs it takes part in, then
    // each job's (`job_window`).
    let n = spec.nodes.len();
    let mut windows: Vec<Vec<(Time, Time)>> = vec![Vec::new(); n];
    for j in &st.jobs {
        let from = j.start_ps + j.spec.ramp;
        let to = from + j.spec.runtime;
        for node in [j.initiator, j.target] {
            let w = &mut windows[node];
            match w.first_mut() {
                Some(u) => *u = (u.0.min(from), u.1.max(to)),
                None => w.push((from, to)),
            }
        }
    }
    for j in &st.jobs {
        let from = j.start_ps + j.spec.ramp;
        rt.job_window.push(windows[j.initiator].len() as u32);
        windows[j.initiator].push((from, from + j.spec.runtime));
    }
    rt.cpu_of = vec![NONE; n];
    for (node, w) in windows.into_iter().enumerate() {
        if !w.is_empty() {
            rt.cpu_of[node] = rt.cpus.len() as u32;
            rt.cpus.push(CpuRt::new(st.cores_of(node), w));
            rt.cpu_node.push(node as u32);
        }
    }
    for s in &st.sessions {
        let mut qp = [NO_QP; ROLES];
        for (role, f) in s.qps.iter().enumerate() {
            if let Some(f) = f {
                qp[role] = flow_qp[*f];
            }
        }
        // SMB Direct: the credits the negotiation granted (SendCreditTarget), each way.
        let credits = st.jobs.iter().find_map(|j| match &j.protocol {
            Protocol::SmbDirect(p) if j.initiator == s.initiator && j.target == s.target => {
                Some(SmbdCredits::new(p.credits, p.credits))
            }
            _ => None,
        });
        rt.sessions.push(SessionRt {
            transport: s.transport,
            conn: crate::sim::tcp::NO_CONN,
            qp,
            fifo: [VecDeque::new(), VecDeque::new()],
            initiator: s.initiator as u32,
            target: s.target as u32,
            initiator_core: s.initiator_core,
            target_core: s.target_core,
            spread: s.transport != crate::storage::plan::StorageTransport::Tcp,
            credits: [credits, credits],
            waiting: [VecDeque::new(), VecDeque::new()],
            iscsi_sn: [1, 1],
            reads: Default::default(),
        });
    }
    for (ji, j) in st.jobs.iter().enumerate() {
        let target = rt.targets.iter().position(|t| t.node as usize == j.target).expect("validated") as u32;
        let plans = [IoPlan::new(j, IoOp::Read), IoPlan::new(j, IoOp::Write)];
        for (k, &session) in j.sessions.iter().enumerate() {
            let clone = rt.clones.len() as u32;
            let engine = JobEngine::new(&j.spec, k as u32, j.start_ps);
            // Its IO slots, the lowest on top.
            let base = rt.clones.iter().map(|c| c.slots.len() as u32).sum::<u32>();
            let slots = (base..base + j.spec.iodepth).rev().collect();
            rt.clones.push(CloneRt { engine, job: ji as u32, session, slots });
            if j.start_ps <= end {
                queue.push(j.start_ps, Event::CloneStart { clone });
            }
        }
        rt.jobs.push(JobRt { job: j.clone(), plans, target });
    }
    rt
}

impl<O: Observer> Sim<'_, O> {
    /// Results of the jobs, the hosts' CPUs and the targets.
    pub(in crate::sim) fn storage_results(
        &self,
        spec: &NetworkSpec,
    ) -> (Vec<StorageJobResults>, Vec<HostCpuResults>, Vec<TargetResults>) {
        let st = &self.storage;
        let name = |n: u32| spec.nodes[n as usize].name.clone();
        let mut per_job: Vec<Vec<JobEngine>> = vec![Vec::new(); st.jobs.len()];
        for c in &st.clones {
            per_job[c.job as usize].push(c.engine.clone());
        }
        let fio: Vec<JobResults> =
            st.jobs.iter().zip(&per_job).map(|(j, clones)| JobResults::from_clones(&j.job.spec, clones)).collect();
        let bytes_of = |r: &JobResults| r.read.io_bytes + r.write.io_bytes;
        let cpu: Vec<HostCpuResults> = st
            .cpus
            .iter()
            .zip(&st.cpu_node)
            .map(|(c, &node)| {
                let bytes: u64 = st
                    .jobs
                    .iter()
                    .zip(&fio)
                    .filter(|(j, _)| j.job.initiator as u32 == node || j.job.target as u32 == node)
                    .map(|(_, r)| bytes_of(r))
                    .sum();
                let w = c.windows[0];
                HostCpuResults {
                    node: node as usize,
                    name: name(node),
                    window_from_ps: w.0,
                    window_to_ps: w.1,
                    bytes,
                    cpu: cpu_results(c, 0, bytes),
                }
            })
            .collect();
        let jobs = st
            .jobs
            .iter()
            .zip(&fio)
            .enumerate()
            .map(|(i, (j, r))| {
                let spec = &j.job.spec;
                let c = &st.cpus[st.cpu_of[j.job.initiator] as usize];
                let initiator_cpu = cpu_results(c, st.job_window[i] as usize, bytes_of(r));
                let mut sessions = j.job.sessions.clone();
                sessions.sort_unstable();
                sessions.dedup();
                StorageJobResults {
                    job: i,
                    name: spec.name.clone(),
                    initiator: j.job.initiator,
                    target: j.job.target,
                    protocol: j.job.protocol.kind(),
                    rw: spec.rw,
                    bs: spec.bs,
                    iodepth: spec.iodepth,
                    numjobs: spec.numjobs,
                    start_ps: j.job.start_ps,
                    ramp_ps: spec.ramp,
                    runtime_ps: spec.runtime,
                    sessions: sessions.len() as u32,
                    read: r.read.clone(),
                    write: r.write.clone(),
                    initiator_cpu,
                }
            })
            .collect();
        let targets = st
            .targets
            .iter()
            .map(|t| {
                let s = t.target.stats();
                TargetResults {
                    node: t.node as usize,
                    name: name(t.node),
                    profile: t.target.profile().name.to_string(),
                    completed: s.completed,
                    peak_queue: s.peak_queue as u64,
                }
            })
            .collect();
        (jobs, cpu, targets)
    }
}

/// Utilisation and busiest core of `c` over its window `w`, and the effectiveness of `bytes`
/// moved in it.
fn cpu_results(c: &CpuRt, w: usize, bytes: u64) -> CpuResults {
    let elapsed = c.windows[w].1 - c.windows[w].0;
    let busy = &c.busy[w];
    let cores = busy.len().max(1);
    let total: Time = busy.iter().sum();
    let busiest = busy.iter().copied().max().unwrap_or(0);
    let (utilization, busiest_core) = if elapsed == 0 {
        (0.0, 0.0)
    } else {
        ((total as f64 / (elapsed as f64 * cores as f64)).min(1.0), (busiest as f64 / elapsed as f64).min(1.0))
    };
    CpuResults {
        cores: cores as u32,
        utilization,
        busiest_core,
        effectiveness: cpu_effectiveness(bytes, elapsed, utilization),
    }
}

#[cfg(test)]
mod tests {
    use crate::storage::cpu::{default_costs, CpuCost, ProtocolCosts};
    use crate::storage::job::{JobSpec, RwMode};
    use crate::storage::plan::{JobRequest, StorageJob, StorageTraffic, StorageTransport};
    use crate::storage::protocol::{Protocol, ProtocolKind};
    use crate::storage::target::TargetProfile;
    use crate::topology::{single_switch, FabricDefaults};
    use crate::traffic::{FlowClass, Traffic};
    use crate::{run, Results, SimConfig, MS, NS, US};

    /// A device that takes `lat` per IO, `concurrency` at once, with an optional ceiling.
    fn device(lat: u64, concurrency: u32, ceiling_bps: Option<u64>) -> TargetProfile {
        TargetProfile::fixed(lat, concurrency, ceiling_bps)
    }

    fn free() -> ProtocolCosts {
        let c = CpuCost { per_io: 0, tx_per_byte_ps: 0.0, rx_per_byte_ps: 0.0 };
        ProtocolCosts { initiator: c, target: c }
    }

    /// Host 1 runs `spec` against host 0 over `protocol` on one 100G switch (100 ns cables,
    /// ideal NICs), lossless priority 3.
    fn run_job(spec: JobSpec, protocol: Protocol, costs: ProtocolCosts, dev: TargetProfile, end: u64) -> Results {
        let sessions = spec.numjobs;
        run_on(spec, protocol, costs, dev, end, sessions)
    }

    fn run_on(
        spec: JobSpec,
        protocol: Protocol,
        costs: ProtocolCosts,
        dev: TargetProfile,
        end: u64,
        max_sessions: u32,
    ) -> Results {
        let transport = StorageJob::new(spec.clone(), 0, 0, protocol).transport;
        run_over(spec, protocol, transport, costs, dev, end, max_sessions)
    }

    fn run_over(
        spec: JobSpec,
        protocol: Protocol,
        transport: StorageTransport,
        costs: ProtocolCosts,
        dev: TargetProfile,
        end: u64,
        max_sessions: u32,
    ) -> Results {
        let fabric = single_switch(2, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 100_000));
        let mut t = Traffic::new();
        let mut st = StorageTraffic::default();
        st.set_target(fabric.hosts[0], dev);
        let job = StorageJob { costs, transport, ..StorageJob::new(spec, fabric.hosts[1], fabric.hosts[0], protocol) };
        st.add_job(&mut t.flows, JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions });
        t.storage = st;
        let r = run(&fabric.spec, &t, &SimConfig::new(1, end)).unwrap();
        r.check_conservation().unwrap();
        r
    }

    #[test]
    fn a_qd1_read_takes_the_exchange_plus_the_device() {
        let spec = JobSpec::new("r", RwMode::RandRead, 4096, 1, MS);
        let r = run_job(spec, Protocol::default_for(ProtocolKind::NvmeRdma), free(), device(20 * US, 1, None), 2 * MS);
        let j = &r.jobs[0];
        assert_eq!(j.write.total_ios, 0);
        // Command SEND (64 B), 20 µs of service, data WRITE (4 KiB) and response SEND behind
        // it: two hops each way at 100G, 100 ns cables: about 21 µs.
        let lat = j.read.clat_ns.mean_ns;
        assert!((20_500.0..21_500.0).contains(&lat), "{lat} ns");
        // Closed loop at QD 1: IOPS = 1 / latency.
        let iops = 1e9 / lat;
        assert!((j.read.iops - iops).abs() / iops < 0.01, "{} vs {iops}", j.read.iops);
        // Issued for the 1 ms runtime (the last completes after it).
        let n = r.targets[0].completed as f64;
        assert!((n - MS as f64 / (lat * 1000.0)).abs() <= 1.0, "{n}");
        // Three queue pairs: commands, data and responses; no READ for reads of 4 KiB.
        assert_eq!(r.flows.len(), 2, "{:?}", r.flows.iter().map(|f| f.rdma.as_ref().map(|q| q.op)).collect::<Vec<_>>());
    }

    #[test]
    fn writes_are_pulled_by_rdma_read_and_depth_hides_latency() {
        let mut spec = JobSpec::new("w", RwMode::Write, 131_072, 8, MS);
        spec.numjobs = 2;
        spec.ramp = 200 * US;
        let r = run_job(spec, Protocol::default_for(ProtocolKind::NvmeRdma), free(), device(50 * US, 64, None), 2 * MS);
        let j = &r.jobs[0];
        assert_eq!((j.read.total_ios, j.sessions), (0, 2));
        assert!(r.flows.iter().any(|f| f.rdma.as_ref().is_some_and(|q| q.op == crate::RdmaOp::Read)));
        // 16 IOs of 128 KiB in flight: the 100G link (97.9 Gb/s of READ-response payload) is the
        // limit; the count of IOs completing in the 1 ms window is good to one IO (1.3 %).
        let gbps = j.write.bw_bytes * 8.0 / 1e9;
        assert!((95.0..99.2).contains(&gbps), "{gbps} Gb/s");
        // Little's law: 16 outstanding.
        let little = 16.0 / (j.write.iops / 1e9);
        assert!((j.write.clat_ns.mean_ns / little - 1.0).abs() < 0.03, "{} vs {little}", j.write.clat_ns.mean_ns);
    }

    #[test]
    fn a_throughput_ceiling_caps_the_job() {
        let mut spec = JobSpec::new("r", RwMode::Read, 131_072, 16, MS);
        spec.numjobs = 4;
        let dev = device(10 * US, 256, Some(40_000_000_000));
        let r = run_job(spec, Protocol::default_for(ProtocolKind::NvmeRdma), free(), dev, 2 * MS);
        let gbps = r.jobs[0].read.bw_bytes * 8.0 / 1e9;
        // The device's 40 Gb/s, less the filling and draining of the pipe at the window's ends.
        assert!((38.0..40.01).contains(&gbps), "{gbps}");
    }

    #[test]
    fn rdma_spreads_its_cpu_work_over_the_cores() {
        // One iSER session at 50 µs of initiator work per IO. Over RDMA the work goes to the
        // first free core, so the session is not held to one core's 20,000 IOPS: eight IOs
        // outstanding, each about 50 µs of CPU, the device's 10 µs and the wire.
        let costs = ProtocolCosts {
            initiator: CpuCost { per_io: 50 * US, tx_per_byte_ps: 0.0, rx_per_byte_ps: 0.0 },
            ..free()
        };
        let mut spec = JobSpec::new("r", RwMode::RandRead, 4096, 4, 2 * MS);
        spec.numjobs = 2;
        spec.ramp = MS;
        let r = run_on(spec, Protocol::default_for(ProtocolKind::Iser), costs, device(10 * US, 256, None), 4 * MS, 1);
        let j = &r.jobs[0];
        assert!(j.read.iops > 100_000.0, "{}", j.read.iops);
        let cpu = &r.cpu.iter().find(|c| c.node == 1).unwrap().cpu;
        // Utilisation is the work done: IOPS × 50 µs over 16 cores.
        let want = j.read.iops * 50e-6 / 16.0;
        assert!((cpu.utilization - want).abs() < 0.02, "{cpu:?} vs {want}");
        assert!(cpu.busiest_core < 0.9, "{cpu:?}");
        assert!(r.jobs[0].initiator_cpu.effectiveness > 0.0);
    }

    #[test]
    fn smb_direct_sends_wait_for_credits() {
        // Below the RDMA threshold a 4 KiB write is four SENDs; with one credit each way the
        // sender waits for the peer to consume each message, and IOs still complete.
        use crate::storage::protocol::smb::SmbDirect;
        let one = SmbDirect { rdma_threshold: 8192, credits: 1, ..Default::default() };
        let spec = JobSpec::new("w", RwMode::RandWrite, 4096, 4, MS);
        let r = run_job(spec.clone(), Protocol::SmbDirect(one), free(), device(5 * US, 64, None), MS);
        let many = SmbDirect { credits: 255, ..one };
        let r255 = run_job(spec, Protocol::SmbDirect(many), free(), device(5 * US, 64, None), MS);
        let (few, lots) = (r.jobs[0].write.iops, r255.jobs[0].write.iops);
        assert!(few > 10_000.0, "{few}");
        assert!(few < lots * 0.9, "one credit holds the writes back: {few} vs {lots}");
    }

    #[test]
    fn a_local_job_uses_the_device_and_no_network() {
        let fabric = single_switch(2, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 100_000));
        let mut t = Traffic::new();
        t.storage.set_target(fabric.hosts[0], device(30 * US, 4, None));
        let mut spec = JobSpec::new("local", RwMode::RandRead, 4096, 2, MS);
        spec.numjobs = 2;
        let job =
            StorageJob::new(spec, fabric.hosts[0], fabric.hosts[0], Protocol::default_for(ProtocolKind::SmbDirect));
        t.storage
            .add_job(&mut t.flows, JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions: 2 });
        assert!(t.flows.is_empty(), "no queue pair");
        let r = run(&fabric.spec, &t, &SimConfig::new(1, MS)).unwrap();
        // Four IOs at once on a device of concurrency 4 and 30 µs: 133,333 IOPS
        let j = &r.jobs[0];
        // (completions at 30, 60 … 990 µs fall in the 1 ms window: 33 rounds of 4.)
        assert_eq!(j.read.total_ios, 132);
        assert_eq!(j.read.clat_ns.max_ns, 30_000);
        assert!(r.ports.iter().all(|p| p.total(|c| c.tx_packets) == 0));
    }

    #[test]
    fn a_local_session_over_tcp_or_iwarp_opens_no_connection() {
        // A hyperconverged node reading its own copy (the S2D example's local VMs) while
        // another reads it over the network: over iWARP and over TCP, the local job's session
        // opens no TCP connection (there is no path from a host to itself: the run used to
        // fail with "no path from node1 to node1"), the remote one opens its one.
        use StorageTransport::{Iwarp, Tcp};
        for (kind, transport) in [(ProtocolKind::SmbDirect, Iwarp), (ProtocolKind::Iscsi, Tcp)] {
            let fabric = single_switch(2, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 100_000));
            let (node, other) = (fabric.hosts[0], fabric.hosts[1]);
            let mut t = Traffic::new();
            t.storage.set_target(node, device(30 * US, 4, None));
            for (name, initiator) in [("local", node), ("remote", other)] {
                let spec = JobSpec::new(name, RwMode::RandRead, 4096, 1, MS);
                let p = crate::storage::protocol::negotiated(kind);
                let job = StorageJob { transport, ..StorageJob::new(spec, initiator, node, p) };
                let req = JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions: 1 };
                t.storage.add_job(&mut t.flows, req);
            }
            let r = run(&fabric.spec, &t, &SimConfig::new(1, 2 * MS)).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            r.check_conservation().unwrap();
            assert_eq!(r.tcp_connections.len(), 1, "{kind:?}: only the remote session connects");
            let c = &r.tcp_connections[0];
            assert_eq!(c.ends[1].port, crate::sim::storage::tcp::service_port(kind), "{kind:?}");
            assert!(r.jobs.iter().all(|j| j.read.total_ios > 10), "{kind:?}: {:?}", r.jobs);
            // The local job's IOs take the device's 30 µs and nothing else.
            let local = r.jobs.iter().find(|j| j.name == "local").unwrap();
            assert!(local.read.clat_ns.max_ns < 31_000, "{kind:?}: {:?}", local.read.clat_ns);
        }
    }

    #[test]
    fn every_rdma_protocol_completes_reads_and_writes_small_and_large() {
        // The exchanges of every RDMA protocol at sizes that take each path: inline data,
        // fragmented SENDs, RDMA READ and WRITE, commands split at the largest command.
        for kind in [ProtocolKind::NvmeRdma, ProtocolKind::Iser, ProtocolKind::SmbDirect, ProtocolKind::NfsRdma] {
            for bs in [1024, 4096, 65_536, 2 << 20] {
                let mut spec = JobSpec::new("mix", RwMode::RandRw, bs, 2, 3 * MS);
                spec.numjobs = 2;
                let p = crate::storage::protocol::negotiated(kind);
                let r = run_job(spec, p, default_costs(kind), device(10 * US, 16, None), 4 * MS);
                let j = &r.jobs[0];
                assert!(j.read.total_ios > 5 && j.write.total_ios > 5, "{kind:?} {bs}: {j:?}");
                // Every IO's payload crossed the network: data delivered ≥ bytes of completed IOs.
                let delivered: u64 = r.flows.iter().map(|f| f.delivered_bytes).sum();
                assert!(delivered >= j.read.io_bytes + j.write.io_bytes, "{kind:?} {bs}");
                assert!(r.flows.iter().all(|f| f.rdma.as_ref().is_some_and(|q| !q.failed)));
            }
        }
    }

    #[test]
    fn default_costs_put_work_on_both_hosts() {
        let spec = JobSpec::new("r", RwMode::RandRead, 4096, 1, MS);
        let costs = default_costs(ProtocolKind::NvmeRdma);
        let r = run_job(spec, Protocol::default_for(ProtocolKind::NvmeRdma), costs, device(20 * US, 1, None), MS);
        // 4 µs of CPU on each side per IO adds 8 µs to the 21 µs exchange.
        let lat = r.jobs[0].read.clat_ns.mean_ns;
        assert!((28_500.0..29_500.0).contains(&lat), "{lat}");
        assert_eq!(r.cpu.len(), 2);
        assert!(r.cpu.iter().all(|c| c.cpu.utilization > 0.0 && c.bytes > 0));
    }

    #[test]
    fn every_tcp_protocol_and_rdma_over_iwarp_completes_reads_and_writes() {
        // The TCP protocols' PDUs on a connection (R2T and Data-Out, C2HData, SMB2 and RPC
        // records), and the RDMA protocols' SENDs, WRITEs and READs as iWARP operations, at
        // sizes that take each path: immediate data, solicited bursts, split commands.
        use StorageTransport::{Iwarp, Tcp};
        let cases = [
            (ProtocolKind::Iscsi, Tcp),
            (ProtocolKind::NvmeTcp, Tcp),
            (ProtocolKind::Smb, Tcp),
            (ProtocolKind::NfsTcp, Tcp),
            (ProtocolKind::NvmeRdma, Iwarp),
            (ProtocolKind::Iser, Iwarp),
            (ProtocolKind::SmbDirect, Iwarp),
            (ProtocolKind::NfsRdma, Iwarp),
        ];
        for (kind, transport) in cases {
            for bs in [1024, 4096, 65_536, 2 << 20] {
                let mut spec = JobSpec::new("mix", RwMode::RandRw, bs, 2, 3 * MS);
                spec.numjobs = 2;
                let p = crate::storage::protocol::negotiated(kind);
                let r = run_over(spec, p, transport, default_costs(kind), device(10 * US, 16, None), 4 * MS, 2);
                r.check_conservation().unwrap();
                let j = &r.jobs[0];
                // (2 MiB over a software TCP stack: about 1.2 ms each, the CPU's per-byte cost.)
                assert!(j.read.total_ios >= 3 && j.write.total_ios >= 3, "{kind:?} {bs}: {j:?}");
                // No queue pair: one TCP connection per session, which carried every IO's data.
                assert!(r.flows.is_empty(), "{kind:?}");
                assert_eq!(r.tcp_connections.len(), 2, "{kind:?}");
                let moved: u64 =
                    r.tcp_connections.iter().map(|c| c.ends[0].bytes_received + c.ends[1].bytes_received).sum();
                assert!(moved >= j.read.io_bytes + j.write.io_bytes, "{kind:?} {bs}");
                let port = crate::sim::storage::tcp::service_port(kind);
                assert!(r.tcp_connections.iter().all(|c| c.ends[1].port == port), "{kind:?}");
            }
        }
    }

    #[test]
    fn iscsi_pdus_cross_the_connection_as_the_rfc_exchanges_them() {
        // One 512 KiB write at QD 1 against the RFC 7143 defaults (the target's InitialR2T=Yes,
        // MaxBurstLength 256 KiB, MaxRecvDataSegmentLength 8 KiB): the initiator's stream
        // carries the command with 8 KiB of immediate data, then 2 bursts of Data-Out PDUs
        // (32 and 31 of them), the target's stream 2 R2Ts and the SCSI Response — each PDU its
        // 48-byte BHS and data segment.
        let p = Protocol::Iscsi(crate::storage::protocol::iscsi::IscsiParams::rfc7143());
        let spec = JobSpec::new("w", RwMode::Write, 524_288, 1, MS);
        let r = run_on(spec, p, free(), device(10 * US, 1, None), MS, 1);
        let c = &r.tcp_connections[0];
        let ios = r.targets[0].completed;
        assert!(ios > 10, "{ios}");
        let to_target = 48 + 8192 + 63 * 48 + 516_096;
        let to_initiator = 3 * 48;
        // Bytes written per side are whole IOs and the part of the one in progress at the end.
        let (w0, w1) = (c.ends[0].bytes_written, c.ends[1].bytes_written);
        assert!((ios * to_initiator..(ios + 1) * to_initiator).contains(&w1), "{w1} for {ios} IOs");
        assert!((ios * to_target..=(ios + 1) * to_target).contains(&w0), "{w0} for {ios} IOs");
        // The part in progress is made of whole PDUs: R2Ts, and commands and bursts.
        assert_eq!((w1 - ios * to_initiator) % 48, 0);
        let part = w0 - ios * to_target;
        assert!([0, 48 + 8192, 48 + 8192 + 32 * 48 + 262_144, to_target].contains(&part), "{part}");
    }
}
