//! How often a port reports drops on a lossless priority: a `receive-buffer-drop` for every
//! frame would flood the notification stream while a misconfigured port drops thousands a
//! second, so a notice goes out only for new drops and at most once a second.

use std::time::{Duration, Instant};

/// Drops on a lossless priority are reported at most this often.
const DROP_NOTICE_EVERY: Duration = Duration::from_secs(1);

/// The drop count last reported, and when.
#[derive(Debug, Default)]
pub struct DropNotices {
    reported: u64,
    reported_at: Option<Instant>,
}

impl DropNotices {
    /// Whether `dropped` frames in all are worth a notice now: more than last reported, and
    /// none reported in the last second. When they are, they count as reported from now on.
    pub fn take(&mut self, dropped: u64) -> bool {
        let due = self.reported_at.is_none_or(|t| t.elapsed() >= DROP_NOTICE_EVERY);
        if dropped > self.reported && due {
            self.reported = dropped;
            self.reported_at = Some(Instant::now());
            return true;
        }
        false
    }

    /// The counters were reset: any drop from now on is new.
    pub fn counters_cleared(&mut self) {
        self.reported = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_drops_are_noticed_at_most_once_a_second_and_anew_after_a_reset() {
        let mut drops = DropNotices::default();
        assert!(!drops.take(0), "no drop, no notice");
        assert!(drops.take(5));
        assert!(!drops.take(9), "a second notice waits a second");
        drops.reported_at = Some(Instant::now() - DROP_NOTICE_EVERY);
        assert!(!drops.take(5), "no new drop since the last notice");
        assert!(drops.take(9));
        drops.counters_cleared();
        drops.reported_at = None;
        assert!(drops.take(1), "after a reset every drop is new");
    }
}
