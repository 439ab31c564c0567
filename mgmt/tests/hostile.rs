//! Hostile and malformed input against the real SSH server: each of more than 50 inputs gets
//! the right rpc-error (and the session goes on) or a clean close, while a control session
//! keeps being served and the stored configuration never changes.

mod common;

use std::time::Duration;

use common::fixture::{IANA, IF, MT};
use common::{
    both_bases, caps, live_config, open_subsystem, ssh_login, weak_hash, Login, NcClient, WAIT,
};
use mgmt::config::Config;
use mgmt::ssh::Server;
use netconf_proto::framing::{self, Framing};
use netconf_proto::hello::BASE_1_0;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

const MAX: usize = 64 * 1024;

type Channel = russh::ChannelStream<russh::client::Msg>;

struct Fx {
    server: Server,
    _dir: tempfile::TempDir,
}

async fn start() -> Fx {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("users"), format!("alice password {}\n", weak_hash("pw")))
        .expect("users");
    let server = Server::start(Config {
        max_message_size: MAX,
        hello_timeout: Duration::from_secs(2),
        ..live_config(dir.path())
    })
    .await
    .expect("server starts");
    Fx { server, _dir: dir }
}

impl Fx {
    /// A raw netconf channel (no hello exchanged yet).
    async fn channel(&self) -> (Channel, russh::client::Handle<common::AcceptAnyHostKey>) {
        let ssh = ssh_login(self.server.local_addr(), Login::Password("alice", "pw"))
            .await
            .expect("login");
        let ch = open_subsystem(&ssh, "netconf").await.expect("subsystem");
        (ch.into_stream(), ssh)
    }

    async fn session(
        &self,
        bases: &[String],
    ) -> (NcClient<Channel>, russh::client::Handle<common::AcceptAnyHostKey>) {
        let (ch, ssh) = self.channel().await;
        (NcClient::connect(ch, bases).await, ssh)
    }
}

fn first_error(reply: &Element) -> (String, String) {
    let e = reply
        .child(NETCONF_BASE_NS, "rpc-error")
        .unwrap_or_else(|| panic!("expected an rpc-error, got {}", reply.to_xml()));
    let f = |n: &str| e.child(NETCONF_BASE_NS, n).map(Element::text).unwrap_or_default();
    assert!(!f("error-message").is_empty(), "every error has a message: {}", reply.to_xml());
    (f("error-tag"), f("error-type"))
}

fn rpc(id: &str, op: &str) -> String {
    format!("<rpc message-id=\"{id}\" xmlns=\"{NETCONF_BASE_NS}\">{op}</rpc>")
}

fn edit(body: &str) -> String {
    format!(
        "<edit-config><target><running/></target><config xmlns:nc=\"{NETCONF_BASE_NS}\">{body}</config></edit-config>"
    )
}

fn ifs(body: &str) -> String {
    format!("<interfaces xmlns=\"{IF}\" xmlns:ianaift=\"{IANA}\">{body}</interfaces>")
}

/// Messages that get an rpc-error on a base:1.1 session, which then goes on.
fn error_cases() -> Vec<(&'static str, String, &'static str, &'static str)> {
    let mt = |body: &str| format!("<settings xmlns=\"{MT}\">{body}</settings>");
    let deep_data = format!("{}{}", "<a>".repeat(200), "</a>".repeat(200));
    let laughs = "<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\"><!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]><rpc message-id=\"1\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get-config><source><running/></source><filter>&lol3;</filter></get-config></rpc>";
    let xxe = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><rpc message-id=\"1\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get>&x;</get></rpc>";
    vec![
        ("not XML", "hello, server".into(), "malformed-message", "rpc"),
        ("invalid UTF-8", "<rpc message-id=\"1\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\">\u{fffd}".replace('\u{fffd}', "\u{7f}<get/>\u{1}"), "malformed-message", "rpc"),
        ("unclosed element", rpc("1", "<get>").replace("</rpc>", ""), "malformed-message", "rpc"),
        ("mismatched end tag", rpc("1", "<get></get-config>"), "malformed-message", "rpc"),
        ("two roots", format!("{}{}", rpc("1", "<get/>"), rpc("2", "<get/>")), "malformed-message", "rpc"),
        ("unbound prefix", "<x:rpc message-id=\"1\"><x:get/></x:rpc>".into(), "malformed-message", "rpc"),
        ("entity expansion (billion laughs)", laughs.into(), "malformed-message", "rpc"),
        ("external entity", xxe.into(), "malformed-message", "rpc"),
        ("unknown entity", rpc("1", "<get>&nope;</get>"), "malformed-message", "rpc"),
        ("character reference to NUL", rpc("1", "<get>&#0;</get>"), "malformed-message", "rpc"),
        ("root is not rpc", format!("<hello xmlns=\"{NETCONF_BASE_NS}\"/>"), "malformed-message", "rpc"),
        ("rpc in another namespace", "<rpc message-id=\"1\" xmlns=\"urn:other\"><get/></rpc>".into(), "malformed-message", "rpc"),
        ("rpc without namespace", "<rpc message-id=\"1\"><get/></rpc>".into(), "malformed-message", "rpc"),
        ("nesting deeper than 512", rpc("1", &format!("<get>{}{}</get>", "<a>".repeat(600), "</a>".repeat(600))), "too-big", "rpc"),
        ("oversize message", rpc("1", &format!("<get>{}</get>", " ".repeat(MAX))), "too-big", "rpc"),
        ("duplicate attribute", "<rpc message-id=\"1\" message-id=\"2\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get/></rpc>".into(), "malformed-message", "rpc"),
        ("missing message-id", format!("<rpc xmlns=\"{NETCONF_BASE_NS}\"><get/></rpc>"), "missing-attribute", "rpc"),
        ("no operation", rpc("1", ""), "missing-element", "protocol"),
        ("two operations", rpc("1", "<get/><get/>"), "unknown-element", "rpc"),
        ("unknown operation", rpc("1", "<reboot-everything/>"), "operation-not-supported", "protocol"),
        ("operation in an unknown namespace", rpc("1", "<get xmlns=\"urn:nowhere\"/>"), "unknown-namespace", "protocol"),
        ("unknown parameter", rpc("1", "<get><bogus/></get>"), "unknown-element", "protocol"),
        ("text in an operation", rpc("1", "<get>words</get>"), "bad-element", "protocol"),
        ("unknown data element", rpc("1", &edit(&ifs("<bogus/>"))), "unknown-element", "application"),
        ("unknown data namespace", rpc("1", &edit("<x xmlns=\"urn:nowhere\"/>")), "unknown-namespace", "application"),
        ("element without namespace", rpc("1", &edit("<x xmlns=\"\"/>")), "unknown-element", "application"),
        ("bad value (not a number)", rpc("1", &edit(&mt("<mtu>abc</mtu>"))), "invalid-value", "application"),
        ("bad value (out of range)", rpc("1", &edit(&mt("<mtu>9999999</mtu>"))), "invalid-value", "application"),
        ("bad value (enumeration)", rpc("1", &edit(&mt("<mode>turbo</mode>"))), "invalid-value", "application"),
        ("bad value (string too long)", rpc("1", &edit(&mt(&format!("<label>{}</label>", "x".repeat(40))))), "invalid-value", "application"),
        ("bad identity", rpc("1", &edit(&ifs("<interface><name>e</name><type>ianaift:nope</type></interface>"))), "invalid-value", "application"),
        ("identity with an unbound prefix", rpc("1", &edit(&ifs("<interface><name>e</name><type>zz:eth</type></interface>"))), "invalid-value", "application"),
        ("missing key", rpc("1", &edit(&ifs("<interface><type>ianaift:ethernetCsmacd</type></interface>"))), "missing-element", "application"),
        ("key given twice", rpc("1", &edit(&ifs("<interface><name>a</name><name>b</name><type>ianaift:ethernetCsmacd</type></interface>"))), "bad-element", "application"),
        ("missing mandatory leaf", rpc("1", &edit(&ifs("<interface><name>e</name></interface>"))), "missing-element", "application"),
        ("leaf with children", rpc("1", &edit(&mt("<label><x/></label>"))), "bad-element", "application"),
        ("dangling leafref", rpc("1", &edit(&mt("<uplink>nowhere</uplink>"))), "data-missing", "application"),
        ("must violated", rpc("1", &edit(&format!("<rule xmlns=\"{MT}\"><name>r</name><priority>201</priority><action>deny</action></rule>"))), "operation-failed", "application"),
        ("state data edited", rpc("1", &edit(&format!("<counters xmlns=\"{MT}\"><frames>1</frames></counters>"))), "invalid-value", "application"),
        ("bad operation attribute", rpc("1", &edit(&mt("<label nc:operation=\"explode\">x</label>"))), "bad-attribute", "application"),
        ("delete of a missing node", rpc("1", &edit(&mt("<label nc:operation=\"delete\"/>"))), "data-missing", "application"),
        ("deeply nested unknown data", rpc("1", &edit(&deep_data)), "unknown-element", "application"),
        ("element name of 10000 characters", rpc("1", &edit(&format!("<{0} xmlns=\"{MT}\"/>", "n".repeat(10000)))), "unknown-element", "application"),
        ("bad default-operation", rpc("1", "<edit-config><target><running/></target><default-operation>all</default-operation><config/></edit-config>"), "invalid-value", "protocol"),
        ("bad test-option", rpc("1", "<edit-config><target><running/></target><test-option>maybe</test-option><config/></edit-config>"), "invalid-value", "protocol"),
        ("bad error-option", rpc("1", "<edit-config><target><running/></target><error-option>ignore</error-option><config/></edit-config>"), "invalid-value", "protocol"),
        ("edit-config without config", rpc("1", "<edit-config><target><running/></target></edit-config>"), "missing-element", "protocol"),
        ("edit-config without target", rpc("1", "<edit-config><config/></edit-config>"), "missing-element", "protocol"),
        ("two targets", rpc("1", "<edit-config><target><running/><candidate/></target><config/></edit-config>"), "bad-element", "protocol"),
        ("startup as edit target", rpc("1", "<edit-config><target><startup/></target><config/></edit-config>"), "bad-element", "protocol"),
        ("unknown datastore", rpc("1", "<get-config><source><scratch/></source></get-config>"), "unknown-element", "protocol"),
        ("bad filter type", rpc("1", "<get><filter type=\"sql\"/></get>"), "bad-attribute", "protocol"),
        ("XPath syntax error", rpc("1", "<get><filter type=\"xpath\" select=\"/[[[\"/></get>"), "invalid-value", "protocol"),
        ("XPath without select", rpc("1", "<get><filter type=\"xpath\"/></get>"), "missing-attribute", "rpc"),
        ("bad with-defaults", rpc("1", "<get><with-defaults xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults\">some</with-defaults></get>"), "invalid-value", "protocol"),
        ("lock without target", rpc("1", "<lock/>"), "missing-element", "protocol"),
        ("kill-session of a word", rpc("1", "<kill-session><session-id>abc</session-id></kill-session>"), "invalid-value", "protocol"),
        ("kill-session of session 0", rpc("1", "<kill-session><session-id>0</session-id></kill-session>"), "invalid-value", "protocol"),
        ("negative confirm-timeout", rpc("1", "<commit><confirmed/><confirm-timeout>-5</confirm-timeout></commit>"), "invalid-value", "protocol"),
        ("get-schema without identifier", rpc("1", "<get-schema xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring\"/>"), "missing-element", "protocol"),
        ("subscription with a bad time", rpc("1", "<create-subscription xmlns=\"urn:ietf:params:xml:ns:netconf:notification:1.0\"><startTime>soon</startTime></create-subscription>"), "bad-element", "protocol"),
        ("copy-config from a url", rpc("1", "<copy-config><target><running/></target><source><url>file:///etc/shadow</url></source></copy-config>"), "operation-not-supported", "protocol"),
        ("backend-less RPC", rpc("1", &format!("<reset-counters xmlns=\"{MT}\"><port>p</port></reset-counters>")), "operation-not-supported", "protocol"),
    ]
}

/// Byte sequences after a base:1.1 hello that must end the session cleanly.
fn closing_cases() -> Vec<(&'static str, Vec<u8>)> {
    let body = rpc("1", "<get/>");
    vec![
        ("chunk header claims fewer bytes than sent", format!("\n#5\n{body}\n##\n").into_bytes()),
        (
            "chunk header claims more bytes, then the stream ends",
            format!("\n#9999\n{body}").into_bytes(),
        ),
        ("chunk size zero", b"\n#0\n\n##\n".to_vec()),
        (
            "chunk size with a leading zero",
            format!("\n#0{}\n{body}\n##\n", body.len()).into_bytes(),
        ),
        ("chunk size beyond 2^32-1", b"\n#4294967296\nx\n##\n".to_vec()),
        ("chunk size not a number", b"\n#abc\n".to_vec()),
        ("no chunk header at all", body.clone().into_bytes()),
        ("end-of-message framing on a 1.1 session", format!("{body}]]>]]>").into_bytes()),
    ]
}

async fn running(c: &mut NcClient<Channel>) -> String {
    let r = c.rpc("ctl", "<get-config><source><running/></source></get-config>").await;
    r.child(NETCONF_BASE_NS, "data")
        .map(Element::to_xml)
        .unwrap_or_else(|| panic!("{}", r.to_xml()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_hostile_inputs_get_errors_or_clean_closes() {
    let fx = start().await;
    let (mut control, _ctl_ssh) = fx.session(&both_bases()).await;
    let before = running(&mut control).await;
    let mut count = 0;

    // Errors that leave the session usable: all on one base:1.1 session, which must still
    // answer afterwards.
    let (mut s, _ssh) = fx.session(&both_bases()).await;
    for (what, message, tag, kind) in error_cases() {
        s.send(&message).await;
        let reply = s.recv().await.unwrap_or_else(|| panic!("{what}: the session was closed"));
        let reply = netconf_proto::xml::parse(&reply).expect("the reply is XML");
        assert_eq!(first_error(&reply), (tag.to_string(), kind.to_string()), "{what}");
        count += 1;
    }
    // A duplicate message-id is not an error: both requests are answered.
    for _ in 0..2 {
        let r = s.rpc("same-id", "<get-config><source><running/></source></get-config>").await;
        assert!(r.child(NETCONF_BASE_NS, "data").is_some(), "duplicate message-id");
        assert_eq!(r.attribute("message-id"), Some("same-id"));
    }
    count += 1;
    let r = s.rpc("end", "<close-session/>").await;
    assert!(r.child(NETCONF_BASE_NS, "ok").is_some());

    // Framing attacks end the session (the stream cannot be trusted any more). (An oversize
    // message is framed, so it is answered above and the session goes on.)
    for (what, bytes) in closing_cases() {
        let (mut c, _ssh) = fx.session(&both_bases()).await;
        c.send_raw(&bytes).await;
        if what == "chunk header claims more bytes, then the stream ends" {
            // The server waits for the rest; the client gives up and leaves.
            drop(c);
        } else {
            while let Some(m) = tokio::time::timeout(WAIT, c.recv()).await.expect("in time") {
                let e = netconf_proto::xml::parse(&m).expect("xml");
                assert_ne!(first_error(&e).0, "too-big", "{what}");
            }
        }
        assert_eq!(running(&mut control).await, before, "{what} changed the configuration");
        count += 1;
    }

    // base:1.0: malformed XML closes the session (malformed-message is 1.1 only), and so
    // does a message split by a stray end-of-message marker.
    for (what, bytes) in [
        ("malformed XML on base:1.0", b"<rpc message-id=\"1\"]]>]]>".to_vec()),
        (
            "end-of-message marker inside a message",
            format!(
                "<rpc message-id=\"1\" xmlns=\"{NETCONF_BASE_NS}\"><get>]]>]]></get></rpc>]]>]]>"
            )
            .into_bytes(),
        ),
    ] {
        let (mut c, _ssh) = fx.session(&caps(&[BASE_1_0])).await;
        c.send_raw(&bytes).await;
        assert!(tokio::time::timeout(WAIT, c.recv()).await.expect("in time").is_none(), "{what}");
        count += 1;
    }

    // Bad hellos: the session never starts.
    let hellos: Vec<(&str, Vec<u8>)> = vec![
        ("hello with a session-id", format!("<hello xmlns=\"{NETCONF_BASE_NS}\"><capabilities><capability>urn:ietf:params:netconf:base:1.1</capability></capabilities><session-id>4</session-id></hello>]]>]]>").into_bytes()),
        ("hello without capabilities", format!("<hello xmlns=\"{NETCONF_BASE_NS}\"/>]]>]]>").into_bytes()),
        ("no common base", format!("<hello xmlns=\"{NETCONF_BASE_NS}\"><capabilities><capability>urn:ietf:params:netconf:base:2.0</capability></capabilities></hello>]]>]]>").into_bytes()),
        ("an rpc instead of a hello", format!("{}]]>]]>", rpc("1", "<get/>")).into_bytes()),
        ("garbage instead of a hello", b"\x00\x01\x02]]>]]>".to_vec()),
        ("no hello at all (time-out)", Vec::new()),
    ];
    for (what, bytes) in hellos {
        let (ch, _ssh) = fx.channel().await;
        let mut c = NcClient {
            stream: ch,
            decoder: framing::Decoder::new(Framing::EndOfMessage, 1 << 20),
            out: Framing::EndOfMessage,
            server_hello: netconf_proto::hello::Hello { capabilities: vec![], session_id: None },
        };
        assert!(c.recv().await.is_some(), "{what}: the server's hello");
        c.send_raw(&bytes).await;
        assert!(tokio::time::timeout(WAIT, c.recv()).await.expect("in time").is_none(), "{what}");
        count += 1;
    }

    // The control session is still served and nothing changed.
    assert_eq!(running(&mut control).await, before);
    assert!(count >= 50, "only {count} hostile inputs");
    let stats = control
        .rpc("s", "<get><filter><netconf-state xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring\"><statistics/></netconf-state></filter></get>")
        .await
        .to_xml();
    assert!(stats.contains("<in-bad-hellos>"), "{stats}");
    fx.server.shutdown().await;
}
