//! Headroom from a measured round trip (36.8 b), SPEC §4.3). The headroom measurement protocol
//! measures the internal and link delays, ID + LD, in pause quanta; Annex N: "ID + LD is
//! obtained by running the protocol. Then by adding WD, the total delay is got." WD, the
//! worst-case delay, is the two maximum frames in progress — one at each station, items d) and
//! i) — plus, with user data MACsec protected, one SecY delay (Annex N's WD1 increment; the other
//! SecY, Annex N's ID4, lies on the measured path and is in the round trip already).

use super::breakdown::{Item, Items};
use super::calculate::{check_frame, Headroom, Lines};
use super::secy::{describe, secy_delay};
use super::units::frame_bits;
use super::HeadroomError;
use crate::time::{LinkSpeed, QUANTUM_BITS};

/// The worst-case delay (WD) the measurement cannot see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WorstCase {
    /// The largest frame either station may have in progress, octets including FCS.
    pub max_frame_octets: u64,
    /// User data frames are MACsec protected.
    pub macsec_user_data: bool,
    /// One SecY delay in bit times when known; `None` uses the 36.4.1 bound
    /// ([`super::secy_delay`]).
    pub secy_delay_bits: Option<u64>,
}

impl Default for WorstCase {
    /// 2000-octet envelope frames, no MACsec (Annex N N.6).
    fn default() -> Self {
        WorstCase { max_frame_octets: 2_000, macsec_user_data: false, secy_delay_bits: None }
    }
}

/// Headroom in bit times from a measured round trip of `round_trip_quanta` pause quanta:
/// `round_trip_quanta × 512 + WD`, with a breakdown.
pub fn measured_headroom(
    speed: LinkSpeed,
    round_trip_quanta: u64,
    wd: &WorstCase,
) -> Result<Headroom, HeadroomError> {
    check_frame("maximum frame", wd.max_frame_octets)?;
    let max_frame = frame_bits(wd.max_frame_octets);
    let mut lines = Lines::default();
    lines.push(
        Items::span(Item::A, Item::K),
        format!(
            "round trip ID + LD measured by the headroom measurement protocol, {round_trip_quanta} \
             pause quanta (every item but the frames in progress)"
        ),
        round_trip_quanta as i128 * QUANTUM_BITS as i128,
        "measured round trip",
    )?;
    let frame_text = format!("one maximum frame of {} octets (WD)", wd.max_frame_octets);
    lines.one(
        Item::D,
        format!("B: frame in progress, {frame_text}"),
        max_frame,
        "maximum frame",
    )?;
    lines.one(
        Item::I,
        format!("A: frame in progress, {frame_text}"),
        max_frame,
        "maximum frame",
    )?;
    if wd.macsec_user_data {
        let secy = secy_delay(speed, wd.max_frame_octets, wd.secy_delay_bits);
        lines.one(
            Item::K,
            format!(
                "B: SecY receive, worst case (user data MACsec protected; {}; Annex N adds it to WD1)",
                describe(&secy)
            ),
            secy.bits,
            "SecY",
        )?;
    }
    lines.finish(speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_round_trip_measured_to_the_next_quantum() {
        // Annex N without its two maximum frames: 126 224 − 2 × 16 160 = 93 904 bit times =
        // 183.4 quanta, which the estimate rounds up to 184 (SPEC §4.3).
        let h = measured_headroom(LinkSpeed::G10, 184, &WorstCase::default()).expect("valid");
        assert_eq!(h.bits, 184 * 512 + 2 * 16_160);
        assert_eq!(h.bits, 126_528);
        assert_eq!(h.breakdown.total(), 126_528);
        // Within the 8-quantum accuracy goal of 36.9.1, and never below the calculated figure.
        assert!(h.bits >= 126_224 && h.bits - 126_224 <= 8 * 512);
    }

    #[test]
    fn macsec_on_user_data_adds_one_secy_delay_to_wd() {
        // The measured path includes A's SecY transmit (ID4): (93 904 + 19 360) / 512 = 221.2,
        // rounded up to 222 quanta; WD adds two frames and B's SecY receive (WD1).
        let wd = WorstCase { macsec_user_data: true, ..WorstCase::default() };
        let h = measured_headroom(LinkSpeed::G10, 222, &wd).expect("valid");
        assert_eq!(h.bits, 222 * 512 + 2 * 16_160 + 19_360);
        assert_eq!(h.bits, 165_344);
        assert!(h.bits >= 164_944 && h.bits - 164_944 <= 8 * 512);
    }

    #[test]
    fn the_breakdown_names_what_was_measured() {
        let h = measured_headroom(LinkSpeed::G100, 1_000, &WorstCase::default()).expect("valid");
        assert_eq!(h.bits, 512_000 + 32_320);
        let text = h.breakdown.to_string();
        assert!(text.contains("a)-k)"), "{text}");
        assert!(text.contains("1000 pause quanta"), "{text}");
    }

    #[test]
    fn a_frame_below_the_minimum_is_refused() {
        let wd = WorstCase { max_frame_octets: 10, ..WorstCase::default() };
        assert!(matches!(
            measured_headroom(LinkSpeed::G10, 1, &wd),
            Err(HeadroomError::FrameTooSmall { .. })
        ));
    }
}
