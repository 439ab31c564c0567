//! How long an HMPDU takes from our reading the clock for it to the driver: the kernel's
//! transmit timestamp (`SO_TIMESTAMPING`, software) minus the time we stamped, the median of
//! the last few. It is what our send path adds to a measured round trip (each end's: a
//! request's timestamp is taken before its send, a response's adjustment before its own).
//!
//! It is shown, not taken out. HMPDUs carry their timestamps and adjustments in the frame
//! (one-step), so the delay of the frame itself cannot be known when it is built; handing the
//! median of earlier ones to the participant as the wait before the wire was tried. Between two
//! pfcd on a veth it made half the raw round trips negative (the send path varies from one
//! HMPDU to the next by more than its median) and the estimate, the lower median of eight, fell
//! below the true round trip: less headroom than the link needs. Left in, the send path only
//! ever adds to the allowance.

use std::collections::VecDeque;

/// Samples kept: the median of these is in use.
const KEEP: usize = 15;
/// A sample longer than this is a preemption, not the send path: not kept.
const LONGEST_NS: u64 = 1_000_000;

#[derive(Debug, Default, Clone)]
pub struct Handover {
    samples: VecDeque<u64>,
}

impl Handover {
    /// One HMPDU stamped at `stamped_ns` reached the driver at `sent_ns` (CLOCK_REALTIME).
    pub fn sample(&mut self, stamped_ns: u64, sent_ns: u64) {
        let ns = sent_ns.saturating_sub(stamped_ns);
        if ns > LONGEST_NS {
            return;
        }
        if self.samples.len() == KEEP {
            self.samples.pop_front();
        }
        self.samples.push_back(ns);
    }

    /// The median of the samples kept, nanoseconds; 0 without any (no transmit timestamps).
    pub fn median_ns(&self) -> u64 {
        let mut sorted: Vec<u64> = self.samples.iter().copied().collect();
        sorted.sort_unstable();
        sorted.get(sorted.len() / 2).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_the_last_samples_ignoring_preemptions() {
        let mut h = Handover::default();
        assert_eq!(h.median_ns(), 0);
        for (stamped, sent) in [(1_000, 3_000), (10_000, 13_000), (20_000, 22_500)] {
            h.sample(stamped, sent);
        }
        h.sample(30_000, 5_000_000); // preempted: dropped
        h.sample(40_000, 39_000); // clock stepped: counted as 0
        assert_eq!(h.median_ns(), 2_500, "the upper median of 0, 2 000, 2 500, 3 000");
        for i in 0..KEEP as u64 {
            h.sample(i * 10_000, i * 10_000 + 4_000);
        }
        assert_eq!(h.median_ns(), 4_000, "only the last {KEEP} count");
    }
}
