//! Tests of the HPCC config import on the reference runs' own files (read in place) and on
//! variations of fair2's config, one per key.

use super::*;
use crate::qos::{AlphaUpdate, RateIncrease, RateReduce};
use crate::simmodel::SimProfile;
use crate::transport::Window;
use crate::units::Size;
use crate::{Loaded, PortId};

const REF: &str = "/work/shared/data/hpcc-reference";
const FORMATS: &str = "/work/shared/data/hpcc-formats";

fn read(p: &str) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn fair2_config() -> String {
    read(&format!("{REF}/fair2/config.txt"))
}

/// fair2's config with `edits` applied: each `(KEY, line)` replaces the key's line (an empty
/// line removes it), or is added at the end when the key is not there.
fn edited(edits: &[(&str, &str)]) -> String {
    let mut lines: Vec<String> = fair2_config().lines().map(String::from).collect();
    for (key, new) in edits {
        match lines.iter().position(|l| l.split_whitespace().next() == Some(key)) {
            Some(i) => lines[i] = new.to_string(),
            None => lines.push(new.to_string()),
        }
    }
    lines.join("\n") + "\n"
}

/// A scratch folder holding a topology and a flow file.
fn scratch(tag: &str, topology: &str, flows: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocelab-hpcc-import-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("topo.txt"), topology).unwrap();
    std::fs::write(dir.join("flows.txt"), flows).unwrap();
    dir
}

struct Mapped {
    yaml: String,
    warnings: Vec<Diagnostic>,
    notes: Vec<Note>,
    loaded: Loaded,
}

/// Maps `config` over the given topology and flows, and loads the scenario as `rocelab validate`
/// would.
fn map_with(tag: &str, config: &str, topology: &str, flows: &str) -> Result<Mapped, Vec<Diagnostic>> {
    let dir = scratch(tag, topology, flows);
    let inp = Inputs {
        name: tag,
        config_file: "config.txt",
        topology_file: "topo.txt",
        topology,
        flows_file: "flows.txt",
        flows,
    };
    let (yaml, warnings, notes) = map_config(config, &inp, "topo.txt", "flows.txt")?;
    let loaded = crate::load_str(&yaml, "scenario.yaml", &dir).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    Ok(Mapped { yaml, warnings, notes, loaded })
}

fn star17() -> String {
    read(&format!("{REF}/fair2/star17.txt"))
}

fn map(tag: &str, edits: &[(&str, &str)]) -> Result<Mapped, Vec<Diagnostic>> {
    map_with(tag, &edited(edits), &star17(), &read(&format!("{REF}/fair2/flows.txt")))
}

/// The messages of the warnings.
fn said(m: &Mapped) -> Vec<String> {
    m.warnings.iter().map(|w| w.message.clone()).collect()
}

fn switch_port(l: &Loaded, dev: &str, port: &str) -> PortId {
    let d = l.fabric.devices.iter().position(|x| x.name == dev).unwrap();
    PortId { device: d, port: l.fabric.devices[d].ports.iter().position(|p| p.name == port).unwrap() }
}

#[test]
fn fair2_imports_and_loads_to_the_reference_settings() {
    let imp = import_config(Path::new(&format!("{REF}/fair2/config.txt")), &ImportOptions::default()).unwrap();
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    // One note: ACK_HIGH_PRIO 1, which rocelab follows at the switches and nearly so at hosts.
    let notes: Vec<&str> = imp.notes.iter().map(|n| n.message.as_str()).collect();
    assert!(notes.len() == 1 && notes[0].starts_with("ACK_HIGH_PRIO 1 puts"), "{notes:?}");
    assert_eq!(imp.name, "fair2");
    let names: Vec<&str> = imp.files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["star17.txt", "flows.txt"]);
    assert!(imp.scenario.contains("import: {hpcc: star17.txt, switch_buffer: 32MiB}"), "{}", imp.scenario);
    assert!(imp.scenario.contains("- {name: flows, file: flows.txt}"));

    let l = crate::load_str(&imp.scenario, "scenario.yaml", Path::new(&format!("{REF}/fair2"))).unwrap();
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    let f = &l.fabric;
    assert_eq!(f.name, "fair2");
    assert_eq!(f.device("s17").unwrap().buffer, Some(Size::mib(32)));
    // Every switch port at 100G: ECN, alpha, reserve and headroom as that simulator's.
    let s = f.port_settings(switch_port(&l, "s17", "p1"));
    let roce = f.qos.classes.iter().position(|c| c.name == "roce").unwrap();
    let ecn = s.classes[roce].ecn.clone().unwrap();
    assert_eq!((ecn.kmin, ecn.kmax, ecn.pmax), (Size::kb(400), Size::kb(1600), 0.2));
    assert_eq!((s.alpha, s.reserve, s.headroom), (0.125, Size::kib(4), Some(Size::bytes(37_500))));
    assert_eq!(s.classes[roce].priority, 3);
    // The 400G entries, for a variant with 400G links.
    let b = &f.qos.buffer;
    assert_eq!(b.alpha.as_ref().unwrap().at(Rate::gbps(400)), Some(&0.5));
    assert_eq!(b.headroom.as_ref().unwrap().at(Rate::gbps(400)), Some(&Size::bytes(150_000)));
    assert_eq!(b.xon_offset, Some(Size::kib(3)));
    let e400 = f.qos.classes[roce].ecn.as_ref().unwrap().at(Rate::gbps(400)).unwrap().clone();
    assert_eq!((e400.kmin, e400.kmax), (Size::kb(1600), Size::kb(6400)));
    // ACKs with their flow's data, as that simulator's switches queue them (ACK_HIGH_PRIO only
    // moves the hosts' ACK queue out of PFC's reach): no class of their own.
    assert!(f.qos.class("control").is_none());
    assert_eq!(f.qos.class("default").unwrap().priority, 0);
    // DCQCN: the config's values, the profile's variant.
    let d = &f.dcqcn;
    assert!(d.notification_point && d.reaction_point);
    assert_eq!((d.g, d.alpha_update_interval, d.rate_reduce_interval), (0.00390625, Time::us(1), Time::us(4)));
    assert_eq!((d.rate_increase_timer, d.fast_recovery_steps, d.clamp_target_rate), (Time::us(300), 1, false));
    assert_eq!((d.additive_increase, d.hyper_increase, d.min_rate), (Rate::mbps(20), Rate::mbps(200), Rate::gbps(1)));
    assert_eq!((d.cnp_interval, d.initial_alpha), (Time::ZERO, 1.0));
    assert_eq!(
        (d.alpha_update, d.rate_reduce, d.rate_increase),
        (AlphaUpdate::Periodic, RateReduce::Periodic, RateIncrease::TimerOnly)
    );
    assert_eq!(d.sources["g"], "set in the fabric");
    // The simulation model and the queue pairs.
    assert_eq!(f.sim_model.profile, SimProfile::HpccCompat);
    assert_eq!((f.sim_model.payload, f.sim_model.control_in_buffer), (Some(Size::bytes(1000)), true));
    let h0 = f.devices.iter().position(|d| d.name == "h0").unwrap();
    let t = f.rdma_transport(h0);
    assert_eq!((t.ack_class.as_deref(), t.ack_every, t.window), (None, 1, Window::None));
    assert_eq!(l.scenario.simulation.duration, Time::ms(4000));
    let flows = &l.scenario.workloads.hpcc_flows[0];
    assert_eq!((flows.flows.len(), flows.start), (2, None));
}

#[test]
fn every_reference_config_imports_and_loads() {
    for name in ["dcqcn_fat", "incast16_dcqcn", "incast16_pfconly", "incast16_4MB_pfconly"] {
        let opts = ImportOptions {
            topology: (name == "dcqcn_fat").then(|| PathBuf::from(format!("{FORMATS}/fat.txt"))),
            flows: None,
        };
        let imp = import_config(Path::new(&format!("{REF}/{name}/config.txt")), &opts).unwrap();
        assert!(imp.warnings.is_empty(), "{name}: {:?}", imp.warnings);
        assert_eq!(imp.name, name);
    }
    // dcqcn_fat names fat.txt, which is not in its folder.
    let e = import_config(Path::new(&format!("{REF}/dcqcn_fat/config.txt")), &ImportOptions::default()).unwrap_err();
    let d = &e.0[0];
    assert_eq!((d.line, d.column), (6, 15));
    assert!(d.message.starts_with("TOPOLOGY_FILE `fat.txt`: no such file in"), "{}", d.message);
    assert_eq!(d.suggestion.as_deref(), Some("give its place with `--topology FILE`"));
    assert!(d.file.ends_with("dcqcn_fat/config.txt"));
}

#[test]
fn the_documented_example_config_imports_with_its_warnings_and_notes() {
    let imp = import_config(Path::new(&format!("{FORMATS}/config.txt")), &ImportOptions::default()).unwrap();
    let w: Vec<String> = imp.warnings.iter().map(|w| format!("{}:{}: {}", w.line, w.column, w.message)).collect();
    let has = |s: &str| w.iter().any(|m| m.contains(s));
    assert!(has("6:15: TOPOLOGY_FILE `mix/topology.txt` is not in"), "{w:#?}");
    assert!(has("7:11: FLOW_FILE `mix/flow.txt` is not in"), "{w:#?}");
    assert!(has("15:9: CC_MODE 3: rocelab has no HPCC model: the scenario runs without end-to-end congestion control (PFC only)"));
    assert!(has("VAR_WIN 1: the variable window is not modelled"));
    assert!(has("lines after the 65 declared links are ignored"), "{w:#?}");
    assert!(has("lines after the 2 declared flows are ignored"), "{w:#?}");
    assert_eq!(imp.notes.len(), 3, "{:?}", imp.notes);
    let note = imp.notes[0].to_string();
    assert!(note.ends_with("config.txt:8:1: note: TRACE_FILE mix/trace.txt is the list of nodes that simulator traces: not imported; `rocelab sim --pcap FILE --pcap-port DEVICE:PORT` captures the chosen ports' frames"), "{note}");
    assert!(imp.scenario.contains("window: 52000B"), "{}", imp.scenario);
    assert!(imp.scenario.contains("dcqcn: {enabled: false}"));
    assert_eq!(imp.name, "hpcc-formats");
}

#[test]
fn third_cc_arithmetic() {
    assert_eq!(headroom_bytes(Rate::gbps(100), 1000), 37_500);
    assert_eq!(headroom_bytes(Rate::gbps(400), 1000), 150_000);
    // Integer division before the factor 3, as third.cc: 1040 × 3, not 3121.875.
    assert_eq!(headroom_bytes(Rate::gbps(25), 333), 3120);
    assert_eq!(alpha(Rate::gbps(100), Rate::gbps(100)), 0.125);
    assert_eq!(alpha(Rate::gbps(25), Rate::gbps(100)), 0.125);
    assert_eq!(alpha(Rate::gbps(200), Rate::gbps(100)), 0.25);
    assert_eq!(alpha(Rate::gbps(400), Rate::gbps(100)), 0.5);
    assert_eq!(alpha(Rate::gbps(1600), Rate::gbps(100)), 1.0);
    assert_eq!(alpha(Rate::gbps(300), Rate::gbps(100)), 0.5, "300 -> 150 -> 75: shift 1");
}

#[test]
fn has_win_is_the_largest_bdp_over_host_pairs() {
    let m = map("win", &[("HAS_WIN", "HAS_WIN 1")]).unwrap();
    // Host, switch, host: 2 × 2 µs + 2 × 80 ns = 4160 ns at 100G: 52000 bytes.
    assert!(said(&m).is_empty(), "{:?}", said(&m));
    let h = m.loaded.fabric.devices.iter().position(|d| d.name == "h1").unwrap();
    assert_eq!(m.loaded.fabric.rdma_transport(h).window, Window::Bytes(Size::bytes(52_000)));
    // The fat tree: six links, two at 100G and four at 400G: 12,240 ns at 100G.
    let cfg = edited(&[("HAS_WIN", "HAS_WIN 1"), ("TOPOLOGY_FILE", "TOPOLOGY_FILE fat.txt")]);
    let flows = "1\n0 319 3 100 1000000 2\n";
    let m = map_with("win-fat", &cfg, &read(&format!("{FORMATS}/fat.txt")), flows).unwrap();
    assert!(m.yaml.contains("window: 153000B"), "{}", m.yaml);
    // GLOBAL_T and VAR_WIN matter with a window only.
    let m = map("win-t", &[("HAS_WIN", "HAS_WIN 1"), ("GLOBAL_T", "GLOBAL_T 0"), ("VAR_WIN", "VAR_WIN 1")]).unwrap();
    assert_eq!(said(&m).len(), 2);
    assert!(said(&m)[0].starts_with("GLOBAL_T 0: per host-pair windows are not modelled"), "{:?}", said(&m));
    assert!(said(&m)[1].starts_with("VAR_WIN 1: the variable window is not modelled"));
    let m = map("win-0", &[("GLOBAL_T", "GLOBAL_T 0"), ("VAR_WIN", "VAR_WIN 1")]).unwrap();
    assert!(said(&m).is_empty() && m.yaml.contains("window none (HAS_WIN 0)"), "{}", m.yaml);
}

#[test]
fn enable_qcn_and_the_ecn_maps() {
    let m = map("qcn0", &[("ENABLE_QCN", "ENABLE_QCN 0")]).unwrap();
    assert!(said(&m).is_empty());
    assert!(m.loaded.fabric.qos.class("roce").unwrap().ecn.is_none());
    assert!(m.yaml.contains("# no ecn: ENABLE_QCN 0"), "{}", m.yaml);
    // With ENABLE_QCN 0 a map may lack a rate; with 1 it may not.
    assert!(map("qcn0-map", &[("ENABLE_QCN", "ENABLE_QCN 0"), ("KMAX_MAP", "KMAX_MAP 1 400000000000 6400")]).is_ok());
    let e = map("qcn1-map", &[("KMAX_MAP", "KMAX_MAP 1 400000000000 6400")]).err().unwrap();
    assert_eq!((e[0].line, e[0].column, e[0].file.as_str()), (52, 10, "config.txt"));
    assert!(
        e[0].message.starts_with(
            "KMAX_MAP has no entry for 100G (100000000000 bit/s), the rate of link h0:p0 -- s17:p1 in topo.txt"
        ),
        "{}",
        e[0].message
    );
    assert_eq!(e[0].suggestion.as_deref(), Some("add `100000000000 <Kmax in KB>` to KMAX_MAP and make its count 2"));
    let e = map("qcn1-nomap", &[("PMAX_MAP", "")]).err().unwrap();
    assert_eq!((e[0].line, e[0].column), (1, 12), "at ENABLE_QCN: {e:#?}");
    assert_eq!(e[0].suggestion.as_deref(), Some("add a line `PMAX_MAP 1 100000000000 <Pmax>`"));
    let e = map("kmin-kmax", &[("KMIN_MAP", "KMIN_MAP 1 100000000000 2000")]).err().unwrap();
    assert_eq!((e[0].line, e[0].column), (53, 25));
    assert_eq!(e[0].message, "Kmin 2000 KB is above Kmax 1600 KB at 100G");
    let e = map("map-count", &[("KMIN_MAP", "KMIN_MAP 3 100000000000 400")]).err().unwrap();
    assert_eq!((e[0].line, e[0].column), (53, 10));
    assert!(e[0].expected.as_deref().unwrap().starts_with("`<n> <rate in bit/s> <threshold in KB> …`"));
}

#[test]
fn cc_mode() {
    for (mode, name) in [(3, "HPCC"), (7, "TIMELY"), (8, "DCTCP"), (10, "HPCC-PINT")] {
        let m = map(&format!("cc{mode}"), &[("CC_MODE", &format!("CC_MODE {mode}"))]).unwrap();
        assert_eq!(
            said(&m),
            [format!("CC_MODE {mode}: rocelab has no {name} model: the scenario runs without end-to-end congestion control (PFC only)")]
        );
        assert_eq!((m.warnings[0].line, m.warnings[0].column), (15, 9));
        assert!(!m.loaded.fabric.dcqcn.reaction_point && !m.loaded.fabric.dcqcn.notification_point);
    }
    let e = map("cc5", &[("CC_MODE", "CC_MODE 5")]).err().unwrap();
    assert_eq!(
        e[0].to_string(),
        "config.txt:15:9: error: CC_MODE `5` is not a congestion control of that simulator (expected 1 (DCQCN), 3 (HPCC), \
         7 (TIMELY), 8 (DCTCP) or 10 (HPCC-PINT)); rocelab models DCQCN: `CC_MODE 1`"
    );
}

#[test]
fn dcqcn_keys_are_written_explicitly() {
    let m = map(
        "dcqcn",
        &[
            ("ALPHA_RESUME_INTERVAL", "ALPHA_RESUME_INTERVAL 55"),
            ("RATE_DECREASE_INTERVAL", "RATE_DECREASE_INTERVAL 50"),
            ("CLAMP_TARGET_RATE", "CLAMP_TARGET_RATE 1"),
            ("RP_TIMER", "RP_TIMER 900"),
            ("EWMA_GAIN", "EWMA_GAIN 0.0625"),
            ("FAST_RECOVERY_TIMES", "FAST_RECOVERY_TIMES 5"),
            ("RATE_AI", "RATE_AI 50Mb/s"),
            ("RATE_HAI", "RATE_HAI 0.1Gb/s"),
            ("MIN_RATE", "MIN_RATE 100Mb/s"),
            ("DCTCP_RATE_AI", "DCTCP_RATE_AI 5Gb/s"),
        ],
    )
    .unwrap();
    assert!(said(&m).is_empty(), "{:?}", said(&m));
    let d = &m.loaded.fabric.dcqcn;
    assert_eq!(
        (d.alpha_update_interval, d.rate_reduce_interval, d.clamp_target_rate),
        (Time::us(55), Time::us(50), true)
    );
    assert_eq!((d.rate_increase_timer, d.g, d.fast_recovery_steps), (Time::us(900), 0.0625, 5));
    assert_eq!((d.additive_increase, d.hyper_increase, d.min_rate), (Rate::mbps(50), Rate::mbps(100), Rate::mbps(100)));
    assert!(m
        .yaml
        .lines()
        .any(|l| l.trim_start().starts_with("additive_increase: 50Mb/s") && l.ends_with("# RATE_AI 50Mb/s")));
    // A key without a usable default in that simulator: the profile's value, with a warning.
    let m = map("dcqcn-unset", &[("RP_TIMER", "")]).unwrap();
    assert_eq!(
        said(&m),
        ["RP_TIMER not set: that simulator has no usable default for it; the hpcc-compat profile's 300us is used"]
    );
    assert_eq!(m.loaded.fabric.dcqcn.rate_increase_timer, Time::us(300));
    let e = map("dcqcn-bad", &[("EWMA_GAIN", "EWMA_GAIN 2"), ("RP_TIMER", "RP_TIMER 0")]).err().unwrap();
    let at: Vec<(usize, usize)> = e.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(at, [(19, 10), (20, 11)], "{e:#?}");
    // RATE_BOUND 0: the reaction point off.
    let m = map("rate-bound", &[("RATE_BOUND", "RATE_BOUND 0")]).unwrap();
    assert!(said(&m)[0].starts_with("RATE_BOUND 0: that simulator then sends at line rate whatever DCQCN computes"));
    assert!(!m.loaded.fabric.dcqcn.reaction_point && m.loaded.fabric.dcqcn.notification_point);
}

#[test]
fn acks() {
    let m = map("ack1000", &[("L2_ACK_INTERVAL", "L2_ACK_INTERVAL 1000"), ("L2_CHUNK_SIZE", "L2_CHUNK_SIZE 8000")])
        .unwrap();
    assert!(said(&m).is_empty());
    let h = m.loaded.fabric.devices.iter().position(|d| d.name == "h1").unwrap();
    assert_eq!(m.loaded.fabric.rdma_transport(h).ack_every, 1);
    // Above a packet: per chunk for a queue pair's first L2_ACK_INTERVAL bytes, then per packet.
    let m = map("ack8000", &[("L2_ACK_INTERVAL", "L2_ACK_INTERVAL 8000")]).unwrap();
    assert!(said(&m)[0]
        .starts_with("L2_ACK_INTERVAL 8000: that simulator acknowledges each L2_CHUNK_SIZE (4000 B) boundary"));
    assert!(
        said(&m)[0].ends_with("ack_every 1, the rule of 99% of the flow file's bytes, is the nearest"),
        "{}",
        said(&m)[0]
    );
    assert_eq!(m.loaded.fabric.rdma_transport(h).ack_every, 1);
    let small = "2\n1 0 3 100 8000 2\n2 0 3 100 4000 2\n";
    let m =
        map_with("ack8000-small", &edited(&[("L2_ACK_INTERVAL", "L2_ACK_INTERVAL 8000")]), &star17(), small).unwrap();
    assert!(
        said(&m)[0].ends_with("ack_every 4, the rule of 100% of the flow file's bytes, is the nearest"),
        "{}",
        said(&m)[0]
    );
    assert_eq!(m.loaded.fabric.rdma_transport(h).ack_every, 4);
    let m = map("ack0", &[("L2_ACK_INTERVAL", "L2_ACK_INTERVAL 0")]).unwrap();
    assert!(said(&m)[0].contains("senders ignore every ACK"), "{:?}", said(&m));
    assert_eq!(m.loaded.fabric.rdma_transport(h).ack_every, 1);
    let m = map("ack-unset", &[("L2_ACK_INTERVAL", "")]).unwrap();
    assert!(said(&m)[0].starts_with("L2_ACK_INTERVAL (not set: that simulator's default 0): "), "{:?}", said(&m));
    let m = map("back0", &[("L2_BACK_TO_ZERO", "L2_BACK_TO_ZERO 1")]).unwrap();
    assert!(said(&m)[0].starts_with("L2_BACK_TO_ZERO 1: after a NACK that simulator goes back"));
    // ACK_HIGH_PRIO 0: ACKs in the data class, charged to the buffer.
    let m = map("ackprio0", &[("ACK_HIGH_PRIO", "ACK_HIGH_PRIO 0")]).unwrap();
    assert!(said(&m).is_empty());
    let f = &m.loaded.fabric;
    assert!(f.qos.class("control").is_none());
    assert_eq!(f.rdma_transport(h).ack_class, None);
    assert!(f.sim_model.control_in_buffer);
    assert!(f.sim_model.sources["control_in_buffer"].starts_with("hpcc-compat profile"));
}

#[test]
fn keys_rocelab_cannot_honour_warn() {
    let m = map(
        "warns",
        &[
            ("ERROR_RATE_PER_LINK", "ERROR_RATE_PER_LINK 0.001"),
            ("LINK_DOWN", "LINK_DOWN 100 1 17"),
            ("DATA_RATE", "DATA_RATE 100Gb/s"),
            ("LINK_DELAY", "LINK_DELAY 0.001ms"),
            ("PAUSE_TIME", "PAUSE_TIME 5"),
            ("USE_DYNAMIC_PFC_THRESHOLD", "USE_DYNAMIC_PFC_THRESHOLD 0"),
            ("ENABLE_QNC", "ENABLE_QNC 1"),
        ],
    )
    .unwrap();
    let w = said(&m);
    assert_eq!(w.len(), 5, "{w:#?}");
    assert_eq!(w[0], "unknown key `ENABLE_QNC` ignored (that simulator ignores it too)");
    assert_eq!(m.warnings[0].suggestion.as_deref(), Some("did you mean \"ENABLE_QCN\"?"));
    assert_eq!(w[1], "ERROR_RATE_PER_LINK 0.001 ignored: rocelab models loss from buffers, not from bit errors");
    assert_eq!(w[2], "LINK_DOWN 100 1 17: that simulator takes the link between nodes 1 and 17 down at 2 s + 100us; rocelab does not simulate link failures (it stays up)");
    assert_eq!(w[3], "DATA_RATE ignored: each link's rate and delay come from the topology file");
    assert_eq!(w[4], "LINK_DELAY ignored: each link's rate and delay come from the topology file");
    assert!(m
        .yaml
        .contains("USE_DYNAMIC_PFC_THRESHOLD 0 (that simulator's MMU uses its dynamic threshold either way)"));
    let e = map("novalue", &[("BUFFER_SIZE", "BUFFER_SIZE")]).err().unwrap();
    assert_eq!((e[0].line, e[0].column, e[0].message.as_str()), (55, 1, "BUFFER_SIZE has no value"));
}

#[test]
fn run_settings() {
    let m = map(
        "run",
        &[
            ("SIMULATOR_STOP_TIME", "SIMULATOR_STOP_TIME 2.5"),
            ("PACKET_PAYLOAD_SIZE", "PACKET_PAYLOAD_SIZE 4000"),
            ("BUFFER_SIZE", "BUFFER_SIZE 12"),
        ],
    )
    .unwrap();
    assert!(said(&m).is_empty());
    assert_eq!(m.loaded.scenario.simulation.duration, Time::ms(2500));
    assert_eq!(m.loaded.fabric.sim_model.payload, Some(Size::bytes(4000)));
    assert_eq!(m.loaded.fabric.device("s17").unwrap().buffer, Some(Size::mib(12)));
    // The profile's payload is left to the profile.
    assert!(!map("run-1000", &[]).unwrap().yaml.contains("payload:"));
    // Tracing: notes, not warnings, and only when tracing is on.
    let notes = |m: &Mapped| -> Vec<String> {
        m.notes.iter().map(|n| n.message.split(' ').next().unwrap().to_string()).collect()
    };
    assert_eq!(notes(&map("trace0", &[]).unwrap()), ["ACK_HIGH_PRIO"]);
    let m = map("trace1", &[("ENABLE_TRACE", "ENABLE_TRACE 1")]).unwrap();
    assert!(said(&m).is_empty());
    assert_eq!(notes(&m), ["TRACE_FILE", "TRACE_OUTPUT_FILE", "QLEN_MON_FILE", "ACK_HIGH_PRIO"]);
}

#[test]
fn headroom_per_port_where_delays_differ() {
    let topo = "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 2000ns 0\n2 3 400Gbps 1000ns 0\n";
    let m = map_with("hdrm", &edited(&[]), topo, &read(&format!("{REF}/fair2/flows.txt"))).unwrap();
    assert!(m.yaml.contains("headroom: {100G: 37500B, 400G: 150000B}"), "{}", m.yaml);
    assert!(m.yaml.contains("- {ports: [\"s3:p2\"], headroom: 75000B}"), "{}", m.yaml);
    let l = &m.loaded;
    let hd = |p: &str| l.fabric.port_settings(switch_port(l, "s3", p)).headroom;
    assert_eq!(
        (hd("p1"), hd("p2"), hd("p3")),
        (Some(Size::bytes(37_500)), Some(Size::bytes(75_000)), Some(Size::bytes(150_000)))
    );
    let al = |p: &str| l.fabric.port_settings(switch_port(l, "s3", p)).alpha;
    assert_eq!((al("p1"), al("p3")), (0.125, 0.5));
}

#[test]
fn one_lossless_class_per_priority_group() {
    let flows = "3\n1 0 3 100 1000 2\n2 0 5 100 1000 2\n3 0 5 100 1000 2.1\n";
    let m = map_with("pgs", &edited(&[]), &star17(), flows).unwrap();
    let names: Vec<(&str, u8)> = m.loaded.fabric.qos.classes.iter().map(|c| (c.name.as_str(), c.priority)).collect();
    assert_eq!(names, [("roce3", 3), ("roce5", 5), ("default", 0)]);
    let flows = "1\n1 0 0 100 1000 2\n";
    let m = map_with("pg0", &edited(&[]), &star17(), flows).unwrap();
    assert!(said(&m)[0].starts_with("flows with pg 0 travel in that simulator's queue 0"), "{:?}", said(&m));
    let names: Vec<(&str, u8)> = m.loaded.fabric.qos.classes.iter().map(|c| (c.name.as_str(), c.priority)).collect();
    assert_eq!(names, [("roce", 0), ("default", 1)]);
}

#[test]
fn bad_topology_and_flow_files_are_located_in_them() {
    let e = map_with("bad-topo", &edited(&[]), "3 1 2\n2\n0 2 100Gbps 1000ns 0\n", "0\n").err().unwrap();
    assert_eq!((e[0].file.as_str(), e[0].line), ("topo.txt", 1));
    let e = map_with("bad-flows", &edited(&[]), &star17(), "1\n1 0 3 100 0 2\n").err().unwrap();
    assert_eq!((e[0].file.as_str(), e[0].line, e[0].column), ("flows.txt", 2, 11));
}
