//! Server settings, with the defaults a deployment starts from.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::yang::schema::ModuleSpec;
use netconf_proto::hello::{BASE_1_0, BASE_1_1};

/// The IANA port for NETCONF over SSH (RFC 6242 §3).
pub const NETCONF_SSH_PORT: u16 = 830;

/// How the NETCONF server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address and port to listen on. Default `0.0.0.0:830`.
    pub listen: SocketAddr,
    /// Directory for the server's state: the SSH host key (`ssh_host_ed25519_key`) and the
    /// datastores (`datastores/`). Created if missing.
    pub state_dir: PathBuf,
    /// The users file (see [`crate::access::users`]). Default `<state_dir>/users`.
    pub users_file: Option<PathBuf>,
    /// Most NETCONF sessions open at once. Default 64.
    pub max_sessions: usize,
    /// Most authenticated connections open at once. Unauthenticated connections have places
    /// of their own (`max_unauthenticated`) and can never take these. Default 128.
    pub max_connections: usize,
    /// Most connections waiting to authenticate, from all sources. A new connection that
    /// finds them all taken displaces one: the least advanced, of the source holding the most,
    /// the oldest ([`crate::ssh::admission`]). Default 64.
    pub max_unauthenticated: usize,
    /// Most connections waiting to authenticate from one source (an IPv4 address or an IPv6
    /// /64); a new one displaces one of that source's, chosen alike. Default 16.
    pub max_unauthenticated_per_source: usize,
    /// How long a connection has, from its accept, to send its SSH version line, finish the
    /// key exchange and authenticate (OpenSSH's LoginGraceTime). Default 30 s.
    pub login_grace_time: Duration,
    /// Threads that check passwords (Argon2id), apart from those that run requests.
    /// Default 1.
    pub auth_threads: usize,
    /// Largest message accepted, in bytes; a larger one is skipped to its end and answered
    /// too-big, and the session goes on. Default 64 MiB.
    pub max_message_size: usize,
    /// Most XML elements parsed from one message (too-big beyond). Default 524 288: a
    /// 4096-interface configuration has about 100 000, and a maximal message's tree then fits
    /// the shared request memory alone.
    pub max_message_elements: usize,
    /// Deepest nesting of XML elements in a message (too-big beyond), at most
    /// `xml::MAX_DEPTH` (512). Default 512.
    pub max_message_depth: usize,
    /// Bytes of requests in progress (messages as they arrive, their parsed trees) that all
    /// sessions together may hold beyond each session's `session_request_memory`; a request
    /// that needs more is answered too-big ([`crate::session::budget`]). Default 256 MiB.
    pub request_memory: usize,
    /// Bytes of requests in progress each session holds of its own, never refused for other
    /// sessions' requests. Default 1 MiB.
    pub session_request_memory: usize,
    /// Most work an XPath filter may cost, in the estimated node visits of its evaluation on
    /// the data it filters ([`crate::yang::xpath_cost`]); a costlier filter is refused. Default
    /// 20 000 000.
    pub max_filter_cost: u64,
    /// How long a connection has, from its accept, to start a NETCONF session; and a session,
    /// from its start, to send its hello. Default 60 s.
    pub hello_timeout: Duration,
    /// A session without any message for this long is closed. Default 600 s; `None` never.
    pub idle_timeout: Option<Duration>,
    /// Every failed authentication takes at least this long. Default 1 s.
    pub auth_rejection_time: Duration,
    /// How long a password that passed Argon2id is recognised without running Argon2id again
    /// (see [`crate::ssh::login_cache`]). Default 300 s; `None` checks every login in full.
    pub login_cache_ttl: Option<Duration>,
    /// Directories whose `*.yang` modules are all implemented (all features). Default none.
    pub yang_dirs: Vec<PathBuf>,
    /// Further modules to implement (embedded or found in `yang_dirs`). Default none.
    pub modules: Vec<ModuleSpec>,
    /// The user made NACM administrator at the first start. Default none.
    pub admin_user: Option<String>,
    /// Notifications kept for replay. Default 1024.
    pub replay_log: usize,
    /// Replies indented, an element a line (`netconf_proto::xml::indent`), so that line diffs of
    /// configurations are readable; costs a second pass over each reply. Default off.
    pub indent_replies: bool,
    /// Configuration (top-level data nodes as XML) added to running at the first start. Default
    /// none.
    pub initial_config: Option<String>,
    /// Data nodes that moved to another module since an earlier release: a stored
    /// configuration naming them in the old one is carried over at start. Default none.
    pub moved: Vec<crate::datastore::migrate::Moved>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([0, 0, 0, 0], NETCONF_SSH_PORT)),
            state_dir: PathBuf::from("/var/lib/pfcd"),
            users_file: None,
            max_sessions: 64,
            max_connections: 128,
            max_unauthenticated: 64,
            max_unauthenticated_per_source: 16,
            login_grace_time: Duration::from_secs(30),
            auth_threads: 1,
            max_message_size: 64 * 1024 * 1024,
            max_message_elements: 1 << 19,
            max_message_depth: netconf_proto::xml::MAX_DEPTH,
            request_memory: 256 * 1024 * 1024,
            session_request_memory: 1024 * 1024,
            max_filter_cost: 20_000_000,
            hello_timeout: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_secs(600)),
            auth_rejection_time: Duration::from_secs(1),
            login_cache_ttl: Some(Duration::from_secs(300)),
            indent_replies: false,
            yang_dirs: Vec::new(),
            modules: Vec::new(),
            admin_user: None,
            replay_log: 1024,
            initial_config: None,
            moved: Vec::new(),
        }
    }
}

impl Config {
    /// The users file actually used.
    pub fn users_path(&self) -> PathBuf {
        self.users_file.clone().unwrap_or_else(|| self.state_dir.join("users"))
    }

    /// The host key file.
    pub fn host_key_path(&self) -> PathBuf {
        self.state_dir.join("ssh_host_ed25519_key")
    }

    /// The datastores' directory.
    pub fn datastores_path(&self) -> PathBuf {
        self.state_dir.join("datastores")
    }

    /// The base capabilities (the engine adds the rest).
    pub fn base_capabilities(&self) -> Vec<String> {
        vec![BASE_1_0.to_string(), BASE_1_1.to_string()]
    }
}
