//! A host's TCP stack as the simulator's input describes it ([`TcpStackSpec`], the model's
//! per-host `tcp:` settings), the frames its segments make on the wire, and the TCP header
//! fields a capture shows ([`TcpHeader`]).

use super::cc::CcKind;
use super::{header_bytes, mss_for_mtu, DelayedAck, TcpConfig};
use crate::packet::wire;
use crate::time::{Time, MS};
use serde::{Deserialize, Serialize};

/// IP protocol number of TCP (for the ECMP 5-tuple and the IPv4 header).
pub const IPPROTO_TCP: u8 = 6;

/// The settings of a host's TCP stack; [`Default`] is Linux's (see [`TcpConfig::linux`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TcpStackSpec {
    /// `net.ipv4.tcp_congestion_control`.
    pub congestion_control: CcKind,
    /// `net.ipv4.tcp_window_scaling` (RFC 7323); off caps the window at 65,535 bytes.
    pub window_scaling: bool,
    /// Delayed ACKs (RFC 1122 §4.2.3.2).
    pub delayed_ack: bool,
    /// Longest an ACK is delayed.
    pub delayed_ack_timeout_ps: Time,
    /// Nagle's algorithm (RFC 896).
    pub nagle: bool,
    /// Minimum retransmission timeout.
    pub min_rto_ps: Time,
    /// `net.ipv4.tcp_ecn` (RFC 3168): ask for ECN.
    pub ecn: bool,
    /// Receive buffer (the largest window advertised).
    pub receive_buffer_bytes: u32,
    /// Send buffer: the most unacknowledged bytes an application may have written. Default
    /// 4 MiB, the maximum of Linux's `net.ipv4.tcp_wmem` (4096 16384 4194304), which send-buffer
    /// autotuning reaches on a bulk transfer.
    pub send_buffer_bytes: u32,
    /// Initial congestion window, segments.
    pub initial_window: u32,
    /// `net.ipv4.tcp_timestamps` (RFC 7323): 12 bytes of options on every segment.
    pub timestamps: bool,
    /// `net.ipv4.tcp_sack` (RFC 2018): selective acknowledgements and RFC 6675 recovery.
    pub sack: bool,
    /// Tail loss probes (RFC 8985 §7) with SACK: `net.ipv4.tcp_early_retrans = 3`, Linux's
    /// default since 3.10; off, as in older kernels, a loss at the tail of a flight waits for the
    /// retransmission timer.
    pub tail_loss_probe: bool,
    /// RACK loss detection (RFC 8985 §6) with SACK: `net.ipv4.tcp_recovery = 1`, Linux's default
    /// since 4.10; off, as in older kernels, a hole with fewer than three segments SACKed above
    /// it waits for a loss probe or the retransmission timer.
    pub rack: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK recovery and after an ECN echo: Linux's
    /// since 3.2, which has no switch for it; off, as in older kernels, the window drops to
    /// `ssthresh` when the reduction begins and the sender waits for `pipe` to fall below it.
    pub prr: bool,
    /// HyStart in CUBIC's slow start (`tcp_cubic`'s `hystart`, on by default already in Linux
    /// 3.0); off, slow start runs until a loss or an ECN echo.
    pub hystart: bool,
}

/// Linux's `tcp_wmem` maximum (4 MiB).
pub const LINUX_SEND_BUFFER: u32 = 4 * 1024 * 1024;

impl Default for TcpStackSpec {
    fn default() -> Self {
        let l = TcpConfig::linux(1500);
        TcpStackSpec {
            congestion_control: l.congestion_control,
            window_scaling: l.window_scaling,
            delayed_ack: l.delayed_ack.is_some(),
            delayed_ack_timeout_ps: DelayedAck::default().timeout,
            nagle: l.nagle,
            min_rto_ps: l.min_rto,
            ecn: l.ecn,
            receive_buffer_bytes: l.receive_buffer,
            send_buffer_bytes: LINUX_SEND_BUFFER,
            initial_window: l.initial_window,
            timestamps: l.timestamps,
            sack: l.sack,
            tail_loss_probe: l.tail_loss_probe,
            rack: l.rack,
            prr: l.prr,
            hystart: l.hystart,
        }
    }
}

impl TcpStackSpec {
    /// The endpoint settings on an interface of `mtu` bytes (MSS from the MTU).
    pub fn config(&self, mtu: u32) -> TcpConfig {
        let mut c = TcpConfig::linux(mtu).with_cc(self.congestion_control);
        c.window_scaling = self.window_scaling;
        c.delayed_ack =
            self.delayed_ack.then(|| DelayedAck { timeout: self.delayed_ack_timeout_ps, ..Default::default() });
        c.nagle = self.nagle;
        c.min_rto = self.min_rto_ps;
        c.ecn = self.ecn || self.congestion_control == CcKind::Dctcp;
        c.receive_buffer = self.receive_buffer_bytes;
        c.initial_window = self.initial_window;
        c.timestamps = self.timestamps;
        c.sack = self.sack;
        c.tail_loss_probe = self.tail_loss_probe;
        c.rack = self.rack;
        c.prr = self.prr;
        c.hystart = self.hystart;
        c.mss = mss_for_mtu(mtu, self.timestamps);
        c
    }

    /// Check the settings: the field at fault and what is wrong.
    pub fn validate(&self) -> Result<(), (&'static str, &'static str)> {
        if self.min_rto_ps == 0 {
            return Err(("min_rto_ps", "the minimum RTO must be above 0"));
        }
        if self.initial_window == 0 {
            return Err(("initial_window", "the initial window is at least 1 segment"));
        }
        if self.receive_buffer_bytes < 2048 {
            return Err(("receive_buffer_bytes", "the receive buffer must hold a segment (2048 bytes or more)"));
        }
        if self.send_buffer_bytes < 2048 {
            return Err(("send_buffer_bytes", "the send buffer must hold a segment (2048 bytes or more)"));
        }
        if self.delayed_ack && self.delayed_ack_timeout_ps == 0 {
            return Err(("delayed_ack_timeout_ps", "the delayed-ACK timeout must be above 0"));
        }
        Ok(())
    }
}

/// Smallest IPv4 MTU every host must accept (RFC 791), and the largest the simulator carries.
pub const MTU_RANGE: std::ops::RangeInclusive<u32> = 576..=9216;

/// Bytes of Ethernet, IPv4 and TCP header and FCS around `payload` bytes of a segment (without
/// the padding to 64 bytes).
pub fn tcp_header_bytes(tagged: bool, timestamps: bool) -> u32 {
    wire::ETHERNET + if tagged { wire::VLAN_TAG } else { 0 } + header_bytes(timestamps) + wire::FCS
}

/// Frame of a TCP segment with `payload` bytes: Ethernet 14 (+4 tagged) + IPv4 20 + TCP 20
/// (+12 with timestamps) + payload + FCS 4, at least 64.
pub fn tcp_frame_bytes(payload: u32, tagged: bool, timestamps: bool) -> u32 {
    (tcp_header_bytes(tagged, timestamps) + payload).max(wire::MIN_FRAME)
}

/// The TCP header of a segment as on the wire: 32-bit sequence numbers (the initial sequence
/// number plus the stream offset, modulo 2³²), the window field (the window shifted right by
/// the scale the sender announced) and the timestamps option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    /// Flags byte: CWR 0x80, ECE 0x40, ACK 0x10 (always), PSH 0x08.
    pub flags: u8,
    /// The 16-bit window field.
    pub window: u16,
    /// TSval and TSecr, when timestamps are on (kind 8, sent after two NOPs as Linux does).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks as on the wire (left and right edges), the first `sack_blocks` of them
    /// (kind 5 after two NOPs, behind the timestamps).
    pub sack: [(u32, u32); 4],
    pub sack_blocks: u8,
}

impl TcpHeader {
    /// Bytes of TCP header with its options.
    pub fn header_len(&self) -> u32 {
        20 + if self.timestamps.is_some() { 12 } else { 0 }
            + if self.sack_blocks > 0 { 4 + 8 * self.sack_blocks as u32 } else { 0 }
    }
}

/// The timestamp clock of the model: 1 ms, Linux's `TCP_TS_HZ` of 1000.
pub const TS_TICK: Time = MS;

/// The MSS and whether timestamps are on for a TCP connection from host `src` to host `dst` of
/// `spec` (through their first ports): the smaller of the two sides' MSS, as the handshake
/// leaves it. Hosts' defaults when a node is not a host.
pub fn flow_mss(spec: &crate::spec::NetworkSpec, src: usize, dst: usize) -> (u32, bool) {
    let side = |n: usize| match spec.nodes.get(n).map(|n| &n.kind) {
        Some(crate::spec::NodeKind::Host(h)) => (h.tcp, h.ports.first().map_or(1500, |p| p.mtu)),
        _ => (TcpStackSpec::default(), 1500),
    };
    let ((a, ma), (b, mb)) = (side(src), side(dst));
    let timestamps = a.timestamps && b.timestamps;
    (mss_for_mtu(ma, timestamps).min(mss_for_mtu(mb, timestamps)), timestamps)
}
