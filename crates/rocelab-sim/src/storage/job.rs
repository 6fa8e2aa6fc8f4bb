//! fio-like jobs: what IO a job issues, when, and what it reports.
//!
//! A [`JobSpec`] holds fio's parameters (`rw`, `bs`, `iodepth`, `numjobs`, `runtime`,
//! `ramp_time`, `rwmixread`, `size`, `percentage_random`); vdbench's and DISKSPD's parameters
//! map onto it ([`JobSpec::from_vdbench`], [`JobSpec::from_diskspd`]). Each of the `numjobs`
//! clones is a [`JobEngine`]: a closed loop that keeps `iodepth` IOs outstanding
//! (fio's libaio/io_uring engines with `iodepth_batch` 1), issues a new IO as soon as one
//! completes, and records completion latency (issue to completion, fio's `clat`) of the IOs that
//! complete inside the measured window [`start + ramp`, `start + ramp + runtime`) into a
//! [`LatencyHistogram`] per direction. Results are what fio prints per job: IOPS, bandwidth
//! and `clat` min/avg/p50/p99/p99.9/max.

use super::histogram::{LatencyHistogram, LatencySummary};
use crate::rng::{mix64, Rng};
use crate::time::{Time, SECOND};
use serde::{Deserialize, Serialize};

/// Direction of one IO.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoOp {
    /// Data from target to initiator.
    Read,
    /// Data from initiator to target.
    Write,
}

/// fio's `rw` (a.k.a. `readwrite`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Random reads.
    RandRead,
    /// Random writes.
    RandWrite,
    /// Sequential mixed reads and writes (`rw` / `readwrite`), split by `rwmixread`.
    #[serde(alias = "readwrite")]
    Rw,
    /// Random mixed reads and writes, split by `rwmixread`.
    RandRw,
}

impl RwMode {
    /// Percent of reads this mode issues (`rwmixread` for the mixed modes).
    pub fn read_percent(self, rwmixread: u8) -> u8 {
        match self {
            RwMode::Read | RwMode::RandRead => 100,
            RwMode::Write | RwMode::RandWrite => 0,
            RwMode::Rw | RwMode::RandRw => rwmixread.min(100),
        }
    }
    /// Percent of IOs at a random offset (fio's `percentage_random` default for the mode).
    pub fn random_percent(self) -> u8 {
        match self {
            RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw => 100,
            _ => 0,
        }
    }
}

/// One job as fio describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// Job name.
    pub name: String,
    /// IO pattern.
    pub rw: RwMode,
    /// Block size, bytes.
    pub bs: u32,
    /// IOs kept outstanding per clone.
    pub iodepth: u32,
    /// Clones of the job, each with its own `iodepth`.
    pub numjobs: u32,
    /// Measured duration (fio `runtime` with `time_based`).
    pub runtime: Time,
    /// Warm-up before measuring (fio `ramp_time`; vdbench `warmup`, DISKSPD `-W`).
    pub ramp: Time,
    /// Percent reads of the mixed modes; fio's default 50.
    pub rwmixread: u8,
    /// Region each clone addresses, bytes (offsets only matter to targets that care, e.g.
    /// disks seeking); default 1 GiB.
    pub size: u64,
    /// Percent of IOs at random offsets, overriding the mode's (fio `percentage_random`,
    /// vdbench `seekpct`).
    pub percentage_random: Option<u8>,
    /// Seed of the random choices (mixed reads/writes, random offsets).
    pub seed: u64,
}

impl JobSpec {
    /// A job with fio's defaults for what is not given.
    pub fn new(name: &str, rw: RwMode, bs: u32, iodepth: u32, runtime: Time) -> Self {
        JobSpec {
            name: name.to_string(),
            rw,
            bs: bs.max(1),
            iodepth: iodepth.max(1),
            numjobs: 1,
            runtime,
            ramp: 0,
            rwmixread: 50,
            size: 1 << 30,
            percentage_random: None,
            seed: 1,
        }
    }

    /// A vdbench storage definition and workload: `sd=… threads=T` (outstanding IOs to the SD,
    /// vdbench's default 8), `wd=… xfersize=X rdpct=R seekpct=S` (`seekpct=0` sequential,
    /// `100` or `random` random, values between give that share of random IOs), `rd=…
    /// elapsed=E warmup=W`. One vdbench SD becomes one job with `iodepth = threads`; several
    /// SDs (the EqualLogic paper's "8 volumes x 5 threads") are `numjobs` clones.
    pub fn from_vdbench(name: &str, v: &Vdbench) -> Self {
        let rw = match (v.rdpct, v.seekpct) {
            (100, 0) => RwMode::Read,
            (0, 0) => RwMode::Write,
            (100, _) => RwMode::RandRead,
            (0, _) => RwMode::RandWrite,
            (_, 0) => RwMode::Rw,
            _ => RwMode::RandRw,
        };
        JobSpec {
            numjobs: v.sds.max(1),
            ramp: v.warmup,
            rwmixread: v.rdpct.min(100),
            percentage_random: (v.seekpct != 0 && v.seekpct < 100).then_some(v.seekpct),
            ..JobSpec::new(name, rw, v.xfersize, v.threads, v.elapsed)
        }
    }

    /// A DISKSPD command line: `-b` block size (default 64 KiB), `-o` outstanding IOs per
    /// thread (default 2), `-t` threads per target (default 1), `-w` write percent (default
    /// 0), `-r` random or `-s` sequential, `-d` duration (default 10 s), `-W` warm-up (default
    /// 5 s). Each thread is a clone with `iodepth = -o`; `rwmixread = 100 − w`.
    pub fn from_diskspd(name: &str, d: &Diskspd) -> Self {
        let read = 100 - d.write_percent.min(100);
        let rw = match (read, d.random) {
            (100, false) => RwMode::Read,
            (0, false) => RwMode::Write,
            (100, true) => RwMode::RandRead,
            (0, true) => RwMode::RandWrite,
            (_, false) => RwMode::Rw,
            (_, true) => RwMode::RandRw,
        };
        JobSpec {
            numjobs: d.threads.max(1),
            ramp: d.warmup,
            rwmixread: read,
            ..JobSpec::new(name, rw, d.block_size, d.outstanding, d.duration)
        }
    }
}

/// vdbench parameters of one run (see [`JobSpec::from_vdbench`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vdbench {
    /// `xfersize=`, bytes; vdbench default 4k.
    pub xfersize: u32,
    /// `rdpct=`; vdbench default 100.
    pub rdpct: u8,
    /// `seekpct=`; vdbench default 100 (random).
    pub seekpct: u8,
    /// `threads=` per SD; vdbench default 8.
    pub threads: u32,
    /// Number of SDs (volumes) with this workload.
    pub sds: u32,
    /// `elapsed=`; vdbench default 30 s.
    pub elapsed: Time,
    /// `warmup=`; default none.
    pub warmup: Time,
}

impl Default for Vdbench {
    fn default() -> Self {
        Vdbench { xfersize: 4096, rdpct: 100, seekpct: 100, threads: 8, sds: 1, elapsed: 30 * SECOND, warmup: 0 }
    }
}

/// DISKSPD parameters (see [`JobSpec::from_diskspd`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Diskspd {
    /// `-b`, bytes.
    pub block_size: u32,
    /// `-o`.
    pub outstanding: u32,
    /// `-t`.
    pub threads: u32,
    /// `-w`.
    pub write_percent: u8,
    /// `-r` (else `-s`).
    pub random: bool,
    /// `-d`.
    pub duration: Time,
    /// `-W`.
    pub warmup: Time,
}

impl Default for Diskspd {
    fn default() -> Self {
        Diskspd {
            block_size: 64 * 1024,
            outstanding: 2,
            threads: 1,
            write_percent: 0,
            random: false,
            duration: 10 * SECOND,
            warmup: 5 * SECOND,
        }
    }
}

/// One IO a job issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    /// Sequence number within the clone.
    pub id: u64,
    /// Read or write.
    pub op: IoOp,
    /// Bytes.
    pub bytes: u32,
    /// Byte offset in the clone's region.
    pub offset: u64,
    /// Whether the offset follows the previous IO of the same direction.
    pub sequential: bool,
    /// When it was issued.
    pub issued_at: Time,
}

/// Counters and latencies of one direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DirStats {
    /// IOs completed in the measured window.
    pub ios: u64,
    /// Bytes of those IOs.
    pub bytes: u64,
    /// Their completion latencies.
    pub clat: LatencyHistogram,
}

/// One clone of a job: the closed issue/complete loop.
#[derive(Clone, Debug)]
pub struct JobEngine {
    spec: JobSpec,
    rng: Rng,
    start: Time,
    measure_from: Time,
    end: Time,
    next_id: u64,
    outstanding: u32,
    next_offset: [u64; 2],
    read_pct: u8,
    random_pct: u8,
    /// Reads, then writes.
    stats: [DirStats; 2],
}

impl JobEngine {
    /// Clone number `clone` of `spec`, starting at `start`.
    pub fn new(spec: &JobSpec, clone: u32, start: Time) -> Self {
        let seed = mix64(spec.seed ^ mix64(clone as u64 + 1));
        JobEngine {
            rng: Rng::new(seed),
            start,
            measure_from: start + spec.ramp,
            end: start + spec.ramp + spec.runtime,
            next_id: 0,
            outstanding: 0,
            next_offset: [0; 2],
            read_pct: spec.rw.read_percent(spec.rwmixread),
            random_pct: spec.percentage_random.unwrap_or(spec.rw.random_percent()).min(100),
            stats: Default::default(),
            spec: spec.clone(),
        }
    }

    /// The next IO to issue at `now`, while fewer than `iodepth` are outstanding and the run
    /// has not ended. Call until `None`.
    pub fn poll_issue(&mut self, now: Time) -> Option<IoRequest> {
        if now < self.start || now >= self.end || self.outstanding >= self.spec.iodepth {
            return None;
        }
        let op = if self.read_pct >= 100 || (self.read_pct > 0 && self.rng.below(100) < self.read_pct as u64) {
            IoOp::Read
        } else {
            IoOp::Write
        };
        let bs = self.spec.bs as u64;
        let blocks = (self.spec.size / bs).max(1);
        let random = self.random_pct >= 100 || (self.random_pct > 0 && self.rng.below(100) < self.random_pct as u64);
        let d = op as usize;
        let offset = if random { self.rng.below(blocks) * bs } else { self.next_offset[d] };
        self.next_offset[d] = (offset + bs) % (blocks * bs);
        self.outstanding += 1;
        self.next_id += 1;
        Some(IoRequest { id: self.next_id - 1, op, bytes: self.spec.bs, offset, sequential: !random, issued_at: now })
    }

    /// `io` completed at `now`; its latency counts if `now` is inside the measured window.
    pub fn on_complete(&mut self, now: Time, io: &IoRequest) {
        self.outstanding = self.outstanding.saturating_sub(1);
        if now >= self.measure_from && now < self.end {
            let s = &mut self.stats[io.op as usize];
            s.ios += 1;
            s.bytes += io.bytes as u64;
            s.clat.record((now - io.issued_at) / crate::time::NS);
        }
    }

    /// IOs outstanding.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }
    /// When issuing stops.
    pub fn end(&self) -> Time {
        self.end
    }
    /// Counters of reads and writes.
    pub fn stats(&self, op: IoOp) -> &DirStats {
        &self.stats[op as usize]
    }
}

/// A job's results as fio reports them (all clones together, `group_reporting`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResults {
    /// Job name.
    pub name: String,
    /// Clones.
    pub numjobs: u32,
    /// Measured duration, ps.
    pub runtime_ps: Time,
    /// Reads.
    pub read: DirResults,
    /// Writes.
    pub write: DirResults,
}

/// fio's per-direction block (`read:`/`write:` in its JSON output).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirResults {
    /// IOs completed.
    pub total_ios: u64,
    /// Bytes transferred.
    pub io_bytes: u64,
    /// IOs per second.
    pub iops: f64,
    /// Bytes per second.
    pub bw_bytes: f64,
    /// Completion latency.
    pub clat_ns: LatencySummary,
}

impl JobResults {
    /// Merge the clones of one job.
    pub fn from_clones(spec: &JobSpec, clones: &[JobEngine]) -> Self {
        let secs = spec.runtime as f64 / SECOND as f64;
        let dir = |op: IoOp| {
            let mut h = LatencyHistogram::new();
            let (mut ios, mut bytes) = (0, 0);
            for c in clones {
                let s = c.stats(op);
                ios += s.ios;
                bytes += s.bytes;
                h.merge(&s.clat);
            }
            let per = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
            DirResults { total_ios: ios, io_bytes: bytes, iops: per(ios), bw_bytes: per(bytes), clat_ns: h.summary() }
        };
        JobResults {
            name: spec.name.clone(),
            numjobs: clones.len() as u32,
            runtime_ps: spec.runtime,
            read: dir(IoOp::Read),
            write: dir(IoOp::Write),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, US};

    /// Drive clones against a fixed-latency device: every IO completes `lat` after issue.
    fn run(spec: &JobSpec, lat: Time) -> (Vec<JobEngine>, Vec<IoRequest>) {
        let mut clones: Vec<JobEngine> = (0..spec.numjobs).map(|c| JobEngine::new(spec, c, 0)).collect();
        let mut pending: Vec<(Time, usize, IoRequest)> = vec![];
        let mut issued = vec![];
        let mut now = 0;
        loop {
            for (i, c) in clones.iter_mut().enumerate() {
                while let Some(io) = c.poll_issue(now) {
                    issued.push(io);
                    pending.push((now + lat, i, io));
                }
            }
            pending.sort_by_key(|p| (std::cmp::Reverse(p.0), p.1, std::cmp::Reverse(p.2.id)));
            let Some((t, i, io)) = pending.pop() else { break };
            now = t;
            clones[i].on_complete(now, &io);
        }
        (clones, issued)
    }

    #[test]
    fn closed_loop_keeps_iodepth_outstanding_and_reports_like_fio() {
        let mut spec = JobSpec::new("r", RwMode::RandRead, 4096, 4, 10 * MS);
        spec.numjobs = 2;
        let (clones, issued) = run(&spec, 100 * US);
        // 4 IOs per 100 µs per clone; completions at 0.1, 0.2, … 9.9 ms fall in [0, 10 ms).
        let r = JobResults::from_clones(&spec, &clones);
        assert_eq!(issued.len(), 2 * 400);
        assert_eq!(r.read.total_ios, 2 * 396);
        assert_eq!(r.write.total_ios, 0);
        assert!((r.read.iops - 79_200.0).abs() < 1e-6, "{}", r.read.iops);
        assert!((r.read.bw_bytes - 79_200.0 * 4096.0).abs() < 1e-3);
        assert_eq!(r.read.clat_ns.min_ns, 100_000);
        assert_eq!(r.read.clat_ns.max_ns, 100_000);
        assert_eq!(r.read.clat_ns.p99_ns, 100_000);
        assert!(issued.iter().all(|io| io.offset % 4096 == 0 && io.offset < 1 << 30 && !io.sequential));
        assert!(clones.iter().all(|c| c.outstanding() == 0));
    }

    #[test]
    fn ramp_is_not_measured() {
        let mut spec = JobSpec::new("w", RwMode::Write, 8192, 1, 5 * MS);
        spec.ramp = 2 * MS;
        let (clones, issued) = run(&spec, 250 * US);
        let r = JobResults::from_clones(&spec, &clones);
        // 7 ms of issuing, 28 IOs; those completing in [2 ms, 7 ms) count: 20.
        assert_eq!(issued.len(), 28);
        assert_eq!(r.write.total_ios, 20);
        // Sequential offsets.
        assert_eq!(issued.iter().take(3).map(|io| io.offset).collect::<Vec<_>>(), vec![0, 8192, 16384]);
    }

    #[test]
    fn rwmixread_splits_reads_and_writes() {
        let mut spec = JobSpec::new("mix", RwMode::RandRw, 8192, 8, 50 * MS);
        spec.rwmixread = 67;
        let (clones, _) = run(&spec, 10 * US);
        let r = JobResults::from_clones(&spec, &clones);
        let share = r.read.total_ios as f64 / (r.read.total_ios + r.write.total_ios) as f64;
        assert!((share - 0.67).abs() < 0.01, "{share}");
        // Same seed, same sequence.
        let (again, _) = run(&spec, 10 * US);
        assert_eq!(JobResults::from_clones(&spec, &again), r);
    }

    #[test]
    fn vdbench_and_diskspd_map_onto_fio_jobs() {
        // The EqualLogic paper's "8 KB random 67% read", 8 volumes x 5 threads.
        let v = Vdbench { xfersize: 8192, rdpct: 67, seekpct: 100, threads: 5, sds: 8, ..Vdbench::default() };
        let j = JobSpec::from_vdbench("oltp", &v);
        assert_eq!((j.rw, j.bs, j.iodepth, j.numjobs, j.rwmixread), (RwMode::RandRw, 8192, 5, 8, 67));
        let seq = JobSpec::from_vdbench("seqw", &Vdbench { xfersize: 262_144, rdpct: 0, seekpct: 0, ..v });
        assert_eq!(seq.rw, RwMode::Write);
        let part = JobSpec::from_vdbench("p", &Vdbench { seekpct: 30, ..v });
        assert_eq!((part.rw, part.percentage_random), (RwMode::RandRw, Some(30)));
        // The S2D post's DISKSPD: 4 KiB, 90% read (-w10), random, QD 8.
        let d = Diskspd { block_size: 4096, outstanding: 8, write_percent: 10, random: true, ..Diskspd::default() };
        let j = JobSpec::from_diskspd("s2d", &d);
        assert_eq!(
            (j.rw, j.bs, j.iodepth, j.numjobs, j.rwmixread, j.ramp),
            (RwMode::RandRw, 4096, 8, 1, 90, 5 * SECOND)
        );
        let r = JobSpec::from_diskspd("r", &Diskspd { block_size: 512 * 1024, ..Diskspd::default() });
        assert_eq!(r.rw, RwMode::Read);
    }
}
