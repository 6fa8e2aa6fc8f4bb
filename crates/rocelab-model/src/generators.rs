//! Topology generators: the shapes the seed deployments and the research literature use, so that
//! a fabric of thousands of hosts is a few lines of YAML. Each produces plain devices and links,
//! exactly as if they had been listed by hand.

use crate::catalog::switch_model;
use crate::fabric::{
    Device, Direct, FatTree, Generator, HostTemplate, LeafSpine, Link, Nic, NicVendor, Os, Platform, PortGroup, Role,
    SingleSwitch, StorageTarget, SwitchTemplate, TargetTemplate, TwoSwitch,
};
use crate::units::{Length, Rate};

/// Largest topology a generator will build, so that a typo (`k: 4000`) is an error rather than
/// an hour of swapping.
pub const MAX_GENERATED_DEVICES: u64 = 200_000;

/// Most links a generator will build: a million, above the 546 750 of the largest fat tree
/// under [`MAX_GENERATED_DEVICES`] (k = 90), so that `bottleneck_links`, `links_per_spine` or a
/// target's `ports` cannot ask for billions of cables.
pub const MAX_GENERATED_LINKS: u64 = 1_000_000;

/// Builds switches port by port: ports on a known model come from its front panel in order,
/// otherwise they are named by the platform's convention as they are used.
struct SwitchBuilder {
    device: Device,
    platform: Platform,
    known: Option<Vec<(String, Rate, Vec<Rate>)>>,
    used: usize,
}

impl SwitchBuilder {
    fn new(name: String, t: &SwitchTemplate) -> SwitchBuilder {
        let model = t.model.as_deref().and_then(switch_model);
        let platform = t.platform.or(model.map(|m| m.platform)).unwrap_or(Platform::Generic);
        let known = model.map(|m| {
            m.port_groups()
                .into_iter()
                .flat_map(|g| {
                    crate::catalog::expand_port_range(&g.names)
                        .unwrap_or_default()
                        .into_iter()
                        .map(move |n| (n, g.speed, g.speeds.clone()))
                })
                .collect()
        });
        let device = Device {
            name,
            role: Role::Switch,
            platform: Some(platform),
            model: t.model.clone(),
            os: None,
            os_version: t.os_version.clone(),
            nics: Vec::new(),
            ports: Vec::new(),
            buffer: t.buffer,
            storage: None,
            vxlan: None,
            bonding: None,
            tcp: None,
            cpu: None,
        };
        SwitchBuilder { device, platform, known, used: 0 }
    }

    /// The next free port that can run at `speed`.
    fn port(&mut self, speed: Rate) -> Result<String, String> {
        match &self.known {
            Some(ports) => {
                while self.used < ports.len() {
                    let (name, native, others) = &ports[self.used];
                    self.used += 1;
                    if *native == speed || others.contains(&speed) {
                        return Ok(format!("{}:{name}", self.device.name));
                    }
                }
                Err(format!(
                    "switch {} ({}) has no free port left that runs at {speed}",
                    self.device.name,
                    self.device.model.as_deref().unwrap_or("")
                ))
            }
            None => {
                self.used += 1;
                let name = self.platform.port_name(self.used as u32, speed);
                self.device.ports.push(PortGroup { names: name.clone(), speed, speeds: Vec::new() });
                Ok(format!("{}:{name}", self.device.name))
            }
        }
    }
}

fn host(name: String, t: &HostTemplate, speed: Rate, ports: u32) -> Device {
    Device {
        name,
        role: Role::Host,
        platform: None,
        model: None,
        os: Some(t.os.unwrap_or(Os::Linux)),
        os_version: None,
        nics: vec![Nic {
            vendor: t.nic_vendor.unwrap_or(NicVendor::Nvidia),
            model: t.nic_model.clone().unwrap_or_else(|| "ConnectX-5".into()),
            ports,
            speed,
            speeds: Vec::new(),
            rdma: None,
            port_names: Vec::new(),
            addresses: Vec::new(),
            transport: None,
        }],
        ports: Vec::new(),
        buffer: None,
        storage: None,
        vxlan: None,
        bonding: None,
        tcp: None,
        cpu: None,
    }
}

fn target(name: String, t: &TargetTemplate, speed: Rate, ports: u32) -> Device {
    Device {
        name,
        role: Role::Storage,
        platform: None,
        model: t.product.clone(),
        os: Some(Os::Appliance),
        os_version: None,
        nics: vec![Nic {
            vendor: NicVendor::Nvidia,
            model: "ConnectX-5".into(),
            ports,
            speed,
            speeds: Vec::new(),
            rdma: None,
            port_names: Vec::new(),
            addresses: Vec::new(),
            transport: None,
        }],
        ports: Vec::new(),
        buffer: None,
        storage: Some(StorageTarget {
            kind: t.kind,
            product: t.product.clone(),
            protocols: t.protocols.clone(),
            profile: t.profile,
            model: None,
        }),
        vxlan: None,
        bonding: None,
        tcp: None,
        cpu: None,
    }
}

fn link(a: String, b: String, speed: Rate, cable: Length) -> Link {
    Link { a, b, speed: Some(speed), cable: Some(cable), delay: None }
}

fn host_prefix(t: &HostTemplate) -> &str {
    t.prefix.as_deref().unwrap_or("host")
}

impl Generator {
    /// How many devices the generator would build, to refuse absurd sizes up front. Counted in
    /// `u128`, where no product of the `u32` fields overflows.
    pub fn device_count(&self) -> u128 {
        match self {
            Generator::Direct(d) => d.hosts as u128 + d.target.count as u128,
            Generator::SingleSwitch(s) => 1 + s.hosts as u128 + s.targets.as_ref().map_or(0, |t| t.count as u128),
            Generator::TwoSwitch(t) => 2 + t.hosts[0] as u128 + t.hosts[1] as u128,
            Generator::LeafSpine(l) => l.leaves as u128 * (1 + l.hosts_per_leaf as u128) + l.spines as u128,
            Generator::FatTree(f) => {
                let k = f.k as u128;
                k * k * k / 4 + 5 * k * k / 4
            }
        }
    }

    /// How many links the generator would build (as [`Generator::device_count`]); a leaf-spine
    /// whose uplinks per spine are not known yet counts one.
    pub fn link_count(&self) -> u128 {
        let targets = |t: &TargetTemplate| t.count as u128 * t.ports as u128;
        match self {
            Generator::Direct(d) => d.hosts as u128,
            Generator::SingleSwitch(s) => s.hosts as u128 + s.targets.as_ref().map_or(0, targets),
            Generator::TwoSwitch(t) => t.hosts[0] as u128 + t.hosts[1] as u128 + t.bottleneck_links as u128,
            Generator::LeafSpine(l) => {
                let per_spine = l.uplinks_per_spine().unwrap_or(1) as u128;
                l.leaves as u128 * (l.hosts_per_leaf as u128 + l.spines as u128 * per_spine)
            }
            Generator::FatTree(f) => 3 * (f.k as u128).pow(3) / 4,
        }
    }

    /// Refuses a generator that would build more than [`MAX_GENERATED_DEVICES`] devices or
    /// [`MAX_GENERATED_LINKS`] links, before anything is built: the field to blame (relative to
    /// the generator's own mapping, e.g. `fat-tree.k`) and what is wrong.
    pub fn check_size(&self) -> Result<(), (String, String)> {
        let (kind, main) = match self {
            Generator::Direct(_) => ("direct", "hosts"),
            Generator::SingleSwitch(_) => ("single-switch", "hosts"),
            Generator::TwoSwitch(_) => ("two-switch", "hosts"),
            Generator::LeafSpine(_) => ("leaf-spine", "leaves"),
            Generator::FatTree(_) => ("fat-tree", "k"),
        };
        let speeds: Vec<(&str, Option<Rate>)> = match self {
            Generator::Direct(d) => vec![("speed", Some(d.speed))],
            Generator::SingleSwitch(s) => vec![("speed", Some(s.speed)), ("target_speed", s.target_speed)],
            Generator::TwoSwitch(t) => vec![("host_speed", Some(t.host_speed)), ("bottleneck", Some(t.bottleneck))],
            Generator::LeafSpine(l) => vec![("host_speed", Some(l.host_speed)), ("uplink_speed", Some(l.uplink_speed))],
            Generator::FatTree(f) => vec![("host_speed", Some(f.host_speed)), ("fabric_speed", f.fabric_speed)],
        };
        if let Some((field, _)) = speeds.iter().find(|(_, s)| s.is_some_and(|s| s.0 == 0)) {
            return Err((format!("{kind}.{field}"), "the speed must be above 0 (e.g. `100G`)".into()));
        }
        match self {
            Generator::FatTree(f) if f.k < 2 || f.k % 2 != 0 => {
                return Err((format!("{kind}.k"), format!("`k` must be an even number of at least 2, not {}", f.k)))
            }
            Generator::LeafSpine(l) if l.leaves == 0 || l.spines == 0 => {
                let field = if l.leaves == 0 { "leaves" } else { "spines" };
                return Err((format!("{kind}.{field}"), "`leaves` and `spines` must be at least 1".into()));
            }
            _ => {}
        }
        let n = self.device_count();
        if n > MAX_GENERATED_DEVICES as u128 {
            let msg = match self {
                Generator::FatTree(f) => format!(
                    "k = {} builds {n} devices (k³/4 hosts and 5k²/4 switches); rocelab builds at most \
                     {MAX_GENERATED_DEVICES}, so k is at most 90",
                    f.k
                ),
                _ => format!("the generator would build {n} devices; rocelab builds at most {MAX_GENERATED_DEVICES}"),
            };
            return Err((format!("{kind}.{main}"), msg));
        }
        let l = self.link_count();
        if l > MAX_GENERATED_LINKS as u128 {
            let field = match self {
                Generator::SingleSwitch(_) => "targets.ports",
                Generator::TwoSwitch(_) => "bottleneck_links",
                Generator::LeafSpine(l) if l.links_per_spine.is_some() => "links_per_spine",
                Generator::LeafSpine(_) => "oversubscription",
                _ => main,
            };
            return Err((
                format!("{kind}.{field}"),
                format!("the generator would build {l} links; rocelab builds at most {MAX_GENERATED_LINKS}"),
            ));
        }
        if let Generator::SingleSwitch(SingleSwitch { targets: Some(t), .. }) = self {
            if t.ports > crate::resolve::MAX_NIC_PORTS {
                return Err((
                    format!("{kind}.targets.ports"),
                    format!(
                        "{} ports per target; rocelab models at most {} on one adapter",
                        t.ports,
                        crate::resolve::MAX_NIC_PORTS
                    ),
                ));
            }
        }
        Ok(())
    }

    pub fn generate(&self) -> Result<(Vec<Device>, Vec<Link>), String> {
        if let Err((_, msg)) = self.check_size() {
            return Err(msg);
        }
        match self {
            Generator::Direct(d) => direct(d),
            Generator::SingleSwitch(s) => single_switch(s),
            Generator::TwoSwitch(t) => two_switch(t),
            Generator::LeafSpine(l) => leaf_spine(l),
            Generator::FatTree(f) => fat_tree(f),
        }
    }
}

fn direct(d: &Direct) -> Result<(Vec<Device>, Vec<Link>), String> {
    if d.hosts == 0 {
        return Err("`hosts` must be at least 1".into());
    }
    if d.target.count != 1 {
        return Err("a direct-connect topology has exactly one target (`target.count: 1`)".into());
    }
    let tname = format!("{}1", d.target.prefix.as_deref().unwrap_or("array"));
    let mut devices = vec![target(tname.clone(), &d.target, d.speed, d.hosts)];
    let mut links = Vec::new();
    for i in 1..=d.hosts {
        let h = format!("{}{i}", host_prefix(&d.host));
        devices.push(host(h.clone(), &d.host, d.speed, 1));
        links.push(link(format!("{h}:p0"), format!("{tname}:p{}", i - 1), d.speed, d.cable));
    }
    Ok((devices, links))
}

fn single_switch(s: &SingleSwitch) -> Result<(Vec<Device>, Vec<Link>), String> {
    let mut sw = SwitchBuilder::new("sw1".into(), &s.switch);
    let mut devices = Vec::new();
    let mut links = Vec::new();
    for i in 1..=s.hosts {
        let h = format!("{}{i}", host_prefix(&s.host));
        devices.push(host(h.clone(), &s.host, s.speed, 1));
        links.push(link(sw.port(s.speed)?, format!("{h}:p0"), s.speed, s.cable));
    }
    if let Some(t) = &s.targets {
        let speed = s.target_speed.unwrap_or(s.speed);
        for i in 1..=t.count {
            let name = format!("{}{i}", t.prefix.as_deref().unwrap_or("array"));
            devices.push(target(name.clone(), t, speed, t.ports));
            for p in 0..t.ports {
                links.push(link(sw.port(speed)?, format!("{name}:p{p}"), speed, s.cable));
            }
        }
    }
    devices.insert(0, sw.device);
    Ok((devices, links))
}

fn two_switch(t: &TwoSwitch) -> Result<(Vec<Device>, Vec<Link>), String> {
    let mut sws = [SwitchBuilder::new("sw1".into(), &t.switches[0]), SwitchBuilder::new("sw2".into(), &t.switches[1])];
    let mut devices = Vec::new();
    let mut links = Vec::new();
    let mut n = 0;
    for (s, count) in t.hosts.iter().enumerate() {
        for _ in 0..*count {
            n += 1;
            let h = format!("{}{n}", host_prefix(&t.host));
            devices.push(host(h.clone(), &t.host, t.host_speed, 1));
            links.push(link(sws[s].port(t.host_speed)?, format!("{h}:p0"), t.host_speed, t.cable));
        }
    }
    for _ in 0..t.bottleneck_links {
        let a = sws[0].port(t.bottleneck)?;
        let b = sws[1].port(t.bottleneck)?;
        links.push(link(a, b, t.bottleneck, t.bottleneck_cable));
    }
    let [a, b] = sws;
    devices.splice(0..0, [a.device, b.device]);
    Ok((devices, links))
}

impl LeafSpine {
    /// Parallel uplinks per (leaf, spine): given, or the fewest that keep the oversubscription at
    /// or below the one asked for.
    pub fn uplinks_per_spine(&self) -> Result<u32, String> {
        let host_bw = self.hosts_per_leaf as f64 * self.host_speed.0 as f64;
        let per_link = self.spines as f64 * self.uplink_speed.0 as f64;
        let from_ratio = |r: f64| -> Result<u32, String> {
            if r <= 0.0 || r.is_nan() {
                return Err("`oversubscription` must be positive".into());
            }
            Ok(((host_bw / r) / per_link - 1e-9).ceil().max(1.0) as u32)
        };
        match (self.links_per_spine, self.oversubscription) {
            (Some(n), None) => Ok(n),
            (None, None) => Ok(1),
            (None, Some(r)) => from_ratio(r),
            (Some(n), Some(r)) => {
                let actual = host_bw / (per_link * n as f64);
                if (actual - r).abs() > 0.01 * r {
                    Err(format!(
                        "`links_per_spine: {n}` gives {actual:.2}:1 oversubscription, not {r}:1; drop one of the two or make them agree ({} links per spine give {r}:1 or better)",
                        from_ratio(r)?
                    ))
                } else {
                    Ok(n)
                }
            }
        }
    }

    /// Host bandwidth over uplink bandwidth of one leaf.
    pub fn actual_oversubscription(&self) -> Result<f64, String> {
        let n = self.uplinks_per_spine()?;
        Ok(self.hosts_per_leaf as f64 * self.host_speed.0 as f64
            / (self.spines as f64 * n as f64 * self.uplink_speed.0 as f64))
    }
}

fn leaf_spine(l: &LeafSpine) -> Result<(Vec<Device>, Vec<Link>), String> {
    if l.leaves == 0 || l.spines == 0 {
        return Err("`leaves` and `spines` must be at least 1".into());
    }
    let per_spine = l.uplinks_per_spine()?;
    let mut spines: Vec<SwitchBuilder> =
        (1..=l.spines).map(|i| SwitchBuilder::new(format!("spine{i}"), &l.spine)).collect();
    let mut devices = Vec::new();
    let mut links = Vec::new();
    let mut leaves = Vec::new();
    let mut n = 0;
    for li in 1..=l.leaves {
        let mut leaf = SwitchBuilder::new(format!("leaf{li}"), &l.leaf);
        for _ in 0..l.hosts_per_leaf {
            n += 1;
            let h = format!("{}{n}", host_prefix(&l.host));
            devices.push(host(h.clone(), &l.host, l.host_speed, 1));
            links.push(link(leaf.port(l.host_speed)?, format!("{h}:p0"), l.host_speed, l.host_cable));
        }
        for spine in spines.iter_mut() {
            for _ in 0..per_spine {
                links.push(link(
                    leaf.port(l.uplink_speed)?,
                    spine.port(l.uplink_speed)?,
                    l.uplink_speed,
                    l.fabric_cable,
                ));
            }
        }
        leaves.push(leaf.device);
    }
    let switches: Vec<Device> = leaves.into_iter().chain(spines.into_iter().map(|s| s.device)).collect();
    devices.splice(0..0, switches);
    Ok((devices, links))
}

fn fat_tree(f: &FatTree) -> Result<(Vec<Device>, Vec<Link>), String> {
    if f.k < 2 || f.k % 2 != 0 {
        return Err(format!("`k` must be an even number of at least 2, not {}", f.k));
    }
    let half = f.k / 2;
    let fabric = f.fabric_speed.unwrap_or(f.host_speed);
    let mut cores: Vec<SwitchBuilder> =
        (1..=half * half).map(|i| SwitchBuilder::new(format!("core{i}"), &f.switch)).collect();
    let mut devices = Vec::new();
    let mut links = Vec::new();
    let mut switches = Vec::new();
    let mut n = 0;
    for pod in 1..=f.k {
        let mut edges: Vec<SwitchBuilder> =
            (1..=half).map(|e| SwitchBuilder::new(format!("edge{pod}-{e}"), &f.switch)).collect();
        let mut aggs: Vec<SwitchBuilder> =
            (1..=half).map(|a| SwitchBuilder::new(format!("agg{pod}-{a}"), &f.switch)).collect();
        for edge in edges.iter_mut() {
            for _ in 0..half {
                n += 1;
                let h = format!("{}{n}", host_prefix(&f.host));
                devices.push(host(h.clone(), &f.host, f.host_speed, 1));
                links.push(link(edge.port(f.host_speed)?, format!("{h}:p0"), f.host_speed, f.host_cable));
            }
        }
        for edge in edges.iter_mut() {
            for agg in aggs.iter_mut() {
                links.push(link(edge.port(fabric)?, agg.port(fabric)?, fabric, f.fabric_cable));
            }
        }
        // Aggregation switch a of every pod connects to cores a*half .. a*half+half-1.
        for (a, agg) in aggs.iter_mut().enumerate() {
            for c in 0..half as usize {
                let core = &mut cores[a * half as usize + c];
                links.push(link(agg.port(fabric)?, core.port(fabric)?, fabric, f.fabric_cable));
            }
        }
        switches.extend(edges.into_iter().map(|s| s.device));
        switches.extend(aggs.into_iter().map(|s| s.device));
    }
    switches.extend(cores.into_iter().map(|s| s.device));
    devices.splice(0..0, switches);
    Ok((devices, links))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(g: &Generator) -> (usize, usize, usize) {
        let (d, l) = g.generate().unwrap();
        let hosts = d.iter().filter(|d| d.role != Role::Switch).count();
        let switches = d.iter().filter(|d| d.role == Role::Switch).count();
        (hosts, switches, l.len())
    }

    fn fat(k: u32) -> Generator {
        Generator::FatTree(FatTree {
            k,
            host_speed: Rate::gbps(100),
            fabric_speed: None,
            host_cable: Length::metres(3),
            fabric_cable: Length::metres(10),
            switch: SwitchTemplate::default(),
            host: HostTemplate::default(),
        })
    }

    #[test]
    fn fat_tree_k4_has_16_hosts_20_switches_48_links() {
        assert_eq!(counts(&fat(4)), (16, 20, 48));
        assert_eq!(counts(&fat(8)), (128, 80, 384));
        assert!(fat(3).generate().is_err());
    }

    fn ls(over: Option<f64>, per: Option<u32>) -> LeafSpine {
        LeafSpine {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 48,
            host_speed: Rate::gbps(25),
            uplink_speed: Rate::gbps(100),
            links_per_spine: per,
            oversubscription: over,
            host_cable: Length::metres(3),
            fabric_cable: Length::metres(10),
            leaf: SwitchTemplate::default(),
            spine: SwitchTemplate::default(),
            host: HostTemplate::default(),
        }
    }

    #[test]
    fn leaf_spine_counts_and_oversubscription() {
        let g = Generator::LeafSpine(ls(None, None));
        assert_eq!(counts(&g), (192, 6, 192 + 8));
        // 48 x 25G = 1200G per leaf; 3:1 needs 400G of uplink = 2 spines x 2 x 100G.
        assert_eq!(ls(Some(3.0), None).uplinks_per_spine().unwrap(), 2);
        assert_eq!(ls(Some(3.0), None).actual_oversubscription().unwrap(), 3.0);
        assert!(ls(Some(1.0), Some(1)).uplinks_per_spine().unwrap_err().contains("6.00:1"));
    }

    #[test]
    fn known_models_name_ports_from_their_front_panel() {
        let mut l = ls(None, None);
        l.hosts_per_leaf = 4;
        l.leaf =
            SwitchTemplate { platform: None, model: Some("7050SX3-48YC12".into()), os_version: None, buffer: None };
        let (_, links) = Generator::LeafSpine(l.clone()).generate().unwrap();
        assert_eq!(links[0].a, "leaf1:Ethernet1");
        assert_eq!(links[4].a, "leaf1:Ethernet49/1");
        // 48 SFP28 ports and 12 QSFP28 ports can all run at 25G; the 61st host has none.
        l.hosts_per_leaf = 61;
        let e = Generator::LeafSpine(l).generate().unwrap_err();
        assert!(e.contains("no free port left that runs at 25G"), "{e}");
    }

    #[test]
    fn two_switch_has_one_bottleneck() {
        let g = Generator::TwoSwitch(TwoSwitch {
            hosts: [3, 3],
            host_speed: Rate::gbps(25),
            bottleneck: Rate::gbps(40),
            bottleneck_links: 1,
            cable: Length::metres(3),
            bottleneck_cable: Length::metres(10),
            switches: Default::default(),
            host: HostTemplate::default(),
        });
        let (d, l) = g.generate().unwrap();
        assert_eq!((d.len(), l.len()), (8, 7));
        assert_eq!(l[6].speed, Some(Rate::gbps(40)));
    }

    #[test]
    fn absurd_sizes_are_refused() {
        let e = fat(4000).generate().unwrap_err();
        assert!(e.contains("at most"), "{e}");
    }
}
