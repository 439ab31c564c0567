//! Every NETCONF operation against the engine, over in-memory pipes (no SSH): retrieval with
//! filters and with-defaults, editing with every operation and option, locks, candidate and
//! confirmed commit, monitoring, get-schema, kill-session.

mod common;

use std::time::Duration;

use common::fixture::*;
use common::{both_bases, caps, WAIT};
use mgmt::engine::Mode;
use mgmt::protocol::sessions::Registry;
use mgmt::session::SessionEnd;
use netconf_proto::hello::BASE_1_0;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

#[tokio::test]
async fn hello_advertises_the_capabilities() {
    let fx = Fx::new();
    let c = fx.open("admin").await;
    let caps = &c.server_hello.capabilities;
    for want in [
        "urn:ietf:params:netconf:base:1.0",
        "urn:ietf:params:netconf:base:1.1",
        "urn:ietf:params:netconf:capability:writable-running:1.0",
        "urn:ietf:params:netconf:capability:candidate:1.0",
        "urn:ietf:params:netconf:capability:confirmed-commit:1.1",
        "urn:ietf:params:netconf:capability:rollback-on-error:1.0",
        "urn:ietf:params:netconf:capability:validate:1.1",
        "urn:ietf:params:netconf:capability:startup:1.0",
        "urn:ietf:params:netconf:capability:xpath:1.0",
        "urn:ietf:params:netconf:capability:with-defaults:1.0?basic-mode=explicit&also-supported=report-all,report-all-tagged,trim",
        "urn:ietf:params:netconf:capability:notification:1.0",
        "urn:ietf:params:netconf:capability:interleave:1.0",
    ] {
        assert!(caps.iter().any(|c| c == want), "missing {want}: {caps:#?}");
    }
    let yl =
        caps.iter().find(|c| c.starts_with("urn:ietf:params:netconf:capability:yang-library:1.1?"));
    assert!(yl.is_some_and(|c| c.contains("revision=2019-01-04&content-id=")), "{caps:#?}");
    // RFC 7950 §5.6.4: a YANG 1.1 module (mgmt-test, ietf-interfaces) is not a module
    // capability; the yang-library capability announces it. YANG 1.0 modules are listed.
    assert!(!caps.iter().any(|c| c.contains("module=mgmt-test")), "{caps:#?}");
    assert!(!caps.iter().any(|c| c.contains("module=ietf-interfaces&")), "{caps:#?}");
    assert!(!caps.iter().any(|c| c.contains("module=ietf-yang-schema-mount")), "{caps:#?}");
    assert!(caps.iter().any(|c| c.starts_with("urn:ietf:params:xml:ns:netconf:base:1.0?module=ietf-netconf&revision=2011-06-01&features=candidate,confirmed-commit")), "{caps:#?}");
}

#[tokio::test]
async fn edit_running_and_read_it_back_in_both_framings() {
    let fx = Fx::new();
    for (i, bases) in [both_bases(), caps(&[BASE_1_0])].into_iter().enumerate() {
        let (mut c, _task) = fx.open_with("admin", &bases).await;
        let name = format!("eth{i}");
        ok(&c
            .rpc("1", &edit("running", &ifs(&iface(&name, "<description>up</description>"))))
            .await);
        let running = get_config(&mut c, "running", "").await;
        assert!(running.contains(&format!("<name>{name}</name>")), "{running}");
        assert!(running.contains("<description>up</description>"), "{running}");
        ok(&c.rpc("2", "<close-session/>").await);
    }
}

#[tokio::test]
async fn unqualified_parameters_of_base_operations_are_read_as_base_ones() {
    // What ncclient sends for `edit_config(config="<config>...")`: `<config>` in no namespace.
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let body = ifs(&iface("eth7", "<description>plain</description>"));
    let unqualified = format!(
        "<edit-config><target><candidate/></target><config xmlns=\"\">{body}</config></edit-config>"
    );
    ok(&c.rpc("1", &unqualified).await);
    ok(&c.rpc("2", "<commit/>").await);
    let running = get_config(&mut c, "running", "").await;
    assert!(running.contains("<description>plain</description>"), "{running}");
    // An unqualified filter filters (it is not silently ignored).
    let r = c
        .rpc(
            "3",
            &format!(
                "<get-config><source><running/></source><filter xmlns=\"\" type=\"subtree\">\
                 <interfaces xmlns=\"{IF}\"><interface><name>none</name></interface></interfaces>\
                 </filter></get-config>"
            ),
        )
        .await;
    assert!(!r.to_xml().contains("eth7"), "{}", r.to_xml());
    // A parameter in some other namespace is still unknown.
    let foreign = format!(
        "<edit-config><target><candidate/></target><config xmlns=\"urn:other\">{body}</config></edit-config>"
    );
    expect_err(&c.rpc("4", &foreign).await, "unknown-element", "protocol");
}

#[tokio::test]
async fn edit_operations_and_their_errors() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    ok(&c.rpc("1", &edit("running", &ifs(&iface("eth0", "")))).await);

    // create of an existing entry: data-exists, with the entry's path.
    let r = c
        .rpc(
            "2",
            &edit(
                "running",
                &ifs(&iface("eth0", "")
                    .replace("<interface>", "<interface nc:operation=\"create\">")),
            ),
        )
        .await;
    let e = expect_err(&r, "data-exists", "application");
    assert_eq!(e.path.as_deref(), Some("/if:interfaces/if:interface[if:name='eth0']"));

    // delete of a missing entry: data-missing; remove: fine.
    let del = ifs("<interface nc:operation=\"delete\"><name>eth9</name></interface>");
    let e = expect_err(&c.rpc("3", &edit("running", &del)).await, "data-missing", "application");
    assert_eq!(e.path.as_deref(), Some("/if:interfaces/if:interface[if:name='eth9']"));
    ok(&c.rpc("4", &edit("running", &del.replace("delete", "remove"))).await);

    // merge a leaf, replace the entry (the leaf goes), delete the entry.
    ok(&c.rpc("5", &edit("running", &ifs(&iface("eth0", "<description>x</description>")))).await);
    assert!(get_config(&mut c, "running", "").await.contains("<description>x</description>"));
    let replace =
        ifs(&iface("eth0", "").replace("<interface>", "<interface nc:operation=\"replace\">"));
    ok(&c.rpc("6", &edit("running", &replace)).await);
    assert!(!get_config(&mut c, "running", "").await.contains("description"));
    ok(&c.rpc("7", &edit("running", &del.replace("eth9", "eth0"))).await);
    assert!(!get_config(&mut c, "running", "").await.contains("eth0"));

    // Unknown namespace, unknown element, bad value, missing key, missing mandatory leaf.
    let e = expect_err(
        &c.rpc("8", &edit("running", "<x xmlns=\"urn:nowhere\"/>")).await,
        "unknown-namespace",
        "application",
    );
    assert!(e.info.child(NETCONF_BASE_NS, "bad-namespace").is_some());
    let e = expect_err(
        &c.rpc("9", &edit("running", &ifs("<bogus/>"))).await,
        "unknown-element",
        "application",
    );
    assert_eq!(e.path.as_deref(), Some("/if:interfaces"));
    assert_eq!(
        e.info.child(NETCONF_BASE_NS, "bad-element").map(Element::text).as_deref(),
        Some("bogus")
    );
    let bad_mtu = format!("<settings xmlns=\"{MT}\"><mtu>12</mtu></settings>");
    let e =
        expect_err(&c.rpc("10", &edit("running", &bad_mtu)).await, "invalid-value", "application");
    assert_eq!(e.path.as_deref(), Some("/mt:settings/mt:mtu"));
    let no_key = ifs("<interface><description>x</description></interface>");
    let e =
        expect_err(&c.rpc("11", &edit("running", &no_key)).await, "missing-element", "application");
    assert_eq!(
        e.info.child(NETCONF_BASE_NS, "bad-element").map(Element::text).as_deref(),
        Some("name")
    );
    let no_type = ifs("<interface><name>eth5</name></interface>");
    let e = expect_err(
        &c.rpc("12", &edit("running", &no_type)).await,
        "missing-element",
        "application",
    );
    assert!(
        e.path
            .as_deref()
            .is_some_and(|p| p.starts_with("/if:interfaces/if:interface[if:name='eth5']")),
        "{:?}",
        e.path
    );
    let bad_op =
        ifs(&iface("eth0", "").replace("<interface>", "<interface nc:operation=\"frob\">"));
    expect_err(&c.rpc("13", &edit("running", &bad_op)).await, "bad-attribute", "application");
    // must with error-app-tag, unique, leafref.
    let reserved = format!("<rule xmlns=\"{MT}\"><name>r1</name><priority>250</priority><action>permit</action></rule>");
    let e = expect_err(
        &c.rpc("14", &edit("running", &reserved)).await,
        "operation-failed",
        "application",
    );
    assert_eq!(e.app_tag.as_deref(), Some("reserved-priority"));
    let dup = format!("<rule xmlns=\"{MT}\"><name>a</name><priority>1</priority><action>permit</action></rule><rule xmlns=\"{MT}\"><name>b</name><priority>1</priority><action>deny</action></rule>");
    let e =
        expect_err(&c.rpc("15", &edit("running", &dup)).await, "operation-failed", "application");
    assert_eq!(e.app_tag.as_deref(), Some("data-not-unique"));
    let dangling = format!("<settings xmlns=\"{MT}\"><uplink>nope</uplink></settings>");
    let e =
        expect_err(&c.rpc("16", &edit("running", &dangling)).await, "data-missing", "application");
    assert_eq!(e.app_tag.as_deref(), Some("instance-required"));
    // None of the refused edits changed anything.
    assert_eq!(get_config(&mut c, "running", &format!("<filter><interfaces xmlns='{IF}'/><settings xmlns='{MT}'/><rule xmlns='{MT}'/></filter>")).await, "");

    // Operation parameters: unknown parameter, bad target, bad default-operation, url.
    let e = expect_err(
        &c.rpc("17", "<edit-config><target><running/></target><bogus/></edit-config>").await,
        "unknown-element",
        "protocol",
    );
    assert_eq!(e.path.as_deref(), Some("/nc:rpc/nc:edit-config/nc:bogus"));
    let e = expect_err(&c.rpc("18", &edit("startup", "")).await, "bad-element", "protocol");
    assert_eq!(e.path.as_deref(), Some("/nc:rpc/nc:edit-config/nc:target"));
    expect_err(
        &c.rpc("19", &edit_with("running", "<default-operation>merge-ish</default-operation>", ""))
            .await,
        "invalid-value",
        "protocol",
    );
    let e = expect_err(
        &c.rpc("20", "<edit-config><target><running/></target></edit-config>").await,
        "missing-element",
        "protocol",
    );
    assert_eq!(e.path.as_deref(), Some("/nc:rpc/nc:edit-config"));
    expect_err(
        &c.rpc("21", "<edit-config><target><running/></target><url>file:///x</url></edit-config>")
            .await,
        "operation-not-supported",
        "protocol",
    );
}

#[tokio::test]
async fn default_operation_test_option_and_error_option() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    ok(&c.rpc("1", &edit("running", &ifs(&format!("{}{}", iface("a", ""), iface("b", ""))))).await);

    // none: a missing level is data-missing; an explicit merge creates its parents.
    let r = c
        .rpc(
            "2",
            &edit_with(
                "running",
                "<default-operation>none</default-operation>",
                &ifs(&iface("c", "")),
            ),
        )
        .await;
    expect_err(&r, "data-missing", "application");
    let merge_c = ifs(&iface("c", "").replace("<interface>", "<interface nc:operation=\"merge\">"));
    ok(&c
        .rpc("3", &edit_with("running", "<default-operation>none</default-operation>", &merge_c))
        .await);
    assert!(get_config(&mut c, "running", "").await.contains("<name>c</name>"));

    // test-only: checked, not applied.
    ok(&c
        .rpc(
            "4",
            &edit_with("running", "<test-option>test-only</test-option>", &ifs(&iface("d", ""))),
        )
        .await);
    assert!(!get_config(&mut c, "running", "").await.contains("<name>d</name>"));
    let r = c
        .rpc(
            "5",
            &edit_with(
                "running",
                "<test-option>test-only</test-option>",
                &ifs("<interface><name>d</name></interface>"),
            ),
        )
        .await;
    expect_err(&r, "missing-element", "application");

    // set on the candidate skips datastore-wide validation (a missing mandatory type), which
    // commit then refuses.
    ok(&c
        .rpc(
            "6",
            &edit_with(
                "candidate",
                "<test-option>set</test-option>",
                &ifs("<interface><name>x</name></interface>"),
            ),
        )
        .await);
    assert!(get_config(&mut c, "candidate", "").await.contains("<name>x</name>"));
    let e = expect_err(&c.rpc("7", "<commit/>").await, "missing-element", "application");
    assert!(e.path.is_some());
    let e = expect_err(
        &c.rpc("7v", "<validate><source><candidate/></source></validate>").await,
        "missing-element",
        "application",
    );
    assert!(e.path.is_some());
    ok(&c.rpc("8", "<discard-changes/>").await);

    // rollback-on-error and stop-on-error: nothing applied.
    let mixed = ifs(&format!(
        "{}<interface nc:operation=\"delete\"><name>zz</name></interface>",
        iface("e", "")
    ));
    for opt in ["rollback-on-error", "stop-on-error"] {
        let r = c
            .rpc("9", &edit_with("running", &format!("<error-option>{opt}</error-option>"), &mixed))
            .await;
        expect_err(&r, "data-missing", "application");
        assert!(!get_config(&mut c, "running", "").await.contains("<name>e</name>"), "{opt}");
    }
    // continue-on-error: the good part is applied, the error reported.
    let r = c
        .rpc("10", &edit_with("running", "<error-option>continue-on-error</error-option>", &mixed))
        .await;
    expect_err(&r, "data-missing", "application");
    assert!(get_config(&mut c, "running", "").await.contains("<name>e</name>"));

    // replace: the whole datastore becomes the config. Without /nacm it would take the
    // administrator's own access away: refused, naming /nacm.
    let replace =
        |body: &str| edit_with("running", "<default-operation>replace</default-operation>", body);
    let e = expect_err(
        &c.rpc("11", &replace(&ifs(&iface("only", "")))).await,
        "operation-failed",
        "application",
    );
    assert_eq!(e.path.as_deref(), Some("/nacm:nacm"));
    assert!(get_config(&mut c, "running", "").await.contains("<name>a</name>"));
    let with_rules =
        format!("{}{}", ifs(&iface("only", "")), mgmt::access::nacm::admin_config("admin"));
    ok(&c.rpc("12", &replace(&with_rules)).await);
    let running =
        get_config(&mut c, "running", &format!("<filter><interfaces xmlns='{IF}'/></filter>"))
            .await;
    assert!(
        running.contains("<name>only</name>") && !running.contains("<name>a</name>"),
        "{running}"
    );
}

#[tokio::test]
async fn user_ordered_lists_and_choices() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let rule = |n: &str, attrs: &str| {
        format!("<rule xmlns=\"{MT}\" xmlns:yang=\"urn:ietf:params:xml:ns:yang:1\"{attrs}><name>{n}</name><action>permit</action></rule>")
    };
    ok(&c.rpc("1", &edit("running", &format!("{}{}", rule("a", ""), rule("b", "")))).await);
    ok(&c.rpc("2", &edit("running", &rule("c", " yang:insert=\"first\""))).await);
    ok(&c
        .rpc("3", &edit("running", &rule("d", " yang:insert=\"after\" yang:key=\"[mt:name='c']\"")))
        .await);
    let text = get_config(
        &mut c,
        "running",
        &format!("<filter><rule xmlns='{MT}'><name/></rule></filter>"),
    )
    .await;
    let order: Vec<&str> = text.split("<name>").skip(1).map(|s| &s[..1]).collect();
    assert_eq!(order, ["c", "d", "a", "b"], "{text}");
    let r = c
        .rpc(
            "4",
            &edit("running", &rule("e", " yang:insert=\"before\" yang:key=\"[mt:name='zz']\"")),
        )
        .await;
    // RFC 7950 §15.7: a missing anchor is bad-attribute with error-app-tag missing-instance.
    let e = expect_err(&r, "bad-attribute", "application");
    assert_eq!(e.app_tag.as_deref(), Some("missing-instance"));

    // A node of one case removes the other case's nodes.
    let s = |body: &str| format!("<settings xmlns=\"{MT}\">{body}</settings>");
    ok(&c.rpc("5", &edit("running", &s("<tcp-port>80</tcp-port>"))).await);
    ok(&c.rpc("6", &edit("running", &s("<udp-port>53</udp-port>"))).await);
    let text =
        get_config(&mut c, "running", &format!("<filter><settings xmlns='{MT}'/></filter>")).await;
    assert!(text.contains("<udp-port>53</udp-port>") && !text.contains("tcp-port"), "{text}");
}

/// The first letter of each `<element>` of running as `filter` selects it, in order.
async fn first_letters(c: &mut Client, filter: &str, element: &str) -> Vec<String> {
    let text = get_config(c, "running", filter).await;
    text.split(&format!("<{element}>")).skip(1).map(|s| s[..1].to_string()).collect()
}

/// RFC 7950 §7.8.6 (lists) and §7.7.9 (leaf-lists): `insert` on an entry that already exists
/// moves it, with operation merge and replace, for first, last, before and after.
#[tokio::test]
async fn insert_moves_existing_entries_rfc7950_7_8_6_and_7_7_9() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let y = "xmlns:yang=\"urn:ietf:params:xml:ns:yang:1\" xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\"";
    let rule = |n: &str, attrs: &str| {
        format!("<rule xmlns=\"{MT}\" {y}{attrs}><name>{n}</name><action>permit</action></rule>")
    };
    let all: String = ["a", "b", "c", "d"].iter().map(|n| rule(n, "")).collect();
    ok(&c.rpc("1", &edit("running", &all)).await);
    let moves = [
        (" yang:insert=\"last\"", "a", ["b", "c", "d", "a"]),
        (" yang:insert=\"first\"", "d", ["d", "b", "c", "a"]),
        (" yang:insert=\"before\" yang:key=\"[mt:name='d']\"", "a", ["a", "d", "b", "c"]),
        (" yang:insert=\"after\" yang:key=\"[mt:name='c']\"", "a", ["d", "b", "c", "a"]),
        (" yang:insert=\"after\" yang:key=\"[mt:name='d']\"", "c", ["d", "c", "b", "a"]),
        // With replace, the entry moves and is replaced.
        (" nc:operation=\"replace\" yang:insert=\"last\"", "d", ["c", "b", "a", "d"]),
        (
            " nc:operation=\"replace\" yang:insert=\"before\" yang:key=\"[mt:name='b']\"",
            "a",
            ["c", "a", "b", "d"],
        ),
    ];
    for (i, (attrs, name, want)) in moves.iter().enumerate() {
        ok(&c.rpc(&format!("m{i}"), &edit("running", &rule(name, attrs))).await);
        let f = format!("<filter><rule xmlns='{MT}'><name/></rule></filter>");
        assert_eq!(first_letters(&mut c, &f, "name").await, want, "moving {name} with{attrs}");
    }
    // Leaf-lists.
    let tags = |body: &str| format!("<settings xmlns=\"{MT}\" {y}>{body}</settings>");
    let tag = |v: &str, attrs: &str| format!("<tag{attrs}>{v}</tag>");
    ok(&c
        .rpc(
            "t",
            &edit("running", &tags(&format!("{}{}{}", tag("x", ""), tag("y", ""), tag("z", "")))),
        )
        .await);
    let moves = [
        (" yang:insert=\"last\"", "x", ["y", "z", "x"]),
        (" yang:insert=\"first\"", "z", ["z", "y", "x"]),
        (" yang:insert=\"after\" yang:value=\"y\"", "z", ["y", "z", "x"]),
        (" nc:operation=\"replace\" yang:insert=\"before\" yang:value=\"y\"", "x", ["x", "y", "z"]),
    ];
    for (i, (attrs, v, want)) in moves.iter().enumerate() {
        ok(&c.rpc(&format!("l{i}"), &edit("running", &tags(&tag(v, attrs)))).await);
        let f = format!("<filter><settings xmlns='{MT}'><tag/></settings></filter>");
        assert_eq!(first_letters(&mut c, &f, "tag").await, want, "moving {v} with{attrs}");
    }
}

/// An operation that would delete, create or replace a list's key leaf on its own is refused
/// (bad-attribute naming the key), not answered <ok/> with nothing changed.
#[tokio::test]
async fn an_operation_on_a_key_leaf_alone_is_refused() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    ok(&c.rpc("1", &edit("running", &ifs(&iface("eth0", "")))).await);
    for (i, op) in ["delete", "remove", "create", "replace"].iter().enumerate() {
        let body = ifs(&format!("<interface><name nc:operation=\"{op}\">eth0</name></interface>"));
        let e = expect_err(
            &c.rpc(&i.to_string(), &edit("running", &body)).await,
            "bad-attribute",
            "application",
        );
        assert!(e.message.contains("key"), "{}", e.message);
        assert!(e.path.as_deref().is_some_and(|p| p.ends_with("if:name")), "{:?}", e.path);
    }
    assert!(get_config(&mut c, "running", "").await.contains("<name>eth0</name>"));
    // merge on a key is what every client sends implicitly: fine.
    let body = ifs("<interface><name nc:operation=\"merge\">eth0</name></interface>");
    ok(&c.rpc("m", &edit("running", &body)).await);
}

/// RFC 7950 §8.3.3: the candidate may be built in steps; a leafref whose target comes in a
/// later edit, a `must` not yet true and a missing mandatory leaf are refused at <validate>
/// and <commit>, not at edit-config. Type errors are still refused at once.
#[tokio::test]
async fn the_candidate_is_built_in_steps_and_checked_at_commit_rfc7950_8_3_3() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let s = |body: &str| format!("<settings xmlns=\"{MT}\">{body}</settings>");
    // A leafref to an interface that comes later.
    ok(&c.rpc("1", &edit("candidate", &s("<uplink>eth7</uplink>"))).await);
    let e = expect_err(&c.rpc("2", "<commit/>").await, "data-missing", "application");
    assert!(e.path.as_deref().is_some_and(|p| p.contains("uplink")), "{:?}", e.path);
    let e = expect_err(
        &c.rpc("3", "<validate><source><candidate/></source></validate>").await,
        "data-missing",
        "application",
    );
    assert!(e.path.as_deref().is_some_and(|p| p.contains("uplink")), "{:?}", e.path);
    assert!(!get_config(&mut c, "running", "").await.contains("uplink"), "running unchanged");
    assert!(get_config(&mut c, "candidate", "").await.contains("<uplink>eth7</uplink>"));
    ok(&c.rpc("4", &edit("candidate", &ifs(&iface("eth7", "")))).await);
    ok(&c.rpc("5", "<commit/>").await);
    assert!(get_config(&mut c, "running", "").await.contains("<uplink>eth7</uplink>"));
    // A must not yet true, and a mandatory leaf that comes in the next edit.
    let rule = |body: &str| format!("<rule xmlns=\"{MT}\"><name>r1</name>{body}</rule>");
    ok(&c.rpc("6", &edit("candidate", &rule("<priority>250</priority>"))).await);
    expect_err(&c.rpc("7", "<commit/>").await, "operation-failed", "application");
    ok(&c.rpc("8", &edit("candidate", &rule("<priority>20</priority>"))).await);
    let e = expect_err(&c.rpc("9", "<commit/>").await, "missing-element", "application");
    assert!(e.message.contains("action"), "{}", e.message);
    ok(&c.rpc("10", &edit("candidate", &rule("<action>permit</action>"))).await);
    ok(&c.rpc("11", "<commit/>").await);
    // A value of the wrong type is refused at once.
    expect_err(
        &c.rpc("12", &edit("candidate", &s("<mtu>big</mtu>"))).await,
        "invalid-value",
        "application",
    );
    // Running is still checked at once.
    expect_err(
        &c.rpc("13", &edit("running", &s("<uplink>eth9</uplink>"))).await,
        "data-missing",
        "application",
    );
}

/// What clients that show only an rpc-error's message (Ansible) need: the message names the
/// node, and reads as one sentence (no stray ".;").
#[tokio::test]
async fn a_validation_message_names_its_node() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let bad = format!(
        "{}{}",
        iface("eth1", ""),
        "<interface><name>eth3</name><type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:noSuchType</type></interface>"
    );
    let e =
        expect_err(&c.rpc("1", &edit("running", &ifs(&bad))).await, "invalid-value", "application");
    assert!(e.message.contains("eth3"), "{}", e.message);
    assert!(!e.message.contains(".;"), "{}", e.message);
}

/// RFC 6241 §6.2.5: a subtree filter whose only top-level node is a content match selects
/// that top-level node if it matches, and nothing else (not every module's data, not /nacm).
#[tokio::test]
async fn a_top_level_content_match_selects_only_that_node() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let body = format!("<banner xmlns=\"{MT}\">Test</banner>{}", ifs(&iface("eth0", "")));
    ok(&c.rpc("1", &edit("running", &body)).await);
    let sub = |f: &str| format!("<filter type=\"subtree\">{f}</filter>");
    let t =
        get_config(&mut c, "running", &sub(&format!("<banner xmlns='{MT}'>Test</banner>"))).await;
    assert_eq!(t, format!("<banner xmlns=\"{MT}\">Test</banner>"));
    let t =
        get_config(&mut c, "running", &sub(&format!("<banner xmlns='{MT}'>Other</banner>"))).await;
    assert_eq!(t, "");
    let r = c
        .rpc("2", &format!("<get>{}</get>", sub(&format!("<banner xmlns='{MT}'>Test</banner>"))))
        .await;
    let t = data(&r);
    assert!(!t.contains("nacm") && !t.contains("eth0") && t.contains("Test"), "{t}");
}

#[tokio::test]
async fn subtree_and_xpath_filters() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let entries = format!(
        "{}{}",
        iface("eth0", "<description>uplink</description>"),
        iface("eth1", "<description>server</description><enabled>false</enabled>")
    );
    ok(&c.rpc("1", &edit("running", &ifs(&entries))).await);
    ok(&c
        .rpc(
            "2",
            &edit("running", &format!("<settings xmlns=\"{MT}\"><label>L</label></settings>")),
        )
        .await);

    let sub = |f: &str| format!("<filter type=\"subtree\">{f}</filter>");
    // Containment + content match + selection.
    let t = get_config(&mut c, "running", &sub(&format!("<interfaces xmlns='{IF}'><interface><name>eth1</name><enabled/></interface></interfaces>"))).await;
    assert!(t.contains("<name>eth1</name>") && t.contains("<enabled>false</enabled>"), "{t}");
    assert!(!t.contains("eth0") && !t.contains("server"), "{t}");
    // Content match on a non-key leaf selects whole entries.
    let t = get_config(&mut c, "running", &sub(&format!("<interfaces xmlns='{IF}'><interface><description>uplink</description></interface></interfaces>"))).await;
    assert!(t.contains("eth0") && !t.contains("eth1") && t.contains("ethernetCsmacd"), "{t}");
    // Two top-level selections, and a namespace that matches nothing.
    let t = get_config(
        &mut c,
        "running",
        &sub(&format!("<settings xmlns='{MT}'/><interfaces xmlns='{IF}'/>")),
    )
    .await;
    assert!(t.contains("<label>L</label>") && t.contains("eth1"), "{t}");
    assert_eq!(get_config(&mut c, "running", &sub("<interfaces xmlns='urn:other'/>")).await, "");
    // An empty filter selects nothing.
    assert_eq!(get_config(&mut c, "running", "<filter type=\"subtree\"/>").await, "");

    // XPath with prefixes declared on the filter, and with prefixes declared on <rpc>.
    let t = get_config(&mut c, "running", &format!("<filter type=\"xpath\" xmlns:i=\"{IF}\" select=\"/i:interfaces/i:interface[i:name='eth0']/i:description\"/>")).await;
    assert!(
        t.contains("<description>uplink</description>") && t.contains("<name>eth0</name>"),
        "{t}"
    );
    assert!(!t.contains("eth1") && !t.contains("<type"), "{t}");
    c.send(&format!("<rpc message-id=\"x\" xmlns=\"{NETCONF_BASE_NS}\" xmlns:t=\"{MT}\"><get-config><source><running/></source><filter type=\"xpath\" select=\"/t:settings\"/></get-config></rpc>")).await;
    let r = netconf_proto::xml::parse(&c.recv().await.expect("reply")).expect("xml");
    assert!(data(&r).contains("<label>L</label>"), "{}", r.to_xml());
    // Bad XPath: an undeclared prefix, a syntax error, a missing select.
    expect_err(&c.rpc("3", "<get-config><source><running/></source><filter type=\"xpath\" select=\"/nope:x\"/></get-config>").await, "invalid-value", "protocol");
    expect_err(&c.rpc("4", &format!("<get-config><source><running/></source><filter type=\"xpath\" xmlns:i=\"{IF}\" select=\"/i:interfaces[[\"/></get-config>")).await, "invalid-value", "protocol");
    expect_err(
        &c.rpc("5", "<get-config><source><running/></source><filter type=\"xpath\"/></get-config>")
            .await,
        "missing-attribute",
        "rpc",
    );
    expect_err(
        &c.rpc("6", "<get-config><source><running/></source><filter type=\"regex\"/></get-config>")
            .await,
        "bad-attribute",
        "protocol",
    );

    // <get> filters state too.
    let r = c.rpc("7", "<get><filter><netconf-state xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring\"><sessions/></netconf-state></filter></get>").await;
    let t = data(&r);
    assert!(
        t.contains("<session-id>") && !t.contains("<schemas>") && !t.contains("interfaces"),
        "{t}"
    );
    let r = c.rpc("8", &format!("<get><filter type=\"xpath\" xmlns:i=\"{IF}\" select=\"/i:interfaces/i:interface/i:name\"/></get>")).await;
    let t = data(&r);
    assert!(
        t.contains("<name>eth0</name>")
            && t.contains("<name>eth1</name>")
            && !t.contains("netconf-state"),
        "{t}"
    );
}

#[tokio::test]
async fn with_defaults_modes() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    // mtu set to its default explicitly, mode left to its default.
    ok(&c
        .rpc(
            "1",
            &edit(
                "running",
                &format!("<settings xmlns=\"{MT}\"><mtu>1500</mtu><label>x</label></settings>"),
            ),
        )
        .await);
    let get = |mode: &str| {
        format!(
            "<get-config><source><running/></source><filter><settings xmlns=\"{MT}\"/></filter>{}</get-config>",
            if mode.is_empty() { String::new() } else { format!("<with-defaults xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults\">{mode}</with-defaults>") }
        )
    };
    for mode in ["", "explicit"] {
        let t = data(&c.rpc("2", &get(mode)).await);
        assert!(t.contains("<mtu>1500</mtu>"), "explicit keeps what was set: {t}");
        assert!(
            !t.contains("<mode>") && !t.contains("<hello>"),
            "explicit leaves defaults out: {t}"
        );
    }
    let t = data(&c.rpc("3", &get("report-all")).await);
    assert!(
        t.contains("<mtu>1500</mtu>")
            && t.contains("<mode>safe</mode>")
            && t.contains("<hello>30</hello>"),
        "{t}"
    );
    assert!(!t.contains("default="), "{t}");
    let t = data(&c.rpc("4", &get("trim")).await);
    assert!(!t.contains("<mtu>") && !t.contains("<mode>") && t.contains("<label>x</label>"), "{t}");
    let r = c.rpc("5", &get("report-all-tagged")).await;
    let t = data(&r);
    assert!(t.contains("<label>x</label>"), "{t}");
    // Every default-valued leaf is tagged in the RFC 6243 namespace.
    let d = r.child(NETCONF_BASE_NS, "data").expect("data");
    let settings = d.child(MT, "settings").expect("settings");
    for leaf in ["mtu", "mode"] {
        let e = settings.child(MT, leaf).unwrap_or_else(|| panic!("{leaf}: {t}"));
        assert_eq!(
            e.attribute_ns("urn:ietf:params:xml:ns:netconf:default:1.0", "default"),
            Some("true"),
            "{leaf}: {t}"
        );
    }
    let label = settings.child(MT, "label").expect("label");
    assert!(label.attributes().is_empty(), "{t}");
    expect_err(&c.rpc("6", &get("everything")).await, "invalid-value", "protocol");
    // <get> with report-all also fills in state defaults.
    let t = data(&c.rpc("7", &format!("<get><filter><settings xmlns=\"{MT}\"/></filter><with-defaults xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults\">report-all</with-defaults></get>")).await);
    assert!(t.contains("<mode>safe</mode>"), "{t}");
}

#[tokio::test]
async fn candidate_commit_discard_copy_delete_validate() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    ok(&c.rpc("1", &edit("candidate", &ifs(&iface("c0", "")))).await);
    assert!(!get_config(&mut c, "running", "").await.contains("c0"), "not yet committed");
    ok(&c.rpc("2", "<commit/>").await);
    assert!(get_config(&mut c, "running", "").await.contains("c0"));
    ok(&c.rpc("3", &edit("candidate", &ifs(&iface("c1", "")))).await);
    ok(&c.rpc("4", "<discard-changes/>").await);
    assert!(!get_config(&mut c, "candidate", "").await.contains("c1"));
    // A candidate without uncommitted changes follows edits made directly to running.
    ok(&c.rpc("4b", &edit("running", &ifs(&iface("r9", "")))).await);
    assert!(get_config(&mut c, "candidate", "").await.contains("r9"));

    // copy-config: running -> startup, inline -> candidate, same source and target refused.
    ok(&c
        .rpc(
            "5",
            "<copy-config><target><startup/></target><source><running/></source></copy-config>",
        )
        .await);
    assert!(get_config(&mut c, "startup", "").await.contains("c0"));
    let inline = format!("<copy-config><target><candidate/></target><source><config>{}</config></source></copy-config>", ifs(&iface("i0", "")));
    ok(&c.rpc("6", &inline).await);
    let cand = get_config(&mut c, "candidate", "").await;
    assert!(cand.contains("i0") && !cand.contains("c0"), "{cand}");
    expect_err(
        &c.rpc(
            "7",
            "<copy-config><target><running/></target><source><running/></source></copy-config>",
        )
        .await,
        "invalid-value",
        "protocol",
    );
    let bad_inline = "<copy-config><target><candidate/></target><source><config><x xmlns=\"urn:nowhere\"/></config></source></copy-config>";
    expect_err(&c.rpc("8", bad_inline).await, "unknown-namespace", "application");
    // Copying the candidate over running replaces all of running (NACM included): give the
    // candidate running's content plus a change first.
    ok(&c
        .rpc(
            "9a",
            "<copy-config><target><candidate/></target><source><running/></source></copy-config>",
        )
        .await);
    ok(&c.rpc("9b", &edit("candidate", &ifs(&iface("i0", "")))).await);
    ok(&c
        .rpc(
            "9",
            "<copy-config><target><running/></target><source><candidate/></source></copy-config>",
        )
        .await);
    assert!(get_config(&mut c, "running", "").await.contains("i0"));

    // validate: datastores and inline config.
    ok(&c.rpc("10", "<validate><source><running/></source></validate>").await);
    let invalid = format!(
        "<validate><source><config>{}</config></source></validate>",
        ifs("<interface><name>q</name></interface>")
    );
    expect_err(&c.rpc("11", &invalid).await, "missing-element", "application");

    // delete-config: startup yes, running never.
    ok(&c.rpc("12", "<delete-config><target><startup/></target></delete-config>").await);
    assert_eq!(get_config(&mut c, "startup", "").await, "");
    // Copying a startup that does not exist would wipe running: refused.
    expect_err(
        &c.rpc(
            "12b",
            "<copy-config><target><running/></target><source><startup/></source></copy-config>",
        )
        .await,
        "data-missing",
        "application",
    );
    assert!(get_config(&mut c, "running", "").await.contains("i0"));
    expect_err(
        &c.rpc("13", "<delete-config><target><running/></target></delete-config>").await,
        "operation-failed",
        "protocol",
    );
}

#[tokio::test]
async fn locks_follow_rfc_6241_section_7_5() {
    let fx = Fx::new();
    let mut a = fx.open("admin").await;
    let mut b = fx.open("admin").await;
    let a_id = a.server_hello.session_id.expect("id");
    ok(&a.rpc("1", "<lock><target><running/></target></lock>").await);
    // Held by another session: lock-denied with the holder's session-id.
    let e = expect_err(
        &b.rpc("2", "<lock><target><running/></target></lock>").await,
        "lock-denied",
        "protocol",
    );
    assert_eq!(
        e.info.child(NETCONF_BASE_NS, "session-id").map(Element::text),
        Some(a_id.to_string())
    );
    // Held by itself: also lock-denied.
    expect_err(
        &a.rpc("3", "<lock><target><running/></target></lock>").await,
        "lock-denied",
        "protocol",
    );
    // Others cannot write it, the holder can.
    let e = expect_err(
        &b.rpc("4", &edit("running", &ifs(&iface("x", "")))).await,
        "in-use",
        "protocol",
    );
    assert_eq!(
        e.info.child(NETCONF_BASE_NS, "session-id").map(Element::text),
        Some(a_id.to_string())
    );
    ok(&a.rpc("5", &edit("running", &ifs(&iface("x", "")))).await);
    // Only the holder unlocks.
    expect_err(
        &b.rpc("6", "<unlock><target><running/></target></unlock>").await,
        "operation-failed",
        "protocol",
    );
    ok(&a.rpc("7", "<unlock><target><running/></target></unlock>").await);
    expect_err(
        &a.rpc("8", "<unlock><target><running/></target></unlock>").await,
        "operation-failed",
        "protocol",
    );

    // The candidate cannot be locked while another session's changes are in it.
    ok(&b.rpc("9", &edit("candidate", &ifs(&iface("y", "")))).await);
    let b_id = b.server_hello.session_id.expect("id");
    let e = expect_err(
        &a.rpc("10", "<lock><target><candidate/></target></lock>").await,
        "lock-denied",
        "protocol",
    );
    assert_eq!(
        e.info.child(NETCONF_BASE_NS, "session-id").map(Element::text),
        Some(b_id.to_string())
    );
    ok(&b.rpc("11", "<lock><target><candidate/></target></lock>").await);
    // Commit and discard need the candidate unlocked or held.
    expect_err(&a.rpc("12", "<commit/>").await, "in-use", "protocol");
    expect_err(&a.rpc("13", "<discard-changes/>").await, "in-use", "protocol");
    // Unlocking discards the holder's uncommitted changes.
    ok(&b.rpc("14", "<unlock><target><candidate/></target></unlock>").await);
    assert!(!get_config(&mut a, "candidate", "").await.contains("<name>y</name>"));
    ok(&a.rpc("15", "<lock><target><candidate/></target></lock>").await);

    // A session's locks go with it.
    ok(&b.rpc("16", "<lock><target><startup/></target></lock>").await);
    ok(&b.rpc("17", "<close-session/>").await);
    tokio::time::timeout(WAIT, async {
        loop {
            let r = a.rpc("18", "<lock><target><startup/></target></lock>").await;
            if r.child(NETCONF_BASE_NS, "ok").is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the closed session's lock is released");
    // Monitoring shows the locks.
    let t = data(&a.rpc("19", "<get><filter><netconf-state xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring\"><datastores/></netconf-state></filter></get>").await);
    assert_eq!(t.matches("<locked-by-session>").count(), 2, "{t}");
}

#[tokio::test]
async fn kill_session_releases_locks_and_ends_the_session() {
    let fx = Fx::new();
    let mut a = fx.open("admin").await;
    let (mut b, b_task) = fx.open_with("admin", &both_bases()).await;
    let b_id = b.server_hello.session_id.expect("id");
    let a_id = a.server_hello.session_id.expect("id");
    ok(&b.rpc("1", "<lock><target><running/></target></lock>").await);
    expect_err(
        &a.rpc("2", &format!("<kill-session><session-id>{a_id}</session-id></kill-session>")).await,
        "invalid-value",
        "protocol",
    );
    expect_err(
        &a.rpc("3", "<kill-session><session-id>999</session-id></kill-session>").await,
        "invalid-value",
        "protocol",
    );
    expect_err(&a.rpc("3b", "<kill-session/>").await, "missing-element", "protocol");
    ok(&a.rpc("4", &format!("<kill-session><session-id>{b_id}</session-id></kill-session>")).await);
    // The lock was released before the reply.
    ok(&a.rpc("5", "<lock><target><running/></target></lock>").await);
    let end = tokio::time::timeout(WAIT, b_task).await.expect("ends").expect("no panic");
    assert!(matches!(end, SessionEnd::Killed), "{end:?}");
    b.expect_closed().await;
}

#[tokio::test]
async fn get_schema_and_monitoring_and_yang_library() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let m = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";
    let r = c.rpc("1", &format!("<get-schema xmlns=\"{m}\"><identifier>mgmt-test</identifier><format>yang</format></get-schema>")).await;
    let d = r.child(m, "data").unwrap_or_else(|| panic!("{}", r.to_xml()));
    assert!(d.text().starts_with("module mgmt-test {"), "{}", d.text());
    let r = c.rpc("2", &format!("<get-schema xmlns=\"{m}\"><identifier>ietf-interfaces</identifier><version>2018-02-20</version></get-schema>")).await;
    assert!(r.child(m, "data").is_some_and(|d| d.text().contains("module ietf-interfaces")));
    expect_err(
        &c.rpc(
            "3",
            &format!("<get-schema xmlns=\"{m}\"><identifier>nope</identifier></get-schema>"),
        )
        .await,
        "invalid-value",
        "protocol",
    );
    expect_err(&c.rpc("4", &format!("<get-schema xmlns=\"{m}\"><identifier>mgmt-test</identifier><format>yin</format></get-schema>")).await, "invalid-value", "protocol");

    let t = data(&c.rpc("5", "<get/>").await);
    for want in [
        "<capability>urn:ietf:params:netconf:capability:candidate:1.0</capability>",
        "<name>running</name>",
        "<identifier>mgmt-test</identifier>",
        "<transport>netconf-ssh</transport>",
        "<username>admin</username>",
        "<source-host>192.0.2.1</source-host>",
        "<in-rpcs>",
        "<netconf-start-time>",
        "<content-id>",
        "<module-set-id>",
        "<name>NETCONF</name>",
        "<replaySupport>true</replaySupport>",
        "<denied-operations>0</denied-operations>",
    ] {
        assert!(t.contains(want), "missing {want}");
    }
    // yang-library: the datastores and the implemented test module with its feature.
    let r = c.rpc("6", "<get><filter><yang-library xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-library\"/></filter></get>").await;
    let d = r.child(NETCONF_BASE_NS, "data").expect("data");
    let lib = d
        .child("urn:ietf:params:xml:ns:yang:ietf-yang-library", "yang-library")
        .expect("yang-library");
    let yl = "urn:ietf:params:xml:ns:yang:ietf-yang-library";
    let set = lib.child(yl, "module-set").expect("module-set");
    let mt = set
        .elements()
        .find(|m| {
            m.name == "module"
                && m.child(yl, "name").map(Element::text).as_deref() == Some("mgmt-test")
        })
        .expect("mgmt-test listed");
    assert_eq!(mt.child(yl, "feature").map(Element::text).as_deref(), Some("extras"));
    assert_eq!(lib.elements().filter(|e| e.name == "datastore").count(), 4);
    let content_id = lib.child(yl, "content-id").map(Element::text).expect("content-id");
    assert!(c
        .server_hello
        .capabilities
        .iter()
        .any(|cap| cap.ends_with(&format!("content-id={content_id}"))));
    // Each with-defaults mode works on the whole <get> (state included).
    for mode in ["report-all", "report-all-tagged", "trim"] {
        let r = c.rpc("7", &format!("<get><with-defaults xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults\">{mode}</with-defaults></get>")).await;
        assert!(data(&r).contains("<netconf-state"), "{mode}: {}", r.to_xml());
    }
}

#[tokio::test]
async fn unknown_operations_and_namespaces() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    expect_err(&c.rpc("1", "<frob/>").await, "operation-not-supported", "protocol");
    let r = c.rpc("2", "<frob xmlns=\"urn:nowhere\"/>").await;
    let e = expect_err(&r, "unknown-namespace", "protocol");
    assert!(e.info.child(NETCONF_BASE_NS, "bad-namespace").is_some());
    // A YANG rpc with no backend to run it.
    expect_err(
        &c.rpc("3", &format!("<reset-counters xmlns=\"{MT}\"><port>p</port></reset-counters>"))
            .await,
        "operation-not-supported",
        "protocol",
    );
    expect_err(&c.rpc("4", "<get><bogus/></get>").await, "unknown-element", "protocol");
    expect_err(&c.rpc("5", "<get-config/>").await, "missing-element", "protocol");
    expect_err(
        &c.rpc("6", "<get-config><source><nowhere/></source></get-config>").await,
        "unknown-element",
        "protocol",
    );
    expect_err(
        &c.rpc("7", "<close-session><x/></close-session>").await,
        "unknown-element",
        "protocol",
    );
}

async fn running_has(c: &mut Client, name: &str) -> bool {
    get_config(c, "running", &format!("<filter><interfaces xmlns='{IF}'/></filter>"))
        .await
        .contains(&format!("<name>{name}</name>"))
}

/// Polls until running holds (or lacks) interface `name`.
async fn wait_running(c: &mut Client, name: &str, present: bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while running_has(c, name).await != present {
        assert!(
            tokio::time::Instant::now() < deadline,
            "running never {} {name}",
            if present { "got" } else { "lost" }
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn confirmed_commit_rolls_back_on_time_out_and_is_confirmed_otherwise() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let mut watcher = fx.open("admin").await;
    ok(&c.rpc("1", &edit("candidate", &ifs(&iface("t1", "")))).await);
    ok(&c.rpc("2", "<commit><confirmed/><confirm-timeout>1</confirm-timeout></commit>").await);
    assert!(running_has(&mut watcher, "t1").await, "applied at once");
    wait_running(&mut watcher, "t1", false).await;
    assert!(!get_config(&mut c, "candidate", "").await.contains("t1"), "candidate follows running");
    expect_err(&c.rpc("3", "<cancel-commit/>").await, "operation-failed", "protocol");

    // Confirmed, then extended (follow-up), then confirmed by a plain commit.
    ok(&c.rpc("4", &edit("candidate", &ifs(&iface("t2", "")))).await);
    ok(&c.rpc("5", "<commit><confirmed/><confirm-timeout>1</confirm-timeout></commit>").await);
    ok(&c.rpc("6", "<commit><confirmed/><confirm-timeout>60</confirm-timeout></commit>").await);
    // Another session may not confirm a non-persistent confirmed commit.
    expect_err(&watcher.rpc("7", "<commit/>").await, "in-use", "protocol");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(running_has(&mut watcher, "t2").await, "the follow-up moved the time-out");
    ok(&c.rpc("8", "<commit/>").await);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(running_has(&mut watcher, "t2").await);

    // cancel-commit restores at once.
    ok(&c.rpc("9", &edit("candidate", &ifs(&iface("t3", "")))).await);
    ok(&c.rpc("10", "<commit><confirmed/></commit>").await);
    assert!(running_has(&mut watcher, "t3").await);
    expect_err(&watcher.rpc("11", "<cancel-commit/>").await, "in-use", "protocol");
    ok(&c.rpc("12", "<cancel-commit/>").await);
    assert!(!running_has(&mut watcher, "t3").await);
    assert!(running_has(&mut watcher, "t2").await);
    // Parameters.
    expect_err(
        &c.rpc("13", "<commit><confirmed/><confirm-timeout>0</confirm-timeout></commit>").await,
        "invalid-value",
        "protocol",
    );
    expect_err(
        &c.rpc("14", "<commit><persist-id>x</persist-id></commit>").await,
        "invalid-value",
        "protocol",
    );
    expect_err(
        &c.rpc("15", "<commit><persist>x</persist></commit>").await,
        "bad-element",
        "protocol",
    );
}

#[tokio::test]
async fn confirmed_commit_rolls_back_on_session_loss_unless_persisted() {
    let fx = Fx::new();
    let mut watcher = fx.open("admin").await;
    // Not persisted: the issuing session's end undoes it.
    let (mut c, task) = fx.open_with("admin", &both_bases()).await;
    ok(&c.rpc("1", &edit("candidate", &ifs(&iface("s1", "")))).await);
    ok(&c.rpc("2", "<commit><confirmed/><confirm-timeout>600</confirm-timeout></commit>").await);
    assert!(running_has(&mut watcher, "s1").await);
    drop(c); // the transport goes away
    let _ = tokio::time::timeout(WAIT, task).await;
    wait_running(&mut watcher, "s1", false).await;

    // Persisted: it survives the session, and only the token confirms or cancels it.
    let (mut c, task) = fx.open_with("admin", &both_bases()).await;
    ok(&c.rpc("3", &edit("candidate", &ifs(&iface("s2", "")))).await);
    ok(&c.rpc("4", "<commit><confirmed/><persist>tok-1</persist></commit>").await);
    ok(&c.rpc("5", "<close-session/>").await);
    let _ = tokio::time::timeout(WAIT, task).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        running_has(&mut watcher, "s2").await,
        "a persistent confirmed commit outlives its session"
    );
    expect_err(&watcher.rpc("6", "<commit/>").await, "missing-element", "protocol");
    expect_err(
        &watcher.rpc("7", "<commit><persist-id>wrong</persist-id></commit>").await,
        "invalid-value",
        "protocol",
    );
    expect_err(&watcher.rpc("8", "<cancel-commit/>").await, "invalid-value", "protocol");
    ok(&watcher.rpc("9", "<commit><persist-id>tok-1</persist-id></commit>").await);
    assert!(running_has(&mut watcher, "s2").await);
    // A persistent one cancelled by token from another session.
    ok(&watcher.rpc("10", &edit("candidate", &ifs(&iface("s3", "")))).await);
    ok(&watcher.rpc("11", "<commit><confirmed/><persist>tok-2</persist></commit>").await);
    let mut other = fx.open("admin").await;
    ok(&other.rpc("12", "<cancel-commit><persist-id>tok-2</persist-id></cancel-commit>").await);
    assert!(!running_has(&mut watcher, "s3").await);
}

#[tokio::test]
async fn unconfirmed_commit_is_undone_by_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = || {
        mgmt::engine::Engine::open(
            dir.path(),
            common::test_schema(),
            Registry::new(4),
            mgmt::engine::EngineConfig {
                admin_user: Some("admin".into()),
                replay_log: 8,
                initial_config: None,
                ..Default::default()
            },
            Vec::new(),
        )
        .expect("engine")
    };
    let ctx = mgmt::engine::SessionCtx { id: 1, user: "admin".into(), source: None };
    {
        let engine = open();
        engine.session_started(&ctx);
        let xml = format!(
            "{}{}",
            engine.datastores().get(mgmt::datastore::DatastoreName::Running).expect("get"),
            ifs(&iface("r1", ""))
        );
        engine
            .datastores()
            .replace(mgmt::datastore::DatastoreName::Candidate, &xml)
            .expect("candidate");
        engine
            .commit(&ctx, Mode::Blocking, true, Duration::from_secs(600), None, None)
            .expect("confirmed commit");
        assert!(engine
            .datastores()
            .get(mgmt::datastore::DatastoreName::Running)
            .expect("get")
            .contains("r1"));
    }
    let engine = open();
    let running = engine.datastores().get(mgmt::datastore::DatastoreName::Running).expect("get");
    assert!(!running.contains("r1") && running.contains("nacm"), "{running}");
}

#[tokio::test]
async fn nmda_get_data_and_edit_data() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let nmda = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";
    let ds = "urn:ietf:params:xml:ns:yang:ietf-datastores";
    let edit_data = |store: &str, body: &str| {
        format!(
            "<edit-data xmlns=\"{nmda}\" xmlns:ds=\"{ds}\"><datastore>ds:{store}</datastore><config>{body}</config></edit-data>"
        )
    };
    ok(&c
        .rpc("1", &edit_data("running", &ifs(&iface("m0", "<description>d</description>"))))
        .await);
    ok(&c.rpc("2", &edit_data("candidate", &ifs(&iface("m1", "")))).await);
    let get_data = |store: &str, extra: &str| {
        format!("<get-data xmlns=\"{nmda}\" xmlns:ds=\"{ds}\"><datastore>ds:{store}</datastore>{extra}</get-data>")
    };
    let out = |r: &Element| {
        let d = r.child(nmda, "data").unwrap_or_else(|| panic!("{}", r.to_xml()));
        let mut s = String::new();
        netconf_proto::xml::write_children(d, &mut s, Some(nmda));
        s
    };
    let t = out(&c.rpc("3", &get_data("running", "")).await);
    assert!(t.contains("m0") && !t.contains("m1") && !t.contains("netconf-state"), "{t}");
    let t = out(&c.rpc("4", &get_data("candidate", "")).await);
    assert!(t.contains("m1"), "{t}");
    // Operational: configuration and state; config-filter false keeps only state.
    let t = out(&c.rpc("5", &get_data("operational", "")).await);
    assert!(t.contains("m0") && t.contains("<netconf-state"), "{t}");
    let t =
        out(&c.rpc("6", &get_data("operational", "<config-filter>false</config-filter>")).await);
    assert!(!t.contains("m0") && t.contains("<netconf-state") && !t.contains("<groups>"), "{t}");
    let t = out(&c.rpc("7", &get_data("operational", "<config-filter>true</config-filter>")).await);
    assert!(t.contains("m0") && !t.contains("<netconf-state"), "{t}");
    // Filters, depth, defaults.
    let t = out(&c.rpc("8", &get_data("running", &format!("<subtree-filter><interfaces xmlns=\"{IF}\"><interface><name>m0</name><description/></interface></interfaces></subtree-filter>"))).await);
    assert!(t.contains("<description>d</description>") && !t.contains("<type"), "{t}");
    let t = out(&c.rpc("9", &get_data("running", &format!("<xpath-filter xmlns:i=\"{IF}\">/i:interfaces/i:interface/i:description</xpath-filter>"))).await);
    assert!(t.contains("<description>d</description>") && !t.contains("<type"), "{t}");
    let t = out(&c.rpc("10", &get_data("running", "<max-depth>1</max-depth>")).await);
    assert!(t.contains("<interfaces") && !t.contains("<interface>"), "{t}");
    let t =
        out(&c.rpc("11", &get_data("running", "<with-defaults>report-all</with-defaults>")).await);
    assert!(t.contains("<enabled>true</enabled>"), "{t}");
    // Errors.
    expect_err(&c.rpc("12", &get_data("nowhere", "")).await, "invalid-value", "protocol");
    expect_err(&c.rpc("13", &edit_data("operational", "")).await, "invalid-value", "protocol");
    expect_err(
        &c.rpc("14", &get_data("running", "<with-origin/>")).await,
        "operation-not-supported",
        "protocol",
    );
}

#[tokio::test]
async fn requests_of_a_killed_session_change_nothing() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    let ctx = mgmt::engine::SessionCtx { id: 999, user: "admin".into(), source: None };
    fx.engine.session_started(&ctx);
    fx.engine.session_ended(999, mgmt::engine::EndReason::Killed, Some(1));
    let message = format!(
        "<rpc message-id=\"1\" xmlns=\"{NETCONF_BASE_NS}\">{}</rpc>",
        edit("running", &ifs(&iface("late", "")))
    );
    let op = mgmt::protocol::rpc::parse_request(message.as_bytes()).expect("rpc").operation;
    let outcome = mgmt::dispatch::dispatch(&fx.engine, &ctx, Mode::Blocking, false, &op);
    let mgmt::dispatch::Outcome::Reply(mgmt::protocol::rpc::ReplyBody::Errors(errors)) = outcome
    else {
        panic!("expected an error: {outcome:?}");
    };
    assert_eq!(errors[0].tag, mgmt::protocol::error::ErrorTag::OperationFailed);
    assert!(!get_config(&mut c, "running", "").await.contains("late"));
}

/// A large edit runs off the session's async task: other sessions are served while it
/// runs (the test's runtime has one thread, so an edit run on it would hold them all up,
/// and this test would never see the edit in progress).
#[tokio::test]
async fn a_large_edit_does_not_stall_other_sessions() {
    let fx = Fx::new();
    let mut big = fx.open("admin").await;
    let mut reader = fx.open("admin").await;
    let entries: String =
        (0..4096).map(|i| iface(&format!("e{i}"), "<description>x</description>")).collect();
    big.send(&format!(
        "<rpc message-id=\"big\" xmlns=\"{NETCONF_BASE_NS}\">{}</rpc>",
        edit("candidate", &ifs(&entries))
    ))
    .await;
    let t = tokio::time::Instant::now();
    while !fx.engine.writer_busy() {
        assert!(t.elapsed() < WAIT, "the large edit was never seen in progress");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let running = get_config(&mut reader, "running", "").await;
    assert!(!running.contains("e0"), "{running}");
    assert!(fx.engine.writer_busy(), "the read was answered while the large edit ran");
    ok(&netconf_proto::xml::parse(&big.recv().await.expect("reply")).expect("xml"));
}

/// Which requests are light enough to run on the session's task (`mgmt::session::inline`).
#[test]
fn which_requests_run_inline() {
    use mgmt::session::inline::light;
    let (_dir, engine) = common::test_engine(Some("admin"), Registry::new(4));
    let ctx = mgmt::engine::SessionCtx { id: 1, user: "admin".into(), source: None };
    engine.session_started(&ctx);
    let request =
        |op: &str| format!("<rpc message-id=\"1\" xmlns=\"{NETCONF_BASE_NS}\">{op}</rpc>");
    let judge = |op: &str| {
        let msg = request(op);
        let req = mgmt::protocol::rpc::parse_request(msg.as_bytes()).expect("request");
        light(&engine, &req.operation, msg.len())
    };
    let small_edit = edit("candidate", &ifs(&iface("a", "")));
    assert!(judge(&small_edit));
    assert!(judge("<get-config><source><running/></source></get-config>"));
    assert!(judge("<lock><target><candidate/></target></lock>"));
    for heavy in [
        "<get/>",
        "<copy-config><target><startup/></target><source><running/></source></copy-config>",
        "<delete-config><target><startup/></target></delete-config>",
        "<kill-session><session-id>9</session-id></kill-session>",
        "<cancel-commit/>",
    ] {
        assert!(!judge(heavy), "{heavy}");
    }
    // A large message, whatever it holds.
    let many: String = (0..200).map(|i| iface(&format!("m{i}"), "")).collect();
    let large_edit = edit("candidate", &ifs(&many));
    assert!(request(&large_edit).len() > mgmt::session::inline::MAX_MESSAGE);
    assert!(!judge(&large_edit));
    // Once the candidate is large, nothing that reads or changes it is light; reading the
    // small running still is.
    let op = mgmt::protocol::rpc::parse_request(request(&large_edit).as_bytes())
        .expect("request")
        .operation;
    let outcome = mgmt::dispatch::dispatch(&engine, &ctx, Mode::Blocking, false, &op);
    assert!(matches!(outcome, mgmt::dispatch::Outcome::Reply(mgmt::protocol::rpc::ReplyBody::Ok)));
    let candidate = engine.datastores().size(mgmt::datastore::DatastoreName::Candidate);
    assert!(candidate > mgmt::engine::MAX_DATASTORE, "{candidate}");
    assert!(!judge(&small_edit));
    assert!(!judge("<get-config><source><candidate/></source></get-config>"));
    assert!(!judge("<discard-changes/>"));
    assert!(!judge("<commit/>"));
    assert!(judge("<get-config><source><running/></source></get-config>"));
}

/// Sessions changing the configuration at once, each waiting for the writer mutex in turn
/// (on its own task when its change is light): every change is made, none is lost or
/// stuck.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_small_changes_all_complete() {
    let fx = std::sync::Arc::new(Fx::new());
    let mut tasks = Vec::new();
    for s in 0..8 {
        let fx = fx.clone();
        tasks.push(tokio::spawn(async move {
            let mut c = fx.open("admin").await;
            for i in 0..15 {
                let entry = iface(&format!("s{s}"), &format!("<description>{i}</description>"));
                ok(&c.rpc(&format!("e{i}"), &edit("candidate", &ifs(&entry))).await);
                let reply = c.rpc(&format!("c{i}"), "<commit/>").await;
                // Another session's uncommitted edit may be committed with ours, or ours
                // with theirs: either way the commit succeeds.
                ok(&reply);
            }
        }));
    }
    for t in tasks {
        tokio::time::timeout(WAIT, t).await.expect("in time").expect("session task");
    }
    let running = get_config(&mut fx.open("admin").await, "running", "").await;
    for s in 0..8 {
        assert!(
            running.contains(&format!("<name>s{s}</name><description>14</description>")),
            "{running}"
        );
    }
}
