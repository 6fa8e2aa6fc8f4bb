//! Writing to standard output without panicking when the reader goes away: `rocelab … | head`
//! closes the pipe early, and `print!` would panic on the broken pipe. A closed pipe is not an
//! error of the command — the rest of its output is dropped and its exit code stands; any other
//! write error is reported once on stderr.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stdout (see the module).
pub fn write(args: std::fmt::Arguments) {
    if FAILED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        FAILED.store(true, Ordering::Relaxed);
        if e.kind() != ErrorKind::BrokenPipe {
            eprintln!("error: cannot write to standard output: {e}");
        }
    }
}

/// `print!` that survives a closed pipe.
macro_rules! out {
    ($($t:tt)*) => { $crate::out::write(format_args!($($t)*)) };
}

/// `println!` that survives a closed pipe.
macro_rules! outln {
    () => { $crate::out::write(format_args!("\n")) };
    ($($t:tt)*) => { $crate::out::write(format_args!("{}\n", format_args!($($t)*))) };
}

pub(crate) use {out, outln};
