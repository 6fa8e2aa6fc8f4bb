//! Collecting a simulation's [`Results`] at its end time: per port, switch, host and flow, the
//! queue samples and the packet balance.

use super::port::own_place;
use super::Sim;
use crate::observer::Observer;
use crate::spec::{NetworkSpec, NodeKind};
use crate::stats::{FlowResults, HostResults, PortResults, QueueSamples, Results, SwitchResults, SCHEMA_VERSION};
use crate::time::SECOND;

impl<O: Observer> Sim<'_, O> {
    /// Collect the results at the end time.
    pub(super) fn results(&self, spec: &NetworkSpec) -> Results {
        self.results_with(spec, &[])
    }

    /// [`Sim::results`], with the frames still in the network in `others`' pools and queues
    /// besides this engine's, and each port's cold state ([`super::PortCold`]) in the engine
    /// that holds it: the other parts of a run on several threads, whose state the merge has
    /// moved into this one but for their packets and their own ports' cold state
    /// (`parallel::merge`).
    pub(super) fn results_with(&self, spec: &NetworkSpec, others: &[&Self]) -> Results {
        let end = self.end;
        let engines: Vec<&Self> = std::iter::once(self).chain(others.iter().copied()).collect();
        let mut first_port = Vec::with_capacity(spec.nodes.len());
        let mut acc = 0usize;
        for node in 0..spec.nodes.len() {
            first_port.push(acc);
            acc += spec.port_count(node);
        }
        let on_wire = Self::frames_on_wires(&engines);
        // The engine that holds each port's cold state: the only one, or the part whose own
        // port it is (its place there not `u32::MAX`).
        let holder: Vec<&Self> = (0..self.ports.len() as u32)
            .map(|g| {
                let holds = |e: &&Self| e.port_place.get(g as usize).is_none_or(|&i| i != u32::MAX);
                engines.iter().copied().find(holds).expect("every port's cold state is in one part")
            })
            .collect();
        let cold = |g: u32| {
            let e = holder[g as usize];
            &e.port_cold[own_place(&e.port_place, g)]
        };
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(g, p)| {
                let mut priorities = self.port_counters(g, cold(g as u32), &on_wire);
                for (prio, c) in priorities.iter_mut().enumerate() {
                    c.paused_ps = cold(g as u32).pause[prio].paused_time(end);
                }
                let peer = &self.ports[p.peer as usize];
                let link_pause = crate::sim::tcp::results::link_pause_counters(cold(g as u32), cold(p.peer), end);
                PortResults {
                    index: g,
                    node: p.node as usize,
                    node_name: spec.nodes[p.node as usize].name.clone(),
                    port: p.local as usize,
                    peer_node: peer.node as usize,
                    peer_port: peer.local as usize,
                    peer_index: p.peer as usize,
                    rate_bps: p.rate.bps(),
                    priorities,
                    peak_queue_bytes: std::array::from_fn(|tc| p.egress_queues[tc].peak),
                    link_pause,
                }
            })
            .collect();
        let switches = self
            .switches
            .iter()
            .map(|s| SwitchResults {
                node: s.node as usize,
                name: spec.nodes[s.node as usize].name.clone(),
                shared_pool_bytes: s.mmu.shared_size(),
                peak_shared_used_bytes: s.mmu.peak_shared_used(),
                drops_lossy: s.drops_lossy,
                drops_egress_lossy: s.drops_egress_lossy,
                drops_headroom: s.drops_headroom,
                drops_no_route: s.drops_no_route,
            })
            .collect();
        let mut hosts = Vec::new();
        for (node, nd) in spec.nodes.iter().enumerate() {
            if let NodeKind::Host(h) = &nd.kind {
                let nics = (0..h.ports.len()).map(|l| &self.nics[self.ports[first_port[node] + l].owner as usize]);
                let (peak, drops) = nics.fold((0, 0), |(pk, d), nic| (pk.max(nic.rx.peak()), d + nic.rx_drops));
                hosts.push(HostResults {
                    node,
                    name: nd.name.clone(),
                    peak_rx_buffer_bytes: peak,
                    drops_rx_overflow: drops,
                });
            }
        }
        let mut in_flight = vec![0u64; self.flows.len()];
        let mut ctrl_in_flight = vec![0u64; self.flows.len()];
        let mut conservation = self.conservation;
        for pkt in engines.iter().flat_map(|e| e.pool.iter_live()) {
            conservation.in_flight_packets += 1;
            conservation.in_flight_bytes += pkt.frame_bytes as u64;
            if pkt.kind == crate::packet::PacketKind::Tcp {
                // Counted per connection (`tcp_in_flight`); a data segment also for its flow.
                if pkt.payload_bytes > 0 && pkt.flow != super::tcp::NO_FLOW {
                    in_flight[pkt.flow as usize] += 1;
                }
                continue;
            }
            if pkt.is_control() {
                ctrl_in_flight[pkt.flow as usize] += 1;
            } else {
                in_flight[pkt.flow as usize] += 1;
            }
        }
        let tcp_in_flight = self.tcp_in_flight(&engines);
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let start = f.spec.start_ps;
                let until = match f.completed_at {
                    Some(t) => t,
                    None if f.finished_sending => f.last_delivery.min(end),
                    None => end,
                };
                let active = until.saturating_sub(start);
                let throughput_bps =
                    if active == 0 { 0.0 } else { f.delivered_bytes as f64 * 8.0 * SECOND as f64 / active as f64 };
                FlowResults {
                    flow: i,
                    src: f.spec.src,
                    dst: f.spec.dst,
                    priority: f.spec.class.priority,
                    sent_packets: f.sent_packets,
                    sent_bytes: f.sent_bytes,
                    delivered_packets: f.delivered_packets,
                    delivered_bytes: f.delivered_bytes,
                    dropped_packets: f.dropped_packets,
                    in_flight_packets: in_flight[i],
                    ce_packets: f.ce_packets,
                    start_ps: start,
                    completion_ps: f.completed_at,
                    fct_ps: f.completed_at.map(|t| t - start),
                    throughput_bps,
                    rdma: self.rdma_results(f, ctrl_in_flight[i]),
                    tcp: (f.conn != super::tcp::NO_CONN)
                        .then(|| self.tcp_conn_results(f.conn as usize, tcp_in_flight[f.conn as usize])),
                }
            })
            .collect();
        let (jobs, cpu, targets) = self.storage_results(spec);
        let queue_samples = self.samples.as_ref().map(|s| QueueSamples {
            interval_ps: s.interval,
            ports: s.ports.clone(),
            depth_bytes: s.depth.clone(),
        });
        Results {
            schema_version: SCHEMA_VERSION,
            seed: self.seed,
            end_time_ps: end,
            events: self.events,
            peak_packets_in_flight: self.pool.capacity_used() as u64,
            peak_pending_events: self.queue.peak_len() as u64,
            ports,
            switches,
            hosts,
            flows,
            perftest: self.perftest_results(),
            queue_samples,
            tcp_connections: (0..self.tcp.len())
                .filter(|&c| self.tcp[c].flow == super::tcp::NO_FLOW)
                .map(|c| self.tcp_conn_results(c, tcp_in_flight[c]))
                .collect(),
            iperf: Vec::new(),
            conservation,
            fct: None,
            jobs,
            cpu,
            targets,
        }
    }
}
