use super::*;

const MS: Picos = Picos::from_ms(1);

/// A peer refreshing a pause of `quanta_time` every `every`, from `from` to `to`.
fn storm(w: &mut Watchdog, class: usize, from: Picos, to: Picos, every: Picos, hold: Picos) {
    let mut t = from;
    while t < to {
        w.pause_received(t, class, t + hold);
        t += every;
    }
}

fn detections(events: &[Event]) -> Vec<(usize, Picos)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::StormDetected { class, at, .. } => Some((*class, *at)),
            Event::Restored { .. } => None,
        })
        .collect()
}

#[test]
fn a_priority_held_with_frames_waiting_is_a_storm_exactly_at_the_detection_time() {
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 3);
    // A pause of 3.4 ms refreshed every millisecond from 5 ms on: held without a break.
    storm(&mut w, 3, MS * 5, MS * 400, MS, Picos::from_us(3_400));
    assert_eq!(w.next_deadline(), Some(MS * 205));
    assert!(w.poll(MS * 204).is_empty(), "not before the detection time");
    let events = w.poll(MS * 205);
    assert_eq!(detections(&events), vec![(3, MS * 205)]);
    assert_eq!(w.status(3), ClassStatus::Stormed { since: MS * 205, held_since: MS * 5 });
    assert!(w.drops(3) && !w.honours_pause(3), "drop: pauses ignored, frames discarded");
    for n in (0..PRIORITIES).filter(|n| *n != 3) {
        assert!(w.honours_pause(n) && !w.drops(n), "priority {n} untouched");
        assert_eq!(w.status(n), ClassStatus::Operational);
    }
    assert_eq!(w.counters(3).storms_detected, 1);
    assert_eq!(w.counters(3).last_storm_start, Some(MS * 205));
}

#[test]
fn a_late_wake_reports_the_time_the_storm_was_due() {
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 3);
    storm(&mut w, 3, Picos::ZERO, MS * 400, MS, Picos::from_us(3_400));
    let events = w.poll(MS * 250);
    assert_eq!(detections(&events), vec![(3, MS * 200)]);
}

#[test]
fn pauses_that_let_frames_through_or_lapse_or_hold_nothing_are_no_storm() {
    // Frames leave between pauses: congestion, not a storm.
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 3);
    storm(&mut w, 3, Picos::ZERO, MS * 400, MS, Picos::from_us(3_400));
    for t in (0..400).step_by(150) {
        w.frame_sent(MS * t, 3);
    }
    assert!(w.poll(MS * 399).is_empty(), "a frame left every 150 ms");
    // Each pause runs out before the next: the class is released between them.
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 3);
    storm(&mut w, 3, Picos::ZERO, MS * 400, MS * 2, MS);
    assert_eq!(w.next_deadline(), None);
    assert!(w.poll(MS * 400).is_empty(), "released for 1 ms in every 2");
    // Paused for good, but nothing waits for the priority.
    let mut w = Watchdog::default();
    storm(&mut w, 3, Picos::ZERO, MS * 400, MS, Picos::from_us(3_400));
    assert!(w.poll(MS * 400).is_empty(), "nothing held");
    // Frames begin to wait mid-storm: the hold starts then.
    w.waiting(MS * 300, 1 << 3);
    storm(&mut w, 3, MS * 400, MS * 600, MS, Picos::from_us(3_400));
    assert_eq!(detections(&w.poll(MS * 600)), vec![(3, MS * 500)]);
}

#[test]
fn restoration_comes_the_restoration_time_after_the_last_pause() {
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 3);
    storm(&mut w, 3, Picos::ZERO, MS * 1000, MS, Picos::from_us(3_400));
    assert_eq!(detections(&w.poll(MS * 200)), vec![(3, MS * 200)]);
    // The storm goes on (its pauses are still received, though ignored): no restoration.
    assert!(w.poll(MS * 1000).is_empty());
    w.count_dropped(3, 7);
    assert_eq!(w.next_deadline(), Some(MS * 999 + MS * 200));
    let events = w.poll(MS * 1199);
    assert_eq!(events, vec![Event::Restored { class: 3, at: MS * 1199, storm_began: MS * 200 }]);
    assert!(w.honours_pause(3) && !w.drops(3));
    let c = w.counters(3);
    assert_eq!((c.storms_detected, c.restorations, c.frames_dropped), (1, 1, 7));
    assert_eq!(c.last_storm_end, Some(MS * 1199));
}

#[test]
fn each_action_does_what_it_says() {
    for action in Action::ALL {
        let mut config = [ClassConfig::default(); CLASSES];
        config[3].action = action;
        let mut w = Watchdog::new(config);
        w.waiting(Picos::ZERO, 1 << 3);
        storm(&mut w, 3, Picos::ZERO, MS * 300, MS, Picos::from_us(3_400));
        assert_eq!(detections(&w.poll(MS * 300)).len(), 1, "{action:?}");
        let (honours, drops) = match action {
            Action::Drop => (false, true),
            Action::Forward => (false, false),
            Action::Alert => (true, false),
        };
        assert_eq!((w.honours_pause(3), w.drops(3)), (honours, drops), "{action:?}");
    }
}

#[test]
fn an_802_3x_pause_storm_is_the_whole_link_s() {
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 0);
    storm(&mut w, LINK_PAUSE, Picos::ZERO, MS * 300, MS, Picos::from_us(3_400));
    assert_eq!(detections(&w.poll(MS * 300)), vec![(LINK_PAUSE, MS * 200)]);
    assert_eq!(w.honoured(), 0, "every priority's pauses are ignored");
    assert!((0..PRIORITIES).all(|n| w.drops(n)));
    w.count_dropped(5, 2);
    assert_eq!(w.counters(LINK_PAUSE).frames_dropped, 2);
}

#[test]
fn a_disabled_class_is_never_a_storm_and_disabling_ends_one() {
    let mut config = [ClassConfig::default(); CLASSES];
    config[3].enabled = false;
    let mut w = Watchdog::new(config);
    w.waiting(Picos::ZERO, 1 << 3);
    storm(&mut w, 3, Picos::ZERO, MS * 300, MS, Picos::from_us(3_400));
    assert!(w.poll(MS * 300).is_empty());
    let events = w.configure(MS * 300, [ClassConfig::default(); CLASSES]);
    assert!(events.is_empty());
    storm(&mut w, 3, MS * 300, MS * 600, MS, Picos::from_us(3_400));
    assert_eq!(detections(&w.poll(MS * 600)).len(), 1, "enabled, the hold counts");
    let events = w.configure(MS * 600, config);
    assert!(matches!(events[..], [Event::Restored { class: 3, .. }]));
    assert!(w.honours_pause(3));
}

#[test]
fn a_zero_quanta_pause_releases_the_hold() {
    let mut w = Watchdog::default();
    w.waiting(Picos::ZERO, 1 << 3);
    storm(&mut w, 3, Picos::ZERO, MS * 150, MS, Picos::from_us(3_400));
    w.pause_received(MS * 150, 3, MS * 150);
    storm(&mut w, 3, MS * 151, MS * 400, MS, Picos::from_us(3_400));
    assert_eq!(w.next_deadline(), Some(MS * 351), "the hold began again after the XON");
}

#[test]
fn after_the_time_starts_again_an_old_pause_holds_nothing() {
    let mut w = Watchdog::default();
    let late = Picos::from_ms(8_640_000_000);
    w.pause_received(late, 3, late + Picos::from_us(3_400));
    w.restart_time();
    w.waiting(Picos::ZERO, 1 << 3);
    assert_eq!(w.next_deadline(), None, "the old time's pause is forgotten");
    storm(&mut w, 3, Picos::ZERO, MS * 300, MS, Picos::from_us(3_400));
    assert_eq!(detections(&w.poll(MS * 300)), vec![(3, MS * 200)], "new pauses count");
}
