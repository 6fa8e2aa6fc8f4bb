//! IEEE 802.3x link flow control (PAUSE, IEEE 802.3 Annex 31B) on a port: the link-wide
//! counterpart of PFC, with the same two state machines ([`PauseState`] on the receiving side,
//! [`XoffState`] on the sending side) and the same MAC-control path on the wire.
//!
//! * **Sending.** A port with link pause on sends a PAUSE of its quanta when a buffer condition
//!   behind it begins: at a switch, a lossless priority group of the port that has no PFC
//!   crossing its XOFF threshold (the ingress buffer of the port filling); at a host, the receive
//!   buffer crossing its XOFF level. While any condition holds it refreshes the PAUSE at half its
//!   time; when the last one clears it sends a PAUSE of 0 quanta (resume).
//! * **Honouring.** A port with link pause on that receives a PAUSE stops every frame of the
//!   link — all priorities, lossy and lossless — after the frame in flight, until the time runs
//!   out or a 0-quanta PAUSE arrives. A port without link pause counts the frame and ignores it.
//!
//! MAC control frames go before data (a pending PAUSE is sent when the current frame ends, like a
//! PFC frame); PAUSE frames are counted apart from data and PFC frames.

use super::{PortRt, Sim};
use crate::event::Event;
use crate::observer::{Direction, Observer};
use crate::pfc::{PauseChange, PauseState, XoffAction, XoffState};

/// The 802.3x state of a port.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LinkPauseRt {
    /// Link pause on: the port sends and honours PAUSE frames.
    pub enabled: bool,
    /// A received PAUSE is in force.
    pub paused: bool,
    /// A PAUSE frame waits for the wire.
    pub pending: bool,
    pub pending_quanta: u16,
    /// Conditions asking for a PAUSE (bit per priority at a switch; bit 0 for a host's receive
    /// buffer).
    pub asserted: u8,
    pub rx: PauseState,
    pub tx: XoffState,
    pub sent: u64,
    pub received: u64,
}

impl PortRt {
    /// Recompute the paused priorities from PFC's timers and the link-level pause.
    pub(crate) fn refresh_paused(&mut self) {
        self.paused = if self.lp.paused {
            0xFF
        } else {
            (0..8).filter(|&p| self.pause[p].is_paused()).fold(0u8, |m, p| m | (1 << p))
        };
    }
}

impl<O: Observer> Sim<'_, O> {
    /// Buffer condition `bit` behind `port` begins: send PAUSE if it is the first.
    pub(super) fn link_pause_assert(&mut self, port: u32, bit: u8) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let first = p.lp.asserted == 0;
        p.lp.asserted |= 1 << bit;
        if !first {
            return;
        }
        if let XoffAction::SendXoff { refresh_at, gen } = p.lp.tx.assert(now, p.pause_time) {
            let q = p.pfc_quanta;
            self.request_link_pause(port, q);
            self.queue.push(refresh_at, Event::LinkPauseRefresh { port, gen });
        }
    }

    /// Buffer condition `bit` behind `port` clears: resume the peer when none is left.
    pub(super) fn link_pause_deassert(&mut self, port: u32, bit: u8) {
        let p = &mut self.ports[port as usize];
        p.lp.asserted &= !(1 << bit);
        if p.lp.asserted == 0 && p.lp.tx.deassert() == XoffAction::SendXon {
            self.request_link_pause(port, 0);
        }
    }

    #[inline(never)]
    pub(super) fn link_pause_refresh(&mut self, port: u32, gen: u32) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if let XoffAction::SendXoff { refresh_at, gen } = p.lp.tx.on_refresh(now, gen, p.pause_time) {
            let q = p.pfc_quanta;
            self.request_link_pause(port, q);
            self.queue.push(refresh_at, Event::LinkPauseRefresh { port, gen });
        }
    }

    /// Queue a PAUSE of `quanta` (replacing one not yet sent) and send it when the wire is free.
    fn request_link_pause(&mut self, port: u32, quanta: u16) {
        let p = &mut self.ports[port as usize];
        p.lp.pending = true;
        p.lp.pending_quanta = quanta;
        p.pfc_pending = true;
        if self.wire_free(port) {
            self.start_pfc_tx(port);
        }
    }

    /// Put the pending PAUSE frame on the wire (the port is free).
    pub(super) fn start_link_pause_tx(&mut self, port: u32) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let ser = p.rate.frame_time(self.wire.pfc_frame as u64);
        let quanta = p.lp.pending_quanta;
        p.lp.pending = false;
        p.lp.sent += 1;
        // A PFC frame may wait behind it.
        p.pfc_pending = p.pfc_pending_enable != 0;
        let (peer, arrive) = (p.peer, now + ser + p.prop);
        self.obs.on_link_pause(now, port as usize, quanta, Direction::Tx);
        self.start_tx(port, now + ser);
        self.queue.push(arrive, Event::LinkPauseArrive { port: peer, quanta });
    }

    /// A PAUSE frame arrives at `port`.
    #[inline(never)]
    pub(super) fn link_pause_arrive(&mut self, port: u32, quanta: u16) {
        let now = self.now;
        self.obs.on_link_pause(now, port as usize, quanta, Direction::Rx);
        let p = &mut self.ports[port as usize];
        p.lp.received += 1;
        if !p.lp.enabled {
            return;
        }
        match p.lp.rx.on_frame(now, quanta, p.rate.bps()) {
            PauseChange::Paused { until, gen } => {
                p.lp.paused = true;
                p.refresh_paused();
                self.queue.push(until, Event::LinkPauseExpire { port, gen });
            }
            PauseChange::Resumed => {
                p.lp.paused = false;
                p.refresh_paused();
                self.try_transmit(port);
            }
            PauseChange::None => {}
        }
    }

    /// The received pause of `port` runs out (if `gen` is current).
    #[inline(never)]
    pub(super) fn link_pause_expire(&mut self, port: u32, gen: u32) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if p.lp.rx.on_expire(now, gen) {
            p.lp.paused = false;
            p.refresh_paused();
            self.try_transmit(port);
        }
    }
}
