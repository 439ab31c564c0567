//! From NETCONF data to the wait-for graph's input, without a network: a reply pfcd's lab gave
//! to the collector's filter (captured, `data/pfcd-lab-reply.xml`), replies of the same shape
//! for a ring of three bridges, and replies the collector must refuse.

use fabric_graph::{Observation, PortRef};
use pfc_fabric::device_state::{DeviceState, ReadError};
use pfc_fabric::first_seen::FirstSeen;
use pfc_fabric::view::{build, Answer};
use pfc_fabric::Flows;

const LAB: &str = include_str!("data/pfcd-lab-reply.xml");
const MS: u64 = 1_000_000;

#[test]
fn a_captured_pfcd_reply_reads_as_its_chassis_neighbours_and_pause_state() {
    let s = DeviceState::from_data(LAB).expect("pfcd's own reply reads");
    assert_eq!(s.chassis_id.as_deref(), Some("02-00-00-00-00-01"));
    assert_eq!(s.ports.keys().collect::<Vec<_>>(), ["lab0", "lab1", "lab2", "lab3"]);
    let lab1 = &s.ports["lab1"];
    assert_eq!(lab1.neighbours.len(), 1);
    assert_eq!(lab1.neighbours[0].chassis_id, "02-00-00-00-01-01");
    assert_eq!(lab1.neighbours[0].port_id, "eth0");
    assert_eq!(lab1.priorities.len(), 8, "every priority");
    assert!(lab1.priorities[&0].paused && !lab1.priorities[&0].xoff);
    assert!(lab1.priorities[&3].xoff && !lab1.priorities[&3].paused);
    assert!(!s.ports["lab0"].priorities.values().any(|p| p.paused || p.xoff), "lab0 flows");
    // pfcd serves pfcd-pipeline: each priority's backlog is its inflight plus its FIFO's.
    assert!(lab1.priorities.values().all(|p| p.backlog.is_some()));
}

#[test]
fn the_captured_reply_maps_to_observations_timed_by_the_collectors_clock() {
    let answer = |xml: &str| Answer {
        name: "lab".into(),
        state: DeviceState::from_data(xml).map_err(|e| e.to_string()),
    };
    let mut first_seen = FirstSeen::default();
    let v = build(1, &[answer(LAB)], &mut first_seen, 100 * MS, 500 * MS, &Flows::default());
    let o = |v: &pfc_fabric::View, port: &str, n: u8| {
        v.fabric.observation(&PortRef::new("lab", port), n).cloned().unwrap_or_default()
    };
    let lab1 = o(&v, "lab1", 0);
    assert_eq!(lab1.egress_paused_since, Some(100 * MS), "first seen now");
    assert_eq!(lab1.ingress_xoff_since, None);
    assert!(lab1.egress_backlog, "frames wait to leave lab1: {lab1:?}");
    assert_eq!(o(&v, "lab1", 3).ingress_xoff_since, Some(100 * MS));
    assert_eq!(o(&v, "lab0", 0).egress_paused_since, None);
    // The lab's peers are simulated stations, none of them a listed device: no link, four
    // neighbours outside.
    assert!(v.links.is_empty());
    assert_eq!(v.outside.len(), 4);
    assert_eq!(v.held.len(), 6, "lab1..lab3: priority 0 paused, priority 3 in XOFF");

    // The same state a second later keeps its start; a state that cleared is forgotten.
    let cleared = LAB.replacen(
        "<priority>3</priority><xoff>true</xoff>",
        "<priority>3</priority><xoff>false</xoff>",
        1,
    );
    let v = build(2, &[answer(&cleared)], &mut first_seen, 1_100 * MS, 500 * MS, &Flows::default());
    assert_eq!(o(&v, "lab1", 0).egress_paused_since, Some(100 * MS), "kept");
    assert_eq!(o(&v, "lab1", 3).ingress_xoff_since, None, "cleared");
    assert_eq!(o(&v, "lab2", 3).ingress_xoff_since, Some(100 * MS));
}

/// One ring bridge's reply: `east` paused on priority 3 with frames waiting, `west` in XOFF.
fn ring_bridge(me: u8, west_peer: u8, east_peer: u8) -> String {
    let chassis = |n: u8| format!("02-00-00-00-0{n}-00");
    let priority = |paused: bool, xoff: bool| {
        format!(
            "<priority><priority>3</priority><xoff>{xoff}</xoff>\
             <priority-paused>{paused}</priority-paused></priority>"
        )
    };
    let port = |name: &str, peer: u8, peer_port: &str| {
        format!(
            "<port><dest-mac-address>01-80-C2-00-00-0E</dest-mac-address><name>{name}</name>\
             <remote-systems-data><time-mark>20</time-mark><remote-index>1</remote-index>\
             <chassis-id>{}</chassis-id><port-id>{peer_port}</port-id></remote-systems-data>\
             </port>",
            chassis(peer)
        )
    };
    format!(
        "<lldp xmlns=\"urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp\">{}{}\
         <local-system-data><chassis-id>{}</chassis-id></local-system-data></lldp>\
         <interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\">\
         <interface><name>east</name><bridge-port xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge\">\
         <pfc xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge\">{}</pfc>\
         <pipeline xmlns=\"urn:uuid:efc1e1ad-781a-5967-ad09-aaaae237bbf0\"><priority><priority>3</priority>\
         <external-fifo-depth>12</external-fifo-depth><inflight>4</inflight></priority></pipeline>\
         </bridge-port></interface>\
         <interface><name>west</name><bridge-port xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge\">\
         <pfc xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge\">{}</pfc></bridge-port>\
         </interface></interfaces>",
        port("west", west_peer, "east"),
        port("east", east_peer, "west"),
        chassis(me),
        priority(true, false),
        priority(false, true),
    )
}

#[test]
fn a_ring_of_replies_gives_its_links_and_its_deadlock_once_held_past_the_threshold() {
    // b1 east → b2 west, b2 east → b3 west, b3 east → b1 west (Figure 36-7's ring).
    let answers: Vec<Answer> = [(1, 3, 2), (2, 1, 3), (3, 2, 1)]
        .into_iter()
        .map(|(me, west, east)| Answer {
            name: format!("b{me}"),
            state: DeviceState::from_data(&ring_bridge(me, west, east)).map_err(|e| e.to_string()),
        })
        .collect();
    let mut first_seen = FirstSeen::default();
    let v = build(1, &answers, &mut first_seen, 0, 500 * MS, &Flows::default());
    assert_eq!(v.links.len(), 3, "{}", pfc_fabric::text::render(&v));
    for (a, b) in [("b1", "b2"), ("b2", "b3"), ("b3", "b1")] {
        assert_eq!(v.fabric.peer(&PortRef::new(a, "east")), Some(&PortRef::new(b, "west")));
    }
    assert!(v.deadlocks.is_empty(), "not yet held 500 ms");
    let east = v.fabric.observation(&PortRef::new("b1", "east"), 3).cloned();
    assert_eq!(east, Some(Observation { egress_backlog: true, ..Observation::paused(0) }));

    let v = build(2, &answers, &mut first_seen, 600 * MS, 500 * MS, &Flows::default());
    let shown = pfc_fabric::text::render(&v);
    assert_eq!(v.deadlocks.len(), 1, "{shown}");
    let d = &v.deadlocks[0];
    assert_eq!((d.priority, d.closed_at), (3, 0), "closed when first seen: {shown}");
    let hops: Vec<(String, String)> =
        d.cycle.iter().map(|h| (h.egress.to_string(), h.ingress.to_string())).collect();
    assert_eq!(
        hops,
        [
            ("b1:east".to_string(), "b2:west".to_string()),
            ("b2:east".into(), "b3:west".into()),
            ("b3:east".into(), "b1:west".into())
        ],
        "{shown}"
    );
    assert!(shown.contains("DEADLOCKS:\n  priority 3, closed at 0.000 s: b1:east"), "{shown}");
    let svg = pfc_fabric::svg::render(&v);
    assert_eq!(svg.matches("class=\"link deadlock\"").count(), 3, "{svg}");
    let json = serde_json::to_value(&v).expect("JSON");
    assert_eq!(json["deadlocks"][0]["cycle"][1]["egress"]["device"], "b2");
}

#[test]
fn a_server_without_pfcd_pipeline_gives_no_backlog() {
    assert!(LAB.contains("<pipeline"), "the capture has pfcd-pipeline's data");
    let without: String = {
        let mut rest = LAB.to_string();
        // Every pipeline container out, as a server without the module answers.
        while let Some(at) = rest.find("<pipeline") {
            let end = rest[at..].find("</pipeline>").expect("end") + at + "</pipeline>".len();
            rest.replace_range(at..end, "");
        }
        rest
    };
    let s = DeviceState::from_data(&without).expect("reads");
    assert!(s.ports["lab1"].priorities.values().all(|p| p.backlog.is_none()));
    assert!(s.ports["lab1"].priorities[&0].paused);
}

#[test]
fn a_reply_that_breaks_the_model_is_refused_saying_what_is_wrong() {
    let cases = [
        (
            LAB.replacen("<priority>3</priority>", "<priority>9</priority>", 1),
            "\"9\": expected a priority, 0 to 7",
        ),
        (
            LAB.replacen("<priority-paused>true", "<priority-paused>yes", 1),
            "priority-paused is \"yes\": expected true or false",
        ),
        (LAB.replacen("<inflight>8", "<inflight>-1", 1), "inflight is \"-1\": expected a count"),
        (LAB.replacen("</lldp>", "", 1), "not well-formed XML: it ends inside <lldp>"),
    ];
    for (xml, says) in cases {
        let err = DeviceState::from_data(&xml).expect_err(says).to_string();
        assert!(err.contains(says), "{err}");
    }
    // A device whose reply is refused is reported with why; the others are still read.
    let answers = [
        Answer {
            name: "bad".into(),
            state: Err(ReadError::MissingKey("pfc priority".into()).to_string()),
        },
        Answer {
            name: "lab".into(),
            state: DeviceState::from_data(LAB).map_err(|e| e.to_string()),
        },
    ];
    let v = build(1, &answers, &mut FirstSeen::default(), 0, 0, &Flows::default());
    assert_eq!(v.answered().count(), 1);
    assert!(v.devices[0].error.as_deref().is_some_and(|e| e.contains("without its key")));
}

/// One port's priority 3 as a reply gives it: (port, its LLDP neighbour as (chassis, port ID),
/// paused, XOFF, frames waiting).
type PortState<'a> = (&'a str, Option<(&'a str, &'a str)>, bool, bool, u64);

/// One device's reply.
fn device(chassis: &str, ports: &[PortState]) -> String {
    let mut lldp = String::new();
    let mut interfaces = String::new();
    for (name, neighbour, paused, xoff, backlog) in ports {
        let remote = neighbour.map_or(String::new(), |(c, p)| {
            format!(
                "<remote-systems-data><time-mark>20</time-mark><remote-index>1</remote-index>\
                 <chassis-id>{c}</chassis-id><port-id>{p}</port-id></remote-systems-data>"
            )
        });
        lldp.push_str(&format!(
            "<port><dest-mac-address>01-80-C2-00-00-0E</dest-mac-address><name>{name}</name>\
             {remote}</port>"
        ));
        interfaces.push_str(&format!(
            "<interface><name>{name}</name><bridge-port \
             xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge\">\
             <pfc xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge\"><priority>\
             <priority>3</priority><xoff>{xoff}</xoff><priority-paused>{paused}</priority-paused>\
             </priority></pfc><pipeline xmlns=\"urn:uuid:efc1e1ad-781a-5967-ad09-aaaae237bbf0\"><priority>\
             <priority>3</priority><external-fifo-depth>0</external-fifo-depth>\
             <inflight>{backlog}</inflight></priority></pipeline></bridge-port></interface>"
        ));
    }
    format!(
        "<lldp xmlns=\"urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp\">{lldp}\
         <local-system-data><chassis-id>{chassis}</chassis-id></local-system-data></lldp>\
         <interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\">{interfaces}\
         </interfaces>"
    )
}

/// Two spines, three leaves, an incast into lf1's host port h1 from lf2's and lf3's first
/// hosts, as each device would answer once its pauses have spread: lf1:h1 drains slower than
/// it is fed (frames wait, nothing pauses it), lf1's uplinks are in XOFF and pause the spines'
/// ports toward it, whose ingresses from lf2 and lf3 pause those leaves' uplinks in turn.
fn leaf_spine_incast() -> Vec<Answer> {
    let none = None;
    let devices = [
        (
            "lf1",
            "02-00-00-00-01-01",
            vec![
                ("h1", none, false, false, 40),
                ("s1", Some(("02-00-00-00-05-01", "l1")), false, true, 0),
                ("s2", Some(("02-00-00-00-05-02", "l1")), false, true, 0),
            ],
        ),
        (
            "lf2",
            "02-00-00-00-01-02",
            vec![
                ("h1", none, false, true, 0),
                ("h2", none, false, false, 0),
                ("s1", Some(("02-00-00-00-05-01", "l2")), true, false, 30),
                ("s2", Some(("02-00-00-00-05-02", "l2")), false, false, 0),
            ],
        ),
        (
            "lf3",
            "02-00-00-00-01-03",
            vec![
                ("h1", none, false, true, 0),
                ("h2", none, false, false, 0),
                ("s1", Some(("02-00-00-00-05-01", "l3")), false, false, 0),
                ("s2", Some(("02-00-00-00-05-02", "l3")), true, false, 30),
            ],
        ),
        (
            "sp1",
            "02-00-00-00-05-01",
            vec![
                ("l1", Some(("02-00-00-00-01-01", "s1")), true, false, 30),
                ("l2", Some(("02-00-00-00-01-02", "s1")), false, true, 0),
                ("l3", Some(("02-00-00-00-01-03", "s1")), false, false, 0),
            ],
        ),
        (
            "sp2",
            "02-00-00-00-05-02",
            vec![
                ("l1", Some(("02-00-00-00-01-01", "s2")), true, false, 30),
                ("l2", Some(("02-00-00-00-01-02", "s2")), false, false, 0),
                ("l3", Some(("02-00-00-00-01-03", "s2")), false, true, 0),
            ],
        ),
    ];
    devices
        .into_iter()
        .map(|(name, chassis, ports)| Answer {
            name: name.into(),
            state: DeviceState::from_data(&device(chassis, &ports)).map_err(|e| e.to_string()),
        })
        .collect()
}

/// The incast's flows as a pfcsim scenario gives them (hosts attached by `[[link]]`), one with
/// its hosts as DEVICE:PORT, and two that cannot lie on the topology.
const INCAST_FLOWS: &str = r#"
[[link]]
a = "h2-1"
b = "lf2:h1"
speed = "10G"
[[link]]
a = "lf1:h1"
b = "h1-1"
speed = "10G"
[[link]]
a = "h3-1"
b = "lf3:h1"
speed = "10G"
[[flow]]
name = "incast-2"
path = ["h2-1", "lf2", "sp1", "lf1", "h1-1"]
rate_mbps = 7000
[[flow]]
name = "incast-3"
path = ["h3-1", "lf3", "sp2", "lf1", "h1-1"]
[[flow]]
name = "victim-2"
path = ["lf2:h2", "lf2", "sp1", "lf3", "lf3:h2"]
[[flow]]
name = "victim-3"
path = ["lf3:h2", "lf3", "sp2", "lf2", "lf2:h2"]
[[flow]]
name = "elsewhere"
path = ["lf2:h2", "lf2", "sp2", "lf3", "lf3:h2"]
[[flow]]
name = "lossy"
path = ["h2-1", "lf2", "sp1", "lf1", "h1-1"]
priority = 0
[[flow]]
name = "no-such-link"
path = ["h2-1", "lf2", "lf1", "h1-1"]
[[flow]]
name = "host-on-an-uplink"
path = ["lf2:s1", "lf2", "sp1"]
"#;

#[test]
fn given_its_flows_a_congestion_tree_names_those_caught_in_it_and_its_victims() {
    let flows = Flows::parse(INCAST_FLOWS).expect("a flows file");
    let mut first_seen = FirstSeen::default();
    let v = build(1, &leaf_spine_incast(), &mut first_seen, 0, 500 * MS, &flows);
    let shown = pfc_fabric::text::render(&v);
    assert_eq!(v.links.len(), 6, "{shown}");
    assert_eq!(v.congestion_trees.len(), 1, "{shown}");
    let tree = &v.congestion_trees[0];
    assert_eq!((tree.priority, &tree.root), (3, &PortRef::new("lf1", "h1")), "{shown}");
    // Both incast flows leave through the root; the victims share a paused uplink with them
    // and go elsewhere. "elsewhere" crosses none of the tree's ports; "lossy" is priority 0.
    assert_eq!(tree.caught, ["incast-2", "incast-3", "victim-2", "victim-3"], "{shown}");
    assert_eq!(tree.victims, ["victim-2", "victim-3"], "{shown}");
    assert!(
        shown.contains(
            "caught [incast-2, incast-3, victim-2, victim-3], victims [victim-2, victim-3]"
        ),
        "{shown}"
    );
    // The hops laid on LLDP's links: device A's port toward B, a host's port as named.
    let victim = v.flows.iter().find(|f| f.name == "victim-2").expect("laid");
    let hops: Vec<(&str, Option<&str>, Option<&str>)> = victim
        .path
        .iter()
        .map(|h| (h.device.as_str(), h.in_port.as_deref(), h.out_port.as_deref()))
        .collect();
    assert_eq!(
        hops,
        [
            ("lf2", Some("h2"), Some("s1")),
            ("sp1", Some("l2"), Some("l3")),
            ("lf3", Some("s1"), Some("h2"))
        ]
    );
    // What cannot lie on the topology is said, and left out of the trees.
    assert_eq!(v.flows.len(), 6, "{shown}");
    assert_eq!(v.flow_errors.len(), 2, "{shown}");
    assert!(
        shown.contains("flow no-such-link: no link between lf2 and lf1 seen (yet) in LLDP"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "flow host-on-an-uplink: host lf2:s1's port lf2:s1 leads to device sp1, not to a host"
        ),
        "{shown}"
    );
    // JSON names them too.
    let json = serde_json::to_value(&v).expect("JSON");
    assert_eq!(json["congestion_trees"][0]["victims"], serde_json::json!(["victim-2", "victim-3"]));
    assert_eq!(json["flow_errors"].as_array().map(Vec::len), Some(2));

    // Without flows the tree is the same, and names none.
    let v = build(2, &leaf_spine_incast(), &mut first_seen, 0, 500 * MS, &Flows::default());
    assert_eq!(v.congestion_trees[0].root, PortRef::new("lf1", "h1"));
    assert!(v.congestion_trees[0].caught.is_empty());
    assert!(!pfc_fabric::text::render(&v).contains("victims"));
}
