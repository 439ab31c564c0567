//! The direct path: while nothing couples the classes' FDs on their way from QMAN to the MAC,
//! each FD is written once, at the push, into its port's MAC transmit queue with the time it
//! will pass the NTI, instead of moving through the push queue and the QMI/BMI/NTI delay line.
//!
//! Why the timing is the same: with the stages fused (no stage capacity can bind), a push
//! queue that cannot fill (capacity ≥ latency × width), no flush read competing for the QMI's
//! width and no stall, the stages are pure delay lines that never hold an FD back. QMAN pushes
//! at most `width` FDs a cycle, so each stage passes at most `width` a cycle, all of them as
//! soon as their latency has elapsed: an FD pushed in cycle c enters the QMI in cycle
//! c + max(qman latency, 1) and passes the NTI max(QMI+BMI+NTI latency, 1) cycles later (a
//! stage's work for a cycle comes before the previous stage's, so a zero latency still costs a
//! cycle). The MAC leaves an FD alone until the cycle after it passed the NTI, as it would if
//! the NTI had queued it then.
//!
//! Only in `external` mode (in `stall` mode the counts of FDs upstream are not kept).
//!
//! What couples the FDs of different classes is a flush read: the QMI takes flushed FDs first,
//! up to `width` a cycle, then the push queue's in order. Flush reads do not end the path when
//! their effect can be computed at the push. From the first flush read issued on it until no
//! flush read is under way and no FD is held back, QMAN's push runs a model of the QMI's
//! admission (`admission.rs`): the cycle in which the QMI takes each flush read is known when
//! it is issued (its arrival, behind the flush reads before it), and an FD pushed in cycle c
//! enters the QMI in the first cycle from c + max(qman latency, 1), and not before the FD
//! pushed before it, that still has a place after that cycle's flush reads and the FDs pushed
//! before it. QMAN stops, as it would at a full push queue, when the FDs pushed and not yet in the
//! QMI fill it. Flushed FDs go through the delay line (`nti`) like those of paused classes,
//! and the NTI puts each one it passes to the MAC in its port's queue in NTI order: behind
//! what passed before, ahead of the direct FDs passing in this cycle or later. What the model
//! cannot give exactly ends the path, at the start of the next cycle, as before: a flush read
//! issued for a QMI cycle at or before the last FD's that those FDs fill (or may: the model
//! keeps only the last cycle's count), which happens when the read latency is below the
//! push's or FDs are held back. The FDs still on their way then go back into the push queue
//! or the delay line where they would be: those held back, whose push cycle their QMI cycle
//! no longer gives, are kept in `held`. The path is taken again once no flush read is under
//! way, no flushed FD is left in the stages and the push queue's head has not been held back.
//!
//! A pause alone does not end it. When PAUSE is asserted for a class, that class's FDs still
//! on their way go back into the stages (its arrived ones go back on the recycle path as
//! always), and the NTI recycles them there: QMAN halts the class until its Pause FSM is
//! idle again, and until then the NTI holds every FD of the class that is not a flushed one.
//! Its FSM (HALT_ACK when none is left in the push queue, the end of the pipe clean when none
//! is upstream) sees exact counts, and the other classes' FDs stay on the direct path. The
//! QMI takes those put back into the push queue when the model says, as long as none of them
//! was held back (their place in the queue is then their push's latency); if one was, the
//! path is left.
//!
//! On the direct path, the per-class counts of FDs in the push queue and upstream cover only
//! the FDs in the stages, and an FD's octets count MAC-side from its push.

use super::admission::Admission;
use super::external::waiting_read_ports;
use super::hot::Hot;
use super::{PauseMode, Pipeline, Queued, Stage, MAX_PORTS};
use crate::pipeline::class::{Class, FsmState, MAX_CLASSES};
use crate::pipeline::config::{PipelineConfig, Traffic};
use crate::pipeline::fd::Fd;
use crate::pipeline::ring::Ring;
use crate::time::Picos;
use crate::wire::PRIORITIES;

impl Pipeline {
    /// Cycles from QMAN's push to the NTI when nothing holds an FD back, if the configuration
    /// allows the direct path at all.
    pub(super) fn direct_transit(cfg: &PipelineConfig, fused: bool) -> Option<u64> {
        let to_qmi = cfg.qman_latency.max(1);
        let to_nti = (cfg.qmi_latency + cfg.bmi_latency + cfg.nti_latency).max(1);
        let width = cfg.width as u64;
        let possible = cfg.mode == PauseMode::External
            && fused
            && cfg.qman_capacity as u64 >= to_qmi * width
            && 3 * cfg.stage_capacity as u64 >= to_nti * width;
        possible.then_some(to_qmi + to_nti)
    }

    /// Cycles from the QMI to the NTI on the direct path.
    pub(super) fn to_nti(&self) -> u64 {
        self.lim.to_nti
    }

    /// Whether the direct path may be taken at the start of this cycle (see the module
    /// comment): no flushed FD on its way to the QMI or in the stages, and the push queue's
    /// head not held back.
    #[inline]
    pub(super) fn can_go_direct(&self) -> bool {
        self.direct_possible
            && self.flush_inflight.is_empty()
            && self.push_queue.head_ready().is_none_or(|ready| {
                // The head reaches the QMI when its latency has elapsed, not later.
                ready - self.push_queue.latency() + self.cfg.qman_latency.max(1) >= self.cycle
            })
            // No flushed FD in the stages: a class in a flush epoch has only flushed FDs
            // upstream (it was clean when the epoch began, and is halted).
            && self.active.iter().all(|&ci| {
                let class = &self.classes[ci % MAX_CLASSES];
                class.fsm != FsmState::Flushing || class.upstream == 0
            })
    }

    /// Takes the direct path at the start of a cycle: the FDs of classes whose Pause FSM is
    /// idle go from the delay line, then from the push queue, to their MAC queues with the
    /// time they will pass the NTI. Those of paused classes stay, to be recycled by the NTI.
    pub(super) fn go_direct(&mut self) {
        let (lf, lq) = (self.nti.latency(), self.push_queue.latency());
        let (to_qmi, to_nti) = (self.cfg.qman_latency.max(1), self.to_nti());
        // (Out of `self` while FDs go to the MAC queues; the placeholder is never used.)
        let mut line = std::mem::replace(&mut self.nti, Stage::new(0, 1));
        line.take_where(|ready, fd| {
            debug_assert!(!fd.flushed());
            let class = &mut self.classes[fd.class() % MAX_CLASSES];
            if class.halted() {
                return false;
            }
            class.upstream -= 1;
            self.queue_direct(usize::from(fd.port()), ready - lf + to_nti, fd);
            true
        });
        self.nti = line;
        let mut queue = std::mem::replace(&mut self.push_queue, Stage::new(0, 1));
        queue.take_where(|ready, fd| {
            let class = &mut self.classes[fd.class() % MAX_CLASSES];
            if class.halted() {
                return false;
            }
            class.in_push_queue -= 1;
            self.queue_direct(usize::from(fd.port()), ready - lq + to_qmi + to_nti, fd);
            true
        });
        self.push_queue = queue;
        debug_assert!(self.classes[..self.nclasses]
            .iter()
            .all(|c| c.halted() || c.in_push_queue == 0 && c.upstream == 0));
        self.direct = true;
        self.admit_reset();
    }

    /// On the direct path in a steady state: nothing in the push queue, no PFC frame due and
    /// the direct path not to be left. With no pause at all, that is every cycle; with one
    /// class paused, most, its recycling and flush epochs included.
    pub(super) fn steady(&self) -> bool {
        self.next_pfc > self.now() && !self.direct_leave && self.push_queue.is_empty()
    }

    /// When the stages next have work (the free function `stages_wake`).
    #[inline]
    fn stages_wake(&self) -> u64 {
        stages_wake(&self.flush_inflight, &self.nti)
    }

    /// Whether `run_pause_fsms` would leave every FSM as it is: each class is paused after
    /// HALT_ACK, or waiting for FDs upstream or mid-write before a flush epoch, or in a flush
    /// epoch with FDs still to read (waiting for its port's credit) or on their way.
    #[inline]
    fn fsms_blocked(&self) -> bool {
        self.active.iter().all(|&ci| {
            let class = &self.classes[ci % MAX_CLASSES];
            match class.fsm {
                FsmState::PipeClean => {
                    class.pause || class.upstream > 0 || self.pauses[ci].writing > 0
                }
                FsmState::Flushing => self.pauses[ci].to_read > 0 || class.upstream > 0,
                FsmState::Idle | FsmState::WaitHaltAck => false,
            }
        })
    }

    /// Runs steady cycles (see `steady`) until `end` or the steady state ends: a cycle is
    /// then the Pause FSMs if one has work, the MACs, the stages if a flush read reaches the
    /// QMI or an FD passes the NTI, QMAN, the DMA engine if it has work, and the traffic
    /// offered: what `step` does in that state, without asking each part whether it has work.
    /// A PFC frame, a pause starting or ending at a MAC, or the direct path to be left ends
    /// it; the cycle in which a pause starts is finished by `step_after_macs`.
    #[inline(always)]
    pub(super) fn run_steady(&mut self, end: u64) {
        if self.admit.on {
            self.run_steady_admitted(end);
        } else {
            self.run_steady_of::<false>(end);
        }
    }

    /// `run_steady` with the QMI admission model on (out of line: flush epochs only).
    #[inline(never)]
    fn run_steady_admitted(&mut self, end: u64) {
        self.run_steady_of::<true>(end);
    }

    /// `run_steady`; `ADMIT`: the QMI admission model may be on (without it, the loop ends
    /// when a flush read turns it on). What the loop does not look at in every cycle can
    /// only change when the DMA engine, the stages or an FSM works, or a pause starts or ends
    /// at a MAC: whether an FSM has work, the DMA engine's next work. The cycles in which
    /// neither has are the kernel's (`run_kernel`), which also does the stages' work when it
    /// is only flushed FDs passing the NTI to the MAC and flush reads entering the QMI.
    #[inline(always)]
    fn run_steady_of<const ADMIT: bool>(&mut self, end: u64) {
        let until = self.steady_until(end);
        let mut plan = self.dma_plan();
        let mut fsm_work = !(self.active.is_empty() || self.fsms_blocked());
        self.steady_break = false;
        while self.cycle < until {
            // The kernel runs the cycles it can.
            if !fsm_work && self.cycle < plan.kernel_until {
                if self.run_kernel(until.min(plan.kernel_until), plan.read_ports) {
                    // It issued flush reads: one may have made the direct path to be left, and
                    // an epoch may have none left to read.
                    if self.direct_leave {
                        return;
                    }
                    plan = self.dma_plan();
                }
                if self.cycle >= until {
                    break;
                }
                // (The kernel stops after a cycle that ended a flush epoch's reads and passes:
                // its FSM has work in the next.)
                fsm_work = !(self.active.is_empty() || self.fsms_blocked());
            }
            if fsm_work {
                self.run_pause_fsms();
            }
            if self.wheel.any_due(self.cycle) {
                // (The steady path is only taken in `external` mode.)
                let now = self.now();
                self.mac_ports_of::<true>(now);
                if self.steady_break {
                    // A pause started or ended: the FSMs are to be looked at again, and
                    // the FDs of a class that started on their way are in the stages (if
                    // that made the engine leave the direct path, at least the one held
                    // back is).
                    self.step_after_macs(now);
                    return;
                }
            }
            // (As `step_after_macs` on the direct path: with the push queue empty, the
            // stages have work exactly when `stages_wake` has come.)
            let staged = self.stages_wake() <= self.cycle;
            if staged {
                let now = self.now();
                self.nti_stage(now);
                self.qmi_input();
            }
            self.steady_qman::<ADMIT>();
            // (The stages and the FSMs may have given the DMA engine work in this cycle.)
            let dma = (self.cycle >= plan.dma_from || staged || fsm_work) && self.dma_has_work();
            debug_assert_eq!(dma, self.dma_has_work());
            if dma {
                self.dma();
            }
            self.offer_traffic();
            self.cycle += 1;
            if dma || staged || fsm_work {
                if self.direct_leave || !ADMIT && self.admit.on || !self.push_queue.is_empty() {
                    return;
                }
                fsm_work = !(self.active.is_empty() || self.fsms_blocked());
                plan = self.dma_plan();
            }
        }
    }

    /// One steady cycle's QMAN, outside the kernel.
    #[inline(always)]
    fn steady_qman<const ADMIT: bool>(&mut self) {
        debug_assert!(self.direct);
        if !ADMIT {
            debug_assert!(!self.admit.on);
            self.qman_push::<true>();
        } else if self.admit.on {
            self.qman_push_admit();
        } else {
            self.qman_push::<true>();
        }
    }

    /// Runs steady cycles in `steady_cycles` until `until`, or until the first cycle in which a
    /// pause timer runs out or random traffic is offered, which the kernel leaves to
    /// `run_steady_of` (so that it never has to leave the steady state itself). In a cycle in
    /// which a flush read waiting on one of `read_ports` (a bit per port) may go, the DMA
    /// engine's reads finish the cycle (`KernelReads`). Returns whether it issued any.
    #[inline]
    fn run_kernel(&mut self, until: u64, read_ports: u64) -> bool {
        let mut until = until;
        if matches!(self.cfg.traffic, Traffic::Random { .. }) && self.generating {
            until = until.min(self.cycle.next_multiple_of(64));
        }
        until = until.min(self.cycle_at(self.next_resume));
        let mut read = false;
        if self.cycle < until {
            // The benchmark's case, with fewer questions per descriptor: saturated traffic of
            // one frame length, up to 8 ports, departures not recorded.
            let small = self.lim.saturated
                && self.lim.min_len == self.lim.max_len
                && !self.log.on
                && self.wheel.words() == 1
                && self.elig.words == 1;
            #[cfg(test)]
            let from = self.cycle;
            let mut cycle = self.cycle;
            let width = self.cfg.width;
            let (mut hot, admit, line, flush_inflight, mut dma) = self.kernel_parts_with_reads();
            let mut stages = KernelStages { line, flush_inflight, width };
            let (h, a, st, c) = (&mut hot, admit, &mut stages, &mut cycle);
            let mut r = read_ports;
            loop {
                // The cycles before the stages' next work...
                let bound = until.min(st.next_work());
                let mut next = Next::Leave;
                // While the QMI admission model is on, a loop that asks it each cycle; once it
                // is off (it is only turned on by a flush read, which ends the kernel), one
                // that does not.
                if a.on {
                    next = if small {
                        steady_cycles::<true, true>(h, a, c, bound, r)
                    } else {
                        steady_cycles::<false, true>(h, a, c, bound, r)
                    };
                }
                let mid_cycle = matches!(next, Next::MidCycle { .. });
                // (The loop without the model does not watch the reads' ports.)
                if !mid_cycle && !a.on && r == 0 {
                    next = if small {
                        steady_cycles::<true, false>(h, a, c, bound, r)
                    } else {
                        steady_cycles::<false, false>(h, a, c, bound, r)
                    };
                }
                if !mid_cycle {
                    // ... then that cycle, if its stage work is all the kernel's (what decides
                    // it, the classes' FSMs and PAUSE, does not change within the cycle), else
                    // `run_steady_of` runs it. (Out of line: on every cycle, the question
                    // whether the stages have work cost the loop more than the question.)
                    if *c != bound
                        || *c >= until
                        || !a.on && r != 0
                        || !st.kernel_may_run(h.classes, *c)
                    {
                        break;
                    }
                    let now = h.lim.cycle * *c;
                    next = match (small, a.on) {
                        (true, true) => staged_cycle::<true, true>(h, a, st, *c, now, r),
                        (true, false) => staged_cycle::<true, false>(h, a, st, *c, now, r),
                        (false, true) => staged_cycle::<false, true>(h, a, st, *c, now, r),
                        (false, false) => staged_cycle::<false, false>(h, a, st, *c, now, r),
                    };
                }
                match next {
                    Next::Go => *c += 1,
                    Next::Leave => break,
                    Next::LeaveAfter => {
                        *c += 1;
                        break;
                    }
                    Next::MidCycle { ended } => {
                        // The DMA engine's part of the cycle: the flush reads whose ports have
                        // credit (no write completes or is staged in a kernel cycle). The
                        // next cycle's bound is found again: a read is now on its way.
                        dma.issue_reads(h, a, st.flush_inflight, *c);
                        read = true;
                        *c += 1;
                        if ended || *dma.direct_leave {
                            break;
                        }
                        r = dma.read_ports(h);
                    }
                }
            }
            self.cycle = cycle;
            #[cfg(test)]
            {
                self.kernel_cycles[usize::from(small)] += cycle - from;
            }
        }
        read
    }

    /// The steady loop runs until the end of the run or the next PFC frame, whichever comes
    /// first.
    #[inline]
    fn steady_until(&self, end: u64) -> u64 {
        end.min(self.cycle_at(self.next_pfc))
    }

    /// When the DMA engine may next have work (see `DmaPlan`).
    #[inline]
    fn dma_plan(&self) -> DmaPlan {
        let fsm = |ci: usize| self.classes[ci % MAX_CLASSES].fsm;
        let (read_ports, far_reads) = waiting_read_ports(&self.active, fsm, &self.pauses);
        let writes = self.writes_inflight.front().map_or(u64::MAX, |&(t, _)| t);
        let staged = !self.recycle_staging.is_empty();
        let now = self.cycle;
        // (Only the kernel's loop for the admission model watches the reads' ports: the
        // first read of an epoch turns the model on.)
        let watched = self.admit.on && !far_reads;
        DmaPlan {
            dma_from: if staged || far_reads || read_ports != 0 { now } else { writes },
            kernel_until: if staged || read_ports != 0 && !watched { now } else { writes },
            read_ports,
        }
    }

    /// Puts an FD on the direct path: in its port's MAC queue, passing the NTI in cycle `nti`.
    #[inline(always)]
    pub(super) fn queue_direct(&mut self, p: usize, nti: u64, fd: Fd) {
        let cycle = self.cycle;
        self.hot().queue_direct(p, nti, fd, cycle);
    }

    /// A flushed FD passes the NTI on the direct path (see `Hot::queue_flushed_direct`).
    pub(super) fn queue_flushed_direct(&mut self, p: usize, now: Picos, fd: Fd) {
        let cycle = self.cycle;
        self.hot().queue_flushed_direct(p, now, fd, cycle);
    }

    /// Cycles from QMAN's push to the QMI when nothing holds an FD back.
    pub(super) fn to_qmi(&self) -> u64 {
        self.lim.to_qmi
    }

    /// Leaves the direct path at the start of a cycle: the FDs that have not passed the NTI
    /// yet go back to the push queue or the delay line.
    pub(super) fn leave_direct(&mut self) {
        let boundary = self.cfg.cycle * self.cycle;
        let mut transit = std::mem::take(&mut self.restage_scratch.transit);
        for port in &mut self.ports[..self.cfg.ports] {
            let n = port.arriving_from(boundary).count();
            transit.extend((0..n).filter_map(|_| port.queue.pop_back()));
        }
        self.restage(transit);
        self.direct = false;
        self.admit_reset();
    }

    /// PAUSE for class `ci` on the direct path, at the start of a cycle or before the NTI's
    /// work in it: the class's FDs that have not passed the NTI go back to the push queue or
    /// the delay line, where the NTI will recycle them.
    pub(super) fn restage_class(&mut self, ci: usize) {
        let boundary = self.cfg.cycle * self.cycle;
        let p = (ci / PRIORITIES) % MAX_PORTS;
        if !self.admit.held.is_empty() {
            // An FD of the class held back by flush reads would go back into the push queue,
            // where only the model knows when the QMI takes it: leave the direct path.
            let (to_nti, cycle_ps) = (self.to_nti(), self.cfg.cycle.as_ps());
            let from = self.cfg.cycle * (self.cycle + to_nti);
            let held = self.ports[p].arriving_from(from).any(|q| {
                q.fd.class() == ci
                    && self.held_push(q.fd.buffer, q.arrived.as_ps() / cycle_ps - to_nti).is_some()
            });
            if held {
                self.leave_direct();
                return;
            }
        }
        let mut transit = std::mem::take(&mut self.restage_scratch.transit);
        self.ports[p]
            .queue
            .split_off_where(|q| q.fd.class() != ci || q.arrived < boundary, |q| transit.push(q));
        self.restage(transit);
    }

    /// Puts FDs taken off the direct path back into the push queue or the delay line, where
    /// they would be, merged with what those hold: the push queue in the order QMAN pushed
    /// them (the order of their buffer numbers), the delay line in the order the QMI took them
    /// (by cycle, flushed FDs first, as they are in the line, then QMAN's in push order).
    fn restage(&mut self, mut transit: Vec<Queued>) {
        if transit.is_empty() {
            self.restage_scratch.transit = transit;
            return;
        }
        self.steady_break = true;
        let (lq, lf) = (self.push_queue.latency(), self.nti.latency());
        let (to_qmi, to_nti) = (self.to_qmi(), self.to_nti());
        let next = self.pushed as u32;
        let mut line = std::mem::take(&mut self.restage_scratch.line);
        let mut queue = std::mem::take(&mut self.restage_scratch.queue);
        self.nti.take_all(|ready, fd| {
            let age = if fd.flushed() { 0 } else { next.wrapping_sub(fd.buffer) };
            line.push((ready - lf, !fd.flushed(), age, ready, fd));
        });
        self.push_queue.take_all(|ready, fd| queue.push((next.wrapping_sub(fd.buffer), ready, fd)));
        for q in transit.drain(..) {
            let nti = q.arrived.as_ps() / self.cfg.cycle.as_ps();
            let qmi = nti - to_nti;
            let age = next.wrapping_sub(q.fd.buffer);
            let push = if qmi >= self.cycle { self.held_push(q.fd.buffer, qmi) } else { None };
            let class = &mut self.classes[q.fd.class() % MAX_CLASSES];
            if qmi >= self.cycle {
                class.in_push_queue += 1;
                queue.push((age, push.unwrap_or(qmi - to_qmi) + lq, q.fd));
            } else {
                class.upstream += 1;
                line.push((qmi, true, age, qmi + lf, q.fd));
            }
        }
        // By QMI cycle, flushed first, then oldest (largest age) first; flushed FDs of one
        // cycle keep their order (the sort is stable).
        line.sort_by_key(|&(qmi, queued, age, ..)| (qmi, queued, std::cmp::Reverse(age)));
        queue.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
        for (.., ready, fd) in line.drain(..) {
            self.nti.push_ready(ready, fd);
        }
        for (_, ready, fd) in queue.drain(..) {
            self.push_queue.push_ready(ready, fd);
        }
        self.restage_scratch = RestageScratch { transit, line, queue };
    }

    /// FDs of class `ci` in QMAN's push queue on the direct path: those not yet at the QMI.
    pub(super) fn direct_in_push_queue(&self, ci: usize) -> u32 {
        let p = ci / PRIORITIES;
        let to_nti = self.to_nti();
        let queue = &self.ports[p % MAX_PORTS].queue;
        queue
            .iter()
            .filter(|q| {
                q.fd.class() == ci
                    && q.arrived.as_ps() / self.cfg.cycle.as_ps() >= self.cycle + to_nti
            })
            .count() as u32
    }
}

/// Steady cycles from `cycle` to `until` in which no pause starts or ends, no PFC frame
/// arrives, no Pause FSM, DMA operation or stage has work and no traffic is offered: each is
/// the MACs due, then QMAN's pushes onto the direct path, as `run_steady_of` would do them
/// (`kernel_cycle`). `SMALL`: saturated traffic of one frame length, up to 8 ports, departures
/// not recorded; `ADMIT`: the QMI admission model is on. Returns `Next::Go` if it reached
/// `until`, else why it stopped.
///
/// Out of line, on the parts of the engine borrowed apart (`hot.rs`): inlined into `run`, the
/// same work read the port table, the bitmaps and the credits from memory again after each
/// store, and ran about a quarter slower (`pfcsim bench-pipeline` shows it).
#[inline(never)]
fn steady_cycles<const SMALL: bool, const ADMIT: bool>(
    hot: &mut Hot,
    admit: &mut Admission,
    cycle: &mut u64,
    until: u64,
    read_ports: u64,
) -> Next {
    let lim = hot.lim;
    let mut c = *cycle;
    let mut now = lim.cycle * c;
    let mut next = Next::Go;
    while c < until {
        next = kernel_cycle::<SMALL, ADMIT>(hot, admit, c, now, read_ports, |_| false);
        if !matches!(next, Next::Go) {
            break;
        }
        c += 1;
        now += lim.cycle;
    }
    *cycle = c;
    next
}

/// A cycle of the steady loop's kernel in which the stages have work, all of it the kernel's
/// (`KernelStages::kernel_may_run`): `kernel_cycle` with it.
#[inline(never)]
fn staged_cycle<const SMALL: bool, const ADMIT: bool>(
    hot: &mut Hot,
    admit: &mut Admission,
    stages: &mut KernelStages,
    c: u64,
    now: Picos,
    read_ports: u64,
) -> Next {
    kernel_cycle::<SMALL, ADMIT>(hot, admit, c, now, read_ports, |hot| stages.run(hot, c, now))
}

/// What the steady loop's kernel does after a cycle (`kernel_cycle`).
enum Next {
    /// The cycle ran: on to the next.
    Go,
    /// The cycle is not the kernel's: `run_steady_of` runs it.
    Leave,
    /// The MACs and QMAN ran, and a flush read waiting for one of the watched ports' credit
    /// may now go: the DMA engine's reads finish the cycle (`ended`: it also ended a flush
    /// epoch's reads and passes, as `LeaveAfter`).
    MidCycle { ended: bool },
    /// The cycle ran and ended a flush epoch's reads and passes: its Pause FSM has work in
    /// the next, which `run_steady_of` runs.
    LeaveAfter,
}

/// One cycle of the steady loop's kernel (`c`, starting at `now`): the MACs due, the stages'
/// work (`stage`, which returns whether a flush epoch's reads and passes ended), then QMAN's
/// pushes onto the direct path.
#[inline(always)]
fn kernel_cycle<const SMALL: bool, const ADMIT: bool>(
    hot: &mut Hot,
    admit: &mut Admission,
    c: u64,
    now: Picos,
    read_ports: u64,
    stage: impl FnOnce(&mut Hot) -> bool,
) -> Next {
    let lim = hot.lim;
    // `ADMIT`: the QMI admission model is on; the kernel stops when it goes off (the MACs
    // do not change it).
    if ADMIT && !admit.prune(c, lim.to_qmi) {
        return Next::Leave;
    }
    let words = if SMALL { 1 } else { hot.wheel.words() };
    for w in 0..words {
        let mut due = hot.wheel.take(c, w);
        while due != 0 {
            let p = (w * 64 + due.trailing_zeros() as usize) % MAX_PORTS;
            due &= due - 1;
            hot.visit_mac::<true, SMALL>(p, now, c);
        }
    }
    let ended = stage(hot);
    if ADMIT && !admit.unhindered(c, lim.to_qmi) {
        // Flush reads take QMI places this cycle's FDs would have had, or QMAN's FDs are
        // held back behind them: each FD is given its QMI cycle by the model (the push
        // queue is empty in the steady state).
        hot.push_admitted::<SMALL>(admit, c, 0);
    } else {
        let pushed_before = *hot.pushed;
        for _ in 0..lim.width {
            let Some(ci) = hot.next_class::<SMALL>() else { break };
            let (p, fd) = hot.push::<true, SMALL>(ci);
            hot.queue_direct_at(p, now + lim.direct_transit_time, fd, c);
        }
        if ADMIT {
            let pushed = *hot.pushed - pushed_before;
            admit.pushed_unhindered(c, lim.to_qmi, pushed as u32);
        }
    }
    if ADMIT && read_ports != 0 && hot.reads_have_credit(read_ports) {
        return Next::MidCycle { ended };
    }
    if ended {
        Next::LeaveAfter
    } else {
        Next::Go
    }
}

/// The first cycle in which a flush read reaches the QMI or an FD passes the NTI
/// (`u64::MAX`: none is under way).
#[inline]
fn stages_wake(flush_inflight: &Ring<(u64, Fd)>, line: &Stage) -> u64 {
    let flush = flush_inflight.front().map_or(u64::MAX, |&(t, _)| t);
    flush.min(line.head_ready().unwrap_or(u64::MAX))
}

/// What of the stages the steady loop's kernel works on: the delay line (QMI to NTI, the
/// stages being fused on the direct path) and the flush reads on their way to the QMI.
struct KernelStages<'a> {
    line: &'a mut Stage,
    flush_inflight: &'a mut Ring<(u64, Fd)>,
    width: usize,
}

impl KernelStages<'_> {
    /// The first cycle in which the stages have work (`stages_wake`).
    #[inline]
    fn next_work(&self) -> u64 {
        stages_wake(self.flush_inflight, self.line)
    }

    /// Whether every FD passing the NTI in cycle `c` is a flushed one that goes on to the MAC
    /// (the others are recycled, which gives the DMA engine work: not the kernel's).
    #[inline(never)]
    fn kernel_may_run(&self, classes: &[Class; MAX_CLASSES], c: u64) -> bool {
        self.line
            .iter()
            .take(self.width)
            .take_while(|&(ready, _)| ready <= c)
            .all(|(_, fd)| fd.flushed() && !classes[fd.class() % MAX_CLASSES].hold_applies(true))
    }

    /// The stages' work in cycle `c` (time `now`), which `kernel_may_run` allowed: the NTI
    /// passes flushed FDs to their MAC queues, then the QMI takes the flush reads that have
    /// arrived (the push queue is empty). Returns whether a class's flush epoch has ended
    /// (nothing left to read, nothing upstream): its Pause FSM has work in the next cycle.
    #[inline]
    fn run(&mut self, hot: &mut Hot, c: u64, now: Picos) -> bool {
        let mut ended = false;
        for _ in 0..self.width {
            let Some(&fd) = self.line.peek_ready(c) else { break };
            self.line.pop();
            let ci = fd.class() % MAX_CLASSES;
            let class = &mut hot.classes[ci];
            class.upstream -= 1;
            // (Not paused: HOLD would apply. Nothing is then counted on chip.)
            debug_assert!(fd.flushed() && !class.hold_applies(true) && !class.pause);
            ended |= class.upstream == 0 && hot.pauses[ci].to_read == 0;
            hot.queue_flushed_direct(usize::from(fd.port()), now, fd, c);
        }
        for _ in 0..self.width {
            if self.flush_inflight.front().is_none_or(|&(t, _)| t > c) || !self.line.has_room() {
                break;
            }
            if let Some((_, fd)) = self.flush_inflight.pop_front() {
                self.line.push(c, fd);
            }
        }
        ended
    }
}

/// The vectors `restage` works in, kept empty between uses: a pause on the direct path
/// restages its class's FDs on their way every time, and allocating them each time cost
/// about 1 200 instructions per pause (of about 30 000 that a pause and its flush cost).
#[derive(Debug, Default)]
pub(super) struct RestageScratch {
    transit: Vec<Queued>,
    /// (QMI cycle, QMAN's, age, ready cycle, FD)
    line: Vec<(u64, bool, u32, u64, Fd)>,
    /// (age, ready cycle, FD)
    queue: Vec<(u32, u64, Fd)>,
}

/// When the DMA engine may next have work: `dma_from`, the first cycle (`u64::MAX`: none) in
/// which a write completes or is to be issued, or this one while a flush epoch has FDs left
/// to read (its port's credit is then looked at in every cycle); `kernel_until`, the same
/// leaving out, while the QMI admission model is on, those reads of ports below 64, whose
/// ports are the bits of `read_ports`: the kernel's loop for the model runs on and stops in
/// the cycle in which one of them has credit.
struct DmaPlan {
    dma_from: u64,
    kernel_until: u64,
    read_ports: u64,
}

#[cfg(test)]
mod tests {
    use crate::pipeline::{ExternalMemoryConfig, PauseMode, Pipeline, PipelineConfig, Traffic};
    use crate::sim::SimRng;
    use crate::time::{LinkSpeed, Picos};

    /// A PFC frame: when it arrives, on which port, its priority-enable vector and times.
    type Pfc = (Picos, usize, u8, [u16; 8]);

    /// A random configuration that allows the direct path, with a PFC storm. Flush reads
    /// take from a few cycles (they then reach the QMI before FDs pushed earlier, and the
    /// direct path is left) to 150; the push queue is from just large enough for the direct
    /// path to 8 × width (FDs held back by flush reads may then fill it).
    fn storm(seed: u64) -> (PipelineConfig, Vec<Pfc>) {
        let mut r = SimRng::new(seed);
        let width = r.between(1, 3) as usize;
        let qman_latency = r.below(8);
        let tight = qman_latency.max(1) as usize * width;
        let cfg = PipelineConfig {
            mode: PauseMode::External,
            ports: r.between(1, 9) as usize,
            speed: [LinkSpeed::G10, LinkSpeed::G40, LinkSpeed::G100][r.below(3) as usize],
            width,
            qman_latency,
            qmi_latency: r.below(10),
            bmi_latency: r.below(10),
            nti_latency: r.below(10),
            qman_capacity: r.between(tight as u64, (8 * width).max(tight) as u64) as usize,
            stage_capacity: 10 * width,
            external: ExternalMemoryConfig {
                capacity_fds: if r.below(4) == 0 { r.between(1, 12) as usize } else { 1 << 20 },
                write_latency: r.below(150),
                read_latency: if r.below(4) == 0 { r.below(8) } else { r.below(150) },
                ops_per_cycle: r.between(1, 3) as usize,
            },
            port_credit: r.between(1, 48) as usize,
            traffic: if r.below(2) == 0 {
                Traffic::Saturated
            } else {
                Traffic::Random { load_percent: r.between(20, 110) }
            },
            min_len: 60,
            max_len: if r.below(2) == 0 { 60 } else { 1518 },
            seed,
            ..PipelineConfig::default()
        };
        let pfcs = (0..r.between(0, 40))
            .map(|_| {
                let mut time = [0u16; 8];
                for t in &mut time {
                    *t = r.below(300) as u16;
                }
                let port = r.below(cfg.ports as u64) as usize;
                (Picos::from_ns(r.below(20_000)), port, r.next_u64() as u8, time)
            })
            .collect();
        (cfg, pfcs)
    }

    /// The direct path changes how FDs are carried, never when anything happens: the same
    /// departures to the picosecond and the same state as the engine that moves every FD
    /// through the push queue and the delay line, after every slice of a run, flush reads
    /// under way on the direct path and both cases of the steady loop's kernel included.
    /// (Departures are recorded for odd seeds only: the kernel's small case is taken only
    /// while they are not.)
    #[test]
    fn same_departures_and_state_as_the_stages() {
        // Slices that ended on the direct path with flush reads under way.
        let mut absorbing = 0;
        let mut kernel_cycles = [0; 2];
        for seed in 0..150 {
            let (cfg, pfcs) = storm(seed);
            let mut direct = Pipeline::new(cfg.clone()).expect("valid");
            let mut staged = Pipeline::new(cfg).expect("valid");
            assert!(direct.direct_possible);
            staged.direct_possible = false;
            let record = seed % 2 == 1;
            staged.record_departures();
            if record {
                direct.record_departures();
            }
            for p in [&mut direct, &mut staged] {
                for &(at, port, enable, time) in &pfcs {
                    p.schedule_pfc(at, port, enable, time);
                }
            }
            let mut r = SimRng::new(seed ^ 0xd1ec7);
            for _ in 0..40 {
                let cycles = r.between(1, 1_000);
                direct.run(cycles);
                staged.run(cycles);
                absorbing += usize::from(direct.direct && !direct.flush_inflight.is_empty());
                assert_eq!(direct.stats(), staged.stats(), "seed {seed}");
                for port in 0..direct.config().ports {
                    for prio in 0..8 {
                        let look = |p: &Pipeline| {
                            let state = (p.fsm_state(port, prio), p.in_push_queue(port, prio));
                            (state, p.departed(port, prio), p.external_depth(port, prio))
                        };
                        assert_eq!(look(&direct), look(&staged), "seed {seed} {port}/{prio}");
                    }
                }
            }
            assert_eq!(direct.drain(200_000), staged.drain(200_000), "seed {seed}");
            if record {
                assert_eq!(direct.departures(), staged.departures(), "seed {seed}");
            }
            assert_eq!(direct.stats(), staged.stats(), "seed {seed}");
            assert_eq!(staged.kernel_cycles, [0, 0], "the stages never take the kernel");
            for (total, run) in kernel_cycles.iter_mut().zip(direct.kernel_cycles) {
                *total += run;
            }
        }
        assert!(absorbing > 100, "flush reads on the direct path in {absorbing} slices");
        // Both cases of the kernel ran a good share of the 150 runs' cycles.
        assert!(kernel_cycles.iter().all(|&c| c > 100_000), "kernel cycles {kernel_cycles:?}");
    }
}
