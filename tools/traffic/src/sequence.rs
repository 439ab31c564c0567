//! Loss, reordering and duplicates of one flow, from its sequence numbers.
//!
//! A number above the next expected one opens a gap: the numbers skipped are counted missing
//! (and remembered). A number below it is either one of those missing (a frame that came late:
//! reordered, no longer missing) or one already seen (a duplicate). What is still missing at the
//! end is lost; frames after the last one received cannot be seen here and are found by
//! comparing with the sender's count.

use std::collections::BTreeSet;

/// Missing numbers remembered at most; older ones stay counted as lost, and if one turns up
/// after all it is counted as a duplicate.
const MAX_MISSING: usize = 1 << 20;

#[derive(Debug, Clone, Default)]
pub struct SequenceCheck {
    next: u64,
    missing: BTreeSet<u64>,
    forgotten: u64,
    pub received: u64,
    pub reordered: u64,
    pub duplicates: u64,
}

impl SequenceCheck {
    pub fn observe(&mut self, seq: u64) {
        self.received += 1;
        if seq == self.next {
            self.next += 1;
        } else if seq > self.next {
            for s in self.next..seq {
                if self.missing.len() >= MAX_MISSING {
                    self.forgotten += seq - s;
                    break;
                }
                self.missing.insert(s);
            }
            self.next = seq + 1;
        } else if self.missing.remove(&seq) {
            self.reordered += 1;
        } else {
            self.duplicates += 1;
        }
    }

    /// Numbers skipped and never received (up to the highest received).
    pub fn lost(&self) -> u64 {
        self.missing.len() as u64 + self.forgotten
    }

    /// One past the highest number received: the sender sent at least this many.
    pub fn highest_plus_one(&self) -> u64 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(seqs: &[u64]) -> SequenceCheck {
        let mut c = SequenceCheck::default();
        seqs.iter().for_each(|s| c.observe(*s));
        c
    }

    #[test]
    fn in_order_is_clean() {
        let c = check(&[0, 1, 2, 3]);
        assert_eq!((c.received, c.lost(), c.reordered, c.duplicates), (4, 0, 0, 0));
        assert_eq!(c.highest_plus_one(), 4);
    }

    #[test]
    fn a_late_frame_is_reordered_not_lost() {
        let c = check(&[0, 2, 3, 1, 4]);
        assert_eq!((c.lost(), c.reordered, c.duplicates), (0, 1, 0));
    }

    #[test]
    fn gaps_are_lost_and_repeats_are_duplicates() {
        let c = check(&[0, 1, 5, 5, 1, 6]);
        assert_eq!((c.received, c.lost(), c.reordered, c.duplicates), (6, 3, 0, 2));
    }
}
