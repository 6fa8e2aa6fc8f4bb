//! Storage and TCP in the scenario: fio-like storage jobs and iperf-like TCP flows (under
//! `workloads`), a host's TCP stack and CPU (on devices), and the model of a storage target
//! (under a device's `storage`). Checked against the fabric (every host, target, protocol and
//! class named must exist and fit) in `validate/storage.rs`.
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

use crate::units::{Rate, Size, Time};
use serde::{Deserialize, Serialize};

/// The storage protocols of a target and a job, named as in a fabric file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum StorageProtocol {
    NvmeRdma,
    NvmeTcp,
    Iser,
    Iscsi,
    SmbDirect,
    Smb,
    NfsRdma,
    NfsTcp,
}

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
    /// Block size; a bare number is bytes, as fio and vdbench read it.
    #[serde(alias = "xfersize", deserialize_with = "crate::units::bare_bytes")]
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
    /// Region each clone addresses; default 1GiB. A bare number is bytes, as fio reads it.
    #[serde(default, deserialize_with = "crate::units::bare_bytes_opt", skip_serializing_if = "Option::is_none")]
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

/// Whether a storage protocol runs over RDMA.
pub fn is_rdma(p: StorageProtocol) -> bool {
    matches!(
        p,
        StorageProtocol::NvmeRdma | StorageProtocol::Iser | StorageProtocol::SmbDirect | StorageProtocol::NfsRdma
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_are_named_as_in_a_fabric_file() {
        assert_eq!(protocol_name(StorageProtocol::NvmeRdma), "nvme-rdma");
        assert!(is_rdma(StorageProtocol::SmbDirect));
        assert!(!is_rdma(StorageProtocol::NvmeTcp));
    }
}
