//! `rocelab validate`: every error of each file, located; exit 1 if any file has one.

use crate::input::print_diagnostics;
use crate::out::outln;
use crate::Format;
use std::path::PathBuf;
use std::process::ExitCode;

/// Loads each file with its variants and sweep points. A file that does not load is the
/// command's verdict, not a failure: the other files are still validated.
pub fn run(files: &[PathBuf], format: Format) -> ExitCode {
    let mut failed = false;
    let mut reports = Vec::new();
    for f in files {
        let (ok, diags, summary) = match rocelab_model::load_file(f) {
            Ok(loaded) => {
                let d = loaded.validate_all();
                let ok = !d.has_errors();
                let summary = format!(
                    "{} devices, {} links; {} variants and {} sweep points checked",
                    loaded.fabric.devices.len(),
                    loaded.fabric.links.len(),
                    loaded.scenario.variants.len(),
                    loaded.sweep_points().len()
                );
                (ok, d, summary)
            }
            Err(d) => (false, d, String::new()),
        };
        failed |= !ok;
        match format {
            Format::Text => {
                print_diagnostics(&diags);
                if ok {
                    outln!("OK {} ({summary})", f.display());
                } else {
                    let n = diags.errors().count();
                    outln!("FAILED {} ({n} error{})", f.display(), if n == 1 { "" } else { "s" });
                }
            }
            Format::Json => reports.push(serde_json::json!({
                "file": f.display().to_string(),
                "ok": ok,
                "diagnostics": diags.0,
            })),
        }
    }
    if format == Format::Json {
        outln!("{}", serde_json::to_string_pretty(&reports).unwrap_or_default());
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
