//! The PFC-capable MAC: receiver (pause timers, Priority_Paused), initiator (the five transmit
//! cases with refresh and XON), link-pause mode when PFC is disabled, and the counters of
//! Table 12-1 (PFCRequests, PFCIndications) with per-priority detail.
//!
//! Pure logic: every method takes the current simulated time and returns what happened; the
//! caller owns the wire.

mod counters;
mod initiator;
mod receiver;

pub use counters::MacCounters;
pub use initiator::{PfcInitiator, DEFAULT_PAUSE_QUANTA};
pub use receiver::{PfcReceiver, RxOutcome};
