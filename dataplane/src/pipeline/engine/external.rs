//! The Pause FSMs (SPEC §6) and the external memory: DMA writes of recycled FDs and flush
//! reads back to the QMI.

use super::Pipeline;
use crate::pipeline::class::FsmState;
use crate::pipeline::fd::Fd;
use crate::wire::PRIORITIES;

impl Pipeline {
    pub(super) fn run_pause_fsms(&mut self) {
        let mut i = 0;
        while i < self.active.len() {
            let ci = self.active[i];
            let class = &mut self.classes[ci];
            let pause = &mut self.pauses[ci];
            match class.fsm {
                FsmState::WaitHaltAck => {
                    if class.in_push_queue == 0 {
                        class.fsm = FsmState::PipeClean; // HALT_ACK
                    }
                }
                FsmState::PipeClean => {
                    // An epoch covers every FD of the class outside the pipeline: the FIFO and
                    // any FDs still staged for a write (the memory may be full). Nothing may be
                    // upstream or mid-write, or a later re-pause could recycle older FDs
                    // behind newer ones that are not in the epoch.
                    if !class.pause && class.upstream == 0 && pause.writing == 0 {
                        let epoch = pause.external.len() + pause.staged as usize;
                        if epoch > 0 {
                            class.fsm = FsmState::Flushing;
                            pause.to_read = epoch;
                            class.renewed = false;
                            self.set_flush_waiting(ci, true);
                        } else {
                            // FLUSH_COMPLETE with PAUSE deasserted: HOLD and HALT deasserted.
                            class.fsm = FsmState::Idle;
                            self.active.swap_remove(i);
                            self.refresh_class(ci);
                            continue;
                        }
                    }
                }
                FsmState::Flushing => {
                    if pause.to_read == 0 && class.upstream == 0 {
                        class.fsm = FsmState::PipeClean; // epoch over
                    }
                }
                FsmState::Idle => {}
            }
            i += 1;
        }
    }

    /// Whether `dma` would do anything this cycle: a write completing, a write to issue
    /// (or to count as held back by a full memory), or a flush read whose port has credit.
    /// (Under saturation a class's flush can wait a long time for its port's credit, which
    /// QMAN takes back as soon as a departure frees it: asking this is cheaper than `dma`.)
    #[inline]
    pub(super) fn dma_has_work(&self) -> bool {
        self.writes_inflight.front().is_some_and(|(t, _)| *t <= self.cycle)
            || !self.recycle_staging.is_empty()
            || self.active.iter().any(|&ci| {
                self.classes[ci].fsm == FsmState::Flushing
                    && self.pauses[ci].to_read > 0
                    && self.ports[ci / PRIORITIES].inflight < self.lim.port_credit
            })
    }

    pub(super) fn dma(&mut self) {
        let mut ops = self.cfg.external.ops_per_cycle;
        // Completed writes land at the tail of their class's FIFO.
        while self.writes_inflight.front().is_some_and(|(t, _)| *t <= self.cycle) {
            let Some((_, fd)) = self.writes_inflight.pop_front() else { break };
            let ci = fd.class();
            let pause = &mut self.pauses[ci];
            pause.writing -= 1;
            pause.external.push_back(fd);
            let depth = pause.external.len();
            self.classes[ci].inflight -= 1;
            self.ports[usize::from(fd.port())].inflight -= 1;
            self.stats.external_fifo_peak = self.stats.external_fifo_peak.max(depth);
            self.refresh_class(ci);
        }
        // Issue writes while the memory has room.
        while ops > 0 && !self.recycle_staging.is_empty() {
            // `external_used` counts stored FDs and writes under way.
            if self.external_used >= self.cfg.external.capacity_fds {
                self.stats.external_full_cycles += 1;
                break;
            }
            let Some(fd) = self.recycle_staging.pop_front() else { break };
            let pause = &mut self.pauses[fd.class()];
            pause.staged -= 1;
            pause.writing += 1;
            self.writes_inflight.push_back((self.cycle + self.cfg.external.write_latency, fd));
            self.external_used += 1;
            ops -= 1;
        }
        // Reads for classes in a flush epoch, in FIFO order, while their port has credit.
        if ops == 0 {
            return;
        }
        for k in 0..self.active.len() {
            let ci = self.active[k];
            let p = ci / PRIORITIES;
            while ops > 0
                && self.classes[ci].fsm == FsmState::Flushing
                && self.pauses[ci].to_read > 0
                && self.ports[p].inflight < self.lim.port_credit
            {
                let Some(mut fd) = self.take_epoch_fd(ci) else { break };
                self.pauses[ci].to_read -= 1;
                if self.pauses[ci].to_read == 0 {
                    self.set_flush_waiting(ci, false);
                }
                let class = &mut self.classes[ci];
                class.upstream += 1;
                class.inflight += 1;
                self.ports[p].inflight += 1;
                fd.set_flushed(true);
                let arrival = self.cycle + self.cfg.external.read_latency;
                if self.direct {
                    self.admit_flush_read(arrival);
                }
                self.flush_inflight.push_back((arrival, fd));
                self.stats.flushed += 1;
                ops -= 1;
            }
            if ops == 0 {
                break;
            }
        }
    }

    /// Marks whether class `ci`'s flush epoch has FDs left to read, which makes QMAN leave its
    /// port one credit (`qman_credit`).
    fn set_flush_waiting(&mut self, ci: usize, waiting: bool) {
        let p = ci / PRIORITIES;
        let bit = 1u8 << (ci % PRIORITIES);
        let port = &mut self.ports[p];
        port.flush_waiting =
            if waiting { port.flush_waiting | bit } else { port.flush_waiting & !bit };
        self.refresh_port_byte(p);
    }

    /// The next FD of a flush epoch in class order: the FIFO's head; once the FIFO is empty,
    /// the oldest of the class's FDs still staged for a write (the memory was full), taken
    /// straight from the staging queue. None while an older FD of the class is mid-write.
    fn take_epoch_fd(&mut self, ci: usize) -> Option<Fd> {
        let pause = &mut self.pauses[ci];
        if let Some(fd) = pause.external.pop_front() {
            self.external_used -= 1;
            return Some(fd);
        }
        if pause.writing > 0 || pause.staged == 0 {
            return None;
        }
        let pos = self.recycle_staging.iter().position(|fd| fd.class() == ci)?;
        let fd = self.recycle_staging.remove(pos)?;
        pause.staged -= 1;
        Some(fd)
    }
}
