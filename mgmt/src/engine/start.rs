//! Opening the engine: the datastores, the backends given the start-up configuration as
//! one transaction, the first start's administrator and initial configuration, and on a later
//! start the administrator's access given back (`--admin`, `admin_access`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use tracing::{info, warn};

use super::transaction::store_error;
use super::{
    BackendEntry, Counters, Engine, EngineConfig, EngineError, RunningWrite, State, WriteGuard,
};
use crate::access::admin_access::{self, RECOVERY};
use crate::access::nacm::{self, Nacm};
use crate::backend::{Backend, Origin};
use crate::datastore::{DatastoreError, DatastoreName, Datastores, Snapshot, INITIALISED};
use crate::engine::monitoring;
use crate::notify::Bus;
use crate::protocol::sessions::Registry;
use crate::yang::data;
use crate::yang::edit::{self, ErrorOption, Op};
use crate::yang::schema::Schema;
use netconf_proto::xml::{self, Scope};

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
        let (ds, opened) = Datastores::open_with(dir, schema.clone(), &config.moved)?;
        if !opened.migrated.is_empty() {
            let mut names = opened.migrated.clone();
            names.sort_unstable();
            names.dedup();
            info!(
                nodes = opened.migrated.len(),
                names = %names.join(", "),
                "the stored configuration named data nodes in the modules they moved from: carried over to their new modules and stored so"
            );
        }
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
            restore_admin(&engine, user)?;
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
}

/// Gives `user` full access back if the stored configuration has taken it away: a group and
/// a rule-list named [`RECOVERY`] with one permit-all rule, put first
/// (`admin_access::recovery_edits`). Logged as a warning; nothing happens when the user
/// already has full access.
fn restore_admin(engine: &Engine, user: &str) -> Result<(), EngineError> {
    if admin_access::full_access(&engine.acl(user)) {
        return Ok(());
    }
    let writer: WriteGuard<'_> = engine.lock_write();
    let running = engine.datastores().snapshot(DatastoreName::Running);
    let mut root = running.root.clone();
    let model = engine.schema.model();
    for text in admin_access::recovery_edits(user) {
        let config =
            xml::parse(text.as_bytes()).map_err(|e| EngineError::Recovery(e.to_string()))?;
        let mut scope = Scope::new();
        scope.enter(&config);
        let errors =
            edit::apply(model, &mut root, &config, &scope, Op::Merge, ErrorOption::StopOnError);
        if let Some(e) = errors.first() {
            return Err(EngineError::Recovery(e.to_string()));
        }
    }
    let snap = engine
        .datastores()
        .check(&data::data_text(&root), true)
        .map_err(|e| EngineError::Recovery(e.to_string()))?;
    let origin = Origin { session_id: None, user: None };
    engine
        .set_running(snap, &origin, RunningWrite::Running, &[])
        .map_err(|e| EngineError::Recovery(e.to_string()))?;
    drop(writer);
    warn!(
        user,
        "the stored access rules denied the administrator named by --admin: restored full \
         access with NACM group and rule-list '{RECOVERY}' (first rule-list)"
    );
    Ok(())
}
