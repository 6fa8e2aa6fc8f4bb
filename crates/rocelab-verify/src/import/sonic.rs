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
//! `dynamic_th`); `BUFFER_POOL` (`size` of the ingress lossless pool).
//! Map references are accepted in both forms SONiC has used: `AZURE` and `[DSCP_TO_TC_MAP|AZURE]`.
//!
//! SONiC classifies by DSCP wherever a port has a `dscp_to_tc_map`, and by 802.1p where it has
//! a `dot1p_to_tc_map` only; a traffic class is the PFC priority. DWRR weights are turned into
//! percentages of the port's weighted queues, as the scheduler shares bandwidth.
//! Every other table and field is reported with the line it is on.

use super::{DeviceConfig, NotUnderstood};
use crate::state::{EcnState, PortQos, Sched};
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;
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
];

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
    for k in root.keys().filter(|k| !TABLES.contains(&k.as_str())) {
        report(line_of(text, k, 1), format!("table {k}"));
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
                "alias" | "lanes" | "admin_status" | "description" | "index" | "fec" | "autoneg" => {}
                _ => report(line_of(text, k, at), format!("PORT|{pname} field {k}")),
            }
        }
        // SONiC's default port MTU is 9100 (src/sonic-config-engine, PORT table defaults).
        let qm = table("PORT_QOS_MAP").and_then(|t| t.get(pname)).and_then(Value::as_object);
        let qat = line_of(text, pname, line_of(text, "PORT_QOS_MAP", 1));
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
        // Queues: `Ethernet0|3` or `Ethernet0|3-4`.
        let mut weights: Vec<(usize, u64)> = Vec::new();
        for (key, v) in table("QUEUE").unwrap_or(&empty) {
            let Some((p, qs)) = key.split_once('|') else { continue };
            if p != pname {
                continue;
            }
            let range: Vec<usize> = match qs.split_once('-') {
                Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                    (Ok(a), Ok(b)) if b < 8 => (a..=b).collect(),
                    _ => Vec::new(),
                },
                None => qs.parse::<usize>().ok().filter(|q| *q < 8).into_iter().collect(),
            };
            let at = line_of(text, key, 1);
            if range.is_empty() {
                report(at, format!("QUEUE|{key}: not a queue or range of queues 0-7"));
                continue;
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
        // CONFIG_DB holds every binding: a queue without a QUEUE scheduler has none.
        for (qi, sch) in q.sched.iter().enumerate() {
            q.ets_scheduled[qi] = Some(*sch != Sched::Unset);
        }
        // Headroom per lossless PG: BUFFER_PG `Ethernet0|3-4` → profile's `xoff`.
        for (key, v) in table("BUFFER_PG").unwrap_or(&empty) {
            let Some((p, pgs)) = key.split_once('|') else { continue };
            if p != pname {
                continue;
            }
            let pg_range: Vec<usize> = match pgs.split_once('-') {
                Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                    (Ok(a), Ok(b)) if b < 8 => (a..=b).collect(),
                    _ => Vec::new(),
                },
                None => pgs.parse::<usize>().ok().filter(|q| *q < 8).into_iter().collect(),
            };
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
    DeviceConfig { buffer, ports, not_understood: bad, ..DeviceConfig::switch(name, "sonic", file) }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(c.ports[1].2.mtu, 1500);
        let texts: Vec<(usize, &str)> = c.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(texts, [(23, "table LOOPBACK_INTERFACE"), (5, "PORT|Ethernet4 field tpid")]);
    }

    #[test]
    fn broken_json_is_reported_with_its_line() {
        let c = parse("{\n  \"PORT\": {\n    \"Ethernet0\": {\"mtu\": 9100,}\n", "bad.json", "bad");
        assert_eq!(c.not_understood.len(), 1);
        assert_eq!(c.not_understood[0].line, 3);
        assert!(c.not_understood[0].text.starts_with("not valid JSON"));
    }
}
