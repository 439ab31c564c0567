//! What a network run costs, in events, which is what its CPU time follows and which, unlike
//! CPU time, a busy machine does not change. Each frame that crosses a hop costs a few events
//! (its start, its arrival, the wake-up when the wire is free); a transmitter woken while its
//! wire is busy, or with nothing to send, costs events that simulate nothing.

use std::path::{Path, PathBuf};

use pfcsim::network::{load_network, run_network};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Events run per frame delivered end to end in `scenario`.
fn events_per_frame(scenario: &str) -> f64 {
    let file = load_network(&scenarios().join(format!("{scenario}.toml")))
        .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let r = run_network(&file).unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let delivered: u64 = r.flows.iter().map(|f| f.delivered_frames).sum();
    assert!(delivered > 0, "{scenario} delivers frames");
    r.events as f64 / delivered as f64
}

/// The small incast's frames cross three or four hops each: a frame queued behind a busy wire
/// must not cost a wake-up of its own on top of the one the frame on the wire already holds.
#[test]
fn frames_queued_behind_a_busy_wire_cost_no_wake_up_of_their_own() {
    let cost = events_per_frame("fabric-leaf-spine-small-incast");
    assert!(cost < 15.0, "{cost:.2} events per frame delivered");
}
