//! [`Tlv`]: any TLV, decoded by its type and, for type 127, by OUI and subtype.
//!
//! ```text
//! type 0        End                 type 5    System Name
//! type 1        Chassis ID          type 6    System Description
//! type 2        Port ID             type 7    System Capabilities
//! type 3        Time To Live        type 8    Management Address
//! type 4        Port Description    type 9-126  reserved: kept raw (Unknown)
//! type 127      Organizationally Specific:
//!                 00-80-C2 / 0x09 ETS Configuration     00-80-C2 / 0x0C Application Priority
//!                 00-80-C2 / 0x0A ETS Recommendation    00-80-C2 / 0x17 PFC Local Delay
//!                 00-80-C2 / 0x0B PFC Configuration     anything else: kept raw (Org)
//! ```

use super::org::split_org;
use super::tlv::{emit_tlv, split_tlv, Info};
use super::{
    AppPriority, ChassisId, Error, EtsConfig, EtsRecommendation, ManagementAddress, OrgTlv, Oui,
    PfcConfig, PfcLocalDelay, PortDescription, PortId, RawTlv, SystemCapabilities,
    SystemDescription, SystemName, TlvType, Ttl, APP_PRIORITY_SUBTYPE, ETS_CONFIG_SUBTYPE,
    ETS_RECOMMENDATION_SUBTYPE, PFC_CONFIG_SUBTYPE, PFC_LOCAL_DELAY_SUBTYPE, TLV_HEADER_LEN,
};

/// Any TLV of an LLDPDU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tlv {
    /// End Of LLDPDU (type 0, length 0).
    End,
    ChassisId(ChassisId),
    PortId(PortId),
    Ttl(Ttl),
    PortDescription(PortDescription),
    SystemName(SystemName),
    SystemDescription(SystemDescription),
    SystemCapabilities(SystemCapabilities),
    ManagementAddress(ManagementAddress),
    EtsConfig(EtsConfig),
    EtsRecommendation(EtsRecommendation),
    PfcConfig(PfcConfig),
    AppPriority(AppPriority),
    PfcLocalDelay(PfcLocalDelay),
    /// An organizationally specific TLV with an OUI or subtype not decoded here, kept verbatim.
    Org(OrgTlv),
    /// A reserved TLV type (9 to 126), kept verbatim.
    Unknown(RawTlv),
    /// An optional TLV whose content is malformed, as [`Lldpdu::parse`](super::Lldpdu::parse)
    /// keeps it: the octets as received (re-emitted unchanged) and why it was refused. The LLDP
    /// agent counts it as discarded and DCBX ignores it. [`Tlv::parse`] itself returns the
    /// error instead and never yields this variant.
    Malformed {
        raw: RawTlv,
        error: Error,
    },
}

impl Tlv {
    /// Parses one TLV of any type from the start of `bytes` and decodes it; returns it and the
    /// octets after it. A malformed TLV is an error here (see [`Tlv::Malformed`] for how an
    /// LLDPDU keeps it).
    pub fn parse(bytes: &[u8]) -> Result<(Self, &[u8]), Error> {
        let (tlv_type, info, rest) = split_tlv(bytes)?;
        Ok((Tlv::decode(tlv_type, info)?, rest))
    }

    /// Decodes an information string of the given type.
    pub(crate) fn decode(tlv_type: TlvType, info: &[u8]) -> Result<Self, Error> {
        Ok(match tlv_type {
            TlvType::END => {
                if !info.is_empty() {
                    return Err(Error::BadLength {
                        tlv: "End Of LLDPDU",
                        len: info.len(),
                        expected: "0",
                    });
                }
                Tlv::End
            }
            TlvType::CHASSIS_ID => Tlv::ChassisId(ChassisId::parse_info(info)?),
            TlvType::PORT_ID => Tlv::PortId(PortId::parse_info(info)?),
            TlvType::TTL => Tlv::Ttl(Ttl::parse_info(info)?),
            TlvType::PORT_DESCRIPTION => Tlv::PortDescription(PortDescription::parse_info(info)?),
            TlvType::SYSTEM_NAME => Tlv::SystemName(SystemName::parse_info(info)?),
            TlvType::SYSTEM_DESCRIPTION => {
                Tlv::SystemDescription(SystemDescription::parse_info(info)?)
            }
            TlvType::SYSTEM_CAPABILITIES => {
                Tlv::SystemCapabilities(SystemCapabilities::parse_info(info)?)
            }
            TlvType::MANAGEMENT_ADDRESS => {
                Tlv::ManagementAddress(ManagementAddress::parse_info(info)?)
            }
            TlvType::ORG_SPECIFIC => Tlv::decode_org(info)?,
            _ => Tlv::Unknown(RawTlv { tlv_type, info: info.to_vec() }),
        })
    }

    fn decode_org(info: &[u8]) -> Result<Self, Error> {
        let (oui, subtype, _) = split_org(info)?;
        if oui != Oui::IEEE_802_1 {
            return OrgTlv::parse_info(info).map(Tlv::Org);
        }
        Ok(match subtype {
            ETS_CONFIG_SUBTYPE => Tlv::EtsConfig(EtsConfig::parse_info(info)?),
            ETS_RECOMMENDATION_SUBTYPE => {
                Tlv::EtsRecommendation(EtsRecommendation::parse_info(info)?)
            }
            PFC_CONFIG_SUBTYPE => Tlv::PfcConfig(PfcConfig::parse_info(info)?),
            APP_PRIORITY_SUBTYPE => Tlv::AppPriority(AppPriority::parse_info(info)?),
            PFC_LOCAL_DELAY_SUBTYPE => Tlv::PfcLocalDelay(PfcLocalDelay::parse_info(info)?),
            _ => Tlv::Org(OrgTlv::parse_info(info)?),
        })
    }

    /// The TLV type this TLV is carried in.
    pub fn tlv_type(&self) -> TlvType {
        match self {
            Tlv::End => TlvType::END,
            Tlv::ChassisId(_) => TlvType::CHASSIS_ID,
            Tlv::PortId(_) => TlvType::PORT_ID,
            Tlv::Ttl(_) => TlvType::TTL,
            Tlv::PortDescription(_) => TlvType::PORT_DESCRIPTION,
            Tlv::SystemName(_) => TlvType::SYSTEM_NAME,
            Tlv::SystemDescription(_) => TlvType::SYSTEM_DESCRIPTION,
            Tlv::SystemCapabilities(_) => TlvType::SYSTEM_CAPABILITIES,
            Tlv::ManagementAddress(_) => TlvType::MANAGEMENT_ADDRESS,
            Tlv::EtsConfig(_)
            | Tlv::EtsRecommendation(_)
            | Tlv::PfcConfig(_)
            | Tlv::AppPriority(_)
            | Tlv::PfcLocalDelay(_)
            | Tlv::Org(_) => TlvType::ORG_SPECIFIC,
            Tlv::Unknown(raw) | Tlv::Malformed { raw, .. } => raw.tlv_type,
        }
    }

    /// Octets the whole TLV takes: the 2-octet header and the information string.
    pub fn buffer_len(&self) -> usize {
        match self {
            Tlv::End => TLV_HEADER_LEN,
            Tlv::ChassisId(t) => t.buffer_len(),
            Tlv::PortId(t) => t.buffer_len(),
            Tlv::Ttl(t) => t.buffer_len(),
            Tlv::PortDescription(t) => t.buffer_len(),
            Tlv::SystemName(t) => t.buffer_len(),
            Tlv::SystemDescription(t) => t.buffer_len(),
            Tlv::SystemCapabilities(t) => t.buffer_len(),
            Tlv::ManagementAddress(t) => t.buffer_len(),
            Tlv::EtsConfig(t) => t.buffer_len(),
            Tlv::EtsRecommendation(t) => t.buffer_len(),
            Tlv::PfcConfig(t) => t.buffer_len(),
            Tlv::AppPriority(t) => t.buffer_len(),
            Tlv::PfcLocalDelay(t) => t.buffer_len(),
            Tlv::Org(t) => t.buffer_len(),
            Tlv::Unknown(raw) | Tlv::Malformed { raw, .. } => raw.buffer_len(),
        }
    }

    /// Writes the whole TLV at the start of `buf`; returns the octets written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        match self {
            Tlv::End => emit_tlv(TlvType::END, 0, buf, |_| Ok(())),
            Tlv::ChassisId(t) => t.emit(buf),
            Tlv::PortId(t) => t.emit(buf),
            Tlv::Ttl(t) => t.emit(buf),
            Tlv::PortDescription(t) => t.emit(buf),
            Tlv::SystemName(t) => t.emit(buf),
            Tlv::SystemDescription(t) => t.emit(buf),
            Tlv::SystemCapabilities(t) => t.emit(buf),
            Tlv::ManagementAddress(t) => t.emit(buf),
            Tlv::EtsConfig(t) => t.emit(buf),
            Tlv::EtsRecommendation(t) => t.emit(buf),
            Tlv::PfcConfig(t) => t.emit(buf),
            Tlv::AppPriority(t) => t.emit(buf),
            Tlv::PfcLocalDelay(t) => t.emit(buf),
            Tlv::Org(t) => t.emit(buf),
            Tlv::Unknown(raw) | Tlv::Malformed { raw, .. } => raw.emit(buf),
        }
    }

    /// The whole TLV as a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, Error> {
        let mut buf = vec![0u8; self.buffer_len()];
        let len = self.emit(&mut buf)?;
        buf.truncate(len);
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    fn parse(s: &str) -> Result<Tlv, Error> {
        let bytes = hex(s);
        let (tlv, rest) = Tlv::parse(&bytes)?;
        assert!(rest.is_empty());
        assert_eq!(tlv.to_vec().as_ref(), Ok(&bytes), "re-emits exactly");
        Ok(tlv)
    }

    #[test]
    fn dispatches_by_type() {
        assert_eq!(parse("0000"), Ok(Tlv::End));
        assert_eq!(parse("0602 0079"), Ok(Tlv::Ttl(Ttl(121))));
        assert_eq!(parse("0a03 737731"), Ok(Tlv::SystemName(SystemName::from("sw1"))));
        assert_eq!(
            parse("fc01 00"),
            Ok(Tlv::Unknown(RawTlv { tlv_type: TlvType(126), info: vec![0] }))
        );
    }

    #[test]
    fn dispatches_org_tlvs_by_oui_and_subtype() {
        assert!(matches!(parse("fe07 0080c2 0b a4 18 c0"), Ok(Tlv::PfcConfig(_))));
        assert!(matches!(parse("fe0c 0080c2 17 0000000000010000"), Ok(Tlv::PfcLocalDelay(_))));
        assert!(matches!(parse("fe05 0080c2 0c 00"), Ok(Tlv::AppPriority(_))));
        // Another IEEE 802.1 subtype (0x01, Port VLAN ID) and another OUI with subtype 0x0b.
        assert_eq!(
            parse("fe06 0080c2 01 0001"),
            Ok(Tlv::Org(OrgTlv { oui: Oui::IEEE_802_1, subtype: 1, info: vec![0, 1] }))
        );
        assert_eq!(
            parse("fe06 00120f 0b a418"),
            Ok(Tlv::Org(OrgTlv { oui: Oui::IEEE_802_3, subtype: 0x0b, info: vec![0xa4, 0x18] }))
        );
        assert_eq!(parse("fe02 0080"), Err(Error::OrgTlvTooShort(2)));
    }

    #[test]
    fn end_with_content_is_a_bad_length() {
        assert_eq!(
            parse("0001 00"),
            Err(Error::BadLength { tlv: "End Of LLDPDU", len: 1, expected: "0" })
        );
    }

    #[test]
    fn malformed_re_emits_its_raw_octets() {
        let raw = RawTlv { tlv_type: TlvType::ORG_SPECIFIC, info: hex("0080c2 0b a4") };
        let tlv = Tlv::Malformed { raw, error: Error::PfcTlvTooShort(5) };
        assert_eq!(tlv.tlv_type(), TlvType::ORG_SPECIFIC);
        assert_eq!(tlv.to_vec(), Ok(hex("fe05 0080c2 0b a4")));
    }
}
