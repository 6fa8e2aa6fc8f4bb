//! The cabling LLDP tables give, and what the import says of it: each neighbour's port found by
//! name, alias (SONiC `PORT.<name>.alias`) or MAC address (`ip link`, `Get-NetAdapter`);
//! management ports (SONiC's and Onyx's `eth0`/`mgmt0`, EOS's `Management1`) left out and
//! counted, not taken for a data port; and every imported device left without a link reported
//! (`IMPORT-UNCABLED`), since the checks of links skip it.

use super::columns::{mac_text, parse_mac};
use super::lldp::{LldpTable, Neighbour, PortIdKind};
use super::{Builder, NotUnderstood};
use crate::finding::{Finding, Severity, SRC_LLDP};
use crate::state::{Origin, State};
use rocelab_model::fabric::Role;

/// Where the cabling's reports go.
pub(super) struct Out<'a> {
    pub not_understood: &'a mut Vec<NotUnderstood>,
    pub findings: &'a mut Vec<Finding>,
    pub ignored: &'a mut usize,
}

/// A switch's management port, which LLDP shows (the out-of-band network) but which carries no
/// fabric traffic: Linux's `eth0` on SONiC and Onyx (`mgmt0`), EOS's `Management1`/`Ma1`.
pub(super) fn is_management(role: Role, port: &str) -> bool {
    if role != Role::Switch {
        return false;
    }
    let lower = port.to_ascii_lowercase();
    // `eth0` and `mgmt0` are numbered plainly; Onyx's data ports are `Eth1/1`, with a slash.
    let plain = |rest: &str| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit());
    let slotted = |rest: &str| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '/');
    ["eth", "mgmt"].iter().any(|p| lower.strip_prefix(p).is_some_and(plain))
        || ["management", "ma"].iter().any(|p| lower.strip_prefix(p).is_some_and(slotted))
}

/// Cables what each LLDP table says, after the links file.
pub(super) fn cable_lldp(b: &mut Builder, tables: &[LldpTable], out: &mut Out) {
    for t in tables {
        let local = match b.find_device(&t.device) {
            Some(d) => d,
            None => b.add_host(&t.device),
        };
        out.not_understood.extend(t.not_understood.iter().cloned());
        for n in &t.neighbours {
            let bad = |why: String| NotUnderstood { file: t.file.clone(), line: n.line, text: why };
            let row = format!("{} {} {}", n.local_port, n.remote_device, n.remote_port);
            let Some(lp) = b.find_port(local, &n.local_port) else {
                if is_management(b.devices[local].role, &n.local_port) {
                    *out.ignored += 1;
                    continue;
                }
                out.not_understood.push(bad(format!(
                    "{row}: `{}` has no port `{}` in its configuration",
                    b.devices[local].name, n.local_port
                )));
                continue;
            };
            let remote = match b.find_device(&n.remote_device) {
                Some(d) => d,
                None => b.add_host(&n.remote_device),
            };
            let rp = match remote_port(b, remote, n) {
                Ok(p) => p,
                Err(None) => {
                    // The neighbour's management port (an out-of-band switch's table).
                    *out.ignored += 1;
                    continue;
                }
                Err(Some(why)) => {
                    out.findings.push(unmapped(b, local, lp, remote, n, &t.file, why));
                    continue;
                }
            };
            let origin = format!("{}:{}", t.file, n.line);
            if let Err(e) = b.cable((local, lp), (remote, rp), None, None, origin) {
                out.not_understood.push(bad(format!("{row}: {e}")));
            }
        }
    }
}

/// The neighbour's port a row names: by MAC address, alias or name. `Err(None)` for a
/// management port; `Err(Some(why))` when it cannot be found.
fn remote_port(b: &mut Builder, remote: usize, n: &Neighbour) -> Result<usize, Option<String>> {
    let (name, role, no_ports) = {
        let d = &b.devices[remote];
        (d.name.clone(), d.role, d.ports.is_empty())
    };
    if n.kind == PortIdKind::Mac {
        let mac = parse_mac(&n.remote_port).unwrap_or_default();
        if let Some((port, _)) = b.macs[remote].iter().find(|(_, m)| *m == mac) {
            let port = port.clone();
            return b.find_port(remote, &port).ok_or_else(|| {
                Some(format!("`{name}` has no port `{port}` (MAC {}) in its configuration", n.remote_port))
            });
        }
        // A host whose capture names no port takes any port the cabling names: the MAC names it.
        if no_ports && b.macs[remote].is_empty() {
            if let Some(p) = b.find_port(remote, &n.remote_port) {
                return Ok(p);
            }
        }
        let shown: Vec<String> = b.macs[remote].iter().map(|(p, m)| format!("{p} {}", mac_text(m))).collect();
        return Err(Some(if shown.is_empty() {
            format!(
                "the port ID is MAC address {}, and `{}`'s output shows no MAC addresses to find the port by",
                n.remote_port, name
            )
        } else {
            format!("no port of `{name}` has MAC address {} (its output shows {})", n.remote_port, shown.join(", "))
        }));
    }
    if let Some(p) = b.find_port(remote, &n.remote_port) {
        return Ok(p);
    }
    if is_management(role, &n.remote_port) {
        return Err(None);
    }
    let dev = &b.devices[remote];
    let known: Vec<&str> = dev.ports.iter().map(|p| p.name.as_str()).collect();
    let hint = rocelab_model::diag::did_you_mean(&n.remote_port, known.iter().copied())
        .map(|h| format!("; {h}"))
        .unwrap_or_default();
    Err(Some(format!("`{}` has no port `{}` in its configuration{hint}", dev.name, n.remote_port)))
}

/// `IMPORT-LLDP-PORT`: a neighbour's port that cannot be placed, so the link is left out.
fn unmapped(b: &Builder, local: usize, lp: usize, remote: usize, n: &Neighbour, file: &str, why: String) -> Finding {
    let d = &b.devices[local];
    let mac = n.kind == PortIdKind::Mac;
    Finding {
        id: "IMPORT-LLDP-PORT",
        severity: Severity::Warning,
        device: d.name.clone(),
        port: Some(d.ports[lp].name.clone()),
        class: None,
        what: format!(
            "LLDP shows `{}` on this port, port ID `{}`, but {why}; the link is left out",
            b.devices[remote].name, n.remote_port
        ),
        why: "the checks of a link (PFC, trust, MTU, headroom on both ends) need to know which port is at its far end"
            .into(),
        fix: if mac {
            "add the host's `ip link` (Linux) or `Get-NetAdapter` (Windows) output to its capture, or list the link in a links file"
                .into()
        } else {
            "check the neighbour's port name (an alias needs the neighbour's configuration, SONiC `PORT.<name>.alias`), or list the link in a links file".into()
        },
        source: SRC_LLDP,
        location: Some(Origin { file: file.into(), line: n.line }),
    }
}

/// `IMPORT-UNCABLED`: each imported device (one with a configuration file) with no link at all.
pub(super) fn uncabled(s: &State) -> Vec<Finding> {
    s.devices
        .iter()
        .enumerate()
        .filter(|(_, d)| d.origin.is_some() && d.ports.iter().all(|p| p.link.is_none()))
        .map(|(_, d)| Finding {
            id: "IMPORT-UNCABLED",
            severity: Severity::Error,
            device: d.name.clone(),
            port: None,
            class: None,
            what: format!(
                "`{}` was imported but no link reaches it: no LLDP table or links file names it, or every row that does was not understood",
                d.name
            ),
            why: "every check of a link skips a device with none, so its configuration is not checked at all".into(),
            fix: format!(
                "add LLDP neighbour output that names `{}` (its own, or its switch's), or list its links in a links file; see the lines reported as not understood above",
                d.name
            ),
            source: SRC_LLDP,
            location: d.origin.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{build, lldp, sonic, DeviceConfig, Imported};
    use crate::state::PortQos;
    use rocelab_model::units::Rate;

    const SONIC: &str = r#"{
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}},
    "PORT": {
        "Ethernet0": {"alias": "etp1", "lanes": "0,1,2,3", "speed": "100000"},
        "Ethernet4": {"alias": "etp2", "lanes": "4,5,6,7", "speed": "100000"}
    }
}"#;

    fn switch(name: &str, ports: &[&str]) -> DeviceConfig {
        let mut c = DeviceConfig::switch(name.into(), "arista-eos", &format!("{name}.cfg"));
        c.ports = ports.iter().map(|p| (p.to_string(), Rate::gbps(100), PortQos::unconfigured(9214), 2)).collect();
        c
    }

    fn host(name: &str, ports: &[&str], macs: &[(&str, &str)]) -> DeviceConfig {
        let mut c = switch(name, ports);
        c.role = Role::Host;
        c.macs = macs.iter().map(|(p, m)| (p.to_string(), parse_mac(m).unwrap())).collect();
        c
    }

    fn links(i: &Imported) -> Vec<String> {
        let s = &i.state;
        let mut v: Vec<String> = s
            .links
            .iter()
            .map(|l| {
                let e = |e| format!("{}:{}", s.device(e).name, s.port(e).name);
                let mut ends = [e(l.a), e(l.b)];
                ends.sort();
                ends.join(" - ")
            })
            .collect();
        v.sort();
        v
    }

    use super::*;

    /// SONiC's management `eth0` is not `Ethernet0` (no link is invented, the row is counted
    /// as ignored), and a port alias (`etp2`) a neighbour sends names the SONiC port.
    #[test]
    fn sonic_eth0_is_management_and_aliases_name_ports() {
        let sonic_lldp = "admin@leaf2:~$ show lldp table
LocalPort    RemoteDevice    RemotePortID    Capability    RemotePortDescr
-----------  --------------  --------------  ------------  -----------------
Ethernet0    leaf1           Ethernet1       BR
eth0         leaf1           Management1     BR
";
        let eos_lldp = "leaf1#show lldp neighbors
Port          Neighbor Device ID       Neighbor Port ID    TTL
---------- ------------------------ ---------------------- ---
Et1           leaf2                    etp1                120
Et2           leaf2                    etp2                120
Ma1           leaf2                    eth0                120
";
        let configs = vec![sonic::parse(SONIC, "leaf2.json", "leaf2"), switch("leaf1", &["Ethernet1", "Ethernet2"])];
        let tables = [lldp::parse(sonic_lldp, "leaf2.lldp", "x"), lldp::parse(eos_lldp, "leaf1.lldp", "x")];
        let i = build(configs, None, &tables, "t").unwrap();
        assert_eq!(links(&i), ["leaf1:Ethernet1 - leaf2:Ethernet0", "leaf1:Ethernet2 - leaf2:Ethernet4"]);
        assert!(i.not_understood.is_empty(), "{:?}", i.not_understood);
        assert!(i.findings.is_empty(), "{:?}", i.findings);
        // Both management rows.
        assert_eq!(i.ignored, 2);
    }

    /// MAC port IDs are placed on the host port with that MAC; without MACs to go by, the link
    /// is an `IMPORT-LLDP-PORT` finding at the row's line, and the host left without any link an
    /// `IMPORT-UNCABLED` error.
    #[test]
    fn mac_port_ids_map_through_the_hosts_macs_or_are_findings() {
        let eos_lldp = "leaf1#show lldp neighbors
Port          Neighbor Device ID       Neighbor Port ID    TTL
---------- ------------------------ ---------------------- ---
Et1           host1                    248a.07aa.bb02      120
Et2           host2                    24:8a:07:aa:bb:03   120
";
        let configs = vec![
            switch("leaf1", &["Ethernet1", "Ethernet2"]),
            host(
                "host1",
                &["SLOT 2 Port 1", "SLOT 2 Port 2"],
                &[("SLOT 2 Port 1", "24-8A-07-AA-BB-01"), ("SLOT 2 Port 2", "24-8A-07-AA-BB-02")],
            ),
            host("host2", &["ens1f0np0"], &[]),
        ];
        let tables = [lldp::parse(eos_lldp, "leaf1.lldp", "x")];
        let i = build(configs, None, &tables, "t").unwrap();
        assert_eq!(links(&i), ["host1:SLOT 2 Port 2 - leaf1:Ethernet1"]);
        let f: Vec<(&str, &str, Option<&str>, usize)> = i
            .findings
            .iter()
            .map(|f| (f.id, f.device.as_str(), f.port.as_deref(), f.location.as_ref().map_or(0, |o| o.line)))
            .collect();
        assert_eq!(f, [("IMPORT-LLDP-PORT", "leaf1", Some("Ethernet2"), 5), ("IMPORT-UNCABLED", "host2", None, 1)]);
        assert!(i.findings[0].what.contains("shows no MAC addresses"), "{}", i.findings[0].what);
        assert_eq!(i.findings[1].severity, Severity::Error);
    }

    /// End to end: a switch's LLDP names a Windows host's and a Linux host's ports by MAC
    /// (lldpd's `PortID: mac …`); `Get-NetAdapter` and `ip link` in the hosts' captures place
    /// them on the adapters.
    #[test]
    fn windows_and_linux_captures_place_mac_port_ids() {
        let lldp_text = "admin@leaf2:~$ show lldp neighbors
LLDP neighbors:
Interface:    Ethernet0, via: LLDP, RID: 1, Time: 0 day, 00:10:00
  Chassis:
    SysName:      win1
  Port:
    PortID:       mac 24:8a:07:aa:bb:02
Interface:    Ethernet4, via: LLDP, RID: 2, Time: 0 day, 00:10:00
  Chassis:
    SysName:      node3
  Port:
    PortID:       mac 0c:42:a1:12:34:56
";
        let win = "PS C:\\> Get-NetAdapter
Name                      InterfaceDescription                    ifIndex Status       MacAddress             LinkSpeed
----                      --------------------                    ------- ------       ----------             ---------
SLOT 2 Port 1             Mellanox ConnectX-6 Dx Adapter               12 Up           24-8A-07-AA-BB-01       100 Gbps
SLOT 2 Port 2             Mellanox ConnectX-6 Dx Adapter #2            14 Up           24-8A-07-AA-BB-02       100 Gbps
PS C:\\> Get-NetAdapterQos
Name                       : SLOT 2 Port 1
Enabled                    : True

Name                       : SLOT 2 Port 2
Enabled                    : True
";
        let linux = "[root@node3 ~]# ip link show ens1f0np0
4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:12:34:56 brd ff:ff:ff:ff:ff:ff
[root@node3 ~]# mlnx_qos -i ens1f0np0
DCBX mode: OS controlled
Priority trust state: dscp
PFC configuration:
\tpriority    0   1   2   3   4   5   6   7
\tenabled     0   0   0   1   0   0   0   0
";
        let configs = vec![
            sonic::parse(SONIC, "leaf2.json", "leaf2"),
            super::super::windows::parse(win, "win1.txt", "win1"),
            super::super::mlnx_qos::parse(linux, "node3.txt", "node3"),
        ];
        let i = build(configs, None, &[lldp::parse(lldp_text, "leaf2.lldp", "leaf2")], "t").unwrap();
        assert_eq!(links(&i), ["leaf2:Ethernet0 - win1:SLOT 2 Port 2", "leaf2:Ethernet4 - node3:ens1f0np0"]);
        assert!(i.findings.is_empty(), "{:?}", i.findings);
        assert!(i.not_understood.is_empty(), "{:?}", i.not_understood);
    }

    /// A host whose capture names no port (QoS for any port) takes the MAC as its port's name.
    #[test]
    fn a_host_without_named_ports_takes_the_mac_as_the_port() {
        let eos_lldp = "Port          Neighbor Device ID       Neighbor Port ID    TTL
Et1           host1                    248a.07aa.bb02      120
";
        let mut h = host("host1", &[], &[]);
        h.default_port = Some(PortQos::unconfigured(0));
        let configs = vec![switch("leaf1", &["Ethernet1"]), h];
        let i = build(configs, None, &[lldp::parse(eos_lldp, "leaf1.lldp", "leaf1")], "t").unwrap();
        assert_eq!(links(&i), ["host1:24:8a:07:aa:bb:02 - leaf1:Ethernet1"]);
        assert!(i.findings.is_empty(), "{:?}", i.findings);
    }

    /// A switch imported with no LLDP row or link naming it is an error, not silence.
    #[test]
    fn an_imported_device_without_links_is_a_finding() {
        let eos_lldp = "Port          Neighbor Device ID       Neighbor Port ID    TTL
Et1           spine1                   Ethernet1           120
";
        let configs =
            vec![switch("leaf1", &["Ethernet1"]), switch("spine1", &["Ethernet1"]), switch("leaf9", &["Ethernet1"])];
        let i = build(configs, None, &[lldp::parse(eos_lldp, "leaf1.lldp", "leaf1")], "t").unwrap();
        let f: Vec<(&str, &str)> = i.findings.iter().map(|f| (f.id, f.device.as_str())).collect();
        assert_eq!(f, [("IMPORT-UNCABLED", "leaf9")]);
        assert_eq!(i.findings[0].location.as_ref().map(|o| o.file.as_str()), Some("leaf9.cfg"));
    }

    #[test]
    fn management_ports_by_platform() {
        for p in ["eth0", "mgmt0", "Management1", "Ma1", "Management1/1"] {
            assert!(is_management(Role::Switch, p), "{p}");
        }
        for p in ["Ethernet0", "Eth1/1", "etp1", "ens1f0np0"] {
            assert!(!is_management(Role::Switch, p), "{p}");
        }
        assert!(!is_management(Role::Host, "eth0"));
    }
}
