//! The adapter's CNP settings, read beside its counters: the 802.1p priority and the DSCP its
//! DCQCN notification point sends CNPs with. Counters do not say on which priority a CNP left
//! the adapter; these settings do, and together with `np_cnp_sent` they show CNPs sent on a
//! priority the fabric does not carry them on.
//!
//! NVIDIA ConnectX (mlx5, MLNX_OFED) exposes them as the sysfs files
//! `/sys/class/net/IF/ecn/roce_np/cnp_802p_prio` and `/sys/class/net/IF/ecn/roce_np/cnp_dscp`
//! (the driver's `mlx5e_show_cnp_802p_prio`/`mlx5e_show_cnp_dscp`; NVIDIA's firmware names them
//! `CNP_802P_PRIO_P1` and `CNP_DSCP_P1`: "the 802.1p priority value of the generated CNP").
//! Collected as `grep . /sys/class/net/IF/ecn/roce_np/cnp_802p_prio
//! /sys/class/net/IF/ecn/roce_np/cnp_dscp`, each line is `PATH:VALUE`.

use super::parse::{Parsed, Row};
use super::{Counter, Problem};

/// The sysfs folder of the notification point's settings.
const NP_DIR: &str = "/ecn/roce_np/";

/// The files read, and what each is.
const FILES: &[(&str, Counter)] = &[("cnp_802p_prio", Counter::CnpPriority), ("cnp_dscp", Counter::CnpDscp)];

/// Whether `text` is `grep .` output of the notification point's sysfs files: its first line
/// that is not empty names one.
pub fn recognise(text: &str) -> bool {
    text.lines().map(str::trim).find(|l| !l.is_empty()).is_some_and(|l| l.contains(NP_DIR) && l.contains(':'))
}

/// Reads the settings; a line of another file of the folder (`min_time_between_cnps`, the
/// `enable/N` files) is skipped, a value that is not a number, or out of range, is a located
/// error and the other lines are still read.
pub fn parse(text: &str, file: &str) -> Parsed {
    let mut p = Parsed::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let Some((path, value)) = line.rsplit_once(':') else {
            p.problems.push(Problem::error(
                file,
                i + 1,
                1,
                "expected `PATH:VALUE`, as `grep .` prints a sysfs file",
                "collect with `grep . /sys/class/net/IF/ecn/roce_np/cnp_802p_prio /sys/class/net/IF/ecn/roce_np/cnp_dscp`",
            ));
            continue;
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        let Some(&(_, counter)) = FILES.iter().find(|(n, _)| *n == name) else { continue };
        let max = if counter == Counter::CnpPriority { 7 } else { 63 };
        match value.trim().parse::<u64>() {
            Ok(v) if v <= max => p.rows.push(Row {
                port: None,
                priority: None,
                queue: None,
                counter,
                name: name.to_string(),
                value: v,
                line: i + 1,
            }),
            _ => p.problems.push(Problem::error(
                file,
                i + 1,
                path.len() + 2,
                &format!("`{name}`: `{}` is not a number from 0 to {max}", value.trim()),
                "give the file as the adapter prints it; the rest of the file is still read",
            )),
        }
    }
    if p.rows.is_empty() && p.problems.is_empty() {
        p.problems.push(Problem::error(
            file,
            1,
            0,
            "no `cnp_802p_prio` or `cnp_dscp` line",
            "collect with `grep . /sys/class/net/IF/ecn/roce_np/cnp_802p_prio /sys/class/net/IF/ecn/roce_np/cnp_dscp`",
        ));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "/sys/class/net/ens1f0np0/ecn/roce_np/cnp_802p_prio:6\n\
                          /sys/class/net/ens1f0np0/ecn/roce_np/cnp_dscp:48\n";

    #[test]
    fn the_notification_points_cnp_priority_and_dscp_are_read() {
        assert!(recognise(SAMPLE));
        let p = parse(SAMPLE, "h1.cnp.txt");
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let got: Vec<(Counter, u64, usize)> = p.rows.iter().map(|r| (r.counter, r.value, r.line)).collect();
        assert_eq!(got, [(Counter::CnpPriority, 6, 1), (Counter::CnpDscp, 48, 2)]);
    }

    #[test]
    fn counter_output_is_not_taken_for_settings() {
        assert!(!recognise("NIC statistics:\n     rx_prio3_pause: 4\n"));
        assert!(!recognise("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:12\n"));
    }

    #[test]
    fn a_value_out_of_range_is_located_and_the_rest_is_kept() {
        let text = "/sys/class/net/p0/ecn/roce_np/cnp_802p_prio:9\n/sys/class/net/p0/ecn/roce_np/cnp_dscp:48\n";
        let p = parse(text, "h1.cnp.txt");
        assert_eq!(p.rows.len(), 1);
        assert_eq!(p.rows[0].counter, Counter::CnpDscp);
        assert_eq!(p.problems.len(), 1);
        let e = p.problems[0].to_string();
        assert!(e.starts_with("h1.cnp.txt:1:"), "{e}");
        assert!(e.contains("`9` is not a number from 0 to 7"), "{e}");
    }
}
