//! NVUE command lists read back into [`CumulusConfig`], the type the renderer fills: the `nv
//! set …` lines of `nv config show -o commands` (NVUE command reference, "Config Commands"), and
//! the script `rocelab config` writes (the same lines between a shebang, `set -euo pipefail`,
//! comments and `nv config apply --assume-yes` / `nv config save`).
//!
//! Understood: the commands the renderer's module documents ([`super`]), in both release
//! spellings of the cable length (`nv set qos roce cable-length N`, 5.3 and earlier; `nv set qos
//! pfc default-global cable-length N`, 5.4 on), `enable`/`enabled` and `disable`/`disabled`
//! alike; `nv set system hostname NAME`; `nv set interface NAME type swp|bond`. Lines that do not
//! bear on QoS (`nv set system …` but the hostname, `service`, `vrf`, `router`, `evpn`, `nve`,
//! `acl`, the management port `eth0`, an interface's `ip` and `description`) are counted, not
//! listed; every other line is returned with its number.
//!
//! What the commands do not carry: `rocelab config` writes each port's far end and each bond's
//! device as a comment (`# swp1: to h1:p0`), read when present, else empty; the release from the
//! script's header; without one, the cable length's spelling tells 5.3-or-earlier apart.

use super::{
    CumulusConfig, CumulusEcn, CumulusEcnProfile, CumulusInterface, CumulusLinkPause, CumulusScheduler, DscpToSp,
    SpToTc,
};
use crate::common::Release;
use crate::lag::SwitchLag;

pub use crate::cli_tree::Unknown;

/// A Cumulus configuration read from NVUE commands.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub config: CumulusConfig,
    /// The line each of `config.interfaces` was first named on.
    pub interface_lines: Vec<usize>,
    /// Whether `nv set qos pfc default-global tx enable` and `rx enable` were both given.
    pub pfc_tx_rx: (bool, bool),
    /// Whether the link-pause profile's `tx enable` and `rx enable` were given.
    pub link_pause_tx_rx: (bool, bool),
    pub unknown: Vec<Unknown>,
    /// Lines recognised as not bearing on QoS.
    pub ignored: usize,
}

/// Whether text is an NVUE command list: an `nv set` line at the start of a line.
pub fn recognise(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("nv set "))
}

fn on(w: &str) -> Option<bool> {
    match w {
        "enable" | "enabled" | "on" => Some(true),
        "disable" | "disabled" | "off" => Some(false),
        _ => None,
    }
}

fn unquote(w: &str) -> &str {
    w.trim_matches('\'').trim_matches('"')
}

fn tc(w: &str) -> Option<u8> {
    w.parse().ok().filter(|v: &u8| *v < 8)
}

#[derive(Default)]
struct Iface {
    line: usize,
    peer: String,
    mtu: Option<u32>,
    pfc_watchdog: bool,
    link_pause: Option<String>,
    congestion_control: Option<String>,
    members: Vec<String>,
    mlag: bool,
    bridge: bool,
}

/// Reads NVUE commands; `stem` names the switch when they set no hostname.
pub fn parse(text: &str, stem: &str) -> Parsed {
    parse_lines(text.lines().enumerate().map(|(i, l)| (i + 1, l)), stem)
}

/// Reads NVUE command lines, each with its line number in the file they came from.
pub(super) fn parse_lines<'a>(lines: impl Iterator<Item = (usize, &'a str)>, stem: &str) -> Parsed {
    let mut c = CumulusConfig {
        hostname: stem.to_string(),
        release: Release { name: String::new(), default: false },
        roce_mode: None,
        cable_length: 0,
        cable_length_under_roce: false,
        trust: String::new(),
        dscp_map: Vec::new(),
        pfc_priorities: Vec::new(),
        egress_queue_map: Vec::new(),
        ecn: Vec::new(),
        ecn_off: Vec::new(),
        ecn_profiles: Vec::new(),
        lossless_alpha: None,
        scheduler: Vec::new(),
        link_pause: None,
        interfaces: Vec::new(),
        bonds: Vec::new(),
        vlan: None,
        bridge_ports: Vec::new(),
    };
    let mut ifaces: Vec<(String, Iface)> = Vec::new();
    let mut bond_device: Vec<(String, String)> = Vec::new();
    let mut pause_tx_rx = (false, false);
    let mut pfc_tx_rx = (false, false);
    let mut unknown = Vec::new();
    let mut ignored = 0;
    let mut spelled_under_roce = None;
    let mut ecn_sets: Vec<(String, Vec<CumulusEcn>, Vec<u8>)> = Vec::new();
    for (n, raw) in lines {
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(comment) = t.strip_prefix('#') {
            comment_line(comment.trim(), &mut c.release, &mut ifaces, &mut bond_device);
            continue;
        }
        let w: Vec<&str> = t.split_whitespace().map(unquote).collect();
        let ok = match w.as_slice() {
            ["set", "-euo", "pipefail"] | ["nv", "config", "apply", ..] | ["nv", "config", "save"] => true,
            ["nv", "set", rest @ ..] => set(
                rest,
                n,
                &mut c,
                &mut ifaces,
                &mut ecn_sets,
                &mut pause_tx_rx,
                &mut pfc_tx_rx,
                &mut spelled_under_roce,
                &mut ignored,
            ),
            _ => false,
        };
        if !ok {
            unknown.push(Unknown { line: n, text: raw.to_string() });
        }
    }
    c.cable_length_under_roce = spelled_under_roce.unwrap_or(!c.release.name.is_empty() && !c.release.at_least("5.4"));
    for (name, ecn, off) in ecn_sets {
        if name == "default-global" {
            c.ecn = ecn;
            c.ecn_off = off;
        } else {
            c.ecn_profiles.push(CumulusEcnProfile { name, ecn, ecn_off: off });
        }
    }
    let mut interface_lines = Vec::new();
    for (name, f) in ifaces {
        if f.bridge {
            c.bridge_ports.push(name.clone());
        }
        if !f.members.is_empty() {
            let id = name.trim_start_matches(|ch: char| !ch.is_ascii_digit()).parse().unwrap_or(0);
            let device = bond_device.iter().find(|(b, _)| *b == name).map(|(_, d)| d.clone()).unwrap_or_default();
            c.bonds.push(SwitchLag { id, device, members: f.members, mlag: f.mlag, mtu: f.mtu.unwrap_or(0) });
            continue;
        }
        if f.line == 0 {
            // Named only in a comment.
            continue;
        }
        interface_lines.push(f.line);
        c.interfaces.push(CumulusInterface {
            name,
            peer: f.peer,
            mtu: f.mtu.unwrap_or(0),
            pfc_watchdog: f.pfc_watchdog,
            link_pause: f.link_pause.is_some(),
            congestion_control: f.congestion_control,
        });
    }
    Parsed { config: c, interface_lines, pfc_tx_rx, link_pause_tx_rx: pause_tx_rx, unknown, ignored }
}

/// rocelab's comments: the header (`rocelab: NAME (NVIDIA Cumulus Linux REL, NVUE). …`,
/// `Release REL is rocelab's default …`), a port's far end (`swp1: to h1:p0`), a bond's device
/// (`bond1: LACP … to h1; …`).
fn comment_line(
    comment: &str,
    release: &mut Release,
    ifaces: &mut Vec<(String, Iface)>,
    bond_device: &mut Vec<(String, String)>,
) {
    if let Some(rest) = comment.strip_prefix("rocelab:") {
        if let Some(rel) = rest.split("(NVIDIA Cumulus Linux ").nth(1).and_then(|r| r.split(',').next()) {
            release.name = rel.to_string();
        }
    } else if comment.starts_with("Release ") && comment.contains("is rocelab's default") {
        release.default = true;
    } else if let Some((name, rest)) = comment.split_once(": ") {
        if name.contains(' ') {
            return;
        }
        if let Some(peer) = rest.strip_prefix("to ") {
            iface(ifaces, name, 0).peer = peer.to_string();
        } else if rest.starts_with("LACP") {
            if let Some(dev) = rest.split(" to ").nth(1).and_then(|d| d.split(';').next()) {
                bond_device.push((name.to_string(), dev.trim().to_string()));
            }
        }
    }
}

fn iface<'a>(ifaces: &'a mut Vec<(String, Iface)>, name: &str, line: usize) -> &'a mut Iface {
    let idx = match ifaces.iter().position(|(n, _)| n == name) {
        Some(i) => i,
        None => {
            ifaces.push((name.to_string(), Iface::default()));
            ifaces.len() - 1
        }
    };
    let f = &mut ifaces[idx].1;
    if f.line == 0 {
        f.line = line;
    }
    f
}

/// Not QoS: system, services, routing, the management port, addressing.
fn not_qos(w: &[&str]) -> bool {
    matches!(
        w,
        ["system", ..]
            | ["service", ..]
            | ["vrf", ..]
            | ["router", ..]
            | ["evpn", ..]
            | ["nve", ..]
            | ["acl", ..]
            | ["mlag", ..]
            | ["interface", "eth0" | "lo", ..]
            | ["interface", _, "ip", ..]
            | ["interface", _, "description", ..]
    )
}

#[allow(clippy::too_many_arguments)]
fn set(
    w: &[&str],
    n: usize,
    c: &mut CumulusConfig,
    ifaces: &mut Vec<(String, Iface)>,
    ecn_sets: &mut Vec<(String, Vec<CumulusEcn>, Vec<u8>)>,
    pause_tx_rx: &mut (bool, bool),
    pfc_tx_rx: &mut (bool, bool),
    under_roce: &mut Option<bool>,
    ignored: &mut usize,
) -> bool {
    match w {
        ["system", "hostname", name] => c.hostname = name.to_string(),
        ["qos", "roce", "mode", m @ ("lossless" | "lossy")] => c.roce_mode = Some(m.to_string()),
        ["qos", "roce", "cable-length", m] | ["qos", "pfc", "default-global", "cable-length", m] => {
            let Ok(m) = m.parse() else { return false };
            c.cable_length = m;
            *under_roce = Some(w[1] == "roce");
        }
        ["qos", "mapping", "default-global", "trust", t @ ("l2" | "l3")] => c.trust = t.to_string(),
        ["qos", "mapping", "default-global", "dscp", list, "switch-priority", sp] => {
            let (Some(sp), true) = (tc(sp), list.split(',').all(|d| d.parse::<u8>().is_ok_and(|d| d < 64))) else {
                return false;
            };
            c.dscp_map.push(DscpToSp { dscp: list.to_string(), switch_priority: sp });
        }
        ["qos", "pfc", "default-global", "switch-priority", sp] => {
            let Some(sp) = tc(sp) else { return false };
            if !c.pfc_priorities.contains(&sp) {
                c.pfc_priorities.push(sp);
            }
        }
        ["qos", "pfc", "default-global", dir @ ("tx" | "rx"), v] => {
            let Some(v) = on(v) else { return false };
            if *dir == "tx" {
                pfc_tx_rx.0 = v
            } else {
                pfc_tx_rx.1 = v
            }
        }
        ["qos", "egress-queue-mapping", "default-global", "switch-priority", sp, "traffic-class", t] => {
            let (Some(sp), Some(t)) = (tc(sp), tc(t)) else { return false };
            c.egress_queue_map.retain(|m| m.switch_priority != sp);
            c.egress_queue_map.push(SpToTc { switch_priority: sp, traffic_class: t });
            c.egress_queue_map.sort_by_key(|m| m.switch_priority);
        }
        ["qos", "congestion-control", profile, "traffic-class", t, key, v] => {
            let Some(t) = tc(t) else { return false };
            let idx = match ecn_sets.iter().position(|(p, ..)| p == profile) {
                Some(i) => i,
                None => {
                    ecn_sets.push((profile.to_string(), Vec::new(), Vec::new()));
                    ecn_sets.len() - 1
                }
            };
            let (_, ecn, off) = &mut ecn_sets[idx];
            let entry = |ecn: &mut Vec<CumulusEcn>| -> usize {
                match ecn.iter().position(|e| e.traffic_class == t) {
                    Some(i) => i,
                    None => {
                        ecn.push(CumulusEcn { traffic_class: t, min: 0, max: 0, probability: 0 });
                        ecn.len() - 1
                    }
                }
            };
            match *key {
                "min-threshold" | "max-threshold" => {
                    let Ok(b) = v.parse::<u64>() else { return false };
                    let e = entry(ecn);
                    if *key == "min-threshold" {
                        ecn[e].min = b
                    } else {
                        ecn[e].max = b
                    }
                }
                "probability" => {
                    let Some(p) = v.parse::<u8>().ok().filter(|p| (1..=100).contains(p)) else { return false };
                    let e = entry(ecn);
                    ecn[e].probability = p;
                }
                "ecn" => match on(v) {
                    Some(true) => {
                        entry(ecn);
                    }
                    Some(false) => {
                        ecn.retain(|e| e.traffic_class != t);
                        if !off.contains(&t) {
                            off.push(t);
                        }
                    }
                    None => return false,
                },
                _ => return false,
            }
        }
        ["qos", "advance-buffer-config", "default-global", "ingress-lossless-buffer", "shared-alpha", a] => {
            c.lossless_alpha = Some(a.to_string())
        }
        ["qos", "egress-scheduler", "default-global", "traffic-class", t, key, v] => {
            let Some(t) = tc(t) else { return false };
            let idx = match c.scheduler.iter().position(|s| s.traffic_class == t) {
                Some(i) => i,
                None => {
                    c.scheduler.push(CumulusScheduler { traffic_class: t, mode: String::new(), bw_percent: None });
                    c.scheduler.len() - 1
                }
            };
            match (*key, *v) {
                ("mode", m @ ("dwrr" | "strict")) => c.scheduler[idx].mode = m.to_string(),
                ("bw-percent", b) => match b.parse::<u8>().ok().filter(|b| (1..=100).contains(b)) {
                    Some(b) => c.scheduler[idx].bw_percent = Some(b),
                    None => return false,
                },
                _ => return false,
            }
        }
        ["qos", "link-pause", profile, key, v] => {
            let lp =
                c.link_pause.get_or_insert_with(|| CumulusLinkPause { profile: profile.to_string(), cable_length: 0 });
            match (*key, on(v)) {
                ("tx", Some(x)) => pause_tx_rx.0 = x,
                ("rx", Some(x)) => pause_tx_rx.1 = x,
                ("cable-length", _) => match v.parse() {
                    Ok(m) => lp.cable_length = m,
                    Err(_) => return false,
                },
                _ => return false,
            }
        }
        ["bridge", "domain", "br_default", "vlan", v] => match v.parse::<u16>().ok().filter(|v| (1..=4094).contains(v))
        {
            Some(v) => c.vlan = Some(v),
            None => return false,
        },
        ["interface", names, rest @ ..] if !not_qos(w) => {
            let Some(names) = expand(names) else { return false };
            for name in names {
                if !interface_set(iface(ifaces, &name, n), rest) {
                    return false;
                }
            }
        }
        _ if not_qos(w) => *ignored += 1,
        _ => return false,
    }
    true
}

/// One `nv set interface NAME …` command.
fn interface_set(f: &mut Iface, rest: &[&str]) -> bool {
    match rest {
        ["type", "swp" | "bond"] => {}
        ["link", "mtu", m] => match m.parse::<u32>() {
            Ok(m) => f.mtu = Some(m),
            Err(_) => return false,
        },
        ["qos", "pfc-watchdog", "state", v] => match on(v) {
            Some(v) => f.pfc_watchdog = v,
            None => return false,
        },
        ["qos", "link-pause", "profile", p] => f.link_pause = Some(p.to_string()),
        ["qos", "congestion-control", "profile", p] => f.congestion_control = Some(p.to_string()),
        ["bond", "member", m] => f.members.push(m.to_string()),
        ["bond", "mlag", "id", _] => f.mlag = true,
        ["bridge", "domain", "br_default"] => f.bridge = true,
        _ => return false,
    }
    true
}

/// `swp1`, `swp1-4`, `swp1-2,swp51-52`: NVUE interface names and ranges (the user guide's
/// "Interface Configuration and Management": `nv set interface swp1-4,swp6 …`).
fn expand(names: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for part in names.split(',') {
        let digits = part.trim_end_matches(|ch: char| ch.is_ascii_digit() || ch == '-');
        let tail = &part[digits.len()..];
        match tail.split_once('-') {
            Some((a, b)) if !digits.is_empty() => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if a > b || b - a > 512 {
                    return None;
                }
                out.extend((a..=b).map(|i| format!("{digits}{i}")));
            }
            Some(_) => return None,
            None if !part.is_empty() => out.push(part.to_string()),
            None => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nv config show -o commands` of a switch set up with the user guide's RoCE commands:
    /// system and management lines first, `enabled` spelled as later releases print it.
    const COMMANDS: &str = "nv set system hostname leaf01
nv set system timezone Etc/UTC
nv set interface eth0 ip vrf mgmt
nv set interface swp1-2 type swp
nv set interface swp1 type swp
nv set interface swp1 link mtu 9216
nv set interface swp1 qos pfc-watchdog state enabled
nv set interface swp1 description to-server01
nv set qos roce mode lossless
nv set qos pfc default-global cable-length 10
nv set qos mapping default-global trust l3
nv set qos mapping default-global dscp 26 switch-priority 3
nv set qos pfc default-global switch-priority 3
nv set qos pfc default-global tx enabled
nv set qos pfc default-global rx enabled
nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 3
nv set qos congestion-control default-global traffic-class 3 min-threshold 150000
nv set qos congestion-control default-global traffic-class 3 max-threshold 1500000
nv set qos congestion-control default-global traffic-class 3 probability 100
nv set qos congestion-control default-global traffic-class 3 ecn enabled
nv set qos congestion-control default-global traffic-class 0 ecn disabled
nv set qos egress-scheduler default-global traffic-class 3 mode dwrr
nv set qos egress-scheduler default-global traffic-class 3 bw-percent 90
nv set qos buffer-pool default-global bogus 1
";

    #[test]
    fn reads_nv_config_show_commands() {
        let p = parse(COMMANDS, "stem");
        let c = &p.config;
        assert_eq!((c.hostname.as_str(), c.roce_mode.as_deref(), c.trust.as_str()), ("leaf01", Some("lossless"), "l3"));
        assert_eq!((c.cable_length, c.cable_length_under_roce), (10, false));
        assert_eq!((c.pfc_priorities.as_slice(), p.pfc_tx_rx), (&[3][..], (true, true)));
        assert_eq!((c.dscp_map[0].dscp.as_str(), c.dscp_map[0].switch_priority), ("26", 3));
        assert_eq!(c.ecn, [CumulusEcn { traffic_class: 3, min: 150_000, max: 1_500_000, probability: 100 }]);
        assert_eq!(c.ecn_off, [0]);
        assert_eq!((c.scheduler[0].mode.as_str(), c.scheduler[0].bw_percent), ("dwrr", Some(90)));
        // `swp1-2` is a range of two ports.
        let names: Vec<&str> = c.interfaces.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["swp1", "swp2"]);
        let swp1 = &c.interfaces[0];
        assert_eq!((swp1.mtu, swp1.pfc_watchdog, p.interface_lines[0]), (9216, true, 4));
        assert_eq!(expand("swp1-2,swp51,bond1").unwrap(), ["swp1", "swp2", "swp51", "bond1"]);
        assert!(expand("swp4-2").is_none() && expand("swp1,").is_none());
        let unknown: Vec<usize> = p.unknown.iter().map(|u| u.line).collect();
        assert_eq!(unknown, [24]);
        assert_eq!(p.ignored, 3);
    }

    #[test]
    fn the_older_cable_length_spelling_means_5_3_or_earlier() {
        let p = parse("nv set qos roce mode lossless\nnv set qos roce cable-length 5\n", "s");
        assert_eq!((p.config.cable_length, p.config.cable_length_under_roce), (5, true));
    }

    #[test]
    fn malformed_values_are_reported_not_guessed() {
        let text = "nv set qos pfc default-global switch-priority 8\nnv set qos mapping default-global dscp 64 switch-priority 3\nnv set interface swp1 link mtu big\nnv set qos egress-scheduler default-global traffic-class 3 bw-percent 0\nnv set qos congestion-control default-global traffic-class 3 ecn maybe\nnv show qos\n";
        let p = parse(text, "s");
        let lines: Vec<usize> = p.unknown.iter().map(|u| u.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5, 6]);
        assert!(p.config.pfc_priorities.is_empty() && p.config.dscp_map.is_empty());
    }
}
