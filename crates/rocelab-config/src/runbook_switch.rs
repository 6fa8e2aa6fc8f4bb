//! RUNBOOK.md steps of the switch platforms added after the seeds' (Cumulus, NX-OS, OS10, OS9):
//! how to apply each file and the vendor's show commands that verify it, with what they should
//! show. The commands are the ones each module's documentation lists (`cumulus.rs`, `nxos.rs`,
//! `os10.rs`, `os9.rs`).

use crate::quote::sh_lossy;
use crate::runbook::{check, list, Check, Step};
use crate::{cumulus, nxos, os10, os9};

fn step(device: &str, platform: &str, file: &str, apply: &str, checks: Vec<Check>) -> Step {
    Step { device: device.into(), platform: platform.into(), file: file.into(), apply: apply.into(), checks }
}

pub(crate) fn cumulus(c: &cumulus::CumulusConfig, file: &str) -> Step {
    // NVUE runs in bash: the interface name is a shell word.
    let i = sh_lossy(c.interfaces.first().map_or("swp1", |i| i.name.as_str()));
    let mut checks = Vec::new();
    if let Some(mode) = &c.roce_mode {
        checks.push(check("nv show qos roce", format!("mode {mode}; pfc-priority {}", list(&c.pfc_priorities))));
        checks.push(check(
            format!("nv show interface {i} qos roce status"),
            format!("trust-mode {}; PFC rx/tx enabled on the lossless priority", c.trust),
        ));
    }
    if !c.pfc_priorities.is_empty() {
        checks.push(check(
            "nv show qos pfc default-global",
            format!("switch-priority {}, rx enable, tx enable", list(&c.pfc_priorities)),
        ));
        if c.interfaces.iter().any(|x| x.pfc_watchdog) {
            checks.push(check(
                format!("nv show interface {i} qos pfc-watchdog"),
                "state enabled, every traffic class OK",
            ));
        }
    }
    if !c.ecn.is_empty() {
        checks.push(check(
            "nv show qos congestion-control default-global",
            c.ecn
                .iter()
                .map(|e| {
                    format!(
                        "traffic-class {} ECN enable, {} B / {} B, probability {}",
                        e.traffic_class, e.min, e.max, e.probability
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        ));
    }
    for p in &c.ecn_profiles {
        if let Some(i) = c.interfaces.iter().find(|i| i.congestion_control.as_deref() == Some(p.name.as_str())) {
            checks.push(check(
                format!("nv show interface {} qos", sh_lossy(&i.name)),
                format!("congestion-control profile {}", p.name),
            ));
        }
    }
    checks.push(check(
        "nv show qos egress-queue-mapping default-global",
        c.egress_queue_map
            .iter()
            .map(|m| format!("{}→{}", m.switch_priority, m.traffic_class))
            .collect::<Vec<_>>()
            .join(" "),
    ));
    if !c.scheduler.is_empty() {
        checks.push(check(
            "nv show qos egress-scheduler default-global",
            "the file's dwrr bw-percent and strict traffic classes",
        ));
    }
    checks.push(check(
        format!("nv show interface {i} qos roce counters"),
        "pause-packets rise only under congestion; no-buffer-discard 0 for RoCE",
    ));
    for b in &c.bonds {
        let mlag = if b.mlag { format!("; mlag id {}", b.id) } else { String::new() };
        checks.push(check(
            format!("nv show interface bond{} bond", b.id),
            format!("member {}{mlag}; LACP up with {}", b.members.join(", "), b.device),
        ));
    }
    step(
        &c.hostname,
        "NVIDIA Cumulus Linux",
        file,
        &format!("copy to the switch and run `bash {}` (it ends with `nv config apply --assume-yes`)", sh_lossy(file)),
        checks,
    )
}

pub(crate) fn nxos(c: &nxos::NxosConfig, file: &str) -> Step {
    let i = c.interfaces.first().map(|i| i.name.clone()).unwrap_or_else(|| "Ethernet1/1".into());
    let i_lower = i.to_ascii_lowercase().replace("ethernet", "ethernet ");
    let no_drop: Vec<u8> = c.network_qos.iter().flat_map(|n| n.pfc_cos.iter().copied()).collect();
    let mut checks = vec![
        check(
            "show policy-map system type network-qos",
            format!("ROCELAB-NQ with pause pfc-cos {} (no-drop)", list(&no_drop)),
        ),
        check(
            "show interface priority-flow-control",
            "Mode On, Oper On on the lossless ports; RxPPP/TxPPP rise only under congestion",
        ),
        check(format!("show policy-map interface {i_lower}"), "ROCELAB-IN input, matches counted in the RoCE class"),
    ];
    if !c.queuing.is_empty() {
        checks.push(check(
            format!("show queuing interface {i_lower}"),
            "the file's bandwidth and priority per queue; WRED/ECN marked packets on the lossless queue under congestion, no drops there",
        ));
    }
    step(&c.hostname, "Cisco NX-OS", file, "`configure terminal`, paste the file", checks)
}

pub(crate) fn os10(c: &os10::Os10Config, file: &str) -> Step {
    let i = c.interfaces.first().map(|i| i.name.clone()).unwrap_or_else(|| "ethernet1/1/1".into());
    let i_spaced = i.replacen("ethernet", "ethernet ", 1);
    let mut checks = vec![
        check("show qos system", format!("trust-map {} ROCELAB, qos-map traffic-class ROCELAB", c.trust)),
        check("show class-map", "the file's network-qos and queuing class maps"),
        check("show policy-map", "ROCELAB-PFC (pause, pfc-cos) and ROCELAB-ETS"),
    ];
    if !c.pfc_classes.is_empty() {
        checks.push(check(
            format!("show interface {i_spaced} priority-flow-control details"),
            format!(
                "PFC admin and oper mode on, priorities {}; pause counters rise only under congestion",
                c.pfc_classes.iter().map(|p| p.pfc_cos.clone()).collect::<Vec<_>>().join(",")
            ),
        ));
    }
    if !c.queuing.is_empty() {
        checks.push(check(format!("show qos interface {i_spaced}"), "ETS mode on, the file's queuing policy"));
        checks.push(check(format!("show queuing statistics interface {i_spaced}"), "no drops on the lossless queue"));
    }
    step(&c.hostname, "Dell SmartFabric OS10", file, "`configure terminal`, paste the file", checks)
}

pub(crate) fn os9(c: &os9::Os9Config, file: &str) -> Step {
    let i = c.interfaces.first().map(|i| i.name.clone()).unwrap_or_else(|| "TenGigabitEthernet 0/0".into());
    let mut checks =
        vec![check("show qos dot1p-queue-mapping", "the dot1p → queue map the DCB map's priority groups follow")];
    match c.dcb {
        Some(true) => {
            checks.push(check("show dcb", "DCB enabled, PFC and ETS enabled"));
            checks.push(check(
                format!("show interfaces {i} pfc detail"),
                "PFC admin and oper on for the lossless priorities; DCBX peer in sync",
            ));
            checks
                .push(check(format!("show interfaces {i} ets detail"), "the DCB map's priority groups and bandwidth"));
        }
        Some(false) => checks.push(check("show dcb", "DCB disabled (link-level flow control in use)")),
        None => {}
    }
    checks.push(check(
        format!("show interfaces {i}"),
        "the file's MTU and flow control (rx on tx on where link pause is used)",
    ));
    step(
        &c.hostname,
        "Dell Networking OS 9",
        file,
        "`configure`, paste the file; reload if `show dcb` asks for it",
        checks,
    )
}
