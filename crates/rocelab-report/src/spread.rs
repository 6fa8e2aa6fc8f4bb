//! The spread over seeds: when a point (a variant at a sweep value) ran under several seeds
//! (`simulation.seeds`, `rocelab sim --all --seeds N`), how far its headline figures move with
//! the random choices alone (ECN marking draws, ECMP salt, arrivals). One row per point with
//! the minimum, median and maximum of each figure over its seeds, so that a difference between
//! two points can be read against the noise of one.

use crate::metrics::{quantile, RunMetrics};
use crate::run::RunFile;
use crate::table::{Cell, Table};

/// A headline figure of a run: its column name and how it is read from the run's metrics.
struct Figure {
    name: &'static str,
    decimals: usize,
    of: fn(&RunMetrics) -> Option<f64>,
}

/// The figures of the runs table that a seed can move.
const FIGURES: [Figure; 6] = [
    Figure { name: "goodput (Gb/s)", decimals: 2, of: |m| Some(m.goodput_bps / 1e9) },
    Figure { name: "FCT p99 (us)", decimals: 2, of: |m| quantile(&m.fct_s, 0.99).map(|s| s * 1e6) },
    Figure { name: "paused (us)", decimals: 2, of: |m| Some(m.paused_s * 1e6) },
    Figure { name: "ECN marks", decimals: 0, of: |m| Some(m.ecn_marked as f64) },
    Figure { name: "drops", decimals: 0, of: |m| Some(m.drops as f64) },
    Figure { name: "peak queue (B)", decimals: 0, of: |m| Some(m.peak_queue_bytes as f64) },
];

/// Minimum, median and maximum of `v` (the median of an even count is the mean of the two
/// middle values); `None` when `v` is empty.
pub fn min_median_max(v: &[f64]) -> Option<(f64, f64, f64)> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = match n {
        0 => return None,
        _ if n % 2 == 1 => s[n / 2],
        _ => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    };
    Some((s[0], median, s[n - 1]))
}

/// The runs of each point that ran under several seeds, in the order the points first ran:
/// (the point's label, its runs).
pub fn points(runs: &[RunFile]) -> Vec<(String, Vec<&RunFile>)> {
    let mut out: Vec<(String, Vec<&RunFile>)> = Vec::new();
    for run in runs.iter().filter(|r| r.seeded) {
        let label = run.point_label();
        match out.iter_mut().find(|(l, _)| *l == label) {
            Some((_, v)) => v.push(run),
            None => out.push((label, vec![run])),
        }
    }
    out
}

/// The spread table: one row per point with seeds, `None` when no run is one of several seeds
/// (the report is then as it was before seeds existed).
pub fn table(runs: &[RunFile]) -> Option<Table> {
    let points = points(runs);
    if points.is_empty() {
        return None;
    }
    let mut cols: Vec<String> =
        ["run", "variant", "sweep field", "sweep value", "runs", "seeds"].iter().map(|s| s.to_string()).collect();
    for f in &FIGURES {
        for q in ["min", "median", "max"] {
            cols.push(format!("{} {q}", f.name));
        }
    }
    let names: Vec<&str> = cols.iter().map(String::as_str).collect();
    let mut t = Table::new("Spread over seeds", "spread.csv", &names);
    for (label, group) in points {
        let first = group[0];
        let seeds: Vec<String> = group.iter().map(|r| r.results.seed.to_string()).collect();
        let mut row: Vec<Cell> = vec![
            label.into(),
            first.variant.clone().unwrap_or_default().into(),
            first.sweep.as_ref().map(|s| s.field.clone()).unwrap_or_default().into(),
            first.sweep.as_ref().map(|s| s.value.clone()).unwrap_or_default().into(),
            (group.len() as u64).into(),
            seeds.join(" ").into(),
        ];
        let metrics: Vec<RunMetrics> = group.iter().map(|r| RunMetrics::of(r)).collect();
        for f in &FIGURES {
            let v: Vec<f64> = metrics.iter().filter_map(f.of).collect();
            match min_median_max(&v) {
                Some((lo, mid, hi)) => row.extend([lo, mid, hi].map(|x| Cell::Num(x, f.decimals))),
                None => row.extend([Cell::Empty, Cell::Empty, Cell::Empty]),
            }
        }
        t.push(row);
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::run_file;

    /// The test run again under `seed`, as one of several seeds of its point.
    fn seeded(variant: Option<&str>, seed: u64) -> RunFile {
        use rocelab_sim::topology::{single_switch, FabricDefaults};
        use rocelab_sim::*;
        let mut d = FabricDefaults::lossless(3, 100_000);
        d.switch.buffer.size_bytes = 600_000;
        d.switch_port.tcs[3].ecn = Some(EcnSpec { kmin_bytes: 20_000, kmax_bytes: 200_000, pmax: 0.2 });
        let fabric = single_switch(3, 100_000_000_000, 100 * NS, &d);
        let mut traffic = Traffic::new();
        let flow = FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 256 << 10);
        traffic.incast(&fabric.hosts[1..], fabric.hosts[0], &flow);
        let mut r = run_file(variant, None);
        r.results = run(&fabric.spec, &traffic, &SimConfig::new(seed, 200 * US)).unwrap();
        r.seeded = true;
        r
    }

    #[test]
    fn min_median_max_of_odd_even_and_empty_lists() {
        assert_eq!(min_median_max(&[3.0, 1.0, 2.0]), Some((1.0, 2.0, 3.0)));
        assert_eq!(min_median_max(&[4.0, 1.0, 2.0, 10.0]), Some((1.0, 3.0, 10.0)));
        assert_eq!(min_median_max(&[]), None);
    }

    #[test]
    fn no_spread_table_without_seeded_runs() {
        assert!(table(&[run_file(None, None), run_file(Some("ecn"), None)]).is_none());
        let tables = crate::tables::all(&[run_file(None, None)]);
        assert!(tables.iter().all(|t| t.file != "spread.csv"));
    }

    #[test]
    fn one_row_per_point_with_the_spread_of_its_seeds() {
        let runs: Vec<RunFile> =
            [1, 2, 3].iter().map(|&s| seeded(None, s)).chain([5, 6].iter().map(|&s| seeded(Some("ecn"), s))).collect();
        let t = table(&runs).unwrap();
        let csv = t.to_csv();
        let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 3, "{csv}");
        assert_eq!(&rows[1][..6], ["base", "", "", "", "3", "1 2 3"]);
        assert_eq!(&rows[2][..6], ["ecn", "ecn", "", "", "2", "5 6"]);
        // Each figure's three columns are the minimum, median and maximum of the runs' own
        // figures, read from the runs table of the same runs.
        let runs_csv = crate::tables::runs(&runs).to_csv();
        let runs_rows: Vec<Vec<&str>> = runs_csv.lines().map(|l| l.split(',').collect()).collect();
        for (k, f) in FIGURES.iter().enumerate() {
            let col = runs_rows[0].iter().position(|c| *c == f.name).unwrap();
            let base: Vec<f64> = runs_rows[1..4].iter().map(|r| r[col].parse().unwrap()).collect();
            let (lo, mid, hi) = min_median_max(&base).unwrap();
            let got: Vec<f64> = rows[1][6 + 3 * k..9 + 3 * k].iter().map(|c| c.parse().unwrap()).collect();
            assert_eq!(got, vec![lo, mid, hi], "{}", f.name);
            assert!(lo <= mid && mid <= hi);
        }
        // The seeds move the ECN marks of this incast: the spread is not one value.
        let ecn = 6 + 3 * 3;
        assert_ne!(rows[1][ecn], rows[1][ecn + 2], "{csv}");
        // The report lists it among its tables, after the runs.
        let tables = crate::tables::all(&runs);
        assert_eq!(tables[1].file, "spread.csv");
        assert!(crate::Report::new(runs, None).html().contains("Spread over seeds"));
    }
}
