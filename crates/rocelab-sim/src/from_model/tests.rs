use super::*;
use rocelab_model::headroom::{required_headroom, HeadroomInput, Response};

const FABRIC: &str = r#"fabric:
  name: t
  topology:
    generator:
      single-switch: {hosts: 3, speed: 100G, cable: 100m, switch: {model: SN2700}}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 60, ecn: {kmin: 100KB, kmax: 400KB, pmax: 0.2}}
      - {name: cnp, priority: 6, dscp: [48], strict: true, cnp: true}
      - {name: default, priority: 0, dscp: [0], ets: 40}
    ports:
      - {ports: ["host3:p0", "sw1:eth1/3"], pfc: {roce: false}}
workloads:
  incast:
    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB}
"#;

fn built() -> (Built, ResolvedFabric) {
    let l = rocelab_model::load_str(FABRIC, "t.yaml", std::path::Path::new(".")).unwrap();
    (build(&l.scenario, &l.fabric, Some(9)), l.fabric)
}

#[test]
fn switch_follows_the_model() {
    let (b, f) = built();
    let NodeKind::Switch(sw) = &b.spec.nodes[0].kind else { panic!("sw1 first") };
    assert_eq!(sw.buffer.size_bytes, 16_000_000, "SN2700's buffer from the catalog");
    assert_eq!(sw.qos.trust, Trust::Dscp);
    assert_eq!(sw.qos.dscp_to_priority.0[26], 3);
    assert_eq!(sw.qos.dscp_to_priority.0[48], 6);
    assert_eq!(sw.ports.len(), 3, "only cabled ports");
    let p0 = &sw.ports[0];
    assert!(p0.pfc.enabled.contains(3) && !p0.pfc.enabled.contains(0));
    assert_eq!(p0.tcs[3].tsa, Tsa::Ets(60));
    assert_eq!(p0.tcs[6].tsa, Tsa::Strict);
    assert_eq!(p0.tcs[3].ecn.unwrap().kmax_bytes, 400_000);
    // The headroom is the verifier's figure for a 100 m, 100G, 9000-byte link.
    let link = &f.links[0];
    let want = required_headroom(&HeadroomInput {
        speed: link.speed,
        cable: link.cable,
        receiver_mtu: 9000,
        sender_mtu: 9000,
        response: Response::Time(f.qos.pfc.response_time),
    })
    .bytes;
    assert_eq!(p0.pgs[3].headroom_bytes, want);
    assert!(p0.pgs[3].lossless && !p0.pgs[0].lossless);
    // PFC off on the override.
    assert!(!sw.ports[2].pfc.enabled.contains(3));
}

#[test]
fn rdma_workloads_become_queue_pairs_and_perftest_runs() {
    let text = FABRIC.replace("    ports:\n", "    dcqcn: {enabled: true, profile: nvidia-connectx}\n    ports:\n")
            + "  flows:\n    - {name: r, from: host1, to: host3, class: roce, op: read, size: 1MB}\n    - {name: o, from: host2, to: host3, class: default, transport: raw}\n  perftest:\n    - {name: lat, test: write_lat, client: host1, server: host2, class: roce}\n    - {name: bw, test: send_bw, client: host2, server: host1, class: roce, qps: 2, size: 4KiB}\n";
    let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap();
    let b = build(&l.scenario, &l.fabric, None);
    let t = &b.traffic;
    // The incast and the flow between RoCE hosts run over RC; `transport: raw` stays open loop.
    assert_eq!((t.flows[0].rc_flow().unwrap().op, t.flows[0].size_bytes), (RdmaOp::Read, Some(1_000_000)));
    assert!(t.flows[1].rc_flow().is_none());
    assert!(t.flows[2].rc_flow().is_some_and(|r| r.op == RdmaOp::Write));
    assert_eq!(t.flows[0].payload_bytes, 4096, "the RoCE path MTU of a 9000-byte port MTU");
    // perftest: defaults and names of the QP flows.
    let (lat, bw) = (&t.perftest[0], &t.perftest[1]);
    assert_eq!((lat.test, lat.size, lat.length), (PerftestKind::WriteLat, 2, PerftestLength::Iterations(1000)));
    assert_eq!((bw.test, bw.size, bw.qps, bw.tx_depth), (PerftestKind::SendBw, 4096, 2, 128));
    assert_eq!(&b.names.flows[4..], ["lat", "lat#pong", "bw#qp0", "bw#qp1"]);
    assert_eq!(b.names.perftest, ["lat", "bw"]);
    // Hosts: the generated ConnectX adapters get the calibrated profile, DCQCN the
    // ConnectX parameters, CNPs the fabric's CNP class.
    let NodeKind::Host(h) = &b.spec.nodes[1].kind else { panic!("host1") };
    assert_eq!(h.nic.profile.name, "connectx-4");
    assert_eq!(h.latency_ps, NicProfile::connectx4().rx_latency_ps);
    let crate::cc::CcAlgorithm::Dcqcn(p) = h.nic.cc else { panic!("DCQCN on") };
    assert_eq!(p.rate_increase_timer_ps, 300 * crate::US);
    assert_eq!((h.nic.cnp_class.priority, h.nic.cnp_class.dscp, h.nic.cnp_class.tagged), (6, 48, false));
    assert!(h.nic.notification_point && h.nic.reaction_point);
    let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 2 * crate::MS, ..b.config }).unwrap();
    r.check_conservation().unwrap();
    assert_eq!(r.perftest.len(), 2);
}

#[test]
fn poisson_and_repeated_incasts_become_flows() {
    let text = FABRIC.replace(
            "    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB}\n",
            "    - {name: in, senders: [host1-2], receiver: host3, class: roce, size: 64KiB, every: 100us, count: 3}\npoisson:\n    - {name: bg, class: roce, load: 0.5, cdf: [[1000, 0], [3000, 100]], duration: 1ms}\n",
        )
        .replace("poisson:", "  poisson:");
    let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let b = build(&l.scenario, &l.fabric, Some(3));
    let incast: Vec<&FlowSpec> = b.traffic.flows[..6].iter().collect();
    let starts: Vec<u64> = incast.iter().map(|f| f.start_ps).collect();
    assert_eq!(starts, [0, 0, 100_000_000, 100_000_000, 200_000_000, 200_000_000]);
    let ports: Vec<u16> = incast.iter().map(|f| f.udp_src_port).collect();
    assert_eq!(ports, [49152, 49153, 49154, 49155, 49156, 49157], "a QP per sender and round");
    assert!(b.names.dports[..6].iter().all(|&p| p == DPORT_INCAST));
    // 3 hosts at 100G, half load, 2 KB mean, 1 ms: about 9,375 flows.
    let bg = &b.traffic.flows[6..];
    assert!((8_800..10_000).contains(&bg.len()), "{}", bg.len());
    assert!(bg.iter().all(|f| f.start_ps < 1_000_000_000 && (1000..=3000).contains(&f.size_bytes.unwrap())));
    assert!(bg.iter().all(|f| f.payload_bytes == 4096 && f.class.priority == 3));
    assert_eq!(b.names.flow(6), "bg#6");
    assert_eq!(b.names.dport(6), DPORT_BACKGROUND);
    assert_eq!(b.names.dports.len(), b.traffic.flows.len());
    // Same seed, same flows; the scenario seed is used without an override.
    assert_eq!(build(&l.scenario, &l.fabric, Some(3)).traffic, b.traffic);
    assert_ne!(build(&l.scenario, &l.fabric, Some(4)).traffic, b.traffic);
}

#[test]
fn jobs_become_sessions_named_flows_and_results() {
    let text = FABRIC.replace(
            "      single-switch: {hosts: 3, speed: 100G, cable: 100m, switch: {model: SN2700}}\n",
            "      single-switch: {hosts: 3, speed: 100G, cable: 100m, switch: {model: SN2700}}\n    devices:\n      - name: array\n        role: storage\n        nic: {vendor: mellanox, model: ConnectX-5, speed: 100G}\n        storage: {kind: array, protocols: [nvme-rdma, iscsi], profile: ramdisk, model: {write_limit: 8G}}\n        cpu: {cores: 4}\n    links:\n      - {a: \"sw1:eth1/4\", b: \"array:p0\"}\n",
        ) + "  jobs:\n    - {name: w, rw: randwrite, bs: 4KiB, iodepth: 2, numjobs: 3, runtime: 100us, protocol: nvme-rdma, initiator: host1-2, target: array}\n";
    let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let b = build(&l.scenario, &l.fabric, None);
    let st = &b.traffic.storage;
    assert_eq!(b.names.jobs, ["w@host1", "w@host2"]);
    // NVMe/RDMA: a queue per CPU (16 by default on the hosts), three clones each: three
    // sessions per host, each with its SEND and response queue pairs (4 KiB: no READ).
    assert_eq!(st.sessions.len(), 6);
    assert_eq!(b.traffic.flows.len(), 2 + 12, "the incast's flows, then the sessions'");
    assert_eq!(b.names.flows[2], "nvme-rdma host1>array s0 send");
    assert_eq!(b.names.flows[3], "nvme-rdma host1>array s0 respond");
    assert_eq!(b.names.flows.len(), b.traffic.flows.len());
    let array = l.fabric.devices.iter().position(|d| d.name == "array").unwrap();
    assert_eq!(st.cores_of(array), 4);
    let dev = st.target_of(array).unwrap();
    assert_eq!((dev.name, dev.write_ceiling_bps), ("ramdisk", Some(8_000_000_000)));
    // Sessions take the array's cores in turn.
    let cores: Vec<u32> = st.sessions.iter().map(|s| s.target_core).collect();
    assert_eq!(cores, [0, 1, 2, 3, 0, 1]);
    let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 200 * crate::US, ..b.config }).unwrap();
    r.check_conservation().unwrap();
    assert_eq!(r.jobs.len(), 2);
    assert!(r.jobs.iter().all(|j| j.write.total_ios > 0 && j.numjobs == 3 && j.sessions == 3));
    assert_eq!(r.targets[0].profile, "ramdisk");
    // A TCP protocol: one iSCSI session per host (open-iscsi's one session), each a TCP
    // connection to the array's port 3260 instead of queue pairs.
    // (The target's 36 µs of iSCSI work per IO on the session's core makes an IO take
    // longer than 100 µs: a 1 ms run.)
    let tcp = text.replace("protocol: nvme-rdma", "protocol: iscsi").replace("runtime: 100us", "runtime: 1ms");
    let l = rocelab_model::load_str(&tcp, "t.yaml", std::path::Path::new(".")).unwrap();
    let b = build(&l.scenario, &l.fabric, None);
    assert_eq!(b.traffic.flows.len(), 2, "the incast's flows only");
    let st = &b.traffic.storage;
    assert_eq!(st.sessions.len(), 2);
    assert!(st.sessions.iter().all(|s| s.transport == crate::storage::plan::StorageTransport::Tcp));
    let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 1200 * crate::US, ..b.config }).unwrap();
    r.check_conservation().unwrap();
    assert!(r.jobs.iter().all(|j| j.write.total_ios > 10 && j.sessions == 1), "{:?}", r.jobs);
    assert_eq!(r.tcp_connections.len(), 2);
    assert!(r.tcp_connections.iter().all(|c| c.ends[1].port == 3260 && c.ends[1].node == array));
}

#[test]
fn traffic_and_warnings_follow_the_workloads() {
    let (b, _) = built();
    assert_eq!(b.traffic.flows.len(), 2);
    assert_eq!(b.names.flows, ["in#0", "in#1"]);
    let flow = &b.traffic.flows[0];
    assert_eq!((flow.class.priority, flow.class.dscp, flow.size_bytes), (3, 26, Some(65536)));
    assert_eq!(b.config.seed, 9);
    let w: Vec<(&str, Option<&str>, &str)> =
        b.warnings.iter().map(|w| (w.device.as_str(), w.port.as_deref(), w.id.as_str())).collect();
    assert_eq!(w, [("sw1", Some("eth1/3"), "PFC-MISSING")], "{:?}", b.warnings);
    assert!(b.warnings[0].what.contains("(also on 1 other port: host3:p0)"), "{:?}", b.warnings);
}

#[test]
fn iperf_tcp_settings_link_pause_and_iwarp_follow_the_model() {
    let text = r#"fabric:
  name: t
  topology:
    devices:
      - {name: sw1, role: switch, platform: generic, ports: [{names: p1-4, speed: 10G}]}
      - name: client
        role: host
        nic: {vendor: intel, model: X520, ports: 1, speed: 10G, rdma: none}
        tcp: {congestion_control: reno, window_scaling: false, min_rto: 10ms, receive_buffer: 1MiB, nagle: false, sack: false,
              tail_loss_probe: false}
      - {name: server, role: host, nic: {vendor: intel, model: X520, ports: 1, speed: 10G, rdma: none}}
      - {name: iw1, role: host, nic: {vendor: chelsio, model: T62100, ports: 1, speed: 10G}}
      - {name: iw2, role: host, nic: {vendor: chelsio, model: T62100, ports: 1, speed: 10G}}
    links:
      - {a: "sw1:p1", b: "client:p0"}
      - {a: "sw1:p2", b: "server:p0"}
      - {a: "sw1:p3", b: "iw1:p0"}
      - {a: "sw1:p4", b: "iw2:p0"}
  qos:
    marking: pcp
    mtu: 9000
    classes:
      - {name: iscsi, priority: 0}
    pfc: {enabled: false, link_pause: true}
workloads:
  flows:
    - {name: rdma, from: iw1, to: iw2, class: iscsi, size: 1MB}
  iperf:
    - {name: cross, client: client, server: server, parallel: 3, window: 256KiB, congestion_control: dctcp, bitrate: 2G, bytes: 2MB, nodelay: true}
"#;
    let l = rocelab_model::load_str(text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let b = build(&l.scenario, &l.fabric, None);
    // The client's stack from its `tcp:` settings; the server keeps Linux's defaults.
    let NodeKind::Host(c) = &b.spec.nodes[1].kind else { panic!("client") };
    assert_eq!(c.tcp.congestion_control, CcKind::NewReno);
    assert!(!c.tcp.window_scaling && !c.tcp.nagle && !c.tcp.sack && !c.tcp.tail_loss_probe);
    assert_eq!((c.tcp.min_rto_ps, c.tcp.receive_buffer_bytes), (10 * crate::MS, 1 << 20));
    assert_eq!(c.ports[0].mtu, 9000);
    assert!(c.ports[0].link_pause);
    let NodeKind::Host(s) = &b.spec.nodes[2].kind else { panic!("server") };
    assert_eq!(s.tcp, TcpStackSpec::default());
    assert!(s.tcp.tail_loss_probe, "probes are on by default, as in Linux since 3.10");
    // Between two iWARP (Chelsio) hosts a flow runs over iWARP by default.
    let t = &b.traffic;
    assert!(matches!(t.flows[0].transport, crate::Transport::Iwarp(r) if r.op == RdmaOp::Write));
    // The iperf test: three TCP streams with the socket options, ports 32768.. -> 5201.
    assert_eq!(t.iperf.len(), 1);
    assert_eq!((t.iperf[0].first_flow, t.iperf[0].streams), (1, 3));
    let s0 = &t.flows[1];
    let crate::Transport::Tcp(opts) = s0.transport else { panic!("a TCP flow") };
    assert_eq!(opts.congestion_control, Some(CcKind::Dctcp));
    assert_eq!((opts.window_bytes, opts.nodelay, opts.server_port), (Some(256 * 1024), true, IPERF_PORT));
    assert_eq!((s0.size_bytes, s0.rate_bps), (Some(2_000_000), Some(2_000_000_000)));
    assert_eq!(t.flows[1..].iter().map(|f| f.udp_src_port).collect::<Vec<_>>(), [32768, 32769, 32770]);
    assert_eq!(&b.names.flows[1..], ["cross#0", "cross#1", "cross#2"]);
    assert_eq!(b.names.iperf, ["cross"]);
    assert_eq!(b.names.dports[1], IPERF_PORT);
    // 802.3x on the switch ports: the class's PG holds back with headroom, PFC stays off.
    let NodeKind::Switch(sw) = &b.spec.nodes[0].kind else { panic!("sw1") };
    assert!(sw.ports.iter().all(|p| p.link_pause && p.pfc.enabled == PriorityMask::NONE));
    assert!(sw.ports[0].pgs[0].lossless && sw.ports[0].pgs[0].headroom_bytes > 9000);
    let r = crate::run(&b.spec, &b.traffic, &SimConfig { end_time_ps: 20 * crate::MS, ..b.config }).unwrap();
    r.check_conservation().unwrap();
    assert_eq!(r.iperf[0].streams.len(), 3);
    assert!(r.iperf[0].streams.iter().all(|s| s.receiver_bytes == 2_000_000), "{:?}", r.iperf[0]);
    assert_eq!(r.flows[0].delivered_bytes, 1_000_000);
    let summary = crate::summary::summary(&r, &b.names, &b.warnings);
    assert!(summary.contains("iperf cross: client -> server, 3 stream(s)"), "{summary}");
    assert!(summary.contains("[SUM]"), "{summary}");
}

/// The simulation of a fabric of `devices` and `links` (YAML lines at the list's indent) with
/// one lossless RoCE class.
fn build_devices(devices: &str, links: &str) -> Built {
    let text = format!(
        "fabric:\n  name: t\n  topology:\n    devices:\n{devices}    links:\n{links}  qos:\n    marking: dscp\n    \
         classes:\n      - {{name: roce, priority: 3, dscp: [26], lossless: true}}\n"
    );
    let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    build(&l.scenario, &l.fabric, None)
}

/// Host node `i`'s spec.
fn host_spec(b: &Built, i: usize) -> &HostSpec {
    match &b.spec.nodes[i].kind {
        NodeKind::Host(h) => h,
        NodeKind::Switch(_) => panic!("node {i} is a host"),
    }
}

#[test]
fn a_devices_bonding_becomes_its_hosts_bond() {
    let b = build_devices(
        r#"      - {name: sw1, role: switch, platform: generic, ports: [{names: p1-6, speed: 25G}]}
      - {name: a, role: host, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G}, bonding: active-backup}
      - {name: b, role: host, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G}, bonding: lacp}
      - {name: c, role: host, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G}}
"#,
        r#"      - {a: "sw1:p1", b: "a:p0"}
      - {a: "sw1:p2", b: "a:p1"}
      - {a: "sw1:p3", b: "b:p0"}
      - {a: "sw1:p4", b: "b:p1"}
      - {a: "sw1:p5", b: "c:p0"}
      - {a: "sw1:p6", b: "c:p1"}
"#,
    );
    assert_eq!(
        [1, 2, 3].map(|i| host_spec(&b, i).bond),
        [Some(BondMode::ActiveBackup), Some(BondMode::Aggregate), None],
        "a's ports stand by but the first, b's aggregate, c's are each an address"
    );
    let a = host_spec(&b, 1);
    assert!(!a.is_standby(0) && a.is_standby(1));
    assert!(!host_spec(&b, 2).is_standby(1), "b's LACP bond goes to one switch: both carry");
}

#[test]
fn an_lacp_bond_split_over_two_switches_carries_on_the_first_members_switch_only() {
    // h's LACP bond reaches sw1 and sw2, which are no MLAG pair: one aggregator per switch, and
    // the one of its first member (to sw1) carries. An MLAG bond cabled the same way carries on
    // both; so does an LACP bond whose members all reach sw1.
    let devices = |bond: &str| {
        format!(
            r#"      - {{name: sw1, role: switch, platform: generic, ports: [{{names: p1-4, speed: 25G}}]}}
      - {{name: sw2, role: switch, platform: generic, ports: [{{names: p1-4, speed: 25G}}]}}
      - {{name: h, role: host, nic: {{vendor: mellanox, model: ConnectX-5, ports: 3, speed: 25G}}, bonding: {bond}}}
"#
        )
    };
    let links = r#"      - {a: "sw1:p1", b: "h:p0"}
      - {a: "sw2:p1", b: "h:p1"}
      - {a: "sw1:p2", b: "h:p2"}
      - {a: "sw1:p3", b: "sw2:p3"}
"#;
    let b = build_devices(&devices("lacp"), links);
    let h = host_spec(&b, 2);
    assert_eq!([0, 1, 2].map(|p| h.is_standby(p)), [false, true, false]);
    // Routing agrees: the link to sw2 carries nothing.
    let (h_p1, sw2_p1) = (crate::spec::PortRef { node: 2, port: 1 }, crate::spec::PortRef { node: 1, port: 0 });
    assert!(!b.spec.routes_over(h_p1, sw2_p1));
    let b = build_devices(&devices("mlag"), links);
    assert!((0..3).all(|p| !host_spec(&b, 2).is_standby(p)));
    // A Windows host's team is switch independent (SET): all carry.
    let b = build_devices(&devices("lacp").replace("role: host,", "role: host, os: windows,"), links);
    assert!((0..3).all(|p| !host_spec(&b, 2).is_standby(p)));
}

#[test]
fn a_ports_ipv4_address_comes_from_its_adapter() {
    // Two adapters; d's p0 is not cabled, p1's address is IPv6 (none for the simulator's IPv4
    // frames), p2 is the second adapter's first port.
    let b = build_devices(
        r#"      - {name: sw1, role: switch, platform: generic, ports: [{names: p1-3, speed: 25G}]}
      - name: d
        role: host
        nics:
          - {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G, addresses: [10.1.0.1/24, "fd00::2/64"]}
          - {vendor: mellanox, model: ConnectX-5, ports: 1, speed: 25G, addresses: [192.168.5.9/24]}
      - {name: e, role: host, nic: {vendor: mellanox, model: ConnectX-5, ports: 1, speed: 25G}}
"#,
        r#"      - {a: "sw1:p1", b: "d:p1"}
      - {a: "sw1:p2", b: "d:p2"}
      - {a: "sw1:p3", b: "e:p0"}
"#,
    );
    let ipv4 = |i: usize| host_spec(&b, i).ports.iter().map(|p| p.ipv4.map(|a| a.to_string())).collect::<Vec<_>>();
    assert_eq!(ipv4(1), [None, Some("192.168.5.9".to_string())]);
    assert_eq!(ipv4(2), [None]);
    let book = crate::addresses::AddressBook::new(&b.spec);
    let second = crate::routing::port_address(1, 1);
    assert_eq!(std::net::Ipv4Addr::from(book.ipv4(second)).to_string(), "192.168.5.9", "d's second cabled port");
}

/// Lossy priority groups take the platforms' lossy profile: alpha 8 at ingress (lossless ones
/// keep the fabric's 1/8) and an egress limit in the egress lossy pool, a third of the buffer
/// unless `qos.buffer.pools.egress_lossy` gives it. Under the ns-3 HPCC simulator's admission
/// every group is admitted alike, with the switch's alpha, and nothing is limited at egress.
#[test]
fn lossy_groups_take_the_platforms_lossy_profile_but_not_under_hpcc_admission() {
    let (b, _) = built();
    let NodeKind::Switch(sw) = &b.spec.nodes[0].kind else { panic!("sw1 first") };
    let egress =
        EgressLossySpec { pool_bytes: 16_000_000 / 3, alpha: LOSSY_ALPHA, reserved_bytes: LOSSY_QUEUE_RESERVE };
    assert_eq!(sw.buffer.egress_lossy, Some(egress));
    let lossy = PriorityGroupSpec { threshold: XoffThreshold::DynamicAlpha(LOSSY_ALPHA), ..PriorityGroupSpec::lossy() };
    let p0 = &sw.ports[0];
    assert_eq!(p0.pgs[3].threshold, XoffThreshold::DynamicAlpha(rocelab_model::qos::DEFAULT_ALPHA));
    assert_eq!((p0.pgs[0], p0.pgs[7]), (lossy, lossy));
    assert_eq!(sw.ports[2].pgs[3], lossy, "roce with PFC off on the override's port is lossy there");

    let text = FABRIC.replace("    ports:\n", "    buffer: {pools: {egress_lossy: 2MiB}}\n    ports:\n");
    let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap();
    let NodeKind::Switch(sw) = build(&l.scenario, &l.fabric, Some(9)).spec.nodes[0].kind.clone() else { panic!() };
    assert_eq!(sw.buffer.egress_lossy, Some(EgressLossySpec { pool_bytes: 2 << 20, ..egress }));

    let text = format!("{FABRIC}simulation: {{model: {{profile: hpcc-compat}}}}\n");
    let l = rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).unwrap();
    let NodeKind::Switch(sw) = build(&l.scenario, &l.fabric, Some(9)).spec.nodes[0].kind.clone() else { panic!() };
    assert_eq!(sw.admission, crate::Admission::Ns3);
    assert_eq!(sw.buffer.egress_lossy, None);
    assert_eq!(sw.ports[2].pgs[3], PriorityGroupSpec::lossy());
    assert!(sw
        .ports
        .iter()
        .flat_map(|p| &p.pgs)
        .filter(|g| !g.lossless)
        .all(|g| g.threshold == XoffThreshold::Dynamic));
}
