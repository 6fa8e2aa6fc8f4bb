//! TCP in the engine: goodput against the line rate and framing, the unscaled window's cap,
//! congestion controls sharing a bottleneck, loss recovery, PFC-lossless TCP, 802.3x link
//! pause, iWARP, iperf reports and determinism.

use super::run_checked;
use rocelab_sim::tcp::{tcp_frame_bytes, CcKind};
use rocelab_sim::topology::{single_switch, FabricDefaults, NetworkBuilder};
use rocelab_sim::traffic::{TcpFlow, IPERF_PORT};
use rocelab_sim::*;

const G10: u64 = 10_000_000_000;
const G25: u64 = 25_000_000_000;
const G40: u64 = 40_000_000_000;

/// A lossy class for TCP: priority 0, untagged.
fn best_effort() -> FlowClass {
    FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false }
}

/// A greedy TCP flow from `a` to `b`.
fn tcp_flow(a: NodeId, b: NodeId) -> FlowSpec {
    FlowSpec::greedy(a, b, best_effort()).tcp(TcpFlow::default())
}

/// Goodput of a payload stream that fills `rate_bps`: MSS over the frame plus preamble and gap.
fn line_goodput(rate_bps: u64, mss: u32, timestamps: bool) -> f64 {
    let frame = tcp_frame_bytes(mss, false, timestamps) as f64;
    rate_bps as f64 * mss as f64 / (frame + packet::wire::WIRE_OVERHEAD as f64)
}

/// Payload delivered between `from` and the end of the run, as a rate (bit/s), from a run to
/// `from` and one to `end`.
fn steady_goodput(spec: &NetworkSpec, t: &Traffic, flow: usize, from: Time, end: Time) -> f64 {
    let a = run_checked(spec, t, &SimConfig::new(1, from));
    let b = run_checked(spec, t, &SimConfig::new(1, end));
    let bytes = b.flows[flow].delivered_bytes - a.flows[flow].delivered_bytes;
    bytes as f64 * 8.0 * SECOND as f64 / (end - from) as f64
}

#[test]
fn one_flow_reaches_line_rate_less_framing_at_10g_and_25g() {
    for (rate, mtu) in [(G10, 1500), (G25, 1500), (G10, 9000), (G25, 9000)] {
        let mut d = FabricDefaults::lossy();
        d.host_port.mtu = mtu;
        let f = single_switch(2, rate, 100 * NS, &d);
        let mut t = Traffic::new();
        t.push(tcp_flow(f.hosts[0], f.hosts[1]));
        let got = steady_goodput(&f.spec, &t, 0, 2 * MS, 6 * MS);
        let mss = mtu - 52;
        let want = line_goodput(rate, mss, true);
        // Tolerance 3 %: the ACKs share nothing with the data direction, so only the sender's
        // window (which must stay open) can take the flow below the line.
        assert!((got / want - 1.0).abs() < 0.03, "{rate} b/s, MTU {mtu}: goodput {got:.4e}, line {want:.4e}");
        assert!(got <= want * 1.0001, "faster than the wire");
        eprintln!("{rate} {mtu}: {got:.4e} vs {want:.4e}");
    }
}
