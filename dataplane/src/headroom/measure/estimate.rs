//! The running round-trip estimate (SPEC §4.3): each result is clamped to the configured
//! [minimum, maximum] (36.9.6: bounding guards the average against poisoning by exceptional
//! delays at link start-up), and the estimate is the mean of the last eight accepted results,
//! rounded up to a whole quantum — rounding towards more headroom, as everywhere in headroom.

use super::config::ESTIMATE_WINDOW;
use crate::headroom::allowance::Clamp;
use crate::time::Picos;

/// One measurement result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Measurement {
    /// When the response was received.
    pub at: Picos,
    /// ResponseDelay + Request Adjustment + Response Adjustment, before clamping; may be
    /// negative when adjustments exceed the delay.
    pub raw_quanta: i64,
    /// The result used: `raw_quanta` clamped to [minimum, maximum].
    pub quanta: u32,
    pub clamp: Clamp,
}

/// Clamps a raw result to [minimum, maximum].
pub fn clamp(raw: i64, minimum: u32, maximum: u32) -> (u32, Clamp) {
    if raw < i64::from(minimum) {
        (minimum, Clamp::RaisedToMinimum)
    } else if raw > i64::from(maximum) {
        (maximum, Clamp::LoweredToMaximum)
    } else {
        // minimum <= raw <= maximum <= u32::MAX: the conversion cannot fail.
        (u32::try_from(raw).unwrap_or(maximum), Clamp::None)
    }
}

/// The estimate and its statistics, in pause quanta.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Estimate {
    window: [u32; ESTIMATE_WINDOW],
    len: usize,
    next: usize,
    /// Results accepted since the estimate was last reset.
    pub count: u64,
    /// The smallest, largest and latest accepted result.
    pub min: Option<u32>,
    pub max: Option<u32>,
    pub last: Option<u32>,
}

impl Estimate {
    /// Adds an accepted (already clamped) result.
    pub fn push(&mut self, quanta: u32) {
        self.window[self.next] = quanta;
        self.next = (self.next + 1) % ESTIMATE_WINDOW;
        self.len = (self.len + 1).min(ESTIMATE_WINDOW);
        self.count += 1;
        self.min = Some(self.min.map_or(quanta, |m| m.min(quanta)));
        self.max = Some(self.max.map_or(quanta, |m| m.max(quanta)));
        self.last = Some(quanta);
    }

    /// The mean of the last eight results, rounded up; `None` before the first.
    pub fn quanta(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let sum: u64 = self.window[..self.len].iter().map(|&q| u64::from(q)).sum();
        // The mean of u32 values fits a u32.
        u32::try_from(sum.div_ceil(self.len as u64)).ok()
    }

    /// Forgets every result (a new path has a different round trip).
    pub fn reset(&mut self) {
        *self = Estimate::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_the_last_eight_rounded_up() {
        let mut e = Estimate::default();
        assert_eq!(e.quanta(), None);
        e.push(183);
        e.push(184);
        assert_eq!(e.quanta(), Some(184), "183.5 rounds up");
        for q in [100, 100, 100, 100, 100, 100, 100, 101] {
            e.push(q);
        }
        // 183 and 184 have left the window: (7 × 100 + 101) / 8 = 100.125 → 101.
        assert_eq!(e.quanta(), Some(101));
        assert_eq!((e.count, e.min, e.max, e.last), (10, Some(100), Some(184), Some(101)));
        e.reset();
        assert_eq!((e.quanta(), e.count), (None, 0));
    }

    #[test]
    fn results_are_clamped_to_the_limits() {
        assert_eq!(clamp(-3, 10, 500), (10, Clamp::RaisedToMinimum));
        assert_eq!(clamp(9, 10, 500), (10, Clamp::RaisedToMinimum));
        assert_eq!(clamp(10, 10, 500), (10, Clamp::None));
        assert_eq!(clamp(500, 10, 500), (500, Clamp::None));
        assert_eq!(clamp(501, 10, 500), (500, Clamp::LoweredToMaximum));
        assert_eq!(clamp(i64::MAX, 0, u32::MAX), (u32::MAX, Clamp::LoweredToMaximum));
    }
}
