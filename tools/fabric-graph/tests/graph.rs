//! The wait-for graph on the draft's figures: the 36-7 ring deadlocks, a chain does not, a cycle
//! held shorter than the threshold is not yet a deadlock, and a 36-6 tree names its victims.

use fabric_graph::{CycleHop, Fabric, Flow, GraphError, Hop, Observation, PortRef};

fn port(d: &str, p: &str) -> PortRef {
    PortRef::new(d, p)
}

/// Figure 36-7: b1 → b2 → b3 → b1 over ports "east" → "west"; each bridge's west ingress in XOFF
/// waits on its east egress, which its neighbour pauses. Priority 3; parts held from `since`.
fn ring(since: [u64; 3]) -> Fabric {
    let mut f = Fabric::new();
    let names = ["b1", "b2", "b3"];
    for i in 0..3 {
        f.add_link(port(names[i], "east"), port(names[(i + 1) % 3], "west")).expect("link");
    }
    for (i, d) in names.iter().enumerate() {
        f.observe(port(d, "east"), 3, Observation::paused(since[i])).expect("observe");
        f.observe(port(d, "west"), 3, Observation::xoff(since[i] + 5, &["east", "host"]))
            .expect("observe");
        // The port toward the bridge's host drains: not paused, so not part of a cycle.
        f.observe(port(d, "host"), 3, Observation::default()).expect("observe");
    }
    f
}

#[test]
fn the_36_7_ring_is_one_deadlock_of_three_bridges() {
    let f = ring([100, 300, 200]);
    let found = f.deadlocks(10_000, 1_000);
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d.priority, 3);
    assert_eq!(d.devices(), ["b1", "b2", "b3"], "starts at the least egress, in wait order");
    assert_eq!(
        d.cycle[0],
        CycleHop { egress: port("b1", "east"), ingress: port("b2", "west") },
        "b1's east egress is paused by b2's west ingress"
    );
    assert_eq!(d.closed_at, 305, "the latest part: b2's west ingress went into XOFF at 305");
}

/// A collector that keeps its fabric between rounds: the next round's observations alone count,
/// over the same links.
#[test]
fn cleared_observations_leave_the_links_for_the_next_round() {
    let mut f = ring([100, 300, 200]);
    f.clear_observations();
    assert!(f.deadlocks(10_000, 1_000).is_empty(), "no observation, no deadlock");
    assert_eq!(f.links().len(), 3);
    assert_eq!(f.peer(&port("b1", "east")), Some(&port("b2", "west")));
    for d in ["b1", "b2", "b3"] {
        f.observe(port(d, "east"), 3, Observation::paused(400)).expect("observe");
        f.observe(port(d, "west"), 3, Observation::xoff(500, &["east"])).expect("observe");
    }
    let found = f.deadlocks(10_000, 1_000);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].closed_at, 500, "only this round's times");
}

#[test]
fn a_chain_has_no_deadlock() {
    let mut f = ring([100, 100, 100]);
    // b3 → b1 no longer paused: b3's east egress sends.
    let mut fresh = Fabric::new();
    for l in f.links() {
        fresh.add_link(l.a.clone(), l.b.clone()).expect("link");
    }
    for (d, p) in [("b1", "east"), ("b2", "east")] {
        fresh.observe(port(d, p), 3, Observation::paused(100)).expect("observe");
    }
    for d in ["b2", "b3"] {
        fresh.observe(port(d, "west"), 3, Observation::xoff(100, &["east"])).expect("observe");
    }
    f = fresh;
    assert!(f.deadlocks(10_000, 0).is_empty());
    // The chain is a congestion tree instead: b3's east egress drains slower than it is fed.
    let trees = f.congestion_trees(&[]);
    assert_eq!(trees.len(), 1, "{trees:?}");
    assert_eq!(trees[0].root, port("b3", "east"));
    assert_eq!(trees[0].paused, [port("b1", "east"), port("b2", "east")]);
}

#[test]
fn a_cycle_held_shorter_than_the_threshold_is_not_reported() {
    let f = ring([100, 300, 9_500]);
    assert!(f.deadlocks(10_000, 1_000).is_empty(), "b3's part has held 500 ns only");
    assert_eq!(f.deadlocks(10_505, 1_000).len(), 1, "and 1000 ns later it has");
}

#[test]
fn two_cycles_sharing_an_egress_are_each_reported_once() {
    // Two links each way between b1 and b2; every ingress waits on both egresses back: four
    // cycles of two egresses and two of all four, each once.
    let mut f = Fabric::new();
    f.add_link(port("b1", "e1"), port("b2", "i1")).expect("link");
    f.add_link(port("b2", "e1"), port("b1", "i1")).expect("link");
    f.add_link(port("b1", "e2"), port("b2", "i2")).expect("link");
    f.add_link(port("b2", "e2"), port("b1", "i2")).expect("link");
    for d in ["b1", "b2"] {
        for e in ["e1", "e2"] {
            f.observe(port(d, e), 3, Observation::paused(0)).expect("observe");
        }
        for i in ["i1", "i2"] {
            f.observe(port(d, i), 3, Observation::xoff(0, &["e1", "e2"])).expect("observe");
        }
    }
    let found = f.deadlocks(100, 10);
    let cycles: Vec<Vec<String>> =
        found.iter().map(|d| d.cycle.iter().map(|h| h.egress.to_string()).collect()).collect();
    assert_eq!(
        cycles,
        [
            vec!["b1:e1", "b2:e1"],
            vec!["b1:e1", "b2:e1", "b1:e2", "b2:e2"],
            vec!["b1:e1", "b2:e2"],
            vec!["b1:e1", "b2:e2", "b1:e2", "b2:e1"],
            vec!["b1:e2", "b2:e1"],
            vec!["b1:e2", "b2:e2"],
        ]
    );
}

/// A routing loop between two routers over one link: each sends the looping frames back out
/// of the port they came in by, so each end's ingress waits on its own egress, which the other
/// end pauses: a cycle of two hops on one link.
#[test]
fn a_routing_loop_on_one_link_is_a_deadlock_of_two_hops() {
    let mut f = Fabric::new();
    f.add_link(port("lf2", "s2"), port("sp2", "l2")).expect("link");
    for (d, p) in [("lf2", "s2"), ("sp2", "l2")] {
        f.observe(port(d, p), 3, Observation::paused(100)).expect("observe");
        f.observe(port(d, p), 3, Observation::xoff(150, &[p])).expect("observe");
    }
    let found = f.deadlocks(10_000, 1_000);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].cycle,
        vec![
            CycleHop { egress: port("lf2", "s2"), ingress: port("sp2", "l2") },
            CycleHop { egress: port("sp2", "l2"), ingress: port("lf2", "s2") },
        ]
    );
    // Unknown waits are a bridge's: never back out of the reception port, so no cycle.
    let mut f = Fabric::new();
    f.add_link(port("b1", "p"), port("b2", "p")).expect("link");
    for d in ["b1", "b2"] {
        f.observe(port(d, "p"), 3, Observation::paused(100)).expect("observe");
        let unknown = Observation { waits_on: None, ..Observation::xoff(150, &[]) };
        f.observe(port(d, "p"), 3, unknown).expect("observe");
    }
    assert!(f.deadlocks(10_000, 1_000).is_empty());
}

#[test]
fn an_unknown_wait_assumes_every_paused_egress_of_the_device() {
    let mut f = ring([0, 0, 0]);
    let mut unknown = Fabric::new();
    for l in f.links() {
        unknown.add_link(l.a.clone(), l.b.clone()).expect("link");
    }
    for d in ["b1", "b2", "b3"] {
        unknown.observe(port(d, "east"), 3, Observation::paused(0)).expect("observe");
        let xoff = Observation { ingress_xoff_since: Some(0), ..Observation::default() };
        unknown.observe(port(d, "west"), 3, xoff).expect("observe");
    }
    f = unknown;
    assert_eq!(f.deadlocks(100, 10).len(), 1);
}

/// Figure 36-6: s1 forwards hosts a (culprit) and b (victim) to s2 over one link; s2 sends a's
/// frames and d's to c, whose port congests, and b's to v, which has bandwidth. s2's ingress
/// from s1 is in XOFF waiting on the port to c; s1's egress to s2 is paused; s1's ingresses from
/// a and b are in XOFF waiting on it.
#[test]
fn a_36_6_tree_names_its_root_and_its_victims() {
    let mut f = Fabric::new();
    f.add_link(port("s1", "up"), port("s2", "from-s1")).expect("link");
    f.observe(port("s1", "up"), 3, Observation::paused(10)).expect("observe");
    for host in ["a", "b"] {
        f.observe(port("s1", host), 3, Observation::xoff(20, &["up"])).expect("observe");
    }
    f.observe(port("s2", "from-s1"), 3, Observation::xoff(5, &["c", "v"])).expect("observe");
    f.observe(port("s2", "d"), 3, Observation::xoff(5, &["c"])).expect("observe");
    let backlog = Observation { egress_backlog: true, ..Observation::default() };
    f.observe(port("s2", "c"), 3, backlog).expect("observe");
    let hop = |d: &str, i: Option<&str>, o: Option<&str>| Hop {
        device: d.to_string(),
        in_port: i.map(str::to_string),
        out_port: o.map(str::to_string),
    };
    let flow = |name: &str, path: Vec<Hop>| Flow { name: name.to_string(), priority: 3, path };
    let flows = [
        flow("a-c", vec![hop("s1", Some("a"), Some("up")), hop("s2", Some("from-s1"), Some("c"))]),
        flow("d-c", vec![hop("s2", Some("d"), Some("c"))]),
        flow("b-v", vec![hop("s1", Some("b"), Some("up")), hop("s2", Some("from-s1"), Some("v"))]),
        flow("d-w", vec![hop("s2", Some("x"), Some("w"))]),
    ];
    let trees = f.congestion_trees(&flows);
    assert_eq!(trees.len(), 2, "roots: the port to c and the port to v (waited on, not paused)");
    let to_c = trees.iter().find(|t| t.root == port("s2", "c")).expect("the port to c is a root");
    assert_eq!(to_c.paused, [port("s1", "up")]);
    assert_eq!(
        to_c.xoff,
        [port("s1", "a"), port("s1", "b"), port("s2", "d"), port("s2", "from-s1")]
    );
    assert_eq!(to_c.caught, ["a-c", "b-v", "d-c"]);
    assert_eq!(to_c.victims, ["b-v"], "b's flow is held though its own port has bandwidth");
}

/// A collector that cannot tell which egresses an ingress's frames wait for: each XOFF ingress
/// waits on every other paused or backlogged egress of its device, and the tree is the same.
#[test]
fn a_tree_through_ingresses_whose_waits_are_unknown() {
    let mut f = Fabric::new();
    f.add_link(port("s1", "up"), port("s2", "from-s1")).expect("link");
    f.observe(port("s1", "up"), 3, Observation::paused(10)).expect("observe");
    let unknown = Observation { ingress_xoff_since: Some(20), ..Observation::default() };
    for host in ["a", "b"] {
        f.observe(port("s1", host), 3, unknown.clone()).expect("observe");
    }
    f.observe(port("s2", "from-s1"), 3, unknown).expect("observe");
    let backlog = Observation { egress_backlog: true, ..Observation::default() };
    f.observe(port("s2", "c"), 3, backlog).expect("observe");
    let trees = f.congestion_trees(&[]);
    assert_eq!(trees.len(), 1, "{trees:?}");
    assert_eq!(trees[0].root, port("s2", "c"));
    assert_eq!(trees[0].paused, [port("s1", "up")]);
    assert_eq!(trees[0].xoff, [port("s1", "a"), port("s1", "b"), port("s2", "from-s1")]);
}

#[test]
fn bad_input_is_refused_with_what_to_fix() {
    let mut f = Fabric::new();
    f.add_link(port("b1", "p1"), port("b2", "p1")).expect("link");
    f.add_link(port("b2", "p1"), port("b1", "p1")).expect("the same link again is no change");
    assert_eq!(f.links().len(), 1);
    let err = f.add_link(port("b1", "p1"), port("b3", "p1")).expect_err("p1 is taken");
    assert_eq!(err.to_string(), "port b1:p1 is already linked to b2:p1: a port has one link");
    assert_eq!(
        f.observe(port("b1", "p1"), 8, Observation::default()),
        Err(GraphError::Priority(8))
    );
    assert!(f.add_link(port("b1", "p2"), port("b1", "p2")).is_err());
}

#[test]
fn results_and_inputs_serialise() {
    let f = ring([0, 0, 0]);
    let found = f.deadlocks(100, 10);
    let json = serde_json::to_value(&found).expect("serialises");
    assert_eq!(json[0]["cycle"][0]["egress"]["device"], "b1");
    assert_eq!(json[0]["closed_at"], 5);
    let back: Fabric =
        serde_json::from_str(&serde_json::to_string(&f).expect("serialises")).expect("parses");
    assert_eq!(back, f);
}
