//! Sizes a fabric file asks for are bounded at load, and values that cannot work (zero speeds,
//! rates and sizes, an empty sweep) are refused there: each error at the field that asks, with
//! the limit, and no follow-on errors.

use super::{broken, errors, load, one_error, BASE};
use rocelab_model::{load_file, load_str};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocelab-bounds-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn with_workloads(w: &str) -> String {
    format!("{BASE}simulation: {{duration: 2ms}}\nworkloads:\n{w}")
}

/// A generated fabric with one flow between its first two hosts.
fn generator(g: &str) -> String {
    format!(
        "fabric:\n  name: g\n  topology:\n    generator:\n      {g}\n  qos:\n    marking: dscp\n    classes:\n      \
         - {{name: roce, priority: 3, dscp: [26], lossless: true}}\nsimulation: {{duration: 1ms}}\nworkloads:\n  \
         flows:\n    - {{name: f, from: host1, to: host2, class: roce, rate: 1G}}\n"
    )
}

#[test]
fn an_adapter_with_billions_of_ports_is_refused_at_its_ports() {
    let e = one_error(&broken("speed: 25G, speeds: [10G]}}", "ports: 2147483647, speed: 25G, speeds: [10G]}}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (7, 96, "fabric.topology.devices[2].nics[0].ports"));
    assert_eq!(e.message, "2147483647 ports on one adapter; rocelab models at most 16 (real adapters have 1 to 4)");
    assert_eq!(e.suggestion.as_deref(), Some("give the adapter's port count, or list several `nics`"));
}

#[test]
fn a_switch_with_more_ports_than_any_chassis_is_refused() {
    let text = broken(
        "{name: sw1, role: switch, platform: nvidia-onyx, model: SN2410}",
        "{name: sw1, role: switch, platform: nvidia-onyx, ports: [{names: eth1/1-4000, speed: 25G}, \
         {names: eth2/1-4000, speed: 25G}, {names: eth3/1-4000, speed: 25G}]}",
    );
    // The second group already takes the switch past the bound (two groups of 4000 were taken
    // whole, 8000 ports, when only the count before a group was compared).
    let e: Vec<_> = errors(&text).into_iter().filter(|e| e.message.contains("4096")).collect();
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(e[0].path, "fabric.topology.devices[0].ports[1]");
    assert_eq!(
        e[0].message,
        "switch `sw1` has more than 4096 ports, the most rocelab models on one switch; links to its ports not \
         listed are not checked until this is fixed"
    );
}

/// A port range over the bound is one error: the links to the ports it would have named are not
/// each reported again (with thousands of links, thousands of errors of one cause).
#[test]
fn a_port_range_over_the_limit_is_one_error_without_a_cascade() {
    let hosts: String = (1..=300)
        .map(|i| format!("      - {{name: h{i}, role: host, os: linux, nic: {{vendor: mellanox, model: ConnectX-5, speed: 100G}}}}\n"))
        .collect();
    let links: String = (1..=300).map(|i| format!("      - {{a: \"sw1:eth1/{i}\", b: \"h{i}:p0\"}}\n")).collect();
    let fabric = |names: &str| {
        format!(
            "fabric:\n  name: r\n  topology:\n    devices:\n      - {{name: sw1, role: switch, platform: nvidia-onyx, \
             ports: [{names}]}}\n{hosts}    links:\n{links}  qos:\n    marking: dscp\n    classes:\n      \
             - {{name: roce, priority: 3, dscp: [26], lossless: true}}\n"
        )
    };
    // With workloads, the hosts whose links were left out are not reported as uncabled either.
    let flows = "simulation: {duration: 1ms}\nworkloads:\n  flows:\n    - {name: f, from: h1, to: h2, class: roce}\n";
    let e = one_error(&format!("{}{flows}", fabric("{names: eth1/1-99999999, speed: 100G}")));
    assert_eq!(e.path, "fabric.topology.devices[0].ports[0].names");
    let e = one_error(&fabric("{names: eth1/1-99999999, speed: 100G}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (5, 74, "fabric.topology.devices[0].ports[0].names"));
    assert_eq!(
        e.message,
        "range `1-99999999` in `eth1/1-99999999` names more than 4096 ports; links to its ports not listed are not \
         checked until this is fixed"
    );
    // Over the bound across groups: the ports up to it are made and their links resolve; the
    // links to the ports past it are not reported again.
    let e = errors(&fabric("{names: eth2/1-4000, speed: 100G}, {names: eth1/1-200, speed: 100G}"));
    let got: Vec<_> = e.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(got, ["fabric.topology.devices[0].ports[1]"], "{e:#?}");
}

#[test]
fn a_fat_tree_too_large_names_k_not_an_overflowed_count() {
    let e = one_error(&generator("fat-tree: {k: 4294967294, host_speed: 100G}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (5, 21, "fabric.topology.generator.fat-tree.k"));
    assert_eq!(
        e.message,
        "k = 4294967294 builds 19807040623954398371368665091 devices (k³/4 hosts and 5k²/4 switches); rocelab \
         builds at most 200000, so k is at most 90"
    );
    let e = one_error(&generator("fat-tree: {k: 5, host_speed: 100G}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (5, 21, "fabric.topology.generator.fat-tree.k"));
    assert_eq!(e.message, "`k` must be an even number of at least 2, not 5");
    // k = 90 is the largest that builds.
    assert!(rocelab_model::fabric::Generator::FatTree(rocelab_model::fabric::FatTree {
        k: 90,
        host_speed: rocelab_model::units::Rate::gbps(100),
        fabric_speed: None,
        host_cable: rocelab_model::units::Length::metres(3),
        fabric_cable: rocelab_model::units::Length::metres(10),
        switch: Default::default(),
        host: Default::default(),
    })
    .check_size()
    .is_ok());
}

#[test]
fn generated_links_are_bounded_at_the_field_that_asks() {
    let e = one_error(&generator(
        "two-switch: {hosts: [2, 2], host_speed: 25G, bottleneck: 100G, bottleneck_links: 4000000000}",
    ));
    assert_eq!(e.path, "fabric.topology.generator.two-switch.bottleneck_links");
    assert_eq!(e.message, "the generator would build 4000000004 links; rocelab builds at most 1000000");
    let e = one_error(&generator(
        "single-switch: {hosts: 2, speed: 25G, targets: {count: 1, ports: 100, protocols: [nvme-rdma]}}",
    ));
    assert_eq!(e.path, "fabric.topology.generator.single-switch.targets.ports");
    assert_eq!(e.message, "100 ports per target; rocelab models at most 16 on one adapter");
}

#[test]
fn zero_speeds_are_refused_where_they_are_written() {
    let e = one_error(&generator(
        "leaf-spine: {leaves: 2, spines: 1, hosts_per_leaf: 2, host_speed: 0G, uplink_speed: 100G}",
    ));
    assert_eq!((e.line, e.column), (5, 73));
    assert_eq!(e.path, "fabric.topology.generator.leaf-spine.host_speed");
    assert_eq!(e.message, "the speed must be above 0 (e.g. `100G`)");
    let e = one_error(&broken("model: ConnectX-5, speed: 25G, speeds: [10G]}}", "model: ConnectX-5, speed: 0G}}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (7, 96, "fabric.topology.devices[2].nics[0].speed"));
    let e = one_error(&broken("speed: 10G, cable: 3m}", "speed: 0G, cable: 3m}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (11, 67, "fabric.topology.links[1].speed"));
}

#[test]
fn zero_rates_and_sizes_of_flows_are_refused_at_load() {
    let e = errors(&with_workloads(
        "  flows:\n    - {name: a, from: node1, to: node2, class: roce, rate: 0G}\n    \
         - {name: b, from: node1, to: node2, class: roce, size: 0B}\n  permutation:\n    \
         - {name: p, hosts: [node1, node2], class: roce, size: 0KB}\n",
    ));
    let got: Vec<_> = e.iter().map(|e| (e.line, e.column, e.path.as_str())).collect();
    assert_eq!(
        got,
        [
            (22, 60, "workloads.flows[0].rate"),
            (23, 60, "workloads.flows[1].size"),
            (25, 59, "workloads.permutation[0].size"),
        ]
    );
    assert_eq!(e[0].message, "the rate must be above 0; give a rate such as `10G`, or `line` for the port's speed");
    assert_eq!(e[1].message, "the size must be above 0 bytes; leave `size` out for a flow that sends until it stops");
}

#[test]
fn an_incast_of_billions_of_rounds_is_counted_not_listed() {
    let e = one_error(&with_workloads(
        "  incast:\n    - {name: i, senders: [node1], receiver: node2, class: roce, size: 1KB, every: 1ns, count: 4000000000}\n",
    ));
    assert_eq!(e.path, "workloads.incast[0].every");
    // 2 ms at 1 ns is 2 million rounds: fewer than `count`, so `every` is the field to change.
    assert_eq!(
        e.message,
        "2000000 rounds of 1 senders are 2000000 flows; rocelab simulates at most 1000000 rounds and 10000000 \
         flows: raise `every` or lower `count`"
    );
}

#[test]
fn iperf_runs_at_most_iperf3s_128_connections() {
    let e = one_error(&with_workloads(
        "  iperf:\n    - {name: x, client: node1, server: node2, class: default, parallel: 1000000}\n",
    ));
    assert_eq!((e.line, e.column, e.path.as_str()), (22, 73, "workloads.iperf[0].parallel"));
    assert_eq!(e.message, "1000000 connections; iperf3 runs at most 128 (`-P`)");
}

#[test]
fn an_empty_sweep_is_an_error_at_its_values() {
    let e = one_error(&format!("{BASE}sweep:\n  field: fabric.qos.mtu\n  values: []\n"));
    assert_eq!((e.line, e.column, e.path.as_str()), (21, 11, "sweep.values"));
    assert_eq!(e.message, "the sweep has no values, so it runs nothing");
    assert_eq!(e.suggestion.as_deref(), Some("give the values, or remove `sweep`"));
}

#[test]
fn a_variant_setting_an_unknown_list_says_unknown_field() {
    let text = with_workloads(
        "  flows:\n    - {name: a, from: node1, to: node2, class: roce}\nvariants:\n  - name: v\n    set:\n      \
         workloads.flow[a].class: default\n",
    );
    let l = load(&text).unwrap();
    let e = l.validate_all();
    let e: Vec<_> = e.errors().collect();
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!((e[0].line, e[0].column), (26, 7));
    assert!(e[0].message.ends_with("cannot set `workloads.flow[a].class`: unknown field `flow`"), "{}", e[0].message);
    assert_eq!(e[0].suggestion.as_deref(), Some("did you mean \"flows\"?"));
}

#[test]
fn a_cdf_file_that_never_ends_is_read_only_to_its_limit() {
    let e = one_error(&with_workloads(
        "  poisson:\n    - {name: bg, class: roce, load: 0.5, cdf: /dev/zero, duration: 1ms}\n",
    ));
    assert_eq!(e.path, "workloads.poisson[0].cdf");
    assert_eq!(
        e.message,
        "cannot read the CDF file: `/dev/zero` goes on past the 1048576 bytes rocelab reads for a CDF file; \
         give the path of the right file"
    );
    let e = load_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert_eq!(
        e.0[0].to_string(),
        "/dev/zero: error: `/dev/zero` goes on past the 16777216 bytes rocelab reads for a fabric file; give \
         the path of the right file"
    );
}

#[test]
fn a_bad_hpcc_topology_line_is_one_error_without_a_cascade() {
    let dir = scratch("hpcc");
    std::fs::write(dir.join("topo.txt"), "3 1 2\n2\n0 2 100Gbpx 1000ns 0\nx y 100Gbps 1000ns 0\n").unwrap();
    std::fs::write(dir.join("flow.txt"), "1\n0 1 3 100 1000 2.0\n").unwrap();
    let text = "fabric:\n  name: h\n  topology:\n    import: {hpcc: topo.txt}\n  qos:\n    marking: dscp\n    \
                classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: true}\nsimulation: {duration: 1ms}\n\
                workloads:\n  hpcc_flows:\n    - {name: t, file: flow.txt}\n  flows:\n    \
                - {name: f, from: h0, to: h1, class: roce}\n";
    let e: Vec<_> = match load_str(text, "s.yaml", &dir) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d.0.into_iter().filter(|d| d.is_error()).collect(),
    };
    let got: Vec<_> = e.iter().map(|d| (d.line, d.column)).collect();
    // One error per bad line (line 4's two bad node ids give one), none about the flows.
    assert_eq!(got, [(3, 5), (4, 1)], "{e:#?}");
    assert!(e.iter().all(|d| d.file.ends_with("topo.txt")), "{e:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_hpcc_topology_over_the_size_limit_is_refused_unread() {
    // A sparse file: past the limit by its length, nothing written or read.
    let dir = scratch("hpcc-big");
    std::fs::File::create(dir.join("topo.txt")).unwrap().set_len(rocelab_model::input::MAX_TRACE_BYTES + 1).unwrap();
    let text = "fabric:\n  name: h\n  topology:\n    import: {hpcc: topo.txt}\n  qos:\n    marking: dscp\n    \
                classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: true}\n";
    let e = match load_str(text, "s.yaml", &dir) {
        Ok(_) => panic!("expected an error"),
        Err(d) => d.0,
    };
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!((e[0].line, e[0].column, e[0].path.as_str()), (4, 20, "fabric.topology.import.hpcc"));
    assert!(
        e[0].message.ends_with(
            "topo.txt` is 536870913 bytes, more than the 536870912 bytes rocelab reads for an HPCC topology file; \
             give the path of the right file"
        ),
        "{}",
        e[0].message
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flows_are_bounded_per_entry_and_for_all_workloads_together() {
    // All-to-all of 4000 hosts is 15 996 000 flows: over the bound alone.
    let text = generator("single-switch: {hosts: 4000, speed: 25G}")
        .replace("  flows:\n", "  all_to_all:\n    - {name: a, hosts: [host1-4000], class: roce}\n  flows:\n");
    let e = one_error(&text);
    assert_eq!((e.line, e.column, e.path.as_str()), (13, 24, "workloads.all_to_all[0].hosts"));
    assert_eq!(
        e.message,
        "all-to-all of 4000 hosts is 15996000 flows; rocelab simulates at most 10000000: list fewer hosts"
    );
    // Two of 2500 hosts are 6 247 500 flows each, under the bound, and too many together.
    let text = generator("single-switch: {hosts: 2500, speed: 25G}").replace(
        "  flows:\n",
        "  all_to_all:\n    - {name: a, hosts: [host1-2500], class: roce}\n    \
         - {name: b, hosts: [host1-2500], class: roce}\n  flows:\n",
    );
    let e = one_error(&text);
    assert_eq!((e.line, e.column, e.path.as_str()), (14, 7, "workloads.all_to_all[1]"));
    assert_eq!(
        e.message,
        "with the workloads before it, this one brings the run to about 12495001 flows; rocelab simulates at most \
         10000000 in one run: split the workloads over variants or runs"
    );
}

/// A link's `delay` stands for its length (5 ns per metre): it has the cable's bound, 5 ms, with
/// the length it would be named.
#[test]
fn a_link_delay_past_the_longest_cable_is_refused_at_its_field() {
    let e = one_error(&broken("speed: 40G, cable: 10m}", "speed: 40G, delay: 18000s}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (12, 73, "fabric.topology.links[2].delay"));
    assert_eq!(
        e.message,
        "a link delay of 18000s is that of a 3600000000 km cable, longer than the longest cable rocelab models: \
         1000 km, 5ms at 5 ns per metre; a fabric's links have delays of nanoseconds to microseconds"
    );
    assert!(load(&broken("speed: 40G, cable: 10m}", "speed: 40G, delay: 5ms}")).is_ok());
}

/// A size without its unit (`kmin: 150`) was read as bytes: it is an error at its field with
/// the readings it may have meant. The fields that are byte counts by definition (frame sizes of
/// the simulation model, perftest's `--size`) still take a bare number as bytes.
#[test]
fn a_size_without_its_unit_is_refused_where_it_is_written() {
    let e = one_error(&broken("ets: 90}", "ets: 90, ecn: {kmin: 150, kmax: 1500KB, pmax: 0.1}}"));
    assert_eq!((e.line, e.column, e.path.as_str()), (17, 72, "fabric.qos.classes[0].ecn.kmin"));
    assert_eq!(
        e.message,
        "`150` has no unit; a size needs one: did you mean `150KB` (150000 bytes), `150KiB` or `150B` (150 bytes)?"
    );
    // Quoted, it is the same number.
    let e = one_error(&broken("ets: 90}", "ets: 90, ecn: {kmin: \"150\", kmax: 1500KB, pmax: 0.1}}"));
    assert_eq!(e.path, "fabric.qos.classes[0].ecn.kmin");
    assert!(load(&broken("ets: 90}", "ets: 90, ecn: {kmin: 150KB, kmax: 1500KB, pmax: 0.1}}")).is_ok());
    let l =
        load(&format!("{BASE}simulation: {{duration: 1ms, model: {{payload: 1000, pfc_frame: \"64\"}}}}\n")).unwrap();
    assert_eq!(
        (l.fabric.sim_model.payload, l.fabric.sim_model.pfc_frame),
        (Some(rocelab_model::units::Size::bytes(1000)), rocelab_model::units::Size::bytes(64))
    );
}

/// `simulation.seeds` is bounded and each seed runs once: a repeat is located at the second
/// occurrence and names the first.
#[test]
fn simulation_seeds_are_bounded_and_unique() {
    let flows = "workloads:\n  flows:\n    - {name: f, from: node1, to: node2, class: roce, rate: 1G}\n";
    let ok = load(&format!("{BASE}simulation: {{duration: 1ms, seeds: [1, 2, 3]}}\n{flows}")).unwrap();
    assert_eq!(ok.scenario.simulation.seeds, vec![1, 2, 3]);
    let e = one_error(&format!("{BASE}simulation: {{duration: 1ms, seeds: [5, 6, 5]}}\n{flows}"));
    assert_eq!(e.path, "simulation.seeds[2]");
    assert_eq!(e.message, "seed 5 is already simulation.seeds[0]; each seed runs once, remove this one");
    assert!(e.line > 0 && e.column > 0, "{e:?}");
    let many: Vec<String> = (0..65).map(|i| i.to_string()).collect();
    let e = one_error(&format!("{BASE}simulation: {{duration: 1ms, seeds: [{}]}}\n{flows}", many.join(", ")));
    assert_eq!(e.path, "simulation.seeds");
    assert_eq!(e.message, "65 seeds, more than the 64 rocelab runs a point under; keep fewer");
}

/// A buffer pool of 0 bytes is refused at its field (an egress lossy pool of 0 would drop every
/// lossy frame in the simulator); a pool larger than the catalog's round buffer figure is not.
#[test]
fn a_buffer_pool_of_zero_bytes_is_refused() {
    let pools = |p: &str| format!("{BASE}    buffer: {{pools: {{{p}}}}}\n");
    let l = load(&pools("egress_lossy: 4MiB, egress_lossless: 16777000B")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.fabric.qos.buffer.egress_lossy_pool(16 << 20), 4 << 20);
    assert_eq!(load(BASE).unwrap().fabric.qos.buffer.egress_lossy_pool(16 << 20), (16 << 20) / 3);
    for name in ["ingress_lossless", "ingress_lossy", "egress_lossless", "egress_lossy"] {
        let e = one_error(&pools(&format!("{name}: 0B")));
        assert_eq!(e.path, format!("fabric.qos.buffer.pools.{name}"));
        assert_eq!(e.message, format!("the {name} pool is 0 bytes"));
        assert_eq!(e.line, 19, "the `buffer:` line after BASE");
        assert_eq!(e.expected.as_deref(), Some("a size above 0, such as 4MiB"));
        assert_eq!(e.suggestion.as_deref(), Some("leave it out to have it derived from the switch buffer"));
    }
}
