//! The routing tables and their lookups.
//!
//! Destinations that every switch reaches the same way share one column: a destination's next
//! hops at a switch depend only on the switches it is attached to (its *group*), except at
//! those switches themselves, whose last hop is the destination's own link. So a switch keeps
//! one entry per group — hosts under one ToR share it — and the last hops are kept per
//! destination, a few ports each: the tables grow with switches × groups, not nodes × hosts
//! (a k = 64 fat tree: 5,120 switches × 2,048 groups × 4 bytes, 42 MB, against 18.5 GB for
//! every node and host). A lookup stays a handful of loads: destination → group, then
//! (group, switch) → the set. A set of one port (every way down a tree, and its last hop) is
//! held in the entry itself, so that a lookup of it reads no `ports`.

use super::{address_node, port_address, NONE};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;

/// The equal-cost next-hop ports a lookup finds: a set of `Routes::ports`, or the one port an
/// entry holds itself. Derefs to the ports as a slice; [`Hops::choose`] takes the port a frame
/// leaves by without reading a slice for a one-port set.
#[derive(Clone, Copy)]
pub struct Hops<'a> {
    set: &'a [u32],
    /// The port of a one-port set held in its entry (`NONE`: the ports are `set`).
    one: u32,
}

impl<'a> Hops<'a> {
    /// No next hop: unreachable, or the node itself.
    pub(super) const EMPTY: Hops<'static> = Hops { set: &[], one: NONE };

    #[inline(always)]
    pub(super) fn set(set: &'a [u32]) -> Hops<'a> {
        Hops { set, one: NONE }
    }

    #[inline(always)]
    pub(super) fn one(port: u32) -> Hops<'a> {
        Hops { set: &[], one: port }
    }

    /// The port a frame takes: the one port where there is no choice, else the one `pick`
    /// chooses by its index among the set's length; `None` when there is none. The same port as
    /// `self[pick(self.len())]`, since a choice among one port is that port (an ECMP hash
    /// chooses index 0 of 1, `routing::ecmp_select`).
    #[inline(always)]
    pub fn choose(&self, pick: impl FnOnce(usize) -> usize) -> Option<u32> {
        if self.one != NONE {
            return Some(self.one);
        }
        if self.set.is_empty() {
            return None;
        }
        Some(self.set[pick(self.set.len())])
    }
}

impl Deref for Hops<'_> {
    type Target = [u32];

    #[inline(always)]
    fn deref(&self) -> &[u32] {
        if self.one == NONE {
            self.set
        } else {
            std::slice::from_ref(&self.one)
        }
    }
}

impl fmt::Debug for Hops<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Hops<'_> {
    fn eq(&self, other: &Hops<'_>) -> bool {
        **self == **other
    }
}

impl PartialEq<&[u32]> for Hops<'_> {
    fn eq(&self, other: &&[u32]) -> bool {
        **self == **other
    }
}

impl<const N: usize> PartialEq<&[u32; N]> for Hops<'_> {
    fn eq(&self, other: &&[u32; N]) -> bool {
        **self == other[..]
    }
}

/// The next hops of a node, as the tables keep them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Row {
    /// A switch: its row in `Routes::table`.
    Switch(u32),
    /// A host with one port towards a switch: that port and the switch's row. It reaches a
    /// destination (over that port) when the switch does.
    Single { port: u32, switch_row: u32 },
    /// A host with several ports, or a port towards a host: its row in `Routes::host_table`.
    Multi(u32),
    /// A host with no link, or whose only link goes to another host: it reaches only the
    /// destinations it is wired to (its last hops).
    Alone,
}

/// Routing tables of every node towards every destination: each host, and each port of a host
/// whose ports are addressed one by one.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Destinations: the hosts, then the addressed ports.
    pub(super) n_dests: usize,
    /// Node → host index (u32::MAX when the node is a switch).
    pub(super) host_index: Vec<u32>,
    /// Node → the destination index of its port 0 and its number of ports, for a host whose
    /// ports are addressed ((u32::MAX, 0) otherwise; empty when no host's are).
    pub(super) port_dest: Vec<(u32, u32)>,
    /// Node → the global id of its port 0 (empty when no host's ports are addressed).
    pub(super) first_port: Vec<u32>,
    /// When the hosts are the nodes `first_host..first_host + n_hosts` and no port has an
    /// address of its own (as in the built-in topologies), a host's index is its node less
    /// `first_host`, worked out without reading `host_index`; else `u32::MAX`.
    pub(super) first_host: u32,
    /// Destination index → its group.
    pub(super) dest_group: Vec<u32>,
    /// Destination groups.
    pub(super) n_groups: usize,
    /// Node → how its next hops are kept.
    pub(super) rows: Vec<Row>,
    /// Switch rows: the length of one group's column of `table`.
    pub(super) n_rows: usize,
    /// Hosts of [`Row::Multi`]: the length of one group's column of `host_table`.
    pub(super) n_multi: usize,
    /// `(group * n_rows + switch row)` → the next-hop set as `offset << 8 | length` into
    /// `ports` (0, an empty set: unreachable), or [`LAST_HOP`]: the switch is wired to the
    /// group's destinations, and `last` says over which ports. A set of one port below 2^24 is
    /// `port << 8 | 1`, the port itself ([`ONE_PORT`]). A set at an offset past 2^24 - 1 or of
    /// [`WIDE`] ports or more is `index << 8 | WIDE` into `wide` instead.
    pub(super) table: Vec<u32>,
    /// `(group * n_multi + multi row)` → a [`Row::Multi`] host's entry, as in `table`.
    pub(super) host_table: Vec<u32>,
    /// Destination index → where its last hops start in `last` (one more entry: the end).
    pub(super) last_start: Vec<u32>,
    /// The nodes wired to a destination and their entries towards it: the ports of that node
    /// on its links to the destination (to the one port, for a port's address).
    pub(super) last: Vec<(u32, u32)>,
    /// Destination index → its first entry of `last` (`(NONE, 0)` when it has none): where one
    /// node is wired to a destination, as its switch is on a tree, the last hop is this one
    /// read, where through `last_start` it was two dependent reads, a miss each on a large
    /// fabric (8,192 hosts on the k = 32 fat tree: 32 KB of `last_start`, 64 KB of `last`).
    pub(super) last_first: Vec<(u32, u32)>,
    /// The sets that do not fit an entry: (offset, length) into `ports`.
    pub(super) wide: Vec<(u32, u32)>,
    /// Past the `wide` indices an entry holds (2^24 - 1 of them), the cells whose entry is
    /// [`WIDE_OVERFLOW`], each with its index into `wide`. A cell numbers `table`, then
    /// `host_table`, then `last`, one after the other.
    pub(super) overflow: HashMap<usize, u32>,
    /// The interned next-hop sets' global port ids, one after the other.
    pub(super) ports: Vec<u32>,
}

/// The length field of a table entry that names a set in `Routes::wide`.
pub(super) const WIDE: u32 = 0xFF;
/// Offsets (and `wide` indices) a table entry holds: 24 bits.
pub(super) const ENTRY_OFFSETS: usize = 1 << 24;
/// The `wide` index of an entry whose set is found through `Routes::overflow`.
pub(super) const WIDE_OVERFLOW: u32 = (ENTRY_OFFSETS - 1) as u32;
/// The length field of a table entry that holds its one port in place of an offset: on a fat
/// tree every way down (a core's and an aggregation switch's down-links, a ToR's last hop) is
/// one port, and the arrival that looked it up in `Routes::ports` missed the cache on it
/// (the k = 32 fat tree: its largest stall, by `perf`).
pub(super) const ONE_PORT: u32 = 1;
/// The entry of a switch wired to its group's destinations (offset 1, length 0: no set has it,
/// since an empty set is 0).
pub(super) const LAST_HOP: u32 = 1 << 8;

impl Routes {
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

    /// The destination index of address `dst`, worked out without a read where the hosts are
    /// numbered one after the other (`first_host`); `NONE` or past `n_dests` when it is no
    /// destination.
    #[inline(always)]
    fn dest_of(&self, dst: u32) -> u32 {
        if self.first_host != NONE {
            dst.wrapping_sub(self.first_host)
        } else {
            self.dest_index(dst)
        }
    }

    /// Equal-cost next-hop ports of `node` towards address `dst`, a host or one of its ports
    /// (empty: unreachable or itself).
    #[inline(always)]
    pub fn next_hops(&self, node: u32, dst: u32) -> Hops<'_> {
        let k = self.dest_of(dst);
        if k as usize >= self.n_dests {
            return Hops::EMPTY;
        }
        if let Row::Switch(row) = self.rows[node as usize] {
            return self.switch_hops(row, node, k as usize);
        }
        self.host_hops(node, k as usize, dst)
    }

    /// The row of switch `node` in the tables (`None` for a host): the switch's index among the
    /// switches in node order, which is its index in the engine's switches too.
    pub fn switch_row(&self, node: u32) -> Option<u32> {
        match self.rows.get(node as usize) {
            Some(&Row::Switch(row)) => Some(row),
            _ => None,
        }
    }

    /// [`Routes::next_hops`] of switch `node`, whose row ([`Routes::switch_row`]) the caller
    /// knows: the engine's arrival names its switch by that index, so that its lookup waits
    /// neither for the switch's node nor for the node's row. On the k = 32 fat tree those were
    /// two more loads on the chain from an arrival to its egress port, which the look ahead
    /// works out a few events before and then fetches; without them the run took 3 to 6 % less
    /// CPU time (`docs/benchmarks.md`, "The look ahead's route by the switch's index").
    #[inline(always)]
    pub fn switch_next_hops(&self, row: u32, node: u32, dst: u32) -> Hops<'_> {
        debug_assert_eq!(self.switch_row(node), Some(row), "switch {node}'s row");
        let k = self.dest_of(dst);
        if k as usize >= self.n_dests {
            return Hops::EMPTY;
        }
        self.switch_hops(row, node, k as usize)
    }

    /// The next hops of switch `node`, of row `row`, towards destination `k`.
    #[inline(always)]
    fn switch_hops(&self, row: u32, node: u32, k: usize) -> Hops<'_> {
        let cell = self.dest_group[k] as usize * self.n_rows + row as usize;
        let entry = self.table[cell];
        if entry == LAST_HOP {
            return self.last_hops(node, k).unwrap_or(Hops::EMPTY);
        }
        self.set(entry, cell)
    }

    /// Fetch the cache line of the entry that [`Routes::switch_next_hops`] reads for the switch
    /// of row `row` towards address `dst` (no effect on results). The table holds every (group,
    /// switch) pair of the fabric, megabytes on a large one, so that entry is a miss of its own
    /// on an arrival; the engine's look ahead fetches it a few events before.
    #[inline(always)]
    pub fn prefetch_entry(&self, row: u32, dst: u32) {
        let k = self.dest_of(dst);
        let Some(&group) = self.dest_group.get(k as usize) else {
            return;
        };
        crate::packet::prefetch_at(&self.table, group as usize * self.n_rows + row as usize, 0);
        // The entry's last hop, read when the switch is wired to the destination.
        crate::packet::prefetch_at(&self.last_first, k as usize, 0);
    }

    /// The ports of an entry found in cell `cell`.
    #[inline(always)]
    fn set(&self, entry: u32, cell: usize) -> Hops<'_> {
        let (offset, len) = (entry >> 8, entry & WIDE);
        if len == ONE_PORT {
            return Hops::one(offset);
        }
        if len == WIDE {
            return Hops::set(self.wide_hops(offset, cell));
        }
        Hops::set(&self.ports[offset as usize..(offset + len) as usize])
    }

    /// `node`'s ports on its links to destination `k`, when it is wired to it: from `last_first`
    /// when `node` is the destination's first wired node and its set fits an entry, else by a
    /// search of the destination's entries in `last` (the same set, found in two more reads).
    #[inline(always)]
    pub(super) fn last_hops(&self, node: u32, k: usize) -> Option<Hops<'_>> {
        if let Some(&(v, entry)) = self.last_first.get(k) {
            let (offset, len) = (entry >> 8, entry & WIDE);
            if v == node && len == ONE_PORT {
                return Some(Hops::one(offset));
            }
            if v == node && len != WIDE {
                return self.ports.get(offset as usize..(offset + len) as usize).map(Hops::set);
            }
        }
        self.last_hops_search(node, k)
    }

    /// [`Routes::last_hops`] by a search of every node wired to destination `k`.
    #[inline(never)]
    pub(super) fn last_hops_search(&self, node: u32, k: usize) -> Option<Hops<'_>> {
        let (from, to) = (self.last_start[k] as usize, self.last_start[k + 1] as usize);
        let i = self.last[from..to].iter().position(|&(v, _)| v == node)?;
        let cell = self.table.len() + self.host_table.len() + from + i;
        Some(self.set(self.last[from + i].1, cell))
    }

    /// A host's next hops towards destination `k` (address `dst`): none to itself; its links to
    /// the destination when it is wired to it; else by its group, as its switches reach it.
    #[inline(never)]
    fn host_hops(&self, node: u32, k: usize, dst: u32) -> Hops<'_> {
        if address_node(dst) == node {
            return Hops::EMPTY;
        }
        if let Some(hops) = self.last_hops(node, k) {
            return hops;
        }
        let group = self.dest_group[k] as usize;
        match &self.rows[node as usize] {
            Row::Single { port, switch_row } => {
                if self.table[group * self.n_rows + *switch_row as usize] != 0 {
                    Hops::one(*port)
                } else {
                    Hops::EMPTY
                }
            }
            &Row::Multi(row) => {
                let cell = group * self.n_multi + row as usize;
                self.set(self.host_table[cell], self.table.len() + cell)
            }
            Row::Alone | Row::Switch(_) => Hops::EMPTY,
        }
    }

    /// The next-hop set `wide[index]` (a set too long, or too far into `ports`, for an entry)
    /// of cell `cell`.
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

    /// Bytes the tables hold (their vectors' lengths; the interned sets' map is gone once
    /// built).
    pub fn bytes(&self) -> u64 {
        let v = |len: usize, size: usize| (len * size) as u64;
        v(self.host_index.len(), 4)
            + v(self.port_dest.len(), 8)
            + v(self.first_port.len(), 4)
            + v(self.dest_group.len(), 4)
            + v(self.rows.len(), std::mem::size_of::<Row>())
            + v(self.table.len(), 4)
            + v(self.host_table.len(), 4)
            + v(self.last_start.len(), 4)
            + v(self.last.len(), 8)
            + v(self.last_first.len(), 8)
            + v(self.wide.len(), 8)
            + v(self.ports.len(), 4)
    }

    /// The number of destination groups (columns of the tables).
    pub fn groups(&self) -> usize {
        self.n_groups
    }
}
