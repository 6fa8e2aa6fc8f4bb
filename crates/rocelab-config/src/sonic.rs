//! SONiC `config_db.json` tables, loaded with `sudo config load FILE -y` (it merges into
//! CONFIG_DB) and kept with `sudo config save -y`.
//!
//! Table and field names are those of the SONiC Configuration wiki (sonic-net/SONiC
//! `doc/Configuration.md`): `PORT` (`mtu`, `speed` in Mb/s), `PORT_QOS_MAP` (`dscp_to_tc_map` or
//! `dot1p_to_tc_map`, `tc_to_queue_map`, `tc_to_pg_map`, `pfc_to_queue_map`, `pfc_enable`,
//! `pfcwd_sw_enable`), `DSCP_TO_TC_MAP`, `DOT1P_TO_TC_MAP`, `TC_TO_QUEUE_MAP`,
//! `TC_TO_PRIORITY_GROUP_MAP`, `MAP_PFC_PRIORITY_TO_QUEUE`, `WRED_PROFILE` (`wred_green_enable`,
//! `ecn: ecn_all`, `green_min_threshold`, `green_max_threshold` in bytes,
//! `green_drop_probability` in percent), `SCHEDULER` (`type` STRICT or DWRR, `weight`), `QUEUE`
//! (`Ethernet0|3` → `scheduler`, `wred_profile`), `BUFFER_POOL` (`ingress_lossless_pool` with
//! `xoff`, `egress_lossless_pool`, `egress_lossy_pool`; `size`, `type`, `mode`),
//! `BUFFER_PROFILE` (`pool`, `size`, `xon`, `xoff`, `dynamic_th`), `BUFFER_PG`, `BUFFER_QUEUE`,
//! `CABLE_LENGTH` (one entry named `AZURE`, which `buffers_config.j2` and the CLI expect) and
//! `PFC_WD` (`action`, `detection_time`, `restoration_time` in ms, `GLOBAL.POLL_INTERVAL`; the
//! 200 ms values are SONiC's defaults).
//!
//! `dynamic_th` is log2 of the dynamic-threshold alpha (alpha = 2^dynamic_th); an alpha that is
//! not a power of two is rounded to the nearest one and reported. A lossless profile's `xoff` is
//! the PFC headroom (the fabric's, else rocelab's headroom function), `xon` is two frames of the
//! port MTU unless `qos.buffer.xon_offset` gives it, and `size` is the same as `xon`. Pools not
//! given in `qos.buffer.pools` split the switch buffer: the ingress lossless pool holds the
//! buffer less the headroom of every lossless priority group (which is its `xoff`), the egress
//! lossless pool the whole buffer, the egress lossy pool a third of it.

use crate::common::{cabled_ports, no_ports_finding, percent, PortView};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;
use std::collections::BTreeMap;

type Table<T> = BTreeMap<String, T>;
type Fields = BTreeMap<String, String>;

/// The CONFIG_DB tables rocelab sets, named as in `config_db.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SonicConfig {
    #[serde(rename = "PORT")]
    pub port: Table<Fields>,
    #[serde(rename = "PORT_QOS_MAP")]
    pub port_qos_map: Table<Fields>,
    #[serde(rename = "DSCP_TO_TC_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    pub dscp_to_tc_map: Table<Fields>,
    #[serde(rename = "DOT1P_TO_TC_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    pub dot1p_to_tc_map: Table<Fields>,
    #[serde(rename = "TC_TO_QUEUE_MAP")]
    pub tc_to_queue_map: Table<Fields>,
    #[serde(rename = "TC_TO_PRIORITY_GROUP_MAP")]
    pub tc_to_priority_group_map: Table<Fields>,
    #[serde(rename = "MAP_PFC_PRIORITY_TO_QUEUE")]
    pub map_pfc_priority_to_queue: Table<Fields>,
    #[serde(rename = "WRED_PROFILE", skip_serializing_if = "BTreeMap::is_empty")]
    pub wred_profile: Table<Fields>,
    #[serde(rename = "SCHEDULER", skip_serializing_if = "BTreeMap::is_empty")]
    pub scheduler: Table<Fields>,
    #[serde(rename = "QUEUE", skip_serializing_if = "BTreeMap::is_empty")]
    pub queue: Table<Fields>,
    #[serde(rename = "BUFFER_POOL")]
    pub buffer_pool: Table<Fields>,
    #[serde(rename = "BUFFER_PROFILE")]
    pub buffer_profile: Table<Fields>,
    #[serde(rename = "BUFFER_PG")]
    pub buffer_pg: Table<Fields>,
    #[serde(rename = "BUFFER_QUEUE")]
    pub buffer_queue: Table<Fields>,
    #[serde(rename = "CABLE_LENGTH")]
    pub cable_length: Table<Fields>,
    #[serde(rename = "PFC_WD", skip_serializing_if = "BTreeMap::is_empty")]
    pub pfc_wd: Table<Fields>,
}

const MAP: &str = "ROCELAB";

fn fields(pairs: &[(&str, String)]) -> Fields {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

fn identity() -> Fields {
    (0..8u8).map(|i| (i.to_string(), i.to_string())).collect()
}

/// `dynamic_th` for an alpha, and whether it had to be rounded.
fn dynamic_th(alpha: f64) -> (i32, bool) {
    let l = alpha.log2();
    let r = l.round().clamp(-7.0, 7.0);
    (r as i32, (l - r).abs() > 1e-9)
}

fn list(v: &[u8]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

pub fn build(f: &ResolvedFabric, device: usize) -> (SonicConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let mut c = SonicConfig::default();
    let (th, rounded) = dynamic_th(f.qos.buffer.alpha());
    if rounded {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "qos.buffer.alpha {} is not a power of two; SONiC's dynamic_th takes log2(alpha), rendered {th} (alpha {})",
                f.qos.buffer.alpha(),
                2f64.powi(th)
            ),
        ));
    }
    c.tc_to_queue_map.insert(MAP.into(), identity());
    c.map_pfc_priority_to_queue.insert(MAP.into(), identity());

    let mut headroom_total = 0u64;
    let mut dscp_map: Option<Vec<u8>> = None;
    let mut dot1p_map: Option<Vec<u8>> = None;
    let mut pg_map: Option<Vec<u8>> = None;
    for p in &ports {
        let dscp = p.marking() == Marking::Dscp;
        let default_tc = p.classes.iter().find(|c| c.priority == 0).map(|c| c.queue).unwrap_or(0);
        // Traffic class = the class's queue; every DSCP or 802.1p value not in a class goes to the
        // class of priority 0.
        if dscp {
            let m: Vec<u8> = (0..64u8)
                .map(|v| p.classes.iter().find(|c| c.dscp.contains(&v)).map(|c| c.queue).unwrap_or(default_tc))
                .collect();
            merge_map(&mut dscp_map, m, "DSCP_TO_TC_MAP", d, p, &mut findings);
        } else {
            let m: Vec<u8> = (0..8u8)
                .map(|v| p.classes.iter().find(|c| c.priority == v).map(|c| c.queue).unwrap_or(default_tc))
                .collect();
            merge_map(&mut dot1p_map, m, "DOT1P_TO_TC_MAP", d, p, &mut findings);
        }
        let lossless_tcs: Vec<u8> = p.classes.iter().filter(|c| c.pfc).map(|c| c.queue).collect();
        let pg: Vec<u8> = (0..8u8).map(|tc| if lossless_tcs.contains(&tc) { tc } else { 0 }).collect();
        merge_map(&mut pg_map, pg, "TC_TO_PRIORITY_GROUP_MAP", d, p, &mut findings);
        for cl in &p.classes {
            if cl.pfc && cl.queue != cl.priority {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "class `{}`: SONiC's pfc_enable names traffic classes, so PFC pauses priority {} (its queue) rather than priority {}",
                        cl.name, cl.queue, cl.priority
                    ),
                ));
            }
        }
        port_tables(f, p, dscp, th, &mut c, &mut headroom_total);
    }
    if let Some(m) = dscp_map {
        c.dscp_to_tc_map.insert(MAP.into(), as_fields(&m));
    }
    if let Some(m) = dot1p_map {
        c.dot1p_to_tc_map.insert(MAP.into(), as_fields(&m));
    }
    c.tc_to_priority_group_map.insert(MAP.into(), pg_map.map(|m| as_fields(&m)).unwrap_or_else(identity));
    if !c.pfc_wd.is_empty() {
        c.pfc_wd.insert("GLOBAL".into(), fields(&[("POLL_INTERVAL", "200".into())]));
    }

    let buffer = d.buffer.map(|b| b.as_bytes()).unwrap_or(12 * 1024 * 1024);
    let given = f.qos.buffer.pools.clone().unwrap_or_default();
    let ingress = given.ingress_lossless.map(|s| s.as_bytes()).unwrap_or(buffer.saturating_sub(headroom_total));
    if headroom_total > buffer {
        findings.push(Finding::error(
            &d.name,
            None,
            format!(
                "the PFC headroom of its lossless priority groups ({headroom_total} bytes) exceeds the switch buffer ({buffer} bytes)"
            ),
        ));
    }
    c.buffer_pool.insert(
        "ingress_lossless_pool".into(),
        fields(&[
            ("size", ingress.to_string()),
            ("type", "ingress".into()),
            ("mode", "dynamic".into()),
            ("xoff", headroom_total.to_string()),
        ]),
    );
    c.buffer_pool.insert(
        "egress_lossless_pool".into(),
        fields(&[
            ("size", given.egress_lossless.map(|s| s.as_bytes()).unwrap_or(buffer).to_string()),
            ("type", "egress".into()),
            ("mode", "static".into()),
        ]),
    );
    c.buffer_pool.insert(
        "egress_lossy_pool".into(),
        fields(&[
            ("size", given.egress_lossy.map(|s| s.as_bytes()).unwrap_or(buffer / 3).to_string()),
            ("type", "egress".into()),
            ("mode", "dynamic".into()),
        ]),
    );
    c.buffer_profile.insert(
        "ingress_lossy_profile".into(),
        fields(&[("pool", "ingress_lossless_pool".into()), ("size", "0".into()), ("dynamic_th", "3".into())]),
    );
    c.buffer_profile.insert(
        "egress_lossless_profile".into(),
        fields(&[("pool", "egress_lossless_pool".into()), ("size", "0".into()), ("dynamic_th", "7".into())]),
    );
    c.buffer_profile.insert(
        "egress_lossy_profile".into(),
        fields(&[("pool", "egress_lossy_pool".into()), ("size", "1518".into()), ("dynamic_th", "3".into())]),
    );
    (c, findings)
}

fn as_fields(m: &[u8]) -> Fields {
    m.iter().enumerate().map(|(i, v)| (i.to_string(), v.to_string())).collect()
}

fn merge_map(
    slot: &mut Option<Vec<u8>>,
    m: Vec<u8>,
    table: &str,
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    findings: &mut Findings,
) {
    match slot {
        None => *slot = Some(m),
        Some(existing) if *existing != m => findings.push(Finding::warning(
            &d.name,
            Some(&p.name),
            format!("this port's {table} differs from the switch's first port; rocelab renders one map per switch, the first"),
        )),
        Some(_) => {}
    }
}

fn port_tables(f: &ResolvedFabric, p: &PortView, dscp: bool, th: i32, c: &mut SonicConfig, headroom_total: &mut u64) {
    let name = &p.name;
    let pfc = p.classes.iter().filter(|c| c.pfc).map(|c| c.queue).collect::<Vec<u8>>();
    let mut pfc_sorted = pfc.clone();
    pfc_sorted.sort_unstable();
    pfc_sorted.dedup();
    c.port.insert(
        name.clone(),
        fields(&[("mtu", p.settings.mtu.to_string()), ("speed", (p.speed.bits_per_second() / 1_000_000).to_string())]),
    );
    let mut qos = vec![
        ("tc_to_queue_map", MAP.to_string()),
        ("tc_to_pg_map", MAP.to_string()),
        ("pfc_to_queue_map", MAP.to_string()),
        (if dscp { "dscp_to_tc_map" } else { "dot1p_to_tc_map" }, MAP.to_string()),
    ];
    if !pfc_sorted.is_empty() {
        qos.push(("pfc_enable", list(&pfc_sorted)));
        qos.push(("pfcwd_sw_enable", list(&pfc_sorted)));
        c.pfc_wd.insert(
            name.clone(),
            fields(&[("action", "drop".into()), ("detection_time", "200".into()), ("restoration_time", "200".into())]),
        );
    }
    c.port_qos_map.insert(name.clone(), fields(&qos));
    c.cable_length
        .entry("AZURE".into())
        .or_default()
        .insert(name.clone(), format!("{}m", p.cable.as_metres_f64().ceil() as u64));

    let has_ets = p.has_ets();
    for q in 0..8u8 {
        let in_q: Vec<_> = p.classes.iter().filter(|cl| cl.queue == q).collect();
        if in_q.is_empty() {
            continue;
        }
        let mut entry = Fields::new();
        if in_q.iter().any(|cl| cl.strict) {
            c.scheduler.insert("scheduler.strict".into(), fields(&[("type", "STRICT".into())]));
            entry.insert("scheduler".into(), "scheduler.strict".into());
        } else if has_ets {
            let w: u32 = in_q.iter().filter_map(|cl| cl.ets).map(u32::from).sum();
            let sname = format!("scheduler.dwrr{w}");
            c.scheduler.insert(sname.clone(), fields(&[("type", "DWRR".into()), ("weight", w.to_string())]));
            entry.insert("scheduler".into(), sname);
        }
        if let Some(e) = in_q.iter().find_map(|cl| cl.ecn.as_ref()) {
            let wname = format!("ROCELAB_ECN_{}_{}_{}", e.kmin.as_bytes(), e.kmax.as_bytes(), percent(e.pmax));
            c.wred_profile.insert(
                wname.clone(),
                fields(&[
                    ("wred_green_enable", "true".into()),
                    ("ecn", "ecn_all".into()),
                    ("green_min_threshold", e.kmin.as_bytes().to_string()),
                    ("green_max_threshold", e.kmax.as_bytes().to_string()),
                    ("green_drop_probability", percent(e.pmax).to_string()),
                ]),
            );
            entry.insert("wred_profile".into(), wname);
        }
        if !entry.is_empty() {
            c.queue.insert(format!("{name}|{q}"), entry);
        }
        let lossless = pfc_sorted.contains(&q);
        c.buffer_queue.insert(
            format!("{name}|{q}"),
            fields(&[("profile", if lossless { "egress_lossless_profile" } else { "egress_lossy_profile" }.into())]),
        );
    }
    c.buffer_pg.insert(format!("{name}|0"), fields(&[("profile", "ingress_lossy_profile".into())]));
    if !pfc_sorted.is_empty() {
        let headroom = p.headroom(f);
        let frame = p.settings.mtu as u64 + 22;
        let xon = f.qos.buffer.xon_offset.map(|x| x.as_bytes()).unwrap_or(2 * frame);
        let profile = format!(
            "pg_lossless_{}_{}m_{}_profile",
            p.speed.bits_per_second() / 1_000_000,
            p.cable.as_metres_f64().ceil() as u64,
            p.settings.mtu
        );
        c.buffer_profile.insert(
            profile.clone(),
            fields(&[
                ("pool", "ingress_lossless_pool".into()),
                ("xon", xon.to_string()),
                ("xoff", headroom.to_string()),
                ("size", xon.to_string()),
                ("dynamic_th", th.to_string()),
            ]),
        );
        for pg in &pfc_sorted {
            c.buffer_pg.insert(format!("{name}|{pg}"), fields(&[("profile", profile.clone())]));
        }
        *headroom_total += headroom * pfc_sorted.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_th_is_log2_alpha() {
        assert_eq!(dynamic_th(0.125), (-3, false));
        assert_eq!(dynamic_th(1.0), (0, false));
        assert!(dynamic_th(0.2).1, "0.2 is not a power of two");
    }
}
