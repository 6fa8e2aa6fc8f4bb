//! Packets as the simulator sees them, sized as on the wire, and the packet pool.
//!
//! **What is counted.** A RoCEv2 data frame is
//! Ethernet header 14 + 802.1Q tag 4 (when tagged) + IPv4 20 + UDP 8 + InfiniBand BTH 12 +
//! payload + ICRC 4 + FCS 4 bytes, padded to the 64-byte Ethernet minimum. That is the
//! *frame* size ([`Packet::frame_bytes`]): what a switch buffers, what ECN thresholds and
//! queue depths are measured in, and what tx/rx byte counters count (as switch counters do).
//! On the wire each frame also takes preamble + SFD (8) and the minimum inter-frame gap (12):
//! [`wire::WIRE_OVERHEAD`] = 20 bytes are added to the frame for serialization time only.
//! The transport headers that later issues add (RETH, AETH, TCP) extend the header through
//! [`Packet::header_bytes`] without changing this accounting.

use crate::slots::Slots;
use crate::time::Time;

/// Sizes of the headers on the wire, in bytes.
pub mod wire {
    /// Preamble (7) and start-of-frame delimiter (1).
    pub const PREAMBLE_SFD: u32 = 8;
    /// Minimum inter-frame gap (96 bit times).
    pub const IFG: u32 = 12;
    /// Per-frame wire overhead added to the frame for serialization.
    pub const WIRE_OVERHEAD: u32 = PREAMBLE_SFD + IFG;
    /// Ethernet II header (destination, source, EtherType).
    pub const ETHERNET: u32 = 14;
    /// IEEE 802.1Q tag (carries the PCP).
    pub const VLAN_TAG: u32 = 4;
    /// IPv4 header without options.
    pub const IPV4: u32 = 20;
    /// UDP header.
    pub const UDP: u32 = 8;
    /// InfiniBand Base Transport Header.
    pub const BTH: u32 = 12;
    /// RoCEv2 invariant CRC.
    pub const ICRC: u32 = 4;
    /// Ethernet frame check sequence.
    pub const FCS: u32 = 4;
    /// Minimum Ethernet frame (with FCS).
    pub const MIN_FRAME: u32 = 64;
    /// An IEEE 802.1Qbb PFC frame is a minimum-size MAC control frame.
    pub const PFC_FRAME: u32 = 64;
    /// IANA UDP destination port of RoCEv2.
    pub const ROCEV2_UDP_PORT: u16 = 4791;
    /// IP protocol number of UDP (for the ECMP 5-tuple).
    pub const IPPROTO_UDP: u8 = 17;
}

/// RoCEv2 header bytes in front of and behind the payload (no padding).
pub fn rocev2_header_bytes(tagged: bool) -> u32 {
    wire::ETHERNET
        + if tagged { wire::VLAN_TAG } else { 0 }
        + wire::IPV4
        + wire::UDP
        + wire::BTH
        + wire::ICRC
        + wire::FCS
}

/// Frame size of a RoCEv2 packet carrying `payload` bytes, padded to the Ethernet minimum.
pub fn rocev2_frame_bytes(payload: u32, tagged: bool) -> u32 {
    (rocev2_header_bytes(tagged) + payload).max(wire::MIN_FRAME)
}

/// The two ECN bits of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ecn {
    /// Not ECN-capable transport: never marked, dropped or paused instead.
    NotEct,
    /// ECN-capable, codepoint ECT(1).
    Ect1,
    /// ECN-capable, codepoint ECT(0) (what RoCEv2 NICs send).
    Ect0,
    /// Congestion experienced.
    Ce,
}

impl Ecn {
    /// Whether a router may mark this packet instead of dropping it.
    pub fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// What a packet is; the BTH opcode ([`Packet::bth_opcode`]) says more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// RoCEv2 payload of an open-loop flow.
    Data,
    /// RC request from a requester: SEND and RDMA WRITE packets (payload), RDMA READ requests.
    Request,
    /// RDMA READ response from a responder (payload).
    ReadResponse,
    /// RC Acknowledge: an ACK or NAK, told by the AETH syndrome.
    Ack,
    /// RoCEv2 congestion notification packet.
    Cnp,
    /// A TCP segment (TCP flows, iperf, iWARP): the ports are the TCP ports, `bth_opcode`
    /// holds the TCP flags, `dest_qp` the receiving endpoint (`connection << 1 | side`); the
    /// 64-bit sequence and acknowledgement offsets and the header fields are kept beside the
    /// packet (see `crate::tcp::TcpHeader`).
    Tcp,
}

/// One frame in flight. Plain data; lives in the [`PacketPool`] and is named by a `u32` id.
/// Aligned to a cache line (it is exactly 64 bytes today), so that touching a packet costs one
/// cache miss, not two.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub struct Packet {
    /// Kind of packet.
    pub kind: PacketKind,
    /// Index of the flow that sent it (`u32::MAX` for a TCP segment of a connection that is
    /// not a flow's).
    pub flow: u32,
    /// Source address: the source node's index, or its sending port's where the host's ports
    /// are addressed one by one ([`crate::routing::port_address`]; the node is
    /// [`Packet::src_node`], the IPv4 address [`crate::addresses::AddressBook::ipv4`]).
    pub src: u32,
    /// Destination address: the destination node's index, or one of its ports' where the host's
    /// ports are addressed one by one ([`crate::routing::port_address`]; the node is
    /// [`Packet::dst_node`]).
    pub dst: u32,
    /// UDP source port: RoCEv2 NICs pick one per QP so that ECMP spreads QPs.
    pub udp_src_port: u16,
    /// UDP destination port (4791 for RoCEv2).
    pub udp_dst_port: u16,
    /// Whether the frame carries an 802.1Q tag.
    pub tagged: bool,
    /// Priority code point in the 802.1Q tag (meaningful when tagged).
    pub pcp: u8,
    /// DSCP of the IPv4 header.
    pub dscp: u8,
    /// ECN bits of the IPv4 header.
    pub ecn: Ecn,
    /// BTH opcode (e.g. 0x04 RC SEND-only); carried for captures and the transport issue.
    pub bth_opcode: u8,
    /// BTH destination QP.
    pub dest_qp: u32,
    /// BTH packet sequence number (24 bits used).
    pub psn: u32,
    /// Application payload bytes.
    pub payload_bytes: u32,
    /// Header bytes, so `frame_bytes = max(64, header_bytes + payload_bytes)`.
    pub header_bytes: u32,
    /// Ethernet frame bytes including FCS, without preamble and IFG.
    pub frame_bytes: u32,
    /// Time the sender started to transmit it.
    pub sent_at: Time,
    /// Hash of the 5-tuple, computed once at the sender; switches mix it with their seed.
    pub flow_hash: u64,
    /// Priority the current hop assigned (PCP or DSCP per trust mode); the sender's own
    /// priority on the first hop.
    pub priority: u8,
    /// The extension header the opcode carries, packed: the RETH DMA length (first RDMA WRITE
    /// packet, READ request) or the AETH, syndrome in the high byte and MSN in the low 24 bits
    /// (ACK/NAK, first/last/only READ response); 0 otherwise. See [`Packet::reth_dma_length`]
    /// and [`Packet::aeth`].
    pub ext: u32,
}

impl Packet {
    /// The source node.
    pub fn src_node(&self) -> u32 {
        crate::routing::address_node(self.src)
    }

    /// The destination node.
    pub fn dst_node(&self) -> u32 {
        crate::routing::address_node(self.dst)
    }

    /// RETH DMA length, if the opcode carries a RETH.
    pub fn reth_dma_length(&self) -> Option<u32> {
        (self.is_rdma_transport() && crate::rdma::wire::has_reth(self.bth_opcode)).then_some(self.ext)
    }

    /// Whether the packet belongs to an RDMA RC queue pair (its BTH opcode means one).
    fn is_rdma_transport(&self) -> bool {
        matches!(self.kind, PacketKind::Request | PacketKind::ReadResponse | PacketKind::Ack | PacketKind::Cnp)
    }

    /// AETH (syndrome, MSN), if the opcode carries an AETH.
    pub fn aeth(&self) -> Option<(u8, u32)> {
        (self.is_rdma_transport() && crate::rdma::wire::has_aeth(self.bth_opcode))
            .then(|| crate::rdma::wire::unpack_aeth(self.ext))
    }

    /// Whether the frame carries no payload of its flow: ACK, NAK, CNP and READ request, and a
    /// TCP segment without data (a pure ACK).
    #[inline]
    pub fn is_control(&self) -> bool {
        match self.kind {
            PacketKind::Ack | PacketKind::Cnp => true,
            PacketKind::Request => self.bth_opcode == crate::rdma::wire::READ_REQUEST,
            PacketKind::Tcp => self.payload_bytes == 0,
            PacketKind::Data | PacketKind::ReadResponse => false,
        }
    }
}

/// IPv4 address of a node: 10.0.0.0/8 plus the node index, so captures are readable. A host's
/// first port has it unless the fabric gives the port one ([`crate::addresses`]).
pub fn node_ipv4(node: u32) -> u32 {
    0x0A00_0000 | (node & 0x00FF_FFFF)
}

/// Hash of the ECMP 5-tuple (source IP, destination IP, protocol, source and destination port).
pub fn five_tuple_hash(src_ip: u32, dst_ip: u32, proto: u8, sport: u16, dport: u16) -> u64 {
    let a = ((src_ip as u64) << 32) | dst_ip as u64;
    let b = ((proto as u64) << 32) | ((sport as u64) << 16) | dport as u64;
    crate::rng::mix64(crate::rng::mix64(a) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Hint the CPU to fetch the cache line holding `r` (no effect on results).
#[inline]
pub(crate) fn prefetch<T>(r: &T) {
    prefetch_ptr((r as *const T).cast::<u8>());
}

/// Hint the CPU to fetch the cache line at byte `offset` of `items[i]` (no effect on results),
/// without the index check of `&items[i]`: a prefetch never faults, so an index past the end
/// only wastes the hint. The engine's looks ahead name ports and packets by index several
/// events before it handles them.
#[inline(always)]
pub(crate) fn prefetch_at<T>(items: &[T], i: usize, offset: usize) {
    let p = items.as_ptr().cast::<u8>();
    prefetch_ptr(p.wrapping_add(i.wrapping_mul(std::mem::size_of::<T>())).wrapping_add(offset));
}

#[inline(always)]
fn prefetch_ptr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache and never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Pool of packets: slots that grow without being copied, on huge pages where the kernel offers
/// them (the crate's `slots` module), and a free list, so the steady state allocates nothing
/// and memory is proportional to the packets in flight, not to simulated time. Which slots are
/// live is not kept beside them (a flag per slot was one more cache line touched by every
/// `alloc` and `free`); [`PacketPool::iter_live`], called once per run, works it out from the
/// free list.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Slots<Packet>,
    free: Vec<u32>,
    in_use: usize,
    /// Debug builds check for double frees.
    #[cfg(debug_assertions)]
    live: Vec<bool>,
}

impl PacketPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Store `p` and return its id.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.in_use += 1;
        let id = if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        };
        #[cfg(debug_assertions)]
        {
            self.live.resize(self.slots.len(), false);
            self.live[id as usize] = true;
        }
        id
    }

    /// Return `id` to the pool.
    #[inline]
    pub fn free(&mut self, id: u32) {
        #[cfg(debug_assertions)]
        {
            assert!(self.live[id as usize], "double free of packet {id}");
            self.live[id as usize] = false;
        }
        self.in_use -= 1;
        self.free.push(id);
    }

    /// The packet `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }

    /// The packet `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Hint the CPU to fetch packet `id` into cache (no effect on results). The engine calls it
    /// for the packets of the next events while it handles the current one, hiding most of the
    /// memory latency of large pools.
    #[inline]
    pub fn prefetch(&self, id: u32) {
        prefetch_at(&self.slots, id as usize, 0);
    }

    /// Packets currently allocated.
    pub fn in_use(&self) -> usize {
        self.in_use
    }

    /// High-water mark of the pool (slots ever allocated).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }

    /// Iterate over the packets currently allocated (for the conservation check): the slots
    /// not on the free list.
    pub fn iter_live(&self) -> impl Iterator<Item = &Packet> {
        let mut free = vec![false; self.slots.len()];
        for &id in &self.free {
            free[id as usize] = true;
        }
        self.slots.iter().zip(free).filter(|(_, f)| !*f).map(|(p, _)| p)
    }
}

#[cfg(test)]
pub(crate) fn test_packet(frame_bytes: u32) -> Packet {
    Packet {
        kind: PacketKind::Data,
        flow: 0,
        src: 0,
        dst: 1,
        udp_src_port: 49152,
        udp_dst_port: wire::ROCEV2_UDP_PORT,
        tagged: true,
        pcp: 3,
        dscp: 26,
        ecn: Ecn::Ect0,
        bth_opcode: 0x04,
        dest_qp: 1,
        psn: 0,
        payload_bytes: frame_bytes.saturating_sub(rocev2_header_bytes(true)),
        header_bytes: rocev2_header_bytes(true),
        frame_bytes,
        sent_at: 0,
        flow_hash: 0,
        priority: 3,
        ext: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocev2_sizes() {
        // Ethernet 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4.
        assert_eq!(rocev2_header_bytes(true), 66);
        assert_eq!(rocev2_header_bytes(false), 62);
        assert_eq!(rocev2_frame_bytes(1024, true), 1090);
        assert_eq!(rocev2_frame_bytes(0, false), 64);
    }

    #[test]
    fn pool_reuses_slots() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(test_packet(100));
        let b = pool.alloc(test_packet(200));
        assert_eq!(pool.in_use(), 2);
        pool.free(a);
        let c = pool.alloc(test_packet(300));
        assert_eq!(c, a, "freed slot is reused");
        assert_eq!(pool.capacity_used(), 2);
        assert_eq!(pool.get(b).frame_bytes, 200);
        assert_eq!(pool.iter_live().map(|p| p.frame_bytes).sum::<u32>(), 500);
        pool.free(b);
        assert_eq!(pool.iter_live().map(|p| p.frame_bytes).sum::<u32>(), 300, "freed slots are not live");
        assert_eq!(pool.in_use(), 1);
    }

    #[test]
    fn packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Packet>(), 64);
    }

    #[test]
    fn five_tuple_hash_depends_on_source_port() {
        let h1 = five_tuple_hash(1, 2, 17, 49152, 4791);
        let h2 = five_tuple_hash(1, 2, 17, 49153, 4791);
        assert_ne!(h1, h2);
        assert_eq!(h1, five_tuple_hash(1, 2, 17, 49152, 4791));
    }
}
