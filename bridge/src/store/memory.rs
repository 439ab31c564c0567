//! The bridge's frame memory: one mapping of fixed-size chunks that the store keeps frames in
//! and that every port's transmit ring (`crate::xsk`) registers as its UMEM. A stored frame then
//! leaves through a ring as a descriptor of where it already is, not as a copy.
//!
//! The kernel reads a chunk from the moment a descriptor names it until it hands the chunk back
//! on the completion ring; each chunk counts the descriptors out, and the store writes a chunk
//! only while that count is zero. Every `unsafe` of the frame memory is in this file: no safe
//! type gives memory a fixed address the kernel may read while we hold it.

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use nix::libc;

/// Octets of each chunk: a tagged 1518-octet frame fits (a power of two, as the UMEM wants).
pub const CHUNK: usize = 2048;
/// Chunks: 16 MiB, frames the bridge holds at once before longer ones and the rest are kept
/// on the heap (and leave through the packet socket).
pub const CHUNKS: usize = 8192;

/// The mapping and, per chunk, the descriptors the kernel holds: shared by the store and the
/// transmit rings.
#[derive(Debug)]
pub struct FrameMemory {
    base: *mut u8,
    len: usize,
    in_kernel: Box<[AtomicU32]>,
}

// SAFETY: the mapping is plain memory owned by this value; its octets are written only through
// the one `Chunks` (which takes `&mut self` to write), and the counters are atomics.
#[allow(unsafe_code)] // a raw pointer is neither Send nor Sync by default
unsafe impl Send for FrameMemory {}
#[allow(unsafe_code)] // as above
unsafe impl Sync for FrameMemory {}

impl FrameMemory {
    /// Maps `chunks` chunks; the one writer of their octets is the `Chunks` returned.
    pub fn map(chunks: usize) -> io::Result<Chunks> {
        let len = chunks * CHUNK;
        #[allow(unsafe_code)] // mmap of memory whose address must not move
        // SAFETY: a fresh private anonymous mapping at an address the kernel picks; pages are
        // given on first touch (or when a transmit ring pins them).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let memory = FrameMemory {
            base: p.cast(),
            len,
            in_kernel: (0..chunks).map(|_| AtomicU32::new(0)).collect(),
        };
        Ok(Chunks { memory: Arc::new(memory) })
    }

    /// The mapping's address and length, for a UMEM registration.
    pub fn region(&self) -> (u64, usize) {
        (self.base as u64, self.len)
    }

    pub fn chunks(&self) -> usize {
        self.in_kernel.len()
    }

    /// The chunk `frame` is stored in from its start, if it is one of ours.
    pub fn chunk_of(&self, frame: &[u8]) -> Option<usize> {
        let offset = (frame.as_ptr() as usize).checked_sub(self.base as usize)?;
        (offset < self.len && offset % CHUNK == 0 && frame.len() <= CHUNK).then_some(offset / CHUNK)
    }

    /// A descriptor naming `chunk` is in the kernel's hands.
    pub fn lend(&self, chunk: usize) {
        self.in_kernel[chunk].fetch_add(1, Ordering::Relaxed);
    }

    /// `n` descriptors naming `chunk` have come back.
    pub fn returned(&self, chunk: usize, n: u32) {
        let _ = self.in_kernel[chunk]
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| Some(c.saturating_sub(n)));
    }

    /// Whether the kernel may still read `chunk`.
    pub fn in_kernel(&self, chunk: usize) -> bool {
        self.in_kernel.get(chunk).is_some_and(|c| c.load(Ordering::Relaxed) > 0)
    }
}

impl Drop for FrameMemory {
    fn drop(&mut self) {
        #[allow(unsafe_code)] // munmap of our own mapping
        // SAFETY: base and len are what mmap returned; the last owner is going, so no slice
        // of it is alive (a UMEM registration keeps its own pin on the pages).
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

/// The frame memory's one writer and reader of octets: the store.
#[derive(Debug)]
pub struct Chunks {
    memory: Arc<FrameMemory>,
}

impl Chunks {
    /// The memory, to share with the transmit rings.
    pub fn memory(&self) -> &Arc<FrameMemory> {
        &self.memory
    }

    /// Copies `frame` (at most [`CHUNK`] octets) into `chunk`, which the kernel does not hold.
    pub fn write(&mut self, chunk: usize, frame: &[u8]) {
        assert!(
            chunk < self.memory.chunks() && frame.len() <= CHUNK && !self.memory.in_kernel(chunk),
            "a free chunk holds the frame"
        );
        #[allow(unsafe_code)] // the chunk is memory the kernel may read through a descriptor
        // SAFETY: the chunk lies within the mapping; no descriptor the kernel holds names it
        // (checked above), and `&mut self` ends every slice read from it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                frame.as_ptr(),
                self.memory.base.add(chunk * CHUNK),
                frame.len(),
            );
        }
    }

    /// The first `len` octets of `chunk`.
    pub fn read(&self, chunk: usize, len: usize) -> &[u8] {
        assert!(chunk < self.memory.chunks() && len <= CHUNK, "within the memory");
        #[allow(unsafe_code)] // the chunk is memory the kernel may read at the same time
        // SAFETY: within the mapping; written only through `write`, which takes `&mut self`.
        unsafe {
            std::slice::from_raw_parts(self.memory.base.add(chunk * CHUNK), len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_found_in_its_chunk_and_nowhere_else() {
        let mut chunks = FrameMemory::map(4).expect("memory");
        chunks.write(2, &[7; 60]);
        let memory = chunks.memory().clone();
        let stored = chunks.read(2, 60);
        assert_eq!(stored, &[7; 60]);
        assert_eq!(memory.chunk_of(stored), Some(2));
        assert_eq!(memory.chunk_of(&stored[1..]), None, "not from a chunk's start");
        assert_eq!(memory.chunk_of(&[7; 60]), None, "elsewhere");
        memory.lend(2);
        memory.lend(2);
        assert!(memory.in_kernel(2));
        memory.returned(2, 2);
        assert!(!memory.in_kernel(2));
    }
}
