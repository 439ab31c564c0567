use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::Picos;

/// A queue of timed events, earliest first; events at the same time come out in the order they
/// were scheduled, so runs are deterministic.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<(Picos, u64, usize)>>,
    slots: Vec<Option<E>>,
    free: Vec<usize>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), slots: Vec::new(), free: Vec::new(), seq: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn schedule(&mut self, at: Picos, event: E) {
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(event);
                i
            }
            None => {
                self.slots.push(Some(event));
                self.slots.len() - 1
            }
        };
        self.heap.push(Reverse((at, self.seq, slot)));
        self.seq += 1;
    }

    pub fn pop(&mut self) -> Option<(Picos, E)> {
        let Reverse((at, _, slot)) = self.heap.pop()?;
        self.free.push(slot);
        self.slots[slot].take().map(|e| (at, e))
    }

    pub fn peek_time(&self) -> Option<Picos> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_fifo_among_equals() {
        let mut q = EventQueue::new();
        q.schedule(Picos(5), "b");
        q.schedule(Picos(1), "a");
        q.schedule(Picos(5), "c");
        assert_eq!(q.pop(), Some((Picos(1), "a")));
        assert_eq!(q.pop(), Some((Picos(5), "b")));
        assert_eq!(q.pop(), Some((Picos(5), "c")));
        assert_eq!(q.pop(), None);
    }
}
