//! The MAC side: PFC reception, Priority_Paused and what it does to the classes, and
//! transmission selection onto the wire.

use super::{Departure, PauseMode, Pipeline, Queued, MAX_PORTS};
use crate::pipeline::class::FsmState;
use crate::pipeline::class::MAX_CLASSES;
use crate::pipeline::fd::Fd;
use crate::time::{Picos, PFC_REACTION_BOUND};
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
        let class = &mut self.classes[ci];
        class.pause = true;
        self.pauses[ci].ever_paused = true;
        self.paused_classes += 1;
        self.onchip_paused_octets += class.mac_octets;
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
        let class = &mut self.classes[p * PRIORITIES + n];
        class.pause = false;
        self.paused_classes -= 1;
        self.onchip_paused_octets -= class.mac_octets;
    }

    /// Frames of a newly paused class waiting in the MAC's transmit queue go back on the
    /// recycle path at once, in order: a paused frame never waits on chip.
    fn return_from_mac(&mut self, p: usize, n: usize) {
        let class = &mut self.classes[p * PRIORITIES + n];
        let staged = &mut self.pauses[p * PRIORITIES + n].staged;
        let staging = &mut self.recycle_staging;
        let (stats, onchip) = (&mut self.stats, &mut self.onchip_paused_octets);
        self.ports[p].queue.split_off_where(
            |q| usize::from(q.fd.priority()) != n,
            |q| {
                stats.returned_by_mac += 1;
                let len = u64::from(q.fd.len);
                class.mac_octets -= len;
                *staged += 1;
                *onchip -= len;
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
        let at = self.cycle_at(at);
        self.wheel.insert(self.cycle + 1, at, p);
    }

    /// The first cycle that starts at or after `t`.
    #[inline]
    pub(super) fn cycle_at(&self, t: Picos) -> u64 {
        // (By a divisor known to be non-zero: no check for zero on the hot path.)
        let (ps, cycle) = (t.as_ps(), self.cycle_ps);
        ps / cycle + u64::from(ps % cycle != 0)
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

    /// `mac_ports`; `EXTERNAL`: known to be in `external` mode (the steady loop inlines this
    /// one, without the other modes' transmission selection and the pause handling, which
    /// are out of line).
    #[inline(always)]
    pub(super) fn mac_ports_of<const EXTERNAL: bool>(&mut self, now: Picos) {
        for w in 0..self.wheel.words() {
            let mut due = self.wheel.take(self.cycle, w);
            while due != 0 {
                let p = (w * 64 + due.trailing_zeros() as usize) % MAX_PORTS;
                due &= due - 1;
                // A pause ending on port p concerns only port p's MAC and classes.
                if self.ports[p].next_resume <= now {
                    self.update_pause(p, now);
                }
                let sent = if EXTERNAL {
                    self.transmit_from_queue::<true>(p, now)
                } else {
                    self.mac_transmit(p, now)
                };
                let at = if sent && EXTERNAL {
                    self.wake_time_after_send(p)
                } else {
                    self.port_wake_time(p)
                };
                if let Some(at) = at {
                    self.wake_port(p, at);
                }
            }
        }
    }

    /// When port `p`'s MAC next has something to do, as far as its own state tells: a pause
    /// timer running out, or its wire freeing while it holds a frame it may start. An FD
    /// reaching an empty queue or a PFC frame wakes it earlier.
    #[inline]
    fn port_wake_time(&self, p: usize) -> Option<Picos> {
        let port = &self.ports[p];
        // The head's arrival at the MAC: in the past except for an FD on the direct path.
        let sendable = match self.cfg.mode {
            PauseMode::External | PauseMode::Stall => port
                .queue
                .front()
                .filter(|q| port.paused & (1 << q.fd.priority()) == 0)
                .map(|q| q.arrived),
            PauseMode::Fifo => (port.onchip_nonempty & !port.paused != 0).then_some(Picos::ZERO),
        };
        let at = match sendable {
            // The MAC first sees an FD in the cycle after the NTI queued it.
            Some(arrived) => port.next_resume.min(port.busy_until.max(arrived + Picos(1))),
            None => port.next_resume,
        };
        (at != Picos::MAX).then_some(at)
    }

    /// `port_wake_time` after port `p` started a frame, in `external` mode, without reading
    /// the new head of its queue (a dependent load on the hot path): when the wire frees, if
    /// the queue holds anything. That is never later than `port_wake_time` (the head is never
    /// of a paused class in this mode, and may not have passed the NTI yet), and a port looked
    /// at before it can send is just rescheduled.
    #[inline]
    fn wake_time_after_send(&self, p: usize) -> Option<Picos> {
        let port = &self.ports[p];
        let at = if port.queue.is_empty() {
            port.next_resume
        } else {
            port.next_resume.min(port.busy_until)
        };
        (at != Picos::MAX).then_some(at)
    }

    /// Transmission selection on port `p`: starts the next frame if the wire is free and one
    /// may start, and records its departure (order, reaction bound, credit given back).
    #[inline]
    fn mac_transmit(&mut self, p: usize, now: Picos) -> bool {
        match self.cfg.mode {
            PauseMode::External | PauseMode::Stall => self.transmit_from_queue::<false>(p, now),
            PauseMode::Fifo => self.transmit_from_fifo(p, now),
        }
    }

    /// `mac_transmit` from the MAC transmit queue (`external`, `stall`). `EXTERNAL`: known to
    /// be in `external` mode, where no FD of a paused class is ever in the queue (a pause
    /// returns them to the recycle path at once, restages those on the direct path, and the
    /// NTI recycles the class's FDs until its FSM is idle again), so the head needs no look
    /// at Priority_Paused.
    #[inline(always)]
    fn transmit_from_queue<const EXTERNAL: bool>(&mut self, p: usize, now: Picos) -> bool {
        let port = &mut self.ports[p];
        if port.busy_until > now {
            return false;
        }
        let Some(&Queued { arrived, fd }) = port.queue.front() else { return false };
        debug_assert!(!EXTERNAL || port.paused & (1 << fd.priority()) == 0);
        if !EXTERNAL && port.paused & (1 << fd.priority()) != 0 {
            // Never start a paused frame; in `stall` mode it blocks the port.
            return false;
        }
        if arrived >= now {
            // On the direct path and not yet past the NTI (queued FDs arrived in an earlier
            // cycle).
            return false;
        }
        port.queue.pop_front();
        self.depart(p, now, arrived, fd);
        true
    }

    /// `mac_transmit` from the on-chip FIFOs (`fifo`): round robin from `rr` over the
    /// priorities with FDs and not paused.
    #[inline(never)]
    fn transmit_from_fifo(&mut self, p: usize, now: Picos) -> bool {
        let port = &mut self.ports[p];
        if port.busy_until > now {
            return false;
        }
        let candidates = port.onchip_nonempty & !port.paused;
        if candidates == 0 {
            return false;
        }
        let start = port.rr;
        let n =
            (start + candidates.rotate_right(start as u32).trailing_zeros() as usize) % PRIORITIES;
        port.rr = (n + 1) % PRIORITIES;
        let onchip = &mut self.pauses[p * PRIORITIES + n].onchip;
        let Some(fd) = onchip.pop_front() else { return false };
        if onchip.is_empty() {
            port.onchip_nonempty &= !(1 << n);
        }
        self.depart(p, now, now, fd);
        true
    }

    /// A frame of port `p` that reached the MAC at `arrived` starts on the wire: the wire's
    /// time, the credit given back, the order and reaction-bound checks, the statistics.
    #[inline(always)]
    fn depart(&mut self, p: usize, now: Picos, arrived: Picos, fd: Fd) {
        let port = &mut self.ports[p];
        let start = port.busy_until.max(arrived).max(now.saturating_sub(self.cfg.cycle));
        port.busy_until = start + self.wire_time[usize::from(fd.len)];
        port.inflight -= 1;
        let reserve = u32::from(port.flush_waiting != 0);
        let port_open = port.inflight + reserve < self.port_credit;
        let ci = fd.class() % MAX_CLASSES;
        let class = &mut self.classes[ci];
        class.inflight -= 1;
        let class_room = class.inflight < self.class_credit;
        class.mac_octets -= u64::from(fd.len);
        class.departed += 1;
        if fd.seq != class.expected_seq {
            self.stats.order_violations += 1;
        }
        class.expected_seq = fd.seq + 1;
        if start >= class.indicated_at && start < class.indicated_until {
            if start > class.indicated_at + PFC_REACTION_BOUND {
                self.stats.late_frames += 1;
            } else {
                self.stats.frames_within_bound += 1;
            }
        }
        self.stats.departed += 1;
        self.stats.departed_octets += u64::from(fd.len);
        if self.recording {
            self.departures.push(Departure {
                time: start,
                port: fd.port(),
                priority: fd.priority(),
                seq: fd.seq,
                len: fd.len,
            });
        }
        self.refresh_after_departure(ci, class_room, port_open);
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
