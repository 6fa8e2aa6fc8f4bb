//! The `rocelab` command: argument parsing, files and output. The work is done by the library
//! crates; this is glue.

// The doc comments of the arguments are clap's `--help` text, where `<variant>` stands for a
// variant's name, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

use clap::{Parser, Subcommand, ValueEnum};
use rocelab_model::{Diagnostics, Loaded};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod builtin;
mod import;
mod out;
mod outdir;
mod outpath;
mod sim;

use out::{out, outln};

#[derive(Parser)]
#[command(
    name = "rocelab",
    version,
    about = "Describe, configure, check and simulate lossless Ethernet fabrics for RDMA and storage"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
    Sarif,
}

#[derive(Subcommand)]
enum Command {
    /// Check that fabric files load: every error of each file, located; exit 1 if any.
    Validate {
        /// Fabric files (YAML).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Print the expanded fabric: devices, ports, links, QoS classes, DCQCN, classes per link.
    Show {
        /// A fabric file; without one, the built-in example (`rocelab examples` lists them).
        file: Option<PathBuf>,
        /// Apply a named variant first.
        #[arg(long)]
        variant: Option<String>,
        /// Use a built-in example instead of a file.
        #[arg(long, conflicts_with = "file")]
        example: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Check a fabric statically: every finding with its rule, place, reason, fix and source.
    /// Exit 0 when clean, 2 on errors (or a fabric that does not load), 1 on warnings with
    /// --strict.
    Check {
        /// A fabric file (YAML).
        #[arg(required_unless_present = "import")]
        file: Option<PathBuf>,
        /// Apply a named variant first.
        #[arg(long)]
        variant: Option<String>,
        /// Read running configurations of existing devices from this directory instead (Arista
        /// EOS, SONiC config_db.json, NVIDIA Onyx, mlnx_qos -i, Windows Get-NetQos*; LLDP
        /// neighbour tables in it give the cabling).
        #[arg(long, conflicts_with = "file")]
        import: Option<PathBuf>,
        /// With --import: the cabling, as a links file (YAML), an LLDP neighbour capture or a
        /// directory of them.
        #[arg(long, requires = "import", conflicts_with = "file")]
        links: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: CheckFormat,
        /// Warnings fail the check too (exit 1).
        #[arg(long)]
        strict: bool,
    },
    /// Render every switch and host configuration and a deployment runbook (DIR/RUNBOOK.md), or
    /// one device to stdout. Exit 0 when every device rendered, 2 when some could not (their
    /// reasons on stderr; the others are still written).
    Config {
        /// A fabric file (YAML).
        file: PathBuf,
        /// Write one file per device and RUNBOOK.md here.
        #[arg(long, required_unless_present = "device", conflicts_with = "device")]
        out: Option<PathBuf>,
        /// Print this device's configuration to stdout instead.
        #[arg(long)]
        device: Option<String>,
        /// Apply a named variant first.
        #[arg(long)]
        variant: Option<String>,
        /// Use the templates in this directory instead of the built-in ones of the same name.
        #[arg(long)]
        templates: Option<PathBuf>,
    },
    /// Simulate a scenario packet by packet: per flow throughput and completion, per port and
    /// priority PFC, ECN, drops and queues. Without a file, the built-in incast scenario.
    Sim {
        /// A scenario file (a fabric with `workloads` and `simulation`).
        file: Option<PathBuf>,
        /// Seed of the run (overrides `simulation.seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// Write DIR/results.json, DIR/summary.txt, DIR/report.html, a CSV file per table and, when
        /// flows have sizes, DIR/fct.txt (the HPCC simulator's format).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Apply a named variant first.
        #[arg(long)]
        variant: Option<String>,
        /// Use a built-in example instead of a file.
        #[arg(long, conflicts_with = "file")]
        example: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Run the base scenario and every variant at every sweep point: DIR/runs/<variant>[/<field=value>]/,
        /// DIR/index.json and one report with the runs side by side.
        #[arg(long, requires = "out", conflicts_with_all = ["variant", "pcap"])]
        all: bool,
        /// Write the frames crossing the chosen ports to FILE (pcap, Ethernet, nanosecond time stamps).
        #[arg(long, value_name = "FILE")]
        pcap: Option<PathBuf>,
        /// Capture this port's link, both directions (repeatable); default: every link.
        #[arg(long, value_name = "DEVICE:PORT", requires = "pcap")]
        pcap_port: Vec<String>,
        /// Keep only this flow's data frames (a workload name selects all its flows; repeatable).
        #[arg(long, value_name = "NAME", requires = "pcap")]
        pcap_flow: Vec<String>,
        /// Stop capturing after N frames.
        #[arg(long, value_name = "N", requires = "pcap")]
        pcap_limit: Option<u64>,
        /// No progress on stderr: neither the bar (on a terminal) nor the line every few seconds
        /// (elsewhere).
        #[arg(long, short)]
        quiet: bool,
    },
    /// Render the report (DIR/report.html and its CSV files) again from the results files a
    /// `rocelab sim --out DIR` wrote. Exit 1 when a results file is missing or unreadable.
    Report {
        /// A directory written by `rocelab sim --out DIR` (with or without --all).
        dir: PathBuf,
    },
    /// Measure the simulator on its standard scenarios, built in (no file needed): events per
    /// second on one core, wall and CPU time, peak memory, packets in flight, and the digest of
    /// the results (equal digests, equal simulated results). Default: incast, fat-tree and
    /// fat-tree-30, each for its standard simulated time (about 4 s in all).
    Bench {
        /// Scenarios to run: incast (16:1 at 100G), fat-tree (320 hosts, line-rate permutation),
        /// fat-tree-30 (the same at 30 Gb/s per host), incast-rdma and fat-tree-rdma (RC queue
        /// pairs with DCQCN), tcp-iperf (16 CUBIC streams into a 40G link).
        #[arg(value_name = "SCENARIO", value_parser = clap::builder::PossibleValuesParser::new(rocelab_sim::bench::Scenario::NAMES))]
        scenarios: Vec<String>,
        /// Simulated time of each run in microseconds, instead of each scenario's standard time
        /// (the incasts 100,000; the fat trees 1,000; tcp-iperf 20,000).
        #[arg(long, value_name = "MICROSECONDS", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        time_us: Option<u64>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Import another tool's files as a rocelab scenario: `rocelab import hpcc CONFIG --out DIR`
    /// (the ns-3 HPCC simulator's config.txt, topology and flows).
    Import {
        #[command(subcommand)]
        what: import::ImportCommand,
    },
    /// List the built-in examples (the seed deployments), or print one as YAML.
    Examples {
        /// Print this example's YAML.
        name: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Validate { files, format } => Ok(validate(&files, format)),
        Command::Show { file, variant, example, format } => {
            show(file.as_deref(), example.as_deref(), variant.as_deref(), format)
        }
        Command::Check { file, variant, import, links, format, strict } => {
            check(file.as_deref(), variant.as_deref(), import.as_deref(), links.as_deref(), format, strict)
        }
        Command::Examples { name } => examples(name.as_deref()),
        Command::Import { what } => Ok(import::run(what)),
        Command::Sim {
            file,
            seed,
            out,
            variant,
            example,
            format,
            all,
            pcap,
            pcap_port,
            pcap_flow,
            pcap_limit,
            quiet,
        } => sim::run(&sim::SimArgs {
            file: file.as_deref(),
            example: example.as_deref(),
            variant: variant.as_deref(),
            seed,
            out: out.as_deref(),
            json: format == Format::Json,
            all,
            pcap: pcap.as_deref(),
            pcap_ports: &pcap_port,
            pcap_flows: &pcap_flow,
            pcap_limit,
            quiet,
        }),
        Command::Report { dir } => sim::report(&dir),
        Command::Bench { scenarios, time_us, format } => bench::run(&scenarios, time_us, format == Format::Json),
        Command::Config { file, out, device, variant, templates } => {
            config(&file, out.as_deref(), device.as_deref(), variant.as_deref(), templates.as_deref())
        }
    }
}

pub(crate) fn print_diagnostics(d: &Diagnostics) {
    for x in &d.0 {
        eprintln!("{x}");
    }
}

fn validate(files: &[PathBuf], format: Format) -> ExitCode {
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

/// Loads a fabric file or a built-in example (the default one without either); `None` for an
/// example name that is none.
fn load(file: Option<&Path>, example: Option<&str>) -> Option<Result<Loaded, Diagnostics>> {
    Some(match file {
        Some(f) => rocelab_model::load_file(f),
        None => {
            let ex = builtin::get(example.unwrap_or(builtin::DEFAULT))?;
            rocelab_model::load_str(ex.yaml, &format!("<built-in {}>", ex.name), Path::new("."))
        }
    })
}

/// Loads a fabric file (or a built-in example) and applies a variant; on bad input prints every
/// diagnostic and returns the exit code to use.
pub(crate) fn open(
    file: Option<&Path>,
    example: Option<&str>,
    variant: Option<&str>,
    fail: u8,
) -> Result<(Loaded, rocelab_model::ResolvedFabric), ExitCode> {
    let Some(loaded) = load(file, example) else {
        eprintln!("error: {}", builtin::unknown(example.unwrap_or_default()));
        return Err(ExitCode::from(fail));
    };
    let loaded = loaded.map_err(|d| {
        print_diagnostics(&d);
        ExitCode::from(fail)
    })?;
    let fabric = loaded.select(variant).map_err(|d| {
        print_diagnostics(&d);
        ExitCode::from(fail)
    })?;
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    Ok((loaded, fabric))
}

fn show(file: Option<&Path>, example: Option<&str>, variant: Option<&str>, format: Format) -> Result<ExitCode, String> {
    let fabric = match open(file, example, variant, 1) {
        Ok((_, f)) => f,
        Err(code) => return Ok(code),
    };
    match format {
        Format::Text => out!("{}", rocelab_model::display::summary(&fabric)),
        Format::Json => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&rocelab_model::display::json(&fabric)).map_err(|e| e.to_string())?
            )
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn check(
    file: Option<&Path>,
    variant: Option<&str>,
    import: Option<&Path>,
    links: Option<&Path>,
    format: CheckFormat,
    strict: bool,
) -> Result<ExitCode, String> {
    let mut unreadable = 0;
    let (state, subject, artifact) = match (file, import) {
        (Some(f), _) => {
            let fabric = match open(Some(f), None, variant, 2) {
                Ok((_, fabric)) => fabric,
                Err(code) => return Ok(code),
            };
            let subject = match variant {
                Some(v) => format!("{} (variant {v})", f.display()),
                None => f.display().to_string(),
            };
            (rocelab_verify::from_intent(&fabric), subject, f.display().to_string())
        }
        (None, Some(dir)) => {
            // Files that could not be read are said first, also when the import then stops (a
            // links file naming the device of a config_db.json cut short).
            let files = rocelab_verify::import::read_dir(dir).map_err(|e| e.to_string())?;
            for e in &files.errors {
                eprintln!("{}", rocelab_verify::render::printable(&e.to_string()));
            }
            unreadable = files.errors.len();
            let imported = rocelab_verify::import::import_files(files, dir, links).map_err(|e| e.to_string())?;
            for u in &imported.not_understood {
                eprintln!("{}", rocelab_verify::render::printable(&u.to_string()));
            }
            (imported.state, dir.display().to_string(), dir.display().to_string())
        }
        (None, None) => return Err("give a fabric file or --import DIR".into()),
    };
    let findings = rocelab_verify::check(&state);
    let text = match format {
        CheckFormat::Text => rocelab_verify::render::table(&findings, &subject),
        CheckFormat::Json => {
            serde_json::to_string_pretty(&rocelab_verify::render::json(&findings)).map_err(|e| e.to_string())? + "\n"
        }
        CheckFormat::Sarif => {
            serde_json::to_string_pretty(&rocelab_verify::render::sarif(&findings, &artifact))
                .map_err(|e| e.to_string())?
                + "\n"
        }
    };
    // A reader that stops early (`| head`) is not an error of the check.
    out!("{text}");
    let (errors, warnings, _) = rocelab_verify::finding::counts(&findings);
    if unreadable > 0 {
        eprintln!(
            "error: {unreadable} file{} in {subject} could not be read (above); the check is of the fabric without {}",
            if unreadable == 1 { "" } else { "s" },
            if unreadable == 1 { "its configuration" } else { "their configurations" }
        );
    }
    Ok(if errors > 0 || unreadable > 0 {
        ExitCode::from(2)
    } else if strict && warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn examples(name: Option<&str>) -> Result<ExitCode, String> {
    match name {
        None => {
            let w = builtin::EXAMPLES.iter().map(|e| e.name.len()).max().unwrap_or(0);
            for e in builtin::EXAMPLES {
                let mark = if e.name == builtin::DEFAULT { " (default)" } else { "" };
                outln!("{:w$}  {}{mark}", e.name, e.title);
            }
        }
        Some(n) => match builtin::get(n) {
            Some(e) => out!("{}", e.yaml),
            None => {
                // Bad input, as `show --example` says it: exit 1, with the nearest name.
                eprintln!("error: {}", builtin::unknown(n));
                return Ok(ExitCode::from(1));
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

fn config(
    file: &Path,
    out: Option<&Path>,
    device: Option<&str>,
    variant: Option<&str>,
    templates: Option<&Path>,
) -> Result<ExitCode, String> {
    let loaded = match rocelab_model::load_file(file) {
        Ok(l) => l,
        Err(d) => {
            print_diagnostics(&d);
            return Ok(ExitCode::from(2));
        }
    };
    let fabric = match variant {
        None => loaded.fabric.clone(),
        Some(v) => match loaded.variant(v) {
            Ok(f) => f,
            Err(d) => {
                print_diagnostics(&d);
                return Ok(ExitCode::from(2));
            }
        },
    };
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    if let Some(dir) = out {
        // Said before anything is rendered; exit 2 as the command's other errors.
        crate::outdir::prepare(dir)?;
    }
    let t = match templates {
        Some(dir) => rocelab_config::Templates::with_overrides(dir).map_err(|e| e.to_string())?,
        None => rocelab_config::Templates::builtin(),
    };
    if let Some(name) = device {
        let (file, findings) = rocelab_config::render_device(&fabric, name, &t).map_err(|e| e.to_string())?;
        for f in &findings {
            eprintln!("{f}");
        }
        return Ok(match file {
            Some(f) => {
                out!("{}", f.text);
                ExitCode::SUCCESS
            }
            None => ExitCode::from(2),
        });
    }
    let dir = out.ok_or("give --out DIR or --device NAME")?;
    // Each file is written as soon as it is rendered, not held until all are.
    let write = |_: usize, f: rocelab_config::DeviceFile| -> Result<(), String> {
        let path = outpath::file_in(dir, &f.file_name)?;
        std::fs::write(&path, &f.text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let r = rocelab_config::render_into(&fabric, &t, &write).map_err(|e| e.to_string())?;
    let path = dir.join("RUNBOOK.md");
    std::fs::write(&path, &r.runbook).map_err(|e| format!("{}: {e}", path.display()))?;
    for f in &r.findings {
        eprintln!("{f}");
    }
    outln!("wrote {} device files and RUNBOOK.md to {}", r.files, dir.display());
    Ok(if r.findings.iter().any(|f| f.is_error()) { ExitCode::from(2) } else { ExitCode::SUCCESS })
}
