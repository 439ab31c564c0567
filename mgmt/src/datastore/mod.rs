//! The configuration datastores running, candidate and startup: validated against the schema
//! on every change, persisted in sled ([`store`]), with an atomic commit.
//!
//! At start the startup configuration (if any was saved) becomes running, and candidate
//! starts as a copy of running.

pub mod store;

use std::path::Path;
use std::sync::Arc;

use thiserror::Error;

pub use store::{DatastoreName, Store, StoreError};

use crate::schema::{Schema, SchemaError};

/// Why a datastore operation failed.
#[derive(Debug, Error)]
pub enum DatastoreError {
    /// The configuration does not conform to the schema (nothing was changed).
    #[error(transparent)]
    Invalid(#[from] SchemaError),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The datastores of one server.
#[derive(Debug)]
pub struct Datastores {
    schema: Arc<Schema>,
    store: Store,
}

// ===== impl Datastores =====

impl Datastores {
    /// Opens the datastores in `dir` and loads startup into running (and candidate). A saved
    /// startup that no longer validates (the schema changed) stops the start: nothing is
    /// overwritten.
    pub fn open(dir: &Path, schema: Arc<Schema>) -> Result<Datastores, DatastoreError> {
        let store = Store::open(dir)?;
        let this = Datastores { schema, store };
        let startup = this.store.read(DatastoreName::Startup)?;
        let running = match startup {
            Some(xml) => this.schema.canonical_config(&xml)?,
            None => {
                let running = this.store.read(DatastoreName::Running)?.unwrap_or_default();
                this.schema.canonical_config(&running)?
            }
        };
        this.store.write_all(&[
            (DatastoreName::Running, &running),
            (DatastoreName::Candidate, &running),
        ])?;
        Ok(this)
    }

    /// The schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The canonical XML of `ds` (empty if it holds nothing).
    pub fn get(&self, ds: DatastoreName) -> Result<String, DatastoreError> {
        Ok(self.store.read(ds)?.unwrap_or_default())
    }

    /// Validates `xml` as a complete configuration and makes it the content of `ds`.
    pub fn replace(&self, ds: DatastoreName, xml: &str) -> Result<(), DatastoreError> {
        let canonical = self.schema.canonical_config(xml)?;
        self.store.write(ds, &canonical)?;
        Ok(())
    }

    /// Copies `from` into `to` (copy-config between datastores).
    pub fn copy(&self, from: DatastoreName, to: DatastoreName) -> Result<(), DatastoreError> {
        let xml = self.get(from)?;
        let canonical = self.schema.canonical_config(&xml)?;
        self.store.write(to, &canonical)?;
        Ok(())
    }

    /// Validates the candidate and makes it running, atomically on disk; the previous running
    /// is kept for rollback. On a validation error nothing changes.
    pub fn commit(&self) -> Result<(), DatastoreError> {
        let candidate = self.get(DatastoreName::Candidate)?;
        let canonical = self.schema.canonical_config(&candidate)?;
        self.store.commit(&canonical)?;
        Ok(())
    }

    /// Resets the candidate to running (discard-changes).
    pub fn discard_changes(&self) -> Result<(), DatastoreError> {
        let running = self.get(DatastoreName::Running)?;
        self.store.write(DatastoreName::Candidate, &running)?;
        Ok(())
    }

    /// The running configuration before the last commit.
    pub fn rollback_copy(&self) -> Result<Option<String>, DatastoreError> {
        Ok(self.store.read_rollback()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ModuleSpec;

    const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
    const IANA: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";

    fn schema() -> Arc<Schema> {
        Arc::new(
            Schema::new(
                &[],
                &[ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])],
            )
            .expect("schema"),
        )
    }

    fn interface(name: &str) -> String {
        format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>{name}</name>\
             <type xmlns:ianaift=\"{IANA}\">ianaift:ethernetCsmacd</type></interface></interfaces>"
        )
    }

    #[test]
    fn edit_candidate_commit_and_discard() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(dir.path(), schema()).expect("open");
        assert_eq!(ds.get(DatastoreName::Running).expect("get"), "");
        ds.replace(DatastoreName::Candidate, &interface("eth0")).expect("valid");
        assert_eq!(ds.get(DatastoreName::Running).expect("get"), "", "not committed yet");
        ds.commit().expect("commit");
        assert!(ds.get(DatastoreName::Running).expect("get").contains("eth0"));
        assert_eq!(ds.rollback_copy().expect("rollback").as_deref(), Some(""));

        ds.replace(DatastoreName::Candidate, &interface("eth1")).expect("valid");
        ds.discard_changes().expect("discard");
        assert!(ds.get(DatastoreName::Candidate).expect("get").contains("eth0"));
    }

    #[test]
    fn invalid_data_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(dir.path(), schema()).expect("open");
        ds.replace(DatastoreName::Candidate, &interface("eth0")).expect("valid");
        let before = ds.get(DatastoreName::Candidate).expect("get");
        let bad = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>x</name></interface></interfaces>"
        );
        assert!(matches!(
            ds.replace(DatastoreName::Candidate, &bad),
            Err(DatastoreError::Invalid(_))
        ));
        assert_eq!(ds.get(DatastoreName::Candidate).expect("get"), before);
    }

    #[test]
    fn startup_becomes_running_at_start_and_everything_persists() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let ds = Datastores::open(dir.path(), schema()).expect("open");
            ds.replace(DatastoreName::Running, &interface("eth0")).expect("valid");
            ds.copy(DatastoreName::Running, DatastoreName::Startup).expect("save");
            ds.replace(DatastoreName::Running, &interface("eth9")).expect("valid, not saved");
        }
        let ds = Datastores::open(dir.path(), schema()).expect("reopen");
        let running = ds.get(DatastoreName::Running).expect("get");
        assert!(running.contains("eth0") && !running.contains("eth9"), "{running}");
        assert_eq!(ds.get(DatastoreName::Candidate).expect("get"), running);
    }

    #[test]
    fn without_startup_running_is_kept_across_restarts() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let ds = Datastores::open(dir.path(), schema()).expect("open");
            ds.replace(DatastoreName::Candidate, &interface("eth3")).expect("valid");
            ds.commit().expect("commit");
        }
        let ds = Datastores::open(dir.path(), schema()).expect("reopen");
        assert!(ds.get(DatastoreName::Running).expect("get").contains("eth3"));
    }
}
