//! QMAN: round-robin over the classes it may push, the eligibility bitmap that says which, and
//! the random traffic it is offered.
//!
//! A class's bits in `wants` and `room` are recomputed after every change to what they depend
//! on (its FSM or PAUSE, its backlog, whether traffic is offered; its credit), so their AND is
//! always current (`room` alone may be stale while `wants` is clear: a flush read takes class
//! credit from a halted class); its port's byte of `open` is as of the port's last refresh
//! (flush reads take credit without one).

use super::{PauseMode, Pipeline, MAX_PORTS};
use crate::pipeline::class::MAX_CLASSES;
use crate::pipeline::fd::Fd;
use crate::wire::PRIORITIES;

impl Pipeline {
    /// QMAN pushes up to `width` FDs through the push queue and the stages.
    #[inline(always)]
    pub(super) fn qman_push_staged(&mut self) {
        self.qman_push::<false, false>();
    }

    /// QMAN pushes up to `width` FDs on the direct path (`direct.rs`).
    #[inline(always)]
    pub(super) fn qman_push_direct(&mut self) {
        if self.admit_model {
            self.qman_push_admitted();
        } else {
            self.qman_push::<true, false>();
        }
    }

    /// `qman_push_direct` while flush reads compete for the QMI (out of line: rare).
    #[inline(never)]
    fn qman_push_admitted(&mut self) {
        self.qman_push_admit();
    }

    /// QMAN pushes up to `width` FDs. `DIRECT`: the FDs go straight to their port's MAC queue
    /// with the time they will pass the NTI (`direct.rs`); the push queue then cannot fill
    /// unless flush reads hold FDs back (`MODEL`: the QMI admission model is on).
    #[inline(always)]
    pub(super) fn qman_push<const DIRECT: bool, const MODEL: bool>(&mut self) {
        for _ in 0..self.cfg.width {
            if !DIRECT && !self.push_queue.has_room() {
                return;
            }
            let Some(ci) = self.next_eligible() else { return };
            let admit = if MODEL { self.admit_next() } else { (0, 0) };
            if MODEL && !self.push_queue_has_room(admit.0) {
                return;
            }
            self.qman_rr = ci + 1;
            let ci = ci % MAX_CLASSES;
            let p = ci / PRIORITIES;
            let len = if self.cfg.min_len == self.cfg.max_len {
                self.cfg.min_len
            } else {
                self.rng.between(u64::from(self.cfg.min_len), u64::from(self.cfg.max_len)) as u16
            };
            let class = &mut self.classes[ci];
            let fd = Fd::of_class(ci, len, class.next_seq, self.next_buffer);
            self.next_buffer = self.next_buffer.wrapping_add(1);
            class.next_seq += 1;
            if DIRECT {
                // Counted MAC-side at once; `leave_direct` takes back what has not got there.
                class.mac_octets += u64::from(len);
            } else {
                class.in_push_queue += 1;
            }
            class.inflight += 1;
            // The class was eligible, so only what the push moved (its credit, its backlog)
            // can clear its bit.
            let room = class.inflight < self.class_credit;
            let (w, bit) = (ci / 64, 1u64 << (ci % 64));
            if !room {
                self.room[w] &= !bit;
            }
            if !self.saturated {
                let backlog = &mut self.pauses[ci].backlog;
                *backlog -= 1;
                if *backlog == 0 {
                    self.wants[w] &= !bit;
                }
            }
            let limit = self.qman_credit(p);
            let port = &mut self.ports[p];
            port.inflight += 1;
            let open = port.inflight < limit;
            if !open {
                // (The port was open: QMAN just chose one of its classes.)
                self.set_open(p, false);
            }
            if DIRECT {
                let nti = if MODEL {
                    self.admit(admit, fd.buffer)
                } else {
                    self.cycle + self.direct_transit
                };
                self.queue_direct(p, nti, fd);
            } else {
                self.push_queue.push(self.cycle, fd);
            }
            self.stats.enqueued += 1;
            debug_assert_eq!(self.class_ok_bit(ci), self.class_ok(ci));
        }
    }

    /// Round-robin over the eligibility bitmap, starting after the last class served.
    #[inline]
    fn next_eligible(&self) -> Option<usize> {
        if self.eligible_words == 1 {
            // Up to 8 ports: one word. The classes from `start` on, else the first one.
            let word = self.eligible(0);
            if word == 0 {
                return None; // the common answer once the ports' credit is taken
            }
            let start = if self.qman_rr < self.nclasses { self.qman_rr } else { 0 };
            let later = word & (u64::MAX << (start % 64));
            let pick = if later != 0 { later } else { word };
            return Some(pick.trailing_zeros() as usize);
        }
        let start = if self.qman_rr < self.nclasses { self.qman_rr } else { 0 };
        let words = self.eligible_words;
        let (w0, b0) = (start / 64, start % 64);
        // The rest of the starting word, then the other words, then the start of the first.
        let word = self.eligible(w0);
        let first = word & (u64::MAX << b0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        for k in 1..words {
            let w = (w0 + k) % words;
            let word = self.eligible(w);
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
        }
        let wrap = word & !(u64::MAX << b0);
        (wrap != 0).then(|| w0 * 64 + wrap.trailing_zeros() as usize)
    }

    /// Word `w` of the eligibility bitmap: the classes QMAN may push now.
    #[inline]
    fn eligible(&self, w: usize) -> u64 {
        let w = w % (MAX_CLASSES / 64);
        self.wants[w] & self.room[w] & self.open[w]
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

    /// `refresh_class` after a departure of class `ci`, which left it `room` below its class
    /// credit or not and its port `open` or not: giving back credit changes nothing else.
    #[inline]
    pub(super) fn refresh_after_departure(&mut self, ci: usize, room: bool, open: bool) {
        let ci = ci % MAX_CLASSES;
        set_bit(&mut self.room[ci / 64], ci % 64, room);
        debug_assert_eq!(self.class_ok_bit(ci), self.class_ok(ci));
        self.set_open(ci / PRIORITIES, open);
    }

    /// Class `ci`'s bit of the eligibility bitmap, its port's credit aside.
    #[inline]
    fn class_ok_bit(&self, ci: usize) -> bool {
        let ci = ci % MAX_CLASSES;
        (self.wants[ci / 64] & self.room[ci / 64]) & (1 << (ci % 64)) != 0
    }

    /// Sets class `ci`'s bits in `wants` and `room`.
    #[inline]
    fn set_class_ok(&mut self, ci: usize) {
        let (wants, room) = self.class_wants(ci);
        let ci = ci % MAX_CLASSES;
        set_bit(&mut self.wants[ci / 64], ci % 64, wants);
        set_bit(&mut self.room[ci / 64], ci % 64, room);
    }

    /// Whether QMAN may push class `ci`, leaving the port's credit aside (debug checks).
    fn class_ok(&self, ci: usize) -> bool {
        let (wants, room) = self.class_wants(ci);
        wants && room
    }

    /// Whether QMAN may push class `ci` as far as its FSM and traffic go, and whether it is
    /// below its class credit.
    #[inline]
    fn class_wants(&self, ci: usize) -> (bool, bool) {
        let class = &self.classes[ci % MAX_CLASSES];
        let halted = match self.cfg.mode {
            PauseMode::External => class.halted(),
            PauseMode::Fifo => class.pause,
            PauseMode::Stall => false,
        };
        let has_traffic = self.generating && (self.saturated || self.pauses[ci].backlog > 0);
        (!halted && has_traffic, class.inflight < self.class_credit)
    }

    pub(super) fn refresh_port_byte(&mut self, p: usize) {
        let open = self.ports[p % MAX_PORTS].inflight < self.qman_credit(p);
        self.set_open(p, open);
    }

    /// The credit of port `p` QMAN may use: all of it, less one while a flush epoch of the
    /// port has FDs left to read. Without that reserve a saturated port never lets a flush
    /// read through: QMAN takes back each credit a departure frees in the same cycle, before
    /// the DMA engine runs, and the resumed class stays halted for good.
    #[inline]
    pub(super) fn qman_credit(&self, p: usize) -> u32 {
        let waiting = self.ports[p % MAX_PORTS].flush_waiting != 0;
        self.port_credit - u32::from(waiting)
    }

    /// Port `p`'s byte of `open`: whether it has credit.
    #[inline]
    fn set_open(&mut self, p: usize, open: bool) {
        let p = p % MAX_PORTS;
        let byte = 0xffu64 << ((p % 8) * 8);
        let word = &mut self.open[p / 8];
        *word = if open { *word | byte } else { *word & !byte };
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

/// Sets or clears bit `b` of `word`.
#[inline]
fn set_bit(word: &mut u64, b: usize, on: bool) {
    let bit = 1u64 << (b % 64);
    *word = (*word & !bit) | if on { bit } else { 0 };
}
