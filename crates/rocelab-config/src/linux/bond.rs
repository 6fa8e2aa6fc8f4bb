//! A bonded Linux host (a device's `bonding:`): the bonding driver's interface over the host's
//! cabled ports, which then holds the VLAN interface (PCP marking) and the fabric's addresses.
//!
//! Sources:
//! - the kernel's bonding documentation (`Documentation/networking/bonding.rst`): the modes
//!   `802.3ad` (LACP) and `active-backup`, MII link monitoring (`miimon`), the transmit hash
//!   policy `layer3+4`, and `/proc/net/bonding/BOND` for the state;
//! - ip-link(8): `ip link add NAME type bond mode MODE miimon MS xmit_hash_policy POLICY`, and
//!   `ip link set dev IF master NAME`, with the member down;
//! - the mlx5 driver's RoCE LAG (Linux commit "net/mlx5: Implement RoCE LAG feature"): when both
//!   ports of a dual-port ConnectX, and only they, are members of one bond, the adapter shows a
//!   single RDMA device for both (`mlx5_bond_0`, under the first port's PCI function).
//!
//! Why the hash policy is `layer3+4`: the bonding driver's default, `layer2`, puts all traffic
//! between two MAC addresses on one member, so a host talking to one storage target or one
//! router would use one link of the bond. RoCEv2 NICs pick a UDP source port per queue pair
//! (as the switches' ECMP expects), which `layer3+4` reads, so queue pairs spread.

use super::{LinuxPort, VlanIf};
use crate::finding::{Finding, Findings};
use rocelab_model::fabric::Bonding;
use rocelab_model::resolve::{ResolvedDevice, ResolvedFabric};
use serde::Serialize;

/// The name rocelab gives a host's bond.
pub const BOND_NAME: &str = "bond0";

/// A host's bond, as the script creates it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinuxBond {
    /// `bond0`.
    pub name: String,
    /// The bonding driver's mode: `802.3ad` (LACP, to one switch or to an MLAG pair) or
    /// `active-backup`.
    pub mode: String,
    /// The other options of `ip link add … type bond` (`miimon 100 xmit_hash_policy layer3+4`).
    pub options: String,
    /// The member interfaces, in port order.
    pub members: Vec<String>,
    /// The bond's MTU (the bonding driver gives it to its members).
    pub mtu: u32,
    /// The VLAN interface on the bond (PCP marking), in place of one per member.
    pub vlan: Option<VlanIf>,
    /// The interface holding the addresses: the VLAN interface, else the bond.
    pub iface: String,
    /// The addresses the fabric gives the members, each once, in port order.
    pub addresses: Vec<String>,
    /// The members are the two ports of one ConnectX: one RDMA device for both (RoCE LAG).
    pub roce_lag: bool,
}

impl LinuxBond {
    /// What `/proc/net/bonding/BOND` says the mode is (the bonding driver's mode names).
    pub fn proc_mode(&self) -> &'static str {
        if self.mode == "802.3ad" {
            "IEEE 802.3ad Dynamic link aggregation"
        } else {
            "fault-tolerance (active-backup)"
        }
    }
}

/// The bond of host `d` over its rendered ports `linux` (all of its cabled ports), whose VLAN
/// interface and addresses move to the bond; the ports of a RoCE LAG learn where their shared
/// RDMA device sits. Warns where ConnectX ports of a bond keep RDMA devices of their own. The
/// switch side of an LACP bond is the switches' ([`crate::lag`]).
pub(super) fn build(
    f: &ResolvedFabric,
    d: &ResolvedDevice,
    b: Bonding,
    linux: &mut [LinuxPort],
    findings: &mut Findings,
) -> LinuxBond {
    let (mode, options) = match b {
        Bonding::Lacp | Bonding::Mlag => ("802.3ad", "miimon 100 xmit_hash_policy layer3+4"),
        Bonding::ActiveBackup => ("active-backup", "miimon 100"),
    };
    let members: Vec<String> = linux.iter().map(|p| p.name.clone()).collect();
    let vlan = linux.first().and_then(|p| p.vlan.clone());
    let mut addresses: Vec<String> = Vec::new();
    for p in linux.iter_mut() {
        p.vlan = None;
        if let Some(a) = p.address.take() {
            if !addresses.contains(&a) {
                addresses.push(a);
            }
        }
    }
    let roce_lag = d.is_roce_lag();
    if roce_lag {
        for p in linux.iter_mut().skip(1) {
            p.lag_rdma_port = Some(members[0].clone());
        }
    } else if linux.iter().any(|p| p.driver == "mlx5") {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "{BOND_NAME} over {}: a ConnectX makes one RDMA device of a bond (RoCE LAG) only when its members are the two ports of one adapter and nothing else; here each member keeps its own RDMA device, so a queue pair on the bond's address runs on one member and the bond's failover does not move it",
                members.join(" and ")
            ),
        ));
    }
    let vlan = vlan.map(|v| VlanIf { name: format!("{BOND_NAME}.{}", v.id), ..v });
    LinuxBond {
        name: BOND_NAME.into(),
        mode: mode.into(),
        options: options.into(),
        members,
        mtu: linux.first().map_or(f.qos.mtu, |p| p.mtu),
        iface: vlan.as_ref().map_or_else(|| BOND_NAME.to_string(), |v| v.name.clone()),
        vlan,
        addresses,
        roce_lag,
    }
}
