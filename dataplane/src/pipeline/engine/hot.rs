//! The work every descriptor needs on its way from QMAN to the wire — QMAN's choice and push,
//! a MAC starting a frame and its next wake-up — as methods of [`Hot`], the parts of the
//! engine that work touches, borrowed apart from the rest.
//!
//! Why apart: inlined into the engine's large `run`, with every part reached through the
//! whole engine, the compiler read the port table, the bitmaps, the credits and the cycle
//! length from memory again after each store to a class or a port, and spilled what it could
//! not keep. The steady loop (`direct.rs`, `steady_cycles`) is a small function of its own
//! that takes a `Hot`; the rest of the engine calls the same methods on parts borrowed from
//! it (`Pipeline::hot`).

use std::num::NonZeroU64;

use super::admission::Admission;
use super::eligibility::{set_bit, Eligibility};
use super::{Departure, PauseMode, Port, Queued, MAX_PORTS};
use crate::pipeline::class::{Class, ClassPause, MAX_CLASSES};
use crate::pipeline::fd::Fd;
use crate::pipeline::stats::PipelineStats;
use crate::pipeline::wheel::WakeWheel;
use crate::sim::SimRng;
use crate::time::{Picos, PFC_REACTION_BOUND};
use crate::wire::PRIORITIES;

/// What the hot paths read and never change, from the configuration.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub mode: PauseMode,
    /// The cycle's length, also in picoseconds (validated non-zero), and its reciprocal.
    pub cycle: Picos,
    pub cycle_ps: NonZeroU64,
    pub recip: Reciprocal,
    /// FDs QMAN may push per cycle.
    pub width: usize,
    /// FDs one class, and one port, may have in flight.
    pub class_credit: u32,
    pub port_credit: u32,
    /// Cycles from QMAN's push to the QMI, and to the NTI, on the direct path.
    pub to_qmi: u64,
    pub direct_transit: u64,
    /// `direct_transit` as a time.
    pub direct_transit_time: Picos,
    /// Cycles from the QMI to the NTI on the direct path (`Pipeline::to_nti`).
    pub to_nti: u64,
    /// The push queue's capacity, and the ports in use.
    pub qman_capacity: u64,
    pub ports: usize,
    pub nclasses: usize,
    /// Every class always has traffic (no backlogs to count).
    pub saturated: bool,
    /// Frames come from `Pipeline::offer` with their own buffers and lengths.
    pub offered: bool,
    pub min_len: u16,
    pub max_len: u16,
    /// The wire time of a `min_len` frame.
    pub uniform_wire: Picos,
}

impl Limits {
    /// The first cycle that starts at or after `t`.
    #[inline]
    pub fn cycle_at(&self, t: Picos) -> u64 {
        let ps = t.as_ps();
        if ps < self.recip.below {
            // ⌈ps / cycle⌉ = ⌊(ps + cycle − 1) / cycle⌋, by a multiplication (see `Reciprocal`).
            let x = ps + self.cycle_ps.get() - 1;
            ((u128::from(x) * u128::from(self.recip.factor)) >> 64) as u64
        } else {
            // (By a divisor known to be non-zero: no check for zero.)
            let cycle = self.cycle_ps;
            ps / cycle + u64::from(ps % cycle != 0)
        }
    }
}

/// Division by the cycle's length as a multiplication, for the time of every departure's next
/// look at its MAC: a 64-bit division takes this CPU class 10 to 20 cycles, the multiplication
/// 3. With `factor` = ⌊2⁶⁴ / d⌋ + 1 = (2⁶⁴ + e) / d for some 1 ≤ e ≤ d, ⌊x · factor / 2⁶⁴⌋
/// = ⌊x / d + x·e / (d·2⁶⁴)⌋, which is ⌊x / d⌋ while x·e < 2⁶⁴, so for every x < 2⁶⁴ / d: five
/// hours of simulated time at a 1 ns cycle. `below` bounds the times taken this way (0 for a
/// 1 ps cycle, whose factor would not fit).
#[derive(Debug, Clone, Copy)]
pub(super) struct Reciprocal {
    pub factor: u64,
    pub below: u64,
}

impl Reciprocal {
    pub fn of(d: NonZeroU64) -> Self {
        let d = d.get();
        if d == 1 {
            return Reciprocal { factor: 0, below: 0 };
        }
        // (x + d − 1 < 2⁶⁴ / d must hold for the rounded-up quotient.)
        Reciprocal { factor: u64::MAX / d + 1, below: (u64::MAX / d).saturating_sub(d) }
    }
}

/// The credit of a port QMAN may use: all of it, less one while a flush epoch of the port has
/// FDs left to read. Without that reserve a saturated port never lets a flush read through:
/// QMAN takes back each credit a departure frees in the same cycle, before the DMA engine
/// runs, and the resumed class stays halted for good.
#[inline]
pub(super) fn qman_credit(lim: &Limits, port: &Port) -> u32 {
    lim.port_credit - u32::from(port.flush_waiting != 0)
}

/// Every departure, while `record_departures` asked for them.
#[derive(Debug, Default)]
pub(super) struct DepartureLog {
    pub on: bool,
    pub list: Vec<Departure>,
}

/// The parts of the engine a descriptor's push and departure touch (see the module comment).
pub(super) struct Hot<'a> {
    pub lim: &'a Limits,
    pub ports: &'a mut [Port; MAX_PORTS],
    pub classes: &'a mut [Class; MAX_CLASSES],
    pub pauses: &'a mut [ClassPause],
    pub elig: &'a mut Eligibility,
    pub wheel: &'a mut WakeWheel,
    pub stats: &'a mut PipelineStats,
    pub log: &'a mut DepartureLog,
    pub rng: &'a mut SimRng,
    /// FDs pushed, ever (the next FD's buffer number is its low 32 bits).
    pub pushed: &'a mut u64,
    /// Wire time of a frame by its length (the division is too slow for the hot path), for
    /// every possible length so that no bounds check is needed.
    pub wire_time: &'a [Picos; 1 << 16],
    /// Traffic is still offered (not draining).
    pub generating: bool,
}

impl Hot<'_> {
    // ===== QMAN =====

    /// QMAN pushes an FD of class `ci`, which it found eligible: the FD, its port's and class's
    /// counts and their eligibility bits. Returns the port and the FD, for the caller to put
    /// on the direct path (`DIRECT`) or into the push queue (which counts it per class).
    /// `UNIFORM`: known to be saturated traffic of one frame length.
    #[inline(always)]
    pub fn push<const DIRECT: bool, const UNIFORM: bool>(&mut self, ci: usize) -> (usize, Fd) {
        let lim = self.lim;
        debug_assert!(!UNIFORM || lim.saturated && lim.min_len == lim.max_len);
        self.elig.rr = ci + 1;
        let ci = ci % MAX_CLASSES;
        let p = ci / PRIORITIES;
        let (len, buffer) = if !UNIFORM && lim.offered {
            // (The class was eligible, so its backlog, and this queue, are not empty.)
            let (buffer, len) = self.pauses[ci].offered.pop_front().unwrap_or_default();
            (len, buffer)
        } else if UNIFORM || lim.min_len == lim.max_len {
            (lim.min_len, *self.pushed as u32)
        } else {
            let len = self.rng.between(u64::from(lim.min_len), u64::from(lim.max_len)) as u16;
            (len, *self.pushed as u32)
        };
        let class = &mut self.classes[ci];
        let fd = Fd::of_class(ci, len, class.next_seq, buffer);
        *self.pushed += 1;
        class.next_seq += 1;
        if !DIRECT {
            class.in_push_queue += 1;
        }
        class.inflight += 1;
        // The class was eligible, so only what the push moved (its credit, its backlog) can
        // clear its bit.
        let room = class.inflight < lim.class_credit;
        let (w, bit) = (ci / 64, 1u64 << (ci % 64));
        if !room {
            self.elig.room[w] &= !bit;
        }
        if !UNIFORM && !lim.saturated {
            let backlog = &mut self.pauses[ci].backlog;
            *backlog -= 1;
            if *backlog == 0 {
                self.elig.wants[w] &= !bit;
            }
        }
        let limit = self.qman_credit(p);
        let port = &mut self.ports[p];
        port.inflight += 1;
        debug_assert!(port.inflight <= lim.port_credit, "QMAN pushed beyond the port's credit");
        if port.inflight >= limit {
            // (The port was open: QMAN just chose one of its classes.)
            self.elig.set_open(p, false);
        }
        debug_assert_eq!(self.elig.class_bit(ci), self.class_ok(ci));
        (p, fd)
    }

    /// The class QMAN pushes next, if any (`SMALL`: up to 8 ports, one bitmap word).
    #[inline(always)]
    pub fn next_class<const SMALL: bool>(&self) -> Option<usize> {
        if SMALL {
            self.elig.next_of_one(self.lim.nclasses)
        } else {
            self.elig.next(self.lim.nclasses)
        }
    }

    /// See [`qman_credit`].
    #[inline]
    pub fn qman_credit(&self, p: usize) -> u32 {
        qman_credit(self.lim, &self.ports[p % MAX_PORTS])
    }

    /// Whether one of the ports of `ports` (a bit per port below 64) has credit for a flush
    /// read (`Pipeline::dma`).
    #[inline]
    pub fn reads_have_credit(&self, mut ports: u64) -> bool {
        while ports != 0 {
            let p = ports.trailing_zeros() as usize;
            if self.ports[p % MAX_PORTS].inflight < self.lim.port_credit {
                return true;
            }
            ports &= ports - 1;
        }
        false
    }

    /// Whether QMAN may push class `ci` as far as its FSM and traffic go, and whether it is
    /// below its class credit.
    #[inline]
    pub fn class_wants(&self, ci: usize) -> (bool, bool) {
        let class = &self.classes[ci % MAX_CLASSES];
        let halted = match self.lim.mode {
            PauseMode::External => class.halted(),
            PauseMode::Fifo => class.pause,
            PauseMode::Stall => false,
        };
        let has_traffic = self.generating && (self.lim.saturated || self.pauses[ci].backlog > 0);
        (!halted && has_traffic, class.inflight < self.lim.class_credit)
    }

    /// Whether QMAN may push class `ci`, leaving the port's credit aside (debug checks).
    pub fn class_ok(&self, ci: usize) -> bool {
        let (wants, room) = self.class_wants(ci);
        wants && room
    }

    /// Puts an FD on the direct path in cycle `cycle`: in its port's MAC queue, passing the
    /// NTI in cycle `nti`.
    #[inline(always)]
    pub fn queue_direct(&mut self, p: usize, nti: u64, fd: Fd, cycle: u64) {
        self.queue_direct_at(p, self.lim.cycle * nti, fd, cycle);
    }

    /// `queue_direct` with the start of the NTI cycle as a time.
    #[inline(always)]
    pub fn queue_direct_at(&mut self, p: usize, arrived: Picos, fd: Fd, cycle: u64) {
        let port = &mut self.ports[p];
        port.queue.push_back(Queued { arrived, fd });
        if port.queue.len() == 1 {
            let at = port.busy_until.max(arrived + Picos(1));
            self.wake_port(p, at, cycle);
        }
    }

    /// QMAN's pushes onto the direct path in cycle `c` with the QMI admission model on
    /// (`admission.rs`): each FD is given the QMI cycle the model finds, and passes the NTI
    /// `to_nti` cycles after it. QMAN stops, as at a full push queue, when the FDs pushed and
    /// not yet in the QMI (with `queued` FDs in the push queue itself) would fill it.
    /// `SMALL`: the steady loop's kernel case (saturated traffic of one frame length, up to 8
    /// ports).
    #[inline(always)]
    pub fn push_admitted<const SMALL: bool>(
        &mut self,
        admit: &mut Admission,
        c: u64,
        queued: usize,
    ) {
        let lim = self.lim;
        for _ in 0..lim.width {
            let Some(ci) = self.next_class::<SMALL>() else { return };
            let slot = admit.next(c, lim.to_qmi, lim.width as u64);
            if !self.push_queue_has_room(slot.0, c, queued) {
                return;
            }
            let (p, fd) = self.push::<true, SMALL>(ci);
            let qmi = admit.give(slot, fd.buffer, c, lim.to_qmi);
            self.queue_direct(p, qmi + lim.to_nti, fd, c);
        }
    }

    /// Whether the push queue, counting the FDs on the direct path not yet in the QMI in
    /// cycle `c` and the `queued` in the queue itself, has room for an FD that will enter the
    /// QMI in cycle `qmi`. At most `width` of QMAN's FDs enter it per cycle, so it has if
    /// (`qmi` − `c`) × width ≤ its capacity (the common answer); otherwise they are counted.
    #[inline]
    fn push_queue_has_room(&self, qmi: u64, c: u64, queued: usize) -> bool {
        let capacity = self.lim.qman_capacity;
        (qmi - c) * self.lim.width as u64 <= capacity
            || ((self.direct_before_qmi(c) + queued) as u64) < capacity
    }

    /// FDs on the direct path that have not entered the QMI by cycle `c` (out of line: only
    /// when flush reads hold many back).
    #[inline(never)]
    fn direct_before_qmi(&self, c: u64) -> usize {
        let from = self.lim.cycle * (c + 1 + self.lim.to_nti);
        let ports = &self.ports[..self.lim.ports.min(MAX_PORTS)];
        ports.iter().map(|port| port.arriving_from(from).count()).sum()
    }

    /// A flushed FD passes the NTI on the direct path in cycle `cycle` (time `now`): into
    /// port `p`'s MAC queue in NTI order, behind the FDs that passed it before (and those
    /// flushed ones that passed it earlier in this cycle), ahead of the direct FDs that pass
    /// it in this cycle or later. It keeps its flushed mark in the queue, which tells those
    /// apart (nothing reads the mark there).
    pub fn queue_flushed_direct(&mut self, p: usize, now: Picos, fd: Fd, cycle: u64) {
        debug_assert!(fd.flushed());
        let port = &mut self.ports[p % MAX_PORTS];
        let k = port.queue.insert_from_back(Queued { arrived: now, fd }, |q| {
            q.arrived > now || q.arrived == now && !q.fd.flushed()
        });
        if k == 0 {
            // The MAC may be waiting for a head that passes the NTI later.
            let at = port.busy_until;
            self.wake_port(p, at, cycle);
        }
    }

    // ===== transmission selection =====

    /// Lets port `p`'s MAC look at its queue again no later than time `at` (but not in cycle
    /// `cycle`: its MAC has run).
    #[inline]
    pub fn wake_port(&mut self, p: usize, at: Picos, cycle: u64) {
        let at = self.lim.cycle_at(at);
        self.wheel.insert(cycle + 1, at, p);
    }

    /// Port `p`'s MAC in cycle `cycle` (time `now`): starts a frame if it may, and schedules
    /// itself for when it next may. `EXTERNAL`: known to be in `external` mode (the steady
    /// loop's case; the other modes' selection is out of line).
    #[inline(always)]
    pub fn visit_mac<const EXTERNAL: bool, const UNIFORM: bool>(
        &mut self,
        p: usize,
        now: Picos,
        cycle: u64,
    ) {
        let sent = self.select::<EXTERNAL, UNIFORM>(p, now);
        if !UNIFORM && sent {
            // A cycle longer than a frame's wire time (a software bridge's microsecond cycle):
            // the wire frees within the cycle, and the MAC starts the next frame then rather
            // than one frame per cycle. (Never with a cycle shorter than the shortest frame,
            // as in the hardware models: the wire is then busy past `now` after any start.)
            while self.ports[p].busy_until <= now && self.select::<EXTERNAL, UNIFORM>(p, now) {}
        }
        let at =
            if sent && EXTERNAL { self.wake_time_after_send(p) } else { self.port_wake_time(p) };
        if let Some(at) = at {
            self.wake_port(p, at, cycle);
        }
    }

    /// Transmission selection on port `p` in the pause mode at hand: whether a frame started.
    #[inline(always)]
    fn select<const EXTERNAL: bool, const UNIFORM: bool>(&mut self, p: usize, now: Picos) -> bool {
        if EXTERNAL {
            self.transmit_from_queue::<true, UNIFORM>(p, now)
        } else {
            match self.lim.mode {
                PauseMode::External | PauseMode::Stall => {
                    self.transmit_from_queue::<false, false>(p, now)
                }
                PauseMode::Fifo => self.transmit_from_fifo(p, now),
            }
        }
    }

    /// When port `p`'s MAC next has something to do, as far as its own state tells: a pause
    /// timer running out, or its wire freeing while it holds a frame it may start. An FD
    /// reaching an empty queue or a PFC frame wakes it earlier.
    #[inline]
    pub fn port_wake_time(&self, p: usize) -> Option<Picos> {
        let port = &self.ports[p];
        // The head's arrival at the MAC: in the past except for an FD on the direct path.
        let sendable = match self.lim.mode {
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

    /// Transmission selection on port `p` from the MAC transmit queue (`external`, `stall`):
    /// starts the next frame if the wire is free and one may start, and records its
    /// departure. `EXTERNAL`: known to be in `external` mode, where no FD of a paused class is
    /// ever in the queue (a pause returns them to the recycle path at once, restages those on
    /// the direct path, and the NTI recycles the class's FDs until its FSM is idle again), so
    /// the head needs no look at Priority_Paused.
    #[inline(always)]
    fn transmit_from_queue<const EXTERNAL: bool, const UNIFORM: bool>(
        &mut self,
        p: usize,
        now: Picos,
    ) -> bool {
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
        // FDs reach the MAC at cycle boundaries, so this one, which reached it in an earlier
        // cycle, may start from the start of the last one (`depart`).
        debug_assert_eq!(arrived.as_ps() % self.lim.cycle_ps, 0);
        port.queue.drop_front();
        self.depart::<UNIFORM>(p, now.saturating_sub(self.lim.cycle), fd);
        true
    }

    /// Transmission selection from the on-chip FIFOs (`fifo`): round robin from `rr` over the
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
        self.depart::<false>(p, now, fd);
        true
    }

    /// A frame of port `p` that may start from `from` (the time it reached the MAC, or the
    /// start of the last cycle if it reached it earlier) starts on the wire as soon as the
    /// wire is free: the wire's time, the credit given back, the order and reaction-bound
    /// checks, the statistics.
    #[inline(always)]
    fn depart<const UNIFORM: bool>(&mut self, p: usize, from: Picos, fd: Fd) {
        let lim = self.lim;
        let port = &mut self.ports[p];
        let start = port.busy_until.max(from);
        let wire = if UNIFORM { lim.uniform_wire } else { self.wire_time[usize::from(fd.len)] };
        port.busy_until = start + wire;
        port.inflight -= 1;
        let reserve = u32::from(port.flush_waiting != 0);
        let port_open = port.inflight + reserve < lim.port_credit;
        let ci = fd.class() % MAX_CLASSES;
        let class = &mut self.classes[ci];
        class.inflight -= 1;
        let class_room = class.inflight < lim.class_credit;
        class.departed += 1;
        if fd.seq != class.expected_seq {
            self.stats.order_violations += 1;
        }
        class.expected_seq = fd.seq + 1;
        // (Ends at the first comparison for a class never told to pause.)
        if start < class.indicated_until && start >= class.indicated_at {
            if start > class.indicated_at + PFC_REACTION_BOUND {
                self.stats.late_frames += 1;
            } else {
                self.stats.frames_within_bound += 1;
            }
        }
        self.stats.departed += 1;
        self.stats.departed_octets += u64::from(fd.len);
        if !UNIFORM && self.log.on {
            self.log.list.push(Departure {
                time: start,
                port: fd.port(),
                priority: fd.priority(),
                seq: fd.seq,
                len: fd.len,
                buffer: fd.buffer,
            });
        }
        // Giving back credit changes nothing else of the class's or the port's eligibility.
        set_bit(&mut self.elig.room[ci / 64], ci % 64, class_room);
        debug_assert_eq!(self.elig.class_bit(ci), self.class_ok(ci));
        self.elig.set_open(ci / PRIORITIES, port_open);
    }
}

#[cfg(test)]
mod tests {
    use super::{Limits, Reciprocal};
    use crate::pipeline::config::PauseMode;
    use crate::sim::SimRng;
    use crate::time::Picos;
    use std::num::NonZeroU64;

    fn limits(cycle_ps: u64) -> Limits {
        let nz = NonZeroU64::new(cycle_ps).expect("non-zero");
        Limits {
            mode: PauseMode::External,
            cycle: Picos(cycle_ps),
            cycle_ps: nz,
            recip: Reciprocal::of(nz),
            width: 1,
            class_credit: 1,
            port_credit: 1,
            to_qmi: 1,
            direct_transit: 2,
            direct_transit_time: Picos(2 * cycle_ps),
            to_nti: 1,
            qman_capacity: 1,
            ports: 1,
            nclasses: 8,
            saturated: true,
            offered: false,
            min_len: 60,
            max_len: 60,
            uniform_wire: Picos(1),
        }
    }

    /// The multiplication gives the rounded-up quotient the division gives, for cycles of
    /// every size and times near zero, near multiples of the cycle, random, and at the
    /// fast path's bound and beyond it.
    #[test]
    fn cycle_at_by_reciprocal_is_the_division() {
        let mut r = SimRng::new(7);
        let divisors = [1, 2, 3, 7, 64, 999, 1000, 1024, 1551, 3_103, 1 << 32, u64::MAX / 3];
        let random_divisors: Vec<u64> = (0..200).map(|_| r.between(1, 1 << 40)).collect();
        for d in divisors.into_iter().chain(random_divisors) {
            let lim = limits(d);
            let exact = |t: u64| t.div_ceil(d);
            let below = lim.recip.below;
            let near = [0, 1, d - 1, d, d + 1, 2 * d.min(u64::MAX / 2), below.saturating_sub(1)];
            let far = [below, below.saturating_add(1), u64::MAX - 1, u64::MAX];
            let random = (0..500).map(|_| r.next_u64() % below.max(1));
            for t in near.into_iter().chain(far).chain(random) {
                assert_eq!(lim.cycle_at(Picos(t)), exact(t), "cycle {d} ps, time {t} ps");
            }
        }
        // At a 1 ns cycle the fast path covers five hours.
        assert!(limits(1000).recip.below > 5 * 3600 * 1_000_000_000_000);
    }
}
