//! NVIDIA Cumulus Linux NVUE commands (`nv config show -o commands`, and the script `rocelab
//! config` writes) or NVUE's startup YAML (`/etc/nvue.d/startup.yaml`): the text is read into rocelab-config's
//! [`CumulusConfig`](rocelab_config::cumulus::CumulusConfig) by its parser
//! ([`rocelab_config::cumulus::parse`]), the type the renderer fills, and that typed value
//! becomes the checker's port state here.
//!
//! Meanings (NVIDIA Cumulus Linux user guide, "Quality of Service"; NVUE command reference,
//! "QoS"):
//! - `mapping default-global trust l2` classifies by 802.1p, `l3` by DSCP, with Cumulus's
//!   default map DSCP d → switch priority d/8 where no `dscp … switch-priority` line says
//!   otherwise;
//! - the `default-global` profiles are switch-wide: every port gets the PFC switch priorities
//!   (when both `tx` and `rx` are enabled), the egress-queue mapping and the scheduler;
//! - `congestion-control PROFILE traffic-class T min-threshold/max-threshold` (bytes) with `ecn
//!   enable` marks ECN on T at `probability` percent; a port with `qos congestion-control profile
//!   P` takes P's entries instead of `default-global`'s. Traffic classes NVIDIA's RoCE profile
//!   marks with thresholds no command shows are not known and read as unmarked;
//! - a port in the link-pause profile (with `tx` and `rx` enabled) runs 802.3x pause;
//! - `link mtu N` is the port's MTU; without it Cumulus's default of 9216 (user guide,
//!   "Interface Configuration and Management", MTU);
//! - a port (or its bond) in `bridge domain br_default` carries the bridge's VLAN tagged.
//!
//! NVUE does not show a port's speed: the links file (or the link's other end) gives it.

use super::DeviceConfig;
use crate::state::{EcnState, PortQos, PortVlans, Sched};
use rocelab_config::cumulus::parse::{parse as parse_text, Parsed};
use rocelab_model::qos::Marking;
use rocelab_model::units::Rate;

/// A port's MTU without `link mtu`.
pub const DEFAULT_MTU: u32 = 9216;

/// Whether the text is an NVUE command list or NVUE's YAML (`/etc/nvue.d/startup.yaml`).
pub fn recognise(text: &str) -> bool {
    rocelab_config::cumulus::parse::recognise(text) || rocelab_config::cumulus::yaml::recognise(text)
}

/// Reads an NVUE command list, or the startup YAML.
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    if rocelab_config::cumulus::yaml::recognise(text) {
        return to_device(&rocelab_config::cumulus::yaml::parse(text, stem), file);
    }
    to_device(&parse_text(text, stem), file)
}

/// The checker's view of parsed NVUE commands.
pub fn to_device(p: &Parsed, file: &str) -> DeviceConfig {
    let c = &p.config;
    let mut d = DeviceConfig::switch(c.hostname.clone(), "nvidia-cumulus", file);
    d.not_understood = super::unknown_lines(&p.unknown, file);
    d.ignored = p.ignored;
    let pfc = p.pfc_tx_rx.0 && p.pfc_tx_rx.1;
    for (i, line) in c.interfaces.iter().zip(&p.interface_lines) {
        let mut q = PortQos::unconfigured(if i.mtu == 0 { DEFAULT_MTU } else { i.mtu });
        if c.trust == "l3" {
            q.trust = Marking::Dscp;
            for v in 0..64u8 {
                q.dscp_to_priority[v as usize] = v >> 3;
            }
            for m in &c.dscp_map {
                for v in m.dscp.split(',').filter_map(|v| v.parse::<u8>().ok()).filter(|v| *v < 64) {
                    q.dscp_to_priority[v as usize] = m.switch_priority;
                }
            }
        }
        for m in &c.egress_queue_map {
            q.priority_to_queue[m.switch_priority as usize] = m.traffic_class;
        }
        q.link_pause = i.link_pause && p.link_pause_tx_rx.0 && p.link_pause_tx_rx.1;
        if pfc && !i.link_pause {
            for &x in &c.pfc_priorities {
                q.pfc |= 1 << x;
                q.priority_to_pg[x as usize] = x;
            }
        }
        for s in &c.scheduler {
            q.sched[s.traffic_class as usize] = match (s.mode.as_str(), s.bw_percent) {
                ("strict", _) => Sched::Strict,
                (_, Some(b)) => Sched::Ets(b),
                _ => Sched::Unset,
            };
        }
        let ecn = match &i.congestion_control {
            Some(name) => c.ecn_profiles.iter().find(|e| e.name == *name).map(|e| &e.ecn[..]).unwrap_or(&[]),
            None => &c.ecn[..],
        };
        for e in ecn {
            q.ecn[e.traffic_class as usize] =
                Some(EcnState { kmin: e.min, kmax: e.max, pmax: f64::from(e.probability.max(1)) / 100.0 });
        }
        let in_bridge = c.bridge_ports.contains(&i.name)
            || c.bonds.iter().any(|b| b.members.contains(&i.name) && c.bridge_ports.contains(&format!("bond{}", b.id)));
        if let (Some(v), true) = (c.vlan, in_bridge) {
            q.vlans = Some(PortVlans { untagged: None, tagged: vec![(v, v)], svi_mtu: None, undefined: Vec::new() });
        }
        d.ports.push((i.name.clone(), Rate::gbps(0), q, *line));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_cumulus_becomes_port_state() {
        let text = "nv set system hostname leaf01
nv set qos mapping default-global trust l3
nv set qos mapping default-global dscp 26 switch-priority 3
nv set qos pfc default-global switch-priority 3
nv set qos pfc default-global tx enable
nv set qos pfc default-global rx enable
nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 4
nv set qos congestion-control default-global traffic-class 4 min-threshold 150000
nv set qos congestion-control default-global traffic-class 4 max-threshold 1500000
nv set qos congestion-control default-global traffic-class 4 probability 50
nv set qos congestion-control default-global traffic-class 4 ecn enable
nv set qos congestion-control slow traffic-class 4 min-threshold 50000
nv set qos congestion-control slow traffic-class 4 max-threshold 500000
nv set qos congestion-control slow traffic-class 4 probability 100
nv set qos congestion-control slow traffic-class 4 ecn enable
nv set qos egress-scheduler default-global traffic-class 6 mode strict
nv set interface swp1 link mtu 9000
nv set interface swp2 qos congestion-control profile slow
nv set bridge domain br_default vlan 2
nv set interface swp2 bridge domain br_default
";
        let d = parse(text, "leaf01.txt", "x");
        assert_eq!((d.name.as_str(), d.platform, d.ports.len()), ("leaf01", "nvidia-cumulus", 2));
        let (name, _, q, line) = &d.ports[0];
        assert_eq!((name.as_str(), *line, q.mtu, q.trust), ("swp1", 17, 9000, Marking::Dscp));
        assert_eq!((q.dscp_to_priority[26], q.dscp_to_priority[48], q.priority_to_queue[3], q.pfc), (3, 6, 4, 1 << 3));
        assert_eq!(q.ecn[4].map(|e| (e.kmin, e.kmax, e.pmax)), Some((150_000, 1_500_000, 0.5)));
        assert_eq!((q.sched[6], q.vlans.is_none()), (Sched::Strict, true));
        let q2 = &d.ports[1].2;
        assert_eq!((q2.mtu, q2.ecn[4].map(|e| e.kmin)), (DEFAULT_MTU, Some(50_000)));
        assert!(q2.vlans.as_ref().is_some_and(|v| v.is_tagged(2)));
        assert!(d.not_understood.is_empty(), "{:?}", d.not_understood);
    }

    fn text_commands() -> &'static str {
        "nv set system hostname leaf01\nnv set interface swp1 link mtu 9216\n"
    }

    #[test]
    fn the_startup_yaml_imports_as_the_commands_do() {
        let yaml = "- header:\n    model: SN3700\n    nvue-api-version: nvue_v1\n    rev-id: 1.0\n    version: Cumulus Linux 5.6.0\n- set:\n    system:\n      hostname: leaf02\n    qos:\n      pfc:\n        default-global:\n          switch-priority:\n            '3': {}\n          tx: enable\n          rx: enable\n    interface:\n      swp1:\n        link:\n          mtu: 9000\n";
        assert!(recognise(yaml));
        assert_eq!(super::super::recognise(yaml), Some(super::super::Format::Cumulus));
        assert_eq!(super::super::recognise(text_commands()), Some(super::super::Format::Cumulus));
        let d = parse(yaml, "leaf02.yaml", "x");
        let (name, _, q, line) = &d.ports[0];
        assert_eq!((d.name.as_str(), name.as_str(), *line, q.mtu, q.pfc), ("leaf02", "swp1", 19, 9000, 1 << 3));
        assert!(d.not_understood.is_empty(), "{:?}", d.not_understood);
    }
}
