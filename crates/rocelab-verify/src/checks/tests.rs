//! One test that triggers each check (named by the check, as in [`super::CHECKS`]) and the
//! healthy fabric that does not, over states built directly.

use super::testkit::{ids, Kit};
use crate::state::{EcnState, Sched};
use crate::Severity;
use rocelab_model::qos::Marking;

#[test]
fn a_healthy_clos_has_no_findings() {
    let (k, _) = Kit::clos();
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn mapping_host_tos_must_classify_into_the_lossless_priority() {
    let (mut k, links) = Kit::clos();
    // h11 marks RoCE with ToS 96 (DSCP 24), which the switch maps to priority 0.
    k.change(links[0], false, |q| q.host.as_mut().unwrap().roce_tos = Some(96));
    let f = k.run();
    assert_eq!(ids(&f), ["MAP-TOS"]);
    assert_eq!((f[0].device.as_str(), f[0].port.as_deref()), ("h11", Some("p1")));
    assert!(f[0].what.contains("RoCE ToS 96 is DSCP 24, which leaf1:p1 maps to priority 0, not 3"), "{}", f[0].what);
    assert!(f[0].fix.contains("106"));
}

#[test]
fn mapping_dscp_map_and_trust_agree_at_every_hop_cnp_included() {
    let (mut k, links) = Kit::clos();
    // spine1's port towards leaf1 maps CNP DSCP 48 to priority 0.
    k.change(links[2], false, |q| q.dscp_to_priority[48] = 0);
    // leaf2's uplink to spine2 trusts PCP.
    k.change(links[7], true, |q| q.trust = Marking::Pcp);
    let f = k.run();
    assert_eq!(ids(&f), ["MAP-DSCP", "MAP-TRUST"]);
    let d = f.iter().find(|f| f.id == "MAP-DSCP").unwrap();
    assert_eq!((d.device.as_str(), d.class.as_deref()), ("spine1", Some("cnp (priority 6)")));
    assert!(d.what.contains("maps DSCP 48 (CNP) to priority 0, not 6"));
}

#[test]
fn mapping_a_lossy_priority_must_not_share_the_lossless_group() {
    let (mut k, _) = Kit::clos();
    k.change_all(false, |q| q.priority_to_pg[0] = 3);
    let f = k.run();
    assert_eq!(ids(&f), ["MAP-QUEUE"]);
    assert_eq!(f[0].severity, Severity::Error);
}

#[test]
fn pfc_on_exactly_the_lossless_priorities_no_link_pause() {
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.pfc = 0);
    k.change(links[3], true, |q| q.pfc |= 1);
    k.change(links[0], false, |q| q.link_pause = true);
    let f = k.run();
    assert_eq!(ids(&f), ["PFC-LINK-PAUSE", "PFC-LOSSY", "PFC-MISSING"]);
    let m = f.iter().find(|f| f.id == "PFC-MISSING").unwrap();
    assert_eq!((m.device.as_str(), m.port.as_deref()), ("leaf1", Some("p3")));
}

#[test]
fn headroom_shows_its_computation_and_fits_the_buffer() {
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.headroom[3] = Some(10_000));
    let f = k.run();
    assert_eq!(ids(&f), ["HEADROOM-SHORT"]);
    let h = rocelab_model::headroom::required_headroom(&rocelab_model::headroom::HeadroomInput {
        speed: rocelab_model::units::Rate::gbps(100),
        cable: rocelab_model::units::Length::metres(3),
        receiver_mtu: 9100,
        sender_mtu: 9100,
        response: rocelab_model::headroom::Response::Time(rocelab_model::units::Time::ns(1500)),
    });
    assert!(f[0].what.contains(&h.explain()), "{}", f[0].what);
    assert!(f[0].what.contains("has 10000 B of headroom; spine1:p1 at 100G over 3m needs"));

    let (mut k, _) = Kit::clos();
    k.s.devices[0].buffer = Some(100_000);
    let f = k.run();
    assert!(ids(&f).contains(&"HEADROOM-BUFFER"), "{f:#?}");
}

#[test]
fn ecn_on_ordered_and_below_xoff() {
    let (mut k, _) = Kit::clos();
    k.change_all(false, |q| q.ecn[3] = None);
    assert_eq!(ids(&k.run()), ["ECN-OFF"]);

    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.ecn[3] = Some(EcnState { kmin: 500_000, kmax: 400_000, pmax: 0.1 }));
    k.change(links[3], true, |q| {
        q.ecn[3] = Some(EcnState { kmin: 50_000, kmax: 100_000, pmax: 0.1 });
        q.xoff[3] = Some(40_000);
    });
    let f = k.run();
    assert_eq!(ids(&f), ["ECN-ABOVE-XOFF", "ECN-ORDER"]);
    let x = f.iter().find(|f| f.id == "ECN-ABOVE-XOFF" && f.severity == Severity::Error).unwrap();
    assert!(x.what.contains("Kmin 50000 B is not below the PFC XOFF point of about 40000 B"), "{}", x.what);
}

#[test]
fn ets_sums_to_100_with_bandwidth_for_lossless_and_cnp() {
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.sched[0] = Sched::Ets(20));
    k.change(links[3], true, |q| {
        q.sched[3] = Sched::Unset;
        q.sched[0] = Sched::Ets(100);
        q.sched[6] = Sched::Unset;
    });
    let f = k.run();
    assert_eq!(ids(&f), ["ETS-CNP", "ETS-LOSSLESS", "ETS-SUM"]);
    assert!(f.iter().any(|f| f.what == "ETS weights sum to 110 (queue 0 20 + queue 3 90)"));
}

#[test]
fn dcqcn_at_every_endpoint_and_one_cnp_priority() {
    let (mut k, links) = Kit::clos();
    k.change(links[0], false, |q| q.host.as_mut().unwrap().rp = 0);
    k.change(links[1], false, |q| q.host.as_mut().unwrap().cnp_priority = Some(7));
    let f = k.run();
    assert_eq!(ids(&f), ["DCQCN-CNP", "DCQCN-OFF"]);
    assert!(f.iter().any(|f| f.device == "h11" && f.what == "DCQCN reaction point off for priority 3"));
    assert!(f.iter().any(|f| f.device == "h12" && f.what.contains("priority 7")));
}

#[test]
fn mtu_equal_and_large_enough() {
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.mtu = 1500);
    let f = k.run();
    assert_eq!(ids(&f), ["MTU-MISMATCH", "MTU-SMALL"]);
    assert!(f.iter().any(|f| f.what.contains("MTU 1500 is below the 4156 bytes")));
}

#[test]
fn mtu_jumbo_end_to_end_for_iscsi() {
    let (mut k, links) = Kit::clos();
    k.s.devices[4].protocols = vec![rocelab_model::fabric::StorageProtocol::Iscsi];
    k.s.policy.roce_mtu = 1024;
    // Every switch port at 4200: enough for RoCE 1024, not jumbo.
    k.change_all(false, |q| q.mtu = 4200);
    k.change_all(true, |q| q.mtu = 4200);
    assert!(!ids(&k.run()).contains(&"MTU-JUMBO"));
    k.change(links[0], false, |q| q.mtu = 9000);
    assert!(ids(&k.run()).contains(&"MTU-JUMBO"));
}

#[test]
fn overlay_vxlan_endpoints_propagate_ecn_and_dscp() {
    use rocelab_model::fabric::Vxlan;
    let (mut k, _) = Kit::clos();
    k.s.devices[0].vxlan = Some(Vxlan { ecn_propagation: true, dscp_preservation: true });
    assert!(k.run().is_empty());
    k.s.devices[0].vxlan = Some(Vxlan { ecn_propagation: false, dscp_preservation: false });
    let f = k.run();
    assert_eq!(ids(&f), ["VXLAN-DSCP", "VXLAN-ECN"]);
    assert_eq!(f[0].device, "leaf1");
}

#[test]
fn bond_mlag_bonded_rdma_host_is_a_warning() {
    use rocelab_model::fabric::Bonding;
    let (mut k, _) = Kit::clos();
    k.s.devices[4].bonding = Some(Bonding::ActiveBackup);
    assert!(k.run().is_empty());
    k.s.devices[4].bonding = Some(Bonding::Mlag);
    let rdma = |k: &Kit| k.run().into_iter().filter(|f| f.id == "BOND-RDMA").collect::<Vec<_>>();
    let f = rdma(&k);
    assert_eq!((f.len(), f[0].severity), (1, Severity::Warning));
    // Both ports of one ConnectX (RoCE LAG): one RDMA device, so a note about the adapter.
    k.s.devices[4].roce_lag = true;
    let f = rdma(&k);
    assert_eq!((f.len(), f[0].severity), (1, Severity::Note));
    assert!(f[0].what.ends_with("bond of one ConnectX's two ports (RoCE LAG)") && f[0].why.contains("one adapter"));
}

#[test]
fn bond_a_bonds_links_reach_the_switches_its_mode_aggregates() {
    use rocelab_model::fabric::Bonding;
    let mut k = Kit::new();
    let (s1, s2, s3) = (k.switch("s1"), k.switch("s2"), k.switch("s3"));
    let h = k.host("h");
    k.link(s1, h);
    k.link(s2, h);
    let cabling = |k: &Kit| {
        let f: Vec<_> = k.run().into_iter().filter(|f| f.id != "BOND-RDMA" && f.id.starts_with("BOND-")).collect();
        f.into_iter().map(|f| (f.id, f.severity, f.what)).collect::<Vec<_>>()
    };
    // LACP to two switches: one aggregator per switch.
    k.s.devices[h as usize].bonding = Some(Bonding::Lacp);
    assert_eq!(
        cabling(&k),
        [("BOND-LACP-SPLIT", Severity::Warning, "LACP bond cabled to 2 switches (s1, s2)".to_string())]
    );
    // MLAG across the two: what it is for.
    k.s.devices[h as usize].bonding = Some(Bonding::Mlag);
    assert!(cabling(&k).is_empty());
    // A third switch: no pair is three switches.
    k.link(s3, h);
    assert_eq!(
        cabling(&k),
        [("BOND-MLAG-PAIR", Severity::Error, "MLAG bond cabled to 3 switches (s1, s2, s3)".to_string())]
    );
    // Two links to one switch: LACP is right, MLAG has no second switch.
    let mut k = Kit::new();
    let s1 = k.switch("s1");
    let h = k.host("h");
    k.link(s1, h);
    k.link(s1, h);
    k.s.devices[h as usize].bonding = Some(Bonding::Lacp);
    assert!(cabling(&k).is_empty());
    k.s.devices[h as usize].bonding = Some(Bonding::Mlag);
    assert_eq!(cabling(&k), [("BOND-MLAG-PAIR", Severity::Warning, "MLAG bond cabled to one switch (s1)".to_string())]);
    // A Windows host's bond is a switch-independent SET team: no LACP to check.
    k.s.devices[h as usize].platform = Some("windows".into());
    assert!(cabling(&k).is_empty());
}

#[test]
fn deadlock_a_ring_has_a_deadlock_cycle() {
    let mut k = Kit::new();
    let sw: Vec<u32> = (0..4).map(|i| k.switch(&format!("s{i}"))).collect();
    for (i, s) in sw.iter().enumerate() {
        let h = k.host(&format!("h{i}"));
        k.link(*s, h);
    }
    for i in 0..4 {
        k.link(sw[i], sw[(i + 1) % 4]);
    }
    let f = k.run();
    let c = f.iter().find(|f| f.id == "DEADLOCK-CYCLE").expect("cycle found");
    assert_eq!(c.class.as_deref(), Some("roce (priority 3)"));
    // Four hops, each from one switch to the next, closing the ring.
    assert_eq!(c.what.matches(" → ").count(), 4, "{}", c.what);

    // PFC off on one ring link breaks the cycle.
    let ring_link = 4;
    k.change(ring_link, true, |q| q.pfc = 0);
    k.change(ring_link, false, |q| q.pfc = 0);
    assert!(!ids(&k.run()).contains(&"DEADLOCK-CYCLE"));
}

#[test]
fn deadlock_a_cycle_after_a_single_link_failure() {
    // Four switches fully meshed except the a–c diagonal: the routes are valley free. When
    // b–d fails, b reaches d over a or c, and the four ring links depend on each other.
    let mut k = Kit::new();
    let sw: Vec<u32> = ["a", "b", "c", "d"].iter().map(|n| k.switch(n)).collect();
    for (i, s) in sw.iter().enumerate() {
        let h = k.host(&format!("h{i}"));
        k.link(*s, h);
    }
    for (x, y) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
        k.link(sw[x], sw[y]);
    }
    let bd = k.link(sw[1], sw[3]);
    let f = k.run();
    assert!(!ids(&f).contains(&"DEADLOCK-CYCLE"), "{f:#?}");
    let c = f.iter().find(|f| f.id == "DEADLOCK-FAILURE").expect("failure cycle found");
    let l = &k.s.links[bd as usize];
    assert!(c.what.contains(&format!("b:p{} – d:p{} fails", l.a.port + 1, l.b.port + 1)), "{}", c.what);
}

#[test]
fn deadlock_a_healthy_clos_passes_every_single_failure() {
    let (k, _) = Kit::clos();
    let r = crate::routes::analyse(&k.s);
    assert!(r.cycles.is_empty() && r.failure_cycles.is_empty());
    assert_eq!(r.switch_links, 4);
    assert_eq!(r.failures_not_analysed, 0);
}

#[test]
fn dcbx_willing_on_both_ends_or_on_a_switch() {
    let (mut k, links) = Kit::clos();
    k.change_all(false, |q| q.dcbx_willing = Some(false));
    k.change_all(true, |q| q.dcbx_willing = Some(true));
    assert!(k.run().is_empty());
    k.change(links[0], true, |q| {
        q.dcbx_willing = Some(true);
        q.pfc = 1 << 3 | 1 << 4;
    });
    let f = k.run();
    assert!(ids(&f).contains(&"DCBX-WILLING"), "{f:#?}");
}

#[test]
fn findings_on_many_ports_of_one_profile_are_one_finding() {
    let (mut k, _) = Kit::clos();
    k.change_all(false, |q| q.pfc = 0);
    let f = k.run();
    let m: Vec<_> = f.iter().filter(|f| f.id == "PFC-MISSING").collect();
    assert_eq!(m.len(), 1);
    // 12 switch ports on routes: the finding names the first and counts the other 11.
    assert!(m[0].what.contains("(also on 11 other ports: "), "{}", m[0].what);
}

// Near misses: for each check, a state one step from triggering it that must stay clean.

/// A Clos with a stub switch hanging off leaf1: its link carries no RDMA route.
fn clos_with_stub() -> (Kit, Vec<u32>, u32) {
    let (mut k, links) = Kit::clos();
    let stub = k.switch("stub");
    let l = k.link(0, stub);
    (k, links, l)
}

#[test]
fn mapping_near_misses_stay_clean() {
    let (mut k, links, stub) = clos_with_stub();
    // ToS 104 is DSCP 26 without ECT: still the lossless priority.
    k.change(links[0], false, |q| q.host.as_mut().unwrap().roce_tos = Some(104));
    // Priority 5 is used by no class: sharing group 3 with it is harmless.
    k.change(links[1], true, |q| q.priority_to_pg[5] = 3);
    // PCP trust on a link no RDMA route crosses.
    k.change(stub, true, |q| q.trust = Marking::Pcp);
    // An adapter whose ToS the source does not show is not judged by it.
    k.change(links[4], false, |q| {
        let h = q.host.as_mut().unwrap();
        h.roce_tos = None;
        h.rdma_visible = false;
    });
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn mapping_host_pcp_under_pcp_trust() {
    let (mut k, links) = Kit::clos();
    k.s.policy.trust = Marking::Pcp;
    k.change_all(false, |q| q.trust = Marking::Pcp);
    k.change_all(true, |q| {
        q.trust = Marking::Pcp;
        q.host.as_mut().unwrap().pcp = Some(3);
    });
    assert!(k.run().is_empty());
    k.change(links[0], false, |q| q.host.as_mut().unwrap().pcp = Some(0));
    let f = k.run();
    assert_eq!(ids(&f), ["MAP-TOS"]);
    assert!(f[0].what.starts_with("tags RDMA with 802.1p priority 0, which leaf1:p1 trusts"), "{}", f[0].what);
    assert!(f[0].fix.contains("-PriorityValue8021Action 3"));
}

#[test]
fn pfc_near_misses_stay_clean() {
    let (mut k, _, stub) = clos_with_stub();
    // PFC off, an extra paused priority and 802.3x pause, all on the link without RDMA.
    k.change(stub, true, |q| {
        q.pfc = 1 << 1;
        q.link_pause = true;
    });
    k.change(stub, false, |q| q.pfc = 0);
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn headroom_exactly_enough_and_pools_that_fit() {
    let need = rocelab_model::headroom::required_headroom(&rocelab_model::headroom::HeadroomInput {
        speed: rocelab_model::units::Rate::gbps(100),
        cable: rocelab_model::units::Length::metres(3),
        receiver_mtu: 9100,
        sender_mtu: 9100,
        response: rocelab_model::headroom::Response::Time(rocelab_model::units::Time::ns(1500)),
    })
    .bytes;
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.headroom[3] = Some(need));
    assert!(k.run().is_empty());
    k.change(links[2], true, |q| q.headroom[3] = Some(need - 1));
    assert_eq!(ids(&k.run()), ["HEADROOM-SHORT"]);

    // leaf1 has 4 lossless ports' headroom; ingress pools that fit beside it, then not.
    let (mut k, _) = Kit::clos();
    let pool = |size| crate::state::Pool { name: "iPool1".into(), size, ingress: true };
    let headroom = 4 * need;
    k.s.devices[0].pools = vec![pool(16_000_000 - headroom)];
    assert!(k.run().is_empty());
    k.s.devices[0].pools = vec![pool(16_000_000 - headroom + 1)];
    let f = k.run();
    assert_eq!(ids(&f), ["HEADROOM-BUFFER"]);
    assert!(f[0].what.contains("and the ingress pools (iPool1 "), "{}", f[0].what);
}

#[test]
fn ecn_kmin_just_below_xoff_is_clean() {
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| {
        q.ecn[3] = Some(EcnState { kmin: 39_999, kmax: 40_000, pmax: 0.1 });
        q.xoff[3] = Some(40_000);
    });
    assert!(k.run().is_empty(), "{:#?}", k.run());
    // Without DCQCN, missing ECN is a warning, not an error.
    let (mut k, _) = Kit::clos();
    k.s.policy.dcqcn = false;
    k.change_all(false, |q| q.ecn[3] = None);
    k.change_all(true, |q| q.host.as_mut().unwrap().rdma_visible = false);
    let f = k.run();
    assert_eq!((ids(&f), f[0].severity), (vec!["ECN-OFF"], Severity::Warning));
}

#[test]
fn ets_cnp_with_a_share_is_clean() {
    let (mut k, _) = Kit::clos();
    k.change_all(false, |q| {
        q.sched[0] = Sched::Ets(10);
        q.sched[3] = Sched::Ets(80);
        q.sched[6] = Sched::Ets(10);
    });
    assert!(k.run().is_empty());
}

#[test]
fn dcqcn_near_misses_stay_clean() {
    // An adapter whose DCQCN the source does not show (mlnx_qos, Windows) is not judged.
    let (mut k, links) = Kit::clos();
    k.change(links[0], false, |q| {
        let h = q.host.as_mut().unwrap();
        (h.np, h.rp, h.cnp_priority, h.rdma_visible) = (0, 0, None, false);
    });
    assert!(k.run().is_empty());
    // No DCQCN meant and no switch marks: endpoints without it are fine.
    let (mut k, _) = Kit::clos();
    k.s.policy.dcqcn = false;
    k.s.policy.cnp_priority = None;
    k.change_all(false, |q| q.ecn[3] = None);
    k.change_all(true, |q| {
        let h = q.host.as_mut().unwrap();
        (h.np, h.rp) = (0, 0);
    });
    assert!(!ids(&k.run()).iter().any(|i| i.starts_with("DCQCN")));
}

#[test]
fn mtu_exactly_enough_and_mismatch_off_the_routes() {
    let (mut k, _, stub) = clos_with_stub();
    // RoCE 4096 needs 4156 bytes.
    k.change_all(false, |q| q.mtu = 4156);
    k.change_all(true, |q| q.mtu = 4156);
    assert!(k.run().is_empty(), "{:#?}", k.run());
    k.change(stub, false, |q| q.mtu = 1500);
    let f = k.run();
    assert_eq!((ids(&f), f[0].severity), (vec!["MTU-MISMATCH"], Severity::Warning));
}

#[test]
fn dcbx_willing_host_under_a_non_willing_switch_with_other_settings_is_clean() {
    let (mut k, links) = Kit::clos();
    k.change_all(false, |q| q.dcbx_willing = Some(false));
    k.change_all(true, |q| q.dcbx_willing = Some(true));
    // The host's own PFC differs: it adopts the switch's, which is the point of willing.
    k.change(links[0], false, |q| q.pfc |= 1 << 4);
    assert!(!ids(&k.run()).contains(&"DCBX-WILLING"));
    // Both ends willing: a warning.
    k.change(links[0], true, |q| q.dcbx_willing = Some(true));
    assert!(ids(&k.run()).contains(&"DCBX-WILLING"));
}

/// Every rule has a check that finds it somewhere in these tests' states, and every finding
/// carries all it must: a known rule, its severity, device, what, why, fix, and the rule's own
/// source; port-level rules name the port.
#[test]
fn every_finding_is_complete_and_names_its_rules_source() {
    let mut all = Vec::new();
    let (mut k, links) = Kit::clos();
    k.change(links[0], false, |q| q.host.as_mut().unwrap().roce_tos = Some(96));
    k.change(links[2], false, |q| q.dscp_to_priority[48] = 0);
    k.change(links[7], true, |q| q.trust = Marking::Pcp);
    k.change(links[3], true, |q| {
        q.pfc |= 1;
        q.priority_to_pg[0] = 3;
        q.link_pause = true;
        q.headroom[3] = Some(1000);
        q.ecn[3] = Some(EcnState { kmin: 500_000, kmax: 400_000, pmax: 0.1 });
        q.sched = [Sched::Unset; 8];
        q.sched[0] = Sched::Ets(120);
        q.dcbx_willing = Some(true);
        q.mtu = 1500;
    });
    k.change(links[3], false, |q| q.dcbx_willing = Some(true));
    k.change(links[6], true, |q| {
        q.pfc = 0;
        q.ecn[3] = None;
    });
    k.change(links[1], false, |q| {
        let h = q.host.as_mut().unwrap();
        (h.rp, h.cnp_priority) = (0, Some(7));
    });
    k.s.devices[0].vxlan = Some(rocelab_model::fabric::Vxlan { ecn_propagation: false, dscp_preservation: false });
    k.s.devices[4].bonding = Some(rocelab_model::fabric::Bonding::Lacp);
    k.s.devices[1].buffer = Some(10_000);
    all.extend(k.run());
    let mut ring = Kit::new();
    let sw: Vec<u32> = (0..4).map(|i| ring.switch(&format!("s{i}"))).collect();
    for s in &sw {
        let h = ring.host(&format!("h{s}"));
        ring.link(*s, h);
    }
    for i in 0..4 {
        ring.link(sw[i], sw[(i + 1) % 4]);
    }
    // A host bonded with LACP to two switches, one with MLAG to one switch.
    let (split, single) = (ring.host("split"), ring.host("single"));
    for (h, a, b) in [(split, sw[0], sw[1]), (single, sw[2], sw[2])] {
        ring.link(a, h);
        ring.link(b, h);
    }
    ring.s.devices[split as usize].bonding = Some(rocelab_model::fabric::Bonding::Lacp);
    ring.s.devices[single as usize].bonding = Some(rocelab_model::fabric::Bonding::Mlag);
    all.extend(ring.run());
    let found = ids(&all);
    for r in crate::RULES {
        // Not produced here: ECN-ABOVE-XOFF (ecn test), MTU-JUMBO (mtu test), DEADLOCK-FAILURE
        // (deadlock test), DEADLOCK-BOUND (only past the analysis bounds), POLICY-DISSENT
        // (inferred policies only: the policy test), PFC-EGRESS-POOL and the VLAN rules (SONiC's
        // buffer bindings and imported switches' VLANs only: tests_imported.rs) and the
        // import's own rules (check 0, from the import: import/cabling.rs tests).
        let elsewhere =
            ["ECN-ABOVE-XOFF", "MTU-JUMBO", "DEADLOCK-FAILURE", "DEADLOCK-BOUND", "POLICY-DISSENT", "PFC-EGRESS-POOL"];
        if r.check == 0 || r.check == 13 || elsewhere.contains(&r.id) {
            continue;
        }
        assert!(found.contains(&r.id), "{} not found: {found:?}", r.id);
    }
    let device_level = [
        "HEADROOM-BUFFER",
        "VXLAN-ECN",
        "VXLAN-DSCP",
        "BOND-RDMA",
        "BOND-LACP-SPLIT",
        "BOND-MLAG-PAIR",
        "DEADLOCK-BOUND",
        "POLICY-DISSENT",
    ];
    for f in &all {
        let rule = crate::finding::rule(f.id).unwrap_or_else(|| panic!("{} is not in RULES", f.id));
        assert_eq!(f.source, rule.source, "{}", f.id);
        assert!(!f.device.is_empty() && !f.what.is_empty() && !f.why.is_empty() && !f.fix.is_empty(), "{f:#?}");
        assert_eq!(f.port.is_none(), device_level.contains(&f.id), "{f:#?}");
    }
}

#[test]
fn a_finding_on_many_devices_lists_them_in_order() {
    let (mut k, _) = Kit::clos();
    for d in 0..4 {
        k.s.devices[d].buffer = Some(10_000);
    }
    for _ in 0..5 {
        let f = k.run();
        let b: Vec<(&str, &str)> = f
            .iter()
            .filter(|f| f.id == "HEADROOM-BUFFER")
            .map(|f| (f.device.as_str(), f.what.rsplit('(').next().unwrap_or_default()))
            .collect();
        assert_eq!(b, [("leaf1", "also on 1 other device: leaf2)"), ("spine1", "also on 1 other device: spine2)")]);
    }
}

#[test]
fn the_registry_lists_each_rule_once_and_only_rules_that_exist() {
    let mut seen = std::collections::BTreeSet::new();
    for c in super::CHECKS {
        assert!(!c.rules.is_empty(), "{} lists no rule", c.name);
        for r in c.rules {
            assert!(crate::finding::rule(r).is_some(), "{}: {r} is not in RULES", c.name);
            assert!(seen.insert(*r), "{r} is listed by two checks");
        }
    }
    let names: Vec<&str> = super::CHECKS.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            "mapping", "pfc", "mtu", "headroom", "ecn", "ets", "dcqcn", "overlay", "bond", "deadlock", "dcbx",
            "policy", "vlan"
        ]
    );
}
