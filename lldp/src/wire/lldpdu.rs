//! The LLDPDU, IEEE 802.1AB 8.2 and 8.3: a sequence of TLVs.
//!
//! ```text
//! +------------+---------+-----+--------------------------------------+-----+ - - - - - - -
//! | Chassis ID | Port ID | TTL | optional TLVs (types 4-8, 9-126,     | End | ignored
//! | (type 1)   | (2)     | (3) | 127), any number, in any order       | (0) | (padding)
//! +------------+---------+-----+--------------------------------------+-----+ - - - - - - -
//! ```
//!
//! How [`Lldpdu::parse`] treats what 802.1AB leaves to the implementation:
//! - **Whole LLDPDU refused** (an error is returned; the agent discards it and counts it): a TLV
//!   header cut short ([`Error::Truncated`]); a TLV length past the end
//!   ([`Error::TlvPastEnd`]); Chassis ID, Port ID, TTL not first, in that order, once each
//!   ([`Error::MandatoryTlvMissing`], [`Error::MandatoryTlvOutOfOrder`],
//!   [`Error::MandatoryTlvDuplicate`]); a malformed Chassis ID, Port ID or TTL (e.g. a TTL whose
//!   length is not 2, [`Error::BadLength`]); an organizationally specific TLV shorter than 4
//!   octets ([`Error::OrgTlvTooShort`]: it cannot even say whose it is); an End TLV whose
//!   length is not 0.
//! - **One TLV refused, the rest used**: an optional TLV whose content is malformed (a PFC
//!   Configuration TLV of length 5, an ETS TLV that is not 25 octets, a Management Address
//!   whose inner lengths do not add up) is kept in [`Lldpdu::tlvs`] as [`Tlv::Malformed`], with
//!   its octets and its error, so the agent can count it (statsTLVsDiscardedTotal), DCBX
//!   ignores it, and re-emitting the LLDPDU reproduces the received octets.
//! - **Too many TLVs**: more than [`MAX_TLVS`] before End refuse the whole LLDPDU
//!   ([`Error::TooManyTlvs`]), before any TLV is decoded.
//! - **End**: the End TLV terminates the LLDPDU; anything after it (padding, junk) is ignored
//!   and not kept. An LLDPDU that simply runs out of octets without an End TLV is accepted
//!   (802.1AB-2016 made End optional); [`Lldpdu::emit`] always writes End.
//! - **Duplicates of optional TLVs** (two System Names, two PFC Configuration TLVs, ...): every
//!   TLV is kept, in order; the accessors ([`Lldpdu::system_name`], [`Lldpdu::pfc_config`], ...)
//!   return the first, so later duplicates are in effect ignored. Several Management Address
//!   TLVs are normal and all are returned by [`Lldpdu::management_addresses`].
//! - **Unknown TLV types and unknown OUIs/subtypes** are kept verbatim ([`Tlv::Unknown`],
//!   [`Tlv::Org`]) and re-emitted identically.
//!
//! So for any LLDPDU that ends with an End TLV, is not refused, and has its reserved bits 0,
//! emit(parse(b)) == b.

use pfc_wire::check_out;

use super::tlv::{split_tlv, Info};
use super::{
    AppPriority, ChassisId, Error, EtsConfig, EtsRecommendation, ManagementAddress, OrgTlv,
    PfcConfig, PfcLocalDelay, PortDescription, PortId, RawTlv, SystemCapabilities,
    SystemDescription, SystemName, Tlv, TlvType, Ttl, ORG_HEADER_LEN, TLV_HEADER_LEN,
};

/// One LLDPDU: the three mandatory TLVs and every other TLV in the order received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lldpdu {
    pub chassis_id: ChassisId,
    pub port_id: PortId,
    /// Seconds the receiver keeps this information; 0 announces a shutdown.
    pub ttl: u16,
    /// The optional TLVs in order, End excluded. They must not be End, Chassis ID, Port ID or
    /// TTL (emit refuses those with [`Error::NotOptional`]).
    pub tlvs: Vec<Tlv>,
}

/// The most TLVs (End excluded) an LLDPDU may hold. An LLDPDU travels in one frame (802.1AB):
/// at most 1500 octets, an untagged basic frame's payload, the most our own agent sends. Every TLV takes at least its 2-octet header (type and length, length 0), so no
/// LLDPDU that fits holds more than 1500 / 2 = 750. More can only come in a jumbo frame,
/// built to make the receiver decode, count and store thousands of TLVs: refused whole.
pub const MAX_TLVS: usize = 1500 / TLV_HEADER_LEN;

const MANDATORY: [TlvType; 3] = [TlvType::CHASSIS_ID, TlvType::PORT_ID, TlvType::TTL];

impl Lldpdu {
    /// An LLDPDU with only the mandatory TLVs.
    pub fn new(chassis_id: ChassisId, port_id: PortId, ttl: u16) -> Self {
        Lldpdu { chassis_id, port_id, ttl, tlvs: Vec::new() }
    }

    /// Parses an LLDPDU: the octets after the Ethernet header, padding included. See the module
    /// documentation for what is refused and what is kept.
    pub fn parse(pdu: &[u8]) -> Result<Self, Error> {
        let tlvs = split_all(pdu)?;
        check_mandatory(&tlvs)?;
        let [(_, chassis), (_, port), (_, ttl), optional @ ..] = tlvs.as_slice() else {
            // check_mandatory has made sure of the first three.
            return Err(Error::MandatoryTlvMissing(TlvType::CHASSIS_ID));
        };
        let mut pdu = Lldpdu {
            chassis_id: ChassisId::parse_info(chassis)?,
            port_id: PortId::parse_info(port)?,
            ttl: Ttl::parse_info(ttl)?.0,
            tlvs: Vec::with_capacity(optional.len()),
        };
        for &(tlv_type, info) in optional {
            if tlv_type.is_mandatory() {
                return Err(Error::MandatoryTlvDuplicate(tlv_type));
            }
            pdu.tlvs.push(Tlv::decode(tlv_type, info).unwrap_or_else(|error| Tlv::Malformed {
                raw: RawTlv { tlv_type, info: info.to_vec() },
                error,
            }));
        }
        Ok(pdu)
    }

    /// Octets the LLDPDU takes: every TLV and the End TLV, without frame padding.
    pub fn buffer_len(&self) -> usize {
        self.chassis_id.buffer_len()
            + self.port_id.buffer_len()
            + Ttl(self.ttl).buffer_len()
            + self.tlvs.iter().map(Tlv::buffer_len).sum::<usize>()
            + TLV_HEADER_LEN
    }

    /// Writes Chassis ID, Port ID, TTL, the optional TLVs in order, and End; returns the octets
    /// written. Refuses an End, Chassis ID, Port ID or TTL in [`Lldpdu::tlvs`]
    /// ([`Error::NotOptional`]) and any TLV that cannot be emitted.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        if let Some(t) = self.tlvs.iter().find(|t| {
            let ty = t.tlv_type();
            ty == TlvType::END || ty.is_mandatory()
        }) {
            return Err(Error::NotOptional(t.tlv_type()));
        }
        let needed = self.buffer_len();
        check_out(buf, needed)?;
        let mut at = 0;
        at += self.chassis_id.emit(tail(buf, at)?)?;
        at += self.port_id.emit(tail(buf, at)?)?;
        at += Ttl(self.ttl).emit(tail(buf, at)?)?;
        for tlv in &self.tlvs {
            at += tlv.emit(tail(buf, at)?)?;
        }
        at += Tlv::End.emit(tail(buf, at)?)?;
        Ok(at)
    }

    /// The LLDPDU as a new vector (no frame padding).
    pub fn to_vec(&self) -> Result<Vec<u8>, Error> {
        let mut buf = vec![0u8; self.buffer_len()];
        let len = self.emit(&mut buf)?;
        buf.truncate(len);
        Ok(buf)
    }

    /// A shutdown LLDPDU (TTL 0): the receiver deletes this neighbour's information at once.
    pub fn is_shutdown(&self) -> bool {
        self.ttl == 0
    }

    fn first<'a, T>(&'a self, pick: impl Fn(&'a Tlv) -> Option<&'a T>) -> Option<&'a T> {
        self.tlvs.iter().find_map(pick)
    }

    pub fn port_description(&self) -> Option<&PortDescription> {
        self.first(|t| if let Tlv::PortDescription(v) = t { Some(v) } else { None })
    }

    pub fn system_name(&self) -> Option<&SystemName> {
        self.first(|t| if let Tlv::SystemName(v) = t { Some(v) } else { None })
    }

    pub fn system_description(&self) -> Option<&SystemDescription> {
        self.first(|t| if let Tlv::SystemDescription(v) = t { Some(v) } else { None })
    }

    pub fn system_capabilities(&self) -> Option<&SystemCapabilities> {
        self.first(|t| if let Tlv::SystemCapabilities(v) = t { Some(v) } else { None })
    }

    /// Every Management Address TLV, in order.
    pub fn management_addresses(&self) -> impl Iterator<Item = &ManagementAddress> {
        self.tlvs
            .iter()
            .filter_map(|t| if let Tlv::ManagementAddress(v) = t { Some(v) } else { None })
    }

    pub fn ets_config(&self) -> Option<&EtsConfig> {
        self.first(|t| if let Tlv::EtsConfig(v) = t { Some(v) } else { None })
    }

    pub fn ets_recommendation(&self) -> Option<&EtsRecommendation> {
        self.first(|t| if let Tlv::EtsRecommendation(v) = t { Some(v) } else { None })
    }

    pub fn pfc_config(&self) -> Option<&PfcConfig> {
        self.first(|t| if let Tlv::PfcConfig(v) = t { Some(v) } else { None })
    }

    pub fn app_priority(&self) -> Option<&AppPriority> {
        self.first(|t| if let Tlv::AppPriority(v) = t { Some(v) } else { None })
    }

    pub fn pfc_local_delay(&self) -> Option<&PfcLocalDelay> {
        self.first(|t| if let Tlv::PfcLocalDelay(v) = t { Some(v) } else { None })
    }

    /// Organizationally specific TLVs not decoded here, in order.
    pub fn org_tlvs(&self) -> impl Iterator<Item = &OrgTlv> {
        self.tlvs.iter().filter_map(|t| if let Tlv::Org(v) = t { Some(v) } else { None })
    }

    /// The malformed optional TLVs (to be counted as discarded), with why each was refused.
    pub fn malformed(&self) -> impl Iterator<Item = (&RawTlv, &Error)> {
        self.tlvs.iter().filter_map(|t| match t {
            Tlv::Malformed { raw, error } => Some((raw, error)),
            _ => None,
        })
    }
}

/// The part of `buf` from `at` on.
fn tail(buf: &mut [u8], at: usize) -> Result<&mut [u8], Error> {
    let got = buf.len();
    buf.get_mut(at..).ok_or(Error::BufferTooSmall { needed: at, got })
}

/// Splits the LLDPDU into (type, information string) up to End or the end of the octets,
/// refusing the structural faults that make the whole LLDPDU unusable.
fn split_all(pdu: &[u8]) -> Result<Vec<(TlvType, &[u8])>, Error> {
    let mut tlvs = Vec::new();
    let mut rest = pdu;
    while !rest.is_empty() {
        let (tlv_type, info, after) = split_tlv(rest)?;
        if tlv_type == TlvType::END {
            if !info.is_empty() {
                return Err(Error::BadLength {
                    tlv: "End Of LLDPDU",
                    len: info.len(),
                    expected: "0",
                });
            }
            break;
        }
        if tlvs.len() == MAX_TLVS {
            return Err(Error::TooManyTlvs { limit: MAX_TLVS });
        }
        if tlv_type == TlvType::ORG_SPECIFIC && info.len() < ORG_HEADER_LEN {
            return Err(Error::OrgTlvTooShort(u16::try_from(info.len()).unwrap_or(u16::MAX)));
        }
        tlvs.push((tlv_type, info));
        rest = after;
    }
    Ok(tlvs)
}

/// Chassis ID, Port ID and TTL first, in that order, once each among the first three.
fn check_mandatory(tlvs: &[(TlvType, &[u8])]) -> Result<(), Error> {
    for (i, expected) in MANDATORY.into_iter().enumerate() {
        let found = tlvs.get(i).map(|(t, _)| *t);
        if found == Some(expected) {
            continue;
        }
        let seen_before = |t: TlvType| tlvs.iter().take(i).any(|(s, _)| *s == t);
        let present = tlvs.iter().any(|(t, _)| *t == expected);
        return Err(match found {
            Some(found) if found.is_mandatory() && seen_before(found) => {
                Error::MandatoryTlvDuplicate(found)
            }
            Some(found) if present => Error::MandatoryTlvOutOfOrder { expected, found },
            _ => Error::MandatoryTlvMissing(expected),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use pfc_wire::MacAddr;

    use super::*;
    use crate::wire::{AppEntry, AppSelector, EtsTables, Oui, PfcFormat, Text, TimeInterval, Tsa};

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.split_whitespace().collect::<String>()).expect("test vector is hex")
    }

    const CHASSIS: &str = "0207 04 020000000001";
    const PORT: &str = "0405 05 65746830";
    const TTL: &str = "0602 0079";

    fn minimal() -> Lldpdu {
        Lldpdu::new(
            ChassisId::MacAddress(MacAddr([2, 0, 0, 0, 0, 1])),
            PortId::InterfaceName("eth0".into()),
            121,
        )
    }

    /// Written out by hand from the layouts in each module's documentation.
    const CANONICAL: &str = "
        0207 04 020000000001                                   chassis ID: MAC 02-00-00-00-00-01
        0405 05 65746830                                       port ID: ifName eth0
        0602 0079                                              TTL 121
        0a03 737731                                            system name sw1
        fe19 0080c2 09 83 00112222 3c28000000000000 0202000000000000   ETS configuration
        fe07 0080c2 0b a4 18 c0                                PFC, P802.1Qdt length 7
        fe06 0080c2 0b 48 08                                   PFC, legacy length 6
        fe0b 0080c2 0c 00 61 8906 83 12b7                      application priority, 2 entries
        fe0c 0080c2 17 fffffffffffe8000                        PFC local delay -1.5 ns
        fe06 00120f 04 05ee                                    IEEE 802.3 max frame size 1518
        1203 abcdef                                            reserved TLV type 9
        0000                                                   End";

    fn strip_comments(s: &str) -> String {
        s.lines()
            .map(|l| {
                l.split_whitespace()
                    .take_while(|w| w.chars().all(|c| c.is_ascii_hexdigit()))
                    .collect::<String>()
            })
            .collect()
    }

    #[test]
    fn canonical_lldpdu_parses_to_every_field_and_re_emits_exactly() {
        let bytes = hex(&strip_comments(CANONICAL));
        assert_eq!(bytes.len(), 111);
        let pdu = Lldpdu::parse(&bytes).expect("parses");
        assert_eq!(pdu.chassis_id, ChassisId::MacAddress(MacAddr([2, 0, 0, 0, 0, 1])));
        assert_eq!(pdu.port_id, PortId::InterfaceName(Text::from("eth0")));
        assert_eq!(pdu.ttl, 121);
        assert_eq!(pdu.system_name(), Some(&SystemName::from("sw1")));
        let ets = pdu.ets_config().expect("ETS present");
        assert!(ets.willing && !ets.cbs);
        assert_eq!(ets.max_tcs, 3);
        assert_eq!(
            ets.tables,
            EtsTables {
                priority_tc: [0, 0, 1, 1, 2, 2, 2, 2],
                tc_bandwidth: [60, 40, 0, 0, 0, 0, 0, 0],
                tsa: [Tsa::ETS, Tsa::ETS, Tsa::STRICT, Tsa(0), Tsa(0), Tsa(0), Tsa(0), Tsa(0)],
            }
        );
        let pfcs: Vec<&PfcConfig> = pdu
            .tlvs
            .iter()
            .filter_map(|t| if let Tlv::PfcConfig(p) = t { Some(p) } else { None })
            .collect();
        assert_eq!(pfcs.len(), 2);
        assert_eq!(pdu.pfc_config(), Some(pfcs[0]));
        assert_eq!(
            *pfcs[0],
            PfcConfig {
                willing: true,
                mbc: false,
                macsec_capable: true,
                privacy_capable: false,
                pfc_cap: 4,
                pfc_enable: 0x18,
                rtm_hdrm: true,
                ptp_hdrm: true,
                format: PfcFormat::Qdt,
            }
        );
        assert_eq!(
            *pfcs[1],
            PfcConfig {
                mbc: true,
                pfc_cap: 8,
                pfc_enable: 0x08,
                format: PfcFormat::Legacy,
                ..PfcConfig::default()
            }
        );
        assert_eq!(
            pdu.app_priority().map(|a| a.entries.clone()),
            Some(vec![
                AppEntry { priority: 3, selector: AppSelector::ETHERTYPE, protocol: 0x8906 },
                AppEntry { priority: 4, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 },
            ])
        );
        let delay = pdu.pfc_local_delay().expect("local delay present").delay;
        assert_eq!(delay, TimeInterval(-98_304));
        assert_eq!(delay.to_string(), "-1.500 ns");
        assert_eq!(
            pdu.org_tlvs().collect::<Vec<_>>(),
            vec![&OrgTlv { oui: Oui::IEEE_802_3, subtype: 4, info: vec![0x05, 0xee] }]
        );
        assert_eq!(
            pdu.tlvs.last(),
            Some(&Tlv::Unknown(RawTlv { tlv_type: TlvType(9), info: vec![0xab, 0xcd, 0xef] }))
        );
        assert_eq!(pdu.tlvs.len(), 8);
        assert_eq!(pdu.malformed().count(), 0);

        assert_eq!(pdu.buffer_len(), bytes.len());
        assert_eq!(pdu.to_vec(), Ok(bytes));
    }

    #[test]
    fn basic_tlvs_lldpdu_is_exact() {
        let bytes = hex(&format!(
            "{CHASSIS} {PORT} {TTL} 0806 706f72742031 0a03 737731 0c04 70666364 0e04 0014 0004 \
             100c 05 01 c0000201 02 00000003 00 0000"
        ));
        let pdu = Lldpdu::parse(&bytes).expect("parses");
        assert_eq!(pdu.port_description(), Some(&PortDescription::from("port 1")));
        assert_eq!(pdu.system_description(), Some(&SystemDescription::from("pfcd")));
        assert_eq!(
            pdu.system_capabilities(),
            Some(&SystemCapabilities { capabilities: 0x14, enabled: 0x04 })
        );
        assert_eq!(pdu.management_addresses().count(), 1);
        assert_eq!(pdu.to_vec(), Ok(bytes));
    }

    #[test]
    fn shutdown_lldpdu_has_ttl_0() {
        let bytes = hex(&format!("{CHASSIS} {PORT} 0602 0000 0000"));
        let pdu = Lldpdu::parse(&bytes).expect("parses");
        assert!(pdu.is_shutdown());
        assert_eq!(pdu, Lldpdu { ttl: 0, ..minimal() });
    }

    #[test]
    fn end_terminates_and_what_follows_is_ignored() {
        let bytes = hex(&format!("{CHASSIS} {PORT} {TTL} 0000 0a03 737731 ff"));
        let pdu = Lldpdu::parse(&bytes).expect("parses");
        assert_eq!(pdu, minimal());
        // Without End, the LLDPDU ends with its octets.
        let bytes = hex(&format!("{CHASSIS} {PORT} {TTL} 0a03 737731"));
        let pdu = Lldpdu::parse(&bytes).expect("End is optional on receive");
        assert_eq!(pdu.system_name(), Some(&SystemName::from("sw1")));
        assert_eq!(pdu.to_vec().map(|v| v.len()), Ok(bytes.len() + 2));
    }

    #[test]
    fn end_with_a_length_refuses_the_lldpdu() {
        let bytes = hex(&format!("{CHASSIS} {PORT} {TTL} 0001 00"));
        assert_eq!(
            Lldpdu::parse(&bytes),
            Err(Error::BadLength { tlv: "End Of LLDPDU", len: 1, expected: "0" })
        );
    }

    #[test]
    fn truncated_lldpdu() {
        // A stray octet where a TLV header should be.
        let bytes = hex(&format!("{CHASSIS} {PORT} {TTL} 0a"));
        assert_eq!(
            Lldpdu::parse(&bytes),
            Err(Error::Truncated { what: "TLV header", needed: 2, got: 1 })
        );
    }

    #[test]
    fn tlv_length_past_the_end() {
        let bytes = hex(&format!("{CHASSIS} {PORT} {TTL} 0a10 737731"));
        assert_eq!(
            Lldpdu::parse(&bytes),
            Err(Error::TlvPastEnd { tlv_type: TlvType::SYSTEM_NAME, length: 16, available: 3 })
        );
        // Even inside a mandatory TLV.
        assert_eq!(
            Lldpdu::parse(&hex("0207 04 0200")),
            Err(Error::TlvPastEnd { tlv_type: TlvType::CHASSIS_ID, length: 7, available: 3 })
        );
    }

    #[test]
    fn mandatory_tlv_missing() {
        let missing = |t| Err(Error::MandatoryTlvMissing(t));
        assert_eq!(Lldpdu::parse(&[]), missing(TlvType::CHASSIS_ID));
        assert_eq!(Lldpdu::parse(&[0; 46]), missing(TlvType::CHASSIS_ID));
        assert_eq!(Lldpdu::parse(&hex(&format!("{CHASSIS} 0000"))), missing(TlvType::PORT_ID));
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{CHASSIS} {PORT} 0a03 737731 0000"))),
            missing(TlvType::TTL)
        );
        assert_eq!(
            Error::MandatoryTlvMissing(TlvType::TTL).to_string(),
            "LLDPDU has no Time To Live TLV: Chassis ID, Port ID and TTL must open every LLDPDU"
        );
    }

    #[test]
    fn mandatory_tlvs_out_of_order() {
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{PORT} {CHASSIS} {TTL} 0000"))),
            Err(Error::MandatoryTlvOutOfOrder {
                expected: TlvType::CHASSIS_ID,
                found: TlvType::PORT_ID
            })
        );
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{CHASSIS} 0a03 737731 {PORT} {TTL} 0000"))),
            Err(Error::MandatoryTlvOutOfOrder {
                expected: TlvType::PORT_ID,
                found: TlvType::SYSTEM_NAME
            })
        );
    }

    #[test]
    fn mandatory_tlv_duplicate() {
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{CHASSIS} {CHASSIS} {PORT} {TTL} 0000"))),
            Err(Error::MandatoryTlvDuplicate(TlvType::CHASSIS_ID))
        );
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{CHASSIS} {PORT} {TTL} 0a00 {TTL} 0000"))),
            Err(Error::MandatoryTlvDuplicate(TlvType::TTL))
        );
    }

    #[test]
    fn malformed_mandatory_tlv_refuses_the_lldpdu() {
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{CHASSIS} {PORT} 0603 000079 0000"))),
            Err(Error::BadLength { tlv: "Time To Live", len: 3, expected: "2" })
        );
    }

    #[test]
    fn org_tlv_shorter_than_4_refuses_the_lldpdu() {
        assert_eq!(
            Lldpdu::parse(&hex(&format!("{CHASSIS} {PORT} {TTL} fe03 0080c2 0000"))),
            Err(Error::OrgTlvTooShort(3))
        );
    }

    #[test]
    fn pfc_tlv_of_length_5_is_kept_as_malformed_and_the_rest_used() {
        let bytes = hex(&format!(
            "{CHASSIS} {PORT} {TTL} fe05 0080c2 0b a4 fe19 0080c2 09 83 00112222 \
             3c28000000000000 0202000000000000 0000"
        ));
        let pdu = Lldpdu::parse(&bytes).expect("the LLDPDU is still used");
        assert_eq!(pdu.pfc_config(), None);
        assert!(pdu.ets_config().is_some());
        let malformed: Vec<_> = pdu.malformed().collect();
        assert_eq!(
            malformed,
            vec![(
                &RawTlv { tlv_type: TlvType::ORG_SPECIFIC, info: hex("0080c2 0b a4") },
                &Error::PfcTlvTooShort(5)
            )]
        );
        assert_eq!(pdu.to_vec(), Ok(bytes));
    }

    #[test]
    fn duplicate_optional_tlvs_are_kept_and_the_first_wins() {
        let bytes = hex(&format!("{CHASSIS} {PORT} {TTL} 0a01 61 0a01 62 0000"));
        let pdu = Lldpdu::parse(&bytes).expect("parses");
        assert_eq!(pdu.tlvs.len(), 2);
        assert_eq!(pdu.system_name(), Some(&SystemName::from("a")));
        assert_eq!(pdu.to_vec(), Ok(bytes));
    }

    #[test]
    fn emit_refuses_mandatory_tlvs_in_the_optional_list() {
        let mut pdu = minimal();
        pdu.tlvs.push(Tlv::Ttl(Ttl(5)));
        assert_eq!(pdu.to_vec(), Err(Error::NotOptional(TlvType::TTL)));
        pdu.tlvs = vec![Tlv::Unknown(RawTlv { tlv_type: TlvType::END, info: vec![] })];
        assert_eq!(pdu.to_vec(), Err(Error::NotOptional(TlvType::END)));
        pdu.tlvs.clear();
        assert_eq!(pdu.emit(&mut [0u8; 10]), Err(Error::BufferTooSmall { needed: 22, got: 10 }));
    }
}
