//! Random text into every importer, the links file and the LLDP parsers: never a panic. The
//! text is built from the words and shapes of the formats (so it gets deep into the parsers),
//! mixed with arbitrary characters.

use proptest::prelude::*;

/// Fragments of every format, shuffled into lines.
const WORDS: &[&str] = &[
    "interface",
    "ethernet",
    "Ethernet1",
    "1/1-1/4",
    "1/x",
    "1/4-1/2",
    "dcb",
    "priority-flow-control",
    "priority",
    "enable",
    "mode",
    "on",
    "force",
    "traffic-class",
    "bind",
    "switch-priority",
    "ingress-buffer",
    "iPort.pg3",
    "iPort.pg9",
    "map",
    "pool",
    "iPool1",
    "type",
    "lossless",
    "reserved",
    "xoff",
    "xon",
    "shared",
    "alpha",
    "congestion-control",
    "ecn",
    "minimum-absolute",
    "maximum-absolute",
    "99999999999999999999",
    "ets",
    "wrr",
    "strict",
    "qos",
    "trust",
    "L3",
    "mtu",
    "speed",
    "100G",
    "exit",
    "tx-queue",
    "3",
    "random-detect",
    "minimum-threshold",
    "kbytes",
    "mbytes",
    "max-mark-probability",
    "no-drop",
    "hostname",
    ":",
    "tc:",
    "ratelimit:",
    "tsa:",
    "bw:",
    "50%",
    "prio:3",
    "dscp:26,",
    "PFC",
    "configuration:",
    "enabled",
    "buffer",
    "0",
    "1",
    "7",
    "8",
    "-1",
    "Priority",
    "Enabled",
    "True",
    "False",
    "Global",
    "Name",
    "Algorithm",
    "Bandwidth(%)",
    "ETS",
    "0-2,4-7",
    "7-0",
    "Willing",
    "PS",
    "C:\\>",
    "Get-NetQosFlowControl",
    "Get-NetAdapterQos",
    "OperationalTrafficClasses",
    "OperationalFlowControl",
    "NetDirect",
    "445",
    "--",
    "---",
    "Port",
    "Neighbor Device ID",
    "Neighbor Port ID",
    "LocalPort",
    "RemoteDevice",
    "RemotePortID",
    "Interface:",
    "LLDP neighbors:",
    "SysName:",
    "PortID:",
    "ifname",
    "links:",
    "-",
    "{a:",
    "\"x:1\",",
    "b:",
    "}",
    "[",
    "]",
    "policy:",
    "lossless:",
    "sysname",
    "map-table",
    "dot1p-lp",
    "import",
    "export",
    "wred",
    "table",
    "queue",
    "low-limit",
    "high-limit",
    "group",
    "sp",
    "byte-count",
    "permit",
    "vlan",
    "to",
    "quit",
    "#",
    "nv",
    "set",
    "default-global",
    "swp1-3",
    "- set:",
    "{}",
    "\"PORT\"",
    "{",
    "\"",
    ",",
    "\t",
    "   ",
    "é",
    "\u{0}",
];

fn text() -> impl Strategy<Value = String> {
    let line = prop::collection::vec(
        prop_oneof![4 => prop::sample::select(WORDS).prop_map(str::to_string), 1 => "\\PC{0,6}"],
        0..10,
    )
    .prop_map(|w| w.join(" "));
    prop::collection::vec((0usize..8, line), 0..40).prop_map(|lines| {
        lines.into_iter().map(|(indent, l)| format!("{}{l}", " ".repeat(indent))).collect::<Vec<_>>().join("\n")
    })
}

/// Seeds that make each parser recognise the text as its own.
const HEADERS: &[&str] = &[
    "## Running database \"initial\"\n",
    "! device: x\ninterface Ethernet1\n",
    "PFC configuration:\nPriority trust state: dscp\n",
    "PS C:\\> Get-NetQosFlowControl\n",
    "Port  Neighbor Device ID  Neighbor Port ID  TTL\n",
    "LocalPort  RemoteDevice  RemotePortID  Capability\n",
    "LLDP neighbors:\nInterface: eth0, via: LLDP\n",
    "{\"PORT\": {\"Ethernet0\": {\"speed\": \"99999999999999999999\", \"mtu\": \"1\"}}, \"QUEUE\": {\"Ethernet0|3-9\": {}}}\n",
    "qos map-table dot1p-lp\n",
    "nv set qos roce mode lossless\n",
    "- header:\n    version: Cumulus Linux 5.6\n- set:\n",
    "!Command: show running-config\ninterface Ethernet1/1\n",
    "! Version 10.5.4.0\ninterface ethernet1/1/1\n",
    "",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_importer_panics(header in prop::sample::select(HEADERS), body in text()) {
        let t = format!("{header}{body}");
        let _ = super::read(&t, "f", "f");
        let _ = super::arista::parse(&t, "f", "f");
        let _ = super::sonic::parse(&t, "f", "f");
        let _ = super::onyx::parse(&t, "f", "f");
        let _ = super::mlnx_qos::parse(&t, "f", "f");
        let _ = super::windows::parse(&t, "f", "f");
        let _ = super::lldp::parse(&t, "f", "f");
        let _ = super::links::parse(&t, "f");
        let _ = super::comware::parse(&t, "f", "f");
        let _ = super::cumulus::parse(&t, "f", "f");
        let _ = rocelab_config::cumulus::yaml::parse(&t, "f");
        let _ = super::nxos::parse(&t, "f", "f");
        let _ = super::os10::parse(&t, "f", "f");
    }

    #[test]
    fn no_importer_panics_on_arbitrary_text(t in "\\PC{0,400}") {
        let _ = super::read(&t, "f", "f");
        let _ = super::onyx::parse(&t, "f", "f");
        let _ = super::mlnx_qos::parse(&t, "f", "f");
        let _ = super::windows::parse(&t, "f", "f");
        let _ = super::lldp::parse(&t, "f", "f");
        let _ = super::links::parse(&t, "f");
        let _ = super::comware::parse(&t, "f", "f");
        let _ = super::cumulus::parse(&t, "f", "f");
        let _ = rocelab_config::cumulus::yaml::parse(&t, "f");
        let _ = super::nxos::parse(&t, "f", "f");
        let _ = super::os10::parse(&t, "f", "f");
    }

    /// Every line an importer reports is a line of the file.
    #[test]
    fn reported_lines_exist(header in prop::sample::select(HEADERS), body in text()) {
        let t = format!("{header}{body}");
        let lines = t.lines().count().max(1);
        match super::read(&t, "f", "f") {
            Some(super::Parsed::Config(c)) => {
                for u in &c.not_understood {
                    prop_assert!(u.line >= 1 && u.line <= lines, "{u} of {lines}");
                }
            }
            // JSON that does not parse is located on a line of the file, at a column of it.
            Some(super::Parsed::Broken(e)) => {
                prop_assert!(e.line >= 1 && e.line <= lines, "{e} of {lines}");
                let len = t.lines().nth(e.line - 1).map_or(0, |l| l.chars().count());
                prop_assert!(e.column >= 1 && e.column <= len + 1, "{e}: line of {len}");
            }
            _ => {}
        }
    }
}
