//! One port's receive buffer, per priority: a PFC-enabled priority has its own allocation with
//! XOFF/XON thresholds that follow from the headroom allowance in force (dataplane's
//! `BufferPlan`, SPEC §4.5); the other priorities share one lossy pool and drop when it is
//! full. A frame occupies the buffer of the port it came in on until its last copy has left.
//! Within the lossy pool each egress port may hold at most what is free (a dynamic threshold
//! with alpha 1, as switch buffer managers share a pool): frames queued for one stopped port
//! can take at most half of it, and the other ports keep the rest.

use dataplane::headroom::{BufferConfig, BufferPlan, BufferPlanError};
use dataplane::time::FCS_OCTETS;
use dataplane::wire::PRIORITIES;

/// The plan of each priority with PFC in `pfc_enable`: its own allocation from `allocations`
/// if it has one, else `config`'s.
fn plans_for(
    pfc_enable: u8,
    allocations: &[Option<u64>; PRIORITIES],
    headroom_bits: u64,
    config: &BufferConfig,
) -> Result<[Option<BufferPlan>; PRIORITIES], BufferPlanError> {
    let mut plans = [None; PRIORITIES];
    for (n, p) in plans.iter_mut().enumerate() {
        if pfc_enable & (1 << n) != 0 {
            let allocation_octets = allocations[n].or(config.allocation_octets);
            *p = Some(BufferPlan::new(
                headroom_bits,
                &BufferConfig { allocation_octets, ..*config },
            )?);
        }
    }
    Ok(plans)
}

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
    /// Each priority's own allocation, octets, where one was given (`buffer-allocation`);
    /// else the port's `BufferConfig` decides.
    allocations: [Option<u64>; PRIORITIES],
    lossy_pool: u64,
    occupancy: [u64; PRIORITIES],
    lossy_used: u64,
    /// Octets of the lossy pool held for each egress port (a flooded frame counts for each).
    lossy_to: Vec<u64>,
    /// Copies refused because their egress port held its share of the lossy pool.
    pub share_drops: u64,
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
        let allocations = [None; PRIORITIES];
        let plans = plans_for(pfc_enable, &allocations, headroom_bits, config)?;
        Ok(IngressBuffer {
            plans,
            allocations,
            lossy_pool,
            occupancy: [0; PRIORITIES],
            lossy_used: 0,
            lossy_to: Vec::new(),
            share_drops: 0,
            xoff: 0,
            dropped: [0; PRIORITIES],
            octets_dropped: [0; PRIORITIES],
            accepted: [0; PRIORITIES],
            xoff_events: [0; PRIORITIES],
            peak: [0; PRIORITIES],
        })
    }

    /// A new PFC Enable, headroom allowance and per-priority allocations (`None`: the port's
    /// `config` decides): the enabled priorities get their own allocation, the others share
    /// the lossy pool again. What is stored stays stored (counted where its priority now
    /// belongs), and XOFF is decided afresh. Nothing changes if a plan is refused.
    pub fn reconfigure(
        &mut self,
        pfc_enable: u8,
        headroom_bits: u64,
        allocations: [Option<u64>; PRIORITIES],
        config: &BufferConfig,
    ) -> Result<(), BufferPlanError> {
        let plans = plans_for(pfc_enable, &allocations, headroom_bits, config)?;
        self.allocations = allocations;
        self.lossy_used = 0;
        // A priority past XOFF stays there until it drains to XON, as between frames: a new
        // setting of the port (its watchdog, say) is no reason to release the peer.
        let was = std::mem::take(&mut self.xoff);
        for (n, planned) in plans.into_iter().enumerate() {
            self.plans[n] = planned;
            if let Some(plan) = planned {
                let held = was & (1 << n) != 0 && self.occupancy[n] > plan.xon_octets;
                if self.occupancy[n] >= plan.xoff_octets || held {
                    self.xoff |= 1 << n;
                }
            } else {
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
        let plans = plans_for(pfc_enable, &self.allocations, headroom_bits, config)?;
        for (n, planned) in plans.into_iter().enumerate() {
            if let Some(plan) = planned {
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

    /// Whether a frame of `len` octets of priority `n` would be stored now; false only for a
    /// lossless priority whose allocation is full (the lossy pool's drops are the pool's).
    pub fn has_room(&self, n: usize, len: usize) -> bool {
        let n = n % PRIORITIES;
        self.plans[n].is_none_or(|plan| {
            self.occupancy[n] + len as u64 + FCS_OCTETS <= plan.allocation_octets
        })
    }

    /// Whether priority `n` is one of the lossy pool's.
    pub fn lossy(&self, n: usize) -> bool {
        self.plans.get(n).is_some_and(Option::is_none)
    }

    /// Keeps the egress ports of `out` that may take one more lossy frame of `len` octets:
    /// those holding less of the pool than is free. Refused copies are counted.
    pub fn share(&mut self, out: &mut Vec<usize>, len: usize) {
        let octets = len as u64 + FCS_OCTETS;
        let free = self.lossy_pool.saturating_sub(self.lossy_used);
        let before = out.len();
        out.retain(|e| self.lossy_to.get(*e).copied().unwrap_or(0) + octets <= free);
        self.share_drops += (before - out.len()) as u64;
    }

    /// A lossy frame of `len` octets was stored for `out`.
    pub fn charge(&mut self, out: &[usize], len: usize) {
        let octets = len as u64 + FCS_OCTETS;
        for e in out {
            if self.lossy_to.len() <= *e {
                self.lossy_to.resize(*e + 1, 0);
            }
            self.lossy_to[*e] += octets;
        }
    }

    /// A copy of a lossy frame of `len` octets has left toward (or been dropped for) `egress`.
    pub fn uncharge(&mut self, egress: usize, len: usize) {
        if let Some(held) = self.lossy_to.get_mut(egress) {
            *held = held.saturating_sub(len as u64 + FCS_OCTETS);
        }
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
        self.share_drops = 0;
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

    /// A port given new settings (its watchdog, say) keeps asking for the pause it asked for
    /// while its buffer is between XON and XOFF: releasing the peer there would let a PFC
    /// deadlock go for a reason that has nothing to do with it.
    #[test]
    fn a_reconfigured_port_keeps_its_xoff_until_the_buffer_drains_to_xon() {
        let mut b = annex_n();
        let plan = b.plan(3).expect("priority 3 is lossless");
        let mut stored = 0u64;
        while b.xoff() == 0 {
            b.admit(3, 1496);
            stored += 1;
        }
        // Drained below XOFF, still above XON: XOFF holds.
        while b.occupancy(3) >= plan.xoff_octets {
            b.release(3, 1496);
            stored -= 1;
        }
        assert!(b.occupancy(3) > plan.xon_octets, "between XON and XOFF");
        assert_eq!(b.xoff(), 1 << 3);
        b.reconfigure(1 << 3, 126_224, [None; PRIORITIES], &BufferConfig::default())
            .expect("the same plan");
        assert_eq!(b.xoff(), 1 << 3, "still asking for the pause");
        while b.occupancy(3) > plan.xon_octets {
            b.release(3, 1496);
            stored -= 1;
        }
        assert_eq!(b.xoff(), 0, "released at XON");
        assert!(stored > 0);
    }

    #[test]
    fn one_stopped_egress_holds_at_most_half_the_lossy_pool() {
        let mut b = annex_n();
        // Port 1 is stopped: nothing queued for it leaves.
        let mut stored = 0;
        loop {
            let mut out = vec![1];
            b.share(&mut out, 1000);
            if out.is_empty() {
                break;
            }
            assert_eq!(b.admit(0, 1000), Admission::Stored);
            b.charge(&out, 1000);
            stored += 1;
        }
        // Each frame is taken while port 1 holds no more than is free: 33 × 1004 octets of
        // 65 536, half the pool and one frame.
        assert_eq!(stored, 33, "about half the pool, then refused");
        assert_eq!(b.share_drops, 1);
        // Port 2 still gets the other half.
        let mut out = vec![1, 2];
        b.share(&mut out, 1000);
        assert_eq!(out, vec![2], "only port 1's copy refused");
        assert_eq!(b.admit(0, 1000), Admission::Stored);
        b.charge(&out, 1000);
        b.uncharge(2, 1000);
        b.release(0, 1000);
        // As port 1 drains, it may take more again.
        b.uncharge(1, 1000);
        b.release(0, 1000);
        let mut out = vec![1];
        b.share(&mut out, 1000);
        assert_eq!(out, vec![1]);
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
