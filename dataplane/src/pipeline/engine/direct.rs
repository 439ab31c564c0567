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
//! What couples the FDs of different classes is a flush read: it takes a place in the QMI's
//! width ahead of QMAN's FDs. The path is left at the start of the cycle in which one reaches
//! the QMI: the FDs still on their way go back into the push queue or the delay line where
//! they would be, in the order QMAN pushed them. It is taken again once no flushed FD is left
//! in the stages and the push queue's head has not been held back.
//!
//! A pause alone does not end it. When PAUSE is asserted for a class, that class's FDs still
//! on their way go back into the stages (its arrived ones go back on the recycle path as
//! always), and the NTI recycles them there: QMAN halts the class until its Pause FSM is
//! idle again, and until then the NTI holds every FD of the class that is not a flushed one.
//! Its FSM (HALT_ACK when none is left in the push queue, the end of the pipe clean when none
//! is upstream) sees exact counts, and the other classes' FDs stay on the direct path.
//!
//! On the direct path, the per-class counts of FDs in the push queue and upstream cover only
//! the FDs in the stages, and an FD's octets count MAC-side from its push.

use super::{PauseMode, Pipeline, Queued, Stage, MAX_PORTS};
use crate::pipeline::class::{FsmState, MAX_CLASSES};
use crate::pipeline::config::PipelineConfig;
use crate::pipeline::fd::Fd;
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
    fn to_nti(&self) -> u64 {
        self.nti.latency().max(1)
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
            class.mac_octets += u64::from(fd.len);
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
            class.mac_octets += u64::from(fd.len);
            self.queue_direct(usize::from(fd.port()), ready - lq + to_qmi + to_nti, fd);
            true
        });
        self.push_queue = queue;
        debug_assert!(self.classes[..self.nclasses]
            .iter()
            .all(|c| c.halted() || c.in_push_queue == 0 && c.upstream == 0));
        self.direct = true;
    }

    /// On the direct path in a steady state: no DMA or flush read under way, nothing in the
    /// stages, no PFC frame due, and every Pause FSM waiting for something only a pause
    /// ending or a flush read can bring (`fsms_blocked`). With no pause at all, that is
    /// every cycle; with one class paused, most.
    pub(super) fn steady(&self) -> bool {
        self.next_pfc > self.now()
            && self.nti.is_empty()
            && self.push_queue.is_empty()
            && self.flush_inflight.is_empty()
            && self.recycle_staging.is_empty()
            && self.writes_inflight.is_empty()
            && self.fsms_blocked()
    }

    /// Whether `run_pause_fsms` would leave every FSM as it is, with the stages, the DMA
    /// engine and the flush reads idle: each class is either paused after HALT_ACK, or in a
    /// flush epoch with FDs still to read (waiting for its port's credit).
    #[inline]
    fn fsms_blocked(&self) -> bool {
        self.active.iter().all(|&ci| {
            let class = &self.classes[ci % MAX_CLASSES];
            match class.fsm {
                FsmState::PipeClean => class.pause,
                FsmState::Flushing => self.pauses[ci].to_read > 0,
                FsmState::Idle | FsmState::WaitHaltAck => false,
            }
        })
    }

    /// Runs steady cycles (see `steady`) until `end` or the steady state ends: a cycle is
    /// then the MACs, QMAN, a flush read if a port's credit allows one, and the traffic
    /// offered, which is what `step` does in that state without asking each part whether it
    /// has work. A PFC frame, a pause starting or ending at a MAC, or DMA work (a flush read
    /// or a recycled FD to write) ends it; the cycle in which a pause starts with FDs of its
    /// class on their way is finished by `step_after_macs`.
    pub(super) fn run_steady(&mut self, end: u64) {
        while self.cycle < end {
            let now = self.now();
            if self.next_pfc <= now || !(self.active.is_empty() || self.fsms_blocked()) {
                return;
            }
            if self.wheel.any_due(self.cycle) {
                // (The steady path is only taken in `external` mode.)
                self.mac_ports_of::<true>(now);
                if !(self.nti.is_empty() && self.push_queue.is_empty()) {
                    // A pause started: its class's FDs on their way are in the stages.
                    self.step_after_macs(now);
                    return;
                }
            }
            self.qman_push::<true>();
            // Without a Pause FSM running there is no DMA work (nor any to come).
            let dma = !self.active.is_empty() && self.dma_has_work();
            if dma {
                self.dma();
            }
            self.offer_traffic();
            self.cycle += 1;
            if dma {
                return; // a flush read may be under way
            }
        }
    }

    /// Puts an FD on the direct path: in its port's MAC queue, passing the NTI in cycle `nti`.
    #[inline(always)]
    pub(super) fn queue_direct(&mut self, p: usize, nti: u64, fd: Fd) {
        let arrived = self.cfg.cycle * nti;
        let port = &mut self.ports[p];
        port.queue.push_back(Queued { arrived, fd });
        if port.queue.len() == 1 {
            let at = port.busy_until.max(arrived + Picos(1));
            self.wake_port(p, at);
        }
    }

    /// Leaves the direct path at the start of a cycle: the FDs that have not passed the NTI
    /// yet go back to the push queue or the delay line.
    pub(super) fn leave_direct(&mut self) {
        let boundary = self.cfg.cycle * self.cycle;
        let mut transit = Vec::new();
        for p in 0..self.cfg.ports {
            let queue = &mut self.ports[p].queue;
            // Those not past the NTI are at the tail: the queue is in NTI order.
            while let Some(q) = queue.back().filter(|q| q.arrived >= boundary) {
                transit.push(*q);
                queue.pop_back();
            }
        }
        self.restage(transit);
        self.direct = false;
    }

    /// PAUSE for class `ci` on the direct path, at the start of a cycle or before the NTI's
    /// work in it: the class's FDs that have not passed the NTI go back to the push queue or
    /// the delay line, where the NTI will recycle them.
    pub(super) fn restage_class(&mut self, ci: usize) {
        let boundary = self.cfg.cycle * self.cycle;
        let mut transit = Vec::new();
        let p = (ci / PRIORITIES) % MAX_PORTS;
        self.ports[p]
            .queue
            .split_off_where(|q| q.fd.class() != ci || q.arrived < boundary, |q| transit.push(q));
        self.restage(transit);
    }

    /// Puts FDs taken off the direct path back into the push queue or the delay line, where
    /// they would be, merged with what those hold in the order QMAN pushed them (the order of
    /// their buffer numbers: flushed FDs, the only ones out of it, are never there on the
    /// direct path).
    fn restage(&mut self, transit: Vec<Queued>) {
        if transit.is_empty() {
            return;
        }
        let (lq, lf) = (self.push_queue.latency(), self.nti.latency());
        let (to_qmi, to_nti) = (self.cfg.qman_latency.max(1), self.to_nti());
        let next = self.next_buffer;
        // (age, in the push queue, ready cycle, FD)
        let mut all: Vec<(u32, bool, u64, Fd)> = Vec::with_capacity(transit.len());
        self.nti.take_all(|ready, fd| all.push((next.wrapping_sub(fd.buffer), false, ready, fd)));
        self.push_queue
            .take_all(|ready, fd| all.push((next.wrapping_sub(fd.buffer), true, ready, fd)));
        for q in transit {
            let nti = q.arrived.as_ps() / self.cfg.cycle.as_ps();
            let qmi = nti - to_nti;
            let class = &mut self.classes[q.fd.class() % MAX_CLASSES];
            class.mac_octets -= u64::from(q.fd.len);
            let age = next.wrapping_sub(q.fd.buffer);
            if qmi >= self.cycle {
                class.in_push_queue += 1;
                all.push((age, true, qmi - to_qmi + lq, q.fd));
            } else {
                class.upstream += 1;
                all.push((age, false, qmi + lf, q.fd));
            }
        }
        // Oldest (largest age) first.
        all.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
        for (_, queued, ready, fd) in all {
            if queued {
                self.push_queue.push_ready(ready, fd);
            } else {
                self.nti.push_ready(ready, fd);
            }
        }
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

#[cfg(test)]
mod tests {
    use crate::pipeline::{PauseMode, Pipeline, PipelineConfig, Traffic};
    use crate::sim::SimRng;
    use crate::time::{LinkSpeed, Picos};

    /// A PFC frame: when it arrives, on which port, its priority-enable vector and times.
    type Pfc = (Picos, usize, u8, [u16; 8]);

    /// A random configuration that allows the direct path, with a PFC storm.
    fn storm(seed: u64) -> (PipelineConfig, Vec<Pfc>) {
        let mut r = SimRng::new(seed);
        let width = r.between(1, 3) as usize;
        let cfg = PipelineConfig {
            mode: PauseMode::External,
            ports: r.between(1, 9) as usize,
            speed: [LinkSpeed::G10, LinkSpeed::G40, LinkSpeed::G100][r.below(3) as usize],
            width,
            qman_latency: r.below(8),
            qmi_latency: r.below(10),
            bmi_latency: r.below(10),
            nti_latency: r.below(10),
            qman_capacity: 8 * width,
            stage_capacity: 10 * width,
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
    /// through the push queue and the delay line, after every slice of a run.
    #[test]
    fn same_departures_and_state_as_the_stages() {
        for seed in 0..150 {
            let (cfg, pfcs) = storm(seed);
            let mut direct = Pipeline::new(cfg.clone()).expect("valid");
            let mut staged = Pipeline::new(cfg).expect("valid");
            assert!(direct.direct_possible);
            staged.direct_possible = false;
            for p in [&mut direct, &mut staged] {
                p.record_departures();
                for &(at, port, enable, time) in &pfcs {
                    p.schedule_pfc(at, port, enable, time);
                }
            }
            let mut r = SimRng::new(seed ^ 0xd1ec7);
            for _ in 0..40 {
                let cycles = r.between(1, 1_000);
                direct.run(cycles);
                staged.run(cycles);
                assert_eq!(direct.stats(), staged.stats(), "seed {seed}");
                for port in 0..direct.config().ports {
                    for prio in 0..8 {
                        let look =
                            |p: &Pipeline| (p.fsm_state(port, prio), p.in_push_queue(port, prio));
                        assert_eq!(look(&direct), look(&staged), "seed {seed} {port}/{prio}");
                    }
                }
            }
            assert_eq!(direct.drain(200_000), staged.drain(200_000), "seed {seed}");
            assert_eq!(direct.departures(), staged.departures(), "seed {seed}");
            assert_eq!(direct.stats(), staged.stats(), "seed {seed}");
        }
    }
}
