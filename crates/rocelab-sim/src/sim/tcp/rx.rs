//! Arrival of TCP segments at a host: through the host's receive buffer (which may drop, or
//! pause the peer with PFC or 802.3x when it fills), then the endpoint's state machine, then the
//! application: the bytes it received in order and the bytes of its own stream the peer
//! acknowledged, message by message.

use crate::nic::RxArrival;
use crate::observer::{Direction, DropCause, Observer};
use crate::packet::Ecn;
use crate::sim::tcp::{MsgKind, StreamMsg, TcpApp};
use crate::sim::Sim;
use crate::time::Time;

impl<O: Observer> Sim<'_, O> {
    /// A TCP segment `id` has arrived at host port `port` of NIC `nic_idx`.
    pub(in crate::sim) fn tcp_arrive(&mut self, port: u32, nic_idx: u32, id: u32) {
        let now = self.now;
        let pkt = *self.pool.get(id);
        let mut info = self.tcp_seg[id as usize];
        // The IP ECN field as it arrived: a switch may have marked CE.
        info.seg.ecn = pkt.ecn;
        let nic_idx = nic_idx as usize;
        self.obs.on_tcp(now, port as usize, &pkt, &info.hdr, Direction::Rx);
        let nic = &mut self.nics[nic_idx];
        let (delivered_at, xoff, check_at) = match nic.rx.on_arrival(now, pkt.frame_bytes as u64) {
            RxArrival::Dropped => {
                nic.rx_drops += 1;
                self.drop_packet(port, id, pkt.priority, DropCause::HostRxOverflow);
                return;
            }
            RxArrival::Accepted { delivered_at, xoff, check_at } => (delivered_at, xoff, check_at),
        };
        self.conservation.delivered_packets += 1;
        self.conservation.delivered_bytes += pkt.frame_bytes as u64;
        self.pool.free(id);
        let (c, side) = (pkt.dest_qp >> 1, pkt.dest_qp & 1);
        let conn = &mut self.tcp[c as usize];
        if pkt.payload_bytes > 0 {
            conn.data.delivered += 1;
            if let Some(f) = self.flows.get_mut(conn.flow as usize) {
                f.delivered_packets += 1;
                if pkt.ecn == Ecn::Ce {
                    f.ce_packets += 1;
                }
            }
        } else {
            conn.acks.delivered += 1;
        }
        if let Some((tsval, _)) = info.hdr.timestamps {
            conn.ts_recent[side as usize] = tsval;
        }
        let a = conn.ep[side as usize].on_segment(now, &info.seg);
        if xoff {
            self.host_rx_xoff(port, check_at);
        }
        if a.delivered > 0 {
            self.tcp_on_delivered(c, side, delivered_at);
        }
        if a.acked > 0 {
            self.tcp_on_acked(c, side);
        }
        self.tcp_kick(c, side);
        self.tcp_rearm(c, side);
    }

    /// Side `side` of `c` received more of the peer's stream in order; the application has it
    /// at `at`.
    fn tcp_on_delivered(&mut self, c: u32, side: u32, at: Time) {
        if matches!(self.tcp[c as usize].app, TcpApp::Bulk(_)) {
            self.bulk_delivered(c, at);
            return;
        }
        let rcv = self.tcp[c as usize].ep[side as usize].rcv_nxt();
        let d = (side ^ 1) as usize;
        loop {
            let st = &mut self.tcp[c as usize].streams[d];
            let Some(&m) = st.unread.front() else { break };
            if m.end > rcv {
                break;
            }
            st.unread.pop_front();
            if carries_data(&m) {
                st.done_payload += m.payload;
            }
            self.msg_delivered(c, side, m, at);
        }
        // The application's payload received so far, the message in progress included.
        let conn = &mut self.tcp[c as usize];
        let st = &mut conn.streams[d];
        let partial = st.unread.front().filter(|m| carries_data(m)).map_or(0, |m| m.payload_before(rcv));
        let total = st.done_payload + partial;
        let gained = total.saturating_sub(st.payload_delivered);
        st.payload_delivered = total;
        if let Some(f) = self.flows.get_mut(conn.flow as usize) {
            if gained > 0 {
                f.delivered_bytes += gained;
                f.last_delivery = f.last_delivery.max(at);
            }
        }
    }

    /// Side `side` of `c` has more of its stream acknowledged.
    fn tcp_on_acked(&mut self, c: u32, side: u32) {
        if matches!(self.tcp[c as usize].app, TcpApp::Bulk(_)) {
            if side == 0 {
                self.bulk_acked(c);
            }
            return;
        }
        let una = self.tcp[c as usize].ep[side as usize].snd_una();
        loop {
            let st = &mut self.tcp[c as usize].streams[side as usize];
            let Some(&m) = st.msgs.front() else { break };
            if m.end > una {
                break;
            }
            st.msgs.pop_front();
            self.msg_acked(c, side, m);
        }
    }

    fn msg_delivered(&mut self, c: u32, side: u32, m: StreamMsg, at: Time) {
        match m.what {
            MsgKind::Tag(tag) => self.tcp_app_delivered(c, side, tag, at),
            MsgKind::Iwarp { op, id, len } => self.iwarp_delivered(c, side, op, id, len, at),
        }
    }

    fn msg_acked(&mut self, c: u32, side: u32, m: StreamMsg) {
        match m.what {
            MsgKind::Tag(tag) => self.tcp_app_acked(c, side, tag, self.now),
            MsgKind::Iwarp { op, id, .. } => self.iwarp_acked(c, side, op, id),
        }
    }

    /// The application hook: the bytes tagged `tag` written on the other side of `c` are all
    /// in order at side `side`'s application at `at`. Connections opened through the API
    /// count them; a storage protocol's exchange continues here.
    pub(crate) fn tcp_app_delivered(&mut self, c: u32, side: u32, tag: u64, at: Time) {
        self.tcp[c as usize].msgs_delivered += 1;
        if let TcpApp::Storage { session } = self.tcp[c as usize].app {
            self.storage_message_in(session, side, tag, at);
        }
    }

    /// The application hook: the peer acknowledged the last byte tagged `tag` that side `side`
    /// of `c` wrote, at `at`.
    pub(crate) fn tcp_app_acked(&mut self, c: u32, _side: u32, _tag: u64, _at: Time) {
        self.tcp[c as usize].msgs_completed += 1;
    }
}

/// Whether a message carries application payload (as opposed to an iWARP READ request).
fn carries_data(m: &StreamMsg) -> bool {
    !matches!(m.what, MsgKind::Iwarp { op: crate::sim::tcp::iwarp::IwarpMsg::ReadRequest, .. })
}
