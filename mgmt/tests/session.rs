//! A NETCONF session driven over an in-memory pipe: hello and framing negotiation, replies,
//! errors and every way a session ends. The SSH layer is tested in `ssh_server.rs`.

mod common;

use std::time::Duration;

use common::{both_bases, caps, errors, test_engine, NcClient, WAIT};
use mgmt::protocol::sessions::Registry;
use mgmt::session::{self, SessionEnd, SessionSettings};
use netconf_proto::framing::{self, Framing};
use netconf_proto::hello::{BASE_1_0, BASE_1_1};
use netconf_proto::xml::NETCONF_BASE_NS;
use tokio::io::DuplexStream;
use tokio::task::JoinHandle;

fn settings() -> SessionSettings {
    SessionSettings {
        capabilities: both_bases(),
        max_message_size: 4096,
        hello_timeout: Duration::from_secs(10),
        idle_timeout: Some(Duration::from_secs(10)),
        indent_replies: false,
        requests: Default::default(),
    }
}

/// Starts a server-side session on one end of a pipe; returns the other end and the task
/// that yields how the session ended.
fn start(
    settings: SessionSettings,
) -> (DuplexStream, JoinHandle<SessionEnd>, std::sync::Arc<Registry>) {
    let (client, mut server) = tokio::io::duplex(64 * 1024);
    let registry = Registry::new(4);
    let (dir, engine) = test_engine(Some("tester"), registry.clone());
    let handle = registry.open("tester", None).expect("room");
    let task = tokio::spawn(async move {
        let end = session::run(&mut server, &handle, &settings, &engine).await;
        drop(dir);
        end
    });
    (client, task, registry)
}

/// A client that has not exchanged hellos yet and will write in `out` framing: for tests
/// that send the hello themselves.
fn raw_client(pipe: DuplexStream, out: Framing) -> NcClient<DuplexStream> {
    NcClient {
        stream: pipe,
        decoder: framing::Decoder::new(Framing::EndOfMessage, 1 << 20),
        out,
        server_hello: netconf_proto::hello::Hello { capabilities: vec![], session_id: None },
    }
}

async fn ended(task: JoinHandle<SessionEnd>) -> SessionEnd {
    tokio::time::timeout(WAIT, task).await.expect("session ends in time").expect("no panic")
}

#[tokio::test]
async fn base_1_1_negotiated_then_close_session() {
    let (pipe, task, registry) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    assert_eq!(c.out, Framing::Chunked);
    assert_eq!(c.server_hello.session_id, Some(1));
    assert_eq!(c.server_hello.capabilities, both_bases());
    let reply = c.rpc("101", "<close-session/>").await;
    assert!(reply.is(NETCONF_BASE_NS, "rpc-reply"));
    assert_eq!(reply.attribute("message-id"), Some("101"));
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    c.expect_closed().await;
    assert!(matches!(ended(task).await, SessionEnd::Closed));
    assert!(registry.is_empty(), "the session left the table");
}

#[tokio::test]
async fn base_1_0_client_gets_end_of_message_framing() {
    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &caps(&[BASE_1_0])).await;
    assert_eq!(c.out, Framing::EndOfMessage);
    let reply = c.rpc("1", "<frobnicate/>").await;
    assert_eq!(errors(&reply), vec![("operation-not-supported".into(), "protocol".into())]);
    let reply = c.rpc("2", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    assert!(matches!(ended(task).await, SessionEnd::Closed));
}

#[tokio::test]
async fn empty_base_1_0_messages_are_ignored() {
    // netconf-rs 0.2.6 ends its hello with `]]>]]>]]>]]>`: an empty message follows it.
    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &caps(&[BASE_1_0])).await;
    c.send_raw(b"]]>]]>\n  \n]]>]]>").await;
    let reply = c.rpc("1", "<get-config><source><running/></source></get-config>").await;
    assert_eq!(errors(&reply), vec![]);
    assert_eq!(reply.attribute("message-id"), Some("1"));
    let reply = c.rpc("2", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    assert!(matches!(ended(task).await, SessionEnd::Closed));
}

#[tokio::test]
async fn hello_and_first_rpc_in_one_write() {
    let (pipe, task, _r) = start(settings());
    let mut c = raw_client(pipe, Framing::EndOfMessage);
    let mut bytes = framing::encode(
        Framing::EndOfMessage,
        netconf_proto::hello::client_hello(&both_bases()).as_bytes(),
    )
    .expect("eom");
    let rpc = format!("<rpc message-id=\"7\" xmlns=\"{NETCONF_BASE_NS}\"><close-session/></rpc>");
    bytes.extend(framing::encode_chunked(rpc.as_bytes(), 5).expect("chunked"));
    c.send_raw(&bytes).await;
    let _server_hello = c.recv().await.expect("hello");
    c.decoder.set_framing(Framing::Chunked);
    let reply = c.recv().await.expect("reply");
    let reply = netconf_proto::xml::parse(&reply).expect("xml");
    assert_eq!(reply.attribute("message-id"), Some("7"));
    assert!(matches!(ended(task).await, SessionEnd::Closed));
}

#[tokio::test]
async fn chunked_client_hello_is_accepted() {
    // ncclient 0.6 may write its hello in chunked framing when the server's hello arrived
    // before its own was sent; the session must not wait for `]]>]]>` until the time-out.
    let (pipe, task, _r) = start(settings());
    let mut c = raw_client(pipe, Framing::Chunked);
    let _server_hello = c.recv().await.expect("hello");
    let hello = netconf_proto::hello::client_hello(&both_bases());
    c.send_raw(&framing::encode_chunked(hello.as_bytes(), 64).expect("chunked")).await;
    c.decoder.set_framing(Framing::Chunked);
    let reply = c.rpc("3", "<get-config><source><running/></source></get-config>").await;
    assert_eq!(errors(&reply), vec![]);
    assert_eq!(reply.attribute("message-id"), Some("3"));
    let reply = c.rpc("4", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    assert!(matches!(ended(task).await, SessionEnd::Closed));
}

#[tokio::test]
async fn unsupported_operation_keeps_the_session_and_echoes_attributes() {
    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    c.send(&format!(
        "<rpc message-id=\"9\" xmlns=\"{NETCONF_BASE_NS}\" xmlns:ex=\"urn:ex\" ex:user=\"fred\"><frobnicate/></rpc>"
    ))
    .await;
    let reply = netconf_proto::xml::parse(&c.recv().await.expect("reply")).expect("xml");
    assert_eq!(reply.attribute("message-id"), Some("9"));
    assert!(reply
        .attributes()
        .iter()
        .any(|a| a.name == "user" && a.namespace.as_deref() == Some("urn:ex")));
    assert_eq!(errors(&reply), vec![("operation-not-supported".into(), "protocol".into())]);
    let message = reply
        .child(NETCONF_BASE_NS, "rpc-error")
        .and_then(|e| e.child(NETCONF_BASE_NS, "error-message"))
        .map(netconf_proto::xml::Element::text)
        .expect("error-message");
    assert!(message.contains("frobnicate"), "{message}");
    let reply = c.rpc("10", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    assert!(matches!(ended(task).await, SessionEnd::Closed));
}

#[tokio::test]
async fn missing_message_id_is_missing_attribute() {
    let (pipe, _task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    c.send(&format!("<rpc xmlns=\"{NETCONF_BASE_NS}\"><get/></rpc>")).await;
    let reply = netconf_proto::xml::parse(&c.recv().await.expect("reply")).expect("xml");
    assert_eq!(reply.attribute("message-id"), None);
    assert_eq!(errors(&reply), vec![("missing-attribute".into(), "rpc".into())]);
}

#[tokio::test]
async fn malformed_xml_on_1_1_gets_malformed_message_and_session_goes_on() {
    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    c.send("<rpc message-id='1' xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'><get></rpc>").await;
    let reply = netconf_proto::xml::parse(&c.recv().await.expect("reply")).expect("xml");
    assert_eq!(reply.attribute("message-id"), None, "the message-id cannot be known");
    assert_eq!(errors(&reply), vec![("malformed-message".into(), "rpc".into())]);
    let reply = c.rpc("2", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    assert!(matches!(ended(task).await, SessionEnd::Closed));
}

#[tokio::test]
async fn malformed_xml_on_1_0_closes_the_session() {
    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &caps(&[BASE_1_0])).await;
    c.send("<rpc message-id='1'").await;
    c.expect_closed().await;
    assert!(matches!(ended(task).await, SessionEnd::Malformed));
}

#[tokio::test]
async fn bad_chunk_framing_closes_the_session() {
    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    c.send_raw(b"\n#05\nhello\n##\n").await;
    c.expect_closed().await;
    assert!(matches!(ended(task).await, SessionEnd::Framing(framing::FramingError::LeadingZero)));
}

/// RFC 6241 leaves a too-big request's session open, and both framings say where a message
/// ends without its content: the oversize message is skipped, answered too-big with its
/// message-id, and the next one answered as usual.
#[tokio::test]
async fn oversize_message_gets_too_big_and_the_session_goes_on() {
    for bases in [caps(&[BASE_1_0]), caps(&[BASE_1_1])] {
        let (pipe, _task, _r) = start(settings());
        let mut c = NcClient::connect(pipe, &bases).await;
        let big = format!(
            "<rpc message-id=\"big\" xmlns=\"{NETCONF_BASE_NS}\"><get>{}</get></rpc>",
            " ".repeat(5000)
        );
        c.send(&big).await;
        let reply = netconf_proto::xml::parse(&c.recv().await.expect("reply")).expect("xml");
        assert_eq!(errors(&reply), vec![("too-big".into(), "rpc".into())], "{bases:?}");
        assert_eq!(reply.attribute("message-id"), Some("big"), "{bases:?}");
        let reply = c.rpc("next", "<get-config><source><running/></source></get-config>").await;
        assert_eq!(errors(&reply), vec![], "{bases:?}: {}", reply.to_xml());
        assert_eq!(reply.attribute("message-id"), Some("next"));
    }
}

#[tokio::test]
async fn client_hello_with_session_id_is_refused() {
    let (mut pipe, task, _r) = start(settings());
    let hello = format!(
        "<hello xmlns=\"{NETCONF_BASE_NS}\"><capabilities><capability>{BASE_1_1}</capability></capabilities><session-id>5</session-id></hello>"
    );
    use tokio::io::AsyncWriteExt;
    pipe.write_all(&framing::encode(Framing::EndOfMessage, hello.as_bytes()).expect("eom"))
        .await
        .expect("write");
    assert!(matches!(
        ended(task).await,
        SessionEnd::BadHello(netconf_proto::hello::HelloError::UnexpectedSessionId)
    ));
}

#[tokio::test]
async fn no_common_base_is_refused() {
    let (pipe, task, _r) = start(SessionSettings { capabilities: caps(&[BASE_1_1]), ..settings() });
    let mut c = NcClient {
        stream: pipe,
        decoder: framing::Decoder::new(Framing::EndOfMessage, 1 << 20),
        out: Framing::EndOfMessage,
        server_hello: netconf_proto::hello::Hello { capabilities: vec![], session_id: None },
    };
    c.send_raw(
        &framing::encode(
            Framing::EndOfMessage,
            netconf_proto::hello::client_hello(&caps(&[BASE_1_0])).as_bytes(),
        )
        .expect("eom"),
    )
    .await;
    assert!(matches!(
        ended(task).await,
        SessionEnd::BadHello(netconf_proto::hello::HelloError::NoCommonBase)
    ));
}

#[tokio::test(start_paused = true)]
async fn hello_timeout() {
    let (_pipe, task, _r) = start(settings());
    // Paused time advances by itself while every task waits.
    assert!(matches!(task.await.expect("no panic"), SessionEnd::HelloTimeout));
}

#[tokio::test(start_paused = true)]
async fn idle_timeout() {
    let (pipe, task, _r) = start(settings());
    let _c = NcClient::connect(pipe, &both_bases()).await;
    assert!(matches!(task.await.expect("no panic"), SessionEnd::IdleTimeout));
}

#[tokio::test]
async fn kill_ends_the_session() {
    let (pipe, task, registry) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    let id = c.server_hello.session_id.expect("id");
    assert!(registry.kill(id));
    c.expect_closed().await;
    assert!(matches!(ended(task).await, SessionEnd::Killed));
}

#[tokio::test]
async fn peer_hang_up_between_messages_is_clean_and_mid_message_is_truncated() {
    let (pipe, task, _r) = start(settings());
    let c = NcClient::connect(pipe, &both_bases()).await;
    drop(c);
    assert!(matches!(ended(task).await, SessionEnd::PeerClosed));

    let (pipe, task, _r) = start(settings());
    let mut c = NcClient::connect(pipe, &both_bases()).await;
    c.send_raw(b"\n#10\nabc").await;
    drop(c);
    assert!(matches!(ended(task).await, SessionEnd::Framing(framing::FramingError::Truncated)));
}
