//! Packet captures of a simulation that Wireshark decodes: every frame crossing the chosen
//! ports, with exact headers, as a classic pcap file (link type Ethernet, nanosecond
//! timestamps of simulated time).
//!
//! A frame is described by a [`Frame`]: its Ethernet addresses and 802.1Q tag, and a
//! [`HeaderStack`] saying what follows. [`frame_of_packet`] maps a simulator
//! [`Packet`] to one, [`frame_of_tcp`] a TCP segment (with the header the
//! engine hands the observer), [`frame_of_pfc`] a PFC frame, [`frame_of_link_pause`] an 802.3x
//! PAUSE frame, and [`encode`] writes the bytes. The [`PcapObserver`] plugs the encoder into a
//! run.
//!
//! **Addresses** are those of [`rocelab_sim::addresses`]: a host port's IPv4 address is the one
//! the fabric gives it, else 10.0.0.0/8 plus its node's index (a host's first port) or an
//! index after the last node's (its other ports); its MAC is 02, the port's index on its host,
//! then the node's index in four octets. A data frame carries the IPv4 and MAC addresses of its
//! source and destination ports on every hop (a bridged fabric's view); a PFC or PAUSE frame
//! carries the MAC of the port sending it (a switch's: 02:00 and the switch's index).
//!
//! **Fields not in the simulator's packet** are set as a NIC would send them: IPv4
//! identification 0 with don't-fragment set, TTL 64; TCP urgent pointer 0, payload zeros but
//! for iSCSI PDUs' Basic Header Segments (48 bytes, RFC 7143 §11), which the engine reports
//! ([`rocelab_sim::Observer::on_stream_header`]) and the capture writes at their sequence
//! numbers; BTH P_Key 0xFFFF, version 0, AckReq on the last packet of an RC request. The RETH DMA length and the AETH (syndrome and MSN) come
//! from the packet ([`Packet::reth_dma_length`], [`Packet::aeth`]); the RETH's virtual address
//! and R_Key are 0, and an open-loop packet with such an opcode gets a RETH DMA length of its
//! payload and an AETH of 0x1F (ACK without credit count) with MSN 0, so that the layout is exact.
//!
//! **Lengths.** A captured frame has no FCS (as captures on Linux hosts have none): its length
//! is the simulator's frame size minus 4. The InfiniBand pad (0..3 bytes that make the payload a
//! multiple of 4) is on the wire; the simulator counts it for RDMA packets (in their header
//! bytes) but not for open-loop packets, so an open-loop packet whose payload is not a multiple
//! of 4 is captured up to 3 bytes longer than simulated.

mod headers;
mod observer;

pub use headers::*;
pub use observer::{resolve_filter, CaptureFilter, CaptureStats, Captured, CapturedKind, PcapObserver};

use rocelab_sim::addresses::AddressBook;
use rocelab_sim::packet::wire;
use rocelab_sim::pfc::PfcFrame;
use rocelab_sim::tcp::TcpHeader;
use rocelab_sim::{Ecn, Packet};

/// IP fields of a RoCEv2 frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpFields {
    pub src: u32,
    pub dst: u32,
    pub dscp: u8,
    pub ecn: u8,
    pub ttl: u8,
    pub udp_src_port: u16,
    pub udp_dst_port: u16,
}

/// What follows the Ethernet header. A TCP segment's payload is zeros except for the
/// upper-layer headers the engine reports ([`PcapObserver`] writes each iSCSI PDU's BHS at its
/// place in the stream); iWARP's MPA/DDP headers are not written (zeros).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderStack {
    /// IPv4 / UDP / BTH [/ RETH] [/ AETH] [/ ImmDt] / payload / pad / ICRC.
    RoceV2 {
        ip: IpFields,
        bth: Bth,
        reth: Option<Reth>,
        aeth: Option<Aeth>,
        immediate: Option<u32>,
        /// Payload bytes (zeros in the capture), without the pad.
        payload: u32,
    },
    /// IPv4 / UDP / BTH (opcode 0x81, BECN) / 16 reserved bytes / ICRC.
    Cnp { ip: IpFields, bth: Bth },
    /// An IEEE 802.1Qbb PFC frame.
    Pfc(PfcFrame),
    /// IPv4 / TCP [/ timestamps option] / payload (zeros).
    Tcp {
        ip: IpFields,
        tcp: TcpHeader,
        /// Payload bytes.
        payload: u32,
    },
    /// An IEEE 802.3x PAUSE frame of `quanta` (0: resume).
    Pause { quanta: u16 },
}

/// One frame to capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub tag: Option<VlanTag>,
    pub stack: HeaderStack,
}

fn ecn_bits(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    }
}

/// The IP fields (with these transport ports) and the 802.1Q tag of packet `p`.
fn ip_and_tag(
    p: &Packet,
    book: &AddressBook,
    src_port: u16,
    dst_port: u16,
    vlan: Option<u16>,
) -> (IpFields, Option<VlanTag>) {
    let ip = IpFields {
        src: book.ipv4(p.src),
        dst: book.ipv4(p.dst),
        dscp: p.dscp & 0x3F,
        ecn: ecn_bits(p.ecn),
        ttl: 64,
        udp_src_port: src_port,
        udp_dst_port: dst_port,
    };
    (ip, p.tagged.then(|| VlanTag { pcp: p.pcp & 7, dei: false, vid: vlan.unwrap_or(0) & 0x0FFF }))
}

/// The frame a simulator packet is on the wire, with the addresses `book` gives its ends. `vlan`
/// is the fabric's VLAN id, used when the packet is tagged (0, a priority-tagged frame, when the
/// fabric names none).
pub fn frame_of_packet(p: &Packet, book: &AddressBook, vlan: Option<u16>) -> Frame {
    let (ip, tag) = ip_and_tag(p, book, p.udp_src_port, p.udp_dst_port, vlan);
    let stack = if p.bth_opcode == OPCODE_CNP {
        let mut bth = Bth::new(OPCODE_CNP, p.dest_qp, p.psn);
        bth.becn = true;
        HeaderStack::Cnp { ip, bth }
    } else {
        let layout = opcode_layout(p.bth_opcode);
        let mut bth = Bth::new(p.bth_opcode, p.dest_qp, p.psn);
        bth.pad = ((4 - p.payload_bytes % 4) % 4) as u8;
        bth.ack_req = layout.ends_request;
        HeaderStack::RoceV2 {
            ip,
            bth,
            reth: layout.reth.then(|| Reth {
                virtual_address: 0,
                r_key: 0,
                dma_length: p.reth_dma_length().unwrap_or(p.payload_bytes),
            }),
            aeth: layout.aeth.then(|| {
                let (syndrome, msn) = p.aeth().unwrap_or((0x1F, 0));
                Aeth { syndrome, msn }
            }),
            immediate: layout.immediate.then_some(0),
            payload: p.payload_bytes,
        }
    };
    Frame { dst_mac: book.mac(p.dst), src_mac: book.mac(p.src), tag, stack }
}

/// The frame a simulator TCP segment is on the wire, with its TCP header.
pub fn frame_of_tcp(p: &Packet, book: &AddressBook, tcp: &TcpHeader, vlan: Option<u16>) -> Frame {
    let (ip, tag) = ip_and_tag(p, book, tcp.src_port, tcp.dst_port, vlan);
    Frame {
        dst_mac: book.mac(p.dst),
        src_mac: book.mac(p.src),
        tag,
        stack: HeaderStack::Tcp { ip, tcp: *tcp, payload: p.payload_bytes },
    }
}

/// An 802.3x PAUSE frame of `quanta` sent by the port whose MAC is `sender`.
pub fn frame_of_link_pause(quanta: u16, sender: [u8; 6]) -> Frame {
    Frame { dst_mac: rocelab_sim::pfc::PFC_DEST_MAC, src_mac: sender, tag: None, stack: HeaderStack::Pause { quanta } }
}

/// A PFC frame sent by the port whose MAC is `sender`.
pub fn frame_of_pfc(f: &PfcFrame, sender: [u8; 6]) -> Frame {
    Frame { dst_mac: rocelab_sim::pfc::PFC_DEST_MAC, src_mac: sender, tag: None, stack: HeaderStack::Pfc(*f) }
}

/// Appends the frame's bytes (without FCS, padded to 60) to `out`.
pub fn encode(frame: &Frame, out: &mut Vec<u8>) {
    encode_with(frame, out, &mut |_| {})
}

/// [`encode`], with `fill` writing a TCP segment's payload (zeros until it does) before the
/// checksum is computed over it: the upper-layer headers a capture knows.
pub fn encode_with(frame: &Frame, out: &mut Vec<u8>, fill: &mut dyn FnMut(&mut [u8])) {
    let start = out.len();
    match &frame.stack {
        HeaderStack::Pfc(f) => out.extend_from_slice(&f.to_bytes(frame.src_mac)),
        HeaderStack::Pause { quanta } => {
            out.extend_from_slice(&rocelab_sim::pfc::pause_frame_bytes(*quanta, frame.src_mac))
        }
        HeaderStack::Tcp { ip, tcp: h, payload } => {
            ethernet(out, frame.dst_mac, frame.src_mac, frame.tag, ETHERTYPE_IPV4);
            let tcp_len = h.header_len() as usize + *payload as usize;
            ipv4(
                out,
                &Ipv4 {
                    dscp: ip.dscp,
                    ecn: ip.ecn,
                    total_len: (20 + tcp_len) as u16,
                    identification: 0,
                    df: true,
                    ttl: ip.ttl,
                    protocol: rocelab_sim::tcp::IPPROTO_TCP,
                    src: ip.src,
                    dst: ip.dst,
                },
            );
            tcp(out, ip.src, ip.dst, h, *payload, fill);
        }
        HeaderStack::RoceV2 { ip, bth, reth, aeth, immediate, payload } => {
            let ext = reth.map_or(0, |_| 16) + aeth.map_or(0, |_| 4) + immediate.map_or(0, |_| 4);
            let ib = wire::BTH as usize + ext + *payload as usize + bth.pad as usize + wire::ICRC as usize;
            ip_udp(out, frame, ip, ib);
            let ip_start = out.len() - 28;
            out.extend_from_slice(&bth.to_bytes());
            if let Some(r) = reth {
                out.extend_from_slice(&r.to_bytes());
            }
            if let Some(a) = aeth {
                out.extend_from_slice(&a.to_bytes());
            }
            if let Some(i) = immediate {
                out.extend_from_slice(&i.to_be_bytes());
            }
            out.resize(out.len() + *payload as usize + bth.pad as usize, 0);
            let c = icrc(&out[ip_start..]);
            out.extend_from_slice(&c);
        }
        HeaderStack::Cnp { ip, bth } => {
            ip_udp(out, frame, ip, wire::BTH as usize + CNP_RESERVED + wire::ICRC as usize);
            let ip_start = out.len() - 28;
            out.extend_from_slice(&bth.to_bytes());
            out.extend_from_slice(&[0; CNP_RESERVED]);
            let c = icrc(&out[ip_start..]);
            out.extend_from_slice(&c);
        }
    }
    if out.len() - start < MIN_FRAME_NO_FCS {
        out.resize(start + MIN_FRAME_NO_FCS, 0);
    }
}

/// Ethernet (and tag), IPv4 and UDP headers in front of `ib` bytes of InfiniBand transport.
fn ip_udp(out: &mut Vec<u8>, frame: &Frame, ip: &IpFields, ib: usize) {
    ethernet(out, frame.dst_mac, frame.src_mac, frame.tag, ETHERTYPE_IPV4);
    let udp_len = 8 + ib;
    ipv4(
        out,
        &Ipv4 {
            dscp: ip.dscp,
            ecn: ip.ecn,
            total_len: (20 + udp_len) as u16,
            identification: 0,
            df: true,
            ttl: ip.ttl,
            protocol: wire::IPPROTO_UDP,
            src: ip.src,
            dst: ip.dst,
        },
    );
    udp(out, ip.udp_src_port, ip.udp_dst_port, udp_len as u16);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocelab_sim::addresses::node_mac;
    use rocelab_sim::packet::{rocev2_frame_bytes, rocev2_header_bytes, PacketKind};

    pub(crate) fn packet(opcode: u8, payload: u32, tagged: bool) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: 0,
            src: 3,
            dst: 11,
            udp_src_port: 49153,
            udp_dst_port: wire::ROCEV2_UDP_PORT,
            tagged,
            pcp: 3,
            dscp: 26,
            ecn: Ecn::Ce,
            bth_opcode: opcode,
            dest_qp: 0x12,
            psn: 7,
            payload_bytes: payload,
            header_bytes: rocev2_header_bytes(tagged),
            frame_bytes: rocev2_frame_bytes(payload, tagged),
            sent_at: 0,
            flow_hash: 0,
            priority: 3,
            ext: 0,
        }
    }

    fn bytes(f: &Frame) -> Vec<u8> {
        let mut v = Vec::new();
        encode(f, &mut v);
        v
    }

    #[test]
    fn send_only_frame_is_exact_and_as_long_as_simulated() {
        let p = packet(0x04, 1024, true);
        let b = bytes(&frame_of_packet(&p, &AddressBook::default(), Some(2)));
        assert_eq!(b.len() as u32 + wire::FCS, p.frame_bytes);
        assert_eq!(&b[0..12], &[2, 0, 0, 0, 0, 11, 2, 0, 0, 0, 0, 3]);
        assert_eq!(&b[12..18], &[0x81, 0x00, 0x60, 0x02, 0x08, 0x00], "PCP 3, VID 2, IPv4");
        let ip = &b[18..38];
        assert_eq!(ip[1], (26 << 2) | 3, "DSCP 26, CE");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as usize, b.len() - 18);
        assert_eq!(internet_checksum(ip), 0);
        assert_eq!(&ip[12..20], &[10, 0, 0, 3, 10, 0, 0, 11]);
        let udp = &b[38..46];
        assert_eq!(udp, &[0xC0, 0x01, 0x12, 0xB7, 0x04, 0x18, 0, 0], "49153 → 4791, 1048 bytes");
        assert_eq!(&b[46..58], &[0x04, 0, 0xFF, 0xFF, 0, 0, 0, 0x12, 0x80, 0, 0, 7], "SEND only asks for an ACK");
        assert_eq!(&b[b.len() - 4..], &icrc(&b[18..b.len() - 4]));
    }

    #[test]
    fn a_frame_between_ports_carries_the_ports_addresses() {
        use rocelab_sim::routing::port_address;
        use rocelab_sim::spec::{HostPortSpec, HostSpec, NetworkSpec, NodeKind, NodeSpec};
        // Host 0 with two ports, the second given 192.168.10.21; host 1 with one port.
        let port = |ipv4| HostPortSpec { ipv4, ..Default::default() };
        let host = |ports: Vec<HostPortSpec>| NodeSpec {
            name: "h".into(),
            kind: NodeKind::Host(HostSpec { ports, ..Default::default() }),
        };
        let spec = NetworkSpec {
            nodes: vec![host(vec![port(None), port(Some([192, 168, 10, 21].into()))]), host(vec![port(None)])],
            ..Default::default()
        };
        let book = AddressBook::new(&spec);
        let mut p = packet(0x04, 1024, false);
        (p.src, p.dst) = (port_address(0, 1), 1);
        let b = bytes(&frame_of_packet(&p, &book, None));
        assert_eq!(&b[0..12], &[2, 0, 0, 0, 0, 1, 2, 1, 0, 0, 0, 0], "to host 1, from host 0's second port");
        assert_eq!(&b[26..34], &[192, 168, 10, 21, 10, 0, 0, 1]);
        (p.src, p.dst) = (1, port_address(0, 0));
        let b = bytes(&frame_of_packet(&p, &book, None));
        assert_eq!(&b[26..34], &[10, 0, 0, 1, 10, 0, 0, 0], "host 0's first port has the host's address");
    }

    #[test]
    fn extension_headers_and_pad_follow_the_opcode() {
        let b = bytes(&frame_of_packet(&packet(0x0A, 1001, false), &AddressBook::default(), None));
        // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + 1001 payload + 3 pad + ICRC 4.
        assert_eq!(b.len(), 14 + 20 + 8 + 12 + 16 + 1001 + 3 + 4);
        assert_eq!(b[42], 0x0A);
        let bth = &b[42..54];
        assert_eq!(bth[1] >> 4 & 3, 3, "pad count");
        assert_eq!(&b[54 + 12..54 + 16], &1001u32.to_be_bytes(), "RETH DMA length");
        let ack = bytes(&frame_of_packet(&packet(0x11, 0, false), &AddressBook::default(), None));
        assert_eq!(ack.len(), 14 + 20 + 8 + 12 + 4 + 4);
        assert_eq!(&ack[54..58], &[0x1F, 0, 0, 0], "AETH");
        let empty = frame_of_packet(&packet(0x04, 0, false), &AddressBook::default(), None);
        let b = bytes(&empty);
        assert_eq!(b.len(), 60, "an empty SEND is padded to the Ethernet minimum");
        assert_eq!(u16::from_be_bytes([b[16], b[17]]), 20 + 8 + 12 + 4, "IP length excludes Ethernet padding");
    }

    #[test]
    fn cnp_has_becn_and_16_reserved_bytes() {
        let mut p = packet(OPCODE_CNP, 0, false);
        p.psn = 0;
        let b = bytes(&frame_of_packet(&p, &AddressBook::default(), None));
        assert_eq!(b.len(), 14 + 20 + 8 + 12 + 16 + 4);
        assert_eq!(&b[42..54], &[0x81, 0, 0xFF, 0xFF, 0x40, 0, 0, 0x12, 0, 0, 0, 0]);
        assert_eq!(&b[54..70], &[0; 16]);
    }

    #[test]
    fn tcp_segment_frame_is_exact_and_as_long_as_simulated() {
        use rocelab_sim::tcp::tcp_frame_bytes;
        let mut p = packet(0x18, 1448, true);
        p.kind = PacketKind::Tcp;
        p.frame_bytes = tcp_frame_bytes(1448, true, true);
        let h = TcpHeader {
            src_port: 40_000,
            dst_port: 5201,
            seq: 0xFFFF_FF00,
            ack: 7,
            flags: 0x40 | 0x10 | 0x08,
            window: 0x8000,
            timestamps: Some((123, 456)),
            sack: [(0, 0); 4],
            sack_blocks: 0,
        };
        let b = bytes(&frame_of_tcp(&p, &AddressBook::default(), &h, Some(2)));
        assert_eq!(b.len() as u32 + wire::FCS, p.frame_bytes, "1522-byte frame: 18 + 20 + 32 + 1448 + FCS");
        let ip = &b[18..38];
        assert_eq!((ip[9], ip[1]), (6, (26 << 2) | 3), "TCP, DSCP 26 with CE");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 20 + 32 + 1448);
        assert_eq!(internet_checksum(ip), 0);
        let t = &b[38..70];
        assert_eq!(&t[0..4], &[0x9C, 0x40, 0x14, 0x51], "ports 40000 -> 5201");
        assert_eq!(&t[4..12], &[0xFF, 0xFF, 0xFF, 0x00, 0, 0, 0, 7]);
        assert_eq!((t[12], t[13], &t[14..16]), (0x80, 0x58, &[0x80, 0x00][..]), "offset 8, ECE ACK PSH, window");
        assert_eq!(&t[20..32], &[1, 1, 8, 10, 0, 0, 0, 123, 0, 0, 1, 0xC8]);
        let mut pseudo = vec![10, 0, 0, 3, 10, 0, 0, 11, 0, 6];
        pseudo.extend_from_slice(&((32 + 1448) as u16).to_be_bytes());
        pseudo.extend_from_slice(&b[38..]);
        assert_eq!(internet_checksum(&pseudo), 0, "TCP checksum");
        // A pure ACK without options is padded to the Ethernet minimum; with three SACK blocks
        // beside the timestamps it is 14 + 20 + 60 bytes.
        let ack = TcpHeader { timestamps: None, flags: 0x10, ..h };
        let mut p0 = packet(0x10, 0, false);
        p0.kind = PacketKind::Tcp;
        assert_eq!(bytes(&frame_of_tcp(&p0, &AddressBook::default(), &ack, None)).len(), 60);
        let sacks = TcpHeader { sack: [(1, 2), (3, 4), (5, 6), (0, 0)], sack_blocks: 3, ..h };
        assert_eq!(bytes(&frame_of_tcp(&p0, &AddressBook::default(), &sacks, None)).len(), 14 + 20 + 60);
    }

    #[test]
    fn pause_frame_matches_802_3x_byte_for_byte() {
        let b = bytes(&frame_of_link_pause(0xFFFF, node_mac(5, 0)));
        let mut want = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x05, 0x88, 0x08];
        want.extend_from_slice(&[0x00, 0x01, 0xFF, 0xFF]);
        want.resize(60, 0);
        assert_eq!(b, want);
    }

    #[test]
    fn pfc_frame_matches_802_1qbb_byte_for_byte() {
        let f = PfcFrame { class_enable: 0b0001_1000, quanta: [0, 0, 0, 0xFFFF, 0x1234, 0, 0, 0] };
        let b = bytes(&frame_of_pfc(&f, node_mac(12, 0)));
        let mut want = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x88, 0x08];
        want.extend_from_slice(&[0x01, 0x01, 0x00, 0x18]);
        want.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x12, 0x34, 0, 0, 0, 0, 0, 0]);
        want.resize(60, 0);
        assert_eq!(b, want);
    }
}
