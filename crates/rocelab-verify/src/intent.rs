//! The configured state the intent describes: every switch and adapter configured exactly as
//! the policy says, with the `qos.ports` overrides where they apply. Checking this finds what
//! is wrong with the intent itself before any device is touched.
//!
//! Mapping conventions (what `rocelab-config` renders): a lossless priority p goes to priority
//! group p, every class to its switch traffic class (its `queue`, by default its priority); DSCP
//! values go to the priority of their class; PFC lands on the class's priority and group, ETS
//! and ECN on its queue. Each port carries its own resolved settings
//! ([`ResolvedFabric::port_settings`]): where the policy gives ECN, alpha, headroom or reserve
//! per link speed, ports of different speeds get different profiles.

use crate::state::{DeviceState, EcnState, End, HostRdma, LinkState, Policy, PortQos, PortState, Sched, State};
use rocelab_model::fabric::{RdmaKind, Role};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::PortSettings;
use rocelab_model::ResolvedFabric;

/// The profile of a port following `settings`; `host` for adapter ports.
fn profile(f: &ResolvedFabric, s: &PortSettings, host: bool) -> PortQos {
    let q = &f.qos;
    let mut p = PortQos::unconfigured(s.mtu);
    p.trust = s.marking;
    p.link_pause = s.link_pause;
    let rdma_priority = q.rdma_class().map(|c| c.priority);
    for (c, pc) in q.classes.iter().zip(&s.classes) {
        let prio = pc.priority & 7;
        for d in &pc.dscp {
            p.dscp_to_priority[(*d & 63) as usize] = prio;
        }
        p.priority_to_pg[prio as usize] = if pc.pfc { prio } else { 0 };
        // The class's switch traffic class (egress queue): its priority unless the class or the
        // port names another (the Demartek Onyx steps put priority 5 on traffic class 2).
        let queue = (pc.queue & 7) as usize;
        p.priority_to_queue[prio as usize] = queue as u8;
        if pc.pfc {
            p.pfc |= 1 << prio;
            p.headroom[prio as usize] = s.headroom.map(|h| h.as_bytes());
            p.xoff[prio as usize] = s.xoff.map(|x| x.as_bytes());
            p.reserve[prio as usize] = Some(s.reserve.as_bytes());
        }
        p.sched[queue] = if c.strict { Sched::Strict } else { pc.ets.map(Sched::Ets).unwrap_or(Sched::Unset) };
        p.ecn[queue] =
            pc.ecn.as_ref().map(|e| EcnState { kmin: e.kmin.as_bytes(), kmax: e.kmax.as_bytes(), pmax: e.pmax });
    }
    // The port's own alpha: its speed's where `qos.buffer.alpha` is given by speed, a
    // `qos.ports` override's, else the policy's.
    p.alpha = Some(s.alpha);
    p.dcbx_willing = s.dcbx_willing.or_else(|| q.dcbx.map(|d| if host { d.hosts_willing } else { d.switches_willing }));
    if host {
        let bit = |on: bool| match (on, rdma_priority) {
            (true, Some(pr)) => 1u8 << pr,
            _ => 0,
        };
        p.host = Some(HostRdma {
            roce_tos: s.roce_tos,
            cnp_priority: s.cnp_priority,
            np: bit(s.dcqcn_np),
            rp: bit(s.dcqcn_rp),
            // Under PCP marking the adapter tags RDMA with its class's priority.
            pcp: (s.marking == Marking::Pcp).then_some(rdma_priority).flatten(),
            rdma_visible: true,
        });
    }
    p
}

/// Builds the state the intent describes.
pub fn from_intent(f: &ResolvedFabric) -> State {
    let q = &f.qos;
    let policy_settings = PortSettings::from_policy(q);
    let mut profiles = vec![profile(f, &policy_settings, false), profile(f, &policy_settings, true)];
    let mut devices = Vec::with_capacity(f.devices.len());
    for (di, d) in f.devices.iter().enumerate() {
        let host = d.role != Role::Switch;
        let mut ports = Vec::with_capacity(d.ports.len());
        for (pi, p) in d.ports.iter().enumerate() {
            // The port's own settings (its speed's where the policy gives settings by speed);
            // ports that follow the policy as it is share its profile.
            let qos = match &p.settings {
                None if !q.has_speed_maps() => host as u32,
                Some(s) => State::intern(&mut profiles, profile(f, s, host)),
                None => {
                    let s = f.port_settings(rocelab_model::resolve::PortId { device: di, port: pi });
                    State::intern(&mut profiles, profile(f, &s, host))
                }
            };
            ports.push(PortState {
                name: p.name.clone(),
                speed: p.speed,
                link: p.link.map(|l| l as u32),
                qos,
                origin: None,
            });
        }
        let rdma = host && d.nics.iter().any(|n| !matches!(n.rdma_kind(), RdmaKind::None));
        devices.push(DeviceState {
            name: d.name.clone(),
            role: d.role,
            platform: d
                .platform
                .map(|p| p.name().to_string())
                .or_else(|| d.os.map(|o| format!("{o:?}").to_lowercase())),
            buffer: d.buffer.map(|b| b.as_bytes()),
            ports,
            rdma,
            protocols: d.storage.as_ref().map(|s| s.protocols.clone()).unwrap_or_default(),
            vxlan: d.vxlan,
            bonding: d.bonding,
            roce_lag: d.is_roce_lag(),
            origin: None,
            pools: Vec::new(),
        });
    }
    let links = f
        .links
        .iter()
        .map(|l| LinkState {
            a: End { device: l.a.device as u32, port: l.a.port as u32 },
            b: End { device: l.b.device as u32, port: l.b.port as u32 },
            speed: l.speed,
            cable: l.cable,
        })
        .collect();
    let mut class_names: [Option<String>; 8] = Default::default();
    for c in &q.classes {
        class_names[(c.priority & 7) as usize] = Some(c.name.clone());
    }
    let rdma = q.rdma_class();
    let cnp = q.cnp_class();
    let policy = Policy {
        lossless: q.classes.iter().filter(|c| c.lossless).fold(0, |m, c| m | (1 << (c.priority & 7))),
        rdma_priority: rdma.map(|c| c.priority),
        rdma_dscp: rdma.and_then(|c| c.dscp.first().copied()),
        cnp_priority: cnp.map(|c| c.priority),
        cnp_dscp: cnp.and_then(|c| c.dscp.first().copied()),
        trust: q.marking,
        roce_mtu: f.roce_mtu,
        roce_mtu_stated: true,
        dcqcn: q.dcqcn.enabled,
        response_time: q.pfc.response_time,
        alpha: q.buffer.alpha(),
        class_names,
        inferred: None,
    };
    State { name: f.name.clone(), devices, links, profiles, policy }
}
