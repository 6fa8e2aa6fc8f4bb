//! `rocelab import`: another tool's files as a rocelab scenario. The mapping is
//! `rocelab_model::hpcc_import`'s; this writes the files.

use crate::failure::{Failure, OrFail};
use crate::input::print_diagnostics;
use crate::out::outln;
use rocelab_model::hpcc_import::{import_config, ImportOptions};
use rocelab_model::Diagnostics;
use std::path::Path;
use std::process::ExitCode;

/// The command's exit code for every error, of its input or of its writing.
const FAILED: u8 = 1;

/// `rocelab import hpcc CONFIG --out DIR`: exit 0 when written (warnings or not), 1 on errors.
pub fn hpcc(config: &Path, dir: &Path, force: bool, opts: ImportOptions) -> Result<ExitCode, Failure> {
    let imp = import_config(config, &opts).map_err(|d| Failure::diagnostics(FAILED, &d))?;
    let mut warnings = Diagnostics(imp.warnings);
    warnings.sort();
    print_diagnostics(&warnings);
    for n in &imp.notes {
        eprintln!("{n}");
    }
    let mut names = vec!["scenario.yaml".to_string()];
    names.extend(imp.files.iter().map(|(n, _)| n.clone()));
    if !force {
        let existing: Vec<String> =
            names.iter().map(|n| dir.join(n)).filter(|p| p.exists()).map(|p| p.display().to_string()).collect();
        if !existing.is_empty() {
            return Err(Failure::error(
                FAILED,
                format!(
                    "{} already exist{}; give --force to replace {}",
                    existing.join(", "),
                    if existing.len() == 1 { "s" } else { "" },
                    if existing.len() == 1 { "it" } else { "them" }
                ),
            ));
        }
    }
    crate::outdir::prepare(dir).or_fail(FAILED)?;
    for (name, source) in &imp.files {
        let target = crate::outdir::file_in(dir, name).or_fail(FAILED)?;
        // Importing into the config's own folder: the file is already there.
        let same = match (std::fs::canonicalize(source), std::fs::canonicalize(&target)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same {
            std::fs::copy(source, &target)
                .map_err(|e| format!("cannot copy {} to {}: {e}", source.display(), target.display()))
                .or_fail(FAILED)?;
        }
    }
    let scenario = dir.join("scenario.yaml");
    std::fs::write(&scenario, &imp.scenario).map_err(|e| format!("{}: {e}", scenario.display())).or_fail(FAILED)?;
    let n = warnings.0.len();
    outln!(
        "wrote {} ({}) with {} in {} ({n} warning{})",
        scenario.display(),
        imp.name,
        imp.files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" and "),
        dir.display(),
        if n == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}
