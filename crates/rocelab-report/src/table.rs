//! Tables: a title, columns (with units in their headers), rows of cells; rendered as aligned
//! text, as CSV (RFC 4180) and as an HTML table. Every table of the report is also a CSV file.

use crate::chart::esc;
use std::fmt::Write;

/// One cell: text, or a number shown with a fixed number of decimals (and written to CSV at
/// full precision).
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    Int(u64),
    Num(f64, usize),
    Empty,
}

impl Cell {
    /// As shown in text and HTML.
    pub fn shown(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(v, d) if v.is_finite() => format!("{v:.d$}"),
            Cell::Num(..) => "-".into(),
            Cell::Empty => "-".into(),
        }
    }

    /// As written to CSV: numbers in full, empty cells empty.
    pub fn csv(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(v, _) if v.is_finite() => format!("{v}"),
            Cell::Num(..) | Cell::Empty => String::new(),
        }
    }

    fn numeric(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Num(..))
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.into())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<u64> for Cell {
    fn from(v: u64) -> Self {
        Cell::Int(v)
    }
}

/// A CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a quote or
/// a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A table and the CSV file it is written to.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub title: String,
    /// File name of its CSV (`flows.csv`).
    pub file: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(title: &str, file: &str, columns: &[&str]) -> Self {
        Table {
            title: title.into(),
            file: file.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.columns.len(), "{}: row width", self.title);
        self.rows.push(row);
    }

    /// RFC 4180 CSV: a header line, CRLF line ends, fields with commas, quotes or line breaks
    /// quoted (quotes doubled).
    pub fn to_csv(&self) -> String {
        let field = csv_field;
        let mut out = String::new();
        let header: Vec<String> = self.columns.iter().map(|c| field(c)).collect();
        out.push_str(&header.join(","));
        out.push_str("\r\n");
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|c| field(&c.csv())).collect();
            out.push_str(&cells.join(","));
            out.push_str("\r\n");
        }
        out
    }

    /// Aligned text: numbers right-aligned, text left-aligned.
    pub fn to_text(&self) -> String {
        let shown: Vec<Vec<String>> = self.rows.iter().map(|r| r.iter().map(Cell::shown).collect()).collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                shown.iter().map(|r| r[i].chars().count()).chain([self.columns[i].chars().count()]).max().unwrap_or(0)
            })
            .collect();
        let numeric: Vec<bool> = (0..self.columns.len()).map(|i| self.rows.iter().any(|r| r[i].numeric())).collect();
        let line = |cells: &[String]| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pad = widths[i].saturating_sub(c.chars().count());
                    if numeric[i] {
                        format!("{}{c}", " ".repeat(pad))
                    } else {
                        format!("{c}{}", " ".repeat(pad))
                    }
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        };
        let mut out = format!("{}\n", self.title);
        let _ = writeln!(out, "  {}", line(&self.columns));
        for r in &shown {
            let _ = writeln!(out, "  {}", line(r));
        }
        out
    }

    /// An HTML `<table>` with a caption linking the CSV file.
    pub fn to_html(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<table><caption>{} <a href="{}">{}</a></caption><thead><tr>"#,
            esc(&self.title),
            esc(&self.file),
            esc(&self.file)
        );
        for c in &self.columns {
            let _ = write!(out, "<th>{}</th>", esc(c));
        }
        out.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            out.push_str("<tr>");
            for c in r {
                let class = if c.numeric() { r#" class="n""# } else { "" };
                let _ = write!(out, "<td{class}>{}</td>", esc(&c.shown()));
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::new("Flows", "flows.csv", &["flow", "throughput (Gb/s)", "delivered"]);
        t.push(vec!["victim".into(), Cell::Num(2.95123, 2), 180u64.into()]);
        t.push(vec!["a, \"quoted\"\nname".into(), Cell::Num(f64::NAN, 2), Cell::Empty]);
        t
    }

    #[test]
    fn csv_follows_rfc_4180() {
        assert_eq!(
            table().to_csv(),
            "flow,throughput (Gb/s),delivered\r\nvictim,2.95123,180\r\n\"a, \"\"quoted\"\"\nname\",,\r\n"
        );
    }

    #[test]
    fn text_is_aligned() {
        let mut t = Table::new("Ports", "ports.csv", &["port", "pfc sent"]);
        t.push(vec!["leaf1:Ethernet0".into(), 53u64.into()]);
        t.push(vec!["spine1:Ethernet0".into(), 371u64.into()]);
        assert_eq!(
            t.to_text(),
            "Ports\n  port              pfc sent\n  leaf1:Ethernet0         53\n  spine1:Ethernet0       371\n"
        );
    }

    #[test]
    fn html_escapes_and_links_the_csv() {
        let h = table().to_html();
        assert!(h.contains(r#"<a href="flows.csv">flows.csv</a>"#));
        assert!(h.contains("a, &quot;quoted&quot;"));
        assert!(h.contains(r#"<td class="n">2.95</td>"#));
    }
}
