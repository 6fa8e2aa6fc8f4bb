//! Routes between RDMA endpoints and the PFC deadlock analysis over them.
//!
//! Routing is shortest path with ECMP (every equal-cost next hop is used), destination based, as
//! BGP/OSPF with ECMP program a Clos. Endpoints are grouped by the set of switches they attach
//! to; one breadth-first search per group gives, for every switch, its distance and next hops.
//! A directed link is *on a route* when a switch that some endpoint's traffic reaches forwards
//! over it; both directions of every endpoint pair are covered (CNPs go the reverse way).
//!
//! Deadlock (Hu et al., HotNets 2016): a lossless packet held in the ingress buffer of link
//! `u→v` waits for `v→w`; if these waits form a cycle of paused links, nothing moves again.
//! The buffer dependency graph has a node per directed switch-to-switch link (per lossless
//! priority with PFC on at the receiving port) and an edge per turn `u→v→w` some route takes.
//!
//! Exact construction is quadratic in the ports of a spine, so the analysis first tries a
//! certificate: rank the switches by distance from the endpoints (leaves 0, spines 1, …, ties by
//! index) and call a link *up* when it climbs that order. If no route turns from down to up (a
//! "valley"), the graph is acyclic: order up links by rank, then down links by decreasing rank,
//! and every dependency goes forward (the up*/down* argument of Autonet, Schroeder et al. 1991).
//! Only when valleys exist is the graph built, and Tarjan's algorithm finds the cycle.
//!
//! Single link failures: removing a link only removes routes unless some switch loses its last
//! next hop towards a group; then the switches whose every shortest path used the link move
//! further away. The screen computes that set and its new distances locally; if no endpoint
//! traffic reaches it, the routes after the failure are a subset of today's and no cycle can
//! appear. Failures that pass the screen cost a few array reads per group; the others get a
//! full analysis, at most [`MAX_FULL_FAILURES`] of them (the rest are reported as not analysed).

use crate::state::State;
use std::collections::{BinaryHeap, HashMap};

const INF: u16 = u16::MAX;
/// Failures analysed in full (each costs a complete routing pass) before the rest are reported
/// as not analysed.
pub const MAX_FULL_FAILURES: usize = 16;
/// Largest dependency graph built, in edges.
pub const MAX_DEPENDENCY_EDGES: usize = 20_000_000;

/// Directed link id: `2 × link` for a→b, `2 × link + 1` for b→a.
pub fn dlink(link: u32, from_a: bool) -> u32 {
    2 * link + (!from_a) as u32
}

/// The switch-to-switch graph in compressed form.
struct Graph {
    /// Local index → device.
    devices: Vec<u32>,
    /// Device → local index.
    local: HashMap<u32, u32>,
    off: Vec<u32>,
    /// (neighbour, link, directed link from this node).
    adj: Vec<(u32, u32, u32)>,
    /// Switches with RDMA endpoints attached.
    source: Vec<bool>,
    /// Destination groups: the switches each set of endpoints attaches to.
    groups: Vec<Vec<u32>>,
    /// Rank for the up/down certificate.
    key: Vec<(u16, u32)>,
}

impl Graph {
    fn build(s: &State) -> Graph {
        let devices: Vec<u32> = (0..s.devices.len() as u32).filter(|d| s.is_switch(*d)).collect();
        let local: HashMap<u32, u32> = devices.iter().enumerate().map(|(i, d)| (*d, i as u32)).collect();
        let n = devices.len();
        let mut deg = vec![0u32; n + 1];
        for l in &s.links {
            if let (Some(a), Some(b)) = (local.get(&l.a.device), local.get(&l.b.device)) {
                deg[*a as usize] += 1;
                deg[*b as usize] += 1;
            }
        }
        let mut off = vec![0u32; n + 1];
        for i in 0..n {
            off[i + 1] = off[i] + deg[i];
        }
        let mut fill = off.clone();
        let mut adj = vec![(0, 0, 0); off[n] as usize];
        for (li, l) in s.links.iter().enumerate() {
            let li = li as u32;
            if let (Some(&a), Some(&b)) = (local.get(&l.a.device), local.get(&l.b.device)) {
                adj[fill[a as usize] as usize] = (b, li, dlink(li, true));
                fill[a as usize] += 1;
                adj[fill[b as usize] as usize] = (a, li, dlink(li, false));
                fill[b as usize] += 1;
            }
        }
        let mut source = vec![false; n];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_of: HashMap<Vec<u32>, usize> = HashMap::new();
        for (di, d) in s.devices.iter().enumerate() {
            if !d.rdma {
                continue;
            }
            let mut att: Vec<u32> = d
                .ports
                .iter()
                .filter_map(|p| p.link)
                .filter_map(|l| {
                    let l = &s.links[l as usize];
                    let other = if l.a.device == di as u32 { l.b.device } else { l.a.device };
                    local.get(&other).copied()
                })
                .collect();
            att.sort_unstable();
            att.dedup();
            if att.is_empty() {
                continue;
            }
            for a in &att {
                source[*a as usize] = true;
            }
            if !group_of.contains_key(&att) {
                group_of.insert(att.clone(), groups.len());
                groups.push(att);
            }
        }
        // Rank: distance from the switches endpoints attach to.
        let mut rank = vec![INF; n];
        let mut queue: Vec<u32> = (0..n as u32).filter(|v| source[*v as usize]).collect();
        for v in &queue {
            rank[*v as usize] = 0;
        }
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            for &(w, _, _) in &adj[off[v as usize] as usize..off[v as usize + 1] as usize] {
                if rank[w as usize] == INF {
                    rank[w as usize] = rank[v as usize] + 1;
                    queue.push(w);
                }
            }
        }
        let key = (0..n as u32).map(|v| (rank[v as usize], v)).collect();
        Graph { devices, local, off, adj, source, groups, key }
    }

    fn neighbours(&self, v: u32) -> &[(u32, u32, u32)] {
        &self.adj[self.off[v as usize] as usize..self.off[v as usize + 1] as usize]
    }
}

/// A turn from a down link into an up link, which the certificate cannot order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Valley {
    group: u32,
    at: u32,
}

/// Result of one routing pass over every group.
struct Pass {
    /// Directed links on some route (bitset over directed link ids).
    used: Vec<u64>,
    valleys: Vec<Valley>,
    /// Per switch × group, switch-major: distance and number of next-hop links.
    dist: Vec<u16>,
    nh: Vec<u16>,
    /// The same distances, group-major, for scans of one group.
    dist_by_group: Vec<u16>,
    /// Per group × switch: traffic from an endpoint reaches this switch.
    reached: Vec<u64>,
    /// Dependency edges, when asked for.
    edges: Vec<(u32, u32)>,
    too_many_edges: bool,
}

fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}
fn get(bits: &[u64], i: usize) -> bool {
    bits[i / 64] & (1 << (i % 64)) != 0
}

fn pass(g: &Graph, links: usize, removed: Option<u32>, want_edges: bool) -> Pass {
    let n = g.devices.len();
    let ng = g.groups.len();
    let mut p = Pass {
        used: vec![0; (2 * links).div_ceil(64)],
        valleys: Vec::new(),
        dist: vec![INF; n * ng],
        nh: vec![0; n * ng],
        dist_by_group: Vec::with_capacity(n * ng),
        reached: vec![0; (n * ng).div_ceil(64)],
        edges: Vec::new(),
        too_many_edges: false,
    };
    let mut dist = vec![INF; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut reached = vec![false; n];
    let mut down_in = vec![false; n];
    for (gi, members) in g.groups.iter().enumerate() {
        dist.fill(INF);
        order.clear();
        for &m in members {
            dist[m as usize] = 0;
            order.push(m);
        }
        let mut head = 0;
        while head < order.len() {
            let v = order[head];
            head += 1;
            let dv = dist[v as usize];
            for &(w, l, _) in g.neighbours(v) {
                if Some(l) != removed && dist[w as usize] == INF {
                    dist[w as usize] = dv + 1;
                    order.push(w);
                }
            }
        }
        reached.fill(false);
        down_in.fill(false);
        for &v in order.iter().rev() {
            let dv = dist[v as usize];
            let vu = v as usize;
            let here = reached[vu] || (g.source[vu] && dv > 0);
            let mut count = 0u16;
            for &(w, l, dl) in g.neighbours(v) {
                if Some(l) == removed || dv == 0 || dist[w as usize] != dv - 1 {
                    continue;
                }
                count += 1;
                if here {
                    set(&mut p.used, dl as usize);
                    reached[w as usize] = true;
                    if g.key[vu] > g.key[w as usize] {
                        down_in[w as usize] = true;
                    } else if down_in[vu] {
                        p.valleys.push(Valley { group: gi as u32, at: v });
                    }
                }
            }
            p.dist[vu * ng + gi] = dv;
            p.nh[vu * ng + gi] = count;
            if here {
                set(&mut p.reached, gi * n + vu);
            }
            if want_edges && here && dv > 0 && !p.too_many_edges {
                for &(u, lu, dl_vu) in g.neighbours(v) {
                    let uu = u as usize;
                    if Some(lu) == removed || dist[uu] != dv + 1 || !(reached[uu] || g.source[uu]) {
                        continue;
                    }
                    // v's entry for the link holds v→u; u→v is the other direction.
                    let into = dl_vu ^ 1;
                    for &(w, lw, out) in g.neighbours(v) {
                        if Some(lw) != removed && dist[w as usize] == dv - 1 {
                            p.edges.push((into, out));
                        }
                    }
                }
                if p.edges.len() > MAX_DEPENDENCY_EDGES {
                    p.too_many_edges = true;
                }
            }
        }
        p.dist_by_group.extend_from_slice(&dist);
    }
    p
}

/// A dependency cycle: the directed links that close it, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub priority: u8,
    pub links: Vec<u32>,
}

/// What the route analysis found.
#[derive(Debug, Clone, Default)]
pub struct RouteAnalysis {
    /// Directed links (see [`dlink`]) on some route between RDMA endpoints, host links included.
    pub used: Vec<u64>,
    /// Cycles in the healthy fabric.
    pub cycles: Vec<Cycle>,
    /// Cycles after a single link failure: (failed link, cycle).
    pub failure_cycles: Vec<(u32, Cycle)>,
    /// Failures whose routes change in a way the screen cannot clear and that were not analysed
    /// in full because of [`MAX_FULL_FAILURES`].
    pub failures_not_analysed: usize,
    /// Failures analysed in full.
    pub failures_analysed_in_full: usize,
    /// A dependency graph was larger than [`MAX_DEPENDENCY_EDGES`] and not searched.
    pub graph_too_large: bool,
    pub switch_links: usize,
}

impl RouteAnalysis {
    pub fn on_route(&self, dl: u32) -> bool {
        get(&self.used, dl as usize)
    }
}

/// Routes, deadlock cycles, and cycles after single link failures.
pub fn analyse(s: &State) -> RouteAnalysis {
    let g = Graph::build(s);
    let links = s.links.len();
    let base = pass(&g, links, None, false);
    let mut out = RouteAnalysis { used: base.used.clone(), ..Default::default() };
    mark_endpoint_links(s, &mut out.used);
    if !base.valleys.is_empty() {
        let (cycles, big) = cycles_of(s, &g, None);
        out.cycles = cycles;
        out.graph_too_large |= big;
    }
    let n = g.devices.len();
    let ng = g.groups.len();
    let mut full: Vec<u32> = Vec::new();
    let switch_links: Vec<u32> = (0..links as u32)
        .filter(|l| {
            let l = &s.links[*l as usize];
            g.local.contains_key(&l.a.device) && g.local.contains_key(&l.b.device)
        })
        .collect();
    out.switch_links = switch_links.len();
    let mut scratch = Scratch::new(n);
    for &e in &switch_links {
        let l = &s.links[e as usize];
        let a = g.local[&l.a.device];
        let b = g.local[&l.b.device];
        let mut needs_full = false;
        for gi in 0..ng {
            for (x, y) in [(a, b), (b, a)] {
                let dx = base.dist[x as usize * ng + gi];
                let dy = base.dist[y as usize * ng + gi];
                // x's only next hop towards the group was e: its distance grows.
                if dx != INF && dy != INF && dx == dy + 1 && base.nh[x as usize * ng + gi] == 1 {
                    needs_full |= reroute_reaches_traffic(&g, &base, e, gi, x, &mut scratch);
                }
            }
            if needs_full {
                break;
            }
        }
        if needs_full {
            full.push(e);
        }
    }
    for (i, e) in full.iter().enumerate() {
        if i >= MAX_FULL_FAILURES {
            out.failures_not_analysed = full.len() - MAX_FULL_FAILURES;
            break;
        }
        out.failures_analysed_in_full += 1;
        let p = pass(&g, links, Some(*e), false);
        if p.valleys.is_empty() {
            continue;
        }
        let (cycles, big) = cycles_of(s, &g, Some(*e));
        out.graph_too_large |= big;
        for c in cycles {
            if !out.cycles.iter().any(|b| b.priority == c.priority) {
                out.failure_cycles.push((*e, c));
            }
        }
    }
    out
}

/// Host links of RDMA endpoints carry routes in both directions when there are two endpoints.
fn mark_endpoint_links(s: &State, used: &mut [u64]) {
    let endpoints = s.devices.iter().filter(|d| d.rdma).count();
    if endpoints < 2 {
        return;
    }
    for (li, l) in s.links.iter().enumerate() {
        let (da, db) = (s.device(l.a), s.device(l.b));
        if da.rdma || db.rdma {
            set(used, dlink(li as u32, true) as usize);
            set(used, dlink(li as u32, false) as usize);
        }
    }
}

/// Per-switch scratch arrays for the failure screen, reset through the list of touched entries
/// so that a screen costs what it visits, not the size of the fabric.
struct Scratch {
    /// Next hops left towards the group; `UNSET` when untouched.
    left: Vec<u16>,
    /// New distance of an affected switch; `UNSET` when not affected.
    new_dist: Vec<u16>,
    reached: Vec<bool>,
    touched: Vec<u32>,
}

const UNSET: u16 = u16::MAX - 1;

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch { left: vec![UNSET; n], new_dist: vec![UNSET; n], reached: vec![false; n], touched: Vec::new() }
    }
    fn reset(&mut self) {
        for &v in &self.touched {
            self.left[v as usize] = UNSET;
            self.new_dist[v as usize] = UNSET;
            self.reached[v as usize] = false;
        }
        self.touched.clear();
    }
}

/// After link `e` fails, does endpoint traffic towards group `gi` reach a switch whose
/// distance grew? `x` lost its last next hop over `e`.
fn reroute_reaches_traffic(g: &Graph, base: &Pass, e: u32, gi: usize, x: u32, sc: &mut Scratch) -> bool {
    let n = g.devices.len();
    let dist = &base.dist_by_group[gi * n..(gi + 1) * n];
    let d = |v: u32| dist[v as usize];
    let nh = |v: u32| base.nh[v as usize * g.groups.len() + gi];
    sc.reset();
    // The switches all of whose shortest paths used e (their new distance is set below).
    let mut affected = vec![x];
    sc.new_dist[x as usize] = INF;
    sc.touched.push(x);
    let mut i = 0;
    while i < affected.len() {
        let y = affected[i];
        i += 1;
        for &(w, l, _) in g.neighbours(y) {
            let wu = w as usize;
            if l == e || d(w) == INF || d(w) != d(y) + 1 || sc.new_dist[wu] != UNSET {
                continue;
            }
            if sc.left[wu] == UNSET {
                sc.left[wu] = nh(w);
                sc.touched.push(w);
            }
            sc.left[wu] -= 1;
            if sc.left[wu] == 0 {
                sc.new_dist[wu] = INF;
                affected.push(w);
            }
        }
    }
    // New distances: from the unaffected boundary inwards.
    let mut heap = BinaryHeap::new();
    for &v in &affected {
        let best = g
            .neighbours(v)
            .iter()
            .filter(|(w, l, _)| *l != e && sc.new_dist[*w as usize] == UNSET && d(*w) != INF)
            .map(|(w, _, _)| d(*w) + 1)
            .min()
            .unwrap_or(INF);
        sc.new_dist[v as usize] = best;
        if best != INF {
            heap.push(std::cmp::Reverse((best, v)));
        }
    }
    while let Some(std::cmp::Reverse((dv, v))) = heap.pop() {
        if sc.new_dist[v as usize] != dv {
            continue;
        }
        for &(w, l, _) in g.neighbours(v) {
            let dw = sc.new_dist[w as usize];
            if l != e && dw != UNSET && dw > dv + 1 {
                sc.new_dist[w as usize] = dv + 1;
                heap.push(std::cmp::Reverse((dv + 1, w)));
            }
        }
    }
    // Is any affected switch reached by endpoint traffic now? Farthest first, so that an
    // affected upstream switch is decided before the ones it forwards to.
    let mut order: Vec<(u16, u32)> =
        affected.iter().map(|v| (sc.new_dist[*v as usize], *v)).filter(|(d, _)| *d != INF).collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    for (dv, v) in order {
        let mut r = g.source[v as usize];
        for &(w, l, _) in g.neighbours(v) {
            if r {
                break;
            }
            if l == e {
                continue;
            }
            let dw = sc.new_dist[w as usize];
            r = if dw != UNSET {
                dw == dv + 1 && sc.reached[w as usize]
            } else {
                d(w) == dv + 1 && get(&base.reached, gi * n + w as usize)
            };
        }
        if r {
            return true;
        }
        sc.reached[v as usize] = r;
    }
    false
}

/// Builds the dependency graph (with `removed` failed) and returns one cycle per lossless
/// priority that has one; the flag says the graph was too large to search.
fn cycles_of(s: &State, g: &Graph, removed: Option<u32>) -> (Vec<Cycle>, bool) {
    let mut p = pass(g, s.links.len(), removed, true);
    if p.too_many_edges {
        return (Vec::new(), true);
    }
    p.edges.sort_unstable();
    p.edges.dedup();
    let mut cycles = Vec::new();
    for prio in s.policy.lossless_priorities() {
        // A link's ingress buffer pauses its upstream only where PFC is on at the receiver.
        let pauses = |dl: u32| {
            let l = &s.links[(dl / 2) as usize];
            let receiver = if dl % 2 == 0 { l.b } else { l.a };
            s.qos(receiver).pfc_on(prio)
        };
        let edges: Vec<(u32, u32)> = p.edges.iter().copied().filter(|(a, b)| pauses(*a) && pauses(*b)).collect();
        if let Some(c) = find_cycle(&edges, 2 * s.links.len()) {
            cycles.push(Cycle { priority: prio, links: c });
        }
    }
    (cycles, false)
}

/// One cycle of a directed graph given as sorted edges, if any (Tarjan's SCC, iterative).
pub fn find_cycle(edges: &[(u32, u32)], nodes: usize) -> Option<Vec<u32>> {
    let mut off = vec![0u32; nodes + 1];
    for (a, _) in edges {
        off[*a as usize + 1] += 1;
    }
    for i in 0..nodes {
        off[i + 1] += off[i];
    }
    let succ: Vec<u32> = edges.iter().map(|(_, b)| *b).collect();
    let out = |v: u32| &succ[off[v as usize] as usize..off[v as usize + 1] as usize];
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; nodes];
    let mut low = vec![0u32; nodes];
    let mut on_stack = vec![false; nodes];
    let mut stack: Vec<u32> = Vec::new();
    let mut next = 0u32;
    for root in 0..nodes as u32 {
        if index[root as usize] != UNSEEN || out(root).is_empty() {
            continue;
        }
        let mut call: Vec<(u32, usize)> = vec![(root, 0)];
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let succs = out(v);
            if *i < succs.len() {
                let w = succs[*i];
                *i += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("Tarjan stack holds the component");
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    return Some(cycle_in(&comp, &out));
                }
            }
        }
    }
    None
}

/// A cycle through the first node of a strongly connected component (breadth first, so the
/// shortest such cycle).
fn cycle_in<'a>(comp: &[u32], out: &dyn Fn(u32) -> &'a [u32]) -> Vec<u32> {
    let members: std::collections::HashSet<u32> = comp.iter().copied().collect();
    let start = *comp.iter().min().expect("component is not empty");
    let mut prev: HashMap<u32, u32> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in out(v) {
            if !members.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![v];
                let mut x = v;
                while x != start {
                    x = prev[&x];
                    path.push(x);
                }
                path.reverse();
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}
