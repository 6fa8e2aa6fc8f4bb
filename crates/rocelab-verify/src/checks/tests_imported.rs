//! The checks on what imported device output brings that a fabric file does not: MTUs each
//! vendor counts its own way, platform defaults, trust modes that differ by port role, host
//! settings (Windows DCBX), scheduler bindings, and a policy inferred from the devices. Each
//! case a correct configuration that must stay clean, and the fault next to it that must not.

use super::testkit::{ids, Kit};
use crate::state::{EcnState, Sched};
use crate::Severity;
use rocelab_model::qos::Marking;

#[test]
fn ecn_step_marking_with_kmin_equal_to_kmax_is_not_an_order_error() {
    let (mut k, _) = Kit::clos();
    // The DCTCP setting: one threshold, every packet above it marked.
    k.change_all(false, |q| q.ecn[3] = Some(EcnState { kmin: 150_000, kmax: 150_000, pmax: 1.0 }));
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
    k.change_all(false, |q| q.ecn[3] = Some(EcnState { kmin: 150_001, kmax: 150_000, pmax: 1.0 }));
    assert_eq!(ids(&k.run()), ["ECN-ORDER"]);
}

#[test]
fn a_lossy_priority_in_priority_group_0_by_the_platforms_default_is_not_an_error() {
    let (mut k, _) = Kit::clos();
    // The switch shows no priority-group map: the platform's default, which gives PFC
    // priorities their own lossless group.
    k.change_all(false, |q| q.priority_to_pg = [0; 8]);
    for d in k.s.devices.iter_mut().filter(|d| d.role == rocelab_model::fabric::Role::Switch) {
        d.platform = Some("nvidia-onyx".into());
    }
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
    // A map that puts the lossless priority with a lossy one on purpose is still one.
    k.change_all(false, |q| q.priority_to_pg = [1, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(ids(&k.run()), ["MAP-QUEUE"]);
}

/// Every switch of the small Clos on one platform.
fn switches_on(k: &mut Kit, platform: &str) {
    for d in k.s.devices.iter_mut().filter(|d| d.role == rocelab_model::fabric::Role::Switch) {
        d.platform = Some(platform.into());
    }
}

#[test]
fn mtus_each_vendor_counts_differently_are_not_a_mismatch() {
    // Hosts at 9000 (IP MTU) under switches at each vendor's jumbo setting.
    for (platform, mtu) in [("arista-eos", 9214), ("sonic", 9100), ("nvidia-onyx", 9216)] {
        let (mut k, _) = Kit::clos();
        switches_on(&mut k, platform);
        k.change_all(false, |q| q.mtu = mtu);
        k.change_all(true, |q| q.mtu = 9000);
        let f = k.run();
        assert!(f.is_empty(), "{platform} {mtu}: {f:#?}");
    }
    // An Onyx frame size of 4160 carries a 4138-byte packet: not the 4156 RoCE 4096 needs,
    // though the same number on EOS would.
    let (mut k, links) = Kit::clos();
    switches_on(&mut k, "nvidia-onyx");
    k.change(links[0], true, |q| q.mtu = 4160);
    let f = k.run();
    assert_eq!(ids(&f), ["MTU-MISMATCH", "MTU-SMALL"]);
    let small = f.iter().find(|f| f.id == "MTU-SMALL").unwrap();
    assert!(small.what.contains("MTU 4160 (an Onyx frame size: a 4138-byte IP packet)"), "{}", small.what);
    let (mut k, links) = Kit::clos();
    switches_on(&mut k, "arista-eos");
    k.change(links[0], true, |q| q.mtu = 4160);
    assert!(k.run().is_empty());
}

#[test]
fn a_standard_mtu_on_a_roce_port_is_a_finding_when_no_roce_mtu_is_stated() {
    let (mut k, links) = Kit::clos();
    k.s.policy.roce_mtu = 1024;
    k.s.policy.roce_mtu_stated = false;
    k.change(links[0], false, |q| q.mtu = 1500);
    k.change(links[0], true, |q| q.mtu = 1500);
    let f = k.run();
    assert_eq!(ids(&f), ["MTU-SMALL"]);
    assert!(f.iter().all(|f| f.severity == Severity::Warning));
    assert!(f[0].what.contains("caps the RoCE path MTU at 1024"), "{}", f[0].what);
    // Stated, 1024 over 1500 is what the operator chose.
    k.s.policy.roce_mtu_stated = true;
    assert!(k.run().is_empty());
}

#[test]
fn dscp_marking_hosts_on_dscp_access_ports_behind_pcp_trunks_are_not_told_to_trust_pcp() {
    let (mut k, links) = Kit::clos();
    // The fabric classifies on PCP between switches; the leaves trust DSCP on host ports.
    k.s.policy.trust = Marking::Pcp;
    for (i, l) in links.iter().enumerate() {
        // links: per leaf two host links, then two uplinks.
        if i % 4 >= 2 {
            k.change(*l, true, |q| q.trust = Marking::Pcp);
            k.change(*l, false, |q| q.trust = Marking::Pcp);
        }
    }
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
    // A host-facing port whose DSCP map sends the RDMA DSCP elsewhere is still found.
    k.change(links[0], true, |q| q.dscp_to_priority[26] = 0);
    assert_eq!(ids(&k.run()), ["MAP-DSCP", "MAP-TOS"]);
}

#[test]
fn a_windows_host_with_dcbx_willing_is_a_finding() {
    let (mut k, links) = Kit::clos();
    k.s.devices[4].platform = Some("windows".into());
    // h11 (device 4) willing, under a leaf that is not: the pairing alone would pass it.
    k.change(links[0], false, |q| q.dcbx_willing = Some(true));
    k.change(links[0], true, |q| q.dcbx_willing = Some(false));
    let f = k.run();
    assert_eq!(ids(&f), ["DCBX-WILLING"]);
    assert_eq!((f[0].device.as_str(), f[0].severity), ("h11", Severity::Warning));
    assert!(f[0].fix.contains("Set-NetQosDcbxSetting -Willing $false"), "{}", f[0].fix);
    // Not willing: clean; a Linux host willing under the switch: the intended use.
    k.change(links[0], false, |q| q.dcbx_willing = Some(false));
    assert!(k.run().is_empty());
    k.s.devices[4].platform = Some("linux".into());
    k.change(links[0], false, |q| q.dcbx_willing = Some(true));
    assert!(k.run().is_empty());
}

#[test]
fn a_lossless_queue_without_a_scheduler_is_a_finding() {
    let (mut k, _) = Kit::clos();
    // The switches show their scheduler bindings and none at all: no ETS anywhere.
    k.change_all(false, |q| {
        q.sched = [Sched::Unset; 8];
        q.ets_scheduled = [Some(false); 8];
    });
    let f = k.run();
    assert_eq!(ids(&f), ["ETS-CNP", "ETS-LOSSLESS"]);
    let e = f.iter().find(|f| f.id == "ETS-LOSSLESS").unwrap();
    assert!(e.what.contains("queue 3 of lossless priority 3 has no scheduler"), "{}", e.what);
    // The same with the bindings unknown is the device's default, not judged.
    k.change_all(false, |q| q.ets_scheduled = [None; 8]);
    assert!(k.run().is_empty());
    // Every queue bound: clean.
    k.change_all(false, |q| {
        q.sched = [
            Sched::Ets(10),
            Sched::Unset,
            Sched::Unset,
            Sched::Ets(90),
            Sched::Unset,
            Sched::Unset,
            Sched::Strict,
            Sched::Unset,
        ];
        q.ets_scheduled = q.sched.map(|x| Some(x != Sched::Unset));
    });
    assert!(k.run().is_empty());
}

#[test]
fn policy_inferred_from_a_healthy_fabric_is_the_one_it_follows() {
    let (mut k, _) = Kit::clos();
    k.s.policy = crate::infer::policy(&k.s);
    let p = &k.s.policy;
    assert_eq!(
        (p.lossless, p.rdma_priority, p.rdma_dscp, p.cnp_priority, p.cnp_dscp, p.trust),
        (1 << 3, Some(3), Some(26), Some(6), Some(48), Marking::Dscp)
    );
    let inf = p.inferred.as_ref().unwrap();
    assert!(inf.parts.iter().all(|x| x.dissent.is_empty() && x.agree == x.voters), "{inf:#?}");
    let f = k.run();
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn a_switch_mapping_the_rdma_dscp_elsewhere_is_found_without_a_stated_policy() {
    let (mut k, links) = Kit::clos();
    // leaf1, the first switch, maps DSCP 26 to priority 1 and DSCP 24 to the lossless 3.
    for l in &links[0..4] {
        k.change(*l, true, |q| {
            q.dscp_to_priority[26] = 1;
            q.dscp_to_priority[24] = 3;
        });
    }
    k.s.policy = crate::infer::policy(&k.s);
    assert_eq!(k.s.policy.rdma_dscp, Some(26));
    let f = k.run();
    let dscp: Vec<(&str, &str)> =
        f.iter().filter(|f| f.id == "MAP-DSCP").map(|f| (f.device.as_str(), f.what.as_str())).collect();
    assert_eq!(dscp.len(), 1, "{dscp:?}");
    assert_eq!(dscp[0].0, "leaf1");
    assert!(dscp[0].1.starts_with("maps DSCP 26 (RDMA) to priority 1, not 3"), "{}", dscp[0].1);
    let d = f.iter().find(|f| f.id == "POLICY-DISSENT").unwrap();
    assert_eq!(d.device, "leaf1");
    // Three other switches and four hosts mark or map 26.
    assert!(d.what.starts_with("RDMA DSCP 24, where 7 of the 8 devices that show it hold 26"), "{}", d.what);
    let header = crate::render::inferred_policy(&k.s.policy).unwrap();
    assert!(header.starts_with("policy inferred from the devices"), "{header}");
    assert!(header.contains("RDMA DSCP            26 (7 of 8 devices); leaf1 has 24"), "{header}");
    assert!(crate::render::inferred_policy(&super::testkit::policy()).is_none());
}

/// The VLANs of leaf1's port to spine1 (link 2 of the Clos), as an imported switch shows them.
fn vlans(untagged: Option<u16>, tagged: Vec<(u16, u16)>, undefined: Vec<u16>) -> Option<crate::state::PortVlans> {
    Some(crate::state::PortVlans { untagged, tagged, svi_mtu: None, undefined })
}

#[test]
fn an_access_port_facing_a_pcp_classifier_strips_the_priority() {
    let (mut k, links) = Kit::clos();
    // spine1 classifies what leaf1 sends by PCP; leaf1 sends it on access VLAN 10: untagged.
    k.change(links[2], false, |q| q.trust = Marking::Pcp);
    k.change(links[2], true, |q| q.vlans = vlans(Some(10), vec![], vec![]));
    let f = k.run();
    let v = f.iter().find(|f| f.id == "VLAN-UNTAGGED").unwrap_or_else(|| panic!("{:?}", ids(&f)));
    assert_eq!((v.device.as_str(), v.severity), ("leaf1", Severity::Error));
    assert!(v.what.contains("untagged (access VLAN 10) while spine1:"), "{}", v.what);
    // Near misses: the VLAN carried tagged on a trunk, or the peer classifying by DSCP.
    k.change(links[2], true, |q| q.vlans = vlans(Some(1), vec![(10, 10)], vec![]));
    assert!(!ids(&k.run()).contains(&"VLAN-UNTAGGED"));
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.vlans = vlans(Some(10), vec![], vec![]));
    assert!(k.run().is_empty(), "{:?}", ids(&k.run()));
}

#[test]
fn a_vlan_the_switch_does_not_define_is_a_finding() {
    let (mut k, links) = Kit::clos();
    k.change(links[2], true, |q| q.vlans = vlans(None, vec![(10, 10), (40, 40)], vec![40]));
    let f = k.run();
    assert_eq!(ids(&f), ["VLAN-UNDEFINED"]);
    assert!(f[0].what.contains("VLAN 40 that the switch does not define"), "{}", f[0].what);
    // Every VLAN defined: clean.
    k.change(links[2], true, |q| q.vlans = vlans(None, vec![(10, 10), (40, 40)], vec![]));
    assert!(k.run().is_empty(), "{:?}", ids(&k.run()));
}

#[test]
fn a_lossless_queue_on_a_lossy_egress_pool_is_a_finding() {
    let (mut k, _) = Kit::clos();
    // SONiC binds queue 6 only to the egress lossless pool; lossless priority 3 rides queue 3.
    k.change_all(false, |q| q.egress_lossless = Some(1 << 6));
    let f = k.run();
    assert_eq!(ids(&f), ["PFC-EGRESS-POOL"]);
    assert!(
        f[0].what.contains("queue 3 of lossless priority 3 takes its egress buffer from a lossy pool"),
        "{}",
        f[0].what
    );
    // Queue 3 on the lossless pool, or no binding shown (the platform's default): clean.
    k.change_all(false, |q| q.egress_lossless = Some(1 << 3 | 1 << 6));
    assert!(k.run().is_empty(), "{:?}", ids(&k.run()));
    k.change_all(false, |q| q.egress_lossless = None);
    assert!(k.run().is_empty());
}

#[test]
fn a_vlan_interface_with_a_small_mtu_is_found() {
    let (mut k, links) = Kit::clos();
    let svi = |mtu| {
        let mut v = vlans(Some(10), vec![], vec![]).unwrap();
        v.svi_mtu = Some(mtu);
        Some(v)
    };
    // leaf1's port to its first host sits in VLAN 10, whose SVI keeps the standard 1500.
    k.change(links[0], true, |q| q.vlans = svi(1500));
    let f = k.run();
    assert_eq!(ids(&f), ["MTU-SMALL"]);
    assert!(f[0].what.contains("(SVI) of this port's VLAN has MTU 1500"), "{}", f[0].what);
    k.change(links[0], true, |q| q.vlans = svi(9000));
    assert!(k.run().is_empty(), "{:?}", ids(&k.run()));
}
