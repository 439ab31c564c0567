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

use std::collections::{BTreeSet, HashMap, HashSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, TryLockError};
use std::time::{Duration, SystemTime};

use thiserror::Error;
use tracing::{error, info, warn};

use crate::admin_access;
use crate::backend::{Backend, BackendError, Origin, Transaction};
use crate::data::{self, ChangeOp, DataPath};
use crate::datastore::{
    DatastoreError, DatastoreName, Datastores, Snapshot, CONFIRMED_BACKUP, INITIALISED,
};
use crate::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::inline;
use crate::monitoring::{self, LockView, Statistics};
use crate::nacm::{self, Nacm, UserAcl};
use crate::notify::{Bus, Notifier, NC_NOTIFICATIONS_NS};
use crate::schema::{Schema, SchemaError};
use crate::sessions::Registry;
use crate::xml::Element;

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
    /// Most steps a retrieval or notification filter may cost (`crate::xpath_cost`,
    /// `filter::subtree_limited`).
    pub max_filter_cost: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            admin_user: None,
            replay_log: 1024,
            initial_config: None,
            max_filter_cost: crate::config::Config::default().max_filter_cost,
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

/// Why a session ended (RFC 6470 termination-reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// close-session.
    Closed,
    /// kill-session.
    Killed,
    /// The transport went away.
    Dropped,
    /// A time-out.
    Timeout,
    /// The hello was refused.
    BadHello,
    /// Anything else (protocol error, server shutdown).
    Other,
}

impl EndReason {
    fn as_str(self) -> &'static str {
        match self {
            EndReason::Closed => "closed",
            EndReason::Killed => "killed",
            EndReason::Dropped => "dropped",
            EndReason::Timeout => "timeout",
            EndReason::BadHello => "bad-hello",
            EndReason::Other => "other",
        }
    }
}

#[derive(Debug, Clone)]
struct Lock {
    session: u32,
    since: SystemTime,
}

#[derive(Debug, Clone)]
pub(crate) struct Confirmed {
    pub(crate) session: u32,
    /// The issuing session (it may have ended since).
    pub(crate) issuer: SessionCtx,
    pub(crate) persist: Option<String>,
    pub(crate) backup: Arc<Snapshot>,
    pub(crate) generation: u64,
}

#[derive(Debug, Default)]
struct State {
    locks: HashMap<&'static str, Lock>,
    /// Sessions that modified the candidate since the last commit or discard (0: the server).
    dirty: BTreeSet<u32>,
    confirmed: Option<Confirmed>,
    live: HashMap<u32, SessionCtx>,
    generation: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) in_bad_hellos: AtomicU64,
    pub(crate) in_sessions: AtomicU64,
    pub(crate) dropped_sessions: AtomicU64,
    pub(crate) in_rpcs: AtomicU64,
    pub(crate) in_bad_rpcs: AtomicU64,
    pub(crate) out_rpc_errors: AtomicU64,
    pub(crate) out_notifications: AtomicU64,
    pub(crate) denied_operations: AtomicU64,
    pub(crate) denied_data_writes: AtomicU64,
    pub(crate) denied_notifications: AtomicU64,
}

pub(crate) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
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

/// An rpc-error for a schema (libyang) refusal, with the offending node's path.
pub fn schema_error(schema: &Schema, e: &SchemaError) -> RpcError {
    let model = schema.model();
    let SchemaError::Invalid { message, path, app_tag } = e else {
        return RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(e.to_string());
    };
    let lower = message.to_lowercase();
    let tag = match app_tag.as_deref() {
        Some("too-many-elements" | "too-few-elements" | "must-violation" | "data-not-unique") => {
            ErrorTag::OperationFailed
        }
        Some("instance-required" | "missing-choice") => ErrorTag::DataMissing,
        Some(tag) if path.as_deref().is_some_and(|p| schema.must_app_tag(p, tag)) => {
            ErrorTag::OperationFailed
        }
        _ if lower.starts_with("invalid") => ErrorTag::InvalidValue,
        _ if lower.contains("mandatory") => ErrorTag::MissingElement,
        _ if lower.contains("duplicate") => ErrorTag::BadElement,
        _ if lower.contains("not found as a child") || lower.contains("unknown element") => {
            ErrorTag::UnknownElement
        }
        _ if lower.contains("must condition") || lower.contains("unique data") => {
            ErrorTag::OperationFailed
        }
        _ => ErrorTag::InvalidValue,
    };
    let path = path.as_deref().and_then(|p| DataPath::parse_json(model, p)).map(|p| p.to_xpath());
    // The message names the node too: many clients (Ansible among them) show only the
    // message, and "invalid identityref" says nothing of which of fifty interfaces it is.
    let at = path.as_ref().map(|(xpath, _)| format!(" (at {xpath})")).unwrap_or_default();
    let mut err = RpcError::new(tag, ErrorType::Application).with_message(format!(
        "{}{at}; correct the configuration and send it again.",
        message.trim_end().trim_end_matches('.')
    ));
    err.app_tag = app_tag.clone();
    if let Some((xpath, ns)) = path {
        err = err.with_path(xpath, ns);
    }
    err
}

fn store_error(e: &DatastoreError) -> RpcError {
    RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
        .with_message(format!("The configuration could not be stored ({e}); nothing was changed."))
}

fn backend_error(model: &crate::model::Model, name: &str, e: &BackendError) -> RpcError {
    let mut err = RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
        .with_message(format!("{} (refused by {name})", e.message));
    err.app_tag = e.app_tag.clone();
    if let Some(p) = e.path.as_deref().and_then(|p| DataPath::parse_json(model, p)) {
        let (xpath, ns) = p.to_xpath();
        err = err.with_path(xpath, ns);
    }
    err
}

/// In-use (protocol): `ds` is locked by session `holder`.
pub fn in_use(ds: DatastoreName, holder: u32) -> RpcError {
    RpcError::new(ErrorTag::InUse, ErrorType::Protocol)
        .with_message(format!(
            "The {} datastore is locked by session {holder}; wait for it to unlock or kill that session.",
            ds.as_str()
        ))
        .with_info(ErrorInfo::SessionId(holder))
}

/// How a new running configuration is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunningWrite {
    /// Only running changes (edit-config or copy-config on running).
    Running,
    /// A commit: candidate becomes the same, the old running is kept for rollback.
    Commit,
}

/// The engine's writer mutex, held: while it lives, no other change runs. `guard` is
/// `None` for a request running inline whose session holds the mutex for it.
pub struct WriteGuard<'a> {
    guard: Option<MutexGuard<'a, ()>>,
    engine: &'a Engine,
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        if let Some(g) = self.guard.take() {
            drop(g);
            self.engine.released.notify_one();
        }
    }
}

impl std::fmt::Debug for WriteGuard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteGuard").field("own", &self.guard.is_some()).finish()
    }
}

// ===== impl Engine =====

impl Engine {
    /// Opens the datastores in `dir` with `schema`, registers `backends` (each is given the
    /// configuration loaded at start as one transaction) and creates the first start's
    /// administrator.
    pub fn open(
        dir: &Path,
        schema: Arc<Schema>,
        registry: Arc<Registry>,
        config: EngineConfig,
        backends: Vec<Arc<dyn Backend>>,
    ) -> Result<Arc<Engine>, EngineError> {
        let (ds, opened) = Datastores::open_with(dir, schema.clone())?;
        if opened.restored_confirmed {
            warn!("a confirmed commit was not confirmed before the server stopped: the configuration before it was restored");
        }
        let content_id = monitoring::content_id(&schema);
        let capabilities = monitoring::capabilities(&schema, &content_id);
        let mut entries = Vec::new();
        let mut rpc_owners = HashMap::new();
        for (i, b) in backends.into_iter().enumerate() {
            let namespaces = b
                .modules()
                .iter()
                .filter_map(|m| schema.model().module_by_name(m).map(|m| m.namespace.clone()))
                .collect();
            for key in b.rpcs() {
                rpc_owners.insert(key, i);
            }
            entries.push(BackendEntry { backend: b, namespaces });
        }
        let engine = Arc::new(Engine {
            nacm: RwLock::new(Arc::new(Nacm::from_config(
                schema.model(),
                &ds.snapshot(DatastoreName::Running).root,
            ))),
            bus: Arc::new(Bus::new(config.replay_log)),
            schema,
            ds,
            registry,
            backends: entries,
            rpc_owners,
            write: Mutex::new(()),
            released: tokio::sync::Notify::new(),
            state: Mutex::new(State::default()),
            counters: Counters::default(),
            capabilities,
            content_id,
            started: SystemTime::now(),
            runtime: tokio::runtime::Handle::try_current().ok(),
            max_filter_cost: config.max_filter_cost,
        });
        // Hand every backend the start-up configuration, then its notifier.
        let running = engine.ds.snapshot(DatastoreName::Running);
        let empty = Snapshot::empty();
        let changes = data::diff(engine.schema.model(), &empty.root, &running.root);
        let origin = Origin { session_id: None, user: None };
        if let Err((name, e)) =
            engine.run_transaction(&empty.root, &running.root, &changes, &origin, || Ok(()))
        {
            return Err(EngineError::Backend {
                backend: name,
                message: e.message.clone().unwrap_or_default(),
            });
        }
        for b in &engine.backends {
            b.backend.attach(engine.notifier());
        }
        if opened.first_start {
            engine.first_start(config.admin_user.as_deref(), config.initial_config.as_deref())?;
        } else if let Some(user) = config.admin_user.as_deref() {
            admin_access::restore_admin(&engine, user)?;
        }
        Ok(engine)
    }

    fn first_start(&self, admin: Option<&str>, initial: Option<&str>) -> Result<(), EngineError> {
        let _w = self.lock_write();
        let running = self.ds.snapshot(DatastoreName::Running);
        if admin.is_none() {
            warn!("first start without an administrator: NACM denies every write until /nacm is configured");
        }
        let make_admin = admin.filter(|_| running.root.child(nacm::NACM_NS, "nacm").is_none());
        if make_admin.is_none() && initial.is_none() {
            self.ds.store().apply(&[(INITIALISED, Some("1"))]).map_err(DatastoreError::from)?;
            return Ok(());
        }
        let mut xml = running.xml.to_string();
        if let Some(user) = make_admin {
            xml.push_str(&nacm::admin_config(user));
        }
        if let Some(initial) = initial {
            xml.push_str(initial);
        }
        let snap = self.ds.check(&xml, true).map_err(DatastoreError::from)?;
        let changes = data::diff(self.schema.model(), &running.root, &snap.root);
        let origin = Origin { session_id: None, user: None };
        let stored = self.run_transaction(&running.root, &snap.root, &changes, &origin, || {
            self.ds
                .store_commit(snap.clone(), &[(INITIALISED, Some("1"))])
                .map(|_| ())
                .map_err(|e| store_error(&e))
        });
        if let Err((name, e)) = stored {
            return Err(EngineError::Backend {
                backend: name,
                message: e.message.unwrap_or_default(),
            });
        }
        self.refresh_nacm();
        if let Some(user) = make_admin {
            info!(user, "first start: created NACM group 'admin' for the administrator");
        }
        if initial.is_some() {
            info!("first start: stored the initial configuration");
        }
        Ok(())
    }

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
                schema
                    .model()
                    .notification(e.namespace.as_deref().unwrap_or_default(), &e.name)
                    .is_some()
            }),
        }
    }

    fn lock_state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The writer mutex, waiting for it. Never called by a request running inline.
    pub(crate) fn lock_write(&self) -> WriteGuard<'_> {
        debug_assert!(!inline::active(), "an inline request would wait for the writer mutex");
        let guard = self.write.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        WriteGuard { guard: Some(guard), engine: self }
    }

    /// The writer mutex if it is free now.
    fn try_lock_write(&self) -> Option<WriteGuard<'_>> {
        let guard = match self.write.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(WriteGuard { guard: Some(guard), engine: self })
    }

    /// The writer mutex, waited for without blocking the thread: for a session that will run
    /// a light change on its own task (see [`inline::run_holding`]). Waiters are woken one at
    /// a time as the mutex is released; a change waiting on a blocking thread may overtake
    /// them.
    pub async fn write_async(&self) -> WriteGuard<'_> {
        loop {
            let notified = self.released.notified();
            tokio::pin!(notified);
            // Registered before trying, so that a release in between wakes it.
            notified.as_mut().enable();
            if let Some(guard) = self.try_lock_write() {
                return guard;
            }
            notified.await;
        }
    }

    /// The writer mutex for a request: waiting for it; for a request running inline, the
    /// one its session holds, else only if it is free and the datastores are still small
    /// (`None`: the request must stop before changing anything, see [`inline::run`]).
    fn request_write(&self) -> Option<WriteGuard<'_>> {
        if inline::holding() {
            return Some(WriteGuard { guard: None, engine: self });
        }
        if !inline::active() {
            return Some(self.lock_write());
        }
        let Some(guard) = self.try_lock_write() else {
            inline::refuse();
            return None;
        };
        if !inline::small_for_changes(self) {
            inline::refuse();
            return None;
        }
        Some(guard)
    }

    /// Whether a change holds the writer mutex at this moment.
    pub fn writer_busy(&self) -> bool {
        matches!(self.write.try_lock(), Err(TryLockError::WouldBlock))
    }

    /// Most steps a filter may cost.
    pub fn max_filter_cost(&self) -> u64 {
        self.max_filter_cost
    }

    /// Whether any backend is registered.
    pub fn has_backends(&self) -> bool {
        !self.backends.is_empty()
    }

    /// The writer mutex for a change by session `ctx` to `targets`, refused if another
    /// session holds a lock on one of them (`in-use`) or the session has ended meanwhile.
    /// The locks are looked at with the mutex held: `<lock>` is decided under the same mutex
    /// (see [`Engine::lock`]), so a lock is never granted while a change it would forbid is
    /// in progress, and no change starts under a lock granted to another session.
    pub(crate) fn writer_for(
        &self,
        ctx: &SessionCtx,
        targets: &[DatastoreName],
    ) -> Result<WriteGuard<'_>, RpcError> {
        let guard = self.writer(ctx)?;
        for &ds in targets {
            self.check_unlocked(&guard, ds, ctx.id)?;
        }
        Ok(guard)
    }

    /// The writer mutex for a change by session `ctx`, refused if the session has ended
    /// meanwhile (killed while its request waited or ran: RFC 6241 §7.9 aborts it).
    pub(crate) fn writer(&self, ctx: &SessionCtx) -> Result<WriteGuard<'_>, RpcError> {
        let guard = self.request_write().ok_or_else(|| {
            RpcError::new(ErrorTag::OperationFailed, ErrorType::Application).with_message(
                "The change must wait for another; it is run again off the session's task.",
            )
        })?;
        if self.lock_state().live.contains_key(&ctx.id) {
            Ok(guard)
        } else {
            Err(RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol).with_message(
                "The session ended (it was killed) before this request could change anything.",
            ))
        }
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

    // ----- sessions -----

    /// Records a new session and announces it (netconf-session-start).
    pub fn session_started(&self, ctx: &SessionCtx) {
        bump(&self.counters.in_sessions);
        self.lock_state().live.insert(ctx.id, ctx.clone());
        let n = NC_NOTIFICATIONS_NS;
        let mut e = Element::new(n, "netconf-session-start")
            .with(Element::leaf(n, "username", &ctx.user))
            .with(Element::leaf(n, "session-id", ctx.id.to_string()));
        if let Some(a) = ctx.source {
            e.push(Element::leaf(n, "source-host", a.ip().to_string()));
        }
        self.bus.publish(e);
    }

    /// A hello was refused.
    pub fn bad_hello(&self) {
        bump(&self.counters.in_bad_hellos);
    }

    /// Cleans up after session `id`: releases its locks, discards the candidate changes it
    /// held locked, rolls back its unconfirmed (not persisted) confirmed commit, and
    /// announces the end. Safe to call twice (kill-session, then the session's own exit).
    pub fn session_ended(self: &Arc<Self>, id: u32, reason: EndReason, killed_by: Option<u32>) {
        let (ctx, held_candidate, rollback) = {
            let mut st = self.lock_state();
            let Some(ctx) = st.live.remove(&id) else { return };
            let held_candidate = st.locks.get("candidate").is_some_and(|l| l.session == id);
            st.locks.retain(|_, l| l.session != id);
            let rollback = st
                .confirmed
                .as_ref()
                .filter(|c| c.session == id && c.persist.is_none())
                .map(|c| c.generation);
            (ctx, held_candidate, rollback)
        };
        if matches!(reason, EndReason::Dropped | EndReason::Timeout | EndReason::Other) {
            bump(&self.counters.dropped_sessions);
        }
        if let Some(generation) = rollback {
            let w = self.lock_write();
            if self.confirmed().is_some_and(|c| c.generation == generation) {
                info!(
                    session = id,
                    "the session that issued a confirmed commit ended: rolling back"
                );
                self.rollback_confirmed(&w, "cancel", Some(&ctx));
            }
        }
        if held_candidate {
            let _w = self.lock_write();
            let dirty = !self.lock_state().dirty.is_empty();
            if dirty {
                if let Err(e) = self.discard_locked() {
                    error!("discarding the candidate of ended session {id} failed: {e}");
                }
            }
        }
        let n = NC_NOTIFICATIONS_NS;
        let mut e = Element::new(n, "netconf-session-end")
            .with(Element::leaf(n, "username", &ctx.user))
            .with(Element::leaf(n, "session-id", id.to_string()));
        if let Some(a) = ctx.source {
            e.push(Element::leaf(n, "source-host", a.ip().to_string()));
        }
        if let Some(k) = killed_by {
            e.push(Element::leaf(n, "killed-by", k.to_string()));
        }
        e.push(Element::leaf(n, "termination-reason", reason.as_str()));
        self.bus.publish(e);
    }

    // ----- locks -----

    /// The session holding a lock on `ds`, if any.
    pub fn lock_holder(&self, ds: DatastoreName) -> Option<u32> {
        self.lock_state().locks.get(ds.as_str()).map(|l| l.session)
    }

    /// Refuses a write to `ds` by session `me` if another session holds its lock. Takes the
    /// held writer mutex as proof that no lock can be granted meanwhile.
    pub(crate) fn check_unlocked(
        &self,
        _writer: &WriteGuard<'_>,
        ds: DatastoreName,
        me: u32,
    ) -> Result<(), RpcError> {
        match self.lock_holder(ds) {
            Some(h) if h != me => Err(in_use(ds, h)),
            _ => Ok(()),
        }
    }

    /// `<lock>` (RFC 6241 §7.5), decided with the writer mutex held: every change checks
    /// the locks under that mutex too, so a lock cannot be granted while a change of the
    /// datastore by another session is in progress, nor a change begin under another
    /// session's lock.
    pub fn lock(&self, ds: DatastoreName, me: u32) -> Result<(), RpcError> {
        let _w = self.request_write().ok_or_else(|| {
            RpcError::new(ErrorTag::OperationFailed, ErrorType::Application).with_message(
                "The lock must wait for a change; it is run again off the session's task.",
            )
        })?;
        let mut st = self.lock_state();
        let denied = |holder: u32, why: String| {
            RpcError::new(ErrorTag::LockDenied, ErrorType::Protocol)
                .with_message(why)
                .with_info(ErrorInfo::SessionId(holder))
        };
        if let Some(l) = st.locks.get(ds.as_str()) {
            let who = if l.session == me {
                "this session".to_string()
            } else {
                format!("session {}", l.session)
            };
            return Err(denied(
                l.session,
                format!("The {} datastore is already locked by {who}.", ds.as_str()),
            ));
        }
        if ds == DatastoreName::Running {
            if let Some(c) = st.confirmed.as_ref().filter(|c| c.session != me) {
                return Err(denied(
                    c.session,
                    format!(
                        "Session {} has a confirmed commit pending; running cannot be locked \
                         until it is confirmed or rolled back (RFC 6241 §7.5).",
                        c.session
                    ),
                ));
            }
        }
        if ds == DatastoreName::Candidate {
            if let Some(&other) = st.dirty.iter().find(|&&s| s != me) {
                return Err(denied(
                    other,
                    "The candidate holds changes that were neither committed nor discarded; \
                     commit or discard them (discard-changes) before locking it."
                        .into(),
                ));
            }
        }
        st.locks.insert(ds.as_str(), Lock { session: me, since: SystemTime::now() });
        Ok(())
    }

    /// `<unlock>` (RFC 6241 §7.6). Unlocking the candidate discards its uncommitted changes.
    pub fn unlock(self: &Arc<Self>, ds: DatastoreName, me: u32) -> Result<(), RpcError> {
        // The writer mutex first (for the candidate's discard), so that a request running
        // inline that cannot have it stops before releasing anything.
        let _w = self.request_write().ok_or_else(|| {
            RpcError::new(ErrorTag::OperationFailed, ErrorType::Application).with_message(
                "The unlock must wait for a change; it is run again off the session's task.",
            )
        })?;
        {
            let mut st = self.lock_state();
            match st.locks.get(ds.as_str()) {
                None => {
                    return Err(RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol)
                        .with_message(format!("The {} datastore is not locked.", ds.as_str())))
                }
                Some(l) if l.session != me => {
                    return Err(RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol)
                        .with_message(format!(
                            "The {} datastore is locked by session {}, not by this session.",
                            ds.as_str(),
                            l.session
                        ))
                        .with_info(ErrorInfo::SessionId(l.session)))
                }
                Some(_) => {
                    st.locks.remove(ds.as_str());
                }
            }
        }
        if ds == DatastoreName::Candidate && !self.lock_state().dirty.is_empty() {
            self.discard_locked().map_err(|e| store_error(&e))?;
        }
        Ok(())
    }

    /// The locks, for monitoring.
    pub fn locks(&self) -> Vec<LockView> {
        let st = self.lock_state();
        st.locks
            .iter()
            .map(|(ds, l)| LockView { datastore: ds, session: l.session, since: l.since })
            .collect()
    }

    // ----- candidate -----

    /// Marks the candidate as modified by `session`.
    pub(crate) fn mark_dirty(&self, session: u32) {
        self.lock_state().dirty.insert(session);
    }

    /// Resets the candidate to running; the writer mutex must be held.
    pub(crate) fn discard_locked(&self) -> Result<(), DatastoreError> {
        self.ds.discard_changes()?;
        self.lock_state().dirty.clear();
        Ok(())
    }

    // ----- running -----

    /// Runs the backends' transaction around `store`: prepare on every backend the changes
    /// touch, store, then apply (or abort if anything failed).
    fn run_transaction(
        &self,
        old: &Element,
        new: &Element,
        changes: &[data::Change<'_>],
        origin: &Origin,
        store: impl FnOnce() -> Result<(), RpcError>,
    ) -> Result<(), (String, RpcError)> {
        let mut involved: Vec<(usize, Vec<&data::Change<'_>>)> = Vec::new();
        for (i, b) in self.backends.iter().enumerate() {
            let mine: Vec<&data::Change<'_>> = changes
                .iter()
                .filter(|c| c.namespaces().iter().any(|ns| b.namespaces.contains(*ns)))
                .collect();
            if !mine.is_empty() {
                involved.push((i, mine));
            }
        }
        let txs: Vec<(usize, Transaction<'_>)> = involved
            .into_iter()
            .map(|(i, changes)| (i, Transaction { old, new, changes, origin }))
            .collect();
        let mut prepared = 0;
        for (i, tx) in &txs {
            let Some(b) = self.backends.get(*i) else { continue };
            if let Err(e) = b.backend.prepare(tx) {
                for (j, tx) in txs.iter().take(prepared) {
                    if let Some(b) = self.backends.get(*j) {
                        b.backend.abort(tx);
                    }
                }
                let name = b.backend.name().to_string();
                return Err((name.clone(), backend_error(self.schema.model(), &name, &e)));
            }
            prepared += 1;
        }
        if let Err(e) = store() {
            for (j, tx) in &txs {
                if let Some(b) = self.backends.get(*j) {
                    b.backend.abort(tx);
                }
            }
            return Err(("storage".into(), e));
        }
        for (i, tx) in &txs {
            if let Some(b) = self.backends.get(*i) {
                b.backend.apply(tx);
            }
        }
        Ok(())
    }

    /// Makes `new` running: backends' transaction, storage, NACM refresh, config-change
    /// notification. The writer mutex must be held. `extra` keys are stored in the same
    /// transaction.
    pub(crate) fn set_running(
        &self,
        new: impl Into<Arc<Snapshot>>,
        origin: &Origin,
        how: RunningWrite,
        extra: &[(&str, Option<&str>)],
    ) -> Result<(), RpcError> {
        let new: Arc<Snapshot> = new.into();
        let old = self.ds.snapshot(DatastoreName::Running);
        let changes = data::diff(self.schema.model(), &old.root, &new.root);
        // The difference ignores order, so an ordered-by user entry that only moved has no
        // change: the texts tell.
        if changes.is_empty()
            && how == RunningWrite::Running
            && extra.is_empty()
            && old.xml == new.xml
        {
            return Ok(());
        }
        if let (RunningWrite::Commit, Some(user)) = (how, origin.user.as_deref()) {
            // A shared candidate may hold other users' changes: what running gets is checked
            // as the committing user's own write (DECISIONS.md, "Nobody locks the
            // administrator out").
            if let Err(e) = self.acl(user).check_write(self.schema.model(), &changes) {
                bump(&self.counters.denied_data_writes);
                return Err(e);
            }
        }
        admin_access::check_keeps_own_access(self, origin, &new.root, &changes)?;
        // A candidate without uncommitted changes follows running.
        let sync_candidate = how == RunningWrite::Commit || self.lock_state().dirty.is_empty();
        self.run_transaction(&old.root, &new.root, &changes, origin, || {
            let stored = if sync_candidate {
                self.ds.store_commit(new.clone(), extra)
            } else {
                self.ds.store_snapshot(DatastoreName::Running, new.clone(), extra)
            };
            stored.map(|_| ()).map_err(|e| store_error(&e))
        })
        .map_err(|(_, e)| e)?;
        if how == RunningWrite::Commit {
            self.lock_state().dirty.clear();
        }
        if !changes.is_empty() {
            if changes.iter().any(|c| c.namespaces().contains(&nacm::NACM_NS)) {
                self.refresh_nacm();
            }
            self.publish_config_change(origin, &changes);
        }
        Ok(())
    }

    fn publish_config_change(&self, origin: &Origin, changes: &[data::Change]) {
        let n = NC_NOTIFICATIONS_NS;
        let mut by = Element::new(n, "changed-by");
        match (origin.session_id, &origin.user) {
            (Some(id), Some(user)) => {
                by.push(Element::leaf(n, "username", user));
                by.push(Element::leaf(n, "session-id", id.to_string()));
                let host = self
                    .lock_state()
                    .live
                    .get(&id)
                    .and_then(|c| c.source)
                    .map(|a| a.ip().to_string());
                if let Some(h) = host {
                    by.push(Element::leaf(n, "source-host", h));
                }
            }
            _ => by.push(Element::new(n, "server")),
        }
        let mut e = Element::new(n, "netconf-config-change").with(by).with(Element::leaf(
            n,
            "datastore",
            "running",
        ));
        for c in changes {
            let (xpath, ns) = c.path.to_xpath();
            let mut target = Element::leaf(n, "target", xpath);
            *target.namespaces_mut() = ns.into_iter().map(|(p, u)| (Some(p), u)).collect();
            let op = match c.op {
                ChangeOp::Create => "create",
                ChangeOp::Delete => "delete",
                ChangeOp::Modify => "replace",
            };
            e.push(Element::new(n, "edit").with(target).with(Element::leaf(n, "operation", op)));
        }
        self.bus.publish(e);
    }

    /// RFC 6470 netconf-confirmed-commit; the session parameters are those of the session
    /// that caused the event (none for a time-out).
    fn publish_confirmed_event(&self, event: &str, by: Option<&SessionCtx>, timeout: Option<u64>) {
        let n = NC_NOTIFICATIONS_NS;
        let mut e = Element::new(n, "netconf-confirmed-commit");
        if let Some(ctx) = by.filter(|_| event != "timeout") {
            e.push(Element::leaf(n, "username", &ctx.user));
            e.push(Element::leaf(n, "session-id", ctx.id.to_string()));
            if let Some(a) = ctx.source {
                e.push(Element::leaf(n, "source-host", a.ip().to_string()));
            }
        }
        e.push(Element::leaf(n, "confirm-event", event));
        if let Some(t) = timeout {
            e.push(Element::leaf(n, "timeout", t.to_string()));
        }
        self.bus.publish(e);
    }

    // ----- commit and confirmed commit -----

    /// The pending confirmed commit, if any.
    pub(crate) fn confirmed(&self) -> Option<Confirmed> {
        self.lock_state().confirmed.clone()
    }

    /// Validates the candidate and makes it running. The writer mutex must be held.
    pub(crate) fn commit_candidate(
        &self,
        origin: &Origin,
        extra: &[(&str, Option<&str>)],
    ) -> Result<(), RpcError> {
        let candidate = self.ds.snapshot(DatastoreName::Candidate);
        // A candidate validated when it was written need not be validated again.
        let snap = if candidate.validated {
            candidate
        } else {
            Arc::new(
                self.ds.check(&candidate.xml, true).map_err(|e| schema_error(&self.schema, &e))?,
            )
        };
        self.set_running(snap, origin, RunningWrite::Commit, extra)
    }

    /// `<commit>` with its confirmed-commit parameters (RFC 6241 §8.3.4.1, §8.4.5.1).
    pub fn commit(
        self: &Arc<Self>,
        ctx: &SessionCtx,
        confirmed: bool,
        timeout: Duration,
        persist: Option<String>,
        persist_id: Option<String>,
    ) -> Result<(), RpcError> {
        let origin = ctx.origin();
        let _w = self.writer_for(ctx, &[DatastoreName::Running, DatastoreName::Candidate])?;
        let pending = self.confirmed();
        match pending {
            Some(p) => {
                // A follow-up or confirming commit: only from the issuing session, or with the
                // persist token.
                match (&p.persist, &persist_id) {
                    (Some(tok), Some(id)) if tok == id => {}
                    (Some(_), Some(_)) => {
                        return Err(RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
                            .with_message("The persist-id does not match the pending confirmed commit's persist token.")
                            .with_info(ErrorInfo::BadElement("persist-id".into())))
                    }
                    (Some(_), None) => {
                        return Err(RpcError::new(ErrorTag::MissingElement, ErrorType::Protocol)
                            .with_message("A persistent confirmed commit is pending: confirm it with <persist-id> holding its persist token.")
                            .with_info(ErrorInfo::BadElement("persist-id".into())))
                    }
                    (None, Some(_)) => {
                        return Err(RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
                            .with_message("The pending confirmed commit has no persist token; leave out <persist-id>.")
                            .with_info(ErrorInfo::BadElement("persist-id".into())))
                    }
                    (None, None) if p.session != ctx.id => {
                        return Err(RpcError::new(ErrorTag::InUse, ErrorType::Protocol)
                            .with_message(format!(
                                "Session {} has a confirmed commit pending; only it can confirm or extend it.",
                                p.session
                            ))
                            .with_info(ErrorInfo::SessionId(p.session)))
                    }
                    (None, None) => {}
                }
                if confirmed {
                    self.commit_candidate(&origin, &[])?;
                    self.arm_confirmed(p.issuer.clone(), persist.or(p.persist), p.backup, timeout);
                    self.publish_confirmed_event("extend", Some(ctx), Some(timeout.as_secs()));
                } else {
                    self.commit_candidate(&origin, &[(CONFIRMED_BACKUP, None)])?;
                    self.lock_state().confirmed = None;
                    self.publish_confirmed_event("complete", Some(ctx), None);
                }
                Ok(())
            }
            None => {
                if persist_id.is_some() {
                    return Err(RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
                        .with_message("No confirmed commit is pending; leave out <persist-id>.")
                        .with_info(ErrorInfo::BadElement("persist-id".into())));
                }
                if !confirmed {
                    return self.commit_candidate(&origin, &[]);
                }
                let backup = self.ds.snapshot(DatastoreName::Running);
                self.commit_candidate(&origin, &[(CONFIRMED_BACKUP, Some(&backup.xml))])?;
                self.arm_confirmed(ctx.clone(), persist, backup, timeout);
                self.publish_confirmed_event("start", Some(ctx), Some(timeout.as_secs()));
                Ok(())
            }
        }
    }

    /// Records a pending confirmed commit and starts its timer; returns its generation.
    fn arm_confirmed(
        self: &Arc<Self>,
        issuer: SessionCtx,
        persist: Option<String>,
        backup: Arc<Snapshot>,
        timeout: Duration,
    ) -> u64 {
        let generation = {
            let mut st = self.lock_state();
            st.generation += 1;
            let generation = st.generation;
            st.confirmed =
                Some(Confirmed { session: issuer.id, issuer, persist, backup, generation });
            generation
        };
        if let Some(rt) = &self.runtime {
            let engine = Arc::downgrade(self);
            rt.spawn(async move {
                tokio::time::sleep(timeout).await;
                let Some(engine) = engine.upgrade() else { return };
                let _ = tokio::task::spawn_blocking(move || {
                    // Decided under the writer mutex: a commit that extends or confirms this
                    // confirmed commit at the same moment either went first (new generation:
                    // nothing is due) or waits for the rollback and then finds none pending.
                    let w = engine.lock_write();
                    let due = engine.confirmed().is_some_and(|c| c.generation == generation);
                    if due {
                        info!("confirmed commit not confirmed in time: rolling back");
                        engine.rollback_confirmed(&w, "timeout", None);
                    }
                })
                .await;
            });
        }
        generation
    }

    /// Restores running to its state before the pending confirmed commit (time-out, cancel,
    /// session loss). The caller holds the writer mutex and has decided, under it, that
    /// this confirmed commit is the one to roll back.
    pub(crate) fn rollback_confirmed(
        &self,
        _writer: &WriteGuard<'_>,
        event: &str,
        by: Option<&SessionCtx>,
    ) -> bool {
        let Some(pending) = self.lock_state().confirmed.take() else { return false };
        let origin = Origin { session_id: None, user: None };
        match self.set_running(
            pending.backup.clone(),
            &origin,
            RunningWrite::Commit,
            &[(CONFIRMED_BACKUP, None)],
        ) {
            Ok(()) => {
                self.publish_confirmed_event(event, by.or(Some(&pending.issuer)), None);
                true
            }
            Err(e) => {
                error!("rolling back the confirmed commit failed: {e}");
                false
            }
        }
    }

    /// `<cancel-commit>` (RFC 6241 §8.4.4.1), decided under the writer mutex so that the
    /// confirmed commit checked is the one rolled back.
    pub fn cancel_commit(
        &self,
        ctx: &SessionCtx,
        persist_id: Option<String>,
    ) -> Result<(), RpcError> {
        let w = self.writer(ctx)?;
        let Some(p) = self.confirmed() else {
            return Err(RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol)
                .with_message("No confirmed commit is pending."));
        };
        match (&p.persist, &persist_id) {
            (Some(tok), Some(id)) if tok == id => {}
            (Some(_), _) => {
                return Err(RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
                    .with_message("The pending confirmed commit is persistent: give its persist token in <persist-id>.")
                    .with_info(ErrorInfo::BadElement("persist-id".into())))
            }
            (None, Some(_)) => {
                return Err(RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
                    .with_message("The pending confirmed commit has no persist token; leave out <persist-id>.")
                    .with_info(ErrorInfo::BadElement("persist-id".into())))
            }
            (None, None) if p.session != ctx.id => {
                return Err(RpcError::new(ErrorTag::InUse, ErrorType::Protocol)
                    .with_message(format!("Only session {} can cancel its confirmed commit.", p.session))
                    .with_info(ErrorInfo::SessionId(p.session)))
            }
            (None, None) => {}
        }
        if self.rollback_confirmed(&w, "cancel", Some(ctx)) {
            Ok(())
        } else {
            Err(RpcError::new(ErrorTag::RollbackFailed, ErrorType::Application)
                .with_message("The configuration before the confirmed commit could not be restored; see the server log."))
        }
    }

    // ----- monitoring -----

    /// Server-wide counters.
    pub fn statistics(&self) -> Statistics {
        let c = &self.counters;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Statistics {
            start: Some(self.started),
            in_bad_hellos: g(&c.in_bad_hellos),
            in_sessions: g(&c.in_sessions),
            dropped_sessions: g(&c.dropped_sessions),
            in_rpcs: g(&c.in_rpcs),
            in_bad_rpcs: g(&c.in_bad_rpcs),
            out_rpc_errors: g(&c.out_rpc_errors),
            out_notifications: g(&c.out_notifications),
        }
    }

    /// Counts a correct rpc.
    pub fn count_rpc(&self) {
        bump(&self.counters.in_rpcs);
    }

    /// Counts a message that was not a correct rpc.
    pub fn count_bad_rpc(&self) {
        bump(&self.counters.in_bad_rpcs);
    }

    /// Counts a reply holding rpc-errors.
    pub fn count_error_reply(&self) {
        bump(&self.counters.out_rpc_errors);
    }

    /// Counts a notification sent.
    pub fn count_notification(&self) {
        bump(&self.counters.out_notifications);
    }

    /// Counts a notification withheld by access control.
    pub fn count_denied_notification(&self) {
        bump(&self.counters.denied_notifications);
    }

    /// The backend running RPC (`ns`, `name`), if any.
    pub(crate) fn rpc_backend(&self, ns: &str, name: &str) -> Option<&Arc<dyn Backend>> {
        let i = *self.rpc_owners.get(&(ns.to_string(), name.to_string()))?;
        self.backends.get(i).map(|b| &b.backend)
    }

    /// Every backend.
    pub(crate) fn backends(&self) -> impl Iterator<Item = &Arc<dyn Backend>> {
        self.backends.iter().map(|b| &b.backend)
    }
}
