//! Linux hosts and storage servers: one bash script per host that configures each RDMA port for
//! the fabric's QoS (by adapter driver), tunes the host, and attaches storage.
//!
//! Sources, by part:
//! - NVIDIA ConnectX (mlx5): the Arista/Pure guide's `qos.sh` (`echo 106 >
//!   /sys/kernel/config/rdma_cm/$DEV/ports/1/default_roce_tos`, `mlnx_qos -i IF --trust=dscp
//!   --pfc=0,0,0,1,0,0,0,0`); the Demartek guide's Linux Mellanox section (`mlnx_qos -i IF -f …`,
//!   `ip link set VLANIF type vlan egress 0:5 … 15:5` — iproute2 spells it `egress-qos-map` —,
//!   `echo 1 > /sys/class/net/IF/ecn/roce_np/enable/5`, `…/roce_rp/enable/5`); MLNX_OFED "Quality
//!   of Service" (`mlnx_qos` `--prio_tc`, `--tsa`, `--tcbw`, `--dscp2prio set,DSCP,PRIO`); NVIDIA
//!   DCQCN sysfs `ecn/roce_np/cnp_dscp` and `cnp_802p_prio`.
//! - Broadcom NetXtreme-E (bnxt_re): the Demartek guide's `ifup-roce` script (configfs
//!   `/sys/kernel/config/bnxt_re/$DEV/ports/1/cc/`: `cc_mode`, `tcp_cp`, `nph_per_state`, `rtt`, `g`,
//!   `init_cr`, `init_tr`, `tos_ecn`, `vlan_tx_disable`, `alt_vlan_pcp`, `enable`, `apply`;
//!   `default_roce_mode`; `ethtool -A IF autoneg off rx off tx off`) and its lldpad ETS and APP
//!   TLVs (`lldptool -L -i IF adminStatus=rxtx`, `lldptool -T -i IF -V APP app=P,3,4791`,
//!   `lldptool -T -i IF -V ETS-CFG tsa=… up2tc=… tcbw=…` — the guide prints seven `tcbw` values, an
//!   extraction loss; IEEE 802.1Qaz has eight — and `-V PFC enabled=P`, lldptool-pfc(8)).
//! - Marvell FastLinQ (qede/qedr): the Demartek guide's Linux Cavium section (`debugfs.sh -n IF -t
//!   dcbx_set_mode 0x10`, `dcbx_set_pfc P 1`, `rdma_glob_ecn 1`, `rdma_glob_vlan_pri P`,
//!   `modprobe qed dcqcn_enable=1 dcqcn_notification_point=1 dcqcn_reaction_point=1`, `modprobe
//!   qedr`); the text's `ged`/`dcgcn` are OCR errors for `qed`/`dcqcn`.
//! - Other RDMA adapters (Intel E810 `irdma`, Chelsio `iw_cxgb4`, …): the kernel's DCB interface
//!   through iproute2 `dcb` (dcb-pfc(8) `dcb pfc set dev IF prio-pfc 3:on …`, dcb-ets(8) `dcb ets
//!   set dev IF willing off tc-tsa 0:ets … tc-bw 0:10 … prio-tc 0:0 …`, dcb-app(8) `dcb app add
//!   dev IF dscp-prio 26:3`), which applies where the driver implements DCB netlink and the
//!   adapter's firmware DCBX agent is off.
//! - Tuning: the Dell EqualLogic RHEL guide (MTU, `ethtool -A` flow control with autoneg off,
//!   `ethtool -G` rings to the maximum; checksum, scatter-gather, TSO/GSO and LRO offloads left on
//!   — "All else default", with checksum offload recommended on — pinned with `ethtool -K`;
//!   `net.ipv4.tcp_window_scaling = 1` and `net.ipv4.tcp_congestion_control = cubic`, its TCP
//!   defaults, pinned with `sysctl -w`, or what the device's `tcp:` settings give instead) and the Demartek guide (CPU governor `performance` in
//!   `/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor`).
//! - Addresses: iproute2's ip-address(8) (`ip addr replace ADDR/LEN dev IF`, which adds the
//!   address or updates it where it is already there, so the script runs again) and ip-link(8)
//!   (`ip link set dev IF up`). Every port is set up first: the kernel does not bring a VLAN
//!   interface up on a port that is down (`vlan_dev_open` returns ENETDOWN).
//! - Interfaces sharing a subnet: the kernel's ip-sysctl documentation (`arp_ignore` 1,
//!   `arp_announce` 2, `rp_filter` 2), ip-rule(8) and ip-route(8) (`ip rule add from ADDR table
//!   T`, `ip route replace SUBNET dev IF src ADDR table T`), sysctl(8)'s `/` for a dot in an
//!   interface name; libfabric's "Verbs Provider on Multi-NIC Systems" for why RDMA needs them.
//! - Bonds (a device's `bonding:`): the kernel's bonding documentation, ip-link(8) and the mlx5
//!   RoCE LAG, in [`bond`].
//! - Storage: nvme-cli (`nvme discover|connect-all -t rdma|tcp -a ADDR -s PORT`), the Demartek
//!   guide's iSER and NFSoRDMA sections (`iscsiadm -m iface -I NAME -o new`, `-o update -n
//!   iface.transport_name -v iser`, `iscsiadm -m discovery -t sendtargets -p ADDR -I NAME`,
//!   `iscsiadm -m node -l`, `targetcli` with `enable_iser true`, `modprobe xprtrdma`, `mount -o
//!   rdma,port=20049`, `echo rdma 20049 > /proc/fs/nfsd/portlist`, the share in `/etc/exports`
//!   with `rw,sync,… no_root_squash` per client and `exportfs -a`). So that the script runs
//!   again: a login whose session exists (iscsiadm(8) exit status 15, `ISCSI_ERR_SESS_EXISTS`)
//!   and an NVMe-oF controller already connected (`nvme connect-all` of nvme-cli 1.x exits with
//!   EALREADY, 114, since its 2018 change "connect-all: fix exit code on fail to write to
//!   /dev/nvme-fabrics"; nvme-cli 2.x exits 0) are not errors, a mounted share (mountpoint(1)), an NFS port already in `portlist` and an
//!   existing iSER portal are left as they are.
//!
//! The RDMA device of a port (`mlx5_0`, `bnxt_re0`) is looked up at run time in
//! `/sys/class/net/IF/device/infiniband/` (under a RoCE LAG, the first member's, where the
//! bond's one device sits), so the script needs no device names the fabric does not have. Addresses the fabric does not give become shell variables that must be set before
//! the script runs (`${STORE1_ADDR:?…}`), never invented ones.

pub mod bond;
pub mod dcqcn;

pub use bond::LinuxBond;
pub use dcqcn::{AdapterParam, ConnectxDcqcn};

use crate::common::{cabled_ports, no_ports_finding, PortView};
use crate::finding::{Finding, Findings};
use crate::storage::{self, StorageAttach};
use rocelab_model::fabric::{NicVendor, RdmaKind};
use rocelab_model::qos::Marking;
use rocelab_model::resolve::ResolvedFabric;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinuxHost {
    pub hostname: String,
    pub ports: Vec<LinuxPort>,
    /// The bond over the ports, where the device is bonded.
    pub bond: Option<LinuxBond>,
    /// A port's RDMA-CM defaults go in configfs (`/sys/kernel/config/rdma_cm`), which exists once
    /// the `rdma_cm` module is loaded (it registers the subsystem; the kernel's
    /// `Documentation/ABI/testing/configfs-rdma_cm`): the script loads it.
    pub rdma_cm: bool,
    /// Marvell FastLinQ with DCQCN: `qed`'s module parameters, set by reloading qed, qede and
    /// qedr once, before any interface setting (removing qede deletes the interfaces and with
    /// them their VLAN interfaces, egress QoS maps and MTUs).
    pub qed_reload: Option<Qed>,
    /// Commands the script needs, with where they come from: checked, with the interfaces,
    /// before anything changes, so that a host missing one is left as it was.
    pub tools: Vec<(String, String)>,
    /// The interfaces whose IPv4 subnet holds another of the host's interfaces: each answers
    /// ARP for its own address only and is routed by source address.
    pub source_routes: Vec<SourceRoute>,
    pub tuning: Tuning,
    pub storage: StorageAttach,
}

/// ARP and source routing of an interface whose IPv4 subnet another of its host's interfaces
/// is also in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceRoute {
    /// The interface holding the address: the port, or its VLAN interface where PCP marking
    /// makes one (the Demartek guide's GIDs sit on `ens15f0.2`).
    pub iface: String,
    /// The interface's sysctl directory, `net.ipv4.conf.IF`, a dot of IF written `/` as
    /// sysctl(8) reads it (`ens15f0/2`).
    pub sysctl_conf: String,
    /// The interface's address, without its prefix length.
    pub addr: String,
    /// The subnet, `network/prefix`.
    pub subnet: String,
    /// The routing table holding the interface's route (101, 102, … in port order).
    pub table: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinuxPort {
    /// Interface name.
    pub name: String,
    pub peer: String,
    /// `mlx5`, `bnxt_re`, `qedr`, or `none` (no RDMA QoS to set).
    pub driver: String,
    /// The adapter's vendor: `dcb` covers several, whose counters are named apart (Intel's
    /// `ice`/`irdma` among them).
    pub vendor: NicVendor,
    pub mtu: u32,
    /// `ethtool -A … rx on|off tx on|off`: IEEE 802.3x pause, off where PFC is used.
    pub link_pause: bool,
    pub trust: String,
    pub pfc_vector: String,
    pub pfc_priorities: Vec<u8>,
    /// VLAN interface and its egress map (PCP marking).
    pub vlan: Option<VlanIf>,
    /// The address the fabric gives the port (`10.0.2.31/24`), put on the VLAN interface where
    /// there is one (as the Demartek guide's `show-gids` shows 10.0.2.31 on `ens15f0.2`), else on
    /// the port.
    pub address: Option<String>,
    /// Under RoCE LAG, the bond member whose PCI function holds the RDMA device both members
    /// share (the first): this port's own function has none.
    pub lag_rdma_port: Option<String>,
    /// `--dscp2prio set,D,P` where the class differs from the adapter's default D/8.
    pub dscp2prio: Vec<(u8, u8)>,
    pub ets: Option<Ets>,
    pub roce_tos: Option<u8>,
    pub roce_v2: bool,
    pub dcqcn: Vec<DcqcnPrio>,
    /// ConnectX: the model's DCQCN parameters in the OFED sysfs files' units ([`dcqcn`]).
    pub dcqcn_params: Option<ConnectxDcqcn>,
    pub cnp: Option<Cnp>,
    pub bnxt: Option<BnxtCc>,
    pub qed: Option<Qed>,
    /// iproute2 `dcb` (adapters without a vendor tool rocelab knows).
    pub dcb: Option<DcbTool>,
}

/// The kernel DCB settings of a port, in iproute2 `dcb` form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DcbTool {
    /// `0:off 1:off 2:off 3:on …`.
    pub prio_pfc: String,
    /// `dscp-prio` entries (DSCP marking).
    pub dscp_prio: Vec<(u8, u8)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VlanIf {
    pub id: u16,
    pub name: String,
    /// The priority every socket priority maps to (the RDMA class's).
    pub priority: u8,
    /// `0:5 1:5 … 15:5`.
    pub egress_qos_map: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ets {
    /// Eight values each: priority → TC, TSA per TC, bandwidth per TC.
    pub prio_tc: String,
    pub tsa: String,
    pub tcbw: String,
    /// lldptool forms.
    pub lldp_tsa: String,
    pub lldp_up2tc: String,
    /// iproute2 `dcb ets` forms: `0:ets 1:strict …`, `0:10 1:90 …`, `0:0 1:0 …`.
    pub dcb_tsa: String,
    pub dcb_bw: String,
    pub dcb_prio_tc: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DcqcnPrio {
    pub priority: u8,
    pub np: u8,
    pub rp: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cnp {
    pub dscp: Option<u8>,
    pub priority: u8,
}

/// Broadcom congestion control in configfs, with the values of the Demartek guide's script.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BnxtCc {
    pub enable: bool,
    pub cc_mode: String,
    pub tcp_cp: String,
    pub nph_per_state: String,
    pub rtt: String,
    pub g: String,
    pub init_cr: String,
    pub init_tr: String,
    pub tos_ecn: String,
    pub vlan_tx_disable: String,
    pub alt_vlan_pcp: String,
    /// Why the model's DCQCN parameters are not converted ([`dcqcn::bnxt_notes`]).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Qed {
    pub dcbx_mode: String,
    pub rdma_priority: u8,
    pub ecn: bool,
    pub dcqcn: bool,
    pub np: bool,
    pub rp: bool,
    /// The model's DCQCN parameters as qed's module parameters ([`dcqcn::qed`]).
    pub params: Vec<AdapterParam>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tuning {
    pub cpu_governor: String,
    pub sysctls: Vec<(String, String)>,
    /// Kernel module parameters written under `/sys/module`: (path, value).
    pub module_params: Vec<(String, String)>,
    /// `ethtool -K IF …` offloads kept on.
    pub offloads: String,
}

fn driver(vendor: NicVendor, rdma: RdmaKind) -> &'static str {
    if rdma == RdmaKind::None {
        return "none";
    }
    match vendor {
        NicVendor::Nvidia => "mlx5",
        NicVendor::Broadcom => "bnxt_re",
        NicVendor::Marvell => "qedr",
        NicVendor::Intel | NicVendor::Chelsio | NicVendor::Other => "dcb",
    }
}

/// The TCP sysctls a host pins: window scaling and congestion control always (the Dell guide's
/// B.6 lists both; Linux's defaults, 1 and cubic, unless the device's `tcp:` settings say
/// otherwise), and SACK, timestamps and ECN where the device sets them (`tcp_ecn` 1 asks for
/// ECN, 2, Linux's default, only accepts it). The settings the simulator takes from socket
/// options or routes (Nagle, delayed ACKs, `rto_min`, `initcwnd`) are not sysctls. Tail loss
/// probes and RACK are not rendered: their sysctls, `net.ipv4.tcp_early_retrans` and
/// `net.ipv4.tcp_recovery`, exist only in kernels since 3.5 and 4.4, and a device's
/// `tail_loss_probe: false` or `rack: false` usually describes an older kernel (the Dell
/// examples' RHEL 6.3) rather than a setting to apply. Proportional rate reduction (`prr`) has
/// no sysctl at all: it is part of every Linux kernel since 3.2. HyStart is not a sysctl but a
/// parameter of the `tcp_cubic` module: see [`tcp_module_params`].
fn tcp_sysctls(t: Option<&rocelab_model::storage::TcpSettings>) -> Vec<(String, String)> {
    use rocelab_model::storage::CongestionControl;
    let cc = match congestion_control(t) {
        CongestionControl::NewReno => "reno",
        CongestionControl::Cubic => "cubic",
        CongestionControl::Dctcp => "dctcp",
    };
    let mut v = vec![
        ("net.ipv4.tcp_window_scaling".to_string(), flag(t.and_then(|t| t.window_scaling).unwrap_or(true))),
        ("net.ipv4.tcp_congestion_control".to_string(), cc.to_string()),
    ];
    if let Some(t) = t {
        let set = [("net.ipv4.tcp_sack", t.sack.map(flag)), ("net.ipv4.tcp_timestamps", t.timestamps.map(flag))];
        v.extend(set.into_iter().filter_map(|(k, x)| x.map(|x| (k.to_string(), x))));
        if let Some(e) = t.ecn {
            v.push(("net.ipv4.tcp_ecn".to_string(), if e { "1" } else { "2" }.to_string()));
        }
    }
    v
}

/// The TCP module parameters a host pins: CUBIC's HyStart (`tcp_cubic`'s `hystart`, writable at
/// run time under `/sys/module/tcp_cubic/parameters/`) where the device's `tcp:` settings set it
/// and its congestion control is CUBIC (other algorithms have no HyStart).
fn tcp_module_params(t: Option<&rocelab_model::storage::TcpSettings>) -> Vec<(String, String)> {
    let cubic = congestion_control(t) == rocelab_model::storage::CongestionControl::Cubic;
    let hystart = t.and_then(|t| t.hystart).filter(|_| cubic);
    hystart.map(|b| ("/sys/module/tcp_cubic/parameters/hystart".to_string(), flag(b))).into_iter().collect()
}

/// The host's congestion control: its `tcp:` setting, or Linux's default, CUBIC.
fn congestion_control(t: Option<&rocelab_model::storage::TcpSettings>) -> rocelab_model::storage::CongestionControl {
    t.and_then(|t| t.congestion_control).unwrap_or(rocelab_model::storage::CongestionControl::Cubic)
}

/// A boolean kernel setting's value.
fn flag(b: bool) -> String {
    if b { "1" } else { "0" }.to_string()
}

pub fn build(f: &ResolvedFabric, device: usize, targets: &[usize]) -> (LinuxHost, Findings) {
    let d = &f.devices[device];
    let mut findings = Findings::new();
    let ports = cabled_ports(f, device);
    if ports.is_empty() {
        findings.push(no_ports_finding(d));
    }
    let mut out = Vec::new();
    for p in &ports {
        let nic = d.ports[p.id.port].nic.and_then(|i| d.nics.get(i));
        let (vendor, rdma) = nic.map(|n| (n.vendor, n.rdma_kind())).unwrap_or((NicVendor::Other, RdmaKind::None));
        let drv = driver(vendor, rdma);
        if drv == "dcb" {
            findings.push(Finding::warning(
                &d.name,
                Some(&p.name),
                format!(
                    "{vendor:?} adapter: rendered the kernel's DCB interface (iproute2 `dcb`), which applies when the driver implements DCB netlink and the adapter's firmware DCBX agent is off; DCQCN is the adapter's own setting"
                ),
            ));
        }
        out.push(port(f, d, p, drv, rdma, &mut findings));
    }
    let bond = d.bonding.map(|b| bond::build(f, d, b, &mut out, &mut findings));
    if let Some(v) = bond.as_ref().and_then(|b| b.vlan.as_ref()) {
        if out.iter().any(|p| p.driver != "none") {
            findings.push(pcp_warning(&d.name, None, v));
        }
    }
    let storage = storage::linux_attach(f, device, targets, &mut findings);
    let source_routes = source_routes(d, &out);
    let qed_reload = out.iter().filter_map(|p| p.qed.clone()).find(|q| q.dcqcn);
    let tools = tools(&out);
    let host = LinuxHost {
        hostname: d.name.clone(),
        // iproute2 `dcb` adapters too: their RoCE takes the RDMA class's DSCP only from
        // rdma_cm's configfs `default_roce_tos` (the kernel's `configfs-rdma_cm` ABI).
        rdma_cm: out.iter().any(|p| matches!(p.driver.as_str(), "mlx5" | "bnxt_re" | "dcb")),
        qed_reload,
        tools,
        bond,
        source_routes,
        ports: out,
        tuning: Tuning {
            cpu_governor: "performance".into(),
            sysctls: tcp_sysctls(d.tcp.as_ref()),
            module_params: tcp_module_params(d.tcp.as_ref()),
            offloads: "rx on tx on sg on tso on gso on".into(),
        },
        storage,
    };
    (host, findings)
}

/// The interfaces of host `d`'s cabled ports (rendered as `linux`) whose IPv4 address's subnet
/// holds another of them. By default Linux answers ARP for any of its addresses on every
/// interface and routes by destination only, so a packet from one port's address leaves by
/// whichever same-subnet interface the main table lists first: the RDMA-CM connection of a
/// queue pair bound to the second port's address is refused or its traffic leaves on the first
/// port (libfabric's "Verbs Provider on Multi-NIC Systems"). Each such interface answers ARP only
/// for its own addresses (`arp_ignore` 1) and announces the address it sends from
/// (`arp_announce` 2), filters reverse paths loosely (`rp_filter` 2: a reply may arrive on the
/// sibling port), and its address's traffic is routed by a table of its own that holds the
/// subnet on that interface (`ip rule add from ADDR table T`; the kernel's ip-sysctl
/// documentation for the three settings, ip-rule(8) and ip-route(8) for the rest). A bonded
/// host has one address on the bond: nothing to do.
fn source_routes(d: &rocelab_model::ResolvedDevice, linux: &[LinuxPort]) -> Vec<SourceRoute> {
    if d.bonding.is_some() {
        return Vec::new();
    }
    let ifaces: Vec<(String, std::net::Ipv4Addr, u8)> = linux
        .iter()
        .filter_map(|l| match rocelab_model::fabric::parse_cidr(l.address.as_deref()?) {
            Ok((std::net::IpAddr::V4(addr), len)) => {
                Some((l.vlan.as_ref().map_or(&l.name, |v| &v.name).clone(), addr, len))
            }
            _ => None,
        })
        .collect();
    let subnet = |a: std::net::Ipv4Addr, len: u8| {
        let mask = u32::MAX.checked_shl(32 - len as u32).unwrap_or(0);
        (std::net::Ipv4Addr::from(u32::from(a) & mask), len)
    };
    let mut out = Vec::new();
    for (k, (iface, addr, len)) in ifaces.iter().enumerate() {
        let net = subnet(*addr, *len);
        let shared = ifaces.iter().enumerate().any(|(j, (_, a, l))| j != k && subnet(*a, *l) == net);
        if shared {
            out.push(SourceRoute {
                sysctl_conf: format!("net.ipv4.conf.{}", iface.replace('.', "/")),
                iface: iface.clone(),
                addr: addr.to_string(),
                subnet: format!("{}/{}", net.0, net.1),
                table: 101 + k as u32,
            });
        }
    }
    out
}

/// The warning for a VLAN interface under PCP marking (on a port, or on the bond: `port` none):
/// its egress map sends every socket priority to the RDMA class's priority.
fn pcp_warning(device: &str, port: Option<&str>, v: &VlanIf) -> Finding {
    Finding::warning(
        device,
        port,
        format!(
            "PCP marking: every socket priority on {} maps to priority {} (the Demartek guide's egress map), so TCP on that VLAN interface rides the lossless class too; keep other traffic on another interface",
            v.name, v.priority
        ),
    )
}

fn port(
    f: &ResolvedFabric,
    d: &rocelab_model::ResolvedDevice,
    p: &PortView,
    drv: &str,
    rdma: RdmaKind,
    findings: &mut Findings,
) -> LinuxPort {
    let s = &p.settings;
    let pcp = s.marking == Marking::Pcp;
    let rdma_class = p.rdma_class();
    let vlan = match (pcp, f.qos.vlan, rdma_class) {
        (true, Some(id), Some(c)) => Some(VlanIf {
            id,
            name: format!("{}.{id}", p.name),
            priority: c.priority,
            egress_qos_map: (0..16).map(|i| format!("{i}:{}", c.priority)).collect::<Vec<_>>().join(" "),
        }),
        _ => None,
    };
    if let (Some(v), None, false) = (&vlan, d.bonding, drv == "none") {
        findings.push(pcp_warning(&d.name, Some(&p.name), v));
    }
    let mut dscp2prio = Vec::new();
    if !pcp {
        for c in p.classes.iter() {
            for v in &c.dscp {
                if v >> 3 != c.priority {
                    dscp2prio.push((*v, c.priority));
                }
            }
        }
    }
    let ets = p.has_ets().then(|| {
        // The adapter's traffic class of a class is its `queue` (the switch's, unless a port
        // override says otherwise); unused TCs strict with 0 % (they carry nothing), as the
        // Broadcom script of the Demartek guide does.
        let mut tsa = ["strict"; 8];
        let mut bw = [0u8; 8];
        for c in p.classes.iter() {
            let tc = c.queue as usize;
            if c.strict {
                tsa[tc] = "strict";
            } else if let Some(e) = c.ets {
                tsa[tc] = "ets";
                bw[tc] = bw[tc].saturating_add(e);
            }
        }
        // Priorities outside every class travel with the class of priority 0.
        let default_tc = p.classes.iter().find(|c| c.priority == 0).map(|c| c.queue).unwrap_or(0);
        let prio_tc: Vec<u8> = (0..8u8)
            .map(|pr| p.classes.iter().find(|c| c.priority == pr).map(|c| c.queue).unwrap_or(default_tc))
            .collect();
        let pairs = |v: &mut dyn Iterator<Item = String>| {
            v.enumerate().map(|(i, x)| format!("{i}:{x}")).collect::<Vec<_>>().join(" ")
        };
        Ets {
            dcb_tsa: pairs(&mut tsa.iter().map(|t| t.to_string())),
            dcb_bw: pairs(&mut bw.iter().map(|b| b.to_string())),
            dcb_prio_tc: pairs(&mut prio_tc.iter().map(|t| t.to_string())),
            prio_tc: prio_tc.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","),
            tsa: tsa.join(","),
            tcbw: bw.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","),
            lldp_tsa: tsa.iter().enumerate().map(|(i, t)| format!("{i}:{t}")).collect::<Vec<_>>().join(","),
            lldp_up2tc: prio_tc.iter().enumerate().map(|(i, t)| format!("{i}:{t}")).collect::<Vec<_>>().join(","),
        }
    });
    let dcqcn_on = s.dcqcn_np || s.dcqcn_rp;
    let dcqcn: Vec<DcqcnPrio> = p
        .pfc_priorities()
        .iter()
        .chain(rdma_class.filter(|c| !c.pfc).map(|c| &c.priority))
        .map(|pr| DcqcnPrio { priority: *pr, np: s.dcqcn_np as u8, rp: s.dcqcn_rp as u8 })
        .collect();
    let cnp_class = p.classes.iter().find(|c| c.cnp);
    let cnp = s.cnp_priority.map(|prio| Cnp { dscp: cnp_class.and_then(|c| c.dscp.first().copied()), priority: prio });
    let mut ctx = dcqcn::Ctx { device: &d.name, port: &p.name, findings };
    let dcqcn_params = (drv == "mlx5" && dcqcn_on).then(|| dcqcn::connectx(&f.dcqcn, &mut ctx));
    let qed_params = if drv == "qedr" && dcqcn_on {
        dcqcn::qed(&f.dcqcn, cnp.as_ref().and_then(|c| c.dscp), cnp.as_ref().map(|c| c.priority), &mut ctx)
    } else {
        Vec::new()
    };
    let bnxt_notes = if drv == "bnxt_re" && dcqcn_on { dcqcn::bnxt_notes(&f.dcqcn, &mut ctx) } else { Vec::new() };
    let rdma_prio = rdma_class.map(|c| c.priority).unwrap_or(0);
    LinuxPort {
        name: p.name.clone(),
        peer: p.peer(f),
        driver: drv.into(),
        vendor: d.ports[p.id.port].nic.and_then(|i| d.nics.get(i)).map_or(NicVendor::Other, |n| n.vendor),
        mtu: s.mtu,
        link_pause: s.link_pause,
        trust: if pcp { "pcp" } else { "dscp" }.into(),
        pfc_vector: p.pfc_vector(),
        pfc_priorities: p.pfc_priorities(),
        address: f.port_address(p.id).map(str::to_string),
        vlan,
        lag_rdma_port: None,
        dscp2prio,
        ets,
        roce_tos: if pcp { None } else { s.roce_tos },
        roce_v2: matches!(rdma, RdmaKind::RoceV2 | RdmaKind::RoceAndIwarp),
        dcqcn: if drv == "mlx5" { dcqcn } else { Vec::new() },
        dcqcn_params,
        cnp: if drv == "mlx5" { cnp } else { None },
        bnxt: (drv == "bnxt_re").then(|| BnxtCc {
            enable: dcqcn_on,
            cc_mode: "0x1".into(),
            tcp_cp: "0xc8".into(),
            nph_per_state: "0x3".into(),
            rtt: "0x28".into(),
            g: "0x3".into(),
            init_cr: "0x2".into(),
            init_tr: "0xa".into(),
            tos_ecn: "0x1".into(),
            vlan_tx_disable: "0x0".into(),
            alt_vlan_pcp: "0x0".into(),
            notes: bnxt_notes,
        }),
        dcb: (drv == "dcb").then(|| DcbTool {
            prio_pfc: (0..8u8)
                .map(|pr| format!("{pr}:{}", if p.pfc_priorities().contains(&pr) { "on" } else { "off" }))
                .collect::<Vec<_>>()
                .join(" "),
            dscp_prio: if pcp {
                Vec::new()
            } else {
                p.classes.iter().flat_map(|c| c.dscp.iter().map(|v| (*v, c.priority))).collect()
            },
        }),
        qed: (drv == "qedr").then(|| Qed {
            dcbx_mode: "0x10".into(),
            rdma_priority: rdma_prio,
            ecn: dcqcn_on,
            dcqcn: dcqcn_on,
            np: s.dcqcn_np,
            rp: s.dcqcn_rp,
            params: qed_params,
        }),
    }
}

/// The commands the script runs per driver, and the package or release that has them.
fn tools(ports: &[LinuxPort]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut need = |cmd: &str, from: &str| {
        if !out.iter().any(|(c, _)| c == cmd) {
            out.push((cmd.into(), from.into()));
        }
    };
    for p in ports {
        match p.driver.as_str() {
            "mlx5" => need("mlnx_qos", "MLNX_OFED, DOCA-OFED or the mlnx-tools package"),
            "bnxt_re" => need("lldptool", "the lldpad package"),
            "dcb" => need("dcb", "iproute2 5.11 or later"),
            _ => {}
        }
        need("ethtool", "the ethtool package");
    }
    out
}
