//! ietf-interfaces and ieee802-dot1q-bridge: the bridge, its component and the ports, one
//! file per direction: [`config`] (the first start's configuration, the Bridge Ports in
//! running, each one's traffic class table), [`state`] (the interfaces with their Bridge Ports'
//! state, the bridge's).
//!
//! The lab's ports exist as long as pfcd runs; their configuration (an interface with a Bridge
//! Port) is written to running at the first start, so that a user finds them in `<get-config>`
//! and can change them. An interface with a Bridge Port that names no port of pfcd is refused.

pub mod config;
pub mod state;

/// The bridge and its one component.
pub const BRIDGE: &str = "br0";
pub const COMPONENT: &str = "c0";
