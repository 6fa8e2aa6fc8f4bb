//! The Jinja templates that turn each typed per-vendor configuration into text. The built-in ones
//! are files under `crates/rocelab-config/templates/`, compiled in; `--templates DIR` replaces any
//! of them with a file of the same name from DIR, so that network engineers can edit the output
//! without touching Rust. Templates see the typed configuration as their context (field names as
//! in the Rust structs) and render with `trim_blocks` and `lstrip_blocks`, so a `{% … %}` line
//! leaves no blank line behind.

use minijinja::syntax::SyntaxConfig;
use minijinja::value::Serde;
use minijinja::{Environment, UndefinedBehavior, Value};
use serde::Serialize;
use std::path::Path;

/// Every built-in template: its name (also the file name an override must have) and text.
pub const BUILTIN: &[(&str, &str)] = &[
    ("nvidia-onyx.j2", include_str!("../templates/nvidia-onyx.j2")),
    ("hpe-comware.j2", include_str!("../templates/hpe-comware.j2")),
    ("arista-eos.j2", include_str!("../templates/arista-eos.j2")),
    ("sonic.j2", include_str!("../templates/sonic.j2")),
    ("nvidia-cumulus.j2", include_str!("../templates/nvidia-cumulus.j2")),
    ("cisco-nxos.j2", include_str!("../templates/cisco-nxos.j2")),
    ("dell-os10.j2", include_str!("../templates/dell-os10.j2")),
    ("dell-os9.j2", include_str!("../templates/dell-os9.j2")),
    ("linux.sh.j2", include_str!("../templates/linux.sh.j2")),
    ("windows.ps1.j2", include_str!("../templates/windows.ps1.j2")),
    ("RUNBOOK.md.j2", include_str!("../templates/RUNBOOK.md.j2")),
];

/// A template set ready to render.
pub struct Templates {
    env: Environment<'static>,
    save: bool,
    /// Where each template came from: `built-in` or the override file.
    pub origins: Vec<(String, String)>,
}

/// A template that does not parse or does not render, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template (file) and line where known.
    pub location: String,
    pub message: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

fn located(origin: &str, e: &minijinja::Error) -> TemplateError {
    let location = match e.line() {
        Some(l) => format!("{origin}:{l}"),
        None => origin.to_string(),
    };
    TemplateError {
        location,
        message: format!("{}{}", e.kind(), e.detail().map(|d| format!(": {d}")).unwrap_or_default()),
    }
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_syntax(
        SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .expect("default delimiters are valid"),
    );
    // A misspelt field is an error, never an empty string in a switch configuration.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // One filter per output language ([`crate::quote`]), for every name or other value from the
    // fabric file: `sh` in the bash scripts (Linux hosts, Cumulus NVUE) and the runbook's shell
    // commands (`shdq` where the value sits inside double quotes), `ps` in the PowerShell script, `cli` in switch configurations,
    // `comment` in comment lines of any of them (a line break is all that ends one).
    env.add_filter("sh", |v: Value| quote_filter(v, crate::quote::sh));
    env.add_filter("shdq", |v: Value| quote_filter(v, crate::quote::sh_dq));
    env.add_filter("ps", |v: Value| quote_filter(v, crate::quote::ps));
    env.add_filter("comment", |v: Value| quote_filter(v, crate::quote::comment));
    env.add_filter("cli", |v: Value| quote_filter(v, crate::quote::cli));
    // Whether switch files end by saving the configuration (`rocelab config --no-save`).
    env.add_global("save", true);
    env
}

/// Applies a quoting function to a template value: strings and numbers (as their text); a value
/// it refuses fails the rendering with its reason, so no file is written with it.
fn quote_filter(v: Value, f: fn(&str) -> Result<String, crate::quote::Unquotable>) -> Result<String, minijinja::Error> {
    let text = match v.as_str() {
        Some(s) => s.to_string(),
        None => v.to_string(),
    };
    f(&text).map_err(|e| minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.0))
}

impl Templates {
    /// The built-in templates.
    pub fn builtin() -> Templates {
        let mut env = environment();
        let mut origins = Vec::new();
        for (name, text) in BUILTIN {
            env.add_template(name, text).unwrap_or_else(|e| panic!("built-in template {name}: {e}"));
            origins.push((name.to_string(), "built-in".to_string()));
        }
        Templates { env, save: true, origins }
    }

    /// The built-in templates with those found in `dir` (same file name) in their place. A file in
    /// `dir` that is no template's name is an error that lists the names, so that a typo does not
    /// silently leave the built-in template in force.
    pub fn with_overrides(dir: &Path) -> Result<Templates, TemplateError> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| TemplateError { location: dir.display().to_string(), message: format!("cannot read: {e}") })?;
        let mut found: Vec<(String, std::path::PathBuf)> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_file() {
                continue;
            }
            let name = entry.file_name().to_string_lossy().to_string();
            if !BUILTIN.iter().any(|(n, _)| *n == name) {
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                return Err(TemplateError {
                    location: path.display().to_string(),
                    message: format!("not a template name; the templates are {}", names.join(", ")),
                });
            }
            found.push((name, path));
        }
        found.sort();
        let mut env = environment();
        let mut origins = Vec::new();
        for (name, text) in BUILTIN {
            match found.iter().find(|(n, _)| n == name) {
                Some((_, path)) => {
                    let max = rocelab_model::input::MAX_TEMPLATE_BYTES;
                    let src = rocelab_model::input::read_text_limited(path, max, "a template").map_err(|e| {
                        TemplateError {
                            location: path.display().to_string(),
                            message: e.io.map_or(e.message, |io| format!("cannot read: {io}")),
                        }
                    })?;
                    let origin = path.display().to_string();
                    env.add_template_owned(name.to_string(), src).map_err(|e| located(&origin, &e))?;
                    origins.push((name.to_string(), origin));
                }
                None => {
                    env.add_template(name, text).unwrap_or_else(|e| panic!("built-in template {name}: {e}"));
                    origins.push((name.to_string(), "built-in".to_string()));
                }
            }
        }
        Ok(Templates { env, save: true, origins })
    }

    /// The same templates rendering switch files without their final save command, for
    /// `rocelab config --no-save` (a change to be checked before it is made permanent); the
    /// runbook then says how to save.
    pub fn without_save(mut self) -> Templates {
        self.env.add_global("save", false);
        self.save = false;
        self
    }

    /// Whether switch files end by saving the configuration (see [`Templates::without_save`]).
    pub fn save(&self) -> bool {
        self.save
    }

    /// Whether template `name` is the built-in one (no override).
    pub fn is_builtin(&self, name: &str) -> bool {
        self.origins.iter().any(|(n, o)| n == name && o == "built-in")
    }

    fn origin<'a>(&'a self, name: &'a str) -> &'a str {
        self.origins.iter().find(|(n, _)| n == name).map(|(_, o)| o.as_str()).unwrap_or(name)
    }

    /// Renders template `name` with `ctx` (a typed configuration) as its context.
    pub fn render<T: Serialize>(&self, name: &str, ctx: &T) -> Result<String, TemplateError> {
        let t = self.env.get_template(name).map_err(|e| located(self.origin(name), &e))?;
        t.render(Value::from(Serde(ctx))).map_err(|e| located(self.origin(name), &e))
    }
}
