//! Simulation building blocks: a deterministic random source, an event queue in picoseconds,
//! simulated point-to-point links, ingress buffer accounting, and the two-station scenario that
//! wires two PFC stations back to back, and two headroom measurement participants on a link.

mod calculated;
mod credit_pair;
mod egress;
mod events;
mod ingress;
mod least_buffer;
mod link;
mod measure_pair;
mod rng;
mod two_station;

pub use credit_pair::{CreditPair, CreditPairConfig, CreditPairReport};
pub use egress::{Arrived, Egress, EgressConfig};
pub use events::EventQueue;
pub use ingress::{BufferVerdict, IngressBuffer, IngressCounters};
pub use least_buffer::{least_buffer_above_xoff, run_with_reserve, LeastBuffer};
pub use link::{DataFrame, LinkFrame, Medium, SimLink};
pub use measure_pair::{
    Fate, Faults, MeasurePair, MeasurePairConfig, MeasurePairReport, Sent, Station, StationOutcome,
    StationSetup,
};
pub use rng::SimRng;
pub use two_station::{Sample, StationDelays, TwoStation, TwoStationConfig, TwoStationReport};
