//! Ethernet II header with an optional IEEE 802.1Q C-tag.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |              destination address (6 octets)                  |
//! +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                               |                               |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
//! |                source address (6 octets)                      |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! | TPID 0x8100 (if tagged)       | PCP |D|         VID           |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |       EtherType               |   payload ...
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```

use std::fmt;

use nom::bytes::complete::take;
use nom::number::complete::be_u16;
use nom::sequence::tuple;

use super::parse::{check_out, fixed};
use super::{Error, MacAddr};

/// Octets of an untagged Ethernet header.
pub const ETHERNET_HEADER_LEN: usize = 14;
/// Octets a C-tag adds.
pub const VLAN_TAG_LEN: usize = 4;
/// Minimum frame length before the FCS; shorter frames are zero-padded on emit.
pub const MIN_FRAME_LEN: usize = 60;

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

/// An IEEE 802.1Q tag: the priority code point selects the frame's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlanTag {
    /// Priority code point, 0..=7.
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 0..=4095 (0: priority-tagged only).
    pub vid: u16,
}

/// The header in front of every frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetHeader {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub vlan: Option<VlanTag>,
    pub ethertype: EtherType,
}

impl EthernetHeader {
    /// Parses the header and returns it with the payload that follows (padding included).
    pub fn parse(frame: &[u8]) -> Result<(Self, &[u8]), Error> {
        let (rest, (dst, src, tpid)) = fixed(
            "Ethernet header",
            ETHERNET_HEADER_LEN,
            frame,
            tuple((take(6usize), take(6usize), be_u16)),
        )?;
        let dst = mac(dst);
        let src = mac(src);
        if EtherType(tpid) != EtherType::VLAN {
            let header = EthernetHeader { dst, src, vlan: None, ethertype: EtherType(tpid) };
            return Ok((header, rest));
        }
        let (rest, (tci, ethertype)) =
            fixed("802.1Q-tagged Ethernet header", VLAN_TAG_LEN, rest, tuple((be_u16, be_u16)))
                .map_err(|_| Error::Truncated {
                    what: "802.1Q-tagged Ethernet header",
                    needed: ETHERNET_HEADER_LEN + VLAN_TAG_LEN,
                    got: frame.len(),
                })?;
        let vlan = VlanTag { pcp: (tci >> 13) as u8, dei: tci & 0x1000 != 0, vid: tci & 0x0fff };
        Ok((EthernetHeader { dst, src, vlan: Some(vlan), ethertype: EtherType(ethertype) }, rest))
    }

    /// Octets this header takes on the wire.
    pub fn buffer_len(&self) -> usize {
        ETHERNET_HEADER_LEN + if self.vlan.is_some() { VLAN_TAG_LEN } else { 0 }
    }

    /// Writes the header at the start of `buf`; returns the octets written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let len = self.buffer_len();
        check_out(buf, len)?;
        buf[0..6].copy_from_slice(&self.dst.0);
        buf[6..12].copy_from_slice(&self.src.0);
        let mut at = 12;
        if let Some(tag) = self.vlan {
            if tag.pcp > 7 || tag.vid > 0x0fff {
                return Err(Error::VlanTagOutOfRange { pcp: tag.pcp, vid: tag.vid });
            }
            let tci = (u16::from(tag.pcp) << 13) | (u16::from(tag.dei) << 12) | tag.vid;
            buf[12..14].copy_from_slice(&EtherType::VLAN.0.to_be_bytes());
            buf[14..16].copy_from_slice(&tci.to_be_bytes());
            at = 16;
        }
        buf[at..at + 2].copy_from_slice(&self.ethertype.0.to_be_bytes());
        Ok(len)
    }

    /// The frame's priority: its PCP when tagged, otherwise the port's default priority.
    pub fn priority(&self, port_default: u8) -> u8 {
        self.vlan.map_or(port_default, |tag| tag.pcp)
    }
}

pub(crate) fn mac(octets: &[u8]) -> MacAddr {
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&octets[..6]);
    MacAddr(mac)
}

/// Emits a header followed by a body written by `body`, zero-padded to [`MIN_FRAME_LEN`].
/// Returns the frame length.
pub(crate) fn emit_frame(
    header: &EthernetHeader,
    body_len: usize,
    buf: &mut [u8],
    body: impl FnOnce(&mut [u8]),
) -> Result<usize, Error> {
    let len = frame_len(header, body_len);
    check_out(buf, len)?;
    let at = header.emit(buf)?;
    body(&mut buf[at..at + body_len]);
    buf[at + body_len..len].fill(0);
    Ok(len)
}

/// Length on the wire (before FCS) of a frame with this header and body, padding included.
pub(crate) fn frame_len(header: &EthernetHeader, body_len: usize) -> usize {
    (header.buffer_len() + body_len).max(MIN_FRAME_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_header_gives_pcp_as_priority() {
        let bytes = hex::decode("0180c200000e0200000000018100a00588cc").expect("hex");
        let (header, rest) = EthernetHeader::parse(&bytes).expect("parses");
        assert!(rest.is_empty());
        assert_eq!(header.vlan, Some(VlanTag { pcp: 5, dei: false, vid: 5 }));
        assert_eq!(header.ethertype, EtherType::LLDP);
        assert_eq!(header.priority(0), 5);
        let mut out = [0u8; 18];
        assert_eq!(header.emit(&mut out), Ok(18));
        assert_eq!(&out[..], &bytes[..]);
    }

    #[test]
    fn untagged_header_uses_port_default_priority() {
        let bytes = hex::decode("0180c2000001020000000001 8808".replace(' ', "")).expect("hex");
        let (header, _) = EthernetHeader::parse(&bytes).expect("parses");
        assert_eq!(header.vlan, None);
        assert_eq!(header.priority(3), 3);
    }

    #[test]
    fn truncated_tag_is_reported_with_full_length() {
        let bytes = hex::decode("0180c200000e0200000000018100a0").expect("hex");
        assert_eq!(
            EthernetHeader::parse(&bytes),
            Err(Error::Truncated { what: "802.1Q-tagged Ethernet header", needed: 18, got: 15 })
        );
    }

    #[test]
    fn out_of_range_tag_is_refused() {
        let header = EthernetHeader {
            dst: MacAddr::default(),
            src: MacAddr::default(),
            vlan: Some(VlanTag { pcp: 8, dei: false, vid: 1 }),
            ethertype: EtherType::LLDP,
        };
        assert_eq!(header.emit(&mut [0u8; 18]), Err(Error::VlanTagOutOfRange { pcp: 8, vid: 1 }));
    }
}
