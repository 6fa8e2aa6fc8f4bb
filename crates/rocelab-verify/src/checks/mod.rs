//! The checks. Each is a pure function of the configured state (and the routes computed from
//! it) that returns findings. Properties of one port are judged once per QoS profile and
//! reported once, naming the first port and how many others share the fault, so that a policy
//! error in a 20,000-host fabric is one finding, not 360,000.

mod bond;
mod dcbx;
mod dcqcn;
mod deadlock;
mod ecn;
mod ets;
mod headroom;
mod mapping;
mod mtu;
mod overlay;
mod pfc;
mod policy;
mod vlan;

use crate::finding::{Finding, Severity};
use crate::routes::{analyse, dlink, RouteAnalysis};
use crate::state::{End, State};
use std::cell::OnceCell;
use std::collections::BTreeMap;

/// One check: what it checks, the rules it can report, and the function that does.
pub struct Check {
    /// What it checks, as its module is named (`pfc`, `mtu`, …).
    pub name: &'static str,
    /// The rule IDs ([`crate::RULES`]) its findings carry; each rule belongs to one check.
    pub rules: &'static [&'static str],
    run: fn(&Ctx) -> Vec<Draft>,
}

/// Every check, in the order [`run`] runs them.
pub static CHECKS: &[Check] = &[
    Check { name: "mapping", rules: &["MAP-TOS", "MAP-TRUST", "MAP-DSCP", "MAP-QUEUE"], run: mapping::check },
    Check { name: "pfc", rules: &["PFC-MISSING", "PFC-LOSSY", "PFC-LINK-PAUSE", "PFC-EGRESS-POOL"], run: pfc::check },
    Check { name: "mtu", rules: &["MTU-MISMATCH", "MTU-SMALL", "MTU-JUMBO"], run: mtu::check },
    Check { name: "headroom", rules: &["HEADROOM-SHORT", "HEADROOM-BUFFER"], run: headroom::check },
    Check { name: "ecn", rules: &["ECN-OFF", "ECN-ORDER", "ECN-ABOVE-XOFF"], run: ecn::check },
    Check { name: "ets", rules: &["ETS-SUM", "ETS-LOSSLESS", "ETS-CNP"], run: ets::check },
    Check { name: "dcqcn", rules: &["DCQCN-OFF", "DCQCN-CNP"], run: dcqcn::check },
    Check { name: "overlay", rules: &["VXLAN-ECN", "VXLAN-DSCP"], run: overlay::check },
    Check { name: "bond", rules: &["BOND-RDMA", "BOND-LACP-SPLIT", "BOND-MLAG-PAIR"], run: bond::check },
    Check { name: "deadlock", rules: &["DEADLOCK-CYCLE", "DEADLOCK-FAILURE", "DEADLOCK-BOUND"], run: deadlock::check },
    Check { name: "dcbx", rules: &["DCBX-WILLING"], run: dcbx::check },
    Check { name: "policy", rules: &["POLICY-DISSENT"], run: policy::check },
    Check { name: "vlan", rules: &["VLAN-UNTAGGED", "VLAN-UNDEFINED"], run: vlan::check },
];

/// What every check may look at.
pub struct Ctx<'a> {
    pub s: &'a State,
    pub routes: RouteAnalysis,
    /// Per profile: ports on RDMA routes that receive (ingress) with that profile.
    pub ingress: Vec<Vec<End>>,
    /// Per profile: ports on RDMA routes that send (egress) with that profile.
    pub egress: Vec<Vec<End>>,
    /// Links with a route in at least one direction.
    pub path_links: Vec<u32>,
    /// Headroom and shared pools, shared by the headroom and ECN checks ([`Ctx::budget`]).
    budget: OnceCell<headroom::Budget>,
}

impl<'a> Ctx<'a> {
    pub fn new(s: &'a State) -> Ctx<'a> {
        let routes = analyse(s);
        let mut ingress = vec![Vec::new(); s.profiles.len()];
        let mut egress = vec![Vec::new(); s.profiles.len()];
        let mut path_links = Vec::new();
        for (li, l) in s.links.iter().enumerate() {
            let li = li as u32;
            let ab = routes.on_route(dlink(li, true));
            let ba = routes.on_route(dlink(li, false));
            if ab || ba {
                path_links.push(li);
            }
            // A port whose configuration is unknown is not judged; its peer still is.
            let (ua, ub) = (s.qos(l.a).unknown, s.qos(l.b).unknown);
            let (ab_a, ab_b) = (ab && !ua, ab && !ub);
            let (ba_a, ba_b) = (ba && !ua, ba && !ub);
            let (ab, ba) = ((ab_a, ab_b), (ba_a, ba_b));
            if ab.0 {
                egress[s.port(l.a).qos as usize].push(l.a);
            }
            if ab.1 {
                ingress[s.port(l.b).qos as usize].push(l.b);
            }
            if ba.1 {
                egress[s.port(l.b).qos as usize].push(l.b);
            }
            if ba.0 {
                ingress[s.port(l.a).qos as usize].push(l.a);
            }
        }
        Ctx { s, routes, ingress, egress, path_links, budget: OnceCell::new() }
    }

    /// The headroom of every switch and its shared pool, computed on first use.
    pub fn budget(&self) -> &headroom::Budget {
        self.budget.get_or_init(|| headroom::budget(self))
    }

    /// `device:port`.
    pub fn label(&self, e: End) -> String {
        format!("{}:{}", self.s.device(e).name, self.s.port(e).name)
    }

    /// Ports on routes with this profile, in either role, each once.
    pub fn path_ports(&self, profile: usize) -> Vec<End> {
        let mut v: Vec<End> = self.ingress[profile].iter().chain(&self.egress[profile]).copied().collect();
        v.sort_unstable_by_key(|e| (e.device, e.port));
        v.dedup();
        v
    }

    pub fn is_switch_port(&self, e: End) -> bool {
        self.s.is_switch(e.device)
    }
}

/// A finding under construction, with the ports it applies to.
pub struct Draft {
    pub id: &'static str,
    pub severity: Severity,
    pub ports: Vec<End>,
    /// For findings about a device rather than a port.
    pub device: Option<String>,
    pub class: Option<String>,
    pub what: String,
    pub why: String,
    pub fix: String,
    pub source: &'static str,
    /// Other devices with the same device-level finding (filled by [`merge`]).
    pub others: Vec<String>,
}

impl Draft {
    /// The finding located at the first port, naming how many others it covers.
    pub fn finish(self, cx: &Ctx) -> Finding {
        let (device, port, location) = match self.ports.first() {
            Some(e) => (cx.s.device(*e).name.clone(), Some(cx.s.port(*e).name.clone()), cx.s.port(*e).origin.clone()),
            None => {
                let name = self.device.clone().unwrap_or_default();
                let origin = cx.s.devices.iter().find(|d| d.name == name).and_then(|d| d.origin.clone());
                (name, None, origin)
            }
        };
        let mut what = self.what;
        if !self.others.is_empty() {
            let shown: Vec<&str> = self.others.iter().take(3).map(String::as_str).collect();
            let more = self.others.len() - shown.len();
            what.push_str(&format!(
                " (also on {} other device{}: {}{})",
                self.others.len(),
                if self.others.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if more > 0 { format!(", … {more} more") } else { String::new() }
            ));
        }
        if self.ports.len() > 1 {
            let shown: Vec<String> = self.ports.iter().skip(1).take(3).map(|e| cx.label(*e)).collect();
            let more = self.ports.len() - 1 - shown.len();
            what.push_str(&format!(
                " (also on {} other port{}: {}{})",
                self.ports.len() - 1,
                if self.ports.len() == 2 { "" } else { "s" },
                shown.join(", "),
                if more > 0 { format!(", … {more} more") } else { String::new() }
            ));
        }
        Finding {
            id: self.id,
            severity: self.severity,
            device,
            port,
            class: self.class,
            what,
            why: self.why,
            fix: self.fix,
            source: self.source,
            location,
        }
    }
}

/// Groups drafts that differ only in their ports (same rule, class and text).
pub fn merge(drafts: Vec<Draft>) -> Vec<Draft> {
    let mut by: BTreeMap<(&'static str, Option<String>, String), Draft> = BTreeMap::new();
    let mut order = Vec::new();
    for d in drafts {
        let key = (d.id, d.class.clone(), d.what.clone());
        match by.get_mut(&key) {
            Some(existing) => {
                existing.ports.extend(d.ports);
                if let (Some(first), Some(other)) = (&existing.device, d.device) {
                    if *first != other {
                        existing.others.push(other);
                    }
                }
            }
            None => {
                order.push(key.clone());
                by.insert(key, d);
            }
        }
    }
    order.into_iter().filter_map(|k| by.remove(&k)).collect()
}

/// Every check, findings sorted by severity (errors first), then rule and device.
pub fn run(s: &State) -> Vec<Finding> {
    let cx = Ctx::new(s);
    let mut drafts = Vec::new();
    for c in CHECKS {
        let found = (c.run)(&cx);
        debug_assert!(found.iter().all(|d| c.rules.contains(&d.id)), "{} reports a rule it does not list", c.name);
        drafts.extend(found);
    }
    let mut out: Vec<Finding> = merge(drafts).into_iter().map(|d| d.finish(&cx)).collect();
    out.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then(a.id.cmp(b.id)).then(a.device.cmp(&b.device)).then(a.port.cmp(&b.port))
    });
    out
}

#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_imported;
