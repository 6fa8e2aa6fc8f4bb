//! The flows and queue pairs of a run on several threads put together, whole in part 0's
//! engine (`merge::finish`).
//!
//! A part holds the flows of its own hosts, at either end (`sim/placed.rs`), or every flow
//! where its own are more than a quarter of them (`placed::holds_all`). A flow's state comes
//! from its source's part; what a flow counts, each part that holds it counts of its own events,
//! from zero (a frame sent at the data sender, a READ's responder; delivered at the data
//! receiver; dropped on the way, where the part that dropped it may not hold the flow:
//! `Sim::transit_drops`); an RDMA flow's bytes at its responder and at its requester (READ), its
//! completion at the requester, an open-loop flow's at its destination. A queue pair's
//! endpoints each from its host's part, the control frames both sides count summed.
//!
//! Where part 0 holds every flow, the others' are moved into its copy in place, as before the
//! parts held their own only (a copy more of every flow at the run's end would pass the 10 ms k =
//! 32 run on two threads over 2 GB); where it holds its own only, the whole is built anew, a
//! flow at a time, from the parts' items in index order.

use super::merge::first_and;
use crate::observer::NoObserver;
use crate::sim::placed::Placed;
use crate::sim::rdma::{QpRt, REQUESTER, RESPONDER};
use crate::sim::{FlowRt, Sim};
use crate::stats::FrameCounts;
use std::collections::BTreeMap;

type Engines<'e, 'a> = [&'e mut Sim<'a, NoObserver>];

/// What the parts count of a flow, put together: the counters summed, the last delivery the
/// latest, the completion and the end of sending where they happened.
#[derive(Default)]
struct FlowCounts {
    sent_packets: u64,
    sent_bytes: u64,
    delivered_packets: u64,
    delivered_bytes: u64,
    ce_packets: u64,
    dropped_packets: u64,
    last_delivery: crate::time::Time,
    completed_at: Option<crate::time::Time>,
    finished_sending: bool,
}

impl FlowCounts {
    fn add(&mut self, f: &FlowRt) {
        self.sent_packets += f.sent_packets;
        self.sent_bytes += f.sent_bytes;
        self.delivered_packets += f.delivered_packets;
        self.delivered_bytes += f.delivered_bytes;
        self.ce_packets += f.ce_packets;
        self.dropped_packets += f.dropped_packets;
        self.last_delivery = self.last_delivery.max(f.last_delivery);
        self.completed_at = self.completed_at.or(f.completed_at);
        self.finished_sending |= f.finished_sending;
    }

    fn set(self, f: &mut FlowRt) {
        f.sent_packets = self.sent_packets;
        f.sent_bytes = self.sent_bytes;
        f.delivered_packets = self.delivered_packets;
        f.delivered_bytes = self.delivered_bytes;
        f.ce_packets = self.ce_packets;
        f.dropped_packets = self.dropped_packets;
        f.last_delivery = self.last_delivery;
        f.completed_at = self.completed_at;
        f.finished_sending = self.finished_sending;
    }
}

/// The parts' flows and queue pairs, whole in `engines[0]` (each node's part by `part_of`).
pub(super) fn merge_flows(engines: &mut Engines<'_, '_>, part_of: &dyn Fn(u32) -> usize) {
    // The frames of flows a part does not hold, dropped at its switches: (data, control).
    let mut transit: BTreeMap<u32, [u64; 2]> = BTreeMap::new();
    for e in engines.iter_mut() {
        for (flow, [data, ctrl]) in std::mem::take(&mut e.transit_drops) {
            let t = transit.entry(flow).or_default();
            t[0] += data;
            t[1] += ctrl;
        }
    }
    let data_drops = |g: usize| transit.get(&(g as u32)).map_or(0, |t| t[0]);
    if engines[0].flows.is_whole() {
        for g in 0..engines[0].flows.len() {
            let mut sum = FlowCounts::default();
            engines.iter().filter_map(|e| e.flows.get(g)).for_each(|f| sum.add(f));
            sum.dropped_packets += data_drops(g);
            let o = part_of(engines[0].flows[g].spec.src as u32);
            if o != 0 {
                let (base, from) = first_and(engines, o);
                std::mem::swap(&mut base.flows[g], &mut from.flows[g]);
            }
            sum.set(&mut engines[0].flows[g]);
        }
    } else {
        let n = engines[0].flows.len();
        let mut parts: Vec<_> =
            engines.iter_mut().map(|e| std::mem::take(&mut e.flows).into_indexed().peekable()).collect();
        let mut whole = Vec::with_capacity(n);
        for g in 0..n {
            let (mut sum, mut base) = (FlowCounts::default(), None);
            for (p, items) in parts.iter_mut().enumerate() {
                if let Some((_, f)) = items.next_if(|&(i, _)| i == g) {
                    sum.add(&f);
                    if part_of(f.spec.src as u32) == p {
                        base = Some(f);
                    }
                }
            }
            let mut f = base.expect("every flow is held by its source's part");
            sum.dropped_packets += data_drops(g);
            sum.set(&mut f);
            whole.push(f);
        }
        engines[0].flows = Placed::whole(whole);
    }
    merge_qps(engines, part_of, &transit);
}

/// The parts' queue pairs, whole in `engines[0]`, after the flows.
fn merge_qps(engines: &mut Engines<'_, '_>, part_of: &dyn Fn(u32) -> usize, transit: &BTreeMap<u32, [u64; 2]>) {
    let mut ctrl = vec![FrameCounts::default(); engines[0].qps.len()];
    for e in engines.iter() {
        for (q, c) in e.qps.iter_indexed() {
            let sum = &mut ctrl[q];
            sum.sent += c.ctrl.sent;
            sum.delivered += c.ctrl.delivered;
            sum.dropped += c.ctrl.dropped;
        }
    }
    for (&flow, &[_, dropped]) in transit {
        let q = engines[0].flows[flow as usize].qp as usize;
        if let Some(c) = ctrl.get_mut(q) {
            c.dropped += dropped;
        }
    }
    let ends = |e: &Sim<'_, NoObserver>, q: &QpRt| {
        let spec = &e.flows[q.flow as usize].spec;
        (part_of(spec.src as u32), part_of(spec.dst as u32))
    };
    if engines[0].qps.is_whole() {
        for (q, ctrl) in ctrl.into_iter().enumerate() {
            let (src, dst) = ends(engines[0], &engines[0].qps[q]);
            for (side, o) in [(REQUESTER, src), (RESPONDER, dst)] {
                if o != 0 {
                    let (base, from) = first_and(engines, o);
                    base.qps[q].take_side(&mut from.qps[q], side);
                }
            }
            engines[0].qps[q].ctrl = ctrl;
        }
        return;
    }
    let mut parts: Vec<_> = engines.iter_mut().map(|e| std::mem::take(&mut e.qps).into_indexed().peekable()).collect();
    let mut whole = Vec::with_capacity(ctrl.len());
    for (g, ctrl) in ctrl.into_iter().enumerate() {
        let (mut base, mut resp) = (None, None);
        for (p, items) in parts.iter_mut().enumerate() {
            if let Some((_, q)) = items.next_if(|&(i, _)| i == g) {
                let (src, dst) = ends(engines[0], &q);
                if src == p {
                    base = Some(q);
                } else if dst == p {
                    resp = Some(q);
                }
            }
        }
        let mut q = base.expect("every queue pair is held by its requester's part");
        if let Some(mut r) = resp {
            q.take_side(&mut r, RESPONDER);
        }
        q.ctrl = ctrl;
        whole.push(q);
    }
    engines[0].qps = Placed::whole(whole);
}
