//! QMAN: round-robin over the classes it may push, the eligibility bitmap that says which, and
//! the random traffic it is offered.
//!
//! A class's bits in `wants` and `room` are recomputed after every change to what they depend
//! on (its FSM or PAUSE, its backlog, whether traffic is offered; its credit), so their AND is
//! always current (`room` alone may be stale while `wants` is clear: a flush read takes class
//! credit from a halted class); its port's byte of `open` is as of the port's last refresh
//! (flush reads take credit without one).

use super::Pipeline;
use crate::wire::PRIORITIES;

impl Pipeline {
    /// QMAN pushes up to `width` FDs through the push queue and the stages.
    #[inline(always)]
    pub(super) fn qman_push_staged(&mut self) {
        self.qman_push::<false>();
    }

    /// QMAN pushes up to `width` FDs on the direct path (`direct.rs`).
    #[inline(always)]
    pub(super) fn qman_push_direct(&mut self) {
        if self.admit.on {
            self.qman_push_admitted();
        } else {
            self.qman_push::<true>();
        }
    }

    /// `qman_push_direct` while flush reads compete for the QMI (out of line: rare).
    #[inline(never)]
    fn qman_push_admitted(&mut self) {
        self.qman_push_admit();
    }

    /// QMAN pushes up to `width` FDs. `DIRECT`: the FDs go straight to their port's MAC queue
    /// with the time they will pass the NTI (`direct.rs`), where the push queue cannot fill.
    /// (While flush reads hold FDs back, `Hot::push_admitted` pushes instead.)
    #[inline(always)]
    pub(super) fn qman_push<const DIRECT: bool>(&mut self) {
        for _ in 0..self.lim.width {
            if !DIRECT && !self.push_queue.has_room() {
                return;
            }
            let Some(ci) = self.elig.next(self.lim.nclasses) else { return };
            let (p, fd) = self.hot().push::<DIRECT, false>(ci);
            let cycle = self.cycle;
            if DIRECT {
                let nti = cycle + self.lim.direct_transit;
                self.hot().queue_direct(p, nti, fd, cycle);
            } else {
                self.push_queue.push(cycle, fd);
            }
        }
    }

    /// Recomputes QMAN eligibility for every class of port `p`.
    pub(super) fn refresh_port_eligibility(&mut self, p: usize) {
        for n in 0..PRIORITIES {
            self.set_class_ok(p * PRIORITIES + n);
        }
        self.refresh_port_byte(p);
    }

    /// Recomputes QMAN eligibility after something changed for one class (a write to external
    /// memory, the end of a pause): its own bit, and the port's credit.
    pub(super) fn refresh_class(&mut self, ci: usize) {
        self.set_class_ok(ci);
        self.refresh_port_byte(ci / PRIORITIES);
    }

    /// Sets class `ci`'s bits in `wants` and `room`.
    #[inline]
    fn set_class_ok(&mut self, ci: usize) {
        let (wants, room) = self.hot().class_wants(ci);
        self.elig.set_class(ci, wants, room);
    }

    pub(super) fn refresh_port_byte(&mut self, p: usize) {
        self.hot().refresh_port(p);
    }

    pub(super) fn refill(&mut self, load_percent: u64) {
        // Frames per 64 cycles per class at the offered load, for the average frame length.
        let avg_len = (u64::from(self.cfg.min_len) + u64::from(self.cfg.max_len)) / 2;
        let window = self.cfg.cycle * 64;
        let per_port = window.as_ps() as f64 / self.cfg.speed.frame_time(avg_len).as_ps() as f64;
        let mean = per_port * load_percent as f64 / 100.0 / PRIORITIES as f64;
        let max = (2.0 * mean).ceil() as u64;
        for class in self.pauses.iter_mut() {
            class.backlog += self.rng.below(max + 1);
        }
        for p in 0..self.cfg.ports {
            self.refresh_port_eligibility(p);
        }
    }
}
