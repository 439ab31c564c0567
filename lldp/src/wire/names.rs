//! The names of things on the LLDP wire that everything else refers to, the errors included:
//! a TLV's type (802.1AB 8.4.1) and an organization's identifier (8.6.1.3).

use std::fmt;

/// A TLV type (7 bits).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TlvType(pub u8);

impl TlvType {
    pub const END: TlvType = TlvType(0);
    pub const CHASSIS_ID: TlvType = TlvType(1);
    pub const PORT_ID: TlvType = TlvType(2);
    pub const TTL: TlvType = TlvType(3);
    pub const PORT_DESCRIPTION: TlvType = TlvType(4);
    pub const SYSTEM_NAME: TlvType = TlvType(5);
    pub const SYSTEM_DESCRIPTION: TlvType = TlvType(6);
    pub const SYSTEM_CAPABILITIES: TlvType = TlvType(7);
    pub const MANAGEMENT_ADDRESS: TlvType = TlvType(8);
    pub const ORG_SPECIFIC: TlvType = TlvType(127);

    /// The name 802.1AB gives this type, if it gives one (types 9 to 126 are reserved).
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "End Of LLDPDU",
            1 => "Chassis ID",
            2 => "Port ID",
            3 => "Time To Live",
            4 => "Port Description",
            5 => "System Name",
            6 => "System Description",
            7 => "System Capabilities",
            8 => "Management Address",
            127 => "Organizationally Specific",
            _ => return None,
        })
    }

    /// True for the types every LLDPDU opens with: Chassis ID, Port ID, TTL.
    pub fn is_mandatory(self) -> bool {
        (1..=3).contains(&self.0)
    }
}

impl fmt::Display for TlvType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "reserved type {}", self.0),
        }
    }
}

impl fmt::Debug for TlvType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TlvType({})", self.0)
    }
}

/// An IEEE Organizationally Unique Identifier (or Company ID), shown as `00-80-c2`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Oui(pub [u8; 3]);

impl Oui {
    /// 00-80-C2: IEEE 802.1 (ETS, PFC, Application Priority, PFC Local Delay, ...).
    pub const IEEE_802_1: Oui = Oui([0x00, 0x80, 0xc2]);
    /// 00-12-0F: IEEE 802.3 (MAC/PHY configuration, maximum frame size, ...).
    pub const IEEE_802_3: Oui = Oui([0x00, 0x12, 0x0f]);
}

impl fmt::Display for Oui {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02x}-{:02x}-{:02x}", self.0[0], self.0[1], self.0[2])
    }
}

impl fmt::Debug for Oui {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Oui({self})")
    }
}
