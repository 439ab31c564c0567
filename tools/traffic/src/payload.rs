//! The test frame: an 802.1Q-tagged (or untagged) Ethernet frame of EtherType 88-B5 (IEEE 802
//! "local experimental EtherType 1", which no protocol on a real network uses) whose payload
//! starts with what the receiver needs to count it:
//!
//! ```text
//! | magic "PFCT" (4) | version 1 (1) | priority (1) | flow id (2) |
//! | sequence number (8)              | send time, CLOCK_MONOTONIC ns (8) |   then zeros
//! ```
//!
//! All fields big-endian. The priority is repeated in the payload so that a receiver sees what
//! the sender meant even where a bridge rewrote or removed the tag.

use dataplane::wire::{EtherType, EthernetHeader, MacAddr, VlanTag};

/// The EtherType of test frames.
pub const TEST_ETHERTYPE: EtherType = EtherType(0x88b5);
const MAGIC: [u8; 4] = *b"PFCT";
const VERSION: u8 = 1;
/// Octets of the fields above.
pub const PAYLOAD_LEN: usize = 24;
/// Octets of the FCS the NIC appends: frame sizes are given and counted with it (RFC 2544).
pub const FCS_LEN: usize = 4;

/// What a test frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub priority: u8,
    pub flow: u16,
    pub seq: u64,
    /// CLOCK_MONOTONIC at send, in nanoseconds.
    pub sent_ns: u64,
}

/// A frame template for one flow: the header written once, the stamp rewritten per frame.
#[derive(Debug, Clone)]
pub struct Template {
    frame: Vec<u8>,
    stamp_at: usize,
}

impl Template {
    /// A frame of `size` octets counted with the FCS (so `size - 4` octets go to the socket);
    /// tagged with PCP = `priority` and `vid` unless `vid` is `None`.
    pub fn new(
        dst: MacAddr,
        src: MacAddr,
        priority: u8,
        vid: Option<u16>,
        size: usize,
    ) -> Result<Self, String> {
        let vlan = vid.map(|vid| VlanTag { pcp: priority, dei: false, vid });
        let header = EthernetHeader { dst, src, vlan, ethertype: TEST_ETHERTYPE };
        let least = min_size(vid.is_some());
        if size < least {
            return Err(format!("frame size {size} is below the least, {least} octets"));
        }
        let mut frame = vec![0u8; size - FCS_LEN];
        let at = header.emit(&mut frame).map_err(|e| e.to_string())?;
        frame[at..at + 4].copy_from_slice(&MAGIC);
        frame[at + 4] = VERSION;
        frame[at + 5] = priority;
        Ok(Template { frame, stamp_at: at })
    }

    /// The frame with this flow id, sequence number and send time written in.
    pub fn stamp(&mut self, flow: u16, seq: u64, sent_ns: u64) -> &[u8] {
        let at = self.stamp_at;
        self.frame[at + 6..at + 8].copy_from_slice(&flow.to_be_bytes());
        self.frame[at + 8..at + 16].copy_from_slice(&seq.to_be_bytes());
        self.frame[at + 16..at + 24].copy_from_slice(&sent_ns.to_be_bytes());
        &self.frame
    }

    /// Octets counted per frame (FCS included).
    pub fn size(&self) -> usize {
        self.frame.len() + FCS_LEN
    }
}

/// The least frame size: 64 octets (Ethernet's minimum), or more if the payload needs it.
pub fn min_size(tagged: bool) -> usize {
    let header = 14 + if tagged { 4 } else { 0 };
    (header + PAYLOAD_LEN + FCS_LEN).max(64)
}

/// Reads the stamp of a test frame, given its header and the payload after it; `None` when it
/// is not one of ours.
pub fn read(header: &EthernetHeader, payload: &[u8]) -> Option<Stamp> {
    if header.ethertype != TEST_ETHERTYPE || payload.len() < PAYLOAD_LEN {
        return None;
    }
    if payload[0..4] != MAGIC || payload[4] != VERSION {
        return None;
    }
    let u64_at = |at: usize| {
        let mut o = [0u8; 8];
        o.copy_from_slice(&payload[at..at + 8]);
        u64::from_be_bytes(o)
    };
    Some(Stamp {
        priority: payload[5],
        flow: u16::from_be_bytes([payload[6], payload[7]]),
        seq: u64_at(8),
        sent_ns: u64_at(16),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const B: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    #[test]
    fn a_stamped_frame_reads_back_with_its_tag() {
        let mut t = Template::new(B, A, 3, Some(100), 1500).expect("template");
        assert_eq!(t.size(), 1500);
        let frame = t.stamp(7, 123_456, 987_654_321).to_vec();
        assert_eq!(frame.len(), 1496);
        let (header, payload) = EthernetHeader::parse(&frame).expect("parses");
        assert_eq!(header.vlan, Some(VlanTag { pcp: 3, dei: false, vid: 100 }));
        assert_eq!(header.dst, B);
        let stamp = read(&header, payload).expect("ours");
        assert_eq!(stamp, Stamp { priority: 3, flow: 7, seq: 123_456, sent_ns: 987_654_321 });
    }

    #[test]
    fn an_untagged_frame_carries_its_priority_in_the_payload() {
        let mut t = Template::new(B, A, 0, None, 64).expect("template");
        let frame = t.stamp(0, 1, 2).to_vec();
        assert_eq!(frame.len(), 60);
        let (header, payload) = EthernetHeader::parse(&frame).expect("parses");
        assert_eq!(header.vlan, None);
        assert_eq!(read(&header, payload).map(|s| s.priority), Some(0));
    }

    #[test]
    fn too_small_frames_and_foreign_payloads_are_refused() {
        assert!(Template::new(B, A, 0, Some(1), 63).is_err());
        let mut t = Template::new(B, A, 0, None, 64).expect("template");
        let mut frame = t.stamp(0, 1, 2).to_vec();
        frame[14] = b'X';
        let (header, payload) = EthernetHeader::parse(&frame).expect("parses");
        assert_eq!(read(&header, payload), None);
    }
}
