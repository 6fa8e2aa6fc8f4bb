//! One module per command: each takes the parsed arguments and returns the exit code of work
//! done, or the [`Failure`](crate::failure::Failure) that stopped it.

pub mod audit;
pub mod audit_page;
pub mod bench;
pub mod check;
pub mod config;
pub mod examples;
pub mod import;
pub mod report;
pub mod show;
pub mod sim;
pub mod sim_all;
pub mod sim_ray;
pub mod tune;
pub mod validate;
