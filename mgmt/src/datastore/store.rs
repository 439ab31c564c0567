//! Raw persistence of the configuration datastores in sled: one key per datastore holding its
//! canonical XML text. Knows nothing of YANG; [`super::Datastores`] validates before writing.
//!
//! ```text
//! sled tree "datastores"
//!   "running"            canonical XML of running
//!   "startup"            canonical XML of startup (absent: none saved)
//!   "confirmed-backup"   running before a confirmed commit that is not yet confirmed
//!   "initialised"        the first start's set-up is done
//! ```
//!
//! The candidate lives in memory only (it restarts as running); the keys "candidate" and
//! "rollback" written by older versions are removed at start.
//!
//! Every multi-key change (commit, copy) is one sled batch, and every change is made durable
//! before it is reported done: sled's log write ends in fdatasync, a large value's blob file
//! and its directory entry are fsynced before the log points at it (vendor/sled/PATCHED.md),
//! and the files sled creates on first opening are synced here.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

/// A configuration datastore (RFC 6241 §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatastoreName {
    /// The running configuration.
    Running,
    /// The candidate configuration (:candidate).
    Candidate,
    /// The startup configuration (:startup).
    Startup,
}

impl DatastoreName {
    /// The element name used in NETCONF (`<running/>`, ...) and the storage key.
    pub fn as_str(self) -> &'static str {
        match self {
            DatastoreName::Running => "running",
            DatastoreName::Candidate => "candidate",
            DatastoreName::Startup => "startup",
        }
    }

    /// From the NETCONF element name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "running" => Some(DatastoreName::Running),
            "candidate" => Some(DatastoreName::Candidate),
            "startup" => Some(DatastoreName::Startup),
            _ => None,
        }
    }
}

/// The key under which older versions kept the running configuration before the last commit
/// (never read back by anything): removed at start.
pub const OLD_ROLLBACK: &str = "rollback";

/// A storage failure.
#[derive(Debug, Error)]
pub enum StoreError {
    /// sled reported an error (I/O, corruption).
    #[error("datastore storage: {0}")]
    Sled(#[from] sled::Error),
    /// Stored bytes are not UTF-8 (the database was damaged or written by something else).
    #[error("datastore storage: the stored {0} is not UTF-8 text")]
    NotText(&'static str),
}

/// The sled database holding the datastores.
#[derive(Debug, Clone)]
pub struct Store {
    db: sled::Db,
    tree: sled::Tree,
    /// How long recent writes took, in µs (see [`Store::recent_write_time`]).
    recent_write_us: Arc<AtomicU64>,
}

/// How long [`Store::open`] waits for a lock released by a database closed in this process.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// Whether sled failed because another handle holds the directory's lock (`flock` gave
/// EWOULDBLOCK), as opposed to a real I/O error or corruption.
fn is_lock_held(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io) if io.kind() == std::io::ErrorKind::WouldBlock
        || io.to_string().contains("could not acquire lock"))
}

/// Makes the files sled created on first opening durable: sled writes its `conf` file and
/// creates `db` and `blobs/` without syncing them or the directory, so after a power cut on
/// first start they could be gone while later commits (synced in the log) were acknowledged.
/// Costs three fsyncs per start.
fn sync_created_files(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir.join("conf"))?.sync_all()?;
    std::fs::File::open(dir.join("blobs"))?.sync_all()?;
    std::fs::File::open(dir)?.sync_all()?;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::File::open(parent)?.sync_all()?;
    }
    Ok(())
}

fn text(key: &'static str, bytes: Option<sled::IVec>) -> Result<Option<String>, StoreError> {
    bytes.map(|b| String::from_utf8(b.to_vec()).map_err(|_| StoreError::NotText(key))).transpose()
}

// ===== impl Store =====

impl Store {
    /// Opens (creating if needed) the database in directory `path`.
    ///
    /// sled takes an exclusive lock on the directory, and a `Db` dropped in this process
    /// releases it only when sled's flusher thread has finished, a few milliseconds later
    /// (sled issue 1234). An engine closed and reopened at once (a restart in process, a
    /// test) would then fail, so a held lock is retried for up to [`LOCK_WAIT`]. A lock held
    /// by another live daemon lasts far longer than that and is still reported.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        let db = loop {
            match sled::Config::new().path(path).open() {
                Err(e) if is_lock_held(&e) && started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                other => break other?,
            }
        };
        let tree = db.open_tree("datastores")?;
        sync_created_files(path).map_err(|e| StoreError::Sled(e.into()))?;
        Ok(Store { db, tree, recent_write_us: Arc::default() })
    }

    /// The stored text of `ds`, `None` if it was never written.
    pub fn read(&self, ds: DatastoreName) -> Result<Option<String>, StoreError> {
        text(ds.as_str(), self.tree.get(ds.as_str())?)
    }

    /// The stored text under an arbitrary key (markers, the confirmed-commit backup).
    pub fn read_key(&self, key: &'static str) -> Result<Option<String>, StoreError> {
        text(key, self.tree.get(key)?)
    }

    /// Sets (`Some`) or removes (`None`) several keys at once, all or none, and flushes. A
    /// sled batch is atomic in the log (one manifest for all its writes: after a crash
    /// recovery sees all of them or none) and costs less than a transaction, which would
    /// also track reads we never make; a single key is written on its own.
    pub fn apply(&self, writes: &[(&str, Option<&str>)]) -> Result<(), StoreError> {
        let started = Instant::now();
        let result = self.apply_and_flush(writes);
        let took = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let _ = self.recent_write_us.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
            Some(took.max(old - old / 8))
        });
        result
    }

    /// What a write (batch and flush) took lately: a slow write counts in full at once, then
    /// loses an eighth with every later write (10 ms is below 1 ms after 17 fast writes).
    /// Sessions read it to judge whether a commit is light: the flush waits for the disk,
    /// whose latency no size measure predicts.
    pub fn recent_write_time(&self) -> Duration {
        Duration::from_micros(self.recent_write_us.load(Ordering::Relaxed))
    }

    fn apply_and_flush(&self, writes: &[(&str, Option<&str>)]) -> Result<(), StoreError> {
        if let [(key, value)] = writes {
            // One key (a plain commit: running): a single write is atomic in sled's log by
            // itself. A batch would first seal the log buffer for its manifest: one more log
            // write (a pwrite and a sync_file_range on one of sled's IO threads) per commit.
            match value {
                Some(v) => self.tree.insert(key.as_bytes(), v.as_bytes()).map(drop)?,
                None => self.tree.remove(key.as_bytes()).map(drop)?,
            }
            self.db.flush()?;
            return Ok(());
        }
        let mut batch = sled::Batch::default();
        for (key, value) in writes {
            match value {
                Some(v) => batch.insert(key.as_bytes(), v.as_bytes()),
                None => batch.remove(key.as_bytes()),
            }
        }
        self.tree.apply_batch(batch)?;
        self.db.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_survive_reopening() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let s = Store::open(dir.path()).expect("open");
            assert_eq!(s.read(DatastoreName::Running).expect("read"), None);
            s.apply(&[("startup", Some("<a/>")), ("running", Some("<r/>"))]).expect("write");
            s.apply(&[("running", Some("<c/>")), ("startup", None)]).expect("write");
        }
        let s = Store::open(dir.path()).expect("reopen");
        assert_eq!(s.read(DatastoreName::Startup).expect("read"), None);
        assert_eq!(s.read(DatastoreName::Running).expect("read").as_deref(), Some("<c/>"));
    }

    #[test]
    fn a_lock_released_soon_is_waited_for_and_a_held_one_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let held = Store::open(dir.path()).expect("open");
        let started = Instant::now();
        let e = Store::open(dir.path()).expect_err("a second open while the first is held");
        assert!(started.elapsed() >= LOCK_WAIT, "gave up after {:?}", started.elapsed());
        assert!(e.to_string().contains("could not acquire lock"), "{e}");
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(held);
        });
        let reopened = Store::open(dir.path()).expect("opened once the holder let go");
        release.join().expect("holder");
        drop(reopened);
    }

    #[test]
    fn names() {
        for ds in [DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup] {
            assert_eq!(DatastoreName::from_name(ds.as_str()), Some(ds));
        }
        assert_eq!(DatastoreName::from_name("operational"), None);
    }
}
