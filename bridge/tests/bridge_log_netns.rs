//! pfc-bridge's log of bad frames is bounded but never falls silent: h1 — p1 [bridge] p2 — h2,
//! each a network namespace, PFC on priority 3 of both ports. h2 sends PFC frames naming
//! priority 5 (not enabled here): the first few are logged, the rest counted; once the limiter's
//! window is over, the next such frame is logged again, after a line that sums up how many were
//! left out.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use test_support::bridge::{port, start_bridge, state_when};
use test_support::hosts::*;
use test_support::netns::{can_run, wait_for};
use test_support::Scratch;

const WORDS: &str = "whose PFC is not enabled";

fn lines_with(log: &str, words: &str) -> usize {
    log.lines().filter(|l| l.contains(words)).count()
}

#[test]
fn the_bad_frame_log_is_bounded_and_speaks_again_after_a_while() {
    if !can_run("the_bad_frame_log_is_bounded_and_speaks_again_after_a_while") {
        return;
    }
    let scratch = Scratch::new("bridge-log");
    let Hosts { mut h2, h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("blog");
    let args = ["--port", "p1,pfc=3", "--port", "p2,pfc=3", "--speed", "10G"];
    let (state, _bridge) = start_bridge(&sw, &scratch, &args);
    let log = || std::fs::read_to_string(scratch.path("bridge.log")).unwrap_or_default();

    let started = Instant::now();
    for _ in 0..200 {
        send(&mut h2, &pfc(1 << 5, 0));
    }
    state_when(&state, "200 PFC frames for priority 5 counted", |s| {
        port(s, "p2")["pfc_to_disabled_priority"] == 200
    });
    let first = lines_with(&log(), WORDS);
    assert!((1..=5).contains(&first), "the first few logged, not all 200: {}", log());

    // After the limiter's window, the same kind is logged again, and what was left out is
    // summed up.
    let window = pfc_logging::limit::INTERVAL + Duration::from_millis(500);
    std::thread::sleep(window.saturating_sub(started.elapsed()));
    send(&mut h2, &pfc(1 << 5, 0));
    let text = wait_for(Duration::from_secs(5), "the bad frame logged again", || {
        let text = log();
        (lines_with(&text, WORDS) > first).then_some(text)
    });
    let summary: Vec<&str> =
        text.lines().filter(|l| l.contains(pfc_logging::limit::SUPPRESSED)).collect();
    assert_eq!(summary.len(), 1, "{text}");
    let left_out = 200 - first;
    assert!(summary[0].contains(&format!("suppressed={left_out}")), "{}", summary[0]);
}
