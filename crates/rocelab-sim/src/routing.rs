//! Shortest-path routing with equal-cost multipath.
//!
//! For every destination host a breadth-first search over the topology gives each node its hop
//! distance; a node's next hops towards that host are its ports whose peer is one hop closer.
//! Hosts are end points only: a search never continues through a host, so traffic is never
//! routed through a server. This is L3 ECMP routing as a routing protocol with equal link costs
//! computes it, and on a tree it is exactly L2 forwarding (one path). Destinations attached to
//! the same switches share their next hops at every other switch, so the tables hold one entry
//! per (switch, destination group) and grow with the fabric, not with its square
//! ([`table`](table::Routes) says how; `build.rs` how they are worked out, in parallel). Sets of
//! next hops are interned: an entry is the set's place in one array of ports and its length.
//!
//! ECMP picks among the next hops by the packet's 5-tuple hash (which includes the RoCEv2 UDP
//! source port, chosen per QP) mixed with the switch's own seed.
//!
//! A host with several ports and no bond has an address per port, as each RoCE port (its own
//! GID and IP), iSCSI or NVMe-oF portal and SMB Multichannel interface does: traffic to one goes
//! to that port, and a switch wired to several of the host's ports does not spread it over them
//! by hash (which only a link aggregation does). Such a port is a destination of its own here
//! ([`port_address`]); the host as a whole stays one too, for the questions asked of the node
//! (which of a host's ports lead to another host).

#[cfg(test)]
mod allpairs;
mod build;
mod table;
#[cfg(test)]
mod tests;

use build::EntryLimits;
pub use table::{Hops, Routes};

/// The address of port `local` of host `node`, for a host whose ports are addressed one by one
/// (see the module's doc): the node in the low 24 bits (as [`crate::packet::node_ipv4`] takes
/// them), the port plus one above. A node's own address is its index.
pub fn port_address(node: u32, local: u32) -> u32 {
    debug_assert!(node < 1 << 24 && local < MAX_ADDRESSED_PORTS);
    node | (local + 1) << 24
}

/// The node an address (a node's, or a port's: [`port_address`]) belongs to.
pub fn address_node(address: u32) -> u32 {
    address & 0x00FF_FFFF
}

/// Ports of a host that may each have an address: the port field of [`port_address`] holds
/// 255 values. A host with more is reached as one node.
pub const MAX_ADDRESSED_PORTS: u32 = 255;

/// Adjacency as seen by the router: for each node, its (global port id, peer node) pairs.
pub struct Topology<'a> {
    /// Per node, its ports' (global port id, peer node). A node's global port ids are
    /// consecutive, its port 0 first, and only linked ports are listed.
    pub adjacency: &'a [Vec<(u32, u32)>],
    /// Whether each node is a host.
    pub is_host: &'a [bool],
    /// Per node, whether its ports have addresses of their own (a host with several ports and no
    /// bond; see the module's doc). Empty: none has.
    pub addressed_ports: &'a [bool],
    /// Global port id → the global id of the port at the other end of its link (read only for
    /// the ports of `addressed_ports`' hosts).
    pub peer_port: &'a [u32],
    /// Node → the global id of its port 0 (read only for `addressed_ports`' hosts).
    pub first_port: &'a [u32],
    /// Next hops listed in the ns-3 HPCC simulator's order ([`Ecmp::Hpcc`]) rather than by port.
    pub hpcc_order: bool,
}

impl<'a> Topology<'a> {
    /// A topology whose hosts are each reached as one node.
    pub fn nodes(adjacency: &'a [Vec<(u32, u32)>], is_host: &'a [bool]) -> Self {
        Topology { adjacency, is_host, addressed_ports: &[], peer_port: &[], first_port: &[], hpcc_order: false }
    }

    /// Whether `node`'s ports are destinations of their own.
    fn ports_addressed(&self, node: usize) -> bool {
        self.addressed_ports.get(node).copied().unwrap_or(false)
            && self.is_host[node]
            && self.adjacency[node].len() >= 2
            && self.adjacency[node].iter().all(|&(g, _)| g - self.first_port[node] < MAX_ADDRESSED_PORTS)
    }
}

const NONE: u32 = u32::MAX;

impl Routes {
    /// Compute the tables, the destination groups shared out among the machine's cores (the
    /// tables are the same for any number of threads).
    pub fn compute(topo: &Topology<'_>) -> Routes {
        // A thread for each thousand nodes at most: a small fabric's tables take less time to
        // work out than a thread takes to start.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        build::compute(topo, EntryLimits::FULL, threads.min(1 + topo.adjacency.len() / 1000))
    }

    /// [`Routes::compute`] with `threads` threads.
    pub fn compute_on(topo: &Topology<'_>, threads: usize) -> Routes {
        build::compute(topo, EntryLimits::FULL, threads)
    }

    /// Bytes [`Routes::compute`] takes at most for `topo` (its tables while they are built),
    /// and the number of destination groups; worked out from the destinations and the switches
    /// wired to them, before anything of the size of the tables is allocated.
    pub fn estimate(topo: &Topology<'_>) -> (u128, usize) {
        let plan = build::Plan::new(topo);
        (plan.bytes(topo), plan.groups())
    }
}

/// How a node chooses among equal-cost next hops, and in what order it lists them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ecmp {
    /// rocelab's own: next hops in port order, chosen by a 64-bit mix of the packet's 5-tuple
    /// hash and the switch's seed ([`ecmp_select`]).
    #[default]
    Rocelab,
    /// The ns-3 HPCC simulator's (`SwitchNode::GetOutDev` in alibaba-edu/High-Precision-
    /// Congestion-Control): MurmurHash3 of (source IP, destination IP, source port | destination
    /// port << 16) seeded with the switch's node id ([`hpcc_ecmp_hash`]), modulo the number of
    /// next hops, listed in the order of its breadth-first search from the destination
    /// (`CalculateRoute` in `scratch/third.cc`: neighbours taken by node id). A packet's
    /// `flow_hash` then holds its port word (see `Packet::flow_hash`), and addresses are that
    /// simulator's ([`hpcc_ip`] of the node index). With the same topology and flows, every
    /// packet takes the path it takes there.
    Hpcc,
}

/// The ns-3 HPCC simulator's address of node `id` (`node_id_to_ip` in its `scratch/third.cc`):
/// 11.(id / 256).(id % 256).1, computed there as 0x0b000001 + (id / 256) × 0x10000 +
/// (id % 256) × 0x100.
pub fn hpcc_ip(id: u32) -> u32 {
    0x0b00_0001u32.wrapping_add((id / 256).wrapping_mul(0x1_0000)).wrapping_add((id % 256) * 0x100)
}

/// The ns-3 HPCC simulator's ECMP hash (`SwitchNode::EcmpHash`): MurmurHash3, x86 32-bit
/// variant, of the 12 bytes `sip`, `dip`, `ports` (each little-endian, as that simulator lays
/// them out in memory), seeded with `seed` (the switch's node id).
pub fn hpcc_ecmp_hash(sip: u32, dip: u32, ports: u32, seed: u32) -> u32 {
    let mut h = seed;
    for k in [sip, dip, ports] {
        let k = k.wrapping_mul(0xcc9e_2d51).rotate_left(15).wrapping_mul(0x1b87_3593);
        h ^= k;
        h = h.rotate_left(13);
        h = h.wrapping_add(h << 2).wrapping_add(0xe654_6b64);
    }
    h ^= 12;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The port word of the ns-3 HPCC simulator's ECMP key: source port in the low half,
/// destination port in the high half.
pub fn hpcc_port_word(sport: u16, dport: u16) -> u64 {
    sport as u64 | (dport as u64) << 16
}

/// Choose among `n` equal-cost next hops for a packet whose 5-tuple hashes to `flow_hash`.
#[inline]
pub fn ecmp_select(flow_hash: u64, switch_seed: u64, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let h = crate::rng::mix64(flow_hash ^ switch_seed);
    ((h as u128 * n as u128) >> 64) as usize
}

#[cfg(test)]
mod hash_tests {
    use super::*;

    #[test]
    fn hpcc_hash_and_addresses_follow_that_simulator() {
        assert_eq!(hpcc_ip(0), 0x0b00_0001);
        assert_eq!(hpcc_ip(1), 0x0b00_0101);
        assert_eq!(hpcc_ip(255), 0x0b00_ff01);
        assert_eq!(hpcc_ip(256), 0x0b01_0001);
        assert_eq!(hpcc_port_word(10000, 100), 10000 | 100 << 16);
        // The 12 bytes 0x0b000101, 0x0b000001, 10000 | 100 << 16 with seed 17, by the
        // algorithm as its C source writes it (computed step by step in `murmur_by_steps`).
        assert_eq!(
            hpcc_ecmp_hash(0x0b00_0101, 0x0b00_0001, 10000 | 100 << 16, 17),
            murmur_by_steps(&[0x0b00_0101, 0x0b00_0001, 10000 | 100 << 16], 17)
        );
        // Seeds and keys matter.
        assert_ne!(hpcc_ecmp_hash(1, 2, 3, 4), hpcc_ecmp_hash(1, 2, 3, 5));
        assert_ne!(hpcc_ecmp_hash(1, 2, 3, 4), hpcc_ecmp_hash(2, 1, 3, 4));
    }

    /// MurmurHash3_x86_32 over whole 32-bit blocks, written out as the reference does it with
    /// 64-bit intermediate arithmetic masked to 32 bits.
    fn murmur_by_steps(blocks: &[u32], seed: u32) -> u32 {
        let m = |x: u64| x & 0xFFFF_FFFF;
        let rotl = |x: u64, r: u32| m((x << r) | (x >> (32 - r)));
        let mut h = seed as u64;
        for &b in blocks {
            let mut k = m(b as u64 * 0xcc9e2d51);
            k = rotl(k, 15);
            k = m(k * 0x1b873593);
            h ^= k;
            h = rotl(h, 13);
            h = m(h * 5 + 0xe6546b64);
        }
        h ^= 4 * blocks.len() as u64;
        h ^= h >> 16;
        h = m(h * 0x85ebca6b);
        h ^= h >> 13;
        h = m(h * 0xc2b2ae35);
        h ^= h >> 16;
        h as u32
    }

    #[test]
    fn murmur3_reference_vectors() {
        // Published MurmurHash3_x86_32 values: "" with seed 0 is 0, with seed 1 0x514E28B7;
        // the 4-byte key 0x00000000 with seed 0 is 0x2362F9DE. The 32-bit-block form agrees
        // with them (an empty key has no block and XORs its length 0).
        assert_eq!(murmur_by_steps(&[], 0), 0);
        assert_eq!(murmur_by_steps(&[], 1), 0x514E_28B7);
        assert_eq!(murmur_by_steps(&[0], 0), 0x2362_F9DE);
    }

    #[test]
    fn ecmp_spreads_and_is_stable() {
        let mut counts = [0u32; 4];
        for sport in 0..4000u64 {
            let h = crate::packet::five_tuple_hash(1, 2, 17, 49152 + sport as u16, 4791);
            counts[ecmp_select(h, 7, 4)] += 1;
        }
        assert!(counts.iter().all(|&c| (800..1200).contains(&c)), "{counts:?}");
        assert_eq!(ecmp_select(123, 7, 4), ecmp_select(123, 7, 4));
        assert_eq!(ecmp_select(123, 7, 1), 0);
    }
}
