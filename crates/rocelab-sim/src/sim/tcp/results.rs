//! Results of the TCP connections, of iperf tests and of 802.3x link pause.

use crate::observer::Observer;
use crate::sim::port::PortCold;
use crate::sim::tcp::{ConnRt, TcpApp, NO_FLOW};
use crate::sim::Sim;
use crate::stats::{
    FrameCounts, IperfResults, IperfStream, IwarpResults, LinkPauseCounters, Results, TcpConnResults, TcpEndResults,
};
use crate::time::{Time, SECOND};
use crate::traffic::Traffic;

impl<O: Observer> Sim<'_, O> {
    /// The figures of connection `c`, with `in_flight` data segments and pure ACKs.
    pub(in crate::sim) fn tcp_conn_results(&self, c: usize, in_flight: [u64; 2]) -> TcpConnResults {
        let conn: &ConnRt = &self.tcp[c];
        let end = |s: usize| {
            let ep = &conn.ep[s];
            TcpEndResults {
                node: crate::routing::address_node(conn.addr[s]) as usize,
                port: conn.tport[s],
                bytes_written: ep.written(),
                highest_sent: ep.snd_max(),
                bytes_acked: ep.snd_una(),
                bytes_received: ep.rcv_nxt(),
                stats: *ep.stats(),
                cwnd_bytes: ep.cwnd(),
                ssthresh_bytes: (ep.ssthresh() != u64::MAX).then_some(ep.ssthresh()),
                srtt_ps: ep.srtt(),
                rto_ps: ep.rto(),
                peer_window_bytes: ep.peer_window(),
            }
        };
        TcpConnResults {
            connection: c,
            flow: (conn.flow != NO_FLOW).then_some(conn.flow as usize),
            congestion_control: conn.cc,
            mss: conn.mss,
            window_scaling: conn.window_scaling,
            ecn: conn.ep[0].ecn(),
            ends: [end(0), end(1)],
            data: FrameCounts { in_flight: in_flight[0], ..conn.data },
            acks: FrameCounts { in_flight: in_flight[1], ..conn.acks },
            iwarp: match &conn.app {
                TcpApp::Iwarp(a) => Some(IwarpResults { op: a.op, messages_completed: a.completed }),
                _ => None,
            },
        }
    }

    /// Per connection, its data segments and pure ACKs still in the network, in the pools of
    /// `engines` (this one and the other parts of a run on several threads).
    pub(in crate::sim) fn tcp_in_flight(&self, engines: &[&Self]) -> Vec<[u64; 2]> {
        let mut v = vec![[0u64; 2]; self.tcp.len()];
        let live = engines.iter().flat_map(|e| e.pool.iter_live());
        for p in live.filter(|p| p.kind == crate::packet::PacketKind::Tcp) {
            v[(p.dest_qp >> 1) as usize][(p.payload_bytes == 0) as usize] += 1;
        }
        v
    }
}

/// The 802.3x counters of a port (its cold state `p`), when link pause is on at it or at its
/// peer (`peer`).
pub(in crate::sim) fn link_pause_counters(p: &PortCold, peer: &PortCold, end: Time) -> Option<LinkPauseCounters> {
    (p.link_pause.enabled || peer.link_pause.enabled).then(|| LinkPauseCounters {
        sent: p.link_pause.sent,
        received: p.link_pause.received,
        paused_ps: p.link_pause.rx.paused_time(end),
    })
}

/// The iperf tests' results from the run's flow results (see [`IperfStream`] for the interval).
pub(in crate::sim) fn iperf_results(traffic: &Traffic, r: &Results) -> Vec<IperfResults> {
    let rate = |bytes: u64, start: Time, end: Time| {
        let t = end.saturating_sub(start);
        if t == 0 {
            0.0
        } else {
            bytes as f64 * 8.0 * SECOND as f64 / t as f64
        }
    };
    traffic
        .iperf
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let streams: Vec<IperfStream> = (t.first_flow..t.first_flow + t.streams as usize)
                .filter_map(|k| {
                    let (spec, f) = (traffic.flows.get(k)?, r.flows.get(k)?);
                    let tcp = f.tcp.as_ref()?;
                    let start = spec.start_ps;
                    let end = f.completion_ps.unwrap_or(spec.stop_ps.unwrap_or(r.end_time_ps).min(r.end_time_ps));
                    let (sender, receiver) = (&tcp.ends[0], &tcp.ends[1]);
                    Some(IperfStream {
                        flow: Some(k),
                        start_ps: start,
                        end_ps: end,
                        sender_bytes: sender.highest_sent,
                        receiver_bytes: receiver.bytes_received,
                        sender_bitrate_bps: rate(sender.highest_sent, start, end),
                        receiver_bitrate_bps: rate(receiver.bytes_received, start, end),
                        retransmits: sender.stats.retransmissions,
                        cwnd_bytes: Some(sender.cwnd_bytes),
                    })
                })
                .collect();
            let start = streams.iter().map(|s| s.start_ps).min().unwrap_or(0);
            let end = streams.iter().map(|s| s.end_ps).max().unwrap_or(0);
            let (sent, received) = streams.iter().fold((0, 0), |(a, b), s| (a + s.sender_bytes, b + s.receiver_bytes));
            let sum = IperfStream {
                flow: None,
                start_ps: start,
                end_ps: end,
                sender_bytes: sent,
                receiver_bytes: received,
                sender_bitrate_bps: rate(sent, start, end),
                receiver_bitrate_bps: rate(received, start, end),
                retransmits: streams.iter().map(|s| s.retransmits).sum(),
                cwnd_bytes: None,
            };
            IperfResults { test: i, client: t.client, server: t.server, streams, sum }
        })
        .collect()
}
