//! The all-pairs computation the grouped tables replaced, kept for the tests that prove them
//! equal: one breadth-first search per destination, and every node's next-hop set towards it.

use super::{port_address, Topology, NONE};

/// Every node's next hops towards every destination: `(address, per node its set)`, the
/// destinations in the order of [`super::Routes`] (the hosts, then the addressed ports).
pub fn all_pairs(topo: &Topology<'_>) -> Vec<(u32, Vec<Vec<u32>>)> {
    let n = topo.adjacency.len();
    let hosts: Vec<usize> = (0..n).filter(|&i| topo.is_host[i]).collect();
    let mut dests: Vec<(usize, u32)> = hosts.iter().map(|&h| (h, NONE)).collect();
    for &h in &hosts {
        if topo.ports_addressed(h) {
            let last = topo.adjacency[h].iter().map(|&(g, _)| g).max().expect("two ports or more");
            dests.extend((topo.first_port[h]..=last).map(|g| (h, g)));
        }
    }
    let by_id: Vec<Vec<(u32, u32)>> = if topo.hpcc_order { super::build::by_id(topo) } else { Vec::new() };
    let adjacency = if topo.hpcc_order { &by_id[..] } else { topo.adjacency };
    let mut out = Vec::new();
    for &(dst, dst_port) in &dests {
        let mut dist = vec![u32::MAX; n];
        let mut rank = vec![u32::MAX; n];
        dist[dst] = 0;
        let mut queue = std::collections::VecDeque::new();
        if dst_port == NONE {
            queue.push_back(dst);
        } else if let Some(&(_, v)) = topo.adjacency[dst].iter().find(|&&(g, _)| g == dst_port) {
            dist[v as usize] = 1;
            queue.push_back(v as usize);
        }
        let mut popped = 0;
        while let Some(u) = queue.pop_front() {
            if u != dst && topo.is_host[u] {
                continue;
            }
            rank[u] = popped;
            popped += 1;
            for &(_, v) in &adjacency[u] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u] + 1;
                    queue.push_back(v as usize);
                }
            }
        }
        let rows = (0..n)
            .map(|u| {
                if u == dst || dist[u] == u32::MAX {
                    return Vec::new();
                }
                let mut ranked: Vec<(u32, u32)> = Vec::new();
                for &(port, v) in &topo.adjacency[u] {
                    let v = v as usize;
                    let transit_ok = if v == dst {
                        dst_port == NONE || topo.peer_port[port as usize] == dst_port
                    } else {
                        !topo.is_host[v]
                    };
                    if transit_ok && dist[v] != u32::MAX && dist[v] + 1 == dist[u] {
                        ranked.push((if topo.hpcc_order { rank[v] } else { 0 }, port));
                    }
                }
                if topo.hpcc_order {
                    ranked.sort_unstable();
                }
                ranked.into_iter().map(|(_, p)| p).collect()
            })
            .collect();
        let address =
            if dst_port == NONE { dst as u32 } else { port_address(dst as u32, dst_port - topo.first_port[dst]) };
        out.push((address, rows));
    }
    out
}
