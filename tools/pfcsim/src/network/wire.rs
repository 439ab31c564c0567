//! One direction of a link in a network run: the frames on it, in order, each with when it
//! finishes arriving. It times frames as `dataplane`'s `SimLink` does (serialisation at the
//! link speed, then the propagation delay) but carries what the run needs whole: a data frame's
//! record, a PFC frame as the value its initiator made (a frame of the length its encoding
//! has), with no buffer to allocate on sending and parse on arrival.

use std::collections::VecDeque;

use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::MacControl;

use super::port::Queued;

/// What a wire carries.
#[derive(Debug, Clone, Copy)]
pub(super) enum Carried {
    Data(Queued),
    Control(MacControl),
}

impl Carried {
    /// Octets on the wire, FCS excluded (as `SimLink` counts a frame).
    fn len(&self) -> u64 {
        match self {
            Carried::Data(frame) => u64::from(frame.len),
            Carried::Control(control) => control.buffer_len() as u64,
        }
    }
}

/// One direction of a link.
#[derive(Debug)]
pub(super) struct Wire {
    speed: LinkSpeed,
    propagation: Picos,
    busy_until: Picos,
    frames: VecDeque<(Picos, Carried)>,
}

impl Wire {
    pub fn new(speed: LinkSpeed, propagation: Picos) -> Self {
        Wire { speed, propagation, busy_until: Picos::ZERO, frames: VecDeque::new() }
    }

    /// When the transmitter may start its next frame.
    pub fn idle_at(&self) -> Picos {
        self.busy_until
    }

    /// Starts `frame` at `start` (not before the previous frame ended). Returns when the
    /// transmitter is free again and when the frame finishes arriving at the far end.
    pub fn transmit(&mut self, start: Picos, frame: Carried) -> (Picos, Picos) {
        let start = start.max(self.busy_until);
        let end = start + self.speed.frame_time(frame.len());
        self.busy_until = end;
        let arrival = end + self.propagation;
        self.frames.push_back((arrival, frame));
        (end, arrival)
    }

    /// Takes the next frame if it has fully arrived by `now`.
    pub fn receive(&mut self, now: Picos) -> Option<Carried> {
        if self.frames.front().is_some_and(|(t, _)| *t <= now) {
            self.frames.pop_front().map(|(_, frame)| frame)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use dataplane::sim::{DataFrame, LinkFrame, Medium, SimLink};
    use dataplane::wire::{MacAddr, PfcFrame};

    use super::*;

    /// The same frames sent at the same times leave the transmitter and arrive when they would
    /// on `dataplane`'s `SimLink`, which sends a PFC frame as its encoded bytes.
    #[test]
    fn frames_are_timed_as_on_a_sim_link() {
        for speed in LinkSpeed::ALL {
            let propagation = Medium::Fibre.delay(37);
            let mut wire = Wire::new(speed, propagation);
            let mut link = SimLink::new(speed, propagation);
            let pause = MacControl::Pfc(PfcFrame::pause(MacAddr([2, 0, 0, 0, 0, 1]), 1 << 3, 7));
            let data = |len| Queued::offered(0, len, 3, Picos::ZERO);
            for (k, len) in [1500u32, 64, 1, 9000, 0].into_iter().enumerate() {
                let start = Picos(k as u64 * 1_000_000);
                let sent = wire.transmit(start, Carried::Data(data(len)));
                let end =
                    link.transmit(start, LinkFrame::Data(DataFrame { priority: 3, len, seq: 0 }));
                assert_eq!(sent, (end, link.last_arrival().expect("not lost")), "{len} at {speed}");
                let sent = wire.transmit(start, Carried::Control(pause));
                let end = link.transmit(start, LinkFrame::Bytes(pause.to_vec()));
                assert_eq!(sent, (end, link.last_arrival().expect("not lost")), "PFC at {speed}");
            }
            while let Some((at, frame)) = link.receive(Picos::MAX) {
                assert!(wire.receive(at - Picos(1)).is_none(), "not before {at:?}");
                match (wire.receive(at), frame) {
                    (Some(Carried::Data(frame)), LinkFrame::Data(d)) => {
                        assert_eq!(frame.len, d.len);
                    }
                    (Some(Carried::Control(c)), LinkFrame::Bytes(b)) => {
                        assert_eq!(MacControl::parse(&b).ok(), Some(c), "the bytes say the same");
                    }
                    (got, sent) => panic!("{got:?} for {sent:?}"),
                }
            }
            assert!(wire.receive(Picos::MAX).is_none());
        }
    }
}
