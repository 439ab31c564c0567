//! The wait-for graph filled by port numbers, as a simulator samples it: the same deadlocks and
//! trees as the named [`Fabric`] gives, in the order of the ports' names whatever order the
//! ports were numbered in, round after round over the same ports.

use fabric_graph::{
    CycleHop, Fabric, Flow, GraphError, Hop, Observation, PortGraph, PortRef, PortState,
};

fn port(d: &str, p: &str) -> PortRef {
    PortRef::new(d, p)
}

/// Figure 36-7's ring, ports numbered from the last bridge to the first.
fn ring() -> (PortGraph, Vec<(usize, usize)>) {
    let mut g = PortGraph::new();
    let names = ["b3", "b2", "b1"];
    let ends: Vec<(usize, usize)> =
        names.iter().map(|d| (g.port(&port(d, "east")), g.port(&port(d, "west")))).collect();
    // b3 east → b1 west, b2 east → b3 west, b1 east → b2 west.
    for i in 0..3 {
        g.link(ends[i].0, ends[(i + 2) % 3].1);
    }
    (g, ends)
}

fn observe_ring(g: &mut PortGraph, ends: &[(usize, usize)], since: u64) {
    for (east, west) in ends {
        let paused = PortState {
            egress_paused_since: Some(since),
            egress_backlog: true,
            ..PortState::default()
        };
        g.observe(*east, 3, paused).expect("observe");
        let waits = [*east];
        let xoff = PortState {
            ingress_xoff_since: Some(since + 5),
            waits_on: Some(&waits),
            ..PortState::default()
        };
        g.observe(*west, 3, xoff).expect("observe");
    }
}

#[test]
fn ports_by_number_give_the_36_7_deadlock_in_name_order_round_after_round() {
    let (mut g, ends) = ring();
    observe_ring(&mut g, &ends, 100);
    let found = g.deadlocks(10_000, 1_000);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].devices(), ["b1", "b2", "b3"], "starts at the least egress by name");
    assert_eq!(
        found[0].cycle[0],
        CycleHop { egress: port("b1", "east"), ingress: port("b2", "west") }
    );
    assert_eq!(found[0].closed_at, 105);

    g.clear_observations();
    assert!(g.deadlocks(10_000, 1_000).is_empty(), "no observation, no deadlock");
    observe_ring(&mut g, &ends, 400);
    let found = g.deadlocks(10_000, 1_000);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].closed_at, 405, "only this round's times");

    let refused = g.observe(ends[0].0, 8, PortState::default());
    assert_eq!(refused, Err(GraphError::Priority(8)), "priorities are 0 to 7");
    assert_eq!(g.deadlocks(10_000, 1_000), found, "a refused observation changes nothing");
}

/// Figure 36-6 (as in `graph.rs`), numbered by the graph and named by the fabric: the same
/// trees, and by numbers the root, its paused egresses and XOFF ingresses in name order, the
/// flows by their index.
#[test]
fn ports_by_number_give_the_36_6_tree_the_named_fabric_gives() {
    let hop = |d: &str, i: &str, o: &str| Hop {
        device: d.to_string(),
        in_port: Some(i.to_string()),
        out_port: Some(o.to_string()),
    };
    let flow = |name: &str, path: Vec<Hop>| Flow { name: name.to_string(), priority: 3, path };
    let flows = [
        flow("b-v", vec![hop("s1", "b", "up"), hop("s2", "from-s1", "v")]),
        flow("a-c", vec![hop("s1", "a", "up"), hop("s2", "from-s1", "c")]),
        flow("d-c", vec![hop("s2", "d", "c")]),
    ];

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

    let mut g = PortGraph::new();
    let [v, c, d, from_s1, b, a, up] = [
        ("s2", "v"),
        ("s2", "c"),
        ("s2", "d"),
        ("s2", "from-s1"),
        ("s1", "b"),
        ("s1", "a"),
        ("s1", "up"),
    ]
    .map(|(dev, p)| g.port(&port(dev, p)));
    g.link(up, from_s1);
    g.set_flows(&flows);
    let paused =
        PortState { egress_paused_since: Some(10), egress_backlog: true, ..PortState::default() };
    g.observe(up, 3, paused).expect("observe");
    for host in [a, b] {
        g.observe(
            host,
            3,
            PortState {
                ingress_xoff_since: Some(20),
                waits_on: Some(&[up]),
                ..PortState::default()
            },
        )
        .expect("observe");
    }
    let xoff = |waits: &[usize]| {
        let waits = waits.to_vec();
        move |g: &mut PortGraph, at| {
            g.observe(
                at,
                3,
                PortState {
                    ingress_xoff_since: Some(5),
                    waits_on: Some(&waits),
                    ..PortState::default()
                },
            )
        }
    };
    xoff(&[c, v])(&mut g, from_s1).expect("observe");
    xoff(&[c])(&mut g, d).expect("observe");
    g.observe(c, 3, PortState { egress_backlog: true, ..PortState::default() }).expect("observe");

    assert_eq!(g.congestion_trees(), f.congestion_trees(&flows));
    let ids = g.congestion_tree_ids();
    assert_eq!(ids.len(), 2, "roots: the port to c and the port to v");
    assert_eq!((ids[0].root, ids[1].root), (c, v), "s2:c before s2:v");
    assert_eq!(ids[0].paused, [up]);
    assert_eq!(ids[0].xoff, [a, b, d, from_s1], "in the order of their names");
    assert_eq!(ids[0].caught, [0, 1, 2], "flows by index");
    assert_eq!(ids[0].victims, [0], "b-v");
}
