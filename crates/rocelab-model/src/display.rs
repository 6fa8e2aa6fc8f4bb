//! A readable summary of a resolved fabric: devices (with a host's bond and addresses), ports, links with speed, cable and
//! propagation delay, the QoS classes, DCQCN parameters with their sources, and the classes
//! each link carries with PFC at each end.

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
        "  pfc {}, response time {}, buffer alpha {}{}",
        if q.pfc.enabled { "on" } else { "off" },
        q.pfc.response_time,
        q.buffer.alpha(),
        if q.pfc.link_pause { ", 802.3x link pause on" } else { "" }
    )?;
    writeln!(
        s,
        "  {:10} {:>4}  {:14} {:8} {:4} {:7} {:24} cnp",
        "class", "prio", "dscp", "lossless", "pfc", "ets", "ecn kmin/kmax/pmax"
    )?;
    for c in &q.classes {
        let dscp = c.dscp.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        let ets =
            if c.strict { "strict".to_string() } else { c.ets.map(|e| format!("{e}%")).unwrap_or_else(|| "-".into()) };
        let ecn = c.ecn.as_ref().map(|e| format!("{}/{}/{}", e.kmin, e.kmax, e.pmax)).unwrap_or_else(|| "-".into());
        writeln!(
            s,
            "  {:10} {:>4}  {:14} {:8} {:4} {:7} {:24} {}",
            c.name,
            c.priority,
            if dscp.is_empty() { "-".into() } else { dscp },
            if c.lossless { "yes" } else { "no" },
            if q.pfc.enabled && c.pfc_enabled() { "on" } else { "off" },
            ets,
            ecn,
            if c.cnp { "yes" } else { "" }
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
        let rows: [(&str, String); 15] = [
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
        ];
        for (k, v) in rows {
            writeln!(s, "  {k:38} {v:>10}   {}", p.sources.get(k).map(String::as_str).unwrap_or(""))?;
        }
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

/// `roce:pfc cnp:strict default:ets10`, with `pfc(a)`/`pfc(b)` where only one end pauses.
/// A unit enum's name as the fabric file writes it (`roce-and-iwarp`, `nvme-rdma`).
fn yaml_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

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
