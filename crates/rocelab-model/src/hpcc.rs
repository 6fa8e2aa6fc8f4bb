//! Import of the ns-3 HPCC simulator's topology format, read as it is, so that researchers can
//! bring their experiments over and compare the two simulators on the same input.
//!
//! ```text
//! <nodes> <switches> <links>
//! <switch id> <switch id> ...
//! <a> <b> <rate> <delay> <error rate>     (one line per link, e.g. `0 320 100Gbps 1000ns 0`)
//! ```
//! Nodes that are not listed as switches are hosts. Hosts are named `h<id>`, switches `s<id>`;
//! ports are numbered per node in link order (`p0`, `p1`, … on hosts; the platform's names on
//! switches).

use crate::columns::columns;
use crate::diag::{Diagnostic, Mark};
use crate::fabric::{Device, Link, Nic, NicVendor, Os, Platform, PortGroup, Role};
use crate::units::{Length, Rate, Size, Time};

pub fn host_name(id: usize) -> String {
    format!("h{id}")
}
pub fn switch_name(id: usize) -> String {
    format!("s{id}")
}

/// Devices, links, and warnings about the file.
pub type Imported = (Vec<Device>, Vec<Link>, Vec<Diagnostic>);

/// Parses HPCC topology text into devices and links. Every problem is reported with its line
/// and column in the topology file.
pub fn parse_topology(text: &str, platform: Platform, buffer: Option<Size>) -> Result<Imported, Vec<Diagnostic>> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());
    let at = |line: usize, col: usize| Mark { line, column: col };
    let err = |line: usize, col: usize, msg: String| vec![Diagnostic::error(at(line, col), "", msg)];

    let Some((l1, header)) = lines.next() else {
        return Err(err(1, 1, "empty HPCC topology file".into()));
    };
    let head: Vec<&str> = header.split_whitespace().collect();
    let nums: Vec<Option<usize>> = head.iter().map(|t| t.parse().ok()).collect();
    let (nodes, nswitch, nlinks) = match nums.as_slice() {
        [Some(n), Some(s), Some(l)] => (*n, *s, *l),
        _ => {
            return Err(vec![Diagnostic::error(at(l1, 1), "", format!("first line is `{}`", header.trim()))
                .expected("`<nodes> <switches> <links>`, three whole numbers")])
        }
    };
    if nodes > 1_000_000 || nlinks > 10_000_000 || nswitch > nodes {
        return Err(err(l1, 1, format!("implausible sizes: {nodes} nodes, {nswitch} switches, {nlinks} links")));
    }
    let mut is_switch = vec![false; nodes];
    let mut switch_count = 0;
    let mut diags = Vec::new();
    if nswitch > 0 {
        let Some((l2, ids)) = lines.next() else {
            return Err(err(l1 + 1, 1, format!("missing the line of {nswitch} switch ids")));
        };
        for (col, tok) in columns(ids) {
            match tok.parse::<usize>() {
                Ok(id) if id < nodes => {
                    if !is_switch[id] {
                        switch_count += 1;
                    }
                    is_switch[id] = true;
                }
                _ => diags.push(Diagnostic::error(at(l2, col), "", format!("`{tok}` is not a node id below {nodes}"))),
            }
        }
        if switch_count != nswitch && diags.is_empty() {
            diags.push(Diagnostic::error(
                at(l2, 1),
                "",
                format!("{switch_count} switch ids listed, the first line says {nswitch}"),
            ));
        }
    }

    let mut devices: Vec<Device> = (0..nodes)
        .map(|id| {
            if is_switch[id] {
                Device {
                    name: switch_name(id),
                    role: Role::Switch,
                    platform: Some(platform),
                    model: None,
                    os: None,
                    os_version: None,
                    nics: Vec::new(),
                    ports: Vec::new(),
                    buffer,
                    storage: None,
                    vxlan: None,
                    bonding: None,
                    tcp: None,
                    cpu: None,
                }
            } else {
                Device {
                    name: host_name(id),
                    role: Role::Host,
                    platform: None,
                    model: None,
                    os: Some(Os::Linux),
                    os_version: None,
                    nics: Vec::new(),
                    ports: Vec::new(),
                    buffer: None,
                    storage: None,
                    vxlan: None,
                    bonding: None,
                    tcp: None,
                    cpu: None,
                }
            }
        })
        .collect();
    let mut host_ports: Vec<Vec<Rate>> = vec![Vec::new(); nodes];
    let mut links = Vec::new();
    let port_name = |devices: &mut Vec<Device>, host_ports: &mut Vec<Vec<Rate>>, id: usize, rate: Rate| -> String {
        if is_switch[id] {
            let d = &mut devices[id];
            let name = platform.port_name(d.ports.len() as u32 + 1, rate);
            d.ports.push(PortGroup { names: name.clone(), speed: rate, speeds: Vec::new() });
            format!("{}:{name}", d.name)
        } else {
            host_ports[id].push(rate);
            format!("{}:p{}", devices[id].name, host_ports[id].len() - 1)
        }
    };
    let mut seen = 0;
    let mut lines = lines.peekable();
    while let Some((ln, line)) = lines.next() {
        if seen == nlinks {
            // The HPCC simulator reads exactly the declared number of links; so does the import.
            let rest = 1 + lines.count();
            diags.push(Diagnostic::warning(
                at(ln, 1),
                "",
                format!(
                    "{rest} lines after the {nlinks} declared links are ignored, as the HPCC simulator ignores them"
                ),
            ));
            break;
        }
        let cols: Vec<(usize, &str)> = columns(line).collect();
        if cols.len() < 4 {
            diags.push(
                Diagnostic::error(at(ln, 1), "", format!("link line `{}` has {} fields", line.trim(), cols.len()))
                    .expected("`<a> <b> <rate> <delay> [error rate]`"),
            );
            continue;
        }
        seen += 1;
        let node = |i: usize| -> Result<usize, Diagnostic> {
            let (c, t) = cols[i];
            match t.parse::<usize>() {
                Ok(id) if id < nodes => Ok(id),
                _ => Err(Diagnostic::error(at(ln, c), "", format!("`{t}` is not a node id below {nodes}"))),
            }
        };
        // One error per line: the first bad field; what follows it on the line is not read.
        let (a, b) = match (node(0), node(1)) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                diags.extend(a.err().or(b.err()));
                continue;
            }
        };
        let rate = match cols[2].1.parse::<Rate>() {
            Ok(r) if r.0 > 0 => r,
            Ok(_) => {
                diags.push(Diagnostic::error(at(ln, cols[2].0), "", "link rate is zero"));
                continue;
            }
            Err(e) => {
                diags.push(Diagnostic::error(at(ln, cols[2].0), "", e.message));
                continue;
            }
        };
        let delay = match cols[3].1.parse::<Time>().and_then(|d| crate::units::check_delay(d).map(|()| d)) {
            Ok(d) => d,
            Err(e) => {
                diags.push(Diagnostic::error(at(ln, cols[3].0), "", e.message));
                continue;
            }
        };
        if let Some((c, t)) = cols.get(4) {
            match t.parse::<f64>() {
                Ok(e) => {
                    if e != 0.0 {
                        diags.push(Diagnostic::warning(
                            at(ln, *c),
                            "",
                            format!("error rate {t} ignored: rocelab models loss from buffers, not from bit errors"),
                        ))
                    }
                }
                Err(_) => diags.push(Diagnostic::error(at(ln, *c), "", format!("`{t}` is not an error rate"))),
            }
        }
        if a == b {
            diags.push(Diagnostic::error(at(ln, cols[0].0), "", format!("link from node {a} to itself")));
            continue;
        }
        let pa = port_name(&mut devices, &mut host_ports, a, rate);
        let pb = port_name(&mut devices, &mut host_ports, b, rate);
        links.push(Link {
            a: pa,
            b: pb,
            speed: Some(rate),
            cable: Some(Length::from_propagation(delay)),
            delay: Some(delay),
        });
    }
    if seen != nlinks && diags.iter().all(|d| !d.is_error()) {
        diags.push(Diagnostic::error(
            at(l1, 1),
            "",
            format!("the first line says {nlinks} links, the file has {seen}"),
        ));
    }
    for (id, rates) in host_ports.into_iter().enumerate() {
        if is_switch[id] || rates.is_empty() {
            continue;
        }
        devices[id].nics.push(Nic {
            vendor: NicVendor::Nvidia,
            model: "ConnectX-6".into(),
            ports: rates.len() as u32,
            speed: rates[0],
            speeds: rates[1..].iter().copied().filter(|r| *r != rates[0]).collect(),
            rdma: None,
            port_names: Vec::new(),
            addresses: Vec::new(),
            transport: None,
        });
    }
    // Hosts without links have no NIC: drop them rather than invent one.
    devices.retain(|d| d.role == Role::Switch || !d.nics.is_empty());
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    Ok((devices, links, diags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_topology_reads_as_written() {
        let text = "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 25Gbps 0.001ms 0.000000\n";
        let (d, l, _) = parse_topology(text, Platform::Generic, None).unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(l[0].a, "h0:p0");
        assert_eq!(l[0].b, "s2:p1");
        assert_eq!(l[1].b, "s2:p2");
        assert_eq!(l[1].speed, Some(Rate::gbps(25)));
        assert_eq!(l[1].delay, Some(Time::us(1)));
        assert_eq!(l[1].cable, Some(Length::metres(200)));
    }

    #[test]
    fn bad_lines_are_located() {
        let text = "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 7 fast 1us 0\n";
        let e = parse_topology(text, Platform::Generic, None).unwrap_err();
        assert_eq!((e[0].line, e[0].column), (4, 3));
        assert!(e[0].message.contains("not a node id"), "{}", e[0].message);
        let e = parse_topology("x y\n", Platform::Generic, None).unwrap_err();
        assert!(e[0].expected.as_deref().unwrap().contains("<nodes>"));
        let e = parse_topology("", Platform::Generic, None).unwrap_err();
        assert!(e[0].message.contains("empty"));
    }

    /// A delay of hours stood for a cable of billions of kilometres: it is an error at its column.
    #[test]
    fn a_delay_past_the_longest_cable_is_located() {
        let e =
            parse_topology("3 1 2\n2\n0 2 100Gbps 18000s 0\n1 2 25Gbps 1us 0\n", Platform::Generic, None).unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!((e[0].line, e[0].column), (3, 13));
        assert!(
            e[0].message.contains("longer than the longest cable rocelab models: 1000 km, 5ms"),
            "{}",
            e[0].message
        );
        assert!(parse_topology("3 1 1\n2\n0 2 100Gbps 5ms 0\n", Platform::Generic, None).is_ok());
    }
}
