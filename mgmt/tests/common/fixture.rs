//! A fixture for operation tests: an engine on temporary datastores and sessions over
//! in-memory pipes, with helpers to build requests and read replies.

use std::sync::Arc;
use std::time::Duration;

use mgmt::engine::Engine;
use mgmt::protocol::sessions::Registry;
use mgmt::session::{self, SessionEnd, SessionSettings};
use netconf_proto::xml::{Element, NETCONF_BASE_NS};
use tokio::io::DuplexStream;
use tokio::task::JoinHandle;

use super::{both_bases, test_engine_configured, test_engine_with, NcClient};

pub const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const IANA: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
pub const MT: &str = "urn:example:mgmt-test";

pub struct Fx {
    pub registry: Arc<Registry>,
    pub engine: Arc<Engine>,
    pub idle: Option<Duration>,
    _dir: tempfile::TempDir,
}

pub type Client = NcClient<DuplexStream>;

impl Fx {
    pub fn new() -> Fx {
        Fx::with_backends(Vec::new())
    }

    /// A fixture whose engine has `backends`.
    pub fn with_backends(backends: Vec<Arc<dyn mgmt::backend::Backend>>) -> Fx {
        let registry = Registry::new(16);
        let (dir, engine) = test_engine_with(Some("admin"), registry.clone(), backends);
        Fx { registry, engine, idle: Some(Duration::from_secs(30)), _dir: dir }
    }

    /// A fixture whose engine has `config` (`admin` its administrator unless it names
    /// another).
    pub fn with_config(config: mgmt::engine::EngineConfig) -> Fx {
        let registry = Registry::new(16);
        let config = mgmt::engine::EngineConfig {
            admin_user: config.admin_user.or(Some("admin".into())),
            ..config
        };
        let (dir, engine) = test_engine_configured(registry.clone(), config, Vec::new());
        Fx { registry, engine, idle: Some(Duration::from_secs(30)), _dir: dir }
    }

    pub fn settings(&self) -> SessionSettings {
        SessionSettings {
            capabilities: self.engine.capabilities().to_vec(),
            max_message_size: 1 << 22,
            hello_timeout: Duration::from_secs(10),
            idle_timeout: self.idle,
            indent_replies: false,
            requests: Default::default(),
        }
    }

    pub async fn open_with(
        &self,
        user: &str,
        bases: &[String],
    ) -> (Client, JoinHandle<SessionEnd>) {
        let (client, mut server) = tokio::io::duplex(1 << 20);
        let handle =
            self.registry.open(user, Some("192.0.2.1:5000".parse().expect("addr"))).expect("room");
        let (settings, engine) = (self.settings(), self.engine.clone());
        let task =
            tokio::spawn(
                async move { session::run(&mut server, &handle, &settings, &engine).await },
            );
        (NcClient::connect(client, bases).await, task)
    }

    pub async fn open(&self, user: &str) -> Client {
        self.open_with(user, &both_bases()).await.0
    }
}

pub fn ok(reply: &Element) {
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some(), "expected <ok/>: {}", reply.to_xml());
}

/// The first rpc-error's fields.
pub struct Err {
    pub tag: String,
    pub kind: String,
    pub path: Option<String>,
    pub message: String,
    pub info: Element,
    pub app_tag: Option<String>,
}

pub fn err(reply: &Element) -> Err {
    let e = reply
        .child(NETCONF_BASE_NS, "rpc-error")
        .unwrap_or_else(|| panic!("expected an rpc-error: {}", reply.to_xml()));
    let f = |n: &str| e.child(NETCONF_BASE_NS, n).map(Element::text);
    Err {
        tag: f("error-tag").unwrap_or_default(),
        kind: f("error-type").unwrap_or_default(),
        path: f("error-path").map(|p| p.trim().to_string()),
        message: f("error-message").unwrap_or_default(),
        info: e.child(NETCONF_BASE_NS, "error-info").cloned().unwrap_or_default(),
        app_tag: f("error-app-tag"),
    }
}

pub fn expect_err(reply: &Element, tag: &str, kind: &str) -> Err {
    let e = err(reply);
    assert_eq!((e.tag.as_str(), e.kind.as_str()), (tag, kind), "{}", reply.to_xml());
    assert!(!e.message.is_empty(), "every error has a message");
    e
}

/// The `<data>` of a reply as XML text.
pub fn data(reply: &Element) -> String {
    let d = reply
        .child(NETCONF_BASE_NS, "data")
        .unwrap_or_else(|| panic!("expected <data>: {}", reply.to_xml()));
    let mut out = String::new();
    netconf_proto::xml::write_children(d, &mut out, Some(NETCONF_BASE_NS));
    out
}

pub fn iface(name: &str, extra: &str) -> String {
    format!(
        "<interface><name>{name}</name><type xmlns:ianaift=\"{IANA}\">ianaift:ethernetCsmacd</type>{extra}</interface>"
    )
}

pub fn edit(target: &str, body: &str) -> String {
    edit_with(target, "", body)
}

pub fn edit_with(target: &str, options: &str, body: &str) -> String {
    format!(
        "<edit-config><target><{target}/></target>{options}<config xmlns:nc=\"{NETCONF_BASE_NS}\">{body}</config></edit-config>"
    )
}

pub fn ifs(entries: &str) -> String {
    format!("<interfaces xmlns=\"{IF}\">{entries}</interfaces>")
}

pub async fn get_config(c: &mut Client, ds: &str, extra: &str) -> String {
    data(&c.rpc("gc", &format!("<get-config><source><{ds}/></source>{extra}</get-config>")).await)
}
