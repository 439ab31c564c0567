//! The PFC watchdog on pfc-bridge's ports, on veth pairs in network namespaces:
//!
//! - h2 storms priority 3 while h1 (honouring the bridge's PFC, as a NIC would) sends
//!   priorities 3 and 0: priority 0 is whole; priority 3 toward h2 is dropped and counted from
//!   the detection to the restoration and flows again after it; nothing else is lost; h1 is
//!   paused for no longer than the detection time and one pause (plus the loop's scheduling);
//! - an 802.3x PAUSE storm from h1 (PFC off) while h2 and h3 flood broadcasts does not stop
//!   unicast between h2 and h3: the watchdog drops what is held for h1; without it, each egress
//!   port's share of an ingress pool keeps the broadcasts held for h1 to half of it; a port
//!   set to ignore PAUSE never stops;
//! - a frame held past the maximum bridge transit delay is discarded and counted.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use dataplane::io::RawPort;
use dataplane::wire::MacAddr;
use serde_json::Value;
use test_support::bridge::{port, start_bridge, state_when};
use test_support::hosts::*;
use test_support::netns::{can_run, veth, Daemon, Netns};
use test_support::Scratch;

/// The watchdog's detection and restoration times the tests run with (the defaults).
const DETECTION: Duration = Duration::from_millis(200);
/// What the bridge's loop, the sender and the storm may add on a loaded 2-core machine.
const SCHEDULING: Duration = Duration::from_millis(100);

fn class<'a>(port: &'a Value, class: &str) -> &'a Value {
    port["watchdog"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["class"] == class))
        .unwrap_or_else(|| panic!("watchdog class {class} in {port}"))
}

/// A sender on h1 that honours the bridge's PFC for priority 3, as a NIC's MAC would: it
/// reads what the bridge sends it before each frame and holds priority 3 while paused.
struct PfcSender {
    paused_until: Option<Instant>,
    /// When each pause began and ended (XON or run out), as h1 saw them.
    pauses: Vec<(Instant, Instant)>,
    began: Option<Instant>,
    sent3: Vec<u32>,
}

impl PfcSender {
    fn new() -> Self {
        PfcSender { paused_until: None, pauses: Vec::new(), began: None, sent3: Vec::new() }
    }

    /// Reads the PFC frames that came (a refresh read late still counts as in time: the
    /// pause is taken as running from when it was read), then ends a pause that ran out.
    fn look(&mut self, h1: &mut RawPort) {
        for f in pfc_frames(&drain(h1, Duration::ZERO)) {
            if f.enable & (1 << 3) == 0 {
                continue;
            }
            let now = Instant::now();
            if f.time[3] == 0 {
                self.end_pause(now);
            } else {
                self.began.get_or_insert(now);
                let one_pause = full_pause(STORM_SPEED);
                self.paused_until = Some(now + one_pause * u32::from(f.time[3]) / 0xffff);
            }
        }
        if let Some(until) = self.paused_until.filter(|t| *t <= Instant::now()) {
            self.end_pause(until);
        }
    }

    fn end_pause(&mut self, at: Instant) {
        if let Some(began) = self.began.take() {
            self.pauses.push((began, at));
        }
        self.paused_until = None;
    }

    /// Sends priority 3's frame `seq` unless paused.
    fn offer3(&mut self, h1: &mut RawPort, seq: u32) {
        self.look(h1);
        if self.paused_until.is_none() {
            send(h1, &data(3, seq));
            self.sent3.push(seq);
        }
    }

    fn longest_pause(&self) -> Duration {
        self.pauses.iter().map(|(a, b)| *b - *a).max().unwrap_or_default()
    }
}

#[test]
fn a_pfc_storm_is_found_its_frames_dropped_and_counted_and_the_sender_released() {
    if !can_run("a_pfc_storm_is_found_its_frames_dropped_and_counted_and_the_sender_released") {
        return;
    }
    let (state, sender, got, stopped_at, (scratch, _guards)) =
        while_storm_held("wd", STORM_SPEED, || {
            // A directory of its own per run: a state file left by a run given up is not read.
            let scratch = Scratch::new("bridge-wd");
            let Hosts { mut h1, mut h2, h1_ns, sw, h2_ns } = hosts("wd");
            // p1's headroom is far above Annex N's: this test's sender reacts to PFC within a
            // couple of milliseconds at best (a NIC within a microsecond), and what is tested is
            // p2's watchdog, not p1's headroom.
            let args = [
                "--port",
                "p1,pfc=3,headroom=800000",
                "--port",
                "p2,pfc=3",
                "--speed",
                STORM_SPEED_ARG,
            ];
            let (state, bridge) = start_bridge(&sw, &scratch, &args);
            let mut sender = PfcSender::new();
            let mut got = Vec::new();
            let mut seq = 0u32;
            // h2 pauses priority 3 for 5 s while h1 sends a frame of 0 and one of 3 every
            // millisecond; then h1 sends on for 600 ms, past the restoration.
            let storm = Storm::start(&h2_ns);
            // The bridge holds priority 3 toward h2 before any of it is sent.
            state_when(&state, "p2 paused", |s| port(s, "p2")["priority_paused"] == 1 << 3);
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                send(&mut h1, &data(0, seq));
                sender.offer3(&mut h1, seq);
                seq += 1;
                got.extend(drain(&mut h2, Duration::from_millis(1)));
            }
            let gap = storm.stop();
            let stopped_at = seq;
            let end = Instant::now() + DETECTION * 3;
            while Instant::now() < end {
                send(&mut h1, &data(0, seq));
                sender.offer3(&mut h1, seq);
                seq += 1;
                got.extend(drain(&mut h2, Duration::from_millis(1)));
            }
            got.extend(drain(&mut h2, Duration::from_millis(300)));
            sender.look(&mut h1);
            ((state, sender, (got, seq), stopped_at, (scratch, (bridge, [h1_ns, sw, h2_ns]))), gap)
        });
    let (got, sent0) = got;
    let state = state_when(&state, "the watchdog's restoration", |s| {
        class(port(s, "p2"), "3")["restorations"].as_u64() >= Some(1) && s["frames_in_bridge"] == 0
    });
    let p1 = port(&state, "p1");
    let p2 = port(&state, "p2");
    let wd = class(p2, "3");
    assert_eq!(sequences(&got, 0), (0..sent0).collect::<Vec<u32>>(), "priority 0 whole: {p2}");
    let log = std::fs::read_to_string(scratch.path("bridge.log")).unwrap_or_default();
    assert_eq!(
        (wd["storms_detected"].as_u64(), wd["restorations"].as_u64()),
        (Some(1), Some(1)),
        "one storm, one restoration: {wd}\n{log}"
    );
    assert_eq!(wd["stormed"], false, "{wd}");
    let received3 = sequences(&got, 3);
    let dropped = wd["frames_dropped"].as_u64().expect("frames dropped");
    assert_eq!(p2["watchdog_drops"].as_u64(), Some(dropped), "{p2}");
    assert!(dropped > 0, "the storm's frames were dropped: {wd}");
    assert_eq!(
        received3.len() as u64 + dropped,
        sender.sent3.len() as u64,
        "every priority-3 frame h1 sent either reached h2 or was counted as the watchdog's: \
         p1 {p1}\np2 {p2}"
    );
    assert!(received3.windows(2).all(|w| w[0] < w[1]), "in order: {received3:?}");
    assert!(
        received3.first().is_some_and(|s| *s >= stopped_at),
        "none of priority 3 reached h2 while the storm lasted (it ended at {stopped_at}): {:?}",
        &received3[..received3.len().min(10)]
    );
    assert_eq!(received3.last(), sender.sent3.last(), "priority 3 flows again after restoration");
    assert_eq!(p1["lossless_drops"], 0, "{p1}");
    assert_eq!(p2["lossless_drops"], 0, "{p2}");
    for other in ["0", "1", "2", "4", "5", "6", "7", "link-pause"] {
        assert_eq!(class(p2, other)["storms_detected"], 0, "class {other}: {p2}");
        assert_eq!(class(p1, other)["storms_detected"], 0, "class {other}: {p1}");
    }
    let longest = sender.longest_pause();
    eprintln!(
        "h1 paused at most {longest:?}; {dropped} frames of priority 3 dropped, {} delivered",
        received3.len()
    );
    assert!(!sender.pauses.is_empty(), "the held frames made the bridge pause h1");
    assert!(
        longest <= DETECTION + full_pause(STORM_SPEED) + SCHEDULING,
        "h1 paused for {longest:?}: no longer than the detection time and one pause"
    );
}

/// h1, h2 and h3 on ports p1, p2 and p3 of one bridge with PFC off on every port.
struct Three {
    hosts: [RawPort; 3],
    state: std::path::PathBuf,
    _bridge: Daemon,
    ns: Vec<Netns>,
}

const MACS: [MacAddr; 3] = [
    MacAddr([0x02, 0, 0, 0, 0x01, 0x01]),
    MacAddr([0x02, 0, 0, 0, 0x02, 0x02]),
    MacAddr([0x02, 0, 0, 0, 0x03, 0x03]),
];

fn three(scratch: &Scratch, watchdog: &str) -> Three {
    let sw = Netns::new("wd3sw");
    let mut ns = Vec::new();
    for (i, mac) in MACS.iter().enumerate() {
        let h = Netns::new(&format!("wd3h{}", i + 1));
        let colons = |m: &MacAddr| m.0.map(|b| format!("{b:02x}")).join(":");
        let sw_mac = format!("02:00:00:00:0f:0{}", i + 1);
        veth(&h, "eth0", &colons(mac), &sw, &format!("p{}", i + 1), &sw_mac);
        ns.push(h);
    }
    for n in ns.iter().chain([&sw]) {
        n.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
        n.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.default.disable_ipv6=1"]);
    }
    for (i, h) in ns.iter().enumerate() {
        h.link(&["set", "eth0", "up"]);
        sw.link(&["set", &format!("p{}", i + 1), "up"]);
    }
    let ports: Vec<String> = (1..=3).map(|i| format!("p{i},{watchdog}")).collect();
    let mut args = Vec::new();
    for p in &ports {
        args.extend(["--port", p.as_str()]);
    }
    // The longest transit delay: it does not free the pools within the test's two seconds.
    args.extend(["--speed", STORM_SPEED_ARG, "--max-transit-ms", "4000"]);
    let (state, bridge) = start_bridge(&sw, scratch, &args);
    let hosts = [host_socket(&ns[0]), host_socket(&ns[1]), host_socket(&ns[2])];
    ns.push(sw);
    Three { hosts, state, _bridge: bridge, ns }
}

/// Unicast frames of priority 1 between h2 and h3 that arrived, sent from `from` on, while h1
/// pauses its link for good and h2 and h3 flood broadcasts for two seconds.
fn pause_storm_run(t: &mut Three) -> (Vec<u32>, Vec<u32>, u32, u32, Duration) {
    let [_, h2, h3] = &mut t.hosts;
    // The bridge learns where h2 and h3 are.
    send(h2, &data_between(MACS[1], MACS[2], 1, u32::MAX));
    send(h3, &data_between(MACS[2], MACS[1], 1, u32::MAX));
    drain(h2, Duration::from_millis(50));
    drain(h3, Duration::from_millis(50));
    let storm = Storm::link_pause(&t.ns[0], MACS[0]);
    let broadcast = MacAddr([0xff; 6]);
    let (mut at2, mut at3) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let mut seq = 0u32;
    let mut from = None;
    while start.elapsed() < Duration::from_secs(2) {
        // Two broadcasts each per unicast: enough to fill a 256 KiB lossy pool in a fraction of
        // the detection time.
        for k in 0..2 {
            send(h2, &data_between(MACS[1], broadcast, 0, seq * 2 + k));
            send(h3, &data_between(MACS[2], broadcast, 0, seq * 2 + k));
        }
        send(h2, &data_between(MACS[1], MACS[2], 1, seq));
        send(h3, &data_between(MACS[2], MACS[1], 1, seq));
        if from.is_none() && start.elapsed() >= Duration::from_millis(500) {
            from = Some(seq);
        }
        seq += 1;
        at2.extend(drain(h2, Duration::ZERO));
        at3.extend(drain(h3, Duration::ZERO));
        std::thread::sleep(Duration::from_micros(500));
    }
    at2.extend(drain(h2, Duration::from_millis(200)));
    at3.extend(drain(h3, Duration::from_millis(200)));
    let gap = storm.stop();
    let from = from.unwrap_or(seq);
    let late = |frames: &[Vec<u8>]| -> Vec<u32> {
        sequences(frames, 1).into_iter().filter(|s| *s >= from && *s != u32::MAX).collect()
    };
    (late(&at3), late(&at2), from, seq, gap)
}

#[test]
fn a_link_pause_storm_does_not_stop_the_other_ports() {
    if !can_run("a_link_pause_storm_does_not_stop_the_other_ports") {
        return;
    }
    let (to3, to2, from, sent, state) = while_storm_held("wd3", STORM_SPEED, || {
        let scratch = Scratch::new("bridge-wd3");
        let mut t = three(&scratch, "watchdog=drop");
        let (to3, to2, from, sent, gap) = pause_storm_run(&mut t);
        let state = state_when(&t.state, "the link-pause storm found", |s| {
            class(port(s, "p1"), "link-pause")["storms_detected"].as_u64() >= Some(1)
        });
        ((to3, to2, from, sent, state), gap)
    });
    let expected: Vec<u32> = (from..sent).collect();
    let p1 = port(&state, "p1");
    assert_eq!(
        to3, expected,
        "h2 to h3 unicast, sent after 500 ms of the storm, all arrived: {p1}"
    );
    assert_eq!(to2, expected, "h3 to h2 likewise");
    assert!(p1["watchdog_drops"].as_u64() > Some(0), "the broadcasts for h1 were dropped: {p1}");
}

#[test]
fn without_the_watchdog_a_stopped_port_holds_at_most_its_share_of_the_lossy_pools() {
    if !can_run("without_the_watchdog_a_stopped_port_holds_at_most_its_share_of_the_lossy_pools") {
        return;
    }
    // The watchdog off and the longest transit delay: what keeps h2 and h3 talking is that
    // the broadcasts held for h1 may take only half of each ingress port's lossy pool.
    let (to3, to2, from, sent, state) = while_storm_held("wd3s", STORM_SPEED, || {
        let scratch = Scratch::new("bridge-wd3s");
        let mut t = three(&scratch, "watchdog=off");
        let (to3, to2, from, sent, gap) = pause_storm_run(&mut t);
        let state =
            state_when(&t.state, "h1's port paused", |s| port(s, "p1")["priority_paused"] == 0xff);
        ((to3, to2, from, sent, state), gap)
    });
    let expected: Vec<u32> = (from..sent).collect();
    let p2 = port(&state, "p2");
    assert_eq!(to3, expected, "h2 to h3 unicast all arrived: {p2}");
    assert_eq!(to2, expected, "h3 to h2 likewise");
    assert!(p2["lossy_share_drops"].as_u64() > Some(0), "copies for h1 refused: {p2}");
}

#[test]
fn a_port_set_to_ignore_link_pause_never_stops() {
    if !can_run("a_port_set_to_ignore_link_pause_never_stops") {
        return;
    }
    // The watchdog off: what keeps h2 and h3 talking is p1 ignoring PAUSE outright.
    let (to3, _, from, sent, state) = while_storm_held("wd3i", STORM_SPEED, || {
        let scratch = Scratch::new("bridge-wd3i");
        let mut t = three(&scratch, "watchdog=off,pause=ignore");
        let (to3, to2, from, sent, gap) = pause_storm_run(&mut t);
        let state = state_when(&t.state, "the PAUSE frames counted", |s| {
            port(s, "p1")["link_pause_ignored"].as_u64() >= Some(100)
        });
        ((to3, to2, from, sent, state), gap)
    });
    assert_eq!(to3, (from..sent).collect::<Vec<u32>>(), "h2 to h3 unicast all arrived");
    let p1 = port(&state, "p1");
    assert_eq!(p1["priority_paused"], 0, "{p1}");
    assert_eq!(p1["watchdog_drops"], 0, "{p1}");
}

/// With the watchdog off, a pause that never ends (a deadlock's) still lets go of the frames
/// it holds once they are older than the maximum bridge transit delay (802.1Q 6.5.6): they are
/// discarded and counted while the pause lasts, their buffers freed, and none of them leaves;
/// frames of other priorities are untouched.
#[test]
fn frames_held_past_the_maximum_transit_delay_are_discarded_while_the_pause_lasts() {
    if !can_run("frames_held_past_the_maximum_transit_delay_are_discarded_while_the_pause_lasts") {
        return;
    }
    let (held, during, after, _guards) = while_storm_held("transit", STORM_SPEED, || {
        let scratch = Scratch::new("bridge-transit");
        let Hosts { mut h1, mut h2, h1_ns, sw, h2_ns } = hosts("mt");
        let args = [
            "--port",
            "p1,pfc=3,watchdog=off",
            "--port",
            "p2,pfc=3,watchdog=off",
            "--speed",
            STORM_SPEED_ARG,
            "--max-transit-ms",
            "100",
        ];
        let (state, bridge) = start_bridge(&sw, &scratch, &args);
        let storm = Storm::start(&h2_ns);
        state_when(&state, "p2 paused", |s| port(s, "p2")["priority_paused"] == 1 << 3);
        for seq in 0..10u32 {
            send(&mut h1, &data(3, seq));
            send(&mut h1, &data(0, seq));
        }
        let held = state_when(&state, "the held frames discarded while paused", |s| {
            s["frames_in_bridge"] == 0 && port(s, "p2")["transit_drops"] == 10
        });
        let during = drain(&mut h2, Duration::from_millis(100));
        let gap = storm.stop();
        send(&mut h2, &pfc(1 << 3, 0));
        let after = drain(&mut h2, Duration::from_millis(300));
        ((held, during, after, (scratch, bridge, [h1_ns, sw, h2_ns])), gap)
    });
    let p2 = port(&held, "p2");
    assert_eq!(p2["priority_paused"], 1 << 3, "still paused when they were discarded: {p2}");
    assert_eq!(sequences(&during, 0), (0..10).collect::<Vec<u32>>(), "priority 0 flowed");
    assert_eq!(sequences(&during, 3), Vec::<u32>::new(), "none of priority 3 left while paused");
    assert_eq!(sequences(&after, 3), Vec::<u32>::new(), "nor after: {p2}");
    assert_eq!(port(&held, "p1")["lossless_drops"], 0);
}
