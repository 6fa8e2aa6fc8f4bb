//! Arrival of RDMA packets at a host: control frames (ACK, NAK, CNP, READ request) are handled
//! by the NIC; data frames (SEND/WRITE payload, READ responses) go through the receive buffer
//! to host memory first. Then the requester or responder state machine decides, the
//! notification point looks at the ECN bits, and the application layer ([`crate::sim::app`]) sees
//! completions and delivered messages.

use crate::cc::CongestionControl;
use crate::nic::RxArrival;
use crate::observer::{Direction, DropCause, Observer};
use crate::packet::{Ecn, Packet, PacketKind};
use crate::rdma::{wire, RequesterEvent, RxVerdict};
use crate::sim::rdma::{REQUESTER, RESPONDER};
use crate::sim::Sim;
use crate::time::Time;

impl<O: Observer> Sim<'_, O> {
    /// An RDMA frame `id` has arrived at host port `port` of NIC `nic_idx` (and the NIC has
    /// handled it).
    pub(in crate::sim) fn rc_arrive(&mut self, port: u32, nic_idx: u32, id: u32) {
        let now = self.now;
        let pkt = *self.pool.get(id);
        let nic_idx = nic_idx as usize;
        self.obs.on_packet(now, port as usize, &pkt, Direction::Rx);
        let q = self.flows[pkt.flow as usize].qp;
        if pkt.is_control() {
            self.conservation.delivered_packets += 1;
            self.conservation.delivered_bytes += pkt.frame_bytes as u64;
            self.qps[q as usize].ctrl.delivered += 1;
            self.pool.free(id);
            match pkt.kind {
                PacketKind::Ack => {
                    if pkt.ecn == Ecn::Ce {
                        // The notification point's flag on the ACK (`CnpMode::AckFlag`).
                        let qp = &mut self.qps[q as usize];
                        qp.cnps_received += 1;
                        qp.cc.on_cnp(now);
                    }
                    self.rc_on_ack(q, &pkt, port)
                }
                PacketKind::Cnp => {
                    let qp = &mut self.qps[q as usize];
                    qp.cnps_received += 1;
                    qp.cc.on_cnp(now);
                    let side = qp.data_side();
                    self.rc_rearm(q, side);
                }
                _ => self.rc_on_request(q, &pkt, now),
            }
            return;
        }
        let nic = &mut self.nics[nic_idx];
        match nic.rx.on_arrival(now, pkt.frame_bytes as u64) {
            RxArrival::Dropped => {
                nic.rx_drops += 1;
                self.drop_packet(port, id, pkt.priority, DropCause::HostRxOverflow);
            }
            RxArrival::Accepted { delivered_at, xoff, check_at } => {
                self.conservation.delivered_packets += 1;
                self.conservation.delivered_bytes += pkt.frame_bytes as u64;
                let flow = &mut self.flows[pkt.flow as usize];
                flow.delivered_packets += 1;
                if pkt.ecn == Ecn::Ce {
                    flow.ce_packets += 1;
                }
                self.pool.free(id);
                if xoff {
                    self.host_rx_xoff(port, check_at);
                }
                // Congestion experienced on data: the receiver's notification point.
                if pkt.ecn == Ecn::Ce {
                    let qp = &mut self.qps[q as usize];
                    let side = qp.data_side() ^ 1;
                    if qp.np_on && qp.np.on_ce(now, qp.cnp_interval) {
                        if qp.cnp_flag {
                            // Carried by the ACK this packet's arrival schedules (or the next).
                            qp.np.cnps_sent -= 1;
                            qp.cnp_on_ack = true;
                        } else {
                            qp.cnp_pending = true;
                            self.rc_ctrl_kick(q, side);
                        }
                    }
                }
                if pkt.kind == PacketKind::ReadResponse {
                    self.rc_on_read_response(q, &pkt, delivered_at, port);
                } else {
                    self.rc_on_request(q, &pkt, delivered_at);
                }
            }
        }
    }

    /// A request packet at the responder; its payload (if any) is in host memory at
    /// `delivered_at` (+ the PCIe latency).
    fn rc_on_request(&mut self, q: u32, pkt: &Packet, delivered_at: Time) {
        let now = self.now;
        let qp = &mut self.qps[q as usize];
        let t = qp.timing[RESPONDER as usize];
        let reth = if wire::has_reth(pkt.bth_opcode) { pkt.ext } else { 0 };
        let v = qp.resp.on_request(pkt.bth_opcode, pkt.psn, pkt.payload_bytes, reth, now + t.read_latency);
        // A congestion flag due (`CnpMode::AckFlag`) rides on the newest ACK.
        if qp.cnp_on_ack && qp.resp.flag_cnp() {
            qp.cnp_on_ack = false;
        }
        let control = qp.resp.has_control();
        if let RxVerdict::Accepted { payload, message_end } = v {
            let flow = &mut self.flows[pkt.flow as usize];
            flow.delivered_bytes += payload as u64;
            flow.last_delivery = flow.last_delivery.max(delivered_at);
            if pkt.bth_opcode == wire::READ_REQUEST {
                self.rc_kick(q, RESPONDER);
            } else if message_end {
                self.app_delivered(q, delivered_at + t.rx_pcie);
            }
        } else if pkt.bth_opcode == wire::READ_REQUEST {
            // A duplicate READ request is executed again.
            self.rc_kick(q, RESPONDER);
        }
        if control {
            self.rc_ctrl_kick(q, RESPONDER);
        }
    }

    /// A READ response at the requester (arrived at host port `port`), its payload in memory at
    /// `delivered_at` (+ PCIe).
    fn rc_on_read_response(&mut self, q: u32, pkt: &Packet, delivered_at: Time, port: u32) {
        let now = self.now;
        let qp = &mut self.qps[q as usize];
        let t = qp.timing[REQUESTER as usize];
        match qp.req.on_read_response(now, pkt.psn) {
            RequesterEvent::ReadData => {
                let flow = &mut self.flows[pkt.flow as usize];
                flow.delivered_bytes += pkt.payload_bytes as u64;
                flow.last_delivery = flow.last_delivery.max(delivered_at);
                let visible = (now + t.completion).max(delivered_at + t.rx_pcie);
                self.rc_completions(q, visible, port);
                // The requester may send again (window).
                self.rc_kick(q, REQUESTER);
            }
            RequesterEvent::ReadGap => self.rc_kick(q, REQUESTER),
            _ => {}
        }
        self.rc_rearm(q, REQUESTER);
    }

    /// An ACK or NAK at the requester (arrived at host port `port`).
    fn rc_on_ack(&mut self, q: u32, pkt: &Packet, port: u32) {
        let now = self.now;
        let (syndrome, _msn) = wire::unpack_aeth(pkt.ext);
        let qp = &mut self.qps[q as usize];
        let ev = qp.req.on_ack(now, pkt.psn, syndrome);
        if matches!(ev, RequesterEvent::Progress | RequesterEvent::Nak) {
            if qp.data_side() == REQUESTER {
                qp.cc.on_ack(now, 0, None);
            }
            let visible = now + qp.timing[REQUESTER as usize].completion;
            self.rc_completions(q, visible, port);
            self.rc_kick(q, REQUESTER);
        }
        self.rc_rearm(q, REQUESTER);
    }

    /// Hand the requester's completed work requests to the application; the application sees
    /// them at `visible`. They come from the arrival of a frame at host port `port` (every
    /// completion does: an ACK or a READ response; the requester's timer only resends).
    fn rc_completions(&mut self, q: u32, visible: Time, port: u32) {
        while let Some(c) = self.qps[q as usize].req.take_completion() {
            self.qps[q as usize].messages_completed += 1;
            self.app_completed(q, c, visible, port);
        }
    }

    /// The host receive buffer behind `port` crossed XOFF: pause the peer on every PFC
    /// priority (and the whole link with 802.3x link pause) and check for XON at `check_at`.
    pub(in crate::sim) fn host_rx_xoff(&mut self, port: u32, check_at: Time) {
        let link_pause = self.cold_mut(port).link_pause.enabled;
        let p = &self.ports[port as usize];
        let (nic_idx, enabled) = (p.owner as usize, p.pfc_enabled);
        let nic = &mut self.nics[nic_idx];
        nic.rx_gen = nic.rx_gen.wrapping_add(1);
        let gen = nic.rx_gen;
        self.queue.push(check_at, crate::event::Event::HostRxCheck { port, gen });
        for prio in 0..8u8 {
            if enabled.contains(prio) {
                self.pfc_assert(port, prio);
            }
        }
        if link_pause {
            self.link_pause_assert(port, 0);
        }
    }
}
