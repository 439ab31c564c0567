//! The running round-trip estimate (SPEC §4.3; DECISIONS.md, "A measurement no outlier can
//! spoil"). Each result is first judged:
//!
//! - below the configured minimum: raised to it (36.9.6);
//! - above the configured maximum, the round trip the longest configured link allows: it cannot
//!   be this link's round trip (a response held somewhere), so it is discarded and counted;
//! - far above the estimate so far, and the previous result was not: an isolated outlier,
//!   discarded and counted. From the second such result in a row on they are taken, so a link
//!   that really got longer is followed rather than ignored.
//!
//! The estimate is the lower median of the last eight results taken. Every honest result is an
//! upper bound of the true round trip (the counter difference is taken as its upper bound and
//! every adjustment is rounded up), so any order statistic is too; the median is the one that
//! one wrong result, high or low, can move by no more than one rank — between neighbouring
//! results, which lie within a quantum or two of each other. A mean moves by an eighth of any
//! one result's error, without bound.

use super::config::ESTIMATE_WINDOW;
use crate::headroom::allowance::Clamp;
use crate::time::Picos;

/// A result further above the estimate than this many quanta, or than this fraction of it
/// (1/16), whichever is more, is far above the others: honest results spread by a quantum or
/// two, and a change of cable by less than 1/16 of the round trip is still followed after a
/// second result.
pub const OUTLIER_MARGIN_QUANTA: u32 = 8;

/// Why a result did not go into the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Discard {
    /// Above the maximum acceptable round trip: no link this port may have is that long.
    AboveMaximum,
    /// Far above the estimate, and the previous result was not.
    Outlier,
}

/// One measurement result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Measurement {
    /// When the response was received.
    pub at: Picos,
    /// ResponseDelay + Request Adjustment + Response Adjustment, before clamping; may be
    /// negative when adjustments exceed the delay.
    pub raw_quanta: i64,
    /// The result: `raw_quanta` raised to the minimum, at most `u32::MAX`.
    pub quanta: u32,
    pub clamp: Clamp,
    /// `Some` when the result was left out of the estimate, and why.
    pub discarded: Option<Discard>,
}

/// What became of one result: taken into the estimate (as measured, or raised to the minimum),
/// or left out, and why. Every result has exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Used,
    RaisedToMinimum,
    DiscardedAboveMaximum,
    DiscardedOutlier,
}

impl Measurement {
    /// A discard says more than the raise that came before it: a discarded result was not used.
    pub fn outcome(&self) -> Outcome {
        match (self.discarded, self.clamp) {
            (Some(Discard::AboveMaximum), _) => Outcome::DiscardedAboveMaximum,
            (Some(Discard::Outlier), _) => Outcome::DiscardedOutlier,
            (None, Clamp::RaisedToMinimum) => Outcome::RaisedToMinimum,
            (None, _) => Outcome::Used,
        }
    }
}

/// Raises a raw result to the minimum (36.9.6); saturates at `u32::MAX`.
pub fn raise(raw: i64, minimum: u32) -> (u32, Clamp) {
    if raw < i64::from(minimum) {
        (minimum, Clamp::RaisedToMinimum)
    } else {
        (u32::try_from(raw).unwrap_or(u32::MAX), Clamp::None)
    }
}

/// The estimate and its statistics, in pause quanta.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Estimate {
    window: [u32; ESTIMATE_WINDOW],
    len: usize,
    next: usize,
    /// Whether the previous result judged was far above the estimate (taken or not).
    previous_far_above: bool,
    /// Results taken since the estimate was last reset.
    pub count: u64,
    /// The smallest, largest and latest result taken.
    pub min: Option<u32>,
    pub max: Option<u32>,
    pub last: Option<u32>,
}

impl Estimate {
    /// Judges a result (already raised to the minimum) against the maximum and the results so
    /// far; takes it into the window unless it is discarded.
    pub fn offer(&mut self, quanta: u32, maximum: u32) -> Option<Discard> {
        if quanta > maximum {
            return Some(Discard::AboveMaximum);
        }
        let outlier = self.quanta().is_some_and(|est| {
            let margin = OUTLIER_MARGIN_QUANTA.max(est / 16);
            quanta > est.saturating_add(margin)
        });
        let isolated = outlier && !self.previous_far_above;
        self.previous_far_above = outlier;
        if isolated {
            return Some(Discard::Outlier);
        }
        self.push(quanta);
        None
    }

    fn push(&mut self, quanta: u32) {
        self.window[self.next] = quanta;
        self.next = (self.next + 1) % ESTIMATE_WINDOW;
        self.len = (self.len + 1).min(ESTIMATE_WINDOW);
        self.count += 1;
        self.min = Some(self.min.map_or(quanta, |m| m.min(quanta)));
        self.max = Some(self.max.map_or(quanta, |m| m.max(quanta)));
        self.last = Some(quanta);
    }

    /// The lower median of the last eight results taken; `None` before the first.
    pub fn quanta(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mut sorted = self.window;
        let recent = &mut sorted[..self.len];
        recent.sort_unstable();
        Some(recent[(self.len - 1) / 2])
    }

    /// Forgets every result (a new path has a different round trip).
    pub fn reset(&mut self) {
        *self = Estimate::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: u32 = 10_000;

    fn taken(results: &[u32]) -> Estimate {
        let mut e = Estimate::default();
        for &q in results {
            e.offer(q, MAX);
        }
        e
    }

    #[test]
    fn the_lower_median_of_the_last_eight() {
        assert_eq!(Estimate::default().quanta(), None);
        assert_eq!(taken(&[184]).quanta(), Some(184));
        assert_eq!(taken(&[185, 184]).quanta(), Some(184));
        assert_eq!(taken(&[186, 184, 185]).quanta(), Some(185));
        // The first two have left the window of eight.
        let e = taken(&[190, 190, 100, 101, 100, 102, 100, 101, 100, 101]);
        assert_eq!(e.quanta(), Some(100));
        assert_eq!((e.count, e.min, e.max, e.last), (10, Some(100), Some(190), Some(101)));
        let mut e = e;
        e.reset();
        assert_eq!((e.quanta(), e.count), (None, 0));
    }

    #[test]
    fn one_wrong_result_moves_the_estimate_by_one_rank_at_most() {
        let honest = [110, 111, 110, 112, 111, 110, 111];
        let base = taken(&honest).quanta().expect("estimate");
        for wrong in [0, 1, 109, 5_000, MAX] {
            for at in 0..=honest.len() {
                let mut with = honest.to_vec();
                with.insert(at, wrong);
                let q = taken(&with).quanta().expect("estimate");
                assert!(q.abs_diff(base) <= 1, "{wrong} at {at}: {q} vs {base}");
            }
        }
    }

    #[test]
    fn results_above_the_maximum_and_isolated_outliers_are_discarded() {
        let mut e = taken(&[110, 111, 110]);
        assert_eq!(e.offer(MAX + 1, MAX), Some(Discard::AboveMaximum));
        // 110 + max(8, 110 / 16 = 6) = 118 is the most that is not far above.
        assert_eq!(e.offer(118, MAX), None);
        assert_eq!(e.offer(119, MAX), Some(Discard::Outlier));
        assert_eq!(e.offer(111, MAX), None);
        assert_eq!(e.count, 5);
    }

    #[test]
    fn a_link_that_got_longer_is_followed() {
        // Re-cabled from 110 to 400 quanta: the first new result is set aside, the next are taken,
        // and once they are the majority of the window the estimate is the new round trip.
        let mut e = taken(&[110; 8]);
        assert_eq!(e.offer(400, MAX), Some(Discard::Outlier));
        let mut taken_after = 0;
        while e.quanta() != Some(400) {
            assert_eq!(e.offer(400, MAX), None);
            taken_after += 1;
        }
        assert_eq!(taken_after, 5, "lower median of eight: five new results");
    }

    #[test]
    fn results_below_the_minimum_are_raised() {
        assert_eq!(raise(-3, 10), (10, Clamp::RaisedToMinimum));
        assert_eq!(raise(9, 10), (10, Clamp::RaisedToMinimum));
        assert_eq!(raise(10, 10), (10, Clamp::None));
        assert_eq!(raise(i64::MAX, 0), (u32::MAX, Clamp::None));
    }
}
