//! The bridge's frame memory: each received frame is stored once, whatever the number of ports
//! it leaves on, under a handle the pipeline's descriptors carry (the payload never moves, as
//! in the pipeline model), and freed when its last copy has left.

use dataplane::time::Picos;

/// A stored frame.
#[derive(Debug, Default)]
struct Slot {
    data: Vec<u8>,
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

/// Frames by handle, the handles of freed slots reused (and their allocations with them).
#[derive(Debug, Default)]
pub struct FrameStore {
    slots: Vec<Slot>,
    free: Vec<u32>,
    in_use: usize,
}

impl FrameStore {
    /// Stores `frame`, received on `in_port` with `priority` at `arrived`, to leave on `copies`
    /// ports.
    pub fn put(
        &mut self,
        frame: &[u8],
        (in_port, priority, arrived): (usize, u8, Picos),
        copies: u32,
    ) -> u32 {
        let handle = match self.free.pop() {
            Some(h) => h,
            None => {
                self.slots.push(Slot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[handle as usize];
        slot.data.clear();
        slot.data.extend_from_slice(frame);
        slot.in_port = in_port;
        slot.priority = priority;
        slot.arrived = arrived;
        slot.refs = copies;
        self.in_use += 1;
        handle
    }

    /// The frame under `handle` (empty for a handle not in use).
    pub fn get(&self, handle: u32) -> &[u8] {
        self.slots.get(handle as usize).filter(|s| s.refs > 0).map_or(&[], |s| &s.data)
    }

    /// The priority the frame under `handle` was received with.
    pub fn priority(&self, handle: u32) -> Option<u8> {
        self.slots.get(handle as usize).filter(|s| s.refs > 0).map(|s| s.priority)
    }

    /// The ingress port, priority and length of the frame under `handle`.
    pub fn origin(&self, handle: u32) -> Option<(usize, u8, usize)> {
        self.slots
            .get(handle as usize)
            .filter(|s| s.refs > 0)
            .map(|s| (s.in_port, s.priority, s.data.len()))
    }

    /// When the frame under `handle` came in.
    pub fn arrived(&self, handle: u32) -> Option<Picos> {
        self.slots.get(handle as usize).filter(|s| s.refs > 0).map(|s| s.arrived)
    }

    /// One copy of the frame has left; returns what it held when that was the last.
    pub fn release(&mut self, handle: u32) -> Option<Freed> {
        let slot = self.slots.get_mut(handle as usize).filter(|s| s.refs > 0)?;
        slot.refs -= 1;
        if slot.refs > 0 {
            return None;
        }
        self.free.push(handle);
        self.in_use -= 1;
        Some(Freed { in_port: slot.in_port, priority: slot.priority, len: slot.data.len() })
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
}
