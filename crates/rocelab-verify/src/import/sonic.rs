//! SONiC `config_db.json` (`/etc/sonic/config_db.json`, the CONFIG_DB tables as the SONiC
//! Configuration wiki documents them).
//!
//! Understood tables and fields: `DEVICE_METADATA.localhost.hostname`; `PORT` (`mtu`,
//! `speed` in Mb/s; `alias`, `lanes`, `admin_status`, `description`, `index`, `fec`,
//! `autoneg` do not affect QoS); `PORT_QOS_MAP` (`dscp_to_tc_map`, `tc_to_queue_map`,
//! `tc_to_pg_map`, `pfc_enable`, `pfc_to_queue_map`, `pfc_to_pg_map`, `dot1p_to_tc_map`);
//! `DSCP_TO_TC_MAP`, `TC_TO_QUEUE_MAP`, `TC_TO_PRIORITY_GROUP_MAP`, `DOT1P_TO_TC_MAP`,
//! `MAP_PFC_PRIORITY_TO_QUEUE`; `QUEUE` (`scheduler`, `wred_profile`); `SCHEDULER` (`type`
//! STRICT or DWRR/WRR, `weight`); `WRED_PROFILE` (`ecn`, `green_min_threshold`,
//! `green_max_threshold`, `green_drop_probability`); `BUFFER_PG` (`profile`) and
//! `BUFFER_PROFILE` (`xoff`: the headroom of a lossless PG, `xon`, `size`, `pool`,
//! `dynamic_th`); `BUFFER_POOL` (`size` of the ingress lossless pool); `BUFFER_QUEUE`
//! (`Ethernet0|3-4` → a profile whose `pool` is an egress lossless pool or not); `CABLE_LENGTH`
//! (the cable a port's headroom was sized for, `5m`); `VLAN` (`vlanid`, `mtu`) and
//! `VLAN_MEMBER` (`Vlan1000|Ethernet0` with `tagging_mode` `tagged` or `untagged`). Port
//! aliases (`PORT.<name>.alias`, `etp1`) are kept: SONiC's lldpd sends them as the port ID.
//! Keys that list several ports (`Ethernet0,Ethernet4|3-4`), as the Configuration guide's
//! `PORT_QOS_MAP` and `BUFFER_QUEUE` examples do, apply to each.
//! Map references are accepted in both forms SONiC has used: `AZURE` and `[DSCP_TO_TC_MAP|AZURE]`.
//!
//! A queue that no `QUEUE` entry gives a `scheduler` is recorded as such
//! ([`PortQos::ets_scheduled`]): the switch serves it outside any ETS share. Tables that do not
//! bear on QoS (NTP, syslog, SNMP, AAA/TACACS+/RADIUS, management interface and VRF, spanning
//! tree, banner, telemetry, …) are counted by the lines they span and not listed.
//!
//! SONiC classifies by DSCP wherever a port has a `dscp_to_tc_map`, and by 802.1p where it has
//! a `dot1p_to_tc_map` only; a traffic class is the PFC priority. DWRR weights are turned into
//! percentages of the port's weighted queues, as the scheduler shares bandwidth.
//! Every other table and field is reported with the line it is on.

use super::{DeviceConfig, NotUnderstood};
use crate::state::{EcnState, PortQos, PortVlans, Sched};
use rocelab_model::qos::Marking;
use rocelab_model::units::{Length, Rate};
use serde_json::{Map, Value};

/// Line of the first `"key"` at or after `from` (1-based), for reports.
fn line_of(text: &str, key: &str, from: usize) -> usize {
    let needle = format!("\"{key}\"");
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(&needle))
        .map(|(i, _)| i + 1)
        .unwrap_or(from.max(1))
}

const TABLES: &[&str] = &[
    "DEVICE_METADATA",
    "PORT",
    "PORT_QOS_MAP",
    "DSCP_TO_TC_MAP",
    "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "DOT1P_TO_TC_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "QUEUE",
    "SCHEDULER",
    "WRED_PROFILE",
    "BUFFER_PG",
    "BUFFER_PROFILE",
    "BUFFER_POOL",
    "BUFFER_QUEUE",
    "CABLE_LENGTH",
    "VLAN",
    "VLAN_MEMBER",
];

/// CONFIG_DB tables that do not bear on QoS (the SONiC Configuration guide's NTP, syslog,
/// TACACS+, management interface/port/VRF, versions and flex counter tables, and the SNMP,
/// AAA, RADIUS, spanning tree, banner, console, telemetry and feature tables of SONiC's YANG
/// models): counted, not listed.
const IGNORED_TABLES: &[&str] = &[
    "AAA",
    "AUTO_TECHSUPPORT",
    "AUTO_TECHSUPPORT_FEATURE",
    "BANNER_MESSAGE",
    "CONSOLE_PORT",
    "CONSOLE_SWITCH",
    "CRM",
    "DNS_NAMESERVER",
    "FEATURE",
    "FLEX_COUNTER_TABLE",
    "GNMI",
    "KDUMP",
    "LOGGER",
    "MGMT_INTERFACE",
    "MGMT_PORT",
    "MGMT_VRF_CONFIG",
    "NTP",
    "NTP_KEY",
    "NTP_SERVER",
    "PASSW_HARDENING",
    "RADIUS",
    "RADIUS_SERVER",
    "RESTAPI",
    "SNMP",
    "SNMP_AGENT_ADDRESS_CONFIG",
    "SNMP_COMMUNITY",
    "SNMP_USER",
    "SSH_SERVER",
    "STP",
    "STP_PORT",
    "STP_VLAN",
    "STP_VLAN_PORT",
    "SYSLOG_CONFIG",
    "SYSLOG_SERVER",
    "SYSTEM_DEFAULTS",
    "TACPLUS",
    "TACPLUS_SERVER",
    "TELEMETRY",
    "VERSIONS",
];

/// How many lines the value of the top-level `"key"` spans in the text (its braces matched,
/// strings skipped), at least 1.
fn lines_spanned(text: &str, key: &str) -> usize {
    let needle = format!("\"{key}\"");
    let Some(at) = text.find(&needle) else { return 1 };
    let rest = &text[at + needle.len()..];
    let Some(open) = rest.find(['{', '[']) else { return 1 };
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, c) in rest[open..].char_indices() {
        match c {
            _ if esc => esc = false,
            '\\' if in_str => esc = true,
            '"' => in_str = !in_str,
            '{' | '[' if !in_str => depth += 1,
            '}' | ']' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return text[at..at + needle.len() + open + i].lines().count().max(1);
                }
            }
            _ => {}
        }
    }
    1
}

/// `Ethernet0|3-4`, `Ethernet0,Ethernet4|3`: whether the key names `port`, and its queues or
/// priority groups (empty when they are not 0-7).
fn port_key<'a>(key: &'a str, port: &str) -> Option<(Vec<usize>, &'a str)> {
    let (ports, ids) = key.split_once('|')?;
    if !ports.split(',').any(|p| p.trim() == port) {
        return None;
    }
    let range = match ids.split_once('-') {
        Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
            (Ok(a), Ok(b)) if a <= b && b < 8 => (a..=b).collect(),
            _ => Vec::new(),
        },
        None => ids.parse::<usize>().ok().filter(|q| *q < 8).into_iter().collect(),
    };
    Some((range, ids))
}

fn strip_ref(r: &str) -> &str {
    let r = r.trim_start_matches('[').trim_end_matches(']');
    r.split_once('|').map(|(_, n)| n).unwrap_or(r)
}

fn num(v: &Value) -> Option<u64> {
    v.as_str().and_then(|s| s.parse().ok()).or_else(|| v.as_u64())
}

/// Parses one config_db.json; `stem` names the device when it has no hostname.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    let mut bad: Vec<NotUnderstood> = Vec::new();
    let mut report = |line: usize, text: String| bad.push(NotUnderstood { file: file.into(), line, text });
    let root: Map<String, Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            report(1, "the file is JSON but not an object of CONFIG_DB tables".into());
            Map::new()
        }
        Err(e) => {
            report(e.line(), format!("not valid JSON: {e}"));
            Map::new()
        }
    };
    let mut ignored = 0;
    for k in root.keys().filter(|k| !TABLES.contains(&k.as_str())) {
        if IGNORED_TABLES.contains(&k.as_str()) {
            ignored += lines_spanned(text, k);
        } else {
            report(line_of(text, k, 1), format!("table {k}"));
        }
    }
    let table = |name: &str| root.get(name).and_then(Value::as_object);
    let map_of = |table_name: &str, r: &str| -> Option<Vec<(u8, u8)>> {
        let m = table(table_name)?.get(strip_ref(r))?.as_object()?;
        Some(m.iter().filter_map(|(k, v)| Some((k.parse().ok()?, num(v)? as u8))).collect())
    };
    let name = table("DEVICE_METADATA")
        .and_then(|m| m.get("localhost"))
        .and_then(|m| m.get("hostname"))
        .and_then(Value::as_str)
        .unwrap_or(stem)
        .to_string();
    let empty = Map::new();
    let ports_t = table("PORT").unwrap_or(&empty);
    let mut ports = Vec::new();
    let mut aliases = Vec::new();
    for (pname, pv) in ports_t {
        let at = line_of(text, pname, line_of(text, "PORT", 1));
        let mut q = PortQos::unconfigured(9100);
        let mut speed = Rate::gbps(100);
        for (k, v) in pv.as_object().unwrap_or(&empty) {
            match k.as_str() {
                "mtu" => match num(v).filter(|m| *m <= u32::MAX as u64) {
                    Some(m) => q.mtu = m as u32,
                    None => report(line_of(text, k, at), format!("PORT|{pname} mtu {v}")),
                },
                // Mb/s, up to 1.6 Tb/s (anything larger is not a port speed).
                "speed" => match num(v).filter(|s| (1..=1_600_000).contains(s)) {
                    Some(s) => speed = Rate::mbps(s),
                    None => report(line_of(text, k, at), format!("PORT|{pname} speed {v}")),
                },
                "alias" => match v.as_str() {
                    Some(a) if !a.is_empty() => aliases.push((a.to_string(), pname.clone())),
                    _ => report(line_of(text, k, at), format!("PORT|{pname} alias {v}")),
                },
                "lanes" | "admin_status" | "description" | "index" | "fec" | "autoneg" => {}
                _ => report(line_of(text, k, at), format!("PORT|{pname} field {k}")),
            }
        }
        // SONiC's default port MTU is 9100 (src/sonic-config-engine, PORT table defaults).
        let qm_key = table("PORT_QOS_MAP")
            .and_then(|t| t.keys().find(|k| k.split(',').any(|p| p.trim() == pname)))
            .cloned()
            .unwrap_or_default();
        let qm = table("PORT_QOS_MAP").and_then(|t| t.get(&qm_key)).and_then(Value::as_object);
        let qat = line_of(text, &qm_key, line_of(text, "PORT_QOS_MAP", 1));
        if let Some(qm) = qm {
            for (k, v) in qm {
                let s = v.as_str().unwrap_or_default();
                let applied = match k.as_str() {
                    "dscp_to_tc_map" => map_of("DSCP_TO_TC_MAP", s).map(|m| {
                        q.trust = Marking::Dscp;
                        for (d, tc) in m.into_iter().filter(|(d, tc)| *d < 64 && *tc < 8) {
                            q.dscp_to_priority[d as usize] = tc;
                        }
                    }),
                    "dot1p_to_tc_map" => map_of("DOT1P_TO_TC_MAP", s).map(|_| {
                        if !qm.contains_key("dscp_to_tc_map") {
                            q.trust = Marking::Pcp;
                        }
                    }),
                    "tc_to_queue_map" => map_of("TC_TO_QUEUE_MAP", s).map(|m| {
                        for (tc, qu) in m.into_iter().filter(|(t, q)| *t < 8 && *q < 8) {
                            q.priority_to_queue[tc as usize] = qu;
                        }
                    }),
                    "tc_to_pg_map" => map_of("TC_TO_PRIORITY_GROUP_MAP", s).map(|m| {
                        for (tc, pg) in m.into_iter().filter(|(t, p)| *t < 8 && *p < 8) {
                            q.priority_to_pg[tc as usize] = pg;
                        }
                    }),
                    "pfc_enable" => {
                        let prios: Option<Vec<u8>> =
                            s.split(',').filter(|p| !p.is_empty()).map(|p| p.trim().parse().ok()).collect();
                        prios.filter(|p| p.iter().all(|x| *x < 8)).map(|p| {
                            q.pfc = p.iter().fold(0, |m, x| m | (1 << x));
                        })
                    }
                    "pfc_to_queue_map" => map_of("MAP_PFC_PRIORITY_TO_QUEUE", s).map(|_| ()),
                    "pfc_to_pg_map" => Some(()),
                    _ => None,
                };
                if applied.is_none() {
                    report(line_of(text, k, qat), format!("PORT_QOS_MAP|{pname} {k} {v}"));
                }
            }
        }
        // Queues: `Ethernet0|3` or `Ethernet0|3-4`; those given a scheduler.
        let mut weights: Vec<(usize, u64)> = Vec::new();
        let mut scheduled = 0u8;
        for (key, v) in table("QUEUE").unwrap_or(&empty) {
            let Some((range, _)) = port_key(key, pname) else { continue };
            let at = line_of(text, key, 1);
            if range.is_empty() {
                report(at, format!("QUEUE|{key}: not a queue or range of queues 0-7"));
                continue;
            }
            if v.get("scheduler").is_some() {
                range.iter().for_each(|qi| scheduled |= 1 << qi);
            }
            for (k, val) in v.as_object().unwrap_or(&empty) {
                let r = strip_ref(val.as_str().unwrap_or_default());
                match k.as_str() {
                    "scheduler" => match table("SCHEDULER").and_then(|t| t.get(r)) {
                        Some(sch) => match sch.get("type").and_then(Value::as_str) {
                            Some("STRICT") => range.iter().for_each(|qi| q.sched[*qi] = Sched::Strict),
                            Some("DWRR" | "WRR") => {
                                // DWRR weights are small integers (1-100 in SONiC's schema).
                                let w = sch.get("weight").and_then(num).unwrap_or(1).min(1 << 20);
                                weights.extend(range.iter().map(|qi| (*qi, w)));
                            }
                            _ => report(line_of(text, r, 1), format!("SCHEDULER|{r}: type {:?}", sch.get("type"))),
                        },
                        None => report(line_of(text, k, at), format!("QUEUE|{key} scheduler {r}: no such SCHEDULER")),
                    },
                    "wred_profile" => match table("WRED_PROFILE").and_then(|t| t.get(r)) {
                        Some(w) => {
                            let ecn_on = w.get("ecn").and_then(Value::as_str).is_some_and(|e| e != "ecn_none");
                            let kmin = w.get("green_min_threshold").and_then(num);
                            let kmax = w.get("green_max_threshold").and_then(num);
                            let p = w.get("green_drop_probability").and_then(num);
                            if let (true, Some(kmin), Some(kmax), Some(p)) = (ecn_on, kmin, kmax, p) {
                                for qi in &range {
                                    q.ecn[*qi] = Some(EcnState { kmin, kmax, pmax: p as f64 / 100.0 });
                                }
                            }
                        }
                        None => {
                            report(line_of(text, k, at), format!("QUEUE|{key} wred_profile {r}: no such WRED_PROFILE"))
                        }
                    },
                    _ => report(line_of(text, k, at), format!("QUEUE|{key} field {k}")),
                }
            }
        }
        let total: u64 = weights.iter().map(|(_, w)| w).sum();
        for (qi, w) in &weights {
            // Shares of the weighted queues, rounded; a sum off 100 by rounding is not reported
            // as an ETS fault because the weights are used as given.
            q.sched[*qi] = Sched::Ets(((w * 100 + total / 2) / total.max(1)) as u8);
        }
        if !weights.is_empty() {
            let sum: u32 = q.sched.iter().map(|s| if let Sched::Ets(w) = s { *w as u32 } else { 0 }).sum();
            if sum != 100 {
                if let Some((qi, _)) = weights.iter().max_by_key(|(_, w)| *w) {
                    if let Sched::Ets(w) = q.sched[*qi] {
                        q.sched[*qi] = Sched::Ets((w as i32 + 100 - sum as i32).clamp(0, 100) as u8);
                    }
                }
            }
        }
        // Egress buffers per queue: BUFFER_QUEUE `Ethernet0|3-4` → a profile → its pool.
        let (bq_listed, lossless) = buffer_queues(&root, text, pname, &mut report);
        // CONFIG_DB holds every binding: a queue without a QUEUE scheduler has none.
        for (qi, e) in q.ets_scheduled.iter_mut().enumerate() {
            *e = Some(scheduled & (1 << qi) != 0);
        }
        if bq_listed != 0 {
            q.egress_lossless = Some(lossless);
        }
        // The cable the port's buffers were sized for: CABLE_LENGTH `{"AZURE": {"Ethernet0": "5m"}}`.
        for (name, lengths) in table("CABLE_LENGTH").unwrap_or(&empty) {
            if let Some(v) = lengths.get(pname) {
                match v.as_str().and_then(|l| l.parse::<Length>().ok()) {
                    Some(l) => q.cable = Some(l),
                    None => report(
                        line_of(text, pname, line_of(text, "CABLE_LENGTH", 1)),
                        format!("CABLE_LENGTH|{name} {pname} {v}: expected a length with its unit, e.g. \"5m\""),
                    ),
                }
            }
        }
        q.vlans = vlans(&root, text, pname, &mut report);
        // Headroom per lossless PG: BUFFER_PG `Ethernet0|3-4` → profile's `xoff`.
        for (key, v) in table("BUFFER_PG").unwrap_or(&empty) {
            let Some((pg_range, _)) = port_key(key, pname) else { continue };
            let prof = v.get("profile").and_then(Value::as_str).map(strip_ref).unwrap_or_default();
            match table("BUFFER_PROFILE").and_then(|t| t.get(prof)) {
                Some(bp) => {
                    if let Some(xoff) = bp.get("xoff").and_then(num) {
                        for pg in &pg_range {
                            q.headroom[*pg] = Some(xoff);
                        }
                    }
                    // The lossless PGs' dynamic threshold: alpha = 2^dynamic_th (SAI's
                    // `SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH`; Mellanox SAI reads -7 to 6 as
                    // 1/128 to 64, at most -8 as 0 and at least 7 as unlimited), as `rocelab
                    // config` renders a port's alpha.
                    if let Some(th) = bp.get("dynamic_th").and_then(Value::as_str).and_then(|t| t.parse::<i32>().ok()) {
                        if (-7..=6).contains(&th) {
                            q.alpha = Some(2f64.powi(th));
                        } else {
                            report(
                                line_of(text, prof, 1),
                                format!(
                                    "BUFFER_PROFILE|{prof} dynamic_th {th}: an alpha of 0 or unlimited, not checked"
                                ),
                            );
                        }
                    }
                }
                None => report(line_of(text, key, 1), format!("BUFFER_PG|{key}: no BUFFER_PROFILE {prof}")),
            }
        }
        ports.push((pname.clone(), speed, q, at));
    }
    let buffer =
        table("BUFFER_POOL").and_then(|t| t.get("ingress_lossless_pool")).and_then(|p| p.get("size")).and_then(num);
    DeviceConfig { buffer, ports, not_understood: bad, aliases, ignored, ..DeviceConfig::switch(name, "sonic", file) }
}

/// The port's `BUFFER_QUEUE` entries: (queues listed, those whose profile draws on an egress
/// lossless pool), bit per queue.
fn buffer_queues(
    root: &Map<String, Value>,
    text: &str,
    pname: &str,
    report: &mut impl FnMut(usize, String),
) -> (u8, u8) {
    let (mut listed, mut lossless) = (0u8, 0u8);
    let get = |t: &str| root.get(t).and_then(Value::as_object);
    for (key, v) in get("BUFFER_QUEUE").into_iter().flatten() {
        let Some((range, _)) = port_key(key, pname) else { continue };
        let at = line_of(text, key, line_of(text, "BUFFER_QUEUE", 1));
        if range.is_empty() {
            report(at, format!("BUFFER_QUEUE|{key}: not a queue or range of queues 0-7"));
            continue;
        }
        let prof = v.get("profile").and_then(Value::as_str).map(strip_ref).unwrap_or_default();
        let Some(bp) = get("BUFFER_PROFILE").and_then(|t| t.get(prof)) else {
            report(at, format!("BUFFER_QUEUE|{key}: no BUFFER_PROFILE {prof}"));
            continue;
        };
        let pool = bp.get("pool").and_then(Value::as_str).map(strip_ref).unwrap_or_default();
        // SONiC names its pools by role (`egress_lossless_pool`, `egress_lossy_pool`); the
        // pool's `type` says egress or ingress.
        let egress = get("BUFFER_POOL")
            .and_then(|t| t.get(pool))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            .map_or(pool.starts_with("egress"), |t| t == "egress");
        for qi in range {
            listed |= 1 << qi;
            if egress && pool.contains("lossless") {
                lossless |= 1 << qi;
            }
        }
    }
    (listed, lossless)
}

/// The port's VLANs from `VLAN_MEMBER` (`Vlan1000|Ethernet0`, `tagging_mode`), with the
/// `VLAN` table's `vlanid` and `mtu`; `None` when the port is in no VLAN.
fn vlans(
    root: &Map<String, Value>,
    text: &str,
    pname: &str,
    report: &mut impl FnMut(usize, String),
) -> Option<PortVlans> {
    let get = |t: &str| root.get(t).and_then(Value::as_object);
    let mut out = PortVlans::default();
    let mut any = false;
    for (key, v) in get("VLAN_MEMBER").into_iter().flatten() {
        let Some((vlan, port)) = key.split_once('|') else { continue };
        if port != pname {
            continue;
        }
        let at = line_of(text, key, line_of(text, "VLAN_MEMBER", 1));
        let def = get("VLAN").and_then(|t| t.get(vlan));
        let vid = def
            .and_then(|d| d.get("vlanid"))
            .and_then(num)
            .or_else(|| vlan.strip_prefix("Vlan").and_then(|n| n.parse().ok()))
            .filter(|v| (1..=4094).contains(v));
        let Some(vid) = vid.map(|v| v as u16) else {
            report(at, format!("VLAN_MEMBER|{key}: not a VLAN 1-4094"));
            continue;
        };
        match v.get("tagging_mode").and_then(Value::as_str) {
            Some("tagged") => out.tagged.push((vid, vid)),
            Some("untagged") => out.untagged = Some(vid),
            m => {
                report(at, format!("VLAN_MEMBER|{key} tagging_mode {m:?}: expected tagged or untagged"));
                continue;
            }
        }
        any = true;
        if def.is_none() {
            out.undefined.push(vid);
        }
        if let Some(m) = def.and_then(|d| d.get("mtu")).and_then(num).filter(|m| *m <= u32::MAX as u64) {
            out.svi_mtu = Some(out.svi_mtu.map_or(m as u32, |o| o.min(m as u32)));
        }
    }
    any.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queues SONiC binds a scheduler to, a bit per queue (every queue is known there).
    fn scheduled_bits(q: &PortQos) -> u8 {
        q.ets_scheduled.iter().enumerate().map(|(qi, e)| u8::from(e.expect("known")) << qi).sum()
    }

    const DB: &str = r#"{
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf2", "hwsku": "Mellanox-SN2700"}},
    "PORT": {
        "Ethernet0": {"alias": "etp1", "lanes": "0,1,2,3", "mtu": "9100", "speed": "100000"},
        "Ethernet4": {"alias": "etp2", "lanes": "4,5,6,7", "mtu": "1500", "speed": "100000", "tpid": "0x8100"}
    },
    "PORT_QOS_MAP": {
        "Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE", "pfc_enable": "3,4"}
    },
    "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6", "0": "0"}},
    "TC_TO_QUEUE_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4", "6": "6"}},
    "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4", "6": "0"}},
    "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}, "scheduler.1": {"type": "DWRR", "weight": "15"}, "scheduler.2": {"type": "STRICT"}},
    "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152", "green_drop_probability": "5", "wred_green_enable": "true"}},
    "QUEUE": {
        "Ethernet0|0": {"scheduler": "[SCHEDULER|scheduler.0]"},
        "Ethernet0|3-4": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"},
        "Ethernet0|6": {"scheduler": "scheduler.2"}
    },
    "BUFFER_POOL": {"ingress_lossless_pool": {"size": "12766208", "type": "ingress", "mode": "dynamic"}},
    "BUFFER_PROFILE": {"pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "xon": "19456", "xoff": "36864", "size": "56320", "dynamic_th": "-3"}},
    "BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"}},
    "LOOPBACK_INTERFACE": {"Loopback0|10.1.0.1/32": {}}
}"#;

    /// A `dynamic_th` outside -7..=6 (an alpha of 0 or unlimited on Mellanox SAI) is reported
    /// with its line and leaves the port's alpha to the policy.
    #[test]
    fn a_dynamic_th_out_of_range_is_reported() {
        let db = DB.replace("\"dynamic_th\": \"-3\"", "\"dynamic_th\": \"7\"");
        let c = parse(&db, "leaf2.json", "x");
        assert_eq!(c.ports[0].2.alpha, None);
        let n = c.not_understood.iter().find(|n| n.text.contains("dynamic_th 7")).expect("reported");
        assert_eq!(
            n.text,
            "BUFFER_PROFILE|pg_lossless_100000_5m_profile dynamic_th 7: an alpha of 0 or unlimited, not checked"
        );
        assert_eq!(n.line, 21);
    }

    #[test]
    fn reads_maps_queues_buffers_and_reports_the_rest() {
        let c = parse(DB, "leaf2.json", "x");
        assert_eq!((c.name.as_str(), c.platform, c.buffer), ("leaf2", "sonic", Some(12_766_208)));
        let (name, speed, q, _) = &c.ports[0];
        assert_eq!((name.as_str(), *speed), ("Ethernet0", Rate::gbps(100)));
        assert_eq!((q.trust, q.pfc, q.dscp_to_priority[26], q.priority_to_pg[3]), (Marking::Dscp, 0b11000, 3, 3));
        assert_eq!(q.ecn[3].map(|e| (e.kmin, e.kmax)), Some((1_048_576, 2_097_152)));
        // `dynamic_th` -3: the lossless groups' alpha is 1/8.
        assert_eq!(q.alpha, Some(0.125));
        // DWRR 14 and 15 + 15: shares of 44, rounded, the largest absorbing the rounding.
        assert_eq!(
            (q.sched[0], q.sched[3], q.sched[4], q.sched[6]),
            (Sched::Ets(32), Sched::Ets(34), Sched::Ets(34), Sched::Strict)
        );
        assert_eq!((q.headroom[3], q.headroom[4]), (Some(36_864), Some(36_864)));
        // Queues 0, 3, 4 and 6 have schedulers; the others none.
        assert_eq!(scheduled_bits(q), 0b0101_1001);
        assert_eq!(c.ports[1].2.mtu, 1500);
        let texts: Vec<(usize, &str)> = c.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(texts, [(23, "table LOOPBACK_INTERFACE"), (5, "PORT|Ethernet4 field tpid")]);
    }

    /// The tables that were reported as not understood though they matter: CABLE_LENGTH,
    /// VLAN/VLAN_MEMBER, BUFFER_QUEUE, and a QUEUE entry with no scheduler; the aliases; and
    /// the tables that do not bear on QoS, counted by their lines and not listed.
    const DB2: &str = r#"{
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf3"}},
    "PORT": {
        "Ethernet0": {"alias": "etp1", "lanes": "0,1,2,3", "mtu": "9100", "speed": "100000"},
        "Ethernet4": {"alias": "etp2", "lanes": "4,5,6,7", "mtu": "9100", "speed": "100000"}
    },
    "PORT_QOS_MAP": {
        "Ethernet0,Ethernet4": {"dot1p_to_tc_map": "AZURE", "pfc_enable": "3"}
    },
    "DOT1P_TO_TC_MAP": {"AZURE": {"0": "0", "3": "3"}},
    "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "50"}},
    "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152", "green_drop_probability": "5"}},
    "QUEUE": {
        "Ethernet0|0": {"scheduler": "scheduler.0"},
        "Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}
    },
    "BUFFER_POOL": {
        "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "15982720"},
        "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "9243812"}
    },
    "BUFFER_PROFILE": {
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "1518", "static_th": "3995680"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"}
    },
    "BUFFER_QUEUE": {
        "Ethernet0,Ethernet4|0-2": {"profile": "egress_lossy_profile"},
        "Ethernet0,Ethernet4|3-4": {"profile": "egress_lossless_profile"}
    },
    "CABLE_LENGTH": {"AZURE": {"Ethernet0": "40m", "Ethernet4": "5"}},
    "VLAN": {"Vlan1000": {"vlanid": "1000", "mtu": "9100"}},
    "VLAN_MEMBER": {
        "Vlan1000|Ethernet0": {"tagging_mode": "tagged"},
        "Vlan1000|Ethernet4": {"tagging_mode": "untagged"},
        "Vlan2000|Ethernet4": {"tagging_mode": "tagged"}
    },
    "NTP_SERVER": {"10.0.0.1": {}, "10.0.0.2": {}},
    "SYSLOG_SERVER": {"10.0.0.5": {}},
    "MGMT_INTERFACE": {"eth0|10.11.150.11/16": {"gwaddr": "10.11.0.1"}}
}"#;

    #[test]
    fn reads_cable_length_vlans_buffer_queues_and_queues_without_a_scheduler() {
        let c = parse(DB2, "leaf3.json", "x");
        assert_eq!(c.aliases, [("etp1".to_string(), "Ethernet0".to_string()), ("etp2".into(), "Ethernet4".into())]);
        let (e0, e4) = (&c.ports[0].2, &c.ports[1].2);
        // Both ports take the map of a key that lists them.
        assert_eq!((e0.trust, e0.pfc, e4.pfc), (Marking::Pcp, 1 << 3, 1 << 3));
        assert_eq!(e0.cable, Some(Length::metres(40)));
        // Only Ethernet0's queue 0 has a scheduler; queue 3, with ECN but no scheduler, has
        // no ETS share.
        assert_eq!(scheduled_bits(e0), 0b1);
        assert_eq!(scheduled_bits(e4), 0);
        assert_eq!((e0.egress_lossless, e4.egress_lossless), (Some(0b11000), Some(0b11000)));
        assert_eq!(e0.ecn[3].map(|e| e.kmin), Some(1_048_576));
        let v0 = e0.vlans.as_ref().unwrap();
        assert!(v0.is_tagged(1000));
        assert_eq!((v0.untagged, v0.svi_mtu), (None, Some(9100)));
        let v4 = e4.vlans.as_ref().unwrap();
        assert_eq!(
            (v4.untagged, v4.tagged.as_slice(), v4.undefined.as_slice()),
            (Some(1000), &[(2000, 2000)][..], &[2000][..])
        );
        assert!(!v4.is_tagged(1000));
        let texts: Vec<&str> = c.not_understood.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(texts, ["CABLE_LENGTH|AZURE Ethernet4 \"5\": expected a length with its unit, e.g. \"5m\""]);
        // NTP_SERVER (1 line), SYSLOG_SERVER (1), MGMT_INTERFACE (1).
        assert_eq!(c.ignored, 3);
    }

    #[test]
    fn ignored_tables_are_counted_by_the_lines_they_span() {
        let text = "{\n  \"NTP_SERVER\": {\n    \"a{\": {},\n    \"b\": {}\n  },\n  \"PORT\": {}\n}";
        assert_eq!(lines_spanned(text, "NTP_SERVER"), 4);
        assert_eq!(parse(text, "x.json", "x").ignored, 4);
    }

    #[test]
    fn broken_json_is_reported_with_its_line() {
        let c = parse("{\n  \"PORT\": {\n    \"Ethernet0\": {\"mtu\": 9100,}\n", "bad.json", "bad");
        assert_eq!(c.not_understood.len(), 1);
        assert_eq!(c.not_understood[0].line, 3);
        assert!(c.not_understood[0].text.starts_with("not valid JSON"));
    }
}
