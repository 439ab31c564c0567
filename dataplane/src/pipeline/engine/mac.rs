//! The MAC side: PFC reception, Priority_Paused and what it does to the classes, and
//! transmission selection onto the wire.

use super::{PauseMode, Pipeline, MAX_PORTS};
use crate::pipeline::class::FsmState;
use crate::pipeline::fd::Fd;
use crate::time::Picos;
use crate::wire::{MacControl, PfcFrame, PRIORITIES};

impl Pipeline {
    // ===== PFC reception and Priority_Paused =====

    pub(super) fn process_pfc(&mut self, now: Picos) {
        while self.pfc_events.peek_time().is_some_and(|t| t <= now) {
            let Some((at, ev)) = self.pfc_events.pop() else { break };
            if ev.apply {
                let idle = self.ports[ev.port].busy_until;
                self.receivers[ev.port].receive(at, &MacControl::Pfc(ev.frame), idle);
                self.stats.pause_indications += 1;
                self.update_pause(ev.port, now);
                // The port's MAC runs later in this cycle whatever its wire is doing.
                self.wheel.insert(self.cycle, self.cycle, ev.port);
            } else {
                self.note_indication(at, ev.port, &ev.frame);
                let apply_at = at + self.cfg.pause_detect_latency;
                self.pfc_events.schedule(apply_at, super::PfcEvent { apply: true, ..ev });
            }
        }
        self.next_pfc = self.pfc_events.peek_time().unwrap_or(Picos::MAX);
    }

    /// The reaction-bound checker's record: when each class was told to pause, and until when.
    fn note_indication(&mut self, at: Picos, port: usize, frame: &PfcFrame) {
        let speed = self.cfg.speed;
        for n in 0..PRIORITIES {
            if frame.enable & (1 << n) == 0 {
                continue;
            }
            let class = &mut self.classes[port * PRIORITIES + n];
            let until = at + speed.quanta(u64::from(frame.time[n]));
            if at >= class.indicated_until {
                class.indicated_at = at; // a new pause; a refresh keeps the original start
            }
            class.indicated_until = until;
        }
    }

    /// (Out of line: rare, and inlined into the MACs' loop its registers cost every visit.)
    #[inline(never)]
    fn update_pause(&mut self, p: usize, now: Picos) {
        let vector = self.receivers[p].paused_vector(now);
        let changed = vector ^ self.ports[p].paused;
        self.ports[p].paused = vector;
        self.ports[p].next_resume = self.receivers[p].next_resume(now).unwrap_or(Picos::MAX);
        let ports = &self.ports[..self.cfg.ports];
        self.next_resume = ports.iter().map(|port| port.next_resume).min().unwrap_or(Picos::MAX);
        if changed != 0 {
            self.steady_break = true;
        }
        for n in (0..PRIORITIES).filter(|n| changed & (1 << n) != 0) {
            if vector & (1 << n) != 0 {
                self.pause_asserted(p, n);
            } else {
                self.pause_deasserted(p, n);
            }
        }
        if changed != 0 {
            self.refresh_port_eligibility(p);
        }
    }

    fn pause_asserted(&mut self, p: usize, n: usize) {
        let ci = p * PRIORITIES + n;
        if self.direct {
            // Before its octets MAC-side are counted: those still on their way are not there.
            self.restage_class(ci);
        }
        if self.cfg.mode != PauseMode::External {
            // (In `external` mode the class's FDs in the MAC queue go back on the recycle path
            // below, at once: none is held on chip, and the queue need not be counted.)
            self.onchip_paused_octets += self.mac_octets(ci);
        }
        let class = &mut self.classes[ci];
        class.pause = true;
        self.pauses[ci].ever_paused = true;
        self.paused_classes += 1;
        if self.cfg.mode == PauseMode::External {
            match class.fsm {
                FsmState::Idle => {
                    class.fsm = FsmState::WaitHaltAck;
                    self.active.push(ci);
                }
                FsmState::Flushing => class.renewed = true,
                FsmState::WaitHaltAck | FsmState::PipeClean => {}
            }
            self.return_from_mac(p, n);
        }
        self.note_onchip_peak();
    }

    fn pause_deasserted(&mut self, p: usize, n: usize) {
        let ci = p * PRIORITIES + n;
        if self.cfg.mode == PauseMode::External {
            // (No FD of a paused class reaches the MAC queue in this mode.)
            debug_assert_eq!(self.mac_octets(ci), 0);
        } else {
            self.onchip_paused_octets -= self.mac_octets(ci);
        }
        self.classes[ci].pause = false;
        self.paused_classes -= 1;
    }

    /// Payload octets of class `ci` held MAC-side (read past the NTI, or on the direct path,
    /// and not yet sent): its FDs in the MAC transmit queue, or in `fifo` mode its on-chip
    /// FIFO. (Counted here when a pause starts or ends rather than kept for every frame.)
    fn mac_octets(&self, ci: usize) -> u64 {
        let held = |fd: &Fd| if fd.class() == ci { u64::from(fd.len) } else { 0 };
        match self.cfg.mode {
            PauseMode::Fifo => self.pauses[ci].onchip.iter().map(|fd| u64::from(fd.len)).sum(),
            PauseMode::External | PauseMode::Stall => {
                self.ports[ci / PRIORITIES].queue.iter().map(|q| held(&q.fd)).sum()
            }
        }
    }

    /// Frames of a newly paused class waiting in the MAC's transmit queue go back on the
    /// recycle path at once, in order: a paused frame never waits on chip.
    fn return_from_mac(&mut self, p: usize, n: usize) {
        let staged = &mut self.pauses[p * PRIORITIES + n].staged;
        let staging = &mut self.recycle_staging;
        let stats = &mut self.stats;
        self.ports[p].queue.split_off_where(
            |q| usize::from(q.fd.priority()) != n,
            |q| {
                stats.returned_by_mac += 1;
                *staged += 1;
                staging.push_back(q.fd);
            },
        );
        self.note_staging_peak();
    }

    // ===== transmission selection =====

    /// Lets port `p`'s MAC look at its queue again no later than time `at` (but not in this
    /// cycle: its MAC has run).
    #[inline]
    pub(super) fn wake_port(&mut self, p: usize, at: Picos) {
        let cycle = self.cycle;
        self.hot().wake_port(p, at, cycle);
    }

    /// The first cycle that starts at or after `t`.
    #[inline]
    pub(super) fn cycle_at(&self, t: Picos) -> u64 {
        self.lim.cycle_at(t)
    }

    /// Runs the MACs due in this cycle, in port order (as if every port were looked at every
    /// cycle: the others have nothing to do), and schedules each for when it next may.
    pub(super) fn mac_ports(&mut self, now: Picos) {
        if self.cfg.mode == PauseMode::External {
            self.mac_ports_of::<true>(now);
        } else {
            self.mac_ports_of::<false>(now);
        }
    }

    /// `mac_ports`; `EXTERNAL`: known to be in `external` mode (the other modes' transmission
    /// selection and the pause handling are out of line).
    #[inline(always)]
    pub(super) fn mac_ports_of<const EXTERNAL: bool>(&mut self, now: Picos) {
        let cycle = self.cycle;
        for w in 0..self.wheel.words() {
            let mut due = self.wheel.take(cycle, w);
            while due != 0 {
                let p = (w * 64 + due.trailing_zeros() as usize) % MAX_PORTS;
                due &= due - 1;
                // A pause ending on port p concerns only port p's MAC and classes.
                if self.ports[p].next_resume <= now {
                    self.update_pause(p, now);
                }
                self.hot().visit_mac::<EXTERNAL, false>(p, now, cycle);
            }
        }
    }

    pub(super) fn note_staging_peak(&mut self) {
        self.stats.recycle_staging_peak =
            self.stats.recycle_staging_peak.max(self.recycle_staging.len());
    }

    pub(super) fn note_onchip_peak(&mut self) {
        self.stats.onchip_paused_octets_peak =
            self.stats.onchip_paused_octets_peak.max(self.onchip_paused_octets);
    }
}
