//! The PFC watchdog on the lab's simulated ports, against the running lab over NETCONF: a
//! peer storms priority 3 (pfcd-lab's `peer-storms`); for each action the watchdog fires at its
//! detection time (within 1 ms of simulated time, read from the lab's storm start and the
//! watchdog's last storm start), applies the action, raises both notifications, leaves the
//! other priorities and the other port untouched, and restores once the storm ends. Then the
//! same with an 802.3x PAUSE storm on a port with PFC off.

use std::time::{Duration, Instant};

use netconf_client::{Client, Datastore};
use test_support::lab::LabPfcd;
use test_support::pfcd::{
    commit_pfc, commit_watchdog, pfc_action, pfc_of, priority, value, watchdog_class, watchdog_of,
};

const LAB_NS: &str = pfc_yang_names::pfcd_lab::NAMESPACE;
/// Simulated seconds per wall-clock second: 20 ms of detection take a second.
const RATIO: f64 = 0.02;
const DETECTION_MS: u64 = 20;
const RESTORATION_MS: u64 = 20;
/// lab1's peer holds priority 0 paused for good (the lab's "peer pauses us" link): a storm of
/// its own, which its watchdog finds too.
const LAB1_OWN_STORM: &[&str] = &["0"];

fn storm(c: &mut Client, port: &str, class: &str, delete: bool) {
    let op = if delete {
        " xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\" nc:operation=\"delete\""
    } else {
        ""
    };
    let edit = format!(
        "<peer-storms xmlns=\"{LAB_NS}\"><storm{op}><port>{port}</port><class>{class}</class>\
         </storm></peer-storms>"
    );
    c.edit_config(Datastore::Candidate, &edit, None).expect("edit-config");
    c.commit().expect("commit");
}

fn count(class: &str, leaf: &str) -> u64 {
    value(class, leaf).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{leaf} in {class}"))
}

/// Waits until class `name` of `port`'s watchdog satisfies `ready`; returns its entry.
fn wait_class(c: &mut Client, port: &str, name: &str, ready: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let class = watchdog_class(&watchdog_of(c, port), name);
        if ready(&class) {
            return class;
        }
        assert!(Instant::now() < end, "{port} class {name}: {class}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// RFC 3339 with microseconds, UTC (as pfcd writes it) into microseconds of the day.
fn micros_of_day(t: &str) -> i64 {
    let time = t.split('T').nth(1).expect("a time").trim_end_matches('Z');
    let mut parts = time.split(':');
    let h: i64 = parts.next().and_then(|v| v.parse().ok()).expect("hours");
    let m: i64 = parts.next().and_then(|v| v.parse().ok()).expect("minutes");
    let s: f64 = parts.next().and_then(|v| v.parse().ok()).expect("seconds");
    (h * 3600 + m * 60) * 1_000_000 + (s * 1e6).round() as i64
}

/// The storm's start as the lab reports it for `port`'s `class`.
fn storm_began(c: &mut Client, port: &str, class: &str) -> String {
    let filter = format!("<lab xmlns=\"{LAB_NS}\"><port><name>{port}</name></port></lab>");
    let data = c.get(Some(&filter)).expect("get").data().unwrap_or_default().to_string();
    let tag = format!("<class>{class}</class>");
    let at = data.find(&tag).unwrap_or_else(|| panic!("peer-storm {class} in {data}"));
    value(&data[at..], "began").unwrap_or_else(|| panic!("began in {data}"))
}

/// Notifications until both `storm-detected` and `storm-restored` of `port`'s `class` came.
fn wait_notifications(sub: &mut Client, port: &str, class: &str) {
    let (mut detected, mut restored) = (false, false);
    let end = Instant::now() + Duration::from_secs(30);
    while !(detected && restored) {
        assert!(Instant::now() < end, "detected {detected}, restored {restored}");
        let Some(n) = sub.next_notification(Duration::from_secs(1)).expect("notification") else {
            continue;
        };
        let ours = n.contains(&format!("<interface>{port}</interface>"))
            && n.contains(&format!("<class>{class}</class>"));
        detected |= ours && n.contains("storm-detected");
        restored |= ours && n.contains("storm-restored");
    }
}

/// The detection's delay after the storm began, in simulated microseconds.
fn detection_delay_us(began: &str, detected: &str) -> f64 {
    (micros_of_day(detected) - micros_of_day(began)) as f64 * RATIO
}

fn assert_within_detection(began: &str, detected: &str) {
    let delay = detection_delay_us(began, detected);
    let ms = DETECTION_MS as f64 * 1000.0;
    assert!(
        delay >= ms - 1.0 && delay <= ms + 1000.0,
        "found {delay} us (simulated) after the storm began at {began} ({detected})"
    );
}

/// Every class but `stormed` of `port` has found no storm and dropped nothing.
fn others_untouched(c: &mut Client, port: &str, stormed: &[&str]) {
    let wd = watchdog_of(c, port);
    for name in (0..8).map(|n| n.to_string()).chain(["link-pause".to_string()]) {
        if stormed.contains(&name.as_str()) {
            continue;
        }
        let class = watchdog_class(&wd, &name);
        assert_eq!(count(&class, "storms-detected"), 0, "{port} class {name}: {class}");
        assert_eq!(count(&class, "frames-dropped"), 0, "{port} class {name}: {class}");
    }
}

#[test]
fn a_peer_storm_on_priority_3_is_found_at_detection_time_and_each_action_applies() {
    let settings = format!("[lab]\ntime-ratio = {RATIO}\nports = 2\n");
    let lab = LabPfcd::start_with_settings("lab-watchdog", Some(&settings));
    let mut c = lab.client();
    let mut sub = lab.client();
    sub.create_subscription(None).expect("create-subscription");

    for (round, action) in ["drop", "forward", "alert"].into_iter().enumerate() {
        let round = round as u64 + 1;
        commit_watchdog(
            &mut c,
            &["lab0", "lab1"],
            &format!(
                "<detection-time>{DETECTION_MS}</detection-time>\
                 <restoration-time>{RESTORATION_MS}</restoration-time><action>{action}</action>"
            ),
        );
        storm(&mut c, "lab0", "3", false);
        let class = wait_class(&mut c, "lab0", "3", |c| count(c, "storms-detected") == round);
        let began = storm_began(&mut c, "lab0", "3");
        let detected = value(&class, "last-storm-start").expect("last-storm-start");
        assert_within_detection(&began, &detected);
        assert_eq!(value(&class, "status").as_deref(), Some("stormed"), "{action}: {class}");
        assert_eq!(value(&class, "action").as_deref(), Some(action), "{class}");

        let dropped_before = count(&class, "frames-dropped");
        std::thread::sleep(Duration::from_millis(500));
        let class = watchdog_class(&watchdog_of(&mut c, "lab0"), "3");
        let dropped = count(&class, "frames-dropped") - dropped_before;
        let p3 = priority(&pfc_of(&mut c, "lab0"), 3);
        let paused = value(&p3, "priority-paused");
        match action {
            "drop" => {
                assert!(dropped > 0, "drop discards priority 3's frames: {class}");
                assert_eq!(paused.as_deref(), Some("false"), "drop ignores the pauses: {p3}");
            }
            "forward" => {
                assert_eq!(dropped, 0, "forward drops nothing: {class}");
                assert_eq!(paused.as_deref(), Some("false"), "forward ignores the pauses: {p3}");
            }
            _ => {
                assert_eq!(dropped, 0, "alert drops nothing: {class}");
                assert_eq!(paused.as_deref(), Some("true"), "alert only reports: {p3}");
            }
        }
        for n in [0u8, 1, 2, 4, 5, 6, 7] {
            let p = priority(&pfc_of(&mut c, "lab0"), n);
            assert_eq!(value(&p, "priority-paused").as_deref(), Some("false"), "{n}: {p}");
        }
        others_untouched(&mut c, "lab0", &["3"]);
        others_untouched(&mut c, "lab1", LAB1_OWN_STORM);

        storm(&mut c, "lab0", "3", true);
        let class = wait_class(&mut c, "lab0", "3", |c| count(c, "restorations") == round);
        assert_eq!(value(&class, "status").as_deref(), Some("operational"), "{class}");
        assert!(value(&class, "last-storm-end").is_some(), "{class}");
        wait_notifications(&mut sub, "lab0", "3");
        let after = count(&class, "frames-dropped");
        std::thread::sleep(Duration::from_millis(300));
        let class = watchdog_class(&watchdog_of(&mut c, "lab0"), "3");
        assert_eq!(count(&class, "frames-dropped"), after, "nothing dropped after: {class}");
    }
    // The three storms each held priority 3 for at least the detection time (the PFC
    // receiver counts a pause whatever the watchdog does with it): pfcd-pfc's time-paused.
    let p3 = priority(&pfc_of(&mut c, "lab0"), 3);
    assert!(count(&p3, "time-paused") >= 3 * DETECTION_MS * 1000, "{p3}");
    // clear-pfc-counters clears the watchdog's counters and the time paused with the rest, and
    // the watchdog's discontinuity-time says when.
    let started = value(&watchdog_of(&mut c, "lab0"), "discontinuity-time").expect("started");
    let clear = pfc_action("lab0", "clear-pfc-counters");
    assert!(c.rpc(&clear).expect("clear-pfc-counters").is_ok());
    let class = wait_class(&mut c, "lab0", "3", |c| count(c, "storms-detected") == 0);
    assert_eq!(count(&class, "restorations"), 0, "{class}");
    let cleared = value(&watchdog_of(&mut c, "lab0"), "discontinuity-time").expect("cleared");
    assert!(cleared > started, "discontinuity-time moves on a clear: {started} then {cleared}");
    // At most the rest of the last pause (65 535 quanta at 100G: 336 µs) is owed.
    let p3 = priority(&pfc_of(&mut c, "lab0"), 3);
    assert!(count(&p3, "time-paused") <= 336, "{p3}");
}

#[test]
fn an_802_3x_pause_storm_is_the_link_pause_class() {
    let settings = format!("[lab]\ntime-ratio = {RATIO}\nports = 2\n");
    let lab = LabPfcd::start_with_settings("lab-watchdog-pause", Some(&settings));
    let mut c = lab.client();
    let mut sub = lab.client();
    sub.create_subscription(None).expect("create-subscription");
    commit_pfc(&mut c, &["lab0"], "<pfc-enable></pfc-enable>");
    commit_watchdog(
        &mut c,
        &["lab0", "lab1"],
        &format!(
            "<detection-time>{DETECTION_MS}</detection-time>\
             <restoration-time>{RESTORATION_MS}</restoration-time>"
        ),
    );
    storm(&mut c, "lab0", "link-pause", false);
    let class = wait_class(&mut c, "lab0", "link-pause", |c| count(c, "storms-detected") == 1);
    let began = storm_began(&mut c, "lab0", "link-pause");
    assert_within_detection(&began, &value(&class, "last-storm-start").expect("start"));
    let class = wait_class(&mut c, "lab0", "link-pause", |c| count(c, "frames-dropped") > 0);
    assert_eq!(value(&class, "status").as_deref(), Some("stormed"), "{class}");
    for n in 0u8..8 {
        let p = priority(&pfc_of(&mut c, "lab0"), n);
        assert_eq!(value(&p, "priority-paused").as_deref(), Some("false"), "drop: {n}: {p}");
    }
    others_untouched(&mut c, "lab0", &["link-pause"]);
    others_untouched(&mut c, "lab1", LAB1_OWN_STORM);
    storm(&mut c, "lab0", "link-pause", true);
    wait_class(&mut c, "lab0", "link-pause", |c| count(c, "restorations") == 1);
    wait_notifications(&mut sub, "lab0", "link-pause");
}
