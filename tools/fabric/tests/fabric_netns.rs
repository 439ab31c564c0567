//! The fabric view against pfcd on real interfaces: three pfcd in a line on veth pairs, each in
//! its own network namespace (the topology found from LLDP is exactly the veth links), and a
//! host holding one port's priority 3 paused (seen as that port's paused egress).
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fabric_graph::{Link, PortRef};
use netconf_client::{Auth, Client, ConnectOptions};
use pfc_fabric::{Collector, Endpoint, View};
use test_support::hosts::{hosts, pfc, send, Hosts, Storm};
use test_support::netns::{can_run, in_netns, veth, Netns};
use test_support::pfcd::{commit_pfc, commit_watchdog, start_pfcd, value, wait_state};
use test_support::Scratch;

mod common;
use common::endpoint;

fn up(ns: &Netns, interfaces: &[&str]) {
    ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
    ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.default.disable_ipv6=1"]);
    for i in interfaces {
        ns.link(&["set", i, "up"]);
    }
}

/// The links of a view, each with its ends in order, sorted: comparable whichever side LLDP
/// reported first.
fn links(view: &View) -> Vec<(PortRef, PortRef)> {
    let mut all: Vec<_> = view
        .links
        .iter()
        .map(|Link { a, b }| if a < b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) })
        .collect();
    all.sort();
    all
}

#[test]
fn the_topology_from_three_pfcds_lldp_is_exactly_their_veth_links() {
    if !can_run("the_topology_from_three_pfcds_lldp_is_exactly_their_veth_links") {
        return;
    }
    let scratch: Vec<Scratch> = ["fv-a", "fv-b", "fv-c"].iter().map(|t| Scratch::new(t)).collect();
    let (a, b, c) =
        (Arc::new(Netns::new("fva")), Arc::new(Netns::new("fvb")), Arc::new(Netns::new("fvc")));
    // a x — y1 b y2 — z c
    veth(&a, "x", "02:00:00:00:0a:01", &b, "y1", "02:00:00:00:0b:01");
    veth(&b, "y2", "02:00:00:00:0b:02", &c, "z", "02:00:00:00:0c:01");
    up(&a, &["x"]);
    up(&b, &["y1", "y2"]);
    up(&c, &["z"]);
    let pa = start_pfcd(&a, &scratch[0], &["x"]);
    let pb = start_pfcd(&b, &scratch[1], &["y1", "y2"]);
    let pc = start_pfcd(&c, &scratch[2], &["z"]);
    let silent = {
        let b = b.clone();
        // Nothing listens there: a device that does not answer is reported, not fatal.
        let opts = ConnectOptions::new("127.0.0.1", 1, "admin", Auth::Password("-".into()));
        Endpoint::new("gone", move || {
            in_netns(&b, || Client::connect(&opts)).map_err(|e| format!("no session: {e}"))
        })
    };
    let endpoints = vec![
        endpoint("a", &a, &pa, &scratch[0]),
        endpoint("b", &b, &pb, &scratch[1]),
        endpoint("c", &c, &pc, &scratch[2]),
        silent,
    ];
    let mut collector = Collector::new(endpoints, Duration::from_millis(500));
    // LLDP's first frames go out as each agent starts: wait until every port has heard one.
    let view = collector
        .refresh_until(Duration::from_secs(30), Duration::from_millis(250), |v| v.links.len() >= 2)
        .unwrap_or_else(|v| panic!("two links within 30 s: {}", pfc_fabric::text::render(&v)));
    let shown = pfc_fabric::text::render(&view);
    let want = vec![
        (PortRef::new("a", "x"), PortRef::new("b", "y1")),
        (PortRef::new("b", "y2"), PortRef::new("c", "z")),
    ];
    assert_eq!(links(&view), want, "{shown}");
    assert!(view.link_errors.is_empty(), "{shown}");
    assert!(view.outside.is_empty(), "no neighbour but the three pfcd: {shown}");
    let chassis: Vec<_> = view.devices.iter().map(|d| d.chassis_id.as_deref()).collect();
    assert_eq!(
        chassis,
        [Some("02-00-00-00-0A-01"), Some("02-00-00-00-0B-01"), Some("02-00-00-00-0C-01"), None],
        "each pfcd's chassis ID is its first interface's MAC address: {shown}"
    );
    let gone = &view.devices[3];
    assert_eq!(gone.name, "gone");
    assert!(gone.error.as_deref().is_some_and(|e| e.contains("no session")), "{shown}");
    assert!(shown.contains("gone  NOT ANSWERING"), "{shown}");
    // Nothing is paused, so nothing is in a tree or a cycle.
    assert!(view.held.is_empty() && view.deadlocks.is_empty(), "{shown}");
    // The view draws: every link and device in the SVG.
    let svg = pfc_fabric::svg::render(&view);
    assert_eq!(svg.matches("<line class=\"link\"").count(), 2, "{svg}");
    assert_eq!(svg.matches("<circle").count(), 4, "{svg}");
}

#[test]
fn a_host_holding_priority_3_paused_shows_as_that_ports_paused_egress() {
    if !can_run("a_host_holding_priority_3_paused_shows_as_that_ports_paused_egress") {
        return;
    }
    let scratch = Scratch::new("fv-pause");
    let Hosts { h1: _h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts("fvp");
    let sw = Arc::new(sw);
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    commit_pfc(&mut c, &["p1", "p2"], "<pfc-enable>p3</pfc-enable>");
    // The watchdog off: the storm lasts as long as the test needs.
    commit_watchdog(&mut c, &["p1", "p2"], "<enabled>false</enabled>");
    for port in ["p1", "p2"] {
        wait_state(&mut c, port, "PFC in force", |p| {
            value(p, "oper-pfc-enable").as_deref() == Some("p3")
        });
    }
    let mut collector =
        Collector::new(vec![endpoint("sw", &sw, &pfcd, &scratch)], Duration::from_millis(500));
    let before = collector.refresh();
    assert!(before.held.is_empty(), "{}", pfc_fabric::text::render(&before));

    let storm = Storm::start(&h2_ns);
    let started = collector.now();
    let storm_began = Instant::now();
    let paused = |v: &View| {
        v.held.iter().any(|h| {
            h.port == PortRef::new("sw", "p2") && h.priority == 3 && h.egress_paused_since.is_some()
        })
    };
    let seen = collector.refresh_until(Duration::from_secs(1), Duration::from_millis(100), paused);
    let gap = storm.stop();
    send(&mut h2, &pfc(1 << 3, 0));
    let view = seen.unwrap_or_else(|v| {
        panic!(
            "p2's priority 3 paused in a refresh within 1 s of the storm (longest gap between \
             its PFC frames {gap:?}): {}",
            pfc_fabric::text::render(&v)
        )
    });
    eprintln!("seen paused {:?} after the storm began", storm_began.elapsed());
    let shown = pfc_fabric::text::render(&view);
    // Only that egress: priority 0 flows, and p1 has nothing to hold.
    assert_eq!(view.held.len(), 1, "{shown}");
    let since = view.held[0].egress_paused_since.expect("paused");
    assert!(since >= started, "paused since the collector first saw it: {shown}");
    assert!(shown.contains("sw:p2 priority 3: egress paused since"), "{shown}");

    // The XON ends it: the view shows nothing held again.
    collector
        .refresh_until(Duration::from_secs(5), Duration::from_millis(100), |v| v.held.is_empty())
        .unwrap_or_else(|v| panic!("the pause cleared: {}", pfc_fabric::text::render(&v)));
}
