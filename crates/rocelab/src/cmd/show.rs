//! `rocelab show`: the expanded fabric, as text or JSON.

use crate::failure::{Failure, OrFail, BAD_INPUT, REFUSED};
use crate::input::open;
use crate::out::{out, outln};
use crate::Format;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    file: Option<&Path>,
    example: Option<&str>,
    variant: Option<&str>,
    format: Format,
) -> Result<ExitCode, Failure> {
    let (_, fabric) = open(file, example, variant, BAD_INPUT)?;
    match format {
        Format::Text => out!("{}", rocelab_model::display::summary(&fabric)),
        Format::Json => {
            outln!("{}", serde_json::to_string_pretty(&rocelab_model::display::json(&fabric)).or_fail(REFUSED)?)
        }
    }
    Ok(ExitCode::SUCCESS)
}
