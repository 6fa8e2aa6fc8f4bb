//! Storage results of a run: per job what fio reports (IOPS, bandwidth, completion latency
//! percentiles, per direction), per host its CPU utilisation and CPU effectiveness over the
//! measured window, per target device its counters; and the jobs as fio's JSON output.

use super::cpu::CpuResults;
use super::job::{DirResults, RwMode};
use super::protocol::ProtocolKind;
use crate::time::{Time, SECOND};
use serde::{Deserialize, Serialize};

/// One job's results (all its clones together, fio's `group_reporting`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StorageJobResults {
    /// Index of the job.
    pub job: usize,
    /// Job name.
    pub name: String,
    /// Initiator host.
    pub initiator: usize,
    /// Target host.
    pub target: usize,
    /// Protocol.
    pub protocol: ProtocolKind,
    /// fio's `rw`.
    pub rw: RwMode,
    /// Block size.
    pub bs: u32,
    /// IOs outstanding per clone.
    pub iodepth: u32,
    /// Clones.
    pub numjobs: u32,
    /// When it started.
    pub start_ps: Time,
    /// Warm-up, not measured.
    pub ramp_ps: Time,
    /// Measured time.
    pub runtime_ps: Time,
    /// Sessions its clones ran on.
    pub sessions: u32,
    /// Reads completed in the measured window.
    pub read: DirResults,
    /// Writes completed in the measured window.
    pub write: DirResults,
    /// The initiator host's CPU over its measured window (all it ran), with this job's CPU
    /// effectiveness: the job's MB/s per percent of the host's processor.
    pub initiator_cpu: CpuResults,
}

impl StorageJobResults {
    /// Bytes per second, reads and writes together.
    pub fn bw_bytes(&self) -> f64 {
        self.read.bw_bytes + self.write.bw_bytes
    }

    /// IOs per second, reads and writes together.
    pub fn iops(&self) -> f64 {
        self.read.iops + self.write.iops
    }
}

/// One host's CPU over the measured window of the jobs it took part in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostCpuResults {
    /// Node.
    pub node: usize,
    /// Its name.
    pub name: String,
    /// Start of the window: the earliest start of a measured window among its jobs.
    pub window_from_ps: Time,
    /// End of the window: the latest end.
    pub window_to_ps: Time,
    /// Bytes of the IOs it initiated or served that completed in their jobs' windows.
    pub bytes: u64,
    /// Utilisation, busiest core, effectiveness (MB/s of `bytes` per % of all cores).
    pub cpu: CpuResults,
}

/// One storage device's counters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetResults {
    /// Node.
    pub node: usize,
    /// Its name.
    pub name: String,
    /// The device profile.
    pub profile: String,
    /// IOs serviced (commands).
    pub completed: u64,
    /// Most IOs waiting for a slot at once.
    pub peak_queue: u64,
}

/// The jobs as fio's JSON output (`--output-format=json`) writes them: per job `jobname`,
/// `read` and `write` blocks with `io_bytes`, `bw_bytes`, `iops`, `runtime` (ms), `total_ios`
/// and `clat_ns` (`min`, `max`, `mean`, `percentile` keyed as fio keys them), and the host CPU
/// (`usr_cpu` + `sys_cpu` in percent: the model does not split them, all is in `sys_cpu`).
pub fn fio_json(jobs: &[StorageJobResults], node_name: impl Fn(usize) -> String) -> serde_json::Value {
    use serde_json::json;
    let dir = |d: &DirResults, runtime: Time| {
        let c = &d.clat_ns;
        json!({
            "io_bytes": d.io_bytes,
            "io_kbytes": d.io_bytes / 1024,
            "bw_bytes": d.bw_bytes.round() as u64,
            "bw": (d.bw_bytes / 1024.0).round() as u64,
            "iops": d.iops,
            "runtime": runtime / (SECOND / 1000),
            "total_ios": d.total_ios,
            "clat_ns": {
                "min": c.min_ns,
                "max": c.max_ns,
                "mean": c.mean_ns,
                "N": c.count,
                "percentile": {
                    "50.000000": c.p50_ns,
                    "99.000000": c.p99_ns,
                    "99.900000": c.p99_9_ns,
                },
            },
        })
    };
    let jobs: Vec<serde_json::Value> = jobs
        .iter()
        .map(|j| {
            json!({
                "jobname": j.name,
                "groupid": 0,
                "error": 0,
                "job options": {
                    "rw": serde_json::to_value(j.rw).unwrap_or_default(),
                    "bs": j.bs.to_string(),
                    "iodepth": j.iodepth.to_string(),
                    "numjobs": j.numjobs.to_string(),
                    "runtime": format!("{}us", j.runtime_ps / (SECOND / 1_000_000)),
                    "ramp_time": format!("{}us", j.ramp_ps / (SECOND / 1_000_000)),
                    "ioengine": serde_json::to_value(j.protocol).unwrap_or_default(),
                    "filename": format!("{}:{}", node_name(j.initiator), node_name(j.target)),
                },
                "read": dir(&j.read, j.runtime_ps),
                "write": dir(&j.write, j.runtime_ps),
                "usr_cpu": 0.0,
                "sys_cpu": j.initiator_cpu.utilization * 100.0,
            })
        })
        .collect();
    json!({ "fio version": concat!("rocelab-", env!("CARGO_PKG_VERSION")), "jobs": jobs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::histogram::LatencySummary;

    #[test]
    fn fio_json_has_fios_keys() {
        let d = DirResults {
            total_ios: 10,
            io_bytes: 40960,
            iops: 1000.0,
            bw_bytes: 4_096_000.0,
            clat_ns: LatencySummary {
                count: 10,
                min_ns: 90,
                mean_ns: 100.0,
                p50_ns: 100,
                p99_ns: 120,
                p99_9_ns: 130,
                max_ns: 130,
            },
        };
        let j = StorageJobResults {
            job: 0,
            name: "w4k".into(),
            initiator: 1,
            target: 2,
            protocol: ProtocolKind::NvmeRdma,
            rw: RwMode::RandWrite,
            bs: 4096,
            iodepth: 1,
            numjobs: 1,
            start_ps: 0,
            ramp_ps: 0,
            runtime_ps: 10 * crate::time::MS,
            sessions: 1,
            read: DirResults::default(),
            write: d,
            initiator_cpu: CpuResults { cores: 16, utilization: 0.02, busiest_core: 0.3, effectiveness: 2.0 },
        };
        assert_eq!(j.bw_bytes(), 4_096_000.0);
        let v = fio_json(&[j], |n| format!("h{n}"));
        let job = &v["jobs"][0];
        assert_eq!(job["jobname"], "w4k");
        assert_eq!(job["write"]["clat_ns"]["percentile"]["99.000000"], 120);
        assert_eq!(job["write"]["runtime"], 10);
        assert_eq!(job["write"]["bw"], 4000);
        assert_eq!(job["read"]["total_ios"], 0);
        assert_eq!(job["job options"]["filename"], "h1:h2");
        assert!((job["sys_cpu"].as_f64().unwrap() - 2.0).abs() < 1e-9);
    }
}
