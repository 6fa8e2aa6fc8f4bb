//! rocelab-report end to end: a capture of a simulated run, read back by tshark (Debian's
//! Wireshark command line) field by field against what the capture logged.

use rocelab_report::pcap::{resolve_filter, CapturedKind, HeaderStack, PcapObserver, OPCODE_CNP};
use rocelab_report::tools;
use rocelab_sim::pfc::PfcFrame;
use rocelab_sim::{Direction, Observer, Packet, Time};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocelab-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Passes everything to the capture and keeps a copy of the first data packet, the template
/// of the synthetic ones.
struct Tee<'a> {
    pcap: &'a mut PcapObserver<Vec<u8>>,
    first: Option<Packet>,
}

impl Observer for Tee<'_> {
    fn on_packet(&mut self, t: Time, port: usize, p: &Packet, d: Direction) {
        self.first.get_or_insert(*p);
        self.pcap.on_packet(t, port, p, d)
    }
    fn on_pfc(&mut self, t: Time, port: usize, f: &PfcFrame, d: Direction) {
        self.pcap.on_pfc(t, port, f, d)
    }
}

/// The tshark fields read for every frame, in this order.
const FIELDS: &[&str] = &[
    "frame.len",
    "frame.time_epoch",
    "eth.src",
    "eth.dst",
    "vlan.priority",
    "vlan.id",
    "ip.src",
    "ip.dst",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.checksum.status",
    "udp.srcport",
    "udp.dstport",
    "infiniband.bth.opcode",
    "infiniband.bth.destqp",
    "infiniband.bth.psn",
    "infiniband.bth.padcnt",
    "infiniband.bth.a",
    "infiniband.bth.p_key",
    "infiniband.reserved",
    "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome",
    "infiniband.vendor",
    "macc.opcode",
    "macc.cbfc.enbv",
    "macc.cbfc.pause_time.c0",
    "macc.cbfc.pause_time.c1",
    "macc.cbfc.pause_time.c2",
    "macc.cbfc.pause_time.c3",
    "macc.cbfc.pause_time.c4",
    "macc.cbfc.pause_time.c5",
    "macc.cbfc.pause_time.c6",
    "macc.cbfc.pause_time.c7",
    "_ws.expert.message",
    "_ws.malformed",
];

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap_or_else(|_| panic!("not hex: {s}")),
        None => s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}")),
    }
}

fn mac(m: [u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

fn ip(a: u32) -> String {
    let b = a.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

#[test]
fn tshark_decodes_rocev2_pfc_and_cnp_as_logged() {
    let Some(tshark) = tools::require("tshark", &["tshark"], "apt-get install tshark") else { return };
    let loaded = rocelab_model::load_file(&workspace().join("examples/sim-incast-two-tier.yaml")).unwrap();
    // The DCQCN variant: RDMA WRITEs with RETH, ACKs with AETH, and the receivers' CNPs.
    let fabric = loaded.select(Some("dcqcn")).unwrap();
    let (scenario, _) = loaded.variant_scenario("dcqcn").unwrap();
    let mut built = rocelab_sim::from_model::build(&scenario, &fabric, None);
    // The first 400 us hold the incast's build-up, the first CNPs and leaf2's first pauses
    // towards the spine.
    built.config.end_time_ps = 400 * rocelab_sim::US;
    let filter = resolve_filter(&built.spec, &built.names, &["leaf2:Ethernet40".into()], &[], None).unwrap();
    let mut obs = PcapObserver::new(Vec::new(), &built.spec, Some(2), &filter).unwrap().with_log();
    let mut tee = Tee { pcap: &mut obs, first: None };
    rocelab_sim::run_with_observer(&built.spec, &built.traffic, &built.config, &mut tee).unwrap();
    let first = tee.first.expect("the run sent data");
    let run_cnps = obs.log().iter().filter(|c| matches!(c.frame.stack, HeaderStack::Cnp { .. })).count();
    assert!(run_cnps > 0, "the receivers' notification points sent CNPs across leaf2's uplink");
    // Synthetic packets after the run: tagged frames with PCP 5 on VLAN 2, and every
    // extension-header layout (READ requests and responses do not occur in this scenario).
    let port = filter.ports.as_ref().unwrap()[0];
    let synthetic = [(0x06, 4096), (0x0A, 1001), (0x0C, 0), (0x0D, 4096), (0x10, 998), (0x11, 0), (0x03, 1000)];
    for (i, (opcode, payload)) in synthetic.iter().enumerate() {
        let i = i as u32;
        let p = Packet {
            bth_opcode: *opcode,
            dest_qp: 0x0100 + 17 * i,
            psn: if *opcode == OPCODE_CNP { 0 } else { 0x00AB_0000 + i },
            tagged: i % 2 == 0,
            pcp: 5,
            dscp: if *opcode == OPCODE_CNP { 48 } else { 26 },
            ecn: if i == 3 { rocelab_sim::Ecn::Ce } else { rocelab_sim::Ecn::Ect0 },
            payload_bytes: *payload,
            udp_src_port: 50_000 + i as u16,
            ..first
        };
        obs.on_packet(built.config.end_time_ps + 1_000_000 * (i as u64 + 1), port, &p, Direction::Tx);
    }
    let log = obs.log().to_vec();
    let (stats, bytes) = obs.finish().unwrap();
    let data = log.iter().filter(|c| matches!(c.kind, CapturedKind::Data { .. })).count();
    let pfc: Vec<_> = log.iter().filter(|c| c.kind == CapturedKind::Pfc).collect();
    assert!(data > 500, "{data} data frames");
    assert!(pfc.len() >= 4, "{} PFC frames", pfc.len());
    let HeaderStack::Pfc(xoff) = pfc[0].frame.stack else { panic!("a PFC frame") };
    assert_eq!(xoff.quanta[3], 0xFFFF, "the first PFC frame is an XOFF of priority 3");
    assert!(pfc.iter().any(|c| matches!(c.frame.stack, HeaderStack::Pfc(f) if f.quanta == [0; 8])), "and XONs follow");
    assert_eq!(stats.frames as usize, log.len());

    let dir = temp_dir("tshark");
    let file = dir.join("incast.pcap");
    std::fs::write(&file, &bytes).unwrap();
    let mut cmd = Command::new(&tshark);
    cmd.args(["-n", "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=|", "-E", "occurrence=a"]);
    cmd.arg("-r").arg(&file);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), log.len(), "tshark read every frame");
    let (mut roce, mut cnps, mut pauses) = (0, 0, 0);
    for (n, (line, c)) in lines.iter().zip(&log).enumerate() {
        let v: Vec<&str> = line.split('|').collect();
        assert_eq!(v.len(), FIELDS.len(), "frame {}: {line}", n + 1);
        let get = |name: &str| v[FIELDS.iter().position(|f| *f == name).unwrap()];
        let at = format!("frame {} ({line})", n + 1);
        assert_eq!(num(get("frame.len")), c.len as u64, "{at}");
        assert_eq!(
            get("frame.time_epoch"),
            format!("{}.{:09}", c.time_ps / 1_000_000_000_000, c.time_ps / 1000 % 1_000_000_000),
            "{at}"
        );
        assert_eq!(get("eth.src"), mac(c.frame.src_mac), "{at}");
        assert_eq!(get("eth.dst"), mac(c.frame.dst_mac), "{at}");
        assert_eq!(get("_ws.expert.message"), "", "{at}: expert info");
        assert_eq!(get("_ws.malformed"), "", "{at}: malformed");
        match (c.frame.stack, c.frame.tag) {
            (HeaderStack::Pfc(f), _) => {
                pauses += 1;
                assert_eq!(num(get("macc.opcode")), 0x0101, "{at}");
                assert_eq!(num(get("macc.cbfc.enbv")), f.class_enable as u64, "{at}");
                for (p, q) in f.quanta.iter().enumerate() {
                    assert_eq!(num(get(&format!("macc.cbfc.pause_time.c{p}"))), *q as u64, "{at}: class {p}");
                }
                assert_eq!(get("infiniband.bth.opcode"), "", "{at}");
            }
            (stack, tag) => {
                let (i, bth, reth, aeth) = match stack {
                    HeaderStack::RoceV2 { ip, bth, reth, aeth, .. } => (ip, bth, reth, aeth),
                    HeaderStack::Cnp { ip, bth } => (ip, bth, None, None),
                    HeaderStack::Pfc(_) => unreachable!(),
                };
                if let Some(t) = tag {
                    assert_eq!((num(get("vlan.priority")), num(get("vlan.id"))), (t.pcp as u64, t.vid as u64), "{at}");
                } else {
                    assert_eq!(get("vlan.id"), "", "{at}");
                }
                assert_eq!((get("ip.src"), get("ip.dst")), (ip(i.src).as_str(), ip(i.dst).as_str()), "{at}");
                assert_eq!(
                    (num(get("ip.dsfield.dscp")), num(get("ip.dsfield.ecn"))),
                    (i.dscp as u64, i.ecn as u64),
                    "{at}"
                );
                assert_eq!(get("ip.checksum.status"), "1", "{at}: IPv4 header checksum good");
                assert_eq!((num(get("udp.srcport")), num(get("udp.dstport"))), (i.udp_src_port as u64, 4791), "{at}");
                assert_eq!(num(get("infiniband.bth.opcode")), bth.opcode as u64, "{at}");
                assert_eq!(num(get("infiniband.bth.destqp")), bth.dest_qp as u64, "{at}");
                assert_eq!(num(get("infiniband.bth.psn")), bth.psn as u64, "{at}");
                assert_eq!(num(get("infiniband.bth.padcnt")), bth.pad as u64, "{at}");
                assert_eq!(num(get("infiniband.bth.a")) == 1, bth.ack_req, "{at}");
                assert_eq!(num(get("infiniband.bth.p_key")), 0xFFFF, "{at}");
                if bth.opcode == OPCODE_CNP {
                    cnps += 1;
                    // Wireshark 4.0 knows 0x80 as CNP, not the RoCEv2 annex's 0x81: it shows the
                    // FECN/BECN byte as reserved and the 16 reserved bytes and the ICRC as
                    // vendor data.
                    assert_eq!(get("infiniband.reserved"), "40", "{at}: BECN set");
                    let vendor = get("infiniband.vendor").rsplit(',').next().unwrap();
                    assert_eq!(&vendor[..32], "0".repeat(32), "{at}: 16 reserved bytes");
                    assert_eq!(vendor.len(), 40, "{at}: then the ICRC");
                } else {
                    roce += 1;
                    match reth {
                        Some(r) => assert_eq!(num(get("infiniband.reth.dmalen")), r.dma_length as u64, "{at}"),
                        None => assert_eq!(get("infiniband.reth.dmalen"), "", "{at}"),
                    }
                    match aeth {
                        Some(a) => assert_eq!(num(get("infiniband.aeth.syndrome")), a.syndrome as u64, "{at}"),
                        None => assert_eq!(get("infiniband.aeth.syndrome"), "", "{at}"),
                    }
                }
            }
        }
    }
    assert_eq!((roce, cnps, pauses), (data - run_cnps, run_cnps, pfc.len()));
}
