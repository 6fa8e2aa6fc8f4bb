//! rocelab fabric model.
