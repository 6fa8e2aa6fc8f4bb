//! NVIDIA Cumulus Linux 5.x on Spectrum switches, configured with NVUE (`nv set …`,
//! `nv config apply`).
//!
//! Command sources (NVIDIA Cumulus Linux 5.12 user guide, "Quality of Service" and "RDMA over
//! Converged Ethernet - RoCE", and the NVUE command reference, "QoS"):
//! - `nv set qos roce mode lossless|lossy` and the cable length: NVIDIA's RoCE
//!   profile (trust, switch priority 3 lossless with its own traffic pool, CNP on switch priority 6
//!   strict, ECN on traffic classes 0 and 3, the LLDP application TLV), which NVIDIA says is the
//!   supported way to configure RoCE ("you can only configure RoCE with NVUE commands"); the guide's
//!   "Change RoCE Configuration" section then adjusts it with the commands below, as rocelab does.
//! - `nv set qos mapping default-global trust l2|l3`, `… dscp 10,21,36 switch-priority 0`;
//! - `nv set qos pfc default-global switch-priority P`, `… tx enable`, `… rx enable`;
//! - `nv set qos egress-queue-mapping default-global switch-priority P traffic-class T` (NVUE
//!   supports only the `default-global` profile for it);
//! - `nv set qos congestion-control default-global traffic-class T min-threshold B`,
//!   `max-threshold B` (bytes), `probability 1-100`, `ecn enable|disable`;
//! - `nv set qos egress-scheduler default-global traffic-class T mode dwrr|strict`,
//!   `bw-percent 1-100`;
//! - `nv set qos link-pause NAME tx enable`, `rx enable`, `cable-length N`,
//!   `nv set interface swpN qos link-pause profile NAME` (link pause and PFC cannot share a port);
//! - `nv set interface swpN qos pfc-watchdog state enable`, `nv set interface swpN link mtu
//!   552-9216`;
//! - `nv config apply --assume-yes` (`--assume-yes` answers the prompts, so the script does not
//!   stop; NVUE command reference, "Config Commands"), then `nv config save`.
//!
//! By release (`os_version`, NVUE command reference "Version History" of each command):
//! - the PFC cable length is `nv set qos roce cable-length N` in 5.3 and earlier, `nv set qos
//!   pfc default-global cable-length N` from 5.4 ("In Cumulus Linux 5.3 and earlier, this
//!   command is `nv set qos roce cable-length`");
//! - `nv set interface swpN qos pfc-watchdog state` was introduced in 5.6: earlier releases get
//!   no watchdog and a warning.
//! - bonds towards bonded hosts: `nv set interface bondN bond member swpM`, `… bond mlag id N`
//!   ("Bonding - Link Aggregation", "Multi-Chassis Link Aggregation - MLAG"; [`crate::lag`]);
//! - verification: `nv show qos roce`, `nv show interface swpN qos roce status`,
//!   `nv show qos pfc default-global`, `nv show qos congestion-control default-global`,
//!   `nv show qos egress-scheduler default-global`, `nv show qos egress-queue-mapping
//!   default-global`, `nv show interface swpN qos pfc-watchdog`, `nv show interface swpN qos roce
//!   counters`.
//!
//! Per port (NVUE command reference, "QoS", Cumulus Linux 5.4.0 and later; the user guide's
//! "Port Groups" / "ECN" section):
//! - ECN thresholds that differ by port (by link speed, or a `qos.ports` override) go in custom
//!   congestion-control profiles, one per set of thresholds: `nv set qos congestion-control
//!   PROFILE traffic-class T min-threshold B` (and `max-threshold`, `probability`, `ecn`), applied
//!   with `nv set interface swpN qos congestion-control profile PROFILE`; the first port's
//!   thresholds stay in `default-global`. A profile overrides the global settings for its ports;
//!   it switches ECN off on the traffic classes `default-global` or the RoCE profile marks and it
//!   does not.
//! - The lossless priority group's dynamic-threshold alpha:
//!   `nv set qos advance-buffer-config default-global ingress-lossless-buffer shared-alpha
//!   alpha_1_8` (values `alpha_0`, `alpha_1_128` … `alpha_1_2`, `alpha_1` … `alpha_64`,
//!   `alpha_infinity`); "You can only configure advanced buffer settings for the default-global
//!   profile", so it is one value for the switch (the first port's), and ports whose alpha
//!   differs are reported. An alpha that is not a power of two is rounded to the nearest.
//! - The bytes reserved to a lossless priority group (`qos.buffer.reserve`) are not rendered:
//!   NVUE's `ingress-lossless-buffer` has no reserved size, and Cumulus sizes the PFC port buffer
//!   from the cable length; the ports that ask for it are reported.
//!
//! The guide's 5.12 examples spell the states `enable`/`disable`; later NVUE releases also accept
//! `enabled`. Buffer thresholds (`xoff-threshold`, `port-buffer`) are left to Cumulus, which sizes
//! them from the cable length and MTU as NVIDIA recommends; the cable length is the longest cabled
//! port's. Every DSCP value no class lists is mapped to the class of priority 0, so that no stray
//! marking lands in the lossless class through Cumulus's default DSCP d → switch priority d/8.

pub mod parse;
pub mod yaml;

use crate::common::{
    alpha_given, ecn_of, group_by, link_pause, longest_cable_m, percent, policy_port_ecn_apart, ports_warning, queues,
    same_policy_but_ecn, switch_ports, PortView,
};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulusConfig {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    /// `lossless` (a class has PFC), `lossy` (ECN only), or none (no RoCE QoS at all).
    pub roce_mode: Option<String>,
    /// Metres, the longest cabled port.
    pub cable_length: u64,
    /// The release takes the cable length as `qos roce cable-length` (5.3 and earlier), not
    /// `qos pfc default-global cable-length`.
    pub cable_length_under_roce: bool,
    /// `l2` (802.1p) or `l3` (DSCP).
    pub trust: String,
    /// `mapping default-global dscp VALUES switch-priority P`.
    pub dscp_map: Vec<DscpToSp>,
    /// PFC switch priorities, switch-wide (`pfc default-global`).
    pub pfc_priorities: Vec<u8>,
    /// All eight switch priorities to their traffic class (egress queue).
    pub egress_queue_map: Vec<SpToTc>,
    pub ecn: Vec<CumulusEcn>,
    /// Traffic classes the RoCE profile marks that the fabric does not.
    pub ecn_off: Vec<u8>,
    /// Congestion-control profiles of the ports whose ECN thresholds differ from the first
    /// port's (which `default-global` holds).
    pub ecn_profiles: Vec<CumulusEcnProfile>,
    /// `advance-buffer-config default-global ingress-lossless-buffer shared-alpha`, when the
    /// fabric gives the lossless priority groups' alpha (`alpha_1_8`).
    pub lossless_alpha: Option<String>,
    /// ETS, when the fabric gives shares.
    pub scheduler: Vec<CumulusScheduler>,
    pub link_pause: Option<CumulusLinkPause>,
    pub interfaces: Vec<CumulusInterface>,
    /// Bonds towards bonded hosts ([`crate::lag`]).
    pub bonds: Vec<crate::lag::SwitchLag>,
    /// PCP marking's VLAN on the default VLAN-aware bridge (`nv set bridge domain br_default
    /// vlan N`), with every port not in a bond, and every bond, a trunk of it (`nv set interface
    /// swpN bridge domain br_default`; Cumulus Linux user guide, "Ethernet Bridging - VLAN-aware
    /// Mode", trunk ports).
    pub vlan: Option<u16>,
    /// The bridge's ports when `vlan` is set.
    pub bridge_ports: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DscpToSp {
    /// `26` or `0,1,2,…`.
    pub dscp: String,
    pub switch_priority: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpToTc {
    pub switch_priority: u8,
    pub traffic_class: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulusEcn {
    pub traffic_class: u8,
    /// Bytes.
    pub min: u64,
    pub max: u64,
    /// Percent, 1-100.
    pub probability: u8,
}

/// A custom congestion-control (ECN) profile and the ports it applies to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulusEcnProfile {
    /// `rocelab-ecn-2`.
    pub name: String,
    pub ecn: Vec<CumulusEcn>,
    /// Traffic classes marked by `default-global` or the RoCE profile but not by this profile.
    pub ecn_off: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulusScheduler {
    pub traffic_class: u8,
    /// `dwrr` or `strict`.
    pub mode: String,
    pub bw_percent: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulusLinkPause {
    pub profile: String,
    pub cable_length: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulusInterface {
    /// `swp1`.
    pub name: String,
    pub peer: String,
    pub mtu: u32,
    /// PFC watchdog on (ports with PFC).
    pub pfc_watchdog: bool,
    /// Member of the link-pause profile.
    pub link_pause: bool,
    /// The congestion-control profile of the port, when not `default-global`.
    pub congestion_control: Option<String>,
}

/// NVUE's interface MTU range (`nv set interface swp1 link mtu ?`: 552-9216).
pub const MTU_RANGE: (u32, u32) = (552, 9216);
/// The traffic classes NVIDIA's RoCE profile marks with ECN (`nv show qos roce`: enabled-tc 0,3).
const ROCE_ECN_TCS: [u8; 2] = [0, 3];
const PAUSE_PROFILE: &str = "rocelab-pause";

pub fn build(f: &ResolvedFabric, device: usize) -> (CumulusConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let (ports, pfc) = switch_ports(f, device, &mut findings);
    let policy = policy_port_ecn_apart(
        d,
        &ports,
        "NVUE's mapping, egress-queue-mapping and egress-scheduler are rendered as the one default-global profile",
        &mut findings,
    );
    if pfc.len() > 1 {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "{} lossless priorities ({}): NVIDIA documents the RoCE profile with one lossless switch priority and its traffic pool; rendered PFC on all of them, check `nv show qos roce` after applying",
                pfc.len(),
                pfc.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let any_ecn = ports.iter().any(|p| p.classes.iter().any(|c| c.ecn.is_some()));
    let roce_mode = if !pfc.is_empty() {
        Some("lossless".to_string())
    } else if any_ecn {
        Some("lossy".to_string())
    } else {
        None
    };

    let mut dscp_map = Vec::new();
    let mut egress_queue_map = Vec::new();
    let mut ecn = Vec::new();
    let mut scheduler = Vec::new();
    let mut trust = "l2";
    if let Some(p) = policy {
        if p.marking() == Marking::Dscp {
            trust = "l3";
            dscp_map = dscp_to_sp(p);
        }
        let default_queue = p.classes.iter().find(|c| c.priority == 0).map(|c| c.queue).unwrap_or(0);
        egress_queue_map = (0..8u8)
            .map(|sp| SpToTc {
                switch_priority: sp,
                traffic_class: p.classes.iter().find(|c| c.priority == sp).map(|c| c.queue).unwrap_or(default_queue),
            })
            .collect();
        ecn = cumulus_ecn(&ecn_of(p));
        for q in queues(p) {
            if p.has_ets() {
                if q.strict {
                    scheduler.push(CumulusScheduler {
                        traffic_class: q.queue,
                        mode: "strict".into(),
                        bw_percent: None,
                    });
                } else if let Some(w) = q.ets {
                    let bw = if w == 0 {
                        findings.push(Finding::warning(
                            &d.name,
                            None,
                            format!(
                                "queue {} ({}) has an ETS share of 0 %, which NVUE's bw-percent (1-100) cannot express; rendered 1 %",
                                q.queue,
                                q.names()
                            ),
                        ));
                        1
                    } else {
                        w.min(100) as u8
                    };
                    scheduler.push(CumulusScheduler {
                        traffic_class: q.queue,
                        mode: "dwrr".into(),
                        bw_percent: Some(bw),
                    });
                }
            }
        }
    }
    let ecn_off: Vec<u8> = if roce_mode.is_some() {
        ROCE_ECN_TCS.iter().copied().filter(|tc| !ecn.iter().any(|e| e.traffic_class == *tc)).collect()
    } else {
        Vec::new()
    };

    // Ports whose ECN thresholds differ from the first port's: a congestion-control profile per
    // set of thresholds. Ports reported above for other differences keep `default-global`.
    let mut ecn_profiles: Vec<CumulusEcnProfile> = Vec::new();
    let mut profile_of: Vec<Option<String>> = vec![None; ports.len()];
    if let Some(first) = policy {
        let global = ecn_of(first);
        let same: Vec<&PortView> = ports.iter().filter(|p| same_policy_but_ecn(first, p)).collect();
        for (set, group) in group_by(&same, ecn_of) {
            if set == global {
                continue;
            }
            let name = format!("rocelab-ecn-{}", ecn_profiles.len() + 2);
            let profile_ecn = cumulus_ecn(&set);
            let mut off: Vec<u8> = ROCE_ECN_TCS
                .iter()
                .copied()
                .filter(|_| roce_mode.is_some())
                .chain(ecn.iter().map(|e| e.traffic_class))
                .filter(|tc| !profile_ecn.iter().any(|e| e.traffic_class == *tc))
                .collect();
            off.sort_unstable();
            off.dedup();
            for p in &group {
                if let Some(i) = ports.iter().position(|x| x.id == p.id) {
                    profile_of[i] = Some(name.clone());
                }
            }
            ecn_profiles.push(CumulusEcnProfile { name, ecn: profile_ecn, ecn_off: off });
        }
    }

    let mut lossless_alpha = lossless_alpha(f, d, &ports, &mut findings);
    crate::common::reserve_not_rendered(
        f,
        d,
        &ports,
        "NVUE's ingress-lossless-buffer has no reserved size and Cumulus sizes the PFC port buffer from the cable length",
        &mut findings,
    );

    let pause: Vec<bool> = ports.iter().map(|p| link_pause(d, p, "Cumulus Linux", &mut findings)).collect();
    let pause_only: Vec<&PortView> = ports.iter().zip(&pause).filter(|(_, l)| **l).map(|(p, _)| p).collect();
    let pause_profile = (!pause_only.is_empty()).then(|| CumulusLinkPause {
        profile: PAUSE_PROFILE.into(),
        cable_length: pause_only.iter().map(|p| p.cable.as_metres_f64().ceil() as u64).max().unwrap_or(1).max(1),
    });

    let mut interfaces: Vec<CumulusInterface> = ports
        .iter()
        .zip(&pause)
        .zip(profile_of)
        .map(|((p, pause), congestion_control)| {
            let mut mtu = p.settings.mtu;
            if mtu < MTU_RANGE.0 || mtu > MTU_RANGE.1 {
                let to = mtu.clamp(MTU_RANGE.0, MTU_RANGE.1);
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!("MTU {mtu} is outside NVUE's 552-9216; rendered {to}"),
                ));
                mtu = to;
            }
            let pfc_here = !p.pfc_priorities().is_empty();
            CumulusInterface {
                name: p.name.clone(),
                peer: p.peer(f),
                mtu,
                pfc_watchdog: pfc_here,
                link_pause: *pause,
                congestion_control,
            }
        })
        .collect();
    let mut bonds = crate::lag::cumulus(f, device, &mut findings);
    for b in &mut bonds {
        // The bond's MTU is its members' as rendered (NVUE's range applied).
        if let Some(i) = interfaces.iter().find(|i| b.members.contains(&i.name)) {
            b.mtu = i.mtu;
        }
    }
    let release = crate::common::release(d);
    if !release.at_least("5.6") && interfaces.iter().any(|i| i.pfc_watchdog) {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "PFC watchdog not rendered: NVUE has `qos pfc-watchdog` from Cumulus Linux 5.6, and the switch runs {}",
                release.name
            ),
        ));
        for i in &mut interfaces {
            i.pfc_watchdog = false;
        }
    }
    if !release.at_least("5.4") {
        // Per-port congestion-control profiles and advanced buffer settings came with 5.4
        // (NVUE command reference, "QoS": `nv set interface … qos congestion-control profile`,
        // `nv set qos advance-buffer-config`).
        let on_profiles: Vec<String> =
            interfaces.iter().filter(|i| i.congestion_control.is_some()).map(|i| i.name.clone()).collect();
        if !on_profiles.is_empty() {
            findings.push(Finding::warning(
                &d.name,
                None,
                format!(
                    "per-port ECN thresholds not rendered: NVUE applies congestion-control profiles to ports from Cumulus Linux 5.4, and the switch runs {}; {} keep default-global's",
                    release.name,
                    on_profiles.join(", ")
                ),
            ));
            ecn_profiles.clear();
            for i in &mut interfaces {
                i.congestion_control = None;
            }
        }
        if let Some(a) = lossless_alpha.take() {
            findings.push(Finding::warning(
                &d.name,
                None,
                format!(
                    "lossless buffer alpha {a} not rendered: `nv set qos advance-buffer-config` came with Cumulus Linux 5.4, and the switch runs {}",
                    release.name
                ),
            ));
        }
    }
    let bridge_ports = match crate::common::pcp_vlan(f) {
        Some(_) => interfaces
            .iter()
            .map(|i| i.name.clone())
            .filter(|n| !bonds.iter().any(|b| b.members.contains(n)))
            .chain(bonds.iter().map(|b| format!("bond{}", b.id)))
            .collect(),
        None => Vec::new(),
    };
    let config = CumulusConfig {
        hostname: d.name.clone(),
        cable_length_under_roce: !release.at_least("5.4"),
        release,
        roce_mode,
        cable_length: longest_cable_m(&ports).max(1),
        trust: trust.into(),
        dscp_map,
        pfc_priorities: pfc,
        egress_queue_map,
        ecn,
        ecn_off,
        ecn_profiles,
        lossless_alpha,
        scheduler,
        link_pause: pause_profile,
        interfaces,
        vlan: crate::common::pcp_vlan(f),
        bridge_ports,
        bonds,
    };
    (config, findings)
}

/// NVUE's congestion-control entries of a port's ECN thresholds per queue.
fn cumulus_ecn(set: &[(u8, Option<rocelab_model::qos::Ecn>)]) -> Vec<CumulusEcn> {
    set.iter()
        .filter_map(|(q, e)| {
            e.as_ref().map(|e| CumulusEcn {
                traffic_class: *q,
                min: e.kmin.as_bytes(),
                max: e.kmax.as_bytes(),
                probability: percent(e.pmax),
            })
        })
        .collect()
}

/// NVUE's name of a dynamic-threshold alpha (`alpha_1_8`, `alpha_2`), rounded to the nearest
/// power of two from 1/128 to 64; and whether it was rounded.
pub fn nvue_alpha(a: f64) -> (String, bool) {
    let l = a.log2();
    let r = l.round().clamp(-7.0, 6.0) as i32;
    let name = if r < 0 { format!("alpha_1_{}", 1u32 << (-r)) } else { format!("alpha_{}", 1u32 << r) };
    (name, (l - r as f64).abs() > 1e-9)
}

/// The one `ingress-lossless-buffer shared-alpha` of the switch: the first port's alpha when
/// the fabric gives it; the ports whose alpha differs (or is given where the first port's is
/// not) are reported.
fn lossless_alpha(
    f: &ResolvedFabric,
    d: &rocelab_model::ResolvedDevice,
    ports: &[PortView],
    findings: &mut Findings,
) -> Option<String> {
    let lossless: Vec<&PortView> = ports.iter().filter(|p| !p.pfc_priorities().is_empty()).collect();
    let given: Vec<&PortView> = lossless.iter().copied().filter(|p| alpha_given(f, d, p)).collect();
    let first = *lossless.first()?;
    if given.is_empty() {
        return None;
    }
    if !alpha_given(f, d, first) {
        findings.push(ports_warning(d, &given, |which| {
            format!(
                "the dynamic-threshold alpha of the lossless priority groups of {which} is not rendered: NVUE's advance-buffer-config sets one shared-alpha for the switch (default-global) and port {}'s is not given",
                first.name
            )
        }));
        return None;
    }
    let a = first.settings.alpha;
    let (name, rounded) = nvue_alpha(a);
    if rounded {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!("qos.buffer.alpha {a} is not a power of two; NVUE's shared-alpha takes one, rendered {name}"),
        ));
    }
    let differing: Vec<&PortView> = lossless.iter().copied().filter(|p| p.settings.alpha != a).collect();
    for (other, group) in group_by(&differing, |p| p.settings.alpha.to_bits()) {
        findings.push(ports_warning(d, &group, |which| {
            format!(
                "the dynamic-threshold alpha {} of the lossless priority groups of {which} is not rendered: NVUE's advance-buffer-config sets one shared-alpha for the switch (default-global); rendered port {}'s, {name}",
                f64::from_bits(other),
                first.name
            )
        }));
    }
    Some(name)
}

/// Each class's DSCP values to its priority, and every value no class lists to switch priority 0
/// (which the egress-queue-mapping sends to the queue of the class of priority 0).
fn dscp_to_sp(p: &PortView) -> Vec<DscpToSp> {
    let mut out = Vec::new();
    let mut listed = [false; 64];
    for c in p.classes.iter().filter(|c| !c.dscp.is_empty()) {
        for v in &c.dscp {
            listed[(*v & 63) as usize] = true;
        }
        out.push(DscpToSp { dscp: join(&c.dscp), switch_priority: c.priority });
    }
    let rest: Vec<u8> = (0..64u8).filter(|v| !listed[*v as usize]).collect();
    if !rest.is_empty() {
        out.push(DscpToSp { dscp: join(&rest), switch_priority: 0 });
    }
    out
}

fn join(v: &[u8]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}
