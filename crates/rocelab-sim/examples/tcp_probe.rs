use rocelab_sim::topology::{single_switch, FabricDefaults};
use rocelab_sim::traffic::TcpFlow;
use rocelab_sim::*;
fn main() {
    let mut d = FabricDefaults::lossy();
    d.host.tcp.window_scaling = false;
    let f = single_switch(2, 10_000_000_000, 250 * US, &d);
    let mut t = Traffic::new();
    t.push(FlowSpec::greedy(f.hosts[0], f.hosts[1], FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false }).tcp(TcpFlow::default()));
    let mut prev = 0;
    for ms in (5..40).step_by(1) {
        let r = run(&f.spec, &t, &SimConfig::new(1, ms * MS)).unwrap();
        let tc = r.flows[0].tcp.as_ref().unwrap();
        let b = tc.ends[1].bytes_received;
        println!("{ms} ms: recv {b} (+{}) acks {} data {} srtt {:?}", b - prev, tc.acks.sent, tc.data.sent, tc.ends[0].srtt_ps);
        prev = b;
    }
}
