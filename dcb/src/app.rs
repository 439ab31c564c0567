//! `struct dcb_app`: one entry of the APP table (a protocol's priority).

use crate::error::DecodeError;
use crate::netlink::struct_fields;

mod field {
    use pfc_wire::Field;

    pub const SELECTOR: usize = 0;
    pub const PRIORITY: usize = 1;
    pub const PROTOCOL: Field = 2..4;
    pub const SIZE: usize = 4;
}

/// `IEEE_8021QAZ_APP_SEL_*`: what an entry's protocol number is.
pub const APP_SEL_ETHERTYPE: u8 = 1;
pub const APP_SEL_STREAM: u8 = 2;
pub const APP_SEL_DGRAM: u8 = 3;
pub const APP_SEL_ANY: u8 = 4;
pub const APP_SEL_DSCP: u8 = 5;

/// Frames of `protocol` (an EtherType, a TCP/UDP port, a DSCP, by `selector`) get `priority`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DcbApp {
    pub selector: u8,
    pub priority: u8,
    pub protocol: u16,
}

impl DcbApp {
    /// RoCE v2: UDP port 4791 at `priority`.
    pub fn roce_v2(priority: u8) -> Self {
        DcbApp { selector: APP_SEL_DGRAM, priority, protocol: 4791 }
    }

    pub fn to_bytes(&self) -> [u8; field::SIZE] {
        let mut b = [0; field::SIZE];
        b[field::SELECTOR] = self.selector;
        b[field::PRIORITY] = self.priority;
        b[field::PROTOCOL].copy_from_slice(&self.protocol.to_ne_bytes());
        b
    }

    pub fn parse(value: &[u8]) -> Result<Self, DecodeError> {
        let f = struct_fields("struct dcb_app", value, field::SIZE)?;
        Ok(DcbApp {
            selector: f.u8(field::SELECTOR)?,
            priority: f.u8(field::PRIORITY)?,
            protocol: u16::from_ne_bytes(f.array(field::PROTOCOL)?),
        })
    }
}
