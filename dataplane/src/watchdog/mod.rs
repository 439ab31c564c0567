//! The PFC watchdog: finds a peer that holds a priority (or, with 802.3x PAUSE, the whole link)
//! paused for good while frames wait for it, and stops the storm from spreading.
//!
//! A *storm* on a class is the class held paused continuously for the detection time while
//! frames of it wait to leave and none leave. On a storm the class's action applies:
//! - [`Action::Drop`]: the class's pauses are ignored and its frames toward the port, queued
//!   and arriving, are discarded (and counted), so they free the buffers they hold;
//! - [`Action::Forward`]: the class's pauses are ignored and its frames are sent;
//! - [`Action::Alert`]: nothing changes but the state and the events.
//!
//! The storm ends (*restoration*) once no pause has been received for the class for the
//! restoration time.
//!
//! Sans-I/O and event-driven, like the PFC MAC: the caller tells it what happened at what time
//! (a pause applied, frames waiting or not, a frame sent) and wakes it at
//! [`Watchdog::next_deadline`]; detection is then exact to the caller's wake-up, not to a
//! polling interval.

mod class;
#[cfg(test)]
mod tests;

use crate::time::Picos;
use crate::wire::PRIORITIES;
use class::ClassWatch;
pub use class::{ClassCounters, ClassStatus};

/// Classes watched per port: the eight priorities and the link pause (802.3x PAUSE).
pub const CLASSES: usize = PRIORITIES + 1;
/// The link-pause class's index.
pub const LINK_PAUSE: usize = PRIORITIES;

/// What the watchdog does to a stormed class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Action {
    /// Ignore the class's pauses and discard its frames toward the port.
    #[default]
    Drop,
    /// Ignore the class's pauses; frames are sent.
    Forward,
    /// Report only.
    Alert,
}

impl Action {
    pub const ALL: [Action; 3] = [Action::Drop, Action::Forward, Action::Alert];

    /// The name the configuration and the state use.
    pub fn name(self) -> &'static str {
        match self {
            Action::Drop => "drop",
            Action::Forward => "forward",
            Action::Alert => "alert",
        }
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// One class's watchdog settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassConfig {
    pub enabled: bool,
    /// How long the class must be held paused, frames waiting and none leaving.
    pub detection: Picos,
    /// How long without a pause received before a stormed class is restored.
    pub restoration: Picos,
    pub action: Action,
}

impl Default for ClassConfig {
    /// 200 ms / 200 ms / drop: SONiC's `pfcwd` defaults. A lossless class held paused for
    /// 200 ms while frames wait is far past any legitimate congestion (one pause is at most
    /// 65 535 quanta, 3.4 ms at 10 Gb/s, and a receiver that drains keeps releasing), and
    /// dropping is the only action that frees the buffers the held frames occupy upstream.
    fn default() -> Self {
        ClassConfig {
            enabled: true,
            detection: Picos::from_ms(200),
            restoration: Picos::from_ms(200),
            action: Action::Drop,
        }
    }
}

/// A port's watchdog settings: each class's, and whether 802.3x PAUSE is ignored outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WatchdogSetup {
    pub classes: [ClassConfig; CLASSES],
    /// PAUSE frames are counted and otherwise ignored (a port with PFC off then never stops
    /// for its peer).
    pub ignore_link_pause: bool,
}

/// Something the watchdog found, with the time it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// `class` has been held paused for the detection time since `held_since`.
    StormDetected { class: usize, at: Picos, held_since: Picos, action: Action },
    /// `class` has had no pause for the restoration time; the storm began at `storm_began`.
    Restored { class: usize, at: Picos, storm_began: Picos },
}

/// One port's watchdog: each priority and the link pause.
#[derive(Debug, Clone)]
pub struct Watchdog {
    classes: [ClassWatch; CLASSES],
}

impl Default for Watchdog {
    fn default() -> Self {
        Watchdog::new([ClassConfig::default(); CLASSES])
    }
}

impl Watchdog {
    pub fn new(config: [ClassConfig; CLASSES]) -> Self {
        Watchdog { classes: config.map(ClassWatch::new) }
    }

    /// New settings. A class that is no longer enabled, or whose action changed, leaves its
    /// storm (restored at `now`, reported in the returned events).
    pub fn configure(&mut self, now: Picos, config: [ClassConfig; CLASSES]) -> Vec<Event> {
        let mut events = Vec::new();
        for (n, (c, cfg)) in self.classes.iter_mut().zip(config).enumerate() {
            events.extend(c.configure(n, now, cfg));
        }
        events
    }

    pub fn config(&self, class: usize) -> ClassConfig {
        self.classes[class % CLASSES].config
    }

    /// A pause for `class` was received and applied at `now`, holding it until `until` (at or
    /// before `now` for a pause of zero quanta, which releases it). For 802.3x PAUSE pass
    /// [`LINK_PAUSE`].
    pub fn pause_received(&mut self, now: Picos, class: usize, until: Picos) {
        if let Some(c) = self.classes.get_mut(class) {
            c.pause_received(now, until);
        }
    }

    /// Which classes have frames waiting to leave toward the port (bit n = priority n), as of
    /// `now`; the link-pause class waits when any does.
    pub fn waiting(&mut self, now: Picos, waiting: u8) {
        for (n, c) in self.classes.iter_mut().enumerate().take(PRIORITIES) {
            c.waiting(now, waiting & (1 << n) != 0);
        }
        self.classes[LINK_PAUSE].waiting(now, waiting != 0);
    }

    /// A frame of priority `n` left toward the port at `now` (so neither it nor the link was
    /// held).
    pub fn frame_sent(&mut self, now: Picos, n: usize) {
        if let Some(c) = self.classes.get_mut(n % PRIORITIES) {
            c.frame_sent(now);
        }
        self.classes[LINK_PAUSE].frame_sent(now);
    }

    /// The next time something can happen without another input: a detection or a
    /// restoration.
    pub fn next_deadline(&self) -> Option<Picos> {
        self.classes.iter().filter_map(ClassWatch::next_deadline).min()
    }

    /// Detections and restorations due at or before `now`, each with the exact time it was
    /// due.
    pub fn poll(&mut self, now: Picos) -> Vec<Event> {
        let mut events = Vec::new();
        for (n, c) in self.classes.iter_mut().enumerate() {
            // A storm found and already over (the caller woke late) gives both events.
            while let Some(e) = c.poll(n, now) {
                events.push(e);
            }
        }
        events.sort_by_key(|e| match e {
            Event::StormDetected { at, .. } | Event::Restored { at, .. } => *at,
        });
        events
    }

    /// Whether the pauses of priority `n` hold its frames: false while `n`, or the link pause,
    /// is stormed with `drop` or `forward`.
    pub fn honours_pause(&self, n: usize) -> bool {
        self.classes[n % PRIORITIES].honours_pause() && self.classes[LINK_PAUSE].honours_pause()
    }

    /// The priorities whose pauses are honoured (bit n = priority n).
    pub fn honoured(&self) -> u8 {
        (0..PRIORITIES).fold(0, |v, n| v | (u8::from(self.honours_pause(n)) << n))
    }

    /// Whether frames of priority `n` toward the port are discarded now.
    pub fn drops(&self, n: usize) -> bool {
        self.classes[n % PRIORITIES].drops() || self.classes[LINK_PAUSE].drops()
    }

    /// `frames` of priority `n` were discarded because the watchdog drops them.
    pub fn count_dropped(&mut self, n: usize, frames: u64) {
        let class = if self.classes[n % PRIORITIES].drops() { n % PRIORITIES } else { LINK_PAUSE };
        self.classes[class].counters.frames_dropped += frames;
    }

    pub fn status(&self, class: usize) -> ClassStatus {
        self.classes[class % CLASSES].status
    }

    pub fn counters(&self, class: usize) -> ClassCounters {
        self.classes[class % CLASSES].counters
    }

    /// The caller's time starts again from 0: the pauses and holds followed so far are
    /// forgotten (call it when none is running: [`Self::next_deadline`] is `None` and no pause
    /// holds a class). Settings, status and counters stay; the counters' times are the old
    /// time's.
    pub fn restart_time(&mut self) {
        for c in &mut self.classes {
            c.restart_time();
        }
    }

    /// Counters back to zero; the status stays.
    pub fn clear_counters(&mut self) {
        for c in &mut self.classes {
            c.counters = ClassCounters::default();
        }
    }
}
