//! What a credit state machine refuses to do, and why.

/// A request the credit protocol cannot honour. Nothing is changed when one is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CreditError {
    /// VL 15 carries subnet management and has no credits; data VLs are 0..=14.
    #[error("VL {0} has no link-level flow control: use a data VL, 0 to 14")]
    NotADataVl(u8),
    /// An FCP for another VL was handed to this VL's state machine.
    #[error("an FCP for VL {got} reached the VL {expected} state machine: route FCPs by their VL")]
    WrongVl { expected: u8, got: u8 },
    /// A packet of 0 blocks, or of more than the 2048 blocks any credit limit can cover.
    #[error("a packet of {0} blocks cannot be sent: packets take 1 to 2048 blocks of 64 octets")]
    PacketSize(u32),
    /// Not enough credit: the transmitter must wait for an FCP.
    #[error("no credit for {needed} blocks: only {available} available; wait for an FCP")]
    NoCredit { needed: u32, available: u16 },
    /// The receive buffer cannot hold the packet. The packet is dropped and counted; with a
    /// correct transmitter this never happens.
    #[error(
        "receive buffer overrun: {needed} blocks arrived with {free} free; the packet was \
         dropped (the transmitter ignored its credit limit)"
    )]
    Overrun { needed: u32, free: u32 },
    /// A receive buffer of no blocks can never accept a packet.
    #[error("a receive buffer of 0 blocks can never accept a packet: give it at least one block")]
    ZeroCapacity,
}
