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

use pfc_wire::{emit_frame, frame_len, Fields};

use super::{Error, EtherType, EthernetHeader, MacAddr};

/// 01-80-C2-00-00-01: the MAC Control group address PFC, PAUSE and HMPDUs are sent to.
pub const MAC_CONTROL_GROUP: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
/// Priorities 0..=7; bit n of every 8-bit vector is priority n.
pub const PRIORITIES: usize = 8;

const OPCODE_PAUSE: u16 = 0x0001;
const OPCODE_PFC: u16 = 0x0101;

/// Where the fields of a MAC Control frame lie, counted from the end of the Ethernet header:
/// the opcode (802.3 31.4.1), then the PFC frame's parameters (Annex 31D.2) or the PAUSE
/// frame's (Annex 31B.2).
mod field {
    use pfc_wire::Field;

    use super::PRIORITIES;

    /// The MAC Control opcode: 01-01 PFC, 00-01 PAUSE.
    pub const OPCODE: Field = 0..2;

    /// PFC: priority_enable_vector, two octets: the first is reserved (0 on transmit, ignored on
    /// receipt), the second is e[7..0].
    pub const RESERVED: usize = 2;
    /// PFC: e[7..0], bit n set when time[n] applies to priority n.
    pub const ENABLE: usize = 3;
    /// PFC: time[n] of the time_vector, eight two-octet pause times in priority order.
    pub const fn time(n: usize) -> Field {
        const TIME_VECTOR: usize = 4;
        TIME_VECTOR + 2 * n..TIME_VECTOR + 2 * (n + 1)
    }
    /// Octets of a PFC frame's fields, opcode included.
    pub const PFC_LEN: usize = time(PRIORITIES - 1).end;

    /// PAUSE: pause_time.
    pub const PAUSE_TIME: Field = 2..4;
    /// Octets of a PAUSE frame's fields, opcode included.
    pub const PAUSE_LEN: usize = PAUSE_TIME.end;
}

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

    /// Parses the MAC Control payload (opcode first) of a frame whose opcode is PFC's.
    fn parse_payload(header: &EthernetHeader, payload: &[u8]) -> Result<Self, Error> {
        let fields = Fields::new(payload, || Error::Truncated {
            what: "PFC frame",
            needed: field::PFC_LEN,
            got: payload.len(),
        });
        let enable = fields.u8(field::ENABLE)?;
        let mut time = [0u16; PRIORITIES];
        for (n, t) in time.iter_mut().enumerate() {
            *t = fields.u16(field::time(n))?;
        }
        Ok(PfcFrame { dst: header.dst, src: header.src, enable, time })
    }

    pub fn buffer_len(&self) -> usize {
        frame_len(&self.header(), field::PFC_LEN)
    }

    /// Writes the frame (60 octets); returns the octets written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        emit_frame(&self.header(), field::PFC_LEN, buf, |payload| {
            payload[field::OPCODE].copy_from_slice(&OPCODE_PFC.to_be_bytes());
            payload[field::RESERVED] = 0;
            payload[field::ENABLE] = self.enable;
            for (n, t) in self.time.iter().enumerate() {
                payload[field::time(n)].copy_from_slice(&t.to_be_bytes());
            }
        })
    }

    pub fn to_vec(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |buf| self.emit(buf))
    }

    fn header(&self) -> EthernetHeader {
        mac_control_header(self.dst, self.src)
    }
}

/// The header of every MAC Control frame: untagged (802.3 sends MAC Control frames so; a tagged
/// one is not parsed as MAC Control).
fn mac_control_header(dst: MacAddr, src: MacAddr) -> EthernetHeader {
    EthernetHeader { dst, src, vlan: None, ethertype: EtherType::MAC_CONTROL }
}

/// A frame's octets from its emitter into a buffer of `len`: sized from the frame's own
/// `buffer_len` with an untagged header, the emit cannot fail.
fn emitted(len: usize, emit: impl FnOnce(&mut [u8]) -> Result<usize, Error>) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    let _ = emit(&mut buf);
    buf
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

    /// Parses the MAC Control payload (opcode first) of a frame whose opcode is PAUSE's.
    fn parse_payload(header: &EthernetHeader, payload: &[u8]) -> Result<Self, Error> {
        let fields = Fields::new(payload, || Error::Truncated {
            what: "PAUSE frame",
            needed: field::PAUSE_LEN,
            got: payload.len(),
        });
        let pause_time = fields.u16(field::PAUSE_TIME)?;
        Ok(PauseFrame { dst: header.dst, src: header.src, pause_time })
    }

    pub fn buffer_len(&self) -> usize {
        frame_len(&self.header(), field::PAUSE_LEN)
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        emit_frame(&self.header(), field::PAUSE_LEN, buf, |payload| {
            payload[field::OPCODE].copy_from_slice(&OPCODE_PAUSE.to_be_bytes());
            payload[field::PAUSE_TIME].copy_from_slice(&self.pause_time.to_be_bytes());
        })
    }

    pub fn to_vec(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |buf| self.emit(buf))
    }

    fn header(&self) -> EthernetHeader {
        mac_control_header(self.dst, self.src)
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
        let opcode = Fields::new(payload, || Error::Truncated {
            what: "MAC Control opcode",
            needed: field::OPCODE.end,
            got: payload.len(),
        })
        .u16(field::OPCODE)?;
        match opcode {
            OPCODE_PFC => PfcFrame::parse_payload(&header, payload).map(MacControl::Pfc),
            OPCODE_PAUSE => PauseFrame::parse_payload(&header, payload).map(MacControl::Pause),
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
