use crate::wire::PRIORITIES;

/// A frame descriptor: what travels through the pipeline instead of the frame's bytes.
///
/// Sixteen octets in two machine words, so the delay lines and queues move it with two loads
/// and two stores (a 24-octet layout with byte fields was copied piecewise through the stack).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fd {
    /// Order of this frame within its (port, priority), assigned when QMAN enqueued it.
    pub seq: u64,
    /// Handle of the payload buffer in the pool (the payload never moves).
    pub buffer: u32,
    /// Frame length in octets (FCS excluded).
    pub len: u16,
    /// The class, port × 8 + priority (ports are at most 256), and [`Fd::FLUSHED`].
    tag: u16,
}

impl Fd {
    /// Set while the FD is on its way back from external memory (FD_REC flushed back).
    const FLUSHED: u16 = 1 << 15;

    pub fn new(port: u8, priority: u8, len: u16, seq: u64, buffer: u32) -> Fd {
        let tag = u16::from(port) * PRIORITIES as u16 + u16::from(priority % PRIORITIES as u8);
        Fd { seq, buffer, len, tag }
    }

    /// An FD of class `class` (port × 8 + priority, below 2048).
    #[inline]
    pub(crate) fn of_class(class: usize, len: u16, seq: u64, buffer: u32) -> Fd {
        Fd { seq, buffer, len, tag: (class % 2048) as u16 }
    }

    #[inline]
    pub fn port(&self) -> u8 {
        (self.class() / PRIORITIES) as u8
    }

    #[inline]
    pub fn priority(&self) -> u8 {
        (self.class() % PRIORITIES) as u8
    }

    /// Whether the FD is on its way back from external memory.
    #[inline]
    pub fn flushed(&self) -> bool {
        self.tag & Self::FLUSHED != 0
    }

    #[inline]
    pub fn set_flushed(&mut self, flushed: bool) {
        self.tag = (self.tag & !Self::FLUSHED) | if flushed { Self::FLUSHED } else { 0 };
    }

    /// Index of the FD's (port, priority) among all classes.
    #[inline]
    pub(crate) fn class(&self) -> usize {
        usize::from(self.tag & !Self::FLUSHED)
    }
}

#[cfg(test)]
mod tests {
    use super::Fd;

    #[test]
    fn fields_round_trip() {
        let mut fd = Fd::new(255, 7, 1518, 42, 9);
        assert_eq!((fd.port(), fd.priority(), fd.flushed()), (255, 7, false));
        fd.set_flushed(true);
        assert_eq!((fd.port(), fd.priority(), fd.flushed(), fd.class()), (255, 7, true, 2047));
        assert_eq!(std::mem::size_of::<Fd>(), 16);
    }
}
