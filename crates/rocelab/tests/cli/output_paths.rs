//! Output paths (`--out`, `--pcap`) that cannot be used are said before any work and with the
//! system's own reason; progress on a stderr that is not a terminal.

use super::{fresh_dir, rocelab, text, workspace};
use std::process::{Command, Output};

const SIM_EXAMPLE: &str = "examples/sim-incast-two-tier.yaml";

/// `rocelab` with the environment variable `var` set to `value`.
fn rocelab_with_env(var: &str, value: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocelab"))
        .args(args)
        .env(var, value)
        .current_dir(workspace())
        .output()
        .expect("runs rocelab")
}

/// Says in the test output, past libtest's capture (as `rocelab_report::tools::require` does),
/// that the current test did not check everything.
fn skipped(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    let _ = std::io::stderr().lock().write_all(format!("SKIPPED (in part) {test}: {why}\n").as_bytes());
}

/// Every command that writes a directory refuses a file in its place before it runs anything:
/// `FILE: not a directory`, nothing on stdout (no simulation summary: the run did not happen).
#[test]
fn out_onto_an_existing_file_is_not_a_directory_before_anything_runs() {
    let dir = fresh_dir("out-file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("results");
    std::fs::write(&file, "a file, not a folder").unwrap();
    let f = file.to_str().unwrap();
    let below = file.join("run1");
    let cases: [(&[&str], i32); 6] = [
        (&["sim", "--out", f], 1),
        (&["sim", "--out", below.to_str().unwrap()], 1),
        (&["sim", SIM_EXAMPLE, "--all", "--out", f], 1),
        (&["import", "hpcc", "examples/hpcc-import/config.txt", "--out", f], 1),
        // `config`'s errors are exit 2, as its other errors are.
        (&["config", "examples/demartek-config4-two-switch.yaml", "--out", f], 2),
        (&["sim", "examples/sim-flows-leaf-spine.yaml", "--out", f, "--format", "json"], 1),
    ];
    for (args, code) in cases {
        let out = rocelab(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(&format!("error: {f}: not a directory")), "{args:?}: {err}");
        assert!(!err.contains("File exists") && !err.contains("panicked"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: ran anyway: {}", text(&out.stdout));
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file, not a folder", "the file is left alone");
}

/// A folder the user cannot write: said at once for `sim`, `sim --all`, `config --out`, `import
/// hpcc --out` and `report`. Root writes anywhere: as root, the commands run as `nobody` through
/// `setpriv` where it is installed; without it only the commands' success is checked.
#[test]
fn an_out_folder_that_cannot_be_written_is_said_before_the_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = fresh_dir("out-readonly");
    // A report to render again, written while the folder is still writable.
    let report_dir = dir.join("report");
    assert!(rocelab(&["sim", "--out", report_dir.to_str().unwrap()]).status.success());
    let ro = dir.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    for d in [&ro, &report_dir] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let probe = ro.join("probe");
    let as_root = std::fs::write(&probe, "x").is_ok();
    let _ = std::fs::remove_file(&probe);
    let setpriv = as_root.then(|| rocelab_report::tools::find(&["setpriv"])).flatten();
    let run = |args: &[&str]| -> Output {
        let mut c = match &setpriv {
            Some(s) => {
                let mut c = Command::new(s);
                c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_rocelab")]);
                c
            }
            None => Command::new(env!("CARGO_BIN_EXE_rocelab")),
        };
        c.args(args).current_dir(workspace()).output().expect("runs rocelab")
    };
    let enforced = !as_root || setpriv.is_some();
    let (r, sub) = (ro.to_str().unwrap(), ro.join("new"));
    let cases: [(&[&str], i32, &str); 6] = [
        (&["sim", "--out", r], 1, "cannot write in the directory"),
        (&["sim", "--out", sub.to_str().unwrap()], 1, "cannot create the directory"),
        (&["sim", SIM_EXAMPLE, "--all", "--out", r], 1, "cannot write in the directory"),
        (&["config", "examples/demartek-config4-two-switch.yaml", "--out", r], 2, "cannot write in the directory"),
        (&["import", "hpcc", "examples/hpcc-import/config.txt", "--out", r], 1, "cannot write in the directory"),
        (&["report", report_dir.to_str().unwrap()], 1, "cannot write in the directory"),
    ];
    for (args, code, why) in cases {
        let out = run(args);
        let err = text(&out.stderr);
        if enforced {
            assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
            assert!(err.contains(&format!(": {why}: Permission denied")), "{args:?}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}: ran anyway: {}", text(&out.stdout));
        } else {
            assert!(out.status.success(), "{args:?}: {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    }
    if !enforced {
        skipped(
            "running as root without setpriv, the read-only folder is writable: only the commands' success was checked",
        );
    }
    for d in [&ro, &report_dir] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// A capture onto a full disk says so, with the path: not pcap-file's "Error reading bytes".
#[test]
fn pcap_onto_a_full_device_says_no_space_left() {
    if !std::path::Path::new("/dev/full").exists() {
        skipped("no /dev/full on this system");
        return;
    }
    let out = rocelab(&["sim", "--pcap", "/dev/full"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("error: /dev/full: cannot write the capture: No space left on device"), "{err}");
    assert!(!err.contains("Error reading bytes") && !err.contains("panicked"), "{err}");
}

/// On a stderr that is not a terminal (a pipe here), progress is a plain line every interval —
/// simulated time, events, wall time — with no escape sequences; `--quiet` prints none, and a
/// run shorter than the interval (5 s without the test's override) prints none either.
#[test]
fn sim_progress_is_plain_lines_on_a_pipe_and_quiet_turns_it_off() {
    const VAR: &str = "ROCELAB_PROGRESS_INTERVAL_MS";
    let out = rocelab_with_env(VAR, "0", &["sim"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("sim: sim-incast-two-tier: ")).collect();
    assert!(!lines.is_empty(), "{err}");
    for l in &lines {
        assert!(l.contains(" ms of 2.00 ms simulated, ") && l.contains(" events, ") && l.ends_with(" s"), "{l}");
    }
    assert!(!err.contains('\u{1b}') && !err.contains('\r'), "{err:?}");
    // The results are the same with progress and without.
    let quiet = rocelab_with_env(VAR, "0", &["sim", "--quiet"]);
    assert!(quiet.status.success());
    assert!(quiet.stderr.is_empty(), "{}", text(&quiet.stderr));
    assert_eq!(quiet.stdout, out.stdout);
    let short = rocelab(&["sim", "-q"]);
    assert!(short.stderr.is_empty(), "{}", text(&short.stderr));
    let short = rocelab(&["sim"]);
    assert!(!text(&short.stderr).contains("sim: "), "{}", text(&short.stderr));
    // On two threads (the default takes one for this small fabric), the same lines, from the
    // parts' progress (the `dcqcn` variant's 40 ms: long enough for a few of them), and the same
    // results as one thread's but for the peak of packets in flight (the sum of the parts'
    // peaks) on the summary's first line.
    let variant = ["sim", "examples/sim-incast-two-tier.yaml", "--variant", "dcqcn", "--threads"];
    let two = rocelab_with_env(VAR, "0", &[&variant[..], &["2"]].concat());
    assert!(two.status.success(), "{}", text(&two.stderr));
    let err = text(&two.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("sim: sim-incast-two-tier: ")).collect();
    assert!(!lines.is_empty(), "{err}");
    assert!(lines.iter().all(|l| l.contains(" ms of 40.00 ms simulated, ") && l.ends_with(" s")), "{err}");
    let one = rocelab(&[&variant[..], &["1", "-q"]].concat());
    let (two, one) = (text(&two.stdout), text(&one.stdout));
    assert_eq!(two.lines().skip(1).collect::<Vec<_>>(), one.lines().skip(1).collect::<Vec<_>>());
    let head = |s: &str| s.lines().next().and_then(|l| l.split_once(", peak ")).map(|(h, _)| h.to_string());
    assert!(head(&two).is_some() && head(&two) == head(&one), "{two}\n{one}");
}
