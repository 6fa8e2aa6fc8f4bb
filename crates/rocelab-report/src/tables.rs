//! The report's tables, one row per run, flow, port and priority, switch, and queue sample,
//! with a `run` column so that the runs of `--all` sit in one file each.

use crate::metrics::{quantile, slowdown, RunMetrics};
use crate::run::RunFile;
use crate::table::{csv_field, Cell, Table};

fn us(ps: u64) -> Cell {
    Cell::Num(ps as f64 / 1e6, 2)
}

fn opt(v: Option<f64>, decimals: usize) -> Cell {
    v.map_or(Cell::Empty, |v| Cell::Num(v, decimals))
}

/// One row per run: what it was and its totals.
pub fn runs(runs: &[RunFile]) -> Table {
    let mut t = Table::new(
        "Runs",
        "runs.csv",
        &[
            "run",
            "variant",
            "sweep field",
            "sweep value",
            "seed",
            "simulated (us)",
            "events",
            "flows",
            "goodput (Gb/s)",
            "PFC frames sent",
            "paused (us)",
            "ECN marks",
            "drops",
            "peak queue (B)",
            "FCT p50 (us)",
            "FCT p99 (us)",
            "warnings",
        ],
    );
    for run in runs {
        let r = &run.results;
        let m = RunMetrics::of(run);
        t.push(vec![
            run.label().into(),
            run.variant.clone().unwrap_or_default().into(),
            run.sweep.as_ref().map(|s| s.field.clone()).unwrap_or_default().into(),
            run.sweep.as_ref().map(|s| s.value.clone()).unwrap_or_default().into(),
            r.seed.into(),
            us(r.end_time_ps),
            r.events.into(),
            (r.flows.len() as u64).into(),
            Cell::Num(m.goodput_bps / 1e9, 2),
            m.pfc_sent.into(),
            Cell::Num(m.paused_s * 1e6, 2),
            m.ecn_marked.into(),
            m.drops.into(),
            m.peak_queue_bytes.into(),
            opt(quantile(&m.fct_s, 0.5).map(|s| s * 1e6), 2),
            opt(quantile(&m.fct_s, 0.99).map(|s| s * 1e6), 2),
            (run.warnings.len() as u64).into(),
        ]);
    }
    t
}

/// One row per flow of each run.
pub fn flows(runs: &[RunFile]) -> Table {
    let mut t = Table::new(
        "Flows",
        "flows.csv",
        &[
            "run",
            "flow",
            "from",
            "to",
            "priority",
            "throughput (Gb/s)",
            "sent (B)",
            "delivered (B)",
            "delivered packets",
            "dropped packets",
            "CE packets",
            "start (us)",
            "FCT (us)",
            "slowdown",
        ],
    );
    for run in runs {
        let r = &run.results;
        for f in &r.flows {
            t.push(vec![
                run.label().into(),
                run.names.flow(f.flow).into(),
                run.names.node(f.src).into(),
                run.names.node(f.dst).into(),
                (f.priority as u64).into(),
                Cell::Num(f.throughput_bps / 1e9, 3),
                f.sent_bytes.into(),
                f.delivered_bytes.into(),
                f.delivered_packets.into(),
                f.dropped_packets.into(),
                f.ce_packets.into(),
                us(f.start_ps),
                f.fct_ps.map_or(Cell::Empty, us),
                opt(slowdown(r, f), 2),
            ]);
        }
    }
    t
}

/// One row per port and priority that carried traffic or saw PFC, ECN or drops.
pub fn ports(runs: &[RunFile]) -> Table {
    let mut t = Table::new(
        "Ports and priorities",
        "ports.csv",
        &[
            "run",
            "port",
            "peer",
            "speed (Gb/s)",
            "priority",
            "tx packets",
            "tx (B)",
            "rx packets",
            "rx (B)",
            "PFC sent",
            "PFC received",
            "paused (us)",
            "ECN marked",
            "drops",
            "peak queue (B)",
        ],
    );
    for run in runs {
        for p in &run.results.ports {
            for (prio, c) in p.priorities.iter().enumerate() {
                let peak = p.peak_queue_bytes[prio];
                let busy = c.tx_packets + c.rx_packets + c.pfc_sent + c.pfc_received + c.ecn_marked + c.drops + peak;
                if busy == 0 && c.paused_ps == 0 {
                    continue;
                }
                t.push(vec![
                    run.label().into(),
                    run.names.port(p.node, p.port).into(),
                    run.names.port(p.peer_node, p.peer_port).into(),
                    Cell::Num(p.rate_bps as f64 / 1e9, 0),
                    (prio as u64).into(),
                    c.tx_packets.into(),
                    c.tx_bytes.into(),
                    c.rx_packets.into(),
                    c.rx_bytes.into(),
                    c.pfc_sent.into(),
                    c.pfc_received.into(),
                    us(c.paused_ps),
                    c.ecn_marked.into(),
                    c.drops.into(),
                    peak.into(),
                ]);
            }
        }
    }
    t
}

/// One row per switch of each run.
pub fn switches(runs: &[RunFile]) -> Table {
    let mut t = Table::new(
        "Switch buffers",
        "switches.csv",
        &[
            "run",
            "switch",
            "shared pool (B)",
            "peak shared use (B)",
            "drops lossy",
            "drops lossy at egress",
            "drops headroom",
            "drops no route",
        ],
    );
    for run in runs {
        for s in &run.results.switches {
            t.push(vec![
                run.label().into(),
                s.name.clone().into(),
                s.shared_pool_bytes.into(),
                s.peak_shared_used_bytes.into(),
                s.drops_lossy.into(),
                s.drops_egress_lossy.into(),
                s.drops_headroom.into(),
                s.drops_no_route.into(),
            ]);
        }
    }
    t
}

const QUEUE_DEPTH_TITLE: &str = "Queue depth samples";
const QUEUE_DEPTH_FILE: &str = "queue_depth.csv";
const QUEUE_DEPTH_COLUMNS: [&str; 4] = ["run", "port", "time (us)", "queue (B)"];

/// Each sample of every port whose queue was ever non-empty, in table order: (run label, port
/// name, time, depth) to `row`. One series at a time, so that a run's millions of samples never
/// become cells in memory at once.
fn each_queue_sample(
    runs: &[RunFile],
    mut row: impl FnMut(&str, &str, f64, u64) -> std::io::Result<()>,
) -> std::io::Result<()> {
    for run in runs {
        let Some(q) = &run.results.queue_samples else { continue };
        let label = run.label();
        for (port, depths) in q.ports.iter().zip(&q.depth_bytes) {
            if depths.iter().all(|d| *d == 0) {
                continue;
            }
            let Some(p) = run.results.ports.get(*port) else { continue };
            let name = run.names.port(p.node, p.port);
            for (k, d) in depths.iter().enumerate() {
                row(&label, &name, (k as u64 * q.interval_ps) as f64 / 1e6, *d as u64)?;
            }
        }
    }
    Ok(())
}

/// Rows of the queue-depth table.
pub fn queue_depth_rows(runs: &[RunFile]) -> usize {
    let mut n = 0;
    let _ = each_queue_sample(runs, |_, _, _, _| {
        n += 1;
        Ok(())
    });
    n
}

/// Sampled egress queue depth, one row per sample of every port whose queue was ever non-empty
/// (in memory: for a short run; [`write_queue_depth_csv`] writes a long one).
pub fn queue_depth(runs: &[RunFile]) -> Table {
    let mut t = Table::new(QUEUE_DEPTH_TITLE, QUEUE_DEPTH_FILE, &QUEUE_DEPTH_COLUMNS);
    let _ = each_queue_sample(runs, |run, port, time, depth| {
        t.push(vec![run.into(), port.into(), Cell::Num(time, 3), depth.into()]);
        Ok(())
    });
    t
}

/// `queue_depth.csv`, written row by row: what `queue_depth(runs).to_csv()` gives, without
/// holding the table.
pub fn write_queue_depth_csv(runs: &[RunFile], w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let header: Vec<String> = QUEUE_DEPTH_COLUMNS.iter().map(|c| csv_field(c)).collect();
    write!(w, "{}\r\n", header.join(","))?;
    each_queue_sample(runs, |run, port, time, depth| {
        let time = Cell::Num(time, 3).csv();
        write!(w, "{},{},{time},{depth}\r\n", csv_field(run), csv_field(port))
    })
}

/// One row per storage job and direction of each run, with fio's figures and the initiator's
/// CPU.
pub fn jobs(runs: &[RunFile]) -> Table {
    let mut t = Table::new(
        "Storage jobs",
        "jobs.csv",
        &[
            "run",
            "job",
            "protocol",
            "initiator",
            "target",
            "rw",
            "bs (B)",
            "iodepth",
            "numjobs",
            "direction",
            "IOs",
            "IOPS",
            "MB/s",
            "clat min (us)",
            "clat avg (us)",
            "clat p50 (us)",
            "clat p99 (us)",
            "clat p99.9 (us)",
            "clat max (us)",
            "CPU (%)",
            "busiest core (%)",
            "MB/s per % CPU",
        ],
    );
    let name = |v: serde_json::Result<serde_json::Value>| {
        v.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    };
    let ns = |v: u64| Cell::Num(v as f64 / 1e3, 2);
    for run in runs {
        for j in &run.results.jobs {
            for (dir, d) in [("read", &j.read), ("write", &j.write)] {
                if d.total_ios == 0 && (dir == "write" || j.write.total_ios > 0) {
                    continue;
                }
                let c = &d.clat_ns;
                t.push(vec![
                    run.label().into(),
                    run.names.job(j.job).into(),
                    name(serde_json::to_value(j.protocol)).into(),
                    run.names.node(j.initiator).into(),
                    run.names.node(j.target).into(),
                    name(serde_json::to_value(j.rw)).into(),
                    (j.bs as u64).into(),
                    (j.iodepth as u64).into(),
                    (j.numjobs as u64).into(),
                    dir.into(),
                    d.total_ios.into(),
                    Cell::Num(d.iops, 1),
                    Cell::Num(d.bw_bytes / 1e6, 2),
                    ns(c.min_ns),
                    Cell::Num(c.mean_ns / 1e3, 2),
                    ns(c.p50_ns),
                    ns(c.p99_ns),
                    ns(c.p99_9_ns),
                    ns(c.max_ns),
                    Cell::Num(j.initiator_cpu.utilization * 100.0, 2),
                    Cell::Num(j.initiator_cpu.busiest_core * 100.0, 2),
                    Cell::Num(j.initiator_cpu.effectiveness, 1),
                ]);
            }
        }
    }
    t
}

/// Every table of the report (the spread over seeds when a point ran under several, the jobs table when the runs have storage jobs) but the queue-depth
/// samples, which can be millions of rows: see [`queue_depth`] and [`write_queue_depth_csv`].
pub fn all(r: &[RunFile]) -> Vec<Table> {
    let mut t = vec![runs(r)];
    t.extend(crate::spread::table(r));
    if r.iter().any(|run| !run.results.jobs.is_empty()) {
        t.push(jobs(r));
    }
    t.push(flows(r));
    if r.iter().any(|run| !run.results.perftest.is_empty()) {
        t.push(perftest(r));
    }
    t.extend([ports(r), switches(r)]);
    t
}

/// One row per perftest test of each run, in perftest's own columns: bandwidth tests fill the
/// BW columns, latency tests the t_* columns.
pub fn perftest(runs: &[RunFile]) -> Table {
    let mut t = Table::new(
        "perftest",
        "perftest.csv",
        &[
            "run",
            "test",
            "tool",
            "client",
            "server",
            "#bytes",
            "#iterations",
            "complete",
            "BW peak (Gb/s)",
            "BW average (Gb/s)",
            "MsgRate (Mpps)",
            "t_min (us)",
            "t_typical (us)",
            "t_avg (us)",
            "t_stdev (us)",
            "99% (us)",
            "99.9% (us)",
            "t_max (us)",
        ],
    );
    for run in runs {
        for p in &run.results.perftest {
            let (bytes, iterations) = match (&p.bw, &p.lat) {
                (Some(b), _) => (Cell::from(b.size), Cell::from(b.messages)),
                (None, Some(l)) => (Cell::from(l.size), Cell::from(l.iterations)),
                (None, None) => (Cell::Empty, Cell::Empty),
            };
            let bw = |f: fn(&rocelab_sim::perftest::BwReport) -> Option<f64>, d| opt(p.bw.as_ref().and_then(f), d);
            let lat = |f: fn(&rocelab_sim::perftest::LatReport) -> f64| opt(p.lat.as_ref().map(f), 2);
            t.push(vec![
                run.label().into(),
                run.names.perftest(p.test).into(),
                p.kind.tool().into(),
                run.names.node(p.client).into(),
                run.names.node(p.server).into(),
                bytes,
                iterations,
                (if p.complete { "yes" } else { "no" }).into(),
                bw(|b| b.peak_gbps, 2),
                bw(|b| Some(b.average_gbps), 2),
                bw(|b| Some(b.msg_rate_mpps), 6),
                lat(|l| l.t_min_us),
                lat(|l| l.t_typical_us),
                lat(|l| l.t_avg_us),
                lat(|l| l.t_stdev_us),
                lat(|l| l.p99_us),
                lat(|l| l.p99_9_us),
                lat(|l| l.t_max_us),
            ]);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perftest_table_has_perftest_columns_filled_per_kind() {
        let runs = vec![crate::testdata::perftest_run("a"), crate::testdata::perftest_run("b")];
        let t = all(&runs);
        let p = t.iter().find(|t| t.file == "perftest.csv").expect("a perftest table");
        assert_eq!(p.rows.len(), 4);
        let col = |name: &str| p.columns.iter().position(|c| c == name).unwrap();
        let lat = &p.rows[0];
        assert_eq!(lat[col("tool")], Cell::from("ib_write_lat"));
        assert_eq!((&lat[col("client")], &lat[col("server")]), (&Cell::from("client"), &Cell::from("server")));
        assert!(matches!(lat[col("t_avg (us)")], Cell::Num(v, 2) if v > 0.5 && v < 10.0), "{:?}", lat);
        assert_eq!(lat[col("BW average (Gb/s)")], Cell::Empty);
        let bw = &p.rows[1];
        assert!(matches!(bw[col("BW average (Gb/s)")], Cell::Num(v, 2) if v > 80.0 && v < 100.0), "{:?}", bw);
        assert_eq!(bw[col("t_avg (us)")], Cell::Empty);
        assert_eq!(bw[col("#iterations")], Cell::from(50u64));
        // Runs without perftest results have no such table.
        let plain = all(&[crate::testdata::run_file(None, None)]);
        assert!(plain.iter().all(|t| t.file != "perftest.csv"));
    }

    #[test]
    fn the_queue_depth_csv_written_row_by_row_is_the_tables() {
        let runs = vec![crate::testdata::run_file(None, None), crate::testdata::run_file(Some("ecn"), None)];
        let t = queue_depth(&runs);
        assert!(!t.rows.is_empty());
        assert_eq!(queue_depth_rows(&runs), t.rows.len());
        let mut w = Vec::new();
        write_queue_depth_csv(&runs, &mut w).unwrap();
        assert_eq!(String::from_utf8(w).unwrap(), t.to_csv());
    }

    #[test]
    fn tables_have_a_row_per_thing_and_a_csv_each() {
        let runs = vec![crate::testdata::run_file(None, None), crate::testdata::run_file(Some("ecn"), None)];
        let t = all(&runs);
        let files: Vec<&str> = t.iter().map(|t| t.file.as_str()).collect();
        assert_eq!(files, ["runs.csv", "flows.csv", "ports.csv", "switches.csv"]);
        assert_eq!(t[0].rows.len(), 2);
        assert_eq!(t[1].rows.len(), 2 * runs[0].results.flows.len());
        assert_eq!(t[3].rows.len(), 2);
        for table in &t {
            assert!(!table.rows.is_empty(), "{}", table.title);
            let csv = table.to_csv();
            assert_eq!(csv.lines().count(), table.rows.len() + 1, "{}", table.file);
            assert!(csv.lines().all(|l| l.split(',').count() == table.columns.len()), "{}", table.file);
        }
        // The ports table holds the PFC the run counted.
        let col = t[2].columns.iter().position(|c| c == "PFC sent").unwrap();
        let sum: u64 = t[2]
            .rows
            .iter()
            .take_while(|r| r[0] == Cell::from("base"))
            .map(|r| match r[col] {
                Cell::Int(v) => v,
                _ => 0,
            })
            .sum();
        assert_eq!(sum, RunMetrics::of(&runs[0]).pfc_sent);
    }
}
