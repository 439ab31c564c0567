//! PFC headroom: how much receive buffer must still be free when PFC is sent so that nothing is
//! lost before the peer stops (P802.1Qdt 36.1.1, 36.8, Annex N), and what to do with it.
//!
//! - [`calculate`]: the link-delay method (36.8 a), 36.8.1) from link speed, link delay (IEEE 1588
//!   or cable length), our own and the peer's delays, frame sizes and MACsec; the result comes
//!   with a [`Breakdown`] of 36.1.1 items a) … k) that adds up exactly to the total.
//! - [`measured_headroom`]: a measured round trip in pause quanta plus the worst-case delay
//!   (36.8 b), Annex N).
//! - [`allowance::select`]: which allowance is in effect on a port and why (12.23, SPEC §3.3).
//! - [`BufferPlan`]: the buffer allocation and XOFF/XON thresholds that follow (SPEC §4.5).
//! - [`measure`]: the headroom measurement protocol (36.9, 36.10) that measures the round trip.
//!
//! All arithmetic is in integers (bit times, picoseconds, IEEE 1588 TimeInterval). Where a
//! figure cannot be exact it is rounded towards more headroom.

pub mod allowance;
mod breakdown;
mod buffer;
mod calculate;
mod error;
mod inputs;
mod interfaces;
mod link_delay;
pub mod measure;
mod measured;
mod secy;
mod units;

pub use breakdown::{Breakdown, Item, Items, Line};
pub use buffer::{trigger_overshoot, BufferConfig, BufferPlan, BufferPlanError};
pub use calculate::{calculate, Headroom};
pub use error::HeadroomError;
pub use inputs::{HeadroomInputs, LocalDelays, Macsec, PeerDelay};
pub use interfaces::Sublayer;
pub use link_delay::{LinkDelay, Medium};
pub use measured::{measured_headroom, WorstCase};
pub use secy::{secy_delay, SecyDelay, SecyRule};
pub use units::{
    bits_to_time_interval, frame_bits, picos_to_bits, time_interval_to_bits, TIME_INTERVAL_PER_NS,
};
