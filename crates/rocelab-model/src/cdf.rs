//! Flow-size distributions given as an empirical CDF, the way data-centre transport research
//! describes its workloads (web search, Hadoop, storage, RPC), in the format of the HPCC
//! simulator's traffic generator (`traffic_gen/` of alibaba-edu/High-Precision-Congestion-Control):
//!
//! ```text
//! <size in bytes> <cumulative percent>      one point per line, e.g. `10000 15`
//! ```
//!
//! The distribution between two points is linear (the CDF is piecewise linear), as that
//! generator's `CustomRand` reads it: a uniform percentile `r` in [0, 100) falls in the first
//! segment whose upper percent is ≥ `r`, and the size is interpolated linearly inside it. The
//! mean is the exact mean of that piecewise-linear distribution (trapezoids, `getAvg`), which is
//! what the generator divides by to turn a load into an arrival rate. A valid CDF is the one
//! `CustomRand.testCdf` accepts: it starts at 0 %, ends at 100 %, and both sizes and percents
//! strictly increase; rocelab also refuses negative or non-finite sizes.

use crate::diag::{Diagnostic, Mark};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A validated flow-size CDF: points (size in bytes, cumulative percent).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSizeCdf {
    points: Vec<(f64, f64)>,
    mean: f64,
}

/// Which value of a point a problem is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdfField {
    Size,
    Percent,
    /// The point as a whole (e.g. too few points).
    Point,
}

/// A problem with point `index` of a CDF.
#[derive(Debug, Clone, PartialEq)]
pub struct CdfProblem {
    pub index: usize,
    pub field: CdfField,
    pub message: String,
}

impl FlowSizeCdf {
    /// Validates `points` (size in bytes, cumulative percent). Every problem is returned, each
    /// naming the point and value it is about.
    pub fn new(points: Vec<(f64, f64)>) -> Result<FlowSizeCdf, Vec<CdfProblem>> {
        let mut problems = Vec::new();
        let mut p =
            |index: usize, field: CdfField, message: String| problems.push(CdfProblem { index, field, message });
        if points.len() < 2 {
            p(
                points.len().saturating_sub(1),
                CdfField::Point,
                format!(
                "a CDF needs at least two points (the smallest size at 0 % and the largest at 100 %), this one has {}",
                points.len()
            ),
            );
        }
        let size_ok = |s: f64| s.is_finite() && s >= 0.0;
        let pct_ok = |p: f64| p.is_finite() && (0.0..=100.0).contains(&p);
        for (i, &(size, pct)) in points.iter().enumerate() {
            if !size_ok(size) {
                p(i, CdfField::Size, format!("size {size} is negative or not a number; sizes are bytes, 0 or more"));
            }
            if !pct_ok(pct) {
                p(i, CdfField::Percent, format!("cumulative percent {pct} is not between 0 and 100"));
            }
            if i > 0 {
                let (ps, pp) = points[i - 1];
                if size_ok(size) && size_ok(ps) && size <= ps {
                    p(
                        i,
                        CdfField::Size,
                        format!("size {size} is not above the previous point's {ps}: sizes must strictly increase"),
                    );
                }
                if pct_ok(pct) && pct_ok(pp) && pct <= pp {
                    p(i, CdfField::Percent, format!(
                        "cumulative percent {pct} is not above the previous point's {pp}: percents must strictly increase"
                    ));
                }
            }
        }
        if let Some(&(_, first)) = points.first() {
            if first != 0.0 && points.len() >= 2 {
                p(
                    0,
                    CdfField::Percent,
                    format!(
                    "the first point is at {first} %, a CDF starts at 0 % (give the smallest size at 0, e.g. `0 0`)"
                ),
                );
            }
        }
        if let Some(&(_, last)) = points.last() {
            if (last - 100.0).abs() > 1e-9 && points.len() >= 2 {
                p(
                    points.len() - 1,
                    CdfField::Percent,
                    format!("the last point is at {last} %, a CDF ends at 100 % (the largest size)"),
                );
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let mean = points.windows(2).map(|w| (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1)).sum::<f64>() / 100.0;
        Ok(FlowSizeCdf { points, mean })
    }

    /// Parses the HPCC CDF text format (`size cumulative_percent` per line; blank lines are
    /// skipped). Errors carry the line and column in `text` (the caller sets the file).
    pub fn parse(text: &str) -> Result<FlowSizeCdf, Vec<Diagnostic>> {
        let mut points = Vec::new();
        // (line, column of the size, column of the percent) of each point.
        let mut at = Vec::new();
        let mut diags = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let ln = i + 1;
            let cols: Vec<(usize, &str)> = crate::columns::columns(line).collect();
            if cols.is_empty() {
                continue;
            }
            let mark = |c: usize| Mark { line: ln, column: c };
            if cols.len() != 2 {
                diags.push(
                    Diagnostic::error(mark(1), "", format!("`{}` has {} fields", line.trim(), cols.len()))
                        .expected("`<size in bytes> <cumulative percent>`, e.g. `10000 15`"),
                );
                continue;
            }
            let num = |(c, t): (usize, &str), what: &str| -> Result<f64, Diagnostic> {
                t.parse::<f64>().map_err(|_| {
                    Diagnostic::error(mark(c), "", format!("`{t}` is not a number")).expected(what.to_string())
                })
            };
            match (num(cols[0], "a size in bytes"), num(cols[1], "a cumulative percent, 0 to 100")) {
                (Ok(s), Ok(p)) => {
                    points.push((s, p));
                    at.push((ln, cols[0].0, cols[1].0));
                }
                (a, b) => {
                    diags.extend(a.err());
                    diags.extend(b.err());
                }
            }
        }
        if !diags.is_empty() {
            return Err(diags);
        }
        if points.is_empty() {
            return Err(vec![Diagnostic::error(Mark { line: 1, column: 1 }, "", "the CDF file has no points")
                .expected("lines `<size in bytes> <cumulative percent>`, from `0 0` up to `<largest size> 100`")]);
        }
        FlowSizeCdf::new(points).map_err(|ps| {
            ps.into_iter()
                .map(|p| {
                    let (line, sc, pc) = at[p.index.min(at.len() - 1)];
                    let column = match p.field {
                        CdfField::Size | CdfField::Point => sc,
                        CdfField::Percent => pc,
                    };
                    Diagnostic::error(Mark { line, column }, "", p.message)
                })
                .collect()
        })
    }

    /// The points, sizes in bytes and cumulative percents.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// Mean flow size in bytes of the piecewise-linear distribution.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Largest size.
    pub fn max(&self) -> f64 {
        self.points.last().map(|p| p.0).unwrap_or(0.0)
    }

    /// The size at uniform variate `u` in [0, 1): percentile `100·u`, interpolated linearly in
    /// its segment.
    pub fn quantile(&self, u: f64) -> f64 {
        let r = u.clamp(0.0, 1.0) * 100.0;
        // First point whose percent is ≥ r (the generator's `getValueFromPercentile`).
        let i = self.points.partition_point(|&(_, p)| p < r).clamp(1, self.points.len() - 1);
        let (x0, y0) = self.points[i - 1];
        let (x1, y1) = self.points[i];
        x0 + (x1 - x0) / (y1 - y0) * (r - y0)
    }

    /// A flow size drawn with uniform variate `u`: the quantile truncated to whole bytes, at
    /// least 1 (the generator writes `int(rand())` and turns sizes ≤ 0 into 1).
    pub fn sample(&self, u: f64) -> u64 {
        (self.quantile(u) as u64).max(1)
    }
}

/// Where a workload's flow-size CDF comes from: a file in the HPCC format (a path, relative to
/// the scenario file's directory), or points written inline as `[size, percent]` pairs (sizes
/// in bytes, or with a unit such as `10KB`).
#[derive(Debug, Clone, PartialEq)]
pub enum CdfSource {
    File(String),
    Points(Vec<(CdfSize, f64)>),
}

/// A size in a CDF point: bytes as a number (fractions allowed, as in the HPCC files), or a
/// size with a unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CdfSize(pub f64);

impl Serialize for CdfSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 9e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for CdfSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = CdfSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size in bytes, e.g. `10000` or `10KB`")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<CdfSize, E> {
                Ok(CdfSize(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<CdfSize, E> {
                Ok(CdfSize(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<CdfSize, E> {
                Ok(CdfSize(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CdfSize, E> {
                v.parse::<crate::units::Size>().map(|s| CdfSize(s.as_bytes() as f64)).map_err(|e| E::custom(e.message))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for CdfSource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CdfSource::File(f) => s.serialize_str(f),
            CdfSource::Points(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for CdfSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CdfSource;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the path of a CDF file, or a list of `[size, cumulative percent]` points")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CdfSource, E> {
                Ok(CdfSource::File(v.to_string()))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<CdfSource, A::Error> {
                let mut points = Vec::new();
                while let Some(p) = seq.next_element::<(CdfSize, f64)>()? {
                    points.push(p);
                }
                Ok(CdfSource::Points(points))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdf(points: &[(f64, f64)]) -> FlowSizeCdf {
        FlowSizeCdf::new(points.to_vec()).unwrap()
    }

    #[test]
    fn mean_is_the_trapezoid_sum() {
        // Uniform on [0, 1000]: mean 500.
        assert_eq!(cdf(&[(0.0, 0.0), (1000.0, 100.0)]).mean(), 500.0);
        // Half the flows uniform on [0, 100], half on [100, 10100]: 0.5·50 + 0.5·5100 = 2575.
        assert_eq!(cdf(&[(0.0, 0.0), (100.0, 50.0), (10100.0, 100.0)]).mean(), 2575.0);
    }

    #[test]
    fn quantiles_interpolate_inside_their_segment() {
        let c = cdf(&[(0.0, 0.0), (100.0, 50.0), (10100.0, 100.0)]);
        assert_eq!(c.quantile(0.0), 0.0);
        assert_eq!(c.quantile(0.25), 50.0);
        assert_eq!(c.quantile(0.5), 100.0);
        assert_eq!(c.quantile(0.75), 5100.0);
        assert_eq!(c.sample(0.0), 1, "sizes below one byte become 1");
        assert_eq!(c.sample(0.7501), 5102, "100 + 200 B per percent x 25.01");
        assert!(c.quantile(0.999_999_9) <= c.max());
    }

    #[test]
    fn text_format_and_its_errors_are_located() {
        let c = FlowSizeCdf::parse("0 0\n\n1000 40\n2000 100\n").unwrap();
        assert_eq!(c.points().len(), 3);
        let e = FlowSizeCdf::parse("0 0\n1000 40\n900 30\n2000 99\n").unwrap_err();
        let got: Vec<(usize, usize)> = e.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(got, [(3, 1), (3, 5), (4, 6)], "{e:#?}");
        assert!(e[0].message.contains("strictly increase"), "{}", e[0].message);
        assert!(e[2].message.contains("ends at 100"), "{}", e[2].message);
        let e = FlowSizeCdf::parse("0 0\n-5 10\n10 100\n").unwrap_err();
        assert!(e.iter().any(|d| d.line == 2 && d.message.contains("negative")), "{e:#?}");
        let e = FlowSizeCdf::parse("0 0\n10 x\n").unwrap_err();
        assert_eq!((e[0].line, e[0].column), (2, 4));
        let e = FlowSizeCdf::parse("0 0 1\n").unwrap_err();
        assert!(e[0].expected.as_deref().unwrap().contains("cumulative percent"));
        assert!(FlowSizeCdf::parse("\n").unwrap_err()[0].message.contains("no points"));
        let e = FlowSizeCdf::parse("10 5\n20 100\n").unwrap_err();
        assert!(e[0].message.contains("starts at 0 %"), "{}", e[0].message);
    }
}
