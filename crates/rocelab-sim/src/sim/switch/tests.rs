//! Tests of a switch's queue entries and charge, its classification and shared arrival settings,
//! its look ahead and its route lookup by index.

use super::*;
use crate::mmu::Mmu;
use crate::packet::test_packet;
use crate::spec::DscpMap;

fn switch(trust: Trust) -> SwitchRt {
    let mut dscp = DscpMap::default();
    dscp.0[26] = 3;
    let qos = QosSpec { trust, default_priority: 1, dscp_to_priority: dscp, ..QosSpec::default() };
    SwitchRt::new(0, 0, Mmu::new(vec![], 0, 1.0), qos, 0, 1)
}

fn ingress(trust: Trust) -> Ingress {
    Ingress::of(&switch(trust))
}

/// An arrival looks its route up by its switch's index in `Sim::switches`: that index is the
/// switch's row in the routing tables on the six bench fabrics (one of which numbers a
/// switch before a host), and the lookup by it finds the ports the lookup by node does.
#[test]
fn a_switchs_index_is_its_routing_row() {
    use crate::bench::Scenario;
    use crate::sim::{SimConfig, Simulation};
    let mut switch_before_a_host = 0;
    for scenario in Scenario::ALL {
        let (spec, traffic) = scenario.build();
        let cfg = SimConfig::new(1, crate::time::US);
        let mut s = Simulation::new(&spec, &traffic, &cfg).expect("the bench scenario builds");
        let sim = s.engine();
        let hosts: Vec<u32> = (0..spec.nodes.len() as u32).filter(|&n| spec.is_host(n as usize)).collect();
        assert!(!sim.switches.is_empty() && !hosts.is_empty());
        for (i, sw) in sim.switches.iter().enumerate() {
            assert_eq!(sim.routes.switch_row(sw.node), Some(i as u32), "{scenario:?}, switch {i}");
            switch_before_a_host += usize::from(hosts.iter().any(|&h| h > sw.node));
            for &h in &hosts {
                let by_index = sim.routes.switch_next_hops(i as u32, sw.node, h);
                assert_eq!(by_index, sim.routes.next_hops(sw.node, h), "{scenario:?}, switch {i} to {h}");
            }
        }
    }
    assert!(switch_before_a_host > 0, "a fabric numbers a switch before a host");
}

#[test]
fn queue_entries_are_12_bytes_and_the_charge_is_rounded_to_cells() {
    assert_eq!(std::mem::size_of::<Queued>(), 12);
    let mut sw = switch(Trust::Pcp);
    assert_eq!(sw.charge(1090), 1090, "byte-accurate accounting");
    sw.cell = 256;
    assert_eq!(sw.charge(1090), 1280);
    assert_eq!(sw.charge(1024), 1024);
    assert_eq!(sw.charge(64), 256);
}

/// The look ahead's further steps (`prefetch_route`, `prefetch_egress`), which run only on
/// large fabrics, forced on for the 320-host RDMA fat tree with DCQCN (switch and host
/// arrivals, host and switch `TxDone`s, data, ACKs and CNPs) and the arrivals that take the
/// egress port it worked out: the same results, event for event, as the run without them.
#[test]
fn the_deep_look_ahead_changes_no_result() {
    use crate::bench::{results_digest, Scenario};
    use crate::sim::{SimConfig, Simulation};
    let (spec, traffic) = Scenario::FatTreeRdma.build();
    let cfg = SimConfig::new(1, 50 * crate::time::US);
    let run = |deep: bool| {
        let mut s = Simulation::new(&spec, &traffic, &cfg).expect("the bench scenario builds");
        assert!(!s.engine().deep_look_ahead, "320 hosts: below DEEP_LOOK_AHEAD_PORTS");
        s.engine().deep_look_ahead = deep;
        s.run_until(cfg.end_time_ps);
        // How many switch arrivals took the egress port worked out ahead (`EgressAhead`).
        let (taken, arrivals) = s.engine().egress_ahead_taken.get();
        let events = s.events();
        (events, results_digest(&s.finish()), taken, arrivals)
    };
    let (plain, deep) = (run(false), run(true));
    assert!(plain.0 > 100_000, "a run with traffic: {} events", plain.0);
    assert_eq!(plain.2, 0, "egress ports worked out ahead only by the deep look ahead");
    // An arrival in a slot of fewer events than the window has no look ahead (here a third
    // of them); the others find their entry: 114,748 of 167,314, where 35,518 did while an
    // entry was overwritten before its arrival read it (two entries, `EGRESS_AHEAD_SLOTS`).
    assert!(deep.2 * 2 > deep.3, "{} of {} arrivals took their port from the look ahead", deep.2, deep.3);
    assert_eq!((plain.0, plain.1), (deep.0, deep.1));
}

#[test]
fn classification_follows_trust_mode() {
    let mut p = test_packet(1000);
    p.pcp = 5;
    p.dscp = 26;
    assert_eq!(ingress(Trust::Pcp).classify(&p), 5);
    assert_eq!(ingress(Trust::Dscp).classify(&p), 3);
    p.tagged = false;
    assert_eq!(ingress(Trust::Pcp).classify(&p), 1, "untagged: default priority");
    p.dscp = 46;
    assert_eq!(ingress(Trust::Dscp).classify(&p), 5, "class selector DSCP>>3");
}

/// Switches with equal settings share one entry of the table; a switch whose maps or
/// simulator-model settings differ gets its own.
#[test]
fn equal_arrival_settings_share_an_entry() {
    let mut table = Vec::new();
    let (pcp, dscp) = (ingress(Trust::Pcp), ingress(Trust::Dscp));
    assert_eq!(Ingress::index_in(&mut table, dscp), Some(0));
    assert_eq!(Ingress::index_in(&mut table, pcp), Some(1));
    assert_eq!(Ingress::index_in(&mut table, dscp), Some(0));
    let mut sw = switch(Trust::Dscp);
    sw.quirks = true;
    assert_eq!(Ingress::index_in(&mut table, Ingress::of(&sw)), Some(2));
    sw.qos.priority_to_tc[3] = 0;
    assert_eq!(Ingress::index_in(&mut table, Ingress::of(&sw)), Some(3));
    assert_eq!(table.len(), 4);
    assert_eq!(table[0], dscp);
    assert!(table[3].quirks && table[3].priority_to_tc[3] == 0);
}
