//! The EtherType (IEEE 802.3 3.2.6 Length/Type) and the ones the project speaks.

use std::fmt;

/// An EtherType (Length/Type field at or above 0x0600).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EtherType(pub u16);

impl EtherType {
    pub const VLAN: EtherType = EtherType(0x8100);
    pub const MAC_CONTROL: EtherType = EtherType(0x8808);
    pub const LLDP: EtherType = EtherType(0x88cc);
    pub const HMPDU: EtherType = EtherType(0x89a2);
}

impl fmt::Display for EtherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02x}-{:02x}", self.0 >> 8, self.0 & 0xff)
    }
}

impl fmt::Debug for EtherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EtherType(0x{:04x})", self.0)
    }
}
