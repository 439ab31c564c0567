//! Headroom Measurement PDU (P802.1Qdt 36.9.2–36.9.5).
//!
//! ```text
//! after the Ethernet header (DA 01-80-C2-00-00-01, EtherType 89-A2):
//! octet 3      Version (bits 8-5) | Subtype (bits 4-1) = 1
//! octet 4      Format Identifier: bits 8-7 use of tuple 1 | 6-5 use of tuple 2
//!                                 | 4-3 interface-stack path | 2-1 sent as 0
//! octets 5-8   tuple 1 Request Timestamp   (u32, opaque to the responder)
//! octets 9-10  tuple 1 Request Adjustment  (i16, pause quanta)
//! octets 11-12 tuple 1 Response Adjustment (i16, pause quanta)
//! octets 13-20 tuple 2, same fields (may be absent when its use code is 0)
//! ```

use pfc_wire::{emit_frame, frame_len, Field, Fields};

use super::{Error, EtherType, EthernetHeader, MacAddr};

/// The octet-3 subtype of an HMPDU; other subtypes of EtherType 89-A2 are Congestion Isolation
/// Messages.
pub const HMPDU_SUBTYPE: u8 = 1;

/// Where an HMPDU's fields lie (P802.1Qdt 36.9.2–36.9.4), counted from the end of the Ethernet
/// header: offset 0 is the figure's octet 3.
mod field {
    use pfc_wire::Field;

    /// Version (bits 8-5) and Subtype (bits 4-1).
    pub const VERSION_SUBTYPE: usize = 0;
    /// Format Identifier: use of tuple 1 (bits 8-7) and of tuple 2 (6-5), interface-stack path
    /// (4-3), and two bits sent as 0 (2-1).
    pub const FORMAT: usize = 1;
    /// Tuple 1.
    pub const TUPLE_1: Field = 2..10;
    /// Tuple 2 (may be absent when its use code is 0).
    pub const TUPLE_2: Field = 10..18;
    /// Octets of the fields of an HMPDU with both tuples.
    pub const LEN: usize = TUPLE_2.end;

    /// Where the Version sits in its octet, and its four bits.
    pub const VERSION_SHIFT: u32 = 4;
    pub const VERSION_MASK: u8 = 0x0f;
    /// The Subtype's bits.
    pub const SUBTYPE_MASK: u8 = 0x0f;
    /// Where the use code of tuple 1, of tuple 2 and the path code sit in the Format Identifier;
    /// each is two bits.
    pub const TUPLE_1_USE_SHIFT: u32 = 6;
    pub const TUPLE_2_USE_SHIFT: u32 = 4;
    pub const PATH_SHIFT: u32 = 2;
    /// The Format Identifier's last two bits.
    pub const FORMAT_RESERVED_MASK: u8 = 0b11;

    /// The fields of one tuple (36.9.4), counted from the tuple's start.
    pub mod tuple {
        use pfc_wire::Field;

        /// Request Timestamp: a u32 opaque to the responder.
        pub const REQUEST_TIMESTAMP: Field = 0..4;
        /// Request Adjustment, in pause quanta (two's complement).
        pub const REQUEST_ADJUSTMENT: Field = 4..6;
        /// Response Adjustment, in pause quanta (two's complement).
        pub const RESPONSE_ADJUSTMENT: Field = 6..8;
        /// Octets of a tuple.
        pub const LEN: usize = RESPONSE_ADJUSTMENT.end;
    }
}

const _: () = assert!(field::TUPLE_1.end - field::TUPLE_1.start == field::tuple::LEN);
const _: () = assert!(field::TUPLE_2.end - field::TUPLE_2.start == field::tuple::LEN);

/// What a tuple carries (its use code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TupleUse {
    /// Code 3: a measurement request.
    Request,
    /// Code 2: a response whose Response Adjustment is meaningful.
    Response,
    /// Code 1: a response whose Response Adjustment is zero (the field is ignored on receipt).
    ResponseNoAdjustment,
}

impl TupleUse {
    fn code(self) -> u8 {
        match self {
            TupleUse::Request => 3,
            TupleUse::Response => 2,
            TupleUse::ResponseNoAdjustment => 1,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        match code & 3 {
            3 => Some(TupleUse::Request),
            2 => Some(TupleUse::Response),
            1 => Some(TupleUse::ResponseNoAdjustment),
            _ => None,
        }
    }
}

/// One measurement tuple.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HmpduTuple {
    pub kind: TupleUse,
    /// Opaque to the responder; we use a free-running counter of pause quanta.
    pub request_timestamp: u32,
    /// Requester's adjustment, in pause quanta (two's complement).
    pub request_adjustment: i16,
    /// Responder's adjustment, in pause quanta; always 0 for [`TupleUse::ResponseNoAdjustment`].
    pub response_adjustment: i16,
}

impl HmpduTuple {
    pub fn request(request_timestamp: u32, request_adjustment: i16) -> Self {
        HmpduTuple {
            kind: TupleUse::Request,
            request_timestamp,
            request_adjustment,
            response_adjustment: 0,
        }
    }

    /// The response to this request: timestamp and Request Adjustment reflected unchanged, use
    /// code 1 when the Response Adjustment is zero, 2 otherwise.
    pub fn respond(&self, response_adjustment: i16) -> Self {
        let kind = if response_adjustment == 0 {
            TupleUse::ResponseNoAdjustment
        } else {
            TupleUse::Response
        };
        HmpduTuple { kind, response_adjustment, ..*self }
    }

    pub fn is_request(&self) -> bool {
        self.kind == TupleUse::Request
    }

    /// Reads the tuple at `at` of an HMPDU's `payload` if its use `code` says it is in use; a
    /// tuple in use that the payload does not hold whole is `short`.
    fn parse(
        code: u8,
        payload: &[u8],
        at: Field,
        short: impl Fn() -> Error,
    ) -> Result<Option<Self>, Error> {
        let Some(kind) = TupleUse::from_code(code) else {
            return Ok(None);
        };
        let tuple = Fields::new(payload.get(at).ok_or_else(&short)?, short);
        let request_timestamp = tuple.u32(field::tuple::REQUEST_TIMESTAMP)?;
        let request_adjustment = tuple.i16(field::tuple::REQUEST_ADJUSTMENT)?;
        let response_adjustment = if kind == TupleUse::ResponseNoAdjustment {
            0
        } else {
            tuple.i16(field::tuple::RESPONSE_ADJUSTMENT)?
        };
        Ok(Some(HmpduTuple { kind, request_timestamp, request_adjustment, response_adjustment }))
    }

    /// Writes `tuple` into the octets of one tuple (all zero when it is not in use).
    fn emit(tuple: &Option<Self>, out: &mut [u8]) {
        match tuple {
            None => out.fill(0),
            Some(t) => {
                out[field::tuple::REQUEST_TIMESTAMP]
                    .copy_from_slice(&t.request_timestamp.to_be_bytes());
                out[field::tuple::REQUEST_ADJUSTMENT]
                    .copy_from_slice(&t.request_adjustment.to_be_bytes());
                let response = if t.kind == TupleUse::ResponseNoAdjustment {
                    0
                } else {
                    t.response_adjustment
                };
                out[field::tuple::RESPONSE_ADJUSTMENT].copy_from_slice(&response.to_be_bytes());
            }
        }
    }
}

/// Which interface-stack path an HMPDU measures (Format Identifier bits 4-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathCode {
    /// 0: neither PFC frames nor user data MACsec protected.
    Unprotected,
    /// 1: PFC frames not protected, user data protected.
    DataProtected,
    /// 2: both protected.
    Protected,
    /// 3: PFC frames on the Express Privacy Channel, user data on the Privacy Channel.
    Privacy,
}

impl PathCode {
    pub fn code(self) -> u8 {
        match self {
            PathCode::Unprotected => 0,
            PathCode::DataProtected => 1,
            PathCode::Protected => 2,
            PathCode::Privacy => 3,
        }
    }

    pub fn from_code(code: u8) -> Self {
        match code & 3 {
            0 => PathCode::Unprotected,
            1 => PathCode::DataProtected,
            2 => PathCode::Protected,
            _ => PathCode::Privacy,
        }
    }
}

/// A Headroom Measurement PDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hmpdu {
    pub dst: MacAddr,
    pub src: MacAddr,
    /// Octet-3 Version (0 in this version; any version is processed as 0 but kept for display).
    pub version: u8,
    pub path: PathCode,
    /// Format Identifier bits 2-1: ignored on receipt (36.9.5) and kept only so that logs can
    /// show what a peer sent; [`Hmpdu::new`] sets 0, which is what the protocol sends, requests
    /// and responses alike (DECISIONS.md, "HMPDU Format Identifier bits 2-1").
    pub reserved: u8,
    pub tuple1: Option<HmpduTuple>,
    pub tuple2: Option<HmpduTuple>,
}

impl Hmpdu {
    /// A version-0 HMPDU to the MAC Control group address.
    pub fn new(
        src: MacAddr,
        path: PathCode,
        tuple1: Option<HmpduTuple>,
        tuple2: Option<HmpduTuple>,
    ) -> Self {
        Hmpdu { dst: super::MAC_CONTROL_GROUP, src, version: 0, path, reserved: 0, tuple1, tuple2 }
    }

    /// Parses a whole HMPDU frame. A subtype other than 1 is [`Error::UnknownHmpduSubtype`].
    pub fn parse(frame: &[u8]) -> Result<Self, Error> {
        let (header, payload) = EthernetHeader::parse(frame)?;
        if header.vlan.is_some() || header.ethertype != EtherType::HMPDU {
            let found = if header.vlan.is_some() { EtherType::VLAN } else { header.ethertype };
            return Err(Error::WrongEtherType { expected: EtherType::HMPDU, found });
        }
        let fields = Fields::new(payload, || Error::Truncated {
            what: "HMPDU header",
            needed: field::TUPLE_1.start,
            got: payload.len(),
        });
        let version_subtype = fields.u8(field::VERSION_SUBTYPE)?;
        let format = fields.u8(field::FORMAT)?;
        let subtype = version_subtype & field::SUBTYPE_MASK;
        if subtype != HMPDU_SUBTYPE {
            return Err(Error::UnknownHmpduSubtype(subtype));
        }
        let tuple1 =
            HmpduTuple::parse(format >> field::TUPLE_1_USE_SHIFT, payload, field::TUPLE_1, || {
                Error::Truncated {
                    what: "HMPDU tuple 1",
                    needed: field::TUPLE_1.end,
                    got: payload.len(),
                }
            })?;
        let tuple2 =
            HmpduTuple::parse(format >> field::TUPLE_2_USE_SHIFT, payload, field::TUPLE_2, || {
                Error::Truncated {
                    what: "HMPDU tuple 2",
                    needed: field::TUPLE_2.end,
                    got: payload.len(),
                }
            })?;
        Ok(Hmpdu {
            dst: header.dst,
            src: header.src,
            version: version_subtype >> field::VERSION_SHIFT,
            path: PathCode::from_code(format >> field::PATH_SHIFT),
            reserved: format & field::FORMAT_RESERVED_MASK,
            tuple1,
            tuple2,
        })
    }

    pub fn format_identifier(&self) -> u8 {
        let code = |t: &Option<HmpduTuple>| t.map_or(0, |t| t.kind.code());
        (code(&self.tuple1) << field::TUPLE_1_USE_SHIFT)
            | (code(&self.tuple2) << field::TUPLE_2_USE_SHIFT)
            | (self.path.code() << field::PATH_SHIFT)
            | (self.reserved & field::FORMAT_RESERVED_MASK)
    }

    pub fn buffer_len(&self) -> usize {
        frame_len(&self.header(), field::LEN)
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        emit_frame(&self.header(), field::LEN, buf, |payload| {
            payload[field::VERSION_SUBTYPE] =
                ((self.version & field::VERSION_MASK) << field::VERSION_SHIFT) | HMPDU_SUBTYPE;
            payload[field::FORMAT] = self.format_identifier();
            HmpduTuple::emit(&self.tuple1, &mut payload[field::TUPLE_1]);
            HmpduTuple::emit(&self.tuple2, &mut payload[field::TUPLE_2]);
        })
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut buf = vec![0u8; self.buffer_len()];
        // Sized from buffer_len, untagged header: emit cannot fail.
        let _ = self.emit(&mut buf);
        buf
    }

    fn header(&self) -> EthernetHeader {
        EthernetHeader { dst: self.dst, src: self.src, vlan: None, ethertype: EtherType::HMPDU }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn request_in_tuple1_on_protected_path() {
        let pdu =
            Hmpdu::new(SA, PathCode::Protected, Some(HmpduTuple::request(0x0102_0304, -3)), None);
        let mut expected =
            hex("0180c2000001 02000000000a 89a2 01 c8 01020304 fffd 0000 0000000000000000");
        expected.resize(60, 0);
        assert_eq!(pdu.format_identifier(), 0b1100_1000);
        assert_eq!(pdu.to_vec(), expected);
        assert_eq!(Hmpdu::parse(&expected), Ok(pdu));
    }

    #[test]
    fn response_reflects_request_and_picks_use_code() {
        let request = HmpduTuple::request(77, 5);
        let zero = request.respond(0);
        assert_eq!(zero.kind, TupleUse::ResponseNoAdjustment);
        assert_eq!((zero.request_timestamp, zero.request_adjustment), (77, 5));
        let adjusted = request.respond(-9);
        assert_eq!(adjusted.kind, TupleUse::Response);
        assert_eq!(adjusted.response_adjustment, -9);
    }

    #[test]
    fn response_adjustment_ignored_for_code_1() {
        // Tuple 1 is a code-1 response whose Response Adjustment field holds 4: ignored.
        let mut bytes = hex("0180c2000001 02000000000a 89a2 01 40 00000009 0002 0004");
        bytes.resize(60, 0);
        let pdu = Hmpdu::parse(&bytes).expect("parses");
        let t = pdu.tuple1.expect("tuple 1 in use");
        assert_eq!((t.kind, t.response_adjustment), (TupleUse::ResponseNoAdjustment, 0));
    }

    #[test]
    fn any_version_is_accepted_and_kept() {
        let mut bytes =
            hex("0180c2000001 02000000000a 89a2 31 e0 00000001 0000 0000 00000002 0000 0007");
        bytes.resize(60, 0);
        let pdu = Hmpdu::parse(&bytes).expect("version 3 is processed");
        assert_eq!(pdu.version, 3);
        assert_eq!(pdu.tuple1.map(|t| t.kind), Some(TupleUse::Request));
        assert_eq!(
            pdu.tuple2.map(|t| (t.kind, t.request_timestamp, t.response_adjustment)),
            Some((TupleUse::Response, 2, 7))
        );
        assert_eq!(pdu.to_vec(), bytes);
    }

    #[test]
    fn other_subtype_is_a_cim_not_an_hmpdu() {
        let mut bytes = hex("0180c2000001 02000000000a 89a2 02 c0");
        bytes.resize(60, 0);
        assert_eq!(Hmpdu::parse(&bytes), Err(Error::UnknownHmpduSubtype(2)));
    }

    #[test]
    fn tuple2_in_use_but_missing_is_truncated() {
        let bytes = hex("0180c2000001 02000000000a 89a2 01 f0 00000001 0000 0000 0000");
        assert_eq!(
            Hmpdu::parse(&bytes),
            Err(Error::Truncated { what: "HMPDU tuple 2", needed: 18, got: 12 })
        );
    }

    #[test]
    fn unused_tuple2_may_be_absent() {
        let bytes = hex("0180c2000001 02000000000a 89a2 01 c0 00000001 0000 0000");
        let pdu = Hmpdu::parse(&bytes).expect("tuple 2 unused and absent is legal");
        assert_eq!(pdu.tuple2, None);
    }
}
