//! A connection's two ends in a run on several threads (`sim/parallel`): what crosses between
//! the parts of its hosts, and how the ends' state is put back together at the end.
//!
//! Each handler of a connection runs at one host and reads and writes only its own end: the
//! side's endpoint, timer, ready flag and TSecr, the stream it writes (`streams[side].msgs`,
//! until acknowledged) and the reader's list of the stream it reads (`streams[side ^ 1]`'s
//! `unread`, until delivered). The bulk and iWARP flow applications live at side 0; a flow's
//! counters are kept where each is counted (sent at the sender, delivered where data arrives,
//! which for an iWARP READ is side 0) and summed. Two things cross from one host to the other:
//!
//! * a segment's header and offsets ([`SegInfo`]), which sit beside the packet in the side
//!   pool indexed by packet id, travel with the frame to the part where it arrives;
//! * a message written on a stream whose reader is in another part goes to that part as it is
//!   written. The reader needs it only when its bytes arrive, and they cannot arrive before: the
//!   first leaves the writer no earlier than the write and crosses a link between the parts,
//!   at least a lookahead later, so in a later window; the message is delivered at the start of
//!   the next window, before any event of it runs.

use crate::observer::{NoObserver, Observer};
use crate::packet::PacketKind;
use crate::sim::parallel::Message;
use crate::sim::tcp::{SegInfo, StreamMsg};
use crate::sim::Sim;

/// What a message between parts carries for TCP.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TcpCargo {
    /// The segment of the frame the message carries.
    Segment(SegInfo),
    /// Message `msg` written on side `side`'s stream of connection `conn`, for its reader.
    Written { conn: u32, side: u32, msg: StreamMsg },
    /// A change to a storage IO slot at the other end of its session (`sim/storage/parts.rs`).
    Slot(crate::sim::storage::parts::SlotNote),
}

impl<O: Observer> Sim<'_, O> {
    /// Side `side` of `c` wrote `msg`: the reader's list has it, at once when the reader's
    /// host is in this engine (the whole run, or its part), else in a message to its part.
    pub(super) fn tcp_written(&mut self, c: u32, side: u32, msg: StreamMsg) {
        let conn = &mut self.tcp[c as usize];
        if let Some(part) = self.part.as_deref_mut() {
            let reader = self.ports[conn.port[(side ^ 1) as usize] as usize].node;
            let to = part.part_of[reader as usize];
            if to != part.me {
                let cargo = Some(Box::new(TcpCargo::Written { conn: c, side, msg }));
                part.outbox[to as usize].push(Message { time: self.now, event: None, packet: None, tcp: cargo });
                return;
            }
        }
        conn.streams[side as usize].unread.push_back(msg);
    }

    /// The TCP cargo of frame `id`, which leaves for another part: its segment.
    pub(in crate::sim) fn tcp_cargo_out(&self, id: u32) -> Option<Box<TcpCargo>> {
        if self.pool.get(id).kind != PacketKind::Tcp {
            return None;
        }
        self.tcp_seg.get(id as usize).map(|s| Box::new(TcpCargo::Segment(*s)))
    }

    /// TCP cargo from another part: a segment, now frame `id` of this pool, or a message
    /// written for a reader here.
    pub(in crate::sim) fn tcp_cargo_in(&mut self, id: Option<u32>, cargo: TcpCargo) {
        match (cargo, id) {
            (TcpCargo::Segment(info), Some(id)) => {
                let slot = id as usize;
                if slot >= self.tcp_seg.len() {
                    self.tcp_seg.resize(slot + 1, SegInfo::EMPTY);
                }
                self.tcp_seg[slot] = info;
            }
            (TcpCargo::Written { conn, side, msg }, _) => {
                self.tcp[conn as usize].streams[side as usize].unread.push_back(msg);
            }
            (TcpCargo::Slot(note), _) => self.slot_note_in(note),
            (TcpCargo::Segment(_), None) => debug_assert!(false, "a segment without its frame"),
        }
    }
}

/// Gather each connection's ends into `engines[0]`: a side's endpoint, timer and the stream it
/// writes from its host's part, the reader's list of a stream from the reader's part, the
/// application from side 0's, the frame and message counts summed (each counted in one part).
pub(in crate::sim) fn merge_conns(engines: &mut [&mut Sim<'_, NoObserver>], part_of: &dyn Fn(u32) -> usize) {
    for c in 0..engines[0].tcp.len() {
        let mut data = crate::stats::FrameCounts::default();
        let mut acks = crate::stats::FrameCounts::default();
        let (mut delivered, mut completed) = (0, 0);
        for e in engines.iter() {
            let t = &e.tcp[c];
            (data.sent, data.delivered, data.dropped) =
                (data.sent + t.data.sent, data.delivered + t.data.delivered, data.dropped + t.data.dropped);
            (acks.sent, acks.delivered, acks.dropped) =
                (acks.sent + t.acks.sent, acks.delivered + t.acks.delivered, acks.dropped + t.acks.dropped);
            delivered += t.msgs_delivered;
            completed += t.msgs_completed;
        }
        let node = |e: &Sim<'_, NoObserver>, s: usize| e.ports[e.tcp[c].port[s] as usize].node;
        let owner = [part_of(node(engines[0], 0)), part_of(node(engines[0], 1))];
        for s in 0..2 {
            let r = s ^ 1;
            if owner[s] != 0 {
                let (base, from) = first_and(engines, owner[s]);
                let (b, f) = (&mut base.tcp[c], &mut from.tcp[c]);
                std::mem::swap(&mut b.ep[s], &mut f.ep[s]);
                (b.ts_recent[s], b.timer_at[s], b.timer_gen[s]) = (f.ts_recent[s], f.timer_at[s], f.timer_gen[s]);
                (b.sched[s], b.sndbuf[s]) = (f.sched[s], f.sndbuf[s]);
                std::mem::swap(&mut b.streams[s].msgs, &mut f.streams[s].msgs);
                b.streams[s].end = f.streams[s].end;
                if s == 0 {
                    std::mem::swap(&mut b.app, &mut f.app);
                }
            }
            if owner[r] != 0 {
                let (base, from) = first_and(engines, owner[r]);
                let (b, f) = (&mut base.tcp[c].streams[s], &mut from.tcp[c].streams[s]);
                std::mem::swap(&mut b.unread, &mut f.unread);
                (b.done_payload, b.payload_delivered) = (f.done_payload, f.payload_delivered);
            }
        }
        let b = &mut engines[0].tcp[c];
        (b.data, b.acks, b.msgs_delivered, b.msgs_completed) = (data, acks, delivered, completed);
    }
}

/// Element 0 and element `o` (`o > 0`) of `v`, both mutable.
fn first_and<'v, T>(v: &'v mut [&mut T], o: usize) -> (&'v mut T, &'v mut T) {
    let (a, b) = v.split_at_mut(o);
    (&mut *a[0], &mut *b[0])
}
