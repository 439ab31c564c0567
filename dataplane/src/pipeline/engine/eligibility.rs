//! QMAN's eligibility bitmap: which classes it may push now, and its round robin over them.

use super::MAX_PORTS;
use crate::pipeline::class::MAX_CLASSES;

/// Words of the eligibility bitmaps (a bit per class).
const WORDS: usize = MAX_CLASSES / 64;

/// QMAN's eligibility bitmap, a bit per class, as three bitmaps ANDed when QMAN looks:
/// `wants`, the class may be pushed as far as its FSM and traffic go (not halted, has
/// traffic); `room`, it is below its class credit; `open`, all eight bits of a port set while
/// it has credit. (A departure only gives back credit: it sets a bit of `room` and rewrites a
/// byte of `open`, without looking at the class's FSM or traffic.) The first `words` words
/// of each are in use; `rr` is where QMAN's round robin starts.
#[derive(Debug)]
pub(super) struct Eligibility {
    pub wants: [u64; WORDS],
    pub room: [u64; WORDS],
    pub open: [u64; WORDS],
    pub words: usize,
    pub rr: usize,
}

impl Eligibility {
    pub fn new(ports: usize) -> Self {
        Eligibility {
            wants: [0; WORDS],
            room: [0; WORDS],
            open: [0; WORDS],
            words: ports.div_ceil(8),
            rr: 0,
        }
    }

    /// Word `w` of the eligibility bitmap: the classes QMAN may push now.
    #[inline]
    fn word(&self, w: usize) -> u64 {
        let w = w % WORDS;
        self.wants[w] & self.room[w] & self.open[w]
    }

    /// Round-robin over the eligibility bitmap, starting after the last class served.
    #[inline]
    pub fn next(&self, nclasses: usize) -> Option<usize> {
        if self.words == 1 {
            return self.next_of_one(nclasses);
        }
        let start = if self.rr < nclasses { self.rr } else { 0 };
        let words = self.words;
        let (w0, b0) = (start / 64, start % 64);
        // The rest of the starting word, then the other words, then the start of the first.
        let word = self.word(w0);
        let first = word & (u64::MAX << b0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        for k in 1..words {
            let w = (w0 + k) % words;
            let word = self.word(w);
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
        }
        let wrap = word & !(u64::MAX << b0);
        (wrap != 0).then(|| w0 * 64 + wrap.trailing_zeros() as usize)
    }

    /// `next` with up to 8 ports (one word): the classes from the start on, else the first.
    #[inline]
    pub fn next_of_one(&self, nclasses: usize) -> Option<usize> {
        debug_assert_eq!(self.words, 1);
        let word = self.word(0);
        if word == 0 {
            return None; // the common answer once the ports' credit is taken
        }
        // (`rr` is at most `nclasses` ≤ 64; at `nclasses` it wraps to 0, and below 64 a
        // start at `nclasses` finds no class in the word either, so `% 64` is enough.)
        debug_assert!(self.rr <= nclasses);
        let later = word & (u64::MAX << (self.rr % 64));
        let pick = if later != 0 { later } else { word };
        Some(pick.trailing_zeros() as usize)
    }

    /// Class `ci`'s bits in `wants` and `room`.
    #[inline]
    pub fn set_class(&mut self, ci: usize, wants: bool, room: bool) {
        let ci = ci % MAX_CLASSES;
        set_bit(&mut self.wants[ci / 64], ci % 64, wants);
        set_bit(&mut self.room[ci / 64], ci % 64, room);
    }

    /// Class `ci`'s bit of the eligibility bitmap, its port's credit aside.
    #[inline]
    pub fn class_bit(&self, ci: usize) -> bool {
        let ci = ci % MAX_CLASSES;
        (self.wants[ci / 64] & self.room[ci / 64]) & (1 << (ci % 64)) != 0
    }

    /// Port `p`'s byte of `open`: whether it has credit.
    #[inline]
    pub fn set_open(&mut self, p: usize, open: bool) {
        // (A byte store would be one instruction, but the word read back soon after cannot
        // be forwarded from it: that stall cost more than a quarter of the engine's speed.)
        let p = p % MAX_PORTS;
        let byte = 0xffu64 << ((p % 8) * 8);
        let word = &mut self.open[p / 8];
        *word = if open { *word | byte } else { *word & !byte };
    }
}

/// Sets or clears bit `b` of `word`.
#[inline]
pub(super) fn set_bit(word: &mut u64, b: usize, on: bool) {
    let b = b % 64;
    *word = (*word & !(1 << b)) | (u64::from(on) << b);
}
