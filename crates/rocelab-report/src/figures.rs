//! The report's charts from a set of runs, each run (variant, sweep point) a series or a bar
//! of its own so that they sit side by side.

use crate::chart::line::size_label;
use crate::chart::{
    bar_chart, cdf_chart, cpu_effectiveness_chart, line_chart, topology_chart, Axis, BarChart, CpuPoint, LineChart,
    Scale, Series, Topology, Unit, PALETTE,
};
use crate::metrics::{paused_s, pfc_sent, quantile, sweep_numbers, RunMetrics};
use crate::run::RunFile;
use rocelab_sim::PortResults;

/// One chart of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Element id in the page (`chart-topology`).
    pub id: String,
    pub title: String,
    /// What it shows and how it was made.
    pub caption: String,
    pub svg: String,
}

/// Ports shown at most in a per-port chart (those with the largest values).
pub const MAX_PORTS: usize = 48;
/// Ports whose queue depth is charted over time.
pub const QUEUE_PORTS: usize = 4;
/// Points drawn at most per queue-depth series (peaks kept when thinning).
pub const MAX_POINTS: usize = 1000;

fn labels(runs: &[RunFile]) -> Vec<String> {
    runs.iter().map(RunFile::label).collect()
}

/// Every chart the runs support, in reading order.
pub fn all(runs: &[RunFile]) -> Vec<Figure> {
    let all_runs = runs;
    let mut out = Vec::new();
    if let Some(first) = runs.first() {
        out.push(Figure {
            id: "chart-topology".into(),
            title: "Topology".into(),
            caption: format!(
                "{}: {} switches and {} hosts; links coloured and sized by speed.",
                first.scenario,
                first.results.switches.len(),
                first.results.hosts.len()
            ),
            svg: topology_chart(&Topology::from_results(&first.results), &format!("Topology of {}", first.scenario)),
        });
    }
    out.extend(sweep_charts(runs));
    // Charts with a bar or line per run: at one sweep point when a sweep would give them more
    // runs than there are colours (the sweep charts above show every point).
    let (shown, note) = per_run_selection(runs);
    let first_per_run = out.len();
    let runs = shown.as_slice();
    out.extend(perftest_charts(runs));
    out.extend(flow_throughput(runs));
    out.extend(fct_cdf(runs));
    type Counter = (&'static str, &'static str, &'static str, Unit, fn(&PortResults) -> f64);
    let counters: [Counter; 4] = [
        ("pfc-sent", "PFC frames sent per port", "PFC frames", Unit::Count, |p| pfc_sent(p) as f64),
        ("paused", "Time paused per port (transmitter held by PFC)", "time paused", Unit::Seconds, paused_s),
        ("ecn", "ECN-marked packets per port (egress)", "packets marked CE", Unit::Count, |p| {
            p.total(|c| c.ecn_marked) as f64
        }),
        ("drops", "Drops per port (ingress)", "frames dropped", Unit::Count, |p| p.total(|c| c.drops) as f64),
    ];
    for (id, title, what, unit, f) in counters {
        out.extend(per_port(runs, id, title, what, unit, f));
    }
    out.extend(queue_depth(runs));
    if let Some(note) = note {
        for f in &mut out[first_per_run..] {
            f.caption.push(' ');
            f.caption.push_str(&note);
        }
    }
    let runs = all_runs;
    let cpu = cpu_points(runs);
    if let Some(svg) = cpu_effectiveness_chart(&cpu) {
        out.push(Figure {
            id: "chart-cpu".into(),
            title: "CPU effectiveness".into(),
            caption: "Throughput per percent of host CPU against block size, as the deployment guides chart it.".into(),
            svg,
        });
    }
    out
}

/// The runs that the charts with a bar or line per run show, and what their captions add.
/// With a sweep whose runs outnumber the palette's colours (four variants at eight block sizes
/// are 32 runs, and bars of the same colour could not be told apart), only the runs at the
/// sweep's last point (often its heaviest load), one per variant, and the runs outside the
/// sweep; every point stays in the charts against the swept field and in the CSV files.
fn per_run_selection(runs: &[RunFile]) -> (Vec<RunFile>, Option<String>) {
    let last = runs.iter().rev().find_map(|r| r.sweep.clone());
    match last {
        Some(point) if runs.len() > PALETTE.len() => {
            let shown: Vec<RunFile> =
                runs.iter().filter(|r| r.sweep.as_ref().is_none_or(|s| s.value == point.value)).cloned().collect();
            let note = format!(
                "Shown at {} = {}, the sweep's last point ({} of {} runs): the other points are in the charts against {} and in the CSV files.",
                point.field,
                point.value,
                shown.len(),
                runs.len(),
                point.field
            );
            (shown, Some(note))
        }
        _ => (runs.to_vec(), None),
    }
}

/// CPU figures of storage jobs: one point per run and job (its initiators' mean throughput and
/// CPU utilisation, a job on several initiators counted once), in a series per variant and job
/// name, against the job's block size.
pub fn cpu_points(runs: &[RunFile]) -> Vec<CpuPoint> {
    let mut out: Vec<(CpuPoint, u32)> = Vec::new();
    for run in runs {
        let variant = run.variant.clone().unwrap_or_else(|| "base".into());
        for j in &run.results.jobs {
            let name = run.names.job(j.job);
            let job = name.split('@').next().unwrap_or(&name).to_string();
            let series = format!("{variant} {job}");
            let (mb, cpu) = (j.bw_bytes() / 1e6, j.initiator_cpu.utilization * 100.0);
            let bs = j.bs as f64;
            match out.iter_mut().find(|(p, _)| p.series == series && p.block_bytes == bs) {
                Some((p, n)) => {
                    p.mb_per_s += mb;
                    p.cpu_percent += cpu;
                    *n += 1;
                }
                None => out.push((CpuPoint { series, block_bytes: bs, mb_per_s: mb, cpu_percent: cpu }, 1)),
            }
        }
    }
    out.into_iter()
        .map(|(mut p, n)| {
            p.mb_per_s /= n as f64;
            p.cpu_percent /= n as f64;
            p
        })
        .collect()
}

/// Per-port bars of `value`, one bar per run, for ports where some run has a non-zero value.
fn per_port(
    runs: &[RunFile],
    id: &str,
    title: &str,
    what: &str,
    unit: Unit,
    value: fn(&PortResults) -> f64,
) -> Option<Figure> {
    // Ports are matched across runs by name (variants share the topology; sweeps may not).
    let mut names: Vec<(String, f64)> = Vec::new();
    for run in runs {
        for p in &run.results.ports {
            let v = value(p);
            if v <= 0.0 {
                continue;
            }
            let name = run.names.port(p.node, p.port);
            match names.iter_mut().find(|(n, _)| *n == name) {
                Some(e) => e.1 = e.1.max(v),
                None => names.push((name, v)),
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let total = names.len();
    if total > MAX_PORTS {
        let mut by_value = names.clone();
        by_value.sort_by(|a, b| b.1.total_cmp(&a.1));
        let keep: Vec<String> = by_value.into_iter().take(MAX_PORTS).map(|x| x.0).collect();
        names.retain(|(n, _)| keep.contains(n));
    }
    let categories: Vec<String> = names.into_iter().map(|x| x.0).collect();
    let values = runs
        .iter()
        .map(|run| {
            categories
                .iter()
                .map(|c| {
                    run.results.ports.iter().find(|p| run.names.port(p.node, p.port) == *c).map(value).unwrap_or(0.0)
                })
                .collect()
        })
        .collect();
    let c = BarChart::new(title, "port", categories, labels(runs), values, Axis::new(what, unit));
    let shown = if total > MAX_PORTS {
        format!("the {MAX_PORTS} ports with the largest values of {total}")
    } else {
        format!("{total} ports")
    };
    Some(Figure {
        id: format!("chart-{id}"),
        title: title.into(),
        caption: format!("{shown}, all priorities summed; one bar per run. Per priority in ports.csv."),
        svg: bar_chart(&c),
    })
}

/// perftest's figures, one bar per run for each test (matched across runs by name): the
/// latency tests' average and 99th percentile, and the bandwidth tests' average bandwidth —
/// the figures the deployment guides quote.
fn perftest_charts(runs: &[RunFile]) -> Vec<Figure> {
    type Pick = fn(&rocelab_sim::perftest::PerftestResults) -> Option<f64>;
    let charts: [(&str, &str, &str, Unit, Pick); 3] = [
        ("perftest-lat", "perftest latency (t_avg)", "t_avg", Unit::Seconds, |p| {
            p.lat.as_ref().map(|l| l.t_avg_us * 1e-6)
        }),
        ("perftest-lat-p99", "perftest latency (99% percentile)", "99% percentile", Unit::Seconds, |p| {
            p.lat.as_ref().map(|l| l.p99_us * 1e-6)
        }),
        ("perftest-bw", "perftest bandwidth (BW average)", "BW average", Unit::BitsPerSecond, |p| {
            p.bw.as_ref().map(|b| b.average_gbps * 1e9)
        }),
    ];
    let label = |run: &RunFile, p: &rocelab_sim::perftest::PerftestResults| {
        format!(
            "{} {} {}→{}",
            run.names.perftest(p.test),
            p.kind.tool(),
            run.names.node(p.client),
            run.names.node(p.server)
        )
    };
    let mut out = Vec::new();
    for (id, title, what, unit, pick) in charts {
        let mut cats: Vec<String> = Vec::new();
        for run in runs {
            for p in run.results.perftest.iter().filter(|p| pick(p).is_some()) {
                let l = label(run, p);
                if !cats.contains(&l) {
                    cats.push(l);
                }
            }
        }
        if cats.is_empty() {
            continue;
        }
        let values = runs
            .iter()
            .map(|run| {
                cats.iter()
                    .map(|c| run.results.perftest.iter().find(|p| label(run, p) == *c).and_then(pick).unwrap_or(0.0))
                    .collect()
            })
            .collect();
        let n = cats.len();
        let c = BarChart::new(title, "test", cats, labels(runs), values, Axis::new(what, unit));
        out.push(Figure {
            id: format!("chart-{id}"),
            title: title.into(),
            caption: format!(
                "{n} test{}; one bar per run (0 where a run has no such test). All figures in perftest.csv.",
                if n == 1 { "" } else { "s" }
            ),
            svg: bar_chart(&c),
        });
    }
    out
}

/// Flows charted one bar each at most; beyond, flows are grouped by workload.
pub const MAX_FLOWS: usize = 48;

/// Throughput of each flow, one bar per run; flows matched across runs by name. With more
/// than [`MAX_FLOWS`] flows (a flow-size workload starts thousands) a bar per flow cannot be
/// read: the chart shows each workload's mean flow throughput instead (a flow's workload is
/// its name up to `#`, the instance number the workloads give their flows).
fn flow_throughput(runs: &[RunFile]) -> Option<Figure> {
    let label = |run: &RunFile, f: &rocelab_sim::FlowResults| {
        format!("{} {}→{}", run.names.flow(f.flow), run.names.node(f.src), run.names.node(f.dst))
    };
    let flows = runs.iter().map(|r| r.results.flows.len()).max().unwrap_or(0);
    let grouped = flows > MAX_FLOWS;
    let key = |run: &RunFile, f: &rocelab_sim::FlowResults| {
        if grouped {
            let name = run.names.flow(f.flow);
            name.split('#').next().unwrap_or(&name).to_string()
        } else {
            label(run, f)
        }
    };
    let mut cats: Vec<String> = Vec::new();
    for run in runs {
        for f in &run.results.flows {
            let k = key(run, f);
            if !cats.contains(&k) {
                cats.push(k);
            }
        }
    }
    if cats.is_empty() {
        return None;
    }
    let values = runs
        .iter()
        .map(|run| {
            let mut sum = vec![(0.0, 0u32); cats.len()];
            for f in &run.results.flows {
                if let Some(i) = cats.iter().position(|c| *c == key(run, f)) {
                    sum[i].0 += f.throughput_bps;
                    sum[i].1 += 1;
                }
            }
            sum.into_iter().map(|(t, n)| if n == 0 { 0.0 } else { t / n as f64 }).collect()
        })
        .collect();
    let n = cats.len();
    let (title, what, axis, caption) = if grouped {
        (
            "Mean flow throughput per workload",
            "workload",
            "mean flow throughput",
            format!(
                "{n} workloads of up to {flows} flows; the mean of each flow's delivered payload per second of its active time; one bar per run. Every flow in flows.csv."
            ),
        )
    } else {
        (
            "Throughput per flow",
            "flow",
            "throughput",
            format!("{n} flows; delivered payload per second of each flow's active time; one bar per run."),
        )
    };
    let c = BarChart::new(title, what, cats, labels(runs), values, Axis::new(axis, Unit::BitsPerSecond));
    Some(Figure { id: "chart-flows".into(), title: title.into(), caption, svg: bar_chart(&c) })
}

/// The CDF of flow completion slowdowns, one step line per run.
fn fct_cdf(runs: &[RunFile]) -> Option<Figure> {
    let samples: Vec<(String, Vec<f64>)> = runs.iter().map(|r| (r.label(), RunMetrics::of(r).slowdown)).collect();
    let all: Vec<f64> = samples.iter().flat_map(|s| s.1.iter().copied()).collect();
    let (lo, hi) = all.iter().fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(*v), b.max(*v)));
    let mut x = Axis::new("FCT slowdown", Unit::Ratio);
    if hi / lo >= 20.0 {
        x = x.scale(Scale::Log10);
    }
    let svg = cdf_chart("Flow completion time slowdown (CDF)", x, &samples)?;
    Some(Figure {
        id: "chart-fct".into(),
        title: "FCT slowdown".into(),
        caption: format!(
            "{} completed flows. Slowdown = completion time / the same flow's completion time alone on an empty network (the HPCC simulator's standalone FCT); 1 is an idle fabric.",
            all.len()
        ),
        svg,
    })
}

/// Keeps at most [`MAX_POINTS`] points, each the highest of its bucket, so peaks survive.
fn thin(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points;
    }
    let per = points.len().div_ceil(MAX_POINTS);
    points.chunks(per).map(|c| c.iter().copied().fold((c[0].0, f64::MIN), |a, p| (a.0, a.1.max(p.1)))).collect()
}

/// Queue depth over time at the busiest ports, one line per run.
fn queue_depth(runs: &[RunFile]) -> Vec<Figure> {
    let mut peaks: Vec<(String, u32)> = Vec::new();
    for run in runs {
        let Some(q) = &run.results.queue_samples else { continue };
        for (port, depths) in q.ports.iter().zip(&q.depth_bytes) {
            let peak = depths.iter().copied().max().unwrap_or(0);
            let Some(p) = run.results.ports.get(*port) else { continue };
            if peak == 0 {
                continue;
            }
            let name = run.names.port(p.node, p.port);
            match peaks.iter_mut().find(|(n, _)| *n == name) {
                Some(e) => e.1 = e.1.max(peak),
                None => peaks.push((name, peak)),
            }
        }
    }
    peaks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    peaks
        .iter()
        .take(QUEUE_PORTS)
        .enumerate()
        .map(|(k, (name, _))| {
            let series = runs
                .iter()
                .filter_map(|run| {
                    let q = run.results.queue_samples.as_ref()?;
                    let i = q.ports.iter().position(|g| {
                        run.results.ports.get(*g).is_some_and(|p| run.names.port(p.node, p.port) == *name)
                    })?;
                    let pts = q.depth_bytes[i]
                        .iter()
                        .enumerate()
                        .map(|(s, d)| ((s as u64 * q.interval_ps) as f64 * 1e-12, *d as f64))
                        .collect();
                    Some(Series { name: run.label(), points: thin(pts) })
                })
                .collect();
            let title = format!("Queue depth at {name}");
            let c = LineChart::new(&title, Axis::new("time", Unit::Seconds), Axis::new("egress queue", Unit::Bytes), series);
            let interval = runs.iter().find_map(|r| r.results.queue_samples.as_ref()).map_or(0, |q| q.interval_ps);
            Figure {
                id: format!("chart-queue-{}", k + 1),
                title,
                caption: format!(
                    "All traffic classes of the port's egress queue, sampled every {:.2} µs; one line per run. The {} ports with the highest peaks are shown.",
                    interval as f64 / 1e6,
                    peaks.len().min(QUEUE_PORTS)
                ),
                svg: line_chart(&c),
            }
        })
        .collect()
}

/// A metric against the swept field, one line per variant, when the runs cover a sweep.
fn sweep_charts(runs: &[RunFile]) -> Vec<Figure> {
    let swept: Vec<&RunFile> = runs.iter().filter(|r| r.sweep.is_some()).collect();
    let Some(field) = swept.first().and_then(|r| r.sweep.as_ref()).map(|s| s.field.clone()) else { return Vec::new() };
    let mut values: Vec<&str> = Vec::new();
    for r in &swept {
        let v = r.sweep.as_ref().map(|s| s.value.as_str()).unwrap_or("");
        if !values.contains(&v) {
            values.push(v);
        }
    }
    if values.len() < 2 {
        return Vec::new();
    }
    let (xs, unit, log) = match sweep_numbers(&values) {
        Some((xs, unit)) => {
            let positive = xs.iter().all(|v| *v > 0.0);
            let (lo, hi) = xs.iter().fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(*v), b.max(*v)));
            let log = positive && hi / lo >= 16.0;
            (xs, unit, log)
        }
        None => ((0..values.len()).map(|i| i as f64).collect(), Unit::None, false),
    };
    let unit_suffix = match &unit {
        Unit::None => String::new(),
        u => format!(" ({})", u.display(xs.iter().copied().fold(0.0, f64::max)).unit),
    };
    let tick_labels: Vec<String> = values
        .iter()
        .zip(&xs)
        .map(|(v, x)| if unit == Unit::BytesBinary { size_label(*x) } else { v.to_string() })
        .collect();
    let mut variants: Vec<String> = Vec::new();
    for r in &swept {
        let v = r.variant.clone().unwrap_or_else(|| "base".into());
        if !variants.contains(&v) {
            variants.push(v);
        }
    }
    type Metric = (&'static str, &'static str, &'static str, Unit, fn(&RunMetrics) -> Option<f64>);
    let metrics: [Metric; 12] = [
        ("iops", "Storage IOPS", "IOPS", Unit::Count, |m| m.jobs.map(|j| j.iops)),
        ("storage-bw", "Storage throughput", "throughput", Unit::BytesPerSecond, |m| m.jobs.map(|j| j.bw_bytes)),
        ("clat", "Mean completion latency", "clat mean", Unit::Seconds, |m| m.jobs.map(|j| j.clat_mean_s)),
        ("clat-p99", "99th percentile completion latency", "clat p99", Unit::Seconds, |m| m.jobs.map(|j| j.clat_p99_s)),
        ("cpu", "Initiator CPU utilisation", "CPU", Unit::Fraction, |m| m.jobs.map(|j| j.cpu_utilization)),
        ("goodput", "Goodput", "goodput", Unit::BitsPerSecond, |m| Some(m.goodput_bps)),
        ("fct-p99", "99th percentile FCT", "FCT p99", Unit::Seconds, |m| quantile(&m.fct_s, 0.99)),
        ("pfc", "PFC frames sent", "PFC frames", Unit::Count, |m| Some(m.pfc_sent as f64)),
        ("paused", "Time paused", "time paused", Unit::Seconds, |m| Some(m.paused_s)),
        ("ecn", "ECN marks", "packets marked CE", Unit::Count, |m| Some(m.ecn_marked as f64)),
        ("drops", "Drops", "frames dropped", Unit::Count, |m| Some(m.drops as f64)),
        ("queue", "Peak egress queue", "peak queue", Unit::Bytes, |m| Some(m.peak_queue_bytes as f64)),
    ];
    let mut out = Vec::new();
    for (id, name, what, yunit, f) in metrics {
        let series: Vec<Series> = variants
            .iter()
            .map(|v| {
                let mut points: Vec<(f64, f64)> = swept
                    .iter()
                    .filter(|r| r.variant.clone().unwrap_or_else(|| "base".into()) == *v)
                    .filter_map(|r| {
                        let sv = r.sweep.as_ref()?.value.as_str();
                        let x = xs[values.iter().position(|x| *x == sv)?];
                        Some((x, f(&RunMetrics::of(r))?))
                    })
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series { name: v.clone(), points }
            })
            .collect();
        if series.iter().all(|s| s.points.is_empty()) || series.iter().flat_map(|s| &s.points).all(|p| p.1 == 0.0) {
            continue;
        }
        let mut x = Axis::new(&field, Unit::None).at(xs.clone(), tick_labels.clone());
        x.title = format!("{field}{unit_suffix}");
        if log {
            x = x.scale(Scale::Log2);
        }
        let title = format!("{name} against {field}");
        out.push(Figure {
            id: format!("chart-sweep-{id}"),
            title: title.clone(),
            caption: format!("One line per variant; x is the swept field {field}, at the values the scenario lists."),
            svg: line_chart(&LineChart::new(&title, x, Axis::new(what, yunit), series)),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perftest_charts_show_latency_and_bandwidth_per_run() {
        let runs = vec![crate::testdata::perftest_run("a"), crate::testdata::perftest_run("b")];
        let figs = all(&runs);
        let ids: Vec<&str> = figs.iter().map(|f| f.id.as_str()).collect();
        for id in ["chart-perftest-lat", "chart-perftest-lat-p99", "chart-perftest-bw"] {
            assert!(ids.contains(&id), "{id} in {ids:?}");
        }
        let lat = figs.iter().find(|f| f.id == "chart-perftest-lat").unwrap();
        assert!(lat.svg.contains("lat ib_write_lat client→server"), "the test is a category");
        assert!(["t_avg (ns)", "t_avg (µs)"].iter().any(|u| lat.svg.contains(u)), "latency axis with a time unit");
        let plain = all(&[crate::testdata::run_file(None, None)]);
        assert!(plain.iter().all(|f| !f.id.starts_with("chart-perftest")));
    }
    use crate::run::SweepPoint;

    #[test]
    fn every_chart_of_two_runs() {
        let runs = vec![crate::testdata::run_file(None, None), crate::testdata::run_file(Some("ecn"), None)];
        let f = all(&runs);
        let ids: Vec<&str> = f.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids[0], "chart-topology");
        for want in ["chart-flows", "chart-fct", "chart-pfc-sent", "chart-paused", "chart-queue-1"] {
            assert!(ids.contains(&want), "{want} in {ids:?}");
        }
        assert!(!ids.iter().any(|i| i.starts_with("chart-sweep")), "no sweep, no sweep charts");
        assert!(!ids.contains(&"chart-cpu"), "no CPU figures in the results");
        for fig in &f {
            assert!(fig.svg.starts_with("<svg") && fig.svg.ends_with("</svg>"), "{}", fig.id);
            if fig.id != "chart-topology" {
                assert!(fig.svg.contains(">base") && fig.svg.contains(">ecn"), "{}: a series per run", fig.id);
            }
        }
    }

    #[test]
    fn a_sweep_gives_a_line_per_variant_against_the_swept_values() {
        let point = |v: &str| Some(SweepPoint { field: "workloads.flows[0].size".into(), value: v.into() });
        let runs: Vec<RunFile> = ["4KiB", "64KiB", "128KiB"]
            .iter()
            .flat_map(|v| [crate::testdata::run_file(None, point(v)), crate::testdata::run_file(Some("ecn"), point(v))])
            .collect();
        let f = all(&runs);
        let goodput = f.iter().find(|f| f.id == "chart-sweep-goodput").expect("goodput against the sweep");
        assert!(goodput.svg.contains("workloads.flows[0].size (KiB)"), "x title with its unit");
        assert!(goodput.svg.contains(">4KiB<") && goodput.svg.contains(">128KiB<"));
        assert_eq!(goodput.svg.matches("<path").count(), 2, "one line per variant");
        assert!(goodput.svg.contains("goodput (Gb/s)"));
    }

    #[test]
    fn a_sweep_with_more_runs_than_colours_charts_per_run_figures_at_its_last_point() {
        let point = |v: &str| Some(SweepPoint { field: "workloads.flows[0].size".into(), value: v.into() });
        let sizes = ["4KiB", "16KiB", "64KiB", "128KiB"];
        let variants = [None, Some("ecn"), Some("dcqcn")];
        let runs: Vec<RunFile> =
            sizes.iter().flat_map(|v| variants.map(|var| crate::testdata::run_file(var, point(v)))).collect();
        assert!(runs.len() > PALETTE.len());
        let f = all(&runs);
        let pfc = f.iter().find(|f| f.id == "chart-pfc-sent").expect("PFC frames per port");
        for label in ["base @ 128KiB", "ecn @ 128KiB", "dcqcn @ 128KiB"] {
            let name = label.replace(" @ ", " @ workloads.flows[0].size=");
            assert!(pfc.svg.contains(&format!(">{label}<")) || pfc.svg.contains(&format!(">{name}<")), "{label}");
        }
        assert!(!pfc.svg.contains("4KiB"), "other sweep points are left to the sweep charts");
        assert!(
            pfc.caption.contains("Shown at workloads.flows[0].size = 128KiB") && pfc.caption.contains("3 of 12 runs")
        );
        let sweep = f.iter().find(|f| f.id == "chart-sweep-pfc").expect("PFC frames against the sweep");
        assert_eq!(sweep.svg.matches("stroke-linejoin=\"round\"").count(), 3, "every point, one line per variant");
        assert!(!sweep.caption.contains("Shown at"));
        // With as many runs as colours, every run keeps its own bar.
        let few: Vec<RunFile> = runs.iter().take(PALETTE.len()).cloned().collect();
        let pfc = all(&few).into_iter().find(|f| f.id == "chart-pfc-sent").unwrap();
        assert!(!pfc.caption.contains("Shown at") && pfc.svg.contains("4KiB"));
    }

    #[test]
    fn storage_runs_get_cpu_effectiveness_and_job_metrics_against_the_sweep() {
        let runs: Vec<RunFile> = [4096, 65536]
            .iter()
            .flat_map(|&bs| {
                [crate::testdata::storage_run_file(None, bs), crate::testdata::storage_run_file(Some("dcqcn"), bs)]
            })
            .collect();
        let points = cpu_points(&runs);
        assert_eq!(points.len(), 4, "a point per variant and block size");
        assert!(points.iter().all(|p| p.cpu_percent > 0.0 && p.mb_per_s > 0.0));
        let big = points.iter().find(|p| p.series == "base rd" && p.block_bytes == 65536.0).unwrap();
        let small = points.iter().find(|p| p.series == "base rd" && p.block_bytes == 4096.0).unwrap();
        assert!(big.mb_per_s / big.cpu_percent > small.mb_per_s / small.cpu_percent, "bigger blocks, less CPU per MB");
        let f = all(&runs);
        let ids: Vec<&str> = f.iter().map(|f| f.id.as_str()).collect();
        for want in ["chart-cpu", "chart-sweep-iops", "chart-sweep-storage-bw", "chart-sweep-clat", "chart-sweep-cpu"] {
            assert!(ids.contains(&want), "{want} in {ids:?}");
        }
        let bw = f.iter().find(|f| f.id == "chart-sweep-storage-bw").unwrap();
        assert_eq!(bw.svg.matches("<path").count(), 2, "one line per variant");
        assert!(bw.svg.contains("MB/s") || bw.svg.contains("GB/s"));
        let t = crate::tables::all(&runs);
        assert_eq!(t[1].file, "jobs.csv");
        assert_eq!(t[1].rows.len(), 4, "one read row per run");
    }

    #[test]
    fn many_flows_are_charted_per_workload() {
        let mut run = crate::testdata::run_file(None, None);
        let two = run.results.flows.clone();
        assert_eq!(two.len(), 2);
        // 60 flows: 30 of workload `a` at the first flow's throughput, 30 of `b` at 3x it.
        run.results.flows.clear();
        run.names.flows.clear();
        for i in 0..60 {
            let mut f = two[0].clone();
            f.flow = i;
            f.throughput_bps = if i < 30 { 1e9 } else { 3e9 };
            run.results.flows.push(f);
            run.names.flows.push(format!("{}#{i}", if i < 30 { "a" } else { "b" }));
        }
        let fig = flow_throughput(&[run.clone()]).unwrap();
        assert_eq!(fig.title, "Mean flow throughput per workload");
        assert!(fig.caption.starts_with("2 workloads of up to 60 flows"), "{}", fig.caption);
        assert!(fig.svg.contains(">a<") && fig.svg.contains(">b<") && !fig.svg.contains("a#0"));
        assert!(fig.svg.contains("mean flow throughput (Gb/s)"));
        assert!(fig.svg.contains("base · a: 1.000 Gb/s") && fig.svg.contains("base · b: 3.000 Gb/s"), "{}", fig.svg);
        // At the limit, a bar per flow.
        run.results.flows.truncate(MAX_FLOWS);
        let fig = flow_throughput(&[run]).unwrap();
        assert_eq!(fig.title, "Throughput per flow");
        assert!(fig.svg.contains("a#0 "));
    }

    #[test]
    fn thinning_keeps_the_peaks() {
        let pts: Vec<(f64, f64)> = (0..5000).map(|i| (i as f64, if i == 2345 { 99.0 } else { 1.0 })).collect();
        let t = thin(pts);
        assert!(t.len() <= MAX_POINTS);
        assert!(t.iter().any(|p| p.1 == 99.0));
    }
}
