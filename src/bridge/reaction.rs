//! How fast a paused priority stops leaving a port: for each pause a PFC frame starts, the
//! time from that frame's arrival to the last frame of the priority that left after it
//! (0 when none did). 36.3.3 bounds it in hardware; a software bridge adds its loop's latency.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use dataplane::wire::PRIORITIES;

/// Samples kept (the most recent).
const KEEP: usize = 4096;

#[derive(Debug, Default)]
pub struct ReactionTracker {
    /// Per priority: when the current pause was indicated, and the last frame sent since.
    indicated: [Option<(Instant, Option<Instant>)>; PRIORITIES],
    samples: VecDeque<Duration>,
}

impl ReactionTracker {
    /// A PFC frame arriving at `at` pauses priority `n` (a refresh of a pause in progress keeps
    /// its start).
    pub fn paused(&mut self, n: usize, at: Instant) {
        if let Some(slot) = self.indicated.get_mut(n) {
            if slot.is_none() {
                *slot = Some((at, None));
            }
        }
    }

    /// A frame of priority `n` left at `at`.
    pub fn sent(&mut self, n: usize, at: Instant) {
        if let Some(Some((_, last))) = self.indicated.get_mut(n) {
            *last = Some(at);
        }
    }

    /// The pause of priority `n` ended (timer ran out or XON): one sample.
    pub fn resumed(&mut self, n: usize) {
        if let Some(Some((start, last))) = self.indicated.get_mut(n).map(Option::take) {
            if self.samples.len() == KEEP {
                self.samples.pop_front();
            }
            self.samples
                .push_back(last.map_or(Duration::ZERO, |l| l.saturating_duration_since(start)));
        }
    }

    /// Whether priority `n` is being tracked as paused.
    pub fn is_paused(&self, n: usize) -> bool {
        self.indicated.get(n).is_some_and(Option::is_some)
    }

    pub fn samples(&self) -> impl Iterator<Item = Duration> + '_ {
        self.samples.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_the_last_frame_after_the_indication() {
        let t0 = Instant::now();
        let mut r = ReactionTracker::default();
        r.sent(3, t0); // not paused: no effect
        r.paused(3, t0);
        r.sent(3, t0 + Duration::from_micros(5));
        r.sent(3, t0 + Duration::from_micros(9));
        r.paused(3, t0 + Duration::from_micros(50)); // a refresh
        r.resumed(3);
        r.paused(3, t0 + Duration::from_millis(1));
        r.resumed(3);
        let got: Vec<_> = r.samples().collect();
        assert_eq!(got, vec![Duration::from_micros(9), Duration::ZERO]);
    }
}
