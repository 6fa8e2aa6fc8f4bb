//! Building the queue pairs of RC flows and perftest tests, and collecting their results.

use crate::cc::{CcAlgorithm, CcState, NotificationPoint};
use crate::observer::Observer;
use crate::packet::{five_tuple_hash, node_ipv4, wire};
use crate::perftest::PerftestLength;
use crate::rdma::{Requester, Responder, PSN_MASK};
use crate::rng::mix64;
use crate::routing::{ecmp_select, hpcc_port_word, Ecmp, Routes};
use crate::sim::app::{App, PerftestRt};
use crate::sim::rdma::{QpRt, SideTiming};
use crate::sim::{FlowRt, PortRt, Sim};
use crate::spec::{CnpMode, NetworkSpec, NicSpec, NodeKind};
use crate::stats::{FrameCounts, RdmaFlowResults};
use crate::time::Time;
use crate::traffic::{FlowSpec, Transport};

/// Who a flow belongs to.
#[derive(Clone, Copy, Debug)]
pub(in crate::sim) enum Owner {
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
pub(in crate::sim) fn responder_udp_port(flow: u32) -> u16 {
    0xC000 | (mix64(flow as u64 ^ 0x5BD1_E995) & 0x3FFF) as u16
}

/// The host port `src` uses towards `dst` for a flow hashing to `hash`; with `peer`, the port of
/// `dst` the flow's other end uses, one of the ports that `peer` reaches (see [`reaching`]).
pub(in crate::sim) fn host_port(
    routes: &Routes,
    ports: &[PortRt],
    src: usize,
    dst: usize,
    hash: u64,
    peer: Option<u32>,
) -> Option<u32> {
    let all = routes.next_hops(src as u32, dst as u32);
    let reached;
    let hops = match peer {
        Some(p) => {
            reached = reaching(routes, ports, p, src, &all);
            &reached[..]
        }
        None => &all[..],
    };
    (!hops.is_empty()).then(|| hops[ecmp_select(hash, mix64(src as u64), hops.len())])
}

/// Of `candidates`, ports of host `to`, those that traffic sent from host port `from` can reach:
/// its link ends at the candidate, or at a switch with a route to the candidate's address.
/// Where `to`'s ports are addressed one by one (see [`crate::routing`]), a pair of ports on
/// separate networks would be a path that does not exist. When no candidate qualifies, all of
/// them (the flow's packets are then dropped for want of a route, and counted so). Reachability
/// is the same both ways: routes never pass through a host.
pub(in crate::sim) fn reaching(
    routes: &Routes,
    ports: &[PortRt],
    from: u32,
    to: usize,
    candidates: &[u32],
) -> Vec<u32> {
    let peer = ports[from as usize].peer;
    let (via, via_host) = (ports[peer as usize].node, ports[peer as usize].is_host);
    let ok: Vec<u32> = candidates
        .iter()
        .copied()
        .filter(|&c| peer == c || (!via_host && !routes.next_hops(via, routes.address_of(to as u32, c)).is_empty()))
        .collect();
    if ok.is_empty() {
        candidates.to_vec()
    } else {
        ok
    }
}

/// The queue pair of RC flow `f` (index `flow`), whose requester sends on `ports[0]` and whose
/// responder sends on `ports[1]` if given (a storage session's), else on a port taken by the
/// responder's hash among those `ports[0]` reaches.
#[allow(clippy::too_many_arguments)]
pub(in crate::sim) fn build_qp(
    spec: &NetworkSpec,
    routes: &Routes,
    ports: &[PortRt],
    flow: u32,
    f: &FlowSpec,
    (req_port, resp_port): (u32, Option<u32>),
    req_hash: u64,
    inline: bool,
    app: App,
    seed: u64,
) -> Result<QpRt, String> {
    let Transport::Rc(rc) = f.transport else {
        unreachable!("build_qp is called for RC flows");
    };
    let udp = [f.udp_src_port, responder_udp_port(flow)];
    // The responder's packets: under the ns-3 HPCC simulator's ECMP, its ACKs carry the data's
    // two ports swapped (`qbbHeader` sport/dport in `RdmaHw::ReceiveUdp`).
    let rev_hash = match spec.ecmp {
        Ecmp::Hpcc => hpcc_port_word(f.hpcc_dport.unwrap_or(wire::ROCEV2_UDP_PORT), f.udp_src_port),
        Ecmp::Rocelab => five_tuple_hash(
            node_ipv4(f.dst as u32),
            node_ipv4(f.src as u32),
            wire::IPPROTO_UDP,
            udp[1],
            wire::ROCEV2_UDP_PORT,
        ),
    };
    let resp_port = match resp_port {
        Some(p) => p,
        None => host_port(routes, ports, f.dst, f.src, rev_hash, Some(req_port)).ok_or_else(|| {
            format!("no path from \"{}\" back to \"{}\"; connect them", spec.nodes[f.dst].name, spec.nodes[f.src].name)
        })?,
    };
    let (rn, sn) = (nic(spec, f.src), nic(spec, f.dst));
    let side_timing = |n: &NicSpec, inline: bool| SideTiming {
        tx_latency: n.profile.tx_inline_latency_ps + if inline { 0 } else { n.profile.tx_dma_latency_ps },
        rx_pcie: n.profile.rx_pcie_latency_ps,
        read_latency: n.profile.read_latency_ps,
        completion: n.profile.completion_latency_ps,
    };
    let data_from_req = rc.op.data_from_requester();
    let (sender, receiver, sender_port) = if data_from_req { (rn, sn, req_port) } else { (sn, rn, resp_port) };
    let line = ports[sender_port as usize].rate.bps();
    let np_interval = match &receiver.cc {
        CcAlgorithm::Dcqcn(p) if receiver.notification_point => Some(p.cnp_interval_ps),
        _ => None,
    };
    let psn0 = (mix64(seed ^ (flow as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) as u32) & PSN_MASK;
    let mut req_cfg = rn.rc;
    req_cfg.path_mtu = f.payload_bytes;
    if let Some(w) = rc.window_packets {
        req_cfg.window_packets = w;
    }
    let mut resp_cfg = sn.rc;
    resp_cfg.path_mtu = f.payload_bytes;
    Ok(QpRt {
        flow,
        op: rc.op,
        req: Requester::new(req_cfg, psn0),
        // The ns-3 HPCC simulator's NIC queues every ACK (`RdmaEnqueueHighPrioQ`).
        resp: match sn.arbiter {
            crate::spec::NicArbiter::Ns3 => Responder::new(resp_cfg, psn0).queueing_acks(),
            crate::spec::NicArbiter::RoundRobin => Responder::new(resp_cfg, psn0),
        },
        cc: match CcState::new(&sender.cc, line, sender.reaction_point) {
            // The ns-3 HPCC simulator's timing goes with its whole-bit/s rates.
            CcState::Dcqcn(rp) if ports[sender_port as usize].rate.truncates_ns() => {
                CcState::Dcqcn(rp.with_whole_bps())
            }
            cc => cc,
        },
        np: NotificationPoint::default(),
        np_on: np_interval.is_some(),
        cnp_interval: np_interval.unwrap_or(0),
        cnp_pending: false,
        cnp_class: receiver.cnp_class,
        // Only a responder sends ACKs: a READ's data receiver (the requester) sends CNPs.
        cnp_flag: receiver.cnp == CnpMode::AckFlag && data_from_req,
        cnp_on_ack: false,
        ack_class: sn.ack_class,
        class: f.class,
        pace_ns3: ports[sender_port as usize].rate.truncates_ns(),
        next_avail: 0,
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
        addr: [routes.address_of(f.src as u32, req_port), routes.address_of(f.dst as u32, resp_port)],
        hash: [req_hash, rev_hash],
        udp,
        timing: [side_timing(rn, inline), side_timing(sn, inline)],
        resp_timer: (Time::MAX, 0),
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
pub(in crate::sim) fn flow_app(f: &FlowSpec) -> App {
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
pub(in crate::sim) fn perftest_apps(
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
            App::PingPong { test, partner: first_qp + 1, client: true, answered: 0 },
            App::PingPong { test, partner: first_qp, client: false, answered: 0 },
        ],
    };
    (apps, PerftestRt::new(*p, flows))
}

impl<O: Observer> Sim<'_, O> {
    /// The RDMA figures of flow `f`, with `in_flight` control frames.
    pub(in crate::sim) fn rdma_results(&self, f: &FlowRt, ctrl_in_flight: u64) -> Option<RdmaFlowResults> {
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

#[cfg(test)]
mod tests {
    use crate::rdma::RdmaOp;
    use crate::spec::BondMode;
    use crate::topology::{FabricDefaults, NetworkBuilder};
    use crate::traffic::{FlowClass, FlowSpec, TcpFlow, Traffic};
    use crate::{run, SimConfig, MS, NS};

    /// For each of eight flows (UDP or TCP source ports 49152..), run alone from h0 to h1,
    /// whose two ports are both wired to the one switch: the local index of h1's port that
    /// received the flow's data, and of the one that sent its acknowledgements.
    fn ports_at_the_two_port_host(bond: Option<BondMode>, tcp: bool) -> Vec<(usize, usize)> {
        let d = FabricDefaults::lossless(3, 100_000);
        (0..8u16)
            .map(|k| {
                let mut b = NetworkBuilder::new();
                let h0 = b.add_host("h0", d.host.clone(), d.host_port);
                let mut host = d.host.clone();
                host.bond = bond;
                let h1 = b.add_host("h1", host, d.host_port);
                let s = b.add_switch("s", d.switch.clone(), d.switch_port);
                b.connect(h0, s, 100_000_000_000, 100 * NS);
                b.connect(h1, s, 100_000_000_000, 100 * NS);
                b.connect(h1, s, 100_000_000_000, 100 * NS);
                let f = b.build();
                let mut flow = FlowSpec::sized(h0, h1, FlowClass::roce(3, 26), 256 << 10);
                flow.udp_src_port = 49152 + k;
                flow = if tcp { flow.tcp(TcpFlow::default()) } else { flow.rc(RdmaOp::Write) };
                let mut t = Traffic::new();
                t.push(flow);
                let r = run(&f.spec, &t, &SimConfig::new(1, MS)).expect("runs");
                assert_eq!(r.flows[0].delivered_bytes, 256 << 10);
                let at_h1: Vec<_> = r.ports.iter().filter(|p| p.node == h1).collect();
                let busiest = |bytes: &dyn Fn(&crate::stats::PortResults) -> u64| {
                    at_h1.iter().max_by_key(|p| bytes(p)).map(|p| p.port).unwrap()
                };
                (busiest(&|p| p.total(|c| c.rx_bytes)), busiest(&|p| p.total(|c| c.tx_bytes)))
            })
            .collect()
    }

    #[test]
    fn every_frame_names_the_ports_it_leaves_and_reaches() {
        // h1's two ports are addresses of their own: each frame a host sends carries its
        // sending port's address as its source, each frame a host receives its receiving
        // port's as its destination: RDMA, TCP and open-loop flows both ways.
        use crate::observer::{Direction, Observer};
        use crate::packet::Packet;
        use crate::routing::port_address;
        struct Frames(Vec<(usize, u32, u32, Direction)>);
        impl Observer for Frames {
            fn on_packet(&mut self, _: crate::Time, port: usize, p: &Packet, dir: Direction) {
                self.0.push((port, p.src, p.dst, dir));
            }
        }
        let d = FabricDefaults::lossless(3, 100_000);
        let mut b = NetworkBuilder::new();
        let h0 = b.add_host("h0", d.host.clone(), d.host_port);
        let h1 = b.add_host("h1", d.host.clone(), d.host_port);
        let s = b.add_switch("s", d.switch.clone(), d.switch_port);
        b.connect(h0, s, 100_000_000_000, 100 * NS);
        b.connect(h1, s, 100_000_000_000, 100 * NS);
        b.connect(h1, s, 100_000_000_000, 100 * NS);
        let f = b.build();
        let mut t = Traffic::new();
        for k in 0..12u16 {
            let (src, dst) = if k % 2 == 0 { (h0, h1) } else { (h1, h0) };
            let mut flow = FlowSpec::sized(src, dst, FlowClass::roce(3, 26), 64 << 10);
            flow.udp_src_port = 49152 + k;
            t.push(match k % 3 {
                0 => flow.rc(RdmaOp::Write),
                1 => flow.tcp(TcpFlow::default()),
                _ => flow,
            });
        }
        let mut frames = Frames(Vec::new());
        let r = crate::run_with_observer(&f.spec, &t, &SimConfig::new(1, MS), &mut frames).expect("runs");
        assert!(r.flows.iter().all(|f| f.delivered_bytes == 64 << 10));
        let address = |g: usize| {
            let p = &r.ports[g];
            if p.node == h1 {
                port_address(h1 as u32, p.port as u32)
            } else {
                p.node as u32
            }
        };
        let (mut sent, mut received) = ([0; 2], [0; 2]);
        for &(g, src, dst, dir) in frames.0.iter().filter(|(g, ..)| r.ports[*g].node != s) {
            match dir {
                Direction::Tx => assert_eq!(src, address(g), "sent at port {g}"),
                Direction::Rx => assert_eq!(dst, address(g), "received at port {g}"),
            }
            if r.ports[g].node == h1 {
                let k = if dir == Direction::Tx { &mut sent } else { &mut received };
                k[r.ports[g].port] += 1;
            }
        }
        assert!(
            sent.iter().chain(&received).all(|&n| n > 0),
            "h1's two ports both send and receive: {sent:?} {received:?}"
        );
    }

    #[test]
    fn a_flow_to_a_host_with_two_ports_arrives_at_the_port_that_answers() {
        // Each port its own address (RoCE GIDs, TCP/IP addresses per interface): the data
        // arrives where the queue pair's or connection's other end sends from.
        for tcp in [false, true] {
            let ports = ports_at_the_two_port_host(None, tcp);
            assert!(ports.iter().all(|(rx, tx)| rx == tx), "tcp {tcp}: {ports:?}");
        }
        // A bond is one address: the switch hashes each flow onto a member link, whichever the
        // host answers from (this fails with every port addressed, as the same flows then
        // show).
        let bonded = ports_at_the_two_port_host(Some(BondMode::Aggregate), false);
        assert!(bonded.iter().any(|(rx, tx)| rx != tx), "{bonded:?}");
        // Active-backup: everything on the active port, both ways, whatever the hash.
        for tcp in [false, true] {
            let ports = ports_at_the_two_port_host(Some(BondMode::ActiveBackup), tcp);
            assert!(ports.iter().all(|&p| p == (0, 0)), "tcp {tcp}: {ports:?}");
        }
    }
}
