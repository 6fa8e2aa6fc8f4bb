//! Progress of a simulation on stderr: a bar on a terminal, a line every few seconds elsewhere
//! (a log, a CI job), nothing with `--quiet`. The run is cut into slices of simulated time for
//! it; the engine has no callback on its hot path, and slicing does not change the results.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rocelab_sim::{Observer, Results, Simulation};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A slice of the run should take about this long, so that the bar moves smoothly and the
/// slicing costs nothing measurable.
const SLICE_WALL: Duration = Duration::from_millis(50);
/// The bar appears once a run has taken this long (short runs print nothing).
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Wall time between two plain progress lines when stderr is not a terminal (a log, a CI job):
/// often enough to show the run is alive, seldom enough not to fill the log.
const LINE_EVERY: Duration = Duration::from_secs(5);
/// Overrides [`LINE_EVERY`] in milliseconds. For tests, which cannot afford a run of several
/// seconds in a debug build; not a user setting.
const LINE_EVERY_VAR: &str = "ROCELAB_PROGRESS_INTERVAL_MS";

/// How progress is shown on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    /// A bar redrawn in place, on a terminal.
    Bar,
    /// A line every so often, where a bar's redrawing would be garbage (a file, a pipe).
    Lines(Duration),
    /// Nothing (`--quiet`).
    Off,
}

impl Progress {
    fn new(quiet: bool, terminal: bool, interval_ms: Option<&str>) -> Progress {
        match (quiet, terminal) {
            (true, _) => Progress::Off,
            (false, true) => Progress::Bar,
            (false, false) => Progress::Lines(
                interval_ms.and_then(|v| v.trim().parse().ok()).map_or(LINE_EVERY, Duration::from_millis),
            ),
        }
    }
}

/// What is shown of one run: the bar (hidden until [`SHOW_AFTER`]) or the time of the last line.
struct Shown {
    mode: Progress,
    name: String,
    end: u64,
    bar: ProgressBar,
    started: Instant,
    shown: bool,
    last_line: Instant,
}

impl Shown {
    fn new(name: &str, end: u64, quiet: bool) -> Shown {
        let mode = Progress::new(quiet, std::io::stderr().is_terminal(), std::env::var(LINE_EVERY_VAR).ok().as_deref());
        let bar = ProgressBar::with_draw_target(Some(end), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("simulating {prefix}: {msg} [{wide_bar}] {elapsed}, ~{eta} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(name.to_string());
        let started = Instant::now();
        Shown { mode, name: name.to_string(), end, bar, started, shown: false, last_line: started }
    }

    /// The run has simulated up to `now` in `events` events (and is not finished).
    fn update(&mut self, now: u64, events: u64) {
        match self.mode {
            Progress::Bar => {
                if !self.shown && self.started.elapsed() >= SHOW_AFTER {
                    self.bar.set_draw_target(ProgressDrawTarget::stderr());
                    self.shown = true;
                }
                self.bar.set_position(now);
                self.bar.set_message(simulated_time(now, self.end));
            }
            Progress::Lines(every) if self.last_line.elapsed() >= every => {
                self.last_line = Instant::now();
                eprintln!("{}", progress_line(&self.name, now, self.end, events, self.started.elapsed()));
            }
            Progress::Lines(_) | Progress::Off => {}
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Run `sim` to its end in slices of simulated time and return the results, showing its
/// progress on stderr: on a terminal, a bar of simulated over total time once the run has taken
/// [`SHOW_AFTER`]; elsewhere a plain line every [`LINE_EVERY`] of wall time (a short run prints
/// none); with `quiet`, nothing. The slices adapt to the engine's speed; the engine itself has
/// no callback on its hot path, and slicing does not change the results.
pub fn run_with_progress<O: Observer>(mut sim: Simulation<'_, O>, name: &str, quiet: bool) -> Results {
    let end = sim.end_time();
    let mut shown = Shown::new(name, end, quiet);
    let mut slice = (end / 1000).max(1);
    while !sim.is_finished() {
        let t0 = Instant::now();
        sim.run_until(sim.now().saturating_add(slice));
        let took = t0.elapsed();
        if took < SLICE_WALL / 2 {
            slice = slice.saturating_mul(2);
        } else if took > SLICE_WALL * 2 {
            slice = (slice / 2).max(1);
        }
        if !sim.is_finished() {
            shown.update(sim.now(), sim.events());
        }
    }
    shown.finish();
    sim.finish()
}

/// A run on several threads ([`rocelab_sim::run_threads_watched`]), its progress shown as
/// [`run_with_progress`] shows one thread's: `run` is given the watch to pass on.
pub fn with_threads_progress<T>(name: &str, end: u64, quiet: bool, run: impl FnOnce(rocelab_sim::Watch<'_>) -> T) -> T {
    let shown = std::sync::Mutex::new(Shown::new(name, end, quiet));
    let watch = |now: u64, events: u64| {
        if now < end {
            shown.lock().unwrap_or_else(|e| e.into_inner()).update(now, events);
        }
    };
    let result = run(&watch);
    shown.lock().unwrap_or_else(|e| e.into_inner()).finish();
    result
}

/// `sim: NAME: 1.20 ms of 10.00 ms simulated, 48.1 M events, 12 s`.
fn progress_line(name: &str, now: u64, end: u64, events: u64, wall: Duration) -> String {
    let events = if events >= 1_000_000 { format!("{:.1} M", events as f64 / 1e6) } else { events.to_string() };
    format!("sim: {name}: {} simulated, {events} events, {} s", simulated_time(now, end), wall.as_secs())
}

/// "1.25 ms of 10.00 ms", in the unit that suits the end time.
fn simulated_time(now: u64, end: u64) -> String {
    let (unit, ps) = match end {
        e if e >= rocelab_sim::SECOND => ("s", rocelab_sim::SECOND),
        e if e >= rocelab_sim::MS => ("ms", rocelab_sim::MS),
        e if e >= rocelab_sim::US => ("us", rocelab_sim::US),
        _ => ("ns", rocelab_sim::NS),
    };
    format!("{:.2} {unit} of {:.2} {unit}", now as f64 / ps as f64, end as f64 / ps as f64)
}

#[cfg(test)]
mod tests {
    use super::{progress_line, simulated_time, Progress, LINE_EVERY};
    use std::time::Duration;

    #[test]
    fn progress_is_a_bar_on_a_terminal_lines_elsewhere_and_off_when_quiet() {
        assert_eq!(Progress::new(false, true, None), Progress::Bar);
        assert_eq!(Progress::new(false, false, None), Progress::Lines(LINE_EVERY));
        assert_eq!(Progress::new(false, false, Some("250")), Progress::Lines(Duration::from_millis(250)));
        assert_eq!(Progress::new(false, false, Some("soon")), Progress::Lines(LINE_EVERY), "ignored");
        assert_eq!(Progress::new(true, true, Some("0")), Progress::Off);
        assert_eq!(Progress::new(true, false, None), Progress::Off);
    }

    #[test]
    fn a_progress_line_says_simulated_time_events_and_wall_time() {
        let l = progress_line("incast", 1_200_000_000, 10_000_000_000, 48_123_456, Duration::from_millis(12_400));
        assert_eq!(l, "sim: incast: 1.20 ms of 10.00 ms simulated, 48.1 M events, 12 s");
        assert_eq!(
            progress_line("x", 0, 1_000_000, 950, Duration::ZERO),
            "sim: x: 0.00 us of 1.00 us simulated, 950 events, 0 s"
        );
    }

    #[test]
    fn simulated_time_uses_the_unit_of_the_end() {
        assert_eq!(simulated_time(1_250_000_000, 10_000_000_000), "1.25 ms of 10.00 ms");
        assert_eq!(simulated_time(0, 3_000_000_000_000), "0.00 s of 3.00 s");
        assert_eq!(simulated_time(500_000, 800_000), "500.00 ns of 800.00 ns");
    }
}
