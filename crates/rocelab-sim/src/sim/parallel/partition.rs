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
use crate::traffic::Traffic;
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

/// Cut `spec` into `parts` parts (see the module documentation), balancing their ports.
/// Deterministic: a function of the fabric and `parts` alone. [`partition_by_work`] with no
/// traffic.
pub fn partition(spec: &NetworkSpec, parts: usize) -> Partition {
    partition_by_work(spec, parts, &[])
}

/// What one flow brings a run, for [`partition_by_work`]: its two ends and the bytes it
/// carries before the run's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWork {
    /// Sending host.
    pub src: usize,
    /// Receiving host.
    pub dst: usize,
    /// Bytes it carries before the end of the run.
    pub bytes: u64,
}

/// What the flows of `traffic` carry up to `end` ([`FlowWork`]): a flow's size, or what it can
/// send before the end at its pacing rate or its host's link rate, whichever is less. Flows
/// whose ends are not nodes of `spec` are left out (the build refuses them); the perftest
/// tests, which have no flows here, bring nothing.
pub fn flow_work(spec: &NetworkSpec, traffic: &Traffic, end: Time) -> Vec<FlowWork> {
    let mut rate = vec![0u64; spec.nodes.len()];
    for l in &spec.links {
        for node in [l.a.node, l.b.node] {
            if let Some(r) = rate.get_mut(node) {
                *r = (*r).max(l.rate_bps);
            }
        }
    }
    let mut work = Vec::with_capacity(traffic.flows.len());
    for f in &traffic.flows {
        let (Some(&src_rate), true) = (rate.get(f.src), f.dst < rate.len()) else { continue };
        let stop = f.stop_ps.map_or(end, |s| s.min(end));
        let span = stop.saturating_sub(f.start_ps) as u128;
        let bps = f.rate_bps.map_or(src_rate, |r| r.min(src_rate)) as u128;
        let can_send = u64::try_from(span * bps / (8 * crate::time::SECOND as u128)).unwrap_or(u64::MAX);
        let bytes = f.size_bytes.map_or(can_send, |size| size.min(can_send));
        if bytes > 0 {
            work.push(FlowWork { src: f.src, dst: f.dst, bytes });
        }
    }
    work
}

/// Cut `spec` into `parts` parts (see the module documentation), balancing the work the
/// `flows` bring each (none: their ports). Deterministic: a function of the fabric, `parts`
/// and `flows` alone; the results of a run do not depend on the cut, only its wall time does
/// (the slowest part sets each window's end: on the k = 32 fat tree with web search the part
/// with 2.3 % more events than the other ran 3-8 % longer).
///
/// Nodes are layered by their distance from the nearest host; the top layer (the switches
/// farthest from hosts) is set apart, and what remains falls into connected groups (pods,
/// leaves with their hosts; single hosts under one switch). A frame costs events at every node
/// it crosses: a flow's bytes are counted at the group of each of its ends (which carry it
/// between the host and the top layer, `d` nodes each, `d` the top layer's distance from the
/// hosts), and those of a flow between two groups at the top layer too, spread evenly over
/// its switches by ECMP and weighted `1 / d` (one node of the path there). Groups go,
/// heaviest first (by work, then ports, then lowest node), to the part with the least work so
/// far (then the fewest ports, then the lowest part): the longest-processing-time rule
/// (Graham, SIAM J. Appl. Math. 1969), within a group's work of the best balance; then the top
/// layer's switches likewise, one by one.
pub fn partition_by_work(spec: &NetworkSpec, parts: usize, flows: &[FlowWork]) -> Partition {
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
    // Each group's work, and what crosses the top layer (u128: sums of u64 byte counts).
    let (mut group_work, mut crossing) = (vec![0u128; groups.len()], 0u128);
    for f in flows.iter().filter(|f| f.src < n && f.dst < n) {
        let (a, b) = (group[f.src], group[f.dst]);
        for g in [a, b].into_iter().filter(|&g| g != usize::MAX) {
            group_work[g] += f.bytes as u128;
        }
        if a != b {
            crossing += f.bytes as u128;
        }
    }
    let tops = (0..n).filter(|&i| is_top(i)).count() as u128;
    let top_work = crossing / (tops.max(1) * top_dist.max(1) as u128);
    let ports = |i: usize| spec.port_count(i).max(1) as u128;
    // A part's load: its work, then its ports.
    let mut load = vec![(0u128, 0u128); parts];
    let mut part_of = vec![0u32; n];
    let lightest = |load: &[(u128, u128)]| (0..load.len()).min_by_key(|&p| (load[p], p)).unwrap_or(0);
    let mut order: Vec<((u128, u128), usize)> =
        groups.iter().enumerate().map(|(g, m)| ((group_work[g], m.iter().map(|&i| ports(i)).sum()), g)).collect();
    order.sort_by_key(|&(w, g)| (std::cmp::Reverse(w), groups[g][0]));
    for ((w, q), g) in order {
        let p = lightest(&load);
        load[p] = (load[p].0 + w, load[p].1 + q);
        for &i in &groups[g] {
            part_of[i] = p as u32;
        }
    }
    for i in (0..n).filter(|&i| is_top(i)) {
        let p = lightest(&load);
        load[p] = (load[p].0 + top_work, load[p].1 + ports(i));
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

    #[test]
    fn a_flow_brings_its_size_or_what_it_can_send_before_the_end() {
        use crate::traffic::{FlowClass, FlowSpec};
        let f = hpcc_fat_tree(&FabricDefaults::lossless(3, 200_000));
        let (a, b, c) = (f.hosts[0], f.hosts[100], f.hosts[200]);
        let class = FlowClass::roce(3, 26);
        let mut t = Traffic::new();
        // 1 MB, well within 100 µs at 100G (1.25 MB).
        t.push(FlowSpec::sized(a, b, class, 1_000_000));
        // An unlimited flow paced at 10G from 60 µs: 40 µs of it, 50 kB.
        let mut paced = FlowSpec::cbr(b, c, class, 10_000_000_000);
        paced.start_ps = 60 * US;
        t.push(paced);
        // 100 MB at line rate from 90 µs: what 10 µs at 100G carry, 125 kB.
        let mut late = FlowSpec::sized(c, a, class, 100_000_000);
        late.start_ps = 90 * US;
        t.push(late);
        // Starts after the end, and ends at a node that does not exist: nothing.
        let mut after = FlowSpec::sized(a, c, class, 1_000);
        after.start_ps = 200 * US;
        t.push(after);
        t.push(FlowSpec::sized(a, f.spec.nodes.len(), class, 1_000));
        let work = flow_work(&f.spec, &t, 100 * US);
        let expected = [(a, b, 1_000_000), (b, c, 50_000), (c, a, 125_000)];
        assert_eq!(work, expected.map(|(src, dst, bytes)| FlowWork { src, dst, bytes }));
    }

    /// Pods of 64 hosts in the HPCC fat tree (hosts 0..64 are pod 0's, ToRs 320..324 and
    /// aggregation switches 340..344), cores 360..376.
    fn pod(i: usize) -> usize {
        match i {
            0..320 => i / 64,
            320..340 => (i - 320) / 4,
            _ => (i - 340) / 4,
        }
    }

    #[test]
    fn the_parts_balance_the_work_of_the_pods() {
        let f = hpcc_fat_tree(&FabricDefaults::lossless(3, 200_000));
        // Flows within each pod, from each host to its neighbour: pod 0 carries as much as the
        // four others together, pod 1 half of that.
        let per_host = [400, 200, 100, 70, 30];
        let flows: Vec<FlowWork> = (0..320).map(|h| FlowWork { src: h, dst: h ^ 1, bytes: per_host[h / 64] }).collect();
        let by_ports = partition(&f.spec, 2);
        let cut = partition_by_work(&f.spec, 2, &flows);
        assert_ne!(cut.part_of, by_ports.part_of, "the work moves pods");
        assert_eq!(cut.lookahead, by_ports.lookahead);
        for i in 0..360 {
            assert_eq!(cut.part_of[i], cut.part_of[pod(i) * 64], "node {i} with its pod");
        }
        // Pod 0 alone in one part, the four others in the other: 400 × 64 each.
        assert!((64..320).all(|h| cut.part_of[h] != cut.part_of[0]));
        // Nothing crosses the top layer, so its switches weigh nothing and go by ports: all 16
        // (80 ports) to pod 0's part (176 ports against 704).
        assert!((360..376).all(|i| cut.part_of[i] == cut.part_of[0]));
        // Three parts: pod 0, pod 1, the three others (400, 200 and 200 a host).
        let three = partition_by_work(&f.spec, 3, &flows);
        let host_work = |q: u32| (0..320).filter(|&h| three.part_of[h] == q).map(|h| per_host[h / 64]).sum::<u64>();
        let mut loads: Vec<u64> = (0..3).map(host_work).collect();
        loads.sort_unstable();
        assert_eq!(loads, [200 * 64, 200 * 64, 400 * 64]);
        // No work: the cut by ports.
        assert_eq!(partition_by_work(&f.spec, 2, &[FlowWork { src: 0, dst: 1, bytes: 0 }]), by_ports);
    }

    #[test]
    fn what_crosses_the_top_layer_weighs_on_its_switches() {
        // Every host to a host of the next pod: five equal pods, three in one part and two in
        // the other. Each pod counts 128 flows' bytes, each of the 16 cores 320 / (16 × 3) of
        // them (a third of a path's nodes on either side): all 16 together weigh less than a pod,
        // so all go to the part of two pods.
        let f = hpcc_fat_tree(&FabricDefaults::lossless(3, 200_000));
        let flows: Vec<FlowWork> = (0..320).map(|h| FlowWork { src: h, dst: (h + 64) % 320, bytes: 1_000 }).collect();
        let cut = partition_by_work(&f.spec, 2, &flows);
        let pods = |q: u32| (0..5).filter(|&p| cut.part_of[p * 64] == q).count();
        let (big, small) = if pods(0) == 3 { (0, 1) } else { (1, 0) };
        assert_eq!((pods(big), pods(small)), (3, 2));
        assert!((360..376).all(|i| cut.part_of[i] == small), "{:?}", &cut.part_of[360..]);
    }
}
