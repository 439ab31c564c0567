//! The sending side of one data VL (seed 002, "Transmitter"): it may send a packet of NP blocks
//! only while `(CL − (FCTBS + NP)) mod 4096 ≤ 2048`, sets CL from each FCP's FCCL, and
//! periodically reports its FCTBS so the receiver can repair a drifted ABR.
//!
//! The test is modular because all counters wrap at 4096: "CL − CR ≥ 0" in the seed's words,
//! where a difference up to 2048 counts as "not negative". The receiver never grants more than
//! 2048 blocks ahead of what it has received, so a true shortfall always lands above 2048.

use super::{fcp_interval, Count12, CreditError, Fcp, CREDIT_WINDOW};
use crate::time::{LinkSpeed, Picos};

/// Highest data VL; VL 15 carries no credits.
pub(crate) const MAX_DATA_VL: u8 = 14;

/// Refuses VL 15.
pub(crate) fn check_vl(vl: u8) -> Result<(), CreditError> {
    if vl > MAX_DATA_VL {
        return Err(CreditError::NotADataVl(vl));
    }
    Ok(())
}

/// Transmitter settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TransmitterConfig {
    /// The data VL, 0..=14.
    pub vl: u8,
    /// How often to report FCTBS: at most this long between reports.
    pub fctbs_interval: Picos,
}

impl TransmitterConfig {
    /// VL `vl` at `speed`, reporting FCTBS every 65 536 symbol times, the bound the seed sets
    /// for FCPs.
    pub const fn new(vl: u8, speed: LinkSpeed) -> Self {
        TransmitterConfig { vl, fctbs_interval: fcp_interval(speed) }
    }
}

/// The transmitter's state for one VL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmitter {
    vl: u8,
    fctbs: Count12,
    cl: Count12,
    interval: Picos,
    next_report: Picos,
    blocks_sent: u64,
}

impl Transmitter {
    /// A transmitter just after link initialisation: nothing sent, CL 0, so nothing may be sent
    /// until the receiver's first FCP arrives.
    pub fn new(config: TransmitterConfig) -> Result<Self, CreditError> {
        check_vl(config.vl)?;
        Ok(Transmitter {
            vl: config.vl,
            fctbs: Count12::default(),
            cl: Count12::default(),
            interval: config.fctbs_interval,
            next_report: Picos::ZERO,
            blocks_sent: 0,
        })
    }

    /// The VL this transmitter serves.
    pub fn vl(&self) -> u8 {
        self.vl
    }

    /// FCTBS: blocks sent since link initialisation, mod 4096.
    pub fn fctbs(&self) -> Count12 {
        self.fctbs
    }

    /// CL: the latest FCCL received.
    pub fn credit_limit(&self) -> Count12 {
        self.cl
    }

    /// Blocks sent in all, not wrapped (for statistics).
    pub fn blocks_sent(&self) -> u64 {
        self.blocks_sent
    }

    /// Blocks that may be sent now: `(CL − FCTBS) mod 4096`, or 0 when that is above 2048
    /// (CL behind FCTBS).
    pub fn available(&self) -> u16 {
        let ahead = self.cl.since(self.fctbs);
        if ahead as u32 <= CREDIT_WINDOW {
            ahead
        } else {
            0
        }
    }

    /// Whether a packet of `np` blocks may be sent: `(CL − (FCTBS + NP)) mod 4096 ≤ 2048`.
    pub fn may_send(&self, np: u32) -> bool {
        (1..=CREDIT_WINDOW).contains(&np)
            && self.cl.since(self.fctbs.add(np)) as u32 <= CREDIT_WINDOW
    }

    /// Sends a packet of `np` blocks, advancing FCTBS, if the credit allows it.
    pub fn send(&mut self, np: u32) -> Result<(), CreditError> {
        if !(1..=CREDIT_WINDOW).contains(&np) {
            return Err(CreditError::PacketSize(np));
        }
        if !self.may_send(np) {
            return Err(CreditError::NoCredit { needed: np, available: self.available() });
        }
        self.fctbs = self.fctbs.add(np);
        self.blocks_sent += np as u64;
        Ok(())
    }

    /// An FCP from the receiver: CL := FCCL.
    pub fn on_fcp(&mut self, fcp: &Fcp) -> Result<(), CreditError> {
        if fcp.vl != self.vl {
            return Err(CreditError::WrongVl { expected: self.vl, got: fcp.vl });
        }
        self.cl = fcp.fccl;
        Ok(())
    }

    /// The FCP reporting FCTBS, when one is due at `now` (the first at once, then every
    /// interval). It must travel behind the data already sent, as on a real link, so that ABR
    /// is set only once those blocks have arrived.
    pub fn poll(&mut self, now: Picos) -> Option<Fcp> {
        if now < self.next_report {
            return None;
        }
        self.next_report = now + self.interval;
        Some(Fcp::blocks_sent(self.vl, self.fctbs))
    }

    /// When [`poll`](Self::poll) will next have an FCP to send.
    pub fn next_deadline(&self) -> Picos {
        self.next_report
    }
}
