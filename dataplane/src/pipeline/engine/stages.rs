//! QMI, BMI and NTI: FDs moving between the delay lines, and the NTI's choice between the MAC
//! and the recycle path.

use super::{PauseMode, Pipeline, Queued};
use crate::pipeline::class::MAX_CLASSES;
use crate::pipeline::fd::Fd;
use crate::pipeline::stage::Stage;
use crate::time::Picos;

impl Pipeline {
    /// NTI: passes FDs to the MAC, or marks them FD_REC and recycles them.
    pub(super) fn nti_stage(&mut self, now: Picos) {
        for _ in 0..self.cfg.width {
            let Some(&fd) = self.nti.peek_ready(self.cycle) else { return };
            let p = usize::from(fd.port());
            let ci = fd.class() % MAX_CLASSES;
            match self.cfg.mode {
                PauseMode::External => {
                    self.nti.pop();
                    let class = &mut self.classes[ci];
                    class.upstream -= 1;
                    if class.hold_applies(fd.flushed()) {
                        self.pauses[ci].staged += 1;
                        self.stats.recycled_by_nti += 1;
                        self.recycle_staging.push_back(fd);
                        self.note_staging_peak();
                        continue;
                    }
                    self.enter_mac_side(ci, fd.len);
                    if self.direct {
                        // A flushed FD (the others in the stages are recycled).
                        self.queue_flushed_direct(p, now, fd);
                    } else {
                        self.queue_for_mac(p, now, fd);
                    }
                }
                PauseMode::Stall => {
                    self.nti.pop();
                    self.enter_mac_side(ci, fd.len);
                    self.queue_for_mac(p, now, fd);
                }
                PauseMode::Fifo => {
                    if self.pauses[ci].onchip.len() >= self.cfg.port_credit {
                        return; // backpressure; cannot happen with class credit <= FIFO depth
                    }
                    self.nti.pop();
                    self.enter_mac_side(ci, fd.len);
                    self.pauses[ci].onchip.push_back(fd);
                    let port = &mut self.ports[p];
                    if port.onchip_nonempty & (1 << fd.priority()) == 0 {
                        // The MAC may have a frame to start where it had none.
                        port.onchip_nonempty |= 1 << fd.priority();
                        let at = port.busy_until;
                        self.wake_port(p, at);
                    }
                }
            }
        }
    }

    /// Queues an FD for the MAC (it is no longer on its way back from external memory).
    #[inline(always)]
    fn queue_for_mac(&mut self, p: usize, now: Picos, mut fd: Fd) {
        debug_assert!(!self.direct);
        fd.set_flushed(false);
        let port = &mut self.ports[p];
        port.queue.push_back(Queued { arrived: now, fd });
        if port.queue.len() == 1 {
            // The MAC may have a frame to start where it had none (behind a non-empty queue's
            // head the MAC is already scheduled, or waits for a pause to end).
            let at = port.busy_until;
            self.wake_port(p, at);
        }
    }

    /// The NTI has read the payload: its octets are now on chip, MAC side (`mac_octets`).
    #[inline]
    fn enter_mac_side(&mut self, ci: usize, len: u16) {
        let class = &self.classes[ci % MAX_CLASSES];
        if class.pause {
            self.onchip_paused_octets += u64::from(len);
            self.note_onchip_peak();
        }
    }

    /// BMI to NTI, then QMI to BMI, when the stages are not fused.
    pub(super) fn move_stages(&mut self) {
        let (width, cycle) = (self.cfg.width, self.cycle);
        move_stage(&mut self.bmi, &mut self.nti, width, cycle);
        move_stage(&mut self.qmi, &mut self.bmi, width, cycle);
    }

    /// QMI takes FDs flushed back from external memory first (they are older than anything
    /// QMAN holds for the class), then QMAN's push queue. In fused mode the NTI's delay line
    /// stands for all three stages.
    pub(super) fn qmi_input(&mut self) {
        let cycle = self.cycle;
        let entry = if self.fused { &mut self.nti } else { &mut self.qmi };
        for _ in 0..self.cfg.width {
            // What is ready is asked first: in most cycles nothing is, and that is the answer.
            if self.flush_inflight.front().is_some_and(|(t, _)| *t <= cycle) {
                if !entry.has_room() {
                    return;
                }
                if let Some((_, fd)) = self.flush_inflight.pop_front() {
                    entry.push(cycle, fd);
                }
                continue;
            }
            let Some(&fd) = self.push_queue.peek_ready(cycle) else { return };
            if !entry.has_room() {
                return;
            }
            // On the direct path no FD of the push queue is ever held back (`direct.rs`).
            debug_assert!(
                !self.direct
                    || self.push_queue.head_ready().is_some_and(|ready| {
                        ready - self.push_queue.latency() + self.cfg.qman_latency.max(1) == cycle
                    })
            );
            self.push_queue.pop();
            let class = &mut self.classes[fd.class() % MAX_CLASSES];
            class.in_push_queue -= 1;
            class.upstream += 1;
            entry.push(cycle, fd);
        }
    }
}

/// Up to `width` FDs whose latency has elapsed move on while the next stage has room.
fn move_stage(from: &mut Stage, to: &mut Stage, width: usize, cycle: u64) {
    for _ in 0..width {
        if !to.has_room() {
            return;
        }
        let Some(fd) = from.pop_ready(cycle) else { return };
        to.push(cycle, fd);
    }
}
