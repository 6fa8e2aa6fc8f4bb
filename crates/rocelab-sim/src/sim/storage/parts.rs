//! Storage sessions in a run on several threads (`sim/parallel`): the IO slots at both ends
//! of a session, what else of a session over RDMA crosses between its ends, and how the hosts'
//! storage state is put back together at the end.
//!
//! **Where each piece lives.** A clone (its fio engine, its IO slots' allocation) is at its
//! initiator; a storage owner ([`crate::storage::target::Target`]) at its node; a host's cores
//! at the host. Every storage event runs at one of them: a clone's start, an IO's issue and
//! completion at the initiator; a service and the target's CPU work at the target; a transfer
//! starts at the side that writes its PDUs and is done where the last arrives, and the steps
//! after a step start where it is done.
//!
//! **The IO slot at both ends.** An IO's slot (its request and each step's state: waiting,
//! started, done) is read at both ends: the target needs the request for its service and
//! must not start a step the initiator already wrote behind another on its stream (iSCSI's
//! unsolicited Data-Out behind its command); the initiator counts the steps done at the
//! target to know when the IO is complete. Each end keeps a copy; every change to it (the
//! issue, a step started or done) is sent to the other end's part as it is made. The other
//! end reads that change only after a frame sent after it has crossed to it: a step started
//! is read when the step before it, written at the same instant on the same stream, arrives;
//! the issue when the command does; a step done at the target when the response it leads to
//! does. That frame crosses a link between the parts, at least a lookahead later, so in a
//! later window, and the change arrives first, at the start of the next window.
//!
//! **Sessions over RDMA.** What else a session shares between its ends, and where it lives:
//!
//! * the READ gate of a role ([`super::reads::ReadGate`], the adapter's outstanding RDMA READs)
//!   is the READ requester's alone: it admits a READ where it is posted and lets the next go
//!   at the requester's completion;
//! * the list of SENDs and WRITEs in flight on a RoCE queue pair (`SessionRt::fifo`) is filled
//!   by the poster and read by the receiver, which learns which step a delivered message ends:
//!   each entry is sent to the receiver's part as it is posted ([`SlotNote::Posted`]), and
//!   read when the message's last packet is in the receiver's memory, after crossing a link
//!   between the parts (over iWARP, the message's id carries the same, with the stream);
//! * an SMB Direct sender's credits ([MS-SMBD] §3.1.1.1 `SendCredits`): taken by the sender,
//!   granted back by the receiver as it consumes a SEND ([`SlotNote::Credit`]). The model grants
//!   at once, with no frame, so a sender in another part learns of a grant only at the next
//!   window: exact only if the sender never waits for a credit, which holds when a session's
//!   credits cover every SEND its clones' IO slots may have in flight ([`credits_may_run_out`]:
//!   a slot's next IO is issued only after its previous IO's SENDs were consumed and the grant,
//!   sent before, has crossed). A run where they may not is refused.

use super::{CpuRt, IoRt, Posted, SessionRt, StorageRt, DONE};
use crate::observer::{NoObserver, Observer};
use crate::sim::parallel::Message;
use crate::sim::tcp::parts::TcpCargo;
use crate::sim::Sim;
use crate::storage::job::IoOp;
use crate::storage::job::IoRequest;
use crate::storage::plan::{role_of, StorageTraffic, ROLE_TO_INITIATOR, ROLE_TO_TARGET};
use crate::storage::protocol::{Medium, Protocol, StepKind};

/// A change to an IO slot, for the copy at the other end of its session.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SlotNote {
    /// Slot `io` now holds a new IO of `clone` with `steps` steps.
    Issued { io: u32, clone: u32, req: IoRequest, steps: u16 },
    /// Step `step` of the IO in slot `io` is now in `state` (started or done).
    Step { io: u32, step: u16, state: u8 },
    /// A SEND or WRITE of `role` was posted on the RoCE queue pair of `session`, for the
    /// receiver's list of messages in flight.
    Posted { session: u32, role: u8, posted: Posted },
    /// The receiver of `role`'s SENDs on `session` granted one SMB Direct credit back.
    Credit { session: u32, role: u8 },
}

impl<O: Observer> Sim<'_, O> {
    /// Send `note` about an IO of `session` to the part of the session's other end, if that
    /// is another part (`here` is the node the change was made at); whether it was sent.
    pub(super) fn slot_changed(&mut self, session: usize, here: u32, note: SlotNote) -> bool {
        let Some(part) = self.part.as_deref_mut() else { return false };
        let s = &self.storage.sessions[session];
        let other = if here == s.initiator { s.target } else { s.initiator };
        let to = part.part_of[other as usize];
        if to == part.me {
            return false;
        }
        let cargo = Some(Box::new(TcpCargo::Slot(note)));
        part.outbox[to as usize].push(Message { time: self.now, event: None, packet: None, tcp: cargo });
        true
    }

    /// `posted` went on `session`'s RoCE queue pair of `role`: into the receiver's list of
    /// messages in flight, here or in a message to its part.
    pub(super) fn fifo_posted(&mut self, session: usize, role: usize, posted: Posted) {
        let poster = sender_of(&self.storage.sessions[session], role);
        let note = SlotNote::Posted { session: session as u32, role: role as u8, posted };
        if !self.slot_changed(session, poster, note) {
            self.storage.sessions[session].fifo[role].push_back(posted);
        }
    }

    /// A credit of `role` granted by its receiver, here: whether it went to the sender's
    /// part (else the sender is here, and takes it at once).
    pub(super) fn credit_crosses(&mut self, session: usize, role: usize) -> bool {
        let s = &self.storage.sessions[session];
        let receiver = if sender_of(s, role) == s.initiator { s.target } else { s.initiator };
        self.slot_changed(session, receiver, SlotNote::Credit { session: session as u32, role: role as u8 })
    }

    /// A change made at the other end of a session to this end's copy of an IO slot.
    pub(in crate::sim) fn slot_note_in(&mut self, note: SlotNote) {
        let st = &mut self.storage;
        match note {
            SlotNote::Issued { io, clone, req, steps } => {
                let io = io as usize;
                if st.ios.len() <= io {
                    st.ios.resize_with(io + 1, || IoRt { clone: 0, req, state: Vec::new(), left: 0 });
                }
                let slot = &mut st.ios[io];
                (slot.clone, slot.req, slot.left) = (clone, req, steps);
                slot.state.clear();
                slot.state.resize(steps as usize, super::WAITING);
            }
            SlotNote::Step { io, step, state } => {
                let slot = &mut st.ios[io as usize];
                if state == DONE && slot.state[step as usize] != DONE {
                    slot.left -= 1;
                }
                slot.state[step as usize] = slot.state[step as usize].max(state);
            }
            SlotNote::Posted { session, role, posted } => {
                st.sessions[session as usize].fifo[role as usize].push_back(posted);
            }
            SlotNote::Credit { session, role } => {
                debug_assert!(
                    st.sessions[session as usize].waiting[role as usize].is_empty(),
                    "no SMB Direct SEND waits for a credit in a run on several threads"
                );
                self.credit_returned(session as usize, role as usize);
            }
        }
    }

    /// Whether `node` is in this engine (the whole run, or its part).
    pub(super) fn is_here(&self, node: u32) -> bool {
        self.part.as_deref().is_none_or(|p| p.part_of[node as usize] == p.me)
    }
}

/// Gather the storage state into `engines[0]`: each clone from its initiator's part, each
/// storage owner and each host's cores from their node's.
pub(in crate::sim) fn merge_storage(engines: &mut [&mut Sim<'_, NoObserver>], part_of: &dyn Fn(u32) -> usize) {
    let st: &StorageRt = &engines[0].storage;
    let clones: Vec<usize> = st.clones.iter().map(|c| part_of(st.sessions[c.session as usize].initiator)).collect();
    let targets: Vec<usize> = st.targets.iter().map(|t| part_of(t.node)).collect();
    let cpus: Vec<usize> = st.cpu_node.iter().map(|&n| part_of(n)).collect();
    for (k, o) in clones.into_iter().enumerate().filter(|&(_, o)| o != 0) {
        let (base, from) = first_and(engines, o);
        std::mem::swap(&mut base.storage.clones[k], &mut from.storage.clones[k]);
    }
    for (k, o) in targets.into_iter().enumerate().filter(|&(_, o)| o != 0) {
        let (base, from) = first_and(engines, o);
        std::mem::swap(&mut base.storage.targets[k], &mut from.storage.targets[k]);
    }
    for (k, o) in cpus.into_iter().enumerate().filter(|&(_, o)| o != 0) {
        let (base, from) = first_and(engines, o);
        let (b, f): (&mut CpuRt, &mut CpuRt) = (&mut base.storage.cpus[k], &mut from.storage.cpus[k]);
        std::mem::swap(b, f);
    }
    // A session's RDMA state: a role's credits and waiting SENDs from its sender's part, its
    // list in flight from its receiver's, a READ gate from its requester's.
    for k in 0..engines[0].storage.sessions.len() {
        let s = &engines[0].storage.sessions[k];
        let (initiator, target) = (s.initiator, s.target);
        let sender = [part_of(initiator), part_of(target)];
        for role in [ROLE_TO_TARGET, ROLE_TO_INITIATOR] {
            let (o, r) = (sender[role], sender[role ^ 1]);
            if o != 0 {
                let (base, from) = first_and(engines, o);
                let (b, f) = (&mut base.storage.sessions[k], &mut from.storage.sessions[k]);
                std::mem::swap(&mut b.credits[role], &mut f.credits[role]);
                std::mem::swap(&mut b.waiting[role], &mut f.waiting[role]);
            }
            if r != 0 {
                let (base, from) = first_and(engines, r);
                let (b, f) = (&mut base.storage.sessions[k], &mut from.storage.sessions[k]);
                std::mem::swap(&mut b.fifo[role], &mut f.fifo[role]);
            }
        }
        // READ roles: the target's READs (index 0), then the initiator's.
        for (g, o) in [part_of(target), part_of(initiator)].into_iter().enumerate().filter(|&(_, o)| o != 0) {
            let (base, from) = first_and(engines, o);
            let (b, f) = (&mut base.storage.sessions[k], &mut from.storage.sessions[k]);
            std::mem::swap(&mut b.reads[g], &mut f.reads[g]);
        }
    }
}

/// The node that posts the SENDs and WRITEs of `role` (a SEND/WRITE role) of `s`.
fn sender_of(s: &SessionRt, role: usize) -> u32 {
    if role == ROLE_TO_TARGET {
        s.initiator
    } else {
        s.target
    }
}

/// Whether an SMB Direct sender of some session of `st` may run out of send credits: its
/// credits fewer than the SENDs its session's IO slots may have in flight at once (per slot,
/// the most credit-taking SENDs of that direction an IO of its job posts). A run on several
/// threads where they may is refused (see the module documentation).
pub(crate) fn credits_may_run_out(st: &StorageTraffic) -> bool {
    let mut need: Vec<[u64; 2]> = vec![[0; 2]; st.sessions.len()];
    for job in st.jobs.iter().filter(|j| !j.is_local()) {
        if !matches!(job.protocol, Protocol::SmbDirect(_)) {
            continue;
        }
        let mut per_io = [0u64; 2];
        for op in [IoOp::Read, IoOp::Write] {
            let plan = super::IoPlan::new(job, op);
            let mut sends = [0u64; 2];
            for s in &plan.steps {
                if let StepKind::Transfer(tr) = s.kind {
                    if tr.medium == Medium::Send {
                        let role = role_of(&tr).expect("a SEND has a role");
                        sends[role] += super::pieces(&tr).0;
                    }
                }
            }
            per_io = [per_io[0].max(sends[0]), per_io[1].max(sends[1])];
        }
        for &session in &job.sessions {
            let n = &mut need[session as usize];
            for role in 0..2 {
                n[role] += u64::from(job.spec.iodepth) * per_io[role];
            }
        }
    }
    st.sessions.iter().zip(&need).any(|(s, n)| {
        // The session's credits, as the build gives them: its first SMB Direct job's.
        let credits = st.jobs.iter().find_map(|j| match &j.protocol {
            Protocol::SmbDirect(p) if j.initiator == s.initiator && j.target == s.target => Some(p.credits),
            _ => None,
        });
        credits.is_some_and(|c| n.iter().any(|&x| x > u64::from(c)))
    })
}

/// Element 0 and element `o` (`o > 0`) of `v`, both mutable.
fn first_and<'v, T>(v: &'v mut [&mut T], o: usize) -> (&'v mut T, &'v mut T) {
    let (a, b) = v.split_at_mut(o);
    (&mut *a[0], &mut *b[0])
}
