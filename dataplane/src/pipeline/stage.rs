use super::fd::Fd;
use super::ring::Ring;

/// An FD in a delay line with the cycle at which its latency has elapsed.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    ready: u64,
    fd: Fd,
}

/// One pipeline stage: a delay line of `latency` cycles holding at most `capacity` FDs. The FDs
/// themselves travel through it (24 octets), so no slab lookup is needed on the way.
#[derive(Debug)]
pub(crate) struct Stage {
    latency: u64,
    capacity: usize,
    slots: Ring<Slot>,
}

impl Stage {
    pub fn new(latency: u64, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Stage { latency, capacity, slots: Ring::with_capacity(capacity) }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.slots.len() < self.capacity
    }

    #[inline]
    pub fn push(&mut self, cycle: u64, fd: Fd) {
        self.slots.push_back(Slot { ready: cycle + self.latency, fd });
    }

    /// Puts an FD in at the tail with the cycle its latency elapses (the direct path handing
    /// FDs back: see `engine/direct.rs`).
    pub fn push_ready(&mut self, ready: u64, fd: Fd) {
        self.slots.push_back(Slot { ready, fd });
    }

    pub fn latency(&self) -> u64 {
        self.latency
    }

    /// When the head's latency elapses (None if empty).
    pub fn head_ready(&self) -> Option<u64> {
        self.slots.front().map(|s| s.ready)
    }

    /// Every FD, oldest first, with the cycle its latency elapses.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Fd)> + '_ {
        self.slots.iter().map(|s| (s.ready, &s.fd))
    }

    /// Takes every FD, oldest first, with the cycle its latency elapses.
    pub fn take_all(&mut self, mut f: impl FnMut(u64, Fd)) {
        while let Some(s) = self.slots.pop_front() {
            f(s.ready, s.fd);
        }
    }

    /// Offers every FD, oldest first, with the cycle its latency elapses, to `take`, which
    /// returns whether it took it; the others stay, in order.
    pub fn take_where(&mut self, mut take: impl FnMut(u64, Fd) -> bool) {
        for _ in 0..self.slots.len() {
            if let Some(s) = self.slots.pop_front() {
                if !take(s.ready, s.fd) {
                    self.slots.push_back(s);
                }
            }
        }
    }

    /// Takes the FD at the head if its latency has elapsed by `cycle`.
    #[inline]
    pub fn pop_ready(&mut self, cycle: u64) -> Option<Fd> {
        if self.slots.front()?.ready <= cycle {
            self.slots.pop_front().map(|s| s.fd)
        } else {
            None
        }
    }

    /// Drops the head (after `peek_ready` returned it).
    #[inline]
    pub fn pop(&mut self) {
        self.slots.pop_front();
    }

    /// The FD at the head if its latency has elapsed by `cycle`, left in place.
    #[inline]
    pub fn peek_ready(&self, cycle: u64) -> Option<&Fd> {
        self.slots.front().filter(|s| s.ready <= cycle).map(|s| &s.fd)
    }
}
