//! LLDP neighbour tables as the cabling of imported devices: each device's view of who is on
//! each of its ports. The outputs read, recognised from their content:
//!
//! - Arista EOS `show lldp neighbors`: a table `Port  Neighbor Device ID  Neighbor Port ID  TTL`
//!   with EOS's short port names (`Et1`, `Et49/1`, `Ma1`), preceded by the table counters
//!   (`Last table change time`, `Number of table inserts`, …);
//! - Arista EOS `show lldp neighbors detail`: per port `Interface Ethernet1 detected 1 LLDP
//!   neighbors:`, then per neighbour `Neighbor <chassis>/<port>, age N seconds` with the TLVs
//!   indented under it (`- Port ID type: Interface name (5)`, `Port ID : "Ethernet48"`,
//!   `- System Name: "leaf2"`), as the EOS User Manual's LLDP chapter shows them;
//! - SONiC `show lldp table`: `LocalPort  RemoteDevice  RemotePortID  Capability
//!   RemotePortDescr`, with the capability legend above and `Total entries displayed` below;
//! - lldpd's `lldpctl` / `lldpcli show neighbors [details]` (also what SONiC's
//!   `show lldp neighbors` prints): blocks `Interface: eth0, via: LLDP, …` with `SysName:` under
//!   `Chassis:` and `PortID: ifname Ethernet1` (or `mac …`, `local …`) under `Port:`;
//! - lldpd's `lldpctl -f keyvalue`: `lldp.<interface>.chassis.name=…` and
//!   `lldp.<interface>.port.<subtype>=…` (subtype `ifname`, `mac`, `local`, `ifalias`, `ip`),
//!   the keys lldpd's key-value writer prints (lldpcli(8), `-f keyvalue`).
//!
//! Windows has no command that prints LLDP neighbours: the NetLldpAgent module
//! (`Get-NetLldpAgent`, `Enable-NetLldpAgent`, `Disable-NetLldpAgent`) only sets whether the
//! host's agent sends, so a Windows host is cabled from its switch's table, which names the
//! host's port by the MAC address Windows sends; `Get-NetAdapter` in the host's capture maps it
//! to the adapter ([`super::windows`]).
//!
//! Table columns are cut where the header's columns start, so that a port ID with a space in
//! it (`Ethernet 1`, `Slot 1 Port 1`, as Windows and lldpd hosts send their port descriptions)
//! is kept whole; a row that is not aligned under its header and has more words than columns
//! cannot be split with certainty and is reported with its line. A port ID that is a MAC address
//! (in any of the notations [`super::columns::parse_mac`] reads) is marked so that the import
//! maps it to the port with that address.
//!
//! The local device is the one the prompt names when the capture includes it
//! (`leaf1#show lldp neighbors`, `admin@leaf2:~$ show lldp table`, `root@host1:~# lldpctl`),
//! else the file's name up to its first dot. Every line that is neither part of the format nor
//! a neighbour is reported with its line.

use super::columns::{header_starts, mac_text, parse_mac, split_row};
use super::NotUnderstood;

/// What a neighbour's port ID is (IEEE 802.1AB-2016 clause 8.5.3, the Port ID TLV's subtype).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortIdKind {
    /// An interface name or alias: matched with the neighbour's configured ports.
    Name,
    /// A MAC address (written `24:8a:07:aa:bb:cc`): matched with the addresses the neighbour's
    /// capture shows (`ip link`, `Get-NetAdapter`).
    Mac,
    /// A locally assigned ID (lldpd's `local`, SONiC's port alias): matched as a name or alias.
    Local,
}

/// One neighbour seen on a local port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    pub local_port: String,
    pub remote_device: String,
    pub remote_port: String,
    pub kind: PortIdKind,
    pub line: usize,
}

impl Neighbour {
    fn new(local_port: &str, remote_device: &str, remote_port: &str, kind: PortIdKind, line: usize) -> Neighbour {
        // A port ID that is a MAC address is one whatever subtype the table claims.
        let (remote_port, kind) = match parse_mac(remote_port) {
            Some(m) => (mac_text(&m), PortIdKind::Mac),
            None => (remote_port.to_string(), kind),
        };
        Neighbour {
            local_port: local_port.to_string(),
            remote_device: remote_device.to_string(),
            remote_port,
            kind,
            line,
        }
    }
}

/// One device's LLDP neighbour table.
#[derive(Debug, Clone, PartialEq)]
pub struct LldpTable {
    pub device: String,
    pub file: String,
    pub neighbours: Vec<Neighbour>,
    pub not_understood: Vec<NotUnderstood>,
}

/// The fields `lldpctl` prints for a neighbour (lldpd's plain format) besides `SysName` and
/// `PortID`.
const LLDPD_FIELDS: &[&str] = &[
    "Chassis",
    "ChassisID",
    "SysDescr",
    "MgmtIP",
    "MgmtIface",
    "Capability",
    "TTL",
    "Port",
    "PortDescr",
    "PMD autoneg",
    "Adv",
    "MAU oper type",
    "MFS",
    "VLAN",
    "PPVID",
    "PI",
    "LLDP-MED",
    "Device Type",
    "Unknown TLVs",
    "TLV",
    "Port is aggregated. PortAggregID",
    "Inventory",
    "DCBX",
    "Port VLAN ID",
];

/// Whether a line is EOS's `Interface Ethernet1 detected 1 LLDP neighbors:`.
fn eos_detail_header(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("Interface ")?;
    let (port, tail) = rest.split_once(" detected ")?;
    tail.ends_with("LLDP neighbors:").then_some(port.trim())
}

/// `lldp.<interface>.<section>…=value` of `lldpctl -f keyvalue`: (interface, the key after it,
/// value).
fn keyvalue(line: &str) -> Option<(&str, &str, &str)> {
    let (key, value) = line.trim().split_once('=')?;
    let rest = key.strip_prefix("lldp.")?;
    // The interface name may itself hold a dot (`eth0.100`): the key after it starts with one
    // of the sections lldpd writes.
    const SECTIONS: &[&str] = &[
        "via",
        "rid",
        "age",
        "chassis",
        "port",
        "vlan",
        "ppvid",
        "pi",
        "lldp-med",
        "unknown-tlvs",
        "dcbx",
        "inventory",
    ];
    let at = rest.match_indices('.').map(|(i, _)| i).find(|i| {
        let after = &rest[i + 1..];
        SECTIONS.iter().any(|s| after == *s || after.starts_with(&format!("{s}.")))
    })?;
    Some((&rest[..at], &rest[at + 1..], value))
}

/// Whether the text is LLDP neighbour output of a kind rocelab reads.
pub fn recognise(text: &str) -> bool {
    let has = |s: &str| text.contains(s);
    (has("Neighbor Device ID") && has("Neighbor Port ID"))
        || (has("LocalPort") && has("RemoteDevice") && has("RemotePortID"))
        || (has("LLDP neighbors:") && text.lines().any(|l| l.trim_start().starts_with("Interface:")))
        || text.lines().any(|l| eos_detail_header(l).is_some())
        || text.lines().any(|l| keyvalue(l).is_some_and(|(_, k, _)| k == "chassis.name" || k.starts_with("port.")))
}

/// The device a prompt line names: `leaf1#show lldp neighbors`, `admin@leaf2:~$ show lldp
/// table`, `root@host1:~# lldpctl`.
pub(super) fn prompt_device(line: &str, commands: &[&str]) -> Option<String> {
    let l = line.trim();
    let at = commands.iter().filter_map(|c| l.find(c)).min()?;
    let before = l[..at].trim_end();
    let before = before.strip_suffix(['#', '>', '$']).unwrap_or(before).trim_end();
    let host = match before.split_once('@') {
        Some((_, rest)) => rest.split([':', ' ', ']']).next().unwrap_or_default(),
        None => before.split(['(', ' ']).next().unwrap_or_default(),
    };
    let host = host.trim_start_matches('[');
    (!host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))).then(|| host.to_string())
}

/// EOS's short interface names, expanded as the running-config writes them.
fn eos_port(name: &str) -> String {
    for (short, long) in [("Et", "Ethernet"), ("Ma", "Management"), ("Po", "Port-Channel")] {
        if let Some(rest) = name.strip_prefix(short) {
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                return format!("{long}{rest}");
            }
        }
    }
    name.to_string()
}

fn is_rule(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.chars().all(|c| c == '-' || c == ' ' || c == '=')
}

/// The kind of port ID an lldpd subtype names (`ifname`, `mac`, `local`, …).
fn lldpd_kind(subtype: &str) -> PortIdKind {
    match subtype {
        "mac" => PortIdKind::Mac,
        "local" => PortIdKind::Local,
        _ => PortIdKind::Name,
    }
}

/// What has been read of one neighbour of a block format (lldpd, EOS detail).
struct Pending {
    line: usize,
    port: String,
    name: Option<String>,
    id: Option<String>,
    kind: PortIdKind,
}

impl Pending {
    fn new(line: usize, port: String) -> Pending {
        Pending { line, port, name: None, id: None, kind: PortIdKind::Name }
    }
}

/// The table under construction.
struct Acc<'a> {
    file: &'a str,
    neighbours: Vec<Neighbour>,
    bad: Vec<NotUnderstood>,
}

impl Acc<'_> {
    fn report(&mut self, line: usize, text: &str) {
        self.bad.push(NotUnderstood { file: self.file.into(), line, text: text.trim().to_string() });
    }
    fn flush(&mut self, cur: &mut Option<Pending>) {
        let Some(p) = cur.take() else { return };
        match (p.name, p.id.filter(|id| !id.is_empty())) {
            (Some(n), Some(id)) => self.neighbours.push(Neighbour::new(&p.port, &n, &id, p.kind, p.line)),
            (None, _) => self.report(
                p.line,
                &format!("Interface: {}: the neighbour sends no SysName, so it cannot be named", p.port),
            ),
            (_, None) => self.report(p.line, &format!("Interface: {}: the neighbour sends no PortID", p.port)),
        }
    }
}

/// Parses one capture; `stem` names the device when no prompt does.
pub fn parse(text: &str, file: &str, stem: &str) -> LldpTable {
    let mut device = None;
    let mut acc = Acc { file, neighbours: Vec::new(), bad: Vec::new() };
    let eos_detail = text.lines().any(|l| eos_detail_header(l).is_some());
    let kv = !eos_detail && text.lines().any(|l| keyvalue(l).is_some());
    let lldpd = !eos_detail && !kv && text.contains("LLDP neighbors:");
    let mut cur: Option<Pending> = None;
    // Tables: where the columns start (from the header) and whether it is EOS's.
    let mut table: Option<(Vec<usize>, bool)> = None;
    // EOS detail: the local port of the block being read.
    let mut eos_local: Option<String> = None;
    // Indentation of the last lldpd field line, for values continued on further lines.
    let mut field_indent = usize::MAX;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw.trim();
        let indent = raw.len() - raw.trim_start().len();
        if t.is_empty() || is_rule(t) {
            continue;
        }
        if device.is_none() {
            if let Some(d) = prompt_device(t, &["show lldp", "lldpctl", "lldpcli"]) {
                device = Some(d);
                continue;
            }
        }
        if t.starts_with("[lldpcli]") || t.contains("show lldp") || t.starts_with("lldpctl") || t.starts_with("lldpcli")
        {
            continue;
        }
        if kv {
            match keyvalue(t) {
                Some((port, key, value)) => {
                    if cur.as_ref().is_none_or(|c| c.port != port) {
                        acc.flush(&mut cur);
                        cur = Some(Pending::new(n, port.to_string()));
                    }
                    let c = cur.as_mut().expect("set above");
                    match key.strip_prefix("port.") {
                        _ if key == "chassis.name" => c.name = Some(value.trim().to_string()),
                        Some(sub @ ("ifname" | "mac" | "local" | "ifalias" | "ip")) => {
                            c.id = Some(value.trim().to_string());
                            c.kind = lldpd_kind(sub);
                        }
                        // The rest of what lldpd prints does not bear on the cabling.
                        _ => {}
                    }
                }
                None => acc.report(n, t),
            }
            continue;
        }
        if eos_detail {
            if let Some(port) = eos_detail_header(t) {
                acc.flush(&mut cur);
                eos_local = Some(eos_port(port));
                continue;
            }
            if t.starts_with("Last table change time") || t.starts_with("Number of table") {
                continue;
            }
            if let (true, Some(local)) = (t.starts_with("Neighbor "), &eos_local) {
                acc.flush(&mut cur);
                cur = Some(Pending::new(n, local.clone()));
                continue;
            }
            let Some(c) = cur.as_mut() else {
                acc.report(n, t);
                continue;
            };
            let unquote = |v: &str| v.trim().trim_matches('"').to_string();
            match t.trim_start_matches("- ").split_once(':').map(|(k, v)| (k.trim(), v)) {
                Some(("System Name", v)) => c.name = Some(unquote(v)),
                // The first `Port ID` is the Port ID TLV's; a later one is the link
                // aggregation TLV's (`Port ID : 1000043` under `Link Aggregation`).
                Some(("Port ID", v)) if c.id.is_none() => c.id = Some(unquote(v)),
                // `Interface name (5)`, `MAC address (3)`, `Locally assigned (7)`, … (the
                // subtype numbers of IEEE 802.1AB's Port ID TLV).
                Some(("Port ID type", v)) => {
                    c.kind = if v.contains("(3)") {
                        PortIdKind::Mac
                    } else if v.contains("(7)") {
                        PortIdKind::Local
                    } else {
                        PortIdKind::Name
                    }
                }
                // The TLVs of the neighbour, indented under it, and its discovery times.
                _ if indent >= 4 || t.starts_with("Discovered ") => {}
                _ => acc.report(n, t),
            }
            continue;
        }
        if lldpd {
            if t == "LLDP neighbors:" {
                continue;
            }
            if let Some(rest) = t.strip_prefix("Interface:") {
                acc.flush(&mut cur);
                let port = rest.split(',').next().unwrap_or_default().trim().to_string();
                if port.is_empty() {
                    acc.report(n, t);
                } else {
                    cur = Some(Pending::new(n, port));
                }
                field_indent = indent;
                continue;
            }
            let Some(c) = cur.as_mut() else {
                acc.report(n, t);
                continue;
            };
            match t.split_once(':') {
                Some(("SysName", v)) => c.name = Some(v.trim().to_string()),
                Some(("PortID", v)) => {
                    // `ifname Ethernet1`, `mac 0c:…`, `local 3`, `ifname Ethernet 1`: the value
                    // after the subtype, whole.
                    let v = v.trim();
                    let (sub, id) = v.split_once(' ').unwrap_or(("ifname", v));
                    c.id = Some(id.trim().to_string());
                    c.kind = lldpd_kind(sub);
                }
                // The rest of what lldpd prints about a neighbour does not bear on the cabling.
                Some((k, _)) if LLDPD_FIELDS.contains(&k.trim()) => {}
                // A value continued on the next lines (a long SysDescr) is indented deeper
                // than its field.
                _ if indent > field_indent => continue,
                _ => acc.report(n, t),
            }
            field_indent = indent;
            continue;
        }
        // Headers and the lines around the tables.
        if t.starts_with("Port") && t.contains("Neighbor Device ID") {
            table = header_starts(raw, &["Port", "Neighbor Device ID", "Neighbor Port ID", "TTL"]).map(|s| (s, true));
            continue;
        }
        if t.starts_with("LocalPort") && t.contains("RemoteDevice") {
            table =
                header_starts(raw, &["LocalPort", "RemoteDevice", "RemotePortID", "Capability"]).map(|s| (s, false));
            continue;
        }
        if t.starts_with("Last table change time")
            || t.starts_with("Number of table")
            || t.starts_with("Capability codes:")
            || t.starts_with("Total entries displayed")
        {
            continue;
        }
        let Some((starts, eos)) = &table else {
            acc.report(n, t);
            continue;
        };
        match table_row(raw, starts, *eos) {
            Some((local, dev, port)) => {
                let local = if *eos { eos_port(&local) } else { local };
                acc.neighbours.push(Neighbour::new(&local, &dev, &port, PortIdKind::Name, n));
            }
            None => acc.report(
                n,
                &format!(
                    "{t} (a row that is not aligned under its header and cannot be split into its columns with certainty)"
                ),
            ),
        }
    }
    acc.flush(&mut cur);
    LldpTable {
        device: device.unwrap_or_else(|| stem.to_string()),
        file: file.into(),
        neighbours: acc.neighbours,
        not_understood: acc.bad,
    }
}

/// One row of a neighbour table: (local port, neighbour, its port ID). Cut where the header's
/// columns start (EOS's `TTL` and SONiC's `Capability` bound the port ID); when the row is not
/// aligned, its words are taken as the columns only if there is one per column (an EOS row has
/// four, TTL last; a SONiC row three when its capability and description are empty).
fn table_row(raw: &str, starts: &[usize], eos: bool) -> Option<(String, String, String)> {
    let fields = split_row(raw, starts).filter(|f| f[..3].iter().all(|x| !x.is_empty()));
    if let Some(f) = fields.filter(|f| !eos || f[3].parse::<u32>().is_ok()) {
        return Some((f[0].clone(), f[1].clone(), f[2].clone()));
    }
    let words: Vec<&str> = raw.split_whitespace().collect();
    match (eos, words.len()) {
        (true, 4) if words[3].parse::<u32>().is_ok() => Some((words[0].into(), words[1].into(), words[2].into())),
        (false, 3) => Some((words[0].into(), words[1].into(), words[2].into())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(t: &LldpTable) -> Vec<(String, String, String, usize)> {
        t.neighbours
            .iter()
            .map(|n| (n.local_port.clone(), n.remote_device.clone(), n.remote_port.clone(), n.line))
            .collect()
    }

    #[test]
    fn eos_show_lldp_neighbors() {
        let text = "leaf1#show lldp neighbors
Last table change time   : 0:12:41 ago
Number of table inserts  : 4
Number of table deletes  : 0
Number of table drops    : 0
Number of table age-outs : 0

Port          Neighbor Device ID       Neighbor Port ID    TTL
---------- ------------------------ ---------------------- ---
Et1           spine1.lab.example       Ethernet1           120
Et49/1        leaf2                    Ethernet0           120
Ma1           oob-sw                   Gi0/7               120
";
        let t = parse(text, "x.txt", "x");
        assert_eq!(t.device, "leaf1");
        assert_eq!(
            n(&t),
            [
                ("Ethernet1".into(), "spine1.lab.example".into(), "Ethernet1".into(), 10),
                ("Ethernet49/1".into(), "leaf2".into(), "Ethernet0".into(), 11),
                ("Management1".into(), "oob-sw".into(), "Gi0/7".into(), 12),
            ]
        );
        assert!(t.not_understood.is_empty(), "{:?}", t.not_understood);
    }

    #[test]
    fn sonic_show_lldp_table() {
        let text = "admin@leaf2:~$ show lldp table
Capability codes: (R) Router, (B) Bridge, (O) Other
LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr
-----------  --------------  -----------------  ------------  -----------------
Ethernet0    leaf1           Ethernet49/1       BR            to leaf2
Ethernet4    host2           ens1f0np0          R
--------------------------------------------------
Total entries displayed:  2
";
        let t = parse(text, "l2.lldp", "l2");
        assert_eq!(t.device, "leaf2");
        assert_eq!(
            n(&t),
            [
                ("Ethernet0".into(), "leaf1".into(), "Ethernet49/1".into(), 5),
                ("Ethernet4".into(), "host2".into(), "ens1f0np0".into(), 6)
            ]
        );
        assert!(t.not_understood.is_empty());
    }

    #[test]
    fn lldpctl_blocks_with_and_without_a_name() {
        let text = "root@host1:~# lldpctl
-------------------------------------------------------------------------------
LLDP neighbors:
-------------------------------------------------------------------------------
Interface:    ens1f0np0, via: LLDP, RID: 1, Time: 0 day, 02:10:44
  Chassis:
    ChassisID:    mac 44:38:39:00:00:10
    SysName:      leaf1
    SysDescr:     Arista Networks EOS version 4.24.2F running on an Arista DCS-7050SX3-48YC12
                  built 2020/06/11
    MgmtIP:       192.0.2.11
    Mood:         cheerful
    Capability:   Bridge, on
    Capability:   Router, on
  Port:
    PortID:       ifname Ethernet2
    PortDescr:    host1 port 0
    TTL:          120
-------------------------------------------------------------------------------
Interface:    eno1, via: LLDP, RID: 2, Time: 0 day, 02:10:40
  Chassis:
    ChassisID:    mac 44:38:39:00:00:99
  Port:
    PortID:       mac 44:38:39:00:00:99
-------------------------------------------------------------------------------
";
        let t = parse(text, "h.txt", "h");
        assert_eq!(t.device, "host1");
        assert_eq!(n(&t), [("ens1f0np0".into(), "leaf1".into(), "Ethernet2".into(), 5)]);
        let nu: Vec<(usize, &str)> = t.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(
            nu,
            [
                (12, "Mood:         cheerful"),
                (20, "Interface: eno1: the neighbour sends no SysName, so it cannot be named")
            ]
        );
    }

    #[test]
    fn stray_lines_are_reported_and_the_stem_names_the_device() {
        let text =
            "Port          Neighbor Device ID       Neighbor Port ID    TTL\nEt1 spine1 Ethernet1 120\nsomething odd\n";
        let t = parse(text, "leaf9.lldp.txt", "leaf9");
        assert_eq!(t.device, "leaf9");
        assert_eq!(t.neighbours.len(), 1);
        assert_eq!(t.not_understood[0].line, 3);
    }

    fn kinds(t: &LldpTable) -> Vec<PortIdKind> {
        t.neighbours.iter().map(|n| n.kind).collect()
    }

    /// A port ID with a space (a Windows or lldpd host's port description) is kept whole, and
    /// a MAC port ID in EOS's notation is marked as one.
    #[test]
    fn eos_table_keeps_port_ids_with_spaces_and_marks_macs() {
        let text = "leaf1#show lldp neighbors
Last table change time   : 0:00:13 ago
Number of table inserts  : 3
Number of table deletes  : 0
Number of table drops    : 0
Number of table age-outs : 0

Port          Neighbor Device ID       Neighbor Port ID    TTL
---------- ------------------------ ---------------------- ---
Et5           host3                    Slot 1 Port 1       120
Et6           host4                    248a.07aa.bbcc      120
Et7           host5                    Ethernet 2          120
";
        let t = parse(text, "leaf1.lldp", "x");
        assert_eq!(
            n(&t),
            [
                ("Ethernet5".into(), "host3".into(), "Slot 1 Port 1".into(), 10),
                ("Ethernet6".into(), "host4".into(), "24:8a:07:aa:bb:cc".into(), 11),
                ("Ethernet7".into(), "host5".into(), "Ethernet 2".into(), 12),
            ]
        );
        assert_eq!(kinds(&t), [PortIdKind::Name, PortIdKind::Mac, PortIdKind::Name]);
        assert!(t.not_understood.is_empty(), "{:?}", t.not_understood);
    }

    /// A row pushed out of its columns with more words than columns is reported with its line,
    /// not cut at a guess nor dropped.
    #[test]
    fn an_unaligned_row_that_cannot_be_split_is_reported() {
        let text = "Port          Neighbor Device ID       Neighbor Port ID    TTL
Et1           spine1                   Ethernet1           120
Et2           a-very-long-device-name.example.com Slot 1 Port 1 120
";
        let t = parse(text, "leaf1.lldp", "leaf1");
        assert_eq!(t.neighbours.len(), 1);
        assert_eq!(t.not_understood.len(), 1);
        assert_eq!(t.not_understood[0].line, 3);
        assert!(t.not_understood[0].text.contains("not aligned under its header"), "{}", t.not_understood[0].text);
    }

    #[test]
    fn eos_show_lldp_neighbors_detail() {
        let text = "leaf1#show lldp neighbors detail
Interface Ethernet1 detected 1 LLDP neighbors:

  Neighbor 001c.7300.0001/Ethernet7, age 12 seconds
  Discovered 2 days, 3:01:10 ago; Last changed 2 days, 3:01:08 ago
    - Chassis ID type: MAC address (4)
      Chassis ID     : 001c.7300.0001
    - Port ID type: Interface name (5)
      Port ID     : \"Ethernet7\"
    - Time To Live: 120 seconds
    - Port Description: \"to leaf1\"
    - System Name: \"spine1\"
    - System Description: \"Arista Networks EOS version 4.28.3M running on an Arista DCS-7050CX3-32S\"
    - IEEE802.1/IEEE802.3 Link Aggregation
      Link Aggregation Status: Capable, Enabled (0x03)
      Port ID                : 1000007
    - IEEE802.3 Maximum Frame Size: 9236 bytes

Interface Ethernet5 detected 1 LLDP neighbors:

  Neighbor 248a.07aa.bbcc/248a.07aa.bbcc, age 3 seconds
  Discovered 0:10:02 ago; Last changed 0:10:02 ago
    - Chassis ID type: MAC address (4)
      Chassis ID     : 248a.07aa.bbcc
    - Port ID type: MAC address (3)
      Port ID     : 248a.07aa.bbcc
    - Time To Live: 120 seconds
    - System Name: \"host3\"

Interface Ethernet6 detected 1 LLDP neighbors:

  Neighbor 248a.07aa.bbdd/3, age 3 seconds
    - Port ID type: Locally assigned (7)
      Port ID     : \"3\"
Interface Ethernet9 detected 0 LLDP neighbors:
";
        let t = parse(text, "x.txt", "x");
        assert_eq!(t.device, "leaf1");
        assert_eq!(
            n(&t),
            [
                ("Ethernet1".into(), "spine1".into(), "Ethernet7".into(), 4),
                ("Ethernet5".into(), "host3".into(), "24:8a:07:aa:bb:cc".into(), 21),
            ]
        );
        assert_eq!(kinds(&t), [PortIdKind::Name, PortIdKind::Mac]);
        let nu: Vec<(usize, &str)> = t.not_understood.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(nu, [(32, "Interface: Ethernet6: the neighbour sends no SysName, so it cannot be named")]);
    }

    /// SONiC's `show lldp table`: the management `eth0` row is read as written (the import
    /// leaves it out), a port alias is kept as the neighbour sends it, and empty capability and
    /// description columns do not shift the others.
    #[test]
    fn sonic_table_with_management_alias_and_empty_columns() {
        let text = "admin@leaf2:~$ show lldp table
Capability codes: (R) Router, (B) Bridge, (O) Other
LocalPort    RemoteDevice    RemotePortID    Capability    RemotePortDescr
-----------  --------------  --------------  ------------  -----------------
Ethernet0    spine1          etp3            BR            leaf2:etp1
Ethernet4    host2           Ethernet 2
eth0         oob-sw          Gi0/7           B             mgmt
-----------  --------------  --------------  ------------  -----------------
Total entries displayed:  3
";
        let t = parse(text, "l2.lldp", "l2");
        assert_eq!(
            n(&t),
            [
                ("Ethernet0".into(), "spine1".into(), "etp3".into(), 5),
                ("Ethernet4".into(), "host2".into(), "Ethernet 2".into(), 6),
                ("eth0".into(), "oob-sw".into(), "Gi0/7".into(), 7),
            ]
        );
        assert!(t.not_understood.is_empty(), "{:?}", t.not_understood);
    }

    /// lldpd's plain output: subtypes decide the kind, and an `ifname` with a space stays whole.
    #[test]
    fn lldpctl_subtypes_and_names_with_spaces() {
        let text = "-------------------------------------------------------------------------------
LLDP neighbors:
-------------------------------------------------------------------------------
Interface:    Ethernet8, via: LLDP, RID: 3, Time: 0 day, 00:41:02
  Chassis:
    ChassisID:    mac 24:8a:07:aa:bb:00
    SysName:      host7
  Port:
    PortID:       mac 24:8a:07:aa:bb:01
    PortDescr:    ens1f0np0
-------------------------------------------------------------------------------
Interface:    Ethernet12, via: LLDP, RID: 4, Time: 0 day, 00:41:02
  Chassis:
    SysName:      win1
  Port:
    PortID:       ifname Ethernet 5
-------------------------------------------------------------------------------
";
        let t = parse(text, "sonic1.lldp", "sonic1");
        assert_eq!(t.device, "sonic1");
        assert_eq!(
            n(&t),
            [
                ("Ethernet8".into(), "host7".into(), "24:8a:07:aa:bb:01".into(), 4),
                ("Ethernet12".into(), "win1".into(), "Ethernet 5".into(), 12),
            ]
        );
        assert_eq!(kinds(&t), [PortIdKind::Mac, PortIdKind::Name]);
        assert!(t.not_understood.is_empty(), "{:?}", t.not_understood);
    }

    #[test]
    fn lldpctl_keyvalue() {
        let text = "lldp.ens1f0np0.via=LLDP
lldp.ens1f0np0.rid=1
lldp.ens1f0np0.age=0 day, 01:02:03
lldp.ens1f0np0.chassis.mac=44:38:39:00:00:10
lldp.ens1f0np0.chassis.name=leaf1
lldp.ens1f0np0.chassis.Bridge.enabled=on
lldp.ens1f0np0.port.ifname=Ethernet2
lldp.ens1f0np0.port.descr=host1 port 0
lldp.ens1f0np0.port.mfs=9236
lldp.ens1f1np1.via=LLDP
lldp.ens1f1np1.chassis.name=leaf2
lldp.ens1f1np1.port.local=etp5
garbage line
";
        assert!(recognise(text));
        let t = parse(text, "host1.kv", "host1");
        assert_eq!(t.device, "host1");
        assert_eq!(
            n(&t),
            [
                ("ens1f0np0".into(), "leaf1".into(), "Ethernet2".into(), 1),
                ("ens1f1np1".into(), "leaf2".into(), "etp5".into(), 10),
            ]
        );
        assert_eq!(kinds(&t), [PortIdKind::Name, PortIdKind::Local]);
        let nu: Vec<usize> = t.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(nu, [13]);
    }

    #[test]
    fn prompts_name_their_device() {
        assert_eq!(prompt_device("leaf1#show lldp neighbors", &["show lldp"]).as_deref(), Some("leaf1"));
        assert_eq!(prompt_device("leaf1(config)# show lldp neighbors", &["show lldp"]).as_deref(), Some("leaf1"));
        assert_eq!(prompt_device("admin@sonic-l2:~$ show lldp table", &["show lldp"]).as_deref(), Some("sonic-l2"));
        assert_eq!(prompt_device("[root@h1 ~]# lldpctl", &["lldpctl"]).as_deref(), Some("h1"));
        assert_eq!(prompt_device("[lldpcli] # show neighbors", &["lldpctl"]), None);
        assert_eq!(prompt_device("show lldp neighbors", &["show lldp"]), None);
    }
}
