//! A new running configuration: the backends' transaction around storing it, access control
//! of a commit, the administrator's own access, the NACM refresh and the config-change
//! notification.

use std::sync::Arc;

use super::{bump, Engine};
use crate::access::admin_access;
use crate::access::nacm;
use crate::backend::{BackendError, Origin, Transaction};
use crate::datastore::{DatastoreError, DatastoreName, Snapshot};
use crate::notify::NC_NOTIFICATIONS_NS;
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::yang::data::{self, ChangeOp, DataPath};
use netconf_proto::xml::Element;

pub(super) fn store_error(e: &DatastoreError) -> RpcError {
    RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
        .with_message(format!("The configuration could not be stored ({e}); nothing was changed."))
}

fn backend_error(model: &crate::yang::model::Model, name: &str, e: &BackendError) -> RpcError {
    let mut err = RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
        .with_message(format!("{} (refused by {name})", e.message));
    err.app_tag = e.app_tag.clone();
    if let Some(p) = e.path.as_deref().and_then(|p| DataPath::parse_json(model, p)) {
        let (xpath, ns) = p.to_xpath();
        err = err.with_path(xpath, ns);
    }
    err
}

/// How a new running configuration is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunningWrite {
    /// Only running changes (edit-config or copy-config on running).
    Running,
    /// A commit: candidate becomes the same, the old running is kept for rollback.
    Commit,
}

impl Engine {
    /// The backends' transactions for a change from `old` to `new`: one per backend the
    /// changes touch, with its own changes.
    fn transactions<'a>(
        &self,
        old: &'a Element,
        new: &'a Element,
        changes: &'a [data::Change<'a>],
        origin: &'a Origin,
    ) -> Vec<(usize, Transaction<'a>)> {
        let mut txs = Vec::new();
        for (i, b) in self.backends.iter().enumerate() {
            let mine: Vec<&data::Change<'_>> = changes
                .iter()
                .filter(|c| c.namespaces().iter().any(|ns| b.namespaces.contains(*ns)))
                .collect();
            if !mine.is_empty() {
                txs.push((i, Transaction { old, new, changes: mine, origin }));
            }
        }
        txs
    }

    /// Prepares every transaction of `txs`; on the first refusal the ones prepared before it
    /// are aborted and the refusal returned, with the refusing backend's name.
    fn prepare_all(&self, txs: &[(usize, Transaction<'_>)]) -> Result<(), (String, RpcError)> {
        for (prepared, (i, tx)) in txs.iter().enumerate() {
            let Some(b) = self.backends.get(*i) else { continue };
            if let Err(e) = b.backend.prepare(tx) {
                self.abort_all(txs.iter().take(prepared));
                let name = b.backend.name().to_string();
                return Err((name.clone(), backend_error(self.schema.model(), &name, &e)));
            }
        }
        Ok(())
    }

    fn abort_all<'a, 't: 'a>(&self, txs: impl Iterator<Item = &'a (usize, Transaction<'t>)>) {
        for (j, tx) in txs {
            if let Some(b) = self.backends.get(*j) {
                b.backend.abort(tx);
            }
        }
    }

    /// Runs the backends' transaction around `store`: prepare on every backend the changes
    /// touch, store, then apply (or abort if anything failed).
    pub(super) fn run_transaction(
        &self,
        old: &Element,
        new: &Element,
        changes: &[data::Change<'_>],
        origin: &Origin,
        store: impl FnOnce() -> Result<(), RpcError>,
    ) -> Result<(), (String, RpcError)> {
        let txs = self.transactions(old, new, changes, origin);
        self.prepare_all(&txs)?;
        if let Err(e) = store() {
            self.abort_all(txs.iter());
            return Err(("storage".into(), e));
        }
        for (i, tx) in &txs {
            if let Some(b) = self.backends.get(*i) {
                b.backend.apply(tx);
            }
        }
        Ok(())
    }

    /// What a commit checks beyond the schema before it stores `new` as running: the
    /// committer's write access to what changes, that the change leaves the committer their
    /// own access, and every backend's `prepare` (aborted at once, nothing applied).
    /// `<validate>` runs it too, so that a pre-flight finds what the commit would refuse
    /// (RFC 6241 §8.6). The writer mutex must be held: backends prepare one transaction at a
    /// time.
    ///
    /// Without `access` (an inline document validated, which nobody writes yet), only the
    /// backends' `prepare`.
    pub(crate) fn check_content(
        &self,
        new: &Snapshot,
        origin: &Origin,
        access: bool,
    ) -> Result<(), RpcError> {
        let old = self.ds.snapshot(DatastoreName::Running);
        let changes = data::diff(self.schema.model(), &old.root, &new.root);
        if access {
            // Not counted as a denied write: nothing was written.
            if let Some(user) = origin.user.as_deref() {
                self.acl(user).check_write(self.schema.model(), &changes)?;
            }
            self.check_keeps_own_access(origin, &new.root, &changes)?;
        }
        let txs = self.transactions(&old.root, &new.root, &changes, origin);
        self.prepare_all(&txs).map_err(|(_, e)| e)?;
        self.abort_all(txs.iter());
        Ok(())
    }

    /// Access control of a change of running: a commit is checked as the committing user's
    /// own write (a shared candidate may hold other users' changes: DECISIONS.md, "Nobody
    /// locks the administrator out"), and no change may take full access away from the user
    /// who makes it.
    fn check_access(
        &self,
        how: RunningWrite,
        origin: &Origin,
        new: &Element,
        changes: &[data::Change<'_>],
    ) -> Result<(), RpcError> {
        if let (RunningWrite::Commit, Some(user)) = (how, origin.user.as_deref()) {
            if let Err(e) = self.acl(user).check_write(self.schema.model(), changes) {
                bump(&self.counters.denied_data_writes);
                return Err(e);
            }
        }
        self.check_keeps_own_access(origin, new, changes)
    }

    fn check_keeps_own_access(
        &self,
        origin: &Origin,
        new: &Element,
        changes: &[data::Change<'_>],
    ) -> Result<(), RpcError> {
        admin_access::check_keeps_own_access(
            self.schema.model(),
            |user| self.acl(user),
            origin,
            new,
            changes,
        )
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
        self.check_access(how, origin, &new.root, &changes)?;
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
}
