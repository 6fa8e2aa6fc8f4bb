//! `rocelab check`: the static verification of a fabric file, or of the running configurations
//! imported from a folder. Exit 0 when clean, 2 on errors, 1 on warnings with `--strict`. A
//! fabric file that declares the findings it demonstrates (`expect:`) exits 0 when exactly those
//! are found, and 2, saying which differ, when not.

use crate::failure::{Failure, OrFail};
use crate::out::out;
use crate::CheckFormat;
use rocelab_model::diag::Mark;
use rocelab_model::{Diagnostic, Diagnostics};
use std::path::Path;
use std::process::ExitCode;

/// The check's exit code for errors, in the findings or in the input: a fabric that does not
/// load fails the check as one with errors does.
const ERRORS: u8 = 2;

pub fn run(
    file: Option<&Path>,
    variant: Option<&str>,
    import: Option<&Path>,
    links: Option<&Path>,
    format: CheckFormat,
    strict: bool,
) -> Result<ExitCode, Failure> {
    let mut unreadable = 0;
    let mut loaded_file = None;
    let mut expect = None;
    // The import's own findings (a device left without links, an LLDP port not placed).
    let mut import_findings = Vec::new();
    let (state, subject, artifact) = match (file, import) {
        (Some(f), _) => {
            let loaded = rocelab_model::load_file(f).map_err(|d| load_failure(format, d))?;
            let with_variant =
                variant.map(|v| loaded.variant_scenario(v)).transpose().map_err(|d| load_failure(format, d))?;
            let (scenario, fabric) = match &with_variant {
                Some((s, f)) => (s, f),
                None => (&loaded.scenario, &loaded.fabric),
            };
            for w in &loaded.warnings {
                eprintln!("{w}");
            }
            expect = scenario.expect.clone();
            let subject = match variant {
                Some(v) => format!("{} (variant {v})", f.display()),
                None => f.display().to_string(),
            };
            let state = rocelab_verify::from_intent(fabric);
            loaded_file = Some(loaded);
            (state, subject, f.display().to_string())
        }
        (None, Some(dir)) => {
            // Files that could not be read are said first, also when the import then stops (a
            // links file naming the device of a config_db.json cut short).
            let files = rocelab_verify::import::read_dir(dir).map_err(|e| import_failure(format, dir, e))?;
            for e in &files.errors {
                eprintln!("{}", rocelab_verify::render::printable(&e.to_string()));
            }
            unreadable = files.errors.len();
            let imported =
                rocelab_verify::import::import_files(files, dir, links).map_err(|e| import_failure(format, dir, e))?;
            for u in &imported.not_understood {
                eprintln!("{}", rocelab_verify::render::printable(&u.to_string()));
            }
            if imported.ignored > 0 {
                let s = if imported.ignored == 1 { "" } else { "s" };
                eprintln!("{} line{s} not related to QoS ignored", imported.ignored);
            }
            import_findings = imported.findings;
            (imported.state, dir.display().to_string(), dir.display().to_string())
        }
        (None, None) => return Err(Failure::error(ERRORS, "give a fabric file or --import DIR")),
    };
    let mut findings = rocelab_verify::check(&state);
    findings.extend(import_findings);
    let declared = expect.as_deref().unwrap_or_default();
    let expectation = expect.as_ref().map(|e| rocelab_verify::finding::expectation(&findings, e));
    let inferred = rocelab_verify::render::inferred_policy(&state.policy);
    let text = match format {
        // The policy the findings are judged by comes first, where it was inferred.
        CheckFormat::Text => {
            let mut t = inferred.clone().unwrap_or_default() + &rocelab_verify::render::table(&findings, &subject);
            if expectation.as_ref().is_some_and(|e| e.met()) && !declared.is_empty() {
                t.push_str(&format!("{subject}: as the file expects (expect: [{}])\n", declared.join(", ")));
            }
            t
        }
        CheckFormat::Json => {
            let v = rocelab_verify::render::json_expected(&findings, declared);
            serde_json::to_string_pretty(&v).or_fail(ERRORS)? + "\n"
        }
        CheckFormat::Sarif => {
            // A finding about a device, port or link of a fabric file points at the line that
            // declares it.
            let at = |f: &rocelab_verify::Finding| {
                let m = loaded_file.as_ref()?.mark_of_device(&f.device, f.port.as_deref())?;
                Some((m.line, m.column))
            };
            let v = rocelab_verify::render::sarif_at(&findings, &artifact, &at, declared);
            serde_json::to_string_pretty(&v).or_fail(ERRORS)? + "\n"
        }
    };
    // Machine-readable output stays the findings alone; the inferred policy is said on stderr,
    // as the lines not understood are.
    if let (Some(h), false) = (&inferred, matches!(format, CheckFormat::Text)) {
        eprint!("{h}");
    }
    // A reader that stops early (`| head`) is not an error of the check.
    out!("{text}");
    let (errors, warnings, _) = rocelab_verify::finding::counts(&findings);
    if unreadable > 0 {
        return Err(Failure::error(
            ERRORS,
            format!(
                "{unreadable} file{} in {subject} could not be read (above); the check is of the fabric without {}",
                if unreadable == 1 { "" } else { "s" },
                if unreadable == 1 { "its configuration" } else { "their configurations" }
            ),
        ));
    }
    if let Some(e) = &expectation {
        if !e.met() {
            return Err(Failure::error(ERRORS, expectation_text(&subject, e)));
        }
        return Ok(ExitCode::SUCCESS);
    }
    Ok(if errors > 0 {
        ExitCode::from(ERRORS)
    } else if strict && warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Why the findings are not the ones the fabric file's `expect:` declares, and what to do.
fn expectation_text(subject: &str, e: &rocelab_verify::finding::Expectation) -> String {
    let mut parts = Vec::new();
    if !e.missing.is_empty() {
        parts.push(format!("`expect` declares {}, which the check did not find", e.missing.join(", ")));
    }
    if !e.unexpected.is_empty() {
        parts.push(format!("the check found {}, which `expect` does not declare", e.unexpected.join(", ")));
    }
    format!(
        "{subject}: the findings are not the expected ones: {}; fix the fabric, or make `expect` list exactly the rules it demonstrates",
        parts.join("; ")
    )
}

/// A fabric file that does not load: its diagnostics on stderr, and for `--format json|sarif`
/// also as a machine-readable document on stdout, so that a tool reading the output sees why
/// there are no findings.
fn load_failure(format: CheckFormat, d: Diagnostics) -> Failure {
    print_error_document(format, &d.0);
    Failure::diagnostics(ERRORS, &d)
}

/// An import that could not run (a folder that cannot be read, a links file that does not
/// load): the message on stderr, and for `--format json|sarif` as a document on stdout too.
fn import_failure(format: CheckFormat, dir: &Path, e: impl std::fmt::Display) -> Failure {
    let mut d = Diagnostic::error(Mark::default(), "", e.to_string());
    d.file = dir.display().to_string();
    print_error_document(format, std::slice::from_ref(&d));
    Failure::error(ERRORS, e)
}

fn print_error_document(format: CheckFormat, d: &[Diagnostic]) {
    let doc = match format {
        CheckFormat::Text => return,
        CheckFormat::Json => rocelab_verify::render::json_load_error(d),
        CheckFormat::Sarif => rocelab_verify::render::sarif_load_error(d),
    };
    if let Ok(text) = serde_json::to_string_pretty(&doc) {
        out!("{text}\n");
    }
}
