//! The one writer mutex every change takes, and how a request takes it in each [`Mode`]:
//! waited for on a blocking thread, awaited on the session's task, try-locked inline; a change
//! also checks there that its session still lives and that no other session holds a lock on
//! what it changes.
//!
//! `Mode` is the engine's own, passed down with a request from the session: the engine and the
//! operations take one without importing the session's judge of which requests run on its task
//! (`session/inline.rs`, DECISIONS.md "Where operations run").

use std::cell::Cell;
use std::sync::{MutexGuard, TryLockError};

use super::{Engine, SessionCtx};
use crate::datastore::DatastoreName;
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};

/// The largest datastore (canonical text, in bytes) an inline request may read or change.
pub const MAX_DATASTORE: usize = 16 * 1024;

/// Where a request runs, and so how it takes the engine's writer mutex
/// (`Engine::writer`): passed down with the request from the session to the engine, so that
/// each call that may change something says in which mode it runs.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'a> {
    /// On a blocking thread: the writer mutex is locked, waiting if need be.
    Blocking,
    /// On the session's task (`inline::run`), without the writer mutex: it may only be try-locked.
    /// A request that cannot have it, or finds the datastores grown, stops before changing
    /// anything and records that in `stopped`; `inline::run` then returns `None`.
    Inline {
        /// Set by the request when it stopped.
        stopped: &'a Cell<bool>,
    },
    /// On the session's task (`inline::run_holding`), with the writer mutex its session took for
    /// the request.
    Holding(&'a WriteGuard<'a>),
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

impl Engine {
    /// The writer mutex, waiting for it: for the server's own changes and requests on a
    /// blocking thread ([`Mode::Blocking`]).
    pub(crate) fn lock_write(&self) -> WriteGuard<'_> {
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
    /// a light change on its own task (see `inline::run_holding`). Waiters are woken one at
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

    /// The writer mutex for a request running in `mode`: waited for on a blocking thread;
    /// the one its session holds; or, inline without it, only if it is free and the
    /// datastores are still small (`None`: the request has recorded that it stops before
    /// changing anything, see `inline::run`).
    pub(super) fn request_write(&self, mode: Mode<'_>) -> Option<WriteGuard<'_>> {
        match mode {
            Mode::Blocking => Some(self.lock_write()),
            Mode::Holding(held) => {
                debug_assert!(std::ptr::eq(held.engine, self), "the mutex held is this engine's");
                Some(WriteGuard { guard: None, engine: self })
            }
            Mode::Inline { stopped } => {
                let guard = self.try_lock_write().filter(|_| small_for_changes(self));
                if guard.is_none() {
                    stopped.set(true);
                }
                guard
            }
        }
    }

    /// Whether a change holds the writer mutex at this moment.
    pub fn writer_busy(&self) -> bool {
        matches!(self.write.try_lock(), Err(TryLockError::WouldBlock))
    }

    /// The writer mutex for a change by session `ctx` to `targets`, refused if another
    /// session holds a lock on one of them (`in-use`) or the session has ended meanwhile.
    /// The locks are looked at with the mutex held: `<lock>` is decided under the same mutex
    /// (see [`Engine::lock`]), so a lock is never granted while a change it would forbid is
    /// in progress, and no change starts under a lock granted to another session.
    pub(crate) fn writer_for(
        &self,
        ctx: &SessionCtx,
        mode: Mode<'_>,
        targets: &[DatastoreName],
    ) -> Result<WriteGuard<'_>, RpcError> {
        let guard = self.writer(ctx, mode)?;
        for &ds in targets {
            self.check_unlocked(&guard, ds, ctx.id)?;
        }
        Ok(guard)
    }

    /// The writer mutex for a change by session `ctx`, refused if the session has ended
    /// meanwhile (killed while its request waited or ran: RFC 6241 §7.9 aborts it).
    pub(crate) fn writer(
        &self,
        ctx: &SessionCtx,
        mode: Mode<'_>,
    ) -> Result<WriteGuard<'_>, RpcError> {
        let guard = self.request_write(mode).ok_or_else(|| {
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
}

/// Whether the datastores a change may touch (running, candidate) are small enough for
/// inline work.
pub(crate) fn small_for_changes(engine: &Engine) -> bool {
    let ds = engine.datastores();
    ds.size(DatastoreName::Running) <= MAX_DATASTORE
        && ds.size(DatastoreName::Candidate) <= MAX_DATASTORE
}
