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

/// CLOCK_REALTIME in nanoseconds (the clock of the kernel's receive timestamps).
pub fn realtime_ns() -> u64 {
    clock_gettime(ClockId::CLOCK_REALTIME)
        .map(|t| t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64)
        .unwrap_or(0)
}

/// CLOCK_REALTIME minus CLOCK_MONOTONIC, read once, to turn the kernel's receive timestamps
/// (CLOCK_REALTIME) into CLOCK_MONOTONIC, the clock test frames are stamped with. Read per
/// batch, so a step of the real-time clock (NTP) spoils at most one batch.
#[derive(Debug, Clone, Copy)]
pub struct RealtimeOffset(i128);

impl RealtimeOffset {
    pub fn now() -> Self {
        let mono = monotonic_ns();
        let real = realtime_ns();
        RealtimeOffset(i128::from(real) - i128::from(mono))
    }

    /// The CLOCK_MONOTONIC nanoseconds of a CLOCK_REALTIME time.
    pub fn monotonic(self, realtime_ns: u64) -> u64 {
        (i128::from(realtime_ns) - self.0).max(0) as u64
    }
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

    /// The run time of a CLOCK_MONOTONIC time (zero if before the run).
    pub fn at_monotonic_ns(&self, ns: u64) -> Picos {
        Picos::from_ns(ns.saturating_sub(self.start_ns))
    }

    /// CLOCK_MONOTONIC nanoseconds of a run time, for timestamps other processes read.
    pub fn monotonic_ns_at(&self, t: Picos) -> u64 {
        self.start_ns + t.as_ns()
    }
}
