//! # rocelab-report
//!
//! Results of `rocelab sim` as a person reads them: text tables, CSV files, SVG charts and one
//! self-contained HTML report, and packet captures of a run that Wireshark decodes.
//!
//! This crate never runs a simulation and never prints: it takes results (or reads the JSON
//! files a run wrote) and returns text; the capture writer is an
//! [`Observer`](rocelab_sim::Observer) writing into any [`std::io::Write`].

pub mod pcap;
pub mod tools;
