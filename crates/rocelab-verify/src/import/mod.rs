//! Importing the running configuration of existing devices into the configured state, so that
//! `rocelab check --import DIR [--links LINKS]` checks the fabric they form.
//!
//! Each file in the directory is one device (or, for hosts, one adapter port); its format is
//! recognised from its content ([`recognise`]):
//! - switches: Arista EOS `show running-config` ([`arista`]), SONiC `config_db.json`
//!   ([`sonic`]), NVIDIA Onyx (MLNX-OS) `show running-config` ([`onyx`]), HPE Comware `display
//!   current-configuration` ([`comware`]), NVIDIA Cumulus Linux NVUE `nv config show -o commands`
//!   or startup YAML ([`cumulus`]), Cisco NX-OS `show running-config` ([`nxos`]) and Dell OS10
//!   `show running-configuration` ([`os10`]), the last four through the typed configurations
//!   rocelab-config renders from;
//! - hosts: `mlnx_qos -i IF` output of a ConnectX adapter ([`mlnx_qos`]) and the Windows
//!   `Get-NetQosPolicy`, `Get-NetQosFlowControl`, `Get-NetQosTrafficClass`,
//!   `Get-NetQosDcbxSetting` and `Get-NetAdapterQos` output of one host, in one file
//!   ([`windows`]);
//! - cabling: LLDP neighbour tables ([`lldp`]: EOS `show lldp neighbors [detail]`, SONiC
//!   `show lldp table`, lldpd `lldpctl` / `lldpcli show neighbors`, `lldpctl -f keyvalue`),
//!   placed on ports by name, alias or MAC address (`import/cabling.rs`).
//!
//! Lines recognised as not bearing on QoS (AAA, NTP, logging, management, …) are counted
//! ([`Imported::ignored`]), not listed.
//!
//! Every line (or JSON key) an importer does not understand is reported with file and line;
//! none is dropped silently. A file in a format rocelab does not read is reported whole; a
//! JSON file that does not parse is an error at its line and column, and the other files are
//! read all the same ([`read_dir`]).
//!
//! The cabling comes from a links file ([`links`], YAML), from LLDP tables in the directory or
//! given as `--links`, or both: the links file is authoritative, LLDP adds the cables it does
//! not list. Without a `policy` in the links file the intent is inferred from what most devices
//! hold ([`crate::infer`]).

pub mod arista;
mod cabling;
pub mod columns;
pub mod comware;
pub mod cumulus;
mod files;
pub mod links;
pub mod lldp;
pub mod mlnx_qos;
pub mod nxos;
pub mod onyx;
pub mod os10;
pub mod sonic;
pub mod windows;

#[cfg(test)]
mod fuzz;

pub use files::{read_dir, DirFiles, FileError};

use crate::state::{DeviceState, End, LinkState, Origin, Policy, Pool, PortQos, PortState, State};
use links::{LinksFile, PolicyEntry};
use lldp::LldpTable;
use rocelab_model::fabric::Role;
use rocelab_model::qos::Marking;
use rocelab_model::units::{Length, Rate, Time};
use std::collections::HashMap;
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

/// The lines one of rocelab-config's parsers (Comware, Cumulus, NX-OS, OS10) did not
/// understand, in `file`.
fn unknown_lines(unknown: &[rocelab_config::cli_tree::Unknown], file: &str) -> Vec<NotUnderstood> {
    unknown.iter().map(|u| NotUnderstood { file: file.to_string(), line: u.line, text: u.text.clone() }).collect()
}

/// An imported fabric.
#[derive(Debug, Clone)]
pub struct Imported {
    pub state: State,
    pub not_understood: Vec<NotUnderstood>,
    /// Files whose content could not be read at all (a config_db.json cut short): the import
    /// went on without them, but the check is of a fabric missing their configuration.
    pub errors: Vec<FileError>,
    /// Findings about the import itself (`IMPORT-UNCABLED`, `IMPORT-LLDP-PORT`), to be shown
    /// with the checks' findings.
    pub findings: Vec<crate::finding::Finding>,
    /// Lines recognised as not bearing on QoS and skipped (AAA, NTP, logging, management ports,
    /// …), for the one summary line `N lines not related to QoS ignored`.
    pub ignored: usize,
}

/// A problem that stops the import (a file that cannot be read, a bad links file), with its
/// location where it has one (`file:line:column: path: message`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError(pub String);

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One device as an importer read it: ports by name (name, speed, QoS, line), each with its QoS.
/// A speed of zero means the source does not show it (the link's other end or the links file
/// gives it).
#[derive(Debug, Clone)]
pub struct DeviceConfig {
    pub name: String,
    pub platform: &'static str,
    pub role: Role,
    pub buffer: Option<u64>,
    pub ports: Vec<(String, Rate, PortQos, usize)>,
    /// For host adapters whose output does not name the port (`mlnx_qos` without its command
    /// line, Windows without `Get-NetAdapterQos`): the QoS of any port the cabling names.
    pub default_port: Option<PortQos>,
    pub vxlan: Option<rocelab_model::fabric::Vxlan>,
    pub pools: Vec<Pool>,
    pub file: String,
    pub not_understood: Vec<NotUnderstood>,
    /// Other names of ports (alias, port): SONiC's `PORT.<name>.alias` (`etp1`), which SONiC's
    /// lldpd sends as the port ID.
    pub aliases: Vec<(String, String)>,
    /// The MAC address of each port the capture shows (`ip link`, `Get-NetAdapter`), for LLDP
    /// neighbours that name the port by it.
    pub macs: Vec<(String, columns::Mac)>,
    /// Lines recognised as not bearing on QoS (AAA, NTP, logging, SNMP, management, spanning
    /// tree, …): counted, not listed.
    pub ignored: usize,
}

impl DeviceConfig {
    /// An empty configuration of a switch read from `file`.
    pub fn switch(name: String, platform: &'static str, file: &str) -> DeviceConfig {
        DeviceConfig {
            name,
            platform,
            role: Role::Switch,
            buffer: None,
            ports: Vec::new(),
            default_port: None,
            vxlan: None,
            pools: Vec::new(),
            file: file.into(),
            not_understood: Vec::new(),
            aliases: Vec::new(),
            macs: Vec::new(),
            ignored: 0,
        }
    }
}

/// What a file holds.
#[derive(Debug, Clone)]
pub enum Parsed {
    Config(Box<DeviceConfig>),
    Lldp(LldpTable),
    /// JSON (so a SONiC config_db.json) that does not parse, with where it stops.
    Broken(FileError),
}

/// The formats rocelab imports, as named in reports.
pub const FORMATS: &str = "Arista EOS running-config, SONiC config_db.json, NVIDIA Onyx running-config, HPE Comware current-configuration, Cumulus NVUE commands or startup.yaml, Cisco NX-OS running-config, Dell OS10 running-configuration, mlnx_qos -i output, Windows Get-NetQos*/Get-NetAdapterQos output, LLDP neighbours (EOS, SONiC, lldpctl)";

/// The LLDP neighbour tables rocelab reads for the cabling, as named in reports.
pub const LLDP_FORMATS: &str =
    "Arista EOS `show lldp neighbors`, SONiC `show lldp table`, lldpd `lldpctl` / `lldpcli show neighbors`";

/// The format of a file, recognised from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Sonic,
    Arista,
    Onyx,
    Comware,
    Cumulus,
    Nxos,
    Os10,
    MlnxQos,
    Windows,
    Lldp,
}

/// Recognises the format of a file from its content.
pub fn recognise(text: &str) -> Option<Format> {
    let t = text.trim_start();
    if t.starts_with('{') && (text.contains("\"PORT\"") || text.contains("\"DEVICE_METADATA\"")) {
        return Some(Format::Sonic);
    }
    if lldp::recognise(text) {
        return Some(Format::Lldp);
    }
    if mlnx_qos::recognise(text) {
        return Some(Format::MlnxQos);
    }
    if windows::recognise(text) {
        return Some(Format::Windows);
    }
    if cumulus::recognise(text) {
        return Some(Format::Cumulus);
    }
    if comware::recognise(text) {
        return Some(Format::Comware);
    }
    if onyx::recognise(text) {
        return Some(Format::Onyx);
    }
    // Before EOS's: NX-OS names its ports `Ethernet1/1` too.
    if nxos::recognise(text) {
        return Some(Format::Nxos);
    }
    if os10::recognise(text) {
        return Some(Format::Os10);
    }
    if text.lines().any(|l| l.starts_with("interface Ethernet")) || text.contains("! device: ") {
        return Some(Format::Arista);
    }
    None
}

/// Reads one file, recognising its format; `stem` names the device when the text does not.
pub fn read(text: &str, file: &str, stem: &str) -> Option<Parsed> {
    // The only JSON format is SONiC's; one that does not parse (often a copy cut short) is an
    // error at its place, whether or not the cut left its tables' names in. A file named `.json`
    // is taken for JSON whatever it starts with (an array, or text cut before its first brace).
    if files::is_json(text, file) {
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
            return Some(Parsed::Broken(files::json_error(text, file, &e)));
        }
    }
    Some(match recognise(text)? {
        Format::Sonic => Parsed::Config(Box::new(sonic::parse(text, file, stem))),
        Format::Arista => Parsed::Config(Box::new(arista::parse(text, file, stem))),
        Format::Onyx => Parsed::Config(Box::new(onyx::parse(text, file, stem))),
        Format::Comware => Parsed::Config(Box::new(comware::parse(text, file, stem))),
        Format::Cumulus => Parsed::Config(Box::new(cumulus::parse(text, file, stem))),
        Format::Nxos => Parsed::Config(Box::new(nxos::parse(text, file, stem))),
        Format::Os10 => Parsed::Config(Box::new(os10::parse(text, file, stem))),
        Format::MlnxQos => Parsed::Config(Box::new(mlnx_qos::parse(text, file, stem))),
        Format::Windows => Parsed::Config(Box::new(windows::parse(text, file, stem))),
        Format::Lldp => Parsed::Lldp(lldp::parse(text, file, stem)),
    })
}

/// Reads one configuration file, recognising its format (`None` for LLDP tables and formats
/// rocelab does not read).
pub fn read_config(text: &str, file: &str, stem: &str) -> Option<DeviceConfig> {
    match read(text, file, stem)? {
        Parsed::Config(c) => Some(*c),
        Parsed::Lldp(_) | Parsed::Broken(_) => None,
    }
}

pub(crate) fn parse_ref(text: &str) -> Option<(&str, &str)> {
    text.split_once(':').filter(|(d, p)| !d.is_empty() && !p.is_empty())
}

/// `0-2,4-7`, `3`, `3,5`: priorities as Windows, mlnx_qos and Onyx list them (each 0-7).
pub(crate) use rocelab_config::cli_tree::priority_list;

/// The device name of a file: its name up to the first dot.
fn stem_of(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    name.split('.').next().unwrap_or(&name).to_string()
}

fn read_text(path: &Path) -> Result<String, ImportError> {
    let bytes =
        rocelab_model::input::read_limited(path, rocelab_model::input::MAX_DEVICE_OUTPUT_BYTES, "an imported file")
            .map_err(|e| match e.io {
                Some(io) => ImportError(format!("{}: cannot read: {io}", path.display())),
                None => ImportError(e.message),
            })?;
    // PowerShell's `>` writes UTF-16LE with a byte-order mark; everything else is UTF-8.
    if bytes.starts_with(&[0xff, 0xfe]) {
        let units: Vec<u16> = bytes[2..].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        return Ok(String::from_utf16_lossy(&units));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        ImportError(format!("{}: not UTF-8 text (byte {} is not valid)", path.display(), e.utf8_error().valid_up_to()))
    })?;
    Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text))
}

fn files_of(dir: &Path) -> Result<Vec<std::path::PathBuf>, ImportError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| ImportError(format!("{}: cannot read the directory: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    Ok(entries)
}

/// Reads every file of `dir` and the cabling, and builds the state ([`read_dir`], then
/// [`import_files`]).
pub fn import_dir(dir: &Path, links: Option<&Path>) -> Result<Imported, ImportError> {
    import_files(read_dir(dir)?, dir, links)
}

/// Builds the state of the files read from `dir` and the cabling. `links` is a links file
/// (YAML), an LLDP capture, or a directory of LLDP captures; without it the LLDP captures in
/// `dir` give the cabling.
pub fn import_files(files: DirFiles, dir: &Path, links: Option<&Path>) -> Result<Imported, ImportError> {
    let DirFiles { configs, mut tables, seen, mut not_understood, errors } = files;
    if configs.is_empty() {
        return Err(ImportError(files::no_configuration(dir, &seen)));
    }
    let mut links_file = None;
    if let Some(l) = links {
        let paths = if l.is_dir() { files_of(l)? } else { vec![l.to_path_buf()] };
        for path in paths {
            let file = path.display().to_string();
            let text = match read_text(&path) {
                Ok(t) => t,
                // In a directory of captures, one that is not text is skipped like one in `dir`.
                Err(ImportError(e)) if l.is_dir() => {
                    not_understood.push(files::unreadable(&file, &e));
                    continue;
                }
                Err(e) => return Err(ImportError(format!("{e} (the links file)"))),
            };
            if lldp::recognise(&text) {
                tables.push(lldp::parse(&text, &file, &stem_of(&path)));
            } else if l.is_dir() {
                not_understood.push(NotUnderstood {
                    file,
                    line: 1,
                    text: "the whole file: not LLDP neighbour output".into(),
                });
            } else {
                links_file = Some((links::parse(&text, &file)?, file));
            }
        }
    }
    if links_file.is_none() && tables.is_empty() {
        return Err(ImportError(files::no_cabling(dir, &seen)));
    }
    let name = match (&links_file, links) {
        (Some(_), Some(l)) => l.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default(),
        _ => dir.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default(),
    };
    let mut imported = build(configs, links_file.as_ref().map(|(l, f)| (l, f.as_str())), &tables, &name)?;
    not_understood.extend(imported.not_understood);
    imported.not_understood = not_understood;
    // A device whose file could not be read has its error said already: that is why no link
    // reaches it.
    imported.findings.retain(|f| {
        f.id != "IMPORT-UNCABLED" || !errors.iter().any(|e| f.location.as_ref().is_some_and(|o| o.file == e.file))
    });
    imported.errors = errors;
    Ok(imported)
}

/// A port name as another device (LLDP) or the user writes it: `Et1` for `Ethernet1`,
/// `Eth1/1` for `eth1/1`. Names match when their numbers agree and one's letters begin the
/// other's, case aside.
fn port_matches(written: &str, configured: &str) -> bool {
    if written == configured {
        return true;
    }
    let split = |s: &str| {
        let i = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
        (s[..i].to_ascii_lowercase(), s[i..].to_string())
    };
    let ((wa, wn), (ca, cn)) = (split(written), split(configured));
    // Linux's `eth0` (SONiC's and Onyx's management port) is not an abbreviation of
    // `Ethernet0`: only a name written as the platform writes it, or EOS's short form, is.
    if written.starts_with("eth") && !configured.starts_with("eth") && wa == "eth" {
        return false;
    }
    !wn.is_empty() && wn == cn && (ca.starts_with(&wa) || wa.starts_with(&ca)) && !(wa.is_empty() ^ ca.is_empty())
}

/// The state under construction.
struct Builder {
    devices: Vec<DeviceState>,
    profiles: Vec<PortQos>,
    by_name: HashMap<String, usize>,
    /// Per device: the profile of ports the cabling names that its configuration does not
    /// list (host adapters), or `None` (switches: an error).
    default_port: Vec<Option<u32>>,
    /// Port speeds unknown to the source (zero).
    unknown: u32,
    links: Vec<LinkState>,
    /// Per link: where it came from (for errors about the second cabling of a port).
    link_origin: Vec<String>,
    /// Per device: its ports' other names (alias, port).
    aliases: Vec<Vec<(String, String)>>,
    /// Per device: its ports' MAC addresses.
    macs: Vec<Vec<(String, columns::Mac)>>,
}

impl Builder {
    fn add_host(&mut self, name: &str) -> usize {
        self.by_name.insert(name.to_string(), self.devices.len());
        self.devices.push(DeviceState {
            name: name.to_string(),
            role: Role::Host,
            platform: None,
            buffer: None,
            ports: Vec::new(),
            rdma: true,
            protocols: Vec::new(),
            vxlan: None,
            bonding: None,
            roce_lag: false,
            origin: None,
            pools: Vec::new(),
        });
        self.default_port.push(Some(self.unknown));
        self.aliases.push(Vec::new());
        self.macs.push(Vec::new());
        self.devices.len() - 1
    }

    /// A device by name, as written in a links file or LLDP (`spine1.lab.example` names
    /// `spine1`).
    fn find_device(&self, name: &str) -> Option<usize> {
        if let Some(d) = self.by_name.get(name) {
            return Some(*d);
        }
        let lower = name.to_ascii_lowercase();
        let short = lower.split('.').next().unwrap_or(&lower);
        self.devices.iter().position(|d| {
            let n = d.name.to_ascii_lowercase();
            n == lower || n == short || n.split('.').next() == Some(short)
        })
    }

    /// The port of a device by name, created for host adapters that take any port.
    fn find_port(&mut self, di: usize, port: &str) -> Option<usize> {
        let d = &mut self.devices[di];
        if let Some(p) = d.ports.iter().position(|p| p.name == port) {
            return Some(p);
        }
        if let Some((_, name)) = self.aliases[di].iter().find(|(a, _)| a == port) {
            if let Some(p) = d.ports.iter().position(|p| p.name == *name) {
                return Some(p);
            }
        }
        if let Some(p) = d.ports.iter().position(|p| port_matches(port, &p.name)) {
            return Some(p);
        }
        let qos = self.default_port[di]?;
        d.ports.push(PortState { name: port.to_string(), speed: Rate::gbps(0), link: None, qos, origin: None });
        Some(d.ports.len() - 1)
    }

    /// Cables two ends; `Ok(false)` when the same cable is already there.
    fn cable(
        &mut self,
        a: (usize, usize),
        b: (usize, usize),
        speed: Option<Rate>,
        cable: Option<Length>,
        origin: String,
    ) -> Result<bool, String> {
        for (x, y) in [(a, b), (b, a)] {
            if let Some(l) = self.devices[x.0].ports[x.1].link {
                let ls = &self.links[l as usize];
                let (e1, e2) = (ls.a, ls.b);
                let same = |e: End, t: (usize, usize)| e.device as usize == t.0 && e.port as usize == t.1;
                if (same(e1, x) && same(e2, y)) || (same(e2, x) && same(e1, y)) {
                    return Ok(false);
                }
                return Err(format!(
                    "port `{}:{}` is already cabled ({})",
                    self.devices[x.0].name, self.devices[x.0].ports[x.1].name, self.link_origin[l as usize]
                ));
            }
        }
        let li = self.links.len() as u32;
        let mut speeds = Vec::new();
        for (d, p) in [a, b] {
            self.devices[d].ports[p].link = Some(li);
            let s = self.devices[d].ports[p].speed;
            if s.bits_per_second() > 0 {
                speeds.push(s);
            }
        }
        let speed = speed.or_else(|| speeds.iter().min().copied()).unwrap_or(Rate::gbps(100));
        // The cable length a switch's buffers were configured for (SONiC `CABLE_LENGTH`): the
        // longer end's, as the headroom must cover it.
        let configured =
            [a, b].iter().filter_map(|(d, p)| self.profiles[self.devices[*d].ports[*p].qos as usize].cable).max();
        for (d, p) in [a, b] {
            let port = &mut self.devices[d].ports[p];
            if port.speed.bits_per_second() == 0 {
                port.speed = speed;
            }
        }
        self.links.push(LinkState {
            a: End { device: a.0 as u32, port: a.1 as u32 },
            b: End { device: b.0 as u32, port: b.1 as u32 },
            speed,
            // The cable length is not in a configuration or LLDP: 3 m, a rack's direct-attach
            // copper, unless the links file says.
            cable: cable.or(configured).unwrap_or(Length::metres(3)),
        });
        self.link_origin.push(origin);
        Ok(true)
    }
}

fn build(
    configs: Vec<DeviceConfig>,
    lf: Option<(&LinksFile, &str)>,
    tables: &[LldpTable],
    name: &str,
) -> Result<Imported, ImportError> {
    let mut b = Builder {
        devices: Vec::new(),
        profiles: Vec::new(),
        by_name: HashMap::new(),
        default_port: Vec::new(),
        unknown: 0,
        links: Vec::new(),
        link_origin: Vec::new(),
        aliases: Vec::new(),
        macs: Vec::new(),
    };
    let mut ignored = 0;
    let mut findings = Vec::new();
    let mut unknown = PortQos::unconfigured(1500);
    unknown.unknown = true;
    b.unknown = State::intern(&mut b.profiles, unknown);
    let mut not_understood = Vec::new();
    for c in configs {
        let default = c.default_port.map(|q| State::intern(&mut b.profiles, q));
        let ports: Vec<PortState> = c
            .ports
            .into_iter()
            .map(|(name, speed, q, line)| PortState {
                name,
                speed,
                link: None,
                qos: State::intern(&mut b.profiles, q),
                origin: Some(Origin { file: c.file.clone(), line }),
            })
            .collect();
        not_understood.extend(c.not_understood);
        ignored += c.ignored;
        if let Some(&di) = b.by_name.get(&c.name) {
            // One host, several adapter ports (one `mlnx_qos -i` capture per port).
            let d = &mut b.devices[di];
            if d.role == Role::Switch || c.role == Role::Switch {
                return Err(ImportError(format!("{}: a second configuration for device `{}`", c.file, c.name)));
            }
            for p in ports {
                if d.ports.iter().any(|q| q.name == p.name) {
                    return Err(ImportError(format!("{}: a second configuration for `{}:{}`", c.file, c.name, p.name)));
                }
                d.ports.push(p);
            }
            if b.default_port[di].is_none() {
                b.default_port[di] = default;
            }
            b.aliases[di].extend(c.aliases);
            b.macs[di].extend(c.macs);
            continue;
        }
        b.by_name.insert(c.name.clone(), b.devices.len());
        b.default_port.push(default);
        b.aliases.push(c.aliases);
        b.macs.push(c.macs);
        b.devices.push(DeviceState {
            name: c.name,
            role: c.role,
            platform: Some(c.platform.to_string()),
            buffer: c.buffer,
            ports,
            // Host adapters imported are RDMA adapters (ConnectX, Windows NetDirect/DCB).
            rdma: c.role != Role::Switch,
            protocols: Vec::new(),
            vxlan: c.vxlan,
            bonding: None,
            roce_lag: false,
            origin: Some(Origin { file: c.file, line: 1 }),
            pools: c.pools,
        });
    }
    if let Some((lf, lp)) = lf {
        for h in &lf.hosts {
            if b.find_device(h).is_none() {
                b.add_host(h);
            }
        }
        for (i, l) in lf.links.iter().enumerate() {
            let mut ends = Vec::new();
            for (key, text, at) in [("a", &l.a, l.a_at), ("b", &l.b, l.b_at)] {
                let loc = |msg: String| ImportError(format!("{lp}:{}:{}: links[{i}].{key}: {msg}", at.line, at.column));
                let (dev, port) = parse_ref(text).ok_or_else(|| loc(format!("`{text}` is not `device:port`")))?;
                let di = b.find_device(dev).ok_or_else(|| {
                    let known: Vec<&str> = b.devices.iter().map(|d| d.name.as_str()).collect();
                    let hint = rocelab_model::diag::did_you_mean(dev, known.iter().copied())
                        .map(|h| format!("; {h}"))
                        .unwrap_or_else(|| "; list hosts without a configuration under `hosts:`".into());
                    loc(format!("no device `{dev}`{hint}"))
                })?;
                let pi = b.find_port(di, port).ok_or_else(|| {
                    let d = &b.devices[di];
                    let hint = match (&d.origin, d.ports.is_empty()) {
                        // A config_db.json cut short is kept as a device with no ports: its
                        // error, printed before, is the cause.
                        (Some(o), true) => format!("; {} gave it no ports", o.file),
                        _ => rocelab_model::diag::did_you_mean(port, d.ports.iter().map(|p| p.name.as_str()))
                            .map(|h| format!("; {h}"))
                            .unwrap_or_default(),
                    };
                    loc(format!("device `{dev}` has no port `{port}` in its configuration{hint}"))
                })?;
                ends.push((di, pi));
            }
            let origin = format!("{lp}:{}: links[{i}]", l.a_at.line);
            b.cable(ends[0], ends[1], l.speed, l.cable, origin)
                .map_err(|e| ImportError(format!("{lp}:{}:{}: links[{i}]: {e}", l.a_at.line, l.a_at.column)))?;
        }
    }
    cabling::cable_lldp(
        &mut b,
        tables,
        &mut cabling::Out { not_understood: &mut not_understood, findings: &mut findings, ignored: &mut ignored },
    );
    // Host captures that do not show the MTU (zero) take their link's other end's.
    for l in b.links.clone() {
        for (e, peer) in [(l.a, l.b), (l.b, l.a)] {
            let q = &b.profiles[b.devices[e.device as usize].ports[e.port as usize].qos as usize];
            if q.mtu == 0 && !q.unknown {
                let mut q = q.clone();
                let pq = &b.profiles[b.devices[peer.device as usize].ports[peer.port as usize].qos as usize];
                q.mtu = if pq.mtu == 0 || pq.unknown { 1500 } else { pq.mtu };
                let qi = State::intern(&mut b.profiles, q);
                b.devices[e.device as usize].ports[e.port as usize].qos = qi;
            }
        }
    }
    let mut state = State {
        name: name.to_string(),
        devices: b.devices,
        links: b.links,
        profiles: b.profiles,
        policy: Policy {
            lossless: 0,
            rdma_priority: None,
            rdma_dscp: None,
            cnp_priority: None,
            cnp_dscp: None,
            trust: Marking::Dscp,
            roce_mtu: 1024,
            roce_mtu_stated: false,
            dcqcn: false,
            response_time: Time::ns(1500),
            alpha: 0.125,
            class_names: Default::default(),
            inferred: None,
        },
    };
    state.policy = match lf.and_then(|(l, _)| l.policy.as_ref()) {
        Some(p) => stated_policy(p, &state),
        None => inferred_policy(&state),
    };
    findings.extend(cabling::uncabled(&state));
    Ok(Imported { state, not_understood, errors: Vec::new(), findings, ignored })
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
        pol.roce_mtu_stated = true;
    }
    pol.class_names = Default::default();
    pol.inferred = None;
    if let Some(r) = pol.rdma_priority {
        pol.class_names[r as usize] = Some("rdma".into());
    }
    if let Some(c) = pol.cnp_priority {
        pol.class_names[c as usize & 7] = Some("cnp".into());
    }
    pol
}

/// What the devices agree on ([`crate::infer`]).
fn inferred_policy(s: &State) -> Policy {
    crate::infer::policy(s)
}
