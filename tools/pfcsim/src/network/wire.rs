//! One direction of a link in a network run: when its transmitter is free and when a frame
//! sent on it finishes arriving, timed as `dataplane`'s `SimLink` times them (serialisation at
//! the link speed, then the propagation delay). The frames themselves travel in their arrival
//! events, with no queue of their own, no buffer to allocate on sending and parse on arrival.

use dataplane::time::{LinkSpeed, Picos};

/// One direction of a link.
#[derive(Debug)]
pub(super) struct Wire {
    speed: LinkSpeed,
    propagation: Picos,
    busy_until: Picos,
}

impl Wire {
    pub fn new(speed: LinkSpeed, propagation: Picos) -> Self {
        Wire { speed, propagation, busy_until: Picos::ZERO }
    }

    /// When the transmitter may start its next frame.
    pub fn idle_at(&self) -> Picos {
        self.busy_until
    }

    /// Starts a frame of `len` octets (FCS excluded) at `start` (not before the previous frame
    /// ended). Returns when the transmitter is free again and when the frame finishes arriving
    /// at the far end.
    pub fn transmit(&mut self, start: Picos, len: u64) -> (Picos, Picos) {
        let start = start.max(self.busy_until);
        let end = start + self.speed.frame_time(len);
        self.busy_until = end;
        (end, end + self.propagation)
    }
}

#[cfg(test)]
mod tests {
    use dataplane::sim::{DataFrame, LinkFrame, Medium, SimLink};
    use dataplane::wire::{MacAddr, MacControl, PfcFrame};

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
            for (k, len) in [1500u32, 64, 1, 9000, 0].into_iter().enumerate() {
                let start = Picos(k as u64 * 1_000_000);
                let sent = wire.transmit(start, u64::from(len));
                let data = LinkFrame::Data(DataFrame { priority: 3, len, seq: 0 });
                let end = link.transmit(start, data);
                assert_eq!(sent, (end, link.last_arrival().expect("not lost")), "{len} at {speed}");
                let sent = wire.transmit(start, pause.buffer_len() as u64);
                let end = link.transmit(start, LinkFrame::Bytes(pause.to_vec()));
                assert_eq!(sent, (end, link.last_arrival().expect("not lost")), "PFC at {speed}");
            }
        }
    }
}
