//! Files that cannot be read and names that are not there: said with the file and place (never
//! `file:0:0`), the same way and with the same exit code wherever they are given, and without
//! losing what the other files say.

use super::{fresh_dir, rocelab, text, workspace};

const IMPORT: &str = "crates/rocelab-verify/tests/fabrics/import";

/// A copy of the import fixture (leaf1: EOS, leaf2: SONiC) with leaf2's config_db.json cut
/// after 300 bytes (in `PORT_QOS_MAP`, line 8) and a binary file beside them.
/// Returns the scratch directory (removed at the test's end) and the fixture's folder in it.
fn import_with_a_cut_config_db(tag: &str) -> (super::Scratch, std::path::PathBuf) {
    let scratch = fresh_dir(tag);
    let dir = scratch.join("import");
    std::fs::create_dir_all(&dir).unwrap();
    let src = workspace().join(IMPORT);
    std::fs::copy(src.join("leaf1.cfg"), dir.join("leaf1.cfg")).unwrap();
    let json = std::fs::read(src.join("leaf2.json")).unwrap();
    std::fs::write(dir.join("leaf2.json"), &json[..300]).unwrap();
    std::fs::write(dir.join("capture.bin"), [0x7f, b'E', b'L', b'F', 0xff, 0xfe, 0x00, 0xc3]).unwrap();
    (scratch, dir)
}

/// The JSON error is located (line and column of where the text stops) and shown; the EOS
/// switch and the binary file beside it are still read and reported; the exit code says that the
/// check is incomplete.
#[test]
fn check_import_shows_a_cut_config_db_and_reads_the_other_files() {
    let (_scratch, dir) = import_with_a_cut_config_db("import-cut");
    // Cabling that does not need leaf2: the check runs on the rest.
    let links = dir.parent().unwrap().join("links.yaml");
    std::fs::write(
        &links,
        "links:\n  - {a: \"leaf1:Ethernet2/1\", b: \"host1:p0\", speed: 100G}\nhosts: [host1]\npolicy: {lossless: [3], rdma_dscp: 26}\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let out = rocelab(&["check", "--import", d, "--links", links.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let json_error = format!(
        "{}:8:7: error: not valid JSON: EOF while parsing an object; the file ends early: is it cut short?",
        dir.join("leaf2.json").display()
    );
    assert!(err.contains(&json_error), "{err}");
    assert!(err.contains(&format!("{}:32: not understood: ip routing", dir.join("leaf1.cfg").display())), "{err}");
    assert!(err.contains("capture.bin:1: not understood: the whole file: not UTF-8 text"), "{err}");
    assert!(err.contains("error: 1 file in") && err.contains("could not be read"), "{err}");
    assert!(text(&out.stdout).ends_with("import: no findings\n"), "the check ran: {}", text(&out.stdout));

    // Cabling that names leaf2's ports: the import stops, after the JSON error, which is the cause.
    let out = rocelab(&["check", "--import", d, "--links", &format!("{IMPORT}-links.yaml")]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let (json_at, links_at) = (err.find(&json_error), err.find("device `leaf2` has no port `Ethernet0`"));
    assert!(json_at.is_some() && links_at.is_some() && json_at < links_at, "{err}");
    assert!(err.contains("leaf2.json gave it no ports"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A folder without a single configuration says so and lists what it held.
#[test]
fn check_import_of_a_folder_without_configurations_lists_its_files() {
    let dir = fresh_dir("import-none");
    std::fs::create_dir_all(&dir).unwrap();
    let out = rocelab(&["check", "--import", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no files in the directory"), "{}", text(&out.stderr));
    std::fs::write(dir.join("notes.txt"), "switches in rack 4\n").unwrap();
    std::fs::write(dir.join("capture.bin"), [0x00, 0xd8, 0xff, 0x01]).unwrap();
    let out = rocelab(&["check", "--import", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("no device configuration among its 2 files: capture.bin (not text), notes.txt (not recognised)"),
        "{err}"
    );
    assert!(!err.contains("no cabling"), "{err}");
}

/// A file that cannot be read has no position: `file: error: …` in text, `null` in JSON.
#[test]
fn file_level_errors_are_not_at_line_zero() {
    let out = rocelab(&["validate", "no/such/file.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("no/such/file.yaml: error: cannot read the file"), "{err}");
    assert!(!err.contains(":0:0") && !err.contains(":0:"), "{err}");
    let out = rocelab(&["validate", "--format", "json", "no/such/file.yaml"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v[0]["diagnostics"][0];
    assert!(d["line"].is_null() && d["column"].is_null(), "{d}");
    let out = rocelab(&["check", "examples"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("examples: error: `examples` is a directory, not a fabric file"),
        "{}",
        text(&out.stderr)
    );
}

/// `show --example`, `sim --example` and `examples NAME` treat a name that is no example alike:
/// exit 1, the nearest name and the list.
#[test]
fn an_unknown_example_is_the_same_bad_input_everywhere() {
    for name in ["sim-incast-two-tie", "typo"] {
        for args in [&["show", "--example", name][..], &["sim", "--example", name], &["examples", name]] {
            let out = rocelab(args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.starts_with(&format!("error: no built-in example `{name}`; did you mean `")),
                "{args:?}: {err}"
            );
            assert!(err.contains("demartek-config4-two-switch, ") && !err.contains("<input>"), "{args:?}: {err}");
            assert!(out.stdout.is_empty());
        }
    }
    let err = text(&rocelab(&["examples", "sim-incast-two-tie"]).stderr);
    assert!(err.contains("did you mean `sim-incast-two-tier`?"), "{err}");
}

/// `show` and `sim` without a file are about the same fabric, the one `examples` marks.
#[test]
fn show_and_sim_without_a_file_use_the_same_example() {
    let show = text(&rocelab(&["show"]).stdout);
    let sim: serde_json::Value = serde_json::from_slice(&rocelab(&["sim", "--format", "json"]).stdout).unwrap();
    let name = sim["scenario"].as_str().unwrap();
    assert_eq!(show.lines().next(), Some(format!("fabric {name}").as_str()));
    let list = text(&rocelab(&["examples"]).stdout);
    let default: Vec<&str> = list.lines().filter(|l| l.ends_with("(default)")).collect();
    assert_eq!(default.len(), 1, "{list}");
    assert!(default[0].starts_with(&format!("{name} ")), "{list}");
}

/// The flows table says what `delivered` counts.
#[test]
fn the_flows_table_gives_the_unit_of_delivered() {
    let out = text(&rocelab(&["sim"]).stdout);
    let header = out.lines().find(|l| l.trim_start().starts_with("flow ")).unwrap();
    assert!(header.contains(" delivered pkts "), "{header}");
    // The column stays aligned: the victim's count ends under the header's.
    let row = out.lines().find(|l| l.trim_start().starts_with("victim ")).unwrap();
    let end = header.find(" delivered pkts ").unwrap() + " delivered pkts".len();
    assert!(row.as_bytes()[end - 1].is_ascii_digit() && row.as_bytes()[end] == b' ', "{header}\n{row}");
}
