//! The Flow Control Packet (seed 002, Table 25-3), as a value the state machines exchange.
//!
//! ```text
//! bits   31:28  27:16   15:12  11:0
//! 0-3    Op     FCTBS   VL     FCCL
//! 4-7    LPCRC (16)     reserved (16)
//! ```
//!
//! Both fields are always present. A receiver's FCP carries its FCCL (FCTBS is not applicable
//! and sent as 0); a transmitter's carries its FCTBS (FCCL sent as 0). A real port merges the
//! two it owns for a VL into one packet; here they stay separate so each state machine is
//! tested alone. Op is always 0 (normal): link initialisation is outside this model, and so is
//! the LPCRC, which guards against corruption the simulation does not inject.

use super::Count12;

/// One Flow Control Packet for a data VL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fcp {
    /// The data VL (0..=14) the credits or block count belong to.
    pub vl: u8,
    /// Flow Control Total Blocks Sent: the transmitter's count, read by the receiver.
    pub fctbs: Count12,
    /// Flow Control Credit Limit: the receiver's limit, read by the transmitter.
    pub fccl: Count12,
}

impl Fcp {
    /// A receiver's FCP granting credit up to `fccl`.
    pub const fn credit(vl: u8, fccl: Count12) -> Self {
        Fcp { vl, fctbs: Count12::new(0), fccl }
    }

    /// A transmitter's FCP reporting `fctbs` blocks sent.
    pub const fn blocks_sent(vl: u8, fctbs: Count12) -> Self {
        Fcp { vl, fctbs, fccl: Count12::new(0) }
    }
}
