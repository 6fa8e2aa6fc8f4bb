//! Checks 3, 4 and 5: PFC headroom per (port, priority group) and in total; ECN on the lossless
//! queues with Kmin < Kmax, marking before the XOFF point; ETS weights, bandwidth for the
//! lossless class, CNPs strict or guaranteed.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_DCQCN, SRC_NVIDIA_ROCE, SRC_QAZ};
use crate::state::{End, Sched};
use rocelab_model::headroom::{required_headroom, Headroom, HeadroomInput, Response, SOURCE as HEADROOM_SOURCE};
use std::collections::HashMap;

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

pub fn check(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    let (needs, computed) = needs(cx);
    // Per switch: total headroom (configured, else what rocelab would configure).
    // Ordered by device, so that findings merged over devices list them in a stable order.
    let mut total: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for n in &needs {
        let required = &computed[n.required];
        *total.entry(n.end.device).or_default() += n.configured.unwrap_or(required.bytes);
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
    // Per switch: the bytes reserved to its lossless priority groups, which the shared pool does
    // not hold either.
    let mut reserved: HashMap<u32, u64> = HashMap::new();
    for n in &needs {
        *reserved.entry(n.end.device).or_default() += s.qos(n.end).reserve[n.pg as usize].unwrap_or(0);
    }
    let mut shared_of: HashMap<u32, f64> = HashMap::new();
    for (dev, t) in &total {
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
        // The shared pool: the buffer less headroom and reserved bytes. Not defined when they
        // leave none (headroom alone is reported above).
        let r = reserved.get(dev).copied().unwrap_or(0);
        if t + r < buf {
            shared_of.insert(*dev, (buf - t - r) as f64);
        }
    }
    out.extend(ecn(cx, &shared_of));
    out.extend(ets(cx));
    out
}

/// The XOFF point of one congested lossless priority group of a port under a dynamic threshold:
/// its reserved bytes, then its share of the shared pool, T = alpha × (shared − T), so
/// T = alpha × shared / (1 + alpha) (Choudhury & Hahne), with the port's own alpha.
fn dynamic_xoff(alpha: f64, reserve: u64, shared: f64) -> u64 {
    reserve + (alpha * shared / (1.0 + alpha)) as u64
}

/// Check 4. Each port is judged with its own settings: the ECN thresholds of its egress queue
/// (its speed's, where the policy gives them per speed) against the XOFF point of its own
/// lossless priority group (its static XOFF, else its alpha and reserved bytes on the switch's
/// shared pool), the point at which a port of its speed pauses its upstream when it is the one
/// congested ingress.
fn ecn(cx: &Ctx, shared: &HashMap<u32, f64>) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    // Whether alpha or reserve differ by port (per speed, or a port override): then the findings
    // say which the port has.
    let per_port = s
        .profiles
        .iter()
        .any(|q| q.alpha.is_some_and(|a| a != pol.alpha) || q.reserve.iter().flatten().any(|r| *r > 0));
    for (pi, q) in s.profiles.iter().enumerate() {
        let ports: Vec<End> = cx.egress[pi].iter().copied().filter(|e| cx.is_switch_port(*e)).collect();
        if ports.is_empty() {
            continue;
        }
        for p in pol.lossless_priorities() {
            let queue = q.priority_to_queue[p as usize] as usize & 7;
            let Some(e) = q.ecn[queue] else {
                out.push(Draft {
                    id: "ECN-OFF",
                    severity: if pol.dcqcn { Severity::Error } else { Severity::Warning },
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("no ECN marking on egress queue {queue} of lossless priority {p}"),
                    why: if pol.dcqcn {
                        "DCQCN senders slow down only on ECN marks; without them congestion is handled by PFC alone, which spreads it".into()
                    } else {
                        "PFC alone pushes congestion back hop by hop (congestion spreading, victim flows); ECN lets DCQCN slow the senders first".into()
                    },
                    fix: "configure ECN (RED) on the lossless queue with Kmin below the PFC XOFF point".into(),
                    source: SRC_DCQCN,
                    others: Vec::new(),
                });
                continue;
            };
            if e.kmin >= e.kmax {
                out.push(Draft {
                    id: "ECN-ORDER",
                    severity: Severity::Error,
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("ECN Kmin {} B is not below Kmax {} B", e.kmin, e.kmax),
                    why: "the marking probability ramp between Kmin and Kmax is empty or inverted: marking jumps from none to all".into(),
                    fix: "set Kmin below Kmax".into(),
                    source: SRC_DCQCN,
                    others: Vec::new(),
                });
            }
            // The XOFF point: per port, static if configured, else its dynamic one.
            let pg = q.priority_to_pg[p as usize] as usize & 7;
            let alpha = q.alpha.unwrap_or(pol.alpha);
            let reserve = q.reserve[pg].unwrap_or(0);
            let mut by_xoff: HashMap<u64, Vec<End>> = HashMap::new();
            for port in &ports {
                let x = q.xoff[pg].or_else(|| shared.get(&port.device).map(|sh| dynamic_xoff(alpha, reserve, *sh)));
                if let Some(x) = x {
                    by_xoff.entry(x).or_default().push(*port);
                }
            }
            let of_port = if per_port && q.xoff[pg].is_none() {
                format!(" (this port's alpha {alpha}, reserve {reserve} B)")
            } else {
                String::new()
            };
            let mut groups: Vec<(u64, Vec<End>)> = by_xoff.into_iter().collect();
            groups.sort_by_key(|(x, _)| *x);
            for (x, ports) in groups {
                if e.kmin >= x {
                    out.push(Draft {
                        id: "ECN-ABOVE-XOFF",
                        severity: Severity::Error,
                        ports,
                        device: None,
                        class: Some(pol.class_label(p)),
                        what: format!("ECN Kmin {} B is not below the PFC XOFF point of about {x} B{of_port}", e.kmin),
                        why: "PFC pauses the upstream before any packet is marked, so DCQCN never sees congestion and PFC does all the work".into(),
                        fix: format!("lower Kmin below {x} B, or raise the XOFF threshold"),
                        source: SRC_DCQCN,
                        others: Vec::new(),
                    });
                } else if e.kmax > x {
                    out.push(Draft {
                        id: "ECN-ABOVE-XOFF",
                        severity: Severity::Note,
                        ports,
                        device: None,
                        class: Some(pol.class_label(p)),
                        what: format!(
                            "ECN Kmax {} B is above the XOFF point of about {x} B of one congested ingress{of_port}",
                            e.kmax
                        ),
                        why: "with a single congested ingress, PFC triggers before marking reaches Pmax; with many ingresses feeding the queue it does not".into(),
                        fix: "consider Kmax below the XOFF point".into(),
                        source: SRC_DCQCN,
                        others: Vec::new(),
                    });
                }
            }
        }
    }
    out
}

/// Check 5.
fn ets(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let pol = &s.policy;
    let mut out = Vec::new();
    for (pi, q) in s.profiles.iter().enumerate() {
        let ports = cx.egress[pi].clone();
        if ports.is_empty() {
            continue;
        }
        let weights: Vec<(usize, u8)> = q
            .sched
            .iter()
            .enumerate()
            .filter_map(|(i, x)| if let Sched::Ets(w) = x { Some((i, *w)) } else { None })
            .collect();
        if weights.is_empty() {
            continue;
        }
        let sum: u32 = weights.iter().map(|(_, w)| *w as u32).sum();
        if sum != 100 {
            let terms: Vec<String> = weights.iter().map(|(i, w)| format!("queue {i} {w}")).collect();
            out.push(Draft {
                id: "ETS-SUM",
                severity: Severity::Error,
                ports: ports.clone(),
                device: None,
                class: None,
                what: format!("ETS weights sum to {sum} ({})", terms.join(" + ")),
                why: "IEEE 802.1Qaz bandwidth shares are percentages of the link: devices reject the set or rescale it, so no class gets the share intended".into(),
                fix: "make the ETS weights of the port sum to 100".into(),
                source: SRC_QAZ,
                others: Vec::new(),
            });
        }
        for p in pol.lossless_priorities() {
            let queue = q.priority_to_queue[p as usize] as usize & 7;
            if matches!(q.sched[queue], Sched::Unset | Sched::Ets(0)) {
                out.push(Draft {
                    id: "ETS-LOSSLESS",
                    severity: Severity::Error,
                    ports: ports.clone(),
                    device: None,
                    class: Some(pol.class_label(p)),
                    what: format!("queue {queue} of lossless priority {p} has no ETS share and is not strict"),
                    why: "under load the lossless class is starved by the weighted classes; its queue grows until PFC pauses the fabric".into(),
                    fix: format!("give queue {queue} an ETS share (the RDMA guides use 50-90%)"),
                    source: SRC_QAZ,
                    others: Vec::new(),
                });
            }
        }
        if let Some(c) = pol.cnp_priority {
            let queue = q.priority_to_queue[c as usize] as usize & 7;
            if matches!(q.sched[queue], Sched::Unset | Sched::Ets(0)) {
                out.push(Draft {
                    id: "ETS-CNP",
                    severity: Severity::Warning,
                    ports,
                    device: None,
                    class: Some(pol.class_label(c)),
                    what: format!("CNP queue {queue} is neither strict priority nor given an ETS share"),
                    why:
                        "CNPs delayed behind data arrive late; DCQCN senders react after the queue has already built up"
                            .into(),
                    fix: format!(
                        "make queue {queue} strict priority (NVIDIA's RoCE recommendation) or give it a share"
                    ),
                    source: SRC_NVIDIA_ROCE,
                    others: Vec::new(),
                });
            }
        }
    }
    out
}
