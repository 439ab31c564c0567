//! The wait-for graph of a lossless fabric (802.1Q 36.2.4, 36.2.5), whatever the data comes
//! from: a simulation (`pfcsim network`) or devices read over NETCONF. Pure: no I/O, no clock.
//!
//! # Input
//! A [`Fabric`] holds devices (by name), links (`device A port X` ↔ `device B port Y`) and, per
//! (device, port, priority), an [`Observation`]:
//! - `egress_paused_since`: our transmit on that port and priority is held by the peer's PFC
//!   (Priority_Paused), since this time;
//! - `ingress_xoff_since`: we are sending XOFF on that port and priority (our ingress buffer is
//!   above XOFF), since this time;
//! - `egress_backlog`: frames wait to leave on that port and priority;
//! - `waits_on`: the egress ports (of the same device) the ingress buffer's frames wait for, when
//!   known. When unknown, the ingress waits on every egress of the same device and priority,
//!   other than itself, that is paused or has a backlog.
//!
//! Times are [`Nanos`] on any one clock the caller chooses (simulated time, or wall time of the
//! collector); only differences and order matter.
//!
//! # Edges
//! For priority n: egress (D,P,n) paused → the peer's ingress (D',P',n) across the link, if it is
//! in XOFF → each egress (D',E,n) that ingress waits on.
//!
//! # Output
//! - [`Fabric::deadlocks`]: every cycle of paused egresses, each waiting on the next through the
//!   peer's XOFF ingress, everything in it held at least `threshold`, with the time the cycle
//!   closed (the latest "since" in it). Each cycle once, rotated to start at its least egress.
//! - [`Fabric::congestion_trees`]: from each root, an egress that is waited on by an XOFF
//!   ingress but is not itself paused (it drains slower than it is fed), the egresses it pauses
//!   transitively and the XOFF ingresses between them; given [`Flow`]s, the flows caught in the
//!   tree and, of those, the victims (flows that do not leave through the root).
//!
//! Every input and result is serde-serialisable, so a collector can ship either.
//!
//! [`Fabric`] takes names; [`PortGraph`] takes port numbers, for a caller that samples the same
//! ports many times a second (pfcsim): it names each port once, and its results name them
//! again ([`PortGraph::congestion_tree_ids`] keeps the numbers).
//!
//! ```
//! use fabric_graph::{Fabric, Observation, PortRef};
//! let mut f = Fabric::new();
//! for (a, b) in [("b1", "b2"), ("b2", "b3"), ("b3", "b1")] {
//!     f.add_link(PortRef::new(a, "east"), PortRef::new(b, "west")).unwrap();
//! }
//! for d in ["b1", "b2", "b3"] {
//!     f.observe(PortRef::new(d, "east"), 3, Observation::paused(10)).unwrap();
//!     f.observe(PortRef::new(d, "west"), 3, Observation::xoff(20, &["east"])).unwrap();
//! }
//! let found = f.deadlocks(1_000, 100);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].closed_at, 20);
//! assert_eq!(found[0].cycle.len(), 3);
//! ```

mod deadlock;
mod error;
mod fabric;
mod graph;
mod names;
mod tree;

pub use deadlock::{CycleHop, Deadlock, MAX_CYCLES};
pub use error::GraphError;
pub use fabric::{Fabric, Link, Observation, Observed};
pub use graph::{PortGraph, PortId, PortState};
pub use names::{Flow, Hop, PortRef};
pub use tree::{CongestionTree, TreeIds};

/// A time in nanoseconds on the caller's clock.
pub type Nanos = u64;

/// PFC's eight priorities.
pub const PRIORITIES: u8 = 8;
