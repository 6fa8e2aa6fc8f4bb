//! Storage jobs in the engine: each job clone is a [`JobEngine`] on its initiator keeping
//! `iodepth` IOs outstanding; each IO is its protocol's [`Exchange`](crate::storage::protocol::Exchange) walked step by step over the
//! session's queue pairs, the target owner and the hosts' cores.
//!
//! * **Issue.** The initiator's submit work (its share of the protocol's per-IO and per-byte CPU
//!   cost, [`CpuCost::split`](crate::storage::cpu::CpuCost::split)) runs on the session's core; then the steps that wait on the issue
//!   start.
//! * **Transfers.** A SEND or an RDMA WRITE is posted by the side the bytes leave, on the
//!   session's queue pair of that direction; it is complete when the last message is in the
//!   receiver's memory (messages of one queue pair arrive in posting order, so a FIFO per queue
//!   pair says which step each belongs to). An RDMA READ is posted by the side that receives
//!   the data and is complete at its requester's completion. A step that waits on a SEND or
//!   WRITE posted on the same queue pair is posted at once behind it: RC delivers in order, so
//!   the response capsule that follows read data needs no round trip (the NVMe/RDMA and iSER
//!   targets post both together). SMB Direct SENDs take a send credit ([`SmbdCredits`]); the peer
//!   grants it back as the message is consumed.
//! * **Service.** The target's receive work runs on the session's target core, then the IO is
//!   submitted to the [`Target`] (its concurrency and throughput ceilings); at the end of the
//!   service (a `TargetDone` event) the target's completion work runs, then the steps after the
//!   service start.
//! * **Completion.** When every step is complete the initiator's completion work runs, then the
//!   clone records the IO ([`JobEngine::on_complete`]) and issues the next.
//!
//! A core is a FIFO of work ([`HostCpu::run_on`]): work waits for a busy core, which adds
//! latency and, when the core is saturated, caps the throughput of its sessions. A session over
//! TCP does its protocol work on its connection's core (the RSS queue its packets hash to); a
//! session over RDMA on whichever core is free first — the Demartek RoCE Deployment Guide:
//! "When using TCP/IP, despite configuring Receive Side Scaling (RSS) on NICs, certain CPU cores
//! are often heavily utilized for transport processing while the rest of the cores are left
//! idle"; "If RoCE is instead deployed on the same server, we would expect cores to be utilized
//! more evenly".

use super::rdma::NO_QP;
use super::Sim;
use crate::event::Event;
use crate::observer::Observer;
use crate::rdma::{Completion, RdmaOp};
use crate::storage::cpu::HostCpu;
use crate::storage::job::{IoOp, IoRequest, JobEngine};
use crate::storage::plan::{
    role_of, StorageJob, StorageTransport, ROLES, ROLE_TARGET_READS, ROLE_TO_INITIATOR, ROLE_TO_TARGET,
};
use crate::storage::protocol::iscsi_pdu::{pdu_layouts, IscsiPdu};
use crate::storage::protocol::smb::SmbdCredits;
use crate::storage::protocol::{After, Medium, Step, StepKind};
use crate::storage::target::{Target, TargetIo};
use crate::time::Time;
use reads::{PendingRead, ReadGate};
use std::collections::VecDeque;

pub(super) mod build;
pub(super) mod parts;
pub(super) mod reads;
pub(super) mod tcp;

/// `step` of a `StepReady` event that stands for the issue of the IO.
pub(super) const ISSUE: u16 = u16::MAX;
/// No target / no CPU at a node.
pub(super) const NONE: u32 = u32::MAX;

/// A step's state in its IO slot (ordered: a copy of the slot takes the later of two).
const WAITING: u8 = 0;
const STARTED: u8 = 1;
const DONE: u8 = 2;

/// The steps of one operation of a job, with what the engine derives from them once.
#[derive(Clone, Debug, Default)]
pub(crate) struct IoPlan {
    pub steps: Vec<Step>,
    /// Per step, the steps that wait on it.
    pub succ: Vec<Vec<u16>>,
    /// Steps that start at the issue.
    pub roots: Vec<u16>,
    /// Per step, whether it is posted right behind the step it waits on (same queue pair, RC
    /// order) instead of after that step completes.
    pub early: Vec<bool>,
    /// Per service step, the target's CPU work before and after it.
    pub target_cpu: Vec<(Time, Time)>,
    /// Per service step, the bytes of its command.
    pub cmd_bytes: Vec<u32>,
    /// The initiator's CPU work before the issue and after the last step.
    pub init_cpu: (Time, Time),
    /// iSCSI over TCP: per step, its PDUs (their exact lengths on the stream, and what a
    /// capture's headers need); empty for other protocols.
    pub iscsi: Vec<Vec<IscsiPdu>>,
}

impl IoPlan {
    /// The plan of `op` for `job`.
    pub fn new(job: &StorageJob, op: IoOp) -> Self {
        let bytes = job.spec.bs;
        if job.is_local() {
            // The host's own owner: its service, nothing on the network, no protocol CPU.
            return IoPlan {
                steps: vec![Step { kind: StepKind::Service, after: After::Issue }],
                succ: vec![Vec::new()],
                roots: vec![0],
                early: vec![false],
                target_cpu: vec![(0, 0)],
                cmd_bytes: vec![bytes],
                init_cpu: (0, 0),
                iscsi: Vec::new(),
            };
        }
        let mut x = crate::storage::protocol::Exchange::new();
        job.protocol.exchange(op, bytes, &mut x);
        let steps: Vec<Step> = x.steps().to_vec();
        let n = steps.len();
        let mut succ = vec![Vec::new(); n];
        let mut roots = Vec::new();
        let mut early = vec![false; n];
        for (j, s) in steps.iter().enumerate() {
            match s.after {
                After::Issue => roots.push(j as u16),
                After::Step(i) => {
                    succ[i as usize].push(j as u16);
                    if let (StepKind::Transfer(a), StepKind::Transfer(b)) = (&steps[i as usize].kind, &s.kind) {
                        let ordered = matches!(a.medium, Medium::Send | Medium::RdmaWrite)
                            && matches!(b.medium, Medium::Send | Medium::RdmaWrite);
                        // Bytes a side writes on its TCP stream after bytes it wrote before
                        // arrive after them: an iSCSI target's SCSI Response behind its
                        // Data-In, an initiator's unsolicited Data-Out behind its command.
                        let stream = a.medium == Medium::Stream && b.medium == Medium::Stream && a.from == b.from;
                        early[j] = stream || ordered && role_of(a).is_some() && role_of(a) == role_of(b);
                    }
                }
            }
        }
        // Commands are cut at the protocol's largest command, in order; one service each.
        let max = job.protocol.max_command_bytes().max(1);
        let mut left = bytes;
        let mut target_cpu = vec![(0, 0); n];
        let mut cmd_bytes = vec![0; n];
        for (j, s) in steps.iter().enumerate() {
            if s.kind == StepKind::Service {
                let b = left.min(max);
                left -= b;
                cmd_bytes[j] = b;
                target_cpu[j] = job.costs.target.split(crate::storage::protocol::Side::Target, op, b);
            }
        }
        let init_cpu = job.costs.initiator.split(crate::storage::protocol::Side::Initiator, op, bytes);
        let iscsi = match &job.protocol {
            crate::storage::Protocol::Iscsi(p) => pdu_layouts(p, op, bytes, &steps),
            _ => Vec::new(),
        };
        IoPlan { steps, succ, roots, early, target_cpu, cmd_bytes, init_cpu, iscsi }
    }
}

/// A job at run time.
pub(crate) struct JobRt {
    pub job: StorageJob,
    /// Plans for reads and writes (`IoOp as usize`).
    pub plans: [IoPlan; 2],
    /// Index of its target in [`StorageRt::targets`].
    pub target: u32,
}

/// A job clone.
pub(crate) struct CloneRt {
    pub engine: JobEngine,
    pub job: u32,
    pub session: u32,
    /// Its IO slots not in use, the next on top: `iodepth` slots of its own (at most that many
    /// IOs are outstanding), so that the slot an IO takes, which names its events and orders
    /// them among an instant's, depends on its clone alone, not on other initiators' IOs (a
    /// run on several threads has those in other parts).
    pub slots: Vec<u32>,
}

/// A message posted on a session's SEND/WRITE queue pair, until it is in the peer's memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Posted {
    pub io: u32,
    pub step: u16,
    /// The last message of its step.
    pub last: bool,
    /// An SMB Direct SEND (it returns a credit).
    pub credit: bool,
}

/// A SEND waiting for an SMB Direct credit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waiting {
    pub posted: Posted,
    pub len: u64,
}

/// A session at run time.
pub(crate) struct SessionRt {
    /// What carries it.
    pub transport: StorageTransport,
    /// Its TCP connection (TCP protocols and RDMA over iWARP; side 0 at the initiator), or
    /// [`super::tcp::NO_CONN`].
    pub conn: u32,
    /// Queue pair of each role ([`NO_QP`]: not built).
    pub qp: [u32; ROLES],
    /// Per SEND/WRITE role, the messages in flight, in posting order.
    pub fifo: [VecDeque<Posted>; 2],
    pub initiator: u32,
    pub target: u32,
    pub initiator_core: u32,
    pub target_core: u32,
    /// Its protocol work goes to the first free core rather than its own (RDMA).
    pub spread: bool,
    /// SMB Direct send credits of each SEND role, and the SENDs waiting for one.
    pub credits: [Option<SmbdCredits>; 2],
    pub waiting: [VecDeque<Waiting>; 2],
    /// iSCSI: the next CmdSN and StatSN (kept for captures' headers only).
    pub iscsi_sn: [u32; 2],
    /// Per READ role (the target's, then the initiator's), the READs outstanding on its
    /// queue pair and those waiting for one of the adapter's READ slots ([`reads`]).
    pub reads: [ReadGate; 2],
}

impl SessionRt {
    /// The initiator and the core its work runs on ([`NONE`]: the first free).
    fn initiator_core(&self) -> (u32, u32) {
        (self.initiator, if self.spread { NONE } else { self.initiator_core })
    }

    /// The target and the core its work runs on ([`NONE`]: the first free).
    fn target_core(&self) -> (u32, u32) {
        (self.target, if self.spread { NONE } else { self.target_core })
    }
}

/// An IO in flight.
pub(crate) struct IoRt {
    pub clone: u32,
    pub req: IoRequest,
    /// Per step: waiting, started, done.
    pub state: Vec<u8>,
    /// Steps not done.
    pub left: u16,
}

/// A storage owner at run time.
pub(crate) struct TargetRt {
    pub node: u32,
    pub target: Target,
}

/// A host's cores, with the busy time that fell inside measured windows: the union of the
/// windows of the jobs it takes part in (first), then each of those jobs' own.
pub(crate) struct CpuRt {
    pub cpu: HostCpu,
    /// [from, to) of each window.
    pub windows: Vec<(Time, Time)>,
    /// Per window, busy time per core.
    pub busy: Vec<Vec<Time>>,
}

impl CpuRt {
    pub fn new(cores: u32, windows: Vec<(Time, Time)>) -> Self {
        let cpu = HostCpu::new(cores);
        let n = cpu.cores() as usize;
        let busy = vec![vec![0; n]; windows.len()];
        CpuRt { cpu, windows, busy }
    }

    /// Run `work` on `core` (on the first free core when `core` is [`NONE`]) from `now` (or
    /// when the core is free); returns when it is done.
    pub fn run(&mut self, now: Time, core: u32, work: Time) -> Time {
        if work == 0 {
            return now;
        }
        let core = if core == NONE { self.cpu.first_free(now) } else { core };
        let done = self.cpu.run_on(now, core, work);
        let start = done - work;
        let c = core as usize % self.cpu.cores() as usize;
        for (w, busy) in self.windows.iter().zip(&mut self.busy) {
            busy[c] += done.min(w.1).saturating_sub(start.max(w.0));
        }
        done
    }
}

/// Everything storage at run time.
#[derive(Default)]
pub(crate) struct StorageRt {
    pub jobs: Vec<JobRt>,
    pub clones: Vec<CloneRt>,
    pub sessions: Vec<SessionRt>,
    pub ios: Vec<IoRt>,
    pub targets: Vec<TargetRt>,
    /// Per node, its CPU (index into `cpus`) or [`NONE`].
    pub cpu_of: Vec<u32>,
    pub cpus: Vec<CpuRt>,
    /// Node of each CPU.
    pub cpu_node: Vec<u32>,
    /// Per job, the index of its measured window in its initiator's [`CpuRt::windows`].
    pub job_window: Vec<u32>,
}

pub(super) fn encode(io: u32, step: u16) -> u64 {
    (io as u64) << 16 | step as u64
}

/// The IO and step of an id (its flags, [`ID_LAST`] …, ignored).
pub(super) fn decode(id: u64) -> (u32, u16) {
    ((id >> 16) as u32, id as u16)
}

/// Flag of a message id on a TCP or iWARP session: the last message of its step.
pub(super) const ID_LAST: u64 = 1 << 63;
/// Flag of a message id: an SMB Direct SEND (its arrival grants the sender's credit back).
pub(super) const ID_CREDIT: u64 = 1 << 62;
/// Flag of an iWARP operation id: an RDMA READ (its completion ends the step).
pub(super) const ID_READ: u64 = 1 << 61;

impl<O: Observer> Sim<'_, O> {
    /// Run `work` on `core` of `node` from now ([`NONE`]: the first free core); when it is done.
    fn cpu_run(&mut self, node: u32, core: u32, work: Time) -> Time {
        let now = self.now;
        let c = self.storage.cpu_of[node as usize];
        if c == NONE {
            return now;
        }
        self.storage.cpus[c as usize].run(now, core, work)
    }

    /// A clone's start: it issues its first IOs.
    #[inline(never)]
    pub(super) fn clone_start(&mut self, clone: u32) {
        self.clone_issue(clone);
    }

    /// Issue what the clone may now (up to its `iodepth`).
    fn clone_issue(&mut self, clone: u32) {
        let now = self.now;
        while let Some(req) = self.storage.clones[clone as usize].engine.poll_issue(now) {
            self.issue(clone, req);
        }
    }

    fn issue(&mut self, clone: u32, req: IoRequest) {
        let st = &mut self.storage;
        let c = &mut st.clones[clone as usize];
        let (job, session) = (c.job as usize, c.session as usize);
        let io = c.slots.pop().expect("a clone has a slot for each IO it may have outstanding");
        let plan = &st.jobs[job].plans[req.op as usize];
        let n = plan.steps.len();
        let pre = plan.init_cpu.0;
        if st.ios.len() <= io as usize {
            st.ios.resize_with(io as usize + 1, || IoRt { clone, req, state: Vec::new(), left: 0 });
        }
        let slot = &mut st.ios[io as usize];
        (slot.clone, slot.req, slot.left) = (clone, req, n as u16);
        slot.state.clear();
        slot.state.resize(n, WAITING);
        let (node, core) = st.sessions[session].initiator_core();
        let note = parts::SlotNote::Issued { io, clone, req, steps: n as u16 };
        self.slot_changed(session, node, note);
        let t = self.cpu_run(node, core, pre);
        self.queue.push(t, Event::StepReady { io, step: ISSUE });
    }

    /// The plan, session and target index of IO slot `io`.
    fn io_context(&self, io: u32) -> (usize, usize, IoOp) {
        let st = &self.storage;
        let slot = &st.ios[io as usize];
        let c = &st.clones[slot.clone as usize];
        (c.job as usize, c.session as usize, slot.req.op)
    }

    /// The CPU work before a step (or the issue) is done.
    #[inline(never)]
    pub(super) fn step_ready(&mut self, io: u32, step: u16) {
        let (job, _, op) = self.io_context(io);
        if step == ISSUE {
            // Plans do not change while steps start: index them instead of copying the list.
            let n = self.storage.jobs[job].plans[op as usize].roots.len();
            for k in 0..n {
                let r = self.storage.jobs[job].plans[op as usize].roots[k];
                self.start_step(io, r);
            }
            return;
        }
        // A service: the target's receive work is done; the owner takes the IO.
        let now = self.now;
        let st = &mut self.storage;
        let bytes = st.jobs[job].plans[op as usize].cmd_bytes[step as usize];
        let random = !st.ios[io as usize].req.sequential;
        let t = st.jobs[job].target as usize;
        let started = st.targets[t].target.submit(now, TargetIo { id: encode(io, step), op, bytes, random });
        if let Some(s) = started {
            let (io, step) = decode(s.id);
            self.queue.push(s.done_at, Event::TargetDone { io, step });
        }
    }

    /// Start step `step` of IO `io` now, if it has not started.
    fn start_step(&mut self, io: u32, step: u16) {
        let (job, session, io_op) = self.io_context(io);
        let slot = &mut self.storage.ios[io as usize];
        if slot.state[step as usize] != WAITING {
            return;
        }
        slot.state[step as usize] = STARTED;
        let s = self.storage.jobs[job].plans[io_op as usize].steps[step as usize];
        let here = self.step_node(session, &s, false);
        debug_assert!(self.is_here(here), "a step starts at the end that writes it or serves it");
        self.slot_changed(session, here, parts::SlotNote::Step { io, step, state: STARTED });
        let plan = &self.storage.jobs[job].plans[io_op as usize];
        match s.kind {
            StepKind::Service => {
                let pre = plan.target_cpu[step as usize].0;
                let (node, core) = self.storage.sessions[session].target_core();
                let t = self.cpu_run(node, core, pre);
                self.queue.push(t, Event::StepReady { io, step });
            }
            StepKind::Transfer(tr) => {
                let now = self.now;
                let (transport, conn) = (self.storage.sessions[session].transport, self.storage.sessions[session].conn);
                let id = encode(io, step);
                match tr.medium {
                    Medium::Stream => {
                        debug_assert_eq!(transport, StorageTransport::Tcp, "stream bytes need a TCP session");
                        // Each PDU is its own write on the sender's stream; the step is done
                        // when the last is in order at the peer.
                        let side = side_of(tr.from);
                        let (n, each, total) = pieces(&tr);
                        let exact = !plan.iscsi.is_empty();
                        let mut left = total;
                        for k in 0..n {
                            let len = if exact {
                                // iSCSI: each PDU its own length (data cut at the segment length).
                                self.storage.jobs[job].plans[io_op as usize].iscsi[step as usize][k as usize].len as u64
                            } else if k + 1 == n {
                                left
                            } else {
                                each.min(left)
                            };
                            left -= len;
                            if exact && self.obs.wants_stream_headers() {
                                self.observe_iscsi_pdu(io, step, k as usize, conn, side);
                            }
                            let tag = if k + 1 == n { id | ID_LAST } else { id };
                            self.tcp_send(conn, side, len, tag);
                        }
                        self.start_early(io, job, io_op, step);
                    }
                    Medium::RdmaRead => {
                        let len = tr.data_bytes.max(1) as u64;
                        if transport == StorageTransport::Iwarp {
                            // Posted by the side that receives the data.
                            self.iwarp_post(conn, side_of(tr.from.peer()), RdmaOp::Read, len, id | ID_READ);
                        } else {
                            let role = role_of(&tr).expect("an RDMA transfer has a role");
                            let sess = &mut self.storage.sessions[session];
                            let q = sess.qp[role];
                            debug_assert_ne!(q, NO_QP, "the session has the queue pair of every role its jobs use");
                            // At most the adapter's outstanding READs per queue pair; the
                            // rest go as responses complete (`storage_completed`).
                            if sess.reads[role - ROLE_TARGET_READS].admit(PendingRead { io, step, len }).is_some() {
                                self.post_op(q, id, RdmaOp::Read, len, now);
                            }
                        }
                    }
                    Medium::Send | Medium::RdmaWrite => {
                        let role = role_of(&tr).expect("an RDMA transfer has a role");
                        let (n, each, total) = pieces(&tr);
                        let op = if tr.medium == Medium::Send { RdmaOp::Send } else { RdmaOp::Write };
                        let credit = op == RdmaOp::Send
                            && matches!(self.storage.jobs[job].job.protocol, crate::storage::Protocol::SmbDirect(_));
                        let mut left = total;
                        for k in 0..n {
                            let len = if k + 1 == n { left } else { each.min(left) };
                            left -= len;
                            let posted = Posted { io, step, last: k + 1 == n, credit };
                            self.session_post(session, role, op, posted, len);
                        }
                        self.start_early(io, job, io_op, step);
                    }
                }
            }
        }
    }

    /// Start the steps posted right behind `step` on the same queue pair or stream.
    fn start_early(&mut self, io: u32, job: usize, io_op: IoOp, step: u16) {
        let n = self.storage.jobs[job].plans[io_op as usize].succ[step as usize].len();
        for i in 0..n {
            let plan = &self.storage.jobs[job].plans[io_op as usize];
            let k = plan.succ[step as usize][i];
            if plan.early[k as usize] {
                self.start_step(io, k);
            }
        }
    }

    /// Post a SEND or WRITE of a session's role `role`, or queue it for an SMB Direct credit.
    fn session_post(&mut self, session: usize, role: usize, op: RdmaOp, posted: Posted, len: u64) {
        let sess = &mut self.storage.sessions[session];
        if posted.credit {
            if let Some(c) = sess.credits[role].as_mut() {
                if !sess.waiting[role].is_empty() || !c.try_send() {
                    sess.waiting[role].push_back(Waiting { posted, len });
                    return;
                }
            }
        }
        self.session_emit(session, role, op, posted, len);
    }

    /// Put a SEND or WRITE of role `role` on the session's transport: its queue pair (RoCE),
    /// or its TCP connection as an iWARP operation whose id says what it is.
    fn session_emit(&mut self, session: usize, role: usize, op: RdmaOp, posted: Posted, len: u64) {
        let now = self.now;
        let sess = &mut self.storage.sessions[session];
        if sess.transport == StorageTransport::Iwarp {
            let mut id = encode(posted.io, posted.step);
            if posted.last {
                id |= ID_LAST;
            }
            if posted.credit {
                id |= ID_CREDIT;
            }
            let side = u32::from(role != ROLE_TO_TARGET);
            let c = sess.conn;
            self.iwarp_post(c, side, op, len, id);
        } else {
            let q = sess.qp[role];
            self.fifo_posted(session, role, posted);
            self.post_op(q, 0, op, len, now);
        }
    }

    /// A READ of a storage session completed at its requester: its slot goes to the next READ
    /// waiting on the queue pair, if any.
    pub(super) fn storage_completed(&mut self, session: u32, role: u8, c: Completion, visible: Time) {
        if c.op != RdmaOp::Read || role as usize == ROLE_TO_TARGET || role as usize == ROLE_TO_INITIATOR {
            // SENDs and WRITEs are complete when they are in the peer's memory (delivered).
            return;
        }
        let sess = &mut self.storage.sessions[session as usize];
        if let Some(next) = sess.reads[role as usize - ROLE_TARGET_READS].completed() {
            let q = sess.qp[role as usize];
            let now = self.now;
            self.post_op(q, encode(next.io, next.step), RdmaOp::Read, next.len, now);
        }
        let (io, step) = decode(c.id);
        self.queue.push(visible.max(self.now), Event::StepDone { io, step });
    }

    /// A SEND or WRITE of a storage session is in the receiver's memory at `visible`.
    pub(super) fn storage_delivered(&mut self, session: u32, role: u8, visible: Time) {
        let s = session as usize;
        let r = role as usize;
        let Some(p) = self.storage.sessions[s].fifo[r].pop_front() else {
            debug_assert!(false, "a delivery without a posted message");
            return;
        };
        if p.credit {
            self.grant_credit(s, r);
        }
        if p.last {
            self.queue.push(visible.max(self.now), Event::StepDone { io: p.io, step: p.step });
        }
    }

    /// The peer consumed one SMB Direct SEND of `role` and grants its credit back; SENDs
    /// waiting for one go while credits last.
    pub(super) fn grant_credit(&mut self, session: usize, role: usize) {
        if self.credit_crosses(session, role) {
            return;
        }
        self.credit_returned(session, role);
    }

    /// One SMB Direct credit of `role` is back at its sender: SENDs waiting for one go while
    /// credits last.
    fn credit_returned(&mut self, session: usize, role: usize) {
        if let Some(c) = self.storage.sessions[session].credits[role].as_mut() {
            c.on_grant(1, 1);
        }
        loop {
            let sess = &mut self.storage.sessions[session];
            let Some(c) = sess.credits[role].as_mut() else { return };
            if sess.waiting[role].is_empty() || !c.try_send() {
                return;
            }
            let w = sess.waiting[role].pop_front().expect("checked");
            self.session_emit(session, role, RdmaOp::Send, w.posted, w.len);
        }
    }

    /// Step `step` of IO `io` is complete: what waited on it starts.
    #[inline(never)]
    pub(super) fn step_done(&mut self, io: u32, step: u16) {
        let (job, session, op) = self.io_context(io);
        let slot = &mut self.storage.ios[io as usize];
        if slot.state[step as usize] == DONE {
            return;
        }
        slot.state[step as usize] = DONE;
        slot.left -= 1;
        let left = slot.left;
        let s = self.storage.jobs[job].plans[op as usize].steps[step as usize];
        let here = self.step_node(session, &s, true);
        self.slot_changed(session, here, parts::SlotNote::Step { io, step, state: DONE });
        let n = self.storage.jobs[job].plans[op as usize].succ[step as usize].len();
        for i in 0..n {
            let k = self.storage.jobs[job].plans[op as usize].succ[step as usize][i];
            self.start_step(io, k);
        }
        if left == 0 {
            debug_assert!(self.is_here(self.storage.sessions[session].initiator), "an IO completes at its initiator");
            let post = self.storage.jobs[job].plans[op as usize].init_cpu.1;
            let (node, core) = self.storage.sessions[session].initiator_core();
            let t = self.cpu_run(node, core, post);
            self.queue.push(t, Event::IoDone { io });
        }
    }

    /// The target's service of a step ends: the next waiting IO enters service; the target's
    /// completion work runs.
    #[inline(never)]
    pub(super) fn target_done(&mut self, io: u32, step: u16) {
        let now = self.now;
        let (job, session, op) = self.io_context(io);
        let t = self.storage.jobs[job].target as usize;
        if let Some(s) = self.storage.targets[t].target.complete(now) {
            let (nio, nstep) = decode(s.id);
            self.queue.push(s.done_at, Event::TargetDone { io: nio, step: nstep });
        }
        let post = self.storage.jobs[job].plans[op as usize].target_cpu[step as usize].1;
        let (node, core) = self.storage.sessions[session].target_core();
        let done = self.cpu_run(node, core, post);
        self.queue.push(done, Event::StepDone { io, step });
    }

    /// The node where step `s` of an IO of `session` starts (the side that writes a transfer
    /// or posts an RDMA READ, the target for a service), or with `done`, where it is done (the side a transfer is
    /// written to).
    fn step_node(&self, session: usize, s: &Step, done: bool) -> u32 {
        let sess = &self.storage.sessions[session];
        match s.kind {
            StepKind::Service => sess.target,
            StepKind::Transfer(tr) => {
                // An RDMA READ is posted by the side the data goes to, where it is done too.
                let side =
                    if done || tr.medium == Medium::RdmaRead { side_of(tr.from.peer()) } else { side_of(tr.from) };
                if side == 0 {
                    sess.initiator
                } else {
                    sess.target
                }
            }
        }
    }

    /// IO `io` is complete at its initiator: the clone records it and issues the next.
    #[inline(never)]
    pub(super) fn io_done(&mut self, io: u32) {
        let now = self.now;
        let st = &mut self.storage;
        let slot = &st.ios[io as usize];
        let (clone, req) = (slot.clone, slot.req);
        st.clones[clone as usize].engine.on_complete(now, &req);
        st.clones[clone as usize].slots.push(io);
        self.clone_issue(clone);
    }
}

/// The connection side of a session's end (side 0 at the initiator).
pub(super) fn side_of(s: crate::storage::protocol::Side) -> u32 {
    u32::from(s == crate::storage::protocol::Side::Target)
}

/// A transfer cut into its messages (PDUs, SENDs): how many, the bytes of each but the last,
/// and the bytes of all.
fn pieces(tr: &crate::storage::protocol::Transfer) -> (u64, u64, u64) {
    let total = tr.bytes().max(1);
    let n = (tr.messages.max(1) as u64).min(total);
    (n, total.div_ceil(n), total)
}
