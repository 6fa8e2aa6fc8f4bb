//! The crate's modules import one another in layers, never in a circle: a schema type module
//! that reaches for the resolver or a validator drags every module into one knot, and then no
//! part can be read or tested alone. This reads `src/` as text (each `crate::name` a module
//! reaches outside its tests) and fails on a cycle, naming its modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What the crate root re-exports (`pub use load::{Loaded, ...}` in lib.rs): name → module, so
/// that `crate::Loaded` counts as a use of `load`.
fn reexports(src: &Path) -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let Some((module, names)) = rest.trim_end_matches(';').split_once("::") else { continue };
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            out.insert(name.trim().to_string(), module.to_string());
        }
    }
    out
}

/// An identifier at the start of `text`.
fn ident(text: &str) -> String {
    text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// Module name → the top-level modules it names through `crate::`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let root = reexports(&src);
    let module_of = |name: String| root.get(&name).cloned().unwrap_or(name);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap();
            let top = rel.components().next().unwrap().as_os_str().to_str().unwrap().trim_end_matches(".rs");
            if top == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let names = out.entry(top.to_string()).or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for part in line.split("crate::").skip(1) {
                    names.insert(module_of(ident(part)));
                }
                // `use crate::{a::X, b::Y}`
                if let Some(group) = line.split("use crate::{").nth(1) {
                    for item in group.split(',') {
                        names.insert(module_of(ident(item.trim())));
                    }
                }
            }
        }
    }
    let modules: BTreeSet<String> = out.keys().cloned().collect();
    for (name, names) in out.iter_mut() {
        names.retain(|n| modules.contains(n) && n != name);
    }
    out
}

/// Strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for w in &self.g[v] {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut c = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    c.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if c.len() > 1 {
                    c.sort();
                    self.out.push(c);
                }
            }
        }
    }
    let mut walk = Walk {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

#[test]
fn the_modules_import_one_another_without_a_circle() {
    let g = imports();
    assert!(g.len() > 20, "read only {} modules from src/", g.len());
    assert!(g["resolve"].contains("fabric"), "the reader missed `use crate::fabric`");
    // `crate::Loaded` is `load`'s, through the root's `pub use load::{..., Loaded}`.
    assert_eq!(reexports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))["Loaded"], "load");
    assert_eq!(cycles(&g), Vec::<Vec<String>>::new(), "modules that import one another in a circle");
}

#[test]
fn the_cycle_finder_finds_a_circle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let edge = |g: &mut BTreeMap<String, BTreeSet<String>>, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
        g.entry(b.into()).or_default();
    };
    edge(&mut g, "fabric", "workload");
    edge(&mut g, "workload", "resolve");
    edge(&mut g, "resolve", "fabric");
    edge(&mut g, "units", "diag");
    assert_eq!(cycles(&g), vec![vec!["fabric".to_string(), "resolve".into(), "workload".into()]]);
}
