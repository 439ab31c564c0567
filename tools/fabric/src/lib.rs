//! `pfc-fabric`: a lossless fabric seen from the management plane (802.1Q 36.2.4, 36.2.5).
//!
//! It connects over NETCONF to a list of devices and reads, with one subtree-filtered `<get>`
//! per device per refresh, only what the YANG modules say: each device's LLDP chassis ID and
//! each port's neighbours (`ieee802-dot1ab-lldp`), each Bridge Port's per-priority
//! `priority-paused` (`ieee802-dot1q-pfc-bridge`) and `xoff` (`pfcd-pfc`: the draft defines no
//! object for a receive buffer's XOFF), and, where the server serves `pfcd-pipeline`, each
//! priority's frames waiting to leave. The topology is where device A's
//! port X hears device B's chassis ID with port ID Y (pfcd's port IDs are interface names).
//! The model says what holds now, not since when: a state's start is the collector's clock at
//! the first refresh that saw it.
//!
//! The devices, links and states go to [`fabric_graph::Fabric`], which finds deadlock cycles
//! and congestion trees; the result, a [`View`], is printed as text ([`text`]), JSON, or SVG
//! ([`svg`]). Given the flows that run through the fabric ([`Flows`], `--flows FILE`,
//! [`Collector::set_flows`]), each tree names the flows caught in it and its victims.
//!
//! Files: `query.rs` (the filter), `device_state.rs` (a reply read), `first_seen.rs` (the
//! collector's "since"), `view.rs` (answers to the graph and its findings), `endpoint.rs`
//! (devices and how to log in), `flows.rs` (the flows file), `flow_hops.rs` (its paths laid on
//! the topology found), `known_hosts.rs` (pfcsh's pinned host keys, read),
//! `collector.rs` (sessions and refreshes), `text.rs`, `svg.rs`.
//!
//! A test or program that reaches its devices its own way (inside network namespaces, say)
//! gives [`Endpoint`]s with its own `connect` and calls [`Collector::refresh`]:
//!
//! ```no_run
//! use std::time::Duration;
//! use pfc_fabric::{Collector, Endpoint};
//! use netconf_client::{Auth, Client, ConnectOptions};
//! let opts = ConnectOptions::new("127.0.0.1", 830, "admin", Auth::Password("secret".into()));
//! let b1 = Endpoint::new("b1", move || Client::connect(&opts).map_err(|e| e.to_string()));
//! let mut collector = Collector::new(vec![b1], Duration::from_millis(500));
//! let view = collector.refresh();
//! for d in &view.deadlocks {
//!     println!("priority {}: {:?}", d.priority, d.devices());
//! }
//! ```

mod collector;
pub mod device_state;
pub mod endpoint;
pub mod first_seen;
pub mod flow_hops;
pub mod flows;
pub mod known_hosts;
pub mod query;
pub mod svg;
pub mod text;
pub mod view;

pub use collector::Collector;
pub use endpoint::{DeviceSpec, Endpoint, Login};
pub use flows::Flows;
pub use view::View;
