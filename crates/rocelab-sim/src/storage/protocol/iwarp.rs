//! iWARP framing: what RDMA operations cost on a TCP stream, for carrying the RDMA protocols
//! (NVMe/RDMA, iSER, SMB Direct, NFS/RDMA) over iWARP adapters.
//!
//! An RDMA message is cut into FPDUs that each fit one TCP segment (MPA, RFC 5044): a
//! 2-byte ULPDU length, the ULPDU (DDP and RDMAP headers, then payload), padding to a multiple
//! of 4 and a 4-byte CRC32C. DDP headers (RFC 5041 §4, with the RDMAP control byte of RFC 5040
//! in the reserved ULP field): 14 bytes in the tagged model (RDMA WRITE and READ response data:
//! control, RDMAP control, STag, tagged offset) and 18 bytes in the untagged model (SEND and
//! READ request: control, RDMAP control and 4 reserved/invalidate bytes, queue number, message
//! sequence number, message offset). An RDMA READ request carries 28 bytes (sink STag and
//! offset, length, source STag and offset; RFC 5040 §4.4). MPA markers (RFC 5044) are
//! assumed off, as RFC 6581's enhanced connection setup lets peers negotiate and as common
//! adapters configure them.

use super::pad4;

/// MPA ULPDU length field.
pub const MPA_LENGTH: u32 = 2;
/// MPA CRC32C.
pub const MPA_CRC: u32 = 4;
/// DDP/RDMAP header, tagged buffer model.
pub const DDP_TAGGED: u32 = 14;
/// DDP/RDMAP header, untagged buffer model.
pub const DDP_UNTAGGED: u32 = 18;
/// Payload of an RDMA READ request.
pub const READ_REQUEST: u32 = 28;

/// Largest RDMA payload of one FPDU in a TCP segment of `mss` bytes.
pub fn max_payload(mss: u32, tagged: bool) -> u32 {
    let ddp = if tagged { DDP_TAGGED } else { DDP_UNTAGGED };
    (mss.saturating_sub(MPA_CRC) & !3).saturating_sub(MPA_LENGTH + ddp).max(1)
}

/// Bytes on the TCP stream (and FPDUs) for an RDMA message of `payload` bytes.
pub fn stream_bytes(payload: u32, mss: u32, tagged: bool) -> (u32, u64) {
    let ddp = if tagged { DDP_TAGGED } else { DDP_UNTAGGED };
    let per = max_payload(mss, tagged);
    let fpdus = payload.div_ceil(per).max(1);
    let full = payload / per;
    let rest = payload % per;
    let fpdu = |p: u32| (pad4(MPA_LENGTH + ddp + p) + MPA_CRC) as u64;
    let mut bytes = full as u64 * fpdu(per);
    if rest > 0 || payload == 0 {
        bytes += fpdu(rest);
    }
    (fpdus, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fpdus_fit_segments() {
        // MSS 1448 (Linux, timestamps): 1444 usable before the CRC, 1428 of tagged payload.
        assert_eq!(max_payload(1448, true), 1428);
        assert_eq!(max_payload(1448, false), 1424);
        // A 4 KiB RDMA WRITE: 2 full FPDUs of 1448 bytes and one of 1240 + 2 + 14 → 1260.
        let (n, bytes) = stream_bytes(4096, 1448, true);
        assert_eq!(n, 3);
        assert_eq!(bytes, 2 * 1448 + pad4(2 + 14 + 1240) as u64 + 4);
        // A READ request: one untagged FPDU of 2 + 18 + 28 + 4.
        assert_eq!(stream_bytes(READ_REQUEST, 1448, false), (1, 52));
        // Every FPDU fits the segment.
        for p in [1, 100, 1424, 1428, 1429, 9000, 65_536] {
            let (n, b) = stream_bytes(p, 1448, true);
            assert!(b <= n as u64 * 1448, "{p}");
        }
    }
}
