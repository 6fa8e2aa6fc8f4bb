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

use std::collections::HashMap;

/// Routing tables of every node towards every host.
#[derive(Clone, Debug)]
pub struct Routes {
    n_hosts: usize,
    /// Node → host index (u32::MAX when the node is a switch).
    host_index: Vec<u32>,
    /// When the hosts are the nodes `first_host..first_host + n_hosts` (as in the built-in
    /// topologies), a host's index is its node less `first_host`, worked out without reading
    /// `host_index` (a cache line that an arrival would otherwise often miss); else `u32::MAX`.
    first_host: u32,
    /// `(node * n_hosts + host_index)` → the next-hop set as `offset << 8 | length` into
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
    /// Per node, its ports' (global port id, peer node).
    pub adjacency: &'a [Vec<(u32, u32)>],
    /// Whether each node is a host.
    pub is_host: &'a [bool],
}

const NONE: u32 = u32::MAX;

impl Routes {
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
        let mut table = vec![0u32; n * nh];
        let mut wide = Vec::new();
        let mut ports = Vec::new();
        let mut overflow = HashMap::new();
        // A set's entry and, for a set in `wide`, its index there.
        let mut interned: HashMap<Vec<u32>, (u32, u32)> = HashMap::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        let mut hops = Vec::new();
        for (k, &dst) in hosts.iter().enumerate() {
            dist.fill(u32::MAX);
            dist[dst] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(u) = queue.pop_front() {
                // Do not route through hosts other than the destination itself.
                if u != dst && topo.is_host[u] {
                    continue;
                }
                for &(_, v) in &topo.adjacency[u] {
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
                for &(port, v) in &topo.adjacency[u] {
                    let v = v as usize;
                    let transit_ok = v == dst || !topo.is_host[v];
                    if transit_ok && dist[v] != u32::MAX && dist[v] + 1 == dist[u] {
                        hops.push(port);
                    }
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
                let cell = u * nh + k;
                if entry == wide_in_entry << 8 | WIDE {
                    overflow.insert(cell, index);
                }
                table[cell] = entry;
            }
        }
        let first_host = match hosts.first() {
            Some(&h) if hosts.last() == Some(&(h + nh - 1)) && h + nh <= NONE as usize => h as u32,
            _ => NONE,
        };
        Routes { n_hosts: nh, host_index, first_host, table, wide, overflow, ports }
    }

    /// Equal-cost next-hop ports of `node` towards host `dst` (empty: unreachable or itself).
    #[inline(always)]
    pub fn next_hops(&self, node: u32, dst: u32) -> &[u32] {
        let k = if self.first_host != NONE {
            dst.wrapping_sub(self.first_host)
        } else {
            self.host_index.get(dst as usize).copied().unwrap_or(NONE)
        };
        if k as usize >= self.n_hosts {
            return &[];
        }
        let cell = node as usize * self.n_hosts + k as usize;
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
        let r = Routes::compute(&Topology { adjacency: &adj, is_host: &is_host });
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
        let r = Routes::compute(&Topology { adjacency: &adj, is_host: &is_host });
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
        let r = Routes::compute(&Topology { adjacency: &adj, is_host: &is_host });
        let expected: Vec<u32> = (2..2 + n_links).collect();
        assert_eq!(r.next_hops(2, 1), &expected[..]);
        assert_eq!(r.wide.len(), 2, "the 300 links, each way");
        assert_eq!(r.next_hops(3, 1), &[2 + 2 * n_links]);
        assert_eq!(r.next_hops(3, 0), &(2 + n_links..2 + 2 * n_links).collect::<Vec<_>>()[..]);
        assert_eq!(r.next_hops(2, 0), &[1]);
        // With room for one `wide` index in an entry, the second wide set overflows to the
        // cells' map, and every lookup finds the same ports.
        for limit in [0, 1] {
            let small = Routes::compute_with(&Topology { adjacency: &adj, is_host: &is_host }, limit);
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
