//! A simulated point-to-point link, one direction: serialisation at the link speed, propagation
//! delay from length and medium, optional random loss.

use std::collections::VecDeque;

use super::SimRng;
use crate::time::{LinkSpeed, Picos};

/// What a cable is made of, for its propagation delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Medium {
    /// Optical fibre: about 5 ns per metre (SPEC §1).
    Fibre,
    /// Twisted-pair copper at 0.6 c, as Annex N uses for Cat6 (100 m = 555.6 ns).
    Copper,
}

impl Medium {
    /// Propagation delay of `metres` of this medium, rounded to the nearest picosecond.
    pub fn delay(self, metres: u64) -> Picos {
        match self {
            Medium::Fibre => Picos(metres * 5_000),
            // 1 / (0.6 × 299 792 458 m/s) = 5559.6 ps/m; Annex N rounds c to 3e8: 5555.6 ps/m.
            Medium::Copper => Picos((metres * 50_000_000).div_ceil(9_000)),
        }
    }
}

/// A data frame as the simulation carries it: a descriptor, no payload bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFrame {
    pub priority: u8,
    /// Octets, FCS excluded.
    pub len: u32,
    /// Per-priority sequence number from the sender, to check order and loss.
    pub seq: u64,
}

/// What travels on a simulated link: encoded control frames (real bytes, parsed at the far end
/// by the wire codecs) or data frame descriptors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkFrame {
    Bytes(Vec<u8>),
    Data(DataFrame),
}

impl LinkFrame {
    pub fn len(&self) -> u64 {
        match self {
            LinkFrame::Bytes(b) => b.len() as u64,
            LinkFrame::Data(d) => u64::from(d.len),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One direction of a link.
#[derive(Debug, Clone)]
pub struct SimLink {
    pub speed: LinkSpeed,
    pub propagation: Picos,
    loss_ppm: u32,
    rng: SimRng,
    busy_until: Picos,
    in_flight: VecDeque<(Picos, LinkFrame)>,
    pub frames_lost: u64,
}

impl SimLink {
    pub fn new(speed: LinkSpeed, propagation: Picos) -> Self {
        SimLink {
            speed,
            propagation,
            loss_ppm: 0,
            rng: SimRng::new(0),
            busy_until: Picos::ZERO,
            in_flight: VecDeque::new(),
            frames_lost: 0,
        }
    }

    /// Loses each frame with probability `ppm` per million, drawn from `seed`.
    pub fn with_loss(mut self, ppm: u32, seed: u64) -> Self {
        self.loss_ppm = ppm;
        self.rng = SimRng::new(seed);
        self
    }

    /// When the transmitter may start its next frame.
    pub fn idle_at(&self) -> Picos {
        self.busy_until
    }

    /// Starts `frame` on the wire at `start` (not before the previous frame ended). Returns when
    /// the transmitter is free again; the frame's last bit reaches the far end `propagation`
    /// later.
    pub fn transmit(&mut self, start: Picos, frame: LinkFrame) -> Picos {
        let start = start.max(self.busy_until);
        let end = start + self.speed.frame_time(frame.len());
        self.busy_until = end;
        if self.loss_ppm > 0 && self.rng.chance_ppm(self.loss_ppm) {
            self.frames_lost += 1;
        } else {
            self.in_flight.push_back((end + self.propagation, frame));
        }
        end
    }

    /// Puts a frame of `len` octets on the wire at `start` (not before the previous frame
    /// ended) that the far end does not read: it takes the wire's time but is never delivered.
    /// Returns when the transmitter is free again. (A simulated station that ignores the other
    /// side's data saves an arrival event per frame.)
    pub fn transmit_unread(&mut self, start: Picos, len: u64) -> Picos {
        let start = start.max(self.busy_until);
        let end = start + self.speed.frame_time(len);
        self.busy_until = end;
        end
    }

    /// When the frame most recently transmitted finishes arriving (None if it was lost).
    pub fn last_arrival(&self) -> Option<Picos> {
        self.in_flight.back().map(|(t, _)| *t)
    }

    /// When the next frame finishes arriving at the far end.
    pub fn next_arrival(&self) -> Option<Picos> {
        self.in_flight.front().map(|(t, _)| *t)
    }

    /// Takes the next frame if it has fully arrived by `now`.
    pub fn receive(&mut self, now: Picos) -> Option<(Picos, LinkFrame)> {
        if self.in_flight.front().is_some_and(|(t, _)| *t <= now) {
            self.in_flight.pop_front()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_copper_100m_is_5556_bit_times_at_10g() {
        let d = Medium::Copper.delay(100);
        assert_eq!(d, Picos(555_556));
        // 5555.56 bit times, which Annex N rounds to 5556.
        assert_eq!((d.as_ps() * LinkSpeed::G10.gbps()).div_ceil(1_000), 5556);
    }

    #[test]
    fn frames_arrive_in_order_after_serialisation_and_propagation() {
        let mut link = SimLink::new(LinkSpeed::G10, Medium::Fibre.delay(100));
        let f = |seq| LinkFrame::Data(DataFrame { priority: 3, len: 60, seq });
        let end1 = link.transmit(Picos::ZERO, f(1));
        assert_eq!(end1, Picos(67_200));
        let end2 = link.transmit(Picos::ZERO, f(2));
        assert_eq!(end2, Picos(134_400), "second frame waits for the first");
        assert_eq!(link.next_arrival(), Some(Picos(67_200 + 500_000)));
        assert_eq!(link.receive(Picos(500_000)), None);
        assert_eq!(link.receive(Picos(567_200)).map(|(_, f)| f), Some(f(1)));
        assert_eq!(link.receive(Picos::MAX).map(|(_, f)| f), Some(f(2)));
    }

    #[test]
    fn a_frame_nobody_reads_takes_the_wire_and_is_never_delivered() {
        let mut link = SimLink::new(LinkSpeed::G10, Medium::Fibre.delay(100));
        assert_eq!(link.transmit_unread(Picos::ZERO, 60), Picos(67_200));
        let f = LinkFrame::Data(DataFrame { priority: 3, len: 60, seq: 1 });
        assert_eq!(link.transmit(Picos::ZERO, f.clone()), Picos(134_400), "it waits its turn");
        assert_eq!(link.receive(Picos::MAX).map(|(_, f)| f), Some(f), "only the read frame");
        assert_eq!(link.receive(Picos::MAX), None);
    }

    #[test]
    fn loss_is_seeded_and_counted() {
        let run = |seed| {
            let mut link = SimLink::new(LinkSpeed::G100, Picos::ZERO).with_loss(100_000, seed);
            for seq in 0..1000 {
                link.transmit(
                    Picos::ZERO,
                    LinkFrame::Data(DataFrame { priority: 0, len: 60, seq }),
                );
            }
            link.frames_lost
        };
        assert_eq!(run(9), run(9));
        assert!((50..150).contains(&run(9)), "about 10% lost: {}", run(9));
    }
}
