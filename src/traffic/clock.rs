//! Time for the traffic tool and the delay line: `CLOCK_MONOTONIC`, which every network
//! namespace of a host shares, so a receiver can take a sender's timestamp from its own clock.
//! Inside a run, time is [`Picos`] since the run started (the protocol code's unit).

use dataplane::time::Picos;
use nix::time::{clock_gettime, ClockId};

/// CLOCK_MONOTONIC in nanoseconds.
pub fn monotonic_ns() -> u64 {
    // CLOCK_MONOTONIC always exists on Linux; a failure would be a kernel without clocks.
    clock_gettime(ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64)
        .unwrap_or(0)
}

/// The run's clock: picoseconds since it was made.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start_ns: u64,
}

impl Clock {
    pub fn start() -> Self {
        Clock { start_ns: monotonic_ns() }
    }

    pub fn now(&self) -> Picos {
        Picos::from_ns(monotonic_ns().saturating_sub(self.start_ns))
    }

    /// CLOCK_MONOTONIC nanoseconds of a run time, for timestamps other processes read.
    pub fn monotonic_ns_at(&self, t: Picos) -> u64 {
        self.start_ns + t.as_ns()
    }
}
