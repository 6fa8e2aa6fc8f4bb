//! Pausing a port's transmitter: priority flow control (PFC, IEEE 802.1Qbb) and its link-wide
//! counterpart, 802.3x link flow control. Asserting and deasserting a buffer condition (the
//! XOFF side, [`XoffState`], with its refresh timer), requesting a frame and sending it ahead of
//! data, a frame arriving and the pause it starts or ends (the receiving side, [`PauseState`],
//! with its expiry timer). Their state is the port's cold part ([`super::PortCold`]); the port's
//! paused priorities are kept through [`super::PortCold::update_paused`].
//!
//! Link pause is here, not in a module of its own: it is the same mechanism — the same two state
//! machines, the same MAC-control slot on the wire (a pending PAUSE goes out through
//! [`Sim::start_pfc_tx`]) and the same `paused` mask — and PFC falls back on it where a priority
//! has no PFC.
//!
//! **802.3x** (PAUSE, IEEE 802.3 Annex 31B) on a port: the link-wide
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

use super::port::{own_place, port_and_cold};
use super::Sim;
use crate::event::{Event, TimerSlot};
use crate::observer::{Direction, Observer};
use crate::pfc::{PauseChange, PauseState, PfcFrame, XoffAction, XoffState};
use crate::time::Time;

/// The PFC timer events of one port, per priority, one in the queue each (see [`TimerSlot`]).
/// Apart from `PortRt`, whose size (a stride through memory walked by every frame) they would
/// grow by a third.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PfcTimers {
    /// `PauseExpire`: the pause received runs out.
    pub expire: [TimerSlot; 8],
    /// `PfcRefresh`: the XOFF sent is refreshed.
    pub refresh: [TimerSlot; 8],
}

impl<O: Observer> Sim<'_, O> {
    /// Put the pending PFC frame on the wire (the port is free), or the PAUSE frame if one waits.
    pub(super) fn start_pfc_tx(&mut self, port: u32) {
        if self.cold_mut(port).link_pause.pending {
            self.start_link_pause_tx(port);
            return;
        }
        let now = self.now;
        let pfc_frame = self.wire.pfc_frame as u64;
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        let ser = p.rate.frame_time(pfc_frame);
        let (enable, xoff, quanta) = (p.pfc_pending_enable, p.pfc_pending_xoff, p.pfc_quanta);
        p.pfc_pending = false;
        p.pfc_pending_enable = 0;
        p.pfc_pending_xoff = 0;
        for prio in 0..8 {
            if enable & (1 << prio) != 0 {
                cold.counters[prio].pfc_sent += 1;
            }
        }
        let (peer, arrive) = (p.peer, now + ser + p.prop);
        let frame = PfcFrame::from_masks(enable, xoff, quanta);
        self.obs.on_pfc(now, port as usize, &frame, Direction::Tx);
        self.start_tx(port, now + ser);
        self.push_arrival(port, arrive, Event::PfcArrive { port: peer, enable, xoff, quanta });
    }

    /// The pause received for `prio` on `port` runs out (if `gen` is current); otherwise the
    /// timer slot may hold a later expiry to push again (see [`TimerSlot`]).
    #[inline(never)]
    pub(super) fn pause_expire(&mut self, port: u32, prio: u8, gen: u32) {
        let now = self.now;
        let rearm = self.pfc_timers[own_place(&self.port_place, port)].expire[prio as usize].fired(now);
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        if cold.pause[prio as usize].on_expire(now, gen) {
            cold.update_paused(p);
            self.try_transmit(port);
        } else if let Some((t, seq, gen)) = rearm {
            self.queue.push_reserved(t, seq, Event::PauseExpire { port, prio, gen });
        }
    }

    /// Queue a PFC timer for `prio` on `port` (merged with one already pending) and send it as
    /// soon as the wire is free.
    fn request_pfc(&mut self, port: u32, prio: u8, xoff: bool) {
        if let Some(s) = self.ns3.as_mut().filter(|_| !self.ports[port as usize].is_host) {
            // The IP identification of that simulator's PFC frame takes a stream.
            s.skip();
        }
        let p = &mut self.ports[port as usize];
        p.pfc_pending = true;
        p.pfc_pending_enable |= 1 << prio;
        if xoff {
            p.pfc_pending_xoff |= 1 << prio;
        } else {
            p.pfc_pending_xoff &= !(1 << prio);
        }
        if self.wire_free(port) {
            self.start_pfc_tx(port);
        }
    }

    /// The buffer condition for `prio` behind `port` begins: pause the peer (if PFC is enabled
    /// for `prio` on this port, or else 802.3x link pause; otherwise nothing is sent and the
    /// buffer overflows).
    pub fn pfc_assert(&mut self, port: u32, prio: u8) {
        let now = self.now;
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        if !p.pfc_enabled.contains(prio) {
            if cold.link_pause.enabled {
                self.link_pause_assert(port, prio);
            }
            return;
        }
        if let XoffAction::SendXoff { refresh_at, gen } = cold.xoff[prio as usize].assert(now, p.pause_time) {
            let refresh = !p.pfc_until_resume;
            self.request_pfc(port, prio, true);
            if refresh {
                self.arm_refresh(port, prio, refresh_at, gen);
            }
        }
    }

    /// Schedule the XOFF refresh of `prio` on `port` (see [`TimerSlot`]).
    fn arm_refresh(&mut self, port: u32, prio: u8, at: Time, gen: u32) {
        let seq = self.queue.reserve_seq();
        if self.pfc_timers[own_place(&self.port_place, port)].refresh[prio as usize].arm(at, seq, gen) {
            self.queue.push_reserved(at, seq, Event::PfcRefresh { port, prio, gen });
        }
    }

    /// The buffer condition for `prio` behind `port` clears: resume the peer.
    pub fn pfc_deassert(&mut self, port: u32, prio: u8) {
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        if !p.pfc_enabled.contains(prio) && cold.link_pause.enabled {
            self.link_pause_deassert(port, prio);
            return;
        }
        if cold.xoff[prio as usize].deassert() == XoffAction::SendXon {
            self.pfc_timers[own_place(&self.port_place, port)].refresh[prio as usize].cancel();
            self.request_pfc(port, prio, false);
        }
    }

    #[inline(never)]
    pub(super) fn pfc_refresh(&mut self, port: u32, prio: u8, gen: u32) {
        let now = self.now;
        let rearm = self.pfc_timers[own_place(&self.port_place, port)].refresh[prio as usize].fired(now);
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        if let XoffAction::SendXoff { refresh_at, gen } = cold.xoff[prio as usize].on_refresh(now, gen, p.pause_time) {
            self.request_pfc(port, prio, true);
            self.arm_refresh(port, prio, refresh_at, gen);
        } else if let Some((t, seq, gen)) = rearm {
            self.queue.push_reserved(t, seq, Event::PfcRefresh { port, prio, gen });
        }
    }

    pub(super) fn pfc_arrive(&mut self, port: u32, enable: u8, xoff: u8, quanta: u16) {
        let now = self.now;
        let frame = PfcFrame::from_masks(enable, xoff, quanta);
        self.obs.on_pfc(now, port as usize, &frame, Direction::Rx);
        let place = own_place(&self.port_place, port);
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        let mut resumed = false;
        for prio in 0..8u8 {
            if enable & (1 << prio) == 0 {
                continue;
            }
            cold.counters[prio as usize].pfc_received += 1;
            if !p.pfc_enabled.contains(prio) {
                continue;
            }
            let quanta = frame.quanta[prio as usize];
            let change = if p.pfc_until_resume {
                cold.pause[prio as usize].on_frame_until_resume(now, quanta)
            } else {
                cold.pause[prio as usize].on_frame(now, quanta, p.rate.bps())
            };
            match change {
                PauseChange::Paused { until: Time::MAX, .. } | PauseChange::None => {}
                PauseChange::Paused { until, gen } => {
                    let seq = self.queue.reserve_seq();
                    if self.pfc_timers[place].expire[prio as usize].arm(until, seq, gen) {
                        self.queue.push_reserved(until, seq, Event::PauseExpire { port, prio, gen });
                    }
                }
                PauseChange::Resumed => {
                    self.pfc_timers[place].expire[prio as usize].cancel();
                    resumed = true;
                }
            }
        }
        cold.update_paused(p);
        if resumed {
            self.try_transmit(port);
        }
    }
}

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

impl<O: Observer> Sim<'_, O> {
    /// Buffer condition `bit` behind `port` begins: send PAUSE if it is the first.
    pub(super) fn link_pause_assert(&mut self, port: u32, bit: u8) {
        let now = self.now;
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        let first = cold.link_pause.asserted == 0;
        cold.link_pause.asserted |= 1 << bit;
        if !first {
            return;
        }
        if let XoffAction::SendXoff { refresh_at, gen } = cold.link_pause.tx.assert(now, p.pause_time) {
            let q = p.pfc_quanta;
            self.request_link_pause(port, q);
            self.queue.push(refresh_at, Event::LinkPauseRefresh { port, gen });
        }
    }

    /// Buffer condition `bit` behind `port` clears: resume the peer when none is left.
    pub(super) fn link_pause_deassert(&mut self, port: u32, bit: u8) {
        let cold = self.cold_mut(port);
        cold.link_pause.asserted &= !(1 << bit);
        if cold.link_pause.asserted == 0 && cold.link_pause.tx.deassert() == XoffAction::SendXon {
            self.request_link_pause(port, 0);
        }
    }

    #[inline(never)]
    pub(super) fn link_pause_refresh(&mut self, port: u32, gen: u32) {
        let now = self.now;
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        if let XoffAction::SendXoff { refresh_at, gen } = cold.link_pause.tx.on_refresh(now, gen, p.pause_time) {
            let q = p.pfc_quanta;
            self.request_link_pause(port, q);
            self.queue.push(refresh_at, Event::LinkPauseRefresh { port, gen });
        }
    }

    /// Queue a PAUSE of `quanta` (replacing one not yet sent) and send it when the wire is free.
    fn request_link_pause(&mut self, port: u32, quanta: u16) {
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        cold.link_pause.pending = true;
        cold.link_pause.pending_quanta = quanta;
        p.pfc_pending = true;
        if self.wire_free(port) {
            self.start_pfc_tx(port);
        }
    }

    /// Put the pending PAUSE frame on the wire (the port is free).
    pub(super) fn start_link_pause_tx(&mut self, port: u32) {
        let now = self.now;
        let pfc_frame = self.wire.pfc_frame as u64;
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        let ser = p.rate.frame_time(pfc_frame);
        let quanta = cold.link_pause.pending_quanta;
        cold.link_pause.pending = false;
        cold.link_pause.sent += 1;
        // A PFC frame may wait behind it.
        p.pfc_pending = p.pfc_pending_enable != 0;
        let (peer, arrive) = (p.peer, now + ser + p.prop);
        self.obs.on_link_pause(now, port as usize, quanta, Direction::Tx);
        self.start_tx(port, now + ser);
        self.push_arrival(port, arrive, Event::LinkPauseArrive { port: peer, quanta });
    }

    /// A PAUSE frame arrives at `port`.
    #[inline(never)]
    pub(super) fn link_pause_arrive(&mut self, port: u32, quanta: u16) {
        let now = self.now;
        self.obs.on_link_pause(now, port as usize, quanta, Direction::Rx);
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        cold.link_pause.received += 1;
        if !cold.link_pause.enabled {
            return;
        }
        match cold.link_pause.rx.on_frame(now, quanta, p.rate.bps()) {
            PauseChange::Paused { until, gen } => {
                cold.link_pause.paused = true;
                cold.update_paused(p);
                self.queue.push(until, Event::LinkPauseExpire { port, gen });
            }
            PauseChange::Resumed => {
                cold.link_pause.paused = false;
                cold.update_paused(p);
                self.try_transmit(port);
            }
            PauseChange::None => {}
        }
    }

    /// The received pause of `port` runs out (if `gen` is current).
    #[inline(never)]
    pub(super) fn link_pause_expire(&mut self, port: u32, gen: u32) {
        let now = self.now;
        let (p, cold) = port_and_cold(&mut self.ports, &mut self.port_cold, &self.port_place, port);
        if cold.link_pause.rx.on_expire(now, gen) {
            cold.link_pause.paused = false;
            cold.update_paused(p);
            self.try_transmit(port);
        }
    }
}
