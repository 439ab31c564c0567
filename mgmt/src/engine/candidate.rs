//! Who changed the candidate since the last commit or discard, and its reset to running.

use super::Engine;
use crate::datastore::DatastoreError;

impl Engine {
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
}
