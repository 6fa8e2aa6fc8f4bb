//! Windows Server hosts: one PowerShell script per host.
//!
//! Sources: the Demartek guide's "Windows: Deploying SMB Direct over RoCE" section
//! (`Remove-NetQosTrafficClass`, `Remove-NetQosPolicy -Confirm:$False`, `Set-NetQosDcbxSetting
//! -Willing $false`, `New-NetQosPolicy "SMB" -SMB -PriorityValue8021Action 5`, `New-NetQosPolicy
//! "DEFAULT" -Default -PriorityValue8021Action 0`, `Disable-NetQosFlowControl`,
//! `Enable-NetQosFlowControl -Priority 5`, `Enable-NetAdapterQos`, `New-NetQosTrafficClass "SMB"
//! -Priority 5 -BandwidthPercentage 95 -Algorithm ETS`, `MLx5Cmd.exe -Qosconfig -Name IF -Dcqcn
//! -Enable 5`) and its Storage Spaces Direct section (`New-VMSwitch -Name SETswitch
//! -NetAdapterName … -EnableEmbeddedTeaming $true -AllowManagementOS $false`,
//! `Add-VMNetworkAdapter -SwitchName SETswitch -Name SMB_1 -ManagementOS`,
//! `Set-VMNetworkAdapterTeamMapping`, `Set-VMNetworkAdapterVlan … -Access -ManagementOS`,
//! `Enable-NetAdapterRDMA`) and SMB Direct checks (`Get-NetOffloadGlobalSetting`,
//! `Get-SmbClientNetworkInterface`, `Get-NetAdapterRdma`, `netstat -xan`); Microsoft's NetQos
//! cmdlet reference (`Disable-NetQosFlowControl -Priority`, `New-NetQosTrafficClass -Algorithm
//! Strict`, `Install-WindowsFeature Data-Center-Bridging`) and NetTCPIP reference
//! (`New-NetIPAddress -InterfaceAlias … -IPAddress … -PrefixLength …`, `Get-NetIPAddress`, for the
//! fabric's `addresses`); Microsoft's Hyper-V cmdlet reference (`Get-VMSwitch -Name`,
//! `Get-VMNetworkAdapter -ManagementOS -Name`, so that the SET switch and its vNICs are made once
//! and the script runs again). The guide prints `Disable-NetQosFlowControl 0,1,2,3,4, 6,7`; the
//! documented form names `-Priority`.
//!
//! Windows tags SMB Direct with an 802.1p priority (`PriorityValue8021Action`); NetQos has no
//! DSCP marking for RDMA, so a DSCP fabric is reported for Windows hosts.

use crate::common::{cabled_ports, no_ports_finding};
use crate::finding::{Finding, Findings};
use rocelab_model::fabric::{Bonding, NicVendor};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowsHost {
    pub hostname: String,
    pub dcbx_willing: bool,
    /// SMB Direct priority (the RDMA class).
    pub smb_priority: u8,
    pub default_priority: u8,
    pub pfc_on: Vec<u8>,
    pub pfc_off: Vec<u8>,
    pub traffic_classes: Vec<WinTrafficClass>,
    pub adapters: Vec<WinAdapter>,
    /// Switch Embedded Teaming over the RDMA adapters (Storage Spaces Direct).
    pub set_switch: Option<SetSwitch>,
    /// PCP marking's VLAN on the adapters themselves, when there is no SET switch (whose vNICs
    /// get it instead): the 802.1p priority travels in the VLAN tag, so untagged frames would
    /// carry none and the switch ports admit only the tagged VLAN. The adapter's `VlanID`
    /// advanced property (`Set-NetAdapterAdvancedProperty -RegistryKeyword "VlanID"`;
    /// Microsoft's NetAdapter cmdlet reference and the standardized INF keywords).
    pub adapter_vlan: Option<u16>,
    /// The fabric's addresses of the host's ports.
    pub ips: Vec<WinIp>,
    pub smb_targets: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinTrafficClass {
    pub name: String,
    pub priority: u8,
    /// `ETS` with a bandwidth, or `Strict`.
    pub algorithm: String,
    pub bandwidth: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinAdapter {
    pub name: String,
    pub peer: String,
    pub mtu: u32,
    /// NVIDIA adapters: DCQCN on these priorities with `Mlx5Cmd.exe`.
    pub mlx5_dcqcn: Vec<u8>,
}

/// An address for `New-NetIPAddress` (Microsoft's NetTCPIP module: `-InterfaceAlias`,
/// `-IPAddress`, `-PrefixLength`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinIp {
    /// The adapter, or the SET switch's vNIC mapped to it (`vEthernet (SMB_1)`): with a SET
    /// switch the host's addresses sit on its vNICs.
    pub alias: String,
    pub address: String,
    pub prefix: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetSwitch {
    pub name: String,
    pub vlan: Option<u16>,
    /// vNIC name and the physical adapter it maps to.
    pub vnics: Vec<(String, String)>,
}

pub fn build(f: &ResolvedFabric, device: usize) -> (WindowsHost, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let first = ports.first();
    let rdma = first.and_then(|p| p.rdma_class().cloned());
    if first.is_some_and(|p| p.marking() == Marking::Dscp) {
        findings.push(Finding::warning(
            &d.name,
            None,
            format!(
                "the fabric marks by DSCP but Windows NetQos tags SMB Direct with an 802.1p priority only; rendered priority {}: set the adapter driver to mark DSCP {} for RDMA (vendor setting) or carry the VLAN tag",
                rdma.as_ref().map(|c| c.priority).unwrap_or(0),
                rdma.as_ref().and_then(|c| c.dscp.first().copied()).unwrap_or(0)
            ),
        ));
    }
    if rdma.is_none() && !ports.is_empty() {
        findings.push(Finding::warning(&d.name, None, "no lossless class: SMB Direct gets no PFC priority".into()));
    }
    let pfc_on: Vec<u8> = first.map(|p| p.pfc_priorities()).unwrap_or_default();
    let pfc_off: Vec<u8> = (0..8u8).filter(|p| !pfc_on.contains(p)).collect();
    let default_priority =
        first.and_then(|p| p.classes.iter().find(|c| !c.pfc && !c.strict && !c.cnp).map(|c| c.priority)).unwrap_or(0);
    let mut traffic_classes = Vec::new();
    if let Some(p) = first.filter(|p| p.has_ets()) {
        for c in p.classes.iter() {
            // Windows gives the rest of the bandwidth to its default class (priority 0 and
            // everything without a traffic class of its own).
            if c.priority == default_priority && !c.strict {
                continue;
            }
            if c.strict {
                traffic_classes.push(WinTrafficClass {
                    name: c.name.clone(),
                    priority: c.priority,
                    algorithm: "Strict".into(),
                    bandwidth: None,
                });
            } else if let Some(bw) = c.ets {
                // The RDMA class is the SMB policy's: name its traffic class "SMB", as the guide does.
                let name = if c.lossless { "SMB".to_string() } else { c.name.clone() };
                traffic_classes.push(WinTrafficClass {
                    name,
                    priority: c.priority,
                    algorithm: "ETS".into(),
                    bandwidth: Some(bw),
                });
            }
        }
    }
    let willing =
        ports.first().and_then(|p| p.settings.dcbx_willing).or(f.qos.dcbx.map(|x| x.hosts_willing)).unwrap_or(false);
    let adapters: Vec<WinAdapter> = ports
        .iter()
        .map(|p| {
            let nic = d.ports[p.id.port].nic.and_then(|i| d.nics.get(i));
            let mlx = nic.is_some_and(|n| n.vendor == NicVendor::Nvidia);
            let dcqcn = p.settings.dcqcn_np || p.settings.dcqcn_rp;
            WinAdapter {
                name: p.name.clone(),
                peer: p.peer(f),
                mtu: p.settings.mtu,
                mlx5_dcqcn: if mlx && dcqcn { p.pfc_priorities() } else { Vec::new() },
            }
        })
        .collect();
    for (p, a) in ports.iter().zip(&adapters) {
        let nic = d.ports[p.id.port].nic.and_then(|i| d.nics.get(i));
        let dcqcn = p.settings.dcqcn_np || p.settings.dcqcn_rp;
        if dcqcn && a.mlx5_dcqcn.is_empty() {
            findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "DCQCN is on in the fabric but rocelab knows the Windows command only for NVIDIA adapters (Mlx5Cmd); enable it for this {} adapter with its vendor's tool (for Marvell FastLinQ: the adapter's HII settings)",
                    nic.map(|n| format!("{:?}", n.vendor)).unwrap_or_default()
                ),
            ));
        }
    }
    // The fabric's addresses; with a SET switch (below) on the vNIC SMB_k mapped to the k-th
    // adapter.
    let ips = ports
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (address, prefix) = rocelab_model::fabric::parse_cidr(f.port_address(p.id)?).ok()?;
            let alias = if d.bonding.is_some() { format!("vEthernet (SMB_{})", i + 1) } else { p.name.clone() };
            Some(WinIp { alias, address: address.to_string(), prefix })
        })
        .collect();
    let set_switch = d.bonding.map(|b| {
        if b != Bonding::ActiveBackup {
            findings.push(Finding::warning(
                &d.name,
                None,
                format!(
                    "bonding `{b:?}`: RDMA on Windows needs Switch Embedded Teaming, which is switch independent (LBFO/LACP teams carry no RDMA, Demartek guide); rendered a SET switch"
                ),
            ));
        }
        SetSwitch {
            name: "SETswitch".into(),
            vlan: if f.qos.marking == Marking::Pcp { f.qos.vlan } else { None },
            vnics: adapters.iter().enumerate().map(|(i, a)| (format!("SMB_{}", i + 1), a.name.clone())).collect(),
        }
    });
    let targets = crate::storage::targets(f);
    let smb_targets = targets
        .iter()
        .map(|&i| &f.devices[i])
        .filter(|t| {
            t.storage.as_ref().is_some_and(|s| {
                s.protocols.iter().any(|p| matches!(p, rocelab_model::fabric::StorageProtocol::SmbDirect))
            })
        })
        .map(|t| t.name.clone())
        .collect();
    let host = WindowsHost {
        hostname: d.name.clone(),
        dcbx_willing: willing,
        smb_priority: rdma.as_ref().map(|c| c.priority).unwrap_or(0),
        default_priority,
        pfc_on,
        pfc_off,
        traffic_classes,
        adapters,
        adapter_vlan: if set_switch.is_none() { crate::common::pcp_vlan(f) } else { None },
        set_switch,
        ips,
        smb_targets,
    };
    (host, findings)
}
