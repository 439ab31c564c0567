//! Interoperability with the netconf-rs crate (crates.io `netconf-rs` 0.2.6: an independent
//! base:1.0 client over libssh2 through the `ssh2` crate): hello, get-config and an
//! edit-config against a live server on 127.0.0.1, the edit checked by reading running with
//! our own client.
//!
//! netconf-rs's `Connection` offers only `hello` (in `new`) and `get_config`; its edit-config
//! functions are H3C-specific (`vendor::h3c`, a Comware namespace). The edit-config is
//! therefore sent through the crate's public `Transport` (its SSH session and base:1.0
//! `]]>]]>` framing), on a second session where the test writes the hello and the rpc
//! itself. netconf-rs is blocking and never gives up on a silent peer, so it runs on its own
//! thread under a time-out.

mod common;

use std::time::Duration;

use common::{interface_description, live_password_server, read_running, seed_interface, IF_NS};
use netconf_proto::xml::{self, Element, NETCONF_BASE_NS};
use netconf_rs::transport::ssh::SSHTransport;
use netconf_rs::transport::Transport;
use netconf_rs::Connection;

/// Runs `f` on its own thread; fails the test if it has not finished within 60 s.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    tokio::time::timeout(Duration::from_secs(60), rx)
        .await
        .expect("netconf-rs finished within 60 s")
        .expect("netconf-rs thread did not panic")
}

fn parse(what: &str, text: &str) -> Element {
    xml::parse(text.trim().as_bytes()).unwrap_or_else(|e| panic!("{what} is XML ({e}): {text}"))
}

/// An `<rpc-reply>` without rpc-errors.
fn assert_ok_reply(what: &str, reply: &Element) {
    assert!(reply.is(NETCONF_BASE_NS, "rpc-reply"), "{what}: {}", reply.to_xml());
    assert!(
        !reply.elements().any(|e| e.is(NETCONF_BASE_NS, "rpc-error")),
        "{what}: {}",
        reply.to_xml()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn netconf_rs_hello_get_config_and_edit_config() {
    let (server, _dir) = live_password_server().await;
    let addr = server.local_addr();
    seed_interface(addr, "eth0", "seeded-by-mgmt").await;
    let target = addr.to_string();

    // Session 1: the crate's own Connection: hello, then get-config of running.
    let t = target.clone();
    let config = blocking(move || -> std::io::Result<String> {
        let transport = SSHTransport::connect(&t, "alice", "wonderland")?;
        let mut conn = Connection::new(transport)?;
        conn.get_config()
    })
    .await
    .expect("netconf-rs: hello and get-config");
    let reply = parse("get-config reply", &config);
    assert_ok_reply("get-config", &reply);
    assert_eq!(reply.attribute("message-id"), Some("100"), "message-id echoed");
    let data = reply.child(NETCONF_BASE_NS, "data").expect("<data>");
    assert_eq!(interface_description(data, "eth0").as_deref(), Some("seeded-by-mgmt"));

    // Session 2: the crate's transport, our hello and edit-config (base:1.0 only).
    let t = target.clone();
    let (server_hello, edit, after) =
        blocking(move || -> std::io::Result<(String, String, String)> {
            let mut transport = SSHTransport::connect(&t, "alice", "wonderland")?;
            transport.write_xml(&format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <hello xmlns=\"{NETCONF_BASE_NS}\"><capabilities>\
                 <capability>urn:ietf:params:netconf:base:1.0</capability>\
                 </capabilities></hello>"
            ))?;
            let server_hello = transport.read_xml()?;
            transport.write_xml(&format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <rpc message-id=\"101\" xmlns=\"{NETCONF_BASE_NS}\"><edit-config>\
                 <target><running/></target><config>\
                 <interfaces xmlns=\"{IF_NS}\"><interface><name>eth8</name>\
                 <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
                 <description>set-by-netconf-rs</description></interface></interfaces>\
                 </config></edit-config></rpc>"
            ))?;
            let edit = transport.read_xml()?;
            transport.write_xml(&format!(
                "<rpc message-id=\"102\" xmlns=\"{NETCONF_BASE_NS}\">\
                 <get-config><source><running/></source></get-config></rpc>"
            ))?;
            let after = transport.read_xml()?;
            transport.write_xml(&format!(
                "<rpc message-id=\"103\" xmlns=\"{NETCONF_BASE_NS}\"><close-session/></rpc>"
            ))?;
            let _ = transport.read_xml()?;
            Ok((server_hello, edit, after))
        })
        .await
        .expect("netconf-rs transport: hello, edit-config, get-config");
    let hello = parse("server hello", &server_hello);
    assert!(hello.is(NETCONF_BASE_NS, "hello"), "{server_hello}");
    let edit = parse("edit-config reply", &edit);
    assert_ok_reply("edit-config", &edit);
    assert!(
        edit.child(NETCONF_BASE_NS, "ok").is_some(),
        "edit-config answered ok: {}",
        edit.to_xml()
    );
    let after = parse("get-config reply", &after);
    assert_ok_reply("get-config after the edit", &after);
    let data = after.child(NETCONF_BASE_NS, "data").expect("<data>");
    assert_eq!(interface_description(data, "eth8").as_deref(), Some("set-by-netconf-rs"));

    // Read back with our own client.
    let data = read_running(addr).await;
    assert_eq!(interface_description(&data, "eth8").as_deref(), Some("set-by-netconf-rs"));
    assert_eq!(interface_description(&data, "eth0").as_deref(), Some("seeded-by-mgmt"));
    server.shutdown().await;
}
