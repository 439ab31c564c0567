//! Receive-buffer accounting for one (port, priority), SPEC §4.5: an allocation, an XOFF
//! threshold one headroom and one maximum frame less one octet below it (the frame that crosses
//! XOFF must still leave the whole headroom free), an XON threshold one maximum frame below that.

use crate::headroom::{BufferConfig, BufferPlan};

/// Whether a frame found room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferVerdict {
    Accepted,
    /// No room: the frame is dropped and counted (with correct headroom this never happens).
    Dropped,
}

/// What a lossless priority's buffer counted since it was created (or its counters cleared).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngressCounters {
    pub frames_accepted: u64,
    pub frames_dropped: u64,
    pub octets_dropped: u64,
    /// Highest occupancy seen, octets.
    pub peak_occupancy: u64,
    /// Times the buffer crossed into XOFF.
    pub xoff_events: u64,
}

/// One lossless priority's share of a port's receive buffer.
#[derive(Debug, Clone)]
pub struct IngressBuffer {
    allocation: u64,
    xoff_threshold: u64,
    xon_threshold: u64,
    occupancy: u64,
    xoff: bool,
    pub counters: IngressCounters,
}

impl IngressBuffer {
    /// Sizes the buffer from a headroom (octets) by the [`BufferPlan`] rule: allocation as given
    /// or 2 × headroom rounded up to 1 KiB, XOFF = allocation − headroom − (max frame − 1),
    /// XON = XOFF − max frame. An allocation too small for that pauses at once (XOFF 0) and
    /// resumes only when empty, so a simulation can still show what it loses.
    pub fn from_headroom(
        headroom_octets: u64,
        max_frame_octets: u64,
        allocation: Option<u64>,
    ) -> Self {
        let config = BufferConfig {
            max_frame_octets,
            allocation_octets: allocation,
            xon_hysteresis_octets: None,
        };
        match BufferPlan::new(headroom_octets.saturating_mul(8), &config) {
            Ok(plan) => Self::from_plan(&plan),
            Err(_) => Self::new(allocation.unwrap_or(0), 0, 0),
        }
    }

    pub fn from_plan(plan: &BufferPlan) -> Self {
        Self::new(plan.allocation_octets, plan.xoff_octets, plan.xon_octets)
    }

    /// Explicit thresholds, octets of occupancy.
    pub fn new(allocation: u64, xoff_threshold: u64, xon_threshold: u64) -> Self {
        IngressBuffer {
            allocation,
            xoff_threshold,
            xon_threshold,
            occupancy: 0,
            xoff: false,
            counters: IngressCounters::default(),
        }
    }

    pub fn allocation(&self) -> u64 {
        self.allocation
    }

    pub fn xoff_threshold(&self) -> u64 {
        self.xoff_threshold
    }

    pub fn xon_threshold(&self) -> u64 {
        self.xon_threshold
    }

    pub fn occupancy(&self) -> u64 {
        self.occupancy
    }

    /// The XOFF request this buffer makes of the PFC initiator.
    pub fn xoff(&self) -> bool {
        self.xoff
    }

    /// New allocation and thresholds for a buffer in use (the allowance in force changed):
    /// occupancy and counters stay, the XOFF request follows the new thresholds at once.
    pub fn replan(&mut self, allocation: u64, xoff_threshold: u64, xon_threshold: u64) {
        self.allocation = allocation;
        self.xoff_threshold = xoff_threshold;
        self.xon_threshold = xon_threshold;
        if !self.xoff && self.occupancy >= xoff_threshold {
            self.xoff = true;
            self.counters.xoff_events += 1;
        } else if self.xoff && self.occupancy <= xon_threshold {
            self.xoff = false;
        }
    }

    /// Resets the counters (clear-pfc-counters); the peak starts again from the occupancy now.
    pub fn clear_counters(&mut self) {
        self.counters = IngressCounters { peak_occupancy: self.occupancy, ..Default::default() };
    }

    /// A frame of `len` octets arrives.
    pub fn arrive(&mut self, len: u64) -> BufferVerdict {
        if self.occupancy + len > self.allocation {
            self.counters.frames_dropped += 1;
            self.counters.octets_dropped += len;
            return BufferVerdict::Dropped;
        }
        self.occupancy += len;
        self.counters.frames_accepted += 1;
        self.counters.peak_occupancy = self.counters.peak_occupancy.max(self.occupancy);
        if !self.xoff && self.occupancy >= self.xoff_threshold {
            self.xoff = true;
            self.counters.xoff_events += 1;
        }
        BufferVerdict::Accepted
    }

    /// A frame of `len` octets leaves (drained by the egress side).
    pub fn depart(&mut self, len: u64) {
        self.occupancy = self.occupancy.saturating_sub(len);
        if self.xoff && self.occupancy <= self.xon_threshold {
            self.xoff = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_buffer_plan() {
        // N.6: headroom 126 224 bits = 15 778 octets; allocation 2 x headroom rounded to 1 KiB;
        // the frame that crosses XOFF may bring up to 1999 octets more.
        let b = IngressBuffer::from_headroom(15_778, 2000, None);
        assert_eq!(b.allocation(), 31 * 1024);
        assert_eq!(b.xoff_threshold(), 31 * 1024 - 15_778 - 1_999);
        assert_eq!(b.xon_threshold(), 31 * 1024 - 15_778 - 1_999 - 2000);
        let small = IngressBuffer::from_headroom(15_778, 2000, Some(10_000));
        assert_eq!(
            (small.allocation(), small.xoff_threshold(), small.xon_threshold()),
            (10_000, 0, 0)
        );
    }

    #[test]
    fn the_frame_that_crosses_xoff_still_leaves_the_headroom_free() {
        // Headroom 3000 octets, 1000-octet frames: XOFF at 10 000 − 3000 − 999 = 6001. The
        // worst crossing is from 6000 to 7000: 3000 octets are still free, and they all fit.
        let mut b = IngressBuffer::from_headroom(3_000, 1_000, Some(10_000));
        assert_eq!(b.xoff_threshold(), 6_001);
        for _ in 0..6 {
            b.arrive(1_000);
        }
        assert!(!b.xoff(), "6000 is below XOFF");
        b.arrive(1_000);
        assert!(b.xoff());
        assert_eq!(b.allocation() - b.occupancy(), 3_000);
        for _ in 0..3 {
            assert_eq!(b.arrive(1_000), BufferVerdict::Accepted);
        }
        assert_eq!(b.counters.frames_dropped, 0);
    }

    #[test]
    fn xoff_at_threshold_xon_below_and_drop_when_full() {
        let mut b = IngressBuffer::new(10_000, 6_000, 5_000);
        for _ in 0..5 {
            assert_eq!(b.arrive(1_000), BufferVerdict::Accepted);
        }
        assert!(!b.xoff());
        b.arrive(1_000);
        assert!(b.xoff(), "6000 >= XOFF threshold 6000");
        for _ in 0..4 {
            b.arrive(1_000);
        }
        assert_eq!(b.arrive(1), BufferVerdict::Dropped);
        assert_eq!(b.counters.frames_dropped, 1);
        for _ in 0..4 {
            b.depart(1_000);
        }
        assert!(b.xoff(), "6000 is above XON 5000");
        b.depart(1_000);
        assert!(!b.xoff());
        assert_eq!(b.counters.peak_occupancy, 10_000);
    }
}
