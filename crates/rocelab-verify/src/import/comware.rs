//! HPE Comware `display current-configuration` (and the commands `rocelab config` writes):
//! the text is read into rocelab-config's [`ComwareConfig`] by its parser
//! ([`rocelab_config::comware::parse`]), the type the renderer fills, and that typed value
//! becomes the checker's port state here, so rendering and importing meet in one type.
//!
//! Meanings (HPE FlexFabric 5900 ACL and QoS Configuration Guide and Command Reference):
//! - `qos trust dot1p` classifies by 802.1p, `qos trust dscp` by DSCP through the default
//!   DSCP map, which sends DSCP d to 802.1p d/8 (the reading `rocelab config` renders for);
//! - `qos map-table dot1p-lp` maps 802.1p to local precedence, which is the output queue;
//! - `priority-flow-control auto|enable` with `priority-flow-control no-drop dot1p LIST` makes
//!   the listed priorities lossless (`auto` negotiated by DCBX: the port is DCBX-willing);
//! - `qos wrr Q group 1 byte-count W` puts queue Q in WRR group 1 with weight W, its share W
//!   over the group's sum; `qos wrr Q group sp` schedules it strictly;
//! - a WRED table's `queue Q low-limit L high-limit H` with `queue Q ecn` marks ECN between L
//!   and H packets of average queue length; rocelab reads a packet as one frame of the port's
//!   MTU plus 22 bytes of Ethernet overhead (as the renderer converts), the marking
//!   probability as the platform's (recorded as 1.0);
//! - `jumboframe enable SIZE` is the port's largest frame, taken as its MTU; without it the
//!   5900's default of 9216 bytes.
//!
//! Ports are named as rocelab names Comware ports (`Ten-GigabitEthernet1/0/1`); a port's speed
//! is its interface type's (`Ten-GigabitEthernet` 10G, `FortyGigE` 40G, …).

use super::DeviceConfig;
use crate::state::{EcnState, PortQos, PortVlans, Sched};
use rocelab_config::comware::parse::{parse as parse_text, Parsed};
use rocelab_config::comware::ComwareConfig;
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

/// The frame size of a port without `jumboframe enable SIZE` (HPE 5900 Layer 2 LAN Switching
/// Configuration Guide, "Configuring jumbo frame support": jumbo frames within 9216 bytes by
/// default).
pub const DEFAULT_JUMBOFRAME: u32 = 9216;

/// Whether the text is a Comware configuration.
pub fn recognise(text: &str) -> bool {
    rocelab_config::comware::parse::recognise(text)
}

/// The speed a Comware interface type names (HPE interface naming: `GigabitEthernet`,
/// `Ten-GigabitEthernet`, `Twenty-FiveGigE`, `FortyGigE`, `HundredGigE`); zero when the name
/// does not tell.
fn speed_of(kind: &str) -> Rate {
    match kind.to_ascii_lowercase().as_str() {
        "gigabitethernet" => Rate::gbps(1),
        "ten-gigabitethernet" => Rate::gbps(10),
        "twenty-fivegige" => Rate::gbps(25),
        "fortygige" => Rate::gbps(40),
        "fiftygige" => Rate::gbps(50),
        "hundredgige" => Rate::gbps(100),
        "twohundredgige" => Rate::gbps(200),
        "fourhundredgige" => Rate::gbps(400),
        _ => Rate::gbps(0),
    }
}

/// Reads a Comware configuration file.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    to_device(&parse_text(text, stem), file)
}

/// The checker's view of a parsed Comware configuration.
pub fn to_device(p: &Parsed, file: &str) -> DeviceConfig {
    let c: &ComwareConfig = &p.config;
    let mut d = DeviceConfig::switch(c.hostname.clone(), "hpe-comware", file);
    d.not_understood = super::unknown_lines(&p.unknown, file);
    d.ignored = p.ignored;
    let tables: Vec<_> = c.wred_table.iter().chain(&c.more_wred_tables).collect();
    for (idx, i) in c.interfaces.iter().enumerate() {
        let (kind, num) = i.name.split_once(' ').unwrap_or((&i.name, ""));
        let mtu = p.jumboframe[idx].unwrap_or(DEFAULT_JUMBOFRAME);
        let mut q = PortQos::unconfigured(mtu);
        for m in &c.dot1p_lp {
            q.priority_to_queue[m.import as usize] = m.export;
        }
        if i.trust == "dscp" {
            q.trust = Marking::Dscp;
            for v in 0..64u8 {
                q.dscp_to_priority[v as usize] = v >> 3;
            }
        }
        if i.pfc_mode.is_some() {
            for &x in &i.no_drop {
                q.pfc |= 1 << x;
                q.priority_to_pg[x as usize] = x;
            }
            if i.pfc_mode.as_deref() == Some("auto") {
                q.dcbx_willing = Some(true);
            }
        }
        let total: u32 = i.wrr.iter().filter_map(|w| w.byte_count).sum();
        for w in &i.wrr {
            q.sched[w.queue as usize] = match w.byte_count {
                Some(b) => Sched::Ets(((b as f64 * 100.0 / total as f64).round()) as u8),
                None => Sched::Strict,
            };
        }
        if let Some(t) = i.wred_apply.as_ref().and_then(|n| tables.iter().find(|t| t.name == *n)) {
            let frame = mtu as u64 + 22;
            for wq in &t.queues {
                q.ecn[wq.queue as usize] =
                    Some(EcnState { kmin: wq.low_limit * frame, kmax: wq.high_limit * frame, pmax: 1.0 });
            }
        }
        let permitted = &p.permitted[idx];
        if !permitted.is_empty() {
            q.vlans = Some(PortVlans {
                untagged: permitted.contains(&1).then_some(1),
                tagged: permitted.iter().filter(|v| **v != 1).map(|v| (*v, *v)).collect(),
                svi_mtu: None,
                undefined: permitted.iter().copied().filter(|v| *v != 1 && !p.vlans.contains(v)).collect(),
            });
        }
        d.ports.push((format!("{kind}{num}"), speed_of(kind), q, p.interface_lines[idx]));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_comware_becomes_port_state() {
        let text = "sysname sw\nvlan 2\nquit\nqos map-table dot1p-lp\nimport 5 export 3\nquit\nqos wred queue table T\nqueue 3 low-limit 10 high-limit 100\nqueue 3 ecn\nquit\ninterface FortyGigE 1/0/49\nport trunk permit vlan 2 7\npriority-flow-control auto\npriority-flow-control no-drop dot1p 5\nqos trust dscp\nqos wrr 0 group 1 byte-count 1\nqos wrr 3 group 1 byte-count 3\nqos wrr 6 group sp\nqos wred apply T\njumboframe enable 9000\nquit\n";
        let d = parse(text, "sw.cfg", "x");
        assert_eq!((d.name.as_str(), d.platform), ("sw", "hpe-comware"));
        let (name, speed, q, line) = &d.ports[0];
        assert_eq!((name.as_str(), *speed, *line), ("FortyGigE1/0/49", Rate::gbps(40), 11));
        assert_eq!((q.trust, q.pfc, q.priority_to_queue[5], q.dscp_to_priority[40]), (Marking::Dscp, 1 << 5, 3, 5));
        assert_eq!((q.sched[0], q.sched[3], q.sched[6]), (Sched::Ets(25), Sched::Ets(75), Sched::Strict));
        assert_eq!(q.ecn[3].map(|e| (e.kmin, e.kmax)), Some((10 * 9022, 100 * 9022)));
        let v = q.vlans.as_ref().unwrap();
        assert_eq!((v.untagged, v.tagged.as_slice(), v.undefined.as_slice()), (None, &[(2, 2), (7, 7)][..], &[7][..]));
        assert!(d.not_understood.is_empty(), "{:?}", d.not_understood);
    }

    /// `check --import` tells Comware's own output apart from the other switches' by content.
    #[test]
    fn display_current_configuration_is_recognised_as_comware() {
        let display = "#\n version 7.1.045, Release 2422P01\n#\n sysname hpe-a\n#\ninterface Ten-GigabitEthernet1/0/1\n port link-mode bridge\n priority-flow-control no-drop dot1p 5\n#\nreturn\n";
        assert_eq!(super::super::recognise(display), Some(super::super::Format::Comware));
        let c = super::super::read_config(display, "a.cfg", "a").unwrap();
        assert_eq!(
            (c.name.as_str(), c.platform, c.ports[0].0.as_str()),
            ("hpe-a", "hpe-comware", "Ten-GigabitEthernet1/0/1")
        );
    }
}
