//! The capture observer: which frames are kept (by port, by flow, up to a limit) and writing
//! them as pcap records.

use super::{encode_with, frame_of_link_pause, frame_of_packet, frame_of_pfc, frame_of_tcp, Frame};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use rocelab_sim::addresses::{node_mac, AddressBook};
use rocelab_sim::from_model::Names;
use rocelab_sim::pfc::PfcFrame;
use rocelab_sim::tcp::TcpHeader;
use rocelab_sim::{Direction, NetworkSpec, Observer, Packet, Time};
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::time::Duration;

/// Which frames a capture keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureFilter {
    /// Global indices of the ports whose links are captured, both directions (like a port
    /// mirror); `None` captures every link.
    pub ports: Option<Vec<usize>>,
    /// Flows (indices into the traffic's flows) whose data frames are kept; `None` keeps all.
    /// PFC and PAUSE frames belong to no flow and are kept at the chosen ports either way.
    pub flows: Option<Vec<usize>>,
    /// Stop after this many frames.
    pub limit: Option<u64>,
}

/// What a capture wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Frames written.
    pub frames: u64,
    /// Their bytes (without FCS).
    pub bytes: u64,
    /// Frames that matched the filter after the limit was reached.
    pub over_limit: u64,
    /// Data frames whose captured length differs from the simulator's frame size minus FCS
    /// (the InfiniBand pad, which the simulator does not count).
    pub length_differs: u64,
}

/// One captured frame, as logged when the observer keeps a log (tests compare it with what a
/// decoder reads back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// Simulated time the frame's first bit went on the wire.
    pub time_ps: Time,
    /// Global index of the transmitting port.
    pub port: usize,
    /// Frame length in the capture (no FCS).
    pub len: usize,
    pub frame: Frame,
    /// What kind of frame it is.
    pub kind: CapturedKind,
}

/// Whether a captured frame was a data frame (and of which flow), a PFC frame or an 802.3x
/// PAUSE frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapturedKind {
    Data { flow: usize },
    Pfc,
    Pause,
}

/// An [`Observer`] writing the frames crossing the chosen ports as a pcap (link type
/// Ethernet, nanosecond timestamps: simulated picoseconds / 1000).
///
/// Each frame is taken when its transmitter starts it, so a link is captured once per
/// direction however many of its ends are chosen, frames dropped at the receiver are in the
/// capture (they crossed the wire), and the timestamp is the start of the frame.
pub struct PcapObserver<W: Write> {
    writer: Option<PcapWriter<W>>,
    error: Option<String>,
    /// Per global port: its transmissions are captured.
    tx: Vec<bool>,
    /// Per global port: the MAC it sends PFC and PAUSE frames from ([`node_mac`]: a host port's
    /// own, with its index on the host; a switch's 02:00 and the switch's index).
    port_mac: Vec<[u8; 6]>,
    /// Per global port: the node owning it.
    node_of: Vec<u32>,
    /// The hosts' ports' IPv4 and MAC addresses.
    addresses: AddressBook,
    flows: Option<Vec<bool>>,
    limit: u64,
    vlan: Option<u16>,
    stats: CaptureStats,
    buf: Vec<u8>,
    log: Option<Vec<Captured>>,
    /// Upper-layer headers written on each TCP stream (key `connection << 1 | sending side`),
    /// in stream order, until the sender learns that the peer has them (no retransmission
    /// can carry them after that).
    streams: HashMap<u32, VecDeque<StreamHeader>>,
}

/// A header at a place in a TCP stream.
struct StreamHeader {
    seq: u32,
    bytes: Box<[u8]>,
}

/// Copy the parts of `headers` (in stream order) that fall in the segment of `payload` starting
/// at sequence number `seq`; a header may straddle segments.
fn overlay(headers: &VecDeque<StreamHeader>, seq: u32, payload: &mut [u8]) {
    // Sequence numbers compare modulo 2^32 (RFC 9293 §3.4): a header's place relative to `seq`.
    let rel = |s: u32| s.wrapping_sub(seq) as i32 as i64;
    let first = headers.partition_point(|h| rel(h.seq) + h.bytes.len() as i64 <= 0);
    for h in headers.range(first..) {
        let at = rel(h.seq);
        if at >= payload.len() as i64 {
            break;
        }
        let skip = (-at).max(0) as usize;
        let to = at.max(0) as usize;
        let n = (h.bytes.len() - skip).min(payload.len() - to);
        payload[to..to + n].copy_from_slice(&h.bytes[skip..skip + n]);
    }
}

/// Global port index of every (node, port), and the peer of every global port.
fn port_maps(spec: &NetworkSpec) -> (Vec<usize>, Vec<u32>, Vec<usize>) {
    let mut first = Vec::with_capacity(spec.nodes.len());
    let mut node_of = Vec::new();
    for n in 0..spec.nodes.len() {
        first.push(node_of.len());
        node_of.extend(std::iter::repeat_n(n as u32, spec.port_count(n)));
    }
    let mut peer: Vec<usize> = (0..node_of.len()).collect();
    for l in &spec.links {
        let (a, b) = (first[l.a.node] + l.a.port, first[l.b.node] + l.b.port);
        if a < peer.len() && b < peer.len() {
            peer[a] = b;
            peer[b] = a;
        }
    }
    (first, node_of, peer)
}

impl<W: Write> PcapObserver<W> {
    /// A capture of `spec`'s links into `out` (the pcap header is written at once). `vlan` is the
    /// fabric's VLAN id for tagged frames.
    pub fn new(out: W, spec: &NetworkSpec, vlan: Option<u16>, filter: &CaptureFilter) -> Result<Self, String> {
        let header = PcapHeader {
            snaplen: 65535,
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..Default::default()
        };
        let writer = PcapWriter::with_header(out, header).map_err(write_error)?;
        let (first, node_of, peer) = port_maps(spec);
        let tx = match &filter.ports {
            None => vec![true; node_of.len()],
            Some(ports) => {
                let mut tx = vec![false; node_of.len()];
                for &p in ports.iter().filter(|p| **p < node_of.len()) {
                    tx[p] = true;
                    tx[peer[p]] = true;
                }
                tx
            }
        };
        let port_mac = (0..node_of.len())
            .map(|p| {
                let node = node_of[p];
                let local = p - first[node as usize];
                let host_port = spec.is_host(node as usize) && local <= u8::MAX as usize;
                node_mac(node, if host_port { local as u8 } else { 0 })
            })
            .collect();
        let flows = filter.flows.as_ref().map(|fs| {
            let mut keep = vec![false; fs.iter().max().map_or(0, |m| m + 1)];
            for &f in fs {
                keep[f] = true;
            }
            keep
        });
        Ok(PcapObserver {
            writer: Some(writer),
            error: None,
            tx,
            port_mac,
            node_of,
            addresses: AddressBook::new(spec),
            flows,
            limit: filter.limit.unwrap_or(u64::MAX),
            vlan,
            stats: CaptureStats::default(),
            buf: Vec::with_capacity(9300),
            log: None,
            streams: HashMap::new(),
        })
    }

    /// Also keep a [`Captured`] entry per frame written.
    pub fn with_log(mut self) -> Self {
        self.log = Some(Vec::new());
        self
    }

    /// The frames logged so far (empty without [`Self::with_log`]).
    pub fn log(&self) -> &[Captured] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Ends the capture: the figures, and the writer back (flushed), or the first write error.
    pub fn finish(mut self) -> Result<(CaptureStats, W), String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut w = self.writer.take().ok_or("the capture was already finished")?.into_writer();
        w.flush().map_err(|e| format!("cannot write the capture: {e}"))?;
        Ok((self.stats, w))
    }

    /// MAC of global port `port` as the sender of a PFC or PAUSE frame.
    fn mac_of(&self, port: usize) -> [u8; 6] {
        self.port_mac.get(port).copied().unwrap_or([0x02, 0, 0, 0, 0, 0])
    }

    /// Whether the flow filter keeps data frames of `flow`.
    fn keeps_flow(&self, flow: u32) -> bool {
        self.flows.as_ref().is_none_or(|keep| keep.get(flow as usize).copied().unwrap_or(false))
    }

    /// Whether a frame sent at `port` passes the port filter and the limit.
    fn wanted(&mut self, port: usize) -> bool {
        if self.error.is_some() || !self.tx.get(port).copied().unwrap_or(false) {
            return false;
        }
        if self.stats.frames >= self.limit {
            self.stats.over_limit += 1;
            return false;
        }
        true
    }

    fn write(&mut self, time: Time, port: usize, frame: Frame, kind: CapturedKind) -> usize {
        self.write_filled(time, port, frame, kind, None)
    }

    /// [`Self::write`]; a TCP segment's payload gets the headers of stream `(key, seq)`.
    fn write_filled(
        &mut self,
        time: Time,
        port: usize,
        frame: Frame,
        kind: CapturedKind,
        stream: Option<(u32, u32)>,
    ) -> usize {
        self.buf.clear();
        let headers = stream.and_then(|(key, seq)| Some((self.streams.get(&key)?, seq)));
        encode_with(&frame, &mut self.buf, &mut |payload| {
            if let Some((h, seq)) = headers {
                overlay(h, seq, payload)
            }
        });
        let len = self.buf.len();
        let ts = Duration::from_nanos(time / 1000);
        if let Some(w) = self.writer.as_mut() {
            if let Err(e) = w.write_packet(&PcapPacket::new(ts, len as u32, &self.buf)) {
                self.error = Some(write_error(e));
                return len;
            }
        }
        self.stats.frames += 1;
        self.stats.bytes += len as u64;
        if let Some(log) = self.log.as_mut() {
            log.push(Captured { time_ps: time, port, len, frame, kind });
        }
        len
    }
}

impl<W: Write> Observer for PcapObserver<W> {
    fn on_packet(&mut self, time: Time, port: usize, packet: &Packet, dir: Direction) {
        if dir != Direction::Tx || !self.keeps_flow(packet.flow) || !self.wanted(port) {
            return;
        }
        let len = self.write(
            time,
            port,
            frame_of_packet(packet, &self.addresses, self.vlan),
            CapturedKind::Data { flow: packet.flow as usize },
        );
        if len as u64 + rocelab_sim::packet::wire::FCS as u64 != packet.frame_bytes.max(64) as u64 {
            self.stats.length_differs += 1;
        }
    }

    fn on_tcp(&mut self, time: Time, port: usize, packet: &Packet, header: &TcpHeader, dir: Direction) {
        // `dest_qp` is the receiving endpoint, `connection << 1 | side`; every segment of an
        // established connection carries an ACK.
        if dir == Direction::Rx && self.node_of.get(port) == Some(&packet.dst_node()) {
            // The receiver learns that the peer has its stream up to `ack`: forget those headers.
            if let Some(h) = self.streams.get_mut(&packet.dest_qp) {
                while h
                    .front()
                    .is_some_and(|f| (f.seq.wrapping_add(f.bytes.len() as u32)).wrapping_sub(header.ack) as i32 <= 0)
                {
                    h.pop_front();
                }
            }
        }
        if dir != Direction::Tx || !self.keeps_flow(packet.flow) || !self.wanted(port) {
            return;
        }
        let frame = frame_of_tcp(packet, &self.addresses, header, self.vlan);
        let stream = (packet.payload_bytes > 0).then_some((packet.dest_qp ^ 1, header.seq));
        let len = self.write_filled(time, port, frame, CapturedKind::Data { flow: packet.flow as usize }, stream);
        if len as u64 + rocelab_sim::packet::wire::FCS as u64 != packet.frame_bytes.max(64) as u64 {
            self.stats.length_differs += 1;
        }
    }

    fn wants_stream_headers(&self) -> bool {
        self.error.is_none() && self.stats.frames < self.limit
    }

    fn on_stream_header(&mut self, conn: u32, side: u32, seq: u32, header: &[u8]) {
        let h = StreamHeader { seq, bytes: header.into() };
        self.streams.entry(conn << 1 | side).or_default().push_back(h);
    }

    fn on_link_pause(&mut self, time: Time, port: usize, quanta: u16, dir: Direction) {
        if dir != Direction::Tx || !self.wanted(port) {
            return;
        }
        self.write(time, port, frame_of_link_pause(quanta, self.mac_of(port)), CapturedKind::Pause);
    }

    fn on_pfc(&mut self, time: Time, port: usize, frame: &PfcFrame, dir: Direction) {
        if dir != Direction::Tx || !self.wanted(port) {
            return;
        }
        self.write(time, port, frame_of_pfc(frame, self.mac_of(port)), CapturedKind::Pfc);
    }
}

/// Builds a [`CaptureFilter`] from the names a user gives: ports as `DEVICE:PORT` and flows by
/// name (a workload's name selects all its flows, `incast` = `incast#0`, `incast#1`, …).
pub fn resolve_filter(
    spec: &NetworkSpec,
    names: &Names,
    ports: &[String],
    flows: &[String],
    limit: Option<u64>,
) -> Result<CaptureFilter, String> {
    let (first, _, _) = port_maps(spec);
    let mut filter = CaptureFilter { ports: None, flows: None, limit };
    if !ports.is_empty() {
        let mut out = Vec::new();
        for p in ports {
            let Some((dev, port)) = p.rsplit_once(':') else {
                return Err(format!("--pcap-port `{p}`: expected DEVICE:PORT, e.g. `leaf1:Ethernet0`"));
            };
            let Some(node) = names.nodes.iter().position(|n| n == dev) else {
                return Err(format!(
                    "--pcap-port `{p}`: no device `{dev}`{}",
                    did_you_mean(dev, names.nodes.iter().map(String::as_str))
                ));
            };
            let cabled = names.ports.get(node).map(Vec::as_slice).unwrap_or(&[]);
            let Some(local) = cabled.iter().position(|n| n == port) else {
                let hint = did_you_mean(port, cabled.iter().map(String::as_str));
                let hint = if hint.is_empty() { format!("; its cabled ports are {}", list(cabled)) } else { hint };
                return Err(format!("--pcap-port `{p}`: `{dev}` has no cabled port `{port}`{hint}"));
            };
            out.push(first[node] + local);
        }
        filter.ports = Some(out);
    }
    if !flows.is_empty() {
        let mut out = Vec::new();
        for f in flows {
            let before = out.len();
            for (i, n) in names.flows.iter().enumerate() {
                if n == f || n.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('#')) {
                    out.push(i);
                }
            }
            if out.len() == before {
                let workloads: Vec<&str> = names.flows.iter().map(|n| n.split('#').next().unwrap_or(n)).collect();
                return Err(format!(
                    "--pcap-flow `{f}`: no flow of that name{}",
                    did_you_mean(f, workloads.iter().copied().chain(names.flows.iter().map(String::as_str)))
                ));
            }
        }
        filter.flows = Some(out);
    }
    Ok(filter)
}

/// A failed write as the user needs it: pcap-file's `IoError` prints "Error reading bytes"
/// whatever happened, so the system's own reason ("No space left on device") is taken from it.
fn write_error(e: pcap_file::PcapError) -> String {
    match e {
        pcap_file::PcapError::IoError(io) => format!("cannot write the capture: {io}"),
        other => format!("cannot write the capture: {other}"),
    }
}

fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    candidates
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(s, _)| *s > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

fn list(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(8).map(String::as_str).collect();
    let more = if items.len() > 8 { format!(", … ({} in all)", items.len()) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pcap::tests::packet;
    use rocelab_sim::topology::{single_switch, FabricDefaults};

    fn spec() -> NetworkSpec {
        single_switch(3, 100_000_000_000, 100 * rocelab_sim::NS, &FabricDefaults::lossless(3, 200_000)).spec
    }

    fn names(spec: &NetworkSpec) -> Names {
        Names {
            nodes: spec.nodes.iter().map(|n| n.name.clone()).collect(),
            ports: (0..spec.nodes.len()).map(|n| (0..spec.port_count(n)).map(|p| format!("p{p}")).collect()).collect(),
            flows: vec!["incast#0".into(), "incast#1".into(), "victim".into()],
            ..Names::default()
        }
    }

    fn records(pcap: &[u8]) -> Vec<(u32, u32, Vec<u8>)> {
        // Classic pcap, little-endian, nanosecond magic.
        assert_eq!(&pcap[0..4], &[0x4D, 0x3C, 0xB2, 0xA1]);
        assert_eq!(u32::from_le_bytes(pcap[20..24].try_into().unwrap()), 1, "link type Ethernet");
        let mut out = Vec::new();
        let mut at = 24;
        while at < pcap.len() {
            let r = |i: usize| u32::from_le_bytes(pcap[at + i..at + i + 4].try_into().unwrap());
            let (sec, nsec, incl) = (r(0), r(4), r(8) as usize);
            assert_eq!(r(12) as usize, incl);
            out.push((sec, nsec, pcap[at + 16..at + 16 + incl].to_vec()));
            at += 16 + incl;
        }
        out
    }

    #[test]
    fn port_and_flow_filters_and_the_limit_apply() {
        let spec = spec();
        let n = names(&spec);
        // Hosts h0..h2 are nodes 0..=2 (global ports 0, 1, 2), the switch is node 3 (ports 3..6).
        let f = resolve_filter(&spec, &n, &[format!("{}:p0", n.nodes[1])], &["incast".into()], Some(3)).unwrap();
        assert_eq!(f.flows, Some(vec![0, 1]));
        let mut obs = PcapObserver::new(Vec::new(), &spec, Some(2), &f).unwrap().with_log();
        let host_port = f.ports.as_ref().unwrap()[0];
        let mut p = packet(0x04, 1024, true);
        p.flow = 2;
        obs.on_packet(1_500, host_port, &p, Direction::Tx); // flow filtered out
        p.flow = 1;
        obs.on_packet(1_500, host_port, &p, Direction::Rx); // receptions are not taken
        obs.on_packet(2_500_000_000_123_456, host_port, &p, Direction::Tx);
        obs.on_packet(3_000, 5, &p, Direction::Tx); // another link
        let pfc = PfcFrame::from_masks(1 << 3, 1 << 3, 0xFFFF);
        obs.on_pfc(4_000, 4, &pfc, Direction::Tx); // the switch end of the chosen link
        obs.on_packet(5_000, host_port, &p, Direction::Tx);
        obs.on_packet(6_000, host_port, &p, Direction::Tx); // over the limit
        assert_eq!(obs.log().len(), 3);
        assert_eq!(obs.log()[1].kind, CapturedKind::Pfc);
        let (stats, bytes) = obs.finish().unwrap();
        assert_eq!((stats.frames, stats.over_limit, stats.length_differs), (3, 1, 0));
        let recs = records(&bytes);
        assert_eq!(recs.len(), 3);
        assert_eq!((recs[0].0, recs[0].1), (2_500, 123), "nanoseconds of simulated time");
        assert_eq!(recs[0].2.len() as u32 + 4, p.frame_bytes);
        assert_eq!(&recs[1].2[0..6], &[0x01, 0x80, 0xC2, 0, 0, 1]);
        assert_eq!(&recs[1].2[6..12], &node_mac(3, 0), "sent by the switch");
        assert_eq!(stats.bytes, recs.iter().map(|r| r.2.len() as u64).sum::<u64>());
    }

    #[test]
    fn stream_headers_land_at_their_sequence_numbers_across_segments() {
        // Two 4-byte headers on a stream whose sequence numbers wrap: the first straddles the
        // segments [MAX-1, +4) and [+4, +8), the second starts inside the second segment.
        let mut h = VecDeque::new();
        h.push_back(StreamHeader { seq: u32::MAX, bytes: vec![1, 2, 3, 4].into() });
        h.push_back(StreamHeader { seq: 5, bytes: vec![5, 6, 7, 8].into() });
        let mut a = [0u8; 4];
        overlay(&h, u32::MAX - 1, &mut a);
        assert_eq!(a, [0, 1, 2, 3]);
        let mut b = [0u8; 6];
        overlay(&h, 2, &mut b);
        assert_eq!(b, [4, 0, 0, 5, 6, 7]);
        // A retransmission of the middle gets the same bytes; a segment past them, none.
        let mut c = [0u8; 3];
        overlay(&h, 1, &mut c);
        assert_eq!(c, [3, 4, 0]);
        let mut d = [9u8; 2];
        overlay(&h, 9, &mut d);
        assert_eq!(d, [9, 9]);
        // The capture keeps them until the sender hears the peer has them: an ACK arriving at
        // the sender's host (node 0) for its stream of connection 3, side 0.
        let spec = spec();
        let mut obs = PcapObserver::new(Vec::new(), &spec, None, &CaptureFilter::default()).unwrap();
        assert!(obs.wants_stream_headers());
        obs.on_stream_header(3, 0, 100, &[1; 48]);
        obs.on_stream_header(3, 0, 148, &[2; 48]);
        let mut p = packet(0x04, 0, false);
        (p.kind, p.src, p.dst, p.dest_qp) = (rocelab_sim::packet::PacketKind::Tcp, 1, 0, 3 << 1);
        let ack = TcpHeader { ack: 148, flags: 0x10, ..TcpHeader::default() };
        obs.on_tcp(0, 1, &p, &ack, Direction::Rx); // at host 1's port: not the sender
        assert_eq!(obs.streams[&6].len(), 2);
        obs.on_tcp(0, 0, &p, &ack, Direction::Rx);
        assert_eq!(obs.streams[&6].iter().map(|h| h.seq).collect::<Vec<_>>(), [148]);
    }

    #[test]
    fn bad_names_are_explained() {
        let spec = spec();
        let n = names(&spec);
        let e = resolve_filter(&spec, &n, &["host1".into()], &[], None).unwrap_err();
        assert!(e.contains("expected DEVICE:PORT"), "{e}");
        let e = resolve_filter(&spec, &n, &[format!("{}x:p0", n.nodes[1])], &[], None).unwrap_err();
        assert!(e.contains(&format!("did you mean `{}`", n.nodes[1])), "{e}");
        let e = resolve_filter(&spec, &n, &[format!("{}:p7", n.nodes[1])], &[], None).unwrap_err();
        assert!(e.contains("has no cabled port `p7`") && e.contains("p0"), "{e}");
        let e = resolve_filter(&spec, &n, &[], &["incats".into()], None).unwrap_err();
        assert!(e.contains("did you mean `incast`"), "{e}");
        let all = resolve_filter(&spec, &n, &[], &[], None).unwrap();
        assert_eq!(all, CaptureFilter::default());
    }

    #[test]
    fn write_errors_are_reported_at_the_end() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let e = PcapObserver::new(Full, &spec(), None, &CaptureFilter::default()).err().unwrap();
        assert_eq!(e, "cannot write the capture: disk full");
    }

    /// A write that fails in the middle of the run (a full disk once the header is out) is the
    /// system's reason at the end, not pcap-file's "Error reading bytes".
    #[test]
    fn a_failed_frame_write_carries_the_reason() {
        /// Takes `room` bytes, then fails as a full disk does.
        struct Fills {
            room: usize,
        }
        impl Write for Fills {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if b.len() > self.room {
                    return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device"));
                }
                self.room -= b.len();
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut obs = PcapObserver::new(Fills { room: 24 }, &spec(), None, &CaptureFilter::default()).unwrap();
        obs.on_packet(1_000, 0, &packet(0x04, 1024, true), Direction::Tx);
        let e = obs.finish().err().unwrap();
        assert_eq!(e, "cannot write the capture: No space left on device");
    }
}
