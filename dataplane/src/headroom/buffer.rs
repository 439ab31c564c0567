//! The receive buffer of one PFC-enabled priority and its XOFF/XON thresholds (SPEC §4.5,
//! Annex N N.6).
//!
//! XOFF is asserted when a stored frame brings occupancy to the XOFF threshold or above, so that
//! frame may overshoot the threshold by up to one maximum frame less one octet. 36.1.1 counts the
//! headroom from "B's receipt and buffering of a frame that prompts PFC initiation", so the whole
//! headroom must still be free *after* that frame: XOFF = allocation − headroom − (maximum frame
//! − 1). Annex N N.6 sets XOFF one headroom below the end and loses frames when the receiver
//! barely drains (DECISIONS.md, "Where XOFF sits"). XON waits until occupancy has fallen one
//! maximum frame below XOFF, so that one frame arriving or leaving does not flap PFC on and off.
//! Allocating two headrooms (the default) leaves nearly a headroom of data to drain while the XON
//! travels, so the link hardly idles: Annex N's "no frame loss and no throughput loss".

use std::fmt;

use super::units::group_digits;

/// Default allocations are rounded up to whole KiB, the granularity buffer managers allocate in.
const ALLOCATION_GRANULE_OCTETS: u64 = 1_024;

/// How to size the buffer: everything optional has the SPEC §4.5 default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferConfig {
    /// The largest frame, octets including FCS; the default XON hysteresis. Default 2000.
    pub max_frame_octets: u64,
    /// A fixed allocation in octets; `None` allocates twice the headroom, rounded up to 1 KiB.
    pub allocation_octets: Option<u64>,
    /// How far below the XOFF threshold XON waits, octets; `None` uses one maximum frame.
    pub xon_hysteresis_octets: Option<u64>,
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig {
            max_frame_octets: 2_000,
            allocation_octets: None,
            xon_hysteresis_octets: None,
        }
    }
}

/// Why a buffer cannot be planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BufferPlanError {
    /// A configured allocation too small to hold the headroom above the frame that prompts PFC:
    /// PFC could never be sent in time.
    #[error(
        "the buffer allocation of {allocation} octets is smaller than the headroom of {headroom} \
         octets plus the frame that prompts PFC ({needed} octets in all), so frames would be lost \
         before PFC takes effect: allocate at least {needed} octets (about twice the headroom for \
         full throughput), or leave the allocation to its default"
    )]
    AllocationBelowHeadroom { allocation: u64, headroom: u64, needed: u64 },
}

/// Buffer sizes and thresholds for one PFC-enabled priority, in octets of buffer occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferPlan {
    /// The effective headroom allowance in octets, rounded up from bits.
    pub headroom_octets: u64,
    /// The buffer set aside for the priority.
    pub allocation_octets: u64,
    /// Occupancy at or above which XOFF is asserted: allocation − headroom − (maximum frame − 1),
    /// so the frame that crosses it still leaves the whole headroom free.
    pub xoff_octets: u64,
    /// Occupancy at or below which XOFF is cleared: XOFF threshold − hysteresis. A hysteresis as
    /// large as the XOFF threshold gives 0: PFC is released only when the buffer is empty.
    pub xon_octets: u64,
}

impl BufferPlan {
    /// The plan for an effective headroom allowance of `headroom_bits` bit times.
    pub fn new(headroom_bits: u64, config: &BufferConfig) -> Result<Self, BufferPlanError> {
        let headroom = headroom_bits.div_ceil(8);
        let reserve = headroom.saturating_add(trigger_overshoot(config.max_frame_octets));
        let allocation = match config.allocation_octets {
            Some(a) if a < reserve => {
                return Err(BufferPlanError::AllocationBelowHeadroom {
                    allocation: a,
                    headroom,
                    needed: reserve,
                })
            }
            Some(a) => a,
            // SPEC §4.5: twice the headroom, rounded up; never less than the reserve (a headroom
            // below one frame is only ever a test's).
            None => headroom
                .saturating_mul(2)
                .max(reserve)
                .checked_next_multiple_of(ALLOCATION_GRANULE_OCTETS)
                .unwrap_or(u64::MAX),
        };
        let xoff = allocation - reserve;
        let hysteresis = config.xon_hysteresis_octets.unwrap_or(config.max_frame_octets);
        Ok(BufferPlan {
            headroom_octets: headroom,
            allocation_octets: allocation,
            xoff_octets: xoff,
            xon_octets: xoff.saturating_sub(hysteresis),
        })
    }
}

/// How far the frame that prompts PFC can take occupancy past the XOFF threshold: it is stored
/// whole, and XOFF is asserted once occupancy has reached the threshold, so at most one maximum
/// frame less one octet.
pub const fn trigger_overshoot(max_frame_octets: u64) -> u64 {
    max_frame_octets.saturating_sub(1)
}

impl fmt::Display for BufferPlan {
    /// `allocation 31 744 octets, XOFF at 15 966, XON at 13 966 (headroom 15 778)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "allocation {} octets, XOFF at {}, XON at {} (headroom {})",
            group_digits(self.allocation_octets as i128),
            group_digits(self.xoff_octets as i128),
            group_digits(self.xon_octets as i128),
            group_digits(self.headroom_octets as i128)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_example_keeps_a_whole_headroom_above_the_frame_that_prompts_pfc() {
        // N.6: 126 224 bit times = 15 778 octets (15.4 KiB); 2 × = 31 556 (30.8 KiB), rounded
        // up to 31 KiB. N.6 puts XOFF at one headroom below the end (15 966); the frame that
        // crosses it may take up to 1999 octets of the headroom, so XOFF sits 1999 lower.
        let plan = BufferPlan::new(126_224, &BufferConfig::default()).expect("valid");
        assert_eq!(
            plan,
            BufferPlan {
                headroom_octets: 15_778,
                allocation_octets: 31_744,
                xoff_octets: 13_967,
                xon_octets: 11_967,
            }
        );
        // The worst trigger: occupancy one octet below XOFF, then a maximum frame.
        let after_trigger = plan.xoff_octets - 1 + 2_000;
        assert_eq!(plan.allocation_octets - after_trigger, plan.headroom_octets);
        assert_eq!(
            plan.to_string(),
            "allocation 31 744 octets, XOFF at 13 967, XON at 11 967 (headroom 15 778)"
        );
    }

    #[test]
    fn annex_n_example_with_macsec_on_user_data() {
        // 164 944 bit times = 20 618 octets (20.1 KiB); 2 × = 41 236, rounded up to 41 KiB.
        let plan = BufferPlan::new(164_944, &BufferConfig::default()).expect("valid");
        assert_eq!(plan.headroom_octets, 20_618);
        assert_eq!(plan.allocation_octets, 41_984);
        assert_eq!(plan.xoff_octets, 41_984 - 20_618 - 1_999);
        assert_eq!(plan.xon_octets, plan.xoff_octets - 2_000);
    }

    #[test]
    fn configured_allocation_hysteresis_and_jumbo_frames() {
        let config = BufferConfig {
            allocation_octets: Some(40_000),
            xon_hysteresis_octets: Some(9_216),
            ..BufferConfig::default()
        };
        let plan = BufferPlan::new(126_224, &config).expect("valid");
        assert_eq!(plan.allocation_octets, 40_000);
        assert_eq!(plan.xoff_octets, 40_000 - 15_778 - 1_999);
        assert_eq!(plan.xon_octets, plan.xoff_octets - 9_216);
        // A larger maximum frame can overshoot further: XOFF moves down with it.
        let jumbo = BufferConfig { max_frame_octets: 9_220, ..config };
        let plan = BufferPlan::new(126_224, &jumbo).expect("valid");
        assert_eq!(plan.xoff_octets, 40_000 - 15_778 - 9_219);
    }

    #[test]
    fn the_smallest_allocation_pauses_at_once_and_resumes_when_empty() {
        let config = BufferConfig { allocation_octets: Some(17_777), ..BufferConfig::default() };
        let plan = BufferPlan::new(126_224, &config).expect("valid");
        assert_eq!((plan.xoff_octets, plan.xon_octets), (0, 0));
    }

    #[test]
    fn an_allocation_below_headroom_and_trigger_frame_is_refused() {
        let config = BufferConfig { allocation_octets: Some(17_776), ..BufferConfig::default() };
        let err = BufferPlan::new(126_224, &config).expect_err("too small");
        assert_eq!(
            err,
            BufferPlanError::AllocationBelowHeadroom {
                allocation: 17_776,
                headroom: 15_778,
                needed: 17_777
            }
        );
        assert!(err.to_string().contains("allocate at least 17777 octets"), "{err}");
        // The largest headroom still plans without overflow.
        let huge = BufferPlan::new(u64::MAX, &BufferConfig::default()).expect("fits");
        assert_eq!(huge.allocation_octets, 1 << 62);
    }
}
