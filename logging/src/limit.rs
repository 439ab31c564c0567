//! Log lines that a peer, a frame or a flood can cause, bounded per port and kind: in each
//! window of [`INTERVAL`] the first [`BURST`] lines of a kind on a port are logged and the rest
//! only counted; once the window is over, one line says how many were left out
//! ([`SUPPRESSED`]). Every program logs through the same limiter ([`admit`], [`flush`]), so
//! pfcd (its ports and its bridge) and `pfc-lldp` bound their logs alike.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tracing::Level;

/// Lines of one kind on one port logged per window.
pub const BURST: u32 = 5;
/// How long a window lasts: at most `BURST` + 1 lines of a kind on a port in that time.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// The summary of a window in which lines were left out.
pub const SUPPRESSED: &str = "similar log lines suppressed: too many in a short time";

/// One kind of line on one port: the window it is in.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: Duration,
    logged: u32,
    suppressed: u64,
    level: Level,
}

/// Lines left out in a window that is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub port: String,
    /// The message of the lines left out.
    pub kind: &'static str,
    pub level: Level,
    pub suppressed: u64,
}

/// The windows of every port and kind seen; a window that is over is forgotten, so the table
/// holds only the kinds logged within the last interval.
#[derive(Debug)]
pub struct RateLimit {
    burst: u32,
    interval: Duration,
    windows: HashMap<String, HashMap<&'static str, Window>>,
}

impl RateLimit {
    pub fn new(burst: u32, interval: Duration) -> Self {
        RateLimit { burst, interval, windows: HashMap::new() }
    }

    /// Whether a line of `kind` (at `level`) about `port` at `now` (any fixed epoch) is logged.
    /// The summary of this kind's window, when that window is over and left lines out, is
    /// returned to be logged first.
    pub fn admit(
        &mut self,
        port: &str,
        kind: &'static str,
        level: Level,
        now: Duration,
    ) -> (bool, Option<Summary>) {
        let fresh = Window { start: now, logged: 0, suppressed: 0, level };
        let kinds = match self.windows.get_mut(port) {
            Some(kinds) => kinds,
            None => self.windows.entry(port.to_string()).or_default(),
        };
        let window = kinds.entry(kind).or_insert(fresh);
        let mut summary = None;
        if now.saturating_sub(window.start) >= self.interval {
            if window.suppressed > 0 {
                summary = Some(Summary {
                    port: port.to_string(),
                    kind,
                    level: window.level,
                    suppressed: window.suppressed,
                });
            }
            *window = fresh;
        }
        if window.logged < self.burst {
            window.logged += 1;
            (true, summary)
        } else {
            window.suppressed += 1;
            (false, summary)
        }
    }

    /// The summaries of every window over at `now` that left lines out; windows over are
    /// forgotten.
    pub fn closed(&mut self, now: Duration) -> Vec<Summary> {
        let mut out = Vec::new();
        let interval = self.interval;
        for (port, kinds) in &mut self.windows {
            kinds.retain(|kind, w| {
                if now.saturating_sub(w.start) < interval {
                    return true;
                }
                if w.suppressed > 0 {
                    out.push(Summary {
                        port: port.clone(),
                        kind,
                        level: w.level,
                        suppressed: w.suppressed,
                    });
                }
                false
            });
        }
        self.windows.retain(|_, kinds| !kinds.is_empty());
        out
    }
}

/// The process's limiter, on the monotonic clock from its first use.
static SHARED: LazyLock<Mutex<(Instant, RateLimit)>> =
    LazyLock::new(|| Mutex::new((Instant::now(), RateLimit::new(BURST, INTERVAL))));

/// Whether a line of `kind` at `level` about `port` is logged now; logs the summary of the
/// kind's window before it when that window left lines out.
pub fn admit(port: &str, kind: &'static str, level: Level) -> bool {
    let (admitted, summary) = {
        let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
        let now = shared.0.elapsed();
        shared.1.admit(port, kind, level, now)
    };
    if let Some(s) = summary {
        log_summary(&s);
    }
    admitted
}

/// Logs the summaries of the windows that are over: called now and then (a port's poll), so a
/// flood that stopped still gets its summary.
pub fn flush() {
    let summaries = {
        let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
        let now = shared.0.elapsed();
        shared.1.closed(now)
    };
    for s in &summaries {
        log_summary(s);
    }
}

fn log_summary(s: &Summary) {
    let (port, of, suppressed) = (s.port.as_str(), s.kind, s.suppressed);
    let seconds = INTERVAL.as_secs();
    match s.level {
        Level::ERROR => tracing::error!(port, of, suppressed, seconds, "{SUPPRESSED}"),
        Level::WARN => tracing::warn!(port, of, suppressed, seconds, "{SUPPRESSED}"),
        Level::INFO => tracing::info!(port, of, suppressed, seconds, "{SUPPRESSED}"),
        Level::DEBUG => tracing::debug!(port, of, suppressed, seconds, "{SUPPRESSED}"),
        _ => tracing::trace!(port, of, suppressed, seconds, "{SUPPRESSED}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TLV: &str = "LLDP TLV discarded";
    const FRAME: &str = "LLDPDU discarded";

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn admitted(limit: &mut RateLimit, port: &str, kind: &'static str, n: u32, at: u64) -> u32 {
        (0..n).filter(|_| limit.admit(port, kind, Level::WARN, secs(at)).0).count() as u32
    }

    #[test]
    fn a_flood_logs_the_first_lines_of_a_window_and_one_summary_of_the_rest() {
        let mut limit = RateLimit::new(5, secs(10));
        assert_eq!(admitted(&mut limit, "p1", TLV, 10_000, 0), 5);
        // The next window opens with the summary of the last one, then logs again.
        let (logged, summary) = limit.admit("p1", TLV, Level::WARN, secs(10));
        assert!(logged);
        let summary = summary.expect("a summary");
        assert_eq!((summary.port.as_str(), summary.kind), ("p1", TLV));
        assert_eq!(summary.suppressed, 9_995);
        assert_eq!(summary.level, Level::WARN);
    }

    #[test]
    fn each_port_and_kind_has_its_own_window() {
        let mut limit = RateLimit::new(5, secs(10));
        assert_eq!(admitted(&mut limit, "p1", TLV, 100, 0), 5);
        assert_eq!(admitted(&mut limit, "p2", TLV, 100, 1), 5, "another port");
        assert_eq!(admitted(&mut limit, "p1", FRAME, 100, 2), 5, "another kind");
    }

    #[test]
    fn a_flood_that_stopped_gets_its_summary_and_is_forgotten() {
        let mut limit = RateLimit::new(5, secs(10));
        admitted(&mut limit, "p1", TLV, 7, 0);
        admitted(&mut limit, "p2", TLV, 3, 0);
        assert_eq!(limit.closed(secs(9)), vec![], "the window is not over");
        let closed = limit.closed(secs(10));
        assert_eq!(closed.len(), 1, "only p1 left lines out: {closed:?}");
        assert_eq!(closed[0].suppressed, 2);
        assert!(limit.windows.is_empty(), "windows over are forgotten");
        assert_eq!(admitted(&mut limit, "p1", TLV, 5, 11), 5, "a new window");
    }

    #[test]
    fn quiet_kinds_never_get_a_summary() {
        let mut limit = RateLimit::new(5, secs(10));
        admitted(&mut limit, "p1", TLV, 5, 0);
        assert_eq!(limit.admit("p1", TLV, Level::WARN, secs(20)), (true, None));
    }
}
