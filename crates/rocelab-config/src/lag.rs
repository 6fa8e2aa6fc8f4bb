//! The switch side of a bonded host: the link aggregation a switch must run on the ports that
//! face a host or array whose `bonding` is `lacp` or `mlag` (IEEE 802.1AX, LACP). An
//! active-backup bond needs nothing on the switches, and neither does a Windows host: its
//! Switch Embedded Teaming is switch independent ([`crate::windows`]).
//!
//! A bond's number is its place among the fabric's bonds that need one (1, 2, … in device order).
//! It names the port-channel on every switch the bond reaches, and it is the MLAG id, which both
//! switches of an MLAG pair must give the bond.
//!
//! SONiC ([`crate::sonic`]) and Cumulus Linux ([`crate::cumulus`]) render the port-channel; the
//! other platforms get a warning naming the ports ([`not_rendered`]). An MLAG pair's own
//! configuration (its peer link, the peers' addresses, a domain or system id) is not in the
//! fabric model, so it is a warning on every platform.

use crate::finding::Finding;
use rocelab_model::fabric::Bonding;
use rocelab_model::resolve::{PortId, ResolvedFabric};
use serde::Serialize;
use std::collections::BTreeMap;

/// A port-channel a switch runs towards one bonded device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwitchLag {
    /// The bond's number in the fabric: the port-channel's number and the MLAG id.
    pub id: u32,
    /// The bonded host or array.
    pub device: String,
    /// This switch's ports cabled to it, in port order.
    pub members: Vec<String>,
    /// The bond spans an MLAG pair (`bonding: mlag`).
    pub mlag: bool,
    /// The members' MTU (the port-channel's).
    pub mtu: u32,
}

/// The port-channels switch `device` runs: one per device bonded with LACP or across an MLAG
/// pair (not rendered as Windows) that has a link to it, in device order. It walks the
/// switch's own ports, and the fabric's devices only when one of them faces such a bond.
pub fn switch_lags(f: &ResolvedFabric, device: usize) -> Vec<SwitchLag> {
    let mut by_device: BTreeMap<usize, SwitchLag> = BTreeMap::new();
    for (pi, p) in f.devices[device].ports.iter().enumerate() {
        let Some(other) = f.peer(PortId { device, port: pi }) else { continue };
        let h = &f.devices[other.device];
        if !h.runs_lacp() {
            continue;
        }
        let lag = by_device.entry(other.device).or_insert_with(|| SwitchLag {
            id: 0,
            device: h.name.clone(),
            members: Vec::new(),
            mlag: h.bonding == Some(Bonding::Mlag),
            mtu: f.port_settings(PortId { device, port: pi }).mtu,
        });
        lag.members.push(p.name.clone());
    }
    if !by_device.is_empty() {
        let mut number = 0;
        for (i, d) in f.devices.iter().enumerate() {
            if d.runs_lacp() {
                number += 1;
                if let Some(l) = by_device.get_mut(&i) {
                    l.id = number;
                }
            }
        }
    }
    by_device.into_values().collect()
}

/// The warnings of a platform that does not render port-channels: one per bond that reaches
/// switch `device`, naming its ports and what to configure.
pub fn not_rendered(f: &ResolvedFabric, device: usize, platform: &str) -> Vec<Finding> {
    let d = &f.devices[device];
    switch_lags(f, device)
        .into_iter()
        .map(|l| {
            let mlag = if l.mlag { format!(", and make it MLAG interface {} on both switches of the pair", l.id) } else { String::new() };
            Finding::warning(
                &d.name,
                None,
                format!(
                    "{}'s bond runs LACP on {}: rocelab does not render port-channels on {platform}; configure one over them with LACP active (rocelab numbers it {}){mlag}, the QoS staying as rendered on each member",
                    l.device,
                    l.members.join(", "),
                    l.id
                ),
            )
        })
        .collect()
}

/// The warning for an MLAG bond that reaches switch `device`: the pair itself is not rendered.
fn mlag_pair_not_rendered(device: &str, l: &SwitchLag, what: &str) -> Finding {
    Finding::warning(
        device,
        None,
        format!(
            "{}'s bond spans an MLAG pair: rendered its port-channel with MLAG id {}; the pair itself ({what}) is not in the fabric model: configure it on both switches",
            l.device, l.id
        ),
    )
}

/// SONiC: the `PORTCHANNEL` row (`PortChannelN`: `admin_status`, `min_links`, `mtu`) and the
/// `PORTCHANNEL_MEMBER` rows (`PortChannelN|EthernetM`) of switch `device`'s bonds, as the SONiC
/// Configuration wiki gives them; teamd runs LACP on them. QoS stays on the member ports
/// (`PORT_QOS_MAP`, `BUFFER_PG` and `QUEUE` name Ethernet ports). An MLAG's `MCLAG_DOMAIN` and
/// `MCLAG_INTERFACE` need the peer link and the peers' addresses, which the fabric lacks: a
/// warning.
pub(crate) fn sonic(f: &ResolvedFabric, device: usize, findings: &mut Vec<Finding>) -> (Table, Table) {
    let (mut channels, mut members) = (Table::new(), Table::new());
    for l in switch_lags(f, device) {
        let name = format!("PortChannel{}", l.id);
        let row = [("admin_status", "up".to_string()), ("min_links", "1".into()), ("mtu", l.mtu.to_string())];
        channels.insert(name.clone(), row.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
        for m in &l.members {
            members.insert(format!("{name}|{m}"), Default::default());
        }
        if l.mlag {
            findings.push(mlag_pair_not_rendered(
                &f.devices[device].name,
                &l,
                "`MCLAG_DOMAIN` with its source and peer IP and peer link, and `MCLAG_INTERFACE` for the port-channel",
            ));
        }
    }
    (channels, members)
}

/// Cumulus Linux: switch `device`'s bonds (`nv set interface bondN bond member swpM`, `link mtu`,
/// and for an MLAG `bond mlag id N`; NVUE bonds run 802.3ad by default), from NVIDIA's Cumulus
/// Linux user guide ("Bonding - Link Aggregation", "Multi-Chassis Link Aggregation - MLAG").
/// The MLAG pair (its `peerlink` bond and `nv set mlag …`) is a warning.
pub(crate) fn cumulus(f: &ResolvedFabric, device: usize, findings: &mut Vec<Finding>) -> Vec<SwitchLag> {
    let lags = switch_lags(f, device);
    for l in lags.iter().filter(|l| l.mlag) {
        findings.push(mlag_pair_not_rendered(
            &f.devices[device].name,
            l,
            "the `peerlink` bond and `nv set mlag` mac-address, peer-ip and backup",
        ));
    }
    lags
}

/// A CONFIG_DB table of string rows.
type Table = BTreeMap<String, BTreeMap<String, String>>;
