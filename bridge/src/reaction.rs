//! How fast a paused priority stops leaving a port, two ways, for each pause a PFC frame
//! starts:
//!
//! - **from the indication** (36.3.3's measure): from the moment the port's PFC receiver took
//!   the frame (M_CONTROL.indication) to the start of the last send of a frame of that priority
//!   that began after it. 36.3.3: no more than 614.4 ns;
//! - **from the arrival**: the same from the kernel's receive time of the PFC frame, so it also
//!   holds the kernel's receive path and the loop's lateness in reading it (which a hardware
//!   port has as its MAC and PHY receive delay, Annex N's interface delay).
//!
//! 0 when no send began after it. A frame whose send began before is the frame in progress,
//! which 36.3.3 lets finish. All times are the kernel's receive clock (CLOCK_REALTIME), in
//! nanoseconds.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dataplane::wire::PRIORITIES;

/// Samples kept (the most recent).
const KEEP: usize = 4096;

/// The present on the kernel's receive clock, nanoseconds.
pub fn now_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

/// One pause being followed.
#[derive(Debug, Clone, Copy)]
struct Pause {
    arrived: u64,
    indicated: u64,
    /// The start of the last send of the priority after the arrival, after the indication.
    late_after_arrival: Option<u64>,
    late_after_indication: Option<u64>,
}

#[derive(Debug, Default)]
pub struct ReactionTracker {
    pauses: [Option<Pause>; PRIORITIES],
    /// Per priority: the start of the last send.
    last_sent: [Option<u64>; PRIORITIES],
    from_arrival: VecDeque<Duration>,
    from_indication: VecDeque<Duration>,
}

impl ReactionTracker {
    /// A PFC frame that arrived at `arrived_ns`, taken by the PFC receiver at `indicated_ns`,
    /// pauses priority `n` (a refresh of a pause in progress keeps its start).
    pub fn paused(&mut self, n: usize, arrived_ns: u64, indicated_ns: u64) {
        let Some(slot) = self.pauses.get_mut(n) else { return };
        if slot.is_none() {
            let last = self.last_sent[n];
            *slot = Some(Pause {
                arrived: arrived_ns,
                indicated: indicated_ns,
                late_after_arrival: last.filter(|s| *s > arrived_ns),
                late_after_indication: last.filter(|s| *s > indicated_ns),
            });
        }
    }

    /// A send of a frame of priority `n` began at `started_ns`.
    pub fn sent(&mut self, n: usize, started_ns: u64) {
        let Some(last) = self.last_sent.get_mut(n) else { return };
        *last = Some(started_ns);
        if let Some(p) = &mut self.pauses[n] {
            p.late_after_arrival = Some(started_ns);
            p.late_after_indication = Some(started_ns);
        }
    }

    /// The pause of priority `n` ended (timer ran out or XON): one sample each way.
    pub fn resumed(&mut self, n: usize) {
        let Some(p) = self.pauses.get_mut(n).and_then(Option::take) else { return };
        let since = |late: Option<u64>, from: u64| {
            Duration::from_nanos(late.map_or(0, |l| l.saturating_sub(from)))
        };
        for (samples, sample) in [
            (&mut self.from_arrival, since(p.late_after_arrival, p.arrived)),
            (&mut self.from_indication, since(p.late_after_indication, p.indicated)),
        ] {
            if samples.len() == KEEP {
                samples.pop_front();
            }
            samples.push_back(sample);
        }
    }

    /// Whether priority `n` is being followed as paused.
    pub fn is_paused(&self, n: usize) -> bool {
        self.pauses.get(n).is_some_and(Option::is_some)
    }

    /// Per pause, from the PFC frame's arrival.
    pub fn from_arrival(&self) -> impl Iterator<Item = Duration> + '_ {
        self.from_arrival.iter().copied()
    }

    /// Per pause, from the PFC receiver's indication (36.3.3).
    pub fn from_indication(&self) -> impl Iterator<Item = Duration> + '_ {
        self.from_indication.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(d: impl Iterator<Item = Duration>) -> Vec<u64> {
        d.map(|d| d.as_nanos() as u64).collect()
    }

    #[test]
    fn a_sample_is_the_last_send_begun_after_the_pause() {
        let mut r = ReactionTracker::default();
        r.sent(3, 1_000); // the frame in progress when the PFC frame came: not late
        r.paused(3, 1_500, 1_800);
        r.sent(3, 6_500);
        r.sent(3, 10_500);
        r.paused(3, 50_000, 50_100); // a refresh
        r.resumed(3);
        r.paused(3, 1_000_000, 1_000_300);
        r.resumed(3);
        assert_eq!(micros(r.from_arrival()), vec![9_000, 0]);
        assert_eq!(micros(r.from_indication()), vec![8_700, 0]);
    }

    #[test]
    fn a_send_begun_after_the_arrival_but_before_the_indication_is_late_only_from_the_arrival() {
        let mut r = ReactionTracker::default();
        // Arrived at 2 000; the loop sent at 2 400 and then took the frame at 2 600.
        r.sent(3, 2_400);
        r.paused(3, 2_000, 2_600);
        r.resumed(3);
        // Another priority's sends do not count.
        r.sent(0, 9_000);
        r.paused(3, 8_000, 8_100);
        r.resumed(3);
        assert_eq!(micros(r.from_arrival()), vec![400, 0]);
        assert_eq!(micros(r.from_indication()), vec![0, 0]);
    }
}
