//! Import of the ns-3 HPCC simulator's flow file, read as it is (`FLOW_FILE` of its
//! `config.txt`; read by `ReadFlowInput` in `simulation/scratch/third.cc` of
//! alibaba-edu/High-Precision-Congestion-Control):
//!
//! ```text
//! <number of flows>
//! <src> <dst> <priority> <dport> <size in bytes> <start in seconds>     e.g. `2 1 3 100 200000000 2`
//! ```
//! Node ids are those of the HPCC topology file, which [`crate::hpcc`] imports as hosts `h<id>`
//! and switches `s<id>`. Like that simulator, the import reads exactly the declared number of
//! flows and ignores what follows (with a warning); the simulator needs them in ascending start
//! order, rocelab does not (a warning says so).

use crate::diag::{Diagnostic, Mark};
use crate::units::Time;

/// One flow line as written.
#[derive(Debug, Clone, PartialEq)]
pub struct HpccFlowLine {
    /// Line in the flow file (1-based).
    pub line: usize,
    /// Column (1-based) of each of the six fields.
    pub columns: [usize; 6],
    /// HPCC node id of the sender.
    pub src: usize,
    /// HPCC node id of the receiver.
    pub dst: usize,
    /// Priority group (the 802.1p priority of the flow's packets).
    pub priority: u8,
    /// UDP destination port (HPCC's analysis tells background from incast flows by it).
    pub dport: u16,
    pub size: u64,
    pub start: Time,
}

/// Column of the field `i` (0 = src … 5 = start) of a parsed line.
pub const SRC: usize = 0;
pub const DST: usize = 1;
pub const PRIORITY: usize = 2;

/// Parses flow-file text into its flow lines and warnings. Every problem is located (line and
/// column in the flow file; the caller sets the file name).
pub fn parse_flows(text: &str) -> Result<(Vec<HpccFlowLine>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());
    let at = |line: usize, column: usize| Mark { line, column };
    let Some((l1, header)) = lines.next() else {
        return Err(vec![Diagnostic::error(at(1, 1), "", "empty HPCC flow file")
            .expected("a first line with the number of flows, then one flow per line")]);
    };
    let count = match header.split_whitespace().collect::<Vec<_>>().as_slice() {
        [n] => match n.parse::<usize>() {
            // Bounded before any line is read: rocelab simulates at most `MAX_FLOWS` flows.
            Ok(n) if n as f64 <= crate::workload::MAX_FLOWS => n,
            Ok(n) => {
                return Err(vec![Diagnostic::error(
                    at(l1, 1),
                    "",
                    format!("flow count {n} is above the {:.0} flows rocelab simulates", crate::workload::MAX_FLOWS),
                )])
            }
            Err(_) => return Err(vec![first_line_error(l1, header)]),
        },
        _ => return Err(vec![first_line_error(l1, header)]),
    };
    let mut flows = Vec::with_capacity(count.min(1 << 20));
    let mut diags = Vec::new();
    let mut seen = 0;
    let mut last = (l1, 1);
    let mut lines = lines.peekable();
    while let Some((ln, line)) = lines.next() {
        if seen == count {
            let rest = 1 + lines.count();
            diags.push(Diagnostic::warning(
                at(ln, 1),
                "",
                format!(
                    "{rest} lines after the {count} declared flows are ignored, as the HPCC simulator ignores them"
                ),
            ));
            break;
        }
        seen += 1;
        last = (ln, line.len() + 1);
        let cols: Vec<(usize, &str)> = crate::columns::columns(line).collect();
        if cols.len() != 6 {
            diags.push(
                Diagnostic::error(at(ln, 1), "", format!("flow line `{}` has {} fields", line.trim(), cols.len()))
                    .expected("`<src> <dst> <priority> <dport> <size in bytes> <start in seconds>`"),
            );
            continue;
        }
        let mut bad = false;
        let mut field = |i: usize, what: &str, max: u64| -> u64 {
            let (c, t) = cols[i];
            match t.parse::<u64>() {
                Ok(v) if v <= max => v,
                _ => {
                    diags.push(Diagnostic::error(at(ln, c), "", format!("`{t}` is not {what}")));
                    bad = true;
                    0
                }
            }
        };
        let src = field(0, "a node id", u32::MAX as u64) as usize;
        let dst = field(1, "a node id", u32::MAX as u64) as usize;
        let priority = field(2, "a priority from 0 to 7", 7) as u8;
        let dport = field(3, "a UDP port from 0 to 65535", u16::MAX as u64) as u16;
        let size = field(4, "a size in bytes", u64::MAX);
        let (sc, st) = cols[5];
        let start = match format!("{st}s").parse::<Time>() {
            Ok(t) if !st.starts_with('-') => t,
            _ => {
                diags.push(
                    Diagnostic::error(at(ln, sc), "", format!("`{st}` is not a start time"))
                        .expected("seconds, 0 or more, e.g. `2.000001`"),
                );
                bad = true;
                Time::ZERO
            }
        };
        if bad {
            continue;
        }
        if size == 0 {
            diags.push(Diagnostic::error(at(ln, cols[4].0), "", "size 0 sends nothing"));
            continue;
        }
        if src == dst {
            diags.push(Diagnostic::error(at(ln, cols[1].0), "", format!("flow from node {src} to itself")));
            continue;
        }
        let columns = [cols[0].0, cols[1].0, cols[2].0, cols[3].0, cols[4].0, cols[5].0];
        flows.push(HpccFlowLine { line: ln, columns, src, dst, priority, dport, size, start });
    }
    if seen < count && diags.iter().all(|d| !d.is_error()) {
        diags.push(Diagnostic::error(
            at(last.0, last.1),
            "",
            format!("the first line says {count} flows, the file has {seen}"),
        ));
    }
    if let Some(w) = flows.windows(2).find(|w| w[1].start < w[0].start) {
        diags.push(Diagnostic::warning(
            at(w[1].line, w[1].columns[5]),
            "",
            format!(
                "flow starts at {} before the previous line's {}: the HPCC simulator needs ascending start times \
                 (rocelab takes them in any order)",
                w[1].start, w[0].start
            ),
        ));
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    Ok((flows, diags))
}

fn first_line_error(line: usize, text: &str) -> Diagnostic {
    Diagnostic::error(Mark { line, column: 1 }, "", format!("first line is `{}`", text.trim()))
        .expected("the number of flows, one whole number")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_read_as_written() {
        let (f, w) = parse_flows("2\n2 1 3 100 200000000 2\n3 1 3 200 5000 2.000001234\n").unwrap();
        assert!(w.is_empty());
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].src, f[0].dst, f[0].priority, f[0].dport, f[0].size), (2, 1, 3, 100, 200_000_000));
        assert_eq!(f[0].start, Time::ms(2000));
        assert_eq!(f[1].start, Time::ps(2_000_001_234_000));
        assert_eq!(f[1].columns, [1, 3, 5, 7, 11, 16]);
    }

    #[test]
    fn extra_lines_are_ignored_and_missing_ones_are_errors() {
        let (f, w) = parse_flows("1\n2 1 3 100 1000 0\n\nsrc0 dst0 3 dport size start\n").unwrap();
        assert_eq!(f.len(), 1);
        assert!(w[0].message.contains("1 lines after the 1 declared flows are ignored"), "{}", w[0].message);
        let e = parse_flows("3\n2 1 3 100 1000 0\n").unwrap_err();
        assert!(e[0].message.contains("says 3 flows, the file has 1"), "{}", e[0].message);
    }

    #[test]
    fn bad_fields_are_located() {
        let e = parse_flows("3\n2 x 3 100 1000 0\n2 1 9 100 1000 0\n2 1 3 100 1000 -1\n").unwrap_err();
        let got: Vec<(usize, usize)> = e.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(got, [(2, 3), (3, 5), (4, 16)], "{e:#?}");
        assert!(e[1].message.contains("priority from 0 to 7"));
        let e = parse_flows("1\n2 2 3 100 1000 0\n").unwrap_err();
        assert!(e[0].message.contains("to itself"));
        let e = parse_flows("1\n2 1 3 100 0 0\n").unwrap_err();
        assert_eq!((e[0].column, e[0].message.as_str()), (11, "size 0 sends nothing"));
        let e = parse_flows("two\n").unwrap_err();
        assert!(e[0].expected.as_deref().unwrap().contains("number of flows"));
        let e = parse_flows("1\n2 1 3 100 1000\n").unwrap_err();
        assert!(e[0].message.contains("5 fields"));
        assert!(parse_flows("").is_err());
    }

    #[test]
    fn out_of_order_starts_warn() {
        let (_, w) = parse_flows("2\n2 1 3 100 1000 0.5\n3 1 3 100 1000 0.25\n").unwrap();
        assert_eq!((w[0].line, w[0].column), (3, 16));
        assert!(w[0].message.contains("ascending"));
    }
}
