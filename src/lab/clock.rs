//! The simulated clock the lab's ports follow: simulated time is wall time since the start
//! multiplied by a fixed ratio, so a port's work per wall-clock second is bounded.

use std::time::{Instant, SystemTime};

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
    pub fn wall(&self) -> Picos {
        Picos(u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX / 1000) * 1000)
    }

    /// Where simulated time should be now.
    pub fn target(&self) -> Picos {
        Picos((self.wall().0 as f64 * self.ratio) as u64)
    }
}
