//! One port's receive buffer, per priority: a PFC-enabled priority has its own allocation with
//! XOFF/XON thresholds that follow from the headroom allowance in force (dataplane's
//! `BufferPlan`, SPEC §4.5); the other priorities share one lossy pool and drop when it is
//! full. A frame occupies the buffer of the port it came in on until its last copy has left.

use dataplane::headroom::{BufferConfig, BufferPlan, BufferPlanError};
use dataplane::time::FCS_OCTETS;
use dataplane::wire::PRIORITIES;

/// What happened to a received frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Stored,
    /// A lossless priority's allocation is full: the peer sent more than the headroom allows
    /// for (or ignored our PFC). Counted as a lossless drop.
    DroppedLossless,
    /// The lossy pool is full.
    DroppedLossy,
}

/// The receive buffer of one port.
#[derive(Debug, Clone)]
pub struct IngressBuffer {
    plans: [Option<BufferPlan>; PRIORITIES],
    lossy_pool: u64,
    occupancy: [u64; PRIORITIES],
    lossy_used: u64,
    /// XOFF asserted, per priority (bit n).
    xoff: u8,
    pub dropped: [u64; PRIORITIES],
    pub octets_dropped: [u64; PRIORITIES],
    pub accepted: [u64; PRIORITIES],
    /// Times XOFF was asserted, per priority.
    pub xoff_events: [u64; PRIORITIES],
    /// Deepest each priority's occupancy got, octets.
    pub peak: [u64; PRIORITIES],
}

impl IngressBuffer {
    /// A buffer for the PFC-enabled priorities of `pfc_enable`, each planned for a headroom of
    /// `headroom_bits` with `config`, and `lossy_pool` octets shared by the others.
    pub fn new(
        pfc_enable: u8,
        headroom_bits: u64,
        config: &BufferConfig,
        lossy_pool: u64,
    ) -> Result<Self, BufferPlanError> {
        let plan = BufferPlan::new(headroom_bits, config)?;
        let mut plans = [None; PRIORITIES];
        for (n, p) in plans.iter_mut().enumerate() {
            if pfc_enable & (1 << n) != 0 {
                *p = Some(plan);
            }
        }
        Ok(IngressBuffer {
            plans,
            lossy_pool,
            occupancy: [0; PRIORITIES],
            lossy_used: 0,
            xoff: 0,
            dropped: [0; PRIORITIES],
            octets_dropped: [0; PRIORITIES],
            accepted: [0; PRIORITIES],
            xoff_events: [0; PRIORITIES],
            peak: [0; PRIORITIES],
        })
    }

    /// A new PFC Enable and headroom allowance: the enabled priorities get their own
    /// allocation, the others share the lossy pool again. What is stored stays stored (counted
    /// where its priority now belongs), and XOFF is decided afresh.
    pub fn reconfigure(
        &mut self,
        pfc_enable: u8,
        headroom_bits: u64,
        config: &BufferConfig,
    ) -> Result<(), BufferPlanError> {
        let plan = BufferPlan::new(headroom_bits, config)?;
        self.lossy_used = 0;
        self.xoff = 0;
        for n in 0..PRIORITIES {
            if pfc_enable & (1 << n) != 0 {
                self.plans[n] = Some(plan);
                if self.occupancy[n] >= plan.xoff_octets {
                    self.xoff |= 1 << n;
                }
            } else {
                self.plans[n] = None;
                self.lossy_used += self.occupancy[n];
            }
        }
        Ok(())
    }

    /// New thresholds for a new headroom allowance; what is stored stays, and XOFF is
    /// re-decided against the new thresholds.
    pub fn replan(
        &mut self,
        pfc_enable: u8,
        headroom_bits: u64,
        config: &BufferConfig,
    ) -> Result<(), BufferPlanError> {
        let plan = BufferPlan::new(headroom_bits, config)?;
        for n in 0..PRIORITIES {
            if pfc_enable & (1 << n) != 0 {
                self.plans[n] = Some(plan);
                if self.occupancy[n] >= plan.xoff_octets {
                    self.xoff |= 1 << n;
                } else if self.occupancy[n] <= plan.xon_octets {
                    self.xoff &= !(1 << n);
                }
            }
        }
        Ok(())
    }

    /// The plan of priority `n` (PFC-enabled priorities only).
    pub fn plan(&self, n: usize) -> Option<BufferPlan> {
        self.plans.get(n).copied().flatten()
    }

    /// A frame of `len` octets (FCS excluded) of priority `n` arrives.
    pub fn admit(&mut self, n: usize, len: usize) -> Admission {
        let n = n % PRIORITIES;
        let octets = len as u64 + FCS_OCTETS;
        match self.plans[n] {
            Some(plan) => {
                if self.occupancy[n] + octets > plan.allocation_octets {
                    self.dropped[n] += 1;
                    self.octets_dropped[n] += octets;
                    return Admission::DroppedLossless;
                }
                self.occupancy[n] += octets;
                if self.occupancy[n] >= plan.xoff_octets && self.xoff & (1 << n) == 0 {
                    self.xoff |= 1 << n;
                    self.xoff_events[n] += 1;
                }
            }
            None => {
                if self.lossy_used + octets > self.lossy_pool {
                    self.dropped[n] += 1;
                    self.octets_dropped[n] += octets;
                    return Admission::DroppedLossy;
                }
                self.lossy_used += octets;
                self.occupancy[n] += octets;
            }
        }
        self.peak[n] = self.peak[n].max(self.occupancy[n]);
        self.accepted[n] += 1;
        Admission::Stored
    }

    /// A stored frame of `len` octets of priority `n` has left the bridge.
    pub fn release(&mut self, n: usize, len: usize) {
        let n = n % PRIORITIES;
        let octets = len as u64 + FCS_OCTETS;
        self.occupancy[n] = self.occupancy[n].saturating_sub(octets);
        match self.plans[n] {
            Some(plan) => {
                if self.occupancy[n] <= plan.xon_octets {
                    self.xoff &= !(1 << n);
                }
            }
            None => self.lossy_used = self.lossy_used.saturating_sub(octets),
        }
    }

    /// Drops and peaks back to zero (clear-pfc-counters).
    pub fn clear_counters(&mut self) {
        self.dropped = [0; PRIORITIES];
        self.octets_dropped = [0; PRIORITIES];
        self.accepted = [0; PRIORITIES];
        self.xoff_events = [0; PRIORITIES];
        self.peak = self.occupancy;
    }

    /// XOFF per priority (bit n): the PFC initiator's requests.
    pub fn xoff(&self) -> u8 {
        self.xoff
    }

    pub fn occupancy(&self, n: usize) -> u64 {
        self.occupancy.get(n).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annex_n() -> IngressBuffer {
        IngressBuffer::new(1 << 3, 126_224, &BufferConfig::default(), 64 * 1024).expect("plan")
    }

    #[test]
    fn xoff_at_the_threshold_xon_below_it_and_drops_only_past_the_allocation() {
        let mut b = annex_n();
        let plan = b.plan(3).expect("priority 3 is lossless");
        let mut stored = 0;
        while b.xoff() == 0 {
            assert_eq!(b.admit(3, 1496), Admission::Stored);
            stored += 1;
        }
        assert!(b.occupancy(3) >= plan.xoff_octets);
        // The headroom above XOFF takes what is in flight.
        let mut more = 0;
        while b.admit(3, 1496) == Admission::Stored {
            more += 1;
        }
        assert!(more as u64 * 1500 >= plan.headroom_octets, "a whole headroom fits above XOFF");
        assert_eq!(b.dropped[3], 1);
        for _ in 0..(stored + more) {
            b.release(3, 1496);
        }
        assert_eq!(b.xoff(), 0);
        assert_eq!(b.occupancy(3), 0);
    }

    #[test]
    fn lossy_priorities_share_a_pool_and_never_assert_xoff() {
        let mut b = annex_n();
        let mut n = 0;
        while b.admit(n % 3, 1000) == Admission::Stored {
            n += 1;
        }
        assert_eq!(n, 64 * 1024 / 1004);
        assert_eq!(b.xoff(), 0);
        b.release(0, 1000);
        assert_eq!(b.admit(1, 1000), Admission::Stored);
    }
}
