//! The shipped network scenarios (`scenarios/fabric-*.toml`) run through the library entry point
//! `pfcsim network` uses, and their JSON shows what 802.1Q 36.2.4 and 36.2.5 describe.

use std::path::{Path, PathBuf};

use pfcsim::network::{parse_network, table, FlowResult, NetworkResults};
use pfcsim::{load_network, run_network, run_network_file, NetworkError};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Runs a shipped network; its results print and serialise, and are read back from the JSON as
/// a user of `--json` reads them.
fn run(name: &str) -> serde_json::Value {
    let r: NetworkResults =
        run_network_file(&scenarios().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(table(&r).contains(&r.name));
    serde_json::to_value(&r).expect("serialises")
}

fn flow<'a>(r: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    r["flows"].as_array().into_iter().flatten().find(|f| f["name"] == name).expect("the flow")
}

fn windows(f: &serde_json::Value) -> Vec<f64> {
    f["windows_gbps"].as_array().into_iter().flatten().filter_map(|w| w.as_f64()).collect()
}

fn lost(f: &serde_json::Value, why: &str) -> u64 {
    f["lost_frames"][why].as_u64().expect("a count")
}

/// The ring's cycle, as 36-7 draws it: each bridge's clockwise egress paused by the next
/// bridge's counter-clockwise ingress.
fn assert_ring_cycle(d: &serde_json::Value) {
    assert_eq!(d["priority"], 3);
    let hops: Vec<(String, String)> = d["cycle"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            let name = |p: &serde_json::Value| format!("{}:{}", p["device"], p["port"]);
            (name(&h["egress"]).replace('"', ""), name(&h["ingress"]).replace('"', ""))
        })
        .collect();
    let expected = [("b1:cw", "b2:ccw"), ("b2:cw", "b3:ccw"), ("b3:cw", "b1:ccw")];
    let expected: Vec<(String, String)> =
        expected.iter().map(|(e, i)| (e.to_string(), i.to_string())).collect();
    assert_eq!(hops, expected);
    // f3 starts at 6 ms and closes the cycle within its first frames.
    let closed = d["closed_at_us"].as_f64().expect("a time");
    assert!((6_000.0..6_500.0).contains(&closed), "closed at {closed} us");
}

#[test]
fn every_network_scenario_is_tested() {
    let mut names: Vec<String> = std::fs::read_dir(scenarios())
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("fabric-") && n.ends_with(".toml"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "fabric-36-6-spreading.toml",
            "fabric-36-7-deadlock.toml",
            "fabric-36-7-transit-delay.toml",
            "fabric-36-7-watchdog.toml",
            "fabric-leaf-spine-incast.toml",
            "fabric-leaf-spine-loop.toml",
            "fabric-leaf-spine-small-incast.toml",
        ]
    );
}

/// A failed link leaves a transient routing loop between lf2 and sp2: f1's frames cross that
/// link three times each way, and each end's ingress waits on its own port's egress, which the
/// other end pauses. The deadlock is that one link's two directions; f2, which shares no port
/// with the loop, runs on at its rate.
#[test]
fn a_routing_loop_after_a_link_failure_deadlocks_its_link_and_spares_the_rest() {
    let r = run("fabric-leaf-spine-loop.toml");
    let deadlocks = r["deadlocks"].as_array().expect("a list");
    assert_eq!(deadlocks.len(), 1, "the loop's cycle only: {deadlocks:?}");
    let hops: Vec<String> = deadlocks[0]["cycle"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| format!("{}:{}", h["egress"]["device"], h["egress"]["port"]).replace('"', ""))
        .collect();
    assert_eq!(hops, ["lf2:s2", "sp2:l2"], "{deadlocks:?}");
    assert!(deadlocks[0]["broken_at_us"].is_null(), "no remedy: it holds");
    let f1 = flow(&r, "f1");
    let late = windows(f1);
    assert!(late[late.len() / 2..].iter().all(|g| *g == 0.0), "f1 stopped for good: {late:?}");
    let f2 = flow(&r, "f2");
    assert!(f2["throughput_gbps"].as_f64().expect("a rate") > 3.8, "f2 runs on: {f2}");
    assert_eq!(f2["paused_us"].as_f64(), Some(0.0), "f2 never paused: {f2}");
    for f in [f1, f2] {
        for why in ["buffer", "watchdog", "transit"] {
            assert_eq!(lost(f, why), 0, "lossless: {f}");
        }
    }
}

#[test]
fn figure_36_7_deadlocks_for_good_without_a_remedy() {
    let r = run("fabric-36-7-deadlock.toml");
    let deadlocks = r["deadlocks"].as_array().expect("a list");
    assert_eq!(deadlocks.len(), 1, "exactly the ring's cycle: {deadlocks:?}");
    assert_ring_cycle(&deadlocks[0]);
    assert!(deadlocks[0]["broken_at_us"].is_null(), "never broken");
    assert_eq!(r["remedy_discards"], 0);
    for name in ["f1", "f2", "f3"] {
        let f = flow(&r, name);
        let w = windows(f);
        // From 7 ms to the end (30 ms), long after f3 stopped at 12 ms: nothing moves.
        assert!(w[7..].iter().all(|g| *g == 0.0), "{name} after the deadlock: {w:?}");
        assert_eq!(lost(f, "buffer"), 0, "{name}: PFC loses nothing, it holds everything");
    }
    assert!(windows(flow(&r, "f1"))[0] > 9.0, "f1 ran at line rate alone");
    assert!(windows(flow(&r, "f2"))[4] > 4.0, "f1 and f2 shared b2 -> b3 before f3 came");
}

/// A remedy breaks the cycle; once f3 has stopped it does not form again and f1 and f2 get
/// their shares of b2 -> b3 back. Returns the deadlock and f1's record.
fn assert_restored(name: &str) -> (serde_json::Value, serde_json::Value) {
    let r = run(name);
    let deadlocks = r["deadlocks"].as_array().expect("a list");
    assert_eq!(deadlocks.len(), 1, "{deadlocks:?}");
    let d = deadlocks[0].clone();
    assert_ring_cycle(&d);
    let closed = d["closed_at_us"].as_f64().expect("a time");
    let broken = d["broken_at_us"].as_f64().expect("the remedy broke it");
    let cleared = d["cleared_at_us"].as_f64().expect("gone by the end");
    assert!(broken > closed && cleared < 25_000.0, "{d}");
    for name in ["f1", "f2"] {
        let w = windows(flow(&r, name));
        assert!(w[25..].iter().all(|g| *g > 4.0), "{name} restored: {w:?}");
    }
    assert!(r["remedy_discards"].as_u64().expect("a count") > 0, "a remedy costs frames");
    (d, flow(&r, "f1").clone())
}

#[test]
fn figure_36_7_the_maximum_transit_delay_restores_traffic() {
    let (d, f1) = assert_restored("fabric-36-7-transit-delay.toml");
    // Frames go once held 5 ms: the cycle lasts at least that long each time it forms.
    let held =
        d["broken_at_us"].as_f64().unwrap_or(0.0) - d["closed_at_us"].as_f64().unwrap_or(0.0);
    assert!(held >= 5_000.0, "held {held} us");
    assert!(lost(&f1, "transit") > 0);
    assert_eq!(lost(&f1, "watchdog"), 0);
}

#[test]
fn figure_36_7_the_watchdog_restores_traffic() {
    let (d, f1) = assert_restored("fabric-36-7-watchdog.toml");
    let held =
        d["broken_at_us"].as_f64().unwrap_or(0.0) - d["closed_at_us"].as_f64().unwrap_or(0.0);
    assert!(held >= 5_000.0, "detection takes 5 ms: held {held} us");
    assert!(lost(&f1, "watchdog") > 0);
    assert_eq!(lost(&f1, "transit"), 0);
}

#[test]
fn figure_36_6_the_victim_is_delayed_though_its_port_is_idle() {
    let path = scenarios().join("fabric-36-6-spreading.toml");
    let r = run("fabric-36-6-spreading.toml");
    // The same network with the victim's flow alone: its latency when nothing congests.
    let mut alone = load_network(&path).expect("loads");
    alone.flows.retain(|f| f.name == "b-v");
    let alone = run_network(&alone).expect("runs");
    let quiet: &FlowResult = &alone.flows[0];
    let victim = flow(&r, "b-v");
    let p99 = victim["latency_p99_us"].as_f64().expect("delivered");
    let quiet_p99 = quiet.latency_p99_us.expect("delivered");
    assert!(p99 > 2.0 * quiet_p99, "victim p99 {p99} us, alone {quiet_p99} us");
    assert!(victim["paused_us"].as_f64().unwrap_or(0.0) > 0.0, "its host was paused");
    assert_eq!(quiet.paused_us, 0.0, "alone it never is");
    assert_eq!(lost(victim, "buffer"), 0);
    // The victim's own egress to v was never paused: the bandwidth was there.
    let to_v = r["links"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|l| l["egress"] == "s2:v")
        .expect("the port to v");
    assert_eq!(to_v["paused_us"], 0.0);
    // The congestion tree from the port to c names b's flow as its victim.
    let tree = r["congestion_trees"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["root"]["device"] == "s2" && t["root"]["port"] == "c")
        .expect("a tree from s2's port to c");
    assert_eq!(tree["victims"], serde_json::json!(["b-v"]));
    assert_eq!(tree["caught"], serde_json::json!(["a-c", "b-v", "d-c"]));
    assert!(tree["paused"].as_array().into_iter().flatten().any(|p| p["port"] == "up"));
}

#[test]
fn a_bad_network_file_is_refused_with_what_to_fix() {
    let base =
        std::fs::read_to_string(scenarios().join("fabric-36-6-spreading.toml")).expect("reads");
    let refused = |from: &str, to: &str| -> String {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let file = parse_network("test", &text).expect("parses");
        let err: NetworkError = run_network(&file).expect_err("refused");
        err.to_string()
    };
    assert!(refused("b = \"s1:a\"", "b = \"s1:z\"").contains("\"s1:z\" names no port"));
    assert!(refused("path = [\"d\", \"s2\", \"c\"]", "path = [\"d\", \"s1\", \"c\"]")
        .contains("no link joins d and s1"));
    assert!(
        refused("rate_mbps = 3000", "rate_mbps = 30000").contains("rate_mbps must be 1 to 10000")
    );
    assert!(refused("name = \"s2\"\n", "name = \"s2\"\nmax_transit_ms = 0\n")
        .contains("give 1 to 4000"));
}

#[test]
fn a_leaf_spine_incast_tree_names_the_congested_port_and_every_victim() {
    let r = run("fabric-leaf-spine-incast.toml");
    let tree = r["congestion_trees"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["root"]["device"] == "lf1" && t["root"]["port"] == "h1")
        .expect("a tree from leaf 1's port to h1-1, the incast's target");
    assert_eq!(tree["victims"], serde_json::json!(["victim-2", "victim-3"]));
    let caught: Vec<&str> =
        tree["caught"].as_array().into_iter().flatten().filter_map(|f| f.as_str()).collect();
    for l in 2..=8 {
        assert!(caught.contains(&format!("incast-{l}").as_str()), "incast-{l} in {caught:?}");
    }
    // The pauses spread up to every spine's port toward leaf 1 and the senders' uplinks.
    let paused: Vec<String> = tree["paused"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| format!("{}:{}", p["device"], p["port"]).replace('"', ""))
        .collect();
    for port in ["sp1:l1", "sp2:l1", "sp3:l1", "sp4:l1", "lf2:s2", "lf3:s3"] {
        assert!(paused.contains(&port.to_string()), "{port} in {paused:?}");
    }
    // The victims' own ports to their receivers were never paused; nothing was lost.
    for egress in ["lf5:h2", "lf6:h2"] {
        let link = r["links"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|l| l["egress"] == egress)
            .expect("the victim's last port");
        assert_eq!(link["paused_us"], 0.0, "{egress}");
    }
    for f in r["flows"].as_array().into_iter().flatten() {
        assert_eq!(lost(f, "buffer"), 0, "{}", f["name"]);
    }
    assert!(r["deadlocks"].as_array().is_some_and(Vec::is_empty), "an incast is no deadlock");
}

/// The small leaf-spine (2 spines, 3 leaves) that pfcd on veth runs too
/// (`tools/fabric/tests/incast_netns.rs` compares its live tree with this one): the tree from
/// h1-1's port names both incast flows and, as victims, the two flows between the second hosts
/// of leaves 2 and 3, which share a paused uplink with an incast flow and go elsewhere.
#[test]
fn a_small_leaf_spine_incast_tree_names_its_congested_port_and_both_victims() {
    let r = run("fabric-leaf-spine-small-incast.toml");
    let tree = r["congestion_trees"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["root"]["device"] == "lf1" && t["root"]["port"] == "h1")
        .expect("a tree from leaf 1's port to h1-1, the incast's target");
    assert_eq!(tree["victims"], serde_json::json!(["victim-2", "victim-3"]));
    assert_eq!(tree["caught"], serde_json::json!(["incast-2", "incast-3", "victim-2", "victim-3"]));
    let ports = |key: &str| -> Vec<String> {
        tree[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| format!("{}:{}", p["device"], p["port"]).replace('"', ""))
            .collect()
    };
    assert_eq!(ports("paused"), ["sp1:l1", "sp2:l1"], "the spines' ports toward leaf 1");
    for ingress in ["lf1:s1", "lf1:s2", "sp1:l2", "sp2:l3"] {
        assert!(ports("xoff").contains(&ingress.to_string()), "{ingress} in {:?}", ports("xoff"));
    }
    // The pauses reach the senders' uplinks; the victims' last ports are never paused, and
    // nothing is lost.
    let paused_us = |egress: &str| {
        let link = r["links"].as_array().into_iter().flatten().find(|l| l["egress"] == egress);
        link.and_then(|l| l["paused_us"].as_f64()).expect("the link")
    };
    assert!(paused_us("lf2:s1") > 0.0 && paused_us("lf3:s2") > 0.0);
    assert_eq!(paused_us("lf3:h2") + paused_us("lf2:h2"), 0.0);
    for f in r["flows"].as_array().into_iter().flatten() {
        assert_eq!(lost(f, "buffer"), 0, "{}", f["name"]);
    }
    assert!(r["deadlocks"].as_array().is_some_and(Vec::is_empty), "an incast is no deadlock");
}

/// The drawing: one coloured half-line per direction of every link, the deadlock's three
/// hops dashed over their paused directions, and one throughput line per flow.
#[test]
fn the_drawing_shows_every_link_direction_and_dashes_the_deadlock() {
    let file = load_network(&scenarios().join("fabric-36-7-deadlock.toml")).expect("loads");
    let r = run_network(&file).expect("runs");
    let svg = pfcsim::network::network_svg(&file, &r);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
    // 3 host links and 3 ring links, both ways.
    assert_eq!(svg.matches("<title>").count(), 12, "{svg}");
    assert_eq!(svg.matches("stroke-dasharray").count(), 3, "the cycle's hops: {svg}");
    assert!(svg.contains("b1:cw → b2:ccw: paused"), "{svg}");
    assert_eq!(svg.matches("<polyline").count(), 3, "a line per flow: {svg}");

    let file = load_network(&scenarios().join("fabric-36-6-spreading.toml")).expect("loads");
    let r = run_network(&file).expect("runs");
    let svg = pfcsim::network::network_svg(&file, &r);
    assert_eq!(svg.matches("stroke-dasharray").count(), 0, "no deadlock in 36-6: {svg}");
}

/// A path that is lossless at its first bridge and lossy at the next: a frame queued at the
/// second holds no buffer of the first (it freed that when it left there), so leaving the
/// second frees nothing of the first's again. The simulator checks that every frame frees a
/// buffer of the bridge it leaves (a debug assertion, on in tests); here s2 drops what its
/// congested port to c cannot take, and s1, whose buffers the flows only pass, drops nothing.
#[test]
fn a_path_lossless_then_lossy_frees_each_bridge_buffer_once() {
    let text = r#"
name = "lossless-then-lossy"
description = "s1 pauses its hosts on priority 3, s2 treats it as lossy"

[run]
duration_us = 20000
sample_us = 200
window_us = 1000

[[bridge]]
name = "s1"
ports = ["a", "up"]

[[bridge]]
name = "s2"
ports = ["from-s1", "c", "d"]
pfc_priorities = []

[[host]]
name = "a"

[[host]]
name = "c"

[[host]]
name = "d"

[[link]]
a = "a"
b = "s1:a"
speed = "10G"

[[link]]
a = "s1:up"
b = "s2:from-s1"
speed = "10G"

[[link]]
a = "s2:c"
b = "c"
speed = "10G"

[[link]]
a = "d"
b = "s2:d"
speed = "10G"

[[flow]]
name = "a-c"
path = ["a", "s1", "s2", "c"]
rate_mbps = 6000

[[flow]]
name = "d-c"
path = ["d", "s2", "c"]
rate_mbps = 6000
"#;
    let file = parse_network("lossless-then-lossy", text).expect("parses");
    let r = serde_json::to_value(run_network(&file).expect("runs")).expect("serialises");
    let drops = |prefix: &str| -> u64 {
        r["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["port"].as_str().is_some_and(|n| n.starts_with(prefix)))
            .map(|p| p["drops"]["buffer"].as_u64().unwrap_or(0))
            .sum()
    };
    assert!(drops("s2:c") > 0, "s2's congested port drops: {}", r["ports"]);
    assert_eq!(drops("s1:"), 0, "s1 only passes the flows on");
    for name in ["a-c", "d-c"] {
        assert!(flow(&r, name)["delivered_frames"].as_u64().unwrap_or(0) > 0, "{name}");
    }
}
