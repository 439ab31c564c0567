//! A pending confirmed commit (RFC 6241 §8.4): its record, its time-out, its rollback,
//! `<cancel-commit>`, and the RFC 6470 confirmed-commit notifications.

use std::sync::Arc;
use std::time::Duration;

use tracing::{error, info};

use super::{Engine, Mode, RunningWrite, SessionCtx, WriteGuard};
use crate::backend::Origin;
use crate::datastore::{Snapshot, CONFIRMED_BACKUP};
use crate::notify::NC_NOTIFICATIONS_NS;
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use netconf_proto::xml::Element;

#[derive(Debug, Clone)]
pub(crate) struct Confirmed {
    pub(crate) session: u32,
    /// The issuing session (it may have ended since).
    pub(crate) issuer: SessionCtx,
    pub(crate) persist: Option<String>,
    pub(crate) backup: Arc<Snapshot>,
    pub(crate) generation: u64,
}

impl Engine {
    /// The pending confirmed commit, if any.
    pub(crate) fn confirmed(&self) -> Option<Confirmed> {
        self.lock_state().confirmed.clone()
    }

    /// Records a pending confirmed commit and starts its timer; returns its generation.
    pub(super) fn arm_confirmed(
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
        mode: Mode<'_>,
        persist_id: Option<String>,
    ) -> Result<(), RpcError> {
        let w = self.writer(ctx, mode)?;
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

    /// RFC 6470 netconf-confirmed-commit; the session parameters are those of the session
    /// that caused the event (none for a time-out).
    pub(super) fn publish_confirmed_event(
        &self,
        event: &str,
        by: Option<&SessionCtx>,
        timeout: Option<u64>,
    ) {
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
}
