//! Axes: units and their display scale, "nice" ticks, tick label formatting, and the layout of
//! labels along an axis so that none overlaps (thinning, rotating, truncating as needed).

use super::{text_width, truncate};

/// What an axis measures; values are given in the base unit (bytes, bit/s, seconds).
#[derive(Clone, Debug, PartialEq)]
pub enum Unit {
    /// A plain number without unit.
    None,
    /// A count of events or frames.
    Count,
    /// Bytes with decimal prefixes (KB = 1000 B), as rocelab writes buffer and queue sizes.
    Bytes,
    /// Bytes with binary prefixes (KiB = 1024 B), as block sizes are written.
    BytesBinary,
    /// Bits per second.
    BitsPerSecond,
    /// Bytes per second with decimal prefixes (MB/s), as storage tools report throughput.
    BytesPerSecond,
    /// Seconds.
    Seconds,
    /// A ratio (e.g. FCT slowdown), shown as a plain number with "×".
    Ratio,
    /// A fraction 0..1 shown as percent.
    Fraction,
    /// Anything else, with its unit written out (e.g. "MB/s per % CPU").
    Other(String),
}

/// How an axis's values are shown: divided by `divisor`, with `unit` in the axis title.
#[derive(Clone, Debug, PartialEq)]
pub struct Display {
    pub divisor: f64,
    pub unit: String,
}

impl Unit {
    /// The display scale for values up to `max` (absolute).
    pub fn display(&self, max: f64) -> Display {
        let pick = |steps: &[(f64, &str)]| {
            let (d, u) = steps.iter().rev().find(|(d, _)| max >= *d).copied().unwrap_or(steps[0]);
            Display { divisor: d, unit: u.to_string() }
        };
        match self {
            Unit::None => Display { divisor: 1.0, unit: String::new() },
            Unit::Count => {
                if max >= 1e7 {
                    Display { divisor: 1e6, unit: "millions".into() }
                } else if max >= 1e4 {
                    Display { divisor: 1e3, unit: "thousands".into() }
                } else {
                    Display { divisor: 1.0, unit: String::new() }
                }
            }
            Unit::Bytes => pick(&[(1.0, "B"), (1e3, "KB"), (1e6, "MB"), (1e9, "GB"), (1e12, "TB")]),
            Unit::BytesBinary => pick(&[(1.0, "B"), (1024.0, "KiB"), (1048576.0, "MiB"), (1073741824.0, "GiB")]),
            Unit::BitsPerSecond => pick(&[(1.0, "b/s"), (1e3, "Kb/s"), (1e6, "Mb/s"), (1e9, "Gb/s"), (1e12, "Tb/s")]),
            Unit::BytesPerSecond => pick(&[(1.0, "B/s"), (1e3, "KB/s"), (1e6, "MB/s"), (1e9, "GB/s")]),
            Unit::Seconds => pick(&[(1e-12, "ps"), (1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms"), (1.0, "s")]),
            Unit::Ratio => Display { divisor: 1.0, unit: "×".into() },
            Unit::Fraction => Display { divisor: 0.01, unit: "%".into() },
            Unit::Other(u) => Display { divisor: 1.0, unit: u.clone() },
        }
    }
}

/// Where values go along the axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Logarithmic, base 2 (block sizes, powers of two).
    Log2,
    /// Logarithmic, base 10.
    Log10,
}

/// An axis as a chart asks for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// What it measures ("queue depth"); the unit is added: "queue depth (MB)".
    pub title: String,
    pub unit: Unit,
    pub scale: Scale,
    /// Fixed ends; by default from the data (and 0 on a linear axis).
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Ticks at exactly these values (e.g. a sweep's values), labelled with `tick_labels`
    /// when given.
    pub ticks: Option<Vec<f64>>,
    pub tick_labels: Option<Vec<String>>,
}

impl Axis {
    /// A linear axis from zero.
    pub fn new(title: &str, unit: Unit) -> Self {
        Axis { title: title.into(), unit, scale: Scale::Linear, min: None, max: None, ticks: None, tick_labels: None }
    }

    /// The same axis with another scale.
    pub fn scale(mut self, s: Scale) -> Self {
        self.scale = s;
        self
    }

    /// Ticks exactly at `values`, labelled `labels`.
    pub fn at(mut self, values: Vec<f64>, labels: Vec<String>) -> Self {
        self.ticks = Some(values);
        self.tick_labels = Some(labels);
        self
    }

    /// The same axis with fixed ends.
    pub fn range(mut self, min: f64, max: f64) -> Self {
        self.min = Some(min);
        self.max = Some(max);
        self
    }

    /// Resolve ends, ticks and labels for data in `lo..=hi` drawn over `len` px; `horizontal`
    /// axes keep their labels apart by width, vertical ones by line height.
    pub fn resolve(&self, lo: f64, hi: f64, len: f64, horizontal: bool) -> Resolved {
        let log = self.scale != Scale::Linear;
        let (mut lo, mut hi) = (self.min.unwrap_or(lo), self.max.unwrap_or(hi));
        if log {
            let floor = if self.min.is_some() { lo } else { lo.max(f64::MIN_POSITIVE) };
            lo = floor.max(1e-300);
            hi = hi.max(lo);
        } else if self.min.is_none() {
            lo = lo.min(0.0);
        }
        if !lo.is_finite() || !hi.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        if hi <= lo {
            hi = if log { lo * 2.0 } else { lo + 1.0 };
        }
        let display = self.unit.display(hi.abs().max(lo.abs()));
        let ticks: Vec<f64> = match (&self.ticks, self.scale) {
            (Some(t), _) => t.clone(),
            (None, Scale::Linear) => {
                // As many ticks as fit with their labels apart.
                let mut count = ((len / if horizontal { 70.0 } else { 40.0 }).floor() as usize).clamp(2, 10);
                loop {
                    let t = nice_ticks(lo, hi, count);
                    let widest = t.iter().map(|v| text_width(&format_tick(*v, &t, &display), 12.0)).fold(0.0, f64::max);
                    let room = len / (t.len().max(2) - 1) as f64;
                    if count <= 2 || (if horizontal { room > widest + 10.0 } else { room > 18.0 }) {
                        break t;
                    }
                    count -= 1;
                }
            }
            (None, s) => {
                let base = if s == Scale::Log2 { 2f64 } else { 10f64 };
                let (a, b) = (lo.log(base).floor() as i32, hi.log(base).ceil() as i32);
                let every = (((b - a) as f64) / (len / 40.0).max(1.0)).ceil().max(1.0) as i32;
                (a..=b).filter(|k| (k - a) % every == 0).map(|k| base.powi(k)).collect()
            }
        };
        if self.ticks.is_none() && !log {
            if let (Some(f), Some(l)) = (ticks.first(), ticks.last()) {
                if self.min.is_none() {
                    lo = lo.min(*f);
                }
                if self.max.is_none() {
                    hi = hi.max(*l);
                }
            }
        }
        if log && self.ticks.is_none() {
            if let (Some(f), Some(l)) = (ticks.first(), ticks.last()) {
                lo = lo.min(*f);
                hi = hi.max(*l);
            }
        }
        let labels = match &self.tick_labels {
            Some(l) => l.clone(),
            None => ticks.iter().map(|v| format_tick(*v, &ticks, &display)).collect(),
        };
        let title =
            if display.unit.is_empty() { self.title.clone() } else { format!("{} ({})", self.title, display.unit) };
        Resolved { lo, hi, scale: self.scale, ticks, labels, title }
    }
}

/// An axis ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub lo: f64,
    pub hi: f64,
    pub scale: Scale,
    pub ticks: Vec<f64>,
    pub labels: Vec<String>,
    /// Title with the unit.
    pub title: String,
}

impl Resolved {
    /// Position of `v` as a fraction 0..=1 of the axis.
    pub fn frac(&self, v: f64) -> f64 {
        let f = match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            _ => {
                let v = v.max(self.lo);
                (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
            }
        };
        if f.is_finite() {
            f.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// Ticks at a "nice" step (1, 2 or 5 × 10^k) covering `lo..=hi`, at most `max_count` of them
/// (at least two).
pub fn nice_ticks(lo: f64, hi: f64, max_count: usize) -> Vec<f64> {
    let max_count = max_count.max(2);
    let span = (hi - lo).abs().max(f64::MIN_POSITIVE);
    let raw = span / (max_count - 1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| ((span / s).ceil() as usize) < max_count);
    let step = step.unwrap_or(10.0 * mag);
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    // Round away the binary representation error of k × step (0.30000000000000004).
    let scale = 10f64.powi((-step.log10().floor()).max(0.0) as i32 + 1);
    (first as i64..=last as i64)
        .map(|k| (k as f64 * step * scale).round() / scale)
        .map(|v| if v == 0.0 { 0.0 } else { v })
        .collect()
}

/// A tick's label: the value in the display unit, with the decimals the tick step needs.
pub fn format_tick(v: f64, ticks: &[f64], d: &Display) -> String {
    let step = ticks.windows(2).map(|w| (w[1] - w[0]).abs()).fold(f64::INFINITY, f64::min);
    let x = v / d.divisor;
    let decimals = if step.is_finite() && step > 0.0 {
        let s = step / d.divisor;
        (-(s.log10().floor())).clamp(0.0, 3.0) as usize
    } else {
        let a = x.abs();
        if a == 0.0 || a >= 10.0 {
            0
        } else if a >= 1.0 {
            1
        } else {
            2
        }
    };
    let s = format!("{x:.decimals$}");
    if s.starts_with('-') && s.trim_start_matches(['-', '0', '.']).is_empty() {
        s[1..].to_string()
    } else {
        s
    }
}

/// How the labels along a horizontal axis are drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelLayout {
    /// Rotation in degrees (0, -45 or -90), anchored at the tick.
    pub angle: f64,
    /// Whether each label is drawn (thinned when they cannot all fit).
    pub shown: Vec<bool>,
    /// Each label's text (truncated when longer than the room below the axis).
    pub texts: Vec<String>,
    /// Vertical room the labels take below the axis (px).
    pub extent: f64,
}

/// Lays out `labels` centred at `positions` (px, increasing) along a horizontal axis at
/// `font_px`, with at most `max_extent` px below the axis: horizontal when they fit side by
/// side, else rotated 45°, else 90°, thinning to every k-th label when even upright ones do not
/// fit, and truncating labels longer than the room allows. No two drawn labels overlap.
pub fn layout_labels(labels: &[String], positions: &[f64], font_px: f64, max_extent: f64) -> LabelLayout {
    const GAP: f64 = 4.0;
    let n = labels.len();
    let widths: Vec<f64> = labels.iter().map(|l| text_width(l, font_px)).collect();
    let spacing = positions.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
    let line = font_px * 1.2;
    // Horizontal: neighbours' half widths must fit in their distance.
    let fits_flat = positions.windows(2).zip(widths.windows(2)).all(|(p, w)| p[1] - p[0] >= (w[0] + w[1]) / 2.0 + GAP);
    let widest = widths.iter().copied().fold(0.0, f64::max);
    if fits_flat {
        return LabelLayout { angle: 0.0, shown: vec![true; n], texts: labels.to_vec(), extent: line + 2.0 };
    }
    // Rotated by θ, neighbouring labels are parallel strips a line high whose horizontal
    // distance must exceed line / sin θ.
    let (angle, k) = if spacing >= line * std::f64::consts::SQRT_2 + GAP {
        (-45.0, 1)
    } else {
        let k = ((line + GAP) / spacing.max(1e-9)).ceil().max(1.0) as usize;
        (-90.0, k)
    };
    let sin = if angle == -45.0 { std::f64::consts::FRAC_1_SQRT_2 } else { 1.0 };
    let room = (max_extent - line * sin).max(font_px * 3.0) / sin;
    let texts: Vec<String> = labels.iter().map(|l| truncate(l, room, font_px)).collect();
    let longest = texts.iter().map(|t| text_width(t, font_px)).fold(0.0, f64::max).min(widest);
    let shown = (0..n).map(|i| i % k == 0).collect();
    LabelLayout { angle, shown, texts, extent: longest * sin + line * sin + 4.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks_use_1_2_5_steps() {
        assert_eq!(nice_ticks(0.0, 10.0, 6), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(nice_ticks(0.0, 6_133_050.0, 5), vec![0.0, 2e6, 4e6, 6e6, 8e6]);
        assert_eq!(nice_ticks(0.0, 0.7, 8), vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
        let t = nice_ticks(3.0, 97.0, 5);
        assert!(t.len() <= 5 && t[0] <= 3.0 && *t.last().unwrap() >= 97.0, "{t:?}");
    }

    #[test]
    fn units_pick_a_prefix_for_the_range() {
        assert_eq!(Unit::Bytes.display(6_133_050.0), Display { divisor: 1e6, unit: "MB".into() });
        assert_eq!(Unit::BytesBinary.display(131072.0).unit, "KiB");
        assert_eq!(Unit::BitsPerSecond.display(25e9).unit, "Gb/s");
        assert_eq!(Unit::BytesPerSecond.display(4.4e9).unit, "GB/s");
        assert_eq!(Unit::Seconds.display(2e-3).unit, "ms");
        assert_eq!(Unit::Seconds.display(250e-6).unit, "µs");
        assert_eq!(Unit::Count.display(400.0).unit, "");
        assert_eq!(Unit::Count.display(40_000.0).unit, "thousands");
    }

    #[test]
    fn tick_labels_have_the_decimals_their_step_needs() {
        let d = Unit::Bytes.display(6e6);
        let t = nice_ticks(0.0, 6e6, 7);
        let labels: Vec<String> = t.iter().map(|v| format_tick(*v, &t, &d)).collect();
        assert_eq!(labels, ["0", "1", "2", "3", "4", "5", "6"]);
        let t = [0.0, 0.5, 1.0, 1.5];
        assert_eq!(format_tick(0.5, &t, &Unit::None.display(1.5)), "0.5");
        assert_eq!(format_tick(-0.0001, &[0.0, 1.0], &Unit::None.display(1.0)), "0");
    }

    #[test]
    fn resolved_axes_have_units_in_their_titles_and_readable_ticks() {
        let a = Axis::new("queue depth", Unit::Bytes).resolve(0.0, 6_133_050.0, 300.0, false);
        assert_eq!(a.title, "queue depth (MB)");
        assert_eq!(a.lo, 0.0);
        assert!(a.hi >= 6_133_050.0);
        assert!(a.ticks.len() >= 3);
        // Horizontal: ticks thin out until their labels are apart.
        let a = Axis::new("time", Unit::Seconds).resolve(0.0, 2e-3, 200.0, true);
        let room = 200.0 / (a.ticks.len() - 1) as f64;
        assert!(a.labels.iter().all(|l| text_width(l, 12.0) + 10.0 < room), "{a:?}");
        let log = Axis::new("block size", Unit::BytesBinary).scale(Scale::Log2).resolve(4096.0, 131072.0, 500.0, true);
        assert_eq!(log.ticks.first(), Some(&4096.0));
        assert!((log.frac(4096.0), log.frac(131072.0)) == (0.0, 1.0));
        assert!((log.frac(16384.0) - 0.4).abs() < 1e-9, "log2 spacing");
    }

    fn overlaps(l: &LabelLayout, positions: &[f64], font: f64) -> bool {
        let drawn: Vec<usize> = (0..positions.len()).filter(|i| l.shown[*i]).collect();
        drawn.windows(2).any(|w| {
            let d = positions[w[1]] - positions[w[0]];
            let (a, b) = (text_width(&l.texts[w[0]], font), text_width(&l.texts[w[1]], font));
            match l.angle as i32 {
                0 => d < (a + b) / 2.0,
                -45 => d < font * 1.2 * std::f64::consts::SQRT_2,
                _ => d < font * 1.2,
            }
        })
    }

    #[test]
    fn labels_stay_flat_when_they_fit() {
        let labels: Vec<String> = ["4KiB", "8KiB", "16KiB"].iter().map(|s| s.to_string()).collect();
        let pos = [0.0, 100.0, 200.0];
        let l = layout_labels(&labels, &pos, 12.0, 100.0);
        assert_eq!(l.angle, 0.0);
        assert!(l.shown.iter().all(|s| *s) && !overlaps(&l, &pos, 12.0));
    }

    #[test]
    fn long_or_crowded_labels_rotate_then_thin_never_overlapping() {
        let labels: Vec<String> = (0..40).map(|i| format!("leaf{}:Ethernet{}", i / 8, i * 4)).collect();
        for spacing in [60.0, 25.0, 19.0, 15.0, 6.0, 2.0] {
            let pos: Vec<f64> = (0..40).map(|i| i as f64 * spacing).collect();
            let l = layout_labels(&labels, &pos, 12.0, 90.0);
            assert!(!overlaps(&l, &pos, 12.0), "spacing {spacing}: {l:?}");
            assert!(l.angle != 0.0, "spacing {spacing}");
            assert!(l.extent <= 90.0 + 12.0, "spacing {spacing}: extent {}", l.extent);
            assert!(l.shown[0], "the first label is always drawn");
            if spacing <= 15.0 {
                assert!(l.shown.iter().filter(|s| **s).count() < 40, "thinned at {spacing}");
            } else {
                assert!(l.shown.iter().all(|s| *s), "all drawn at {spacing}");
            }
        }
        // Labels longer than the room are cut with an ellipsis.
        let long = vec!["a-very-long-device-name:Ethernet1/1/1".to_string(); 3];
        let l = layout_labels(&long, &[0.0, 20.0, 40.0], 12.0, 60.0);
        assert!(l.texts[0].ends_with('…'));
    }
}
