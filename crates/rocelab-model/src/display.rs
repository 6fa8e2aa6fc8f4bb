//! A readable summary of a resolved fabric: devices (with a host's bond and addresses), ports, links with speed, cable and
//! propagation delay, the QoS classes (ECN per speed where given), the buffer settings, DCQCN
//! parameters, the hosts' RDMA transport and the simulation model with their sources, and the
//! classes each link carries with PFC at each end. [`json`] is the same as data.

use crate::fabric::Role;
use crate::resolve::{PortSettings, ResolvedFabric};
use std::fmt::Write;

/// Renders the summary `rocelab show` prints.
pub fn summary(f: &ResolvedFabric) -> String {
    let mut s = String::new();
    let _ = write_summary(&mut s, f);
    s
}

fn write_summary(s: &mut String, f: &ResolvedFabric) -> std::fmt::Result {
    let count = |r: Role| f.devices.iter().filter(|d| d.role == r).count();
    writeln!(s, "fabric {}", f.name)?;
    if let Some(d) = &f.description {
        writeln!(s, "  {d}")?;
    }
    writeln!(
        s,
        "\ndevices: {} ({} switches, {} hosts, {} storage targets)",
        f.devices.len(),
        count(Role::Switch),
        count(Role::Host),
        count(Role::Storage)
    )?;
    let w = f.devices.iter().map(|d| d.name.len()).max().unwrap_or(4).max(4);
    for d in &f.devices {
        let cabled = d.ports.iter().filter(|p| p.link.is_some()).count();
        match d.role {
            Role::Switch => writeln!(
                s,
                "  {:w$}  switch   {:14} {:16} buffer {:>6}  ports {} ({} cabled)",
                d.name,
                d.platform.map(|p| p.name()).unwrap_or("-"),
                d.model.as_deref().unwrap_or("-"),
                d.buffer.map(|b| b.to_string()).unwrap_or_default(),
                d.ports.len(),
                cabled
            )?,
            Role::Host | Role::Storage => {
                let nics: Vec<String> = d
                    .nics
                    .iter()
                    .map(|n| {
                        format!("{:?} {} {}x{} ({})", n.vendor, n.model, n.ports, n.speed, yaml_name(&n.rdma_kind()))
                            .to_lowercase()
                    })
                    .collect();
                let role = if d.role == Role::Host { "host" } else { "storage" };
                let os = d.os.map(|o| format!("{o:?}").to_lowercase()).unwrap_or_else(|| "-".into());
                write!(s, "  {:w$}  {role:8} {os:14} {}", d.name, nics.join(", "))?;
                if let Some(t) = &d.storage {
                    let protos: Vec<String> = t.protocols.iter().map(yaml_name).collect();
                    write!(s, "  serves {}", protos.join(", "))?;
                }
                if let Some(b) = &d.bonding {
                    let lag = if d.is_roce_lag() { " (RoCE LAG)" } else { "" };
                    write!(s, "  bond {}{lag}", yaml_name(b))?;
                }
                let addresses: Vec<&str> = d.nics.iter().flat_map(|n| n.addresses.iter().map(String::as_str)).collect();
                if !addresses.is_empty() {
                    write!(s, "  addresses {}", addresses.join(", "))?;
                }
                writeln!(s)?;
            }
        }
    }

    let q = &f.qos;
    writeln!(
        s,
        "\nqos: marking {}{}, mtu {}, RoCE path MTU {}",
        format!("{:?}", q.marking).to_lowercase(),
        q.vlan.map(|v| format!(" on VLAN {v}")).unwrap_or_default(),
        q.mtu,
        f.roce_mtu
    )?;
    writeln!(
        s,
        "  pfc {}, response time {}{}",
        if q.pfc.enabled { "on" } else { "off" },
        q.pfc.response_time,
        if q.pfc.link_pause { ", 802.3x link pause on" } else { "" }
    )?;
    let b = &q.buffer;
    writeln!(
        s,
        "  buffer alpha {}, headroom {}, reserve {}",
        b.alpha.as_ref().map(|a| a.describe(|v| v.to_string())).unwrap_or_else(|| q.buffer.alpha().to_string()),
        b.headroom.as_ref().map(|h| h.describe(|v| v.to_string())).unwrap_or_else(|| "computed".into()),
        b.reserve.as_ref().map(|r| r.describe(|v| v.to_string())).unwrap_or_else(|| "0B".into()),
    )?;
    writeln!(
        s,
        "  {:10} {:>4}  {:14} {:8} {:4} {:7} {:4} ecn kmin/kmax/pmax",
        "class", "prio", "dscp", "lossless", "pfc", "ets", "cnp"
    )?;
    for c in &q.classes {
        let dscp = c.dscp.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        let ets =
            if c.strict { "strict".to_string() } else { c.ets.map(|e| format!("{e}%")).unwrap_or_else(|| "-".into()) };
        let ecn = c
            .ecn
            .as_ref()
            .map(|e| e.describe(|e| format!("{}/{}/{}", e.kmin, e.kmax, e.pmax)))
            .unwrap_or_else(|| "-".into());
        writeln!(
            s,
            "  {:10} {:>4}  {:14} {:8} {:4} {:7} {:4} {}",
            c.name,
            c.priority,
            if dscp.is_empty() { "-".into() } else { dscp },
            if c.lossless { "yes" } else { "no" },
            if q.pfc.enabled && c.pfc_enabled() { "on" } else { "off" },
            ets,
            if c.cnp { "yes" } else { "" },
            ecn,
        )?;
    }
    let p = &f.dcqcn;
    writeln!(
        s,
        "\ndcqcn: {} (notification point {}, reaction point {})",
        if q.dcqcn.enabled { "on" } else { "off" },
        if p.notification_point { "on" } else { "off" },
        if p.reaction_point { "on" } else { "off" }
    )?;
    if q.dcqcn.enabled {
        let rows: [(&str, String); 18] = [
            ("g", format!("{}", p.g)),
            ("alpha_update_interval", p.alpha_update_interval.to_string()),
            ("initial_alpha", format!("{}", p.initial_alpha)),
            ("rate_increase_timer", p.rate_increase_timer.to_string()),
            ("byte_counter", p.byte_counter.to_string()),
            ("fast_recovery_steps", p.fast_recovery_steps.to_string()),
            ("additive_increase", p.additive_increase.to_string()),
            ("hyper_increase", p.hyper_increase.to_string()),
            ("cnp_interval", p.cnp_interval.to_string()),
            ("min_rate", p.min_rate.to_string()),
            ("rate_reduce_interval", p.rate_reduce_interval.to_string()),
            ("clamp_target_rate", p.clamp_target_rate.to_string()),
            ("clamp_target_rate_after_time_increase", p.clamp_target_rate_after_time_increase.to_string()),
            ("max_decrease", format!("{}", p.max_decrease)),
            ("rate_on_first_cnp", p.rate_on_first_cnp.map(|r| r.to_string()).unwrap_or_else(|| "-".into())),
            ("alpha_update", yaml_name(&p.alpha_update)),
            ("rate_reduce", yaml_name(&p.rate_reduce)),
            ("rate_increase", yaml_name(&p.rate_increase)),
        ];
        for (k, v) in rows {
            writeln!(s, "  {k:38} {v:>10}   {}", p.sources.get(k).map(String::as_str).unwrap_or(""))?;
        }
    }

    write_transport(s, f)?;
    writeln!(s, "\nsimulation model: {}", f.sim_model.profile.name())?;
    for k in crate::simmodel::SIM_MODEL_FIELDS {
        let src = f.sim_model.sources.get(k).map(String::as_str).unwrap_or("");
        writeln!(s, "  {k:20} {:>12}   {src}", f.sim_model.value_text(k))?;
    }

    writeln!(s, "\nlinks: {}", f.links.len())?;
    let labels: Vec<(String, String)> = f.links.iter().map(|l| (f.port_label(l.a), f.port_label(l.b))).collect();
    let wa = labels.iter().map(|(a, _)| a.len()).max().unwrap_or(1);
    let wb = labels.iter().map(|(_, b)| b.len()).max().unwrap_or(1);
    for (l, (a, b)) in f.links.iter().zip(&labels) {
        let classes = link_classes(f, &f.port_settings(l.a), &f.port_settings(l.b));
        writeln!(
            s,
            "  {a:wa$} -- {b:wb$}  {:>5}  {:>6}  {:>8}  {classes}",
            l.speed.to_string(),
            l.cable.to_string(),
            l.propagation.to_string()
        )?;
    }
    Ok(())
}

/// The RDMA transport of the hosts that run RDMA: once when every host runs the same, else per
/// group of hosts that do.
fn write_transport(s: &mut String, f: &ResolvedFabric) -> std::fmt::Result {
    let groups = f.rdma_transport_groups();
    for (hosts, t) in &groups {
        if groups.len() == 1 {
            writeln!(s, "\nrdma transport (every RDMA host, {}):", hosts.len())?;
        } else {
            writeln!(s, "\nrdma transport of {}:", host_list(f, hosts))?;
        }
        let rows = [
            ("window", t.window.to_string()),
            ("ack_every", t.ack_every.to_string()),
            ("ack_class", t.ack_class.clone().unwrap_or_else(|| "own class".into())),
            ("timeout", t.timeout.to_string()),
            ("retry_count", t.retry_count.to_string()),
            ("cnp", yaml_name(&t.cnp)),
        ];
        for (k, v) in rows {
            writeln!(s, "  {k:20} {v:>12}   {}", t.sources.get(k).map(String::as_str).unwrap_or(""))?;
        }
    }
    Ok(())
}

/// `a, b, c`, or the first eight and how many more.
fn host_list(f: &ResolvedFabric, hosts: &[usize]) -> String {
    let names: Vec<&str> = hosts.iter().take(8).map(|&i| f.devices[i].name.as_str()).collect();
    match hosts.len() {
        n if n > 8 => format!("{} and {} more", names.join(", "), n - 8),
        _ => names.join(", "),
    }
}

/// The resolved fabric as `rocelab show --format json` prints it: the fabric's fields and, as
/// `rdma_transport`, each group of RDMA hosts with its resolved transport (see
/// [`ResolvedFabric::rdma_transport_groups`]).
pub fn json(f: &ResolvedFabric) -> serde_json::Value {
    let mut v = serde_json::to_value(f).unwrap_or_default();
    let groups: Vec<serde_json::Value> = f
        .rdma_transport_groups()
        .into_iter()
        .map(|(hosts, t)| {
            let mut g = serde_json::to_value(&t).unwrap_or_default();
            let names: Vec<&str> = hosts.iter().map(|&i| f.devices[i].name.as_str()).collect();
            if let Some(m) = g.as_object_mut() {
                m.insert("hosts".into(), serde_json::json!(names));
            }
            g
        })
        .collect();
    if let Some(m) = v.as_object_mut() {
        m.insert("rdma_transport".into(), serde_json::Value::Array(groups));
    }
    v
}

/// A unit enum's name as the fabric file writes it (`roce-and-iwarp`, `nvme-rdma`).
fn yaml_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// `roce:pfc cnp:strict default:ets10`, with `pfc(a)`/`pfc(b)` where only one end pauses.
fn link_classes(f: &ResolvedFabric, a: &PortSettings, b: &PortSettings) -> String {
    let mut out = Vec::new();
    for (i, c) in f.qos.classes.iter().enumerate() {
        let (pa, pb) = (a.classes[i].pfc, b.classes[i].pfc);
        let mut tags = Vec::new();
        match (pa, pb) {
            (true, true) => tags.push("pfc".to_string()),
            (true, false) => tags.push("pfc(a only)".to_string()),
            (false, true) => tags.push("pfc(b only)".to_string()),
            (false, false) => {}
        }
        if c.strict {
            tags.push("strict".into());
        } else if let (Some(wa), Some(wb)) = (a.classes[i].ets, b.classes[i].ets) {
            tags.push(if wa == wb { format!("ets{wa}") } else { format!("ets{wa}/{wb}") });
        }
        if a.classes[i].ecn.is_some() || b.classes[i].ecn.is_some() {
            tags.push("ecn".into());
        }
        out.push(if tags.is_empty() { c.name.clone() } else { format!("{}:{}", c.name, tags.join(",")) });
    }
    if a.mtu != b.mtu {
        out.push(format!("(mtu {}/{})", a.mtu, b.mtu));
    }
    out.join(" ")
}
