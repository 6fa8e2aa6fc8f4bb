//! `rocelab examples`: the built-in examples, or one of them as YAML.

use crate::builtin;
use crate::failure::{Failure, BAD_INPUT};
use crate::out::{out, outln};
use std::process::ExitCode;

pub fn run(name: Option<&str>) -> Result<ExitCode, Failure> {
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
            // Bad input, as `show --example` says it: exit 1, with the nearest name.
            None => return Err(Failure::error(BAD_INPUT, builtin::unknown(n))),
        },
    }
    Ok(ExitCode::SUCCESS)
}
