//! What the audit reads the counters against, from one of three sources:
//!
//! - the fabric file ([`ResolvedFabric`]): the classes of `qos.classes`, per-port PFC with the
//!   `qos.ports` overrides;
//! - the devices' running configuration in the counters' folder, imported as `check --import`
//!   imports it ([`State`]; its policy, when no links file states one, is what most devices
//!   hold: [`crate::infer`]);
//! - the counters themselves ([`Inferred`]), when neither is given.
//!
//! Every rule asks the same questions of each ([`Intent`]).

use super::rules::mask;
use super::{Counter, Sample};
use crate::state::State;
use rocelab_model::resolve::PortId;
use rocelab_model::ResolvedFabric;
use std::collections::{BTreeMap, BTreeSet};

/// The questions the audit asks of the intent.
pub trait Intent {
    /// Where the intent comes from, for the report (`the fabric file`, …).
    fn source(&self) -> String;
    /// The devices, for messages.
    fn device_names(&self) -> Vec<String>;
    /// The ports of `device` as (name, cabled); `None` when it is not a device of the intent.
    /// An intent that knows no ports accepts any the output names ([`Intent::any_port`]).
    fn ports_of(&self, device: &str) -> Option<Vec<(String, bool)>>;
    /// Whether a port the output names is taken even when [`Intent::ports_of`] lacks it.
    fn any_port(&self) -> bool {
        false
    }
    /// The lossless priorities, a bit per priority.
    fn lossless(&self) -> u8;
    /// Priorities with PFC on at the port (for the device as a whole: on any cabled port).
    fn pfc(&self, device: &str, port: Option<&str>) -> u8;
    fn link_pause(&self, device: &str, port: Option<&str>) -> bool;
    /// The priority whose traffic egress queue `queue` of the port carries (a priority with
    /// PFC first: a lossless class shares its queue with no lossy one, IEEE 802.1Qbb); none
    /// when no traffic of the intent uses the queue.
    fn queue_priority(&self, device: &str, port: Option<&str>, queue: u8) -> Option<u8>;
    /// The priority the host port is to send CNPs with (none: not known).
    fn cnp_priority(&self, device: &str, port: Option<&str>) -> Option<u8>;
    /// The DSCPs CNPs are to carry (empty: not known).
    fn cnp_dscp(&self) -> Vec<u8>;
    /// `roce (priority 3)`, or `priority 3` where the class has no name.
    fn class(&self, priority: u8) -> String;
    /// The fabric file, when the intent is one (rules that need its buffer model).
    fn fabric(&self) -> Option<&ResolvedFabric> {
        None
    }
}

fn fabric_ports(f: &ResolvedFabric, device: &str, port: Option<&str>) -> Vec<PortId> {
    let Some(di) = f.devices.iter().position(|d| d.name == device) else { return Vec::new() };
    f.devices[di]
        .ports
        .iter()
        .enumerate()
        .filter(|(_, p)| match port {
            Some(name) => p.name == name,
            None => p.link.is_some(),
        })
        .map(|(pi, _)| PortId { device: di, port: pi })
        .collect()
}

impl Intent for ResolvedFabric {
    fn source(&self) -> String {
        format!("the fabric file (`{}`)", self.name)
    }
    fn device_names(&self) -> Vec<String> {
        self.devices.iter().map(|d| d.name.clone()).collect()
    }
    fn ports_of(&self, device: &str) -> Option<Vec<(String, bool)>> {
        self.device(device).map(|d| d.ports.iter().map(|p| (p.name.clone(), p.link.is_some())).collect())
    }
    fn lossless(&self) -> u8 {
        self.qos.classes.iter().filter(|c| c.lossless).fold(0u8, |m, c| m | 1 << (c.priority & 7))
    }
    fn pfc(&self, device: &str, port: Option<&str>) -> u8 {
        fabric_ports(self, device, port).into_iter().fold(0, |m, id| {
            self.port_settings(id).classes.iter().filter(|c| c.pfc).fold(m, |m, c| m | 1 << (c.priority & 7))
        })
    }
    fn link_pause(&self, device: &str, port: Option<&str>) -> bool {
        fabric_ports(self, device, port).into_iter().any(|id| self.port_settings(id).link_pause)
    }
    fn queue_priority(&self, device: &str, port: Option<&str>, queue: u8) -> Option<u8> {
        let id = *fabric_ports(self, device, port).first()?;
        let settings = self.port_settings(id);
        let on_queue = || settings.classes.iter().filter(|c| c.queue == queue);
        on_queue().find(|c| c.pfc).or_else(|| on_queue().next()).map(|c| c.priority & 7)
    }
    fn cnp_priority(&self, device: &str, port: Option<&str>) -> Option<u8> {
        let id = *fabric_ports(self, device, port).first()?;
        self.port_settings(id).cnp_priority
    }
    fn cnp_dscp(&self) -> Vec<u8> {
        self.qos.cnp_class().map(|c| c.dscp.clone()).unwrap_or_default()
    }
    fn class(&self, priority: u8) -> String {
        match self.qos.classes.iter().find(|c| c.priority == priority) {
            Some(c) => format!("{} (priority {priority})", c.name),
            None => format!("priority {priority}"),
        }
    }
    fn fabric(&self) -> Option<&ResolvedFabric> {
        Some(self)
    }
}

/// The imported state's port profiles of `device` at `port` (for the device as a whole: its
/// cabled ports); `None` for a port whose configuration is unknown (a device without a
/// configuration file), which is then read as the policy has it.
fn state_ports<'s>(s: &'s State, device: &str, port: Option<&str>) -> Vec<Option<&'s crate::state::PortQos>> {
    let Some(d) = s.devices.iter().find(|d| d.name == device) else { return Vec::new() };
    d.ports
        .iter()
        .filter(|p| match port {
            Some(name) => p.name == name,
            None => p.link.is_some(),
        })
        .map(|p| Some(&s.profiles[p.qos as usize]).filter(|q| !q.unknown))
        .collect()
}

impl Intent for State {
    fn source(&self) -> String {
        match &self.policy.inferred {
            Some(_) => "the devices' configuration in the counters' folder, its policy what most devices hold".into(),
            None => "the devices' configuration in the counters' folder, with the links file's policy".into(),
        }
    }
    fn device_names(&self) -> Vec<String> {
        self.devices.iter().map(|d| d.name.clone()).collect()
    }
    fn ports_of(&self, device: &str) -> Option<Vec<(String, bool)>> {
        let d = self.devices.iter().find(|d| d.name == device)?;
        Some(d.ports.iter().map(|p| (p.name.clone(), p.link.is_some())).collect())
    }
    fn lossless(&self) -> u8 {
        self.policy.lossless
    }
    fn pfc(&self, device: &str, port: Option<&str>) -> u8 {
        state_ports(self, device, port).into_iter().fold(0, |m, q| m | q.map_or(self.policy.lossless, |q| q.pfc))
    }
    fn link_pause(&self, device: &str, port: Option<&str>) -> bool {
        state_ports(self, device, port).into_iter().flatten().any(|q| q.link_pause)
    }
    fn queue_priority(&self, device: &str, port: Option<&str>, queue: u8) -> Option<u8> {
        let q = state_ports(self, device, port).into_iter().flatten().next();
        let on_queue: Vec<u8> = match q {
            Some(q) => (0..8).filter(|&p| q.priority_to_queue[p as usize] == queue).collect(),
            // Unknown configuration: queue N carries priority N (the switches' default map).
            None => vec![queue & 7],
        };
        let pfc = self.pfc(device, port);
        on_queue.iter().copied().find(|p| pfc & (1 << p) != 0).or_else(|| on_queue.first().copied())
    }
    fn cnp_priority(&self, device: &str, port: Option<&str>) -> Option<u8> {
        let shown = state_ports(self, device, port)
            .into_iter()
            .flatten()
            .filter_map(|q| q.host.as_ref())
            .find(|h| h.rdma_visible)
            .and_then(|h| h.cnp_priority);
        shown.or(self.policy.cnp_priority)
    }
    fn cnp_dscp(&self) -> Vec<u8> {
        self.policy.cnp_dscp.into_iter().collect()
    }
    fn class(&self, priority: u8) -> String {
        self.policy.class_label(priority)
    }
}

/// An intent read off the counters, for a folder with neither a fabric file nor configuration:
///
/// - the lossless priorities are those most devices count PFC pause on (each device one vote
///   for its set of paused priorities, as [`crate::infer`] votes on imported devices); a device
///   pausing other priorities is then found out by `AUDIT-PAUSE-LOSSY`;
/// - PFC runs on those priorities on every port, and 802.3x link pause nowhere (RoCE runs PFC
///   or link pause, never both: IEEE 802.1Qbb);
/// - egress queue N carries priority N (the default priority-to-queue map of SONiC and EOS);
/// - the CNP priority and DSCP are what most adapters' settings hold, where any were read;
/// - every device a file names, and every port its output names, is taken.
#[derive(Debug, Clone, PartialEq)]
pub struct Inferred {
    pub lossless: u8,
    pub cnp_priority: Option<u8>,
    pub cnp_dscp: Option<u8>,
    pub devices: BTreeSet<String>,
    /// How each part was reached, for the report: (part, value, devices agreeing, voters).
    pub votes: Vec<(&'static str, String, usize, usize)>,
}

/// The value most devices hold, ties to the smallest; with the count that hold it.
fn majority<T: Ord + Clone>(votes: &BTreeMap<&str, T>) -> Option<(T, usize)> {
    let mut n: BTreeMap<&T, usize> = BTreeMap::new();
    for v in votes.values() {
        *n.entry(v).or_default() += 1;
    }
    let best = *n.values().max()?;
    n.into_iter().find(|(_, c)| *c == best).map(|(v, c)| (v.clone(), c))
}

impl Inferred {
    /// The intent before anything is read: any device a file names, any port.
    pub fn open() -> Inferred {
        Inferred { lossless: 0, cnp_priority: None, cnp_dscp: None, devices: BTreeSet::new(), votes: Vec::new() }
    }

    /// The intent the samples show; `Err` when they show no priority paused, so that nothing
    /// tells which priorities are meant to be lossless.
    pub fn from_samples(samples: &[Sample]) -> Result<Inferred, String> {
        let mut paused: BTreeMap<&str, u8> = BTreeMap::new();
        let mut cnp_prio: BTreeMap<&str, u8> = BTreeMap::new();
        let mut cnp_dscp: BTreeMap<&str, u8> = BTreeMap::new();
        let mut devices = BTreeSet::new();
        for s in samples {
            devices.insert(s.device.clone());
            match (s.counter, s.priority) {
                (Counter::RxPause | Counter::TxPause, Some(p)) if s.value > 0 => {
                    *paused.entry(&s.device).or_default() |= 1 << (p & 7)
                }
                (Counter::CnpPriority, _) => {
                    cnp_prio.insert(&s.device, s.value as u8);
                }
                (Counter::CnpDscp, _) => {
                    cnp_dscp.insert(&s.device, s.value as u8);
                }
                _ => {}
            }
        }
        let Some((lossless, agree)) = majority(&paused) else {
            return Err("no counter shows PFC pause on any priority, so nothing tells which priorities are meant to be lossless".into());
        };
        let mut votes = vec![("lossless priorities", mask(lossless), agree, paused.len())];
        let mut part = |what: &'static str, m: &BTreeMap<&str, u8>| {
            let v = majority(m);
            if let Some((val, n)) = &v {
                votes.push((what, val.to_string(), *n, m.len()));
            }
            v.map(|(v, _)| v)
        };
        let cnp_priority = part("CNP priority", &cnp_prio);
        let cnp_dscp = part("CNP DSCP", &cnp_dscp);
        Ok(Inferred { lossless, cnp_priority, cnp_dscp, devices, votes })
    }
}

impl Intent for Inferred {
    fn source(&self) -> String {
        let parts: Vec<String> =
            self.votes.iter().map(|(w, v, n, of)| format!("{w} {v} ({n} of {of} devices)")).collect();
        format!("inferred from the counters: {}", parts.join("; "))
    }
    fn device_names(&self) -> Vec<String> {
        self.devices.iter().cloned().collect()
    }
    fn ports_of(&self, _device: &str) -> Option<Vec<(String, bool)>> {
        Some(Vec::new())
    }
    fn any_port(&self) -> bool {
        true
    }
    fn lossless(&self) -> u8 {
        self.lossless
    }
    fn pfc(&self, _device: &str, _port: Option<&str>) -> u8 {
        self.lossless
    }
    fn link_pause(&self, _device: &str, _port: Option<&str>) -> bool {
        false
    }
    fn queue_priority(&self, _device: &str, _port: Option<&str>, queue: u8) -> Option<u8> {
        Some(queue & 7)
    }
    fn cnp_priority(&self, _device: &str, _port: Option<&str>) -> Option<u8> {
        self.cnp_priority
    }
    fn cnp_dscp(&self) -> Vec<u8> {
        self.cnp_dscp.into_iter().collect()
    }
    fn class(&self, priority: u8) -> String {
        format!("priority {priority}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::testfabric::fabric;
    use crate::state::Origin;

    /// The checker's state of a fabric file answers every question as the fabric file does:
    /// the imported path and the fabric path judge alike.
    #[test]
    fn the_state_of_a_fabric_answers_as_the_fabric() {
        let f = fabric();
        let s = crate::from_intent(&f);
        assert_eq!(Intent::lossless(&s), Intent::lossless(&f));
        for d in &f.devices {
            let ports = Intent::ports_of(&s, &d.name).unwrap();
            assert_eq!(ports, Intent::ports_of(&f, &d.name).unwrap(), "{}", d.name);
            for port in ports.iter().map(|p| Some(p.0.as_str())).chain([None]) {
                let at = format!("{}:{port:?}", d.name);
                assert_eq!(s.pfc(&d.name, port), f.pfc(&d.name, port), "{at}");
                assert_eq!(s.link_pause(&d.name, port), f.link_pause(&d.name, port), "{at}");
                assert_eq!(s.cnp_priority(&d.name, port), f.cnp_priority(&d.name, port), "{at}");
                for q in [0, 3, 6] {
                    assert_eq!(
                        s.queue_priority(&d.name, port, q),
                        f.queue_priority(&d.name, port, q),
                        "{at} queue {q}"
                    );
                }
            }
        }
        assert_eq!((s.cnp_dscp(), f.cnp_dscp()), (vec![48], vec![48]));
        assert_eq!(Intent::class(&s, 3), "roce (priority 3)");
        assert!(Intent::fabric(&f).is_some() && Intent::fabric(&s).is_none());
    }

    fn s(device: &str, priority: Option<u8>, counter: Counter, value: u64) -> Sample {
        Sample {
            device: device.into(),
            port: Some("Ethernet0".into()),
            priority,
            queue: None,
            counter,
            name: format!("{counter:?}"),
            value,
            at: Origin { file: format!("{device}.txt"), line: 1 },
        }
    }

    #[test]
    fn the_counters_show_the_lossless_priorities_most_devices_pause() {
        let samples = [
            s("a", Some(3), Counter::RxPause, 10),
            s("b", Some(3), Counter::TxPause, 4),
            s("c", Some(3), Counter::RxPause, 1),
            s("c", Some(0), Counter::RxPause, 9),
            s("d", Some(5), Counter::RxPause, 0),
            s("a", None, Counter::CnpPriority, 6),
            s("b", None, Counter::CnpPriority, 6),
            s("c", None, Counter::CnpPriority, 3),
        ];
        let i = Inferred::from_samples(&samples).unwrap();
        // a and b pause priority 3, c pauses 0 and 3: {3} wins; d counted no pause.
        assert_eq!(i.lossless, 1 << 3);
        assert_eq!(i.cnp_priority, Some(6));
        assert_eq!(
            i.source(),
            "inferred from the counters: lossless priorities 3 (2 of 3 devices); CNP priority 6 (2 of 3 devices)"
        );
        assert_eq!((i.pfc("c", None), i.queue_priority("c", Some("Ethernet0"), 3)), (1 << 3, Some(3)));
        // Any device a file names and any port its output names is taken.
        assert!(i.any_port() && i.ports_of("zz").is_some());
    }

    #[test]
    fn counters_without_pause_do_not_tell_the_intent() {
        let e = Inferred::from_samples(&[s("a", Some(3), Counter::RxPause, 0), s("a", None, Counter::EcnMarked, 5)])
            .unwrap_err();
        assert!(e.contains("no counter shows PFC pause on any priority"), "{e}");
    }
}
