//! SVG charts: line charts (a metric against a swept field, queue depth over time, CDFs), grouped
//! bar charts (counters per port, throughput per flow, one bar per run) and a layered drawing
//! of the topology.
//!
//! Every chart is a standalone `<svg>` string with its own sizes, fonts and colours inline, so
//! that the HTML report needs nothing else. Text widths are estimated from font metrics
//! ([`text_width`]) so that tick labels, legends and node names are laid out without overlap
//! ([`axis::layout_labels`]). Colours follow the Okabe–Ito palette, distinguishable with the
//! common colour-vision deficiencies (Okabe & Ito, "Color Universal Design", 2008).

pub mod axis;
pub mod bar;
pub mod line;
pub mod topology;

pub use axis::{Axis, Scale, Unit};
pub use bar::{bar_chart, BarChart};
pub use line::{cdf_chart, cpu_effectiveness_chart, line_chart, CpuPoint, LineChart, Series};
pub use topology::{topology_chart, Topology};

use std::fmt::Write;

/// Font of all chart text; Liberation Sans is metric-compatible with Arial, whose widths
/// [`text_width`] uses.
pub const FONT: &str = "'Liberation Sans', Arial, Helvetica, sans-serif";
/// Size of tick labels and legends (px).
pub const FONT_PX: f64 = 12.0;
/// Size of chart titles (px).
pub const TITLE_PX: f64 = 14.0;

/// The Okabe–Ito colours in the order series use them (yellow last: it is weak on white).
pub const PALETTE: [&str; 8] = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000", "#F0E442"];

/// Colour of series `i` (cycling).
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Dash pattern of line series `i`: every series has its own colour and its own pattern, so
/// that lines on top of each other (two variants with the same result) both stay visible, and
/// more than eight series stay distinct.
pub fn dash(i: usize) -> &'static str {
    ["", "8 4", "2 3", "12 3 3 3", "5 5", "1 4"][i % 6]
}

/// The chart title, at the top left (visible however wide the chart grows).
pub fn title(out: &mut String, s: &str) {
    text(out, 20.0, 16.0 + TITLE_PX * 0.8, "start", 0.0, TITLE_PX, s);
}

/// Marker of series `i` at (x, y): circle, square, diamond, triangle in turn, so that points of
/// different series differ in shape as well as colour.
pub fn marker(out: &mut String, i: usize, x: f64, y: f64, tip: &str) {
    let c = colour(i);
    let shape = match i % 4 {
        // Sizes decrease so that a point on top of another's leaves it visible.
        0 => format!(r#"<circle cx="{}" cy="{}" r="5.5""#, n(x), n(y)),
        1 => format!(r#"<rect x="{}" y="{}" width="7" height="7""#, n(x - 3.5), n(y - 3.5)),
        2 => format!(r#"<path d="M{} {}l3.5 3.5l-3.5 3.5l-3.5 -3.5z""#, n(x), n(y - 3.5)),
        _ => format!(r#"<path d="M{} {}l3 5h-6z""#, n(x), n(y - 3.0)),
    };
    let _ = write!(
        out,
        r##"{shape} fill="{c}" stroke="#fff" stroke-width="0.8"><title>{}</title></{}>"##,
        esc(tip),
        if i % 4 == 0 {
            "circle"
        } else if i % 4 == 1 {
            "rect"
        } else {
            "path"
        }
    );
}

/// Advance width of one character in thousandths of an em (Arial / Liberation Sans metrics).
fn char_width(c: char) -> u32 {
    match c {
        ' ' | '.' | ',' | ':' | ';' | '/' | '\'' | '!' | 'I' | 'f' | 't' | '[' | ']' | '|' => 278,
        'i' | 'j' | 'l' => 222,
        '-' | '(' | ')' | 'r' => 333,
        '0'..='9' | '#' | '_' | '$' | '?' => 556,
        'a' | 'b' | 'd' | 'e' | 'g' | 'h' | 'n' | 'o' | 'p' | 'q' | 'u' | 'µ' => 556,
        'c' | 'k' | 's' | 'v' | 'x' | 'y' | 'z' | 'J' => 500,
        'm' | 'M' => 833,
        'w' | 'C' | 'D' | 'H' | 'N' | 'R' | 'U' => 722,
        'W' => 944,
        'G' | 'O' | 'Q' => 778,
        'F' | 'T' | 'Z' => 611,
        'L' => 556,
        '=' | '+' | '×' | '<' | '>' | '~' => 584,
        '%' => 889,
        '…' | '—' => 1000,
        '–' => 556,
        c if c.is_ascii_uppercase() => 667,
        _ => 600,
    }
}

/// Estimated width in px of `text` at `font_px`, with 8% to spare for fonts a little wider
/// than Arial (the estimate must never be short, or labels overlap).
pub fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().map(char_width).sum::<u32>() as f64 / 1000.0 * font_px * 1.08
}

/// `text` cut with an ellipsis to fit `max_px` at `font_px`.
pub fn truncate(text: &str, max_px: f64, font_px: f64) -> String {
    if text_width(text, font_px) <= max_px {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        let trial = format!("{out}{c}…");
        if text_width(&trial, font_px) > max_px {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// Escapes text for SVG/HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A number as SVG wants it: two decimals at most, no trailing zeros.
pub fn n(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Text anchored at (x, y), optionally rotated about that point.
pub fn text(out: &mut String, x: f64, y: f64, anchor: &str, rotate: f64, size: f64, s: &str) {
    let _ = write!(out, r#"<text x="{}" y="{}" font-size="{}" text-anchor="{anchor}""#, n(x), n(y), n(size));
    if rotate != 0.0 {
        let _ = write!(out, r#" transform="rotate({} {} {})""#, n(rotate), n(x), n(y));
    }
    let _ = write!(out, ">{}</text>", esc(s));
}

/// Opens an `<svg>` of `w` × `h` px with the chart font and a white background; `label` is its
/// accessible name.
pub fn svg_open(out: &mut String, w: f64, h: f64, label: &str) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{}" font-family="{}" fill="#222"><rect width="{w}" height="{h}" fill="#fff"/>"##,
        esc(label),
        esc(FONT),
        w = n(w),
        h = n(h)
    );
}

/// A legend of `names` (coloured swatches) laid out in rows within `width`, starting at
/// (`x`, `y`); returns the height used. `line` draws line swatches (with dashes) instead of
/// squares.
pub fn legend(out: &mut String, names: &[String], x: f64, y: f64, width: f64, line: bool) -> f64 {
    if names.is_empty() {
        return 0.0;
    }
    let row_h = FONT_PX + 8.0;
    let (mut cx, mut cy) = (x, y);
    for (i, name) in names.iter().enumerate() {
        let label = truncate(name, width - 30.0, FONT_PX);
        let w = 22.0 + text_width(&label, FONT_PX) + 16.0;
        if cx > x && cx + w > x + width {
            cx = x;
            cy += row_h;
        }
        let mid = cy + row_h / 2.0;
        if line {
            let _ = write!(
                out,
                r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2.5" stroke-dasharray="{}"/>"#,
                n(cx),
                n(mid),
                n(cx + 16.0),
                n(mid),
                colour(i),
                dash(i)
            );
        } else {
            let _ = write!(
                out,
                r#"<rect x="{}" y="{}" width="12" height="12" fill="{}"/>"#,
                n(cx + 2.0),
                n(mid - 6.0),
                colour(i)
            );
        }
        text(out, cx + 22.0, mid + FONT_PX * 0.35, "start", 0.0, FONT_PX, &label);
        cx += w;
    }
    cy + row_h - y
}

/// Height [`legend`] will take for `names` within `width`.
pub fn legend_height(names: &[String], width: f64) -> f64 {
    let mut scratch = String::new();
    legend(&mut scratch, names, 0.0, 0.0, width, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_widths_follow_the_glyphs() {
        assert!(text_width("iiii", 12.0) < text_width("MMMM", 12.0) / 3.0);
        // "100" in Arial at 12 px is 3 × 0.556 em = 20 px; the estimate is never short.
        let w = text_width("100", 12.0);
        assert!((20.0..22.0).contains(&w), "{w}");
        assert_eq!(text_width("", 12.0), 0.0);
    }

    #[test]
    fn truncation_fits_and_marks_the_cut() {
        let t = truncate("leaf1:Ethernet48/1", 60.0, 12.0);
        assert!(t.ends_with('…') && text_width(&t, 12.0) <= 60.0, "{t}");
        assert_eq!(truncate("sw1", 60.0, 12.0), "sw1");
    }

    #[test]
    fn escaping_and_numbers() {
        assert_eq!(esc(r#"a<b & "c"'"#), "a&lt;b &amp; &quot;c&quot;&#39;");
        assert_eq!(n(1.0), "1");
        assert_eq!(n(2.456), "2.46");
        assert_eq!(n(-0.001), "0");
    }

    #[test]
    fn legend_wraps_within_its_width() {
        let names: Vec<String> = (0..6).map(|i| format!("variant number {i}")).collect();
        let one_row = legend_height(&names[..1], 400.0);
        let wrapped = legend_height(&names, 400.0);
        assert!(wrapped >= 3.0 * one_row, "{wrapped} vs {one_row}");
        assert_eq!(legend_height(&[], 400.0), 0.0);
    }

    #[test]
    fn palette_cycles_with_dashes_and_markers() {
        assert_eq!(colour(0), colour(8));
        assert_ne!(dash(0), dash(1));
        assert_ne!(dash(0), dash(8), "the ninth series differs from the first by its dashes");
        let shapes: Vec<String> = (0..4)
            .map(|i| {
                let mut s = String::new();
                marker(&mut s, i, 10.0, 10.0, "t");
                s.split(' ').next().unwrap().to_string()
            })
            .collect();
        assert_eq!(shapes, ["<circle", "<rect", "<path", "<path"]);
    }
}
