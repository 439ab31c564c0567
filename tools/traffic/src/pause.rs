//! How a sender honours PFC, as a NIC does: received PFC frames go to the PFC MAC's receiver
//! ([`PfcReceiver`]: the per-priority timers in quanta at the link speed, XON, the destination
//! check), and the time each priority spent paused is added up exactly from the timers, not from
//! how often the send loop looked.

use dataplane::mac::{PfcReceiver, RxOutcome};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::{MacAddr, MacControl, PRIORITIES};

#[derive(Debug, Clone)]
pub struct PauseState {
    receiver: PfcReceiver,
    speed: LinkSpeed,
    /// Start and end of each priority's current (or last) pause.
    since: [Picos; PRIORITIES],
    until: [Picos; PRIORITIES],
    /// Pause time of pauses that have ended.
    closed: [Picos; PRIORITIES],
}

impl PauseState {
    /// A sender on a link of `speed` whose own address is `mac`, with PFC on every priority.
    pub fn new(speed: LinkSpeed, mac: MacAddr) -> Self {
        PauseState {
            receiver: PfcReceiver::new(speed, mac, 0xff),
            speed,
            since: [Picos::ZERO; PRIORITIES],
            until: [Picos::ZERO; PRIORITIES],
            closed: [Picos::ZERO; PRIORITIES],
        }
    }

    /// Applies a MAC Control frame received at `now`.
    pub fn receive(&mut self, now: Picos, frame: &MacControl) -> RxOutcome {
        let outcome = self.receiver.receive(now, frame, now);
        if let (RxOutcome::PfcApplied { priorities }, MacControl::Pfc(pfc)) = (outcome, frame) {
            for n in (0..PRIORITIES).filter(|n| priorities & (1 << n) != 0) {
                let end = now + self.speed.quanta(u64::from(pfc.time[n]));
                if now < self.until[n] {
                    // Still paused: the new time replaces what was left (an XON ends it now).
                    self.until[n] = end;
                } else {
                    self.closed[n] += self.until[n] - self.since[n];
                    self.since[n] = now;
                    self.until[n] = end;
                }
            }
        }
        outcome
    }

    /// Priority_Paused[n] at `now`.
    pub fn paused(&self, now: Picos, n: usize) -> bool {
        self.receiver.priority_paused(now, n)
    }

    /// When priority `n`'s pause ends, if it is paused at `now`.
    pub fn paused_until(&self, now: Picos, n: usize) -> Option<Picos> {
        self.paused(now, n).then_some(self.until[n])
    }

    /// Total time priority `n` has been paused up to `now`.
    pub fn pause_time(&self, now: Picos, n: usize) -> Picos {
        let open = self.until[n].min(now) - self.since[n];
        self.closed[n] + open
    }

    /// PFC frames received and acted on, per priority named in them.
    pub fn indications(&self) -> [u64; PRIORITIES] {
        self.receiver.counters.pfc_indications_per_priority
    }

    pub fn pfc_frames(&self) -> u64 {
        self.receiver.counters.pfc_indications
    }

    /// MAC Control frames not acted on: PAUSE (PFC is on), wrong destination.
    pub fn ignored(&self) -> u64 {
        let c = &self.receiver.counters;
        c.pause_frames_ignored + c.mac_control_discarded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataplane::wire::PfcFrame;

    const ME: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const PEER: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    fn pfc(priorities: u8, quanta: u16) -> MacControl {
        MacControl::Pfc(PfcFrame::pause(PEER, priorities, quanta))
    }

    #[test]
    fn pause_time_follows_quanta_refresh_and_xon() {
        let mut p = PauseState::new(LinkSpeed::G10, ME);
        // 10 Gb/s: one quantum is 51.2 ns; 1000 quanta 51.2 µs.
        p.receive(Picos::ZERO, &pfc(0b1000, 1000));
        assert!(p.paused(Picos::from_us(51), 3));
        assert!(!p.paused(Picos::from_us(52), 3));
        assert!(!p.paused(Picos::from_us(1), 0));
        assert_eq!(p.pause_time(Picos::from_us(100), 3), Picos(51_200_000));
        // Refresh at 40 µs for another 1000 quanta, then XON at 60 µs.
        p.receive(Picos::from_us(200), &pfc(0b1000, 1000));
        p.receive(Picos::from_us(240), &pfc(0b1000, 1000));
        p.receive(Picos::from_us(260), &pfc(0b1000, 0));
        assert!(!p.paused(Picos::from_us(261), 3));
        assert_eq!(p.pause_time(Picos::from_ms(1), 3), Picos(51_200_000 + 60_000_000));
        assert_eq!(p.pfc_frames(), 4);
        assert_eq!(p.indications()[3], 4);
    }

    #[test]
    fn a_pause_in_progress_counts_up_to_now() {
        let mut p = PauseState::new(LinkSpeed::G10, ME);
        p.receive(Picos::from_us(10), &pfc(0xff, 0xffff));
        assert_eq!(p.pause_time(Picos::from_us(30), 5), Picos::from_us(20));
        assert_eq!(
            p.paused_until(Picos::from_us(30), 5),
            Some(Picos::from_us(10) + Picos(65_535 * 51_200))
        );
    }
}
