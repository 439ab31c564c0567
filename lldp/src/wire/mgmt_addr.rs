//! The Management Address TLV (type 8), IEEE 802.1AB 8.5.9.
//!
//! ```text
//! +------+--------+-----------+---------+-----------+-----------+-----------+--------+----------+
//! | 8    | length | address   | address | address   | interface | interface | OID    | object   |
//! |      | 9..=167| string len| subtype | 1..=31    | numbering | number    | string | identif. |
//! |      |        | (2..=32)  | (IANA   | octets    | subtype   | (u32)     | length | 0..=128  |
//! |      |        | 1 octet   | family) |           | 1 octet   | 4 octets  | 1 octet| octets   |
//! +------+--------+-----------+---------+-----------+-----------+-----------+--------+----------+
//!   the address string length counts the subtype octet and the address
//!   interface numbering subtype: 1 unknown, 2 ifIndex, 3 system port number
//! ```
//!
//! Decisions: the object identifier is kept as its BER-encoded octets, not decoded. A TLV whose
//! inner lengths do not add up to its own length (too short for them, or octets after the OID)
//! is [`Error::BadLength`]; an address string length outside 2..=32 or an OID string length
//! above 128 is [`Error::FieldOutOfRange`]. The same limits are checked on emit.

use pfc_wire::Fields;

use super::tlv::{tlv_repr, Info};
use super::write::Writer;
use super::{Error, NetworkAddress, TlvType};

/// Where the Management Address TLV's fields lie (IEEE 802.1AB 8.5.9), counted from the start
/// of the information string. All but the first follow a string whose length a field gives, so
/// they are functions of those lengths.
mod field {
    use pfc_wire::Field;

    /// Management address string length: the subtype octet and the address.
    pub const ADDRESS_STRING_LENGTH: usize = 0;
    /// Management address subtype (the IANA family) and address, `address_len` octets.
    pub const fn address_string(address_len: usize) -> Field {
        ADDRESS_STRING_LENGTH + 1..ADDRESS_STRING_LENGTH + 1 + address_len
    }
    /// Interface numbering subtype.
    pub const fn interface_numbering(address_len: usize) -> usize {
        address_string(address_len).end
    }
    /// Interface number.
    pub const fn interface_number(address_len: usize) -> Field {
        let at = interface_numbering(address_len) + 1;
        at..at + 4
    }
    /// OID string length.
    pub const fn oid_string_length(address_len: usize) -> usize {
        interface_number(address_len).end
    }
    /// Object identifier, `oid_len` octets.
    pub const fn oid(address_len: usize, oid_len: usize) -> Field {
        let at = oid_string_length(address_len) + 1;
        at..at + oid_len
    }
}

const LENGTHS: &str = "9 plus its address and OID string lengths, with nothing after the OID";
const ADDRESS_LENGTHS: &str = "2 to 32 (a subtype octet and a 1- to 31-octet address)";
const MAX_OID_LEN: u8 = 128;

/// How the interface number of a Management Address TLV is numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InterfaceNumbering(pub u8);

impl InterfaceNumbering {
    pub const UNKNOWN: InterfaceNumbering = InterfaceNumbering(1);
    pub const IF_INDEX: InterfaceNumbering = InterfaceNumbering(2);
    pub const SYSTEM_PORT_NUMBER: InterfaceNumbering = InterfaceNumbering(3);
}

/// The Management Address TLV: an address at which the sending system can be managed. An LLDPDU
/// may carry several.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ManagementAddress {
    /// The address and its IANA family (the "management address subtype").
    pub address: NetworkAddress,
    pub interface_numbering: InterfaceNumbering,
    /// The interface the address belongs to, numbered as `interface_numbering` says.
    pub interface_number: u32,
    /// The object identifier of the hardware component or protocol entity, BER-encoded; empty
    /// when none is given.
    pub oid: Vec<u8>,
}

impl Info for ManagementAddress {
    const TLV_TYPE: TlvType = TlvType::MANAGEMENT_ADDRESS;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        let bad =
            || Error::BadLength { tlv: "Management Address", len: info.len(), expected: LENGTHS };
        let fields = Fields::new(info, bad);
        let address_len = fields.u8(field::ADDRESS_STRING_LENGTH)?;
        if !(2..=32).contains(&address_len) {
            return Err(Error::FieldOutOfRange {
                field: "Management Address string length",
                value: u32::from(address_len),
                allowed: ADDRESS_LENGTHS,
            });
        }
        let a = usize::from(address_len);
        let address = fields.octets(field::address_string(a))?;
        let numbering = fields.u8(field::interface_numbering(a))?;
        let interface_number = fields.u32(field::interface_number(a))?;
        let oid_len = fields.u8(field::oid_string_length(a))?;
        if oid_len > MAX_OID_LEN {
            return Err(Error::FieldOutOfRange {
                field: "Management Address OID string length",
                value: u32::from(oid_len),
                allowed: "0 to 128",
            });
        }
        let oid_at = field::oid(a, usize::from(oid_len));
        let oid = fields.octets(oid_at.clone())?;
        if info.len() != oid_at.end {
            return Err(bad());
        }
        let address = NetworkAddress::from_bytes(address).ok_or_else(bad)?;
        Ok(ManagementAddress {
            address,
            interface_numbering: InterfaceNumbering(numbering),
            interface_number,
            oid: oid.to_vec(),
        })
    }

    fn info_len(&self) -> usize {
        field::oid(self.address.len(), self.oid.len()).end
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        let address_len = self.address.len();
        let address_len = match u8::try_from(address_len) {
            Ok(l) if (2..=32).contains(&l) => l,
            _ => {
                return Err(Error::FieldOutOfRange {
                    field: "Management Address string length",
                    value: u32::try_from(address_len).unwrap_or(u32::MAX),
                    allowed: ADDRESS_LENGTHS,
                })
            }
        };
        let oid_len = match u8::try_from(self.oid.len()) {
            Ok(l) if l <= MAX_OID_LEN => l,
            _ => {
                return Err(Error::FieldOutOfRange {
                    field: "Management Address OID string length",
                    value: u32::try_from(self.oid.len()).unwrap_or(u32::MAX),
                    allowed: "0 to 128",
                })
            }
        };
        let a = usize::from(address_len);
        w.u8(field::ADDRESS_STRING_LENGTH, address_len);
        w.nested(field::address_string(a), |w| self.address.write(w));
        w.u8(field::interface_numbering(a), self.interface_numbering.0);
        w.u32(field::interface_number(a), self.interface_number);
        w.u8(field::oid_string_length(a), oid_len);
        w.put(field::oid(a, usize::from(oid_len)), &self.oid);
        Ok(())
    }
}

tlv_repr!(ManagementAddress);

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn ipv4_on_ifindex_without_oid() {
        let bytes = hex("100c 05 01 c0000201 02 00000003 00");
        let expected = ManagementAddress {
            address: NetworkAddress::Ipv4(Ipv4Addr::new(192, 0, 2, 1)),
            interface_numbering: InterfaceNumbering::IF_INDEX,
            interface_number: 3,
            oid: vec![],
        };
        assert_eq!(ManagementAddress::parse(&bytes), Ok((expected.clone(), &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes));
    }

    #[test]
    fn mac_address_with_oid() {
        // Family 6 (IEEE 802), OID 1.3.6.1.4.1 BER-encoded as 2b 06 01 04 01.
        let bytes = hex("1013 07 06 020000000001 01 00000000 05 2b06010401");
        let (m, _) = ManagementAddress::parse(&bytes).expect("parses");
        assert_eq!(m.address, NetworkAddress::Other { family: 6, address: vec![2, 0, 0, 0, 0, 1] });
        assert_eq!(m.interface_numbering, InterfaceNumbering::UNKNOWN);
        assert_eq!(m.oid, vec![0x2b, 6, 1, 4, 1]);
        assert_eq!(m.to_vec(), Ok(bytes));
    }

    #[test]
    fn inner_lengths_that_do_not_add_up_are_bad_lengths() {
        let bad = |len| Error::BadLength { tlv: "Management Address", len, expected: LENGTHS };
        // OID length says 1 but nothing follows.
        assert_eq!(
            ManagementAddress::parse(&hex("100c 05 01 c0000201 02 00000003 01")),
            Err(bad(12))
        );
        // An octet after the OID.
        assert_eq!(
            ManagementAddress::parse(&hex("100d 05 01 c0000201 02 00000003 00 ff")),
            Err(bad(13))
        );
        assert_eq!(ManagementAddress::parse(&hex("1000")), Err(bad(0)));
    }

    #[test]
    fn address_and_oid_lengths_out_of_range() {
        assert_eq!(
            ManagementAddress::parse(&hex("1008 01 01 02 00000003 00")),
            Err(Error::FieldOutOfRange {
                field: "Management Address string length",
                value: 1,
                allowed: ADDRESS_LENGTHS
            })
        );
        let m = ManagementAddress {
            address: NetworkAddress::Ipv4(Ipv4Addr::LOCALHOST),
            interface_numbering: InterfaceNumbering::UNKNOWN,
            interface_number: 0,
            oid: vec![0; 129],
        };
        assert_eq!(
            m.to_vec(),
            Err(Error::FieldOutOfRange {
                field: "Management Address OID string length",
                value: 129,
                allowed: "0 to 128"
            })
        );
    }
}
