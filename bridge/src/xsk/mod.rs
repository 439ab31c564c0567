//! A port's transmit ring (`AF_XDP`, copy mode) over the store's frame memory: a frame the
//! store keeps in a chunk of it leaves as a descriptor of that chunk, no copy of ours, and one
//! wake-up sends the batch. Against `sendmmsg` this spares the kernel, per frame, the message
//! header's copy and checks, the packet socket's header parsing and the queueing discipline's
//! path: on veth, where no driver offers zero copy, the frame still becomes a socket buffer,
//! but less CPU goes into each (BENCHMARKS.md, the bridge's section).
//!
//! A frame in the ring is the interface's: counted as sent, its buffer released, as on a NIC
//! whose transmit ring took it; its chunk is written again only once the kernel has handed it
//! back (`FrameMemory::lend`). The bridge wakes the kernel until the ring is empty, so a frame
//! leaves in the call that queued it unless the interface is busy; what stays goes at the next
//! turn of the loop ([`XskTx::flush`]).

mod sys;

use std::io;
use std::sync::Arc;

use sys::Xsk;

use crate::store::memory::{FrameMemory, CHUNK};

/// Ring entries: frames in flight per port.
const RING: u32 = 2048;
/// Wake-ups per send while the kernel still takes descriptors: it sends up to its budget (32
/// before Linux 6.17) per wake-up.
const WAKES_PER_SEND: usize = 16;

#[derive(Debug)]
pub struct XskTx {
    // Closed before the memory it registered may go (fields drop in order).
    xsk: Xsk,
    memory: Arc<FrameMemory>,
    /// Per chunk, descriptors of this socket the kernel has not handed back: given back to the
    /// memory when the socket closes with them.
    lent: Box<[u16]>,
    /// Our transmit ring producer index (published with each send).
    producer: u32,
    /// Frames the kernel took and then dropped (the interface refused them: `EBUSY`).
    dropped: u64,
}

impl XskTx {
    /// A transmit ring on queue 0 of interface `ifindex` over `memory`.
    pub fn open(ifindex: u32, memory: Arc<FrameMemory>) -> io::Result<XskTx> {
        let xsk = Xsk::open(ifindex, memory.region(), CHUNK, RING)?;
        let lent = vec![0; memory.chunks()].into_boxed_slice();
        Ok(XskTx { xsk, memory, lent, producer: 0, dropped: 0 })
    }

    /// Whether `frame` is in the frame memory, where the ring sends it from.
    pub fn holds(&self, frame: &[u8]) -> bool {
        self.memory.chunk_of(frame).is_some()
    }

    /// Queues as many of `frames` (each in the frame memory) as there is room for and has the
    /// kernel send them; how many were queued (each is the interface's from then on). An error
    /// only when none was queued and the interface refuses to send (down, gone).
    pub fn send(&mut self, frames: &[&[u8]]) -> io::Result<usize> {
        self.reclaim();
        let room = self.xsk.tx_size() - self.xsk.tx_waiting(self.producer);
        let mut n = 0;
        for frame in frames.iter().take(room as usize) {
            let Some(chunk) = self.memory.chunk_of(frame) else { break };
            self.memory.lend(chunk);
            self.lent[chunk] += 1;
            self.xsk.set_descriptor(self.producer, chunk, frame.len());
            self.producer = self.producer.wrapping_add(1);
            n += 1;
        }
        self.xsk.publish(self.producer);
        match self.flush() {
            Err(e) if n == 0 => Err(e),
            _ => Ok(n),
        }
    }

    /// Wakes the kernel until it has taken every descriptor, it is busy, or a few wake-ups
    /// have passed; the error of the last wake-up that failed for another reason.
    pub fn flush(&mut self) -> io::Result<()> {
        for _ in 0..WAKES_PER_SEND {
            if self.xsk.tx_waiting(self.producer) == 0 {
                break;
            }
            match self.xsk.wake() {
                Ok(()) => {}
                Err(e) => match e.raw_os_error() {
                    // Its budget spent: more at the next wake-up.
                    Some(nix::libc::EAGAIN) => {}
                    // The frame taken was dropped by the interface.
                    Some(nix::libc::EBUSY) => self.dropped += 1,
                    // No memory for a socket buffer, or the interface is busy: later.
                    Some(nix::libc::ENOBUFS) => break,
                    _ => return Err(e),
                },
            }
        }
        self.reclaim();
        Ok(())
    }

    /// Whether descriptors wait for the kernel.
    pub fn pending(&self) -> bool {
        self.xsk.tx_waiting(self.producer) > 0
    }

    /// Frames the interface dropped since the last call.
    pub fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }

    /// Hands the memory back the chunks the kernel has finished with.
    fn reclaim(&mut self) {
        let (memory, lent) = (&self.memory, &mut self.lent);
        self.xsk.take_completed(|chunk| {
            if let Some(count) = lent.get_mut(chunk) {
                *count = count.saturating_sub(1);
                memory.returned(chunk, 1);
            }
        });
    }
}

impl Drop for XskTx {
    /// The socket closes with this value (in copy mode the kernel copied each frame it took
    /// when it took it), so what it still names is the store's again.
    fn drop(&mut self) {
        for (chunk, count) in self.lent.iter().enumerate().filter(|(_, c)| **c > 0) {
            self.memory.returned(chunk, u32::from(*count));
        }
    }
}
