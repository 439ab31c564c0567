//! Station B's side of a PFC storm: the bridge's frames toward B's link partner per priority
//! ([`Egress`]), B's PFC watchdog over them, and the peer (station A) that storms: holds
//! priorities paused, or the whole link with 802.3x PAUSE, for as long as it is told to.
//!
//! The watchdog is told each input at the simulated time it happens and woken at its own
//! deadline (an event of the run), so a storm is found exactly at detection time after the
//! hold began, not at the next look.

use super::{Event, TwoStation, A_ADDR};
use crate::mac::{PfcInitiator, RxOutcome};
use crate::sim::egress::{Egress, EgressConfig};

use crate::time::Picos;
use crate::watchdog::{self, Watchdog, WatchdogSetup, CLASSES, LINK_PAUSE};
use crate::wire::{MacControl, PRIORITIES};

/// What B's transmit side keeps for the watchdog and the storm.
#[derive(Debug)]
pub(super) struct Watch {
    egress: Option<Egress>,
    watchdog: Option<Watchdog>,
    ignore_link_pause: bool,
    /// The waiting priorities as last told to the watchdog.
    told_waiting: u8,
    events: Vec<watchdog::Event>,
    /// The pending watchdog and egress wake-ups, so that each time is scheduled once.
    watchdog_wake: Option<Picos>,
    egress_wake: Option<Picos>,
    /// The peer's storm initiators: PFC (every priority may be held) and 802.3x PAUSE.
    storm_pfc: PfcInitiator,
    storm_link: PfcInitiator,
    /// When each class's storm first held B, since it was asked for.
    took_hold: [Option<Picos>; CLASSES],
}

impl Watch {
    pub(super) fn new(speed: crate::time::LinkSpeed) -> Self {
        Watch {
            egress: None,
            watchdog: None,
            ignore_link_pause: false,
            told_waiting: 0,
            events: Vec::new(),
            watchdog_wake: None,
            egress_wake: None,
            storm_pfc: PfcInitiator::new(speed, A_ADDR, 0xff),
            storm_link: PfcInitiator::new(speed, A_ADDR, 0),
            took_hold: [None; CLASSES],
        }
    }

    /// B's watchdog counters start again (clear-pfc-counters), as the bridge's do.
    pub(super) fn clear_counters(&mut self) {
        if let Some(w) = self.watchdog.as_mut() {
            w.clear_counters();
        }
    }

    fn storming(&self, class: usize) -> bool {
        if class == LINK_PAUSE {
            self.storm_link.xoff() & 1 != 0
        } else {
            self.storm_pfc.xoff() & (1 << class) != 0
        }
    }
}

impl TwoStation {
    /// The bridge sends toward B's link partner on `config`'s priorities (instead of the
    /// reverse traffic of the configuration), from now on.
    pub fn set_egress(&mut self, config: EgressConfig) {
        let now = self.now;
        self.watch.egress = Some(Egress::new(config, now));
        self.events.schedule(now, Event::BTxFree);
    }

    /// B's PFC watchdog with `setup` (a change of a class's settings ends its storm), or none.
    pub fn set_watchdog(&mut self, setup: Option<WatchdogSetup>) {
        let now = self.now;
        let w = &mut self.watch;
        match (setup, w.watchdog.as_mut()) {
            (None, _) => {
                // Every storm ends with the watchdog.
                if let Some(wd) = w.watchdog.as_mut() {
                    let mut off = [wd.config(0); CLASSES];
                    for (n, c) in off.iter_mut().enumerate() {
                        *c = wd.config(n);
                        c.enabled = false;
                    }
                    w.events.extend(wd.configure(now, off));
                }
                w.watchdog = None;
                w.ignore_link_pause = false;
            }
            (Some(s), Some(wd)) => {
                w.events.extend(wd.configure(now, s.classes));
                w.ignore_link_pause = s.ignore_link_pause;
            }
            (Some(s), None) => {
                let mut wd = Watchdog::new(s.classes);
                wd.waiting(now, w.told_waiting);
                w.watchdog = Some(wd);
                w.ignore_link_pause = s.ignore_link_pause;
            }
        }
        self.watch_schedule(now);
        self.events.schedule(now, Event::BTxFree);
    }

    /// The peer (A) holds these priorities paused (bit n = priority n) and, with `link_pause`,
    /// the whole link with 802.3x PAUSE, refreshing its pauses until told otherwise; a class
    /// it stops holding is released at once (a pause of zero quanta).
    pub fn set_peer_storm(&mut self, priorities: u8, link_pause: bool) {
        let w = &mut self.watch;
        for n in 0..PRIORITIES {
            let on = priorities & (1 << n) != 0;
            if !on {
                w.took_hold[n] = None;
            }
            w.storm_pfc.set_xoff(n, on);
        }
        if !link_pause {
            w.took_hold[LINK_PAUSE] = None;
        }
        w.storm_link.set_xoff(0, link_pause);
        let now = self.now;
        self.events.schedule(now, Event::ATxFree);
    }

    /// When the peer's storm of `class` (a priority, or [`LINK_PAUSE`]) first held B: its
    /// first pause applied at B since the storm was asked for.
    pub fn peer_storm_began(&self, class: usize) -> Option<Picos> {
        self.watch.took_hold.get(class).copied().flatten()
    }

    /// B's watchdog, if it runs.
    pub fn watchdog(&self) -> Option<&Watchdog> {
        self.watch.watchdog.as_ref()
    }

    /// The watchdog's detections and restorations since the last call, each at its time.
    pub fn take_watchdog_events(&mut self) -> Vec<watchdog::Event> {
        std::mem::take(&mut self.watch.events)
    }

    /// Whether B's transmission selection holds priority `n`: its MAC is paused for it and the
    /// watchdog honours the pause.
    pub fn b_paused(&self, now: Picos, n: usize) -> bool {
        let honoured = self.watch.watchdog.as_ref().is_none_or(|wd| wd.honours_pause(n));
        self.b_rx.priority_paused(now, n) && honoured
    }

    /// Frames of priority `n` waiting to leave B toward A.
    pub fn b_queued(&self, n: usize) -> u64 {
        self.watch.egress.as_ref().map_or(0, |e| e.queued(n))
    }

    /// The peer's pause storm frames, after A's own control frames: the next to send.
    pub(super) fn storm_poll(&mut self, now: Picos) -> Option<MacControl> {
        let w = &mut self.watch;
        w.storm_pfc.poll(now).or_else(|| w.storm_link.poll(now))
    }

    /// When the peer must wake to refresh its storm.
    pub(super) fn storm_refresh(&self, now: Picos) -> Option<Picos> {
        let w = &self.watch;
        [w.storm_pfc.next_refresh(now), w.storm_link.next_refresh(now)].into_iter().flatten().min()
    }

    /// A MAC Control frame applied at B: the MAC's timers, the watchdog told.
    pub(super) fn b_apply_pause(&mut self, now: Picos, frame: &MacControl) {
        if matches!(frame, MacControl::Pause(_)) && self.watch.ignore_link_pause {
            self.b_rx.counters.pause_frames_ignored += 1;
            return;
        }
        let tx_idle = self.b_to_a.idle_at();
        let outcome = self.b_rx.receive(now, frame, tx_idle);
        self.egress_catch_up(now);
        let held: Vec<usize> = match outcome {
            RxOutcome::PfcApplied { priorities } => {
                (0..PRIORITIES).filter(|n| priorities & (1 << n) != 0).collect()
            }
            RxOutcome::LinkPauseApplied => vec![LINK_PAUSE],
            _ => Vec::new(),
        };
        for class in held {
            let until = self.b_rx.paused_until(class % PRIORITIES);
            let w = &mut self.watch;
            if until > now && w.storming(class) && w.took_hold[class].is_none() {
                w.took_hold[class] = Some(now);
            }
            if let Some(wd) = w.watchdog.as_mut() {
                wd.pause_received(now, class, until);
            }
        }
        self.watch_schedule(now);
    }

    /// B's transmitter with the bridge's egress: the next frame of a priority that may send.
    /// Returns false without egress (the configuration's reverse traffic then runs).
    pub(super) fn b_egress_send(&mut self, now: Picos) -> bool {
        if self.watch.egress.is_none() {
            return false;
        }
        self.egress_catch_up(now);
        let may =
            (0..PRIORITIES).filter(|n| !self.b_paused(now, *n)).fold(0u8, |v, n| v | (1 << n));
        let w = &mut self.watch;
        let Some(egress) = w.egress.as_mut() else { return false };
        let len = self.cfg.reverse_frame_len.unwrap_or(self.cfg.frame_len);
        if let Some(n) = egress.take(may) {
            let waiting = egress.waiting();
            if let Some(wd) = w.watchdog.as_mut() {
                wd.frame_sent(now, n);
                wd.waiting(now, waiting);
            }
            w.told_waiting = waiting;
            self.report.reverse_frames_sent += 1;
            // A reads only B's MAC Control frames: the data takes the wire's time, no arrival.
            let end = self.b_to_a.transmit_unread(now, u64::from(len));
            self.b_sent(end);
        } else {
            // Wake for the next frame that may leave: one arriving, or a pause ending.
            let arrival = egress.next_arrival(may);
            let resume = self.b_rx.next_resume(now);
            if let Some(at) = [arrival, resume].into_iter().flatten().min() {
                if w.egress_wake != Some(at) {
                    w.egress_wake = Some(at);
                    self.events.schedule(at, Event::BTxFree);
                }
            }
            self.wake_for_refresh(now);
        }
        self.watch_schedule(now);
        true
    }

    /// The watchdog's deadline came: detections and restorations, and their actions.
    pub(super) fn watchdog_due(&mut self, now: Picos) {
        self.egress_catch_up(now);
        let w = &mut self.watch;
        let Some(wd) = w.watchdog.as_mut() else { return };
        let found = wd.poll(now);
        for e in &found {
            if let watchdog::Event::StormDetected {
                class, action: watchdog::Action::Drop, ..
            } = e
            {
                // The stormed class's queued frames go: all of them for the link pause.
                let classes = if *class == LINK_PAUSE { 0..PRIORITIES } else { *class..*class + 1 };
                if let Some(egress) = w.egress.as_mut() {
                    for n in classes {
                        let dropped = egress.discard(n);
                        wd.count_dropped(n, dropped);
                    }
                    w.told_waiting = egress.waiting();
                    wd.waiting(now, w.told_waiting);
                }
            }
        }
        w.events.extend(found);
        self.events.schedule(now, Event::BTxFree);
        self.watch_schedule(now);
    }

    /// Brings the egress queues up to `now`, telling the watchdog when a queue stopped being
    /// empty (at the frame's arrival time) and counting what a dropping class discards.
    fn egress_catch_up(&mut self, now: Picos) {
        let w = &mut self.watch;
        let Some(egress) = w.egress.as_mut() else { return };
        let mut first: Vec<(Picos, usize)> = Vec::new();
        for n in 0..PRIORITIES {
            let drops = w.watchdog.as_ref().is_some_and(|wd| wd.drops(n));
            let arrived = egress.arrive(n, now, drops);
            if drops && arrived.frames > 0 {
                if let Some(wd) = w.watchdog.as_mut() {
                    wd.count_dropped(n, arrived.frames);
                }
            }
            if let Some(at) = arrived.first_into_empty {
                first.push((at, n));
            }
        }
        first.sort();
        for (at, n) in first {
            w.told_waiting |= 1 << n;
            if let Some(wd) = w.watchdog.as_mut() {
                wd.waiting(at, w.told_waiting);
            }
        }
    }

    /// Schedules the watchdog's next deadline, once per time.
    fn watch_schedule(&mut self, now: Picos) {
        let Some(at) = self.watch.watchdog.as_ref().and_then(Watchdog::next_deadline) else {
            return;
        };
        let at = at.max(now);
        if self.watch.watchdog_wake != Some(at) {
            self.watch.watchdog_wake = Some(at);
            self.events.schedule(at, Event::WatchdogDue);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::TwoStationConfig;
    use crate::watchdog::{Action, ClassConfig, ClassStatus};

    /// A 10G link whose bridge sends toward the peer on every priority, B's watchdog at 10 ms
    /// detection and restoration with `action`.
    fn stations(action: Action) -> TwoStation {
        let mut cfg = TwoStationConfig::annex_n(126_224 + 64, 5);
        cfg.duration = Picos::MAX;
        let mut s = TwoStation::new(cfg);
        s.set_pfc_enable(0b1000);
        s.start();
        let interval = s.config().speed.frame_time(2000) * 16;
        s.set_egress(EgressConfig { priorities: 0xff, interval, limit: 64 });
        let class = ClassConfig {
            enabled: true,
            detection: Picos::from_ms(10),
            restoration: Picos::from_ms(10),
            action,
        };
        s.set_watchdog(Some(WatchdogSetup { classes: [class; CLASSES], ignore_link_pause: false }));
        s.advance_to(Picos::from_ms(1));
        s
    }

    #[test]
    fn a_peer_storm_is_found_at_detection_time_and_dropped_until_it_ends() {
        let mut s = stations(Action::Drop);
        s.set_peer_storm(0b1000, false);
        s.advance_to(Picos::from_ms(30));
        // The hold begins at the first frame of priority 3 to wait (one every 26 us).
        let began = s.peer_storm_began(3).expect("the storm held B");
        let events = s.take_watchdog_events();
        let [watchdog::Event::StormDetected { class: 3, at, held_since, action: Action::Drop }] =
            events[..]
        else {
            panic!("one storm on priority 3: {events:?}")
        };
        assert!(
            held_since >= began && held_since - began < Picos::from_us(30),
            "{held_since} {began}"
        );
        assert_eq!(at, held_since + Picos::from_ms(10), "found at detection time exactly");
        let wd = s.watchdog().expect("runs");
        let dropped = wd.counters(3).frames_dropped;
        assert!(dropped > 100, "20 ms of priority 3 dropped: {dropped}");
        assert!(!s.b_paused(s.now(), 3), "priority 3's pauses are ignored");
        for n in (0..PRIORITIES).filter(|n| *n != 3) {
            assert_eq!(wd.status(n), ClassStatus::Operational, "priority {n}");
            assert_eq!(wd.counters(n).frames_dropped, 0, "priority {n}");
        }
        assert_eq!(wd.status(LINK_PAUSE), ClassStatus::Operational);

        s.set_peer_storm(0, false);
        let ended = s.now();
        s.advance_to(Picos::from_ms(50));
        let events = s.take_watchdog_events();
        let [watchdog::Event::Restored { class: 3, at: restored, .. }] = events[..] else {
            panic!("restored: {events:?}")
        };
        assert!(restored > ended && restored <= ended + Picos::from_ms(10), "{restored}");
        let wd = s.watchdog().expect("runs");
        let dropped_after = wd.counters(3).frames_dropped;
        s.advance_to(Picos::from_ms(60));
        assert_eq!(s.watchdog().expect("runs").counters(3).frames_dropped, dropped_after);
    }

    #[test]
    fn forward_sends_through_the_storm_and_alert_stays_paused() {
        let mut s = stations(Action::Forward);
        s.set_peer_storm(0b1000, false);
        s.advance_to(Picos::from_ms(30));
        assert!(s.peer_storm_began(3).is_some());
        assert!(matches!(s.watchdog().expect("runs").status(3), ClassStatus::Stormed { .. }));
        assert!(!s.b_paused(s.now(), 3));
        assert!(s.b_queued(3) < 4, "priority 3 leaves: {}", s.b_queued(3));
        assert_eq!(s.watchdog().expect("runs").counters(3).frames_dropped, 0);

        let mut s = stations(Action::Alert);
        s.set_peer_storm(0b1000, false);
        s.advance_to(Picos::from_ms(30));
        assert!(matches!(s.watchdog().expect("runs").status(3), ClassStatus::Stormed { .. }));
        assert!(s.b_paused(s.now(), 3), "alert only reports");
        assert_eq!(s.b_queued(3), 64, "priority 3 waits");
    }

    #[test]
    fn a_link_pause_storm_is_its_own_class_and_can_be_ignored() {
        let mut s = stations(Action::Drop);
        s.set_pfc_enable(0);
        s.set_peer_storm(0, true);
        s.advance_to(Picos::from_ms(30));
        let wd = s.watchdog().expect("runs");
        assert!(matches!(wd.status(LINK_PAUSE), ClassStatus::Stormed { .. }));
        assert_eq!(wd.status(3), ClassStatus::Operational);
        assert!(s.peer_storm_began(LINK_PAUSE).is_some());

        let mut s = stations(Action::Drop);
        s.set_pfc_enable(0);
        s.set_watchdog(Some(WatchdogSetup { ignore_link_pause: true, ..WatchdogSetup::default() }));
        s.set_peer_storm(0, true);
        s.advance_to(Picos::from_ms(30));
        assert!(!s.b_paused(s.now(), 0), "PAUSE ignored");
        assert!(s.peer_storm_began(LINK_PAUSE).is_none());
    }
}
