//! pfcd: the IEEE 802.1Q Priority-based Flow Control management daemon.
//!
//! The daemon wires the protocol crates ([`dataplane`], [`lldp`]) to the NETCONF server
//! ([`mgmt`]): [`settings`] (the TOML file), [`daemon`] (start-up and shutdown),
//! [`northbound`] (YANG ↔ port intents and snapshots), [`ports`] (one task per port),
//! [`lab`] (the embedded default: simulated ports, links and peers), [`real`] (real
//! interfaces, on the software bridge of `pfc_bridge`) and [`nic`] (real interfaces whose NIC
//! runs PFC, through DCB netlink).

pub mod daemon;
pub mod lab;
pub mod nic;
pub mod northbound;
pub mod ports;
pub mod real;
pub mod settings;

pub use dataplane;
pub use lldp;
pub use mgmt;
