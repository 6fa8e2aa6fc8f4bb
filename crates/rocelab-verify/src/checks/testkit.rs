//! Building configured states directly for the checks' unit tests: a small fabric of switches
//! and RDMA hosts whose ports can then be changed one setting at a time.

use crate::state::{DeviceState, EcnState, End, HostRdma, LinkState, Policy, PortQos, PortState, Sched, State};
use rocelab_model::fabric::Role;
use rocelab_model::qos::Marking;
use rocelab_model::units::{Length, Rate, Time};

/// RoCE on priority 3 / DSCP 26, lossless; CNP on priority 6 / DSCP 48, strict; default 0.
pub fn policy() -> Policy {
    let mut class_names: [Option<String>; 8] = Default::default();
    class_names[3] = Some("roce".into());
    class_names[6] = Some("cnp".into());
    class_names[0] = Some("default".into());
    Policy {
        lossless: 1 << 3,
        rdma_priority: Some(3),
        rdma_dscp: Some(26),
        cnp_priority: Some(6),
        cnp_dscp: Some(48),
        trust: Marking::Dscp,
        roce_mtu: 4096,
        roce_mtu_stated: true,
        dcqcn: true,
        response_time: Time::ns(1500),
        alpha: 0.125,
        class_names,
        inferred: None,
    }
}

/// A port configured as the policy says.
pub fn good_qos(host: bool) -> PortQos {
    let mut q = PortQos::unconfigured(9100);
    q.trust = Marking::Dscp;
    q.dscp_to_priority[26] = 3;
    q.dscp_to_priority[48] = 6;
    q.priority_to_pg[3] = 3;
    q.pfc = 1 << 3;
    q.sched[0] = Sched::Ets(10);
    q.sched[3] = Sched::Ets(90);
    q.sched[6] = Sched::Strict;
    q.ecn[3] = Some(EcnState { kmin: 150_000, kmax: 1_500_000, pmax: 0.01 });
    if host {
        q.host = Some(HostRdma {
            roce_tos: Some(106),
            cnp_priority: Some(6),
            np: 1 << 3,
            rp: 1 << 3,
            pcp: None,
            rdma_visible: true,
        });
    }
    q
}

/// Builder over a state with profile 0 for switches and 1 for hosts.
pub struct Kit {
    pub s: State,
}

impl Kit {
    pub fn new() -> Kit {
        Kit {
            s: State {
                name: "t".into(),
                devices: Vec::new(),
                links: Vec::new(),
                profiles: vec![good_qos(false), good_qos(true)],
                policy: policy(),
            },
        }
    }
    pub fn switch(&mut self, name: &str) -> u32 {
        self.device(name, Role::Switch)
    }
    pub fn host(&mut self, name: &str) -> u32 {
        self.device(name, Role::Host)
    }
    fn device(&mut self, name: &str, role: Role) -> u32 {
        self.s.devices.push(DeviceState {
            name: name.into(),
            role,
            platform: None,
            buffer: (role == Role::Switch).then_some(16_000_000),
            ports: Vec::new(),
            rdma: role != Role::Switch,
            protocols: Vec::new(),
            vxlan: None,
            bonding: None,
            roce_lag: false,
            origin: None,
            pools: Vec::new(),
        });
        (self.s.devices.len() - 1) as u32
    }
    fn port(&mut self, d: u32) -> End {
        let dev = &mut self.s.devices[d as usize];
        let qos = if dev.role == Role::Switch { 0 } else { 1 };
        dev.ports.push(PortState {
            name: format!("p{}", dev.ports.len() + 1),
            speed: Rate::gbps(100),
            link: None,
            qos,
            origin: None,
        });
        End { device: d, port: (dev.ports.len() - 1) as u32 }
    }
    /// Cables a new port of `a` to a new port of `b` (100G, 3 m); returns the link index.
    pub fn link(&mut self, a: u32, b: u32) -> u32 {
        let (ea, eb) = (self.port(a), self.port(b));
        let li = self.s.links.len() as u32;
        self.s.devices[a as usize].ports[ea.port as usize].link = Some(li);
        self.s.devices[b as usize].ports[eb.port as usize].link = Some(li);
        self.s.links.push(LinkState { a: ea, b: eb, speed: Rate::gbps(100), cable: Length::metres(3) });
        li
    }
    /// Gives one end of a link its own copy of its profile, changed by `f`.
    pub fn change(&mut self, link: u32, end_a: bool, f: impl FnOnce(&mut PortQos)) {
        let l = &self.s.links[link as usize];
        let e = if end_a { l.a } else { l.b };
        let mut q = self.s.qos(e).clone();
        f(&mut q);
        self.s.profiles.push(q);
        let idx = (self.s.profiles.len() - 1) as u32;
        self.s.devices[e.device as usize].ports[e.port as usize].qos = idx;
    }
    /// Changes every port of one kind (`host` or switch).
    pub fn change_all(&mut self, host: bool, f: impl FnOnce(&mut PortQos)) {
        f(&mut self.s.profiles[host as usize]);
    }
    /// Two leaves, two spines, two hosts on each leaf: a small healthy Clos.
    pub fn clos() -> (Kit, Vec<u32>) {
        let mut k = Kit::new();
        let l1 = k.switch("leaf1");
        let l2 = k.switch("leaf2");
        let s1 = k.switch("spine1");
        let s2 = k.switch("spine2");
        let mut links = Vec::new();
        for (i, leaf) in [l1, l2].into_iter().enumerate() {
            for j in 0..2 {
                let h = k.host(&format!("h{}{}", i + 1, j + 1));
                links.push(k.link(leaf, h));
            }
            for sp in [s1, s2] {
                links.push(k.link(leaf, sp));
            }
        }
        (k, links)
    }
    pub fn run(&self) -> Vec<crate::Finding> {
        crate::check(&self.s)
    }
}

/// The IDs found.
pub fn ids(f: &[crate::Finding]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = f.iter().map(|f| f.id).collect();
    v.sort_unstable();
    v.dedup();
    v
}
