use super::MacCounters;
use crate::time::{LinkSpeed, Picos};
use crate::wire::{MacAddr, MacControl, MAC_CONTROL_GROUP, PRIORITIES};

/// What the receiver did with a MAC Control frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxOutcome {
    /// A PFC frame updated the timers of these priorities (bit n = priority n; may be 0 for a
    /// legal all-zero enable vector, or when no enabled priority was named).
    PfcApplied { priorities: u8 },
    /// A PAUSE frame loaded the link-pause timer.
    LinkPauseApplied,
    /// PAUSE while PFC is enabled on the port: counted and ignored.
    PauseIgnored,
    /// PFC while PFC is disabled on the port: no effect.
    PfcIgnored,
    /// Destination neither the MAC Control group address nor the port's own: discarded.
    DiscardedWrongDestination,
}

/// The receive half of a PFC MAC: per-priority pause timers in link time (36.3.2, Figure 36-8)
/// and, when PFC is disabled, the 802.3 link-pause timer.
///
/// Timers are kept as the absolute time at which the pause ends, so `Priority_Paused[n]` is
/// simply `now < paused_until[n]` and no per-tick work is needed.
#[derive(Debug, Clone)]
pub struct PfcReceiver {
    speed: LinkSpeed,
    own_addr: MacAddr,
    /// Priorities with PFC enabled (bit n = priority n). Zero means link-pause mode.
    pfc_enable: u8,
    paused_until: [Picos; PRIORITIES],
    link_paused_until: Picos,
    /// Where each pause timer's time paused was last folded into `counters` (see
    /// [`PfcReceiver::time_paused`]); the link pause's last.
    paused_counted_from: [Picos; PRIORITIES + 1],
    pub counters: MacCounters,
}

impl PfcReceiver {
    pub fn new(speed: LinkSpeed, own_addr: MacAddr, pfc_enable: u8) -> Self {
        PfcReceiver {
            speed,
            own_addr,
            pfc_enable,
            paused_until: [Picos::ZERO; PRIORITIES],
            link_paused_until: Picos::ZERO,
            paused_counted_from: [Picos::ZERO; PRIORITIES + 1],
            counters: MacCounters::default(),
        }
    }

    pub fn pfc_enable(&self) -> u8 {
        self.pfc_enable
    }

    /// Changes which priorities have PFC enabled. A priority losing PFC is no longer paused.
    pub fn set_pfc_enable(&mut self, enable: u8) {
        for (n, until) in self.paused_until.iter_mut().enumerate() {
            if enable & (1 << n) == 0 {
                *until = Picos::ZERO;
            }
        }
        if enable != 0 {
            self.link_paused_until = Picos::ZERO;
        }
        self.pfc_enable = enable;
    }

    /// Handles a MAC Control frame that finished arriving at `now`. `tx_idle_at` is when the
    /// local transmitter finishes the frame it is sending (a link pause starts counting only
    /// once the transmitter has stopped, seed 004).
    pub fn receive(&mut self, now: Picos, frame: &MacControl, tx_idle_at: Picos) -> RxOutcome {
        let dst = frame.dst();
        if dst != MAC_CONTROL_GROUP && dst != self.own_addr {
            self.counters.mac_control_discarded += 1;
            return RxOutcome::DiscardedWrongDestination;
        }
        match frame {
            MacControl::Pfc(pfc) => {
                if self.pfc_enable == 0 {
                    self.counters.pfc_frames_ignored += 1;
                    return RxOutcome::PfcIgnored;
                }
                self.counters.pfc_indications += 1;
                // e[n] = 1 for a priority without PFC enabled is ignored (36.3.2).
                let applied = pfc.enable & self.pfc_enable;
                for n in 0..PRIORITIES {
                    if applied & (1 << n) != 0 {
                        self.counters.pfc_indications_per_priority[n] += 1;
                        self.fold_time_paused(now, n);
                        self.paused_until[n] = now + self.speed.quanta(u64::from(pfc.time[n]));
                    }
                }
                RxOutcome::PfcApplied { priorities: applied }
            }
            MacControl::Pause(pause) => {
                if self.pfc_enable != 0 {
                    self.counters.pause_frames_ignored += 1;
                    return RxOutcome::PauseIgnored;
                }
                self.counters.pause_frames_received += 1;
                self.fold_time_paused(now, PRIORITIES);
                self.link_paused_until = if pause.pause_time == 0 {
                    now
                } else {
                    now.max(tx_idle_at) + self.speed.quanta(u64::from(pause.pause_time))
                };
                RxOutcome::LinkPauseApplied
            }
        }
    }

    /// Timer `timer`'s (a priority, or `PRIORITIES` for the link pause) pause time since it was
    /// last folded, up to `now`.
    fn unfolded(&self, now: Picos, timer: usize) -> Picos {
        let until = self.paused_until.get(timer).copied().unwrap_or(self.link_paused_until);
        now.min(until).saturating_sub(self.paused_counted_from[timer])
    }

    /// Adds timer `timer`'s pause time up to `now` to the counters, before a frame reloads it.
    /// Folding at every frame keeps what a cleared counter still owes to at most one pause.
    fn fold_time_paused(&mut self, now: Picos, timer: usize) {
        let ps = self.unfolded(now, timer).as_ps();
        match self.counters.time_paused_ps.get_mut(timer) {
            Some(total) => *total += ps,
            None => self.counters.link_time_paused_ps += ps,
        }
        self.paused_counted_from[timer] = now;
    }

    /// How long priority `n` has been paused in all (Priority_Paused asserted by the peer's
    /// PFC frames, or the link pause while PFC is off) since the counters were cleared, up to
    /// `now`. A pause under way when they were cleared counts from its last frame.
    pub fn time_paused(&self, now: Picos, n: usize) -> Picos {
        let timer = if self.pfc_enable == 0 { PRIORITIES } else { n.min(PRIORITIES - 1) };
        let folded = match self.counters.time_paused_ps.get(timer) {
            Some(total) => *total,
            None => self.counters.link_time_paused_ps,
        };
        Picos(folded) + self.unfolded(now, timer)
    }

    /// Priority_Paused[n]: transmission selection must not start a frame of priority `n`.
    pub fn priority_paused(&self, now: Picos, n: usize) -> bool {
        if self.pfc_enable == 0 {
            return now < self.link_paused_until;
        }
        self.paused_until.get(n).is_some_and(|until| now < *until)
    }

    /// Priority_Paused as a vector (bit n = priority n); all ones while link-paused.
    pub fn paused_vector(&self, now: Picos) -> u8 {
        (0..PRIORITIES).fold(0u8, |v, n| v | (u8::from(self.priority_paused(now, n)) << n))
    }

    /// When priority `n`'s pause ends (in the past if it is not paused).
    pub fn paused_until(&self, n: usize) -> Picos {
        if self.pfc_enable == 0 {
            self.link_paused_until
        } else {
            self.paused_until.get(n).copied().unwrap_or(Picos::ZERO)
        }
    }

    /// The earliest future time at which some pause ends, for event scheduling.
    pub fn next_resume(&self, now: Picos) -> Option<Picos> {
        self.paused_until
            .iter()
            .chain(std::iter::once(&self.link_paused_until))
            .copied()
            .filter(|t| *t > now)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{PauseFrame, PfcFrame};

    const PEER: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x02]);
    const OWN: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

    fn pfc(enable: u8, quanta: u16) -> MacControl {
        MacControl::Pfc(PfcFrame::pause(PEER, enable, quanta))
    }

    #[test]
    fn full_pause_on_priority_3_at_100g_lasts_exactly_65535_quanta() {
        let mut rx = PfcReceiver::new(LinkSpeed::G100, OWN, 0xff);
        let t0 = Picos::from_us(3);
        assert_eq!(
            rx.receive(t0, &pfc(1 << 3, 0xffff), t0),
            RxOutcome::PfcApplied { priorities: 8 }
        );
        let end = t0 + Picos(65_535 * 5_120);
        assert!(rx.priority_paused(end - Picos(1), 3), "still paused 1 ps before the end");
        assert!(!rx.priority_paused(end, 3), "resumes exactly 65535 x 5.12 ns later");
        assert!(!rx.priority_paused(t0, 2), "other priorities unaffected");
        assert_eq!(rx.counters.pfc_indications, 1);
        assert_eq!(rx.counters.pfc_indications_per_priority[3], 1);
    }

    #[test]
    fn time_paused_adds_each_pause_as_it_ran() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0xff);
        let quantum = LinkSpeed::G10.quanta(1);
        let t0 = Picos::from_us(5);
        rx.receive(t0, &pfc(1 << 3, 1_000), t0);
        assert_eq!(rx.time_paused(t0 + quantum * 400, 3), quantum * 400, "while it runs");
        // A refresh halfway restarts the timer: paused 500 quanta, then 1 000 more.
        let refresh = t0 + quantum * 500;
        rx.receive(refresh, &pfc(1 << 3, 1_000), refresh);
        let later = refresh + Picos::from_ms(1);
        assert_eq!(rx.time_paused(later, 3), quantum * 1_500);
        // An XON ends a pause early: 100 quanta of a 65 535 one.
        rx.receive(later, &pfc(1 << 3, 0xffff), later);
        let xon = later + quantum * 100;
        rx.receive(xon, &pfc(1 << 3, 0), xon);
        assert_eq!(rx.time_paused(xon + Picos::from_ms(10), 3), quantum * 1_600);
        assert_eq!(rx.time_paused(xon, 2), Picos::ZERO, "other priorities never paused");
        // Cleared counters: a pause under way counts from its last frame.
        rx.receive(xon, &pfc(1 << 3, 1_000), xon);
        rx.counters = MacCounters::default();
        assert_eq!(rx.time_paused(xon + Picos::from_ms(1), 3), quantum * 1_000);
    }

    #[test]
    fn a_link_pause_is_time_paused_on_every_priority() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0);
        let pause = MacControl::Pause(PauseFrame::new(PEER, 10));
        rx.receive(Picos::ZERO, &pause, Picos::ZERO);
        let after = Picos::from_ms(1);
        for n in 0..PRIORITIES {
            assert_eq!(rx.time_paused(after, n), LinkSpeed::G10.quanta(10), "priority {n}");
        }
    }

    #[test]
    fn time_zero_resumes_at_once() {
        let mut rx = PfcReceiver::new(LinkSpeed::G100, OWN, 0xff);
        rx.receive(Picos::ZERO, &pfc(0x10, 0xffff), Picos::ZERO);
        let t = Picos::from_ns(100);
        assert!(rx.priority_paused(t, 4));
        rx.receive(t, &pfc(0x10, 0), t);
        assert!(!rx.priority_paused(t, 4));
    }

    #[test]
    fn enable_bit_for_a_priority_without_pfc_is_ignored() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0b0000_1000);
        let out = rx.receive(Picos::ZERO, &pfc(0b0001_1000, 100), Picos::ZERO);
        assert_eq!(out, RxOutcome::PfcApplied { priorities: 0b0000_1000 });
        assert!(rx.priority_paused(Picos(1), 3));
        assert!(!rx.priority_paused(Picos(1), 4), "priority 4 has no PFC: ignored");
        assert_eq!(rx.counters.pfc_indications_per_priority[4], 0);
    }

    #[test]
    fn all_zero_enable_vector_is_a_legal_no_op() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0xff);
        assert_eq!(
            rx.receive(Picos::ZERO, &pfc(0, 0xffff), Picos::ZERO),
            RxOutcome::PfcApplied { priorities: 0 }
        );
        assert_eq!(rx.paused_vector(Picos(1)), 0);
        assert_eq!(rx.counters.pfc_indications, 1);
    }

    #[test]
    fn pause_is_ignored_when_pfc_is_enabled() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0x08);
        let pause = MacControl::Pause(PauseFrame::new(PEER, 0xffff));
        assert_eq!(rx.receive(Picos::ZERO, &pause, Picos::ZERO), RxOutcome::PauseIgnored);
        assert_eq!(rx.paused_vector(Picos(1)), 0);
        assert_eq!(rx.counters.pause_frames_ignored, 1);
    }

    #[test]
    fn link_pause_counts_from_the_end_of_the_frame_in_progress() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0);
        let pause = MacControl::Pause(PauseFrame::new(PEER, 10));
        let tx_idle = Picos::from_ns(1_000);
        assert_eq!(rx.receive(Picos::ZERO, &pause, tx_idle), RxOutcome::LinkPauseApplied);
        let end = tx_idle + LinkSpeed::G10.quanta(10);
        assert_eq!(rx.paused_vector(end - Picos(1)), 0xff, "link pause stops every priority");
        assert_eq!(rx.paused_vector(end), 0);
        assert_eq!(rx.receive(Picos::ZERO, &pfc(0xff, 1), tx_idle), RxOutcome::PfcIgnored);
    }

    #[test]
    fn wrong_destination_is_discarded_and_counted() {
        let mut rx = PfcReceiver::new(LinkSpeed::G10, OWN, 0xff);
        let mut frame = PfcFrame::pause(PEER, 0xff, 10);
        frame.dst = MacAddr([0x02, 9, 9, 9, 9, 9]);
        let out = rx.receive(Picos::ZERO, &MacControl::Pfc(frame), Picos::ZERO);
        assert_eq!(out, RxOutcome::DiscardedWrongDestination);
        assert_eq!(rx.counters.mac_control_discarded, 1);
        frame.dst = OWN;
        assert!(matches!(
            rx.receive(Picos::ZERO, &MacControl::Pfc(frame), Picos::ZERO),
            RxOutcome::PfcApplied { .. }
        ));
    }
}
