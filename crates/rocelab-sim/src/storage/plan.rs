//! What the engine runs for storage: jobs on initiator hosts, the sessions that carry their IOs
//! (each a set of RDMA RC queue pairs), the target devices and the hosts' processors.
//!
//! A *session* is what the host's storage stack opens towards one target: an NVMe I/O queue, an
//! iSCSI/iSER session, an SMB Direct connection, an NFS transport. Sessions are shared by every
//! job between the same initiator and target over the same protocol and class, and a job's
//! clones take them round robin (clone `k` on the group's `k`-th clone slot, modulo the number
//! of sessions), as a host's threads land on the queues of the CPUs they run on. How many
//! sessions a pair gets is [`default_sessions`]'s rule for the protocol, created as clones need
//! them (one clone, one session).
//!
//! An RDMA session is up to four RC queue pairs of the engine, one per *role*
//! ([`ROLE_TO_TARGET`] …): the initiator's SENDs and RDMA WRITEs, the target's, the RDMA READs
//! the target posts (it pulls write data from the initiator) and those the initiator posts. A
//! real RC queue pair sends in both directions; the engine's queue pairs send requests in one,
//! so a session is modelled by one per direction and kind — RC's ordering holds within each,
//! which is what the protocols rely on (a response SEND posted after an RDMA WRITE arrives
//! after the written data, RDMA Verbs ordering, IBA §9.5). Only the roles a protocol uses for
//! the jobs' block sizes are built.

use super::cpu::ProtocolCosts;
use super::job::{IoOp, JobSpec};
use super::protocol::{Exchange, Medium, Protocol, ProtocolKind, Side, StepKind, Transfer};
use super::target::TargetProfile;
use crate::rdma::RdmaOp;
use crate::rng::mix64;
use crate::spec::NodeId;
use crate::time::Time;
use crate::traffic::{FlowClass, FlowSpec, RcFlow, Transport};

/// Queue-pair role: SENDs and RDMA WRITEs posted by the initiator.
pub const ROLE_TO_TARGET: usize = 0;
/// Queue-pair role: SENDs and RDMA WRITEs posted by the target.
pub const ROLE_TO_INITIATOR: usize = 1;
/// Queue-pair role: RDMA READs posted by the target (write data pulled from the initiator).
pub const ROLE_TARGET_READS: usize = 2;
/// Queue-pair role: RDMA READs posted by the initiator (data pulled from the target).
pub const ROLE_INITIATOR_READS: usize = 3;
/// Number of queue-pair roles.
pub const ROLES: usize = 4;

/// Cores of a host without a `cpu:` description: 16, the host size the CPU costs were
/// calibrated on ([`crate::storage::cpu`]'s SMB Direct figure). An assumption, stated in the
/// results (each host's `cores`).
pub const DEFAULT_CORES: u32 = 16;

/// The queue-pair role a transfer travels on; `None` for TCP stream bytes.
pub fn role_of(t: &Transfer) -> Option<usize> {
    match (t.medium, t.from) {
        (Medium::Send | Medium::RdmaWrite, Side::Initiator) => Some(ROLE_TO_TARGET),
        (Medium::Send | Medium::RdmaWrite, Side::Target) => Some(ROLE_TO_INITIATOR),
        // The side that receives the data posts the READ.
        (Medium::RdmaRead, Side::Initiator) => Some(ROLE_TARGET_READS),
        (Medium::RdmaRead, Side::Target) => Some(ROLE_INITIATOR_READS),
        (Medium::Stream, _) => None,
    }
}

/// The host that posts on a role's queue pair (the requester), given the session's ends.
pub fn role_requester(role: usize, initiator: NodeId, target: NodeId) -> (NodeId, NodeId) {
    match role {
        ROLE_TO_TARGET | ROLE_INITIATOR_READS => (initiator, target),
        _ => (target, initiator),
    }
}

/// How many sessions an initiator opens to one target for `kind`, by the host stacks'
/// defaults:
/// * NVMe/RDMA and NVMe/TCP: one I/O queue per CPU — Linux `nvme-fabrics`' `nr_io_queues`
///   defaults to the number of online CPUs (`nvmf_parse_options`), each queue its own QP or TCP
///   connection;
/// * iSCSI and iSER: one session with one connection (open-iscsi's `node.session.nr_sessions`
///   = 1, MC/S unused), the set-up the Arista/Pure calibration of the iSCSI CPU cost assumes;
/// * SMB Direct: two RDMA connections per RDMA-capable interface — SMB Multichannel's
///   `ConnectionCountPerRdmaNetworkInterface` default of 2, which the Demartek RoCE Deployment
///   Guide quotes ("Increase the number of SMB Direct RDMA connections from the default (2)");
/// * SMB over TCP: four connections per RSS-capable 10 Gb/s or faster interface (the Windows
///   client's `ConnectionCountPerRssNetworkInterface`; NetApp's ONTAP SMB guide, "Configure SMB
///   Multichannel": "the client establishes up to four connections per NIC");
/// * NFS over RDMA and TCP: one transport per mount (Linux `nconnect` defaults to 1).
pub fn default_sessions(kind: ProtocolKind, initiator_cores: u32, initiator_ports: u32) -> u32 {
    match kind {
        ProtocolKind::NvmeRdma | ProtocolKind::NvmeTcp => initiator_cores.max(1),
        ProtocolKind::Iscsi | ProtocolKind::Iser | ProtocolKind::NfsRdma | ProtocolKind::NfsTcp => 1,
        ProtocolKind::SmbDirect => 2 * initiator_ports.max(1),
        ProtocolKind::Smb => 4 * initiator_ports.max(1),
    }
}

/// What carries a session's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageTransport {
    /// RDMA RC queue pairs over RoCEv2.
    Roce,
    /// RDMA over TCP (iWARP).
    Iwarp,
    /// A TCP connection (the TCP protocols).
    Tcp,
}

/// One storage job as the engine runs it: fio's parameters, where, over what.
#[derive(Clone, Debug, PartialEq)]
pub struct StorageJob {
    /// fio's parameters and the seed of its random choices.
    pub spec: JobSpec,
    /// When its clones start issuing.
    pub start_ps: Time,
    /// The host running it.
    pub initiator: NodeId,
    /// The storage device.
    pub target: NodeId,
    /// The protocol with its session parameters.
    pub protocol: Protocol,
    /// What carries it.
    pub transport: StorageTransport,
    /// CPU costs of both sides.
    pub costs: ProtocolCosts,
    /// The sessions its clones use: clone `k` on `sessions[k]` (one entry per clone).
    pub sessions: Vec<u32>,
}

/// A session between an initiator and a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Host side.
    pub initiator: NodeId,
    /// Target side.
    pub target: NodeId,
    /// Protocol.
    pub protocol: ProtocolKind,
    /// What carries it.
    pub transport: StorageTransport,
    /// Traffic class of its queue pairs.
    pub class: FlowClass,
    /// Flow index (in [`crate::Traffic::flows`]) of the queue pair of each role, if built.
    pub qps: [Option<usize>; ROLES],
    /// Core of the initiator that runs its protocol work (its interrupt vector or polling
    /// thread).
    pub initiator_core: u32,
    /// Core of the target that runs its protocol work.
    pub target_core: u32,
    /// Which of the initiator's paths to the target the session takes (its port, modulo the
    /// ports that lead there): sessions are spread over a host's ports in turn.
    pub initiator_path: u32,
    /// Which of the target's ports the session is bound to, in turn over the target's
    /// sessions: a host connects to each of an array's ports and spreads IO over them
    /// (Linux NVMe multipath and dm-multipath, iSCSI MPIO; the EqualLogic paper confirms "the
    /// even distribution of iSCSI connections across host and storage ports").
    pub target_path: u32,
}

/// Sessions of one (initiator, target, protocol, class): at most `max`, created as clones come.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    initiator: NodeId,
    target: NodeId,
    protocol: ProtocolKind,
    transport: StorageTransport,
    class: FlowClass,
    max: u32,
    sessions: Vec<u32>,
    clones: u32,
}

/// A job to add with [`StorageTraffic::add_job`]: the job (its `sessions` are filled in) and
/// how its sessions are built.
#[derive(Clone, Debug)]
pub struct JobRequest {
    /// The job.
    pub job: StorageJob,
    /// Class of the sessions' packets.
    pub class: FlowClass,
    /// RDMA path MTU of the queue pairs.
    pub path_mtu: u32,
    /// Most sessions between the pair (see [`default_sessions`]).
    pub max_sessions: u32,
}

impl StorageJob {
    /// A job of `spec` from `initiator` to `target` over `protocol`, starting at 0, over RoCE
    /// (an RDMA protocol) or TCP, with the protocol's default CPU costs
    /// ([`default_costs`](super::cpu::default_costs)); sessions come with
    /// [`StorageTraffic::add_job`].
    pub fn new(spec: JobSpec, initiator: NodeId, target: NodeId, protocol: Protocol) -> Self {
        let costs = super::cpu::default_costs(protocol.kind());
        let transport = if protocol.kind().is_rdma() { StorageTransport::Roce } else { StorageTransport::Tcp };
        StorageJob { spec, start_ps: 0, initiator, target, protocol, transport, costs, sessions: Vec::new() }
    }
}

/// Storage workloads of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StorageTraffic {
    /// Jobs.
    pub jobs: Vec<StorageJob>,
    /// Sessions.
    pub sessions: Vec<Session>,
    /// The device behind each storage node.
    pub targets: Vec<(NodeId, TargetProfile)>,
    /// Cores of hosts that differ from [`DEFAULT_CORES`].
    pub cores: Vec<(NodeId, u32)>,
    groups: Vec<Group>,
    /// Next core to give a session, per host.
    next_core: Vec<(NodeId, u32)>,
    /// Sessions so far, per host (the next session's path).
    next_path: Vec<(NodeId, u32)>,
}

impl StorageJob {
    /// Whether the job runs on its target's own host: its IOs go to the host's device without
    /// crossing the network, and pay no protocol CPU (a hyperconverged node reading its local
    /// copy, as Storage Spaces Direct does: "for VM read requests, a local copy of the data can
    /// usually be obtained faster than going over the network", Demartek RoCE Deployment Guide).
    pub fn is_local(&self) -> bool {
        self.initiator == self.target
    }
}

impl StorageTraffic {
    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Cores of `node`.
    pub fn cores_of(&self, node: NodeId) -> u32 {
        self.cores.iter().find(|(n, _)| *n == node).map(|c| c.1).unwrap_or(DEFAULT_CORES).max(1)
    }

    /// Set the device behind `node` (replacing one set before).
    pub fn set_target(&mut self, node: NodeId, profile: TargetProfile) {
        self.targets.retain(|(n, _)| *n != node);
        self.targets.push((node, profile));
    }

    /// The device behind `node`.
    pub fn target_of(&self, node: NodeId) -> Option<&TargetProfile> {
        self.targets.iter().find(|(n, _)| *n == node).map(|t| &t.1)
    }

    fn take_core(&mut self, node: NodeId) -> u32 {
        let cores = self.cores_of(node);
        take(&mut self.next_core, node) % cores
    }

    /// Add a job: its clones get sessions (new ones while the pair has fewer than its
    /// maximum), and the sessions get the queue pairs the job's exchanges need, appended to
    /// `flows`. Returns the job's index.
    pub fn add_job(&mut self, flows: &mut Vec<FlowSpec>, req: JobRequest) -> usize {
        let JobRequest { job: mut r, class, path_mtu, max_sessions } = req;
        let kind = r.protocol.kind();
        let g = match self.groups.iter().position(|g| {
            g.initiator == r.initiator
                && g.target == r.target
                && g.protocol == kind
                && g.transport == r.transport
                && g.class == class
        }) {
            Some(g) => g,
            None => {
                self.groups.push(Group {
                    initiator: r.initiator,
                    target: r.target,
                    protocol: kind,
                    transport: r.transport,
                    class,
                    max: max_sessions.max(1),
                    sessions: Vec::new(),
                    clones: 0,
                });
                self.groups.len() - 1
            }
        };
        let roles = if r.is_local() || r.transport != StorageTransport::Roce {
            // A local job crosses no network; a session over TCP or iWARP is a TCP connection.
            [false; ROLES]
        } else {
            roles_used(&r.protocol, r.spec.bs)
        };
        let mut sessions = Vec::with_capacity(r.spec.numjobs as usize);
        for _ in 0..r.spec.numjobs.max(1) {
            let k = self.groups[g].clones;
            self.groups[g].clones += 1;
            let slot = (k % self.groups[g].max) as usize;
            let s = if slot < self.groups[g].sessions.len() {
                self.groups[g].sessions[slot]
            } else {
                let session = Session {
                    initiator: r.initiator,
                    target: r.target,
                    protocol: kind,
                    transport: r.transport,
                    class,
                    qps: [None; ROLES],
                    initiator_core: self.take_core(r.initiator),
                    target_core: self.take_core(r.target),
                    initiator_path: take(&mut self.next_path, r.initiator),
                    target_path: take(&mut self.next_path, r.target),
                };
                self.sessions.push(session);
                let s = (self.sessions.len() - 1) as u32;
                self.groups[g].sessions.push(s);
                s
            };
            for (role, used) in roles.iter().enumerate() {
                if *used && self.sessions[s as usize].qps[role].is_none() {
                    let f = qp_flow(&self.sessions[s as usize], role, path_mtu, flows.len());
                    flows.push(f);
                    self.sessions[s as usize].qps[role] = Some(flows.len() - 1);
                }
            }
            sessions.push(s);
        }
        r.sessions = sessions;
        self.jobs.push(r);
        self.jobs.len() - 1
    }

    /// The session and role of each flow that belongs to a storage session.
    pub fn flow_roles(&self, flows: usize) -> Vec<Option<(u32, u8)>> {
        let mut out = vec![None; flows];
        for (s, sess) in self.sessions.iter().enumerate() {
            for (role, q) in sess.qps.iter().enumerate() {
                if let Some(f) = q {
                    if *f < flows {
                        out[*f] = Some((s as u32, role as u8));
                    }
                }
            }
        }
        out
    }
}

impl StorageTraffic {
    /// Check the jobs against the network and the flows their sessions name.
    pub fn validate(&self, net: &crate::spec::NetworkSpec, flows: usize) -> Result<(), crate::SimError> {
        use crate::SimError;
        for (i, j) in self.jobs.iter().enumerate() {
            let path = format!("storage.jobs[{i}]");
            for (what, n) in [("initiator", j.initiator), ("target", j.target)] {
                if n >= net.nodes.len() || !net.is_host(n) {
                    return Err(SimError::traffic(format!("{path}.{what}"), format!("node {n} is not a host")));
                }
            }
            let rdma = j.protocol.kind().is_rdma();
            if rdma == (j.transport == StorageTransport::Tcp) {
                let want = if rdma { "roce or iwarp (an RDMA protocol)" } else { "tcp (a protocol over TCP)" };
                return Err(SimError::traffic(
                    format!("{path}.transport"),
                    format!("{:?} cannot run over {:?}; expected {want}", j.protocol.kind(), j.transport),
                ));
            }
            if self.target_of(j.target).is_none() {
                return Err(SimError::traffic(format!("{path}.target"), "no device model for the target node"));
            }
            let s = &j.spec;
            if s.bs == 0 || s.iodepth == 0 || s.runtime == 0 {
                return Err(SimError::traffic(path, "bs, iodepth and runtime must be above 0"));
            }
            if j.sessions.is_empty() || j.sessions.len() != s.numjobs.max(1) as usize {
                return Err(SimError::traffic(format!("{path}.sessions"), "one session per clone"));
            }
            let used = if j.is_local() || j.transport != StorageTransport::Roce {
                [false; ROLES]
            } else {
                roles_used(&j.protocol, s.bs)
            };
            for &k in &j.sessions {
                let Some(sess) = self.sessions.get(k as usize) else {
                    return Err(SimError::traffic(format!("{path}.sessions"), format!("no session {k}")));
                };
                if sess.initiator != j.initiator || sess.target != j.target {
                    return Err(SimError::traffic(
                        format!("{path}.sessions"),
                        format!("session {k} joins other hosts"),
                    ));
                }
                for (role, u) in used.iter().enumerate() {
                    match sess.qps[role] {
                        Some(f) if f < flows => {}
                        _ if !u => {}
                        _ => {
                            return Err(SimError::traffic(
                                format!("storage.sessions[{k}].qps[{role}]"),
                                "the session lacks a queue pair its jobs use",
                            ))
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The counter of `node` in `counters`, post-incremented.
fn take(counters: &mut Vec<(NodeId, u32)>, node: NodeId) -> u32 {
    let slot = match counters.iter().position(|(n, _)| *n == node) {
        Some(i) => i,
        None => {
            counters.push((node, 0));
            counters.len() - 1
        }
    };
    let c = counters[slot].1;
    counters[slot].1 = c.wrapping_add(1);
    c
}

/// Which roles the exchanges of `protocol` use for reads and writes of `bs` bytes.
pub fn roles_used(protocol: &Protocol, bs: u32) -> [bool; ROLES] {
    let mut used = [false; ROLES];
    let mut x = Exchange::new();
    for op in [IoOp::Read, IoOp::Write] {
        protocol.exchange(op, bs.max(1), &mut x);
        for s in x.steps() {
            if let StepKind::Transfer(t) = &s.kind {
                if let Some(r) = role_of(t) {
                    used[r] = true;
                }
            }
        }
    }
    used
}

/// The RC flow of `session`'s queue pair in `role`. Its UDP source port is a hash of its flow
/// index in the private range, as RoCEv2 NICs derive one per QP (IBA annex A17.2.3).
fn qp_flow(session: &Session, role: usize, path_mtu: u32, index: usize) -> FlowSpec {
    let (src, dst) = role_requester(role, session.initiator, session.target);
    let op = match role {
        ROLE_TARGET_READS | ROLE_INITIATOR_READS => RdmaOp::Read,
        _ => RdmaOp::Send,
    };
    let mut f = FlowSpec::greedy(src, dst, session.class);
    f.payload_bytes = path_mtu;
    f.udp_src_port = 0xC000 | (mix64(index as u64 ^ 0x5354_4F52_4147_4500) & 0x3FFF) as u16;
    f.transport = Transport::Rc(RcFlow { op, message_bytes: 65536, tx_depth: 1, window_packets: None });
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::job::RwMode;
    use crate::time::MS;

    fn request(kind: ProtocolKind, bs: u32, numjobs: u32, max: u32) -> JobRequest {
        let mut spec = JobSpec::new("j", RwMode::RandRw, bs, 4, MS);
        spec.numjobs = numjobs;
        let job = StorageJob::new(spec, 1, 2, Protocol::default_for(kind));
        JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions: max }
    }

    #[test]
    fn clones_share_sessions_round_robin_up_to_the_maximum() {
        let mut t = StorageTraffic::default();
        let mut flows = Vec::new();
        let j = t.add_job(&mut flows, request(ProtocolKind::NvmeRdma, 524_288, 3, 2));
        assert_eq!(t.jobs[j].sessions, [0, 1, 0]);
        // NVMe/RDMA at 512 KiB: commands and in-capsule data (initiator SENDs), data and
        // responses (target WRITEs and SENDs), write data (target READs); no initiator READ.
        assert!(t.sessions.iter().all(|s| s.qps[..3].iter().all(Option::is_some) && s.qps[3].is_none()));
        assert_eq!(flows.len(), 6);
        // A second job between the same pair continues the round robin on the same sessions.
        let k = t.add_job(&mut flows, request(ProtocolKind::NvmeRdma, 524_288, 2, 2));
        assert_eq!(t.jobs[k].sessions, [1, 0]);
        assert_eq!(flows.len(), 6, "no new queue pair");
        // Queue pairs: the initiator's SENDs from host 1, the target's READs from host 2.
        let s = &t.sessions[0];
        let send = &flows[s.qps[ROLE_TO_TARGET].unwrap()];
        let read = &flows[s.qps[ROLE_TARGET_READS].unwrap()];
        assert_eq!((send.src, send.dst, send.rc_flow().unwrap().op), (1, 2, RdmaOp::Send));
        assert_eq!((read.src, read.dst, read.rc_flow().unwrap().op), (2, 1, RdmaOp::Read));
        assert_ne!(send.udp_src_port, read.udp_src_port);
        // Cores: a session per core of each host, in order.
        assert_eq!((t.sessions[1].initiator_core, t.sessions[1].target_core), (1, 1));
        let roles = t.flow_roles(flows.len());
        assert_eq!(roles[s.qps[ROLE_TARGET_READS].unwrap()], Some((0, ROLE_TARGET_READS as u8)));
    }

    #[test]
    fn small_ios_build_only_the_roles_they_use() {
        // 4 KiB NVMe/RDMA writes fit in the capsule, but reads need the target's WRITE: no READ QP.
        let used = roles_used(&Protocol::default_for(ProtocolKind::NvmeRdma), 4096);
        assert_eq!(used, [true, true, false, false]);
        // SMB Direct below its RDMA threshold: SENDs only.
        let smbd = Protocol::SmbDirect(crate::storage::protocol::smb::SmbDirect {
            rdma_threshold: 8192,
            ..Default::default()
        });
        assert_eq!(roles_used(&smbd, 4096), [true, true, false, false]);
        assert_eq!(roles_used(&Protocol::default_for(ProtocolKind::Iscsi), 4096), [false; ROLES]);
    }

    #[test]
    fn session_counts_follow_the_host_stacks() {
        assert_eq!(default_sessions(ProtocolKind::NvmeRdma, 16, 1), 16);
        assert_eq!(default_sessions(ProtocolKind::Iscsi, 16, 2), 1);
        assert_eq!(default_sessions(ProtocolKind::SmbDirect, 16, 2), 4);
        assert_eq!(default_sessions(ProtocolKind::NfsRdma, 8, 1), 1);
    }
}
