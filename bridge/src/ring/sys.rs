//! The packet socket's receive ring as memory shared with the kernel (`PACKET_RX_RING`,
//! `TPACKET_V2`, mmap). Every `unsafe` of the bridge is here: no safe crate maps a packet
//! socket's ring, and the status word each slot starts with is written by the kernel while we
//! read it, so it is read and written as an atomic through a raw pointer.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::atomic::{AtomicU32, Ordering};

use nix::libc;

/// `PACKET_VERSION`, `PACKET_RX_RING` (linux/if_packet.h).
const PACKET_VERSION: libc::c_int = 10;
const PACKET_RX_RING: libc::c_int = 5;
/// `PACKET_COPY_THRESH`: a frame longer than a slot is queued whole on the socket as well.
const PACKET_COPY_THRESH: libc::c_int = 7;
/// A slot's status: handed to us.
pub const TP_STATUS_USER: u32 = 1;
/// `TPACKET_V2`: fixed slots, one frame each, handed over one at a time.
const TPACKET_V2: libc::c_int = 1;

/// `struct tpacket_req`.
#[repr(C)]
struct TpacketReq {
    block_size: u32,
    block_nr: u32,
    frame_size: u32,
    frame_nr: u32,
}

/// The ring's shape: `blocks` blocks of `block_size` octets, `per_block` slots of `slot_size`
/// octets in each (a slot never straddles two blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub block_size: usize,
    pub blocks: usize,
    pub slot_size: usize,
    pub per_block: usize,
}

impl Geometry {
    pub fn slots(&self) -> usize {
        self.blocks * self.per_block
    }

    /// Where slot `k` starts in the mapping.
    pub fn offset(&self, k: usize) -> usize {
        (k / self.per_block) * self.block_size + (k % self.per_block) * self.slot_size
    }
}

/// The mapped ring; unmapped when dropped (the socket keeps its ring until it is closed).
#[derive(Debug)]
pub struct Mapping {
    base: *mut u8,
    len: usize,
    geometry: Geometry,
}

// SAFETY: the mapping is plain memory owned by this value alone; the kernel's concurrent
// writes are to status words read atomically and to slots it owns (status KERNEL).
#[allow(unsafe_code)] // a raw pointer is not Send by default; the memory is ours to move
unsafe impl Send for Mapping {}

impl Mapping {
    /// Gives `socket` a `TPACKET_V2` receive ring of `geometry` and maps it.
    pub fn attach(socket: BorrowedFd<'_>, geometry: Geometry) -> io::Result<Mapping> {
        let fd = socket.as_raw_fd();
        set_int(fd, PACKET_VERSION, TPACKET_V2)?;
        set_int(fd, PACKET_COPY_THRESH, 1)?;
        let req = TpacketReq {
            block_size: u32::try_from(geometry.block_size).map_err(too_big)?,
            block_nr: u32::try_from(geometry.blocks).map_err(too_big)?,
            frame_size: u32::try_from(geometry.slot_size).map_err(too_big)?,
            frame_nr: u32::try_from(geometry.slots()).map_err(too_big)?,
        };
        set_ring(fd, &req)?;
        let len = geometry.block_size * geometry.blocks;
        let base = map(fd, len)?;
        Ok(Mapping { base, len, geometry })
    }

    /// A second mapping of the ring `socket` already has (of `geometry`), for another thread
    /// to read its status words: each thread owns its mapping, the kernel's pages are the same.
    pub fn map_again(socket: BorrowedFd<'_>, geometry: Geometry) -> io::Result<Mapping> {
        let len = geometry.block_size * geometry.blocks;
        let base = map(socket.as_raw_fd(), len)?;
        Ok(Mapping { base, len, geometry })
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Slot `k`'s status word, read after every write the kernel made to the slot before it.
    pub fn status(&self, k: usize) -> u32 {
        self.status_word(k).load(Ordering::Acquire)
    }

    /// Gives slot `k` back to the kernel; nothing of it may be read afterwards (the borrow of
    /// `slot` has ended: `&mut self`).
    pub fn release(&mut self, k: usize) {
        self.status_word(k).store(0, Ordering::Release);
    }

    /// Slot `k`'s octets while its status says the kernel has handed it to us (`USER`): the
    /// kernel writes a slot only while its status is KERNEL, and `release` takes `&mut self`,
    /// so no slice outlives our ownership.
    pub fn owned_slot(&self, k: usize) -> Option<&[u8]> {
        if self.status(k) & TP_STATUS_USER == 0 {
            return None;
        }
        let k = k % self.geometry.slots();
        let offset = self.geometry.offset(k);
        #[allow(unsafe_code)] // the ring is memory the kernel maps; no safe view of it exists
        // SAFETY: offset + slot_size lies within the mapping (Geometry::offset of k < slots),
        // and the slice lives no longer than `&self`.
        Some(unsafe { std::slice::from_raw_parts(self.base.add(offset), self.geometry.slot_size) })
    }

    /// Slot `k`'s octets to rewrite while the kernel has handed it to us, as `owned_slot`.
    pub fn owned_slot_mut(&mut self, k: usize) -> Option<&mut [u8]> {
        if self.status(k) & TP_STATUS_USER == 0 {
            return None;
        }
        let k = k % self.geometry.slots();
        let offset = self.geometry.offset(k);
        #[allow(unsafe_code)] // the ring is memory the kernel maps; no safe view of it exists
        // SAFETY: as for `owned_slot`; the kernel does not touch a slot while it is ours, and
        // `&mut self` makes this the only view of it (a `RingWatch` reads status words only,
        // through its own mapping, atomically).
        Some(unsafe {
            std::slice::from_raw_parts_mut(self.base.add(offset), self.geometry.slot_size)
        })
    }

    /// Rewrites slot `k`'s status word while the slot is ours (its `USER` bit kept).
    pub fn set_status(&mut self, k: usize, status: u32) {
        self.status_word(k).store(status | TP_STATUS_USER, Ordering::Release);
    }

    fn status_word(&self, k: usize) -> &AtomicU32 {
        let k = k % self.geometry.slots();
        let offset = self.geometry.offset(k);
        #[allow(unsafe_code)] // the kernel writes this word concurrently: atomics through a pointer
        // SAFETY: each slot starts 16-aligned (TPACKET_ALIGNMENT; mmap is page-aligned) with
        // its u32 tp_status, within the mapping, alive as long as `self`.
        unsafe {
            AtomicU32::from_ptr(self.base.add(offset).cast::<u32>())
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        #[allow(unsafe_code)] // munmap of our own mapping
        // SAFETY: base and len are what mmap returned; no slice of it outlives `self`.
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

fn too_big(_: std::num::TryFromIntError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "ring too large")
}

#[allow(unsafe_code)] // setsockopt of an int, which nix does not wrap for SOL_PACKET
fn set_int(fd: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
    let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: a pointer to a live int and its size.
    let rc = unsafe {
        libc::setsockopt(fd, libc::SOL_PACKET, name, std::ptr::addr_of!(value).cast(), len)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[allow(unsafe_code)] // setsockopt of a tpacket_req, which no safe crate wraps
fn set_ring(fd: libc::c_int, req: &TpacketReq) -> io::Result<()> {
    let len = std::mem::size_of::<TpacketReq>() as libc::socklen_t;
    // SAFETY: a pointer to a live tpacket_req and its size.
    let rc = unsafe {
        libc::setsockopt(fd, libc::SOL_PACKET, PACKET_RX_RING, std::ptr::from_ref(req).cast(), len)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[allow(unsafe_code)] // mmap of the ring the kernel allocated for the socket
fn map(fd: libc::c_int, len: usize) -> io::Result<*mut u8> {
    // SAFETY: a fresh shared mapping of the socket's ring, at an address the kernel picks.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        Err(io::Error::last_os_error())
    } else {
        Ok(p.cast())
    }
}
