//! How much memory a run may still take, so that a run that would not fit is refused up front
//! with its estimate instead of dying of an allocation abort part-way through building it.
//!
//! The room is the smaller of two figures the operating system gives: the process's
//! address-space limit (`ulimit -v`, `RLIMIT_AS`) less what the process has mapped already, and
//! the machine's physical memory. Only whether a run is refused depends on them; a run that is
//! not refused gives the same results on every machine. Where neither can be read (a system
//! without `/proc`), nothing is refused on this ground.

use std::path::Path;

/// Bytes the process may still allocate, when the system says.
pub fn room_bytes() -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(Path::new(p)).ok();
    let limit = read("/proc/self/limits").and_then(|t| address_space_limit(&t));
    let mapped = read("/proc/self/status").and_then(|t| kib_field(&t, "VmSize:")).unwrap_or(0);
    let physical = read("/proc/meminfo").and_then(|t| kib_field(&t, "MemTotal:"));
    let by_limit = limit.map(|l| l.saturating_sub(mapped));
    match (by_limit, physical) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The soft "Max address space" of `/proc/self/limits`, in bytes; `None` when unlimited.
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..].split_whitespace().next()?;
    soft.parse().ok()
}

/// A `Name:   1234 kB` field of `/proc/self/status` or `/proc/meminfo`, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses a run whose estimated allocations (`what`, `bytes`) do not fit in `room` bytes
/// (`threads_that_fit`: see [`crate::SimError::MemoryTooLarge`]).
pub fn refuse_over(
    what: String,
    bytes: u128,
    room: Option<u64>,
    hint: &str,
    threads_that_fit: Option<usize>,
) -> Result<(), crate::SimError> {
    match room {
        Some(room) if bytes > room as u128 => Err(crate::SimError::MemoryTooLarge {
            what,
            estimated_bytes: bytes.min(u64::MAX as u128) as u64,
            limit_bytes: room,
            hint: hint.into(),
            threads_that_fit,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_space_limit_is_read_soft_and_unlimited_is_none() {
        let limited = "Limit                     Soft Limit           Hard Limit           Units     \n\
                       Max stack size            8388608              unlimited            bytes     \n\
                       Max address space         1073741824           unlimited            bytes     \n";
        assert_eq!(address_space_limit(limited), Some(1 << 30));
        let unlimited = "Max address space         unlimited            unlimited            bytes     \n";
        assert_eq!(address_space_limit(unlimited), None);
    }

    #[test]
    fn kib_fields_are_bytes() {
        let status = "Name:\trocelab\nVmPeak:\t  20000 kB\nVmSize:\t   12345 kB\n";
        assert_eq!(kib_field(status, "VmSize:"), Some(12345 * 1024));
        assert_eq!(kib_field(status, "VmRSS:"), None);
    }

    #[test]
    fn a_run_over_the_room_is_refused_with_its_estimate_and_one_within_is_not() {
        let e = refuse_over("the flows".into(), 2 << 30, Some(1 << 30), "run fewer flows", None).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("the flows would take 2147483648 bytes"), "{text}");
        assert!(text.contains("limit of 1073741824 bytes"), "{text}");
        assert!(refuse_over("the flows".into(), 1 << 20, Some(1 << 30), "", None).is_ok());
        assert!(refuse_over("the flows".into(), u128::MAX, None, "", None).is_ok());
    }

    #[test]
    fn this_process_has_some_room_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(room_bytes().is_some_and(|r| r > 0));
        }
    }
}
