//! The simulation model's settings (`simulation.model`) checked where they are written.

use crate::diag::{problem, Problem};
use crate::simmodel::*;
use crate::units::Size;

/// Sizes out of range, each a located error under `simulation.model`.
pub(crate) fn check(m: &SimModel, problems: &mut Vec<Problem>) {
    let at = |f: &str| format!("simulation.model.{f}");
    let mut bad = |field: &str, v: Size, ok: std::ops::RangeInclusive<u64>, expected: &str| {
        if !ok.contains(&v.as_bytes()) {
            let mut p = problem(at(field), format!("{field} {v} is outside {expected}"));
            p.diag.expected = Some(format!("a size from {expected}"));
            problems.push(p);
        }
    };
    if let Some(v) = m.payload {
        bad("payload", v, 64..=9000, "64B to 9000B");
    }
    if let Some(v) = m.header {
        bad("header", v, 0..=9000, "0B to 9000B");
    }
    if let Some(v) = m.ack_frame {
        bad("ack_frame", v, 1..=9000, "1B to 9000B");
    }
    if let Some(v) = m.pfc_frame {
        bad("pfc_frame", v, 1..=9000, "1B to 9000B");
    }
}
