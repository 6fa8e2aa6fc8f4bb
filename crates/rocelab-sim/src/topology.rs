//! Building networks: a [`NetworkBuilder`] that allocates ports as links are added, and the
//! standard topologies of the tests and benchmarks (single switch, leaf-spine, the three-tier
//! fat tree of the HPCC simulator's `fat.txt`), plus a reader for that simulator's topology
//! format (text in, spec out; the caller reads the file).

use crate::error::SimError;
use crate::spec::{
    HostPortSpec, HostSpec, LinkSpec, NetworkSpec, NodeId, NodeKind, NodeSpec, PortRef, SwitchPortSpec, SwitchSpec,
};
use crate::time::{Time, NS};

/// Settings every node of a generated fabric starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct FabricDefaults {
    /// Host settings (its `ports` are filled in by links).
    pub host: HostSpec,
    /// Settings of each host port.
    pub host_port: HostPortSpec,
    /// Switch settings (its `ports` are filled in by links).
    pub switch: SwitchSpec,
    /// Settings of each switch port.
    pub switch_port: SwitchPortSpec,
}

impl FabricDefaults {
    /// Everything lossy, default buffers.
    pub fn lossy() -> Self {
        FabricDefaults {
            host: HostSpec::default(),
            host_port: HostPortSpec::default(),
            switch: SwitchSpec::default(),
            switch_port: SwitchPortSpec::default(),
        }
    }

    /// `priority` lossless end to end (PFC on hosts and switches) with `headroom_bytes` per
    /// switch port.
    pub fn lossless(priority: u8, headroom_bytes: u64) -> Self {
        let mut d = Self::lossy();
        d.host_port.pfc.enabled.0 |= 1 << priority;
        d.switch_port = d.switch_port.with_lossless(priority, headroom_bytes);
        d
    }
}

/// A built network and the roles of its nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Fabric {
    /// The network.
    pub spec: NetworkSpec,
    /// Host node ids, in creation order.
    pub hosts: Vec<NodeId>,
    /// Switch node ids, in creation order.
    pub switches: Vec<NodeId>,
}

/// Adds nodes and links; each link appends a port (a copy of the node's port template) to both
/// ends.
#[derive(Clone, Debug, Default)]
pub struct NetworkBuilder {
    spec: NetworkSpec,
    host_ports: Vec<Option<HostPortSpec>>,
    switch_ports: Vec<Option<SwitchPortSpec>>,
    hosts: Vec<NodeId>,
    switches: Vec<NodeId>,
}

impl NetworkBuilder {
    /// An empty network.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a host whose ports are copies of `port`.
    pub fn add_host(&mut self, name: impl Into<String>, host: HostSpec, port: HostPortSpec) -> NodeId {
        let id = self.spec.nodes.len();
        self.spec.nodes.push(NodeSpec { name: name.into(), kind: NodeKind::Host(host) });
        self.host_ports.push(Some(port));
        self.switch_ports.push(None);
        self.hosts.push(id);
        id
    }

    /// Add a switch whose ports are copies of `port`.
    pub fn add_switch(&mut self, name: impl Into<String>, switch: SwitchSpec, port: SwitchPortSpec) -> NodeId {
        let id = self.spec.nodes.len();
        self.spec.nodes.push(NodeSpec { name: name.into(), kind: NodeKind::Switch(switch) });
        self.host_ports.push(None);
        self.switch_ports.push(Some(port));
        self.switches.push(id);
        id
    }

    fn new_port(&mut self, node: NodeId) -> PortRef {
        let port = match &mut self.spec.nodes[node].kind {
            NodeKind::Host(h) => {
                h.ports.push(self.host_ports[node].unwrap_or_default());
                h.ports.len() - 1
            }
            NodeKind::Switch(s) => {
                s.ports.push(self.switch_ports[node].unwrap_or_default());
                s.ports.len() - 1
            }
        };
        PortRef { node, port }
    }

    /// Join `a` and `b` with a link of `rate_bps` and one-way `delay_ps`; returns the new ports.
    pub fn connect(&mut self, a: NodeId, b: NodeId, rate_bps: u64, delay_ps: Time) -> (PortRef, PortRef) {
        let pa = self.new_port(a);
        let pb = self.new_port(b);
        self.spec.links.push(LinkSpec { a: pa, b: pb, rate_bps, delay_ps });
        (pa, pb)
    }

    /// Mutable access to a switch's spec (e.g. to change one port after connecting).
    pub fn switch_mut(&mut self, node: NodeId) -> Option<&mut SwitchSpec> {
        match &mut self.spec.nodes.get_mut(node)?.kind {
            NodeKind::Switch(s) => Some(s),
            NodeKind::Host(_) => None,
        }
    }

    /// Finish.
    pub fn build(self) -> Fabric {
        Fabric { spec: self.spec, hosts: self.hosts, switches: self.switches }
    }
}

/// `n_hosts` hosts on one switch, all links at `rate_bps` with `delay_ps`.
pub fn single_switch(n_hosts: usize, rate_bps: u64, delay_ps: Time, d: &FabricDefaults) -> Fabric {
    let mut b = NetworkBuilder::new();
    let hosts: Vec<NodeId> = (0..n_hosts).map(|i| b.add_host(format!("h{i}"), d.host.clone(), d.host_port)).collect();
    let sw = b.add_switch("sw0", d.switch.clone(), d.switch_port);
    for h in hosts {
        b.connect(h, sw, rate_bps, delay_ps);
    }
    b.build()
}

/// Shape of a two-tier leaf-spine fabric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafSpine {
    /// Leaf switches.
    pub leaves: usize,
    /// Spine switches (every leaf connects to every spine).
    pub spines: usize,
    /// Hosts per leaf.
    pub hosts_per_leaf: usize,
    /// Host link rate.
    pub host_rate_bps: u64,
    /// Leaf-spine link rate.
    pub fabric_rate_bps: u64,
    /// Host link delay.
    pub host_delay_ps: Time,
    /// Leaf-spine link delay.
    pub fabric_delay_ps: Time,
}

/// A leaf-spine fabric. Hosts are numbered leaf by leaf (`hosts[l * hosts_per_leaf + i]`),
/// switches leaves first, then spines.
pub fn leaf_spine(shape: &LeafSpine, d: &FabricDefaults) -> Fabric {
    let mut b = NetworkBuilder::new();
    let mut hosts = Vec::new();
    for l in 0..shape.leaves {
        for i in 0..shape.hosts_per_leaf {
            hosts.push(b.add_host(format!("leaf{l}-h{i}"), d.host.clone(), d.host_port));
        }
    }
    let leaves: Vec<NodeId> =
        (0..shape.leaves).map(|l| b.add_switch(format!("leaf{l}"), d.switch.clone(), d.switch_port)).collect();
    let spines: Vec<NodeId> =
        (0..shape.spines).map(|s| b.add_switch(format!("spine{s}"), d.switch.clone(), d.switch_port)).collect();
    for (l, &leaf) in leaves.iter().enumerate() {
        for i in 0..shape.hosts_per_leaf {
            b.connect(hosts[l * shape.hosts_per_leaf + i], leaf, shape.host_rate_bps, shape.host_delay_ps);
        }
    }
    for &leaf in &leaves {
        for &spine in &spines {
            b.connect(leaf, spine, shape.fabric_rate_bps, shape.fabric_delay_ps);
        }
    }
    b.build()
}

/// The 320-host, 56-switch three-tier fat tree of the HPCC simulator's `fat.txt`: 5 pods of
/// 4 ToRs and 4 aggregation switches, 16 hosts per ToR at 100 Gb/s, every ToR to every
/// aggregation switch of its pod and aggregation switch `j` of each pod to cores `4j..4j+4`,
/// all at 400 Gb/s, 1 µs per link. Node ids match that file: hosts 0..320, ToRs 320..340,
/// aggregation 340..360, cores 360..376.
pub fn hpcc_fat_tree(d: &FabricDefaults) -> Fabric {
    const G100: u64 = 100_000_000_000;
    const G400: u64 = 400_000_000_000;
    let delay = 1000 * NS;
    let mut b = NetworkBuilder::new();
    let hosts: Vec<NodeId> = (0..320).map(|i| b.add_host(format!("n{i}"), d.host.clone(), d.host_port)).collect();
    let sw: Vec<NodeId> = (320..376).map(|i| b.add_switch(format!("n{i}"), d.switch.clone(), d.switch_port)).collect();
    let (tor, agg, core) = (&sw[0..20], &sw[20..40], &sw[40..56]);
    for (i, &h) in hosts.iter().enumerate() {
        b.connect(h, tor[i / 16], G100, delay);
    }
    for (t, &tor_sw) in tor.iter().enumerate() {
        let pod = t / 4;
        for &agg_sw in &agg[pod * 4..pod * 4 + 4] {
            b.connect(tor_sw, agg_sw, G400, delay);
        }
    }
    for (a, &agg_sw) in agg.iter().enumerate() {
        let j = a % 4;
        for &core_sw in &core[j * 4..j * 4 + 4] {
            b.connect(agg_sw, core_sw, G400, delay);
        }
    }
    b.build()
}

fn parse_rate(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = if let Some(n) = s.strip_suffix("Gbps") {
        (n, 1e9)
    } else if let Some(n) = s.strip_suffix("Mbps") {
        (n, 1e6)
    } else if let Some(n) = s.strip_suffix("Kbps") {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix("bps") {
        (n, 1.0)
    } else {
        return None;
    };
    let v: f64 = num.parse().ok()?;
    (v > 0.0).then_some((v * mult).round() as u64)
}

fn parse_delay(s: &str) -> Option<Time> {
    let s = s.trim();
    let (num, mult) = if let Some(n) = s.strip_suffix("ns") {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix("us") {
        (n, 1e6)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 1e9)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1e12)
    } else {
        return None;
    };
    let v: f64 = num.parse().ok()?;
    (v >= 0.0).then_some((v * mult).round() as Time)
}

/// Read an HPCC-simulator topology: first line `nodes switches links`, second line the switch
/// ids, then one link per line `a b rate delay error_rate` (e.g. `0 320 100Gbps 1000ns 0`).
/// Node ids are kept; nodes not listed as switches are hosts. The error rate is ignored (this
/// simulator has no random loss).
pub fn parse_hpcc_topology(text: &str, d: &FabricDefaults) -> Result<Fabric, SimError> {
    let err = |line: usize, msg: String| SimError::spec(format!("topology line {line}"), msg);
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (l0, head) = lines.next().ok_or_else(|| err(1, "empty topology".into()))?;
    let nums: Vec<usize> = head
        .split_whitespace()
        .map(|t| t.parse().map_err(|_| err(l0 + 1, format!("not a number: {t:?}"))))
        .collect::<Result<_, _>>()?;
    let [n_nodes, n_switches, n_links] = nums[..] else {
        return Err(err(l0 + 1, "expected `nodes switches links`".into()));
    };
    let mut is_switch = vec![false; n_nodes];
    let (l1, sw_line) = lines.next().ok_or_else(|| err(l0 + 2, "missing the line of switch ids".into()))?;
    let mut count = 0;
    for t in sw_line.split_whitespace() {
        let id: usize = t.parse().map_err(|_| err(l1 + 1, format!("not a node id: {t:?}")))?;
        if id >= n_nodes {
            return Err(err(l1 + 1, format!("switch id {id} >= node count {n_nodes}")));
        }
        is_switch[id] = true;
        count += 1;
    }
    if count != n_switches {
        return Err(err(l1 + 1, format!("{count} switch ids, header says {n_switches}")));
    }
    let mut b = NetworkBuilder::new();
    for (id, &sw) in is_switch.iter().enumerate() {
        if sw {
            b.add_switch(format!("n{id}"), d.switch.clone(), d.switch_port);
        } else {
            b.add_host(format!("n{id}"), d.host.clone(), d.host_port);
        }
    }
    let mut links = 0;
    for (ln, line) in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 {
            return Err(err(ln + 1, "expected `a b rate delay error_rate`".into()));
        }
        let node = |t: &str| -> Result<usize, SimError> {
            let id: usize = t.parse().map_err(|_| err(ln + 1, format!("not a node id: {t:?}")))?;
            if id >= n_nodes {
                return Err(err(ln + 1, format!("node {id} >= node count {n_nodes}")));
            }
            Ok(id)
        };
        let (a, bb) = (node(f[0])?, node(f[1])?);
        let rate = parse_rate(f[2]).ok_or_else(|| err(ln + 1, format!("bad rate {:?}", f[2])))?;
        let delay = parse_delay(f[3]).ok_or_else(|| err(ln + 1, format!("bad delay {:?}", f[3])))?;
        b.connect(a, bb, rate, delay);
        links += 1;
    }
    if links != n_links {
        return Err(err(1, format!("{links} links found, header says {n_links}")));
    }
    Ok(b.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hpcc_format_roundtrip_matches_generated_fat_tree() {
        let d = FabricDefaults::lossless(3, 100_000);
        let gen = hpcc_fat_tree(&d);
        assert_eq!(gen.hosts.len(), 320);
        assert_eq!(gen.switches.len(), 56);
        assert_eq!(gen.spec.links.len(), 480);
        gen.spec.validate().unwrap();
        // Write the generated tree in the HPCC format and read it back.
        let mut text = String::from("376 56 480\n");
        let ids: Vec<String> = (320..376).map(|i| i.to_string()).collect();
        text.push_str(&ids.join(" "));
        text.push('\n');
        for l in &gen.spec.links {
            let gbps = l.rate_bps / 1_000_000_000;
            text.push_str(&format!("{} {} {gbps}Gbps 1000ns 0.000000\n", l.a.node, l.b.node));
        }
        let parsed = parse_hpcc_topology(&text, &d).unwrap();
        assert_eq!(parsed.spec, gen.spec);
    }

    #[test]
    fn hpcc_format_errors_are_located() {
        let d = FabricDefaults::lossy();
        let e = parse_hpcc_topology("3 1 1\n2\n0 2 10Gbps 1xs 0\n", &d).unwrap_err();
        assert!(e.to_string().contains("line 3") && e.to_string().contains("bad delay"), "{e}");
        let e = parse_hpcc_topology("3 1 2\n2\n0 2 10Gbps 1us 0\n", &d).unwrap_err();
        assert!(e.to_string().contains("header says 2"), "{e}");
        assert_eq!(parse_rate("2.5Gbps"), Some(2_500_000_000));
        assert_eq!(parse_delay("0.001ms"), Some(1_000_000));
    }

    #[test]
    fn leaf_spine_shape() {
        let f = leaf_spine(
            &LeafSpine {
                leaves: 2,
                spines: 2,
                hosts_per_leaf: 3,
                host_rate_bps: 25_000_000_000,
                fabric_rate_bps: 100_000_000_000,
                host_delay_ps: 10 * NS,
                fabric_delay_ps: 50 * NS,
            },
            &FabricDefaults::lossy(),
        );
        assert_eq!(f.hosts.len(), 6);
        assert_eq!(f.switches.len(), 4);
        assert_eq!(f.spec.links.len(), 6 + 4);
        assert_eq!(f.spec.port_count(f.switches[0]), 5);
        f.spec.validate().unwrap();
    }
}
