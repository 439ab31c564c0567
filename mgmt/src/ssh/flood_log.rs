//! Log lines about unauthenticated connections closed by the server (displaced, or cut at
//! the login deadline), at a bounded rate. A flood of connections would otherwise write a
//! line for each, tens of thousands a second: the first few of each interval are written as
//! they happen, the rest are counted, and one line per interval sums them up.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::warn;

/// How often a summary may be written.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// Lines written as they happen in each interval.
const LINES: u32 = 10;

/// Why the server closed an unauthenticated connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closed {
    /// A newer connection took its place.
    Displaced,
    /// It sent no SSH version line before the login deadline.
    NoVersionLine,
    /// It did not authenticate before the login deadline.
    NotAuthenticated,
}

/// The interval's counts.
#[derive(Debug)]
struct Window {
    started: Instant,
    written: u32,
    /// Closed without a line of their own: displaced, no version line, not authenticated.
    counted: [u64; 3],
}

/// The log's state, shared by all connections.
#[derive(Debug)]
pub(crate) struct FloodLog {
    window: Mutex<Window>,
}

impl Default for FloodLog {
    fn default() -> Self {
        FloodLog {
            window: Mutex::new(Window { started: Instant::now(), written: 0, counted: [0; 3] }),
        }
    }
}

impl FloodLog {
    fn window(&self) -> MutexGuard<'_, Window> {
        self.window.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether the caller should write its own line about a connection closed for `why`;
    /// if not, it is counted for the interval's summary.
    pub(crate) fn line(&self, why: Closed) -> bool {
        let mut w = self.window();
        Self::roll(&mut w);
        if w.written < LINES {
            w.written += 1;
            return true;
        }
        w.counted[why as usize] += 1;
        false
    }

    /// Writes the summary if the interval is over (also called every [`INTERVAL`] by the
    /// accept loop, so that a flood's last interval is summed up when it stops).
    pub(crate) fn flush(&self) {
        Self::roll(&mut self.window());
    }

    fn roll(w: &mut Window) {
        if w.started.elapsed() < INTERVAL {
            return;
        }
        let [displaced, silent, unauthenticated] = w.counted;
        if displaced + silent + unauthenticated > 0 {
            warn!(
                displaced,
                no_version_line = silent,
                not_authenticated = unauthenticated,
                seconds = w.started.elapsed().as_secs(),
                "closed {} more unauthenticated connections without a line each (at most {LINES} lines per {} s)",
                displaced + silent + unauthenticated,
                INTERVAL.as_secs(),
            );
        }
        *w = Window { started: Instant::now(), written: 0, counted: [0; 3] };
    }
}
