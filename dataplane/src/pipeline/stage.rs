use std::collections::VecDeque;

use super::fd::FdId;

/// One pipeline stage: a delay line of `latency` cycles holding at most `capacity` FDs.
#[derive(Debug)]
pub(crate) struct Stage {
    latency: u64,
    capacity: usize,
    slots: VecDeque<(u64, FdId)>,
}

impl Stage {
    pub fn new(latency: u64, capacity: usize) -> Self {
        Stage { latency, capacity: capacity.max(1), slots: VecDeque::with_capacity(capacity) }
    }

    pub fn has_room(&self) -> bool {
        self.slots.len() < self.capacity
    }

    pub fn push(&mut self, cycle: u64, fd: FdId) {
        self.slots.push_back((cycle + self.latency, fd));
    }

    /// The FD at the head if its latency has elapsed by `cycle`.
    pub fn ready(&self, cycle: u64) -> Option<FdId> {
        self.slots.front().filter(|(at, _)| *at <= cycle).map(|(_, fd)| *fd)
    }

    pub fn pop(&mut self) -> Option<FdId> {
        self.slots.pop_front().map(|(_, fd)| fd)
    }
}
