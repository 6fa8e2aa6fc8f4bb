//! NVIDIA Onyx (MLNX-OS) on Spectrum switches.
//!
//! Command sources, in the order the configuration applies them:
//! - the Demartek "RoCE Deployment Guide" (2018), section "Deploying RoCE on a Mellanox Switch":
//!   `dcb priority-flow-control enable force`, `dcb priority-flow-control priority P enable`,
//!   `interface ethernet 1/1 dcb priority-flow-control mode on force`, `vlan 2`,
//!   `pool iPool1 size N type dynamic`, `switchport mode trunk`, `switchport trunk allowed-vlan 2`,
//!   `ingress-buffer iPort.pgN bind switch-priority P`, `traffic-class T bind switch-priority P`,
//!   `ingress-buffer iPort.pgN map pool iPoolK type lossy|lossless reserved R [xoff X xon Y] shared alpha A`,
//!   `egress-buffer ePort.tcT map pool ePoolK reserved R shared alpha A`,
//!   `traffic-class T congestion-control ecn minimum-absolute MIN maximum-absolute MAX`,
//!   `traffic-class T dcb ets wrr W`, `config write to NAME`, and the verification commands.
//!   The guide's text lost hyphens at line breaks (`priorityflow-control`, `ingressbuffer`,
//!   `trafficclass`); the hyphenated forms are the ones the same guide prints elsewhere and NVIDIA
//!   documents.
//! - NVIDIA community DOC-2884 "Lossless RoCE Configuration for MLNX-OS Switches in DSCP-Based QoS
//!   Mode (advanced mode)": `advanced buffer management force` before the pools, `qos trust L3`,
//!   `traffic-class T dcb ets strict`, and its buffer values at MTU 9216.
//! - NVIDIA Onyx User Manual, QoS Commands: `qos trust [port | L2 | L3 | both]`, default L2.
//! - Onyx running configurations as switches print them (`show running-config interface`):
//!   `interface ethernet 1/1 speed 40G force`, `interface ethernet 1/1 mtu 9216 force`, entered
//!   as `speed 40G force` and `mtu 9216 force` in the interface's configuration mode.
//!
//! Units: pool and buffer sizes are bytes; the ECN thresholds are in KB, read as 1000 bytes (a
//! value that is not a whole number of KB is rounded, with a warning). Onyx maps DSCP d to
//! switch-priority d/8 under `qos trust L3` (DOC-2884: "Traffic over DSCP 26 is mapped to
//! switch-priority 3 by default"); rocelab knows no documented command to change that map, so a
//! class whose DSCP values map elsewhere is reported.
//!
//! Values the fabric does not carry come from the two NVIDIA examples: the lossy priority group
//! reserves 20480 bytes with alpha 8, egress traffic classes reserve 1500 bytes with alpha 2
//! (lossy) or `inf` (lossless), the lossless group's `shared alpha` is 2 unless
//! `qos.buffer.alpha` is set, and its `xoff`/`xon` are both twice the larger of the MTU and
//! 4096 bytes (8192 at MTU 1500 in the Demartek guide, 18432 at MTU 9216 in DOC-2884) unless
//! the port sets `xoff` or `reserve`. A lossless group's `reserved` is its XOFF size plus the PFC
//! headroom.
//!
//! Per port: everything above is set per interface, so each port gets its own values where the
//! fabric gives them per link speed or per port: ECN thresholds, the lossless group's `shared
//! alpha` (an alpha Onyx has no form for is reported with its ports), headroom, and the bytes
//! the group fills before XOFF. rocelab reads the `xoff` of `ingress-buffer … type lossless
//! reserved R xoff X xon Y shared alpha A` as that part of the reserved buffer (R − X is the
//! headroom, as `rocelab check --import` reads it back), which is what `qos.buffer.reserve`
//! asks for: bytes the group holds on top of its dynamic share before it pauses its upstream. A
//! port's `reserve` is therefore rendered as its `xoff` and `xon` (a static `xoff` on the port
//! takes precedence, reported).
//! Pools not given in `qos.buffer.pools` follow DOC-2884's proportions on a 16 MiB Spectrum:
//! 5/16 of the switch buffer each for the lossless and lossy ingress pools and the lossy egress
//! pool, the whole buffer for the lossless egress pool.

use crate::common::{cabled_ports, no_ports_finding, ports_warning, reserve_given, whole_units, PortView};
use crate::finding::{Finding, Findings};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnyxConfig {
    pub hostname: String,
    /// The software release rendered for.
    pub release: crate::common::Release,
    /// Priorities with PFC on, switch-wide.
    pub pfc_priorities: Vec<u8>,
    pub vlan: Option<u16>,
    pub pools: Vec<OnyxPool>,
    pub interfaces: Vec<OnyxInterface>,
    /// `config write to NAME`.
    pub saved_config: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnyxPool {
    /// `iPool0`, `iPool1`, `ePool0`, `ePool1`.
    pub name: String,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnyxInterface {
    /// `1/1` as in `interface ethernet 1/1`.
    pub name: String,
    pub peer: String,
    /// `100G` as in `speed 100G force` (the link's speed).
    pub speed: String,
    /// The port's MTU, as in `mtu 9216 force`.
    pub mtu: u32,
    pub pfc: bool,
    pub trunk_vlan: Option<u16>,
    /// `L3` under DSCP marking; none leaves the default (L2, PCP).
    pub trust: Option<String>,
    pub pg_binds: Vec<Bind>,
    pub tc_binds: Vec<Bind>,
    /// In the order the guide configures them: lossy first, then lossless.
    pub buffers: Vec<OnyxBuffer>,
    pub ecn: Vec<OnyxEcn>,
    /// ETS for traffic classes 0-7, when the fabric gives ETS shares.
    pub ets: Vec<OnyxEts>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bind {
    /// Priority group or traffic class.
    pub to: u8,
    pub priority: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnyxBuffer {
    /// `ingress` (priority group) or `egress` (traffic class).
    pub direction: String,
    pub index: u8,
    pub pool: String,
    pub lossless: bool,
    pub reserved: u64,
    pub xoff: Option<u64>,
    pub xon: Option<u64>,
    pub alpha: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnyxEcn {
    pub tc: u8,
    /// KB.
    pub min: u64,
    pub max: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnyxEts {
    pub tc: u8,
    /// `wrr W` or, when none, `strict`.
    pub wrr: Option<u8>,
}

const LOSSY_PG_RESERVED: u64 = 20480;
const LOSSY_PG_ALPHA: &str = "8";
const EGRESS_RESERVED: u64 = 1500;
const LOSSY_TC_ALPHA: &str = "2";
const LOSSLESS_TC_ALPHA: &str = "inf";
const LOSSLESS_PG_ALPHA: &str = "2";

/// Onyx interface name from rocelab's `eth1/1`.
fn interface(port: &str) -> String {
    port.trim_start_matches("eth").trim_start_matches("Eth").to_string()
}

/// Alpha in the form the NVIDIA examples print it: a whole number or `inf`.
fn alpha_text(a: f64) -> Option<String> {
    (a >= 1.0 && a.fract() == 0.0 && (a as u64).is_power_of_two()).then(|| format!("{}", a as u64))
}

/// The Onyx form of alpha `a`, or the NVIDIA examples' when Onyx has none (with `warn`).
fn onyx_alpha(a: f64, warn: impl FnOnce()) -> String {
    alpha_text(a).unwrap_or_else(|| {
        warn();
        LOSSLESS_PG_ALPHA.to_string()
    })
}

/// The warning for an alpha rocelab cannot write in Onyx's form, on `ports` (none: the fabric's).
fn alpha_finding(d: &rocelab_model::ResolvedDevice, a: f64, ports: &[&PortView]) -> Finding {
    let text = |which: &str| {
        format!(
            "qos.buffer.alpha {a}{which}: the Onyx forms rocelab knows are whole powers of two and inf; rendered the NVIDIA examples' alpha {LOSSLESS_PG_ALPHA}"
        )
    };
    if ports.is_empty() {
        Finding::warning(&d.name, None, text(""))
    } else {
        ports_warning(d, ports, |which| text(&format!(" ({which})")))
    }
}

pub fn build(f: &ResolvedFabric, device: usize) -> (OnyxConfig, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let mut pfc: Vec<u8> = ports.iter().flat_map(|p| p.pfc_priorities()).collect();
    pfc.sort_unstable();
    pfc.dedup();

    let buffer = d.buffer.map(|b| b.as_bytes()).unwrap_or(16 * 1024 * 1024);
    let pools_given = f.qos.buffer.pools.clone().unwrap_or_default();
    let part = buffer * 5 / 16;
    let pick = |s: Option<rocelab_model::units::Size>, default: u64| s.map(|s| s.as_bytes()).unwrap_or(default);
    // The guide's order: ePool0, iPool0 (lossy), iPool1, ePool1 (lossless).
    let pools = vec![
        OnyxPool { name: "ePool0".into(), size: pick(pools_given.egress_lossy, part) },
        OnyxPool { name: "iPool0".into(), size: pick(pools_given.ingress_lossy, part) },
        OnyxPool { name: "iPool1".into(), size: pick(pools_given.ingress_lossless, part) },
        OnyxPool { name: "ePool1".into(), size: pick(pools_given.egress_lossless, buffer) },
    ];
    let ingress_total = pools[1].size + pools[2].size;
    if ingress_total > buffer {
        findings.push(Finding::error(
            &d.name,
            None,
            format!("ingress pools iPool0 + iPool1 = {ingress_total} bytes exceed the switch buffer of {buffer} bytes"),
        ));
    }

    // The fabric-wide alpha; a port whose own differs (a by-speed map, a `qos.ports` override)
    // renders its own in `interface_config`.
    let lossless_alpha = match f.qos.buffer.alpha.as_ref().and_then(|a| a.single()) {
        None => LOSSLESS_PG_ALPHA.to_string(),
        Some(&a) => onyx_alpha(a, || findings.push(alpha_finding(d, a, &[]))),
    };

    // Ports whose own alpha Onyx cannot express, by value: one warning each.
    let mut inexpressible: Vec<(f64, Vec<&PortView>)> = Vec::new();
    let interfaces =
        ports.iter().map(|p| interface_config(f, d, p, &lossless_alpha, &mut inexpressible, &mut findings)).collect();
    for (a, ps) in &inexpressible {
        findings.push(alpha_finding(d, *a, ps));
    }
    let config = OnyxConfig {
        hostname: d.name.clone(),
        release: crate::common::release(d),
        pfc_priorities: pfc,
        vlan: if f.qos.marking == Marking::Pcp { f.qos.vlan } else { None },
        pools,
        interfaces,
        saved_config: "rocelab".into(),
    };
    (config, findings)
}

fn interface_config<'a>(
    f: &ResolvedFabric,
    d: &rocelab_model::ResolvedDevice,
    p: &'a PortView,
    lossless_alpha: &str,
    inexpressible: &mut Vec<(f64, Vec<&'a PortView>)>,
    findings: &mut Findings,
) -> OnyxInterface {
    let dscp = p.marking() == Marking::Dscp;
    if dscp {
        for c in p.classes.iter() {
            let off: Vec<String> =
                c.dscp.iter().filter(|v| **v >> 3 != c.priority).map(|v| format!("{v}→{}", v >> 3)).collect();
            if !off.is_empty() {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "class `{}` maps DSCP to priority {} but Onyx maps DSCP d to switch-priority d/8 ({}) and rocelab knows no documented command to change it",
                        c.name,
                        c.priority,
                        off.join(", ")
                    ),
                ));
            }
        }
    }
    let lossless: Vec<_> = p.classes.iter().filter(|c| c.pfc).collect();
    let lossy: Vec<_> = p.classes.iter().filter(|c| !c.pfc).collect();
    let pg_binds = lossless.iter().map(|c| Bind { to: c.priority, priority: c.priority }).collect();
    let mut tc_binds: Vec<Bind> = p.classes.iter().map(|c| Bind { to: c.queue, priority: c.priority }).collect();
    tc_binds.sort_by_key(|b| (b.to, b.priority));

    let mut buffers = Vec::new();
    if !lossy.is_empty() || lossless.is_empty() {
        buffers.push(OnyxBuffer {
            direction: "ingress".into(),
            index: 0,
            pool: "iPool0".into(),
            lossless: false,
            reserved: LOSSY_PG_RESERVED,
            xoff: None,
            xon: None,
            alpha: LOSSY_PG_ALPHA.into(),
        });
    }
    let mut lossy_tcs: Vec<u8> = lossy.iter().map(|c| c.queue).collect();
    lossy_tcs.sort_unstable();
    lossy_tcs.dedup();
    for tc in lossy_tcs {
        buffers.push(OnyxBuffer {
            direction: "egress".into(),
            index: tc,
            pool: "ePool0".into(),
            lossless: false,
            reserved: EGRESS_RESERVED,
            xoff: None,
            xon: None,
            alpha: LOSSY_TC_ALPHA.into(),
        });
    }
    // The port's own alpha where it differs from the fabric-wide one (a by-speed map, a
    // `qos.ports` override).
    let by_speed = f.qos.buffer.alpha.as_ref().is_some_and(|a| a.is_by_speed());
    let lossless_alpha = if by_speed || p.settings.alpha != f.qos.buffer.alpha() {
        let a = p.settings.alpha;
        onyx_alpha(a, || match inexpressible.iter_mut().find(|(x, _)| *x == a) {
            Some((_, ps)) => ps.push(p),
            None => inexpressible.push((a, vec![p])),
        })
    } else {
        lossless_alpha.to_string()
    };
    // The part of the group's reserved buffer filled before XOFF: the port's static `xoff`, else
    // its `reserve`, else the NVIDIA examples' two frames.
    let reserve = reserve_given(f, d, p).then(|| p.settings.reserve.as_bytes());
    let xoff = match (p.settings.xoff, reserve) {
        (Some(x), r) => {
            if r.is_some() && !lossless.is_empty() {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "qos.buffer.reserve {} not rendered: this port's static xoff {} takes Onyx's `xoff`, the part of the priority group's reserved buffer filled before XOFF",
                        p.settings.reserve,
                        x
                    ),
                ));
            }
            x.as_bytes()
        }
        (None, Some(r)) if r > 0 => r,
        (None, r) => {
            if r == Some(0) && !lossless.is_empty() {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "qos.buffer.reserve 0B: an Onyx lossless priority group fills part of its reserved buffer before XOFF; rendered the NVIDIA examples' xoff {}",
                        2 * (p.settings.mtu as u64).max(4096)
                    ),
                ));
            }
            2 * (p.settings.mtu as u64).max(4096)
        }
    };
    let headroom = p.headroom(f);
    for c in &lossless {
        buffers.push(OnyxBuffer {
            direction: "ingress".into(),
            index: c.priority,
            pool: "iPool1".into(),
            lossless: true,
            reserved: xoff + headroom,
            xoff: Some(xoff),
            xon: Some(xoff),
            alpha: lossless_alpha.clone(),
        });
        buffers.push(OnyxBuffer {
            direction: "egress".into(),
            index: c.queue,
            pool: "ePool1".into(),
            lossless: true,
            reserved: EGRESS_RESERVED,
            xoff: None,
            xon: None,
            alpha: LOSSLESS_TC_ALPHA.into(),
        });
    }

    let mut ecn = Vec::new();
    for c in p.classes.iter() {
        if let Some(e) = &c.ecn {
            let (min, r1) = whole_units(e.kmin.as_bytes(), 1000);
            let (max, r2) = whole_units(e.kmax.as_bytes(), 1000);
            if r1 || r2 {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!("class `{}`: Onyx ECN thresholds are whole KB; rendered {min} and {max} KB", c.name),
                ));
            }
            if (e.pmax - 1.0).abs() > f64::EPSILON && e.pmax > 0.0 {
                findings.push(Finding::warning(
                    &d.name,
                    Some(&p.name),
                    format!(
                        "class `{}`: pmax {} is not expressible with `congestion-control ecn minimum-absolute/maximum-absolute`; the switch's marking probability applies",
                        c.name, e.pmax
                    ),
                ));
            }
            ecn.push(OnyxEcn { tc: c.queue, min, max });
        }
    }
    ecn.sort_by_key(|e| e.tc);
    ecn.dedup_by_key(|e| e.tc);

    let mut ets = Vec::new();
    if p.has_ets() {
        for tc in 0..8u8 {
            let in_tc: Vec<_> = p.classes.iter().filter(|c| c.queue == tc).collect();
            let strict = in_tc.iter().any(|c| c.strict);
            let share: u32 = in_tc.iter().filter_map(|c| c.ets).map(u32::from).sum();
            ets.push(OnyxEts { tc, wrr: if strict { None } else { Some(share.min(100) as u8) } });
        }
    }
    OnyxInterface {
        name: interface(&p.name),
        peer: p.peer(f),
        speed: p.speed.to_string(),
        mtu: p.settings.mtu,
        pfc: !lossless.is_empty(),
        trunk_vlan: if p.marking() == Marking::Pcp { f.qos.vlan } else { None },
        trust: dscp.then(|| "L3".to_string()),
        pg_binds,
        tc_binds,
        buffers,
        ecn,
        ets,
    }
}
