use pfc_wire::EtherType;

use super::names::{Oui, TlvType};

/// Why an LLDP frame, an LLDPDU or a TLV could not be parsed or emitted. Each variant names the
/// fault so that a discard counter and a log line can say exactly what was wrong.
///
/// Faults that make a whole LLDPDU unusable (the frame is cut, a TLV runs past its end, the
/// mandatory TLVs are missing, out of order or repeated, an organizationally specific TLV too
/// short to name its owner) are returned by [`Lldpdu::parse`](super::Lldpdu::parse); a fault
/// inside one optional TLV (say a PFC Configuration TLV of length 5) is kept beside that TLV as
/// [`Tlv::Malformed`](super::Tlv::Malformed) and the rest of the LLDPDU is still used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input ends before a field the format requires.
    #[error("truncated {what}: needs {needed} octets, got {got}")]
    Truncated { what: &'static str, needed: usize, got: usize },
    /// The frame is not an LLDP frame (EtherType 88-CC). LLDPDUs are sent untagged, so a tagged
    /// frame reports the TPID 81-00 here.
    #[error("frame has EtherType {0}, not LLDP's 88-cc (LLDPDUs are sent untagged)")]
    WrongEtherType(EtherType),
    /// A TLV's length field claims more octets than are left in the LLDPDU.
    #[error("{tlv_type} TLV claims {length} octets but only {available} remain in the LLDPDU")]
    TlvPastEnd { tlv_type: TlvType, length: u16, available: usize },
    /// The LLDPDU does not carry one of Chassis ID, Port ID and TTL at all.
    #[error("LLDPDU has no {0} TLV: Chassis ID, Port ID and TTL must open every LLDPDU")]
    MandatoryTlvMissing(TlvType),
    /// The mandatory TLVs are present but not first and in the order Chassis ID, Port ID, TTL.
    #[error(
        "LLDPDU has a {found} TLV where the {expected} TLV must be: Chassis ID, Port ID and TTL \
         must come first, in that order"
    )]
    MandatoryTlvOutOfOrder { expected: TlvType, found: TlvType },
    /// A second Chassis ID, Port ID or TTL TLV after the first three.
    #[error("LLDPDU carries a second {0} TLV: Chassis ID, Port ID and TTL appear once each")]
    MandatoryTlvDuplicate(TlvType),
    /// An organizationally specific TLV (type 127) too short to hold its OUI and subtype.
    #[error(
        "organizationally specific TLV has length {0}, shorter than the 4 octets of OUI and \
         subtype"
    )]
    OrgTlvTooShort(u16),
    /// A PFC Configuration TLV shorter than the 6 octets of IEEE 802.1Q-2018 (SPEC §2.4: discard
    /// the TLV and count it).
    #[error("PFC Configuration TLV has length {0}, shorter than 6: the TLV is discarded")]
    PfcTlvTooShort(u16),
    /// A TLV whose information string length is not one its format allows.
    #[error("{tlv} TLV has information string length {len}, but it must be {expected}")]
    BadLength { tlv: &'static str, len: usize, expected: &'static str },
    /// A field holds a value outside its range (on receive: an inner length; on emit: a value
    /// that does not fit its bits).
    #[error("{field} is {value}, outside {allowed}")]
    FieldOutOfRange { field: &'static str, value: u32, allowed: &'static str },
    /// A TLV's information string would not fit the 9-bit length field.
    #[error("{tlv_type} TLV information string of {len} octets is longer than the 511 allowed")]
    TlvTooLong { tlv_type: TlvType, len: usize },
    /// A typed TLV parser was handed a TLV of another type.
    #[error("expected a {expected} TLV, found a {found} TLV")]
    WrongTlvType { expected: TlvType, found: TlvType },
    /// A typed parser of an organizationally specific TLV was handed one with another OUI or
    /// subtype.
    #[error(
        "expected organizationally specific TLV {expected_oui} subtype {expected_subtype}, \
         found {found_oui} subtype {found_subtype}"
    )]
    WrongOrgTlv { expected_oui: Oui, expected_subtype: u8, found_oui: Oui, found_subtype: u8 },
    /// An LLDPDU's optional TLV list holds End, Chassis ID, Port ID or TTL, which the LLDPDU
    /// writes itself.
    #[error(
        "{0} TLV cannot be in an LLDPDU's optional TLV list: End, Chassis ID, Port ID and TTL are \
         written by the LLDPDU itself"
    )]
    NotOptional(TlvType),
    /// An LLDPDU with more TLVs than one standard frame can hold ([`super::MAX_TLVS`]).
    #[error(
        "LLDPDU holds more than {limit} TLVs, more than a 1500-octet frame can carry: discarded"
    )]
    TooManyTlvs { limit: usize },
    /// The output buffer is smaller than `buffer_len()`.
    #[error("output buffer too small: needs {needed} octets, has {got}")]
    BufferTooSmall { needed: usize, got: usize },
    /// Any other fault of the Ethernet header, as the shared wire crate (`pfc-wire`) reports it.
    #[error("Ethernet header: {0}")]
    Ethernet(pfc_wire::Error),
}

impl From<pfc_wire::Error> for Error {
    fn from(e: pfc_wire::Error) -> Self {
        match e {
            pfc_wire::Error::Truncated { what, needed, got } => {
                Error::Truncated { what, needed, got }
            }
            pfc_wire::Error::BufferTooSmall { needed, got } => {
                Error::BufferTooSmall { needed, got }
            }
            other => Error::Ethernet(other),
        }
    }
}
