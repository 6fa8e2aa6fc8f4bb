//! The examples against their seeds: each test asserts the facts the seed states.

use super::*;
use rocelab_model::fabric::{Platform, RdmaKind, StorageProtocol};
use rocelab_model::{PortSettings, ResolvedFabric};

fn example(name: &str) -> Loaded {
    let path = workspace().join("examples").join(format!("{name}.yaml"));
    rocelab_model::load_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `(port label, port label, speed)` of every link between devices `a` and `b`, `a`'s end first.
fn links(f: &ResolvedFabric, a: &str, b: &str) -> Vec<(String, String, String)> {
    let dev = |id: rocelab_model::PortId| f.devices[id.device].name.as_str();
    f.links
        .iter()
        .filter_map(|l| match (dev(l.a), dev(l.b)) {
            (x, y) if x == a && y == b => Some((f.port_label(l.a), f.port_label(l.b), l.speed.to_string())),
            (x, y) if x == b && y == a => Some((f.port_label(l.b), f.port_label(l.a), l.speed.to_string())),
            _ => None,
        })
        .collect()
}

fn settings(f: &ResolvedFabric, label: &str) -> PortSettings {
    let (d, p) = label.split_once(':').unwrap();
    let di = f.devices.iter().position(|x| x.name == d).unwrap();
    let pi = f.devices[di].ports.iter().position(|x| x.name == p).unwrap();
    f.port_settings(rocelab_model::PortId { device: di, port: pi })
}

/// (PFC, ETS, ECN kmin/kmax) of class `class` (index) on a port.
fn class_on(f: &ResolvedFabric, label: &str, class: usize) -> (bool, Option<u8>, Option<(String, String)>) {
    let c = &settings(f, label).classes[class];
    (c.pfc, c.ets, c.ecn.as_ref().map(|e| (e.kmin.to_string(), e.kmax.to_string())))
}

fn model_of(f: &ResolvedFabric, name: &str) -> (Option<Platform>, String) {
    let d = f.device(name).unwrap();
    (d.platform, d.model.clone().unwrap_or_default())
}

/// Demartek: RoCE on priority 5 in VLAN 2, lossless, the rest priority 0; no MTU configured.
fn assert_demartek_policy(f: &ResolvedFabric) {
    let q = &f.qos;
    assert_eq!((q.marking, q.vlan, q.mtu), (rocelab_model::qos::Marking::Pcp, Some(2), 1500));
    let roce = q.class("roce").unwrap();
    assert!(roce.lossless && roce.priority == 5 && roce.dscp.is_empty() && !q.pfc.link_pause);
    assert!(!q.class("default").unwrap().lossless && q.class("default").unwrap().priority == 0);
    assert!(q.cnp_class().is_none());
}

#[test]
fn demartek_config4_is_two_switches_and_one_40g_link() {
    let l = example("demartek-config4-two-switch");
    let f = &l.fabric;
    assert_demartek_policy(f);
    assert_eq!(model_of(f, "sn2410"), (Some(Platform::NvidiaOnyx), "SN2410".into()));
    assert_eq!(model_of(f, "hpe5900"), (Some(Platform::HpeComware), "JG838A".into()));
    assert_eq!(
        links(f, "sn2410", "hpe5900"),
        [("sn2410:eth1/49".into(), "hpe5900:FortyGigE1/0/49".into(), "40G".into())]
    );
    // One S2D node and two iperf servers on each switch.
    for (sw, hosts) in [("sn2410", ["s2d-node1", "iperf1", "iperf2"]), ("hpe5900", ["s2d-node2", "iperf3", "iperf4"])] {
        for h in hosts {
            assert_eq!(links(f, sw, h).len(), 1, "{h} on {sw}");
        }
    }
    assert_eq!(f.device("iperf1").unwrap().nics[0].rdma_kind(), RdmaKind::None);
    assert_eq!(l.variant_names(), ["baseline", "congestion", "congestion-dcqcn-ets"]);
    // PFC only in the first two runs.
    assert!(!f.dcqcn.reaction_point && f.qos.classes.iter().all(|c| c.ets.is_none() && c.ecn.is_none()));
    let v = l.variant("congestion-dcqcn-ets").unwrap();
    assert!(v.dcqcn.notification_point && v.dcqcn.reaction_point);
    let ecn = Some(("150KB".to_string(), "1500KB".to_string()));
    assert_eq!(class_on(&v, "sn2410:eth1/49", 0), (true, Some(90), ecn));
    assert_eq!(class_on(&v, "sn2410:eth1/49", 1).1, Some(10));
    // HPE WRR byte-count 13:2, and no ECN on the queue RoCE uses (the guide's WRED is on queue 5).
    assert_eq!(class_on(&v, "hpe5900:FortyGigE1/0/49", 0), (true, Some(87), None));
    assert_eq!(class_on(&v, "s2d-node1:p0", 0).1, Some(95));
}

#[test]
fn demartek_configs_1_2_3_5_have_the_stated_adapters_and_placement() {
    let c1 = example("demartek-config1-mellanox-cavium").fabric;
    let c2 = example("demartek-config2-cavium-broadcom").fabric;
    let c3 = example("demartek-config3-iometer-two-switch").fabric;
    let c5 = example("demartek-config5-linux-iser-nfs").fabric;
    for f in [&c1, &c2, &c3, &c5] {
        assert_demartek_policy(f);
        assert_eq!(model_of(f, "sn2410").1, "SN2410");
    }
    // 1: a 100GbE Mellanox node and a 4x25GbE Cavium node, both on the one SN2410.
    assert_eq!(
        (c1.switches().count(), c1.device("s2d-node1").unwrap().nics[0].model.as_str()),
        (1, "ConnectX-5 MCX515A")
    );
    assert_eq!(links(&c1, "sn2410", "s2d-node1")[0].2, "100G");
    let cavium = links(&c1, "sn2410", "s2d-node2");
    assert!(cavium.len() == 4 && cavium.iter().all(|l| l.2 == "25G"), "{cavium:?}");
    // 2: a 100GbE Cavium node and a 2x25GbE Broadcom node: half the bandwidth.
    assert_eq!(c2.device("s2d-node1").unwrap().nics[0].model, "FastLinQ QL45611HLCU");
    assert_eq!(links(&c2, "sn2410", "s2d-node1")[0].2, "100G");
    assert_eq!(links(&c2, "sn2410", "s2d-node2").iter().map(|l| l.2.as_str()).collect::<Vec<_>>(), ["25G", "25G"]);
    // 3 and 5: file server / clients on the Mellanox switch, client / target on the HPE, 40GbE ISL.
    for f in [&c3, &c5] {
        assert_eq!(links(f, "sn2410", "hpe5900")[0].2, "40G");
    }
    assert_eq!(c3.device("file-server").unwrap().storage.as_ref().unwrap().protocols, [StorageProtocol::SmbDirect]);
    assert_eq!((links(&c3, "sn2410", "file-server").len(), links(&c3, "hpe5900", "iometer-client").len()), (1, 1));
    let m = links(&c5, "sn2410", "client-mellanox");
    assert_eq!(
        m.iter().map(|l| l.1.as_str()).collect::<Vec<_>>(),
        ["client-mellanox:ens15f0", "client-mellanox:ens15f1"]
    );
    assert_eq!(links(&c5, "sn2410", "client-broadcom").len(), 2);
    assert_eq!(links(&c5, "hpe5900", "target")[0].1, "target:p6p1");
    let t = c5.device("target").unwrap();
    assert_eq!(
        (t.nics[0].vendor, t.storage.as_ref().unwrap().protocols.len()),
        (rocelab_model::fabric::NicVendor::Marvell, 4)
    );
    // "configured for VLAN PFC, ETS, and DCQCN"
    assert!(c5.dcqcn.notification_point && c5.dcqcn.reaction_point);
    assert_eq!(class_on(&c5, "sn2410:eth1/1", 0).1, Some(90));
    assert_eq!(class_on(&c5, "hpe5900:FortyGigE1/0/50", 0), (true, Some(87), None));
}

#[test]
fn arista_pure_topologies_speeds_and_dscp_policy() {
    for speed in ["25G", "100G"] {
        let s = speed.to_lowercase();
        for topo in ["direct", "single-hop", "leaf-spine"] {
            let l = example(&format!("arista-pure-{topo}-{s}"));
            let f = &l.fabric;
            let q = &f.qos;
            assert_eq!((q.marking, q.effective_roce_tos()), (rocelab_model::qos::Marking::Dscp, Some(106)));
            let c = q.class("nvme-roce").unwrap();
            assert!(c.priority == 3 && c.lossless && c.dscp.contains(&26) && c.dscp.contains(&24), "{c:?}");
            assert!(f.dcqcn.reaction_point && f.dcqcn.notification_point);
            let array = f.device("flasharray").unwrap();
            let t = array.storage.as_ref().unwrap();
            assert!(t.product.as_deref().unwrap().contains("FlashArray//X"));
            assert_eq!(t.protocols, [StorageProtocol::NvmeRdma, StorageProtocol::Iscsi]);
            let hosts: Vec<_> = f.hosts().filter(|d| d.role == Role::Host).collect();
            assert_eq!(hosts.len(), 4);
            assert!(hosts.iter().chain([&array]).all(|d| d.nics.iter().all(|n| n.model == "ConnectX-5")));
            // Only endpoint links change speed; leaf-spine links stay at 100G.
            for k in &f.links {
                let ends = [f.devices[k.a.device].role, f.devices[k.b.device].role];
                let want =
                    if ends.contains(&Role::Switch) && !ends.contains(&Role::Host) && !ends.contains(&Role::Storage) {
                        "100G"
                    } else {
                        speed
                    };
                assert_eq!(k.speed.to_string(), want, "{topo} {speed}");
            }
            match topo {
                "direct" => assert_eq!((f.switches().count(), links(f, "init1", "flasharray").len()), (0, 1)),
                "single-hop" => {
                    assert_eq!(model_of(f, "sw1"), (Some(Platform::AristaEos), "7050SX3-48YC12".into()));
                    assert!(c.ecn.is_none(), "single hop: only PFC in the switch");
                }
                _ => check_leaf_spine(&l),
            }
        }
    }
}

fn check_leaf_spine(l: &Loaded) {
    let f = &l.fabric;
    for leaf in ["leaf1", "leaf2", "leaf3"] {
        assert_eq!(model_of(f, leaf), (Some(Platform::AristaEos), "7050SX3-48YC12".into()));
        assert!(f.device(leaf).unwrap().vxlan.unwrap().ecn_propagation);
        for spine in ["spine1", "spine2"] {
            assert_eq!(model_of(f, spine).1, "7050CX3-32S");
            assert_eq!(links(f, leaf, spine).len(), 1);
        }
    }
    let array: Vec<String> = links(f, "leaf3", "flasharray").into_iter().map(|k| k.0).collect();
    assert_eq!(array, ["leaf3:Ethernet51/1", "leaf3:Ethernet52/1", "leaf3:Ethernet53/1", "leaf3:Ethernet54/1"]);
    assert_eq!(l.variant_names(), ["pfc", "ecn", "ecn-edge-pfc", "iscsi"]);
    // The guide's `256 kbytes`/`512 kbytes`, EOS kbytes of 1024 bytes.
    let ecn = Some(("256KiB".to_string(), "512KiB".to_string()));
    // PFC alone: PFC everywhere, no ECN.
    let v = l.variant("pfc").unwrap();
    assert_eq!(class_on(&v, "spine1:Ethernet1/1", 0), (true, None, None));
    // ECN alone on the switches; the endpoints keep PFC.
    let v = l.variant("ecn").unwrap();
    assert_eq!(class_on(&v, "leaf3:Ethernet51/1", 0), (false, None, ecn.clone()));
    assert_eq!(class_on(&v, "spine2:Ethernet3/1", 0), (false, None, ecn.clone()));
    assert!(class_on(&v, "flasharray:ct0.eth10", 0).0);
    // ECN everywhere, PFC only on leaf ports facing endpoints.
    let v = l.variant("ecn-edge-pfc").unwrap();
    assert_eq!(class_on(&v, "leaf3:Ethernet51/1", 0), (true, None, ecn.clone()));
    assert!(class_on(&v, "leaf1:Ethernet52/1", 0).0);
    for uplink in ["leaf1:Ethernet49/1", "leaf3:Ethernet50/1", "spine1:Ethernet2/1"] {
        assert_eq!(class_on(&v, uplink, 0), (false, None, ecn.clone()), "{uplink}");
    }
}

#[test]
fn oracle_two_senders_one_receiver_one_switch() {
    let l = example("oracle-ofa2017-two-to-one");
    let f = &l.fabric;
    assert_eq!(f.switches().count(), 1);
    assert_eq!(model_of(f, "spectrum").0, Some(Platform::NvidiaOnyx));
    assert!(f.hosts().all(|h| h.nics[0].model == "ConnectX-4"));
    for h in ["sender-lat", "sender-bw", "receiver"] {
        assert_eq!(links(f, "spectrum", h)[0].2, "100G");
    }
    let (lat, bw) = (f.qos.class("lat").unwrap(), f.qos.class("bw").unwrap());
    assert_eq!((lat.priority, bw.priority, lat.lossless && bw.lossless), (3, 4, true));
    // perftest as the slides ran it: ib_write_bw from sender-bw, ib_write_lat from sender-lat.
    let tests = |v: &str| {
        let (s, _) = l.variant_scenario(v).unwrap();
        s.workloads
            .perftest
            .iter()
            .map(|x| (x.name.clone(), x.test, x.client.clone(), x.server.clone(), x.class.clone()))
            .collect::<Vec<_>>()
    };
    let both = |lat_class: &str| {
        vec![
            ("ib_write_bw".to_string(), PerftestTest::WriteBw, "sender-bw".into(), "receiver".into(), "bw".into()),
            ("ib_write_lat".into(), PerftestTest::WriteLat, "sender-lat".into(), "receiver".into(), lat_class.into()),
        ]
    };
    assert_eq!(tests("baseline"), both("lat")[1..]);
    assert_eq!(tests("different-priority-ecn"), both("lat"));
    assert_eq!(tests("same-priority-no-ecn"), both("bw"));
    // perftest's defaults for ib_write_lat: 2-byte messages.
    assert_eq!(l.scenario.workloads.perftest[1].size_bytes(), 2);
    for (v, ecn) in [("same-priority-ecn", true), ("same-priority-no-ecn", false), ("different-priority-no-ecn", false)]
    {
        let q = l.variant(v).unwrap().qos;
        assert_eq!(q.classes.iter().filter(|c| c.ecn.is_some()).count(), if ecn { 2 } else { 0 }, "{v}");
    }
}

#[test]
fn dell_equallogic_iscsi_without_dcb() {
    let base = example("dell-equallogic-base-san");
    let cong = example("dell-equallogic-congested-san");
    for l in [&base, &cong] {
        let f = &l.fabric;
        assert!(f.switches().all(|s| s.platform == Some(Platform::DellOs9) && s.model.as_deref() == Some("S4810")));
        assert!(!f.qos.pfc.enabled && f.qos.classes.iter().all(|c| !c.lossless && c.priority == 0));
        // 802.3x flow control on every cabled port, jumbo frames in the baseline.
        for k in &f.links {
            assert!(f.port_settings(k.a).link_pause && f.port_settings(k.b).link_pause);
        }
        assert_eq!(f.qos.mtu, 9000);
        assert_eq!(l.variant("standard-frames").unwrap().qos.mtu, 1500);
        assert!(rocelab_model::display::summary(f).contains("802.3x link pause on"));
        let intel = l.variant("intel-x520").unwrap();
        assert_eq!(intel.device("host").unwrap().nics[0].vendor, rocelab_model::fabric::NicVendor::Intel);
        // Test cases 4 and 5: one host TCP stack option each, the members untouched.
        let tcp = |v: &str, d: &str| l.variant(v).unwrap().device(d).unwrap().tcp.clone().unwrap_or_default();
        assert_eq!(tcp("no-window-scaling", "host").window_scaling, Some(false));
        assert_eq!(tcp("reno", "host").congestion_control, Some(rocelab_model::storage::CongestionControl::NewReno));
        assert_eq!(tcp("reno", "member1").congestion_control, None);
        for m in f.hosts().filter(|d| d.role == Role::Storage) {
            assert_eq!(m.storage.as_ref().unwrap().profile, Some(rocelab_model::storage::StorageProfile::DellPs6110xv));
        }
    }
    // Base: two switches, each with one host port and one single-port member (1:1).
    let f = &base.fabric;
    for (sw, member) in [("san-sw1", "member1"), ("san-sw2", "member2")] {
        assert_eq!((links(f, sw, "host").len(), links(f, sw, member).len()), (1, 1));
    }
    // Congested: four 10G array ports into one 10G host port through one switch (4:1).
    let f = &cong.fabric;
    assert_eq!(f.switches().count(), 1);
    let arrays: Vec<_> = f.hosts().filter(|d| d.role == Role::Storage).collect();
    assert_eq!(arrays.len(), 4);
    for a in &arrays {
        assert_eq!(links(f, "san-sw1", &a.name).iter().map(|k| k.2.as_str()).collect::<Vec<_>>(), ["10G"]);
    }
    assert_eq!(links(f, "san-sw1", "host").iter().map(|k| k.2.as_str()).collect::<Vec<_>>(), ["10G"]);
}

#[test]
fn s2d_fastlinq_iwarp_roce_and_both() {
    let l = example("microsoft-s2d-fastlinq-iwarp-roce");
    let rdma = |f: &ResolvedFabric| f.hosts().map(|h| h.nics[0].rdma_kind()).collect::<Vec<_>>();
    let f = &l.fabric;
    assert_eq!(model_of(f, "tor").0, Some(Platform::Generic));
    for h in ["node1", "node2", "node3", "node4"] {
        let n = &f.device(h).unwrap().nics[0];
        assert_eq!((n.model.as_str(), n.ports, n.speed.to_string()), ("FastLinQ QL41262H", 2, "25G".into()));
        assert_eq!(links(f, "tor", h).len(), 2);
    }
    assert_eq!(rdma(f), [RdmaKind::RoceV2; 4]);
    assert!(f.qos.pfc.enabled && f.qos.class("smb-direct").unwrap().lossless);
    // "iWARP is without any DCB configuration".
    let v = l.variant("iwarp").unwrap();
    assert_eq!(rdma(&v), [RdmaKind::Iwarp; 4]);
    assert!(!v.qos.pfc.enabled && v.qos.lossless_classes().count() == 0);
    let v = l.variant("iwarp-and-roce").unwrap();
    assert_eq!(rdma(&v), [RdmaKind::RoceAndIwarp; 4]);
    assert!(v.qos.pfc.enabled);
}

/// The tuning examples: the web-search one is 320 hosts searching ECN per port speed and DCQCN
/// for the small flows' tail; the Demartek one searches the SN2410's ECN for two storage
/// objectives. Every range's ends apply to the fabric as written.
#[test]
fn the_tuning_examples_search_ecn_and_dcqcn_and_every_range_applies() {
    use rocelab_model::tune::{Direction, Metric};
    let web = example("tune-websearch-ecn-dcqcn");
    assert_eq!(web.fabric.hosts().count(), 320);
    let t = web.scenario.tune.as_ref().unwrap();
    let paths: Vec<&str> = t.parameters.iter().map(|p| p.path.as_str()).collect();
    assert!(
        paths.contains(&"fabric.qos.classes[roce].ecn.100G.kmin")
            && paths.contains(&"fabric.qos.classes[roce].ecn.400G.kmax")
    );
    assert!(paths.contains(&"fabric.qos.dcqcn.rate_increase_timer") && paths.contains(&"fabric.qos.dcqcn.g"));
    assert_eq!(
        (t.objective[0].metric, t.objective[0].flows_under.map(|s| s.as_bytes())),
        (Metric::FctSlowdownP99, Some(100_000))
    );
    assert!(web.tune_problems().0.is_empty(), "{:#?}", web.tune_problems());
    let dem = example("tune-demartek-congestion");
    let t = dem.scenario.tune.as_ref().unwrap();
    assert_eq!(
        t.objective.iter().map(|o| (o.metric, o.direction)).collect::<Vec<_>>(),
        [(Metric::StorageIops, Direction::Maximize), (Metric::StorageClatP99Us, Direction::Minimize)]
    );
    assert!(dem.tune_problems().0.is_empty(), "{:#?}", dem.tune_problems());
}
