//! Grouped bar charts: one group per category (a port, a flow), one bar per series (a run or a
//! variant) in each group, as the guides show counters per port side by side.

use super::axis::{Axis, Unit};
use super::line::{x_labels, x_margin, y_axis, y_margin, Frame};
use super::{colour, esc, legend, legend_height, n, svg_open, title, TITLE_PX};
use std::fmt::Write;

/// A grouped bar chart; `values[s][c]` is series `s` at category `c`.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    pub title: String,
    /// Title of the category axis ("port", "flow").
    pub category_title: String,
    pub categories: Vec<String>,
    pub series: Vec<String>,
    pub values: Vec<Vec<f64>>,
    pub y: Axis,
    pub width: f64,
    pub height: f64,
}

impl BarChart {
    /// A chart at least 860 × 380 px (wider when there are many bars).
    pub fn new(
        title: &str,
        category_title: &str,
        categories: Vec<String>,
        series: Vec<String>,
        values: Vec<Vec<f64>>,
        y: Axis,
    ) -> Self {
        BarChart {
            title: title.into(),
            category_title: category_title.into(),
            categories,
            series,
            values,
            y,
            width: 860.0,
            height: 380.0,
        }
    }
}

/// Smallest bar width drawn (px): the chart widens to keep bars at least this wide.
pub const MIN_BAR_PX: f64 = 3.0;
/// Widest a chart grows (px); past that, bars get thinner.
pub const MAX_WIDTH_PX: f64 = 4000.0;

/// Renders a grouped bar chart as SVG.
pub fn bar_chart(c: &BarChart) -> String {
    let cats = c.categories.len().max(1);
    let nser = c.series.len().max(1);
    let max = c.values.iter().flatten().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
    let legend_h = legend_height(&c.series, c.width - 40.0);
    let top = 16.0 + TITLE_PX + 8.0 + legend_h + 10.0;
    let plot_h_guess = c.height - top - 80.0;
    let y = c.y.resolve(0.0, max, plot_h_guess, false);
    let left = y_margin(&y);
    let right = 24.0;
    let need = (cats * nser) as f64 * MIN_BAR_PX / 0.8 + left + right;
    let width = c.width.max(need.min(MAX_WIDTH_PX));
    let plot_w = width - left - right;
    let group = plot_w / cats as f64;
    let centres: Vec<f64> = (0..cats).map(|i| left + (i as f64 + 0.5) * group).collect();
    let labels: Vec<String> = if c.categories.is_empty() { vec![String::new()] } else { c.categories.clone() };
    let bottom = x_margin(&labels, &centres, 120.0);
    let height = (top + plot_h_guess.max(180.0) + bottom).max(c.height);
    let f = Frame { left, top, w: plot_w, h: height - top - bottom };
    let y = c.y.resolve(0.0, max, f.h, false);
    let display = c.y.unit.display(y.hi.abs());

    let mut out = String::new();
    svg_open(&mut out, width, height, &c.title);
    title(&mut out, &c.title);
    legend(&mut out, &c.series, 20.0, 16.0 + TITLE_PX + 8.0, c.width - 40.0, false);
    y_axis(&mut out, &f, &y);
    let bar = group * 0.8 / nser as f64;
    for (s, row) in c.values.iter().enumerate() {
        for (k, v) in row.iter().enumerate().take(cats) {
            if !v.is_finite() || *v <= 0.0 {
                continue;
            }
            let h = y.frac(*v) * f.h;
            let x = left + k as f64 * group + group * 0.1 + s as f64 * bar;
            let shown = if display.unit.is_empty() || matches!(c.y.unit, Unit::Other(_)) {
                format!("{}", (v * 1000.0).round() / 1000.0)
            } else {
                format!("{:.3} {}", v / display.divisor, display.unit)
            };
            let _ = write!(
                out,
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} · {}: {}</title></rect>"#,
                n(x),
                n(f.top + f.h - h),
                n((bar - 0.5).max(0.5)),
                n(h),
                colour(s),
                esc(c.series.get(s).map(String::as_str).unwrap_or("")),
                esc(c.categories.get(k).map(String::as_str).unwrap_or("")),
                esc(&shown)
            );
        }
    }
    x_labels(&mut out, &f, &labels, &centres, &c.category_title, 120.0);
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_bars_with_tooltips_and_units() {
        let c = BarChart::new(
            "PFC frames sent per port",
            "port",
            vec!["leaf1:Ethernet40".into(), "spine1:Ethernet0".into()],
            vec!["base".into(), "incast-on-priority-4".into()],
            vec![vec![371.0, 402.0], vec![0.0, 12.0]],
            Axis::new("PFC frames", Unit::Count),
        );
        let svg = bar_chart(&c);
        assert_eq!(svg.matches("</title></rect>").count(), 3, "zero bars are not drawn");
        assert!(svg.contains("base · leaf1:Ethernet40: 371"));
        assert!(svg.contains(">PFC frames<"), "count axis without a unit keeps its title");
        let c = BarChart {
            y: Axis::new("time paused", Unit::Seconds),
            values: vec![vec![1.27e-3, 0.0], vec![0.0, 0.0]],
            ..c
        };
        let svg = bar_chart(&c);
        assert!(svg.contains("time paused (ms)") && svg.contains("1.270 ms"), "{svg}");
    }

    #[test]
    fn many_bars_widen_the_chart_up_to_a_limit() {
        let cats: Vec<String> = (0..400).map(|i| format!("flow#{i}")).collect();
        let vals = vec![vec![1.0; 400], vec![2.0; 400]];
        let c = BarChart::new("t", "flow", cats, vec!["a".into(), "b".into()], vals, Axis::new("x", Unit::None));
        let svg = bar_chart(&c);
        let width: f64 = svg.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(width > 860.0 && width <= MAX_WIDTH_PX, "{width}");
        assert_eq!(svg.matches("</title></rect>").count(), 800);
    }
}
