//! Notifications defined on a data node (RFC 7950 §7.16.2), over SSH: a backend publishes one
//! inside the list entry it is about; a subscriber receives it there; subtree and XPath
//! filters select it by its entry; access control sends it only to a user who may read that
//! entry (also one another module defines on it by augment), and a `notification-name` rule
//! withholds it as it would a top-level one (RFC 8341 §3.4.6).

mod common;

use common::actions::{live, Client, Live, MA};
use common::fixture::{edit, ok};
use mgmt::notify::{NC_NOTIFICATIONS_NS, NOTIFICATION_NS};
use netconf_proto::xml::Element;

const NACM: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";

/// The count that marks the last notification a test publishes.
const LAST: u32 = 999;

/// `flapped` on port `port`, inside its entry.
fn flapped(port: &str, count: u32) -> Element {
    Element::new(MA, "ports").with(
        Element::new(MA, "port")
            .with(Element::leaf(MA, "name", port))
            .with(Element::new(MA, "flapped").with(Element::leaf(MA, "count", count.to_string()))),
    )
}

/// Port p2 flaps twice and p1 once, then p1 once more with [`LAST`].
fn publish_flaps(l: &Live) {
    for (port, count) in [("p2", 1), ("p1", 2), ("p2", 3), ("p1", LAST)] {
        assert!(l.backend.publish(flapped(port, count)), "{port} {count}");
    }
}

fn subscribe(filter: &str) -> String {
    format!("<create-subscription xmlns=\"{NOTIFICATION_NS}\">{filter}</create-subscription>")
}

/// The next notification's event element.
async fn next_event(c: &mut Client) -> Element {
    loop {
        let m = c.recv().await.expect("a message");
        let n = netconf_proto::xml::parse(&m).expect("xml");
        if n.is(NOTIFICATION_NS, "notification") {
            return n.elements().find(|e| e.name != "eventTime").expect("an event").clone();
        }
    }
}

/// (port, count) of a `flapped` event: it must sit in its port's entry.
fn port_and_count(event: &Element) -> Option<(String, u32)> {
    let port = event.child(MA, "port")?;
    let count = port.child(MA, "flapped")?.child(MA, "count")?.text().parse().ok()?;
    Some((port.child(MA, "name")?.text().to_string(), count))
}

/// The `flapped` events received up to the one with [`LAST`].
async fn flaps(c: &mut Client) -> Vec<(String, u32)> {
    let mut seen = Vec::new();
    loop {
        let event = next_event(c).await;
        if let Some(flap) = port_and_count(&event) {
            let last = flap.1 == LAST;
            seen.push(flap);
            if last {
                return seen;
            }
        }
    }
}

/// A rule that denies bob (in group ops) reading port p2's entry, set by the administrator.
async fn hide_p2_from_bob(alice: &mut Client) {
    let rules = format!(
        "<nacm xmlns=\"{NACM}\"><groups><group><name>ops</name><user-name>bob</user-name></group></groups>\
         <rule-list><name>ops</name><group>ops</group>\
         <rule><name>hide-p2</name><path xmlns:ma=\"{MA}\">/ma:ports/ma:port[ma:name='p2']</path>\
         <access-operations>read</access-operations><action>deny</action></rule>\
         </rule-list></nacm>"
    );
    ok(&alice.rpc("nacm", &edit("running", &rules)).await);
}

fn flap_list(v: &[(&str, u32)]) -> Vec<(String, u32)> {
    v.iter().map(|(p, c)| (p.to_string(), *c)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_defined_on_a_list_entry_arrives_inside_that_entry() {
    let l = live().await;
    let (mut alice, _a) = l.session("alice").await;
    ok(&alice.rpc("1", &subscribe("")).await);
    publish_flaps(&l);
    assert_eq!(
        flaps(&mut alice).await,
        flap_list(&[("p2", 1), ("p1", 2), ("p2", 3), ("p1", LAST)])
    );
    // Where the schema does not define it, the server refuses it: at the top level, on another
    // node, without its entry's key.
    let count = || Element::leaf(MA, "count", "1");
    assert!(!l.backend.publish(Element::new(MA, "flapped").with(count())));
    let on_a_link = Element::new(MA, "links").with(
        Element::new(MA, "link")
            .with(Element::leaf(MA, "id", "1"))
            .with(Element::new(MA, "flapped").with(count())),
    );
    assert!(!l.backend.publish(on_a_link));
    let keyless = Element::new(MA, "ports")
        .with(Element::new(MA, "port").with(Element::new(MA, "flapped").with(count())));
    assert!(!l.backend.publish(keyless));
    l.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtree_and_xpath_filters_select_the_entry_a_notification_is_about() {
    let l = live().await;
    let (mut subtree, _a) = l.session("alice").await;
    let by_entry =
        format!("<filter><ports xmlns=\"{MA}\"><port><name>p1</name></port></ports></filter>");
    ok(&subtree.rpc("1", &subscribe(&by_entry)).await);
    let (mut xpath, _b) = l.session("alice").await;
    let expr = format!(
        "<filter type=\"xpath\" xmlns:ma=\"{MA}\" select=\"/ma:ports/ma:port[ma:name='p1']/ma:flapped\"/>"
    );
    ok(&xpath.rpc("2", &subscribe(&expr)).await);
    publish_flaps(&l);
    let only_p1 = flap_list(&[("p1", 2), ("p1", LAST)]);
    assert_eq!(flaps(&mut subtree).await, only_p1);
    assert_eq!(flaps(&mut xpath).await, only_p1);
    l.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_control_sends_a_nested_notification_only_to_who_may_read_its_entry() {
    let l = live().await;
    let (mut alice, _a) = l.session("alice").await;
    hide_p2_from_bob(&mut alice).await;
    let (mut bob, _b) = l.session("bob").await;
    ok(&bob.rpc("1", &subscribe("")).await);
    ok(&alice.rpc("2", &subscribe("")).await);
    publish_flaps(&l);
    assert_eq!(flaps(&mut bob).await, flap_list(&[("p1", 2), ("p1", LAST)]));
    assert_eq!(flaps(&mut alice).await.len(), 4, "the administrator receives them all");

    // A notification-name rule withholds it wherever it is defined.
    let rules = format!(
        "<nacm xmlns=\"{NACM}\"><rule-list><name>ops</name>\
         <rule><name>no-flaps</name><module-name>mgmt-actions</module-name>\
         <notification-name>flapped</notification-name>\
         <access-operations>read</access-operations><action>deny</action></rule>\
         </rule-list></nacm>"
    );
    ok(&alice.rpc("nacm2", &edit("running", &rules)).await);
    let (mut carol, _c) = l.session("bob").await;
    ok(&carol.rpc("3", &subscribe("")).await);
    publish_flaps(&l);
    // A session start after the flaps marks the end of what bob is sent.
    let (_later, _d) = l.session("alice").await;
    loop {
        let event = next_event(&mut carol).await;
        assert!(port_and_count(&event).is_none(), "withheld from bob: {}", event.to_xml());
        if event.is(NC_NOTIFICATIONS_NS, "netconf-session-start") {
            break;
        }
    }
    l.server.shutdown().await;
}

/// The namespace of `mgmt-actions-alarms`, which defines `overheated` on mgmt-actions' ports.
const MB: &str = "urn:example:mgmt-actions-alarms";

/// A notification another module defines on an entry (by augment) is hidden by a rule on the
/// entry in the entry's own module: NACM reads its ancestors, whatever module they are in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_control_of_an_entry_hides_another_modules_notification_on_it() {
    let l = live().await;
    let (mut alice, _a) = l.session("alice").await;
    hide_p2_from_bob(&mut alice).await;
    let (mut bob, _b) = l.session("bob").await;
    ok(&bob.rpc("1", &subscribe("")).await);
    let overheated = |port: &str, celsius: u32| {
        Element::new(MA, "ports").with(
            Element::new(MA, "port").with(Element::leaf(MA, "name", port)).with(
                Element::new(MB, "overheated").with(Element::leaf(
                    MB,
                    "celsius",
                    celsius.to_string(),
                )),
            ),
        )
    };
    for (port, celsius) in [("p2", 90), ("p1", 91), ("p2", 92), ("p1", 93)] {
        assert!(l.backend.publish(overheated(port, celsius)), "{port} {celsius}");
    }
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let event = next_event(&mut bob).await;
        let Some(port) = event.child(MA, "port") else { continue };
        let Some(hot) = port.child(MB, "overheated") else { continue };
        let name = port.child(MA, "name").map(|n| n.text().to_string()).unwrap_or_default();
        seen.push((name, hot.child(MB, "celsius").map(|c| c.text().to_string())));
    }
    let p1 = |c: &str| ("p1".to_string(), Some(c.to_string()));
    assert_eq!(seen, vec![p1("91"), p1("93")], "p2's were withheld from bob");
    l.server.shutdown().await;
}
