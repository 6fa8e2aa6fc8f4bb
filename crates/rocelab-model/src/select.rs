//! What a workload entry selects on a resolved fabric: the hosts a name list expands to, the
//! traffic class and RDMA transport a job or flow runs on, a host's line rate. These read the
//! resolved fabric, so they live apart from the schema types in [`crate::workload`] and
//! [`crate::storage`], which the fabric file itself is made of.

use crate::diag::{did_you_mean, problem, Problem};
use crate::fabric::RdmaKind;
use crate::resolve::{ResolvedDevice, ResolvedFabric};
use crate::storage::{is_rdma, Job, RdmaTransport};
use crate::workload::FlowTransport;

/// Whether host `idx` has a RoCE adapter (RoCEv2, RoCE v1, or RoCE and iWARP).
pub fn host_roce(fabric: &ResolvedFabric, idx: usize) -> bool {
    fabric.devices[idx]
        .nics
        .iter()
        .any(|n| matches!(n.rdma_kind(), RdmaKind::RoceV2 | RdmaKind::RoceV1 | RdmaKind::RoceAndIwarp))
}

/// Whether host `idx` has an iWARP adapter (iWARP, or RoCE and iWARP).
pub fn host_iwarp(fabric: &ResolvedFabric, idx: usize) -> bool {
    fabric.devices[idx].nics.iter().any(|n| matches!(n.rdma_kind(), RdmaKind::Iwarp | RdmaKind::RoceAndIwarp))
}

/// The transport of a flow from `src` to `dst`: the one given, else `rc` when both hosts have a
/// RoCE adapter, `iwarp` when both have an iWARP adapter, and `raw` otherwise.
pub fn flow_transport(given: Option<FlowTransport>, fabric: &ResolvedFabric, src: usize, dst: usize) -> FlowTransport {
    given.unwrap_or(if host_roce(fabric, src) && host_roce(fabric, dst) {
        FlowTransport::Rc
    } else if host_iwarp(fabric, src) && host_iwarp(fabric, dst) {
        FlowTransport::Iwarp
    } else {
        FlowTransport::Raw
    })
}

/// The device indices of the hosts `names` selects (`host1-8` ranges, `*` or an empty list for
/// every host), in order. For a scenario that loaded, every name is known.
pub fn resolve_hosts(names: &[String], fabric: &ResolvedFabric) -> Vec<usize> {
    expand_hosts(names, fabric, "", &mut Vec::new())
}

/// Most hosts one list may select (repeats included): the most devices a generator builds.
pub const MAX_SELECTED_HOSTS: usize = crate::generators::MAX_GENERATED_DEVICES as usize;

/// Expands host names against the fabric; unknown names are reported at `path`.
pub(crate) fn expand_hosts(
    names: &[String],
    fabric: &ResolvedFabric,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Vec<usize> {
    let mut out = Vec::new();
    if names.is_empty() {
        return fabric
            .devices
            .iter()
            .enumerate()
            .filter(|(_, d)| d.role != crate::Role::Switch)
            .map(|(i, _)| i)
            .collect();
    }
    for (i, n) in names.iter().enumerate() {
        if n == "*" && out.len() + fabric.devices.len() > MAX_SELECTED_HOSTS {
            problems.push(problem(
                format!("{path}[{i}]"),
                format!("the list selects more than {MAX_SELECTED_HOSTS} hosts, more than a fabric has"),
            ));
            break;
        }
        if n == "*" {
            out.extend(
                fabric.devices.iter().enumerate().filter(|(_, d)| d.role != crate::Role::Switch).map(|(i, _)| i),
            );
            continue;
        }
        let expanded = match crate::catalog::expand_port_range(n) {
            Ok(v) => v,
            Err(e) => {
                problems.push(problem(format!("{path}[{i}]"), e));
                continue;
            }
        };
        if out.len() + expanded.len() > MAX_SELECTED_HOSTS {
            problems.push(problem(
                format!("{path}[{i}]"),
                format!("the list selects more than {MAX_SELECTED_HOSTS} hosts, more than a fabric has"),
            ));
            break;
        }
        for name in expanded {
            match host_index(fabric, &name) {
                Ok(idx) => out.push(idx),
                Err((msg, hint)) => {
                    let mut p = problem(format!("{path}[{i}]"), msg);
                    p.diag.suggestion = hint;
                    problems.push(p);
                    break;
                }
            }
        }
    }
    out
}

pub(crate) fn host_index(fabric: &ResolvedFabric, name: &str) -> Result<usize, (String, Option<String>)> {
    match fabric.devices.iter().position(|d| d.name == name) {
        Some(i) if fabric.devices[i].role == crate::Role::Switch => {
            Err((format!("`{name}` is a switch; traffic starts and ends at hosts"), None))
        }
        Some(i) => Ok(i),
        None => Err((
            format!("no host `{name}`"),
            did_you_mean(
                name,
                fabric.devices.iter().filter(|d| d.role != crate::Role::Switch).map(|d| d.name.as_str()),
            ),
        )),
    }
}

pub(crate) fn default_class(fabric: &ResolvedFabric, rdma: bool) -> Option<&str> {
    let c = if rdma { fabric.qos.rdma_class() } else { fabric.qos.classes.iter().find(|c| !c.lossless) };
    c.or(fabric.qos.classes.first()).map(|c| c.name.as_str())
}

/// The RDMA kind of a device's adapters (the first adapter that has one).
pub(crate) fn rdma_of(d: &ResolvedDevice) -> RdmaKind {
    d.nics.iter().map(|n| n.rdma_kind()).find(|k| *k != RdmaKind::None).unwrap_or(RdmaKind::None)
}

pub(crate) fn rdma_fits(kind: RdmaKind, want: Option<RdmaTransport>) -> bool {
    match (kind, want) {
        (RdmaKind::None, _) => false,
        (_, None) | (RdmaKind::RoceAndIwarp, _) => true,
        (RdmaKind::Iwarp, Some(t)) => t == RdmaTransport::Iwarp,
        (RdmaKind::RoceV1 | RdmaKind::RoceV2, Some(t)) => t == RdmaTransport::Roce,
    }
}

/// The class a job's packets carry: its `class`, else the lossless (RDMA) class for RDMA
/// protocols and the first lossy class for the others, else the first class.
pub fn job_class<'a>(fabric: &'a ResolvedFabric, j: &'a Job) -> Option<&'a str> {
    j.class.as_deref().or_else(|| default_class(fabric, is_rdma(j.protocol)))
}

/// The RDMA transport an RDMA job runs on between `initiator` and `target`: its `rdma` when
/// given, else iWARP when either adapter runs iWARP only, else RoCE (adapters that run both
/// default to RoCE).
pub fn job_rdma(fabric: &ResolvedFabric, j: &Job, initiator: usize, target: usize) -> RdmaTransport {
    j.rdma.unwrap_or_else(|| {
        let iwarp = [initiator, target].iter().any(|&d| rdma_of(&fabric.devices[d]) == RdmaKind::Iwarp);
        if iwarp {
            RdmaTransport::Iwarp
        } else {
            RdmaTransport::Roce
        }
    })
}

/// Line rate of a host: its first cabled port's link speed (0 when it has no link).
pub fn host_rate_bps(fabric: &ResolvedFabric, host: usize) -> u64 {
    fabric.devices[host].ports.iter().find_map(|p| p.link).map(|l| fabric.links[l].speed.bits_per_second()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rdma_transport_fits_the_adapter() {
        assert!(rdma_fits(RdmaKind::RoceV2, None));
        assert!(rdma_fits(RdmaKind::RoceV2, Some(RdmaTransport::Roce)));
        assert!(!rdma_fits(RdmaKind::RoceV2, Some(RdmaTransport::Iwarp)));
        assert!(rdma_fits(RdmaKind::RoceAndIwarp, Some(RdmaTransport::Iwarp)));
        assert!(!rdma_fits(RdmaKind::None, None));
    }
}
