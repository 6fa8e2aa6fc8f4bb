//! The CONFIG_DB tables beyond QoS that a deployment needs (sonic-net/sonic-buildimage,
//! `src/sonic-yang-models/doc/Configuration.md`):
//! - `VLAN` (`Vlan100`: `vlanid`) and `VLAN_MEMBER` (`Vlan100|Ethernet0`: `tagging_mode`
//!   `tagged`): under PCP marking the hosts send RoCE tagged, so every cabled port (or the
//!   port-channel it is a member of) carries the fabric's VLAN tagged;
//! - `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP` and `PORT_QOS_MAP`'s `pfc_to_pg_map`: SONiC's own QoS
//!   template (`files/build_templates/qos_config.j2`) writes them only for the ASICs it lists in
//!   `pfc_to_pg_map_supported_asics` (`mellanox`, `barefoot`), whose SAI maps a received PFC
//!   frame's priority to the priority group it pauses through it. rocelab knows the ASIC from the
//!   switch model: NVIDIA Spectrum (`SN…`) switches get the map, each lossless priority to its
//!   own priority group (the `tc_to_pg_map` rocelab writes keeps a lossless traffic class in the
//!   group of the same number).

use super::tables::{Fields, SonicConfig};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::{ResolvedDevice, ResolvedFabric};

/// Whether switch `d`'s ASIC takes `pfc_to_pg_map` (see the module documentation).
pub(super) fn needs_pfc_to_pg_map(d: &ResolvedDevice) -> bool {
    d.model.as_deref().is_some_and(|m| m.len() > 2 && m[..2].eq_ignore_ascii_case("SN"))
}

/// Adds `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|map` for the lossless traffic classes of the ports
/// already in `PORT_QOS_MAP`, and points their rows at it.
pub(super) fn pfc_to_pg_map(c: &mut SonicConfig, map: &str) {
    let mut lossless = 0u8;
    for row in c.port_qos_map.values_mut() {
        if let Some(p) = row.pfc_enable {
            lossless |= p.0;
            row.pfc_to_pg_map = Some(map.to_string());
        }
    }
    if lossless != 0 {
        let m: Fields = (0..8u8).filter(|q| lossless & (1 << q) != 0).map(|q| (q.to_string(), q.to_string())).collect();
        c.pfc_priority_to_priority_group_map.insert(map.to_string(), m);
    }
}

/// `VLAN` and `VLAN_MEMBER` for PCP marking: the fabric's VLAN, tagged on every cabled port that
/// is not a port-channel member and on every port-channel.
pub(super) fn vlan(f: &ResolvedFabric, c: &mut SonicConfig) {
    let Some(id) = f.qos.vlan.filter(|_| f.qos.marking == Marking::Pcp) else { return };
    let name = format!("Vlan{id}");
    c.vlan.insert(name.clone(), [("vlanid".to_string(), id.to_string())].into_iter().collect());
    let in_channel =
        |port: &str| c.portchannel_member.keys().any(|k| k.split_once('|').is_some_and(|(_, m)| m == port));
    let mut members: Vec<String> = c.port.keys().map(|p| p.0.to_string()).filter(|p| !in_channel(p)).collect();
    members.extend(c.portchannel.keys().cloned());
    for m in members {
        c.vlan_member
            .insert(format!("{name}|{m}"), [("tagging_mode".to_string(), "tagged".to_string())].into_iter().collect());
    }
}
