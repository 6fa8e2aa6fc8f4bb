//! TCP connections in the engine: a connection arena of [`TcpEndpoint`] pairs, the NIC's
//! transmit side for them, and one timer event per endpoint.
//!
//! A connection has two *sides*: side 0 at the host that opened it (a flow's source, iperf's
//! client), side 1 at the other host. Each side's endpoint is a transmit source of its host's
//! NIC, named `TCP_EP | connection << 1 | side` in the NIC's ready list beside the open-loop
//! flows and queue pairs: when the port is free and the connection's priority is not paused
//! (PFC, or an 802.3x PAUSE, which pauses every priority), the NIC asks the endpoint for one
//! segment ([`TcpEndpoint::poll_transmit`]) and moves on round robin. An endpoint is in the
//! ready list at most once (`sched`), while it has something to send.
//!
//! **Segments on the wire.** A segment is a [`PacketKind::Tcp`] packet: Ethernet 14 (+4
//! tagged) + IPv4 20 + TCP 20 (+12 with timestamps) + payload + FCS 4 bytes, at least 64. The
//! 64-bit sequence and acknowledgement offsets of the model and the header as a capture shows it
//! ([`TcpHeader`]: 32-bit numbers from a per-side initial sequence number, the scaled window,
//! TSval/TSecr) live in a side pool indexed by packet id, so that the packet stays one cache
//! line. ECMP hashes the TCP 5-tuple (protocol 6). The IP ECN field is the segment's, so a
//! switch's CE mark reaches the receiver, whose ECN-Echo flows back on its ACKs. A segment
//! dropped by a switch (a lossy priority past its threshold) or a full host buffer is simply
//! lost: the sender's duplicate ACKs or its RTO recover it.
//!
//! **Timers.** Each endpoint has one pending [`Event::TcpTimer`] at the earliest of its
//! retransmission, loss probe and delayed-ACK deadlines and its application's next write (a paced sender).
//! A deadline that moves later leaves the event in place (it fires, finds nothing due and
//! re-arms); one that moves earlier schedules a new event, and the old one, superseded by its
//! generation, does nothing when it fires.
//!
//! **API** (for the applications on top: bulk flows and iperf in `tcp/app.rs`, iWARP in
//! `tcp/iwarp.rs`, storage protocols): [`Sim::open_tcp`] opens a connection between two hosts;
//! [`Sim::tcp_send`] writes `bytes` tagged `tag` on one side; when the peer has received them in
//! order, [`Sim::tcp_app_delivered`] is called with the tag, and when the sender has the
//! acknowledgement of their last byte, [`Sim::tcp_app_acked`]. Host CPU is not modelled here.

use super::rdma::EpPoll;
use super::Sim;
use crate::event::Event;
use crate::observer::Observer;
use crate::packet::{five_tuple_hash, node_ipv4, Ecn, Packet, PacketKind};
use crate::rng::mix64;
use crate::stats::FrameCounts;
use crate::tcp::stack::TS_TICK;
use crate::tcp::{
    tcp_header_bytes, CcKind, Segment, TcpEndpoint, TcpHeader, TcpStackSpec, IPPROTO_TCP, MAX_UNSCALED_WINDOW,
};
use crate::time::Time;
use crate::traffic::FlowClass;
use std::collections::VecDeque;

pub(super) mod app;
pub(super) mod iwarp;
pub(super) mod parts;
pub(super) mod results;
mod rx;

/// Bit that marks a TCP endpoint in a NIC's ready list (other entries are `flow << 1 | side`).
pub(crate) const TCP_EP: u32 = 1 << 31;
/// `FlowRt::conn` of a flow that is not carried by TCP.
pub(crate) const NO_CONN: u32 = u32::MAX;
/// `ConnRt::flow` (and `Packet::flow`) of a connection that carries no flow.
pub(crate) const NO_FLOW: u32 = u32::MAX;

/// What the side pool keeps of a segment in flight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SegInfo {
    pub seg: Segment,
    pub hdr: TcpHeader,
}

impl SegInfo {
    const EMPTY: SegInfo = SegInfo {
        seg: Segment {
            seq: 0,
            ack: 0,
            len: 0,
            window: 0,
            flags: crate::tcp::Flags::empty(),
            ecn: Ecn::NotEct,
            retransmission: false,
            sack: crate::tcp::SackBlocks::EMPTY,
        },
        hdr: TcpHeader {
            src_port: 0,
            dst_port: 0,
            seq: 0,
            ack: 0,
            flags: 0,
            window: 0,
            timestamps: None,
            sack: [(0, 0); 4],
            sack_blocks: 0,
        },
    };
}

/// How a connection is opened: marking, ports, and the socket options that override the hosts'
/// stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TcpOpen {
    pub class: FlowClass,
    /// TCP port of side 0 (the opener's, usually ephemeral) and of side 1 (the service's).
    pub ports: [u16; 2],
    /// Congestion control of both ends instead of their hosts'.
    pub cc: Option<CcKind>,
    /// `TCP_NODELAY` on both ends.
    pub nodelay: bool,
    /// Socket buffer: side 1's receive buffer and side 0's send buffer (iperf3's `-w`).
    pub window: Option<u32>,
    /// Acknowledge every segment at once (no delayed ACKs) on both ends.
    pub quick_ack: bool,
}

/// The messages written on one direction of a connection, each with what its delivery and
/// acknowledgement mean to the application: the writer's list (until acknowledged) and the
/// reader's (until delivered whole). Each end keeps its own, so that a handler at one host
/// reads and writes only its own end's state (a run on several threads has the two hosts'
/// state in different parts; see `sim/parallel`).
#[derive(Clone, Debug, Default)]
pub(crate) struct MsgStream {
    /// The writer's: written and not yet acknowledged.
    pub msgs: VecDeque<StreamMsg>,
    /// Stream offset after the last message (the writer's).
    pub end: u64,
    /// The reader's: written and not yet delivered whole, in stream order.
    pub unread: VecDeque<StreamMsg>,
    /// Payload of the messages delivered whole.
    pub done_payload: u64,
    /// Payload delivered, the message in progress included (what the flow has counted).
    pub payload_delivered: u64,
}

/// One message on a stream: `[start, end)` of the stream, carrying `payload` bytes of the
/// application in framing units of `fpdu` stream bytes with `per` payload bytes each (iWARP's
/// FPDUs; `per == 0`: unframed bytes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamMsg {
    pub start: u64,
    pub end: u64,
    pub payload: u64,
    pub per: u32,
    pub fpdu: u32,
    pub what: MsgKind,
}

impl StreamMsg {
    /// Application payload of the message in the stream before `offset`.
    pub fn payload_before(&self, offset: u64) -> u64 {
        if offset >= self.end {
            return self.payload;
        }
        if self.per == 0 {
            return offset.saturating_sub(self.start);
        }
        (offset.saturating_sub(self.start) / self.fpdu as u64 * self.per as u64).min(self.payload)
    }

    /// Bytes the next segment from `offset` may carry so that it ends on a framing boundary.
    fn room_from(&self, offset: u64) -> u64 {
        if self.per == 0 || offset < self.start {
            return u64::MAX;
        }
        let k = (offset - self.start) / self.fpdu as u64;
        (self.start + (k + 1) * self.fpdu as u64).min(self.end) - offset
    }
}

/// What a message means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MsgKind {
    /// Bytes written with [`Sim::tcp_send`], named by the application's tag.
    Tag(u64),
    /// An iWARP message (see `tcp/iwarp.rs`).
    Iwarp { op: crate::sim::tcp::iwarp::IwarpMsg, id: u64, len: u64 },
}

/// The application driving a connection.
#[derive(Clone, Debug)]
pub(crate) enum TcpApp {
    /// A bulk transfer from side 0 (a TCP flow, an iperf stream).
    Bulk(crate::sim::tcp::app::BulkApp),
    /// A flow's RDMA messages over iWARP.
    Iwarp(crate::sim::tcp::iwarp::IwarpFlowApp),
    /// Driven through the API only ([`Sim::tcp_send`], [`Sim::iwarp_post`]).
    Api,
    /// A storage session's connection: its protocol's PDUs (tagged writes) or its RDMA
    /// operations over iWARP (see `sim/storage/`).
    Storage { session: u32 },
}

/// One TCP connection in the arena.
pub(crate) struct ConnRt {
    pub ep: [TcpEndpoint; 2],
    /// The flow it carries, or [`NO_FLOW`].
    pub flow: u32,
    /// Host port each side sends on.
    pub port: [u32; 2],
    /// The address each side is reached at: its node's, or its port's where the host's ports
    /// are addressed one by one ([`crate::routing::port_address`]).
    pub addr: [u32; 2],
    pub hash: [u64; 2],
    pub tport: [u16; 2],
    pub class: FlowClass,
    pub cc: CcKind,
    pub mss: u32,
    pub timestamps: bool,
    pub window_scaling: bool,
    /// Shift each side applies to the windows it advertises (0 without scaling).
    pub wscale: [u8; 2],
    pub isn: [u32; 2],
    pub ts_offset: [u32; 2],
    /// Latest TSval each side received (its TSecr).
    pub ts_recent: [u32; 2],
    /// Send buffer of each side: the most unacknowledged bytes its application may write.
    pub sndbuf: [u64; 2],
    pub timer_at: [Time; 2],
    pub timer_gen: [u32; 2],
    pub sched: [bool; 2],
    pub app: TcpApp,
    /// Messages per direction (`streams[s]`: written by side `s`).
    pub streams: [MsgStream; 2],
    /// Segments with data, both directions.
    pub data: FrameCounts,
    /// Segments without data (pure ACKs), both directions.
    pub acks: FrameCounts,
    /// Messages of an API connection ([`TcpApp::Api`]): delivered whole to the receiving
    /// application (tagged bytes, iWARP WRITE and SEND), and completed at the sender (tagged
    /// bytes acknowledged, iWARP operations completed).
    pub msgs_delivered: u64,
    pub msgs_completed: u64,
}

impl ConnRt {
    /// The payload the next segment of `side` may carry: a framing layer's boundary, else
    /// unlimited (the MSS caps it).
    pub fn max_payload(&self, side: u32) -> u32 {
        let st = &self.streams[side as usize];
        if st.msgs.is_empty() {
            return u32::MAX;
        }
        let at = self.ep[side as usize].next_send_offset();
        match st.msgs.iter().find(|m| m.end > at) {
            Some(m) => m.room_from(at).min(u32::MAX as u64) as u32,
            None => u32::MAX,
        }
    }
}

/// The NIC-list name of side `side` of connection `c`.
#[inline]
pub(crate) fn ep_name(c: u32, side: u32) -> u32 {
    TCP_EP | c << 1 | side
}

impl<O: Observer> Sim<'_, O> {
    /// Open a TCP connection from host `a` (side 0) to host `b` (side 1), established (the
    /// handshake's options as [`TcpEndpoint::pair`] settles them; each side's MSS is the smaller
    /// of the two interfaces'). Returns its index, or why it cannot be opened.
    pub(crate) fn open_tcp(&mut self, a: usize, b: usize, o: &TcpOpen) -> Result<u32, String> {
        self.open_tcp_on(a, b, o, None)
    }

    /// [`Sim::open_tcp`] on the host ports `pinned` (side 0's, side 1's) if given, as a storage
    /// session's connection is; else on ports taken by the connection's hash.
    pub(crate) fn open_tcp_on(
        &mut self,
        a: usize,
        b: usize,
        o: &TcpOpen,
        pinned: Option<(u32, u32)>,
    ) -> Result<u32, String> {
        let c = self.tcp.len() as u32;
        let (ia, ib) = (node_ipv4(a as u32), node_ipv4(b as u32));
        let hash = [
            five_tuple_hash(ia, ib, IPPROTO_TCP, o.ports[0], o.ports[1]),
            five_tuple_hash(ib, ia, IPPROTO_TCP, o.ports[1], o.ports[0]),
        ];
        let name = |n: usize| self.tcp_hosts.names.get(n).cloned().unwrap_or_else(|| format!("node {n}"));
        let (pa, pb) = match pinned {
            Some(p) => p,
            None => {
                let pa = crate::sim::rdma::build::host_port(&self.routes, &self.ports, a, b, hash[0], None)
                    .ok_or_else(|| format!("no path from \"{}\" to \"{}\"; connect them", name(a), name(b)))?;
                let pb = crate::sim::rdma::build::host_port(&self.routes, &self.ports, b, a, hash[1], Some(pa))
                    .ok_or_else(|| format!("no path from \"{}\" back to \"{}\"; connect them", name(b), name(a)))?;
                (pa, pb)
            }
        };
        let stack = |n: usize| self.tcp_hosts.stack.get(n).copied().unwrap_or_default();
        let (sa, sb) = (stack(a), stack(b));
        let mut ca = sa.config(self.tcp_hosts.mtu[pa as usize]);
        let mut cb = sb.config(self.tcp_hosts.mtu[pb as usize]);
        let mss = ca.mss.min(cb.mss);
        (ca.mss, cb.mss) = (mss, mss);
        if let Some(k) = o.cc {
            ca = ca.with_cc(k);
            cb = cb.with_cc(k);
        }
        if o.nodelay {
            (ca.nagle, cb.nagle) = (false, false);
        }
        if o.quick_ack {
            (ca.delayed_ack, cb.delayed_ack) = (None, None);
        }
        let mut sndbuf = [sa.send_buffer_bytes as u64, sb.send_buffer_bytes as u64];
        if let Some(w) = o.window {
            cb.receive_buffer = w;
            sndbuf[0] = w as u64;
        }
        let (ea, eb) = TcpEndpoint::pair(&ca, &cb);
        let scaling = ca.window_scaling && cb.window_scaling;
        let wscale = if scaling { [ca.window_scale(), cb.window_scale()] } else { [0, 0] };
        let r = |k: u64| mix64(self.seed ^ 0x7463_7000_0000_0000 ^ (c as u64) << 8 ^ k) as u32;
        let conn = ConnRt {
            timestamps: ca.timestamps && cb.timestamps,
            ep: [ea, eb],
            flow: NO_FLOW,
            port: [pa, pb],
            addr: [self.routes.address_of(a as u32, pa), self.routes.address_of(b as u32, pb)],
            hash,
            tport: o.ports,
            class: o.class,
            cc: ca.congestion_control,
            mss,
            window_scaling: scaling,
            wscale,
            isn: [r(1), r(2)],
            ts_offset: [r(3), r(4)],
            ts_recent: [0, 0],
            sndbuf,
            timer_at: [Time::MAX; 2],
            timer_gen: [0; 2],
            sched: [false; 2],
            app: TcpApp::Api,
            streams: Default::default(),
            data: FrameCounts::default(),
            acks: FrameCounts::default(),
            msgs_delivered: 0,
            msgs_completed: 0,
        };
        self.tcp.push(conn);
        Ok(c)
    }

    /// Side `side` of connection `c` writes `bytes` that its application names `tag`; see the
    /// module documentation for the callbacks.
    pub(crate) fn tcp_send(&mut self, c: u32, side: u32, bytes: u64, tag: u64) {
        self.stream_write(c, side, bytes, 0, 0, MsgKind::Tag(tag), bytes);
    }

    /// Write a message of `bytes` stream bytes carrying `payload` bytes in framing units of
    /// `fpdu` bytes with `per` of payload (0: unframed) on side `side`, and send.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stream_write(
        &mut self,
        c: u32,
        side: u32,
        bytes: u64,
        per: u32,
        fpdu: u32,
        what: MsgKind,
        payload: u64,
    ) {
        let conn = &mut self.tcp[c as usize];
        let st = &mut conn.streams[side as usize];
        let start = conn.ep[side as usize].written();
        st.end = start + bytes;
        let msg = StreamMsg { start, end: st.end, payload, per, fpdu, what };
        st.msgs.push_back(msg);
        conn.ep[side as usize].send(bytes);
        self.tcp_written(c, side, msg);
        self.tcp_kick(c, side);
        self.tcp_rearm(c, side);
    }

    /// Put side `side` of `c` in its NIC's ready list if it has something to send.
    pub(super) fn tcp_kick(&mut self, c: u32, side: u32) {
        let conn = &mut self.tcp[c as usize];
        if conn.sched[side as usize] || !conn.ep[side as usize].wants_transmit() {
            return;
        }
        conn.sched[side as usize] = true;
        let port = conn.port[side as usize];
        let nic = self.ports[port as usize].owner as usize;
        self.nics[nic].ready.push_back(super::host::Ep::plain(ep_name(c, side)));
        self.try_transmit(port);
    }

    /// Arm the endpoint's one timer event at the earliest of its deadlines, unless one is
    /// pending earlier.
    pub(super) fn tcp_rearm(&mut self, c: u32, side: u32) {
        let app = if side == 0 { self.tcp_app_deadline(c) } else { None };
        let conn = &mut self.tcp[c as usize];
        let s = side as usize;
        let d = match (conn.ep[s].next_deadline(), app) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(d) => d,
                None => return,
            },
        };
        if d < conn.timer_at[s] {
            conn.timer_gen[s] = conn.timer_gen[s].wrapping_add(1);
            conn.timer_at[s] = d.max(self.now);
            self.queue.push(conn.timer_at[s], Event::TcpTimer { ep: c << 1 | side, gen: conn.timer_gen[s] });
        }
    }

    /// An endpoint's timer event.
    #[inline(never)]
    pub(super) fn tcp_timer(&mut self, ep: u32, gen: u32) {
        let now = self.now;
        let (c, side) = (ep >> 1, ep & 1);
        let conn = &mut self.tcp[c as usize];
        let s = side as usize;
        if gen != conn.timer_gen[s] || conn.timer_at[s] == Time::MAX {
            return;
        }
        conn.timer_at[s] = Time::MAX;
        conn.ep[s].on_timer(now);
        if side == 0 {
            self.tcp_app_timer(c);
        }
        self.tcp_kick(c, side);
        self.tcp_rearm(c, side);
    }

    /// Ask endpoint `ep` (without [`TCP_EP`]) for a segment on `port`.
    pub(super) fn tcp_poll(&mut self, port: u32, ep: u32) -> EpPoll {
        let (c, side) = (ep >> 1, ep & 1);
        let conn = &mut self.tcp[c as usize];
        if self.ports[port as usize].paused & (1 << conn.class.priority) != 0 {
            return EpPoll::Paused;
        }
        let max = conn.max_payload(side);
        match conn.ep[side as usize].poll_transmit(self.now, max) {
            Some(seg) => {
                self.tcp_emit(c, side, seg);
                self.tcp_rearm(c, side);
                EpPoll::Sent
            }
            None => EpPoll::Idle,
        }
    }

    /// After endpoint `ep` (with [`TCP_EP`]) was polled: back in the ready list while it has
    /// more to send, else out of it.
    pub(super) fn tcp_after_poll(&mut self, nic_idx: usize, ep: u32, r: &EpPoll) {
        let (c, side) = ((ep & !TCP_EP) >> 1, ep & 1);
        let conn = &mut self.tcp[c as usize];
        let again = match r {
            EpPoll::Paused => true,
            EpPoll::Sent => conn.ep[side as usize].wants_transmit(),
            EpPoll::Wait(_) | EpPoll::Idle => false,
        };
        if again {
            self.nics[nic_idx].ready.push_back(super::host::Ep::plain(ep));
        } else {
            conn.sched[side as usize] = false;
        }
    }

    /// Put segment `seg` of side `side` of `c` on the wire; count it.
    fn tcp_emit(&mut self, c: u32, side: u32, seg: Segment) {
        let now = self.now;
        let conn = &mut self.tcp[c as usize];
        let (s, r) = (side as usize, (side ^ 1) as usize);
        let class = conn.class;
        let header = tcp_header_bytes(class.tagged, conn.timestamps) + seg.sack.option_bytes();
        let frame = (header + seg.len).max(crate::packet::wire::MIN_FRAME);
        let window = (seg.window >> conn.wscale[s]).min(MAX_UNSCALED_WINDOW) as u16;
        let mut hdr = TcpHeader {
            src_port: conn.tport[s],
            dst_port: conn.tport[r],
            seq: conn.isn[s].wrapping_add(seg.seq as u32),
            ack: conn.isn[r].wrapping_add(seg.ack as u32),
            flags: seg.flags.bits(),
            window,
            timestamps: conn
                .timestamps
                .then(|| (((now / TS_TICK) as u32).wrapping_add(conn.ts_offset[s]), conn.ts_recent[s])),
            sack: [(0, 0); 4],
            sack_blocks: seg.sack.len() as u8,
        };
        for (k, (a, b)) in seg.sack.iter().enumerate() {
            // The blocks are of the peer's stream: its sequence numbers.
            hdr.sack[k] = (conn.isn[r].wrapping_add(a as u32), conn.isn[r].wrapping_add(b as u32));
        }
        let pkt = Packet {
            kind: PacketKind::Tcp,
            flow: conn.flow,
            src: conn.addr[s],
            dst: conn.addr[r],
            udp_src_port: hdr.src_port,
            udp_dst_port: hdr.dst_port,
            tagged: class.tagged,
            pcp: class.priority,
            dscp: class.dscp,
            ecn: seg.ecn,
            bth_opcode: hdr.flags,
            dest_qp: c << 1 | (side ^ 1),
            psn: 0,
            payload_bytes: seg.len,
            header_bytes: header,
            frame_bytes: frame,
            sent_at: now,
            flow_hash: conn.hash[s],
            priority: class.priority,
            ext: 0,
        };
        let port = conn.port[s];
        if seg.len > 0 {
            conn.data.sent += 1;
            if let Some(f) = self.flows.get_mut(conn.flow as usize) {
                f.sent_packets += 1;
                f.sent_bytes += seg.len as u64;
            }
        } else {
            conn.acks.sent += 1;
        }
        self.conservation.injected_packets += 1;
        self.conservation.injected_bytes += frame as u64;
        let id = self.pool.alloc(pkt);
        let slot = id as usize;
        if slot >= self.tcp_seg.len() {
            self.tcp_seg.resize(slot + 1, SegInfo::EMPTY);
        }
        self.tcp_seg[slot] = SegInfo { seg, hdr };
        self.start_data_tx(port, id, frame, class.priority);
    }

    /// A TCP segment was dropped (by a switch or a full host buffer): count it.
    pub(super) fn tcp_dropped(&mut self, pkt: &Packet) {
        let conn = &mut self.tcp[(pkt.dest_qp >> 1) as usize];
        if pkt.payload_bytes > 0 {
            conn.data.dropped += 1;
            if let Some(f) = self.flows.get_mut(conn.flow as usize) {
                f.dropped_packets += 1;
            }
        } else {
            conn.acks.dropped += 1;
        }
    }
}

/// What the engine knows of the hosts' TCP stacks.
#[derive(Debug, Default)]
pub(crate) struct TcpHosts {
    /// Per node: its stack (switches: the default, unused).
    pub stack: Vec<TcpStackSpec>,
    /// Per global port: the interface MTU (switch ports: unused).
    pub mtu: Vec<u32>,
    /// Per node: its name, for messages.
    pub names: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{SimConfig, Simulation};
    use crate::time::{MS, NS};
    use crate::topology::{single_switch, FabricDefaults};
    use crate::traffic::Traffic;

    #[test]
    fn the_connection_api_carries_tagged_messages_both_ways() {
        let f = single_switch(2, 10_000_000_000, 100 * NS, &FabricDefaults::lossy());
        let t = Traffic::new();
        let cfg = SimConfig::new(1, 100 * MS);
        let mut sim = Simulation::new(&f.spec, &t, &cfg).unwrap();
        let e = sim.engine();
        let class = FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false };
        let o = TcpOpen { class, ports: [40_000, 3260], cc: None, nodelay: true, window: None, quick_ack: false };
        let c = e.open_tcp(f.hosts[0], f.hosts[1], &o).unwrap();
        // A request of 48 bytes, a 1 MB response, and two more requests.
        e.tcp_send(c, 0, 48, 1);
        e.tcp_send(c, 1, 1_000_000, 2);
        e.tcp_send(c, 0, 48, 3);
        e.tcp_send(c, 0, 48, 4);
        sim.run_until(MS);
        let conn = &sim.engine().tcp[c as usize];
        assert_eq!(conn.msgs_delivered, 4);
        // The last request's ACK waits for the server's 40 ms delayed-ACK timer.
        assert_eq!(conn.msgs_completed, 3);
        sim.run_until(50 * MS);
        let conn = &sim.engine().tcp[c as usize];
        assert_eq!(conn.msgs_completed, 4);
        assert_eq!(conn.ep[1].rcv_nxt(), 144);
        assert_eq!(conn.ep[0].rcv_nxt(), 1_000_000);
        assert!(conn.streams.iter().all(|s| s.msgs.is_empty() && s.unread.is_empty()));
        let r = sim.finish();
        r.check_conservation().unwrap();
        assert_eq!(r.tcp_connections.len(), 1, "a connection without a flow is reported on its own");
        let tc = &r.tcp_connections[0];
        assert_eq!((tc.flow, tc.ends[0].port, tc.ends[1].port), (None, 40_000, 3260));
        assert_eq!(tc.data.sent, tc.data.delivered);
        assert!(tc.data.sent >= 3 + 1_000_000 / 1448);
    }

    #[test]
    fn a_connection_between_unconnected_hosts_is_refused() {
        use crate::topology::NetworkBuilder;
        let d = FabricDefaults::lossy();
        let mut b = NetworkBuilder::new();
        let (h0, h1) = (b.add_host("h0", d.host.clone(), d.host_port), b.add_host("h1", d.host.clone(), d.host_port));
        let (h2, sw) =
            (b.add_host("h2", d.host.clone(), d.host_port), b.add_switch("sw", d.switch.clone(), d.switch_port));
        b.connect(h0, sw, 10_000_000_000, 100);
        b.connect(h1, sw, 10_000_000_000, 100);
        b.connect(h2, h1, 10_000_000_000, 100);
        let f = b.build();
        let t = Traffic::new();
        let mut sim = Simulation::new(&f.spec, &t, &SimConfig::new(1, MS)).unwrap();
        let class = FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false };
        let o = TcpOpen { class, ports: [1, 2], cc: None, nodelay: false, window: None, quick_ack: false };
        let e = sim.engine().open_tcp(h0, h2, &o).unwrap_err();
        assert!(e.contains("no path from \"h0\" to \"h2\""), "{e}");
    }
}
