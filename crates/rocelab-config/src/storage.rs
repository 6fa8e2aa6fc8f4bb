//! Storage attach: which storage targets a host reaches and over what (from the targets'
//! `storage.protocols`), with the targets' addresses where the fabric gives them (`nics[].addresses`)
//! and a named shell or PowerShell variable where it does not. The commands are in the host
//! templates; their sources are listed in `linux.rs` and `windows.rs`.

use crate::finding::{Finding, Findings};
use rocelab_model::fabric::{Os, StorageKind, StorageProtocol};
use rocelab_model::resolve::ResolvedFabric;
use rocelab_model::Role;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StorageAttach {
    /// Values the user must provide: name and what it is.
    pub variables: Vec<Variable>,
    pub nvme: Vec<NvmeAttach>,
    pub iscsi: Vec<IscsiAttach>,
    pub nfs: Vec<NfsMount>,
    /// SMB Direct shares to check from Windows.
    pub smb: Vec<String>,
    /// This host is itself a storage server: the target side.
    pub target: Option<TargetSetup>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variable {
    pub name: String,
    pub hint: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NvmeAttach {
    pub target: String,
    /// `rdma` or `tcp`.
    pub transport: String,
    /// An address or `${VAR}`.
    pub addr: String,
    pub service_id: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IscsiAttach {
    pub target: String,
    /// `iser` or `tcp`.
    pub transport: String,
    /// open-iscsi iface name (`iser` for iSER, `default` for TCP).
    pub iface: String,
    pub portal: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NfsMount {
    pub target: String,
    pub rdma: bool,
    pub addr: String,
    pub export: String,
    pub mountpoint: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetSetup {
    /// iSER portals (this server's addresses, or a variable).
    pub iser_portals: Vec<String>,
    pub nfs_rdma: bool,
    /// `/etc/exports` lines: the shared path and its clients.
    pub nfs_exports: Vec<NfsExport>,
    pub nvme: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NfsExport {
    /// A `${VAR}` the clients mount too.
    pub path: String,
    /// Client addresses, or `*` where a client's address is not in the fabric.
    pub clients: Vec<String>,
}

/// `store-1` → `STORE_1`; `1array` → `_1ARRAY`: a shell variable name starts with a letter or
/// `_` (POSIX.1-2017 XBD 3.235), and hostnames may start with a digit.
pub fn var_name(device: &str, what: &str) -> String {
    let base: String =
        device.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    let lead = if base.starts_with(|c: char| c.is_ascii_digit()) { "_" } else { "" };
    format!("{lead}{base}_{what}")
}

fn addresses(f: &ResolvedFabric, device: usize) -> Vec<String> {
    f.devices[device]
        .nics
        .iter()
        .flat_map(|n| n.addresses.iter())
        .map(|a| a.split_once('/').map(|(ip, _)| ip).unwrap_or(a).to_string())
        .collect()
}

/// The first address of `device`, or a variable named after it (recorded in `vars`).
fn address_or_var(f: &ResolvedFabric, device: usize, vars: &mut Vec<Variable>, shell: bool) -> String {
    match addresses(f, device).into_iter().next() {
        Some(a) => a,
        None => {
            let name = var_name(&f.devices[device].name, "ADDR");
            if !vars.iter().any(|v| v.name == name) {
                vars.push(Variable {
                    name: name.clone(),
                    hint: format!("an address of storage target `{}` on the storage network", f.devices[device].name),
                });
            }
            if shell {
                format!("${{{name}}}")
            } else {
                format!("${name}")
            }
        }
    }
}

/// The variable naming the path `target` exports over NFS (recorded in `vars`).
fn export_var(target: &str, vars: &mut Vec<Variable>) -> String {
    let export = var_name(target, "EXPORT");
    if !vars.iter().any(|v| v.name == export) {
        vars.push(Variable { name: export.clone(), hint: format!("the path `{target}` exports over NFS") });
    }
    export
}

/// Indices of the fabric's storage targets, once per rendering.
pub fn targets(f: &ResolvedFabric) -> Vec<usize> {
    f.devices
        .iter()
        .enumerate()
        .filter(|(_, d)| d.role == Role::Storage && d.storage.is_some())
        .map(|(i, _)| i)
        .collect()
}

/// Storage targets a host attaches to: every storage device of the fabric (a host with RDMA or
/// TCP reach to it through the fabric), in fabric order.
pub fn linux_attach(f: &ResolvedFabric, device: usize, targets: &[usize], findings: &mut Findings) -> StorageAttach {
    let d = &f.devices[device];
    let mut a = StorageAttach::default();
    if d.role == Role::Storage {
        if let Some(st) = &d.storage {
            if d.os == Some(Os::Appliance) || st.kind == StorageKind::Array {
                return a;
            }
            let mut vars = Vec::new();
            let portals = match addresses(f, device) {
                v if !v.is_empty() => v,
                _ => vec![address_or_var(f, device, &mut vars, true)],
            };
            let nfs_rdma = st.protocols.contains(&StorageProtocol::NfsRdma);
            let mut nfs_exports = Vec::new();
            if nfs_rdma {
                let export = export_var(&d.name, &mut vars);
                // Every host of the fabric attaches to every target (see below): export to each
                // one's address, or to everyone when an address is missing.
                let mut clients: Vec<String> = Vec::new();
                let mut anonymous = false;
                for (hi, h) in f.devices.iter().enumerate() {
                    if h.role != Role::Host {
                        continue;
                    }
                    match addresses(f, hi).into_iter().next() {
                        Some(a) => clients.push(a),
                        None => anonymous = true,
                    }
                }
                if anonymous || clients.is_empty() {
                    findings.push(Finding::warning(
                        &d.name,
                        None,
                        "NFS export to every client (`*`): the fabric does not give every host's address; narrow /etc/exports by hand".into(),
                    ));
                    clients = vec!["*".into()];
                }
                nfs_exports.push(NfsExport { path: format!("${{{export}}}"), clients });
            }
            a.variables = vars;
            a.target = Some(TargetSetup {
                iser_portals: if st.protocols.contains(&StorageProtocol::Iser) { portals } else { Vec::new() },
                nfs_rdma,
                nfs_exports,
                nvme: st.protocols.iter().any(|p| matches!(p, StorageProtocol::NvmeRdma | StorageProtocol::NvmeTcp)),
            });
            if a.target.as_ref().is_some_and(|t| t.nvme) {
                findings.push(Finding::warning(
                    &d.name,
                    None,
                    "NVMe-oF target: rocelab renders the initiators; export the namespaces with the kernel nvmet configfs or nvmetcli".into(),
                ));
            }
        }
        return a;
    }
    for &ti in targets {
        let t = &f.devices[ti];
        let Some(st) = t.storage.as_ref().filter(|_| t.role == Role::Storage) else { continue };
        for proto in &st.protocols {
            match proto {
                StorageProtocol::NvmeRdma | StorageProtocol::NvmeTcp => {
                    let addr = address_or_var(f, ti, &mut a.variables, true);
                    a.nvme.push(NvmeAttach {
                        target: t.name.clone(),
                        transport: if *proto == StorageProtocol::NvmeRdma { "rdma" } else { "tcp" }.into(),
                        addr,
                        service_id: 4420,
                    });
                }
                StorageProtocol::Iser | StorageProtocol::Iscsi => {
                    let addr = address_or_var(f, ti, &mut a.variables, true);
                    let iser = *proto == StorageProtocol::Iser;
                    a.iscsi.push(IscsiAttach {
                        target: t.name.clone(),
                        transport: if iser { "iser" } else { "tcp" }.into(),
                        iface: if iser { "iser" } else { "default" }.into(),
                        portal: addr,
                    });
                }
                StorageProtocol::NfsRdma | StorageProtocol::NfsTcp => {
                    let addr = address_or_var(f, ti, &mut a.variables, true);
                    let export = export_var(&t.name, &mut a.variables);
                    let rdma = *proto == StorageProtocol::NfsRdma;
                    a.nfs.push(NfsMount {
                        target: t.name.clone(),
                        rdma,
                        addr,
                        export: format!("${{{export}}}"),
                        mountpoint: format!("/mnt/{}-{}", t.name, if rdma { "rdma" } else { "tcp" }),
                    });
                }
                StorageProtocol::SmbDirect | StorageProtocol::Smb => a.smb.push(t.name.clone()),
            }
        }
    }
    a
}
