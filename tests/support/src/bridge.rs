//! pfc-bridge run in a test's namespace, and the state file it rewrites every half second.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::netns::{wait_for, Daemon, Netns};
use super::Scratch;

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
