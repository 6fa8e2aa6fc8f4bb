//! Observers: pcap writers, queue monitors and tests plug into a run through [`Observer`]
//! without touching the hot path when none is attached — the simulator is generic over the
//! observer and [`NoObserver`]'s empty methods compile away.

use crate::mmu::DropReason;
use crate::packet::Packet;
use crate::pfc::PfcFrame;
use crate::tcp::TcpHeader;
use crate::time::Time;

/// Direction of a frame at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The port starts transmitting the frame.
    Tx,
    /// The frame has fully arrived at the port.
    Rx,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// Refused by a switch MMU.
    Mmu(DropReason),
    /// The host receive buffer was full.
    HostRxOverflow,
    /// A switch had no route to the destination.
    NoRoute,
}

/// Callbacks from a running simulation. Ports are global port indices (see
/// [`crate::PortResults`]). All methods default to doing nothing.
pub trait Observer {
    /// A data frame is sent or received at `port`.
    fn on_packet(&mut self, _time: Time, _port: usize, _packet: &Packet, _dir: Direction) {}
    /// A TCP segment is sent or received at `port`, with its TCP header as on the wire. The
    /// default passes it to [`Observer::on_packet`].
    fn on_tcp(&mut self, time: Time, port: usize, packet: &Packet, _header: &TcpHeader, dir: Direction) {
        self.on_packet(time, port, packet, dir)
    }
    /// Whether the observer wants [`Observer::on_stream_header`]: the engine builds upper-layer
    /// headers only for an observer that asks (a capture), so runs without one pay nothing.
    fn wants_stream_headers(&self) -> bool {
        false
    }
    /// An upper-layer PDU (an iSCSI PDU) is written on the stream of side `side` of TCP
    /// connection `conn` (`side` sends it; a segment's receiving endpoint is its packet's
    /// `dest_qp`, `conn << 1 | side ^ 1`): its header `header` starts at sequence number `seq`
    /// of that stream. Called only when [`Observer::wants_stream_headers`].
    fn on_stream_header(&mut self, _conn: u32, _side: u32, _seq: u32, _header: &[u8]) {}
    /// A PFC frame is sent or received at `port`.
    fn on_pfc(&mut self, _time: Time, _port: usize, _frame: &PfcFrame, _dir: Direction) {}
    /// An IEEE 802.3x PAUSE frame of `quanta` (0: resume) is sent or received at `port`.
    fn on_link_pause(&mut self, _time: Time, _port: usize, _quanta: u16, _dir: Direction) {}
    /// A data frame is dropped at `port` (the ingress port at a switch).
    fn on_drop(&mut self, _time: Time, _port: usize, _packet: &Packet, _cause: DropCause) {}
}

/// Two observers, both told everything (e.g. a capture and a PFC trace in one run).
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn on_packet(&mut self, time: Time, port: usize, packet: &Packet, dir: Direction) {
        self.0.on_packet(time, port, packet, dir);
        self.1.on_packet(time, port, packet, dir);
    }
    fn on_tcp(&mut self, time: Time, port: usize, packet: &Packet, header: &TcpHeader, dir: Direction) {
        self.0.on_tcp(time, port, packet, header, dir);
        self.1.on_tcp(time, port, packet, header, dir);
    }
    fn wants_stream_headers(&self) -> bool {
        self.0.wants_stream_headers() || self.1.wants_stream_headers()
    }
    fn on_stream_header(&mut self, conn: u32, side: u32, seq: u32, header: &[u8]) {
        self.0.on_stream_header(conn, side, seq, header);
        self.1.on_stream_header(conn, side, seq, header);
    }
    fn on_pfc(&mut self, time: Time, port: usize, frame: &PfcFrame, dir: Direction) {
        self.0.on_pfc(time, port, frame, dir);
        self.1.on_pfc(time, port, frame, dir);
    }
    fn on_link_pause(&mut self, time: Time, port: usize, quanta: u16, dir: Direction) {
        self.0.on_link_pause(time, port, quanta, dir);
        self.1.on_link_pause(time, port, quanta, dir);
    }
    fn on_drop(&mut self, time: Time, port: usize, packet: &Packet, cause: DropCause) {
        self.0.on_drop(time, port, packet, cause);
        self.1.on_drop(time, port, packet, cause);
    }
}

/// The observer that observes nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}
