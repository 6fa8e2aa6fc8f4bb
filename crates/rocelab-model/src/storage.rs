//! Storage and TCP in the scenario: fio-like storage jobs and iperf-like TCP flows (under
//! `workloads`), a host's TCP stack and CPU (on devices), and the model of a storage target
//! (under a device's `storage`). Checked against the fabric: every host, target, protocol and
//! class named must exist and fit.
//!
//! ```yaml
//! workloads:
//!   jobs:
//!     - {name: w4k, rw: randwrite, bs: 4KiB, iodepth: 1, numjobs: 1, runtime: 20ms,
//!        protocol: nvme-rdma, initiator: host1, target: array1}
//!   iperf:
//!     - {name: cross1, client: iperf1, server: iperf3, class: default, parallel: 4}
//! ```
//!
//! Job fields are fio's (`rw`, `bs`, `iodepth`, `numjobs`, `runtime`, `ramp_time`, `rwmixread`,
//! `size`, `percentage_random`); vdbench's names are accepted for the same things (`xfersize` for
//! `bs`, `threads` for `iodepth`, `rdpct` for `rwmixread`, `elapsed` for `runtime`, `warmup` for
//! `ramp_time`). A DISKSPD line maps as `-b` → `bs`, `-o` → `iodepth`, `-t` → `numjobs`,
//! `-w N` → `rwmixread: 100−N`, `-r` → `randrw` (or `randread`/`randwrite`), `-s` → `rw`,
//! `-d` → `runtime`, `-W` → `ramp_time`.

use crate::diag::{problem, Problem};
use crate::fabric::{Device, RdmaKind, Role, Scenario, StorageProtocol};
use crate::resolve::{ResolvedDevice, ResolvedFabric};
use crate::units::{Rate, Size, Time};
use crate::workload::expand_hosts;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// fio's `rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mixed (fio `rw`, also `readwrite`).
    #[serde(alias = "readwrite")]
    Rw,
    RandRw,
}

impl Rw {
    pub fn is_mixed(self) -> bool {
        matches!(self, Rw::Rw | Rw::RandRw)
    }
}

/// Which RDMA transport a job uses on adapters that do both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RdmaTransport {
    /// RoCEv2.
    Roce,
    /// iWARP (RDMA over TCP).
    Iwarp,
}

/// One storage job, fio style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    pub name: String,
    pub rw: Rw,
    /// Block size.
    #[serde(alias = "xfersize")]
    pub bs: Size,
    /// IOs outstanding per clone; default 1.
    #[serde(default = "one", alias = "threads")]
    pub iodepth: u32,
    /// Clones, each with its own `iodepth`; default 1.
    #[serde(default = "one")]
    pub numjobs: u32,
    /// Measured time.
    #[serde(alias = "elapsed")]
    pub runtime: Time,
    /// Warm-up before measuring; default none.
    #[serde(default, alias = "warmup", alias = "ramp")]
    pub ramp_time: Time,
    /// When the job starts; default 0.
    #[serde(default)]
    pub start: Time,
    /// Percent reads of `rw`/`randrw`; fio's default 50.
    #[serde(default, alias = "rdpct", skip_serializing_if = "Option::is_none")]
    pub rwmixread: Option<u8>,
    /// Region each clone addresses; default 1GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Percent of IOs at random offsets (vdbench `seekpct`), overriding the mode.
    #[serde(default, alias = "seekpct", skip_serializing_if = "Option::is_none")]
    pub percentage_random: Option<u8>,
    pub protocol: StorageProtocol,
    /// The host(s) running the job; `host1-4` runs it on each.
    pub initiator: String,
    /// The storage device. It may be the initiator itself when that is a host with `storage`
    /// (a hyperconverged node reading its local copy): the IOs then go to its own device
    /// without crossing the network.
    pub target: String,
    /// Traffic class; default the lossless RDMA class for RDMA protocols, else the first lossy
    /// class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// RoCE or iWARP, on adapters that run both; default what the adapters run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdma: Option<RdmaTransport>,
}

fn one() -> u32 {
    1
}

/// TCP congestion control, by Linux's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// RFC 5681/6582 (Linux `reno`).
    #[serde(alias = "reno")]
    NewReno,
    /// RFC 9438, Linux's default.
    Cubic,
    /// RFC 8257 (needs ECN).
    Dctcp,
}

/// An iperf-like bulk TCP transfer between two hosts (iperf3 options in brackets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Iperf {
    pub name: String,
    /// Sending host (`iperf3 -c`).
    pub client: String,
    /// Receiving host (`iperf3 -s`).
    pub server: String,
    /// Traffic class; default the first lossy class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Parallel connections (`-P`); default 1.
    #[serde(default = "one")]
    pub parallel: u32,
    #[serde(default)]
    pub start: Time,
    /// Default: the end of the run (`-t`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// Bytes to send per connection (`-n`); default unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Size>,
    /// Paced rate per connection (`-b`); default unpaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitrate: Option<Rate>,
    /// Socket buffer (`-w`); default the hosts' TCP settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Size>,
    /// Congestion control of these connections (`-C`); default the client's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion_control: Option<CongestionControl>,
    /// `TCP_NODELAY` (`-N`).
    #[serde(default)]
    pub nodelay: bool,
}

/// A host's TCP stack (Linux sysctl and socket names in brackets); unset fields keep the
/// simulator's Linux defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TcpSettings {
    /// `net.ipv4.tcp_congestion_control`; default cubic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion_control: Option<CongestionControl>,
    /// `net.ipv4.tcp_window_scaling`; default on. Off caps the window at 64 KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_scaling: Option<bool>,
    /// Delayed ACKs (`TCP_QUICKACK` off); default on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timeout; default 40ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<Time>,
    /// Nagle's algorithm (`TCP_NODELAY` off); default on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nagle: Option<bool>,
    /// Minimum retransmission timeout (`ip route ... rto_min`); default 200ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Time>,
    /// `net.ipv4.tcp_ecn`; default off (DCTCP turns it on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Receive buffer (`net.ipv4.tcp_rmem` maximum); default 6MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_buffer: Option<Size>,
    /// Initial congestion window in segments (`ip route ... initcwnd`); default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// `net.ipv4.tcp_timestamps`; default on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// `net.ipv4.tcp_sack` (selective acknowledgements); default on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Tail loss probes (RFC 8985 §7; `net.ipv4.tcp_early_retrans = 3`); default on, as in
    /// Linux since 3.10. They need SACK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_loss_probe: Option<bool>,
    /// RACK loss detection (RFC 8985 §6; `net.ipv4.tcp_recovery = 1`); default on, as in Linux
    /// since 4.10. It needs SACK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// Proportional Rate Reduction (RFC 6937) paces SACK recovery and the reduction after an ECN
    /// echo; default on, as in Linux since 3.2, which has no sysctl for it. Off models an older
    /// kernel: the window drops to `ssthresh` when the reduction begins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    /// HyStart ends CUBIC's slow start on a train of ACKs lasting half the minimum RTT or on a
    /// rising RTT, before a loss (`/sys/module/tcp_cubic/parameters/hystart`); default on, as in
    /// Linux 3.0 already. CUBIC only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hystart: Option<bool>,
}

/// A host's processors, for the CPU cost model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    /// Cores (hardware threads the OS schedules on).
    pub cores: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The built-in storage device models (see `rocelab_sim::storage::target::TargetProfile` for
/// their numbers and sources).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StorageProfile {
    /// A RAM disk (Linux LIO `rd_mcp`).
    Ramdisk,
    /// A data-centre NVMe SSD.
    NvmeSsd,
    /// Pure Storage FlashArray//X, from the Arista/Pure paper.
    PureFlasharrayX,
    /// A Dell EqualLogic PS6110XV member (15K SAS, RAID 10).
    DellPs6110xv,
    /// A Storage Spaces Direct node, from Microsoft's FastLinQ post.
    S2dNode,
}

/// Service time of one operation type: a mean and, optionally, a 99th percentile (lognormal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    pub mean: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99: Option<Time>,
}

/// Overrides of a storage profile's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TargetModel {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_latency: Option<Latency>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_latency: Option<Latency>,
    /// IOs serviced at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Read throughput ceiling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_limit: Option<Rate>,
    /// Write throughput ceiling (an array's write limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_limit: Option<Rate>,
}

impl Latency {
    fn check(&self, path: &str, problems: &mut Vec<Problem>) {
        if self.mean == Time::ZERO {
            problems.push(problem(format!("{path}.mean"), "the mean must be above 0".into()));
        }
        if let Some(p99) = self.p99 {
            // A lognormal with this mean and p99 exists for mean ≤ p99 ≤ e^(z²/2)·mean ≈ 14.9·mean.
            if p99 < self.mean || p99.as_ps() as f64 > 14.9 * self.mean.as_ps() as f64 {
                problems.push(problem(
                    format!("{path}.p99"),
                    format!("p99 {p99} must be between the mean ({}) and 14.9 times it for a lognormal", self.mean),
                ));
            }
        }
    }
}

impl TargetModel {
    fn check(&self, path: &str, problems: &mut Vec<Problem>) {
        if let Some(l) = &self.read_latency {
            l.check(&format!("{path}.read_latency"), problems);
        }
        if let Some(l) = &self.write_latency {
            l.check(&format!("{path}.write_latency"), problems);
        }
        if self.concurrency == Some(0) {
            problems.push(problem(format!("{path}.concurrency"), "at least one IO must be serviced at a time".into()));
        }
        for (f, r) in [("read_limit", self.read_limit), ("write_limit", self.write_limit)] {
            if r == Some(Rate(0)) {
                problems.push(problem(format!("{path}.{f}"), "a throughput limit must be above 0".into()));
            }
        }
    }
}

/// Checks the device-level settings (TCP stack, CPU, storage model) of listed devices.
fn check_devices(devices: &[Device], problems: &mut Vec<Problem>) {
    for (i, d) in devices.iter().enumerate() {
        let p = format!("fabric.topology.devices[{i}]");
        if d.role == Role::Switch {
            for (set, what) in [(d.tcp.is_some(), "tcp"), (d.cpu.is_some(), "cpu")] {
                if set {
                    problems.push(problem(
                        format!("{p}.{what}"),
                        format!("`{what}` is for hosts and storage, not switches"),
                    ));
                }
            }
        }
        if let Some(t) = &d.tcp {
            let tp = format!("{p}.tcp");
            if t.min_rto == Some(Time::ZERO) {
                problems.push(problem(format!("{tp}.min_rto"), "the minimum RTO must be above 0".into()));
            }
            if t.initial_window == Some(0) {
                problems
                    .push(problem(format!("{tp}.initial_window"), "the initial window is at least 1 segment".into()));
            }
            if t.receive_buffer.is_some_and(|b| b.as_bytes() < 2048) {
                problems.push(problem(
                    format!("{tp}.receive_buffer"),
                    "the receive buffer must hold a segment (2KiB or more)".into(),
                ));
            }
            if t.congestion_control == Some(CongestionControl::Dctcp) && t.ecn == Some(false) {
                problems.push(problem(format!("{tp}.ecn"), "DCTCP needs ECN: remove `ecn: false`".into()));
            }
            if t.delayed_ack_timeout == Some(Time::ZERO) {
                problems.push(problem(format!("{tp}.delayed_ack_timeout"), "the timeout must be above 0".into()));
            }
        }
        if d.cpu.as_ref().is_some_and(|c| c.cores == 0) {
            problems.push(problem(format!("{p}.cpu.cores"), "a host has at least one core".into()));
        } else if let Some(c) = d.cpu.as_ref().filter(|c| c.cores > MAX_CORES) {
            problems.push(problem(
                format!("{p}.cpu.cores"),
                format!("{} cores; rocelab models at most {MAX_CORES} on one host", c.cores),
            ));
        }
        if let Some(m) = d.storage.as_ref().and_then(|s| s.model.as_ref()) {
            m.check(&format!("{p}.storage.model"), problems);
        }
    }
}

/// The host named `name` (as workloads find theirs: [`crate::workload::host_index`]), or a
/// problem at `path`.
fn host(fabric: &ResolvedFabric, name: &str, path: String, problems: &mut Vec<Problem>) -> Option<usize> {
    match crate::workload::host_index(fabric, name) {
        Ok(i) => Some(i),
        Err((message, suggestion)) => {
            let mut p = problem(path, message);
            p.diag.suggestion = suggestion;
            problems.push(p);
            None
        }
    }
}

fn default_class(fabric: &ResolvedFabric, rdma: bool) -> Option<&str> {
    let c = if rdma { fabric.qos.rdma_class() } else { fabric.qos.classes.iter().find(|c| !c.lossless) };
    c.or(fabric.qos.classes.first()).map(|c| c.name.as_str())
}

fn check_class(fabric: &ResolvedFabric, class: &Option<String>, path: String, problems: &mut Vec<Problem>) {
    if let Some(c) = class {
        crate::workload::check_class(fabric, c, path, problems);
    }
}

/// The RDMA kind of a device's adapters (the first adapter that has one).
fn rdma_of(d: &ResolvedDevice) -> RdmaKind {
    d.nics.iter().map(|n| n.rdma_kind()).find(|k| *k != RdmaKind::None).unwrap_or(RdmaKind::None)
}

fn rdma_fits(kind: RdmaKind, want: Option<RdmaTransport>) -> bool {
    match (kind, want) {
        (RdmaKind::None, _) => false,
        (_, None) | (RdmaKind::RoceAndIwarp, _) => true,
        (RdmaKind::Iwarp, Some(t)) => t == RdmaTransport::Iwarp,
        (RdmaKind::RoceV1 | RdmaKind::RoceV2, Some(t)) => t == RdmaTransport::Roce,
    }
}

/// The class a job's packets carry: its `class`, else the lossless (RDMA) class for RDMA
/// protocols and the first lossy class for the others, else the first class.
pub fn job_class<'a>(fabric: &'a ResolvedFabric, j: &'a Job) -> Option<&'a str> {
    j.class.as_deref().or_else(|| default_class(fabric, is_rdma(j.protocol)))
}

/// The RDMA transport an RDMA job runs on between `initiator` and `target`: its `rdma` when
/// given, else iWARP when either adapter runs iWARP only, else RoCE (adapters that run both
/// default to RoCE).
pub fn job_rdma(fabric: &ResolvedFabric, j: &Job, initiator: usize, target: usize) -> RdmaTransport {
    j.rdma.unwrap_or_else(|| {
        let iwarp = [initiator, target].iter().any(|&d| rdma_of(&fabric.devices[d]) == RdmaKind::Iwarp);
        if iwarp {
            RdmaTransport::Iwarp
        } else {
            RdmaTransport::Roce
        }
    })
}

/// Whether a storage protocol runs over RDMA.
pub fn is_rdma(p: StorageProtocol) -> bool {
    matches!(
        p,
        StorageProtocol::NvmeRdma | StorageProtocol::Iser | StorageProtocol::SmbDirect | StorageProtocol::NfsRdma
    )
}

fn check_job(j: &Job, p: &str, sim_end: Time, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    let initiators = expand_hosts(std::slice::from_ref(&j.initiator), fabric, &format!("{p}.initiator"), problems);
    let initiators: Vec<usize> = initiators.into_iter().filter(|&i| fabric.devices[i].role != Role::Switch).collect();
    let target = host(fabric, &j.target, format!("{p}.target"), problems);
    let rdma = is_rdma(j.protocol);
    if let Some(t) = target {
        let td = &fabric.devices[t];
        match &td.storage {
            None => problems.push(problem(
                format!("{p}.target"),
                format!("`{}` serves no storage: give it `storage: {{kind: …, protocols: […]}}`", td.name),
            )),
            Some(s) if !s.protocols.contains(&j.protocol) => {
                let offered: Vec<String> = s.protocols.iter().map(|x| protocol_name(*x)).collect();
                let mut pr = problem(
                    format!("{p}.protocol"),
                    format!("`{}` does not serve {}", td.name, protocol_name(j.protocol)),
                );
                pr.diag.expected = Some(if offered.is_empty() {
                    "none offered".into()
                } else {
                    format!("one of {}", offered.join(", "))
                });
                problems.push(pr);
            }
            Some(_) => {}
        }
        // A hyperconverged host (Storage Spaces Direct) reads its own copy: allowed for hosts,
        // which the simulator serves locally; an array is never its own initiator.
        if initiators.contains(&t) && td.role != Role::Host {
            problems.push(problem(format!("{p}.target"), format!("`{}` is also an initiator of this job", td.name)));
        }
        if rdma && !rdma_fits(rdma_of(td), j.rdma) {
            problems.push(problem(format!("{p}.target"), rdma_message(td, j)));
        }
    }
    if rdma {
        for &i in &initiators {
            let d = &fabric.devices[i];
            if !rdma_fits(rdma_of(d), j.rdma) {
                problems.push(problem(format!("{p}.initiator"), rdma_message(d, j)));
            }
        }
    } else if j.rdma.is_some() {
        problems.push(problem(
            format!("{p}.rdma"),
            format!("{} runs over TCP; `rdma` applies to RDMA protocols only", protocol_name(j.protocol)),
        ));
    }
    let bs = j.bs.as_bytes();
    if bs == 0 || bs % 512 != 0 || bs > u32::MAX as u64 {
        problems.push(problem(
            format!("{p}.bs"),
            format!("the block size {} must be a multiple of 512 bytes (a sector), below 4GiB", j.bs),
        ));
    }
    for (f, v, max) in [("iodepth", j.iodepth, MAX_IODEPTH), ("numjobs", j.numjobs, MAX_NUMJOBS)] {
        if v == 0 {
            problems.push(problem(format!("{p}.{f}"), format!("`{f}` must be at least 1")));
        } else if v > max {
            problems.push(problem(format!("{p}.{f}"), format!("`{f}` is {v}; rocelab runs at most {max}")));
        }
    }
    let outstanding = u64::from(j.iodepth) * u64::from(j.numjobs);
    if j.iodepth <= MAX_IODEPTH && j.numjobs <= MAX_NUMJOBS && outstanding > MAX_OUTSTANDING_IOS {
        problems.push(problem(
            format!("{p}.iodepth"),
            format!(
                "iodepth {} × numjobs {} is {outstanding} IOs outstanding; rocelab runs at most {MAX_OUTSTANDING_IOS} per initiator",
                j.iodepth, j.numjobs
            ),
        ));
    }
    for (f, v) in [("rwmixread", j.rwmixread), ("percentage_random", j.percentage_random)] {
        if v.is_some_and(|v| v > 100) {
            problems.push(problem(format!("{p}.{f}"), format!("`{f}` is a percentage, 0 to 100")));
        }
    }
    if j.rwmixread.is_some() && !j.rw.is_mixed() {
        problems
            .push(problem(format!("{p}.rwmixread"), "`rwmixread` applies to `rw: rw` and `rw: randrw` only".into()));
    }
    if j.size.is_some_and(|s| s.as_bytes() == 0) {
        problems.push(problem(format!("{p}.size"), "the region must be above 0 bytes".into()));
    } else if j.size.is_some_and(|s| s.as_bytes() < j.bs.as_bytes()) {
        problems.push(problem(format!("{p}.size"), format!("the region is smaller than one block ({})", j.bs)));
    }
    if j.runtime == Time::ZERO {
        problems.push(problem(format!("{p}.runtime"), "the runtime must be above 0".into()));
    }
    let end = Time(j.start.0.saturating_add(j.ramp_time.0).saturating_add(j.runtime.0));
    if end > sim_end {
        problems.push(problem(
            format!("{p}.runtime"),
            format!("start + ramp_time + runtime ends at {end}, after the end of the run ({sim_end}); raise `simulation.duration`"),
        ));
    }
    check_class(fabric, &j.class, format!("{p}.class"), problems);
    if j.class.is_none() && default_class(fabric, rdma).is_none() {
        problems.push(problem(
            format!("{p}.class"),
            "no traffic class to carry the job; declare one in `fabric.qos.classes`".into(),
        ));
    }
}

fn rdma_message(d: &ResolvedDevice, j: &Job) -> String {
    match j.rdma {
        Some(t) => format!(
            "{} over {} needs {} on `{}`'s adapter (it has `rdma: {}`)",
            protocol_name(j.protocol),
            if t == RdmaTransport::Roce { "RoCE" } else { "iWARP" },
            if t == RdmaTransport::Roce { "RoCE" } else { "iWARP" },
            d.name,
            rdma_kind_name(rdma_of(d)),
        ),
        None => format!(
            "{} needs RDMA, and `{}`'s adapter has none (`rdma: none`); use the TCP protocol or an RDMA adapter",
            protocol_name(j.protocol),
            d.name
        ),
    }
}

fn rdma_kind_name(k: RdmaKind) -> &'static str {
    match k {
        RdmaKind::RoceV2 => "roce-v2",
        RdmaKind::RoceV1 => "roce-v1",
        RdmaKind::Iwarp => "iwarp",
        RdmaKind::RoceAndIwarp => "roce-and-iwarp",
        RdmaKind::None => "none",
    }
}

/// The protocol's name as written in a scenario.
pub fn protocol_name(p: StorageProtocol) -> String {
    serde_json::to_value(p).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Most parallel connections of one iperf run: iperf3's own cap on `-P` (`MAX_STREAMS`, 128, in
/// its `src/iperf.h`; above it iperf3 stops with "Number of parallel streams too large").
pub const MAX_IPERF_PARALLEL: u32 = 128;

/// Most IOs outstanding per job clone: 65536, the deepest NVMe queue (the specification's 16-bit
/// queue size); fio's `iodepth` goes no further on any engine that reaches a device.
pub const MAX_IODEPTH: u32 = 65536;

/// Most clones of one job: 4096, fio threads or processes far past the cores of any host.
pub const MAX_NUMJOBS: u32 = 4096;

/// Most IOs one job keeps outstanding on one initiator (`iodepth` × `numjobs`): about a million,
/// so that the simulator's per-IO state stays within a few hundred MB per job.
pub const MAX_OUTSTANDING_IOS: u64 = 1 << 20;

/// Most cores of one host: 4096, above the hardware threads of the largest servers (two
/// 192-core processors with SMT are 768).
pub const MAX_CORES: u32 = 4096;

fn check_iperf(x: &Iperf, p: &str, sim_end: Time, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    let c = host(fabric, &x.client, format!("{p}.client"), problems);
    let s = host(fabric, &x.server, format!("{p}.server"), problems);
    if c.is_some() && c == s {
        problems.push(problem(format!("{p}.server"), format!("iperf `{}` sends to its own client", x.name)));
    }
    check_class(fabric, &x.class, format!("{p}.class"), problems);
    if x.parallel == 0 {
        problems.push(problem(format!("{p}.parallel"), "at least one connection".into()));
    } else if x.parallel > MAX_IPERF_PARALLEL {
        let mut pr = problem(
            format!("{p}.parallel"),
            format!("{} connections; iperf3 runs at most {MAX_IPERF_PARALLEL} (`-P`)", x.parallel),
        );
        pr.diag.suggestion = Some("run several iperf entries between other hosts for more connections".into());
        problems.push(pr);
    }
    if x.bytes.is_some_and(|b| b.as_bytes() == 0) {
        problems.push(problem(
            format!("{p}.bytes"),
            "the bytes to send must be above 0; leave `bytes` out to send until the end".into(),
        ));
    }
    if x.stop.is_some_and(|s| s <= x.start) {
        problems.push(problem(format!("{p}.stop"), format!("stop is not after start {}", x.start)));
    }
    if x.start >= sim_end {
        problems.push(problem(
            format!("{p}.start"),
            format!("start {} is at or after the end of the run ({sim_end}); raise `simulation.duration`", x.start),
        ));
    }
    if x.bitrate == Some(Rate(0)) {
        problems.push(problem(format!("{p}.bitrate"), "the bitrate must be above 0".into()));
    }
    if x.window.is_some_and(|w| w.as_bytes() < 2048) {
        problems.push(problem(format!("{p}.window"), "the window must hold a segment (2KiB or more)".into()));
    }
}

/// Checks jobs, iperf flows and the devices' TCP, CPU and storage settings.
pub(crate) fn check(scenario: &Scenario, fabric: &ResolvedFabric, problems: &mut Vec<Problem>) {
    check_devices(&scenario.fabric.topology.devices, problems);
    let w = &scenario.workloads;
    let end = scenario.simulation.duration;
    let mut names: HashSet<&str> = w.flows.iter().map(|f| f.name.as_str()).collect();
    names.extend(w.incast.iter().map(|f| f.name.as_str()));
    names.extend(w.permutation.iter().map(|f| f.name.as_str()));
    names.extend(w.all_to_all.iter().map(|f| f.name.as_str()));
    let all = w.jobs.iter().map(|j| ("jobs", &j.name)).chain(w.iperf.iter().map(|x| ("iperf", &x.name)));
    let mut index = std::collections::HashMap::new();
    for (list, name) in all {
        let i = index.entry(list).and_modify(|i| *i += 1).or_insert(0usize);
        if !names.insert(name) {
            problems.push(problem(format!("workloads.{list}[{i}].name"), format!("duplicate workload name `{name}`")));
        }
    }
    for (i, j) in w.jobs.iter().enumerate() {
        check_job(j, &format!("workloads.jobs[{i}]"), end, fabric, problems);
    }
    for (i, x) in w.iperf.iter().enumerate() {
        check_iperf(x, &format!("workloads.iperf[{i}]"), end, fabric, problems);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rdma_transport_fits_the_adapter() {
        assert!(rdma_fits(RdmaKind::RoceV2, None));
        assert!(rdma_fits(RdmaKind::RoceV2, Some(RdmaTransport::Roce)));
        assert!(!rdma_fits(RdmaKind::RoceV2, Some(RdmaTransport::Iwarp)));
        assert!(rdma_fits(RdmaKind::RoceAndIwarp, Some(RdmaTransport::Iwarp)));
        assert!(!rdma_fits(RdmaKind::None, None));
        assert_eq!(protocol_name(StorageProtocol::NvmeRdma), "nvme-rdma");
    }
}
