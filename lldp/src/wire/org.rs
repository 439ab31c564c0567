//! The Organizationally Specific TLV (type 127), IEEE 802.1AB 8.6.
//!
//! ```text
//! +-------+----------+-----------------+---------+-----------------------------------+
//! | 127   | length   | OUI or CID      | subtype | organizationally defined          |
//! |       | 4..=511  | 3 octets        | 1 octet | information string (0..=507)      |
//! +-------+----------+-----------------+---------+-----------------------------------+
//! ```
//!
//! An OUI and subtype this crate does not decode is kept as an [`OrgTlv`] and re-emitted octet
//! for octet. A TLV of length below 4 cannot name its owner: [`Error::OrgTlvTooShort`], and
//! [`Lldpdu::parse`](super::Lldpdu::parse) discards the whole LLDPDU for it (as lldpd does).

use pfc_wire::Fields;

use super::names::{Oui, TlvType};
use super::tlv::{tlv_repr, Info};
use super::write::Writer;
use super::Error;

/// Where the parts of an organizationally specific TLV lie (IEEE 802.1AB 8.6), counted from the
/// start of its information string. The IEEE 802.1 TLVs (`ets`, `pfc`, `app`, `local_delay`)
/// count their own fields the same way, after these two.
pub(crate) mod field {
    use pfc_wire::{Field, Rest};

    /// The OUI or CID of the organization that defines the TLV.
    pub const OUI: Field = 0..3;
    /// The organizationally defined subtype.
    pub const SUBTYPE: usize = 3;
    /// The organizationally defined information string.
    pub const INFO: Rest = 4..;
}

/// Octets of OUI and subtype at the start of every organizationally specific TLV.
pub const ORG_HEADER_LEN: usize = field::INFO.start;

/// Splits an organizationally specific information string into OUI, subtype and the rest.
pub(crate) fn split_org(info: &[u8]) -> Result<(Oui, u8, &[u8]), Error> {
    let org =
        Fields::new(info, || Error::OrgTlvTooShort(u16::try_from(info.len()).unwrap_or(u16::MAX)));
    Ok((Oui(org.array(field::OUI)?), org.u8(field::SUBTYPE)?, org.rest(field::INFO)?))
}

/// Checks the OUI and subtype of a typed organizationally specific TLV.
pub(crate) fn expect_org(info: &[u8], oui: Oui, subtype: u8) -> Result<(), Error> {
    let (found_oui, found_subtype, _) = split_org(info)?;
    if found_oui != oui || found_subtype != subtype {
        return Err(Error::WrongOrgTlv {
            expected_oui: oui,
            expected_subtype: subtype,
            found_oui,
            found_subtype,
        });
    }
    Ok(())
}

/// Writes the OUI and subtype that open a typed organizationally specific TLV.
pub(crate) fn write_org_header(w: &mut Writer<'_>, oui: Oui, subtype: u8) {
    w.put(field::OUI, &oui.0);
    w.u8(field::SUBTYPE, subtype);
}

/// Any organizationally specific TLV, undecoded: OUI, subtype and the information after them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OrgTlv {
    pub oui: Oui,
    pub subtype: u8,
    /// The organizationally defined information string (after OUI and subtype).
    pub info: Vec<u8>,
}

impl Info for OrgTlv {
    const TLV_TYPE: TlvType = TlvType::ORG_SPECIFIC;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        let (oui, subtype, rest) = split_org(info)?;
        Ok(OrgTlv { oui, subtype, info: rest.to_vec() })
    }

    fn info_len(&self) -> usize {
        ORG_HEADER_LEN + self.info.len()
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        write_org_header(w, self.oui, self.subtype);
        w.put_rest(field::INFO, &self.info);
        Ok(())
    }
}

tlv_repr!(OrgTlv);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn ieee_802_3_max_frame_size_is_kept_as_org_tlv() {
        let bytes = hex("fe06 00120f 04 05ee");
        let expected = OrgTlv { oui: Oui::IEEE_802_3, subtype: 4, info: vec![0x05, 0xee] };
        assert_eq!(OrgTlv::parse(&bytes), Ok((expected.clone(), &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes));
        assert_eq!(Oui::IEEE_802_1.to_string(), "00-80-c2");
    }

    #[test]
    fn org_tlv_shorter_than_4_is_its_own_error() {
        assert_eq!(OrgTlv::parse(&hex("fe03 0080c2")), Err(Error::OrgTlvTooShort(3)));
        assert_eq!(OrgTlv::parse(&hex("fe00")), Err(Error::OrgTlvTooShort(0)));
        assert_eq!(
            Error::OrgTlvTooShort(3).to_string(),
            "organizationally specific TLV has length 3, shorter than the 4 octets of OUI and \
             subtype"
        );
    }

    #[test]
    fn oui_and_subtype_alone_is_legal() {
        let bytes = hex("fe04 aabbcc 01");
        let (org, _) = OrgTlv::parse(&bytes).expect("parses");
        assert_eq!(org, OrgTlv { oui: Oui([0xaa, 0xbb, 0xcc]), subtype: 1, info: vec![] });
        assert_eq!(org.to_vec(), Ok(bytes));
    }
}
