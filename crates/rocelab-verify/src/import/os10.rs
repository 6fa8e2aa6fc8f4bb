//! Dell SmartFabric OS10 `show running-configuration`: rocelab-config's parser
//! ([`rocelab_config::os10::parse`]) reads the text into [`Os10Config`](rocelab_config::os10::Os10Config), the typed configuration
//! the renderer fills, and this importer turns that into the checker's port state.
//!
//! Conventions, as the renderer's: a qos-group is its queue and, under DSCP trust, the priority
//! its packets are classified to; WRED thresholds are KB of 1000 bytes; the interface MTU is the
//! link MTU, the IP MTU plus [`TAGGED_OVERHEAD`] (Dell's Layer 2 overhead table); a port's ETS
//! applies only with `ets mode on` on the port and under `system qos` (OS10 User Guide, "ETS").

use super::nxos::cli_switch;
use super::DeviceConfig;
use crate::state::{EcnState, PortQos, Sched};
use rocelab_config::os10::parse::{parse as parse_text, Parsed, QUEUING};
use rocelab_config::os10::{Os10Queue, TAGGED_OVERHEAD};
use rocelab_model::qos::Marking;

/// Whether `text` is an OS10 running-configuration.
pub fn recognise(text: &str) -> bool {
    rocelab_config::os10::parse::recognise(text)
}

fn u8_of(s: &str, max: u8) -> Option<u8> {
    s.parse::<u8>().ok().filter(|v| *v <= max)
}

/// `0-2,4-7` or `26,46`: values up to `max`.
fn values(text: &str, max: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Some(a), Some(b)) = (u8_of(a, max), u8_of(b, max)) {
            out.extend(a..=b);
        }
    }
    out
}

/// The checker's state of a typed configuration: each interface's QoS.
pub fn to_device(p: Parsed, file: &str) -> DeviceConfig {
    let c = &p.config;
    let dscp = c.trust == "dscp";
    let mut base = PortQos::unconfigured(1500);
    base.trust = if dscp { Marking::Dscp } else { Marking::Pcp };
    for t in &c.trust_map {
        for v in values(&t.values, if dscp { 63 } else { 7 }) {
            if dscp {
                base.dscp_to_priority[v as usize] = t.qos_group;
            } else {
                base.priority_to_queue[v as usize] = t.qos_group;
            }
        }
    }
    let mut pfc = 0u8;
    for class in &c.pfc_classes {
        for prio in values(&class.pfc_cos, 7) {
            pfc |= 1 << prio;
            base.priority_to_pg[prio as usize] = prio;
            base.priority_to_queue[prio as usize] = class.qos_group;
        }
    }
    let policy = |name: &str| -> &[Os10Queue] {
        if name == QUEUING {
            return &c.queuing;
        }
        c.more_queuing.iter().find(|m| m.name == name).map(|m| m.queues.as_slice()).unwrap_or(&[])
    };
    cli_switch(&p, &c.interfaces, (&c.hostname, "dell-os10"), file, |i| {
        let mut q = base.clone();
        q.mtu = i.mtu.saturating_sub(TAGGED_OVERHEAD);
        q.pfc = if i.pfc { pfc } else { 0 };
        q.link_pause = i.link_pause;
        // OS10 applies a port's ETS only with `ets mode on` on the port and in `system qos`.
        let ets = i.ets && c.ets_global;
        for x in policy(&i.queuing).iter().filter(|_| i.ets) {
            let k = (x.queue & 7) as usize;
            if ets && x.strict {
                q.sched[k] = Sched::Strict;
            } else if let Some(b) = x.bandwidth.filter(|_| ets) {
                q.sched[k] = Sched::Ets(b);
            }
            q.ecn[k] = x.wred.as_ref().and_then(|n| c.wred.iter().find(|w| &w.name == n)).map(|w| EcnState {
                kmin: w.min * 1000,
                kmax: w.max * 1000,
                pmax: f64::from(w.drop_probability) / 100.0,
            });
        }
        (i.name.clone(), q)
    })
}

/// Parses one running-configuration into the checker's state (rocelab-config's parser, then
/// [`to_device`]).
pub fn parse(text: &str, file: &str, stem: &str) -> DeviceConfig {
    to_device(parse_text(text, stem), file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{recognise as format_of, Format};

    /// The QoS forms of Dell's user guide (policy names of the device's choosing).
    const DEVICE: &str = "! Version 10.5.4.0
hostname s5248-leaf1
class-map type network-qos pfc3
 match qos-group 3
!
class-map type queuing q3
 match queue 3
!
trust dot1p-map map_dot1p
 qos-group 0 dot1p 0-2,4-7
 qos-group 3 dot1p 3
!
qos-map traffic-class tc-q
 queue 0 qos-group 0
 queue 3 qos-group 3
!
wred roce-wred
 random-detect color green minimum-threshold 150 maximum-threshold 1500 drop-probability 10
 random-detect ecn
!
policy-map type network-qos pfc-policy
 class pfc3
  pause
  pfc-cos 3
!
policy-map type queuing ets-policy
 class q3
  bandwidth percent 50
  random-detect roce-wred
!
system qos
 trust-map dot1p map_dot1p
 qos-map traffic-class tc-q
 ets mode on
!
interface vlan20
 no shutdown
!
interface ethernet1/1/1
 switchport mode trunk
 switchport trunk allowed vlan 20
 mtu 9216
 flowcontrol receive off
 priority-flow-control mode on
 service-policy input type network-qos pfc-policy
 ets mode on
 service-policy output type queuing ets-policy
";

    #[test]
    fn the_typed_configuration_becomes_the_ports_qos() {
        assert_eq!(format_of(DEVICE), Some(Format::Os10));
        let d = parse(DEVICE, "leaf1.txt", "x");
        let line_of = |start: &str| DEVICE.lines().position(|l| l.starts_with(start)).map(|i| i + 1);
        let (name, _, q, line) = &d.ports[0];
        assert_eq!(
            (name.as_str(), Some(*line), d.name.as_str(), d.platform),
            ("ethernet1/1/1", line_of("interface ethernet1/1/1"), "s5248-leaf1", "dell-os10")
        );
        // The link MTU less the tagged frame's header is the IP MTU the checker compares.
        assert_eq!((q.trust, q.pfc, q.mtu, q.link_pause), (Marking::Pcp, 1 << 3, 9216 - TAGGED_OVERHEAD, false));
        assert_eq!((q.priority_to_queue[3], q.priority_to_queue[5], q.sched[3]), (3, 0, Sched::Ets(50)));
        let e = q.ecn[3].expect("ECN on queue 3");
        assert_eq!((e.kmin, e.kmax, e.pmax), (150_000, 1_500_000, 0.1));
        assert!(q.vlans.as_ref().is_some_and(|v| v.is_tagged(20) && v.undefined.is_empty()), "{:?}", q.vlans);
        assert!(d.not_understood.is_empty(), "{:?}", d.not_understood);
    }

    #[test]
    fn ets_without_the_global_ets_mode_is_not_applied_and_a_bad_line_is_reported() {
        let text = "class-map type queuing q3\n match queue 3\npolicy-map type queuing ROCELAB-ETS\n class q3\n  bandwidth percent 60\n\
                    interface ethernet1/1/2\n ets mode on\n service-policy output type queuing ROCELAB-ETS\n mtu 99999999999\n";
        let d = parse(text, "s.txt", "s1");
        assert_eq!((d.name.as_str(), d.ports[0].2.sched[3]), ("s1", Sched::Unset));
        assert_eq!(d.not_understood.iter().map(|n| (n.file.as_str(), n.line)).collect::<Vec<_>>(), [("s.txt", 9)]);
    }
}
