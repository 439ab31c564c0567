//! The bridge's frame memory: each received frame is stored once, whatever the number of ports
//! it leaves on, under a handle the pipeline's descriptors carry (the payload never moves, as
//! in the pipeline model), and freed when its last copy has left.
//!
//! A frame of up to [`memory::CHUNK`] octets is kept in a chunk of the frame memory the
//! transmit rings share (`memory.rs`), which it leaves from without another copy; a longer one,
//! or one that finds every chunk taken, on the heap. A chunk whose frame has gone is written
//! again only once the kernel has handed it back.

pub mod memory;

use std::collections::VecDeque;

use dataplane::time::Picos;
use tracing::warn;

use memory::{Chunks, FrameMemory, CHUNK, CHUNKS};

/// Chunks freed while the kernel held them looked at per frame stored, at most.
const COOLING_LOOKS: usize = 8;

/// A stored frame.
#[derive(Debug, Default)]
struct Slot {
    /// The frame, for a slot on the heap (a chunk's slot keeps it in its chunk).
    data: Vec<u8>,
    len: usize,
    in_port: usize,
    priority: u8,
    /// When it came in, in the bridge's time.
    arrived: Picos,
    /// Copies still to leave.
    refs: u32,
}

/// What a freed frame held: its ingress port, priority and length, for the ingress buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freed {
    pub in_port: usize,
    pub priority: u8,
    pub len: usize,
}

/// Frames by handle: handles below the frame memory's chunk count are its chunks, the others
/// slots on the heap; the handles of freed slots are reused (and their allocations with them).
#[derive(Debug)]
pub struct FrameStore {
    slots: Vec<Slot>,
    chunks: Option<Chunks>,
    /// Chunks free to write, the last freed on top (its octets likely still in the cache).
    free_chunks: Vec<u32>,
    /// Chunks whose frame has gone that a transmit ring's descriptor still named then, in the
    /// order they were freed.
    cooling: VecDeque<u32>,
    free_heap: Vec<u32>,
    in_use: usize,
}

impl Default for FrameStore {
    /// A store in [`CHUNKS`] chunks of frame memory (on the heap alone, said in the log, where
    /// none can be mapped: then no port opens a transmit ring).
    fn default() -> Self {
        let chunks = FrameMemory::map(CHUNKS)
            .map_err(|e| warn!(error = %e, "no frame memory: frames are kept on the heap and leave through the sockets, with no transmit ring"))
            .ok();
        FrameStore::with_chunks(chunks)
    }
}

impl FrameStore {
    fn with_chunks(chunks: Option<Chunks>) -> Self {
        let n = chunks.as_ref().map_or(0, |c| c.memory().chunks());
        FrameStore {
            slots: (0..n).map(|_| Slot::default()).collect(),
            chunks,
            free_chunks: (0..n as u32).rev().collect(),
            cooling: VecDeque::new(),
            free_heap: Vec::new(),
            in_use: 0,
        }
    }

    /// The frame memory, for the transmit rings to register (`None`: frames on the heap).
    pub fn memory(&self) -> Option<&std::sync::Arc<FrameMemory>> {
        self.chunks.as_ref().map(Chunks::memory)
    }

    /// Stores `frame`, received on `in_port` with `priority` at `arrived`, to leave on `copies`
    /// ports.
    pub fn put(
        &mut self,
        frame: &[u8],
        (in_port, priority, arrived): (usize, u8, Picos),
        copies: u32,
    ) -> u32 {
        let chunk = if frame.len() <= CHUNK { self.take_chunk() } else { None };
        let handle = match chunk {
            Some(h) => {
                if let Some(chunks) = self.chunks.as_mut() {
                    chunks.write(h as usize, frame);
                }
                h
            }
            None => {
                let h = self.take_heap();
                let data = &mut self.slots[h as usize].data;
                data.clear();
                data.extend_from_slice(frame);
                h
            }
        };
        let slot = &mut self.slots[handle as usize];
        slot.len = frame.len();
        slot.in_port = in_port;
        slot.priority = priority;
        slot.arrived = arrived;
        slot.refs = copies;
        self.in_use += 1;
        handle
    }

    /// A chunk no transmit ring holds, the most recently freed first. Chunks the kernel has
    /// handed back since they were freed join the free ones first, oldest first; one it still
    /// holds goes to the back, so that a descriptor never completed holds up none behind it.
    fn take_chunk(&mut self) -> Option<u32> {
        let memory = self.chunks.as_ref()?.memory();
        for _ in 0..COOLING_LOOKS.min(self.cooling.len()) {
            let Some(h) = self.cooling.pop_front() else { break };
            if !memory.in_kernel(h as usize) {
                self.free_chunks.push(h);
                continue;
            }
            self.cooling.push_back(h);
            if !self.free_chunks.is_empty() {
                break;
            }
        }
        self.free_chunks.pop()
    }

    fn take_heap(&mut self) -> u32 {
        self.free_heap.pop().unwrap_or_else(|| {
            self.slots.push(Slot::default());
            (self.slots.len() - 1) as u32
        })
    }

    fn is_chunk(&self, handle: u32) -> bool {
        self.chunks.as_ref().is_some_and(|c| (handle as usize) < c.memory().chunks())
    }

    fn live(&self, handle: u32) -> Option<&Slot> {
        self.slots.get(handle as usize).filter(|s| s.refs > 0)
    }

    /// The frame under `handle` (empty for a handle not in use).
    pub fn get(&self, handle: u32) -> &[u8] {
        let Some(slot) = self.live(handle) else { return &[] };
        match self.chunks.as_ref() {
            Some(chunks) if self.is_chunk(handle) => chunks.read(handle as usize, slot.len),
            _ => &slot.data,
        }
    }

    /// The priority the frame under `handle` was received with.
    pub fn priority(&self, handle: u32) -> Option<u8> {
        self.live(handle).map(|s| s.priority)
    }

    /// The ingress port, priority and length of the frame under `handle`.
    pub fn origin(&self, handle: u32) -> Option<(usize, u8, usize)> {
        self.live(handle).map(|s| (s.in_port, s.priority, s.len))
    }

    /// When the frame under `handle` came in.
    pub fn arrived(&self, handle: u32) -> Option<Picos> {
        self.live(handle).map(|s| s.arrived)
    }

    /// One copy of the frame has left; returns what it held when that was the last.
    pub fn release(&mut self, handle: u32) -> Option<Freed> {
        let chunk = self.is_chunk(handle);
        let slot = self.slots.get_mut(handle as usize).filter(|s| s.refs > 0)?;
        slot.refs -= 1;
        if slot.refs > 0 {
            return None;
        }
        let freed = Freed { in_port: slot.in_port, priority: slot.priority, len: slot.len };
        let held = || self.chunks.as_ref().is_some_and(|c| c.memory().in_kernel(handle as usize));
        if chunk && held() {
            self.cooling.push_back(handle);
        } else if chunk {
            self.free_chunks.push(handle);
        } else {
            self.free_heap.push(handle);
        }
        self.in_use -= 1;
        Some(freed)
    }

    /// Frames stored and not yet gone.
    pub fn in_use(&self) -> usize {
        self.in_use
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flooded_frame_is_freed_after_its_last_copy() {
        let mut store = FrameStore::default();
        let h = store.put(&[1, 2, 3], (0, 3, Picos::ZERO), 2);
        assert_eq!(store.get(h), &[1, 2, 3]);
        assert_eq!(store.release(h), None);
        assert_eq!(store.get(h), &[1, 2, 3], "one copy still to leave");
        assert_eq!(store.release(h), Some(Freed { in_port: 0, priority: 3, len: 3 }));
        assert_eq!(store.in_use(), 0);
        assert_eq!(store.release(h), None, "a freed handle releases nothing");
        let again = store.put(&[9], (1, 0, Picos(5)), 1);
        assert_eq!(again, h, "the slot is reused");
        assert_eq!(store.get(again), &[9]);
        assert_eq!(store.arrived(again), Some(Picos(5)));
    }

    #[test]
    fn a_chunk_the_kernel_still_reads_is_not_written_and_long_frames_go_to_the_heap() {
        let mut store = FrameStore::with_chunks(Some(FrameMemory::map(2).expect("memory")));
        let memory = store.memory().expect("chunks").clone();
        let a = store.put(&[1; 100], (0, 3, Picos::ZERO), 1);
        assert_eq!(memory.chunk_of(store.get(a)), Some(a as usize), "kept in its chunk");
        memory.lend(a as usize);
        store.release(a);
        let b = store.put(&[2; 100], (0, 3, Picos::ZERO), 1);
        assert_ne!(b, a, "the chunk a transmit ring holds is passed over");
        let c = store.put(&[3; 100], (0, 3, Picos::ZERO), 1);
        assert_eq!(memory.chunk_of(store.get(c)), None, "every chunk taken: on the heap");
        assert_eq!(store.get(c), &[3; 100]);
        let jumbo = store.put(&[4; 9000], (0, 3, Picos::ZERO), 1);
        assert_eq!(store.get(jumbo), &[4; 9000][..]);
        for heap in [c, jumbo] {
            assert!(store.release(heap).is_some(), "a frame on the heap is freed");
        }
        memory.returned(a as usize, 1);
        store.release(b);
        let d = store.put(&[5; 60], (1, 0, Picos::ZERO), 1);
        assert!(d == a || d == b, "chunks back once the kernel is done: {d}");
        assert_eq!(store.get(d), &[5; 60]);
        let other = if d == a { b } else { a };
        assert_eq!(store.get(other), &[] as &[u8], "the other is free");
    }

    #[test]
    fn a_chunk_the_kernel_never_hands_back_holds_up_none_freed_after_it() {
        let mut store = FrameStore::with_chunks(Some(FrameMemory::map(2).expect("memory")));
        let memory = store.memory().expect("chunks").clone();
        let stuck = store.put(&[1; 64], (0, 0, Picos::ZERO), 1);
        let later = store.put(&[2; 64], (0, 0, Picos::ZERO), 1);
        for h in [stuck, later] {
            memory.lend(h as usize);
            store.release(h);
        }
        memory.returned(later as usize, 1);
        let again = store.put(&[3; 64], (0, 0, Picos::ZERO), 1);
        assert_eq!(again, later, "the chunk handed back is taken, past the one still held");
        assert_eq!(memory.chunk_of(store.get(again)), Some(later as usize));
    }
}
