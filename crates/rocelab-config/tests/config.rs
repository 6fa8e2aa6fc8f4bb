//! `rocelab config` end to end: one test per seed (the intent matching the seed's setup renders
//! the commands the seed lists, in the seed's order), the typed representations as data, golden
//! files of whole outputs, bad input, template overrides and determinism. The round trips
//! through the checker's importers are rocelab-verify's tests (`tests/roundtrip.rs`).

use rocelab_config::{render, render_device, Templates, Typed};
use rocelab_model::{load_str, ResolvedFabric};
use std::path::Path;

/// NVIDIA Cumulus, Cisco NX-OS, Dell OS10 and OS9: data, golden files, bad input.
#[path = "config/switches.rs"]
mod switches;

/// Host parts beyond the seeds' scripts: iproute2 `dcb`, tuning, NFS exports.
#[path = "config/hosts.rs"]
mod hosts;

/// Hostile names: quoted in scripts, refused by switch CLIs, filtered in every template.
#[path = "config/hostile.rs"]
mod hostile;

/// Two port speeds on one switch with ECN, alpha and reserve per speed, on every platform.
#[path = "config/speeds.rs"]
mod speeds;

/// DCQCN parameters in each Linux adapter's own units, with the conversion and out-of-range warnings.
#[path = "config/dcqcn.rs"]
mod dcqcn;

/// What a deployment would trip on: releases (`os_version`), saving, DCBX, global ETS, VLANs.
#[path = "config/deploy.rs"]
mod deploy;

fn fabric(yaml: &str) -> ResolvedFabric {
    load_str(yaml, "t.yaml", Path::new(".")).unwrap_or_else(|d| panic!("{d:?}")).fabric
}

fn device_text(f: &ResolvedFabric, name: &str) -> (String, Vec<rocelab_config::Finding>) {
    let (file, findings) = render_device(f, name, &Templates::builtin()).unwrap();
    (file.unwrap_or_else(|| panic!("no file for {name}: {findings:?}")).text, findings)
}

/// Asserts that `expected` lines appear in `text` in this order (other lines may come between).
fn assert_sequence(text: &str, expected: &[&str]) {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut at = 0;
    for e in expected {
        match lines[at..].iter().position(|l| l == e) {
            Some(i) => at += i + 1,
            None => panic!("line `{e}` not found after line {at} in:\n{text}"),
        }
    }
}

/// The seed's own text (`shared/seeds/NAME` in an ancestor directory), if this checkout has it.
fn seed_text(name: &str) -> Option<String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/seeds").join(name))
        .find(|p| p.is_file())
        .map(|p| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// Letters and digits only, lower-cased: the seeds are PDF extractions that lost hyphens, line
/// breaks and spacing inside commands, so commands are compared on what survives.
fn normalized(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

/// Asserts that the seed lists each of `commands` (what the test expects rocelab to render, less
/// the deviations each test names), so that the seed tests check the seed's commands and not
/// rocelab's idea of them. Skipped, with a message, where the seeds are not checked out.
fn seed_lists(seed: &str, commands: &[&str]) {
    let Some(text) = seed_text(seed) else {
        eprintln!("seed {seed} not found: skipping the check against its text");
        return;
    };
    let text = normalized(&text);
    for c in commands {
        assert!(text.contains(&normalized(c)), "`{c}` is not in {seed}");
    }
}

fn typed(f: &ResolvedFabric, name: &str) -> Typed {
    let i = f.devices.iter().position(|d| d.name == name).unwrap();
    rocelab_config::build(f, i, &rocelab_config::storage::targets(f)).unwrap().0
}

const DEMARTEK: &str = "roce-deployment-guide-demartek-2018.txt";
const ARISTA_PURE_SEED: &str = "nvme-of-leaf-spine-arista-pure.txt";

/// Demartek guide, Mellanox SN2410: RoCE on priority 5 in VLAN 2, traffic class 2, the guide's
/// pools and buffers, ETS 90/10 and ECN 150/1500 KB.
const DEMARTEK_ONYX: &str = include_str!("fabrics/demartek-onyx.yaml");

#[test]
fn seed_demartek_onyx_sequence() {
    let f = fabric(DEMARTEK_ONYX);
    let (text, _) = device_text(&f, "sn2410");
    // The guide's steps 5-12 (lost hyphens restored, see onyx.rs); `config write to` names our file.
    let mut seq = vec![
        "dcb priority-flow-control enable force",
        "dcb priority-flow-control priority 5 enable",
        "interface ethernet 1/1 dcb priority-flow-control mode on force",
        "interface ethernet 1/2 dcb priority-flow-control mode on force",
        "vlan 2",
        "exit",
        "pool ePool0 size 956051 type dynamic",
        "pool iPool0 size 956051 type dynamic",
        "pool iPool1 size 8604460 type dynamic",
        "pool ePool1 size 16777000 type dynamic",
    ];
    for i in ["1/1", "1/2"] {
        seq.extend([
            Box::leak(format!("interface ethernet {i}").into_boxed_str()) as &str,
            "switchport mode trunk",
            "switchport trunk allowed-vlan 2",
            "exit",
        ]);
    }
    for i in ["1/1", "1/2"] {
        seq.extend([
            Box::leak(format!("interface ethernet {i}").into_boxed_str()) as &str,
            "ingress-buffer iPort.pg5 bind switch-priority 5",
            "traffic-class 0 bind switch-priority 0",
            "traffic-class 2 bind switch-priority 5",
            "ingress-buffer iPort.pg0 map pool iPool0 type lossy reserved 20480 shared alpha 8",
            "egress-buffer ePort.tc0 map pool ePool0 reserved 1500 shared alpha 2",
            "ingress-buffer iPort.pg5 map pool iPool1 type lossless reserved 34816 xoff 8192 xon 8192 shared alpha 2",
            "egress-buffer ePort.tc2 map pool ePool1 reserved 1500 shared alpha inf",
            "exit",
        ]);
    }
    for i in ["1/1", "1/2"] {
        seq.push(Box::leak(format!("interface ethernet {i}").into_boxed_str()));
        seq.push("traffic-class 2 congestion-control ecn minimum-absolute 150 maximum-absolute 1500");
        for (tc, w) in [(0, 10), (1, 0), (2, 90), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0)] {
            seq.push(Box::leak(format!("traffic-class {tc} dcb ets wrr {w}").into_boxed_str()));
        }
        seq.push("exit");
    }
    seq.push("config write to rocelab");
    assert_sequence(&text, &seq);
    // Every line but the saved configuration's name (the guide's is RoCEconfig) is the guide's.
    seed_lists(DEMARTEK, &seq[..seq.len() - 1]);
}

#[test]
fn onyx_representation_as_data() {
    let f = fabric(DEMARTEK_ONYX);
    let Typed::NvidiaOnyx(c) = typed(&f, "sn2410") else { panic!("not onyx") };
    assert_eq!(c.pfc_priorities, vec![5]);
    assert_eq!(c.vlan, Some(2));
    let i = &c.interfaces[0];
    assert_eq!(i.name, "1/1");
    assert_eq!(i.peer, "h1:p0");
    assert!(i.trust.is_none(), "PCP marking keeps Onyx's default L2 trust");
    let lossless: Vec<_> = i.buffers.iter().filter(|b| b.lossless).collect();
    assert_eq!((lossless[0].index, lossless[0].reserved, lossless[0].xoff), (5, 34816, Some(8192)));
    assert_eq!(i.ets.iter().map(|e| e.wrr.unwrap()).sum::<u8>(), 100);
}

/// Demartek guide, HPE 5900: priority 5 to local precedence 1, WRR 2:13 (≈ 13/87 %), ECN as
/// WRED limits 150/1500 packets of 1522 bytes, PFC negotiated by DCBX.
const DEMARTEK_COMWARE: &str = r#"
fabric:
  name: demartek-comware
  topology:
    devices:
      - {name: hpe5900, role: switch, platform: hpe-comware, model: JG838A}
      - {name: h1, role: host, os: linux, nic: {vendor: broadcom, model: BCM957414, speed: 25G, speeds: [10G]}}
      - {name: h2, role: host, os: linux, nic: {vendor: broadcom, model: BCM957414, speed: 25G, speeds: [10G]}}
    links:
      - {a: "hpe5900:Ten-GigabitEthernet1/0/1", b: "h1:p0", speed: 10G}
      - {a: "hpe5900:Ten-GigabitEthernet1/0/2", b: "h2:p0", speed: 10G}
  qos:
    marking: pcp
    vlan: 2
    dcbx: {switches_willing: false, hosts_willing: false}
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 87, queue: 1, ecn: {kmin: 228300B, kmax: 2283000B, pmax: 1.0}}
      - {name: default, priority: 0, ets: 13}
"#;

#[test]
fn seed_demartek_comware_sequence() {
    let f = fabric(DEMARTEK_COMWARE);
    let (text, findings) = device_text(&f, "hpe5900");
    // rocelab's additions to the guide's sequence: LLDP with its DCBX TLVs, which PFC `auto`
    // negotiates over, and the save without a prompt.
    let mut seq = vec!["lldp global enable", "vlan 2", "quit"];
    for i in ["1/0/1", "1/0/2"] {
        seq.extend([
            Box::leak(format!("interface Ten-GigabitEthernet {i}").into_boxed_str()) as &str,
            "port link-type trunk",
            "port trunk permit vlan 2",
            "lldp enable",
            "lldp tlv-enable dot1-tlv dcbx",
            "priority-flow-control auto",
            "priority-flow-control no-drop dot1p 5",
            "qos trust dot1p",
            "quit",
        ]);
    }
    seq.push("qos map-table dot1p-lp");
    for p in 0..8 {
        seq.push(Box::leak(format!("import {p} export {}", if p == 5 { 1 } else { 0 }).into_boxed_str()));
    }
    seq.push("quit");
    // The guide marks queue 5, which carries nothing after its own dot1p-lp map; rocelab marks
    // the queue RoCE uses (see comware.rs). The table name is rocelab's.
    seq.extend(["qos wred queue table ROCELAB", "queue 1 low-limit 150 high-limit 1500", "queue 1 ecn", "quit"]);
    for i in ["1/0/1", "1/0/2"] {
        seq.push(Box::leak(format!("interface Ten-GigabitEthernet {i}").into_boxed_str()));
        seq.extend(["qos wrr 0 group 1 byte-count 2", "qos wrr 1 group 1 byte-count 13"]);
        for q in 2..8 {
            seq.push(Box::leak(format!("qos wrr {q} group sp").into_boxed_str()));
        }
        seq.extend(["qos wred apply ROCELAB", "quit"]);
    }
    seq.push("save force");
    assert_sequence(&text, &seq);
    // The guide's, less rocelab's table and file names and the queue RoCE uses.
    let from_guide: Vec<&str> = seq
        .iter()
        .copied()
        .filter(|l| {
            !l.contains("ROCELAB") && !l.starts_with("queue 1") && !l.starts_with("lldp") && !l.starts_with("save")
        })
        .collect();
    seed_lists(DEMARTEK, &from_guide);
    // 87/13 cannot be exact with weights of 1-15: the rounding is reported, per port.
    assert!(
        findings
            .iter()
            .any(|w| w.port.as_deref() == Some("Ten-GigabitEthernet1/0/1") && w.message.contains("byte-count weights")),
        "{findings:?}"
    );
}

/// Arista/Pure guide: hosts send ToS 106 (DSCP 26), the leaf keeps DSCP 24 in traffic class 3,
/// ECN 256/512 KB at 100 % on tx-queue 3, PFC priority 3 no-drop, VXLAN ECN propagation.
const ARISTA_PURE: &str = include_str!("fabrics/arista-pure.yaml");

#[test]
fn seed_arista_pure_leaf() {
    let f = fabric(ARISTA_PURE);
    let (text, findings) = device_text(&f, "leaf3");
    assert_sequence(
        &text,
        &[
            "policy-map type quality-of-service pm-RoCE",
            "   class class-default",
            "      set dscp 24",
            "interface Ethernet51/1",
            "   switchport access vlan 111",
            "   service-policy type qos input pm-RoCE",
            "   tx-queue 3",
            "      random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0",
            "      random-detect ecn count",
        ],
    );
    assert_sequence(
        &text,
        &["interface Ethernet51/1", "   priority-flow-control on", "   priority-flow-control priority 3 no-drop"],
    );
    assert_sequence(&text, &["interface Vxlan1", "   vxlan qos ecn propagation"]);
    // All of it the guide's appendix (whose text reads `vxlan gos` for `vxlan qos`).
    seed_lists(
        ARISTA_PURE_SEED,
        &[
            "policy-map type quality-of-service pm-RoCE",
            "set dscp 24",
            "class class-default",
            "interface Ethernet51/1",
            "switchport access vlan 111",
            "service-policy type qos input pm-RoCE",
            "tx-queue 3",
            "random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0",
            "random-detect ecn count",
            "priority-flow-control on",
            "priority-flow-control priority 3 no-drop",
            "interface Vxlan1",
            "ecn propagation",
        ],
    );
    // The guide's class-default re-mark rewrites every packet on the port: said, not hidden.
    assert!(findings.iter().any(|w| w.message.contains("re-marks every packet")), "{findings:?}");
}

/// The Arista/Pure examples' ECN variants render the guide's thresholds: EOS `kbytes` are 1024
/// bytes, so the examples' 256KiB/512KiB are the guide's `256 kbytes`/`512 kbytes` (256KB would
/// render `250 kbytes`), on every switch port whose queue 3 has ECN, at both endpoint speeds.
#[test]
fn arista_pure_examples_render_the_guides_ecn_kbytes() {
    const GUIDE: &str =
        "random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0";
    seed_lists(ARISTA_PURE_SEED, &[GUIDE]);
    for example in ["arista-pure-leaf-spine-100g.yaml", "arista-pure-leaf-spine-25g.yaml"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(example);
        let loaded = rocelab_model::load_file(&path).unwrap_or_else(|d| panic!("{d}"));
        for variant in ["ecn", "ecn-edge-pfc"] {
            let f = loaded.variant(variant).unwrap_or_else(|d| panic!("{d}"));
            for sw in ["leaf1", "leaf3", "spine1", "spine2"] {
                let (text, _) = device_text(&f, sw);
                let tx3 = text.matches("   tx-queue 3\n").count();
                let guide = text.matches(&format!("      {GUIDE}\n")).count();
                assert!(tx3 > 0 && guide == tx3, "{example} {variant} {sw}: {guide} of {tx3} tx-queue 3 in\n{text}");
                assert!(!text.contains("250 kbytes"), "{example} {variant} {sw}");
            }
        }
    }
}

#[test]
fn seed_arista_pure_host_script() {
    let f = fabric(ARISTA_PURE);
    let (text, _) = device_text(&f, "init20-13-2");
    for port in ["eth1", "eth2"] {
        let mlnx = format!("mlnx_qos -i {port} --trust=dscp --pfc=0,0,0,1,0,0,0,0");
        assert_sequence(
            &text,
            &[
                &mlnx,
                "mkdir -p \"/sys/kernel/config/rdma_cm/$DEV/ports/1\"",
                "echo 106 > \"/sys/kernel/config/rdma_cm/$DEV/ports/1/default_roce_tos\"",
            ],
        );
    }
    // The guide's qos.sh loops over devices ($f) and interfaces ($i); the rest is the same text.
    seed_lists(
        ARISTA_PURE_SEED,
        &[
            "mlnx_qos -i $i --trust=dscp --pfc=0,0,0,1,0,0,0,0",
            "mkdir -p /sys/kernel/config/rdma_cm/$f/ports/1",
            "echo 106 > /sys/kernel/config/rdma_cm/$f/ports/1/default_roce_tos",
        ],
    );
}

/// Demartek guide, Linux Broadcom: the ifup-roce configfs script and the lldpad ETS/APP TLVs.
const DEMARTEK_BROADCOM: &str = r#"
fabric:
  name: demartek-broadcom
  topology:
    devices:
      - {name: sn2410, role: switch, platform: nvidia-onyx, model: SN2410}
      - {name: client-b, role: host, os: linux, nic: {vendor: broadcom, model: BCM957414A4142CC, speed: 25G, port_names: [ens1f0]}}
    links:
      - {a: "sn2410:eth1/1", b: "client-b:ens1f0"}
  qos:
    marking: pcp
    vlan: 2
    dcqcn: {enabled: true}
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 90, queue: 1}
      - {name: default, priority: 0, ets: 10}
"#;

#[test]
fn seed_demartek_broadcom_script() {
    let f = fabric(DEMARTEK_BROADCOM);
    let (text, _) = device_text(&f, "client-b");
    assert_sequence(
        &text,
        &[
            "ethtool -A ens1f0 autoneg off rx off tx off",
            "modprobe bnxt_re",
            "echo \"RoCE v2\" > \"/sys/kernel/config/rdma_cm/$DEV/ports/1/default_roce_mode\"",
            "mkdir -p \"/sys/kernel/config/bnxt_re/$DEV\"",
            "cd \"/sys/kernel/config/bnxt_re/$DEV/ports/1/cc/\"",
            "echo -n 0x1 > tos_ecn",
            "echo -n 0x0 > vlan_tx_disable",
            "echo -n 0x0 > alt_vlan_pcp",
            "echo -n 0x1 > cc_mode",
            "echo -n 0xc8 > tcp_cp",
            "echo -n 0x3 > nph_per_state",
            "echo -n 0x28 > rtt",
            "echo -n 0x3 > g",
            "echo -n 0x2 > init_cr",
            "echo -n 0xa > init_tr",
            "echo -n 0x1 > enable",
            "echo -n 0x1 > apply",
            "lldptool -L -i ens1f0 adminStatus=rxtx",
            "lldptool -T -i ens1f0 -V APP app=5,1,35093",
            "lldptool -T -i ens1f0 -V APP app=5,3,4791",
            // Eight tcbw values (the seed's text lost the last 0).
            "lldptool -T -i ens1f0 -V ETS-CFG tsa=\"0:ets,1:ets,2:strict,3:strict,4:strict,5:strict,6:strict,7:strict\" up2tc=0:0,1:0,2:0,3:0,4:0,5:1,6:0,7:0 tcbw=10,90,0,0,0,0,0,0",
        ],
    );
    // The guide's ifup-roce script and lldptool lines, less its extraction errors (`Oxa`, `Ox1`,
    // `eno1f0`, seven tcbw values) and its $IFACE for our interface.
    seed_lists(
        DEMARTEK,
        &[
            "ethtool -A $IFACE autoneg off rx off tx off",
            "modprobe bnxt_re",
            "echo RoCE v2 > /sys/kernel/config/rdma_cm/bnxt_re0/ports/1/default_roce_mode",
            "mkdir -p /sys/kernel/config/bnxt_re/bnxt_re0",
            "echo -n 0x1 > tos_ecn",
            "echo -n 0x0 > vlan_tx_disable",
            "echo -n 0x0 > alt_vlan_pcp",
            "echo -n 0x1 > cc_mode",
            "echo -n 0xc8 > tcp_cp",
            "echo -n 0x3 > nph_per_state",
            "echo -n 0x28 > rtt",
            "echo -n 0x3 > g",
            "echo -n 0x2 > init_cr",
            "echo -n 0x1 > apply",
            "lldptool -T -i ens1f0 -V APP app=5,1,35093",
            "lldptool -T -i ens1f0 -V APP app=5,3,4791",
            "tsa=\"0:ets,1:ets,2:strict,3:strict,4:strict,5:strict,6:strict,7:strict\" up2tc=0:0,1:0,2:0,3:0,4:0,5:1,6:0,7:0 tcbw=10,90,0,0,0,0,0",
        ],
    );
}

/// Demartek guide, Windows (Mellanox): NetQos on priority 5, ETS 95 %, DCQCN with Mlx5Cmd.
const DEMARTEK_WINDOWS: &str = r#"
fabric:
  name: demartek-windows
  topology:
    devices:
      - {name: sn2410, role: switch, platform: nvidia-onyx, model: SN2410}
      - {name: s2d-node1, role: host, os: windows, nic: {vendor: mellanox, model: ConnectX-5, speed: 100G, port_names: ["Ethernet 5"]}}
    links:
      - {a: "sn2410:eth1/49", b: "s2d-node1:Ethernet 5"}
  qos:
    marking: pcp
    vlan: 2
    dcqcn: {enabled: true}
    classes:
      - {name: roce, priority: 5, lossless: true, ets: 95}
      - {name: default, priority: 0, ets: 5}
"#;

#[test]
fn seed_demartek_windows_netqos() {
    let f = fabric(DEMARTEK_WINDOWS);
    let (text, _) = device_text(&f, "s2d-node1");
    assert_sequence(
        &text,
        &[
            "Remove-NetQosTrafficClass",
            "Remove-NetQosPolicy -Confirm:$False",
            "Set-NetQosDcbxSetting -Willing $false",
            "New-NetQosPolicy \"SMB\" -SMB -PriorityValue8021Action 5",
            "New-NetQosPolicy \"DEFAULT\" -Default -PriorityValue8021Action 0",
            "Disable-NetQosFlowControl -Priority 0,1,2,3,4,6,7",
            "Enable-NetQosFlowControl -Priority 5",
            "Enable-NetAdapterQos -InterfaceAlias \"Ethernet 5\"",
            "New-NetQosTrafficClass \"SMB\" -Priority 5 -BandwidthPercentage 95 -Algorithm ETS",
            "MLx5Cmd.exe -Qosconfig -Name \"Ethernet 5\" -Dcqcn -Enable 5",
        ],
    );
    // The guide's, less `-Priority` (its text has `Disable-NetQosFlowControl 0,1,2,3,4, 6,7`;
    // Microsoft documents the parameter) and the adapter names.
    seed_lists(
        DEMARTEK,
        &[
            "Remove-NetQosTrafficClass",
            "Remove-NetQosPolicy -Confirm:$False",
            "Set-NetQosDcbxSetting -Willing $false",
            "New-NetQosPolicy \"SMB\" -SMB -PriorityValue8021Action 5",
            "New-NetQosPolicy \"DEFAULT\" -Default -PriorityValue8021Action 0",
            "Disable-NetQosFlowControl 0,1,2,3,4,6,7",
            "Enable-NetQosFlowControl -Priority 5",
            "New-NetQosTrafficClass \"SMB\" -Priority 5 -BandwidthPercentage 95 -Algorithm ETS",
            "-Dcqcn -Enable 5",
        ],
    );
}

/// The SONiC benchmark's policy on two switches: DSCP trust, priority 3 lossless with ECN and
/// ETS 90/10, CNPs strict on priority 6.
const SONIC: &str = include_str!("fabrics/sonic-pair.yaml");

#[test]
fn unknown_switch_platform_lists_the_known_ones() {
    let yaml = DEMARTEK_ONYX
        .replace("platform: nvidia-onyx, model: SN2410", "platform: generic, ports: [{names: p1-2, speed: 25G}]")
        .replace("sn2410:eth1/1", "sn2410:p1")
        .replace("sn2410:eth1/2", "sn2410:p2");
    let f = fabric(&yaml);
    let (file, findings) = render_device(&f, "sn2410", &Templates::builtin()).unwrap();
    assert!(file.is_none());
    assert_eq!(findings.len(), 1);
    assert!(findings[0].is_error());
    assert_eq!(findings[0].device, "sn2410");
    assert!(findings[0].message.contains("cannot render platform `generic`"), "{}", findings[0].message);
    assert!(findings[0]
        .message
        .contains("nvidia-onyx, nvidia-cumulus, hpe-comware, arista-eos, sonic, cisco-nxos, dell-os10, dell-os9"));
    // The whole fabric still renders the others and says which device is missing.
    let r = render(&f, &Templates::builtin()).unwrap();
    assert_eq!(r.files.len(), 2);
    assert!(r.runbook.contains("Not rendered (see findings): sn2410"));
}

#[test]
fn unknown_device_suggests_close_names() {
    let f = fabric(DEMARTEK_ONYX);
    let e = render_device(&f, "sn2140", &Templates::builtin()).unwrap_err();
    assert_eq!(e.to_string().split(';').next().unwrap(), "no device `sn2140` in the fabric");
    assert!(e.to_string().contains("did you mean sn2410"), "{e}");
}

#[test]
fn dscp_fabric_on_windows_is_reported() {
    let yaml = DEMARTEK_WINDOWS
        .replace("marking: pcp\n    vlan: 2", "marking: dscp")
        .replace("priority: 5, lossless: true", "priority: 3, dscp: [26], lossless: true")
        .replace("priority: 0, ets: 5", "priority: 0, dscp: [0], ets: 5");
    let f = fabric(&yaml);
    let (text, findings) = device_text(&f, "s2d-node1");
    assert!(text.contains("New-NetQosPolicy \"SMB\" -SMB -PriorityValue8021Action 3"));
    let w = findings.iter().find(|w| w.message.contains("802.1p priority only")).expect("DSCP reported");
    assert_eq!(w.device, "s2d-node1");
    assert!(w.message.contains("DSCP 26"));
}

#[test]
fn onyx_dscp_outside_the_default_map_is_reported() {
    let yaml = ARISTA_PURE.replace("platform: arista-eos", "platform: nvidia-onyx").replace("dscp: [24]", "dscp: [46]");
    let f = fabric(&yaml);
    let (text, findings) = device_text(&f, "leaf3");
    assert!(text.contains("qos trust L3"));
    assert!(findings.iter().any(|w| w.message.contains("46→5")), "{findings:?}");
}

#[test]
fn storage_attach_uses_addresses_or_named_placeholders() {
    let yaml = r#"
fabric:
  name: store
  topology:
    devices:
      - {name: sw, role: switch, platform: sonic, ports: [{names: Ethernet0-8, speed: 25G}]}
      - {name: client, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G}}
      - {name: array-1, role: storage, os: appliance, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, addresses: [192.168.10.10/24]}, storage: {kind: array, protocols: [nvme-rdma]}}
      - {name: nfs-1, role: storage, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G}, storage: {kind: server, protocols: [nfs-rdma, iser]}}
    links:
      - {a: "sw:Ethernet0", b: "client:p0"}
      - {a: "sw:Ethernet1", b: "array-1:p0"}
      - {a: "sw:Ethernet2", b: "nfs-1:p0"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
      - {name: default, priority: 0, dscp: [0]}
"#;
    let f = fabric(yaml);
    let (text, _) = device_text(&f, "client");
    assert!(text.contains("nvme connect-all -t rdma -a 192.168.10.10 -s 4420 || [ $? -eq 114 ]"), "{text}");
    // The backticks escaped: inside the double quotes they would run `nfs-1` as a command.
    assert!(text.contains(
        ": \"${NFS_1_ADDR:?set NFS_1_ADDR to an address of storage target \\`nfs-1\\` on the storage network}\""
    ));
    assert!(text.contains("mount -o rdma,port=20049 ${NFS_1_ADDR}:${NFS_1_EXPORT} /mnt/nfs-1-rdma"));
    assert!(text.contains("iscsiadm -m iface -I iser -o update -n iface.transport_name -v iser"));
    // Safe to run again: a second login (iscsiadm's exit status 15, session exists), a mounted
    // share, a listening NFS-RDMA port and an existing portal are not errors.
    assert_sequence(
        &text,
        &[
            "iscsiadm -m node -p ${NFS_1_ADDR} -I iser -l || [ $? -eq 15 ]",
            "mountpoint -q /mnt/nfs-1-rdma || mount -o rdma,port=20049 ${NFS_1_ADDR}:${NFS_1_EXPORT} /mnt/nfs-1-rdma",
        ],
    );
    let (server, _) = device_text(&f, "nfs-1");
    assert!(
        server.contains("grep -qx \"rdma 20049\" /proc/fs/nfsd/portlist || echo rdma 20049 > /proc/fs/nfsd/portlist")
    );
    assert!(server.contains(
        "targetcli \"/iscsi/$IQN/tpg1/portals/${NFS_1_ADDR}:3260\" ls >/dev/null 2>&1 || targetcli \"/iscsi/$IQN/tpg1/portals\" create ${NFS_1_ADDR} 3260"
    ));
    assert!(server.contains("targetcli \"/iscsi/$IQN/tpg1/portals/${NFS_1_ADDR}:3260\" enable_iser true"));
    let r = render(&f, &Templates::builtin()).unwrap();
    assert!(r.runbook.contains("| `NFS_1_ADDR` |"));
    // The appliance gets no file, and a finding that says why.
    assert!(r.findings.iter().any(|w| w.device == "array-1" && w.message.contains("vendor's tools")));
}

#[test]
fn template_overrides_replace_built_ins_by_name() {
    let dir = std::env::temp_dir().join(format!("rocelab-config-tpl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("nvidia-onyx.j2"), "hostname {{ hostname }}: PFC on {{ pfc_priorities | join(\",\") }}\n")
        .unwrap();
    let t = Templates::with_overrides(&dir).unwrap();
    let f = fabric(DEMARTEK_ONYX);
    let (file, _) = render_device(&f, "sn2410", &t).unwrap();
    assert_eq!(file.unwrap().text, "hostname sn2410: PFC on 5\n");
    // A misspelt field is an error with the template's file and line, not an empty value.
    std::fs::write(dir.join("nvidia-onyx.j2"), "ok\n{{ hostnme }}\n").unwrap();
    let t = Templates::with_overrides(&dir).unwrap();
    let e = match render_device(&f, "sn2410", &t) {
        Err(rocelab_config::DeviceError::Template(e)) => e,
        other => panic!("{other:?}"),
    };
    assert!(e.location.ends_with("nvidia-onyx.j2:2"), "{e}");
    // A file that is no template's name is refused, with the names.
    std::fs::write(dir.join("onyx.j2"), "x").unwrap();
    let e = Templates::with_overrides(&dir).err().unwrap();
    assert!(e.message.contains("nvidia-onyx.j2, hpe-comware.j2"), "{e}");
    assert!(e.message.contains("cisco-nxos.j2, dell-os10.j2, dell-os9.j2"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_template_over_the_size_limit_is_refused() {
    let dir = std::env::temp_dir().join(format!("rocelab-config-tpl-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nvidia-onyx.j2");
    std::fs::write(&path, "x".repeat(rocelab_model::input::MAX_TEMPLATE_BYTES as usize + 1)).unwrap();
    let e = Templates::with_overrides(&dir).err().unwrap();
    assert_eq!(e.location, path.display().to_string());
    assert!(e.message.ends_with("is 1048577 bytes, more than the 1048576 bytes rocelab reads for a template; give the path of the right file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_is_deterministic() {
    let f = fabric(SONIC);
    let a = render(&f, &Templates::builtin()).unwrap();
    let b = render(&f, &Templates::builtin()).unwrap();
    assert_eq!(a.files, b.files);
    assert_eq!(a.runbook, b.runbook);
}

#[test]
fn golden_demartek_example() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demartek-config4-two-switch.yaml");
    let loaded = rocelab_model::load_file(&path).unwrap();
    let f = loaded.variant("congestion-dcqcn-ets").unwrap();
    let r = render(&f, &Templates::builtin()).unwrap();
    for file in &r.files {
        insta::assert_snapshot!(file.file_name.clone(), file.text);
    }
    insta::assert_snapshot!("RUNBOOK.md", r.runbook);
}

#[test]
fn sonic_fast_path_equals_the_template() {
    let f = fabric(SONIC);
    let leaf = f.switches().next().unwrap().name.clone();
    let Typed::Sonic(ctx) = typed(&f, &leaf) else { panic!("not sonic") };
    let via_template = Templates::builtin().render("sonic.j2", &Typed::Sonic(ctx.clone())).unwrap();
    assert_eq!(rocelab_config::sonic_json(&ctx.config_db), via_template);
}

#[test]
fn sonic_ports_needing_other_headroom_get_a_profile_of_their_own() {
    // Two 25G host ports with the same cable and MTU; one has a headroom override. Before, the
    // shared profile name silently carried one port's headroom for both.
    let yaml = format!("{SONIC}    ports:\n      - {{ports: [\"leaf1:Ethernet4\"], headroom: 40000B}}\n");
    let f = fabric(&yaml);
    let Typed::Sonic(ctx) = typed(&f, "leaf1") else { panic!("not sonic") };
    let c = &ctx.config_db;
    let profile = |port: &str| {
        let key = rocelab_config::sonic::PortIndex { port: rocelab_config::sonic::PortName(port.into()), index: 3 };
        c.buffer_pg[&key].profile.to_string()
    };
    assert_eq!(profile("Ethernet0"), "pg_lossless_25000_3m_9100_profile");
    assert_eq!(profile("Ethernet4"), "pg_lossless_25000_3m_9100_xoff40000_profile");
    assert_eq!(c.buffer_profile["pg_lossless_25000_3m_9100_xoff40000_profile"]["xoff"], "40000");
    assert_ne!(c.buffer_profile["pg_lossless_25000_3m_9100_profile"]["xoff"], "40000");
}

#[test]
fn a_large_fabric_renders_on_threads_as_one_device_at_a_time() {
    // 300 devices: past the size from which `render` uses every core. Each file must be what
    // the single-device path gives, in device order.
    let yaml = SONIC.replace("leaves: 2, spines: 1, hosts_per_leaf: 2", "leaves: 12, spines: 3, hosts_per_leaf: 24");
    let f = fabric(&yaml);
    assert!(f.devices.len() >= 300);
    let t = Templates::builtin();
    let r = render(&f, &t).unwrap();
    assert_eq!(r.files.len(), f.devices.len());
    let mut findings = Vec::new();
    for (file, d) in r.files.iter().zip(&f.devices) {
        let (one, w) = render_device(&f, &d.name, &t).unwrap();
        assert_eq!(Some(file), one.as_ref(), "{}", d.name);
        findings.extend(w);
    }
    assert_eq!(r.findings, findings);
    assert_eq!(
        r.runbook.matches("\n### ").count(),
        2 * f.devices.len() - 15,
        "switch step per switch, adapter + host step per host"
    );
}
