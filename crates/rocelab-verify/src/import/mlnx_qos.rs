//! `mlnx_qos -i IF` output: the QoS of one NVIDIA ConnectX port (MLNX_OFED's `mlnx_qos` tool,
//! NVIDIA DOC-2792 "mlnx_qos" and the MLNX_OFED user manual, "Quality of Service").
//!
//! Understood:
//! - `DCBX mode: OS controlled` (the host's settings are used: not willing) or `Firmware
//!   controlled` (the adapter's firmware runs DCBX and takes the switch's settings: willing);
//! - `Priority trust state: pcp|dscp` (older releases: `Marking state:`);
//! - `dscp2prio mapping:` and its `prio:P dscp:D,D,…` lines;
//! - `PFC configuration:` with its `priority`, `enabled` and `buffer` rows (the buffer a
//!   priority is received into is its priority group);
//! - `tc: T ratelimit: R, tsa: ets|strict|vendor[, bw: N%]` and the `priority: P` lines under it
//!   (priority → traffic class; `vendor` is the adapter's default, no ETS share);
//! - `default priority:`, `Receive buffer size (bytes): …`, `Cable len: N` (the adapter's own
//!   buffer settings; they do not bear on the fabric's checks).
//!
//! The capture names its port when it includes the command (`# mlnx_qos -i ens1f0np0`, with
//! or without a prompt naming the host); otherwise the port is the one the cabling names. The
//! output does not show the adapter's RoCE ToS, CNP priority or DCQCN points (they are set in
//! sysfs and `cma_roce_tos`), so those checks skip the port. The MTU is not shown either: the
//! port is taken to have the MTU of its link's other end. Everything else is reported.
//!
//! The capture may also hold `ip link [show IF]` output (iproute2's format, ip-link(8):
//! `4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP …` then
//! `    link/ether 0c:42:a1:12:34:56 brd ff:ff:ff:ff:ff:ff`, with `altname` lines on newer
//! releases): each interface's MAC address then places an LLDP neighbour that names the port
//! by its MAC (lldpd's `PortID: mac …`), and the MTU of the interface the capture names is the
//! port's.

use super::columns::parse_mac;
use super::{DeviceConfig, NotUnderstood};
use crate::state::{HostRdma, PortQos, Sched};
use rocelab_model::fabric::Role;
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

pub fn recognise(text: &str) -> bool {
    text.contains("PFC configuration:")
        && (text.contains("trust state:") || text.contains("ratelimit:") || text.contains("DCBX mode:"))
}

/// `4: ens1f0np0: <BROADCAST,…> mtu 9000 …` (an `ip link` interface line): (name, MTU).
fn ip_link_header(line: &str) -> Option<(String, Option<u32>)> {
    let (index, rest) = line.split_once(": ")?;
    index.parse::<u32>().ok()?;
    let (name, rest) = rest.split_once(": ")?;
    if !rest.starts_with('<') {
        return None;
    }
    // `bond0.100@bond0`: the part before the `@` names the interface.
    let name = name.split('@').next().unwrap_or(name).to_string();
    let w: Vec<&str> = rest.split_whitespace().collect();
    let mtu = w.iter().position(|x| *x == "mtu").and_then(|i| w.get(i + 1)).and_then(|m| m.parse().ok());
    Some((name, mtu))
}

/// Parses one capture; `stem` names the host when no prompt does.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    let mut q = PortQos::unconfigured(0);
    q.host = Some(HostRdma::default());
    let mut host = None;
    let mut port: Option<(String, usize)> = None;
    let mut bad = Vec::new();
    let mut tc: Option<usize> = None;
    let mut pfc_prios: Vec<u8> = Vec::new();
    let mut seen_trust = false;
    // `ip link` output: the interface being read, and what it shows.
    let mut iface: Option<String> = None;
    let mut macs = Vec::new();
    let mut mtus: Vec<(String, u32)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let t = raw.trim();
        let mut report = |why: &str| {
            bad.push(NotUnderstood {
                file: file.into(),
                line: n,
                text: if why.is_empty() { t.to_string() } else { format!("{t} ({why})") },
            })
        };
        if t.is_empty() {
            continue;
        }
        if let Some((name, mtu)) = ip_link_header(t) {
            mtus.extend(mtu.map(|m| (name.clone(), m)));
            iface = Some(name);
            continue;
        }
        if let (Some(rest), Some(name)) = (t.strip_prefix("link/ether "), &iface) {
            match rest.split_whitespace().next().and_then(parse_mac) {
                Some(m) => macs.push((name.clone(), m)),
                None => report("expected link/ether MAC"),
            }
            continue;
        }
        // `link/loopback`, `link/infiniband`, …: no Ethernet address to place a port by.
        if (t.starts_with("altname ") || t.starts_with("link/")) && iface.is_some() {
            continue;
        }
        if t.contains("ip link") || t.contains("ip -d link") {
            continue;
        }
        if let Some(at) = t.find("mlnx_qos") {
            let w: Vec<&str> = t[at..].split_whitespace().collect();
            if let Some(i) = w.iter().position(|x| *x == "-i" || *x == "--interface") {
                if let Some(p) = w.get(i + 1) {
                    port = Some((p.to_string(), n));
                }
            }
            if let Some(h) = super::lldp::prompt_device(t, &["mlnx_qos"]) {
                host = Some(h);
            }
            continue;
        }
        let (key, value) = match t.split_once(':') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (t, ""),
        };
        match key {
            "DCBX mode" => match value {
                "OS controlled" => q.dcbx_willing = Some(false),
                "Firmware controlled" => q.dcbx_willing = Some(true),
                _ => report("expected OS controlled or Firmware controlled"),
            },
            "Priority trust state" | "Marking state" | "Priority trust mode" => {
                seen_trust = true;
                match value {
                    "pcp" => q.trust = Marking::Pcp,
                    "dscp" => q.trust = Marking::Dscp,
                    _ => report("expected pcp or dscp"),
                }
            }
            "dscp2prio mapping" | "default priority" | "PFC configuration" => {}
            "Receive buffer size (bytes)" | "Cable len" => {}
            "tc" => {
                // `tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%`
                let fields: Vec<&str> = t.split(',').map(str::trim).collect();
                let index =
                    fields[0].split_whitespace().nth(1).and_then(|x| x.parse::<usize>().ok()).filter(|x| *x < 8);
                let tsa = fields.iter().find_map(|f| f.strip_prefix("tsa:")).map(str::trim);
                let bw = fields.iter().find_map(|f| f.strip_prefix("bw:")).map(|b| b.trim().trim_end_matches('%'));
                match (index, tsa, bw.map(str::parse::<u8>)) {
                    (Some(x), Some("ets"), Some(Ok(b))) if b <= 100 => q.sched[x] = Sched::Ets(b),
                    (Some(x), Some("strict"), _) => q.sched[x] = Sched::Strict,
                    (Some(x), Some("vendor"), _) => q.sched[x] = Sched::Unset,
                    _ => {
                        report("expected tc: T ratelimit: R, tsa: ets|strict|vendor[, bw: N%]");
                        tc = None;
                        continue;
                    }
                }
                tc = index;
            }
            "priority" if !value.is_empty() && tc.is_some() => match value.parse::<u8>() {
                Ok(p) if p < 8 => q.priority_to_queue[p as usize] = tc.unwrap_or(0) as u8,
                _ => report("expected a priority 0-7"),
            },
            "prio" => {
                // `prio:3 dscp:31,30,29,28,27,26,25,24,`
                let mut parts = t.split_whitespace();
                let p = parts
                    .next()
                    .and_then(|x| x.strip_prefix("prio:"))
                    .and_then(|x| x.parse::<u8>().ok())
                    .filter(|p| *p < 8);
                let ds: Option<Vec<u8>> = parts.next().and_then(|x| x.strip_prefix("dscp:")).and_then(|list| {
                    list.split(',')
                        .filter(|d| !d.is_empty())
                        .map(|d| d.parse::<u8>().ok().filter(|d| *d < 64))
                        .collect()
                });
                match (p, ds) {
                    (Some(p), Some(ds)) => {
                        for d in ds {
                            q.dscp_to_priority[d as usize] = p;
                        }
                    }
                    _ => report("expected prio:P dscp:D,D,…"),
                }
            }
            _ => {
                // The rows of the PFC table: `priority 0 1 …`, `enabled 0 0 0 1 …`, `buffer …`.
                let w: Vec<&str> = t.split_whitespace().collect();
                let nums: Option<Vec<u8>> = w.iter().skip(1).map(|x| x.parse::<u8>().ok()).collect();
                match (w.first().copied(), nums) {
                    (Some("priority"), Some(p)) if p.iter().all(|x| *x < 8) && !p.is_empty() => pfc_prios = p,
                    (Some("enabled"), Some(v)) if v.len() == pfc_prios.len() && v.iter().all(|x| *x <= 1) => {
                        q.pfc = pfc_prios.iter().zip(&v).filter(|(_, on)| **on == 1).fold(0, |m, (p, _)| m | (1 << p));
                    }
                    (Some("buffer"), Some(v)) if v.len() == pfc_prios.len() && v.iter().all(|x| *x < 8) => {
                        for (p, b) in pfc_prios.iter().zip(&v) {
                            q.priority_to_pg[*p as usize] = *b;
                        }
                    }
                    _ => report(""),
                }
            }
        }
    }
    if !seen_trust {
        // Releases before the trust setting classify by 802.1p only.
        q.trust = Marking::Pcp;
    }
    let name = host.unwrap_or_else(|| stem.to_string());
    if let Some((p, _)) = &port {
        if let Some((_, m)) = mtus.iter().find(|(n, _)| n == p) {
            q.mtu = *m;
        }
    }
    let mut c =
        DeviceConfig { role: Role::Host, not_understood: bad, macs, ..DeviceConfig::switch(name, "linux", file) };
    match port {
        Some((p, line)) => c.ports.push((p, Rate::gbps(0), q, line)),
        None => c.default_port = Some(q),
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "[root@node1 ~]# mlnx_qos -i ens1f0np0
DCBX mode: OS controlled
Priority trust state: dscp
dscp2prio mapping:
        prio:0 dscp:07,06,05,04,03,02,01,00,
        prio:1 dscp:15,14,13,12,11,10,09,08,
        prio:2 dscp:23,22,21,20,19,18,17,16,
        prio:3 dscp:31,30,29,28,27,26,25,24,
        prio:4 dscp:39,38,37,36,35,34,33,32,
        prio:5 dscp:47,46,45,44,43,42,41,40,
        prio:6 dscp:55,54,53,52,51,50,49,48,
        prio:7 dscp:63,62,61,60,59,58,57,56,
default priority:
Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,
Cable len: 7
PFC configuration:
        priority    0   1   2   3   4   5   6   7
        enabled     0   0   0   1   0   0   0   0
        buffer      0   0   0   1   0   0   0   0
tc: 0 ratelimit: unlimited, tsa: ets, bw: 40%
         priority:  0
         priority:  1
         priority:  2
tc: 3 ratelimit: unlimited, tsa: ets, bw: 60%
         priority:  3
tc: 6 ratelimit: unlimited, tsa: strict
         priority:  6
tc: 4 ratelimit: unlimited, tsa: vendor
         priority:  4
         priority:  5
         priority:  7
";

    #[test]
    fn reads_trust_dscp_map_pfc_buffers_and_ets() {
        let c = parse(OUTPUT, "node1.txt", "x");
        assert_eq!((c.name.as_str(), c.role), ("node1", Role::Host));
        assert!(c.not_understood.is_empty(), "{:?}", c.not_understood);
        let (port, _, q, line) = &c.ports[0];
        assert_eq!((port.as_str(), *line), ("ens1f0np0", 1));
        assert_eq!((q.trust, q.dcbx_willing, q.pfc), (Marking::Dscp, Some(false), 1 << 3));
        assert_eq!((q.dscp_to_priority[26], q.dscp_to_priority[48], q.dscp_to_priority[0]), (3, 6, 0));
        assert_eq!((q.priority_to_pg[3], q.priority_to_pg[0]), (1, 0));
        assert_eq!(q.priority_to_queue, [0, 0, 0, 3, 4, 4, 6, 4]);
        assert_eq!(
            (q.sched[0], q.sched[3], q.sched[6], q.sched[4]),
            (Sched::Ets(40), Sched::Ets(60), Sched::Strict, Sched::Unset)
        );
        assert!(!q.host.as_ref().unwrap().rdma_visible);
    }

    #[test]
    fn without_the_command_the_cabling_names_the_port() {
        let text = "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   0   0   1   0   0\n\ntc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  1\n";
        let c = parse(text, "h2.mlnx_qos", "h2");
        assert!(c.ports.is_empty());
        let q = c.default_port.unwrap();
        assert_eq!((q.trust, q.pfc, q.priority_to_queue[1]), (Marking::Pcp, 1 << 5, 0));
    }

    /// `ip link` output in the capture gives each interface's MAC (for LLDP neighbours that
    /// name the port by it) and the MTU of the port the capture names.
    #[test]
    fn ip_link_in_the_capture_gives_macs_and_the_ports_mtu() {
        let text = "[root@node3 ~]# ip link show
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:12:34:56 brd ff:ff:ff:ff:ff:ff
    altname enp59s0f0np0
5: ens1f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:12:34:57 brd ff:ff:ff:ff:ff:ff
[root@node3 ~]# mlnx_qos -i ens1f0np0
DCBX mode: OS controlled
Priority trust state: dscp
PFC configuration:
	priority    0   1   2   3   4   5   6   7
	enabled     0   0   0   1   0   0   0   0
";
        let c = parse(text, "node3.txt", "x");
        assert_eq!(c.name, "node3");
        assert_eq!(
            c.macs,
            [
                ("ens1f0np0".to_string(), [0x0c, 0x42, 0xa1, 0x12, 0x34, 0x56]),
                ("ens1f1np1".to_string(), [0x0c, 0x42, 0xa1, 0x12, 0x34, 0x57])
            ]
        );
        assert_eq!((c.ports[0].0.as_str(), c.ports[0].2.mtu, c.ports[0].2.pfc), ("ens1f0np0", 9000, 1 << 3));
        assert!(c.not_understood.is_empty(), "{:?}", c.not_understood);
    }

    #[test]
    fn malformed_rows_are_reported() {
        let text = "PFC configuration:\n priority 0 1 2 3 4 5 6 7\n enabled 0 0 0 1\ntc: 9 ratelimit: unlimited, tsa: ets, bw: 10%\nPriority trust state: both\nprio:3 dscp:xx\nECN configuration is elsewhere\n";
        let c = parse(text, "h.txt", "h");
        let lines: Vec<usize> = c.not_understood.iter().map(|u| u.line).collect();
        assert_eq!(lines, [3, 4, 5, 6, 7]);
    }
}
