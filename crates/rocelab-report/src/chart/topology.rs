//! A layered drawing of the topology: hosts at the bottom, each switch one layer above the
//! nearest host it reaches (leaf, spine, core), nodes of a layer ordered by the barycentre of
//! their neighbours to reduce crossings (Sugiyama, Tagawa & Toda, 1981). Links are coloured
//! and sized by speed, with a legend, and labelled where labels do not collide. Past
//! [`GROUP_HOSTS_OVER`] hosts, the single-homed hosts of a switch are drawn as one box ("16
//! hosts", "16 × 25G"), which keeps fat trees of hundreds of hosts readable.

use super::axis::layout_labels;
use super::{colour, esc, n, svg_open, text, text_width, title, FONT_PX};
use rocelab_sim::Results;
use std::collections::VecDeque;
use std::fmt::Write;

/// Hosts are grouped per switch when there are more than this many.
pub const GROUP_HOSTS_OVER: usize = 40;
const NODE_FONT: f64 = 11.0;
const MIN_SPACING: f64 = 18.0;

/// A topology to draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    pub nodes: Vec<TopoNode>,
    pub links: Vec<TopoLink>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TopoNode {
    pub name: String,
    pub switch: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopoLink {
    pub a: usize,
    pub b: usize,
    pub rate_bps: u64,
}

impl Topology {
    /// The topology a run's results describe: nodes from its ports, switches from its switch
    /// list, one link per port pair.
    pub fn from_results(r: &Results) -> Self {
        let count = r.ports.iter().map(|p| p.node.max(p.peer_node) + 1).max().unwrap_or(0);
        let mut nodes: Vec<TopoNode> =
            (0..count).map(|i| TopoNode { name: format!("node{i}"), switch: false }).collect();
        for p in &r.ports {
            nodes[p.node].name = p.node_name.clone();
        }
        for s in &r.switches {
            if let Some(node) = nodes.get_mut(s.node) {
                node.switch = true;
            }
        }
        let links = r
            .ports
            .iter()
            .filter(|p| p.index < p.peer_index)
            .map(|p| TopoLink { a: p.node, b: p.peer_node, rate_bps: p.rate_bps })
            .collect();
        Topology { nodes, links }
    }
}

/// A node as drawn: a topology node or a group of hosts.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    /// Topology nodes it stands for (one, or the hosts of a group).
    pub members: Vec<usize>,
    pub label: String,
    pub switch: bool,
    pub layer: usize,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// A drawn link between two placed nodes, standing for `count` links of `rate_bps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub a: usize,
    pub b: usize,
    pub rate_bps: u64,
    pub count: usize,
}

/// Where everything goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<Placed>,
    pub edges: Vec<Edge>,
    /// Placed node indices per layer, left to right; layer 0 (hosts) is drawn at the bottom.
    pub layers: Vec<Vec<usize>>,
}

/// Switch layers: hosts 0, switches their hop distance from the nearest host (unreachable ones
/// above the rest).
fn layers_of(t: &Topology, adj: &[Vec<usize>]) -> Vec<usize> {
    let mut layer = vec![usize::MAX; t.nodes.len()];
    let mut q = VecDeque::new();
    for (i, nd) in t.nodes.iter().enumerate() {
        if !nd.switch {
            layer[i] = 0;
            q.push_back(i);
        }
    }
    while let Some(u) = q.pop_front() {
        for &v in &adj[u] {
            if layer[v] == usize::MAX && t.nodes[v].switch {
                layer[v] = layer[u] + 1;
                q.push_back(v);
            }
        }
    }
    let top = layer.iter().copied().filter(|l| *l != usize::MAX).max().unwrap_or(0);
    layer.iter().map(|l| if *l == usize::MAX { top + 1 } else { *l }).collect()
}

fn name_range(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [first, .., last] => format!("{first} … {last}"),
    }
}

/// Computes the layered layout of `t`.
pub fn layout(t: &Topology) -> Layout {
    let mut adj = vec![Vec::new(); t.nodes.len()];
    for l in &t.links {
        if l.a < t.nodes.len() && l.b < t.nodes.len() {
            adj[l.a].push(l.b);
            adj[l.b].push(l.a);
        }
    }
    let layer = layers_of(t, &adj);
    let hosts = t.nodes.iter().filter(|x| !x.switch).count();
    // Placed nodes: groups of single-homed hosts per switch when there are many hosts.
    let mut placed_of = vec![usize::MAX; t.nodes.len()];
    let mut nodes: Vec<Placed> = Vec::new();
    let new = |members: Vec<usize>, label: String, switch: bool, layer: usize| Placed {
        members,
        label,
        switch,
        layer,
        x: 0.0,
        y: 0.0,
        w: 0.0,
        h: 0.0,
    };
    if hosts > GROUP_HOSTS_OVER {
        for (s, nd) in t.nodes.iter().enumerate().filter(|(_, nd)| nd.switch) {
            let _ = nd;
            let members: Vec<usize> = adj[s]
                .iter()
                .copied()
                .filter(|&h| !t.nodes[h].switch && adj[h].len() == 1 && placed_of[h] == usize::MAX)
                .collect();
            if members.len() < 2 {
                continue;
            }
            let names: Vec<&str> = members.iter().map(|m| t.nodes[*m].name.as_str()).collect();
            let label = format!("{} hosts: {}", members.len(), name_range(&names));
            for m in &members {
                placed_of[*m] = nodes.len();
            }
            nodes.push(new(members, label, false, 0));
        }
    }
    for (i, nd) in t.nodes.iter().enumerate() {
        if placed_of[i] == usize::MAX {
            placed_of[i] = nodes.len();
            nodes.push(new(vec![i], nd.name.clone(), nd.switch, layer[i]));
        }
    }
    // Edges between placed nodes, merged.
    let mut edges: Vec<Edge> = Vec::new();
    for l in &t.links {
        let (Some(&a), Some(&b)) = (placed_of.get(l.a), placed_of.get(l.b)) else { continue };
        match edges.iter_mut().find(|e| ((e.a, e.b) == (a, b) || (e.a, e.b) == (b, a)) && e.rate_bps == l.rate_bps) {
            Some(e) => e.count += 1,
            None => edges.push(Edge { a, b, rate_bps: l.rate_bps, count: 1 }),
        }
    }
    let nlayers = nodes.iter().map(|p| p.layer).max().unwrap_or(0) + 1;
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); nlayers];
    for (i, p) in nodes.iter().enumerate() {
        layers[p.layer].push(i);
    }
    let mut padj = vec![Vec::new(); nodes.len()];
    for e in &edges {
        padj[e.a].push(e.b);
        padj[e.b].push(e.a);
    }
    // Barycentre ordering, sweeping down then up a few times.
    let mut pos = vec![0.0; nodes.len()];
    let reindex = |layers: &Vec<Vec<usize>>, pos: &mut Vec<f64>| {
        for l in layers {
            for (k, &i) in l.iter().enumerate() {
                pos[i] = (k as f64 + 0.5) / l.len() as f64;
            }
        }
    };
    reindex(&layers, &mut pos);
    for _ in 0..4 {
        for (li, neighbour_layer) in
            (0..nlayers).rev().skip(1).map(|l| (l, l + 1)).chain((1..nlayers).map(|l| (l, l - 1)))
        {
            let bary = |i: usize| {
                let ns: Vec<f64> =
                    padj[i].iter().filter(|j| nodes[**j].layer == neighbour_layer).map(|j| pos[*j]).collect();
                if ns.is_empty() {
                    pos[i]
                } else {
                    ns.iter().sum::<f64>() / ns.len() as f64
                }
            };
            let mut keyed: Vec<(f64, f64, usize)> = layers[li].iter().map(|&i| (bary(i), pos[i], i)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
            layers[li] = keyed.into_iter().map(|k| k.2).collect();
            reindex(&layers, &mut pos);
        }
    }
    // Sizes: switch boxes fit their name; hosts are small; groups fit a short label.
    for p in nodes.iter_mut() {
        if p.switch {
            p.w = (text_width(&p.label, NODE_FONT) + 14.0).clamp(30.0, 150.0);
            p.h = 24.0;
        } else if p.members.len() > 1 {
            p.w = (text_width(&format!("{} hosts", p.members.len()), NODE_FONT) + 14.0).max(56.0);
            p.h = 24.0;
        } else {
            p.w = 12.0;
            p.h = 12.0;
        }
    }
    // Width: every layer's nodes side by side with a gap; names that do not fit are rotated.
    let need = |l: &Vec<usize>| l.iter().map(|&i| nodes[i].w.max(MIN_SPACING) + 10.0).sum::<f64>();
    let width = layers.iter().map(need).fold(900.0, f64::max) + 80.0;
    let mut y = 60.0;
    for li in (0..nlayers).rev() {
        let l = &layers[li];
        let slot = (width - 80.0) / l.len().max(1) as f64;
        let xs: Vec<f64> = (0..l.len()).map(|k| 40.0 + (k as f64 + 0.5) * slot).collect();
        // Switch names sit inside their boxes when the boxes fit, else shrink to the slot.
        for (k, &i) in l.iter().enumerate() {
            nodes[i].x = xs[k];
            nodes[i].y = y;
            if nodes[i].switch && nodes[i].w > slot - 6.0 {
                nodes[i].w = (slot - 6.0).max(10.0);
            }
        }
        let labels_below: Vec<String> = l.iter().map(|&i| below_label(&nodes[i])).collect();
        let extent = if labels_below.iter().all(String::is_empty) {
            0.0
        } else {
            layout_labels(&labels_below, &xs, NODE_FONT, 110.0).extent
        };
        y += 24.0 + extent + 70.0;
    }
    let height = y - 40.0;
    Layout { width, height, nodes, edges, layers }
}

/// The label drawn under a node (empty when the name is drawn inside its box).
fn below_label(p: &Placed) -> String {
    if p.switch && text_width(&p.label, NODE_FONT) + 10.0 <= p.w {
        String::new()
    } else if p.members.len() > 1 {
        p.label.split_once(": ").map(|(_, names)| names.to_string()).unwrap_or_default()
    } else {
        p.label.clone()
    }
}

/// A link speed as written in the fabric: 25G, 100G, 400M.
pub fn speed_label(bps: u64) -> String {
    for (d, u) in [(1_000_000_000_000u64, "T"), (1_000_000_000, "G"), (1_000_000, "M")] {
        if bps >= d {
            let v = bps as f64 / d as f64;
            return if v.fract() == 0.0 { format!("{v}{u}") } else { format!("{v:.1}{u}") };
        }
    }
    format!("{bps}")
}

/// Draws the topology as SVG.
pub fn topology_chart(t: &Topology, name: &str) -> String {
    let l = layout(t);
    let mut speeds: Vec<u64> = l.edges.iter().map(|e| e.rate_bps).collect();
    speeds.sort_unstable();
    speeds.dedup();
    let speed_index = |r: u64| speeds.iter().position(|s| *s == r).unwrap_or(0);
    let stroke = |r: u64| 1.0 + (r as f64 / 1e9).max(1.0).log2() / 2.5;
    let mut out = String::new();
    svg_open(&mut out, l.width, l.height + 30.0, name);
    title(&mut out, name);
    // Legend of link speeds.
    let mut lx = 20.0;
    text(&mut out, lx, 44.0, "start", 0.0, FONT_PX, "link speed:");
    lx += text_width("link speed:", FONT_PX) + 10.0;
    for s in &speeds {
        let _ = write!(
            out,
            r#"<line x1="{}" y1="40" x2="{}" y2="40" stroke="{}" stroke-width="{}"/>"#,
            n(lx),
            n(lx + 22.0),
            colour(speed_index(*s)),
            n(stroke(*s))
        );
        let label = speed_label(*s);
        text(&mut out, lx + 28.0, 44.0, "start", 0.0, FONT_PX, &label);
        lx += 40.0 + text_width(&label, FONT_PX);
    }
    let off = 20.0;
    // One speed label per fan of links from a node down to the next layer (the middle link of
    // the fan): the colour legend gives the others, and labels stay apart.
    let upper = |e: &Edge| if l.nodes[e.a].y <= l.nodes[e.b].y { (e.a, e.b) } else { (e.b, e.a) };
    let mut labelled = vec![false; l.edges.len()];
    let mut fans: Vec<(usize, u64, Vec<usize>)> = Vec::new();
    for (k, e) in l.edges.iter().enumerate() {
        let (up, _) = upper(e);
        match fans.iter_mut().find(|f| f.0 == up && f.1 == e.rate_bps) {
            Some(f) => f.2.push(k),
            None => fans.push((up, e.rate_bps, vec![k])),
        }
    }
    // Fans of one layer and speed look alike: past four of them, only the middle one is
    // labelled; merged links ("4 × 25G") always are, their counts differ.
    let key = |f: &(usize, u64, Vec<usize>)| (l.nodes[f.0].layer, f.1);
    for (i, (up, _, members)) in fans.iter().enumerate() {
        let mut members = members.clone();
        members.sort_by(|a, b| l.nodes[upper(&l.edges[*a]).1].x.total_cmp(&l.nodes[upper(&l.edges[*b]).1].x));
        let alike: Vec<usize> = (0..fans.len()).filter(|j| key(&fans[*j]) == key(&fans[i])).collect();
        let middle = alike[alike.len() / 2] == i;
        let _ = up;
        for m in &members {
            if l.edges[*m].count > 1 {
                labelled[*m] = true;
            }
        }
        if alike.len() <= 4 || middle {
            labelled[members[members.len() / 2]] = true;
        }
    }
    let mut taken: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut link_labels = String::new();
    for (k, e) in l.edges.iter().enumerate() {
        let (a, b) = (&l.nodes[e.a], &l.nodes[e.b]);
        let (up, down) = if a.y <= b.y { (a, b) } else { (b, a) };
        let (x1, y1, x2, y2) = (up.x, up.y + up.h / 2.0 + off, down.x, down.y - down.h / 2.0 + off);
        let label =
            if e.count > 1 { format!("{} × {}", e.count, speed_label(e.rate_bps)) } else { speed_label(e.rate_bps) };
        let _ = write!(
            out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}" stroke-opacity="0.8"><title>{} — {}: {}</title></line>"#,
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            colour(speed_index(e.rate_bps)),
            n(stroke(e.rate_bps)),
            esc(&up.label),
            esc(&down.label),
            esc(&label)
        );
        if labelled[k] {
            // At 70% of the way down, where links fanning out of one switch are apart.
            let (mx, my) = (x1 + (x2 - x1) * 0.7, y1 + (y2 - y1) * 0.7);
            let w = text_width(&label, NODE_FONT) + 4.0;
            let bx = (mx - w / 2.0, my - NODE_FONT, mx + w / 2.0, my + 3.0);
            if !taken.iter().any(|t| bx.0 < t.2 && t.0 < bx.2 && bx.1 < t.3 && t.1 < bx.3) {
                taken.push(bx);
                let _ = write!(
                    link_labels,
                    r##"<text x="{}" y="{}" font-size="{}" text-anchor="middle" paint-order="stroke" stroke="#fff" stroke-width="3">{}</text>"##,
                    n(mx),
                    n(my),
                    n(NODE_FONT),
                    esc(&label)
                );
            }
        }
    }
    out.push_str(&link_labels);
    for layer in &l.layers {
        let xs: Vec<f64> = layer.iter().map(|&i| l.nodes[i].x).collect();
        let labels: Vec<String> = layer.iter().map(|&i| below_label(&l.nodes[i])).collect();
        let ll = layout_labels(&labels, &xs, NODE_FONT, 110.0);
        for (k, &i) in layer.iter().enumerate() {
            let p = &l.nodes[i];
            let (x, y) = (p.x, p.y + off);
            let _ = write!(out, "<g><title>{}</title>", esc(&p.label));
            if p.switch || p.members.len() > 1 {
                let fill = if p.switch { "#dceaf5" } else { "#f3f3f3" };
                let _ = write!(
                    out,
                    r##"<rect x="{}" y="{}" width="{}" height="{}" rx="4" fill="{fill}" stroke="#333"/>"##,
                    n(x - p.w / 2.0),
                    n(y - p.h / 2.0),
                    n(p.w),
                    n(p.h)
                );
                let inside = if p.switch {
                    if labels[k].is_empty() {
                        p.label.clone()
                    } else {
                        String::new()
                    }
                } else {
                    format!("{} hosts", p.members.len())
                };
                if !inside.is_empty() {
                    text(&mut out, x, y + NODE_FONT * 0.35, "middle", 0.0, NODE_FONT, &inside);
                }
            } else {
                let _ = write!(
                    out,
                    r##"<circle cx="{}" cy="{}" r="6" fill="#fff" stroke="#333" stroke-width="1.5"/>"##,
                    n(x),
                    n(y)
                );
            }
            if !labels[k].is_empty() && ll.shown[k] {
                let ty = y + p.h / 2.0 + 4.0;
                if ll.angle == 0.0 {
                    text(&mut out, x, ty + NODE_FONT, "middle", 0.0, NODE_FONT, &ll.texts[k]);
                } else {
                    text(&mut out, x + NODE_FONT * 0.35, ty + 2.0, "end", ll.angle, NODE_FONT, &ll.texts[k]);
                }
            }
            out.push_str("</g>");
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leaf-spine or fat-tree-like fabric: `spines`, `leaves`, `hosts` per leaf.
    fn leaf_spine(spines: usize, leaves: usize, hosts: usize) -> Topology {
        let mut t = Topology::default();
        for s in 0..spines {
            t.nodes.push(TopoNode { name: format!("spine{}", s + 1), switch: true });
        }
        for l in 0..leaves {
            let leaf = t.nodes.len();
            t.nodes.push(TopoNode { name: format!("leaf{}", l + 1), switch: true });
            for s in 0..spines {
                t.links.push(TopoLink { a: leaf, b: s, rate_bps: 100_000_000_000 });
            }
            for h in 0..hosts {
                let host = t.nodes.len();
                t.nodes.push(TopoNode { name: format!("host{}", l * hosts + h + 1), switch: false });
                t.links.push(TopoLink { a: host, b: leaf, rate_bps: 25_000_000_000 });
            }
        }
        t
    }

    fn no_overlap_in_layers(l: &Layout) {
        for layer in &l.layers {
            for w in layer.windows(2) {
                let (a, b) = (&l.nodes[w[0]], &l.nodes[w[1]]);
                assert!(b.x - a.x >= (a.w + b.w) / 2.0, "{} and {} overlap", a.label, b.label);
            }
        }
    }

    #[test]
    fn leaf_spine_is_drawn_in_three_layers() {
        let l = layout(&leaf_spine(2, 2, 10));
        assert_eq!(l.layers.len(), 3);
        let y = |name: &str| l.nodes.iter().find(|p| p.label == name).unwrap().y;
        assert!(y("spine1") < y("leaf1") && y("leaf1") < y("host1"), "spines on top, hosts at the bottom");
        assert_eq!(l.layers[0].len(), 20, "20 hosts, drawn one by one");
        no_overlap_in_layers(&l);
        // Hosts sit under their own leaf.
        let x = |name: &str| l.nodes.iter().find(|p| p.label == name).unwrap().x;
        assert_eq!(x("host1") < x("host11"), x("leaf1") < x("leaf2"));
    }

    #[test]
    fn many_hosts_are_grouped_per_switch_and_stay_readable() {
        // 16 leaves of 16 hosts: 256 hosts, 20 switches.
        let t = leaf_spine(4, 16, 16);
        let l = layout(&t);
        assert_eq!(l.layers[0].len(), 16, "one box per leaf");
        let g = &l.nodes[l.layers[0][0]];
        assert_eq!(g.members.len(), 16);
        assert!(g.label.starts_with("16 hosts: host"), "{}", g.label);
        assert!(l.edges.iter().any(|e| e.count == 16 && e.rate_bps == 25_000_000_000));
        no_overlap_in_layers(&l);
        assert!(l.width < 2500.0, "{}", l.width);
        let svg = topology_chart(&t, "fabric");
        assert!(svg.contains("16 × 25G") && svg.contains("link speed:") && svg.contains(">100G<"));
    }

    #[test]
    fn a_three_tier_tree_has_core_aggregation_and_edge_layers() {
        // k = 4 fat tree: 4 core, 8 aggregation, 8 edge switches, 16 hosts.
        let mut t = Topology::default();
        let sw = |t: &mut Topology, name: String| {
            t.nodes.push(TopoNode { name, switch: true });
            t.nodes.len() - 1
        };
        let core: Vec<usize> = (0..4).map(|i| sw(&mut t, format!("core{i}"))).collect();
        for pod in 0..4 {
            let agg: Vec<usize> = (0..2).map(|i| sw(&mut t, format!("agg{pod}-{i}"))).collect();
            let edge: Vec<usize> = (0..2).map(|i| sw(&mut t, format!("edge{pod}-{i}"))).collect();
            for (i, a) in agg.iter().enumerate() {
                for c in 0..2 {
                    t.links.push(TopoLink { a: *a, b: core[i * 2 + c], rate_bps: 40_000_000_000 });
                }
                for e in &edge {
                    t.links.push(TopoLink { a: *e, b: *a, rate_bps: 40_000_000_000 });
                }
            }
            for e in &edge {
                for h in 0..2 {
                    t.nodes.push(TopoNode { name: format!("h{pod}{e}{h}"), switch: false });
                    let host = t.nodes.len() - 1;
                    t.links.push(TopoLink { a: host, b: *e, rate_bps: 10_000_000_000 });
                }
            }
        }
        let l = layout(&t);
        assert_eq!(l.layers.iter().map(Vec::len).collect::<Vec<_>>(), [16, 8, 8, 4]);
        no_overlap_in_layers(&l);
        assert!(l.nodes[l.layers[3][0]].label.starts_with("core"));
    }

    #[test]
    fn results_give_the_topology() {
        assert_eq!(speed_label(25_000_000_000), "25G");
        assert_eq!(speed_label(2_500_000_000), "2.5G");
        assert_eq!(speed_label(100_000_000), "100M");
        let t = Topology::from_results(&crate::testdata::results());
        assert_eq!(t.nodes.len(), 4);
        assert_eq!(t.nodes.iter().filter(|x| x.switch).count(), 1);
        assert_eq!(t.links.len(), 3);
        assert!(t.links.iter().all(|l| l.rate_bps == 100_000_000_000));
    }
}
