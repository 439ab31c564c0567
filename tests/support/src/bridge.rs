//! pfc-bridge run in a test's namespace, and the state file it rewrites every half second.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::netns::{wait_for, Daemon, Netns};
use super::Scratch;

/// p1 and p2 with PFC on priority 3 and the watchdog off (a sender is meant to stay paused
/// for as long as the bridge holds it), 1522-octet frames, frames kept up to 4 s: the bridge
/// of the tests that offer more than it forwards.
pub const LOSSLESS_P3: [&str; 8] = [
    "--port",
    "p1,pfc=3,watchdog=off",
    "--port",
    "p2,pfc=3,watchdog=off",
    "--max-frame",
    "1522",
    "--max-transit-ms",
    "4000",
];

/// Starts pfc-bridge in `ns` with `args` (its ports, mode...), its state in `scratch`'s
/// bridge.json and its log in bridge.log; returns once the first state is written.
pub fn start_bridge(ns: &Netns, scratch: &Scratch, args: &[&str]) -> (PathBuf, Daemon) {
    let state = scratch.path("bridge.json");
    let mut cmd = ns.command(super::program("pfc-bridge"));
    cmd.args(args).arg("--state").arg(&state);
    let bridge = Daemon::spawn("pfc-bridge", cmd, &scratch.path("bridge.log"));
    wait_for(Duration::from_secs(10), "pfc-bridge's first state", || state.exists().then_some(()));
    (state, bridge)
}

/// The state last written, if it can be read.
pub fn read_state(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The state once it shows `ready` (within 5 s).
pub fn state_when(path: &Path, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    wait_for(Duration::from_secs(5), what, || read_state(path).filter(|v| ready(v)))
}

/// Port `name` of a state.
pub fn port<'a>(state: &'a Value, name: &str) -> &'a Value {
    state["ports"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("port {name} in {state}"))
}
