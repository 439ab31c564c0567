//! The TLV every LLDPDU is made of (IEEE 802.1AB 8.4), and a TLV kept as raw octets.
//!
//! ```text
//!  0                   1
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+- - - - - - - - - - - - - -
//! |  TLV type   |  information    |  information string
//! |  (7 bits)   |  string length  |  (0..=511 octets)
//! |             |  (9 bits)       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+- - - - - - - - - - - - - -
//! ```
//!
//! Every typed TLV in this module tree (`ChassisId`, `PfcConfig`, ...) has the same four methods:
//! `parse(bytes)` reads one whole TLV (header and information string) from the start of `bytes`
//! and returns it with the octets after it; `buffer_len()` is the octets the whole TLV takes;
//! `emit(buf)` writes it and returns that length; `to_vec()` returns it as a new vector.

use pfc_wire::{check_out, Fields};

use super::names::TlvType;
use super::write::Writer;
use super::Error;

/// Where a TLV's parts lie (IEEE 802.1AB 8.4.1), counted from the TLV's first octet.
pub(crate) mod field {
    use pfc_wire::{Field, Rest};

    /// TLV type (bits 16-10) and information string length (bits 9-1).
    pub const TYPE_LENGTH: Field = 0..2;
    /// The information string, as long as the length says.
    pub const INFO: Rest = 2..;
    /// The information string of `len` octets.
    pub const fn info(len: usize) -> Field {
        INFO.start..INFO.start + len
    }

    /// Where the type sits in the first two octets.
    pub const TYPE_SHIFT: u32 = 9;
    /// The length's bits.
    pub const LENGTH_MASK: u16 = 0x01ff;
}

/// Octets of a TLV header.
pub const TLV_HEADER_LEN: usize = field::INFO.start;
/// The longest information string the 9-bit length field can describe.
pub const MAX_INFO_LEN: usize = field::LENGTH_MASK as usize;
/// The largest value of the 7-bit TLV type field.
pub const MAX_TLV_TYPE: u8 = 127;

/// Splits one TLV off the front of `input`: its type, its information string, and the octets
/// after it. One stray octet is a truncated header; a length past the end is
/// [`Error::TlvPastEnd`].
pub(crate) fn split_tlv(input: &[u8]) -> Result<(TlvType, &[u8], &[u8]), Error> {
    let tlv = Fields::new(input, || Error::Truncated {
        what: "TLV header",
        needed: TLV_HEADER_LEN,
        got: input.len(),
    });
    let header = tlv.u16(field::TYPE_LENGTH)?;
    let tlv_type = TlvType((header >> field::TYPE_SHIFT) as u8);
    let length = header & field::LENGTH_MASK;
    let after = tlv.rest(field::INFO)?;
    let (info, rest) = after.split_at_checked(usize::from(length)).ok_or(Error::TlvPastEnd {
        tlv_type,
        length,
        available: after.len(),
    })?;
    Ok((tlv_type, info, rest))
}

/// Writes a TLV header for `info_len` octets and then the information string `body` writes
/// (its fields counted from the start of the information string). Returns the octets written.
pub(crate) fn emit_tlv(
    tlv_type: TlvType,
    info_len: usize,
    buf: &mut [u8],
    body: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<usize, Error> {
    if tlv_type.0 > MAX_TLV_TYPE {
        return Err(Error::FieldOutOfRange {
            field: "TLV type",
            value: u32::from(tlv_type.0),
            allowed: "0 to 127",
        });
    }
    let length = match u16::try_from(info_len) {
        Ok(l) if info_len <= MAX_INFO_LEN => l,
        _ => return Err(Error::TlvTooLong { tlv_type, len: info_len }),
    };
    check_out(buf, TLV_HEADER_LEN + info_len)?;
    let mut w = Writer::new(buf);
    w.u16(field::TYPE_LENGTH, (u16::from(tlv_type.0) << field::TYPE_SHIFT) | length);
    w.nested(field::info(info_len), body)?;
    w.finish()
}

/// What a typed TLV supplies so that the shared `parse`/`emit`/`buffer_len`/`to_vec` work.
pub(crate) trait Info: Sized {
    /// The TLV type this representation is carried in.
    const TLV_TYPE: TlvType;
    /// Parses the information string (everything after the 2-octet header).
    fn parse_info(info: &[u8]) -> Result<Self, Error>;
    /// Octets of the information string.
    fn info_len(&self) -> usize;
    /// Writes the information string, after checking every field fits.
    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error>;
}

pub(crate) fn parse_typed<T: Info>(bytes: &[u8]) -> Result<(T, &[u8]), Error> {
    let (found, info, rest) = split_tlv(bytes)?;
    if found != T::TLV_TYPE {
        return Err(Error::WrongTlvType { expected: T::TLV_TYPE, found });
    }
    Ok((T::parse_info(info)?, rest))
}

pub(crate) fn emit_typed<T: Info>(tlv: &T, buf: &mut [u8]) -> Result<usize, Error> {
    emit_tlv(T::TLV_TYPE, tlv.info_len(), buf, |w| tlv.write_info(w))
}

pub(crate) fn to_vec_typed<T: Info>(tlv: &T) -> Result<Vec<u8>, Error> {
    let mut buf = vec![0u8; TLV_HEADER_LEN + tlv.info_len()];
    let len = emit_typed(tlv, &mut buf)?;
    buf.truncate(len);
    Ok(buf)
}

/// Gives a typed TLV its public `parse`, `buffer_len`, `emit` and `to_vec`.
macro_rules! tlv_repr {
    ($ty:ident) => {
        impl $ty {
            /// Parses one whole TLV of this kind (header and information string) from the start
            /// of `bytes`; returns it and the octets after it.
            pub fn parse(bytes: &[u8]) -> Result<(Self, &[u8]), $crate::wire::Error> {
                $crate::wire::tlv::parse_typed(bytes)
            }

            /// Octets the whole TLV takes: the 2-octet header and the information string.
            pub fn buffer_len(&self) -> usize {
                $crate::wire::TLV_HEADER_LEN + $crate::wire::tlv::Info::info_len(self)
            }

            /// Writes the whole TLV at the start of `buf`; returns the octets written. A field
            /// that does not fit its bits is refused with an error, never truncated.
            pub fn emit(&self, buf: &mut [u8]) -> Result<usize, $crate::wire::Error> {
                $crate::wire::tlv::emit_typed(self, buf)
            }

            /// The whole TLV as a new vector.
            pub fn to_vec(&self) -> Result<Vec<u8>, $crate::wire::Error> {
                $crate::wire::tlv::to_vec_typed(self)
            }
        }
    };
}
pub(crate) use tlv_repr;

/// A TLV kept as it was received: its type and information string, untouched. Unknown types
/// (9 to 126) are kept this way and re-emitted octet for octet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawTlv {
    pub tlv_type: TlvType,
    /// The information string (after the 2-octet header).
    pub info: Vec<u8>,
}

impl RawTlv {
    /// Parses one TLV of any type from the start of `bytes`, without interpreting it; returns it
    /// and the octets after it.
    pub fn parse(bytes: &[u8]) -> Result<(Self, &[u8]), Error> {
        let (tlv_type, info, rest) = split_tlv(bytes)?;
        Ok((RawTlv { tlv_type, info: info.to_vec() }, rest))
    }

    pub fn buffer_len(&self) -> usize {
        TLV_HEADER_LEN + self.info.len()
    }

    /// Writes the TLV; a type above 127 or an information string above 511 octets is refused.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        emit_tlv(self.tlv_type, self.info.len(), buf, |w| {
            w.put_whole(&self.info);
            Ok(())
        })
    }

    pub fn to_vec(&self) -> Result<Vec<u8>, Error> {
        let mut buf = vec![0u8; self.buffer_len()];
        self.emit(&mut buf)?;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn header_is_seven_bit_type_and_nine_bit_length() {
        // Type 127, length 0x1ff = 511: all sixteen bits set.
        let mut bytes = hex("ffff");
        bytes.extend_from_slice(&[0xab; 511]);
        bytes.push(0x42);
        let (raw, rest) = RawTlv::parse(&bytes).expect("parses");
        assert_eq!(raw.tlv_type, TlvType::ORG_SPECIFIC);
        assert_eq!(raw.info.len(), 511);
        assert_eq!(rest, &[0x42]);
        assert_eq!(raw.to_vec().expect("emits"), &bytes[..513]);
    }

    #[test]
    fn unknown_type_is_kept_verbatim() {
        let bytes = hex("1203 abcdef");
        let (raw, rest) = RawTlv::parse(&bytes).expect("parses");
        assert!(rest.is_empty());
        assert_eq!(raw, RawTlv { tlv_type: TlvType(9), info: vec![0xab, 0xcd, 0xef] });
        assert_eq!(raw.tlv_type.to_string(), "reserved type 9");
        assert_eq!(raw.to_vec(), Ok(bytes));
    }

    #[test]
    fn length_past_the_end_is_its_own_error() {
        // System Name claiming 8 octets with 3 present.
        let bytes = hex("0a08 737731");
        assert_eq!(
            RawTlv::parse(&bytes),
            Err(Error::TlvPastEnd { tlv_type: TlvType::SYSTEM_NAME, length: 8, available: 3 })
        );
        assert_eq!(
            Error::TlvPastEnd { tlv_type: TlvType::SYSTEM_NAME, length: 8, available: 3 }
                .to_string(),
            "System Name TLV claims 8 octets but only 3 remain in the LLDPDU"
        );
    }

    #[test]
    fn one_stray_octet_is_a_truncated_header() {
        assert_eq!(
            RawTlv::parse(&[0x02]),
            Err(Error::Truncated { what: "TLV header", needed: 2, got: 1 })
        );
    }

    #[test]
    fn emit_refuses_what_the_header_cannot_say() {
        let long = RawTlv { tlv_type: TlvType(9), info: vec![0; 512] };
        assert_eq!(long.to_vec(), Err(Error::TlvTooLong { tlv_type: TlvType(9), len: 512 }));
        let wide = RawTlv { tlv_type: TlvType(128), info: vec![] };
        assert_eq!(
            wide.to_vec(),
            Err(Error::FieldOutOfRange { field: "TLV type", value: 128, allowed: "0 to 127" })
        );
        let raw = RawTlv { tlv_type: TlvType(9), info: vec![1, 2, 3] };
        assert_eq!(raw.emit(&mut [0u8; 4]), Err(Error::BufferTooSmall { needed: 5, got: 4 }));
    }
}
