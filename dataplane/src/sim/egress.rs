//! The bridge's frames toward a simulated port, per priority: each priority of a mask receives
//! one frame every `interval` (the bridge's traffic for that port, evenly spread), queued up to
//! `limit` frames while it cannot leave. What the PFC watchdog needs to know is here: which
//! priorities have frames waiting, and since when.
//!
//! Arrivals are periodic, so they are counted when asked (at any later event) instead of being
//! events of their own: a queue that was empty records the exact time its first frame arrived.

use crate::time::Picos;
use crate::wire::PRIORITIES;

/// How much traffic the bridge offers toward the port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EgressConfig {
    /// The priorities that carry traffic (bit n = priority n).
    pub priorities: u8,
    /// Time between two frames of one priority.
    pub interval: Picos,
    /// Frames a priority's queue holds; arrivals beyond are tail-dropped (and counted).
    pub limit: u64,
}

/// What one priority's queue did when brought up to a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Arrived {
    /// Frames that arrived.
    pub frames: u64,
    /// When the first of them arrived into an empty queue, if one did.
    pub first_into_empty: Option<Picos>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Queue {
    frames: u64,
    /// The next frame's arrival time.
    next: Picos,
    tail_dropped: u64,
}

/// The queues toward the port.
#[derive(Debug, Clone)]
pub struct Egress {
    config: EgressConfig,
    queues: [Queue; PRIORITIES],
    /// The priority served last (round robin among those that may send).
    last_served: usize,
}

impl Egress {
    /// Queues whose first frames arrive at `start` plus a per-priority phase (so that the
    /// priorities' frames do not all arrive at the same instant).
    pub fn new(config: EgressConfig, start: Picos) -> Self {
        let step = Picos(config.interval.as_ps() / PRIORITIES as u64);
        let mut queues = [Queue::default(); PRIORITIES];
        for (n, q) in queues.iter_mut().enumerate() {
            q.next = start + step * n as u64;
        }
        Egress { config, queues, last_served: PRIORITIES - 1 }
    }

    pub fn config(&self) -> EgressConfig {
        self.config
    }

    /// Brings priority `n`'s queue up to `now`; with `discard` the arrivals are not queued
    /// (the caller counts them as dropped).
    pub fn arrive(&mut self, n: usize, now: Picos, discard: bool) -> Arrived {
        let interval = self.config.interval.as_ps().max(1);
        let q = &mut self.queues[n];
        if self.config.priorities & (1 << n) == 0 || q.next > now {
            return Arrived::default();
        }
        let frames = (now - q.next).as_ps() / interval + 1;
        let first = q.next;
        q.next += Picos(interval) * frames;
        if discard {
            return Arrived { frames, first_into_empty: None };
        }
        let was_empty = q.frames == 0;
        let room = self.config.limit.saturating_sub(q.frames);
        q.tail_dropped += frames.saturating_sub(room);
        q.frames += frames.min(room);
        Arrived { frames, first_into_empty: (was_empty && q.frames > 0).then_some(first) }
    }

    /// Frames of priority `n` waiting.
    pub fn queued(&self, n: usize) -> u64 {
        self.queues[n].frames
    }

    /// Priorities with frames waiting (bit n = priority n).
    pub fn waiting(&self) -> u8 {
        (0..PRIORITIES).fold(0, |v, n| v | (u8::from(self.queues[n].frames > 0) << n))
    }

    /// Empties priority `n`'s queue; returns how many frames it held.
    pub fn discard(&mut self, n: usize) -> u64 {
        std::mem::take(&mut self.queues[n].frames)
    }

    /// Takes the next frame to send among the priorities in `may_send` (round robin), if one
    /// waits.
    pub fn take(&mut self, may_send: u8) -> Option<usize> {
        let n = (1..=PRIORITIES)
            .map(|k| (self.last_served + k) % PRIORITIES)
            .find(|n| may_send & (1 << n) != 0 && self.queues[*n].frames > 0)?;
        self.queues[n].frames -= 1;
        self.last_served = n;
        Some(n)
    }

    /// The earliest next arrival among the priorities in `mask` (to wake the transmitter).
    pub fn next_arrival(&self, mask: u8) -> Option<Picos> {
        (0..PRIORITIES)
            .filter(|n| mask & self.config.priorities & (1 << n) != 0)
            .map(|n| self.queues[n].next)
            .min()
    }

    /// Frames tail-dropped at priority `n` (a full queue, not the watchdog).
    pub fn tail_dropped(&self, n: usize) -> u64 {
        self.queues[n].tail_dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn egress() -> Egress {
        let config = EgressConfig { priorities: 0b1000, interval: Picos::from_us(8), limit: 4 };
        Egress::new(config, Picos::ZERO)
    }

    #[test]
    fn arrivals_are_counted_when_asked_with_the_time_the_queue_stopped_being_empty() {
        let mut e = egress();
        // Priority 3's phase: 3/8 of the interval.
        let a = e.arrive(3, Picos::from_us(2), false);
        assert_eq!(a, Arrived::default(), "its first frame is due at 3 us");
        let a = e.arrive(3, Picos::from_us(12), false);
        assert_eq!(a, Arrived { frames: 2, first_into_empty: Some(Picos::from_us(3)) });
        assert_eq!(e.waiting(), 0b1000);
        assert_eq!(e.take(0xff), Some(3));
        assert_eq!(e.take(0b0111), None, "priority 3 may not send");
        let a = e.arrive(3, Picos::from_us(100), false);
        assert_eq!(a.frames, 11);
        assert_eq!(a.first_into_empty, None, "the queue was not empty");
        assert_eq!(e.queued(3), 4);
        assert_eq!(e.tail_dropped(3), 8);
        assert_eq!(e.discard(3), 4);
        assert_eq!(e.arrive(3, Picos::from_us(116), true).frames, 2);
        assert_eq!(e.queued(3), 0, "discarded arrivals are not queued");
        assert_eq!(e.arrive(0, Picos::from_us(116), false).frames, 0, "priority 0 carries none");
    }
}
