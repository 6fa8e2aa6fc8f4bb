//! iWARP in the engine: RDMA operations carried on a TCP connection, with the MPA/DDP/RDMAP
//! framing of [`crate::storage::protocol::iwarp`] — no PFC, no DCQCN: TCP's congestion control
//! and loss recovery instead.
//!
//! An RDMA message becomes FPDUs on the poster's TCP stream, each FPDU one TCP segment (the
//! engine cuts segments on FPDU boundaries, as iWARP adapters do): tagged FPDUs (14-byte
//! DDP/RDMAP header) for RDMA WRITE and READ response data, untagged ones (18 bytes) for SEND
//! and the READ request (28 bytes of payload), each with the 2-byte MPA length, padding and the
//! 4-byte CRC32C. Semantics follow RDMAP (RFC 5040):
//!
//! * **WRITE, SEND**: the message's FPDUs go from the requester to the responder; the work
//!   request completes at the requester when TCP has the acknowledgement of its last byte
//!   (iWARP adapters complete a send when the data is acknowledged, RFC 5040 §5.2); a SEND is
//!   delivered to the responder's application when its last byte is in order there. Because a
//!   completion waits for an ACK, the adapter's TCP acknowledges every segment at once (a
//!   host stack's 40 ms delayed-ACK timer would hold the last ACK of a message) and sends
//!   without Nagle's delay: a modelling choice, as the adapters' TCP offload engines document
//!   no figures.
//! * **READ**: the requester sends a READ request; when the responder has it, it sends the data
//!   as a READ response on its own stream (the adapter's memory read is not timed); the READ
//!   completes when the response's last byte is in order at the requester.
//!
//! **API.** [`Sim::iwarp_post`] posts an operation of `len` bytes named `id` on a side of a
//! connection from [`Sim::open_tcp`]; [`Sim::iwarp_completed`] is called at the poster when it
//! completes, and [`Sim::iwarp_received`] at the peer when a WRITE or SEND has arrived whole. A
//! flow with `transport: iwarp` ([`IwarpFlowApp`]) posts its messages like an RC flow's
//! application: one message of its size (messages of 2 GiB beyond), or `message_bytes` messages
//! with `tx_depth` outstanding until it stops, posted no faster than the flow's `rate_bps` (of
//! payload) when it has one; it completes when its last message completes.

use crate::observer::Observer;
use crate::rdma::{RdmaOp, MAX_MESSAGE_BYTES};
use crate::sim::tcp::{MsgKind, TcpApp};
use crate::sim::Sim;
use crate::storage::protocol::iwarp::{max_payload, stream_bytes, READ_REQUEST};
use crate::time::Time;
use crate::traffic::{FlowSpec, RcFlow};

/// TCP port of the iWARP connections of flows: 5445, IANA's `smbdirect`, where SMB Direct
/// listens on iWARP adapters ([MS-SMBD] §1.9: "to permit coexistence of TCP and iWARP SMB
/// listeners"), the iWARP service the seeds' S2D clusters run.
pub const IWARP_PORT: u16 = 5445;

/// What an iWARP message on a stream is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IwarpMsg {
    Write,
    Send,
    ReadRequest,
    ReadResponse,
}

/// A flow's application over iWARP (as [`crate::sim::app::App::Flow`] is over an RC queue pair).
#[derive(Clone, Debug)]
pub(crate) struct IwarpFlowApp {
    pub op: RdmaOp,
    /// Bytes still to post (`u64::MAX`: unlimited).
    pub remaining: u64,
    pub message_bytes: u64,
    pub depth: u32,
    pub stop: Time,
    pub next_id: u64,
    pub outstanding: u32,
    pub completed: u64,
    /// The flow's rate: messages are posted no faster than this payload rate (bit/s).
    pub rate_bps: Option<u64>,
    /// The earliest time of the next post under `rate_bps`.
    pub next_post: Time,
}

impl IwarpFlowApp {
    pub fn new(f: &FlowSpec, rc: &RcFlow) -> Self {
        IwarpFlowApp {
            op: rc.op,
            remaining: f.size_bytes.unwrap_or(u64::MAX),
            message_bytes: if f.size_bytes.is_some() { MAX_MESSAGE_BYTES } else { rc.message_bytes },
            depth: rc.tx_depth,
            stop: f.stop_ps.unwrap_or(Time::MAX),
            next_id: 0,
            outstanding: 0,
            completed: 0,
            rate_bps: f.rate_bps,
            next_post: f.start_ps,
        }
    }

    /// When the application waits to post its next message under its rate, if it does.
    pub fn deadline(&self, now: Time) -> Option<Time> {
        let waiting = self.rate_bps.is_some() && self.next_post > now;
        (waiting && self.remaining > 0 && self.outstanding < self.depth && self.next_post < self.stop)
            .then_some(self.next_post)
    }
}

/// Stream bytes of a message of `len` payload bytes, its payload per full FPDU and a full
/// FPDU's stream bytes, for a connection of `mss`.
fn framing(len: u64, mss: u32, tagged: bool) -> (u64, u32, u32) {
    let per = max_payload(mss, tagged);
    let full = stream_bytes(per, mss, tagged).1 as u32;
    // Messages are at most 2 GiB (validated), which `stream_bytes` takes as u32.
    let (_, bytes) = stream_bytes(len.min(u32::MAX as u64) as u32, mss, tagged);
    (bytes, per, full)
}

impl<O: Observer> Sim<'_, O> {
    /// Post RDMA operation `op` of `len` bytes, named `id`, from side `side` of connection `c`.
    pub(crate) fn iwarp_post(&mut self, c: u32, side: u32, op: RdmaOp, len: u64, id: u64) {
        let mss = self.tcp[c as usize].mss;
        let (msg, len, tagged) = match op {
            RdmaOp::Write => (IwarpMsg::Write, len, true),
            RdmaOp::Send => (IwarpMsg::Send, len, false),
            RdmaOp::Read => (IwarpMsg::ReadRequest, len, false),
        };
        let what = MsgKind::Iwarp { op: msg, id, len };
        if msg == IwarpMsg::ReadRequest {
            let (bytes, _, _) = framing(READ_REQUEST as u64, mss, false);
            self.stream_write(c, side, bytes, READ_REQUEST, bytes as u32, what, 0);
        } else {
            let (bytes, per, full) = framing(len, mss, tagged);
            self.stream_write(c, side, bytes, per, full, what, len);
        }
    }

    /// An iWARP message written by the other side of `c` is in order at side `side` at `at`.
    pub(in crate::sim) fn iwarp_delivered(&mut self, c: u32, side: u32, op: IwarpMsg, id: u64, len: u64, at: Time) {
        match op {
            IwarpMsg::ReadRequest => {
                // The responder answers on its own stream.
                let mss = self.tcp[c as usize].mss;
                let (bytes, per, full) = framing(len, mss, true);
                let what = MsgKind::Iwarp { op: IwarpMsg::ReadResponse, id, len };
                self.stream_write(c, side, bytes, per, full, what, len);
            }
            IwarpMsg::ReadResponse => self.iwarp_completed(c, side, id, at),
            IwarpMsg::Write | IwarpMsg::Send => self.iwarp_received(c, side, op, id, at),
        }
    }

    /// Side `side` of `c` has the acknowledgement of an iWARP message it wrote.
    pub(in crate::sim) fn iwarp_acked(&mut self, c: u32, side: u32, op: IwarpMsg, id: u64) {
        if matches!(op, IwarpMsg::Write | IwarpMsg::Send) {
            self.iwarp_completed(c, side, id, self.now);
        }
    }

    /// The application hook: a WRITE or SEND of the other side of `c` is whole at side `side`
    /// at `at` (a storage protocol's capsule arrives here).
    pub(crate) fn iwarp_received(&mut self, c: u32, side: u32, _op: IwarpMsg, id: u64, at: Time) {
        let conn = &mut self.tcp[c as usize];
        match conn.app {
            TcpApp::Api => conn.msgs_delivered += 1,
            TcpApp::Storage { session } => {
                conn.msgs_delivered += 1;
                self.storage_message_in(session, side, id, at);
            }
            _ => {}
        }
    }

    /// The application hook: operation `id` posted by side `side` of `c` completed at `at`.
    pub(crate) fn iwarp_completed(&mut self, c: u32, side: u32, id: u64, at: Time) {
        let conn = &mut self.tcp[c as usize];
        let flow = conn.flow;
        if let TcpApp::Storage { .. } = conn.app {
            conn.msgs_completed += 1;
            self.storage_iwarp_completed(id, at);
            return;
        }
        let TcpApp::Iwarp(app) = &mut conn.app else {
            conn.msgs_completed += 1;
            return;
        };
        if side != 0 {
            return;
        }
        app.outstanding -= 1;
        app.completed += 1;
        let idle = app.outstanding == 0;
        if app.remaining == 0 && idle {
            let f = &mut self.flows[flow as usize];
            f.finished_sending = true;
            if f.spec.size_bytes.is_some() && f.completed_at.is_none() {
                f.completed_at = Some(at);
                // Side 0 completes on an arrival at its port (an ACK, a READ response).
                let port = self.tcp[c as usize].port[0];
                self.flow_done_on(at, port);
            }
        } else if at >= app.stop && idle {
            self.flows[flow as usize].finished_sending = true;
        } else {
            self.iwarp_flow_fill(c);
        }
    }

    /// Post what an iWARP flow may now: messages up to its depth, no faster than its rate.
    pub(in crate::sim) fn iwarp_flow_fill(&mut self, c: u32) {
        let now = self.now;
        loop {
            let TcpApp::Iwarp(app) = &mut self.tcp[c as usize].app else { return };
            if app.remaining == 0 || now >= app.stop || app.outstanding >= app.depth || now < app.next_post {
                break;
            }
            let len = app.remaining.min(app.message_bytes);
            if app.remaining != u64::MAX {
                app.remaining -= len;
            }
            if let Some(r) = app.rate_bps {
                app.next_post = app.next_post.max(now) + crate::time::serialization_time(len, r);
            }
            let (op, id) = (app.op, app.next_id);
            app.next_id += 1;
            app.outstanding += 1;
            self.iwarp_post(c, 0, op, len, id);
        }
        self.tcp_rearm(c, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_cuts_messages_in_segment_sized_fpdus() {
        // MSS 1448: full tagged FPDUs of 1448 stream bytes carrying 1428 payload bytes.
        assert_eq!(framing(4096, 1448, true), (2 * 1448 + 1260, 1428, 1448));
        // 8948 (a 9000-byte MTU with timestamps): 8928 per FPDU.
        let (bytes, per, full) = framing(1 << 20, 8948, true);
        assert_eq!((per, full), (8928, 8948));
        assert_eq!(bytes, 117 * 8948 + (2 + 14 + (1_048_576 - 117 * 8928) as u64).next_multiple_of(4) + 4);
        // A SEND is untagged: 4 bytes less per FPDU.
        assert_eq!(framing(1000, 1448, false).1, 1424);
    }
}

#[cfg(test)]
mod api_tests {
    use crate::rdma::RdmaOp;
    use crate::sim::tcp::TcpOpen;
    use crate::sim::{SimConfig, Simulation};
    use crate::time::{MS, NS};
    use crate::topology::{single_switch, FabricDefaults};
    use crate::traffic::{FlowClass, Traffic};

    #[test]
    fn posted_operations_complete_and_writes_and_sends_arrive() {
        let f = single_switch(2, 25_000_000_000, 100 * NS, &FabricDefaults::lossy());
        let t = Traffic::new();
        let mut sim = Simulation::new(&f.spec, &t, &SimConfig::new(1, 10 * MS)).unwrap();
        let e = sim.engine();
        let class = FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false };
        let o = TcpOpen { class, ports: [40_001, 4420], cc: None, nodelay: true, window: None, quick_ack: true };
        let c = e.open_tcp(f.hosts[0], f.hosts[1], &o).unwrap();
        // An NVMe-oF-like exchange: a 64-byte command capsule (SEND) from the host, a 128 KiB
        // READ by the target of the host's data, a 16-byte response capsule (SEND) back.
        e.iwarp_post(c, 0, RdmaOp::Send, 64, 1);
        e.iwarp_post(c, 1, RdmaOp::Read, 128 * 1024, 2);
        e.iwarp_post(c, 1, RdmaOp::Send, 16, 3);
        e.iwarp_post(c, 0, RdmaOp::Write, 4096, 4);
        sim.run_until(MS);
        let conn = &sim.engine().tcp[c as usize];
        // Delivered whole: two SENDs and the WRITE; completed: all four at their posters.
        assert_eq!((conn.msgs_delivered, conn.msgs_completed), (3, 4));
        // The host's stream carried the SEND, the WRITE (both posted at once), then the READ's
        // response (written when the request arrived): 128 KiB in tagged FPDUs of 1448 bytes.
        let (_, resp) = crate::storage::protocol::iwarp::stream_bytes(128 * 1024, 1448, true);
        let (_, send) = crate::storage::protocol::iwarp::stream_bytes(64, 1448, false);
        let (_, write) = crate::storage::protocol::iwarp::stream_bytes(4096, 1448, true);
        assert_eq!(conn.ep[1].rcv_nxt(), send + write + resp);
        sim.finish().check_conservation().unwrap();
    }
}
