//! Building the queue pairs of RC flows and perftest tests, and collecting their results.

use super::app::{App, PerftestRt};
use super::rdma::{QpRt, SideTiming};
use super::{FlowRt, Sim};
use crate::cc::{CcAlgorithm, CcState, NotificationPoint};
use crate::observer::Observer;
use crate::packet::{five_tuple_hash, node_ipv4, wire};
use crate::perftest::PerftestLength;
use crate::rdma::{Requester, Responder, PSN_MASK};
use crate::rng::mix64;
use crate::routing::{ecmp_select, Routes};
use crate::spec::{NetworkSpec, NicSpec, NodeKind};
use crate::stats::{FrameCounts, RdmaFlowResults};
use crate::time::Time;
use crate::traffic::{FlowSpec, Transport};

/// Who a flow belongs to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Owner {
    /// `Traffic::flows[i]`.
    Flow(usize),
    /// Flow `k` of `Traffic::perftest[t]`.
    Perftest(usize, usize),
}

impl Owner {
    pub fn path(&self) -> String {
        match self {
            Owner::Flow(i) => format!("flows[{i}]"),
            Owner::Perftest(t, k) => format!("perftest[{t}] (queue pair {k})"),
        }
    }
}

fn nic(spec: &NetworkSpec, node: usize) -> &NicSpec {
    match &spec.nodes[node].kind {
        NodeKind::Host(h) => &h.nic,
        NodeKind::Switch(_) => unreachable!("flows run between hosts (validated)"),
    }
}

/// The UDP source port of a responder's QP: RoCEv2 NICs derive one per QP for ECMP entropy
/// (IBA annex A17.2.3 recommends a hash of the QP numbers); from the private range here.
pub(super) fn responder_udp_port(flow: u32) -> u16 {
    0xC000 | (mix64(flow as u64 ^ 0x5BD1_E995) & 0x3FFF) as u16
}

/// The host port `src` uses towards `dst` for a flow hashing to `hash`.
pub(super) fn host_port(routes: &Routes, src: usize, dst: usize, hash: u64) -> Option<u32> {
    let hops = routes.next_hops(src as u32, dst as u32);
    (!hops.is_empty()).then(|| hops[ecmp_select(hash, mix64(src as u64), hops.len())])
}

/// The queue pair of RC flow `f` (index `flow`), whose requester sends on `req_port`.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_qp(
    spec: &NetworkSpec,
    routes: &Routes,
    port_rate: &dyn Fn(u32) -> u64,
    flow: u32,
    f: &FlowSpec,
    req_port: u32,
    req_hash: u64,
    inline: bool,
    app: App,
    seed: u64,
) -> Result<QpRt, String> {
    let Transport::Rc(rc) = f.transport else {
        unreachable!("build_qp is called for RC flows");
    };
    let udp = [f.udp_src_port, responder_udp_port(flow)];
    let rev_hash = five_tuple_hash(
        node_ipv4(f.dst as u32),
        node_ipv4(f.src as u32),
        wire::IPPROTO_UDP,
        udp[1],
        wire::ROCEV2_UDP_PORT,
    );
    let resp_port = host_port(routes, f.dst, f.src, rev_hash).ok_or_else(|| {
        format!("no path from \"{}\" back to \"{}\"; connect them", spec.nodes[f.dst].name, spec.nodes[f.src].name)
    })?;
    let (rn, sn) = (nic(spec, f.src), nic(spec, f.dst));
    let side_timing = |n: &NicSpec, inline: bool| SideTiming {
        tx_latency: n.profile.tx_inline_latency_ps + if inline { 0 } else { n.profile.tx_dma_latency_ps },
        rx_pcie: n.profile.rx_pcie_latency_ps,
        read_latency: n.profile.read_latency_ps,
        completion: n.profile.completion_latency_ps,
    };
    let data_from_req = rc.op.data_from_requester();
    let (sender, receiver, sender_port) = if data_from_req { (rn, sn, req_port) } else { (sn, rn, resp_port) };
    let line = port_rate(sender_port);
    let np_interval = match &receiver.cc {
        CcAlgorithm::Dcqcn(p) if receiver.notification_point => Some(p.cnp_interval_ps),
        _ => None,
    };
    let psn0 = (mix64(seed ^ (flow as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) as u32) & PSN_MASK;
    let mut req_cfg = rn.rc;
    req_cfg.path_mtu = f.payload_bytes;
    let mut resp_cfg = sn.rc;
    resp_cfg.path_mtu = f.payload_bytes;
    Ok(QpRt {
        flow,
        op: rc.op,
        req: Requester::new(req_cfg, psn0),
        resp: Responder::new(resp_cfg, psn0),
        cc: CcState::new(&sender.cc, line, sender.reaction_point),
        np: NotificationPoint::default(),
        np_on: np_interval.is_some(),
        cnp_interval: np_interval.unwrap_or(0),
        cnp_pending: false,
        cnp_class: receiver.cnp_class,
        last_tx_at: 0,
        last_tx_wire: 0,
        parked_until: [Time::MAX; 2],
        cap_bps: f.rate_bps.map(|r| r as f64),
        on_off: f.on_off.map(|o| (f.start_ps, o.on_ps, o.off_ps)),
        timer_at: Time::MAX,
        timer_gen: 0,
        sched: [false; 2],
        ctrl_queued: [false; 2],
        port: [req_port, resp_port],
        hash: [req_hash, rev_hash],
        udp,
        timing: [side_timing(rn, inline), side_timing(sn, inline)],
        app,
        messages_completed: 0,
        acks_sent: 0,
        cnps_received: 0,
        ctrl: FrameCounts::default(),
        read_resent_packets: 0,
        read_resent_bytes: 0,
    })
}

/// The application of RC flow `f` that is not part of a perftest test.
pub(super) fn flow_app(f: &FlowSpec) -> App {
    let Transport::Rc(rc) = f.transport else {
        unreachable!("flow_app is called for RC flows");
    };
    // A sized flow is one message of its size (2 GiB messages beyond), an unsized one repeats
    // `message_bytes`.
    App::Flow {
        remaining: f.size_bytes.unwrap_or(u64::MAX),
        message_bytes: if f.size_bytes.is_some() { crate::rdma::MAX_MESSAGE_BYTES } else { rc.message_bytes },
        depth: rc.tx_depth,
        stop: f.stop_ps.unwrap_or(Time::MAX),
        next_id: 0,
    }
}

/// The applications of test `t`'s flows (numbered from `first_flow`, one QP index each from
/// `first_qp`), and its runtime state.
pub(super) fn perftest_apps(
    t: usize,
    p: &crate::perftest::PerftestSpec,
    first_flow: u32,
    first_qp: u32,
) -> (Vec<App>, PerftestRt) {
    let n = p.flows().len() as u32;
    let flows: Vec<u32> = (first_flow..first_flow + n).collect();
    let test = t as u32;
    let apps = match p.test {
        k if k.is_bw() => {
            let (remaining, until) = match p.length {
                PerftestLength::Iterations(i) => (i, Time::MAX),
                PerftestLength::Duration(d) => (u64::MAX, p.start_ps.saturating_add(d)),
            };
            (0..n).map(|_| App::Bw { test, remaining, until }).collect()
        }
        crate::perftest::PerftestKind::ReadLat => vec![App::ReadLat { test }],
        _ => vec![
            App::PingPong { test, partner: first_qp + 1, client: true },
            App::PingPong { test, partner: first_qp, client: false },
        ],
    };
    (apps, PerftestRt::new(*p, flows))
}

impl<O: Observer> Sim<'_, O> {
    /// The RDMA figures of flow `f`, with `in_flight` control frames.
    pub(super) fn rdma_results(&self, f: &FlowRt, ctrl_in_flight: u64) -> Option<RdmaFlowResults> {
        let qp = self.qps.get(f.qp as usize)?;
        let rs = &qp.req.stats;
        let rp = qp.cc.dcqcn();
        Some(RdmaFlowResults {
            op: qp.op,
            messages_completed: qp.messages_completed,
            retransmitted_packets: rs.retransmitted_packets + qp.read_resent_packets,
            retransmitted_bytes: rs.retransmitted_bytes + qp.read_resent_bytes,
            out_of_sequence_packets: qp.resp.out_of_sequence,
            duplicate_packets: qp.resp.duplicates,
            acks_sent: qp.acks_sent,
            naks_sent: qp.resp.naks,
            timeouts: rs.timeouts,
            failed: qp.req.failed(),
            ce_packets: qp.np.ce_packets,
            cnps_sent: qp.np.cnps_sent,
            cnps_received: qp.cnps_received,
            rate_cuts: rp.map(|r| r.cuts).unwrap_or(0),
            min_rate_bps: rp.filter(|r| r.cuts > 0).map(|r| r.min_rate_seen),
            control: FrameCounts { in_flight: ctrl_in_flight, ..qp.ctrl },
        })
    }
}
