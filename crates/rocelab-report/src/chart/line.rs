//! Line charts: one polyline per series over numeric axes. Used for a metric against a swept
//! field (one series per variant), queue depth over time (one series per run), CDFs (as steps)
//! and CPU effectiveness against block size.

use super::axis::{layout_labels, Axis, Resolved, Scale, Unit};
use super::{
    colour, dash, esc, legend, legend_height, marker, n, svg_open, text, text_width, title, FONT_PX, TITLE_PX,
};
use std::fmt::Write;

/// One named series of (x, y) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    /// Draw steps (hold each y until the next x), as a CDF is drawn.
    pub step: bool,
    pub width: f64,
    pub height: f64,
}

impl LineChart {
    /// A chart 860 × 380 px.
    pub fn new(title: &str, x: Axis, y: Axis, series: Vec<Series>) -> Self {
        LineChart { title: title.into(), x, y, series, step: false, width: 860.0, height: 380.0 }
    }
}

/// The plot rectangle and resolved axes of a chart, shared by line and bar charts.
pub(crate) struct Frame {
    pub left: f64,
    pub top: f64,
    pub w: f64,
    pub h: f64,
}

/// Draws the y axis (grid lines, tick labels, rotated title) of `frame`.
pub(crate) fn y_axis(out: &mut String, f: &Frame, y: &Resolved) {
    for (v, label) in y.ticks.iter().zip(&y.labels) {
        if *v < y.lo - 1e-12 || *v > y.hi + 1e-12 {
            continue;
        }
        let py = f.top + f.h - y.frac(*v) * f.h;
        let _ = write!(
            out,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ddd"/>"##,
            n(f.left),
            n(py),
            n(f.left + f.w),
            n(py)
        );
        text(out, f.left - 6.0, py + FONT_PX * 0.35, "end", 0.0, FONT_PX, label);
    }
    let widest = y.labels.iter().map(|l| text_width(l, FONT_PX)).fold(0.0, f64::max);
    text(out, f.left - widest - 14.0, f.top + f.h / 2.0, "middle", -90.0, FONT_PX, &y.title);
    let _ = write!(
        out,
        r##"<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="#444"/><line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="#444"/>"##,
        l = n(f.left),
        t = n(f.top),
        b = n(f.top + f.h),
        r = n(f.left + f.w)
    );
}

/// Left margin the y axis needs for its labels and title.
pub(crate) fn y_margin(y: &Resolved) -> f64 {
    y.labels.iter().map(|l| text_width(l, FONT_PX)).fold(0.0, f64::max) + FONT_PX * 1.4 + 20.0
}

/// Draws x tick labels laid out by [`layout_labels`] at `positions`, and the title below.
pub(crate) fn x_labels(
    out: &mut String,
    f: &Frame,
    labels: &[String],
    positions: &[f64],
    title: &str,
    max_extent: f64,
) {
    let l = layout_labels(labels, positions, FONT_PX, max_extent);
    let base = f.top + f.h;
    for (i, x) in positions.iter().enumerate() {
        let _ = write!(
            out,
            r##"<line x1="{x}" y1="{y}" x2="{x}" y2="{y2}" stroke="#444"/>"##,
            x = n(*x),
            y = n(base),
            y2 = n(base + 4.0)
        );
        if !l.shown[i] {
            continue;
        }
        if l.angle == 0.0 {
            text(out, *x, base + 6.0 + FONT_PX, "middle", 0.0, FONT_PX, &l.texts[i]);
        } else {
            // Rotated labels end at the tick; the title of the full label is kept for hover.
            let _ = write!(out, "<g><title>{}</title>", esc(&labels[i]));
            text(out, x + FONT_PX * 0.35, base + 8.0, "end", l.angle, FONT_PX, &l.texts[i]);
            out.push_str("</g>");
        }
    }
    text(out, f.left + f.w / 2.0, base + l.extent + 10.0 + FONT_PX, "middle", 0.0, FONT_PX, title);
}

/// Height [`x_labels`] takes below the plot.
pub(crate) fn x_margin(labels: &[String], positions: &[f64], max_extent: f64) -> f64 {
    layout_labels(labels, positions, FONT_PX, max_extent).extent + 10.0 + FONT_PX * 1.6
}

fn bounds(series: &[Series], pick: impl Fn(&(f64, f64)) -> f64) -> (f64, f64) {
    let vals = series.iter().flat_map(|s| s.points.iter().map(&pick)).filter(|v| v.is_finite());
    vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// Renders a line chart as SVG.
pub fn line_chart(c: &LineChart) -> String {
    let (xlo, xhi) = bounds(&c.series, |p| p.0);
    let (ylo, yhi) = bounds(&c.series, |p| p.1);
    let (xlo, xhi) = if xlo.is_finite() { (xlo, xhi) } else { (0.0, 1.0) };
    let (ylo, yhi) = if ylo.is_finite() { (ylo, yhi) } else { (0.0, 1.0) };
    let names: Vec<String> = c.series.iter().map(|s| s.name.clone()).collect();
    let legend_h = legend_height(&names, c.width - 40.0);
    let top = 16.0 + TITLE_PX + 8.0 + legend_h + 10.0;
    // Resolve y first (its labels set the left margin), then x over the width left.
    let plot_h_guess = c.height - top - 60.0;
    let y = c.y.resolve(ylo, yhi, plot_h_guess, false);
    let left = y_margin(&y);
    let right = 24.0;
    let plot_w = c.width - left - right;
    let x = c.x.resolve(xlo, xhi, plot_w, true);
    let xpos: Vec<f64> = x.ticks.iter().map(|v| left + x.frac(*v) * plot_w).collect();
    let bottom = x_margin(&x.labels, &xpos, 110.0);
    let height = (top + plot_h_guess.max(180.0) + bottom).max(c.height);
    let f = Frame { left, top, w: plot_w, h: height - top - bottom };
    let y = c.y.resolve(ylo, yhi, f.h, false);

    let mut out = String::new();
    svg_open(&mut out, c.width, height, &c.title);
    title(&mut out, &c.title);
    legend(&mut out, &names, 20.0, 16.0 + TITLE_PX + 8.0, c.width - 40.0, true);
    y_axis(&mut out, &f, &y);
    x_labels(&mut out, &f, &x.labels, &xpos, &x.title, 110.0);
    let px = |p: &(f64, f64)| (f.left + x.frac(p.0) * f.w, f.top + f.h - y.frac(p.1) * f.h);
    for (i, s) in c.series.iter().enumerate() {
        let pts: Vec<(f64, f64)> = s.points.iter().filter(|p| p.0.is_finite() && p.1.is_finite()).map(px).collect();
        if pts.is_empty() {
            continue;
        }
        let mut d = String::new();
        for (k, (px, py)) in pts.iter().enumerate() {
            if k == 0 {
                let _ = write!(d, "M{} {}", n(*px), n(*py));
            } else if c.step {
                let _ = write!(d, "H{}V{}", n(*px), n(*py));
            } else {
                let _ = write!(d, "L{} {}", n(*px), n(*py));
            }
        }
        let _ = write!(
            out,
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="2" stroke-dasharray="{}" stroke-linejoin="round"><title>{}</title></path>"#,
            colour(i),
            dash(i),
            esc(&s.name)
        );
        if !c.step && pts.len() <= 40 {
            for (p, (cx, cy)) in s.points.iter().zip(&pts) {
                marker(&mut out, i, *cx, *cy, &format!("{}: {} at {}", s.name, p.1, p.0));
            }
        }
    }
    out.push_str("</svg>");
    out
}

/// A cumulative distribution of each named sample, drawn as steps: x the value, y the
/// fraction of the sample at or below it. `None` when every sample is empty.
pub fn cdf_chart(title: &str, x: Axis, samples: &[(String, Vec<f64>)]) -> Option<String> {
    let series: Vec<Series> = samples
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(name, values)| {
            let mut v: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            let count = v.len() as f64;
            let mut points = vec![(v[0], 0.0)];
            points.extend(v.iter().enumerate().map(|(i, x)| (*x, (i + 1) as f64 / count)));
            Series { name: format!("{name} ({} flows)", v.len()), points }
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    let y = Axis::new("fraction of flows", Unit::Fraction).range(0.0, 1.0);
    let mut c = LineChart::new(title, x, y, series);
    c.step = true;
    Some(line_chart(&c))
}

/// CPU effectiveness as the guides chart it: throughput per percent of host CPU (MB/s per
/// % CPU) against block size, one series per configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuPoint {
    pub series: String,
    pub block_bytes: f64,
    /// Throughput, MB/s (10^6 bytes per second).
    pub mb_per_s: f64,
    /// Host CPU utilisation, percent.
    pub cpu_percent: f64,
}

/// The CPU effectiveness chart, or `None` when no point has CPU figures.
pub fn cpu_effectiveness_chart(points: &[CpuPoint]) -> Option<String> {
    let usable: Vec<&CpuPoint> = points.iter().filter(|p| p.cpu_percent > 0.0 && p.block_bytes > 0.0).collect();
    if usable.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = Vec::new();
    for p in &usable {
        if !names.contains(&p.series.as_str()) {
            names.push(&p.series);
        }
    }
    let series = names
        .iter()
        .map(|name| {
            let mut pts: Vec<(f64, f64)> = usable
                .iter()
                .filter(|p| p.series == *name)
                .map(|p| (p.block_bytes, p.mb_per_s / p.cpu_percent))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { name: name.to_string(), points: pts }
        })
        .collect();
    let mut sizes: Vec<f64> = usable.iter().map(|p| p.block_bytes).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    let labels = sizes.iter().map(|b| size_label(*b)).collect();
    let x = Axis::new("block size", Unit::None).scale(Scale::Log2).at(sizes, labels);
    let y = Axis::new("CPU effectiveness", Unit::Other("MB/s per % CPU".into()));
    Some(line_chart(&LineChart::new("CPU effectiveness (throughput per % of host CPU)", x, y, series)))
}

/// A block size as the guides write it: 512B, 4KiB, 1MiB.
pub fn size_label(bytes: f64) -> String {
    for (d, u) in [(1073741824.0, "GiB"), (1048576.0, "MiB"), (1024.0, "KiB")] {
        if bytes >= d && (bytes / d).fract() == 0.0 {
            return format!("{}{u}", bytes / d);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(svg: &str, what: &str) -> usize {
        svg.matches(what).count()
    }

    #[test]
    fn a_series_per_variant_with_legend_units_and_markers() {
        let series = vec![
            Series { name: "pfc".into(), points: vec![(1500.0, 20e9), (9000.0, 23e9)] },
            Series { name: "ecn".into(), points: vec![(1500.0, 21e9), (9000.0, 24e9)] },
        ];
        let x = Axis::new("fabric.qos.mtu", Unit::Bytes).at(vec![1500.0, 9000.0], vec!["1500".into(), "9000".into()]);
        let svg = line_chart(&LineChart::new("throughput", x, Axis::new("throughput", Unit::BitsPerSecond), series));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(count(&svg, "<path"), 2);
        assert_eq!(count(&svg, "<circle"), 2, "circles for the first series");
        assert_eq!(count(&svg, "<rect x="), 2, "squares for the second");
        assert!(svg.contains("throughput (Gb/s)") && svg.contains(">pfc<") && svg.contains(">ecn<"));
        assert!(svg.contains(">1500<") && svg.contains(">9000<"));
    }

    #[test]
    fn cdf_steps_reach_one() {
        let svg = cdf_chart(
            "FCT slowdown",
            Axis::new("slowdown", Unit::Ratio).scale(Scale::Log10),
            &[("base".into(), vec![3.0, 1.0, 2.0]), ("empty".into(), vec![])],
        )
        .unwrap();
        assert!(svg.contains("base (3 flows)") && !svg.contains("empty"));
        assert!(svg.contains("fraction of flows (%)"));
        assert!(svg.contains('H') && svg.contains("V"), "steps");
        assert!(cdf_chart("x", Axis::new("x", Unit::None), &[("a".into(), vec![])]).is_none());
    }

    #[test]
    fn cpu_effectiveness_divides_throughput_by_cpu() {
        let p = |s: &str, kib: f64, mbps: f64, cpu: f64| CpuPoint {
            series: s.into(),
            block_bytes: kib * 1024.0,
            mb_per_s: mbps,
            cpu_percent: cpu,
        };
        let svg = cpu_effectiveness_chart(&[
            p("RoCE", 4.0, 1000.0, 20.0),
            p("RoCE", 64.0, 4400.0, 10.0),
            p("TCP", 4.0, 800.0, 40.0),
            p("TCP", 64.0, 4000.0, 30.0),
        ])
        .unwrap();
        assert!(svg.contains("MB/s per % CPU"));
        assert!(svg.contains(">4KiB<") && svg.contains(">64KiB<"));
        // RoCE at 64 KiB: 4400 / 10 = 440 MB/s per % CPU, in the point's tooltip.
        assert!(svg.contains("RoCE: 440 at 65536"), "{svg}");
        assert!(cpu_effectiveness_chart(&[p("x", 4.0, 100.0, 0.0)]).is_none());
        assert_eq!(size_label(4096.0), "4KiB");
        assert_eq!(size_label(1536.0), "1536B");
    }

    #[test]
    fn empty_and_single_point_charts_render() {
        let svg =
            line_chart(&LineChart::new("nothing", Axis::new("t", Unit::Seconds), Axis::new("q", Unit::Bytes), vec![]));
        assert!(svg.ends_with("</svg>"));
        let one = vec![Series { name: "a".into(), points: vec![(1.0, 1.0)] }];
        let svg = line_chart(&LineChart::new("one", Axis::new("t", Unit::None), Axis::new("q", Unit::None), one));
        assert_eq!(count(&svg, "<circle"), 1);
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }
}
