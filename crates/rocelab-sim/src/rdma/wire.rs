//! The InfiniBand transport headers of RoCEv2 as the simulator sizes them: BTH opcodes of the
//! Reliable Connected (RC) service, the RETH and AETH extension headers, the AETH syndromes,
//! and the frame size of every kind of RC packet.
//!
//! Sources: InfiniBand Architecture Specification Vol. 1, Release 1.4, §9.2 (BTH, Table 38 for
//! the opcodes), §9.3.2 (RETH), §9.3.5 (AETH, Table 45 for the syndromes), §9.2.4 (PSN); RoCEv2
//! annex A17 (UDP port 4791, ICRC, and the CNP: opcode 0x81, BTH followed by 16 reserved bytes).
//!
//! **What a frame holds.** Ethernet 14, 802.1Q 4 when tagged, IPv4 20, UDP 8, BTH 12, then the
//! extension headers of the opcode (RETH 16 on the first packet of an RDMA WRITE and on a READ
//! request; AETH 4 on an ACK/NAK and on the first, last and only READ response), the payload
//! padded to a multiple of 4 bytes (BTH PadCnt), ICRC 4 and FCS 4; the frame is padded to the
//! 64-byte Ethernet minimum. The pad bytes are counted in [`crate::Packet::header_bytes`], so that
//! `frame_bytes = header_bytes + payload_bytes` holds for every packet.

use crate::packet::wire;

/// RC SEND First.
pub const SEND_FIRST: u8 = 0x00;
/// RC SEND Middle.
pub const SEND_MIDDLE: u8 = 0x01;
/// RC SEND Last.
pub const SEND_LAST: u8 = 0x02;
/// RC SEND Only.
pub const SEND_ONLY: u8 = 0x04;
/// RC RDMA WRITE First (carries a RETH).
pub const WRITE_FIRST: u8 = 0x06;
/// RC RDMA WRITE Middle.
pub const WRITE_MIDDLE: u8 = 0x07;
/// RC RDMA WRITE Last.
pub const WRITE_LAST: u8 = 0x08;
/// RC RDMA WRITE Only (carries a RETH).
pub const WRITE_ONLY: u8 = 0x0A;
/// RC RDMA READ Request (carries a RETH, no payload).
pub const READ_REQUEST: u8 = 0x0C;
/// RC RDMA READ Response First (carries an AETH).
pub const READ_RESPONSE_FIRST: u8 = 0x0D;
/// RC RDMA READ Response Middle.
pub const READ_RESPONSE_MIDDLE: u8 = 0x0E;
/// RC RDMA READ Response Last (carries an AETH).
pub const READ_RESPONSE_LAST: u8 = 0x0F;
/// RC RDMA READ Response Only (carries an AETH).
pub const READ_RESPONSE_ONLY: u8 = 0x10;
/// RC Acknowledge (ACK or NAK, told by the AETH syndrome).
pub const ACKNOWLEDGE: u8 = 0x11;
/// RoCEv2 Congestion Notification Packet (annex A17).
pub const CNP: u8 = 0x81;

/// Base Transport Header.
pub const BTH: u32 = 12;
/// RDMA Extended Transport Header: virtual address 8, R_Key 4, DMA length 4.
pub const RETH: u32 = 16;
/// ACK Extended Transport Header: syndrome 1, MSN 3.
pub const AETH: u32 = 4;
/// The 16 reserved bytes after the BTH of a CNP.
pub const CNP_RESERVED: u32 = 16;

/// AETH syndrome of an ACK: bits 7..5 = 000 and the credit count 0b11111 ("invalid", i.e. no
/// end-to-end flow control credits are advertised, what RC QPs with a shared receive queue and
/// RDMA NICs commonly send).
pub const SYNDROME_ACK: u8 = 0x1F;
/// AETH syndrome of a NAK with code 0, PSN sequence error: bits 7..5 = 011.
pub const SYNDROME_NAK_PSN_SEQUENCE: u8 = 0x60;

/// Whether the AETH syndrome is an ACK (bits 7..5 = 000).
pub fn syndrome_is_ack(syndrome: u8) -> bool {
    syndrome >> 5 == 0
}

/// Pack an AETH as it is on the wire: syndrome in the high byte, the 24-bit MSN below.
pub fn pack_aeth(syndrome: u8, msn: u32) -> u32 {
    ((syndrome as u32) << 24) | (msn & 0x00FF_FFFF)
}

/// The (syndrome, MSN) of a packed AETH.
pub fn unpack_aeth(aeth: u32) -> (u8, u32) {
    ((aeth >> 24) as u8, aeth & 0x00FF_FFFF)
}

/// Whether packets with this opcode carry a RETH.
pub fn has_reth(opcode: u8) -> bool {
    matches!(opcode, WRITE_FIRST | WRITE_ONLY | READ_REQUEST)
}

/// Whether packets with this opcode carry an AETH.
pub fn has_aeth(opcode: u8) -> bool {
    matches!(opcode, ACKNOWLEDGE | READ_RESPONSE_FIRST | READ_RESPONSE_LAST | READ_RESPONSE_ONLY)
}

/// Whether the opcode ends a request message at the responder (its MSN advances).
pub fn ends_message(opcode: u8) -> bool {
    matches!(opcode, SEND_LAST | SEND_ONLY | WRITE_LAST | WRITE_ONLY | READ_REQUEST)
}

/// Bytes of the transport extension headers of `opcode` (beyond the BTH).
pub fn extension_bytes(opcode: u8) -> u32 {
    if opcode == CNP {
        CNP_RESERVED
    } else {
        (if has_reth(opcode) { RETH } else { 0 }) + (if has_aeth(opcode) { AETH } else { 0 })
    }
}

/// Header bytes of an RC (or CNP) packet carrying `payload` bytes: Ethernet, optional 802.1Q,
/// IPv4, UDP, BTH, the opcode's extension headers, the payload pad, ICRC and FCS; plus what
/// the 64-byte Ethernet minimum adds. `frame = header + payload`.
pub fn header_bytes(opcode: u8, payload: u32, tagged: bool) -> u32 {
    let pad = (4 - payload % 4) % 4;
    let base = wire::ETHERNET
        + if tagged { wire::VLAN_TAG } else { 0 }
        + wire::IPV4
        + wire::UDP
        + BTH
        + extension_bytes(opcode)
        + pad
        + wire::ICRC
        + wire::FCS;
    base + wire::MIN_FRAME.saturating_sub(base + payload)
}

/// Frame bytes of an RC (or CNP) packet carrying `payload` bytes.
pub fn frame_bytes(opcode: u8, payload: u32, tagged: bool) -> u32 {
    header_bytes(opcode, payload, tagged) + payload
}

/// The InfiniBand path MTUs (payload bytes per packet) RoCE uses.
pub const PATH_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];

/// Opcode of packet `index` of `count` of a SEND or WRITE message.
pub fn request_opcode(write: bool, index: u32, count: u32) -> u8 {
    let (first, middle, last, only) = if write {
        (WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY)
    } else {
        (SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY)
    };
    match (index, count) {
        (_, 1) => only,
        (0, _) => first,
        (i, n) if i + 1 == n => last,
        _ => middle,
    }
}

/// Opcode of response packet `index` of `count` of a READ.
pub fn read_response_opcode(index: u32, count: u32) -> u8 {
    match (index, count) {
        (_, 1) => READ_RESPONSE_ONLY,
        (0, _) => READ_RESPONSE_FIRST,
        (i, n) if i + 1 == n => READ_RESPONSE_LAST,
        _ => READ_RESPONSE_MIDDLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_sizes_follow_the_headers() {
        // Tagged WRITE Only of 2 bytes: 14 + 4 + 20 + 8 + 12 + RETH 16 + 2 + pad 2 + 4 + 4 = 86.
        assert_eq!(frame_bytes(WRITE_ONLY, 2, true), 86);
        // Untagged WRITE Middle of 4096: 62 + 4096.
        assert_eq!(frame_bytes(WRITE_MIDDLE, 4096, false), 4158);
        assert_eq!(frame_bytes(WRITE_FIRST, 4096, false), 4174);
        // ACK: 62 + AETH 4 = 66 (untagged), 70 tagged.
        assert_eq!(frame_bytes(ACKNOWLEDGE, 0, false), 66);
        assert_eq!(frame_bytes(ACKNOWLEDGE, 0, true), 70);
        // CNP: BTH + 16 reserved: 62 + 16.
        assert_eq!(frame_bytes(CNP, 0, false), 78);
        // READ request: RETH, no payload: 78; responses: AETH on first/last/only.
        assert_eq!(frame_bytes(READ_REQUEST, 0, false), 78);
        assert_eq!(frame_bytes(READ_RESPONSE_FIRST, 1024, false), 62 + 4 + 1024);
        assert_eq!(frame_bytes(READ_RESPONSE_MIDDLE, 1024, false), 62 + 1024);
        // A SEND Only of 0 bytes is padded to the Ethernet minimum.
        assert_eq!(frame_bytes(SEND_ONLY, 0, false), 64);
        assert_eq!(frame_bytes(SEND_ONLY, 1, false), 66, "1 byte and 3 bytes of pad");
    }

    #[test]
    fn opcodes_segment_messages() {
        let ops: Vec<u8> = (0..4).map(|i| request_opcode(true, i, 4)).collect();
        assert_eq!(ops, [WRITE_FIRST, WRITE_MIDDLE, WRITE_MIDDLE, WRITE_LAST]);
        assert_eq!(request_opcode(false, 0, 1), SEND_ONLY);
        assert_eq!(request_opcode(false, 1, 2), SEND_LAST);
        assert_eq!(read_response_opcode(0, 3), READ_RESPONSE_FIRST);
        assert_eq!(read_response_opcode(2, 3), READ_RESPONSE_LAST);
        assert_eq!(read_response_opcode(0, 1), READ_RESPONSE_ONLY);
    }

    #[test]
    fn aeth_packs_like_the_wire() {
        let a = pack_aeth(SYNDROME_NAK_PSN_SEQUENCE, 0x12_3456);
        assert_eq!(a, 0x6012_3456);
        assert_eq!(unpack_aeth(a), (0x60, 0x12_3456));
        assert!(syndrome_is_ack(SYNDROME_ACK));
        assert!(!syndrome_is_ack(SYNDROME_NAK_PSN_SEQUENCE));
    }
}
