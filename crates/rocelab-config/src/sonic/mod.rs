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
//! port MTU unless `qos.buffer.xon_offset` gives it, and `size` ("size of reserved buffer for
//! ingress lossless", sonic-net/SONiC `doc/qos/dynamically-headroom-calculation.md`) is the
//! port's `qos.buffer.reserve` where the fabric gives one, else the same as `xon`.
//!
//! Per port: every port's lossless priority groups point (`BUFFER_PG`) at a profile of their own
//! speed, cable and MTU, so ports of different speeds get their own headroom, `dynamic_th` (from
//! the port's alpha) and `size` (its reserve); ports that share a profile name but not its
//! values (a `qos.ports` override) get a profile with `_xoffN`, `_thN` (SONiC's own suffix for a
//! `dynamic_th` that is not the default) or `_sizeN` before `_profile`. ECN thresholds are per
//! queue of each port (`QUEUE` → a `WRED_PROFILE` named by its thresholds). Pools not
//! given in `qos.buffer.pools` split the switch buffer: the ingress lossless pool holds the
//! buffer less the headroom of every lossless priority group (which is its `xoff`), the egress
//! lossless pool the whole buffer, the egress lossy pool a third of it.

use crate::common::{cabled_ports, no_ports_finding, percent, ports_warning, reserve_given, PortView};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::{Marking, LOSSY_ALPHA, LOSSY_QUEUE_RESERVE};
use rocelab_model::resolve::ResolvedFabric;
use std::rc::Rc;
use std::sync::Arc;

mod l2;
mod tables;
pub use tables::*;

const MAP: &str = "ROCELAB";
/// SONiC's PFC watchdog defaults (ms): detection, restoration and poll interval.
const PFC_WD_MS: i64 = 200;

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

/// The per-port maps of one class set, computed once for every port that shares it.
struct PortMaps {
    classes: Rc<[crate::common::ClassView]>,
    dscp: bool,
    /// DSCP or 802.1p → traffic class.
    to_tc: Vec<u8>,
    /// Traffic class → priority group.
    pg: Vec<u8>,
}

fn port_maps(p: &PortView) -> PortMaps {
    let dscp = p.marking() == Marking::Dscp;
    let default_tc = p.classes.iter().find(|c| c.priority == 0).map(|c| c.queue).unwrap_or(0);
    // Traffic class = the class's queue; every DSCP or 802.1p value not in a class goes to the
    // class of priority 0.
    let to_tc: Vec<u8> = if dscp {
        (0..64u8)
            .map(|v| p.classes.iter().find(|c| c.dscp.contains(&v)).map(|c| c.queue).unwrap_or(default_tc))
            .collect()
    } else {
        (0..8u8).map(|v| p.classes.iter().find(|c| c.priority == v).map(|c| c.queue).unwrap_or(default_tc)).collect()
    };
    let lossless_tcs: Vec<u8> = p.classes.iter().filter(|c| c.pfc).map(|c| c.queue).collect();
    let pg: Vec<u8> = (0..8u8).map(|tc| if lossless_tcs.contains(&tc) { tc } else { 0 }).collect();
    PortMaps { classes: p.classes.clone(), dscp, to_tc, pg }
}

pub fn build(f: &ResolvedFabric, device: usize) -> (SonicConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let mut c = SonicConfig::default();
    // The fabric-wide alpha (not rounded where it is one); ports whose own alpha is rounded are
    // collected by value and reported after the loop.
    let fabric_alpha =
        f.qos.buffer.alpha.as_ref().and_then(|a| a.single()).copied().unwrap_or_else(|| f.qos.buffer.alpha());
    let (fabric_th, fabric_rounded) = dynamic_th(fabric_alpha);
    if fabric_rounded && !f.qos.buffer.alpha.as_ref().is_some_and(|a| a.is_by_speed()) {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "qos.buffer.alpha {fabric_alpha} is not a power of two; SONiC's dynamic_th takes log2(alpha), rendered {fabric_th} (alpha {})",
                2f64.powi(fabric_th)
            ),
        ));
    }
    let mut rounded: Vec<(u64, Vec<&PortView>)> = Vec::new();
    (c.portchannel, c.portchannel_member) = crate::lag::sonic(f, device, &mut findings);
    c.tc_to_queue_map.insert(MAP.into(), identity());
    c.map_pfc_priority_to_queue.insert(MAP.into(), identity());

    let mut headroom_total = 0u64;
    let mut dscp_map: Option<Vec<u8>> = None;
    let mut dot1p_map: Option<Vec<u8>> = None;
    let mut pg_map: Option<Vec<u8>> = None;
    let mut maps: Option<PortMaps> = None;
    let mut seen = Seen::default();
    for p in &ports {
        if !maps
            .as_ref()
            .is_some_and(|m| Rc::ptr_eq(&m.classes, &p.classes) && m.dscp == (p.marking() == Marking::Dscp))
        {
            maps = Some(port_maps(p));
        }
        let m = maps.as_ref().expect("set above");
        if m.dscp {
            merge_map(&mut dscp_map, &m.to_tc, "DSCP_TO_TC_MAP", d, p, &mut findings);
        } else {
            merge_map(&mut dot1p_map, &m.to_tc, "DOT1P_TO_TC_MAP", d, p, &mut findings);
        }
        merge_map(&mut pg_map, &m.pg, "TC_TO_PRIORITY_GROUP_MAP", d, p, &mut findings);
        for cl in p.classes.iter() {
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
        let dscp = m.dscp;
        let (th, r) = dynamic_th(p.settings.alpha);
        if r && p.settings.alpha != fabric_alpha && !p.pfc_priorities().is_empty() {
            match rounded.iter_mut().find(|(a, _)| *a == p.settings.alpha.to_bits()) {
                Some((_, ps)) => ps.push(p),
                None => rounded.push((p.settings.alpha.to_bits(), vec![p])),
            }
        }
        let size = reserve_given(f, d, p).then(|| p.settings.reserve.as_bytes());
        port_tables(f, p, dscp, (th, size), &mut c, &mut headroom_total, &mut seen);
    }
    for (a, ps) in &rounded {
        let a = f64::from_bits(*a);
        let (th, _) = dynamic_th(a);
        findings.push(ports_warning(d, ps, |which| {
            format!(
                "alpha {a} of {which} is not a power of two; SONiC's dynamic_th takes log2(alpha), rendered {th} (alpha {})",
                2f64.powi(th)
            )
        }));
    }
    if let Some(m) = dscp_map {
        c.dscp_to_tc_map.insert(MAP.into(), as_fields(&m));
    }
    if let Some(m) = dot1p_map {
        c.dot1p_to_tc_map.insert(MAP.into(), as_fields(&m));
    }
    c.tc_to_priority_group_map.insert(MAP.into(), pg_map.map(|m| as_fields(&m)).unwrap_or_else(identity));
    if l2::needs_pfc_to_pg_map(d) {
        l2::pfc_to_pg_map(&mut c, MAP);
    }
    l2::vlan(f, &mut c);
    if !c.pfc_wd.is_empty() {
        c.pfc_wd.insert(
            PortName("GLOBAL".into()),
            PfcWdRow { poll_interval: Some(NumStr(PFC_WD_MS)), ..Default::default() },
        );
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
            ("size", f.qos.buffer.egress_lossy_pool(buffer).to_string()),
            ("type", "egress".into()),
            ("mode", "dynamic".into()),
        ]),
    );
    // The lossy profiles the simulator models (`rocelab_model::qos::LOSSY_ALPHA`, `LOSSY_QUEUE_RESERVE`).
    let lossy_th = dynamic_th(LOSSY_ALPHA).0.to_string();
    c.buffer_profile.insert(
        "ingress_lossy_profile".into(),
        fields(&[("pool", "ingress_lossless_pool".into()), ("size", "0".into()), ("dynamic_th", lossy_th.clone())]),
    );
    c.buffer_profile.insert(
        "egress_lossless_profile".into(),
        fields(&[("pool", "egress_lossless_pool".into()), ("size", "0".into()), ("dynamic_th", "7".into())]),
    );
    c.buffer_profile.insert(
        "egress_lossy_profile".into(),
        fields(&[
            ("pool", "egress_lossy_pool".into()),
            ("size", LOSSY_QUEUE_RESERVE.to_string()),
            ("dynamic_th", lossy_th),
        ]),
    );
    (c, findings)
}

fn as_fields(m: &[u8]) -> Fields {
    m.iter().enumerate().map(|(i, v)| (i.to_string(), v.to_string())).collect()
}

fn merge_map(
    slot: &mut Option<Vec<u8>>,
    m: &[u8],
    table: &str,
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    findings: &mut Findings,
) {
    match slot {
        None => *slot = Some(m.to_vec()),
        Some(existing) if existing != m => findings.push(Finding::warning(
            &d.name,
            Some(&p.name),
            format!("this port's {table} differs from the switch's first port; rocelab renders one map per switch, the first"),
        )),
        Some(_) => {}
    }
}

/// What a switch's ports share, computed once: PFC headroom by (speed, cable, MTU, peer MTU,
/// settings) — a spine's ports repeat a few combinations hundreds of times — and the named
/// entries (schedulers, WRED and buffer profiles) already in their tables.
/// Speed (b/s), cable (metres, as bits), MTU, peer MTU and the port's settings (shared).
type HeadroomKey = (u64, u64, u32, u32, *const rocelab_model::resolve::PortSettings);

#[derive(Default)]
struct Seen {
    headroom: Vec<(HeadroomKey, u64)>,
    schedulers: Vec<SchedulerName>,
    wred: Vec<WredName>,
    /// Lossless profile (without suffixes) → the headroom, `dynamic_th` and `size` of its
    /// first port.
    profiles: Vec<(PgProfile, (u64, i32, u64))>,
}

impl Seen {
    fn headroom(&mut self, f: &ResolvedFabric, p: &PortView) -> u64 {
        let key = (
            p.speed.bits_per_second(),
            p.cable.as_metres_f64().to_bits(),
            p.settings.mtu,
            p.peer_mtu,
            Rc::as_ptr(&p.settings),
        );
        if let Some((_, h)) = self.headroom.iter().find(|(k, _)| *k == key) {
            return *h;
        }
        let h = p.headroom(f);
        self.headroom.push((key, h));
        h
    }
}

fn port_tables(
    f: &ResolvedFabric,
    p: &PortView,
    dscp: bool,
    (th, reserve): (i32, Option<u64>),
    c: &mut SonicConfig,
    headroom_total: &mut u64,
    seen: &mut Seen,
) {
    let name = PortName(Arc::from(p.name.as_str()));
    let mut pfc = Priorities::default();
    for cl in p.classes.iter().filter(|cl| cl.pfc) {
        pfc.0 |= 1 << (cl.queue & 7);
    }
    let speed_mbps = p.speed.bits_per_second() / 1_000_000;
    let cable_m = p.cable.as_metres_f64().ceil() as u64;
    c.port.insert(name.clone(), PortRow { mtu: NumStr(p.settings.mtu as i64), speed: NumStr(speed_mbps as i64) });
    let lossless = !pfc.is_empty();
    c.port_qos_map.insert(
        name.clone(),
        PortQosMapRow {
            dot1p_to_tc_map: (!dscp).then_some(MAP),
            dscp_to_tc_map: dscp.then_some(MAP),
            pfc_enable: lossless.then_some(pfc),
            pfc_to_queue_map: MAP,
            pfcwd_sw_enable: lossless.then_some(pfc),
            pfc_to_pg_map: None,
            tc_to_pg_map: MAP,
            tc_to_queue_map: MAP,
        },
    );
    if lossless {
        c.pfc_wd.insert(
            name.clone(),
            PfcWdRow {
                poll_interval: None,
                action: Some("drop"),
                detection_time: Some(NumStr(PFC_WD_MS)),
                restoration_time: Some(NumStr(PFC_WD_MS)),
            },
        );
    }
    c.cable_length.entry("AZURE".into()).or_default().insert(name.clone(), Metres(cable_m));

    let has_ets = p.has_ets();
    for q in 0..8u8 {
        let mut in_q = p.classes.iter().filter(|cl| cl.queue == q).peekable();
        if in_q.peek().is_none() {
            continue;
        }
        let (mut strict, mut weight, mut ecn) = (false, 0u32, None);
        for cl in in_q {
            strict |= cl.strict;
            if let Some(e) = cl.ets {
                weight += u32::from(e);
            }
            if ecn.is_none() {
                ecn = cl.ecn.as_ref();
            }
        }
        let scheduler = if strict {
            Some(SchedulerName::Strict)
        } else if has_ets {
            Some(SchedulerName::Dwrr(weight))
        } else {
            None
        };
        if let Some(s) = scheduler.filter(|s| !seen.schedulers.contains(s)) {
            seen.schedulers.push(s);
            let row = match s {
                SchedulerName::Strict => fields(&[("type", "STRICT".into())]),
                SchedulerName::Dwrr(w) => fields(&[("type", "DWRR".into()), ("weight", w.to_string())]),
            };
            c.scheduler.insert(s.to_string(), row);
        }
        let wred = ecn.map(|e| WredName { min: e.kmin.as_bytes(), max: e.kmax.as_bytes(), percent: percent(e.pmax) });
        if let Some(w) = wred.filter(|w| !seen.wred.contains(w)) {
            seen.wred.push(w);
            c.wred_profile.insert(
                w.to_string(),
                fields(&[
                    ("wred_green_enable", "true".into()),
                    ("ecn", "ecn_all".into()),
                    ("green_min_threshold", w.min.to_string()),
                    ("green_max_threshold", w.max.to_string()),
                    ("green_drop_probability", w.percent.to_string()),
                ]),
            );
        }
        let key = PortIndex { port: name.clone(), index: q };
        if scheduler.is_some() || wred.is_some() {
            c.queue.insert(key.clone(), QueueRow { scheduler, wred_profile: wred });
        }
        let profile = if pfc.contains(q) { QueueProfile::EgressLossless } else { QueueProfile::EgressLossy };
        c.buffer_queue.insert(key, BufferQueueRow { profile });
    }
    c.buffer_pg.insert(PortIndex { port: name.clone(), index: 0 }, BufferPgRow { profile: PgProfile::IngressLossy });
    if lossless {
        let headroom = seen.headroom(f, p);
        let frame = p.settings.mtu as u64 + 22;
        let xon = f.qos.buffer.xon_offset.map(|x| x.as_bytes()).unwrap_or(2 * frame);
        let size = reserve.unwrap_or(xon);
        let base = PgProfile::Lossless { speed_mbps, cable_m, mtu: p.settings.mtu, xoff: None, th: None, size: None };
        let row = || {
            fields(&[
                ("pool", "ingress_lossless_pool".into()),
                ("xon", xon.to_string()),
                ("xoff", headroom.to_string()),
                ("size", size.to_string()),
                ("dynamic_th", th.to_string()),
            ])
        };
        let mut profile = base;
        match seen.profiles.iter().find(|(p, _)| *p == base) {
            None => {
                seen.profiles.push((base, (headroom, th, size)));
                c.buffer_profile.insert(base.to_string(), row());
            }
            Some((_, first)) if *first == (headroom, th, size) => {}
            Some((_, (h, t, z))) => {
                // Same name, other values: a profile of its own rather than one port's values for
                // both.
                profile = PgProfile::Lossless {
                    speed_mbps,
                    cable_m,
                    mtu: p.settings.mtu,
                    xoff: (*h != headroom).then_some(headroom),
                    th: (*t != th).then_some(th),
                    size: (*z != size).then_some(size),
                };
                c.buffer_profile.entry(profile.to_string()).or_insert_with(row);
            }
        }
        for pg in pfc.iter() {
            c.buffer_pg.insert(PortIndex { port: name.clone(), index: pg }, BufferPgRow { profile });
        }
        *headroom_total += headroom * pfc.iter().count() as u64;
    }
}

#[cfg(test)]
mod tests;
