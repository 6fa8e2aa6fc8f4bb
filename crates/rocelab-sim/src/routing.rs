//! Shortest-path routing with equal-cost multipath.
//!
//! For every destination host a breadth-first search over the topology gives each node its hop
//! distance; a node's next hops towards that host are its ports whose peer is one hop closer.
//! Hosts are end points only: a search never continues through a host, so traffic is never
//! routed through a server. This is L3 ECMP routing as a routing protocol with equal link costs
//! computes it, and on a tree it is exactly L2 forwarding (one path). Sets of next hops are
//! interned, so a table costs 4 bytes per (node, destination host): the set's place in one
//! array of ports and its length, so that a lookup is one load from the table, then the ports.
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

use std::collections::HashMap;

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

/// Routing tables of every node towards every destination: each host, and each port of a host
/// whose ports are addressed one by one.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Destinations: the hosts, then the addressed ports.
    n_dests: usize,
    /// Node → host index (u32::MAX when the node is a switch).
    host_index: Vec<u32>,
    /// Node → the destination index of its port 0 and its number of ports, for a host whose
    /// ports are addressed ((u32::MAX, 0) otherwise; empty when no host's are).
    port_dest: Vec<(u32, u32)>,
    /// Node → the global id of its port 0 (empty when no host's ports are addressed).
    first_port: Vec<u32>,
    /// When the hosts are the nodes `first_host..first_host + n_hosts` and no port has an
    /// address of its own (as in the built-in topologies), a host's index is its node less
    /// `first_host`, worked out without reading `host_index` (a cache line that an arrival would
    /// otherwise often miss); else `u32::MAX`.
    first_host: u32,
    /// `(node * n_dests + destination index)` → the next-hop set as `offset << 8 | length` into
    /// `ports` (0, an empty set: unreachable or self). A set at an offset past 2^24 - 1 or of
    /// [`WIDE`] ports or more is `index << 8 | WIDE` into `wide` instead.
    table: Vec<u32>,
    /// The sets that do not fit an entry: (offset, length) into `ports`.
    wide: Vec<(u32, u32)>,
    /// Past the `wide` indices an entry holds (2^24 - 1 of them, a fabric of tens of millions of
    /// links), the cells whose entry is [`WIDE_OVERFLOW`], each with its index into `wide`.
    overflow: HashMap<usize, u32>,
    /// The interned next-hop sets' global port ids, one after the other.
    ports: Vec<u32>,
}

/// The length field of a table entry that names a set in `Routes::wide`.
const WIDE: u32 = 0xFF;
/// Offsets (and `wide` indices) a table entry holds: 24 bits.
const ENTRY_OFFSETS: usize = 1 << 24;
/// The `wide` index of an entry whose set is found through `Routes::overflow`.
const WIDE_OVERFLOW: u32 = (ENTRY_OFFSETS - 1) as u32;

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

/// Most bytes the routing table ([`Routes::table_bytes`]) may take: 4 GiB. The table has one
/// 4-byte entry per (node, destination), so it grows as the square of the fabric: a k = 48 fat
/// tree's is 3.4 GB and fits, a k = 64 one's is 18.5 GB and is refused before it is allocated
/// rather than aborting the process. With the rest of a large run (queues, flows, samples) this
/// keeps a run within a 16 GB machine. A fixed limit, not a share of this machine's memory, so
/// that a scenario runs or is refused the same everywhere.
pub const MAX_ROUTE_TABLE_BYTES: u64 = 4 << 30;

impl Routes {
    /// Bytes of the all-pairs table [`Routes::compute`] would allocate for `topo`: one `u32`
    /// per node and destination (each host, and each port of a host whose ports are addressed).
    pub fn table_bytes(topo: &Topology<'_>) -> u128 {
        let n = topo.adjacency.len();
        let dests: u128 = (0..n)
            .filter(|&i| topo.is_host[i])
            .map(|h| {
                let ports = if topo.ports_addressed(h) {
                    let last = topo.adjacency[h].iter().map(|&(g, _)| g).max().unwrap_or(topo.first_port[h]);
                    (last + 1 - topo.first_port[h]) as u128
                } else {
                    0
                };
                1 + ports
            })
            .sum();
        n as u128 * dests * 4
    }

    /// Refuses a fabric whose table would pass `limit` bytes, before allocating it: an
    /// allocation that large aborts the process instead of failing.
    pub fn check_size(topo: &Topology<'_>, limit: u64) -> Result<(), crate::SimError> {
        let hosts = topo.is_host.iter().filter(|&&h| h).count();
        Self::refuse_table(topo.adjacency.len(), hosts, Self::table_bytes(topo), limit)
    }

    /// The refusal of a table of `bytes` over `limit` for `nodes` nodes and `hosts` hosts (the
    /// least it can take is `nodes × hosts × 4` bytes, known before the routes are worked out).
    pub fn refuse_table(nodes: usize, hosts: usize, bytes: u128, limit: u64) -> Result<(), crate::SimError> {
        if bytes <= limit as u128 {
            return Ok(());
        }
        Err(crate::SimError::MemoryTooLarge {
            what: format!("the routing table ({nodes} nodes × {hosts} hosts or more, 4 bytes each)"),
            estimated_bytes: bytes.min(u64::MAX as u128) as u64,
            limit_bytes: limit,
            hint: "simulate a smaller fabric (fewer hosts or switches: a fat tree of k = 48 or less), or a part \
                   of it with the hosts of interest"
                .into(),
        })
    }

    /// Compute the tables.
    pub fn compute(topo: &Topology<'_>) -> Routes {
        Self::compute_with(topo, WIDE_OVERFLOW)
    }

    /// [`Routes::compute`], with the `wide` indices an entry may hold (tests make it small).
    fn compute_with(topo: &Topology<'_>, wide_in_entry: u32) -> Routes {
        let n = topo.adjacency.len();
        let hosts: Vec<usize> = (0..n).filter(|&i| topo.is_host[i]).collect();
        let mut host_index = vec![NONE; n];
        for (k, &h) in hosts.iter().enumerate() {
            host_index[h] = k as u32;
        }
        let nh = hosts.len();
        // The destinations: each host as a whole, then each port of the hosts whose ports are
        // addressed, as (node, the port's global id or NONE for the whole host).
        let mut dests: Vec<(usize, u32)> = hosts.iter().map(|&h| (h, NONE)).collect();
        let mut port_dest = Vec::new();
        let mut first_port = Vec::new();
        for &h in &hosts {
            if topo.ports_addressed(h) {
                if port_dest.is_empty() {
                    port_dest = vec![(NONE, 0); n];
                    first_port = vec![NONE; n];
                }
                first_port[h] = topo.first_port[h];
                let last = topo.adjacency[h].iter().map(|&(g, _)| g).max().expect("two ports or more");
                port_dest[h] = (dests.len() as u32, last + 1 - first_port[h]);
                dests.extend((first_port[h]..=last).map(|g| (h, g)));
            }
        }
        let nd = dests.len();
        let mut table = vec![0u32; n * nd];
        let mut wide = Vec::new();
        let mut ports = Vec::new();
        let mut overflow = HashMap::new();
        // A set's entry and, for a set in `wide`, its index there.
        let mut interned: HashMap<Vec<u32>, (u32, u32)> = HashMap::new();
        let mut dist = vec![u32::MAX; n];
        // The ns-3 HPCC simulator's breadth-first search takes a node's neighbours in the order of
        // its `map<Ptr<Node>, Interface>`, by address: its hosts, small objects from the heap,
        // in the order they were made (by id); then its switches, whose `SwitchNode` (over 4 MB
        // of byte counters each) glibc maps with mmap, at falling addresses (by id, the last
        // first). It lists a node's next hops in the order the search reached them (`rank`).
        let by_id: Vec<Vec<(u32, u32)>> = if topo.hpcc_order {
            topo.adjacency
                .iter()
                .map(|a| {
                    let mut a = a.clone();
                    a.sort_by_key(|&(port, v)| {
                        let host = topo.is_host[v as usize];
                        (!host, if host { v as i64 } else { -(v as i64) }, port)
                    });
                    a
                })
                .collect()
        } else {
            Vec::new()
        };
        let adjacency = if topo.hpcc_order { &by_id[..] } else { topo.adjacency };
        let mut rank = vec![u32::MAX; if topo.hpcc_order { n } else { 0 }];
        let mut queue = std::collections::VecDeque::new();
        let mut hops = Vec::new();
        let mut ranked: Vec<(u32, u32)> = Vec::new();
        for (k, &(dst, dst_port)) in dests.iter().enumerate() {
            dist.fill(u32::MAX);
            dist[dst] = 0;
            queue.clear();
            if dst_port == NONE {
                queue.push_back(dst);
            } else if let Some(&(_, v)) = topo.adjacency[dst].iter().find(|&&(g, _)| g == dst_port) {
                // A port's address is reached over its own link only.
                dist[v as usize] = 1;
                queue.push_back(v as usize);
            }
            let mut popped = 0;
            while let Some(u) = queue.pop_front() {
                // Do not route through hosts other than the destination itself.
                if u != dst && topo.is_host[u] {
                    continue;
                }
                if topo.hpcc_order {
                    rank[u] = popped;
                    popped += 1;
                }
                for &(_, v) in &adjacency[u] {
                    let v = v as usize;
                    if dist[v] == u32::MAX {
                        dist[v] = dist[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
            for u in 0..n {
                if u == dst || dist[u] == u32::MAX {
                    continue;
                }
                hops.clear();
                ranked.clear();
                for &(port, v) in &topo.adjacency[u] {
                    let v = v as usize;
                    let transit_ok = if v == dst {
                        dst_port == NONE || topo.peer_port[port as usize] == dst_port
                    } else {
                        !topo.is_host[v]
                    };
                    if transit_ok && dist[v] != u32::MAX && dist[v] + 1 == dist[u] {
                        hops.push(port);
                        if topo.hpcc_order {
                            ranked.push((rank[v], port));
                        }
                    }
                }
                if topo.hpcc_order {
                    ranked.sort_unstable();
                    hops.clear();
                    hops.extend(ranked.iter().map(|&(_, port)| port));
                }
                if hops.is_empty() {
                    continue;
                }
                let (entry, index) = match interned.get(&hops) {
                    Some(&e) => e,
                    None => {
                        let (offset, len) = (ports.len(), hops.len());
                        ports.extend_from_slice(&hops);
                        let e = if offset < ENTRY_OFFSETS && len < WIDE as usize {
                            ((offset as u32) << 8 | len as u32, 0)
                        } else {
                            let index = wide.len() as u32;
                            wide.push((offset as u32, len as u32));
                            (index.min(wide_in_entry) << 8 | WIDE, index)
                        };
                        interned.insert(hops.clone(), e);
                        e
                    }
                };
                let cell = u * nd + k;
                if entry == wide_in_entry << 8 | WIDE {
                    overflow.insert(cell, index);
                }
                table[cell] = entry;
            }
        }
        let first_host = match hosts.first() {
            Some(&h) if port_dest.is_empty() && hosts.last() == Some(&(h + nh - 1)) && h + nh <= NONE as usize => {
                h as u32
            }
            _ => NONE,
        };
        Routes { n_dests: nd, host_index, port_dest, first_port, first_host, table, wide, overflow, ports }
    }

    /// The address a sender puts on traffic for host port `port` (a global port id) of `node`:
    /// the port's own ([`port_address`]) when the host's ports are addressed one by one, else
    /// the node's.
    pub fn address_of(&self, node: u32, port: u32) -> u32 {
        match self.port_dest.get(node as usize) {
            Some(&(d, _)) if d != NONE => port_address(node, port - self.first_port[node as usize]),
            _ => node,
        }
    }

    /// The destination index of address `dst` (`NONE` when it is no destination).
    #[inline]
    fn dest_index(&self, dst: u32) -> u32 {
        let (node, port) = (address_node(dst) as usize, dst >> 24);
        if port == 0 {
            return self.host_index.get(node).copied().unwrap_or(NONE);
        }
        match self.port_dest.get(node) {
            Some(&(d, ports)) if port <= ports => d + port - 1,
            _ => NONE,
        }
    }

    /// Equal-cost next-hop ports of `node` towards address `dst`, a host or one of its ports
    /// (empty: unreachable or itself).
    #[inline(always)]
    pub fn next_hops(&self, node: u32, dst: u32) -> &[u32] {
        let k = if self.first_host != NONE { dst.wrapping_sub(self.first_host) } else { self.dest_index(dst) };
        if k as usize >= self.n_dests {
            return &[];
        }
        let cell = node as usize * self.n_dests + k as usize;
        let entry = self.table[cell];
        let (offset, len) = (entry >> 8, entry & WIDE);
        if len == WIDE {
            return self.wide_hops(offset, cell);
        }
        &self.ports[offset as usize..(offset + len) as usize]
    }

    /// The next-hop set `wide[index]` (a set too long, or too far into `ports`, for an entry)
    /// of table cell `cell`.
    #[cold]
    #[inline(never)]
    fn wide_hops(&self, index: u32, cell: usize) -> &[u32] {
        // Only cells whose entry is the overflow index are in `overflow` (none below 2^24 - 1
        // wide sets, so this is a look into an empty map).
        let index = self.overflow.get(&cell).copied().unwrap_or(index);
        let (offset, len) = self.wide[index as usize];
        &self.ports[offset as usize..(offset + len) as usize]
    }

    /// Hop count of the path from `src` to host `dst`, following the first next hop
    /// (`None` when unreachable). `peer_node` maps a global port to the node at its other end.
    pub fn hop_count(&self, src: u32, dst: u32, peer_node: impl Fn(u32) -> u32) -> Option<u32> {
        let mut u = src;
        let mut hops = 0;
        while u != dst {
            let nh = self.next_hops(u, dst);
            let &p = nh.first()?;
            u = peer_node(p);
            hops += 1;
        }
        Some(hops)
    }
}

impl Routes {
    /// The global ports of the path from `src` to host `dst` that takes the first next hop at
    /// every node (`None` when unreachable). On fabrics whose equal-cost paths have the same
    /// rates and delays (trees, leaf-spine, fat trees) it stands for every path a flow may
    /// take. Read-only: for analyses such as a flow's standalone completion time.
    pub fn first_path(&self, src: u32, dst: u32, peer_node: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
        let mut u = src;
        let mut ports = Vec::new();
        while u != dst {
            let &p = self.next_hops(u, dst).first()?;
            ports.push(p);
            u = peer_node(p);
        }
        Some(ports)
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
mod tests {
    use super::*;

    #[test]
    fn a_table_over_the_limit_is_refused_with_its_size_before_it_is_built() {
        // 40 000 hosts with no links: the table would be 40 000 × 40 000 × 4 bytes (6.4 GB);
        // only the adjacency (a few MB) is allocated.
        let adjacency = vec![Vec::new(); 40_000];
        let is_host = vec![true; 40_000];
        let topo = Topology::nodes(&adjacency, &is_host);
        assert_eq!(Routes::table_bytes(&topo), 6_400_000_000);
        let e = Routes::check_size(&topo, MAX_ROUTE_TABLE_BYTES).unwrap_err();
        assert_eq!(
            e.to_string(),
            "too large to simulate: the routing table (40000 nodes × 40000 hosts or more, 4 bytes each) would take \
             6400000000 bytes (6.0 GiB), more than the limit of 4294967296 bytes (4.0 GiB); simulate a smaller \
             fabric (fewer hosts or switches: a fat tree of k = 48 or less), or a part of it with the hosts of \
             interest"
        );
        // The diamond's table (6 nodes × 2 hosts × 4 bytes) is well within.
        let (adj, is_host) = diamond();
        let topo = Topology::nodes(&adj, &is_host);
        assert_eq!(Routes::table_bytes(&topo), 48);
        assert!(Routes::check_size(&topo, MAX_ROUTE_TABLE_BYTES).is_ok());
    }

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
    fn hpcc_order_lists_next_hops_as_the_search_reached_them() {
        // The diamond: s2 and s5 list s3 first by port. The ns-3 order takes a node's
        // switches by falling id: from h1 the search reaches s5, then s4 before s3, so s2 lists
        // s4 (port 3) first; from h0, s2, then s4 before s3, so s5 lists s4 (port 9) first.
        let (adj, is_host) = diamond();
        let by_port = Routes::compute(&Topology::nodes(&adj, &is_host));
        assert_eq!(by_port.next_hops(2, 1), &[2, 3]);
        assert_eq!(by_port.next_hops(5, 0), &[8, 9]);
        let hpcc = Routes::compute(&Topology { hpcc_order: true, ..Topology::nodes(&adj, &is_host) });
        assert_eq!(hpcc.next_hops(2, 1), &[3, 2], "s4 (port 3) before s3 (port 2)");
        assert_eq!(hpcc.next_hops(5, 0), &[9, 8], "s4 (port 9) before s3 (port 8)");
        assert_eq!(hpcc.next_hops(3, 1), &[5], "one path: the same");
    }

    /// h0 - s2 = {s3, s4} = s5 - h1 : a diamond with two equal paths.
    fn diamond() -> (Vec<Vec<(u32, u32)>>, Vec<bool>) {
        // Global ports: h0:0 ; s2:1(h0),2(s3),3(s4) ; s3:4(s2),5(s5) ; s4:6(s2),7(s5) ;
        // s5:8(s3),9(s4),10(h1) ; h1:11
        let adj = vec![
            vec![(0, 2)],
            vec![(11, 5)],
            vec![(1, 0), (2, 3), (3, 4)],
            vec![(4, 2), (5, 5)],
            vec![(6, 2), (7, 5)],
            vec![(8, 3), (9, 4), (10, 1)],
        ];
        let is_host = vec![true, true, false, false, false, false];
        (adj, is_host)
    }

    #[test]
    fn equal_cost_next_hops() {
        let (adj, is_host) = diamond();
        let r = Routes::compute(&Topology::nodes(&adj, &is_host));
        assert_eq!(r.first_host, 0, "hosts 0 and 1: index worked out");
        assert_eq!(r.next_hops(2, 1), &[2, 3]);
        assert_eq!(r.next_hops(3, 1), &[5]);
        assert_eq!(r.next_hops(5, 0), &[8, 9]);
        assert_eq!(r.next_hops(0, 1), &[0]);
        assert_eq!(r.next_hops(1, 1), &[] as &[u32]);
        assert_eq!(r.next_hops(2, 3), &[] as &[u32], "switches are not destinations");
        let peer =
            |p: u32| -> u32 { adj.iter().flat_map(|ps| ps.iter()).find(|(q, _)| *q == p).map(|&(_, v)| v).unwrap() };
        assert_eq!(r.hop_count(0, 1, peer), Some(4));
        assert_eq!(r.first_path(0, 1, peer), Some(vec![0, 2, 5, 10]));
        assert_eq!(r.first_path(0, 2, peer), None, "switches are not destinations");
    }

    #[test]
    fn never_routes_through_a_host() {
        // s0 - h1 - s2 - h3 ; s0 - h4 : h4 cannot reach h3 through h1.
        let adj = vec![vec![(0, 1), (5, 4)], vec![(1, 0), (2, 2)], vec![(3, 1), (4, 3)], vec![(6, 2)], vec![(7, 0)]];
        let is_host = vec![false, true, false, true, true];
        let r = Routes::compute(&Topology::nodes(&adj, &is_host));
        assert_eq!(r.first_host, NONE, "hosts 1, 3, 4 are not contiguous: looked up in host_index");
        assert!(r.next_hops(4, 3).is_empty());
        assert!(r.next_hops(0, 3).is_empty());
        assert!(r.next_hops(4, 0).is_empty(), "switches are not destinations");
        assert_eq!(r.next_hops(2, 3), &[4]);
    }

    #[test]
    fn a_set_too_long_for_an_entry_is_kept_apart() {
        // h0 - s2 = 300 parallel links = s3 - h1: s2 has 300 equal next hops towards h1.
        let n_links = 300u32;
        let mut s2 = vec![(1, 0)];
        let mut s3 = vec![];
        for i in 0..n_links {
            s2.push((2 + i, 3));
            s3.push((2 + n_links + i, 2));
        }
        s3.push((2 + 2 * n_links, 1));
        let adj = vec![vec![(0, 2)], vec![(3 + 2 * n_links, 3)], s2, s3];
        let is_host = vec![true, true, false, false];
        let r = Routes::compute(&Topology::nodes(&adj, &is_host));
        let expected: Vec<u32> = (2..2 + n_links).collect();
        assert_eq!(r.next_hops(2, 1), &expected[..]);
        assert_eq!(r.wide.len(), 2, "the 300 links, each way");
        assert_eq!(r.next_hops(3, 1), &[2 + 2 * n_links]);
        assert_eq!(r.next_hops(3, 0), &(2 + n_links..2 + 2 * n_links).collect::<Vec<_>>()[..]);
        assert_eq!(r.next_hops(2, 0), &[1]);
        // With room for one `wide` index in an entry, the second wide set overflows to the
        // cells' map, and every lookup finds the same ports.
        for limit in [0, 1] {
            let small = Routes::compute_with(&Topology::nodes(&adj, &is_host), limit);
            assert_eq!(small.overflow.len(), if limit == 0 { 2 } else { 1 });
            for node in 0..4 {
                for dst in [0, 1] {
                    assert_eq!(
                        small.next_hops(node, dst),
                        r.next_hops(node, dst),
                        "node {node} to {dst}, limit {limit}"
                    );
                }
            }
        }
        assert_eq!(
            r.hop_count(0, 1, |p| if p == 0 {
                2
            } else if p < 2 + n_links {
                3
            } else {
                1
            }),
            Some(3)
        );
    }

    /// A topology's tables, for building a [`Topology`] with port addresses.
    struct Wiring {
        adj: Vec<Vec<(u32, u32)>>,
        is_host: Vec<bool>,
        peer_port: Vec<u32>,
        first_port: Vec<u32>,
    }

    impl Wiring {
        fn topology<'a>(&'a self, addressed: &'a [bool]) -> Topology<'a> {
            Topology {
                adjacency: &self.adj,
                is_host: &self.is_host,
                addressed_ports: addressed,
                peer_port: &self.peer_port,
                first_port: &self.first_port,
                hpcc_order: false,
            }
        }
    }

    /// h0 - s2 ; s2 = h1 (two links, h1's ports 0 and 1) ; s2 - s3 - h1 (h1's port 2).
    /// Global ports: h0:0 ; h1:1,2,3 ; s2:4(h0),5(h1:0),6(h1:1),7(s3) ; s3:8(s2),9(h1:2).
    fn two_links_and_a_third_via_another_switch() -> Wiring {
        Wiring {
            adj: vec![
                vec![(0, 2)],
                vec![(1, 2), (2, 2), (3, 3)],
                vec![(4, 0), (5, 1), (6, 1), (7, 3)],
                vec![(8, 2), (9, 1)],
            ],
            is_host: vec![true, true, false, false],
            peer_port: vec![4, 5, 6, 9, 0, 1, 2, 8, 7, 3],
            first_port: vec![0, 1, 4, 8],
        }
    }

    #[test]
    fn each_port_of_an_unbonded_host_is_reached_over_its_own_link() {
        let w = two_links_and_a_third_via_another_switch();
        let r = Routes::compute(&w.topology(&[true; 4]));
        assert_eq!(r.first_host, NONE, "port addresses are looked up");
        let (p0, p1, p2) = (port_address(1, 0), port_address(1, 1), port_address(1, 2));
        assert_eq!((r.address_of(1, 1), r.address_of(1, 3), r.address_of(0, 0)), (p0, p2, 0));
        assert_eq!(address_node(p2), 1);
        // The switch wired to two of h1's ports sends each port's traffic over that port's
        // link, not by hash over both.
        assert_eq!(r.next_hops(2, p0), &[5]);
        assert_eq!(r.next_hops(2, p1), &[6]);
        // Port 2 hangs off s3: s2 sends its traffic there, though s2 is wired to h1 itself.
        assert_eq!(r.next_hops(2, p2), &[7]);
        assert_eq!(r.next_hops(3, p2), &[9]);
        assert_eq!(r.next_hops(0, p2), &[0]);
        // The host as a whole: every port on a shortest path, as before.
        assert_eq!(r.next_hops(2, 1), &[5, 6]);
        assert_eq!(r.next_hops(3, 1), &[9]);
        // Not destinations: a port address of a host whose ports are not addressed, a port
        // beyond the host's, h1's own ports from h1.
        assert!(r.next_hops(2, port_address(0, 0)).is_empty());
        assert!(r.next_hops(2, port_address(1, 7)).is_empty());
        assert!(r.next_hops(1, p0).is_empty());
        // Bonded (not addressed): one destination, spread over both links.
        let bonded = Routes::compute(&w.topology(&[false; 4]));
        assert_eq!(bonded.address_of(1, 1), 1);
        assert_eq!(bonded.next_hops(2, 1), &[5, 6]);
        assert!(bonded.next_hops(2, p0).is_empty());
    }

    #[test]
    fn a_port_beyond_a_hosts_own_is_no_destination() {
        // h0 and h1, two ports each, all on s2; h1's port addresses follow h0's in the table.
        let w = Wiring {
            adj: vec![vec![(0, 2), (1, 2)], vec![(2, 2), (3, 2)], vec![(4, 0), (5, 0), (6, 1), (7, 1)]],
            is_host: vec![true, true, false],
            peer_port: vec![4, 5, 6, 7, 0, 1, 2, 3],
            first_port: vec![0, 2, 4],
        };
        let r = Routes::compute(&w.topology(&[true; 3]));
        assert_eq!(r.next_hops(2, port_address(0, 1)), &[5]);
        assert_eq!(r.next_hops(2, port_address(1, 0)), &[6]);
        assert!(r.next_hops(2, port_address(0, 2)).is_empty(), "not h1's port 0");
    }

    #[test]
    fn a_host_with_more_ports_than_addresses_hold_is_reached_as_one_node() {
        // h0 - s1 = h2 over 256 links: the port field holds 255.
        let n = MAX_ADDRESSED_PORTS + 1;
        let mut s1 = vec![(1, 0)];
        let mut h2 = Vec::new();
        let mut peer_port = vec![1, 0];
        for i in 0..n {
            s1.push((2 + i, 2));
            h2.push((2 + n + i, 1));
        }
        for i in 0..n {
            peer_port.push(2 + n + i);
        }
        for i in 0..n {
            peer_port.push(2 + i);
        }
        let w = Wiring {
            adj: vec![vec![(0, 1)], s1, h2],
            is_host: vec![true, false, true],
            peer_port,
            first_port: vec![0, 1, 2 + n],
        };
        let r = Routes::compute(&w.topology(&[true; 3]));
        assert_eq!(r.address_of(2, 2 + n), 2);
        assert_eq!(r.next_hops(1, 2).len(), n as usize);
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
