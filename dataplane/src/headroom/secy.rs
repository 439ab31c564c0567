//! The delay a MACsec SecY adds, transmit or receive (36.4.1).
//!
//! IEEE Std 802.1AC-2018 bounds each SecY delay by the wire time of one maximum frame and four
//! 64-octet frames: 19 360 bit times for 2000-octet frames, `8 × (2000 + 20) + 8 × 4 × (64 + 12
//! + 4 + 20)` (36.4.1 NOTE 1). The draft says that bound is appropriate up to 10 Gb/s and is
//! silent above. Above 10 Gb/s we keep the bound's **time**, not its bit count: a SecY is
//! assumed no quicker than a 10 Gb/s one, so 1.936 us, which is 193 600 bit times at 100 Gb/s.
//! That errs towards more headroom; a port whose SecY is known to be faster configures its
//! figure (`secy_delay_bits`). See DECISIONS.md, "Headroom".

use std::fmt;

use super::units::{frame_bits, group_digits};
use crate::time::LinkSpeed;

/// The four 64-octet frames of the 802.1AC bound: `8 × 4 × (64 + 12 + 4 + 20)` bit times.
const FOUR_SMALL_FRAMES_BITS: u128 = 8 * 4 * (64 + 12 + 4 + 20);

/// Where a SecY delay figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecyRule {
    /// Configured for this port.
    Configured,
    /// The 802.1AC bound in bit times (36.4.1 NOTE 1), at speeds up to 10 Gb/s.
    Bound,
    /// Above 10 Gb/s: the 802.1AC bound at 10 Gb/s, held in time and converted to this speed.
    BoundAt10G,
}

/// One SecY delay, transmit or receive (the bound is the same both ways).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecyDelay {
    pub bits: u128,
    pub rule: SecyRule,
}

impl fmt::Display for SecyDelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rule {
            SecyRule::Configured => f.write_str("configured"),
            SecyRule::Bound => f.write_str("802.1AC bound, 36.4.1"),
            SecyRule::BoundAt10G => f.write_str("802.1AC bound at 10G, held in time"),
        }
    }
}

/// The SecY delay to use at `speed` with frames of up to `max_frame_octets` (FCS included):
/// `configured` when given, else the bound described in the module documentation.
pub fn secy_delay(speed: LinkSpeed, max_frame_octets: u64, configured: Option<u64>) -> SecyDelay {
    if let Some(bits) = configured {
        return SecyDelay { bits: bits as u128, rule: SecyRule::Configured };
    }
    let bound = frame_bits(max_frame_octets) + FOUR_SMALL_FRAMES_BITS;
    let ten = LinkSpeed::G10.gbps() as u128;
    if speed.gbps() as u128 <= ten {
        SecyDelay { bits: bound, rule: SecyRule::Bound }
    } else {
        let bits = (bound * speed.gbps() as u128).div_ceil(ten);
        SecyDelay { bits, rule: SecyRule::BoundAt10G }
    }
}

/// How a breakdown line names a SecY figure: `19 360 bit times, 802.1AC bound, 36.4.1`.
pub(crate) fn describe(d: &SecyDelay) -> String {
    format!("{} bit times, {d}", group_digits(d.bits as i128))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_for_2000_octet_frames_is_19_360_bit_times() {
        let d = secy_delay(LinkSpeed::G10, 2_000, None);
        assert_eq!(d, SecyDelay { bits: 19_360, rule: SecyRule::Bound });
    }

    #[test]
    fn above_10g_the_bound_is_held_in_time() {
        // 19 360 bit times at 10G = 1.936 us.
        assert_eq!(secy_delay(LinkSpeed::G25, 2_000, None).bits, 48_400);
        assert_eq!(secy_delay(LinkSpeed::G100, 2_000, None).bits, 193_600);
        assert_eq!(secy_delay(LinkSpeed::G400, 2_000, None).rule, SecyRule::BoundAt10G);
    }

    #[test]
    fn a_configured_figure_wins() {
        let d = secy_delay(LinkSpeed::G100, 2_000, Some(40_000));
        assert_eq!(d, SecyDelay { bits: 40_000, rule: SecyRule::Configured });
    }

    #[test]
    fn the_bound_follows_the_maximum_frame() {
        // 9216-octet jumbo frames: 8 × 9236 + 3200.
        assert_eq!(secy_delay(LinkSpeed::G10, 9_216, None).bits, 77_088);
    }
}
