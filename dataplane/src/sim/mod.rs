//! Simulation building blocks: a deterministic random source, an event queue in picoseconds,
//! simulated point-to-point links, ingress buffer accounting, and the two-station scenario that
//! wires two PFC stations back to back.

mod events;
mod ingress;
mod link;
mod rng;
mod two_station;

pub use events::EventQueue;
pub use ingress::{BufferVerdict, IngressBuffer, IngressCounters};
pub use link::{DataFrame, LinkFrame, Medium, SimLink};
pub use rng::SimRng;
pub use two_station::{StationDelays, TwoStation, TwoStationConfig, TwoStationReport};
