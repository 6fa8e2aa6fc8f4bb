//! The `rocelab` command: the arguments (clap's definitions) and the dispatch to one module per
//! command under [`cmd`]. The work is done by the library crates; the commands are glue, and
//! their failures leave through [`failure::Failure`], printed and turned into the exit code here.

// The doc comments of the arguments are clap's `--help` text, where `<variant>` stands for a
// variant's name, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

mod builtin;
mod cmd;
mod failure;
mod input;
mod out;
/// The output-folder rules, shared with the Python package through the library.
use rocelab_report::outdir;
mod progress;
mod rundir;

use failure::Failure;

/// The system allocator with the heap on transparent huge pages: on the k = 32 fat tree the
/// engine's small allocations, read at random on every hop, walked the page table on most
/// misses (`rocelab_sim::huge_heap`).
#[global_allocator]
static ALLOCATOR: rocelab_sim::huge_heap::HugePageHeap = rocelab_sim::huge_heap::HugePageHeap;

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
pub(crate) enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
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
    /// --strict. A fabric file with `expect: [RULE-ID, ...]`: exit 0 when exactly those rules
    /// are found, 2 when not.
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
    /// Read a running fabric's counters against the fabric file: pause, drops, ECN and CNPs,
    /// RDMA loss, per device, port and priority. Exit 0 when clean, 2 on errors (or counter files
    /// that could not be read), 1 on warnings with --strict.
    Audit {
        /// The fabric file (YAML): the intent the counters are read against. Without it, the
        /// devices' configuration in the counters' folder (the `check --import` formats, with
        /// LLDP output for the cabling), or else the intent the counters show.
        file: Option<PathBuf>,
        /// Apply a named variant first.
        #[arg(long, requires = "file")]
        variant: Option<String>,
        /// The counters, one or more files per device named `<device>.<anything>` (NVIDIA
        /// ConnectX `ethtool -S` and RDMA hw_counters, SONiC `show pfc counters`, `show queue
        /// counters` and `show pfcwd stats`, Arista EOS `show priority-flow-control counters`),
        /// and ConnectX CNP settings (`grep . /sys/class/net/IF/ecn/roce_np/cnp_802p_prio
        /// /sys/class/net/IF/ecn/roce_np/cnp_dscp`).
        #[arg(long)]
        counters: PathBuf,
        /// An earlier snapshot of the same counters: the audit is of the increase since.
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// A results.json of `rocelab sim --out` of the same fabric and workload: each counter
        /// beside the simulation's prediction, AUDIT-SIM-DIVERGES where they disagree beyond a
        /// factor of two (give or take 10 events).
        #[arg(long, value_name = "SIM_RESULTS")]
        expect: Option<PathBuf>,
        /// The seconds the counters cover (from the baseline, or since they were cleared): the
        /// counter formats carry no time. With it, a priority paused for more than
        /// --pause-share of it is AUDIT-PAUSE-STORM.
        #[arg(long, value_name = "SECONDS")]
        interval: Option<f64>,
        /// The share of the interval, in percent, a priority may be paused [default: 10].
        #[arg(long, value_name = "PERCENT", requires = "interval")]
        pause_share: Option<f64>,
        /// Write the audit page (DIR/audit.html: per-port counters as charts, the findings
        /// beside them).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// `sarif`: SARIF 2.1.0, each finding at the counter file and line it was read from.
        #[arg(long, value_enum, default_value = "text")]
        format: CheckFormat,
        /// Warnings fail the audit too (exit 1).
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
        /// Leave out the final command that saves each switch's configuration (the runbook then
        /// says how to save once the checks pass).
        #[arg(long)]
        no_save: bool,
    },
    /// Simulate a scenario packet by packet: per flow throughput and completion, per port and
    /// priority PFC, ECN, drops and queues. Without a file, the built-in incast scenario.
    Sim {
        /// A scenario file (a fabric with `workloads` and `simulation`).
        file: Option<PathBuf>,
        /// Seed of the run (overrides `simulation.seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// With --all: run every variant and sweep point under N seeds, --seed (or
        /// `simulation.seed`) and the N-1 after it, instead of `simulation.seeds`;
        /// DIR/runs/<variant>[/<field=value>]/seed=<S>/ each, and the report's spread over seeds.
        #[arg(long, value_name = "N", requires = "all", value_parser = clap::value_parser!(u64).range(1..=rocelab_model::workload::MAX_SEEDS as u64))]
        seeds: Option<u64>,
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
        /// With --all: run the runs as Ray tasks, on a local Ray started on demand or on the
        /// cluster at ADDRESS (e.g. auto, ray://head:10001); the same folder as without. Needs
        /// Python with the rocelab package and Ray: $ROCELAB_PYTHON, else .venv/bin/python of
        /// this folder or one above, else python3.
        #[arg(long, value_name = "ADDRESS", num_args = 0..=1, default_missing_value = "local", requires = "all")]
        ray: Option<String>,
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
        /// Simulate on N threads, the fabric cut into N parts (pods of a fat tree, leaves of a
        /// leaf-spine) synchronized conservatively: the same results as one thread. Default:
        /// every core, up to the parts the fabric can be cut into, when a window of the
        /// threads holds enough work (links that carry 1,000 full-size frames in the cut's
        /// least delay; else one thread, silently); one thread, saying why once
        /// (unless --quiet), when the run has what threads cannot simulate yet (hpcc-compat's
        /// ECN draws, SMB Direct jobs whose send credits may run out, --out or --pcap), which
        /// an explicit N above 1 refuses with the reason; fewer, saying so, when the threads'
        /// copies of the run would not fit in memory (an explicit N is refused, naming the N
        /// that fits).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024), conflicts_with = "all")]
        threads: Option<u32>,
        /// On several threads, print on stderr how each thread's time went (building, running
        /// its events, waiting for the other threads) and what it ran and sent: where a speed-up short
        /// of the thread count goes.
        #[arg(long, conflicts_with = "all")]
        threads_profile: bool,
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
        /// Run each scenario on N threads, the fabric cut into N parts (the same results; the
        /// scenarios threads cannot simulate yet are refused with the reason). Default: one, so
        /// that events per second are per core; on more, a line a thread says how its time went
        /// (building, running, waiting for the other threads) and what it ran and sent.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: u32,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Import another tool's files as a rocelab scenario: `rocelab import hpcc CONFIG --out DIR`
    /// (the ns-3 HPCC simulator's config.txt, topology and flows).
    Import {
        #[command(subcommand)]
        what: ImportCommand,
    },
    /// Search the parameters a fabric file's `tune:` section names (ECN thresholds, DCQCN
    /// timers and gains, ...) for its objective over simulation results, with Ray Tune and
    /// Optuna's sampler in the Python package (`python -m rocelab.tune`). Writes DIR/trials.csv
    /// and trials.json, DIR/best.yaml (the best configuration as a variant `tuned`, or
    /// `pareto-N` with two objectives) and DIR/report.html. Exit 0 with a best configuration, 1
    /// on bad input or when no trial met the constraints, 2 when Python, Ray Tune or Optuna is
    /// missing (with the pip command).
    Tune {
        /// The fabric file, with a `tune:` section.
        file: PathBuf,
        /// Where the trials, best.yaml and report.html go (made if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// How many trials (default: the file's `tune.trials`).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
        trials: Option<u32>,
        /// Run on the Ray cluster at ADDRESS (e.g. `auto`, `ray://head:10001`); default: a
        /// local Ray started for the search.
        #[arg(long, value_name = "ADDRESS")]
        ray: Option<String>,
        /// Trials at once. 1 (the default) keeps the search reproducible: each suggestion sees
        /// every earlier result.
        #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
        concurrency: u32,
        /// CPUs of the local Ray (default: all of this machine's).
        #[arg(long, value_name = "C", value_parser = clap::value_parser!(u32).range(1..=4096))]
        cpus: Option<u32>,
    },
    /// List the built-in examples (the seed deployments), or print one as YAML.
    Examples {
        /// Print this example's YAML.
        name: Option<String>,
    },
}

#[derive(Subcommand)]
enum ImportCommand {
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

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Validate { files, format } => Ok(cmd::validate::run(&files, format)),
        Command::Show { file, variant, example, format } => {
            cmd::show::run(file.as_deref(), example.as_deref(), variant.as_deref(), format)
        }
        Command::Check { file, variant, import, links, format, strict } => {
            cmd::check::run(file.as_deref(), variant.as_deref(), import.as_deref(), links.as_deref(), format, strict)
        }
        Command::Audit { file, variant, counters, baseline, expect, interval, pause_share, out, format, strict } => {
            let args = cmd::audit::Args {
                counters: &counters,
                baseline: baseline.as_deref(),
                expect: expect.as_deref(),
                interval,
                pause_share,
                out: out.as_deref(),
                format,
                strict,
            };
            cmd::audit::run(file.as_deref(), variant.as_deref(), args)
        }
        Command::Examples { name } => cmd::examples::run(name.as_deref()),
        Command::Import { what: ImportCommand::Hpcc { config, out, force, topology, flows } } => {
            cmd::import::hpcc(&config, &out, force, rocelab_model::hpcc_import::ImportOptions { topology, flows })
        }
        Command::Sim {
            file,
            seed,
            seeds,
            out,
            variant,
            example,
            format,
            all,
            ray,
            pcap,
            pcap_port,
            pcap_flow,
            pcap_limit,
            quiet,
            threads,
            threads_profile,
        } => {
            let args = cmd::sim::SimArgs {
                file: file.as_deref(),
                example: example.as_deref(),
                variant: variant.as_deref(),
                seed,
                seeds,
                out: out.as_deref(),
                json: format == Format::Json,
                pcap: pcap.as_deref(),
                pcap_ports: &pcap_port,
                pcap_flows: &pcap_flow,
                pcap_limit,
                quiet,
                ray: ray.as_deref(),
                threads: threads.map(|t| t as usize),
                threads_profile,
            };
            match (all, out.as_deref()) {
                (true, Some(dir)) => cmd::sim_all::run(&args, dir),
                // clap requires --out with --all.
                (true, None) => Err(Failure::error(failure::REFUSED, "--all needs --out DIR")),
                (false, _) => cmd::sim::run(&args),
            }
        }
        Command::Report { dir } => cmd::report::run(&dir),
        Command::Tune { file, out, trials, ray, concurrency, cpus } => {
            cmd::tune::run(&cmd::tune::Args { file, out, trials, ray, concurrency, cpus })
        }
        Command::Bench { scenarios, time_us, threads, format } => {
            cmd::bench::run(&scenarios, time_us, threads as usize, format == Format::Json)
        }
        Command::Config { file, out, device, variant, templates, no_save } => cmd::config::run(
            &file,
            out.as_deref(),
            device.as_deref(),
            variant.as_deref(),
            templates.as_deref(),
            !no_save,
        ),
    }
}
