//! `rocelab check`: the static verification of a fabric file, or of the running configurations
//! imported from a folder. Exit 0 when clean, 2 on errors, 1 on warnings with `--strict`.

use crate::failure::{Failure, OrFail};
use crate::input::open;
use crate::out::out;
use crate::CheckFormat;
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
    let (state, subject, artifact) = match (file, import) {
        (Some(f), _) => {
            let (_, fabric) = open(Some(f), None, variant, ERRORS)?;
            let subject = match variant {
                Some(v) => format!("{} (variant {v})", f.display()),
                None => f.display().to_string(),
            };
            (rocelab_verify::from_intent(&fabric), subject, f.display().to_string())
        }
        (None, Some(dir)) => {
            // Files that could not be read are said first, also when the import then stops (a
            // links file naming the device of a config_db.json cut short).
            let files = rocelab_verify::import::read_dir(dir).or_fail(ERRORS)?;
            for e in &files.errors {
                eprintln!("{}", rocelab_verify::render::printable(&e.to_string()));
            }
            unreadable = files.errors.len();
            let imported = rocelab_verify::import::import_files(files, dir, links).or_fail(ERRORS)?;
            for u in &imported.not_understood {
                eprintln!("{}", rocelab_verify::render::printable(&u.to_string()));
            }
            (imported.state, dir.display().to_string(), dir.display().to_string())
        }
        (None, None) => return Err(Failure::error(ERRORS, "give a fabric file or --import DIR")),
    };
    let findings = rocelab_verify::check(&state);
    let inferred = rocelab_verify::render::inferred_policy(&state.policy);
    let text = match format {
        // The policy the findings are judged by comes first, where it was inferred.
        CheckFormat::Text => inferred.clone().unwrap_or_default() + &rocelab_verify::render::table(&findings, &subject),
        CheckFormat::Json => {
            serde_json::to_string_pretty(&rocelab_verify::render::json(&findings)).or_fail(ERRORS)? + "\n"
        }
        CheckFormat::Sarif => {
            serde_json::to_string_pretty(&rocelab_verify::render::sarif(&findings, &artifact)).or_fail(ERRORS)? + "\n"
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
    Ok(if errors > 0 {
        ExitCode::from(ERRORS)
    } else if strict && warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
