//! The tables' lookups on small wirings, and the grouped tables against the all-pairs
//! computation.

use super::*;
use table::{ONE_PORT, WIDE, WIDE_OVERFLOW};

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
    let peer = |p: u32| -> u32 { adj.iter().flat_map(|ps| ps.iter()).find(|(q, _)| *q == p).map(|&(_, v)| v).unwrap() };
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
        let small = build::compute(
            &Topology::nodes(&adj, &is_host),
            EntryLimits { wide_in_entry: limit, ..EntryLimits::FULL },
            1,
        );
        assert_eq!(small.overflow.len(), if limit == 0 { 2 } else { 1 });
        for node in 0..4 {
            for dst in [0, 1] {
                assert_eq!(small.next_hops(node, dst), r.next_hops(node, dst), "node {node} to {dst}, limit {limit}");
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

/// Every lookup of `r` — each node towards each destination's address, and towards addresses
/// that are none — equals the all-pairs computation's.
fn assert_as_all_pairs(r: &Routes, topo: &Topology<'_>, what: &str) {
    let n = topo.adjacency.len() as u32;
    let all = allpairs::all_pairs(topo);
    for (address, rows) in &all {
        let address = *address;
        for (u, hops) in rows.iter().enumerate() {
            assert_eq!(r.next_hops(u as u32, address), &hops[..], "{what}: node {u} towards {address:#x}");
        }
    }
    for u in 0..n {
        for not_a_destination in [n, port_address(0, 200), port_address(n - 1, 0) + 1] {
            if !all.iter().any(|(a, _)| *a == not_a_destination) {
                assert!(r.next_hops(u, not_a_destination).is_empty(), "{what}: node {u}");
            }
        }
    }
}

/// A random wiring: switches and hosts in a random order, each host on one to three links
/// (parallel ones too), switches linked at random, now and then two hosts linked directly.
fn random_wiring(rng: &mut crate::rng::Rng) -> Wiring {
    let n = 2 + rng.below(12) as usize;
    let is_host: Vec<bool> = (0..n).map(|_| rng.below(5) < 3).collect();
    let switches: Vec<usize> = (0..n).filter(|&i| !is_host[i]).collect();
    let mut links: Vec<(usize, usize)> = Vec::new();
    for (i, &s) in switches.iter().enumerate() {
        for &t in &switches[i + 1..] {
            for _ in 0..(rng.below(5) / 2) {
                links.push((s, t));
            }
        }
    }
    for h in (0..n).filter(|&i| is_host[i]) {
        for _ in 0..rng.below(4) {
            if !switches.is_empty() && rng.below(8) > 0 {
                links.push((h, switches[rng.below(switches.len() as u64) as usize]));
            } else {
                let other = rng.below(n as u64) as usize;
                if other != h && is_host[other] {
                    links.push((h, other));
                }
            }
        }
    }
    wire(&is_host, &links)
}

/// The wiring of `links` (node pairs) among nodes of which `is_host` says which are hosts: each
/// node's ports numbered in the order of its links, nodes' ports one after the other.
fn wire(is_host: &[bool], links: &[(usize, usize)]) -> Wiring {
    let n = is_host.len();
    let mut ends: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (l, &(a, b)) in links.iter().enumerate() {
        ends[a].push((l, b));
        ends[b].push((l, a));
    }
    let mut first_port = Vec::with_capacity(n);
    let mut next = 0u32;
    for e in &ends {
        first_port.push(next);
        next += e.len() as u32;
    }
    // Each link's two ports.
    let mut port_of = vec![[u32::MAX; 2]; links.len()];
    let mut adj = vec![Vec::new(); n];
    for (u, e) in ends.iter().enumerate() {
        for (i, &(l, v)) in e.iter().enumerate() {
            let g = first_port[u] + i as u32;
            let end = if links[l].0 == u && port_of[l][0] == u32::MAX { 0 } else { 1 };
            port_of[l][end] = g;
            adj[u].push((g, v as u32));
        }
    }
    let mut peer_port = vec![0u32; next as usize];
    for [a, b] in port_of {
        peer_port[a as usize] = b;
        peer_port[b as usize] = a;
    }
    Wiring { adj, is_host: is_host.to_vec(), peer_port, first_port }
}

#[test]
fn grouped_tables_equal_the_all_pairs_computation_on_random_wirings() {
    let mut rng = crate::rng::Rng::new(42);
    let mut groups_fewer_than_destinations = 0;
    for case in 0..300 {
        let w = random_wiring(&mut rng);
        let addressed: Vec<bool> = (0..w.adj.len()).map(|_| rng.below(2) == 0).collect();
        for hpcc_order in [false, true] {
            let topo = Topology { hpcc_order, ..w.topology(&addressed) };
            let r = Routes::compute_on(&topo, 1);
            assert_as_all_pairs(&r, &topo, &format!("case {case}, hpcc order {hpcc_order}"));
            // The last hop read from `last_first` is the one the search of `last` finds.
            for node in 0..topo.adjacency.len() as u32 {
                for k in 0..r.n_dests {
                    assert_eq!(r.last_hops(node, k), r.last_hops_search(node, k), "case {case}, node {node}, dest {k}");
                }
            }
            // Any number of threads builds the same tables.
            for threads in [2, 3, 7] {
                let t = Routes::compute_on(&topo, threads);
                assert_eq!((&t.table, &t.host_table, &t.last, &t.ports), (&r.table, &r.host_table, &r.last, &r.ports));
            }
            if r.groups() < r.n_dests {
                groups_fewer_than_destinations += 1;
            }
        }
    }
    assert!(groups_fewer_than_destinations > 100, "destinations share groups: {groups_fewer_than_destinations}");
}

/// A k-ary fat tree's wiring (hosts first, then edge, aggregation and core switches, as the
/// generators number them), with `extra` more links from host 0 to the next edge switches.
fn fat_tree(k: usize, extra: usize) -> Wiring {
    let (half, pods) = (k / 2, k);
    let hosts = pods * half * half;
    let edge = |p: usize, e: usize| hosts + p * half + e;
    let agg = |p: usize, a: usize| hosts + pods * half + p * half + a;
    let core = |i: usize| hosts + 2 * pods * half + i;
    let n = hosts + 2 * pods * half + half * half;
    let mut links = Vec::new();
    for p in 0..pods {
        for e in 0..half {
            for h in 0..half {
                links.push(((p * half + e) * half + h, edge(p, e)));
            }
            for a in 0..half {
                links.push((edge(p, e), agg(p, a)));
            }
        }
        for a in 0..half {
            for c in 0..half {
                links.push((agg(p, a), core(a * half + c)));
            }
        }
    }
    for x in 0..extra {
        links.push((0, edge(0, 1 + x)));
    }
    let is_host: Vec<bool> = (0..n).map(|i| i < hosts).collect();
    wire(&is_host, &links)
}

#[test]
fn grouped_tables_equal_the_all_pairs_computation_on_a_fat_tree_with_an_addressed_host() {
    // k = 4: 16 hosts under 8 edge switches; host 0 also wired to edge 1 of its pod, its three
    // ports addressed one by one.
    let w = fat_tree(4, 1);
    let mut addressed = vec![false; w.adj.len()];
    addressed[0] = true;
    for hpcc_order in [false, true] {
        let topo = Topology { hpcc_order, ..w.topology(&addressed) };
        let r = Routes::compute(&topo);
        assert_as_all_pairs(&r, &topo, &format!("hpcc order {hpcc_order}"));
        // 8 edge switches' groups; host 0 as a whole (wired to two) is one more.
        assert_eq!(r.groups(), 9);
        assert_eq!(r.n_dests, 16 + 2);
        assert_eq!((r.n_rows, r.n_multi), (20, 1));
    }
    // k = 8 (128 hosts, 80 switches), no addressed port: one group per edge switch, and the
    // tables a fraction of the all-pairs table.
    let w = fat_tree(8, 0);
    let topo = w.topology(&[]);
    let r = Routes::compute(&topo);
    assert_as_all_pairs(&r, &topo, "k = 8");
    assert_eq!(r.groups(), 32);
    let all_pairs_bytes = (w.adj.len() * 128 * 4) as u64;
    assert!(r.bytes() * 4 < all_pairs_bytes, "{} against {all_pairs_bytes}", r.bytes());
    let (estimate, groups) = Routes::estimate(&topo);
    assert_eq!(groups, 32);
    assert!(estimate >= r.bytes() as u128, "the estimate bounds the tables: {estimate} < {}", r.bytes());
}

/// The entries of `r` that hold their one port themselves.
fn one_port_entries(r: &Routes) -> usize {
    let last = r.last.iter().map(|&(_, e)| e);
    r.table.iter().chain(&r.host_table).copied().chain(last).filter(|&e| e & WIDE == ONE_PORT).count()
}

#[test]
fn a_one_port_set_held_in_its_entry_is_the_set_found_through_ports() {
    // A k = 4 fat tree whose host 0 has its three ports addressed, then random wirings (hosts
    // with several ports, some addressed one by one, parallel links).
    let mut rng = crate::rng::Rng::new(9);
    let mut cases = Vec::new();
    let w = fat_tree(4, 2);
    let mut addressed = vec![false; w.adj.len()];
    addressed[0] = true;
    cases.push((w, addressed));
    for _ in 0..120 {
        let w = random_wiring(&mut rng);
        let addressed: Vec<bool> = (0..w.adj.len()).map(|_| rng.below(2) == 0).collect();
        cases.push((w, addressed));
    }
    let mut held = 0;
    for (case, (w, addressed)) in cases.iter().enumerate() {
        let topo = w.topology(addressed);
        let r = Routes::compute_on(&topo, 1);
        let addresses: Vec<u32> = allpairs::all_pairs(&topo).iter().map(|(a, _)| *a).collect();
        held += one_port_entries(&r);
        // No one-port set in an entry; every one in `wide`; every one through the overflow map;
        // the ports below 3 in their entries, the rest in `wide`.
        let limits = [(WIDE_OVERFLOW, 0), (0, 0), (WIDE_OVERFLOW, 3)];
        for (wide_in_entry, one_port_below) in limits {
            let t = build::compute(&topo, EntryLimits { wide_in_entry, one_port_below }, 1);
            if one_port_below == 0 {
                assert_eq!(one_port_entries(&t), 0, "case {case}");
                assert!(t.ports.len() >= r.ports.len() + usize::from(one_port_entries(&r) > 0), "case {case}");
            }
            for node in 0..topo.adjacency.len() as u32 {
                for &a in &addresses {
                    let (held, through) = (r.next_hops(node, a), t.next_hops(node, a));
                    let what = format!("case {case}, node {node} to {a:#x}, limits {wide_in_entry} {one_port_below}");
                    assert_eq!(held, through, "{what}");
                    // The port a frame takes is the one the set's hash picks, with or without
                    // a set to pick from.
                    let pick = |n: usize| (node as usize + a as usize) % n;
                    let expected = (!through.is_empty()).then(|| through[pick(through.len())]);
                    assert_eq!(held.choose(pick), expected, "{what}");
                }
            }
        }
    }
    assert!(held > 1000, "one-port entries: {held}");
}
