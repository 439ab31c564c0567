//! A port's transmit ring (`AF_XDP`, copy mode): the bridge copies each frame into frame
//! memory it shares with the kernel, writes a descriptor, and one wake-up sends the batch.
//! Against `sendmmsg` this spares the kernel, per frame, the message header's copy and checks,
//! the packet socket's header parsing and the queueing discipline's path: on veth, where no
//! driver offers zero copy, the frame still becomes a socket buffer, but about a fifth less
//! CPU goes into each (BENCHMARKS.md, the bridge's section).
//!
//! A frame in the ring is the interface's: counted as sent, its buffer released, as on a NIC
//! whose transmit ring took it. The bridge wakes the kernel until the ring is empty, so a frame
//! leaves in the call that queued it unless the interface is busy; what stays goes at the next
//! turn of the loop ([`XskTx::flush`]).

mod sys;

use std::io;

use sys::Xsk;

/// Octets of each frame's chunk: a tagged 1518-octet frame fits; longer ones go through the
/// packet socket, after the ring has emptied (their order kept).
pub const CHUNK: usize = 2048;
/// Chunks (and ring entries): 4 MiB of frame memory per port, 2 048 frames in flight.
const CHUNKS: usize = 2048;
/// Wake-ups per send while the kernel still takes descriptors: it sends up to its budget (32
/// before Linux 6.17) per wake-up.
const WAKES_PER_SEND: usize = 16;

#[derive(Debug)]
pub struct XskTx {
    xsk: Xsk,
    /// Chunks no descriptor in the kernel's hands uses.
    free: Vec<usize>,
    /// Our transmit ring producer index (published with each send).
    producer: u32,
    /// Frames the kernel took and then dropped (the interface refused them: `EBUSY`).
    dropped: u64,
}

impl XskTx {
    /// A transmit ring on queue 0 of interface `ifindex`.
    pub fn open(ifindex: u32) -> io::Result<XskTx> {
        let xsk = Xsk::open(ifindex, CHUNK, CHUNKS, CHUNKS as u32)?;
        Ok(XskTx { xsk, free: (0..CHUNKS).rev().collect(), producer: 0, dropped: 0 })
    }

    /// Whether `frame` fits a chunk.
    pub fn fits(frame: &[u8]) -> bool {
        frame.len() <= CHUNK
    }

    /// Queues as many of `frames` (each fitting a chunk) as there is room for and has the
    /// kernel send them; how many were queued (each is the interface's from then on). An error
    /// only when none was queued and the interface refuses to send (down, gone).
    pub fn send(&mut self, frames: &[&[u8]]) -> io::Result<usize> {
        self.reclaim();
        let room = self.xsk.tx_size() - self.xsk.tx_waiting(self.producer);
        let n = frames.len().min(self.free.len()).min(room as usize);
        for frame in &frames[..n] {
            let Some(chunk) = self.free.pop() else { break };
            self.xsk.write_chunk(chunk, frame);
            self.xsk.set_descriptor(self.producer, chunk, frame.len());
            self.producer = self.producer.wrapping_add(1);
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

    fn reclaim(&mut self) {
        let free = &mut self.free;
        self.xsk.take_completed(|chunk| free.push(chunk));
    }
}
