//! The storage target: how long the device behind the protocol takes for each IO.
//!
//! An IO's service time is drawn when it starts:
//! `latency (a distribution) + bytes / per-IO rate + random-offset extra (disks) +
//! load slope × IOs already in service`. At most `concurrency` IOs are in service; the rest
//! wait in FIFO order. Read and write bytes also pass a per-direction throughput ceiling (the
//! array's back end, its NVRAM for writes): a byte pipe that the IO's bytes occupy from its
//! start, so an IO completes at `max(start + service, its bytes through the pipe)`. Under
//! light load the latency is the service time; under heavy load throughput settles at the
//! ceiling and latency grows as Little's law says.
//!
//! [`TargetProfile`] constructors give the devices of the seeds, each constant with its source
//! and, when calibrated, what it was fitted to. The engine holds one [`Target`] per storage
//! device, submits IOs at the [`crate::storage::protocol::StepKind::Service`] step and calls
//! [`Target::complete`] at each returned completion time.

use super::job::IoOp;
use crate::detmath;
use crate::rng::Rng;
use crate::time::{LinkRate, Time, MS, NS, US};
use std::collections::VecDeque;

/// z such that Φ(z) = 0.99.
const Z99: f64 = 2.326_347_874_040_841;

/// A distribution of service times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServiceTime {
    /// Always the same.
    Fixed(Time),
    /// Uniform in [min, max].
    Uniform {
        /// Lower bound.
        min: Time,
        /// Upper bound.
        max: Time,
    },
    /// Lognormal with the given mean and 99th percentile (build with
    /// [`ServiceTime::lognormal`]).
    LogNormal {
        /// Mean.
        mean: Time,
        /// 99th percentile.
        p99: Time,
        /// μ of ln X.
        mu: f64,
        /// σ of ln X.
        sigma: f64,
    },
}

impl ServiceTime {
    /// A lognormal distribution from its mean and 99th percentile: σ solves
    /// σ²/2 − z₉₉·σ + ln(p99/mean) = 0 (the smaller root), μ = ln(mean) − σ²/2. Needs
    /// mean ≤ p99 ≤ e^(z₉₉²/2)·mean ≈ 14.9·mean.
    pub fn lognormal(mean: Time, p99: Time) -> Result<ServiceTime, String> {
        if mean == 0 || p99 < mean {
            return Err(format!("a lognormal needs 0 < mean ≤ p99 (mean {mean} ps, p99 {p99} ps)"));
        }
        let r = detmath::ln(p99 as f64 / mean as f64);
        let disc = Z99 * Z99 - 2.0 * r;
        if disc < 0.0 {
            return Err(format!(
                "p99 is more than {:.1} times the mean: no lognormal fits",
                detmath::exp(Z99 * Z99 / 2.0)
            ));
        }
        let sigma = Z99 - disc.sqrt();
        let mu = detmath::ln(mean as f64) - sigma * sigma / 2.0;
        Ok(ServiceTime::LogNormal { mean, p99, mu, sigma })
    }

    /// One draw.
    pub fn sample(&self, rng: &mut Rng) -> Time {
        match *self {
            ServiceTime::Fixed(t) => t,
            ServiceTime::Uniform { min, max } => min + rng.below(max.saturating_sub(min) + 1),
            ServiceTime::LogNormal { mu, sigma, .. } => {
                let z = detmath::normal_quantile(rng.next_f64());
                detmath::exp(mu + sigma * z).round() as Time
            }
        }
    }

    /// The mean.
    pub fn mean(&self) -> Time {
        match *self {
            ServiceTime::Fixed(t) => t,
            ServiceTime::Uniform { min, max } => (min + max) / 2,
            ServiceTime::LogNormal { mean, .. } => mean,
        }
    }
}

/// How one operation type is serviced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpProfile {
    /// Time independent of size.
    pub latency: ServiceTime,
    /// Rate at which one IO's bytes move through the device (bit/s); `None`: size costs
    /// nothing beyond the ceiling.
    pub per_io_rate_bps: Option<u64>,
    /// Added for IOs at a random offset (a disk's seek and rotation).
    pub random_extra: Option<ServiceTime>,
    /// Added to the service time per IO already in service, reads and writes alike
    /// (load-dependent service: a cache tier whose latency grows with its queue).
    pub load_slope: Time,
}

/// A storage device as the target model sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetProfile {
    /// Name (`ramdisk`, `nvme-ssd`, `pure-flasharray-x`, …).
    pub name: &'static str,
    /// Reads.
    pub read: OpProfile,
    /// Writes.
    pub write: OpProfile,
    /// IOs serviced at once.
    pub concurrency: u32,
    /// Read throughput ceiling, bit/s.
    pub read_ceiling_bps: Option<u64>,
    /// Write throughput ceiling, bit/s.
    pub write_ceiling_bps: Option<u64>,
    /// Where the numbers come from.
    pub source: &'static str,
}

/// Bytes per second to bit/s.
const fn gbyte_per_s(gb_x10: u64) -> u64 {
    gb_x10 * 800_000_000
}

impl TargetProfile {
    /// All profile names.
    pub const NAMES: [&'static str; 5] = ["ramdisk", "nvme-ssd", "pure-flasharray-x", "dell-ps6110xv", "s2d-node"];

    /// The profile called `name`.
    pub fn by_name(name: &str) -> Option<TargetProfile> {
        match name {
            "ramdisk" => Some(Self::ramdisk()),
            "nvme-ssd" => Some(Self::nvme_ssd()),
            "pure-flasharray-x" => Some(Self::pure_flasharray_x()),
            "dell-ps6110xv" => Some(Self::dell_ps6110xv()),
            "s2d-node" => Some(Self::s2d_node()),
            _ => None,
        }
    }

    /// A device that takes `latency` per IO, reads and writes alike, `concurrency` at once,
    /// with a ceiling of `ceiling_bps` each way if given: a plain model for tests and what-ifs.
    pub fn fixed(latency: Time, concurrency: u32, ceiling_bps: Option<u64>) -> Self {
        let op = OpProfile {
            latency: ServiceTime::Fixed(latency),
            per_io_rate_bps: None,
            random_extra: None,
            load_slope: 0,
        };
        TargetProfile {
            name: "fixed",
            read: op,
            write: op,
            concurrency: concurrency.max(1),
            read_ceiling_bps: ceiling_bps,
            write_ceiling_bps: ceiling_bps,
            source: "a fixed service time, given",
        }
    }

    /// A RAM disk target (Linux LIO `rd_mcp`, the Demartek guide's iSER and NFS targets).
    ///
    /// **Assumed, not calibrated** (the guide gives no target service times): 2 µs per IO of
    /// target-side bookkeeping and a memory copy at 10 GB/s, one IO per core on 16 cores.
    pub fn ramdisk() -> Self {
        let op = OpProfile {
            latency: ServiceTime::Fixed(2 * US),
            per_io_rate_bps: Some(gbyte_per_s(100)),
            random_extra: None,
            load_slope: 0,
        };
        TargetProfile {
            name: "ramdisk",
            read: op,
            write: op,
            concurrency: 16,
            read_ceiling_bps: None,
            write_ceiling_bps: None,
            source: "assumed: 2 µs per IO and a 10 GB/s memory copy per IO, 16 at once",
        }
    }

    /// A data-centre NVMe SSD (PCIe 3.0 x4, TLC with a DRAM write buffer).
    ///
    /// **Assumed typical figures, not calibrated**: 4 KiB random read 90 µs (NAND page read plus
    /// controller), write 20 µs (acknowledged from the power-protected buffer), 64 commands in
    /// service (about 700k random-read IOPS), 3.2 GB/s read and 1.8 GB/s write.
    pub fn nvme_ssd() -> Self {
        TargetProfile {
            name: "nvme-ssd",
            read: OpProfile {
                latency: ServiceTime::lognormal(90 * US, 180 * US).expect("valid"),
                per_io_rate_bps: Some(gbyte_per_s(32)),
                random_extra: None,
                load_slope: 0,
            },
            write: OpProfile {
                latency: ServiceTime::lognormal(20 * US, 60 * US).expect("valid"),
                per_io_rate_bps: Some(gbyte_per_s(18)),
                random_extra: None,
                load_slope: 0,
            },
            concurrency: 64,
            read_ceiling_bps: Some(gbyte_per_s(32)),
            write_ceiling_bps: Some(gbyte_per_s(18)),
            source: "assumed typical PCIe 3.0 x4 data-centre NVMe SSD figures",
        }
    }

    /// Pure Storage FlashArray//X as measured in the Arista/Pure/Mellanox paper ("Deploying
    /// NVMe-oF for Enterprise Leaf-Spine Architecture", 2020).
    ///
    /// * **Ceilings, calibrated**: read 12.5 GB/s and write 4.4 GB/s. "Test Results, Set 2":
    ///   "we achieved 12GB/s to 13GB/s read throughput and a write throughput close to 4GB/s to
    ///   4.5GB/s" with 512K jobs from four initiators, the same at 25G and 100G and in every
    ///   topology, i.e. limited by the array; "iSCSI comparison": "the limit of the workload
    ///   profile is ~4.4GB/s" for writes.
    /// * **4K latency, assumed level with calibrated ratios**: the paper's latency figures did not
    ///   survive; its text gives differences only ("a 10µs latency increase" from direct to
    ///   three hops; reads vary more, "40µs higher" and "70µs higher" for leaf-spine; NVMe/RoCE
    ///   has "~40% decrease in the 4k write latency" and "~25-30% decrease in read latency" against
    ///   iSCSI). With D the end-to-end stack difference between iSCSI and NVMe/RoCE in the CPU
    ///   model (about 50 µs, [`crate::storage::cpu`]), those ratios need an NVMe/RoCE write
    ///   latency of 1.5·D and read latency of about 2.5·D, hence the array's own service:
    ///   write 60 µs mean (NVRAM, "the most consistent measure": p99 100 µs) and read 120 µs
    ///   mean with a wide tail (data reduction: p99 400 µs).
    /// * **Concurrency 256**: assumed (the paper does not reach it).
    pub fn pure_flasharray_x() -> Self {
        TargetProfile {
            name: "pure-flasharray-x",
            read: OpProfile {
                latency: ServiceTime::lognormal(120 * US, 400 * US).expect("valid"),
                per_io_rate_bps: None,
                random_extra: None,
                load_slope: 0,
            },
            write: OpProfile {
                latency: ServiceTime::lognormal(60 * US, 100 * US).expect("valid"),
                per_io_rate_bps: None,
                random_extra: None,
                load_slope: 0,
            },
            concurrency: 256,
            read_ceiling_bps: Some(gbyte_per_s(125)),
            write_ceiling_bps: Some(gbyte_per_s(44)),
            source: "Arista/Pure NVMe-oF paper (2020), 'Test Results' and 'iSCSI comparison'; 4K level assumed",
        }
    }

    /// One Dell EqualLogic PS6110XV member (the Dell/Red Hat RHEL 6.3 paper's array): 24
    /// 15,000 rpm SAS drives, RAID 10 with two spares, i.e. 11 mirrored pairs (Dell EqualLogic
    /// Configuration Guide 15.2, Table 7), a controller with battery-backed write cache, one
    /// active 10GbE port.
    ///
    /// **From drive physics, not calibrated** (the paper reports relative changes only): a random
    /// IO adds the average rotational latency of half a turn at 15,000 rpm (2 ms, exact) plus an
    /// average seek of 3.5 ms (typical of 15K SAS drives' datasheets), uniform over ±50 %;
    /// sequential IOs stream from read-ahead and the write cache (0.2 ms controller latency);
    /// 22 IOs at once (one per data spindle); each drive streams about 150 MB/s, so reads reach
    /// 22 × 150 MB/s = 3.3 GB/s and RAID 10 writes half that.
    pub fn dell_ps6110xv() -> Self {
        let seek = ServiceTime::Uniform { min: 2 * MS + 1750 * US, max: 2 * MS + 5250 * US };
        TargetProfile {
            name: "dell-ps6110xv",
            read: OpProfile {
                latency: ServiceTime::Fixed(200 * US),
                per_io_rate_bps: Some(1_200_000_000),
                random_extra: Some(seek),
                load_slope: 0,
            },
            write: OpProfile {
                latency: ServiceTime::Fixed(200 * US),
                per_io_rate_bps: Some(1_200_000_000),
                random_extra: Some(seek),
                load_slope: 0,
            },
            concurrency: 22,
            read_ceiling_bps: Some(gbyte_per_s(33)),
            write_ceiling_bps: Some(gbyte_per_s(16)),
            source: "15K rpm drive physics; 11 RAID 10 pairs per the EqualLogic Configuration Guide; not calibrated",
        }
    }

    /// One Storage Spaces Direct node of Microsoft's Cavium FastLinQ 41000 post (Dell R730XD,
    /// 4 × 800 GB Samsung SM1715 NVMe cache, 18 VMs running DISKSPD per node, four nodes).
    ///
    /// **Calibrated** to the post's tables (per node = the four-node figure ÷ 4, iWARP column):
    /// * 4K, 90 % read: latency grows linearly with the IOs outstanding per node (18·QD):
    ///   0.253, 0.284, 0.367, 0.465 ms at QD 1, 2, 4, 8 — fitted by 223 µs + 1.68 µs per IO
    ///   in service (within 6 % at every point); 15 µs of the 223 are left to the network and
    ///   host stack, so the device's part is 208 µs.
    /// * 512K read: 1.1 ms at QD 1 (18 IOs per node) and then throughput flat at
    ///   41.0-41.6 GB/s for four nodes: a read ceiling of 10.4 GB/s per node, and a per-IO
    ///   rate of 0.614 GB/s so that 208 µs + 30 µs of load + 512 KiB/0.614 GB/s ≈ 1.1 ms.
    ///   (QD 2-8 then follow from the ceiling: 1.8, 3.6, 7.3 ms against 1.9, 3.7, 7.4.)
    /// * Writes (10 % of the 4K mix): the post prints read latency only, but its IOPS column
    ///   counts writes too, so Little's law gives their mean: with N = 72·QD IOs outstanding,
    ///   N/IOPS = 0.9·read + 0.1·write, i.e. 364, 416, 547, 708 µs at QD 1, 2, 4, 8 (iWARP
    ///   column; RoCE's gives the same within 4 %) — about 1.5 times the reads: a 3-way
    ///   mirrored write completes when its slowest copy, two of them on other nodes, is
    ///   written. Fitted the same way: 324 µs + 2.74 µs per IO in service (within 5 %), the
    ///   device's part 309 µs. Half the read ceiling ("NVMe storage tends to have write
    ///   throughput that is half of read throughput", Demartek RoCE Deployment Guide). The
    ///   mirror's copies are folded into this service time, not sent over the fabric.
    pub fn s2d_node() -> Self {
        let read = OpProfile {
            latency: ServiceTime::Fixed(208 * US),
            per_io_rate_bps: Some(4_912_000_000),
            random_extra: None,
            load_slope: 1680 * NS,
        };
        let write = OpProfile { latency: ServiceTime::Fixed(309 * US), load_slope: 2740 * NS, ..read };
        TargetProfile {
            name: "s2d-node",
            read,
            write,
            concurrency: u32::MAX,
            read_ceiling_bps: Some(gbyte_per_s(104)),
            write_ceiling_bps: Some(gbyte_per_s(52)),
            source: "Microsoft 'Storage Spaces Direct with Cavium FastLinQ 41000' (2017), 512K and 4K tables",
        }
    }
}

/// One IO submitted to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetIo {
    /// Engine's handle.
    pub id: u64,
    /// Read or write.
    pub op: IoOp,
    /// Bytes.
    pub bytes: u32,
    /// At a random offset.
    pub random: bool,
}

/// An IO that entered service and when it will be done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// The IO.
    pub id: u64,
    /// Completion time; call [`Target::complete`] then.
    pub done_at: Time,
}

/// Counters of a target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TargetStats {
    /// IOs completed.
    pub completed: u64,
    /// Most IOs waiting for a slot at once.
    pub peak_queue: usize,
    /// Sum of time in service, for utilisation.
    pub busy: Time,
}

/// The target state machine.
#[derive(Clone, Debug)]
pub struct Target {
    profile: TargetProfile,
    rng: Rng,
    in_service: u32,
    queue: VecDeque<(Time, TargetIo)>,
    pipe_free: [Time; 2],
    ceilings: [Option<LinkRate>; 2],
    rates: [Option<LinkRate>; 2],
    stats: TargetStats,
}

impl Target {
    /// A target of `profile` whose random draws come from `seed`.
    pub fn new(profile: TargetProfile, seed: u64) -> Self {
        let ceilings = [profile.read_ceiling_bps.map(LinkRate::new), profile.write_ceiling_bps.map(LinkRate::new)];
        let rates = [profile.read.per_io_rate_bps.map(LinkRate::new), profile.write.per_io_rate_bps.map(LinkRate::new)];
        Target {
            profile,
            rng: Rng::new(seed),
            in_service: 0,
            queue: VecDeque::new(),
            pipe_free: [0; 2],
            ceilings,
            rates,
            stats: TargetStats::default(),
        }
    }

    /// The profile.
    pub fn profile(&self) -> &TargetProfile {
        &self.profile
    }

    fn start(&mut self, now: Time, io: TargetIo) -> Started {
        let d = io.op as usize;
        let op = match io.op {
            IoOp::Read => &self.profile.read,
            IoOp::Write => &self.profile.write,
        };
        let mut service = op.latency.sample(&mut self.rng);
        if let Some(r) = self.rates[d] {
            service += r.bytes_time(io.bytes as u64);
        }
        if io.random {
            if let Some(x) = op.random_extra {
                service += x.sample(&mut self.rng);
            }
        }
        service += op.load_slope * self.in_service as u64;
        let mut done = now + service;
        if let Some(c) = self.ceilings[d] {
            let through = self.pipe_free[d].max(now) + c.bytes_time(io.bytes as u64);
            self.pipe_free[d] = through;
            done = done.max(through);
        }
        self.in_service += 1;
        self.stats.busy += done - now;
        Started { id: io.id, done_at: done }
    }

    /// `io` arrives at `now`: it starts if a slot is free (returned), else waits.
    pub fn submit(&mut self, now: Time, io: TargetIo) -> Option<Started> {
        if self.in_service < self.profile.concurrency && self.queue.is_empty() {
            Some(self.start(now, io))
        } else {
            self.queue.push_back((now, io));
            self.stats.peak_queue = self.stats.peak_queue.max(self.queue.len());
            None
        }
    }

    /// An IO in service finished at `now`; the next waiting one starts, if any.
    pub fn complete(&mut self, now: Time) -> Option<Started> {
        self.in_service = self.in_service.saturating_sub(1);
        self.stats.completed += 1;
        let (_, io) = self.queue.pop_front()?;
        Some(self.start(now, io))
    }

    /// IOs in service.
    pub fn in_service(&self) -> u32 {
        self.in_service
    }
    /// IOs waiting.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }
    /// Counters.
    pub fn stats(&self) -> &TargetStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests;
