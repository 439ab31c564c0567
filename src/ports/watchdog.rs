//! A port's PFC watchdog as the northbound side sees it, whatever runs it (the lab's simulated
//! port or the bridge): each class's status and counters with wall-clock times, and the events
//! between two such views (a storm found, a storm over).

use std::time::SystemTime;

use dataplane::watchdog::{Action, CLASSES};

use super::PortEvent;

/// One class (a priority, or the link pause at [`dataplane::watchdog::LINK_PAUSE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClassView {
    pub stormed: bool,
    /// The action in force.
    pub action: Action,
    pub storms_detected: u64,
    pub restorations: u64,
    pub frames_dropped: u64,
    pub last_storm_start: Option<SystemTime>,
    pub last_storm_end: Option<SystemTime>,
}

/// Every class of a port, by index.
pub type WatchdogView = [ClassView; CLASSES];

/// What happened between `before` and `now` on port `port`: each class's storm found and
/// storm over, in that order. Counters that went down (cleared) report nothing.
pub fn events(port: &str, before: &WatchdogView, now: &WatchdogView) -> Vec<PortEvent> {
    let mut events = Vec::new();
    for (class, (b, n)) in before.iter().zip(now).enumerate() {
        let found = n.storms_detected > b.storms_detected;
        if let (true, Some(at)) = (found, n.last_storm_start) {
            events.push(PortEvent::StormDetected {
                port: port.to_string(),
                class,
                action: n.action,
                at,
            });
        }
        let over = n.restorations > b.restorations;
        if let (true, Some(began), Some(at)) = (over, n.last_storm_start, n.last_storm_end) {
            events.push(PortEvent::StormRestored { port: port.to_string(), class, began, at });
        }
    }
    events
}

/// Whether some class's counter is lower in `now` than in `before`: the counters started
/// from zero again (cleared, or the watchdog switched off and on).
pub fn restarted(before: &WatchdogView, now: &WatchdogView) -> bool {
    before.iter().zip(now).any(|(b, n)| {
        n.storms_detected < b.storms_detected
            || n.restorations < b.restorations
            || n.frames_dropped < b.frames_dropped
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_storm_found_and_over_between_two_looks_gives_both_events_in_order() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let before = WatchdogView::default();
        let mut now = before;
        now[3] = ClassView {
            storms_detected: 1,
            restorations: 1,
            last_storm_start: Some(t0),
            last_storm_end: Some(t0 + Duration::from_millis(700)),
            ..ClassView::default()
        };
        let events = events("p2", &before, &now);
        assert!(matches!(
            &events[..],
            [PortEvent::StormDetected { class: 3, at, .. }, PortEvent::StormRestored { class: 3, began, .. }]
                if *at == t0 && *began == t0
        ));
        assert!(super::events("p2", &now, &before).is_empty(), "cleared counters report nothing");
    }

    #[test]
    fn counters_that_went_down_are_a_restart_and_counters_that_grew_are_not() {
        let mut before = WatchdogView::default();
        before[3].storms_detected = 2;
        before[3].frames_dropped = 100;
        let mut grew = before;
        grew[3].frames_dropped = 150;
        assert!(!restarted(&before, &grew));
        assert!(!restarted(&before, &before));
        let mut cleared = before;
        cleared[3].frames_dropped = 0;
        assert!(restarted(&before, &cleared));
        let mut restored_fewer = before;
        restored_fewer[3].storms_detected = 0;
        assert!(restarted(&before, &restored_fewer));
    }
}
