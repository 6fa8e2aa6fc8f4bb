//! What a simulation needs of the cabling, said at load where it is written: the simulator
//! refuses a host with no cabled port, and without this check that refusal came only when the
//! run was built, with no place in the file.

use crate::diag::{problem, Problem};
use crate::fabric::Scenario;
use crate::resolve::ResolvedFabric;
use crate::Role;

/// Every host and storage device of a scenario that simulates something (it has `workloads`)
/// has at least one cabled port. A fabric without workloads is only configured and checked,
/// where a host not yet cabled is allowed.
pub(crate) fn check(scenario: &Scenario, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    if scenario.workloads.is_empty() {
        return;
    }
    let mut cabled = vec![false; fabric.devices.len()];
    for l in &fabric.links {
        cabled[l.a.device] = true;
        cabled[l.b.device] = true;
    }
    for (d, dev) in fabric.devices.iter().enumerate() {
        if dev.role == Role::Switch || cabled[d] {
            continue;
        }
        // Listed devices are pointed at; generated and imported ones at their source.
        let path = match scenario.fabric.topology.devices.iter().position(|x| x.name == dev.name) {
            Some(i) => format!("fabric.topology.devices[{i}]"),
            None => "fabric.topology".into(),
        };
        let mut p =
            problem(path, format!("`{}` has no cabled port, and a simulation needs every host cabled", dev.name));
        p.diag.suggestion = Some(format!("add a link to a port of `{}`, or remove the device", dev.name));
        problems.push(p);
    }
}
