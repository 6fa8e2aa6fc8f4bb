//! A readable summary of a run, with the model's names: perftest results as perftest prints
//! them, iperf results as iperf3 prints them, flows (throughput, completion time, CE marks, and for RDMA flows retransmissions and
//! CNPs), flow completion and slowdown percentiles by flow size, ports and priorities with PFC,
//! ECN or drops, peak queues like Arista LANZ reports
//! them, 802.3x link pause, switch buffers, and the conservation balance.

use crate::fct::{Completion, FctReport, Percentiles};
use crate::from_model::{BuildFinding, Names};
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

pub fn summary(r: &Results, names: &Names, warnings: &[BuildFinding]) -> String {
    let mut s = String::new();
    let _ = write_summary(&mut s, r, names, warnings);
    s
}

/// perftest results in perftest's columns.
fn write_perftest(s: &mut String, r: &Results, names: &Names) -> std::fmt::Result {
    if r.perftest.is_empty() {
        return Ok(());
    }
    writeln!(s, "\nperftest: {}", r.perftest.len())?;
    for t in &r.perftest {
        let name = names.perftest.get(t.test).cloned().unwrap_or_else(|| format!("#{}", t.test));
        let state = if t.complete { "" } else { " (did not finish before the end of the run)" };
        writeln!(
            s,
            "  {name}: {} {}>{}{state}",
            t.kind.tool(),
            names.nodes.get(t.client).map(String::as_str).unwrap_or("?"),
            names.nodes.get(t.server).map(String::as_str).unwrap_or("?")
        )?;
        if let Some(b) = &t.bw {
            writeln!(
                s,
                "   {:>10} {:>12} {:>16} {:>19} {:>14}",
                "#bytes", "#iterations", "BW peak[Gb/sec]", "BW average[Gb/sec]", "MsgRate[Mpps]"
            )?;
            writeln!(
                s,
                "   {:>10} {:>12} {:>16} {:>19.2} {:>14.6}",
                b.size,
                b.messages,
                b.peak_gbps.map(|p| format!("{p:.2}")).unwrap_or_else(|| "-".into()),
                b.average_gbps,
                b.msg_rate_mpps
            )?;
        }
        if let Some(l) = &t.lat {
            writeln!(
                s,
                "   {:>8} {:>11} {:>12} {:>12} {:>16} {:>12} {:>14} {:>21} {:>23}",
                "#bytes",
                "#iterations",
                "t_min[usec]",
                "t_max[usec]",
                "t_typical[usec]",
                "t_avg[usec]",
                "t_stdev[usec]",
                "99% percentile[usec]",
                "99.9% percentile[usec]"
            )?;
            writeln!(
                s,
                "   {:>8} {:>11} {:>12.2} {:>12.2} {:>16.2} {:>12.2} {:>14.2} {:>21.2} {:>23.2}",
                l.size,
                l.iterations,
                l.t_min_us,
                l.t_max_us,
                l.t_typical_us,
                l.t_avg_us,
                l.t_stdev_us,
                l.p99_us,
                l.p99_9_us
            )?;
        }
        if t.bw.is_none() && t.lat.is_none() {
            writeln!(s, "   (no completed iteration)")?;
        }
    }
    Ok(())
}

/// fio's short count: `23.4k`, `1.2M`.
fn fio_count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Storage jobs as fio prints them (per direction IOPS, bandwidth, completion latency), the
/// hosts' CPU and the target devices.
fn write_jobs(s: &mut String, r: &Results, names: &Names) -> std::fmt::Result {
    if r.jobs.is_empty() {
        return Ok(());
    }
    let node = |n: usize| names.nodes.get(n).map(String::as_str).unwrap_or("?");
    writeln!(
        s,
        "\nstorage jobs: {} (clat = issue to completion as fio reports it, IOs completed after ramp_time)",
        r.jobs.len()
    )?;
    for j in &r.jobs {
        let name = names.jobs.get(j.job).cloned().unwrap_or_else(|| j.name.clone());
        let proto = serde_json::to_value(j.protocol).ok().and_then(|v| v.as_str().map(str::to_string));
        let rw = serde_json::to_value(j.rw).ok().and_then(|v| v.as_str().map(str::to_string));
        writeln!(
            s,
            "  {name}: {} {}>{} rw={} bs={} iodepth={} numjobs={} ({}), runtime {}",
            proto.unwrap_or_default(),
            node(j.initiator),
            node(j.target),
            rw.unwrap_or_default(),
            j.bs,
            j.iodepth,
            j.numjobs,
            match j.sessions {
                _ if j.initiator == j.target => "local device, no network".to_string(),
                1 => "1 session".to_string(),
                n => format!("{n} sessions"),
            },
            us(j.runtime_ps)
        )?;
        for (dir, d) in [("read", &j.read), ("write", &j.write)] {
            if d.total_ios == 0 {
                continue;
            }
            let c = &d.clat_ns;
            writeln!(
                s,
                "    {dir}: IOPS={}, BW={:.1}MiB/s ({:.1}MB/s), {} IOs",
                fio_count(d.iops),
                d.bw_bytes / 1048576.0,
                d.bw_bytes / 1e6,
                d.total_ios
            )?;
            writeln!(
                s,
                "      clat (usec): min={:.2}, avg={:.2}, p50={:.2}, p99={:.2}, p99.9={:.2}, max={:.2}",
                c.min_ns as f64 / 1e3,
                c.mean_ns / 1e3,
                c.p50_ns as f64 / 1e3,
                c.p99_ns as f64 / 1e3,
                c.p99_9_ns as f64 / 1e3,
                c.max_ns as f64 / 1e3
            )?;
        }
        if j.read.total_ios + j.write.total_ios == 0 {
            writeln!(s, "    (no IO completed in the measured window)")?;
        }
        let c = &j.initiator_cpu;
        writeln!(
            s,
            "    cpu: {} at {:.1}% of {} cores (busiest core {:.1}%), {:.1} MB/s per % CPU",
            node(j.initiator),
            c.utilization * 100.0,
            c.cores,
            c.busiest_core * 100.0,
            c.effectiveness
        )?;
    }
    writeln!(s, "\nhost cpu over the measured window:")?;
    writeln!(
        s,
        "  {:20} {:>6} {:>8} {:>10} {:>12} {:>16}",
        "host", "cores", "util", "busiest", "MB/s", "MB/s per % CPU"
    )?;
    for h in &r.cpu {
        let secs = (h.window_to_ps - h.window_from_ps) as f64 / crate::time::SECOND as f64;
        writeln!(
            s,
            "  {:20} {:>6} {:>7.1}% {:>9.1}% {:>12.1} {:>16.1}",
            h.name,
            h.cpu.cores,
            h.cpu.utilization * 100.0,
            h.cpu.busiest_core * 100.0,
            if secs > 0.0 { h.bytes as f64 / 1e6 / secs } else { 0.0 },
            h.cpu.effectiveness
        )?;
    }
    writeln!(s, "\nstorage targets:")?;
    for t in &r.targets {
        writeln!(
            s,
            "  {:20} {:18} {:>10} IOs serviced, peak {} waiting",
            t.name, t.profile, t.completed, t.peak_queue
        )?;
    }
    Ok(())
}

/// Bytes as iperf3 prints a transfer (binary units: KBytes, MBytes, GBytes).
fn iperf_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.2} GBytes", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MBytes", b / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KBytes", b / 1024.0)
    }
}

/// iperf results as iperf3 ends a test: per stream the sender's line (transfer, bitrate,
/// retransmits, congestion window) and the receiver's, then the sum.
fn write_iperf(s: &mut String, r: &Results, names: &Names) -> std::fmt::Result {
    for t in &r.iperf {
        let name = names.iperf.get(t.test).cloned().unwrap_or_else(|| format!("#{}", t.test));
        let node = |n: usize| names.nodes.get(n).map(String::as_str).unwrap_or("?");
        writeln!(s, "\niperf {name}: {} -> {}, {} stream(s)", node(t.client), node(t.server), t.streams.len())?;
        writeln!(
            s,
            "  {:>6} {:>20} {:>13} {:>15} {:>6} {:>13}",
            "[ ID]", "Interval", "Transfer", "Bitrate", "Retr", "Cwnd"
        )?;
        let ms = |ps: u64| ps as f64 / 1e9;
        // iperf3 adds the [SUM] lines when it runs more than one stream.
        let sum = (t.streams.len() > 1).then_some(&t.sum);
        for (k, st) in t.streams.iter().chain(sum).enumerate() {
            let id = if st.flow.is_some() { format!("[{:>3}]", k + 1) } else { "[SUM]".into() };
            let interval = format!("{:.2}-{:.2} ms", ms(st.start_ps), ms(st.end_ps));
            let cwnd = st.cwnd_bytes.map(iperf_bytes).unwrap_or_default();
            writeln!(
                s,
                "  {id:>6} {interval:>20} {:>13} {:>10.3} Gb/s {:>6} {cwnd:>13}  sender",
                iperf_bytes(st.sender_bytes),
                st.sender_bitrate_bps / 1e9,
                st.retransmits
            )?;
            writeln!(
                s,
                "  {id:>6} {interval:>20} {:>13} {:>10.3} Gb/s {:>6} {:>13}  receiver",
                iperf_bytes(st.receiver_bytes),
                st.receiver_bitrate_bps / 1e9,
                "",
                ""
            )?;
        }
    }
    Ok(())
}

/// Ports with IEEE 802.3x link flow control that sent or received PAUSE frames.
fn write_link_pause(s: &mut String, r: &Results, names: &Names) -> std::fmt::Result {
    let ports: Vec<_> =
        r.ports.iter().filter_map(|p| p.link_pause.map(|l| (p, l))).filter(|(_, l)| l.sent + l.received > 0).collect();
    if ports.is_empty() {
        return Ok(());
    }
    writeln!(s, "\n802.3x link pause:")?;
    writeln!(s, "  {:34} {:>10} {:>10} {:>12}", "port", "sent", "received", "paused")?;
    for (p, l) in ports {
        writeln!(
            s,
            "  {:34} {:>10} {:>10} {:>12}",
            port_label(names, p.node, p.port),
            l.sent,
            l.received,
            us(l.paused_ps)
        )?;
    }
    Ok(())
}

fn write_summary(s: &mut String, r: &Results, names: &Names, warnings: &[BuildFinding]) -> std::fmt::Result {
    writeln!(
        s,
        "simulated {} (seed {}): {} events, peak {} packets in flight",
        us(r.end_time_ps),
        r.seed,
        r.events,
        r.peak_packets_in_flight
    )?;
    for w in warnings {
        writeln!(s, "{w}")?;
    }
    write_perftest(s, r, names)?;
    write_jobs(s, r, names)?;
    write_iperf(s, r, names)?;
    writeln!(s, "\nflows: {}", r.flows.len())?;
    let label =
        |f: &crate::stats::FlowResults| format!("{} {}>{}", names.flow(f.flow), names.nodes[f.src], names.nodes[f.dst]);
    let w = r.flows.iter().take(MAX_FLOW_ROWS).map(|f| label(f).len()).max().unwrap_or(0).max(24);
    // `delivered` counts packets (results.json has the bytes too); the header says so.
    writeln!(
        s,
        "  {:w$} {:>5} {:>9} {:>14} {:>12} {:>14} {:>8} {:>8} {:>8}",
        "flow", "prio", "transport", "throughput", "fct", "delivered pkts", "ce", "retx", "cnp"
    )?;
    for f in r.flows.iter().take(MAX_FLOW_ROWS) {
        let label = label(f);
        let (qp, retx, cnp) = match (&f.rdma, &f.tcp) {
            (Some(q), _) => {
                (format!("{:?}", q.op).to_lowercase(), q.retransmitted_packets.to_string(), q.cnps_received.to_string())
            }
            (None, Some(t)) => {
                let kind = match &t.iwarp {
                    Some(i) => format!("iw-{:?}", i.op).to_lowercase(),
                    None => "tcp".into(),
                };
                let retx: u64 = t.ends.iter().map(|e| e.stats.retransmissions).sum();
                (kind, retx.to_string(), "-".into())
            }
            (None, None) => ("raw".into(), "-".into(), "-".into()),
        };
        writeln!(
            s,
            "  {:w$} {:>5} {:>9} {:>14} {:>12} {:>14} {:>8} {:>8} {:>8}",
            label,
            f.priority,
            qp,
            gbps(f.throughput_bps),
            f.fct_ps.map(us).unwrap_or_else(|| "-".into()),
            f.delivered_packets,
            f.ce_packets,
            retx,
            cnp
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
    write_link_pause(s, r, names)?;
    writeln!(s, "\nswitch buffers:")?;
    for sw in &r.switches {
        write!(
            s,
            "  {:20} peak shared {:>10} of {:>10} B, drops lossy {} headroom {}",
            sw.name, sw.peak_shared_used_bytes, sw.shared_pool_bytes, sw.drops_lossy, sw.drops_headroom
        )?;
        if sw.drops_egress_lossy > 0 {
            write!(s, " lossy at egress {}", sw.drops_egress_lossy)?;
        }
        writeln!(s)?;
    }
    let c = &r.conservation;
    writeln!(
        s,
        "\nconservation: injected {} B = delivered {} B + dropped {} B + in flight {} B",
        c.injected_bytes, c.delivered_bytes, c.dropped_bytes, c.in_flight_bytes
    )?;
    let (retx, retx_bytes) = r
        .flows
        .iter()
        .filter_map(|f| f.rdma.as_ref())
        .fold((0, 0), |(p, b), q| (p + q.retransmitted_packets, b + q.retransmitted_bytes));
    if retx > 0 {
        writeln!(s, "retransmitted: {retx} packets, {retx_bytes} B of payload")?;
    }
    let tcp = r.flows.iter().filter_map(|f| f.tcp.as_ref()).chain(&r.tcp_connections);
    let (segs, fast, rto, tlp) = tcp.flat_map(|t| t.ends.iter()).fold((0, 0, 0, 0), |(a, b, c, d), e| {
        let st = &e.stats;
        (a + st.retransmissions, b + st.fast_retransmits, c + st.timeouts, d + st.tail_loss_probes)
    });
    if segs > 0 || tlp > 0 {
        writeln!(
            s,
            "TCP retransmitted: {segs} segments ({fast} fast retransmits, {rto} timeouts, {tlp} tail loss probes)"
        )?;
    }
    Ok(())
}
