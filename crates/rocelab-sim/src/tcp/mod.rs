//! TCP for the simulator: one endpoint of a connection as a state machine that takes parsed
//! segments and time and returns actions, with no I/O and no engine (smoltcp style), for iSCSI,
//! NVMe/TCP, NFS and SMB over TCP, iWARP's transport, and iperf-like cross traffic.
//!
//! # What is modelled
//! * **Data transfer of an established connection.** [`TcpEndpoint::pair`] builds both ends as
//!   the three-way handshake leaves them: window scaling (RFC 7323 §2), ECN (RFC 3168 §6.1.1)
//!   and timestamps are on only when both ends offer them; the handshake's own round trip, FIN
//!   and connection teardown are not modelled (a storage session or an iperf run keeps its
//!   connections open).
//! * **Sequence space** as 64-bit stream offsets from 0: no wraparound, so PAWS (RFC 7323 §5) is
//!   not needed. Bytes are counted, not carried.
//! * **Sender**: slow start with an initial window of 10 segments (RFC 6928) and appropriate byte
//!   counting with L = 2 (RFC 3465); congestion avoidance; fast retransmit after 3 duplicate
//!   ACKs (with SACK, also once more than two segments' worth above the first hole is SACKed);
//!   loss recovery with SACK (RFC 2018, on by default as in Linux) by the conservative rules of
//!   RFC 6675 (a scoreboard of SACKed ranges, `pipe`, NextSeg's rules 1-3: holes deemed lost,
//!   then new data, then other holes), retransmitting the first hole again on a partial ACK
//!   and a retransmission found lost (data sent after it SACKed) as Linux does; without SACK
//!   NewReno's recovery with partial ACKs (RFC 5681, RFC 6582); retransmission timeout per
//!   RFC 6298 with Karn's rule, exponential backoff and a configurable minimum (200 ms, Linux's
//!   `TCP_RTO_MIN`), go-back-N after a timeout; with SACK, tail loss probes (RFC 8985 §7, on by
//!   default as in Linux since 3.10; see [`tlp`]) so that a loss at the tail of a flight is
//!   repaired by fast recovery, not by the timer, with RACK's rule where it follows from the
//!   probe (everything unSACKed below a SACKed probe is lost); with SACK, RACK loss detection
//!   (RFC 8985 §6, on by default as in Linux since 4.10; see [`rack`]): a segment is lost once
//!   one sent after it was delivered and a round trip plus a reordering window has passed, by
//!   its reordering timer if need be, so a hole below one or two SACKed segments and a lost
//!   retransmission are repaired without the retransmission timer; with SACK, Proportional Rate
//!   Reduction (RFC 6937, Linux's since 3.2; see [`prr`]) paces the recovery: each ACK lets out
//!   `ssthresh / cwnd` of what it delivered, so the window comes down over the round trip
//!   instead of the sender falling silent and then bursting, and recovery ends at `ssthresh`;
//!   after a recovery, a new one
//!   may begin once the cumulative ACK reaches its recovery point (with SACK; beyond it
//!   without); congestion control behind
//!   [`cc::CongestionControl`]: NewReno, CUBIC (RFC 9438) and DCTCP (RFC 8257); ECN (RFC 3168):
//!   ECT(0) on data, one window reduction per round trip on ECE, CWR on the next new segment;
//!   the reduction is Linux's CWR state: paced by PRR with SACK (at once without, or with
//!   `prr` off, as RFC 3168 §6.1.2 has it), no window growth until an ACK covers data sent after
//!   the echo, and no second cut if loss recovery begins inside it (but DCTCP's halving, which
//!   Linux's DCTCP makes on every entry into recovery); the window grows only while it limits
//!   the sender, as Linux's `tcp_is_cwnd_limited` has it: it was full when new data last went
//!   out in the round trip, or, in slow start, it is less than twice the most in flight (so an
//!   application-limited sender's window does not grow without bound, RFC 7661's concern);
//!   with CUBIC, HyStart as Linux runs it (see [`hystart`]): slow start ends, before a loss,
//!   once a round trip's ACK train has lasted half the minimum RTT (plus a TSO cushion) or its
//!   RTT has risen by an eighth (4-16 ms), and CUBIC then grows at least 5 % a round trip until
//!   its first reduction; a timeout clears CUBIC's state (W_max, HyStart); Nagle's algorithm
//!   (RFC 896, RFC 1122 §4.2.3.4, with Linux's Minshall variant) on or off; sender silly-window
//!   avoidance.
//! * **Receiver**: cumulative ACKs; out-of-order segments kept (up to the window) and delivered
//!   when the hole fills; SACK blocks on every ACK while data is out of order, the block of the
//!   latest out-of-order segment first (RFC 2018 §4), then the others from the highest;
//!   immediate duplicate ACKs for out-of-order data and an immediate ACK when a hole fills
//!   (RFC 5681 §4.2); delayed ACKs as Linux does them (see [`DelayedAck`]); the advertised
//!   window is the free receive buffer, capped at 65,535 bytes without window scaling and
//!   rounded down to the scale factor with it; ECE latched until CWR (RFC 3168) or, for DCTCP,
//!   the exact CE state with an immediate ACK when it changes (RFC 8257 §3.2).
//! * **Not modelled**: PRR without SACK (Linux runs it there too, counting each duplicate ACK as
//!   a segment delivered; the model reduces at once after an echo, and inflates the window by RFC
//!   6582 in recovery) and for a loss repaired by a probe (cut at once, as Linux's CWR that ends
//!   on the same ACK); D-SACK (RFC 2883) and with it RACK's reordering window growth, receive
//!   buffer autotuning (the window is the configured buffer, what autotuning reaches on a long
//!   transfer), TSO/GRO batching (the engine may ask for smaller segments with `max_payload`;
//!   HyStart's train threshold keeps Linux's cushion for it), the window's decay while the sender
//!   is idle or application-limited (Linux's `tcp_slow_start_after_idle` and
//!   `tcp_cwnd_application_limited`, RFC 7661: the window the sender last used is kept), the
//!   persist timer (the application always reads what arrives, so the window never closes for
//!   long).
//!
//! # Engine interface
//! An endpoint has one timer: [`TcpEndpoint::next_deadline`] is the earliest of its
//! retransmission, loss probe, RACK reordering and delayed-ACK deadlines, so the engine keeps one pending timer event per
//! endpoint and calls [`TcpEndpoint::on_timer`] when it fires (a stale event finds nothing due
//! and does nothing). After any call, while [`TcpEndpoint::poll_transmit`] returns a segment the
//! engine sends it; [`Actions`] says how many bytes became deliverable to the application and
//! how many of the application's bytes were acknowledged.

pub mod cc;
mod conn;
pub mod hystart;
pub mod prr;
pub mod rack;
mod receiver;
pub mod rto;
mod sender;
pub mod stack;
#[cfg(test)]
mod tests;
pub mod tlp;

pub use cc::{CcKind, CcState, CongestionControl};
pub use conn::TcpEndpoint;
pub use rto::{RtoPolicy, RttEstimator};
pub use stack::{tcp_frame_bytes, tcp_header_bytes, TcpHeader, TcpStackSpec, IPPROTO_TCP};

use crate::packet::Ecn;
use crate::time::{Time, MS, SECOND};

/// IPv4 header without options.
pub const IPV4_HEADER: u32 = 20;
/// TCP header without options.
pub const TCP_HEADER: u32 = 20;
/// The timestamps option as Linux sends it on every segment: kind, length, two 32-bit values,
/// padded with two NOPs to 12 bytes (RFC 7323 §3).
pub const TIMESTAMPS_OPTION: u32 = 12;
/// Largest window a TCP header can carry without scaling (RFC 7323 §2.1).
pub const MAX_UNSCALED_WINDOW: u32 = 65_535;
/// Largest window scale shift (RFC 7323 §2.3).
pub const MAX_WINDOW_SCALE: u8 = 14;

/// Add `[s, e)` to `ranges` (sorted, disjoint), merging it with the ranges it overlaps or
/// touches, in place: the receiver's out-of-order data and the sender's SACK scoreboard.
pub(crate) fn insert_range(ranges: &mut Vec<(u64, u64)>, s: u64, e: u64) {
    if e <= s {
        return;
    }
    let i = ranges.partition_point(|&(_, b)| b < s);
    let j = ranges.partition_point(|&(a, _)| a <= e);
    if i == j {
        ranges.insert(i, (s, e));
    } else {
        ranges[i] = (s.min(ranges[i].0), e.max(ranges[j - 1].1));
        ranges.drain(i + 1..j);
    }
}

/// Whether `[s, e)` lies inside one range of `ranges` (sorted, disjoint): a SACKed segment.
pub(crate) fn range_covers(ranges: &[(u64, u64)], s: u64, e: u64) -> bool {
    let i = ranges.partition_point(|&(_, b)| b <= s);
    ranges.get(i).is_some_and(|&(a, b)| a <= s && e <= b)
}

/// Take `[s, e)` out of `ranges` (sorted, disjoint), splitting a range it falls inside.
pub(crate) fn remove_range(ranges: &mut Vec<(u64, u64)>, s: u64, e: u64) {
    if e <= s {
        return;
    }
    let i = ranges.partition_point(|&(_, b)| b <= s);
    let j = ranges.partition_point(|&(a, _)| a < e);
    if i >= j {
        return;
    }
    let (first, last) = (ranges[i], ranges[j - 1]);
    let keep = [(first.0, s), (e, last.1)].into_iter().filter(|&(a, b)| a < b);
    ranges.splice(i..j, keep);
}

/// Bytes of IP and TCP header in every segment.
pub fn header_bytes(timestamps: bool) -> u32 {
    IPV4_HEADER + TCP_HEADER + if timestamps { TIMESTAMPS_OPTION } else { 0 }
}

/// The MSS a host uses on a link of `mtu` bytes: the MTU less the IPv4 and TCP headers
/// (RFC 879, RFC 9293 §3.7.1): 1460 at 1500 and 8960 at 9000; 12 bytes less (1448, 8948) when
/// every segment carries the timestamps option, as Linux's do.
pub fn mss_for_mtu(mtu: u32, timestamps: bool) -> u32 {
    mtu.saturating_sub(header_bytes(timestamps)).max(1)
}

/// Delayed-ACK policy, as Linux implements RFC 1122 §4.2.3.2 and RFC 5681 §4.2: an ACK for at
/// least every second full-sized segment, else after `timeout`; "quick ACK" (every segment) for
/// the first `quickacks` ACKs of a connection and again after out-of-order data.
///
/// Defaults: `timeout` 40 ms, Linux's `TCP_ATO_MIN` and the figure the Dell/Red Hat EqualLogic
/// paper gives for RHEL ("The default delayed ACK timeout in RHEL 6.3 is 40 ms"; Linux adapts
/// the timeout between 40 and 200 ms, `TCP_DELACK_MAX`, which is not modelled); `quickacks` 16,
/// Linux's `TCP_MAX_QUICKACKS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    /// Longest an ACK waits.
    pub timeout: Time,
    /// Full-sized segments that force an ACK.
    pub segments: u32,
    /// ACKs sent immediately at the start and after out-of-order data.
    pub quickacks: u32,
}

impl Default for DelayedAck {
    fn default() -> Self {
        DelayedAck { timeout: 40 * MS, segments: 2, quickacks: 16 }
    }
}

/// Settings of one TCP endpoint (a host's stack, or one socket's options).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size (payload bytes); see [`mss_for_mtu`].
    pub mss: u32,
    /// Congestion control algorithm.
    pub congestion_control: CcKind,
    /// Initial congestion window in segments; 10 (RFC 6928, Linux's `TCP_INIT_CWND`).
    pub initial_window: u32,
    /// Retransmission timeout before the first RTT sample; 1 s (RFC 6298 §2.1).
    pub initial_rto: Time,
    /// Lower bound of the RTO; 200 ms, Linux's `TCP_RTO_MIN` (RFC 6298 §2.4 asks for 1 s).
    pub min_rto: Time,
    /// Upper bound of the RTO; 120 s, Linux's `TCP_RTO_MAX` (RFC 6298 §2.5: at least 60 s).
    pub max_rto: Time,
    /// Where the minimum applies (RFC 6298's clamp or Linux's floor on the variance term).
    pub rto_policy: RtoPolicy,
    /// Offer window scaling (RFC 7323). Off caps the window at 65,535 bytes.
    pub window_scaling: bool,
    /// Receive buffer: the most the receiver advertises. Default 6 MiB, the maximum of Linux's
    /// `net.ipv4.tcp_rmem` (4096 131072 6291456).
    pub receive_buffer: u32,
    /// Delayed ACKs; `None` acknowledges every segment at once.
    pub delayed_ack: Option<DelayedAck>,
    /// Nagle's algorithm (on unless the socket sets `TCP_NODELAY`).
    pub nagle: bool,
    /// Offer ECN (RFC 3168); DCTCP needs it.
    pub ecn: bool,
    /// Offer the timestamps option (header bytes only; RTT is sampled once per round trip).
    pub timestamps: bool,
    /// Offer selective acknowledgements (RFC 2018) and recover from loss with them (RFC 6675);
    /// off, loss recovery is NewReno's (RFC 6582).
    pub sack: bool,
    /// Duplicate ACKs that trigger fast retransmit; 3 (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// Send tail loss probes (RFC 8985 §7; see [`tlp`]) when SACK is on: Linux's
    /// `net.ipv4.tcp_early_retrans = 3`, its default since 3.10.
    pub tail_loss_probe: bool,
    /// RACK loss detection (RFC 8985 §6; see [`rack`]) when SACK is on: Linux's
    /// `net.ipv4.tcp_recovery = 1`, its default since 4.10.
    pub rack: bool,
    /// Proportional Rate Reduction (RFC 6937; see [`prr`]) paces SACK recovery and, on a SACK
    /// connection, the reduction after an ECN echo: Linux's since 3.2, with no switch to turn it
    /// off; off, the window drops to `ssthresh` at once (RFC 6675 §5, RFC 3168 §6.1.2) and
    /// recovery ends at `min(ssthresh, flight + MSS)`.
    pub prr: bool,
    /// HyStart ends CUBIC's slow start before a loss (see [`hystart`]): Linux's `tcp_cubic`
    /// module parameter `hystart`, on by default already in Linux 3.0. CUBIC only.
    pub hystart: bool,
}

impl TcpConfig {
    /// Linux defaults on a link of `mtu` bytes: CUBIC, window scaling, delayed ACKs, Nagle,
    /// timestamps, SACK (`net.ipv4.tcp_sack = 1`), ECN off (`net.ipv4.tcp_ecn = 2`: accepted,
    /// not requested).
    pub fn linux(mtu: u32) -> Self {
        TcpConfig {
            mss: mss_for_mtu(mtu, true),
            congestion_control: CcKind::Cubic,
            initial_window: 10,
            initial_rto: SECOND,
            min_rto: 200 * MS,
            max_rto: 120 * SECOND,
            rto_policy: RtoPolicy::Linux,
            window_scaling: true,
            receive_buffer: 6 * 1024 * 1024,
            delayed_ack: Some(DelayedAck::default()),
            nagle: true,
            ecn: false,
            timestamps: true,
            sack: true,
            dupack_threshold: 3,
            tail_loss_probe: true,
            rack: true,
            prr: true,
            hystart: true,
        }
    }

    /// The same with another congestion control; DCTCP switches ECN on.
    pub fn with_cc(mut self, cc: CcKind) -> Self {
        self.congestion_control = cc;
        if cc == CcKind::Dctcp {
            self.ecn = true;
        }
        self
    }

    /// The window scale shift this receiver announces: the smallest that fits its buffer in 16
    /// bits (Linux's `tcp_select_initial_window`).
    pub fn window_scale(&self) -> u8 {
        let mut space = self.receive_buffer as u64;
        let mut shift = 0;
        while space > MAX_UNSCALED_WINDOW as u64 && shift < MAX_WINDOW_SCALE {
            space >>= 1;
            shift += 1;
        }
        shift
    }
}

/// TCP header flags the model uses (ACK is on every segment of an established connection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    /// Push: the segment ends the data the application has written so far.
    pub const PSH: Flags = Flags(0x08);
    /// ECN-Echo (RFC 3168 §6.1).
    pub const ECE: Flags = Flags(0x40);
    /// Congestion Window Reduced (RFC 3168 §6.1).
    pub const CWR: Flags = Flags(0x80);

    /// No flag.
    pub const fn empty() -> Flags {
        Flags(0)
    }
    /// Whether every flag of `other` is set.
    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    /// Set the flags of `other`.
    pub fn insert(&mut self, other: Flags) {
        self.0 |= other.0;
    }
    /// The header byte (with ACK, 0x10, always set).
    pub fn bits(self) -> u8 {
        self.0 | 0x10
    }
}

/// One TCP segment as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Stream offset of the first payload byte.
    pub seq: u64,
    /// Cumulative acknowledgement: the next stream offset the sender expects.
    pub ack: u64,
    /// Payload bytes (0 for a pure ACK).
    pub len: u32,
    /// Receive window in bytes as the peer reads it (already multiplied by the scale).
    pub window: u32,
    /// Header flags.
    pub flags: Flags,
    /// ECN field of the IP header; switches may turn ECT into CE.
    pub ecn: Ecn,
    /// A retransmission (for counters and captures).
    pub retransmission: bool,
    /// SACK blocks (RFC 2018) of the receiver's out-of-order data.
    pub sack: SackBlocks,
}

/// The SACK option's blocks (RFC 2018 §3): at most four `[left, right)` ranges of stream
/// offsets the receiver holds beyond its cumulative ACK, three when the timestamps option leaves
/// room for no more in 40 bytes of options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    n: u8,
    blocks: [(u64, u64); 4],
}

impl SackBlocks {
    /// No block.
    pub const EMPTY: SackBlocks = SackBlocks { n: 0, blocks: [(0, 0); 4] };
    /// Most blocks an option can carry.
    pub const MAX: usize = 4;

    /// Add a block (ignored once full).
    pub fn push(&mut self, left: u64, right: u64) {
        if (self.n as usize) < Self::MAX {
            self.blocks[self.n as usize] = (left, right);
            self.n += 1;
        }
    }
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.n as usize
    }
    /// Whether there is no block.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// The blocks, first (most recent) first.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.n as usize].iter().copied()
    }
    /// Bytes of TCP options the blocks take as Linux sends them: two NOPs, kind 5, length,
    /// 8 bytes per block (0 without blocks).
    pub fn option_bytes(&self) -> u32 {
        if self.n == 0 {
            0
        } else {
            4 + 8 * self.n as u32
        }
    }
}

/// What a call did that the engine or the application must know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Actions {
    /// Bytes that became available in order to the receiving application.
    pub delivered: u64,
    /// Bytes of this endpoint's stream newly acknowledged by the peer.
    pub acked: u64,
    /// [`TcpEndpoint::poll_transmit`] has something to send now.
    pub transmit: bool,
}

/// Counters of one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TcpStats {
    /// Data segments sent, retransmissions included.
    pub data_segments: u64,
    /// Pure ACKs sent.
    pub pure_acks: u64,
    /// Segments retransmitted.
    pub retransmissions: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Tail loss probes sent (Linux's `TCPLossProbes`).
    #[serde(default)]
    pub tail_loss_probes: u64,
    /// Window reductions on ECN-Echo.
    pub ecn_reductions: u64,
    /// Slow starts HyStart ended by its ACK-train rule (Linux's `TCPHyStartTrainDetect`).
    #[serde(default)]
    pub hystart_train_detect: u64,
    /// Slow starts HyStart ended by its delay rule (Linux's `TCPHyStartDelayDetect`).
    #[serde(default)]
    pub hystart_delay_detect: u64,
    /// Segments received with CE.
    pub ce_received: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
}
