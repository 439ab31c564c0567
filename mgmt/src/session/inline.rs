//! Which requests a session runs on its own async task instead of tokio's blocking pool, and
//! the guard that keeps such a request from ever blocking its thread (DECISIONS.md, "Where
//! operations run").
//!
//! Handing a request to the blocking pool and its reply back costs two thread hand-offs,
//! a large share of a small edit's CPU. Running a request on the session's task saves them
//! but blocks that tokio worker, and every session scheduled on it, until the request is
//! done. So a request runs there only if it is known to be short ([`light`]):
//!
//! - its message is at most [`MAX_MESSAGE`] bytes;
//! - it is one of the operations whose work is bounded by the message and the datastores
//!   it names (get-config, validate, edit-config, edit-data, get-data of a configuration
//!   datastore, commit, discard-changes, lock, unlock, close-session), and every datastore
//!   it reads or changes holds at most [`MAX_DATASTORE`] bytes of canonical text;
//! - if it changes running (commit, edit of running) or asks the backends whether they
//!   would take a change (validate), no backend is registered (backends
//!   are promised a blocking thread, and their prepare and apply cost what they cost) and
//!   the datastores' recent writes took at most [`MAX_STORE_WRITE`] (the flush waits for
//!   the disk).
//!
//! Everything else (get, copy-config, delete-config, kill-session, cancel-commit,
//! create-subscription, get-schema, backend RPCs, anything large) goes to the blocking pool.
//! A filter's cost is not known from the sizes: one that would take more than a light
//! request may (`filter_cost::LIGHT`) stops and calls [`refuse`], and the request runs on the
//! pool.
//!
//! A light change ([`needs_writer`]) must wait for the changes before it: its session
//! awaits the writer mutex (`Engine::write_async`: the task yields, the worker serves other
//! sessions meanwhile), checks the sizes again (the change it waited for may have grown a
//! datastore) and runs the request with the mutex held ([`run_holding`]); if the sizes grew,
//! the request goes to the pool. Any other request run inline ([`run`]) may only try-lock
//! the writer mutex: should it need it (it should not) and find it held, or the datastores
//! grown, it stops before changing anything, [`run`] returns `None` and the session runs it
//! again on the pool. So an inline request never blocks its thread waiting for another
//! session's change. Reads take no lock; a read judged light that meets a datastore grown
//! meanwhile costs one read of it. Which of these a request runs in is its [`Mode`], an
//! argument of every call on the way from the session to the writer mutex.

use std::cell::Cell;
use std::time::Duration;

use crate::datastore::DatastoreName;
use crate::dispatch::NMDA_NS;
use crate::engine::{small_for_changes, Engine, Mode, WriteGuard, MAX_DATASTORE};
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

/// The largest request message run inline, in bytes (about 20 interface entries).
pub const MAX_MESSAGE: usize = 4 * 1024;

/// The longest recent datastore write (see `Store::recent_write_time`) with which a change
/// of running still runs inline.
pub const MAX_STORE_WRITE: Duration = Duration::from_millis(1);

/// Runs `work` (a dispatch judged [`light`]) on the calling thread, in [`Mode::Inline`].
/// `None`: it stopped before changing anything because it would have had to wait for the
/// writer mutex or work on a datastore that grew large; run it again on a blocking thread.
pub fn run<T>(work: impl FnOnce(Mode<'_>) -> T) -> Option<T> {
    let stopped = Cell::new(false);
    let out = work(Mode::Inline { stopped: &stopped });
    (!stopped.get()).then_some(out)
}

/// Runs `work` (a dispatch judged [`light`] that [`needs_writer`]) on the calling thread in
/// [`Mode::Holding`], with the writer mutex its session took (`Engine::write_async`), then
/// releases it.
pub fn run_holding<T>(writer: WriteGuard<'_>, work: impl FnOnce(Mode<'_>) -> T) -> T {
    let out = work(Mode::Holding(&writer));
    drop(writer);
    out
}

/// Whether `op` (judged [`light`]) changes something, so that its session takes the
/// writer mutex for it before running it inline.
pub fn needs_writer(op: &Element) -> bool {
    let ns = op.namespace.as_deref().unwrap_or_default();
    match op.name.as_str() {
        // lock and unlock too: they are decided under the writer mutex (`Engine::lock`).
        // validate: a backend's prepare, which it runs, takes one transaction at a time.
        "edit-config" | "commit" | "discard-changes" | "lock" | "unlock" | "validate" => {
            ns == NETCONF_BASE_NS
        }
        "edit-data" => ns == NMDA_NS,
        _ => false,
    }
}

/// Whether `op`, received in a message of `message_len` bytes, may run on the session's
/// async task (see the module's documentation).
pub fn light(engine: &Engine, op: &Element, message_len: usize) -> bool {
    if message_len > MAX_MESSAGE {
        return false;
    }
    let small = |ds: DatastoreName| engine.datastores().size(ds) <= MAX_DATASTORE;
    let change = || small_for_changes(engine);
    let running_change = || {
        change()
            && !engine.has_backends()
            && engine.datastores().store().recent_write_time() <= MAX_STORE_WRITE
    };
    let ns = op.namespace.as_deref().unwrap_or_default();
    if ns == NETCONF_BASE_NS {
        match op.name.as_str() {
            "close-session" | "lock" => true,
            // A datastore, or inline <config> (bounded by the message).
            "get-config" => source(op, "source").is_none_or(small),
            // validate runs the backends' prepare, as a commit does.
            "validate" => source(op, "source").is_none_or(small) && !engine.has_backends(),
            "edit-config" => match source(op, "target") {
                Some(DatastoreName::Candidate) => change(),
                _ => running_change(),
            },
            "discard-changes" | "unlock" => change(),
            "commit" => running_change(),
            _ => false,
        }
    } else if ns == NMDA_NS {
        let datastore = op.child(NMDA_NS, "datastore").map(|d| d.text());
        let name = datastore.as_deref().map(|t| t.trim().rsplit(':').next().unwrap_or_default());
        match (op.name.as_str(), name) {
            ("get-data", Some("running" | "intended")) => small(DatastoreName::Running),
            ("get-data", Some("candidate")) => small(DatastoreName::Candidate),
            ("get-data", Some("startup")) => small(DatastoreName::Startup),
            ("edit-data", Some("candidate")) => change(),
            ("edit-data", Some("running" | "intended")) => running_change(),
            _ => false,
        }
    } else {
        false
    }
}

/// The datastore named in parameter `name` of a base operation (`<source><running/>`), if
/// it names one.
fn source(op: &Element, name: &str) -> Option<DatastoreName> {
    let p = op.elements().find(|e| e.name == name)?;
    let first = p.elements().next()?;
    DatastoreName::from_name(&first.name)
}
