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

/// The observer that observes nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}
