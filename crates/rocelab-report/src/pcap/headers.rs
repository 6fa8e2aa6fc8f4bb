//! Exact encoders of the headers a RoCEv2 fabric carries, byte for byte as on the wire.
//!
//! * Ethernet II (IEEE 802.3) with an optional IEEE 802.1Q tag: TPID 0x8100, then PCP (3 bits),
//!   DEI (1 bit), VLAN id (12 bits).
//! * IPv4 (RFC 791) without options; the header checksum is the ones' complement of the ones'
//!   complement sum of the header's 16-bit words (RFC 1071). DSCP and ECN share the old TOS
//!   byte (RFC 2474, RFC 3168).
//! * UDP (RFC 768) to port 4791; RoCEv2 sends the UDP checksum as 0 over IPv4 (IBTA Annex
//!   A17, RoCEv2).
//! * InfiniBand Base Transport Header (IBA vol. 1 §9.2): opcode; SE, MigReq, PadCnt, TVer;
//!   P_Key; FECN, BECN and 6 reserved bits; destination QP (24 bits); AckReq and 7 reserved
//!   bits; PSN (24 bits). RETH (§9.3.3: virtual address 64, R_Key 32, DMA length 32), AETH
//!   (§9.3.5: syndrome 8, MSN 24) and ImmDt (§9.3.4: 32 bits) follow it when the opcode carries
//!   them (Table 38).
//! * The invariant CRC (§7.8.1, and Annex A17 for RoCEv2): CRC-32 (the Ethernet polynomial)
//!   over 8 bytes of 0xFF standing in for the LRH, then the IP header with TOS, TTL and header
//!   checksum masked to ones, the UDP header with its checksum masked to ones, the BTH with its
//!   FECN/BECN/reserved byte masked to ones, then the rest of the packet to the end of the pad;
//!   sent least significant byte first, like the FCS.
//! * A RoCEv2 CNP (Annex A17.9): BTH opcode 0x81 with BECN set, P_Key 0xFFFF, the destination
//!   QP of the reaction point, PSN 0, then 16 reserved bytes and the ICRC.
//! * PFC frames (IEEE 802.1Qbb) are encoded by [`rocelab_sim::pfc::PfcFrame::to_bytes`], IEEE
//!   802.3x PAUSE frames by [`rocelab_sim::pfc::pause_frame_bytes`].
//! * TCP (RFC 9293 §3.1): ports, 32-bit sequence and acknowledgement numbers, data offset,
//!   flags (CWR, ECE, ACK, PSH), window, checksum over the IPv4 pseudo-header, header and
//!   payload (RFC 9293 §3.1, RFC 1071), urgent pointer 0; the timestamps option as Linux sends
//!   it, two NOPs then kind 8, length 10, TSval, TSecr (RFC 7323 §3), then the SACK option, two
//!   NOPs then kind 5, length 2 + 8 per block, left and right edges (RFC 2018 §3).

/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType (TPID) of an IEEE 802.1Q tag.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// BTH opcode of a RoCEv2 congestion notification packet (IBTA Annex A17).
pub const OPCODE_CNP: u8 = 0x81;
/// Default (full-membership) partition key.
pub const DEFAULT_PKEY: u16 = 0xFFFF;
/// Reserved bytes after the BTH of a CNP.
pub const CNP_RESERVED: usize = 16;
/// Smallest Ethernet frame without its FCS: shorter frames are padded with zeros.
pub const MIN_FRAME_NO_FCS: usize = 60;

/// An IEEE 802.1Q tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanTag {
    /// Priority code point (3 bits).
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN id (12 bits; 0 = priority-tagged frame).
    pub vid: u16,
}

/// Writes an Ethernet II header, with the tag when there is one, ending with `ethertype`.
pub fn ethernet(out: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], tag: Option<VlanTag>, ethertype: u16) {
    out.extend_from_slice(&dst);
    out.extend_from_slice(&src);
    if let Some(t) = tag {
        out.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
        let tci = ((t.pcp as u16 & 7) << 13) | ((t.dei as u16) << 12) | (t.vid & 0x0FFF);
        out.extend_from_slice(&tci.to_be_bytes());
    }
    out.extend_from_slice(&ethertype.to_be_bytes());
}

/// The fields of an IPv4 header rocelab sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    pub dscp: u8,
    /// The two ECN bits (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE).
    pub ecn: u8,
    /// Header and payload bytes.
    pub total_len: u16,
    pub identification: u16,
    /// Don't fragment.
    pub df: bool,
    pub ttl: u8,
    pub protocol: u8,
    pub src: u32,
    pub dst: u32,
}

/// RFC 1071 Internet checksum of `bytes` (an even number of them).
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// Writes a 20-byte IPv4 header with its checksum.
pub fn ipv4(out: &mut Vec<u8>, h: &Ipv4) {
    let start = out.len();
    out.push(0x45);
    out.push((h.dscp << 2) | (h.ecn & 3));
    out.extend_from_slice(&h.total_len.to_be_bytes());
    out.extend_from_slice(&h.identification.to_be_bytes());
    out.extend_from_slice(&(if h.df { 0x4000u16 } else { 0 }).to_be_bytes());
    out.push(h.ttl);
    out.push(h.protocol);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&h.src.to_be_bytes());
    out.extend_from_slice(&h.dst.to_be_bytes());
    let sum = internet_checksum(&out[start..start + 20]);
    out[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
}

/// Writes an 8-byte UDP header with checksum 0 (RoCEv2 over IPv4 sends none).
pub fn udp(out: &mut Vec<u8>, src_port: u16, dst_port: u16, len: u16) {
    out.extend_from_slice(&src_port.to_be_bytes());
    out.extend_from_slice(&dst_port.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
}

/// Writes a TCP segment — header, the timestamps option if any, and `payload` zero bytes — for
/// an IPv4 packet from `src` to `dst`, with its checksum.
pub fn tcp(
    out: &mut Vec<u8>,
    src: u32,
    dst: u32,
    h: &rocelab_sim::tcp::TcpHeader,
    payload: u32,
    fill: &mut dyn FnMut(&mut [u8]),
) {
    let start = out.len();
    let header_len = h.header_len() as u8;
    out.extend_from_slice(&h.src_port.to_be_bytes());
    out.extend_from_slice(&h.dst_port.to_be_bytes());
    out.extend_from_slice(&h.seq.to_be_bytes());
    out.extend_from_slice(&h.ack.to_be_bytes());
    out.push((header_len / 4) << 4);
    out.push(h.flags);
    out.extend_from_slice(&h.window.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (below), urgent pointer
    if let Some((tsval, tsecr)) = h.timestamps {
        out.extend_from_slice(&[1, 1, 8, 10]);
        out.extend_from_slice(&tsval.to_be_bytes());
        out.extend_from_slice(&tsecr.to_be_bytes());
    }
    let blocks = &h.sack[..(h.sack_blocks as usize).min(h.sack.len())];
    if !blocks.is_empty() {
        out.extend_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
        for (left, right) in blocks {
            out.extend_from_slice(&left.to_be_bytes());
            out.extend_from_slice(&right.to_be_bytes());
        }
    }
    let at = out.len();
    out.resize(at + payload as usize, 0);
    fill(&mut out[at..]);
    let len = out.len() - start;
    let mut pseudo = Vec::with_capacity(12 + len);
    pseudo.extend_from_slice(&src.to_be_bytes());
    pseudo.extend_from_slice(&dst.to_be_bytes());
    pseudo.extend_from_slice(&[0, rocelab_sim::tcp::IPPROTO_TCP]);
    pseudo.extend_from_slice(&(len as u16).to_be_bytes());
    pseudo.extend_from_slice(&out[start..]);
    let sum = internet_checksum(&pseudo);
    out[start + 16..start + 18].copy_from_slice(&sum.to_be_bytes());
}

/// InfiniBand Base Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bth {
    pub opcode: u8,
    /// Solicited event.
    pub se: bool,
    /// Migration request.
    pub migreq: bool,
    /// Pad bytes after the payload (0..=3) that make it a multiple of 4.
    pub pad: u8,
    /// Transport header version (0).
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    /// Destination queue pair (24 bits).
    pub dest_qp: u32,
    /// Acknowledge request.
    pub ack_req: bool,
    /// Packet sequence number (24 bits).
    pub psn: u32,
}

impl Bth {
    /// A BTH with the default P_Key and version 0.
    pub fn new(opcode: u8, dest_qp: u32, psn: u32) -> Self {
        Bth {
            opcode,
            se: false,
            migreq: false,
            pad: 0,
            tver: 0,
            pkey: DEFAULT_PKEY,
            fecn: false,
            becn: false,
            dest_qp,
            ack_req: false,
            psn,
        }
    }

    /// The 12 bytes.
    pub fn to_bytes(&self) -> [u8; 12] {
        let qp = (self.dest_qp & 0x00FF_FFFF).to_be_bytes();
        let psn = (self.psn & 0x00FF_FFFF).to_be_bytes();
        [
            self.opcode,
            ((self.se as u8) << 7) | ((self.migreq as u8) << 6) | ((self.pad & 3) << 4) | (self.tver & 0x0F),
            (self.pkey >> 8) as u8,
            self.pkey as u8,
            ((self.fecn as u8) << 7) | ((self.becn as u8) << 6),
            qp[1],
            qp[2],
            qp[3],
            (self.ack_req as u8) << 7,
            psn[1],
            psn[2],
            psn[3],
        ]
    }
}

/// RDMA Extended Transport Header (RDMA WRITE first/only, RDMA READ request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reth {
    pub virtual_address: u64,
    pub r_key: u32,
    pub dma_length: u32,
}

impl Reth {
    /// The 16 bytes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..8].copy_from_slice(&self.virtual_address.to_be_bytes());
        b[8..12].copy_from_slice(&self.r_key.to_be_bytes());
        b[12..16].copy_from_slice(&self.dma_length.to_be_bytes());
        b
    }
}

/// ACK Extended Transport Header (acknowledgements, RDMA READ responses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aeth {
    /// Bits 7..5 say ACK (000), RNR NAK (001) or NAK (011); the low 5 bits carry the credit
    /// count, RNR timer or NAK code (IBA §9.7.5.1, Table 44).
    pub syndrome: u8,
    /// Message sequence number (24 bits).
    pub msn: u32,
}

impl Aeth {
    /// The 4 bytes.
    pub fn to_bytes(&self) -> [u8; 4] {
        let m = (self.msn & 0x00FF_FFFF).to_be_bytes();
        [self.syndrome, m[1], m[2], m[3]]
    }
}

/// Which extension headers an RC/UC/RD opcode carries after the BTH (IBA Table 38), from the
/// operation in its low five bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpcodeLayout {
    pub reth: bool,
    pub aeth: bool,
    pub immediate: bool,
    /// The last (or only) packet of a request: the requester asks for an ACK.
    pub ends_request: bool,
}

/// The layout of an RC (0x00..0x1F) or UC (0x20..0x3F) `opcode`; other transports and
/// manufacturer-specific opcodes get none.
pub fn opcode_layout(opcode: u8) -> OpcodeLayout {
    if opcode >= 0x40 {
        // RD, UD, CNP and other manufacturer-specific opcodes, XRC: not modelled.
        return OpcodeLayout::default();
    }
    let (op, reliable) = (opcode & 0x1F, opcode < 0x20);
    OpcodeLayout {
        reth: matches!(op, 0x06 | 0x0A | 0x0B | 0x0C),
        aeth: matches!(op, 0x0D | 0x0F | 0x10 | 0x11 | 0x12),
        immediate: matches!(op, 0x03 | 0x05 | 0x09 | 0x0B),
        ends_request: reliable && matches!(op, 0x02..=0x05 | 0x08..=0x0C),
    }
}

/// RoCEv2 invariant CRC of `ip_packet`: the IPv4 packet from its header to the end of the IB
/// pad (without the ICRC itself). Returns the four bytes as sent.
pub fn icrc(ip_packet: &[u8]) -> [u8; 4] {
    let mut h = crc32fast::Hasher::new();
    h.update(&[0xFF; 8]);
    let mut masked = [0u8; 20 + 8 + 12];
    let n = masked.len().min(ip_packet.len());
    masked[..n].copy_from_slice(&ip_packet[..n]);
    masked[1] = 0xFF; // TOS: DSCP and ECN change hop by hop
    masked[8] = 0xFF; // TTL
    masked[10] = 0xFF; // header checksum
    masked[11] = 0xFF;
    masked[26] = 0xFF; // UDP checksum
    masked[27] = 0xFF;
    masked[32] = 0xFF; // BTH FECN, BECN, reserved
    h.update(&masked[..n]);
    if ip_packet.len() > n {
        h.update(&ip_packet[n..]);
    }
    h.finalize().to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocelab_sim::addresses::node_mac;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// A CNP captured on a ConnectX-4 Lx (the capture in scapy's RoCE tests,
    /// test/contrib/roce.uts): Ethernet, IPv4 with DSCP 48 and ECT(0), UDP 4791, BTH opcode
    /// 0x81 with BECN, QP 0x118, 16 reserved bytes, ICRC 82 fd 00 2a.
    const CX4_CNP: &str = "e41d2dab2bc2 7cfe90643b32 0800
        45c2 003c 718c 4000 4011 9161 0a001101 0a001201
        0000 12b7 0028 0000
        8100ffff 40000118 00000000
        00000000 00000000 00000000 00000000
        82fd002a";

    #[test]
    fn icrc_of_a_hardware_cnp() {
        let frame = hex(CX4_CNP);
        let ip = &frame[14..frame.len() - 4];
        assert_eq!(icrc(ip), [0x82, 0xfd, 0x00, 0x2a]);
    }

    #[test]
    fn ipv4_checksum_of_a_hardware_header() {
        let frame = hex(CX4_CNP);
        let mut header = frame[14..34].to_vec();
        assert_eq!(internet_checksum(&header), 0, "a correct header sums to zero");
        header[10] = 0;
        header[11] = 0;
        assert_eq!(internet_checksum(&header), 0x9161);
    }

    #[test]
    fn encoders_rebuild_the_hardware_cnp_exactly() {
        let frame = hex(CX4_CNP);
        let mut out = Vec::new();
        ethernet(&mut out, frame[0..6].try_into().unwrap(), frame[6..12].try_into().unwrap(), None, ETHERTYPE_IPV4);
        ipv4(
            &mut out,
            &Ipv4 {
                dscp: 48,
                ecn: 2,
                total_len: 60,
                identification: 0x718c,
                df: true,
                ttl: 64,
                protocol: 17,
                src: 0x0a00_1101,
                dst: 0x0a00_1201,
            },
        );
        udp(&mut out, 0, 4791, 40);
        let mut bth = Bth::new(OPCODE_CNP, 0x118, 0);
        bth.becn = true;
        out.extend_from_slice(&bth.to_bytes());
        out.extend_from_slice(&[0; CNP_RESERVED]);
        let c = icrc(&out[14..]);
        out.extend_from_slice(&c);
        assert_eq!(out, frame);
    }

    /// An ACK from 10.0.0.1:48842 to 10.0.0.2:5201 with the timestamps option, assembled by
    /// hand field by field (data offset 8, flags ACK, window 0x01f5); its checksum, 0xb99d, was
    /// computed apart from this crate (RFC 1071 over the pseudo-header and the segment, in a few
    /// lines of Python).
    const ACK_WITH_TIMESTAMPS: &str = "0a000001 0a000002
        beca 1451 6a2f1cb8 8b1c3c5d 8010 01f5 b99d 0000 0101080a 0035c2a1 0035c29f";

    #[test]
    fn tcp_segments_are_exact_and_their_checksum_verifies() {
        let b = hex(ACK_WITH_TIMESTAMPS);
        let (src, dst) =
            (u32::from_be_bytes(b[0..4].try_into().unwrap()), u32::from_be_bytes(b[4..8].try_into().unwrap()));
        let h = rocelab_sim::tcp::TcpHeader {
            src_port: 0xbeca,
            dst_port: 5201,
            seq: 0x6a2f1cb8,
            ack: 0x8b1c3c5d,
            flags: 0x10,
            window: 0x01f5,
            timestamps: Some((0x0035c2a1, 0x0035c29f)),
            sack: [(0, 0); 4],
            sack_blocks: 0,
        };
        let mut out = Vec::new();
        tcp(&mut out, src, dst, &h, 0, &mut |_| {});
        assert_eq!(out, &b[8..]);
        // With two SACK blocks: data offset 11, NOP NOP kind 5 length 18, the edges.
        let sacked = rocelab_sim::tcp::TcpHeader { sack: [(10, 20), (30, 40), (0, 0), (0, 0)], sack_blocks: 2, ..h };
        let mut s2 = Vec::new();
        tcp(&mut s2, src, dst, &sacked, 0, &mut |_| {});
        assert_eq!((s2.len(), s2[12]), (52, 13 << 4));
        assert_eq!(&s2[32..36], &[1, 1, 5, 18]);
        assert_eq!(&s2[36..52], &[0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40]);
        let mut v = b[0..8].to_vec();
        v.extend_from_slice(&[0, 6, 0, 52]);
        v.extend_from_slice(&s2);
        assert_eq!(internet_checksum(&v), 0);
        // With payload, flags CWR|ECE|ACK|PSH and no options: data offset 5, zeros after the
        // header, and an odd length summed with a zero pad byte: the sum over pseudo-header and
        // segment is zero.
        let h2 = rocelab_sim::tcp::TcpHeader { flags: 0xD8, timestamps: None, ..h };
        let mut seg = Vec::new();
        tcp(&mut seg, src, dst, &h2, 101, &mut |_| {});
        assert_eq!((seg.len(), seg[12], seg[13]), (121, 0x50, 0xD8));
        assert!(seg[20..].iter().all(|&x| x == 0));
        let mut v = b[0..8].to_vec();
        v.extend_from_slice(&[0, 6, 0, 121]);
        v.extend_from_slice(&seg);
        assert_eq!(internet_checksum(&v), 0);
    }

    #[test]
    fn vlan_tag_carries_pcp_and_vid() {
        let mut out = Vec::new();
        ethernet(
            &mut out,
            node_mac(1, 0),
            node_mac(2, 0),
            Some(VlanTag { pcp: 5, dei: false, vid: 2 }),
            ETHERTYPE_IPV4,
        );
        assert_eq!(out, hex("020000000001 020000000002 8100 a002 0800"));
        assert_eq!(node_mac(0x0102_0304, 0), [2, 0, 1, 2, 3, 4]);
    }

    #[test]
    fn bth_reth_aeth_layouts() {
        let mut b = Bth::new(0x0A, 0x00AB_CDEF, 0x0012_3456);
        b.se = true;
        b.pad = 3;
        b.ack_req = true;
        assert_eq!(b.to_bytes().to_vec(), hex("0a b0 ffff 00 abcdef 80 123456"));
        // The 24-bit fields drop what does not fit.
        assert_eq!(&Bth::new(4, 0xFF00_0001, 0x0100_0002).to_bytes()[5..], &hex("000001 00 000002")[..]);
        let r = Reth { virtual_address: 0x0102_0304_0506_0708, r_key: 0x1122_3344, dma_length: 4096 };
        assert_eq!(r.to_bytes().to_vec(), hex("0102030405060708 11223344 00001000"));
        let a = Aeth { syndrome: 0x1F, msn: 0x0A_0B0C };
        assert_eq!(a.to_bytes().to_vec(), hex("1f 0a0b0c"));
    }

    #[test]
    fn opcode_layouts_follow_table_38() {
        assert_eq!(opcode_layout(0x04), OpcodeLayout { ends_request: true, ..Default::default() });
        assert!(opcode_layout(0x06).reth && !opcode_layout(0x06).ends_request, "WRITE first");
        assert!(opcode_layout(0x0A).reth && opcode_layout(0x0A).ends_request, "WRITE only");
        let w = opcode_layout(0x0B);
        assert!(w.reth && w.immediate, "WRITE only with immediate");
        assert!(opcode_layout(0x0C).reth, "READ request");
        assert!(opcode_layout(0x11).aeth && !opcode_layout(0x0E).aeth, "ACK; READ response middle has none");
        assert!(opcode_layout(0x10).aeth, "READ response only");
        assert!(opcode_layout(0x2A).reth && !opcode_layout(0x2A).ends_request, "UC WRITE only: no ACK");
        assert_eq!(opcode_layout(OPCODE_CNP), OpcodeLayout::default());
    }
}
