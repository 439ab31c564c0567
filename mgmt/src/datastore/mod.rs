//! The configuration datastores running, candidate and startup: validated against the schema
//! on every change, persisted in sled ([`store`]), with an atomic commit.
//!
//! At start the startup configuration (if any was saved) becomes running, and candidate
//! starts as a copy of running.
//!
//! Files: `store.rs` (sled), `live.rs` (the validated libyang tree kept beside a snapshot),
//! `json.rs` (an edit fed to libyang as JSON), `explicit.rs` (a validated tree's explicit
//! nodes read from the tree itself), `when.rs` (nodes a change switched off by `when`:
//! deleted by the server, or refused).

mod explicit;
mod json;
pub mod live;
pub mod migrate;
pub mod store;
pub(crate) mod when;

use std::borrow::Cow;
use std::cell::OnceCell;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use thiserror::Error;

pub use store::{DatastoreName, Store, StoreError};

use crate::yang::data;
use crate::yang::schema::{Schema, SchemaError};
use crate::yang::yang_errors;
use live::{LiveSlot, LiveTree};
use netconf_proto::xml::Element;

/// The key of the running configuration saved before a confirmed commit that is not yet
/// confirmed: present at start means the server stopped before the confirmation, and running
/// goes back to it (RFC 6241 §8.4.1).
pub const CONFIRMED_BACKUP: &str = "confirmed-backup";
/// Set once the first start's initialisation (NACM administrator) is done.
pub const INITIALISED: &str = "initialised";

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

/// The content of a datastore at one moment: canonical text and its tree. Immutable; readers
/// hold an `Arc` and never wait for writers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// libyang's validated tree of this content, for the next edit to take
    /// ([`Datastores::check_edit`]); not part of the content.
    pub live: LiveSlot,
    /// The tree: a root element holding the top-level nodes.
    pub root: Element,
    /// The canonical XML (libyang's printing, explicit nodes only).
    pub xml: String,
    /// Whether the content passed full validation (every YANG constraint); a candidate edited
    /// with test-option `set` may not have.
    pub validated: bool,
}

impl Snapshot {
    /// An empty configuration.
    pub fn empty() -> Snapshot {
        Snapshot {
            root: data::root(),
            xml: String::new(),
            validated: true,
            live: LiveSlot::default(),
        }
    }

    fn from_canonical(
        xml: String,
        validated: bool,
        live: Option<LiveTree>,
    ) -> Result<Snapshot, SchemaError> {
        let root = data::parse_data(&xml).map_err(|e| SchemaError::Invalid {
            message: format!("the canonical data does not parse back: {e}"),
            path: None,
            app_tag: None,
            schema_path: None,
        })?;
        Ok(Snapshot { root, xml, validated, live: LiveSlot::new(live) })
    }
}

/// A configuration in canonical form: its text, its element tree if it was read from the
/// validated libyang tree (otherwise the text is parsed), and that tree if kept.
struct Canonical {
    xml: String,
    read: Option<Element>,
    live: Option<LiveTree>,
}

/// A configuration to check: its text, or a normalized element tree, written as text only
/// where libyang must read XML (the tree's own text is not needed when libyang's validated
/// tree is read back: that is the canonical tree).
enum Source<'a> {
    Text(&'a str),
    /// The tree, and its text once written.
    Tree(&'a Element, OnceCell<String>),
}

impl<'a> Source<'a> {
    fn text(&self) -> &str {
        match self {
            Source::Text(t) => t,
            Source::Tree(root, written) => written.get_or_init(|| data::data_text(root)),
        }
    }

    /// The text, written now if it was not yet.
    fn into_text(self) -> Cow<'a, str> {
        match self {
            Source::Text(t) => Cow::Borrowed(t),
            Source::Tree(root, written) => {
                Cow::Owned(written.into_inner().unwrap_or_else(|| data::data_text(root)))
            }
        }
    }
}

impl Canonical {
    fn snapshot(self, validated: bool) -> Result<Snapshot, SchemaError> {
        match self.read {
            Some(root) => {
                Ok(Snapshot { root, xml: self.xml, validated, live: LiveSlot::new(self.live) })
            }
            None => Snapshot::from_canonical(self.xml, validated, self.live),
        }
    }
}

/// What opening found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Opened {
    /// Nothing was ever initialised here: a first start.
    pub first_start: bool,
    /// A confirmed commit was pending when the server stopped; running was restored.
    pub restored_confirmed: bool,
    /// The data nodes a stored configuration named in their old module, rewritten to their
    /// new one ([`migrate::Moved`]), once per element.
    pub migrated: migrate::Rewritten,
}

/// The datastores of one server.
#[derive(Debug)]
pub struct Datastores {
    schema: Arc<Schema>,
    store: Store,
    running: RwLock<Arc<Snapshot>>,
    candidate: RwLock<Arc<Snapshot>>,
    startup: RwLock<Option<Arc<Snapshot>>>,
    /// The byte length of each datastore's canonical text (running, candidate, startup), kept
    /// with every change: what deciding whether an operation is light reads instead of the
    /// snapshots' locks.
    sizes: [AtomicUsize; 3],
    /// How many edits were validated on the kept libyang tree ([`live`]).
    in_place: AtomicU64,
}

fn read<T: Clone>(l: &RwLock<T>) -> T {
    l.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
}

fn write<T>(l: &RwLock<T>, v: T) {
    *l.write().unwrap_or_else(std::sync::PoisonError::into_inner) = v;
}

fn slot(ds: DatastoreName) -> usize {
    match ds {
        DatastoreName::Running => 0,
        DatastoreName::Candidate => 1,
        DatastoreName::Startup => 2,
    }
}

// ===== impl Datastores =====

/// The shortest text an element can have, `<a/>`, in octets.
const SHORTEST_ELEMENT: usize = 4;

impl Datastores {
    /// Opens the datastores in `dir`: startup (if saved) becomes running; otherwise running
    /// is kept, except that a confirmed commit left unconfirmed is undone. Candidate starts as
    /// running. A saved configuration that no longer validates (the schema changed) stops
    /// the start: nothing is overwritten.
    pub fn open(dir: &Path, schema: Arc<Schema>) -> Result<Datastores, DatastoreError> {
        Self::open_with(dir, schema, &[]).map(|(d, _)| d)
    }

    /// Like [`Datastores::open`], also saying what was found; a stored configuration naming
    /// a node of `moves` in its old module is carried over to the new one (and stored so).
    pub fn open_with(
        dir: &Path,
        schema: Arc<Schema>,
        moves: &[migrate::Moved],
    ) -> Result<(Datastores, Opened), DatastoreError> {
        let store = Store::open(dir)?;
        let mut opened = Opened {
            first_start: store.read_key(INITIALISED)?.is_none(),
            restored_confirmed: false,
            migrated: Vec::new(),
        };
        let mut migrated = Vec::new();
        let mut carry_over = |text: String| migrate::carry_over(text, moves, &mut migrated);
        let startup = match store.read(DatastoreName::Startup)?.map(&mut carry_over) {
            Some(xml) => Some(Arc::new(Snapshot::from_canonical(
                schema.canonical_config(&xml)?,
                true,
                None,
            )?)),
            None => None,
        };
        let backup = store.read_key(CONFIRMED_BACKUP)?.map(&mut carry_over);
        let running_text = match (&startup, backup) {
            (Some(s), _) => s.xml.clone(),
            (None, Some(b)) => {
                opened.restored_confirmed = true;
                b
            }
            (None, None) => {
                store.read(DatastoreName::Running)?.map(&mut carry_over).unwrap_or_default()
            }
        };
        let running = Arc::new(Snapshot::from_canonical(
            schema.canonical_config(&running_text)?,
            true,
            None,
        )?);
        // The candidate lives in memory only: it starts as running at every start, so storing
        // it would cost a disk write per edit for nothing (a key left by older versions goes).
        opened.migrated = migrated;
        if let Some(s) = startup.as_ref().filter(|_| !opened.migrated.is_empty()) {
            store.apply(&[(DatastoreName::Startup.as_str(), Some(&s.xml))])?;
        }
        store.apply(&[
            (DatastoreName::Running.as_str(), Some(&running.xml)),
            (DatastoreName::Candidate.as_str(), None),
            (store::OLD_ROLLBACK, None),
            (CONFIRMED_BACKUP, None),
        ])?;
        let len = running.xml.len();
        let sizes = [len, len, startup.as_ref().map_or(0, |s| s.xml.len())].map(AtomicUsize::new);
        let this = Datastores {
            schema,
            store,
            candidate: RwLock::new(running.clone()),
            running: RwLock::new(running),
            startup: RwLock::new(startup),
            sizes,
            in_place: AtomicU64::new(0),
        };
        Ok((this, opened))
    }

    /// The schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The storage.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The current content of `ds` (startup: empty if it was never saved or was deleted).
    pub fn snapshot(&self, ds: DatastoreName) -> Arc<Snapshot> {
        match ds {
            DatastoreName::Running => read(&self.running),
            DatastoreName::Candidate => read(&self.candidate),
            DatastoreName::Startup => {
                read(&self.startup).unwrap_or_else(|| Arc::new(Snapshot::empty()))
            }
        }
    }

    /// The byte length of the canonical text of `ds` (0: empty, or no startup): a cheap
    /// measure of what working on it costs (no lock is taken).
    pub fn size(&self, ds: DatastoreName) -> usize {
        self.sizes[slot(ds)].load(Ordering::Relaxed)
    }

    /// Makes `snap` the content of `ds`.
    fn set(&self, ds: DatastoreName, snap: Arc<Snapshot>) {
        self.sizes[slot(ds)].store(snap.xml.len(), Ordering::Relaxed);
        match ds {
            DatastoreName::Running => write(&self.running, snap),
            DatastoreName::Candidate => write(&self.candidate, snap),
            DatastoreName::Startup => write(&self.startup, Some(snap)),
        }
    }

    /// Whether a startup configuration exists.
    pub fn has_startup(&self) -> bool {
        read(&self.startup).is_some()
    }

    /// The canonical XML of `ds` (empty if it holds nothing).
    pub fn get(&self, ds: DatastoreName) -> Result<String, DatastoreError> {
        Ok(self.snapshot(ds).xml.clone())
    }

    /// Validates `xml` as a complete configuration (`full`: every YANG constraint; otherwise
    /// only what parsing checks) and returns it in canonical form with its tree.
    pub fn check(&self, xml: &str, full: bool) -> Result<Snapshot, SchemaError> {
        self.canonical(&Source::Text(xml), full)?.snapshot(full)
    }

    /// libyang's canonical text of `source`, its element tree when read from libyang's tree
    /// ([`explicit`]), and its validated tree when later edits can use it. Given a tree,
    /// libyang is fed its JSON when that says the same (`json.rs`).
    fn canonical(&self, source: &Source<'_>, full: bool) -> Result<Canonical, SchemaError> {
        self.canonical_unlocated(source, full).map_err(|e| self.located(e, source))
    }

    /// `e` with the data path libyang gave only as a schema path, found in `source`
    /// (`yang_errors::locate`).
    fn located(&self, mut e: SchemaError, source: &Source<'_>) -> SchemaError {
        if !yang_errors::needs_tree(&e) {
            return e;
        }
        let parsed;
        let root = match source {
            Source::Tree(root, _) => *root,
            Source::Text(text) => match data::parse_data(text) {
                Ok(root) => {
                    parsed = root;
                    &parsed
                }
                Err(_) => return e,
            },
        };
        yang_errors::locate(self.schema.model(), &mut e, root);
        e
    }

    fn canonical_unlocated(
        &self,
        source: &Source<'_>,
        full: bool,
    ) -> Result<Canonical, SchemaError> {
        let printed = |xml| Canonical { xml, read: None, live: None };
        if !full {
            return Ok(printed(self.schema.canonical_config_unvalidated(source.text())?));
        }
        if !self.schema.model().edits_in_place() {
            return Ok(printed(self.schema.canonical_config(source.text())?));
        }
        let tree = match source {
            Source::Tree(root, _) => Some(*root),
            Source::Text(_) => None,
        };
        let json = tree.and_then(|t| json::json_text(self.schema.model(), t));
        // A refusal is reported as the XML parse words it.
        let live = match json.map(|j| LiveTree::parse_json(&self.schema, &j)) {
            Some(Ok(live)) => {
                #[cfg(debug_assertions)]
                assert_eq!(
                    live.print().ok(),
                    LiveTree::parse(&self.schema, source.text()).and_then(|x| x.print()).ok(),
                    "the configuration's JSON parses to the tree its XML parses to"
                );
                live
            }
            _ => LiveTree::parse(&self.schema, source.text())?,
        };
        let Some(read) = live.explicit_elements() else {
            return Ok(Canonical { xml: live.print()?, read: None, live: Some(live) });
        };
        let xml = data::data_text(&read);
        #[cfg(debug_assertions)]
        {
            let printed = live.print()?;
            assert_eq!(
                xml, printed,
                "the explicit nodes read from the tree write as libyang prints them"
            );
            assert_eq!(
                data::parse_data(&printed).ok().as_ref(),
                Some(&read),
                "the explicit nodes read from the tree are what libyang's printing parses to"
            );
        }
        Ok(Canonical { xml, read: Some(read), live: Some(live) })
    }

    /// Like [`Datastores::check`] for an edited tree. The canonical tree is the one read
    /// back from libyang's validated tree when there is one; otherwise, when libyang's
    /// canonical text is the text of the tree itself (an edit that changed values in place,
    /// as most small edits do), the tree, put in the form parsing gives: it is not parsed
    /// back from the text. Debug builds check that the two are the same.
    pub fn check_tree(&self, mut root: Element, full: bool) -> Result<Snapshot, SchemaError> {
        data::normalize(&mut root);
        let source = Source::Tree(&root, OnceCell::new());
        let canonical = self.canonical(&source, full)?;
        if canonical.read.is_some() {
            return canonical.snapshot(full);
        }
        let text = source.into_text();
        if canonical.xml != text || !data::is_plain(&root) {
            return canonical.snapshot(full);
        }
        let Canonical { xml: canonical, live, .. } = canonical;
        debug_assert_eq!(
            Some(&root),
            data::parse_data(&canonical).ok().as_ref(),
            "an edited tree in normal form parses back from its own text"
        );
        Ok(Snapshot { root, xml: canonical, validated: full, live: LiveSlot::new(live) })
    }

    /// Like [`Datastores::check_tree`] for `root`, an edited copy of `base`'s tree. When
    /// `base` still has its libyang tree, the edit is applied to that tree instead of the
    /// whole text being parsed again ([`live`]); the result is the same, which debug builds
    /// check. `base` gives its tree away. `edit_elements`, the elements in the edit's content,
    /// tells a large edit of a small configuration without comparing the two trees.
    pub fn check_edit(
        &self,
        base: &Snapshot,
        mut root: Element,
        full: bool,
        edit_elements: usize,
    ) -> Result<Snapshot, SchemaError> {
        // An empty base: the whole edit is new, and the fresh parse costs no more. Nor does it
        // when the edit's elements alone, at the shortest text an element can have (`<a/>`),
        // would make more than half the base's text: the pieces to merge would be as much to
        // parse as the whole configuration, and `live::edit_in_place` would find that only
        // after comparing the trees and writing the pieces out.
        let small = edit_elements.saturating_mul(2 * SHORTEST_ELEMENT) <= base.xml.len();
        let live = if full && small && base.validated && !base.xml.is_empty() {
            base.live.take()
        } else {
            None
        };
        let Some(mut live) = live else { return self.check_tree(root, full) };
        data::normalize(&mut root);
        #[cfg(debug_assertions)]
        let edited = root.clone();
        let model = self.schema.model();
        if live::edit_in_place(model, &base.root, base.xml.len(), &mut root, &mut live).is_none() {
            return self.check_tree(root, full);
        }
        self.in_place.fetch_add(1, Ordering::Relaxed);
        let xml = data::data_text(&root);
        let snap = Snapshot { root, xml, validated: true, live: LiveSlot::new(Some(live)) };
        #[cfg(debug_assertions)]
        {
            let fresh = self.check_tree(edited, true);
            assert_eq!(
                fresh.as_ref().ok(),
                Some(&snap),
                "an edit applied to the kept libyang tree gives what a fresh parse gives: {fresh:?}"
            );
        }
        Ok(snap)
    }

    /// How many edits so far were validated on the kept libyang tree instead of by a fresh
    /// parse of the whole configuration.
    pub fn edits_in_place(&self) -> u64 {
        self.in_place.load(Ordering::Relaxed)
    }

    /// Stores a checked snapshot as the content of `ds` (with `extra` keys in the same
    /// transaction) and makes it current. The candidate is kept in memory only (it restarts
    /// as running), so for it only `extra` reaches the disk.
    pub fn store_snapshot(
        &self,
        ds: DatastoreName,
        snap: impl Into<Arc<Snapshot>>,
        extra: &[(&str, Option<&str>)],
    ) -> Result<Arc<Snapshot>, DatastoreError> {
        let snap: Arc<Snapshot> = snap.into();
        if ds == DatastoreName::Startup {
            // No edit-config targets startup: its libyang tree would only take memory.
            drop(snap.live.take());
        }
        let mut writes: Vec<(&str, Option<&str>)> = Vec::with_capacity(extra.len() + 1);
        if ds != DatastoreName::Candidate {
            writes.push((ds.as_str(), Some(&snap.xml)));
        }
        writes.extend_from_slice(extra);
        if !writes.is_empty() {
            self.store.apply(&writes)?;
        }
        self.set(ds, snap.clone());
        Ok(snap)
    }

    /// Makes `snap` running and candidate at once (a commit), with `extra` keys in the same
    /// transaction.
    pub fn store_commit(
        &self,
        snap: impl Into<Arc<Snapshot>>,
        extra: &[(&str, Option<&str>)],
    ) -> Result<Arc<Snapshot>, DatastoreError> {
        let snap: Arc<Snapshot> = snap.into();
        let mut writes: Vec<(&str, Option<&str>)> =
            vec![(DatastoreName::Running.as_str(), Some(&snap.xml))];
        writes.extend_from_slice(extra);
        self.store.apply(&writes)?;
        self.set(DatastoreName::Running, snap.clone());
        self.set(DatastoreName::Candidate, snap.clone());
        Ok(snap)
    }

    /// Deletes the startup configuration.
    pub fn delete_startup(&self) -> Result<(), DatastoreError> {
        self.store.apply(&[(DatastoreName::Startup.as_str(), None)])?;
        self.sizes[slot(DatastoreName::Startup)].store(0, Ordering::Relaxed);
        write(&self.startup, None);
        Ok(())
    }

    /// Validates `xml` as a complete configuration and makes it the content of `ds`.
    pub fn replace(&self, ds: DatastoreName, xml: &str) -> Result<(), DatastoreError> {
        let snap = self.check(xml, true)?;
        self.store_snapshot(ds, snap, &[])?;
        Ok(())
    }

    /// Copies `from` into `to` (copy-config between datastores).
    pub fn copy(&self, from: DatastoreName, to: DatastoreName) -> Result<(), DatastoreError> {
        let snap = self.check(&self.snapshot(from).xml, true)?;
        self.store_snapshot(to, snap, &[])?;
        Ok(())
    }

    /// Validates the candidate and makes it running, atomically on disk. On a validation
    /// error nothing changes.
    pub fn commit(&self) -> Result<(), DatastoreError> {
        let snap = self.check(&self.snapshot(DatastoreName::Candidate).xml, true)?;
        self.store_commit(snap, &[])?;
        Ok(())
    }

    /// Resets the candidate to running (discard-changes).
    pub fn discard_changes(&self) -> Result<(), DatastoreError> {
        let running = self.snapshot(DatastoreName::Running);
        self.set(DatastoreName::Candidate, running);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::schema::ModuleSpec;

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

        ds.replace(DatastoreName::Candidate, &interface("eth1")).expect("valid");
        ds.discard_changes().expect("discard");
        assert!(ds.get(DatastoreName::Candidate).expect("get").contains("eth0"));
    }

    /// An edited tree checked as a tree gives the same snapshot as its text checked and
    /// parsed back, whether or not libyang's canonical text is the tree's own.
    #[test]
    fn edited_trees_check_like_their_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(dir.path(), schema()).expect("open");
        let described = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>eth0</name><description>a</description>\
             <type xmlns:ianaift=\"{IANA}\">ianaift:ethernetCsmacd</type></interface></interfaces>"
        );
        let canonical = ds.check(&described, true).expect("valid");
        let mut cases = vec![canonical.root.clone()];
        // A value changed in place: the canonical text is the tree's own.
        let mut changed = canonical.root.clone();
        let iface = changed.elements_mut().next().and_then(|i| i.elements_mut().next());
        let description = iface.and_then(|i| i.elements_mut().find(|e| e.name == "description"));
        description.expect("description").children =
            vec![netconf_proto::xml::Node::Text("uplink".into())];
        cases.push(changed);
        // A leaf added after the others: not in schema order.
        let mut added = canonical.root.clone();
        let iface = added.elements_mut().next().and_then(|i| i.elements_mut().next());
        iface.expect("entry").push(Element::leaf(IF, "enabled", "false"));
        cases.push(added);
        // Not canonical: keys out of order, a client prefix, no declarations.
        cases.push(
            data::parse_data(&format!(
                "<if:interfaces xmlns:if=\"{IF}\"><if:interface><if:name>b</if:name>\
                 <if:type xmlns:x=\"{IANA}\">x:ethernetCsmacd</if:type></if:interface>\
                 <if:interface><if:name>a</if:name>\
                 <if:type xmlns:x=\"{IANA}\">x:ethernetCsmacd</if:type></if:interface>\
                 </if:interfaces>"
            ))
            .expect("xml"),
        );
        for root in cases {
            let by_text = ds.check(&data::data_text(&root), true).expect("valid");
            let by_tree = ds.check_tree(root, true).expect("valid");
            assert_eq!(by_tree, by_text);
        }
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
