//! Flow workloads: the standalone FCT against the engine's FCT of a flow alone, slowdowns of a
//! loaded scenario, the Poisson generator's statistics on the published CDFs (read in place
//! from the HPCC formats directory when present), and the `fct.txt` format.

use super::run_checked;
use rocelab_model::cdf::FlowSizeCdf;
use rocelab_sim::fct::{standalone_fct_ps, Completion, Paths};
use rocelab_sim::topology::{leaf_spine, single_switch, FabricDefaults, LeafSpine, NetworkBuilder};
use rocelab_sim::*;
use std::path::{Path, PathBuf};

const G25: u64 = 25_000_000_000;
const G100: u64 = 100_000_000_000;

/// Networks whose paths differ in shape: one switch; 25G hosts under 100G uplinks with a
/// switch latency; a 100G sender into a 25G receiver; a receiver whose host drain (PCIe) is
/// slower than its link.
fn networks() -> Vec<(&'static str, NetworkSpec, NodeId, NodeId)> {
    let d = FabricDefaults::lossless(3, 100_000);
    let mut out = Vec::new();
    let f = single_switch(2, G100, 100 * NS, &d);
    out.push(("one switch", f.spec, f.hosts[0], f.hosts[1]));
    let mut dl = d.clone();
    dl.switch.latency_ps = 300 * NS;
    let shape = LeafSpine {
        leaves: 2,
        spines: 2,
        hosts_per_leaf: 2,
        host_rate_bps: G25,
        fabric_rate_bps: G100,
        host_delay_ps: 15 * NS,
        fabric_delay_ps: 500 * NS,
    };
    let f = leaf_spine(&shape, &dl);
    out.push(("leaf-spine 25G/100G", f.spec, f.hosts[0], f.hosts[3]));
    let mut b = NetworkBuilder::new();
    let a = b.add_host("a", d.host.clone(), d.host_port);
    let z = b.add_host("z", d.host.clone(), d.host_port);
    let sw = b.add_switch("sw", d.switch.clone(), d.switch_port);
    b.connect(a, sw, G100, 1000 * NS);
    b.connect(z, sw, G25, 1000 * NS);
    out.push(("100G into 25G", b.build().spec, a, z));
    let mut dd = d.clone();
    dd.host.rx.drain_bps = Some(50_000_000_000);
    dd.host.latency_ps = 200 * NS;
    let f = single_switch(2, G100, 100 * NS, &dd);
    out.push(("host drain 50G", f.spec, f.hosts[0], f.hosts[1]));
    out
}

/// The standalone FCT is what the engine gives a flow alone, for sizes around the packet
/// boundaries and large ones, tagged and untagged: never above it, and below it by less than
/// one frame's serialization at the slowest hop (the engine rounds each frame's time up; the
/// formula bounds the pipeline by its bottleneck).
#[test]
fn standalone_fct_is_the_engines_fct_alone() {
    for (name, spec, src, dst) in networks() {
        for tagged in [true, false] {
            for size in [1u64, 60, 1000, 1024, 1025, 4096, 10_000, 100_000, 1_000_000] {
                let mut flow = FlowSpec::sized(src, dst, FlowClass { tagged, ..FlowClass::roce(3, 26) }, size);
                flow.start_ps = 3 * NS;
                let mut t = Traffic::new();
                t.push(flow);
                let r = run_checked(&spec, &t, &SimConfig::new(1, 2 * MS));
                let fct = r.flows[0].fct_ps.expect("a flow alone completes");
                let report = r.fct.as_ref().expect("a sized flow has an FCT report");
                let alone = report.flows[0].standalone_fct_ps;
                let hops = Paths::new(&spec).hops(src, dst).unwrap();
                assert_eq!(alone, standalone_fct_ps(&hops, &flow, Completion::LastByteDelivered).unwrap());
                let slowest = hops.iter().map(|h| h.rate_bps).min().unwrap();
                let frame = flow.frame_bytes() as u64 + 20;
                let slack = frame * 8 * SECOND / slowest;
                assert!(alone <= fct, "{name}, {size} B, tagged {tagged}: standalone {alone} > engine {fct}");
                assert!(
                    fct - alone <= slack,
                    "{name}, {size} B, tagged {tagged}: engine {fct}, standalone {alone}, more than {slack} apart"
                );
                assert!(report.flows[0].slowdown.unwrap() >= 1.0);
            }
        }
    }
}

/// Where the HPCC formats are: `$ROCELAB_HPCC_DATA`, or `shared/data/hpcc-formats` in an
/// ancestor of this crate.
fn hpcc_data() -> Option<PathBuf> {
    let found = rocelab_sim::bench::hpcc_data_dir(Path::new(env!("CARGO_MANIFEST_DIR")));
    if found.is_none() {
        // Past libtest's capture, so that the skip shows in the test output.
        let test = std::thread::current().name().unwrap_or("a test").to_string();
        let why = "no HPCC formats directory (set ROCELAB_HPCC_DATA): the published CDFs are not tested";
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(format!("SKIPPED {test}: {why}\n").as_bytes());
    }
    found
}

/// Mean and second moment of a piecewise-linear CDF (uniform inside each segment).
fn moments(c: &FlowSizeCdf) -> (f64, f64) {
    let p = c.points();
    let m2: f64 =
        p.windows(2).map(|w| (w[0].0 * w[0].0 + w[0].0 * w[1].0 + w[1].0 * w[1].0) / 3.0 * (w[1].1 - w[0].1)).sum();
    (c.mean(), m2 / 100.0)
}

/// The sampled mean of each published CDF is its mean within four standard errors (from the
/// CDF's own variance), and the Poisson generator offers the load it is given within four
/// standard deviations of a compound Poisson total, on every distribution.
#[test]
fn generator_statistics_on_the_published_cdfs() {
    let Some(dir) = hpcc_data() else { return };
    for file in ["WebSearch_distribution.txt", "FbHdp_distribution.txt", "AliStorage2019.txt", "GoogleRPC2008.txt"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let cdf = FlowSizeCdf::parse(&text).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let (mean, m2) = moments(&cdf);
        let cv2 = m2 / (mean * mean) - 1.0;
        // Sizes through the generator's own inverse-CDF sampling, on evenly spread variates
        // shuffled by the simulator's generator.
        let n = 400_000;
        let mut rng = rocelab_sim::rng::Rng::new(11);
        let sampled = (0..n).map(|_| cdf.sample(rng.next_f64()) as f64).sum::<f64>() / n as f64;
        // Sizes are truncated to whole bytes: half a byte below the mean on average.
        let tol = 4.0 * (cv2 / n as f64).sqrt() * mean + 0.5;
        assert!((sampled - mean).abs() < tol, "{file}: sampled mean {sampled}, CDF mean {mean}, tolerance {tol}");

        // Offered load: 32 hosts at 100G, 30 %, long enough for about 60,000 flows.
        let hosts: Vec<NodeId> = (0..32).collect();
        let rates = vec![G100; 32];
        let per_host = 0.3 * G100 as f64 / 8.0 / mean; // flows per second
        let window = 60_000.0 / (per_host * 32.0);
        let end = (window * SECOND as f64) as Time;
        let a = PoissonArrivals {
            hosts: &hosts,
            host_rate_bps: &rates,
            sizes: &cdf,
            load: 0.3,
            start_ps: 0,
            end_ps: end,
            seed: 5,
        };
        let mut t = Traffic::new();
        t.poisson(&a, &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 1));
        let bytes: u64 = t.flows.iter().map(|f| f.size_bytes.unwrap()).sum();
        let offered = bytes as f64 * 8.0 / (32.0 * G100 as f64 * end as f64 / SECOND as f64);
        let tol = 4.0 * ((1.0 + cv2) / 60_000.0).sqrt();
        assert!((offered / 0.3 - 1.0).abs() < tol, "{file}: offered {offered}, tolerance {tol}");
        // Seeded: the same seed gives the same flows.
        let mut again = Traffic::new();
        again.poisson(&a, &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 1));
        assert_eq!(again, t);
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load_and_run(file: &str) -> (rocelab_sim::from_model::Built, Results) {
    let l = rocelab_model::load_file(&workspace().join(file)).unwrap_or_else(|e| panic!("{e}"));
    let b = rocelab_sim::from_model::build(&l.scenario, &l.fabric, crate::example_seed());
    let r = run_checked(&b.spec, &b.traffic, &b.config);
    (b, r)
}

/// Under load (Poisson storage mix at 40 % plus repeated 8:1 incasts, PFC and ECN at work)
/// every completed flow is at least as slow as alone, and the buckets add up.
#[test]
fn slowdowns_of_a_loaded_fabric_are_at_least_one() {
    let (b, r) = load_and_run("examples/sim-flows-leaf-spine.yaml");
    let fct = r.fct.as_ref().unwrap();
    let sized = b.traffic.flows.iter().filter(|f| f.size_bytes.is_some()).count();
    assert_eq!(fct.flows.len(), sized);
    assert!(sized > 1000, "{sized} flows");
    let done: Vec<f64> = fct.flows.iter().filter_map(|f| f.slowdown).collect();
    assert!(done.len() as f64 > 0.9 * sized as f64);
    assert!(done.iter().all(|&s| s >= 1.0), "min {:?}", done.iter().cloned().fold(f64::INFINITY, f64::min));
    assert!(done.iter().any(|&s| s > 10.0), "the incasts and PFC slow some flows down");
    let pause: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert!(pause > 0);
    let per_bucket: u64 = fct.buckets.iter().map(|b| b.flows).sum();
    assert_eq!(per_bucket, fct.overall.flows);
    assert_eq!(fct.overall.completed as usize, done.len());
}

/// `fct.txt` as the HPCC simulator writes it, for the HPCC-format example (a golden file).
#[test]
fn fct_txt_is_in_the_hpcc_format() {
    let (b, r) = load_and_run("examples/hpcc-import/sim.yaml");
    let text = r.fct.as_ref().unwrap().hpcc_fct_txt(&b.traffic, |i| b.names.dport(i));
    insta::assert_snapshot!("hpcc_import_fct_txt", text);
    for line in text.lines() {
        let cols: Vec<&str> = line.split(' ').collect();
        assert_eq!(cols.len(), 8, "{line}");
        assert!(cols[..2].iter().all(|ip| ip.len() == 8 && u32::from_str_radix(ip, 16).is_ok()), "{line}");
        let n: Vec<u64> = cols[2..].iter().map(|c| c.parse().unwrap()).collect();
        // The flows are RDMA WRITEs, complete at the last ACK, and the standalone time is HPCC's
        // formula, which charges a full packet's serialization per hop for the round trip where
        // the ACK is 70 bytes: a flow alone can beat it by a fraction of a percent (1% allowed).
        assert!(n[4] as f64 >= 0.99 * n[5] as f64, "fct below standalone: {line}");
    }
}

/// Guard for engine optimisations on the flow benchmark: the web-search + incasts
/// fat tree with RC queue pairs and DCQCN (`engine_bench websearch-rdma`, the first 300 µs)
/// gives exactly the recorded results (see `engine_results_match_the_golden_digests`). Reads
/// `fat.txt` and the web-search CDF in place; skipped without them.
#[test]
fn websearch_rdma_matches_its_golden_digest() {
    let Some(dir) = hpcc_data() else { return };
    let topo = std::fs::read_to_string(dir.join("fat.txt")).unwrap();
    let cdf = FlowSizeCdf::parse(&std::fs::read_to_string(dir.join("WebSearch_distribution.txt")).unwrap()).unwrap();
    let mut f = rocelab_sim::topology::parse_hpcc_topology(&topo, &rocelab_sim::bench::fat_tree_defaults()).unwrap();
    let mut t = rocelab_sim::bench::fat_tree_websearch(&f, &cdf, 1);
    rocelab_sim::bench::with_rdma(&mut f.spec, &mut t, 1024);
    let r = run_checked(&f.spec, &t, &SimConfig::new(1, 300 * US));
    insta::assert_snapshot!(super::golden_line("websearch-30pct-incasts-rdma-dcqcn 300us", &r));
}

/// A queue pair without a window, alone on the empty 320-host fat tree (the HPCC simulator's
/// `fat.txt`: 100G host links, 400G between switches, 1 µs per link), reaches its standalone
/// completion time within 2 % across pods: nothing but its rate limiter holds it back (with the
/// 128-packet window the model had before, a flow across pods reached 76 Gb/s of 100). Both
/// simulator models, each with its framing. Reads `fat.txt` in place; skipped without it.
#[test]
fn an_unwindowed_flow_alone_across_pods_reaches_its_standalone_fct() {
    let Some(dir) = hpcc_data() else { return };
    for model in ["hardware", "hpcc-compat"] {
        let yaml = format!(
            "fabric:\n  name: fat-one-flow\n  topology:\n    import: {{hpcc: {fat}}}\n  qos:\n    marking: dscp\n    \
             classes:\n      - {{name: roce, priority: 3, dscp: [26], lossless: true}}\n      - {{name: default, \
             priority: 0, dscp: [0]}}\nsimulation:\n  duration: 3ms\n  nic_profile: ideal\n  model: {{profile: \
             {model}}}\nworkloads:\n  flows:\n    - {{name: across, from: h0, to: h319, size: 10MB, class: roce}}\n",
            fat = dir.join("fat.txt").display()
        );
        let l = rocelab_model::load_str(&yaml, "fat-one-flow.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let b = rocelab_sim::from_model::build(&l.scenario, &l.fabric, None);
        let r = run_checked(&b.spec, &b.traffic, &b.config);
        let f = &r.fct.as_ref().unwrap().flows[0];
        let slowdown = f.slowdown.expect("the flow completes");
        // HPCC's standalone formula is not a strict lower bound (see `rocelab_sim::fct`): 2 % either way.
        assert!((0.98..=1.02).contains(&slowdown), "{model}: slowdown {slowdown}, fct {:?}", f.fct_ps);
        // Across pods: h0's ToR, an aggregation switch, a core, and down again (6 links).
        let hops = rocelab_sim::fct::Paths::new(&b.spec).hops(b.traffic.flows[0].src, b.traffic.flows[0].dst).unwrap();
        assert_eq!(hops.len(), 6, "{model}");
    }
}

/// `stop_when_done`: the run ends at the instant the last sized flow completes, with the same
/// results up to it as the run that goes on to `simulation.duration` (the events of that last
/// instant included, none after it).
#[test]
fn a_run_that_stops_when_done_ends_at_the_last_completion() {
    let yaml = "fabric:\n  name: stop\n  topology:\n    generator:\n      leaf-spine: {leaves: 1, spines: 1, \
                hosts_per_leaf: 4, host_speed: 100G, uplink_speed: 100G, host_cable: 3m, fabric_cable: 3m}\n  \
                qos:\n    marking: dscp\n    classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: \
                true}\n      - {name: default, priority: 0, dscp: [0]}\nsimulation:\n  duration: 5ms\n  \
                sample_interval: 10us\nworkloads:\n  incast:\n    - {name: in, senders: [host2-4], receiver: host1, \
                class: roce, size: 300KB}\n";
    let l = rocelab_model::load_str(yaml, "stop.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let b = rocelab_sim::from_model::build(&l.scenario, &l.fabric, None);
    let full = run_checked(&b.spec, &b.traffic, &b.config);
    let mut config = b.config;
    config.stop_when_done = true;
    let stopped = run_checked(&b.spec, &b.traffic, &config);
    let completions = |r: &Results| -> Vec<Time> {
        r.fct.as_ref().unwrap().flows.iter().map(|f| f.start_ps + f.fct_ps.expect("completes")).collect()
    };
    assert_eq!(completions(&stopped), completions(&full));
    assert_eq!(full.end_time_ps, 5 * MS);
    assert_eq!(stopped.end_time_ps, completions(&full).into_iter().max().unwrap());
    assert!(stopped.end_time_ps < MS && stopped.events < full.events, "{} {}", stopped.events, full.events);
}
