//! One end of a simulated point-to-point link, behind the same [`FramePort`] trait as a real
//! interface: frames sent here travel on a [`SimLink`] (serialisation, propagation, optional
//! loss) and are received at the other end once simulated time, kept by a shared [`SimClock`],
//! has reached their arrival. Single-threaded, like the rest of the simulator.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::{FramePort, IoError};
use crate::sim::{LinkFrame, SimLink};
use crate::time::Picos;
use crate::wire::MacAddr;

/// Simulated time shared by the ports of one simulation; the driver advances it.
#[derive(Debug, Clone, Default)]
pub struct SimClock(Rc<Cell<Picos>>);

impl SimClock {
    pub fn now(&self) -> Picos {
        self.0.get()
    }

    /// Moves time to `t` (never backwards).
    pub fn advance_to(&self, t: Picos) {
        self.0.set(self.0.get().max(t));
    }
}

/// One end of a simulated link.
#[derive(Debug)]
pub struct SimPort {
    name: String,
    mac: MacAddr,
    clock: SimClock,
    /// Direction 0 carries A to B, direction 1 B to A.
    links: Rc<RefCell<[SimLink; 2]>>,
    /// 0 for end A, 1 for end B.
    side: usize,
}

impl SimPort {
    /// Two ends joined by `a_to_b` and `b_to_a`, on `clock`.
    pub fn pair(
        a: (&str, MacAddr),
        b: (&str, MacAddr),
        a_to_b: SimLink,
        b_to_a: SimLink,
        clock: &SimClock,
    ) -> (SimPort, SimPort) {
        let links = Rc::new(RefCell::new([a_to_b, b_to_a]));
        let end = |(name, mac): (&str, MacAddr), side| SimPort {
            name: name.to_string(),
            mac,
            clock: clock.clone(),
            links: Rc::clone(&links),
            side,
        };
        (end(a, 0), end(b, 1))
    }

    /// When the next frame for this end finishes arriving.
    pub fn next_arrival(&self) -> Option<Picos> {
        self.links.borrow()[1 - self.side].next_arrival()
    }

    /// Frames lost so far on the direction this end sends on.
    pub fn frames_lost(&self) -> u64 {
        self.links.borrow()[self.side].frames_lost
    }
}

impl FramePort for SimPort {
    fn name(&self) -> &str {
        &self.name
    }

    fn mac(&self) -> MacAddr {
        self.mac
    }

    fn send(&mut self, frame: &[u8]) -> Result<(), IoError> {
        let now = self.clock.now();
        self.links.borrow_mut()[self.side].transmit(now, LinkFrame::Bytes(frame.to_vec()));
        Ok(())
    }

    /// Byte frames only: data-frame descriptors on the link are passed over.
    fn recv(&mut self, buf: &mut [u8]) -> Result<Option<usize>, IoError> {
        let now = self.clock.now();
        let mut links = self.links.borrow_mut();
        while let Some((_, frame)) = links[1 - self.side].receive(now) {
            if let LinkFrame::Bytes(bytes) = frame {
                let n = bytes.len().min(buf.len());
                buf[..n].copy_from_slice(&bytes[..n]);
                return Ok(Some(n));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::LinkSpeed;

    #[test]
    fn frames_cross_after_serialisation_and_propagation() {
        let clock = SimClock::default();
        let link = || SimLink::new(LinkSpeed::G10, Picos::from_ns(500));
        let a_mac = MacAddr([2, 0, 0, 0, 0, 1]);
        let (mut a, mut b) =
            SimPort::pair(("a", a_mac), ("b", MacAddr([2, 0, 0, 0, 0, 2])), link(), link(), &clock);
        a.send(&[0xab; 60]).expect("send");
        let mut buf = [0u8; 100];
        assert_eq!(b.recv(&mut buf).expect("recv"), None, "not arrived yet");
        // 60 octets + preamble and gap at 10 Gb/s = 67.2 ns, then 500 ns of propagation.
        assert_eq!(b.next_arrival(), Some(Picos(567_200)));
        clock.advance_to(Picos(567_200));
        assert_eq!(b.recv(&mut buf).expect("recv"), Some(60));
        assert_eq!(buf[0], 0xab);
        assert_eq!(a.recv(&mut buf).expect("recv"), None);
        assert_eq!((a.name(), a.mac()), ("a", a_mac));
    }
}
