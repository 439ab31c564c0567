//! Credit-based link-level flow control, InfiniBand style (seed 002, SPEC §7): an alternative to
//! PFC in which the receiver says how much it can take instead of shouting stop.
//!
//! - [`Transmitter`]: counts blocks sent (FCTBS) and sends a packet of NP 64-octet blocks only
//!   while `(CL − (FCTBS + NP)) mod 4096 ≤ 2048`.
//! - [`Receiver`]: counts blocks received (ABR) and grants `FCCL = ABR + min(free, 2048)`.
//! - [`Fcp`]: the Flow Control Packet both exchange; [`Count12`]: their 12-bit wrapping counters.
//!
//! Both are pure state machines: events in (`send`, `on_packet`, `drain`, `on_fcp`), FCPs out of
//! `poll(now)`, no I/O and no clock of their own. The simulator moves FCPs and packets between
//! them; a link must deliver in order, as a real one does.

mod counter;
mod error;
mod fcp;
mod receiver;
mod transmitter;

#[cfg(test)]
mod tests;

pub use counter::Count12;
pub use error::CreditError;
pub use fcp::Fcp;
pub use receiver::{Receiver, ReceiverConfig};
pub use transmitter::{Transmitter, TransmitterConfig};

use crate::time::{LinkSpeed, Picos};

/// Octets in a Flow Control Block, the unit of credit.
pub const BLOCK_OCTETS: u32 = 64;

/// The most a receiver grants ahead of the blocks it has received, and the bound of the
/// transmitter's modular credit test: half the 12-bit range.
pub const CREDIT_WINDOW: u32 = 2048;

/// Symbol times (8 bit times each) an FCP may be outstanding for: an FCP is sent before 65 536
/// have passed since the last.
pub const FCP_INTERVAL_SYMBOLS: u64 = 65_536;

/// Blocks a packet of `octets` occupies: rounded up to whole 64-octet blocks (5 blocks for a
/// 300-octet packet). 0 octets take 0 blocks and cannot be sent.
pub const fn blocks_for(octets: u32) -> u32 {
    octets.div_ceil(BLOCK_OCTETS)
}

/// 65 536 symbol times at `speed`: 52.4288 us at 10 Gb/s.
pub const fn fcp_interval(speed: LinkSpeed) -> Picos {
    speed.bits_time(FCP_INTERVAL_SYMBOLS * 8)
}
