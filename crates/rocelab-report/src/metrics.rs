//! Figures derived from a run's results: totals over ports and flows, flow completion times
//! and slowdowns, and the numeric value of a sweep point.

use crate::chart::Unit;
use crate::run::RunFile;
use rocelab_model::units::{Rate, Size, SizeUnit, Time};
use rocelab_sim::{FlowResults, PortResults, Results};

const PS: f64 = 1e-12;

/// Totals of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunMetrics {
    /// Payload delivered to all hosts per second of simulated time (bit/s).
    pub goodput_bps: f64,
    /// PFC frames sent, all ports and priorities.
    pub pfc_sent: u64,
    /// Time transmitters were held by PFC, summed over ports and priorities (s).
    pub paused_s: f64,
    pub ecn_marked: u64,
    pub drops: u64,
    /// Highest egress queue of any port and traffic class (bytes).
    pub peak_queue_bytes: u64,
    /// Flow completion times of the flows that completed (s).
    pub fct_s: Vec<f64>,
    /// Their slowdowns (see [`slowdown`]).
    pub slowdown: Vec<f64>,
    /// Storage jobs, all together: IOs per second, bytes per second, and the IO-weighted mean
    /// and the largest 99th percentile of their completion latency (s); `None` without jobs.
    pub jobs: Option<JobTotals>,
}

/// Storage job totals of a run (see [`RunMetrics::jobs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobTotals {
    pub iops: f64,
    pub bw_bytes: f64,
    pub clat_mean_s: f64,
    pub clat_p99_s: f64,
    /// IO-weighted mean of the initiators' CPU utilisation over the jobs' windows (0 to 1).
    pub cpu_utilization: f64,
}

impl JobTotals {
    /// The totals of `r`'s jobs, if it has any.
    pub fn of(r: &Results) -> Option<Self> {
        if r.jobs.is_empty() {
            return None;
        }
        let dirs = || r.jobs.iter().flat_map(|j| [&j.read, &j.write]);
        let ios: u64 = dirs().map(|d| d.clat_ns.count).sum();
        let weighted = |f: &dyn Fn(&rocelab_sim::storage::DirResults) -> f64| {
            if ios == 0 {
                0.0
            } else {
                dirs().map(|d| f(d) * d.clat_ns.count as f64).sum::<f64>() / ios as f64
            }
        };
        let cpu_ios =
            |j: &rocelab_sim::storage::results::StorageJobResults| (j.read.total_ios + j.write.total_ios) as f64;
        let cpu_total: f64 = r.jobs.iter().map(cpu_ios).sum();
        Some(JobTotals {
            iops: r.jobs.iter().map(|j| j.iops()).sum(),
            bw_bytes: r.jobs.iter().map(|j| j.bw_bytes()).sum(),
            clat_mean_s: weighted(&|d| d.clat_ns.mean_ns) * 1e-9,
            clat_p99_s: dirs().map(|d| d.clat_ns.p99_ns).max().unwrap_or(0) as f64 * 1e-9,
            cpu_utilization: if cpu_total > 0.0 {
                r.jobs.iter().map(|j| j.initiator_cpu.utilization * cpu_ios(j)).sum::<f64>() / cpu_total
            } else {
                0.0
            },
        })
    }
}

/// Line rate of `host`'s first port in `r`.
pub fn host_rate(r: &Results, host: usize) -> Option<u64> {
    r.ports.iter().find(|p| p.node == host).map(|p| p.rate_bps)
}

/// A completed flow's slowdown: its completion time over its completion time alone on an empty
/// network, as the run's FCT analysis gives it ([`rocelab_sim::fct`], the HPCC simulator's
/// standalone FCT: an unloaded flow is at 1). Results written without that analysis fall back to
/// the time its payload takes at the sender's line rate alone (headers and propagation then put
/// an unloaded flow slightly above 1).
pub fn slowdown(r: &Results, f: &FlowResults) -> Option<f64> {
    if let Some(fct) = &r.fct {
        let i = fct.flows.binary_search_by_key(&f.flow, |x| x.flow).ok()?;
        return fct.flows[i].slowdown;
    }
    let fct = f.fct_ps? as f64 * PS;
    let rate = host_rate(r, f.src)? as f64;
    let ideal = f.delivered_bytes as f64 * 8.0 / rate;
    (ideal > 0.0 && fct > 0.0).then_some(fct / ideal)
}

/// The `q` quantile (0..=1, to a thousandth) of `v` by nearest rank, as the simulator's own
/// percentiles ([`rocelab_sim::fct::nearest_rank`]); `None` when empty.
pub fn quantile(v: &[f64], q: f64) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    rocelab_sim::fct::nearest_rank(&s, (q.clamp(0.0, 1.0) * 1000.0).round() as usize)
}

/// PFC frames a port sent, all priorities.
pub fn pfc_sent(p: &PortResults) -> u64 {
    p.total(|c| c.pfc_sent)
}

/// Time a port's transmitter was paused, all priorities (s).
pub fn paused_s(p: &PortResults) -> f64 {
    p.total(|c| c.paused_ps) as f64 * PS
}

impl RunMetrics {
    pub fn of(run: &RunFile) -> Self {
        let r = &run.results;
        let secs = r.end_time_ps as f64 * PS;
        let delivered: u64 = r.flows.iter().map(|f| f.delivered_bytes).sum();
        let fct_s = r.flows.iter().filter_map(|f| f.fct_ps).map(|t| t as f64 * PS).collect();
        let slowdown = r.flows.iter().filter_map(|f| slowdown(r, f)).collect();
        RunMetrics {
            goodput_bps: if secs > 0.0 { delivered as f64 * 8.0 / secs } else { 0.0 },
            pfc_sent: r.ports.iter().map(pfc_sent).sum(),
            paused_s: r.ports.iter().map(paused_s).sum(),
            ecn_marked: r.ports.iter().map(|p| p.total(|c| c.ecn_marked)).sum(),
            drops: r.ports.iter().map(|p| p.total(|c| c.drops)).sum(),
            peak_queue_bytes: r.ports.iter().flat_map(|p| p.peak_queue_bytes).max().unwrap_or(0),
            fct_s,
            slowdown,
            jobs: JobTotals::of(r),
        }
    }
}

/// The sweep values of a set of runs as numbers on a common axis: `(values, unit)` when every
/// value is a plain number or all are sizes, rates or times; `None` otherwise (the values are
/// then shown as categories).
pub fn sweep_numbers(values: &[&str]) -> Option<(Vec<f64>, Unit)> {
    if let Ok(v) = values.iter().map(|s| s.trim().parse::<f64>()).collect::<Result<Vec<f64>, _>>() {
        return Some((v, Unit::None));
    }
    if let Ok(v) = values.iter().map(|s| s.parse::<Size>()).collect::<Result<Vec<Size>, _>>() {
        let binary = v.iter().any(|s| matches!(s.unit(), SizeUnit::KiB | SizeUnit::MiB | SizeUnit::GiB));
        let unit = if binary { Unit::BytesBinary } else { Unit::Bytes };
        return Some((v.iter().map(|s| s.as_bytes() as f64).collect(), unit));
    }
    if let Ok(v) = values.iter().map(|s| s.parse::<Rate>()).collect::<Result<Vec<Rate>, _>>() {
        return Some((v.iter().map(|r| r.bits_per_second() as f64).collect(), Unit::BitsPerSecond));
    }
    if let Ok(v) = values.iter().map(|s| s.parse::<Time>()).collect::<Result<Vec<Time>, _>>() {
        return Some((v.iter().map(|t| t.as_secs_f64()).collect(), Unit::Seconds));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_and_slowdowns_of_a_run() {
        let run = crate::testdata::run_file(None, None);
        let m = RunMetrics::of(&run);
        let r = &run.results;
        assert_eq!(m.pfc_sent, r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum::<u64>());
        assert!(m.goodput_bps > 0.0);
        assert_eq!(m.fct_s.len(), r.flows.len(), "every sized flow of the test run completes");
        // Two senders into one 100G port: each flow gets about half the line rate, so its
        // completion takes about twice as long as its payload alone at line rate.
        assert!(m.slowdown.iter().all(|s| (1.0..3.0).contains(s)), "{:?}", m.slowdown);
        assert!(m.slowdown.iter().any(|s| *s > 1.5), "{:?}", m.slowdown);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(quantile(&v, 0.5), Some(3.0));
        assert_eq!(quantile(&v, 0.99), Some(5.0));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&[], 0.5), None);
        // The same ranks as the simulator's percentiles: p99 of 100 values is the 99th.
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&hundred, 0.99), Some(99.0));
        assert_eq!(quantile(&hundred, 0.5), Some(50.0));
    }

    #[test]
    fn sweep_values_become_numbers_with_units() {
        assert_eq!(sweep_numbers(&["1500", "9000"]), Some((vec![1500.0, 9000.0], Unit::None)));
        assert_eq!(sweep_numbers(&["4KiB", "128KiB"]), Some((vec![4096.0, 131072.0], Unit::BytesBinary)));
        assert_eq!(sweep_numbers(&["150KB", "1MB"]), Some((vec![150e3, 1e6], Unit::Bytes)));
        assert_eq!(sweep_numbers(&["25G", "100G"]), Some((vec![25e9, 100e9], Unit::BitsPerSecond)));
        assert_eq!(sweep_numbers(&["5us", "1ms"]).map(|x| x.1), Some(Unit::Seconds));
        assert_eq!(sweep_numbers(&["pfc", "ecn"]), None);
    }
}
