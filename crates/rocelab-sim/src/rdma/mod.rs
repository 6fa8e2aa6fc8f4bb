//! The RDMA Reliable Connected (RC) transport of RoCEv2, as two state machines per queue pair
//! (smoltcp style: parsed input and time in, actions out, no I/O, each tested alone):
//!
//! * [`Requester`]: work requests (RDMA WRITE, RDMA READ, SEND) segmented by the path MTU into
//!   FIRST/MIDDLE/LAST/ONLY packets with 24-bit PSNs, a window of outstanding packets, ACK
//!   processing, go-back-N after a NAK (PSN sequence error) and a retransmit timeout with a retry
//!   count, completions in posting order.
//! * [`Responder`]: the expected PSN, coalesced ACKs, one NAK per out-of-sequence episode,
//!   duplicate handling, and READ responses segmented by the path MTU.
//!
//! The engine (`sim/rdma/`) wires them to the NIC: the requester lives at the flow's source
//! host, the responder at its destination; congestion control ([`crate::cc`]) paces whichever
//! side sends the data.
//!
//! Sources: InfiniBand Architecture Specification Vol. 1, Release 1.4, chapter 9 (transport
//! layer): §9.7.1 packet sequence numbers, §9.7.4 requester side, §9.7.5 responder side
//! (coalesced ACKs §9.7.5.1.2, duplicate requests §9.7.5.1.4, NAK once per sequence error
//! §9.7.5.2.1), §9.7.6 retries (local ACK timeout `4.096 µs × 2^timeout`, 3-bit retry count).

mod requester;
mod responder;
pub mod wire;

pub use requester::{Completion, Requester, RequesterEvent, RequesterStats, TxPoll, TxRequest};
pub use responder::{ControlAck, ReadResponse, Responder, RxVerdict};

use crate::time::{Time, NS};
use serde::{Deserialize, Serialize};

/// PSNs are 24 bits wide.
pub const PSN_MASK: u32 = 0x00FF_FFFF;

/// `psn + n` modulo 2²⁴.
#[inline]
pub fn psn_add(psn: u32, n: u32) -> u32 {
    psn.wrapping_add(n) & PSN_MASK
}

/// `a − b` as a signed distance in the 24-bit PSN space (positive: `a` is after `b`).
#[inline]
pub fn psn_diff(a: u32, b: u32) -> i32 {
    let d = a.wrapping_sub(b) & PSN_MASK;
    if d & 0x0080_0000 != 0 {
        d as i32 - (1 << 24)
    } else {
        d as i32
    }
}

/// The RDMA operation of a work request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RdmaOp {
    /// RDMA WRITE: data from the requester to the responder's memory.
    #[default]
    Write,
    /// RDMA READ: data from the responder's memory to the requester.
    Read,
    /// SEND: data from the requester into a posted receive buffer of the responder.
    Send,
}

impl RdmaOp {
    /// Whether the data flows from the requester (WRITE, SEND) rather than to it (READ).
    pub fn data_from_requester(self) -> bool {
        !matches!(self, RdmaOp::Read)
    }
}

/// Largest RDMA message: the InfiniBand DMA length is 2³¹ bytes at most (IBA §9.4.1, §10.7.2.1).
pub const MAX_MESSAGE_BYTES: u64 = 1 << 31;

/// Transport settings of an RC queue pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RcConfig {
    /// Path MTU: payload bytes per packet (256, 512, 1024, 2048 or 4096).
    pub path_mtu: u32,
    /// Most packets outstanding (sent and not acknowledged). Default [`RcConfig::NO_WINDOW`]:
    /// a ConnectX queue pair doing RDMA WRITE or SEND has no window of packets; it is paced by
    /// its rate limiter (DCQCN) and bounded by its send queue and the PSN space. (ConnectX's
    /// `LOG_TX_PSN_WINDOW`, 7 in `mlxconfig query`, bounds what its READ responder and
    /// retransmission tracking keep, not what a requester may send.) The ns-3 HPCC simulator
    /// runs its DCQCN without one either (`HAS_WIN 0`).
    pub window_packets: u32,
    /// The responder acknowledges the last packet of every message, and within a long message
    /// every `ack_every_packets` packets. The InfiniBand specification lets a responder coalesce
    /// ACKs (IBA §9.7.5.1.2); NVIDIA does not document ConnectX's rule, so rocelab acknowledges
    /// per message like perftest completions see it, and every 16 packets (64 KiB at a 4096-byte
    /// MTU) so that a long message keeps the window moving. The HPCC simulator's equivalent is
    /// `L2_ACK_INTERVAL` (1 there: an ACK per packet).
    pub ack_every_packets: u32,
    /// Local ACK timeout: 4.096 µs × 2¹⁴ = 67.1 ms, perftest's default QP timeout exponent 14
    /// (`DEF_QP_TIME`, IBA §9.7.6.1.3).
    pub timeout_ps: Time,
    /// Retransmissions after timeouts before the QP goes to the error state: 7, perftest's
    /// `DEF_RETRY_COUNT` and the largest the 3-bit field allows (IBA §9.7.6.1.3).
    pub retry_count: u32,
}

impl RcConfig {
    /// No window: as many packets outstanding as the 24-bit PSN space tells apart, 2²³ − 1
    /// (PSNs are compared within half the space, IBA §9.7.1).
    pub const NO_WINDOW: u32 = (1 << 23) - 1;
}

impl Default for RcConfig {
    fn default() -> Self {
        RcConfig {
            path_mtu: 4096,
            window_packets: Self::NO_WINDOW,
            ack_every_packets: 16,
            timeout_ps: local_ack_timeout(14),
            retry_count: 7,
        }
    }
}

/// The local ACK timeout for the QP attribute `timeout` (IBA §9.7.6.1.3): 4.096 µs × 2^timeout.
pub fn local_ack_timeout(exponent: u32) -> Time {
    (4096 * NS) << exponent.min(31)
}

/// Packets a message of `len` bytes takes at `path_mtu` (at least one: a zero-byte message is
/// one packet).
pub fn packets_of(len: u64, path_mtu: u32) -> u32 {
    len.div_ceil(path_mtu as u64).max(1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psn_arithmetic_wraps_at_24_bits() {
        assert_eq!(psn_add(PSN_MASK, 1), 0);
        assert_eq!(psn_add(PSN_MASK - 1, 5), 3);
        assert_eq!(psn_diff(3, PSN_MASK - 1), 5);
        assert_eq!(psn_diff(PSN_MASK - 1, 3), -5);
        assert_eq!(psn_diff(7, 7), 0);
        assert_eq!(psn_diff(0x40_0000, 0), 0x40_0000);
        assert!(psn_diff(0x80_0001, 0) < 0, "more than half the space ahead is behind");
    }

    #[test]
    fn defaults_and_timeouts() {
        assert_eq!(local_ack_timeout(14), 67_108_864 * NS);
        assert_eq!(packets_of(0, 1024), 1);
        assert_eq!(packets_of(1024, 1024), 1);
        assert_eq!(packets_of(1025, 1024), 2);
        assert_eq!(packets_of(65536, 4096), 16);
        assert!(RdmaOp::Write.data_from_requester() && !RdmaOp::Read.data_from_requester());
    }
}
