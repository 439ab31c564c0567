//! An LLDP frame: an untagged Ethernet header with EtherType 88-CC, the LLDPDU, padding.
//!
//! ```text
//! +-------------------+-------------------+-------+--------------------+- - - - - - - -+
//! | DA (6 octets)     | SA (6 octets)     | 88-CC | LLDPDU ... End     | zero padding  |
//! | 01-80-C2-00-00-0E |                   |       |                    | to 60 octets  |
//! +-------------------+-------------------+-------+--------------------+- - - - - - - -+
//! ```
//!
//! Decisions: any destination address is accepted on receive (which of the three LLDP group
//! addresses an agent listens to is the agent's business); a VLAN-tagged frame is refused with
//! [`Error::WrongEtherType`] showing 81-00, since LLDPDUs are sent untagged. The frame is padded
//! to [`MIN_FRAME_LEN`](pfc_wire::MIN_FRAME_LEN) (60 octets, FCS excluded) on emit; an LLDPDU has no length limit here
//! beyond what the port's MTU allows.

use pfc_wire::{check_out, frame_len, EtherType, EthernetHeader, MacAddr};

use super::{Error, Lldpdu};

/// 01-80-C2-00-00-0E, nearest bridge: the default destination (not forwarded by any bridge).
pub const NEAREST_BRIDGE: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e]);
/// 01-80-C2-00-00-03, nearest non-TPMR bridge.
pub const NEAREST_NON_TPMR_BRIDGE: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0x00, 0x00, 0x03]);
/// 01-80-C2-00-00-00, nearest customer bridge.
pub const NEAREST_CUSTOMER_BRIDGE: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0x00, 0x00, 0x00]);

/// A whole LLDP frame (FCS excluded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LldpFrame {
    /// Normally [`NEAREST_BRIDGE`].
    pub dst: MacAddr,
    /// The sending port's MAC address (DCBX compares it with its own to break ties).
    pub src: MacAddr,
    pub lldpdu: Lldpdu,
}

impl LldpFrame {
    /// A frame to the nearest-bridge address.
    pub fn new(src: MacAddr, lldpdu: Lldpdu) -> Self {
        LldpFrame { dst: NEAREST_BRIDGE, src, lldpdu }
    }

    /// Parses a whole frame: the Ethernet header must be untagged with EtherType 88-CC; the
    /// LLDPDU is parsed as [`Lldpdu::parse`] says, padding after End ignored.
    pub fn parse(frame: &[u8]) -> Result<Self, Error> {
        let (header, payload) = EthernetHeader::parse(frame)?;
        if header.vlan.is_some() {
            return Err(Error::WrongEtherType(EtherType::VLAN));
        }
        if header.ethertype != EtherType::LLDP {
            return Err(Error::WrongEtherType(header.ethertype));
        }
        Ok(LldpFrame { dst: header.dst, src: header.src, lldpdu: Lldpdu::parse(payload)? })
    }

    fn header(&self) -> EthernetHeader {
        EthernetHeader { dst: self.dst, src: self.src, vlan: None, ethertype: EtherType::LLDP }
    }

    /// Octets on the wire before the FCS, padding included (at least 60).
    pub fn buffer_len(&self) -> usize {
        frame_len(&self.header(), self.lldpdu.buffer_len())
    }

    /// Writes the frame, zero-padded to 60 octets; returns the octets written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let len = self.buffer_len();
        check_out(buf, len)?;
        let short = Error::BufferTooSmall { needed: len, got: buf.len() };
        let header_len = self.header().emit(buf)?;
        let pdu_len = match buf.get_mut(header_len..) {
            Some(body) => self.lldpdu.emit(body)?,
            None => return Err(short),
        };
        match buf.get_mut(header_len + pdu_len..len) {
            Some(padding) => padding.fill(0),
            None => return Err(short),
        }
        Ok(len)
    }

    /// The frame as a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, Error> {
        let mut buf = vec![0u8; self.buffer_len()];
        self.emit(&mut buf)?;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ChassisId, PortId, SystemName, Tlv};

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.split_whitespace().collect::<String>()).expect("test vector is hex")
    }

    const SA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

    fn pdu() -> Lldpdu {
        Lldpdu::new(ChassisId::MacAddress(SA), PortId::InterfaceName("eth0".into()), 121)
    }

    #[test]
    fn short_frame_is_padded_to_60_octets() {
        let mut expected = hex(
            "0180c200000e 020000000001 88cc 0207 04 020000000001 0405 05 65746830 0602 0079 0000",
        );
        assert_eq!(expected.len(), 36);
        expected.resize(60, 0);
        let frame = LldpFrame::new(SA, pdu());
        assert_eq!(frame.buffer_len(), 60);
        assert_eq!(frame.to_vec(), Ok(expected.clone()));
        assert_eq!(LldpFrame::parse(&expected), Ok(frame));
    }

    #[test]
    fn long_frame_is_not_padded() {
        let mut lldpdu = pdu();
        lldpdu.tlvs.push(Tlv::SystemName(SystemName::from("a-rather-long-system-name")));
        let frame = LldpFrame { dst: NEAREST_NON_TPMR_BRIDGE, src: SA, lldpdu };
        let bytes = frame.to_vec().expect("emits");
        assert_eq!(bytes.len(), 14 + 9 + 7 + 4 + 27 + 2);
        assert_eq!(&bytes[..6], &NEAREST_NON_TPMR_BRIDGE.0);
        assert_eq!(LldpFrame::parse(&bytes), Ok(frame));
    }

    #[test]
    fn truncated_frame() {
        assert_eq!(
            LldpFrame::parse(&hex("0180c200000e 020000000001 88")),
            Err(Error::Truncated { what: "Ethernet header", needed: 14, got: 13 })
        );
        // A header and nothing else: no Chassis ID.
        assert_eq!(
            LldpFrame::parse(&hex("0180c200000e 020000000001 88cc")),
            Err(Error::MandatoryTlvMissing(crate::wire::TlvType::CHASSIS_ID))
        );
    }

    #[test]
    fn other_ethertypes_and_tagged_frames_are_refused() {
        let mut bytes = LldpFrame::new(SA, pdu()).to_vec().expect("emits");
        bytes[12..14].copy_from_slice(&[0x88, 0x08]);
        assert_eq!(LldpFrame::parse(&bytes), Err(Error::WrongEtherType(EtherType::MAC_CONTROL)));
        let tagged = hex("0180c200000e 020000000001 8100 0001 88cc 0207 04 020000000001");
        assert_eq!(LldpFrame::parse(&tagged), Err(Error::WrongEtherType(EtherType::VLAN)));
        assert_eq!(
            Error::WrongEtherType(EtherType::VLAN).to_string(),
            "frame has EtherType 81-00, not LLDP's 88-cc (LLDPDUs are sent untagged)"
        );
    }

    #[test]
    fn emit_refuses_a_short_buffer() {
        let frame = LldpFrame::new(SA, pdu());
        assert_eq!(frame.emit(&mut [0u8; 59]), Err(Error::BufferTooSmall { needed: 60, got: 59 }));
    }
}
