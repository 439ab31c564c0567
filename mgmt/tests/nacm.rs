//! Access control (RFC 8341): the administrator created at first start, reads filtered,
//! writes and operations refused, notifications withheld, default-deny-all nodes.

mod common;

use common::fixture::*;
use mgmt::notify::{NC_NOTIFICATIONS_NS, NOTIFICATION_NS};
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

const NACM: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";

/// Rules for bob (group ops): may write ietf-interfaces but not its descriptions (neither
/// read nor write them), may not receive config changes.
fn rules() -> String {
    format!(
        "<nacm xmlns=\"{NACM}\"><groups><group><name>ops</name><user-name>bob</user-name></group></groups>\
         <rule-list><name>ops</name><group>ops</group>\
         <rule><name>no-descr</name><module-name>ietf-interfaces</module-name>\
           <path xmlns:if=\"{IF}\">/if:interfaces/if:interface/if:description</path>\
           <access-operations>*</access-operations><action>deny</action></rule>\
         <rule><name>if-write</name><module-name>ietf-interfaces</module-name>\
           <access-operations>create update delete</access-operations><action>permit</action></rule>\
         <rule><name>no-changes</name><module-name>ietf-netconf-notifications</module-name>\
           <notification-name>netconf-config-change</notification-name><access-operations>read</access-operations><action>deny</action></rule>\
         </rule-list></nacm>"
    )
}

fn tag(r: &Element) -> Option<String> {
    r.child(NETCONF_BASE_NS, "rpc-error")
        .and_then(|e| e.child(NETCONF_BASE_NS, "error-tag"))
        .map(Element::text)
}

#[tokio::test]
async fn first_start_makes_the_administrator_and_rules_are_enforced() {
    let fx = Fx::new();
    let mut admin = fx.open("admin").await;
    let running = get_config(&mut admin, "running", "").await;
    assert!(
        running.contains("<name>admin</name>") && running.contains("<user-name>admin</user-name>"),
        "{running}"
    );
    ok(&admin
        .rpc(
            "1",
            &edit(
                "running",
                &format!("{}{}", rules(), ifs(&iface("e0", "<description>secret</description>"))),
            ),
        )
        .await);
    ok(&admin
        .rpc(
            "2",
            &edit("running", &format!("<settings xmlns=\"{MT}\"><label>x</label></settings>")),
        )
        .await);

    // bob: reads filtered (no descriptions, no /nacm), everything else visible.
    let mut bob = fx.open("bob").await;
    let seen = get_config(&mut bob, "running", "").await;
    assert!(seen.contains("<name>e0</name>") && seen.contains("<label>x</label>"), "{seen}");
    assert!(!seen.contains("secret") && !seen.contains("<nacm"), "{seen}");
    let seen = data(&bob.rpc("3", "<get/>").await);
    assert!(
        !seen.contains("secret") && !seen.contains("<groups>") && seen.contains("netconf-state"),
        "{seen}"
    );
    let x = get_config(
        &mut bob,
        "running",
        &format!("<filter type=\"xpath\" xmlns:if=\"{IF}\" select=\"//if:description\"/>"),
    )
    .await;
    assert!(!x.contains("secret"), "{x}");

    // bob writes: interfaces yes, descriptions no, other modules no (write-default deny).
    ok(&bob.rpc("4", &edit("running", &ifs(&iface("e1", "")))).await);
    let r =
        bob.rpc("5", &edit("running", &ifs(&iface("e1", "<description>d</description>")))).await;
    let e = expect_err(&r, "access-denied", "application");
    assert_eq!(e.path.as_deref(), Some("/if:interfaces/if:interface[if:name='e1']/if:description"));
    let r = bob
        .rpc(
            "6",
            &edit("running", &format!("<settings xmlns=\"{MT}\"><label>y</label></settings>")),
        )
        .await;
    expect_err(&r, "access-denied", "application");
    // Deleting an entry that holds a description needs delete access to it too.
    let r = bob
        .rpc(
            "7",
            &edit(
                "running",
                &ifs("<interface nc:operation=\"delete\"><name>e0</name></interface>"),
            ),
        )
        .await;
    expect_err(&r, "access-denied", "application");
    // The candidate is checked the same way.
    let r = bob
        .rpc(
            "8",
            &edit("candidate", &format!("<settings xmlns=\"{MT}\"><label>y</label></settings>")),
        )
        .await;
    expect_err(&r, "access-denied", "application");
    // kill-session and delete-config are default-deny-all; close-session is always allowed.
    let r = bob.rpc("9", "<kill-session><session-id>1</session-id></kill-session>").await;
    expect_err(&r, "access-denied", "protocol");
    let r = bob.rpc("10", "<delete-config><target><startup/></target></delete-config>").await;
    expect_err(&r, "access-denied", "protocol");

    // carol is in no group: reads (except /nacm) yes, writes no.
    let mut carol = fx.open("carol").await;
    assert!(get_config(&mut carol, "running", "").await.contains("secret"));
    expect_err(
        &carol.rpc("11", &edit("running", &ifs(&iface("e2", "")))).await,
        "access-denied",
        "application",
    );

    // Counters.
    let t = data(&admin.rpc("12", &format!("<get><filter><nacm xmlns=\"{NACM}\"><denied-operations/><denied-data-writes/></nacm></filter></get>")).await);
    assert!(t.contains("<denied-operations>2</denied-operations>"), "{t}");
    assert!(t.contains("<denied-data-writes>5</denied-data-writes>"), "{t}");

    // Notifications: bob does not receive config changes, does receive session events.
    ok(&bob.rpc("13", &format!("<create-subscription xmlns=\"{NOTIFICATION_NS}\"/>")).await);
    ok(&admin.rpc("14", &edit("running", &ifs(&iface("e3", "")))).await);
    let _carol2 = fx.open("carol").await;
    loop {
        let m = bob.recv().await.expect("message");
        let n = netconf_proto::xml::parse(&m).expect("xml");
        if !n.is(NOTIFICATION_NS, "notification") {
            continue;
        }
        let ev = n.elements().find(|e| e.name != "eventTime").expect("event");
        assert_ne!(ev.name, "netconf-config-change", "withheld from bob");
        if ev.is(NC_NOTIFICATIONS_NS, "netconf-session-start") {
            break;
        }
    }

    // Disabling NACM lets carol write.
    ok(&admin
        .rpc(
            "15",
            &edit(
                "running",
                &format!("<nacm xmlns=\"{NACM}\"><enable-nacm>false</enable-nacm></nacm>"),
            ),
        )
        .await);
    ok(&carol.rpc("16", &edit("running", &ifs(&iface("e4", "")))).await);
    assert_eq!(
        tag(&carol.rpc("17", "<get-config><source><running/></source></get-config>").await),
        None
    );
}

/// RFC 8341 §3.2.5: a shared candidate may hold another user's changes; committing them is
/// checked as the committing user's write, so bob cannot commit a description he may not
/// write, and the candidate keeps it for the administrator to commit.
#[tokio::test]
async fn a_commit_is_checked_as_the_committing_users_write() {
    let fx = Fx::new();
    let mut admin = fx.open("admin").await;
    ok(&admin.rpc("1", &edit("running", &format!("{}{}", rules(), ifs(&iface("e0", ""))))).await);
    let mut bob = fx.open("bob").await;
    // The administrator stages a description in the shared candidate.
    ok(&admin
        .rpc("2", &edit("candidate", &ifs(&iface("e0", "<description>staged</description>"))))
        .await);
    let r = bob.rpc("3", "<commit/>").await;
    assert_eq!(tag(&r).as_deref(), Some("access-denied"), "{}", r.to_xml());
    let e = err(&r);
    assert!(e.path.as_deref().is_some_and(|p| p.contains("description")), "{:?}", e.path);
    assert!(!get_config(&mut admin, "running", "").await.contains("staged"));
    // bob's own change to what he may write commits once the administrator's is in.
    ok(&admin.rpc("4", "<commit/>").await);
    ok(&bob.rpc("5", &edit("candidate", &ifs(&iface("e1", "")))).await);
    ok(&bob.rpc("6", "<commit/>").await);
    let running = get_config(&mut admin, "running", "").await;
    assert!(running.contains("staged") && running.contains("<name>e1</name>"), "{running}");
}
