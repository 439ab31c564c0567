//! PFC Configuration TLV (subtype 0x0B, OUI 00-80-C2): IEEE 802.1Q-2018 D.2.10 with the
//! P802.1Qdt additions (SPEC §2.4).
//!
//! ```text
//! +-----+-----------+----------+------+-----------------------------+------------+-----------+
//! | 127 | len 6 / 7 | 00-80-C2 | 0x0B | A                           | B          | C (len 7) |
//! +-----+-----------+----------+------+-----------------------------+------------+-----------+
//! A: 8 Willing | 7 MBC | 6 MACsec cap | 5 Privacy cap | 4-1 PFC cap
//! B: PFC Enable, bit n = priority n
//! C: 8 RTM HDRM | 7 PTP HDRM | 6-1 reserved (0 on transmit, ignored on receive)
//! ```
//!
//! The draft's Figure D-10 is missing; this layout follows its subclauses D.2.10.3–D.2.10.10 as
//! SPEC §2.4 decides. The TLV exists in two lengths, and [`PfcConfig::format`] records which one
//! was received so that emit(parse(b)) == b:
//!
//! - **Length 7** ([`PfcFormat::Qdt`], the default on transmit): octet C present.
//! - **Length 6** ([`PfcFormat::Legacy`], IEEE 802.1Q-2018, for old peers): no octet C, and
//!   bits 6-5 of octet A are reserved. On receive the four new bits (MACsec cap, Privacy cap,
//!   RTM HDRM, PTP HDRM) read as 0 whatever bits 6-5 hold. **Decision:** on transmit a legacy
//!   TLV *clears* them — emit writes bits 6-5 as 0 and drops RTM/PTP HDRM — because the legacy
//!   form by definition cannot carry them; it is not an error. [`PfcConfig::legacy`] gives the
//!   value as a legacy peer will see it.
//! - **Length below 6** (only OUI and subtype, or one octet more): malformed,
//!   [`Error::PfcTlvTooShort`]; in an LLDPDU the TLV is kept as
//!   [`Tlv::Malformed`](super::Tlv::Malformed), discarded and counted (SPEC §2.4).
//! - **Length above 7**: the first 7 octets are used. **Decision:** the octets after octet C
//!   (a later revision's fields) are kept verbatim in [`PfcFormat::Extended`] and re-emitted, so
//!   nothing a peer sent is lost and emit(parse(b)) == b still holds.
//!
//! MBC follows the standard's text: false (0) means the sender *can* bypass MACsec when MACsec
//! is disabled, true (1) that it cannot.

use pfc_wire::Fields;

use super::org::{expect_org, write_org_header};
use super::tlv::{tlv_repr, Info};
use super::write::{in_range, Writer};
use super::{Error, Oui, TlvType};

/// Subtype of the PFC Configuration TLV.
pub const PFC_CONFIG_SUBTYPE: u8 = 0x0b;
/// Information string length of the IEEE 802.1Q-2018 form.
pub const PFC_LEGACY_INFO_LEN: usize = field::QDT_FLAGS;
/// Information string length of the P802.1Qdt form.
pub const PFC_QDT_INFO_LEN: usize = field::EXTENSION.start;

/// Where the PFC Configuration TLV's fields lie (IEEE 802.1Q D.2.10, P802.1Qdt D.2.10.3–D.2.10.10
/// as SPEC §2.4 reads them), counted from the start of the information string, after the OUI and
/// subtype (`org::field`).
mod field {
    use pfc_wire::Rest;

    /// Octet A: Willing, MBC, MACsec cap, Privacy cap, PFC cap.
    pub const FLAGS: usize = 4;
    /// Octet B: PFC Enable, bit n = priority n.
    pub const PFC_ENABLE: usize = 5;
    /// Octet C (P802.1Qdt, absent from the length-6 form): RTM HDRM, PTP HDRM, reserved.
    pub const QDT_FLAGS: usize = 6;
    /// What a longer TLV carries after octet C, kept as received.
    pub const EXTENSION: Rest = 7..;
}

const _: () = assert!(field::FLAGS == super::org::ORG_HEADER_LEN);

/// Which length a PFC Configuration TLV has on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum PfcFormat {
    /// Length 6 (IEEE 802.1Q-2018): no octet C; MACsec cap, Privacy cap, RTM HDRM and PTP HDRM
    /// are not carried (read as 0, cleared on transmit).
    Legacy,
    /// Length 7 (P802.1Qdt): octet C carries RTM HDRM and PTP HDRM.
    #[default]
    Qdt,
    /// Longer than 7: read as the P802.1Qdt form; the octets after octet C are kept here,
    /// uninterpreted, and re-emitted after it.
    Extended(Vec<u8>),
}

/// The PFC Configuration TLV.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PfcConfig {
    /// The sender accepts its peer's PFC Enable (symmetric attribute passing).
    pub willing: bool,
    /// MACsec Bypass Capability: false = the sender can bypass MACsec when MACsec is disabled,
    /// true = it cannot.
    pub mbc: bool,
    /// The sender can send and receive MACsec-protected PFC frames (P802.1Qdt).
    pub macsec_capable: bool,
    /// The sender can send PFC frames on the Express Privacy Channel (P802.1Qdt).
    pub privacy_capable: bool,
    /// How many traffic classes may have PFC enabled at once on the sender, 0..=15 (4 bits;
    /// 0 means none).
    pub pfc_cap: u8,
    /// PFC Enable: bit n = priority n.
    pub pfc_enable: u8,
    /// The sender supports the headroom measurement protocol, RTM HDRM (P802.1Qdt).
    pub rtm_hdrm: bool,
    /// The sender supports the PTP link-delay headroom method, PTP HDRM (P802.1Qdt).
    pub ptp_hdrm: bool,
    /// The TLV's length on the wire.
    pub format: PfcFormat,
}

impl PfcConfig {
    /// This value as a legacy (length 6) TLV: the format set to [`PfcFormat::Legacy`] and the
    /// four P802.1Qdt bits cleared — what emit writes and what a peer parses back.
    pub fn legacy(&self) -> Self {
        PfcConfig {
            macsec_capable: false,
            privacy_capable: false,
            rtm_hdrm: false,
            ptp_hdrm: false,
            format: PfcFormat::Legacy,
            ..self.clone()
        }
    }

    /// True when priority `p` (0..=7) has PFC enabled.
    pub fn is_enabled(&self, p: u8) -> bool {
        p < 8 && self.pfc_enable & (1 << p) != 0
    }
}

impl Info for PfcConfig {
    const TLV_TYPE: TlvType = TlvType::ORG_SPECIFIC;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        expect_org(info, Oui::IEEE_802_1, PFC_CONFIG_SUBTYPE)?;
        let too_short = || Error::PfcTlvTooShort(u16::try_from(info.len()).unwrap_or(u16::MAX));
        if info.len() < PFC_LEGACY_INFO_LEN {
            return Err(too_short());
        }
        let fields = Fields::new(info, too_short);
        let a = fields.u8(field::FLAGS)?;
        let mut pfc = PfcConfig {
            willing: a & 0x80 != 0,
            mbc: a & 0x40 != 0,
            pfc_cap: a & 0x0f,
            pfc_enable: fields.u8(field::PFC_ENABLE)?,
            format: PfcFormat::Legacy,
            ..PfcConfig::default()
        };
        if let Ok(c) = fields.u8(field::QDT_FLAGS) {
            let extra = fields.rest(field::EXTENSION)?;
            pfc.macsec_capable = a & 0x20 != 0;
            pfc.privacy_capable = a & 0x10 != 0;
            pfc.rtm_hdrm = c & 0x80 != 0;
            pfc.ptp_hdrm = c & 0x40 != 0;
            pfc.format =
                if extra.is_empty() { PfcFormat::Qdt } else { PfcFormat::Extended(extra.to_vec()) };
        }
        Ok(pfc)
    }

    fn info_len(&self) -> usize {
        match &self.format {
            PfcFormat::Legacy => PFC_LEGACY_INFO_LEN,
            PfcFormat::Qdt => PFC_QDT_INFO_LEN,
            PfcFormat::Extended(extra) => PFC_QDT_INFO_LEN + extra.len(),
        }
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        let cap = in_range("PFC cap", self.pfc_cap, 15, "0 to 15")?;
        let legacy = self.format == PfcFormat::Legacy;
        let bit = |set: bool, shift: u8| u8::from(set) << shift;
        let a = bit(self.willing, 7)
            | bit(self.mbc, 6)
            | bit(self.macsec_capable && !legacy, 5)
            | bit(self.privacy_capable && !legacy, 4)
            | cap;
        write_org_header(w, Oui::IEEE_802_1, PFC_CONFIG_SUBTYPE);
        w.u8(field::FLAGS, a);
        w.u8(field::PFC_ENABLE, self.pfc_enable);
        if !legacy {
            w.u8(field::QDT_FLAGS, bit(self.rtm_hdrm, 7) | bit(self.ptp_hdrm, 6));
        }
        if let PfcFormat::Extended(extra) = &self.format {
            w.put_rest(field::EXTENSION, extra);
        }
        Ok(())
    }
}

tlv_repr!(PfcConfig);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn qdt_length_7_carries_the_new_bits() {
        // Willing, MACsec cap, PFC cap 4; priorities 3 and 4; RTM and PTP HDRM.
        let bytes = hex("fe07 0080c2 0b a4 18 c0");
        let expected = PfcConfig {
            willing: true,
            mbc: false,
            macsec_capable: true,
            privacy_capable: false,
            pfc_cap: 4,
            pfc_enable: 0x18,
            rtm_hdrm: true,
            ptp_hdrm: true,
            format: PfcFormat::Qdt,
        };
        assert_eq!(PfcConfig::parse(&bytes), Ok((expected.clone(), &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes));
        assert!(expected.is_enabled(3) && expected.is_enabled(4) && !expected.is_enabled(5));
    }

    #[test]
    fn legacy_length_6_round_trips() {
        let bytes = hex("fe06 0080c2 0b 48 08");
        let expected = PfcConfig {
            mbc: true,
            pfc_cap: 8,
            pfc_enable: 0x08,
            format: PfcFormat::Legacy,
            ..PfcConfig::default()
        };
        assert_eq!(PfcConfig::parse(&bytes), Ok((expected.clone(), &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes));
    }

    #[test]
    fn legacy_receive_reads_new_bits_as_zero() {
        // Bits 6-5 set in a length-6 TLV: reserved there, so MACsec and Privacy cap are 0.
        let (pfc, _) = PfcConfig::parse(&hex("fe06 0080c2 0b 34 01")).expect("parses");
        assert!(!pfc.macsec_capable && !pfc.privacy_capable);
        assert_eq!(pfc.pfc_cap, 4);
    }

    #[test]
    fn legacy_emit_clears_the_new_bits() {
        let full = PfcConfig {
            willing: true,
            macsec_capable: true,
            privacy_capable: true,
            pfc_cap: 2,
            pfc_enable: 0x01,
            rtm_hdrm: true,
            ptp_hdrm: true,
            ..PfcConfig::default()
        };
        let legacy = PfcConfig { format: PfcFormat::Legacy, ..full.clone() };
        let bytes = legacy.to_vec().expect("emits");
        assert_eq!(bytes, hex("fe06 0080c2 0b 82 01"));
        assert_eq!(PfcConfig::parse(&bytes), Ok((full.legacy(), &[][..])));
    }

    #[test]
    fn pfc_tlv_of_length_5_is_its_own_error() {
        assert_eq!(PfcConfig::parse(&hex("fe05 0080c2 0b a4")), Err(Error::PfcTlvTooShort(5)));
        assert_eq!(PfcConfig::parse(&hex("fe04 0080c2 0b")), Err(Error::PfcTlvTooShort(4)));
        assert_eq!(
            Error::PfcTlvTooShort(5).to_string(),
            "PFC Configuration TLV has length 5, shorter than 6: the TLV is discarded"
        );
    }

    #[test]
    fn longer_than_7_uses_first_7_and_keeps_the_rest() {
        let bytes = hex("fe09 0080c2 0b 80 ff 7f aabb");
        let (pfc, _) = PfcConfig::parse(&bytes).expect("parses");
        assert_eq!(pfc.pfc_enable, 0xff);
        // Octet C's reserved bits 6-1 are ignored: 0x7f has only PTP HDRM of the defined bits.
        assert!(!pfc.rtm_hdrm && pfc.ptp_hdrm);
        assert_eq!(pfc.format, PfcFormat::Extended(vec![0xaa, 0xbb]));
        // Reserved bits of octet C go out as 0; the extra octets as received.
        assert_eq!(pfc.to_vec(), Ok(hex("fe09 0080c2 0b 80 ff 40 aabb")));
    }

    #[test]
    fn pfc_cap_above_15_is_refused() {
        let pfc = PfcConfig { pfc_cap: 16, ..PfcConfig::default() };
        assert_eq!(
            pfc.to_vec(),
            Err(Error::FieldOutOfRange { field: "PFC cap", value: 16, allowed: "0 to 15" })
        );
    }
}
