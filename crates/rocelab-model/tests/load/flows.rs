//! Flow workloads: Poisson arrivals with a flow-size CDF (inline or from a file), repeated
//! incasts, and flows imported from HPCC flow files; and their bad input, each error located
//! in the scenario or in the file it comes from.

use super::{errors, load, workspace, BASE};
use rocelab_model::units::Time;
use rocelab_model::{load_str, Diagnostic, Severity};
use std::path::PathBuf;

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocelab-flows-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn with_workloads(w: &str) -> String {
    format!("{BASE}simulation: {{duration: 2ms}}\nworkloads:\n{w}")
}

#[test]
fn poisson_with_an_inline_cdf_loads() {
    let l = load(&with_workloads(
        "  poisson:\n    - {name: bg, class: roce, load: 0.3, cdf: [[0, 0], [10KB, 50], [100000, 100]]}\n",
    ))
    .unwrap();
    let p = &l.scenario.workloads.poisson[0];
    let cdf = p.distribution.as_ref().expect("read at load");
    // Half uniform on [0, 10 KB] (mean 5 KB), half on [10 KB, 100 KB] (mean 55 KB).
    assert_eq!(cdf.mean(), 30_000.0);
    assert_eq!(p.end(&l.scenario.simulation), Time::ms(2));
}

#[test]
fn poisson_reads_a_cdf_file_relative_to_the_scenario() {
    let dir = scratch("cdf");
    std::fs::write(dir.join("sizes.txt"), "0 0\n1000 50\n3000 100\n").unwrap();
    let text = with_workloads("  poisson:\n    - {name: bg, class: roce, load: 0.5, cdf: sizes.txt, duration: 1ms}\n");
    let l = load_str(&text, "t.yaml", &dir).unwrap();
    assert_eq!(l.scenario.workloads.poisson[0].distribution.as_ref().unwrap().mean(), 1250.0);
    // A missing file is reported at the field.
    let e = load_str(&text.replace("sizes.txt", "nope.txt"), "t.yaml", &dir).unwrap_err();
    let d = e.errors().next().unwrap();
    assert_eq!(d.path, "workloads.poisson[0].cdf");
    assert!(d.message.contains("cannot read the CDF file"), "{d}");
}

fn file_errors(dir: &std::path::Path, text: &str) -> Vec<Diagnostic> {
    load_str(text, "t.yaml", dir).unwrap_err().0.into_iter().filter(Diagnostic::is_error).collect()
}

#[test]
fn malformed_cdf_files_are_located_in_the_file() {
    let dir = scratch("bad-cdf");
    let text = with_workloads("  poisson:\n    - {name: bg, class: roce, load: 0.5, cdf: bad.txt}\n");
    let cases: [(&str, (usize, usize), &str); 4] = [
        // Sizes going down.
        ("0 0\n5000 40\n4000 60\n9000 100\n", (3, 1), "sizes must strictly increase"),
        // Not ending at 100 %.
        ("0 0\n5000 40\n9000 99.5\n", (3, 6), "ends at 100"),
        // A negative size.
        ("0 0\n-10 40\n9000 100\n", (2, 1), "negative"),
        // Not a number.
        ("0 0\n5000 forty\n9000 100\n", (2, 6), "not a number"),
    ];
    for (content, at, what) in cases {
        std::fs::write(dir.join("bad.txt"), content).unwrap();
        let e = file_errors(&dir, &text);
        let d = e.iter().find(|d| d.message.contains(what)).unwrap_or_else(|| panic!("{what}: {e:#?}"));
        assert!(d.file.ends_with("bad.txt"), "{d}");
        assert_eq!((d.line, d.column), at, "{d}");
        assert_eq!(d.path, "workloads.poisson[0].cdf");
    }
}

#[test]
fn malformed_inline_cdfs_are_located_in_the_scenario() {
    let e = errors(&with_workloads(
        "  poisson:\n    - name: bg\n      class: roce\n      load: 0.5\n      cdf:\n        - [0, 0]\n        - [-5, 30]\n        - [2000, 20]\n",
    ));
    let got: Vec<(&str, usize)> = e.iter().map(|d| (d.path.as_str(), d.line)).collect();
    assert_eq!(
        got,
        [
            ("workloads.poisson[0].cdf[1][0]", 27),
            ("workloads.poisson[0].cdf[2][1]", 28),
            ("workloads.poisson[0].cdf[2][1]", 28)
        ],
        "{e:#?}"
    );
    assert!(e[0].message.contains("negative"));
    assert!(e[1].message.contains("strictly increase") || e[2].message.contains("strictly increase"));
    assert!(e.iter().any(|d| d.message.contains("ends at 100")), "{e:#?}");
}

#[test]
fn load_must_be_above_0_and_at_most_1() {
    for bad in ["0", "-0.1", "1.5"] {
        let e = errors(&with_workloads(&format!(
            "  poisson:\n    - {{name: bg, class: roce, load: {bad}, cdf: [[0, 0], [100, 100]]}}\n"
        )));
        assert_eq!(e.len(), 1, "{e:#?}");
        assert_eq!((e[0].path.as_str(), e[0].line), ("workloads.poisson[0].load", 22));
        assert!(e[0].message.contains("above 0 and at most 1"), "{}", e[0].message);
    }
    let e =
        errors(&with_workloads("  poisson:\n    - {name: bg, class: roce, laod: 0.3, cdf: [[0, 0], [100, 100]]}\n"));
    assert!(e.iter().any(|d| d.suggestion.as_deref() == Some("did you mean \"load\"?")), "{e:#?}");
    let e = errors(&with_workloads(
        "  poisson:\n    - {name: bg, hosts: [node1], class: rocee, load: 0.3, cdf: [[0, 0], [100, 100]]}\n",
    ));
    let got: Vec<&str> = e.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(got, ["Poisson arrivals need at least two hosts", "no class `rocee`"]);
    // Too many flows for memory is refused before the run.
    // 35 Gb/s of 1.5-byte flows for 10 ms: 29 million flows.
    let e = errors(
        &with_workloads("  poisson:\n    - {name: bg, class: roce, load: 1, cdf: [[1, 0], [2, 100]]}\n")
            .replace("duration: 2ms", "duration: 10ms"),
    );
    assert!(e[0].message.contains("flows would arrive"), "{e:#?}");
}

#[test]
fn incasts_repeat_every_period() {
    let l = load(&with_workloads(
        "  incast:\n    - {name: in, senders: [node1], receiver: node2, class: roce, size: 500KB, start: 100us, every: 500us}\n    - {name: two, senders: [node2], receiver: node1, class: roce, size: 1KB, every: 100us, count: 2}\n",
    ))
    .unwrap();
    let sim = &l.scenario.simulation;
    let r = l.scenario.workloads.incast[0].rounds(sim);
    assert_eq!(r, [Time::us(100), Time::us(600), Time::us(1100), Time::us(1600)]);
    assert_eq!(l.scenario.workloads.incast[1].rounds(sim), [Time::ZERO, Time::us(100)]);
    let e = errors(&with_workloads(
        "  incast:\n    - {name: in, senders: [node1], receiver: node2, class: roce, every: 500us}\n    - {name: two, senders: [node2], receiver: node1, class: roce, size: 1KB, count: 2}\n",
    ));
    let got: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(got, ["workloads.incast[0].every", "workloads.incast[1].count"]);
    assert!(e[0].message.contains("needs `size`"));
}

/// The HPCC formats directory: `$ROCELAB_HPCC_DATA`, else the one beside the repository.
fn hpcc_data() -> Option<PathBuf> {
    let dir = std::env::var_os("ROCELAB_HPCC_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/data/hpcc-formats"));
    if dir.join("flow.txt").exists() && dir.join("topology.txt").exists() {
        Some(dir)
    } else {
        super::skipped(&format!("{} not present: the HPCC flow import is tested on inline files only", dir.display()));
        None
    }
}

const HPCC_SCENARIO: &str = "fabric:\n  name: h\n  topology:\n    import: {hpcc: topology.txt}\n  qos:\n    marking: dscp\n    classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: true}\n      - {name: default, priority: 0, dscp: [0]}\nsimulation: {duration: 10ms}\n";

#[test]
fn hpcc_flow_file_imports_as_it_is() {
    let Some(dir) = hpcc_data() else { return };
    let text = format!("{HPCC_SCENARIO}workloads:\n  hpcc_flows:\n    - {{name: trace, file: flow.txt, start: 0s}}\n");
    let l = load_str(&text, "t.yaml", &dir).unwrap_or_else(|e| panic!("{e}"));
    let w = &l.scenario.workloads.hpcc_flows[0];
    // The first line declares 2 flows: like the HPCC simulator, the import reads two and
    // ignores the rest of the file, with a warning in the flow file.
    assert_eq!(w.flows.len(), 2);
    let name = |i: usize| l.fabric.devices[i].name.as_str();
    let f: Vec<_> = w.flows.iter().map(|f| (name(f.src), name(f.dst), f.size, f.dport, f.start)).collect();
    assert_eq!(f, [("h2", "h1", 200_000_000, 100, Time::ZERO), ("h3", "h1", 200_000_000, 100, Time::ZERO)]);
    assert!(w.flows.iter().all(|f| l.fabric.qos.classes[f.class].name == "roce"), "priority 3 is roce");
    let ignored: Vec<&Diagnostic> = l.warnings.iter().filter(|d| d.file.ends_with("flow.txt")).collect();
    assert_eq!(ignored.len(), 1, "{:?}", l.warnings);
    assert_eq!((ignored[0].line, ignored[0].severity), (4, Severity::Warning));
    // Without the shift the flows start at 2 s, after a 10 ms run: refused with a hint.
    let e = load_str(&text.replace(", start: 0s", ""), "t.yaml", &dir).unwrap_err();
    let d = e.errors().next().unwrap();
    assert_eq!(d.path, "workloads.hpcc_flows[0].file");
    assert!(d.message.contains("set `start: 0`"), "{d}");
}

#[test]
fn bad_flow_files_are_located_in_the_file() {
    let dir = scratch("bad-flows");
    std::fs::write(dir.join("topo.txt"), "4 1 3\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n")
        .unwrap();
    let scenario = HPCC_SCENARIO.replace("topology.txt", "topo.txt")
        + "workloads:\n  hpcc_flows:\n    - {name: trace, file: flows.txt}\n";
    let cases: [(&str, (usize, usize), &str); 5] = [
        ("1\n0 3 3 100 1000 0\n", (2, 3), "node 3 is a switch"),
        ("1\n0 9 3 100 1000 0\n", (2, 3), "node 9 is not in the topology (its node ids run from 0 to 3)"),
        ("1\n0 1 5 100 1000 0\n", (2, 5), "no class of the fabric has priority 5"),
        ("1\n0 1 3 100 1000 soon\n", (2, 16), "`soon` is not a start time"),
        ("2\n0 1 3 100 1000 0\n", (2, 17), "the first line says 2 flows, the file has 1"),
    ];
    for (content, at, what) in cases {
        std::fs::write(dir.join("flows.txt"), content).unwrap();
        let e = file_errors(&dir, &scenario);
        assert_eq!(e.len(), 1, "{what}: {e:#?}");
        assert!(e[0].message.contains(what), "{what}: {}", e[0]);
        assert!(e[0].file.ends_with("flows.txt"), "{}", e[0]);
        assert_eq!((e[0].line, e[0].column), at, "{what}");
        assert_eq!(e[0].path, "workloads.hpcc_flows[0].file");
    }
    // A class for every flow overrides the priority column.
    std::fs::write(dir.join("flows.txt"), "1\n0 1 5 100 1000 0\n").unwrap();
    // Node ids need an imported HPCC topology: said once, at the field.
    let e = file_errors(&dir, &format!("{BASE}workloads:\n  hpcc_flows:\n    - {{name: trace, file: flows.txt}}\n"));
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].message.contains("no HPCC-numbered hosts"), "{}", e[0]);
    let l = load_str(&scenario.replace("file: flows.txt", "file: flows.txt, class: default"), "t.yaml", &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.scenario.workloads.hpcc_flows[0].flows[0].class, 1);
    let e = file_errors(&dir, &scenario.replace("file: flows.txt", "file: flows.txt, class: rdma"));
    assert_eq!((e[0].path.as_str(), e[0].message.as_str()), ("workloads.hpcc_flows[0].class", "no class `rdma`"));
}
