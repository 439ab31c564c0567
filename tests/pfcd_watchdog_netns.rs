//! pfcd's PFC watchdog on real interfaces, configured and read over NETCONF:
//! h1 — p1 [pfcd] p2 — h2, h2 storms priority 3 while h1 sends it: the watchdog configured on
//! p2 finds the storm, drops priority 3 toward h2 and counts it, raises `storm-detected`, and
//! after the storm `storm-restored`; priority 3 flows again.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use dataplane::io::RawPort;
use test_support::hosts::*;
use test_support::netns::{can_run, veth, wait_for, wait_up};
use test_support::pfcd::*;
use test_support::Scratch;

/// h1 — p1 [pfcd] p2 — h2 (namespaces tagged `tag`), PFC on priority 3 at both ports, and p2's
/// watchdog on priority 3 with 100 ms of detection and 300 ms of restoration.
fn watched(tag: &str) -> (Hosts, Scratch, Pfcd, netconf_client::Client) {
    let scratch = Scratch::new(&format!("pfcd-wd-{tag}"));
    let hosts = hosts(tag);
    let pfcd = start_pfcd_for_storms(&hosts.sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&hosts.sw);
    commit_pfc(&mut c, &["p1", "p2"], "<pfc-enable>p3</pfc-enable>");
    commit_watchdog(
        &mut c,
        &["p2"],
        "<priority><priority>3</priority><detection-time>100</detection-time>\
         <restoration-time>300</restoration-time></priority>",
    );
    (hosts, scratch, pfcd, c)
}

/// One storm at a time: two storms' real-time threads and two bridges on two cores starve each
/// other past a pause's length.
static ONE_STORM: Mutex<()> = Mutex::new(());

#[test]
fn pfcd_finds_a_pfc_storm_drops_its_frames_notifies_and_restores() {
    if !can_run("pfcd_finds_a_pfc_storm_drops_its_frames_notifies_and_restores") {
        return;
    }
    let _one = ONE_STORM.lock().unwrap_or_else(PoisonError::into_inner);
    let (Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns }, _scratch, pfcd, mut c) =
        watched("pwd");
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

    // A run whose storm was starved is run again, and the watchdog counts each run's storm.
    let mut runs = 0u64;
    let (sent_after, got) = while_storm_held("pfcd-wd", STORM_SPEED, || {
        runs += 1;
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
        let detected = number(&three, "storms-detected");
        (detected >= runs && number(&three, "restorations") == detected).then_some(wd)
    });
    let three = watchdog_class(&wd, "3");
    let detected = number(&three, "storms-detected");
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
    let restored = |n: &Vec<String>| n.iter().filter(|n| n.contains("storm-restored")).count();
    while Instant::now() < end && (restored(&notifications) as u64) < detected {
        if let Some(n) = listener.next_notification(Duration::from_millis(500)).expect("read") {
            notifications.push(n);
        }
    }
    let storms: Vec<&String> = notifications.iter().filter(|n| n.contains(WD_NS)).collect();
    assert_eq!(storms.len() as u64, 2 * detected, "two a storm: {notifications:#?}");
    for pair in storms.chunks(2) {
        assert!(
            matches!(pair, [d, r] if d.contains("<storm-detected") && d.contains("<class>3</class>")
                && d.contains("<interface>p2</interface>") && d.contains("<action>drop</action>")
                && r.contains("<storm-restored") && r.contains("<class>3</class>")),
            "storm-detected then storm-restored for p2's priority 3: {notifications:#?}"
        );
    }
}

/// h1 sends priority 3 for `time` (one frame a millisecond, from `seq` on) and keeps what h2
/// receives; the next sequence number and what came.
fn offer3(h1: &mut RawPort, h2: &mut RawPort, mut seq: u32, time: Duration) -> (u32, Vec<Vec<u8>>) {
    let start = Instant::now();
    let mut got = Vec::new();
    while start.elapsed() < time {
        send(h1, &data(3, seq));
        seq += 1;
        got.extend(drain(h2, Duration::from_millis(1)));
        drain(h1, Duration::ZERO);
    }
    (seq, got)
}

/// The edges of a storm a real link reaches: p2's link flapping in the middle of a storm, and
/// p2's interface deleted and made anew afterwards. The storm is found once and stays found
/// through the flap (the peer never stopped), ends once the peer stops, priority 3 flows again,
/// and the watchdog's counts survive the interface's re-creation (they are the port's, as its
/// other counters are) while the new interface starts operational and forwards.
#[test]
fn a_storm_survives_a_link_flap_and_the_counts_survive_a_new_interface() {
    if !can_run("a_storm_survives_a_link_flap_and_the_counts_survive_a_new_interface") {
        return;
    }
    let _one = ONE_STORM.lock().unwrap_or_else(PoisonError::into_inner);
    let (Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns }, _scratch, _pfcd, mut c) =
        watched("pwdf");
    wait_state(&mut c, "p2", "PFC in force", |p| {
        value(p, "oper-pfc-enable").as_deref() == Some("p3")
    });
    let storm = Storm::start(&h2_ns);
    let (seq, _) = offer3(&mut h1, &mut h2, 0, Duration::from_millis(400));
    let three = |c: &mut netconf_client::Client| watchdog_class(&watchdog_of(c, "p2"), "3");
    let during = wait_for(Duration::from_secs(10), "the storm found", || {
        let t = three(&mut c);
        (value(&t, "status").as_deref() == Some("stormed")).then_some(t)
    });
    assert_eq!(number(&during, "storms-detected"), 1, "{during}");
    // The link flaps while the peer goes on storming.
    sw.link(&["set", "p2", "down"]);
    std::thread::sleep(Duration::from_millis(200));
    sw.link(&["set", "p2", "up"]);
    wait_up(&sw, "p2");
    let (seq, _) = offer3(&mut h1, &mut h2, seq, Duration::from_millis(400));
    let gap = storm.stop();
    eprintln!("the storm's longest gap: {gap:?}");
    std::thread::sleep(Duration::from_millis(600));
    let (sent, got) = offer3(&mut h1, &mut h2, seq, Duration::from_millis(50));
    let got = [got, drain(&mut h2, Duration::from_millis(300))].concat();
    let flowed: Vec<u32> = sequences(&got, 3).into_iter().filter(|s| *s >= seq).collect();
    assert_eq!(flowed, (seq..sent).collect::<Vec<u32>>(), "priority 3 flows after the storm");
    let after = wait_for(Duration::from_secs(10), "the restoration", || {
        let t = three(&mut c);
        (value(&t, "status").as_deref() == Some("operational")).then_some(t)
    });
    eprintln!("after the flap and the storm: {after}");
    let detected = number(&after, "storms-detected");
    assert!(detected >= 1, "{after}");
    assert_eq!(number(&after, "restorations"), detected, "every storm found ended: {after}");
    let dropped = number(&after, "frames-dropped");
    assert!(dropped > 0, "{after}");

    // p2 made anew: the counts stay, the class is operational, priority 3 flows.
    sw.run("/usr/sbin/ip", &["link", "del", "p2"]);
    veth(&sw, "p2", "02:00:00:00:0f:22", &h2_ns, "eth0", "02:00:00:00:02:02");
    h2_ns.link(&["set", "eth0", "up"]);
    sw.link(&["set", "p2", "up"]);
    let mut h2 = host_socket(&h2_ns);
    wait_up(&sw, "p2");
    let mut seq = sent;
    let mut flowed = false;
    let end = Instant::now() + Duration::from_secs(10);
    while !flowed && Instant::now() < end {
        let (next, got) = offer3(&mut h1, &mut h2, seq, Duration::from_millis(20));
        flowed = !sequences(&got, 3).is_empty();
        seq = next;
    }
    assert!(flowed, "priority 3 reaches h2 over the new interface");
    let anew = three(&mut c);
    assert_eq!(value(&anew, "status").as_deref(), Some("operational"), "{anew}");
    assert_eq!(number(&anew, "storms-detected"), detected, "{anew}");
    assert!(number(&anew, "frames-dropped") >= dropped, "{anew}");
}
