//! Priority-based flow control (IEEE 802.1Qbb).
//!
//! A PFC frame is a 64-byte MAC control frame to 01-80-C2-00-00-01, EtherType 0x8808, opcode
//! 0x0101, carrying a priority-enable vector and eight 16-bit timers in *quanta* of 512 bit times
//! at the link's speed (0 means resume, often called XON). Two small state machines model it:
//!
//! * [`PauseState`], on the port that *receives* pauses: the transmitter stops the priority
//!   after the frame in flight and restarts when the timer runs out or a 0-quanta frame arrives.
//! * [`XoffState`], on the port that *sends* them: while the buffer condition holds it sends
//!   XOFF and refreshes it before it expires (at half the pause time); when the condition
//!   clears it sends XON.

use crate::time::{bits_time, Time};

/// Destination MAC of PFC (and 802.3x PAUSE) frames.
pub const PFC_DEST_MAC: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// EtherType of MAC control frames.
pub const ETHERTYPE_MAC_CONTROL: u16 = 0x8808;
/// MAC control opcode of PFC.
pub const OPCODE_PFC: u16 = 0x0101;
/// MAC control opcode of the IEEE 802.3x PAUSE frame (802.3 Annex 31B).
pub const OPCODE_PAUSE: u16 = 0x0001;
/// One pause quantum is 512 bit times.
pub const QUANTUM_BITS: u64 = 512;
/// Largest pause a frame can request.
pub const MAX_QUANTA: u16 = 0xFFFF;

/// Duration of `quanta` pause quanta at `rate_bps`.
pub fn pause_duration(quanta: u16, rate_bps: u64) -> Time {
    bits_time(quanta as u64 * QUANTUM_BITS, rate_bps)
}

/// A PFC frame's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfcFrame {
    /// Bit `p` set: timer `p` is valid.
    pub class_enable: u8,
    /// Pause time per priority in quanta (0 = resume).
    pub quanta: [u16; 8],
}

impl PfcFrame {
    /// Build from the compact form carried by events: priorities in `enable` get `quanta` when
    /// their bit is in `xoff`, else 0.
    pub fn from_masks(enable: u8, xoff: u8, quanta: u16) -> Self {
        let mut q = [0u16; 8];
        for (p, slot) in q.iter_mut().enumerate() {
            if enable & xoff & (1 << p) != 0 {
                *slot = quanta;
            }
        }
        PfcFrame { class_enable: enable, quanta: q }
    }

    /// The frame as it is on the wire, without the FCS (60 bytes; a capture writer appends the
    /// FCS or not as its link type wants).
    pub fn to_bytes(&self, src_mac: [u8; 6]) -> [u8; 60] {
        let mut b = [0u8; 60];
        b[0..6].copy_from_slice(&PFC_DEST_MAC);
        b[6..12].copy_from_slice(&src_mac);
        b[12..14].copy_from_slice(&ETHERTYPE_MAC_CONTROL.to_be_bytes());
        b[14..16].copy_from_slice(&OPCODE_PFC.to_be_bytes());
        b[16..18].copy_from_slice(&(self.class_enable as u16).to_be_bytes());
        for (p, q) in self.quanta.iter().enumerate() {
            b[18 + 2 * p..20 + 2 * p].copy_from_slice(&q.to_be_bytes());
        }
        b
    }
}

/// An IEEE 802.3x PAUSE frame (IEEE 802.3 Annex 31B) as on the wire, without the FCS: to
/// 01-80-C2-00-00-01, EtherType 0x8808, opcode 0x0001, one 16-bit pause time in quanta of 512
/// bit times (0 = resume), zero padding to 60 bytes. It stops every frame of the link (all
/// priorities), where PFC stops one priority. The same receiving and sending state machines
/// ([`PauseState`], [`XoffState`]) serve both.
pub fn pause_frame_bytes(quanta: u16, src_mac: [u8; 6]) -> [u8; 60] {
    let mut b = [0u8; 60];
    b[0..6].copy_from_slice(&PFC_DEST_MAC);
    b[6..12].copy_from_slice(&src_mac);
    b[12..14].copy_from_slice(&ETHERTYPE_MAC_CONTROL.to_be_bytes());
    b[14..16].copy_from_slice(&OPCODE_PAUSE.to_be_bytes());
    b[16..18].copy_from_slice(&quanta.to_be_bytes());
    b
}

/// What a received PFC timer did to a priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseChange {
    /// Now paused (or pause extended) until `until`; schedule an expiry check with `gen`.
    Paused { until: Time, gen: u32 },
    /// Resumed now: the transmitter may send this priority again.
    Resumed,
    /// Nothing changed (resume for a priority that was not paused).
    None,
}

/// Receiving side of PFC for one priority of one port: is the transmitter paused, until when,
/// and for how long it has been paused in total.
#[derive(Clone, Copy, Debug, Default)]
pub struct PauseState {
    paused: bool,
    until: Time,
    since: Time,
    gen: u32,
    total: Time,
}

impl PauseState {
    /// Apply a timer of `quanta` received at `now` on a link of `rate_bps`.
    pub fn on_frame(&mut self, now: Time, quanta: u16, rate_bps: u64) -> PauseChange {
        if quanta == 0 {
            return if self.resume(now) { PauseChange::Resumed } else { PauseChange::None };
        }
        if !self.paused {
            self.paused = true;
            self.since = now;
        }
        self.until = now + pause_duration(quanta, rate_bps);
        self.gen = self.gen.wrapping_add(1);
        PauseChange::Paused { until: self.until, gen: self.gen }
    }

    /// Apply a timer of `quanta` received at `now` by a port whose pauses last until the resume
    /// frame ([`crate::spec::PfcPortSpec::until_resume`]): a pause has no end (`until` is
    /// `Time::MAX`, nothing to schedule), a 0-quanta frame resumes.
    pub fn on_frame_until_resume(&mut self, now: Time, quanta: u16) -> PauseChange {
        if quanta == 0 {
            return if self.resume(now) { PauseChange::Resumed } else { PauseChange::None };
        }
        if !self.paused {
            self.paused = true;
            self.since = now;
        }
        self.until = Time::MAX;
        self.gen = self.gen.wrapping_add(1);
        PauseChange::Paused { until: Time::MAX, gen: self.gen }
    }

    /// The expiry scheduled with `gen` fires at `now`; true when this resumed the priority.
    pub fn on_expire(&mut self, now: Time, gen: u32) -> bool {
        if self.paused && gen == self.gen && now >= self.until {
            self.resume(now)
        } else {
            false
        }
    }

    fn resume(&mut self, now: Time) -> bool {
        if !self.paused {
            return false;
        }
        self.paused = false;
        self.total += now - self.since;
        self.gen = self.gen.wrapping_add(1);
        true
    }

    /// Whether the priority may not be transmitted now.
    #[inline]
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Total time paused up to `now` (an open interval counts up to `now`).
    pub fn paused_time(&self, now: Time) -> Time {
        if self.paused {
            self.total + now.saturating_sub(self.since)
        } else {
            self.total
        }
    }
}

/// What the XOFF side must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XoffAction {
    /// Send an XOFF frame now and schedule a refresh at `refresh_at` with `gen`.
    SendXoff { refresh_at: Time, gen: u32 },
    /// Send an XON (quanta 0) frame now.
    SendXon,
    /// Nothing to send.
    None,
}

/// Sending side of PFC for one priority of one port.
#[derive(Clone, Copy, Debug, Default)]
pub struct XoffState {
    asserted: bool,
    gen: u32,
}

impl XoffState {
    /// The buffer condition for this priority begins (XOFF). `pause_time` is the duration of the
    /// quanta the port sends; the refresh comes at half of it, well before the peer's timer runs
    /// out even after the refresh waits behind a maximum frame.
    pub fn assert(&mut self, now: Time, pause_time: Time) -> XoffAction {
        if self.asserted {
            return XoffAction::None;
        }
        self.asserted = true;
        self.gen = self.gen.wrapping_add(1);
        XoffAction::SendXoff { refresh_at: now + (pause_time / 2).max(1), gen: self.gen }
    }

    /// The buffer condition clears (XON).
    pub fn deassert(&mut self) -> XoffAction {
        if !self.asserted {
            return XoffAction::None;
        }
        self.asserted = false;
        self.gen = self.gen.wrapping_add(1);
        XoffAction::SendXon
    }

    /// The refresh timer scheduled with `gen` fires.
    pub fn on_refresh(&mut self, now: Time, gen: u32, pause_time: Time) -> XoffAction {
        if self.asserted && gen == self.gen {
            self.gen = self.gen.wrapping_add(1);
            XoffAction::SendXoff { refresh_at: now + (pause_time / 2).max(1), gen: self.gen }
        } else {
            XoffAction::None
        }
    }

    /// Whether XOFF is in force.
    pub fn is_asserted(&self) -> bool {
        self.asserted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const G100: u64 = 100_000_000_000;

    #[test]
    fn frame_layout_matches_802_1qbb() {
        let f = PfcFrame::from_masks(0b0000_1000, 0b0000_1000, 0xFFFF);
        let b = f.to_bytes([2, 0, 0, 0, 0, 9]);
        assert_eq!(&b[0..6], &[0x01, 0x80, 0xC2, 0, 0, 1]);
        assert_eq!(&b[12..14], &[0x88, 0x08]);
        assert_eq!(&b[14..16], &[0x01, 0x01]);
        assert_eq!(&b[16..18], &[0x00, 0x08]);
        assert_eq!(&b[24..26], &[0xFF, 0xFF], "timer of priority 3");
        assert_eq!(&b[18..24], &[0; 6]);
        let xon = PfcFrame::from_masks(0b1000, 0, 0xFFFF);
        assert_eq!(xon.quanta, [0; 8]);
    }

    #[test]
    fn pause_frame_layout_matches_802_3x() {
        let b = pause_frame_bytes(0x1234, [2, 0, 0, 0, 0, 9]);
        assert_eq!(&b[0..14], &[0x01, 0x80, 0xC2, 0, 0, 1, 2, 0, 0, 0, 0, 9, 0x88, 0x08]);
        assert_eq!(&b[14..18], &[0x00, 0x01, 0x12, 0x34], "opcode 0x0001, pause time");
        assert!(b[18..].iter().all(|&x| x == 0), "padding");
    }

    #[test]
    fn pause_expires_after_quanta_times_512_bit_times() {
        let mut s = PauseState::default();
        let ch = s.on_frame(1_000, 1000, G100);
        // 1000 quanta * 512 bits at 100G = 5.12 us.
        assert_eq!(ch, PauseChange::Paused { until: 1_000 + 5_120_000, gen: 1 });
        assert!(s.is_paused());
        assert!(!s.on_expire(5_000_000, 1), "too early");
        assert!(s.on_expire(5_121_000, 1));
        assert!(!s.is_paused());
        assert_eq!(s.paused_time(10_000_000), 5_120_000);
    }

    #[test]
    fn refresh_extends_and_stale_expiry_is_ignored() {
        let mut s = PauseState::default();
        let PauseChange::Paused { gen: g1, .. } = s.on_frame(0, 100, G100) else { panic!("not paused") };
        let PauseChange::Paused { until, gen: g2 } = s.on_frame(20_000, 100, G100) else { panic!("not paused") };
        assert_eq!(until, 20_000 + 512_000);
        assert!(!s.on_expire(512_000, g1), "old expiry is stale");
        assert!(s.is_paused());
        assert!(s.on_expire(until, g2));
        assert_eq!(s.paused_time(until), until);
    }

    #[test]
    fn a_pause_until_resume_has_no_end() {
        let mut s = PauseState::default();
        assert_eq!(s.on_frame_until_resume(100, 1), PauseChange::Paused { until: Time::MAX, gen: 1 });
        assert!(!s.on_expire(u64::MAX - 1, 1), "no quanta run out");
        assert!(s.is_paused());
        // A second pause changes nothing but the generation; the resume ends it.
        assert!(matches!(s.on_frame_until_resume(200, 0xFFFF), PauseChange::Paused { .. }));
        assert_eq!(s.on_frame_until_resume(1_100, 0), PauseChange::Resumed);
        assert_eq!(s.paused_time(2_000), 1_000);
        assert_eq!(s.on_frame_until_resume(1_200, 0), PauseChange::None);
    }

    #[test]
    fn xon_resumes_early_and_counts_interval() {
        let mut s = PauseState::default();
        s.on_frame(100, MAX_QUANTA, G100);
        assert_eq!(s.on_frame(400, 0, G100), PauseChange::Resumed);
        assert_eq!(s.on_frame(500, 0, G100), PauseChange::None);
        assert_eq!(s.paused_time(1_000), 300);
        // An open interval counts up to the query time.
        s.on_frame(2_000, 10, G100);
        assert_eq!(s.paused_time(2_500), 800);
    }

    #[test]
    fn xoff_side_refreshes_at_half_and_sends_xon_once() {
        let mut x = XoffState::default();
        let pause = pause_duration(MAX_QUANTA, G100);
        let XoffAction::SendXoff { refresh_at, gen } = x.assert(0, pause) else { panic!("expected XOFF") };
        assert_eq!(refresh_at, pause / 2);
        assert_eq!(x.assert(10, pause), XoffAction::None, "already asserted");
        let XoffAction::SendXoff { refresh_at: r2, gen: g2 } = x.on_refresh(refresh_at, gen, pause) else {
            panic!("expected refresh")
        };
        assert_eq!(r2, refresh_at + pause / 2);
        assert_eq!(x.on_refresh(r2, gen, pause), XoffAction::None, "stale gen");
        assert_eq!(x.deassert(), XoffAction::SendXon);
        assert_eq!(x.deassert(), XoffAction::None);
        assert_eq!(x.on_refresh(r2, g2, pause), XoffAction::None, "cleared");
        assert!(!x.is_asserted());
    }
}
