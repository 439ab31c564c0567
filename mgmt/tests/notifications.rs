//! Notifications (RFC 5277, RFC 6470): subscriptions, the base notifications, replay,
//! filters, interleaving with operations, and subscribed sessions outliving the idle
//! time-out.

mod common;

use std::time::{Duration, SystemTime};

use common::fixture::*;
use common::WAIT;
use mgmt::notify::{format_time, NC_NOTIFICATIONS_NS, NOTIFICATION_NS};
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

const NETMOD: &str = "urn:ietf:params:xml:ns:netmod:notification";

fn subscribe(body: &str) -> String {
    format!("<create-subscription xmlns=\"{NOTIFICATION_NS}\">{body}</create-subscription>")
}

/// The next notification on `c` (replies in between are skipped).
async fn next_notification(c: &mut Client) -> Element {
    loop {
        let m = c.recv().await.expect("a message");
        let e = netconf_proto::xml::parse(&m).expect("xml");
        if e.is(NOTIFICATION_NS, "notification") {
            assert!(e.child(NOTIFICATION_NS, "eventTime").is_some());
            // Every event conforms to its YANG definition.
            let ev = event(&e).to_xml();
            if let Err(err) = common::test_schema().validate_notification(&ev) {
                panic!("{ev} does not conform to its notification's schema: {err}");
            }
            return e;
        }
    }
}

fn event(n: &Element) -> &Element {
    n.elements().find(|e| e.name != "eventTime").expect("event")
}

/// The next notification whose event is `name`.
async fn next_event(c: &mut Client, name: &str) -> Element {
    loop {
        let n = next_notification(c).await;
        if event(&n).name == name {
            return event(&n).clone();
        }
    }
}

#[tokio::test]
async fn config_change_and_session_events_reach_subscribers() {
    let fx = Fx::new();
    let mut sub = fx.open("admin").await;
    ok(&sub.rpc("1", &subscribe("")).await);
    let mut editor = fx.open("admin").await;
    let editor_id = editor.server_hello.session_id.expect("id");
    let start = next_event(&mut sub, "netconf-session-start").await;
    assert_eq!(
        start.child(NC_NOTIFICATIONS_NS, "session-id").map(Element::text),
        Some(editor_id.to_string())
    );
    assert_eq!(
        start.child(NC_NOTIFICATIONS_NS, "username").map(Element::text).as_deref(),
        Some("admin")
    );
    assert_eq!(
        start.child(NC_NOTIFICATIONS_NS, "source-host").map(Element::text).as_deref(),
        Some("192.0.2.1")
    );

    ok(&editor.rpc("2", &edit("running", &ifs(&iface("n0", "")))).await);
    let change = next_event(&mut sub, "netconf-config-change").await;
    let by = change.child(NC_NOTIFICATIONS_NS, "changed-by").expect("changed-by");
    assert_eq!(
        by.child(NC_NOTIFICATIONS_NS, "session-id").map(Element::text),
        Some(editor_id.to_string())
    );
    assert_eq!(
        change.child(NC_NOTIFICATIONS_NS, "datastore").map(Element::text).as_deref(),
        Some("running")
    );
    let e = change.child(NC_NOTIFICATIONS_NS, "edit").expect("edit");
    let target = e.child(NC_NOTIFICATIONS_NS, "target").expect("target");
    assert_eq!(target.text(), "/if:interfaces");
    assert!(
        target.namespaces().iter().any(|(p, u)| p.as_deref() == Some("if") && u == IF),
        "the prefix is declared"
    );
    assert_eq!(
        e.child(NC_NOTIFICATIONS_NS, "operation").map(Element::text).as_deref(),
        Some("create")
    );

    // Interleave: operations still work on the subscribed session.
    let r = sub.rpc("3", "<get-config><source><running/></source></get-config>").await;
    // (a notification may arrive first)
    let _ = r;
    ok(&editor.rpc("4", "<close-session/>").await);
    let end = next_event(&mut sub, "netconf-session-end").await;
    assert_eq!(
        end.child(NC_NOTIFICATIONS_NS, "termination-reason").map(Element::text).as_deref(),
        Some("closed")
    );

    // A commit on the candidate is reported too, and a confirmed commit's events.
    let mut c = fx.open("admin").await;
    ok(&c.rpc("5", &edit("candidate", &ifs(&iface("n1", "<description>d</description>")))).await);
    ok(&c.rpc("6", "<commit><confirmed/></commit>").await);
    let change = next_event(&mut sub, "netconf-config-change").await;
    let cc = next_event(&mut sub, "netconf-confirmed-commit").await;
    assert_eq!(
        cc.child(NC_NOTIFICATIONS_NS, "confirm-event").map(Element::text).as_deref(),
        Some("start")
    );
    let target = change
        .child(NC_NOTIFICATIONS_NS, "edit")
        .and_then(|e| e.child(NC_NOTIFICATIONS_NS, "target"))
        .map(Element::text);
    assert_eq!(target.as_deref(), Some("/if:interfaces/if:interface[if:name='n1']"));
    ok(&c.rpc("7", "<cancel-commit/>").await);
    let cc = next_event(&mut sub, "netconf-confirmed-commit").await;
    assert_eq!(
        cc.child(NC_NOTIFICATIONS_NS, "confirm-event").map(Element::text).as_deref(),
        Some("cancel")
    );
}

#[tokio::test]
async fn replay_stop_time_and_errors() {
    let fx = Fx::new();
    let before = SystemTime::now() - Duration::from_secs(1);
    let mut c = fx.open("admin").await;
    ok(&c.rpc("1", &edit("running", &ifs(&iface("r0", "")))).await);
    // Replay from before the change, ending a moment from now.
    let stop = SystemTime::now() + Duration::from_millis(500);
    let mut sub = fx.open("admin").await;
    ok(&sub
        .rpc(
            "2",
            &subscribe(&format!(
                "<startTime>{}</startTime><stopTime>{}</stopTime>",
                format_time(before),
                format_time(stop)
            )),
        )
        .await);
    let mut names = Vec::new();
    loop {
        let n = next_notification(&mut sub).await;
        let name = event(&n).name.clone();
        names.push(name.clone());
        if name == "notificationComplete" {
            assert_eq!(event(&n).namespace.as_deref(), Some(NETMOD));
            break;
        }
    }
    let replay_end = names.iter().position(|n| n == "replayComplete").expect("replayComplete");
    assert!(names[..replay_end].iter().any(|n| n == "netconf-config-change"), "{names:?}");
    assert!(names[..replay_end].iter().any(|n| n == "netconf-session-start"), "{names:?}");
    // After notificationComplete the session is an ordinary one again and may resubscribe.
    ok(&sub.rpc("3", &subscribe("")).await);
    let r = sub.rpc("4", &subscribe("")).await;
    assert_eq!(
        r.child(NETCONF_BASE_NS, "rpc-error")
            .and_then(|e| e.child(NETCONF_BASE_NS, "error-tag"))
            .map(Element::text)
            .as_deref(),
        Some("in-use")
    );

    let mut other = fx.open("admin").await;
    let tag = |r: &Element| {
        r.child(NETCONF_BASE_NS, "rpc-error")
            .and_then(|e| e.child(NETCONF_BASE_NS, "error-tag"))
            .map(Element::text)
    };
    assert_eq!(
        tag(&other.rpc("5", &subscribe("<stream>OTHER</stream>")).await).as_deref(),
        Some("invalid-value")
    );
    assert_eq!(
        tag(&other
            .rpc("6", &subscribe(&format!("<stopTime>{}</stopTime>", format_time(stop))))
            .await)
        .as_deref(),
        Some("missing-element")
    );
    let future = format_time(SystemTime::now() + Duration::from_secs(3600));
    assert_eq!(
        tag(&other.rpc("7", &subscribe(&format!("<startTime>{future}</startTime>"))).await)
            .as_deref(),
        Some("bad-element")
    );
    assert_eq!(
        tag(&other.rpc("8", &subscribe("<startTime>yesterday</startTime>")).await).as_deref(),
        Some("bad-element")
    );
}

#[tokio::test]
async fn filters_select_events() {
    let fx = Fx::new();
    let mut sub = fx.open("admin").await;
    // Subtree: only session starts.
    ok(&sub.rpc("1", &subscribe(&format!("<filter type=\"subtree\"><netconf-session-start xmlns=\"{NC_NOTIFICATIONS_NS}\"/></filter>"))).await);
    let mut xsub = fx.open("admin").await;
    ok(&xsub.rpc("2", &subscribe(&format!("<filter type=\"xpath\" xmlns:n=\"{NC_NOTIFICATIONS_NS}\" select=\"/n:netconf-config-change\"/>"))).await);
    let mut c = fx.open("admin").await;
    ok(&c.rpc("3", &edit("running", &ifs(&iface("f0", "")))).await);
    let n = next_notification(&mut sub).await;
    assert_eq!(event(&n).name, "netconf-session-start");
    let n = next_notification(&mut xsub).await;
    assert_eq!(event(&n).name, "netconf-config-change");
    // Nothing else was queued for the subtree subscriber: the next event it gets is the
    // next session start.
    let _d = fx.open("admin").await;
    let n = next_notification(&mut sub).await;
    assert_eq!(event(&n).name, "netconf-session-start");
}

#[tokio::test]
async fn a_subscribed_session_is_not_closed_by_the_idle_time_out() {
    let mut fx = Fx::new();
    fx.idle = Some(Duration::from_millis(300));
    let (mut idle, idle_task) = fx.open_with("admin", &common::both_bases()).await;
    let (mut sub, _t) = fx.open_with("admin", &common::both_bases()).await;
    ok(&sub.rpc("1", &subscribe("")).await);
    let end = tokio::time::timeout(WAIT, idle_task).await.expect("ends").expect("no panic");
    assert!(matches!(end, mgmt::session::SessionEnd::IdleTimeout), "{end:?}");
    idle.expect_closed().await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    // Still there: it answers and it received the idle session's end.
    let ev = next_event(&mut sub, "netconf-session-end").await;
    assert_eq!(
        ev.child(NC_NOTIFICATIONS_NS, "termination-reason").map(Element::text).as_deref(),
        Some("timeout")
    );
    let r = sub.rpc("2", "<get-config><source><running/></source></get-config>").await;
    let _ = r;
}

#[tokio::test]
async fn backend_notifications_are_validated_and_delivered() {
    let fx = Fx::new();
    let mut sub = fx.open("admin").await;
    ok(&sub.rpc("1", &subscribe(&format!("<filter><link-flap xmlns=\"{MT}\"/></filter>"))).await);
    let notifier = fx.engine.notifier();
    assert!(!notifier.publish(Element::new(MT, "no-such-notification")));
    assert!(notifier.publish(
        Element::new(MT, "link-flap")
            .with(Element::leaf(MT, "port", "p1"))
            .with(Element::leaf(MT, "count", "3"))
    ));
    let ev = next_event(&mut sub, "link-flap").await;
    assert_eq!(ev.child(MT, "port").map(Element::text).as_deref(), Some("p1"));
}
