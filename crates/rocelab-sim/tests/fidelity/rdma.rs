//! Fidelity of the RDMA transport, DCQCN and perftest tests.

use rocelab_sim::topology::{single_switch, FabricDefaults};
use rocelab_sim::*;

const G100: u64 = 100_000_000_000;
const ROCE: u8 = 3;

fn run_checked(spec: &NetworkSpec, traffic: &Traffic, config: &SimConfig) -> Results {
    let r = run(spec, traffic, config).expect("run");
    r.check_conservation().expect("conservation");
    r
}

#[test]
fn smoke_rc_write_completes() {
    let d = FabricDefaults::lossless(ROCE, 64_000);
    let f = single_switch(2, G100, 25 * NS, &d);
    let mut t = Traffic::new();
    let mut fl = FlowSpec::sized(f.hosts[1], f.hosts[0], FlowClass::roce(ROCE, 26), 1 << 20).rc(RdmaOp::Write);
    fl.payload_bytes = 4096;
    t.push(fl);
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, MS));
    eprintln!("{:#?}", r.flows[0]);
    assert!(r.flows[0].completion_ps.is_some());
}
