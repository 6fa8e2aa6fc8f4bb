//! What the simulator is asked to do that the user may not expect, as findings with the shape of
//! `rocelab check`'s: a rule ID, a severity, the device, port and class, what is wrong, why it
//! matters, how to fix it, and the standard the rule comes from.
//!
//! The one such finding today is a lossless class crossing a port with PFC off. `rocelab check`
//! reports it as `PFC-MISSING` (an error: the fabric drops lossless traffic there); the simulator
//! runs it as asked, since that is how ECN-only fabrics work, and reports the same rule, with the
//! same wording, as a warning. The CLI's tests compare the two.

use rocelab_model::{PortId, ResolvedFabric, Severity};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The rule ID `rocelab check` gives a lossless priority with PFC off on a port.
pub const PFC_MISSING: &str = "PFC-MISSING";

/// IEEE 802.1Qbb-2011 (Priority-based Flow Control): a priority is lossless only where both
/// ends of the link run PFC for it.
pub const SRC_QBB: &str = "IEEE 802.1Qbb-2011 (Priority-based Flow Control)";

/// Why a lossless priority without PFC matters, as `rocelab check` explains `PFC-MISSING`.
pub const PFC_MISSING_WHY: &str = "without PFC this hop drops lossless traffic under congestion instead of pausing the sender; RDMA go-back-N retransmission then collapses throughput";

/// One finding about the scenario being simulated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildFinding {
    /// Rule ID, one of `rocelab check --rules`'s (e.g. `PFC-MISSING`).
    pub id: String,
    pub severity: Severity,
    pub device: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    pub what: String,
    pub why: String,
    pub fix: String,
    pub source: String,
}

impl BuildFinding {
    /// `device:port` (or the device alone) and `[class]`, as `rocelab check`'s table heads a
    /// finding.
    pub fn place(&self) -> String {
        let mut at = self.device.clone();
        if let Some(p) = &self.port {
            at.push(':');
            at.push_str(p);
        }
        if let Some(c) = &self.class {
            at.push_str(&format!("  [{c}]"));
        }
        at
    }
}

/// `warning: PFC-MISSING sw1:eth1/3  [lossless (priority 3)]`, then `what`, `why` and `fix` on
/// their own indented lines, as `rocelab check` prints a finding.
impl fmt::Display for BuildFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} {}", self.severity, self.id, self.place())?;
        writeln!(f, "    what   {}", self.what)?;
        writeln!(f, "    why    {}", self.why)?;
        write!(f, "    fix    {}", self.fix)
    }
}

/// The priorities set in `mask`, as `rocelab check` lists them (`3,4`, or `none`).
fn bits(mask: u8) -> String {
    let v: Vec<String> = (0..8).filter(|p| mask & (1 << p) != 0).map(|p| p.to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
    }
}

/// The priorities a port runs PFC for.
fn pfc_mask(f: &ResolvedFabric, id: PortId) -> u8 {
    f.port_settings(id).classes.iter().filter(|c| c.pfc).fold(0, |m, c| m | 1 << (c.priority & 7))
}

/// A lossless class crossing a cabled port with PFC off for its priority may be dropped there:
/// allowed (that is how ECN-only fabrics run), and one `PFC-MISSING` warning per lossless
/// priority, at the first such port, naming how many others there are (as `rocelab check`
/// merges a finding over the ports it applies to). PFC off fabric-wide is the same finding on
/// every cabled port.
pub(super) fn lossless_hops_without_pfc(f: &ResolvedFabric) -> Vec<BuildFinding> {
    let mut out = Vec::new();
    let mut seen = 0u8;
    for c in f.qos.lossless_classes() {
        let p = c.priority & 7;
        if seen & (1 << p) != 0 {
            continue;
        }
        seen |= 1 << p;
        let mut ports: Vec<(PortId, u8)> = f
            .links
            .iter()
            .flat_map(|l| [l.a, l.b])
            .map(|id| (id, pfc_mask(f, id)))
            .filter(|(_, m)| m & (1 << p) == 0)
            .collect();
        ports.sort_unstable_by_key(|(id, _)| (id.device, id.port));
        ports.dedup_by_key(|(id, _)| *id);
        let Some(&(first, mask)) = ports.first() else { continue };
        let mut what = format!("PFC is off for lossless priority {p} (PFC on: {})", bits(mask));
        if ports.len() > 1 {
            let shown: Vec<String> = ports.iter().skip(1).take(3).map(|(id, _)| f.port_label(*id)).collect();
            let more = ports.len() - 1 - shown.len();
            what.push_str(&format!(
                " (also on {} other port{}: {}{})",
                ports.len() - 1,
                if ports.len() == 2 { "" } else { "s" },
                shown.join(", "),
                if more > 0 { format!(", … {more} more") } else { String::new() }
            ));
        }
        let device = &f.devices[first.device];
        out.push(BuildFinding {
            id: PFC_MISSING.into(),
            severity: Severity::Warning,
            device: device.name.clone(),
            port: Some(device.ports[first.port].name.clone()),
            class: Some(format!("{} (priority {p})", c.name)),
            what,
            why: PFC_MISSING_WHY.into(),
            fix: format!("enable PFC for priority {p} on this port"),
            source: SRC_QBB.into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two hosts on one switch, RoCE lossless on priority 3; `qos` is added to the QoS block.
    fn fabric(qos: &str) -> ResolvedFabric {
        let text = format!(
            "fabric:\n  name: t\n  topology:\n    generator:\n      single-switch: {{hosts: 2, speed: 100G, cable: 3m}}\n  qos:\n    marking: dscp\n    classes:\n      - {{name: roce, priority: 3, dscp: [26], lossless: true, ets: 60}}\n      - {{name: default, priority: 0, dscp: [0], ets: 40}}\n{qos}"
        );
        rocelab_model::load_str(&text, "t.yaml", std::path::Path::new(".")).expect("the test fabric loads").fabric
    }

    #[test]
    fn a_port_without_pfc_is_one_pfc_missing_finding() {
        let f = fabric("    ports:\n      - {ports: [\"host2:p0\"], pfc: {roce: false}}\n");
        let w = lossless_hops_without_pfc(&f);
        assert_eq!(w.len(), 1, "{w:#?}");
        let w = &w[0];
        assert_eq!((w.id.as_str(), w.severity), ("PFC-MISSING", Severity::Warning));
        assert_eq!(
            (w.device.as_str(), w.port.as_deref(), w.class.as_deref()),
            ("host2", Some("p0"), Some("roce (priority 3)"))
        );
        assert_eq!(w.what, "PFC is off for lossless priority 3 (PFC on: none)");
        assert_eq!(w.fix, "enable PFC for priority 3 on this port");
        let shown = w.to_string();
        assert!(
            shown.starts_with("warning: PFC-MISSING host2:p0  [roce (priority 3)]\n    what   PFC is off"),
            "{shown}"
        );
    }

    #[test]
    fn pfc_off_fabric_wide_names_every_cabled_port_once() {
        let f = fabric("    pfc: {enabled: false}\n");
        let w = lossless_hops_without_pfc(&f);
        assert_eq!(w.len(), 1, "{w:#?}");
        let cabled = f.links.len() * 2;
        assert!(w[0].what.contains(&format!("(also on {} other ports: ", cabled - 1)), "{}", w[0].what);
        assert_eq!(w[0].device, f.devices[f.links[0].a.device.min(f.links[0].b.device)].name);
    }

    #[test]
    fn a_fabric_with_pfc_everywhere_has_no_finding() {
        assert_eq!(lossless_hops_without_pfc(&fabric("")), vec![]);
    }
}
