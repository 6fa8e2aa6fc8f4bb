//! The fabric a command works on: a file or a built-in example, loaded, with a variant applied,
//! and its diagnostics printed the same way by every command.

use crate::builtin;
use crate::failure::Failure;
use rocelab_model::{Diagnostics, Loaded, ResolvedFabric};
use std::path::Path;

/// Prints every diagnostic on stderr, one after the other (warnings that do not stop a command).
pub fn print_diagnostics(d: &Diagnostics) {
    for x in &d.0 {
        eprintln!("{x}");
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

/// Loads a fabric file (or a built-in example), applies a variant and prints the loader's
/// warnings. Bad input fails with exit code `fail` (the commands do not all agree: `check` and
/// `config` say 2, the others 1) and every diagnostic as the text.
pub fn open(
    file: Option<&Path>,
    example: Option<&str>,
    variant: Option<&str>,
    fail: u8,
) -> Result<(Loaded, ResolvedFabric), Failure> {
    let Some(loaded) = load(file, example) else {
        return Err(Failure::error(fail, builtin::unknown(example.unwrap_or_default())));
    };
    let loaded = loaded.map_err(|d| Failure::diagnostics(fail, &d))?;
    let fabric = loaded.select(variant).map_err(|d| Failure::diagnostics(fail, &d))?;
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    Ok((loaded, fabric))
}
