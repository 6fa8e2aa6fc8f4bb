//! # rocelab-verify
//!
//! Static verification of a lossless Ethernet fabric: PFC headroom math, the checks `rocelab
//! check` runs, and the buffer-dependency (deadlock) analysis. Findings are data; this crate
//! never prints.

pub mod headroom;
