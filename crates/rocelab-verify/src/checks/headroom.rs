//! PFC headroom: per lossless (switch port, priority group) against what speed, cable, MTU and
//! response time put in flight after XOFF, and per switch in total against its buffer and
//! pools. What the buffer leaves for the shared pool ([`Budget::shared`]) is where the ECN
//! check finds a port's XOFF point.

use super::{Ctx, Draft};
use crate::finding::Severity;
use crate::state::End;
use rocelab_model::headroom::{required_headroom, Headroom, HeadroomInput, Response, SOURCE as HEADROOM_SOURCE};
use std::collections::{BTreeMap, HashMap};

/// Headroom a switch port needs per lossless priority group, and what it has configured.
struct PortNeed {
    end: End,
    pg: u8,
    priority: u8,
    /// Index into the computed headrooms.
    required: usize,
    configured: Option<u64>,
}

/// Every lossless (switch port, priority group) with its required headroom; equal inputs share
/// one computation.
fn needs(cx: &Ctx) -> (Vec<PortNeed>, Vec<Headroom>) {
    let s = cx.s;
    let pol = &s.policy;
    let mut cache: HashMap<(u64, u64, u32, u32), usize> = HashMap::new();
    let mut computed: Vec<Headroom> = Vec::new();
    let mut out = Vec::new();
    for l in &s.links {
        for (rx, tx) in [(l.a, l.b), (l.b, l.a)] {
            if !s.is_switch(rx.device) {
                continue;
            }
            let q = s.qos(rx);
            if q.unknown {
                continue;
            }
            let mut seen = 0u8;
            for p in pol.lossless_priorities().filter(|p| q.pfc_on(*p)) {
                let pg = q.priority_to_pg[p as usize] & 7;
                if seen & (1 << pg) != 0 {
                    continue;
                }
                seen |= 1 << pg;
                let tx_mtu = if s.qos(tx).unknown { q.mtu } else { s.qos(tx).mtu };
                let key = (l.speed.bits_per_second(), l.cable.as_mm(), q.mtu, tx_mtu);
                let required = *cache.entry(key).or_insert_with(|| {
                    computed.push(required_headroom(&HeadroomInput {
                        speed: l.speed,
                        cable: l.cable,
                        receiver_mtu: q.mtu,
                        sender_mtu: tx_mtu,
                        response: Response::Time(pol.response_time),
                    }));
                    computed.len() - 1
                });
                out.push(PortNeed { end: rx, pg, priority: p, required, configured: q.headroom[pg as usize] });
            }
        }
    }
    (out, computed)
}

/// The headroom of every switch and what its buffer leaves for the shared pool, computed once
/// per run ([`Ctx::budget`]) for the headroom and ECN checks.
pub struct Budget {
    needs: Vec<PortNeed>,
    computed: Vec<Headroom>,
    /// Per switch: total headroom (configured, else what rocelab would configure), ordered by
    /// device so that findings merged over devices list them in a stable order.
    total: BTreeMap<u32, u64>,
    /// Per switch: the shared pool, the buffer less headroom and reserved bytes. Absent when
    /// they leave none (headroom alone is then reported).
    pub shared: HashMap<u32, f64>,
}

pub fn budget(cx: &Ctx) -> Budget {
    let s = cx.s;
    let (needs, computed) = needs(cx);
    let mut total: BTreeMap<u32, u64> = BTreeMap::new();
    for n in &needs {
        *total.entry(n.end.device).or_default() += n.configured.unwrap_or(computed[n.required].bytes);
    }
    // Per switch: the bytes reserved to its lossless priority groups, which the shared pool does
    // not hold either.
    let mut reserved: HashMap<u32, u64> = HashMap::new();
    for n in &needs {
        *reserved.entry(n.end.device).or_default() += s.qos(n.end).reserve[n.pg as usize].unwrap_or(0);
    }
    let mut shared = HashMap::new();
    for (dev, t) in &total {
        let Some(buf) = s.devices[*dev as usize].buffer else { continue };
        let r = reserved.get(dev).copied().unwrap_or(0);
        if t + r < buf {
            shared.insert(*dev, (buf - t - r) as f64);
        }
    }
    Budget { needs, computed, total, shared }
}

pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    let Budget { needs, computed, total, .. } = cx.budget();
    for n in needs {
        let required = &computed[n.required];
        if let Some(c) = n.configured {
            if c < required.bytes {
                let l = s.port(n.end).link.map(|l| &s.links[l as usize]);
                out.push(Draft {
                    id: "HEADROOM-SHORT",
                    severity: Severity::Error,
                    ports: vec![n.end],
                    device: None,
                    class: Some(pol.class_label(n.priority)),
                    what: format!(
                        "priority group {} has {c} B of headroom; {} at {} over {} needs {}",
                        n.pg,
                        cx.label(s.peer(s.port(n.end).link.unwrap_or(0), n.end)),
                        l.map(|l| l.speed.to_string()).unwrap_or_default(),
                        l.map(|l| l.cable.to_string()).unwrap_or_default(),
                        required.explain()
                    ),
                    why: "what is in flight after XOFF does not fit: the lossless priority group drops packets at the very moment PFC should protect them".into(),
                    fix: format!("configure at least {} B of headroom for this priority group (or shorten the cable, lower the MTU)", required.bytes),
                    source: HEADROOM_SOURCE,
                    others: Vec::new(),
                });
            }
        }
    }
    for (dev, t) in total {
        let d = &s.devices[*dev as usize];
        let Some(buf) = d.buffer else { continue };
        if *t >= buf {
            out.push(Draft {
                id: "HEADROOM-BUFFER",
                severity: Severity::Error,
                ports: Vec::new(),
                device: Some(d.name.clone()),
                class: None,
                what: format!("headroom of all lossless priority groups adds up to {t} B, more than the {buf} B buffer"),
                why: "the switch cannot reserve it: the configuration is refused or headroom is silently cut, and lossless traffic is dropped".into(),
                fix: "reduce lossless priorities or ports, shorten cables or lower the MTU, or use a switch with more buffer".into(),
                source: HEADROOM_SOURCE,
                others: Vec::new(),
            });
        }
        // Headroom is reserved outside the shared pools: headroom and the ingress pools the
        // switch is configured with must fit the buffer together.
        let pools: u64 = d.pools.iter().filter(|p| p.ingress).map(|p| p.size).sum();
        if pools > 0 && *t < buf && t + pools > buf {
            out.push(Draft {
                id: "HEADROOM-BUFFER",
                severity: Severity::Error,
                ports: Vec::new(),
                device: Some(d.name.clone()),
                class: None,
                what: format!(
                    "headroom of all lossless priority groups ({t} B) and the ingress pools ({}) add up to {} B, more than the {buf} B buffer",
                    d.pools.iter().filter(|p| p.ingress).map(|p| format!("{} {} B", p.name, p.size)).collect::<Vec<_>>().join(", "),
                    t + pools
                ),
                why: "the pools are carved from what headroom leaves: the switch refuses the pool sizes or shrinks them, and the lossless pool fills sooner than its configuration says".into(),
                fix: "shrink the ingress pools to fit the buffer less the headroom".into(),
                source: HEADROOM_SOURCE,
                others: Vec::new(),
            });
        }
    }
    out
}
