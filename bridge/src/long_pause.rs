//! How long each priority of a port has been paused without a break: a pause that outlasts
//! the maximum bridge transit delay (802.1Q 6.5.6) no longer holds its frames in the pipeline,
//! so that those held past that delay are discarded while the pause still lasts (a deadlock's
//! pauses never end, and the frames it holds would otherwise keep their buffers for good).

use dataplane::time::Picos;
use dataplane::wire::PRIORITIES;

/// Per priority, when its unbroken pause began and until when it lasts as last heard.
#[derive(Debug, Clone, Default)]
pub struct LongPauses {
    began: [Option<Picos>; PRIORITIES],
    until: [Picos; PRIORITIES],
}

impl LongPauses {
    /// A PFC frame paused priority `n` until `until` (`until <= now`: released it).
    pub fn note(&mut self, n: usize, now: Picos, until: Picos) {
        if until <= now {
            self.began[n] = None;
        } else if self.began[n].is_none() || self.until[n] <= now {
            self.began[n] = Some(now);
        }
        self.until[n] = until;
    }

    /// Whether priority `n`'s pause still lasts at `now` and has lasted longer than `limit`.
    pub fn outlasted(&self, n: usize, now: Picos, limit: Picos) -> bool {
        self.until[n] > now && self.began[n].is_some_and(|began| now.saturating_sub(began) > limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    #[test]
    fn refreshed_pauses_add_up_and_a_break_or_a_release_starts_again() {
        let mut p = LongPauses::default();
        let limit = Picos(100 * MS);
        // Refreshed every 2 ms, each lasting 3 ms: one unbroken pause.
        for t in (0..=120).step_by(2) {
            p.note(3, Picos(t * MS), Picos((t + 3) * MS));
        }
        assert!(p.outlasted(3, Picos(121 * MS), limit));
        assert!(!p.outlasted(0, Picos(121 * MS), limit), "another priority");
        // Once it has run out, it holds nothing; a new pause starts from its own frame.
        assert!(!p.outlasted(3, Picos(124 * MS), limit));
        p.note(3, Picos(130 * MS), Picos(133 * MS));
        assert!(!p.outlasted(3, Picos(132 * MS), limit));
        // An XON ends it at once.
        p.note(3, Picos(132 * MS), Picos(132 * MS));
        assert!(!p.outlasted(3, Picos(132 * MS), Picos::ZERO));
    }
}
