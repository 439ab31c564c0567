//! pfcd: the IEEE 802.1Q Priority-based Flow Control management daemon.
//!
//! The daemon wires the protocol crates ([`dataplane`], [`lldp`]) to the NETCONF server
//! ([`mgmt`]). Work in progress: so far the crates hold the wire formats.

pub mod scenario;

pub use dataplane;
pub use lldp;
pub use mgmt;
