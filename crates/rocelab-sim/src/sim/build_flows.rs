//! The flows of a run and their queue pairs, built for the engine: every flow for a whole
//! run, a part's own hosts' flows for a part of a run on several threads ([`Placed`]).

use super::placed::{self, Placed};
use super::rdma::{QpRt, NO_QP};
use super::{FlowRt, PortRt, SimConfig};
use crate::error::SimError;
use crate::event::{Event, EventQueue};
use crate::nic::FlowSource;
use crate::packet::wire;
use crate::routing::Routes;
use crate::sim::app::PerftestRt;
use crate::sim::build::flow_hash;
use crate::sim::rdma::build::{build_qp, flow_app, host_port, perftest_apps, Owner};
use crate::spec::NetworkSpec;
use crate::time::{LinkRate, Time};
use crate::traffic::{FlowSpec, Traffic};

/// What [`build_flows`] makes.
pub(super) struct Flows<'t> {
    /// Every flow's spec and where it comes from, by global index.
    pub specs: Vec<(&'t FlowSpec, Owner)>,
    pub flows: Placed<FlowRt>,
    pub qps: Placed<QpRt>,
    pub tests: Vec<PerftestRt>,
    /// Each flow's queue pair by global index (`NO_QP`: none), what the storage sessions name.
    pub flow_qp: Vec<u32>,
}

/// The flows of `traffic` and of its perftest tests (`test_flows`, each test's), their queue
/// pairs and the tests' state, over the engine's `routes` and `ports`, their starts pushed into
/// `queue`; a part (`part`: each node's part and this part's) holds its own hosts' flows only.
pub(super) fn build_flows<'t>(
    spec: &NetworkSpec,
    traffic: &'t Traffic,
    config: &SimConfig,
    (routes, ports): (&Routes, &[PortRt]),
    part: Option<(&[u32], u32)>,
    test_flows: &'t [Vec<FlowSpec>],
    queue: &mut EventQueue,
) -> Result<Flows<'t>, SimError> {
    let mut specs: Vec<(&FlowSpec, Owner)> =
        traffic.flows.iter().enumerate().map(|(i, f)| (f, Owner::Flow(i))).collect();
    let mut test_first = Vec::with_capacity(traffic.perftest.len());
    for (t, flows) in test_flows.iter().enumerate() {
        test_first.push(specs.len() as u32);
        specs.extend(flows.iter().enumerate().map(|(k, f)| (f, Owner::Perftest(t, k))));
    }
    let storage_roles = traffic.storage.flow_roles(traffic.flows.len());
    // A part holds the flows (and queue pairs) of its own hosts only, at either end
    // (`Placed`), unless those are most of the flows (`placed::holds_all`); every part still
    // makes every flow's queue pair, to number them and to refuse a flow without a path as the
    // whole run does.
    let own = |f: &FlowSpec| part.is_none_or(|(part_of, me)| part_of[f.src] == me || part_of[f.dst] == me);
    let parted = !placed::holds_all(specs.iter().filter(|(f, _)| own(f)).count(), specs.len());
    let held = |f: &FlowSpec| !parted || own(f);
    let n_held = specs.iter().filter(|(f, _)| held(f)).count();
    let mut flows = crate::slots::vec_on_huge_pages(n_held);
    let mut qps =
        crate::slots::vec_on_huge_pages(specs.iter().filter(|(f, _)| f.rc_flow().is_some() && held(f)).count());
    let (mut held_flows, mut held_qps) = (Vec::new(), Vec::new());
    // Each flow's queue pair, by global index (what the storage sessions name).
    let mut flow_qp = Vec::with_capacity(specs.len());
    let mut n_qps = 0u32;
    let mut tests = Vec::with_capacity(traffic.perftest.len());
    for (i, (f, owner)) in specs.iter().enumerate() {
        let hash = flow_hash(spec.ecmp, f);
        let Some(port) = host_port(routes, ports, f.src, f.dst, hash, None) else {
            return Err(SimError::traffic(
                owner.path(),
                format!("no path from \"{}\" to \"{}\"; connect them", spec.nodes[f.src].name, spec.nodes[f.dst].name),
            ));
        };
        // A storage session's queue pairs keep to the session's ports at both ends.
        let pinned = match (owner, storage_roles.get(i).copied().flatten()) {
            (Owner::Flow(_), Some((s, role))) => {
                crate::sim::storage::build::session_ports(&traffic.storage, s, role, routes, ports)
            }
            _ => None,
        };
        let port = pinned.map_or(port, |p| p.0);
        let qp = if f.rc_flow().is_some() {
            let (app, inline) = match *owner {
                Owner::Flow(i) => match storage_roles[i] {
                    Some((session, role)) => (super::app::App::Storage { session, role }, false),
                    None => (flow_app(f), false),
                },
                Owner::Perftest(t, k) => {
                    if k == 0 {
                        let (apps, rt) = perftest_apps(t, &traffic.perftest[t], test_first[t], n_qps);
                        tests.push((apps, rt));
                    }
                    let p = &traffic.perftest[t];
                    (tests[t].0[k], p.inline())
                }
            };
            let q_ports = (port, pinned.map(|p| p.1));
            let q = build_qp(spec, routes, ports, i as u32, f, q_ports, hash, inline, app, config.seed)
                .map_err(|m| SimError::traffic(owner.path(), m))?;
            n_qps += 1;
            if held(f) {
                qps.push(q);
                held_qps.push(n_qps - 1);
            }
            n_qps - 1
        } else {
            NO_QP
        };
        flow_qp.push(qp);
        if !held(f) {
            continue;
        }
        held_flows.push(i as u32);
        // The addresses its packets come from and go to: its queue pair's; an open-loop flow's
        // port's, and one of its destination's ports that this port reaches, by the flow's hash.
        let (src_addr, dst_addr) = if qp != NO_QP {
            let q: &QpRt = qps.last().expect("just made");
            (q.addr[0], q.addr[1])
        } else {
            let dst = host_port(routes, ports, f.dst, f.src, hash, Some(port));
            (routes.address_of(f.src as u32, port), dst.map_or(f.dst as u32, |p| routes.address_of(f.dst as u32, p)))
        };
        flows.push(FlowRt {
            spec: **f,
            port,
            src_addr,
            dst_addr,
            source: FlowSource {
                payload: f.payload_bytes,
                remaining: f.size_bytes.unwrap_or(u64::MAX),
                start: f.start_ps,
                stop: f.stop_ps.unwrap_or(Time::MAX),
                rate: f.rate_bps.map(LinkRate::new),
                overhead: wire::WIRE_OVERHEAD,
                on_off: f.on_off.map(|o| (o.on_ps, o.off_ps)),
                next_time: f.start_ps,
            },
            hash,
            psn: 0,
            _pad: 0,
            sent_packets: 0,
            sent_bytes: 0,
            delivered_packets: 0,
            delivered_bytes: 0,
            dropped_packets: 0,
            ce_packets: 0,
            last_delivery: 0,
            complete_bytes: f.size_bytes.unwrap_or(u64::MAX),
            completed_at: None,
            finished_sending: false,
            qp,
            conn: super::tcp::NO_CONN,
        });
        if f.start_ps <= config.end_time_ps {
            queue.push(f.start_ps, Event::FlowStart { flow: i as u32 });
        }
    }
    let tests = tests.into_iter().map(|(_, rt)| rt).collect();
    let (flows, qps) = match parted {
        false => (Placed::whole(flows), Placed::whole(qps)),
        true => (Placed::part(flows, &held_flows, specs.len()), Placed::part(qps, &held_qps, n_qps as usize)),
    };
    Ok(Flows { specs, flows, qps, tests, flow_qp })
}
