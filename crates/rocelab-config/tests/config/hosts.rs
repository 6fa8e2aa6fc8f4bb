//! Host-side parts beyond the seeds' scripts: the iproute2 `dcb` path for adapters without a
//! vendor tool rocelab knows, host tuning (offloads, TCP sysctls), the NFS server's exports and
//! the ARP and source routing of interfaces that share a subnet, and bonds.

use super::{assert_sequence, device_text, fabric};
use rocelab_config::{render, Templates};

/// An Intel E810 (irdma, RoCEv2) host on a SONiC switch, DSCP 26 on priority 3 lossless, ETS
/// 90/10.
const INTEL: &str = r#"
fabric:
  name: intel-e810
  topology:
    devices:
      - {name: sw, role: switch, platform: sonic, ports: [{names: Ethernet0-1, speed: 100G}]}
      - {name: h1, role: host, os: linux, nic: {vendor: intel, model: E810-CQDA2, speed: 100G, rdma: roce-v2, port_names: [ens1f0]}}
    links:
      - {a: "sw:Ethernet0", b: "h1:ens1f0"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90}
      - {name: default, priority: 0, dscp: [0], ets: 10}
"#;

#[test]
fn adapters_without_a_vendor_tool_get_the_kernel_dcb_interface() {
    let f = fabric(INTEL);
    let (text, findings) = device_text(&f, "h1");
    assert_sequence(
        &text,
        &[
            "dcb pfc set dev ens1f0 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off",
            "dcb ets set dev ens1f0 willing off tc-tsa 0:ets 1:strict 2:strict 3:ets 4:strict 5:strict 6:strict 7:strict tc-bw 0:10 1:0 2:0 3:90 4:0 5:0 6:0 7:0 prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:0 7:0",
            "dcb app replace dev ens1f0 dscp-prio 26:3",
            "dcb app replace dev ens1f0 dscp-prio 0:0",
        ],
    );
    assert!(!text.contains("mlnx_qos"), "{text}");
    // RoCE connections take their DSCP from rdma_cm's default ToS (26 << 2 | ECT(0)), not from `dcb app`:
    // without it they leave with DSCP 0, in the lossy class.
    assert_sequence(
        &text,
        &[
            "modprobe rdma_cm",
            "dcb app replace dev ens1f0 dscp-prio 0:0",
            "DEV=$(rdma_dev ens1f0)",
            "mkdir -p \"/sys/kernel/config/rdma_cm/$DEV/ports/1\"",
            "echo \"RoCE v2\" > \"/sys/kernel/config/rdma_cm/$DEV/ports/1/default_roce_mode\"",
            "echo 106 > \"/sys/kernel/config/rdma_cm/$DEV/ports/1/default_roce_tos\"",
        ],
    );
    let w = findings.iter().find(|w| w.message.contains("iproute2 `dcb`")).expect("the dcb path is said");
    assert_eq!(w.port.as_deref(), Some("ens1f0"));
    let r = render(&f, &Templates::builtin()).unwrap();
    assert!(r.runbook.contains("| `dcb pfc show dev ens1f0` | prio-pfc 0:off 1:off 2:off 3:on"), "{}", r.runbook);
    assert!(r.runbook.contains("| `dcb app show dev ens1f0 dscp-prio` | 26:3 0:0 |"));
}

#[test]
fn host_tuning_keeps_offloads_on_and_pins_the_tcp_defaults() {
    let (text, _) = device_text(&fabric(INTEL), "h1");
    assert_sequence(
        &text,
        &[
            "# ---- host tuning ----",
            "sysctl -w net.ipv4.tcp_window_scaling=1",
            "sysctl -w net.ipv4.tcp_congestion_control=cubic",
            "ethtool -K ens1f0 rx on tx on sg on tso on gso on || true",
            "ethtool -K ens1f0 lro on || true",
        ],
    );
    // HyStart is left as the kernel has it unless the device sets it.
    assert!(!text.contains("tcp_cubic"), "{text}");
}

#[test]
fn host_tuning_pins_the_devices_own_tcp_settings() {
    // The Dell guide's test cases 4 and 5 toggle window scaling and Reno on the host: the script
    // and the runbook's check follow the device's `tcp:` settings, not Linux's defaults.
    let text = INTEL.replace(
        "rdma: roce-v2, port_names: [ens1f0]}}",
        "rdma: roce-v2, port_names: [ens1f0]}, tcp: {congestion_control: reno, window_scaling: false, sack: true, ecn: true}}",
    );
    let f = fabric(&text);
    let (script, _) = device_text(&f, "h1");
    assert_sequence(
        &script,
        &[
            "sysctl -w net.ipv4.tcp_window_scaling=0",
            "sysctl -w net.ipv4.tcp_congestion_control=reno",
            "sysctl -w net.ipv4.tcp_sack=1",
            "sysctl -w net.ipv4.tcp_ecn=1",
        ],
    );
    assert!(!script.contains("cubic"), "{script}");
    let r = render(&f, &Templates::builtin()).unwrap();
    assert!(
        r.runbook.contains(
            "| `sysctl net.ipv4.tcp_window_scaling net.ipv4.tcp_congestion_control net.ipv4.tcp_sack net.ipv4.tcp_ecn` | net.ipv4.tcp_window_scaling = 0, net.ipv4.tcp_congestion_control = reno, net.ipv4.tcp_sack = 1, net.ipv4.tcp_ecn = 1 |"
        ),
        "{}",
        r.runbook
    );
}

#[test]
fn host_tuning_sets_cubics_hystart_where_the_device_does() {
    // HyStart is a parameter of the tcp_cubic module, not a sysctl: written under /sys/module and
    // checked there; with another congestion control it has no effect and is not written.
    let with = |tcp: &str| {
        let text = INTEL.replace(
            "rdma: roce-v2, port_names: [ens1f0]}}",
            &format!("rdma: roce-v2, port_names: [ens1f0]}}, tcp: {{{tcp}}}}}"),
        );
        let f = fabric(&text);
        (device_text(&f, "h1").0, render(&f, &Templates::builtin()).unwrap().runbook)
    };
    let (script, runbook) = with("hystart: false");
    assert_sequence(
        &script,
        &["sysctl -w net.ipv4.tcp_congestion_control=cubic", "echo 0 > /sys/module/tcp_cubic/parameters/hystart"],
    );
    assert!(runbook.contains("| `cat /sys/module/tcp_cubic/parameters/hystart` | 0 |"), "{runbook}");
    let (script, _) = with("hystart: true, congestion_control: cubic");
    assert!(script.contains("echo 1 > /sys/module/tcp_cubic/parameters/hystart"), "{script}");
    let (script, runbook) = with("hystart: false, congestion_control: dctcp");
    assert!(!script.contains("tcp_cubic") && !runbook.contains("tcp_cubic"), "{script}");
}

const NFS: &str = r#"
fabric:
  name: nfs
  topology:
    devices:
      - {name: sw, role: switch, platform: sonic, ports: [{names: Ethernet0-8, speed: 25G}]}
      - {name: c1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, addresses: [10.0.2.31/24]}}
      - {name: c2, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, addresses: [10.0.2.51/24]}}
      - {name: nfs-1, role: storage, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, addresses: [10.0.1.101/24]}, storage: {kind: server, protocols: [nfs-rdma]}}
    links:
      - {a: "sw:Ethernet0", b: "c1:p0"}
      - {a: "sw:Ethernet1", b: "c2:p0"}
      - {a: "sw:Ethernet2", b: "nfs-1:p0"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
      - {name: default, priority: 0, dscp: [0]}
"#;

#[test]
fn nfs_server_exports_its_share_to_each_client() {
    let f = fabric(NFS);
    let (server, findings) = device_text(&f, "nfs-1");
    assert_sequence(
        &server,
        &[
            ": \"${NFS_1_EXPORT:?set NFS_1_EXPORT to the path \\`nfs-1\\` exports over NFS}\"",
            "grep -qx \"rdma 20049\" /proc/fs/nfsd/portlist || echo rdma 20049 > /proc/fs/nfsd/portlist",
            "EXPORT_LINE=\"${NFS_1_EXPORT} 10.0.2.31(rw,sync,insecure,no_root_squash) 10.0.2.51(rw,sync,insecure,no_root_squash)\"",
            "grep -qxF \"$EXPORT_LINE\" /etc/exports || echo \"$EXPORT_LINE\" >> /etc/exports",
            "exportfs -a",
        ],
    );
    assert!(findings.iter().all(|w| !w.message.contains("every client")), "{findings:?}");
    // The clients mount the same variable's path.
    let (client, _) = device_text(&f, "c1");
    assert!(client.contains("mount -o rdma,port=20049 10.0.1.101:${NFS_1_EXPORT} /mnt/nfs-1-rdma"));
    // A client without an address: the export goes to everyone, and that is said.
    let f = fabric(&NFS.replace(", addresses: [10.0.2.51/24]", ""));
    let (server, findings) = device_text(&f, "nfs-1");
    assert!(server.contains("EXPORT_LINE=\"${NFS_1_EXPORT} *(rw,sync,insecure,no_root_squash)\""), "{server}");
    assert!(findings.iter().any(|w| w.device == "nfs-1" && w.message.contains("every client (`*`)")));
}

/// A ConnectX-5 host with three ports: two in 10.0.2.0/24, one in 10.0.3.0/24.
const MULTIHOMED: &str = r#"
fabric:
  name: multihomed
  topology:
    devices:
      - {name: sw, role: switch, platform: sonic, ports: [{names: Ethernet0-3, speed: 100G}]}
      - {name: h1, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, ports: 3, speed: 100G,
         port_names: [ens1f0, ens1f1, ens2f0], addresses: [10.0.2.31/24, 10.0.2.32/24, 10.0.3.31/24]}}
    links:
      - {a: "sw:Ethernet0", b: "h1:ens1f0"}
      - {a: "sw:Ethernet1", b: "h1:ens1f1"}
      - {a: "sw:Ethernet2", b: "h1:ens2f0"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
"#;

#[test]
fn interfaces_in_one_subnet_answer_arp_for_their_own_address_and_route_by_source() {
    let f = fabric(MULTIHOMED);
    let (text, _) = device_text(&f, "h1");
    assert_sequence(
        &text,
        &[
            "# ---- interfaces in one subnet: ARP for their own address only, source routing ----",
            "sysctl -w net.ipv4.conf.ens1f0.arp_ignore=1",
            "sysctl -w net.ipv4.conf.ens1f0.arp_announce=2",
            "sysctl -w net.ipv4.conf.ens1f0.rp_filter=2",
            "ip route replace 10.0.2.0/24 dev ens1f0 src 10.0.2.31 table 101",
            "ip rule del from 10.0.2.31 table 101 2>/dev/null || true",
            "ip rule add from 10.0.2.31 table 101",
            "sysctl -w net.ipv4.conf.ens1f1.arp_ignore=1",
            "ip route replace 10.0.2.0/24 dev ens1f1 src 10.0.2.32 table 102",
            "ip rule add from 10.0.2.32 table 102",
            "# ---- host tuning ----",
        ],
    );
    assert!(!text.contains("ens2f0.arp_ignore") && !text.contains("10.0.3.31 table"), "alone in its subnet: {text}");
    let runbook = render(&f, &Templates::builtin()).unwrap().runbook;
    assert!(
        runbook.contains("| `ip rule show` | `from 10.0.2.31 lookup 101`, `from 10.0.2.32 lookup 102` |"),
        "{runbook}"
    );
    assert!(runbook.contains("| `ip route show table 102` | 10.0.2.0/24 dev ens1f1 scope link src 10.0.2.32 |"));
    // The fabric's addresses go on the interfaces first.
    assert_sequence(
        &text,
        &[
            "ip link set dev ens1f0 mtu 1500",
            "ip addr replace 10.0.2.31/24 dev ens1f0",
            "ip link set dev ens1f0 up",
            "ip addr replace 10.0.2.32/24 dev ens1f1",
            "ip addr replace 10.0.3.31/24 dev ens2f0",
            "# ---- interfaces in one subnet: ARP for their own address only, source routing ----",
        ],
    );
    assert!(runbook.contains("| `ip -br addr show dev ens2f0` | ens2f0 UP, with 10.0.3.31/24 |"), "{runbook}");

    // PCP marking: the addresses sit on the VLAN interfaces, whose dotted names sysctl reads
    // with a slash.
    let pcp = MULTIHOMED.replace("marking: dscp", "marking: pcp\n    vlan: 2");
    let (text, _) = device_text(&fabric(&pcp), "h1");
    // The port is up before its VLAN interface: a VLAN interface on a port that is down does not
    // come up (the kernel's vlan_dev_open returns ENETDOWN), and the script would stop there.
    assert_sequence(
        &text,
        &[
            "ip link set dev ens1f0 mtu 1500",
            "ip link set dev ens1f0 up",
            "ip link show ens1f0.2 >/dev/null 2>&1 || ip link add link ens1f0 name ens1f0.2 type vlan id 2",
            "ip link set dev ens1f0.2 up",
        ],
    );
    assert_sequence(
        &text,
        &[
            "ip addr replace 10.0.2.31/24 dev ens1f0.2",
            "sysctl -w net.ipv4.conf.ens1f0/2.arp_ignore=1",
            "ip route replace 10.0.2.0/24 dev ens1f0.2 src 10.0.2.31 table 101",
        ],
    );

    // Each port in a subnet of its own, or a bond (one address): nothing to do.
    let apart = MULTIHOMED.replace("10.0.2.32/24", "10.0.4.32/24");
    let bonded = MULTIHOMED.replace("}}\n    links", "}, bonding: active-backup}\n    links");
    for text in [&apart, &bonded] {
        assert_ne!(text, MULTIHOMED);
        let (script, _) = device_text(&fabric(text), "h1");
        assert!(!script.contains("arp_ignore") && !script.contains("ip rule"), "{script}");
    }
    let (_, findings) = device_text(&fabric(&apart), "h1");
    assert!(findings.iter().all(|w| !w.message.contains("bond")), "{findings:?}");
}

/// Three bonded Linux hosts on one switch: `h1` bonds the two ports of one ConnectX-5 with LACP
/// (a RoCE LAG), `h2` the single ports of two ConnectX-5s active-backup, `h3` the two ports of
/// a BCM57508 to an MLAG pair (here one switch stands for the pair).
const BONDED: &str = r#"
fabric:
  name: bonded
  topology:
    devices:
      - {name: sw, role: switch, platform: sonic, ports: [{names: Ethernet0-5, speed: 100G}]}
      - {name: h1, role: host, os: linux, bonding: lacp, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G,
         port_names: [ens1f0, ens1f1], addresses: [10.0.2.31/24]}}
      - name: h2
        role: host
        os: linux
        bonding: active-backup
        nics:
          - {vendor: mellanox, model: ConnectX-5, speed: 100G, port_names: [ens1f0], addresses: [10.0.2.32/24]}
          - {vendor: mellanox, model: ConnectX-5, speed: 100G, port_names: [ens2f0]}
      - {name: h3, role: host, os: linux, bonding: mlag, nic: {vendor: broadcom, model: BCM57508, ports: 2, speed: 100G,
         port_names: [ens3f0np0, ens3f1np1]}}
    links:
      - {a: "sw:Ethernet0", b: "h1:ens1f0"}
      - {a: "sw:Ethernet1", b: "h1:ens1f1"}
      - {a: "sw:Ethernet2", b: "h2:ens1f0"}
      - {a: "sw:Ethernet3", b: "h2:ens2f0"}
      - {a: "sw:Ethernet4", b: "h3:ens3f0np0"}
      - {a: "sw:Ethernet5", b: "h3:ens3f1np1"}
  qos:
    marking: pcp
    vlan: 2
    mtu: 9000
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 95}
      - {name: default, priority: 0, ets: 5}
"#;

#[test]
fn a_bonded_linux_host_gets_its_bond_before_the_adapters_rdma_settings() {
    let f = fabric(BONDED);
    let (text, findings) = device_text(&f, "h1");
    // The bond, its VLAN interface and its address come first: enslaving both ports of a
    // ConnectX replaces their RDMA devices with one, which the rdma_cm settings must reach.
    assert_sequence(
        &text,
        &[
            // rdma_cm registers the configfs directory the RDMA-CM defaults go in.
            "modprobe rdma_cm",
            "# ---- bond0: 802.3ad over ens1f0 ens1f1 ----",
            "ip link show bond0 >/dev/null 2>&1 || ip link add bond0 type bond mode 802.3ad miimon 100 xmit_hash_policy layer3+4",
            r#"[[ "$(ip -o link show dev ens1f0)" == *" master bond0 "* ]] || { ip link set dev ens1f0 down; ip link set dev ens1f0 master bond0; }"#,
            r#"[[ "$(ip -o link show dev ens1f1)" == *" master bond0 "* ]] || { ip link set dev ens1f1 down; ip link set dev ens1f1 master bond0; }"#,
            "ip link set dev bond0 mtu 9000",
            "ip link set dev bond0 up",
            "ip link show bond0.2 >/dev/null 2>&1 || ip link add link bond0 name bond0.2 type vlan id 2",
            "ip link set dev bond0.2 type vlan egress-qos-map 0:5 1:5 2:5 3:5 4:5 5:5 6:5 7:5 8:5 9:5 10:5 11:5 12:5 13:5 14:5 15:5",
            "ip addr replace 10.0.2.31/24 dev bond0.2",
            "ip link set dev bond0.2 up",
            "# ---- ens1f0 (to sw:Ethernet0; mlx5) ----",
            "DEV=$(rdma_dev ens1f0)",
            "mlnx_qos -i ens1f0 --trust=pcp --pfc=0,0,0,0,0,1,0,0",
            "# ---- ens1f1 (to sw:Ethernet1; mlx5) ----",
            "DEV=$(rdma_dev ens1f1)",
            // Under RoCE LAG the second port's PCI function has no RDMA device of its own.
            r#"[ -n "$DEV" ] || DEV=$(rdma_dev ens1f0)"#,
            r#"mkdir -p "/sys/kernel/config/rdma_cm/$DEV/ports/1""#,
            "echo 0 > /sys/class/net/ens1f1/ecn/roce_np/enable/5",
            "# ---- host tuning ----",
        ],
    );
    // No VLAN interface or address on a member.
    assert!(!text.contains("ens1f0.2") && !text.contains("dev ens1f1.2"), "{text}");
    let pcp: Vec<_> = findings.iter().filter(|w| w.message.starts_with("PCP marking")).collect();
    assert_eq!(pcp.len(), 1, "one warning, for the bond's VLAN interface: {findings:?}");
    assert!(pcp[0].port.is_none() && pcp[0].message.contains("every socket priority on bond0.2 maps to priority 5"));
    assert!(findings.iter().all(|w| !w.message.contains("RoCE LAG")), "{findings:?}");

    // Active-backup over two adapters: no LACP, no switch side, but no RoCE LAG either.
    let (text, findings) = device_text(&f, "h2");
    assert_sequence(
        &text,
        &[
            "ip link show bond0 >/dev/null 2>&1 || ip link add bond0 type bond mode active-backup miimon 100",
            "ip addr replace 10.0.2.32/24 dev bond0.2",
            "DEV=$(rdma_dev ens2f0)",
        ],
    );
    assert!(!text.contains("[ -n \"$DEV\" ]") && !text.contains("RoCE LAG"), "{text}");
    let w = findings.iter().find(|w| w.message.contains("RoCE LAG")).expect("no RoCE LAG is said");
    assert!(w.message.starts_with("bond0 over ens1f0 and ens2f0: a ConnectX makes one RDMA device"), "{}", w.message);

    // MLAG: 802.3ad; a Broadcom adapter keeps its own lookup, and the host has no address to
    // put on the bond. The switch side is the switches' (`switches_facing_an_lacp_bond_…`).
    let (text, findings) = device_text(&f, "h3");
    assert_sequence(&text, &["ip link set dev bond0 up", "ip link set dev bond0.2 up", "modprobe bnxt_re"]);
    assert!(text.contains("type bond mode 802.3ad miimon 100 xmit_hash_policy layer3+4"), "{text}");
    assert!(!text.contains("ip addr replace"), "{text}");
    assert!(
        findings.iter().all(|w| !w.message.contains("RoCE LAG") && !w.message.contains("port-channel")),
        "{findings:?}"
    );

    // The runbook checks the bond, the RoCE LAG's one device, and the address on the bond.
    let runbook = render(&f, &Templates::builtin()).unwrap().runbook;
    for row in [
        "| `cat /proc/net/bonding/bond0` | Bonding Mode: IEEE 802.3ad Dynamic link aggregation; Transmit Hash Policy: layer3+4 (1); Number of ports: 2 under Active Aggregator Info (the switches answer LACP); Slave Interface: ens1f0, ens1f1, each with MII Status: up |",
        "| `rdma link show` | one RDMA device for both members, `mlx5_bond_N/1 state ACTIVE` |",
        "| `ip -br addr show dev bond0.2` | bond0.2 UP, with 10.0.2.31/24 |",
        "| `cat /proc/net/bonding/bond0` | Bonding Mode: fault-tolerance (active-backup); Slave Interface: ens1f0, ens2f0, each with MII Status: up |",
    ] {
        assert!(runbook.contains(row), "{row} not in:\n{runbook}");
    }
    assert_eq!(runbook.matches("| `rdma link show` |").count(), 1, "h1 alone is a RoCE LAG");
}

/// Two Windows hosts, each with a two-port ConnectX-5 given addresses; `w2` teams its ports.
const WINDOWS_ADDRESSED: &str = r#"
fabric:
  name: windows-addressed
  topology:
    devices:
      - {name: sw, role: switch, platform: sonic, ports: [{names: Ethernet0-3, speed: 100G}]}
      - {name: w1, role: host, os: windows, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 100G,
         port_names: ["Ethernet 3", "Ethernet 5"], addresses: [10.0.2.51/24, 10.0.3.51/24]}}
      - {name: w2, role: host, os: windows, bonding: active-backup, nic: {vendor: mellanox, model: ConnectX-5, ports: 2,
         speed: 100G, port_names: ["Ethernet 3", "Ethernet 5"], addresses: [10.0.2.52/24, 10.0.3.52/24]}}
    links:
      - {a: "sw:Ethernet0", b: "w1:Ethernet 3"}
      - {a: "sw:Ethernet1", b: "w1:Ethernet 5"}
      - {a: "sw:Ethernet2", b: "w2:Ethernet 3"}
      - {a: "sw:Ethernet3", b: "w2:Ethernet 5"}
  qos:
    marking: pcp
    vlan: 2
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 95}
      - {name: default, priority: 0, ets: 5}
"#;

#[test]
fn windows_hosts_get_the_fabrics_addresses_on_the_adapters_or_the_set_vnics() {
    let f = fabric(WINDOWS_ADDRESSED);
    let (text, _) = device_text(&f, "w1");
    assert_sequence(
        &text,
        &[
            "# ---- addresses ----",
            "if (-not (Get-NetIPAddress -IPAddress 10.0.2.51 -ErrorAction SilentlyContinue)) { New-NetIPAddress -InterfaceAlias \"Ethernet 3\" -IPAddress 10.0.2.51 -PrefixLength 24 }",
            "if (-not (Get-NetIPAddress -IPAddress 10.0.3.51 -ErrorAction SilentlyContinue)) { New-NetIPAddress -InterfaceAlias \"Ethernet 5\" -IPAddress 10.0.3.51 -PrefixLength 24 }",
        ],
    );
    // With Switch Embedded Teaming the addresses go on the vNICs, after they are made; the switch
    // and its vNICs are made once (the script runs again).
    let (text, _) = device_text(&f, "w2");
    assert_sequence(
        &text,
        &[
            "if (-not (Get-VMSwitch -Name SETswitch -ErrorAction SilentlyContinue)) { New-VMSwitch -Name SETswitch -NetAdapterName \"Ethernet 3\",\"Ethernet 5\" -EnableEmbeddedTeaming $true -AllowManagementOS $false }",
            "if (-not (Get-VMNetworkAdapter -ManagementOS -Name SMB_1 -ErrorAction SilentlyContinue)) { Add-VMNetworkAdapter -SwitchName SETswitch -Name SMB_1 -ManagementOS }",
            "# ---- addresses ----",
            "if (-not (Get-NetIPAddress -IPAddress 10.0.2.52 -ErrorAction SilentlyContinue)) { New-NetIPAddress -InterfaceAlias \"vEthernet (SMB_1)\" -IPAddress 10.0.2.52 -PrefixLength 24 }",
            "if (-not (Get-NetIPAddress -IPAddress 10.0.3.52 -ErrorAction SilentlyContinue)) { New-NetIPAddress -InterfaceAlias \"vEthernet (SMB_2)\" -IPAddress 10.0.3.52 -PrefixLength 24 }",
        ],
    );
    let runbook = render(&f, &Templates::builtin()).unwrap().runbook;
    assert!(
        runbook.contains(
            "| `Get-NetIPAddress -InterfaceAlias \"vEthernet (SMB_2)\"` | IPAddress 10.0.3.52, PrefixLength 24 |"
        ),
        "{runbook}"
    );
}
