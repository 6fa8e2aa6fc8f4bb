//! # rocelab-config
//!
//! `rocelab config`: the fabric intent rendered as the exact commands that put it on every switch
//! and host, and a deployment runbook. Batfish's pipeline run in reverse: the resolved fabric
//! becomes a typed configuration per vendor ([`onyx::OnyxConfig`], [`cumulus::CumulusConfig`],
//! [`comware::ComwareConfig`], [`eos::EosConfig`], [`sonic::SonicConfig`], [`nxos::NxosConfig`],
//! [`os10::Os10Config`], [`os9::Os9Config`], [`linux::LinuxHost`], [`windows::WindowsHost`]) by
//! a pure function that returns what it could not express as [`Finding`]s; Jinja templates
//! ([`templates`]) turn each typed configuration into text. Output is deterministic: the same
//! fabric and templates give the same bytes.
//!
//! The crate never prints and does no I/O beyond reading template overrides.

pub mod cli_tree;
pub mod common;
pub mod comware;
pub mod cumulus;
pub mod eos;
pub mod finding;
pub mod lag;
pub mod linux;
pub mod nxos;
pub mod onyx;
pub mod os10;
pub mod os9;
pub mod quote;
pub mod runbook;
mod runbook_switch;
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
pub const SWITCH_PLATFORMS: &[&str] =
    &["nvidia-onyx", "nvidia-cumulus", "hpe-comware", "arista-eos", "sonic", "cisco-nxos", "dell-os10", "dell-os9"];
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
    NvidiaCumulus(cumulus::CumulusConfig),
    CiscoNxos(nxos::NxosConfig),
    DellOs10(os10::Os10Config),
    DellOs9(os9::Os9Config),
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
            Typed::NvidiaCumulus(_) => ("nvidia-cumulus.j2", "nvue.sh"),
            Typed::CiscoNxos(_) => ("cisco-nxos.j2", "nxos.txt"),
            Typed::DellOs10(_) => ("dell-os10.j2", "os10.txt"),
            Typed::DellOs9(_) => ("dell-os9.j2", "os9.txt"),
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
        Role::Switch => {
            let platform = d.platform.unwrap_or(Platform::Generic);
            let mut built = switch(f, device, platform);
            if let Ok((_, w)) = &mut built {
                if !matches!(platform, Platform::Sonic | Platform::NvidiaCumulus) {
                    w.extend(lag::not_rendered(f, device, platform.name()));
                }
            }
            built
        }
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

/// A switch's typed configuration, by platform (see [`build`]).
fn switch(f: &ResolvedFabric, device: usize, platform: Platform) -> Result<(Typed, Vec<Finding>), Finding> {
    let d = &f.devices[device];
    match platform {
        Platform::NvidiaOnyx => Ok(wrap(onyx::build(f, device), Typed::NvidiaOnyx)),
        Platform::HpeComware => Ok(wrap(comware::build(f, device), Typed::HpeComware)),
        Platform::AristaEos => Ok(wrap(eos::build(f, device), Typed::AristaEos)),
        Platform::Sonic => {
            let (c, w) = sonic::build(f, device);
            Ok((Typed::Sonic(SonicContext { hostname: d.name.clone(), config_db: c }), w))
        }
        Platform::NvidiaCumulus => Ok(wrap(cumulus::build(f, device), Typed::NvidiaCumulus)),
        Platform::CiscoNxos => Ok(wrap(nxos::build(f, device), Typed::CiscoNxos)),
        Platform::DellOs10 => Ok(wrap(os10::build(f, device), Typed::DellOs10)),
        Platform::DellOs9 => Ok(wrap(os9::build(f, device), Typed::DellOs9)),
        Platform::Generic => Err(cannot(
            d,
            format!(
                "rocelab config cannot render platform `{}` (a switch of unknown make); the switch platforms it renders are {}",
                Platform::Generic.name(),
                SWITCH_PLATFORMS.join(", ")
            ),
        )),
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
                // A filter's refusal (a name a switch CLI cannot take) says which device.
                _ => t.render(template, &typed).map_err(|mut e| {
                    e.message = format!("device `{}`: {}", d.name, e.message);
                    e
                })?,
            };
            let file = DeviceFile { device: d.name.clone(), file_name: format!("{}.{suffix}", d.name), text };
            Ok((Some((typed, file)), findings))
        }
    }
}

/// CONFIG_DB tables as `config_db.json` text: four-space indent, keys sorted, final newline.
pub fn sonic_json(c: &sonic::SonicConfig) -> String {
    use serde::Serialize as _;
    // About 1.3 kB per port (its PORT, PORT_QOS_MAP, QUEUE, BUFFER_* , CABLE_LENGTH and PFC_WD
    // entries): sized once rather than grown through a spine's megabyte.
    let mut out = Vec::with_capacity(8192 + 1400 * c.port.len());
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b"    "));
    c.serialize(&mut ser).expect("string maps serialize");
    out.push(b'\n');
    out.shrink_to_fit();
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// One device's share of [`render_into`]: whether it has a file, its findings and runbook steps.
type DeviceOutput = (bool, Vec<Finding>, Option<runbook::DeviceSteps>);

/// A thread's devices in order, or the first error it met (with the device index).
type Part<E> = Result<Vec<(usize, DeviceOutput)>, (usize, RenderError<E>)>;

/// Why [`render_into`] stopped: a template failed, or the sink refused a file (for instance
/// a write error).
#[derive(Debug)]
pub enum RenderError<E> {
    Template(TemplateError),
    Sink(E),
}

impl<E: std::fmt::Display> std::fmt::Display for RenderError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::Template(e) => write!(f, "{e}"),
            RenderError::Sink(e) => write!(f, "{e}"),
        }
    }
}

/// What [`render_into`] keeps once every file has gone to the sink.
#[derive(Debug)]
pub struct RenderedSummary {
    /// Device files made (and given to the sink).
    pub files: usize,
    pub runbook: String,
    pub findings: Vec<Finding>,
}

/// Renders devices `first, first + step, …`, each file handed to `put` as soon as it is made:
/// a device's typed configuration and text live only until then, so a fabric of tens of
/// thousands of hosts is not held in memory as a whole (a k = 64 fat tree's files are 255 MB).
fn render_some<E>(
    f: &ResolvedFabric,
    targets: &[usize],
    t: &Templates,
    (first, step): (usize, usize),
    put: &(dyn Fn(usize, DeviceFile) -> Result<(), E> + Sync),
) -> Part<E> {
    let mut out = Vec::with_capacity(f.devices.len() / step + 1);
    for i in (first..f.devices.len()).step_by(step) {
        let (rendered, findings) = render_one(f, i, targets, t).map_err(|e| (i, RenderError::Template(e)))?;
        let (has_file, steps) = match rendered {
            Some((typed, file)) => {
                let steps = runbook::steps(&typed, &file.file_name, t.save());
                put(i, file).map_err(|e| (i, RenderError::Sink(e)))?;
                (true, Some(steps))
            }
            None => (false, None),
        };
        out.push((i, (has_file, findings, steps)));
    }
    Ok(out)
}

/// Fabrics with at least this many devices are rendered on several threads.
const PARALLEL_FROM: usize = 256;

/// Renders every device and the runbook, in memory: [`render_into`] with the files kept, in
/// device order.
pub fn render(f: &ResolvedFabric, t: &Templates) -> Result<Rendered, TemplateError> {
    let files = std::sync::Mutex::new(Vec::new());
    let put = |i: usize, file: DeviceFile| -> Result<(), std::convert::Infallible> {
        files.lock().unwrap_or_else(|e| e.into_inner()).push((i, file));
        Ok(())
    };
    let summary = render_into(f, t, &put).map_err(|e| match e {
        RenderError::Template(e) => e,
        RenderError::Sink(never) => match never {},
    })?;
    let mut files = files.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort_unstable_by_key(|(i, _)| *i);
    Ok(Rendered {
        files: files.into_iter().map(|(_, f)| f).collect(),
        runbook: summary.runbook,
        findings: summary.findings,
    })
}

/// Renders every device, handing each file to `put` (with its device index) as soon as it is
/// made, and then the runbook. Large fabrics are rendered on as many threads as the machine has
/// cores, devices dealt round-robin (spines and leaves are listed together and cost the most),
/// so `put` is called from several threads in no set order; the findings and the runbook are
/// put back in device order, so the output does not depend on the number of threads.
pub fn render_into<E: Send>(
    f: &ResolvedFabric,
    t: &Templates,
    put: &(dyn Fn(usize, DeviceFile) -> Result<(), E> + Sync),
) -> Result<RenderedSummary, RenderError<E>> {
    let targets = storage::targets(f);
    let n = f.devices.len();
    let threads =
        if n < PARALLEL_FROM { 1 } else { std::thread::available_parallelism().map_or(1, |c| c.get()).min(n) };
    let parts: Vec<Part<E>> = if threads == 1 {
        vec![render_some(f, &targets, t, (0, 1), put)]
    } else {
        std::thread::scope(|s| {
            let targets = &targets;
            let handles: Vec<_> =
                (0..threads).map(|k| s.spawn(move || render_some(f, targets, t, (k, threads), put))).collect();
            handles.into_iter().map(|h| h.join().expect("a rendering thread panicked")).collect()
        })
    };
    // The first error in device order, whatever thread met it.
    let mut ok = Vec::with_capacity(threads);
    let mut first_error: Option<(usize, RenderError<E>)> = None;
    for p in parts {
        match p {
            Ok(v) => ok.push(v),
            Err(e) if first_error.as_ref().is_none_or(|(i, _)| e.0 < *i) => first_error = Some(e),
            Err(_) => {}
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    let mut all: Vec<(usize, DeviceOutput)> = ok.into_iter().flatten().collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    let mut files = 0;
    let mut findings = Vec::new();
    let mut steps = Vec::with_capacity(n);
    for (i, (has_file, w, s)) in all {
        findings.extend(w);
        files += usize::from(has_file);
        if let Some(s) = s {
            steps.push((i, s));
        }
    }
    let runbook = runbook::render(f, steps, &findings, t).map_err(RenderError::Template)?;
    Ok(RenderedSummary { files, runbook, findings })
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
