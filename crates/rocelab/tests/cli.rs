//! The `rocelab` command as a user runs it: exit codes, what goes to stdout and stderr, and the
//! readable summary of the built-in example (a golden file reviewed as text).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "cli/audit.rs"]
mod audit;
#[path = "cli/audit_formats.rs"]
mod audit_formats;
#[path = "cli/audit_intent.rs"]
mod audit_intent;
#[path = "cli/bad_files.rs"]
mod bad_files;
#[path = "cli/bounds.rs"]
mod bounds;
#[path = "cli/check_findings.rs"]
mod check_findings;
#[path = "cli/config_check.rs"]
mod config_check;
#[path = "cli/device_outputs.rs"]
mod device_outputs;
#[cfg(unix)]
#[path = "cli/fuzz.rs"]
mod fuzz;
#[path = "cli/hpcc_reference.rs"]
mod hpcc_reference;
#[path = "cli/names.rs"]
mod names;
#[path = "cli/output_paths.rs"]
mod output_paths;
#[path = "cli/ray.rs"]
mod ray;
#[path = "cli/seeds.rs"]
mod seeds;
#[path = "cli/threads.rs"]
mod threads;

fn rocelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocelab")).args(args).current_dir(workspace()).output().expect("runs rocelab")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn show_prints_the_builtin_example() {
    let out = rocelab(&["show"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    insta::assert_snapshot!("show_default", text(&out.stdout));
}

#[test]
fn show_with_a_variant_and_as_json() {
    let out = rocelab(&[
        "show",
        "examples/demartek-config4-two-switch.yaml",
        "--variant",
        "congestion-dcqcn-ets",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["qos"]["dcqcn"]["enabled"], true);
    assert_eq!(v["links"].as_array().unwrap().len(), 7);
    // The simulation model and every RDMA host's transport, each value with its source.
    assert_eq!(v["sim_model"]["profile"], "hardware");
    assert_eq!(
        v["sim_model"]["sources"]["pause"],
        "hardware profile: pause quanta that expire, refreshed while XOFF holds (IEEE 802.1Qbb)"
    );
    assert_eq!(v["rdma_transport"][0]["hosts"], serde_json::json!(["s2d-node1", "s2d-node2"]));
    assert_eq!(v["rdma_transport"][0]["ack_every"], 16);
    assert_eq!(v["dcqcn"]["rate_increase"], "connectx", "the S2D nodes' ConnectX-5 profile");
    let out = rocelab(&["show", "examples/demartek-config4-two-switch.yaml", "--variant", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no variant `nope`"), "{}", text(&out.stderr));
}

#[test]
fn validate_reports_ok_and_every_error() {
    let out = rocelab(&["validate", "examples/demartek-config4-two-switch.yaml"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("OK examples/demartek-config4-two-switch.yaml"));

    let dir = fresh_dir("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    let good = std::fs::read_to_string(workspace().join("examples/demartek-config4-two-switch.yaml")).unwrap();
    std::fs::write(
        &bad,
        good.replace("priority: 5", "priority: 9")
            .replace("cable: 3m}\n      - {a: \"sn2410:eth1/1\"", "cable: 3meters}\n      - {a: \"sn2410:eth1/1\""),
    )
    .unwrap();
    let out = rocelab(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("bad.yaml:") && err.contains("unknown length unit `meters`"), "{err}");
    assert!(text(&out.stdout).contains("FAILED"), "{}", text(&out.stdout));

    let out = rocelab(&["validate", "--format", "json", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["ok"], false);
    assert!(v[0]["diagnostics"][0]["line"].as_u64().unwrap() > 0);
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let out = rocelab(&["validate", "no/such/file.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("no/such/file.yaml") && err.contains("cannot read the file"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn examples_are_listed_and_printed() {
    let out = rocelab(&["examples"]);
    assert!(text(&out.stdout).contains("demartek-config4-two-switch"));
    let out = rocelab(&["examples", "demartek-config4-two-switch"]);
    assert!(text(&out.stdout).starts_with("# Demartek"));
    let out = rocelab(&["examples", "nope"]);
    assert_eq!(out.status.code(), Some(1), "bad input, as `show --example nope`");
}

#[test]
fn check_exit_codes_and_formats() {
    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/healthy-leaf-spine.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("healthy-leaf-spine.yaml: no findings\n"));

    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/ring-deadlock.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("error   DEADLOCK-CYCLE   s1:p2  [roce (priority 3)]"), "{}", text(&out.stdout));

    // Warnings only: 0, or 1 with --strict.
    let out = rocelab(&["check", "examples/demartek-config4-two-switch.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    let out = rocelab(&["check", "examples/demartek-config4-two-switch.yaml", "--strict"]);
    assert_eq!(out.status.code(), Some(1));

    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/misconfigured.yaml", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.as_array().unwrap().iter().any(|f| f["id"] == "MAP-TOS" && f["device"] == "h1"));

    let out = rocelab(&["check", "crates/rocelab-verify/tests/fabrics/misconfigured.yaml", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert!(!v["runs"][0]["results"].as_array().unwrap().is_empty());
}

#[test]
fn check_imports_running_configs_and_reports_unread_lines() {
    let out = rocelab(&[
        "check",
        "--import",
        "crates/rocelab-verify/tests/fabrics/import",
        "--links",
        "crates/rocelab-verify/tests/fabrics/import-links.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("import/leaf1.cfg:32: not understood: ip routing"), "{err}");
    assert!(text(&out.stdout).contains("PFC-MISSING      leaf2:Ethernet4"), "{}", text(&out.stdout));

    let out = rocelab(&["check", "--import", "no/such/dir", "--links", "x.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read the directory"));
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn check_imports_onyx_mlnx_qos_windows_and_lldp() {
    let args = [
        "check",
        "--import",
        "crates/rocelab-verify/tests/fabrics/import-mixed",
        "--links",
        "crates/rocelab-verify/tests/fabrics/import-mixed-links.yaml",
    ];
    let out = rocelab(&args);
    assert_eq!(out.status.code(), Some(2));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // sn2410's `clock timezone` line does not bear on QoS: counted with the others, not listed.
    assert!(!stderr.contains("clock timezone"), "{stderr}");
    // leaf1's LLDP row of its management port is counted, not listed.
    assert!(!stderr.contains("Management1 oob-mgmt"), "{stderr}");
    assert!(stderr.lines().any(|l| l.ends_with(" lines not related to QoS ignored")), "{stderr}");
    assert!(stdout.contains("PFC-MISSING      node1:ens1f0np0  [rdma (priority 3)]"), "{stdout}");
    assert!(stdout.contains("MAP-TRUST        node2:SLOT 2 Port 1"), "{stdout}");
    assert!(stdout.contains("at     crates/rocelab-verify/tests/fabrics/import-mixed/sn2410.txt:17"), "{stdout}");

    // SARIF points at the capture each finding came from.
    let out = rocelab(&[&args[..], &["--format", "sarif"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let uris: Vec<String> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap().to_string())
        .collect();
    assert!(uris.iter().any(|u| u.ends_with("import-mixed/node1.txt")), "{uris:?}");
}

#[test]
fn check_import_cabling_errors_are_located() {
    let out = rocelab(&["check", "--import", "crates/rocelab-verify/tests/fabrics/import"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(
        "no cabling: no LLDP neighbour output among its 2 files: leaf1.cfg (a configuration), leaf2.json (a \
         configuration); give --links LINKS.yaml"
    ));

    let dir = fresh_dir("cli-links");
    std::fs::create_dir_all(&dir).unwrap();
    let links = dir.join("links.yaml");
    std::fs::write(&links, "links:\n  - {a: \"leaf1:Ethernet1/1\", b: \"leaf2:Ethernet0\", cabel: 3m}\n").unwrap();
    let out = rocelab(&[
        "check",
        "--import",
        "crates/rocelab-verify/tests/fabrics/import",
        "--links",
        links.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("links.yaml:2:52: links[0]: unknown field `cabel`, expected one of a, b, speed, cable; did you mean \"cable\"?"), "{err}");
    assert!(!err.contains("panicked"));

    // --links belongs to --import, not to a fabric file.
    let out = rocelab(&["check", "examples/demartek-config4-two-switch.yaml", "--links", links.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot be used with '--links"), "{}", text(&out.stderr));
}

#[test]
fn check_of_a_broken_file_is_an_error_not_a_panic() {
    let out = rocelab(&["check", "no/such/file.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read the file"));
}

#[test]
fn config_writes_every_device_and_the_runbook() {
    let dir = fresh_dir("cli-config");
    let out = rocelab(&[
        "config",
        "examples/demartek-config4-two-switch.yaml",
        "--variant",
        "congestion-dcqcn-ets",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wrote 8 device files and RUNBOOK.md"));
    let onyx = std::fs::read_to_string(dir.join("sn2410.onyx.txt")).unwrap();
    assert!(onyx.contains("dcb priority-flow-control priority 5 enable"));
    let runbook = std::fs::read_to_string(dir.join("RUNBOOK.md")).unwrap();
    assert!(runbook.contains("## 1. Switches") && runbook.contains("Get-NetQosFlowControl"));
    // Warnings go to stderr, naming device and port.
    assert!(text(&out.stderr).contains("warning: hpe5900:Ten-GigabitEthernet1/0/1:"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_prints_one_device_and_rejects_unknown_names() {
    let out = rocelab(&["config", "examples/demartek-config4-two-switch.yaml", "--device", "hpe5900"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("priority-flow-control no-drop dot1p 5"));
    let out = rocelab(&["config", "examples/demartek-config4-two-switch.yaml", "--device", "hpe590"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no device `hpe590` in the fabric; did you mean hpe5900"),
        "{}",
        text(&out.stderr)
    );
    let out = rocelab(&["config", "no/such/file.yaml", "--device", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn sim_runs_the_builtin_scenario_and_writes_results() {
    let dir = fresh_dir("sim");
    let out = rocelab(&["sim", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("victim host9>host12"), "{}", text(&out.stdout));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(v["results"]["schema_version"], rocelab_sim::SCHEMA_VERSION);
    assert_eq!(v["names"]["nodes"][0], "leaf1");
    assert_eq!(v["names"]["flows"][0], "victim");
    assert!(std::fs::read_to_string(dir.join("summary.txt")).unwrap().starts_with("simulated"));
}

/// A scratch directory named after `tag`, and the text of the two-tier simulation example.
fn scratch_and_sim_example(tag: &str) -> (Scratch, String) {
    let dir = fresh_dir(tag);
    std::fs::create_dir_all(&dir).unwrap();
    let example = std::fs::read_to_string(workspace().join("examples/sim-incast-two-tier.yaml")).unwrap();
    (dir, example)
}

#[test]
fn sim_writes_fct_txt_for_sized_flows() {
    let dir = fresh_dir("sim-fct");
    let out = rocelab(&["sim", "examples/sim-flows-leaf-spine.yaml", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(summary.contains("slowdown = FCT / the same flow's FCT alone"), "{summary}");
    assert!(summary.contains("more flows in results.json"), "{summary}");
    let fct = std::fs::read_to_string(dir.join("fct.txt")).unwrap();
    let lines: Vec<&str> = fct.lines().collect();
    assert!(lines.len() > 1000, "{} lines", lines.len());
    assert!(lines.iter().all(|l| l.split(' ').count() == 8), "{}", lines[0]);
    // The README's sample is this run's first lines, as they are (no header).
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let sample = format!("```text\n{}\n```", lines[..3].join("\n"));
    assert!(readme.contains(&sample), "README.md's fct.txt sample is not\n{sample}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    let overall = &v["results"]["fct"]["overall"];
    assert_eq!(overall["completed"].as_u64().unwrap() as usize, lines.len());
    assert!(overall["slowdown"]["p99"].as_f64().unwrap() >= 1.0);
    // The HPCC-format example: flows imported as they are, fct.txt as HPCC writes it.
    let dir2 = dir.join("hpcc");
    let out = rocelab(&["sim", "examples/hpcc-import/sim.yaml", "--out", dir2.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let fct = std::fs::read_to_string(dir2.join("fct.txt")).unwrap();
    assert_eq!(fct.lines().count(), 8);
    assert_eq!(fct.lines().filter(|l| l.split(' ').nth(3) == Some("200")).count(), 4, "{fct}");
    // With --all, every run's directory has its own.
    let dir4 = dir.join("all");
    let out = rocelab(&["sim", "examples/sim-flows-leaf-spine.yaml", "--all", "--out", dir4.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for run in ["base", "load-70"] {
        assert!(dir4.join("runs").join(run).join("fct.txt").is_file(), "{run}");
    }
    // A scenario without sized flows writes no fct.txt.
    let dir3 = dir.join("cbr");
    let out = rocelab(&["sim", "--out", dir3.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(!dir3.join("fct.txt").exists());
}

#[test]
fn sim_bad_flow_inputs_are_located() {
    let dir = fresh_dir("sim-badflows");
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(workspace().join("examples/sim-flows-leaf-spine.yaml")).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, good.replace("load: 0.4", "load: 1.4").replace("[16KiB, 70]", "[16KiB, 40]")).unwrap();
    let out = rocelab(&["sim", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("workloads.poisson[0].load: load 1.4 is not above 0 and at most 1"), "{err}");
    assert!(err.contains("workloads.poisson[0].cdf[2][1]: cumulative percent 40"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn sim_bad_input_is_located_and_fine_sampling_is_bounded() {
    let (dir, good) = scratch_and_sim_example("sim-bad");
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, good.replace("to: host12, class: roce", "to: host12, class: rdma")).unwrap();
    let out = rocelab(&["sim", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("workloads.flows[0].class: no class `rdma`"), "{err}");
    let huge = dir.join("huge.yaml");
    std::fs::write(
        &huge,
        good.replace("duration: 2ms", "duration: 10s").replace("sample_interval: 10us", "sample_interval: 1ns"),
    )
    .unwrap();
    // Sampling every nanosecond for ten seconds keeps at most 2048 samples a port (the
    // interval doubles each time a port's samples fill up), so the run fits and goes ahead.
    let huge_out = dir.join("huge-out");
    let out = rocelab(&["sim", huge.to_str().unwrap(), "--out", huge_out.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(huge_out.join("queue_depth.csv")).unwrap();
    let mut per_port = std::collections::BTreeMap::<&str, usize>::new();
    for line in csv.lines().skip(1) {
        *per_port.entry(line.split(',').nth(1).unwrap()).or_default() += 1;
    }
    assert!(!per_port.is_empty() && per_port.values().all(|&n| (1024..=2048).contains(&n)), "{per_port:?}");
    // Storage jobs over TCP run beside iperf (here across the EqualLogic SAN's 802.3x links):
    // the iSCSI job's fio-like line and its connection to the member's port 3260 (sequential
    // reads: a PS6110XV's random reads take milliseconds of seeks).
    // The fabric and variants of the example, with workloads of the test's own.
    let san = std::fs::read_to_string(workspace().join("examples/dell-equallogic-congested-san.yaml")).unwrap();
    let san = san.split("\nsimulation:").next().unwrap().to_string() + "\n";
    let jobs = dir.join("jobs.yaml");
    let workloads = "simulation: {duration: 5ms}\nworkloads:\n  iperf:\n    - {name: x, client: member1, server: host, parallel: 2}\n";
    std::fs::write(&jobs, format!("{san}{workloads}  jobs:\n    - {{name: j, rw: read, bs: 8KiB, runtime: 1ms, protocol: iscsi, initiator: host, target: member2}}\n")).unwrap();
    let out = rocelab(&["validate", jobs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out_dir = dir.join("jobs-out");
    let out = rocelab(&["sim", jobs.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(summary.contains("j: iscsi host>member2 rw=read bs=8192"), "{summary}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap()).unwrap();
    let job = &results["results"]["jobs"][0];
    assert_eq!(job["protocol"], "iscsi", "{job}");
    assert!(job["read"]["total_ios"].as_u64().unwrap() > 0, "{job}");
    let conns = results["results"]["tcp_connections"].as_array().unwrap();
    assert!(conns.iter().any(|c| c["ends"][1]["port"] == 3260), "{conns:?}");
    let tcp = dir.join("tcp.yaml");
    std::fs::write(&tcp, format!("{san}{workloads}")).unwrap();
    let out = rocelab(&["sim", tcp.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(summary.contains("iperf x: member1 -> host, 2 stream(s)"), "{summary}");
    assert!(summary.contains("[SUM]") && summary.contains("receiver"), "{summary}");
}

/// A test's own directory under the system's temporary one (`rocelab-NAME-PID`), removed with
/// what the test wrote there when the test passes, and kept for a look when it fails.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A [`Scratch`] directory named after `name`, empty (not created: a test that needs it to
/// exist creates it, one that tests a missing output folder does not).
fn fresh_dir(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("rocelab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Scratch(dir)
}

/// The attribute `name="…"` of the first element in `html` that starts with `tag`.
fn attr<'a>(html: &'a str, tag: &str, name: &str) -> Option<&'a str> {
    let at = html.find(tag)?;
    let rest = &html[at..];
    let end = rest.find('>')?;
    let start = rest[..end].find(&format!("{name}=\""))? + name.len() + 2;
    Some(&rest[start..start + rest[start..].find('"')?])
}

#[test]
fn sim_all_writes_every_variant_and_the_report_loads_in_headless_chromium() {
    let dir = fresh_dir("report-all");
    let out = rocelab(&["sim", "examples/sim-incast-two-tier.yaml", "--all", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wrote 3 runs"), "{}", text(&out.stdout));
    for f in [
        "index.json",
        "runs/base/results.json",
        "runs/base/summary.txt",
        "runs/incast-on-priority-4/results.json",
        "report.html",
        "runs.csv",
        "flows.csv",
        "ports.csv",
        "switches.csv",
        "queue_depth.csv",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(">incast-on-priority-4<"), "variants side by side in the legends");
    // `rocelab report DIR` renders the same report again from the results files.
    let again = rocelab(&["report", dir.to_str().unwrap()]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("report.html")).unwrap(), html);

    check_in_chromium(&dir, &html, 8);
}

/// Opens `dir/report.html` in headless Chromium (when installed) and checks that its script ran
/// without errors and drew every chart (at least `min_charts`) with a non-zero size.
fn check_in_chromium(dir: &std::path::Path, html: &str, min_charts: usize) {
    check_page_in_chromium(dir, "report.html", html, min_charts)
}

/// [`check_in_chromium`] of the page `dir/page`.
fn check_page_in_chromium(dir: &std::path::Path, page: &str, html: &str, min_charts: usize) {
    let Some(chromium) = rocelab_report::tools::require(
        "headless Chromium",
        &["chromium", "chromium-browser", "google-chrome"],
        "apt-get install chromium",
    ) else {
        return;
    };
    let profile = dir.join("chromium-profile");
    let page = format!("file://{}", dir.join(page).canonicalize().unwrap().display());
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1300,2000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&page)
        .output()
        .expect("runs chromium");
    assert!(out.status.success(), "chromium failed: {}", text(&out.stderr));
    let dom = text(&out.stdout);
    let charts = html.matches(r#"<figure class="chart""#).count();
    assert!(charts >= min_charts, "{charts} charts, expected at least {min_charts}");
    assert_eq!(attr(&dom, r#"<pre id="report-errors""#, "id"), Some("report-errors"));
    assert!(dom.contains(r#"<pre id="report-errors"></pre>"#), "script errors: {dom}");
    assert_eq!(attr(&dom, r#"<div id="report-status""#, "data-status"), Some("ok"), "{dom}");
    assert_eq!(attr(&dom, r#"<div id="report-status""#, "data-charts"), Some(charts.to_string().as_str()));
    // Every chart is in the page with a non-zero rendered size.
    let sizes: Vec<&str> = dom.split("<li data-chart=\"").skip(1).collect();
    assert_eq!(sizes.len(), charts);
    for s in sizes {
        let li = format!("<li data-chart=\"{s}");
        let w: f64 = attr(&li, "<li", "data-width").unwrap().parse().unwrap();
        let h: f64 = attr(&li, "<li", "data-height").unwrap().parse().unwrap();
        assert!(w > 100.0 && h > 100.0, "{li}");
    }
}

#[test]
fn sim_all_of_a_storage_example_writes_jobs_fio_json_and_a_report_chromium_loads() {
    let dir = fresh_dir("report-storage");
    let out = rocelab(&["sim", "examples/arista-pure-leaf-spine-25g.yaml", "--all", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wrote 5 runs"), "{}", text(&out.stdout));
    for f in ["runs/base/fio.json", "runs/ecn/fio.json", "jobs.csv", "report.html"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let summary = std::fs::read_to_string(dir.join("runs/base/summary.txt")).unwrap();
    assert!(summary.contains("write-4k: nvme-rdma init1>flasharray rw=randwrite"), "{summary}");
    assert!(summary.contains("clat (usec): min="), "{summary}");
    let fio: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs/base/fio.json")).unwrap()).unwrap();
    let jobs = fio["jobs"].as_array().unwrap();
    assert_eq!(jobs[0]["jobname"], "write-4k");
    assert!(jobs[0]["write"]["iops"].as_f64().unwrap() > 1000.0);
    assert_eq!(jobs[2]["jobname"], "write-512k@init1");
    let csv = std::fs::read_to_string(dir.join("jobs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 5 * 10, "a row per run and job");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("id=\"chart-cpu\""), "the CPU effectiveness chart");
    check_in_chromium(&dir, &html, 8);
}

#[test]
fn report_errors_name_the_file_and_place() {
    let dir = fresh_dir("report-bad");
    let out = rocelab(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not a directory"), "{}", text(&out.stderr));
    let run = rocelab(&["sim", "--out", dir.to_str().unwrap()]);
    assert!(run.status.success());
    assert!(dir.join("report.html").is_file() && dir.join("flows.csv").is_file());
    let results = dir.join("results.json");
    let good = std::fs::read_to_string(&results).unwrap();
    // Corrupt: cut in the middle.
    std::fs::write(&results, &good[..good.len() / 3]).unwrap();
    let out = rocelab(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with(&format!("error: {}:", results.display())) && err.contains("not valid JSON"), "{err}");
    // Another schema version.
    let current = format!("\"schema_version\": {}", rocelab_sim::SCHEMA_VERSION);
    std::fs::write(&results, good.replacen(&current, "\"schema_version\": 99", 1)).unwrap();
    let err = text(&rocelab(&["report", dir.to_str().unwrap()]).stderr);
    assert!(err.contains("results.schema_version: schema version 99"), "{err}");
    // A field of the wrong type, with its path.
    std::fs::write(&results, good.replacen("\"events\": ", "\"events\": -", 1)).unwrap();
    let out = rocelab(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("results.events"), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn sim_pcap_captures_the_chosen_port_up_to_the_limit() {
    let dir = fresh_dir("pcap");
    // The capture's directory is made as needed, like --out's.
    let file = dir.join("captures").join("leaf2.pcap");
    let out = rocelab(&[
        "sim",
        "--pcap",
        file.to_str().unwrap(),
        "--pcap-port",
        "leaf2:Ethernet40",
        "--pcap-flow",
        "incast",
        "--pcap-limit",
        "50",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("captured 50 frames"), "{}", text(&out.stderr));
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(&bytes[0..4], &[0x4D, 0x3C, 0xB2, 0xA1], "pcap with nanosecond time stamps");
    let out = rocelab(&["sim", "--pcap", file.to_str().unwrap(), "--pcap-port", "leaf2:Ethernet41"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("did you mean `Ethernet40`") || text(&out.stderr).contains("no cabled port"));
    let out = rocelab(&["sim", "--pcap-port", "leaf2:Ethernet40"]);
    assert_eq!(out.status.code(), Some(2), "--pcap-port needs --pcap");
}

#[test]
fn a_reader_that_closes_the_pipe_early_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    for args in [
        &["show", "--format", "json"][..],
        &["sim", "--format", "json"],
        &["examples", "demartek-config4-two-switch"],
        &["bench", "incast", "fat-tree-30", "--time-us", "20"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rocelab"))
            .args(args)
            .current_dir(workspace())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs rocelab");
        // Read one byte, then close the pipe: `rocelab … | head -c 1`.
        let mut stdout = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        stdout.read_exact(&mut one).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
    }
}

#[test]
fn bench_measures_a_scenario_and_names_its_results() {
    let args = ["bench", "incast", "--time-us", "2000", "--format", "json"];
    let runs: Vec<serde_json::Value> = (0..2)
        .map(|_| {
            let out = rocelab(&args);
            assert!(out.status.success(), "{}", text(&out.stderr));
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(doc["schema_version"], 1);
            assert!(doc["machine"]["logical_cpus"].as_u64().unwrap() >= 1);
            let runs = doc["runs"].as_array().unwrap();
            assert_eq!(runs.len(), 1);
            runs[0].clone()
        })
        .collect();
    let r = &runs[0];
    assert_eq!(r["scenario"], "incast");
    assert_eq!(r["name"], "incast-16:1-100G");
    assert_eq!(r["simulated_ps"], 2_000_000_000u64);
    assert!(r["events"].as_u64().unwrap() > 10_000, "{r}");
    assert!(r["events_per_second"].as_f64().unwrap() > 0.0, "{r}");
    let digest = r["results_digest"].as_str().unwrap();
    assert!(digest.len() == 16 && digest.chars().all(|c| c.is_ascii_hexdigit()), "{digest}");
    if cfg!(target_os = "linux") {
        assert!(r["peak_rss_bytes"].as_u64().unwrap() > 1 << 20, "{r}");
        assert!(r["user_seconds"].as_f64().is_some(), "{r}");
    }
    // A scenario and its seed are fixed: the same events and the same results every time.
    assert_eq!((&runs[1]["events"], &runs[1]["results_digest"]), (&r["events"], &r["results_digest"]));
}

#[test]
fn bench_runs_several_scenarios_each_in_its_own_process() {
    let out = rocelab(&["bench", "fat-tree-30", "incast", "--time-us", "20"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("rocelab bench: 2 scenarios, each on one core in a process of its own"), "{stdout}");
    assert!(lines[1].starts_with("scenario") && lines[1].ends_with("results"), "{stdout}");
    // In the order asked for, one row each, with its simulated time.
    assert!(lines[2].starts_with("fat-tree-30 ") && lines[2].contains("20 us"), "{stdout}");
    assert!(lines[3].starts_with("incast ") && lines[3].contains("20 us"), "{stdout}");
    assert_eq!(lines.len(), 4, "{stdout}");
    // One scenario runs in the command's own process.
    let out = rocelab(&["bench", "tcp-iperf", "--time-us", "20"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("rocelab bench: 1 scenario, on one core ("), "{stdout}");
    assert!(stdout.lines().nth(2).is_some_and(|l| l.starts_with("tcp-iperf ")), "{stdout}");
}

#[test]
fn bench_rejects_an_unknown_scenario_and_a_zero_time() {
    let out = rocelab(&["bench", "fat-tre"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("invalid value 'fat-tre'") && err.contains("'fat-tree'"), "{err}");
    assert!(err.contains("incast, fat-tree, fat-tree-30, incast-rdma, fat-tree-rdma, tcp-iperf"), "{err}");
    assert!(out.stdout.is_empty());
    let out = rocelab(&["bench", "incast", "--time-us", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("0 is not in 1..=10000000"), "{}", text(&out.stderr));
}
