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

use crate::fields::{check_out, Field, Fields};
use crate::{Error, EtherType, MacAddr};

/// Where the header's fields lie: IEEE 802.3 3.1.1 for the untagged frame, IEEE 802.1Q 9.5 for
/// the C-tag that a tagged frame carries after the source address.
pub mod field {
    use crate::{Field, Rest};

    /// Destination address.
    pub const DESTINATION: Field = 0..6;
    /// Source address.
    pub const SOURCE: Field = 6..12;
    /// Length/Type: the EtherType of an untagged frame; 81-00 (the C-tag's TPID) in a tagged one.
    pub const ETHERTYPE: Field = 12..14;
    /// What follows the header of an untagged frame.
    pub const PAYLOAD: Rest = 14..;
    /// A tagged frame's C-tag: TPID and TCI.
    pub const TAG: Field = 12..16;
    /// The C-tag's Tag Protocol Identifier, 81-00.
    pub const TPID: Field = 12..14;
    /// The C-tag's Tag Control Information: PCP (bits 16-14), DEI (bit 13), VID (bits 12-1).
    pub const TCI: Field = 14..16;
    /// The EtherType after the C-tag.
    pub const TAGGED_ETHERTYPE: Field = 16..18;
    /// What follows the header of a tagged frame.
    pub const TAGGED_PAYLOAD: Rest = 18..;

    /// Where the PCP sits in the TCI.
    pub const PCP_SHIFT: u32 = 13;
    /// The DEI bit of the TCI.
    pub const DEI_BIT: u16 = 0x1000;
    /// The VID bits of the TCI.
    pub const VID_MASK: u16 = 0x0fff;
}

/// Octets of an untagged Ethernet header.
pub const ETHERNET_HEADER_LEN: usize = field::PAYLOAD.start;
/// Octets a C-tag adds.
pub const VLAN_TAG_LEN: usize = field::TAGGED_PAYLOAD.start - field::PAYLOAD.start;
/// Minimum frame length before the FCS; shorter frames are zero-padded on emit.
pub const MIN_FRAME_LEN: usize = 60;

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
        let untagged = Fields::new(frame, || Error::Truncated {
            what: "Ethernet header",
            needed: ETHERNET_HEADER_LEN,
            got: frame.len(),
        });
        let dst = MacAddr(untagged.array(field::DESTINATION)?);
        let src = MacAddr(untagged.array(field::SOURCE)?);
        let ethertype = EtherType(untagged.u16(field::ETHERTYPE)?);
        if ethertype != EtherType::VLAN {
            let header = EthernetHeader { dst, src, vlan: None, ethertype };
            return Ok((header, untagged.rest(field::PAYLOAD)?));
        }
        let tagged = Fields::new(frame, || Error::Truncated {
            what: "802.1Q-tagged Ethernet header",
            needed: ETHERNET_HEADER_LEN + VLAN_TAG_LEN,
            got: frame.len(),
        });
        let tci = tagged.u16(field::TCI)?;
        let ethertype = EtherType(tagged.u16(field::TAGGED_ETHERTYPE)?);
        let vlan = VlanTag {
            pcp: (tci >> field::PCP_SHIFT) as u8,
            dei: tci & field::DEI_BIT != 0,
            vid: tci & field::VID_MASK,
        };
        let header = EthernetHeader { dst, src, vlan: Some(vlan), ethertype };
        Ok((header, tagged.rest(field::TAGGED_PAYLOAD)?))
    }

    /// Octets this header takes on the wire.
    pub fn buffer_len(&self) -> usize {
        ETHERNET_HEADER_LEN + if self.vlan.is_some() { VLAN_TAG_LEN } else { 0 }
    }

    /// Writes the header at the start of `buf`; returns the octets written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let len = self.buffer_len();
        check_out(buf, len)?;
        buf[field::DESTINATION].copy_from_slice(&self.dst.0);
        buf[field::SOURCE].copy_from_slice(&self.src.0);
        let mut ethertype = field::ETHERTYPE;
        if let Some(tag) = self.vlan {
            if tag.pcp > 7 || tag.vid > field::VID_MASK {
                return Err(Error::VlanTagOutOfRange { pcp: tag.pcp, vid: tag.vid });
            }
            let tci = (u16::from(tag.pcp) << field::PCP_SHIFT)
                | if tag.dei { field::DEI_BIT } else { 0 }
                | tag.vid;
            buf[field::TPID].copy_from_slice(&EtherType::VLAN.0.to_be_bytes());
            buf[field::TCI].copy_from_slice(&tci.to_be_bytes());
            ethertype = field::TAGGED_ETHERTYPE;
        }
        buf[ethertype].copy_from_slice(&self.ethertype.0.to_be_bytes());
        Ok(len)
    }

    /// The frame's priority: its PCP when tagged, otherwise the port's default priority.
    pub fn priority(&self, port_default: u8) -> u8 {
        self.vlan.map_or(port_default, |tag| tag.pcp)
    }
}

/// Emits a header followed by a body written by `body`, zero-padded to [`MIN_FRAME_LEN`].
/// Returns the frame length. `body` is handed exactly `body_len` octets, so the fields of the
/// format it writes count from the end of the header.
pub fn emit_frame(
    header: &EthernetHeader,
    body_len: usize,
    buf: &mut [u8],
    body: impl FnOnce(&mut [u8]),
) -> Result<usize, Error> {
    let len = frame_len(header, body_len);
    check_out(buf, len)?;
    let at = header.emit(buf)?;
    let payload: Field = at..at + body_len;
    let padding: Field = payload.end..len;
    body(&mut buf[payload]);
    buf[padding].fill(0);
    Ok(len)
}

/// Length on the wire (before FCS) of a frame with this header and body, padding included.
pub fn frame_len(header: &EthernetHeader, body_len: usize) -> usize {
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
