//! The ports: one task per port owning its PFC MAC, receive buffer and headroom participant.
//! Configuration comes down as a [`PortIntent`]; state goes up as a [`PortSnapshot`] the task
//! publishes after every step.

pub mod cable;
pub mod clock;
mod drops;
pub mod event;
mod follow;
pub mod headroom;
pub mod intent;
pub mod lldp_link;
pub mod real;
pub mod real_lldp;
pub mod report;
mod run;
pub mod set;
pub mod snapshot;
pub mod task;

pub use clock::SimClock;
pub use event::PortEvent;
pub use intent::{DcbxIntent, HeadroomMethod, PortIntent, PRIORITIES};
pub use lldp_link::{LldpView, PeerLldp};
pub use snapshot::{PortSnapshot, PrioritySnapshot};
pub use task::{PortHandle, SimPortSetup};
