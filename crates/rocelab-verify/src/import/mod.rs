//! Importing the running configuration of existing devices into the configured state, so that
//! `rocelab check --import DIR --links LINKS.yaml` checks the fabric they form.
//!
//! Each file in the directory is one device; its format is recognised from its content:
//! Arista EOS `show running-config` ([`arista`]) and SONiC `config_db.json` ([`sonic`]).
//! Every line (or JSON key) an importer does not understand is reported with file and line;
//! none is dropped silently. A file in a format rocelab does not read is reported whole.
//!
//! The cabling comes from a links file (YAML):
//!
//! ```yaml
//! links:
//!   - {a: "leaf1:Ethernet1", b: "host1:p0", speed: 100G, cable: 3m}
//! hosts: [host1]                 # RDMA endpoints without a configuration file
//! policy: {lossless: [3], rdma_dscp: 26, cnp_priority: 6, cnp_dscp: 48, dcqcn: true}
//! ```
//!
//! `policy` states the intent the devices are judged against; without it, it is inferred from
//! what the switches agree on (the PFC priorities most ports enable, the DSCP mapped to them).

pub mod arista;
pub mod sonic;

use crate::state::{DeviceState, End, LinkState, Policy, PortQos, PortState, State, Trust};
use rocelab_model::fabric::Role;
use rocelab_model::units::{Length, Rate, Time};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

/// A line an importer did not understand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUnderstood {
    pub file: String,
    pub line: usize,
    pub text: String,
}

impl fmt::Display for NotUnderstood {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: not understood: {}", self.file, self.line, self.text.trim())
    }
}

/// An imported fabric.
#[derive(Debug, Clone)]
pub struct Imported {
    pub state: State,
    pub not_understood: Vec<NotUnderstood>,
}

/// A problem that stops the import (a file that cannot be read, a bad links file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError(pub String);

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One device as an importer read it: ports by name, each with its QoS.
#[derive(Debug, Clone)]
pub struct DeviceConfig {
    pub name: String,
    pub platform: &'static str,
    pub buffer: Option<u64>,
    pub ports: Vec<(String, Rate, PortQos, usize)>,
    pub vxlan: Option<rocelab_model::fabric::Vxlan>,
    pub file: String,
    pub not_understood: Vec<NotUnderstood>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinksFile {
    links: Vec<LinkEntry>,
    #[serde(default)]
    hosts: Vec<String>,
    #[serde(default)]
    policy: Option<PolicyEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkEntry {
    a: String,
    b: String,
    #[serde(default)]
    speed: Option<Rate>,
    #[serde(default)]
    cable: Option<Length>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyEntry {
    lossless: Vec<u8>,
    #[serde(default)]
    rdma_dscp: Option<u8>,
    #[serde(default)]
    cnp_priority: Option<u8>,
    #[serde(default)]
    cnp_dscp: Option<u8>,
    #[serde(default)]
    dcqcn: bool,
    #[serde(default)]
    roce_mtu: Option<u32>,
}

/// Reads one configuration file, recognising its format.
pub fn read_config(text: &str, file: &str, stem: &str) -> Option<DeviceConfig> {
    let t = text.trim_start();
    if t.starts_with('{') && (text.contains("\"PORT\"") || text.contains("\"DEVICE_METADATA\"")) {
        return Some(sonic::parse(text, file, stem));
    }
    if text.lines().any(|l| l.starts_with("interface Ethernet")) || text.contains("! device: ") {
        return Some(arista::parse(text, file, stem));
    }
    None
}

fn parse_ref(text: &str) -> Option<(&str, &str)> {
    text.split_once(':').filter(|(d, p)| !d.is_empty() && !p.is_empty())
}

/// Reads every file of `dir` and the links file, and builds the state.
pub fn import_dir(dir: &Path, links: &Path) -> Result<Imported, ImportError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| ImportError(format!("{}: cannot read the directory: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    let mut configs = Vec::new();
    let mut not_understood = Vec::new();
    for path in entries {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| ImportError(format!("{file}: cannot read: {e}")))?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let stem = name.split('.').next().unwrap_or(&name).to_string();
        match read_config(&text, &file, &stem) {
            Some(c) => configs.push(c),
            None => not_understood.push(NotUnderstood {
                file,
                line: 1,
                text: "the whole file: not a format rocelab imports (Arista EOS running-config, SONiC config_db.json)"
                    .into(),
            }),
        }
    }
    let links_text = std::fs::read_to_string(links)
        .map_err(|e| ImportError(format!("{}: cannot read the links file: {e}", links.display())))?;
    let lf: LinksFile = serde_json::from_value(yaml_to_json(&links_text, links)?)
        .map_err(|e| ImportError(format!("{}: {e}", links.display())))?;
    let mut imported = build(configs, &lf, links)?;
    not_understood.extend(imported.not_understood);
    imported.not_understood = not_understood;
    Ok(imported)
}

/// The links file is small YAML; rocelab-model's loader is for fabrics, so parse it with the
/// YAML library into JSON values and decode with serde.
fn yaml_to_json(text: &str, path: &Path) -> Result<serde_json::Value, ImportError> {
    let root = rocelab_model::node::parse(text)
        .map_err(|d| ImportError(format!("{}:{}:{}: {}", path.display(), d.line, d.column, d.message)))?;
    Ok(node_to_json(&root))
}

fn node_to_json(n: &rocelab_model::node::Node) -> serde_json::Value {
    use rocelab_model::node::NodeKind;
    use serde_json::Value;
    match &n.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Bool(b) => Value::Bool(*b),
        NodeKind::Int(i) => Value::from(*i),
        NodeKind::Float(f) => Value::from(*f),
        NodeKind::Str(s) => Value::String(s.clone()),
        NodeKind::Seq(items) => Value::Array(items.iter().map(node_to_json).collect()),
        NodeKind::Map(entries) => {
            Value::Object(entries.iter().map(|(k, v)| (k.scalar_text().unwrap_or_default(), node_to_json(v))).collect())
        }
    }
}

fn build(configs: Vec<DeviceConfig>, lf: &LinksFile, links_path: &Path) -> Result<Imported, ImportError> {
    let mut devices: Vec<DeviceState> = Vec::new();
    let mut profiles: Vec<PortQos> = Vec::new();
    let mut not_understood = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for c in configs {
        if by_name.contains_key(&c.name) {
            return Err(ImportError(format!("{}: a second configuration for device `{}`", c.file, c.name)));
        }
        by_name.insert(c.name.clone(), devices.len());
        let ports = c
            .ports
            .into_iter()
            .map(|(name, speed, q, line)| PortState {
                name,
                speed,
                link: None,
                qos: State::intern(&mut profiles, q),
                origin: Some(crate::state::Origin { file: c.file.clone(), line }),
            })
            .collect();
        devices.push(DeviceState {
            name: c.name,
            role: Role::Switch,
            platform: Some(c.platform.to_string()),
            buffer: c.buffer,
            ports,
            rdma: false,
            protocols: Vec::new(),
            vxlan: c.vxlan,
            bonding: None,
            origin: Some(crate::state::Origin { file: c.file, line: 1 }),
        });
        not_understood.extend(c.not_understood);
    }
    let mut unknown = PortQos::unconfigured(1500);
    unknown.unknown = true;
    let unknown = State::intern(&mut profiles, unknown);
    let lp = links_path.display().to_string();
    let mut state_links = Vec::new();
    for (i, l) in lf.links.iter().enumerate() {
        let mut ends = Vec::new();
        for text in [&l.a, &l.b] {
            let Some((dev, port)) = parse_ref(text) else {
                return Err(ImportError(format!("{lp}: links[{i}]: `{text}` is not `device:port`")));
            };
            let di = match by_name.get(dev) {
                Some(d) => *d,
                None if lf.hosts.iter().any(|h| h == dev) => {
                    by_name.insert(dev.to_string(), devices.len());
                    devices.push(DeviceState {
                        name: dev.to_string(),
                        role: Role::Host,
                        platform: None,
                        buffer: None,
                        ports: Vec::new(),
                        rdma: true,
                        protocols: Vec::new(),
                        vxlan: None,
                        bonding: None,
                        origin: None,
                    });
                    devices.len() - 1
                }
                None => {
                    let known: Vec<&str> =
                        by_name.keys().map(String::as_str).chain(lf.hosts.iter().map(String::as_str)).collect();
                    let hint = rocelab_model::diag::did_you_mean(dev, known.iter().copied())
                        .map(|h| format!("; {h}"))
                        .unwrap_or_else(|| "; list hosts without a configuration under `hosts:`".into());
                    return Err(ImportError(format!("{lp}: links[{i}]: no device `{dev}`{hint}")));
                }
            };
            let d = &mut devices[di];
            let pi = match d.ports.iter().position(|p| p.name == port) {
                Some(p) => p,
                None if d.role != Role::Switch => {
                    d.ports.push(PortState {
                        name: port.to_string(),
                        speed: l.speed.unwrap_or(Rate::gbps(100)),
                        link: None,
                        qos: unknown,
                        origin: None,
                    });
                    d.ports.len() - 1
                }
                None => {
                    let hint = rocelab_model::diag::did_you_mean(port, d.ports.iter().map(|p| p.name.as_str()))
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                    return Err(ImportError(format!(
                        "{lp}: links[{i}]: device `{dev}` has no port `{port}` in its configuration{hint}"
                    )));
                }
            };
            if d.ports[pi].link.is_some() {
                return Err(ImportError(format!("{lp}: links[{i}]: port `{text}` is cabled twice")));
            }
            d.ports[pi].link = Some(state_links.len() as u32);
            ends.push((End { device: di as u32, port: pi as u32 }, d.ports[pi].speed));
        }
        state_links.push(LinkState {
            a: ends[0].0,
            b: ends[1].0,
            speed: l.speed.unwrap_or(ends[0].1.min(ends[1].1)),
            cable: l.cable.unwrap_or(Length::metres(3)),
        });
    }
    let mut state = State {
        name: links_path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default(),
        devices,
        links: state_links,
        profiles,
        policy: Policy {
            lossless: 0,
            rdma_priority: None,
            rdma_dscp: None,
            cnp_priority: None,
            cnp_dscp: None,
            trust: Trust::Dscp,
            roce_mtu: 1024,
            dcqcn: false,
            response_time: Time::ns(1500),
            alpha: 0.125,
            class_names: Default::default(),
        },
    };
    state.policy = match &lf.policy {
        Some(p) => stated_policy(p, &state),
        None => inferred_policy(&state),
    };
    Ok(Imported { state, not_understood })
}

fn stated_policy(p: &PolicyEntry, s: &State) -> Policy {
    let mut pol = inferred_policy(s);
    pol.lossless = p.lossless.iter().fold(0, |m, x| m | (1 << (x & 7)));
    pol.rdma_priority = p.lossless.iter().min().copied();
    pol.rdma_dscp = p.rdma_dscp.or(pol.rdma_dscp);
    pol.cnp_priority = p.cnp_priority;
    pol.cnp_dscp = p.cnp_dscp;
    pol.dcqcn = p.dcqcn;
    if let Some(m) = p.roce_mtu {
        pol.roce_mtu = m;
    }
    pol.class_names = Default::default();
    if let Some(r) = pol.rdma_priority {
        pol.class_names[r as usize] = Some("rdma".into());
    }
    if let Some(c) = pol.cnp_priority {
        pol.class_names[c as usize & 7] = Some("cnp".into());
    }
    pol
}

/// What the cabled switch ports agree on: the most common PFC set, trust mode and the DSCP
/// mapped to the lowest lossless priority (26 where several are, the RoCE convention).
fn inferred_policy(s: &State) -> Policy {
    let mut pfc: BTreeMap<u8, usize> = BTreeMap::new();
    let mut trust: BTreeMap<bool, usize> = BTreeMap::new();
    for d in s.devices.iter().filter(|d| d.role == Role::Switch) {
        for p in d.ports.iter().filter(|p| p.link.is_some()) {
            let q = &s.profiles[p.qos as usize];
            *pfc.entry(q.pfc).or_default() += 1;
            *trust.entry(q.trust == Trust::Dscp).or_default() += 1;
        }
    }
    let lossless = pfc.iter().max_by_key(|(m, n)| (**n, **m)).map(|(m, _)| *m).unwrap_or(0);
    let dscp_trust = trust.iter().max_by_key(|(_, n)| **n).map(|(t, _)| *t).unwrap_or(true);
    let rdma_priority = (0..8u8).find(|p| lossless & (1 << p) != 0);
    let switch_q = s
        .devices
        .iter()
        .filter(|d| d.role == Role::Switch)
        .flat_map(|d| d.ports.iter())
        .find(|p| p.link.is_some())
        .map(|p| &s.profiles[p.qos as usize]);
    let rdma_dscp = match (rdma_priority, switch_q) {
        (Some(r), Some(q)) => {
            let all: Vec<u8> = (0..64u8).filter(|d| q.dscp_to_priority[*d as usize] == r).collect();
            if all.contains(&26) {
                Some(26)
            } else {
                all.first().copied()
            }
        }
        _ => None,
    };
    let mut class_names: [Option<String>; 8] = Default::default();
    if let Some(r) = rdma_priority {
        class_names[r as usize] = Some("rdma".into());
    }
    Policy {
        lossless,
        rdma_priority,
        rdma_dscp,
        cnp_priority: None,
        cnp_dscp: None,
        trust: if dscp_trust { Trust::Dscp } else { Trust::Pcp },
        roce_mtu: 1024,
        dcqcn: false,
        response_time: Time::ns(1500),
        alpha: 0.125,
        class_names,
    }
}
