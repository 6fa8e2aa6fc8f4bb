//! Building the grouped tables: the destinations and their groups (known before any table is
//! allocated, so that the tables' size can be refused first), then one breadth-first search
//! over the switches per group, the groups shared out among threads.
//!
//! A destination's next hops at a switch follow from the hop distances of a search that starts
//! at the destination and never goes through another host: the destination at 0, the nodes
//! wired to it at 1, and every other switch one more than its nearest switch neighbour. Past
//! the nodes wired to it, that is a search from the set of switches wired to it, so
//! destinations with the same set (every host under one ToR, and each addressed port of a host
//! with the ToR of its link) share every switch's next hops but those of the set's own
//! switches, whose next hops are their links to the destination (kept per destination).
//!
//! The result does not depend on the number of threads: each group's column is worked out
//! alone, and the sets are interned afterwards in the order of the groups and rows.

use super::table::{Routes, Row, ENTRY_OFFSETS, LAST_HOP, ONE_PORT, WIDE};
use super::{Topology, NONE};
use std::collections::HashMap;

/// The interning maps of the build: keyed by a next-hop set or a group's switches, looked up
/// once per (group, switch) cell (655,360 on the k = 32 fat tree), where the standard library's
/// SipHash (keyed against hash flooding, which built-in keys cannot mount) and a key allocated
/// per lookup took 0.7 G instructions. The ids come from the insertion order, not the hash.
type Interning<K, V> = rustc_hash::FxHashMap<K, V>;

/// The destinations of a topology and their groups.
pub(super) struct Plan {
    /// Host nodes, in node order.
    hosts: Vec<usize>,
    /// The destinations: each host as a whole, then each port of the hosts whose ports are
    /// addressed, as (node, the port's global id or `NONE` for the whole host).
    dests: Vec<(usize, u32)>,
    port_dest: Vec<(u32, u32)>,
    first_port: Vec<u32>,
    dest_group: Vec<u32>,
    /// Per group, the switches wired to its destinations, by falling node id (the order in
    /// which the ns-3 HPCC simulator's search takes a node's switches; see [`by_id`]).
    groups: Vec<Vec<u32>>,
    rows: Vec<Row>,
    /// Switch row → node.
    switch_nodes: Vec<u32>,
    /// Multi row → host node.
    multi_nodes: Vec<u32>,
}

impl Plan {
    pub(super) fn new(topo: &Topology<'_>) -> Plan {
        let n = topo.adjacency.len();
        let hosts: Vec<usize> = (0..n).filter(|&i| topo.is_host[i]).collect();
        let mut dests: Vec<(usize, u32)> = hosts.iter().map(|&h| (h, NONE)).collect();
        let (mut port_dest, mut first_port) = (Vec::new(), Vec::new());
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
        let mut key_group: Interning<Vec<u32>, u32> = Interning::default();
        let mut groups = Vec::new();
        let dest_group = dests
            .iter()
            .map(|&(d, port)| {
                let mut key: Vec<u32> = if port == NONE {
                    topo.adjacency[d].iter().map(|&(_, v)| v).filter(|&v| !topo.is_host[v as usize]).collect()
                } else {
                    // A port's address is reached over its own link only.
                    let peer = topo.adjacency[d].iter().find(|&&(g, _)| g == port).map(|&(_, v)| v);
                    peer.filter(|&v| !topo.is_host[v as usize]).into_iter().collect()
                };
                key.sort_unstable_by(|a, b| b.cmp(a));
                key.dedup();
                *key_group.entry(key).or_insert_with_key(|key| {
                    groups.push(key.clone());
                    groups.len() as u32 - 1
                })
            })
            .collect();
        let (mut switch_nodes, mut multi_nodes) = (Vec::new(), Vec::new());
        let rows = (0..n)
            .map(|u| {
                if !topo.is_host[u] {
                    switch_nodes.push(u as u32);
                    return Row::Switch(switch_nodes.len() as u32 - 1);
                }
                match topo.adjacency[u][..] {
                    [] => Row::Alone,
                    [(_, v)] if topo.is_host[v as usize] => Row::Alone,
                    [(port, _)] => Row::Single { port, switch_row: NONE },
                    _ => {
                        multi_nodes.push(u as u32);
                        Row::Multi(multi_nodes.len() as u32 - 1)
                    }
                }
            })
            .collect::<Vec<_>>();
        let mut plan =
            Plan { hosts, dests, port_dest, first_port, dest_group, groups, rows, switch_nodes, multi_nodes };
        // A single port's switch row, now that every switch has one.
        for u in 0..n {
            if let Row::Single { port, .. } = plan.rows[u] {
                let v = topo.adjacency[u][0].1 as usize;
                let Row::Switch(switch_row) = plan.rows[v] else { unreachable!("a host's single link to a host") };
                plan.rows[u] = Row::Single { port, switch_row };
            }
        }
        plan
    }

    /// Bytes the tables take at most while they are built: each group's column of every
    /// switch and several-port host, twice (the threads' columns and the tables), the
    /// destinations' last hops and the per-node and per-destination vectors; the interned sets
    /// counted as one port id per link end.
    pub(super) fn bytes(&self, topo: &Topology<'_>) -> u128 {
        let groups = self.groups.len() as u128;
        let columns = groups * (self.switch_nodes.len() + self.multi_nodes.len()) as u128 * 4 * 2;
        let links: u128 = topo.adjacency.iter().map(|a| a.len() as u128).sum();
        let last: u128 = self.dests.iter().map(|&(d, _)| topo.adjacency[d].len() as u128 * 8 + 16).sum();
        let nodes = topo.adjacency.len() as u128 * (4 + 12 + 12);
        columns + last + nodes + links * 4
    }

    /// The number of destination groups.
    pub(super) fn groups(&self) -> usize {
        self.groups.len()
    }
}

/// Each node's links in the order of the ns-3 HPCC simulator's breadth-first search, which
/// takes a node's neighbours in the order of its `map<Ptr<Node>, Interface>`, by address: its
/// hosts, small objects from the heap, in the order they were made (by id); then its switches,
/// whose `SwitchNode` (over 4 MB of byte counters each) glibc maps with mmap, at falling
/// addresses (by id, the last first). It lists a node's next hops in the order the search
/// reached them.
pub(super) fn by_id(topo: &Topology<'_>) -> Vec<Vec<(u32, u32)>> {
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
}

/// The sets one thread found for its groups, and its columns: 0 for an empty set, 1 for
/// [`LAST_HOP`], `2 + i` for `sets[i]`.
struct Chunk {
    sets: Vec<Vec<u32>>,
}

/// Works out the columns of groups `first..` into `out` (`columns` entries a group).
fn search_groups(
    topo: &Topology<'_>,
    plan: &Plan,
    adjacency: &[Vec<(u32, u32)>],
    first: usize,
    out: &mut [u32],
) -> Chunk {
    let n = topo.adjacency.len();
    let columns = plan.switch_nodes.len() + plan.multi_nodes.len();
    let mut dist = vec![u32::MAX; n];
    let mut rank = vec![u32::MAX; if topo.hpcc_order { n } else { 0 }];
    let mut queue: Vec<u32> = Vec::new();
    let mut ids: Interning<Vec<u32>, u32> = Interning::default();
    let mut sets = Vec::new();
    let mut ranked: Vec<(u32, u32)> = Vec::new();
    let mut hops: Vec<u32> = Vec::new();
    let mut intern = |ranked: &mut Vec<(u32, u32)>| -> u32 {
        if ranked.is_empty() {
            return 0;
        }
        if topo.hpcc_order {
            ranked.sort_unstable();
        }
        hops.clear();
        hops.extend(ranked.iter().map(|&(_, p)| p));
        if let Some(&id) = ids.get(hops.as_slice()) {
            return id;
        }
        sets.push(hops.clone());
        ids.insert(hops.clone(), sets.len() as u32 + 1);
        sets.len() as u32 + 1
    };
    for (i, column) in out.chunks_mut(columns).enumerate() {
        let group = &plan.groups[first + i];
        queue.clear();
        for &s in group {
            dist[s as usize] = 1;
            queue.push(s);
        }
        let mut head = 0;
        while let Some(&u) = queue.get(head) {
            if topo.hpcc_order {
                rank[u as usize] = head as u32;
            }
            head += 1;
            for &(_, v) in &adjacency[u as usize] {
                if !topo.is_host[v as usize] && dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u as usize] + 1;
                    queue.push(v);
                }
            }
        }
        let rank_of = |v: usize| if topo.hpcc_order { rank[v] } else { 0 };
        for &u in &queue {
            let Row::Switch(row) = plan.rows[u as usize] else { unreachable!("only switches are searched") };
            let d = dist[u as usize];
            column[row as usize] = if d == 1 {
                1
            } else {
                ranked.clear();
                for &(port, v) in &topo.adjacency[u as usize] {
                    let v = v as usize;
                    if !topo.is_host[v] && dist[v] != u32::MAX && dist[v] + 1 == d {
                        ranked.push((rank_of(v), port));
                    }
                }
                intern(&mut ranked)
            };
        }
        for (m, &h) in plan.multi_nodes.iter().enumerate() {
            let links = &topo.adjacency[h as usize];
            let reached = |v: u32| !topo.is_host[v as usize] && dist[v as usize] != u32::MAX;
            let nearest = links.iter().filter(|&&(_, v)| reached(v)).map(|&(_, v)| dist[v as usize]).min();
            ranked.clear();
            if let Some(nearest) = nearest {
                for &(port, v) in links {
                    if reached(v) && dist[v as usize] == nearest {
                        ranked.push((rank_of(v as usize), port));
                    }
                }
            }
            column[plan.switch_nodes.len() + m] = intern(&mut ranked);
        }
        for &u in &queue {
            dist[u as usize] = u32::MAX;
        }
    }
    Chunk { sets }
}

/// Interns next-hop sets into one array of ports, each set once.
struct Interner {
    ports: Vec<u32>,
    wide: Vec<(u32, u32)>,
    overflow: HashMap<usize, u32>,
    /// A set's entry and, for a set in `wide`, its index there.
    interned: Interning<Vec<u32>, (u32, u32)>,
    /// The `wide` indices an entry may hold (tests make it small).
    wide_in_entry: u32,
    /// The ports below which a one-port set is held in its entry (2^24, what the entry's
    /// offset field holds; tests make it small).
    one_port_below: u32,
}

impl Interner {
    /// The entry of `hops` in cell `cell`.
    fn entry(&mut self, hops: &[u32], cell: usize) -> u32 {
        if hops.is_empty() {
            return 0;
        }
        if let [port] = *hops {
            if port < self.one_port_below {
                return port << 8 | ONE_PORT;
            }
        }
        let (entry, index) = match self.interned.get(hops) {
            Some(&e) => e,
            None => {
                let (offset, len) = (self.ports.len(), hops.len());
                self.ports.extend_from_slice(hops);
                // A one-port set past the ports an entry holds goes to `wide`: length 1 in an
                // entry is the port itself.
                let e = if offset < ENTRY_OFFSETS && len < WIDE as usize && len != ONE_PORT as usize {
                    ((offset as u32) << 8 | len as u32, 0)
                } else {
                    let index = self.wide.len() as u32;
                    self.wide.push((offset as u32, len as u32));
                    (index.min(self.wide_in_entry) << 8 | WIDE, index)
                };
                self.interned.insert(hops.to_vec(), e);
                e
            }
        };
        if entry == self.wide_in_entry << 8 | WIDE {
            self.overflow.insert(cell, index);
        }
        entry
    }
}

/// What a table entry holds in place of a reference into `Routes::ports` (tests make them small
/// to exercise the references).
#[derive(Clone, Copy, Debug)]
pub(super) struct EntryLimits {
    /// The `wide` indices (the rest go through `Routes::overflow`).
    pub wide_in_entry: u32,
    /// The ports held as a one-port set's entry (the rest are interned in `Routes::ports`).
    pub one_port_below: u32,
}

impl EntryLimits {
    /// As far as an entry's 24-bit field reaches.
    pub(super) const FULL: EntryLimits =
        EntryLimits { wide_in_entry: super::table::WIDE_OVERFLOW, one_port_below: ENTRY_OFFSETS as u32 };
}

/// The tables of `topo`, the groups searched by up to `threads` threads.
pub(super) fn compute(topo: &Topology<'_>, limits: EntryLimits, threads: usize) -> Routes {
    let plan = Plan::new(topo);
    let n = topo.adjacency.len();
    let by_id = if topo.hpcc_order { by_id(topo) } else { Vec::new() };
    let adjacency = if topo.hpcc_order { &by_id[..] } else { topo.adjacency };
    let (n_rows, n_multi, n_groups) = (plan.switch_nodes.len(), plan.multi_nodes.len(), plan.groups.len());
    let columns = n_rows + n_multi;
    let mut local = vec![0u32; n_groups * columns];
    let per = n_groups.div_ceil(threads.clamp(1, n_groups.max(1)));
    let chunks: Vec<(usize, Chunk)> = if columns == 0 || n_groups == 0 {
        Vec::new()
    } else {
        std::thread::scope(|s| {
            let (plan, adjacency) = (&plan, adjacency);
            let handles: Vec<_> = local
                .chunks_mut(per * columns)
                .enumerate()
                .map(|(t, out)| (t * per, s.spawn(move || search_groups(topo, plan, adjacency, t * per, out))))
                .collect();
            handles
                .into_iter()
                .map(|(first, h)| (first, h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
                .collect()
        })
    };
    let mut table = vec![0u32; n_groups * n_rows];
    let mut host_table = vec![0u32; n_groups * n_multi];
    let mut sets = Interner {
        ports: Vec::new(),
        wide: Vec::new(),
        overflow: HashMap::new(),
        interned: Interning::default(),
        wide_in_entry: limits.wide_in_entry,
        one_port_below: limits.one_port_below.min(ENTRY_OFFSETS as u32),
    };
    for (first, chunk) in &chunks {
        let mut entries = vec![NONE; chunk.sets.len()];
        for g in *first..(first + per).min(n_groups) {
            for r in 0..columns {
                let id = local[g * columns + r];
                let cell = if r < n_rows { g * n_rows + r } else { table.len() + g * n_multi + r - n_rows };
                let entry = match id {
                    0 => 0,
                    1 => LAST_HOP,
                    i => {
                        let i = i as usize - 2;
                        let hops = &chunk.sets[i];
                        // An overflowed set is looked up by its cell: intern it again for each.
                        if entries[i] == NONE || entries[i] & WIDE == WIDE {
                            entries[i] = sets.entry(hops, cell);
                        }
                        entries[i]
                    }
                };
                if r < n_rows {
                    table[cell] = entry;
                } else {
                    host_table[g * n_multi + r - n_rows] = entry;
                }
            }
        }
    }
    drop(local);
    let (last_start, last) = last_hops(topo, &plan, &mut sets, table.len() + host_table.len());
    let last_first = last_start.windows(2).map(|w| if w[1] > w[0] { last[w[0] as usize] } else { (NONE, 0) }).collect();
    let nh = plan.hosts.len();
    let mut host_index = vec![NONE; n];
    for (k, &h) in plan.hosts.iter().enumerate() {
        host_index[h] = k as u32;
    }
    let first_host = match plan.hosts.first() {
        Some(&h)
            if plan.port_dest.is_empty() && plan.hosts.last() == Some(&(h + nh - 1)) && h + nh <= NONE as usize =>
        {
            h as u32
        }
        _ => NONE,
    };
    Routes {
        n_dests: plan.dests.len(),
        host_index,
        port_dest: plan.port_dest,
        first_port: plan.first_port,
        first_host,
        dest_group: plan.dest_group,
        n_groups,
        rows: plan.rows,
        n_rows,
        n_multi,
        table,
        host_table,
        last_start,
        last,
        last_first,
        wide: sets.wide,
        overflow: sets.overflow,
        ports: sets.ports,
    }
}

/// Each destination's last hops: every node wired to it (to the one port, for a port's
/// address), with its ports on those links, in the order of its links (by port in the ns-3
/// HPCC simulator's order, where they all lead to the destination, reached first).
fn last_hops(topo: &Topology<'_>, plan: &Plan, sets: &mut Interner, first_cell: usize) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut last_start = Vec::with_capacity(plan.dests.len() + 1);
    let mut last: Vec<(u32, u32)> = Vec::new();
    let mut hops = Vec::new();
    for &(d, port) in &plan.dests {
        last_start.push(last.len() as u32);
        let wired: Vec<u32> = if port == NONE {
            let mut seen: Vec<u32> = Vec::new();
            for &(_, v) in &topo.adjacency[d] {
                if v as usize != d && !seen.contains(&v) {
                    seen.push(v);
                }
            }
            seen
        } else {
            let peer = topo.adjacency[d].iter().find(|&&(g, _)| g == port).map(|&(_, v)| v);
            peer.filter(|&v| v as usize != d).into_iter().collect()
        };
        for v in wired {
            hops.clear();
            hops.extend(
                topo.adjacency[v as usize]
                    .iter()
                    .filter(|&&(g, w)| w as usize == d && (port == NONE || topo.peer_port[g as usize] == port))
                    .map(|&(g, _)| g),
            );
            if topo.hpcc_order {
                hops.sort_unstable();
            }
            let cell = first_cell + last.len();
            last.push((v, sets.entry(&hops, cell)));
        }
    }
    last_start.push(last.len() as u32);
    (last_start, last)
}
