//! A receive queue drained at a fixed rate: what a slow consumer looks like to PFC. Frames add
//! their octets; the level falls continuously at the drain rate. XOFF is asked for at the XOFF
//! threshold and held until the level is down to the XON threshold (hysteresis, so one frame
//! more or less does not toggle it).

use dataplane::time::Picos;

#[derive(Debug, Clone)]
pub struct DrainQueue {
    /// Octets per picosecond.
    rate: f64,
    level: f64,
    last: Picos,
    pub xoff_octets: u64,
    pub xon_octets: u64,
    /// Above this, arriving frames are counted as overflow (lost on a real port).
    pub buffer_octets: Option<u64>,
    xoff: bool,
    pub peak: f64,
    pub overflow_frames: u64,
}

impl DrainQueue {
    pub fn new(octets_per_second: f64, xoff_octets: u64, xon_octets: u64) -> Self {
        DrainQueue {
            rate: octets_per_second / 1e12,
            level: 0.0,
            last: Picos::ZERO,
            xoff_octets,
            xon_octets: xon_octets.min(xoff_octets),
            buffer_octets: None,
            xoff: false,
            peak: 0.0,
            overflow_frames: 0,
        }
    }

    pub fn octets_per_second(&self) -> f64 {
        self.rate * 1e12
    }

    fn advance(&mut self, now: Picos) {
        let dt = now.saturating_sub(self.last).as_ps() as f64;
        self.level = (self.level - dt * self.rate).max(0.0);
        self.last = self.last.max(now);
    }

    /// A frame of `octets` arrived at `now`.
    pub fn arrive(&mut self, now: Picos, octets: u64) {
        self.advance(now);
        if self.buffer_octets.is_some_and(|b| self.level + octets as f64 > b as f64) {
            self.overflow_frames += 1;
            return;
        }
        self.level += octets as f64;
        self.peak = self.peak.max(self.level);
    }

    /// Whether PFC should hold the sender at `now`.
    pub fn xoff(&mut self, now: Picos) -> bool {
        self.advance(now);
        if self.level >= self.xoff_octets as f64 {
            self.xoff = true;
        } else if self.level <= self.xon_octets as f64 {
            self.xoff = false;
        }
        self.xoff
    }

    /// When the level reaches the XON threshold if nothing more arrives (while in XOFF).
    pub fn xon_at(&self) -> Option<Picos> {
        let above = self.level - self.xon_octets as f64;
        (self.xoff && above > 0.0).then(|| self.last + Picos((above / self.rate).ceil() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoff_at_the_threshold_and_xon_once_drained_below_the_other() {
        // 1 Gb/s = 125 octets per µs.
        let mut q = DrainQueue::new(125e6, 10_000, 5_000);
        for _ in 0..6 {
            q.arrive(Picos::ZERO, 1500);
        }
        assert!(!q.xoff(Picos::ZERO), "9000 octets: below XOFF");
        q.arrive(Picos::ZERO, 1500);
        assert!(q.xoff(Picos::ZERO), "10500 octets: XOFF");
        // 40 µs later 5000 octets are gone: 5500 left, still above XON.
        assert!(q.xoff(Picos::from_us(40)));
        assert_eq!(q.xon_at(), Some(Picos::from_us(44)));
        assert!(!q.xoff(Picos::from_us(44)));
        assert_eq!(q.peak, 10_500.0);
    }

    #[test]
    fn frames_beyond_the_buffer_are_overflow() {
        let mut q = DrainQueue::new(125e6, 2_000, 1_000);
        q.buffer_octets = Some(3_000);
        q.arrive(Picos::ZERO, 1500);
        q.arrive(Picos::ZERO, 1500);
        q.arrive(Picos::ZERO, 1500);
        assert_eq!(q.overflow_frames, 1);
        // 12 µs drains 1500 octets: room again.
        q.arrive(Picos::from_us(12), 1500);
        assert_eq!(q.overflow_frames, 1);
    }
}
