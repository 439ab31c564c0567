//! pfcd: the IEEE 802.1Q Priority-based Flow Control management daemon.
//!
//! The daemon wires the protocol crates ([`dataplane`], [`lldp`]) to the NETCONF server
//! ([`mgmt`]): [`settings`] (the TOML file), [`daemon`] (start-up and shutdown),
//! [`northbound`] (YANG ↔ port intents and snapshots), [`ports`] (one task per port) and
//! [`lab`] (the embedded default: simulated ports, links and peers). [`lldp_agent`] is the LLDP
//! run loop `pfc-lldp` uses; [`scenario`] runs the `pfcsim` scenarios; [`traffic`] is the
//! traffic tool `pfc-traffic` and the delay line `pfc-delay`.

pub mod bridge;
pub mod daemon;
pub mod lab;
pub mod lldp_agent;
pub mod logging;
pub mod northbound;
pub mod ports;
pub mod real_ports;
pub mod scenario;
pub mod settings;
pub mod traffic;

pub use dataplane;
pub use lldp;
pub use mgmt;
