//! Cutting a fabric into parts, one per thread, and the lookahead the cut allows.
//!
//! A part is simulated by its own thread; parts exchange the frames that cross between them at
//! the end of windows of simulated time no longer than the least delay of a link that crosses
//! (its propagation and the serialization of the smallest frame): what one part sends in a
//! window reaches another no earlier than the next window, so the parts may run a window
//! without waiting for each other (conservative synchronization, Chandy & Misra, IEEE TSE 1979;
//! the lookahead of a link, as in ns-3's distributed simulator and UNISON, Bai et al.,
//! EuroSys 2024). The cut keeps the links of a group together where the fabric has groups: in
//! a fat tree its pods (Al-Fares et al., SIGCOMM 2008), in a leaf-spine each leaf with its
//! hosts, with the switches of the top layer (cores, spines) spread over the parts.

use crate::spec::{NetworkSpec, NodeKind};
use crate::time::{LinkRate, Time};
use std::collections::VecDeque;

/// Which part each node belongs to, and the lookahead of the cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// The part of each node, by node index.
    pub part_of: Vec<u32>,
    /// Number of parts.
    pub parts: usize,
    /// Least delay from a frame's start on a link between two parts to its arrival (`None`:
    /// no link crosses).
    pub lookahead: Option<Time>,
}

/// Cut `spec` into `parts` parts (see the module documentation). Deterministic: a function of
/// the fabric and `parts` alone.
///
/// Nodes are layered by their distance from the nearest host; the top layer (the switches
/// farthest from hosts) is set apart, and what remains falls into connected groups (pods,
/// leaves with their hosts; single hosts under one switch). Groups go, largest first (by
/// ports, then by lowest node), to the part with the fewest ports so far (the lowest part on
/// a tie); then the top layer's switches likewise, one by one.
pub fn partition(spec: &NetworkSpec, parts: usize) -> Partition {
    let n = spec.nodes.len();
    let parts = parts.clamp(1, n.max(1));
    let mut adj = vec![Vec::new(); n];
    for l in &spec.links {
        adj[l.a.node].push(l.b.node);
        adj[l.b.node].push(l.a.node);
    }
    // Distance from the nearest host (multi-source breadth-first search).
    let mut dist = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    for (i, node) in spec.nodes.iter().enumerate() {
        if matches!(node.kind, NodeKind::Host(_)) {
            dist[i] = 0;
            queue.push_back(i);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u] {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    let top_dist = dist.iter().copied().filter(|&d| d != usize::MAX).max().unwrap_or(0);
    let is_top = |i: usize| top_dist > 0 && dist[i] == top_dist;
    // The groups: connected components without the top layer, each from its lowest node.
    let mut group = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for start in 0..n {
        if group[start] != usize::MAX || is_top(start) {
            continue;
        }
        let g = groups.len();
        let mut members = vec![start];
        group[start] = g;
        let mut at = 0;
        while at < members.len() {
            let u = members[at];
            at += 1;
            for &v in &adj[u] {
                if group[v] == usize::MAX && !is_top(v) {
                    group[v] = g;
                    members.push(v);
                }
            }
        }
        groups.push(members);
    }
    let weight = |i: usize| spec.port_count(i).max(1);
    let mut load = vec![0usize; parts];
    let mut part_of = vec![0u32; n];
    let lightest = |load: &[usize]| (0..load.len()).min_by_key(|&p| (load[p], p)).unwrap_or(0);
    let mut order: Vec<(usize, usize)> =
        groups.iter().enumerate().map(|(g, m)| (m.iter().map(|&i| weight(i)).sum(), g)).collect();
    order.sort_by_key(|&(w, g)| (std::cmp::Reverse(w), groups[g][0]));
    for (w, g) in order {
        let p = lightest(&load);
        load[p] += w;
        for &i in &groups[g] {
            part_of[i] = p as u32;
        }
    }
    for i in (0..n).filter(|&i| is_top(i)) {
        let p = lightest(&load);
        load[p] += weight(i);
        part_of[i] = p as u32;
    }
    let lookahead = spec
        .links
        .iter()
        .filter(|l| part_of[l.a.node] != part_of[l.b.node])
        .map(|l| {
            let rate = LinkRate::new(l.rate_bps).with_framing(spec.wire.overhead_bytes, spec.wire.serialization);
            l.delay_ps + rate.frame_time(1)
        })
        .min();
    Partition { part_of, parts, lookahead }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NS, US};
    use crate::topology::{hpcc_fat_tree, leaf_spine, FabricDefaults, LeafSpine};

    #[test]
    fn a_fat_tree_is_cut_by_pod_with_the_cores_spread() {
        // Hosts 0..320, ToRs 320..340, aggregation 340..360 (pods of 4 + 4), cores 360..376.
        let f = hpcc_fat_tree(&FabricDefaults::lossless(3, 200_000));
        let core = |i: usize| i >= 360;
        for parts in 2..=5 {
            let p = partition(&f.spec, parts);
            assert_eq!(p.parts, parts);
            // Every pod whole: each link below the cores joins two nodes of one part.
            for l in f.spec.links.iter().filter(|l| !core(l.a.node) && !core(l.b.node)) {
                assert_eq!(p.part_of[l.a.node], p.part_of[l.b.node], "{parts} parts: {} {}", l.a.node, l.b.node);
            }
            let ports = |q: u32| {
                (0..f.spec.nodes.len()).filter(|&i| p.part_of[i] == q).map(|i| f.spec.port_count(i)).sum::<usize>()
            };
            let loads: Vec<usize> = (0..parts as u32).map(ports).collect();
            // Pods stay whole, so the parts differ by at most a pod's ports (the cores, 5 ports
            // each, go to the lighter parts).
            let pod: usize = (0..64).chain(320..324).chain(340..344).map(|i| f.spec.port_count(i)).sum();
            let (lo, hi) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
            assert!(hi - lo <= pod, "{parts} parts: {loads:?}, a pod {pod}");
            assert!(*lo > 0, "{loads:?}");
        }
        // The lookahead: the 1 µs cable and the serialization of one byte with its framing at
        // 400 Gb/s (the pod-to-core links are the ones cut).
        let p = partition(&f.spec, 2);
        let one = LinkRate::new(400_000_000_000).with_framing(f.spec.wire.overhead_bytes, f.spec.wire.serialization);
        assert_eq!(p.lookahead, Some(US + one.frame_time(1)));
        // The same cut every time; one part, no crossing link.
        assert_eq!(partition(&f.spec, 2), p);
        let whole = partition(&f.spec, 1);
        assert!(whole.part_of.iter().all(|&q| q == 0) && whole.lookahead.is_none());
    }

    #[test]
    fn a_leaf_spine_keeps_each_leaf_with_its_hosts() {
        let shape = LeafSpine {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 3,
            host_rate_bps: 100_000_000_000,
            fabric_rate_bps: 100_000_000_000,
            host_delay_ps: 100 * NS,
            fabric_delay_ps: 300 * NS,
        };
        let f = leaf_spine(&shape, &FabricDefaults::lossless(3, 200_000));
        let host = |i: usize| matches!(f.spec.nodes[i].kind, NodeKind::Host(_));
        for parts in 2..=4 {
            let p = partition(&f.spec, parts);
            let used: std::collections::BTreeSet<u32> = p.part_of.iter().copied().collect();
            assert_eq!(used.len(), parts, "every part has nodes");
            for l in f.spec.links.iter().filter(|l| host(l.a.node) || host(l.b.node)) {
                assert_eq!(p.part_of[l.a.node], p.part_of[l.b.node]);
            }
            assert!(p.lookahead.is_some_and(|l| l > 300 * NS));
        }
        // More parts than nodes: one node each at most.
        assert_eq!(partition(&f.spec, 1000).parts, f.spec.nodes.len());
    }
}
