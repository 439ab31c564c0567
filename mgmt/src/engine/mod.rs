//! The NETCONF engine shared by every session: the schema, the datastores, locks, the
//! candidate's owners, confirmed commits, backends, access control, the event stream and
//! the server's counters.
//!
//! Concurrency: readers take an `Arc` snapshot of a datastore and work on it without holding
//! any lock, so reads never wait for each other or for a writer. Writers (edits, commits,
//! copies, rollbacks) take one writer mutex, compute and validate the new content, run the
//! backends' transaction, store it (one sled transaction, flushed) and then publish the new
//! snapshot. Session bookkeeping (locks, confirmed commit) sits in a small mutex held only
//! for a few instructions.
//!
//! The rooms: `start.rs` opens the engine; `writer.rs` is the writer mutex and how a request
//! takes it in each `Mode` (where it runs); `locks.rs` and `candidate.rs` are
//! `<lock>`/`<unlock>` and the candidate's owners; `transaction.rs` makes a new running
//! configuration (backends, storage, notification); `commit.rs` and `confirmed_commit.rs` are
//! `<commit>` and what a confirmed commit leaves pending; `session_events.rs` a session's start
//! and end; `counters.rs` the statistics; `monitoring.rs` the server's own state as YANG data
//! (capabilities, ietf-netconf-monitoring, yang-library, notification streams).

mod candidate;
mod commit;
mod confirmed_commit;
mod counters;
mod locks;
pub mod monitoring;
mod session_events;
mod start;
mod transaction;
mod writer;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::SystemTime;

use thiserror::Error;

use crate::access::nacm::{Nacm, UserAcl};
use crate::backend::{Backend, Origin};
use crate::datastore::{DatastoreError, DatastoreName, Datastores};
use crate::notify::{Bus, Notifier};
use crate::protocol::sessions::Registry;
use crate::yang::schema::Schema;
use netconf_proto::xml::Element;

pub use crate::yang::yang_errors::schema_error;
pub(crate) use confirmed_commit::Confirmed;
pub(crate) use counters::{bump, Counters};
pub use locks::in_use;
pub use session_events::EndReason;
pub(crate) use transaction::RunningWrite;
pub(crate) use writer::small_for_changes;
pub use writer::{Mode, WriteGuard, MAX_DATASTORE};

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The user made administrator (NACM group `admin` with a permit-all rule list) at the
    /// first start. `None`: no administrator is created.
    pub admin_user: Option<String>,
    /// How many notifications are kept for replay.
    pub replay_log: usize,
    /// Configuration (top-level data nodes as XML) added to running at the first start, e.g. the
    /// daemon's ports. `None`: running starts empty (but for the administrator's NACM rules).
    pub initial_config: Option<String>,
    /// Most steps a retrieval or notification filter may cost (`crate::yang::xpath_cost`,
    /// `filter::subtree_limited`).
    pub max_filter_cost: u64,
    /// Data nodes that moved to another module: a stored configuration naming them in the old
    /// one is carried over on open (`crate::datastore::migrate`).
    pub moved: Vec<crate::datastore::migrate::Moved>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            admin_user: None,
            replay_log: 1024,
            initial_config: None,
            max_filter_cost: crate::config::Config::default().max_filter_cost,
            moved: Vec::new(),
        }
    }
}

/// Why the engine cannot start.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The datastores cannot be opened or their content no longer validates.
    #[error(transparent)]
    Datastore(#[from] DatastoreError),
    /// A backend refused the configuration loaded at start.
    #[error("backend '{backend}' refused the configuration at start: {message}")]
    Backend {
        /// The backend's name.
        backend: String,
        /// Its reason.
        message: String,
    },
    /// The administrator's access could not be restored at start (`--admin`).
    #[error("restoring the administrator's access failed: {0}")]
    Recovery(String),
    /// The thread that opened the engine stopped (a backend panicked at start).
    #[error("the start-up thread failed: {0}")]
    StartThread(String),
}

/// One session as the engine knows it.
#[derive(Debug, Clone)]
pub struct SessionCtx {
    /// The session-id.
    pub id: u32,
    /// The authenticated user.
    pub user: String,
    /// The client's address.
    pub source: Option<SocketAddr>,
}

impl SessionCtx {
    /// The origin of what this session does.
    pub fn origin(&self) -> Origin {
        Origin { session_id: Some(self.id), user: Some(self.user.clone()) }
    }
}

/// A lock on a datastore: who holds it, since when.
#[derive(Debug, Clone)]
struct Lock {
    session: u32,
    since: SystemTime,
}

/// The sessions' bookkeeping, in the small mutex: locks, the candidate's owners, the
/// pending confirmed commit, the live sessions.
#[derive(Debug, Default)]
struct State {
    locks: HashMap<&'static str, Lock>,
    /// Sessions that modified the candidate since the last commit or discard (0: the server).
    dirty: BTreeSet<u32>,
    confirmed: Option<Confirmed>,
    live: HashMap<u32, SessionCtx>,
    generation: u64,
}

struct BackendEntry {
    backend: Arc<dyn Backend>,
    namespaces: HashSet<String>,
}

/// The engine.
pub struct Engine {
    pub(crate) schema: Arc<Schema>,
    pub(crate) ds: Datastores,
    pub(crate) registry: Arc<Registry>,
    pub(crate) bus: Arc<Bus>,
    backends: Vec<BackendEntry>,
    pub(crate) rpc_owners: HashMap<(String, String), usize>,
    write: Mutex<()>,
    /// Told each time the writer mutex is released (wakes one [`Engine::write_async`]).
    released: tokio::sync::Notify,
    state: Mutex<State>,
    nacm: RwLock<Arc<Nacm>>,
    pub(crate) counters: Counters,
    capabilities: Vec<String>,
    pub(crate) content_id: String,
    started: SystemTime,
    runtime: Option<tokio::runtime::Handle>,
    max_filter_cost: u64,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("backends", &self.backends.len()).finish_non_exhaustive()
    }
}

impl Engine {
    /// The schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The datastores.
    pub fn datastores(&self) -> &Datastores {
        &self.ds
    }

    /// The session table.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The event stream.
    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    /// The capabilities advertised in the hello.
    pub fn capabilities(&self) -> &[String] {
        &self.capabilities
    }

    /// A handle to publish notifications (validated against the schema's notifications).
    pub fn notifier(self: &Arc<Self>) -> Notifier {
        let schema = self.schema.clone();
        Notifier {
            bus: self.bus.clone(),
            check: Arc::new(move |e: &Element| {
                crate::yang::event::locate(schema.model(), e).is_some()
            }),
        }
    }

    fn lock_state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Most steps a filter may cost.
    pub fn max_filter_cost(&self) -> u64 {
        self.max_filter_cost
    }

    /// Whether any backend is registered.
    pub fn has_backends(&self) -> bool {
        !self.backends.is_empty()
    }

    /// The current access rules.
    pub fn nacm(&self) -> Arc<Nacm> {
        self.nacm.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// What `user` may do.
    pub fn acl(&self, user: &str) -> UserAcl {
        self.nacm().for_user(user)
    }

    fn refresh_nacm(&self) {
        let n =
            Nacm::from_config(self.schema.model(), &self.ds.snapshot(DatastoreName::Running).root);
        *self.nacm.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(n);
    }

    /// The backend running RPC (`ns`, `name`), if any.
    pub(crate) fn rpc_backend(&self, ns: &str, name: &str) -> Option<&Arc<dyn Backend>> {
        let i = *self.rpc_owners.get(&(ns.to_string(), name.to_string()))?;
        self.backends.get(i).map(|b| &b.backend)
    }

    /// The backend owning the module with namespace `ns`, if any: it runs the module's
    /// actions.
    pub(crate) fn module_backend(&self, ns: &str) -> Option<&Arc<dyn Backend>> {
        self.backends.iter().find(|b| b.namespaces.contains(ns)).map(|b| &b.backend)
    }

    /// Every backend.
    pub(crate) fn backends(&self) -> impl Iterator<Item = &Arc<dyn Backend>> {
        self.backends.iter().map(|b| &b.backend)
    }
}
