//! The one-way link delay, items f) and j) of 36.1.1: either a time (as IEEE 1588 reports it,
//! or as configured) or a cable length in a known medium (Annex N N.4).

use std::fmt;

use super::units::{group_digits, picos_to_bits};
use super::HeadroomError;
use crate::time::{LinkSpeed, Picos};

/// A transmission medium, known by its signal propagation velocity. Velocities are whole metres
/// per second so that the Annex N example comes out exact in integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Medium {
    /// Optical fibre: about 5 ns/m (36.8 NOTE 1), i.e. 2 × 10^8 m/s.
    Fibre,
    /// Category 6 twisted pair: v = 0.6 c (Annex N N.6), with c taken as 3 × 10^8 m/s as Annex N
    /// does — that is what makes 100 m come to 5556 bit times at 10 Gb/s (with c = 299 792 458
    /// m/s it would be 5560).
    Cat6,
    /// Any other medium (twinax, a vendor's measured figure), by its propagation velocity.
    Other { metres_per_second: u64 },
}

impl Medium {
    /// Propagation velocity in metres per second.
    pub const fn metres_per_second(self) -> u64 {
        match self {
            Medium::Fibre => 200_000_000,
            Medium::Cat6 => 180_000_000,
            Medium::Other { metres_per_second } => metres_per_second,
        }
    }
}

impl fmt::Display for Medium {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Medium::Fibre => f.write_str("fibre (5 ns/m)"),
            Medium::Cat6 => f.write_str("Cat6 (v = 0.6c)"),
            Medium::Other { metres_per_second } => {
                write!(f, "a medium at {} m/s", group_digits(*metres_per_second as i128))
            }
        }
    }
}

/// Where the one-way link delay comes from. The same delay is used in both directions (IEEE
/// 1588's mean link delay assumes a symmetric link too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkDelay {
    /// A one-way delay in time: IEEE 1588's mean link delay when the stations run it (36.8.1
    /// says it should be used then), otherwise a configured value.
    OneWay(Picos),
    /// A cable of `metres` in `medium` (Annex N N.4: length × 1 / (bit time × v)).
    Cable { metres: u32, medium: Medium },
}

impl LinkDelay {
    /// Bit times in flight one way at `speed`, rounded up: 100 m of Cat6 at 10 Gb/s is 5556
    /// (5555.6 exactly, which Annex N rounds to 5556).
    pub fn bits(&self, speed: LinkSpeed) -> Result<u128, HeadroomError> {
        match *self {
            LinkDelay::OneWay(t) => Ok(picos_to_bits(t, speed)),
            LinkDelay::Cable { metres, medium } => {
                let v = medium.metres_per_second() as u128;
                if v == 0 {
                    return Err(HeadroomError::ZeroPropagationVelocity);
                }
                Ok((metres as u128 * speed.bits_per_second() as u128).div_ceil(v))
            }
        }
    }
}

impl fmt::Display for LinkDelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkDelay::OneWay(t) => write!(f, "{t} one way"),
            LinkDelay::Cable { metres, medium } => {
                write!(f, "{} m of {medium}", group_digits(*metres as i128))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_100_m_of_cat6_at_10g_is_5556_bit_times() {
        let cable = LinkDelay::Cable { metres: 100, medium: Medium::Cat6 };
        assert_eq!(cable.bits(LinkSpeed::G10), Ok(5_556));
        assert_eq!(cable.to_string(), "100 m of Cat6 (v = 0.6c)");
    }

    #[test]
    fn fibre_is_5_ns_per_metre() {
        // 1 km of fibre = 5 us one way = 50 000 bit times at 10G, 500 000 at 100G.
        let km = LinkDelay::Cable { metres: 1_000, medium: Medium::Fibre };
        assert_eq!(km.bits(LinkSpeed::G10), Ok(50_000));
        assert_eq!(km.bits(LinkSpeed::G100), Ok(500_000));
        assert_eq!(LinkDelay::OneWay(Picos::from_us(5)).bits(LinkSpeed::G100), Ok(500_000));
    }

    #[test]
    fn a_medium_that_does_not_propagate_is_an_error() {
        let bad = LinkDelay::Cable { metres: 1, medium: Medium::Other { metres_per_second: 0 } };
        assert_eq!(bad.bits(LinkSpeed::G10), Err(HeadroomError::ZeroPropagationVelocity));
    }

    #[test]
    fn the_longest_cable_does_not_overflow() {
        let far =
            LinkDelay::Cable { metres: u32::MAX, medium: Medium::Other { metres_per_second: 1 } };
        assert_eq!(far.bits(LinkSpeed::G400), Ok(u32::MAX as u128 * 400_000_000_000));
    }
}
