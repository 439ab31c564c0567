//! An administrator cannot lock themself out, and `--admin` lets them back in (RFC 8341
//! §3.4.1): over SSH against `mgmt-serve`, as an operator would meet it.

mod common;

use std::process::{Child, Command};

use common::fixture::IF;
use common::{both_bases, errors, open_subsystem, ssh_login, Login, NcClient};
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

const NACM: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";

type Client = NcClient<russh::ChannelStream<russh::client::Msg>>;

fn spawn(state: &std::path::Path) -> (Child, std::net::SocketAddr) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mgmt-serve"));
    command.arg(state).args(common::serve_args("alice"));
    common::spawn_serve(command)
}

async fn connect(
    addr: std::net::SocketAddr,
    user: &str,
) -> (Client, russh::client::Handle<common::AcceptAnyHostKey>) {
    let ssh = ssh_login(addr, Login::Password(user, "pw")).await.expect("login");
    let ch = open_subsystem(&ssh, "netconf").await.expect("subsystem");
    (NcClient::connect(ch.into_stream(), &both_bases()).await, ssh)
}

fn interface(name: &str) -> String {
    format!(
        "<interfaces xmlns=\"{IF}\"><interface><name>{name}</name>\
         <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
         </interface></interfaces>"
    )
}

fn edit_running(options: &str, body: &str) -> String {
    format!(
        "<edit-config><target><running/></target>{options}<config xmlns:nc=\"{NETCONF_BASE_NS}\">{body}</config></edit-config>"
    )
}

fn tag(reply: &Element) -> Option<String> {
    errors(reply).first().map(|(t, _)| t.clone())
}

async fn running(c: &mut Client) -> String {
    let r = c.rpc("g", "<get-config><source><running/></source></get-config>").await;
    r.child(NETCONF_BASE_NS, "data").expect("data").to_xml()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_cannot_lock_themself_out_and_admin_restores_access() {
    let (_dir, state) = common::serve_state(&["alice", "bob"]);
    let (mut server, addr) = spawn(&state);
    let (mut alice, _a) = connect(addr, "alice").await;

    // What Ansible sends with default_operation: replace and only the interfaces: it would
    // delete /nacm and with it every rule. Refused, naming /nacm and what to do.
    let r = alice
        .rpc(
            "1",
            &edit_running("<default-operation>replace</default-operation>", &interface("eth0")),
        )
        .await;
    assert_eq!(tag(&r).as_deref(), Some("operation-failed"), "{}", r.to_xml());
    let text = r.to_xml();
    assert!(text.contains("nacm") && text.contains("alice"), "{text}");
    assert!(running(&mut alice).await.contains(NACM), "running kept /nacm");
    // The same through the candidate: the commit is refused.
    let replace_candidate = format!(
        "<edit-config><target><candidate/></target><default-operation>replace</default-operation><config>{}</config></edit-config>",
        interface("eth0")
    );
    assert_eq!(errors(&alice.rpc("2", &replace_candidate).await), vec![]);
    let r = alice.rpc("3", "<commit/>").await;
    assert_eq!(tag(&r).as_deref(), Some("operation-failed"), "{}", r.to_xml());
    assert!(running(&mut alice).await.contains(NACM), "running kept /nacm");
    assert_eq!(errors(&alice.rpc("4", "<discard-changes/>").await), vec![]);

    // A merge that keeps the rules is fine.
    let r = alice.rpc("5", &edit_running("", &interface("eth0"))).await;
    assert_eq!(errors(&r), vec![], "{}", r.to_xml());

    // A second administrator takes alice out of the admin group: alice can no longer write.
    let add_bob = format!(
        "<nacm xmlns=\"{NACM}\"><groups><group><name>admin</name><user-name>bob</user-name></group></groups></nacm>"
    );
    assert_eq!(errors(&alice.rpc("6", &edit_running("", &add_bob)).await), vec![]);
    let (mut bob, _b) = connect(addr, "bob").await;
    let drop_alice = format!(
        "<nacm xmlns=\"{NACM}\"><groups><group><name>admin</name><user-name nc:operation=\"delete\">alice</user-name></group></groups></nacm>"
    );
    let r = bob.rpc("7", &edit_running("", &drop_alice)).await;
    assert_eq!(errors(&r), vec![], "{}", r.to_xml());
    let r = alice.rpc("8", &edit_running("", &interface("eth1"))).await;
    assert_eq!(tag(&r).as_deref(), Some("access-denied"), "{}", r.to_xml());

    // Restarting with --admin alice gives her full access back, without editing any file.
    server.kill().expect("kill");
    let _ = server.wait();
    let (mut server, addr) = spawn(&state);
    let (mut alice, _a) = connect(addr, "alice").await;
    let r = alice.rpc("9", &edit_running("", &interface("eth1"))).await;
    assert_eq!(errors(&r), vec![], "{}", r.to_xml());
    let config = running(&mut alice).await;
    let first_rule_list = config.find("<rule-list>").map(|i| &config[i..]).unwrap_or_default();
    assert!(
        first_rule_list.starts_with("<rule-list><name>admin-recovery</name>"),
        "the recovery rule-list comes first: {config}"
    );
    // Bob's rules are as he left them.
    assert!(config.contains("<user-name>bob</user-name>"), "{config}");
    // A second restart finds nothing to restore and changes nothing.
    server.kill().expect("kill");
    let _ = server.wait();
    let (mut server, addr) = spawn(&state);
    let (mut alice, _a) = connect(addr, "alice").await;
    assert_eq!(running(&mut alice).await, config);
    server.kill().expect("kill");
    let _ = server.wait();
}
