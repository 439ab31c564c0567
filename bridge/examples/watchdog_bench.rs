//! The PFC watchdog on pfc-bridge over veth (h1 — p1 [sw] p2 — h2, network namespaces):
//!
//! - **detection error**: RUNS storms, each on a bridge of its own: h2 pauses priority 3 without
//!   end, then h1 sends one frame of it, which waits from its arrival; the bridge's time of
//!   detection (`last_storm_start_unix_ns`, CLOCK_REALTIME) minus h1's send time (the same
//!   clock) minus the detection time is the error: what the bridge's wake-up and the frame's
//!   way through veth add. p50, p99 and the worst are printed.
//! - **idle cost**: pfc-bridge's CPU (utime + stime) over SECONDS with nothing sent, the
//!   watchdog on and off, alternated.
//!
//! Run as root, after `cargo build --release -p pfc-bridge --bin pfc-bridge`:
//! `cargo run --release -p pfc-bridge --example watchdog_bench -- [RUNS] [SECONDS]`

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use test_support::bridge::{port, start_bridge, state_when};
use test_support::hosts::{data, hosts, send, Hosts, Storm};
use test_support::netns::Daemon;
use test_support::Scratch;

const DETECTION_MS: u64 = 200;

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

fn class3(state: &Value) -> &Value {
    &port(state, "p2")["watchdog"][3]
}

/// A bridge on its own namespaces; `watchdog` is the port spec's watchdog part.
fn bed(tag: &str, watchdog: &str) -> (Hosts, Daemon, std::path::PathBuf, Scratch) {
    let scratch = Scratch::new(&format!("wd-bench-{tag}"));
    let h = hosts(tag);
    let (p1, p2) = (format!("p1,pfc=3,{watchdog}"), format!("p2,pfc=3,{watchdog}"));
    let args = ["--port", p1.as_str(), "--port", p2.as_str(), "--speed", "10G"];
    let (state, bridge) = start_bridge(&h.sw, &scratch, &args);
    (h, bridge, state, scratch)
}

/// One storm: the detection error in microseconds, or `None` when the storm's own sender was
/// held off past a pause (the run says nothing).
fn detection_error(run: usize) -> Option<f64> {
    let (mut h, _bridge, state, _scratch) =
        bed(&format!("wdb{run}"), &format!("detect={DETECTION_MS}"));
    let storm = Storm::start(&h.h2_ns);
    state_when(&state, "p2 paused", |s| port(s, "p2")["priority_paused"] == 1 << 3);
    let sent = unix_ns();
    send(&mut h.h1, &data(3, 0));
    let s = state_when(&state, "the storm found", |s| class3(s)["storms_detected"] == 1);
    let gap = storm.stop();
    let found = class3(&s)["last_storm_start_unix_ns"].as_u64()?;
    if gap >= test_support::hosts::storm_held(dataplane::time::LinkSpeed::G10) {
        eprintln!("run {run}: the storm's sender was held off {gap:?}; not counted");
        return None;
    }
    Some((found as f64 - sent as f64 - DETECTION_MS as f64 * 1e6) / 1e3)
}

/// pfc-bridge's CPU share over `secs` seconds with nothing to do.
fn idle_cpu(tag: &str, watchdog: &str, secs: u64) -> f64 {
    let (_h, bridge, _state, _scratch) = bed(tag, watchdog);
    let pid = bridge.child.id();
    std::thread::sleep(Duration::from_secs(2));
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(secs));
    let used = cpu_ticks(pid).saturating_sub(before);
    used as f64 / 100.0 / secs as f64 * 100.0
}

/// utime + stime of `pid` and its threads, in clock ticks (100 a second).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |n: usize| fields.get(n).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // Fields 14 and 15 of stat (utime, stime), counted after the name's closing parenthesis.
    field(11) + field(12)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let secs: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let mut errors: Vec<f64> = (0..runs).filter_map(detection_error).collect();
    errors.sort_by(f64::total_cmp);
    println!(
        "detection error over veth, {} storms (detection {DETECTION_MS} ms): p50 {:.1} us, p99 {:.1} us, worst {:.1} us, best {:.1} us",
        errors.len(),
        percentile(&errors, 0.5),
        percentile(&errors, 0.99),
        errors.last().copied().unwrap_or(f64::NAN),
        errors.first().copied().unwrap_or(f64::NAN),
    );
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for round in 0..2 {
        on.push(idle_cpu(&format!("wdon{round}"), "watchdog=drop", secs));
        off.push(idle_cpu(&format!("wdoff{round}"), "watchdog=off", secs));
    }
    println!(
        "idle CPU of pfc-bridge over {secs} s: watchdog on {on:.3?} %, off {off:.3?} % of a core"
    );
}
