//! The software bridge follows its ports' interfaces: h1 — p1 [bridge] p2 — h2 (and p3 — h3),
//! each host a network namespace, the bridge pfc-bridge or pfcd.
//!
//! - the veth p2 — h2 deleted and made anew under the same names (a new index, a new MAC
//!   address on p2): the bridge opens p2 again and forwards h1 → h2 within a second, nothing
//!   twice, and its state shows the reopen and the new address;
//! - p2's link down for 300 ms and up again: the addresses learned on p2 are forgotten (a frame
//!   to h2 is flooded to h3), frames for p2 while it is down are dropped and counted and the
//!   ingress buffer they held is freed, and forwarding to h2 resumes;
//! - the same re-creation under pfcd: forwarding and the LLDP neighbour on p2 come back.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use dataplane::io::RawPort;
use serde_json::Value;
use test_support::bridge::{port, read_state, start_bridge, state_when};
use test_support::hosts::*;
use test_support::netns::{can_run, veth, wait_up, Netns};
use test_support::pfc_lldp::Agent;
use test_support::pfcd::{start_pfcd, value};
use test_support::Scratch;

/// Makes the veth p2 — eth0 (h2's) again under the same names (deleted before), p2 with
/// address `p2_mac`; both ends up. Returns h2's new socket.
fn make_p2_again(sw: &Netns, h2: &Netns, p2_mac: &str) -> RawPort {
    veth(sw, "p2", p2_mac, h2, "eth0", "02:00:00:00:02:02");
    h2.link(&["set", "eth0", "up"]);
    sw.link(&["set", "p2", "up"]);
    host_socket(h2)
}

/// h1 sends a frame of priority 0 every 5 ms from `seq` on until h2 has one; how long that
/// took (at most `limit`), what h2 received and the next sequence number.
fn until_forwarded(
    h1: &mut RawPort,
    h2: &mut RawPort,
    mut seq: u32,
    limit: Duration,
    log: impl Fn() -> String,
) -> (Duration, Vec<Vec<u8>>, u32) {
    let start = Instant::now();
    let mut got = Vec::new();
    while sequences(&got, 0).is_empty() {
        assert!(start.elapsed() < limit, "nothing forwarded to h2 in {limit:?}; log:\n{}", log());
        send(h1, &data(0, seq));
        seq += 1;
        got.extend(drain(h2, Duration::from_millis(5)));
    }
    (start.elapsed(), got, seq)
}

/// h1 sends frames `range` of priority `priority`, paced (ten every 200 µs: the sender does
/// not honour PFC).
fn paced(h1: &mut RawPort, priority: u8, range: std::ops::Range<u32>) {
    for seq in range {
        send(h1, &data(priority, seq));
        if seq % 10 == 9 {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

fn log_of(scratch: &Scratch, file: &str) -> String {
    std::fs::read_to_string(scratch.path(file)).unwrap_or_default()
}

/// Whether the log `file` says `what` within `time`.
fn log_shows(scratch: &Scratch, file: &str, what: &str, time: Duration) -> bool {
    let end = Instant::now() + time;
    while !log_of(scratch, file).contains(what) {
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

#[test]
fn an_interface_made_anew_under_the_bridge_forwards_again_within_a_second() {
    if !can_run("an_interface_made_anew_under_the_bridge_forwards_again_within_a_second") {
        return;
    }
    made_anew("anew", &[]);
}

/// With `--tx-ring`, the port made anew opens its transmit ring again, on the same frame memory
/// (the old socket's frames in flight given back to it).
#[test]
fn an_interface_made_anew_sends_through_its_transmit_ring_again() {
    if !can_run("an_interface_made_anew_sends_through_its_transmit_ring_again") {
        return;
    }
    let (before, after) = made_anew("anewx", &["--tx-ring"]);
    assert_eq!(port(&before, "p2")["transmit_path"], "ring");
    assert_eq!(port(&after, "p2")["transmit_path"], "ring", "{}", port(&after, "p2"));
}

/// p2 deleted and made anew under a bridge run with `extra` options: forwarding comes back
/// within a second, in order, the counters kept; the state before and after.
fn made_anew(tag: &str, extra: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let scratch = Scratch::new(&format!("flap-{tag}"));
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts(tag);
    let args: Vec<&str> = ["--port", "p1", "--port", "p2"].iter().chain(extra).copied().collect();
    let (state, _bridge) = start_bridge(&sw, &scratch, &args);
    paced(&mut h1, 0, 0..10);
    assert_eq!(
        sequences(&drain(&mut h2, Duration::from_millis(200)), 0),
        (0..10).collect::<Vec<_>>()
    );
    let before = state_when(&state, "p2's frames counted", |s| port(s, "p2")["tx_frames"] == 10);

    sw.link(&["del", "p2"]);
    h2 = make_p2_again(&sw, &h2_ns, "02:00:00:00:0f:12");
    let (took, mut got, first) =
        until_forwarded(&mut h1, &mut h2, 10, Duration::from_secs(3), || {
            log_of(&scratch, "bridge.log")
        });
    eprintln!("h1 → h2 forwarded again {took:?} after p2 was made anew");
    assert!(took < Duration::from_secs(1), "forwarding came back after {took:?}");
    paced(&mut h1, 0, first..first + 200);
    got.extend(drain(&mut h2, Duration::from_millis(300)));
    let seqs = sequences(&got, 0);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "nothing twice, in order: {seqs:?}");
    assert!(
        seqs.ends_with(&(first..first + 200).collect::<Vec<_>>()),
        "every frame once forwarding was back: {seqs:?}"
    );
    // A snapshot taken mid-burst can have nothing in the bridge yet not every frame sent.
    let sent = 10 + seqs.len() as u64;
    let after = state_when(&state, "the reopen in the state, every frame sent", |s| {
        port(s, "p2")["reopened"] == 1
            && s["frames_in_bridge"] == 0
            && port(s, "p2")["tx_frames"].as_u64() >= Some(sent)
    });
    assert_eq!(port(&before, "p2")["mac"], "02-00-00-00-0f-02");
    let p2 = port(&after, "p2");
    assert_eq!(p2["link_up"], true, "{p2}");
    assert_eq!(p2["mac"], "02-00-00-00-0f-12", "the new address: {p2}");
    assert!(p2["link_changes"].as_u64() >= Some(2), "down and up again: {p2}");
    assert_eq!(p2["tx_frames"].as_u64(), Some(sent), "counters kept: {p2}");
    assert!(log_of(&scratch, "bridge.log").contains("socket reopened"));
    (before, after)
}

#[test]
fn a_link_down_and_up_forgets_its_addresses_floods_around_the_port_and_frees_the_buffer() {
    if !can_run(
        "a_link_down_and_up_forgets_its_addresses_floods_around_the_port_and_frees_the_buffer",
    ) {
        return;
    }
    let scratch = Scratch::new("flap-down");
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns: _h2_ns } = hosts("down");
    // A third host, to see what is flooded.
    let h3_ns = Netns::new("downh3");
    veth(&sw, "p3", "02:00:00:00:0f:03", &h3_ns, "eth0", "02:00:00:00:03:03");
    h3_ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
    h3_ns.link(&["set", "eth0", "up"]);
    sw.link(&["set", "p3", "up"]);
    let mut h3 = host_socket(&h3_ns);
    wait_up(&sw, "p3");
    let args = ["--port", "p1,pfc=3", "--port", "p2,pfc=3", "--port", "p3,pfc=3"];
    let (state, _bridge) = start_bridge(&sw, &scratch, &args);

    // The bridge learns h1 and h2; a frame to h2 then goes to p2 alone.
    send(&mut h1, &data(0, 0));
    send(&mut h2, &data_between(H2, H1, 0, 0));
    std::thread::sleep(Duration::from_millis(50));
    send(&mut h1, &data(0, 1));
    assert_eq!(sequences(&drain(&mut h2, Duration::from_millis(100)), 0), vec![0, 1]);
    assert_eq!(sequences(&drain(&mut h3, Duration::ZERO), 0), vec![0], "only the first flooded");
    state_when(&state, "h1 and h2 learned", |s| s["fdb_entries"] == 2);

    sw.link(&["set", "p2", "down"]);
    let down = Instant::now();
    let seen_down = log_shows(&scratch, "bridge.log", "link down", Duration::from_secs(1));
    // Frames to h2 now: flooded (h2's address is forgotten), but not to p2, whose link is down.
    paced(&mut h1, 3, 100..120);
    let at_h3 = drain(&mut h3, Duration::from_millis(100));
    assert_eq!(
        sequences(&at_h3, 3),
        (100..120).collect::<Vec<_>>(),
        "flooded to h3; state {:?}; log:\n{}",
        read_state(&state),
        std::fs::read_to_string(scratch.path("bridge.log")).unwrap_or_default()
    );
    let while_down = read_state(&state);
    std::thread::sleep(Duration::from_millis(300).saturating_sub(down.elapsed()));
    sw.link(&["set", "p2", "up"]);
    wait_up(&sw, "p2");

    let s = state_when(&state, "p2's link down and up counted", |s| {
        port(s, "p2")["link_changes"] == 2 && port(s, "p2")["link_up"] == true
    });
    assert!(seen_down, "the bridge logged p2's link down");
    let p2 = port(&s, "p2");
    assert_eq!(p2["link_down_drops"], 0, "no copy for p2 while it is down: {p2}");
    assert_eq!(p2["tx_per_priority"][3], 0, "nothing of them left on p2: {p2}");
    assert_eq!(p2["tx_errors"], 0, "dropped before the socket: {p2}");
    assert_eq!(p2["reopened"], 0, "the same interface: {p2}");
    assert_eq!(s["fdb_entries"], 1, "only h1's address is left: {s}");
    assert_eq!(s["frames_in_bridge"], 0);
    assert_eq!(port(&s, "p1")["occupancy"], Value::from(vec![0; 8]), "p1's buffer is free: {s}");
    if let Some(w) = while_down.filter(|w| port(w, "p2")["link_up"] == false) {
        assert_eq!(w["fdb_entries"], 1, "while down: {w}");
    }

    // Forwarding to h2 resumes (flooded until h2 is heard again).
    paced(&mut h1, 0, 200..250);
    let got = drain(&mut h2, Duration::from_millis(200));
    assert_eq!(sequences(&got, 0), (200..250).collect::<Vec<_>>(), "all, once, in order");
    assert_eq!(sequences(&drain(&mut h3, Duration::ZERO), 0), (200..250).collect::<Vec<_>>());

    // Idle after the flap, the bridge sleeps: none of its threads (the pause keepers run at
    // real-time priority) spins on the error the link's going down left on p2's socket.
    let cpu = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        after.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<u64>().ok()).sum::<u64>()
    };
    let pid = _bridge.child.id();
    let before = cpu(pid);
    std::thread::sleep(Duration::from_secs(1));
    let ticks = cpu(pid) - before;
    assert!(
        ticks < 30,
        "pfc-bridge used {ticks} of 100 clock ticks in an idle second after a flap"
    );
}

/// pfcd's LLDP neighbour on `port` (its chassis ID), if it has one.
fn neighbour(c: &mut netconf_client::Client, port: &str) -> Option<String> {
    let filter = format!(
        "<lldp xmlns=\"urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp\"><port><name>{port}</name>\
         <remote-systems-data/></port></lldp>"
    );
    let reply = c.get(Some(&filter)).expect("get");
    value(reply.data().unwrap_or_default(), "chassis-id")
}

#[test]
fn under_pfcd_an_interface_made_anew_forwards_again_and_its_lldp_neighbour_comes_back() {
    if !can_run(
        "under_pfcd_an_interface_made_anew_forwards_again_and_its_lldp_neighbour_comes_back",
    ) {
        return;
    }
    let scratch = Scratch::new("flap-pfcd");
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts("pfl");
    // An LLDP agent on h2, which follows its interface itself (pfc-lldp reopens it).
    let _agent = Agent::start(&h2_ns, &scratch, "h2", "[[port]]\nname = \"eth0\"\n");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    let wait_neighbour = |c: &mut netconf_client::Client, what: &str, present: bool| {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let n = neighbour(c, "p2");
            if n.is_some() == present {
                return n;
            }
            assert!(Instant::now() < end, "{what}; pfcd's log:\n{}", log_of(&scratch, "pfcd.log"));
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let chassis = wait_neighbour(&mut c, "h2 as p2's neighbour", true);
    until_forwarded(&mut h1, &mut h2, 0, Duration::from_secs(3), || log_of(&scratch, "pfcd.log"));

    sw.link(&["del", "p2"]);
    wait_neighbour(&mut c, "the neighbour forgotten with the interface", false);
    h2 = make_p2_again(&sw, &h2_ns, "02:00:00:00:0f:12");
    let (took, _, _) = until_forwarded(&mut h1, &mut h2, 1000, Duration::from_secs(3), || {
        log_of(&scratch, "pfcd.log")
    });
    assert!(took < Duration::from_secs(1), "forwarding came back after {took:?}");
    let again = wait_neighbour(&mut c, "h2 back as p2's neighbour", true);
    assert_eq!(again, chassis);
    let log = log_of(&scratch, "pfcd.log");
    let reopened = |socket: &str| {
        log.lines()
            .any(|l| l.contains("socket reopened") && l.contains(&format!("socket={socket}")))
    };
    assert!(reopened("\"frames\""), "the bridge port reopened: {log}");
    assert!(reopened("\"LLDP\""), "the LLDP socket too: {log}");
}
