//! LLDP neighbour tables as the cabling of imported devices: each device's view of who is on
//! each of its ports. Three outputs are read, recognised from their content:
//!
//! - Arista EOS `show lldp neighbors`: a table `Port  Neighbor Device ID  Neighbor Port ID  TTL`
//!   with EOS's short port names (`Et1`, `Et49/1`, `Ma1`), preceded by the table counters
//!   (`Last table change time`, `Number of table inserts`, …);
//! - SONiC `show lldp table`: `LocalPort  RemoteDevice  RemotePortID  Capability
//!   RemotePortDescr`, with the capability legend above and `Total entries displayed` below;
//! - lldpd's `lldpctl` / `lldpcli show neighbors [details]` (also what SONiC's
//!   `show lldp neighbors` prints): blocks `Interface: eth0, via: LLDP, …` with `SysName:` under
//!   `Chassis:` and `PortID: ifname Ethernet1` (or `mac …`, `local …`) under `Port:`.
//!
//! The local device is the one the prompt names when the capture includes it
//! (`leaf1#show lldp neighbors`, `admin@leaf2:~$ show lldp table`, `root@host1:~# lldpctl`),
//! else the file's name up to its first dot. Every line that is neither part of the format nor
//! a neighbour is reported with its line.

use super::NotUnderstood;

/// One neighbour seen on a local port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    pub local_port: String,
    pub remote_device: String,
    pub remote_port: String,
    pub line: usize,
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

/// Whether the text is LLDP neighbour output of a kind rocelab reads.
pub fn recognise(text: &str) -> bool {
    let has = |s: &str| text.contains(s);
    (has("Neighbor Device ID") && has("Neighbor Port ID"))
        || (has("LocalPort") && has("RemoteDevice") && has("RemotePortID"))
        || (has("LLDP neighbors:") && text.lines().any(|l| l.trim_start().starts_with("Interface:")))
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

/// Parses one capture; `stem` names the device when no prompt does.
pub fn parse(text: &str, file: &str, stem: &str) -> LldpTable {
    let mut device = None;
    let mut neighbours = Vec::new();
    let mut bad = Vec::new();
    let mut report =
        |line: usize, text: &str| bad.push(NotUnderstood { file: file.into(), line, text: text.trim().to_string() });
    let lldpd = text.contains("LLDP neighbors:");
    // lldpd blocks: the current interface and what has been read of its neighbour.
    let mut cur: Option<(usize, String, Option<String>, Option<String>)> = None;
    let flush = |cur: &mut Option<(usize, String, Option<String>, Option<String>)>,
                 neighbours: &mut Vec<Neighbour>,
                 report: &mut dyn FnMut(usize, &str)| {
        if let Some((line, port, name, pid)) = cur.take() {
            match (name, pid) {
                (Some(n), Some(p)) => {
                    neighbours.push(Neighbour { local_port: port, remote_device: n, remote_port: p, line })
                }
                (None, _) => {
                    report(line, &format!("Interface: {port}: the neighbour sends no SysName, so it cannot be named"))
                }
                (_, None) => report(line, &format!("Interface: {port}: the neighbour sends no PortID")),
            }
        }
    };
    let mut table_header = false;
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
        if lldpd {
            if t == "LLDP neighbors:" {
                continue;
            }
            if let Some(rest) = t.strip_prefix("Interface:") {
                flush(&mut cur, &mut neighbours, &mut report);
                let port = rest.split(',').next().unwrap_or_default().trim().to_string();
                if port.is_empty() {
                    report(n, t);
                } else {
                    cur = Some((n, port, None, None));
                }
                field_indent = indent;
                continue;
            }
            let Some(c) = cur.as_mut() else {
                report(n, t);
                continue;
            };
            match t.split_once(':') {
                Some(("SysName", v)) => c.2 = Some(v.trim().to_string()),
                Some(("PortID", v)) => {
                    // `ifname Ethernet1`, `mac 0c:…`, `local 3`: the value after the subtype.
                    let v = v.trim();
                    let id = v.split_once(' ').map(|(_, id)| id.trim()).unwrap_or(v);
                    c.3 = Some(id.to_string());
                }
                // The rest of what lldpd prints about a neighbour does not bear on the cabling.
                Some((k, _)) if LLDPD_FIELDS.contains(&k.trim()) => {}
                // A value continued on the next lines (a long SysDescr) is indented deeper
                // than its field.
                _ if indent > field_indent => continue,
                _ => report(n, t),
            }
            field_indent = indent;
            continue;
        }
        let cols: Vec<&str> = t.split_whitespace().collect();
        // Headers and the lines around the tables.
        if (t.starts_with("Port") && t.contains("Neighbor Device ID"))
            || (t.starts_with("LocalPort") && t.contains("RemoteDevice"))
        {
            table_header = true;
            continue;
        }
        if t.starts_with("Last table change time")
            || t.starts_with("Number of table")
            || t.starts_with("Capability codes:")
            || t.starts_with("Total entries displayed")
        {
            continue;
        }
        if !table_header || cols.len() < 3 {
            report(n, t);
            continue;
        }
        let eos = text.contains("Neighbor Device ID");
        neighbours.push(Neighbour {
            local_port: if eos { eos_port(cols[0]) } else { cols[0].to_string() },
            remote_device: cols[1].to_string(),
            remote_port: cols[2].to_string(),
            line: n,
        });
    }
    flush(&mut cur, &mut neighbours, &mut report);
    LldpTable { device: device.unwrap_or_else(|| stem.to_string()), file: file.into(), neighbours, not_understood: bad }
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
