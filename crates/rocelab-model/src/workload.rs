//! What runs on the fabric in a simulation: flows at a constant rate or on/off, sized flows, and
//! the traffic patterns the literature and the seeds use (N:1 incast, permutation,
//! all-to-all), perftest runs ([`crate::perftest`]), plus the run settings (simulated duration,
//! seed, queue sampling interval, NIC profile), flows with CDF sizes and Poisson arrivals, and
//! flows imported from HPCC flow files. Checked against the fabric (every host and class named
//! must exist, CDF and flow files read) in `validate/workload.rs` and `validate/flows.rs`; what
//! an entry selects on the resolved fabric is in [`crate::select`].
//!
//! A flow between two RoCE hosts runs over an RDMA RC queue pair (`transport: rc`, the
//! default there): a sized flow is one RDMA WRITE of its size (`op: read` or `op: send` for the
//! others), an unsized one repeats 64 KiB messages, `rate` caps the QP. Between two iWARP hosts
//! the same messages run over iWARP (`transport: iwarp`, the default there: RDMA over a TCP
//! connection). `transport: tcp` is a TCP bulk transfer (`rate` paces its writes).
//! `transport: raw` sends open-loop RoCEv2 packets instead (no ACKs, retransmission or
//! congestion control), the default when a host has no RDMA adapter.

use crate::cdf::{CdfSource, FlowSizeCdf};
use crate::de::recover_vec;
use crate::units::{Rate, Size, Time};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// How a flow is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowTransport {
    /// An RDMA Reliable Connected queue pair.
    Rc,
    /// Open-loop RoCEv2 packets.
    Raw,
    /// A TCP connection (the hosts' TCP stacks; `rate` paces the application's writes).
    Tcp,
    /// RDMA messages over iWARP (a TCP connection between iWARP adapters).
    Iwarp,
}

/// The RDMA operation of an RC flow's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FlowOp {
    #[default]
    Write,
    Read,
    Send,
}

/// A NIC timing profile of the simulator (`rocelab_sim::NicProfile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NicProfileName {
    /// No NIC or PCIe latency, the host never a bottleneck.
    Ideal,
    /// ConnectX-4 100GbE on PCIe Gen3 x16, calibrated to Oracle's OFA 2017 measurements.
    #[serde(rename = "connectx-4")]
    Connectx4,
}

/// How long to simulate and what to record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated time to run; default 10 ms.
    #[serde(default = "default_duration")]
    pub duration: Time,
    /// Seed of every random choice (ECN marking, ECMP salt, arrivals); default 1.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Seeds `rocelab sim --all` runs every variant and sweep point under, one run each, so
    /// that the report can show how much a figure moves with the random choices alone; empty
    /// (the default): one run per point under `seed`. At most [`MAX_SEEDS`], no repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<u64>,
    /// Queue depth sampling interval, like Arista LANZ's polling; default 10 µs.
    #[serde(default = "default_sample")]
    pub sample_interval: Time,
    /// NIC timing profile of every host; default: `connectx-4` for NVIDIA/Mellanox ConnectX
    /// adapters (the one calibrated profile), `ideal` for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_profile: Option<NicProfileName>,
    /// How the simulator models frames, links and switches: a profile (`hardware`, the default,
    /// or `hpcc-compat`) and overrides (see [`crate::simmodel`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::simmodel::SimModel>,
}

/// Most seeds one point runs under (`simulation.seeds`, `rocelab sim --seeds`): a sweep
/// multiplies its runs by this, and the spread of a figure is already clear with a few.
pub const MAX_SEEDS: usize = 64;

fn default_duration() -> Time {
    Time::ms(10)
}
fn default_seed() -> u64 {
    1
}
fn default_sample() -> Time {
    Time::us(10)
}

impl Default for Simulation {
    fn default() -> Self {
        Simulation {
            duration: default_duration(),
            seed: default_seed(),
            seeds: Vec::new(),
            sample_interval: default_sample(),
            nic_profile: None,
            model: None,
        }
    }
}

impl Simulation {
    /// The simulation model in force: `model` resolved over its profile (the `hardware`
    /// profile when `model` is not given).
    pub fn resolved_model(&self) -> crate::simmodel::ResolvedSimModel {
        self.model.clone().unwrap_or_default().resolve()
    }
}

/// A rate, or `line` for the sender's port speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateSpec {
    #[default]
    Line,
    Rate(Rate),
}

impl RateSpec {
    /// The rate in force on a port running at `line`.
    pub fn at(self, line: Rate) -> Rate {
        match self {
            RateSpec::Line => line,
            RateSpec::Rate(r) => r.min(line),
        }
    }
}

impl Serialize for RateSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RateSpec::Line => s.serialize_str("line"),
            RateSpec::Rate(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for RateSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RateSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a rate such as `25G`, or `line` for the port's speed")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RateSpec, E> {
                if v == "line" {
                    return Ok(RateSpec::Line);
                }
                v.parse().map(RateSpec::Rate).map_err(|e: crate::units::UnitError| E::custom(e.message))
            }
        }
        d.deserialize_str(V)
    }
}

/// One flow between two hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Traffic class (by name) the flow is marked with.
    pub class: String,
    /// Sending rate; default `line`.
    #[serde(default)]
    pub rate: RateSpec,
    /// Bytes to send; without it the flow sends until `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    #[serde(default)]
    pub start: Time,
    /// Default: the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// On/off source: send for `on`, pause for `off`, repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<Time>,
    /// `rc` (an RDMA queue pair; default between RoCE hosts), `iwarp` (RDMA over TCP; default
    /// between iWARP hosts), `tcp`, or `raw` (open loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<FlowTransport>,
    /// RDMA operation of an RC flow: `write` (default), `read` or `send`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<FlowOp>,
    /// Window of the flows' queue pairs (`none`, packets, or a size), over the adapter's and
    /// `fabric.rdma`'s (see [`crate::transport::Window`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::transport::Window>,
}

/// N senders to one receiver, all at once: the storage read / partition-aggregate pattern that
/// fills a switch egress queue and triggers PFC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Incast {
    pub name: String,
    /// Host names; `host1-8` is a range.
    pub senders: Vec<String>,
    pub receiver: String,
    pub class: String,
    #[serde(default)]
    pub rate: RateSpec,
    /// Bytes per sender; without it senders send until `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    #[serde(default)]
    pub start: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// `rc` (an RDMA queue pair; default between RoCE hosts), `iwarp` (RDMA over TCP; default
    /// between iWARP hosts), `tcp`, or `raw` (open loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<FlowTransport>,
    /// RDMA operation of an RC flow: `write` (default), `read` or `send`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<FlowOp>,
    /// Window of the flows' queue pairs (`none`, packets, or a size), over the adapter's and
    /// `fabric.rdma`'s (see [`crate::transport::Window`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::transport::Window>,
    /// Repeat the incast every this long (each round sends `size` from every sender again),
    /// until the run ends, `stop`, or `count` rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<Time>,
    /// Number of rounds of a repeated incast; default as many as fit before the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
}

impl Incast {
    /// Start times of the incast's rounds in a run of `sim`: `start`, then every `every` while
    /// before `stop` (or the end of the run) and fewer than `count`.
    pub fn rounds(&self, sim: &Simulation) -> Vec<Time> {
        let Some(every) = self.every.filter(|e| e.0 > 0) else { return vec![self.start] };
        let end = self.stop.unwrap_or(sim.duration).min(sim.duration);
        let max = self.count.map(|c| c as u64).unwrap_or(u64::MAX);
        let mut out = Vec::new();
        let mut t = self.start.0;
        while t < end.0 && (out.len() as u64) < max && out.len() < MAX_INCAST_ROUNDS {
            out.push(Time(t));
            t = t.saturating_add(every.0);
        }
        out
    }
}

impl Incast {
    /// How many rounds [`Incast::rounds`] lists, without listing them (it stops at
    /// [`MAX_INCAST_ROUNDS`]; this does not).
    pub fn round_count(&self, sim: &Simulation) -> u64 {
        let Some(every) = self.every.filter(|e| e.0 > 0) else { return 1 };
        let end = self.stop.unwrap_or(sim.duration).min(sim.duration);
        let span = end.0.saturating_sub(self.start.0);
        let fit = span.div_ceil(every.0);
        self.count.map_or(fit, |c| fit.min(u64::from(c)))
    }
}

/// Most rounds a repeated incast may have.
pub const MAX_INCAST_ROUNDS: usize = 1_000_000;

/// Every host sends to one other host and receives from one (a random permutation without
/// fixed points, drawn from the run's seed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permutation {
    pub name: String,
    /// Hosts taking part; default every host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    pub class: String,
    #[serde(default)]
    pub rate: RateSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    #[serde(default)]
    pub start: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// `rc` (an RDMA queue pair; default between RoCE hosts), `iwarp` (RDMA over TCP; default
    /// between iWARP hosts), `tcp`, or `raw` (open loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<FlowTransport>,
    /// RDMA operation of an RC flow: `write` (default), `read` or `send`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<FlowOp>,
    /// Window of the flows' queue pairs (`none`, packets, or a size), over the adapter's and
    /// `fabric.rdma`'s (see [`crate::transport::Window`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::transport::Window>,
}

/// Every host sends to every other host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllToAll {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    pub class: String,
    #[serde(default)]
    pub rate: RateSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    #[serde(default)]
    pub start: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// `rc` (an RDMA queue pair; default between RoCE hosts), `iwarp` (RDMA over TCP; default
    /// between iWARP hosts), `tcp`, or `raw` (open loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<FlowTransport>,
    /// RDMA operation of an RC flow: `write` (default), `read` or `send`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<FlowOp>,
    /// Window of the flows' queue pairs (`none`, packets, or a size), over the adapter's and
    /// `fabric.rdma`'s (see [`crate::transport::Window`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::transport::Window>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Workloads {
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<Flow>,
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub incast: Vec<Incast>,
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub permutation: Vec<Permutation>,
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub all_to_all: Vec<AllToAll>,
    /// perftest runs (`ib_write_bw`, `ib_write_lat`, ...).
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub perftest: Vec<crate::perftest::Perftest>,
    /// Flow sizes from a CDF, Poisson arrivals at a load.
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub poisson: Vec<Poisson>,
    /// Flows imported from ns-3 HPCC flow files.
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub hpcc_flows: Vec<HpccFlows>,
    /// fio-like storage jobs (see [`crate::storage`]).
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<crate::storage::Job>,
    /// iperf-like TCP transfers.
    #[serde(default, deserialize_with = "recover_vec", skip_serializing_if = "Vec::is_empty")]
    pub iperf: Vec<crate::storage::Iperf>,
}

impl Workloads {
    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
            && self.incast.is_empty()
            && self.permutation.is_empty()
            && self.all_to_all.is_empty()
            && self.perftest.is_empty()
            && self.poisson.is_empty()
            && self.hpcc_flows.is_empty()
            && self.jobs.is_empty()
            && self.iperf.is_empty()
    }
}

/// Flows with sizes drawn from a CDF, arriving at every host of `hosts` as a Poisson process
/// whose rate makes the offered load `load` of the host's link rate:
/// mean size / mean inter-arrival = load × link rate (the generator's definition). Each flow
/// goes to a host drawn uniformly from the others of the set; arrivals, sizes and destinations
/// come from the run's seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Poisson {
    pub name: String,
    /// Hosts that send and receive; default every host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    pub class: String,
    /// Flow-size distribution: the path of a CDF file (`size cumulative_percent` lines) or
    /// `[size, percent]` points.
    pub cdf: CdfSource,
    /// Offered load per host as a fraction of its link rate, above 0 and at most 1.
    pub load: f64,
    /// First possible arrival.
    #[serde(default)]
    pub start: Time,
    /// How long flows arrive; default until the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Time>,
    /// The distribution, read and checked when the scenario loads.
    #[serde(skip)]
    pub distribution: Option<FlowSizeCdf>,
}

impl Poisson {
    /// End of the arrival window in a run of `sim`.
    pub fn end(&self, sim: &Simulation) -> Time {
        match self.duration {
            Some(d) => Time(self.start.0.saturating_add(d.0).min(sim.duration.0)),
            None => sim.duration,
        }
    }
}

/// Flows imported from an ns-3 HPCC flow file (see [`crate::hpcc_flows`]), whose node ids are
/// those of an HPCC topology imported with `topology: {import: {hpcc: ...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccFlows {
    pub name: String,
    /// The flow file, relative to the scenario file's directory.
    pub file: String,
    /// Class of every flow; without it, each flow's priority column picks the class with that
    /// priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Shift the flows so that the earliest starts here (HPCC traces start at 2 s, when that
    /// simulator's warm-up ends); default: the times as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    /// Window of the flows' queue pairs (`none`, packets, or a size), over the adapter's and
    /// `fabric.rdma`'s (see [`crate::transport::Window`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::transport::Window>,
    /// The flows, read and checked when the scenario loads.
    #[serde(skip)]
    pub flows: Vec<ImportedFlow>,
}

/// One flow of a flow file, mapped onto the fabric.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedFlow {
    /// Line in the flow file.
    pub line: usize,
    /// Device indices of the sender and receiver.
    pub src: usize,
    pub dst: usize,
    /// Index of the class in `fabric.qos.classes`.
    pub class: usize,
    /// UDP destination port as written (HPCC's analysis tells incast (200) from background
    /// (100) flows by it).
    pub dport: u16,
    pub size: u64,
    /// Start, after the shift.
    pub start: Time,
}

/// Most flows a workload may generate before the run is refused (each costs about 100 bytes
/// before the run and a slot in the results).
pub const MAX_FLOWS: f64 = 10_000_000.0;
