//! `sim --all` under several seeds: `simulation.seeds` or `--seeds N` runs every point once per
//! seed into `.../seed=<S>/`, `index.json` lists each run with its seed, and the report adds the
//! spread over seeds; without seeds the folders and files are those of a single-seed run.

use super::{fresh_dir, rocelab, text};
use std::path::Path;

/// An 2:1 incast with ECN on the lossless class (random marking between kmin and kmax, drawn from
/// the run's seed), a variant without ECN and a two-point sweep of the MTU.
const SCENARIO: &str = r#"fabric:
  name: seeds
  topology:
    generator:
      leaf-spine: {leaves: 1, spines: 1, hosts_per_leaf: 3, host_speed: 25G, uplink_speed: 100G}
  qos:
    marking: dscp
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90, ecn: {kmin: 5KB, kmax: 200KB, pmax: 0.5}}
      - {name: default, priority: 0, dscp: [0], ets: 10}
simulation: {duration: 300us, sample_interval: 10us}
workloads:
  incast:
    - {name: incast, senders: [host1-2], receiver: host3, class: roce}
variants:
  - name: no-ecn
    set:
      fabric.qos.classes[roce].ecn: null
sweep: {field: fabric.qos.mtu, values: [1500, 9000]}
"#;

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

fn write_scenario(dir: &Path, seeds: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("seeds.yaml");
    let text = SCENARIO.replace("sample_interval: 10us}", &format!("sample_interval: 10us{seeds}}}"));
    std::fs::write(&file, text).unwrap();
    file.to_string_lossy().into_owned()
}

#[test]
fn seeds_in_the_file_run_every_point_under_each_and_the_report_shows_the_spread() {
    let dir = fresh_dir("sim-seeds-file");
    let file = write_scenario(&dir, ", seeds: [3, 4, 5]");
    let out_dir = dir.join("out");
    let out = rocelab(&["sim", &file, "--all", "--quiet", "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wrote 12 runs"), "{}", text(&out.stdout));
    let index = json(&out_dir.join("index.json"));
    let runs = index["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 12);
    // Every variant and point, under each seed in the file's order, each in its own folder.
    assert_eq!(runs[0]["label"], "base @ 1500 seed 3");
    assert_eq!(runs[0]["results"], "runs/base/fabric.qos.mtu=1500/seed=3/results.json");
    assert_eq!(runs[11]["label"], "no-ecn @ 9000 seed 5");
    let seeds: Vec<u64> = runs.iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [3, 4, 5].repeat(4));
    for r in runs {
        let results = json(&out_dir.join(r["results"].as_str().unwrap()));
        assert_eq!(results["results"]["seed"], r["seed"], "{}", r["label"]);
        assert_eq!(results["seeded"], true);
    }
    // The seeds move the ECN marks of the base scenario; the spread table has one row per point.
    let spread = std::fs::read_to_string(out_dir.join("spread.csv")).unwrap();
    let rows: Vec<&str> = spread.lines().collect();
    assert_eq!(rows.len(), 5, "{spread}");
    assert!(rows[1].starts_with("base @ 1500,,fabric.qos.mtu,1500,3,3 4 5,"), "{spread}");
    let marks = |label: &str| -> Vec<u64> {
        let path = |s: u64| out_dir.join(format!("runs/base/fabric.qos.mtu={label}/seed={s}/results.json"));
        [3, 4, 5]
            .iter()
            .map(|&s| {
                let r = json(&path(s));
                let ports = r["results"]["ports"].as_array().unwrap().iter();
                ports.flat_map(|p| p["priorities"].as_array().unwrap()).map(|c| c["ecn_marked"].as_u64().unwrap()).sum()
            })
            .collect()
    };
    let m = marks("9000");
    assert!(m.iter().any(|&x| x != m[0]), "the seeds gave the same ECN marks {m:?}");
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("Spread over seeds"));
}

#[test]
fn seeds_on_the_command_line_start_at_seed_and_a_run_without_seeds_is_unchanged() {
    let dir = fresh_dir("sim-seeds-flag");
    let file = write_scenario(&dir, "");
    let plain = dir.join("plain");
    let out = rocelab(&["sim", &file, "--all", "--quiet", "--out", plain.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Without seeds: the folders, index and results of a single-seed run, no spread table.
    let index = std::fs::read_to_string(plain.join("index.json")).unwrap();
    assert!(!index.contains("\"seed\":") && !index.contains("seed="), "{index}");
    assert!(plain.join("runs/base/fabric.qos.mtu=1500/results.json").is_file());
    assert!(!plain.join("spread.csv").exists());
    let single = std::fs::read_to_string(plain.join("runs/base/fabric.qos.mtu=1500/results.json")).unwrap();
    assert!(!single.contains("\"seeded\""));
    // --seeds 2 --seed 1: seeds 1 and 2; seed 1's run is the run without seeds (simulation.seed 1).
    let seeded = dir.join("seeded");
    let out =
        rocelab(&["sim", &file, "--all", "--quiet", "--seeds", "2", "--seed", "1", "--out", seeded.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let index = json(&seeded.join("index.json"));
    let seeds: Vec<u64> = index["runs"].as_array().unwrap().iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [1, 2].repeat(4));
    let mut one = json(&seeded.join("runs/base/fabric.qos.mtu=1500/seed=1/results.json"));
    one.as_object_mut().unwrap().remove("seeded");
    let single: serde_json::Value = serde_json::from_str(&single).unwrap();
    assert_eq!(one, single, "seed 1 among several differs from the single-seed run");
    // --seeds is bounded and needs --all.
    let out = rocelab(&["sim", &file, "--all", "--seeds", "65", "--out", seeded.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("65 is not in 1..=64"), "{}", text(&out.stderr));
    let out = rocelab(&["sim", &file, "--seeds", "2"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--all"), "{}", text(&out.stderr));
}
