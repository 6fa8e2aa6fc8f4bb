//! # rocelab-model
//!
//! The fabric intent of rocelab: what a lossless Ethernet fabric for RDMA and storage is made of
//! (devices, ports, cables, the QoS policy of PFC, ETS, ECN and DCQCN), in units engineers
//! write, loaded from YAML with errors that say where and what, expanded from topology
//! generators or imported from the ns-3 HPCC simulator's files, with variants and sweeps.
//!
//! The crate does no I/O beyond reading the files it is given, and never prints: problems come
//! back as [`Diagnostic`]s.
//!
//! ```
//! let text = r#"
//! fabric:
//!   name: pair
//!   topology:
//!     devices:
//!       - {name: a, role: host, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G}}
//!       - {name: b, role: host, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G}}
//!     links:
//!       - {a: "a:p0", b: "b:p0", cable: 2m}
//!   qos:
//!     marking: dscp
//!     classes:
//!       - {name: roce, priority: 3, dscp: [26], lossless: true}
//! "#;
//! let loaded = rocelab_model::load_str(text, "pair.yaml", std::path::Path::new(".")).unwrap();
//! assert_eq!(loaded.fabric.links[0].propagation, rocelab_model::units::Time::ns(10));
//! ```

// Diagnostics are large by design (file, path, message, expectation, suggestion) and only built
// on the cold error path, so returning them by value is fine.
#![allow(clippy::result_large_err)]

pub mod catalog;
pub mod cdf;
mod columns;
pub mod dcqcn;
mod de;
pub mod diag;
pub mod display;
pub mod fabric;
pub mod generators;
pub mod headroom;
pub mod hpcc;
pub mod hpcc_config;
pub mod hpcc_flows;
pub mod hpcc_import;
pub mod input;
mod load;
pub mod names;
pub mod node;
pub mod paths;
pub mod perftest;
pub mod qos;
pub(crate) mod release;
pub mod resolve;
pub mod rules;
pub mod select;
pub mod simmodel;
pub mod speed;
pub mod storage;
pub mod transport;
pub mod tune;
pub mod units;
mod validate;
pub mod workload;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use fabric::{Device, Fabric, Link, Platform, Role, Scenario};
pub use load::{build, load_file, load_str, Loaded};
pub use qos::{Qos, TrafficClass};
pub use resolve::{PortId, PortSettings, ResolvedDevice, ResolvedFabric, ResolvedLink, ResolvedPort};
