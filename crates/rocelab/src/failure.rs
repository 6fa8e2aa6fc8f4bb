//! How a command fails: every handler returns `Result<ExitCode, Failure>`, and `main` prints the
//! failure's text on stderr and exits with its code, in one place.
//!
//! `Ok` carries the verdict of work that was done (a check with findings, a device that could
//! not be rendered); `Err` is a command that could not do its work. The codes are the README's:
//!
//! | command        | 0                 | 1                                   | 2                                      |
//! |----------------|-------------------|-------------------------------------|----------------------------------------|
//! | `validate`     | every file loads  | a file has errors                   |                                        |
//! | `show`         | printed           | bad input                           |                                        |
//! | `check`        | clean             | warnings with `--strict`            | errors, or a fabric that does not load |
//! | `audit`        | clean             | warnings with `--strict`            | errors, a fabric or counter file that does not read |
//! | `config`       | every device      |                                     | bad input, or a device not rendered    |
//! | `sim`          | ran               | bad input                           | the run was refused                    |
//! | `report`       | written           | a results file missing or unreadable|                                        |
//! | `import hpcc`  | written           | errors                              |                                        |
//! | `examples`     | printed           | no such example                     |                                        |
//! | `tune`         | a best found      | bad input, or no trial met the constraints | no Python with Ray Tune and Optuna |
//!
//! A failure to write an output file once the work has started is exit 2 (`import hpcc`: 1, as
//! its other errors).

use rocelab_model::Diagnostics;
use std::fmt::Display;
use std::process::ExitCode;

/// Exit code of bad input (a file that does not load, a name that is none, an output folder
/// that cannot be written) where the command does not say otherwise.
pub const BAD_INPUT: u8 = 1;
/// Exit code of work that was refused or could not be finished (a simulation that would not fit,
/// an output file that cannot be written).
pub const REFUSED: u8 = 2;

/// A command that could not do its work: what to say on stderr and the exit code.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    /// Printed as is, with a line end; nothing when empty.
    text: String,
}

impl Failure {
    /// `text` as is (several lines, or a line that is not an `error:`).
    pub fn new(code: u8, text: impl Into<String>) -> Failure {
        Failure { code, text: text.into() }
    }

    /// `error: MESSAGE`.
    pub fn error(code: u8, message: impl Display) -> Failure {
        Failure::new(code, format!("error: {message}"))
    }

    /// Every diagnostic, one after the other, as `validate` prints them.
    pub fn diagnostics(code: u8, d: &Diagnostics) -> Failure {
        Failure::new(code, d.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    }

    /// Prints the text on stderr and gives the exit code.
    pub fn report(self) -> ExitCode {
        if !self.text.is_empty() {
            eprintln!("{}", self.text);
        }
        ExitCode::from(self.code)
    }
}

/// `result.or_fail(code)`: an error that is a message becomes an `error:` failure with `code`.
pub trait OrFail<T> {
    fn or_fail(self, code: u8) -> Result<T, Failure>;
}

impl<T, E: Display> OrFail<T> for Result<T, E> {
    fn or_fail(self, code: u8) -> Result<T, Failure> {
        self.map_err(|e| Failure::error(code, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_prefixed_and_a_text_is_not() {
        assert_eq!(Failure::error(2, "x").text, "error: x");
        assert_eq!(Failure::new(1, "f: no `workloads`").text, "f: no `workloads`");
        assert_eq!(Failure::diagnostics(1, &Diagnostics(Vec::new())).text, "");
        let e: Result<(), String> = Err("cannot write".into());
        let f = e.or_fail(REFUSED).unwrap_err();
        assert_eq!((f.code, f.text.as_str()), (2, "error: cannot write"));
    }
}
