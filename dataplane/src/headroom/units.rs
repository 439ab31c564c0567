//! Conversions between the units headroom is stated in: bit times at the link rate, picoseconds,
//! IEEE 1588 TimeInterval (nanoseconds × 2^16) and frame octets.
//!
//! Every conversion that cannot be exact rounds towards **more** headroom: a headroom one bit
//! short can lose a frame, one bit long costs nothing measurable. Intermediate values are
//! 128-bit so that no configured value, however absurd, can overflow and panic; the caller
//! decides whether the result fits.

use crate::time::{LinkSpeed, Picos, PREAMBLE_AND_IFG_OCTETS};

/// IEEE 1588 TimeInterval units in one nanosecond: the PFC Local Delay TLV (D.2.19) carries a
/// TimeInterval, i.e. nanoseconds scaled by 2^16 (SPEC §2.4).
pub const TIME_INTERVAL_PER_NS: i64 = 1 << 16;

/// Bit times a frame of `octets` holds the wire, preamble, SFD and minimum inter-frame gap
/// included. `octets` counts the frame as IEEE 802.3 does, FCS included, because that is how
/// Annex N states its sizes: 2000 octets ⇒ 16 160 bit times, 64 octets ⇒ 672.
pub const fn frame_bits(octets: u64) -> u128 {
    (octets as u128 + PREAMBLE_AND_IFG_OCTETS as u128) * 8
}

/// Bit times in `t` at `speed`, rounded up (only 25 Gb/s and faster can leave a fraction).
pub const fn picos_to_bits(t: Picos, speed: LinkSpeed) -> u128 {
    (t.0 as u128 * speed.gbps() as u128).div_ceil(1_000)
}

/// Bit times in an IEEE 1588 TimeInterval at `speed`, rounded towards +∞ so that a negative
/// delay subtracts no more than it says.
pub const fn time_interval_to_bits(ti: i64, speed: LinkSpeed) -> i128 {
    div_ceil_signed(ti as i128 * speed.gbps() as i128, TIME_INTERVAL_PER_NS as i128)
}

/// The TimeInterval to advertise for `bits` bit times at `speed`, rounded up, saturating at
/// `i64::MAX` (about 39 hours: far beyond any real delay).
pub const fn bits_to_time_interval(bits: u64, speed: LinkSpeed) -> i64 {
    let ti = (bits as u128 * TIME_INTERVAL_PER_NS as u128).div_ceil(speed.gbps() as u128);
    if ti > i64::MAX as u128 {
        i64::MAX
    } else {
        ti as i64
    }
}

/// `n / d` rounded towards +∞, for `d > 0`.
const fn div_ceil_signed(n: i128, d: i128) -> i128 {
    let q = n.div_euclid(d);
    if n.rem_euclid(d) == 0 {
        q
    } else {
        q + 1
    }
}

/// A TimeInterval as nanoseconds with three decimals (`4403.200 ns`, `-12.500 ns`), rounded to
/// the nearest picosecond, for breakdowns a person reads (display only).
pub fn format_time_interval(ti: i64) -> String {
    let sign = if ti < 0 { "-" } else { "" };
    let per_ns = TIME_INTERVAL_PER_NS as u128;
    let ps = (ti.unsigned_abs() as u128 * 1_000 + per_ns / 2) / per_ns;
    format!("{sign}{}.{:03} ns", ps / 1_000, ps % 1_000)
}

/// `n` with its digits grouped in threes by spaces, as the draft writes bit times: `126 224`.
pub fn group_digits(n: i128) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_frame_sizes() {
        assert_eq!(frame_bits(2000), 16_160);
        assert_eq!(frame_bits(64), 672);
    }

    #[test]
    fn picos_round_up_to_whole_bits() {
        assert_eq!(picos_to_bits(Picos(614_400), LinkSpeed::G10), 6_144);
        assert_eq!(picos_to_bits(Picos(614_400), LinkSpeed::G100), 61_440);
        assert_eq!(picos_to_bits(Picos(1), LinkSpeed::G10), 1);
        assert_eq!(picos_to_bits(Picos(5), LinkSpeed::G400), 2);
        assert_eq!(picos_to_bits(Picos(6), LinkSpeed::G400), 3);
    }

    #[test]
    fn time_interval_round_trip_and_sign() {
        // 614.4 ns at 10G = 6144 bits; 614.4 × 65536 = 40 265 318.4 TimeInterval units.
        assert_eq!(bits_to_time_interval(6_144, LinkSpeed::G10), 40_265_319);
        assert_eq!(time_interval_to_bits(40_265_318, LinkSpeed::G10), 6_144);
        assert_eq!(time_interval_to_bits(40_265_319, LinkSpeed::G10), 6_145);
        assert_eq!(time_interval_to_bits(65_536, LinkSpeed::G10), 10);
        assert_eq!(time_interval_to_bits(-65_536, LinkSpeed::G10), -10);
        // −1.4999 bit times rounds towards +∞: −1.
        assert_eq!(time_interval_to_bits(-9_830, LinkSpeed::G10), -1);
        assert_eq!(bits_to_time_interval(u64::MAX, LinkSpeed::G10), i64::MAX);
    }

    #[test]
    fn readable_numbers() {
        assert_eq!(group_digits(126_224), "126 224");
        assert_eq!(group_digits(-5_000), "-5 000");
        assert_eq!(group_digits(672), "672");
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(1_000_000), "1 000 000");
        assert_eq!(format_time_interval(288_568_115), "4403.200 ns");
        assert_eq!(format_time_interval(-819_200), "-12.500 ns");
    }
}
