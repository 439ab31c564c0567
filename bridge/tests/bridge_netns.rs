//! pfc-bridge between two hosts, each a network namespace joined to the bridge's namespace by
//! a veth pair: h1 — [p1 pfc-bridge p2] — h2. The hosts' frames are sent and read by this test
//! on raw sockets opened inside their namespaces.
//!
//! - every frame is forwarded once, in order per priority;
//! - PFC from h2 holds priority 3 while priority 0 keeps flowing (external mode), the bridge's
//!   buffer passes XOFF and it sends PFC to h1, and XON releases everything in order with no
//!   loss; in `stall` mode the same pause holds priority 0 too;
//! - a pause holds every priority of its traffic class (tc=), and only those;
//! - bad frames on the wire are counted and change nothing.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use dataplane::io::RawPort;
use serde_json::Value;
use test_support::bridge::{port, start_bridge, state_when};
use test_support::hosts::*;
use test_support::netns::{can_run, Daemon, Netns};
use test_support::Scratch;

struct Topology {
    h1: RawPort,
    h2: RawPort,
    state: PathBuf,
    _bridge: Daemon,
    _scratch: Scratch,
    _ns: [Netns; 3],
}

/// h1 — p1 [bridge] p2 — h2, links up, pfc-bridge running with PFC on priority 3 of both
/// ports in `mode`. The PFC watchdog is off: these tests hold pauses for as long as they
/// need (seconds on a loaded machine) and check that nothing held is lost; the watchdog has
/// its own tests (`bridge_watchdog_netns.rs`).
fn topology(tag: &str, mode: &str) -> Topology {
    topology_of(tag, mode, ["p1,pfc=3,watchdog=off", "p2,pfc=3,watchdog=off"], "10G")
}

/// The same at the speed a storm needs ([`STORM_SPEED`]): a loaded machine's stalls do not
/// outlast a pause.
fn stormed(tag: &str, mode: &str) -> Topology {
    topology_of(tag, mode, ["p1,pfc=3,watchdog=off", "p2,pfc=3,watchdog=off"], STORM_SPEED_ARG)
}

/// The same with the ports `ports` (pfc-bridge's port specs) at `speed`.
fn topology_of(tag: &str, mode: &str, ports: [&str; 2], speed: &str) -> Topology {
    let scratch = Scratch::new(&format!("bridge-{tag}"));
    let Hosts { h1, h2, h1_ns, sw, h2_ns } = hosts(tag);
    // 802.1Q's largest maximum transit delay, 4 s: these tests hold frames by pauses for
    // seconds and check that none is lost.
    let args = [
        "--port",
        ports[0],
        "--port",
        ports[1],
        "--speed",
        speed,
        "--mode",
        mode,
        "--max-transit-ms",
        "4000",
    ];
    let (state, bridge) = start_bridge(&sw, &scratch, &args);
    Topology { h1, h2, state, _bridge: bridge, _scratch: scratch, _ns: [h1_ns, sw, h2_ns] }
}

impl Topology {
    /// The bridge's state file once it shows `ready` (it is rewritten every half second).
    fn state_when(&self, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
        state_when(&self.state, what, ready)
    }
}

#[test]
fn every_frame_is_forwarded_once_in_order_per_priority() {
    if !can_run("every_frame_is_forwarded_once_in_order_per_priority") {
        return;
    }
    let mut t = topology("fw", "external");
    // Paced (10 frames every 200 µs, 400 Mb/s): this sender does not honour PFC, so a burst
    // past the lossless buffer would be dropped, as it should.
    let mut sent = 0;
    for burst in 0..200u32 {
        for k in 0..5u32 {
            let seq = burst * 5 + k;
            send(&mut t.h1, &data(0, seq));
            send(&mut t.h1, &data(3, seq));
            sent += 2;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let got = drain(&mut t.h2, Duration::from_millis(500));
    for priority in [0u8, 3] {
        let seqs = sequences(&got, priority);
        assert_eq!(
            seqs,
            (0..1000).collect::<Vec<u32>>(),
            "priority {priority}: all, once, in order"
        );
    }
    let state = t
        .state_when("the bridge's counters", |s| port(s, "p2")["tx_frames"].as_u64() == Some(sent));
    assert_eq!(port(&state, "p1")["rx_per_priority"][3], 1000);
    assert_eq!(port(&state, "p1")["lossless_drops"], 0);
    assert_eq!(state["pipeline_order_violations"], 0);
}

/// What a pause run saw: frames at h2 during the pause and after it, frames the bridge sent
/// h1, and the bridge's state at the end.
struct PauseRun {
    during: Vec<Vec<u8>>,
    after: Vec<Vec<u8>>,
    at_h1: Vec<Vec<u8>>,
    state: Value,
}

/// h2 pauses priority 3 (refreshing about every millisecond) while h1 sends 20 frames of
/// priority 3 and 200 of priority 0; then h2 sends XON. The pause lasts 100 ms, longer (up to
/// 2 s) while priority 0 is `still_flowing` and has not all come: on a loaded machine a frame
/// may come late. In `stall` mode priority 0 waits behind the pause, and waiting longer would
/// only leave h2's refreshes longer to fall behind.
fn pause_run(t: &mut Topology, still_flowing: bool) -> (PauseRun, Duration) {
    let longest = if still_flowing { Duration::from_secs(2) } else { Duration::from_millis(100) };
    let storm = Storm::start(&t._ns[2]);
    for seq in 0..200u32 {
        if seq < 20 {
            send(&mut t.h1, &data(3, seq));
        }
        send(&mut t.h1, &data(0, seq));
        paced(seq);
    }
    let mut at_h1 = Vec::new();
    let h1 = &mut t.h1;
    let during =
        drain_until_sequences(&mut t.h2, (0, 200), (Duration::from_millis(100), longest), || {
            at_h1.extend(drain(h1, Duration::ZERO));
        });
    let gap = storm.stop();
    send(&mut t.h2, &pfc(1 << 3, 0));
    let after = drain(&mut t.h2, Duration::from_millis(300));
    at_h1.extend(drain(&mut t.h1, Duration::from_millis(50)));
    let state = t.state_when("the pause's reaction sample", |s| {
        port(s, "p2")["reaction_samples"].as_u64() >= Some(1)
            && port(s, "p1")["xoff"] == 0
            && s["frames_in_bridge"] == 0
    });
    // p1's XOFF is over, so its XON has been sent (on a loaded machine, maybe after the
    // drain above): h1 reads until it has every PFC frame the bridge says p1 sent.
    let sent = port(&state, "p1")["pfc_requests"].as_u64().unwrap_or(0);
    let asked = Instant::now();
    loop {
        at_h1.extend(drain(&mut t.h1, Duration::from_millis(20)));
        if pfc_frames(&at_h1).len() as u64 >= sent || asked.elapsed() > Duration::from_secs(5) {
            break;
        }
    }
    (PauseRun { during, after, at_h1, state }, gap)
}

#[test]
fn pfc_holds_priority_3_while_0_flows_and_the_bridge_pauses_its_own_sender() {
    if !can_run("pfc_holds_priority_3_while_0_flows_and_the_bridge_pauses_its_own_sender") {
        return;
    }
    let PauseRun { during, after, at_h1, state } = while_storm_held("pfc", STORM_SPEED, || {
        let mut t = stormed("pfc", "external");
        pause_run(&mut t, true)
    });
    assert_eq!(sequences(&during, 3), Vec::<u32>::new(), "no priority 3 while paused");
    assert_eq!(sequences(&during, 0), (0..200).collect::<Vec<u32>>(), "priority 0 flows");
    assert_eq!(sequences(&after, 3), (0..20).collect::<Vec<u32>>(), "all of priority 3 after XON");
    // 20 frames of 1000 octets pass XOFF (13 967 octets for Annex N's headroom): the bridge
    // asks h1 to pause priority 3, and releases it once they have left.
    let requests = pfc_frames(&at_h1);
    assert!(
        requests.iter().any(|f| f.enable & (1 << 3) != 0 && f.time[3] > 0),
        "the bridge paused h1's priority 3: {requests:?}"
    );
    assert!(
        requests.iter().any(|f| f.enable & (1 << 3) != 0 && f.time[3] == 0),
        "and released it: {} requests; state {}",
        requests.len(),
        state
    );
    assert!(requests.iter().all(|f| f.enable & !(1 << 3) == 0), "only priority 3");
    let p1 = port(&state, "p1");
    let p2 = port(&state, "p2");
    assert!(p2["pfc_indications"].as_u64() >= Some(100), "{p2}");
    assert_eq!(p1["pfc_requests"].as_u64(), Some(requests.len() as u64));
    assert_eq!(p1["lossless_drops"], 0);
    assert_eq!(state["pipeline_order_violations"], 0);
    eprintln!(
        "pause reaction on the wire: p50 {} µs, p99 {} µs over {} pauses",
        p2["reaction_p50_us"], p2["reaction_p99_us"], p2["reaction_samples"]
    );
}

#[test]
fn a_pause_holds_every_priority_of_its_traffic_class() {
    if !can_run("a_pause_holds_every_priority_of_its_traffic_class") {
        return;
    }
    // On p2 priority 4 (PFC off) shares traffic class 3 with priority 3 or has its own.
    for (tag, tc, four_held) in [("tcs", "tc=01233567", true), ("tcid", "tc=01234567", false)] {
        let p2 = format!("p2,pfc=3,{tc},watchdog=off");
        let (mut t, during) = while_storm_held(tag, STORM_SPEED, || {
            let ports = ["p1,pfc=3,watchdog=off", &p2];
            let mut t = topology_of(tag, "external", ports, STORM_SPEED_ARG);
            let storm = Storm::start(&t._ns[2]);
            for seq in 0..100u32 {
                if seq < 10 {
                    send(&mut t.h1, &data(3, seq));
                    send(&mut t.h1, &data(4, seq));
                }
                send(&mut t.h1, &data(0, seq));
                paced(seq);
            }
            let during = drain_until_sequences(
                &mut t.h2,
                (0, 100),
                (Duration::from_millis(100), Duration::from_secs(2)),
                || {},
            );
            let gap = storm.stop();
            ((t, during), gap)
        });
        send(&mut t.h2, &pfc(1 << 3, 0));
        let after = drain(&mut t.h2, Duration::from_millis(300));
        let all: Vec<u32> = (0..10).collect();
        assert_eq!(sequences(&during, 0), (0..100).collect::<Vec<u32>>(), "{tc}: 0 flows");
        assert_eq!(sequences(&during, 3), Vec::<u32>::new(), "{tc}: 3 paused");
        assert_eq!(sequences(&after, 3), all, "{tc}: 3 after XON, whole and in order");
        if four_held {
            assert_eq!(sequences(&during, 4), Vec::<u32>::new(), "{tc}: 4 held with its class");
            assert_eq!(sequences(&after, 4), all, "{tc}: 4 after XON, whole and in order");
        } else {
            assert_eq!(sequences(&during, 4), all, "{tc}: 4 in a class of its own flows");
        }
        let state = t.state_when("the bridge's state", |s| s["frames_in_bridge"] == 0);
        let classes: Vec<u8> = tc[3..].bytes().map(|b| b - b'0').collect();
        assert_eq!(port(&state, "p2")["traffic_class"], Value::from(classes));
    }
}

#[test]
fn in_stall_mode_the_pause_holds_the_other_priority_too() {
    if !can_run("in_stall_mode_the_pause_holds_the_other_priority_too") {
        return;
    }
    let PauseRun { during, after, state, .. } = while_storm_held("stall", STORM_SPEED, || {
        // The 200 frames of priority 0 that wait for p2 fit in half of p1's lossy pool, the
        // most one egress port may hold of it.
        let p1 = "p1,pfc=3,watchdog=off,lossy=1048576";
        let mut t = topology_of("stall", "stall", [p1, "p2,pfc=3,watchdog=off"], STORM_SPEED_ARG);
        pause_run(&mut t, false)
    });
    assert_eq!(sequences(&during, 3), Vec::<u32>::new());
    let p0_during = sequences(&during, 0).len();
    assert!(p0_during < 200, "stall: priority 0 waits behind the paused priority ({p0_during})");
    let mut p0: Vec<u32> = sequences(&during, 0);
    p0.extend(sequences(&after, 0));
    assert_eq!(p0, (0..200).collect::<Vec<u32>>(), "nothing lost, in order");
    assert_eq!(sequences(&after, 3), (0..20).collect::<Vec<u32>>());
    assert_eq!(port(&state, "p1")["lossless_drops"], 0);
}

#[test]
fn bad_frames_on_the_wire_are_counted_and_change_nothing() {
    if !can_run("bad_frames_on_the_wire_are_counted_and_change_nothing") {
        return;
    }
    let mut t = topology("bad", "external");
    let good = pfc(1 << 3, 0xffff);
    let mut truncated = good.clone();
    truncated.truncate(18);
    let mut wrong_opcode = good.clone();
    wrong_opcode[14..16].copy_from_slice(&[0x02, 0x02]);
    let to_priority_5 = pfc(1 << 5, 0xffff);
    let mut hmpdu = vec![0u8; 60];
    hmpdu[..6].copy_from_slice(&[0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
    hmpdu[6..12].copy_from_slice(&H2.0);
    hmpdu[12..14].copy_from_slice(&[0x89, 0xa2]);
    hmpdu[14..].fill(0xa5);
    for f in [&truncated, &wrong_opcode, &to_priority_5, &hmpdu] {
        send(&mut t.h2, f);
    }
    std::thread::sleep(Duration::from_millis(5));
    for seq in 0..50 {
        send(&mut t.h1, &data(5, seq));
        send(&mut t.h1, &data(3, seq));
        if seq % 5 == 4 {
            // Paced, as in the forwarding test: this sender does not honour PFC.
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    let got = drain(&mut t.h2, Duration::from_millis(300));
    assert_eq!(sequences(&got, 5), (0..50).collect::<Vec<u32>>(), "priority 5 is not paused");
    assert_eq!(sequences(&got, 3), (0..50).collect::<Vec<u32>>(), "nor priority 3");
    // The state file is a snapshot up to 600 ms old: one taken mid-burst may have the
    // discards but not yet every frame sent.
    let state = t.state_when("the discards counted and the frames sent", |s| {
        let p2 = port(s, "p2");
        p2["bad_mac_control"].as_u64() == Some(2) && p2["tx_frames"].as_u64() >= Some(100)
    });
    let p2 = port(&state, "p2");
    assert_eq!(p2["pfc_to_disabled_priority"], 1, "{p2}");
    assert_eq!(p2["hmpdus"], 1);
    assert_eq!(p2["priority_paused"], 0);
    assert_eq!(p2["tx_frames"], 100);
    // Only the frame to priority 5 was a PFC frame (the bridge may still pause h1 on its own,
    // when a loaded machine holds it up behind h1's bursts).
    assert_eq!(p2["pfc_indications"], 1, "no bad frame was taken for a pause: {p2}");
    let log = Command::new("cat").arg(t._scratch.path("bridge.log")).output().expect("log");
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(log.contains("MAC Control frame: truncated"), "logged: {log}");
    assert!(log.contains("unsupported MAC Control opcode 0x0202"), "logged: {log}");
}

#[test]
fn a_pfc_storm_holds_only_its_priority_and_loses_nothing_the_bridge_accepted() {
    if !can_run("a_pfc_storm_holds_only_its_priority_and_loses_nothing_the_bridge_accepted") {
        return;
    }
    let (mut t, seq, during, held, longest_gap) = while_storm_held("storm", STORM_SPEED, || {
        let mut t = stormed("storm", "external");
        // h2 pauses priority 3 without end for a second at least, while h1 keeps
        // sending priority 0 and a few frames of priority 3; the bridge's state is read while the
        // storm lasts.
        let storm = Storm::start(&t._ns[2]);
        let start = Instant::now();
        let mut seq = 0u32;
        let mut during = Vec::new();
        let mut held = None;
        let lasting = Duration::from_millis(1000);
        while start.elapsed() < lasting || (held.is_none() && start.elapsed() < lasting * 3) {
            if start.elapsed() < lasting {
                if seq < 10 {
                    send(&mut t.h1, &data(3, seq));
                }
                send(&mut t.h1, &data(0, seq));
                seq += 1;
            }
            during.extend(drain(&mut t.h2, Duration::from_millis(1)));
            if start.elapsed() > lasting / 2 && held.is_none() {
                held = std::fs::read_to_string(&t.state)
                    .ok()
                    .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                    .filter(|s| {
                        port(s, "p2")["pfc_indications"].as_u64() >= Some(100)
                            && s["frames_in_bridge"] == 10
                    });
            }
        }
        let longest_gap = storm.stop();
        ((t, seq, during, held, longest_gap), longest_gap)
    });
    let held = held.expect("the bridge's state during the storm shows the ten frames held");
    // The storm ends without XON: the last pause runs out 33.6 ms later.
    let after = drain(&mut t.h2, Duration::from_millis(300));
    assert_eq!(
        sequences(&during, 3),
        Vec::<u32>::new(),
        "priority 3 held through the storm (longest gap between PFC frames {longest_gap:?})"
    );
    // Priority 0 flowed through the storm: every frame came, the last ones sent perhaps
    // still on their way when the storm's loop ended (read with what came after).
    let zero: Vec<Vec<u8>> = during.iter().chain(&after).cloned().collect();
    assert_eq!(sequences(&zero, 0), (0..seq).collect::<Vec<u32>>(), "priority 0 kept flowing");
    assert!(
        sequences(&during, 0).len() as u32 + 8 >= seq,
        "priority 0 flowed during the storm, not after it"
    );
    assert_eq!(sequences(&after, 3), (0..10).collect::<Vec<u32>>(), "nothing accepted was lost");
    let p2 = port(&held, "p2");
    assert_eq!(p2["priority_paused"], 1 << 3, "{p2}");
    assert_eq!(p2["fsm"][3], "pipe-clean", "priority 3 is halted: {p2}");
    let waiting =
        p2["qman_backlog"][3].as_u64().unwrap_or(0) + p2["external_depth"][3].as_u64().unwrap_or(0);
    assert_eq!(waiting, 10, "its frames wait at QMAN or in external memory: {p2}");
    assert_eq!(port(&held, "p1")["lossless_drops"], 0);
}
