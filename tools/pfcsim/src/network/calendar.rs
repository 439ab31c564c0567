//! The network run's event queue: a timing wheel of two levels and a binary heap. Nearly every
//! event falls within the next microseconds (a frame's end, its arrival, the next frame of a
//! flow): those go to fine buckets of 65 ns, 1024 of them (67 µs). Thousands more wait
//! milliseconds ahead (a port's wake-up at the end of its peer's pause, up to 3.4 ms at 10G, in
//! an incast): those go to coarse buckets of 67 µs, 256 of them (17 ms), and move to the fine
//! buckets when their turn comes; only events further still wait in a heap. Filing an event is
//! a push onto its bucket; only the current fine bucket's few are sorted, and the empty ones
//! (more than half in an incast) are passed over with a look at each. The order is exactly a
//! binary heap's over (time, order of scheduling): earliest first, and first scheduled first
//! among equal times. The current bucket is kept earliest first, as its events were mostly
//! scheduled (sorting it is then a pass), and taken from the front.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use dataplane::time::Picos;

/// A fine bucket covers 2^16 ps (65.5 ns): an incast at 10G has about two events in each.
const BUCKET_SHIFT: u32 = 16;
/// Fine buckets: 67 µs ahead.
const FINE: u64 = 1024;
/// Fine buckets per coarse one (log2).
const COARSE_SHIFT: u32 = 10;
/// Coarse buckets: 17 ms ahead.
const COARSE: u64 = 256;
// Slots are found by masking.
const _: () = assert!(FINE.is_power_of_two() && COARSE.is_power_of_two());

/// Ordered by time, then by the order of scheduling. (Two 64-bit fields, not one 128-bit key,
/// whose 16-octet alignment would pad every entry and keep fewer of the buckets in cache.)
struct Entry<E> {
    at: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    fn new(at: Picos, seq: u64, event: E) -> Self {
        Entry { at: at.as_ps(), seq, event }
    }

    fn at(&self) -> Picos {
        Picos(self.at)
    }
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

/// Where an event is kept.
enum Place {
    Current,
    Fine(usize),
    Coarse(usize),
    Later,
}

/// The fine bucket of a time.
fn bucket(at: Picos) -> u64 {
    at.as_ps() >> BUCKET_SHIFT
}

/// Timed events, earliest first; among equal times, in the order they were scheduled.
pub(super) struct CalendarQueue<E> {
    /// The events of the current fine bucket and any earlier one, earliest first, from `head`
    /// on (those before it were taken). (One or two: a sorted insertion beats a heap's
    /// sifting.)
    current: Vec<Entry<E>>,
    head: usize,
    /// The fine bucket `current` holds.
    now: u64,
    /// Events of fine buckets `now + 1` to `now + FINE - 1`, each in slot `bucket % FINE`.
    /// (Arrays of the buckets' number: a slot found by masking needs no bounds check.)
    fine: Box<[Vec<Entry<E>>; FINE as usize]>,
    in_fine: usize,
    /// Events of the coarse buckets after the current one, up to `COARSE - 1` ahead, each in
    /// slot `coarse bucket % COARSE`; a coarse bucket moves to the fine ones as it starts.
    coarse: Box<[Vec<Entry<E>>; COARSE as usize]>,
    in_coarse: usize,
    /// Events beyond the coarse buckets, earliest first.
    later: BinaryHeap<Reverse<Entry<E>>>,
    /// The next place in the order of scheduling (from 1: place 0 at time 0 is the "taken
    /// last" of a queue that has given nothing yet, before every event).
    seq: u64,
    /// The time and place of the event taken last.
    last: (u64, u64),
}

impl<E: Copy> CalendarQueue<E> {
    pub fn new() -> Self {
        CalendarQueue {
            current: Vec::new(),
            head: 0,
            now: 0,
            fine: Box::new(std::array::from_fn(|_| Vec::new())),
            in_fine: 0,
            coarse: Box::new(std::array::from_fn(|_| Vec::new())),
            in_coarse: 0,
            later: BinaryHeap::new(),
            seq: 1,
            last: (0, 0),
        }
    }

    /// Takes the next place in the order of scheduling without an event: an event that may
    /// never be needed keeps the place it would have had ([`Self::schedule_reserved`]).
    pub fn reserve(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq
    }

    /// Whether an event at `at` with the place `seq` would already have been taken.
    pub fn passed(&self, at: Picos, seq: u64) -> bool {
        (at.as_ps(), seq) <= self.last
    }

    /// Schedules `event` at `at` in the place `seq` that [`Self::reserve`] gave, which must not
    /// have [`Self::passed`].
    pub fn schedule_reserved(&mut self, at: Picos, seq: u64, event: E) {
        debug_assert!(!self.passed(at, seq), "an event is scheduled behind the present");
        self.file(at, seq, event);
    }

    // Inlined: nearly every event schedules one or two, and the call's saving and restoring of
    // registers cost as much as the filing (callgrind: 3 % of the incast's instructions).
    #[inline(always)]
    pub fn schedule(&mut self, at: Picos, event: E) {
        let seq = self.reserve();
        self.file(at, seq, event);
    }

    #[inline(always)]
    fn file(&mut self, at: Picos, seq: u64, event: E) {
        // The entry is built where it is kept (a copy of a freshly written one stalls).
        match self.place_of(at) {
            Place::Current => self.insert_current(Entry::new(at, seq, event)),
            Place::Fine(i) => {
                self.fine[i].push(Entry::new(at, seq, event));
                self.in_fine += 1;
            }
            Place::Coarse(i) => {
                self.coarse[i].push(Entry::new(at, seq, event));
                self.in_coarse += 1;
            }
            Place::Later => self.later.push(Reverse(Entry::new(at, seq, event))),
        }
    }

    fn place_of(&self, at: Picos) -> Place {
        let b = bucket(at);
        if b <= self.now {
            Place::Current
        } else if b - self.now < FINE {
            Place::Fine((b & (FINE - 1)) as usize)
        } else if (b >> COARSE_SHIFT) - (self.now >> COARSE_SHIFT) < COARSE {
            Place::Coarse(((b >> COARSE_SHIFT) & (COARSE - 1)) as usize)
        } else {
            Place::Later
        }
    }

    fn insert_current(&mut self, entry: Entry<E>) {
        // Most often the latest of the bucket (scheduled last, rarely earlier than the rest).
        if self.current.last().is_none_or(|last| *last < entry) {
            self.current.push(entry);
            return;
        }
        // Otherwise it moves down past the later ones (one or two).
        self.current.push(entry);
        let mut at = self.current.len() - 1;
        while at > self.head && self.current[at] < self.current[at - 1] {
            self.current.swap(at, at - 1);
            at -= 1;
        }
    }

    /// Files an entry again, as time moves on.
    fn place(&mut self, entry: Entry<E>) {
        match self.place_of(entry.at()) {
            Place::Current => self.insert_current(entry),
            Place::Fine(i) => {
                self.fine[i].push(entry);
                self.in_fine += 1;
            }
            Place::Coarse(i) => {
                self.coarse[i].push(entry);
                self.in_coarse += 1;
            }
            Place::Later => self.later.push(Reverse(entry)),
        }
    }

    pub fn pop(&mut self) -> Option<(Picos, E)> {
        loop {
            if let Some(e) = self.current.get(self.head) {
                self.head += 1;
                self.last = (e.at, e.seq);
                return Some((e.at(), e.event));
            }
            if self.in_fine == 0 {
                // Nothing in the fine buckets: on to the start of the next coarse bucket that
                // holds anything, or of the earliest later event's.
                let next = if self.in_coarse > 0 {
                    (self.now >> COARSE_SHIFT) + 1
                } else {
                    bucket(self.later.peek()?.0.at()) >> COARSE_SHIFT
                };
                self.now = (next << COARSE_SHIFT) - 1;
            }
            self.advance();
        }
    }

    /// Moves to the next fine bucket with events (there is one before the next coarse bucket
    /// if any fine one holds events), or to the next coarse bucket's start: its events become
    /// current. As a coarse bucket starts, the later events that now fall within the coarse
    /// buckets enter them, and the coarse bucket's events spread over the fine ones.
    fn advance(&mut self) {
        self.current.clear();
        self.head = 0;
        // Past the empty fine buckets (more than half of an incast's), to the next that holds
        // events or the start of the next coarse bucket, whichever comes first.
        self.now += 1;
        while !self.now.is_multiple_of(FINE)
            && self.fine[(self.now & (FINE - 1)) as usize].is_empty()
        {
            self.now += 1;
        }
        if self.now.is_multiple_of(FINE) {
            let coarse_now = self.now >> COARSE_SHIFT;
            while self.later.peek().is_some_and(|e| {
                (bucket(e.0.at()) >> COARSE_SHIFT).saturating_sub(coarse_now) < COARSE
            }) {
                if let Some(Reverse(entry)) = self.later.pop() {
                    self.place(entry);
                }
            }
            let slot = std::mem::take(&mut self.coarse[(coarse_now & (COARSE - 1)) as usize]);
            self.in_coarse -= slot.len();
            for entry in slot {
                self.place(entry);
            }
        }
        let slot = &mut self.fine[(self.now & (FINE - 1)) as usize];
        self.in_fine -= slot.len();
        if self.current.is_empty() {
            // The bucket's vector becomes the current one, and the emptied current one takes
            // its place for the bucket FINE ahead: no copy.
            std::mem::swap(&mut self.current, slot);
        } else {
            self.current.append(slot);
        }
        sort_bucket(&mut self.current);
    }
}

/// Sorts a bucket's events, earliest first. A bucket holds a few, mostly in order: insertion
/// sort is then a pass, cheaper than the general sort's set-up.
fn sort_bucket<E>(entries: &mut [Entry<E>]) {
    if entries.len() > 16 {
        entries.sort_unstable();
        return;
    }
    for i in 1..entries.len() {
        let mut j = i;
        while j > 0 && entries[j] < entries[j - 1] {
            entries.swap(j, j - 1);
            j -= 1;
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
            if !rng.next_u64().is_multiple_of(3) {
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

    /// An event scheduled in a reserved place comes where it would have come had it been
    /// scheduled when the place was reserved; a place the queue has moved beyond has passed.
    #[test]
    fn a_reserved_place_keeps_the_order_of_scheduling() {
        let mut q = CalendarQueue::new();
        let t = Picos(3 << BUCKET_SHIFT);
        q.schedule(t, "a");
        let place = q.reserve();
        q.schedule(t, "c");
        q.schedule(Picos(1), "first");
        assert_eq!(q.pop(), Some((Picos(1), "first")));
        assert!(!q.passed(t, place));
        q.schedule_reserved(t, place, "b");
        assert_eq!(q.pop(), Some((t, "a")));
        assert_eq!(q.pop(), Some((t, "b")));
        assert!(q.passed(t, place), "taken");
        let late = q.reserve();
        assert_eq!(q.pop(), Some((t, "c")));
        assert!(!q.passed(t, late), "reserved after c was scheduled: it comes after c");
        assert!(q.passed(Picos(1), late), "an earlier time has passed");
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn an_event_earlier_than_the_current_bucket_still_comes_first() {
        assert_eq!(FINE, 1 << COARSE_SHIFT, "a coarse bucket is the fine ones' span");
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
