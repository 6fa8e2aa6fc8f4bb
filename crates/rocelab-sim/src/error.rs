//! Errors returned before a run starts. The simulator never panics on user input: every
//! inconsistency in a [`crate::NetworkSpec`], [`crate::Traffic`] or [`crate::SimConfig`] is
//! reported with the path of the offending item and what to change.

use std::fmt;

/// Why a simulation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The network description is inconsistent (`path`: what is wrong).
    InvalidSpec {
        /// Where, e.g. `nodes[3].ports[1].pgs[3]`.
        path: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The traffic description is inconsistent.
    InvalidTraffic {
        /// Where, e.g. `flows[12]`.
        path: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The run configuration is unusable.
    InvalidConfig {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The requested outputs would not fit in memory.
    OutputTooLarge {
        /// Values the run would record.
        estimated: u64,
        /// The configured limit.
        limit: u64,
        /// What to change.
        hint: String,
    },
    /// A table the run needs would take more memory than the limit.
    MemoryTooLarge {
        /// What would be allocated, e.g. "the routing table".
        what: String,
        /// Its estimated size in bytes.
        estimated_bytes: u64,
        /// The limit in bytes.
        limit_bytes: u64,
        /// What to change.
        hint: String,
        /// For a run on several threads, each holding its own copy of the run's state: the most
        /// threads whose copies fit (fewer than asked, at least one); `None` where one thread
        /// does not fit either, or the run is on one thread.
        threads_that_fit: Option<usize>,
    },
}

impl SimError {
    /// Where a run on `threads` threads is refused for its memory, the threads to run it on
    /// instead: the most whose copies fit, or one where the refusal names none (one thread holds
    /// no copy beside the shared tables, and may fit where two do not). `None` for any other error
    /// or a run on one thread.
    pub fn fewer_threads(&self, threads: usize) -> Option<usize> {
        match self {
            SimError::MemoryTooLarge { threads_that_fit, .. } if threads > 1 => {
                Some(threads_that_fit.unwrap_or(1).clamp(1, threads - 1))
            }
            _ => None,
        }
    }

    pub(crate) fn spec(path: impl Into<String>, message: impl Into<String>) -> Self {
        SimError::InvalidSpec { path: path.into(), message: message.into() }
    }

    pub(crate) fn traffic(path: impl Into<String>, message: impl Into<String>) -> Self {
        SimError::InvalidTraffic { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidSpec { path, message } => write!(f, "network {path}: {message}"),
            SimError::InvalidTraffic { path, message } => write!(f, "traffic {path}: {message}"),
            SimError::InvalidConfig { message } => write!(f, "configuration: {message}"),
            SimError::OutputTooLarge { estimated, limit, hint } => write!(
                f,
                "outputs too large: the run would record {estimated} values, more than the limit of {limit}; {hint}"
            ),
            SimError::MemoryTooLarge { what, estimated_bytes, limit_bytes, hint, .. } => write!(
                f,
                "too large to simulate: {what} would take {estimated_bytes} bytes ({}), more than the limit of \
                 {limit_bytes} bytes ({}); {hint}",
                gib(*estimated_bytes),
                gib(*limit_bytes)
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// Bytes as GiB with one decimal, for messages.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}
