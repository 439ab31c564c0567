//! One class's watchdog: the hold it is in, its status and counters.

use super::{Action, ClassConfig, Event};
use crate::time::Picos;

/// Whether a class is in a storm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClassStatus {
    #[default]
    Operational,
    /// Found at `since`, after a hold that began at `held_since`.
    Stormed { since: Picos, held_since: Picos },
}

/// What a class's watchdog has counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClassCounters {
    pub storms_detected: u64,
    pub restorations: u64,
    /// Frames discarded toward the port by the `drop` action.
    pub frames_dropped: u64,
    pub last_storm_start: Option<Picos>,
    pub last_storm_end: Option<Picos>,
}

#[derive(Debug, Clone)]
pub(super) struct ClassWatch {
    pub(super) config: ClassConfig,
    pub(super) status: ClassStatus,
    pub(super) counters: ClassCounters,
    /// When the last pause received holds the class until.
    paused_until: Picos,
    /// When the last pause (of more than zero quanta) was received.
    last_pause_at: Picos,
    /// Frames of the class wait to leave.
    waiting: bool,
    /// Since when the class has been held: paused without a break, frames waiting, none sent.
    held_since: Option<Picos>,
}

impl ClassWatch {
    pub(super) fn new(config: ClassConfig) -> Self {
        ClassWatch {
            config,
            status: ClassStatus::Operational,
            counters: ClassCounters::default(),
            paused_until: Picos::ZERO,
            last_pause_at: Picos::ZERO,
            waiting: false,
            held_since: None,
        }
    }

    fn paused(&self, now: Picos) -> bool {
        now < self.paused_until
    }

    pub(super) fn configure(&mut self, n: usize, now: Picos, config: ClassConfig) -> Option<Event> {
        let old = std::mem::replace(&mut self.config, config);
        let leaves = !config.enabled || config.action != old.action;
        match self.status {
            ClassStatus::Stormed { .. } if leaves => Some(self.restore(n, now)),
            _ => None,
        }
    }

    pub(super) fn restart_time(&mut self) {
        self.paused_until = Picos::ZERO;
        self.last_pause_at = Picos::ZERO;
        self.held_since = None;
    }

    pub(super) fn pause_received(&mut self, now: Picos, until: Picos) {
        if until <= now {
            // Zero quanta: the class is released.
            self.paused_until = self.paused_until.min(now);
            self.held_since = None;
            return;
        }
        self.last_pause_at = now;
        // A pause that comes after the last one ran out starts a new hold; one that comes
        // before it ran out continues it.
        if now > self.paused_until {
            self.held_since = None;
        }
        self.paused_until = until;
        if self.waiting && self.held_since.is_none() {
            self.held_since = Some(now);
        }
    }

    pub(super) fn waiting(&mut self, now: Picos, waiting: bool) {
        if !waiting {
            self.held_since = None;
        } else if self.held_since.is_none() && self.paused(now) {
            self.held_since = Some(now);
        }
        self.waiting = waiting;
    }

    pub(super) fn frame_sent(&mut self, now: Picos) {
        self.held_since = (self.waiting && self.paused(now)).then_some(now);
    }

    /// When the hold becomes a storm: its start plus the detection time, if the pauses
    /// received so far hold the class that long.
    fn detection_due(&self) -> Option<Picos> {
        let due = self.held_since? + self.config.detection;
        (self.config.enabled && self.paused_until >= due).then_some(due)
    }

    fn restoration_due(&self) -> Picos {
        self.last_pause_at + self.config.restoration
    }

    pub(super) fn next_deadline(&self) -> Option<Picos> {
        match self.status {
            ClassStatus::Operational => self.detection_due(),
            ClassStatus::Stormed { .. } => Some(self.restoration_due()),
        }
    }

    pub(super) fn poll(&mut self, n: usize, now: Picos) -> Option<Event> {
        match self.status {
            ClassStatus::Operational => {
                let at = self.detection_due().filter(|due| *due <= now)?;
                let held_since = self.held_since.unwrap_or(at);
                self.status = ClassStatus::Stormed { since: at, held_since };
                self.counters.storms_detected += 1;
                self.counters.last_storm_start = Some(at);
                Some(Event::StormDetected { class: n, at, held_since, action: self.config.action })
            }
            ClassStatus::Stormed { .. } => {
                let at = self.restoration_due();
                (at <= now).then(|| self.restore(n, at))
            }
        }
    }

    fn restore(&mut self, n: usize, at: Picos) -> Event {
        let storm_began = match self.status {
            ClassStatus::Stormed { since, .. } => since,
            ClassStatus::Operational => at,
        };
        self.status = ClassStatus::Operational;
        self.counters.restorations += 1;
        self.counters.last_storm_end = Some(at);
        // A pause still running holds the class anew from here.
        self.held_since = (self.waiting && self.paused(at)).then_some(at);
        Event::Restored { class: n, at, storm_began }
    }

    pub(super) fn honours_pause(&self) -> bool {
        !matches!(
            (self.status, self.config.action),
            (ClassStatus::Stormed { .. }, Action::Drop | Action::Forward)
        )
    }

    pub(super) fn drops(&self) -> bool {
        matches!((self.status, self.config.action), (ClassStatus::Stormed { .. }, Action::Drop))
    }
}
