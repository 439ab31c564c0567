//! `pfcsim network`: networks of bridges and hosts, from a TOML file ([`NetworkFile`]), run
//! event by event with the parts of a pfcd port (the PFC MAC's receiver and initiator, the
//! receive buffer with the allowance calculated for its link, the PFC watchdog, the maximum
//! transit delay), and read by `fabric_graph` for deadlocks and congestion trees as it runs;
//! drawn by [`network_svg`].

mod build;
mod calendar;
mod error;
mod observe;
mod plot;
mod port;
mod results;
mod run;
mod sim;
mod spec;
mod wire;

pub use error::NetworkError;
pub use observe::{DeadlockSeen, TreeSeen};
pub use plot::network_svg;
pub use port::Drops;
pub use results::{table, FlowResult, LinkResult, NetworkResults, PortResult, WatchdogResult};
pub use run::{load_network, parse_network, run_network, run_network_file};
pub use spec::{BridgeSpec, FlowSpec, HostSpec, NetworkFile, NetworkLinkSpec, NetworkRun};
