//! `<commit>` (RFC 6241 §8.3.4.1): the candidate validated and made running, and the
//! confirmed-commit parameters of a commit (§8.4.5.1).

use std::sync::Arc;
use std::time::Duration;

use super::{schema_error, Engine, Mode, RunningWrite, SessionCtx};
use crate::backend::Origin;
use crate::datastore::{DatastoreName, CONFIRMED_BACKUP};
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};

impl Engine {
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
        mode: Mode<'_>,
        confirmed: bool,
        timeout: Duration,
        persist: Option<String>,
        persist_id: Option<String>,
    ) -> Result<(), RpcError> {
        let origin = ctx.origin();
        let _w = self.writer_for(ctx, mode, &[DatastoreName::Running, DatastoreName::Candidate])?;
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
}
