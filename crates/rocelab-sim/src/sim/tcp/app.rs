//! The bulk-transfer application of TCP flows and iperf streams, and the start of a flow's
//! connection.
//!
//! Like iperf3's client, the application writes as much as the socket takes: the send buffer
//! holds at most `sndbuf` unacknowledged bytes (Linux's `tcp_wmem` maximum, or iperf3's `-w`),
//! and every acknowledgement makes room for more. With a bitrate (iperf3's `-b`) it writes
//! blocks of [`IPERF_BLOCK`] bytes on a schedule, so that its writes average the bitrate — as
//! iperf3's throttle does. It writes nothing from its stop time on (`-t`), or once its bytes
//! are written (`-n`); a sized flow completes when its last byte is in order at the receiver.

use crate::observer::Observer;
use crate::sim::tcp::iwarp::IwarpFlowApp;
use crate::sim::tcp::{TcpApp, TcpOpen, NO_FLOW};
use crate::sim::Sim;
use crate::time::{Time, SECOND};
use crate::traffic::{FlowSpec, Transport};

/// iperf3's default block size for TCP (`DEFAULT_TCP_BLKSIZE`, 128 KiB): what one paced write
/// carries.
pub const IPERF_BLOCK: u64 = 128 * 1024;

/// A bulk writer on side 0 of a connection.
#[derive(Clone, Debug)]
pub(crate) struct BulkApp {
    /// Bytes to write in all (`u64::MAX`: unlimited).
    pub total: u64,
    pub start: Time,
    /// Nothing is written from this time on.
    pub stop: Time,
    /// Paced writes: the application's payload rate, bit/s.
    pub rate_bps: Option<u64>,
    /// Time of the next paced write (`Time::MAX`: none pending).
    pub next_write: Time,
}

impl BulkApp {
    /// Bytes the application may have written by `now`, and when that grows next.
    fn allowance(&self, now: Time) -> (u64, Option<Time>) {
        let Some(rate) = self.rate_bps else { return (self.total, None) };
        let elapsed = now.saturating_sub(self.start) as u128;
        let blocks = elapsed * rate as u128 / (8 * SECOND as u128 * IPERF_BLOCK as u128) + 1;
        let allowed = (blocks * IPERF_BLOCK as u128).min(self.total as u128) as u64;
        let next = (blocks * IPERF_BLOCK as u128 * 8 * SECOND as u128).div_ceil(rate as u128);
        let next = self.start.saturating_add(next.min(Time::MAX as u128) as Time);
        (allowed, (allowed < self.total && next < self.stop).then_some(next))
    }
}

impl<O: Observer> Sim<'_, O> {
    /// Open the connection of TCP or iWARP flow `f` (index `flow`) and attach its application.
    pub(in crate::sim) fn attach_flow_conn(&mut self, flow: u32, f: &FlowSpec) -> Result<(), String> {
        let (open, app) = match f.transport {
            Transport::Tcp(t) => (
                TcpOpen {
                    class: f.class,
                    ports: [f.udp_src_port, t.server_port],
                    cc: t.congestion_control,
                    nodelay: t.nodelay,
                    window: t.window_bytes,
                    quick_ack: false,
                },
                TcpApp::Bulk(BulkApp {
                    total: f.size_bytes.unwrap_or(u64::MAX),
                    start: f.start_ps,
                    stop: f.stop_ps.unwrap_or(Time::MAX),
                    rate_bps: f.rate_bps,
                    next_write: Time::MAX,
                }),
            ),
            Transport::Iwarp(rc) => (
                // An RDMA message goes out at once and completes on TCP's acknowledgement: the
                // adapter's TCP neither waits to send (Nagle off) nor delays its ACKs.
                TcpOpen {
                    class: f.class,
                    ports: [f.udp_src_port, crate::sim::tcp::iwarp::IWARP_PORT],
                    cc: None,
                    nodelay: true,
                    window: None,
                    quick_ack: true,
                },
                TcpApp::Iwarp(IwarpFlowApp::new(f, &rc)),
            ),
            Transport::Raw | Transport::Rc(_) => unreachable!("attach_flow_conn is called for flows over TCP"),
        };
        let c = self.open_tcp(f.src, f.dst, &open)?;
        let conn = &mut self.tcp[c as usize];
        conn.flow = flow;
        conn.app = app;
        // Every part opens every connection (their indices are the same in all), and a part
        // holds its own hosts' flows only.
        if let Some(f) = self.flows.get_mut(flow as usize) {
            f.conn = c;
        }
        Ok(())
    }

    /// A flow over TCP starts: its application writes or posts its first messages.
    pub(in crate::sim) fn tcp_flow_start(&mut self, c: u32) {
        match &self.tcp[c as usize].app {
            TcpApp::Bulk(_) => {
                self.bulk_fill(c);
                self.tcp_kick(c, 0);
                self.tcp_rearm(c, 0);
            }
            TcpApp::Iwarp(_) => self.iwarp_flow_fill(c),
            TcpApp::Api | TcpApp::Storage { .. } => {}
        }
    }

    /// Write what the bulk application may now.
    fn bulk_fill(&mut self, c: u32) {
        let now = self.now;
        let conn = &mut self.tcp[c as usize];
        let TcpApp::Bulk(b) = &mut conn.app else { return };
        let ep = &mut conn.ep[0];
        let written = ep.written();
        if now < b.start || now >= b.stop || written >= b.total {
            b.next_write = Time::MAX;
            return;
        }
        let (allowed, next) = b.allowance(now);
        let target = allowed.min(ep.snd_una().saturating_add(conn.sndbuf[0]));
        if target > written {
            ep.send(target - written);
        }
        b.next_write = next.unwrap_or(Time::MAX);
    }

    /// The application's next write or post time, if it waits for one (a paced sender).
    pub(in crate::sim) fn tcp_app_deadline(&self, c: u32) -> Option<Time> {
        match &self.tcp[c as usize].app {
            TcpApp::Bulk(b) if b.next_write != Time::MAX => Some(b.next_write),
            TcpApp::Iwarp(a) => a.deadline(self.now),
            _ => None,
        }
    }

    /// Side 0's timer fired: a paced write or post may be due.
    pub(in crate::sim) fn tcp_app_timer(&mut self, c: u32) {
        match &self.tcp[c as usize].app {
            TcpApp::Bulk(b) if b.next_write <= self.now => self.bulk_fill(c),
            TcpApp::Iwarp(a) if a.next_post <= self.now => self.iwarp_flow_fill(c),
            _ => {}
        }
    }

    /// The receiver of a bulk transfer has more in order at `at`.
    pub(in crate::sim) fn bulk_delivered(&mut self, c: u32, at: Time) {
        let conn = &self.tcp[c as usize];
        let rcv = conn.ep[1].rcv_nxt();
        if conn.flow == NO_FLOW {
            return;
        }
        let f = &mut self.flows[conn.flow as usize];
        f.delivered_bytes = rcv;
        f.last_delivery = f.last_delivery.max(at);
        if f.completed_at.is_none() && f.spec.size_bytes.is_some_and(|s| rcv >= s) {
            f.completed_at = Some(at);
            // Side 1 has it: an arrival at its port.
            let port = self.tcp[c as usize].port[1];
            self.flow_done_on(at, port);
        }
    }

    /// The sender of a bulk transfer has more acknowledged: write more; note when it is done.
    pub(in crate::sim) fn bulk_acked(&mut self, c: u32) {
        self.bulk_fill(c);
        let now = self.now;
        let conn = &self.tcp[c as usize];
        let TcpApp::Bulk(b) = &conn.app else { return };
        let ep = &conn.ep[0];
        let done_writing = now >= b.stop || ep.written() >= b.total;
        if done_writing && ep.unacked() == 0 {
            if let Some(f) = self.flows.get_mut(conn.flow as usize) {
                f.finished_sending = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, US};

    #[test]
    fn paced_writes_follow_the_bitrate_in_blocks() {
        // 1 Gb/s of 128 KiB blocks: one block every 1.048576 ms.
        let b =
            BulkApp { total: u64::MAX, start: 10 * US, stop: Time::MAX, rate_bps: Some(1_000_000_000), next_write: 0 };
        assert_eq!(b.allowance(10 * US), (IPERF_BLOCK, Some(10 * US + 1_048_576 * 1000)));
        let (allowed, next) = b.allowance(10 * US + 5 * MS);
        assert_eq!(allowed, 5 * IPERF_BLOCK, "blocks at 0, 1.05, 2.1, 3.1 and 4.2 ms");
        assert_eq!(next, Some(10 * US + 5 * 1_048_576 * 1000));
        // A sized transfer: the allowance stops at its size; no write after the stop time.
        let sized = BulkApp { total: 1_000_000, stop: 2 * MS, ..b };
        assert_eq!(sized.allowance(10 * MS), (1_000_000, None));
        assert_eq!(sized.allowance(1_100 * US), (2 * IPERF_BLOCK, None), "the third block would come after the stop");
        let unpaced = BulkApp { rate_bps: None, ..sized };
        assert_eq!(unpaced.allowance(0), (1_000_000, None));
    }
}
