//! NVIDIA Onyx (MLNX-OS) `show running-config`.
//!
//! Onyx prints its running configuration with prefix modes off (`no cli default prefix-modes
//! enable`): every interface command is one line, `interface ethernet 1/1 <command>`, often
//! over a range (`interface ethernet 1/1-1/4 …`), under `##` section comments. The same commands
//! typed in prefix mode (`interface ethernet 1/1`, the commands, `exit`) — as the Demartek guide
//! and `rocelab config` write them — are read too.
//!
//! Understood (syntax from the Demartek "RoCE Deployment Guide" (2018), "Deploying RoCE on a
//! Mellanox Switch"; NVIDIA DOC-2884 "Lossless RoCE Configuration for MLNX-OS Switches in
//! DSCP-Based QoS Mode (advanced mode)"; the NVIDIA Onyx User Manual, QoS and Interface
//! commands):
//! - `hostname NAME` (or the `## Hostname:` header line);
//! - `dcb priority-flow-control enable [force]`, `dcb priority-flow-control priority P enable`
//!   (switch-wide PFC), `interface ethernet R dcb priority-flow-control mode on|off [force]`;
//! - `interface ethernet R qos trust L2|L3|both` (L2: 802.1p, the default; L3 and both: DSCP);
//! - `ingress-buffer iPort.pgN bind switch-priority P…`, `traffic-class T bind
//!   switch-priority P…`;
//! - `ingress-buffer iPort.pgN map pool POOL type lossless reserved R xoff X xon Y shared alpha
//!   A` (headroom R − X, the reading of `rocelab config`: a lossless group reserves its XOFF
//!   fill plus the PFC headroom; with `shared alpha` the group pauses on the pool's dynamic
//!   threshold, so X is no static XOFF point), `… type lossy reserved R shared alpha A`,
//!   `egress-buffer ePort.tcT map pool POOL reserved R shared alpha A`;
//! - `advanced buffer management [force]`, `pool NAME size N type dynamic|static` (an `iPool`
//!   is an ingress pool, an `ePool` an egress pool);
//! - `traffic-class T congestion-control ecn minimum-absolute MIN maximum-absolute MAX` (KB,
//!   read as 1000 bytes, as `rocelab config` writes them; the command sets no marking
//!   probability, recorded as 1.0), `traffic-class T dcb ets wrr W | strict`;
//! - `mtu N [force]`, `speed 100G [force]`, `flowcontrol send|receive on|off [force]` (802.3x);
//! - lines that do not bear on QoS: `no cli default prefix-modes enable`, `vlan N`,
//!   `switchport …`, `description …`, `shutdown`, `no shutdown`, `fec-override …`, `pfc-wd`,
//!   `lldp …` (global and per interface), `exit`, `config write to NAME`; and the system
//!   management commands of the Onyx User Manual (NTP, logging, SNMP, AAA/RADIUS/TACACS+,
//!   users, `banner`, `clock`, DNS, `web`, `ssh server`, `interface mgmt0 …`, spanning tree),
//!   which are counted, not listed.
//!
//! Defaults as Onyx has them: a port trusts 802.1p; every switch-priority goes to priority
//! group 0 and traffic class p; under DSCP trust DSCP d is switch-priority d/8 (DOC-2884:
//! "Traffic over DSCP 26 is mapped to switch-priority 3 by default"); MTU 1500. Ports are named
//! `eth1/1`, as rocelab names Onyx ports. Everything else is reported with its line.

use super::{DeviceConfig, NotUnderstood};
use crate::state::{EcnState, Pool, PortQos, Sched};
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

/// Whether the text is an Onyx running-config.
pub fn recognise(text: &str) -> bool {
    text.contains("## Running database")
        || text.contains("no cli default prefix-modes enable")
        || text.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with("interface ethernet 1/") || t.starts_with("dcb priority-flow-control")
        })
}

/// `1/1`, `1/1-1/4`, `1/1/1-1/1/2`, `1/1,1/3`: Onyx interface numbers, each `eth…`.
fn ports_of(range: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for part in range.split(',') {
        match part.split_once('-') {
            None => {
                if !valid(part) {
                    return None;
                }
                out.push(format!("eth{part}"));
            }
            Some((a, b)) => {
                if !valid(a) || !valid(b) {
                    return None;
                }
                let (pa, la) = a.rsplit_once('/')?;
                let (pb, lb) = b.rsplit_once('/')?;
                let (la, lb): (u32, u32) = (la.parse().ok()?, lb.parse().ok()?);
                if pa != pb || la > lb || lb - la > 256 {
                    return None;
                }
                out.extend((la..=lb).map(|p| format!("eth{pa}/{p}")));
            }
        }
    }
    Some(out)
}

fn valid(n: &str) -> bool {
    let parts: Vec<&str> = n.split('/').collect();
    (2..=3).contains(&parts.len())
        && parts.iter().all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|c| c.is_ascii_digit()))
}

struct Port {
    name: String,
    line: usize,
    speed: Option<Rate>,
    qos: PortQos,
    trust: Marking,
    pfc_mode: bool,
}

fn u8_below(w: &str, max: u8) -> Option<u8> {
    w.parse().ok().filter(|v| *v < max)
}

/// `iPort.pg5` → 5; `ePort.tc2` → 2.
fn index_of(w: &str, prefix: &str) -> Option<usize> {
    w.strip_prefix(prefix).and_then(|n| u8_below(n, 8)).map(usize::from)
}

/// Applies one interface command to a port; `false` when not understood.
fn apply(p: &mut Port, w: &[&str]) -> bool {
    let no_force = |w: &[&str]| -> usize { w.len() - usize::from(w.last() == Some(&"force")) };
    match w {
        ["dcb", "priority-flow-control", "mode", m, rest @ ..] if rest.is_empty() || rest == ["force"] => match *m {
            "on" => p.pfc_mode = true,
            "off" => p.pfc_mode = false,
            _ => return false,
        },
        ["qos", "trust", t] => match *t {
            "L2" => p.trust = Marking::Pcp,
            "L3" | "both" => p.trust = Marking::Dscp,
            _ => return false,
        },
        ["ingress-buffer", pg, "bind", "switch-priority", prios @ ..] if !prios.is_empty() => {
            let (Some(pg), Some(prios)) =
                (index_of(pg, "iPort.pg"), prios.iter().map(|x| u8_below(x, 8)).collect::<Option<Vec<_>>>())
            else {
                return false;
            };
            for x in prios {
                p.qos.priority_to_pg[x as usize] = pg as u8;
            }
        }
        ["traffic-class", tc, "bind", "switch-priority", prios @ ..] if !prios.is_empty() => {
            let (Some(tc), Some(prios)) =
                (u8_below(tc, 8), prios.iter().map(|x| u8_below(x, 8)).collect::<Option<Vec<_>>>())
            else {
                return false;
            };
            for x in prios {
                p.qos.priority_to_queue[x as usize] = tc;
            }
        }
        ["ingress-buffer", pg, "map", "pool", _pool, "type", "lossless", "reserved", r, "xoff", x, "xon", _y, "shared", "alpha", _a] =>
        {
            let (Some(pg), Ok(r), Ok(x)) = (index_of(pg, "iPort.pg"), r.parse::<u64>(), x.parse::<u64>()) else {
                return false;
            };
            // Under `shared alpha` the group pauses on the pool's dynamic threshold; `xoff` is
            // the part of the reserved buffer filled before XOFF, not a static queue threshold.
            p.qos.headroom[pg] = Some(r.saturating_sub(x));
        }
        ["ingress-buffer", pg, "map", "pool", _pool, "type", "lossy", "reserved", r, "shared", "alpha", _a] => {
            return index_of(pg, "iPort.pg").is_some() && r.parse::<u64>().is_ok();
        }
        ["egress-buffer", tc, "map", "pool", _pool, "reserved", r, "shared", "alpha", _a] => {
            return index_of(tc, "ePort.tc").is_some() && r.parse::<u64>().is_ok();
        }
        ["traffic-class", tc, "congestion-control", "ecn", "minimum-absolute", min, "maximum-absolute", max] => {
            let (Some(tc), Ok(min), Ok(max)) = (u8_below(tc, 8), min.parse::<u64>(), max.parse::<u64>()) else {
                return false;
            };
            let (Some(kmin), Some(kmax)) = (min.checked_mul(1000), max.checked_mul(1000)) else { return false };
            p.qos.ecn[tc as usize] = Some(EcnState { kmin, kmax, pmax: 1.0 });
        }
        ["traffic-class", tc, "dcb", "ets", "strict"] => match u8_below(tc, 8) {
            Some(tc) => p.qos.sched[tc as usize] = Sched::Strict,
            None => return false,
        },
        ["traffic-class", tc, "dcb", "ets", "wrr", wt] => match (u8_below(tc, 8), u8_below(wt, 101)) {
            (Some(tc), Some(wt)) => p.qos.sched[tc as usize] = Sched::Ets(wt),
            _ => return false,
        },
        ["mtu", m, ..] if no_force(w) == 2 => match m.parse::<u32>() {
            Ok(m) if (64..=65535).contains(&m) => p.qos.mtu = m,
            _ => return false,
        },
        ["speed", s, ..] if no_force(w) == 2 => {
            let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
            match (digits.parse::<u64>(), &s[digits.len()..]) {
                (Ok(g), "G" | "g" | "GbE") if (1..=1600).contains(&g) => p.speed = Some(Rate::gbps(g)),
                _ => return false,
            }
        }
        ["flowcontrol", "send" | "receive", on, ..] if no_force(w) == 3 => match *on {
            "on" => p.qos.link_pause = true,
            "off" => {}
            _ => return false,
        },
        ["switchport", ..]
        | ["description", ..]
        | ["shutdown"]
        | ["no", "shutdown"]
        | ["fec-override", ..]
        | ["pfc-wd"]
        | ["lldp", ..] => {}
        _ => return false,
    }
    true
}

/// Top-level commands that do not bear on QoS: system management (NTP, logging, SNMP, AAA,
/// users, banner, clock, DNS, web and SSH servers, the management interface) and spanning tree.
fn not_qos(w: &[&str]) -> bool {
    let w = if w.first() == Some(&"no") { &w[1..] } else { w };
    matches!(
        w,
        ["ntp" | "ntpdate" | "logging" | "snmp-server" | "aaa" | "radius-server" | "tacacs-server" | "username", ..]
            | ["banner" | "clock" | "web" | "spanning-tree" | "email", ..]
            | ["ssh", "server", ..]
            | ["ip", "name-server" | "domain-list" | "domain-name" | "default-gateway", ..]
            | ["interface", "mgmt0" | "mgmt1", ..]
    )
}

/// Parses one running-config; `stem` names the device when it has no hostname.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    let mut name: Option<String> = None;
    let mut header_name: Option<String> = None;
    let mut pfc_enabled = false;
    let mut pfc_priorities = 0u8;
    let mut pools = Vec::new();
    let mut ports: Vec<Port> = Vec::new();
    let mut bad: Vec<NotUnderstood> = Vec::new();
    // Prefix mode: the ports an `interface ethernet R` line opened, until `exit`.
    let mut block: Option<(Vec<usize>, usize)> = None;
    let mut ignored = 0;
    let port_index = |ports: &mut Vec<Port>, pname: String, line: usize| -> usize {
        match ports.iter().position(|p| p.name == pname) {
            Some(i) => i,
            None => {
                ports.push(Port {
                    name: pname,
                    line,
                    speed: None,
                    qos: PortQos::unconfigured(1500),
                    trust: Marking::Pcp,
                    pfc_mode: false,
                });
                ports.len() - 1
            }
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw.trim();
        let mut report = |why: &str| {
            bad.push(NotUnderstood {
                file: file.into(),
                line: n,
                text: if why.is_empty() { t.to_string() } else { format!("{t} ({why})") },
            })
        };
        if let Some(h) = t.strip_prefix("## Hostname:") {
            header_name = Some(h.trim().to_string());
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let w: Vec<&str> = t.split_whitespace().collect();
        if let Some((idx, _)) = &block {
            if w == ["exit"] {
                block = None;
                continue;
            }
            if w.first() != Some(&"interface") {
                let idx = idx.clone();
                let mut ok = true;
                for pi in idx {
                    ok &= apply(&mut ports[pi], &w);
                }
                if !ok {
                    report("");
                }
                continue;
            }
            block = None;
        }
        match w.as_slice() {
            ["hostname", h] => name = Some(h.to_string()),
            ["no", "cli", "default", "prefix-modes", "enable"]
            | ["advanced", "buffer", "management", ..]
            | ["exit"] => {}
            ["config", "write", "to", _] | ["lldp", ..] => {}
            ["vlan", v] if v.split('-').all(|x| x.parse::<u16>().is_ok()) => {}
            _ if not_qos(&w) => ignored += 1,
            ["dcb", "priority-flow-control", "enable", rest @ ..] if rest.is_empty() || rest == ["force"] => {
                pfc_enabled = true
            }
            ["dcb", "priority-flow-control", "priority", p, "enable"] if u8_below(p, 8).is_some() => {
                pfc_priorities |= 1 << u8_below(p, 8).unwrap_or(0)
            }
            ["pool", pname, "size", size, "type", "dynamic" | "static"] => match size.parse::<u64>() {
                Ok(size) => pools.push(Pool { name: pname.to_string(), size, ingress: pname.starts_with('i') }),
                Err(_) => report("the size is not a number of bytes"),
            },
            ["interface", "ethernet", range, cmd @ ..] => {
                let Some(names) = ports_of(range) else {
                    report("not an interface number or range such as 1/1 or 1/1-1/4");
                    continue;
                };
                let idx: Vec<usize> = names.into_iter().map(|p| port_index(&mut ports, p, n)).collect();
                if cmd.is_empty() {
                    block = Some((idx, n));
                    continue;
                }
                let mut ok = true;
                for pi in idx {
                    ok &= apply(&mut ports[pi], cmd);
                }
                if !ok {
                    report("");
                }
            }
            _ => report(""),
        }
    }
    let ports = ports
        .into_iter()
        .map(|mut p| {
            p.qos.trust = p.trust;
            if p.trust == Marking::Dscp {
                for d in 0..64u8 {
                    p.qos.dscp_to_priority[d as usize] = d >> 3;
                }
            }
            if p.pfc_mode && pfc_enabled {
                p.qos.pfc = pfc_priorities;
            }
            (p.name, p.speed.unwrap_or(Rate::gbps(0)), p.qos, p.line)
        })
        .collect();
    let name = name.or(header_name).unwrap_or_else(|| stem.to_string());
    DeviceConfig { ports, pools, not_understood: bad, ignored, ..DeviceConfig::switch(name, "nvidia-onyx", file) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A running-config as Onyx 3.9 prints it, prefix modes off, with the DOC-2884 settings.
    const RUNNING: &str = r#"##
## Running database "initial"
## Generated at 2024/03/11 09:12:44 +0000
## Hostname: sn2410-a
## Product release: 3.9.3202
##

##
## Running-config temporary prefix mode setting
##
no cli default prefix-modes enable

##
## Interface Ethernet configuration
##
   interface ethernet 1/1-1/4 speed 25G force
   interface ethernet 1/49 speed 100G force
   interface ethernet 1/1-1/4 mtu 9216 force
   interface ethernet 1/49 mtu 9216 force
   interface ethernet 1/1 description node1-p0

##
## DCBX PFC configuration
##
   dcb priority-flow-control enable force
   dcb priority-flow-control priority 3 enable
   interface ethernet 1/1-1/4 dcb priority-flow-control mode on force
   interface ethernet 1/49 dcb priority-flow-control mode on force

##
## QoS switch configuration
##
   interface ethernet 1/1-1/4 qos trust L3
   interface ethernet 1/49 qos trust L3
   interface ethernet 1/1-1/4 traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500
   interface ethernet 1/1-1/4 traffic-class 6 dcb ets strict
   interface ethernet 1/1-1/4 traffic-class 0 dcb ets wrr 50
   interface ethernet 1/1-1/4 traffic-class 3 dcb ets wrr 50

##
## Buffer configuration
##
   advanced buffer management force
   pool iPool0 size 5242880 type dynamic
   pool iPool1 size 5242880 type dynamic
   pool ePool1 size 16777000 type dynamic
   interface ethernet 1/1-1/4 ingress-buffer iPort.pg3 bind switch-priority 3
   interface ethernet 1/1-1/4 ingress-buffer iPort.pg3 map pool iPool1 type lossless reserved 67538 xoff 18432 xon 18432 shared alpha 2
   interface ethernet 1/1-1/4 egress-buffer ePort.tc3 map pool ePool1 reserved 1500 shared alpha inf

##
## LLDP configuration
##
   lldp

##
## Network management configuration
##
   hostname sn2410-a
   ntp server 192.0.2.1
"#;

    #[test]
    fn reads_ranges_pfc_trust_ecn_ets_buffers_and_reports_the_rest() {
        let c = parse(RUNNING, "sn2410-a.txt", "x");
        assert_eq!((c.name.as_str(), c.platform), ("sn2410-a", "nvidia-onyx"));
        let names: Vec<&str> = c.ports.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["eth1/1", "eth1/2", "eth1/3", "eth1/4", "eth1/49"]);
        let (_, speed, q, line) = &c.ports[2];
        assert_eq!((*speed, *line), (Rate::gbps(25), 16));
        assert_eq!((q.mtu, q.trust, q.pfc), (9216, Marking::Dscp, 1 << 3));
        assert_eq!((q.dscp_to_priority[26], q.dscp_to_priority[48]), (3, 6));
        assert_eq!((q.priority_to_pg[3], q.priority_to_queue[3]), (3, 3));
        assert_eq!(q.ecn[3].map(|e| (e.kmin, e.kmax)), Some((150_000, 1_500_000)));
        assert_eq!((q.sched[0], q.sched[3], q.sched[6]), (Sched::Ets(50), Sched::Ets(50), Sched::Strict));
        assert_eq!((q.headroom[3], q.xoff[3]), (Some(67538 - 18432), None));
        let uplink = &c.ports[4].2;
        assert_eq!((uplink.pfc, uplink.ecn[3], uplink.headroom[3]), (1 << 3, None, None));
        assert_eq!(c.pools.iter().filter(|p| p.ingress).map(|p| p.size).sum::<u64>(), 10_485_760);
        let nu: Vec<(usize, &str)> = c.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        // `ntp server` does not bear on QoS: counted, not listed.
        assert!(nu.is_empty(), "{nu:?}");
        assert_eq!(c.ignored, 1);
    }

    #[test]
    fn prefix_mode_blocks_as_the_demartek_guide_types_them() {
        let text = "dcb priority-flow-control enable force
dcb priority-flow-control priority 5 enable
interface ethernet 1/1 dcb priority-flow-control mode on force
interface ethernet 1/1
switchport mode trunk
ingress-buffer iPort.pg5 bind switch-priority 5
traffic-class 2 bind switch-priority 5
ingress-buffer iPort.pg5 map pool iPool1 type lossless reserved 34816 xoff 8192 xon 8192 shared alpha 2
traffic-class 2 congestion-control ecn minimum-absolute 150 maximum-absolute 1500
traffic-class 2 dcb ets wrr 90
spanning-tree port type edge
exit
config write to RoCEconfig
";
        let c = parse(text, "sw.txt", "sw");
        let q = &c.ports[0].2;
        assert_eq!((q.trust, q.pfc, q.priority_to_pg[5], q.priority_to_queue[5]), (Marking::Pcp, 1 << 5, 5, 2));
        assert_eq!((q.headroom[5], q.sched[2]), (Some(26624), Sched::Ets(90)));
        assert_eq!(c.name, "sw");
        let nu: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(nu, [11]);
    }

    #[test]
    fn pfc_needs_the_global_enable_and_the_port_mode() {
        let c = parse("dcb priority-flow-control priority 3 enable\ninterface ethernet 1/1 dcb priority-flow-control mode on force\n", "s", "s");
        assert_eq!(c.ports[0].2.pfc, 0);
        let c = parse("dcb priority-flow-control enable force\ndcb priority-flow-control priority 3 enable\ninterface ethernet 1/1 mtu 9216\n", "s", "s");
        assert_eq!(c.ports[0].2.pfc, 0);
    }

    /// System management lines are counted, not listed; a line that could matter to QoS and
    /// is not understood still is.
    #[test]
    fn management_lines_are_counted_not_listed() {
        let text = "##
## Running database \"initial\"
##
   hostname sw1
   no ntp disable
   ntp server 10.0.0.1
   logging 10.0.0.5
   snmp-server community public ro
   username monitor capability monitor
   clock timezone UTC
   interface mgmt0 ip address 192.0.2.3 /24
   web http enable
   interface ethernet 1/1 qos rewrite pcp
";
        let c = parse(text, "sw1.txt", "x");
        assert_eq!(c.ignored, 8);
        let nu: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(nu, [13]);
    }

    #[test]
    fn malformed_values_are_reported_not_guessed() {
        let text = "interface ethernet 1/1-1/x mtu 9216\ninterface ethernet 1/1 mtu big\ninterface ethernet 1/1 traffic-class 9 dcb ets strict\ninterface ethernet 1/1 qos trust port\npool iPool1 size lots type dynamic\ninterface ethernet 1/4-1/2 mtu 9000\n";
        let c = parse(text, "s.txt", "s");
        let lines: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5, 6]);
        assert_eq!(c.ports[0].2.mtu, 1500);
    }

    #[test]
    fn ranges_expand() {
        assert_eq!(ports_of("1/1-1/3").unwrap(), ["eth1/1", "eth1/2", "eth1/3"]);
        assert_eq!(ports_of("1/1/1-1/1/2,1/5").unwrap(), ["eth1/1/1", "eth1/1/2", "eth1/5"]);
        assert!(ports_of("1/1-2/3").is_none() && ports_of("1").is_none() && ports_of("1/1-1/99999").is_none());
    }
}
