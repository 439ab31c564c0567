//! The small basic TLVs of IEEE 802.1AB 8.5: Time To Live, the three strings, and System
//! Capabilities. (Chassis ID and Port ID are in `ids`, Management Address in `mgmt_addr`.)
//!
//! ```text
//! Time To Live (type 3, length 2):
//! +-------+---------+-------------------------------+
//! | 3     | 2       | TTL, seconds (u16); 0 = shutdown |
//! +-------+---------+-------------------------------+
//!
//! Port Description (4), System Name (5), System Description (6):
//! +-------+---------+-------------------------------+
//! | 4/5/6 | n       | string, n octets               |
//! +-------+---------+-------------------------------+
//!
//! System Capabilities (type 7, length 4):
//! +-------+---------+------------------+------------------+
//! | 7     | 4       | capabilities u16 | enabled u16      |
//! +-------+---------+------------------+------------------+
//! bit 1 other, 2 repeater, 3 MAC bridge, 4 WLAN AP, 5 router, 6 telephone,
//! 7 DOCSIS cable device, 8 station only, 9 C-VLAN component, 10 S-VLAN component, 11 TPMR
//! (bit 1 is the least significant)
//! ```
//!
//! Decision: 802.1AB limits the three strings to 255 octets. We accept longer ones on receive
//! (up to the 511 the length field allows) and re-emit them as received; emit refuses only what
//! the length field cannot say. The daemon's configuration limits what pfcd itself sends.

use pfc_wire::Fields;

use super::tlv::{tlv_repr, Info};
use super::write::Writer;
use super::{Error, Text, TlvType};

/// Where the fields of the fixed basic TLVs lie (IEEE 802.1AB 8.5.4, 8.5.8), counted from the
/// start of the information string. The three string TLVs (8.5.5–8.5.7) are one string each.
mod field {
    /// Time To Live (8.5.4).
    pub mod ttl {
        use pfc_wire::Field;

        /// Seconds, 0 in a shutdown LLDPDU.
        pub const TTL: Field = 0..2;
        /// Octets of the information string.
        pub const LEN: usize = TTL.end;
    }

    /// System Capabilities (8.5.8).
    pub mod capabilities {
        use pfc_wire::Field;

        /// The system's capabilities, one bit each.
        pub const CAPABILITIES: Field = 0..2;
        /// The capabilities enabled.
        pub const ENABLED: Field = 2..4;
        /// Octets of the information string.
        pub const LEN: usize = ENABLED.end;
    }
}

/// The Time To Live TLV (type 3): seconds the receiver keeps this information; 0 in a shutdown
/// LLDPDU. Its information string must be exactly 2 octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Ttl(pub u16);

impl Info for Ttl {
    const TLV_TYPE: TlvType = TlvType::TTL;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        let bad = || Error::BadLength { tlv: "Time To Live", len: info.len(), expected: "2" };
        if info.len() != field::ttl::LEN {
            return Err(bad());
        }
        Ok(Ttl(Fields::new(info, bad).u16(field::ttl::TTL)?))
    }

    fn info_len(&self) -> usize {
        field::ttl::LEN
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        w.u16(field::ttl::TTL, self.0);
        Ok(())
    }
}

tlv_repr!(Ttl);

macro_rules! string_tlv {
    ($(#[$doc:meta])* $name:ident, $tlv_type:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub Text);

        impl Info for $name {
            const TLV_TYPE: TlvType = $tlv_type;

            fn parse_info(info: &[u8]) -> Result<Self, Error> {
                Ok($name(Text(info.to_vec())))
            }

            fn info_len(&self) -> usize {
                self.0.len()
            }

            fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
                w.put_whole(self.0.as_bytes());
                Ok(())
            }
        }

        tlv_repr!($name);

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name(Text::from(s))
            }
        }
    };
}

string_tlv!(
    /// The Port Description TLV (type 4): ifDescr of the sending port.
    PortDescription,
    TlvType::PORT_DESCRIPTION
);
string_tlv!(
    /// The System Name TLV (type 5): sysName of the sending system.
    SystemName,
    TlvType::SYSTEM_NAME
);
string_tlv!(
    /// The System Description TLV (type 6): sysDescr of the sending system.
    SystemDescription,
    TlvType::SYSTEM_DESCRIPTION
);

/// The System Capabilities TLV (type 7): what the system can be and what it is enabled as.
/// Bits are the `SystemCapabilities::*` constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SystemCapabilities {
    /// The system's capabilities.
    pub capabilities: u16,
    /// The capabilities currently enabled.
    pub enabled: u16,
}

impl SystemCapabilities {
    pub const OTHER: u16 = 1 << 0;
    pub const REPEATER: u16 = 1 << 1;
    pub const MAC_BRIDGE: u16 = 1 << 2;
    pub const WLAN_ACCESS_POINT: u16 = 1 << 3;
    pub const ROUTER: u16 = 1 << 4;
    pub const TELEPHONE: u16 = 1 << 5;
    pub const DOCSIS_CABLE_DEVICE: u16 = 1 << 6;
    pub const STATION_ONLY: u16 = 1 << 7;
    pub const C_VLAN_COMPONENT: u16 = 1 << 8;
    pub const S_VLAN_COMPONENT: u16 = 1 << 9;
    pub const TPMR: u16 = 1 << 10;
}

impl Info for SystemCapabilities {
    const TLV_TYPE: TlvType = TlvType::SYSTEM_CAPABILITIES;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        let bad =
            || Error::BadLength { tlv: "System Capabilities", len: info.len(), expected: "4" };
        if info.len() != field::capabilities::LEN {
            return Err(bad());
        }
        let fields = Fields::new(info, bad);
        Ok(SystemCapabilities {
            capabilities: fields.u16(field::capabilities::CAPABILITIES)?,
            enabled: fields.u16(field::capabilities::ENABLED)?,
        })
    }

    fn info_len(&self) -> usize {
        field::capabilities::LEN
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        w.u16(field::capabilities::CAPABILITIES, self.capabilities);
        w.u16(field::capabilities::ENABLED, self.enabled);
        Ok(())
    }
}

tlv_repr!(SystemCapabilities);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn ttl_121_and_shutdown() {
        let bytes = hex("0602 0079");
        assert_eq!(Ttl::parse(&bytes), Ok((Ttl(121), &[][..])));
        assert_eq!(Ttl(121).to_vec(), Ok(bytes));
        assert_eq!(Ttl(0).to_vec(), Ok(hex("0602 0000")));
    }

    #[test]
    fn ttl_of_wrong_length_is_bad_length() {
        assert_eq!(
            Ttl::parse(&hex("0603 000079")),
            Err(Error::BadLength { tlv: "Time To Live", len: 3, expected: "2" })
        );
        assert_eq!(
            Ttl::parse(&hex("0601 00")),
            Err(Error::BadLength { tlv: "Time To Live", len: 1, expected: "2" })
        );
        assert_eq!(
            Error::BadLength { tlv: "Time To Live", len: 1, expected: "2" }.to_string(),
            "Time To Live TLV has information string length 1, but it must be 2"
        );
    }

    #[test]
    fn strings_round_trip_including_empty_and_non_utf8() {
        let bytes = hex("0806 706f72742031");
        let (pd, _) = PortDescription::parse(&bytes).expect("parses");
        assert_eq!(pd.0.as_str(), Some("port 1"));
        assert_eq!(pd.to_vec(), Ok(bytes));

        let bytes = hex("0a00");
        assert_eq!(SystemName::parse(&bytes), Ok((SystemName::default(), &[][..])));
        assert_eq!(SystemName::default().to_vec(), Ok(bytes));

        let bytes = hex("0c03 70ff64");
        let (sd, _) = SystemDescription::parse(&bytes).expect("non-UTF-8 is kept");
        assert_eq!(sd.0, Text(vec![0x70, 0xff, 0x64]));
        assert_eq!(sd.to_vec(), Ok(bytes));
    }

    #[test]
    fn long_strings_are_kept_up_to_511() {
        let name = SystemName(Text(vec![b'a'; 300]));
        let bytes = name.to_vec().expect("fits the 9-bit length");
        assert_eq!(&bytes[..2], &[0x0b, 0x2c]);
        assert_eq!(SystemName::parse(&bytes), Ok((name, &[][..])));
        assert_eq!(
            SystemName(Text(vec![b'a'; 512])).to_vec(),
            Err(Error::TlvTooLong { tlv_type: TlvType::SYSTEM_NAME, len: 512 })
        );
    }

    #[test]
    fn system_capabilities_bridge_and_router() {
        let bytes = hex("0e04 0014 0004");
        let caps = SystemCapabilities {
            capabilities: SystemCapabilities::MAC_BRIDGE | SystemCapabilities::ROUTER,
            enabled: SystemCapabilities::MAC_BRIDGE,
        };
        assert_eq!(SystemCapabilities::parse(&bytes), Ok((caps, &[][..])));
        assert_eq!(caps.to_vec(), Ok(bytes));
        assert_eq!(
            SystemCapabilities::parse(&hex("0e02 0014")),
            Err(Error::BadLength { tlv: "System Capabilities", len: 2, expected: "4" })
        );
    }
}
