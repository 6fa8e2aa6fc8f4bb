//! Windows Server DCB/QoS as PowerShell prints it (the DcbQos and NetQos modules' default
//! formatting, Microsoft's cmdlet reference): one file per host holding any of
//! - `Get-NetQosPolicy` (list format: `Name :`, `PriorityValue :`, `NetDirectPort :`, …; the
//!   policy matching `NetDirectPort 445` gives the 802.1p priority SMB Direct RDMA is tagged
//!   with),
//! - `Get-NetQosFlowControl` (table `Priority Enabled [PolicySet IfIndex IfAlias]`),
//! - `Get-NetQosTrafficClass` (table `Name Algorithm Bandwidth(%) Priority [PolicySet IfIndex
//!   IfAlias]`; `[Default]` is traffic class 0, the others follow in order),
//! - `Get-NetQosDcbxSetting` (table `Willing [PolicySet IfIndex IfAlias]`),
//! - `Get-NetAdapterQos` (list format per adapter: `Name`, `Enabled`, `Capabilities`,
//!   `OperationalTrafficClasses`, `OperationalFlowControl`, `OperationalClassifications`, and the
//!   peer's `Remote…` settings, with their nested tables indented under the value column),
//!
//! - `Get-NetAdapter` (table `Name InterfaceDescription ifIndex Status MacAddress LinkSpeed`;
//!   adapter names hold spaces, so the name is cut where the header's next column starts): each
//!   adapter's MAC address, which places the switch's LLDP neighbour that names the port by it
//!   (Windows has no command that prints LLDP neighbours, see [`super::lldp`]),
//!
//! in any order, with or without the `PS C:\> Get-…` prompt lines. Each adapter of
//! `Get-NetAdapterQos` is a port named as Windows names it (`SLOT 2 Port 1`, `Ethernet 5`); what
//! the adapter reports as operational wins over the host's settings, and an adapter with QoS
//! disabled has neither PFC nor ETS. Without `Get-NetAdapterQos` the host's settings apply to
//! the port the cabling names.
//!
//! Windows DCB classifies by 802.1p, so the ports trust PCP. The output does not show the MTU
//! (taken from the link's other end), nor the adapter's DCQCN or RoCE DSCP, which vendor
//! drivers set (those checks skip the port). Every line that is none of the above is reported.

use super::columns::{header_starts, parse_mac, split_row};
use super::{priority_list, DeviceConfig, NotUnderstood};
use crate::state::{HostRdma, PortQos, Sched};
use rocelab_model::fabric::Role;
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

const CMDLETS: &[&str] = &[
    "Get-NetQosPolicy",
    "Get-NetQosFlowControl",
    "Get-NetQosTrafficClass",
    "Get-NetQosDcbxSetting",
    "Get-NetAdapterQos",
];

pub fn recognise(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    CMDLETS.iter().any(|c| lower.contains(&c.to_ascii_lowercase()))
        || text.lines().any(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.starts_with(&["Priority", "Enabled"])
                || w.starts_with(&["Name", "Algorithm", "Bandwidth(%)"])
                || l.starts_with("OperationalTrafficClasses")
        })
}

const POLICY_KEYS: &[&str] = &[
    "Name",
    "Owner",
    "NetworkProfile",
    "Precedence",
    "Template",
    "JobObject",
    "NetDirectPort",
    "PriorityValue",
    "DSCPValue",
    "IPProtocol",
    "IPPort",
    "IPSrcPrefix",
    "IPDstPrefix",
    "IPSrcPort",
    "IPDstPort",
    "IPSrcPortStart",
    "IPSrcPortEnd",
    "IPDstPortStart",
    "IPDstPortEnd",
    "AppPathName",
    "User",
    "URI",
    "URIRecursive",
    "MinBandwidthWeight",
    "ThrottleRate",
    "PolicyStore",
];

const ADAPTER_KEYS: &[&str] = &[
    "Name",
    "Enabled",
    "Capabilities",
    "OperationalTrafficClasses",
    "OperationalFlowControl",
    "OperationalClassifications",
    "RemoteTrafficClasses",
    "RemoteFlowControl",
    "RemoteClassifications",
];

/// Settings of the host or of one interface.
#[derive(Debug, Clone, Default)]
struct Settings {
    pfc: Option<u8>,
    /// (name, strict, bandwidth, priorities) in the order listed.
    classes: Vec<(String, bool, u8, Vec<u8>)>,
    willing: Option<bool>,
}

#[derive(Debug, Clone, Default)]
struct Adapter {
    name: String,
    line: usize,
    enabled: Option<bool>,
    /// Operational traffic classes: (tc, strict, bandwidth, priorities).
    tcs: Vec<(u8, bool, u8, Vec<u8>)>,
    pfc: Option<u8>,
    netdirect: Option<u8>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Table {
    None,
    FlowControl,
    TrafficClass,
    Dcbx,
    /// `Get-NetAdapter`'s table.
    Adapters,
}

fn bool_of(w: &str) -> Option<bool> {
    match w {
        "True" | "true" => Some(true),
        "False" | "false" => Some(false),
        _ => None,
    }
}

/// `Priority 3 Enabled`, `Priorities 3,5 Enabled`, `All Priorities Disabled`.
fn flow_control(v: &str) -> Option<u8> {
    let w: Vec<&str> = v.split_whitespace().collect();
    match w.as_slice() {
        ["All", "Priorities", "Disabled"] => Some(0),
        ["All", "Priorities", "Enabled"] => Some(0xff),
        ["Priority" | "Priorities", list, "Enabled"] => {
            priority_list(list).map(|p| p.iter().fold(0, |m, x| m | (1 << x)))
        }
        _ => None,
    }
}

/// The interface a table row names after its settings: `Global`, or `PolicySet IfIndex IfAlias`.
fn row_interface(rest: &[&str]) -> Option<Option<String>> {
    match rest {
        [] | ["Global"] => Some(None),
        [_set, index, alias @ ..] if index.parse::<u32>().is_ok() && !alias.is_empty() => Some(Some(alias.join(" "))),
        _ => None,
    }
}

/// Parses one host's capture; `stem` names the host.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    let mut bad = Vec::new();
    let mut global = Settings::default();
    let mut per_if: Vec<(String, Settings)> = Vec::new();
    let mut adapters: Vec<Adapter> = Vec::new();
    let mut netdirect: Option<u8> = None;
    // List records: the keys of the record being read, and its kind.
    let mut record: Vec<(String, String, usize)> = Vec::new();
    // The table-valued key whose indented lines follow (adapter records).
    let mut nested: Option<String> = None;
    let mut table = Table::None;
    // `Get-NetAdapter`: where its columns start, and the MAC of each adapter.
    let mut adapter_cols: Vec<usize> = Vec::new();
    let mut macs = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    // Nested rows of an adapter are recorded as `#tc` / `#netdirect` keys of its record.
    let finish = |record: &mut Vec<(String, String, usize)>,
                  adapters: &mut Vec<Adapter>,
                  netdirect: &mut Option<u8>,
                  bad: &mut Vec<NotUnderstood>| {
        if record.is_empty() {
            return;
        }
        let adapter = record.iter().any(|(k, ..)| ADAPTER_KEYS[1..].contains(&k.as_str()));
        let keys = if adapter { ADAPTER_KEYS } else { POLICY_KEYS };
        let mut a = Adapter { line: record[0].2, ..Default::default() };
        let mut policy_port = None;
        let mut policy_prio = None;
        for (k, v, n) in record.drain(..) {
            if k == "#tc" {
                let w: Vec<&str> = v.split(' ').collect();
                if let (Some(tc), Some(prios)) = (w[0].parse::<u8>().ok(), w.get(3).and_then(|p| priority_list(p))) {
                    a.tcs.push((tc, w[1] == "true", w[2].parse().unwrap_or(0), prios));
                }
                continue;
            }
            if k == "#netdirect" {
                a.netdirect = v.parse::<u8>().ok().filter(|p| *p < 8);
                continue;
            }
            let mut report =
                |why: &str| bad.push(NotUnderstood { file: file.into(), line: n, text: format!("{k} : {v} ({why})") });
            if !keys.contains(&k.as_str()) {
                report(if adapter { "not a Get-NetAdapterQos property" } else { "not a Get-NetQosPolicy property" });
                continue;
            }
            match (adapter, k.as_str()) {
                (true, "Name") => a.name = v.clone(),
                (true, "Enabled") => match bool_of(&v) {
                    Some(b) => a.enabled = Some(b),
                    None => report("expected True or False"),
                },
                (true, "OperationalFlowControl") => match flow_control(&v) {
                    Some(p) => a.pfc = Some(p),
                    None => report("expected Priority N Enabled or All Priorities Disabled"),
                },
                (false, "PriorityValue") => match v.parse::<u8>() {
                    Ok(p) if p < 8 => policy_prio = Some(p),
                    _ => report("expected a priority 0-7"),
                },
                (false, "NetDirectPort") => match v.parse::<u16>() {
                    Ok(p) => policy_port = Some(p),
                    _ => report("expected a port number"),
                },
                _ => {}
            }
        }
        if adapter {
            adapters.push(a);
        } else if let (Some(445), Some(p)) = (policy_port, policy_prio) {
            *netdirect = Some(p);
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let n = i + 1;
        let raw = lines[i];
        i += 1;
        let t = raw.trim();
        let indent = raw.len() - raw.trim_start().len();
        let report = |bad: &mut Vec<NotUnderstood>, why: &str| {
            bad.push(NotUnderstood {
                file: file.into(),
                line: n,
                text: if why.is_empty() { t.to_string() } else { format!("{t} ({why})") },
            })
        };
        if t.is_empty() {
            table = Table::None;
            continue;
        }
        if t.starts_with("PS ") || t.starts_with("PS>") {
            finish(&mut record, &mut adapters, &mut netdirect, &mut bad);
            nested = None;
            table = Table::None;
            let get_net_adapter = t.split_whitespace().any(|w| w.eq_ignore_ascii_case("Get-NetAdapter"));
            if !get_net_adapter && !CMDLETS.iter().any(|c| t.to_ascii_lowercase().contains(&c.to_ascii_lowercase())) {
                report(&mut bad, "a command whose output rocelab does not read");
            }
            continue;
        }
        let w: Vec<&str> = t.split_whitespace().collect();
        if t.chars().all(|c| c == '-' || c == ' ') {
            continue;
        }
        // Table headers.
        if w.starts_with(&["Priority", "Enabled"]) {
            table = Table::FlowControl;
            continue;
        }
        if w.starts_with(&["Name", "Algorithm"]) {
            table = Table::TrafficClass;
            continue;
        }
        if w.first() == Some(&"Willing") && !t.contains(':') {
            table = Table::Dcbx;
            continue;
        }
        if w.starts_with(&["Name", "InterfaceDescription"]) {
            if let Some(cols) = header_starts(raw, &["Name", "InterfaceDescription"]) {
                adapter_cols = cols;
                table = Table::Adapters;
                continue;
            }
        }
        // Nested lines of an adapter's table-valued property.
        if indent > 0 && nested.is_some() {
            let key = nested.clone().unwrap_or_default();
            if key == "OperationalTrafficClasses" {
                if let Some(a) = record_adapter_tc(&w) {
                    record.push(("#tc".into(), format!("{} {} {} {}", a.0, a.1, a.2, a.3), n));
                } else if !w.starts_with(&["TC", "TSA"]) {
                    report(&mut bad, "expected TC TSA Bandwidth Priorities");
                }
            } else if key == "OperationalClassifications" {
                match w.as_slice() {
                    ["NetDirect", "445", p] => record.push(("#netdirect".into(), p.to_string(), n)),
                    ["Protocol", ..] | [_, _] | [_, _, _] => {}
                    _ => report(&mut bad, "expected Protocol Port/Type Priority"),
                }
            }
            // Capabilities and the peer's Remote… tables do not bear on the checks.
            continue;
        }
        match table {
            Table::FlowControl => {
                let ok = match w.as_slice() {
                    [p, en, rest @ ..] => {
                        match (p.parse::<u8>().ok().filter(|p| *p < 8), bool_of(en), row_interface(rest)) {
                            (Some(p), Some(en), Some(iface)) => {
                                let s = match iface {
                                    None => &mut global,
                                    Some(alias) => settings_of(&mut per_if, alias),
                                };
                                let m = s.pfc.get_or_insert(0);
                                if en {
                                    *m |= 1 << p;
                                } else {
                                    *m &= !(1 << p);
                                }
                                true
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    report(&mut bad, "expected Priority Enabled [PolicySet IfIndex IfAlias]");
                }
                continue;
            }
            Table::TrafficClass => {
                let algo = w.iter().position(|x| x.eq_ignore_ascii_case("ETS") || x.eq_ignore_ascii_case("Strict"));
                let ok = match algo {
                    Some(ai) if ai > 0 && w.len() >= ai + 3 => {
                        let strict = w[ai].eq_ignore_ascii_case("Strict");
                        match (
                            w[ai + 1].parse::<u8>().ok().filter(|b| *b <= 100),
                            priority_list(w[ai + 2]),
                            row_interface(&w[ai + 3..]),
                        ) {
                            (Some(bw), Some(prios), Some(iface)) => {
                                let s = match iface {
                                    None => &mut global,
                                    Some(alias) => settings_of(&mut per_if, alias),
                                };
                                s.classes.push((w[..ai].join(" "), strict, bw, prios));
                                true
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    report(&mut bad, "expected Name Algorithm Bandwidth(%) Priority [PolicySet IfIndex IfAlias]");
                }
                continue;
            }
            Table::Dcbx => {
                match (w.first().and_then(|x| bool_of(x)), row_interface(&w[1..])) {
                    (Some(b), Some(None)) => global.willing = Some(b),
                    (Some(b), Some(Some(alias))) => settings_of(&mut per_if, alias).willing = Some(b),
                    _ => report(&mut bad, "expected Willing [PolicySet IfIndex IfAlias]"),
                }
                continue;
            }
            Table::Adapters => {
                // A virtual adapter may show no MAC address: nothing to place a port by.
                let name = split_row(raw, &adapter_cols).map(|f| f[0].clone()).filter(|n| !n.is_empty());
                match (name, w.iter().find_map(|x| parse_mac(x))) {
                    (Some(name), Some(mac)) => macs.push((name, mac)),
                    (Some(_), None) => {}
                    (None, _) => {
                        report(&mut bad, "expected Name InterfaceDescription ifIndex Status MacAddress LinkSpeed")
                    }
                }
                continue;
            }
            Table::None => {}
        }
        // List format: `Key : value`.
        let Some((k, v)) = t.split_once(':').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())) else {
            report(&mut bad, "");
            continue;
        };
        if k.is_empty() || k.contains(' ') {
            report(&mut bad, "");
            continue;
        }
        if k == "Name" {
            finish(&mut record, &mut adapters, &mut netdirect, &mut bad);
        }
        nested = [
            "Capabilities",
            "OperationalTrafficClasses",
            "OperationalClassifications",
            "RemoteTrafficClasses",
            "RemoteClassifications",
        ]
        .contains(&k.as_str())
        .then(|| k.clone());
        if k == "OperationalClassifications" && v.starts_with("Protocol")
            || k == "OperationalTrafficClasses" && v.starts_with("TC")
        {
            record.push((k, String::new(), n));
        } else {
            record.push((k, v, n));
        }
    }
    finish(&mut record, &mut adapters, &mut netdirect, &mut bad);
    let profile = |s: &Settings, a: Option<&Adapter>| -> PortQos {
        let mut q = PortQos::unconfigured(0);
        q.trust = Marking::Pcp;
        q.pfc = s.pfc.unwrap_or(0);
        q.dcbx_willing = s.willing;
        for (i, (name, strict, bw, prios)) in s.classes.iter().enumerate() {
            let tc = if name == "[Default]" { 0 } else { (i as u8).min(7) };
            q.sched[tc as usize] = if *strict { Sched::Strict } else { Sched::Ets(*bw) };
            for p in prios {
                q.priority_to_queue[*p as usize] = tc;
            }
        }
        let mut pcp = netdirect;
        if let Some(a) = a {
            if a.enabled == Some(false) {
                q.pfc = 0;
                q.sched = [Sched::Unset; 8];
            }
            if let Some(p) = a.pfc {
                q.pfc = p;
            }
            if !a.tcs.is_empty() {
                q.sched = [Sched::Unset; 8];
                for (tc, strict, bw, prios) in &a.tcs {
                    q.sched[*tc as usize] = if *strict { Sched::Strict } else { Sched::Ets(*bw) };
                    for p in prios {
                        q.priority_to_queue[*p as usize] = *tc;
                    }
                }
            }
            pcp = a.netdirect.or(pcp);
        }
        // PFC is per priority; the adapter's receive buffer for a priority is its own.
        for p in 0..8u8 {
            if q.pfc & (1 << p) != 0 {
                q.priority_to_pg[p as usize] = p;
            }
        }
        q.host = Some(HostRdma { pcp, ..HostRdma::default() });
        q
    };
    let mut c = DeviceConfig { role: Role::Host, macs, ..DeviceConfig::switch(stem.to_string(), "windows", file) };
    for a in adapters.iter().filter(|a| !a.name.is_empty()) {
        let mut s = global.clone();
        if let Some((_, o)) = per_if.iter().find(|(alias, _)| *alias == a.name) {
            s.pfc = o.pfc.or(s.pfc);
            if !o.classes.is_empty() {
                s.classes = o.classes.clone();
            }
            s.willing = o.willing.or(s.willing);
        }
        c.ports.push((a.name.clone(), Rate::gbps(0), profile(&s, Some(a)), a.line));
    }
    for a in adapters.iter().filter(|a| a.name.is_empty()) {
        bad.push(NotUnderstood {
            file: file.into(),
            line: a.line,
            text: "a Get-NetAdapterQos record without a Name".into(),
        });
    }
    if c.ports.is_empty() {
        c.default_port = Some(profile(&global, None));
    }
    bad.sort_by_key(|u| u.line);
    c.not_understood = bad;
    c
}

/// `0  ETS  40%  0-3,5-7` or `1  Strict  3`: an operational traffic class.
fn record_adapter_tc(w: &[&str]) -> Option<(u8, bool, u8, String)> {
    let tc = w.first()?.parse::<u8>().ok().filter(|t| *t < 8)?;
    let strict = match *w.get(1)? {
        "ETS" => false,
        "Strict" => true,
        _ => return None,
    };
    let (bw, prios) = match &w[2..] {
        [bw, prios] => (bw.trim_end_matches('%').parse::<u8>().ok().filter(|b| *b <= 100)?, *prios),
        [prios] if strict => (0, *prios),
        _ => return None,
    };
    priority_list(prios)?;
    Some((tc, strict, bw, prios.to_string()))
}

fn settings_of(per_if: &mut Vec<(String, Settings)>, alias: String) -> &mut Settings {
    match per_if.iter().position(|(a, _)| *a == alias) {
        Some(i) => &mut per_if[i].1,
        None => {
            per_if.push((alias, Settings::default()));
            &mut per_if.last_mut().expect("just pushed").1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The five cmdlets on a Windows Server 2019 S2D node, RoCE (SMB Direct) on priority 3.
    const CAPTURE: &str = r#"PS C:\> Get-NetQosPolicy

Name           : SMB
Owner          : PowerShell / WMI
NetworkProfile : All
Precedence     : 127
JobObject      :
NetDirectPort  : 445
PriorityValue  : 3

Name           : DEFAULT
Owner          : PowerShell / WMI
NetworkProfile : All
Precedence     : 127
Template       : Default
JobObject      :
PriorityValue  : 0

PS C:\> Get-NetQosFlowControl

Priority   Enabled    PolicySet        IfIndex IfAlias
--------   -------    ---------        ------- -------
0          False      Global
1          False      Global
2          False      Global
3          True       Global
4          False      Global
5          False      Global
6          False      Global
7          False      Global

PS C:\> Get-NetQosTrafficClass

Name                      Algorithm Bandwidth(%) Priority                  PolicySet        IfIndex IfAlias
----                      --------- ------------ --------                  ---------        ------- -------
[Default]                 ETS       50           0-2,4-7                   Global
SMB Direct                ETS       50           3                         Global

PS C:\> Get-NetQosDcbxSetting

Willing PolicySet  IfIndex IfAlias
------- ---------  ------- -------
False   Global

PS C:\> Get-NetAdapterQos

Name                       : SLOT 2 Port 1
Enabled                    : True
Capabilities               :                       Hardware     Current
                             --------     -------
                             MacSecBypass         : NotSupported NotSupported
                             DcbxSupport          : IEEE         IEEE
                             NumTCs(Max/ETS/PFC)  : 8/8/8        8/8/8

OperationalTrafficClasses  : TC TSA    Bandwidth Priorities
                             -- ---    --------- ----------
                             0  ETS    50%       0-2,4-7
                             1  ETS    50%       3

OperationalFlowControl     : Priority 3 Enabled
OperationalClassifications : Protocol  Port/Type Priority
                             --------  --------- --------
                             Default             0
                             NetDirect 445       3

Name                       : SLOT 2 Port 2
Enabled                    : False
Capabilities               :                       Hardware     Current
                             --------     -------
                             MacSecBypass         : NotSupported NotSupported
                             DcbxSupport          : IEEE         None
                             NumTCs(Max/ETS/PFC)  : 8/8/8        0/0/0

PS C:\> Get-NetAdapterRdma
"#;

    #[test]
    fn reads_policies_pfc_classes_dcbx_and_adapters() {
        let c = parse(CAPTURE, "node1.txt", "node1");
        assert_eq!((c.name.as_str(), c.role, c.platform), ("node1", Role::Host, "windows"));
        let nu: Vec<(usize, &str)> = c.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(nu, [(74, "PS C:\\> Get-NetAdapterRdma (a command whose output rocelab does not read)")]);
        let names: Vec<&str> = c.ports.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["SLOT 2 Port 1", "SLOT 2 Port 2"]);
        let (_, _, q, line) = &c.ports[0];
        assert_eq!(*line, 47);
        assert_eq!((q.trust, q.pfc, q.dcbx_willing, q.mtu), (Marking::Pcp, 1 << 3, Some(false), 0));
        assert_eq!(
            (q.sched[0], q.sched[1], q.priority_to_queue[3], q.priority_to_queue[4]),
            (Sched::Ets(50), Sched::Ets(50), 1, 0)
        );
        let h = q.host.as_ref().unwrap();
        assert_eq!((h.pcp, h.rdma_visible), (Some(3), false));
        // QoS disabled on the second adapter: no PFC, no ETS.
        let q2 = &c.ports[1].2;
        assert_eq!((q2.pfc, q2.sched[1]), (0, Sched::Unset));
    }

    #[test]
    fn without_adapters_the_host_settings_apply_to_the_cabled_port() {
        let text = "Priority   Enabled\n--------   -------\n0          False\n5          True\n\nName                      Algorithm Bandwidth(%) Priority\n----                      --------- ------------ --------\n[Default]                 ETS       5            0-4,6-7\nSMB                       ETS       95           5\n\nWilling\n-------\nTrue\n";
        let c = parse(text, "n.txt", "n");
        assert!(c.not_understood.is_empty(), "{:?}", c.not_understood);
        let q = c.default_port.unwrap();
        assert_eq!(
            (q.pfc, q.sched[1], q.priority_to_queue[5], q.dcbx_willing),
            (1 << 5, Sched::Ets(95), 1, Some(true))
        );
        assert_eq!(q.host.unwrap().pcp, None);
    }

    /// `Get-NetAdapter` gives each adapter's MAC, its name kept whole (names hold spaces); a
    /// virtual adapter without a MAC is passed over, and `Get-NetAdapterRdma` is still a command
    /// rocelab does not read.
    #[test]
    fn get_net_adapter_gives_the_macs_of_adapters_named_with_spaces() {
        let text = "PS C:\\> Get-NetAdapter

Name                      InterfaceDescription                    ifIndex Status       MacAddress             LinkSpeed
----                      --------------------                    ------- ------       ----------             ---------
SLOT 2 Port 1             Mellanox ConnectX-6 Dx Adapter               12 Up           24-8A-07-AA-BB-01       100 Gbps
SLOT 2 Port 2             Mellanox ConnectX-6 Dx Adapter #2            14 Up           24-8A-07-AA-BB-02       100 Gbps
vEthernet (Default Swi... Hyper-V Virtual Ethernet Adapter             64 Up                                    10 Gbps

PS C:\\> Get-NetQosFlowControl

Priority   Enabled    PolicySet        IfIndex IfAlias
--------   -------    ---------        ------- -------
3          True       Global
PS C:\\> Get-NetAdapterRdma
";
        let c = parse(text, "win1.txt", "win1");
        assert_eq!(
            c.macs,
            [
                ("SLOT 2 Port 1".to_string(), [0x24, 0x8a, 0x07, 0xaa, 0xbb, 0x01]),
                ("SLOT 2 Port 2".to_string(), [0x24, 0x8a, 0x07, 0xaa, 0xbb, 0x02])
            ]
        );
        let nu: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(nu, [14]);
        assert_eq!(c.default_port.map(|q| q.pfc), Some(1 << 3));
    }

    #[test]
    fn per_interface_rows_override_the_host() {
        let text = "Priority   Enabled    PolicySet        IfIndex IfAlias\n--------   -------    ---------        ------- -------\n3          True       Global\n3          False      Machine          12      Ethernet 5\n\nName    : Ethernet 5\nEnabled : True\n\nName    : Ethernet 6\nEnabled : True\n";
        let c = parse(text, "n.txt", "n");
        assert!(c.not_understood.is_empty(), "{:?}", c.not_understood);
        assert_eq!((c.ports[0].2.pfc, c.ports[1].2.pfc), (0, 1 << 3));
    }

    #[test]
    fn malformed_rows_and_properties_are_reported() {
        let text = "Priority   Enabled\n--------   -------\n9          True\n3          Maybe\n\nName      Algorithm Bandwidth(%) Priority\n----      --------- ------------ --------\nSMB       ETS       150          3\n\nName           : SMB\nPriorityValue  : 12\nFavouriteColour : blue\n\nsome stray words\n";
        let c = parse(text, "n.txt", "n");
        let lines: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(lines, [3, 4, 8, 11, 12, 14]);
    }
}
