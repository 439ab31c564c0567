//! The QMI admission model of the direct path (`direct.rs`): while flush reads compete with
//! QMAN's FDs for the QMI's width, the cycle in which the QMI takes each FD QMAN pushes,
//! computed at the push, and what that means for the push queue's room and for FDs put back
//! into the stages.

use super::Pipeline;
use crate::pipeline::ring::Ring;

/// The model's state: `on` from the first flush read issued on the direct path until no flush
/// read is left and no FD is held back; `last`, the QMI cycle given to the last FD QMAN
/// pushed, and `used`, the number of QMAN's FDs given that cycle; `flush_sched`, the cycles
/// in which the QMI takes the flush reads under way, in order, with their number
/// (`flush_next`: the first of them, `u64::MAX` if none).
/// `held` has the FDs whose QMI cycle is later than their push's latency gives, as (buffer,
/// push cycle, QMI cycle).
#[derive(Debug)]
pub(super) struct Admission {
    pub on: bool,
    pub last: u64,
    pub used: u32,
    pub flush_sched: Ring<(u64, u32)>,
    pub flush_next: u64,
    pub held: Ring<(u32, u64, u64)>,
}

impl Admission {
    pub fn new() -> Self {
        Admission {
            on: false,
            last: 0,
            used: 0,
            flush_sched: Ring::with_capacity(16),
            flush_next: u64::MAX,
            held: Ring::with_capacity(16),
        }
    }

    /// Before QMAN's push in cycle `c` (`to_qmi`: the push's latency), with the model on:
    /// forgets the flush reads that have entered the QMI, and turns the model off once no
    /// flush read is left and no FD is held back past the push's latency (the push queue then
    /// holds at most latency × width FDs again). Returns whether it is still on.
    #[inline(always)]
    pub fn prune(&mut self, c: u64, to_qmi: u64) -> bool {
        if self.flush_next <= c {
            while self.flush_sched.front().is_some_and(|&(t, _)| t <= c) {
                self.flush_sched.pop_front();
            }
            self.flush_next = self.flush_sched.front().map_or(u64::MAX, |&(t, _)| t);
        }
        if self.flush_next == u64::MAX && self.last < c + to_qmi {
            self.on = false;
        }
        self.on
    }

    /// With the model on (and pruned), whether the FDs QMAN pushes in cycle `c` enter the QMI
    /// when the push's latency has elapsed, as without the model: no flush read is taken by
    /// the QMI before them and none of QMAN's FDs is held back.
    #[inline(always)]
    pub fn unhindered(&self, c: u64, to_qmi: u64) -> bool {
        let ready = c + to_qmi;
        ready < self.flush_next && self.last < ready
    }

    /// After QMAN pushed `pushed` FDs unhindered in cycle `c`: the last QMI cycle given.
    #[inline(always)]
    pub fn pushed_unhindered(&mut self, c: u64, to_qmi: u64, pushed: u32) {
        if pushed > 0 {
            (self.last, self.used) = (c + to_qmi, pushed);
        }
    }

    /// With the model on, the QMI cycle the next FD QMAN pushes in cycle `c` would be given,
    /// and how many of QMAN's FDs that cycle would then have before it: the first cycle from
    /// the push's latency on, and not before the last FD's, that still has a place after the
    /// flush reads the QMI takes then and the FDs pushed before it.
    #[inline]
    pub fn next(&self, c: u64, to_qmi: u64, width: u64) -> (u64, u32) {
        let ready = c + to_qmi;
        let (mut t, mut used) =
            if self.last >= ready { (self.last, u64::from(self.used)) } else { (ready, 0) };
        // (The flush reads' cycles are in order: one pass.)
        let mut k = 0;
        loop {
            while self.flush_sched.get(k).is_some_and(|&(f, _)| f < t) {
                k += 1;
            }
            let flushes = match self.flush_sched.get(k) {
                Some(&(f, n)) if f == t => u64::from(n),
                _ => 0,
            };
            if used + flushes < width {
                return (t, used as u32);
            }
            (t, used) = (t + 1, 0);
        }
    }

    /// Gives an FD QMAN pushes in cycle `c`, with buffer `buffer`, the QMI cycle `next` found
    /// (`slot`), and returns that cycle.
    #[inline]
    pub fn give(&mut self, (t, used): (u64, u32), buffer: u32, c: u64, to_qmi: u64) -> u64 {
        (self.last, self.used) = (t, used + 1);
        if t != c + to_qmi {
            // (Forgetting those that have entered the QMI: only the others are looked up.)
            while self.held.front().is_some_and(|&(_, _, qmi)| qmi <= c) {
                self.held.pop_front();
            }
            self.held.push_back((buffer, c, t));
        }
        t
    }
}

impl Admission {
    /// A flush read issued in cycle `cycle` (by the DMA engine, after QMAN) reaches the QMI in
    /// cycle `arrival`, with the model on: schedules it behind the flush reads before it.
    /// Returns whether the direct path is to be left (see `Pipeline::admit_flush_read`).
    #[inline]
    pub fn flush_read(&mut self, arrival: u64, cycle: u64, width: u64) -> bool {
        debug_assert!(self.on);
        // (Reaching the QMI in this cycle, it is taken in the next: the QMI has run.)
        let arrival = arrival.max(cycle + 1);
        let (at, before) = match self.flush_sched.back() {
            Some(&(t, n)) if t >= arrival => {
                if u64::from(n) < width {
                    (t, u64::from(n))
                } else {
                    (t + 1, 0)
                }
            }
            _ => (arrival, 0),
        };
        let leave = at < self.last || at == self.last && before + u64::from(self.used) >= width;
        match self.flush_sched.back_mut() {
            Some((t, n)) if *t == at => *n += 1,
            _ => self.flush_sched.push_back((at, 1)),
        }
        self.flush_next = self.flush_next.min(at);
        leave
    }
}

impl Pipeline {
    /// Turns the QMI admission model off and forgets it (the direct path is taken or left).
    pub(super) fn admit_reset(&mut self) {
        self.direct_leave = false;
        self.admit.on = false;
        self.admit.flush_sched.clear();
        self.admit.flush_next = u64::MAX;
        self.admit.held.clear();
    }

    /// A flush read is issued on the direct path (by the DMA engine, at the end of a cycle),
    /// reaching the QMI in cycle `arrival`: finds the cycle in which the QMI takes it, behind
    /// the flush reads before it. If that is a cycle QMAN's FDs were given and they fill it
    /// (or may: before the last FD's, the model does not know), the direct path is left at
    /// the start of the next cycle.
    pub(super) fn admit_flush_read(&mut self, arrival: u64) {
        if !self.admit.on {
            self.admit_start();
        }
        if self.admit.flush_read(arrival, self.cycle, self.cfg.width as u64) {
            self.direct_leave = true;
        }
    }

    /// Turns the QMI admission model on at the end of cycle `cycle`: finds the last QMI cycle
    /// given to an FD not yet in the QMI, on the direct path or in the push queue (none is
    /// held back: the model was off), and how many it was given.
    fn admit_start(&mut self) {
        let (d, to_qmi, to_nti) = (self.cycle, self.to_qmi(), self.to_nti());
        let (lq, cycle_ps) = (self.push_queue.latency(), self.cfg.cycle.as_ps());
        let (mut last, mut used) = (d, 0u32);
        let mut count = |qmi: u64| {
            debug_assert!(qmi > d && qmi <= d + to_qmi);
            if qmi > last {
                (last, used) = (qmi, 1);
            } else if qmi == last {
                used += 1;
            }
        };
        let from = self.cfg.cycle * (d + 1 + to_nti);
        for port in &self.ports[..self.cfg.ports] {
            for q in port.arriving_from(from) {
                count(q.arrived.as_ps() / cycle_ps - to_nti);
            }
        }
        for (ready, _) in self.push_queue.iter() {
            count(ready - lq + to_qmi);
        }
        (self.admit.last, self.admit.used) = (last, used);
        self.admit.flush_sched.clear();
        self.admit.flush_next = u64::MAX;
        self.admit.on = true;
    }

    /// QMAN's push in this cycle with the model on (out of line on its own; inlined into the
    /// steady loop's flush epochs).
    #[inline(always)]
    pub(super) fn qman_push_admit(&mut self) {
        let (c, to_qmi) = (self.cycle, self.to_qmi());
        if !self.admit.prune(c, to_qmi) {
            self.qman_push::<true>();
        } else if self.admit.unhindered(c, to_qmi) {
            let before = self.pushed;
            self.qman_push::<true>();
            let pushed = self.pushed - before;
            self.admit.pushed_unhindered(c, to_qmi, pushed as u32);
        } else {
            let queued = self.push_queue.len();
            let (mut hot, admit) = self.hot_and_admission();
            hot.push_admitted::<false>(admit, c, queued);
        }
    }

    /// The cycle in which an FD on the direct path that enters the QMI in cycle `qmi` was
    /// pushed, if it was held back.
    pub(super) fn held_push(&self, buffer: u32, qmi: u64) -> Option<u64> {
        self.admit.held.iter().find(|&&(b, _, q)| b == buffer && q == qmi).map(|&(_, c, _)| c)
    }
}
