//! The leaf-spine incast on real links, found from the management plane and matched against
//! pfcsim: `scenarios/fabric-leaf-spine-small-incast.toml` built as pfcd bridges on veth
//! (`test_support::bridged_network`: the scenario's bridges, port names, links and hosts),
//! every destination routed along the scenario's paths by static filtering entries, PFC on
//! priority 3, the watchdog off, and the scenario's flows sent with pfc-traffic. The software
//! bridges forward far less than 10 Gb/s, so every rate is the scenario's divided by
//! [`SCALE`]: the congested port (lf1:h1, 10 Gb/s in the scenario) is held to 40 Mb/s by a
//! token bucket on its interface, and each flow sends a 250th of its rate (at a fiftieth, the
//! debug-built bridges on two shared cores paused each other everywhere for want of CPU, and
//! the incast's pauses came and went). pfc-fabric, given
//! the scenario as its flows file, must find the tree rooted at that port with exactly the
//! victims pfcsim finds for the same file.
//!
//! Needs root (namespaces, tc); skipped loudly without it, failed in CI.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fabric_graph::PortRef;
use pfc_fabric::{Collector, Flows, View};
use pfcsim::network::NetworkFile;
use test_support::bridged_network::network;
use test_support::netns::can_run;
use test_support::pfcd::{commit_pfc, commit_watchdog};

mod common;
use common::endpoint;

const SCENARIO: &str = "fabric-leaf-spine-small-incast.toml";
/// The scenario's congested egress: leaf 1's port to h1-1.
const CONGESTED: (&str, &str) = ("lf1", "h1");
/// Live rates are the scenario's divided by this.
const SCALE: u64 = 250;
/// Refreshes that must show the tree: pauses come and go as buffers cross their thresholds
/// (and, on a busy machine, as a starved bridge refreshes a pause late), so one refresh can
/// catch a tree half formed or half drained; its victims are gathered over the refreshes that
/// show it, as pfcsim gathers a tree's over its samples.
const STABLE_REFRESHES: usize = 3;

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(SCENARIO)
}

/// Each host's (bridge, port).
type HostPorts = BTreeMap<String, (String, String)>;

/// The hosts' ports (`[[link]]`s with a host at one end) and the links between bridge ports.
fn hosts_and_links(file: &NetworkFile) -> (HostPorts, Vec<(String, String)>) {
    let split = |s: &str| s.split_once(':').map(|(d, p)| (d.to_string(), p.to_string()));
    let mut hosts = BTreeMap::new();
    let mut links = Vec::new();
    for l in &file.links {
        match (split(&l.a), split(&l.b)) {
            (Some(_), Some(_)) => links.push((l.a.clone(), l.b.clone())),
            (None, Some(port)) => _ = hosts.insert(l.a.clone(), port),
            (Some(port), None) => _ = hosts.insert(l.b.clone(), port),
            (None, None) => panic!("a link between two hosts: {l:?}"),
        }
    }
    (hosts, links)
}

/// (bridge, destination host, port): where each bridge on a flow's path sends frames to its
/// destination. Forwarding by destination address alone must be able to follow the paths: two
/// flows to one host leave a bridge by one port.
fn routes(file: &NetworkFile) -> Vec<(String, String, String)> {
    let (hosts, links) = hosts_and_links(file);
    let toward = |from: &str, to: &str| -> String {
        if let Some((d, p)) = hosts.get(to) {
            assert_eq!(d, from, "host {to} is not on {from}");
            return p.clone();
        }
        links
            .iter()
            .find_map(|(a, b)| {
                let (da, pa) = a.split_once(':')?;
                let (db, pb) = b.split_once(':')?;
                match (da, db) {
                    (x, y) if x == from && y == to => Some(pa.to_string()),
                    (x, y) if x == to && y == from => Some(pb.to_string()),
                    _ => None,
                }
            })
            .unwrap_or_else(|| panic!("no link from {from} to {to}"))
    };
    let mut routes: BTreeMap<(String, String), String> = BTreeMap::new();
    for f in &file.flows {
        let destination = f.path.last().expect("a path").clone();
        for pair in f.path.windows(2).filter(|w| !hosts.contains_key(&w[0])) {
            let port = toward(&pair[0], &pair[1]);
            let key = (pair[0].clone(), destination.clone());
            let before = routes.insert(key, port.clone());
            assert!(
                before.is_none_or(|p| p == port),
                "{}: two ports toward {destination}: addresses cannot route it",
                pair[0]
            );
        }
    }
    routes.into_iter().map(|((b, h), p)| (b, h, p)).collect()
}

/// pfcsim's ground truth: the victims of its tree at the congested egress.
fn simulated_victims(file: &NetworkFile) -> BTreeSet<String> {
    let results = pfcsim::run_network(file).expect("pfcsim runs the scenario");
    let tree = results
        .congestion_trees
        .iter()
        .find(|t| t.root == PortRef::new(CONGESTED.0, CONGESTED.1))
        .expect("pfcsim finds the tree at the congested egress");
    assert!(!tree.victims.is_empty(), "the scenario has victims");
    tree.victims.clone()
}

/// The live tree at the congested egress, if this refresh shows one.
fn live_victims(view: &View) -> Option<BTreeSet<String>> {
    let root = PortRef::new(CONGESTED.0, CONGESTED.1);
    let tree = view.congestion_trees.iter().find(|t| t.priority == 3 && t.root == root)?;
    Some(tree.victims.iter().cloned().collect())
}

#[test]
fn the_live_incast_tree_names_the_congested_port_and_pfcsims_victims() {
    if !can_run("the_live_incast_tree_names_the_congested_port_and_pfcsims_victims") {
        return;
    }
    let file = pfcsim::load_network(&scenario()).expect("the scenario loads");
    let expected = simulated_victims(&file);
    let routes = routes(&file);

    let bridges: Vec<(&str, Vec<&str>)> = file
        .bridges
        .iter()
        .map(|b| (b.name.as_str(), b.ports.iter().map(String::as_str).collect()))
        .collect();
    let (hosts, links) = hosts_and_links(&file);
    let links: Vec<(&str, &str)> = links.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let host_ports: Vec<(String, String)> =
        hosts.iter().map(|(h, (d, p))| (h.clone(), format!("{d}:{p}"))).collect();
    let host_ports: Vec<(&str, &str)> =
        host_ports.iter().map(|(h, at)| (h.as_str(), at.as_str())).collect();
    let mut net = network("inc", &bridges, &links, &host_ports, "max-transit-ms = 4000\n");
    net.route(&routes);
    for b in &mut net.bridges {
        let ports: Vec<&str> = b.ports.iter().map(String::as_str).collect();
        commit_pfc(&mut b.client, &ports, "<pfc-enable>p3</pfc-enable>");
        commit_watchdog(&mut b.client, &ports, "<enabled>false</enabled>");
    }
    // The congested port's line rate, scaled: a token bucket on its interface, which the
    // bridge's sends wait for (the socket refuses what the bucket's queue cannot take).
    let congested = net.bridges.iter().find(|b| b.name == CONGESTED.0).expect("the leaf");
    let rate = format!("{}mbit", 10_000 / SCALE);
    congested.ns.run(
        "/usr/sbin/tc",
        &[
            "qdisc",
            "add",
            "dev",
            CONGESTED.1,
            "root",
            "tbf",
            "rate",
            &rate,
            "burst",
            "32kb",
            "limit",
            "64kb",
        ],
    );

    let mut collector = Collector::new(
        net.bridges.iter().map(|b| endpoint(&b.name, &b.ns, &b.pfcd, &b.scratch)).collect(),
        Duration::from_millis(500),
    );
    collector.set_flows(Flows::load(&scenario()).expect("the scenario is a flows file"));
    let device_links = links.len();
    let view = collector
        .refresh_until(Duration::from_secs(30), Duration::from_millis(250), |v| {
            v.links.len() == device_links
        })
        .unwrap_or_else(|v| panic!("every link from LLDP: {}", pfc_fabric::text::render(&v)));
    assert!(view.congestion_trees.is_empty(), "no traffic, no tree");
    assert!(view.flow_errors.is_empty(), "every flow laid: {:?}", view.flow_errors);

    let mut senders: Vec<std::process::Child> = file
        .flows
        .iter()
        .map(|f| {
            let rate = format!("{}Mbps", f.rate_mbps / SCALE);
            let (from, to) = (&f.path[0], f.path.last().expect("a path"));
            net.send(from, to, f.priority, &rate, "60s")
        })
        .collect();
    // Refresh until the tree has been seen STABLE_REFRESHES times and its victims, gathered
    // over those refreshes as pfcsim gathers them over its samples, are pfcsim's.
    let start = Instant::now();
    let mut sightings = 0;
    let mut victims = BTreeSet::new();
    let mut last = None;
    while !(sightings >= STABLE_REFRESHES && victims == expected)
        && start.elapsed() < Duration::from_secs(45)
    {
        let view = collector.refresh();
        if let Some(v) = live_victims(&view) {
            sightings += 1;
            victims.extend(v);
        }
        last = Some(view);
        std::thread::sleep(Duration::from_millis(250));
    }
    for s in &mut senders {
        let _ = s.kill();
        let _ = s.wait();
    }
    let last = last.expect("refreshed");
    let shown = pfc_fabric::text::render(&last);
    assert_eq!(
        victims, expected,
        "the victims of the tree at {}:{} (seen in {sightings} refreshes) are pfcsim's within \
         45 s; the last refresh:\n{shown}",
        CONGESTED.0, CONGESTED.1
    );
    assert!(sightings >= STABLE_REFRESHES, "the tree seen {sightings} times: {shown}");
    eprintln!("found {:?} after the traffic began:\n{shown}", start.elapsed());
    // No flow to the congested port is a victim of its tree.
    for f in file.flows.iter().filter(|f| f.path.last().map(String::as_str) == Some("h1-1")) {
        assert!(!victims.contains(&f.name), "{} is no victim: {shown}", f.name);
    }
}
