//! pfcd's PFC watchdog on real interfaces, configured and read over NETCONF:
//! h1 — p1 [pfcd] p2 — h2, h2 storms priority 3 while h1 sends it: the watchdog configured on
//! p2 finds the storm, drops priority 3 toward h2 and counts it, raises `storm-detected`, and
//! after the storm `storm-restored`; priority 3 flows again.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use test_support::hosts::*;
use test_support::netns::{can_run, wait_for};
use test_support::pfcd::*;
use test_support::Scratch;

#[test]
fn pfcd_finds_a_pfc_storm_drops_its_frames_notifies_and_restores() {
    if !can_run("pfcd_finds_a_pfc_storm_drops_its_frames_notifies_and_restores") {
        return;
    }
    let scratch = Scratch::new("pfcd-wd");
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts("pwd");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    commit_pfc(&mut c, &["p1", "p2"], "<pfc-enable>p3</pfc-enable>");
    commit_watchdog(
        &mut c,
        &["p2"],
        "<priority><priority>3</priority><detection-time>100</detection-time>\
         <restoration-time>300</restoration-time></priority>",
    );
    for port in ["p1", "p2"] {
        wait_state(&mut c, port, "PFC in force", |p| {
            value(p, "oper-pfc-enable").as_deref() == Some("p3")
        });
    }
    let wd = watchdog_of(&mut c, "p2");
    for class in ["0", "3", "7", "link-pause"] {
        let entry = watchdog_class(&wd, class);
        assert_eq!(value(&entry, "status").as_deref(), Some("operational"), "{entry}");
        assert_eq!(value(&entry, "action").as_deref(), Some("drop"), "the default: {entry}");
    }
    let mut listener = pfcd.client(&sw);
    listener.create_subscription(None).expect("subscribed");

    let (sent_after, got) = while_storm_held("pfcd-wd", || {
        let storm = Storm::start(&h2_ns);
        let start = Instant::now();
        let mut seq = 0u32;
        let mut got = Vec::new();
        while start.elapsed() < Duration::from_millis(800) {
            send(&mut h1, &data(3, seq));
            seq += 1;
            got.extend(drain(&mut h2, Duration::from_millis(2)));
            drain(&mut h1, Duration::ZERO);
        }
        let gap = storm.stop();
        // Past the restoration (300 ms after the last pause), priority 3 flows again.
        std::thread::sleep(Duration::from_millis(600));
        let after = seq;
        for _ in 0..20 {
            send(&mut h1, &data(3, seq));
            seq += 1;
        }
        got.extend(drain(&mut h2, Duration::from_millis(300)));
        (((after, seq), got), gap)
    });
    let wd = wait_for(Duration::from_secs(10), "the restoration in p2's state", || {
        let wd = watchdog_of(&mut c, "p2");
        let three = watchdog_class(&wd, "3");
        (value(&three, "restorations").as_deref() == Some("1")).then_some(wd)
    });
    let three = watchdog_class(&wd, "3");
    assert_eq!(number(&three, "storms-detected"), 1, "{three}");
    assert_eq!(value(&three, "status").as_deref(), Some("operational"), "{three}");
    assert!(number(&three, "frames-dropped") > 0, "the storm's frames were dropped: {three}");
    assert!(
        value(&three, "last-storm-start").is_some() && value(&three, "last-storm-end").is_some()
    );
    assert_eq!(number(&watchdog_class(&wd, "0"), "storms-detected"), 0, "{wd}");
    let (after, sent) = sent_after;
    let flowed: Vec<u32> = sequences(&got, 3).into_iter().filter(|s| *s >= after).collect();
    assert_eq!(flowed, (after..sent).collect::<Vec<u32>>(), "priority 3 flows after the storm");

    let mut notifications = Vec::new();
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end
        && !notifications.iter().any(|n: &String| n.contains("storm-restored"))
    {
        if let Some(n) = listener.next_notification(Duration::from_millis(500)).expect("read") {
            notifications.push(n);
        }
    }
    let storms: Vec<&String> = notifications.iter().filter(|n| n.contains(WD_NS)).collect();
    assert!(
        matches!(&storms[..], [d, r] if d.contains("<storm-detected") && d.contains("<class>3</class>")
            && d.contains("<interface>p2</interface>") && d.contains("<action>drop</action>")
            && r.contains("<storm-restored") && r.contains("<class>3</class>")),
        "storm-detected then storm-restored for p2's priority 3: {notifications:#?}"
    );
}
