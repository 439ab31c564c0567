//! ETS Configuration (subtype 0x09) and ETS Recommendation (0x0A) TLVs, IEEE 802.1Q D.2.8 and
//! D.2.9 (OUI 00-80-C2). Both have an information string of exactly 25 octets.
//!
//! ```text
//! +-----+--------+----------+---------+-----------+-------------+-------------+-------------+
//! | 127 | len 25 | 00-80-C2 | subtype | flags /   | priority    | TC          | TSA         |
//! |     |        |          | 09 / 0A | reserved  | assignment  | bandwidth   | assignment  |
//! |     |        | 3 octets | 1 octet | 1 octet   | 4 octets    | 8 octets    | 8 octets    |
//! +-----+--------+----------+---------+-----------+-------------+-------------+-------------+
//! ETS Configuration flags:  8 Willing | 7 CBS | 6-4 reserved | 3-1 Max TCs (0 means 8)
//! ETS Recommendation:       the octet is reserved
//! Priority assignment:      4 bits per priority, priority 0 in the high nibble of octet 1
//! TC bandwidth:             percent per traffic class, TC 0 first
//! TSA:                      per traffic class: 0 strict, 1 credit-based shaper, 2 ETS,
//!                           255 vendor specific (others reserved, kept as received)
//! ```
//!
//! Reserved bits and the Recommendation's reserved octet are ignored on receive and sent as 0.
//! Values are kept as received, even when they make no sense (bandwidths that do not add up to
//! 100, a traffic class above Max TCs): judging them is DCBX's job, not the wire's.

use std::fmt;

use pfc_wire::Fields;

use super::org::{expect_org, write_org_header};
use super::tlv::{tlv_repr, Info};
use super::write::{in_range, Writer};
use super::{Error, Oui, TlvType};

/// Subtype of the ETS Configuration TLV.
pub const ETS_CONFIG_SUBTYPE: u8 = 0x09;
/// Subtype of the ETS Recommendation TLV.
pub const ETS_RECOMMENDATION_SUBTYPE: u8 = 0x0a;
/// Information string length of both ETS TLVs (OUI and subtype included).
pub const ETS_INFO_LEN: usize = field::TSA_TABLE.end;

/// Where the fields of both ETS TLVs lie (IEEE 802.1Q D.2.8, D.2.9), counted from the start of
/// the information string, after the OUI and subtype (`org::field`).
mod field {
    use pfc_wire::Field;

    /// ETS Configuration: Willing, CBS, reserved, Max TCs. ETS Recommendation: reserved.
    pub const FLAGS: usize = 4;
    /// Priority Assignment Table: four bits per priority, two priorities an octet.
    pub const PRIORITY_ASSIGNMENT_TABLE: Field = 5..9;
    /// TC Bandwidth Table: one octet per traffic class, TC 0 first.
    pub const TC_BANDWIDTH_TABLE: Field = 9..17;
    /// TSA Assignment Table: one octet per traffic class, TC 0 first.
    pub const TSA_TABLE: Field = 17..25;

    /// Octet `n` of the Priority Assignment Table: priority 2n in its high nibble, 2n + 1 in its
    /// low one.
    pub const fn priority_pair(n: usize) -> usize {
        PRIORITY_ASSIGNMENT_TABLE.start + n
    }
}

const _: () = assert!(field::FLAGS == super::org::ORG_HEADER_LEN);

/// A Transmission Selection Algorithm identifier.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Tsa(pub u8);

impl Tsa {
    pub const STRICT: Tsa = Tsa(0);
    pub const CREDIT_BASED_SHAPER: Tsa = Tsa(1);
    pub const ETS: Tsa = Tsa(2);
    pub const VENDOR: Tsa = Tsa(255);
}

impl fmt::Display for Tsa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("strict"),
            1 => f.write_str("cbs"),
            2 => f.write_str("ets"),
            255 => f.write_str("vendor"),
            n => write!(f, "reserved-{n}"),
        }
    }
}

impl fmt::Debug for Tsa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tsa({self})")
    }
}

/// The three tables both ETS TLVs carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EtsTables {
    /// Traffic class of each priority (index = priority), 0..=15 (4 bits; 8-14 reserved,
    /// 15 unassigned).
    pub priority_tc: [u8; 8],
    /// Bandwidth of each traffic class, in percent.
    pub tc_bandwidth: [u8; 8],
    /// Transmission selection algorithm of each traffic class.
    pub tsa: [Tsa; 8],
}

impl EtsTables {
    fn parse(fields: &Fields<'_, impl Fn() -> Error>) -> Result<Self, Error> {
        let mut t = EtsTables::default();
        for (n, pair) in t.priority_tc.chunks_mut(2).enumerate() {
            let octet = fields.u8(field::priority_pair(n))?;
            for (i, tc) in pair.iter_mut().enumerate() {
                *tc = if i == 0 { octet >> 4 } else { octet & 0x0f };
            }
        }
        t.tc_bandwidth = fields.array(field::TC_BANDWIDTH_TABLE)?;
        t.tsa = fields.array::<8>(field::TSA_TABLE)?.map(Tsa);
        Ok(t)
    }

    fn write(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        for (n, pair) in self.priority_tc.chunks(2).enumerate() {
            let mut octet = 0u8;
            for (i, tc) in pair.iter().enumerate() {
                let tc = in_range("ETS priority assignment", *tc, 15, "0 to 15")?;
                octet |= if i == 0 { tc << 4 } else { tc };
            }
            w.u8(field::priority_pair(n), octet);
        }
        w.put(field::TC_BANDWIDTH_TABLE, &self.tc_bandwidth);
        w.put(field::TSA_TABLE, &self.tsa.map(|t| t.0));
        Ok(())
    }
}

fn bad_length(tlv: &'static str, len: usize) -> Error {
    Error::BadLength { tlv, len, expected: "25" }
}

/// The ETS Configuration TLV: the sender's own ETS settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EtsConfig {
    /// The sender accepts its peer's ETS Recommendation.
    pub willing: bool,
    /// Credit-based shaper supported.
    pub cbs: bool,
    /// Number of traffic classes supported, 0..=7 on the wire; 0 means 8 (see
    /// [`EtsConfig::traffic_classes`]).
    pub max_tcs: u8,
    pub tables: EtsTables,
}

impl EtsConfig {
    /// The number of traffic classes the sender supports (1..=8).
    pub fn traffic_classes(&self) -> u8 {
        if self.max_tcs == 0 {
            8
        } else {
            self.max_tcs
        }
    }
}

impl Info for EtsConfig {
    const TLV_TYPE: TlvType = TlvType::ORG_SPECIFIC;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        expect_org(info, Oui::IEEE_802_1, ETS_CONFIG_SUBTYPE)?;
        let bad = || bad_length("ETS Configuration", info.len());
        if info.len() != ETS_INFO_LEN {
            return Err(bad());
        }
        let fields = Fields::new(info, bad);
        let flags = fields.u8(field::FLAGS)?;
        Ok(EtsConfig {
            willing: flags & 0x80 != 0,
            cbs: flags & 0x40 != 0,
            max_tcs: flags & 0x07,
            tables: EtsTables::parse(&fields)?,
        })
    }

    fn info_len(&self) -> usize {
        ETS_INFO_LEN
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        let max_tcs = in_range("ETS Max TCs", self.max_tcs, 7, "0 to 7 (0 means 8)")?;
        write_org_header(w, Oui::IEEE_802_1, ETS_CONFIG_SUBTYPE);
        w.u8(field::FLAGS, (u8::from(self.willing) << 7) | (u8::from(self.cbs) << 6) | max_tcs);
        self.tables.write(w)
    }
}

tlv_repr!(EtsConfig);

/// The ETS Recommendation TLV: the settings the sender recommends its willing peer to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EtsRecommendation {
    pub tables: EtsTables,
}

impl Info for EtsRecommendation {
    const TLV_TYPE: TlvType = TlvType::ORG_SPECIFIC;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        expect_org(info, Oui::IEEE_802_1, ETS_RECOMMENDATION_SUBTYPE)?;
        let bad = || bad_length("ETS Recommendation", info.len());
        if info.len() != ETS_INFO_LEN {
            return Err(bad());
        }
        Ok(EtsRecommendation { tables: EtsTables::parse(&Fields::new(info, bad))? })
    }

    fn info_len(&self) -> usize {
        ETS_INFO_LEN
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        write_org_header(w, Oui::IEEE_802_1, ETS_RECOMMENDATION_SUBTYPE);
        w.u8(field::FLAGS, 0); // reserved in a Recommendation
        self.tables.write(w)
    }
}

tlv_repr!(EtsRecommendation);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    fn tables() -> EtsTables {
        EtsTables {
            priority_tc: [0, 0, 1, 1, 2, 2, 2, 2],
            tc_bandwidth: [60, 40, 0, 0, 0, 0, 0, 0],
            tsa: [Tsa::ETS, Tsa::ETS, Tsa::STRICT, Tsa::STRICT, Tsa(0), Tsa(0), Tsa(0), Tsa(0)],
        }
    }

    #[test]
    fn ets_configuration_three_tcs() {
        let bytes = hex("fe19 0080c2 09 83 00112222 3c28000000000000 0202000000000000");
        let expected = EtsConfig { willing: true, cbs: false, max_tcs: 3, tables: tables() };
        assert_eq!(EtsConfig::parse(&bytes), Ok((expected, &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes));
        assert_eq!(expected.traffic_classes(), 3);
        assert_eq!(EtsConfig::default().traffic_classes(), 8);
    }

    #[test]
    fn ets_recommendation_ignores_reserved_octet() {
        let bytes = hex("fe19 0080c2 0a 00 00112222 3c28000000000000 0202000000000000");
        let expected = EtsRecommendation { tables: tables() };
        assert_eq!(EtsRecommendation::parse(&bytes), Ok((expected, &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes.clone()));
        let mut reserved_set = bytes;
        reserved_set[6] = 0xff;
        assert_eq!(EtsRecommendation::parse(&reserved_set), Ok((expected, &[][..])));
    }

    #[test]
    fn ets_of_wrong_length_is_bad_length() {
        let short = hex("fe18 0080c2 09 83 00112222 3c28000000000000 02020000000000");
        assert_eq!(
            EtsConfig::parse(&short),
            Err(Error::BadLength { tlv: "ETS Configuration", len: 24, expected: "25" })
        );
        let long = hex("fe1a 0080c2 0a 00 00112222 3c28000000000000 0202000000000000 00");
        assert_eq!(
            EtsRecommendation::parse(&long),
            Err(Error::BadLength { tlv: "ETS Recommendation", len: 26, expected: "25" })
        );
    }

    #[test]
    fn ets_parser_refuses_other_subtypes() {
        let bytes = hex("fe19 0080c2 0a 00 00112222 3c28000000000000 0202000000000000");
        assert_eq!(
            EtsConfig::parse(&bytes),
            Err(Error::WrongOrgTlv {
                expected_oui: Oui::IEEE_802_1,
                expected_subtype: 9,
                found_oui: Oui::IEEE_802_1,
                found_subtype: 10
            })
        );
    }

    #[test]
    fn out_of_range_fields_are_refused_on_emit() {
        let mut c = EtsConfig { max_tcs: 8, ..EtsConfig::default() };
        assert_eq!(
            c.to_vec(),
            Err(Error::FieldOutOfRange {
                field: "ETS Max TCs",
                value: 8,
                allowed: "0 to 7 (0 means 8)"
            })
        );
        c.max_tcs = 0;
        c.tables.priority_tc[3] = 16;
        assert_eq!(
            c.to_vec(),
            Err(Error::FieldOutOfRange {
                field: "ETS priority assignment",
                value: 16,
                allowed: "0 to 15"
            })
        );
    }
}
