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

/// The tshark fields of the Ethernet, 802.1Q and IPv4 headers and of tshark's verdicts, read
/// for every frame by both capture tests.
const COMMON_FIELDS: &[&str] = &[
    "frame.len",
    "eth.src",
    "eth.dst",
    "vlan.priority",
    "vlan.id",
    "ip.src",
    "ip.dst",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.checksum.status",
    "_ws.expert.message",
    "_ws.malformed",
];

/// The fields of a test: the common ones, then `extra`.
fn fields(extra: &[&'static str]) -> Vec<&'static str> {
    COMMON_FIELDS.iter().chain(extra).copied().collect()
}

/// The tshark fields read for every frame of the RoCE capture beside the common ones.
const FIELDS: &[&str] = &[
    "frame.time_epoch",
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
    let names = fields(FIELDS);
    let lines = tshark_fields(&tshark, &file, &names, &["ip.check_checksum:TRUE"]);
    assert_eq!(lines.len(), log.len(), "tshark read every frame");
    let (mut roce, mut cnps, mut pauses) = (0, 0, 0);
    for (n, (line, c)) in lines.iter().zip(&log).enumerate() {
        let v: Vec<&str> = line.split('|').collect();
        assert_eq!(v.len(), names.len(), "frame {}: {line}", n + 1);
        let get = |name: &str| v[names.iter().position(|f| *f == name).unwrap()];
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
                    other => panic!("{at}: a RoCE run captured {other:?}"),
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

/// The tshark fields read for every frame of the TCP capture beside the common ones.
const TCP_FIELDS: &[&str] = &[
    "tcp.srcport",
    "tcp.dstport",
    "tcp.seq_raw",
    "tcp.ack_raw",
    "tcp.hdr_len",
    "tcp.flags",
    "tcp.window_size_value",
    "tcp.len",
    "tcp.checksum.status",
    "tcp.options.timestamp.tsval",
    "tcp.options.timestamp.tsecr",
    "tcp.options.sack_le",
    "tcp.options.sack_re",
    "macc.opcode",
    "macc.pause_time",
];

/// The tshark command line reading `file` with `fields`.
fn tshark_fields(tshark: &Path, file: &Path, fields: &[&str], prefs: &[&str]) -> Vec<String> {
    let mut cmd = Command::new(tshark);
    cmd.args(["-n", "-T", "fields", "-E", "separator=|", "-E", "occurrence=a"]);
    for p in prefs {
        cmd.args(["-o", p]);
    }
    cmd.arg("-r").arg(file);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn tshark_decodes_tcp_segments_and_802_3x_pause_as_logged() {
    use rocelab_sim::tcp::TcpHeader;
    let Some(tshark) = tools::require("tshark", &["tshark"], "apt-get install tshark") else { return };
    // The EqualLogic congested SAN (802.3x on every port, no DCB) with iperf from two array
    // members into the host's one 10GbE port: TCP segments and ACKs on the host's link, and the
    // switch's PAUSE frames towards member1 (the example's members run without HyStart, so their
    // slow start runs on into the switch's buffer within the 3 ms).
    // (The example's fabric and variants; its own vdbench workloads are replaced.)
    let base = std::fs::read_to_string(workspace().join("examples/dell-equallogic-congested-san.yaml")).unwrap();
    let base = base.split("\nsimulation:").next().unwrap().to_string() + "\n";
    let text = format!(
        "{base}simulation: {{duration: 3ms}}\nworkloads:\n  iperf:\n    - {{name: a, client: member1, server: host}}\n    - {{name: b, client: member2, server: host, bytes: 1MB}}\n"
    );
    let loaded = rocelab_model::load_str(&text, "san.yaml", &workspace().join("examples")).unwrap();
    let built = rocelab_sim::from_model::build(&loaded.scenario, &loaded.fabric, None);
    let ports = ["san-sw1:TenGigabitEthernet0/0".to_string(), "san-sw1:TenGigabitEthernet0/1".to_string()];
    let filter = resolve_filter(&built.spec, &built.names, &ports, &[], None).unwrap();
    let mut obs = PcapObserver::new(Vec::new(), &built.spec, None, &filter).unwrap().with_log();
    let results = rocelab_sim::run_with_observer(&built.spec, &built.traffic, &built.config, &mut obs).unwrap();
    results.check_conservation().unwrap();
    // Synthetic segments after the run: priority-tagged with PCP 5, CE, ECE and CWR, with and
    // without options, sequence numbers about to wrap.
    let port = filter.ports.as_ref().unwrap()[0];
    let flags = [0x10u8, 0x50, 0x90, 0xD8];
    for (i, f) in flags.iter().enumerate() {
        let p = Packet {
            kind: rocelab_sim::packet::PacketKind::Tcp,
            flow: 0,
            src: 2,
            dst: 1,
            udp_src_port: 40_000,
            udp_dst_port: 5201,
            tagged: true,
            pcp: 5,
            dscp: 10,
            ecn: if i % 2 == 0 { rocelab_sim::Ecn::Ce } else { rocelab_sim::Ecn::Ect0 },
            bth_opcode: *f,
            dest_qp: 0,
            psn: 0,
            payload_bytes: 100 * i as u32,
            header_bytes: 0,
            frame_bytes: rocelab_sim::tcp::tcp_frame_bytes(100 * i as u32, true, i == 3)
                + if i > 0 { 4 + 8 * i as u32 } else { 0 },
            sent_at: 0,
            flow_hash: 0,
            priority: 5,
            ext: 0,
        };
        let h = TcpHeader {
            src_port: 40_000,
            dst_port: 5201,
            seq: u32::MAX - 50 + i as u32,
            ack: 0x1234_5678,
            flags: *f,
            window: 0xFFFF - i as u16,
            timestamps: (i == 3).then_some((u32::MAX, 1)),
            // Above the ACK (lower blocks would be D-SACKs, RFC 2883); the second wraps.
            sack: [
                (0x1234_5678 + 1448, 0x1234_5678 + 2896),
                (u32::MAX - 100, 2000),
                (0x2000_0000, 0x2000_0100),
                (0, 0),
            ],
            sack_blocks: i as u8,
        };
        let t = built.config.end_time_ps + 1_000_000 * (i as u64 + 1);
        obs.on_tcp(t, port, &p, &h, Direction::Tx);
    }
    let log = obs.log().to_vec();
    let (stats, bytes) = obs.finish().unwrap();
    assert_eq!(stats.length_differs, 0, "every captured frame is as long as simulated");
    let segments = log.iter().filter(|c| matches!(c.frame.stack, HeaderStack::Tcp { .. })).count();
    let pauses: Vec<_> = log.iter().filter(|c| c.kind == CapturedKind::Pause).collect();
    assert!(segments > 1000, "{segments} TCP segments");
    assert!(pauses.len() >= 2, "{} PAUSE frames", pauses.len());
    let dir = temp_dir("tshark-tcp");
    let file = dir.join("san.pcap");
    std::fs::write(&file, &bytes).unwrap();
    let prefs = [
        "ip.check_checksum:TRUE",
        "tcp.check_checksum:TRUE",
        "tcp.analyze_sequence_numbers:FALSE",
        "tcp.relative_sequence_numbers:FALSE",
    ];
    let names = fields(TCP_FIELDS);
    let lines = tshark_fields(&tshark, &file, &names, &prefs);
    assert_eq!(lines.len(), log.len(), "tshark read every frame");
    let (mut tcp_seen, mut pause_seen, mut ece, mut ts, mut sacks) = (0, 0, 0, 0, 0);
    for (n, (line, c)) in lines.iter().zip(&log).enumerate() {
        let v: Vec<&str> = line.split('|').collect();
        assert_eq!(v.len(), names.len(), "frame {}: {line}", n + 1);
        let get = |name: &str| v[names.iter().position(|f| *f == name).unwrap()];
        let at = format!("frame {} ({line})", n + 1);
        assert_eq!(num(get("frame.len")), c.len as u64, "{at}");
        assert_eq!(
            (get("eth.src"), get("eth.dst")),
            (mac(c.frame.src_mac).as_str(), mac(c.frame.dst_mac).as_str()),
            "{at}"
        );
        assert_eq!(get("_ws.expert.message"), "", "{at}: expert info");
        assert_eq!(get("_ws.malformed"), "", "{at}: malformed");
        match c.frame.stack {
            HeaderStack::Pause { quanta } => {
                pause_seen += 1;
                assert_eq!(num(get("macc.opcode")), 0x0001, "{at}");
                assert_eq!(num(get("macc.pause_time")), quanta as u64, "{at}");
                assert_eq!(get("tcp.srcport"), "", "{at}");
            }
            HeaderStack::Tcp { ip: i, tcp: h, payload } => {
                tcp_seen += 1;
                match c.frame.tag {
                    Some(t) => assert_eq!(
                        (num(get("vlan.priority")), num(get("vlan.id"))),
                        (t.pcp as u64, t.vid as u64),
                        "{at}"
                    ),
                    None => assert_eq!(get("vlan.id"), "", "{at}"),
                }
                assert_eq!((get("ip.src"), get("ip.dst")), (ip(i.src).as_str(), ip(i.dst).as_str()), "{at}");
                assert_eq!(
                    (num(get("ip.dsfield.dscp")), num(get("ip.dsfield.ecn"))),
                    (i.dscp as u64, i.ecn as u64),
                    "{at}"
                );
                assert_eq!(get("ip.checksum.status"), "1", "{at}: IPv4 header checksum good");
                assert_eq!(
                    (num(get("tcp.srcport")), num(get("tcp.dstport"))),
                    (h.src_port as u64, h.dst_port as u64),
                    "{at}"
                );
                assert_eq!((num(get("tcp.seq_raw")), num(get("tcp.ack_raw"))), (h.seq as u64, h.ack as u64), "{at}");
                assert_eq!(num(get("tcp.flags")), h.flags as u64, "{at}");
                assert_eq!(num(get("tcp.window_size_value")), h.window as u64, "{at}");
                assert_eq!(num(get("tcp.len")), payload as u64, "{at}");
                assert_eq!(num(get("tcp.hdr_len")), h.header_len() as u64, "{at}");
                let edges = |f: &str| get(f).split(',').filter(|x| !x.is_empty()).map(num).collect::<Vec<u64>>();
                let blocks = &h.sack[..h.sack_blocks as usize];
                assert_eq!(edges("tcp.options.sack_le"), blocks.iter().map(|b| b.0 as u64).collect::<Vec<_>>(), "{at}");
                assert_eq!(edges("tcp.options.sack_re"), blocks.iter().map(|b| b.1 as u64).collect::<Vec<_>>(), "{at}");
                sacks += blocks.len();
                assert_eq!(get("tcp.checksum.status"), "1", "{at}: TCP checksum good");
                match h.timestamps {
                    Some((val, ecr)) => {
                        ts += 1;
                        assert_eq!(
                            (num(get("tcp.options.timestamp.tsval")), num(get("tcp.options.timestamp.tsecr"))),
                            (val as u64, ecr as u64),
                            "{at}"
                        );
                    }
                    None => assert_eq!(get("tcp.options.timestamp.tsval"), "", "{at}"),
                }
                if h.flags & 0x40 != 0 {
                    ece += 1;
                }
            }
            other => panic!("{at}: unexpected {other:?}"),
        }
    }
    assert_eq!((tcp_seen, pause_seen), (segments, pauses.len()));
    assert!(ts > 1000 && ece >= 2, "timestamps on {ts} segments, ECE on {ece}");
    assert_eq!(sacks, 1 + 2 + 3, "the synthetic segments' SACK blocks");
}

/// Passes everything to the capture and logs the upper-layer headers the engine hands it.
struct StreamLog<'a> {
    pcap: &'a mut PcapObserver<Vec<u8>>,
    /// (connection, sending side, sequence number, header bytes).
    headers: Vec<(u32, u32, u32, Vec<u8>)>,
}

impl Observer for StreamLog<'_> {
    fn on_packet(&mut self, t: Time, port: usize, p: &Packet, d: Direction) {
        self.pcap.on_packet(t, port, p, d)
    }
    fn on_tcp(&mut self, t: Time, port: usize, p: &Packet, h: &rocelab_sim::tcp::TcpHeader, d: Direction) {
        self.pcap.on_tcp(t, port, p, h, d)
    }
    fn on_pfc(&mut self, t: Time, port: usize, f: &PfcFrame, d: Direction) {
        self.pcap.on_pfc(t, port, f, d)
    }
    fn on_link_pause(&mut self, t: Time, port: usize, quanta: u16, d: Direction) {
        self.pcap.on_link_pause(t, port, quanta, d)
    }
    fn wants_stream_headers(&self) -> bool {
        self.pcap.wants_stream_headers()
    }
    fn on_stream_header(&mut self, conn: u32, side: u32, seq: u32, header: &[u8]) {
        self.headers.push((conn, side, seq, header.to_vec()));
        self.pcap.on_stream_header(conn, side, seq, header)
    }
}

/// One iSCSI PDU's header fields, as tshark decodes them or as read back from the bytes the
/// engine logged; `None` where the opcode has no such field (or tshark shows none).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct IscsiFields {
    opcode: u64,
    itt: u64,
    dsl: u64,
    flags: Option<u64>,
    edtl: Option<u64>,
    cmd_sn: Option<u64>,
    exp_stat_sn: Option<u64>,
    stat_sn: Option<u64>,
    ttt: Option<u64>,
    data_sn: Option<u64>,
    offset: Option<u64>,
    r2t_sn: Option<u64>,
    desired: Option<u64>,
    exp_data_sn: Option<u64>,
    /// SCSI Command: the CDB's operation (Read/Write(10)), LBA and blocks.
    cdb: Option<(String, u64, u64)>,
}

/// The tshark fields of each opcode beside opcode, ITT and DataSegmentLength (what its iSCSI
/// dissector shows: StatSN of every Data-In, flags of all but the R2T).
const ISCSI_FIELDS: [(&str, &[u64]); 11] = [
    ("iscsi.flags", &[0x01, 0x05, 0x25, 0x21]),
    ("iscsi.scsicommand.expecteddatatransferlength", &[0x01]),
    ("iscsi.cmdsn", &[0x01]),
    ("iscsi.expstatsn", &[0x01, 0x05]),
    ("iscsi.statsn", &[0x25, 0x31, 0x21]),
    ("iscsi.targettransfertag", &[0x05, 0x31]),
    ("iscsi.datasn", &[0x05, 0x25]),
    ("iscsi.bufferOffset", &[0x05, 0x25, 0x31]),
    ("iscsi.r2tsn", &[0x31]),
    ("iscsi.desireddatalength", &[0x31]),
    ("iscsi.expdatasn", &[0x21]),
];

impl IscsiFields {
    /// The same fields read from a 48-byte BHS (RFC 7143 §11).
    fn of_bhs(b: &[u8]) -> IscsiFields {
        let u = |at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as u64;
        let opcode = (b[0] & 0x3F) as u64;
        let mut f = IscsiFields {
            opcode,
            itt: u(16),
            dsl: u32::from_be_bytes([0, b[5], b[6], b[7]]) as u64,
            ..Default::default()
        };
        for (i, (_, ops)) in ISCSI_FIELDS.iter().enumerate() {
            if !ops.contains(&opcode) {
                continue;
            }
            let v = Some(match i {
                0 => b[1] as u64,
                1 => u(20),
                2 => u(24),
                3 => u(28),
                4 => u(24),
                5 => u(20),
                6 => u(36),
                7 => u(40),
                8 => u(36),
                9 => u(44),
                _ => u(36),
            });
            *f.field(i) = v;
        }
        if opcode == 0x01 {
            let name = match b[32] {
                0x28 => "Read(10)",
                0x2A => "Write(10)",
                op => panic!("CDB opcode {op:#x}"),
            };
            let blocks = u16::from_be_bytes([b[39], b[40]]) as u64;
            f.cdb = Some((name.to_string(), u(34), blocks));
        }
        f
    }

    fn field(&mut self, i: usize) -> &mut Option<u64> {
        match i {
            0 => &mut self.flags,
            1 => &mut self.edtl,
            2 => &mut self.cmd_sn,
            3 => &mut self.exp_stat_sn,
            4 => &mut self.stat_sn,
            5 => &mut self.ttt,
            6 => &mut self.data_sn,
            7 => &mut self.offset,
            8 => &mut self.r2t_sn,
            9 => &mut self.desired,
            _ => &mut self.exp_data_sn,
        }
    }
}

/// The commands' CDBs in a frame's Info column: `SCSI: Read(10) LUN: 0x00 (LBA: 0x…, Len: n)`.
fn cdbs_in_info(info: &str) -> Vec<(String, u64, u64)> {
    info.split("SCSI: ")
        .filter_map(|part| {
            let (name, rest) = part.split_once(" LUN: 0x00 (LBA: 0x")?;
            let (lba, rest) = rest.split_once(", Len: ")?;
            let len = rest.split(')').next()?;
            Some((name.to_string(), u64::from_str_radix(lba, 16).ok()?, len.parse().ok()?))
        })
        .collect()
}

/// iSCSI over the simulated TCP connection, captured and decoded by tshark (port 3260 is iSCSI
/// by default): every SCSI Command, R2T, Data-Out, Data-In and SCSI Response PDU the engine
/// wrote decodes, reassembled across segments, with the opcode, Initiator Task Tag, lengths,
/// offsets and sequence numbers it logged; and the PDUs make whole tasks.
#[test]
fn tshark_decodes_iscsi_pdus_as_the_engine_wrote_them() {
    let Some(tshark) = tools::require("tshark", &["tshark"], "apt-get install tshark") else { return };
    // The EqualLogic base SAN with standard frames (1448-byte segments carry 8240-byte Data-Out
    // PDUs, and some headers straddle two segments): 512 KiB writes (immediate data, two R2Ts and their
    // Data-Out bursts, SCSI Response), 512 KiB reads (two Data-In PDUs of 256 KiB) and 4 KiB
    // reads (one Data-In with status) on one session to member1. The jobs stop issuing at
    // 2 ms and the run lasts until every IO is done, so every PDU is captured whole.
    let base = std::fs::read_to_string(workspace().join("examples/dell-equallogic-base-san.yaml")).unwrap();
    let base = base.split("\nsimulation:").next().unwrap().replace("mtu: 9000", "mtu: 1500") + "\n";
    let job = |name: &str, rw: &str, bs: &str, qd: u32| {
        format!("    - {{name: {name}, rw: {rw}, bs: {bs}, iodepth: {qd}, runtime: 2ms, protocol: iscsi, initiator: host, target: member1}}\n")
    };
    let text = format!(
        "{base}simulation: {{duration: 12ms}}\nworkloads:\n  jobs:\n{}{}{}",
        job("w", "write", "512KiB", 2),
        job("r", "read", "512KiB", 2),
        job("r4", "read", "4KiB", 1)
    );
    let loaded = rocelab_model::load_str(&text, "san.yaml", &workspace().join("examples")).unwrap();
    let built = rocelab_sim::from_model::build(&loaded.scenario, &loaded.fabric, None);
    let filter =
        resolve_filter(&built.spec, &built.names, &["san-sw1:TenGigabitEthernet0/1".into()], &[], None).unwrap();
    let mut obs = PcapObserver::new(Vec::new(), &built.spec, None, &filter).unwrap().with_log();
    let mut log = StreamLog { pcap: &mut obs, headers: Vec::new() };
    let results = rocelab_sim::run_with_observer(&built.spec, &built.traffic, &built.config, &mut log).unwrap();
    results.check_conservation().unwrap();
    let headers = log.headers;
    assert_eq!(results.tcp_connections.len(), 1);
    assert!(results.tcp_connections.iter().all(|c| c.ends.iter().all(|e| e.stats.retransmissions == 0)));
    let captured = obs.log().to_vec();
    let (stats, bytes) = obs.finish().unwrap();
    assert_eq!(stats.length_differs, 0);
    // Headers that straddle two captured segments (tshark must reassemble them).
    let segments: Vec<(u32, u32)> = captured
        .iter()
        .filter_map(|c| match c.frame.stack {
            HeaderStack::Tcp { tcp, payload, .. } if payload > 0 => Some((tcp.seq, payload)),
            _ => None,
        })
        .collect();
    let straddling = headers
        .iter()
        .filter(|(_, _, seq, h)| {
            !segments.iter().any(|&(s, len)| seq.wrapping_sub(s) < len && seq.wrapping_sub(s) + h.len() as u32 <= len)
        })
        .count();
    assert!(straddling > 0, "some BHS straddles two segments");
    let dir = temp_dir("tshark-iscsi");
    let file = dir.join("iscsi.pcap");
    std::fs::write(&file, &bytes).unwrap();
    let mut names = vec!["frame.number", "_ws.col.Info", "_ws.expert.message", "_ws.malformed", "tcp.checksum.status"];
    names.extend(["iscsi.opcode", "iscsi.initiatortasktag", "iscsi.datasegmentlength"]);
    names.extend(ISCSI_FIELDS.iter().map(|f| f.0));
    let lines = tshark_fields(&tshark, &file, &names, &["tcp.check_checksum:TRUE"]);
    assert_eq!(lines.len(), captured.len(), "tshark read every frame");
    let mut decoded = Vec::new();
    for line in &lines {
        let v: Vec<&str> = line.split('|').collect();
        assert_eq!(v.len(), names.len(), "{line}");
        let list = |i: usize| v[i].split(',').filter(|x| !x.is_empty()).map(num).collect::<Vec<u64>>();
        let at = format!("frame {}", v[0]);
        assert_eq!((v[2], v[3]), ("", ""), "{at}: expert info or malformed: {line}");
        assert_eq!(v[4], "1", "{at}: TCP checksum good over the headers");
        let (ops, itts, dsls) = (list(5), list(6), list(7));
        assert!(ops.len() == itts.len() && ops.len() == dsls.len(), "{at}: {line}");
        let mut rest: Vec<std::collections::VecDeque<u64>> =
            (0..ISCSI_FIELDS.len()).map(|i| list(8 + i).into()).collect();
        let mut cdbs: std::collections::VecDeque<_> = cdbs_in_info(v[1]).into();
        for k in 0..ops.len() {
            let mut f = IscsiFields { opcode: ops[k], itt: itts[k], dsl: dsls[k], ..Default::default() };
            for (i, (name, o)) in ISCSI_FIELDS.iter().enumerate() {
                if o.contains(&ops[k]) {
                    *f.field(i) = Some(rest[i].pop_front().unwrap_or_else(|| panic!("{at}: no {name}: {line}")));
                }
            }
            if ops[k] == 0x01 {
                f.cdb = Some(cdbs.pop_front().unwrap_or_else(|| panic!("{at}: no CDB: {line}")));
            }
            decoded.push(f);
        }
        assert!(rest.iter().all(|r| r.is_empty()) && cdbs.is_empty(), "{at}: fields left over: {line}");
    }
    let mut logged: Vec<IscsiFields> = headers.iter().map(|h| IscsiFields::of_bhs(&h.3)).collect();
    let count = |op: u64| logged.iter().filter(|f| f.opcode == op).count();
    // Every kind of PDU is there: the 512 KiB writes' commands, 2 R2Ts each, Data-Out, Data-In
    // and a response per write.
    let writes = logged.iter().filter(|f| f.opcode == 0x01 && f.cdb.as_ref().unwrap().0 == "Write(10)").count();
    assert!(writes >= 2 && count(0x31) == 2 * writes && count(0x21) == writes, "{logged:?}");
    assert!(count(0x05) > 60 && count(0x25) > 4, "{logged:?}");
    // The PDUs make whole tasks (RFC 7143 §10.7): per task (an ITT from its command to the
    // next command reusing it, in the order the engine wrote them), the data segments
    // (immediate, Data-Out or Data-In) cover the command's ExpectedDataTransferLength at their
    // offsets, and each R2T asks for the bytes its Data-Out burst brings.
    let mut tasks: Vec<(IscsiFields, Vec<IscsiFields>)> = Vec::new();
    let mut current = std::collections::HashMap::new();
    for f in &logged {
        if f.opcode == 0x01 {
            current.insert(f.itt, tasks.len());
            tasks.push((f.clone(), Vec::new()));
        } else {
            let t = current[&f.itt];
            tasks[t].1.push(f.clone());
        }
    }
    for (c, pdus) in &tasks {
        let edtl = c.edtl.unwrap();
        let (name, _, blocks) = c.cdb.as_ref().unwrap();
        assert_eq!(blocks * 512, edtl);
        let mut data: Vec<(u64, u64)> =
            pdus.iter().filter(|f| matches!(f.opcode, 0x05 | 0x25)).map(|f| (f.offset.unwrap(), f.dsl)).collect();
        if c.dsl > 0 {
            data.push((0, c.dsl));
        }
        data.sort();
        let mut next = 0;
        for (off, len) in &data {
            assert_eq!(*off, next, "ITT {:#x} ({name}): {data:?}", c.itt);
            next += len;
        }
        assert_eq!(next, edtl, "ITT {:#x}", c.itt);
        for r in pdus.iter().filter(|f| f.opcode == 0x31) {
            let (from, len) = (r.offset.unwrap(), r.desired.unwrap());
            let burst: u64 = pdus
                .iter()
                .filter(|f| f.opcode == 0x05 && f.ttt == r.ttt && (from..from + len).contains(&f.offset.unwrap()))
                .map(|f| f.dsl)
                .sum();
            assert_eq!(burst, len, "ITT {:#x} R2T {:?}", c.itt, r.r2t_sn);
        }
    }
    let commands: Vec<&IscsiFields> = tasks.iter().map(|t| &t.0).collect();
    decoded.sort();
    logged.sort();
    assert_eq!(decoded.len(), logged.len(), "tshark decoded every PDU the engine wrote");
    for (d, l) in decoded.iter().zip(&logged) {
        assert_eq!(d, l);
    }
    // CmdSN counts the commands from 1.
    let mut sns: Vec<u64> = commands.iter().map(|c| c.cmd_sn.unwrap()).collect();
    sns.sort();
    assert_eq!(sns, (1..=commands.len() as u64).collect::<Vec<_>>());
}

#[test]
fn a_capture_shows_the_addresses_the_fabric_gives_its_ports() {
    // Host a has two ports with addresses of their own, b one without: a's frames carry the
    // address and MAC of the port they leave, b's its made-up 10.0.0.0/8 address.
    let text = r#"fabric:
  name: t
  topology:
    devices:
      - {name: sw1, role: switch, platform: generic, ports: [{names: p1-3, speed: 25G}]}
      - {name: a, role: host, nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G,
                                    addresses: [192.168.10.11/24, 192.168.20.11/24]}}
      - {name: b, role: host, nic: {vendor: mellanox, model: ConnectX-5, ports: 1, speed: 25G}}
    links:
      - {a: "sw1:p1", b: "a:p0"}
      - {a: "sw1:p2", b: "a:p1"}
      - {a: "sw1:p3", b: "b:p0"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
simulation: {duration: 200us, seed: 1}
workloads:
  all_to_all:
    - {name: x, hosts: [a, b], class: roce, size: 64KiB}
  flows:
    - {name: y1, from: a, to: b, class: roce, size: 64KiB}
    - {name: y2, from: a, to: b, class: roce, size: 64KiB}
    - {name: y3, from: a, to: b, class: roce, size: 64KiB}
    - {name: y4, from: a, to: b, class: roce, size: 64KiB}
    - {name: z, from: b, to: a, class: roce, size: 64KiB}
"#;
    let loaded = rocelab_model::load_str(text, "t.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let built = rocelab_sim::from_model::build(&loaded.scenario, &loaded.fabric, None);
    let filter = resolve_filter(&built.spec, &built.names, &[], &[], None).unwrap();
    let mut obs = PcapObserver::new(Vec::new(), &built.spec, None, &filter).unwrap().with_log();
    let results = rocelab_sim::run_with_observer(&built.spec, &built.traffic, &built.config, &mut obs).unwrap();
    assert!(results.flows.iter().all(|f| f.delivered_bytes == 64 << 10), "every flow delivered");
    // Global ports: sw1's three, then a's two, then b's.
    let (a0, b0) = (3, 5);
    let a_ip = [[192, 168, 10, 11], [192, 168, 20, 11]].map(u32::from_be_bytes);
    let b_ip = u32::from_be_bytes([10, 0, 0, 2]);
    let mut from_a = [0; 2];
    for c in obs.log().iter().filter(|c| matches!(c.kind, CapturedKind::Data { .. })) {
        let HeaderStack::RoceV2 { ip: i, .. } = c.frame.stack else { continue };
        match c.port {
            p if p == a0 || p == a0 + 1 => {
                let k = p - a0;
                from_a[k] += 1;
                assert_eq!((i.src, i.dst), (a_ip[k], b_ip), "sent at a's port {k}");
                assert_eq!(c.frame.src_mac, [2, k as u8, 0, 0, 0, 1]);
            }
            p if p == b0 => {
                assert!(a_ip.contains(&i.dst) && i.src == b_ip, "{} -> {}", ip(i.src), ip(i.dst));
                assert_eq!(c.frame.dst_mac[1] as usize, a_ip.iter().position(|&x| x == i.dst).unwrap());
            }
            _ => {}
        }
    }
    assert!(from_a.iter().all(|&n| n > 0), "a sends from both ports: {from_a:?}");
    // The addresses are what the capture shows, not an input to the switches' ECMP hash: the
    // same fabric without them gives the same results.
    let bare =
        text.replace(",\n                                    addresses: [192.168.10.11/24, 192.168.20.11/24]", "");
    assert_ne!(bare, text);
    let loaded = rocelab_model::load_str(&bare, "t.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let b = rocelab_sim::from_model::build(&loaded.scenario, &loaded.fabric, None);
    let again = rocelab_sim::run(&b.spec, &b.traffic, &b.config).unwrap();
    let digest = rocelab_sim::bench::results_digest;
    assert_eq!(digest(&again), digest(&results));
}
