//! The receiving side of one data VL (seed 002, "Receiver"): it counts blocks received (ABR),
//! holds them until the consumer drains them, and grants credit as
//! `FCCL = (ABR + min(free blocks, 2048)) mod 4096`.
//!
//! The 2048 cap is what keeps the 12-bit arithmetic sound: the transmitter is never allowed more
//! than half the counter range ahead of the receiver, so a difference above 2048 can only mean
//! "behind". FCPs go out at least every 65 536 symbol times, and at once whenever the FCCL has
//! moved since the last one sent — when blocks are drained, or when blocks arrive while more
//! than 2048 are free (each arriving block then raises the limit by one).

use super::transmitter::check_vl;
use super::{fcp_interval, Count12, CreditError, Fcp, CREDIT_WINDOW};
use crate::time::{LinkSpeed, Picos};

/// Receiver settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReceiverConfig {
    /// The data VL, 0..=14.
    pub vl: u8,
    /// Buffer capacity in 64-octet blocks: the fewest blocks it can hold whatever the mix of
    /// packet sizes, as the seed's "Credit Limit Calculation" requires.
    pub capacity_blocks: u32,
    /// The longest time between FCPs.
    pub fcp_interval: Picos,
}

impl ReceiverConfig {
    /// VL `vl` at `speed` with `capacity_blocks` of buffer, sending an FCP at least every
    /// 65 536 symbol times.
    pub const fn new(vl: u8, capacity_blocks: u32, speed: LinkSpeed) -> Self {
        ReceiverConfig { vl, capacity_blocks, fcp_interval: fcp_interval(speed) }
    }
}

/// The receiver's state for one VL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receiver {
    vl: u8,
    capacity: u32,
    in_use: u32,
    abr: Count12,
    interval: Picos,
    next_periodic: Picos,
    last_sent: Option<Count12>,
    blocks_received: u64,
    dropped_packets: u64,
    abr_corrections: u64,
}

impl Receiver {
    /// A receiver just after link initialisation: empty, ABR 0, an FCP due at once.
    pub fn new(config: ReceiverConfig) -> Result<Self, CreditError> {
        check_vl(config.vl)?;
        if config.capacity_blocks == 0 {
            return Err(CreditError::ZeroCapacity);
        }
        Ok(Receiver {
            vl: config.vl,
            capacity: config.capacity_blocks,
            in_use: 0,
            abr: Count12::default(),
            interval: config.fcp_interval,
            next_periodic: Picos::ZERO,
            last_sent: None,
            blocks_received: 0,
            dropped_packets: 0,
            abr_corrections: 0,
        })
    }

    /// The VL this receiver serves.
    pub fn vl(&self) -> u8 {
        self.vl
    }

    /// ABR: blocks received since link initialisation, mod 4096, as corrected by FCTBS.
    pub fn abr(&self) -> Count12 {
        self.abr
    }

    /// Buffer capacity in blocks.
    pub fn capacity_blocks(&self) -> u32 {
        self.capacity
    }

    /// Blocks held, waiting for the consumer.
    pub fn blocks_in_use(&self) -> u32 {
        self.in_use
    }

    /// The Free Space Count.
    pub fn free_blocks(&self) -> u32 {
        self.capacity - self.in_use
    }

    /// FCCL = (ABR + min(free blocks, 2048)) mod 4096.
    pub fn fccl(&self) -> Count12 {
        self.abr.add(self.free_blocks().min(CREDIT_WINDOW))
    }

    /// Blocks accepted in all, not wrapped (for statistics).
    pub fn blocks_received(&self) -> u64 {
        self.blocks_received
    }

    /// Packets dropped for lack of space; stays 0 while the transmitter honours its credit.
    pub fn dropped_packets(&self) -> u64 {
        self.dropped_packets
    }

    /// FCTBS reports that found ABR out of step (a packet was lost on the way).
    pub fn abr_corrections(&self) -> u64 {
        self.abr_corrections
    }

    /// A data packet of `np` blocks arrives: stored, ABR += NP, free space −= NP. If it does not
    /// fit it is dropped and counted, but ABR still advances — the blocks were sent and the
    /// transmitter counted them — so the two counts stay in step.
    pub fn on_packet(&mut self, np: u32) -> Result<(), CreditError> {
        self.abr = self.abr.add(np);
        if np > self.free_blocks() {
            self.dropped_packets += 1;
            return Err(CreditError::Overrun { needed: np, free: self.free_blocks() });
        }
        self.in_use += np;
        self.blocks_received += np as u64;
        Ok(())
    }

    /// The consumer forwards up to `blocks` blocks, freeing their space; returns how many were
    /// freed (no more than are held).
    pub fn drain(&mut self, blocks: u32) -> u32 {
        let freed = blocks.min(self.in_use);
        self.in_use -= freed;
        freed
    }

    /// An FCP from the transmitter: ABR := FCTBS, repairing any blocks lost on the way.
    pub fn on_fcp(&mut self, fcp: &Fcp) -> Result<(), CreditError> {
        if fcp.vl != self.vl {
            return Err(CreditError::WrongVl { expected: self.vl, got: fcp.vl });
        }
        if fcp.fctbs != self.abr {
            self.abr_corrections += 1;
            self.abr = fcp.fctbs;
        }
        Ok(())
    }

    /// The FCP to send at `now`, if one is due: the FCCL has changed since the last one sent, or
    /// the interval has run out.
    pub fn poll(&mut self, now: Picos) -> Option<Fcp> {
        let fccl = self.fccl();
        if self.last_sent == Some(fccl) && now < self.next_periodic {
            return None;
        }
        self.last_sent = Some(fccl);
        self.next_periodic = now + self.interval;
        Some(Fcp::credit(self.vl, fccl))
    }

    /// When [`poll`](Self::poll) must next be called: now (`Picos::ZERO`) if the FCCL has moved
    /// since the last FCP, else when the interval runs out.
    pub fn next_deadline(&self) -> Picos {
        if self.last_sent == Some(self.fccl()) {
            self.next_periodic
        } else {
            Picos::ZERO
        }
    }
}
