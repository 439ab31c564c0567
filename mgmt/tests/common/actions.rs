//! The test backend of the `mgmt-actions` module (`tests/yang-actions`): it runs the
//! module's actions, records each call, and serves one state link. Shared by the action tests
//! over SSH (`actions.rs`) and with ncclient (`ncclient.rs`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use mgmt::backend::{ActionRequest, Backend, BackendError, StateRequest, Transaction};
use mgmt::notify::Notifier;
use netconf_proto::xml::Element;

use super::{both_bases, live_config, open_subsystem, ssh_login, Login, NcClient};

pub type Client = NcClient<russh::ChannelStream<russh::client::Msg>>;
pub type Ssh = russh::client::Handle<super::AcceptAnyHostKey>;

/// A server over SSH with the test modules and mgmt-actions run by [`PortActions`].
pub struct Live {
    pub server: mgmt::ssh::Server,
    pub backend: Arc<PortActions>,
    _dir: tempfile::TempDir,
}

/// A server with the test modules and mgmt-actions run by [`PortActions`]; alice is the
/// administrator, bob logs in with the same password.
pub async fn live() -> Live {
    let dir = super::alice_and_bob();
    let mut config = live_config(dir.path());
    config.yang_dirs.push(actions_yang_dir());
    let backend = PortActions::new();
    let server = mgmt::ssh::Server::start_with_backends(config, vec![backend.clone()])
        .await
        .expect("server starts");
    Live { server, backend, _dir: dir }
}

impl Live {
    /// A NETCONF session over SSH as `user` (keep the handle as long as the session).
    pub async fn session(&self, user: &str) -> (Client, Ssh) {
        let ssh = ssh_login(self.server.local_addr(), Login::Password(user, "pw"))
            .await
            .expect("login accepted");
        let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
        (NcClient::connect(channel.into_stream(), &both_bases()).await, ssh)
    }
}

/// The action test module's namespace.
pub const MA: &str = "urn:example:mgmt-actions";

/// The YANG 1.1 namespace `<action>` is in (RFC 7950 §7.15.2).
pub const YANG_1: &str = "urn:ietf:params:xml:ns:yang:1";

/// The directory of the action test module.
pub fn actions_yang_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/yang-actions")
}

/// `samples` that make `measure` answer with an output its schema refuses.
pub const BROKEN_OUTPUT_SAMPLES: u8 = 13;

/// Runs `mgmt-actions`' actions; `calls` holds "PATH ACTION INPUT" for each. Publishes its
/// notifications through the notifier the server attached.
#[derive(Default)]
pub struct PortActions {
    calls: Mutex<Vec<String>>,
    notifier: Mutex<Option<Notifier>>,
}

impl PortActions {
    pub fn new() -> Arc<PortActions> {
        Arc::new(PortActions::default())
    }

    /// Publishes `event` as the backend would; false if the server refused it.
    pub fn publish(&self, event: Element) -> bool {
        let notifier = self.notifier.lock().expect("notifier").clone();
        notifier.expect("the server attached a notifier").publish(event)
    }

    /// The calls so far, emptied.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.calls.lock().expect("calls"))
    }
}

fn leaf(name: &str, value: impl ToString) -> Element {
    Element::leaf(MA, name, value.to_string())
}

impl Backend for PortActions {
    fn name(&self) -> &str {
        "port-actions"
    }

    fn modules(&self) -> Vec<String> {
        vec!["mgmt-actions".into()]
    }

    fn apply(&self, _tx: &Transaction<'_>) {}

    fn attach(&self, notifier: Notifier) {
        *self.notifier.lock().expect("notifier") = Some(notifier);
    }

    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        let link = Element::new(MA, "link").with(leaf("id", 1)).with(leaf("up", true));
        Ok(vec![Element::new(MA, "links").with(link)])
    }

    fn action(&self, request: &ActionRequest<'_>) -> Option<Result<Vec<Element>, BackendError>> {
        let input: Vec<String> =
            request.input.elements().map(|e| format!("{}={}", e.name, e.text())).collect();
        self.calls.lock().expect("calls").push(format!(
            "{} {} {}",
            request.node.to_json_path(),
            request.input.name,
            input.join(",")
        ));
        let samples = request
            .input
            .child(MA, "samples")
            .and_then(|s| s.text().parse::<u32>().ok())
            .unwrap_or(0);
        Some(Ok(match request.input.name.as_str() {
            "measure" if samples == u32::from(BROKEN_OUTPUT_SAMPLES) => {
                vec![leaf("round-trip", "fast")]
            }
            "measure" => vec![leaf("round-trip", samples * 100), leaf("samples-taken", samples)],
            "reset-all" => vec![leaf("cleared", 2)],
            "clear" | "bounce" => Vec::new(),
            _ => return None,
        }))
    }
}
