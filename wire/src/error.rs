use crate::EtherType;

/// Why a frame could not be parsed or emitted. Each variant names the fault so that a discard
/// counter and a log line can say exactly what was wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input ends before a field the format requires.
    #[error("truncated {what}: needs {needed} octets, got {got}")]
    Truncated { what: &'static str, needed: usize, got: usize },
    /// The EtherType is not the one this parser handles.
    #[error("wrong EtherType {found}: expected {expected}")]
    WrongEtherType { expected: EtherType, found: EtherType },
    /// A MAC Control frame with an opcode other than PAUSE (00-01) or PFC (01-01).
    #[error("unsupported MAC Control opcode 0x{0:04x} (only PAUSE 0x0001 and PFC 0x0101)")]
    UnknownOpcode(u16),
    /// A MAC Control frame whose opcode is not the one asked for.
    #[error("MAC Control opcode 0x{found:04x} where 0x{expected:04x} was expected")]
    WrongOpcode { expected: u16, found: u16 },
    /// EtherType 89-A2 with a subtype other than 1: a Congestion Isolation Message, not an HMPDU.
    #[error("EtherType 89-A2 subtype {0} is not an HMPDU (subtype 1)")]
    UnknownHmpduSubtype(u8),
    /// A VLAN tag field out of range when emitting (PCP > 7 or VID > 4095).
    #[error("VLAN tag out of range: pcp {pcp} (0-7), vid {vid} (0-4095)")]
    VlanTagOutOfRange { pcp: u8, vid: u16 },
    /// The output buffer is smaller than `buffer_len()`.
    #[error("output buffer too small: needs {needed} octets, has {got}")]
    BufferTooSmall { needed: usize, got: usize },
}
