//! `rocelab config`: every device's configuration and the runbook into a folder, or one device
//! to stdout. Exit 2 when a device could not be rendered (the others are still written), and on
//! bad input.

use crate::failure::{Failure, OrFail};
use crate::input::open;
use crate::out::{out, outln};
use crate::outdir;
use std::path::Path;
use std::process::ExitCode;

/// The command's one failing exit code: bad input and a device not rendered alike.
const FAILED: u8 = 2;

pub fn run(
    file: &Path,
    out: Option<&Path>,
    device: Option<&str>,
    variant: Option<&str>,
    templates: Option<&Path>,
    save: bool,
) -> Result<ExitCode, Failure> {
    let (_, fabric) = open(Some(file), None, variant, FAILED)?;
    if let Some(dir) = out {
        // Said before anything is rendered.
        crate::outdir::prepare(dir).or_fail(FAILED)?;
    }
    let t = match templates {
        Some(dir) => rocelab_config::Templates::with_overrides(dir).or_fail(FAILED)?,
        None => rocelab_config::Templates::builtin(),
    };
    // `--no-save`: switch files end without saving the configuration.
    let t = if save { t } else { t.without_save() };
    if let Some(name) = device {
        let (file, findings) = rocelab_config::render_device(&fabric, name, &t).or_fail(FAILED)?;
        for f in &findings {
            eprintln!("{f}");
        }
        return Ok(match file {
            Some(f) => {
                out!("{}", f.text);
                ExitCode::SUCCESS
            }
            None => ExitCode::from(FAILED),
        });
    }
    let Some(dir) = out else {
        return Err(Failure::error(FAILED, "give --out DIR or --device NAME"));
    };
    // Each file is written as soon as it is rendered, not held until all are.
    let write = |_: usize, f: rocelab_config::DeviceFile| -> Result<(), String> {
        let path = outdir::file_in(dir, &f.file_name)?;
        std::fs::write(&path, &f.text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let r = rocelab_config::render_into(&fabric, &t, &write).or_fail(FAILED)?;
    let path = dir.join("RUNBOOK.md");
    std::fs::write(&path, &r.runbook).map_err(|e| Failure::error(FAILED, format!("{}: {e}", path.display())))?;
    for f in &r.findings {
        eprintln!("{f}");
    }
    outln!("wrote {} device files and RUNBOOK.md to {}", r.files, dir.display());
    Ok(if r.findings.iter().any(|f| f.is_error()) { ExitCode::from(FAILED) } else { ExitCode::SUCCESS })
}
