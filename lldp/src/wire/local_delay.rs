//! PFC Local Delay TLV (subtype 0x17, OUI 00-80-C2), P802.1Qdt D.2.19.
//!
//! ```text
//! +-----+--------+----------+------+-------------------------------------------------+
//! | 127 | len 12 | 00-80-C2 | 0x17 | Delay: signed 64-bit integer, IEEE 1588          |
//! |     |        |          |      | TimeInterval (nanoseconds x 2^16)                |
//! +-----+--------+----------+------+-------------------------------------------------+
//! ```
//!
//! SPEC §2.4 decision: the unit is the IEEE 1588 TimeInterval, nanoseconds × 2^16 (1 ns =
//! 65 536), independent of link speed. The value is the sender's own delays as a PFC Receiver
//! (items g, h and i of 36.1.1), i.e. what its peer adds for item a) 3) of 36.8. Negative values
//! are legal and shown with their sign (`-1.500 ns`). A length other than 12 is [`Error::BadLength`].

use std::fmt;

use pfc_wire::Fields;

use super::org::{expect_org, write_org_header};
use super::tlv::{tlv_repr, Info};
use super::write::Writer;
use super::{Error, Oui, TlvType};

/// Subtype of the PFC Local Delay TLV.
pub const PFC_LOCAL_DELAY_SUBTYPE: u8 = 0x17;
/// Information string length of the PFC Local Delay TLV (OUI and subtype included).
pub const PFC_LOCAL_DELAY_INFO_LEN: usize = field::DELAY.end;

/// Where the PFC Local Delay TLV's field lies (P802.1Qdt D.2.19), counted from the start of the
/// information string, after the OUI and subtype (`org::field`).
mod field {
    use pfc_wire::Field;

    /// Delay: a signed 64-bit IEEE 1588 TimeInterval.
    pub const DELAY: Field = 4..12;
}

const _: () = assert!(field::DELAY.start == super::org::ORG_HEADER_LEN);

/// An IEEE 1588 TimeInterval: a signed time in units of 2^-16 ns ("scaled nanoseconds").
///
/// Conversions work in integers only (SPEC §1: never floating point for time) and round to the
/// nearest unit, halves away from zero, so picoseconds survive a round trip exactly; values
/// beyond the i64 range saturate.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimeInterval(pub i64);

/// n / d rounded to the nearest integer, halves away from zero (d > 0).
fn div_round(n: i128, d: i128) -> i128 {
    if n >= 0 {
        n.saturating_add(d / 2) / d
    } else {
        n.saturating_sub(d / 2) / d
    }
}

fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

impl TimeInterval {
    /// Units per nanosecond.
    pub const UNITS_PER_NS: i64 = 1 << 16;

    /// A whole number of nanoseconds (saturating beyond about ±1.4 × 10^14 ns, 39 hours).
    pub fn from_nanos(ns: i64) -> Self {
        TimeInterval(ns.saturating_mul(Self::UNITS_PER_NS))
    }

    /// Nanoseconds, rounded to the nearest (halves away from zero).
    pub fn as_nanos(self) -> i64 {
        saturate(div_round(i128::from(self.0), i128::from(Self::UNITS_PER_NS)))
    }

    /// A number of picoseconds (the simulator's time unit), rounded to the nearest unit.
    pub fn from_picos(ps: i128) -> Self {
        TimeInterval(saturate(div_round(ps.saturating_mul(i128::from(Self::UNITS_PER_NS)), 1000)))
    }

    /// Picoseconds, rounded to the nearest.
    pub fn as_picos(self) -> i128 {
        div_round(i128::from(self.0) * 1000, i128::from(Self::UNITS_PER_NS))
    }
}

/// Nanoseconds with picosecond precision, sign first: `1.500 ns`, `-0.250 ns`.
impl fmt::Display for TimeInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.as_picos();
        let sign = if ps < 0 { "-" } else { "" };
        let abs = ps.unsigned_abs();
        write!(f, "{sign}{}.{:03} ns", abs / 1000, abs % 1000)
    }
}

impl fmt::Debug for TimeInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TimeInterval({} = {self})", self.0)
    }
}

/// The PFC Local Delay TLV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PfcLocalDelay {
    /// The sender's own PFC Receiver delays.
    pub delay: TimeInterval,
}

impl Info for PfcLocalDelay {
    const TLV_TYPE: TlvType = TlvType::ORG_SPECIFIC;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        expect_org(info, Oui::IEEE_802_1, PFC_LOCAL_DELAY_SUBTYPE)?;
        let bad = || Error::BadLength { tlv: "PFC Local Delay", len: info.len(), expected: "12" };
        if info.len() != PFC_LOCAL_DELAY_INFO_LEN {
            return Err(bad());
        }
        let delay = Fields::new(info, bad).i64(field::DELAY)?;
        Ok(PfcLocalDelay { delay: TimeInterval(delay) })
    }

    fn info_len(&self) -> usize {
        PFC_LOCAL_DELAY_INFO_LEN
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        write_org_header(w, Oui::IEEE_802_1, PFC_LOCAL_DELAY_SUBTYPE);
        w.i64(field::DELAY, self.delay.0);
        Ok(())
    }
}

tlv_repr!(PfcLocalDelay);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn negative_one_and_a_half_nanoseconds() {
        // -1.5 ns = -98304 = 0xffff_ffff_fffe_8000.
        let bytes = hex("fe0c 0080c2 17 fffffffffffe8000");
        let (tlv, _) = PfcLocalDelay::parse(&bytes).expect("parses");
        assert_eq!(tlv.delay, TimeInterval(-98_304));
        assert_eq!(tlv.delay.as_nanos(), -2);
        assert_eq!(tlv.delay.as_picos(), -1500);
        assert_eq!(tlv.delay.to_string(), "-1.500 ns");
        assert_eq!(tlv.to_vec(), Ok(bytes));
    }

    #[test]
    fn positive_delay_of_614_4_ns() {
        // The PFC reaction bound, 614.4 ns = 614_400 ps.
        let d = TimeInterval::from_picos(614_400);
        assert_eq!(d.as_picos(), 614_400);
        assert_eq!(d.to_string(), "614.400 ns");
        let tlv = PfcLocalDelay { delay: TimeInterval::from_nanos(1) };
        assert_eq!(tlv.to_vec(), Ok(hex("fe0c 0080c2 17 0000000000010000")));
    }

    #[test]
    fn conversions_round_to_nearest_and_saturate() {
        assert_eq!(TimeInterval(-0x8000).to_string(), "-0.500 ns");
        assert_eq!(TimeInterval(-0x8000).as_nanos(), -1);
        assert_eq!(TimeInterval(-0x7fff).as_nanos(), 0);
        assert_eq!(TimeInterval(-1).as_picos(), 0);
        assert_eq!(TimeInterval(-1).to_string(), "0.000 ns");
        for ps in [-1_000_001i128, -1, 0, 1, 5120, 614_400, 999_999_999] {
            assert_eq!(TimeInterval::from_picos(ps).as_picos(), ps);
        }
        assert_eq!(TimeInterval::from_nanos(i64::MAX), TimeInterval(i64::MAX));
        assert_eq!(TimeInterval::from_picos(i128::MIN), TimeInterval(i64::MIN));
        assert_eq!(TimeInterval(i64::MIN).to_string(), "-140737488355328.000 ns");
    }

    #[test]
    fn wrong_length_is_bad_length() {
        assert_eq!(
            PfcLocalDelay::parse(&hex("fe0b 0080c2 17 00000000000100")),
            Err(Error::BadLength { tlv: "PFC Local Delay", len: 11, expected: "12" })
        );
    }
}
