use std::collections::VecDeque;

use super::fd::Fd;
use super::ring::Ring;
use crate::time::Picos;

/// The Pause FSM of one (port, priority) (seed 000 Figure 8, SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsmState {
    /// No pause: HOLD and HALT deasserted.
    Idle,
    /// PAUSE seen: HOLD and HALT asserted, waiting for QMAN's HALT_ACK.
    WaitHaltAck,
    /// HALT_ACK received: no more FDs of the class will leave QMAN; recycled FDs are being
    /// stored. Flushing starts once PAUSE is deasserted and none of the class is left upstream.
    PipeClean,
    /// One flush epoch: the FDs that were in the external FIFO when it began are read back in
    /// order. If PAUSE returns meanwhile, HOLD is renewed for the rest of the epoch.
    Flushing,
}

/// Most classes (port × priority) the engine supports: 256 ports of 8 priorities. The hot
/// per-class and per-port tables have this fixed size, so indexing them with a class or port
/// number masked to its width needs no bounds check.
pub(crate) const MAX_CLASSES: usize = 2048;

/// What the engine touches per (port, priority) for every frame: one 64-octet cache line.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct Class {
    /// QMAN's next sequence number.
    pub next_seq: u64,
    /// The sequence number the wire must see next.
    pub expected_seq: u64,
    pub departed: u64,
    /// The reaction-bound checker's view: when the current pause was indicated and when the
    /// PFC frames said it ends.
    pub indicated_at: Picos,
    pub indicated_until: Picos,
    /// FDs of this class anywhere between QMAN and the wire or external memory (class credit).
    pub inflight: u32,
    /// FDs of this class in QMAN's push queue (HALT_ACK when zero).
    pub in_push_queue: u32,
    /// FDs of this class in QMI, BMI, NTI or on their way back from external memory.
    pub upstream: u32,
    pub fsm: FsmState,
    /// PAUSE as the MAC and the Pause FSM see it (after the detection latency).
    pub pause: bool,
    /// HOLD renewed by a PAUSE during the current flush epoch.
    pub renewed: bool,
}

impl Class {
    pub const NEW: Class = Class {
        next_seq: 0,
        expected_seq: 0,
        departed: 0,
        indicated_at: Picos::ZERO,
        indicated_until: Picos::ZERO,
        inflight: 0,
        in_push_queue: 0,
        upstream: 0,
        fsm: FsmState::Idle,
        pause: false,
        renewed: false,
    };

    /// HALT towards QMAN: asserted from PAUSE until FLUSH_COMPLETE.
    #[inline]
    pub fn halted(&self) -> bool {
        self.fsm != FsmState::Idle
    }

    /// Whether the NTI must recycle this FD: HOLD is asserted, except for flushed FDs of an
    /// epoch whose HOLD has not been renewed (they pass on to the MAC in order).
    #[inline]
    pub fn hold_applies(&self, flushed: bool) -> bool {
        match self.fsm {
            FsmState::Idle => false,
            FsmState::Flushing => !flushed || self.renewed || self.pause,
            FsmState::WaitHaltAck | FsmState::PipeClean => true,
        }
    }
}

/// What the engine keeps per (port, priority) off the per-frame path: the pause machinery,
/// the random traffic's backlog and `fifo` mode's on-chip FIFO.
#[derive(Debug)]
pub(crate) struct ClassPause {
    /// FDs of the current epoch still to be read from external memory.
    pub to_read: usize,
    /// The FIFO in external memory.
    pub external: Ring<Fd>,
    /// FDs of this class on the recycle path waiting for a DMA write to be issued (the
    /// memory may be full), and those whose write is under way.
    pub staged: u32,
    pub writing: u32,
    /// QMAN's backlog (random or offered traffic).
    pub backlog: u64,
    /// Offered traffic: the buffer handle and length of each frame of the backlog, in order.
    pub offered: VecDeque<(u32, u16)>,
    /// `fifo` mode: the on-chip FIFO between NTI and MAC.
    pub onchip: Ring<Fd>,
    /// Whether this class was ever paused (for "unpaused classes keep flowing").
    pub ever_paused: bool,
}

impl ClassPause {
    pub fn new() -> Self {
        ClassPause {
            to_read: 0,
            external: Ring::with_capacity(8),
            staged: 0,
            writing: 0,
            backlog: 0,
            offered: VecDeque::new(),
            onchip: Ring::with_capacity(8),
            ever_paused: false,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_class_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Class>(), 64);
    }
}
