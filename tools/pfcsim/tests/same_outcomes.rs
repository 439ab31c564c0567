//! What a network run simulates stays the same as the simulator gets faster: each shipped
//! network scenario's JSON (every flow's throughput, loss, latency and windows, every link's
//! pause time and PFC frames, every port's buffer peak, the deadlocks, trees and watchdog
//! events) equals, digit for digit, a reference copy kept in `tests/outcomes/`. Only `events`,
//! what the run cost, is left out. A change that means to change an outcome rewrites the copies
//! with `PFCSIM_WRITE_OUTCOMES=1` and says why in its commit.

use std::path::{Path, PathBuf};

use pfcsim::network::{load_network, run_network};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn outcomes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/outcomes")
}

/// The run's JSON without its cost, as stable text; `duration_us` in place of the file's.
fn outcome_text(scenario: &str, duration_us: Option<u64>) -> String {
    let mut file = load_network(&scenarios().join(format!("{scenario}.toml")))
        .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    if let Some(us) = duration_us {
        file.run.duration_us = us;
    }
    let r = run_network(&file).unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let mut v = serde_json::to_value(&r).expect("serialises");
    let cost = v.as_object_mut().and_then(|o| o.remove("events"));
    assert!(cost.is_some_and(|e| e.as_u64().is_some_and(|n| n > 0)), "the run counts its events");
    serde_json::to_string_pretty(&v).expect("prints") + "\n"
}

fn assert_same_outcome(scenario: &str) {
    assert_same_outcome_for(scenario, None, scenario);
}

/// Runs `scenario` (for `duration_us`, if given) and compares with the reference `reference`.
fn assert_same_outcome_for(scenario: &str, duration_us: Option<u64>, reference: &str) {
    let text = outcome_text(scenario, duration_us);
    let path = outcomes().join(format!("{reference}.json"));
    if std::env::var_os("PFCSIM_WRITE_OUTCOMES").is_some() {
        std::fs::create_dir_all(outcomes()).expect("creates tests/outcomes");
        std::fs::write(&path, &text).expect("writes the reference");
        return;
    }
    let reference = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (write it with PFCSIM_WRITE_OUTCOMES=1)", path.display())
    });
    if text != reference {
        let line = text
            .lines()
            .zip(reference.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| text.lines().count().min(reference.lines().count()));
        let show =
            |t: &str| t.lines().skip(line.saturating_sub(3)).take(7).collect::<Vec<_>>().join("\n");
        panic!(
            "{scenario}: the outcome differs from {} at line {}:\n--- now\n{}\n--- reference\n{}",
            path.display(),
            line + 1,
            show(&text),
            show(&reference)
        );
    }
}

#[test]
fn the_leaf_spine_incast_simulates_the_same_outcome() {
    assert_same_outcome("fabric-leaf-spine-incast");
}

/// The run `pfcsim bench-fabric` measures: 20 ms, long enough for the pauses to reach every
/// sender's uplink and come and go many times.
#[test]
fn the_leaf_spine_incast_simulates_the_same_outcome_for_20_ms() {
    assert_same_outcome_for(
        "fabric-leaf-spine-incast",
        Some(20_000),
        "fabric-leaf-spine-incast-20ms",
    );
}

#[test]
fn the_small_leaf_spine_incast_simulates_the_same_outcome() {
    assert_same_outcome("fabric-leaf-spine-small-incast");
}

#[test]
fn the_leaf_spine_routing_loop_simulates_the_same_outcome() {
    assert_same_outcome("fabric-leaf-spine-loop");
}

#[test]
fn figure_36_6_simulates_the_same_outcome() {
    assert_same_outcome("fabric-36-6-spreading");
}

#[test]
fn figure_36_7_and_its_remedies_simulate_the_same_outcomes() {
    for scenario in ["fabric-36-7-deadlock", "fabric-36-7-transit-delay", "fabric-36-7-watchdog"] {
        assert_same_outcome(scenario);
    }
}
