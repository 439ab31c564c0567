//! IEEE 802.3 MAC Control frames: PFC (Annex 31D, opcode 01-01) and PAUSE (Annex 31B, opcode
//! 00-01).
//!
//! ```text
//! PFC frame (after the 14-octet Ethernet header, EtherType 88-08):
//! +--------+--------+--------+--------+
//! | opcode 01-01    | rsvd   | e[7..0]|   priority_enable_vector: first octet reserved
//! +--------+--------+--------+--------+
//! | time[0]         | time[1]         |   eight u16 pause times in quanta, always present
//! |      ...        |      ...        |
//! | time[6]         | time[7]         |
//! +--------+--------+--------+--------+
//! | 26 octets of zero padding (to 60 octets before FCS)
//!
//! PAUSE frame:
//! | opcode 00-01    | pause_time      | 42 octets of zero padding
//! ```

use nom::multi::count;
use nom::number::complete::{be_u16, be_u8};
use nom::sequence::tuple;

use super::ethernet::{emit_frame, frame_len};
use super::parse::fixed;
use super::{Error, EtherType, EthernetHeader, MacAddr};

/// 01-80-C2-00-00-01: the MAC Control group address PFC, PAUSE and HMPDUs are sent to.
pub const MAC_CONTROL_GROUP: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
/// Priorities 0..=7; bit n of every 8-bit vector is priority n.
pub const PRIORITIES: usize = 8;

const OPCODE_PAUSE: u16 = 0x0001;
const OPCODE_PFC: u16 = 0x0101;
const PFC_BODY_LEN: usize = 2 + 2 + 2 * PRIORITIES;
const PAUSE_BODY_LEN: usize = 2 + 2;

/// A Priority-based Flow Control frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PfcFrame {
    /// Normally [`MAC_CONTROL_GROUP`]; receivers also accept their own individual address.
    pub dst: MacAddr,
    pub src: MacAddr,
    /// e[7..0]: bit n set means `time[n]` applies to priority n.
    pub enable: u8,
    /// Pause time per priority, in pause quanta (512 bit times); 0 resumes at once.
    pub time: [u16; PRIORITIES],
}

impl PfcFrame {
    /// A PFC frame to the MAC Control group address that sets `quanta` for every priority in
    /// `priorities` (bit n = priority n) and leaves the others' times at 0.
    pub fn pause(src: MacAddr, priorities: u8, quanta: u16) -> Self {
        let mut time = [0u16; PRIORITIES];
        for (n, t) in time.iter_mut().enumerate() {
            if priorities & (1 << n) != 0 {
                *t = quanta;
            }
        }
        PfcFrame { dst: MAC_CONTROL_GROUP, src, enable: priorities, time }
    }

    /// Parses a whole PFC frame (Ethernet header included, FCS excluded).
    pub fn parse(frame: &[u8]) -> Result<Self, Error> {
        match MacControl::parse(frame)? {
            MacControl::Pfc(pfc) => Ok(pfc),
            MacControl::Pause(_) => {
                Err(Error::WrongOpcode { expected: OPCODE_PFC, found: OPCODE_PAUSE })
            }
        }
    }

    /// Parses the MAC Control body that follows the opcode.
    fn parse_body(header: &EthernetHeader, body: &[u8]) -> Result<Self, Error> {
        let (_, (_reserved, enable, times)) = fixed(
            "PFC frame",
            PFC_BODY_LEN - 2,
            body,
            tuple((be_u8, be_u8, count(be_u16, PRIORITIES))),
        )
        .map_err(|e| truncated_frame(e, "PFC frame", PFC_BODY_LEN, body.len() + 2))?;
        let mut time = [0u16; PRIORITIES];
        time.copy_from_slice(&times);
        Ok(PfcFrame { dst: header.dst, src: header.src, enable, time })
    }

    pub fn buffer_len(&self) -> usize {
        frame_len(&self.header(), PFC_BODY_LEN)
    }

    /// Writes the frame (60 octets); returns the octets written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        emit_frame(&self.header(), PFC_BODY_LEN, buf, |body| {
            body[0..2].copy_from_slice(&OPCODE_PFC.to_be_bytes());
            body[2] = 0; // reserved: 0 on transmit
            body[3] = self.enable;
            for (n, t) in self.time.iter().enumerate() {
                body[4 + 2 * n..6 + 2 * n].copy_from_slice(&t.to_be_bytes());
            }
        })
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut buf = vec![0u8; self.buffer_len()];
        // The buffer is sized from buffer_len and the header is untagged, so emit cannot fail.
        let _ = self.emit(&mut buf);
        buf
    }

    fn header(&self) -> EthernetHeader {
        EthernetHeader {
            dst: self.dst,
            src: self.src,
            vlan: None,
            ethertype: EtherType::MAC_CONTROL,
        }
    }
}

/// An IEEE 802.3 PAUSE frame (link pause).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PauseFrame {
    pub dst: MacAddr,
    pub src: MacAddr,
    /// Pause time in quanta; 0 resumes at once.
    pub pause_time: u16,
}

impl PauseFrame {
    pub fn new(src: MacAddr, pause_time: u16) -> Self {
        PauseFrame { dst: MAC_CONTROL_GROUP, src, pause_time }
    }

    /// Parses a whole PAUSE frame (Ethernet header included, FCS excluded).
    pub fn parse(frame: &[u8]) -> Result<Self, Error> {
        match MacControl::parse(frame)? {
            MacControl::Pause(pause) => Ok(pause),
            MacControl::Pfc(_) => {
                Err(Error::WrongOpcode { expected: OPCODE_PAUSE, found: OPCODE_PFC })
            }
        }
    }

    fn parse_body(header: &EthernetHeader, body: &[u8]) -> Result<Self, Error> {
        let (_, pause_time) = fixed("PAUSE frame", PAUSE_BODY_LEN - 2, body, be_u16)
            .map_err(|e| truncated_frame(e, "PAUSE frame", PAUSE_BODY_LEN, body.len() + 2))?;
        Ok(PauseFrame { dst: header.dst, src: header.src, pause_time })
    }

    pub fn buffer_len(&self) -> usize {
        frame_len(&self.header(), PAUSE_BODY_LEN)
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        emit_frame(&self.header(), PAUSE_BODY_LEN, buf, |body| {
            body[0..2].copy_from_slice(&OPCODE_PAUSE.to_be_bytes());
            body[2..4].copy_from_slice(&self.pause_time.to_be_bytes());
        })
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut buf = vec![0u8; self.buffer_len()];
        // Sized from buffer_len, untagged header: emit cannot fail.
        let _ = self.emit(&mut buf);
        buf
    }

    fn header(&self) -> EthernetHeader {
        EthernetHeader {
            dst: self.dst,
            src: self.src,
            vlan: None,
            ethertype: EtherType::MAC_CONTROL,
        }
    }
}

/// A MAC Control frame of a kind the data plane acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MacControl {
    Pfc(PfcFrame),
    Pause(PauseFrame),
}

impl MacControl {
    /// Parses any MAC Control frame; an opcode other than PAUSE or PFC is
    /// [`Error::UnknownOpcode`], and a tagged frame is not MAC Control (802.3 never tags them).
    pub fn parse(frame: &[u8]) -> Result<Self, Error> {
        let (header, payload) = EthernetHeader::parse(frame)?;
        if header.vlan.is_some() {
            return Err(Error::WrongEtherType {
                expected: EtherType::MAC_CONTROL,
                found: EtherType::VLAN,
            });
        }
        if header.ethertype != EtherType::MAC_CONTROL {
            return Err(Error::WrongEtherType {
                expected: EtherType::MAC_CONTROL,
                found: header.ethertype,
            });
        }
        let (body, opcode) = fixed("MAC Control opcode", 2, payload, be_u16)?;
        match opcode {
            OPCODE_PFC => PfcFrame::parse_body(&header, body).map(MacControl::Pfc),
            OPCODE_PAUSE => PauseFrame::parse_body(&header, body).map(MacControl::Pause),
            other => Err(Error::UnknownOpcode(other)),
        }
    }

    pub fn src(&self) -> MacAddr {
        match self {
            MacControl::Pfc(f) => f.src,
            MacControl::Pause(f) => f.src,
        }
    }

    pub fn dst(&self) -> MacAddr {
        match self {
            MacControl::Pfc(f) => f.dst,
            MacControl::Pause(f) => f.dst,
        }
    }

    pub fn buffer_len(&self) -> usize {
        match self {
            MacControl::Pfc(f) => f.buffer_len(),
            MacControl::Pause(f) => f.buffer_len(),
        }
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        match self {
            MacControl::Pfc(f) => f.emit(buf),
            MacControl::Pause(f) => f.emit(buf),
        }
    }

    pub fn to_vec(&self) -> Vec<u8> {
        match self {
            MacControl::Pfc(f) => f.to_vec(),
            MacControl::Pause(f) => f.to_vec(),
        }
    }
}

/// Restates a truncation of a MAC Control body in terms of the whole MAC Control payload, which
/// is what a user counting octets in a capture sees.
fn truncated_frame(e: Error, what: &'static str, needed: usize, got: usize) -> Error {
    match e {
        Error::Truncated { .. } => Error::Truncated { what, needed, got },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    const SA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

    /// The acceptance vector: priorities 3 and 4 paused for 0xFFFF quanta.
    #[test]
    fn pfc_acceptance_vector_is_exact() {
        let mut expected =
            hex("0180c2000001 020000000001 8808 0101 0018 0000 0000 0000 ffff ffff 0000 0000 0000");
        expected.extend_from_slice(&[0u8; 26]);
        assert_eq!(expected.len(), 60);

        let frame = PfcFrame::pause(SA, 0b0001_1000, 0xffff);
        assert_eq!(frame.buffer_len(), 60);
        assert_eq!(frame.to_vec(), expected);
        assert_eq!(PfcFrame::parse(&expected), Ok(frame));
    }

    #[test]
    fn pfc_reserved_octet_ignored_on_receive() {
        let mut bytes = PfcFrame::pause(SA, 0x01, 7).to_vec();
        bytes[16] = 0xa5;
        let frame = PfcFrame::parse(&bytes).expect("reserved octet is not an error");
        assert_eq!(frame.enable, 0x01);
        assert_eq!(frame.time[0], 7);
    }

    #[test]
    fn pause_vector_is_exact() {
        let mut expected = hex("0180c2000001 020000000001 8808 0001 1234");
        expected.extend_from_slice(&[0u8; 42]);
        let frame = PauseFrame::new(SA, 0x1234);
        assert_eq!(frame.to_vec(), expected);
        assert_eq!(PauseFrame::parse(&expected), Ok(frame));
        assert_eq!(MacControl::parse(&expected), Ok(MacControl::Pause(frame)));
    }

    #[test]
    fn truncated_pfc_frame_names_the_fault() {
        let bytes = PfcFrame::pause(SA, 0xff, 1).to_vec();
        assert_eq!(
            PfcFrame::parse(&bytes[..33]),
            Err(Error::Truncated { what: "PFC frame", needed: 20, got: 19 })
        );
        assert_eq!(
            PfcFrame::parse(&bytes[..15]),
            Err(Error::Truncated { what: "MAC Control opcode", needed: 2, got: 1 })
        );
    }

    #[test]
    fn unknown_opcode_and_wrong_kind_are_distinct_errors() {
        let mut bytes = PfcFrame::pause(SA, 0xff, 1).to_vec();
        bytes[14..16].copy_from_slice(&[0x00, 0x02]);
        assert_eq!(MacControl::parse(&bytes), Err(Error::UnknownOpcode(0x0002)));
        let pause = PauseFrame::new(SA, 1).to_vec();
        assert_eq!(
            PfcFrame::parse(&pause),
            Err(Error::WrongOpcode { expected: 0x0101, found: 0x0001 })
        );
    }

    #[test]
    fn tagged_mac_control_is_refused() {
        let bytes = hex("0180c2000001 020000000001 8100 6000 8808 0101 0018");
        assert_eq!(
            MacControl::parse(&bytes),
            Err(Error::WrongEtherType { expected: EtherType::MAC_CONTROL, found: EtherType::VLAN })
        );
    }
}
