//! The validators of a loaded scenario, apart from the types they check: each takes a part of
//! the scenario (and the resolved fabric where it names devices) and pushes a [`Problem`] per
//! error, at the path of the field; [`crate::load`] calls them in turn and turns the paths into
//! file positions. The schema modules (`workload`, `storage`, `qos`, ...) only describe and
//! expand what a file says.
//!
//! [`Problem`]: crate::diag::Problem

pub(crate) mod cabling;
pub(crate) mod flows;
pub(crate) mod perftest;
pub(crate) mod qos;
pub(crate) mod simmodel;
pub(crate) mod storage;
pub(crate) mod transport;
pub(crate) mod tune;
pub(crate) mod workload;
