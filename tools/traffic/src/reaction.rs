//! How fast the sender (or the bridge in front of us) obeys our pauses: from each XOFF we send
//! to the last frame of that priority that still arrives before we release it. This is the
//! whole loop as the receiver sees it (our PFC frame's way out, the peer's reaction, the frames
//! already on their way), which is what a port's headroom must absorb.

use dataplane::time::Picos;
use dataplane::wire::{MacControl, PRIORITIES};

use super::histogram::Histogram;

#[derive(Debug, Clone, Default)]
pub struct Reaction {
    /// When the current pause's XOFF left, per priority.
    since: [Option<Picos>; PRIORITIES],
    last_frame: [Option<Picos>; PRIORITIES],
    /// Nanoseconds from XOFF to the last frame that followed it, per pause (0: none followed).
    pub per_priority: [Histogram; PRIORITIES],
    /// Frames that arrived during pauses.
    pub frames_in_pause: [u64; PRIORITIES],
}

impl Reaction {
    /// A PFC frame we sent at `now`: a non-zero time opens a pause (a refresh does not), zero
    /// (XON) closes it.
    pub fn sent(&mut self, now: Picos, frame: &MacControl) {
        let MacControl::Pfc(pfc) = frame else { return };
        for n in (0..PRIORITIES).filter(|n| pfc.enable & (1 << n) != 0) {
            if pfc.time[n] == 0 {
                self.close(n);
            } else if self.since[n].is_none() {
                self.since[n] = Some(now);
                self.last_frame[n] = None;
            }
        }
    }

    /// A frame of priority `n` arrived at `now`.
    pub fn arrived(&mut self, now: Picos, n: usize) {
        if self.since[n].is_some() {
            self.last_frame[n] = Some(now);
            self.frames_in_pause[n] += 1;
        }
    }

    fn close(&mut self, n: usize) {
        if let Some(since) = self.since[n].take() {
            let last = self.last_frame[n].take().unwrap_or(since);
            self.per_priority[n].record((last - since).as_ns());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataplane::wire::{MacAddr, PfcFrame};

    fn pfc(quanta: u16) -> MacControl {
        MacControl::Pfc(PfcFrame::pause(MacAddr([2, 0, 0, 0, 0, 1]), 0b1000, quanta))
    }

    #[test]
    fn the_last_frame_after_xoff_and_before_xon_is_the_reaction() {
        let mut r = Reaction::default();
        r.arrived(Picos::from_us(1), 3); // before any pause: not counted
        r.sent(Picos::from_us(10), &pfc(0xffff));
        r.arrived(Picos::from_us(12), 3);
        r.sent(Picos::from_us(20), &pfc(0xffff)); // refresh: same pause
        r.arrived(Picos::from_us(25), 3);
        r.sent(Picos::from_us(40), &pfc(0));
        r.sent(Picos::from_us(50), &pfc(0xffff));
        r.sent(Picos::from_us(60), &pfc(0)); // nothing followed this XOFF
        let h = &r.per_priority[3];
        assert_eq!(h.count(), 2);
        assert_eq!(h.max(), Some(15_000));
        assert_eq!(h.min(), Some(0));
        assert_eq!(r.frames_in_pause[3], 2);
    }
}
