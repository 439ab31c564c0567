/// Which ports' MACs to look at in which cycle: a hashed timing wheel of port bitmaps.
///
/// Looking at a MAC that has nothing to do is a no-op (the engine once looked at every port
/// every cycle), so a port may be found in its slot early, for instance when its wake time is
/// more than a turn of the wheel away: it is then simply rescheduled. What the wheel must never
/// do is find a port late.
#[derive(Debug)]
pub(crate) struct WakeWheel {
    /// Bitmap words in use per slot (64 ports each).
    words: usize,
    /// `WORDS` words per slot whatever the port count, so that a slot's place is a shift and
    /// no index needs a bounds check.
    bits: Box<[u64; SLOTS as usize * WORDS]>,
}

/// Bitmap words per slot: 256 ports at most.
const WORDS: usize = 4;

/// Slots in the wheel: a 60-octet frame at 100 Gb/s holds the wire 6.72 cycles of 1 ns, a
/// 1518-octet frame at 10 Gb/s 1.23 µs (such ports are looked at a few times per frame).
const SLOTS: u64 = 256;

impl WakeWheel {
    pub fn new(ports: usize) -> Self {
        let words = ports.div_ceil(64).clamp(1, WORDS);
        WakeWheel { words, bits: Box::new([0; SLOTS as usize * WORDS]) }
    }

    /// Schedules port `p` for cycle `at`, or for `earliest` if `at` is before it, or for the
    /// last slot before the wheel wraps if `at` is further away. `earliest` is the first cycle
    /// whose slot has not been taken yet.
    #[inline]
    pub fn insert(&mut self, earliest: u64, at: u64, p: usize) {
        // Within a turn of the wheel from `earliest` (one unsigned comparison), else clamped.
        // (Not `clamp`: its check that the bounds are in order costs a branch per insert.)
        let at = if at.wrapping_sub(earliest) < SLOTS {
            at
        } else {
            at.max(earliest).min(earliest + SLOTS - 1)
        };
        self.bits[Self::index(at, p / 64)] |= 1 << (p % 64);
    }

    #[inline]
    fn index(cycle: u64, w: usize) -> usize {
        (cycle % SLOTS) as usize * WORDS + w % WORDS
    }

    /// Whether any port is scheduled in cycle `now`'s slot.
    #[inline]
    pub fn any_due(&self, now: u64) -> bool {
        // The first word on its own: up to 64 ports it is the only one.
        self.bits[Self::index(now, 0)] != 0
            || (1..self.words).any(|w| self.bits[Self::index(now, w)] != 0)
    }

    /// Takes word `w` of cycle `now`'s slot: the ports p with p / 64 == w scheduled then.
    #[inline]
    pub fn take(&mut self, now: u64, w: usize) -> u64 {
        std::mem::take(&mut self.bits[Self::index(now, w)])
    }

    pub fn words(&self) -> usize {
        self.words
    }
}

#[cfg(test)]
mod tests {
    use super::{WakeWheel, SLOTS};

    #[test]
    fn ports_come_due_in_their_slot_never_late() {
        let mut w = WakeWheel::new(70);
        w.insert(10, 12, 3);
        w.insert(10, 5, 65); // past: due now
        w.insert(10, 10 + 5 * SLOTS, 7); // far: found early, on the last slot of this turn
        assert!(w.any_due(10));
        assert_eq!((w.take(10, 0), w.take(10, 1)), (0, 1 << 1));
        assert!(!w.any_due(11));
        assert_eq!(w.take(12, 0), 1 << 3);
        assert_eq!(w.take(10 + SLOTS - 1, 0), 1 << 7);
    }
}
