//! Where RFC 7950, RFC 8526 and RFC 8341 say exactly what a server answers, over SSH with
//! the Rust client: `when`, the error-tags, error-paths and error-info of constraint
//! violations, `<get-data>`'s max-depth, and which nodes NACM checks. Each test names the
//! clause it proves. The strict module (`tests/yang-strict`) is loaded only here.

mod common;

use common::fixture::{edit, expect_err, iface, ifs, ok, Err, IF};
use common::{both_bases, live_config, open_subsystem, ssh_login, Login, NcClient};
use mgmt::protocol::error::YANG_ERROR_INFO_NS;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

/// The strict test module's namespace.
const MS: &str = "urn:example:mgmt-strict";
const NMDA: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";
const DS: &str = "urn:ietf:params:xml:ns:yang:ietf-datastores";
const NACM: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";

type Client = NcClient<russh::ChannelStream<russh::client::Msg>>;
type Ssh = russh::client::Handle<common::AcceptAnyHostKey>;

struct Live {
    server: mgmt::ssh::Server,
    _dir: tempfile::TempDir,
}

/// A server with the test modules and mgmt-strict; alice is the administrator, bob logs in
/// with the same password.
async fn live() -> Live {
    let dir = common::alice_and_bob();
    let mut config = live_config(dir.path());
    let strict = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/yang-strict");
    config.yang_dirs.push(strict);
    let server = mgmt::ssh::Server::start(config).await.expect("server starts");
    Live { server, _dir: dir }
}

impl Live {
    /// A NETCONF session over SSH as `user` (keep the handle as long as the session).
    async fn session(&self, user: &str) -> (Client, Ssh) {
        let ssh = ssh_login(self.server.local_addr(), Login::Password(user, "pw"))
            .await
            .expect("login accepted");
        let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
        (NcClient::connect(channel.into_stream(), &both_bases()).await, ssh)
    }
}

fn system(body: &str) -> String {
    format!("<system xmlns=\"{MS}\">{body}</system>")
}

async fn get_config(c: &mut Client, ds: &str) -> String {
    let r = c.rpc("gc", &format!("<get-config><source><{ds}/></source></get-config>")).await;
    common::fixture::data(&r)
}

/// The error-path must be exactly `want`.
fn path_is(e: &Err, want: &str) {
    assert_eq!(e.path.as_deref(), Some(want), "error-path");
}

/// RFC 7950 §8.3.2: a request that creates or changes a node whose `when` is false is refused
/// with unknown-element, on running and on the candidate alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_created_while_its_when_is_false_is_unknown_element_rfc7950_8_3_2() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    for ds in ["running", "candidate"] {
        let e = expect_err(
            &c.rpc("1", &edit(ds, &system("<gateway>192.0.2.1</gateway>"))).await,
            "unknown-element",
            "application",
        );
        path_is(&e, "/ms:system/ms:gateway");
        assert!(e.message.contains("/ms:system/ms:gateway"), "{}", e.message);
    }
    // Changing the node in the request that turns its `when` false is refused too.
    let on = system("<mode>routed</mode><gateway>192.0.2.1</gateway>");
    ok(&c.rpc("2", &edit("running", &on)).await);
    let e = expect_err(
        &c.rpc("3", &edit("running", &system("<mode>bridged</mode><gateway>g2</gateway>"))).await,
        "unknown-element",
        "application",
    );
    path_is(&e, "/ms:system/ms:gateway");
    assert!(get_config(&mut c, "running").await.contains("<gateway>192.0.2.1</gateway>"));
}

/// RFC 7950 §8.2: when a request changes what a `when` depends on so that it turns false, the
/// server deletes the node; the request succeeds. On running, through the candidate, and when
/// the dependency is deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_deletes_a_node_whose_when_turns_false_rfc7950_8_2() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    let routed = system(
        "<mode>routed</mode><gateway>192.0.2.1</gateway><routing><metric>3</metric></routing>",
    );
    ok(&c.rpc("1", &edit("running", &routed)).await);
    ok(&c.rpc("2", &edit("running", &system("<mode>bridged</mode>"))).await);
    let t = get_config(&mut c, "running").await;
    assert!(t.contains("<mode>bridged</mode>"), "{t}");
    assert!(!t.contains("gateway") && !t.contains("routing"), "{t}");
    // Through the candidate: the candidate edit deletes them, the commit carries it.
    ok(&c.rpc("3", &edit("running", &routed)).await);
    ok(&c.rpc("4", &edit("candidate", &system("<mode>bridged</mode>"))).await);
    let t = get_config(&mut c, "candidate").await;
    assert!(!t.contains("gateway") && !t.contains("routing"), "{t}");
    ok(&c.rpc("5", "<commit/>").await);
    assert!(!get_config(&mut c, "running").await.contains("gateway"));
    // Deleting the leaf the `when` reads.
    ok(&c.rpc("6", &edit("running", &routed)).await);
    let del = system(
        "<mode xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\" nc:operation=\"delete\"/>",
    );
    ok(&c.rpc("7", &edit("running", &del)).await);
    let t = get_config(&mut c, "running").await;
    assert!(!t.contains("gateway") && !t.contains("routing") && !t.contains("<mode>"), "{t}");
}

fn info_items<'a>(e: &'a Err, ns: &'a str, name: &'a str) -> Vec<&'a Element> {
    e.info.elements().filter(|i| i.is(ns, name)).collect()
}

/// RFC 7950 §15.1: a unique violation is operation-failed, data-not-unique, with a
/// `<non-unique>` instance-identifier for each unique leaf of the entries that collide.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_violation_names_the_non_unique_leaves_rfc7950_15_1() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    let server = |n: &str| {
        format!("<server xmlns=\"{MS}\"><name>{n}</name><address>10.0.0.1</address><port>80</port></server>")
    };
    let r = c.rpc("1", &edit("running", &format!("{}{}", server("a"), server("b")))).await;
    let e = expect_err(&r, "operation-failed", "application");
    assert_eq!(e.app_tag.as_deref(), Some("data-not-unique"));
    let items = info_items(&e, YANG_ERROR_INFO_NS, "non-unique");
    let texts: Vec<String> = items.iter().map(|i| i.text().trim().to_string()).collect();
    assert_eq!(
        texts,
        [
            "/ms:server[ms:name='a']/ms:address",
            "/ms:server[ms:name='a']/ms:port",
            "/ms:server[ms:name='b']/ms:address",
            "/ms:server[ms:name='b']/ms:port"
        ],
        "{}",
        r.to_xml()
    );
    // The prefix is declared where the instance-identifier is.
    assert!(r.to_xml().contains(&format!("xmlns:ms=\"{MS}\"")), "{}", r.to_xml());
}

/// RFC 7950 §15.6: a mandatory choice with no case present is data-missing, missing-choice,
/// error-path the node holding the choice, `<missing-choice>` its name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_mandatory_choice_names_the_choice_rfc7950_15_6() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    let r = c.rpc("1", &edit("running", &format!("<transport xmlns=\"{MS}\"/>"))).await;
    let e = expect_err(&r, "data-missing", "application");
    assert_eq!(e.app_tag.as_deref(), Some("missing-choice"));
    path_is(&e, "/ms:transport");
    let items = info_items(&e, YANG_ERROR_INFO_NS, "missing-choice");
    assert_eq!(items.len(), 1, "{}", r.to_xml());
    assert_eq!(items[0].text().trim(), "protocol");
}

/// RFC 7950 §15.2 and §15.3: too many or too few entries are operation-failed with
/// too-many-elements / too-few-elements and an error-path naming the list (under its parent
/// entry), at edit-config on running and at commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_and_max_elements_errors_name_the_list_rfc7950_15_2_and_15_3() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    let pool = |members: &[u8]| {
        let m: String = members.iter().map(|i| format!("<member><id>{i}</id></member>")).collect();
        format!("<pool xmlns=\"{MS}\"><name>p</name>{m}</pool>")
    };
    ok(&c
        .rpc(
            "0",
            &edit(
                "running",
                &format!("<pool xmlns=\"{MS}\"><name>o</name><member><id>1</id></member></pool>"),
            ),
        )
        .await);
    let e = expect_err(
        &c.rpc("1", &edit("running", &pool(&[]))).await,
        "operation-failed",
        "application",
    );
    assert_eq!(e.app_tag.as_deref(), Some("too-few-elements"));
    path_is(&e, "/ms:pool[ms:name='p']/ms:member");
    let e = expect_err(
        &c.rpc("2", &edit("running", &pool(&[1, 2, 3]))).await,
        "operation-failed",
        "application",
    );
    assert_eq!(e.app_tag.as_deref(), Some("too-many-elements"));
    path_is(&e, "/ms:pool[ms:name='p']/ms:member");
    // The candidate takes it in steps; the commit refuses it the same way.
    ok(&c.rpc("3", &edit("candidate", &pool(&[]))).await);
    let e = expect_err(&c.rpc("4", "<commit/>").await, "operation-failed", "application");
    assert_eq!(e.app_tag.as_deref(), Some("too-few-elements"));
    path_is(&e, "/ms:pool[ms:name='p']/ms:member");
}

/// RFC 7950 §8.3.1: data for two cases of one choice in a request is bad-element, naming the
/// node of the later case in error-info and error-path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_for_two_cases_of_one_choice_is_bad_element_rfc7950_8_3_1() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    for ds in ["running", "candidate"] {
        let body = format!("<transport xmlns=\"{MS}\"><tcp/><udp/></transport>");
        let e = expect_err(&c.rpc("1", &edit(ds, &body)).await, "bad-element", "application");
        path_is(&e, "/ms:transport/ms:udp");
        let bad = e.info.child(NETCONF_BASE_NS, "bad-element").map(Element::text);
        assert_eq!(bad.as_deref(), Some("udp"));
    }
    // One case replacing another in one request is fine (RFC 7950 §7.9).
    ok(&c
        .rpc("2", &edit("running", &format!("<transport xmlns=\"{MS}\"><tcp/></transport>")))
        .await);
    ok(&c
        .rpc("3", &edit("running", &format!("<transport xmlns=\"{MS}\"><udp/></transport>")))
        .await);
}

/// RFC 6241 §4.3 with RFC 7950's types: a value of the wrong type, out of its range or length,
/// or not matching its pattern is invalid-value with the error-path of the leaf.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_range_length_and_pattern_errors_carry_the_leafs_path() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    for (i, leaf) in
        ["<port>x</port>", "<port>2000</port>", "<code>ABCDEF</code>", "<code>abc</code>"]
            .iter()
            .enumerate()
    {
        for ds in ["running", "candidate"] {
            let body = format!("<server xmlns=\"{MS}\"><name>a</name>{leaf}</server>");
            let r = c.rpc(&i.to_string(), &edit(ds, &body)).await;
            let e = expect_err(&r, "invalid-value", "application");
            let name = &leaf[1..5];
            path_is(&e, &format!("/ms:server[ms:name='a']/ms:{name}"));
        }
    }
}

fn get_data(extra: &str) -> String {
    format!(
        "<get-data xmlns=\"{NMDA}\" xmlns:ds=\"{DS}\"><datastore>ds:running</datastore>{extra}</get-data>"
    )
}

fn data_of(r: &Element) -> String {
    let d = r.child(NMDA, "data").unwrap_or_else(|| panic!("{}", r.to_xml()));
    let mut s = String::new();
    netconf_proto::xml::write_children(d, &mut s, Some(NMDA));
    s
}

/// RFC 8526 §3.1.1: max-depth counts the levels of each node the filter selects, that node
/// being level 1, for an XPath and a subtree filter alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_data_max_depth_counts_from_the_selected_nodes_rfc8526_3_1_1() {
    let l = live().await;
    let (mut c, _ssh) = l.session("alice").await;
    let entries = format!(
        "{}{}",
        iface("eth0", "<description>up</description>"),
        iface("eth1", "<description>down</description>")
    );
    ok(&c.rpc("1", &edit("running", &ifs(&entries))).await);
    let xpath = format!(
        "<xpath-filter xmlns:if=\"{IF}\">/if:interfaces/if:interface[if:name='eth0']</xpath-filter>"
    );
    let t = data_of(&c.rpc("2", &get_data(&format!("{xpath}<max-depth>2</max-depth>"))).await);
    assert!(t.contains("<description>up</description>") && !t.contains("eth1"), "{t}");
    let t = data_of(&c.rpc("3", &get_data(&format!("{xpath}<max-depth>1</max-depth>"))).await);
    assert!(t.contains("<name>eth0</name>") && !t.contains("description"), "{t}");
    let subtree = format!(
        "<subtree-filter><interfaces xmlns=\"{IF}\"><interface><name>eth1</name></interface></interfaces></subtree-filter>"
    );
    let t = data_of(&c.rpc("4", &get_data(&format!("{subtree}<max-depth>2</max-depth>"))).await);
    assert!(t.contains("<description>down</description>") && !t.contains("eth0"), "{t}");
    // Without a filter the top-level nodes are level 1.
    let t = data_of(&c.rpc("5", &get_data("<max-depth>2</max-depth>")).await);
    assert!(t.contains("<name>eth0</name>") && !t.contains("description"), "{t}");
}

/// Rules for bob: he may create, change and delete /ms:system/ms:hostname and
/// /ms:system/ms:mode, nothing else (write-default deny).
fn bob_rules() -> String {
    let rule = |name: &str, leaf: &str| {
        format!(
            "<rule><name>{name}</name><module-name>mgmt-strict</module-name>\
             <path xmlns:ms=\"{MS}\">/ms:system/ms:{leaf}</path>\
             <access-operations>create update delete</access-operations><action>permit</action></rule>"
        )
    };
    format!(
        "<nacm xmlns=\"{NACM}\"><groups><group><name>ops</name><user-name>bob</user-name></group></groups>\
         <rule-list><name>ops</name><group>ops</group>{}{}</rule-list></nacm>",
        rule("hostname", "hostname"),
        rule("mode", "mode")
    )
}

/// RFC 8341 §3.4.5: only the nodes a request names are checked. bob may write
/// /system/hostname but not /system itself: creating the leaf creates the non-presence
/// container and deleting it removes the container, neither of which is charged to him; nor
/// are the nodes the server deletes because his change turned their `when` false.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nacm_checks_only_the_nodes_a_request_names_rfc8341_3_4_5() {
    let l = live().await;
    let (mut alice, _a) = l.session("alice").await;
    let (mut bob, _b) = l.session("bob").await;
    ok(&alice.rpc("1", &edit("running", &bob_rules())).await);
    ok(&bob.rpc("2", &edit("running", &system("<hostname>h1</hostname>"))).await);
    assert!(get_config(&mut alice, "running").await.contains("<hostname>h1</hostname>"));
    let del = system(
        "<hostname xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\" nc:operation=\"delete\"/>",
    );
    ok(&bob.rpc("3", &edit("running", &del)).await);
    assert!(!get_config(&mut alice, "running").await.contains("<system"));
    // What bob may not write is still refused, with its path.
    ok(&alice
        .rpc("4", &edit("running", &system("<mode>routed</mode><gateway>192.0.2.1</gateway>")))
        .await);
    let e = expect_err(
        &bob.rpc("5", &edit("running", &system("<gateway>g2</gateway>"))).await,
        "access-denied",
        "application",
    );
    path_is(&e, "/ms:system/ms:gateway");
    // bob's change of mode makes the server delete the gateway, which he could not.
    ok(&bob.rpc("6", &edit("running", &system("<mode>bridged</mode>"))).await);
    assert!(!get_config(&mut alice, "running").await.contains("gateway"));
}

/// RFC 8341 §3.2.5 (DECISIONS.md, "Nobody locks the administrator out"): a shared candidate
/// holding another user's change bob could not make is not committed by bob (access-denied,
/// the candidate keeps it); its author commits it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_is_checked_as_the_committing_users_write_rfc8341_3_2_5() {
    let l = live().await;
    let (mut alice, _a) = l.session("alice").await;
    let (mut bob, _b) = l.session("bob").await;
    ok(&alice.rpc("1", &edit("running", &bob_rules())).await);
    ok(&alice
        .rpc("2", &edit("candidate", &system("<mode>routed</mode><gateway>192.0.2.1</gateway>")))
        .await);
    let e = expect_err(&bob.rpc("3", "<commit/>").await, "access-denied", "application");
    path_is(&e, "/ms:system/ms:gateway");
    assert!(!get_config(&mut alice, "running").await.contains("gateway"));
    assert!(get_config(&mut bob, "candidate").await.contains("gateway"));
    ok(&alice.rpc("4", "<commit/>").await);
    assert!(get_config(&mut bob, "running").await.contains("<gateway>192.0.2.1</gateway>"));
}
