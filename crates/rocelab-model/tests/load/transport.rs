//! The RDMA transport (`fabric.rdma`, an adapter's `transport`, a workload's `window`), the
//! simulation model (`simulation.model`) and the DCQCN variants (`alpha_update`, `rate_reduce`,
//! `rate_increase`, the `hpcc-compat` profile): parsing, resolution with sources, located
//! errors, and what `rocelab show` prints of them.

use super::{errors, load, one_error, BASE};
use rocelab_model::qos::{AlphaUpdate, DcqcnProfile, RateIncrease, RateReduce};
use rocelab_model::simmodel::{EcmpHash, EcnMarking, PauseModel, Serialization, SimProfile};
use rocelab_model::transport::{AckTimeout, CnpMode, Window};
use rocelab_model::units::{Rate, Size, Time};

const NODE1_NIC: &str = "nic: {vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G]}}\n      - {name: node2";

/// BASE with `transport` on node1's adapter and `rdma` under `fabric`.
fn with_transport(nic: &str, fabric: &str) -> String {
    let mut text = BASE.to_string();
    if !nic.is_empty() {
        text = text.replacen(
            NODE1_NIC,
            &format!("nic: {{vendor: mellanox, model: ConnectX-5, speed: 25G, speeds: [10G], transport: {nic}}}}}\n      - {{name: node2"),
            1,
        );
    }
    if !fabric.is_empty() {
        text = text.replacen("  name: base\n", &format!("  name: base\n  rdma: {fabric}\n"), 1);
    }
    text
}

const DCQCN_AFTER: &str = "      - {name: default, priority: 0, ets: 10}\n";

fn with_dcqcn(dcqcn: &str) -> String {
    BASE.replacen(DCQCN_AFTER, &format!("{DCQCN_AFTER}    dcqcn: {dcqcn}\n"), 1)
}

#[test]
fn adapter_transport_over_fabric_rdma_over_the_profile() {
    let text = with_transport(
        "{window: 64, ack_every: 4, timeout: 67ms}",
        "{window: 256KB, ack_class: default, retry_count: 3, cnp: ack-flag}",
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let f = &l.fabric;
    let node1 = f.devices.iter().position(|d| d.name == "node1").unwrap();
    let node2 = f.devices.iter().position(|d| d.name == "node2").unwrap();
    let t = f.rdma_transport(node1);
    assert_eq!((t.window, t.ack_every, t.timeout), (Window::Packets(64), 4, AckTimeout::Time(Time::ms(67))));
    assert_eq!((t.ack_class.as_deref(), t.retry_count, t.cnp), (Some("default"), 3, CnpMode::AckFlag));
    assert_eq!(t.sources["window"], "set on the adapter");
    assert_eq!(t.sources["retry_count"], "set in fabric.rdma");
    let t2 = f.rdma_transport(node2);
    assert_eq!((t2.window, t2.ack_every, t2.timeout), (Window::Bytes(Size::kb(256)), 16, AckTimeout::Exponent(14)));
    assert!(t2.sources["ack_every"].starts_with("hardware profile: NVIDIA ConnectX"), "{}", t2.sources["ack_every"]);
    assert_eq!(f.port_rdma_transport(rocelab_model::PortId { device: node1, port: 0 }), t);
    // Two groups of hosts, node1 and node2.
    let groups = f.rdma_transport_groups();
    assert_eq!(groups.iter().map(|(h, _)| h.clone()).collect::<Vec<_>>(), [vec![node1], vec![node2]]);
    // Nothing set: the hardware profile's defaults, one group.
    let l = load(BASE).unwrap();
    let t = l.fabric.rdma_transport(node1);
    assert_eq!((t.window, t.ack_every, t.ack_class.clone()), (Window::None, 16, None));
    assert_eq!((t.timeout, t.retry_count, t.cnp), (AckTimeout::Exponent(14), 7, CnpMode::Packet));
    assert_eq!(l.fabric.rdma_transport_groups().len(), 1);
}

#[test]
fn the_hpcc_compat_profile_changes_the_transport_defaults() {
    let text = format!("{}simulation: {{model: {{profile: hpcc-compat}}}}\n", with_transport("", "{ack_every: 2}"));
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let t = l.fabric.rdma_transport(2);
    assert_eq!(
        (t.window, t.ack_every, t.cnp, t.timeout, t.retry_count),
        (Window::None, 2, CnpMode::AckFlag, AckTimeout::Exponent(14), 7)
    );
    assert!(t.sources["cnp"].starts_with("hpcc-compat profile: ns-3 HPCC"), "{}", t.sources["cnp"]);
    assert!(t.sources["window"].contains("HAS_WIN 0"), "{}", t.sources["window"]);
}

#[test]
fn transport_errors_are_located_with_what_was_expected() {
    let text = with_transport("{ack_evry: 4}", "");
    let e = one_error(&text);
    assert_eq!(e.path, "fabric.topology.devices[2].nic.transport.ack_evry");
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"ack_every\"?"));
    assert_eq!(e.line, 7);
    let e = one_error(&with_transport("", "{ack_class: rocee}"));
    assert_eq!((e.path.as_str(), e.message.as_str(), e.line), ("fabric.rdma.ack_class", "no class `rocee`", 3));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"roce\"?"));
    assert_eq!(e.expected.as_deref(), Some("one of `roce`, `default`"));
    // An adapter's class, located through `nic:` (written as one mapping).
    let text = with_transport("{ack_class: defualt}", "");
    let e = one_error(&text);
    assert_eq!(e.path, "fabric.topology.devices[2].nics[0].transport.ack_class");
    assert_eq!((e.line, e.column), (7, text.lines().nth(6).unwrap().find("defualt").unwrap() + 1));
    let e = errors(&with_transport("", "{window: 0, ack_every: 0, timeout: 40, retry_count: 9}"));
    let got: Vec<(&str, &str)> = e.iter().map(|d| (d.path.as_str(), d.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("fabric.rdma.window", "a window of 0 packets never lets a packet out"),
            ("fabric.rdma.ack_every", "ack_every 0 would never acknowledge"),
            ("fabric.rdma.timeout", "timeout exponent 40 is above 31 (a 5-bit field)"),
            ("fabric.rdma.retry_count", "retry_count 9 is above 7 (a 3-bit field)"),
        ]
    );
    assert!(e.iter().all(|d| d.expected.is_some()), "{e:#?}");
    let e = one_error(&with_transport("", "{window: nonee}"));
    assert_eq!(e.path, "fabric.rdma.window");
    assert!(e.expected.as_deref().unwrap().starts_with("`none`, a number of packets"), "{e:?}");
    let e = one_error(&with_transport("", "{window: 0KB}"));
    assert_eq!(e.message, "a window of 0 bytes never lets a packet out");
    let e = one_error(&with_transport("", "{timeout: 67msec}"));
    assert!(e.message.contains("unknown time unit"), "{}", e.message);
    let e = one_error(&with_transport("", "{cnp: ack_flag}"));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"ack-flag\"?"));
    let e = one_error(&with_transport("", "{timeout: 0s}"));
    assert_eq!(e.message, "a timeout of 0 fires at once");
}

const WORKLOADS: &str = "simulation: {duration: 2ms}\nworkloads:\n  flows:\n    - {name: f, from: node1, to: node2, class: roce, window: 32}\n  incast:\n    - {name: i, senders: [node1], receiver: node2, class: roce, size: 64KiB, window: 64KB}\n  permutation:\n    - {name: p, class: roce, window: none}\n  all_to_all:\n    - {name: a, class: roce, size: 1MB, window: 8}\n";

#[test]
fn a_workload_window_takes_every_form() {
    let l = load(&format!("{BASE}{WORKLOADS}")).unwrap_or_else(|e| panic!("{e}"));
    let w = &l.scenario.workloads;
    assert_eq!(w.flows[0].window, Some(Window::Packets(32)));
    assert_eq!(w.incast[0].window, Some(Window::Bytes(Size::kb(64))));
    assert_eq!(w.permutation[0].window, Some(Window::None));
    assert_eq!(w.all_to_all[0].window, Some(Window::Packets(8)));
    let json = serde_json::to_string(&l.scenario).unwrap();
    assert!(
        json.contains(r#""window":32"#) && json.contains(r#""window":"64KB""#) && json.contains(r#""window":"none""#)
    );
    assert_eq!(load(&json).unwrap().scenario, l.scenario);
    let e =
        errors(&format!("{BASE}{WORKLOADS}").replace("window: 8}", "window: 0}").replace("window: 32}", "window: 0B}"));
    let paths: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["workloads.flows[0].window", "workloads.all_to_all[0].window"]);
    assert_eq!(e[0].line, 22);
}

#[test]
fn an_hpcc_flow_file_takes_a_window() {
    let dir = super::workspace().join("examples/hpcc-import");
    let text = std::fs::read_to_string(dir.join("sim.yaml")).unwrap();
    assert!(text.contains("hpcc_flows:"), "the example imports a flow file");
    let l = rocelab_model::load_str(&text, "sim.yaml", &dir).unwrap();
    assert_eq!(l.scenario.workloads.hpcc_flows[0].window, None);
    let root = rocelab_model::node::parse(&text).unwrap();
    let mut root = root;
    rocelab_model::paths::set_path(
        &mut root,
        "workloads.hpcc_flows[0].window",
        rocelab_model::node::parse("16").unwrap(),
        Default::default(),
        "test",
    )
    .unwrap();
    let (s, _, _) = rocelab_model::build(&root, "sim.yaml", &dir).unwrap();
    assert_eq!(s.workloads.hpcc_flows[0].window, Some(Window::Packets(16)));
}

#[test]
fn the_simulation_model_resolves_with_sources() {
    let l = load(BASE).unwrap();
    let m = &l.fabric.sim_model;
    assert_eq!(m.profile, SimProfile::Hardware);
    assert_eq!((m.payload, m.pfc_frame, m.preamble_and_gap, m.stop_when_done), (None, Size::bytes(64), true, false));
    let text = format!(
        "{BASE}simulation:\n  duration: 1ms\n  model: {{profile: hpcc-compat, payload: 4000B, ecn_marking: enqueue, stop_when_done: false}}\n"
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let m = l.scenario.simulation.resolved_model();
    assert_eq!(m, l.fabric.sim_model);
    assert_eq!(
        (m.payload, m.header, m.ack_frame, m.pfc_frame),
        (Some(Size::bytes(4000)), Some(Size::bytes(48)), Some(Size::bytes(60)), Size::bytes(43))
    );
    assert_eq!(
        (m.serialization, m.ecn_marking, m.pause),
        (Serialization::TruncateNs, EcnMarking::Enqueue, PauseModel::UntilResume)
    );
    assert_eq!(
        (m.control_in_buffer, m.ecmp, m.stop_when_done, m.preamble_and_gap),
        (true, EcmpHash::Hpcc, false, false)
    );
    assert_eq!(m.sources["payload"], "set in simulation.model");
    assert_eq!(m.sources["ecn_marking"], "set in simulation.model");
    assert!(m.sources["pause"].starts_with("hpcc-compat profile: ns-3 HPCC"), "{}", m.sources["pause"]);
    let json = serde_json::to_string(&l.scenario).unwrap();
    assert!(json.contains(r#""model":{"profile":"hpcc-compat","payload":"4000B""#), "{json}");
    assert_eq!(load(&json).unwrap().scenario, l.scenario);
}

#[test]
fn simulation_model_errors_are_located() {
    let sim = |m: &str| format!("{BASE}simulation:\n  model: {m}\n");
    let e = one_error(&sim("{profile: hpcc-compt}"));
    assert_eq!((e.path.as_str(), e.line), ("simulation.model.profile", 20));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"hpcc-compat\"?"));
    let e = one_error(&sim("{payload: 32B}"));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("simulation.model.payload", "payload 32B is outside 64B to 9000B")
    );
    assert_eq!(e.expected.as_deref(), Some("a size from 64B to 9000B"));
    let e = one_error(&sim("{payload: 9001B, pfc_frame: 64B}"));
    assert_eq!(e.path, "simulation.model.payload");
    let e = one_error(&sim("{serialisation: exact}"));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"serialization\"?"));
    let e = one_error(&sim("{pause: until_resume}"));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"until-resume\"?"));
    let e = one_error(&sim("{ecmp: ns3}"));
    assert_eq!(e.expected.as_deref(), Some("one of `rocelab`, `hpcc`"));
    let e = one_error(&sim("{ecn_random: ns3}"));
    assert_eq!(
        (e.path.as_str(), e.expected.as_deref()),
        ("simulation.model.ecn_random", Some("one of `rocelab`, `hpcc`"))
    );
    let e = one_error(&sim("{nic_arbiter: round_robin}"));
    assert_eq!(e.path, "simulation.model.nic_arbiter");
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"round-robin\"?"));
    let e = one_error(&sim("{mmu_admission: hpc}"));
    assert_eq!(
        (e.path.as_str(), e.suggestion.as_deref()),
        ("simulation.model.mmu_admission", Some("did you mean \"hpcc\"?"))
    );
    let e = one_error(&sim("{stop_when_done: maybe}"));
    assert_eq!((e.path.as_str(), e.line), ("simulation.model.stop_when_done", 20));
    // A bare number is bytes in the frame sizes, byte counts by definition.
    let l = load(&sim("{ack_frame: 60, header: 0}")).unwrap();
    assert_eq!(
        (l.fabric.sim_model.ack_frame, l.fabric.sim_model.header),
        (Some(Size::bytes(60)), Some(Size::bytes(0)))
    );
}

#[test]
fn dcqcn_variants_and_the_hpcc_compat_profile() {
    let l = load(&with_dcqcn("{enabled: true, profile: hpcc-compat}")).unwrap_or_else(|e| panic!("{e}"));
    let p = &l.fabric.dcqcn;
    assert_eq!((p.g, p.alpha_update_interval, p.initial_alpha), (1.0 / 256.0, Time::us(1), 1.0));
    assert_eq!((p.rate_increase_timer, p.byte_counter, p.fast_recovery_steps), (Time::us(300), Size::mb(10), 1));
    assert_eq!(
        (p.additive_increase, p.hyper_increase, p.min_rate),
        (Rate::mbps(20), Rate::mbps(200), Rate::mbps(1000))
    );
    assert_eq!((p.cnp_interval, p.rate_reduce_interval, p.max_decrease), (Time::ZERO, Time::us(4), 1.0));
    assert_eq!(
        (p.clamp_target_rate, p.clamp_target_rate_after_time_increase, p.rate_on_first_cnp),
        (false, true, None)
    );
    assert_eq!(
        (p.alpha_update, p.rate_reduce, p.rate_increase),
        (AlphaUpdate::Periodic, RateReduce::Periodic, RateIncrease::TimerOnly)
    );
    assert!(
        p.sources["additive_increase"].starts_with("RATE_AI 20Mb/s: the ns-3 HPCC simulator"),
        "{}",
        p.sources["additive_increase"]
    );
    assert_eq!(l.fabric.qos.dcqcn.profile, DcqcnProfile::HpccCompat);
    // The other profiles' choices, and each one set.
    let paper = load(&with_dcqcn("{enabled: true}")).unwrap().fabric.dcqcn;
    assert_eq!(
        (paper.alpha_update, paper.rate_reduce, paper.rate_increase),
        (AlphaUpdate::OnCnp, RateReduce::OnCnp, RateIncrease::Paper)
    );
    let cx = load(&with_dcqcn("{enabled: true, profile: nvidia-connectx}")).unwrap().fabric.dcqcn;
    assert_eq!(
        (cx.alpha_update, cx.rate_reduce, cx.rate_increase),
        (AlphaUpdate::Periodic, RateReduce::Periodic, RateIncrease::Connectx)
    );
    assert!(cx.sources["rate_reduce"].starts_with("rate_reduce_monitor_period"), "{}", cx.sources["rate_reduce"]);
    let set = load(&with_dcqcn("{enabled: true, alpha_update: periodic, rate_reduce: periodic, rate_reduce_interval: 4us, rate_increase: timer-only, cnp_interval: 0us}"))
        .unwrap_or_else(|e| panic!("{e}"))
        .fabric
        .dcqcn;
    assert_eq!(
        (set.alpha_update, set.rate_reduce, set.rate_increase),
        (AlphaUpdate::Periodic, RateReduce::Periodic, RateIncrease::TimerOnly)
    );
    assert_eq!((set.cnp_interval, set.sources["rate_increase"].as_str()), (Time::ZERO, "set in the fabric"));
}

#[test]
fn dcqcn_variant_errors_are_located() {
    let e = one_error(&with_dcqcn("{enabled: true, alpha_update: on_cnp}"));
    assert_eq!((e.path.as_str(), e.line), ("fabric.qos.dcqcn.alpha_update", 19));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"on-cnp\"?"));
    assert_eq!(e.expected.as_deref(), Some("one of `on-cnp`, `periodic`"));
    let e = one_error(&with_dcqcn("{enabled: true, rate_increase: timer}"));
    assert_eq!(e.expected.as_deref(), Some("one of `paper`, `connectx`, `timer-only`"));
    // A periodic cut needs a period: the paper's rate_reduce_interval is 0.
    let e = one_error(&with_dcqcn("{enabled: true, rate_reduce: periodic}"));
    assert_eq!(e.path, "fabric.qos.dcqcn.rate_reduce");
    assert!(e.message.contains("needs a rate_reduce_interval above 0"), "{}", e.message);
    let e = one_error(&with_dcqcn("{enabled: true, profile: nvidia-connectx, rate_reduce_interval: 0us}"));
    assert_eq!(e.path, "fabric.qos.dcqcn.rate_reduce_interval");
}

#[test]
fn show_prints_per_speed_settings_transport_model_and_dcqcn_sources() {
    let text = format!(
        "{}simulation: {{model: {{profile: hpcc-compat, payload: 2000B}}}}\n",
        with_transport("{window: 64}", "{ack_every: 2}")
            .replace(
                "{name: roce, priority: 5, lossless: true, ets: 90}",
                "{name: roce, priority: 5, lossless: true, ets: 90, ecn: {10G: {kmin: 40KB, kmax: 160KB, pmax: 0.2}, 25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}}",
            )
            .replacen(DCQCN_AFTER, &format!("{DCQCN_AFTER}    dcqcn: {{enabled: true, profile: hpcc-compat}}\n    buffer: {{alpha: {{10G: 0.5, 25G: 0.25, 40G: 2}}, reserve: 4KiB}}\n"), 1)
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let s = rocelab_model::display::summary(&l.fabric);
    for want in [
        "  buffer alpha 10G:0.5 25G:0.25 40G:2, headroom computed, reserve 4KiB",
        "10G:40KB/160KB/0.2 25G:100KB/400KB/0.2 40G:160KB/640KB/0.1",
        "rdma transport of node1:",
        "rdma transport of node2:",
        "  window                 64 packets   set on the adapter",
        "  ack_every                       2   set in fabric.rdma",
        "  cnp                      ack-flag   hpcc-compat profile: ns-3 HPCC simulator",
        "simulation model: hpcc-compat",
        "  payload                     2000B   set in simulation.model",
        "  pause                until-resume   hpcc-compat profile",
        "  rate_increase                          timer-only   RateIncEventMlx on RP_TIMER alone",
    ] {
        assert!(s.contains(want), "no `{want}` in\n{s}");
    }
    let v = rocelab_model::display::json(&l.fabric);
    assert_eq!(v["sim_model"]["profile"], "hpcc-compat");
    assert_eq!(v["sim_model"]["sources"]["payload"], "set in simulation.model");
    assert_eq!(v["rdma_transport"][0]["hosts"], serde_json::json!(["node1"]));
    assert_eq!(v["rdma_transport"][0]["window"], 64);
    assert_eq!(v["rdma_transport"][1]["sources"]["ack_every"], "set in fabric.rdma");
    assert_eq!(v["dcqcn"]["rate_increase"], "timer-only");
    assert_eq!(v["qos"]["buffer"]["alpha"]["25G"], 0.25);
    // Every port carries its speed's settings.
    let node2 = &v["devices"][3]["ports"][0]["settings"];
    assert_eq!((node2["alpha"].as_f64(), node2["classes"][0]["ecn"]["kmin"].as_str()), (Some(0.5), Some("40KB")));
}
