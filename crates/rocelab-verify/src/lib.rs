//! # rocelab-verify
//!
//! Static verification of a lossless Ethernet fabric for RDMA and storage, Batfish style: the
//! intent or the devices' running configurations become one vendor-independent configured
//! [`state::State`]; each check is a pure function over it returning [`finding::Finding`]s
//! (an ID, severity, device, port, class, what is wrong, why it matters, how to fix it, and the
//! rule's source). Also here: the routes between RDMA endpoints and the buffer-dependency
//! (deadlock) analysis ([`routes`]), and importers of running configurations ([`import`]). The
//! PFC headroom the checks compare against is the model's ([`rocelab_model::headroom`]), the
//! function the simulator and the vendor configurations use too.
//!
//! This crate never prints; the CLI renders findings ([`render`]).

pub mod audit;
pub mod checks;
pub mod finding;
pub mod import;
pub mod infer;
pub mod intent;
pub mod render;
pub mod routes;
pub mod state;

pub use finding::{Finding, Rule, Severity, RULES};
pub use intent::from_intent;
pub use state::State;

/// Runs every check over a configured state.
pub fn check(state: &State) -> Vec<Finding> {
    checks::run(state)
}

/// Checks the fabric an intent describes.
pub fn check_fabric(fabric: &rocelab_model::ResolvedFabric) -> Vec<Finding> {
    check(&from_intent(fabric))
}
