//! One device as it is: its ports from the listed groups, the switch model's front panel or the
//! platform's naming, its adapters' ports, addresses and per-port QoS, each reference checked.

use super::*;

/// Said of a switch whose port list an error cuts short: the links to the ports it lacks are
/// not reported one by one (thousands of errors of one cause).
const UNCHECKED: &str = "; links to its ports not listed are not checked until this is fixed";

/// A port speed of zero cannot carry a frame: the simulator would divide by it and a switch
/// config would set the port to speed 0. `path` is the port group's or adapter's.
fn check_speeds(speed: Rate, speeds: &[Rate], path: &str, problems: &mut Vec<Problem>) {
    if speed.0 == 0 {
        problems.push(problem(format!("{path}.speed"), "the speed must be above 0 (e.g. `100G`)".into()));
    }
    if let Some(i) = speeds.iter().position(|s| s.0 == 0) {
        problems.push(problem(format!("{path}.speeds[{i}]"), "the speed must be above 0 (e.g. `25G`)".into()));
    }
}

pub(super) fn resolve_device(
    fabric: &Fabric,
    d: &Device,
    origin: &Origin,
    problems: &mut Vec<Problem>,
) -> (ResolvedDevice, HashMap<String, usize>, bool) {
    let mut ports: Vec<ResolvedPort> = Vec::new();
    let mut cut = false;
    let mut index: HashMap<String, usize> = HashMap::default();
    // Adds a port; false if the device already has one of that name (the caller reports it, so
    // that the field path is only formatted on the error path).
    let mut push = |ports: &mut Vec<ResolvedPort>, name: String, speed: Rate, speeds: &[Rate], nic: Option<usize>| {
        if index.contains_key(&name) {
            return Err(name);
        }
        index.insert(name.clone(), ports.len());
        ports.push(ResolvedPort { name, speed, speeds: speeds.to_vec(), nic, link: None, settings: None });
        Ok(())
    };
    let duplicate = |name: &str| format!("device `{}` has two ports named `{name}`", d.name);
    let model = d.model.as_deref().and_then(switch_model);
    let platform = d.platform.or(model.map(|m| m.platform)).unwrap_or(Platform::Generic);
    let mut buffer = None;
    let mut buffer_source = None;
    match d.role {
        Role::Switch => {
            if !d.nics.is_empty() {
                problems.push(problem(
                    origin.path("devices", "nics"),
                    format!("switch `{}` has NICs; switches have `ports`", d.name),
                ));
            }
            let from_model;
            let groups: &[crate::fabric::PortGroup] = if !d.ports.is_empty() {
                &d.ports
            } else if let Some(m) = model {
                from_model = m.port_groups();
                &from_model
            } else {
                let msg = match &d.model {
                    Some(name) => format!(
                        "switch `{}` lists no ports and rocelab does not know model `{name}`; list its `ports` (e.g. `{{names: eth1/1-32, speed: 100G}}`)",
                        d.name
                    ),
                    None => format!("switch `{}` lists no ports; list its `ports` or give a known `model`", d.name),
                };
                let mut p = problem(origin.path("devices", ""), msg);
                if let Some(name) = &d.model {
                    p.diag.suggestion =
                        did_you_mean(name, crate::catalog::SWITCH_MODELS.iter().flat_map(|m| m.names.iter().copied()));
                }
                problems.push(p);
                &[]
            };
            for (gi, g) in groups.iter().enumerate() {
                if matches!(origin, Origin::Listed(_)) {
                    check_speeds(g.speed, &g.speeds, &origin.path("devices", &format!("ports[{gi}]")), problems);
                }
                match expand_port_range(&g.names) {
                    Ok(mut names) => {
                        let listed = matches!(origin, Origin::Listed(_));
                        if listed && ports.len() + names.len() > MAX_SWITCH_PORTS {
                            problems.push(problem(
                                origin.path("devices", &format!("ports[{gi}]")),
                                format!(
                                    "switch `{}` has more than {MAX_SWITCH_PORTS} ports, the most rocelab models on one \
                                     switch{UNCHECKED}",
                                    d.name
                                ),
                            ));
                            // The ports up to the bound are made, so that links to them resolve.
                            names.truncate(MAX_SWITCH_PORTS - ports.len());
                            cut = true;
                        }
                        // One report per group: its names differ only in their numbers.
                        if let Some(e) = names.iter().find_map(|n| crate::names::switch_port(platform, n).err()) {
                            let field = if d.ports.is_empty() { "model".into() } else { format!("ports[{gi}].names") };
                            problems.push(crate::names::located(origin.path("devices", &field), e));
                        }
                        for n in names {
                            if let Err(n) = push(&mut ports, n, g.speed, &g.speeds, None) {
                                problems.push(problem(origin.path("devices", &format!("ports[{gi}]")), duplicate(&n)));
                            }
                        }
                    }
                    Err(e) => {
                        problems.push(problem(origin.path("devices", &format!("ports[{gi}].names")), e + UNCHECKED));
                        cut = true;
                    }
                }
                if cut {
                    break;
                }
            }
            let (b, src) = match (d.buffer, model, fabric.qos.buffer.size) {
                (Some(b), _, _) => (b, "set on the device".to_string()),
                (None, Some(m), _) => (m.buffer, m.source.to_string()),
                (None, None, Some(b)) => (b, "qos.buffer.size".to_string()),
                (None, None, None) => (
                    DEFAULT_SWITCH_BUFFER,
                    "rocelab default for an unknown switch (about a Trident2's 12MB)".to_string(),
                ),
            };
            buffer = Some(b);
            buffer_source = Some(src);
            if let Some(v) = &d.os_version {
                crate::release::check(platform, v, &origin.path("devices", "os_version"), problems);
            }
        }
        Role::Host | Role::Storage => {
            if d.os_version.is_some() {
                problems.push(problem(
                    origin.path("devices", "os_version"),
                    format!(
                        "`os_version` names a switch's software release; `{}` is a {}: remove it",
                        d.name,
                        if d.role == Role::Host { "host" } else { "storage device" }
                    ),
                ));
            }
            if !d.ports.is_empty() {
                problems.push(problem(
                    origin.path("devices", "ports"),
                    format!(
                        "`{}` is a {}; its ports come from its `nics`",
                        d.name,
                        if d.role == Role::Host { "host" } else { "storage target" }
                    ),
                ));
            }
            if d.nics.is_empty() {
                problems.push(problem(
                    origin.path("devices", ""),
                    format!("`{}` has no NIC; add `nic: {{vendor: …, model: …, speed: …}}`", d.name),
                ));
            }
            if d.role == Role::Storage && d.storage.is_none() {
                problems.push(problem(
                    origin.path("devices", ""),
                    format!("storage target `{}` needs `storage: {{kind: array, protocols: […]}}`", d.name),
                ));
            }
            let mut n = 0;
            for (ni, nic) in d.nics.iter().enumerate() {
                // Generated and imported adapters get their ports from bounded counts (a direct
                // target has one per host, an HPCC host one per link).
                if nic.ports > MAX_NIC_PORTS && matches!(origin, Origin::Listed(_)) {
                    let mut p = problem(
                        origin.path("devices", &format!("nics[{ni}].ports")),
                        format!(
                            "{} ports on one adapter; rocelab models at most {MAX_NIC_PORTS} (real adapters have 1 to 4)",
                            nic.ports
                        ),
                    );
                    p.diag.suggestion = Some("give the adapter's port count, or list several `nics`".into());
                    problems.push(p);
                }
                if matches!(origin, Origin::Listed(_)) {
                    check_speeds(nic.speed, &nic.speeds, &origin.path("devices", &format!("nics[{ni}]")), problems);
                }
                if nic.addresses.len() > nic.ports as usize {
                    problems.push(problem(
                        origin.path("devices", &format!("nics[{ni}].addresses")),
                        format!("{} addresses for {} ports", nic.addresses.len(), nic.ports),
                    ));
                }
                for (ai, a) in nic.addresses.iter().enumerate() {
                    if let Err(e) = crate::fabric::parse_cidr(a) {
                        problems.push(problem(origin.path("devices", &format!("nics[{ni}].addresses[{ai}]")), e));
                    }
                }
                if !nic.port_names.is_empty() && nic.port_names.len() != nic.ports as usize {
                    problems.push(problem(
                        origin.path("devices", &format!("nics[{ni}].port_names")),
                        format!("{} port names for {} ports", nic.port_names.len(), nic.ports),
                    ));
                }
                for (pi, name) in nic.port_names.iter().enumerate() {
                    if let Err(e) = crate::names::host_port(d.os, name) {
                        problems.push(crate::names::located(
                            origin.path("devices", &format!("nics[{ni}].port_names[{pi}]")),
                            e,
                        ));
                    }
                }
                // Past the bound, the first ports are made so that the links to them resolve and the
                // one error above is all that is reported.
                let count = if matches!(origin, Origin::Listed(_)) { nic.ports.min(MAX_NIC_PORTS) } else { nic.ports };
                for p in 0..count as usize {
                    let name = nic.port_names.get(p).cloned().unwrap_or_else(|| format!("p{n}"));
                    n += 1;
                    if let Err(name) = push(&mut ports, name, nic.speed, &nic.speeds, Some(ni)) {
                        problems.push(problem(origin.path("devices", &format!("nics[{ni}]")), duplicate(&name)));
                    }
                }
            }
        }
    }
    let rd = ResolvedDevice {
        name: d.name.clone(),
        role: d.role,
        platform: if d.role == Role::Switch { Some(platform) } else { None },
        model: d.model.clone(),
        os: d.os,
        os_version: d.os_version.clone(),
        nics: d.nics.clone(),
        storage: d.storage.clone(),
        vxlan: d.vxlan,
        bonding: d.bonding,
        tcp: d.tcp.clone(),
        cpu: d.cpu.clone(),
        buffer,
        buffer_source,
        ports,
    };
    (rd, index, cut)
}
