//! Chassis ID (type 1) and Port ID (type 2) TLVs, IEEE 802.1AB 8.5.2 and 8.5.3.
//!
//! ```text
//! +-------------+-----------------+---------+-------------------------------+
//! | type 1 or 2 | length (9 bits) | subtype | ID (1..=255 octets)           |
//! | (7 bits)    | = 2..=256       | 1 octet |                               |
//! +-------------+-----------------+---------+-------------------------------+
//!
//! Chassis ID subtypes: 1 chassis component   2 interface alias   3 port component
//!                      4 MAC address         5 network address   6 interface name
//!                      7 locally assigned
//! Port ID subtypes:    1 interface alias     2 port component    3 MAC address
//!                      4 network address     5 interface name    6 agent circuit ID
//!                      7 locally assigned
//! Network address ID:  | IANA address family (1 octet) | address ... |
//! ```
//!
//! Decisions where 802.1AB leaves room:
//! - A reserved subtype (0, 8-255) is kept verbatim as `Other` and re-emitted as received.
//! - So is a MAC-address subtype whose ID is not exactly 6 octets: the ID is not lost and the
//!   LLDPDU is not discarded over it. Parsing therefore never yields `Other` with the MAC
//!   subtype and a 6-octet ID (that is always `MacAddress`).
//! - A network address of family 1 with 4 octets is IPv4, family 2 with 16 octets is IPv6; any
//!   other family or length is kept verbatim as [`NetworkAddress::Other`].
//! - An information string length outside 2..=256 (an empty or over-long ID) is
//!   [`Error::BadLength`]; both TLVs are mandatory, so the LLDPDU is discarded.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use std::ops::RangeInclusive;

use pfc_wire::{Fields, MacAddr};

use super::tlv::{tlv_repr, Info};
use super::write::Writer;
use super::{Error, Text, TlvType};

/// Where the fields of the Chassis ID and Port ID TLVs lie (IEEE 802.1AB 8.5.2, 8.5.3), counted
/// from the start of the information string; and those of a network address inside them or in a
/// Management Address TLV.
mod field {
    use pfc_wire::{Field, Rest};

    /// The ID subtype.
    pub const SUBTYPE: usize = 0;
    /// The ID.
    pub const ID: Rest = 1..;
    /// An ID of `len` octets.
    pub const fn id(len: usize) -> Field {
        ID.start..ID.start + len
    }

    /// A network address: IANA address family, then the address.
    pub mod network_address {
        use pfc_wire::Rest;

        /// The IANA address family number.
        pub const FAMILY: usize = 0;
        /// The address.
        pub const ADDRESS: Rest = 1..;
    }
}

const ID_LENGTHS: &str = "2 to 256 (a subtype octet and a 1- to 255-octet ID)";
/// The lengths an ID may have.
const ID_LEN: RangeInclusive<usize> = 1..=255;

/// An address with its IANA address family number, as Chassis ID subtype 5, Port ID subtype 4
/// and the Management Address TLV carry it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NetworkAddress {
    /// Family 1 with a 4-octet address.
    Ipv4(Ipv4Addr),
    /// Family 2 with a 16-octet address.
    Ipv6(Ipv6Addr),
    /// Any other family, or family 1 or 2 with another length: kept verbatim.
    Other { family: u8, address: Vec<u8> },
}

impl NetworkAddress {
    /// IANA address family number of IPv4.
    pub const FAMILY_IPV4: u8 = 1;
    /// IANA address family number of IPv6.
    pub const FAMILY_IPV6: u8 = 2;
    /// IANA address family number of IEEE 802 MAC addresses.
    pub const FAMILY_802: u8 = 6;

    /// Reads the family octet and the address after it; `None` for no octets at all.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let family = *bytes.get(field::network_address::FAMILY)?;
        let address = bytes.get(field::network_address::ADDRESS)?;
        Some(match (family, address.len()) {
            (Self::FAMILY_IPV4, 4) => {
                let mut a = [0u8; 4];
                a.copy_from_slice(address);
                NetworkAddress::Ipv4(Ipv4Addr::from(a))
            }
            (Self::FAMILY_IPV6, 16) => {
                let mut a = [0u8; 16];
                a.copy_from_slice(address);
                NetworkAddress::Ipv6(Ipv6Addr::from(a))
            }
            _ => NetworkAddress::Other { family, address: address.to_vec() },
        })
    }

    pub fn family(&self) -> u8 {
        match self {
            NetworkAddress::Ipv4(_) => Self::FAMILY_IPV4,
            NetworkAddress::Ipv6(_) => Self::FAMILY_IPV6,
            NetworkAddress::Other { family, .. } => *family,
        }
    }

    /// The address octets, without the family octet.
    pub fn address(&self) -> Vec<u8> {
        match self {
            NetworkAddress::Ipv4(a) => a.octets().to_vec(),
            NetworkAddress::Ipv6(a) => a.octets().to_vec(),
            NetworkAddress::Other { address, .. } => address.clone(),
        }
    }

    /// Octets on the wire: the family octet and the address.
    pub fn len(&self) -> usize {
        field::network_address::ADDRESS.start
            + match self {
                NetworkAddress::Ipv4(_) => 4,
                NetworkAddress::Ipv6(_) => 16,
                NetworkAddress::Other { address, .. } => address.len(),
            }
    }

    /// Never true: there is always the family octet.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the family and the address, counted from the writer's start.
    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.u8(field::network_address::FAMILY, self.family());
        w.put_rest(field::network_address::ADDRESS, &self.address());
    }
}

impl From<std::net::IpAddr> for NetworkAddress {
    fn from(ip: std::net::IpAddr) -> Self {
        match ip {
            std::net::IpAddr::V4(a) => NetworkAddress::Ipv4(a),
            std::net::IpAddr::V6(a) => NetworkAddress::Ipv6(a),
        }
    }
}

impl fmt::Display for NetworkAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkAddress::Ipv4(a) => write!(f, "{a}"),
            NetworkAddress::Ipv6(a) => write!(f, "{a}"),
            NetworkAddress::Other { family, address } => {
                write!(f, "family {family}:")?;
                for o in address {
                    write!(f, " {o:02x}")?;
                }
                Ok(())
            }
        }
    }
}

/// Splits a Chassis or Port ID information string into subtype and ID after the length check.
fn split_id<'a>(tlv: &'static str, info: &'a [u8]) -> Result<(u8, &'a [u8]), Error> {
    let bad = || Error::BadLength { tlv, len: info.len(), expected: ID_LENGTHS };
    let fields = Fields::new(info, bad);
    let subtype = fields.u8(field::SUBTYPE)?;
    let id = fields.rest(field::ID)?;
    if !ID_LEN.contains(&id.len()) {
        return Err(bad());
    }
    Ok((subtype, id))
}

fn mac_from(id: &[u8]) -> Option<MacAddr> {
    <[u8; 6]>::try_from(id).ok().map(MacAddr)
}

fn check_id_len(tlv: &'static str, id_len: usize) -> Result<(), Error> {
    if !ID_LEN.contains(&id_len) {
        return Err(Error::BadLength { tlv, len: field::id(id_len).end, expected: ID_LENGTHS });
    }
    Ok(())
}

/// The Chassis ID TLV (type 1): identifies the sending system.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ChassisId {
    /// Subtype 1: entPhysicalAlias of a chassis component.
    ChassisComponent(Text),
    /// Subtype 2: ifAlias of an interface.
    InterfaceAlias(Text),
    /// Subtype 3: entPhysicalAlias of a port or backplane component.
    PortComponent(Text),
    /// Subtype 4: a MAC address (the usual choice; pfcd sends the bridge address).
    MacAddress(MacAddr),
    /// Subtype 5: a network address with its IANA family.
    NetworkAddress(NetworkAddress),
    /// Subtype 6: ifName of an interface.
    InterfaceName(Text),
    /// Subtype 7: a locally assigned string.
    Local(Text),
    /// A reserved subtype, or subtype 4 with an ID that is not 6 octets: kept verbatim.
    Other { subtype: u8, id: Vec<u8> },
}

impl ChassisId {
    pub const CHASSIS_COMPONENT: u8 = 1;
    pub const INTERFACE_ALIAS: u8 = 2;
    pub const PORT_COMPONENT: u8 = 3;
    pub const MAC_ADDRESS: u8 = 4;
    pub const NETWORK_ADDRESS: u8 = 5;
    pub const INTERFACE_NAME: u8 = 6;
    pub const LOCAL: u8 = 7;

    pub fn subtype(&self) -> u8 {
        match self {
            ChassisId::ChassisComponent(_) => Self::CHASSIS_COMPONENT,
            ChassisId::InterfaceAlias(_) => Self::INTERFACE_ALIAS,
            ChassisId::PortComponent(_) => Self::PORT_COMPONENT,
            ChassisId::MacAddress(_) => Self::MAC_ADDRESS,
            ChassisId::NetworkAddress(_) => Self::NETWORK_ADDRESS,
            ChassisId::InterfaceName(_) => Self::INTERFACE_NAME,
            ChassisId::Local(_) => Self::LOCAL,
            ChassisId::Other { subtype, .. } => *subtype,
        }
    }

    fn id_len(&self) -> usize {
        match self {
            ChassisId::ChassisComponent(t)
            | ChassisId::InterfaceAlias(t)
            | ChassisId::PortComponent(t)
            | ChassisId::InterfaceName(t)
            | ChassisId::Local(t) => t.len(),
            ChassisId::MacAddress(_) => 6,
            ChassisId::NetworkAddress(a) => a.len(),
            ChassisId::Other { id, .. } => id.len(),
        }
    }
}

impl Info for ChassisId {
    const TLV_TYPE: TlvType = TlvType::CHASSIS_ID;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        let (subtype, id) = split_id("Chassis ID", info)?;
        let text = || Text(id.to_vec());
        let other = || ChassisId::Other { subtype, id: id.to_vec() };
        Ok(match subtype {
            Self::CHASSIS_COMPONENT => ChassisId::ChassisComponent(text()),
            Self::INTERFACE_ALIAS => ChassisId::InterfaceAlias(text()),
            Self::PORT_COMPONENT => ChassisId::PortComponent(text()),
            Self::MAC_ADDRESS => mac_from(id).map_or_else(other, ChassisId::MacAddress),
            Self::NETWORK_ADDRESS => {
                NetworkAddress::from_bytes(id).map_or_else(other, ChassisId::NetworkAddress)
            }
            Self::INTERFACE_NAME => ChassisId::InterfaceName(text()),
            Self::LOCAL => ChassisId::Local(text()),
            _ => other(),
        })
    }

    fn info_len(&self) -> usize {
        field::id(self.id_len()).end
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        check_id_len("Chassis ID", self.id_len())?;
        w.u8(field::SUBTYPE, self.subtype());
        match self {
            ChassisId::ChassisComponent(t)
            | ChassisId::InterfaceAlias(t)
            | ChassisId::PortComponent(t)
            | ChassisId::InterfaceName(t)
            | ChassisId::Local(t) => w.put_rest(field::ID, t.as_bytes()),
            ChassisId::MacAddress(mac) => w.put_rest(field::ID, &mac.0),
            ChassisId::NetworkAddress(a) => w.nested(field::id(a.len()), |w| a.write(w)),
            ChassisId::Other { id, .. } => w.put_rest(field::ID, id),
        }
        Ok(())
    }
}

tlv_repr!(ChassisId);

impl fmt::Display for ChassisId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChassisId::ChassisComponent(t) => write!(f, "chassis-component {t}"),
            ChassisId::InterfaceAlias(t) => write!(f, "interface-alias {t}"),
            ChassisId::PortComponent(t) => write!(f, "port-component {t}"),
            ChassisId::MacAddress(m) => write!(f, "mac-address {m}"),
            ChassisId::NetworkAddress(a) => write!(f, "network-address {a}"),
            ChassisId::InterfaceName(t) => write!(f, "interface-name {t}"),
            ChassisId::Local(t) => write!(f, "local {t}"),
            ChassisId::Other { subtype, id } => write!(f, "subtype {subtype} {}", hex_str(id)),
        }
    }
}

/// The Port ID TLV (type 2): identifies the sending port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PortId {
    /// Subtype 1: ifAlias.
    InterfaceAlias(Text),
    /// Subtype 2: entPhysicalAlias of a port component.
    PortComponent(Text),
    /// Subtype 3: the port's MAC address.
    MacAddress(MacAddr),
    /// Subtype 4: a network address with its IANA family.
    NetworkAddress(NetworkAddress),
    /// Subtype 5: ifName (the usual choice; pfcd sends the port name).
    InterfaceName(Text),
    /// Subtype 6: an agent circuit ID (RFC 3046), binary.
    AgentCircuitId(Vec<u8>),
    /// Subtype 7: a locally assigned string.
    Local(Text),
    /// A reserved subtype, or subtype 3 with an ID that is not 6 octets: kept verbatim.
    Other { subtype: u8, id: Vec<u8> },
}

impl PortId {
    pub const INTERFACE_ALIAS: u8 = 1;
    pub const PORT_COMPONENT: u8 = 2;
    pub const MAC_ADDRESS: u8 = 3;
    pub const NETWORK_ADDRESS: u8 = 4;
    pub const INTERFACE_NAME: u8 = 5;
    pub const AGENT_CIRCUIT_ID: u8 = 6;
    pub const LOCAL: u8 = 7;

    pub fn subtype(&self) -> u8 {
        match self {
            PortId::InterfaceAlias(_) => Self::INTERFACE_ALIAS,
            PortId::PortComponent(_) => Self::PORT_COMPONENT,
            PortId::MacAddress(_) => Self::MAC_ADDRESS,
            PortId::NetworkAddress(_) => Self::NETWORK_ADDRESS,
            PortId::InterfaceName(_) => Self::INTERFACE_NAME,
            PortId::AgentCircuitId(_) => Self::AGENT_CIRCUIT_ID,
            PortId::Local(_) => Self::LOCAL,
            PortId::Other { subtype, .. } => *subtype,
        }
    }

    fn id_len(&self) -> usize {
        match self {
            PortId::InterfaceAlias(t)
            | PortId::PortComponent(t)
            | PortId::InterfaceName(t)
            | PortId::Local(t) => t.len(),
            PortId::MacAddress(_) => 6,
            PortId::NetworkAddress(a) => a.len(),
            PortId::AgentCircuitId(id) | PortId::Other { id, .. } => id.len(),
        }
    }
}

impl Info for PortId {
    const TLV_TYPE: TlvType = TlvType::PORT_ID;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        let (subtype, id) = split_id("Port ID", info)?;
        let text = || Text(id.to_vec());
        let other = || PortId::Other { subtype, id: id.to_vec() };
        Ok(match subtype {
            Self::INTERFACE_ALIAS => PortId::InterfaceAlias(text()),
            Self::PORT_COMPONENT => PortId::PortComponent(text()),
            Self::MAC_ADDRESS => mac_from(id).map_or_else(other, PortId::MacAddress),
            Self::NETWORK_ADDRESS => {
                NetworkAddress::from_bytes(id).map_or_else(other, PortId::NetworkAddress)
            }
            Self::INTERFACE_NAME => PortId::InterfaceName(text()),
            Self::AGENT_CIRCUIT_ID => PortId::AgentCircuitId(id.to_vec()),
            Self::LOCAL => PortId::Local(text()),
            _ => other(),
        })
    }

    fn info_len(&self) -> usize {
        field::id(self.id_len()).end
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        check_id_len("Port ID", self.id_len())?;
        w.u8(field::SUBTYPE, self.subtype());
        match self {
            PortId::InterfaceAlias(t)
            | PortId::PortComponent(t)
            | PortId::InterfaceName(t)
            | PortId::Local(t) => w.put_rest(field::ID, t.as_bytes()),
            PortId::MacAddress(mac) => w.put_rest(field::ID, &mac.0),
            PortId::NetworkAddress(a) => w.nested(field::id(a.len()), |w| a.write(w)),
            PortId::AgentCircuitId(id) | PortId::Other { id, .. } => w.put_rest(field::ID, id),
        }
        Ok(())
    }
}

tlv_repr!(PortId);

impl fmt::Display for PortId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortId::InterfaceAlias(t) => write!(f, "interface-alias {t}"),
            PortId::PortComponent(t) => write!(f, "port-component {t}"),
            PortId::MacAddress(m) => write!(f, "mac-address {m}"),
            PortId::NetworkAddress(a) => write!(f, "network-address {a}"),
            PortId::InterfaceName(t) => write!(f, "interface-name {t}"),
            PortId::AgentCircuitId(id) => write!(f, "agent-circuit-id {}", hex_str(id)),
            PortId::Local(t) => write!(f, "local {t}"),
            PortId::Other { subtype, id } => write!(f, "subtype {subtype} {}", hex_str(id)),
        }
    }
}

fn hex_str(octets: &[u8]) -> String {
    octets.iter().map(|o| format!("{o:02x}")).collect::<Vec<_>>().join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    fn round_trip_chassis(bytes: &str, expected: ChassisId) {
        let bytes = hex(bytes);
        let (id, rest) = ChassisId::parse(&bytes).expect("parses");
        assert!(rest.is_empty());
        assert_eq!(id, expected);
        assert_eq!(id.buffer_len(), bytes.len());
        assert_eq!(id.to_vec(), Ok(bytes));
    }

    fn round_trip_port(bytes: &str, expected: PortId) {
        let bytes = hex(bytes);
        let (id, rest) = PortId::parse(&bytes).expect("parses");
        assert!(rest.is_empty());
        assert_eq!(id, expected);
        assert_eq!(id.to_vec(), Ok(bytes));
    }

    #[test]
    fn every_chassis_id_subtype() {
        round_trip_chassis("0205 01 63683031", ChassisId::ChassisComponent("ch01".into()));
        round_trip_chassis("0204 02 757031", ChassisId::InterfaceAlias("up1".into()));
        round_trip_chassis("0203 03 6c63", ChassisId::PortComponent("lc".into()));
        round_trip_chassis(
            "0207 04 020000000001",
            ChassisId::MacAddress(MacAddr([2, 0, 0, 0, 0, 1])),
        );
        round_trip_chassis(
            "0206 05 01 c0000201",
            ChassisId::NetworkAddress(NetworkAddress::Ipv4(Ipv4Addr::new(192, 0, 2, 1))),
        );
        round_trip_chassis(
            "0212 05 02 20010db8000000000000000000000001",
            ChassisId::NetworkAddress(NetworkAddress::Ipv6(Ipv6Addr::new(
                0x2001, 0xdb8, 0, 0, 0, 0, 0, 1,
            ))),
        );
        round_trip_chassis("0205 06 65746830", ChassisId::InterfaceName("eth0".into()));
        round_trip_chassis("0204 07 737731", ChassisId::Local("sw1".into()));
    }

    #[test]
    fn every_port_id_subtype() {
        round_trip_port("0404 01 757031", PortId::InterfaceAlias("up1".into()));
        round_trip_port("0403 02 7031", PortId::PortComponent("p1".into()));
        round_trip_port("0407 03 020000000002", PortId::MacAddress(MacAddr([2, 0, 0, 0, 0, 2])));
        round_trip_port(
            "0406 04 01 c0000202",
            PortId::NetworkAddress(NetworkAddress::Ipv4(Ipv4Addr::new(192, 0, 2, 2))),
        );
        round_trip_port("0405 05 65746830", PortId::InterfaceName("eth0".into()));
        round_trip_port("0404 06 010203", PortId::AgentCircuitId(vec![1, 2, 3]));
        round_trip_port("0403 07 3137", PortId::Local("17".into()));
    }

    #[test]
    fn unknown_subtypes_and_odd_macs_are_kept_raw() {
        round_trip_chassis("0203 09 abcd", ChassisId::Other { subtype: 9, id: vec![0xab, 0xcd] });
        round_trip_chassis("0202 00 ff", ChassisId::Other { subtype: 0, id: vec![0xff] });
        // A MAC-address chassis ID of 5 octets: kept, not refused.
        round_trip_chassis(
            "0206 04 0200000000",
            ChassisId::Other { subtype: 4, id: vec![2, 0, 0, 0, 0] },
        );
        round_trip_port("0403 08 0102", PortId::Other { subtype: 8, id: vec![1, 2] });
        // Family 1 with 3 octets is not an IPv4 address.
        round_trip_port(
            "0405 04 01 0a0000",
            PortId::NetworkAddress(NetworkAddress::Other { family: 1, address: vec![10, 0, 0] }),
        );
    }

    #[test]
    fn empty_and_missing_ids_are_bad_lengths() {
        let expected = |len| Error::BadLength { tlv: "Chassis ID", len, expected: ID_LENGTHS };
        assert_eq!(ChassisId::parse(&hex("0201 04")), Err(expected(1)));
        assert_eq!(ChassisId::parse(&hex("0200")), Err(expected(0)));
        assert_eq!(ChassisId::Local(Text::default()).to_vec(), Err(expected(1)));
        assert_eq!(ChassisId::Local(Text(vec![b'x'; 256])).to_vec(), Err(expected(257)));
        assert_eq!(
            PortId::parse(&hex("0401 05")),
            Err(Error::BadLength { tlv: "Port ID", len: 1, expected: ID_LENGTHS })
        );
    }

    #[test]
    fn wrong_type_is_refused_by_typed_parser() {
        assert_eq!(
            PortId::parse(&hex("0207 04 020000000001")),
            Err(Error::WrongTlvType { expected: TlvType::PORT_ID, found: TlvType::CHASSIS_ID })
        );
    }

    #[test]
    fn ids_display_for_humans() {
        assert_eq!(
            ChassisId::MacAddress(MacAddr([2, 0, 0, 0, 0, 1])).to_string(),
            "mac-address 02-00-00-00-00-01"
        );
        assert_eq!(PortId::InterfaceName("eth0".into()).to_string(), "interface-name eth0");
        assert_eq!(
            PortId::Other { subtype: 9, id: vec![0xab, 0x01] }.to_string(),
            "subtype 9 ab-01"
        );
    }
}
