//! What every renderer needs from the resolved fabric, in one place: a device's cabled ports with
//! the QoS in force on each (the policy with `qos.ports` overrides), each class seen from that
//! port (priority, switch traffic class, DSCP, PFC, ETS, strict, ECN), and the peer at the other
//! end of the cable.

use crate::finding::{Finding, Findings};
use rocelab_model::qos::{Ecn, Marking, PortOverride};
use rocelab_model::resolve::{PortId, PortSettings, ResolvedDevice, ResolvedFabric};
use rocelab_model::units::{Length, Rate};
use serde::Serialize;
use std::rc::Rc;

/// One class as a port applies it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassView {
    pub name: String,
    /// IEEE 802.1p priority.
    pub priority: u8,
    /// Switch traffic class (egress queue).
    pub queue: u8,
    pub dscp: Vec<u8>,
    /// PFC (no-drop) on this priority.
    pub pfc: bool,
    pub lossless: bool,
    /// ETS share in percent, when the class has one.
    pub ets: Option<u8>,
    /// Strict priority instead of an ETS share.
    pub strict: bool,
    pub ecn: Option<Ecn>,
    /// Carries CNPs.
    pub cnp: bool,
}

/// A cabled port of a device and the QoS it applies. The settings and class views are shared
/// (reference-counted) between the ports that have no `qos.ports` override, so that a spine's
/// hundreds of ports cost one copy of the policy, not one each.
#[derive(Debug, Clone)]
pub struct PortView {
    pub id: PortId,
    pub name: String,
    pub speed: Rate,
    pub cable: Length,
    pub peer_id: PortId,
    pub peer_role: rocelab_model::Role,
    /// MTU of the port at the other end (the sender into this port's buffer).
    pub peer_mtu: u32,
    pub settings: Rc<PortSettings>,
    pub classes: Rc<[ClassView]>,
}

impl PortView {
    /// `device:port` at the other end of the cable.
    pub fn peer(&self, f: &ResolvedFabric) -> String {
        f.port_label(self.peer_id)
    }
    /// Priorities with PFC on, ascending.
    pub fn pfc_priorities(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self.classes.iter().filter(|c| c.pfc).map(|c| c.priority).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
    pub fn marking(&self) -> Marking {
        self.settings.marking
    }
    /// The eight-entry PFC vector (`0,0,0,1,0,0,0,0`) NIC tools take.
    pub fn pfc_vector(&self) -> String {
        let on = self.pfc_priorities();
        (0..8u8).map(|p| if on.contains(&p) { "1" } else { "0" }).collect::<Vec<_>>().join(",")
    }
    /// Whether any class has an ETS share (else the scheduler is left alone).
    pub fn has_ets(&self) -> bool {
        self.classes.iter().any(|c| c.ets.is_some())
    }
    pub fn class(&self, name: &str) -> Option<&ClassView> {
        self.classes.iter().find(|c| c.name == name)
    }
    /// PFC headroom this port's lossless priority groups need: the fabric's where it sets one,
    /// else rocelab's headroom function ([`rocelab_model::headroom`]) for this cable and speed.
    pub fn headroom(&self, f: &ResolvedFabric) -> u64 {
        rocelab_model::headroom::port_headroom(f, self.id, self.settings.headroom)
    }
    /// The class RDMA uses on this port: the first lossless one.
    pub fn rdma_class(&self) -> Option<&ClassView> {
        self.classes.iter().find(|c| c.lossless)
    }
}

/// The classes of the policy as one port applies them.
pub fn class_views(f: &ResolvedFabric, s: &PortSettings) -> Vec<ClassView> {
    f.qos
        .classes
        .iter()
        .zip(&s.classes)
        .map(|(c, pc)| ClassView {
            name: c.name.clone(),
            priority: pc.priority,
            queue: pc.queue,
            dscp: pc.dscp.clone(),
            pfc: pc.pfc,
            lossless: c.lossless,
            ets: if c.strict { None } else { pc.ets },
            strict: c.strict,
            ecn: pc.ecn.clone(),
            cnp: c.cnp,
        })
        .collect()
}

/// The cabled ports of a device, in the device's port order. Ports without a cable are not
/// configured: rocelab renders what the fabric describes.
pub fn cabled_ports(f: &ResolvedFabric, device: usize) -> Vec<PortView> {
    let d = &f.devices[device];
    let policy = Rc::new(PortSettings::from_policy(&f.qos));
    let policy_classes: Rc<[ClassView]> = class_views(f, &policy).into();
    d.ports
        .iter()
        .enumerate()
        .filter_map(|(pi, p)| {
            let l = &f.links[p.link?];
            let id = PortId { device, port: pi };
            let other = f.peer(id)?;
            let (settings, classes) = match &p.settings {
                None => (policy.clone(), policy_classes.clone()),
                Some(s) => (Rc::new(s.clone()), class_views(f, s).into()),
            };
            Some(PortView {
                id,
                name: p.name.clone(),
                speed: l.speed,
                cable: l.cable,
                peer_id: other,
                peer_role: f.devices[other.device].role,
                peer_mtu: f.port(other).settings.as_ref().map_or(f.qos.mtu, |s| s.mtu),
                settings,
                classes,
            })
        })
        .collect()
}

/// Devices have no QoS of their own until a port is cabled: say so rather than render nothing.
pub fn no_ports_finding(d: &ResolvedDevice) -> Finding {
    Finding::warning(&d.name, None, "no cabled ports: nothing to configure on this device".to_string())
}

/// Bytes to a whole number of `unit`-byte units; a remainder is reported as a rounding.
pub fn whole_units(bytes: u64, unit: u64) -> (u64, bool) {
    let n = (bytes + unit / 2) / unit;
    (n.max(1), bytes % unit != 0)
}

/// The switch ports of `d` that share one device-wide setting must agree on it; report the ports
/// that differ from the first and return the first port's value.
pub fn device_wide<T: PartialEq + Clone + std::fmt::Debug>(
    d: &ResolvedDevice,
    ports: &[PortView],
    what: &str,
    why: &str,
    get: impl Fn(&PortView) -> T,
    findings: &mut Findings,
) -> Option<T> {
    let first = ports.first().map(&get)?;
    for p in &ports[1..] {
        let v = get(p);
        if v != first {
            findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "{what} differs from port {} ({v:?} here, {first:?} there) but {why}; rendered {first:?} for the whole device",
                    ports[0].name
                ),
            ));
        }
    }
    Some(first)
}

/// One egress queue (switch traffic class) of a port and what the classes in it ask of it.
#[derive(Debug, Clone)]
pub struct QueueView<'a> {
    pub queue: u8,
    pub classes: Vec<&'a ClassView>,
    /// 802.1p priorities of those classes, ascending.
    pub priorities: Vec<u8>,
    pub strict: bool,
    /// Sum of the classes' ETS shares; none when no class has one (or the queue is strict).
    pub ets: Option<u32>,
    /// The first class's ECN thresholds.
    pub ecn: Option<&'a Ecn>,
    /// A class in the queue has PFC on.
    pub pfc: bool,
}

impl QueueView<'_> {
    /// The classes' names, for findings.
    pub fn names(&self) -> String {
        self.classes.iter().map(|c| format!("`{}`", c.name)).collect::<Vec<_>>().join(", ")
    }
}

/// The queues a port's classes use, ascending.
pub fn queues(p: &PortView) -> Vec<QueueView<'_>> {
    let mut out: Vec<QueueView> = Vec::new();
    for c in p.classes.iter() {
        let i = match out.iter().position(|q| q.queue == c.queue) {
            Some(i) => i,
            None => {
                out.push(QueueView {
                    queue: c.queue,
                    classes: Vec::new(),
                    priorities: Vec::new(),
                    strict: false,
                    ets: None,
                    ecn: None,
                    pfc: false,
                });
                out.len() - 1
            }
        };
        let q = &mut out[i];
        q.classes.push(c);
        q.priorities.push(c.priority);
        q.strict |= c.strict;
        if let Some(e) = c.ets {
            q.ets = Some(q.ets.unwrap_or(0) + u32::from(e));
        }
        if q.ecn.is_none() {
            q.ecn = c.ecn.as_ref();
        }
        q.pfc |= c.pfc;
    }
    for q in &mut out {
        q.priorities.sort_unstable();
        q.priorities.dedup();
        if q.strict {
            q.ets = None;
        }
    }
    out.sort_by_key(|q| q.queue);
    out
}

/// Whether two ports apply the same classes apart from PFC (priority, queue, DSCP, ETS, strict,
/// ECN): what a device-wide QoS policy must agree on.
pub fn same_policy(a: &PortView, b: &PortView) -> bool {
    same_classes(a, b, true)
}

/// Like [`same_policy`], apart from ECN (which some platforms set per port or profile).
pub fn same_policy_but_ecn(a: &PortView, b: &PortView) -> bool {
    same_classes(a, b, false)
}

fn same_classes(a: &PortView, b: &PortView, with_ecn: bool) -> bool {
    Rc::ptr_eq(&a.classes, &b.classes)
        || (a.classes.len() == b.classes.len()
            && a.classes.iter().zip(b.classes.iter()).all(|(x, y)| {
                x.name == y.name
                    && x.priority == y.priority
                    && x.queue == y.queue
                    && x.dscp == y.dscp
                    && x.ets == y.ets
                    && x.strict == y.strict
                    && (!with_ecn || x.ecn == y.ecn)
            }))
}

/// The port a device-wide QoS policy is rendered from (the first cabled one), with a warning for
/// each port whose classes differ from it; `why` says what makes the policy device-wide.
pub fn policy_port<'a>(
    d: &ResolvedDevice,
    ports: &'a [PortView],
    why: &str,
    findings: &mut Findings,
) -> Option<&'a PortView> {
    first_port_warning_others(d, ports, why, findings, true)
}

/// [`policy_port`] for platforms that take ECN apart from the rest of the policy: ports whose
/// classes differ from the first port's in ECN alone are left to the caller (see
/// [`ecn_switch_wide`]); any other difference is reported as `policy_port` reports it.
pub fn policy_port_ecn_apart<'a>(
    d: &ResolvedDevice,
    ports: &'a [PortView],
    why: &str,
    findings: &mut Findings,
) -> Option<&'a PortView> {
    first_port_warning_others(d, ports, why, findings, false)
}

fn first_port_warning_others<'a>(
    d: &ResolvedDevice,
    ports: &'a [PortView],
    why: &str,
    findings: &mut Findings,
    with_ecn: bool,
) -> Option<&'a PortView> {
    let first = ports.first()?;
    let what = if with_ecn { "priority, queue, DSCP, ETS or ECN" } else { "priority, queue, DSCP or ETS" };
    for p in &ports[1..] {
        if !same_classes(first, p, with_ecn) {
            findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "this port's classes ({what}) differ from port {}'s but {why}; rendered port {}'s for the whole switch",
                    first.name, first.name
                ),
            ));
        }
    }
    Some(first)
}

/// A switch's cabled ports (with a finding when it has none) and the priorities with PFC on at
/// any of them, ascending: what every switch renderer starts from.
pub fn switch_ports(f: &ResolvedFabric, device: usize, findings: &mut Findings) -> (Vec<PortView>, Vec<u8>) {
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(&f.devices[device]));
    }
    let pfc = device_pfc(&ports);
    (ports, pfc)
}

/// Whether a `qos.ports` override names port `port` of device `device` (`device:port` or
/// `device:*`).
pub fn override_names(o: &PortOverride, device: &str, port: &str) -> bool {
    o.ports.iter().any(|r| r.split_once(':').is_some_and(|(d, p)| d == device && (p == "*" || p == port)))
}

/// Whether the fabric gives port `p` of device `d` its lossless priority groups' alpha: in
/// `qos.buffer.alpha` (one value or by speed) or a `qos.ports` override. A port whose alpha is
/// not given keeps the switch's own: nothing is rendered for it.
pub fn alpha_given(f: &ResolvedFabric, d: &ResolvedDevice, p: &PortView) -> bool {
    f.qos.buffer.alpha.is_some() || f.qos.ports.iter().any(|o| o.alpha.is_some() && override_names(o, &d.name, &p.name))
}

/// Whether the fabric gives port `p` of device `d` the bytes reserved to its lossless priority
/// groups: in `qos.buffer.reserve` (one value or by speed) or a `qos.ports` override.
pub fn reserve_given(f: &ResolvedFabric, d: &ResolvedDevice, p: &PortView) -> bool {
    f.qos.buffer.reserve.is_some()
        || f.qos.ports.iter().any(|o| o.reserve.is_some() && override_names(o, &d.name, &p.name))
}

/// Port names for a finding: `swp1, swp2, swp3`, the first eight and how many more.
pub fn port_list<S: AsRef<str>>(names: &[S]) -> String {
    const SHOWN: usize = 8;
    let mut out = names.iter().take(SHOWN).map(|n| n.as_ref()).collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    out
}

/// `ports` grouped by a value, in the order each value first appears.
pub fn group_by<'a, T: PartialEq>(
    ports: &[&'a PortView],
    value: impl Fn(&PortView) -> T,
) -> Vec<(T, Vec<&'a PortView>)> {
    let mut out: Vec<(T, Vec<&'a PortView>)> = Vec::new();
    for p in ports {
        let v = value(p);
        match out.iter_mut().find(|(x, _)| *x == v) {
            Some((_, ps)) => ps.push(p),
            None => out.push((v, vec![p])),
        }
    }
    out
}

/// A warning about `ports` of device `d`: naming the port when there is one, listing them in the
/// message otherwise.
pub fn ports_warning(d: &ResolvedDevice, ports: &[&PortView], message: impl Fn(&str) -> String) -> Finding {
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    match names[..] {
        [one] => Finding::warning(&d.name, Some(one), message("this port")),
        _ => Finding::warning(&d.name, None, message(&format!("ports {}", port_list(&names)))),
    }
}

/// `0.125`, as the fabric file writes an alpha.
pub fn alpha_label(a: f64) -> String {
    format!("{a}")
}

/// Warnings for a platform on which rocelab renders neither the lossless priority groups'
/// dynamic-threshold alpha nor their reserved bytes: one per setting the fabric gives, naming
/// the ports and their values, which the switch does not get (`why` says why).
pub fn buffer_not_rendered(
    f: &ResolvedFabric,
    d: &ResolvedDevice,
    ports: &[PortView],
    why: &str,
    findings: &mut Findings,
) {
    alpha_not_rendered(f, d, ports, why, findings);
    reserve_not_rendered(f, d, ports, why, findings);
}

/// The warning of [`buffer_not_rendered`] for the alpha alone.
pub fn alpha_not_rendered(
    f: &ResolvedFabric,
    d: &ResolvedDevice,
    ports: &[PortView],
    why: &str,
    findings: &mut Findings,
) {
    let given: Vec<&PortView> = lossless_ports(ports).filter(|p| alpha_given(f, d, p)).collect();
    not_rendered(
        d,
        "the dynamic-threshold alpha of the lossless priority groups is",
        &given,
        |p| format!("alpha {}", alpha_label(p.settings.alpha)),
        why,
        findings,
    );
}

/// The warning of [`buffer_not_rendered`] for the reserved bytes alone.
pub fn reserve_not_rendered(
    f: &ResolvedFabric,
    d: &ResolvedDevice,
    ports: &[PortView],
    why: &str,
    findings: &mut Findings,
) {
    let given: Vec<&PortView> = lossless_ports(ports).filter(|p| reserve_given(f, d, p)).collect();
    not_rendered(
        d,
        "the bytes reserved to the lossless priority groups are",
        &given,
        |p| format!("reserve {}", p.settings.reserve),
        why,
        findings,
    );
}

/// The ports with a lossless priority group (PFC on a priority).
fn lossless_ports(ports: &[PortView]) -> impl Iterator<Item = &PortView> {
    ports.iter().filter(|p| !p.pfc_priorities().is_empty())
}

fn not_rendered(
    d: &ResolvedDevice,
    what: &str,
    given: &[&PortView],
    value: impl Fn(&PortView) -> String,
    why: &str,
    findings: &mut Findings,
) {
    if given.is_empty() {
        return;
    }
    let values: Vec<String> = group_by(given, value)
        .iter()
        .map(|(v, ps)| format!("{v} on {}", port_list(&ps.iter().map(|p| p.name.as_str()).collect::<Vec<_>>())))
        .collect();
    findings.push(ports_warning(d, given, |_| {
        format!("{what} not rendered ({}): {why}; the switch keeps its own", values.join("; "))
    }));
}

/// The ECN thresholds of each egress queue of a port, ascending by queue: what a switch-wide or
/// per-profile ECN setting must agree on.
pub fn ecn_of(p: &PortView) -> Vec<(u8, Option<Ecn>)> {
    queues(p).into_iter().map(|q| (q.queue, q.ecn.cloned())).collect()
}

/// `queue 3 Kmin 400000 B, Kmax 1600000 B, Pmax 0.2`, the queues with ECN (or `no ECN`).
pub fn ecn_label(ecn: &[(u8, Option<Ecn>)]) -> String {
    let with: Vec<String> = ecn
        .iter()
        .filter_map(|(q, e)| {
            e.as_ref().map(|e| {
                format!("queue {q} Kmin {} B, Kmax {} B, Pmax {}", e.kmin.as_bytes(), e.kmax.as_bytes(), e.pmax)
            })
        })
        .collect();
    if with.is_empty() {
        "no ECN".into()
    } else {
        with.join("; ")
    }
}

/// For platforms with one ECN setting for the whole switch: the ports whose ECN thresholds
/// differ from the first port's (by speed, or by a `qos.ports` override) get a warning naming
/// them and their values. Ports reported by [`policy_port_ecn_apart`] for other differences are
/// not reported again.
pub fn ecn_switch_wide(d: &ResolvedDevice, ports: &[PortView], why: &str, findings: &mut Findings) {
    let Some(first) = ports.first() else { return };
    let rendered = ecn_of(first);
    let differing: Vec<&PortView> =
        ports[1..].iter().filter(|p| same_policy_but_ecn(first, p) && ecn_of(p) != rendered).collect();
    for (ecn, group) in group_by(&differing, ecn_of) {
        findings.push(ports_warning(d, &group, |which| {
            format!(
                "ECN of {which} ({}) differs from port {}'s ({}) but {why}; rendered port {}'s for the whole switch",
                ecn_label(&ecn),
                first.name,
                ecn_label(&rendered),
                first.name
            )
        }));
    }
}

/// Whether port `p` gets IEEE 802.3x link pause: asked for and without PFC. Both asked for is a
/// warning (`platform` allows one or the other on a port) and PFC wins.
pub fn link_pause(d: &ResolvedDevice, p: &PortView, platform: &str, findings: &mut Findings) -> bool {
    let pfc = !p.pfc_priorities().is_empty();
    if p.settings.link_pause && pfc {
        findings.push(Finding::warning(
            &d.name,
            Some(&p.name),
            format!("link pause and PFC on the same port, which {platform} does not allow; rendered PFC only"),
        ));
    }
    p.settings.link_pause && !pfc
}

/// Priorities with PFC on at any port of the device, ascending.
pub fn device_pfc(ports: &[PortView]) -> Vec<u8> {
    let mut v: Vec<u8> = ports.iter().flat_map(|p| p.pfc_priorities()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The longest cable of `ports`, whole metres rounded up (switches size PFC headroom from it).
pub fn longest_cable_m(ports: &[PortView]) -> u64 {
    ports.iter().map(|p| p.cable.as_metres_f64().ceil() as u64).max().unwrap_or(0)
}

/// `0-2,4-7`: values as a compact list of ranges (the form Dell and NVUE take).
pub fn ranges(values: &[u8]) -> String {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j == i { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(",")
}

/// Whole percent of a probability (`0.01` → 1), at least 1.
pub fn percent(p: f64) -> u8 {
    ((p * 100.0).round() as i64).clamp(1, 100) as u8
}

/// Smallest integers `1..=max` whose ratio best matches the given shares, for schedulers that
/// take weights rather than percentages. Shares of 0 stay 0. Returns the weights and the largest
/// difference (in percentage points) between a share and what the weights give.
pub fn weights_for(shares: &[u8], max: u32) -> (Vec<u32>, f64) {
    let total: u32 = shares.iter().map(|s| *s as u32).sum();
    if total == 0 {
        return (vec![0; shares.len()], 0.0);
    }
    let target: Vec<f64> = shares.iter().map(|s| *s as f64 / total as f64).collect();
    let mut best: Option<(Vec<u32>, f64)> = None;
    // Scale so that the largest share gets `top`, for every `top` up to `max`, and keep the
    // closest; ties go to the smaller weights.
    let largest = *shares.iter().max().unwrap_or(&1) as f64;
    for top in 1..=max {
        let w: Vec<u32> = shares
            .iter()
            .map(|s| if *s == 0 { 0 } else { ((*s as f64 / largest) * top as f64).round().max(1.0) as u32 })
            .collect();
        if w.iter().any(|x| *x > max) {
            continue;
        }
        let sum: u32 = w.iter().sum();
        let err = w.iter().zip(&target).map(|(x, t)| ((*x as f64 / sum as f64) - t).abs()).fold(0.0, f64::max);
        if best.as_ref().is_none_or(|(_, e)| err < *e - 1e-12) {
            best = Some((w, err));
        }
    }
    let (w, err) = best.unwrap_or_else(|| (shares.iter().map(|s| (*s as u32).max(1)).collect(), 1.0));
    (w, err * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_reproduce_the_demartek_comware_byte_counts() {
        // 87/13 is as close as Comware's 1-15 weights get to the guide's 13:2 (86.7 %).
        let (w, err) = weights_for(&[13, 87], 15);
        assert_eq!(w, vec![2, 13]);
        assert!(err < 0.5, "{err}");
        // 90/10 is exact at 9:1.
        assert_eq!(weights_for(&[10, 90], 15).0, vec![1, 9]);
        // A share of 0 stays 0 and an exact split keeps its error at 0.
        let (w, err) = weights_for(&[0, 50, 50], 15);
        assert_eq!(w, vec![0, 1, 1]);
        assert_eq!(err, 0.0);
    }

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[0, 1, 2, 4, 5, 6, 7]), "0-2,4-7");
        assert_eq!(ranges(&[26]), "26");
        assert_eq!(ranges(&[3, 1, 3]), "1,3");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn whole_units_rounds_and_says_so() {
        assert_eq!(whole_units(150_000, 1000), (150, false));
        assert_eq!(whole_units(150_500, 1000), (151, true));
        assert_eq!(whole_units(10, 1000), (1, true));
    }
}

/// The software release a switch's configuration is rendered for, and whether it is the
/// platform's default (the header comment of the output says which).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Release {
    pub name: String,
    /// The device named no `os_version`.
    pub default: bool,
}

impl Release {
    /// Whether this release is `at_least` or later, comparing dot-separated numbers (`5.10` is
    /// after `5.9`).
    pub fn at_least(&self, at_least: &str) -> bool {
        let parts = |s: &str| s.split('.').map(|p| p.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>();
        parts(&self.name) >= parts(at_least)
    }
}

/// The release of switch `d`: its `os_version`, else its platform's default.
pub fn release(d: &ResolvedDevice) -> Release {
    let platform = d.platform.unwrap_or(rocelab_model::fabric::Platform::Generic);
    match &d.os_version {
        Some(v) => Release { name: v.clone(), default: false },
        None => Release { name: platform.default_release().unwrap_or("").to_string(), default: true },
    }
}

/// The VLAN switch ports carry tagged under PCP marking (`qos.vlan`): the hosts tag RoCE with
/// its 802.1p priority, so the switch ports facing them and each other must admit that VLAN
/// tagged. `None` under DSCP marking or without a VLAN.
pub fn pcp_vlan(f: &ResolvedFabric) -> Option<u16> {
    f.qos.vlan.filter(|_| f.qos.marking == Marking::Pcp)
}
