//! What a network run costs, in events, which is what its CPU time follows and which, unlike
//! CPU time, a busy machine does not change. Each frame that crosses a hop costs a few events
//! (its start, its arrival, the wake-up when the wire is free); a transmitter woken while its
//! wire is busy, or with nothing to send, costs events that simulate nothing.

use std::path::{Path, PathBuf};

use pfcsim::network::{load_network, parse_network, run_network, NetworkResults};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Events run per frame delivered end to end in `scenario`.
fn events_per_frame(scenario: &str) -> f64 {
    let file = load_network(&scenarios().join(format!("{scenario}.toml")))
        .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    per_frame(&run_network(&file).unwrap_or_else(|e| panic!("{scenario}: {e}")))
}

fn per_frame(r: &NetworkResults) -> f64 {
    let delivered: u64 = r.flows.iter().map(|f| f.delivered_frames).sum();
    assert!(delivered > 0, "{} delivers frames", r.name);
    r.events as f64 / delivered as f64
}

/// The small incast's frames cross three or four hops each: a frame queued behind a busy wire
/// must not cost a wake-up of its own on top of the one the frame on the wire already holds.
#[test]
fn frames_queued_behind_a_busy_wire_cost_no_wake_up_of_their_own() {
    let cost = events_per_frame("fabric-leaf-spine-small-incast");
    assert!(cost < 15.0, "{cost:.2} events per frame delivered");
}

/// One flow at a tenth of the line rate from a host through a bridge to another host: each
/// frame is offered (1), starts on each of its two wires (2) and arrives over each (2). A
/// transmitter whose queue its frame emptied has nothing to do when the frame ends: waking it
/// then would cost two more events per frame.
#[test]
fn a_transmitter_that_sent_its_last_frame_is_not_woken_when_it_ends() {
    let text = r#"
name = "one-flow"
description = "a host, a bridge, a host"
[run]
duration_us = 2000
sample_us = 100
window_us = 500
[[bridge]]
name = "b"
ports = ["x", "y"]
[[host]]
name = "s"
[[host]]
name = "d"
[[link]]
a = "s"
b = "b:x"
speed = "10G"
[[link]]
a = "b:y"
b = "d"
speed = "10G"
[[flow]]
name = "f"
path = ["s", "b", "d"]
rate_mbps = 1000
frame_len = 1500
"#;
    let file = parse_network("one-flow", text).expect("parses");
    let r = run_network(&file).expect("runs");
    let cost = per_frame(&r);
    assert!((5.0..5.5).contains(&cost), "{cost:.2} events per frame delivered");
}

/// In the small incast the senders' uplinks spend most of the run paused, and each frame that
/// reaches a paused egress queues there: it must not wake the transmitter only for it to see
/// the pause and ask again for the wake-up at the pause's end.
#[test]
fn frames_queued_behind_a_pause_cost_no_wake_up_of_their_own() {
    let cost = events_per_frame("fabric-leaf-spine-small-incast");
    assert!(cost < 12.0, "{cost:.2} events per frame delivered");
}
