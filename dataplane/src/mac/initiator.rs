use super::MacCounters;
use crate::time::{LinkSpeed, Picos};
use crate::wire::{MacAddr, MacControl, PauseFrame, PfcFrame, PRIORITIES};

/// The pause time a PFC initiator requests unless configured otherwise.
pub const DEFAULT_PAUSE_QUANTA: u16 = 0xffff;

/// The transmit half of a PFC MAC (seed 003, seed 004 "transmit"): turns per-priority XOFF
/// levels from the receive buffer into PFC frames.
///
/// Each time the transmitter may start a frame it calls [`PfcInitiator::poll`], which applies
/// the five cases of SPEC §3.2 to every PFC-enabled priority and returns at most one frame that
/// covers all priorities needing an update. The initiator tracks the pause it asked for as an
/// absolute end time (the peer's timer, seen from here).
#[derive(Debug, Clone)]
pub struct PfcInitiator {
    speed: LinkSpeed,
    src: MacAddr,
    pfc_enable: u8,
    quanta: u16,
    refresh_threshold: u16,
    xoff: u8,
    requested_until: [Picos; PRIORITIES],
    pub counters: MacCounters,
}

impl PfcInitiator {
    /// An initiator sending `DEFAULT_PAUSE_QUANTA` with the refresh threshold at half of it.
    pub fn new(speed: LinkSpeed, src: MacAddr, pfc_enable: u8) -> Self {
        PfcInitiator {
            speed,
            src,
            pfc_enable,
            quanta: DEFAULT_PAUSE_QUANTA,
            refresh_threshold: DEFAULT_PAUSE_QUANTA / 2,
            xoff: 0,
            requested_until: [Picos::ZERO; PRIORITIES],
            counters: MacCounters::default(),
        }
    }

    /// Sets the programmed pause time and the refresh threshold (both in quanta). A threshold at
    /// or above the quanta would refresh after every frame; it is clamped just below.
    pub fn with_quanta(mut self, quanta: u16, refresh_threshold: u16) -> Self {
        self.quanta = quanta.max(1);
        self.refresh_threshold = refresh_threshold.min(self.quanta - 1);
        self
    }

    pub fn set_pfc_enable(&mut self, enable: u8) {
        self.pfc_enable = enable;
    }

    /// Sets or clears the XOFF request of priority `n` (in link-pause mode only priority 0's
    /// request is used, seed 004).
    pub fn set_xoff(&mut self, n: usize, xoff: bool) {
        if n < PRIORITIES {
            if xoff {
                self.xoff |= 1 << n;
            } else {
                self.xoff &= !(1 << n);
            }
        }
    }

    pub fn xoff(&self) -> u8 {
        self.xoff
    }

    /// A pause of the PFC priorities of `enable` for our pause time, sent to the peer at `at`
    /// on our behalf (pfc-bridge's pause keeper, while the thread that polls us did not run):
    /// taken as ours, so that it is refreshed or released (XON) as ours are.
    pub fn paused_elsewhere(&mut self, at: Picos, enable: u8) {
        let until = at + self.speed.quanta(u64::from(self.quanta));
        for n in (0..PRIORITIES).filter(|n| enable & self.pfc_enable & (1 << n) != 0) {
            self.requested_until[n] = self.requested_until[n].max(until);
        }
    }

    /// Whether the pause we asked for on priority `n` is still in progress at `now`.
    pub fn pause_in_progress(&self, now: Picos, n: usize) -> bool {
        self.requested_until.get(n).is_some_and(|t| now < *t)
    }

    /// Evaluates the five cases at `now` (when the transmitter is free to start a frame) and
    /// returns the control frame to send first, if any. The frame is counted as sent.
    pub fn poll(&mut self, now: Picos) -> Option<MacControl> {
        if self.pfc_enable == 0 {
            return self.poll_link_pause(now);
        }
        let mut enable = 0u8;
        let mut time = [0u16; PRIORITIES];
        for (n, slot) in time.iter_mut().enumerate() {
            if self.pfc_enable & (1 << n) == 0 {
                continue;
            }
            if let Some(quanta) = self.decide(now, n, self.xoff & (1 << n) != 0) {
                enable |= 1 << n;
                *slot = quanta;
            }
        }
        if enable == 0 {
            return None;
        }
        self.counters.pfc_requests += 1;
        for n in (0..PRIORITIES).filter(|n| enable & (1 << n) != 0) {
            self.counters.pfc_requests_per_priority[n] += 1;
            if time[n] == 0 {
                self.counters.xon_sent_per_priority[n] += 1;
            }
            self.requested_until[n] = now + self.speed.quanta(u64::from(time[n]));
        }
        let mut frame = PfcFrame::pause(self.src, enable, 0);
        frame.time = time;
        Some(MacControl::Pfc(frame))
    }

    /// The five transmit cases for one priority; `Some(quanta)` when a frame must carry it.
    fn decide(&self, now: Picos, n: usize, xoff: bool) -> Option<u16> {
        let in_progress = self.pause_in_progress(now, n);
        match (in_progress, xoff) {
            (false, true) => Some(self.quanta),
            (true, false) => Some(0),
            (true, true) => {
                let left = self.speed.quanta_in_ceil(self.requested_until[n] - now);
                (left <= u64::from(self.refresh_threshold)).then_some(self.quanta)
            }
            (false, false) => None,
        }
    }

    fn poll_link_pause(&mut self, now: Picos) -> Option<MacControl> {
        let quanta = self.decide(now, 0, self.xoff & 1 != 0)?;
        self.counters.pause_frames_sent += 1;
        self.requested_until[0] = now + self.speed.quanta(u64::from(quanta));
        Some(MacControl::Pause(PauseFrame::new(self.src, quanta)))
    }

    /// When the next refresh falls due for some priority still in XOFF, for event scheduling.
    pub fn next_refresh(&self, now: Picos) -> Option<Picos> {
        let threshold = self.speed.quanta(u64::from(self.refresh_threshold));
        (0..PRIORITIES)
            .filter(|n| self.xoff & (1 << n) != 0 && self.pause_in_progress(now, *n))
            .map(|n| self.requested_until[n] - threshold)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

    fn pfc(frame: Option<MacControl>) -> PfcFrame {
        match frame {
            Some(MacControl::Pfc(f)) => f,
            other => panic!("expected a PFC frame, got {other:?}"),
        }
    }

    #[test]
    fn xoff_sends_programmed_quanta_once_then_nothing() {
        let mut tx = PfcInitiator::new(LinkSpeed::G100, SRC, 0xff);
        assert_eq!(tx.poll(Picos::ZERO), None, "no pause, no XOFF: nothing");
        tx.set_xoff(3, true);
        let f = pfc(tx.poll(Picos::ZERO));
        assert_eq!((f.enable, f.time[3]), (0x08, 0xffff));
        assert_eq!(tx.poll(Picos::from_ns(10)), None, "pause in progress above threshold");
        assert_eq!(tx.counters.pfc_requests, 1);
    }

    #[test]
    fn a_pause_sent_on_our_behalf_is_released_or_refreshed_as_ours() {
        let mut tx = PfcInitiator::new(LinkSpeed::G100, SRC, 0x08).with_quanta(1000, 400);
        let q = LinkSpeed::G100.quantum();
        tx.paused_elsewhere(Picos::ZERO, 0xff);
        assert!(tx.pause_in_progress(Picos::ZERO, 3), "priority 3 (PFC) is paused");
        assert!(!tx.pause_in_progress(Picos::ZERO, 0), "priority 0 (not PFC) is not");
        let f = pfc(tx.poll(q * 10));
        assert_eq!((f.enable, f.time[3]), (0x08, 0), "no XOFF wanted: released at once");
        let mut tx = PfcInitiator::new(LinkSpeed::G100, SRC, 0x08).with_quanta(1000, 400);
        tx.set_xoff(3, true);
        tx.paused_elsewhere(Picos::ZERO, 0x08);
        assert_eq!(tx.poll(q * 10), None, "XOFF wanted and the pause has long to run");
        let f = pfc(tx.poll(q * 600));
        assert_eq!((f.enable, f.time[3]), (0x08, 1000), "refreshed at the threshold");
    }

    #[test]
    fn refresh_fires_at_the_threshold() {
        let mut tx = PfcInitiator::new(LinkSpeed::G100, SRC, 0xff).with_quanta(1000, 400);
        tx.set_xoff(5, true);
        let start = Picos::from_ns(50);
        pfc(tx.poll(start));
        let q = LinkSpeed::G100.quantum();
        // 600 quanta later 400 remain: at the threshold, refresh.
        assert_eq!(tx.poll(start + q * 599), None, "401 quanta left: above threshold");
        let f = pfc(tx.poll(start + q * 600));
        assert_eq!((f.enable, f.time[5]), (0x20, 1000), "refresh with the programmed quanta");
        assert_eq!(tx.next_refresh(start + q * 600), Some(start + q * 600 + q * 600));
        assert_eq!(tx.counters.pfc_requests_per_priority[5], 2);
    }

    #[test]
    fn xon_is_sent_when_xoff_clears_during_a_pause() {
        let mut tx = PfcInitiator::new(LinkSpeed::G10, SRC, 0xff);
        tx.set_xoff(1, true);
        pfc(tx.poll(Picos::ZERO));
        tx.set_xoff(1, false);
        let f = pfc(tx.poll(Picos::from_ns(500)));
        assert_eq!((f.enable, f.time[1]), (0x02, 0), "XON: quanta 0");
        assert_eq!(tx.counters.xon_sent_per_priority[1], 1);
        assert_eq!(tx.poll(Picos::from_ns(600)), None, "no pause, no XOFF afterwards");
    }

    #[test]
    fn several_priorities_changing_together_share_one_frame() {
        let mut tx = PfcInitiator::new(LinkSpeed::G10, SRC, 0xff);
        tx.set_xoff(0, true);
        tx.set_xoff(7, true);
        let f = pfc(tx.poll(Picos::ZERO));
        assert_eq!(f.enable, 0x81);
        assert_eq!(tx.counters.pfc_requests, 1);
    }

    #[test]
    fn xoff_on_a_priority_without_pfc_sends_nothing() {
        let mut tx = PfcInitiator::new(LinkSpeed::G10, SRC, 0x08);
        tx.set_xoff(2, true);
        assert_eq!(tx.poll(Picos::ZERO), None);
    }

    #[test]
    fn link_pause_mode_uses_priority_0_request_and_pause_frames() {
        let mut tx = PfcInitiator::new(LinkSpeed::G10, SRC, 0).with_quanta(200, 100);
        tx.set_xoff(0, true);
        match tx.poll(Picos::ZERO) {
            Some(MacControl::Pause(p)) => assert_eq!(p.pause_time, 200),
            other => panic!("expected PAUSE, got {other:?}"),
        }
        tx.set_xoff(0, false);
        match tx.poll(Picos::from_ns(10)) {
            Some(MacControl::Pause(p)) => assert_eq!(p.pause_time, 0),
            other => panic!("expected PAUSE 0, got {other:?}"),
        }
        assert_eq!(tx.counters.pause_frames_sent, 2);
        assert_eq!(tx.counters.pfc_requests, 0);
    }
}
