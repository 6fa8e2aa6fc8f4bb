//! RUNBOOK.md: the order to apply the files in (switches, then adapters, then hosts, then storage
//! and applications) and, for each step, the commands that verify it and what their output should
//! show. Verification commands are the seeds' own where they give them: Onyx `show dcb
//! priority-flow-control`, `show interfaces ethernet 1/1 counters priority 5`, `show buffer status
//! interfaces ethernet 1/1`, `show interfaces ethernet 1/1 congestion-control`, `show dcb ets
//! interface ethernet 1/1` and Comware `display vlan 2`, `display qos map-table dot1p-lp`, `display
//! qos wred table name …`, `display qos wred interface …` (Demartek); EOS `show
//! priority-flow-control counters` and `show queue-monitor length` (Arista/Pure); `mlnx_qos -i`,
//! `cat /proc/net/vlan/IF.VLAN`, `ecn/roce_np/enable/P` (Demartek, Arista/Pure);
//! `Get-NetQosFlowControl`, `Get-NetAdapterRdma`, `Get-SmbClientNetworkInterface`, `netstat -xan`
//! (Demartek); `iscsiadm -m session`, `lsblk` (Demartek, Dell). SONiC's are sonic-utilities' `show
//! pfc counters`, `show queue counters` and `pfcwd show config`; nvme-cli's `nvme list`.

use crate::finding::Finding;
use crate::quote::{ps_lossy as ps, sh_dq_lossy as dq, sh_lossy as sh};
use crate::templates::{TemplateError, Templates};
use crate::Typed;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Runbook {
    pub fabric: String,
    pub findings: Vec<String>,
    pub errors: usize,
    pub variables: Vec<(String, String)>,
    pub switches: Vec<Step>,
    pub adapters: Vec<Step>,
    pub hosts: Vec<Step>,
    pub storage: Vec<Step>,
    pub not_rendered: Vec<String>,
    /// What to run on each device for `rocelab audit`, in device order.
    pub collect: Vec<Collect>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub device: String,
    pub platform: String,
    pub file: String,
    pub apply: String,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub command: String,
    pub expect: String,
}

pub(crate) fn check(command: impl Into<String>, expect: impl Into<String>) -> Check {
    Check { command: command.into(), expect: expect.into() }
}

pub(crate) fn list(v: &[u8]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

/// The runbook's steps for one device, by section, computed from its typed configuration as
/// soon as it is rendered (so that a large fabric need not keep every typed configuration).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DeviceSteps {
    pub switch: Option<Step>,
    pub adapter: Option<Step>,
    pub host: Option<Step>,
    pub storage: Option<Step>,
    /// Values the device's script needs that the fabric does not give: name and what it is.
    pub variables: Vec<(String, String)>,
    /// The counter outputs `rocelab audit` reads from this device.
    pub collect: Vec<Collect>,
}

/// One counter output `rocelab audit` reads: the command that prints it on `device`, and the
/// name to save the output as (`<device>.<what>.txt`: `audit` takes the device from the file
/// name's leading fields and recognises the format from the content).
#[derive(Debug, Clone, Serialize)]
pub struct Collect {
    pub device: String,
    pub command: String,
    pub save_as: String,
}

fn collect(device: &str, what: &str, command: String) -> Collect {
    Collect { device: device.to_string(), command, save_as: format!("{device}.{what}.txt") }
}

/// A command whose output is JSON, saved as `<device>.<what>.json`.
fn collect_json(device: &str, what: &str, command: &str) -> Collect {
    Collect { device: device.to_string(), command: command.to_string(), save_as: format!("{device}.{what}.json") }
}

/// The commands whose output `rocelab audit` reads, for the devices it has a parser for:
/// SONiC `show pfc counters`, `show queue counters`, `show queue wredcounters`, `show pfcwd
/// stats` and `show priority-group watermark headroom|shared` (sonic-utilities' `pfcstat`,
/// `queuestat`, `pfcwd` and `watermarkstat`); EOS `show priority-flow-control counters`, and
/// `show qos interfaces ecn counters queue | json` and `show interfaces counters queue drops |
/// json` (the `| json` forms ANTA's interface tests read; the queue-drop counters exist on the
/// VOQ platforms, 7280R, 7500R and 7800R); and on a Linux host, per RDMA port of an NVIDIA
/// ConnectX (mlx5), Broadcom NetXtreme-E (bnxt_en/bnxt_re) or Intel E800 (ice/irdma) adapter,
/// `ethtool -S IF` (Linux kernel documentation, mlx5 `counters.rst`; the drivers'
/// `bnxt_ethtool.c` and `ice_ethtool.c`) and the RDMA device's `hw_counters` printed with
/// `grep .` (one `path:value` a line). The RDMA device is found from the netdev's PCI device
/// (`/sys/class/net/IF/device/infiniband/*`), as the runbook's `default_roce_tos` check does, so
/// that no device name need be known; a RoCE LAG's counters are those of its bond's RDMA device.
/// A host with several such ports gets one file pair per port (`<host>.<IF>.ethtool.txt`),
/// which `audit` reads as the host's as a whole. On an NVIDIA Cumulus switch, per port, `nv show
/// interface IF qos roce counters` (Cumulus Linux user guide, "RDMA over Converged Ethernet -
/// RoCE") and `nv show interface IF counters qos` (`qos counters` in Cumulus Linux 5.4 and
/// earlier: NVUE command reference); neither output names its port, so each is saved as
/// `<switch>.<port>.roce.txt` and `<switch>.<port>.qos.txt`, the name `audit` takes the port from.
pub fn collect_commands(t: &Typed) -> Vec<Collect> {
    match t {
        Typed::Sonic(s) => vec![
            collect(&s.hostname, "pfc", "show pfc counters".into()),
            collect(&s.hostname, "queue", "show queue counters".into()),
            collect(&s.hostname, "wred", "show queue wredcounters".into()),
            collect(&s.hostname, "pfcwd", "show pfcwd stats".into()),
            collect(&s.hostname, "pg-headroom", "show priority-group watermark headroom".into()),
            collect(&s.hostname, "pg-shared", "show priority-group watermark shared".into()),
        ],
        Typed::AristaEos(c) => vec![
            collect(&c.hostname, "pfc", "show priority-flow-control counters".into()),
            collect_json(&c.hostname, "ecn", "show qos interfaces ecn counters queue | json"),
            collect_json(&c.hostname, "queue-drops", "show interfaces counters queue drops | json"),
        ],
        Typed::NvidiaCumulus(c) => {
            // Per-port commands whose output names no port: the file name carries it.
            let qos = if c.release.at_least("5.5") { "counters qos" } else { "qos counters" };
            let mut out = Vec::new();
            for i in &c.interfaces {
                let port = sh(&i.name);
                let what = |w: &str| format!("{}.{w}", i.name);
                out.push(collect(&c.hostname, &what("roce"), format!("nv show interface {port} qos roce counters")));
                out.push(collect(&c.hostname, &what("qos"), format!("nv show interface {port} {qos}")));
            }
            out
        }
        Typed::Linux(h) => {
            // The adapters whose counters `audit` has an alias table for.
            let read = |p: &&crate::linux::LinuxPort| {
                matches!(p.driver.as_str(), "mlx5" | "bnxt_re")
                    || (p.vendor == rocelab_model::fabric::NicVendor::Intel && p.driver != "none")
            };
            let rdma_ports: Vec<_> = h.ports.iter().filter(read).collect();
            let mut out = Vec::new();
            for p in &rdma_ports {
                let what = |w: &str| if rdma_ports.len() == 1 { w.to_string() } else { format!("{}.{w}", p.name) };
                let rdma_port = p.lag_rdma_port.as_ref().unwrap_or(&p.name);
                out.push(collect(&h.hostname, &what("ethtool"), format!("ethtool -S {}", sh(&p.name))));
                out.push(collect(
                    &h.hostname,
                    &what("hw_counters"),
                    format!("grep . /sys/class/net/{}/device/infiniband/*/ports/1/hw_counters/*", sh(rdma_port)),
                ));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Assembles the runbook from each rendered device's steps (`(device index, steps)`, in device
/// order) and the findings.
pub fn build(f: &ResolvedFabric, steps: Vec<(usize, DeviceSteps)>, findings: &[Finding]) -> Runbook {
    let mut rb = Runbook {
        fabric: f.name.clone(),
        findings: findings.iter().map(|x| x.to_string()).collect(),
        errors: findings.iter().filter(|x| x.is_error()).count(),
        variables: Vec::new(),
        switches: Vec::new(),
        adapters: Vec::new(),
        hosts: Vec::new(),
        storage: Vec::new(),
        not_rendered: Vec::new(),
        collect: Vec::new(),
    };
    let mut rendered = vec![false; f.devices.len()];
    for (i, _) in &steps {
        rendered[*i] = true;
    }
    for (d, _) in f.devices.iter().zip(&rendered).filter(|(_, r)| !**r) {
        rb.not_rendered.push(d.name.clone());
    }
    for (_, s) in steps {
        rb.switches.extend(s.switch);
        rb.adapters.extend(s.adapter);
        rb.hosts.extend(s.host);
        rb.storage.extend(s.storage);
        rb.collect.extend(s.collect);
        for v in s.variables {
            if !rb.variables.iter().any(|(n, _)| *n == v.0) {
                rb.variables.push(v);
            }
        }
    }
    rb
}

/// The command that saves a switch's configuration so that it survives a reboot, per platform:
/// EOS, NX-OS and OS9 `copy running-config startup-config`, OS10 `write memory`, Cumulus
/// `nv config save`, SONiC `config save -y` (CONFIG_DB to `/etc/sonic/config_db.json`), Onyx
/// `configuration write` (here to the file the configuration was built in), Comware
/// `save force`. `None` for hosts, whose scripts are run again at boot.
pub fn save_command(t: &Typed) -> Option<String> {
    match t {
        Typed::NvidiaOnyx(c) => Some(format!("config write to {}", c.saved_config)),
        Typed::HpeComware(_) => Some("save force".into()),
        Typed::AristaEos(_) | Typed::CiscoNxos(_) | Typed::DellOs9(_) => {
            Some("copy running-config startup-config".into())
        }
        Typed::DellOs10(_) => Some("write memory".into()),
        Typed::NvidiaCumulus(_) => Some("nv config save".into()),
        Typed::Sonic(_) => Some("sudo config save -y".into()),
        Typed::Linux(_) | Typed::Windows(_) => None,
    }
}

/// The runbook steps of one rendered device (`file` is its file name); `save`: whether the
/// switch files end by saving the configuration (`rocelab config --no-save` leaves it out, and
/// the step then says how to save once the checks pass).
pub fn steps(t: &Typed, file: &str, save: bool) -> DeviceSteps {
    let mut rb = steps_unsaved(t, file);
    rb.collect = collect_commands(t);
    if let (Some(step), Some(cmd)) = (rb.switch.as_mut(), save_command(t)) {
        step.apply = match (save, t) {
            (true, Typed::Sonic(_)) => format!("{}, then `{cmd}`", step.apply),
            (true, _) => format!("{}; the file ends by saving (`{cmd}`)", step.apply),
            (false, _) => format!("{}; not saved (`--no-save`): `{cmd}` once the checks pass", step.apply),
        };
    }
    rb
}

fn steps_unsaved(t: &Typed, file: &str) -> DeviceSteps {
    let file = &file.to_string();
    let mut rb = DeviceSteps::default();
    match t {
        Typed::NvidiaOnyx(c) => {
            let i = c.interfaces.first().map(|i| i.name.clone()).unwrap_or_else(|| "1/1".into());
            let mut checks = vec![
                check(
                    "show dcb priority-flow-control",
                    format!("PFC enabled; priority enabled list: {}", list(&c.pfc_priorities)),
                ),
                check(format!("show interfaces ethernet {i} counters"), "no discards on the lossless priorities"),
                check(
                    format!("show buffer status interfaces ethernet {i}"),
                    "the lossless priority groups mapped to iPool1 with the reserved, xoff and xon sizes of the file",
                ),
            ];
            for p in &c.pfc_priorities {
                checks.push(check(
                    format!("show interfaces ethernet {i} counters priority {p}"),
                    "pause frames counted here under congestion, none when idle",
                ));
            }
            if c.interfaces.iter().any(|x| !x.ecn.is_empty()) {
                checks.push(check(
                    format!("show interfaces ethernet {i} congestion-control"),
                    "ECN enabled on the lossless traffic class with the file's minimum and maximum",
                ));
            }
            if c.interfaces.iter().any(|x| !x.ets.is_empty()) {
                checks.push(check(
                    format!("show dcb ets interface ethernet {i}"),
                    "the file's WRR weights per traffic class",
                ));
            }
            rb.switch = Some(Step { device: c.hostname.clone(), platform: "NVIDIA Onyx".into(), file: file.clone(), apply: "`enable`, `configure terminal`, paste the file; reboot if `show dcb priority-flow-control` does not show PFC enabled".into(), checks });
        }
        Typed::HpeComware(c) => {
            let i = c.interfaces.first().map(|i| i.name.clone()).unwrap_or_default();
            let mut checks = vec![check("display interface brief", "the configured ports UP")];
            if let Some(v) = c.vlan {
                checks.push(check(format!("display vlan {v}"), "the configured ports tagged in the VLAN"));
            }
            checks.push(check(
                "display qos map-table dot1p-lp",
                format!(
                    "import/export as in the file ({})",
                    c.dot1p_lp.iter().map(|m| format!("{}→{}", m.import, m.export)).collect::<Vec<_>>().join(" ")
                ),
            ));
            if let Some(t) = &c.wred_table {
                checks.push(check(
                    format!("display qos wred table name {}", t.name),
                    "ECN enabled on the lossless queue with the file's limits",
                ));
                checks.push(check(format!("display qos wred interface {i}"), format!("table {} applied", t.name)));
            }
            for t in &c.more_wred_tables {
                checks.push(check(
                    format!("display qos wred table name {}", t.name),
                    "ECN enabled on the lossless queue with the file's limits",
                ));
                if let Some(x) = c.interfaces.iter().find(|x| x.wred_apply.as_deref() == Some(t.name.as_str())) {
                    checks.push(check(
                        format!("display qos wred interface {}", x.name),
                        format!("table {} applied", t.name),
                    ));
                }
            }
            checks.push(check("display current-configuration", "the file's interface and QoS lines"));
            rb.switch = Some(Step {
                device: c.hostname.clone(),
                platform: "HPE Comware 7".into(),
                file: file.clone(),
                apply: "`system-view`, paste the file".into(),
                checks,
            });
        }
        Typed::AristaEos(c) => {
            let i = c.interfaces.first().map(|i| i.name.clone()).unwrap_or_default();
            let nd: Vec<u8> = c
                .interfaces
                .iter()
                .flat_map(|x| x.no_drop.iter().copied())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let checks = vec![
                    check("show priority-flow-control", format!("PFC on for priority {} (no-drop) on the configured ports", list(&nd))),
                    check("show priority-flow-control counters", "RxPfc/TxPfc rise on lossless ports only under congestion (the Arista/Pure guide shows them on Leaf3 during writes)"),
                    check(format!("show qos interfaces {i}"), "the trust mode and tx-queue settings of the file"),
                    check("show queue-monitor length", "queue lengths of the lossless traffic class during congestion (LANZ)"),
                ];
            rb.switch = Some(Step {
                device: c.hostname.clone(),
                platform: "Arista EOS".into(),
                file: file.clone(),
                apply: "`configure`, paste the file".into(),
                checks,
            });
        }
        Typed::Sonic(s) => {
            let first = s.config_db.port_qos_map.iter().next();
            let i = first.map(|(name, _)| name.to_string()).unwrap_or_else(|| "Ethernet0".into());
            let pfc = first.and_then(|(_, row)| row.pfc_enable).map(|p| p.to_string()).unwrap_or_default();
            let mut checks = vec![
                check(
                    format!("redis-cli -n 4 hgetall \"PORT_QOS_MAP|{}\"", dq(&i)),
                    format!("pfc_enable {pfc} and the ROCELAB maps"),
                ),
                check("show pfc counters", "PFC frames on the lossless priorities only, under congestion"),
                check(format!("show queue counters {i}"), "no drops on the lossless queues"),
                check("pfcwd show config", "the PFC watchdog on every lossless port (drop, 200 ms)"),
            ];
            if !s.config_db.portchannel.is_empty() {
                let channels = s.config_db.portchannel.keys().map(|name| {
                    let members =
                        s.config_db.portchannel_member.keys().filter_map(|k| k.strip_prefix(&format!("{name}|")));
                    format!(
                        "{name} LACP(A)(Up) with {}",
                        members.map(|m| format!("{m}(S)")).collect::<Vec<_>>().join(" ")
                    )
                });
                checks.push(check("show interfaces portchannel", channels.collect::<Vec<_>>().join("; ")));
            }
            rb.switch = Some(Step {
                device: s.hostname.clone(),
                platform: "SONiC".into(),
                file: file.clone(),
                apply: format!("copy to the switch, `sudo config load {file} -y`"),
                checks,
            });
        }
        Typed::NvidiaCumulus(c) => rb.switch = Some(crate::runbook_switch::cumulus(c, file)),
        Typed::CiscoNxos(c) => rb.switch = Some(crate::runbook_switch::nxos(c, file)),
        Typed::DellOs10(c) => rb.switch = Some(crate::runbook_switch::os10(c, file)),
        Typed::DellOs9(c) => rb.switch = Some(crate::runbook_switch::os9(c, file)),
        Typed::Linux(h) => {
            let mut checks = h.bond.as_ref().map(bond_checks).unwrap_or_default();
            for p in &h.ports {
                match p.driver.as_str() {
                    "mlx5" => {
                        checks.push(check(
                            format!("mlnx_qos -i {}", sh(&p.name)),
                            format!(
                                "Priority trust state: {}; PFC enabled on priority {}",
                                p.trust,
                                list(&p.pfc_priorities)
                            ),
                        ));
                        for c in &p.dcqcn {
                            checks.push(check(
                                format!("cat /sys/class/net/{}/ecn/roce_np/enable/{}", sh(&p.name), c.priority),
                                format!("{} (DCQCN notification point)", c.np),
                            ));
                        }
                        if let Some(t) = p.roce_tos {
                            let dev_port = p.lag_rdma_port.as_ref().unwrap_or(&p.name);
                            checks.push(check("cat /sys/kernel/config/rdma_cm/$(ls /sys/class/net/IF/device/infiniband/)/ports/1/default_roce_tos".replace("IF", &sh(dev_port)), format!("{t}")));
                        }
                        for pr in &p.pfc_priorities {
                            checks.push(check(
                                format!("ethtool -S {} | grep prio{pr}_pause", sh(&p.name)),
                                "pause counters that rise only under congestion",
                            ));
                        }
                    }
                    "bnxt_re" => {
                        checks.push(check(
                            format!("lldptool -t -i {} -V PFC", sh(&p.name)),
                            format!("PFC enabled on {}", list(&p.pfc_priorities)),
                        ));
                        if p.ets.is_some() {
                            checks.push(check(
                                format!("lldptool -t -i {} -V ETS-CFG", sh(&p.name)),
                                "the file's TSA, up2tc and tcbw",
                            ));
                        }
                    }
                    "qedr" => checks.push(check("lsmod | grep qed", "qed, qede and qedr loaded")),
                    "dcb" => {
                        let d = p.dcb.as_ref().expect("dcb ports carry their settings");
                        checks.push(check(
                            format!("dcb pfc show dev {}", sh(&p.name)),
                            format!("prio-pfc {}", d.prio_pfc),
                        ));
                        if let Some(e) = &p.ets {
                            checks.push(check(
                                format!("dcb ets show dev {}", sh(&p.name)),
                                format!("willing off, tc-tsa {}, tc-bw {}", e.dcb_tsa, e.dcb_bw),
                            ));
                        }
                        if !d.dscp_prio.is_empty() {
                            checks.push(check(
                                format!("dcb app show dev {} dscp-prio", sh(&p.name)),
                                d.dscp_prio.iter().map(|(v, pr)| format!("{v}:{pr}")).collect::<Vec<_>>().join(" "),
                            ));
                        }
                    }
                    _ => {}
                }
                if let Some(v) = &p.vlan {
                    checks.push(check(
                        format!("cat /proc/net/vlan/{}", sh(&v.name)),
                        format!("EGRESS priority mappings: {}", v.egress_qos_map),
                    ));
                }
                if let Some(a) = &p.address {
                    let iface = p.vlan.as_ref().map_or(&p.name, |v| &v.name);
                    checks.push(check(format!("ip -br addr show dev {}", sh(iface)), format!("{iface} UP, with {a}")));
                }
            }
            if !checks.is_empty() {
                rb.adapter = Some(Step {
                    device: h.hostname.clone(),
                    platform: "Linux".into(),
                    file: file.clone(),
                    apply: format!("as root: `bash {}` (adapter section)", sh(file)),
                    checks,
                });
            }
            let p0 = h.ports.first().map(|p| p.name.clone()).unwrap_or_default();
            rb.host = Some(Step {
                device: h.hostname.clone(),
                platform: "Linux".into(),
                file: file.clone(),
                apply: "the same script's host tuning section".into(),
                checks: vec![
                    check(
                        format!("ip link show {}", sh(&p0)),
                        format!("mtu {}", h.ports.first().map(|p| p.mtu).unwrap_or(1500)),
                    ),
                    check(
                        format!("ethtool -a {}", sh(&p0)),
                        "RX/TX pause off where PFC is used (on only where the fabric asks for link-level pause)",
                    ),
                    check(format!("ethtool -g {}", sh(&p0)), "current ring sizes equal to the pre-set maximums"),
                    check(
                        format!("ethtool -k {}", sh(&p0)),
                        "rx-checksumming, tx-checksumming, scatter-gather, tcp-segmentation-offload and generic-segmentation-offload on",
                    ),
                    check(
                        format!(
                            "sysctl {}",
                            h.tuning.sysctls.iter().map(|(k, _)| sh(k)).collect::<Vec<_>>().join(" ")
                        ),
                        h.tuning.sysctls.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", "),
                    ),
                    check("cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor", "performance on every CPU"),
                ]
                .into_iter()
                .chain(h.tuning.module_params.iter().map(|(path, v)| check(format!("cat {}", sh(path)), v.clone())))
                .chain(source_route_checks(&h.source_routes))
                .collect(),
            });
            rb.variables = h.storage.variables.iter().map(|v| (v.name.clone(), v.hint.clone())).collect();
            let s = &h.storage;
            let mut checks = Vec::new();
            if !s.nvme.is_empty() {
                checks.push(check("nvme list", "the target's namespaces as /dev/nvmeXnY"));
            }
            if !s.iscsi.is_empty() {
                checks.push(check("iscsiadm -m session", "one session per portal (iser: `iser:` prefix)"));
                checks.push(check("lsblk", "the target's LUNs as new disks"));
            }
            if !s.nfs.is_empty() {
                checks.push(check("mount | grep nfs", "the exports mounted (proto=rdma,port=20049 for NFS over RDMA)"));
            }
            if let Some(t) = &s.target {
                if t.nfs_rdma {
                    checks.push(check("cat /proc/fs/nfsd/portlist", "rdma 20049"));
                    checks.push(check("exportfs -v", "the shared path, exported rw to each client"));
                }
                if !t.iser_portals.is_empty() {
                    checks.push(check("targetcli ls /iscsi", "the portals marked [iser]"));
                }
            }
            if !checks.is_empty() {
                rb.storage = Some(Step {
                    device: h.hostname.clone(),
                    platform: "Linux".into(),
                    file: file.clone(),
                    apply: "the same script's storage section".into(),
                    checks,
                });
            }
        }
        Typed::Windows(w) => {
            let a = w.adapters.first().map(|a| a.name.clone()).unwrap_or_default();
            rb.adapter = Some(Step {
                device: w.hostname.clone(),
                platform: "Windows Server".into(),
                file: file.clone(),
                apply: format!("elevated PowerShell: `{}`", ps_script(file)),
                checks: vec![
                    check("Get-NetQosFlowControl", format!("Enabled True for priority {} only", list(&w.pfc_on))),
                    check(
                        "Get-NetQosPolicy",
                        format!("SMB → priority {}, DEFAULT → priority {}", w.smb_priority, w.default_priority),
                    ),
                    check("Get-NetQosTrafficClass", "the file's ETS shares (rest in [Default])"),
                    check(
                        format!("Get-NetAdapterQos -Name {}", ps(&a)),
                        "Enabled True; operational flow control on the lossless priority",
                    ),
                    check(
                        "Get-NetQosDcbxSetting",
                        format!("Willing {}", if w.dcbx_willing { "True" } else { "False" }),
                    ),
                ]
                .into_iter()
                .chain(w.ips.iter().map(|ip| {
                    check(
                        format!("Get-NetIPAddress -InterfaceAlias {}", ps(&ip.alias)),
                        format!("IPAddress {}, PrefixLength {}", ip.address, ip.prefix),
                    )
                }))
                .collect(),
            });
            rb.storage = Some(Step {
                device: w.hostname.clone(),
                platform: "Windows Server".into(),
                file: file.clone(),
                apply: "SMB Direct checks (Demartek guide)".into(),
                checks: vec![
                    check("Get-NetOffloadGlobalSetting", "NetworkDirect Enabled"),
                    check("Get-NetAdapterRdma", "Enabled True on the RDMA adapters"),
                    check("Get-SmbClientNetworkInterface", "RDMA Capable True on the RDMA adapters"),
                    check("netstat -xan", "two SMB Direct listeners; connections once traffic starts"),
                ],
            });
        }
    }
    rb
}

/// The PowerShell command that runs script `file` of the current folder: `.\\FILE` as always
/// for a plain name, else the call operator on the quoted path (a quoted path alone is a string,
/// not a command).
fn ps_script(file: &str) -> String {
    if ps(file).starts_with('"') {
        format!(".\\{file}")
    } else {
        format!("& {}", ps(&format!(".\\{file}")))
    }
}

/// What to check on a bonded Linux host: the bond's mode and members
/// (`/proc/net/bonding/BOND`), that LACP found its partner, the RoCE LAG's one RDMA device, the
/// VLAN interface and the addresses on the bond.
fn bond_checks(b: &crate::linux::LinuxBond) -> Vec<Check> {
    let mut state = format!("Bonding Mode: {}", b.proc_mode());
    if b.mode == "802.3ad" {
        state.push_str("; Transmit Hash Policy: layer3+4 (1); Number of ports: ");
        state.push_str(&format!("{} under Active Aggregator Info (the switches answer LACP)", b.members.len()));
    }
    state.push_str(&format!("; Slave Interface: {}, each with MII Status: up", b.members.join(", ")));
    let mut checks = vec![check(format!("cat /proc/net/bonding/{}", sh(&b.name)), state)];
    if b.roce_lag {
        checks.push(check("rdma link show", "one RDMA device for both members, `mlx5_bond_N/1 state ACTIVE`"));
    }
    if let Some(v) = &b.vlan {
        checks.push(check(
            format!("cat /proc/net/vlan/{}", sh(&v.name)),
            format!("EGRESS priority mappings: {}", v.egress_qos_map),
        ));
    }
    if !b.addresses.is_empty() {
        checks.push(check(
            format!("ip -br addr show dev {}", sh(&b.iface)),
            format!("{} UP, with {}", b.iface, b.addresses.join(" ")),
        ));
    }
    checks
}

/// What to check on a host whose interfaces share a subnet ([`crate::linux::SourceRoute`]).
fn source_route_checks(routes: &[crate::linux::SourceRoute]) -> Vec<Check> {
    if routes.is_empty() {
        return Vec::new();
    }
    let keys: Vec<String> = routes
        .iter()
        .flat_map(|r| ["arp_ignore", "arp_announce", "rp_filter"].map(|k| sh(&format!("{}.{k}", r.sysctl_conf))))
        .collect();
    let values = routes
        .iter()
        .map(|r| format!("{0}.arp_ignore = 1, {0}.arp_announce = 2, {0}.rp_filter = 2", r.sysctl_conf))
        .collect::<Vec<_>>()
        .join(", ");
    let rules = routes.iter().map(|r| format!("`from {} lookup {}`", r.addr, r.table)).collect::<Vec<_>>().join(", ");
    let mut checks = vec![check(format!("sysctl {}", keys.join(" ")), values), check("ip rule show", rules)];
    checks.extend(routes.iter().map(|r| {
        check(
            format!("ip route show table {}", r.table),
            format!("{} dev {} scope link src {}", r.subnet, r.iface, r.addr),
        )
    }));
    checks
}

pub fn render(
    f: &ResolvedFabric,
    steps: Vec<(usize, DeviceSteps)>,
    findings: &[Finding],
    t: &Templates,
) -> Result<String, TemplateError> {
    t.render("RUNBOOK.md.j2", &build(f, steps, findings))
}

#[cfg(test)]
mod tests;
