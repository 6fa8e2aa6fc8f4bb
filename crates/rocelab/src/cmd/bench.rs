//! `rocelab bench`: the simulator's speed on the standard scenarios of
//! [`rocelab_sim::bench::Scenario`], on the user's machine. Glue: the scenarios, the timing and
//! the process figures are the library's; this runs them and prints them.
//!
//! Each scenario runs in a process of its own (this binary, `rocelab bench NAME --format json`)
//! when more than one is asked for, so that the peak resident set reported for a scenario is its
//! own and not the largest of the ones before it.

use crate::failure::{Failure, OrFail, REFUSED};
use crate::out::outln;
use rocelab_sim::bench::{BenchReport, ProcessUsage, Scenario};
use rocelab_sim::{Time, MS, US};
use serde::{Deserialize, Serialize};
use std::process::{Command, ExitCode};

/// Version of the JSON document `rocelab bench --format json` writes.
pub const BENCH_SCHEMA_VERSION: u32 = 1;

/// The JSON document: the machine, then one entry per scenario run.
#[derive(Debug, Serialize, Deserialize)]
struct BenchDoc {
    schema_version: u32,
    rocelab_version: String,
    machine: Machine,
    runs: Vec<BenchRun>,
}

/// What the figures were measured on: they only compare with figures of the same machine.
#[derive(Debug, Serialize, Deserialize)]
struct Machine {
    os: String,
    arch: String,
    /// Logical CPUs the process may use (each run uses one).
    logical_cpus: usize,
    /// The CPU's model name, where the system tells it (`/proc/cpuinfo` on Linux).
    cpu: Option<String>,
}

/// One scenario's run.
#[derive(Debug, Serialize, Deserialize)]
struct BenchRun {
    scenario: String,
    name: String,
    events: u64,
    simulated_ps: Time,
    wall_seconds: f64,
    events_per_second: f64,
    /// CPU seconds of the run's process in user mode and in the kernel (`None` where not read).
    user_seconds: Option<f64>,
    system_seconds: Option<f64>,
    /// Peak resident set of the run's process, bytes.
    peak_rss_bytes: Option<u64>,
    peak_packets_in_flight: u64,
    peak_pending_events: u64,
    delivered_bytes: u64,
    /// The results digest (`rocelab_sim::bench::results_digest`), hexadecimal: equal digests,
    /// equal simulated results.
    results_digest: String,
    /// On several threads, what each did, for a person (`rocelab_sim::ThreadsProfile::lines`):
    /// why a speed-up falls short of the thread count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    threads_profile: Option<Vec<String>>,
}

impl BenchRun {
    fn new(scenario: Scenario, r: &BenchReport, usage: Option<ProcessUsage>) -> BenchRun {
        BenchRun {
            scenario: scenario.name().to_string(),
            name: r.name.clone(),
            events: r.events,
            simulated_ps: r.simulated_ps,
            wall_seconds: r.wall_seconds,
            events_per_second: r.events_per_second,
            user_seconds: usage.map(|u| u.user_seconds),
            system_seconds: usage.map(|u| u.system_seconds),
            peak_rss_bytes: usage.map(|u| u.peak_rss_bytes),
            peak_packets_in_flight: r.peak_packets_in_flight,
            peak_pending_events: r.peak_pending_events,
            delivered_bytes: r.delivered_bytes,
            results_digest: format!("{:016x}", r.digest),
            threads_profile: r.threads.as_ref().map(|p| p.lines()),
        }
    }
}

/// `rocelab bench [SCENARIO]... [--time-us N] [--format text|json]`; a scenario that cannot be
/// run or measured is exit 2.
pub fn run(names: &[String], time_us: Option<u64>, threads: usize, json: bool) -> Result<ExitCode, Failure> {
    measure(names, time_us, threads, json).or_fail(REFUSED)
}

fn measure(names: &[String], time_us: Option<u64>, threads: usize, json: bool) -> Result<ExitCode, String> {
    let mut scenarios = Vec::new();
    for n in names {
        // clap has checked the names against `Scenario::NAMES`.
        let s = Scenario::from_name(n).ok_or_else(|| format!("unknown scenario `{n}`"))?;
        if !scenarios.contains(&s) {
            scenarios.push(s);
        }
    }
    if scenarios.is_empty() {
        scenarios.extend(Scenario::DEFAULT);
    }
    let time = |s: Scenario| time_us.map_or(s.standard_time(), |t| t * US);
    let machine = machine();
    if !json {
        outln!(
            "rocelab bench: {} ({} {}, {} logical CPUs{})",
            match (scenarios.len(), threads) {
                (1, 1) => "1 scenario, on one core".to_string(),
                (1, t) => format!("1 scenario, on {t} threads"),
                (n, 1) => format!("{n} scenarios, each on one core in a process of its own"),
                (n, t) => format!("{n} scenarios, each on {t} threads in a process of its own"),
            },
            machine.os,
            machine.arch,
            machine.logical_cpus,
            machine.cpu.as_deref().map(|c| format!(", {c}")).unwrap_or_default()
        );
        outln!("{}", header());
    }
    let mut runs = Vec::new();
    for s in scenarios.iter().copied() {
        let run = if scenarios.len() == 1 { in_process(s, time(s), threads)? } else { in_child(s, time(s), threads)? };
        if !json {
            outln!("{}", row(&run));
            for line in run.threads_profile.iter().flatten() {
                outln!("{line}");
            }
        }
        runs.push(run);
    }
    if json {
        let doc = BenchDoc {
            schema_version: BENCH_SCHEMA_VERSION,
            rocelab_version: env!("CARGO_PKG_VERSION").to_string(),
            machine,
            runs,
        };
        outln!("{}", serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Run `s` here; the process figures are this process's.
fn in_process(s: Scenario, time: Time, threads: usize) -> Result<BenchRun, String> {
    let r = s.measure(time, threads).map_err(|e| format!("{}: {e}", s.name()))?;
    Ok(BenchRun::new(s, &r, ProcessUsage::now()))
}

/// Run `s` in a new process of this binary and read its JSON.
fn in_child(s: Scenario, time: Time, threads: usize) -> Result<BenchRun, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the rocelab binary to run `{}`: {e}", s.name()))?;
    let out = Command::new(&exe)
        .args(["bench", s.name(), "--format", "json", "--time-us", &(time / US).to_string()])
        .args(["--threads", &threads.to_string()])
        .output()
        .map_err(|e| format!("cannot run {} for `{}`: {e}", exe.display(), s.name()))?;
    if !out.status.success() {
        return Err(format!("`{}` failed: {}", s.name(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    let doc: BenchDoc = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("`{}`: unreadable output of its process: {e}", s.name()))?;
    doc.runs.into_iter().next().ok_or_else(|| format!("`{}`: its process reported no run", s.name()))
}

/// One line of the table: the header and every row go through the same widths.
fn columns(cells: [&str; 10]) -> String {
    let [scenario, events, simulated, wall, rate, user, system, rss, in_flight, results] = cells;
    format!(
        "{scenario:<14} {events:>12} {simulated:>10} {wall:>9} {rate:>10} {user:>8} {system:>8} {rss:>11} {in_flight:>10}  {results}"
    )
}

fn header() -> String {
    columns([
        "scenario",
        "events",
        "simulated",
        "wall",
        "events/s",
        "user",
        "system",
        "peak RSS",
        "in flight",
        "results",
    ])
}

fn row(r: &BenchRun) -> String {
    let secs = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{s:.2} s"));
    columns([
        &r.scenario,
        &r.events.to_string(),
        &simulated(r.simulated_ps),
        &format!("{:.3} s", r.wall_seconds),
        &format!("{:.2} M", r.events_per_second / 1e6),
        &secs(r.user_seconds),
        &secs(r.system_seconds),
        &r.peak_rss_bytes.map_or("-".to_string(), |b| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)),
        &r.peak_packets_in_flight.to_string(),
        &r.results_digest,
    ])
}

/// Simulated time in the largest whole unit (`100 ms`, `1 ms`, `250 us`).
fn simulated(ps: Time) -> String {
    if ps % MS == 0 {
        format!("{} ms", ps / MS)
    } else {
        format!("{} us", ps / US)
    }
}

fn machine() -> Machine {
    Machine {
        os: std::env::consts::OS.to_string(),
        arch: std::env::consts::ARCH.to_string(),
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu: std::fs::read_to_string("/proc/cpuinfo").ok().as_deref().and_then(cpu_model),
    }
}

/// The first `model name` of a `/proc/cpuinfo` text.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.trim_start().strip_prefix(':')))
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_model_is_the_first_model_name() {
        let info = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n\nprocessor\t: 1\nmodel name\t: other\n";
        assert_eq!(cpu_model(info).as_deref(), Some("Intel(R) Xeon(R) Processor"));
        assert_eq!(cpu_model("processor\t: 0\n"), None);
        assert_eq!(cpu_model("model name\t:   \n"), None);
    }

    #[test]
    fn simulated_time_reads_in_whole_units() {
        assert_eq!(simulated(100 * 1_000 * US), "100 ms");
        assert_eq!(simulated(1_000 * US), "1 ms");
        assert_eq!(simulated(250 * US), "250 us");
    }

    #[test]
    fn a_row_lines_up_with_the_header() {
        let r = BenchRun {
            scenario: "fat-tree".into(),
            name: "fat-tree-320-permutation".into(),
            events: 27_539_707,
            simulated_ps: 1_000 * US,
            wall_seconds: 1.932,
            events_per_second: 14.25e6,
            user_seconds: Some(1.87),
            system_seconds: None,
            peak_rss_bytes: Some(74_244 * 1024),
            peak_packets_in_flight: 817_610,
            peak_pending_events: 1_697,
            delivered_bytes: 2_700_000_000,
            results_digest: "e4dad7d4f7120bce".into(),
            threads_profile: None,
        };
        let (h, row) = (header(), row(&r));
        assert_eq!(h.find("results"), row.find("e4dad7d4f7120bce"), "{h}\n{row}");
        assert!(row.contains("1.932 s") && row.contains("14.25 M") && row.contains("72.5 MiB"), "{row}");
        assert!(row.contains("1.87 s") && row.contains(" - "), "{row}");
    }
}
