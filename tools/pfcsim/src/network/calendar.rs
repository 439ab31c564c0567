//! The network run's event queue: a calendar of buckets about a microsecond wide over the next
//! 64 µs, where nearly every event falls (a frame's end, its arrival, the next frame of a flow),
//! and a binary heap for the few beyond (a port's wake-up at the end of its peer's pause, up to
//! 3.4 ms ahead at 10G; thousands pending at once in an incast). A binary heap over all of them
//! paid a dozen levels per event; the calendar files an event in its bucket at once and sorts
//! only the current bucket's few, and its buckets are reused often enough to stay in cache. The
//! order is exactly a binary heap's over (time, order of scheduling): earliest first, and first
//! scheduled first among equal times.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use dataplane::time::Picos;

/// A bucket covers 2^20 ps (1.05 µs), about a 1000-octet frame's time at 10G.
const BUCKET_SHIFT: u32 = 20;
/// Buckets in the calendar: it covers 67 µs ahead; later events wait in `later`.
const BUCKETS: u64 = 64;

struct Entry<E> {
    at: Picos,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

fn bucket(at: Picos) -> u64 {
    at.as_ps() >> BUCKET_SHIFT
}

/// Timed events, earliest first; among equal times, in the order they were scheduled.
pub(super) struct CalendarQueue<E> {
    /// The events of the current bucket and any earlier one, in order.
    current: BinaryHeap<Reverse<Entry<E>>>,
    /// The bucket `current` holds.
    now: u64,
    /// Events of buckets `now + 1` to `now + BUCKETS - 1`, each in slot `bucket % BUCKETS`.
    calendar: Vec<Vec<Entry<E>>>,
    in_calendar: usize,
    /// Events beyond the calendar, earliest first.
    later: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
}

impl<E> CalendarQueue<E> {
    pub fn new() -> Self {
        CalendarQueue {
            current: BinaryHeap::new(),
            now: 0,
            calendar: (0..BUCKETS).map(|_| Vec::new()).collect(),
            in_calendar: 0,
            later: BinaryHeap::new(),
            seq: 0,
        }
    }

    pub fn schedule(&mut self, at: Picos, event: E) {
        let entry = Entry { at, seq: self.seq, event };
        self.seq += 1;
        self.place(entry);
    }

    fn place(&mut self, entry: Entry<E>) {
        let b = bucket(entry.at);
        if b <= self.now {
            self.current.push(Reverse(entry));
        } else if b - self.now < BUCKETS {
            self.calendar[(b % BUCKETS) as usize].push(entry);
            self.in_calendar += 1;
        } else {
            self.later.push(Reverse(entry));
        }
    }

    pub fn pop(&mut self) -> Option<(Picos, E)> {
        loop {
            if let Some(Reverse(e)) = self.current.pop() {
                return Some((e.at, e.event));
            }
            if self.in_calendar == 0 {
                // Nothing within the calendar: straight to the earliest later event's bucket.
                self.now = bucket(self.later.peek()?.0.at);
                self.take_due_later();
            } else {
                self.advance();
            }
        }
    }

    /// Moves to the next bucket: its events become current, and the later events that now
    /// fall within the calendar enter it.
    fn advance(&mut self) {
        self.now += 1;
        let slot = &mut self.calendar[(self.now % BUCKETS) as usize];
        self.in_calendar -= slot.len();
        self.current.extend(slot.drain(..).map(Reverse));
        self.take_due_later();
    }

    fn take_due_later(&mut self) {
        while self.later.peek().is_some_and(|e| bucket(e.0.at).saturating_sub(self.now) < BUCKETS) {
            if let Some(Reverse(entry)) = self.later.pop() {
                self.place(entry);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use dataplane::sim::{EventQueue, SimRng};

    use super::*;

    /// Whatever the times (equal ones, far ones, gaps, events scheduled while popping), the
    /// calendar gives the events in the order the binary heap does.
    #[test]
    fn pops_in_the_order_of_a_binary_heap() {
        let mut rng = SimRng::new(7);
        let mut calendar = CalendarQueue::new();
        let mut heap = EventQueue::new();
        let mut now = 0u64;
        let mut popped = 0;
        for id in 0..200_000u64 {
            let gap = match rng.next_u64() % 10 {
                0 => 0,
                1..=5 => rng.next_u64() % 2_000_000,
                6 | 7 => (rng.next_u64() % 8) << BUCKET_SHIFT,
                8 => rng.next_u64() % 4_000_000_000,
                _ => rng.next_u64() % 40_000_000_000,
            };
            calendar.schedule(Picos(now + gap), id);
            heap.schedule(Picos(now + gap), id);
            if rng.next_u64() % 3 != 0 {
                let got = calendar.pop();
                assert_eq!(got, heap.pop(), "pop {popped}");
                popped += 1;
                now = got.map_or(now, |(t, _)| t.as_ps());
            }
        }
        while let Some(got) = heap.pop() {
            assert_eq!(calendar.pop(), Some(got));
        }
        assert_eq!(calendar.pop(), None);
    }

    #[test]
    fn an_event_earlier_than_the_current_bucket_still_comes_first() {
        let mut q = CalendarQueue::new();
        q.schedule(Picos(5 << BUCKET_SHIFT), "b");
        assert_eq!(q.pop(), Some((Picos(5 << BUCKET_SHIFT), "b")));
        q.schedule(Picos(9 << BUCKET_SHIFT), "d");
        q.schedule(Picos(1), "a");
        q.schedule(Picos(5 << BUCKET_SHIFT), "c");
        assert_eq!(q.pop(), Some((Picos(1), "a")));
        assert_eq!(q.pop(), Some((Picos(5 << BUCKET_SHIFT), "c")));
        assert_eq!(q.pop(), Some((Picos(9 << BUCKET_SHIFT), "d")));
        assert_eq!(q.pop(), None);
    }
}
