//! # rocelab-config
//!
//! `rocelab config`: the fabric intent rendered as the exact commands that put it on every switch
//! and host, and a deployment runbook. Batfish's pipeline run in reverse: the resolved fabric
//! becomes a typed configuration per vendor ([`onyx::OnyxConfig`], [`comware::ComwareConfig`],
//! [`eos::EosConfig`], [`sonic::SonicConfig`], [`linux::LinuxHost`], [`windows::WindowsHost`]) by
//! a pure function that returns what it could not express as [`Finding`]s; Jinja templates
//! ([`templates`]) turn each typed configuration into text. Output is deterministic: the same
//! fabric and templates give the same bytes.
//!
//! The crate never prints and does no I/O beyond reading template overrides.

pub mod common;
pub mod comware;
pub mod eos;
pub mod finding;
pub mod linux;
pub mod onyx;
pub mod runbook;
pub mod sonic;
pub mod storage;
pub mod templates;
pub mod windows;

pub use finding::{Finding, Severity};
pub use templates::{TemplateError, Templates};

use rocelab_model::fabric::{Os, Platform};
use rocelab_model::resolve::ResolvedFabric;
use rocelab_model::Role;
use serde::Serialize;

/// Switch platforms rocelab renders, as the fabric file names them.
pub const SWITCH_PLATFORMS: &[&str] = &["nvidia-onyx", "hpe-comware", "arista-eos", "sonic"];
/// Host operating systems rocelab renders.
pub const HOST_OS: &[&str] = &["linux", "windows"];

/// A device's typed configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Typed {
    NvidiaOnyx(onyx::OnyxConfig),
    HpeComware(comware::ComwareConfig),
    AristaEos(eos::EosConfig),
    Sonic(SonicContext),
    Linux(linux::LinuxHost),
    Windows(windows::WindowsHost),
}

/// The SONiC template's context: the device name and its CONFIG_DB tables.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SonicContext {
    pub hostname: String,
    pub config_db: sonic::SonicConfig,
}

impl Typed {
    /// Template and file name suffix.
    pub fn template(&self) -> (&'static str, &'static str) {
        match self {
            Typed::NvidiaOnyx(_) => ("nvidia-onyx.j2", "onyx.txt"),
            Typed::HpeComware(_) => ("hpe-comware.j2", "comware.txt"),
            Typed::AristaEos(_) => ("arista-eos.j2", "eos.txt"),
            Typed::Sonic(_) => ("sonic.j2", "config_db.json"),
            Typed::Linux(_) => ("linux.sh.j2", "sh"),
            Typed::Windows(_) => ("windows.ps1.j2", "ps1"),
        }
    }
}

/// Why a device gets no configuration file.
fn cannot(d: &rocelab_model::ResolvedDevice, why: String) -> Finding {
    Finding::error(&d.name, None, why)
}

/// The typed configuration of device `device`, or the error saying why rocelab cannot give one.
/// `targets` are the fabric's storage targets ([`storage::targets`]), computed once.
pub fn build(f: &ResolvedFabric, device: usize, targets: &[usize]) -> Result<(Typed, Vec<Finding>), Finding> {
    let d = &f.devices[device];
    match d.role {
        Role::Switch => match d.platform.unwrap_or(Platform::Generic) {
            Platform::NvidiaOnyx => Ok(wrap(onyx::build(f, device), Typed::NvidiaOnyx)),
            Platform::HpeComware => Ok(wrap(comware::build(f, device), Typed::HpeComware)),
            Platform::AristaEos => Ok(wrap(eos::build(f, device), Typed::AristaEos)),
            Platform::Sonic => {
                let (c, w) = sonic::build(f, device);
                Ok((Typed::Sonic(SonicContext { hostname: d.name.clone(), config_db: c }), w))
            }
            other => Err(cannot(
                d,
                format!(
                    "rocelab config cannot render platform `{}`; the switch platforms it renders are {}",
                    common::platform_key(other),
                    SWITCH_PLATFORMS.join(", ")
                ),
            )),
        },
        Role::Host | Role::Storage => match d.os {
            Some(Os::Windows) => Ok(wrap(windows::build(f, device), Typed::Windows)),
            Some(Os::Linux) => Ok(wrap(linux::build(f, device, targets), Typed::Linux)),
            None => {
                let (h, mut w) = linux::build(f, device, targets);
                w.insert(0, Finding::warning(&d.name, None, "no `os` given: rendered for Linux".into()));
                Ok((Typed::Linux(h), w))
            }
            Some(Os::Appliance) => Err(Finding::warning(
                &d.name,
                None,
                "a storage appliance: configure its ports with the vendor's tools (PFC, DSCP/priority and MTU as in RUNBOOK.md)"
                    .into(),
            )),
            Some(Os::Esxi) => Err(cannot(
                d,
                format!("rocelab config cannot render ESXi hosts; the host systems it renders are {}", HOST_OS.join(", ")),
            )),
        },
    }
}

fn wrap<T>((c, w): (T, Vec<Finding>), f: impl Fn(T) -> Typed) -> (Typed, Vec<Finding>) {
    (f(c), w)
}

/// One device's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceFile {
    pub device: String,
    pub file_name: String,
    pub text: String,
}

/// Everything `rocelab config` writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub files: Vec<DeviceFile>,
    pub runbook: String,
    pub findings: Vec<Finding>,
}

/// One device rendered: its typed configuration and file (none when rocelab cannot configure
/// it), and the findings.
pub type Rendered1 = (Option<(Typed, DeviceFile)>, Vec<Finding>);

/// Renders one device: its file (none when rocelab cannot configure it) and findings.
pub fn render_one(
    f: &ResolvedFabric,
    device: usize,
    targets: &[usize],
    t: &Templates,
) -> Result<Rendered1, TemplateError> {
    let d = &f.devices[device];
    match build(f, device, targets) {
        Err(finding) => Ok((None, vec![finding])),
        Ok((typed, findings)) => {
            let (template, suffix) = typed.template();
            let text = match &typed {
                // The built-in sonic.j2 is `{{ config_db | tojson(indent=4) }}`: the same bytes
                // straight from serde_json, without building a template value of a spine's
                // hundreds of ports (tested equal in `sonic_fast_path_equals_the_template`).
                Typed::Sonic(s) if t.is_builtin(template) => sonic_json(&s.config_db),
                _ => t.render(template, &typed)?,
            };
            let file = DeviceFile { device: d.name.clone(), file_name: format!("{}.{suffix}", d.name), text };
            Ok((Some((typed, file)), findings))
        }
    }
}

/// CONFIG_DB tables as `config_db.json` text: four-space indent, keys sorted, final newline.
pub fn sonic_json(c: &sonic::SonicConfig) -> String {
    use serde::Serialize as _;
    let mut out = Vec::with_capacity(4096);
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b"    "));
    c.serialize(&mut ser).expect("string maps serialize");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Renders every device and the runbook.
pub fn render(f: &ResolvedFabric, t: &Templates) -> Result<Rendered, TemplateError> {
    let targets = storage::targets(f);
    let mut files = Vec::with_capacity(f.devices.len());
    let mut findings = Vec::new();
    let mut typed = Vec::with_capacity(f.devices.len());
    for i in 0..f.devices.len() {
        let (out, w) = render_one(f, i, &targets, t)?;
        findings.extend(w);
        if let Some((ty, file)) = out {
            typed.push((i, ty, file.file_name.clone()));
            files.push(file);
        }
    }
    let runbook = runbook::render(f, &typed, &findings, t)?;
    Ok(Rendered { files, runbook, findings })
}

/// Renders the device named `name`; an unknown name is an error with the closest names.
pub fn render_device(
    f: &ResolvedFabric,
    name: &str,
    t: &Templates,
) -> Result<(Option<DeviceFile>, Vec<Finding>), DeviceError> {
    let Some(i) = f.devices.iter().position(|d| d.name == name) else {
        let mut names: Vec<(usize, &str)> =
            f.devices.iter().map(|d| (edit_distance(&d.name, name), d.name.as_str())).collect();
        names.sort();
        return Err(DeviceError::NoSuchDevice {
            name: name.into(),
            closest: names.into_iter().take(3).map(|(_, n)| n.to_string()).collect(),
        });
    };
    let targets = storage::targets(f);
    let (out, w) = render_one(f, i, &targets, t).map_err(DeviceError::Template)?;
    Ok((out.map(|(_, file)| file), w))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceError {
    NoSuchDevice { name: String, closest: Vec<String> },
    Template(TemplateError),
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::NoSuchDevice { name, closest } => {
                write!(f, "no device `{name}` in the fabric; did you mean {}?", closest.join(", "))
            }
            DeviceError::Template(e) => write!(f, "{e}"),
        }
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
