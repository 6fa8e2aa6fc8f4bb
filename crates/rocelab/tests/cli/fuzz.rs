//! Fuzz: every example, mutated (lines deleted and duplicated, numbers set to 0, negative or
//! huge, units changed, characters swapped or replaced), through `validate`, `check`, `config`
//! and a short `sim`, each a child process under a memory and a wall-time limit. A run passes
//! when every command exits 0, 1 or 2 with an error message: no panic, no abort (an allocation
//! past the memory limit aborts), no other signal, no timeout, and nothing written outside the
//! `--out` directories. The inputs that once failed stay in `tests/fuzz-regressions/` and run
//! through the same commands every time.
//!
//! Deterministic: the mutants of a seed are the same on every machine. Locally, more of them:
//! `ROCELAB_FUZZ_CASES=5000 cargo test -p rocelab --test cli fuzz` (`ROCELAB_FUZZ_SEED`,
//! `ROCELAB_FUZZ_JOBS`, `ROCELAB_FUZZ_TIMEOUT_S`, and `ROCELAB_FUZZ_BIN` to run another build
//! of `rocelab`, e.g. the release binary, under the debug test harness).

#[path = "fuzz_mutate.rs"]
mod mutate;

use super::workspace;
use mutate::{hash, ms_as_us, mutate, with_duration, Rng};
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Regression cases that fail on this branch until the fixes of issue 43 in the model, the
/// simulator's estimates and the name checks are merged. The test fails when one of them
/// passes, so that the list is emptied as the fixes land, and when any other case fails.
const KNOWN_OPEN: &[&str] = &[];

/// Fields whose mutants are skipped while a failure of theirs is open: the regression case
/// in `KNOWN_OPEN` that stands for them, or why there is none. A mutant that makes a value of
/// such a field huge or changes its unit (the key before it on its line: `ports` in
/// `{…, ports: 2}`) fails the way that case does, and would only cost the wall limit again;
/// zero and negative values of these fields still run.
const KNOWN_OPEN_FIELDS: &[(&str, &str)] = &[
    // `20us` made `20s` or 2147483647 us: a run of seconds of simulated time takes longer than
    // the wall limit, as asked. Nothing bounds a run's length (events, simulated time) today.
    ("duration", "no case: a long run is what the file asks for; a bound on a run's events is open"),
];

/// Mutants in `cargo test` (debug, two cores, two children at a time): about 0.04 s each,
/// 35 to 50 s in all beside the regression cases; `ROCELAB_FUZZ_CASES` runs more.
const DEFAULT_CASES: usize = 840;
const DEFAULT_SEED: u64 = 43;
/// Address space of each child: a run that needs more is a missing bound, as in issue 43.
const MEMORY_KIB: u64 = 1 << 20;
/// Largest file a child may write (KiB): a short run's output is far smaller.
const FILE_KIB: u64 = 256 << 10;
/// The simulated time a mutant's `sim` runs, written over `simulation.duration`.
const SHORT_DURATION: &str = "20us";

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn binary() -> PathBuf {
    std::env::var_os("ROCELAB_FUZZ_BIN").map(PathBuf::from).unwrap_or_else(|| env!("CARGO_BIN_EXE_rocelab").into())
}

/// How long one command may run before it counts as hung: 60 s of wall time, far above the
/// 1-2 s of CPU the slowest case (validating a k = 64 fat tree in a debug build) takes, so that
/// a machine loaded by other builds does not turn a slow case into a failure.
fn wall_limit() -> Duration {
    Duration::from_secs(env_or("ROCELAB_FUZZ_TIMEOUT_S", 60))
}

/// Commands a case runs, in order, from its input directory.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Run {
    /// validate, check, config, sim of the scenario.
    Scenario,
    /// The same, and `sim --all` (variants and sweep points).
    ScenarioAll,
    /// `import hpcc` of a config.txt, then validate and check of the scenario it writes.
    Import,
}

/// What a regression case asks beyond the general rules (its `# expect:` lines).
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// `validate` exits 1 with an error located in the file (`name:line:column:`).
    Rejected,
    /// No shell script `config` writes runs this command (a name smuggling one in).
    NoShellCommand(String),
    /// `sim` refuses the run up front (exit 2, "too large to simulate") rather than aborting.
    Refused,
    /// This command is not run on the case; the line says why (a scale the wall limit does not
    /// allow in a debug build, for instance).
    Skip(String),
}

struct Case {
    label: String,
    files: Vec<(String, String)>,
    target: String,
    run: Run,
    expect: Vec<Expect>,
    mutations: Vec<String>,
}

struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    stderr: String,
}

/// Runs `rocelab args` in `cwd` under the limits; stderr goes to `log` (a pipe could fill).
/// `sh` sets them and `exec`s: no new dependency, and the kill on timeout reaches `rocelab`.
/// `ulimit -v` counts KiB, `ulimit -f` 512-byte blocks (POSIX; bash counts KiB, twice the room).
fn run_limited(args: &[&str], cwd: &Path, log: &Path) -> Outcome {
    let script = format!("ulimit -v {MEMORY_KIB} && ulimit -f {} && exec \"$0\" \"$@\"", FILE_KIB * 2);
    let err = std::fs::File::create(log).expect("creates the log");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(binary())
        .args(args)
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("starts sh");
    let started = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break (status, false);
        }
        if started.elapsed() > wall_limit() {
            let _ = child.kill();
            break (child.wait().expect("waits"), true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    Outcome { code: status.code(), signal: status.signal(), timed_out, stderr }
}

/// What went wrong in a run, if anything: the issue's failure classes.
fn symptom(o: &Outcome) -> Option<String> {
    let tail = |s: &str| s.lines().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ");
    if o.timed_out {
        return Some(format!("timeout: still running after {:?}", wall_limit()));
    }
    if let Some(at) = o.stderr.find("memory allocation of") {
        let line = o.stderr[at..].lines().next().unwrap_or_default();
        return Some(format!("allocation abort past the {} MiB limit: {line}", MEMORY_KIB >> 10));
    }
    if let Some(at) = o.stderr.find("panicked at") {
        let msg: Vec<&str> = o.stderr[at..].lines().take(2).collect();
        return Some(format!("panic: {}", msg.join(" ")));
    }
    if o.code == Some(101) || o.stderr.contains("RUST_BACKTRACE") {
        return Some(format!("panic (exit {:?}): {}", o.code, tail(&o.stderr)));
    }
    if let Some(sig) = o.signal {
        return Some(format!("killed by signal {sig}: {}", tail(&o.stderr)));
    }
    match o.code {
        Some(0..=2) => None,
        c => Some(format!("exit {c:?}: {}", tail(&o.stderr))),
    }
}

/// Tallies of exit codes per command, printed at the end: how deep the mutants reach.
type Tally = Mutex<BTreeMap<String, usize>>;

/// Runs a case in `root` (created afresh); `Err` with what failed. Stops at the first failure:
/// a runaway costs the wall limit once, not four times.
fn run_case(case: &Case, root: &Path, tally: &Tally) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(root);
    let input = root.join("in");
    std::fs::create_dir_all(&input).expect("creates the case directory");
    for (name, text) in &case.files {
        std::fs::write(input.join(name), text).expect("writes the input");
    }
    let t = case.target.as_str();
    let mut commands: Vec<Vec<&str>> = match case.run {
        Run::Import => vec![vec!["import", "hpcc", t, "--out", "import"]],
        _ => vec![
            vec!["validate", t],
            vec!["check", t],
            vec!["config", t, "--out", "config"],
            vec!["sim", t, "--out", "sim"],
        ],
    };
    if case.run == Run::ScenarioAll {
        commands.push(vec!["sim", t, "--all", "--out", "all"]);
    }
    commands.retain(|c| !case.expect.iter().any(|e| matches!(e, Expect::Skip(s) if s == c[0])));
    let mut i = 0;
    while i < commands.len() {
        let args = &commands[i];
        let out = run_limited(args, &input, &root.join(format!("{i}-{}.stderr", args[0])));
        let fail = |what: String| format!("`rocelab {}` in {}: {what}", args.join(" "), input.display());
        if let Some(s) = symptom(&out) {
            return Err(fail(s));
        }
        *tally.lock().unwrap().entry(format!("{} {:?}", args[0], out.code.unwrap_or(-1))).or_default() += 1;
        // A run refused after validate passed: an error without its place in the file. Counted
        // by message (digits dropped), not failed: the places are for the checks to give.
        if args[0] == "sim" && out.code == Some(2) && case.run != Run::Import {
            if let Some(line) = out.stderr.lines().find(|l| l.contains("the run was refused")) {
                let gist: String = line.chars().filter(|c| !c.is_ascii_digit()).take(110).collect();
                *tally.lock().unwrap().entry(format!("validate 0, sim 2: {gist}")).or_default() += 1;
            }
        }
        if args[0] == "validate" && case.expect.contains(&Expect::Rejected) {
            let located = out.stderr.lines().any(|l| {
                l.strip_prefix(t).and_then(|r| r.strip_prefix(':')).is_some_and(|r| {
                    r.split(':').take(2).all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                })
            });
            if out.code != Some(1) || !located {
                return Err(fail(format!("accepted, or rejected without a located error: {:?}", out.code)));
            }
        }
        if args[0] == "sim"
            && case.expect.contains(&Expect::Refused)
            && (out.code != Some(2) || !out.stderr.contains("too large to simulate"))
        {
            return Err(fail(format!("not refused up front with its estimate: {:?}", out.code)));
        }
        if args[0] == "import" && out.code == Some(0) {
            commands.push(vec!["validate", "import/scenario.yaml"]);
            commands.push(vec!["check", "import/scenario.yaml"]);
        }
        i += 1;
    }
    stays_in_its_directories(case, &input)?;
    for e in &case.expect {
        if let Expect::NoShellCommand(cmd) = e {
            for f in files_under(&input.join("config")).iter().filter(|f| f.extension().is_some_and(|x| x == "sh")) {
                let script = std::fs::read_to_string(f).unwrap_or_default();
                if let Some(line) = script.lines().find(|l| shell_commands(l).iter().any(|c| c == cmd)) {
                    return Err(format!("{} runs `{cmd}`: {line}", f.display()));
                }
            }
        }
    }
    Ok(())
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Nothing but the inputs and the `--out` directories in the input directory, nothing but it
/// and the logs in the case's: a name like `../x` must not place a file beside them.
fn stays_in_its_directories(case: &Case, input: &Path) -> Result<(), String> {
    let allowed = ["config", "sim", "all", "import"];
    for e in std::fs::read_dir(input).expect("lists the input").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !allowed.contains(&name.as_str()) && !case.files.iter().any(|(f, _)| *f == name) {
            return Err(format!("wrote {} outside every --out directory", e.path().display()));
        }
    }
    for e in std::fs::read_dir(input.parent().unwrap()).expect("lists the case").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name != "in" && !name.ends_with(".stderr") {
            return Err(format!("wrote {} outside every --out directory", e.path().display()));
        }
    }
    Ok(())
}

/// The first word of each command of a shell line, in command substitutions too and not in
/// quotes: `ip link set dev eth0;reboot up` runs `ip` and `reboot`, `echo 'a;reboot'` `echo`.
fn shell_commands(line: &str) -> Vec<String> {
    /// Ends a word: the command's name when none came before it but assignments.
    fn end(word: &mut String, at_start: &mut bool, out: &mut Vec<String>) {
        if !word.is_empty() && *at_start && !word.contains('=') {
            out.push(word.clone());
            *at_start = false;
        }
        word.clear();
    }
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut at_start, mut quoted) = (true, false);
    // (quoted, at_start) around each open `$(`.
    let mut outer = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !quoted => word.extend(chars.by_ref().take_while(|&d| d != '\'')),
            '\\' => word.extend(chars.next()),
            '"' => quoted = !quoted,
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                end(&mut word, &mut at_start, &mut out);
                outer.push((quoted, at_start));
                (quoted, at_start) = (false, true);
            }
            ')' if !quoted && !outer.is_empty() => {
                end(&mut word, &mut at_start, &mut out);
                (quoted, at_start) = outer.pop().unwrap();
            }
            '#' if !quoted && word.is_empty() => break,
            ';' | '&' | '|' | '(' | ')' | '`' if !quoted => {
                end(&mut word, &mut at_start, &mut out);
                at_start = true;
            }
            ' ' | '\t' if !quoted => end(&mut word, &mut at_start, &mut out),
            _ => word.push(c),
        }
    }
    end(&mut word, &mut at_start, &mut out);
    out
}

/// Runs every case, `jobs` at a time; the failures, by case.
fn run_all(cases: Vec<Case>, scratch: &Path, tally: &Tally) -> Vec<(Case, String)> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let cases: Vec<Mutex<Option<Case>>> = cases.into_iter().map(|c| Mutex::new(Some(c))).collect();
    std::thread::scope(|s| {
        for _ in 0..env_or("ROCELAB_FUZZ_JOBS", 2usize).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = cases.get(i) else { break };
                let case = slot.lock().unwrap().take().unwrap();
                let root = scratch.join(&case.label);
                match run_case(&case, &root, tally) {
                    Ok(()) => {
                        let _ = std::fs::remove_dir_all(&root);
                    }
                    Err(e) => failures.lock().unwrap().push((case, e)),
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort_by(|a, b| a.0.label.cmp(&b.0.label));
    f
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creates the scratch directory");
    dir
}

/// An example to mutate: its files (one of them the scenario), the ones to mutate, and the
/// commands for a mutant of each.
struct Source {
    name: String,
    files: Vec<(String, String)>,
    target: String,
}

/// Every example, its simulated time shortened where that keeps it valid: `SHORT_DURATION`,
/// or else every millisecond a microsecond, or else as it is.
fn sources(scratch: &Path) -> Vec<Source> {
    let examples = workspace().join("examples");
    let mut names: Vec<PathBuf> =
        std::fs::read_dir(&examples).expect("lists examples").flatten().map(|e| e.path()).collect();
    names.sort();
    let mut out = Vec::new();
    for path in names {
        let read = |p: &Path| std::fs::read_to_string(p).expect("reads the example");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (files, target) = if path.is_dir() {
            let mut files: Vec<(String, String)> = std::fs::read_dir(&path)
                .expect("lists the example folder")
                .flatten()
                // Files only: a folder of sample device output or counters (`device-outputs/`,
                // `counters/`) holds no scenario of its own.
                .filter(|e| e.path().is_file())
                .map(|e| (e.file_name().to_string_lossy().into_owned(), read(&e.path())))
                .collect();
            files.sort();
            let Some(target) = files.iter().find(|f| f.0.ends_with(".yaml")).map(|f| f.0.clone()) else { continue };
            (files, target)
        } else if name.ends_with(".yaml") {
            (vec![(name.clone(), read(&path))], name.clone())
        } else {
            continue;
        };
        let text = files.iter().find(|f| f.0 == target).unwrap().1.clone();
        let candidates = [with_duration(&text, SHORT_DURATION), Some(ms_as_us(&text)).filter(|t| *t != text)];
        let mut chosen = text.clone();
        for c in candidates.into_iter().flatten() {
            let dir = scratch.join(format!("base-{name}"));
            std::fs::create_dir_all(&dir).unwrap();
            for (f, t) in &files {
                std::fs::write(dir.join(f), if *f == target { &c } else { t }).unwrap();
            }
            let out = run_limited(&["validate", &target], &dir, &scratch.join(format!("base-{name}.stderr")));
            if out.code == Some(0) {
                chosen = c;
                break;
            }
        }
        let files = files.into_iter().map(|(f, t)| if f == target { (f, chosen.clone()) } else { (f, t) }).collect();
        out.push(Source { name, files, target });
    }
    out
}

/// The `i`-th mutant of `source` for `seed`: one of its files mutated; and whether it changes
/// a value of `KNOWN_OPEN_FIELDS`.
fn mutant(source: &Source, seed: u64, i: usize) -> (Case, bool) {
    let mut rng = Rng::new(seed ^ hash(&source.name) ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let k = rng.below(source.files.len());
    let (file, text) = &source.files[k];
    let (mutated, what) = mutate(text, &mut rng);
    let mut files = source.files.clone();
    files[k].1 = mutated;
    let (run, target) =
        if file == "config.txt" { (Run::Import, file.clone()) } else { (Run::Scenario, source.target.clone()) };
    let skip = what.iter().filter_map(|(_, k)| k.as_deref()).any(|k| KNOWN_OPEN_FIELDS.iter().any(|f| f.0 == k));
    let mutations = what.into_iter().map(|(w, _)| format!("{file} {w}")).collect();
    let case = Case { label: format!("{}-{i}", source.name), files, target, run, expect: vec![], mutations };
    (case, skip)
}

#[test]
fn fuzz_mutated_examples_never_panic_abort_or_hang() {
    let started = Instant::now();
    let seed = env_or("ROCELAB_FUZZ_SEED", DEFAULT_SEED);
    let total = env_or("ROCELAB_FUZZ_CASES", DEFAULT_CASES);
    let dir = scratch("fuzz");
    let sources = sources(&dir);
    assert!(sources.len() >= 20, "the examples: {}", sources.len());
    for (_, why) in KNOWN_OPEN_FIELDS {
        assert!(!why.ends_with(".yaml") || KNOWN_OPEN.contains(why), "{why} is not in KNOWN_OPEN");
    }
    let (cases, skipped): (Vec<_>, Vec<_>) =
        (0..total).map(|i| mutant(&sources[i % sources.len()], seed, i / sources.len())).partition(|m| !m.1);
    let cases = cases.into_iter().map(|m| m.0).collect();
    let tally = Tally::default();
    let failures = run_all(cases, &dir, &tally);
    let took = started.elapsed();
    eprintln!("fuzz: {total} mutants (seed {seed}), {} skipped (KNOWN_OPEN_FIELDS), in {took:?}", skipped.len());
    for (what, n) in tally.lock().unwrap().iter() {
        eprintln!("fuzz: {n:5} {what}");
    }
    if failures.is_empty() {
        return;
    }
    let mut report =
        format!("{} of {total} mutants failed (seed {seed}); each mutant is kept in its directory\n", failures.len());
    for (case, why) in &failures {
        let path = dir.join(&case.label).join("in").join(&case.target);
        report += &format!(
            "\n{}: {why}\n  mutations: {}\n  input: {}\n",
            case.label,
            case.mutations.join("; "),
            path.display()
        );
    }
    // The mutated file of the first failure (its name begins each mutation's description).
    let (first, _) = &failures[0];
    let file = first.mutations.first().and_then(|m| m.split(' ').next()).unwrap_or(&first.target);
    let text = &first.files.iter().find(|f| f.0 == file).unwrap_or(&first.files[0]).1;
    panic!("{report}\nthe first mutant ({}, {file}):\n{text}", first.label);
}

/// A regression case's `# expect:` lines: `rejected`, `no-shell-command WORD`, `refused`,
/// `skip COMMAND because …`.
fn expectations(text: &str) -> Vec<Expect> {
    let lines = text.lines().take_while(|l| l.starts_with('#'));
    lines
        .filter_map(|l| l.strip_prefix("# expect:"))
        .map(|e| match e.split_whitespace().collect::<Vec<_>>()[..] {
            ["rejected"] => Expect::Rejected,
            ["no-shell-command", word] => Expect::NoShellCommand(word.into()),
            ["refused"] => Expect::Refused,
            ["skip", command, "because", ..] => Expect::Skip(command.into()),
            _ => panic!("unknown expectation `{e}`"),
        })
        .collect()
}

#[test]
fn fuzz_regressions_stay_fixed() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut cases = Vec::new();
    for e in std::fs::read_dir(&folder).expect("lists the regressions").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(e.path()).expect("reads a regression");
        assert!(text.starts_with("# "), "{name}: starts with a comment on what it found");
        let run =
            if text.contains("\nsweep:") || text.contains("\nvariants:") { Run::ScenarioAll } else { Run::Scenario };
        let expect = expectations(&text);
        cases.push(Case {
            label: name.clone(),
            files: vec![(name.clone(), text)],
            target: name,
            run,
            expect,
            mutations: vec![],
        });
    }
    assert!(cases.len() >= KNOWN_OPEN.len(), "{} regression cases", cases.len());
    for k in KNOWN_OPEN {
        assert!(cases.iter().any(|c| c.label == *k), "KNOWN_OPEN names a missing case {k}");
    }
    let failures = run_all(cases, &scratch("fuzz-regressions"), &Tally::default());
    let mut report = String::new();
    for (case, why) in &failures {
        if !KNOWN_OPEN.contains(&case.label.as_str()) {
            report += &format!("{}: {why}\n", case.label);
        }
    }
    for k in KNOWN_OPEN {
        if !failures.iter().any(|(c, _)| c.label == *k) {
            report += &format!("{k}: passes now: remove it from KNOWN_OPEN\n");
        }
    }
    for (case, why) in &failures {
        eprintln!("known open: {}: {why}", case.label);
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn shell_commands_are_found_outside_quotes_only() {
    assert_eq!(shell_commands("ip link set dev eth0;reboot mtu 1500"), ["ip", "reboot"]);
    assert_eq!(shell_commands("DEV=$(rdma_dev eth0) && x"), ["rdma_dev", "x"]);
    assert_eq!(
        shell_commands(r#"ethtool -G p0 rx "$(ethtool -g a;reboot | awk '/^RX:/{print $2; exit}')""#),
        ["ethtool", "ethtool", "reboot", "awk"]
    );
    assert_eq!(shell_commands("echo 'a;reboot' \"b;reboot\" # ;reboot"), ["echo"]);
    assert_eq!(shell_commands("echo a\\;reboot"), ["echo"]);
}
