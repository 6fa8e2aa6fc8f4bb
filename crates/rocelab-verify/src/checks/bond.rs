//! Bonded hosts and arrays. An RDMA endpoint on an LACP or MLAG bond (the Arista/Pure
//! guide's advice, refined for a ConnectX RoCE LAG), and a bond whose cabling its mode cannot
//! aggregate: LACP joins the links between one pair of systems only (IEEE 802.1AX), so a bond
//! cabled to two switches aggregates only if they are an MLAG pair, and an MLAG pair is two
//! switches.

use super::{Ctx, Draft};
use crate::finding::{Severity, SRC_8021AX, SRC_PURE};
use crate::state::End;
use rocelab_model::fabric::Bonding;

pub fn check(cx: &Ctx) -> Vec<Draft> {
    let mut out = rdma(cx);
    out.extend(cabling(cx));
    out
}

/// BOND-RDMA: an RDMA endpoint bonded with LACP or across an MLAG pair.
fn rdma(cx: &Ctx) -> Vec<Draft> {
    let mut out = Vec::new();
    for d in &cx.s.devices {
        let Some(b @ (Bonding::Mlag | Bonding::Lacp)) = d.bonding else { continue };
        if !d.rdma {
            continue;
        }
        let bond = if b == Bonding::Mlag { "an MLAG (LACP)" } else { "an LACP" };
        // Both ports of one ConnectX in the bond: the adapter's RoCE LAG makes one RDMA device
        // of them, so the guide's reason (a packet landing on the other NIC) does not hold; what
        // is left is that one adapter carries both paths.
        let (severity, what, why) = if d.roce_lag {
            (
                Severity::Note,
                format!("RDMA endpoint attached with {bond} bond of one ConnectX's two ports (RoCE LAG)"),
                "the adapter makes one RDMA device of the two ports and moves queue pairs to the other port when a link fails, but both paths run through one adapter; NVMe/RoCE and iSER multipathing over independent NICs also survives an adapter's failure",
            )
        } else {
            (
                Severity::Warning,
                format!("RDMA endpoint attached with {bond} bond"),
                "RDMA queue pairs are bound to one NIC's IP address; a packet the bond hashes to the other NIC cannot land there, and a failover breaks the QPs. NVMe/RoCE and iSER get redundancy from multipathing over independent NICs",
            )
        };
        out.push(device_draft(
            &d.name,
            ("BOND-RDMA", severity, SRC_PURE),
            what,
            why,
            "give each NIC its own IP address (and subnet) and use NVMe or iSCSI multipathing (dm-multipath, native NVMe multipath) instead of a bond",
        ));
    }
    out
}

/// BOND-LACP-SPLIT and BOND-MLAG-PAIR: the switches a bond's links reach, against its mode.
/// Windows hosts are left out: rocelab renders their bond as Switch Embedded Teaming, which is
/// switch independent and runs no LACP.
fn cabling(cx: &Ctx) -> Vec<Draft> {
    let s = cx.s;
    let mut out = Vec::new();
    for (di, d) in s.devices.iter().enumerate() {
        let Some(b @ (Bonding::Lacp | Bonding::Mlag)) = d.bonding else { continue };
        if d.platform.as_deref() == Some("windows") {
            continue;
        }
        let mut switches: Vec<u32> = Vec::new();
        for (pi, p) in d.ports.iter().enumerate() {
            let Some(link) = p.link else { continue };
            let other = s.peer(link, End { device: di as u32, port: pi as u32 }).device;
            if s.is_switch(other) && !switches.contains(&other) {
                switches.push(other);
            }
        }
        let names: Vec<&str> = switches.iter().map(|&i| s.devices[i as usize].name.as_str()).collect();
        let draft = |id, severity, what, why, fix| device_draft(&d.name, (id, severity, SRC_8021AX), what, why, fix);
        match (b, names.len()) {
            (Bonding::Lacp, n) if n > 1 => out.push(draft(
                "BOND-LACP-SPLIT",
                Severity::Warning,
                format!("LACP bond cabled to {n} switches ({})", names.join(", ")),
                "LACP aggregates the links between one pair of systems; towards two switches that are not an MLAG pair the bond forms one aggregator per switch and carries traffic on one of them, the other links standing by",
                "make the switches an MLAG pair and set `bonding: mlag`, or cable the bond to one switch",
            )),
            (Bonding::Mlag, 1) => out.push(draft(
                "BOND-MLAG-PAIR",
                Severity::Warning,
                format!("MLAG bond cabled to one switch ({})", names[0]),
                "an MLAG bond spans the two switches of a pair, so that either can fail; on one switch it is a plain LACP bond with no switch redundancy",
                "cable a member to each switch of the MLAG pair, or set `bonding: lacp`",
            )),
            (Bonding::Mlag, n) if n > 2 => out.push(draft(
                "BOND-MLAG-PAIR",
                Severity::Error,
                format!("MLAG bond cabled to {n} switches ({})", names.join(", ")),
                "an MLAG pair is two switches that present one LACP system; links to a third switch join no aggregation with them",
                "cable the bond to the two switches of one MLAG pair",
            )),
            _ => {}
        }
    }
    out
}

/// A finding about device `device` as a whole: `(rule, severity, source)`, then what, why, fix.
fn device_draft(
    device: &str,
    rule: (&'static str, Severity, &'static str),
    what: String,
    why: &str,
    fix: &str,
) -> Draft {
    let (id, severity, source) = rule;
    Draft {
        id,
        severity,
        ports: Vec::new(),
        device: Some(device.to_string()),
        class: None,
        what,
        why: why.into(),
        fix: fix.into(),
        source,
        others: Vec::new(),
    }
}
