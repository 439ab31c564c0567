//! The LLDP agent's run loop on real interfaces: the edge (AF_PACKET sockets, the netlink link
//! watcher, signals, the state file) around the pure `lldp` ports, with its TOML settings.
//! `pfc-lldp` is a thin command line over it; the daemon will run its ports with it.
//!
//! - [`config`]: the settings file and command-line overrides;
//! - [`run`]: one thread, one `poll(2)` over every port, until SIGTERM or SIGINT;
//! - [`state`]: the JSON state: at once after a change, at most once a second for counters.

pub mod config;
pub mod run;
pub mod state;
