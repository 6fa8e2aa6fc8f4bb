//! Every run a scenario file describes, built for the simulator: for callers that start from
//! a file rather than from a loaded scenario (the benchmark's storage runs), so that they need
//! not load the model themselves.

use super::{build, Built};
use std::path::Path;

/// The base and every variant of the scenario in `path`, at every point of its sweep, each
/// built with the scenario's seed and labelled `base` or the variant's name, with ` @ value`
/// for a sweep point. Errors name the file (loading) or its stem (a variant or point).
pub fn build_points(path: &Path) -> Result<Vec<(String, Built)>, String> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let l = rocelab_model::load_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let variants: Vec<Option<&str>> = std::iter::once(None).chain(l.variant_names().into_iter().map(Some)).collect();
    let points: Vec<Option<usize>> = match l.sweep_values() {
        Some((_, v)) => (0..v.len()).map(Some).collect(),
        None => vec![None],
    };
    let values = l.sweep_values().map(|v| v.1).unwrap_or_default();
    let mut out = Vec::new();
    for v in &variants {
        for p in &points {
            let (scenario, fabric) = l.run_point(*v, *p).map_err(|e| format!("{stem}: {e}"))?;
            let b = build(&scenario, &fabric, None);
            let mut label = v.unwrap_or("base").to_string();
            if let Some(i) = p {
                label = format!("{label} @ {}", values[*i]);
            }
            out.push((label, b));
        }
    }
    Ok(out)
}
