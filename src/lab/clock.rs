//! The simulated clock the lab's ports follow: simulated time is wall time since the start
//! multiplied by a fixed ratio, so a port's work per wall-clock second is bounded.
//!
//! Simulated time is computed from the wall time's nanoseconds and the ratio directly, never
//! through wall time in picoseconds, which a u64 holds for 213.5 days only: at the default
//! ratio (0.001) the lab's simulated time lasts 585 years of wall time.

use std::time::{Duration, Instant, SystemTime};

use dataplane::time::Picos;

/// Simulated time against wall time.
#[derive(Debug, Clone, Copy)]
pub struct SimClock {
    /// When the lab started (for `started` in its state).
    pub started_at: SystemTime,
    started: Instant,
    /// Simulated seconds per wall-clock second.
    pub ratio: f64,
}

impl SimClock {
    pub fn start(ratio: f64) -> Self {
        SimClock { started_at: SystemTime::now(), started: Instant::now(), ratio }
    }

    /// Wall time since the start.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Wall time since the start in picoseconds, for the state (it stays at [`Picos::MAX`]
    /// after 213.5 days).
    pub fn wall(&self) -> Picos {
        Picos::from_duration(self.elapsed())
    }

    /// Where simulated time should be now.
    pub fn target(&self) -> Picos {
        self.target_after(self.elapsed())
    }

    /// The wall-clock time at which the lab's simulated time is `simulated` (what the state and
    /// notifications show for an instant of the simulation: a storm's start, a detection).
    pub fn wall_at(&self, simulated: Picos) -> SystemTime {
        let secs = simulated.as_ps() as f64 / 1e12 / self.ratio.max(f64::MIN_POSITIVE);
        let after = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
        self.started_at.checked_add(after).unwrap_or(self.started_at)
    }

    /// Where simulated time is `elapsed` after the start. (A float to integer `as` saturates.)
    pub fn target_after(&self, elapsed: Duration) -> Picos {
        Picos((elapsed.as_nanos() as f64 * 1000.0 * self.ratio) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    /// The lab keeps time past 213.5 days of wall time (where picoseconds fill a u64):
    /// simulated time goes on growing at the ratio, never back to 0.
    #[test]
    fn simulated_time_goes_on_after_214_days_and_beyond() {
        let clock = SimClock::start(0.001);
        let mut last = Picos::ZERO;
        for days in [1u32, 213, 214, 215, 365, 3650] {
            let t = clock.target_after(DAY * days);
            let expected = u64::from(days) * 86_400 * 1_000_000_000; // 0.001 s per s, in ps
            let error = t.as_ps().abs_diff(expected);
            assert!(error <= expected / 1_000_000_000, "day {days}: {t} against {expected} ps");
            assert!(t > last, "day {days}: time moves on");
            last = t;
        }
    }
}
