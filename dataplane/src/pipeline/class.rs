use std::collections::VecDeque;

use super::fd::FdId;
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

/// Everything the engine keeps per (port, priority).
#[derive(Debug)]
pub(crate) struct ClassState {
    pub fsm: FsmState,
    /// HOLD renewed by a PAUSE during the current flush epoch.
    pub renewed: bool,
    /// FDs of the current epoch still to be read from external memory.
    pub to_read: usize,
    /// PAUSE as the MAC and the Pause FSM see it (after the detection latency).
    pub pause: bool,
    /// The FIFO in external memory.
    pub external: VecDeque<FdId>,
    /// FDs of this class in QMI, BMI, NTI or on their way back from external memory.
    pub upstream: u32,
    /// FDs of this class in QMAN's push queue (HALT_ACK when zero).
    pub in_push_queue: u32,
    /// FDs of this class anywhere between QMAN and the wire or external memory (class credit).
    pub inflight: u32,
    /// FDs of this class on the recycle path waiting for a DMA write to be issued (the
    /// memory may be full), and those whose write is under way.
    pub staged: u32,
    pub writing: u32,
    /// QMAN's next sequence number and backlog (for random traffic).
    pub next_seq: u64,
    pub backlog: u64,
    /// The sequence number the wire must see next.
    pub expected_seq: u64,
    /// `fifo` mode: the on-chip FIFO between NTI and MAC.
    pub onchip: VecDeque<FdId>,
    /// Payload octets of this class held MAC-side (read past the NTI, not yet sent).
    pub mac_octets: u64,
    /// The reaction-bound checker's view: when the current pause was indicated and when the
    /// PFC frames said it ends.
    pub indicated_at: Picos,
    pub indicated_until: Picos,
    /// Whether this class was ever paused (for "unpaused classes keep flowing").
    pub ever_paused: bool,
    pub departed: u64,
}

impl ClassState {
    pub fn new() -> Self {
        ClassState {
            fsm: FsmState::Idle,
            renewed: false,
            to_read: 0,
            pause: false,
            external: VecDeque::new(),
            upstream: 0,
            in_push_queue: 0,
            inflight: 0,
            staged: 0,
            writing: 0,
            next_seq: 0,
            backlog: 0,
            expected_seq: 0,
            onchip: VecDeque::new(),
            mac_octets: 0,
            indicated_at: Picos::ZERO,
            indicated_until: Picos::ZERO,
            ever_paused: false,
            departed: 0,
        }
    }

    /// HALT towards QMAN: asserted from PAUSE until FLUSH_COMPLETE.
    pub fn halted(&self) -> bool {
        self.fsm != FsmState::Idle
    }

    /// Whether the NTI must recycle this FD: HOLD is asserted, except for flushed FDs of an
    /// epoch whose HOLD has not been renewed (they pass on to the MAC in order).
    pub fn hold_applies(&self, flushed: bool) -> bool {
        match self.fsm {
            FsmState::Idle => false,
            FsmState::Flushing => !flushed || self.renewed || self.pause,
            FsmState::WaitHaltAck | FsmState::PipeClean => true,
        }
    }
}
