//! The canonical order of the events of one instant: a key derived from the event itself.
//!
//! Events at equal times pop by [`Key`], a function of the event alone (its kind and the
//! entity it names), never of the order in which the events were pushed. The order of one
//! instant is then the same whatever else the queue holds, so that a part of the fabric run
//! on its own (a partition of a multi-threaded run) pops its events in the order a run of the
//! whole fabric gives them: the events of two parts at one instant do not affect each other
//! (what one part sends another arrives a link's delay later), and each part's events keep
//! their relative order. A push order (first in, first out among ties) is global and could not
//! be reproduced part by part.
//!
//! **Layout** (54 bits, the width a wheel key leaves beside a time's offset in its slot): the
//! kind's rank (5 bits, [`rank`]), above the entity (32 bits: a port, flow, queue pair, TCP
//! endpoint, storage clone or IO slot), above a detail (17 bits: a PFC priority, a queue pair's
//! side or a storage step).
//!
//! **Equal keys.** Two pending events at one instant with one key are either the same event
//! (a host's NIC woken twice) or timers of one entity of which at most one is current, the
//! others stale by their generation (which only grows), so they do nothing in any order: the
//! generation is left out of the key, and the order of equal keys does not reach results.
//! Two frames cannot arrive on one port at one instant (a frame takes time to serialize), so
//! an arrival's key names its port, not its packet, whose index in a packet pool is not
//! canonical.

use super::Event;

/// An event's place among the events of its instant: ascending keys pop first.
pub type Key = u64;

/// Bits of a key (what a wheel entry keeps beside the time's offset in its slot).
pub const KEY_BITS: u32 = 54;
const ENTITY_SHIFT: u32 = 17;
const RANK_SHIFT: u32 = ENTITY_SHIFT + 32;
const _: () = assert!(RANK_SHIFT + 5 == KEY_BITS);

/// The rank of an event's kind among the kinds at one instant: first the end of the frames
/// being sent (a transmitter whose `TxDone` was left out is free from the end of its frame on,
/// for every event of that instant, `Sim::wire_free`: so the ones pushed come first too), then
/// frames and pauses arriving (a port's state at an instant includes what reached it then),
/// the pause and NIC timers, the transports' timers, the starts of flows and storage work,
/// sampling (which sees the instant's outcome), and last the end of the run.
#[inline(always)]
fn rank(ev: &Event) -> u64 {
    match ev {
        Event::TxDone { .. } => 0,
        Event::PfcArrive { .. } => 1,
        Event::LinkPauseArrive { .. } => 2,
        Event::WireArrive { .. } => 3,
        Event::PauseExpire { .. } => 4,
        Event::LinkPauseExpire { .. } => 5,
        Event::PfcRefresh { .. } => 6,
        Event::LinkPauseRefresh { .. } => 7,
        Event::HostRxCheck { .. } => 8,
        Event::NicWake { .. } => 9,
        Event::QpTimer { .. } => 10,
        Event::TcpTimer { .. } => 11,
        Event::TargetDone { .. } => 12,
        Event::StepDone { .. } => 13,
        Event::StepReady { .. } => 14,
        Event::IoDone { .. } => 15,
        Event::CloneStart { .. } => 16,
        Event::FlowStart { .. } => 17,
        Event::Sample => 18,
        Event::StopRun => 19,
    }
}

/// The entity an event names and its detail (see the module documentation). Always inlined,
/// as `rank` and `Event::key`: where a push names its kind (a frame's arrival, a `TxDone`), the
/// key folds to a constant and the port; as a call (3.9 million on the k = 32 fat tree's 6.3
/// million events of 150 µs) it cost 9 instructions and a call's.
#[inline(always)]
fn entity(ev: &Event) -> (u32, u32) {
    match *ev {
        Event::TxDone { port }
        | Event::WireArrive { port, .. }
        | Event::PfcArrive { port, .. }
        | Event::NicWake { port }
        | Event::HostRxCheck { port, .. }
        | Event::LinkPauseArrive { port, .. }
        | Event::LinkPauseExpire { port, .. }
        | Event::LinkPauseRefresh { port, .. } => (port, 0),
        Event::PauseExpire { port, prio, .. } | Event::PfcRefresh { port, prio, .. } => (port, prio as u32),
        Event::FlowStart { flow } => (flow, 0),
        Event::QpTimer { qp, side, .. } => (qp, side as u32),
        Event::TcpTimer { ep, .. } => (ep, 0),
        Event::CloneStart { clone } => (clone, 0),
        Event::StepReady { io, step } | Event::StepDone { io, step } | Event::TargetDone { io, step } => {
            (io, step as u32)
        }
        Event::IoDone { io } => (io, 0),
        Event::Sample | Event::StopRun => (0, 0),
    }
}

impl Event {
    /// This event's canonical key ([`Key`]).
    #[inline(always)]
    pub fn key(&self) -> Key {
        let (entity, detail) = entity(self);
        (rank(self) << RANK_SHIFT) | ((entity as u64) << ENTITY_SHIFT) | detail as u64
    }
}
