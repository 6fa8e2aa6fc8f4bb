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
}

impl SimError {
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
        }
    }
}

impl std::error::Error for SimError {}
