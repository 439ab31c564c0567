//! Helpers shared by mgmt's integration tests: a minimal NETCONF client over any byte
//! stream, an SSH client (russh) to reach the server, weak password hashes, and the
//! external-tool convention of the workspace's tests.
#![allow(dead_code)] // each test binary uses a different subset

pub mod actions;
pub mod fixture;

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use argon2::{Algorithm, Argon2, Params, PasswordHasher, Version};
use netconf_proto::framing::{self, Decoder, Framing};
use netconf_proto::hello::{self, Hello, Sender, BASE_1_0, BASE_1_1};
use netconf_proto::xml::{self, Element, NETCONF_BASE_NS};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The test modules' directory (`tests/yang`).
pub fn test_yang_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/yang")
}

/// The modules tests implement besides the base ones.
pub fn test_modules() -> Vec<mgmt::yang::schema::ModuleSpec> {
    vec![
        mgmt::yang::schema::ModuleSpec::new("ietf-interfaces", &[]),
        mgmt::yang::schema::ModuleSpec::new("iana-if-type", &[]),
    ]
}

static SCHEMA: LazyLock<Arc<mgmt::yang::schema::Schema>> = LazyLock::new(|| {
    Arc::new(
        mgmt::yang::schema::Schema::new(&[test_yang_dir()], &test_modules()).expect("test schema"),
    )
});

/// The tests' schema (built once per test binary).
pub fn test_schema() -> Arc<mgmt::yang::schema::Schema> {
    SCHEMA.clone()
}

/// An engine on fresh datastores in a temporary directory, `admin` made NACM administrator.
pub fn test_engine(
    admin: Option<&str>,
    registry: Arc<mgmt::protocol::sessions::Registry>,
) -> (tempfile::TempDir, Arc<mgmt::engine::Engine>) {
    test_engine_with(admin, registry, Vec::new())
}

/// Like [`test_engine`], with backends.
pub fn test_engine_with(
    admin: Option<&str>,
    registry: Arc<mgmt::protocol::sessions::Registry>,
    backends: Vec<Arc<dyn mgmt::backend::Backend>>,
) -> (tempfile::TempDir, Arc<mgmt::engine::Engine>) {
    let config = mgmt::engine::EngineConfig {
        admin_user: admin.map(str::to_string),
        replay_log: 64,
        ..Default::default()
    };
    test_engine_configured(registry, config, backends)
}

/// An engine with `config` on fresh datastores in a temporary directory.
pub fn test_engine_configured(
    registry: Arc<mgmt::protocol::sessions::Registry>,
    config: mgmt::engine::EngineConfig,
    backends: Vec<Arc<dyn mgmt::backend::Backend>>,
) -> (tempfile::TempDir, Arc<mgmt::engine::Engine>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = mgmt::engine::Engine::open(dir.path(), test_schema(), registry, config, backends)
        .expect("engine");
    (dir, engine)
}

/// How long any single wait in a test may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// Finds an external tool. A missing tool fails the test in CI and is skipped loudly
/// elsewhere (the same convention as the workspace's `tests/support`).
pub fn external_tool(path: &str, package: &str) -> Option<PathBuf> {
    let p = PathBuf::from(path);
    if p.exists() {
        return Some(p);
    }
    let msg =
        format!("{path} not found (Debian package {package}); run scripts/deps.sh to install it");
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
    eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    None
}

/// An Argon2id hash with tiny parameters, so tests stay fast.
pub fn weak_hash(password: &str) -> String {
    let params = Params::new(8, 1, 1, None).expect("valid params");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes())
        .expect("hash")
        .to_string()
}

pub fn caps(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

pub fn both_bases() -> Vec<String> {
    caps(&[BASE_1_0, BASE_1_1])
}

/// A minimal NETCONF client over a byte stream.
pub struct NcClient<S> {
    pub stream: S,
    pub decoder: Decoder,
    pub out: Framing,
    pub server_hello: Hello,
}

impl<S: AsyncRead + AsyncWrite + Unpin> NcClient<S> {
    /// Sends our hello with `capabilities`, reads the server's, and switches framing as
    /// negotiated.
    pub async fn connect(stream: S, capabilities: &[String]) -> Self {
        let mut c = NcClient {
            stream,
            decoder: Decoder::new(Framing::EndOfMessage, 1 << 24),
            out: Framing::EndOfMessage,
            server_hello: Hello { capabilities: vec![], session_id: None },
        };
        c.send_raw(
            &framing::encode(Framing::EndOfMessage, hello::client_hello(capabilities).as_bytes())
                .expect("frame"),
        )
        .await;
        let bytes = c.recv().await.expect("server hello");
        c.server_hello = hello::parse_hello(&bytes, Sender::Server).expect("valid server hello");
        let f = hello::negotiate(capabilities, &c.server_hello.capabilities).expect("common base");
        c.decoder.set_framing(f);
        c.out = f;
        c
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        tokio::time::timeout(WAIT, self.stream.write_all(bytes))
            .await
            .expect("write in time")
            .expect("write");
        let _ = self.stream.flush().await;
    }

    /// Sends `message` in the negotiated framing.
    pub async fn send(&mut self, message: &str) {
        let framed = framing::encode(self.out, message.as_bytes()).expect("frame");
        self.send_raw(&framed).await;
    }

    /// The next message, or `None` when the server closed the stream.
    pub async fn recv(&mut self) -> Option<Vec<u8>> {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            if let Some(m) = self.decoder.next_message().expect("server frames correctly") {
                return Some(m);
            }
            let n = tokio::time::timeout(WAIT, self.stream.read(&mut buf))
                .await
                .expect("server answers in time")
                .ok()?;
            if n == 0 {
                return None;
            }
            self.decoder.feed(&buf[..n]);
        }
    }

    /// Sends an rpc with `message_id` wrapping `operation` and returns the parsed reply.
    pub async fn rpc(&mut self, message_id: &str, operation: &str) -> Element {
        self.send(&format!(
            "<rpc message-id=\"{message_id}\" xmlns=\"{NETCONF_BASE_NS}\">{operation}</rpc>"
        ))
        .await;
        let reply = self.recv().await.expect("a reply");
        xml::parse(&reply).expect("well-formed reply")
    }

    /// Expects the server to close the stream (after any messages already in flight).
    pub async fn expect_closed(&mut self) {
        assert!(self.recv().await.is_none(), "expected the server to close the session");
    }
}

/// The (error-tag, error-type) pairs of a reply's rpc-errors.
pub fn errors(reply: &Element) -> Vec<(String, String)> {
    reply
        .elements()
        .filter(|e| e.is(NETCONF_BASE_NS, "rpc-error"))
        .map(|e| {
            let field =
                |n: &str| e.child(NETCONF_BASE_NS, n).map(Element::text).unwrap_or_default();
            (field("error-tag"), field("error-type"))
        })
        .collect()
}

// ===== SSH client (russh) =====

pub struct AcceptAnyHostKey;

impl russh::client::Handler for AcceptAnyHostKey {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        _key: &russh::keys::PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        Ok(true)
    }
}

pub enum Login<'a> {
    Password(&'a str, &'a str),
    Key(&'a str, Box<russh::keys::PrivateKey>),
}

/// Connects and authenticates; `None` if authentication is refused.
pub async fn ssh_login(
    addr: std::net::SocketAddr,
    login: Login<'_>,
) -> Option<russh::client::Handle<AcceptAnyHostKey>> {
    let config = Arc::new(russh::client::Config::default());
    let mut handle =
        tokio::time::timeout(WAIT, russh::client::connect(config, addr, AcceptAnyHostKey))
            .await
            .expect("connect in time")
            .expect("SSH handshake");
    let result = match login {
        Login::Password(user, pw) => handle.authenticate_password(user, pw).await,
        Login::Key(user, key) => {
            handle
                .authenticate_publickey(
                    user,
                    russh::keys::PrivateKeyWithHashAlg::new(Arc::new(*key), None),
                )
                .await
        }
    }
    .expect("auth exchange");
    result.success().then_some(handle)
}

/// Opens a session channel and asks for `subsystem`; the channel if the server agreed.
pub async fn open_subsystem(
    handle: &russh::client::Handle<AcceptAnyHostKey>,
    subsystem: &str,
) -> Option<russh::Channel<russh::client::Msg>> {
    let mut channel = handle.channel_open_session().await.ok()?;
    channel.request_subsystem(true, subsystem).await.expect("request");
    loop {
        match tokio::time::timeout(WAIT, channel.wait()).await.expect("answer in time")? {
            russh::ChannelMsg::Success => return Some(channel),
            russh::ChannelMsg::Failure => return None,
            _ => {}
        }
    }
}

// ===== Interop helpers (third-party clients against a live server) =====

/// The ietf-interfaces namespace.
pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";

/// A state directory whose users file lets alice (the administrator) and bob log in with the
/// password `pw`.
pub fn alice_and_bob() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let hash = weak_hash("pw");
    std::fs::write(
        dir.path().join("users"),
        format!("alice password {hash}\nbob password {hash}\n"),
    )
    .expect("users file");
    dir
}

/// A live server on 127.0.0.1 (ephemeral port) with the test modules, a temporary state
/// directory and one password user, `alice`/`wonderland`, who is the NACM administrator.
pub async fn live_password_server() -> (mgmt::ssh::Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("users"),
        format!("alice password {}\n", weak_hash("wonderland")),
    )
    .expect("users file");
    let server = mgmt::ssh::Server::start(live_config(dir.path())).await.expect("server starts");
    (server, dir)
}

/// The configuration of a live test server: 127.0.0.1 on an ephemeral port, state in
/// `dir/state`, users from `dir/users`, the test modules, `alice` the NACM administrator and
/// a short rejection delay for failed logins.
pub fn live_config(dir: &std::path::Path) -> mgmt::config::Config {
    mgmt::config::Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        state_dir: dir.join("state"),
        users_file: Some(dir.join("users")),
        auth_rejection_time: Duration::from_millis(10),
        yang_dirs: vec![test_yang_dir()],
        modules: test_modules(),
        admin_user: Some("alice".into()),
        ..mgmt::config::Config::default()
    }
}

/// Reads running with our own client (russh + `NcClient`) as alice: the reply's `<data>`.
pub async fn read_running(addr: std::net::SocketAddr) -> Element {
    let ssh =
        ssh_login(addr, Login::Password("alice", "wonderland")).await.expect("login accepted");
    let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    let mut c = NcClient::connect(channel.into_stream(), &both_bases()).await;
    let reply = c.rpc("1", "<get-config><source><running/></source></get-config>").await;
    assert_eq!(errors(&reply), vec![], "get-config of running: {}", reply.to_xml());
    let data = reply.child(NETCONF_BASE_NS, "data").expect("<data> in the reply").clone();
    let _ = c.rpc("2", "<close-session/>").await;
    data
}

/// The description of interface `name` in a `<data>` element, if the interface is there.
pub fn interface_description(data: &Element, name: &str) -> Option<String> {
    let interfaces = data.child(IF_NS, "interfaces")?;
    let entry = interfaces
        .elements()
        .filter(|e| e.is(IF_NS, "interface"))
        .find(|e| e.child(IF_NS, "name").map(Element::text).as_deref() == Some(name))?;
    Some(entry.child(IF_NS, "description").map(Element::text).unwrap_or_default())
}

/// Merges interface `name` (ethernetCsmacd) with `description` into running with our own
/// client, as alice.
pub async fn seed_interface(addr: std::net::SocketAddr, name: &str, description: &str) {
    seed_interface_as(addr, "alice", "wonderland", name, description).await
}

/// [`seed_interface`] as `user` with `password`.
pub async fn seed_interface_as(
    addr: std::net::SocketAddr,
    user: &str,
    password: &str,
    name: &str,
    description: &str,
) {
    let ssh = ssh_login(addr, Login::Password(user, password)).await.expect("login accepted");
    let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    let mut c = NcClient::connect(channel.into_stream(), &both_bases()).await;
    let reply = c
        .rpc(
            "1",
            &format!(
                "<edit-config><target><running/></target><config>\
                 <interfaces xmlns=\"{IF_NS}\"><interface><name>{name}</name>\
                 <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
                 <description>{description}</description></interface></interfaces>\
                 </config></edit-config>"
            ),
        )
        .await;
    assert_eq!(errors(&reply), vec![], "seeding edit-config: {}", reply.to_xml());
    let _ = c.rpc("2", "<close-session/>").await;
}

/// Starts `command` (an `mgmt-serve`, perhaps under another program) with its standard output
/// piped, and reads the address from its first line, "listening on ADDR".
pub fn spawn_serve(
    mut command: std::process::Command,
) -> (std::process::Child, std::net::SocketAddr) {
    use std::io::BufRead;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start mgmt-serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    std::io::BufReader::new(stdout).read_line(&mut line).expect("read");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected output {line:?}"))
        .parse()
        .expect("address");
    (child, addr)
}

/// The arguments after STATE_DIR for `mgmt-serve` with the test modules on an ephemeral
/// port, `admin` the NACM administrator.
pub fn serve_args(admin: &str) -> Vec<String> {
    ["0", "--yang", &test_yang_dir().display().to_string()]
        .into_iter()
        .chain(["--module", "ietf-interfaces", "--module", "iana-if-type", "--admin", admin])
        .map(String::from)
        .collect()
}

/// A temporary directory with a state directory `state` for `mgmt-serve` whose users file
/// lets each of `users` in with password "pw".
pub fn serve_state(users: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).expect("state dir");
    let lines: String =
        users.iter().map(|u| format!("{u} password {}\n", weak_hash("pw"))).collect();
    std::fs::write(state.join("users"), lines).expect("users");
    (dir, state)
}
