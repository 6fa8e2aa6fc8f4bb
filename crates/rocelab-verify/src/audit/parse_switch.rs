//! SONiC `show priority-group watermark headroom` and `... shared` (sonic-utilities
//! `watermarkstat`): a title, `Ingress headroom per PG:` or `Ingress shared pool occupancy per
//! PG:` (with ` (Namespace asicN)` on multi-ASIC systems), then a table `Port`, `PG0` ... `PG7`
//! (or to `PG15`) of bytes, `N/A` where the platform keeps no watermark. The watermark is the
//! most the priority group held since the last clear (`sonic-clear priority-group watermark`).
//!
//! A priority group is not an egress queue, but rocelab's SONiC configuration maps each
//! lossless traffic class to the priority group of the same number (`TC_TO_PRIORITY_GROUP_MAP`)
//! and the lossy ones to PG0, so the row's `queue` carries the priority group and the audit
//! reads it on the class of that traffic class, as it reads queue counters.

use super::parse::{cut_short, not_a_number, number, Parsed, Row};
use super::Counter;

/// The counter a title line announces.
fn title(line: &str) -> Option<Counter> {
    if line.starts_with("Ingress headroom per PG") {
        Some(Counter::HeadroomWatermark)
    } else if line.starts_with("Ingress shared pool occupancy per PG") {
        Some(Counter::SharedWatermark)
    } else {
        None
    }
}

/// The output holds a priority-group watermark table.
pub(super) fn is_pg_watermark(text: &str) -> bool {
    text.lines().any(|l| title(l.trim()).is_some())
}

pub(super) fn sonic_pg_watermark(text: &str, file: &str, p: &mut Parsed) {
    let mut counter: Option<Counter> = None;
    let mut cols: Option<Vec<u8>> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if let Some(c) = title(l) {
            counter = Some(c);
            cols = None;
            continue;
        }
        let cells: Vec<&str> = l.split_whitespace().collect();
        if cells.is_empty() || cells[0].starts_with('-') {
            continue;
        }
        let Some(counter) = counter else { continue };
        if cells[0] == "Port" {
            cols = Some(cells[1..].iter().filter_map(|c| c.strip_prefix("PG")?.parse().ok()).collect());
            continue;
        }
        let Some(cols) = &cols else { continue };
        if cells.len() != cols.len() + 1 {
            let command = match counter {
                Counter::HeadroomWatermark => "show priority-group watermark headroom",
                _ => "show priority-group watermark shared",
            };
            let got = cells.len() - 1;
            let expected = format!("the header has {}", cols.len());
            p.problems.push(cut_short(file, line, &format!("port `{}`", cells[0]), got, &expected, command));
            continue;
        }
        for (&pg, value) in cols.iter().zip(&cells[1..]) {
            if *value == "N/A" {
                continue;
            }
            let name = format!("PG{pg}");
            match number(value) {
                Some(v) => p.rows.push(Row {
                    port: Some(cells[0].to_string()),
                    priority: None,
                    queue: Some(pg),
                    counter,
                    name: format!("{name} {}", counter.words()),
                    value: v,
                    line,
                }),
                None => {
                    let column = raw.rfind(value).map_or(0, |c| c + 1);
                    p.problems.push(not_a_number(file, line, column, &format!("{} {name}", cells[0]), value));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::{parse, Format};
    use super::*;

    /// `show priority-group watermark headroom` as sonic-utilities' tests print it
    /// (`wm_test_vectors.py`), with invented values.
    const HEADROOM: &str = "\
Ingress headroom per PG:
     Port    PG0    PG1    PG2    PG3    PG4    PG5    PG6    PG7
---------  -----  -----  -----  -----  -----  -----  -----  -----
Ethernet0      0      0      0  41984      0      0      0      0
Ethernet4    N/A    N/A    N/A    N/A    N/A    N/A    N/A    N/A
";

    #[test]
    fn pg_headroom_watermarks_are_read_per_port_and_priority_group() {
        let p = parse(HEADROOM, "sw1.pg-headroom.txt");
        assert_eq!(p.format, Some(Format::SonicPgWatermark));
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        // `N/A` is no value; Ethernet0 gives its eight priority groups.
        assert_eq!(p.rows.len(), 8);
        let pg3 = p.rows.iter().find(|r| r.queue == Some(3)).unwrap();
        assert_eq!(
            (pg3.port.as_deref(), pg3.counter, pg3.value, pg3.line),
            (Some("Ethernet0"), Counter::HeadroomWatermark, 41984, 4)
        );
    }

    #[test]
    fn shared_watermarks_of_a_multi_asic_switch_are_read_under_each_title() {
        let text = "\
Ingress shared pool occupancy per PG: (Namespace asic0)
        Port    PG0    PG1    PG2    PG3
------------  -----  -----  -----  -----
   Ethernet0    100    101    102    103
Ingress shared pool occupancy per PG: (Namespace asic1)
          Port    PG0    PG1    PG2    PG3
--------------  -----  -----  -----  -----
Ethernet-BP256    200    201    202    203
";
        let p = parse(text, "sw1.pg-shared.txt");
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert!(p.rows.iter().all(|r| r.counter == Counter::SharedWatermark));
        let ports: Vec<_> =
            p.rows.iter().filter(|r| r.queue == Some(3)).map(|r| (r.port.clone().unwrap(), r.value)).collect();
        assert_eq!(ports, [("Ethernet0".to_string(), 103), ("Ethernet-BP256".to_string(), 203)]);
    }

    #[test]
    fn a_watermark_cut_short_or_not_a_number_is_located_and_the_rest_is_kept() {
        let text = HEADROOM.replace("41984", "4l984") + "Ethernet8      0      0\n";
        let p = parse(&text, "sw1.pg-headroom.txt");
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert_eq!((p.problems[0].line, p.problems[0].column), (4, 33));
        assert!(p.problems[0].message.contains("`4l984` is not a number"));
        assert_eq!(p.problems[1].line, 6);
        assert!(p.problems[1].message.contains("cut short"));
        assert!(p.problems[1].hint.contains("show priority-group watermark headroom"));
        assert_eq!(p.rows.len(), 7);
    }

    /// `show queue wredcounters` as sonic-utilities' tests print it (`show_wred_queue_counters`).
    const WRED: &str = "\
     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes
---------  -----  --------------  ---------------  ----------------  -----------------
Ethernet0    UC0               0                0                 0                  0
Ethernet0    UC3              52               70                19                 76
Ethernet0  ALL20             N/A              N/A               N/A                N/A
";

    #[test]
    fn wredcounters_give_wred_drops_and_ecn_marks_per_queue() {
        let p = parse(WRED, "sw1.wred.txt");
        assert_eq!(p.format, Some(Format::SonicWred));
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let got: Vec<_> = p.rows.iter().map(|r| (r.queue, r.counter, r.value)).collect();
        assert_eq!(
            got,
            [
                (Some(0), Counter::WredDrops, 0),
                (Some(0), Counter::EcnMarkedEgress, 0),
                (Some(3), Counter::WredDrops, 52),
                (Some(3), Counter::EcnMarkedEgress, 19),
            ]
        );
        let cut = WRED.replace("19                 76", "19");
        let p = parse(&cut, "sw1.wred.txt");
        assert_eq!(p.problems.len(), 1);
        assert!(p.problems[0].hint.contains("show queue wredcounters"), "{}", p.problems[0].hint);
        assert_eq!(p.rows.len(), 2);
    }
}
