//! `<lock>` and `<unlock>` (RFC 6241 §7.5, §7.6), decided under the writer mutex, and the
//! lock check every change makes.

use std::sync::Arc;
use std::time::SystemTime;

use super::transaction::store_error;
use super::{Engine, Lock, Mode, WriteGuard};
use crate::datastore::DatastoreName;
use crate::engine::monitoring::LockView;
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};

/// In-use (protocol): `ds` is locked by session `holder`.
pub fn in_use(ds: DatastoreName, holder: u32) -> RpcError {
    RpcError::new(ErrorTag::InUse, ErrorType::Protocol)
        .with_message(format!(
            "The {} datastore is locked by session {holder}; wait for it to unlock or kill that session.",
            ds.as_str()
        ))
        .with_info(ErrorInfo::SessionId(holder))
}

impl Engine {
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
    pub fn lock(&self, mode: Mode<'_>, ds: DatastoreName, me: u32) -> Result<(), RpcError> {
        let _w = self.request_write(mode).ok_or_else(|| {
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
    pub fn unlock(
        self: &Arc<Self>,
        mode: Mode<'_>,
        ds: DatastoreName,
        me: u32,
    ) -> Result<(), RpcError> {
        // The writer mutex first (for the candidate's discard), so that a request running
        // inline that cannot have it stops before releasing anything.
        let _w = self.request_write(mode).ok_or_else(|| {
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
}
