//! `rocelab import`: another tool's files as a rocelab scenario. The mapping is
//! `rocelab_model::hpcc_import`'s; this writes the files.

use crate::out::outln;
use crate::print_diagnostics;
use clap::Subcommand;
use rocelab_model::hpcc_import::{import_config, ImportOptions};
use rocelab_model::Diagnostics;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum ImportCommand {
    /// An ns-3 HPCC simulator config.txt with the topology and flow files it names.
    ///
    /// Writes DIR/scenario.yaml on the hpcc-compat simulation model, each setting with a comment
    /// naming its config.txt key, and copies of the two files beside it
    /// (alibaba-edu/High-Precision-Congestion-Control's formats). Prints a warning for every key
    /// rocelab cannot honour. Exit 0 when written (warnings or not), 1 on errors.
    Hpcc {
        /// The config file; the paths in it are relative to its folder.
        config: PathBuf,
        /// Write scenario.yaml and the copies here (made if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Replace files that already exist in DIR.
        #[arg(long)]
        force: bool,
        /// The topology file, instead of TOPOLOGY_FILE's.
        #[arg(long, value_name = "FILE")]
        topology: Option<PathBuf>,
        /// The flow file, instead of FLOW_FILE's.
        #[arg(long, value_name = "FILE")]
        flows: Option<PathBuf>,
    },
}

pub fn run(cmd: ImportCommand) -> ExitCode {
    match cmd {
        ImportCommand::Hpcc { config, out, force, topology, flows } => {
            hpcc(&config, &out, force, ImportOptions { topology, flows })
        }
    }
}

fn fail(msg: String) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(1)
}

fn hpcc(config: &Path, dir: &Path, force: bool, opts: ImportOptions) -> ExitCode {
    let imp = match import_config(config, &opts) {
        Ok(i) => i,
        Err(d) => {
            print_diagnostics(&d);
            return ExitCode::from(1);
        }
    };
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
            return fail(format!(
                "{} already exist{}; give --force to replace {}",
                existing.join(", "),
                if existing.len() == 1 { "s" } else { "" },
                if existing.len() == 1 { "it" } else { "them" }
            ));
        }
    }
    if let Err(e) = crate::outdir::prepare(dir) {
        return fail(e);
    }
    for (name, source) in &imp.files {
        let target = match crate::outpath::file_in(dir, name) {
            Ok(t) => t,
            Err(e) => return fail(e),
        };
        // Importing into the config's own folder: the file is already there.
        let same = match (std::fs::canonicalize(source), std::fs::canonicalize(&target)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same {
            if let Err(e) = std::fs::copy(source, &target) {
                return fail(format!("cannot copy {} to {}: {e}", source.display(), target.display()));
            }
        }
    }
    let scenario = dir.join("scenario.yaml");
    if let Err(e) = std::fs::write(&scenario, &imp.scenario) {
        return fail(format!("{}: {e}", scenario.display()));
    }
    let n = warnings.0.len();
    outln!(
        "wrote {} ({}) with {} in {} ({n} warning{})",
        scenario.display(),
        imp.name,
        imp.files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" and "),
        dir.display(),
        if n == 1 { "" } else { "s" }
    );
    ExitCode::SUCCESS
}
