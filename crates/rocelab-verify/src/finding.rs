//! Findings: what a check found, as data. Each names its rule, where (device, port, class),
//! what is wrong, why it matters, how to fix it, and the source of the rule.

use crate::state::Origin;
use serde::Serialize;

/// The workspace's one severity, kept in the model so that config, verify and the simulator
/// share it.
pub use rocelab_model::Severity;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Rule ID, e.g. `PFC-MISSING`.
    pub id: &'static str,
    pub severity: Severity,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    pub what: String,
    pub why: String,
    pub fix: String,
    pub source: &'static str,
    /// The configuration line the finding is about, for imported devices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Origin>,
}

/// A rule's description, for SARIF `tool.driver.rules` and `rocelab check --rules`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rule {
    pub id: &'static str,
    /// The check of the issue it implements (1-11; 12 for the inferred policy; 13 for VLAN
    /// tagging; 0 for the import's own findings).
    pub check: u8,
    pub summary: &'static str,
    pub source: &'static str,
}

pub const SRC_QBB: &str = "IEEE 802.1Qbb-2011 (Priority-based Flow Control)";
pub const SRC_QAZ: &str = "IEEE 802.1Qaz-2011 (ETS, DCBX)";
pub const SRC_NVIDIA_ROCE: &str =
    "NVIDIA \"RoCE Configuration for NVIDIA Switches and Adapters\" / Mellanox RoCE deployment guides (trust DSCP, ToS 106 = DSCP 26, CNP on priority 6)";
pub const SRC_DCQCN: &str = "Zhu et al., Congestion Control for Large-Scale RDMA Deployments, SIGCOMM 2015";
pub const SRC_RFC3168: &str = "RFC 3168 (ECN); RFC 6040 (ECN in tunnels)";
pub const SRC_DEADLOCK: &str = "Hu et al., Deadlocks in Datacenter Networks: Why Do They Form, and How to Avoid Them (HotNets 2016); Schroeder et al., Autonet (up*/down* routing), IEEE JSAC 1991";
pub const SRC_PURE: &str = "Arista/Pure Storage, NVMe-oF over a leaf-spine network (MLAG is not suitable for NVMe/RoCE; vxlan qos ecn propagation)";
pub const SRC_8023: &str = "IEEE 802.3 clause 31 / Annex 31B (MAC Control PAUSE)";
pub const SRC_8021AX: &str =
    "IEEE 802.1AX (Link Aggregation: LACP aggregates the links between one pair of systems); Linux bonding documentation (802.3ad aggregators)";
pub const SRC_8021Q: &str = "IEEE 802.1Q-2018 (VLAN tag, priority code point)";
pub const SRC_SONIC_BUFFERS: &str =
    "SONiC buffer configuration (sonic-buildimage buffers templates: lossless queues on egress_lossless_pool)";
pub const SRC_MTU: &str = "IEEE 802.3 / RFC 1191 (a larger frame than the receiver's MTU is dropped)";
pub const SRC_ROCEV2: &str = "InfiniBand Architecture Specification Annex A17 (RoCEv2)";
/// The source of the import's own rules: LLDP names a link's two ends.
pub const SRC_LLDP: &str =
    "IEEE 802.1AB-2016 (LLDP: the Chassis ID, Port ID and System Name TLVs name a link's far end)";
pub const SRC_JUMBO: &str = "Dell EqualLogic / RHEL iSCSI optimisation guides (jumbo frames end to end)";

pub const RULES: &[Rule] = &[
    Rule {
        id: "MAP-TOS",
        check: 1,
        summary: "The RoCE ToS set on a host classifies into the lossless priority at the switch it is cabled to",
        source: SRC_NVIDIA_ROCE,
    },
    Rule {
        id: "MAP-TRUST",
        check: 1,
        summary: "Every port on an RDMA path trusts the marking the policy uses (PCP or DSCP)",
        source: SRC_NVIDIA_ROCE,
    },
    Rule {
        id: "MAP-DSCP",
        check: 1,
        summary: "The RDMA and CNP DSCP values map to the same priority at every hop, both directions",
        source: SRC_NVIDIA_ROCE,
    },
    Rule {
        id: "MAP-QUEUE",
        check: 1,
        summary: "A lossless priority has its own priority group and queue, shared with no lossy priority",
        source: SRC_QBB,
    },
    Rule {
        id: "PFC-MISSING",
        check: 2,
        summary: "PFC is on for every lossless priority at both ends of every link on an RDMA path",
        source: SRC_QBB,
    },
    Rule { id: "PFC-LOSSY", check: 2, summary: "No lossy priority is paused", source: SRC_QBB },
    Rule {
        id: "PFC-LINK-PAUSE",
        check: 2,
        summary: "No IEEE 802.3x link-level pause on a port that runs PFC or carries RDMA",
        source: SRC_8023,
    },
    Rule {
        id: "PFC-EGRESS-POOL",
        check: 2,
        summary: "A lossless priority's egress queue takes its buffer from a lossless pool",
        source: SRC_SONIC_BUFFERS,
    },
    Rule {
        id: "HEADROOM-SHORT",
        check: 3,
        summary: "Headroom per lossless (port, priority group) covers speed, cable, MTU and response time",
        source: rocelab_model::headroom::SOURCE,
    },
    Rule {
        id: "HEADROOM-BUFFER",
        check: 3,
        summary: "Total headroom of a switch fits its buffer with room for the shared pool",
        source: rocelab_model::headroom::SOURCE,
    },
    Rule {
        id: "ECN-OFF",
        check: 4,
        summary: "ECN marking is on for the lossless queues on RDMA paths",
        source: SRC_DCQCN,
    },
    Rule {
        id: "ECN-ORDER",
        check: 4,
        summary: "ECN Kmin is not above Kmax (equal is step marking)",
        source: SRC_DCQCN,
    },
    Rule { id: "ECN-ABOVE-XOFF", check: 4, summary: "ECN marking starts below the PFC XOFF point", source: SRC_DCQCN },
    Rule { id: "ETS-SUM", check: 5, summary: "ETS weights of a port sum to 100", source: SRC_QAZ },
    Rule {
        id: "ETS-LOSSLESS",
        check: 5,
        summary: "The lossless class has bandwidth (an ETS share or strict priority)",
        source: SRC_QAZ,
    },
    Rule {
        id: "ETS-CNP",
        check: 5,
        summary: "CNPs are served strict or with a guaranteed share",
        source: SRC_NVIDIA_ROCE,
    },
    Rule {
        id: "DCQCN-OFF",
        check: 6,
        summary: "DCQCN notification and reaction points are on for the RDMA priority on every endpoint",
        source: SRC_DCQCN,
    },
    Rule {
        id: "DCQCN-CNP",
        check: 6,
        summary: "Every endpoint sends CNPs on the same priority, the policy's",
        source: SRC_NVIDIA_ROCE,
    },
    Rule { id: "MTU-MISMATCH", check: 7, summary: "MTU is equal at both ends of a link", source: SRC_MTU },
    Rule {
        id: "MTU-SMALL",
        check: 7,
        summary: "The MTU on RDMA paths fits the RoCE path MTU plus RoCEv2 headers",
        source: SRC_ROCEV2,
    },
    Rule {
        id: "MTU-JUMBO",
        check: 7,
        summary: "Jumbo frames end to end where hosts use them for iSCSI/iSER",
        source: SRC_JUMBO,
    },
    Rule {
        id: "VXLAN-ECN",
        check: 8,
        summary: "VXLAN tunnel endpoints on RDMA paths propagate ECN between inner and outer headers",
        source: SRC_RFC3168,
    },
    Rule {
        id: "VXLAN-DSCP",
        check: 8,
        summary: "VXLAN tunnel endpoints on RDMA paths copy the inner DSCP to the outer header",
        source: SRC_PURE,
    },
    Rule {
        id: "BOND-RDMA",
        check: 9,
        summary: "No MLAG or LACP bonding for NVMe/RoCE or iSER host attachment",
        source: SRC_PURE,
    },
    Rule { id: "BOND-LACP-SPLIT", check: 9, summary: "An LACP bond is cabled to one switch", source: SRC_8021AX },
    Rule {
        id: "BOND-MLAG-PAIR",
        check: 9,
        summary: "An MLAG bond is cabled to the two switches of a pair",
        source: SRC_8021AX,
    },
    Rule {
        id: "DEADLOCK-CYCLE",
        check: 10,
        summary: "The buffer dependency graph of the lossless routes has no cycle",
        source: SRC_DEADLOCK,
    },
    Rule {
        id: "DEADLOCK-FAILURE",
        check: 10,
        summary: "No cycle appears after any single link failure",
        source: SRC_DEADLOCK,
    },
    Rule {
        id: "DEADLOCK-BOUND",
        check: 10,
        summary: "Deadlock analysis was bounded (not every case analysed)",
        source: SRC_DEADLOCK,
    },
    Rule {
        id: "DCBX-WILLING",
        check: 11,
        summary: "DCBX willingness cannot let a peer override the intended DCB settings",
        source: SRC_QAZ,
    },
    Rule {
        id: "IMPORT-UNCABLED",
        check: 0,
        summary: "Every imported device is cabled: a device without a link is left out of every link check",
        source: SRC_LLDP,
    },
    Rule {
        id: "IMPORT-LLDP-PORT",
        check: 0,
        summary: "Every port an LLDP neighbour names (by name, alias or MAC address) is a port of that neighbour",
        source: SRC_LLDP,
    },
    Rule {
        id: "POLICY-DISSENT",
        check: 12,
        summary: "Every imported device holds the policy most devices hold, where none is stated",
        source: SRC_QBB,
    },
    Rule {
        id: "VLAN-UNTAGGED",
        check: 13,
        summary: "A link whose receiving end classifies by PCP carries RDMA traffic tagged",
        source: SRC_8021Q,
    },
    Rule {
        id: "VLAN-UNDEFINED",
        check: 13,
        summary: "Every VLAN a port of an RDMA path is given is defined on its switch",
        source: SRC_8021Q,
    },
];

pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// How the findings of a check compare with the rule IDs a fabric file declares it demonstrates
/// (`expect:`): declared rules not found, and rules found (as an error or a warning) not declared.
/// Notes are never unexpected; a declared note counts as found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expectation {
    pub missing: Vec<String>,
    pub unexpected: Vec<&'static str>,
}

impl Expectation {
    pub fn met(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty()
    }
}

/// Compares `findings` with `expect`, each rule ID once, in the order of `expect` and then of
/// the findings.
pub fn expectation(findings: &[Finding], expect: &[String]) -> Expectation {
    let missing = expect.iter().filter(|id| !findings.iter().any(|f| f.id == id.as_str())).cloned().collect();
    let mut unexpected: Vec<&'static str> = Vec::new();
    for f in findings.iter().filter(|f| f.severity > Severity::Note) {
        if !expect.iter().any(|id| id == f.id) && !unexpected.contains(&f.id) {
            unexpected.push(f.id);
        }
    }
    Expectation { missing, unexpected }
}

/// Counts by severity.
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s| findings.iter().filter(|f| f.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Note))
}

#[cfg(test)]
mod tests {
    use super::Severity;

    /// Config's findings, check's findings and the model's diagnostics share one severity type:
    /// a value of one is a value of the others, with no conversion.
    #[test]
    fn one_severity_for_model_config_and_verify() {
        let from_config: Severity = rocelab_config::Severity::Warning;
        let in_model: rocelab_model::Severity = from_config;
        assert_eq!(in_model, rocelab_model::Severity::Warning);
        let d = rocelab_model::Diagnostic::error(Default::default(), "", "x");
        let as_check: Severity = d.severity;
        assert_eq!(as_check.as_str(), "error");
    }

    fn finding(id: &'static str, severity: Severity) -> super::Finding {
        super::Finding {
            id,
            severity,
            device: "sw1".into(),
            port: None,
            class: None,
            what: String::new(),
            why: String::new(),
            fix: String::new(),
            source: "",
            location: None,
        }
    }

    #[test]
    fn expectation_names_the_missing_and_the_unexpected() {
        let found = [
            finding("ECN-OFF", Severity::Error),
            finding("ECN-OFF", Severity::Error),
            finding("ECN-ABOVE-XOFF", Severity::Note),
        ];
        let e = super::expectation(&found, &["ECN-OFF".into()]);
        assert!(e.met(), "a note is never unexpected: {e:?}");
        let e = super::expectation(&found, &["PFC-MISSING".into(), "ECN-ABOVE-XOFF".into()]);
        assert_eq!((e.missing, e.unexpected), (vec!["PFC-MISSING".to_string()], vec!["ECN-OFF"]));
        assert!(super::expectation(&[finding("PFC-LOSSY", Severity::Warning)], &[]).unexpected == ["PFC-LOSSY"]);
    }

    /// The model validates a fabric file's `expect:` against its own list of rule IDs (it
    /// cannot name this crate): that list is this registry's.
    #[test]
    fn the_models_rule_ids_are_the_registrys() {
        let ids: Vec<&str> = super::RULES.iter().map(|r| r.id).collect();
        assert_eq!(rocelab_model::rules::RULE_IDS, &ids[..]);
    }
}
