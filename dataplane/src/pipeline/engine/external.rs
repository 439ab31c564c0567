//! The Pause FSMs (SPEC §6) and the external memory: DMA writes of recycled FDs and flush
//! reads back to the QMI.

use super::admission::Admission;
use super::hot::Hot;
use super::{Pipeline, MAX_PORTS};
use crate::pipeline::class::{ClassPause, FsmState, MAX_CLASSES};
use crate::pipeline::fd::Fd;
use crate::pipeline::ring::Ring;
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
            self.stats.external_used_peak = self.stats.external_used_peak.max(self.external_used);
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
                let Some(fd) = self.take_epoch_fd(ci) else { break };
                let fd = self.hot().read_issued(ci, fd);
                let arrival = self.cycle + self.cfg.external.read_latency;
                if self.direct {
                    self.admit_flush_read(arrival);
                }
                self.flush_inflight.push_back((arrival, fd));
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
        self.hot().set_flush_waiting(ci, waiting);
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

impl Hot<'_> {
    /// Class `ci`'s flush epoch reads `fd` from its FIFO: the counts a read moves (the epoch's,
    /// the class's and the port's), and the FD marked as on its way back. The port's credit
    /// is then looked at again with the read counted: the epoch's last read gives QMAN the
    /// reserve back, and before, QMAN saw the port open with the read's credit as well and
    /// pushed one FD beyond the port's credit.
    #[inline]
    pub fn read_issued(&mut self, ci: usize, mut fd: Fd) -> Fd {
        let ci = ci % MAX_CLASSES;
        let pause = &mut self.pauses[ci];
        pause.to_read -= 1;
        let last = pause.to_read == 0;
        let class = &mut self.classes[ci];
        class.upstream += 1;
        class.inflight += 1;
        self.ports[ci / PRIORITIES].inflight += 1;
        fd.set_flushed(true);
        self.stats.flushed += 1;
        if last {
            self.set_flush_waiting(ci, false);
        } else {
            self.refresh_port(ci / PRIORITIES);
        }
        fd
    }

    /// Marks whether class `ci`'s flush epoch has FDs left to read, which makes QMAN leave its
    /// port one credit (`qman_credit`), and refreshes the port's eligibility.
    pub fn set_flush_waiting(&mut self, ci: usize, waiting: bool) {
        let p = (ci / PRIORITIES) % MAX_PORTS;
        let bit = 1u8 << (ci % PRIORITIES);
        let port = &mut self.ports[p];
        port.flush_waiting =
            if waiting { port.flush_waiting | bit } else { port.flush_waiting & !bit };
        self.refresh_port(p);
    }

    /// Port `p`'s byte of QMAN's eligibility: whether it has credit for QMAN.
    pub fn refresh_port(&mut self, p: usize) {
        let port = &self.ports[p % MAX_PORTS];
        let open = port.inflight < super::hot::qman_credit(self.lim, port);
        self.elig.set_open(p, open);
    }
}

/// The ports (a bit per port below 64) of the classes in `active` whose flush epoch has FDs
/// left to read, and whether a port from 64 on has one.
pub(super) fn waiting_read_ports(
    active: &[usize],
    classes_fsm: impl Fn(usize) -> FsmState,
    pauses: &[ClassPause],
) -> (u64, bool) {
    let (mut ports, mut far) = (0u64, false);
    for &ci in active {
        if classes_fsm(ci) == FsmState::Flushing && pauses[ci].to_read > 0 {
            let p = ci / PRIORITIES;
            if p < 64 {
                ports |= 1 << p;
            } else {
                far = true;
            }
        }
    }
    (ports, far)
}

/// What of the DMA engine the steady loop's kernel (`direct.rs`) uses to finish a cycle in
/// which a flush read waiting for its port's credit may go, instead of leaving the kernel for
/// `Pipeline::dma`.
pub(super) struct KernelReads<'a> {
    pub active: &'a [usize],
    pub external_used: &'a mut usize,
    pub direct_leave: &'a mut bool,
    pub read_latency: u64,
    pub ops_per_cycle: usize,
    pub width: u64,
}

impl KernelReads<'_> {
    /// The DMA engine's work in kernel cycle `c`, as `Pipeline::dma` does it: no write
    /// completes or is staged in a kernel cycle, so it is the flush reads, in the order of
    /// `active`, up to the operations per cycle, while their ports have credit. (With nothing
    /// staged for a write, an epoch's FDs are all in its FIFO or mid-write.)
    #[inline(never)]
    pub fn issue_reads(
        &mut self,
        hot: &mut Hot,
        admit: &mut Admission,
        flush_inflight: &mut Ring<(u64, Fd)>,
        c: u64,
    ) {
        let mut ops = self.ops_per_cycle;
        for &ci in self.active {
            let ci = ci % MAX_CLASSES;
            let p = (ci / PRIORITIES) % MAX_PORTS;
            while ops > 0
                && hot.classes[ci].fsm == FsmState::Flushing
                && hot.pauses[ci].to_read > 0
                && hot.ports[p].inflight < hot.lim.port_credit
            {
                let pause = &mut hot.pauses[ci];
                debug_assert_eq!(pause.staged, 0);
                let Some(fd) = pause.external.pop_front() else { break };
                *self.external_used -= 1;
                let fd = hot.read_issued(ci, fd);
                let arrival = c + self.read_latency;
                if admit.flush_read(arrival, c, self.width) {
                    *self.direct_leave = true;
                }
                flush_inflight.push_back((arrival, fd));
                ops -= 1;
            }
            if ops == 0 {
                break;
            }
        }
    }

    /// The ports whose flush reads the kernel watches (`DmaPlan::read_ports`), after reads.
    pub fn read_ports(&self, hot: &Hot) -> u64 {
        let fsm = |ci: usize| hot.classes[ci % MAX_CLASSES].fsm;
        waiting_read_ports(self.active, fsm, hot.pauses).0
    }
}
