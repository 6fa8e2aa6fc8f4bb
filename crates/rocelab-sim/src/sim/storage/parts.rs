//! Storage sessions over TCP in a run on several threads (`sim/parallel`): the IO slots at
//! both ends of a session, and how the hosts' storage state is put back together at the end.
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

use super::{CpuRt, IoRt, StorageRt, DONE};
use crate::observer::{NoObserver, Observer};
use crate::sim::parallel::Message;
use crate::sim::tcp::parts::TcpCargo;
use crate::sim::Sim;
use crate::storage::job::IoRequest;

/// A change to an IO slot, for the copy at the other end of its session.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SlotNote {
    /// Slot `io` now holds a new IO of `clone` with `steps` steps.
    Issued { io: u32, clone: u32, req: IoRequest, steps: u16 },
    /// Step `step` of the IO in slot `io` is now in `state` (started or done).
    Step { io: u32, step: u16, state: u8 },
}

impl<O: Observer> Sim<'_, O> {
    /// Send `note` about an IO of `session` to the part of the session's other end, if that
    /// is another part (`here` is the node the change was made at).
    pub(super) fn slot_changed(&mut self, session: usize, here: u32, note: SlotNote) {
        let Some(part) = self.part.as_deref_mut() else { return };
        let s = &self.storage.sessions[session];
        let other = if here == s.initiator { s.target } else { s.initiator };
        let to = part.part_of[other as usize];
        if to != part.me {
            let cargo = Some(Box::new(TcpCargo::Slot(note)));
            part.outbox[to as usize].push(Message { time: self.now, event: None, packet: None, tcp: cargo });
        }
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
}

/// Element 0 and element `o` (`o > 0`) of `v`, both mutable.
fn first_and<'v, T>(v: &'v mut [&mut T], o: usize) -> (&'v mut T, &'v mut T) {
    let (a, b) = v.split_at_mut(o);
    (&mut *a[0], &mut *b[0])
}
