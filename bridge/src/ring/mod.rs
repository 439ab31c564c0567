//! A port's receive ring (`PACKET_MMAP`, `TPACKET_V2`): the kernel writes each received frame
//! into the next free slot of memory we share with it, and hands the slot over by its status
//! word. Reading costs no system call and no copy, and, unlike a socket's receive queue, the
//! ring says exactly how full it is: the slots from ours up to the first the kernel still owns.
//! The kernel drops a frame only when the next slot is still ours, so a ring whose XOFF leaves
//! room for what the peer sends while it reacts loses nothing (`port.rs`: `follow_ring`).

mod sys;

use std::io;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub use sys::Geometry;
use sys::Mapping;

/// Where a frame starts in its slot: `TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - 14` for a raw
/// socket (the header, the address and room for the link header).
const MAC_OFFSET: usize = 66;
/// Where the address the kernel writes after the slot's header ends (`TPACKET_ALIGN(32)` and a
/// 20-octet `sockaddr_ll`): a tag put back in place may not start before it.
const ADDRESS_END: usize = 52;
const TPACKET_ALIGNMENT: usize = 16;
/// Status bits (linux/if_packet.h).
const TP_STATUS_COPY: u32 = 1 << 1;
const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;
/// The ring's memory by default, per port: 8 MiB, 5 120 slots for 1522-octet frames, 896 for
/// 9216-octet ones. The kernel zeroes and maps a ring in one stretch it does not yield the CPU
/// in (about 0.15 ms per MiB here), which delays everything else on that core once, at open.
pub const DEFAULT_RING_OCTETS: usize = 8 << 20;
/// The smallest block: the kernel allocates a block in one piece, a few pages at a time.
const MIN_BLOCK: usize = 64 << 10;

/// The largest frame a slot holds: a VLAN-tagged 1518-octet frame without FCS. Longer ones (up
/// to `max_frame`) are copied whole to the socket's queue, their slot marking their place
/// ([`RingFrame::copied`]), so that jumbo frames do not make every slot six times larger.
pub const SLOT_FRAME: usize = 1522;

/// How a port's ring is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingOptions {
    /// Memory of the ring, octets (0: no ring, a socket's receive queue instead).
    pub octets: usize,
    /// The largest frame forwarded, octets without FCS: slots hold up to [`SLOT_FRAME`] of it.
    pub max_frame: usize,
    /// Frames leave through a transmit ring (`crate::xsk`) where the kernel gives one. Off by
    /// default: the ring's frames go straight to the driver, past the interface's queueing
    /// discipline, so `tc` shaping or policing on the port would be ignored.
    pub transmit: bool,
}

impl Default for RingOptions {
    fn default() -> Self {
        RingOptions { octets: DEFAULT_RING_OCTETS, max_frame: 9216, transmit: false }
    }
}

impl RingOptions {
    /// Slots of one frame of `max_frame` or [`SLOT_FRAME`], the smaller (a tagged one too),
    /// in blocks of at least [`MIN_BLOCK`]; `None` when `octets` holds no block.
    pub fn geometry(&self) -> Option<Geometry> {
        let frame = self.max_frame.min(SLOT_FRAME);
        let slot_size = (MAC_OFFSET + frame + 4).next_multiple_of(TPACKET_ALIGNMENT);
        let block_size = slot_size.next_power_of_two().max(MIN_BLOCK);
        let blocks = self.octets / block_size;
        (blocks > 0).then_some(Geometry {
            block_size,
            blocks,
            slot_size,
            per_block: block_size / slot_size,
        })
    }
}

/// A frame in the ring, as the kernel wrote it.
#[derive(Debug)]
pub struct RingFrame<'a> {
    /// The frame from its destination address, without the VLAN tag the kernel took out.
    pub data: &'a [u8],
    /// The tag to put back after the source address (TPID, TCI), when it had one.
    pub tag: Option<[u8; 4]>,
    /// The kernel's receive time, CLOCK_REALTIME nanoseconds.
    pub received_ns: u64,
    /// Longer than the slot: only its beginning is there.
    pub truncated: bool,
    /// Longer than the slot and queued whole on the socket: the next frame `recv` reads.
    pub copied: bool,
    /// Its length on the wire (without the tag the kernel took out).
    pub wire_len: usize,
}

impl RingFrame<'_> {
    /// The frame as it was on the wire (its tag put back), in `out`.
    pub fn restore_into(&self, out: &mut Vec<u8>) {
        out.clear();
        match self.tag {
            Some(tag) if self.data.len() >= 12 => {
                out.extend_from_slice(&self.data[..12]);
                out.extend_from_slice(&tag);
                out.extend_from_slice(&self.data[12..]);
            }
            _ => out.extend_from_slice(self.data),
        }
    }
}

/// The fields of a slot's `tpacket2_hdr` the bridge reads.
struct SlotHeader {
    status: u32,
    len: usize,
    snaplen: usize,
    mac: usize,
    received_ns: u64,
}

impl SlotHeader {
    fn read(slot: &[u8]) -> SlotHeader {
        let u32_at =
            |o: usize| u32::from_ne_bytes([slot[o], slot[o + 1], slot[o + 2], slot[o + 3]]);
        SlotHeader {
            status: u32_at(0),
            len: u32_at(4) as usize,
            snaplen: u32_at(8) as usize,
            mac: usize::from(u16::from_ne_bytes([slot[12], slot[13]])),
            received_ns: u64::from(u32_at(16)) * 1_000_000_000 + u64::from(u32_at(20)),
        }
    }

    /// The VLAN tag the kernel took out of the frame (TPID, TCI), if it did.
    fn tag(&self, slot: &[u8]) -> Option<[u8; 4]> {
        let u16_at = |o: usize| u16::from_ne_bytes([slot[o], slot[o + 1]]);
        (self.status & TP_STATUS_VLAN_VALID != 0).then(|| {
            let tpid =
                if self.status & TP_STATUS_VLAN_TPID_VALID != 0 { u16_at(26) } else { 0x8100 };
            let [a, b] = tpid.to_be_bytes();
            let [c, d] = u16_at(24).to_be_bytes();
            [a, b, c, d]
        })
    }
}

/// A receive ring attached to a packet socket, read in order from `head`.
#[derive(Debug)]
pub struct RxRing {
    map: Mapping,
    head: usize,
    /// `head`, for a [`RingWatch`] on another thread.
    shared_head: Arc<AtomicUsize>,
}

impl RxRing {
    /// Gives `socket` (an `AF_PACKET` socket, bound) a ring of `options`.
    pub fn attach(socket: BorrowedFd<'_>, options: RingOptions) -> io::Result<RxRing> {
        let geometry = options.geometry().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "the ring holds not one block")
        })?;
        let map = Mapping::attach(socket, geometry)?;
        Ok(RxRing { map, head: 0, shared_head: Arc::new(AtomicUsize::new(0)) })
    }

    /// A view of how full the ring is for another thread (`socket` is the one the ring is
    /// attached to).
    pub fn watch(&self, socket: BorrowedFd<'_>) -> io::Result<RingWatch> {
        let map = Mapping::map_again(socket, self.map.geometry())?;
        Ok(RingWatch { map, head: self.shared_head.clone() })
    }

    /// Slots in the ring.
    pub fn slots(&self) -> usize {
        self.map.geometry().slots()
    }

    /// The oldest frame the kernel has handed over, if any.
    pub fn front(&self) -> Option<RingFrame<'_>> {
        let slot = self.map.owned_slot(self.head)?;
        let header = SlotHeader::read(slot);
        let end = (header.mac + header.snaplen).min(slot.len());
        Some(RingFrame {
            data: slot.get(header.mac..end).unwrap_or(&[]),
            tag: header.tag(slot),
            received_ns: header.received_ns,
            truncated: header.snaplen < header.len,
            copied: header.status & TP_STATUS_COPY != 0,
            wire_len: header.len,
        })
    }

    /// The oldest frame, as it was on the wire: a VLAN tag the kernel took out is put back in
    /// the slot itself (the frame's first 12 octets moved 4 back, the slot's header rewritten to
    /// match), so that a tagged frame is read in place like any other, not copied to be
    /// whole. A frame whose slot has no room before it keeps its `tag` for `restore_into`.
    pub fn front_as_on_wire(&mut self) -> Option<RingFrame<'_>> {
        self.restore_tag_in_place();
        self.front()
    }

    fn restore_tag_in_place(&mut self) {
        let head = self.head;
        let Some(slot) = self.map.owned_slot_mut(head) else { return };
        let header = SlotHeader::read(slot);
        let Some(tag) = header.tag(slot) else { return };
        let mac = header.mac;
        if header.status & TP_STATUS_COPY != 0 || header.snaplen < 12 || mac < ADDRESS_END + 4 {
            return;
        }
        slot.copy_within(mac..mac + 12, mac - 4);
        slot[mac + 8..mac + 12].copy_from_slice(&tag);
        slot[4..8].copy_from_slice(&(header.len as u32 + 4).to_ne_bytes());
        slot[8..12].copy_from_slice(&(header.snaplen as u32 + 4).to_ne_bytes());
        slot[12..14].copy_from_slice(&((mac - 4) as u16).to_ne_bytes());
        let untagged = header.status & !(TP_STATUS_VLAN_VALID | TP_STATUS_VLAN_TPID_VALID);
        self.map.set_status(head, untagged);
    }

    /// Gives the front slot back to the kernel.
    pub fn advance(&mut self) {
        self.map.release(self.head);
        self.head = (self.head + 1) % self.slots();
        self.shared_head.store(self.head, Ordering::Relaxed);
    }

    /// Whether at least `n` frames wait (the kernel fills slots in order, so the `n`th from
    /// ours being filled means every one before it is): one read, whatever `n`.
    pub fn holds_at_least(&self, n: usize) -> bool {
        n == 0
            || (n <= self.slots() && self.map.status(self.head + n - 1) & sys::TP_STATUS_USER != 0)
    }

    /// Frames waiting, counted slot by slot (for the state; the loop uses `holds_at_least`).
    pub fn occupancy(&self) -> usize {
        (0..self.slots())
            .take_while(|k| self.map.status(self.head + k) & sys::TP_STATUS_USER != 0)
            .count()
    }
}

/// How full a ring is, seen from another thread than the one reading it: the reader's head as
/// it last published it (a few frames behind at most) and the kernel's status words.
#[derive(Debug)]
pub struct RingWatch {
    map: Mapping,
    head: Arc<AtomicUsize>,
}

impl RingWatch {
    pub fn slots(&self) -> usize {
        self.map.geometry().slots()
    }

    /// Whether at least `n` frames wait, as [`RxRing::holds_at_least`].
    pub fn holds_at_least(&self, n: usize) -> bool {
        let head = self.head.load(Ordering::Relaxed);
        n == 0 || (n <= self.slots() && self.map.status(head + n - 1) & sys::TP_STATUS_USER != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fit_the_largest_frame_and_its_tag_and_never_straddle_blocks() {
        let g = RingOptions { octets: 32 << 20, max_frame: 1522, transmit: true }
            .geometry()
            .expect("a ring");
        assert_eq!(g.slot_size, 1600, "66 + 1522 + 4, 16-aligned");
        assert_eq!(g.block_size, 64 << 10);
        assert_eq!(g.per_block, 40);
        assert_eq!(g.slots(), 512 * 40);
        assert!(g.offset(g.slots() - 1) + g.slot_size <= g.block_size * g.blocks);
        let jumbo = RingOptions { octets: 32 << 20, max_frame: 9216, transmit: true }
            .geometry()
            .expect("a ring");
        assert_eq!(jumbo, g, "jumbo frames are copied to the socket, not given larger slots");
        let small = RingOptions { octets: 32 << 20, max_frame: 1000, transmit: true }
            .geometry()
            .expect("a ring");
        assert_eq!(small.slot_size, 1072, "66 + 1000 + 4, 16-aligned");
        assert_eq!(RingOptions { octets: 1000, max_frame: 1522, transmit: true }.geometry(), None);
    }

    #[test]
    fn a_stripped_tag_is_put_back_after_the_source_address() {
        let data: Vec<u8> = (0..20).collect();
        let frame = RingFrame {
            data: &data,
            tag: Some([0x81, 0x00, 0x60, 0x05]),
            received_ns: 0,
            truncated: false,
            copied: false,
            wire_len: 20,
        };
        let mut out = Vec::new();
        frame.restore_into(&mut out);
        assert_eq!(&out[..12], &data[..12]);
        assert_eq!(&out[12..16], &[0x81, 0x00, 0x60, 0x05]);
        assert_eq!(&out[16..], &data[12..]);
    }
}
