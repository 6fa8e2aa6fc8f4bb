//! Configurations rocelab renders, read back by the checker's importers: what `rocelab config`
//! writes for SONiC, NVIDIA Onyx, Arista EOS, Cisco NX-OS, Dell OS10, HPE Comware and NVIDIA
//! Cumulus imports as the state the intent describes, so
//! that `rocelab check --import` on a fabric configured by rocelab finds what was intended.
//! The fabrics are the files rocelab-config's tests render (`rocelab-config/tests/fabrics/`):
//! the test lives here so that the configuration crate need not depend on the checker.

use rocelab_config::{render_device, Templates, Typed};
use rocelab_model::{load_str, ResolvedFabric};
use std::path::Path;

fn fabric(yaml: &str) -> ResolvedFabric {
    load_str(yaml, "t.yaml", Path::new(".")).unwrap_or_else(|d| panic!("{d:?}")).fabric
}

fn device_text(f: &ResolvedFabric, name: &str) -> (String, Vec<rocelab_config::Finding>) {
    let (file, findings) = render_device(f, name, &Templates::builtin()).unwrap();
    (file.unwrap_or_else(|| panic!("no file for {name}: {findings:?}")).text, findings)
}

/// Demartek guide, Mellanox SN2410: RoCE on priority 5 in VLAN 2, traffic class 2, the guide's
/// pools and buffers, ETS 90/10 and ECN 150/1500 KB.
const DEMARTEK_ONYX: &str = include_str!("../../rocelab-config/tests/fabrics/demartek-onyx.yaml");

/// Arista/Pure guide: hosts send ToS 106 (DSCP 26), the leaf keeps DSCP 24 in traffic class 3,
/// ECN 256/512 KB at 100 % on tx-queue 3, PFC priority 3 no-drop, VXLAN ECN propagation.
const ARISTA_PURE: &str = include_str!("../../rocelab-config/tests/fabrics/arista-pure.yaml");

/// The SONiC benchmark's policy on two switches: DSCP trust, priority 3 lossless with ECN and
/// ETS 90/10, CNPs strict on priority 6.
const SONIC: &str = include_str!("../../rocelab-config/tests/fabrics/sonic-pair.yaml");

#[test]
fn sonic_config_db_round_trips_through_the_importer() {
    let f = fabric(SONIC);
    let leaf = f.switches().next().unwrap().name.clone();
    let (text, _) = device_text(&f, &leaf);
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    for t in [
        "PORT_QOS_MAP",
        "DSCP_TO_TC_MAP",
        "TC_TO_PRIORITY_GROUP_MAP",
        "TC_TO_QUEUE_MAP",
        "WRED_PROFILE",
        "SCHEDULER",
        "QUEUE",
        "BUFFER_POOL",
        "BUFFER_PROFILE",
        "BUFFER_PG",
        "CABLE_LENGTH",
        "PFC_WD",
    ] {
        assert!(json.get(t).is_some(), "no {t}");
    }
    let imported = rocelab_verify::import::sonic::parse(&text, "leaf.json", &leaf);
    // Tables rocelab sets that the checker does not read yet are the only lines it skips.
    for n in &imported.not_understood {
        assert!(["PFC_WD", "pfcwd_sw_enable"].iter().any(|t| n.text.contains(t)), "{n}");
    }
    let (name, _, q, _) = &imported.ports[0];
    let host_port = f.device(&leaf).unwrap().ports.iter().find(|p| p.name == *name).unwrap();
    assert!(host_port.link.is_some());
    assert_eq!(q.pfc, 1 << 3, "PFC on priority 3 only");
    assert_eq!(q.dscp_to_priority[26], 3);
    assert_eq!(q.dscp_to_priority[48], 6);
    let ecn = q.ecn[3].as_ref().expect("ECN on queue 3");
    assert_eq!((ecn.kmin, ecn.kmax), (150_000, 1_500_000));
    assert_eq!(q.mtu, 9100);
    // The cable length the buffers were sized for, and the lossless queue's egress buffer.
    assert!(q.cable.is_some(), "CABLE_LENGTH read");
    assert!(q.egress_lossless.is_some_and(|m| m & (1 << 3) != 0), "{:?}", q.egress_lossless);
}

#[test]
fn onyx_config_round_trips_through_the_importer() {
    let f = fabric(DEMARTEK_ONYX);
    let (text, _) = device_text(&f, "sn2410");
    let imported = rocelab_verify::import::onyx::parse(&text, "sn2410.txt", "sn2410");
    assert!(imported.not_understood.is_empty(), "{:?}", imported.not_understood);
    let intent = rocelab_verify::from_intent(&f);
    let sw = intent.devices.iter().find(|d| d.name == "sn2410").unwrap();
    let mut compared = 0;
    for p in sw.ports.iter().filter(|p| p.link.is_some()) {
        let want = &intent.profiles[p.qos as usize];
        let (_, speed, got, _) = imported.ports.iter().find(|(n, ..)| *n == p.name).expect("port imported");
        assert_eq!((got.trust, got.pfc, got.link_pause), (want.trust, want.pfc, want.link_pause), "{}", p.name);
        assert_eq!(got.mtu, want.mtu, "{} MTU", p.name);
        let link = f.links.iter().find(|l| [l.a, l.b].iter().any(|e| f.port_label(*e) == format!("sn2410:{}", p.name)));
        assert_eq!(Some(*speed), link.map(|l| l.speed), "{} speed", p.name);
        for prio in (0..8).filter(|x| want.pfc & (1 << x) != 0) {
            assert_eq!(got.priority_to_pg[prio], want.priority_to_pg[prio], "{} pg of {prio}", p.name);
            let pg = want.priority_to_pg[prio] as usize;
            assert_eq!(got.headroom[pg], want.headroom[pg], "{} headroom of pg {pg}", p.name);
        }
        for c in &f.qos.classes {
            let prio = c.priority as usize;
            let (qg, qw) = (got.priority_to_queue[prio] as usize, want.priority_to_queue[prio] as usize);
            assert_eq!(qg, qw, "{} queue of {prio}", p.name);
            assert_eq!(got.sched[qg], want.sched[qw], "{} ETS of queue {qg}", p.name);
            assert_eq!(got.ecn[qg].map(|e| (e.kmin, e.kmax)), want.ecn[qw].map(|e| (e.kmin, e.kmax)), "{} ECN", p.name);
        }
        compared += 1;
    }
    assert!(compared > 0);
}

#[test]
fn arista_config_round_trips_through_the_importer() {
    let f = fabric(ARISTA_PURE);
    let (text, _) = device_text(&f, "leaf3");
    let imported = rocelab_verify::import::arista::parse(&text, "leaf3.txt", "leaf3");
    let (_, _, q, _) = imported.ports.iter().find(|(n, ..)| n == "Ethernet51/1").expect("port imported");
    assert_eq!(q.pfc, 1 << 3);
    let ecn = q.ecn[3].as_ref().expect("ECN on tx-queue 3");
    assert_eq!((ecn.kmin, ecn.kmax, ecn.pmax), (256 * 1024, 512 * 1024, 1.0));
    // The re-mark policy-map and VXLAN DSCP propagation are all the checker's importer skips.
    for n in &imported.not_understood {
        assert!(
            ["policy-map", "service-policy", "vxlan qos dscp propagation"].iter().any(|t| n.text.contains(t)),
            "{n}"
        );
    }
}

/// `fabric` with every switch on `platform` (the test fabrics name one platform each).
fn on_platform(yaml: &str, platform: &str) -> ResolvedFabric {
    let mut text = yaml.to_string();
    for p in ["arista-eos", "nvidia-onyx", "sonic"] {
        text = text.replace(&format!("platform: {p}"), &format!("platform: {platform}"));
    }
    fabric(&text)
}

/// Writes each switch's rendered configuration and a links file of the fabric's cables into a
/// fresh directory, imports it as `rocelab check --import DIR --links LINKS` does and returns the
/// findings of the check with the import's own.
fn check_import(f: &ResolvedFabric, tag: &str, edit: impl Fn(&str) -> String) -> Vec<rocelab_verify::Finding> {
    let dir = std::env::temp_dir().join(format!("rocelab-roundtrip-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for sw in f.switches() {
        let (text, _) = device_text(f, &sw.name);
        std::fs::write(dir.join(format!("{}.cfg", sw.name)), edit(&text)).unwrap();
    }
    let mut links = String::from("links:\n");
    for l in &f.links {
        links += &format!(
            "  - {{a: \"{}\", b: \"{}\", speed: {}G}}\n",
            f.port_label(l.a),
            f.port_label(l.b),
            l.speed.0 / 1_000_000_000
        );
    }
    let hosts: Vec<&str> = f.hosts().map(|h| h.name.as_str()).collect();
    links += &format!("hosts: [{}]\n", hosts.join(", "));
    // The fabric's policy stated, so that the check holds the devices to it rather than to
    // their own majority.
    let lossless: Vec<&rocelab_model::qos::TrafficClass> = f.qos.classes.iter().filter(|c| c.lossless).collect();
    let prios: Vec<String> = lossless.iter().map(|c| c.priority.to_string()).collect();
    links += &format!("policy: {{lossless: [{}]", prios.join(", "));
    if let Some(d) =
        lossless.first().and_then(|c| c.dscp.first()).filter(|_| f.qos.marking == rocelab_model::qos::Marking::Dscp)
    {
        links += &format!(", rdma_dscp: {d}");
    }
    links += "}\n";
    let links_path = std::env::temp_dir().join(format!("rocelab-roundtrip-{tag}-{}-links.yaml", std::process::id()));
    std::fs::write(&links_path, links).unwrap();
    let files = rocelab_verify::import::read_dir(&dir).unwrap();
    let imported = rocelab_verify::import::import_files(files, &dir, Some(&links_path)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&links_path);
    assert!(imported.not_understood.is_empty(), "{:?}", imported.not_understood);
    assert!(imported.errors.is_empty(), "{:?}", imported.errors);
    let mut findings = imported.findings.clone();
    findings.extend(rocelab_verify::check(&imported.state));
    findings
}

/// Comware: fabric → `ComwareConfig` → text → parsed `ComwareConfig` gives the same value, for
/// every switch (the cable's far end, `peer`, is no command and is the one field left empty),
/// and `check --import` of the text finds nothing.
fn comware_round_trip(yaml: &str, tag: &str) {
    let f = on_platform(yaml, "hpe-comware");
    let mut switches = 0;
    for (idx, sw) in f.devices.iter().enumerate().filter(|(_, d)| d.role == rocelab_model::Role::Switch) {
        let (mut typed, _) = rocelab_config::comware::build(&f, idx);
        let (text, _) = device_text(&f, &sw.name);
        let parsed = rocelab_config::comware::parse::parse(&text, &sw.name);
        assert!(parsed.unknown.is_empty(), "{}: {:?}", sw.name, parsed.unknown);
        for i in &mut typed.interfaces {
            i.peer.clear();
        }
        assert_eq!(parsed.config, typed, "{}", sw.name);
        switches += 1;
    }
    assert!(switches > 0);
    let findings = check_import(&f, tag, str::to_string);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn comware_round_trips_on_the_pcp_vlan_fabric() {
    comware_round_trip(DEMARTEK_ONYX, "comware-pcp");
    // The check reads what the importer found: the same text without its no-drop priority
    // leaves RoCE's priority lossy on the switch.
    let f = on_platform(DEMARTEK_ONYX, "hpe-comware");
    let findings = check_import(&f, "comware-pcp-lossy", |t| t.replace("priority-flow-control no-drop dot1p 5\n", ""));
    assert!(findings.iter().any(|x| x.id.starts_with("PFC")), "{findings:#?}");
}

#[test]
fn comware_round_trips_on_the_dscp_fabric() {
    comware_round_trip(ARISTA_PURE, "comware-dscp");
}

#[test]
fn comware_round_trips_on_the_leaf_spine() {
    comware_round_trip(SONIC, "comware-leaf-spine");
}

/// The test fabrics with Cumulus's Linux port names (`swp1`) for the Onyx and EOS ones.
fn cumulus_names(yaml: &str) -> String {
    yaml.replace("model: SN2410", "ports: [{names: swp1-2, speed: 25G}]")
        .replace("sn2410:eth1/", "sn2410:swp")
        .replace("names: Ethernet49-54/1", "names: swp49-54")
        .replace("/1\"", "\"")
        .replace("leaf3:Ethernet", "leaf3:swp")
}

/// Cumulus at `release`: fabric → `CumulusConfig` → NVUE script → parsed `CumulusConfig` gives
/// the same value for every switch, and `check --import` of the scripts finds nothing.
fn cumulus_round_trip(yaml: &str, release: &str, tag: &str) {
    let yaml = cumulus_names(yaml);
    let yaml = yaml.replace("role: switch,", &format!("role: switch, os_version: \"{release}\","));
    let yaml =
        yaml.replace("        role: switch\n", &format!("        role: switch\n        os_version: \"{release}\"\n"));
    let yaml =
        yaml.replace("leaf: {platform: sonic}", &format!("leaf: {{platform: sonic, os_version: \"{release}\"}}"));
    let yaml =
        yaml.replace("spine: {platform: sonic}", &format!("spine: {{platform: sonic, os_version: \"{release}\"}}"));
    let f = on_platform(&yaml, "nvidia-cumulus");
    let mut switches = 0;
    for (idx, sw) in f.devices.iter().enumerate().filter(|(_, d)| d.role == rocelab_model::Role::Switch) {
        let (typed, _) = rocelab_config::cumulus::build(&f, idx);
        assert_eq!(typed.release.name, release, "{}", sw.name);
        let (text, _) = device_text(&f, &sw.name);
        let parsed = rocelab_config::cumulus::parse::parse(&text, &sw.name);
        assert!(parsed.unknown.is_empty(), "{}: {:?}", sw.name, parsed.unknown);
        assert_eq!(parsed.config, typed, "{}", sw.name);
        // The release's spelling, read from the text: 5.3 takes the cable length under `roce`.
        assert_eq!(text.contains("nv set qos roce cable-length"), release == "5.3", "{}", sw.name);
        assert_eq!(parsed.config.cable_length_under_roce, release == "5.3", "{}", sw.name);
        // The release's spelling, read from the text: 5.3 takes the cable length under `roce`.
        assert_eq!(text.contains("nv set qos roce cable-length"), release == "5.3", "{}", sw.name);
        assert_eq!(parsed.config.cable_length_under_roce, release == "5.3", "{}", sw.name);
        switches += 1;
    }
    assert!(switches > 0);
    let findings = check_import(&f, tag, str::to_string);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn cumulus_round_trips_on_the_pcp_vlan_fabric_for_5_3_and_5_6() {
    cumulus_round_trip(DEMARTEK_ONYX, "5.3", "cumulus-pcp-5.3");
    cumulus_round_trip(DEMARTEK_ONYX, "5.6", "cumulus-pcp-5.6");
    // The check reads what the importer found: without its PFC priority the switch is lossy.
    let f = on_platform(
        &cumulus_names(DEMARTEK_ONYX).replace("role: switch,", "role: switch, os_version: \"5.6\","),
        "nvidia-cumulus",
    );
    let findings =
        check_import(&f, "cumulus-lossy", |t| t.replace("nv set qos pfc default-global switch-priority 5\n", ""));
    assert!(findings.iter().any(|x| x.id.starts_with("PFC")), "{findings:#?}");
}

#[test]
fn cumulus_round_trips_on_the_dscp_fabric_for_5_3_and_5_6() {
    cumulus_round_trip(ARISTA_PURE, "5.3", "cumulus-dscp-5.3");
    cumulus_round_trip(ARISTA_PURE, "5.6", "cumulus-dscp-5.6");
}

#[test]
fn cumulus_round_trips_on_the_leaf_spine_for_5_3_and_5_6() {
    cumulus_round_trip(SONIC, "5.3", "cumulus-leaf-spine-5.3");
    cumulus_round_trip(SONIC, "5.6", "cumulus-leaf-spine-5.6");
}

/// The test fabrics with every switch moved to `platform`: a leaf-spine (SONiC pair), a
/// one-switch PCP+VLAN fabric (Demartek) and a DSCP leaf with VXLAN (Arista/Pure).
fn fabrics_on(platform: &str) -> Vec<(&'static str, ResolvedFabric)> {
    [("sonic-pair", SONIC), ("demartek-onyx", DEMARTEK_ONYX), ("arista-pure", ARISTA_PURE)]
        .into_iter()
        .map(|(name, yaml)| {
            let moved = yaml
                .replace("platform: sonic", &format!("platform: {platform}"))
                .replace("platform: nvidia-onyx", &format!("platform: {platform}"))
                .replace("platform: arista-eos", &format!("platform: {platform}"));
            (name, fabric(&moved))
        })
        .collect()
}

/// What the checker reads of a rendered switch equals what the intent says of its ports: trust,
/// PFC, link pause, MTU, the classes' queues, ETS and ECN. ECN thresholds are whole `unit`s of
/// bytes on the device (the renderer reports the rounding as a warning), so they agree to within
/// one unit.
fn assert_ports_as_intended(f: &ResolvedFabric, sw: &str, imported: &rocelab_verify::import::DeviceConfig, unit: u64) {
    let intent = rocelab_verify::from_intent(f);
    let d = intent.devices.iter().find(|d| d.name == sw).unwrap();
    let mut compared = 0;
    for p in d.ports.iter().filter(|p| p.link.is_some()) {
        let want = &intent.profiles[p.qos as usize];
        let (_, _, got, _) = imported.ports.iter().find(|(n, ..)| *n == p.name).expect("port imported");
        let at = format!("{sw}:{}", p.name);
        assert_eq!((got.trust, got.pfc, got.link_pause), (want.trust, want.pfc, want.link_pause), "{at}");
        assert_eq!(got.mtu, want.mtu, "{at} MTU");
        for c in &f.qos.classes {
            let prio = c.priority as usize;
            let (qg, qw) = (got.priority_to_queue[prio] as usize, want.priority_to_queue[prio] as usize);
            assert_eq!(qg, qw, "{at} queue of priority {prio}");
            assert_eq!(got.sched[qg], want.sched[qw], "{at} ETS of queue {qg}");
            match (got.ecn[qg], want.ecn[qw]) {
                (Some(g), Some(w)) => {
                    assert!(g.kmin.abs_diff(w.kmin) < unit && g.kmax.abs_diff(w.kmax) < unit, "{at} ECN {g:?} {w:?}");
                    assert_eq!(g.pmax, w.pmax, "{at} ECN probability of queue {qg}");
                }
                (g, w) => assert_eq!(g.is_some(), w.is_some(), "{at} ECN of queue {qg}"),
            }
            for d in c.dscp.iter().filter(|_| want.trust == rocelab_model::qos::Marking::Dscp) {
                assert_eq!(got.dscp_to_priority[*d as usize], want.dscp_to_priority[*d as usize], "{at} DSCP {d}");
            }
        }
        if let Some(v) = f.qos.vlan.filter(|_| f.qos.marking == rocelab_model::qos::Marking::Pcp) {
            let vlans = got.vlans.as_ref().expect("the port's VLANs");
            assert!(vlans.is_tagged(v) && vlans.undefined.is_empty(), "{at}: {vlans:?}");
        }
        compared += 1;
    }
    assert!(compared > 0, "{sw}: no cabled port compared");
}

/// Fabric → typed → text → parsed → typed gives the typed value back, and the checker's state
/// of it is the intent's, for every switch of every test fabric.
#[test]
fn nxos_running_config_round_trips_through_its_typed_configuration() {
    let mut switches = 0;
    for (name, f) in fabrics_on("cisco-nxos") {
        for (i, d) in f.devices.iter().enumerate().filter(|(_, d)| d.role == rocelab_model::fabric::Role::Switch) {
            let Ok((Typed::CiscoNxos(typed), _)) = rocelab_config::build(&f, i, &[]) else {
                panic!("{name}/{}: no NX-OS configuration", d.name)
            };
            let (text, _) = device_text(&f, &d.name);
            let parsed = rocelab_config::nxos::parse::parse(&text, "sw");
            assert!(parsed.unknown.is_empty(), "{name}/{}: {:?}", d.name, parsed.unknown);
            assert_eq!(parsed.config, typed, "{name}/{}", d.name);
            assert_eq!(rocelab_verify::import::recognise(&text), Some(rocelab_verify::import::Format::Nxos));
            let device = rocelab_verify::import::nxos::to_device(parsed, "sw.txt");
            assert!(device.not_understood.is_empty(), "{name}/{}: {:?}", d.name, device.not_understood);
            assert_ports_as_intended(&f, &d.name, &device, 1024);
            switches += 1;
        }
    }
    assert!(switches >= 5, "{switches}");
}

#[test]
fn os10_running_configuration_round_trips_through_its_typed_configuration() {
    let mut switches = 0;
    for (name, f) in fabrics_on("dell-os10") {
        for (i, d) in f.devices.iter().enumerate().filter(|(_, d)| d.role == rocelab_model::fabric::Role::Switch) {
            let Ok((Typed::DellOs10(typed), _)) = rocelab_config::build(&f, i, &[]) else {
                panic!("{name}/{}: no OS10 configuration", d.name)
            };
            let (text, _) = device_text(&f, &d.name);
            let parsed = rocelab_config::os10::parse::parse(&text, "sw");
            assert!(parsed.unknown.is_empty(), "{name}/{}: {:?}", d.name, parsed.unknown);
            assert_eq!(parsed.config, typed, "{name}/{}", d.name);
            assert_eq!(rocelab_verify::import::recognise(&text), Some(rocelab_verify::import::Format::Os10));
            let device = rocelab_verify::import::os10::to_device(parsed, "sw.txt");
            assert!(device.not_understood.is_empty(), "{name}/{}: {:?}", d.name, device.not_understood);
            assert_ports_as_intended(&f, &d.name, &device, 1000);
            switches += 1;
        }
    }
    assert!(switches >= 5, "{switches}");
}

/// `rocelab config` then `rocelab check --import` of what it wrote, with the fabric's cabling as
/// a links file: the findings of the check. `without_pfc` leaves PFC off the first switch's
/// ports, as an operator who skipped those lines would.
fn check_import_of_rendered(f: &ResolvedFabric, tag: &str, without_pfc: bool) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("rocelab-roundtrip-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (i, d) in f.switches().enumerate() {
        let (mut text, _) = device_text(f, &d.name);
        if without_pfc && i == 0 {
            text = text.lines().filter(|l| !l.contains("priority-flow-control mode on")).collect::<Vec<_>>().join("\n");
        }
        std::fs::write(dir.join(format!("{}.txt", d.name)), text).unwrap();
    }
    let mut links = String::from("links:\n");
    for l in &f.links {
        links += &format!("  - {{a: \"{}\", b: \"{}\", speed: {}}}\n", f.port_label(l.a), f.port_label(l.b), l.speed);
    }
    let hosts: Vec<&str> =
        f.devices.iter().filter(|d| d.role != rocelab_model::fabric::Role::Switch).map(|d| d.name.as_str()).collect();
    links += &format!("hosts: [{}]\n", hosts.join(", "));
    let links_path = dir.with_extension("links.yaml");
    std::fs::write(&links_path, links).unwrap();
    let imported = rocelab_verify::import::import_dir(&dir, Some(&links_path));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&links_path);
    let imported = imported.unwrap_or_else(|e| panic!("{tag}: {e}"));
    assert!(imported.not_understood.is_empty(), "{tag}: {:?}", imported.not_understood);
    let st = &imported.state;
    let lossless = st.devices.iter().flat_map(|d| &d.ports).filter(|p| st.profiles[p.qos as usize].pfc != 0).count();
    assert!(without_pfc || lossless > 0, "{tag}: no lossless port imported");
    let findings = rocelab_verify::check(&imported.state).into_iter().chain(imported.findings);
    findings.map(|x| format!("{} {}:{} {}", x.id, x.device, x.port.unwrap_or_default(), x.what)).collect()
}

#[test]
fn check_import_of_rendered_nxos_and_os10_configurations_finds_nothing() {
    for platform in ["cisco-nxos", "dell-os10"] {
        for (name, f) in fabrics_on(platform) {
            let found = check_import_of_rendered(&f, &format!("{platform}-{name}"), false);
            assert!(found.is_empty(), "{platform}/{name}: {found:#?}");
            // The same check does see a switch left without PFC, where other switches say the
            // policy (without a `policy` in the links file it is the devices' majority).
            if f.switches().count() < 2 {
                continue;
            }
            let found = check_import_of_rendered(&f, &format!("{platform}-{name}-nopfc"), true);
            assert!(found.iter().any(|x| x.starts_with("PFC-")), "{platform}/{name}: {found:#?}");
        }
    }
}
