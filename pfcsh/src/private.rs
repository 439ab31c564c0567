//! `configure private` and `configure exclusive`. pfcd has one shared candidate, so a private
//! candidate is kept in pfcsh: `set` and `delete` are checked against the schema and kept as
//! edits; `show | compare`, `commit check` and `commit` apply them to the candidate under a
//! lock (lock, candidate equal to running, edit, then compare, validate or commit, discard,
//! unlock), so that two operators in private mode never see or commit each other's edits.
//! `configure exclusive` holds the candidate's lock for as long as configuration mode lasts.

use netconf_client::Datastore;

use crate::rpc_error::sentence;
use crate::session::{Kind, Session};

impl Session {
    /// `configure private`.
    pub(crate) fn enter_private(&mut self) {
        self.kind = Kind::Private(Vec::new());
        self.say(
            "Entering configuration mode with a private candidate: your edits stay in pfcsh, \
             unseen by other sessions, until `commit` applies them under a lock; `exit` leaves it",
        );
    }

    /// `configure exclusive`.
    pub(crate) fn enter_exclusive(&mut self) -> Result<(), String> {
        self.client.lock(Datastore::Candidate).map_err(|e| {
            format!(
                "{}: another session is configuring exclusively or its changes are not \
                 committed; try `configure private`",
                sentence("configure exclusive", &e)
            )
        })?;
        self.kind = Kind::Exclusive;
        self.say(
            "Entering configuration mode with the candidate locked: no other session can \
             commit until you `exit`",
        );
        Ok(())
    }

    /// Leaving configuration mode: private edits are dropped; an exclusive session throws its
    /// uncommitted changes away and releases the lock.
    pub(crate) fn leave_kind(&mut self) {
        if self.kind == Kind::Exclusive {
            if self.dirty {
                let _ = self.client.discard_changes();
                self.dirty = false;
            }
            let _ = self.client.unlock(Datastore::Candidate);
        }
        self.kind = Kind::Shared;
    }

    /// The private edits, when in private mode.
    pub(crate) fn private_edits(&mut self) -> Option<&mut Vec<String>> {
        match &mut self.kind {
            Kind::Private(edits) => Some(edits),
            _ => None,
        }
    }

    /// Runs `f` on the candidate made of running and this session's private edits, under the
    /// candidate's lock; the candidate is discarded and unlocked afterwards, whatever happened.
    pub(crate) fn with_private<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut Session) -> Result<T, String>,
    ) -> Result<T, String> {
        let edits = self.private_edits().cloned().unwrap_or_default();
        self.client.lock(Datastore::Candidate).map_err(|e| {
            format!(
                "{}: the candidate is locked by another session, or holds its uncommitted \
                 changes; try again when it has committed or discarded them",
                sentence(what, &e)
            )
        })?;
        let result = self.apply_private(what, &edits).and_then(|()| f(self));
        let _ = self.client.discard_changes();
        let _ = self.client.unlock(Datastore::Candidate);
        result
    }

    fn apply_private(&mut self, what: &str, edits: &[String]) -> Result<(), String> {
        let running = self.config_lines(Datastore::Running)?;
        if self.config_lines(Datastore::Candidate)? != running {
            return Err(format!(
                "{what}: the shared candidate holds another session's uncommitted changes; a \
                 private candidate applies only yours, so it waits until they are committed or \
                 discarded"
            ));
        }
        for xml in edits {
            self.client
                .edit_config(Datastore::Candidate, xml, None)
                .map_err(|e| sentence(what, &e))?;
        }
        Ok(())
    }
}
