//! YANG 1.1 actions (RFC 7950 §7.15, `<action>` in the YANG 1.1 namespace) over SSH with the
//! Rust client: an action on a list entry, on a container and on state data, runs in the
//! backend that owns its module with the node's path and its input, and its output comes
//! back; the errors RFC 6241 and RFC 7950 give for a missing node, bad input, a node that is
//! not an action and an unknown namespace; access control's exec right on actions
//! (RFC 8341 §3.4.5); the module in the yang-library.

mod common;

use common::actions::{live, Client, BROKEN_OUTPUT_SAMPLES, MA, YANG_1};
use common::fixture::{data, edit, expect_err, ok};
use netconf_proto::xml::Element;

const NACM: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";
const YANG_LIBRARY: &str = "urn:ietf:params:xml:ns:yang:ietf-yang-library";

/// `<action>` holding `body`.
fn action(body: &str) -> String {
    format!("<action xmlns=\"{YANG_1}\">{body}</action>")
}

/// An action on port `port`: `<ports><port><name>port</name>{act}</port></ports>`.
fn on_port(port: &str, act: &str) -> String {
    action(&format!("<ports xmlns=\"{MA}\"><port><name>{port}</name>{act}</port></ports>"))
}

/// Ports p1 and p2 in running.
async fn two_ports(c: &mut Client) {
    let ports = format!(
        "<ports xmlns=\"{MA}\"><port><name>p1</name></port><port><name>p2</name></port></ports>"
    );
    ok(&c.rpc("seed", &edit("running", &ports)).await);
}

fn output(reply: &Element, name: &str) -> Option<String> {
    reply.child(MA, name).map(Element::text)
}

/// RFC 7950 §7.15.2: the action runs on the node the envelope names, with its input; the
/// reply holds its output, or `<ok/>` when it has none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_runs_on_its_node_with_its_input_and_returns_its_output_rfc7950_7_15_2() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    two_ports(&mut c).await;

    let r = c.rpc("1", &on_port("p2", "<measure><samples>04</samples></measure>")).await;
    assert_eq!(output(&r, "round-trip").as_deref(), Some("400"), "{}", r.to_xml());
    assert_eq!(output(&r, "samples-taken").as_deref(), Some("4"), "{}", r.to_xml());
    assert_eq!(l.backend.take(), ["/mgmt-actions:ports/port[name='p2'] measure samples=4"]);

    // No output: <ok/>.
    ok(&c.rpc("2", &on_port("p1", "<clear/>")).await);
    assert_eq!(l.backend.take(), ["/mgmt-actions:ports/port[name='p1'] clear "]);

    // On a container.
    let r = c.rpc("3", &action(&format!("<ports xmlns=\"{MA}\"><reset-all/></ports>"))).await;
    assert_eq!(output(&r, "cleared").as_deref(), Some("2"), "{}", r.to_xml());
    assert_eq!(l.backend.take(), ["/mgmt-actions:ports reset-all "]);

    // On a state list entry the backend reports.
    let bounce = format!("<links xmlns=\"{MA}\"><link><id>1</id><bounce/></link></links>");
    ok(&c.rpc("4", &action(&bounce)).await);
    assert_eq!(l.backend.take(), ["/mgmt-actions:links/link[id='1'] bounce "]);
    l.server.shutdown().await;
}

/// RFC 6241 Appendix A and RFC 7950 §7.15.2: an action on a node that does not exist is
/// data-missing; input its schema refuses is invalid-value or missing-element with the
/// offending node's path; a node that is not an action is unknown-element; a namespace no
/// module has is unknown-namespace. None of them reaches the backend.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn action_errors_are_the_ones_the_rfcs_give_rfc7950_7_15_2() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    two_ports(&mut c).await;

    let e = expect_err(
        &c.rpc("1", &on_port("p9", "<measure><samples>1</samples></measure>")).await,
        "data-missing",
        "application",
    );
    assert!(e.message.contains("p9"), "{}", e.message);
    let bounce = format!("<links xmlns=\"{MA}\"><link><id>7</id><bounce/></link></links>");
    expect_err(&c.rpc("1b", &action(&bounce)).await, "data-missing", "application");

    let e = expect_err(
        &c.rpc("2", &on_port("p1", "<measure><samples>99</samples></measure>")).await,
        "invalid-value",
        "application",
    );
    assert_eq!(
        e.path.as_deref(),
        Some("/ma:ports/ma:port[ma:name='p1']/ma:measure/ma:samples"),
        "{}",
        e.message
    );

    let e = expect_err(
        &c.rpc("3", &on_port("p1", "<measure><priority>1</priority></measure>")).await,
        "missing-element",
        "application",
    );
    assert!(
        e.info.to_xml().contains("samples"),
        "bad-element names the input: {}",
        e.info.to_xml()
    );

    // A leaf where the action should be, and a name the node does not have.
    let e = expect_err(
        &c.rpc("4", &on_port("p1", "<speed>10</speed>")).await,
        "unknown-element",
        "application",
    );
    assert!(e.message.contains("speed"), "{}", e.message);
    expect_err(&c.rpc("5", &on_port("p1", "<explode/>")).await, "unknown-element", "application");

    // An empty envelope, a list entry without its key, a path that ends before an action.
    expect_err(&c.rpc("5b", &action("")).await, "missing-element", "application");
    let keyless = format!("<ports xmlns=\"{MA}\"><port><clear/></port></ports>");
    let e = expect_err(&c.rpc("5c", &action(&keyless)).await, "missing-element", "application");
    assert!(e.info.to_xml().contains("name"), "bad-element names the key: {}", e.info.to_xml());
    let no_action = format!("<ports xmlns=\"{MA}\"><port><name>p1</name></port></ports>");
    expect_err(&c.rpc("5d", &action(&no_action)).await, "missing-element", "application");

    let e = expect_err(
        &c.rpc("6", &action("<ports xmlns=\"urn:example:nowhere\"><reset-all/></ports>")).await,
        "unknown-namespace",
        "protocol",
    );
    assert!(e.info.to_xml().contains("urn:example:nowhere"), "{}", e.info.to_xml());

    // Output the schema refuses is the server's failure, not the client's.
    let samples = format!("<measure><samples>{BROKEN_OUTPUT_SAMPLES}</samples></measure>");
    let e =
        expect_err(&c.rpc("7", &on_port("p1", &samples)).await, "operation-failed", "application");
    assert!(e.message.contains("output"), "{}", e.message);

    let calls = l.backend.take();
    assert_eq!(calls.len(), 1, "only the valid request reached the backend: {calls:?}");
    l.server.shutdown().await;
}

/// RFC 8341 §3.4.5: an action needs exec on the action node and read on its ancestors; a
/// path rule or a module rule grants or denies it; denied is access-denied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_control_needs_exec_on_the_action_and_read_on_its_ancestors_rfc8341_3_4_5() {
    let l = live().await;
    let (mut alice, _a) = l.session("alice").await;
    two_ports(&mut alice).await;
    let rules = format!(
        "<nacm xmlns=\"{NACM}\"><exec-default>deny</exec-default><groups><group><name>ops</name><user-name>bob</user-name></group></groups>\
         <rule-list><name>ops</name><group>ops</group>\
         <rule><name>no-clear-p2</name><path xmlns:ma=\"{MA}\">/ma:ports/ma:port[ma:name='p2']/ma:clear</path>\
         <access-operations>exec</access-operations><action>deny</action></rule>\
         <rule><name>hide-links</name><path xmlns:ma=\"{MA}\">/ma:links</path>\
         <access-operations>read</access-operations><action>deny</action></rule>\
         <rule><name>clear</name><path xmlns:ma=\"{MA}\">/ma:ports/ma:port/ma:clear</path>\
         <access-operations>exec</access-operations><action>permit</action></rule>\
         <rule><name>bounce</name><module-name>mgmt-actions</module-name><rpc-name>*</rpc-name>\
         <access-operations>exec</access-operations><action>permit</action></rule>\
         </rule-list></nacm>"
    );
    ok(&alice.rpc("nacm", &edit("running", &rules)).await);

    let (mut bob, _b) = l.session("bob").await;
    // Permitted by the path rule.
    ok(&bob.rpc("1", &on_port("p1", "<clear/>")).await);
    assert_eq!(l.backend.take(), ["/mgmt-actions:ports/port[name='p1'] clear "]);
    // Denied for one entry by a path rule with its key.
    let e =
        expect_err(&bob.rpc("2", &on_port("p2", "<clear/>")).await, "access-denied", "application");
    assert!(e.message.contains("clear"), "{}", e.message);
    // No rule for measure; exec-default is deny (an rpc-name rule is for RPCs, not actions).
    expect_err(
        &bob.rpc("3", &on_port("p1", "<measure><samples>1</samples></measure>")).await,
        "access-denied",
        "application",
    );
    // Read denied on an ancestor.
    let bounce = format!("<links xmlns=\"{MA}\"><link><id>1</id><bounce/></link></links>");
    expect_err(&bob.rpc("4", &action(&bounce)).await, "access-denied", "application");
    assert!(l.backend.take().is_empty(), "denied actions never reach the backend");
    // The administrator runs them all.
    ok(&alice.rpc("5", &on_port("p2", "<clear/>")).await);
    ok(&alice.rpc("6", &action(&bounce)).await);
    assert_eq!(l.backend.take().len(), 2);
    l.server.shutdown().await;
}

/// RFC 8525: the yang-library lists the module with the actions; the hello still parses
/// (the client checks it) and advertises the YANG library.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_yang_library_lists_the_action_module() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    assert!(
        c.server_hello
            .capabilities
            .iter()
            .any(|cap| cap.starts_with("urn:ietf:params:netconf:capability:yang-library:1.1")),
        "{:?}",
        c.server_hello.capabilities
    );
    let filter = format!("<get><filter><yang-library xmlns=\"{YANG_LIBRARY}\"/></filter></get>");
    let text = data(&c.rpc("1", &filter).await);
    assert!(text.contains("<name>mgmt-actions</name>"), "{text}");
    assert!(text.contains(MA), "{text}");
    l.server.shutdown().await;
}
