//! Consistency of the QoS policy itself (priorities, DSCP values, ETS sums, ECN thresholds,
//! MTUs) and application of the per-port overrides. Deeper, path-wide checks (PFC on every
//! hop, headroom, deadlock) belong to `rocelab-verify`; these are the ones without which the
//! fabric cannot even be described.

use crate::diag::did_you_mean;
use crate::diag::{problem, Problem};
use crate::qos::{BySpeed, Ecn, Marking, Qos};
use crate::resolve::{PortId, PortSettings, ResolvedFabric};
use crate::units::{Rate, Time};
use std::collections::HashMap;

pub(crate) const IB_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];

pub(crate) fn check_policy(q: &Qos, problems: &mut Vec<Problem>) {
    let p = |field: &str| format!("fabric.qos.{field}");
    if q.marking == Marking::Pcp && q.vlan.is_none() && !q.classes.iter().all(|c| c.priority == 0) {
        problems.push(problem(
            p("vlan"),
            "PCP marking needs a VLAN to carry the priority tag; set `vlan:` or use `marking: dscp`".into(),
        ));
    }
    if let Some(v) = q.vlan {
        if !(1..=4094).contains(&v) {
            problems.push(problem(p("vlan"), format!("VLAN {v} is outside 1-4094")));
        }
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut prios: HashMap<u8, &str> = HashMap::new();
    let mut dscps: HashMap<u8, &str> = HashMap::new();
    for (i, c) in q.classes.iter().enumerate() {
        let f = |field: &str| format!("fabric.qos.classes[{i}].{field}");
        if names.insert(&c.name, i).is_some() {
            problems.push(problem(f("name"), format!("duplicate class name `{}`", c.name)));
        }
        if c.priority > 7 {
            problems.push(problem(
                f("priority"),
                format!("priority {} is outside 0-7 (IEEE 802.1p has eight)", c.priority),
            ));
        } else if let Some(other) = prios.insert(c.priority, &c.name) {
            problems.push(problem(f("priority"), format!("priority {} is already class `{other}`", c.priority)));
        }
        if let Some(t) = c.queue.filter(|t| *t > 7) {
            problems
                .push(problem(f("queue"), format!("traffic class {t} is outside 0-7 (switches have eight queues)")));
        }
        for (j, d) in c.dscp.iter().enumerate() {
            if *d > 63 {
                problems.push(problem(
                    format!("fabric.qos.classes[{i}].dscp[{j}]"),
                    format!("DSCP {d} is above 63 (six bits)"),
                ));
            } else if let Some(other) = dscps.insert(*d, &c.name) {
                problems.push(problem(
                    format!("fabric.qos.classes[{i}].dscp[{j}]"),
                    format!("DSCP {d} is already class `{other}`"),
                ));
            }
        }
        if q.marking == Marking::Dscp && c.dscp.is_empty() && c.priority != 0 {
            problems.push(problem(f("dscp"), format!("class `{}` has no DSCP values but marking is `dscp`", c.name)));
        }
        if c.strict && c.ets.is_some() {
            problems.push(problem(
                f("ets"),
                format!("class `{}` is strict priority and has an ETS share; choose one", c.name),
            ));
        }
        if let Some(e) = c.ets {
            if e > 100 {
                problems.push(problem(f("ets"), format!("ETS share {e}% is above 100%")));
            }
        }
        if let Some(e) = &c.ecn {
            check_speeds(e, &f("ecn"), problems);
            for (speed, e) in e.entries() {
                check_ecn(e, &speed_path(&f("ecn"), speed), problems);
            }
        }
        if c.lossless && c.pfc == Some(false) {
            let mut pr = problem(
                f("pfc"),
                format!("class `{}` is lossless but has PFC off: it will drop under congestion", c.name),
            );
            pr.diag.severity = crate::diag::Severity::Warning;
            problems.push(pr);
        }
    }
    if q.classes.iter().filter(|c| c.cnp).count() > 1 {
        problems.push(problem(p("classes"), "more than one class has `cnp: true`".into()));
    }
    let weights: Vec<(String, u8)> = q.classes.iter().filter_map(|c| c.ets.map(|w| (c.name.clone(), w))).collect();
    check_ets_sum(&weights, "fabric.qos.classes".into(), "every port", problems);
    if !(576..=16384).contains(&q.mtu) {
        problems.push(problem(p("mtu"), format!("MTU {} is outside 576-16384 bytes", q.mtu)));
    }
    if let Some(m) = q.roce_mtu {
        if !IB_MTUS.contains(&m) {
            problems.push(problem(
                p("roce_mtu"),
                format!("RoCE path MTU {m} is not an InfiniBand MTU (256, 512, 1024, 2048, 4096)"),
            ));
        } else if m + 60 > q.mtu {
            problems.push(problem(
                p("roce_mtu"),
                format!("RoCE MTU {m} plus 60 bytes of RoCEv2 headers does not fit in the {}-byte port MTU", q.mtu),
            ));
        }
    }
    let b = &q.buffer;
    if let Some(a) = &b.alpha {
        check_speeds(a, &p("buffer.alpha"), problems);
        for (speed, a) in a.entries() {
            check_alpha(*a, speed_path(&p("buffer.alpha"), speed), problems);
        }
    }
    for (name, v) in [("buffer.headroom", &b.headroom), ("buffer.reserve", &b.reserve)] {
        if let Some(v) = v {
            check_speeds(v, &p(name), problems);
        }
    }
    check_dcqcn(&q.dcqcn, problems);
}

/// The path of one entry of a by-speed setting: the setting itself, or `setting.100G`.
fn speed_path(path: &str, speed: Option<Rate>) -> String {
    match speed {
        Some(s) => format!("{path}.{s}"),
        None => path.to_string(),
    }
}

/// A speed of 0 in a by-speed map matches no port.
fn check_speeds<T>(v: &BySpeed<T>, path: &str, problems: &mut Vec<Problem>) {
    if v.speeds().is_some_and(|m| m.contains_key(&Rate(0))) {
        let mut pr = problem(format!("{path}.0"), "a link speed of 0 matches no port".into());
        pr.diag.expected = Some("link speeds such as `100G`".into());
        problems.push(pr);
    }
}

/// A dynamic-threshold alpha must be a positive, finite number.
fn check_alpha(a: f64, path: String, problems: &mut Vec<Problem>) {
    if !(a > 0.0 && a <= 64.0) {
        let mut pr = problem(path, format!("alpha {a} must be above 0 (and at most 64)"));
        pr.diag.expected = Some("a number above 0 and at most 64, e.g. 0.125".into());
        problems.push(pr);
    }
}

/// DCQCN parameters out of range (a located error each).
fn check_dcqcn(d: &crate::qos::Dcqcn, problems: &mut Vec<Problem>) {
    let p = |f: &str| format!("fabric.qos.dcqcn.{f}");
    for (name, v) in [("g", d.g), ("initial_alpha", d.initial_alpha), ("max_decrease", d.max_decrease)] {
        if let Some(v) = v {
            if !(v > 0.0 && v <= 1.0) {
                problems.push(problem(p(name), format!("{name} {v} must be in (0, 1]")));
            }
        }
    }
    for (name, v) in
        [("alpha_update_interval", d.alpha_update_interval), ("rate_increase_timer", d.rate_increase_timer)]
    {
        if v == Some(Time::ZERO) {
            problems.push(problem(p(name), format!("{name} must be above 0: a timer of 0 fires without end")));
        }
    }
    for (name, v) in [
        ("alpha_update_interval", d.alpha_update_interval),
        ("rate_increase_timer", d.rate_increase_timer),
        ("cnp_interval", d.cnp_interval),
        ("rate_reduce_interval", d.rate_reduce_interval),
    ] {
        if let Some(t) = v.filter(|t| *t > Time::ms(1000)) {
            problems.push(problem(p(name), format!("{name} {t} is above 1s; DCQCN timers are microseconds")));
        }
    }
    let r = d.resolve();
    if r.rate_reduce == crate::qos::RateReduce::Periodic && r.rate_reduce_interval == Time::ZERO {
        let field = if d.rate_reduce_interval.is_some() { "rate_reduce_interval" } else { "rate_reduce" };
        let mut pr = problem(
            p(field),
            "a periodic rate reduction needs a rate_reduce_interval above 0: a period of 0 fires without end".into(),
        );
        pr.diag.expected = Some("`rate_reduce_interval` above 0, or `rate_reduce: on-cnp`".into());
        problems.push(pr);
    }
    if d.byte_counter.is_some_and(|b| b.as_bytes() == 0) {
        problems.push(problem(p("byte_counter"), "byte_counter must be above 0 bytes".into()));
    }
    if let Some(f) = d.fast_recovery_steps.filter(|f| *f > 31) {
        problems.push(problem(
            p("fast_recovery_steps"),
            format!("fast_recovery_steps {f} is above 31 (ConnectX's rpg_threshold range is 1-31)"),
        ));
    }
    for (name, v) in
        [("additive_increase", d.additive_increase), ("hyper_increase", d.hyper_increase), ("min_rate", d.min_rate)]
    {
        if v.is_some_and(|r| r.bits_per_second() == 0) {
            problems.push(problem(p(name), format!("{name} must be above 0 bit/s")));
        }
    }
}

fn check_ecn(e: &Ecn, path: &str, problems: &mut Vec<Problem>) {
    if e.kmin > e.kmax {
        problems.push(problem(format!("{path}.kmin"), format!("kmin {} is above kmax {}", e.kmin, e.kmax)));
    }
    if !(0.0..=1.0).contains(&e.pmax) {
        problems
            .push(problem(format!("{path}.pmax"), format!("pmax {} must be a probability between 0 and 1", e.pmax)));
    }
}

fn check_ets_sum(weights: &[(String, u8)], path: String, on: &str, problems: &mut Vec<Problem>) {
    if weights.is_empty() {
        return;
    }
    let sum: u32 = weights.iter().map(|(_, w)| *w as u32).sum();
    if sum != 100 {
        let terms: Vec<String> = weights.iter().map(|(n, w)| format!("{n} {w}")).collect();
        problems.push(problem(
            path,
            format!("ETS weights on {on} sum to {sum} ({}); they must sum to 100", terms.join(" + ")),
        ));
    }
}

/// A setting that may be given per link speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum SpeedSetting {
    /// A class's `ecn`, by class index.
    Ecn(usize),
    Alpha,
    Headroom,
    Reserve,
}

/// Gives every port the policy at its speed when the policy has by-speed settings, then applies
/// the `qos.ports` overrides; reports a cabled port whose speed a by-speed setting lacks (unless
/// an override gives that port the value), override names that do not resolve and the resulting
/// ETS sums.
pub(crate) fn apply_port_settings(f: &mut ResolvedFabric, problems: &mut Vec<Problem>) {
    let q = f.qos.clone();
    // (setting, speed) -> ports lacking it, in port order.
    let mut missing: Vec<((SpeedSetting, Rate), Vec<PortId>)> = Vec::new();
    if q.has_speed_maps() {
        let b = &q.buffer;
        let mut maps: Vec<(SpeedSetting, Vec<Rate>)> = Vec::new();
        fn keys<T>(m: &std::collections::BTreeMap<Rate, T>) -> Vec<Rate> {
            m.keys().copied().collect()
        }
        for (ci, c) in q.classes.iter().enumerate() {
            if let Some(m) = c.ecn.as_ref().and_then(BySpeed::speeds) {
                maps.push((SpeedSetting::Ecn(ci), keys(m)));
            }
        }
        if let Some(m) = b.alpha.as_ref().and_then(BySpeed::speeds) {
            maps.push((SpeedSetting::Alpha, keys(m)));
        }
        if let Some(m) = b.headroom.as_ref().and_then(BySpeed::speeds) {
            maps.push((SpeedSetting::Headroom, keys(m)));
        }
        if let Some(m) = b.reserve.as_ref().and_then(BySpeed::speeds) {
            maps.push((SpeedSetting::Reserve, keys(m)));
        }
        for di in 0..f.devices.len() {
            for pi in 0..f.devices[di].ports.len() {
                let id = PortId { device: di, port: pi };
                let speed = f.port_speed(id);
                if f.port(id).link.is_some() {
                    for (setting, speeds) in &maps {
                        if !speeds.contains(&speed) {
                            match missing.iter_mut().find(|(k, _)| *k == (*setting, speed)) {
                                Some((_, ports)) => ports.push(id),
                                None => missing.push(((*setting, speed), vec![id])),
                            }
                        }
                    }
                }
                f.devices[di].ports[pi].settings = Some(PortSettings::for_speed(&q, speed));
            }
        }
    }
    let mut covered = std::collections::HashSet::new();
    apply_port_overrides(f, &q, &mut covered, problems);
    for (key, ports) in &mut missing {
        ports.retain(|p| !covered.contains(&(key.0, p.device, p.port)));
    }
    report_missing_speeds(f, &q, &missing, problems);
}

/// A buffer pool (`qos.buffer.pools`) of 0 bytes: an egress lossy pool of 0 would drop every
/// lossy frame in the simulator (it limits lossy egress queues in that pool), and a pool of 0 is
/// no pool on any platform. A pool is not checked against the switch buffer: the catalog's
/// buffer sizes are the data sheets' round figures (the Demartek guide's SN2410 egress pool of
/// 16 777 000 bytes is more than its "16MB"), and the simulator keeps the egress lossy pool
/// within the buffer.
pub(crate) fn check_pools(f: &ResolvedFabric, problems: &mut Vec<Problem>) {
    let Some(pools) = &f.qos.buffer.pools else { return };
    let named = [
        ("ingress_lossless", pools.ingress_lossless),
        ("ingress_lossy", pools.ingress_lossy),
        ("egress_lossless", pools.egress_lossless),
        ("egress_lossy", pools.egress_lossy),
    ];
    for (name, size) in named {
        if size.is_some_and(|s| s.as_bytes() == 0) {
            let mut pr = problem(format!("fabric.qos.buffer.pools.{name}"), format!("the {name} pool is 0 bytes"));
            pr.diag.expected = Some("a size above 0, such as 4MiB".into());
            pr.diag.suggestion = Some("leave it out to have it derived from the switch buffer".into());
            problems.push(pr);
        }
    }
}

/// One error per by-speed setting and missing speed, at the setting, naming the first port.
fn report_missing_speeds(
    f: &ResolvedFabric,
    q: &Qos,
    missing: &[((SpeedSetting, Rate), Vec<PortId>)],
    problems: &mut Vec<Problem>,
) {
    for ((setting, speed), ports) in missing {
        let Some(first) = ports.first() else { continue };
        let more = match ports.len() - 1 {
            0 => String::new(),
            1 => " (and 1 more port)".to_string(),
            n => format!(" (and {n} more ports)"),
        };
        let what =
            |field: &str| format!("`{field}` has no entry for {speed}, the speed of {}{more}", f.port_label(*first));
        let (path, message, expected) = match setting {
            SpeedSetting::Ecn(ci) => (
                format!("fabric.qos.classes[{ci}].ecn"),
                format!("class `{}`: {}", q.classes[*ci].name, what("ecn")),
                format!("`{speed}: {{kmin, kmax, pmax}}`"),
            ),
            SpeedSetting::Alpha => {
                ("fabric.qos.buffer.alpha".into(), what("alpha"), format!("`{speed}: <alpha, a number above 0>`"))
            }
            SpeedSetting::Headroom => {
                ("fabric.qos.buffer.headroom".into(), what("headroom"), format!("`{speed}: <a size such as 100KB>`"))
            }
            SpeedSetting::Reserve => {
                ("fabric.qos.buffer.reserve".into(), what("reserve"), format!("`{speed}: <a size such as 4KiB>`"))
            }
        };
        let mut p = problem(path, message);
        p.diag.expected = Some(expected);
        problems.push(p);
    }
}

/// Applies `qos.ports` overrides to the ports they name; checks the names and the resulting
/// ETS sums. `covered` gets each (setting, device, port) an override gives a value, which a
/// by-speed setting then need not have.
fn apply_port_overrides(
    f: &mut ResolvedFabric,
    q: &Qos,
    covered: &mut std::collections::HashSet<(SpeedSetting, usize, usize)>,
    problems: &mut Vec<Problem>,
) {
    if q.ports.is_empty() {
        return;
    }
    let by_name: HashMap<&str, usize> = f.devices.iter().enumerate().map(|(i, d)| (d.name.as_str(), i)).collect();
    let class_idx = |name: &str| q.classes.iter().position(|c| c.name == name);
    let mut targets: Vec<(usize, usize, usize)> = Vec::new();
    for (oi, o) in q.ports.iter().enumerate() {
        for (k, name) in o.ports.iter().enumerate() {
            let path = format!("fabric.qos.ports[{oi}].ports[{k}]");
            let Some((dev, port)) = name.split_once(':') else {
                let mut p = problem(path, format!("`{name}` is not a port reference"));
                p.diag.suggestion = Some("write `device:port`, or `device:*` for all its ports".into());
                problems.push(p);
                continue;
            };
            let Some(&di) = by_name.get(dev) else {
                let mut p = problem(path, format!("no device `{dev}`"));
                p.diag.suggestion = did_you_mean(dev, f.devices.iter().map(|d| d.name.as_str()));
                problems.push(p);
                continue;
            };
            if port == "*" {
                targets.extend((0..f.devices[di].ports.len()).map(|pi| (oi, di, pi)));
            } else if let Some(pi) = f.devices[di].ports.iter().position(|p| p.name == port) {
                targets.push((oi, di, pi));
            } else {
                let mut p = problem(path, format!("device `{dev}` has no port `{port}`"));
                p.diag.suggestion = did_you_mean(port, f.devices[di].ports.iter().map(|p| p.name.as_str()));
                problems.push(p);
            }
        }
        let maps: [(&str, Vec<&String>); 6] = [
            ("ets", o.ets.iter().flat_map(|m| m.keys()).collect()),
            ("pfc", o.pfc.iter().flat_map(|m| m.keys()).collect()),
            ("ecn", o.ecn.iter().flat_map(|m| m.keys()).collect()),
            ("dscp", o.dscp.iter().flat_map(|m| m.keys()).collect()),
            ("priority", o.priority.iter().flat_map(|m| m.keys()).collect()),
            ("queue", o.queue.iter().flat_map(|m| m.keys()).collect()),
        ];
        for (field, keys) in maps {
            for k in keys {
                if class_idx(k).is_none() {
                    let mut p = problem(format!("fabric.qos.ports[{oi}].{field}.{k}"), format!("no class `{k}`"));
                    p.diag.suggestion = did_you_mean(k, q.classes.iter().map(|c| c.name.as_str()));
                    problems.push(p);
                }
            }
        }
        if let Some(ecn) = &o.ecn {
            for (k, e) in ecn {
                check_ecn(e, &format!("fabric.qos.ports[{oi}].ecn.{k}"), problems);
            }
        }
        for (k, p) in o.priority.iter().flatten() {
            if *p > 7 {
                problems.push(problem(
                    format!("fabric.qos.ports[{oi}].priority.{k}"),
                    format!("priority {p} is outside 0-7 (IEEE 802.1p has eight)"),
                ));
            }
        }
        for (k, q) in o.queue.iter().flatten() {
            if *q > 7 {
                problems.push(problem(
                    format!("fabric.qos.ports[{oi}].queue.{k}"),
                    format!("traffic class {q} is outside 0-7 (switches have eight queues)"),
                ));
            }
        }
        for (k, list) in o.dscp.iter().flatten() {
            for d in list.iter().filter(|d| **d > 63) {
                problems.push(problem(
                    format!("fabric.qos.ports[{oi}].dscp.{k}"),
                    format!("DSCP {d} is above 63 (six bits)"),
                ));
            }
        }
        if let Some(a) = o.alpha {
            check_alpha(a, format!("fabric.qos.ports[{oi}].alpha"), problems);
        }
        if let Some(p) = o.cnp_priority.filter(|p| *p > 7) {
            problems.push(problem(
                format!("fabric.qos.ports[{oi}].cnp_priority"),
                format!("priority {p} is outside 0-7 (IEEE 802.1p has eight)"),
            ));
        }
    }
    let mut touched: Vec<(usize, usize, usize)> = Vec::new();
    for (oi, di, pi) in targets {
        let o = &q.ports[oi];
        let id = PortId { device: di, port: pi };
        let speed = f.port_speed(id);
        let mut covered = |setting: SpeedSetting| {
            covered.insert((setting, di, pi));
        };
        if o.alpha.is_some() {
            covered(SpeedSetting::Alpha);
        }
        if o.headroom.is_some() {
            covered(SpeedSetting::Headroom);
        }
        if o.reserve.is_some() {
            covered(SpeedSetting::Reserve);
        }
        for (ci, c) in q.classes.iter().enumerate() {
            if o.ecn.as_ref().is_some_and(|m| m.contains_key(&c.name)) {
                covered(SpeedSetting::Ecn(ci));
            }
        }
        let port = &mut f.devices[di].ports[pi];
        let s = port.settings.get_or_insert_with(|| PortSettings::for_speed(q, speed));
        if let Some(m) = o.mtu {
            s.mtu = m;
        }
        if let Some(m) = o.marking {
            s.marking = m;
        }
        if o.headroom.is_some() {
            s.headroom = o.headroom;
        }
        if let Some(a) = o.alpha {
            s.alpha = a;
        }
        if let Some(r) = o.reserve {
            s.reserve = r;
        }
        if let Some(v) = o.link_pause {
            s.link_pause = v;
        }
        if o.xoff.is_some() {
            s.xoff = o.xoff;
        }
        if o.roce_tos.is_some() {
            s.roce_tos = o.roce_tos;
        }
        if o.cnp_priority.is_some() {
            s.cnp_priority = o.cnp_priority;
        }
        if let Some(d) = o.dcqcn {
            s.dcqcn_np = d.notification_point.unwrap_or(s.dcqcn_np);
            s.dcqcn_rp = d.reaction_point.unwrap_or(s.dcqcn_rp);
        }
        if o.dcbx_willing.is_some() {
            s.dcbx_willing = o.dcbx_willing;
        }
        for (ci, c) in q.classes.iter().enumerate() {
            if let Some(w) = o.ets.as_ref().and_then(|m| m.get(&c.name)) {
                s.classes[ci].ets = Some(*w);
            }
            if let Some(v) = o.pfc.as_ref().and_then(|m| m.get(&c.name)) {
                s.classes[ci].pfc = *v;
            }
            if let Some(e) = o.ecn.as_ref().and_then(|m| m.get(&c.name)) {
                s.classes[ci].ecn = Some(e.clone());
            }
            if let Some(d) = o.dscp.as_ref().and_then(|m| m.get(&c.name)) {
                s.classes[ci].dscp = d.clone();
            }
            if let Some(p) = o.priority.as_ref().and_then(|m| m.get(&c.name)) {
                s.classes[ci].priority = *p;
            }
            if let Some(t) = o.queue.as_ref().and_then(|m| m.get(&c.name)) {
                s.classes[ci].queue = *t;
            }
        }
        if o.ets.is_some() {
            touched.push((oi, di, pi));
        }
    }
    let mut reported = std::collections::HashSet::new();
    for (oi, di, pi) in touched {
        if reported.contains(&oi) {
            continue;
        }
        let d = &f.devices[di];
        let s = d.ports[pi].settings.as_ref().expect("override applied above");
        let weights: Vec<(String, u8)> =
            q.classes.iter().zip(&s.classes).filter_map(|(c, pc)| pc.ets.map(|w| (c.name.clone(), w))).collect();
        let before = problems.len();
        check_ets_sum(
            &weights,
            format!("fabric.qos.ports[{oi}].ets"),
            &format!("port {}:{}", d.name, d.ports[pi].name),
            problems,
        );
        if problems.len() > before {
            // One report per override is enough; its other ports would say the same.
            reported.insert(oi);
        }
    }
}
