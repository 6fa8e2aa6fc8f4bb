//! A readable summary of a run, with the model's names: flows (throughput, completion time,
//! CE marks), flow completion and slowdown percentiles by flow size, ports and priorities with PFC, ECN or drops, peak queues like Arista LANZ reports
//! them, switch buffers, and the conservation balance.

use crate::fct::{Completion, FctReport, Percentiles};
use crate::from_model::Names;
use crate::stats::Results;
use std::fmt::Write;

fn gbps(bps: f64) -> String {
    format!("{:.2} Gb/s", bps / 1e9)
}

fn us(ps: u64) -> String {
    format!("{:.2} us", ps as f64 / 1e6)
}

/// The port label `device:port` of a result port.
pub fn port_label(names: &Names, node: usize, port: usize) -> String {
    let n = names.nodes.get(node).map(String::as_str).unwrap_or("?");
    let p = names.ports.get(node).and_then(|v| v.get(port)).map(String::as_str).unwrap_or("?");
    format!("{n}:{p}")
}

/// Flows listed one by one; the rest are in `results.json` (and the FCT table sums them up).
pub const MAX_FLOW_ROWS: usize = 50;

/// The flow-completion table: per flow-size bucket, flows completed, FCT and slowdown
/// percentiles.
fn write_fct(s: &mut String, fct: &FctReport) -> std::fmt::Result {
    let done = match fct.completion {
        Completion::LastByteDelivered => "last byte delivered",
        Completion::LastAckAtSender => "last byte acknowledged",
    };
    writeln!(s, "\nflow completion ({done}); slowdown = FCT / the same flow's FCT alone on an empty network:")?;
    writeln!(
        s,
        "  {:12} {:>7} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}",
        "size", "flows", "done", "fct p50", "fct p95", "fct p99", "sd p50", "sd p95", "sd p99"
    )?;
    for b in fct.buckets.iter().chain(std::iter::once(&fct.overall)) {
        let t = |f: fn(&Percentiles<u64>) -> u64| b.fct_ps.as_ref().map(|p| us(f(p))).unwrap_or_else(|| "-".into());
        let x = |f: fn(&Percentiles<f64>) -> f64| {
            b.slowdown.as_ref().map(|p| format!("{:.2}", f(p))).unwrap_or_else(|| "-".into())
        };
        writeln!(
            s,
            "  {:12} {:>7} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}",
            b.label,
            b.flows,
            b.completed,
            t(|p| p.p50),
            t(|p| p.p95),
            t(|p| p.p99),
            x(|p| p.p50),
            x(|p| p.p95),
            x(|p| p.p99)
        )?;
    }
    Ok(())
}

pub fn summary(r: &Results, names: &Names, warnings: &[String]) -> String {
    let mut s = String::new();
    let _ = write_summary(&mut s, r, names, warnings);
    s
}

fn write_summary(s: &mut String, r: &Results, names: &Names, warnings: &[String]) -> std::fmt::Result {
    writeln!(
        s,
        "simulated {} (seed {}): {} events, peak {} packets in flight",
        us(r.end_time_ps),
        r.seed,
        r.events,
        r.peak_packets_in_flight
    )?;
    for w in warnings {
        writeln!(s, "warning: {w}")?;
    }
    writeln!(s, "\nflows: {}", r.flows.len())?;
    writeln!(s, "  {:24} {:>5} {:>14} {:>12} {:>10} {:>8}", "flow", "prio", "throughput", "fct", "delivered", "ce")?;
    for f in r.flows.iter().take(MAX_FLOW_ROWS) {
        let name = names.flow(f.flow);
        let label = format!("{name} {}>{}", names.nodes[f.src], names.nodes[f.dst]);
        writeln!(
            s,
            "  {:24} {:>5} {:>14} {:>12} {:>10} {:>8}",
            label,
            f.priority,
            gbps(f.throughput_bps),
            f.fct_ps.map(us).unwrap_or_else(|| "-".into()),
            f.delivered_packets,
            f.ce_packets
        )?;
    }
    if r.flows.len() > MAX_FLOW_ROWS {
        writeln!(s, "  … {} more flows in results.json", r.flows.len() - MAX_FLOW_ROWS)?;
    }
    if let Some(fct) = &r.fct {
        write_fct(s, fct)?;
    }
    writeln!(s, "\nports with pause, ECN marks or drops (tx side; peak egress queue per priority):")?;
    writeln!(
        s,
        "  {:34} {:>4} {:>10} {:>10} {:>12} {:>9} {:>8} {:>11}",
        "port", "prio", "pfc sent", "pfc rcvd", "paused", "ecn", "drops", "peak queue"
    )?;
    let mut any = false;
    for p in &r.ports {
        for (prio, c) in p.priorities.iter().enumerate() {
            if c.pfc_sent + c.pfc_received + c.ecn_marked + c.drops == 0 && p.peak_queue_bytes[prio] == 0 {
                continue;
            }
            any = true;
            writeln!(
                s,
                "  {:34} {:>4} {:>10} {:>10} {:>12} {:>9} {:>8} {:>9} B",
                port_label(names, p.node, p.port),
                prio,
                c.pfc_sent,
                c.pfc_received,
                us(c.paused_ps),
                c.ecn_marked,
                c.drops,
                p.peak_queue_bytes[prio]
            )?;
        }
    }
    if !any {
        writeln!(s, "  (none)")?;
    }
    writeln!(s, "\nswitch buffers:")?;
    for sw in &r.switches {
        writeln!(
            s,
            "  {:20} peak shared {:>10} of {:>10} B, drops lossy {} headroom {}",
            sw.name, sw.peak_shared_used_bytes, sw.shared_pool_bytes, sw.drops_lossy, sw.drops_headroom
        )?;
    }
    let c = &r.conservation;
    writeln!(
        s,
        "\nconservation: injected {} B = delivered {} B + dropped {} B + in flight {} B",
        c.injected_bytes, c.delivered_bytes, c.dropped_bytes, c.in_flight_bytes
    )?;
    Ok(())
}
