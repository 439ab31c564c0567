//! The ports: one task per port owning its PFC MAC, receive buffer and headroom participant.
//! Configuration comes down as a [`PortIntent`]; state goes up as a [`PortSnapshot`] the task
//! publishes after every step.

pub mod clock;
pub mod event;
pub mod headroom;
pub mod intent;
pub mod snapshot;
pub mod task;

pub use clock::SimClock;
pub use event::PortEvent;
pub use intent::{HeadroomMethod, PortIntent, PRIORITIES};
pub use snapshot::{PortSnapshot, PrioritySnapshot};
pub use task::{PortHandle, SimPortSetup};
