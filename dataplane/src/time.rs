//! Simulated time and link speeds. Time is an integer count of picoseconds, never floating point
//! (SPEC §1), so the same seed always gives the same run.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};
use std::str::FromStr;

/// A point in, or a span of, simulated time in picoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Picos(pub u64);

impl Picos {
    pub const ZERO: Picos = Picos(0);
    pub const MAX: Picos = Picos(u64::MAX);

    pub const fn from_ns(ns: u64) -> Self {
        Picos(ns * 1_000)
    }

    pub const fn from_us(us: u64) -> Self {
        Picos(us * 1_000_000)
    }

    pub const fn from_ms(ms: u64) -> Self {
        Picos(ms * 1_000_000_000)
    }

    /// A span of wall time, saturating at [`Picos::MAX`] (213.5 days): `as_nanos() as u64 *
    /// 1000` wraps there instead, and time would run backwards.
    pub fn from_duration(d: std::time::Duration) -> Self {
        Picos(u64::try_from(d.as_nanos().saturating_mul(1_000)).unwrap_or(u64::MAX))
    }

    pub const fn as_ps(self) -> u64 {
        self.0
    }

    /// Whole nanoseconds, rounded down.
    pub const fn as_ns(self) -> u64 {
        self.0 / 1_000
    }

    pub fn saturating_sub(self, other: Picos) -> Picos {
        Picos(self.0.saturating_sub(other.0))
    }

    pub fn checked_sub(self, other: Picos) -> Option<Picos> {
        self.0.checked_sub(other.0).map(Picos)
    }
}

impl Add for Picos {
    type Output = Picos;
    fn add(self, rhs: Picos) -> Picos {
        Picos(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Picos {
    fn add_assign(&mut self, rhs: Picos) {
        *self = *self + rhs;
    }
}

impl Sub for Picos {
    type Output = Picos;
    /// Saturates at zero: a span never goes negative.
    fn sub(self, rhs: Picos) -> Picos {
        self.saturating_sub(rhs)
    }
}

impl Mul<u64> for Picos {
    type Output = Picos;
    fn mul(self, rhs: u64) -> Picos {
        Picos(self.0.saturating_mul(rhs))
    }
}

impl fmt::Display for Picos {
    /// Picks a readable unit: `614.400 ns`, `5.120 ns`, `1.000000 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps < 1_000 {
            write!(f, "{ps} ps")
        } else if ps < 1_000_000 {
            write!(f, "{}.{:03} ns", ps / 1_000, ps % 1_000)
        } else if ps < 1_000_000_000 {
            write!(f, "{}.{:06} us", ps / 1_000_000, ps % 1_000_000)
        } else {
            write!(f, "{}.{:09} ms", ps / 1_000_000_000, ps % 1_000_000_000)
        }
    }
}

impl fmt::Debug for Picos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Octets a frame occupies on the wire beyond its own octets: preamble and SFD (8) and the
/// minimum inter-frame gap (12).
pub const PREAMBLE_AND_IFG_OCTETS: u64 = 8 + 12;
/// Octets of the frame check sequence, which frame lengths in this crate exclude.
pub const FCS_OCTETS: u64 = 4;
/// Bit times in one pause quantum.
pub const QUANTUM_BITS: u64 = 512;
/// PFC reaction bound (36.3.3): a priority is paused no more than 614.4 ns after the indication.
pub const PFC_REACTION_BOUND: Picos = Picos(614_400);

/// The MAC data rates the simulation supports.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum LinkSpeed {
    G1,
    G10,
    G25,
    G40,
    G50,
    G100,
    G200,
    G400,
}

impl LinkSpeed {
    pub const ALL: [LinkSpeed; 8] = [
        LinkSpeed::G1,
        LinkSpeed::G10,
        LinkSpeed::G25,
        LinkSpeed::G40,
        LinkSpeed::G50,
        LinkSpeed::G100,
        LinkSpeed::G200,
        LinkSpeed::G400,
    ];

    pub const fn gbps(self) -> u64 {
        match self {
            LinkSpeed::G1 => 1,
            LinkSpeed::G10 => 10,
            LinkSpeed::G25 => 25,
            LinkSpeed::G40 => 40,
            LinkSpeed::G50 => 50,
            LinkSpeed::G100 => 100,
            LinkSpeed::G200 => 200,
            LinkSpeed::G400 => 400,
        }
    }

    pub const fn bits_per_second(self) -> u64 {
        self.gbps() * 1_000_000_000
    }

    /// Time to send `bits` at this rate, rounded up to a whole picosecond (only 400 Gb/s, where
    /// one bit is 2.5 ps, ever rounds, and then only for an odd number of bits).
    pub const fn bits_time(self, bits: u64) -> Picos {
        // A multiplication by the half picoseconds per bit: a division by the rate cost a
        // simulated link several percent of its time, once per frame.
        // Past 106 days (the half picoseconds overflow), which no link's delay reaches, the
        // time stays at the end.
        match bits.checked_mul(self.half_ps_per_bit()) {
            Some(half_ps) => Picos(half_ps.div_ceil(2)),
            None => Picos::MAX,
        }
    }

    /// Half picoseconds per bit (1000 / rate in Gb/s, doubled: whole at every rate).
    const fn half_ps_per_bit(self) -> u64 {
        match self {
            LinkSpeed::G1 => 2_000,
            LinkSpeed::G10 => 200,
            LinkSpeed::G25 => 80,
            LinkSpeed::G40 => 50,
            LinkSpeed::G50 => 40,
            LinkSpeed::G100 => 20,
            LinkSpeed::G200 => 10,
            LinkSpeed::G400 => 5,
        }
    }

    /// Bits sent in `t` at this rate, rounded down.
    pub const fn bits_in(self, t: Picos) -> u64 {
        (t.0 as u128 * self.gbps() as u128 / 1_000) as u64
    }

    /// One pause quantum (512 bit times): 5.12 ns at 100 Gb/s.
    pub const fn quantum(self) -> Picos {
        self.bits_time(QUANTUM_BITS)
    }

    /// `n` pause quanta.
    pub const fn quanta(self, n: u64) -> Picos {
        self.bits_time(n * QUANTUM_BITS)
    }

    /// Whole quanta in `t`, rounded up (a pause that has any time left is still in progress).
    pub const fn quanta_in_ceil(self, t: Picos) -> u64 {
        t.0.div_ceil(self.quantum().0)
    }

    /// Time a frame of `len` octets (FCS excluded, at least 60) holds the wire, preamble, FCS and
    /// inter-frame gap included: 6.72 ns for a 60-octet frame at 100 Gb/s.
    pub const fn frame_time(self, len: u64) -> Picos {
        let len = if len < 60 { 60 } else { len };
        self.bits_time((len + FCS_OCTETS + PREAMBLE_AND_IFG_OCTETS) * 8)
    }

    /// Minimum-size frames per second at line rate.
    pub fn line_rate_pps(self, len: u64) -> f64 {
        1e12 / self.frame_time(len).0 as f64
    }
}

impl fmt::Display for LinkSpeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}G", self.gbps())
    }
}

/// The text is not one of the supported speeds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a link speed: use one of 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G")]
pub struct ParseLinkSpeedError(pub String);

impl FromStr for LinkSpeed {
    type Err = ParseLinkSpeedError;

    /// Accepts `100G`, `100g`, `100`, `100Gb/s`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let digits: String = s.trim().chars().take_while(char::is_ascii_digit).collect();
        let rest = s.trim()[digits.len()..].to_ascii_lowercase();
        if !matches!(rest.as_str(), "" | "g" | "gb/s" | "gbps") {
            return Err(ParseLinkSpeedError(s.to_string()));
        }
        let gbps: u64 = digits.parse().map_err(|_| ParseLinkSpeedError(s.to_string()))?;
        LinkSpeed::ALL
            .into_iter()
            .find(|l| l.gbps() == gbps)
            .ok_or_else(|| ParseLinkSpeedError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time to send any number of bits is the bits over the rate, rounded up to a whole
    /// picosecond, at every rate.
    #[test]
    fn bits_time_is_the_bits_over_the_rate_rounded_up() {
        for speed in LinkSpeed::ALL {
            for bits in (0..5_000).chain([12_144, 1 << 40, u64::MAX / 2_000]) {
                let exact = (u128::from(bits) * 1_000).div_ceil(u128::from(speed.gbps()));
                assert_eq!(u128::from(speed.bits_time(bits).0), exact, "{bits} bits at {speed}");
            }
        }
        assert_eq!(LinkSpeed::G400.bits_time(1), Picos(3), "2.5 ps rounds up");
        assert_eq!(LinkSpeed::G1.bits_time(u64::MAX / 100), Picos::MAX, "past 106 days");
    }

    /// Wall time converts without wrapping: at 213.5 days a u64 of picoseconds is full, and
    /// beyond it the conversion stays at the end rather than starting again from 0.
    #[test]
    fn wall_time_converts_without_wrapping_at_214_days_and_beyond() {
        let day = std::time::Duration::from_secs(86_400);
        assert_eq!(Picos::from_duration(day), Picos(86_400 * 1_000_000_000_000));
        assert_eq!(Picos::from_duration(day * 213), Picos(213 * 86_400 * 1_000_000_000_000));
        assert_eq!(Picos::from_duration(day * 214), Picos::MAX);
        assert_eq!(Picos::from_duration(day * 365 * 600), Picos::MAX);
    }

    #[test]
    fn pause_quantum_per_speed_matches_spec() {
        let expect = [512_000, 51_200, 20_480, 12_800, 10_240, 5_120, 2_560, 1_280];
        for (speed, ps) in LinkSpeed::ALL.iter().zip(expect) {
            assert_eq!(speed.quantum(), Picos(ps), "{speed}");
        }
    }

    #[test]
    fn reaction_bound_in_quanta() {
        assert_eq!(PFC_REACTION_BOUND.0 / LinkSpeed::G10.quantum().0, 12);
        assert_eq!(PFC_REACTION_BOUND.0 / LinkSpeed::G40.quantum().0, 48);
        assert_eq!(PFC_REACTION_BOUND.0 / LinkSpeed::G100.quantum().0, 120);
    }

    #[test]
    fn line_rate_of_minimum_frames() {
        assert_eq!(LinkSpeed::G100.frame_time(60), Picos(6_720));
        assert_eq!(LinkSpeed::G10.frame_time(60), Picos(67_200));
        assert!((LinkSpeed::G100.line_rate_pps(60) / 1e6 - 148.81).abs() < 0.01);
        assert!((LinkSpeed::G10.line_rate_pps(60) / 1e6 - 14.88).abs() < 0.01);
    }

    #[test]
    fn full_pause_at_100g_is_65535_quanta_of_5_12_ns() {
        assert_eq!(LinkSpeed::G100.quanta(0xffff), Picos(65_535 * 5_120));
    }

    #[test]
    fn at_1g_a_bit_is_a_nanosecond_and_a_full_pause_33_5_ms() {
        assert_eq!(LinkSpeed::G1.bits_time(1), Picos(1_000));
        assert_eq!(LinkSpeed::G1.quanta(0xffff), Picos(65_535 * 512_000));
        assert_eq!(LinkSpeed::G1.bits_in(Picos(1_000_000)), 1_000);
        assert!((LinkSpeed::G1.line_rate_pps(60) / 1e6 - 1.488).abs() < 0.001);
    }

    #[test]
    fn speeds_parse_and_display() {
        assert_eq!("100G".parse(), Ok(LinkSpeed::G100));
        assert_eq!("25gb/s".parse(), Ok(LinkSpeed::G25));
        assert_eq!("400".parse(), Ok(LinkSpeed::G400));
        assert_eq!("1G".parse(), Ok(LinkSpeed::G1));
        assert!("30G".parse::<LinkSpeed>().is_err());
        assert!("fast".parse::<LinkSpeed>().is_err());
        assert_eq!(LinkSpeed::G40.to_string(), "40G");
    }

    #[test]
    fn odd_bits_at_400g_round_up() {
        assert_eq!(LinkSpeed::G400.bits_time(1), Picos(3));
        assert_eq!(LinkSpeed::G400.bits_time(2), Picos(5));
        assert_eq!(LinkSpeed::G400.bits_in(Picos(5)), 2);
    }
}
